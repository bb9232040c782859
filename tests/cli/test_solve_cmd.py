"""The solver commands through Typer's CliRunner: exit codes and the --json shape."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def test_solve_json_shape():
    result = runner.invoke(app, ["solve", "kuhn", "--algo", "cfr+", "--iterations", "200", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["game", "algorithm", "iterations", "exploitability", "game_value", "elapsed_s"]
    assert data["game"] == "kuhn" and data["algorithm"] == "cfr+" and data["iterations"] == 200
    assert isinstance(data["iterations"], int) and data["exploitability"] < 1e-3
    assert abs(data["game_value"] + 1 / 18) < 1e-3


def test_solve_out_resume_exploitability_export(tmp_path):
    state = tmp_path / "leduc.npz"
    r = runner.invoke(app, ["solve", "leduc", "--algo", "dcfr", "-n", "30", "--out", str(state)])
    assert r.exit_code == 0, r.output
    assert state.exists()
    r = runner.invoke(app, ["solve", "leduc", "--resume", str(state), "-n", "60", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["iterations"] == 60
    assert json.loads(r.stdout)["algorithm"] == "dcfr" and json.loads(r.stdout)["resumed_from"] == 30
    r = runner.invoke(app, ["exploitability", str(state), "--json"])  # the resumed file holds the continued run
    assert r.exit_code == 0 and json.loads(r.stdout)["iterations"] == 60
    r = runner.invoke(app, ["exploitability", str(state)])
    assert r.exit_code == 0 and "exploitability" in r.stdout
    out = tmp_path / "policy.json"
    r = runner.invoke(app, ["export", str(state), "--format", "openspiel", "-o", str(out)])
    assert r.exit_code == 0 and len(json.loads(out.read_text())["policy"]) == 936


def test_solve_target_and_time_and_mccfr():
    r = runner.invoke(app, ["solve", "kuhn", "--target-exploitability", "0.01", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["exploitability"] <= 0.01
    r = runner.invoke(app, ["solve", "kuhn", "--algo", "es-mccfr", "--time", "0.2", "--seed", "1", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["iterations"] > 0
    r = runner.invoke(app, ["solve", "rps2", "--algo", "lcfr", "-n", "100"])
    assert r.exit_code == 0 and "rps2" in r.stdout and "infosets" in r.stdout
    r = runner.invoke(app, ["solve", "kuhn", "--algo", "dcfr", "--alpha", "2", "--gamma", "3", "-n", "300", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["algorithm"] == "dcfr"


def test_rps_png(tmp_path):
    png = tmp_path / "rps.png"
    r = runner.invoke(app, ["rps", "--iterations", "300", "--png", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:4] == b"\x89PNG"
    r = runner.invoke(app, ["rps", "--iterations", "300", "--json"])
    assert r.exit_code == 0 and set(json.loads(r.stdout)) >= {"average_row", "exploitability"}


def assert_user_error(args, message=""):
    """Exit status 2, a SystemExit (not an exception escaping the command) and one ``error:`` line."""
    r = runner.invoke(app, [str(a) for a in args])
    assert r.exit_code == 2, (args, r.output)
    assert isinstance(r.exception, SystemExit), (args, r.exception)
    lines = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, (args, r.output)
    assert message in lines[0], (args, lines[0])
    return lines[0]


def test_user_errors_exit_2(tmp_path):
    for args in (["solve", "holdem"], ["solve", "kuhn", "--algo", "cfr++"], ["solve", "kuhn", "-n", "-3"],
                 ["exploitability", str(tmp_path / "missing.npz")], ["solve", "kuhn", "--resume", "nope.npz"],
                 ["rps", "--iterations", "0"]):
        assert_user_error(args)
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    assert_user_error(["exploitability", bad], "not a .npz archive")
    state = tmp_path / "rps.npz"
    assert runner.invoke(app, ["solve", "rps", "-n", "5", "--out", str(state)]).exit_code == 0
    assert runner.invoke(app, ["export", str(state)]).exit_code == 2
    assert runner.invoke(app, ["export", str(state), "--format", "acpc"]).exit_code == 2


def test_resume_rejects_other_game_algorithm_seed_and_short_totals(tmp_path):
    state = tmp_path / "leduc.npz"
    assert runner.invoke(app, ["solve", "leduc", "--algo", "dcfr", "-n", "30", "--out", str(state)]).exit_code == 0
    assert_user_error(["solve", "kuhn", "--resume", state, "-n", "50"], "solves 'leduc', not 'kuhn'")
    assert_user_error(["solve", "leduc", "--resume", state, "--algo", "cfr", "-n", "50"], "uses 'dcfr', not 'cfr'")
    assert_user_error(["solve", "leduc", "--resume", state, "--seed", "1", "-n", "50"], "--seed")
    assert_user_error(["solve", "leduc", "--resume", state, "-n", "5"], "already has 30 iterations")
    assert_user_error(["solve", "leduc", "--resume", state, "--alpha", "2", "-n", "50"], "cannot change")
    r = runner.invoke(app, ["solve", "leduc", "--resume", str(state), "--algo", "dcfr", "-n", "40", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["iterations"] == 40


def test_solver_parameters_checked_on_the_command_line():
    assert_user_error(["solve", "kuhn", "--algo", "dcfr", "--alpha", "nan", "-n", "5"], "finite number")
    assert_user_error(["solve", "kuhn", "--algo", "dcfr", "--alpha", "-1", "-n", "5"], "alpha must be")
    assert_user_error(["solve", "kuhn", "--algo", "cfr", "--alpha", "2", "-n", "5"], "cfr does not use alpha")
    assert_user_error(["solve", "kuhn", "--algo", "cfr+", "--beta", "1", "-n", "5"], "does not use beta")
    assert_user_error(["solve", "kuhn", "--algo", "es-mccfr", "--gamma", "1", "-n", "5"], "does not use gamma")
    assert_user_error(["solve", "kuhn", "--seed", "-1", "-n", "5"], "seed must be at least 0, got -1")


def test_rps_plot_names_and_huge_runs(tmp_path, monkeypatch):
    assert_user_error(["rps", "-n", "10", "--png", tmp_path / "x.txt"], "use one of .png")
    assert not (tmp_path / "x.txt").exists()
    assert_user_error(["rps", "-n", "10000000000"], "iterations must be from 1 to 1,000,000,000, got 10,000,000,000")
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["rps", "-n", "50", "--png", "r"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert r.stdout.strip().endswith("plot r.png")
