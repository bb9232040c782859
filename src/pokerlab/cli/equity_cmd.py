"""``pokerlab equity PLAYER PLAYER ...`` and ``pokerlab range RANGE``: all-in equity and range inspection."""

from __future__ import annotations

import json
import time

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.cards.encoding import cards_to_mask, parse_cards
from pokerlab.cards.ranges import parse_range
from pokerlab.equity import EquityResult, equity
from pokerlab.equity.display import equity_table
from pokerlab.errors import InvalidArgumentError


def _run_with_progress(run, console: Console) -> EquityResult:
    """Run ``run(progress_callback)``; show a progress bar only once the run has taken more than a second."""
    state = {"fraction": 0.0}
    start = time.perf_counter()
    bar: list[Progress] = []

    def report(fraction: float) -> None:
        state["fraction"] = fraction
        if not bar and time.perf_counter() - start > 1.0:
            progress = Progress(TextColumn("equity"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                TimeElapsedColumn(), console=console, transient=True)
            progress.start()
            progress.add_task("equity", total=1.0)
            bar.append(progress)
        if bar:
            bar[0].update(bar[0].task_ids[0], completed=fraction)

    try:
        return run(report)
    finally:
        if bar:
            bar[0].stop()


def register(app: typer.Typer) -> None:
    """Add ``pokerlab equity`` and ``pokerlab range`` to the application."""

    from pokerlab.cli.common import user_errors

    @app.command("equity")
    @user_errors
    def equity_command(
        players: list[str] = typer.Argument(..., help="2 to 10 hands or ranges: 'AsKs', 'QQ+,AKs', 'random', '15%'."),
        board: str = typer.Option("", "--board", "-b", help="0, 3, 4 or 5 board cards, e.g. 'Js8s5d'."),
        dead: str = typer.Option("", "--dead", "-d", help="Cards out of play."),
        exact: bool = typer.Option(False, "--exact", help="Enumerate every board (exact)."),
        mc: bool = typer.Option(False, "--mc", help="Monte Carlo sampling."),
        trials: int | None = typer.Option(None, "--trials", "-n", help="Monte Carlo: number of showdowns."),
        time_limit: float | None = typer.Option(None, "--time", help="Monte Carlo: time budget in seconds."),
        stderr: float | None = typer.Option(None, "--stderr", help="Monte Carlo: target standard error."),
        seed: int | None = typer.Option(None, "--seed", help="Random seed (same seed, same result)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
    ) -> None:
        """All-in equity of 2 to 10 players: exact when affordable, else Monte Carlo."""
        if exact and mc:
            raise InvalidArgumentError("--exact and --mc are exclusive")
        method = "exact" if exact else "montecarlo" if mc else "auto"
        console = Console(stderr=True)

        def run(progress):
            return equity(players, board=board, dead=dead, method=method, trials=trials, time_limit=time_limit,
                          target_stderr=stderr, seed=seed, progress=None if as_json else progress)

        result = run(None) if as_json else _run_with_progress(run, console)
        if as_json:
            typer.echo(json.dumps(result.to_dict()))
            return
        Console().print(equity_table(result))

    @app.command("range")
    @user_errors
    def range_command(
        text: str = typer.Argument(..., help="A range, e.g. 'QQ+, AKs, A5s-A2s:0.5' or '15%'."),
        board: str = typer.Option("", "--board", "-b", help="Remove combos using these cards."),
        grid: bool = typer.Option(False, "--grid", help="Show the 13x13 grid."),
        png: str | None = typer.Option(None, "--png", help="Write the grid to this PNG file (needs matplotlib)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Show a range: canonical text, combo count and (with --grid) the 13x13 grid."""
        r = parse_range(text)
        if board:
            r = r.without(cards_to_mask(parse_cards(board)))
        written = r.save_png(png) if png else None
        if as_json:
            typer.echo(json.dumps({"range": r.text, "combos": r.combo_count, "weighted_combos": r.weighted_count,
                                   "fraction": r.fraction}))
            return
        console = Console()
        console.print(f"[bold]{r.text or '(empty)'}[/]")
        console.print(f"{r.combo_count} combos ({r.weighted_count:g} weighted, {100 * r.fraction:.2f}% of 1326)")
        if grid:
            console.print(r.rich_grid())
        if written:
            console.print(f"grid written to {written}")
