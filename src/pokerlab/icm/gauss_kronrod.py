"""The one adaptive integrator of the ICM race integrals: the Gauss-Kronrod 7-15 rule (QUADPACK qk15) over panels
of ``w``, with one acceptance rule.

Start with panels at most 3 wide (:func:`initial_panels`); keep a panel once ``max_i |K15_i - G7_i| <= tau *
scale_i`` with ``tau = 0.01 sqrt(rtol)`` (:func:`acceptance_tolerance`): the 15-point Kronrod error is about the
square of the 7-point Gauss error for these analytic integrands (measured, see docs/algorithms.md), so the kept
value is ~``0.01 rtol`` accurate per panel. Otherwise bisect (:func:`accept_or_split`). ``scale_i`` = the first
round's total of component i, at least a floor (:func:`first_scale`). The equity integral runs the loop compiled
(:func:`pokerlab.icm.banded.race_equity_advance`), the finish-place matrix from Python (:func:`adaptive_integral`);
both through these functions, both in calls of about :data:`CALL_SECONDS` (:class:`CallBudget`) whose groups of
panels and node steps (:func:`next_group`, :func:`node_steps`) do not change the result."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import njit

from pokerlab.progress import deferred_interrupts

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


MAX_DEPTH = 40  # bisection rounds; the last round keeps every panel


@njit(cache=True)
def acceptance_tolerance(rtol: float) -> float:
    """``tau = 0.01 sqrt(rtol)``: the largest Kronrod-Gauss difference, relative to the scale, of a kept panel."""
    tolerance: float = 0.01 * np.sqrt(rtol)
    return tolerance


@njit(cache=True)
def initial_panel_count(w_end: float) -> int:
    """``max(2, ceil(w_end / 3))``: how many panels the first round has."""
    return max(2, int(np.ceil(w_end / 3.0)))


@njit(cache=True)
def initial_panels(w_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Left and right ends of :func:`initial_panel_count` equal panels covering ``[0, w_end]``."""
    npan = initial_panel_count(w_end)
    left = np.empty(npan)
    right = np.empty(npan)
    for j in range(npan):
        left[j] = w_end * j / npan
        right[j] = w_end * (j + 1) / npan
    return left, right


@njit(cache=True)
def first_scale(kron: np.ndarray, scale_floor: float, scale: np.ndarray) -> None:
    """``scale[i]`` = ``|sum over panels of kron[:, i]|``, at least ``scale_floor``."""
    m, n = kron.shape
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += kron[j, i]
        scale[i] = max(abs(acc), scale_floor)


