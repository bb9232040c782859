"""Tournament equity models to set beside ICM: chip proportional, Malmuth-Weitzman, power-of-stacks ICM and
discounted Harville (one-parameter models fitted to simulations).

- **Chip proportional** ("chip chop"): each player's share of the chips times the prize pool.
- **Malmuth-Weitzman**: the next player eliminated is drawn with probability inversely proportional to his
  stack, and his chips are shared evenly among the players left. By induction the players left then hold their
  original stacks plus an equal share of every eliminated player's original chips, so the state is the set of
  players left: exact by a recursion over subsets up to :data:`MW_EXACT_MAX` players, else Monte Carlo over
  elimination orders (``O(n^2)`` per sample) with standard errors.
- **Power ICM**: ICM on ``stacks ** alpha``; ``alpha = 1`` is ICM, ``alpha < 1`` flattens the chips' value
  (short stacks worth more than ICM says). :func:`fit_power` picks ``alpha`` to match simulated equities: the
  fitted model of the "Beating ICM" report (Diaconis and Ethier 2022 compare ICM with the gambler's ruin the
  same way).
- **Discounted Harville** (Lo and Bacon-Shone 1994): first place by chip share, as ICM; each later place
  among the players left with probability proportional to ``stack ** discount`` (one exponent, or one per
  place from the second). ``discount = 1`` is ICM; ``discount < 1`` keeps ICM's chance to win and flattens the
  later places (a short stack outlasts more often than ICM says). Exact by a recursion over the sets of players
  placed up to :data:`DH_EXACT_MAX` players, else Monte Carlo over finishing orders with standard errors.

Every function takes stacks of the players still in (all > 0) and payouts for places 1, 2, ... and returns
money per player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pokerlab.errors import InvalidArgumentError, InvalidStacksError, whole_number
from pokerlab.stats import validate_seed
from pokerlab.stats.rng import GOLDEN, fresh_seed, keyed_start, mix64, open_unit

MW_EXACT_MAX = 16  # 2^16 subsets x 16 players: well under a second
DH_EXACT_MAX = 16  # the same recursion's size for discounted Harville


@dataclass(frozen=True)
class ModelEquity:
    """Equity per player by one model; ``stderr`` when sampled (``None`` when exact)."""

    model: str
    equity: np.ndarray
    stderr: np.ndarray | None = None
    samples: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"model", "equity": [...], "stderr": [...] | None, "samples"}``."""
        return {"model": self.model, "equity": [float(x) for x in self.equity],
                "stderr": None if self.stderr is None else [float(x) for x in self.stderr],
                "samples": int(self.samples)}


def _validated(stacks: Any, payouts: Any) -> tuple[np.ndarray, np.ndarray]:
    from pokerlab.icm.core import validate

    s, pay = validate(stacks, payouts)
    if np.any(s <= 0):
        raise InvalidStacksError("equity models take the players still in: every stack must be > 0")
    full = np.zeros(s.size)
    full[: pay.size] = pay
    return s, full


def chip_proportional(stacks: Any, payouts: Any) -> ModelEquity:
    """Each player's chip share of the whole prize pool.

    >>> chip_proportional([5, 3, 2], [60, 40]).equity.tolist()
    [50.0, 30.0, 20.0]
    """
    s, pay = _validated(stacks, payouts)
    return ModelEquity("chip", s / s.sum() * pay.sum())


def power_icm(stacks: Any, payouts: Any, alpha: float) -> ModelEquity:
    """ICM (exact) on ``stacks ** alpha``.

    >>> round(float(power_icm([5, 3, 2], [60, 40], 1.0).equity[0]), 6)  # alpha = 1 is ICM
    43.571429
    """
    from pokerlab.icm.core import icm

    if not (np.isfinite(alpha) and 0 < alpha <= 4):
        raise InvalidArgumentError(f"alpha must be in (0, 4], got {alpha}")
    s, pay = _validated(stacks, payouts)
    scaled = (s / s.max()) ** alpha
    return ModelEquity(f"power-icm({alpha:g})", icm(scaled, pay[: s.size]).equity)


def malmuth_weitzman(stacks: Any, payouts: Any, *, samples: int = 20_000, seed: int | None = 0) -> ModelEquity:
    """Malmuth-Weitzman equity: exact up to :data:`MW_EXACT_MAX` players, else ``samples`` Monte Carlo
    elimination orders (``seed``: same seed, same result).

    >>> [round(float(x), 6) for x in malmuth_weitzman([5, 3, 2], [60, 40]).equity]
    [42.258065, 33.096774, 24.645161]
    """
    s, pay = _validated(stacks, payouts)
    if s.size <= MW_EXACT_MAX:
        return ModelEquity("malmuth-weitzman", mw_exact(s, pay))
    samples = whole_number(samples, "samples", low=2)
    seed = validate_seed(seed)
    if seed is None:
        seed = fresh_seed()
    total, squares = _mw_sample(s / s.max(), pay, samples, np.uint64(seed))
    mean = total / samples
    stderr = np.sqrt(np.maximum(squares / samples - mean**2, 0.0) / (samples - 1))
    return ModelEquity("malmuth-weitzman", mean, stderr, samples)


