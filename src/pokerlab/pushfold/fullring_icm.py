"""Full-ring ICM chart spots: equal-stack final tables and bubbles in the ICM chart model (the model's code).

A spot is (seats, depth, stage): ``seats`` (3-10) equal stacks of ``depth`` big blinds, blinds 0.5/1, no ante,
and the payouts of the stage (:func:`stage_payouts`): ``final`` pays every seat (:data:`FINAL_TABLE_PAYOUTS`,
percent of the prize pool), ``bubble`` one seat fewer (the final-table payouts of ``seats - 1``; three seats:
65/35). Each seat's payoff is the change of its ICM prize equity in the hand (:func:`icm_payoff`), the game
:class:`~pokerlab.games.pushfold.joint_icm.IcmJointPotGame` (the chart model with the seats out of a two-way pot
valued per outcome), solved by the chip-EV charts' loop (discounted CFR from a sparse start, the best of the
trimmed average and the current strategy kept) to :func:`money_target` money. Values and gains are money (the
pool is 100); gains are exact best responses in the model.

This module and :mod:`pokerlab.games.pushfold.joint_icm` are the keyed sources of the shipped ICM charts
(:data:`ICM_SOURCES`, with the chip-EV charts' ``MODEL_SOURCES``; the file and its reader:
:mod:`pokerlab.pushfold.fullring_icm_charts`).

>>> spot = solve_icm_spot(3, 10.0, "final", target=0.05)
>>> spot.max_gain <= 0.05, round(sum(spot.values), 9)
(True, 100.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.pushfold import Table
from pokerlab.games.pushfold.joint_icm import IcmJointPotGame
from pokerlab.games.vector import compile_public_tree
from pokerlab.icm.subset import icm_subset
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fullring import CHART_TARGET, MAX_ITERATIONS, ChartSpot, chart_arrays, starting_profile, trimmed
from pokerlab.pushfold.fullring_charts import MAX_SEATS, MODEL_SOURCES
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains, vector_node_values

ICM_SOURCES = ("games/pushfold/joint_icm.py", "pushfold/fullring_icm.py", "icm/subset.py")
"""The ICM model's sources, keyed with the chip-EV charts' :data:`MODEL_SOURCES`."""
STAGES = ("final", "bubble")
POOL = 100.0
FINAL_TABLE_PAYOUTS: dict[int, tuple[float, ...]] = {
    2: (65.0, 35.0),
    3: (50.0, 30.0, 20.0),
    4: (40.0, 28.0, 19.0, 13.0),
    5: (35.0, 25.0, 17.0, 13.0, 10.0),
    6: (32.0, 22.0, 16.0, 12.0, 10.0, 8.0),
    7: (30.0, 20.0, 15.0, 11.0, 9.0, 8.0, 7.0),
    8: (28.0, 19.0, 14.0, 11.0, 9.0, 7.0, 6.0, 6.0),
    9: (26.0, 18.0, 13.0, 10.0, 9.0, 7.0, 6.0, 6.0, 5.0),
    10: (25.0, 17.0, 12.0, 10.0, 8.0, 7.0, 6.0, 5.0, 5.0, 5.0),
}
"""Percent of the prize pool per place when ``seats`` players are left and all are paid (a final table's share
of a tournament's pool, renormalised; the two and three seat rows are the sit-and-go standards)."""


def code_version() -> str:
    """The digest of the chip-EV chart model's sources and the ICM model's (16 hex digits)."""
    return sources_digest(MODEL_SOURCES + ICM_SOURCES)


def stage_payouts(seats: int, stage: str) -> tuple[float, ...]:
    """The payouts (percent of the pool, first place first) of a ``stage`` spot of ``seats`` seats.

    >>> stage_payouts(4, "bubble")
    (50.0, 30.0, 20.0)
    """
    seats, _, stage = check_icm_spot(seats, 10.0, stage)
    return FINAL_TABLE_PAYOUTS[seats if stage == "final" else seats - 1]


def check_icm_spot(seats: object, depth_bb: object, stage: object) -> tuple[int, float, str]:
    """``(seats, depth, stage)`` checked: 3-10 seats, a depth above 1 bb and at most 1,000 bb, a stage of
    :data:`STAGES`; else :class:`~pokerlab.errors.InvalidArgumentError`."""
    if not isinstance(seats, int | np.integer) or isinstance(seats, bool) or not 3 <= int(seats) <= MAX_SEATS:
        raise InvalidArgumentError(f"full-ring ICM charts have 3 to 10 seats (heads-up ICM is chip EV), got {seats!r}")
    if stage not in STAGES:
        raise InvalidArgumentError(f"ICM chart stage must be 'final' (every seat paid) or 'bubble' (one seat "
                                   f"fewer paid), got {stage!r}")
    try:
        depth = float(depth_bb)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"depth must be a number of big blinds, got {depth_bb!r}") from None
    if not np.isfinite(depth) or not 1.0 < depth <= 1000:
        raise InvalidArgumentError(f"depth {depth_bb} bb: the chart model needs more than 1 bb (every seat covers "
                                   "its blind) and at most 1000 bb")
    return int(seats), depth, str(stage)


