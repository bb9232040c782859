"""The exponential race (Malmuth-Harville as a race of exponential clocks): the change of variable
``w = sqrt(mu(t)) + log(1 + t)``, its inverse, the Chernoff tail bound of the integration range, and the
finish-place matrix integrand (:func:`icm_places_nodes`, ``O(n k^2)`` per node)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

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
    # the first doubling that met the bound: 12 halvings between it and the last that did not; if no doubling
    # was needed, bisect from 0 to a relative width of 1e-3
    from_zero = log_tail_bound(stacks, lo, k) <= log_eps
    if from_zero:
        lo = 0.0
    halvings = 0
    while (hi - lo > 1e-3 * hi) if from_zero else (halvings < 12):
        mid = 0.5 * (lo + hi)
        if log_tail_bound(stacks, mid, k) <= log_eps:
            hi = mid
        else:
            lo = mid
        halvings += 1
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
def icm_places_nodes(
    stacks: np.ndarray, k: int, left: np.ndarray, right: np.ndarray, nodes: np.ndarray, kronrod: np.ndarray,
    gauss: np.ndarray, first: int, last: int, kron: np.ndarray, gau: np.ndarray, guess: np.ndarray,
) -> None:
    """Finish-place matrix by the race: adds nodes ``first .. last - 1`` of each panel ``[left[p], right[p]]`` of
    ``w``, weighted by the Kronrod and the Gauss rule on the same nodes (evaluated once), to ``kron[p, i * k + m]``
    and ``gau[p, i * k + m]`` (panels, n k), in node order: the sums are the same bit for bit however the nodes
    are split. ``guess[p]``: the previous node's time, where the next search starts (0 before the first node).
    Panels in parallel."""
    n = stacks.shape[0]
    total = 0.0
    for j in range(n):
        total += stacks[j]
    for panel in prange(left.shape[0]):
        half = 0.5 * (right[panel] - left[panel])
        mid = 0.5 * (right[panel] + left[panel])
        values = np.empty((n, k))
        for r in range(first, last):
            w = mid + half * nodes[r]
            if guess[panel] <= 0.0:
                guess[panel] = w * w / total
            t = time_of_w(stacks, w, guess[panel])
            guess[panel] = t
            dw = race_variable(stacks, t)[1]
            if not (dw > 0.0 and np.isfinite(dw)):
                continue
            race_places(stacks, k, t, values)
            for rule in range(2):
                weight = kronrod[r] if rule == 0 else gauss[r]
                if weight == 0.0:  # a Kronrod node that is not a Gauss node
                    continue
                jac = weight * half / dw
                out = kron if rule == 0 else gau
                for i in range(n):
                    for m in range(k):
                        out[panel, i * k + m] += jac * values[i, m]
