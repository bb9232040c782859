"""Equity models beside ICM against brute force: Malmuth-Weitzman by explicit elimination orders with the
chips really redistributed, its Monte Carlo against its exact recursion, power ICM at alpha = 1 against ICM."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pokerlab.errors import InvalidStacksError
from pokerlab.icm import icm
from pokerlab.icm.alternatives import chip_proportional, fit_power, malmuth_weitzman, power_icm


def mw_brute_force(stacks: list[int], payouts: list[int]) -> list[Fraction]:
    """Every elimination order, exact fractions, chips of each eliminated player split evenly for real."""
    n = len(stacks)
    pay = [Fraction(p) for p in payouts] + [Fraction(0)] * (n - len(payouts))
    equity = [Fraction(0)] * n

    def walk(chips: dict[int, Fraction], prob: Fraction) -> None:
        if len(chips) == 1:
            (last,) = chips
            equity[last] += prob * pay[0]
            return
        weight = sum(1 / c for c in chips.values())
        for j, c in chips.items():
            q = prob * (1 / c) / weight
            equity[j] += q * pay[len(chips) - 1]
            rest = {k: v + c / (len(chips) - 1) for k, v in chips.items() if k != j}
            walk(rest, q)

    walk({i: Fraction(s) for i, s in enumerate(stacks)}, Fraction(1))
    return equity


@pytest.mark.parametrize("stacks,payouts", [([5, 3, 2], [60, 40]), ([7, 1, 4, 2, 6], [50, 30, 20]),
                                            ([3, 3, 9, 1], [1, 1, 1, 1])])
def test_malmuth_weitzman_exact_matches_brute_force(stacks, payouts):
    exact = [float(x) for x in mw_brute_force(stacks, payouts)]
    assert np.allclose(malmuth_weitzman(stacks, payouts).equity, exact, rtol=1e-12, atol=1e-12)


def test_malmuth_weitzman_monte_carlo_matches_exact():
    from pokerlab.icm.alternatives import _mw_sample, mw_exact

    stacks = np.array([5, 3, 2, 7, 1, 4, 6, 2, 3, 9, 5, 1], dtype=float)
    pay = np.zeros(12)
    pay[:3] = [50, 30, 20]
    exact = mw_exact(stacks, pay)
    samples = 100_000
    total, squares = _mw_sample(stacks, pay, samples, np.uint64(3))
    mean = total / samples
    stderr = np.sqrt((squares / samples - mean**2) / (samples - 1))
    assert np.all(np.abs(mean - exact) < 4 * stderr)
    big = malmuth_weitzman(np.r_[stacks, stacks], [50, 30, 20], samples=2_000, seed=1)
    assert big.stderr is not None and np.isclose(big.equity.sum(), 100)


def test_malmuth_weitzman_differs_from_icm_and_keeps_the_win_probability_of_heads_up():
    assert np.allclose(malmuth_weitzman([6, 4], [1]).equity, [0.6, 0.4])
    assert not np.allclose(malmuth_weitzman([5, 3, 2], [60, 40]).equity, icm([5, 3, 2], [60, 40]).equity, atol=0.1)


def test_power_icm_and_chip_proportional():
    stacks, pay = [5000, 3000, 2000, 1000], [50, 30, 20]
    assert np.allclose(power_icm(stacks, pay, 1.0).equity, icm(stacks, pay).equity, rtol=1e-9)
    flat = power_icm(stacks, pay, 1e-9).equity
    assert np.allclose(flat, 25.0, atol=1e-6)  # alpha -> 0: every stack the same
    assert np.allclose(chip_proportional(stacks, pay).equity, np.array(stacks) / 11000 * 100)
    with pytest.raises(InvalidStacksError):
        chip_proportional([3, 0], [1])


def test_fit_power_recovers_the_exponent():
    snaps = [np.array([5, 3, 2, 1.0]), np.array([9, 1, 4, 4, 2.0]), np.array([3, 3, 1.0])]
    pays = [np.array([50, 30, 20.0]), np.array([60, 40.0]), np.array([70, 30.0])]
    targets = [power_icm(s, p, 0.8).equity for s, p in zip(snaps, pays, strict=True)]
    assert abs(fit_power(snaps, pays, targets) - 0.8) < 0.01
