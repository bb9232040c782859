"""ICM of a table's seats inside a fixed field, for many table outcomes at once.

The ICM of one outcome over ~1,000 players (:func:`pokerlab.icm.icm`, the exponential-race quadrature) costs tens
of milliseconds, and a 9-seat push/fold game has ~9,000 outcomes. Only the table's stacks change between
outcomes; the field's do not, and the table's chip total does not either (chips are conserved in a hand). In
the exponential race (Malmuth-Harville: player ``i``'s clock rings at rate ``s_i``, earlier rings take better
places) the equity of table seat ``i`` is

    ``E_i = integral_0^inf s_i e^{-s_i t} sum_a P(a others rang by t) pay[a] dt``,

and the others are the field plus the other table seats. So the field's count distribution at each quadrature
node (``P_F(t)[a]``, ``a`` below the paid places ``k``) is computed once, on one fixed rule; each outcome then
adds its few table seats by a forward pass of count distributions and a backward pass of expected payouts
(``O(seats * k)`` per node), as :func:`pokerlab.icm.banded.race_values_banded` does for all players.

The rule: composite Gauss-Legendre in the race variable ``w = sqrt(mu(t)) + log(1 + t)`` of the stacks before
the hand (:func:`pokerlab.icm.race.race_variable`), panels ``PANEL_WIDTH`` wide, up to where fewer than ``k``
field players have rung with probability below ``e^-45``. Its accuracy is checked against the exact engine
when built (:meth:`FieldICM.check`) and in tests/pushfold/test_model.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.icm.race import race_variable, time_of_w

PANEL_WIDTH = 1.0  # 1e-13 of a 35,456 pool against the exact engine (991 players, 150 paid); 0.25 gave the same
CHECK_TOLERANCE = 1e-9  # of the prize pool, at the stacks before the hand, else the panels are halved
GAUSS_NODES = 8
TAIL_SIGMAS = 10.0  # the field's count is below k with probability < e^-50 past mu = k + 10 sqrt(mu)


class FieldICM:
    """Equity of table seats among ``field`` stacks for payouts ``payouts`` (money per place, first down).

    Usable when the field alone is larger than the paid places (``len(field) > paid places``): then the
    integrand vanishes once enough of the field has rung, and the rule above covers it. ``reference``: the
    table's stacks before the hand; they and the field fix the rule, which is checked there against the exact
    engine (``error``, money) and refined until within ``CHECK_TOLERANCE`` of the pool (``ValueError`` if
    it cannot be: the caller falls back to the exact engine per outcome).

    >>> from pokerlab.icm import icm
    >>> field, pay = np.full(40, 10.0), np.array([50.0, 30.0, 20.0])
    >>> f = FieldICM(np.array([10.0, 10.0]), field, pay)
    >>> bool(np.allclose(f.equity(np.array([15.0, 5.0])), icm(np.r_[15.0, 5.0, field], pay).equity[:2]))
    True
    """

    def __init__(self, reference: np.ndarray, field: np.ndarray, payouts: np.ndarray) -> None:
        from pokerlab.icm import icm  # noqa: PLC0415 (the exact engine, for the check)

        paying = np.flatnonzero(payouts > 0)
        self.places = int(paying[-1]) + 1 if paying.size else 0
        if not 0 < self.places < field.size:
            raise ValueError("the field must be larger than the paid places, and some place must pay")
        self.scale = float(np.mean(np.concatenate([reference, field])))
        self.pay = np.ascontiguousarray(payouts[: self.places], dtype=np.float64)
        stacks = np.concatenate([reference, field]) / self.scale
        exact = icm(np.concatenate([reference, field]), payouts[: stacks.size]).equity[: reference.size]
        width = PANEL_WIDTH
        for _ in range(6):
            self.times, self.weights = _rule(stacks, field / self.scale, self.places, width)
            self.field_counts = _field_counts(field / self.scale, self.times, self.places)
            self.error = float(np.max(np.abs(self.equity(reference) - exact)))
            if self.error <= CHECK_TOLERANCE * float(self.pay.sum()):
                return
            width /= 2.0
        raise ValueError(f"the fixed-field rule missed the exact ICM by {self.error:.3g}")  # pragma: no cover

    def equity(self, table: np.ndarray) -> np.ndarray:
        """Equity (money) of each table seat with chips ``table`` (> 0; busted seats are the caller's)."""
        out = np.zeros(table.size)
        _table_equity(table / self.scale, self.pay, self.times, self.weights, self.field_counts, out)
        return out


def _rule(stacks: np.ndarray, field: np.ndarray, places: int, panel_width: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``t`` and weights ``dw * dt/dw`` of the composite Gauss-Legendre rule (see the module docstring)."""
    t_end = 1.0
    while True:
        mu = float(np.sum(-np.expm1(-field * t_end)))
        if mu >= places + TAIL_SIGMAS * np.sqrt(max(mu, 1.0)) or mu >= field.size - 0.5:
            break
        t_end *= 1.5
    w_end = race_variable(stacks, t_end)[0]
    panels = int(np.ceil(w_end / panel_width))
    x, gw = np.polynomial.legendre.leggauss(GAUSS_NODES)
    width = w_end / panels
    times = np.empty(panels * GAUSS_NODES)
    weights = np.empty(panels * GAUSS_NODES)
    guess = 0.0
    for p in range(panels):
        for j in range(GAUSS_NODES):
            w = width * (p + 0.5 * (x[j] + 1.0))
            t = time_of_w(stacks, w, guess if guess > 0 else w * w / stacks.sum())
            guess = t
            slope = race_variable(stacks, t)[1]
            times[p * GAUSS_NODES + j] = t
            weights[p * GAUSS_NODES + j] = 0.5 * width * gw[j] / slope
    return times, weights


@njit(cache=True)
def _field_counts(field: np.ndarray, times: np.ndarray, places: int) -> np.ndarray:
    """``P(a field players rang by t)`` for ``a < places`` at every node (the rest pays nothing)."""
    out = np.zeros((times.shape[0], places))
    for k in range(times.shape[0]):
        row = out[k]
        row[0] = 1.0
        top = 0
        for j in range(field.shape[0]):
            p = -np.expm1(-field[j] * times[k])
            q = 1.0 - p
            top = min(top + 1, places - 1)
            for a in range(top, 0, -1):
                row[a] = q * row[a] + p * row[a - 1]
            row[0] *= q
    return out


@njit(cache=True)
def _table_equity(
    table: np.ndarray, pay: np.ndarray, times: np.ndarray, weights: np.ndarray, field_counts: np.ndarray,
    out: np.ndarray,
) -> None:
    """Add each table seat's equity integral over the rule's nodes into ``out``."""
    n = table.shape[0]
    k = pay.shape[0]
    prefix = np.empty((n + 1, k))  # count distributions: the field plus table seats < i
    suffix = np.empty((n + 1, k + 1))  # expected payout given a rung before, table seats >= i still to ring
    q = np.empty(n)
    p = np.empty(n)
    for node in range(times.shape[0]):
        t = times[node]
        for i in range(n):
            q[i] = np.exp(-table[i] * t)
            p[i] = 1.0 - q[i]
        prefix[0] = field_counts[node]
        for i in range(n):
            prefix[i + 1, 0] = q[i] * prefix[i, 0]
            for a in range(1, k):
                prefix[i + 1, a] = q[i] * prefix[i, a] + p[i] * prefix[i, a - 1]
        suffix[n, :k] = pay
        suffix[n, k] = 0.0
        for i in range(n - 1, -1, -1):
            for a in range(k):
                suffix[i, a] = q[i] * suffix[i + 1, a] + p[i] * suffix[i + 1, a + 1]
            suffix[i, k] = 0.0
        for i in range(n):
            acc = 0.0
            for a in range(k):
                acc += prefix[i, a] * suffix[i + 1, a]
            out[i] += weights[node] * table[i] * q[i] * acc
