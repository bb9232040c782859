"""ICM Monte Carlo kernels: Streib's exponential clocks with plain, antithetic and conditional estimators
(:func:`mc_batch`) and plain sampling that counts finishing places (:func:`mc_place_counts`); both return
per-player sums and sums of squares (counts)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerlab.stats.rng import GOLDEN, mix64, neg_log, open_unit, reflected_unit, stream_counter

# --------------------------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------------------------

MC_PLAIN = 0
MC_ANTITHETIC = 1
MC_CONDITIONAL = 2


@njit(cache=True)
def _kth_smallest(keys: np.ndarray, k: int, scratch: np.ndarray) -> np.int64:
    """The ``k``-th smallest (0-based) of the distinct ``keys``, by quickselect in ``scratch`` (as long as
    ``keys``; overwritten). ``np.partition`` gives the same value but compiled several seconds of overloads
    (argument checks through ``np.unique``, one specialization per caller)."""
    n = keys.shape[0]
    scratch[:n] = keys
    lo = 0
    hi = n - 1
    while lo < hi:
        a, b, c = scratch[lo], scratch[(lo + hi) // 2], scratch[hi]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        i = lo
        j = hi
        while i <= j:  # Hoare partition: scratch[lo..j] <= pivot <= scratch[i..hi]
            while scratch[i] < pivot:
                i += 1
            while scratch[j] > pivot:
                j -= 1
            if i <= j:
                scratch[i], scratch[j] = scratch[j], scratch[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    selected: np.int64 = scratch[k]
    return selected


@njit(cache=True, inline="always", fastmath=True)
def _rank_paid(clocks: np.ndarray, keys: np.ndarray, k: int, order: np.ndarray) -> None:
    """``order[m]`` = player finishing in place ``m + 1`` for ``m < k`` (smallest clocks first).

    Clocks are positive doubles, whose bit patterns sort like the numbers; the player index goes in the low
    16 bits so one integer sort ranks them (clocks equal in their top 36 mantissa bits, probability ~1e-11 per
    pair, are ordered by index). Hence at most 65,536 players. Small fields (n <= 64) rank by counting smaller
    keys, large ones sort in place, and few paid places among many players use a partial selection.
    """
    n = clocks.shape[0]
    bits = clocks.view(np.int64)
    for i in range(n):
        keys[i] = (bits[i] & np.int64(~0xFFFF)) | np.int64(i)
    if n <= 64:
        # rank by counting: branch-free, vectorised compares (n^2 = 2,500 for 50 players beat a sort's mispredicted
        # branches); the keys are distinct, so the ranks are a permutation
        for i in range(n):
            key = keys[i]
            rank = np.int64(0)
            for j in range(n):
                rank += np.int64(1) if keys[j] < key else np.int64(0)
            if rank < k:
                order[rank] = i
        return
    if k < n // 4:
        kth = _kth_smallest(keys, k - 1, order)
        c = 0
        for i in range(n):
            if keys[i] <= kth:
                order[c] = keys[i]
                c += 1
        order[:k].sort()
    else:
        keys.sort()
        order[:k] = keys[:k]
    for m in range(k):
        order[m] = order[m] & np.int64(0xFFFF)


_LN2_HI = 0.6931471803691238  # ln 2 split in two (Cody-Waite): x - k ln2 exact for |k| < 2^20
_LN2_LO = 1.9082149292705877e-10
_POW2 = np.array([2.0**e for e in range(-1080, 1)])  # 2^e for e = -1080..0 (the low end underflows to 0)


@njit(cache=True, inline="always")
def _exp_neg(x: float) -> float:
    """``e^{-x}`` for ``x >= 0`` in plain arithmetic and a table lookup, so loops over it vectorise (numba's
    ``np.exp`` is a scalar libm call here). ``e^{-x} = 2^-j e^r`` with ``j = round(x / ln 2)``, ``|r| <= ln2 / 2``
    and a degree-13 Taylor polynomial (truncation < 2e-16 relative); a few ulp overall. 0 past x = 745."""
    xc = min(x, 748.0)
    j = np.floor(xc * 1.4426950408889634 + 0.5)
    r = (j * _LN2_HI - xc) + j * _LN2_LO
    poly = 1.0 / 6227020800.0
    poly = poly * r + 1.0 / 479001600.0
    poly = poly * r + 1.0 / 39916800.0
    poly = poly * r + 1.0 / 3628800.0
    poly = poly * r + 1.0 / 362880.0
    poly = poly * r + 1.0 / 40320.0
    poly = poly * r + 1.0 / 5040.0
    poly = poly * r + 1.0 / 720.0
    poly = poly * r + 1.0 / 120.0
    poly = poly * r + 1.0 / 24.0
    poly = poly * r + 1.0 / 6.0
    poly = poly * r + 0.5
    poly = poly * r + 1.0
    poly = poly * r + 1.0
    value: float = poly * _POW2[1080 - int(j)]
    return value


@njit(cache=True)
def _payout_plain(clocks: np.ndarray, pay: np.ndarray, keys: np.ndarray, order: np.ndarray, out: np.ndarray) -> None:
    """One sample of every player's prize, written (not added) to ``out``."""
    k = pay.shape[0]
    _rank_paid(clocks, keys, k, order)
    out[:] = 0.0
    for m in range(k):
        out[order[m]] = pay[m]


