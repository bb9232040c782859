"""Exact enumeration against the oracle file (counts must match exactly) and a brute-force oracle."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from conftest import load_oracle
from pokerlab.cards.encoding import parse_cards
from pokerlab.cards.ranges import COMBOS, parse_range
from pokerlab.equity import equity
from reference_evaluator import cards_from_indices, reference_score

# The heaviest cases (AsKs vs random, QQ+ vs TT+) take well under a second, so none is marked slow.


def _cases():
    for case in load_oracle("equity")["cases"]:
        yield pytest.param(case, id="-".join(case["players"]) + (f"@{case['board']}" if case["board"] else ""))


@pytest.mark.parametrize("exact_case", list(_cases()))
def test_oracle_case(exact_case, either_route):
    result = equity(exact_case["players"], board=exact_case["board"], dead=exact_case["dead"], method="exact")
    assert result.method == "exact" and result.stderr is None
    assert result.showdowns == exact_case["showdowns"]
    if "counts" in exact_case:
        wins_1, wins_2, splits = exact_case["counts"]
        assert result.wins == (wins_1, wins_2)
        assert result.ties == (splits, splits)
    for ours, expected in zip(result.equity, exact_case["equity"], strict=False):
        assert ours == pytest.approx(expected, abs=1e-12)
    assert sum(result.equity) == pytest.approx(1.0, abs=1e-12)


def _brute_force(players: list[str], board: str, dead: str = "") -> tuple[list[Fraction], int]:
    """Plain-Python enumeration with the reference evaluator: weighted joint combos x remaining boards."""
    board_cards = parse_cards(board)
    dead_cards = parse_cards(dead)
    fixed = set(board_cards) | set(dead_cards)
    ranges = []
    for text in players:
        r = parse_range(text)
        ranges.append([(tuple(int(c) for c in COMBOS[i]), Fraction(r.weights[i]).limit_denominator(1000))
                       for i in r.indices if not set(int(c) for c in COMBOS[i]) & fixed])
    shares = [Fraction(0)] * len(players)
    total = Fraction(0)
    showdowns = 0
    for joint in itertools.product(*ranges):
        used = [c for combo, _ in joint for c in combo]
        if len(set(used)) != len(used):
            continue
        weight = Fraction(1)
        for _, w in joint:
            weight *= w
        deck = [c for c in range(52) if c not in fixed and c not in used]
        for extra in itertools.combinations(deck, 5 - len(board_cards)):
            full = board_cards + list(extra)
            scores = [reference_score(cards_from_indices(list(combo) + full)) for combo, _ in joint]
            best = max(scores)
            winners = [i for i, s in enumerate(scores) if s == best]
            for i in winners:
                shares[i] += weight / len(winners)
            total += weight
            showdowns += 1
    return [s / total for s in shares], showdowns


@pytest.mark.parametrize(
    "players, board, dead",
    [
        (["AsKs", "QQ"], "Js8s5d2c", ""),
        (["AK:0.5, 99", "T9s, JJ:0.25", "KQs:0.5, 88"], "Ts9d4c3h", "2s"),
        (["AhKh", "QsQd", "7c6c"], "Qh8h2c", "Ad"),
        (["22+:0.3, A2s+", "KQo, 76s"], "8d7d6c5s4h", ""),
    ],
)
def test_matches_brute_force_with_reference_evaluator(players, board, dead, either_route):
    expected, showdowns = _brute_force(players, board, dead)
    result = equity(players, board=board, dead=dead, method="exact")
    assert result.showdowns == showdowns
    for ours, theirs in zip(result.equity, expected, strict=True):
        assert ours == pytest.approx(float(theirs), abs=1e-12)


def test_breakdown_frequencies_sum_to_one_and_shares_to_equity():
    result = equity(["AsKs", "QdQc"], board="Js8s5d", method="exact", breakdown=True)
    assert result.breakdown is not None
    for player, table in enumerate(result.breakdown):
        assert sum(entry["frequency"] for entry in table.values()) == pytest.approx(1.0, abs=1e-12)
        assert sum(entry["equity"] for entry in table.values()) == pytest.approx(result.equity[player], abs=1e-12)
    assert result.breakdown[0]["flush"]["frequency"] > 0.3  # nine spades out of 45 cards, two to come


def test_auto_picks_exact_when_affordable_and_montecarlo_otherwise():
    assert equity(["AhAs", "KdKc"]).method == "exact"
    assert equity(["random", "random", "random"], trials=20_000, seed=1).method == "montecarlo"
    assert equity(["random", "random", "random"], target_stderr=0.01, seed=1).method == "montecarlo"


@pytest.mark.parametrize("hand, board", [("AsKh", "Js8s5d"), ("7c2d", "Js8s5s"), ("QhQd", "Js8s5s2s"),
                                         ("2c3d", "Js8s5s2s3s"), ("AsTs", "Ks9s4s3h")])
def test_rank_pair_counting_against_the_generic_loop(hand, board, kernels_only):
    """Hand vs random uses a rank-pair counting loop; breakdown=True forces the generic matchup loop."""
    fast = equity([hand, "random"], board=board, method="exact")
    generic = equity([hand, "random"], board=board, method="exact", breakdown=True)
    assert fast.wins == generic.wins and fast.ties == generic.ties and fast.showdowns == generic.showdowns
