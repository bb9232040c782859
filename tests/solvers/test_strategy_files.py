"""One file entry point for every strategy kind: save_strategy / load_strategy round trips (bit for bit) for a
tree-form policy, a vector-form strategy and a two-round bot, the solver files read as strategies, and the
refusals (unknown format, corrupt arrays, another game, another version) with a PokerlabError."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games import kuhn, leduc
from pokerlab.games.two_round import TwoRoundHoldem, TwoRoundSpec
from pokerlab.games.vector import CoinPoker
from pokerlab.solvers import Policy, Solver
from pokerlab.solvers.strategy import Strategy, load_strategy, save_strategy, strategy_exploitability
from pokerlab.solvers.two_round import Abstraction, TwoRoundBot, TwoRoundTrainer
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy

SMALL = TwoRoundSpec(ranks=4, suits=2, stack=1)


def _rewrite(path, tmp_path, name, meta_change=None, **arrays):
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        kept = {k: data[k] for k in data.files if k != "meta"}
    meta.update(meta_change or {})
    meta = {k: v for k, v in meta.items() if v is not None}  # None: drop the field
    kept.update(arrays)
    out = tmp_path / f"{name}.npz"
    np.savez(out, meta=np.array(json.dumps(meta)), **kept)
    return out


def test_policy_round_trip(tmp_path):
    solver = Solver(kuhn(), "cfr+")
    solver.iterate(30)
    policy = solver.average_policy()
    assert isinstance(policy, Strategy)
    path = policy.save(tmp_path / "policy.npz")
    back = load_strategy(path, kuhn())
    assert isinstance(back, Policy) and np.array_equal(back.probs, policy.probs)
    assert strategy_exploitability(kuhn(), back) == strategy_exploitability(kuhn(), policy)
    # a solver state is read as its average policy through the same entry point
    assert np.array_equal(load_strategy(solver.save(tmp_path / "solver.npz"), kuhn()).probs, policy.probs)
    with pytest.raises(InvalidArgumentError, match="not 'leduc'"):
        load_strategy(path, leduc())
    bad = _rewrite(path, tmp_path, "negative", probs=-policy.probs)
    with pytest.raises(FileFormatError, match="corrupt pokerlab strategy file"):
        load_strategy(bad, kuhn())


def test_vector_strategy_round_trip(tmp_path):
    game = CoinPoker()
    solver = VectorSolver(game, "dcfr")
    solver.iterate(40)
    strategy = solver.average_strategy()
    assert isinstance(strategy, Strategy)
    path = save_strategy(strategy, tmp_path / "vector.npz")
    back = load_strategy(path, game)
    assert isinstance(back, VectorStrategy) and np.array_equal(back.probs, strategy.probs)
    assert strategy_exploitability(game, back) == strategy_exploitability(game, strategy)
    assert np.array_equal(load_strategy(solver.save(tmp_path / "solver.npz"), game).probs, strategy.probs)
    with pytest.raises(InvalidArgumentError, match="has no vector form"):
        load_strategy(path, kuhn())
    short = _rewrite(path, tmp_path, "short", probs=strategy.probs[:-1])
    with pytest.raises(FileFormatError, match="corrupt pokerlab strategy file"):
        load_strategy(short, game)
    unnormalised = _rewrite(path, tmp_path, "unnormalised", probs=strategy.probs * 2)
    with pytest.raises(FileFormatError, match="do not sum to 1"):
        load_strategy(unnormalised, game)


def test_two_round_bot_round_trip(tmp_path):
    game = TwoRoundHoldem(SMALL)
    trainer = TwoRoundTrainer(SMALL, Abstraction(buckets=2), seed=5)
    trainer.train(2_000)
    bot = trainer.bot()
    assert isinstance(bot, Strategy)
    path = bot.save(tmp_path / "bot.npz")
    back = load_strategy(path, game)
    assert isinstance(back, TwoRoundBot) and back.spec == bot.spec and back.info == json.loads(json.dumps(bot.info))
    for stack, strategy in bot.strategies.items():
        loaded = back.strategy(stack)
        for name in ("pre", "post", "pre_row", "post_row"):
            assert np.array_equal(getattr(loaded, name), getattr(strategy, name))
    assert strategy_exploitability(game, back) == strategy_exploitability(game, bot)
    # the trainer's checkpoint and a fixed bot go through the same entry point
    from_trainer = load_strategy(trainer.save(tmp_path / "trainer.npz"), game)
    assert np.array_equal(from_trainer.strategy(1).pre, bot.strategy(1).pre)
    fixed = load_strategy(TwoRoundBot.fixed("fullbet", SMALL).save(tmp_path / "fixed.npz"), game)
    assert fixed.strategy(1).name == "fullbet"
    with pytest.raises(InvalidArgumentError, match="a two-round bot for"):
        load_strategy(path, TwoRoundHoldem(TwoRoundSpec(ranks=5, suits=2, stack=1)))
    rows = _rewrite(path, tmp_path, "rows", s1_pre_row=np.full_like(bot.strategy(1).pre_row, 10**6))
    with pytest.raises(FileFormatError, match="corrupt pokerlab strategy file"):
        load_strategy(rows, game)


def test_unknown_corrupt_and_missing_files_are_refused(tmp_path):
    path = Policy.uniform(Solver(kuhn()).game).save(tmp_path / "p.npz")
    with pytest.raises(FileFormatError, match="not a pokerlab strategy file"):
        load_strategy(_rewrite(path, tmp_path, "unknown", {"format": "someone-else"}), kuhn())
    with pytest.raises(FileFormatError, match="unsupported format version 9"):
        load_strategy(_rewrite(path, tmp_path, "version", {"format_version": 9}), kuhn())
    with pytest.raises(FileFormatError, match="corrupt"):
        load_strategy(_rewrite(path, tmp_path, "nospec", {"game_spec": None}), kuhn())
    text = tmp_path / "text.npz"
    text.write_text("not an archive")
    with pytest.raises(FileFormatError, match=r"not a \.npz archive"):
        load_strategy(text, kuhn())
    with pytest.raises(InvalidArgumentError, match="not found"):
        load_strategy(tmp_path / "none.npz", kuhn())
    with pytest.raises(InvalidArgumentError, match="not a pokerlab strategy"):
        save_strategy(object(), tmp_path / "x.npz")  # type: ignore[arg-type]


def test_push_fold_chart_round_trip(tmp_path):
    """A general-sum vector-form strategy (a heads-up push/fold chart) through the same entry point."""
    from pokerlab.pushfold.solve import pushfold
    from pokerlab.solvers.vector_strategy import best_response_gains

    result = pushfold([10, 10], target=1e-2)
    back = load_strategy(result.strategy.save(tmp_path / "chart.npz"), result.game)
    assert np.array_equal(back.probs, result.strategy.probs)
    assert best_response_gains(result.tree, back) == best_response_gains(result.tree, result.strategy)
