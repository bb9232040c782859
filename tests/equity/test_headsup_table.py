"""The heads-up preflop table route against the enumeration kernels and an exhaustive count."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest

from pokerlab.cards.ranges import COMBO_MASKS, parse_range
from pokerlab.equity import equity
from pokerlab.equity.exact import plan_exact, solve_exact
from pokerlab.equity.headsup_table import BOARDS, answers, headsup_preflop_outcome, matchup_counts
from pokerlab.equity.problem import prepare_problem


@pytest.mark.parametrize("players", [
    ["AsKs", "random"],
    ["AsKs", "QdQc"],
    ["QQ+,AKs", "TT+,AQs+"],
    ["22", "AKo"],
])
def test_unweighted_counts_equal_the_enumeration(players):
    problem = prepare_problem(players, "", "")
    assert answers(problem)
    table = headsup_preflop_outcome(problem)
    plan = plan_exact(problem)
    assert plan is not None
    kernel = solve_exact(problem, plan, False, None)
    assert table["showdowns"] == kernel["showdowns"]
    assert table["wins"] == kernel["wins"] and table["ties"] == kernel["ties"]
    np.testing.assert_allclose(table["equity"], kernel["equity"], rtol=1e-15)
    assert math.isclose(sum(table["equity"]), 1.0, rel_tol=1e-15)


def test_weighted_ranges_equal_the_enumeration():
    problem = prepare_problem(["QQ+:0.5,AKs", "TT+,AQs:0.25"], "", "")
    table = headsup_preflop_outcome(problem)
    plan = plan_exact(problem)
    assert plan is not None and plan.weighted
    kernel = solve_exact(problem, plan, False, None)
    assert table["wins"] is None and table["showdowns"] == kernel["showdowns"]
    for field in ("equity", "win", "tie"):
        np.testing.assert_allclose(table[field], kernel[field], rtol=1e-12)


def test_every_class_against_a_random_hand_matches_the_shipped_order():
    """data/preflop_order.json (scripts/preflop_order.py, by the enumeration kernels) holds, for each of the 169
    classes, ``2 * wins + ties`` of one combo against every hand it leaves: the table's sums must equal them."""
    order = json.loads(resources.files("pokerlab.data").joinpath("preflop_order.json").read_text())["classes"]
    for entry in order:
        hero = parse_range(entry["class"]).indices[0]
        villains = np.array([c for c in range(1326) if not COMBO_MASKS[c] & COMBO_MASKS[hero]])
        wins, ties = matchup_counts(np.full(len(villains), hero), villains)
        assert len(villains) * BOARDS == entry["showdowns"]
        assert int(2 * wins.sum() + ties.sum()) == entry["share_units"], entry["class"]


def test_the_facade_uses_the_table_only_preflop_heads_up():
    assert equity(["AsKs", "random"]).method == "exact"
    assert not answers(prepare_problem(["AsKs", "QdQc"], "2c7d9h", ""))
    assert not answers(prepare_problem(["AsKs", "QdQc"], "", "2c"))
    assert not answers(prepare_problem(["AsKs", "QdQc", "JhTh"], "", ""))
    random_vs_random = equity(["random", "random"])  # exact from the table: the enumeration was too much work
    assert random_vs_random.method == "exact" and random_vs_random.equity[0] == pytest.approx(0.5, abs=1e-15)
