"""Exact ICM by the subset recursion over the players already placed (``sum_{m<k} C(n, m) * n`` work):
the oracle; returns the finish-place matrix. Kernels assume validated input (see :mod:`pokerlab.icm.core`)."""

from __future__ import annotations

import numpy as np
from numba import njit

# --------------------------------------------------------------------------------------------------------------
# Exact subset recursion (the oracle)
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def icm_subset(stacks: np.ndarray, k: int) -> np.ndarray:
    """Finish-place matrix ``M[i, m] = P(player i finishes in place m + 1)`` for ``m < k``, exactly.

    State = the set ``S`` of players who took the first ``|S|`` places; ``P(S)`` is pushed forward to
    ``S + {j}`` with probability ``s_j / (sum of stacks outside S)``. Only sets with ``|S| < k`` are visited.
    The remaining-chips denominator is a sum over the complement (additions only, no cancellation).
    """
    n = stacks.shape[0]
    full = (1 << n) - 1
    size = 1 << n
    subset_sum = np.zeros(size)
    popcount = np.zeros(size, dtype=np.int32)
    for mask in range(1, size):
        low = mask & (-mask)
        j = 0
        while (low >> j) != 1:
            j += 1
        subset_sum[mask] = subset_sum[mask ^ low] + stacks[j]
        popcount[mask] = popcount[mask ^ low] + 1
    prob = np.zeros(size)
    prob[0] = 1.0
    places = np.zeros((n, k))
    for mask in range(size):
        placed = popcount[mask]
        pm = prob[mask]
        if placed >= k or pm == 0.0:
            continue
        remaining = subset_sum[full ^ mask]
        for j in range(n):
            bit = 1 << j
            if mask & bit:
                continue
            pr = pm * stacks[j] / remaining
            places[j, placed] += pr
            if placed + 1 < k:
                prob[mask | bit] += pr
    return places
