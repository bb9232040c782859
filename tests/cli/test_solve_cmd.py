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
    assert r.exit_code == 0, r.output and state.exists()
    r = runner.invoke(app, ["solve", "leduc", "--resume", str(state), "-n", "60", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["iterations"] == 60
    assert json.loads(r.stdout)["algorithm"] == "dcfr"
    r = runner.invoke(app, ["exploitability", str(state), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["iterations"] == 30
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


def test_user_errors_exit_2(tmp_path):
    for args in (["solve", "holdem"], ["solve", "kuhn", "--algo", "cfr++"], ["solve", "kuhn", "-n", "-3"],
                 ["exploitability", str(tmp_path / "missing.npz")], ["solve", "kuhn", "--resume", "nope.npz"],
                 ["rps", "--iterations", "0"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.output)
        assert "Traceback" not in r.output
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    assert runner.invoke(app, ["exploitability", str(bad)]).exit_code == 2
    state = tmp_path / "rps.npz"
    assert runner.invoke(app, ["solve", "rps", "-n", "5", "--out", str(state)]).exit_code == 0
    assert runner.invoke(app, ["export", str(state)]).exit_code == 2
    assert runner.invoke(app, ["export", str(state), "--format", "acpc"]).exit_code == 2
