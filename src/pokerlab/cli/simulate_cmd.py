"""``pokerlab simulate``: tournaments by simulation, and equity models measured against it."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pokerlab.cli.common import command
from pokerlab.cli.entry import interrupt
from pokerlab.errors import FileFormatError, InvalidArgumentError, whole_number


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
    """A snapshot file: JSON ``{"stacks": [...], "level": 0}`` (level optional: a whole number) or text of stacks
    (names as for ``--stacks``: ``alice:5,000 bob:3,000``). Returns ``stacks``, ``level`` and ``names``."""
    from pokerlab.errors import InvalidStacksError
    from pokerlab.icm.lobby import amounts, parse_stacks, read_stacks_file

    text = read_stacks_file(path)
    if text.lstrip().startswith("{"):
        expected = f"snapshot file {path}: expected {{\"stacks\": [...], \"level\": N}}"
        try:
            data = json.loads(text)
            raw = data["stacks"]
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise FileFormatError(f"{expected} ({error})") from error
        try:
            stacks = amounts(raw, "stacks", InvalidStacksError)
            level = whole_number(data.get("level", 0), "level", low=0, floats=True)
        except (InvalidArgumentError, InvalidStacksError) as error:
            raise FileFormatError(f"{expected}: {error}") from error
        return {"stacks": stacks, "level": level, "names": None}
    parsed = parse_stacks(text)
    return {"stacks": parsed.chips, "level": 0, "names": parsed.names if parsed.named else None}


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
    starting_stack: int = typer.Option(None, "--starting-stack", help="Chips per player with --players (default "
                                                                       "10,000)."),
    table_size: int = typer.Option(None, "--table-size", help="Seats per table, 2-10 (default 9)."),
    schedule_file: Path = typer.Option(None, "--schedule", help="Blind schedule file (JSON or CSV)."),
    structure: str = typer.Option(None, "--structure", help="A named blind structure instead of --schedule: turbo "
                                                            "(50 bb, 6 hands a level, x1.3) | regular (100 bb, 12, "
                                                            "x1.25) | deep (200 bb, 20, x1.2); big-blind ante from "
                                                            "level 2."),
    level: int = typer.Option(None, "--level", help="Start at this blind level (0 = the first)."),
    payouts: str = typer.Option(
        ..., "--payouts", help="600,400 | power:a=1,pool=1000,paid=150 | flat:pool=100,paid=9 | file.csv"
    ),
    play: str = typer.Option(
        "coinflip", "--play", help="coinflip | pushfold | rules | tight | fullring (the shipped full-ring charts by "
                                   "position) | fullring-tight[@KEEP] (those charts, each range cut to its "
                                   "strongest KEEP, default 0.5) | icm | chip-ev | power-icm@ALPHA | "
                                   "harville@DISCOUNT | malmuth-weitzman | fgs@DEPTH (FGS: 0-2 more hands "
                                   "played out before ICM) (decide every jam and call by that model's value of the "
                                   "outcomes; the last three at most 10 players, FGS at one table) | a mix like "
                                   "fullring:0.6,icm:0.2,fullring-tight:0.2."
    ),
    chart_file: Path = typer.Option(None, "--chart-file", help="With --play fullring: a full-ring chart file of "
                                                                 "this version (default: the shipped one)."),
    bet: str = typer.Option(None, "--bet", help="Coin flip stake: all-in (the smaller stack, the default) or "
                                                "chips."),
    tournaments: int = typer.Option(None, "--tournaments", help="Tournaments to play (default 1,000)."),
    seed: int = typer.Option(None, "--seed", help="Seed: the same seed gives the same tournaments."),
    snapshots: str = typer.Option(
        None, "--snapshots", help="Record stacks at these players left: counts, bubble, final."
    ),
    from_snapshot: Path = typer.Option(
        None, "--from-snapshot", help="Measure ICM and other models against continuations of these stacks."
    ),
    continuations: int = typer.Option(None, "--continuations", help="Continuations with --from-snapshot "
                                                                     "(default 10,000)."),
    call: str = typer.Option(None, "--call", help="With --from-snapshot: the equity CALLER needs to call JAMMER's "
                                                  "all-in (players by position from 1 or by name, e.g. 3,1), "
                                                  "simulated from --continuations of each stack state beside "
                                                  "ICM's, power ICM's (--alpha) and Malmuth-Weitzman's."),
    alpha: float = typer.Option(0.9, "--alpha", help="With --call: power ICM's exponent."),
    workers: int = typer.Option(None, "--workers", help="Local processes (default: every core)."),
    ray: str = typer.Option(None, "--ray", help="Run on Ray: local | HOST:PORT | ray://HOST:PORT."),
    checkpoint: str = typer.Option(None, "--checkpoint", help="Save finished chunks here; rerun to resume."),
    output: str = typer.Option(
        None, "--output", help="Write tournaments.parquet, snapshots.parquet and summary.json here."
    ),
    heroes: str = typer.Option(None, "--heroes", help="Decisions scored in money: hero models (deciders as in "
                                                      "--play, or charts) against --baseline heroes on the same "
                                                      "seeds, in a field playing --play."),
    baseline: str = typer.Option("icm", "--baseline", help="With --heroes: the heroes' model compared against."),
    hero_share: float = typer.Option(0.1, "--hero-share", help="With --heroes: the heroes' share of the field."),
    stage: str = typer.Option("early", "--stage", help="With --heroes: early (whole tournaments) | bubble | final "
                                                       "(continuations of --stage-snapshots field snapshots)."),
    stage_snapshots: int = typer.Option(10, "--stage-snapshots", help="With --heroes --stage bubble|final: field "
                                                                      "snapshots, each one replicate."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Simulate tournaments (coin flip, push/fold charts, simple rules) and compare equity models."""
    from pokerlab.icm import parse_payouts
    from pokerlab.simulation import load_schedule, prepare, run
    from pokerlab.simulation.analysis import compare_models
    from pokerlab.simulation.core import MAX_TOURNAMENTS, check_seed
    from pokerlab.simulation.output import check_output_directory, write_outputs

    given = [name for name, value in (("--stacks", stacks), ("--players", players),
                                      ("--from-snapshot", from_snapshot)) if value is not None]
    if len(given) != 1:
        raise InvalidArgumentError("give exactly one of --stacks, --players or --from-snapshot")
    _refuse_unused(given[0], starting_stack=starting_stack, tournaments=tournaments, continuations=continuations,
                   play=play, bet=bet)
    if call is not None:
        if from_snapshot is None:
            raise InvalidArgumentError("--call applies to --from-snapshot only (the stacks whose all-in is measured)")
        _refuse_options("--call (its continuations run in this process)", heroes=heroes, ray=ray,
                        checkpoint=checkpoint, output=output, workers=workers)
    elif alpha != 0.9:
        raise InvalidArgumentError("--alpha applies to --call only")
    for name, text in (("--output", output), ("--checkpoint", checkpoint), ("--ray", ray)):
        if text is not None and not text.strip():
            raise InvalidArgumentError(f"{name} is empty: give a {'Ray address' if name == '--ray' else 'folder'}")
    check_seed(seed)
    if ray is not None:
        from pokerlab.simulation.batch import check_ray_address

        check_ray_address(ray)  # seconds, before any work: an address that is not Ray is refused here
    pay = parse_payouts(payouts)
    stake = _parse_bet(bet or "all-in")
    if structure is not None:
        if schedule_file is not None:
            raise InvalidArgumentError("give --schedule or --structure, not both")
        if from_snapshot is not None:
            raise InvalidArgumentError("--structure applies to --players and --stacks: a snapshot continues its own "
                                       "blinds (give --schedule and --level)")
        from pokerlab.simulation.schedule import STRUCTURES

        if structure.strip() not in STRUCTURES:
            raise InvalidArgumentError(f"unknown structure {structure!r}; use one of {', '.join(STRUCTURES)}")
        structure = structure.strip()
    schedule = load_schedule(schedule_file) if schedule_file is not None else None
    output_path = None if output is None else Path(output)
    if output_path is not None:
        check_output_directory(output_path)
        if checkpoint is None:
            checkpoint = str(output_path / "checkpoint")
    bar = _Bar(not as_json, "continuations" if from_snapshot is not None else "tournaments")
    done_word = "continuations" if from_snapshot is not None else "tournaments"
    if heroes is not None:
        _refuse_options("--heroes (a decision study)", from_snapshot=from_snapshot, output=output,
                        snapshots=snapshots)
    elif stage != "early" or stage_snapshots != 10:
        raise InvalidArgumentError("--stage and --stage-snapshots apply to --heroes only (a decision study)")
    previous_term = signal.signal(signal.SIGTERM, _terminate)
    try:
        if heroes is not None:
            from pokerlab.icm.lobby import parse_stacks
            from pokerlab.simulation.study import decision_study

            chips = None if stacks is None else parse_stacks(stacks).chips
            study = decision_study(
                chips, pay, players=players, starting_stack=starting_stack, table_size=table_size,
                schedule=schedule, start_level=level or 0, field=play.strip(), baseline=baseline.strip(),
                models=tuple(m.strip() for m in heroes.split(",") if m.strip()), hero_share=hero_share,
                tournaments=100 if tournaments is None else tournaments, stage=stage.strip(),
                snapshots=stage_snapshots, seed=seed, workers=workers, ray=ray, checkpoint=checkpoint, progress=bar,
                chart_file=chart_file, **({"structure": structure} if structure is not None else {}),
            )
            bar.close()
            _show_decisions(study, as_json)
            return
        if from_snapshot is not None:
            snap = read_snapshot(from_snapshot)
            count = 10_000 if continuations is None else whole_number(continuations, "continuations", low=1,
                                                                      high=MAX_TOURNAMENTS)
            start_level = snap["level"] if level is None else level
            if call is not None:  # the thresholds validate the snapshot before their work
                _show_thresholds(_call_thresholds(call, snap, pay, count, seed, alpha, play=play, bet=stake,
                                                  schedule=schedule, start_level=start_level, table_size=table_size,
                                                  chart_file=chart_file), as_json)
                return
            pilot = prepare(stacks=snap["stacks"], payouts=pay, play=play, bet=stake, schedule=schedule,
                            start_level=start_level, table_size=table_size, names=snap["names"], chart_file=chart_file)
            _estimate(pilot, count, workers, ray, "continuations", as_json)
            comparison = compare_models(
                snap["stacks"], pay, continuations=count, play=play, bet=stake, schedule=schedule,
                start_level=start_level, table_size=table_size, seed=seed,
                workers=workers, ray=ray, checkpoint=checkpoint, progress=bar, chart_file=chart_file,
            )
            bar.close()
            _show_comparison(comparison, as_json)
            if output_path is not None:
                (output_path / "summary.json").write_text(json.dumps(comparison.to_dict(), indent=1),
                                                          encoding="utf-8")
            return
        from pokerlab.icm.lobby import parse_stacks

        parsed = None if stacks is None else parse_stacks(stacks)
        tournament = prepare(
            stacks=None if parsed is None else parsed.chips, players=players,
            starting_stack=starting_stack, table_size=table_size, payouts=pay,
            play=play, bet=stake, schedule=schedule, start_level=level or 0, snapshots=_parse_counts(snapshots),
            names=parsed.names if parsed is not None and parsed.named else None, chart_file=chart_file,
            structure=structure,
        )
        count = 1000 if tournaments is None else whole_number(tournaments, "tournaments", low=1,
                                                              high=MAX_TOURNAMENTS)
        _estimate(tournament, count, workers, ray, "tournaments", as_json, records=output_path is not None)
        result = run(tournament, count, seed=seed, workers=workers, ray=ray, checkpoint=checkpoint,
                     records=output_path is not None, progress=bar)
        bar.close()
    except KeyboardInterrupt as stop:
        bar.close()
        kept = f"finished chunks are in {checkpoint}: rerun the same command to resume" if checkpoint \
            else "nothing kept (use --checkpoint DIR to resume)"
        how = "terminated" if isinstance(stop, _Terminated) else "interrupted"
        typer.echo(f"{how} after {bar.done:,} {done_word}; {kept}", err=True)
        raise typer.Exit(code=EXIT_TERMINATED if how == "terminated" else 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous_term)
    if output_path is not None:
        write_outputs(result, output_path)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    _show_result(result)


