"""Local ICM: one player's tournament equity after a hand that changes only a few stacks, from a summary of the
rest of the field, fast enough to decide every hand of a 10,000-player tournament by ICM.

ICM (Malmuth-Harville) is a race of exponential clocks: player ``j`` rings at rate ``x_j`` (his stack), the first
to ring wins, and a player's place is one plus the number of others who rang before him. With
``p_j(t) = 1 - exp(-x_j t)`` the hero's equity is

    E_h = integral_0^inf x_h exp(-x_h t) E[pay(1 + N(t))] dt,   N(t) = sum_{j != h} Bernoulli(p_j(t)).

A hand changes the stacks of a few *members* (the hero and the players in the pot); every other stack stays
as it is. So ``N(t) = M(t) + R(t)``: ``M`` the other members (a handful of Bernoullis, exact), ``R`` the rest of
the field, whose law is the same in every outcome of the hand. :class:`LocalField` keeps, at fixed quadrature
nodes ``t_q`` (Gauss-Legendre panels of width :data:`PANEL_W` in the race variable ``w = sqrt(mu(t)) +
log(1 + t)`` of :mod:`pokerlab.icm.race`, so each bump of the count distribution gets a few nodes; the narrower
:data:`PANEL_W_EXACT` where the rest's law below is exact), the power
sums ``S_r(t_q) = sum_j p_j(t_q)^r`` (r = 1..4) of the whole field. They are additive: the rest's sums are the
field's minus the members' (exact, no refit), and a stack that changes is an O(nodes) update
(:func:`update_stack`). The rest's count law at each node is then

- exact (the Poisson-binomial recursion over the rest) while at most :data:`EXACT_REST_PLAYERS` are alive,
  and exact ICM by the subset recursion (:func:`pokerlab.icm.subset.icm_subset`) at most
  :data:`SUBSET_PLAYERS` alive;
- else a Poisson-Charlier expansion (Poisson with the ``S_2``, ``S_3`` and ``S_2^2`` corrections) where the
  mean count is at most :data:`MU_SWITCH`, and a second-order Edgeworth expansion (skewness and kurtosis, the
  lattice continuity correction) beyond.

The payouts enter through their drops ``pay_e - pay_{e+1}`` at the places ``e`` where they change:
``E[pay(1 + m + R)] = sum_e drop_e P(R <= e - 1 - m)``, and only the drops within reach of the count's mean
are evaluated per node (the rest are 0 or 1). Where many drops are within reach (every place its own amount),
the rest's law is computed once per count within reach and shared by every ``m`` as a dot product over the
places: beyond a spread of :data:`RECURRENCE_SIGMA` as masses (:func:`_edgeworth_masses`, Euler-Maclaurin)
where at least :data:`MASS_SHARE` of those counts meet a drop, else as a cdf advanced by recurrence
(:func:`_edgeworth_window`). Where the spread is at least ``2 STRIDE_RATIO`` and the window is clear of 0
and of the rest's size, the law's masses are taken every ``floor(sigma / STRIDE_RATIO)`` counts only and
summed against the payouts filtered for that stride once per field (:func:`filtered_payouts`,
:func:`_strided_payoffs`: band-limited interpolation, exact for any payouts up to its error, < 3e-12 of the
first prize), whenever more drops are in reach than the samples cost. A decision's outcomes each move the hero's
stack and at most one other member's: :func:`pair_terms` averages the payoffs over the other members once per
node (prefix products of their count law, the payoffs propagated back), so each outcome is ``O(1)`` per node
(:func:`pair_equity`); the exponentials ``exp(-x t_q)`` are computed in vectorised loops (:func:`node_decays`).
The errors against exact ICM are measured in ``tests/icm/test_local.py`` and ``benchmarks/icm_local.py``
(docs/algorithms.md, "Local ICM").
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm.race import race_variable, tail_time, time_of_w
from pokerlab.icm.subset import icm_subset

PANEL_W = 1.0  # width of a quadrature panel in w = sqrt(mu(t)) + log(1 + t) (quadrature error <~ 6e-7 of a fair share)
PANEL_W_EXACT = 0.75  # the panel width where the rest's law is exact (its error the quadrature's alone: ~2e-8)
SUBSET_PLAYERS = 10  # at most this many alive: exact ICM (subset recursion) per outcome
EXACT_REST_PLAYERS = 64  # at most this many alive: the rest's count law exactly (Poisson-binomial recursion)
MU_SWITCH = 30.0  # mean count of the rest up to which the Poisson-Charlier expansion is used, Edgeworth above
_RESTART_COST = 8  # a restart of the window recurrence (an erfc, three exps) costs about this many of its steps
_BLOCK = 32  # nodes per block of the vectorised loops of pair_terms
MEMBERS_MAX = 10  # the most members (stacks a hand changes: a table) the integration range is sized for
_GL_X = np.array([-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526])
_GL_W = np.array([0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538])
_GL3_X = math.sqrt(0.6)  # 3-point Gauss-Legendre on [-1, 1]: nodes 0, +-sqrt(3/5), weights 8/9, 5/9
_GL3_W0 = 5.0 / 9.0
_GL3_W1 = 8.0 / 9.0
RECURRENCE_SIGMA = 5.0  # the rest's count spread from which its cdf window is advanced by recurrence
RECURRENCE_RESTART = 32  # counts between two restarts of that recurrence from erfc
MASS_SHARE = 0.5  # from this share of the window's counts meeting a payout drop: the law's masses (no recurrence)
STRIDE_RATIO = 2.5  # strided sums: one sample of the rest's count law every floor(sigma / STRIDE_RATIO) counts
STRIDE_MAX = 12  # the longest stride (filtered payout tables are built for strides 2..STRIDE_MAX)
STRIDE_BAND = 7.0  # the filter passes frequencies to STRIDE_BAND / sigma (the law's spectrum: exp(-24.5) there)
STRIDE_EDGE = 6.0  # the filter's transition is STRIDE_EDGE of its Gaussian taper's widths from each band edge
STRIDE_TAPER_END = 7.7  # the filter is cut where its taper is exp(-7.7^2 / 2) = 1.4e-13
STRIDE_TABLE_MAX = 1 << 22  # entries of the filtered payout tables at most (32 MB: to about top = 190,000)
STRIDE_SPAN = 6.5  # strided sums sample the counts within this many sigma (plus 6) of the mean, as the other paths
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)


class LocalField(NamedTuple):
    """The field as local ICM sees it (build with :func:`local_field`; the kernels update it in place)."""

    stacks: np.ndarray  # float64[n]: chips of every player, 0 for a player out
    scale: float  # clock rate per chip (the field's stacks at the build, normalised to mean 1)
    nodes: np.ndarray  # float64[Q]: times t_q of the race
    weights: np.ndarray  # float64[Q]: quadrature weights in t
    t_end: float  # end of the range: past it at least MEMBERS_MAX + the last paid place have rung (1 - 1e-18)
    power: np.ndarray  # float64[4, Q]: sum over the players of p_j(t_q)^r, r = 1..4
    alive: np.ndarray  # int64[1]: players with chips
    pay: np.ndarray  # float64[n]: money for places 1..n (0 past the paid places)
    band_end: np.ndarray  # int64[B]: the places e where the payout drops (pay_e > pay_{e+1})
    band_drop: np.ndarray  # float64[B]: pay_e - pay_{e+1}
    band_tail: np.ndarray  # float64[B + 1]: band_tail[b] = sum of band_drop[b:]
    filtered: np.ndarray  # float64: the payouts filtered for each stride s (filtered_payouts), one after another
    filtered_start: np.ndarray  # int64[STRIDE_MAX + 2]: stride s's table is filtered[start[s]:start[s + 1]]
    drops_below: np.ndarray  # int64[top + 2]: drops_below[x] = the band ends below x (x <= the last paid place + 1)


_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 in two parts: k ln 2 exact in the first for |k| < 2^20
_LN2_LO = 1.9082149292705877e-10
_EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(14))


@njit(cache=True, inline="always")
def _exp_parts(y: float) -> tuple[float, int]:
    """``exp(y) = 2^k exp(r)`` (``y >= -700``): ``(exp(r), k)``, ``|r| <= ln(2)/2``, ``exp(r)`` by its Taylor
    polynomial of degree 13 (remainder < 5e-18); no call, so loops over it vectorise."""
    k = math.floor(y * _LOG2E + 0.5)
    r = (y - k * _LN2_HI) - k * _LN2_LO
    e = _EXP_TAYLOR[13]
    e = e * r + _EXP_TAYLOR[12]
    e = e * r + _EXP_TAYLOR[11]
    e = e * r + _EXP_TAYLOR[10]
    e = e * r + _EXP_TAYLOR[9]
    e = e * r + _EXP_TAYLOR[8]
    e = e * r + _EXP_TAYLOR[7]
    e = e * r + _EXP_TAYLOR[6]
    e = e * r + _EXP_TAYLOR[5]
    e = e * r + _EXP_TAYLOR[4]
    e = e * r + _EXP_TAYLOR[3]
    e = e * r + _EXP_TAYLOR[2]
    e = e * r + 1.0
    return e * r + 1.0, k


@njit(cache=True, fastmath={"contract"})
def node_decays(x: float, nodes: np.ndarray, out: np.ndarray, bits: np.ndarray) -> None:
    """``out[q] = exp(-x nodes[q])`` (``x >= 0``; ``bits``: int64 scratch of the same size) in loops the compiler
    vectorises (math.exp is a call per element): :func:`_exp_parts`, ``2^k`` written as the float's exponent
    bits; relative error < 3e-16, and ``exp(-700)`` in place of anything smaller."""
    n = nodes.size
    for q in range(n):
        e, k = _exp_parts(max(-x * nodes[q], -700.0))
        out[q] = e
        bits[q] = (np.int64(k) + 1023) << 52
    power_of_two = bits.view(np.float64)
    for q in range(n):
        out[q] *= power_of_two[q]


@njit(cache=True)
def _field_nodes(rates: np.ndarray, t_end: float, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes (4 per panel of about ``width`` in w) on [0, t_end] and their weights in t."""
    w_end = race_variable(rates, t_end)[0]
    panels = max(1, int(math.ceil(w_end / width)))
    width = w_end / panels
    q = _GL_X.size
    nodes = np.empty(panels * q)
    weights = np.empty(panels * q)
    guess = 1e-3
    for p in range(panels):
        for i in range(q):
            w = (p + 0.5 * (_GL_X[i] + 1.0)) * width
            t = time_of_w(rates, w, guess)
            guess = t
            slope = race_variable(rates, t)[1]
            nodes[p * q + i] = t
            weights[p * q + i] = 0.5 * width * _GL_W[i] / slope
    return nodes, weights


