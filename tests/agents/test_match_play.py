"""Agents' legality, match statistics, the human session through a pseudo-terminal, and the CLI."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest
from typer.testing import CliRunner

from pokerlab.agents.human import HumanAgent, play_session
from pokerlab.agents.match import game_by_name, play_hand, run_match, sample_chance
from pokerlab.agents.players import CheckCallAgent, FullBetAgent, RandomAgent
from pokerlab.cli.main import app
from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games.base import CHANCE, TERMINAL
from pokerlab.solvers.two_round import TwoRoundBot, TwoRoundTrainer

runner = CliRunner()


@pytest.mark.parametrize("name", ["kuhn", "leduc", "two-round"])
def test_agents_only_play_legal_actions(name):
    game = game_by_name(name)
    rng = np.random.default_rng(0)
    agents = [RandomAgent(), FullBetAgent(), CheckCallAgent()]
    for _ in range(60):
        state = game.initial_state()
        while game.current_player(state) != TERMINAL:
            if game.current_player(state) == CHANCE:
                state = game.apply(state, sample_chance(game, state, rng))
                continue
            legal = game.legal_actions(state)
            for agent in agents:
                dist = agent.distribution(game, state)
                assert {a for a, _ in dist} <= set(legal)
                assert math.isclose(sum(p for _, p in dist), 1.0, abs_tol=1e-12)
            state = game.apply(state, agents[int(rng.integers(3))].act(game, state, rng))


class _Recorder:
    """Wraps an agent and records (state before, state after) for each of its decisions."""

    def __init__(self, agent, game):
        self.agent, self.game, self.moves = agent, game, []
        self.name = agent.name

    def act(self, game, state, rng):
        action = self.agent.act(game, state, rng)
        self.moves.append((state, game.apply(state, action)))
        return action

    def observe_end(self, *args):
        pass


@pytest.mark.parametrize("seats", ["fullbet first", "checkcall first"])
def test_fullbet_never_folds_and_checkcall_never_raises(seats):
    game = game_by_name("two-round")
    rng = np.random.default_rng(1)
    full, call = _Recorder(FullBetAgent(), game), _Recorder(CheckCallAgent(), game)
    for _ in range(30):
        _, end = play_hand(game, full, call, rng) if seats == "fullbet first" else play_hand(game, call, full, rng)
        assert end.betting.folded == -1  # nobody folds: fullbet never does and checkcall never faces a fold
    assert full.moves and call.moves
    for before, after in call.moves:
        me = before.betting.to_act
        # a check or call leaves checkcall's chips in at most level with the opponent's (below only when all-in)
        assert after.betting.put[me] <= before.betting.put[1 - me]
        assert after.betting.put[me] == min(before.betting.put[1 - me], game.rules.stack)
    raised = 0
    for before, after in full.moves:
        me = before.betting.to_act
        assert after.betting.put[me] >= before.betting.put[1 - me]  # never folds or puts in less than the call
        raised += after.betting.put[me] > before.betting.put[1 - me]
    assert raised > 0


def test_match_mean_agrees_with_exact_ev_and_ci_is_normal():
    game = game_by_name("kuhn")
    r = run_match(game, FullBetAgent(), RandomAgent(), hands=4000, matches=10, seed=3)
    assert abs(r.chips_per_hand - r.exact_ev) < 4 * r.stderr
    assert r.ci95 == pytest.approx(1.959963984540054 * r.stderr)
    assert r.hands_tied_pct == 0.0  # Kuhn has no split pots
    # P(A wins a hand) exactly, from the policies: FullBet never folds, so A wins exactly when it holds the
    # higher card or Random folds to its bet
    assert abs(r.hands_won_pct / 100 - _kuhn_fullbet_win_probability()) < 4 * math.sqrt(0.25 / r.hands)
    # chips are conserved and a match ends at a bust, so only a capped match can be drawn
    assert r.matches_drawn <= r.matches_capped
    # the same seed gives the same result
    again = run_match(game, FullBetAgent(), RandomAgent(), hands=4000, matches=10, seed=3)
    assert again.chips_per_hand == r.chips_per_hand and again.matches_won_a == r.matches_won_a


def _kuhn_fullbet_win_probability() -> float:
    """P(FullBet wins a Kuhn hand against Random), seats alternating, by enumerating deals and Random's choices."""
    game = game_by_name("kuhn")

    def walk(state, prob, a_seat):
        who = game.current_player(state)
        if who == TERMINAL:
            payoff = game.utility(state)
            return prob * ((payoff > 0) if a_seat == 0 else (payoff < 0))
        if who == CHANCE:
            return sum(walk(game.apply(state, o), prob * p, a_seat) for o, p in game.chance_outcomes(state))
        agent = FullBetAgent() if who == a_seat else RandomAgent()
        return sum(walk(game.apply(state, a), prob * p, a_seat) for a, p in agent.distribution(game, state))

    return 0.5 * (walk(game.initial_state(), 1.0, 0) + walk(game.initial_state(), 1.0, 1))


