"""A per-terminal valuation of push/fold in plain numpy, the tests' reference for the compiled one
(:mod:`pokerlab.games.pushfold.valuation`): the class tables' products are matrix products here, the heads-up
pots a win matrix, and each terminal is valued on its own (the sampled 3+ way sums are the kernels', which
tests/pushfold/test_redeal.py holds to a plain loop)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.games.pushfold import DISJOINT_COMBOS, PushFoldGame
from pokerlab.games.pushfold.kernels import CONSTANT, HEADS_UP, MULTIWAY, hero_correction, spectator_sum


def reference_evaluate(game: PushFoldGame, state: tuple[int, ...], player: int,
                       reaches: Sequence[np.ndarray]) -> np.ndarray:
    """Counterfactual value of each class of ``player`` at one terminal."""
    t = game.equity
    weights = game.class_weights
    plan = game.valuation.plan(state, player)
    terminal = plan.terminal

    def removal(reach: np.ndarray) -> np.ndarray:
        return t.class_pairs @ (reach / weights)

    value = np.full(NUMBER_OF_CLASSES, plan.scale)
    for q in plan.folders:
        value *= removal(reaches[q])
    u = terminal.utilities[:, player]
    lose = t.class_pairs - t.class_win - t.class_tie
    if plan.kind == CONSTANT:
        return value * u[0]
    if plan.kind == HEADS_UP:
        u_win, u_lose = (u[0], u[1]) if plan.first else (u[1], u[0])
        win_matrix = (t.class_win * u_win + lose * u_lose + t.class_tie * u[2]) / DISJOINT_COMBOS
        return value * (win_matrix @ (reaches[plan.opponents[0]] / weights))
    pot = plan.opponents if plan.kind == MULTIWAY else np.array(terminal.participants, dtype=np.int64)
    reach_in_pot = np.ones(NUMBER_OF_CLASSES)
    for q in pot:
        reach_in_pot *= removal(reaches[q]) / DISJOINT_COMBOS
    sig = np.stack([reaches[q] for q in pot]) / weights
    if plan.kind == MULTIWAY:
        assert plan.outcome_by_position is not None
        deals = game.valuation.deals_of(state)
        correction = hero_correction(deals, player, plan.opponents, sig, plan.outcome_by_position, u,
                                     plan.centre) / plan.counts
    elif pot.size == 2:
        d = u[:3] - plan.centre[0]
        weighted = sig[0] * t.class_size
        correction = np.full(NUMBER_OF_CLASSES, (d[0] * (weighted @ t.class_win @ sig[1])
                                                 + d[1] * (weighted @ lose @ sig[1])
                                                 + d[2] * (weighted @ t.class_tie @ sig[1]))
                             / (1326.0 * DISJOINT_COMBOS))
    else:
        assert plan.outcome_of_sample is not None and plan.pot_weight is not None
        deals = game.valuation.deals_of(state)
        correction = np.full(NUMBER_OF_CLASSES, spectator_sum(deals.deal_class, pot, sig, plan.outcome_of_sample, u,
                                                              plan.centre[0], plan.pot_weight))
    return value * (reach_in_pot * plan.centre + correction)


def reference_values(game: PushFoldGame, tree: object, terminals: np.ndarray, player: int,
                     reaches: np.ndarray) -> np.ndarray:
    """:func:`reference_evaluate` at every terminal of ``terminals`` (nodes of ``tree``), as
    ``evaluate_terminals`` lays them out."""
    out = np.empty((len(terminals), NUMBER_OF_CLASSES))
    for i, node in enumerate(terminals):
        rows = [reaches[i, q, :NUMBER_OF_CLASSES] for q in range(game.table.seats)]
        out[i] = reference_evaluate(game, tree.states[int(node)], player, rows)  # type: ignore[attr-defined]
    return out
