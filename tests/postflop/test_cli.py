"""The postflop commands: solve to a file, show a node and a hand, JSON, a file of another version refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.solvers.archive import read_archive, write_archive

runner = CliRunner()
SPOT = ["postflop", "solve", "--board", "Kh9d5c2s2h", "--oop", "QQ,99,AKo", "--ip", "KK,JTs", "--pot", "100",
        "--stack", "150", "--bets", "75%", "--raises", "a", "--target", "0.5%"]


def test_solve_save_show(tmp_path: Path) -> None:
    out = tmp_path / "spot.npz"
    solved = runner.invoke(app, [*SPOT, "--out", str(out), "--json"])
    assert solved.exit_code == 0, solved.output
    data = json.loads(solved.stdout)
    assert data["exploitability_percent"] <= 0.5
    assert abs(data["ev"]["OOP"] + data["ev"]["IP"] - 100) < 1e-9
    shown = runner.invoke(app, ["postflop", "show", str(out), "--line", "check, bet 75%", "--hand", "QsQh", "--json"])
    assert shown.exit_code == 0, shown.output
    node = json.loads(shown.stdout)
    assert node["node"]["line"] == ["OOP check", "IP bet 75"]
    assert node["node"]["actions"] == ["fold", "call", "all-in 150"]
    assert set(node["hand"]["strategy"]) == {"fold", "call", "all-in 150"}
    assert abs(sum(node["node"]["frequencies"].values()) - 1) < 1e-9
    text = runner.invoke(app, ["postflop", "show", str(out), "--line", "check, bet 75%"])
    assert text.exit_code == 0 and "OOP check, IP bet 75: OOP to act" in text.output


def test_rake_is_solved_saved_and_shown(tmp_path: Path) -> None:
    """--rake 5% capped at 3 chips: the EVs sum to the pot less the expected rake (0 to 3 chips a hand), the
    saved spot keeps the rake, show prints it; a rake of 100% or more is refused in one line, exit 2."""
    out = tmp_path / "raked.npz"
    solved = runner.invoke(app, [*SPOT, "--rake", "5%", "--rake-cap", "3", "--out", str(out), "--json"])
    assert solved.exit_code == 0, solved.output
    data = json.loads(solved.stdout)
    assert data["spot"]["rake"] == 5.0 and data["spot"]["rake_cap"] == 3.0
    assert 100 - 3 <= data["ev"]["OOP"] + data["ev"]["IP"] < 100 - 1
    shown = runner.invoke(app, ["postflop", "show", str(out)])
    assert shown.exit_code == 0 and "rake 5% capped at 3" in shown.output
    bad = runner.invoke(app, [*SPOT, "--rake", "100%"])
    assert bad.exit_code == 2
    assert bad.output.strip() == "error: the rake must be from 0% to below 100% of the pot, got '100%'"


def test_a_file_of_another_version_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "spot.npz"
    assert runner.invoke(app, [*SPOT, "--out", str(out)]).exit_code == 0
    meta, arrays = read_archive(out, "solve")
    meta["format_version"] = 99
    write_archive(out, meta, {k: np.asarray(v) for k, v in arrays.items()})
    shown = runner.invoke(app, ["postflop", "show", str(out)])
    assert shown.exit_code == 2
    assert shown.output.strip() == (f"error: {out}: unsupported format version 99 (this pokerlab reads version 2)")


def test_ctrl_c_saves_the_solve_so_far(tmp_path: Path) -> None:
    """SIGINT to a real `pokerlab postflop solve` between iterations: exit 130, one line saying how far it got,
    the solve saved and loadable with that many iterations."""
    import os
    import signal
    import subprocess
    import sys

    from pokerlab.postflop import load

    out = tmp_path / "turn.npz"
    args = [sys.executable, "-m", "pokerlab.cli.main", "postflop", "solve", "--board", "Td9d6hQc", "--oop",
            "66+,A8s+,AJo+,K9s+", "--ip", "QQ-22,AQs-A2s,ATo+", "--pot", "200", "--stack", "900", "--bets",
            "50%,100%,a", "--raises", "2.5x,a", "--target", "0.0001%", "--iterations", "100000", "--out", str(out)]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "COLUMNS": "200"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # the first progress line: the iterations are running
        seen.append(line)
        if line.startswith("iteration 10:"):
            break
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=120)
    lines = [x for x in (seen[-1:] + rest.splitlines()) if x.strip()]
    assert process.returncode == 130, (seen, rest)
    assert "Traceback" not in rest
    last = lines[-1]
    assert last.startswith("interrupted after ") and last.endswith(f"iterations, saved to {out}"), last
    done = int(last.split()[2])
    assert done >= 10
    assert load(out).iterations == done
