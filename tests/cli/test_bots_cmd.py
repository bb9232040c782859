"""``pokerlab play``, ``match`` and ``two-round``: bad input gives one ``error:`` line and exit status 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def assert_user_error(args, message=""):
    r = runner.invoke(app, [str(a) for a in args])
    assert r.exit_code == 2, (args, r.output)
    assert isinstance(r.exception, SystemExit), (args, r.exception)
    lines = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and message in lines[0], (args, r.output)


@pytest.mark.parametrize(("args", "message"), [
    (["play", "kuhn", "--vs", "random", "--hands", "2", "--seed", "-1"], "seed must be at least 0, got -1"),
    (["play", "kuhn", "--vs", "random", "--hands", "-1"], "--hands must be a positive integer"),
    (["play", "kuhn", "--vs", "random", "--hands", "0"], "--hands must be a positive integer"),
    (["match", "random", "fullbet", "--hands", "0"], "--hands must be at least 2"),
    (["match", "random", "fullbet", "--hands", "-5"], "--hands must be at least 2"),
    (["match", "random", "fullbet", "--hands", "10", "--seed", "-2"], "seed must be at least 0"),
    (["two-round", "exploitability", "nobody"], "expected a file from `pokerlab two-round train`, or random, uniform"),
])
def test_bad_bot_options(args, message):
    assert_user_error(args, message)


def test_the_retired_game_name_is_neither_a_command_nor_a_game():
    r = runner.invoke(app, ["brief", "size"])
    assert r.exit_code == 2 and "No such command 'brief'" in r.output
    assert_user_error(["match", "random", "fullbet", "--game", "brief"], "unknown game 'brief' for play")


def test_two_round_train_resume_rejects_options_it_would_ignore(tmp_path):
    out = tmp_path / "bot.npz"
    r = runner.invoke(app, ["two-round", "train", "--out", str(out), "-n", "500", "--stack", "1", "--buckets", "4",
                            "--json"])
    assert r.exit_code == 0, r.output
    for flag, value in (("--stack", "2"), ("--buckets", "8"), ("--seed", "3"), ("--stack", "1")):
        assert_user_error(["two-round", "train", "--out", out, "--resume", out, "-n", "10", flag, value],
                          "cannot be given with --resume")
    r = runner.invoke(app, ["two-round", "train", "--out", str(out), "--resume", str(out), "-n", "300", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["iterations"] == 800 and data["buckets"] == 4


def test_two_round_exploitability_uniform_is_random(monkeypatch):
    """``uniform`` and ``random`` name the same fixed bot (the exact computation itself, ~25 s on the full game, is
    tested in tests/agents; here it is replaced by a stub recording which strategy it was given)."""
    import pokerlab.solvers.two_round as two_round

    seen = []

    def fake(strategy, progress=None):
        seen.append(strategy.name)
        return two_round.TwoRoundExploitability((0.5, 0.25), 0.375, 375.0, 0.0)

    monkeypatch.setattr(two_round, "exploitability", fake)
    for name in ("uniform", "random", "Uniform"):
        r = runner.invoke(app, ["two-round", "exploitability", name, "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["exploitability"] == 0.375
    assert seen == ["uniform"] * 3
