"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console


def equity_section(console: Console) -> None:
    """Exact and Monte Carlo equity, a range grid, and equity against 1..N random hands."""
    from rich.table import Table

    from pokerlab.cards.ranges import parse_range
    from pokerlab.cli.equity_cmd import _equity_table
    from pokerlab.equity import equity, equity_vs_random

    console.print(_equity_table(equity(["AsKs", "random"], method="exact")))
    console.print(_equity_table(equity(["QQ+, AKs", "TT+, AQs+:0.5", "random"], method="montecarlo",
                                       target_stderr=5e-4, seed=1)))
    console.print(_equity_table(equity(["AsKs", "AcJc"], board="Js8s5d")))
    top = parse_range("15%")
    console.print(f"[bold]15% of hands[/] ({top.combo_count} combos): {top.text}")
    console.print(top.rich_grid())
    many = equity_vs_random("AhAs", max_opponents=9, trials=2_000_000, seed=1)
    table = Table(title=f"AhAs against 1..9 random hands ({many.trials:,} deals, one pass, {many.elapsed:.2f} s)")
    table.add_column("opponents", justify="right")
    table.add_column("equity", justify="right")
    table.add_column("± stderr", justify="right")
    for n, (value, error) in enumerate(zip(many.equity, many.stderr, strict=True), start=1):
        table.add_row(str(n), f"{100 * value:.2f}%", f"{100 * error:.2f}%")
    console.print(table)


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return [("Equity", equity_section)]


def main() -> None:
    console = Console()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
