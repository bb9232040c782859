"""Agents: who picks the action at a decision. Every agent but the human is a *policy*: ``distribution(game,
state)`` gives the probabilities of the legal actions, so matches can be sampled and, where the game is small
enough, evaluated exactly.

Games supported: the limit poker family (:class:`~pokerlab.games.poker.LimitPoker`: Kuhn, Leduc, ...) and the
brief's game (:class:`~pokerlab.games.brief_holdem.BriefHoldem`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.agents.brief_bot import BriefBot, BriefStrategy, fixed_strategy
from pokerlab.agents.brief_tables import brief_tables
from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games.base import Game
from pokerlab.games.brief_holdem import FOLD as BRIEF_FOLD
from pokerlab.games.brief_holdem import BriefHoldem, BriefSpec, BriefState
from pokerlab.games.compiler import CompiledGame
from pokerlab.games.poker import FOLD as LIMIT_FOLD
from pokerlab.games.poker import LimitPoker
from pokerlab.solvers.policy import Policy

FIXED_AGENTS = ("random", "fullbet", "checkcall")


def fold_code(game: Game) -> int:
    """The action code of a fold in ``game`` (0 in the limit family, -1 in the brief's game)."""
    if isinstance(game, BriefHoldem):
        return BRIEF_FOLD
    if isinstance(game, LimitPoker):
        return LIMIT_FOLD
    raise InvalidGameError(f"agents play the limit poker family and the brief game, not {game.name!r}")


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

    # Exact evaluation ------------------------------------------------------------------------------------
    def policy(self, game: CompiledGame) -> Policy:
        """The agent as a :class:`Policy` of a compiled (limit-family) game, for exact EV and exploitability."""
        source = game.source
        probs = np.zeros(game.num_flat_actions)
        for i, state in enumerate(game.infoset_states):
            lo = int(game.info_offset[i])
            actions = source.legal_actions(state)
            dist = dict(self.distribution(source, state))
            for k, a in enumerate(actions):
                probs[lo + k] = dist.get(a, 0.0)
        return Policy(game, probs)

    def brief_strategy(self, spec: BriefSpec) -> BriefStrategy:
        """The agent as a strategy of the brief game at ``spec.stack``, for exact EV and exploitability."""
        raise InvalidArgumentError(f"agent {self.name!r} has no brief-game strategy")


class RandomAgent(Agent):
    """Every legal action equally likely (fold, check/call and each raise count as one action each)."""

    name = "random"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        actions = game.legal_actions(state)
        return [(a, 1.0 / len(actions)) for a in actions]

    def brief_strategy(self, spec: BriefSpec) -> BriefStrategy:
        return fixed_strategy(spec, "uniform")


class FullBetAgent(Agent):
    """Always the biggest bet allowed ("full bet": 4 chips in the brief's game, or all-in when shorter); calls
    when it cannot raise, never folds."""

    name = "fullbet"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        fold = fold_code(game)
        actions = [a for a in game.legal_actions(state) if a != fold]
        return [(max(actions), 1.0)]

    def brief_strategy(self, spec: BriefSpec) -> BriefStrategy:
        return fixed_strategy(spec, "fullbet")


class CheckCallAgent(Agent):
    """Always checks or calls (a "calling station")."""

    name = "checkcall"

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        fold = fold_code(game)
        actions = [a for a in game.legal_actions(state) if a != fold]
        return [(min(actions), 1.0)]

    def brief_strategy(self, spec: BriefSpec) -> BriefStrategy:
        return fixed_strategy(spec, "checkcall")


class PolicyAgent(Agent):
    """A trained strategy of a limit-family game (e.g. the average policy saved by ``pokerlab solve --out``)."""

    def __init__(self, policy: Policy, name: str = "cfr") -> None:
        self.name = name
        self.policy_ = policy
        self._keys = policy.game._key_index()

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        g = self.policy_.game
        index = self._keys.get(game.infoset_key(state))
        if index is None:
            raise InvalidGameError(f"the policy of {g.name!r} has no information set {game.infoset_key(state)!r}")
        lo, hi = int(g.info_offset[index]), int(g.info_offset[index + 1])
        return list(zip(game.legal_actions(state), (float(p) for p in self.policy_.probs[lo:hi]), strict=True))

    def policy(self, game: CompiledGame) -> Policy:
        if game.spec != self.policy_.game.spec:
            raise InvalidArgumentError("the policy belongs to another game")
        return self.policy_


class BriefBotAgent(Agent):
    """A :class:`BriefBot` (one strategy per effective stack) playing the brief's game."""

    def __init__(self, bot: BriefBot, name: str = "cfr") -> None:
        self.name = name
        self.bot = bot

    def distribution(self, game: Game, state: BriefState) -> list[tuple[Any, float]]:
        if not isinstance(game, BriefHoldem):
            raise InvalidGameError("a brief bot plays only the brief game")
        spec = game.brief
        if replace(spec, stack=self.bot.spec.stack) != self.bot.spec:
            raise InvalidGameError("the bot was trained for another deck or bet size")
        strategy = self.bot.strategy(spec.stack)
        tables = brief_tables(spec)
        tree = strategy.tree
        node = tree.node_after(state.history)
        me = state.betting.to_act
        hand = sorted(tables.local(c) for c in state.hands[me])
        h = int(tables.hand_id[hand[0], hand[1]])
        f = -1
        if state.flop:
            a, b, c = sorted(tables.local(x) for x in state.flop)
            f = int(tables.flop_id[a, b, c])
        probs = strategy.probabilities(node, h, f)
        return [(int(tree.action[child]), float(p)) for child, p in zip(tree.children(node), probs, strict=True)]

    def brief_strategy(self, spec: BriefSpec) -> BriefStrategy:
        return self.bot.strategy(spec.stack)


def make_agent(name: str, game: Game, trained: Agent | None = None) -> Agent:
    """An agent by name: ``random``, ``fullbet``, ``checkcall``, ``cfr`` (``trained`` must be given) or a file:
    a solver state (``pokerlab solve --out``, limit games) or a brief bot (``pokerlab brief train``). Payoffs of
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
    """A trained agent from a file, checked against ``game``: a brief bot for the brief's game, else a solver state
    of the same game (its average policy). The agent is named after the file's stem. Raises
    :class:`FileFormatError` for unreadable files and :class:`InvalidArgumentError` for another game's.
    Example: ``load_agent(Path("kuhn.npz"), kuhn())`` after ``pokerlab solve kuhn --out kuhn.npz``."""
    if isinstance(game, BriefHoldem):
        bot = BriefBot.load(path)
        if bot.spec != game.brief:
            raise InvalidArgumentError(f"{path}: trained for {bot.spec}, not {game.brief}")
        return BriefBotAgent(bot, name=path.stem)
    from pokerlab.solvers.core import Solver

    solver = Solver.load(path)
    if solver.game.spec != game.spec():
        raise InvalidArgumentError(f"{path}: a strategy of {solver.game.name!r}, not {game.name!r}")
    return PolicyAgent(solver.average_policy(), name=path.stem)


def pick(dist: Sequence[tuple[Any, float]]) -> Any:
    """The most likely action of a distribution (ties: the first)."""
    return max(dist, key=lambda ap: ap[1])[0]