@njit(cache=True)
def _payout_conditional(
    clocks: np.ndarray, stacks: np.ndarray, pay: np.ndarray, keys: np.ndarray, order: np.ndarray,
    out: np.ndarray, sorted_clocks: np.ndarray
) -> None:
    """One conditional Monte Carlo sample of every player's expected prize, written (not added) to ``out``.

    Each player's own clock is integrated given the others'. With T'_(m) the m-th smallest of the other clocks
    (T'_(0) = 0), P(place m+1 | others) = e^{-s T'_(m)} - e^{-s T'_(m+1)}, so
    E[prize | others] = pay[0] + sum_{m=1..k} (pay[m] - pay[m-1]) e^{-s T'_(m)} with pay[k] = 0.
    The others' m-th smallest clock is sorted[m - 1] up to player i's own rank r and sorted[m] above it, so
    each player's terms come from two contiguous, branch-free loops that vectorise with :func:`_exp_neg`.
    """
    n = clocks.shape[0]
    k = pay.shape[0]
    kk = min(k + 1, n)
    _rank_paid(clocks, keys, kk, order)
    for m in range(kk):
        sorted_clocks[m] = clocks[order[m]]
    # free scratch once the ranks are known: keys -> steps[m - 1] = pay[m] - pay[m - 1] (pay[k] = 0), order -> terms
    steps = keys.view(np.float64)
    for m in range(1, k + 1):
        steps[m - 1] = (pay[m] if m < k else 0.0) - pay[m - 1]
    for i in range(n):
        out[i] = kk  # rank of a player outside the kk smallest: treated as kk (>= k)
    for m in range(kk):
        out[order[m]] = m
    terms = order.view(np.float64)
    top = min(k, kk - 1)  # with fewer than m others left, place m + 1 has probability 0
    for i in range(n):
        s = stacks[i]
        r = int(out[i])
        below = min(k, r)
        for m in range(below):  # places m + 1 <= r: the others' (m + 1)-th smallest clock is sorted[m]
            terms[m] = steps[m] * _exp_neg(s * sorted_clocks[m])
        for m in range(r + 1, top + 1):  # places m > r: the others' m-th smallest clock is sorted[m]
            terms[m - 1] = steps[m - 1] * _exp_neg(s * sorted_clocks[m])
        acc = pay[0]
        for m in range(below):
            acc += terms[m]
        for m in range(r, top):
            acc += terms[m]
        out[i] = acc


RANK_BY_COUNTING = 64  # fields up to this size rank every sample by counting (vectorised); larger ones sort


@njit(cache=True, error_model="numpy")
def _draw_clocks(counter: np.uint64, inv: np.ndarray, clocks: np.ndarray) -> np.uint64:
    """``clocks[i] = E_i / s_i`` (``inv[i] = 1 / s_i``) from the stream's next ``n`` draws; returns the counter.

    Draw ``t`` is ``mix64(counter + t GOLDEN)``: no loop-carried state, so the loop vectorises, and the stream is
    the same as ``n`` calls of :func:`pokerlab.stats.rng.next_u64`."""
    n = clocks.shape[0]
    for i in range(n):
        bits = mix64(counter + np.uint64(i + 1) * GOLDEN)
        clocks[i] = neg_log(open_unit(bits)) * inv[i]
    return counter + np.uint64(n) * GOLDEN


@njit(cache=True, error_model="numpy")
def _draw_antithetic(counter: np.uint64, inv: np.ndarray, clocks: np.ndarray, partner: np.ndarray) -> np.uint64:
    """:func:`_draw_clocks`, and in ``partner`` the clocks of the reflected uniforms ``1 + 2^-53 - u``."""
    n = clocks.shape[0]
    for i in range(n):
        bits = mix64(counter + np.uint64(i + 1) * GOLDEN)
        clocks[i] = neg_log(open_unit(bits)) * inv[i]
        partner[i] = neg_log(reflected_unit(bits)) * inv[i]
    return counter + np.uint64(n) * GOLDEN


