"""Vector-form solvers: CFR+ / discounted CFR and exact best response over a public tree with private hands.

Written against :class:`pokerlab.games.vector.VectorGame` only. An information set is a (public decision
node, private hand) pair, so every quantity is a vector over the acting player's hands: regrets and
cumulative strategies are ``(hands, actions)`` blocks, one per decision node, counterfactual values one float
per hand. Any number of players (2..10) and general-sum payoffs: CFR runs in self-play with alternating
updates, and the guarantee it gives for n > 2 players is the measured one, each player's best-response gain
(:func:`best_response_gains`). For two-player zero-sum games the gains add up to NashConv and
:func:`vector_exploitability` is the usual exploitability (chips per game, the mean of the two gains).

The traversal is compiled (numba) in three steps per pass: every node's reach vectors top-down
(:func:`_reach_down`, memory nodes x players x hands), the values of all terminals in one call of the game's
:meth:`~pokerlab.games.vector.VectorGame.evaluate_terminals`, then values, regrets and the average strategy
bottom-up (:func:`_values_up`). Nodes are numbered breadth-first, so a loop over node indices visits parents
before children and its reverse visits children first: no recursion and no Python per node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numba import njit

from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidGameError, PokerlabError
from pokerlab.games.base import Game, require_two_player_zero_sum
from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL
from pokerlab.games.vector import CompiledPublicTree, PublicTree, VectorGame, compile_public_tree
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.core import SolverConfig, algorithm_config
from pokerlab.solvers.kernels import match_regrets
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.strategy import Strategy, float_array, register_reader, same_spec, save_strategy, strategy_kind

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


FOLLOW, BEST, UPDATE = 0, 1, 2
"""Modes of :func:`_values_up`: the player follows the strategy, plays a best response, or CFR updates."""


@njit(cache=True)
def _reach_down(tree: PublicTree, offsets: np.ndarray, hands: np.ndarray, sigma: np.ndarray,
                weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every player's reach vector at every node, ``(nodes, players, max hands)`` (initial weight times the
    player's own action probabilities on the path), and the product of chance probabilities on the path."""
    nodes = tree.kind.shape[0]
    reach = np.empty((nodes, weights.shape[0], weights.shape[1]))
    chance = np.empty(nodes)
    reach[0] = weights
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
            reach[c] = reach[n]
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


class _Traversal:
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


@strategy_kind
@dataclass(frozen=True, eq=False)
class VectorStrategy:
    """A strategy profile of a vector-form game: for each decision node, one row of action probabilities per
    private hand of the acting player (``block(node)`` is a ``(hands, actions)`` view of ``probs``). A
    :class:`~pokerlab.solvers.strategy.Strategy`: it plays a state through the game's
    :meth:`~pokerlab.games.vector.VectorGame.public_view` (public state and the acting player's private hand)."""

    format: ClassVar[str] = "pokerlab-vector-strategy"

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

    # -- the Strategy protocol ----------------------------------------------------------------------------------
    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        """``(action, probability)`` at ``state`` of ``game`` (the vector-form game this strategy belongs to)."""
        if not isinstance(game, VectorGame) or game.spec() != self.tree.game.spec():
            raise InvalidGameError(f"the vector-form strategy of {self.tree.game.name!r} does not play "
                                   f"{game.name!r}")
        public, hand = game.public_view(state)
        row = self.block(self.node_of(public))[int(hand)]
        return list(zip(game.public_actions(public), (float(p) for p in row), strict=True))

    def value_against(self, game: Game, other: Strategy) -> float:
        """Exact chips per hand against ``other`` over both seats (two-player zero-sum games): on the public
        tree against another strategy of the same game, else both read into policies of the compiled tree."""
        if isinstance(other, VectorStrategy) and self.tree.game.spec() == other.tree.game.spec():
            require_two_player_zero_sum(self.tree.game.game_type, self.tree.game.name, "a seat-averaged value")
            return 0.5 * (vector_profile_values(self, other)[0] - vector_profile_values(other, self)[0])
        return Policy.from_distribution(game, self.distribution, "strategy").value_against(game, other)

    def exploitability(self, game: Game) -> float:
        """Exact exploitability (chips per hand) on the strategy's own public tree (see
        :func:`vector_exploitability`)."""
        return vector_exploitability(self.tree, self)

    def to_archive(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"game_spec": self.tree.game.spec(), "num_hands": list(self.tree.num_hands)}, {"probs": self.probs}

    @classmethod
    def from_archive(cls, path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray],
                     game: Game) -> VectorStrategy:
        tree = compile_public_tree(_vector_game(path, game))
        if not same_spec(meta["game_spec"], tree.game.spec()) or meta.get("num_hands") != list(tree.num_hands):
            raise InvalidArgumentError(f"{path}: a strategy of {meta.get('game_spec')!r}, not {game.name!r}")
        strategy = cls.uniform(tree)
        probs = float_array(arrays["probs"])
        if probs.shape != strategy.probs.shape:
            raise ValueError(f"{probs.size} probabilities, the game has {strategy.probs.size}")
        for n in tree.decision_nodes():
            block = strategy.block(int(n))
            block[:] = probs[int(strategy.offsets[n]):int(strategy.offsets[n]) + block.size].reshape(block.shape)
            if np.any(block < 0) or np.max(np.abs(block.sum(axis=1) - 1.0)) > 1e-9:
                raise ValueError(f"probabilities at public node {int(n)} are negative or do not sum to 1")
        return strategy

    def save(self, path: str | Path) -> Path:
        """Write the strategy to ``path`` (see :func:`pokerlab.solvers.strategy.save_strategy`)."""
        return save_strategy(self, path)


