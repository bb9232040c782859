"""``pokerlab simulate``: tournaments by simulation, and equity models measured against it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pokerlab.cli.common import command
from pokerlab.errors import FileFormatError, InvalidArgumentError


def _parse_bet(text: str) -> int:
    if text.strip().lower() in ("all-in", "allin", "all"):
        return 0
    try:
        value = int(text)
    except ValueError as error:
        raise InvalidArgumentError(f"--bet must be all-in or a whole number of chips, got {text!r}") from error
    if value < 1:
        raise InvalidArgumentError(f"--bet must be all-in or at least 1 chip, got {value}")
    return value


def _parse_counts(text: str | None) -> list[int | str]:
    out: list[int | str] = []
    for token in (t.strip() for t in (text or "").split(",") if t.strip()):
        if token in ("bubble", "final"):
            out.append(token)
            continue
        try:
            out.append(int(token))
        except ValueError as error:
            raise InvalidArgumentError(
                f"--snapshots takes players-left counts, bubble or final, like 500,bubble,final; got {text!r}"
            ) from error
    return out


def read_snapshot(path: Path) -> dict[str, Any]:
    """A snapshot file: JSON ``{"stacks": [...], "level": 0}`` (level optional) or text of stacks."""
    from pokerlab.icm.lobby import parse_stacks, read_stacks_file

    text = read_stacks_file(path)
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
            stacks = np.asarray(data["stacks"], dtype=np.float64)
            level = int(data.get("level", 0))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise FileFormatError(f"snapshot file {path}: expected {{\"stacks\": [...], \"level\": N}} ({error})") \
                from error
        return {"stacks": stacks, "level": level}
    return {"stacks": parse_stacks(text).chips, "level": 0}


class _Bar:
    """A progress bar on stderr with tournaments done, rate and ETA; nothing when stderr is not a terminal."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.progress: Progress | None = None
        self.label = label
        self.start = time.perf_counter()
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        if not self.enabled:
            return
        if self.progress is None:
            self.progress = Progress(
                TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(), console=Console(stderr=True), transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task(self.label, total=total, rate="")
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.progress.update(self.task, completed=done, rate=f"{rate:,.1f}/s")

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@command("simulate")
def simulate_command(
    stacks: str = typer.Option(None, "--stacks", help="Chips per player, e.g. 5,3,2 (one table up to 10)."),
    players: int = typer.Option(None, "--players", help="A whole field of this many players (2-100,000)."),
    starting_stack: int = typer.Option(10_000, "--starting-stack", help="Chips per player with --players."),
    table_size: int = typer.Option(None, "--table-size", help="Seats per table, 2-10 (default 9)."),
    schedule_file: Path = typer.Option(None, "--schedule", help="Blind schedule file (JSON or CSV)."),
    level: int = typer.Option(None, "--level", help="Start at this blind level (0 = the first)."),
    payouts: str = typer.Option(
        ..., "--payouts", help="600,400 | power:a=1,pool=1000,paid=150 | flat:pool=100,paid=9 | file.csv"
    ),
    play: str = typer.Option(
        "coinflip", "--play", help="coinflip | pushfold | rules | tight | a mix like rules:0.8,tight:0.2."
    ),
    bet: str = typer.Option("all-in", "--bet", help="Coin flip stake: all-in (the smaller stack) or chips."),
    tournaments: int = typer.Option(1000, "--tournaments", help="Tournaments to play."),
    seed: int = typer.Option(None, "--seed", help="Seed: the same seed gives the same tournaments."),
    snapshots: str = typer.Option(
        None, "--snapshots", help="Record stacks at these players left: counts, bubble, final."
    ),
    from_snapshot: Path = typer.Option(
        None, "--from-snapshot", help="Measure ICM and other models against continuations of these stacks."
    ),
    continuations: int = typer.Option(10_000, "--continuations", help="Continuations with --from-snapshot."),
    workers: int = typer.Option(None, "--workers", help="Local processes (default: every core)."),
    ray: str = typer.Option(None, "--ray", help="Run on Ray: local | HOST:PORT | ray://HOST:PORT."),
    checkpoint: Path = typer.Option(None, "--checkpoint", help="Save finished chunks here; rerun to resume."),
    output: Path = typer.Option(
        None, "--output", help="Write tournaments.parquet, snapshots.parquet and summary.json here."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Simulate tournaments (coin flip, push/fold charts, simple rules) and compare equity models."""
    from pokerlab.icm import parse_payouts
    from pokerlab.simulation import load_schedule, prepare, run
    from pokerlab.simulation.analysis import compare_models
    from pokerlab.simulation.output import check_output_directory, write_outputs
    from pokerlab.warmup import compile_first

    given = [name for name, value in (("--stacks", stacks), ("--players", players),
                                      ("--from-snapshot", from_snapshot)) if value is not None]
    if len(given) != 1:
        raise InvalidArgumentError("give exactly one of --stacks, --players or --from-snapshot")
    pay = parse_payouts(payouts)
    stake = _parse_bet(bet)
    schedule = load_schedule(schedule_file) if schedule_file is not None else None
    if output is not None:
        check_output_directory(output)
        if checkpoint is None:
            checkpoint = output / "checkpoint"
    bar = _Bar(not as_json, "continuations" if from_snapshot is not None else "tournaments")
    try:
        if from_snapshot is not None:
            snap = read_snapshot(from_snapshot)
            comparison = compare_models(
                snap["stacks"], pay, continuations=continuations, play=play, bet=stake, schedule=schedule,
                start_level=snap["level"] if level is None else level, table_size=table_size, seed=seed,
                workers=workers, ray=ray, checkpoint=None if checkpoint is None else str(checkpoint),
                progress=bar,
            )
            bar.close()
            _show_comparison(comparison, as_json)
            if output is not None:
                (output / "summary.json").write_text(json.dumps(comparison.to_dict(), indent=1), encoding="utf-8")
            return
        from pokerlab.icm.lobby import parse_stacks

        tournament = prepare(
            stacks=None if stacks is None else parse_stacks(stacks).chips, players=players,
            starting_stack=starting_stack if players is not None else None, table_size=table_size, payouts=pay,
            play=play, bet=stake, schedule=schedule, start_level=level or 0, snapshots=_parse_counts(snapshots),
        )
        # compile first (one tournament, in this process), so that the time shown is the run's own
        compile_first([lambda: run(tournament, 1, seed=1, workers=1)], quiet=as_json)
        result = run(tournament, tournaments, seed=seed, workers=workers, ray=ray, checkpoint=checkpoint,
                     records=output is not None, progress=bar)
        bar.close()
    except KeyboardInterrupt:
        bar.close()
        kept = f"finished chunks are in {checkpoint}: rerun the same command to resume" if checkpoint \
            else "nothing kept (use --checkpoint DIR to resume)"
        typer.echo(f"interrupted after {bar.done:,} tournaments; {kept}", err=True)
        raise typer.Exit(code=130) from None
    if output is not None:
        write_outputs(result, output)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    _show_result(result)


def _show_result(result: Any) -> None:
    console = Console()
    t = result.tournament
    title = (f"{result.tournaments:,} tournaments, {result.hands:,} hands, {result.elapsed_s:.2f} s "
             f"({'per player' if t.per_player else 'per starting stack and play model'})")
    table = Table(title=title)
    for name in ("stack", "play", "players", "equity", "± stderr", "ICM", "P(1st)", "P(2nd)", "P(3rd)"):
        table.add_column(name, justify="right")
    for g in range(t.group_stack.size):
        places = [f"{result.places[g, m]:.4f}" if m < result.places.shape[1] else "-" for m in range(3)]
        icm = "-" if result.icm is None else f"{result.icm[g]:.4f}"
        table.add_row(f"{t.group_stack[g]:g}", t.group_model[g], str(int(t.group_size[g])), f"{result.equity[g]:.4f}",
                      f"{result.equity_stderr[g]:.4f}", icm, *places)
    console.print(table)


def _show_comparison(comparison: Any, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(comparison.to_dict()))
        return
    console = Console()
    table = Table(title=f"models against {comparison.continuations:,} continuations (error in % of the pool)")
    for name in ("model", "RMS error", "95% interval", "max |error|", "MSE - ICM's"):
        table.add_column(name, justify="right")
    for e in comparison.errors:
        table.add_row(e.model, f"{e.rms:.4f}", f"{e.rms_low:.4f} - {e.rms_high:.4f}", f"{e.max_abs:.4f}",
                      f"{e.mse_minus_icm:+.5f} ± {Z95 * e.mse_minus_icm_stderr:.5f}")
    console.print(table)
    console.print(f"closest: {comparison.closest} (power-icm alpha = {comparison.alpha:.3f}, fitted to these "
                  "continuations)")


Z95 = 1.959963984540054
