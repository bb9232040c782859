"""The one adaptive integrator of the ICM race integrals: the Gauss-Kronrod 7-15 rule (QUADPACK qk15) over panels
of ``w``, with one acceptance rule.

Start with panels at most 3 wide (:func:`initial_panels`); keep a panel once ``max_i |K15_i - G7_i| <= tau *
scale_i`` with ``tau = 0.01 sqrt(rtol)`` (:func:`acceptance_tolerance`): the 15-point Kronrod error is about the
square of the 7-point Gauss error for these analytic integrands (measured, see docs/algorithms.md), so the kept
value is ~``0.01 rtol`` accurate per panel. Otherwise bisect (:func:`accept_or_split`). ``scale_i`` = the first
round's total of component i, at least a floor (:func:`first_scale`). The equity integral runs the loop compiled
(:func:`pokerlab.icm.banded.race_equity_adaptive`), the finish-place matrix from Python
(:func:`adaptive_integral`); both through these functions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

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
    return 0.01 * np.sqrt(rtol)


@njit(cache=True)
def initial_panels(w_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Left and right ends of ``max(2, ceil(w_end / 3))`` equal panels covering ``[0, w_end]``."""
    npan = max(2, int(np.ceil(w_end / 3.0)))
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


def adaptive_integral(evaluate: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]], w_end: float,
                      rtol: float, scale_floor: float) -> tuple[np.ndarray, int]:
    """The integral over ``[0, w_end]`` of a vector integrand, ``evaluate(left, right)`` giving the Kronrod and
    the Gauss estimate of each panel, shape ``(panels, components)``. Returns the total and the number of
    integrand evaluations (15 per panel).

    >>> total, _ = adaptive_integral(lambda l, r: (np.stack([r - l]).T, np.stack([r - l]).T), 6.0, 1e-10, 1.0)
    >>> float(total[0])
    6.0
    """
    tau = acceptance_tolerance(rtol)
    left, right = initial_panels(w_end)
    kron, gau = evaluate(left, right)
    total = np.zeros(kron.shape[1])
    scale = np.empty(kron.shape[1])
    first_scale(kron, scale_floor, scale)
    count = 0
    for depth in range(MAX_DEPTH):
        if depth:
            kron, gau = evaluate(left, right)
        count += 15 * left.shape[0]
        left, right = accept_or_split(kron, gau, left, right, scale, tau, w_end, depth == MAX_DEPTH - 1, total)
        if left.shape[0] == 0:
            break
    return total, count
