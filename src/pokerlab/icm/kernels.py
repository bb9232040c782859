"""Numba kernels for the Malmuth-Harville ICM.

All kernels assume validated input: stacks strictly positive (busted players are removed by the façade),
payouts already reduced to the ``k`` paid places (``pay[m]`` for place ``m + 1``), ``1 <= k <= n``.

- :func:`icm_subset` — exact subset recursion over the players already placed (``sum_{m<k} C(n, m) * n``
  work), the oracle; returns the finish-place matrix.
- :func:`icm_quadrature_panels` — the exponential-race integrand at Gauss-Kronrod nodes, every player at once
  with a forward pass of prefix count distributions and a backward pass of expected payouts: ``O(n k)`` per
  node, no division. Panels run in parallel.
- :func:`icm_places_panels` — the same race for the finish-place matrix (``O(n k^2)`` per node).
- :func:`mc_batch` — Streib's exponential clocks with plain, antithetic, uniform-input (Sobol) and
  conditional estimators; returns per-player sums and sums of squares.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

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


@njit(cache=True, fastmath=True)
def race_values(stacks: np.ndarray, pay: np.ndarray, t: float, out: np.ndarray, block: int) -> None:
    """``out[i] = s_i e^{-s_i t} sum_m pay[m] P(exactly m of the others finished by t)`` for every player.

    Backward: ``G_i[a] = E[pay[a + #finished among players > i]]`` from ``G_{n-1} = pay`` by
    ``G_i[a] = q_{i+1} G_{i+1}[a] + p_{i+1} G_{i+1}[a+1]``. Forward: ``P_i[a] = P(#finished among players < i
    = a)``. Then ``out[i] = s_i q_i sum_a P_i[a] G_i[a]``. Only convex combinations, never a division.
    The backward pass keeps one checkpoint row per ``block`` players and recomputes each block's rows
    during the forward pass (memory ``O((n / block + block) k)`` instead of ``O(n k)``).
    """
    n = stacks.shape[0]
    k = pay.shape[0]
    q = np.empty(n)
    p = np.empty(n)
    for i in range(n):
        x = stacks[i] * t
        q[i] = np.exp(-x)
        p[i] = -np.expm1(-x)
    nblocks = (n + block - 1) // block
    checkpoints = np.empty((nblocks, k + 1))
    g = np.zeros(k + 1)
    for a in range(k):
        g[a] = pay[a]
    g[k] = 0.0
    # backward sweep: row i is G_i; the checkpoint of block b is G at its last player
    for i in range(n - 1, -1, -1):
        if i == n - 1 or (i + 1) % block == 0:
            b = i // block
            for a in range(k + 1):
                checkpoints[b, a] = g[a]
        if i > 0:
            qi = q[i]
            pi = p[i]
            for a in range(k):
                g[a] = qi * g[a] + pi * g[a + 1]
    rows = np.empty((block, k + 1))
    prefix = np.zeros(k + 1)
    prefix[0] = 1.0
    top = 0  # highest index where prefix may be non-zero
    for b in range(nblocks):
        first = b * block
        last = min(n, first + block) - 1
        # rebuild G for this block from its checkpoint, going backward
        for a in range(k + 1):
            rows[last - first, a] = checkpoints[b, a]
        for i in range(last, first, -1):
            qi = q[i]
            pi = p[i]
            r = i - first
            for a in range(k):
                rows[r - 1, a] = qi * rows[r, a] + pi * rows[r, a + 1]
            rows[r - 1, k] = 0.0
        for i in range(first, last + 1):
            r = i - first
            acc = 0.0
            for a in range(top + 1):
                acc += prefix[a] * rows[r, a]
            out[i] = stacks[i] * q[i] * acc
            qi = q[i]
            pi = p[i]
            new_top = min(top + 1, k - 1)
            if new_top > top:
                prefix[new_top] = pi * prefix[top]
            for a in range(min(top, k - 1), 0, -1):
                prefix[a] = qi * prefix[a] + pi * prefix[a - 1]
            prefix[0] = qi * prefix[0]
            top = new_top


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


@njit(cache=True)
def race_variable(stacks: np.ndarray, t: float) -> tuple[float, float]:
    """The integration variable ``w(t) = sqrt(mu(t)) + alpha log(1 + t)`` and ``dw/dt``.

    ``sqrt(mu)`` makes the bumps of the count distribution (width ~sqrt(m) around m players out) about 1/2
    wide everywhere; the log term keeps a plateau of ``mu`` (one huge stack, or tiny stacks that bust late)
    from squeezing a whole range of times into a sliver of ``w``. Both terms are concave and increasing.
    """
    mu, rate = count_mean_rate(stacks, t)
    root = np.sqrt(mu)
    dw = LOG_WEIGHT / (1.0 + t)
    if root > 0.0:
        dw += rate / (2.0 * root)
    else:
        dw = np.inf
    return root + LOG_WEIGHT * np.log1p(t), dw


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
    e^-theta)`` over a few theta (any theta > 0 gives a valid bound)."""
    best = 0.0
    theta = 0.0625
    for _ in range(10):
        e = np.exp(-theta)
        acc = theta * k
        for j in range(stacks.shape[0]):
            x = stacks[j] * t
            q = np.exp(-x)
            acc += np.log(q + (1.0 - q) * e)
        if acc < best:
            best = acc
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


def _quadrature_panels(
    stacks: np.ndarray,
    pay: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    nodes: np.ndarray,
    kronrod: np.ndarray,
    gauss: np.ndarray,
    block: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the race over panels ``[left[p], right[p]]`` of ``w`` (see :func:`race_variable`).

    ``dt = dw / w'(t)``; ``t(w)`` by :func:`time_of_w`. Returns the Kronrod and the embedded Gauss
    estimate per panel and player, shape ``(panels, n)``; their difference is the error estimate.
    """
    n = stacks.shape[0]
    npan = left.shape[0]
    kron = np.zeros((npan, n))
    gau = np.zeros((npan, n))
    total = 0.0
    for j in range(n):
        total += stacks[j]
    for panel in prange(npan):
        half = 0.5 * (right[panel] - left[panel])
        mid = 0.5 * (right[panel] + left[panel])
        values = np.empty(n)
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
            jac = half / dw
            race_values(stacks, pay, t, values, block)
            wk = kronrod[r] * jac
            wg = gauss[r] * jac
            for i in range(n):
                kron[panel, i] += wk * values[i]
                gau[panel, i] += wg * values[i]
    return kron, gau


# the same kernel twice: threads pay off only for big fields (thread start-up and contention cost more than a
# small field's whole integral)
icm_quadrature_panels = njit(cache=True, parallel=True)(_quadrature_panels)
icm_quadrature_panels_serial = njit(cache=True)(_quadrature_panels)


@njit(cache=True)
def race_places(stacks: np.ndarray, k: int, t: float, out: np.ndarray) -> None:
    """``out[i, m] = s_i e^{-s_i t} P(exactly m of the others finished by t)``, ``m < k``.

    Prefix distributions forward, suffix distributions backward (all stored, ``O(n k)`` memory), then a
    truncated convolution per player: ``O(n k^2)``.
    """
    n = stacks.shape[0]
    q = np.empty(n)
    p = np.empty(n)
    for i in range(n):
        x = stacks[i] * t
        q[i] = np.exp(-x)
        p[i] = -np.expm1(-x)
    suffix = np.zeros((n, k))
    suffix[n - 1, 0] = 1.0
    for i in range(n - 1, 0, -1):
        for a in range(k - 1, 0, -1):
            suffix[i - 1, a] = q[i] * suffix[i, a] + p[i] * suffix[i, a - 1]
        suffix[i - 1, 0] = q[i] * suffix[i, 0]
    prefix = np.zeros(k)
    prefix[0] = 1.0
    for i in range(n):
        c = stacks[i] * q[i]
        for m in range(k):
            acc = 0.0
            for a in range(m + 1):
                acc += prefix[a] * suffix[i, m - a]
            out[i, m] = c * acc
        for a in range(k - 1, 0, -1):
            prefix[a] = q[i] * prefix[a] + p[i] * prefix[a - 1]
        prefix[0] = q[i] * prefix[0]


@njit(cache=True, parallel=True)
def icm_places_panels(
    stacks: np.ndarray, k: int, left: np.ndarray, right: np.ndarray, nodes: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Finish-place matrix by the race, integrated with the given rule over each panel of ``w``: shape
    ``(panels, n, k)``."""
    n = stacks.shape[0]
    npan = left.shape[0]
    acc = np.zeros((npan, n, k))
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
            jac = weights[r] * half / dw
            race_places(stacks, k, t, values)
            for i in range(n):
                for m in range(k):
                    acc[panel, i, m] += jac * values[i, m]
    return acc


# --------------------------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------------------------

MC_PLAIN = 0
MC_ANTITHETIC = 1
MC_CONDITIONAL = 2


@njit(cache=True, inline="always")
def _splitmix(state: np.uint64) -> tuple[np.uint64, float]:
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    # 53 random bits in (0, 1]: never 0, so -log is finite
    u = (float(z >> np.uint64(11)) + 1.0) * (1.0 / 9007199254740992.0)
    return state, u


@njit(cache=True, inline="always")
def _rank_paid(clocks: np.ndarray, keys: np.ndarray, k: int, order: np.ndarray) -> None:
    """``order[m]`` = player finishing in place ``m + 1`` for ``m < k`` (smallest clocks first).

    Clocks are positive doubles, whose bit patterns sort like the numbers; the player index goes in the low
    16 bits so one integer sort ranks them (clocks equal in their top 36 mantissa bits, probability ~1e-11 per
    pair, are ordered by index). Hence at most 65,536 players.
    """
    n = clocks.shape[0]
    bits = clocks.view(np.int64)
    for i in range(n):
        keys[i] = (bits[i] & np.int64(~0xFFFF)) | np.int64(i)
    if k < n // 4:
        kth = np.partition(keys, k - 1)[k - 1]
        c = 0
        for i in range(n):
            if keys[i] <= kth:
                order[c] = keys[i]
                c += 1
        order[:k] = np.sort(order[:k])
    else:
        order[:n] = np.sort(keys)
    for m in range(k):
        order[m] = order[m] & np.int64(0xFFFF)


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
    kk = min(k + 1, n)
    _rank_paid(clocks, keys, kk, order)
    for m in range(kk):
        sorted_clocks[m] = clocks[order[m]]
    for i in range(n):
        s = stacks[i]
        acc = pay[0]
        shift = 0
        for m in range(1, k + 1):
            if m - 1 + shift < kk and order[m - 1 + shift] == i:
                shift = 1
            idx = m - 1 + shift
            if idx >= kk:
                break  # fewer than m other players left: that term's probability is 0
            nxt = pay[m] if m < k else 0.0
            acc += (nxt - pay[m - 1]) * np.exp(-s * sorted_clocks[idx])
        out[i] = acc


@njit(cache=True, parallel=True)
def mc_batch(
    stacks: np.ndarray, pay: np.ndarray, samples: int, seed: int, mode: int, threads: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-player sums and sums of squares of ``samples`` prize samples (antithetic: of pair means)."""
    n = stacks.shape[0]
    sums = np.zeros((threads, n))
    squares = np.zeros((threads, n))
    per = (samples + threads - 1) // threads
    for th in prange(threads):
        start = th * per
        stop = min(samples, start + per)
        state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(th + 1) * np.uint64(0xD1B54A32D192ED03)
        clocks = np.empty(n)
        clocks2 = np.empty(n)
        keys = np.empty(n, dtype=np.int64)
        order = np.empty(n, dtype=np.int64)
        sorted_clocks = np.empty(n)
        value = np.empty(n)
        value2 = np.empty(n)
        inv = 1.0 / stacks
        for _ in range(start, stop):
            if mode == MC_ANTITHETIC:
                for i in range(n):
                    state, u = _splitmix(state)
                    clocks[i] = -np.log(u) * inv[i]
                    # the antithetic clock uses 1 - u, in [0, 1): u = 1 (probability 2^-53) maps to a huge clock
                    clocks2[i] = -np.log1p(-u) * inv[i] if u < 1.0 else 745.0 * inv[i]
                _payout_sample(clocks, stacks, pay, keys, order, value, False, sorted_clocks)
                _payout_sample(clocks2, stacks, pay, keys, order, value2, False, sorted_clocks)
                for i in range(n):
                    v = 0.5 * (value[i] + value2[i])
                    sums[th, i] += v
                    squares[th, i] += v * v
            else:
                for i in range(n):
                    state, u = _splitmix(state)
                    clocks[i] = -np.log(u) * inv[i]
                _payout_sample(clocks, stacks, pay, keys, order, value, mode == MC_CONDITIONAL, sorted_clocks)
                for i in range(n):
                    v = value[i]
                    sums[th, i] += v
                    squares[th, i] += v * v
    return sums.sum(axis=0), squares.sum(axis=0)


@njit(cache=True)
def mc_points(stacks: np.ndarray, pay: np.ndarray, uniforms: np.ndarray, conditional: bool) -> np.ndarray:
    """Mean prize per player over the given uniform points (rows of ``uniforms``, e.g. scrambled Sobol)."""
    n = stacks.shape[0]
    total = np.zeros(n)
    clocks = np.empty(n)
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    sorted_clocks = np.empty(n)
    value = np.empty(n)
    for r in range(uniforms.shape[0]):
        for i in range(n):
            u = 1.0 - uniforms[r, i]  # Sobol points are in [0, 1): 1 - u is in (0, 1]
            clocks[i] = -np.log(u) / stacks[i]
        _payout_sample(clocks, stacks, pay, keys, order, value, conditional, sorted_clocks)
        total += value
    return total / uniforms.shape[0]
