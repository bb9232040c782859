"""``pokerlab pushfold``: Nash jam/call charts of every seat under chip EV or ICM, and the heads-up chart."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.cli.common import check_output, command, interrupted
from pokerlab.errors import InvalidArgumentError
from pokerlab.limits import HEADS_UP_TARGET, MULTIWAY_DEALS, MULTIWAY_TARGET

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.pushfold import PushFoldResult


def _blinds(text: str) -> list[float]:
    """Small and big blind as a lobby writes them: ``50/100``, ``1,000/2,000``, or a list as for stacks
    (``0.5,1``; thousands separators as in :mod:`pokerlab.icm.lobby`)."""
    from pokerlab.icm.lobby import parse_amount, split_amounts

    tokens = text.split("/") if "/" in text else split_amounts(text, InvalidArgumentError, "blinds", between="blinds")
    return [parse_amount(token.strip(), InvalidArgumentError, "blind") for token in tokens]


def _labelled(result: PushFoldResult, names: tuple[str, ...]) -> PushFoldResult:
    """The result with each seat shown as ``position name`` (``BTN alice``) in tables, JSON and charts, where
    the stacks named their players."""
    seats = tuple(f"{seat} {name}" for seat, name in zip(result.seats, names, strict=True))
    return dataclasses.replace(result, seats=seats)


# payouts that rise with place are refused here: the push/fold model has no option to accept them
PUSHFOLD_WORDS = {"(allow_rising=True if they really rise)": "(push/fold takes no rising payouts)"}


@command("pushfold", vocabulary=PUSHFOLD_WORDS)
def pushfold_command(
    stacks: str = typer.Option(None, "--stacks", help="Chips per seat in acting order (UTG .. BB), as for icm: 10,10 "
                                                      "or '5,000 3,000'; names as 'alice:5,000 bob:3,000'."),
    blinds: str = typer.Option("0.5,1", "--blinds", help="Small and big blind in chips: 0.5,1 or 50/100."),
    ante: str = typer.Option("0", "--ante", help="Ante per seat (chips); with --chart full-ring the ante rule: none, "
                             "10% or 12.5% (of the big blind from every seat) or bb (a big-blind ante, "
                             "heads-up)."),
    bb_ante: float = typer.Option(0.0, "--bb-ante", help="Big-blind ante (chips, paid by the big blind)."),
    payouts: str = typer.Option(None, "--payouts", help="Payouts per place (ICM) as for icm: 50,30,20 | a split of "
                                "--pool 70/30, 50%,30%,20% | power:a=1,pool=1000,paid=40 | file.csv"),
    pool: str = typer.Option(None, "--pool", help="Prize pool that a percentage split (70/30) or power:/flat: "
                             "divides (default 100 for splits, 1000 for power/flat)."),
    field_file: Path = typer.Option(None, "--field-stacks-file", help="Stacks of the other tables' players: a file "
                                    "as for icm --stacks-file."),
    target: float = typer.Option(None, "--target", help="Stop when every best-response gain is at most this "
                                 "(bb; ICM: money worth this many bb; default 1e-5 heads-up, 1e-3 with 3+ seats)."),
    iterations: int = typer.Option(None, "--iterations", help="Stop after this many solver iterations."),
    time_limit: float = typer.Option(None, "--time", help="Stop after this many seconds."),
    samples: int = typer.Option(MULTIWAY_DEALS, "--multiway-samples", help="Deals evaluating each 3+ way all-in."),
    chart: str = typer.Option(None, "--chart", help="'heads-up': the heads-up chip-EV table over --depths; "
                              "'full-ring': the shipped equal-stack charts of --seats seats (chip EV; ICM: --icm)."),
    depths: str = typer.Option("1-20", "--depths", help="Depths (bb) of --chart, e.g. 1-20 (full-ring: the nearest "
                               "shipped depths)."),
    seats: int = typer.Option(9, "--seats", help="Seats of --chart full-ring (2-10)."),
    icm_stage: str = typer.Option(None, "--icm", help="With --chart full-ring: the shipped ICM charts (3-10 equal "
                                  "stacks, no ante) of a 'final' table (every seat paid) or the 'bubble' (one "
                                  "seat fewer paid); their payouts are printed."),
    csv_path: Path = typer.Option(None, "--csv", help="With --chart full-ring: write the charts as CSV here."),
    overcalls: bool = typer.Option(False, "--overcalls", help="With --chart full-ring: also the over-call ranges "
                                   "(facing a jam and a call), printed and in --json and --csv."),
    png: Path = typer.Option(None, "--png", help="Write PNG charts into this directory."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    # knockout bounties (pokerlab.pushfold.situation.BountyPayoff)
    bounty: str = typer.Option(None, "--bounty", help="Knockout bounty on every head (10) or one per seat (10,5,12): "
                               "money under ICM, big blinds under chip EV."),
    pko: bool = typer.Option(False, "--pko", help="Progressive knockout: --pko-share of a bounty to the buster, "
                             "the rest onto his head."),
    pko_share: float = typer.Option(None, "--pko-share", help="The part of a PKO bounty paid in cash (default 0.5)."),
    fgs_depth: int = typer.Option(0, "--fgs-depth", help="FGS: value the outcomes with this many more hands "
                                  "played out (1-4; blinds and button move, then ICM; needs --payouts) and compare "
                                  "the charts with ICM's. 0: ICM."),
) -> None:
    """Push/fold Nash ranges: jam first in and call a jam, per seat, under chip EV or ICM."""
    from pokerlab.pushfold.charts import parse_depths

    if png is not None:  # the output folder is checked (and made, in a folder that exists) before any work
        if png.exists() and not png.is_dir():
            raise InvalidArgumentError(f"--png needs a directory, {png} is a file")
        check_output(png / "chart.png" if png.is_dir() else png, what="--png chart folder")
        png.mkdir(exist_ok=True)  # not its parents: a mistyped path is refused, not made
    console = Console(stderr=True)
    if chart is not None:
        if chart == "full-ring":
            _full_ring(seats, ante, parse_depths(depths), png, as_json, csv_path, icm_stage, overcalls)
            return
        if chart != "heads-up":
            raise InvalidArgumentError(f"unknown chart {chart!r}: use --chart heads-up or --chart full-ring")
        if icm_stage is not None:
            raise InvalidArgumentError("--icm selects the shipped full-ring ICM charts: use it with --chart full-ring")
        _heads_up(parse_depths(depths), target if target is not None else HEADS_UP_TARGET, png, as_json)
        return
    if stacks is None:
        raise InvalidArgumentError("give the stacks with --stacks, e.g. --stacks 10,10 (or --chart heads-up)")
    from pokerlab.errors import InvalidPayoutsError
    from pokerlab.icm import parse_payouts
    from pokerlab.icm.lobby import parse_amount, parse_stacks, read_stacks_file
    from pokerlab.pushfold import pushfold
    from pokerlab.warmup import compile_first

    players = parse_stacks(stacks)
    ante_chips = _ante_chips(ante)
    # knockout bounties: checked here (the façade checks the values)
    from pokerlab.icm.bounty import parse_bounties

    if pko_share is not None and not pko:
        raise InvalidArgumentError("--pko-share applies to a progressive knockout: add --pko")
    if bounty is None and pko:
        raise InvalidArgumentError("--pko needs bounties: give --bounty")
    knockout: dict[str, Any] = {} if bounty is None else {
        "bounty": parse_bounties(bounty), "pko": (True if pko_share is None else pko_share) if pko else False}
    prize_pool = None if pool is None else parse_amount(pool, InvalidPayoutsError, "prize pool")
    if prize_pool is not None and payouts is None:
        raise InvalidArgumentError("--pool divides the --payouts: give --payouts too (e.g. --payouts 70/30)")
    pay = parse_payouts(payouts, pool=prize_pool) if payouts is not None else None
    field = parse_stacks(read_stacks_file(field_file)).chips.tolist() if field_file is not None else None
    show = not as_json and sys.stderr.isatty()
    stack_list, blind_list = players.chips.tolist(), _blinds(blinds)
    from pokerlab.limits import check_multiway_deals

    check_multiway_deals(len(stack_list), samples)  # before the warm-up solve, which samples fewer
    from pokerlab.pushfold.solve import check_fgs, needs_kernels

    fgs_depth = check_fgs(fgs_depth, len(stack_list), pay, field)
    if target is None:
        target = HEADS_UP_TARGET if len(stack_list) == 2 else MULTIWAY_TARGET
    # compile first (one iteration of the same game), so that the time shown is the solve's own; a heads-up table
    # solved in plain numpy has no kernel to compile
    if needs_kernels(stack_list, blind_list, ante=ante_chips, bb_ante=bb_ante, payouts=pay, field=field,
                     fgs_depth=fgs_depth, **knockout):
        compile_first([lambda: pushfold(stack_list, blind_list, ante=ante_chips, bb_ante=bb_ante, payouts=pay,
                                        field=field, iterations=1, multiway_samples=min(samples, 20),
                                        real_game_deals=200, fgs_depth=min(fgs_depth, 1), **knockout)],
                      quiet=as_json)
    with Progress(TextColumn("pushfold"), BarColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=console, disable=not show, transient=True) as bar:
        task = bar.add_task("", total=1.0)
        first: list[float] = []

        def progress(done: int, gain: float) -> None:
            first.append(gain)
            span = math.log(max(first[0], gain * 1.0001) / target) if first[0] > target else 1.0
            fraction = 1.0 - math.log(max(gain, target) / target) / span if span > 0 else 1.0
            bar.update(task, completed=min(1.0, max(0.0, fraction)),
                       description=f"{done:,} it, max gain {gain:.2e}")

        result = pushfold(stack_list, blind_list, ante=ante_chips, bb_ante=bb_ante,
                          payouts=pay, field=field, target=target, iterations=iterations,
                          time_limit=time_limit, multiway_samples=samples, progress=progress, fgs_depth=fgs_depth,
                          **knockout)
    stopped = result.stop_reason == "interrupted"
    if stopped and result.iterations == 0:
        interrupted("before the first iteration: no strategy yet")
    if players.named:
        result = _labelled(result, players.names)
    written = []
    if png is not None:
        from pokerlab.pushfold.charts import result_pngs

        written = result_pngs(result, png)
    fgs_changes = None
    if fgs_depth > 0 and not stopped:  # FGS against ICM: the same table solved under ICM, its charts compared
        from pokerlab.pushfold.solve import chart_changes

        icm_result = pushfold(stack_list, blind_list, ante=ante_chips, bb_ante=bb_ante, payouts=pay, target=target,
                              iterations=iterations, time_limit=time_limit, multiway_samples=samples)
        if icm_result.stop_reason != "interrupted":
            fgs_changes = chart_changes(icm_result, result)
    if as_json:
        typer.echo(json.dumps(result.to_dict() | ({"fgs_comparison": fgs_changes} if fgs_changes else {})))
    else:
        compared = _print_result(result, compare_chip_ev=pay is not None and not stopped and fgs_depth == 0)
        if fgs_changes is not None:
            _print_fgs_changes(fgs_changes, result)
        for path in written:
            typer.echo(f"wrote {path}")
        if not compared and pay is not None and not stopped:
            interrupted("during the chip EV comparison: the ICM strategy above is complete")
    if stopped:
        interrupted(f"after {result.iterations} iterations: the strategy above has a maximum best-response gain of "
                    f"{result.max_gain:.3g} {result.gain_unit}")


def _print_fgs_changes(changes: dict[str, Any], result: PushFoldResult) -> None:
    """The hands FGS plays differently from ICM, per jam and call chart, and the seat values of both."""
    out = Console()
    out.print(f"\n[bold]FGS depth {changes['fgs_depth']} against ICM[/bold] (hands played with probability >= "
              f"{changes['threshold']:g} under one model only; seat values in money)")
    out.print("ICM values: " + ", ".join(f"{s} {v:.4f}" for s, v in zip(result.seats, changes["icm_values"],
                                                                        strict=True)))
    out.print("FGS values: " + ", ".join(f"{s} {v:.4f}" for s, v in zip(result.seats, changes["fgs_values"],
                                                                        strict=True)))
    for kind, verb in (("jam", "jams"), ("call", "calls")):
        for who, change in changes[kind].items():
            words = [f"+{', +'.join(change['added'])}" if change["added"] else "",
                     f"-{', -'.join(change['removed'])}" if change["removed"] else ""]
            shown = "; ".join(w for w in words if w) or "no change"
            label = who if kind == "jam" else who.replace(" vs ", " calling ")
            out.print(f"{label} {verb} {change['icm_pct']:.1f}% under ICM, {change['fgs_pct']:.1f}% under FGS: "
                      f"{shown}")


def _print_result(result: PushFoldResult, compare_chip_ev: bool) -> bool:
    """Print the charts (and, if asked, which hands chip EV plays differently); False when Ctrl-C stopped the
    chip EV solve of the comparison (the charts are printed without it)."""
    from pokerlab.pushfold.charts import grid_text

    out = Console()
    bb = result.big_blind
    out.print(f"push/fold {result.model}: {len(result.seats)} seats, stacks "
              f"{', '.join(f'{s} {x / bb:g}bb' for s, x in zip(result.seats, result.stacks, strict=True))}; "
              f"{result.iterations} discounted CFR iterations, {result.elapsed_s:.2f} s, "
              f"stopped on {result.stop_reason}")
    if result.bounties is not None:
        kind = ("knockout" if result.bounties.share == 1.0 else
                f"progressive knockout ({result.bounties.share:g} to the buster, the rest onto his head)")
        out.print(f"{kind} bounties ({'bb' if result.model == 'chipev' else 'money'}): "
                  + ", ".join(f"{s} {h:g}" for s, h in zip(result.seats, result.bounties.heads, strict=True))
                  + "; values include bounties won in the hand and expected after it")
    gains = ", ".join(f"{s} {g:.2e}" for s, g in zip(result.seats, result.gains, strict=True))
    out.print(f"best-response gains ({result.gain_unit}): {gains}; max {result.max_gain:.2e}")
    if len(result.seats) > 2:
        out.print(f"3+ way all-ins: {result.multiway_samples} sampled deals, value standard error <= "
                  f"{100 * result.multiway_error:.1f}% of the payoff range")
        if result.multiway_check_gain is not None:
            out.print(f"  valued on {result.multiway_samples} independent deals, the strategy's max gain is "
                      f"{result.multiway_check_gain:.2e} {result.gain_unit} (the sampling's effect)")
    if result.values:
        how = ("exact" if len(result.seats) == 2 else
               f"in the real game, {result.real_game.deals:,} joint deals" if result.real_game is not None else
               "the solver's model")
        shown = ", ".join(f"{s} {v:.4f}" + (f" +- {e:.1e}" if e else "")
                          for s, v, e in zip(result.seats, result.values, result.value_errors, strict=True))
        out.print(f"seat values ({result.gain_unit}, {how}): {shown}; sum {sum(result.values):.6f}")
    if result.real_game is not None:
        real = result.real_game
        shown = ", ".join(f"{s} {g:.2e} +- {e:.1e}" for s, g, e in zip(result.seats, real.gains, real.gain_errors,
                                                                      strict=True))
        verdict = ("OVER TARGET at " + ", ".join(result.seats[i] for i in result.over_target) if result.over_target
                   else "all within the target")
        out.print(f"best-response gains in the real game ({result.gain_unit}): {shown}; {verdict} "
                  f"({result.target:.2e}); cross-fitted, at most the true gain in expectation; chosen and measured "
                  f"on the same deals, at least it: "
                  + ", ".join(f"{s} {g:.2e}" for s, g in zip(result.seats, real.upper_gains, strict=True)))
    for note in result.notes:
        out.print(f"note: {note}")
    chip = _chip_ev_charts(result) if compare_chip_ev else None
    for seat, name in enumerate(result.seats):
        if np.isnan(result.jam[seat, 0]):
            continue
        out.print(f"\n[bold]{name}[/bold] jams first in {result.percent(result.jam[seat]):.1f}% (percent per class)")
        out.print(grid_text(100 * result.jam[seat]), highlight=False)
        edge = result.ev_jam[seat] - result.ev_fold[seat]
        close = np.argsort(np.abs(edge))[:5]
        from pokerlab.pushfold import CLASS_NAMES

        out.print("closest decisions (EV jam - fold, " + result.gain_unit + "): "
                  + ", ".join(f"{CLASS_NAMES[c]} {edge[c]:+.4f}" for c in close))
        if chip is not None:
            changed = [CLASS_NAMES[c] for c in range(169) if abs(chip.jam[seat, c] - result.jam[seat, c]) >= 0.5]
            out.print(f"chip EV jams {chip.percent(chip.jam[seat]):.1f}%; hands that change under ICM: "
                      + (", ".join(changed) if changed else "none"))
    for (caller, jammer), probs in sorted(result.call.items()):
        out.print(f"\n[bold]{result.seats[caller]}[/bold] calls a {result.seats[jammer]} jam "
                  f"{result.percent(probs):.1f}%")
        out.print(grid_text(100 * probs), highlight=False)
        if chip is not None:
            from pokerlab.pushfold import CLASS_NAMES

            other = chip.call[(caller, jammer)]
            changed = [CLASS_NAMES[c] for c in range(169) if abs(other[c] - probs[c]) >= 0.5]
            out.print(f"chip EV calls {chip.percent(other):.1f}%; hands that change under ICM: "
                      + (", ".join(changed) if changed else "none"))

    return chip is not None or not compare_chip_ev

@dataclasses.dataclass(frozen=True)
class _ChipCharts:
    """The chip EV solution's charts that the ICM comparison shows."""

    jam: np.ndarray
    call: dict[tuple[int, int], np.ndarray]
    class_sizes: np.ndarray

    def percent(self, probabilities: np.ndarray) -> float:
        return float(100.0 * probabilities @ self.class_sizes / 1326.0)


