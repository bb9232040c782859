"""Numba kernels for the Malmuth-Harville ICM.

All kernels assume validated input: stacks strictly positive (busted players are removed by the façade),
payouts already reduced to the ``k`` paid places (``pay[m]`` for place ``m + 1``), ``1 <= k <= n``.

- :func:`icm_subset` — exact subset recursion over the players already placed (``sum_{m<k} C(n, m) * n``
  work), the oracle; returns the finish-place matrix.
- :func:`race_equity_adaptive` — the exponential-race integral by adaptive Gauss-Kronrod, whole loop compiled;
  at each node :func:`race_values_banded` gives every player at once with a forward pass of prefix count
  distributions and a backward pass of expected payouts, restricted to the count band that holds all but
  ``e^-L`` of the probability (``O(n * band)`` per node, band ~ ``sqrt(k)``), no division. Panels run in
  parallel for big fields (tests/icm/test_band.py holds the untruncated ``O(n k)`` reference).
- :func:`icm_places_panels` — the same race for the finish-place matrix (``O(n k^2)`` per node).
- :func:`mc_batch` — Streib's exponential clocks with plain, antithetic and conditional estimators;
  :func:`mc_place_counts` — plain sampling that counts finishing places;
  :func:`mc_sobol_shifted` — randomised QMC replicates; both return per-player sums and sums of squares.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerlab.stats.rng import GOLDEN, mix64, neg_log, open_unit, reflected_unit

# Gauss-Kronrod 7-15 on [-1, 1] (QUADPACK qk15): the Kronrod nodes xgk[0..7] (xgk[7] = 0), their weights,
# and the Gauss weights of the 7-point rule whose nodes are xgk[1], xgk[3], xgk[5], xgk[7].
GK_NODES = np.array(
    [
        0.991455371120812639206854697526329,
        0.949107912342758524526189684047851,
        0.864864423359769072789712788640926,
        0.741531185599394439863864773280788,
        0.586087235467691130294144845693013,
        0.405845151377397166906606412076961,
        0.207784955007898467600689403773245,
        0.000000000000000000000000000000000,
    ]
)
GK_WEIGHTS = np.array(
    [
        0.022935322010529224963732008058970,
        0.063092092629978553290700663189204,
        0.104790010322250183839876322541518,
        0.140653259715525918745189590510238,
        0.169004726639267902826583426598550,
        0.190350578064785409913256402421014,
        0.204432940075298892414161999234649,
        0.209482141084727828012999174891714,
    ]
)
GAUSS7_WEIGHTS = np.array(
    [
        0.129484966168869693270611432679082,
        0.279705391489276667901467771423780,
        0.381830050505118944950369775488975,
        0.417959183673469387755102040816327,
    ]
)


def gk15_rule() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 15 Kronrod nodes on [-1, 1] with Kronrod weights and embedded Gauss weights (0 off the Gauss nodes)."""
    nodes = np.concatenate([-GK_NODES[:7], [0.0], GK_NODES[6::-1]])
    kronrod = np.concatenate([GK_WEIGHTS[:7], [GK_WEIGHTS[7]], GK_WEIGHTS[6::-1]])
    gauss = np.zeros(15)
    gauss_half = np.array([0.0, GAUSS7_WEIGHTS[0], 0.0, GAUSS7_WEIGHTS[1], 0.0, GAUSS7_WEIGHTS[2], 0.0])
    gauss[:7] = gauss_half
    gauss[7] = GAUSS7_WEIGHTS[3]
    gauss[8:] = gauss_half[::-1]
    return nodes, kronrod, gauss


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


# --------------------------------------------------------------------------------------------------------------
# Exponential-race quadrature
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def count_mean_rate(stacks: np.ndarray, t: float) -> tuple[float, float]:
    """``mu(t) = sum_j (1 - e^{-s_j t})`` (expected number finished by t) and its derivative."""
    mu = 0.0
    rate = 0.0
    for j in range(stacks.shape[0]):
        x = stacks[j] * t
        mu += -np.expm1(-x)
        rate += stacks[j] * np.exp(-x)
    return mu, rate