@njit(cache=True)
def _add_powers(power: np.ndarray, nodes: np.ndarray, rate: float, sign: float) -> None:
    if rate <= 0.0:
        return
    decay = np.empty(nodes.size)
    node_decays(rate, nodes, decay, np.empty(nodes.size, dtype=np.int64))
    for q in range(nodes.size):
        p = 1.0 - decay[q]
        p2 = p * p
        power[0, q] += sign * p
        power[1, q] += sign * p2
        power[2, q] += sign * p2 * p
        power[3, q] += sign * p2 * p2


@njit(cache=True)
def _power_sums(stacks: np.ndarray, scale: float, nodes: np.ndarray) -> np.ndarray:
    power = np.zeros((4, nodes.size))
    for j in range(stacks.size):
        _add_powers(power, nodes, stacks[j] * scale, 1.0)
    return power


def local_field(stacks: Any, payouts: Any) -> LocalField:
    """A :class:`LocalField` of ``stacks`` (chips of every player, 0 for one out) and ``payouts`` (money for
    places 1, 2, ...): builds the nodes and the power sums (``O(n)`` per node; 10,000 players: 176 nodes) and the
    payouts filtered for the strided sums (:func:`filtered_payouts`).

    >>> field = local_field([5000, 3000, 2000, 1000], [50, 30, 20])
    >>> int(field.alive[0]), int(field.band_end.size)
    (4, 3)
    """
    from pokerlab.icm.core import validate

    s, pay = validate(stacks, payouts)
    if s.size > 10_000_000:
        raise InvalidArgumentError(f"at most 10,000,000 players, got {s.size:,}")
    full = np.zeros(s.size)
    full[: pay.size] = pay
    return build_field(s, full)


@njit(cache=True)
def build_field(stacks: np.ndarray, pay: np.ndarray) -> LocalField:
    """The kernel of :func:`local_field` (``pay`` one entry per player); also rebuilds a field whose nodes no
    longer fit it (after many players have gone)."""
    alive = 0
    total = 0.0
    for s in stacks:
        if s > 0:
            alive += 1
            total += s
    scale = alive / total
    rates = np.empty(alive)
    i = 0
    for s in stacks:
        if s > 0:
            rates[i] = s * scale
            i += 1
    ends = 0
    for e in range(pay.size):
        nxt = pay[e + 1] if e + 1 < pay.size else 0.0
        if pay[e] != nxt:
            ends += 1
    band_end = np.empty(ends, dtype=np.int64)
    band_drop = np.empty(ends)
    b = 0
    last_paid = 0
    for e in range(pay.size):
        nxt = pay[e + 1] if e + 1 < pay.size else 0.0
        if pay[e] != nxt:
            band_end[b] = e + 1
            band_drop[b] = pay[e] - nxt
            b += 1
        if pay[e] > (pay[alive - 1] if alive <= pay.size else 0.0) and e < alive:
            last_paid = e + 1
    band_tail = np.zeros(ends + 1)
    for b in range(ends - 1, -1, -1):
        band_tail[b] = band_tail[b + 1] + band_drop[b]
    if alive <= SUBSET_PLAYERS or last_paid == 0:
        nodes = np.zeros(0)
        weights = np.zeros(0)
        t_end = 0.0
    else:
        t_end = tail_time(rates, min(last_paid + MEMBERS_MAX, alive - 1), math.log(1e-18))
        # where the rest's law is an expansion its error (~1e-5 of a fair share) dwarfs the wider panels'
        nodes, weights = _field_nodes(rates, t_end, PANEL_W_EXACT if alive <= EXACT_REST_PLAYERS else PANEL_W)
    power = _power_sums(stacks, scale, nodes)
    # the rest's count has variance at most alive / 4: strides beyond sqrt(alive) / (2 STRIDE_RATIO) are not used
    largest = 1 if alive <= EXACT_REST_PLAYERS or nodes.size == 0 else int(0.5 * math.sqrt(alive) / STRIDE_RATIO)
    top = band_end[ends - 1] if ends else 0
    filtered, filtered_start = filtered_payouts(pay, top, min(largest, STRIDE_MAX))
    drops_below = np.empty(top + 2, dtype=np.int64)
    b = 0
    for x in range(top + 2):
        while b < ends and band_end[b] < x:
            b += 1
        drops_below[x] = b
    return LocalField(stacks.astype(np.float64).copy(), scale, nodes, weights, t_end, power,
                      np.full(1, alive, dtype=np.int64), pay.astype(np.float64).copy(), band_end, band_drop,
                      band_tail, filtered, filtered_start, drops_below)


