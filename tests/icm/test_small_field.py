"""The plain-numpy subset recursion of small fields against every finishing order counted in fractions, and
"auto" taking it exactly up to PLAIN_MAX_PLAYERS live players."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pokerlab.icm import icm
from pokerlab.icm.small_field import PLAIN_MAX_PLAYERS, finish_places


def places_by_orders(stacks: list[int]) -> list[list[Fraction]]:
    """P(player i finishes in place m + 1), summed over all n! finishing orders (Malmuth-Harville)."""
    n = len(stacks)
    matrix = [[Fraction(0)] * n for _ in range(n)]
    for order in itertools.permutations(range(n)):
        p, left = Fraction(1), sum(stacks)
        for player in order:
            p *= Fraction(stacks[player], left)
            left -= stacks[player]
        for place, player in enumerate(order):
            matrix[player][place] += p
    return matrix


@pytest.mark.parametrize("stacks", [[7], [5, 3], [5000, 3000, 2000], [1, 1, 1, 1], [9, 1, 4, 4, 2, 13]])
def test_finish_places_equal_the_orders_counted_in_fractions(stacks):
    exact = np.array([[float(x) for x in row] for row in places_by_orders(stacks)])
    for k in range(1, len(stacks) + 1):
        np.testing.assert_allclose(finish_places(np.array(stacks, dtype=float), k), exact[:, :k], rtol=1e-14,
                                   atol=1e-16)
    np.testing.assert_allclose(finish_places(np.array(stacks, dtype=float), len(stacks)).sum(axis=0), 1.0,
                               rtol=1e-14)


@pytest.mark.parametrize("n", [3, PLAIN_MAX_PLAYERS, PLAIN_MAX_PLAYERS + 1])
def test_auto_takes_the_plain_recursion_up_to_its_limit(n):
    stacks = np.random.default_rng(n).uniform(1, 10, n)
    payouts = [50.0, 30.0, 20.0]
    auto = icm(stacks, payouts, places=True)
    assert auto.method == "exact"
    assert (auto.nodes == 0) == (n <= PLAIN_MAX_PLAYERS)  # the quadrature counts its nodes
    subset = icm(stacks, payouts, "subset", places=True)
    np.testing.assert_allclose(auto.equity, subset.equity, rtol=1e-11)
    np.testing.assert_allclose(auto.places, subset.places, rtol=1e-10, atol=1e-14)
    assert auto.equity.sum() == pytest.approx(100.0, rel=1e-13)  # money is conserved
