"""The result of a push/fold solve (:func:`pokerlab.pushfold.pushfold`), whichever route solved it: the charts,
EVs, gains and values, and the solved game with its strategy (built on first use where the route did not need
them). Plain numpy: reading a result loads no compiled kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from pokerlab.cards.classes import CLASS_NAMES, CLASS_SIZES
from pokerlab.pushfold.request import TableRequest

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.games.pushfold import PushFoldGame
    from pokerlab.games.pushfold.game import Bounties
    from pokerlab.games.vector import CompiledPublicTree
    from pokerlab.pushfold.real_game import RealGameCheck
    from pokerlab.solvers.vector_strategy import VectorStrategy

JAM = 1
"""The jam (or call) action of the push/fold game (:data:`pokerlab.games.pushfold.JAM`)."""
Parts = tuple["PushFoldGame", "CompiledPublicTree", "VectorStrategy"]


class Decision(NamedTuple):
    """One decision node of a solved table: the seats' actions before it (``path``: ``(seat, action)`` pairs,
    :data:`JAM` or a fold), the acting seat, its action's name (``jam`` or ``call``) and the per-class
    probability of taking it."""

    path: tuple[tuple[int, int], ...]
    seat: int
    action: str
    probabilities: np.ndarray


class Solved:
    """The solved game, its compiled public tree and the strategy returned: given (:meth:`given`), or built by
    ``build`` on first use (a heads-up solve in plain numpy needs none of them, and building them loads the
    compiled kernels)."""

    def __init__(self, build: Callable[[], Parts]) -> None:
        self._build = build
        self._parts: Parts | None = None

    @classmethod
    def given(cls, game: PushFoldGame, tree: CompiledPublicTree, strategy: VectorStrategy) -> Solved:
        solved = cls(lambda: (game, tree, strategy))
        solved._parts = (game, tree, strategy)
        return solved

    def parts(self) -> Parts:
        """``(game, tree, strategy)``, built now if they were not yet."""
        if self._parts is None:
            self._parts = self._build()
        return self._parts


@dataclass(frozen=True)
class PushFoldResult:
    """A solved push/fold table (``table``: its stacks, blinds and antes in chips).

    ``jam[seat]``: probability of jamming first in (everyone before folded) per class (169, grid order,
    :data:`~pokerlab.cards.classes.CLASS_NAMES`), ``NaN`` for a seat without that decision.
    ``call[(caller, jammer)]``: probability of calling a lone jam of seat ``jammer`` (everyone else before the
    caller folded). ``ev_jam``/``ev_fold[seat]``: expected payoff (``gain_unit``) of jamming / folding first in,
    per class, given that the spot is
    reached. ``gains``: each seat's exact best-response gain against the others' strategies in the solver's
    game; ``max_gain`` the largest. ``values``: each seat's expected payoff (``gain_unit``) under the profile,
    ``value_errors`` their standard errors: heads-up exact (the solver's game is the real one), with 3+ seats
    measured on joint deals of the whole table (``real_game``, :mod:`~pokerlab.pushfold.real_game`:
    joint card removal among all seats, they sum to the pool on every deal) when the check ran, else the
    solver's model values (card removal against each seat's own hand only; they need not sum to the pool).
    ``real_game``: with 3+ seats, the values and the best-response gains measured in the real game, with their
    standard errors; ``over_target`` the seats whose real-game gain is above the target. ``strategy``: the
    full strategy (every public node, multiway calls included), with ``game`` and its compiled ``tree``
    (:class:`Solved`: a heads-up solve in plain numpy builds them on first use); ``decisions``: every decision
    node's jam or call probabilities. ``notes``: what a
    time limit or Ctrl-C left out (the redeal, the sampling check), in words.
    """

    seats: tuple[str, ...]
    stacks: tuple[float, ...]
    big_blind: float
    table: TableRequest
    model: str
    gain_unit: str
    jam: np.ndarray
    call: dict[tuple[int, int], np.ndarray]
    ev_jam: np.ndarray
    ev_fold: np.ndarray
    gains: tuple[float, ...]
    iterations: int
    elapsed_s: float
    stop_reason: str
    multiway_samples: int
    multiway_error: float
    multiway_check_gains: tuple[float, ...] | None
    solved: Solved = field(repr=False)
    decisions: tuple[Decision, ...] = field(repr=False)
    notes: tuple[str, ...] = ()
    values: tuple[float, ...] = ()
    value_errors: tuple[float, ...] = ()
    real_game: RealGameCheck | None = None
    target: float = 0.0
    over_target: tuple[int, ...] = ()
    bounties: Bounties | None = None
    fgs_depth: int = 0
    fgs_pruned: float = 0.0

    @property
    def max_gain(self) -> float:
        return float(max(self.gains))

    @property
    def multiway_check_gain(self) -> float | None:
        """The largest best-response gain of the strategy in the game valued on independent deals (None when
        no 3+ way all-in can happen, or the check was not asked for)."""
        return None if self.multiway_check_gains is None else float(max(self.multiway_check_gains))

    @property
    def game(self) -> PushFoldGame:
        return self.solved.parts()[0]

    @property
    def tree(self) -> CompiledPublicTree:
        return self.solved.parts()[1]

    @property
    def strategy(self) -> VectorStrategy:
        return self.solved.parts()[2]

    @property
    def class_sizes(self) -> np.ndarray:
        return CLASS_SIZES.astype(np.float64)

    def percent(self, probabilities: np.ndarray) -> float:
        """Share of the 1,326 combos (percent) played with these per-class probabilities."""
        return float(100.0 * probabilities @ self.class_sizes / 1326.0)

    def jam_grid(self, seat: int) -> np.ndarray:
        """13 x 13 jam-first-in probabilities of a seat (rows/columns A..2; suited above the diagonal)."""
        grid: np.ndarray = self.jam[seat].reshape(13, 13)
        return grid

    def call_grid(self, caller: int, jammer: int) -> np.ndarray:
        """13 x 13 probabilities of ``caller`` calling a lone jam of ``jammer``."""
        return self.call[(caller, jammer)].reshape(13, 13)

    def node_strategies(self) -> list[dict[str, Any]]:
        """Every decision node: its history (``"UTG jam, HJ fold"``), acting seat and per-class probability of
        jamming or calling."""
        return [{"history": ", ".join(f"{self.seats[s]} {'jam' if a == JAM else 'fold'}" for s, a in d.path),
                 "seat": self.seats[d.seat], "action": d.action, "strategy": _by_class(d.probabilities),
                 "pct": self.percent(d.probabilities)} for d in self.decisions]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``pokerlab pushfold --json`` (schema in docs/algorithms.md)."""
        seats = []
        for i, name in enumerate(self.seats):
            has_jam = not np.isnan(self.jam[i, 0])
            calls = {self.seats[j]: _by_class(p) for (c, j), p in sorted(self.call.items()) if c == i}
            seats.append({
                "seat": name,
                "stack": self.stacks[i],
                "stack_bb": self.stacks[i] / self.big_blind,
                "jam": _by_class(self.jam[i]) if has_jam else {},
                "jam_pct": self.percent(self.jam[i]) if has_jam else 0.0,
                "call": calls,
                "call_pct": {self.seats[j]: self.percent(p) for (c, j), p in sorted(self.call.items()) if c == i},
                "ev_jam": _by_class(self.ev_jam[i]) if has_jam else {},
                "ev_fold": _by_class(self.ev_fold[i]) if has_jam else {},
                "gain": self.gains[i],
                "value": self.values[i] if self.values else None,
                "value_stderr": self.value_errors[i] if self.value_errors else None,
                "real_game_gain": None if self.real_game is None else self.real_game.gains[i],
                "real_game_gain_stderr": None if self.real_game is None else self.real_game.gain_errors[i],
                "real_game_gain_in_sample": None if self.real_game is None else self.real_game.upper_gains[i],
            })
        real = self.real_game
        return {
            "seats": seats,
            "model": self.model,
            "max_gain": self.max_gain,
            "gain_unit": self.gain_unit,
            "iterations": self.iterations,
            "elapsed_s": self.elapsed_s,
            "stop_reason": self.stop_reason,
            "multiway_samples": self.multiway_samples,
            "multiway_stderr": self.multiway_error,
            "multiway_check_gain": self.multiway_check_gain,
            "multiway_check_gains": None if self.multiway_check_gains is None else list(self.multiway_check_gains),
            "target": self.target,
            "value_sum": float(sum(self.values)) if self.values else None,
            "real_game": None if real is None else {
                "deals": real.deals, "seed": real.seed, "pool": None if np.isnan(real.pool) else real.pool,
                "max_gain": real.max_gain, "over_target": [self.seats[i] for i in self.over_target]},
            "notes": list(self.notes),
            "bounty": None if self.bounties is None else {
                "heads": list(self.bounties.heads), "share": self.bounties.share,
                "format": "knockout" if self.bounties.share == 1.0 else "pko"},
            "fgs_depth": self.fgs_depth,
            "fgs_pruned_mass": self.fgs_pruned,
            "strategies": self.node_strategies(),
        }


def _by_class(probabilities: np.ndarray) -> dict[str, float]:
    return {name: round(float(p), 6) for name, p in zip(CLASS_NAMES, probabilities, strict=True)}
