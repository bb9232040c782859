"""Full-ring push/fold charts: equal-stack chip-EV Nash jam/call charts for 2-10 seats, solved in the chart model
(:mod:`pokerlab.games.pushfold.joint`: card removal joint among the players in the pot, folded hands ignored),
shipped as package data and read back by :func:`full_ring_chart`.

A chart *spot* is (seats, depth in big blinds, ante rule): every stack equal to the depth, blinds 0.5/1 bb, and
an ante of ``ANTES[rule]`` (``none``; ``10`` and ``12.5``: that percent of the big blind from every seat;
``bb``: a big-blind ante of one big blind, posted by the big blind after his blind). Its chart: per seat the
probability of jamming first in, and per (caller, jammer) of calling a lone jam, per hand class.

>>> spot = solve_spot(3, 10.0, "none", target=5e-3)
>>> spot.max_gain <= 5e-3, spot.jam.shape, abs(sum(spot.values)) < 1e-9
(True, (3, 169), True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES, preflop_order
from pokerlab.errors import InvalidArgumentError
from pokerlab.games.base import FOLD
from pokerlab.games.compiler import KIND_DECISION
from pokerlab.games.pushfold import JAM, Table
from pokerlab.games.pushfold.joint import JointPotGame
from pokerlab.games.vector import CompiledPublicTree, compile_public_tree
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains, vector_node_values

ANTES: dict[str, tuple[float, float]] = {"none": (0.0, 0.0), "10": (0.1, 0.0), "12.5": (0.125, 0.0),
                                          "bb": (0.0, 1.0)}
"""Ante rules of the charts: name -> (ante per seat, big-blind ante), in big blinds."""
CHART_TARGET = 2e-3
"""The gain (bb) every seat of a shipped spot of 3+ seats is solved to, in the chart model (discounted CFR
reaches 1e-3 at six seats only after hundreds of iterations; docs/benchmarks.md)."""
HEADS_UP_CHART_TARGET = 1e-5
"""The same heads-up (the model is the exact game there, and 1e-5 costs milliseconds)."""
MAX_ITERATIONS = 512
"""A spot of 3+ seats still above its target after this many iterations is shipped with its gains (stored)."""
HEADS_UP_MAX_ITERATIONS = 20_000


def default_target(seats: int) -> float:
    """The target gain (bb) of a shipped spot of ``seats`` seats."""
    return HEADS_UP_CHART_TARGET if seats == 2 else CHART_TARGET


@dataclass(frozen=True)
class ChartSpot:
    """One solved spot. ``jam[seat]``: first-in jam probability per class (NaN for a seat without that
    decision); ``call[caller, jammer]``: probability of calling a lone jam (NaN where there is none);
    ``gains``: each seat's exact best-response gain (bb) in the chart model; ``values``: each seat's chip EV (bb,
    they sum to 0); ``iterations``, ``cpu_s`` (process CPU seconds of the solve); ``strategy`` the whole profile
    (every node; not stored in the chart file)."""

    seats: int
    depth_bb: float
    ante: str
    jam: np.ndarray
    call: np.ndarray
    gains: tuple[float, ...]
    values: tuple[float, ...]
    iterations: int
    cpu_s: float
    strategy: VectorStrategy | None = field(default=None, repr=False, compare=False)

    @property
    def max_gain(self) -> float:
        return float(max(self.gains))


def check_spot(seats: object, depth_bb: object, ante: object) -> tuple[int, float, str]:
    """``(seats, depth, ante)`` checked: 2-10 seats, a depth the model takes (nobody all in by posting, at
    most 1,000 bb), an ante rule of :data:`ANTES` (the big-blind ante heads-up only); else
    :class:`~pokerlab.errors.InvalidArgumentError`."""
    if not isinstance(seats, int | np.integer) or isinstance(seats, bool) or not 2 <= int(seats) <= 10:
        raise InvalidArgumentError(f"full-ring charts have 2 to 10 seats, got {seats!r}")
    if ante not in ANTES:
        raise InvalidArgumentError(f"ante rule must be one of {', '.join(ANTES)}, got {ante!r}")
    try:
        depth = float(depth_bb)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"depth must be a number of big blinds, got {depth_bb!r}") from None
    each, bb_ante = ANTES[str(ante)]
    if bb_ante > 0 and int(seats) > 2:
        raise InvalidArgumentError(
            "full-ring charts with a big-blind ante are heads-up only: the big blind's ante is dead money, so a "
            "3+ way all-in has a side pot, which the chart model does not value (solve such a table with "
            "pokerlab.pushfold.pushfold)")
    if not np.isfinite(depth) or depth > 1000 or depth <= 1.0 + bb_ante + each:
        raise InvalidArgumentError(
            f"depth {depth_bb} bb: the chart model needs every seat to cover its blind and ante "
            f"(more than {1.0 + bb_ante + each:g} bb with ante rule {ante}) and at most 1000 bb")
    return int(seats), depth, str(ante)


def spot_game(seats: int, depth_bb: float, ante: str) -> JointPotGame:
    """The chart model's game of a spot (chip EV in big blinds)."""
    seats, depth, ante = check_spot(seats, depth_bb, ante)
    each, bb_ante = ANTES[ante]
    stacks = np.full(seats, depth)
    table = Table(tuple(float(s) for s in stacks), 0.5, 1.0, ante=each, bb_ante=bb_ante)
    return JointPotGame(table, lambda final: np.asarray(final, dtype=np.float64) - stacks)


