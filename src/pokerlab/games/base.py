"""The ``Game`` protocol: a two-player zero-sum extensive-form game described in plain Python.

A game is walked once by :func:`pokerlab.games.compile_game` into flat arrays; solvers never call these
methods in their hot loops. States are opaque to the compiler (any hashable or not value); the game alone
interprets them, so a game may use tuples, small dataclasses or anything else.

Conventions: players are 0 and 1 (player 0 is "player 1" in the poker literature and acts first);
utilities are in chips for player 0 and player 1 receives the negation (zero-sum).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

CHANCE = -1
TERMINAL = -2


class Game(ABC):
    """A finite two-player zero-sum game with chance and imperfect information.

    Subclasses implement the seven methods below. Example (a coin flip the first player guesses)::

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

    @abstractmethod
    def initial_state(self) -> Any:
        """The root state."""

    @abstractmethod
    def current_player(self, state: Any) -> int:
        """0 or 1 for a decision, :data:`CHANCE` (-1) for a chance node, :data:`TERMINAL` (-2) at the end."""

    @abstractmethod
    def chance_outcomes(self, state: Any) -> Sequence[tuple[Any, float]]:
        """(outcome, probability) pairs at a chance node; probabilities sum to 1."""

    @abstractmethod
    def legal_actions(self, state: Any) -> Sequence[Any]:
        """Actions at a decision node, in an order that is the same for every state of an information set."""

    @abstractmethod
    def apply(self, state: Any, action: Any) -> Any:
        """The state after ``action`` (a chance outcome or a legal action); must not mutate ``state``."""

    @abstractmethod
    def utility(self, state: Any) -> float:
        """Payoff of player 0 at a terminal state, in chips (player 1 gets the negation)."""

    @abstractmethod
    def infoset_key(self, state: Any) -> str:
        """Information-set key of the player to act: equal exactly when that player cannot tell states apart."""

    def action_label(self, state: Any, action: Any) -> str:
        """Human-readable name of an action (default ``str(action)``)."""
        return str(action)

    def spec(self) -> dict[str, Any]:
        """A JSON-able description of the game. Built-in games add a ``"family"`` from which
        :func:`pokerlab.games.game_from_spec` rebuilds them; this default (name and class) identifies a custom
        game for people but cannot rebuild it, so such games are neither cached by spec nor saved to files."""
        cls = type(self)
        return {"name": self.name, "class": f"{cls.__module__}.{cls.__qualname__}"}