LOG_WEIGHT = 1.0  # alpha in w = sqrt(mu(t)) + alpha log(1 + t)


@njit(cache=True, inline="always")
def _w_and_slope(mu: float, rate: float, t: float) -> tuple[float, float]:
    """``w(t) = sqrt(mu) + LOG_WEIGHT log(1 + t)`` and ``dw/dt`` from ``mu(t)`` and ``dmu/dt = rate``."""
    root = np.sqrt(mu)
    dw = LOG_WEIGHT / (1.0 + t)
    if root > 0.0:
        dw += rate / (2.0 * root)
    else:
        dw = np.inf
    return root + LOG_WEIGHT * np.log1p(t), dw


@njit(cache=True)
def race_variable(stacks: np.ndarray, t: float) -> tuple[float, float]:
    """The integration variable ``w(t) = sqrt(mu(t)) + alpha log(1 + t)`` and ``dw/dt``.

    ``sqrt(mu)`` makes the bumps of the count distribution (width ~sqrt(m) around m players out) about 1/2
    wide everywhere; the log term keeps a plateau of ``mu`` (one huge stack, or tiny stacks that bust late)
    from squeezing a whole range of times into a sliver of ``w``. Both terms are concave and increasing.
    """
    mu, rate = count_mean_rate(stacks, t)
    return _w_and_slope(mu, rate, t)


@njit(cache=True)
def time_of_w(stacks: np.ndarray, target: float, guess: float) -> float:
    """Solve ``w(t) = target`` by safeguarded Newton (``w`` is increasing and concave, so Newton from the left
    never overshoots; the bracket catches the rest)."""
    if target <= 0.0:
        return 0.0
    lo = 0.0
    hi = guess if guess > 0.0 else 1.0
    while race_variable(stacks, hi)[0] < target:
        hi *= 2.0
        if hi > 1e300:
            return hi
    t = min(max(guess, lo), hi)
    for _ in range(200):
        w, dw = race_variable(stacks, t)
        if abs(w - target) <= 1e-14 * target:
            return t  # a node off by 1e-14 relative changes nothing: the Jacobian is taken at the same t
        if w < target:
            lo = t
        else:
            hi = t
        nt = t + (target - w) / dw if dw > 0.0 and np.isfinite(dw) else 0.5 * (lo + hi)
        if not (lo < nt < hi):
            nt = 0.5 * (lo + hi)
        if abs(nt - t) <= 1e-14 * t or hi - lo <= 1e-14 * hi:
            return nt
        t = nt
    return t


@njit(cache=True)
def log_tail_bound(stacks: np.ndarray, t: float, k: int) -> float:
    """log of a Chernoff bound on ``P(at most k players finished by t)``: ``min_theta theta k + sum log(q + p
    e^-theta)`` over theta = 2^-4, 2^-3, ... (any theta > 0 gives a valid bound). The exponent is convex in theta,
    so along the increasing grid it falls then rises: the sweep stops at the first rise. As t grows the bound
    tends to ``-theta (n - k)``, so theta must be able to pass ``|log eps| / (n - k)``: up to 512 (the first
    version stopped at 32, which left fields with k = n - 1 paid, every final table paying all its places, a
    range up to t = 1e300 and ~3,500 nodes instead of ~100). Not past 512: ``e^-theta`` must not underflow, or
    ``log(q + p e^-theta)`` would drop its floor of ``-theta`` and the bound would undercut the probability."""
    n = stacks.shape[0]
    q = np.empty(n)
    for j in range(n):
        q[j] = np.exp(-stacks[j] * t)
    best = 0.0
    previous = np.inf
    theta = 0.0625
    for _ in range(14):  # theta = 2^-4 .. 2^9
        e = np.exp(-theta)
        acc = theta * k
        for j in range(n):
            acc += np.log(q[j] + (1.0 - q[j]) * e)
        if acc < best:
            best = acc
        if acc > previous:
            break
        previous = acc
        theta *= 2.0
    return best