@njit(cache=True)
def accept_or_split(kron: np.ndarray, gau: np.ndarray, left: np.ndarray, right: np.ndarray, scale: np.ndarray,
                    tau: float, w_end: float, last: bool, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One round of the rule: add the Kronrod value of each kept panel to ``total`` (in panel order) and return
    the halves of the others (empty when every panel is kept). A panel is kept when its largest relative
    Kronrod-Gauss difference is at most ``tau``, when it is narrower than ``1e-9 w_end``, or in the ``last``
    round."""
    m, n = kron.shape
    bad = np.zeros(m, dtype=np.bool_)
    nbad = 0
    for j in range(m):
        err = 0.0
        for i in range(n):
            e = abs(kron[j, i] - gau[j, i]) / scale[i]
            if e > err:
                err = e
        if err > tau and right[j] - left[j] > 1e-9 * w_end and not last:
            bad[j] = True
            nbad += 1
        else:
            for i in range(n):
                total[i] += kron[j, i]
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
    return new_left, new_right


@njit(cache=True)
def next_group(panels: int, start: int, room: int, per_panel: int, min_group: int) -> int:
    """End of the next group of panels from ``start`` (of ``panels`` this round) for a budget of ``room``
    evaluations: the whole rest of the round when it fits (one parallel call per round, the fastest), else as
    many whole panels as fit, rounded down to a multiple of ``min_group`` (the threads: a group of 3 panels on
    2 threads would leave one idle half the time) and at least ``min_group``."""
    rest = panels - start
    if room >= per_panel * rest:
        return panels
    size = max(min_group, room // per_panel // min_group * min_group)
    return start + min(rest, size)


@njit(cache=True)
def node_steps(group: int, nodes_left: int, room: int) -> int:
    """How many of the ``nodes_left`` nodes a group of ``group`` panels evaluates within ``room`` evaluations
    (at least one)."""
    return max(1, min(nodes_left, room // group))


#: ``evaluate(left, right, first, last, kron, gauss, carried)``: add nodes ``first .. last - 1`` of the rule on
#: each panel ``[left[p], right[p]]`` to the Kronrod and Gauss sums ``kron[p]``, ``gauss[p]`` (one row of
#: components per panel), ``carried[p]`` holding whatever the panel's next node needs from its last (0 at first).
NodeEvaluator = Callable[[np.ndarray, np.ndarray, int, int, np.ndarray, np.ndarray, np.ndarray], None]


def adaptive_integral(evaluate: NodeEvaluator, components: int, w_end: float, rtol: float, scale_floor: float,
                      first_budget: int = 1 << 62, min_group: int = 1,
                      progress: Callable[[float], None] | None = None) -> tuple[np.ndarray, int]:
    """The integral over ``[0, w_end]`` of a vector integrand of ``components`` components. Returns the total and
    the number of integrand evaluations (15 per panel).

    ``evaluate`` runs in calls of about :data:`CALL_SECONDS` (:class:`CallBudget`, the first call
    ``first_budget`` evaluations), each inside :func:`pokerlab.progress.deferred_interrupts`: Ctrl-C stops the
    integration between calls. A call covers a group of panels (a multiple of ``min_group``, the threads, where
    the round has that many) and some of their nodes (:func:`next_group`, :func:`node_steps`); the result does not
    depend on the split. ``progress`` gets the estimated fraction done (:class:`ProgressEstimate`).

    >>> def widths(left, right, first, last, kron, gauss, carried):  # the integral of 1 on each panel
    ...     kron[:, 0] += (right - left) * (last - first) / 15
    ...     gauss[:, 0] += (right - left) * (last - first) / 15
    >>> total, evaluations = adaptive_integral(widths, 1, 6.0, 1e-10, 1.0, first_budget=4)
    >>> round(float(total[0]), 12), evaluations
    (6.0, 30)
    """
    tau = acceptance_tolerance(rtol)
    left, right = initial_panels(w_end)
    total = np.zeros(components)
    scale = np.empty(components)
    calls = CallBudget(first_budget)
    estimate = ProgressEstimate(15)
    count = 0
    for depth in range(MAX_DEPTH):
        panels = left.shape[0]
        kron = np.zeros((panels, components))
        gauss = np.zeros((panels, components))
        carried = np.zeros(panels)
        start = 0
        while start < panels:
            end = next_group(panels, start, calls.budget, 15, min_group)
            node = 0
            while node < 15:
                steps = node_steps(end - start, 15 - node, calls.budget)
                calls.start()
                with deferred_interrupts():
                    evaluate(left[start:end], right[start:end], node, node + steps, kron[start:end],
                             gauss[start:end], carried[start:end])
                calls.measured((end - start) * steps)
                count += (end - start) * steps
                node += steps
                if progress is not None:
                    progress(estimate.fraction(count, panels, 15 * (panels - start) - (end - start) * node))
            start = end
        if depth == 0:
            first_scale(kron, scale_floor, scale)
        left, right = accept_or_split(kron, gauss, left, right, scale, tau, w_end, depth == MAX_DEPTH - 1, total)
        if left.shape[0] == 0:
            break
    if progress is not None:
        progress(1.0)
    return total, count


CALL_SECONDS = 0.1  # wall time aimed at per kernel call of a long integration: Ctrl-C waits about this long


class CallBudget:
    """Integrand evaluations per kernel call of a long integration, sized so that a call takes about
    :data:`CALL_SECONDS` by the rate of the calls before (at most four times the last budget, so a first call
    slowed by loading a kernel only shrinks the next ones). ``first``: the first call's budget, from a work
    estimate.

    >>> budget = CallBudget(100)
    >>> budget.measured(100, 0.5)  # 200 evaluations a second: 20 in a tenth of a second
    >>> budget.budget
    20
    """

    def __init__(self, first: int) -> None:
        self.budget = max(1, first)
        self.began = time.perf_counter()

    def start(self) -> None:
        """A call begins now."""
        self.began = time.perf_counter()

    def measured(self, evaluations: int, seconds: float | None = None) -> None:
        """The call that began at :meth:`start` did ``evaluations`` (in ``seconds``, by default since then)."""
        spent = time.perf_counter() - self.began if seconds is None else seconds
        if evaluations > 0:
            rate_budget = int(evaluations * CALL_SECONDS / spent) if spent > 0 else 4 * self.budget
            self.budget = max(1, min(rate_budget, 4 * max(self.budget, evaluations)))


class ProgressEstimate:
    """The fraction of an adaptive integration done, for a progress bar: the evaluations done over those done,
    those left in this round, and a quarter of this round's panels again for the rounds after it (the first
    rounds of the large fields measured: 30 then 4 panels at 50,000 players / 7,000 paid, 15 then 4 at
    10,000 / 1,500). Never goes back.

    >>> estimate = ProgressEstimate(15)
    >>> estimate.fraction(done=150, panels=20, left=150)  # half of round 0, then 5 more panels guessed
    0.4
    """

    def __init__(self, per_panel: int) -> None:
        self.per_panel = per_panel
        self.shown = 0.0

    def fraction(self, done: int, panels: int, left: int) -> float:
        """``done`` evaluations so far, ``left`` of this round of ``panels`` panels."""
        planned = done + left + self.per_panel * -(-panels // 4)
        self.shown = max(self.shown, min(done / planned, 1.0) if planned else 1.0)
        return self.shown
