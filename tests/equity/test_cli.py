"""The equity and range commands: tables, --json shape, exit codes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def test_equity_json_shape_exact():
    result = runner.invoke(app, ["equity", "AhAs", "KdKc", "--board", "2c7d9h", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"method", "players", "showdowns", "elapsed_s"}
    assert data["method"] == "exact" and data["showdowns"] == 990
    assert [p["range"] for p in data["players"]] == ["AhAs", "KdKc"]
    assert abs(data["players"][0]["equity"] - 0.916161616162) < 1e-9
    assert data["players"][0]["stderr"] is None
    assert set(data["players"][0]) == {"range", "equity", "win", "tie", "stderr"}


def test_equity_json_monte_carlo():
    result = runner.invoke(app, ["equity", "QQ+,AKs", "random", "random", "--mc", "--trials", "20000", "--seed", "3",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "montecarlo" and data["showdowns"] == 20000
    assert all(isinstance(p["stderr"], float) for p in data["players"])
    again = json.loads(runner.invoke(app, ["equity", "QQ+,AKs", "random", "random", "--mc", "--trials", "20000",
                                           "--seed", "3", "--json"]).stdout)
    assert again["players"] == data["players"]


def test_equity_table():
    result = runner.invoke(app, ["equity", "AsKs", "AcJc", "-b", "Js8s5d"])
    assert result.exit_code == 0, result.output
    assert "46.566%" in result.stdout and "exact" in result.stdout


def test_equity_errors_exit_2_with_one_line():
    for args in (["equity", "AsKs"], ["equity", "AsKs", "AsQs"], ["equity", "AKx", "QQ"],
                 ["equity", "AA", "KK", "--exact", "--mc"], ["equity", "AA", "KK", "--board", "2c3d"],
                 ["equity", "AA", "KK", "--mc", "--trials", "0"], ["range", "AK-Q9"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.strip().startswith("error:") and len(result.output.strip().splitlines()) == 1


def test_range_command(tmp_path):
    result = runner.invoke(app, ["range", "QQ+, AKs", "--grid"])
    assert result.exit_code == 0, result.output
    assert "QQ+, AKs" in result.stdout and "22 combos" in result.stdout
    result = runner.invoke(app, ["range", "AA", "--board", "As7d2c", "--json"])
    assert json.loads(result.stdout)["combos"] == 3
    png = tmp_path / "grid.png"
    result = runner.invoke(app, ["range", "15%", "--png", str(png)])
    assert result.exit_code == 0, result.output
    assert png.exists()