@njit(cache=True)
def tail_time(stacks: np.ndarray, k: int, log_eps: float) -> float:
    """A time ``T`` with ``P(at most k finished by T) <= e^log_eps`` (bisection in log t on the bound)."""
    hi = 1.0
    while log_tail_bound(stacks, hi, k) > log_eps:
        hi *= 2.0
        if hi > 1e300:
            return hi
    lo = hi / 2.0
    if log_tail_bound(stacks, lo, k) <= log_eps:
        lo = 0.0
        while hi - lo > 1e-3 * hi:
            mid = 0.5 * (lo + hi)
            if log_tail_bound(stacks, mid, k) <= log_eps:
                hi = mid
            else:
                lo = mid
        return hi
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        if log_tail_bound(stacks, mid, k) <= log_eps:
            hi = mid
        else:
            lo = mid
    return hi


@njit(cache=True, fastmath=True)
def race_places(stacks: np.ndarray, k: int, t: float, out: np.ndarray) -> None:
    """``out[i, m] = s_i e^{-s_i t} P(exactly m of the others finished by t)``, ``m < k``.

    Prefix distributions forward, suffix distributions backward (all stored, ``O(n k)`` memory), then a
    truncated convolution per player: ``O(n k^2)``. The suffix rows are stored reversed
    (``suffix[i, k - 1 - a]`` = P(a of the players after i finished)) so each convolution term is a dot product
    of two forward slices, which vectorises.
    """
    n = stacks.shape[0]
    q = np.empty(n)
    p = np.empty(n)
    for i in range(n):
        x = stacks[i] * t
        q[i] = np.exp(-x)
        p[i] = -np.expm1(-x)
    top = k - 1
    suffix = np.zeros((n, k))
    suffix[n - 1, top] = 1.0
    for i in range(n - 1, 0, -1):
        for r in range(k - 1):  # r = top - a: a count a gets q_i of count a and p_i of count a - 1
            suffix[i - 1, r] = q[i] * suffix[i, r] + p[i] * suffix[i, r + 1]
        suffix[i - 1, top] = q[i] * suffix[i, top]
    prefix = np.zeros(k)
    prefix[0] = 1.0
    for i in range(n):
        c = stacks[i] * q[i]
        row = suffix[i]
        for m in range(k):
            x = prefix[:m + 1]
            y = row[top - m:]
            acc = 0.0
            for a in range(m + 1):
                acc += x[a] * y[a]
            out[i, m] = c * acc
        for a in range(k - 1, 0, -1):
            prefix[a] = q[i] * prefix[a] + p[i] * prefix[a - 1]
        prefix[0] = q[i] * prefix[0]


