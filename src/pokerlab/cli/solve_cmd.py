"""``pokerlab solve``, ``exploitability``, ``rps`` and ``export``: the CFR solving engine on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from pokerlab.cli.common import (
    CHECKPOINT_HELP,
    JSON_OPTION,
    Checkpoints,
    check_output,
    command,
    interrupted,
    print_json,
    progress_bar,
)
from pokerlab.errors import Interrupted, InvalidArgumentError
from pokerlab.games.registry import SOLVE, game_names
from pokerlab.io import write_text_atomically
from pokerlab.plotting import figure_path

# the solver's algorithms, for the help text without importing the compiled solver (a bad --out is refused
# before numba loads); tests/cli/test_lazy_commands.py checks it against pokerlab.solvers.core.ALGORITHMS
ALGORITHM_NAMES = ("cfr", "cfr+", "lcfr", "dcfr", "es-mccfr", "os-mccfr")


@command("solve")
def solve_command(
    game: str = typer.Argument(..., help=f"Game: {', '.join(game_names(SOLVE))}."),
    algo: str | None = typer.Option(None, "--algo", help=f"Algorithm: {'|'.join(ALGORITHM_NAMES)} (default cfr+; "
                                    "with --resume, the saved one)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n",
                                          help="Total iterations to reach, counting a resumed run's (default 1000 "
                                               "for a new run, 1000 more with --resume)."),
    target: float | None = typer.Option(None, "--target-exploitability",
                                        help="Stop when the exploitability (chips/game) is at most this."),
    seconds: float | None = typer.Option(None, "--time", help="Stop after this many seconds."),
    out: Path | None = typer.Option(None, "--out", help="Save the solver state (.npz) to resume or export "
                                    "(default with --resume: the resumed file, which then holds the continued run)."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue a saved solver state (.npz) of the same "
                                       "GAME; its algorithm, parameters, iterations and random state are kept."),
    checkpoint_every: str = typer.Option("60s", "--checkpoint-every", help=CHECKPOINT_HELP),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the Monte Carlo variants (not with --resume)."),
    alpha: float | None = typer.Option(None, "--alpha", help="lcfr/dcfr only: positive-regret discount exponent, "
                                       "in [0, 10]."),
    beta: float | None = typer.Option(None, "--beta", help="lcfr/dcfr only: negative-regret discount exponent, "
                                      "in [-10, 10]."),
    gamma: float | None = typer.Option(None, "--gamma", help="cfr/cfr+/lcfr/dcfr only: average-strategy weight "
                                       "exponent (t^gamma), in [0, 10]."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Solve GAME with a CFR-family algorithm and report the exploitability of the average strategy."""
    out = out if out is not None or resume is None else resume
    check_output(out)  # before the solver (and numba) loads: a mistyped path costs a blink
    checkpoints = Checkpoints.parse(checkpoint_every)
    from pokerlab.solvers.core import SolveProgress, Solver, algorithm_config, solve
    from pokerlab.warmup import compile_first

    overrides = {k: v for k, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)) if v is not None}
    if overrides and resume is not None:
        raise InvalidArgumentError("--alpha/--beta/--gamma cannot change a resumed run (its flags are saved)")
    if seed is not None and resume is not None:
        raise InvalidArgumentError("--seed cannot be given with --resume (the saved random state continues)")
    if resume is None and iterations is None and target is None and seconds is None:
        iterations = 1000
    config = algorithm_config(algo or "cfr+", **overrides)
    if resume is not None:
        solver = Solver.load(resume)
        resumed_from: int | None = solver.iteration
        check_game: str | None = game
        check_algo = config if algo is not None else None
    else:
        solver, resumed_from = Solver(game, config, seed=seed), None
        check_game = check_algo = None
    # compile first (two iterations of a fresh solver of the same game and algorithm), then time the run
    compile_first([lambda: solve(solver.game, solver.config, iterations=2)], quiet=as_json)
    with progress_bar(f"{solver.game.name} {solver.config.name}", iterations, enabled=not as_json) as update:

        def report(p: SolveProgress) -> None:
            text = f"exploitability {p.exploitability:.3e}" if p.exploitability is not None else ""
            update(p.iteration, p.total, status=text)
            if out is not None and checkpoints.due(p.iteration):
                solver.save(out)

        try:
            result = solve(check_game, check_algo, iterations=iterations, target_exploitability=target,
                           time_limit=seconds, resume=solver, progress=report)
        except Interrupted as stop:
            saved = f"; saved to {out} (continue with --resume {out})" if out is not None else ""
            if out is not None:
                solver.save(out)
            value = solver.exploitability().exploitability
            interrupted(f"{stop}: exploitability {value:.4g} chips/game{saved}")
    if out is not None:
        result.solver.save(out)
    if as_json:
        data = result.to_dict()
        if resumed_from is not None:
            data["resumed_from"] = resumed_from
        if out is not None:
            data["out"] = str(out)
        print_json(data)
        return
    table = Table(title=f"{result.game}: {result.algorithm}", show_header=False)
    resumed = f" ({result.iterations - resumed_from:,} now, resumed from {resumed_from:,})" if resumed_from else ""
    table.add_row("iterations", f"{result.iterations:,}{resumed}")
    table.add_row("exploitability", f"{result.exploitability:.6g} chips/game ({result.mbb_per_game:.4g} mbb/game)")
    table.add_row("game value (player 1)", f"{result.game_value:+.6f} chips/game")
    table.add_row("time", f"{result.elapsed_s:.3f} s")
    sizes = result.solver.game.sizes
    table.add_row("tree", f"{sizes.histories:,} histories, {sizes.decision_nodes:,} decision nodes, "
                          f"{sizes.infosets:,} infosets")
    if out is not None:
        table.add_row("saved", str(out))
    Console().print(table)