@njit(cache=True, inline="always")
def _drops_below(field: LocalField, x: int) -> int:
    """The payout drops at places below ``x`` (``np.searchsorted(field.band_end, x)``), by table."""
    table = field.drops_below
    count: int = table[min(max(x, 0), table.size - 1)]
    return count


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot(x: np.ndarray, y: np.ndarray) -> float:
    """``sum_i x[i] y[i]`` over ``x``'s entries (reassociated: vectorised)."""
    acc = 0.0
    for i in range(x.size):
        acc += x[i] * y[i]
    total: float = acc
    return total


@njit(cache=True)
def _stride_taper(stride: int) -> float:
    """The Gaussian taper's width (radians per count) of the filter of :func:`filtered_payouts` for ``stride``:
    its transition, from ``STRIDE_BAND / sigma`` (``sigma >= STRIDE_RATIO stride``) to the first alias of that
    band, ``2 pi / stride - STRIDE_BAND / sigma``, spans ``2 STRIDE_EDGE`` tapers."""
    taper: float = (math.pi - STRIDE_BAND / STRIDE_RATIO) / (STRIDE_EDGE * stride)
    return taper


@njit(cache=True)
def _stride_half_width(stride: int) -> int:
    """Counts each side of the filter's centre that :func:`filtered_payouts` keeps for ``stride``."""
    return int(math.ceil(STRIDE_TAPER_END / _stride_taper(stride)))


@njit(cache=True)
def filtered_payouts(pay: np.ndarray, top: int, largest: int) -> tuple[np.ndarray, np.ndarray]:
    """For each stride ``s`` in ``2..largest``: ``P_s[e] = sum_i K_s(i) pay[e + i]`` (``pay[e]`` read as
    ``pay[0]`` below place 1 and 0 past the field), ``K_s(i) = sinc(i / s) exp(-(gamma_s i)^2 / 2)``, the band-
    limited interpolation kernel of stride ``s`` with a Gaussian taper (:func:`_stride_taper`), cut at
    ``|i| <= STRIDE_TAPER_END / gamma_s``: then ``sum_c P(R = c) pay[c + m] = sum_j P(R = j s) P_s[j s + m]`` up
    to the interpolation error (:func:`_strided_payoffs`). ``P_s[e] = 0`` from ``top`` (the last paid place) plus
    the cut on, so a table holds ``u < rows = (top + cut) / s + 1`` only: row ``u`` of stride ``s`` is
    ``P_s[u s + m]``, m < :data:`MEMBERS_MAX`, at ``start[s] + u MEMBERS_MAX + m``. ``O((top + w) w)`` per stride,
    ``w`` the cut (63 s); strides whose tables would pass :data:`STRIDE_TABLE_MAX` entries are not built."""
    start = np.zeros(STRIDE_MAX + 2, dtype=np.int64)
    total = 0
    for s in range(2, STRIDE_MAX + 1):
        start[s] = total
        size = ((top + _stride_half_width(s)) // s + 1) * MEMBERS_MAX
        if s <= largest and total + size <= STRIDE_TABLE_MAX:
            total += size
    start[STRIDE_MAX + 1] = total
    table = np.zeros(total)
    for s in range(2, STRIDE_MAX + 1):
        rows = (start[s + 1] - start[s]) // MEMBERS_MAX
        if rows == 0:
            continue
        half = _stride_half_width(s)
        taper = _stride_taper(s)
        kernel = np.empty(2 * half + 1)
        for i in range(-half, half + 1):
            sinc = 1.0 if i == 0 else math.sin(math.pi * i / s) / (math.pi * i / s)
            kernel[i + half] = sinc * math.exp(-0.5 * (taper * i) ** 2)
        stop = min((rows - 1) * s + MEMBERS_MAX, top + half)  # P_s[e] for e < stop (0 beyond)
        padded = np.zeros(stop + 2 * half)  # padded[x + half] = pay[x]
        for x in range(-half, stop + half):
            if x < 0:
                padded[x + half] = pay[0]
            elif x < pay.size:
                padded[x + half] = pay[x]
        filtered = np.zeros((rows - 1) * s + MEMBERS_MAX)
        for e in range(stop):
            filtered[e] = _dot(kernel, padded[e: e + 2 * half + 1])
        for u in range(rows):
            for m in range(MEMBERS_MAX):
                table[start[s] + u * MEMBERS_MAX + m] = filtered[u * s + m]
    return table, start


@njit(cache=True)
def update_stack(field: LocalField, player: int, chips: float) -> None:
    """Set ``player``'s stack to ``chips`` (0: out), updating the power sums and the alive count in place."""
    old = field.stacks[player]
    if old == chips:
        return
    _add_powers(field.power, field.nodes, old * field.scale, -1.0)
    _add_powers(field.power, field.nodes, chips * field.scale, 1.0)
    if old > 0 and chips <= 0:
        field.alive[0] -= 1
    elif old <= 0 and chips > 0:
        field.alive[0] += 1
    field.stacks[player] = chips


@njit(cache=True, inline="always")
def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / _SQRT2)