@njit(cache=True)
def _count_ranks(clocks: np.ndarray, coarse: np.ndarray, ranks: np.ndarray) -> None:
    """``ranks[i]`` = 0-based finishing place of player ``i``: how many clocks are smaller (``n <= 64``).

    Every pair is compared (``n^2``, branch-free) on single-precision copies of the clocks, 16 to a vector
    instruction: twice the lanes of double precision, and a sort's mispredicted branches cost more at this size.
    Rounding is monotone, so a strictly smaller copy means a strictly smaller clock; only equal copies leave an
    order open (2.4e-5 of samples for 50 players). Then the ranks are not a permutation (their sum falls short
    of ``n (n - 1) / 2``) and the sample is ranked again on the full clocks, equal clocks by index, so the ranks
    are exactly those of the double-precision clocks. ``coarse``: scratch of :data:`RANK_BY_COUNTING` floats,
    +inf past ``n`` (the constant trip count unrolls into four 16-lane compares).
    """
    n = clocks.shape[0]
    for i in range(n):
        coarse[i] = np.float32(clocks[i])
    for i in range(n):
        key = coarse[i]
        rank = np.int32(0)
        for j in range(RANK_BY_COUNTING):
            rank += np.int32(1) if coarse[j] < key else np.int32(0)
        ranks[i] = rank
    total = 0  # summed apart: in the loop above it would keep the counts 64 bits wide and halve the vector width
    for i in range(n):
        total += ranks[i]
    if total != n * (n - 1) // 2:
        for i in range(n):
            clock = clocks[i]
            rank = np.int32(0)
            for j in range(n):
                if clocks[j] < clock or (clocks[j] == clock and j < i):
                    rank += np.int32(1)
            ranks[i] = rank


@njit(cache=True)
def _coarse_scratch() -> np.ndarray:
    """Scratch for :func:`_count_ranks`: :data:`RANK_BY_COUNTING` single-precision +inf."""
    return np.full(RANK_BY_COUNTING, np.inf, dtype=np.float32)


@njit(cache=True)
def _plain_selected(stacks: np.ndarray, pay: np.ndarray, samples: int, counter: np.uint64, sums: np.ndarray,
                    squares: np.ndarray) -> None:
    """Plain estimator: the ``k`` paid players by sort or partial selection, only their sums change."""
    n = stacks.shape[0]
    k = pay.shape[0]
    inv = 1.0 / stacks
    clocks = np.empty(n)
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    for _ in range(samples):
        counter = _draw_clocks(counter, inv, clocks)
        _rank_paid(clocks, keys, k, order)
        for m in range(k):
            j = order[m]
            sums[j] += pay[m]
            squares[j] += pay[m] * pay[m]


@njit(cache=True)
def _antithetic(stacks: np.ndarray, pay: np.ndarray, samples: int, counter: np.uint64, sums: np.ndarray,
                squares: np.ndarray) -> None:
    """Antithetic pairs (u and its reflection): the pair means are the samples."""
    n = stacks.shape[0]
    k = pay.shape[0]
    inv = 1.0 / stacks
    clocks = np.empty(n)
    partner = np.empty(n)
    value = np.empty(n)
    value2 = np.empty(n)
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    small = n <= RANK_BY_COUNTING
    coarse = _coarse_scratch()
    ranks = np.empty(n, dtype=np.int32)
    ranks2 = np.empty(n, dtype=np.int32)
    pay_padded = np.zeros(n)
    pay_padded[:k] = pay
    for _ in range(samples):
        counter = _draw_antithetic(counter, inv, clocks, partner)
        if small:
            _count_ranks(clocks, coarse, ranks)
            _count_ranks(partner, coarse, ranks2)
            for i in range(n):
                value[i] = pay_padded[ranks[i]]
                value2[i] = pay_padded[ranks2[i]]
        else:
            _payout_plain(clocks, pay, keys, order, value)
            _payout_plain(partner, pay, keys, order, value2)
        for i in range(n):
            v = 0.5 * (value[i] + value2[i])
            sums[i] += v
            squares[i] += v * v


@njit(cache=True)
def _conditional(stacks: np.ndarray, pay: np.ndarray, samples: int, counter: np.uint64, sums: np.ndarray,
                 squares: np.ndarray) -> None:
    """Conditional Monte Carlo: each player's prize integrated over its own clock given the others'."""
    n = stacks.shape[0]
    inv = 1.0 / stacks
    clocks = np.empty(n)
    value = np.empty(n)
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    sorted_clocks = np.empty(n)
    for _ in range(samples):
        counter = _draw_clocks(counter, inv, clocks)
        _payout_conditional(clocks, stacks, pay, keys, order, value, sorted_clocks)
        for i in range(n):
            sums[i] += value[i]
            squares[i] += value[i] * value[i]


