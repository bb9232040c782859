"""Push/fold play with the push/fold engine's charts: a heads-up table reproduces the engine's exact EV."""

from __future__ import annotations

import numpy as np

from pokerlab.cards.classes import CLASS_SIZES, class_index
from pokerlab.cards.tables import load_tables
from pokerlab.pushfold import pushfold
from pokerlab.simulation import simulate
from pokerlab.simulation.core import pushfold_charts
from pokerlab.simulation.kernels import Charts, play_hands


def test_heads_up_hands_reproduce_the_engines_exact_chart_ev():
    solved = pushfold([10, 10], (0.5, 1.0), target=1e-4)
    weights = solved.class_sizes / 1326
    exact_bb = float((weights * (solved.jam[0] * solved.ev_jam[0] + (1 - solved.jam[0]) * solved.ev_fold[0])).sum())
    charts = Charts(np.broadcast_to(solved.jam[0], (1, 12, 169)).copy(),
                    np.broadcast_to(solved.call[(1, 0)], (1, 12, 169)).copy())  # one class numbering
    hands = 1_500_000
    total, squares = np.zeros(2), np.zeros(2)
    play_hands(np.array([1000, 1000], dtype=np.int64), np.zeros(2, dtype=np.int64), 0, 50, 100, 0, False, 1, charts,
               load_tables(), 3, hands, total, squares)
    mean = total[0] / hands / 100
    stderr = np.sqrt((squares[0] / hands / 100**2 - mean**2) / hands)
    assert abs(mean - exact_bb) < 4 * stderr, (mean, exact_bb, stderr)
    assert abs(exact_bb) > 5 * stderr  # the SB's disadvantage is resolved: the test can fail


def test_pushfold_charts_are_the_engines_heads_up_solutions():
    charts = pushfold_charts()
    assert charts.jam.shape == (1, 30, 169)
    assert charts.jam[0, 9, class_index("AA")] > 0.99 and charts.jam[0, 9, class_index("72o")] < 0.01
    jam_share = (charts.jam[0] * CLASS_SIZES).sum(axis=1) / 1326
    assert np.all(np.diff(jam_share[1:]) < 1e-3)  # ranges tighten as stacks deepen (2 bb and up)
    r = simulate(players=60, starting_stack=1500, payouts="power:paid=9", play="pushfold:0.5,rules:0.5",
                 tournaments=20, seed=1, workers=0)
    assert r.checks["chip_errors"] == 0 and [row["play"] for row in r.to_dict()["players"]] == ["pushfold", "rules"]