@command("exploitability")
def exploitability_command(
    file: Path = typer.Argument(..., help="Solver state saved by `pokerlab solve --out`."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Exact exploitability and game value of the average strategy in a saved solver state."""
    from pokerlab.solvers.core import Solver
    solver = Solver.load(file)
    e = solver.exploitability()
    data = {"game": solver.game.name, "algorithm": solver.config.name, "iterations": solver.iteration,
            **e.to_dict()}
    if as_json:
        print_json(data)
        return
    typer.echo(f"{solver.game.name} {solver.config.name} after {solver.iteration:,} iterations: exploitability "
               f"{e.exploitability:.6g} chips/game ({e.mbb_per_game:.4g} mbb/game), nash_conv {e.nash_conv:.6g}, "
               f"game value {e.game_value:+.6f}")


@command("rps")
def rps_command(
    iterations: int = typer.Option(10_000, "--iterations", "-n", help="Regret-matching iterations."),
    png: Path | None = typer.Option(None, "--png", help="Write the convergence plot here."),
    symmetric: bool = typer.Option(False, "--symmetric",
                                   help="Plain RPS (default: rock beats scissors by 2, so convergence shows)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Regret matching on rock-paper-scissors: average strategy, exploitability and the classic plot."""
    if png is not None:
        png = figure_path(png)  # a bad suffix or folder fails before the run, not after it
        check_output(png)
    from pokerlab.games.matrix import rps
    from pokerlab.solvers.regret_matching import plot_convergence, regret_matching

    with progress_bar("regret matching", iterations, enabled=not as_json) as update:
        try:
            result = regret_matching(rps(asymmetric=not symmetric), iterations, history=png is not None,
                                     progress=update)
        except Interrupted as stop:
            partial = getattr(stop.partial, "exploitability", None)
            interrupted(f"{stop}: exploitability {partial:.3e} chips/game" if partial is not None else str(stop))
    if png is not None:
        png = plot_convergence(result, png)
    if as_json:
        print_json(result.to_dict())
        return
    strat = ", ".join(f"{k} {v:.4f}" for k, v in zip(result.game.row_labels, result.average_row, strict=True))
    typer.echo(f"{result.game.name} after {iterations:,} iterations: average {strat}; exploitability "
               f"{result.exploitability:.3e} chips/game" + (f"; plot {png}" if png else ""))


@command("export")
def export_command(
    file: Path = typer.Argument(..., help="Solver state saved by `pokerlab solve --out`."),
    fmt: str = typer.Option("openspiel", "--format", help="Export format (openspiel)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write here instead of standard output."),
) -> None:
    """Export the average strategy as JSON keyed by OpenSpiel information-state strings (Kuhn, Leduc)."""
    from pokerlab.solvers.core import Solver
    from pokerlab.solvers.export import to_openspiel
    if fmt != "openspiel":
        raise InvalidArgumentError(f"unknown export format {fmt!r} (expected openspiel)")
    check_output(output)
    text = json.dumps(to_openspiel(Solver.load(file).average_policy()), indent=1)
    if output is None:
        typer.echo(text)
    else:
        write_text_atomically(output, text + "\n")
