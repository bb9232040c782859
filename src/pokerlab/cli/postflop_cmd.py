"""``pokerlab postflop solve``, ``show`` and ``report``: solve a no-limit hold'em river, turn or flop spot, browse a
saved solve node by node, and solve one spot over many flops."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from pokerlab.cli.common import (
    Checkpoints,
    check_output,
    command,
    command_group,
    interrupted,
    print_json,
    progress_bar,
    stderr_console,
)

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.postflop import NodeView, PostflopResult

POSTFLOP = command_group("postflop", "No-limit hold'em postflop solving: solve a river, turn or flop spot; show a "
                                     "saved solve; report one spot over many flops.")


def _show(result: PostflopResult, line: str, hand: str | None, as_json: bool, png: Path | None,
          range_of: str | None = None, style: str = "pio") -> None:
    view: NodeView = result.node(line) if line else result.root
    if png is not None:
        _grid_png(view, png)
    if range_of is not None:  # the acting player's range here, or the part taking one action, as players paste it
        text = view.range(None if range_of == "all" else range_of).export(style)
        if as_json:
            print_json({"node": view.description, "player": ("OOP", "IP")[view.player], "range_of": range_of,
                        "style": style, "range": text})
        else:
            typer.echo(text)
        return
    if as_json:
        data = result.to_dict()
        data["node"] = view.to_dict(hands=True)
        if hand:
            data["hand"] = view.hand(hand)
        print_json(data)
        return
    spec = result.spec
    rake = (f"  rake {spec['rake']:g}%" + (f" capped at {spec['rake_cap']:g}" if spec.get("rake_cap") is not None
                                           else "")) if spec.get("rake") else ""
    typer.echo(f"{spec['board']}  pot {spec['pot']}  stack {spec['stack']}{rake}  "
               f"{result.iterations} iterations, exploitability {result.exploitability_percent:.3f}% of the pot "
               f"({result.stop_reason}); EV OOP {result.ev[0]:.2f}, IP {result.ev[1]:.2f}")
    _show_locks(result)
    typer.echo(view.description)
    node = view.to_dict()
    if view.actions:
        typer.echo("  " + "  ".join(f"{a}: {100 * f:.1f}%" for a, f in view.frequencies.items()))
    if node["locked_hands"]:
        typer.echo(f"  {node['locked_hands']} of {len(view.hands)} hands here play a locked strategy")
    if node["ev"] is not None:
        typer.echo(f"  {('OOP', 'IP')[view.player]} EV {node['ev']:.2f}, equity {100 * node['equity']:.1f}%")
    if hand:
        one = view.hand(hand)
        mix = "  ".join(f"{a}: {100 * p:.1f}%" for a, p in one["strategy"].items())
        ev = "n/a" if one["ev"] is None else f"{one['ev']:.2f}"
        eq = "n/a" if one["equity"] is None else f"{100 * one['equity']:.1f}%"
        typer.echo(f"  {one['hand']}: {mix}  EV {ev}, equity {eq}" + ("  (locked)" if one["locked"] else ""))


def _show_locks(result: PostflopResult) -> None:
    """The locks of a locked solve, each player's best-response gain keeping its locks, the EVs against the
    spot's equilibrium without locks."""
    if not result.locks:
        return
    for text in result.locks:
        typer.echo(f"  lock: {text}")
    if result.gains is not None:
        typer.echo("  best-response gain keeping each player's locks: "
                   f"OOP {result.gains[0]:.3f}, IP {result.gains[1]:.3f} chips")
    gain = result.gain_over_equilibrium
    if gain is not None and result.equilibrium is not None:
        ev = result.equilibrium["ev"]
        typer.echo(f"  unlocked equilibrium EV OOP {float(ev[0]):.2f}, IP {float(ev[1]):.2f} "
                   f"({result.equilibrium['exploitability_percent']:.3f}% of the pot); gain over it "
                   f"OOP {gain['OOP']:+.2f}, IP {gain['IP']:+.2f} (within {gain['within']:.2f})")


