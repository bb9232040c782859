"""The Strategy protocol: every kind registers its formats, plays, values and measures itself; an agent's play is
read into the kind its game names, and valued as that kind; the vector-form solver's save is atomic."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.agents.players import RandomAgent
from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games import get_game, kuhn, leduc
from pokerlab.games.registry import PLAY, game_names
from pokerlab.games.two_round import TwoRoundHoldem, TwoRoundSpec
from pokerlab.games.vector import CoinPoker
from pokerlab.solvers import Policy, Solver, TwoRoundBot, VectorSolver, VectorStrategy
from pokerlab.solvers import strategy as strategy_module
from pokerlab.solvers.strategy import Strategy, strategy_formats, strategy_from_distribution

SMALL = TwoRoundSpec(ranks=4, suits=2, stack=1)


def test_every_kind_is_a_strategy_and_every_format_is_registered():
    assert set(strategy_formats()) == {"pokerlab-policy", "pokerlab-vector-strategy", "pokerlab-two-round-strategy",
                                       "pokerlab-solver", "pokerlab-vector-solver", "pokerlab-two-round-bot"}
    for kind in (Policy, VectorStrategy, TwoRoundBot):
        assert kind.format in strategy_formats()
    coin = VectorSolver(CoinPoker())
    for strategy in (Policy.uniform(Solver(kuhn()).game), coin.average_strategy(), TwoRoundBot.fixed("uniform", SMALL)):
        assert isinstance(strategy, Strategy)
    with pytest.raises(ValueError, match="registered twice"):
        strategy_module.register_reader("pokerlab-policy", lambda path, game: Policy.uniform(Solver(kuhn()).game))


def test_each_playable_game_reads_an_agent_into_the_kind_it_names():
    kinds = {Policy.format: Policy, TwoRoundBot.format: TwoRoundBot}
    for name in game_names(PLAY):
        game = get_game(name) if name != "two-round" else TwoRoundHoldem(SMALL)
        as_played = RandomAgent().strategy(game)
        assert type(as_played) is kinds[game.strategy_format]


def test_values_are_antisymmetric_and_the_same_through_another_kind():
    """Values are antisymmetric; an agent (another kind) is read into the game's kind at every information set,
    so the random agent is valued exactly as the uniform policy or the uniform two-round bot, bit for bit."""
    game = leduc()
    solver = Solver(game, "cfr+")
    solver.iterate(20)
    trained, uniform = solver.average_policy(), Policy.uniform(solver.game)
    assert trained.value_against(game, uniform) == -uniform.value_against(game, trained)
    read = strategy_from_distribution(game, RandomAgent().distribution, "random")
    assert isinstance(read, Policy) and np.array_equal(read.probs, uniform.probs)
    assert trained.value_against(game, read) == trained.value_against(game, uniform)
    bot = TwoRoundBot.fixed("fullbet", SMALL)
    two_round = TwoRoundHoldem(SMALL)
    against_agent = bot.value_against(two_round, read_two_round := RandomAgent().strategy(two_round))
    assert isinstance(read_two_round, TwoRoundBot)
    assert against_agent == bot.value_against(two_round, TwoRoundBot.fixed("uniform", SMALL))
    assert against_agent == -TwoRoundBot.fixed("uniform", SMALL).value_against(two_round, bot)


def test_a_kind_refuses_a_game_it_does_not_play():
    bot = TwoRoundBot.fixed("uniform", SMALL)
    with pytest.raises(InvalidGameError, match="plays only the two-round game, not 'kuhn'"):
        bot.exploitability(kuhn())
    with pytest.raises(InvalidGameError, match="plays only the two-round game"):
        bot.distribution(kuhn(), kuhn().initial_state())
    coin = VectorSolver(CoinPoker()).average_strategy()
    with pytest.raises(InvalidGameError, match="does not play 'kuhn'"):
        coin.distribution(kuhn(), kuhn().initial_state())
    with pytest.raises(InvalidArgumentError, match="not a pokerlab strategy"):
        strategy_module.save_strategy(Solver(kuhn()), "x.npz")  # type: ignore[arg-type]


def test_vector_solver_save_is_atomic(tmp_path, monkeypatch):
    """An interrupted save leaves the previous file whole (and no temporary beside it); a missing file is a
    one-line PokerlabError."""
    solver = VectorSolver(CoinPoker(), "cfr+")
    solver.iterate(10)
    path = solver.save(tmp_path / "run.npz")
    solver.iterate(10)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        solver.save(path)
    monkeypatch.undo()
    assert VectorSolver.load(path, CoinPoker()).iteration == 10
    assert [p.name for p in tmp_path.iterdir()] == ["run.npz"]
    with pytest.raises(InvalidArgumentError, match="no vector solver file"):
        VectorSolver.load(tmp_path / "none.npz", CoinPoker())
