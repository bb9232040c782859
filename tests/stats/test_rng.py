"""The shared compiled generator: the counter form equals the stepped form, uniforms stay in range, and the
vectorisable -log agrees with numpy's log to a few ulp."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.stats.rng import (
    GOLDEN,
    bits_float,
    float_bits,
    mix64,
    neg_log,
    next_u64,
    open_unit,
    reflected_unit,
    uniform,
)


@njit(cache=True)
def _stepped(start, count):
    state = np.array([start], dtype=np.uint64)
    out = np.empty(count, dtype=np.uint64)
    for t in range(count):
        out[t] = next_u64(state)
    return out


@njit(cache=True)
def _counter_form(start, count):
    out = np.empty(count, dtype=np.uint64)
    for t in range(count):
        out[t] = mix64(start + np.uint64(t + 1) * GOLDEN)
    return out


@njit(cache=True)
def _units(start, count):
    state = np.array([start], dtype=np.uint64)
    low = np.empty(count)
    opened = np.empty(count)
    reflected = np.empty(count)
    for t in range(count):
        low[t] = uniform(state)
        bits = mix64(start + np.uint64(t + 1) * GOLDEN)
        opened[t] = open_unit(bits)
        reflected[t] = reflected_unit(bits)
    return low, opened, reflected


@njit(cache=True, error_model="numpy")  # the flags of the kernels that use it (a vectorised loop)
def _neg_logs(u):
    out = np.empty(u.size)
    for i in range(u.size):
        out[i] = neg_log(u[i])
    return out


@njit(cache=True)
def _round_trip(x):
    return bits_float(float_bits(x))


def test_splitmix64_reference_values():
    """splitmix64 from state 0: the published first outputs (Vigna's reference implementation)."""
    first = _stepped(np.uint64(0), 3)
    assert [int(v) for v in first] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_counter_form_is_the_stepped_stream():
    start = np.uint64(0x1234_5678_9ABC_DEF0)
    np.testing.assert_array_equal(_stepped(start, 1000), _counter_form(start, 1000))


def test_uniform_ranges_and_reflection():
    low, opened, reflected = _units(np.uint64(99), 200_000)
    assert low.min() >= 0.0 and low.max() < 1.0
    assert opened.min() > 0.0 and opened.max() <= 1.0
    assert reflected.min() > 0.0 and reflected.max() <= 1.0
    np.testing.assert_array_equal(opened + reflected, np.full(opened.size, 1.0 + 2.0**-53))
    # the same 53 bits: open_unit is uniform()'s value plus 2^-53
    np.testing.assert_array_equal(opened, low + 2.0**-53)
    assert abs(opened.mean() - 0.5) < 4 * np.sqrt(1 / 12 / opened.size)


def test_bit_casts_round_trip():
    for x in (0.0, 1.0, -2.5, 1e-310, np.inf):
        assert _round_trip(x) == x or (np.isnan(x) and np.isnan(_round_trip(x)))


def test_neg_log_within_a_few_ulp():
    rng = np.random.default_rng(5)
    u = np.concatenate([
        rng.random(500_000),
        1.0 - rng.random(100_000) * 1e-9,  # near 1, where -log u is tiny
        2.0 ** -rng.integers(1, 1000, 10_000) * (1.0 + rng.random(10_000)),  # every exponent
        np.array([1.0, 0.5, 2.0**-53, np.nextafter(1.0, 0.0), np.sqrt(0.5), np.nextafter(np.sqrt(0.5), 1.0)]),
    ])
    u = u[(u > 0) & (u <= 1)]
    ours = _neg_logs(u)
    reference = -np.log(u)
    ulps = np.abs(ours - reference) / np.spacing(np.maximum(reference, np.finfo(float).tiny))
    assert ulps.max() <= 3, ulps.max()  # the bound rng.py's docstring states
    assert _neg_logs(np.array([1.0]))[0] == 0.0
    assert np.all(ours >= 0)