EXIT_TERMINATED = 143  # 128 + SIGTERM, the shell's convention for a process ended by that signal


class _Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``): handled as Ctrl-C is (workers stopped, finished chunks kept), said as terminated."""

    signum = signal.SIGTERM  # raised again by the command line's hook where a finalizer would drop it


def _terminate(signum: int, frame: object) -> None:
    interrupt(signum, frame, _Terminated)


def _refuse_unused(mode: str, *, starting_stack: int | None, tournaments: int | None, continuations: int | None,
                   play: str, bet: str | None) -> None:
    """Refuse options that would do nothing in the chosen mode (``mode``: --stacks, --players or
    --from-snapshot), so that no option is silently ignored."""
    if starting_stack is not None and mode != "--players":
        raise InvalidArgumentError(f"--starting-stack applies to --players only: {mode} gives every player's chips")
    if tournaments is not None and mode == "--from-snapshot":
        raise InvalidArgumentError("--from-snapshot plays --continuations of the snapshot, not --tournaments")
    if continuations is not None and mode != "--from-snapshot":
        raise InvalidArgumentError(f"--continuations applies to --from-snapshot only: with {mode} give --tournaments")
    if bet is not None and play.strip() != "coinflip":
        raise InvalidArgumentError(f"--bet is the coin flip stake: --play {play} plays by charts, without it")


def _call_thresholds(text: str, snap: dict[str, Any], payouts: Any, continuations: int, seed: int | None,
                     alpha: float, **simulation: Any) -> list[Any]:
    """The thresholds of ``CALLER,JAMMER`` (positions from 1 or names of the snapshot)."""
    from pokerlab.simulation.thresholds import call_thresholds
    from pokerlab.stats.rng import fresh_seed

    names = snap["names"] or []
    parts = [part.strip() for part in text.split(",")]
    players = []
    for part in parts:
        if part in names:
            players.append(names.index(part))
        elif part.isdigit() and 1 <= int(part) <= len(snap["stacks"]):
            players.append(int(part) - 1)
        else:
            raise InvalidArgumentError(f"--call {text}: give CALLER,JAMMER as positions 1-{len(snap['stacks'])} "
                                       "of the snapshot" + (f" or names ({', '.join(names)})" if names else ""))
    if len(players) != 2:
        raise InvalidArgumentError(f"--call {text}: give two players, CALLER,JAMMER (e.g. 3,1)")
    if not 0 < alpha <= 4:
        raise InvalidArgumentError(f"--alpha {alpha}: give an exponent in (0, 4]")
    return call_thresholds(snap["stacks"], payouts, [(players[0], players[1])], continuations=continuations,
                           seed=fresh_seed() if seed is None else seed, alpha=alpha, **simulation)


def _show_thresholds(thresholds: list[Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([t.to_dict() for t in thresholds]))
        return
    console = Console()
    for t in thresholds:
        table = Table(title=f"equity player {t.caller + 1} needs to call player {t.jammer + 1}'s all-in of "
                            f"{t.amount:,.0f} chips")
        table.add_column("model")
        table.add_column("required equity", justify="right")
        table.add_row("simulated", f"{t.simulated:.4f} ± {Z95 * t.stderr:.4f}")
        for name, value in {**t.models, "chip-ev": 0.5}.items():
            table.add_row(name, f"{value:.4f}")
        console.print(table)


def _refuse_options(mode: str, **given: object) -> None:
    """Refuse the options ``mode`` does not use (a --heroes study plays its own batches; --call plays its three
    states in this process, nothing saved)."""
    for name, value in given.items():
        if value is not None:
            raise InvalidArgumentError(f"--{name.replace('_', '-')} does not apply to {mode}")


def _show_decisions(study: Any, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(study.to_dict()))
        return
    console = Console()
    table = Table(title=f"heroes ({study.hero_share:g} of the field) in a {study.field} field, "
                        f"{len(next(iter(study.prizes.values()))):,} paired tournaments, seed {study.seed}: "
                        f"mean prize per hero minus the {study.baseline} heroes'")
    for name in ("model", "mean prize", "difference", "95% interval", "p (Holm)"):
        table.add_column(name, justify="right")
    table.add_row(study.baseline, f"{study.prizes[study.baseline].mean():.4f}", "-", "-", "-")
    for c in study.comparisons:
        table.add_row(c.model, f"{study.prizes[c.model].mean():.4f}", f"{c.mean:+.4f}", f"{c.low:+.4f} - {c.high:+.4f}",
                      f"{c.p_holm:.3g}")
    console.print(table)


ESTIMATE_WARNING_S = 600.0  # a run estimated longer than this is announced on stderr with its estimate


def _estimate(tournament: Any, count: int, workers: int | None, ray: str | None, what: str, quiet: bool,
              records: bool = False) -> None:
    """Before the run: refuse one whose statistics would not fit in memory, compile the kernels and time one
    tournament in this process, then refuse a run estimated past a day and announce one past
    :data:`ESTIMATE_WARNING_S` (a Ray cluster's speed is not known here: its runs are only announced)."""
    from pokerlab.limits import format_duration
    from pokerlab.simulation import run
    from pokerlab.simulation.core import check_batch_memory, check_batch_time, default_workers
    from pokerlab.warmup import compile_first

    check_batch_memory(tournament, count, records, what)
    # compile first (one tournament, in this process), so that the time shown is the run's own
    compile_first([lambda: run(tournament, 1, seed=1, workers=0)], quiet=quiet)
    start = time.perf_counter()
    run(tournament, 1, seed=2, workers=0)
    each = time.perf_counter() - start
    cores = default_workers() if workers is None else max(workers, 1)
    seconds = check_batch_time(count, each, cores, what) if ray is None else count * each / cores
    if seconds > ESTIMATE_WARNING_S:
        typer.echo(f"note: {count:,} {what} should take about {format_duration(seconds)} on {cores} "
                   f"{'local ' if ray is None else ''}worker(s) (one took {each:.3g} s)", err=True)


def _show_result(result: Any) -> None:
    console = Console()
    t = result.tournament
    title = (f"{result.tournaments:,} tournaments, {result.hands:,} hands, {result.elapsed_s:.2f} s "
             f"({'per player' if t.per_player else 'per starting stack and play model'})")
    table = Table(title=title)
    if t.names is not None:
        table.add_column("player")
    for name in ("stack", "play", "players", "equity", "± stderr", "ICM", "P(1st)", "P(2nd)", "P(3rd)"):
        table.add_column(name, justify="right")
    for g in range(t.group_stack.size):
        places = [f"{result.places[g, m]:.4f}" if m < result.places.shape[1] else "-" for m in range(3)]
        icm = "-" if result.icm is None else f"{result.icm[g]:.4f}"
        label = [t.names[g]] if t.names is not None else []
        table.add_row(*label, f"{t.group_stack[g]:g}", t.group_model[g], str(int(t.group_size[g])),
                      f"{result.equity[g]:.4f}", f"{result.equity_stderr[g]:.4f}", icm, *places)
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