@njit(cache=True, parallel=True)
def mc_place_counts(stacks: np.ndarray, places: int, samples: int, seed: int, streams: int, slots: int) -> np.ndarray:
    """Plain sampling by counting finishing places: ``counts[i, m]`` = how many of ``samples`` finishing orders
    put player ``i`` in place ``m + 1``, for the first ``places`` places (the plain estimator's sums are these
    counts weighed by the prizes). The streams and their draws are those of :func:`mc_batch` (same seed, same
    orders). Work slot ``w`` (one per thread) runs streams ``w, w + slots, ...`` into its own counts, so memory is
    ``slots x n x width`` rather than one table per stream, and the integer total does not depend on the number
    of slots. Up to 64 players every place is counted (width n, one unconditional increment per player, the
    2 ms path of the benchmark), above only the first ``places``."""
    n = stacks.shape[0]
    small = n <= RANK_BY_COUNTING
    width = n if small else places
    counts = np.zeros((slots, n * width), dtype=np.int32)  # player-major; pokerlab.stats caps a batch at 2^22
    for slot in prange(slots):
        mine = counts[slot]
        inv = 1.0 / stacks
        clocks = np.empty(n)
        coarse = _coarse_scratch()
        ranks = np.empty(n, dtype=np.int32)
        keys = np.empty(n, dtype=np.int64)
        order = np.empty(n, dtype=np.int64)
        for stream in range(slot, streams, slots):
            counter, count = stream_counter(seed, stream, samples, streams)
            for _ in range(count):
                counter = _draw_clocks(counter, inv, clocks)
                if small:
                    _count_ranks(clocks, coarse, ranks)
                    for i in range(n):
                        mine[np.uint64(i * width + ranks[i])] += 1  # unsigned: no negative-index wraparound code
                else:
                    _rank_paid(clocks, keys, places, order)
                    for m in range(places):
                        mine[np.uint64(order[m] * width + m)] += 1
    total = np.zeros((n, places), dtype=np.int64)
    for w in range(slots):
        for i in range(n):
            for m in range(places):
                total[i, m] += counts[w, i * width + m]
    return total


# One parallel kernel per estimator: a run compiles only the estimator it uses (one kernel holding all three
# compiled them all, 13 s of compilation on top of theirs). Each stream's draws depend on (seed, stream) only.


@njit(cache=True, parallel=True)
def mc_batch_plain(stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int,
                   streams: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mc_batch` with the plain estimator."""
    n = stacks.shape[0]
    sums = np.zeros((streams, n))
    squares = np.zeros((streams, n))
    for stream in prange(streams):
        counter, count = stream_counter(seed, stream, samples, streams)
        _plain_selected(stacks, pay, count, counter, sums[stream], squares[stream])
    return sums.sum(axis=0), squares.sum(axis=0)


@njit(cache=True, parallel=True)
def mc_batch_antithetic(stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int,
                        streams: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mc_batch` with the antithetic estimator."""
    n = stacks.shape[0]
    sums = np.zeros((streams, n))
    squares = np.zeros((streams, n))
    for stream in prange(streams):
        counter, count = stream_counter(seed, stream, samples, streams)
        _antithetic(stacks, pay, count, counter, sums[stream], squares[stream])
    return sums.sum(axis=0), squares.sum(axis=0)


@njit(cache=True, parallel=True)
def mc_batch_conditional(stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int,
                         streams: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mc_batch` with the conditional estimator."""
    n = stacks.shape[0]
    sums = np.zeros((streams, n))
    squares = np.zeros((streams, n))
    for stream in prange(streams):
        counter, count = stream_counter(seed, stream, samples, streams)
        _conditional(stacks, pay, count, counter, sums[stream], squares[stream])
    return sums.sum(axis=0), squares.sum(axis=0)


def mc_batch(
    stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int, mode: int, streams: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-player sums and sums of squares of ``samples`` prize samples (antithetic: of pair means), drawn from
    ``streams`` independent splitmix64 streams run in parallel (the result does not depend on the thread count),
    by the estimator ``mode`` (:data:`MC_PLAIN`, :data:`MC_ANTITHETIC` or :data:`MC_CONDITIONAL`; only its kernel
    is compiled). Plain sampling of up to 64 players is faster by :func:`mc_place_counts` (the façade uses it
    there)."""
    if mode == MC_PLAIN:
        return mc_batch_plain(stacks, pay, samples, seed, streams)
    if mode == MC_ANTITHETIC:
        return mc_batch_antithetic(stacks, pay, samples, seed, streams)
    return mc_batch_conditional(stacks, pay, samples, seed, streams)
