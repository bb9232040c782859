"""The classic convergence table: Monte Carlo estimate and error against the number of trials, for a case
whose exact value is known (by default AsKs against a random hand, exactly 0.670446323092352)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pokerlab.equity.core import equity
from pokerlab.equity.problem import PlayerLike
from pokerlab.plotting import pyplot, save_figure

DEFAULT_TRIALS = (10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)


@dataclass(frozen=True)
class ConvergenceRow:
    """One Monte Carlo run: trials, estimate of player 0's equity, error against exact, stderr, seconds."""

    trials: int
    estimate: float
    error: float
    stderr: float
    elapsed_s: float


def convergence_table(players: Sequence[PlayerLike] = ("AsKs", "random"), board: str = "",
                      trials: Sequence[int] = DEFAULT_TRIALS, exact: float | None = None,
                      seed: int = 1) -> tuple[float, list[ConvergenceRow]]:
    """Exact equity of player 0 (computed when not given) and one Monte Carlo run per trial count.

    >>> exact, rows = convergence_table(trials=(1000,), exact=0.670446323092352)
    >>> rows[0].trials
    1000
    """
    if exact is None:
        exact = equity(list(players), board=board, method="exact").equity[0]
    rows = []
    for count in trials:
        result = equity(list(players), board=board, method="montecarlo", trials=count, seed=seed)
        assert result.stderr is not None
        rows.append(ConvergenceRow(count, result.equity[0], result.equity[0] - exact, result.stderr[0],
                                   result.elapsed_s))
    return exact, rows


def plot_convergence(exact: float, rows: Sequence[ConvergenceRow], path: str | Path) -> Path:
    """|error| and the reported standard error against trials, log-log, to a PNG (needs matplotlib)."""
    plt = pyplot()

    figure, axes = plt.subplots(figsize=(6, 4))
    trials = [row.trials for row in rows]
    axes.loglog(trials, [max(abs(row.error), 1e-9) for row in rows], "o-", label="|estimate - exact|")
    axes.loglog(trials, [row.stderr for row in rows], "s--", label="reported standard error")
    axes.set_xlabel("trials (showdowns)")
    axes.set_ylabel("error in equity")
    axes.set_title(f"Monte Carlo convergence (exact {exact:.6f})")
    axes.legend()
    axes.grid(True, which="both", alpha=0.3)
    return save_figure(figure, path, dpi=100, bbox_inches="tight")