@njit(cache=True, parallel=True)
def icm_places_panels(
    stacks: np.ndarray, k: int, left: np.ndarray, right: np.ndarray, nodes: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Finish-place matrix by the race, integrated over each panel of ``w`` with every rule in ``weights``
    (rows: one weight per node, e.g. Kronrod and Gauss on the same nodes, evaluated once): shape
    ``(rules, panels, n, k)``."""
    n = stacks.shape[0]
    npan = left.shape[0]
    rules = weights.shape[0]
    acc = np.zeros((rules, npan, n, k))
    total = 0.0
    for j in range(n):
        total += stacks[j]
    for panel in prange(npan):
        half = 0.5 * (right[panel] - left[panel])
        mid = 0.5 * (right[panel] + left[panel])
        values = np.empty((n, k))
        guess = 0.0
        for r in range(nodes.shape[0]):
            w = mid + half * nodes[r]
            if guess <= 0.0:
                guess = w * w / total
            t = time_of_w(stacks, w, guess)
            guess = t
            dw = race_variable(stacks, t)[1]
            if not (dw > 0.0 and np.isfinite(dw)):
                continue
            race_places(stacks, k, t, values)
            for rule in range(rules):
                if weights[rule, r] == 0.0:
                    continue
                jac = weights[rule, r] * half / dw
                for i in range(n):
                    for m in range(k):
                        acc[rule, panel, i, m] += jac * values[i, m]
    return acc


# --------------------------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------------------------

MC_PLAIN = 0
MC_ANTITHETIC = 1
MC_CONDITIONAL = 2


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
        kth = np.partition(keys, k - 1)[k - 1]
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
    return poly * _POW2[1080 - int(j)]


@njit(cache=True)
def _payout_sample(
    clocks: np.ndarray, stacks: np.ndarray, pay: np.ndarray, keys: np.ndarray, order: np.ndarray,
    out: np.ndarray, conditional: bool, sorted_clocks: np.ndarray
) -> None:
    """One sample of every player's prize, written (not added) to ``out``."""
    n = clocks.shape[0]
    k = pay.shape[0]
    if not conditional:
        _rank_paid(clocks, keys, k, order)
        out[:] = 0.0
        for m in range(k):
            out[order[m]] = pay[m]
        return
    # conditional Monte Carlo: integrate each player's own clock given the others'. With T'_(m) the m-th
    # smallest of the other clocks (T'_(0) = 0), P(place m+1 | others) = e^{-s T'_(m)} - e^{-s T'_(m+1)}, so
    # E[prize | others] = pay[0] + sum_{m=1..k} (pay[m] - pay[m-1]) e^{-s T'_(m)} with pay[k] = 0.
    # The others' m-th smallest clock is sorted[m - 1] up to player i's own rank r and sorted[m] above it, so
    # each player's terms come from two contiguous, branch-free loops that vectorise with :func:`_exp_neg`.
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


@njit(cache=True, inline="always")
def _stream(seed: int, stream: int, samples: int, streams: int) -> tuple[np.uint64, int]:
    """Start counter and sample count of one of ``streams`` splitmix64 streams sharing ``samples`` (the layout of
    every sampling kernel here, so a seed gives the same draws whichever kernel or thread runs the stream)."""
    per = (samples + streams - 1) // streams
    count = max(0, min(samples, (stream + 1) * per) - stream * per)
    return np.uint64(seed) * GOLDEN + np.uint64(stream + 1) * np.uint64(0xD1B54A32D192ED03), count


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
    sorted_clocks = np.empty(n)
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
            _payout_sample(clocks, stacks, pay, keys, order, value, False, sorted_clocks)
            _payout_sample(partner, stacks, pay, keys, order, value2, False, sorted_clocks)
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
        _payout_sample(clocks, stacks, pay, keys, order, value, True, sorted_clocks)
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
            counter, count = _stream(seed, stream, samples, streams)
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


@njit(cache=True, parallel=True)
def mc_batch(
    stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int, mode: int, streams: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-player sums and sums of squares of ``samples`` prize samples (antithetic: of pair means), drawn from
    ``streams`` independent splitmix64 streams run in parallel (the result does not depend on the thread count).
    Plain sampling of up to 64 players is faster by :func:`mc_place_counts` (the façade uses it there)."""
    n = stacks.shape[0]
    sums = np.zeros((streams, n))
    squares = np.zeros((streams, n))
    for stream in prange(streams):
        counter, count = _stream(seed, stream, samples, streams)
        if mode == MC_PLAIN:
            _plain_selected(stacks, pay, count, counter, sums[stream], squares[stream])
        elif mode == MC_ANTITHETIC:
            _antithetic(stacks, pay, count, counter, sums[stream], squares[stream])
        else:
            _conditional(stacks, pay, count, counter, sums[stream], squares[stream])
    return sums.sum(axis=0), squares.sum(axis=0)


# --------------------------------------------------------------------------------------------------------------
# Banded race (the default): only the counts that carry probability are kept
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def race_point(stacks: np.ndarray, t: float, q: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """Fill ``q = e^{-s t}``, ``p = 1 - q`` and return ``(w(t), dw/dt)`` of :func:`race_variable`.

    One transcendental per player: below ``x = ln 2`` ``expm1`` gives ``p`` and ``q = 1 + expm1`` (no
    cancellation, q > 1/2), above it ``exp`` gives ``q`` and ``p = 1 - q`` (p > 1/2): both accurate to an ulp.
    """
    mu = 0.0
    rate = 0.0
    for j in range(stacks.shape[0]):
        x = stacks[j] * t
        if x < 0.6931471805599453:
            em = np.expm1(-x)
            pj = -em
            qj = 1.0 + em
        else:
            qj = np.exp(-x)
            pj = 1.0 - qj
        q[j] = qj
        p[j] = pj
        mu += pj
        rate += stacks[j] * qj
    return _w_and_slope(mu, rate, t)


@njit(cache=True)
def node_time(
    stacks: np.ndarray, target: float, t: float, w: float, dw: float, q: np.ndarray, p: np.ndarray
) -> tuple[float, float]:
    """Solve ``w(t) = target`` by plain Newton from a point ``t`` left of the root (``w(t) <= target``, with its
    ``w`` and ``dw``): ``w`` is concave and increasing, so the tangent lies above it and every step stays left
    of the root and converges monotonically (quadratically near it; 2-3 steps from the previous node). Returns
    ``(t, dw/dt)`` at the last point evaluated, and ``q``, ``p`` hold that point's values."""
    for _ in range(100):
        if abs(w - target) <= 1e-14 * target:
            return t, dw
        nt = t + (target - w) / dw
        if not (nt > t) or not np.isfinite(nt):
            return t, dw  # rounding: no further progress possible
        t = nt
        w, dw = race_point(stacks, t, q, p)
    return t, dw


@njit(cache=True)
def band_limits(p: np.ndarray, k: int, log_eps: float, lo: np.ndarray, hi: np.ndarray) -> None:
    """Count band ``[lo[i], hi[i]]`` of ``A_i`` = number of players ``< i`` finished (``P(A_i = a)`` = prefix).

    Bernstein: ``P(A_i - mu_i >= d) <= exp(-d^2 / (2 (v_i + d/3)))`` (and the same below) with
    ``mu_i = sum_{j<i} p_j``, ``v_i = sum_{j<i} p_j q_j``, so ``d_i = L/3 + sqrt(L^2/9 + 2 L v_i)``
    (``L = log_eps > 0``) leaves at most ``e^-L`` above and below; the lower edge uses the smaller of that and
    Maurer's ``sqrt(2 L mu_i)`` (nonnegative summands: ``P(A <= mu - d) <= exp(-d^2 / (2 mu))``). ``L <= 0``
    means no truncation. The bands are then made monotone with steps of 0 or 1 (``lo_{i+1} <= lo_i + 1``,
    ``hi_i <= hi_{i+1} <= hi_i + 1``): each adjustment only widens a band or uses ``A_{i+1} >= A_i`` and
    ``A_{i+1} <= A_i + 1``, so the tail bound still holds; ``hi <= k - 1`` (counts >= k are paid 0) and a band is
    empty (``lo = hi + 1``) once ``k`` or more players are out with overwhelming probability.
    """
    n = p.shape[0]
    mu = 0.0
    v = 0.0
    third = log_eps / 3.0
    lo[0] = 0
    hi[0] = 0
    if log_eps <= 0.0:  # no truncation: the full support [0, min(i, k - 1)] (not inf: callers use fastmath)
        for i in range(1, n):
            lo[i] = 0
            hi[i] = min(i, k - 1)
        return
    for i in range(1, n):
        pj = p[i - 1]
        mu += pj
        v += pj * (1.0 - pj)
        d = third + np.sqrt(third * third + 2.0 * log_eps * v)
        # lower tail: also Maurer's bound for nonnegative summands, P(A <= mu - d) <= exp(-d^2 / (2 mu))
        a = mu - min(d, np.sqrt(2.0 * log_eps * mu))
        b = mu + d
        # lower edge: at least the previous one (A is nondecreasing), at most one more
        new_lo = lo[i - 1]
        if a >= new_lo + 1.0:
            new_lo += 1
        # upper edge: at most one more than before (A grows by at most 1), never below the previous one
        new_hi = hi[i - 1]
        if b > new_hi and new_hi < k - 1:
            new_hi += 1
        if new_lo > new_hi + 1:
            new_lo = new_hi + 1
        lo[i] = new_lo
        hi[i] = new_hi


@njit(cache=True, fastmath=True)
def race_values_banded(
    stacks: np.ndarray, pay: np.ndarray, t: float, out: np.ndarray, block: int, log_eps: float,
    lo: np.ndarray, hi: np.ndarray, checkpoints: np.ndarray, rows: np.ndarray, g: np.ndarray, prefix: np.ndarray,
    q: np.ndarray, p: np.ndarray, qp_ready: bool = False,
) -> None:
    """``out[i] = s_i e^{-s_i t} sum_m pay[m] P(exactly m of the others finished by t)`` for every player,
    restricted to the count bands of :func:`band_limits` (work ``O(sum_i band_i)``).

    Backward: ``G_i[a] = E[pay[a + #finished among players > i]]`` from ``G_{n-1} = pay`` by
    ``G_i[a] = q_{i+1} G_{i+1}[a] + p_{i+1} G_{i+1}[a+1]``. Forward: ``P_i[a] = P(#finished among players < i
    = a)``. Then ``out[i] = s_i q_i sum_a P_i[a] G_i[a]``. Only convex combinations, never a division.
    The backward pass keeps one checkpoint row per ``block`` players and recomputes each block's rows
    during the forward pass (memory ``O((n / block + block) k)`` instead of ``O(n k)``).

    Arrays are absolute-indexed by count (width ``k + 2``); every row written gets a zero just below and just
    above its band, and the bands move by at most one per player, so the recurrences need no bounds tests. Truncation
    error: the forward pass drops the mass of ``A_i`` outside band ``i``; the backward pass replaces ``G_j`` by 0
    outside band ``j``, which changes ``sum_a P_i[a] G_i[a]`` only on paths with some ``A_j`` outside band ``j``.
    Both are at most ``max(pay) * sum_j P(A_j outside band j) <= 2 n e^-L max(pay)`` per player and node, and
    ``integral s_i e^{-s_i t} dt = 1`` carries that bound to the equity. Scratch arrays: ``lo, hi, q, p`` (n),
    ``checkpoints`` (``ceil(n / block)``, k + 2), ``rows`` (block, k + 2), ``g`` and ``prefix`` (2, k + 2).
    ``qp_ready``: ``q``, ``p`` already hold ``e^{-s t}`` and ``1 - e^{-s t}``.
    """
    n = stacks.shape[0]
    k = pay.shape[0]
    if not qp_ready:  # else q, p at this t come from the node search (:func:`race_point`)
        race_point(stacks, t, q, p)
    band_limits(p, k, log_eps, lo, hi)
    nblocks = (n + block - 1) // block
    # backward sweep: G_i on [lo_i, hi_i] with zero guards at lo_i - 1 and hi_i + 1, in two alternating rows
    # (out-of-place updates over slices vectorise; in-place ones and loops over variable ranges do not);
    # the checkpoint of block b is G at its last player
    for a in range(k + 2):
        g[0, a] = 0.0
    for a in range(lo[n - 1], hi[n - 1] + 1):
        g[0, a] = pay[a]
    cur = 0
    for i in range(n - 1, -1, -1):
        if i == n - 1 or (i + 1) % block == 0:
            b = i // block
            for a in range(k + 2):
                checkpoints[b, a] = g[cur, a]
        if i > 0:
            _step_down(g[cur], g[1 - cur], q[i], p[i], lo[i - 1], hi[i - 1])
            cur = 1 - cur
    for a in range(k + 2):
        prefix[0, a] = 0.0
        prefix[1, a] = 0.0
    prefix[0, 0] = 1.0
    cur = 0
    for b in range(nblocks):
        first = b * block
        last = min(n, first + block) - 1
        # rebuild G for this block from its checkpoint, going backward
        rl = last - first
        for a in range(k + 2):
            rows[rl, a] = checkpoints[b, a]
        for i in range(last, first, -1):
            r = i - first
            _step_down(rows[r], rows[r - 1], q[i], p[i], lo[i - 1], hi[i - 1])
        for i in range(first, last + 1):
            r = i - first
            x = prefix[cur, lo[i]:hi[i] + 1]
            y = rows[r, lo[i]:hi[i] + 1]
            acc = 0.0
            for a in range(x.shape[0]):
                acc += x[a] * y[a]
            out[i] = stacks[i] * q[i] * acc
            if i + 1 < n:
                _step_up(prefix[cur], prefix[1 - cur], q[i], p[i], lo[i + 1], hi[i + 1])
                cur = 1 - cur


@njit(cache=True, fastmath=True, inline="always")
def _step_down(src: np.ndarray, dst: np.ndarray, qi: float, pi: float, lo: int, hi: int) -> None:
    """``dst[a] = qi src[a] + pi src[a + 1]`` on ``[lo, hi]``; zero guards at ``lo - 1`` and ``hi + 1``."""
    d = dst[lo:hi + 1]
    s0 = src[lo:hi + 1]
    s1 = src[lo + 1:hi + 2]
    for a in range(d.shape[0]):
        d[a] = qi * s0[a] + pi * s1[a]
    if lo > 0:
        dst[lo - 1] = 0.0
    dst[hi + 1] = 0.0


@njit(cache=True, fastmath=True, inline="always")
def _step_up(src: np.ndarray, dst: np.ndarray, qi: float, pi: float, lo: int, hi: int) -> None:
    """``dst[a] = qi src[a] + pi src[a - 1]`` on ``[lo, hi]`` (``src[-1]`` = 0); zero guards around it."""
    start = lo
    if lo == 0:
        dst[0] = qi * src[0]
        start = 1
    if hi >= start:
        d = dst[start:hi + 1]
        s0 = src[start:hi + 1]
        s1 = src[start - 1:hi]
        for a in range(d.shape[0]):
            d[a] = qi * s0[a] + pi * s1[a]
    if lo > 0:
        dst[lo - 1] = 0.0
    dst[hi + 1] = 0.0


DEFAULT_LOG_EPS = 45.0  # plus 2 log(n): e^-45 / n^2 per band edge


def _race_equity_panels(
    stacks: np.ndarray, pay: np.ndarray, left: np.ndarray, right: np.ndarray, nodes: np.ndarray,
    kronrod: np.ndarray, gauss: np.ndarray, block: int, log_eps: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the banded race over panels ``[left[p], right[p]]`` of ``w`` (see :func:`race_variable`):
    ``dt = dw / w'(t)``, ``t(w)`` by Newton from the previous node. Returns the Kronrod and the embedded Gauss
    estimate per panel and player, shape ``(panels, n)``."""
    n = stacks.shape[0]
    k = pay.shape[0]
    npan = left.shape[0]
    kron = np.zeros((npan, n))
    gau = np.zeros((npan, n))
    total = 0.0
    for j in range(n):
        total += stacks[j]
    nblocks = (n + block - 1) // block
    for panel in prange(npan):
        half = 0.5 * (right[panel] - left[panel])
        mid = 0.5 * (right[panel] + left[panel])
        values = np.empty(n)
        lo = np.empty(n, dtype=np.int64)
        hi = np.empty(n, dtype=np.int64)
        q = np.empty(n)
        p = np.empty(n)
        checkpoints = np.empty((nblocks, k + 2))
        rows = np.empty((block, k + 2))
        g = np.empty((2, k + 2))
        prefix = np.empty((2, k + 2))
        t = 0.0
        wt = 0.0
        dw = 0.0
        for r in range(nodes.shape[0]):  # nodes ascending: each search starts from the previous node
            w = mid + half * nodes[r]
            if r == 0 or not (dw > 0.0 and np.isfinite(dw)):
                t = time_of_w(stacks, w, w * w / total)
                wt, dw = race_point(stacks, t, q, p)
            else:
                t, dw = node_time(stacks, w, t, wt, dw, q, p)
                wt = w
            if not (dw > 0.0 and np.isfinite(dw)):
                continue
            jac = half / dw
            race_values_banded(
                stacks, pay, t, values, block, log_eps, lo, hi, checkpoints, rows, g, prefix, q, p, True
            )
            wk = kronrod[r] * jac
            wg = gauss[r] * jac
            for i in range(n):
                kron[panel, i] += wk * values[i]
                gau[panel, i] += wg * values[i]
    return kron, gau


race_equity_panels = njit(cache=True, parallel=True)(_race_equity_panels)
race_equity_panels_serial = njit(cache=True)(_race_equity_panels)


@njit(cache=True)
def race_equity_adaptive(
    stacks: np.ndarray, pay: np.ndarray, w_end: float, rtol: float, scale_floor: float, block: int,
    log_eps: float, parallel: bool, nodes: np.ndarray, kronrod: np.ndarray, gauss: np.ndarray,
) -> tuple[np.ndarray, int]:
    """Adaptive Gauss-Kronrod 7-15 over ``w in [0, w_end]``, whole loop compiled (no Python per round).

    Start with panels at most 3 wide; keep a panel once ``max_i |K15_i - G7_i| <= tau * scale_i`` with
    ``tau = 0.1 sqrt(rtol)``: the 15-point Kronrod error is about the square of the 7-point Gauss error for
    these analytic integrands (measured, see docs/algorithms.md), so the kept value is ~``0.01 rtol`` accurate
    per panel. Otherwise bisect. ``scale_i`` = the first round's total for player i, at least ``scale_floor``.
    Returns the per-player total and the number of integrand evaluations.
    """
    n = stacks.shape[0]
    tau = 0.01 * np.sqrt(rtol)
    npan = max(2, int(np.ceil(w_end / 3.0)))
    left = np.empty(npan)
    right = np.empty(npan)
    for j in range(npan):
        left[j] = w_end * j / npan
        right[j] = w_end * (j + 1) / npan
    total = np.zeros(n)
    scale = np.empty(n)
    count = 0
    for depth in range(40):
        if parallel:
            kron, gau = race_equity_panels(stacks, pay, left, right, nodes, kronrod, gauss, block, log_eps)
        else:
            kron, gau = race_equity_panels_serial(stacks, pay, left, right, nodes, kronrod, gauss, block, log_eps)
        m = left.shape[0]
        count += nodes.shape[0] * m
        if depth == 0:
            for i in range(n):
                acc = 0.0
                for j in range(m):
                    acc += kron[j, i]
                scale[i] = max(abs(acc), scale_floor)
        bad = np.zeros(m, dtype=np.bool_)
        nbad = 0
        for j in range(m):
            err = 0.0
            for i in range(n):
                e = abs(kron[j, i] - gau[j, i]) / scale[i]
                if e > err:
                    err = e
            if err > tau and right[j] - left[j] > 1e-9 * w_end and depth < 39:
                bad[j] = True
                nbad += 1
            else:
                for i in range(n):
                    total[i] += kron[j, i]
        if nbad == 0:
            break
        new_left = np.empty(2 * nbad)
        new_right = np.empty(2 * nbad)
        c = 0
        for j in range(m):
            if bad[j]:
                mid = 0.5 * (left[j] + right[j])
                new_left[c] = left[j]
                new_right[c] = mid
                new_left[c + 1] = mid
                new_right[c + 1] = right[j]
                c += 2
        left = new_left
        right = new_right
    return total, count


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
        sorted_clocks = np.empty(n)
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
                _payout_sample(clocks, stacks, pay, keys, order, value, False, sorted_clocks)
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
