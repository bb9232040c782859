"""The exact future-bounty recursion (:mod:`pokerlab.icm.bounty`): the subset recursion of
:mod:`pokerlab.icm.subset` over the set of players holding the first places, carrying per set each placed
player's expected chain factor. Kernels assume validated input."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def bounty_subset(stacks: np.ndarray, bounties: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Expected bounty money of each of ``n`` players (positive ``stacks``): the player in place ``m`` is
    busted, his head ``bounties[j]`` shared out as ``u[m - 1] * v[r - 1]`` to the player in each place ``r < m``,
    the winner keeping his own head.

    ``prob[S]`` is the probability that the set ``S`` holds the first ``|S|`` places and ``carried[S, i]`` the
    expectation of ``v[place of i - 1]`` on that event, for ``i`` in ``S``; the player ``j`` placed next (place
    ``|S| + 1``, probability ``s_j / chips outside S``) pays ``u[|S|] b_j`` times it to each ``i`` in ``S``.
    Work ``2^n n^2``, memory ``2^n n``.
    """
    n = stacks.shape[0]
    size = 1 << n
    full = size - 1
    outside = np.zeros(size)  # chips of the players not in the set
    weighted = np.zeros(size)  # their bounty x chips
    popcount = np.zeros(size, dtype=np.int32)
    total = stacks.sum()
    total_weighted = (stacks * bounties).sum()
    for mask in range(1, size):
        low = mask & (-mask)
        j = 0
        while (low >> j) != 1:
            j += 1
        outside[mask] = outside[mask ^ low] + stacks[j]  # chips inside, for now
        weighted[mask] = weighted[mask ^ low] + stacks[j] * bounties[j]
        popcount[mask] = popcount[mask ^ low] + 1
    for mask in range(size):
        # the sums over the complement, added up player by player (no cancellation)
        outside_mask = full ^ mask
        if mask < outside_mask:
            outside[mask], outside[outside_mask] = outside[outside_mask], outside[mask]
            weighted[mask], weighted[outside_mask] = weighted[outside_mask], weighted[mask]
    outside[0] = total
    weighted[0] = total_weighted
    outside[full] = 0.0
    weighted[full] = 0.0
    prob = np.zeros(size)
    carried = np.zeros((size, n))
    prob[0] = 1.0
    equity = np.zeros(n)
    for mask in range(size):
        placed = popcount[mask]
        pm = prob[mask]
        if pm == 0.0:
            continue
        if placed == n:
            continue
        if placed > 0:
            # the next player placed pays u[placed] * b_j to the placed players, weighted by s_j / outside
            paid = u[placed] * weighted[mask] / outside[mask]
            for i in range(n):
                if mask >> i & 1:
                    equity[i] += carried[mask, i] * paid
        for j in range(n):
            bit = 1 << j
            if mask & bit:
                continue
            step = stacks[j] / outside[mask]
            grown = mask | bit
            prob[grown] += pm * step
            carried[grown, j] += pm * step * v[placed]
            for i in range(n):
                if mask >> i & 1:
                    carried[grown, i] += carried[mask, i] * step
            if placed == 0:
                equity[j] += pm * step * bounties[j]  # the winner keeps his own head
    return equity
