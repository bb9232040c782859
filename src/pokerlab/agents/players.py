"""Agents: who picks the action at a decision. Every agent but the human is a *policy*: ``distribution(game,
state)`` gives the probabilities of the legal actions, so matches can be sampled, and ``strategy(game)`` gives the
agent as a solver strategy (:mod:`pokerlab.solvers.strategy`) for exact evaluation. Agents only play: they see
games through the protocol (:mod:`pokerlab.games.base`) and strategies through :mod:`pokerlab.solvers.strategy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.base import FOLD, Game
from pokerlab.solvers.strategy import Strategy, load_strategy, strategy_from_distribution

FIXED_AGENTS = ("random", "fullbet", "checkcall")


class Agent:
    """Base class. ``name`` labels the agent in tables; ``act`` picks an action at a decision."""

    name = "agent"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        """``(action, probability)`` over the legal actions of ``state`` (policies only)."""
        raise NotImplementedError

    def act(self, game: Game, state: Any, rng: np.random.Generator) -> Any:
        """The action taken at ``state`` (sampled from :meth:`distribution`)."""
        dist = self.distribution(game, state)
        probs = np.asarray([p for _, p in dist], dtype=np.float64)
        pick = int(rng.choice(len(dist), p=probs / probs.sum()))
        return dist[pick][0]

    def observe_end(self, game: Game, state: Any, payoff: float, seat: int) -> None:
        """Called at the end of each hand with the agent's payoff (chips) and seat; bots ignore it."""

    def strategy(self, game: Game) -> Strategy:
        """The agent as a solver strategy of ``game``, for exact EV and exploitability (by default read from
        :meth:`distribution`; trained agents return the strategy they play)."""
        return strategy_from_distribution(game, self.distribution, self.name)


class RandomAgent(Agent):
    """Every legal action equally likely (fold, check/call and each raise count as one action each)."""

    name = "random"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        actions = game.legal_actions(state)
        return [(a, 1.0 / len(actions)) for a in actions]


class FullBetAgent(Agent):
    """Always the biggest bet allowed ("full bet": 4 chips in the two-round game, or all-in when shorter); calls
    when it cannot raise, never folds."""

    name = "fullbet"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        actions = [a for a in game.legal_actions(state) if a != FOLD]
        return [(max(actions), 1.0)]


class CheckCallAgent(Agent):
    """Always checks or calls (a "calling station")."""

    name = "checkcall"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        actions = [a for a in game.legal_actions(state) if a != FOLD]
        return [(min(actions), 1.0)]


class StrategyAgent(Agent):
    """Plays a trained strategy of any solver (a tree-form policy saved by ``pokerlab solve --out``, a two-round
    bot saved by ``pokerlab two-round train``, ...)."""

    def __init__(self, strategy: Strategy, name: str = "cfr") -> None:
        self.name = name
        self.trained = strategy

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        return self.trained.distribution(game, state)

    def strategy(self, game: Game) -> Strategy:
        return self.trained


def make_agent(name: str, game: Game, trained: Agent | None = None) -> Agent:
    """An agent by name: ``random``, ``fullbet``, ``checkcall``, ``cfr`` (``trained`` must be given) or a file:
    a solver state (``pokerlab solve --out``, limit games) or a two-round bot (``pokerlab two-round train``). Payoffs of
    every agent are in chips.

    >>> from pokerlab.games import kuhn
    >>> make_agent("fullbet", kuhn()).name
    'fullbet'
    """
    key = name.strip().lower()
    if key == "random":
        return RandomAgent()
    if key == "fullbet":
        return FullBetAgent()
    if key == "checkcall":
        return CheckCallAgent()
    if key == "cfr":
        if trained is None:
            raise InvalidArgumentError("no trained strategy available for 'cfr'")
        return trained
    path = Path(name)
    if not path.exists():
        raise InvalidArgumentError(f"unknown agent {name!r}: expected random, fullbet, checkcall, cfr or a strategy "
                                   "file")
    return load_agent(path, game)


def load_agent(path: Path, game: Game) -> Agent:
    """A trained agent from a file, checked against ``game`` (see :func:`pokerlab.solvers.strategy.load_strategy`);
    named after the file's stem. Raises :class:`FileFormatError` for unreadable files and
    :class:`InvalidArgumentError` for another game's. Example: ``load_agent(Path("kuhn.npz"), kuhn())`` after
    ``pokerlab solve kuhn --out kuhn.npz``."""
    return StrategyAgent(load_strategy(path, game), name=path.stem)


def pick(dist: Sequence[tuple[Any, float]]) -> Any:
    """The most likely action of a distribution (ties: the first)."""
    return max(dist, key=lambda ap: ap[1])[0]
