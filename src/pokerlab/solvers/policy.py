"""Policies (probabilities per infoset and action) of compiled trees, the strategy kind of the tree-form
solvers: exact best responses, exploitability and values, playing, and the file form ``pokerlab-policy``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import pokerlab.solvers.kernels as kernels
from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games.base import Game
from pokerlab.games.compiler import CompiledGame
from pokerlab.games.registry import compiled
from pokerlab.solvers.strategy import Distribution, Strategy, float_array, same_spec, save_strategy, strategy_kind

MBB_PER_CHIP = 1000.0  # milli-big-blinds per chip, taking the ante (1 chip) as the big blind


@strategy_kind
@dataclass(frozen=True, eq=False)
class Policy:
    """A behaviour strategy for both players: ``probs[info_offset[i] + a]`` is the probability of action ``a``
    at infoset ``i`` (each infoset sums to 1). A :class:`~pokerlab.solvers.strategy.Strategy`: any agent's play
    of a game that compiles is read into one (:meth:`from_distribution`) to be valued exactly.

    >>> from pokerlab.games import compiled
    >>> Policy.uniform(compiled("kuhn")).action_probabilities("K||")
    {'check': 0.5, 'bet 1': 0.5}
    """

    format: ClassVar[str] = "pokerlab-policy"

    game: CompiledGame
    probs: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        probs = np.ascontiguousarray(self.probs, dtype=np.float64)
        if probs.shape != (self.game.num_flat_actions,):
            raise InvalidArgumentError(f"policy has {probs.shape} entries, the game has {self.game.num_flat_actions}")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0):
            raise InvalidArgumentError("policy probabilities must be finite and non-negative")
        sums = np.add.reduceat(probs, self.game.info_offset[:-1]) if probs.size else probs
        if probs.size and np.max(np.abs(sums - 1.0)) > 1e-9:
            raise InvalidArgumentError("policy probabilities must sum to 1 at every information set")
        object.__setattr__(self, "probs", probs)

    @classmethod
    def uniform(cls, game: CompiledGame) -> Policy:
        """Every legal action equally likely."""
        counts = np.diff(game.info_offset)
        return cls(game, np.repeat(1.0 / counts, counts))

    @classmethod
    def from_dict(cls, game: CompiledGame, table: dict[str, dict[str, float]], default: str = "uniform") -> Policy:
        """Build from ``{infoset_key: {action_label: probability}}``; missing infosets are uniform."""
        probs = cls.uniform(game).probs.copy()
        for key, row in table.items():
            i = game.infoset_index(key)
            labels = game.action_labels[i]
            lo = int(game.info_offset[i])
            for label, p in row.items():
                if label not in labels:
                    raise InvalidArgumentError(f"action {label!r} is not legal at {key!r} (legal: {labels})")
                probs[lo + labels.index(label)] = float(p)
        return cls(game, probs)

    def action_probabilities(self, infoset_key: str) -> dict[str, float]:
        """``{action_label: probability}`` at one infoset."""
        i = self.game.infoset_index(infoset_key)
        lo, hi = int(self.game.info_offset[i]), int(self.game.info_offset[i + 1])
        return dict(zip(self.game.action_labels[i], (float(x) for x in self.probs[lo:hi]), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{infoset_key: {action_label: probability}}`` for every infoset."""
        return {key: self.action_probabilities(key) for key in self.game.infoset_keys}

    @classmethod
    def from_distribution(cls, game: Game, distribution: Distribution, name: str = "agent") -> Policy:
        """The policy of ``game``'s compiled tree that plays ``distribution`` at every information set (an action
        it leaves out gets 0); ``name`` names the agent in errors."""
        tree = compiled(game)
        source = tree.source
        assert source is not None  # compiled() keeps the game it compiled
        probs = np.zeros(tree.num_flat_actions)
        for i, state in enumerate(tree.infoset_states):
            lo = int(tree.info_offset[i])
            dist = dict(distribution(source, state))
            for k, a in enumerate(source.legal_actions(state)):
                probs[lo + k] = dist.get(a, 0.0)
        return cls(tree, probs)

    # -- the Strategy protocol ----------------------------------------------------------------------------------
    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        """``(action, probability)`` over the legal actions of ``state``, read at its information set."""
        g = self.game
        key = game.infoset_key(state)
        index = g._key_index().get(key)
        if index is None:
            raise InvalidGameError(f"the policy of {g.name!r} has no information set {key!r}")
        lo, hi = int(g.info_offset[index]), int(g.info_offset[index + 1])
        return list(zip(game.legal_actions(state), (float(p) for p in self.probs[lo:hi]), strict=True))

    def value_against(self, game: Game, other: Strategy) -> float:
        """Exact chips per hand against ``other`` over both seats; another kind is read into a policy first."""
        them = other if isinstance(other, Policy) else Policy.from_distribution(game, other.distribution, "other")
        return 0.5 * (expected_value(self.game, self, them) - expected_value(self.game, them, self))

    def exploitability(self, game: Game) -> float:
        """Exact exploitability (chips per hand) in the policy's own compiled tree."""
        return exploitability(self.game, self).exploitability

    def to_archive(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"game_spec": self.game.spec}, {"probs": self.probs}

    @classmethod
    def from_archive(cls, path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray], game: Game) -> Policy:
        tree = compiled(game)
        if not same_spec(meta["game_spec"], tree.spec):
            raise InvalidArgumentError(f"{path}: a strategy of {meta.get('game_spec')!r}, not {game.name!r}")
        return cls(tree, float_array(arrays["probs"]))

    def save(self, path: str | Path) -> Path:
        """Write the policy to ``path`` (see :func:`pokerlab.solvers.strategy.save_strategy`)."""
        return save_strategy(self, path)


