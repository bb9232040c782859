"""Stopping rules and running moments against direct numpy computations and closed forms."""

import math

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.stats import RunningMoments, StoppingRule, normal_quantile, run_until


def test_normal_quantile_known_values():
    assert normal_quantile(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.90) == pytest.approx(1.6448536269514722, abs=1e-12)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 2.0])
def test_normal_quantile_rejects_out_of_range(confidence):
    with pytest.raises(InvalidArgumentError):
        normal_quantile(confidence)


def test_running_moments_match_numpy_in_batches_with_large_offset():
    rng = np.random.default_rng(1)
    samples = 1e3 + rng.normal(size=(10_000, 3))  # an offset that naive sum-of-squares would blur
    moments = RunningMoments(3)
    for chunk in np.array_split(samples, 7):
        moments.add_sums(chunk.sum(axis=0), (chunk**2).sum(axis=0), len(chunk))
    assert moments.count == 10_000
    np.testing.assert_allclose(moments.mean, samples.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(moments.variance, samples.var(axis=0, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(moments.stderr, np.sqrt(samples.var(axis=0, ddof=1) / 10_000), rtol=1e-6)


def test_rule_needs_a_limit_and_validates_values():
    with pytest.raises(InvalidArgumentError):
        StoppingRule()
    for kwargs in ({"max_samples": 0}, {"time_limit": -1.0}, {"half_width": 0.0}, {"half_width": 1, "confidence": 1}):
        with pytest.raises(InvalidArgumentError):
            StoppingRule(**kwargs)


def test_samples_needed_is_chow_robbins_z_squared():
    rule = StoppingRule(half_width=0.01, confidence=0.95, min_samples=10)
    variance = np.array([0.25, 0.1])
    expected = math.ceil(normal_quantile(0.95) ** 2 * 0.25 / 0.01**2)
    assert rule.samples_needed(variance) == expected


def test_run_until_trial_count_is_exact():
    rule = StoppingRule(max_samples=10_000)
    rng = np.random.default_rng(3)

    def batch(_index, size):
        x = rng.random((size, 1))
        return x.sum(axis=0), (x**2).sum(axis=0)

    moments, reason, _ = run_until(rule, 1, batch, first_batch=3000)
    assert reason == "trials" and moments.count == 10_000


def test_run_until_half_width_reaches_target_and_covers_truth():
    # Uniform(0,1): mean 1/2, variance 1/12. The rule must stop near z^2 (1/12) / d^2 samples.
    rule = StoppingRule(half_width=0.002, confidence=0.95, min_samples=2000)
    rng = np.random.default_rng(5)

    def batch(_index, size):
        x = rng.random((size, 1))
        return x.sum(axis=0), (x**2).sum(axis=0)

    moments, reason, _ = run_until(rule, 1, batch)
    needed = normal_quantile(0.95) ** 2 / 12 / 0.002**2
    assert reason == "precision"
    assert needed * 0.95 <= moments.count <= needed * 1.3
    assert abs(moments.mean[0] - 0.5) < 4 * moments.stderr[0]
    assert normal_quantile(0.95) * moments.stderr[0] <= 0.002


def test_run_until_time_limit_stops():
    rule = StoppingRule(time_limit=0.05)

    def batch(_index, size):
        return np.zeros(1), np.zeros(1)

    _, reason, elapsed = run_until(rule, 1, batch)
    assert reason == "time" and elapsed >= 0.05
