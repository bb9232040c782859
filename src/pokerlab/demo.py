"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console


def solver_section(console: Console) -> None:
    """CFR+ on Kuhn and Leduc poker: exploitability, game value and time against the known values."""
    from rich.table import Table

    from pokerlab.solvers import solve

    table = Table("game", "algorithm", "iterations", "exploitability (chips)", "value", "known value", "time")
    for game, algorithm, iterations, known in (("kuhn", "cfr+", 200, -1 / 18), ("leduc", "cfr+", 1000, -0.0856064),
                                               ("leduc", "es-mccfr", 100_000, -0.0856064)):
        r = solve(game, algorithm, iterations=iterations, seed=1)
        table.add_row(game, algorithm, f"{r.iterations:,}", f"{r.exploitability:.2e}", f"{r.game_value:+.5f}",
                      f"{known:+.5f}", f"{r.elapsed_s:.3f} s")
    console.print(table)


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return [("CFR solving: Kuhn and Leduc poker", solver_section)]


def main() -> None:
    console = Console()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
