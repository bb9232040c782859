"""The plain-numpy route for small problems on a flop, turn or river, against the compiled enumeration and a
board-by-board count written here."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest

from pokerlab.cards.encoding import format_cards, parse_cards
from pokerlab.cards.evaluator import evaluate
from pokerlab.equity import equity
from pokerlab.equity.exact import plan_exact, solve_exact
from pokerlab.equity.few_boards import answers, few_boards_outcome
from pokerlab.equity.problem import prepare_problem


def _kernel(problem):
    plan = plan_exact(problem)
    assert plan is not None
    return solve_exact(problem, plan, False, None)


@pytest.mark.parametrize(("players", "board", "dead"), [
    (["AsKs", "QdQc"], "2c7d9h", ""),
    (["AhAd", "KsKc", "7h6h"], "2c7d9h", ""),
    (["AsKs", "QQ+,AJs"], "Ts9s2d", "3c"),
    (["QQ+,AKs", "TT+,AQs+"], "Jd7c2h5s", ""),
    (["AsAh", "KK", "T9s"], "Tc8d2s", ""),
    (["random", "AsKd"], "2c3c4c5c", ""),
    (["AsKs", "QdQc", "Jh Th", "9c8c"], "2s3s4d7h6c", "5h"),
    (["22+", "AKo,AQs"], "KsQs3h2d9c", ""),
])
def test_unweighted_counts_equal_the_enumeration(players, board, dead):
    problem = prepare_problem(players, board, dead)
    assert answers(problem)
    ours, kernel = few_boards_outcome(problem), _kernel(problem)
    assert ours["showdowns"] == kernel["showdowns"]
    assert ours["wins"] == kernel["wins"] and ours["ties"] == kernel["ties"]
    np.testing.assert_allclose(ours["equity"], kernel["equity"], rtol=1e-15)
    assert math.isclose(sum(ours["equity"]), 1.0, rel_tol=1e-14)


@pytest.mark.parametrize(("players", "board"), [
    (["QQ+:0.5,AKs", "TT+,AQs:0.25"], "Jd7c2h"),
    (["AsKs", "JJ:0.3,T9s:0.7", "22-55:0.5"], "Ts9d2c4h"),
])
def test_weighted_ranges_equal_the_enumeration(players, board):
    problem = prepare_problem(players, board, "")
    ours, kernel = few_boards_outcome(problem), _kernel(problem)
    assert ours["showdowns"] == kernel["showdowns"]
    for field in ("equity", "win", "tie"):
        np.testing.assert_allclose(ours[field], kernel[field], rtol=1e-12)


def test_a_count_written_board_by_board():
    """Two known hands on a flop, every turn and river dealt and ranked one at a time by the public evaluator."""
    hands = [parse_cards("AsKs"), parse_cards("QdQc")]
    board = parse_cards("2s7s9h")
    deck = [c for c in range(52) if c not in board + hands[0] + hands[1]]
    wins, ties, boards = [0, 0], 0, 0
    for turn, river in itertools.combinations(deck, 2):
        values = [int(evaluate(hand + board + [turn, river])) for hand in hands]
        boards += 1
        if values[0] == values[1]:
            ties += 1
        else:
            wins[values[1] > values[0]] += 1
    outcome = few_boards_outcome(prepare_problem(["AsKs", "QdQc"], format_cards(board), ""))
    assert outcome["showdowns"] == boards == 990
    assert outcome["wins"] == tuple(wins) and outcome["ties"] == (ties, ties)


def test_equity_takes_this_route_only_when_it_is_small():
    assert answers(prepare_problem(["AsKs", "QdQc"], "2c7d9h", ""))
    assert not answers(prepare_problem(["AsKs", "QdQc"], "", "2c"))  # five cards to come
    assert not answers(prepare_problem(["random", "random", "random"], "2c7d9h", ""))  # too many joint combos
    big = prepare_problem(["random", "random"], "2c7d9h", "")
    assert not answers(big)  # 1,081 x 1,081 joint combos on 990 boards
    result = equity(["AsKs", "QdQc"], board="2c7d9h")
    assert result.method == "exact" and result.showdowns == 990


def test_a_small_problem_on_a_flop_imports_no_compiler():
    code = ("import sys; from pokerlab.equity import equity; r = equity(['AsKs', 'QdQc'], board='2c7d9h'); "
            "print(r.showdowns, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["990", "False"]