def _check(policy: Policy, game: CompiledGame) -> None:
    if policy.game is not game and policy.game.spec != game.spec:
        raise InvalidArgumentError("policy belongs to another game")


def expected_value(game: CompiledGame, policy0: Policy, policy1: Policy | None = None) -> float:
    """Exact expected payoff of player 0 (chips per game) when player 0 follows ``policy0`` and player 1
    ``policy1`` (default: ``policy0`` for both). Computed on the whole tree, no sampling.

    >>> from pokerlab.games import compiled
    >>> g = compiled("kuhn"); round(expected_value(g, Policy.uniform(g)), 12)
    0.125
    """
    policy1 = policy0 if policy1 is None else policy1
    _check(policy0, game)
    _check(policy1, game)
    return float(kernels.expected_value(game.arrays(), policy0.probs, policy1.probs))


@dataclass(frozen=True)
class BestResponse:
    """A pure best response of ``player`` to a policy: its value (chips per game) and chosen action per infoset."""

    player: int
    value: float
    actions: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "value": self.value, "actions": dict(self.actions)}


def best_response(game: CompiledGame, policy: Policy, player: int) -> BestResponse:
    """Exact best response of ``player`` (0 or 1) against the other player's part of ``policy``.

    The value is the best responder's expected payoff in chips per game; ``actions`` maps each of its
    information-set keys to the action label it picks.

    >>> from pokerlab.games import compiled
    >>> kuhn = compiled("kuhn"); round(best_response(kuhn, Policy.uniform(kuhn), 0).value, 4)
    0.5
    """
    if player not in (0, 1):
        raise InvalidArgumentError(f"player must be 0 or 1, got {player!r}")
    _check(policy, game)
    chosen = np.zeros(game.num_infosets, dtype=np.int64)
    value = kernels.best_response(game.arrays(), policy.probs, player, chosen)
    actions = {game.infoset_keys[i]: game.action_labels[i][chosen[i]]
               for i in range(game.num_infosets) if game.info_player[i] == player}
    return BestResponse(player, float(value), actions)


def best_response_values(game: CompiledGame, probs: np.ndarray) -> tuple[float, float]:
    """Best-response values of players 0 and 1 against ``probs`` (raw flat array; no validation)."""
    chosen = np.zeros(game.num_infosets, dtype=np.int64)
    out = []
    for p in (0, 1):
        out.append(float(kernels.best_response(game.arrays(), probs, p, chosen)))
    return out[0], out[1]


@dataclass(frozen=True)
class Exploitability:
    """How much a policy loses to best responses, in chips per game.

    ``nash_conv`` = sum of both players' best-response gains = BR value of player 0 + BR value of player 1
    (zero-sum); ``exploitability`` = ``nash_conv / 2``; ``mbb_per_game`` = ``exploitability`` * 1000 (one chip
    taken as one big blind).
    """

    nash_conv: float
    exploitability: float
    mbb_per_game: float
    best_response_values: tuple[float, float]
    game_value: float

    def to_dict(self) -> dict[str, Any]:
        return {"nash_conv": self.nash_conv, "exploitability": self.exploitability,
                "mbb_per_game": self.mbb_per_game, "best_response_values": list(self.best_response_values),
                "game_value": self.game_value}


def exploitability(game: CompiledGame, policy: Policy) -> Exploitability:
    """Exact exploitability of ``policy`` (chips per game and mbb per game).

    >>> from pokerlab.games import compiled
    >>> g = compiled("kuhn"); round(exploitability(g, Policy.uniform(g)).nash_conv, 6)
    0.916667
    """
    _check(policy, game)
    br0, br1 = best_response_values(game, policy.probs)
    nash_conv = br0 + br1
    if -1e-12 < nash_conv < 0.0:  # rounding only: a best response never does worse than the policy itself
        nash_conv = 0.0
    return Exploitability(nash_conv, nash_conv / 2, nash_conv / 2 * MBB_PER_CHIP, (br0, br1),
                          expected_value(game, policy))