@njit(cache=True)
def _rest_payoffs(field: LocalField, members: np.ndarray, rest_alive: int, m_count: int, out: np.ndarray,
                  scratch: np.ndarray, window: np.ndarray) -> None:
    """``out[q, m] = E[pay(1 + m + R(t_q))]`` for m < ``m_count``: R the count of the rest rung by ``t_q``
    (``scratch``: the Poisson law's rows; ``window``: the rest's cdf over the counts within reach)."""
    nodes = field.nodes
    band_end = field.band_end
    band_drop = field.band_drop
    band_tail = field.band_tail
    nb = band_end.size
    fixed = np.empty(8)
    exact = field.alive[0] <= EXACT_REST_PLAYERS
    member_decay = np.ones((members.size, nodes.size))  # exp(-x_r t_q) of the members with chips
    bits = np.empty(max(nodes.size, window.size), dtype=np.int64)
    squares = np.empty(window.size)  # scratch of _edgeworth_masses
    density = np.empty(window.size)
    coef = np.empty(2 * _HERMITE.shape[0])  # scratch of _strided_payoffs
    sums = np.empty(MEMBERS_MAX)
    for r in range(members.size):
        if field.stacks[members[r]] > 0 and not exact:
            node_decays(field.stacks[members[r]] * field.scale, nodes, member_decay[r], bits[: nodes.size])
    top = band_end[nb - 1] if nb else 0  # counts c >= top - 1 are never asked for
    for q in range(nodes.size):
        t = nodes[q]
        cdf = scratch
        if exact:  # Poisson-binomial recursion over the rest, counts 0..top-1
            length = min(rest_alive, top) + 1
            for c in range(length):
                cdf[c] = 0.0
            cdf[0] = 1.0
            used = 1
            for j in range(field.stacks.size):
                s = field.stacks[j]
                if s <= 0:
                    continue
                skip = False
                for r in range(members.size):
                    if members[r] == j:
                        skip = True
                if skip:
                    continue
                p = -math.expm1(-s * field.scale * t)
                hi = min(used, length - 1)
                for c in range(hi, 0, -1):
                    cdf[c] = cdf[c] * (1.0 - p) + cdf[c - 1] * p
                cdf[0] *= 1.0 - p
                used = min(used + 1, length)
            acc = 0.0
            for c in range(length):
                acc += cdf[c]
                cdf[c] = acc
            for m in range(m_count):
                total = 0.0
                for b in range(nb):
                    c = band_end[b] - 1 - m
                    if c < 0:
                        continue
                    total += band_drop[b] * (1.0 if c >= rest_alive else cdf[min(c, length - 1)])
                out[q, m] = total
            continue
        s1 = field.power[0, q]
        s2 = field.power[1, q]
        s3 = field.power[2, q]
        s4 = field.power[3, q]
        for r in range(members.size):
            if field.stacks[members[r]] > 0:
                p = 1.0 - member_decay[r, q]
                s1 -= p
                s2 -= p * p
                s3 -= p * p * p
                s4 -= p * p * p * p
        mu = max(s1, 0.0)
        var = max(s1 - s2, 1e-12)  # ~0 once nearly everyone has rung: a point mass, the corrections off
        sigma = math.sqrt(var)
        span = 6.5 * sigma + 6.0  # the cdf is within Phi(-6.5) = 4e-11 of 0 or 1 beyond
        lo = int(math.floor(mu - span))
        hi = int(math.ceil(mu + span))
        poisson = mu <= MU_SWITCH
        pmf = scratch[:1]
        pcdf = scratch[:1]
        if poisson:  # Poisson pmf and cdf at 0..hi (scratch rows 0 and 1)
            hi = min(hi, scratch.shape[0] // 2 - 1)
            pmf = scratch[: hi + 1]
            pcdf = scratch[hi + 1: 2 * hi + 2]
            term = math.exp(-mu)
            acc = 0.0
            for c in range(hi + 1):
                if c > 0:
                    term *= mu / c
                pmf[c] = term
                acc += term
                pcdf[c] = acc
        kappa3 = s1 - 3.0 * s2 + 2.0 * s3
        kappa4 = s1 - 7.0 * s2 + 12.0 * s3 - 6.0 * s4
        g1 = kappa3 / (var * sigma) if var > 1e-6 else 0.0
        g2 = kappa4 / (var * var) if var > 1e-6 else 0.0
        # counts c in [c_lo, c_hi] are evaluated; bands with c above count fully, below not at all
        c_lo = max(lo, 0)
        c_hi = min(hi, rest_alive)
        width = min(c_hi, top) - c_lo + 1  # counts c >= top - 1 meet no payout drop
        reached = _drops_below(field, c_hi + m_count) - _drops_below(field, c_lo + 1)
        stride = min(int(sigma / STRIDE_RATIO), STRIDE_MAX)
        while stride >= 2 and field.filtered_start[stride + 1] == field.filtered_start[stride]:
            stride -= 1  # a stride the build made no table for (too large, or the field has grown since)
        samples = 2.0 * STRIDE_SPAN * sigma / max(stride, 1)
        if not poisson and stride >= 2 and c_lo == lo and c_hi == hi and reached * _RESTART_COST > samples:
            # the window clear of 0 and of the rest's size, more payout drops in reach than a strided sum costs
            # in their runs of the recurrence below: the law sampled every stride counts
            first = field.filtered_start[stride]
            rows = (field.filtered_start[stride + 1] - first) // MEMBERS_MAX
            _strided_payoffs(field.filtered, first, rows, stride, mu, sigma, g1, g2, sums, density, coef)
            out[q, :m_count] = sums[:m_count]
            continue
        if reached * _RESTART_COST > width and width <= window.size:
            # many payout levels within reach (every place its own amount): the law's cdf once per count,
            # shared by every member count m, instead of once per (level, m)
            if poisson or sigma < RECURRENCE_SIGMA or reached < MASS_SHARE * width:
                if poisson or sigma < RECURRENCE_SIGMA:
                    for c in range(c_lo, c_lo + width):
                        window[c - c_lo] = _rest_cdf(c, poisson, pmf, pcdf, s2, s3, mu, sigma, g1, g2)
                else:
                    _window_constants(sigma, fixed)
                    _edgeworth_window(window, c_lo, c_lo + width - 1, mu, sigma, g1, g2, fixed)
                for m in range(m_count):
                    out[q, m] = _dense_payoff(field.pay, window, c_lo, c_hi, min(c_hi, top - m), m)
            else:  # at least MASS_SHARE of the counts meet a drop (every place its own amount): masses
                _edgeworth_masses(window, squares, density, bits, c_lo, width, mu, sigma, g1, g2)
                for m in range(m_count):
                    out[q, m] = _mass_payoff(field.pay, window, c_lo, c_hi, min(c_hi, top - m), m)
            continue
        # a payout drop at place e meets the counts e - 1 - m of every member count m: the law's cdf on that
        # run of consecutive counts at once (by the recurrence of _edgeworth_window where the spread allows)
        last = _drops_below(field, c_hi + 1)  # the first band ending at c_hi + 1 + m or later
        for m in range(m_count):
            while last < nb and band_end[last] < c_hi + 1 + m:
                last += 1
            out[q, m] = band_tail[last]
        recurrence = not poisson and sigma >= RECURRENCE_SIGMA
        if recurrence:
            _window_constants(sigma, fixed)
        for b in range(_drops_below(field, c_lo + 1), last):
            run_lo = max(band_end[b] - m_count, c_lo)  # the counts e - 1 - m within [c_lo, c_hi)
            run_hi = min(band_end[b] - 1, c_hi - 1)
            if recurrence:
                _edgeworth_window(window, run_lo, run_hi, mu, sigma, g1, g2, fixed)
            for c in range(run_lo, run_hi + 1):
                f = window[c - run_lo] if recurrence else _rest_cdf(c, poisson, pmf, pcdf, s2, s3, mu, sigma, g1, g2)
                out[q, band_end[b] - 1 - c] += band_drop[b] * f


def _hermite_table(degree: int) -> np.ndarray:
    """``table[n, k]``: the coefficient of ``y^k`` in the probabilists' Hermite polynomial ``He_n(y)``."""
    table = np.zeros((degree + 1, degree + 1))
    table[0, 0] = 1.0
    table[1, 1] = 1.0
    for n in range(1, degree):  # He_{n+1} = y He_n - n He_{n-1}
        table[n + 1, 1:] = table[n, :-1]
        table[n + 1] -= n * table[n - 1]
    return table


_POW2_DOWN = 0.5 ** np.arange(64)
_HERMITE = _hermite_table(12)  # the midpoint series of a count's mass reaches He_12 (_mass_polynomial)


@njit(cache=True)
def _mass_polynomial(sigma: float, g1: float, g2: float, coef: np.ndarray, hermite: np.ndarray) -> None:
    """``coef[k]``: the coefficients of ``P(y) = sum_k coef[k] y^k`` with ``P(R = c) = exp(-y^2 / 2) P(y)``,
    ``y = (c - mu) / sigma``, for the Edgeworth law of :func:`_rest_cdf` (``hermite``: scratch of 13). The
    count's mass is the integral of the expansion's density ``g = phi (1 + a3 He_3 + a4 He_4 + a6 He_6)``
    (``a3 = g1/6``, ``a4 = g2/24``, ``a6 = g1^2/72``) over ``[y - h, y + h]``, ``h = 1 / (2 sigma)``: the
    midpoint series ``sum_k w_k g^(2k)(y)``, ``w_k = 2 h^(2k+1) / (2k+1)!``, with ``g^(j) = phi (He_j + a3
    He_(j+3) + a4 He_(j+4) + a6 He_(j+6))``, summed to ``k = 3`` (``hermite[n]``: the coefficient of ``phi He_n``)
    and turned into powers of ``y``. The first term left out, ``w_4 g^(8)``, sums over the counts to about
    ``w_4 sigma sqrt(8!)`` (``int |He_n phi| <= sqrt(n!)``) = ``h^8 sqrt(8!) / 9!`` = 5.5e-12 at ``sigma >= 5``."""
    h = 0.5 / sigma
    h2 = h * h
    a3 = g1 / 6.0
    a4 = g2 / 24.0
    a6 = g1 * g1 / 72.0
    w0 = 2.0 * h * _INV_SQRT2PI
    w1 = w0 * h2 / 6.0
    w2 = w1 * h2 / 20.0
    w3 = w2 * h2 / 42.0
    hermite[:] = 0.0
    hermite[0] = w0
    hermite[2] = w1
    hermite[3] = w0 * a3
    hermite[4] = w0 * a4 + w2
    hermite[5] = w1 * a3
    hermite[6] = w0 * a6 + w1 * a4 + w3
    hermite[7] = w2 * a3
    hermite[8] = w1 * a6 + w2 * a4
    hermite[9] = w3 * a3
    hermite[10] = w2 * a6 + w3 * a4
    hermite[12] = w3 * a6
    for i in range(_HERMITE.shape[0]):
        acc = 0.0
        for n in range(i, _HERMITE.shape[0], 2):  # He_n has the powers of n's parity only
            acc += hermite[n] * _HERMITE[n, i]
        coef[i] = acc


@njit(cache=True, fastmath={"contract"})
def _strided_payoffs(table: np.ndarray, first: int, rows: int, stride: int, mu: float, sigma: float, g1: float,
                     g2: float, out: np.ndarray, mass: np.ndarray, coef: np.ndarray) -> None:
    """``out[m] = E[pay(1 + m + R)] = sum_c P(R = c) pay[c + m]`` (m < :data:`MEMBERS_MAX`; ``R`` the rest's
    count, its Edgeworth law of :func:`_rest_cdf`, ``c`` within ``STRIDE_SPAN sigma + 6`` of ``mu``) from the law's
    masses at every ``stride``-th count only: ``sum_j P(R = j s) P_s[j s + m]``, ``P_s`` the payouts filtered
    for stride ``s`` (:func:`filtered_payouts`: its table's ``rows`` from ``table[first]``); ``mass``: scratch of
    the window's size, ``coef``: of 26.

    Error. The strided sum is ``sum_c I(c) pay[c + m]`` with ``I = sum_j P(R = j s) K_s(c - j s)`` the
    band-limited interpolant of the masses from their samples, so it differs from the sum over every count by
    at most ``||P(R = .) - I||_1 max(pay)``, whatever the payouts (any drops, jumps, the last paid place). The
    masses' spectrum (the Edgeworth characteristic function times the count's unit box) is ``exp(-sigma^2 w^2 /
    2)`` times a polynomial, ``exp(-24.5)`` of its peak at ``|w| = STRIDE_BAND / sigma``; sampling every ``s <=
    sigma / STRIDE_RATIO`` counts puts its first alias at ``2 pi / s``, and ``K_s`` passes ``|w| <= STRIDE_BAND
    / sigma`` and stops from ``2 pi / s - STRIDE_BAND / sigma`` on, each within ``Phi(-STRIDE_EDGE)`` = 1e-9, so
    the interpolant's error is of order 1e-9 times the spectrum there. Measured (``tests/icm/test_local.py``,
    every stride at both ends of its spreads, skewness to 1/sigma): ``||P(R = .) - I||_1 < 3e-12`` (the largest
    at sigma 5, skewness 0.2, whose polynomial lifts the spectrum's tail), asserted below 1e-11; so the payoffs
    are within ``1e-11 pay_1`` of the count-by-count sum of the same law, plus the tails past ``STRIDE_SPAN``
    sigma + 6 (``2 Phi(-6.5 - 6 / sigma)`` of the mass, at the payouts there) and the midpoint series' 5.5e-12 at
    sigma 5 (:func:`_mass_polynomial`): measured within 3.9e-11 of the first prize (the test, payouts of every
    shape)."""
    span = STRIDE_SPAN * sigma + 6.0
    j_lo = int(math.ceil((mu - span) / stride))
    count = min(int(math.floor((mu + span) / stride)) - j_lo + 1, rows - j_lo)  # 0 past the table
    step = stride / sigma
    y0 = (j_lo * stride - mu) / sigma
    _mass_polynomial(sigma, g1, g2, coef[:13], coef[13:])
    c0, c1, c2, c3, c4, c5, c6 = coef[0], coef[1], coef[2], coef[3], coef[4], coef[5], coef[6]
    c7, c8, c9, c10, c11, c12 = coef[7], coef[8], coef[9], coef[10], coef[11], coef[12]
    for k in range(count):  # P(R = c) = exp(-y^2/2) P(y), |y| <= 6.5: exp = 2^b exp(r), b in [-31, 0]
        y = y0 + k * step
        e, b = _exp_parts(-0.5 * y * y)
        p = c12
        p = p * y + c11
        p = p * y + c10
        p = p * y + c9
        p = p * y + c8
        p = p * y + c7
        p = p * y + c6
        p = p * y + c5
        p = p * y + c4
        p = p * y + c3
        p = p * y + c2
        p = p * y + c1
        mass[k] = e * _POW2_DOWN[min(-b, 63)] * (p * y + c0)
    for m in range(MEMBERS_MAX):
        out[m] = 0.0
    for k in range(count):  # each sample's row of MEMBERS_MAX member counts: a vector step, no reduction
        weight = mass[k]
        row = table[first + (j_lo + k) * MEMBERS_MAX: first + (j_lo + k + 1) * MEMBERS_MAX]
        for m in range(MEMBERS_MAX):
            out[m] += weight * row[m]


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dense_payoff(pay: np.ndarray, window: np.ndarray, c_lo: int, c_hi: int, c_end: int, m: int) -> float:
    """``sum_e drop_e P(R <= e - 1 - m)`` over every place (``drop_e = pay_e - pay_{e+1}``, 0 where the payout
    does not change), ``P(R <= c)`` from ``window`` for ``c_lo <= c < c_hi`` and 1 from ``c_hi`` on (so the places
    from ``c_hi + 1 + m`` add up to ``pay[c_hi + m]``; ``c_end <= c_hi``: no drop from there on): a contiguous
    dot product (reassociated, so the compiler vectorises it)."""
    length = max(c_end - c_lo, 0)
    base = c_lo + m
    upper = pay[base: base + length]
    lower = pay[base + 1: base + 1 + length]
    acc = 0.0
    for k in range(length):  # slices indexed by the loop counter: no wraparound test, so it vectorises
        acc += (upper[k] - lower[k]) * window[k]
    total: float = pay[c_hi + m] + acc
    return total


@njit(cache=True, fastmath={"reassoc", "contract"})
def _mass_payoff(pay: np.ndarray, mass: np.ndarray, c_lo: int, c_hi: int, c_end: int, m: int) -> float:
    """:func:`_dense_payoff` from the masses of :func:`_edgeworth_masses` (``mass[0] = P(R <= c_lo)``,
    ``mass[k] = P(R = c_lo + k)``) by summation by parts: ``sum_{c < c_end} drop_{c+m} F(c) = sum_k mass_k
    (pay[c_lo + k + m] - pay[c_end + m])`` over ``k < c_end - c_lo`` (the same sum, reordered; vectorised)."""
    length = max(c_end - c_lo, 0)
    upper = pay[c_lo + m: c_lo + m + length]
    acc = 0.0
    below = 0.0
    for k in range(length):
        acc += mass[k] * upper[k]
        below += mass[k]
    total: float = pay[c_hi + m] + acc - below * pay[c_end + m]
    return total


@njit(cache=True, inline="always")
def _edgeworth_poly(z: float, a3: float, a4: float, a6: float) -> float:
    """``E(z)`` of the Edgeworth cdf ``Phi(z) - phi(z) E(z)`` (``a3 = g1/6``, ``a4 = g2/24``, ``a6 = g1^2/72``)."""
    z2 = z * z
    e: float = a3 * (z2 - 1.0) + a4 * z * (z2 - 3.0) + a6 * z * (z2 * (z2 - 10.0) + 15.0)
    return e


@njit(cache=True, fastmath={"contract"})
def _edgeworth_masses(mass: np.ndarray, squares: np.ndarray, density: np.ndarray, bits: np.ndarray, c_lo: int,
                      count: int, mu: float, sigma: float, g1: float, g2: float) -> None:
    """``mass[0] = F(c_lo)`` and ``mass[k] = F(c_lo + k) - F(c_lo + k - 1)`` (k < ``count``) of the Edgeworth cdf
    ``F(c) = Phi(z_c) - phi(z_c) E(z_c)`` of :func:`_rest_cdf`, ``z_c = (c + 1/2 - mu) / sigma``, with one
    vectorised exponential per count (``squares``, ``density``, ``bits``: scratch of ``count`` entries) and no
    recurrence: the normal cdf's step ``Phi(z_k) - Phi(z_{k-1})`` by Euler-Maclaurin, ``d (phi_{k-1} + phi_k) / 2 +
    J(z_k) phi_k - J(z_{k-1}) phi_{k-1}``, ``d = 1/sigma``, ``J = d^2/12 He_1 - d^4/720 He_3 + d^6/30240 He_5 -
    d^8/1209600 He_7`` (``phi^(j) = (-1)^j He_j phi``). The end terms telescope, so ``F(c_lo) + sum_{k'<=k}
    mass_k'`` differs from the expansion's cdf by the Euler-Maclaurin remainder over ``[z_lo, z_k]``, at most
    ``2 zeta(8) / (2 pi)^8 d^8 int |phi^(8)| <= 8.3e-7 d^8 sqrt(8!)`` = 4.3e-10 at ``sigma >= 5`` (not clipped to
    [0, 1], unlike :func:`_rest_cdf`)."""
    d = 1.0 / sigma
    d2 = d * d
    j1 = d2 / 12.0
    j3 = -d2 * d2 / 720.0
    j5 = d2 * d2 * d2 / 30240.0
    j7 = -d2 * d2 * d2 * d2 / 1209600.0
    a3 = g1 / 6.0
    a4 = g2 / 24.0
    a6 = g1 * g1 / 72.0
    z0 = (c_lo + 0.5 - mu) * d
    for k in range(count):
        z = z0 + k * d
        squares[k] = 0.5 * z * z
    node_decays(1.0, squares[:count], density[:count], bits[:count])
    # J - E as a polynomial in z: c0 + c2 z^2 + z (c1 + c3 z^2 + c5 z^4 + c7 z^6)
    c0 = a3
    c2 = -a3
    c1 = j1 - 3.0 * j3 + 15.0 * j5 - 105.0 * j7 + 3.0 * a4 - 15.0 * a6
    c3 = j3 - 10.0 * j5 + 105.0 * j7 - a4 + 10.0 * a6
    c5 = j5 - 21.0 * j7 - a6
    c7 = j7
    for k in range(count):  # squares <- (J - E) phi, density <- phi
        z = z0 + k * d
        z2 = z * z
        phi = _INV_SQRT2PI * density[k]
        density[k] = phi
        squares[k] = (c0 + c2 * z2 + z * (c1 + z2 * (c3 + z2 * (c5 + z2 * c7)))) * phi
    mass[0] = min(max(_normal_cdf(z0) - density[0] * _edgeworth_poly(z0, a3, a4, a6), 0.0), 1.0)
    half = 0.5 * d
    for k in range(1, count):
        mass[k] = half * (density[k - 1] + density[k]) + squares[k] - squares[k - 1]


@njit(cache=True)
def _window_constants(sigma: float, fixed: np.ndarray) -> None:
    """The constants of :func:`_edgeworth_window` at spread ``sigma`` (``d = 1/sigma``; a step's points at the
    offsets ``o`` = 0, o1, d/2, d - o1): ``fixed[i] = exp(-o_i^2/2)``, ``fixed[4 + i] = exp(-o_i d - d^2/2)``."""
    d = 1.0 / sigma
    o1 = 0.5 * d * (1.0 - _GL3_X)
    o3 = d - o1
    fixed[0] = 1.0
    fixed[1] = math.exp(-0.5 * o1 * o1)
    fixed[2] = math.exp(-0.125 * d * d)
    fixed[3] = math.exp(-0.5 * o3 * o3)
    fixed[4] = math.exp(-0.5 * d * d)
    fixed[5] = math.exp(-o1 * d - 0.5 * d * d)
    fixed[6] = math.exp(-d * d)
    fixed[7] = math.exp(-o3 * d - 0.5 * d * d)


@njit(cache=True)
def _edgeworth_window(window: np.ndarray, c_lo: int, c_hi: int, mu: float, sigma: float, g1: float,
                      g2: float, fixed: np.ndarray) -> None:
    """``window[c - c_lo]``: the Edgeworth cdf of :func:`_rest_cdf` at every count ``c_lo..c_hi``, without a
    transcendental per count: the normal density at ``z_c = (c + 1/2 - mu) / sigma`` and at the three
    Gauss-Legendre points of each step ``[z_c, z_c + 1/sigma]`` by the recurrence ``phi(z + d) = phi(z) r``,
    ``r <- r exp(-d^2)``; the normal cdf advanced by the step's 3-point rule (error ~ d^7 / 2e6 per step,
    d = 1/sigma <= 1 / RECURRENCE_SIGMA) and restarted from ``erfc`` every :data:`RECURRENCE_RESTART` counts.
    A restart takes ``phi(z + o) = phi(z) exp(-z o) exp(-o^2/2)`` and ``r = exp(-z d) exp(-o d - d^2/2)``: three
    exponentials of ``z`` and a square root, the rest from ``fixed`` (:func:`_window_constants` of ``sigma``)."""
    d = 1.0 / sigma
    shrink = fixed[6]
    o1 = 0.5 * d * (1.0 - _GL3_X)
    a3 = g1 / 6.0
    a4 = g2 / 24.0
    a6 = g1 * g1 / 72.0
    half = 0.5 * d
    for start in range(c_lo, c_hi + 1, RECURRENCE_RESTART):
        z = (start + 0.5 - mu) / sigma
        cdf = _normal_cdf(z)
        density = _INV_SQRT2PI * math.exp(-0.5 * z * z)
        step = math.exp(-z * d)
        first = math.exp(-z * o1)
        v0 = density
        v1 = density * first * fixed[1]
        v2 = density * math.sqrt(step) * fixed[2]
        v3 = density * (step / first) * fixed[3]
        r0 = step * fixed[4]
        r1 = step * fixed[5]
        r2 = step * fixed[6]
        r3 = step * fixed[7]
        for k in range(start - c_lo, min(start + RECURRENCE_RESTART, c_hi + 1) - c_lo):
            window[k] = min(max(cdf - v0 * _edgeworth_poly(z, a3, a4, a6), 0.0), 1.0)
            cdf += half * (_GL3_W0 * (v1 + v3) + _GL3_W1 * v2)
            v0 *= r0
            v1 *= r1
            v2 *= r2
            v3 *= r3
            r0 *= shrink
            r1 *= shrink
            r2 *= shrink
            r3 *= shrink
            z += d


@njit(cache=True, inline="always")
def _rest_cdf(c: int, poisson: bool, pmf: np.ndarray, pcdf: np.ndarray, s2: float, s3: float, mu: float,
              sigma: float, g1: float, g2: float) -> float:
    """``P(R <= c)`` of the rest's count by its expansion (Poisson-Charlier from the Poisson ``pmf``/``pcdf``, or
    Edgeworth), clipped to [0, 1]."""
    if poisson:
        pc = pmf[c]
        p1 = pmf[c - 1] if c >= 1 else 0.0
        p2 = pmf[c - 2] if c >= 2 else 0.0
        p3 = pmf[c - 3] if c >= 3 else 0.0
        d1 = pc - p1
        d2 = pc - 2.0 * p1 + p2
        d3 = pc - 3.0 * p1 + 3.0 * p2 - p3
        f = pcdf[c] - 0.5 * s2 * d1 - s3 / 3.0 * d2 + 0.125 * s2 * s2 * d3
    else:
        z = (c + 0.5 - mu) / sigma
        density = _INV_SQRT2PI * math.exp(-0.5 * z * z)
        f = _normal_cdf(z) - density * _edgeworth_poly(z, g1 / 6.0, g2 / 24.0, g1 * g1 / 72.0)
    clipped: float = min(max(f, 0.0), 1.0)
    return clipped


@njit(cache=True)
def rest_payoffs(field: LocalField, members: np.ndarray) -> np.ndarray:
    """``payoff[q, m] = E[pay(1 + m + R(t_q))]`` for ``m < len(members)``: ``R`` the count of players rung by
    ``t_q`` among those not in ``members`` (their law is the same in every outcome of a hand that changes only
    the members' stacks; computed once, used by every :func:`member_equity` of the hand)."""
    members_alive = 0
    for r in range(members.size):
        if field.stacks[members[r]] > 0:
            members_alive += 1
    payoff = np.empty((field.nodes.size, members.size))
    if field.alive[0] <= SUBSET_PLAYERS or field.nodes.size == 0:
        return payoff
    top = field.band_end[field.band_end.size - 1] if field.band_end.size else 0
    scratch = np.empty(max(2 * int(MU_SWITCH + 12.0 * math.sqrt(MU_SWITCH) + 24.0) + 4, top + 2))
    # the rest's count has variance at most alive / 4: its window (8 sigma + 6 each side) fits 8 sqrt(alive) + 15
    window = np.empty(int(8.0 * math.sqrt(field.alive[0])) + 16)
    _rest_payoffs(field, members, field.alive[0] - members_alive, members.size, payoff, scratch, window)
    return payoff


@njit(cache=True)
def members_left(field: LocalField, members: np.ndarray, row: np.ndarray) -> tuple[int, int]:
    """(players with chips, members knocked out) when the members' stacks become ``row`` (chips; 0: out)."""
    busted = 0  # members out in this outcome who had chips
    left = field.alive[0]
    for r in range(members.size):
        before = field.stacks[members[r]] > 0
        if before and row[r] <= 0:
            busted += 1
            left -= 1
        elif not before and row[r] > 0:
            left += 1  # a member all in from the blinds who wins chips back
    return left, busted


@njit(cache=True)
def outcome_stacks(field: LocalField, members: np.ndarray, row: np.ndarray, hero: int, left: int) -> np.ndarray:
    """The ``left`` stacks with chips when the members' stacks become ``row`` and every other stack is as in
    ``field``: ``members[hero]``'s first, then the other members', then the rest of the field's."""
    stacks = np.empty(left)
    stacks[0] = row[hero]
    i = 1
    for r in range(members.size):
        if r != hero and row[r] > 0:
            stacks[i] = row[r]
            i += 1
    for j in range(field.stacks.size):
        if field.stacks[j] <= 0:
            continue
        member = False
        for r in range(members.size):
            if members[r] == j:
                member = True
        if not member:
            stacks[i] = field.stacks[j]
            i += 1
    return stacks


@njit(cache=True)
def busted_share(pay: np.ndarray, alive: int, busted: int) -> float:
    """Money of one of ``busted`` players knocked out together from ``alive``: the places alive-busted+1..alive
    shared equally."""
    total = 0.0
    for place in range(alive - busted + 1, alive + 1):
        total += pay[place - 1]
    return total / busted


@njit(cache=True)
def member_equity(field: LocalField, members: np.ndarray, row: np.ndarray, payoff: np.ndarray, hero: int) -> float:
    """The ICM equity of ``members[hero]`` when the members' stacks become ``row`` (chips; 0: out) and every
    other stack is as in ``field``; ``payoff`` from :func:`rest_payoffs` of the same members. Members knocked out
    in the outcome share their places' money. (A decision's many outcomes: :func:`pair_equity`.)"""
    r_count = members.size
    pay = field.pay
    left, busted = members_left(field, members, row)
    if row[hero] <= 0:
        return busted_share(pay, left + busted, max(busted, 1))
    if field.nodes.size == 0 and field.alive[0] > SUBSET_PLAYERS:
        # built with every open place paying the same (no nodes needed): the equity is that prize
        flat: float = field.pay[:left].sum() / left
        return flat
    if field.alive[0] <= SUBSET_PLAYERS or field.nodes.size == 0:
        stacks = outcome_stacks(field, members, row, hero, left)
        places = icm_subset(stacks / stacks.sum(), left)
        value = 0.0
        for m in range(left):
            value += places[0, m] * pay[m]
        return value
    base = pay[left - 1]  # the last place still open; the integrand below pays what is above it
    rate = row[hero] * field.scale
    count = np.empty(r_count)
    value = 0.0
    for q in range(field.nodes.size):
        t = field.nodes[q]
        for m in range(r_count):
            count[m] = 0.0
        count[0] = 1.0
        used = 0
        for r in range(r_count):  # Poisson-binomial of the other members
            x = row[r] * field.scale
            if r == hero or x <= 0:
                continue
            p = -math.expm1(-x * t)
            used += 1
            for m in range(used, 0, -1):
                count[m] = count[m] * (1.0 - p) + count[m - 1] * p
            count[0] *= 1.0 - p
        expected = 0.0
        for m in range(used + 1):
            expected += count[m] * payoff[q, m]
        survive = math.exp(-rate * t)
        value += field.weights[q] * rate * survive * (expected - base)
    # past t_end the integrand is 0: the hero, if not rung yet, is past the paid places or in the last one
    equity: float = base + value
    return equity


class PairTerms(NamedTuple):
    """One decision's outcomes, each moving the hero's stack and at most one other member's away from a base row
    of the members' stacks (build with :func:`pair_terms`, read with :func:`pair_equity`). Per node ``q`` and
    member ``j``: ``a[j, q]`` (``b[j, q]``) is the rest's payoff averaged over the other members but the hero and
    ``j`` at their base stacks, with ``j`` not rung (rung) by ``t_q``; ``whole[q]`` the same with ``j`` too at his
    base stack. The node decays ``exp(-x t_q)`` of the stacks the outcomes reach are kept, each stack once."""

    a: np.ndarray  # float64[R, Q]
    b: np.ndarray  # float64[R, Q]
    whole: np.ndarray  # float64[Q]
    rates: np.ndarray  # float64[K]: clock rates whose node decays are kept (-1: free slot)
    decay: np.ndarray  # float64[K, Q]: exp(-rates[k] t_q)
    used: np.ndarray  # int64[1]: slots of rates/decay in use
    bits: np.ndarray  # int64[Q]: scratch of node_decays


@njit(cache=True, inline="always")
def _one_minus(x: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.size):
        out[i] = 1.0 - x[i]


@njit(cache=True, inline="always")
def _mix(stay: np.ndarray, move: np.ndarray, p: np.ndarray, out: np.ndarray, n: int) -> None:
    """``out = stay + (move - stay) p`` on the first ``n`` entries (one step of a Bernoulli)."""
    for i in range(n):
        out[i] = stay[i] + (move[i] - stay[i]) * p[i]


@njit(cache=True, inline="always")
def _dot_into(x: np.ndarray, y: np.ndarray, out: np.ndarray, n: int) -> None:
    for i in range(n):
        out[i] += x[i] * y[i]


@njit(cache=True)
def pair_terms(field: LocalField, members: np.ndarray, near: np.ndarray, payoff: np.ndarray, hero: int,
               slots: int) -> PairTerms:
    """The :class:`PairTerms` of ``members[hero]``'s outcomes around the base row ``near`` (chips of
    ``members``), ``payoff`` from :func:`rest_payoffs` of ``members``; ``slots`` (at least 2) distinct stacks
    besides the members' kept (more are computed each time). Per node: the other members' count law by prefix
    products, the payoffs propagated back from the last member (``g_k(a) = (1 - p_k) g_{k+1}(a) + p_k g_{k+1}(a +
    1)``), and each member's two terms as the dot product of the two: ``O(R^2)`` per node, against ``O(R^2)`` per
    node and outcome member by member."""
    count = members.size
    nodes = field.nodes.size
    a = np.zeros((count, nodes))
    b = np.zeros((count, nodes))
    whole = np.zeros(nodes)
    rates = np.full(count + max(slots, 2), -1.0)
    decay = np.empty((rates.size, nodes))
    bits = np.empty(nodes, dtype=np.int64)
    for r in range(count):
        x = near[r] * field.scale if near[r] > 0 else 0.0
        rates[r] = x
        node_decays(x, field.nodes, decay[r], bits)
    # nodes in blocks, the node innermost: each step below is one vectorised loop over a block's nodes
    prob = np.zeros((count, _BLOCK))
    zeros = np.zeros(_BLOCK)
    prefix = np.zeros((count + 1, count + 2, _BLOCK))
    back = np.zeros((count + 1, count + 2, _BLOCK))
    for q0 in range(0, nodes, _BLOCK):
        nq = min(_BLOCK, nodes - q0)
        # 1-d views indexed by the loop counter only (no wraparound test): the loops vectorise
        for r in range(count):
            if r != hero and near[r] > 0:
                _one_minus(decay[r, q0: q0 + nq], prob[r])
        prefix[0, 0, :nq] = 1.0
        for k in range(count):
            p = prob[k]
            for c in range(k + 1, 0, -1):
                _mix(prefix[k, c], prefix[k, c - 1], p, prefix[k + 1, c], nq)
            _mix(prefix[k, 0], zeros, p, prefix[k + 1, 0], nq)
        for c in range(count + 2):
            back[count, c, :nq] = payoff[q0: q0 + nq, min(c, count - 1)]
        for k in range(count - 1, -1, -1):
            for c in range(k + 1):
                _mix(back[k + 1, c], back[k + 1, c + 1], prob[k], back[k, c], nq)
        whole[q0: q0 + nq] = back[0, 0, :nq]
        for j in range(count):
            for c in range(j + 1):
                _dot_into(prefix[j, c], back[j + 1, c], a[j, q0: q0 + nq], nq)
                _dot_into(prefix[j, c], back[j + 1, c + 1], b[j, q0: q0 + nq], nq)
    return PairTerms(a, b, whole, rates, decay, np.full(1, count, dtype=np.int64), bits)


@njit(cache=True)
def _decay_row(field: LocalField, terms: PairTerms, x: float, keep: int) -> int:
    """The slot of ``terms.decay`` holding ``exp(-x t_q)``: computed into a free slot, or when none is free into
    one of the last two, not ``keep`` (a slot the caller still reads); the members' own slots stay."""
    used = terms.used[0]
    for k in range(used):
        if terms.rates[k] == x:
            return k
    k = used
    if used >= terms.rates.size:
        k = terms.rates.size - 1 if keep != terms.rates.size - 1 else terms.rates.size - 2
    terms.rates[k] = x
    node_decays(x, field.nodes, terms.decay[k], terms.bits)
    terms.used[0] = max(used, k + 1)
    return k


@njit(cache=True, fastmath={"reassoc", "contract"})
def _pair_sum(weights: np.ndarray, survive: np.ndarray, a: np.ndarray, b: np.ndarray, decay: np.ndarray,
              base: float) -> float:
    """``sum_q weights_q survive_q (b_q + (a_q - b_q) decay_q - base)`` (reassociated: vectorised)."""
    total = 0.0
    for q in range(weights.size):
        total += weights[q] * survive[q] * (b[q] + (a[q] - b[q]) * decay[q] - base)
    value: float = total
    return value


@njit(cache=True)
def pair_equity(field: LocalField, members: np.ndarray, row: np.ndarray, terms: PairTerms, hero: int,
                other: int) -> float:
    """:func:`member_equity` of ``members[hero]`` where ``row`` differs from the base row of ``terms`` in the
    hero's stack and ``members[other]``'s only (``other = -1``: the hero's only): the same quadrature, each
    node an ``O(1)`` read of ``terms``. Valid where :func:`member_equity` integrates (``field.nodes`` not empty
    and more than :data:`SUBSET_PLAYERS` alive)."""
    left, busted = members_left(field, members, row)
    if row[hero] <= 0:
        return busted_share(field.pay, left + busted, max(busted, 1))
    base = field.pay[left - 1]
    rate = row[hero] * field.scale
    kept = _decay_row(field, terms, rate, -1)
    survive = terms.decay[kept]
    weights = field.weights
    if other < 0 or other == hero:
        value = _pair_sum(weights, survive, terms.whole, terms.whole, terms.whole, base)
    elif row[other] <= 0:
        value = _pair_sum(weights, survive, terms.a[other], terms.a[other], terms.whole, base)
    else:
        rung = terms.decay[_decay_row(field, terms, row[other] * field.scale, kept)]
        value = _pair_sum(weights, survive, terms.a[other], terms.b[other], rung, base)
    equity: float = base + rate * value
    return equity


@njit(cache=True)
def outcome_equities(field: LocalField, members: np.ndarray, after: np.ndarray, out: np.ndarray) -> None:
    """``out[o]``: the ICM equity of player ``members[0]`` (the hero) when the stacks of ``members`` (at most
    :data:`MEMBERS_MAX`, the players a hand changes; the others as in ``field``) become ``after[o]`` (chips; 0:
    out). Players knocked out in the same outcome share their places' money."""
    payoff = rest_payoffs(field, members)
    for o in range(after.shape[0]):
        out[o] = member_equity(field, members, after[o], payoff, 0)


def equity_after(field: LocalField, members: Any, after: Any) -> np.ndarray:
    """The hero's (``members[0]``) equity in each outcome row of ``after`` (chips of ``members``), by local ICM.

    >>> field = local_field([5000, 3000, 2000, 1000], [50, 30, 20])
    >>> [round(float(v), 6) for v in equity_after(field, [3, 0], [[1000, 5000], [2000, 4000]])]
    [12.790404, 20.723665]
    """
    ids = np.asarray(members, dtype=np.int64)
    rows = np.atleast_2d(np.asarray(after, dtype=np.float64))
    if ids.ndim != 1 or not 1 <= ids.size <= MEMBERS_MAX:
        raise InvalidArgumentError(f"give 1 to {MEMBERS_MAX} members (the players whose stacks the hand changes)")
    if np.unique(ids).size != ids.size or ids.min() < 0 or ids.max() >= field.stacks.size:
        raise InvalidArgumentError("members must be distinct player indices of the field")
    if rows.shape[1] != ids.size or not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise InvalidArgumentError("after must hold one row of chips (>= 0) per outcome, one per member")
    out = np.empty(rows.shape[0])
    outcome_equities(field, ids, np.ascontiguousarray(rows), out)
    return out
