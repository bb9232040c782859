"""The exact ICM method by default: the exponential-race integral by adaptive Gauss-Kronrod, whole loop compiled
(:func:`race_equity_adaptive`). At each node :func:`race_values_banded` gives every player at once with a forward
pass of prefix count distributions and a backward pass of expected payouts, restricted to the count band that
holds all but ``e^-L`` of the probability (``O(n * band)`` per node, band ~ ``sqrt(k)``), no division. Panels
run in parallel for big fields (tests/icm/test_band.py holds the untruncated ``O(n k)`` reference)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.icm.gauss_kronrod import MAX_DEPTH, accept_or_split, acceptance_tolerance, first_scale, initial_panels
from pokerlab.icm.race import _w_and_slope, time_of_w

# --------------------------------------------------------------------------------------------------------------
# Banded race (the default): only the counts that carry probability are kept
# --------------------------------------------------------------------------------------------------------------


class BandWork(NamedTuple):
    """Scratch of :func:`race_values_banded` (see :func:`band_work`): the band edges ``lo``, ``hi`` (n, int64),
    the backward pass's ``checkpoints`` (``ceil(n / block)``, k + 2) and ``rows`` (block, k + 2), the two
    alternating rows ``g`` and ``prefix`` (2, k + 2), and ``q = e^{-s t}``, ``p = 1 - q`` per player (n)."""

    lo: np.ndarray
    hi: np.ndarray
    checkpoints: np.ndarray
    rows: np.ndarray
    g: np.ndarray
    prefix: np.ndarray
    q: np.ndarray
    p: np.ndarray


@njit(cache=True)
def band_work(n: int, k: int, block: int) -> BandWork:
    """Scratch for :func:`race_values_banded` with ``n`` players, ``k`` paid places and blocks of ``block``."""
    nblocks = (n + block - 1) // block
    return BandWork(np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty((nblocks, k + 2)),
                    np.empty((block, k + 2)), np.empty((2, k + 2)), np.empty((2, k + 2)), np.empty(n), np.empty(n))


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
    stacks: np.ndarray, pay: np.ndarray, t: float, out: np.ndarray, block: int, log_eps: float, work: BandWork,
    qp_ready: bool = False,
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
    ``integral s_i e^{-s_i t} dt = 1`` carries that bound to the equity. Scratch: ``work`` (:func:`band_work`).
    ``qp_ready``: ``work.q``, ``work.p`` already hold ``e^{-s t}`` and ``1 - e^{-s t}``.
    """
    lo, hi, checkpoints, rows, g, prefix, q, p = work
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
    for panel in prange(npan):
        half = 0.5 * (right[panel] - left[panel])
        mid = 0.5 * (right[panel] + left[panel])
        values = np.empty(n)
        work = band_work(n, k, block)
        q, p = work.q, work.p
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
            race_values_banded(stacks, pay, t, values, block, log_eps, work, True)
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
    """Adaptive Gauss-Kronrod 7-15 over ``w in [0, w_end]`` by the one rule of :mod:`pokerlab.icm.gauss_kronrod`,
    whole loop compiled (no Python per round). ``scale_i`` = the first round's total for player i, at least
    ``scale_floor``. Returns the per-player total and the number of integrand evaluations.
    """
    n = stacks.shape[0]
    tau = acceptance_tolerance(rtol)
    left, right = initial_panels(w_end)
    total = np.zeros(n)
    scale = np.empty(n)
    count = 0
    for depth in range(MAX_DEPTH):
        if parallel:
            kron, gau = race_equity_panels(stacks, pay, left, right, nodes, kronrod, gauss, block, log_eps)
        else:
            kron, gau = race_equity_panels_serial(stacks, pay, left, right, nodes, kronrod, gauss, block, log_eps)
        count += nodes.shape[0] * left.shape[0]
        if depth == 0:
            first_scale(kron, scale_floor, scale)
        left, right = accept_or_split(kron, gau, left, right, scale, tau, w_end, depth == MAX_DEPTH - 1, total)
        if left.shape[0] == 0:
            break
    return total, count
