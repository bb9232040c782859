"""--resume continues a run: iterations accumulate, the resumed file (the default --out) holds the continued
state, `pokerlab exploitability FILE` reports the total, the exploitability keeps falling, and the continued
run is bit-identical to one uninterrupted run of the same total."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.solvers.core import Solver

runner = CliRunner()


def run_json(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_resume_accumulates_and_keeps_improving(tmp_path):
    state = tmp_path / "leduc.npz"
    first = run_json(["solve", "leduc", "--algo", "cfr+", "-n", "40", "--out", str(state), "--json"])
    totals, values = [first["iterations"]], [first["exploitability"]]
    for total in (80, 160):
        data = run_json(["solve", "leduc", "--resume", str(state), "-n", str(total), "--json"])
        assert data["resumed_from"] == totals[-1] and data["out"] == str(state)
        saved = run_json(["exploitability", str(state), "--json"])
        assert saved["iterations"] == data["iterations"] == total
        assert saved["exploitability"] == data["exploitability"]
        totals.append(total)
        values.append(data["exploitability"])
    assert values[0] > values[1] > values[2]
    # resuming with no count adds 1,000 more
    data = run_json(["solve", "leduc", "--resume", str(state), "--json"])
    assert data["iterations"] == 1160 and data["resumed_from"] == 160
    # the continued state equals one run of 1,160 iterations, bit for bit
    whole = tmp_path / "whole.npz"
    run_json(["solve", "leduc", "--algo", "cfr+", "-n", "1160", "--out", str(whole), "--json"])
    a, b = Solver.load(state), Solver.load(whole)
    assert a.iteration == b.iteration == 1160
    assert np.array_equal(a.cumulative, b.cumulative) and np.array_equal(a.regrets, b.regrets)


def test_resume_to_another_file_leaves_the_original(tmp_path):
    state, other = tmp_path / "kuhn.npz", tmp_path / "more.npz"
    run_json(["solve", "kuhn", "-n", "50", "--out", str(state), "--json"])
    before = state.read_bytes()
    data = run_json(["solve", "kuhn", "--resume", str(state), "-n", "90", "--out", str(other), "--json"])
    assert data["iterations"] == 90 and state.read_bytes() == before
    assert Solver.load(other).iteration == 90


def test_checkpoint_every_iterations(tmp_path, monkeypatch):
    """--checkpoint-every N saves the state during the run (seen through Solver.save calls)."""
    saved: list[int] = []
    original = Solver.save

    def spy(self, path):
        saved.append(self.iteration)
        return original(self, path)

    monkeypatch.setattr(Solver, "save", spy)
    state = tmp_path / "leduc.npz"
    run_json(["solve", "leduc", "-n", "3000", "--out", str(state), "--checkpoint-every", "200", "--json"])
    assert len(saved) >= 3 and saved[-1] == 3000 and all(0 < i <= 3000 for i in saved)
    assert Solver.load(state).iteration == 3000


def test_two_round_train_resume_defaults_to_the_checkpoint(tmp_path):
    bot = tmp_path / "bot.npz"
    data = run_json(["two-round", "train", "--out", str(bot), "-n", "2000", "--buckets", "4", "--json"])
    assert data["iterations"] == 2000
    data = run_json(["two-round", "train", "--resume", str(bot), "-n", "3000", "--json"])
    assert data["iterations"] == 5000 and data["out"] == str(bot)
