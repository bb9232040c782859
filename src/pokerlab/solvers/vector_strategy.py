"""The strategy of a vector-form game (one row of action probabilities per private hand at each public
decision node) and its exact evaluation: values of a profile, every player's best-response gain, and the
exploitability of a two-player zero-sum game. A :class:`~pokerlab.solvers.strategy.Strategy` kind: it plays,
values, measures and files itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games.base import Game, require_two_player_zero_sum
from pokerlab.games.vector import CompiledPublicTree, VectorGame, compile_public_tree
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.strategy import Strategy, float_array, same_spec, save_strategy, strategy_kind
from pokerlab.solvers.vector_traversal import BEST, FOLLOW, Traversal, block_offsets


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
        offsets = block_offsets(tree)
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
    walk = Traversal(tree)
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
    walk = Traversal(tree)
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
    walk = Traversal(tree)
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


def vector_strategy_from(tree: CompiledPublicTree, rows: Callable[[int], Sequence[Sequence[float]]]) -> VectorStrategy:
    """A :class:`VectorStrategy` from a function giving each decision node's ``(hands, actions)`` rows (used to
    bring a strategy from another representation, e.g. a tree-form policy, into vector form)."""
    strategy = VectorStrategy.uniform(tree)
    for n in tree.decision_nodes():
        block = strategy.block(int(n))
        block[:] = np.asarray(rows(int(n)), dtype=np.float64).reshape(block.shape)
    return strategy
