"""Bad or impossible input to the equity engine: clear errors, never NaN, never a hang."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from pokerlab import InvalidRangeError, equity, parse_range
from pokerlab.cards.ranges import Range
from pokerlab.cli.main import app
from pokerlab.equity import problem as problem_module
from pokerlab.errors import InvalidArgumentError

runner = CliRunner()


def test_nine_players_cannot_share_sixteen_cards():
    with pytest.raises(InvalidRangeError, match="cannot all be dealt at once"):
        equity(["JJ+"] * 9)


@pytest.mark.parametrize("method", ["exact", "montecarlo"])
def test_an_empty_support_is_detected_even_when_the_search_gives_up(monkeypatch, method):
    monkeypatch.setattr(problem_module, "feasible_deal", lambda problem: None)  # as if the search hit its node limit
    with pytest.raises(InvalidRangeError, match="cannot all be dealt at once"):
        equity(["AA", "AA", "AA"], method=method, **({"trials": 1000, "seed": 1} if method == "montecarlo" else {}))


def test_monte_carlo_limits_are_refused_with_exact():
    with pytest.raises(InvalidArgumentError, match="Monte Carlo limits"):
        equity(["AA", "KK"], method="exact", trials=100)


def test_negative_seed_is_refused():
    with pytest.raises(InvalidArgumentError, match="seed must be at least 0, got -1"):
        equity(["AA", "KK"], method="montecarlo", trials=100, seed=-1)


def test_json_has_no_infinity_after_one_trial():
    result = runner.invoke(app, ["equity", "AA", "KK", "--mc", "--trials", "1", "--seed", "1", "--json"])
    assert result.exit_code == 0
    assert "Infinity" not in result.output
    assert json.loads(result.output)["players"][0]["stderr"] is None


def test_ten_is_accepted_for_t_in_hands_and_ranges():
    assert parse_range("A10s+").text == parse_range("ATs+").text
    assert parse_range("10s9s").combo_count == 1
    assert equity(["10s9s", "QQ"]).equity == equity(["Ts9s", "QQ"]).equity


@given(st.floats(min_value=1e-9, max_value=1.0, allow_nan=False))
def test_canonical_text_round_trips_any_weight(weight):
    rng = parse_range(f"AA:{weight!r}, KQs")
    assert np.array_equal(parse_range(rng.text).weights, rng.weights)


def test_weights_above_one_are_refused():
    weights = np.zeros(1326)
    weights[0] = 1.5
    with pytest.raises(InvalidRangeError, match=r"in \[0, 1\]"):
        Range(weights)


def test_range_png_suffix_checked_and_written_path_reported(tmp_path):
    bad = runner.invoke(app, ["range", "QQ+", "--png", str(tmp_path / "grid.txt")])
    assert bad.exit_code == 2 and "use one of .png, .pdf, .svg" in bad.output
    good = runner.invoke(app, ["range", "QQ+", "--png", str(tmp_path / "grid")])
    assert good.exit_code == 0 and (tmp_path / "grid.png").exists()
    assert str(tmp_path / "grid.png") in good.output.replace("\n", "")
