"""Stacks and payouts as pasted from a lobby: thousands separators read or refused, names carried through the
table, the JSON and the plot (numbered from 1, as in the table), percentage splits of a pool, rising payouts
refused unless asked; suit symbols in cards."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.encoding import parse_cards
from pokerlab.cards.ranges import parse_range
from pokerlab.cli.main import app
from pokerlab.errors import InvalidPayoutsError, InvalidStacksError
from pokerlab.icm import icm, parse_payouts
from pokerlab.icm.lobby import parse_stacks

runner = CliRunner()


@pytest.mark.parametrize(("text", "chips", "names"), [
    ("5000,3000,2000", [5000, 3000, 2000], ("1", "2", "3")),
    ("500,300,200", [500, 300, 200], ("1", "2", "3")),
    ("5,000 3,000 2,000", [5000, 3000, 2000], ("1", "2", "3")),
    ("5,000; 3,000; 2,000", [5000, 3000, 2000], ("1", "2", "3")),
    ("12,500.5\n1,000,000\n2,000", [12500.5, 1e6, 2000], ("1", "2", "3")),
    ("alice:5,000 bob:3,000 2,000", [5000, 3000, 2000], ("alice", "bob", "3")),
    ("alice 5,000\nBig Al: 3,000\ncarol=2000", [5000, 3000, 2000], ("alice", "Big Al", "carol")),
    ("alice,5000\nbob,3000", [5000, 3000], ("alice", "bob")),
    ("1 2 3\n4", [1, 2, 3, 4], ("1", "2", "3", "4")),
])
def test_stacks_as_typed(text, chips, names):
    stacks = parse_stacks(text)
    assert stacks.chips.tolist() == chips and stacks.names == names


@pytest.mark.parametrize(("text", "message"), [
    ("5,000,3,000", "ambiguous"),          # two players or four? (it used to be four, two of them busted)
    ("5,500,3,250", "ambiguous"),
    ("1,000,000", "ambiguous"),
    ("5,00 3,000", "thousands separator comes before each group of three digits"),
    ("inf,3", "finite"),
    ("alice bob", "has no stack"),
    ("alice:5 alice:3", "names must differ"),
    ("", "no stacks"),
])
def test_stacks_refused_with_the_reason(text, message):
    with pytest.raises(InvalidStacksError, match=message):
        parse_stacks(text)


@pytest.mark.parametrize(("spec", "pool", "expected"), [
    ("70/30", 1000.0, [700, 300]),
    ("60/25/15", 200.0, [120, 50, 30]),
    ("50/30/20", None, [50, 30, 20]),
    ("50%,30%,20%", 10.0, [5, 3, 2]),
    ("65/35:pool=500", None, [325, 175]),
    ("5,000 3,000 2,000", None, [5000, 3000, 2000]),
    ("winner:pool=7", None, [7]),
])
def test_payouts_as_typed(spec, pool, expected):
    np.testing.assert_allclose(parse_payouts(spec, pool=pool), expected, rtol=1e-15)


@pytest.mark.parametrize(("spec", "pool", "message"), [
    ("30,50", None, "place 2 pays 50, more than place 1"),
    ("60/25/10", None, "adds up to 95%"),
    ("50,30", 100.0, "applies to percentage splits"),
    ("3,000,2,000", None, "ambiguous"),
    ("1e308,1e308", None, "add up to more than"),
])
def test_payouts_refused_with_the_reason(spec, pool, message):
    with pytest.raises(InvalidPayoutsError, match=message):
        parse_payouts(spec, pool=pool)


def test_rising_payouts_when_asked_match_the_api():
    np.testing.assert_array_equal(parse_payouts("10,30,20", allow_rising=True), [10, 30, 20])
    r = runner.invoke(app, ["icm", "--stacks", "5 3 2", "--payouts", "10,30,20", "--allow-rising", "--json"])
    assert r.exit_code == 0, r.output
    expected = icm([5, 3, 2], [10, 30, 20], allow_rising=True).equity
    np.testing.assert_allclose([p["equity"] for p in json.loads(r.stdout)["players"]], expected, rtol=1e-12)


def test_names_and_pool_through_the_cli(tmp_path):
    r = runner.invoke(app, ["icm", "--stacks", "alice:5,000 bob:3,000 2,000", "--payouts", "70/30", "--pool",
                            "1,000", "--json"])
    assert r.exit_code == 0, r.output
    players = json.loads(r.stdout)["players"]
    assert [p.get("name") for p in players] == ["alice", "bob", "3"]
    np.testing.assert_allclose([p["equity"] for p in players], icm([5000, 3000, 2000], [700, 300]).equity)
    r = runner.invoke(app, ["icm", "--stacks", "alice:5,000 bob:3,000 2,000", "--payouts", "70/30",
                            "--bubble-factors", "--places"])
    assert r.exit_code == 0 and "1 alice" in r.stdout and "2 bob" in r.stdout, r.output
    plain = runner.invoke(app, ["icm", "--stacks", "5000 3000", "--payouts", "70/30", "--json"])
    assert all("name" not in p for p in json.loads(plain.stdout)["players"])


def test_plot_labels_players_like_the_table(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from pokerlab.icm import analysis

    labels: list[list[str]] = []
    original = analysis.save_figure

    def spy(figure, path, **options):
        labels.append([t.get_text() for t in figure.axes[0].get_xticklabels()])
        return original(figure, path, **options)

    monkeypatch.setattr(analysis, "save_figure", spy)
    r = runner.invoke(app, ["icm", "--stacks", "carol:2,000 alice:5,000 bob:3,000", "--payouts", "70/30", "--plot",
                            str(tmp_path / "shares.png")])
    assert r.exit_code == 0, r.output
    assert labels == [["2 alice", "3 bob", "1 carol"]]  # largest stack first, numbered as in the table


def test_suit_symbols():
    assert parse_cards("A♠K♥ Q♦J♣ T♤9♡8♢7♧") == parse_cards("AsKh QdJc Ts9h8d7c")
    assert parse_cards("A♠️") == parse_cards("As")  # emoji presentation selector
    assert parse_range("A♠K♠, QQ").combo_count == parse_range("AsKs, QQ").combo_count == 7
    r = runner.invoke(app, ["eval", "A♠K♠Q♠J♠T♠", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["description"] == "Royal flush"
