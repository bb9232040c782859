"""Results of the equity engine: :class:`EquityResult` (any method) and :class:`VersusRandomResult`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab.cards.tables import CATEGORIES


@dataclass(frozen=True)
class EquityResult:
    """All-in equity of each player.

    ``equity[i]`` is player i's expected share of the pot, ``win[i]`` the probability of winning alone,
    ``tie[i]`` of splitting it. ``stderr`` is ``None`` for an exact result, else each equity's standard error.
    ``showdowns`` counts (matchup, board) pairs enumerated or sampled. ``wins``/``ties`` are the exact integer
    counts when exact and unweighted (``None`` otherwise). ``breakdown`` (on request) maps each player to
    ``{category: {"frequency": p, "equity": e}}``: how often the player ends with that hand category and
    how much equity it brings.
    """

    players: tuple[str, ...]
    equity: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    stderr: tuple[float, ...] | None
    showdowns: int
    method: str
    elapsed: float
    board: str = ""
    dead: str = ""
    wins: tuple[int, ...] | None = None
    ties: tuple[int, ...] | None = None
    stop_reason: str | None = None
    breakdown: tuple[dict[str, dict[str, float]], ...] | None = field(default=None, repr=False)

    @property
    def exact(self) -> bool:
        """True when the result comes from full enumeration."""
        return self.method == "exact"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``pokerlab equity --json``."""
        data: dict[str, Any] = {
            "method": self.method,
            "players": [
                {
                    "range": name,
                    "equity": self.equity[i],
                    "win": self.win[i],
                    "tie": self.tie[i],
                    # JSON has no infinity: a standard error from fewer than two trials is unknown
                    "stderr": None if self.stderr is None or not math.isfinite(self.stderr[i]) else self.stderr[i],
                }
                for i, name in enumerate(self.players)
            ],
            "showdowns": self.showdowns,
            "elapsed_s": self.elapsed,
        }
        if self.breakdown is not None:
            data["breakdown"] = list(self.breakdown)
        return data


@dataclass(frozen=True)
class VersusRandomResult:
    """Equity of one hand against 1, 2, ..., N random hands (index 0 is one opponent), from one simulation."""

    hand: str
    board: str
    equity: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    stderr: tuple[float, ...]
    trials: int
    elapsed: float
    stop_reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form: one row per number of opponents."""
        return {
            "hand": self.hand,
            "board": self.board,
            "method": "montecarlo",
            "trials": self.trials,
            "elapsed_s": self.elapsed,
            "opponents": [
                {"opponents": n + 1, "equity": self.equity[n], "win": self.win[n], "tie": self.tie[n],
                 "stderr": self.stderr[n]}
                for n in range(len(self.equity))
            ],
        }


def category_breakdown(categories: np.ndarray) -> tuple[dict[str, dict[str, float]], ...]:
    """Per player ``{category: {"frequency", "equity"}}`` from the kernels' ``(P, 2, 9)`` accumulator."""
    return tuple(
        {CATEGORIES[k]: {"frequency": float(categories[p, 0, k]), "equity": float(categories[p, 1, k])}
         for k in range(9)}
        for p in range(categories.shape[0])
    )
