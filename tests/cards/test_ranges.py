"""Range parsing, canonical text, card removal and the grid; hypothesis round-trips for the parser."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerlab.cards.classes import (
    CLASS_NAMES,
    COMBOS,
    NUMBER_OF_COMBOS,
    class_combos,
    class_index,
    preflop_order,
)
from pokerlab.cards.encoding import cards_to_mask, parse_cards
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.errors import InvalidRangeError


@pytest.mark.parametrize(
    "text, count",
    [
        ("AA", 6), ("QQ+", 18), ("22-77", 36), ("77-22", 36), ("AKs", 4), ("AKo", 12), ("AK", 16),
        ("A2s+", 48), ("KTo+", 36), ("T9s-65s", 20), ("K9s-K6s", 16), ("AsKs", 1), ("random", 1326),
        ("*", 1326), ("100%", 1326), ("any", 1326), ("aks", 4), ("QQ+, AKs", 22), (" QQ + , A K s ", 22),
        ("KA", 16), ("22+", 78), ("AsKs, AsKs", 1), ("A5s-A2s:0.5", 16),
    ],
)
def test_combo_counts(text, count):
    assert parse_range(text).combo_count == count


def test_weights_and_override():
    r = parse_range("AKs:0.5, AA")
    assert r.weighted_count == pytest.approx(2 + 6)
    assert parse_range("AK, AKs:0.25").weighted_count == pytest.approx(12 + 1)
    assert parse_range("AKs:0").combo_count == 0


@pytest.mark.parametrize(
    "token, fragment",
    [
        ("AKx", "'AKx'"), ("AAs", "pocket pair"), ("AK-Q9", "same top card"), ("22-AKs", "two pairs"),
        ("AKs-AQo", "same suffix"), ("AKs:2", "in [0, 1]"), ("AKs:abc", "number"), ("0%", "percentage"),
        ("150%", "percentage"), ("AsAs", "two different cards"), ("A", "'A'"), ("AK,,QQ", "empty token"),
        ("", "empty range"), ("Z9s", "expected a hand class"),
    ],
)
def test_parse_errors_name_the_token(token, fragment):
    with pytest.raises(InvalidRangeError) as info:
        parse_range(token)
    assert fragment in str(info.value)


def test_top_percent_follows_the_preflop_order():
    order, equities = preflop_order()
    assert sorted(order.tolist()) == list(range(169))
    assert CLASS_NAMES[order[0]] == "AA"
    assert equities.tolist() == sorted(equities.tolist(), reverse=True)
    top = parse_range("15%")
    assert abs(top.combo_count - 0.15 * 1326) <= 12
    assert parse_range("5%").combo_count < top.combo_count < parse_range("30%").combo_count
    for cls in ("AA", "KK", "AKs"):
        assert all(top.weights[class_combos(class_index(cls))] == 1)


def test_card_removal():
    r = parse_range("AA, AKs").without(cards_to_mask(parse_cards("As")))
    assert r.combo_count == 3 + 3
    assert parse_range("AsKs").without(cards_to_mask(parse_cards("Ks"))).combo_count == 0


def test_canonical_text_examples():
    assert parse_range("AA, KK, QQ").text == "QQ+"
    assert parse_range("22, 33, 44").text == "44-22"
    assert parse_range("AKs, AQs, AJs").text == "AJs+"
    assert parse_range("K9s-K6s").text == "K9s-K6s"
    assert parse_range("random").text == "random"
    assert parse_range("AA:0.5").text == "AA:0.5"
    assert "AsKs" in parse_range("AsKs, QQ").text


def test_grid_shape_and_values():
    grid = parse_range("AKs, 22").grid()
    assert grid.shape == (13, 13)
    assert grid[0, 1] == 1.0 and grid[1, 0] == 0.0 and grid[12, 12] == 1.0
    assert parse_range("AsKs").grid()[0, 1] == pytest.approx(0.25)


def test_rich_grid_and_png(tmp_path):
    from rich.console import Console

    console = Console(record=True, width=80)
    console.print(parse_range("QQ+, AKs").rich_grid())
    assert "AKs" in console.export_text()
    pytest.importorskip("matplotlib")
    path = parse_range("QQ+, AKs").save_png(tmp_path / "grid.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_range_equality_and_permutation():
    r = parse_range("AhKh")
    assert r.permuted((0, 1, 3, 2)) == parse_range("AsKs")
    assert parse_range("AKs").permuted((3, 2, 1, 0)) == parse_range("AKs")
    assert hash(parse_range("QQ+")) == hash(parse_range("AA, KK, QQ"))


# ---- hypothesis --------------------------------------------------------------------------------------------

weights = st.sampled_from([0.0, 0.25, 0.5, 1.0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, NUMBER_OF_COMBOS - 1), weights), max_size=60),
       st.lists(st.tuples(st.integers(0, 168), weights), max_size=30))
def test_canonical_text_round_trips(combos, classes):
    w = np.zeros(NUMBER_OF_COMBOS)
    for index, weight in classes:
        w[class_combos(index)] = weight
    for index, weight in combos:
        w[index] = weight
    r = Range(w)
    if r.combo_count == 0:
        return
    assert parse_range(r.text) == r


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AKQJT98765432sohcd+-,:.%* 0", max_size=12))
def test_parser_raises_only_range_errors(text):
    try:
        r = parse_range(text)
    except InvalidRangeError:
        return
    assert 0 <= r.combo_count <= NUMBER_OF_COMBOS
    assert np.all((r.weights >= 0) & (r.weights <= 1))


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(0, 168), min_size=1, max_size=20))
def test_union_of_class_tokens_counts(indices):
    text = ", ".join(CLASS_NAMES[i] for i in indices)
    expected = sum(len(class_combos(i)) for i in indices)
    assert parse_range(text).combo_count == expected


def test_combo_table():
    assert COMBOS.shape == (NUMBER_OF_COMBOS, 2)
    assert len({tuple(sorted(c)) for c in COMBOS.tolist()}) == NUMBER_OF_COMBOS
