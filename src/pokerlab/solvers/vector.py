"""Vector-form solvers: CFR+ / discounted CFR and exact best response over a public tree with private hands.

Written against :class:`pokerlab.games.vector.VectorGame` only. An information set is a (public decision
node, private hand) pair, so every quantity is a vector over the acting player's hands: regrets and
cumulative strategies are ``(hands, actions)`` blocks, one per decision node, counterfactual values one float
per hand. Any number of players (2..10) and general-sum payoffs: CFR runs in self-play with alternating
updates, and the guarantee it gives for n > 2 players is the measured one, each player's best-response gain
(:func:`best_response_gains`). For two-player zero-sum games the gains add up to NashConv and
:func:`vector_exploitability` is the usual exploitability (chips per game, the mean of the two gains).

The traversal is depth-first over the public tree (its memory is the depth times the hands, not the tree
times the hands); the hot work is numpy over hand vectors and the game's own terminal evaluation, which a
large game (1,326 hands per seat) writes as a numba kernel.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidGameError, PokerlabError
from pokerlab.games.base import require_two_player_zero_sum
from pokerlab.games.compiler import KIND_CHANCE, KIND_TERMINAL
from pokerlab.games.vector import CompiledPublicTree, VectorGame, compile_public_tree
from pokerlab.solvers.core import SolverConfig, algorithm_config

VECTOR_ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
FORMAT = "pokerlab-vector-solver"
FORMAT_VERSION = 1


def _block_offsets(tree: CompiledPublicTree) -> np.ndarray:
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


def _match(regrets: np.ndarray) -> np.ndarray:
    """Regret matching over the rows of a ``(hands, actions)`` block: positive parts normalised per hand,
    uniform where none is positive."""
    positive = np.maximum(regrets, 0.0)
    total = positive.sum(axis=1, keepdims=True)
    uniform = 1.0 / regrets.shape[1]
    return np.where(total > 0.0, positive / np.where(total > 0.0, total, 1.0), uniform)


@dataclass(frozen=True, eq=False)
class VectorStrategy:
    """A strategy profile of a vector-form game: for each decision node, one row of action probabilities per
    private hand of the acting player (``block(node)`` is a ``(hands, actions)`` view of ``probs``). One of the
    :class:`~pokerlab.solvers.strategy.Strategy` kinds: agents play it, ``save`` writes it."""

    tree: CompiledPublicTree
    offsets: np.ndarray
    probs: np.ndarray
    _nodes: dict[Any, int] = field(default_factory=dict, init=False, repr=False)

    def node_of(self, public_state: Any) -> int:
        """The decision node of a public state (as :meth:`VectorGame.public_apply` builds it); a state that is
        not a decision node of the tree raises :class:`InvalidGameError`."""
        if not self._nodes:
            self._nodes.update((self.tree.states[int(n)], int(n)) for n in self.tree.decision_nodes())
        try:
            return self._nodes[public_state]
        except (KeyError, TypeError):
            raise InvalidGameError(f"{self.tree.game.name}: {public_state!r} is not a decision node of the "
                                   "public tree") from None

    def save(self, path: str | Path) -> Path:
        """Write the strategy to ``path`` (see :func:`pokerlab.solvers.strategy.save_strategy`)."""
        from pokerlab.solvers.strategy import save_strategy

        return save_strategy(self, path)

    def block(self, node: int) -> np.ndarray:
        """``(hands, actions)`` probabilities at decision node ``node``."""
        t = self.tree.tree
        lo = int(self.offsets[node])
        if lo < 0:
            raise InvalidArgumentError(f"public node {node} is not a decision node")
        hands = self.tree.num_hands[int(t.player[node])]
        return self.probs[lo:lo + hands * int(t.num_children[node])].reshape(hands, int(t.num_children[node]))

    def action_probabilities(self, node: int, hand: int) -> dict[str, float]:
        """Action label -> probability for one hand at one decision node."""
        row = self.block(node)[hand]
        return {label: float(p) for label, p in zip(self.tree.labels[node], row, strict=True)}

    @classmethod
    def uniform(cls, tree: CompiledPublicTree) -> VectorStrategy:
        """Every action equally likely at every decision node, for every hand."""
        offsets = _block_offsets(tree)
        probs = np.empty(int(offsets[-1]))
        for n in tree.decision_nodes():
            na = int(tree.tree.num_children[n])
            lo = int(offsets[n])
            probs[lo:lo + tree.num_hands[int(tree.tree.player[n])] * na] = 1.0 / na
        return cls(tree, offsets, probs)


def _compiled(game: VectorGame | CompiledPublicTree) -> CompiledPublicTree:
    return game if isinstance(game, CompiledPublicTree) else compile_public_tree(game)


def _values(tree: CompiledPublicTree, strategy: VectorStrategy, player: int, best: bool) -> np.ndarray:
    """Counterfactual values at the root of ``player``'s hands: ``player`` follows ``strategy`` or (``best``)
    a best response, the others follow ``strategy``."""
    t = tree.tree
    game = tree.game

    def walk(n: int, reaches: list[np.ndarray], chance: float) -> np.ndarray:
        k = t.kind[n]
        fc = int(t.first_child[n])
        na = int(t.num_children[n])
        if k == KIND_TERMINAL:
            return chance * np.asarray(game.evaluate(tree.states[n], player, reaches), dtype=np.float64)
        if k == KIND_CHANCE:
            return sum((walk(fc + a, reaches, chance * float(t.chance_prob[fc + a])) for a in range(na)),
                       np.zeros(tree.num_hands[player]))
        q = int(t.player[n])
        sigma = strategy.block(n)
        if q == player:
            children = np.stack([walk(fc + a, reaches, chance) for a in range(na)])
            return children.max(axis=0) if best else np.einsum("ha,ah->h", sigma, children)
        total = np.zeros(tree.num_hands[player])
        for a in range(na):
            below = list(reaches)
            below[q] = reaches[q] * sigma[:, a]
            total += walk(fc + a, below, chance)
        return total

    return walk(0, [w.copy() for w in tree.weights], 1.0)


def vector_profile_values(*seats: VectorStrategy) -> tuple[float, ...]:
    """Exact value (chips per game) of each player when player ``p`` plays ``seats[p]``'s part (one strategy
    per player, of the same game; a single strategy plays every seat).

    >>> from pokerlab.games.vector import CoinPoker, compile_public_tree
    >>> uniform = VectorStrategy.uniform(compile_public_tree(CoinPoker())); vector_profile_values(uniform, uniform)
    (0.25, -0.25)
    """
    tree = seats[0].tree
    if len(seats) == 1:
        seats = seats * tree.num_players
    if len(seats) != tree.num_players or any(s.probs.shape != seats[0].probs.shape for s in seats):
        raise InvalidArgumentError(f"need one strategy of {tree.game.name!r} per player ({tree.num_players})")
    profile = VectorStrategy(tree, seats[0].offsets, seats[0].probs.copy())
    for n in tree.decision_nodes():
        profile.block(int(n))[:] = seats[int(tree.tree.player[n])].block(int(n))
    return tuple(float(tree.weights[p] @ _values(tree, profile, p, best=False)) for p in range(tree.num_players))


@dataclass(frozen=True)
class BestResponseGains:
    """Per player (chips per game): the value of the profile (``values``), the value of a best response to
    the others (``best_response_values``) and the gain of deviating (``gains`` = best response - value,
    >= 0; all 0 exactly at a Nash equilibrium). ``nash_conv`` is the sum of the gains."""

    values: tuple[float, ...]
    best_response_values: tuple[float, ...]
    gains: tuple[float, ...]

    @property
    def nash_conv(self) -> float:
        return float(sum(self.gains))


def best_response_gains(game: VectorGame | CompiledPublicTree, strategy: VectorStrategy) -> BestResponseGains:
    """Exact best response of every player to the others' ``strategy`` in a vector-form game (any number of
    players, general-sum): each player's profile value, best-response value and gain. A best response picks,
    for each (decision node, hand), the action of highest counterfactual value: exact, since an information
    set is one node and one hand.

    >>> from pokerlab.games.vector import CoinPoker, compile_public_tree
    >>> tree = compile_public_tree(CoinPoker())
    >>> best_response_gains(tree, VectorStrategy.uniform(tree)).gains
    (0.25, 0.25)
    """
    tree = _compiled(game)
    values, best = [], []
    for p in range(tree.num_players):
        w = tree.weights[p]
        values.append(float(w @ _values(tree, strategy, p, best=False)))
        best.append(float(w @ _values(tree, strategy, p, best=True)))
    return BestResponseGains(tuple(values), tuple(best), tuple(b - v for b, v in zip(best, values, strict=True)))


def vector_exploitability(game: VectorGame | CompiledPublicTree, strategy: VectorStrategy) -> float:
    """Exploitability (chips per game, the mean of the two best-response gains) of a two-player zero-sum
    vector-form game; other games raise :class:`~pokerlab.errors.UnsupportedGameError` (use
    :func:`best_response_gains`).

    >>> from pokerlab.games.vector import CoinPoker, compile_public_tree
    >>> tree = compile_public_tree(CoinPoker()); vector_exploitability(tree, VectorStrategy.uniform(tree))
    0.25
    """
    tree = _compiled(game)
    require_two_player_zero_sum(tree.game.game_type, tree.game.name, "exploitability")
    return 0.5 * best_response_gains(tree, strategy).nash_conv


class VectorSolver:
    """CFR (``cfr``), CFR+ (``cfr+``) or discounted CFR (``lcfr``, ``dcfr``) on a vector-form game, with the
    flags and parameters of :class:`pokerlab.solvers.core.SolverConfig` and alternating updates (player 0, 1,
    ..., n-1 in each iteration), as the tree-form solver does.

    >>> from pokerlab.games.vector import CoinPoker
    >>> solver = VectorSolver(CoinPoker(), "cfr+"); solver.iterate(2000)
    >>> solver.gains().nash_conv < 1e-3
    True
    """

    def __init__(self, game: VectorGame | CompiledPublicTree, algorithm: str | SolverConfig = "cfr+") -> None:
        self.tree = _compiled(game)
        self.config = algorithm_config(algorithm)
        if self.config.sampling != "full":
            raise InvalidArgumentError(f"the vector-form solver runs full-traversal algorithms "
                                       f"({', '.join(VECTOR_ALGORITHMS)}), not {self.config.name!r}")
        self.offsets = _block_offsets(self.tree)
        size = int(self.offsets[-1])
        self.regrets = np.zeros(size)
        self.cumulative = np.zeros(size)
        self.sigma = VectorStrategy.uniform(self.tree).probs.copy()
        self.iteration = 0

    def _block(self, array: np.ndarray, node: int) -> np.ndarray:
        t = self.tree.tree
        lo = int(self.offsets[node])
        hands = self.tree.num_hands[int(t.player[node])]
        return array[lo:lo + hands * int(t.num_children[node])].reshape(hands, int(t.num_children[node]))

    def iterate(self, iterations: int, progress: Callable[[int], None] | None = None) -> None:
        """Run ``iterations`` more iterations; ``progress`` (if given) receives the iteration count after each."""
        if iterations < 0:
            raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
        c = self.config
        decisions = self.tree.decision_nodes()
        for _ in range(iterations):
            t = float(self.iteration + 1)
            weight = t ** c.gamma if c.gamma != 0.0 else 1.0
            pos = t ** c.alpha / (t ** c.alpha + 1.0)
            neg = t ** c.beta / (t ** c.beta + 1.0)
            for p in range(self.tree.num_players):
                self._pass(p, weight)
                for n in decisions:
                    if self.tree.tree.player[n] != p:
                        continue
                    r = self._block(self.regrets, n)
                    if c.floor:
                        np.maximum(r, 0.0, out=r)
                    elif c.discount:
                        r *= np.where(r > 0.0, pos, np.where(r < 0.0, neg, 1.0))
                    self._block(self.sigma, n)[:] = _match(r)
            self.iteration += 1
            if progress is not None:
                progress(self.iteration)

    def _pass(self, p: int, weight: float) -> None:
        """One CFR pass for player ``p``: add its instantaneous regrets and ``weight * pi_p * sigma``."""
        tree = self.tree
        t = tree.tree
        game = tree.game
        hands_p = tree.num_hands[p]

        def walk(n: int, reaches: list[np.ndarray], chance: float) -> np.ndarray:
            k = t.kind[n]
            fc = int(t.first_child[n])
            na = int(t.num_children[n])
            if k == KIND_TERMINAL:
                return chance * np.asarray(game.evaluate(tree.states[n], p, reaches), dtype=np.float64)
            if k == KIND_CHANCE:
                total = np.zeros(hands_p)
                for a in range(na):
                    total += walk(fc + a, reaches, chance * float(t.chance_prob[fc + a]))
                return total
            q = int(t.player[n])
            sigma = self._block(self.sigma, n)
            if q == p:
                children = np.empty((hands_p, na))  # counterfactual value of each (hand, action)
                for a in range(na):
                    below = list(reaches)
                    below[p] = reaches[p] * sigma[:, a]  # own reach: weighs the average strategy below
                    children[:, a] = walk(fc + a, below, chance)
                value = np.einsum("ha,ha->h", sigma, children)
                self._block(self.regrets, n)[:] += children - value[:, None]
                self._block(self.cumulative, n)[:] += weight * reaches[p][:, None] * sigma
                return value
            total = np.zeros(hands_p)
            for a in range(na):
                below = list(reaches)
                below[q] = reaches[q] * sigma[:, a]
                total += walk(fc + a, below, chance)
            return total

        walk(0, [w.copy() for w in tree.weights], 1.0)

    def average_strategy(self) -> VectorStrategy:
        """The average strategy (cumulative sums normalised per hand, uniform where nothing accumulated)."""
        out = np.empty_like(self.cumulative)
        for n in self.tree.decision_nodes():
            block = self._block(self.cumulative, n)
            total = block.sum(axis=1, keepdims=True)
            self._block(out, n)[:] = np.where(total > 0.0, block / np.where(total > 0.0, total, 1.0),
                                              1.0 / block.shape[1])
        return VectorStrategy(self.tree, self.offsets, out)

    def current_strategy(self) -> VectorStrategy:
        """The current (regret-matching) strategy."""
        return VectorStrategy(self.tree, self.offsets, self.sigma.copy())

    def gains(self) -> BestResponseGains:
        """Exact best-response gains of every player against the average strategy."""
        return best_response_gains(self.tree, self.average_strategy())

    # -- persistence ------------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the complete state (regrets, cumulative and current strategies, iteration, algorithm and the
        game's spec) to ``path``, an ``.npz`` with a format version (no pickle); :meth:`load` resumes it exactly."""
        path = Path(path)
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game_spec": self.tree.game.spec(),
                "num_hands": list(self.tree.num_hands), "config": asdict(self.config), "iteration": self.iteration}
        with path.open("wb") as handle:
            np.savez_compressed(handle, meta=np.array(json.dumps(meta)), regrets=self.regrets,
                                cumulative=self.cumulative, sigma=self.sigma)
        return path

    @classmethod
    def load(cls, path: str | Path, game: VectorGame | CompiledPublicTree) -> VectorSolver:
        """Resume a solver saved by :meth:`save` on ``game`` (a vector-form game is code, so it is given, and
        checked against the saved spec and sizes); anything else raises :class:`FileFormatError`."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = {k: np.array(data[k]) for k in ("regrets", "cumulative", "sigma")}
        except FileNotFoundError:
            raise
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            raise FileFormatError(f"{path}: not a pokerlab vector solver file ({error})") from error
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise FileFormatError(f"{path}: not a pokerlab vector solver file")
        if meta.get("format_version") != FORMAT_VERSION:
            raise FileFormatError(f"{path}: unsupported format version {meta.get('format_version')!r} "
                                  f"(this pokerlab reads version {FORMAT_VERSION})")
        tree = _compiled(game)
        if meta.get("game_spec") != json.loads(json.dumps(tree.game.spec())) or \
                meta.get("num_hands") != list(tree.num_hands):
            raise FileFormatError(f"{path}: saved for the game {meta.get('game_spec')!r}, not {tree.game.spec()!r}")
        try:
            solver = cls(tree, SolverConfig(**meta["config"]))
            iteration = int(meta["iteration"])
            if iteration < 0:
                raise ValueError(f"negative iteration count {iteration}")
        except (PokerlabError, TypeError, KeyError, ValueError) as error:
            raise FileFormatError(f"{path}: corrupt pokerlab vector solver file ({error})") from error
        for name, array in arrays.items():
            if array.shape != solver.regrets.shape or array.dtype.kind != "f":
                raise FileFormatError(f"{path}: arrays do not match the game {tree.game.name!r}")
            setattr(solver, name, array.astype(np.float64))
        solver.iteration = iteration
        return solver


def vector_strategy_from(tree: CompiledPublicTree, rows: Callable[[int], Sequence[Sequence[float]]]) -> VectorStrategy:
    """A :class:`VectorStrategy` from a function giving each decision node's ``(hands, actions)`` rows (used to
    bring a strategy from another representation, e.g. a tree-form policy, into vector form)."""
    strategy = VectorStrategy.uniform(tree)
    for n in tree.decision_nodes():
        block = strategy.block(int(n))
        block[:] = np.asarray(rows(int(n)), dtype=np.float64).reshape(block.shape)
    return strategy