@njit(cache=True)
def mw_exact(stacks: np.ndarray, pay: np.ndarray) -> np.ndarray:
    n = stacks.size
    full = (1 << n) - 1
    reach = np.zeros(1 << n)
    reach[full] = 1.0
    equity = np.zeros(n)
    total = stacks.sum()
    for state in range(full, 0, -1):
        p = reach[state]
        if p == 0.0:
            continue
        m = 0
        held = 0.0
        for j in range(n):
            if state >> j & 1:
                m += 1
                held += stacks[j]
        if m == 1:
            for j in range(n):
                if state >> j & 1:
                    equity[j] += p * pay[0]
            continue
        share = (total - held) / m  # every eliminated chip, shared evenly
        weight = 0.0
        for j in range(n):
            if state >> j & 1:
                weight += 1.0 / (stacks[j] + share)
        for j in range(n):
            if state >> j & 1:
                q = p * (1.0 / (stacks[j] + share)) / weight
                equity[j] += q * pay[m - 1]
                reach[state & ~(1 << j)] += q
    return equity


@njit(cache=True)
def _mw_sample(stacks: np.ndarray, pay: np.ndarray, samples: int, seed: np.uint64) -> tuple[np.ndarray, np.ndarray]:
    n = stacks.size
    sums = np.zeros(n)
    squares = np.zeros(n)
    ids = np.empty(n, dtype=np.int64)
    counter = keyed_start(seed, np.uint64(0x4D57))
    for _ in range(samples):
        for j in range(n):
            ids[j] = j
        m = n
        eliminated = 0.0
        while m > 1:
            share = eliminated / m
            weight = 0.0
            for k in range(m):
                weight += 1.0 / (stacks[ids[k]] + share)
            counter += GOLDEN
            target = open_unit(mix64(counter)) * weight
            k = 0
            acc = 1.0 / (stacks[ids[0]] + share)
            while acc < target and k < m - 1:
                k += 1
                acc += 1.0 / (stacks[ids[k]] + share)
            player = ids[k]
            prize = pay[m - 1]
            sums[player] += prize
            squares[player] += prize * prize
            eliminated += stacks[player]
            ids[k] = ids[m - 1]
            m -= 1
        prize = pay[0]
        sums[ids[0]] += prize
        squares[ids[0]] += prize * prize
    return sums, squares


def discounted_harville(stacks: Any, payouts: Any, discount: float | Any, *, samples: int = 20_000,
                        seed: int | None = 0) -> ModelEquity:
    """Discounted Harville equity (money per player): first place by chip share; place ``k > 1`` among the
    players left with probability proportional to ``stack ** discount[k - 2]`` (``discount`` one exponent in
    (0, 4] for every later place, or a sequence, one per place from the second, its last repeated). Exact up to
    :data:`DH_EXACT_MAX` players; past that (one exponent only) from ``samples`` finishing orders (``seed``:
    same seed, same result), each the first by chip share and the rest in the order of exponential clocks of
    rates ``stack ** discount`` (Harville's order of those weights).

    >>> round(float(discounted_harville([5, 3, 2], [60, 40], 1.0).equity[0]), 6)  # 1 is ICM
    43.571429
    >>> [round(float(x), 4) for x in discounted_harville([5, 3, 2], [60, 40], 0.5).equity]
    [41.859, 32.5021, 25.6389]
    """
    s, pay = _validated(stacks, payouts)
    exponents = np.atleast_1d(np.asarray(discount, dtype=np.float64))
    if exponents.ndim != 1 or exponents.size == 0 or not np.all(np.isfinite(exponents) & (exponents > 0)
                                                                 & (exponents <= 4)):
        raise InvalidArgumentError(f"discount must be an exponent in (0, 4] or a list of them, got {discount!r}")
    name = f"discounted-harville({','.join(f'{e:g}' for e in exponents)})"
    paid = np.flatnonzero(pay)
    places = int(paid[-1]) + 1 if paid.size else 1  # the places worth computing
    per_place = np.ones(s.size)  # the first place's exponent is 1; later ones from the list, its last repeated
    per_place[1:] = exponents[np.minimum(np.arange(s.size - 1), exponents.size - 1)]
    weights = s / s.max()
    if s.size <= DH_EXACT_MAX:
        return ModelEquity(name, dh_exact(weights, pay, per_place, places))
    if exponents.size > 1 and np.any(per_place[2:places] != per_place[1]):
        raise InvalidArgumentError(f"past {DH_EXACT_MAX} players discounted Harville takes one exponent for every "
                                   f"later place, got {exponents.size}")
    samples = whole_number(samples, "samples", low=2)
    seed = validate_seed(seed)
    if seed is None:
        seed = fresh_seed()
    total, squares = _dh_sample(weights, pay, float(per_place[1]), places, samples, np.uint64(seed))
    mean = total / samples
    stderr = np.sqrt(np.maximum(squares / samples - mean**2, 0.0) / (samples - 1))
    return ModelEquity(name, mean, stderr, samples)