def _solve_chip_ev(stacks: list[float], blinds: tuple[float, float], ante: float, bb_ante: float, iterations: int,
                   samples: int, in_process: bool = False
                   ) -> tuple[np.ndarray, dict[tuple[int, int], np.ndarray]] | None:
    """In the comparison's process (or in this one): the chip EV charts of the table (None if it was stopped)."""
    import signal

    from pokerlab.pushfold import pushfold

    if not in_process:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C, by ending this process
    chip = pushfold(stacks, blinds, ante=ante, bb_ante=bb_ante, target=1e-3, iterations=iterations,
                    multiway_samples=samples, check_sampling=False)
    return None if chip.stop_reason == "interrupted" else (chip.jam, chip.call)


def _chip_ev_charts(result: PushFoldResult) -> _ChipCharts | None:
    """The chip EV charts of ``result``'s table, solved in another process (spawned: the kernels' OpenMP runtime
    forbids fork), so that Ctrl-C ends the comparison at once (building a 9-seat game holds Ctrl-C for seconds
    inside its kernels); None when Ctrl-C stopped it."""
    from pokerlab.pushfold.solve import needs_kernels

    table = result.table
    blinds = (table.small_blind, table.big_blind)
    if not needs_kernels(list(result.stacks), blinds, ante=table.ante, bb_ante=table.bb_ante):
        try:  # heads-up in plain numpy: milliseconds, and Ctrl-C stops it at once, in this process
            solved = _solve_chip_ev(list(result.stacks), blinds, table.ante, table.bb_ante, result.iterations,
                                    result.multiway_samples, in_process=True)
        except KeyboardInterrupt:
            return None
        return None if solved is None else _ChipCharts(solved[0], solved[1], result.class_sizes)
    from concurrent.futures import ProcessPoolExecutor  # only where a process is spawned: the import costs 10-20 ms
    from multiprocessing import get_context

    executor = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
    try:
        solved = executor.submit(_solve_chip_ev, list(result.stacks), (table.small_blind, table.big_blind),
                                 table.ante, table.bb_ante, result.iterations, result.multiway_samples).result()
    except KeyboardInterrupt:
        from pokerlab.simulation.batch import kill_pool

        # wait for the pool's manager thread, which ends as soon as it sees the killed process: left running, it
        # can close its wake-up pipe while the exit hook of concurrent.futures writes to it (a traceback at exit)
        kill_pool(executor, wait=True)
        return None
    executor.shutdown(wait=True)
    return None if solved is None else _ChipCharts(solved[0], solved[1], result.class_sizes)


