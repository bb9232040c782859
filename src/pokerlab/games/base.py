"""The one game protocol: what every game of pokerlab declares and implements.

Every game is an extensive-form game with ``n`` players (2..10), chance and imperfect information, and a payoff
*vector* (one entry per player, chips; general-sum allowed). A game declares what it supports in a
:class:`GameType` (as OpenSpiel's ``GameType``): its players, whether it is zero-sum, and its forms:

- **tree form** (:class:`Game`): states walked one at a time (``initial_state``, ``current_player``,
  ``chance_outcomes``, ``legal_actions``, ``apply``, ``returns``, ``infoset_key``). The compiler
  (:func:`pokerlab.games.compile_game`) flattens it once into arrays for the tree-form solvers, which need a
  two-player zero-sum game.
- **vector form** (:class:`pokerlab.games.vector.VectorGame`): a public tree whose players hold private hands,
  with one value per private hand (as postflop-solver's ``Game`` trait). The vector-form solvers work for any
  number of players and general-sum payoffs.

Actions are integers (:data:`Action`); a fold, in every game that has one, is :data:`FOLD` (-1).
States are opaque (any value); the game alone interprets them.

Conventions: player 0 acts first (it is "player 1" in the poker literature).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerlab.errors import InvalidGameError, UnsupportedGameError

CHANCE = -1
TERMINAL = -2

Action = int
"""An action of a player: an integer, the meaning of which each game documents (chips, an index, ...)."""
FOLD: Action = -1
"""The fold action, the same code in every game that has one."""

TREE_FORM = "tree"
VECTOR_FORM = "vector"
MIN_PLAYERS = 2
MAX_PLAYERS = 10


@dataclass(frozen=True)
class GameType:
    """What a game supports, declared once per game class (as OpenSpiel's ``GameType``).

    ``players``: number of players (2..10). ``zero_sum``: the payoff vector sums to 0 at every terminal.
    ``forms``: :data:`TREE_FORM` and/or :data:`VECTOR_FORM` (which solvers can take the game).
    ``has_fold``: some action is :data:`FOLD`. ``chance``: there are chance events.

    >>> GameType(players=3, zero_sum=False, forms=(VECTOR_FORM,)).two_player_zero_sum
    False
    """

    players: int = 2
    zero_sum: bool = True
    forms: tuple[str, ...] = (TREE_FORM,)
    has_fold: bool = False
    chance: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidGameError(f"a game has {MIN_PLAYERS}..{MAX_PLAYERS} players, not {self.players!r}")
        if not self.forms or any(f not in (TREE_FORM, VECTOR_FORM) for f in self.forms):
            raise InvalidGameError(f"game forms must be among {TREE_FORM!r}, {VECTOR_FORM!r}; got {self.forms!r}")

    @property
    def two_player_zero_sum(self) -> bool:
        return self.players == 2 and self.zero_sum


def require_two_player_zero_sum(game_type: GameType, name: str, what: str) -> None:
    """Raise :class:`UnsupportedGameError` unless the game is two-player zero-sum (``what``: the refusing
    algorithm, for the message).

    >>> require_two_player_zero_sum(GameType(), "kuhn", "CFR")
    """
    if not game_type.two_player_zero_sum:
        kind = f"{game_type.players} players" + ("" if game_type.zero_sum else ", general-sum")
        raise UnsupportedGameError(f"{what} needs a two-player zero-sum game; {name!r} has {kind} (use the "
                                   "vector-form solvers of pokerlab.solvers.vector, which take n players and "
                                   "general-sum payoffs)")


def checked_chance_outcomes(outcomes: Sequence[tuple[Any, float]], game_name: str,
                            where: str) -> list[tuple[Any, float]]:
    """A chance node's ``(outcome, probability)`` pairs as a list, or :class:`InvalidGameError` naming the game
    and ``where`` (e.g. ``"node 3"``) unless there is at least one, each positive and together summing to 1.

    >>> checked_chance_outcomes(((0, 0.5), (1, 0.5)), "coin", "node 0")
    [(0, 0.5), (1, 0.5)]
    """
    import math

    listed = list(outcomes)
    total = math.fsum(p for _, p in listed)
    if not listed or abs(total - 1.0) > 1e-9 or any(p <= 0 for _, p in listed):
        raise InvalidGameError(f"{game_name}: chance probabilities at {where} must be positive and sum to 1 "
                               f"(got {total!r})")
    return listed


def require_form(game_type: GameType, form: str, name: str) -> None:
    """Raise :class:`UnsupportedGameError` unless the game declares ``form``.

    >>> require_form(GameType(), TREE_FORM, "kuhn")
    """
    if form not in game_type.forms:
        raise UnsupportedGameError(f"{name!r} is not a {form}-form game (it declares {', '.join(game_type.forms)})")


class Game(ABC):
    """A finite game in tree form: n players, chance, imperfect information, a payoff vector.

    Subclasses implement ``initial_state``, ``current_player``, ``chance_outcomes``, ``legal_actions``,
    ``apply``, ``infoset_key`` and either ``returns`` (the payoff vector, any game) or ``utility`` (player 0's
    payoff of a two-player zero-sum game, from which ``returns`` follows). Example (a coin flip the first
    player guesses)::

        class Guess(Game):
            name = "guess"
            def initial_state(self): return ()
            def current_player(self, s): return CHANCE if not s else (0 if len(s) == 1 else TERMINAL)
            def chance_outcomes(self, s): return [("H", 0.5), ("T", 0.5)]
            def legal_actions(self, s): return ["H", "T"]
            def apply(self, s, a): return s + (a,)
            def utility(self, s): return 1.0 if s[0] == s[1] else -1.0
            def infoset_key(self, s): return ""
    """

    name: str = "game"
    game_type: ClassVar[GameType] = GameType()
    strategy_format: ClassVar[str] = "pokerlab-policy"
    """The file format of the strategy kind (:mod:`pokerlab.solvers.strategy`) that any player of this game is
    read into to be valued exactly: a policy of the compiled tree, unless the game is too large to compile."""

    @property
    def num_players(self) -> int:
        return self.game_type.players

    @abstractmethod
    def initial_state(self) -> Any:
        """The root state."""

    @abstractmethod
    def current_player(self, state: Any) -> int:
        """0..n-1 for a decision, :data:`CHANCE` (-1) for a chance node, :data:`TERMINAL` (-2) at the end."""

    @abstractmethod
    def chance_outcomes(self, state: Any) -> Sequence[tuple[Any, float]]:
        """(outcome, probability) pairs at a chance node; probabilities sum to 1."""

    @abstractmethod
    def legal_actions(self, state: Any) -> Sequence[Any]:
        """Actions at a decision node, in an order that is the same for every state of an information set."""

    @abstractmethod
    def apply(self, state: Any, action: Any) -> Any:
        """The state after ``action`` (a chance outcome or a legal action); must not mutate ``state``."""

    def returns(self, state: Any) -> tuple[float, ...]:
        """Payoff vector at a terminal state, chips, one entry per player. The default derives it from
        :meth:`utility` as ``(u, -u)`` (two-player zero-sum games)."""
        if type(self).utility is Game.utility:
            raise InvalidGameError(f"{self.name}: a game implements returns() or utility()")
        u = float(self.utility(state))
        return (u, -u)

    def utility(self, state: Any) -> float:
        """Payoff of player 0 at a terminal state, chips (player 1 gets the negation in a two-player zero-sum
        game). The default reads :meth:`returns`."""
        if type(self).returns is Game.returns:
            raise InvalidGameError(f"{self.name}: a game implements returns() or utility()")
        return float(self.returns(state)[0])

    @abstractmethod
    def infoset_key(self, state: Any) -> str:
        """Information-set key of the player to act: equal exactly when that player cannot tell states apart."""

    def action_label(self, state: Any, action: Any) -> str:
        """Human-readable name of an action (default ``str(action)``)."""
        return str(action)

    # -- playing (matches, the terminal): defaults any game can keep; card games describe themselves ----------
    def sample_chance(self, state: Any, rng: np.random.Generator) -> Any:
        """One chance outcome at ``state``, drawn with the game's probabilities from ``rng`` (games with huge
        chance nodes draw without listing every outcome)."""
        outcomes = self.chance_outcomes(state)
        probs = np.asarray([p for _, p in outcomes])
        return outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]

    def for_stacks(self, chips: Sequence[float]) -> Game:
        """The game one hand is played with when the players hold ``chips`` (a stack-until-bust match); by
        default the game itself (the match caps a hand's loss at the loser's chips)."""
        return self

    def describe_state(self, state: Any, seat: int) -> str:
        """What the player in ``seat`` sees at ``state``, for a person at the terminal."""
        return f"You see: {self.infoset_key(state)}"

    def action_key(self, state: Any, action: Action) -> str:
        """The key a person types for ``action`` (default: its position among the legal actions, from 1)."""
        return str(list(self.legal_actions(state)).index(action) + 1)

    def parse_action(self, state: Any, text: str) -> Action | None:
        """A legal action for typed ``text`` other than the action keys (synonyms), or None."""
        return None

    def play_help(self) -> str:
        """How to type moves at the terminal."""
        return "Type the key of an action; q quits."

    def end_summary(self, state: Any, payoff: float, seat: int) -> str:
        """The end of a hand from ``seat``'s side, for a person at the terminal."""
        if not payoff:
            return "A draw."
        return f"You {'won' if payoff > 0 else 'lost'} {abs(payoff):g} chips."

    def spec(self) -> dict[str, Any]:
        """A JSON-able description of the game. Built-in games add a ``"family"`` from which
        :func:`pokerlab.games.game_from_spec` rebuilds them; this default (name and class) identifies a custom
        game for people but cannot rebuild it, so such games are neither cached by spec nor saved to files."""
        cls = type(self)
        return {"name": self.name, "class": f"{cls.__module__}.{cls.__qualname__}"}
