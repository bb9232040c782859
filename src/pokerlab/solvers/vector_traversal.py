"""The compiled traversal of a vector-form game's public tree, shared by the vector-form solver and the
exact evaluation of its strategies: every node's reach vectors top-down (:func:`_reach_down`, memory nodes x
players x hands), the values of all terminals in one call of the game's
:meth:`~pokerlab.games.vector.VectorGame.evaluate_terminals`, then values, regrets and the average strategy
bottom-up (:func:`_values_up`). Nodes are numbered breadth-first, so a loop over node indices visits parents
before children and its reverse visits children first: no recursion and no Python per node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL
from pokerlab.games.vector import CompiledPublicTree, PublicTree
from pokerlab.solvers.kernels import match_regrets


def block_offsets(tree: CompiledPublicTree) -> np.ndarray:
    """First flat index of each decision node's ``(hands, actions)`` block (-1 elsewhere); the last entry of
    the returned array (one longer than the nodes) is the total size."""
    t = tree.tree
    offsets = np.full(tree.num_nodes + 1, -1, dtype=np.int64)
    at = 0
    for n in tree.decision_nodes():
        offsets[n] = at
        at += tree.num_hands[int(t.player[n])] * int(t.num_children[n])
    offsets[-1] = at
    return offsets


FOLLOW, BEST, UPDATE = 0, 1, 2
"""Modes of :func:`_values_up`: the player follows the strategy, plays a best response, or CFR updates."""


@njit(cache=True)
def _reach_down(tree: PublicTree, offsets: np.ndarray, hands: np.ndarray, sigma: np.ndarray,
                weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every player's reach vector at every node, ``(nodes, players, max hands)`` (initial weight times the
    player's own action probabilities on the path), and the product of chance probabilities on the path."""
    nodes = tree.kind.shape[0]
    players, width = weights.shape
    reach = np.empty((nodes, players, width))
    chance = np.empty(nodes)
    # rows copied element by element: a row assigned whole compiles numba's shape-mismatch message (string code,
    # seconds of a first run)
    for p in range(players):
        for h in range(width):
            reach[0, p, h] = weights[p, h]
    chance[0] = 1.0
    for n in range(nodes):
        if tree.kind[n] == KIND_TERMINAL:
            continue
        first = tree.first_child[n]
        na = tree.num_children[n]
        q = tree.player[n]
        lo = offsets[n]
        for a in range(na):
            c = first + a
            for p in range(players):
                for h in range(width):
                    reach[c, p, h] = reach[n, p, h]
            chance[c] = chance[n] * tree.chance_prob[c]
            if tree.kind[n] == KIND_DECISION:
                for h in range(hands[q]):
                    reach[c, q, h] *= sigma[lo + h * na + a]
    return reach, chance


@njit(cache=True)
def _values_up(tree: PublicTree, offsets: np.ndarray, player: int, sigma: np.ndarray, values: np.ndarray,
               mode: int, reach: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray, weight: float) -> None:
    """Counterfactual values of ``player``'s hands at every node, bottom-up from the terminal rows of ``values``
    (already times the chance reach): sums over the others' actions and chance, and at the player's own nodes
    the strategy's mix (``FOLLOW``), the best action (``BEST``) or the mix plus the CFR update (``UPDATE``:
    instantaneous regrets into ``regrets``, ``weight`` times own reach times the strategy into ``cumulative``)."""
    hands = values.shape[1]
    for n in range(tree.kind.shape[0] - 1, -1, -1):
        if tree.kind[n] == KIND_TERMINAL:
            continue
        first = tree.first_child[n]
        na = tree.num_children[n]
        if tree.kind[n] == KIND_CHANCE or tree.player[n] != player:
            for h in range(hands):
                total = 0.0
                for a in range(na):
                    total += values[first + a, h]
                values[n, h] = total
            continue
        lo = offsets[n]
        for h in range(hands):
            row = lo + h * na
            if mode == BEST:
                best = values[first, h]
                for a in range(1, na):
                    best = max(best, values[first + a, h])
                values[n, h] = best
                continue
            v = 0.0
            for a in range(na):
                v += sigma[row + a] * values[first + a, h]
            values[n, h] = v
            if mode == UPDATE:
                own = weight * reach[n, player, h]
                for a in range(na):
                    regrets[row + a] += values[first + a, h] - v
                    cumulative[row + a] += own * sigma[row + a]


@njit(cache=True)
def _match_player(tree: PublicTree, offsets: np.ndarray, hands: int, player: int, regrets: np.ndarray,
                  sigma: np.ndarray, floor: bool, discount: bool, positive: float, negative: float) -> None:
    """After ``player``'s pass: clamp (CFR+) or discount its regrets, then regret matching into ``sigma``
    (positive parts normalised per hand, uniform where none is positive)."""
    for n in range(tree.kind.shape[0]):
        if tree.kind[n] != KIND_DECISION or tree.player[n] != player:
            continue
        na = tree.num_children[n]
        for h in range(hands):
            row = offsets[n] + h * na
            for a in range(na):
                r = regrets[row + a]
                if floor:
                    r = max(r, 0.0)
                elif discount:
                    r *= positive if r > 0.0 else (negative if r < 0.0 else 1.0)
                regrets[row + a] = r
            match_regrets(regrets, row, row + na, sigma, row)


class Traversal:
    """The compiled passes over one compiled tree: reach down, the game's batched terminal values, values up."""

    def __init__(self, tree: CompiledPublicTree) -> None:
        self.tree = tree
        self.terminals = np.flatnonzero(tree.tree.kind == KIND_TERMINAL)
        self.hands = np.asarray(tree.num_hands, dtype=np.int64)
        self.weights = np.zeros((tree.num_players, int(self.hands.max())))
        for p, w in enumerate(tree.weights):
            self.weights[p, :w.size] = w
        self._empty = np.zeros(0)

    def reach(self, offsets: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _reach_down(self.tree.tree, offsets, self.hands, sigma, self.weights)

    def terminal_values(self, reach: tuple[np.ndarray, np.ndarray], player: int) -> np.ndarray:
        """``(nodes, hands)`` values with the terminal rows filled (times the chance reach), the rest 0."""
        reaches, chance = reach
        t = self.terminals
        values = np.zeros((self.tree.num_nodes, self.tree.num_hands[player]))
        evaluated = self.tree.game.evaluate_terminals(self.tree, t, player, reaches[t])
        values[t] = chance[t, None] * np.asarray(evaluated, dtype=np.float64)
        return values

    def up(self, offsets: np.ndarray, sigma: np.ndarray, player: int, values: np.ndarray, mode: int,
           reach: np.ndarray | None = None, regrets: np.ndarray | None = None,
           cumulative: np.ndarray | None = None, weight: float = 0.0) -> np.ndarray:
        """Root values of ``player``'s hands (``values`` from :meth:`terminal_values` is filled in place)."""
        empty = self._empty
        _values_up(self.tree.tree, offsets, player, sigma, values, mode,
                   reach if reach is not None else np.zeros((0, 0, 0)), regrets if regrets is not None else empty,
                   cumulative if cumulative is not None else empty, weight)
        root: np.ndarray = values[0]
        return root
