"""Predictions scored against realised prizes, with a known truth: three players flipping coins for a chip, whose
finish places the gambler's-ruin chain gives exactly. Each model's score minus the truth's averages
``sum_i (m_i - E_i)^2`` (the score is unbiased), and the paired intervals of 200 studies of 100 snapshots cover
that at their nominal rate. Then snapshots that differ (a five-player start, scored at three left)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm import icm
from pokerlab.simulation import simulate
from pokerlab.simulation.study import STANDARD_MODELS, prediction_study, snapshot_scores
from pokerlab.stats.paired import paired_comparisons
from simulation.test_oracles import gamblers_ruin_places

PAYOUTS = np.array([60.0, 40.0, 0.0])


@cache
def places_of(stacks: tuple[int, ...]) -> np.ndarray:
    return gamblers_ruin_places(stacks)


def truth(stacks: np.ndarray, pay: np.ndarray) -> np.ndarray:
    return places_of(tuple(int(s) for s in stacks)) @ pay


def remembered(model):
    """``model`` computed once per stack tuple (every snapshot of the first test is the same start)."""
    known = {}

    def call(stacks, pay):
        key = (tuple(stacks.tolist()), tuple(pay.tolist()))
        if key not in known:
            known[key] = model(stacks, pay)
        return known[key]

    return call


def test_scores_are_unbiased_and_paired_intervals_cover():
    studies, per_study = 200, 100
    result = simulate([5, 3, 2], PAYOUTS[:2], bet=1, tournaments=studies * per_study, seed=2026, workers=0,
                      snapshots=[3], records=True)
    models = {"truth": truth, "icm": remembered(STANDARD_MODELS["icm"]), "chip": remembered(STANDARD_MODELS["chip"])}
    scores = snapshot_scores(result, models)
    exact = truth(np.array([5, 3, 2]), PAYOUTS)
    gap = {name: float(np.sum((models[name](np.array([5.0, 3, 2]), PAYOUTS) - exact) ** 2)) for name in ("icm", "chip")}
    assert gap["chip"] > 10 * gap["icm"] > 0  # chip-chop is far off here, ICM close: both are tested
    covered = {name: 0 for name in gap}
    for k in range(studies):
        part = {name: values[k * per_study:(k + 1) * per_study] for name, values in scores.items()}
        for c in paired_comparisons(part, "truth"):
            covered[c.model] += c.low <= gap[c.model] <= c.high
    for name in gap:
        # unbiased over all 20,000 snapshots (4 standard errors), and 95% coverage (binomial sd 1.5 points)
        difference = scores[name] - scores["truth"]
        assert abs(difference.mean() - gap[name]) < 4 * difference.std(ddof=1) / np.sqrt(difference.size), name
        assert abs(covered[name] / studies - 0.95) < 0.05, (name, covered[name])


def test_snapshots_that_differ_are_scored_on_the_players_still_in():
    study = prediction_study([3, 3, 2, 2], [50, 30, 20], players_left=3, snapshots=400, bet=1, seed=5,
                             models={"truth": truth, "icm": STANDARD_MODELS["icm"]}, baseline="truth")
    assert study.scores["icm"].shape == (400,) and study.to_dict()["snapshots"] == 400
    comparison = study.comparisons[0]
    result = simulate([3, 3, 2, 2], [50, 30, 20], bet=1, tournaments=400, seed=5, workers=0, snapshots=[3],
                      records=True)  # the same tournaments again: the stacks each study scored
    gaps = []
    for stacks in result.records["snap_stacks"][:, 0, :]:
        alive = stacks[stacks > 0].astype(float)
        pay = np.array([50.0, 30.0, 20.0])[: alive.size]
        gaps.append(np.sum((icm(alive, pay).equity - truth(alive, pay)) ** 2))
    assert comparison.model == "icm" and comparison.low <= np.mean(gaps) <= comparison.high


@pytest.mark.parametrize(("arguments", "message"), [
    ({"baseline": "power"}, "baseline 'power' is not among the models"),
    ({"players_left": 1}, "players_left must be at least 2"),
    ({"snapshots": 1}, "snapshots must be at least 2"),
])
def test_bad_input(arguments, message):
    with pytest.raises(InvalidArgumentError, match=message):
        prediction_study([5, 3, 2], [60, 40], **{"players_left": 3, "bet": 1, **arguments})
