"""Exact ICM of a small field in plain numpy: the subset recursion of :mod:`pokerlab.icm.subset` with no
compiled code, so that a final table's ICM answers without loading numba (0.3-0.5 s) or any kernel, on a
first run too. ``method="auto"`` takes it up to :data:`PLAIN_MAX_PLAYERS` live players.

>>> [round(float(x), 6) for x in finish_places(np.array([5000.0, 3000.0, 2000.0]), 3) @ [50, 30, 20]]
[38.392857, 32.75, 28.857143]
"""

from __future__ import annotations

import numpy as np

# The most live players "auto" solves this way. Its work is sum_{m<k} C(n, m) * n steps in a few numpy calls per
# (player, place): measured per call on this project's 2-core EPYC (load ~4): 3 players 0.07 ms, 6 players 0.26 ms,
# 9 players 0.6 ms, 10 players 0.8 ms, 12 players 1.9 ms, all places paid; the quadrature ("exact") takes
# 0.12-0.19 ms a call at these sizes, but only once numba and its cached kernels are loaded, 0.5-1 s of a
# process's start (and 20-40 s of compiling on a first run). A final table of 9-10 players stays under a ms.
PLAIN_MAX_PLAYERS = 10


def finish_places(stacks: np.ndarray, k: int) -> np.ndarray:
    """Finish-place matrix ``M[i, m] = P(player i finishes in place m + 1)`` for ``m < k`` (Malmuth-Harville),
    exactly, for ``n`` players (positive stacks; ``n`` up to about :data:`PLAIN_MAX_PLAYERS`: the work and memory
    grow as ``2^n``).

    The state is the set ``S`` of players who took the first ``|S|`` places, ``P(S)`` pushed forward to
    ``S + {j}`` with probability ``s_j / (chips outside S)``, one place at a time for all sets of that size
    at once. The chips outside ``S`` are summed over the complement (additions only, as the compiled kernel).
    """
    n = stacks.shape[0]
    size = 1 << n
    masks = np.arange(size, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(n)) & 1  # (2^n, n): who is in each set
    outside = (1 - bits) @ stacks  # chips of the players not yet placed, per set
    popcount = bits.sum(axis=1)
    prob = np.zeros(size)
    prob[0] = 1.0
    places = np.zeros((n, k))
    for placed in range(min(k, n)):
        level = masks[(popcount == placed) & (prob > 0.0)]
        reach = prob[level] / outside[level]
        for j in range(n):
            free = level[bits[level, j] == 0]
            pr = reach[bits[level, j] == 0] * stacks[j]
            places[j, placed] = pr.sum()
            if placed + 1 < k:
                prob[free | (1 << j)] += pr  # each set S + {j} is reached from S once per j: no collisions
    return places