def solve_spot(seats: int, depth_bb: float, ante: str = "none", *, target: float | None = None,
               max_iterations: int | None = None, algorithm: str = "dcfr",
               progress: Callable[[int, float], None] | None = None) -> ChartSpot:
    """Solve one spot in the chart model by discounted CFR until every seat's exact best-response gain is at most
    ``target`` bb (default :func:`default_target`; checked after 16 iterations, then every quarter of those done)
    or ``max_iterations`` (default :data:`MAX_ITERATIONS`, heads-up :data:`HEADS_UP_MAX_ITERATIONS`); the best
    of the average strategy :func:`trimmed`, the current strategy (and heads-up the average itself) is kept,
    with its exact gains. ``progress(iterations, max gain)`` after each check.
    """
    target = default_target(int(seats)) if target is None else float(target)
    if max_iterations is None:
        max_iterations = HEADS_UP_MAX_ITERATIONS if seats == 2 else MAX_ITERATIONS
    cpu = time.process_time()
    game = spot_game(seats, depth_bb, ante)
    tree = compile_public_tree(game)
    solver = VectorSolver(tree, algorithm)
    start = starting_profile(game.equity.class_size)
    current = VectorStrategy(tree, solver.offsets, solver.sigma)
    for node in tree.decision_nodes():
        block = current.block(int(node))
        block[:, 1] = start
        block[:, 0] = 1.0 - start
    best: tuple[float, VectorStrategy, tuple[float, ...]] | None = None
    check_every = 16
    while True:
        solver.iterate(min(check_every, max_iterations - solver.iteration))
        average = solver.average_strategy()
        candidates = [trimmed(average), solver.current_strategy()] + ([average] if seats == 2 else [])
        for candidate in candidates:
            gains = best_response_gains(tree, candidate).gains
            if best is None or max(gains) < best[0]:
                best = (max(gains), candidate, tuple(float(g) for g in gains))
        assert best is not None
        if progress is not None:
            progress(solver.iteration, best[0])
        if best[0] <= target or solver.iteration >= max_iterations:
            break
        check_every = max(16, solver.iteration // 4)
    _, strategy, gains = best
    jam, call = chart_arrays(tree, strategy)
    values = tuple(float(vector_node_values(tree, strategy, p)[0] @ tree.weights[p])
                   for p in range(tree.num_players))
    return ChartSpot(seats, float(depth_bb), ante, jam, call, gains, values, solver.iteration,
                     time.process_time() - cpu, strategy)


TRIM = 1e-3
"""Action probabilities below this are dropped from the average strategy a check measures (:func:`trimmed`)."""


def trimmed(strategy: VectorStrategy, floor: float = TRIM) -> VectorStrategy:
    """``strategy`` with every action probability below ``floor`` set to 0 and the rows renormalised. The
    average of CFR plays nearly every hand with some tiny probability from its first iterations; trimmed, its
    ranges are the chart's (a chart stored in steps of 1/200 rounds those to 0 anyway; at nine seats the gain
    was the same to 1e-5 bb), and the three-way pots' cost, which grows with the product of the ranges, falls
    tenfold at nine seats. The trimmed strategy's gains are measured exactly like any other's.

    >>> from pokerlab.games.vector import CoinPoker, compile_public_tree
    >>> tree = compile_public_tree(CoinPoker())
    >>> strategy = VectorStrategy.uniform(tree)
    >>> node = int(tree.decision_nodes()[0]); strategy.block(node)[0] = (0.9995, 0.0005)
    >>> trimmed(strategy).block(node).tolist()  # (a node's rows: one per private hand)
    [[1.0, 0.0], [0.5, 0.5]]
    """
    probs = strategy.probs.copy()
    out = VectorStrategy(strategy.tree, strategy.offsets, probs)
    for node in strategy.tree.decision_nodes():
        block = out.block(int(node))
        kept = np.where(block >= floor, block, 0.0)
        total = kept.sum(axis=1, keepdims=True)
        block[:] = np.where(total > 0.0, kept / np.where(total > 0.0, total, 1.0), block)
    return out


STARTING_SHARE = 0.1
"""The share of hands (by combos) every decision of the starting profile jams or calls with, strongest first."""


def starting_profile(class_size: np.ndarray) -> np.ndarray:
    """The first iteration's strategy at every decision: jam or call with the strongest :data:`STARTING_SHARE`
    of hands (:func:`~pokerlab.cards.classes.preflop_order`), fold the rest. A sparse start: the three-way
    pots' cost grows with the product of the strategies' supports, and a uniform start makes the first iteration
    the costliest by far at nine seats (CFR converges from any start; the average counts it once).

    >>> from pokerlab.cards.classes import CLASS_SIZES
    >>> round(float(starting_profile(CLASS_SIZES) @ CLASS_SIZES) / 1326, 2)
    0.1
    """
    order, _ = preflop_order()
    cumulative = np.cumsum(class_size[order]) / class_size.sum()
    out = np.zeros(NUMBER_OF_CLASSES)
    out[order[cumulative <= STARTING_SHARE + 1e-12]] = 1.0
    return out


def chart_arrays(tree: CompiledPublicTree, strategy: VectorStrategy) -> tuple[np.ndarray, np.ndarray]:
    """``(jam, call)`` read off a strategy of a push/fold tree: ``jam[seat]`` first in, ``call[caller, jammer]``
    against a lone jam (everyone else before the caller folded); NaN where the seat has no such decision."""
    game = tree.game
    assert isinstance(game, JointPotGame)
    n = game.table.seats
    jam = np.full((n, NUMBER_OF_CLASSES), np.nan)
    call = np.full((n, n, NUMBER_OF_CLASSES), np.nan)
    node_of = {state: i for i, state in enumerate(tree.states)}
    dm = game.decision_seats
    for k, seat in enumerate(dm):
        node = node_of.get(tuple([FOLD] * k))
        if node is not None and tree.tree.kind[node] == KIND_DECISION:
            jam[seat] = strategy.block(node)[:, 1]
        for j in range(k):
            node = node_of.get(tuple([FOLD] * j + [JAM] + [FOLD] * (k - j - 1)))
            if node is not None and tree.tree.kind[node] == KIND_DECISION:
                call[seat, dm[j]] = strategy.block(node)[:, 1]
    return jam, call
