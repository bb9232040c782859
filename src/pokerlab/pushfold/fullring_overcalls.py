"""Over-call ranges of the full-ring charts: what a seat calls with facing a jam and a call.

A shipped chart (:mod:`pokerlab.pushfold.fullring_charts`) holds, per seat, the first-in jam and the call of a lone
jam. Its solved profile (:func:`pokerlab.pushfold.fullring.solve_spot`) has a strategy at every decision node; the
over-call ranges are those at the nodes facing exactly two all-ins: a jam by position ``jammer`` and a call by a
later position ``first_caller``, everyone else before the caller folded. A seat facing three or more all-ins calls
by the range facing the first two of them (the file holds no deeper nodes: at ten seats there are 848 of them, their
strategies mostly unconverged mixes, and at 10 bb a hand meets about 0.03 of them: docs/algorithms.md).

Positions are the charts' seat order (``UTG .. BTN, SB, BB``: the order of action), so ``jammer < first_caller <
caller``; a spot of ``n`` seats has ``C(n, 3)`` over-call ranges, in the order of
:func:`~pokerlab.pushfold.fullring_charts.overcall_triples`.

The ranges are not solved again: each spot is reproduced from the chart file's stored iteration count
(:func:`reproduce_spot`; the solve is deterministic), checked against the file's stored gains and charts, and its
over-call ranges read off (``scripts/build_fullring_overcalls.py``; the file: ``data/fullring_overcalls.npz``, read by
:func:`pokerlab.pushfold.fullring_charts.shipped_overcalls`). The ICM charts' the same way
(:func:`reproduce_icm_spot`, ``--icm``; ``data/fullring_icm_overcalls.npz``, read by
:func:`pokerlab.pushfold.fullring_icm_charts.shipped_icm_overcalls`).

>>> from pokerlab.pushfold.fullring_charts import full_ring_chart
>>> chart = full_ring_chart(4, 10, "none")  # CO, BTN, SB, BB
>>> facing = chart.overcall[3, 0, 1]  # the big blind facing a CO jam and a BTN call
>>> bool(facing[0] == 1.0), bool(facing.sum() < chart.call[3, 0].sum())  # AA calls; tighter than a lone jam's call
(True, True)
"""

from __future__ import annotations

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.games.base import FOLD
from pokerlab.games.pushfold import JAM
from pokerlab.games.vector import compile_public_tree
from pokerlab.pushfold.fullring import default_target, solve_spot, spot_game, starting_profile, trimmed
from pokerlab.pushfold.fullring_charts import overcall_rows_count, overcall_triples
from pokerlab.pushfold.fullring_icm import solve_icm_spot
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains


def overcall_rows(strategy: VectorStrategy) -> np.ndarray:
    """The over-call ranges of a chart spot's profile: ``float64[C(n, 3), 169]``, row ``r`` the probability per
    class of calling of the ``r``-th of :func:`~pokerlab.pushfold.fullring_charts.overcall_triples`."""
    seats = strategy.tree.num_players
    out = np.full((overcall_rows_count(seats), NUMBER_OF_CLASSES), np.nan)
    for row, (caller, jammer, first_caller) in enumerate(overcall_triples(seats)):
        history = [FOLD] * caller
        history[jammer] = history[first_caller] = JAM
        out[row] = strategy.block(strategy.node_of(tuple(history)))[:, 1]
    return out


def reproduce_spot(seats: int, depth_bb: float, ante: str, iterations: int, gains: np.ndarray
                   ) -> tuple[VectorStrategy, bool]:
    """The profile :func:`~pokerlab.pushfold.fullring.solve_spot` kept for a shipped spot solved for
    ``iterations`` iterations, whose stored gains (float32, bb) are ``gains`` (on the chart model's tree,
    ``profile.tree``): ``(profile, quick)``.

    The solve is deterministic, so ``solve_spot(..., max_iterations=iterations)`` reproduces it; it measures
    candidates at every check along the way. A spot that stopped on its target (its largest gain at most
    :func:`~pokerlab.pushfold.fullring.default_target`) kept one of its last check's candidates (every earlier
    check was above the target), so running the iterations at once and measuring those two candidates gives it for
    less (``quick``; should their gains differ from ``gains``, the spot is solved again whole); a spot stopped at the
    iteration cap may have kept an earlier check's, and is solved again whole. :class:`ValueError` if the profile
    found does not have the gains ``gains`` exactly."""
    stored = np.asarray(gains, dtype=np.float32)
    if seats > 2 and float(stored.max()) <= default_target(seats):
        game = spot_game(seats, depth_bb, ante)
        tree = compile_public_tree(game)
        solver = VectorSolver(tree, "dcfr")
        start = starting_profile(game.equity.class_size)
        current = VectorStrategy(tree, solver.offsets, solver.sigma)
        for node in tree.decision_nodes():
            block = current.block(int(node))
            block[:, 1] = start
            block[:, 0] = 1.0 - start
        solver.iterate(iterations)
        for candidate in (trimmed(solver.average_strategy()), solver.current_strategy()):
            if np.array_equal(np.array(best_response_gains(tree, candidate).gains, dtype=np.float32), stored):
                return candidate, True
    spot = solve_spot(seats, depth_bb, ante, max_iterations=iterations)
    if spot.strategy is None or not np.array_equal(np.array(spot.gains, dtype=np.float32), stored):
        raise ValueError(f"{seats} seats {depth_bb:g} bb ante {ante}: a solve of {iterations} iterations gives gains "
                         f"{spot.gains}, the chart file stores {stored.tolist()}")
    return spot.strategy, False


def reproduce_icm_spot(seats: int, depth_bb: float, stage: str, iterations: int, gains: np.ndarray
                       ) -> VectorStrategy:
    """The profile :func:`~pokerlab.pushfold.fullring_icm.solve_icm_spot` kept for a shipped ICM spot solved for
    ``iterations`` iterations, whose stored gains (float32, money) are ``gains``: the solve again with that many
    iterations at most (deterministic). :class:`ValueError` if its gains are not ``gains`` exactly."""
    spot = solve_icm_spot(seats, depth_bb, stage, max_iterations=iterations)
    if spot.strategy is None or not np.array_equal(np.array(spot.gains, dtype=np.float32),
                                                   np.asarray(gains, dtype=np.float32)):
        raise ValueError(f"{seats} seats {depth_bb:g} bb at the {stage}: a solve of {iterations} iterations gives "
                         f"gains {spot.gains}, the ICM chart file stores {np.asarray(gains).tolist()}")
    return spot.strategy