def test_match_stderr_is_honest():
    """The reported standard error matches the spread of the mean over independent seeds."""
    game = game_by_name("kuhn")
    means, errs = [], []
    for seed in range(12):
        r = run_match(game, RandomAgent(), CheckCallAgent(), hands=400, matches=0, seed=seed, exact=False)
        means.append(r.chips_per_hand)
        errs.append(r.stderr)
    ratio = np.std(means, ddof=1) / np.mean(errs)
    assert 0.5 < ratio < 1.6


def test_two_round_match_uses_smaller_stacks_when_short(monkeypatch):
    """Each bust-format hand is played with the smaller stack behind the ante (capped at the game's 6): record
    the game every hand is actually played with and replay the chip counts independently."""
    import pokerlab.agents.match as match

    played = []
    real_play_hand = match.play_hand

    def recording_play_hand(game, seat0, seat1, rng):
        payoff, end = real_play_hand(game, seat0, seat1, rng)
        played.append((game.rules.stack, seat0.name, payoff))
        return payoff, end

    monkeypatch.setattr(match, "play_hand", recording_play_hand)
    game = game_by_name("two-round")
    r = run_match(game, FullBetAgent(), RandomAgent(), hands=0, matches=3, start_chips=4, seed=0, exact=False)
    assert r.matches == 3
    stacks = [s for s, _, _ in played]
    assert stacks[0] == 3  # 4 chips each, 1 of them the ante
    assert min(stacks) < 3 or max(stacks) > 3  # the stacks do change during a match
    # replay: chips of A and B, hand by hand, must reproduce every stack used
    chips, match_no, hands_in_match = [4.0, 4.0], 0, 0
    for stack, first, payoff in played:
        assert stack == min(6, int(min(chips)) - 1)
        gain_a = payoff if first == "fullbet" else -payoff
        gain_a = min(gain_a, chips[1]) if gain_a > 0 else max(gain_a, -chips[0])
        chips = [chips[0] + gain_a, chips[1] - gain_a]
        hands_in_match += 1
        if min(chips) <= 0 or hands_in_match == 1000:
            chips, match_no, hands_in_match = [4.0, 4.0], match_no + 1, 0
    assert match_no == 3 and hands_in_match == 0


def test_bad_match_arguments():
    game = game_by_name("kuhn")
    with pytest.raises(InvalidArgumentError):
        run_match(game, RandomAgent(), RandomAgent(), hands=-1)
    with pytest.raises(InvalidArgumentError):
        run_match(game, RandomAgent(), RandomAgent(), hands=10, start_chips=1)
    with pytest.raises(InvalidGameError):
        game_by_name("chess")


def test_human_session_scripted():
    """The human agent through plain callables: invalid input gets a hint, quitting ends the session cleanly."""
    inputs = iter(["xyz", "c", "c", "c", "c", "c", "c", "q"])
    out: list[str] = []
    human = HumanAgent(read=lambda prompt: next(inputs), write=out.append)
    played, score = play_session(game_by_name("kuhn"), CheckCallAgent(), human, seed=1)
    text = "\n".join(out)
    assert "is not a legal move" in text
    assert "Bye" in text
    assert played >= 2 and score == int(score)


def _spawn(args: str) -> pexpect.spawn:
    env = dict(os.environ, COLUMNS="200", PYTHONUNBUFFERED="1")
    script = Path(sys.executable).parent / "pokerlab"  # the console script installed with the package
    return pexpect.spawn(f"{script} {args}", env=env, encoding="utf-8", timeout=120)