def _vector_game(path: Path, game: Game) -> VectorGame:
    if not isinstance(game, VectorGame):
        raise InvalidArgumentError(f"{path}: a vector-form strategy, and {game.name!r} has no vector form")
    return game


def _compiled(game: VectorGame | CompiledPublicTree) -> CompiledPublicTree:
    return game if isinstance(game, CompiledPublicTree) else compile_public_tree(game)


def _values(tree: CompiledPublicTree, strategy: VectorStrategy, player: int, best: bool) -> np.ndarray:
    """Counterfactual values at the root of ``player``'s hands: ``player`` follows ``strategy`` or (``best``)
    a best response, the others follow ``strategy``."""
    walk = _Traversal(tree)
    values = walk.terminal_values(walk.reach(strategy.offsets, strategy.probs), player)
    return walk.up(strategy.offsets, strategy.probs, player, values, BEST if best else FOLLOW)


def vector_node_values(game: VectorGame | CompiledPublicTree, strategy: VectorStrategy, player: int) -> np.ndarray:
    """Counterfactual values of ``player``'s hands at every public node, ``(nodes, hands)``, everyone following
    ``strategy``: the value below the node weighted by the others' and chance's reach to it (not the
    player's own), so ``values[child]`` of the player's decision node are its actions' values.

    >>> from pokerlab.games.vector import CoinPoker, compile_public_tree
    >>> tree = compile_public_tree(CoinPoker())
    >>> vector_node_values(tree, VectorStrategy.uniform(tree), 0)[0].tolist()  # low card, high card
    [-0.25, 0.75]
    """
    tree = _compiled(game)
    walk = _Traversal(tree)
    values = walk.terminal_values(walk.reach(strategy.offsets, strategy.probs), player)
    walk.up(strategy.offsets, strategy.probs, player, values, FOLLOW)
    return values


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
    walk = _Traversal(tree)
    reach = walk.reach(strategy.offsets, strategy.probs)
    values, best = [], []
    for p in range(tree.num_players):
        w = tree.weights[p]
        at_terminals = walk.terminal_values(reach, p)  # the same terminal values serve both walks up
        values.append(float(w @ walk.up(strategy.offsets, strategy.probs, p, at_terminals.copy(), FOLLOW)))
        best.append(float(w @ walk.up(strategy.offsets, strategy.probs, p, at_terminals, BEST)))
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
        self._walk = _Traversal(self.tree)

    def _block(self, array: np.ndarray, node: int) -> np.ndarray:
        t = self.tree.tree
        lo = int(self.offsets[node])
        hands = self.tree.num_hands[int(t.player[node])]
        return array[lo:lo + hands * int(t.num_children[node])].reshape(hands, int(t.num_children[node]))

    def prepare(self, player: int) -> None:
        """Evaluate ``player``'s terminals once at the current strategy and discard the values: a game that
        builds per-player caches on first use (push/fold's valuation plans: seconds at 9 seats) builds them here,
        one player per call, so that a caller can stop between players (Ctrl-C) rather than after a whole first
        iteration. Changes nothing of the solver's state.
        """
        self._walk.terminal_values(self._walk.reach(self.offsets, self.sigma), player)

    def iterate(self, iterations: int, progress: Callable[[int], None] | None = None) -> None:
        """Run ``iterations`` more iterations; ``progress`` (if given) receives the iteration count after each."""
        if iterations < 0:
            raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
        c = self.config
        walk = self._walk
        for _ in range(iterations):
            t = float(self.iteration + 1)
            weight = t ** c.gamma if c.gamma != 0.0 else 1.0
            pos = t ** c.alpha / (t ** c.alpha + 1.0)
            neg = t ** c.beta / (t ** c.beta + 1.0)
            for p in range(self.tree.num_players):
                # one CFR pass for p: its instantaneous regrets and weight * own reach * strategy
                reach = walk.reach(self.offsets, self.sigma)
                values = walk.terminal_values(reach, p)
                walk.up(self.offsets, self.sigma, p, values, UPDATE, reach[0], self.regrets, self.cumulative,
                        weight)
                _match_player(self.tree.tree, self.offsets, self.tree.num_hands[p], p, self.regrets, self.sigma,
                              c.floor, c.discount, pos, neg)
            self.iteration += 1
            if progress is not None:
                progress(self.iteration)

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
        game's spec) to ``path`` atomically, an ``.npz`` with a format version (no pickle); :meth:`load` resumes
        it exactly."""
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game_spec": self.tree.game.spec(),
                "num_hands": list(self.tree.num_hands), "config": asdict(self.config), "iteration": self.iteration}
        return write_archive(path, meta, {"regrets": self.regrets, "cumulative": self.cumulative,
                                          "sigma": self.sigma})

    @classmethod
    def load(cls, path: str | Path, game: VectorGame | CompiledPublicTree) -> VectorSolver:
        """Resume a solver saved by :meth:`save` on ``game`` (a vector-form game is code, so it is given, and
        checked against the saved spec and sizes); anything else raises :class:`FileFormatError`."""
        path = Path(path)
        what = "pokerlab vector solver file"
        meta, arrays = read_archive(path, what, ("regrets", "cumulative", "sigma"),
                                    missing=f"no vector solver file {path}")
        check_format(path, meta, (FORMAT,), FORMAT_VERSION, what)
        tree = _compiled(game)
        if not same_spec(meta.get("game_spec"), tree.game.spec()) or meta.get("num_hands") != list(tree.num_hands):
            raise FileFormatError(f"{path}: saved for the game {meta.get('game_spec')!r}, not {tree.game.spec()!r}")
        try:
            solver = cls(tree, SolverConfig(**meta["config"]))
            iteration = int(meta["iteration"])
            if iteration < 0:
                raise ValueError(f"negative iteration count {iteration}")
        except (PokerlabError, TypeError, KeyError, ValueError) as error:
            raise FileFormatError(f"{path}: corrupt {what} ({error})") from error
        for name, array in arrays.items():
            if array.shape != solver.regrets.shape or array.dtype.kind != "f":
                raise FileFormatError(f"{path}: arrays do not match the game {tree.game.name!r}")
            setattr(solver, name, array.astype(np.float64))
        solver.iteration = iteration
        return solver


def _average_of_solver_file(path: Path, game: Game) -> VectorStrategy:
    return VectorSolver.load(path, _vector_game(path, game)).average_strategy()


register_reader(FORMAT, _average_of_solver_file)


def vector_strategy_from(tree: CompiledPublicTree, rows: Callable[[int], Sequence[Sequence[float]]]) -> VectorStrategy:
    """A :class:`VectorStrategy` from a function giving each decision node's ``(hands, actions)`` rows (used to
    bring a strategy from another representation, e.g. a tree-form policy, into vector form)."""
    strategy = VectorStrategy.uniform(tree)
    for n in tree.decision_nodes():
        block = strategy.block(int(n))
        block[:] = np.asarray(rows(int(n)), dtype=np.float64).reshape(block.shape)
    return strategy
