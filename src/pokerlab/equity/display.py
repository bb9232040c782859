"""Rich tables of equity results, shared by the command line and the demo."""

from __future__ import annotations

from rich.table import Table

from pokerlab.equity.result import EquityResult


def equity_table(result: EquityResult) -> Table:
    """One row per player: equity, win and tie in percent, and the standard error when sampled."""
    title = f"{result.method} equity" + (f" on {result.board}" if result.board else "")
    title += f" ({result.showdowns:,} showdowns, {result.elapsed_s:.3g} s)"
    table = Table(title=title, header_style="bold")
    for column in ("player", "equity", "win", "tie"):
        table.add_column(column, justify="left" if column == "player" else "right")
    if result.stderr is not None:
        table.add_column("± stderr", justify="right")
    for i, name in enumerate(result.players):
        cells = [name, f"{100 * result.equity[i]:.3f}%", f"{100 * result.win[i]:.3f}%", f"{100 * result.tie[i]:.3f}%"]
        if result.stderr is not None:
            cells.append(f"{100 * result.stderr[i]:.3f}%")
        table.add_row(*cells)
    return table
