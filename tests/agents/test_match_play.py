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

runner = CliRunner()


@pytest.mark.parametrize("name", ["kuhn", "leduc", "brief"])
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


def test_fullbet_never_folds_and_checkcall_never_raises():
    game = game_by_name("brief")
    rng = np.random.default_rng(1)
    for _ in range(30):
        _, end = play_hand(game, FullBetAgent(), CheckCallAgent(), rng)
        assert end.betting.folded == -1
        for r in end.history:
            assert all(x >= 0 for x in r)


def test_match_mean_agrees_with_exact_ev_and_ci_is_normal():
    game = game_by_name("kuhn")
    r = run_match(game, FullBetAgent(), RandomAgent(), hands=4000, matches=10, seed=3)
    assert abs(r.chips_per_hand - r.exact_ev) < 4 * r.stderr
    assert r.ci95 == pytest.approx(1.959963984540054 * r.stderr)
    assert r.hands_won_pct + r.hands_lost_pct + r.hands_tied_pct == pytest.approx(100.0)
    assert r.matches_won_a + r.matches_won_b + r.matches_drawn == 10
    # the same seed gives the same result
    again = run_match(game, FullBetAgent(), RandomAgent(), hands=4000, matches=10, seed=3)
    assert again.chips_per_hand == r.chips_per_hand and again.matches_won_a == r.matches_won_a


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


def test_brief_match_uses_smaller_stacks_when_short():
    game = game_by_name("brief")
    r = run_match(game, FullBetAgent(), RandomAgent(), hands=0 + 2, matches=3, start_chips=4, seed=0, exact=False)
    assert r.matches_won_a + r.matches_won_b + r.matches_drawn == 3


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


def test_play_kuhn_in_a_pseudo_terminal():
    child = _spawn("play kuhn --vs random --seed 4")
    child.expect("Your move")
    child.sendline("zz")
    child.expect("not a legal move")
    hands = 0
    while hands < 3:
        i = child.expect(["Your move", r"Score after (\d+) hand"])
        if i == 0:
            child.sendline("c")
        else:
            hands = int(child.match.group(1))
    child.expect("Your move")
    child.sendline("q")
    child.expect("Bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_play_brief_in_a_pseudo_terminal():
    child = _spawn("play brief --vs checkcall --seed 2")
    child.expect("Your cards")
    child.expect("Your move")
    child.sendline("9")
    child.expect("not a legal move")
    child.sendline("?")
    child.expect("fewer chips")
    hands = 0
    while hands < 2:
        i = child.expect(["Your move", r"Score after (\d+) hand"])
        if i == 0:
            child.sendline("1")  # bet 1 or call 1 or check-raise...
        else:
            hands = int(child.match.group(1))
    child.expect("Your move")
    child.sendline("q")
    child.expect("Bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_cli_match_json_and_errors():
    result = runner.invoke(app, ["match", "fullbet", "random", "--game", "leduc", "--hands", "500", "--matches", "5",
                                 "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"chips_per_hand", "ci95", "exact_ev", "hands_won_pct", "match_win_pct", "matches_won_a"} <= set(data)
    assert runner.invoke(app, ["match", "fullbet", "nobody", "--game", "kuhn"]).exit_code == 2
    assert runner.invoke(app, ["match", "fullbet", "random", "--game", "chess"]).exit_code == 2
    assert runner.invoke(app, ["match", "fullbet", "random", "--hands", "-3"]).exit_code == 2


def test_cli_brief_size_and_train(tmp_path):
    result = runner.invoke(app, ["brief", "size", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["betting_sequences"] == 1313
    out = tmp_path / "bot.npz"
    result = runner.invoke(app, ["brief", "train", "--out", str(out), "--iterations", "2000", "--stack", "2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["iterations"] == 2000
    result = runner.invoke(app, ["brief", "train", "--out", str(out), "--resume", str(out), "--iterations", "1000",
                                 "--json"])
    assert json.loads(result.stdout)["iterations"] == 3000
    bad = tmp_path / "bad.npz"
    bad.write_text("x")
    assert runner.invoke(app, ["brief", "exploitability", str(bad)]).exit_code == 2
    assert runner.invoke(app, ["play", "chess"]).exit_code == 2
