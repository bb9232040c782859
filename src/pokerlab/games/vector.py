"""The vector form of the game protocol: a public tree whose players hold private hands.

A card game in vector form (as postflop-solver's ``Game`` trait, ``src/interface.rs``) separates what everyone
sees from what each player holds:

- a **public tree** of decisions, public chance events and terminals, walked through five methods
  (``public_root``, ``public_player``, ``public_actions``, ``public_chance``, ``public_apply``) and compiled once
  by :func:`compile_public_tree` into a :class:`PublicTree` of arrays;
- for each player ``p``, ``num_private_hands(p)`` private hands with ``initial_weights(p)``; an information set
  is a (public decision node, private hand) pair, so a strategy is one row of action probabilities per hand;
- a terminal **evaluation** for all of a player's hands at once, given the other players' reach vectors
  (:meth:`VectorGame.evaluate`), which holds the game's payoffs and its card removal between hands; the solvers
  ask for every terminal of a pass in one call (:meth:`VectorGame.evaluate_terminals`, a loop over
  ``evaluate`` unless the game batches it).

The deal: hands ``(h_0, ..., h_{n-1})`` are dealt with probability ``prod_q w_q(h_q) * c(h_0, ..., h_{n-1})``,
where ``w_q`` are the initial weights and ``c`` a compatibility factor the game applies inside ``evaluate``
(0 for hands that share a card, a normalising constant otherwise). Payoffs are vectors: any number of players
(2..10), zero-sum or general-sum, as the game's :class:`~pokerlab.games.base.GameType` declares.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from pokerlab.errors import InvalidGameError, UnsupportedGameError, whole_number
from pokerlab.games.base import (
    CHANCE,
    FOLD,
    TERMINAL,
    VECTOR_FORM,
    Action,
    GameType,
    checked_chance_outcomes,
    require_form,
)
from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL


class VectorGame(ABC):
    """A game in vector form: public tree, private hands per player, terminal evaluation per hand.

    Subclasses set ``name`` and ``game_type`` (with :data:`~pokerlab.games.base.VECTOR_FORM` in its forms) and
    implement the methods below. Public states are opaque values, as tree-form states are. A minimal example,
    matching pennies with one private hand each (player 0 wins 1 when the coins match)::

        class Pennies(VectorGame):
            name = "pennies"
            game_type = GameType(players=2, zero_sum=True, forms=(VECTOR_FORM,), chance=False)
            def public_root(self): return ()
            def public_player(self, s): return len(s) if len(s) < 2 else TERMINAL
            def public_actions(self, s): return [0, 1]
            def public_chance(self, s): return []
            def public_apply(self, s, a): return (*s, a)
            def num_private_hands(self, player): return 1
            def initial_weights(self, player): return np.ones(1)
            def evaluate(self, s, player, reaches):
                win = 1.0 if s[0] == s[1] else -1.0
                return np.array([(win if player == 0 else -win) * reaches[1 - player][0]])
    """

    name: str = "vector-game"
    game_type: ClassVar[GameType] = GameType(forms=(VECTOR_FORM,))

    @property
    def num_players(self) -> int:
        return self.game_type.players

    @abstractmethod
    def public_root(self) -> Any:
        """The root public state."""

    @abstractmethod
    def public_player(self, state: Any) -> int:
        """The player to act (0..n-1), :data:`~pokerlab.games.base.CHANCE` or
        :data:`~pokerlab.games.base.TERMINAL`."""

    @abstractmethod
    def public_actions(self, state: Any) -> Sequence[Action]:
        """Actions at a public decision node (the same for every private hand of the acting player)."""

    @abstractmethod
    def public_chance(self, state: Any) -> Sequence[tuple[Any, float]]:
        """(outcome, probability) pairs of a public chance node (e.g. a board card); probabilities sum to 1.
        Hands blocked by a public card are the game's business: ``evaluate`` gives them no value."""

    @abstractmethod
    def public_apply(self, state: Any, action: Any) -> Any:
        """The public state after an action or a chance outcome; must not mutate ``state``."""

    @abstractmethod
    def num_private_hands(self, player: int) -> int:
        """How many private hands ``player`` can hold (e.g. 1,326 hold'em combos)."""

    @abstractmethod
    def initial_weights(self, player: int) -> np.ndarray:
        """Weights ``w_p(h) >= 0`` of ``player``'s hands before any action (float64, ``num_private_hands``)."""

    @abstractmethod
    def evaluate(self, state: Any, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual values of ``player``'s hands at the terminal ``state``, chips (float64, one per hand).

        ``reaches[q]`` (for every ``q != player``; ``reaches[player]`` is ignored) is the probability of each of
        ``q``'s hands to be held and to reach ``state``: its initial weight times ``q``'s strategy along the
        way. The result is ``v[h] = sum over the others' hands h' of c(h, h') * prod_q reaches[q][h'_q] *
        u_player(state, h, h')``, ``c`` the game's compatibility factor (see the module docstring).
        """

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at many terminals at once: the values of ``player``'s hands at the terminal nodes
        ``terminals`` of ``tree`` (this game compiled), shape ``(len(terminals), num_private_hands(player))``.

        ``reaches[i, q, :tree.num_hands[q]]`` is ``q``'s reach vector at ``terminals[i]`` (rows padded to the
        largest hand count). The solvers call this once per pass; the default calls :meth:`evaluate` terminal
        by terminal, and a game with many terminals overrides it with one compiled call (e.g.
        :class:`~pokerlab.games.pushfold.PushFoldGame`). Overrides must return what the default returns.
        """
        hands = tree.num_hands
        out = np.empty((len(terminals), hands[player]))
        for i, node in enumerate(terminals):
            rows = [reaches[i, q, :hands[q]] for q in range(len(hands))]
            out[i] = self.evaluate(tree.states[int(node)], player, rows)
        return out

    def action_label(self, state: Any, action: Action) -> str:
        """Human-readable name of an action (default ``str(action)``)."""
        return str(action)

    def hand_label(self, player: int, hand: int) -> str:
        """Human-readable name of one of ``player``'s private hands (default its index)."""
        return str(hand)

    def public_view(self, state: Any) -> tuple[Any, int]:
        """For a game that is also a tree-form :class:`~pokerlab.games.base.Game`: the public state (as
        :meth:`public_apply` builds it) and the acting player's private hand index of the tree-form decision
        ``state``. This is how an agent plays a vector-form strategy in the tree form; a game without it raises
        :class:`~pokerlab.errors.UnsupportedGameError`."""
        raise UnsupportedGameError(f"{self.name}: no public view of its tree-form states (public_view)")

    def spec(self) -> dict[str, Any]:
        """A JSON-able description of the game (name and class by default)."""
        cls = type(self)
        return {"name": self.name, "class": f"{cls.__module__}.{cls.__qualname__}"}


class CoinPoker(VectorGame):
    """The smallest poker in vector form, the examples' game: each of two players holds a low (0) or high (1)
    card, independently, 1/2 each, after an ante of 1 chip. Player 0 checks (to a showdown) or bets 1; facing
    the bet, player 1 folds or calls. Equal cards split the pot. Actions: 0 check/call, 1 bet,
    :data:`~pokerlab.games.base.FOLD`.

    >>> compile_public_tree(CoinPoker()).num_nodes
    5
    """

    name = "coin-poker"
    game_type = GameType(players=2, zero_sum=True, forms=(VECTOR_FORM,), has_fold=True)

    def public_root(self) -> tuple[int, ...]:
        return ()

    def public_player(self, state: tuple[int, ...]) -> int:
        return 1 if state == (1,) else (0 if not state else TERMINAL)

    def public_actions(self, state: tuple[int, ...]) -> list[int]:
        return [FOLD, 0] if state == (1,) else [0, 1]

    def public_chance(self, state: tuple[int, ...]) -> list[tuple[Any, float]]:
        return []

    def public_apply(self, state: tuple[int, ...], action: Any) -> tuple[int, ...]:
        return (*state, int(action))

    def num_private_hands(self, player: int) -> int:
        return 2

    def initial_weights(self, player: int) -> np.ndarray:
        return np.full(2, 0.5)

    def evaluate(self, state: tuple[int, ...], player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        other = reaches[1 - player]
        if state[-1] == FOLD:  # player 1 folded: it loses its ante whatever the cards
            return (1.0 if player == 0 else -1.0) * np.full(2, other.sum())
        stake = 2.0 if state == (1, 0) else 1.0
        # my card h against theirs o: +stake when h > o, -stake when h < o, 0 on a tie
        return stake * np.array([-other[1], other[0]])

    def action_label(self, state: tuple[int, ...], action: int) -> str:
        return {FOLD: "fold", 0: "call" if state == (1,) else "check", 1: "bet"}[action]


class PublicTree(NamedTuple):
    """The public tree as arrays, the one argument of the vector-form kernels. Nodes are numbered
    breadth-first (children are a contiguous block after their parent). Per node: ``kind``
    (``KIND_TERMINAL``/``KIND_CHANCE``/``KIND_DECISION`` of :mod:`pokerlab.games.compiler`), ``player`` (acting
    player, -1 elsewhere), ``parent``, ``first_child``, ``num_children``, ``chance_prob`` (probability of the
    chance edge into the node, 1 otherwise) and ``action`` (the action or outcome index on the edge in)."""

    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    chance_prob: np.ndarray
    action: np.ndarray


@dataclass(frozen=True, eq=False)
class CompiledPublicTree:
    """A compiled vector-form game: the :class:`PublicTree` arrays, the public state of each node (what
    :meth:`VectorGame.evaluate` receives at terminals), the action labels of decision nodes, and each player's
    number of hands and initial weights (validated once)."""

    game: VectorGame
    tree: PublicTree
    states: tuple[Any, ...]
    labels: tuple[tuple[str, ...], ...]
    num_hands: tuple[int, ...]
    weights: tuple[np.ndarray, ...]

    @property
    def num_nodes(self) -> int:
        return int(self.tree.kind.shape[0])

    @property
    def num_players(self) -> int:
        return len(self.num_hands)

    def decision_nodes(self) -> np.ndarray:
        """Indices of the decision nodes, increasing."""
        return np.flatnonzero(self.tree.kind == KIND_DECISION)

    def history(self, node: int) -> tuple[int, ...]:
        """The actions/outcome indices from the root to ``node``."""
        path = []
        while node > 0:
            path.append(int(self.tree.action[node]))
            node = int(self.tree.parent[node])
        return tuple(reversed(path))


def compile_public_tree(game: VectorGame, max_nodes: int = 5_000_000) -> CompiledPublicTree:
    """Walk the public tree of ``game`` breadth-first into a :class:`CompiledPublicTree`, validating the
    declared game type, chance probabilities, players, hand counts and initial weights
    (:class:`InvalidGameError` / :class:`~pokerlab.errors.UnsupportedGameError` otherwise).

    >>> tree = compile_public_tree(CoinPoker()); tree.num_hands, tree.labels[0]
    ((2, 2), ('check', 'bet'))
    """
    if not isinstance(game, VectorGame):
        raise InvalidGameError(f"not a vector-form game: {game!r}")
    require_form(game.game_type, VECTOR_FORM, game.name)
    n_players = game.game_type.players
    num_hands = []
    weights = []
    for p in range(n_players):
        h = whole_number(game.num_private_hands(p), f"{game.name}: the private hands of player {p}", low=1,
                         error=InvalidGameError)
        w = np.array(game.initial_weights(p), dtype=np.float64)
        if w.shape != (h,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
            raise InvalidGameError(f"{game.name}: initial weights of player {p} must be {h} finite numbers >= 0, "
                                   "not all 0")
        w.setflags(write=False)
        num_hands.append(int(h))
        weights.append(w)
    states: list[Any] = [game.public_root()]
    kind: list[int] = []
    player: list[int] = []
    parent: list[int] = [-1]
    first_child: list[int] = []
    num_children: list[int] = []
    chance_prob: list[float] = [1.0]
    action: list[int] = [-1]
    labels: list[tuple[str, ...]] = []
    queue: deque[int] = deque([0])
    while queue:
        n = queue.popleft()
        state = states[n]
        who = game.public_player(state)
        start = len(states)
        if who == TERMINAL:
            kind.append(KIND_TERMINAL)
            player.append(-1)
            first_child.append(start)
            num_children.append(0)
            labels.append(())
            continue
        if who == CHANCE:
            outcomes = checked_chance_outcomes(game.public_chance(state), game.name, f"public node {n}")
            kind.append(KIND_CHANCE)
            player.append(-1)
            labels.append(tuple(str(o) for o, _ in outcomes))
            children = [(game.public_apply(state, o), float(p), i) for i, (o, p) in enumerate(outcomes)]
        elif isinstance(who, int | np.integer) and 0 <= who < n_players:
            actions = [int(a) for a in game.public_actions(state)]
            if not actions or len(set(actions)) != len(actions):
                raise InvalidGameError(f"{game.name}: public node {n} needs distinct legal actions (got {actions})")
            kind.append(KIND_DECISION)
            player.append(int(who))
            labels.append(tuple(game.action_label(state, a) for a in actions))
            children = [(game.public_apply(state, a), 1.0, a) for a in actions]
        else:
            raise InvalidGameError(f"{game.name}: public_player returned {who!r} for a {n_players}-player game")
        first_child.append(start)
        num_children.append(len(children))
        for child, prob, edge in children:
            queue.append(len(states))
            states.append(child)
            parent.append(n)
            chance_prob.append(prob)
            action.append(edge)
        if len(states) > max_nodes:
            raise InvalidGameError(f"{game.name}: more than {max_nodes} public nodes; too large to compile")
    arrays = PublicTree(kind=np.asarray(kind, dtype=np.int64), player=np.asarray(player, dtype=np.int64),
                        parent=np.asarray(parent, dtype=np.int64), first_child=np.asarray(first_child, dtype=np.int64),
                        num_children=np.asarray(num_children, dtype=np.int64),
                        chance_prob=np.asarray(chance_prob, dtype=np.float64),
                        action=np.asarray(action, dtype=np.int64))
    for column in arrays:
        column.setflags(write=False)
    return CompiledPublicTree(game, arrays, tuple(states), tuple(labels), tuple(num_hands), tuple(weights))