def _ante_chips(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InvalidArgumentError(f"--ante takes chips per seat (e.g. 0.1), got {text!r}; the ante rules "
                                   "none/10/12.5/bb are for --chart full-ring") from None


def _full_ring(seats: int, ante: str, depths: list[float], png: Path | None, as_json: bool,
               csv_path: Path | None, icm_stage: str | None = None, overcalls: bool = False) -> None:
    import csv

    from pokerlab.pushfold.charts import grid_text, save_depth_png
    from pokerlab.pushfold.fullring_charts import ante_rule, full_ring_table, overcall_triples, real_game_dict
    from pokerlab.pushfold.fullring_deeper import deeper_reading_dict

    rule = ante_rule({"0.0": "none"}.get(ante, ante))
    if icm_stage is not None and rule != "none":
        raise InvalidArgumentError("the shipped ICM charts have no ante: leave out --ante with --icm")
    if csv_path is not None:
        check_output(csv_path, what="--csv file")
    if icm_stage is None:
        table = full_ring_table(seats, rule, depths)
        data = table.to_dict(overcalls)
        for chart_data, chart in zip(data["charts"], table.charts, strict=True):
            chart_data["real_game"] = real_game_dict(chart)
            chart_data["deeper_reading"] = deeper_reading_dict(chart)
        tag, units, what = rule, "bb", f"ante rule {rule}, chip EV"
        goal = data["model"]["target_bb"]["heads_up" if seats == 2 else "multiway"]
        goals = [goal] * len(table.charts)
    else:
        from pokerlab.pushfold.fullring_icm import money_target
        from pokerlab.pushfold.fullring_icm_charts import icm_real_game_dict, icm_ring_table

        icm_table = icm_ring_table(seats, icm_stage, depths)
        table, data = icm_table.table, icm_table.to_dict(overcalls)
        for chart_data, chart in zip(data["charts"], table.charts, strict=True):
            chart_data["real_game"] = icm_real_game_dict(chart, icm_table.stage)
        tag, units = f"icm-{icm_table.stage}", "money"
        what = (f"ICM {'final table' if icm_table.stage == 'final' else 'bubble'}, payouts "
                f"{'/'.join(f'{p:g}' for p in icm_table.payouts)} (the pool 100), no ante")
        goals = [money_target(seats, c.depth_bb) for c in table.charts]
    names = table.charts[0].seats
    top = max(table.depths)
    written = []
    if png is not None:
        for s, name in enumerate(names):
            if not np.isnan(table.jam_depth[s, 0]):
                written.append(save_depth_png(table.jam_depth[s], f"{name} jams first in up to (bb)",
                                              png / f"full-ring-{seats}-{tag}-jam-{name}.png", top))
        big_blind = len(names) - 1
        for j, name in enumerate(names):
            if not np.isnan(table.call_depth[big_blind, j, 0]):
                written.append(save_depth_png(table.call_depth[big_blind, j], f"BB calls a {name} jam up to (bb)",
                                              png / f"full-ring-{seats}-{tag}-BB-calls-{name}.png", top))
    if csv_path is not None:
        with csv_path.open("w", newline="") as handle:
            out_csv = csv.writer(handle)
            out_csv.writerow(["seat", "action", "depth_bb", "class", "probability"])
            out_csv.writerows(table.csv_rows(overcalls))
        written.append(csv_path)
    if as_json:
        typer.echo(json.dumps(data))
        return
    out = Console()
    model = data["model"]
    out.print(f"full-ring push/fold, {seats} seats, {what}; shipped depths "
              f"{', '.join(f'{d:g}' for d in table.depths)} bb (nearest to those asked); {model['model']}; "
              f"largest gain {max(float(np.nanmax(c.gains)) for c in table.charts):.1e} {units} in the chart model "
              f"(code {model['code_version']})", highlight=False)
    missing: dict[str, list[float]] = {}
    for asked, _, why in table.not_shipped():
        missing.setdefault(why, []).append(asked)
    for why, listed in missing.items():
        out.print(f"not shipped ({why}; the nearest shipped depth is shown): {_spans(listed)} bb", highlight=False)
    over = [f"{c.depth_bb:g} bb ({float(np.nanmax(c.gains)):.1e} > {g:.1e})"
            for c, g in zip(table.charts, goals, strict=True) if np.nanmax(c.gains) > g]
    if over:
        out.print(f"above the target (stopped at the iteration cap; largest gain, {units}): {', '.join(over)}",
                  highlight=False)
    out.print(_real_game_line(data["charts"], units), highlight=False)
    better = [(c["depth_bb"], c["deeper_reading"]) for c in data["charts"]
              if c.get("deeper_reading", {}).get("better")]
    if better:
        out.print("played at their own depth, deeper charts measured better in the real game (largest gain, bb): "
                  + ", ".join(f"at {d:g} bb the {r['depth_bb']:g} bb chart {max(r['gains_low_bb']):.1e} against "
                              f"{r['own_largest_gain_bb']:.1e}" for d, r in better)
                  + " (the chart model is too loose at these short spots: docs/algorithms.md, \"Full-ring charts\")",
                  highlight=False)
    for s, name in enumerate(names):
        if not np.isnan(table.jam_depth[s, 0]):
            out.print(f"{name} jams first in up to this many bb (0: never):")
            out.print(grid_text(table.jam_depth[s], "{:3g}"), highlight=False)
    for c, caller in enumerate(names):
        for j, jammer in enumerate(names):
            if not np.isnan(table.call_depth[c, j, 0]):
                out.print(f"{caller} calls a lone {jammer} jam up to this many bb (0: never):")
                out.print(grid_text(table.call_depth[c, j], "{:3g}"), highlight=False)
    if overcalls:
        if table.overcall_depth is None:
            out.print("over-call ranges: not shipped for these charts (facing a jam and a call, a player calls by the "
                      "lone-jam chart)", highlight=False)
        else:
            withheld = [c.depth_bb for c in table.charts if c.overcalls_withheld]
            if withheld:
                out.print(f"over-call ranges withheld at {_spans(withheld)} bb (short spots whose solve stopped above "
                          "its target, where they measure worse in the real game): the grids read the lone-jam chart "
                          "there, as a player does", highlight=False)
            for c, j, f in overcall_triples(len(names)):
                out.print(f"{names[c]} calls a {names[j]} jam and a {names[f]} call up to this many bb (0: never):")
                out.print(grid_text(table.overcall_depth[c, j, f], "{:3g}"), highlight=False)
    for path in written:
        out.print(f"wrote {path}")


def _real_game_line(charts: list[dict[str, Any]], units: str) -> str:
    """One line on the shown charts (their JSON, ``real_game`` included, its gains in ``units``: bb or money) played
    in the real game: the largest gain, bracketed (see :mod:`pokerlab.pushfold.fullring_real`), or why it is not
    measured."""
    measured = [c for c in charts if c["real_game"]["measured"]]
    if not measured:
        return f"real game: not measured ({charts[0]['real_game']['why']})"
    low, high = f"gains_low_{units}", f"gains_high_{units}"
    chart = max(measured, key=lambda c: max(c["real_game"][low]))
    real = chart["real_game"]
    seat = int(np.argmax(real[low]))
    how = ("exact" if real["deals"] == 0 else
           f"{real['deals']:,} joint deals, cross-fitted +- {real[f'gains_low_stderr_{units}'][seat]:.1e}")
    held = ("with their over-call ranges" if all(c["overcalls_shipped"] for c in charts)
            else "over-calls by the lone-jam chart where their ranges are not shipped")
    return (f"in the real game, the charts as a player reads them ({held}): largest gain "
            f"{real[low][seat]:.1e} {units} ({chart['seats'][seat]} at {chart['depth_bb']:g} bb; {how}; the "
            f"in-sample estimate, at least the true gain in expectation: {real[high][seat]:.1e}); every "
            f"spot's in the --json output")


def _spans(depths: list[float]) -> str:
    """Depths as runs of whole steps: ``[1, 2, 3, 5, 7.5]`` -> ``'1-3, 5, 7.5'``."""
    runs: list[list[float]] = []
    for depth in sorted(depths):
        if runs and depth - runs[-1][-1] == 1.0:
            runs[-1].append(depth)
        else:
            runs.append([depth])
    return ", ".join(f"{r[0]:g}-{r[-1]:g}" if len(r) > 2 else ", ".join(f"{d:g}" for d in r) for r in runs)


def _heads_up(depths: list[float], target: float, png: Path | None, as_json: bool) -> None:
    from pokerlab.pushfold.charts import grid_text, heads_up_chart, save_depth_png

    chart = heads_up_chart(depths, target=target)  # plain numpy at every depth: no kernel to compile
    written = []
    if png is not None:
        top = max(depths)
        written = [save_depth_png(chart.jam_depth, "SB jams up to (bb)", png / "heads-up-jam.png", top),
                   save_depth_png(chart.call_depth, "BB calls up to (bb)", png / "heads-up-call.png", top)]
    if as_json:
        typer.echo(json.dumps(chart.to_dict()))
        return
    out = Console()
    out.print(f"heads-up chip EV push/fold, blinds 0.5/1, no ante; {len(depths)} depths in {chart.elapsed_s:.2f} s, "
              f"max gain {max(chart.max_gain):.1e} bb")
    out.print("SB jams up to this many bb (0: never):")
    out.print(grid_text(chart.jam_depth, "{:3g}"), highlight=False)
    out.print("BB calls up to this many bb (0: never):")
    out.print(grid_text(chart.call_depth, "{:3g}"), highlight=False)
    for path in written:
        out.print(f"wrote {path}")
