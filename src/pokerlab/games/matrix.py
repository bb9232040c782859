"""Two-player zero-sum matrix games (rock-paper-scissors and any payoff matrix) as extensive-form games.

The row player (player 0) picks a row, the column player (player 1) picks a column without seeing it; the
row player receives ``payoff[row, col]`` chips and the column player its negation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import TERMINAL, Game, GameType
from pokerlab.games.registry import SOLVE, register_family, register_game

RPS_ACTIONS = ("rock", "paper", "scissors")
RPS = ((0.0, -1.0, 1.0), (1.0, 0.0, -1.0), (-1.0, 1.0, 0.0))
# Rock beats scissors by 2: the equilibrium moves away from uniform, so convergence is visible on a plot.
RPS_ASYMMETRIC = ((0.0, -1.0, 2.0), (1.0, 0.0, -1.0), (-2.0, 1.0, 0.0))


@dataclass(frozen=True, eq=False)
class MatrixGame(Game):
    """A matrix game; ``payoff[i][j]`` is the row player's gain in chips.

    >>> MatrixGame(RPS, name="rps").legal_actions(())
    [0, 1, 2]
    """

    payoff: tuple[tuple[float, ...], ...]
    name: str = "matrix"
    row_labels: tuple[str, ...] = field(default=())
    col_labels: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        try:
            matrix = np.asarray(self.payoff, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InvalidGameError(f"payoff matrix is not numeric: {error}") from error
        if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1 or not np.all(np.isfinite(matrix)):
            raise InvalidGameError("payoff must be a non-empty 2-D matrix of finite numbers")
        object.__setattr__(self, "payoff", tuple(tuple(float(x) for x in row) for row in matrix))
        if not self.row_labels:
            object.__setattr__(self, "row_labels", tuple(f"r{i}" for i in range(matrix.shape[0])))
        if not self.col_labels:
            object.__setattr__(self, "col_labels", tuple(f"c{j}" for j in range(matrix.shape[1])))
        if len(self.row_labels) != matrix.shape[0] or len(self.col_labels) != matrix.shape[1]:
            raise InvalidGameError("one label per row and per column")

    game_type = GameType(players=2, zero_sum=True, chance=False)

    @property
    def matrix(self) -> np.ndarray:
        return np.asarray(self.payoff, dtype=np.float64)

    def initial_state(self) -> tuple[int, ...]:
        return ()

    def current_player(self, state: tuple[int, ...]) -> int:
        return len(state) if len(state) < 2 else TERMINAL

    def chance_outcomes(self, state: Any) -> list[tuple[Any, float]]:
        return []

    def legal_actions(self, state: tuple[int, ...]) -> list[int]:
        return list(range(len(self.payoff) if not state else len(self.payoff[0])))

    def apply(self, state: tuple[int, ...], action: int) -> tuple[int, ...]:
        return (*state, action)

    def utility(self, state: tuple[int, ...]) -> float:
        return self.payoff[state[0]][state[1]]

    def infoset_key(self, state: tuple[int, ...]) -> str:
        return "row" if not state else "column"

    def action_label(self, state: tuple[int, ...], action: int) -> str:
        return (self.row_labels if not state else self.col_labels)[action]

    def spec(self) -> dict[str, Any]:
        return {"family": "matrix", "name": self.name, "payoff": [list(r) for r in self.payoff],
                "row_labels": list(self.row_labels), "col_labels": list(self.col_labels)}


def rps(asymmetric: bool = False) -> MatrixGame:
    """Rock-paper-scissors; ``asymmetric=True`` makes rock beat scissors by 2 (equilibrium not uniform)."""
    if asymmetric:
        return MatrixGame(RPS_ASYMMETRIC, name="rps2", row_labels=RPS_ACTIONS, col_labels=RPS_ACTIONS)
    return MatrixGame(RPS, name="rps", row_labels=RPS_ACTIONS, col_labels=RPS_ACTIONS)


def _from_spec(spec: Mapping[str, Any]) -> MatrixGame:
    return MatrixGame(tuple(tuple(r) for r in spec["payoff"]), name=str(spec.get("name", "matrix")),
                      row_labels=tuple(spec.get("row_labels", ())), col_labels=tuple(spec.get("col_labels", ())))


register_family("matrix", (MatrixGame,), _from_spec)
register_game("rps", rps, "rock-paper-scissors", (SOLVE,))
register_game("rps2", partial(rps, asymmetric=True), "rock-paper-scissors, rock beats scissors by 2", (SOLVE,))