@njit(cache=True)
def dh_exact(weights: np.ndarray, pay: np.ndarray, per_place: np.ndarray, places: int) -> np.ndarray:
    """The recursion over the sets of players placed: ``reach[mask]`` is the chance that exactly ``mask``
    took places 1..|mask|, for sets smaller than the paid places."""
    n = weights.size
    reach = np.zeros(1 << n)
    reach[0] = 1.0
    equity = np.zeros(n)
    powered = np.empty(n)
    for mask in range(1 << n):
        p = reach[mask]
        if p == 0.0:
            continue
        k = 0
        for j in range(n):
            k += mask >> j & 1
        if k >= places:
            continue
        total = 0.0
        for j in range(n):
            powered[j] = 0.0 if mask >> j & 1 else weights[j] ** per_place[k]
            total += powered[j]
        for j in range(n):
            if powered[j] > 0.0:
                q = p * powered[j] / total
                equity[j] += q * pay[k]
                if k + 1 < places:
                    reach[mask | (1 << j)] += q
    return equity


@njit(cache=True)
def _dh_sample(weights: np.ndarray, pay: np.ndarray, discount: float, places: int, samples: int,
               seed: np.uint64) -> tuple[np.ndarray, np.ndarray]:
    n = weights.size
    sums = np.zeros(n)
    squares = np.zeros(n)
    cumulative = np.cumsum(weights)
    rates = weights**discount
    clocks = np.empty(n)
    counter = keyed_start(seed, np.uint64(0x4448))
    for _ in range(samples):
        counter += GOLDEN
        first = min(int(np.searchsorted(cumulative, open_unit(mix64(counter)) * cumulative[-1])), n - 1)
        for j in range(n):
            counter += GOLDEN
            clocks[j] = -np.log(open_unit(mix64(counter))) / rates[j]
        clocks[first] = np.inf
        sums[first] += pay[0]
        squares[first] += pay[0] * pay[0]
        if places > 1:
            order = np.argsort(clocks)
            for k in range(1, places):
                player = order[k - 1]
                sums[player] += pay[k]
                squares[player] += pay[k] * pay[k]
    return sums, squares


def fit_power(snapshots: list[np.ndarray], payouts: list[np.ndarray], targets: list[np.ndarray],
              alphas: np.ndarray | None = None) -> float:
    """The ``alpha`` of :func:`power_icm` with the least squared error against ``targets`` (simulated equity
    or realised prizes per player) over several snapshots: a grid search, then a parabola through the best
    three points."""
    return fit_exponent(power_icm, snapshots, payouts, targets, alphas)


def fit_discount(snapshots: list[np.ndarray], payouts: list[np.ndarray], targets: list[np.ndarray],
                 discounts: np.ndarray | None = None) -> float:
    """The one ``discount`` of :func:`discounted_harville` with the least squared error against ``targets``
    over several snapshots, as :func:`fit_power` fits its exponent."""
    return fit_exponent(discounted_harville, snapshots, payouts, targets, discounts)


def fit_exponent(model: Any, snapshots: list[np.ndarray], payouts: list[np.ndarray], targets: list[np.ndarray],
                 grid_values: np.ndarray | None = None) -> float:
    """The exponent ``x`` of ``model(stacks, payouts, x)`` (a :class:`ModelEquity`) with the least squared
    error against ``targets`` over the snapshots: a grid search (default 0.5 to 1.5 by 0.05), then a parabola
    through the best three points."""
    grid = np.linspace(0.5, 1.5, 21) if grid_values is None else np.asarray(grid_values, dtype=np.float64)
    errors = np.array([
        sum(float(((model(s, p, a).equity - y) ** 2).sum()) for s, p, y in zip(snapshots, payouts, targets,
                                                                               strict=True))
        for a in grid
    ])
    best = int(np.argmin(errors))
    if 0 < best < grid.size - 1:
        x0, x1, x2 = grid[best - 1: best + 2]
        y0, y1, y2 = errors[best - 1: best + 2]
        denominator = (x0 - x1) * (x0 - x2) * (x1 - x2)
        a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denominator
        b = (x2**2 * (y0 - y1) + x1**2 * (y2 - y0) + x0**2 * (y1 - y2)) / denominator
        if a > 0:
            return float(np.clip(-b / (2 * a), x0, x2))
    return float(grid[best])