def _grid_png(view: NodeView, path: Path) -> None:
    from pokerlab.plotting import pyplot, save_figure

    plt = pyplot()
    grid = view.grid(view.actions[0]) if view.actions else view.grid()
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.imshow(grid, vmin=0, vmax=1, cmap="viridis")
    ax.set_title(f"{view.description}\n{view.actions[0] if view.actions else ''} frequency", fontsize=8)
    ax.set_xticks([])
    ax.set_yticks([])
    save_figure(fig, path)


@command("solve", group=POSTFLOP)
def postflop_solve(
    board: str = typer.Option(..., "--board", help="Flop, turn or river: 3 to 5 cards, e.g. Td9d6h."),
    oop: str = typer.Option(..., "--oop", help="OOP's range, e.g. 'QQ-22,AQs-A2s,AKo:0.5'."),
    ip: str = typer.Option(..., "--ip", help="IP's range."),
    pot: int = typer.Option(..., "--pot", help="Starting pot (chips)."),
    stack: int = typer.Option(..., "--stack", help="Effective stack (chips)."),
    bets: str = typer.Option("33%,75%,a", "--bets", help="Bet sizes, for every street or as 'flop: 33%,a; turn: "
                                                         "50%; river: 75%' (%: of the pot, e: geometric, a: all-in)."),
    raises: str = typer.Option("2.5x,a", "--raises", help="Raise sizes, the same way (2.5x: of the bet, %: of the "
                                                          "pot after the call)."),
    add_allin: float = typer.Option(1.5, "--add-allin", help="Add all-in where it is at most this many pots."),
    force_allin: float = typer.Option(0.15, "--force-allin", help="Bet all-in where the call would leave at most "
                                                                  "this many pots behind."),
    merging: float = typer.Option(0.1, "--merging", help="Merge sizes this close (pot ratio)."),
    raise_cap: int = typer.Option(None, "--raise-cap", help="At most this many raises per street."),
    no_donk: bool = typer.Option(False, "--no-donk", help="OOP may not lead a street after calling the last."),
    rake: str = typer.Option(None, "--rake", help="Rake in % of the final pot, e.g. 5%: the winner of every pot "
                                                  "pays it, folds included."),
    rake_cap: float = typer.Option(None, "--rake-cap", help="At most this many chips of rake per pot."),
    target: str = typer.Option("0.5%", "--target", help="Stop at this exploitability (% of the pot)."),
    iterations: int = typer.Option(1000, "--iterations", help="Stop after this many iterations."),
    time_limit: float = typer.Option(None, "--time", help="Stop after this many seconds."),
    lock: list[str] = typer.Option(None, "--lock", help="Fix a node's strategy, e.g. 'line=check, bet 75%; "
                                                        "strategy=fold: 30%, call: 70%[; hands=KQs]' (* for every "
                                                        "card; repeat for more)."),
    lock_file: Path = typer.Option(None, "--lock-file", help="Locks from a file: JSON, or one --lock per line."),
    baseline: Path = typer.Option(None, "--baseline", help="With locks: a saved solve of the same spot without "
                                                          "locks to compare with (default: solved here too)."),
    no_baseline: bool = typer.Option(False, "--no-baseline", help="With locks: no unlocked solve to compare with."),
    out: Path = typer.Option(None, "--out", help="Save the solve (.npz) for 'pokerlab postflop show'."),
    checkpoint: Path = typer.Option(None, "--checkpoint", help="Keep the solver state in this file (.npz) while it "
                                                               "runs; rerun the same command to continue it."),
    checkpoint_every: str = typer.Option("60s", "--checkpoint-every", help="With --checkpoint: write it every so "
                                                                           "long ('60s', '10m') or every N "
                                                                           "iterations ('500'), and at the end."),
    compress: bool = typer.Option(False, "--compress", help="16-bit storage (int16 regrets, uint16 strategy "
                                                             "sums, a scale per node): about half the memory; "
                                                             "not with --lock."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Solve a postflop spot by discounted CFR; report its exact exploitability, EVs and the root strategy. With
    --lock, the locked nodes keep their strategy and the rest is solved against them. With --checkpoint the
    state is saved as it runs, and the same command continues it after a crash or Ctrl-C: the answer is that of
    one uninterrupted solve, bit for bit."""
    from pokerlab.errors import Interrupted, InvalidArgumentError
    from pokerlab.postflop import build_game, load, solve
    from pokerlab.postflop.lock import as_locks, read_lock_file
    from pokerlab.postflop.solve import parse_target

    check_output(out, what="--out solve file")
    check_output(checkpoint, what="--checkpoint file")
    every = Checkpoints.parse(checkpoint_every)
    parse_target(target)
    locks = (*as_locks(list(lock or [])), *(read_lock_file(lock_file) if lock_file is not None else ()))
    if (baseline is not None or no_baseline) and not locks:
        raise InvalidArgumentError("--baseline and --no-baseline compare a locked solve: give --lock too")
    if compress and locks:
        raise InvalidArgumentError("--compress does not support node locking: drop --compress or the locks")
    if baseline is not None and no_baseline:
        raise InvalidArgumentError("give --baseline or --no-baseline, not both")
    # every input checked and the size estimated before any work (the tree is built once, by the solve)
    game, _ = build_game(board, oop, ip, pot=pot, stack=stack, bets=bets, raises=raises, donk=not no_donk,
                         add_allin=add_allin, force_allin=force_allin, merging=merging, raise_cap=raise_cap,
                         rake=rake, rake_cap=rake_cap, build=False, compress=compress)
    console = stderr_console()
    console.print(f"{game.ranges[0].combo_count} x {game.ranges[1].combo_count} hands, about "
                  f"{game.memory_bytes / 2**20:,.1f} MiB of solver storage")
    if locks and baseline is None and not no_baseline:
        console.print(f"{len(locks)} lock(s): solved with them, then without them to compare (--no-baseline: not)")
    if checkpoint is not None and checkpoint.exists():
        console.print(f"continuing the checkpoint {checkpoint}", soft_wrap=True)

    def progress(iteration: int, percent: float) -> None:
        console.print(f"iteration {iteration}: exploitability {percent:.3f}% of the pot")

    try:
        result = solve(board, oop, ip, pot=pot, stack=stack, bets=bets, raises=raises, donk=not no_donk,
                       add_allin=add_allin, force_allin=force_allin, merging=merging, raise_cap=raise_cap,
                       rake=rake, rake_cap=rake_cap, target=target, iterations=iterations, time_limit=time_limit,
                       progress=None if as_json else progress, lock=locks or None,
                       baseline=load(baseline) if baseline is not None else not no_baseline,
                       checkpoint=checkpoint, checkpoint_every=every.seconds, checkpoint_iterations=every.iterations,
                       compress=compress)
    except Interrupted as stop:
        partial = stop.partial
        if out is not None and partial is not None:
            partial.save(out)  # type: ignore[attr-defined]
        interrupted(f"after {getattr(partial, 'iterations', 0)} iterations"
                    + (f", saved to {out}" if out is not None and partial is not None else "")
                    + (f"; rerun with --checkpoint {checkpoint} to continue" if checkpoint is not None else ""))
    if out is not None:
        result.save(out)
    _show(result, "", None, as_json, None)


@command("show", group=POSTFLOP)
def postflop_show(
    path: Path = typer.Argument(..., help="A solve saved by 'pokerlab postflop solve --out'."),
    line: str = typer.Option("", "--line", help="Actions from the root, e.g. 'check, bet 75%, call, Qc'."),
    hand: str = typer.Option(None, "--hand", help="One hand's strategy, EV and equity, e.g. AsKs."),
    png: Path = typer.Option(None, "--png", help="Write the node's 13x13 grid (first action) as a PNG."),
    range_of: str = typer.Option(None, "--range", help="Print the acting player's range here ('all') or the part "
                                                       "taking one action (e.g. 'bet 75%') as range text."),
    style: str = typer.Option("pio", "--style", help="--range's text: pio (AKs:0.5), gtoplus ([50]AKs[/50]) or "
                                                     "combos (AsKs:0.5, one per combo)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (every hand at the node)."),
) -> None:
    """Show one node of a saved solve: action frequencies, EV, equity, a hand's strategy, the range there."""
    from pokerlab.cards.ranges import RANGE_STYLES
    from pokerlab.errors import InvalidArgumentError
    from pokerlab.postflop import load

    check_output(png, what="--png grid")
    if style not in RANGE_STYLES:
        raise InvalidArgumentError(f"--style {style!r}: expected one of {', '.join(RANGE_STYLES)}")
    _show(load(path), line, hand, as_json, png, range_of, style)


@command("report", group=POSTFLOP)
def postflop_report(
    oop: str = typer.Option(..., "--oop", help="OOP's range, e.g. 'QQ-22,AQs-A2s,AKo:0.5'."),
    ip: str = typer.Option(..., "--ip", help="IP's range."),
    pot: int = typer.Option(..., "--pot", help="Starting pot (chips)."),
    stack: int = typer.Option(..., "--stack", help="Effective stack (chips)."),
    flops: str = typer.Option("49", "--flops", help="all (1,755 flops), a subset size (49, 95, 184, ...), or flops "
                                                    "such as 'AsKd2c QhJh9h'."),
    bets: str = typer.Option("33%,75%,a", "--bets", help="Bet sizes, as for 'postflop solve'."),
    raises: str = typer.Option("2.5x,a", "--raises", help="Raise sizes, as for 'postflop solve'."),
    no_donk: bool = typer.Option(False, "--no-donk", help="OOP may not lead a street after calling the last."),
    target: str = typer.Option("1%", "--target", help="Solve each flop to this exploitability (% of the pot)."),
    iterations: int = typer.Option(1000, "--iterations", help="At most this many iterations per flop."),
    workers: int = typer.Option(None, "--workers", help="Local processes (default: every core)."),
    ray: str = typer.Option(None, "--ray", help="Run on Ray: local | HOST:PORT | ray://HOST:PORT."),
    checkpoint: Path = typer.Option(None, "--checkpoint", help="Keep finished flops here; rerun to resume."),
    output: Path = typer.Option(None, "--output", help="Write summary.json and flops.parquet into this folder."),
    plot: bool = typer.Option(False, "--plot", help="With --output: frequencies.png, OOP's action mix by texture."),
    compress: bool = typer.Option(False, "--compress", help="16-bit storage for every flop's solve: about half "
                                                             "the memory."),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary."),
) -> None:
    """Solve one spot on many flops: each flop's root strategy, EVs, equity and exploitability, and the same
    weighted by how often each flop comes, overall and by texture."""
    from pokerlab.errors import Interrupted, InvalidArgumentError
    from pokerlab.postflop.report import TEXTURE_FIELDS, FlopReport, flop_report
    from pokerlab.simulation.output import check_output_directory

    if plot and output is None:
        raise InvalidArgumentError("--plot writes into the --output folder: give --output DIR too")
    if output is not None:
        check_output_directory(output)
    with progress_bar("flops", None, enabled=not as_json, unit="flops") as update:
        try:
            report: FlopReport = flop_report(
                oop, ip, pot=pot, stack=stack, flops=flops, bets=bets, raises=raises, donk=not no_donk,
                target=target, iterations=iterations, workers=workers, ray=ray, checkpoint=checkpoint,
                progress=lambda done, total: update(done, total=total), compress=compress)
        except Interrupted as stop:
            partial = stop.partial
            if output is not None and isinstance(partial, FlopReport) and partial.rows:
                partial.write(output, plot=plot)
            interrupted(str(stop) + (f"; the flops done are in {output}" if output is not None else ""))
    if output is not None:
        report.write(output, plot=plot)
    if as_json:
        print_json(report.to_dict())
        return
    overall = report.aggregate()["all"]
    typer.echo(f"{len(report.rows)} flops ({overall['weight']:,} of 22,100 flops represented), pot {pot}, "
               f"stack {stack}; worst exploitability {overall['exploitability_percent_max']:.2f}% of the pot")
    header = f"{'':28}{'flops':>6}" + "".join(f"{a:>14}" for a in report.actions) + f"{'OOP EV':>9}{'OOP eq':>8}"
    typer.echo(header)
    for field in (None, *TEXTURE_FIELDS):
        for key, values in report.aggregate(field).items():
            name = key if field is None else f"{field}: {key}"
            typer.echo(f"{name:28}{values['flops']:>6}"
                       + "".join(f"{100 * values['frequencies'][a]:>13.1f}%" for a in report.actions)
                       + f"{values['oop_ev']:>9.2f}{100 * values['oop_equity']:>7.1f}%")
