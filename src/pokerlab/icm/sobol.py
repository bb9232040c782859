"""Randomised quasi-Monte Carlo ICM: digitally shifted replicates of one scrambled Sobol set
(:func:`mc_sobol_shifted`)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerlab.icm.sampling import RANK_BY_COUNTING, _coarse_scratch, _count_ranks, _payout_plain
from pokerlab.stats.rng import neg_log

SOBOL_BITS = 30  # scipy's Sobol points are multiples of 2^-30


@njit(cache=True, error_model="numpy")
def _sobol_clocks(point: np.ndarray, shift: np.ndarray, inv: np.ndarray, clocks: np.ndarray) -> None:
    """Clocks of one shifted Sobol point: ``u = (point XOR shift) 2^-SOBOL_BITS`` is in ``[0, 1)``, so
    ``1 - u`` is in ``(0, 1]`` and exact (30 bits), and the clock is ``-log(1 - u) / s``."""
    scale = 1.0 / (1 << SOBOL_BITS)
    for i in range(clocks.shape[0]):
        clocks[i] = neg_log(1.0 - (point[i] ^ shift[i]) * scale) * inv[i]


@njit(cache=True, parallel=True)
def mc_sobol_shifted(
    stacks: np.ndarray, pay: np.ndarray, base: np.ndarray, shifts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Randomised QMC replicates: replicate r uses the point set ``base`` (integers, ``SOBOL_BITS`` bits: one
    scrambled Sobol set) XOR a random digital shift ``shifts[r]`` (one integer per dimension). A digital shift
    keeps the net structure and makes every point uniform, so each replicate mean is unbiased and the replicates
    are independent given the base set. Returns the sums and sums of squares of the replicate means."""
    n = stacks.shape[0]
    k = pay.shape[0]
    reps = shifts.shape[0]
    points = base.shape[0]
    means = np.zeros((reps, n))
    small = n <= RANK_BY_COUNTING
    for r in prange(reps):
        inv = 1.0 / stacks
        clocks = np.empty(n)
        keys = np.empty(n, dtype=np.int64)
        order = np.empty(n, dtype=np.int64)
        value = np.empty(n)
        coarse = _coarse_scratch()
        ranks = np.empty(n, dtype=np.int32)
        places = np.zeros(n * n, dtype=np.int32)
        total = np.zeros(n)
        for row in range(points):
            _sobol_clocks(base[row], shifts[r], inv, clocks)
            if small:
                _count_ranks(clocks, coarse, ranks)
                for i in range(n):
                    places[np.uint64(i * n + ranks[i])] += 1
            else:
                _payout_plain(clocks, pay, keys, order, value)
                for i in range(n):
                    total[i] += value[i]
        if small:
            for i in range(n):
                for m in range(k):
                    total[i] += places[i * n + m] * pay[m]
        for i in range(n):
            means[r, i] = total[i] / points
    sums = np.zeros(n)
    squares = np.zeros(n)
    for r in range(reps):
        for i in range(n):
            sums[i] += means[r, i]
            squares[i] += means[r, i] * means[r, i]
    return sums, squares
