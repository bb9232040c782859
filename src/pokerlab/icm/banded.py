"""The exact ICM method by default: the exponential-race integral by adaptive Gauss-Kronrod, whole loop compiled
and resumable (:func:`race_equity_advance` goes on for a budget of evaluations from an :class:`AdaptiveState`, so
that a 16 s integration runs in calls of a tenth of a second; :func:`race_equity_adaptive` is all of it in one
call). At each node :func:`race_values_banded` gives every player at once with a forward
pass of prefix count distributions and a backward pass of expected payouts, restricted to the count band that
holds all but ``e^-L`` of the probability (``O(n * band)`` per node, band ~ ``sqrt(k)``), no division. Panels
run in parallel (tests/icm/test_band.py holds the untruncated ``O(n k)`` reference)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import get_thread_id, njit, prange  # type: ignore[attr-defined]  # numba exports it untyped

from pokerlab.icm.gauss_kronrod import (
    MAX_DEPTH,
    accept_or_split,
    acceptance_tolerance,
    first_scale,
    initial_panels,
    next_group,
    node_steps,
)
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


class RaceQuadrature(NamedTuple):
    """The equity integral of one field: ``stacks`` (normalised), ``pay`` (per place, trimmed), the rule's
    ``nodes``, ``kronrod`` and ``gauss`` weights, the band kernel's ``block`` and ``log_eps``, the range
    ``[0, w_end]``, the acceptance tolerance ``tau`` and the scale floor."""

    stacks: np.ndarray
    pay: np.ndarray
    nodes: np.ndarray
    kronrod: np.ndarray
    gauss: np.ndarray
    block: int
    log_eps: float
    w_end: float
    tau: float
    scale_floor: float


class ThreadScratch(NamedTuple):
    """One :class:`BandWork` and one row of integrand values per thread (leading axis), reused by every node a
    thread evaluates: a fresh scratch per panel costs its page faults (80 MB at 50,000 players / 7,000 paid).
    The fields repeat :class:`BandWork`'s rather than nest one: numba's parallel loop refuses a nested NamedTuple
    argument ("scalar type BandWork(...) given for non scalar argument")."""

    lo: np.ndarray
    hi: np.ndarray
    checkpoints: np.ndarray
    rows: np.ndarray
    g: np.ndarray
    prefix: np.ndarray
    q: np.ndarray
    p: np.ndarray
    values: np.ndarray


@njit(cache=True)
def thread_scratch(threads: int, n: int, k: int, block: int) -> ThreadScratch:
    """Scratch for ``threads`` threads of :func:`race_values_banded` (``n`` players, ``k`` places)."""
    nblocks = (n + block - 1) // block
    return ThreadScratch(np.empty((threads, n), dtype=np.int64), np.empty((threads, n), dtype=np.int64),
                         np.empty((threads, nblocks, k + 2)), np.empty((threads, block, k + 2)),
                         np.empty((threads, 2, k + 2)), np.empty((threads, 2, k + 2)), np.empty((threads, n)),
                         np.empty((threads, n)), np.empty((threads, n)))


class AdaptiveState(NamedTuple):
    """Where an adaptive integration stands between calls of :func:`race_equity_advance`: the kept panels'
    ``total`` and the ``scale`` per player (n); this round's panels ``left``, ``right`` (m), their Kronrod and
    Gauss sums over the nodes done so far ``kron``, ``gauss`` (m, n), and each panel's last node ``carried``
    (m, 3: t, w and dw/dt, where the next node's Newton search starts); ``step`` (int64): round, first and end
    panel of the group in progress, its next node, integrand evaluations so far, 1 once done."""

    total: np.ndarray
    scale: np.ndarray
    left: np.ndarray
    right: np.ndarray
    kron: np.ndarray
    gauss: np.ndarray
    carried: np.ndarray
    step: np.ndarray


ROUND, GROUP_START, GROUP_END, NEXT_NODE, EVALUATIONS, DONE = range(6)  # the fields of AdaptiveState.step
UNLIMITED = 1 << 62  # a budget of evaluations no integration reaches


@njit(cache=True)
def _round_state(total: np.ndarray, scale: np.ndarray, left: np.ndarray, right: np.ndarray,
                 step: np.ndarray) -> AdaptiveState:
    m = left.shape[0]
    n = total.shape[0]
    return AdaptiveState(total, scale, left, right, np.zeros((m, n)), np.zeros((m, n)), np.zeros((m, 3)), step)


@njit(cache=True)
def adaptive_start(n: int, w_end: float) -> AdaptiveState:
    """The state before the first node: round 0's panels (:func:`initial_panels`), nothing evaluated."""
    left, right = initial_panels(w_end)
    return _round_state(np.zeros(n), np.empty(n), left, right, np.zeros(6, dtype=np.int64))


@njit(cache=True)
def _panel_nodes(
    problem: RaceQuadrature, left: float, right: float, first: int, last: int, kron: np.ndarray, gau: np.ndarray,
    carried: np.ndarray, work: BandWork, values: np.ndarray, total: float,
) -> None:
    """Nodes ``first .. last - 1`` of one panel ``[left, right]`` of ``w`` (see :func:`race_variable`):
    ``dt = dw / w'(t)``, ``t(w)`` by Newton from the previous node, whose ``(t, w, dw/dt)`` is ``carried``
    between calls. Adds each node's Kronrod and Gauss terms to the panel's rows ``kron``, ``gau`` (n) in node
    order, so its sums are the same bit for bit however its nodes are split."""
    stacks, pay, nodes = problem.stacks, problem.pay, problem.nodes
    n = stacks.shape[0]
    q, p = work.q, work.p
    half = 0.5 * (right - left)
    mid = 0.5 * (right + left)
    t, wt, dw = carried[0], carried[1], carried[2]
    for r in range(first, last):  # nodes ascending: each search starts from the previous node
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
        race_values_banded(stacks, pay, t, values, problem.block, problem.log_eps, work, True)
        wk = problem.kronrod[r] * jac
        wg = problem.gauss[r] * jac
        for i in range(n):
            kron[i] += wk * values[i]
            gau[i] += wg * values[i]
    carried[0], carried[1], carried[2] = t, wt, dw


@njit(cache=True)
def _stack_sum(stacks: np.ndarray) -> float:
    total = 0.0  # in player order (the guesses of time_of_w depend on it to the last bit)
    for j in range(stacks.shape[0]):
        total += stacks[j]
    return total


@njit(cache=True, inline="always")
def _slot_work(scratch: ThreadScratch, slot: int) -> BandWork:
    return BandWork(scratch.lo[slot], scratch.hi[slot], scratch.checkpoints[slot], scratch.rows[slot],
                    scratch.g[slot], scratch.prefix[slot], scratch.q[slot], scratch.p[slot])


@njit(cache=True, parallel=True)
def race_equity_nodes(problem: RaceQuadrature, left: np.ndarray, right: np.ndarray, first: int, last: int,
                      kron: np.ndarray, gau: np.ndarray, carried: np.ndarray, scratch: ThreadScratch) -> None:
    """:func:`_panel_nodes` for every panel ``[left[p], right[p]]`` (rows of ``kron``, ``gau``, ``carried``),
    panels in parallel, each thread on its own slot of ``scratch``. In parallel even for small fields: 50
    players / 40 paid take 0.38 ms against 0.61 ms on one thread. One variant only: a serial twin would share
    this function's numba cache entry, so which code ran would depend on which compiled first."""
    total = _stack_sum(problem.stacks)
    for panel in prange(left.shape[0]):
        slot = get_thread_id()
        if slot < scratch.values.shape[0]:
            _panel_nodes(problem, left[panel], right[panel], first, last, kron[panel], gau[panel], carried[panel],
                         _slot_work(scratch, slot), scratch.values[slot], total)
        else:  # more threads than slots (the thread count was raised since the scratch was made): one of its own
            n = problem.stacks.shape[0]
            _panel_nodes(problem, left[panel], right[panel], first, last, kron[panel], gau[panel], carried[panel],
                         band_work(n, problem.pay.shape[0], problem.block), np.empty(n), total)


@njit(cache=True)
def race_equity_advance(problem: RaceQuadrature, state: AdaptiveState, scratch: ThreadScratch, budget: int,
                        min_group: int) -> AdaptiveState:
    """Go on with an adaptive Gauss-Kronrod 7-15 integration over ``w in [0, w_end]`` (the one rule of
    :mod:`pokerlab.icm.gauss_kronrod`) for about ``budget`` integrand evaluations (panel-nodes; at least one
    node of one group), whole loop compiled, and return the new state (``step[DONE]`` once finished).

    A round's panels run in groups of at least ``min_group`` panels in parallel, a group's nodes in steps
    (:func:`next_group`, :func:`node_steps`); with a budget that covers the whole integration
    (:data:`UNLIMITED`) each round is one parallel call over all its panels. Each panel's sums and the order in
    which kept panels are added to the total do not depend on the budget: the result is the same bit for bit.
    ``scale_i`` = the first round's total for player i, at least ``scale_floor``."""
    step = state.step
    total, scale, left, right = state.total, state.scale, state.left, state.right
    kron, gau, carried = state.kron, state.gauss, state.carried
    per_panel = problem.nodes.shape[0]
    spent = 0
    while step[DONE] == 0 and spent < budget:
        start, node = step[GROUP_START], step[NEXT_NODE]
        end = next_group(left.shape[0], start, budget - spent, per_panel, min_group) if node == 0 else step[GROUP_END]
        group = end - start
        count = node_steps(group, per_panel - node, budget - spent)
        race_equity_nodes(problem, left[start:end], right[start:end], node, node + count, kron[start:end],
                          gau[start:end], carried[start:end], scratch)
        spent += group * count
        step[EVALUATIONS] += group * count
        node += count
        if node == per_panel:
            start, node = end, 0
        step[GROUP_START], step[GROUP_END], step[NEXT_NODE] = start, end, node
        if start < left.shape[0]:
            continue
        depth = step[ROUND]
        if depth == 0:
            first_scale(kron, problem.scale_floor, scale)
        left, right = accept_or_split(kron, gau, left, right, scale, problem.tau, problem.w_end,
                                      depth == MAX_DEPTH - 1, total)
        step[ROUND] = depth + 1
        step[GROUP_START] = step[GROUP_END] = 0
        if left.shape[0] == 0:
            step[DONE] = 1
        next_round = _round_state(total, scale, left, right, step)
        kron, gau, carried = next_round.kron, next_round.gauss, next_round.carried
    return AdaptiveState(total, scale, left, right, kron, gau, carried, step)


@njit(cache=True)
def race_equity_adaptive(
    stacks: np.ndarray, pay: np.ndarray, w_end: float, rtol: float, scale_floor: float, block: int,
    log_eps: float, nodes: np.ndarray, kronrod: np.ndarray, gauss: np.ndarray, threads: int,
) -> tuple[np.ndarray, int]:
    """The whole integration of :func:`race_equity_advance` in one call (scratch for ``threads`` threads): the
    per-player total and the number of integrand evaluations."""
    problem = RaceQuadrature(stacks, pay, nodes, kronrod, gauss, block, log_eps, w_end, acceptance_tolerance(rtol),
                             scale_floor)
    n = stacks.shape[0]
    scratch = thread_scratch(threads, n, pay.shape[0], block)
    state = race_equity_advance(problem, adaptive_start(n, w_end), scratch, UNLIMITED, 1)
    return state.total, state.step[EVALUATIONS]
