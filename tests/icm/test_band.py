"""The banded race kernel against the untruncated one, and the count bands against exact distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from pokerlab.icm import banded, power_law, race, truncated_normal_stacks


@njit
def race_values_reference(stacks: np.ndarray, pay: np.ndarray, t: float) -> np.ndarray:
    """The race integrand without any band: ``out[i] = s_i e^{-s_i t} sum_a P(a others < i finished)
    E[pay[a + #finished among players > i]]``, with the whole backward matrix kept (``O(n k)`` memory)."""
    n = stacks.shape[0]
    k = pay.shape[0]
    q = np.exp(-stacks * t)
    p = -np.expm1(-stacks * t)
    g = np.zeros((n, k + 1))
    g[n - 1, :k] = pay
    for i in range(n - 1, 0, -1):
        for a in range(k):
            g[i - 1, a] = q[i] * g[i, a] + p[i] * g[i, a + 1]
    out = np.empty(n)
    prefix = np.zeros(k + 1)
    prefix[0] = 1.0
    for i in range(n):
        acc = 0.0
        for a in range(k):
            acc += prefix[a] * g[i, a]
        out[i] = stacks[i] * q[i] * acc
        for a in range(k, 0, -1):
            prefix[a] = q[i] * prefix[a] + p[i] * prefix[a - 1]
        prefix[0] *= q[i]
    return out


def fields() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    skewed = np.concatenate([[400.0], rng.uniform(0.01, 3.0, 299), [1e-4, 2e-4]])  # one dominant, two tiny stacks
    return [
        ("normal 300/45", truncated_normal_stacks(300, seed=4), power_law(45, 1000.0, 1.0)),
        ("skewed 301/60", skewed, np.linspace(100.0, 1.0, 60)),
        ("normal 2048/307", truncated_normal_stacks(2048, seed=2048), power_law(307, 1000.0, 1.0)),
    ]


@pytest.mark.parametrize("name, stacks, pay", fields(), ids=lambda x: x if isinstance(x, str) else "")
def test_banded_matches_untruncated_kernel(name, stacks, pay):
    s = stacks / stacks.mean()
    n, k = s.size, pay.size
    log_eps = banded.DEFAULT_LOG_EPS + 2 * math.log(n)
    for mu_target in (0.01, 1.0, k / 4, k / 2, k, 1.5 * k):
        t = race.time_of_w(s, math.sqrt(mu_target), 0.0)
        full = race_values_reference(s, pay, t)
        for block in (7, 64):
            in_band = np.empty(n)
            banded.race_values_banded(s, pay, t, in_band, block, log_eps, banded.band_work(n, k, block))
            # the truncation bound is 2 n e^-L max(pay) ~ 1e-22 max(pay); rounding is ~1e-16 relative
            np.testing.assert_allclose(in_band, full, rtol=1e-12, atol=1e-14 * pay.max() * s.max())
        # L <= 0: no truncation, bands [0, min(i, k - 1)]
        work = banded.band_work(n, k, 32)
        exact = np.empty(n)
        banded.race_values_banded(s, pay, t, exact, 32, 0.0, work)
        np.testing.assert_array_equal(work.lo, 0)
        np.testing.assert_array_equal(work.hi, np.minimum(np.arange(n), k - 1))
        np.testing.assert_allclose(exact, full, rtol=1e-13, atol=1e-15 * pay.max() * s.max())


def test_band_is_narrow_for_many_paid_places():
    """What makes the banded kernel fast: with k = 1,500 paid and half of them out, the band is well under k."""
    s = truncated_normal_stacks(4000, seed=1)
    s = s / s.mean()
    k = 1500
    t = race.time_of_w(s, math.sqrt(k / 2), 0.0)
    p = -np.expm1(-s * t)
    lo = np.empty(s.size, dtype=np.int64)
    hi = np.empty(s.size, dtype=np.int64)
    banded.band_limits(p, k, banded.DEFAULT_LOG_EPS + 2 * math.log(s.size), lo, hi)
    assert np.mean(hi - lo + 1) < 0.4 * k


def test_bands_are_monotone_and_hold_the_mass():
    """Band properties the kernel relies on, and the mass outside each band from the exact Poisson-binomial."""
    rng = np.random.default_rng(5)
    n, k = 400, 120
    p = rng.uniform(0.0, 0.6, n)
    for log_eps in (5.0, 10.0, 30.0):
        lo = np.empty(n, dtype=np.int64)
        hi = np.empty(n, dtype=np.int64)
        banded.band_limits(p, k, log_eps, lo, hi)
        assert lo[0] == 0 and hi[0] == 0
        assert set(np.diff(lo)) <= {0, 1} and set(np.diff(hi)) <= {0, 1}
        assert np.all(hi <= k - 1) and np.all(lo <= hi + 1)
        dist = np.zeros(n + 1)
        dist[0] = 1.0
        worst = 0.0
        for i in range(n):
            outside = dist[: lo[i]].sum() + dist[hi[i] + 1 : k].sum()  # counts >= k are paid 0: never needed
            worst = max(worst, outside)
            dist[1:] = dist[1:] * (1 - p[i]) + dist[:-1] * p[i]
            dist[0] *= 1 - p[i]
        assert worst <= 2 * math.exp(-log_eps)
        if log_eps == 5.0:
            assert worst > 0  # the bound is not vacuous: the band really truncates
