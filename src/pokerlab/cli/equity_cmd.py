"""``pokerlab equity PLAYER PLAYER ...`` and ``pokerlab range RANGE``: all-in equity and range inspection."""

from __future__ import annotations

from pathlib import Path

import typer

from pokerlab.cli.common import (
    JSON_OPTION,
    PILOT_SECONDS,
    PRECISION_TIME_LIMIT,
    check_output,
    command,
    interrupted,
    print_json,
    print_table,
    progress_bar,
)

# the equity façade's parameter names, as the command line spells them
EQUITY_WORDS = {"trials, time_limit and target_stderr": "--trials, --time and --stderr",
                "method='montecarlo' or 'auto'": "--mc, or neither --exact nor --mc",
                "method='montecarlo'": "--mc", "method='exact'": "--exact", "method='auto'": "neither --exact nor --mc",
                "time_limit": "--time", "target_stderr": "--stderr", "max_opponents": "--opponents"}


@command("equity", vocabulary=EQUITY_WORDS)
def equity_command(
    players: list[str] = typer.Argument(..., help="2 to 10 hands or ranges: 'AsKs', 'QQ+,AKs', 'random', '15%'."),
    board: str = typer.Option("", "--board", "-b", help="0, 3, 4 or 5 board cards, e.g. 'Js8s5d'."),
    dead: str = typer.Option("", "--dead", "-d", help="Cards out of play."),
    exact: bool = typer.Option(False, "--exact", help="Enumerate every board (exact)."),
    mc: bool = typer.Option(False, "--mc", help="Monte Carlo sampling."),
    trials: int | None = typer.Option(None, "--trials", "-n", help="Monte Carlo: number of showdowns."),
    time_limit: float | None = typer.Option(None, "--time", help="Monte Carlo: time budget in seconds."),
    stderr: float | None = typer.Option(None, "--stderr", help="Monte Carlo: target standard error (stops at --time "
                                        "if not reached; without --time a 0.3 s pilot run refuses a target out of "
                                        "reach in 600 s)."),
    seed: int | None = typer.Option(None, "--seed", help="Random seed (same seed, same result)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """All-in equity of 2 to 10 players: exact when affordable, else Monte Carlo."""
    from pokerlab.equity import EquityResult, equity
    from pokerlab.equity.display import equity_table
    from pokerlab.errors import Interrupted, InvalidArgumentError
    from pokerlab.stats.stopping import out_of_reach
    from pokerlab.warmup import equity_groups, prepare

    if exact and mc:
        raise InvalidArgumentError("--exact and --mc are exclusive")
    method = "exact" if exact else "montecarlo" if mc else "auto"
    pilot = stderr is not None and time_limit is None and trials is None
    if stderr is not None and time_limit is None:
        time_limit = PRECISION_TIME_LIMIT  # a target that cannot be reached must not run for ever
    # compile first, so that the time shown is the run's own
    prepare(equity_groups(players, board, dead, method, any(x is not None for x in (trials, time_limit, stderr))),
            quiet=as_json)
    if pilot and stderr is not None and stderr > 0:
        # a short run first: a target out of reach is refused now, with the precision the time allows
        trial = equity(players, board=board, dead=dead, method=method, time_limit=PILOT_SECONDS, seed=seed)
        if trial.stderr is not None:
            why = out_of_reach(stderr, max(trial.stderr), trial.elapsed_s, PRECISION_TIME_LIMIT,
                               what=f"--stderr {stderr:g}")
            if why is not None:
                raise InvalidArgumentError(f"{why}; give a larger --stderr, or --time to run that long anyway")
    with progress_bar("equity", 1.0, enabled=not as_json, unit="") as update:
        try:
            result = equity(players, board=board, dead=dead, method=method, trials=trials, time_limit=time_limit,
                            target_stderr=stderr, seed=seed, progress=lambda fraction: update(fraction))
        except Interrupted as stop:
            partial = stop.partial
            if not isinstance(partial, EquityResult) or partial.stderr is None:
                raise
            shown = ", ".join(f"{name} {100 * e:.3f}% ± {100 * se:.3f}" for name, e, se in
                              zip(partial.players, partial.equity, partial.stderr, strict=True))
            interrupted(f"{stop}: equity {shown} (± one standard error)")
    if as_json:
        print_json(result.to_dict())
    else:
        print_table(equity_table(result))


@command("range")
def range_command(
    text: str = typer.Argument(..., help="A range, e.g. 'QQ+, AKs, A5s-A2s:0.5' or '15%'."),
    board: str = typer.Option("", "--board", "-b", help="Remove combos using these cards."),
    grid: bool = typer.Option(False, "--grid", help="Show the 13x13 grid."),
    png: Path | None = typer.Option(None, "--png", help="Write the grid to this image file (.png, .pdf or .svg; "
                                    "needs matplotlib)."),
    style: str | None = typer.Option(None, "--style", help="Print only the range as text in this style: pio "
                                     "(AKs:0.5), gtoplus ([50]AKs[/50]) or combos (AsKs:0.5, one per combo)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show a range: canonical text, combo count and (with --grid) the 13x13 grid; or (--style) the range as
    PioSOLVER, GTO+ or per-combo text. Reads each of these styles too."""
    from pokerlab.cards.display import range_summary
    from pokerlab.cards.encoding import cards_to_mask, parse_cards
    from pokerlab.cards.ranges import parse_range
    from pokerlab.plotting import figure_path

    if png is not None:
        png = figure_path(png)
        check_output(png)
    r = parse_range(text)
    if board:
        r = r.without(cards_to_mask(parse_cards(board)))
    exported = r.export(style) if style is not None else None
    written = r.save_png(png) if png else None
    if as_json:
        print_json({"range": r.text, "combos": r.combo_count, "weighted_combos": r.weighted_count,
                    "fraction": r.fraction, **({"export": {style: exported}} if style is not None else {})})
        return
    if exported is not None:
        typer.echo(exported)
        if written:
            typer.echo(f"grid written to {written}", err=True)
        return
    print_table(range_summary(r, grid=grid))
    if written:
        typer.echo(f"grid written to {written}")
