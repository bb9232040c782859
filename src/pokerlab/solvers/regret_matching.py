"""Regret matching on matrix games, exact matrix-game equilibria by linear programming, and the classic plot."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.matrix import MatrixGame
from pokerlab.solvers import kernels


@dataclass(frozen=True, eq=False)
class RegretMatchingResult:
    """Regret matching run on a matrix game: final average strategies, their exploitability (chips per game,
    ``(max_i (A y)_i - min_j (x A)_j) / 2``) and the per-iteration current/average strategies (iterations x actions)."""

    game: MatrixGame
    iterations: int
    average_row: np.ndarray
    average_col: np.ndarray
    value: float
    exploitability: float
    current_row_history: np.ndarray
    current_col_history: np.ndarray
    average_row_history: np.ndarray
    average_col_history: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game.name, "iterations": self.iterations,
                "average_row": dict(zip(self.game.row_labels, self.average_row.tolist(), strict=True)),
                "average_col": dict(zip(self.game.col_labels, self.average_col.tolist(), strict=True)),
                "value": self.value, "exploitability": self.exploitability}


def matrix_exploitability(payoff: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """Exploitability (chips per game) of the profile (x, y): half the sum of both best-response gains."""
    return float((np.max(payoff @ y) - np.min(x @ payoff)) / 2)


def regret_matching(game: MatrixGame, iterations: int = 10_000) -> RegretMatchingResult:
    """Run simultaneous regret matching on a matrix game from zero regrets.

    >>> from pokerlab.games import rps
    >>> r = regret_matching(rps(asymmetric=True), 20_000); r.exploitability < 0.01
    True
    """
    if not isinstance(iterations, int | np.integer) or iterations < 1:
        raise InvalidArgumentError(f"iterations must be a positive integer, got {iterations!r}")
    payoff = game.matrix
    m, n = payoff.shape
    hist = [np.empty((iterations, k)) for k in (m, n, m, n)]
    sum_row, sum_col = np.zeros(m), np.zeros(n)
    kernels.matrix_regret_matching(payoff, int(iterations), np.zeros(m), np.zeros(n), sum_row, sum_col, *hist)
    x, y = sum_row / sum_row.sum(), sum_col / sum_col.sum()
    return RegretMatchingResult(game, int(iterations), x, y, float(x @ payoff @ y),
                                matrix_exploitability(payoff, x, y), *hist)


def solve_matrix_lp(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and equilibrium strategies of a zero-sum matrix game by linear programming (scipy ``linprog``)."""
    from scipy.optimize import linprog

    payoff = np.asarray(payoff, dtype=np.float64)
    m, n = payoff.shape

    def side(a: np.ndarray) -> tuple[float, np.ndarray]:
        # maximise v subject to x^T a[:, j] >= v for every column j, sum x = 1, x >= 0
        k, cols = a.shape
        c = np.zeros(k + 1)
        c[-1] = -1.0
        a_ub = np.hstack([-a.T, np.ones((cols, 1))])
        a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
        res = linprog(c, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=a_eq, b_eq=[1.0],
                      bounds=[(0, None)] * k + [(None, None)], method="highs")
        return float(res.x[-1]), res.x[:k]

    value, x = side(payoff)
    _, y = side(-payoff.T)
    return value, x, y


def plot_convergence(result: RegretMatchingResult, path: str | Path) -> Path:
    """Save the classic plot: probability of each action against iterations, current (thin) and average (thick)
    strategies, both players. Needs matplotlib (``pip install pokerlab[plot]``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError("plotting needs matplotlib: pip install 'pokerlab[plot]'") from error
    path = Path(path)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    t = np.arange(1, result.iterations + 1)
    for ax, cur, avg, labels, who in ((axes[0], result.current_row_history, result.average_row_history,
                                       result.game.row_labels, "row player"),
                                      (axes[1], result.current_col_history, result.average_col_history,
                                       result.game.col_labels, "column player")):
        for k, label in enumerate(labels):
            line, = ax.plot(t, avg[:, k], linewidth=2, label=f"{label} (average)")
            ax.plot(t, cur[:, k], linewidth=0.6, alpha=0.6, color=line.get_color(), label=f"{label} (current)")
        ax.set_xscale("log")
        ax.set_xlabel("iteration")
        ax.set_title(f"{result.game.name}: {who}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("probability")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"Regret matching, {result.iterations} iterations; exploitability of the average "
                 f"{result.exploitability:.2e} chips")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