def icm_payoff(stacks: np.ndarray, payouts: Iterable[float]) -> Callable[[np.ndarray], np.ndarray]:
    """Each seat's ICM prize equity after the hand from its final stack (the payoff of a chart spot): busted
    seats take the last places (bigger stacks before the hand first, equal ones sharing), the others share the
    rest by ICM (:func:`~pokerlab.icm.subset.icm_subset`).

    >>> pay = icm_payoff(np.full(3, 10.0), (50.0, 30.0, 20.0))
    >>> pay(np.array([20.0, 0.0, 10.0])).round(4).tolist(), pay(np.array([30.0, 0.0, 0.0])).tolist()
    ([43.3333, 20.0, 36.6667], [50.0, 25.0, 25.0])
    """
    paid_all = np.zeros(stacks.size)
    paid = np.asarray(tuple(payouts), dtype=np.float64)
    paid_all[: paid.size] = paid
    scale = float(stacks.sum())

    def payoff(final: np.ndarray) -> np.ndarray:
        busted = np.flatnonzero(final <= 1e-12 * scale)
        alive = np.flatnonzero(final > 1e-12 * scale)
        equity = np.zeros(final.size)
        place = stacks.size - busted.size
        starts = stacks[busted]
        for value in sorted(set(starts.tolist()), reverse=True):
            group = busted[starts == value]
            equity[group] = paid_all[place: place + group.size].mean()
            place += group.size
        k = int(np.count_nonzero(paid_all[: alive.size]))
        if alive.size == 1:
            equity[alive] = paid_all[0]
        elif k > 0:
            equity[alive] = icm_subset(final[alive] / final[alive].mean(), k) @ paid_all[:k]
        return equity

    return payoff


def money_target(seats: int, depth_bb: float, target_bb: float = CHART_TARGET) -> float:
    """The money a spot is solved to: ``target_bb`` at the pool's average value of a big blind (``POOL`` over
    the chips in play), as :func:`pokerlab.pushfold.pushfold` converts its target under ICM.

    >>> round(money_target(6, 10.0), 6)
    0.003333
    """
    return target_bb * POOL / (seats * depth_bb)


def icm_spot_game(seats: int, depth_bb: float, stage: str) -> IcmJointPotGame:
    """The ICM chart model's game of a spot: each seat's payoff is the change of its ICM equity in the hand
    (money, the pool 100; :func:`icm_payoff` after minus before). In the chart model a seat's hands that fold are
    ignored where the others' in a pot are dealt jointly, so the reach over a seat's terminals need not sum to
    one and a constant added to a payoff is not neutral: the change, zero-sum on every outcome as the chip-EV
    charts' change of stack, makes the values sum to the pool exactly (a payoff of the equity itself would add
    the pool times that reach error: +0.13 at three seats, +12.7 at six, measured)."""
    seats, depth, stage = check_icm_spot(seats, depth_bb, stage)
    stacks = np.full(seats, depth)
    equity = icm_payoff(stacks, stage_payouts(seats, stage))
    before = equity(stacks)

    def change(final: np.ndarray) -> np.ndarray:
        out: np.ndarray = equity(final) - before
        return out

    return IcmJointPotGame(Table(tuple(float(s) for s in stacks), 0.5, 1.0), change)


def solve_icm_spot(seats: int, depth_bb: float, stage: str = "final", *, target: float | None = None,
                   max_iterations: int = MAX_ITERATIONS,
                   progress: Callable[[int, float], None] | None = None) -> ChartSpot:
    """Solve one ICM spot (see the module docstring) until every seat's exact best-response gain in the model is
    at most ``target`` money (default :func:`money_target`) or ``max_iterations``; the loop of
    :func:`pokerlab.pushfold.fullring.solve_spot` (checks after 16 iterations, then every quarter of those done).
    The result's ``ante`` is ``none``, its ``values`` (each seat's ICM equity: the pool's share before the hand
    plus the change) and ``gains`` money."""
    seats, depth_bb, stage = check_icm_spot(seats, depth_bb, stage)
    target = money_target(seats, depth_bb) if target is None else float(target)
    cpu = time.process_time()
    game = icm_spot_game(seats, depth_bb, stage)
    tree = compile_public_tree(game)
    solver = VectorSolver(tree, "dcfr")
    start = starting_profile(game.equity.class_size)
    current = VectorStrategy(tree, solver.offsets, solver.sigma)
    for node in tree.decision_nodes():
        current.block(int(node))[:, 1] = start
        current.block(int(node))[:, 0] = 1.0 - start
    best: tuple[float, VectorStrategy, tuple[float, ...]] | None = None
    check_every = 16
    while True:
        solver.iterate(min(check_every, max_iterations - solver.iteration))
        for candidate in (trimmed(solver.average_strategy()), solver.current_strategy()):
            gains = tuple(float(g) for g in best_response_gains(tree, candidate).gains)
            if best is None or max(gains) < best[0]:
                best = (max(gains), candidate, gains)
        assert best is not None
        if progress is not None:
            progress(solver.iteration, best[0])
        if best[0] <= target or solver.iteration >= max_iterations:
            break
        check_every = max(16, solver.iteration // 4)
    _, strategy, gains = best
    jam, call = chart_arrays(tree, strategy)
    before = POOL / seats  # every stack equal
    values = tuple(before + float(vector_node_values(tree, strategy, p)[0] @ tree.weights[p]) for p in range(seats))
    return ChartSpot(seats, depth_bb, "none", jam, call, gains, values, solver.iteration,
                     time.process_time() - cpu, strategy)