def _play_hands_then_quit(child: pexpect.spawn, hands: int, move: str) -> None:
    """Answer every prompt with ``move`` until ``hands`` hands are scored, then quit; the program exits 0."""
    played = 0
    while played < hands:
        if child.expect(["Your move", r"Score after (\d+) hand"]) == 0:
            child.sendline(move)
        else:
            played = int(child.match.group(1))
    child.expect("Your move")
    child.sendline("q")
    child.expect("Bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_play_kuhn_in_a_pseudo_terminal():
    child = _spawn("play kuhn --vs random --seed 4")
    child.expect("Your move")
    child.sendline("zz")
    child.expect("not a legal move")
    _play_hands_then_quit(child, hands=3, move="c")


def test_play_two_round_in_a_pseudo_terminal():
    child = _spawn("play two-round --vs checkcall --seed 2")
    child.expect("Your cards")
    child.expect("Your move")
    child.sendline("9")
    child.expect("not a legal move")
    child.sendline("?")
    child.expect("fewer chips")
    _play_hands_then_quit(child, hands=2, move="1")  # bet 1, call 1 or check-raise, whatever is legal


def test_cli_match_json_and_errors():
    result = runner.invoke(app, ["match", "fullbet", "random", "--game", "leduc", "--hands", "500", "--matches", "5",
                                 "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"chips_per_hand", "ci95", "exact_ev", "hands_won_pct", "match_win_pct", "matches_won_a"} <= set(data)
    assert runner.invoke(app, ["match", "fullbet", "nobody", "--game", "kuhn"]).exit_code == 2
    assert runner.invoke(app, ["match", "fullbet", "random", "--game", "chess"]).exit_code == 2
    assert runner.invoke(app, ["match", "fullbet", "random", "--hands", "-3"]).exit_code == 2


def test_corrupt_cached_bots_are_retrained(tmp_path, monkeypatch):
    import pokerlab.agents.defaults as defaults
    from pokerlab.errors import FileFormatError
    from pokerlab.solvers.core import Solver

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    folder = tmp_path / "bots"
    folder.mkdir()
    kuhn_path = folder / "kuhn-cfr+-v1.npz"
    kuhn_path.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(FileFormatError):
        Solver.load(kuhn_path)
    agent = defaults.default_trained(game_by_name("kuhn"))
    assert agent.name == "cfr"
    assert Solver.load(kuhn_path).exploitability().exploitability < 1e-4  # replaced by a good file
    assert sorted(p.name for p in folder.iterdir()) == ["kuhn-cfr+-v1.npz"]  # no temporary left behind
    # a readable file of another game is replaced too
    Solver("leduc", "cfr").save(kuhn_path)
    defaults.default_trained(game_by_name("kuhn"))
    assert Solver.load(kuhn_path).game.name == "kuhn"

    # the two-round bot: 200 iterations instead of 4 million
    real_train = TwoRoundTrainer.train
    monkeypatch.setattr(TwoRoundTrainer, "train", lambda self, n, **kw: real_train(self, 200, **kw))
    two_round = game_by_name("two-round")
    spec = two_round.rules
    bot_path = folder / f"two-round-r{spec.ranks}s{spec.suits}k{spec.stack}-v1.npz"
    bot_path.write_text("garbage")
    messages = []
    agent = defaults.default_trained(two_round, progress=messages.append)
    assert agent.name == "cfr" and "retraining" in messages[0]
    assert TwoRoundBot.load(bot_path).spec == spec
    messages.clear()
    defaults.default_trained(two_round, progress=messages.append)  # the cached bot, read back
    assert not messages


def test_cli_two_round_size_and_train(tmp_path):
    listed = runner.invoke(app, ["--help"]).output
    assert "two-round" in listed
    result = runner.invoke(app, ["two-round", "size", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["betting_sequences"] == 1313
    out = tmp_path / "bot.npz"
    result = runner.invoke(app, ["two-round", "train", "--out", str(out), "--iterations", "2000", "--stack", "2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["iterations"] == 2000
    result = runner.invoke(app, ["two-round", "train", "--out", str(out), "--resume", str(out), "--iterations", "1000",
                                 "--json"])
    assert json.loads(result.stdout)["iterations"] == 3000
    bad = tmp_path / "bad.npz"
    bad.write_text("x")
    assert runner.invoke(app, ["two-round", "exploitability", str(bad)]).exit_code == 2
    assert runner.invoke(app, ["play", "chess"]).exit_code == 2


def test_card_blind_agents_give_the_fixed_two_round_strategies_exactly():
    from pokerlab.agents.players import Agent
    from pokerlab.games.two_round import TwoRoundHoldem, TwoRoundSpec
    from pokerlab.solvers.two_round import fixed_strategy

    spec = TwoRoundSpec(ranks=5, suits=2, stack=2)
    game = TwoRoundHoldem(spec)
    for agent, kind in ((RandomAgent(), "uniform"), (FullBetAgent(), "fullbet"), (CheckCallAgent(), "checkcall")):
        played = agent.strategy(game).strategy(spec.stack)
        assert np.array_equal(played.pre, fixed_strategy(spec, kind).pre)

    class FoldsTrash(Agent):
        name = "folds-trash"

        def distribution(self, game, state):
            actions = game.legal_actions(state)
            strong = max(c // 4 for c in state.hands[state.betting.to_act]) >= 11  # a king or an ace
            return [(max(actions) if strong else actions[0], 1.0)]

    with pytest.raises(InvalidArgumentError, match="plays by its cards"):
        FoldsTrash().strategy(game)


def test_unknown_games_are_refused_listing_the_playable_ones():
    with pytest.raises(InvalidGameError, match="unknown game 'brief' for play .expected one of kuhn, leduc, "):
        game_by_name("brief")
    with pytest.raises(InvalidGameError, match="unknown game"):
        game_by_name("chess")
