"""Invariants: equities sum to 1, permuting players permutes results, relabelling suits changes nothing."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerlab.cards.encoding import format_cards, parse_cards
from pokerlab.cards.ranges import parse_range
from pokerlab.equity import equity
from pokerlab.errors import DuplicateCardError, InvalidArgumentError, InvalidHandError, InvalidRangeError

RIVER_PLAYERS = ["AsKd", "QQ, JJ", "random"]
RIVER_BOARD = "Qs9d5c2h2s"


def _relabel(text: str, perm: tuple[int, ...]) -> str:
    cards = parse_cards(text)
    return format_cards(4 * (c >> 2) + perm[c & 3] for c in cards)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_permuting_players_permutes_results(order):
    base = equity(RIVER_PLAYERS, board=RIVER_BOARD, method="exact")
    permuted = equity([RIVER_PLAYERS[i] for i in order], board=RIVER_BOARD, method="exact")
    for position, original in enumerate(order):
        assert permuted.equity[position] == pytest.approx(base.equity[original], abs=1e-12)
        assert permuted.win[position] == pytest.approx(base.win[original], abs=1e-12)
        assert permuted.tie[position] == pytest.approx(base.tie[original], abs=1e-12)
    assert permuted.showdowns == base.showdowns


@settings(max_examples=12, deadline=None)
@given(st.permutations(range(4)), st.sampled_from([("AhKh", "QsQd", "Jh8c4h"), ("As7s", "9c9d", "Ks8s2d6h")]))
def test_suit_relabelling_changes_nothing(perm, case):
    hero, villain, board = case
    base = equity([hero, villain], board=board, method="exact")
    relabelled = equity([_relabel(hero, perm), _relabel(villain, perm)], board=_relabel(board, perm),
                        method="exact")
    assert relabelled.wins == base.wins and relabelled.ties == base.ties
    assert relabelled.showdowns == base.showdowns


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(["AA", "KQs", "T9s-65s", "22-55", "AKo:0.5", "random", "JsTs", "A2s+", "QQ+"]),
                min_size=2, max_size=3),
       st.sampled_from(["", "2c7d9h", "Ks8s2d6h", "Ah5d5c9s3h"]))
def test_equities_sum_to_one(players, board):
    try:
        result = equity(players, board=board, method="auto", trials=20_000, seed=1)
    except (InvalidRangeError, DuplicateCardError):
        return  # e.g. two players holding JsTs
    assert sum(result.equity) == pytest.approx(1.0, abs=1e-12)
    for win, tie, eq in zip(result.win, result.tie, result.equity, strict=True):
        assert 0 <= win <= eq + 1e-12 and eq <= win + tie + 1e-12


def test_exact_equities_sum_to_one_multiway():
    result = equity(["AA", "KK", "QQ", "AKs"], board="Ts9d4c", method="exact")
    assert sum(result.equity) == pytest.approx(1.0, abs=1e-12)


def test_card_removal_and_errors():
    with pytest.raises(DuplicateCardError, match="As"):
        equity(["AsKs", "AsQs"])
    with pytest.raises(DuplicateCardError):
        equity(["AsKs", "QQ"], board="As7d2c")
    with pytest.raises(InvalidHandError):
        equity(["AA", "KK"], board="2c3d")
    with pytest.raises(InvalidRangeError, match="no combo left"):
        equity(["AsAh", "AA"], board="Ad7c2h")
    with pytest.raises(InvalidRangeError, match="player 2"):
        equity(["AA", "AKx"])
    with pytest.raises(InvalidArgumentError):
        equity(["AA"])
    with pytest.raises(InvalidArgumentError):
        equity(["AA"] * 11)
    with pytest.raises(InvalidRangeError, match="cannot all be dealt"):
        equity(["AA", "AA", "AA"])


def test_dead_cards_change_the_deck():
    base = equity(["AsKs", "QdQc"], board="Js8s5d", method="exact")
    dead = equity(["AsKs", "QdQc"], board="Js8s5d", dead="2s3s4s", method="exact")
    assert dead.showdowns == 42 * 41 // 2
    assert dead.equity[0] < base.equity[0]  # three of hero's flush outs are gone


def test_result_to_dict_shape():
    result = equity(["AhAs", "KdKc"], board="2c7d9h")
    data = result.to_dict()
    assert set(data) == {"method", "players", "showdowns", "elapsed_s"}
    assert data["method"] == "exact"
    assert set(data["players"][0]) == {"range", "equity", "win", "tie", "stderr"}
    assert data["players"][0]["stderr"] is None
    assert parse_range(data["players"][1]["range"]).combo_count == 1
