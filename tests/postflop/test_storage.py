"""The float32 storage keeps every action's cumulative strategy but the last, which is what the others leave of
the actor's reach: the cumulative rows, weighted by the actor's own reach, must sum to the reach the solver's
weight gives (its parent's row for that action, or the weights at a first node), through chance nodes and
merged cards; a given strategy goes into storage and comes back."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.kernels import CHANCE_NODE, DECISION_NODE
from pokerlab.postflop import build_game
from pokerlab.solvers.postflop_cfr import PostflopSolver, strategy_weight

MONOTONE = "Ah8h5h2h"
OOP = "AKo, KQs, 77, 33, T9s"
IP = "QQ, JJ, KJs, 65s, 98s"


def _stored(game: PostflopGame, storage: np.ndarray, node: int) -> np.ndarray:
    """The stored cumulative rows of ``node``: ``(actions - 1, hands)``."""
    tree = game.tree
    na, rows = int(tree.num_children[node]), int(game.hands.sizes[int(tree.player[node])])
    base = int(tree.offset[node]) + na * rows
    return storage[base:base + (na - 1) * rows].astype(np.float64).reshape(na - 1, rows)


@pytest.mark.parametrize("iterations", [3, 40])
def test_each_nodes_rows_sum_to_what_its_parent_row_holds(iterations: int) -> None:
    """Walking down from a player's node to its next one (through the opponent's nodes and the river's deal,
    hands holding the dealt card out), the next node's stored rows plus its unstored last row sum to the
    parent's row for the action taken: the parent's stored row where that action is not the last, checked here
    to 1e-6 of the node's largest. At a player's first node they sum to the weights times the solver's weight.
    Three iterations cross the restarts at 1 and 4; forty run past the last restart."""
    game, _ = build_game(MONOTONE, OOP, IP, pot=100, stack=200, bets="50%, a", raises="a")
    assert game.tree.iso_count.any()  # merged rivers
    solver = PostflopSolver(game)
    solver.run(iterations=iterations)
    weight = strategy_weight(iterations)
    tree, hands = game.tree, game.hands
    average = game.average_strategy(solver.cumulative, solver.weight)
    checked = 0
    for node in np.flatnonzero(tree.kind == DECISION_NODE):
        p = int(tree.player[node])
        rows = int(hands.sizes[p])
        kept = np.ones(rows, dtype=bool)
        up, child = int(game.parent[node]), int(node)
        while up >= 0 and not (tree.kind[up] == DECISION_NODE and tree.player[up] == p):
            if tree.kind[up] == CHANCE_NODE:
                kept &= ~(hands.cards[p, :rows] == tree.card[child]).any(axis=1)
            up, child = int(game.parent[up]), up
        whole = _stored(game, solver.cumulative, int(node)).sum(axis=0)
        # the unstored last row as the reader takes it: the average's last action times the node's total
        if up < 0:
            total = weight * hands.weights[p, :rows] * kept
        else:
            a = child - int(tree.first_child[up])
            if a == int(tree.num_children[up]) - 1:
                continue  # the parent's own row for it is unstored too
            total = _stored(game, solver.cumulative, up)[a] * kept
        whole = whole + average[int(node)][-1] * total
        assert np.abs(whole - total).max() <= 1e-6 * max(total.max(), 1e-30)
        checked += 1
    assert checked > 100


def test_a_strategy_comes_back_from_its_storage() -> None:
    """Random mixes at every node of a turn tree with merged rivers, put in storage and read back with weight 1:
    the same mixes (float32), for every hand the tree can bring to its node."""
    game, _ = build_game(MONOTONE, OOP, IP, pot=100, stack=200, bets="50%, a", raises="a")
    rng = np.random.default_rng(5)
    tree = game.tree
    strategy = {int(n): rng.dirichlet(np.ones(int(tree.num_children[n])),
                                      size=int(game.hands.sizes[int(tree.player[n])])).T
                for n in np.flatnonzero(tree.kind == DECISION_NODE)}
    back = game.average_strategy(game.strategy_storage(strategy), 1.0)
    for node, mix in strategy.items():
        p = int(tree.player[node])
        live = game.hands.weights[p, :game.hands.sizes[p]] > 0
        for c in game.dealt[node]:
            live &= ~(game.hands.cards[p, :game.hands.sizes[p]] == c).any(axis=1)
        assert np.allclose(back[node][:, live], mix[:, live], atol=1e-5)


def test_the_float32_storage_is_smaller_by_the_last_rows() -> None:
    """One array of (2 actions - 1) rows a node against two arrays of ``actions`` rows each (the 16-bit storage's
    and float32's before): on a tree of two-action nodes three rows where there were four."""
    plain, _ = build_game("Td9d6hQc2s", "AA, KK", "QQ, JJ", pot=100, stack=100, bets="a", raises="")
    packed, _ = build_game("Td9d6hQc2s", "AA, KK", "QQ, JJ", pot=100, stack=100, bets="a", raises="",
                           compress=True)
    decisions = np.flatnonzero(plain.tree.kind == DECISION_NODE)
    assert set(plain.tree.num_children[decisions].tolist()) == {2}
    assert plain.storage_size * 4 == 2 * packed.storage_size * 3
    solver = PostflopSolver(plain)
    assert solver.regrets is solver.cumulative and solver.regrets.size == plain.storage_size
