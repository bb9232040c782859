"""``pokerlab simulate --heroes``: decisions scored in money from the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def test_heroes_json_pairs_the_models_on_the_same_seeds() -> None:
    result = runner.invoke(app, ["simulate", "--stacks", "1000,1000", "--payouts", "1", "--play", "pushfold",
                                 "--heroes", "chip-ev,tight", "--hero-share", "0.5", "--tournaments", "200",
                                 "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seed"] == 2 and data["baseline"] == "icm" and set(data["provenance"]["charts"]) == {
        "icm", "chip-ev", "tight"}
    by_model = {c["model"]: c for c in data["comparisons"]}
    assert by_model["chip-ev"]["mean"] == 0.0  # heads-up winner-take-all: ICM decides as chip EV
    assert by_model["tight"]["high"] < 0.0 and by_model["tight"]["separates"]


def test_heroes_refuse_options_they_do_not_use() -> None:
    result = runner.invoke(app, ["simulate", "--stacks", "1000,1000", "--payouts", "1", "--play", "pushfold",
                                 "--heroes", "chip-ev", "--output", "somewhere"])
    assert result.exit_code == 2
    assert "--output does not apply to --heroes" in result.output
    result = runner.invoke(app, ["simulate", "--stacks", "1000,1000", "--payouts", "1", "--play", "pushfold",
                                 "--stage", "final"])
    assert result.exit_code == 2
    assert "--stage and --stage-snapshots apply to --heroes only" in result.output
