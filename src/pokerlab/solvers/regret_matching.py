"""Regret matching on matrix games, exact matrix-game equilibria by linear programming, and the classic plot."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import pokerlab.solvers.kernels as kernels
from pokerlab.errors import Interrupted, InvalidArgumentError, whole_number
from pokerlab.games.matrix import MatrixGame
from pokerlab.progress import ProgressCallback, deferred_interrupts


@dataclass(frozen=True, eq=False)
class RegretMatchingResult:
    """Regret matching run on a matrix game: final average strategies, their exploitability (chips per game,
    ``(max_i (A y)_i - min_j (x A)_j) / 2``) and the current/average strategies after the iterations listed in
    ``history_iterations`` (every iteration up to :data:`HISTORY_POINTS`, log-spaced beyond; rows = those
    iterations, columns = actions; empty when the run was made with ``history=False``)."""

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
    history_iterations: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``--json`` shape (no histories)."""
        return {"game": self.game.name, "iterations": self.iterations,
                "average_row": dict(zip(self.game.row_labels, self.average_row.tolist(), strict=True)),
                "average_col": dict(zip(self.game.col_labels, self.average_col.tolist(), strict=True)),
                "value": self.value, "exploitability": self.exploitability}


def matrix_exploitability(payoff: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """Exploitability (chips per game) of the profile (x, y): half the sum of both best-response gains."""
    return float((np.max(payoff @ y) - np.min(x @ payoff)) / 2)


HISTORY_POINTS = 2000  # most rows of strategy history kept (the plot needs no more)
MAX_ITERATIONS = 10**9  # about half a minute on rock-paper-scissors; more is a typo rather than a wish


def history_iterations(iterations: int, points: int = HISTORY_POINTS) -> np.ndarray:
    """The 1-based iterations at which the history is recorded: all of them up to ``points``, else ``points``
    log-spaced ones from 1 to ``iterations`` (the plot's x axis is logarithmic).

    >>> history_iterations(5).tolist(), history_iterations(10**6, 4).tolist()
    ([1, 2, 3, 4, 5], [1, 100, 10000, 1000000])
    """
    if iterations <= points:
        return np.arange(1, iterations + 1, dtype=np.int64)
    return np.unique(np.round(np.logspace(0, np.log10(iterations), points)).astype(np.int64))


def regret_matching(game: MatrixGame, iterations: int = 10_000, history: bool = True,
                    progress: ProgressCallback | None = None) -> RegretMatchingResult:
    """Run simultaneous regret matching on a matrix game from zero regrets, for ``iterations`` (1 to 10^9)
    iterations; ``history=False`` skips recording the strategies for the plot. ``progress(done, total)`` is
    called between chunks of about 0.1 s; Ctrl-C stops between chunks with :class:`~pokerlab.errors.Interrupted`
    carrying the result of the iterations done.

    >>> from pokerlab.games import rps
    >>> r = regret_matching(rps(asymmetric=True), 20_000); r.exploitability < 0.01
    True
    """
    if not isinstance(game, MatrixGame):
        raise InvalidArgumentError(f"regret matching needs a matrix game (e.g. pokerlab.games.rps()), got "
                                   f"{type(game).__name__}")
    iterations = whole_number(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    payoff = game.matrix
    m, n = payoff.shape
    total = int(iterations)
    record_at = history_iterations(total) if history else np.zeros(0, dtype=np.int64)
    hist = [np.empty((len(record_at), k)) for k in (m, n, m, n)]
    state = kernels.MatrixRegrets(np.zeros(m), np.zeros(n), np.zeros(m), np.zeros(n))
    sum_row, sum_col = state.sum_row, state.sum_col
    done, chunk = 0, 1000
    try:
        while done < total:
            # chunks of about 0.1 s (the kernel cannot see Ctrl-C); the same arithmetic as one call
            size = min(chunk, total - done)
            lo = int(np.searchsorted(record_at, done + 1, side="left"))
            hi = int(np.searchsorted(record_at, done + size, side="right"))
            started = time.perf_counter()
            recorded = kernels.StrategyHistory(record_at[lo:hi] - done, *(h[lo:hi] for h in hist))
            with deferred_interrupts():
                kernels.matrix_regret_matching(payoff, size, state, recorded)
                done += size
            chunk = max(1000, int(size * 0.1 / max(time.perf_counter() - started, 1e-6)))
            if progress is not None:
                progress(done, total)
    except KeyboardInterrupt:
        kept = int(np.searchsorted(record_at, done, side="right"))
        partial = _result(game, done, sum_row, sum_col, [h[:kept] for h in hist], record_at[:kept])
        raise Interrupted(f"after {done:,} of {total:,} iterations", partial=partial) from None
    return _result(game, total, sum_row, sum_col, hist, record_at)


def _result(game: MatrixGame, iterations: int, sum_row: np.ndarray, sum_col: np.ndarray, hist: list[np.ndarray],
            record_at: np.ndarray) -> RegretMatchingResult:
    payoff = game.matrix
    x, y = sum_row / sum_row.sum(), sum_col / sum_col.sum()
    return RegretMatchingResult(game, iterations, x, y, float(x @ payoff @ y),
                                matrix_exploitability(payoff, x, y), *hist, record_at)  # type: ignore[call-arg]


def solve_matrix_lp(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value (row player's payoff in chips per game) and equilibrium strategies ``(x, y)`` of a zero-sum matrix
    game by linear programming (scipy ``linprog``); ``payoff[i, j]`` is the row player's payoff.

    >>> v, x, y = solve_matrix_lp(np.array([[1.0, -1.0], [-1.0, 1.0]])); abs(v) < 1e-9, x.round(6).tolist()
    (True, [0.5, 0.5])
    """
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
    strategies, both players. Needs matplotlib (``pip install pokerlab[plot]``). ``path`` gets ``.png`` when it
    has no suffix (.png, .pdf and .svg are accepted); returns the path written."""
    from pokerlab.plotting import figure_path, pyplot, save_figure

    if len(result.history_iterations) == 0:
        raise InvalidArgumentError("this run kept no history to plot (run regret_matching with history=True)")
    figure_path(path)  # check the name before drawing
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    t = result.history_iterations
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
    return save_figure(fig, path, dpi=110)
