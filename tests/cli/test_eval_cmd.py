"""pokerlab eval: table, JSON shape, and one-line errors with exit status 2."""

import json

import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def test_eval_json_shape_and_values():
    result = runner.invoke(app, ["eval", "AsKs", "QsJsTs", "2d", "3c", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"cards": "AsKsQsJsTs2d3c", "rank": 7462, "category": "straight flush",
                                         "description": "Royal flush"}


def test_eval_table_shows_the_description():
    result = runner.invoke(app, ["eval", "Kc", "Kd", "Kh", "7s", "7d"])
    assert result.exit_code == 0 and "Full house, kings full of sevens" in result.output


@pytest.mark.parametrize(
    ("cards", "message"),
    [(["Ax", "Kd", "2c", "3c", "4c"], "error: 'Ax': unknown suit 'x'"),
     (["As", "As", "Kd", "2c", "3c"], "error: duplicate card As"),
     (["As", "Kd"], "error: a hand to evaluate needs 5, 6 or 7 cards, got 2")],
)
def test_eval_bad_input_is_one_line_and_exit_2(cards, message):
    result = runner.invoke(app, ["eval", *cards])
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert message in result.output and result.output.count("\n") == 1


def test_version_and_help_list_every_command():
    assert runner.invoke(app, ["--version"]).output.startswith("pokerlab ")
    listed = runner.invoke(app, ["--help"]).output
    for command in ("eval", "equity", "range", "icm", "solve", "exploitability", "rps", "export", "match", "play",
                    "two-round"):
        assert command in listed
