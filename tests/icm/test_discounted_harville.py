"""Discounted Harville (Lo and Bacon-Shone): against a brute force over every finishing order written here, ICM
at discount 1, the chip share for the winner at any discount, money conserved, the sampled path against the exact
one, a fitted discount recovered, and bad input."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm import icm
from pokerlab.icm.alternatives import _dh_sample, dh_exact, discounted_harville, fit_discount


def brute_force(stacks, payouts, exponents):
    """Every finishing order's probability: the first by chip share, place k by stack ** exponents[k - 2]."""
    n = len(stacks)
    s = np.asarray(stacks, dtype=float)
    pay = list(payouts) + [0.0] * (n - len(payouts))
    equity = np.zeros(n)
    for order in permutations(range(n)):
        left = list(range(n))
        p = 1.0
        for place, player in enumerate(order):
            power = 1.0 if place == 0 else exponents[min(place - 1, len(exponents) - 1)]
            p *= s[player] ** power / sum(s[j] ** power for j in left)
            left.remove(player)
        for place, player in enumerate(order):
            equity[player] += p * pay[place]
    return equity


@pytest.mark.parametrize(("stacks", "payouts", "discount"), [
    ([5, 3, 2], [60, 40], [0.5]),
    ([10, 7, 4, 1], [50, 30, 20], [0.8]),
    ([12, 9, 6, 3, 1], [40, 25, 20, 15], [0.6, 0.9, 1.3]),  # one exponent per later place
    ([2, 2, 2, 9, 4], [100], [0.3]),
])
def test_against_every_finishing_order(stacks, payouts, discount):
    got = discounted_harville(stacks, payouts, discount).equity
    assert np.allclose(got, brute_force(stacks, payouts, discount), rtol=0, atol=1e-10)
    assert got.sum() == pytest.approx(sum(payouts), abs=1e-9)


def test_discount_one_is_icm_and_the_winner_is_the_chip_share():
    rng = np.random.default_rng(3)
    stacks = rng.integers(1, 50, size=9).astype(float)
    payouts = [45, 25, 15, 10, 5]
    assert np.allclose(discounted_harville(stacks, payouts, 1.0).equity, icm(stacks, payouts).equity, atol=1e-9)
    for discount in (0.4, 0.9, 2.0):  # winner takes all: every discount leaves the chip share
        assert np.allclose(discounted_harville(stacks, [100], discount).equity, 100 * stacks / stacks.sum(),
                           rtol=0, atol=1e-9)


def test_the_sampled_orders_match_the_exact_recursion():
    rng = np.random.default_rng(5)
    weights = rng.uniform(0.05, 1.0, size=10)
    pay = np.array([40.0, 25, 15, 12, 8, 0, 0, 0, 0, 0])
    exact = dh_exact(weights, pay, np.array([1.0] + [0.7] * 9), 5)
    samples = 200_000
    total, squares = _dh_sample(weights, pay, 0.7, 5, samples, np.uint64(11))
    mean = total / samples
    stderr = np.sqrt((squares / samples - mean**2) / (samples - 1))
    assert np.max(np.abs(mean - exact) / stderr) < 4.5  # 10 players, fixed seed
    big = discounted_harville(np.r_[rng.uniform(1, 9, size=30)], [50, 30, 20], 0.7, samples=5_000, seed=2)
    assert big.stderr is not None and big.equity.sum() == pytest.approx(100, abs=1e-9)  # every sample pays 100


def test_a_fitted_discount_is_recovered():
    rng = np.random.default_rng(7)
    snapshots = [rng.integers(1, 40, size=6).astype(float) for _ in range(5)]
    payouts = [np.array([50.0, 30, 20])] * 5
    targets = [discounted_harville(s, p, 0.8).equity for s, p in zip(snapshots, payouts, strict=True)]
    assert fit_discount(snapshots, payouts, targets) == pytest.approx(0.8, abs=0.01)


@pytest.mark.parametrize("discount", [0, -1, 4.5, float("nan"), [], [0.5, 0]])
def test_bad_discounts(discount):
    with pytest.raises(InvalidArgumentError, match="discount must be an exponent"):
        discounted_harville([5, 3, 2], [60, 40], discount)


def test_one_exponent_past_the_exact_size():
    with pytest.raises(InvalidArgumentError, match="one exponent for every later place"):
        discounted_harville(np.arange(1, 21), [50, 30, 20], [0.5, 0.9])
