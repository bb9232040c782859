"""Paired comparisons with a known truth: intervals cover the true difference at their nominal rate, Holm keeps
the family's false alarms at most 1 - confidence under the global null and finds real differences; Holm and
the t interval against hand computations; leave-one-out never scores a fit on what it was fitted on."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.stats.paired import holm, leave_one_out, paired_comparisons


def test_intervals_cover_and_holm_holds_the_familys_false_alarms():
    rng = np.random.default_rng(2026)
    trials, replicates = 2000, 40
    covered = 0
    family_alarm = 0
    found = 0
    for _ in range(trials):
        shared = rng.normal(0.0, 5.0, replicates)  # what a replicate gives every model (common random numbers)
        scores = {"icm": shared + rng.normal(0.0, 1.0, replicates)}
        for k in range(4):  # four models no better than the baseline
            scores[f"null{k}"] = shared + rng.normal(0.0, 1.0, replicates)
        scores["better"] = shared + 1.2 + rng.normal(0.0, 1.0, replicates)  # truly 1.2 above
        results = {c.model: c for c in paired_comparisons(scores, "icm")}
        covered += results["better"].low <= 1.2 <= results["better"].high
        family_alarm += any(results[f"null{k}"].separates for k in range(4))
        found += results["better"].separates
    # binomial tolerances at 2,000 trials: the coverage's sd is 0.5 points
    assert abs(covered / trials - 0.95) < 0.015
    assert family_alarm / trials < 0.05 + 0.015  # Holm: at most 5% (Bonferroni-like, so usually below)
    assert found / trials > 0.95  # 1.2 at sd 1.41 over 40 replicates: t ~ 5.4 against ~2.7 after Holm


def test_holm_and_the_interval_by_hand():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.2]) == pytest.approx([0.5, 0.4])
    # 4 differences 1, 2, 3, 6: mean 3, sd sqrt(14/3), t(3) 97.5% quantile 3.182446305284263
    c = paired_comparisons({"a": [0, 0, 0, 0], "b": [1, 2, 3, 6]}, "a")[0]
    se = np.sqrt(14 / 3) / 2
    assert (c.mean, c.stderr) == pytest.approx((3.0, se))
    assert (c.low, c.high) == pytest.approx((3 - 3.182446305284263 * se, 3 + 3.182446305284263 * se))


def test_leave_one_out_fits_without_the_one_scored():
    seen = []

    def fit(others):
        seen.append(tuple(others))
        return float(np.mean(others))

    out = leave_one_out([1.0, 2.0, 6.0], fit, lambda m, x: (m - x) ** 2)
    assert seen == [(2.0, 6.0), (1.0, 6.0), (1.0, 2.0)]
    assert out == [(4.0, 9.0), (3.5, 2.25), (1.5, 20.25)]


@pytest.mark.parametrize(("scores", "baseline", "message"), [
    ({"a": [1, 2]}, "b", "baseline 'b' is not among the models"),
    ({"a": [1]}, "a", "at least 2 finite scores"),
    ({"a": [1, 2, 3], "b": [1, 2]}, "a", "pair every model on the same replicates"),
    ({"a": [1, 2], "b": [1, float("nan")]}, "a", "pair every model on the same replicates"),
])
def test_bad_input(scores, baseline, message):
    with pytest.raises(InvalidArgumentError, match=message):
        paired_comparisons(scores, baseline)
