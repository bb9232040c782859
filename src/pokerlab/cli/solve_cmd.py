"""``pokerlab solve``, ``exploitability``, ``rps`` and ``export``: the CFR solving engine on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pokerlab.cli.common import user_errors
from pokerlab.errors import InvalidArgumentError
from pokerlab.games.registry import GAME_NAMES
from pokerlab.plotting import figure_path
from pokerlab.solvers.core import ALGORITHMS, SolveProgress, Solver, SolverConfig, algorithm_config, solve
from pokerlab.solvers.export import to_openspiel
from pokerlab.solvers.regret_matching import plot_convergence, regret_matching


def _solve(
    game: str = typer.Argument(..., help=f"Game: {', '.join(GAME_NAMES)}."),
    algo: str | None = typer.Option(None, "--algo", help=f"Algorithm: {'|'.join(ALGORITHMS)} (default cfr+; "
                                    "with --resume, the saved one)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n",
                                          help="Total iterations to reach, counting a resumed run's (default 1000 "
                                               "for a new run, 1000 more with --resume)."),
    target: float | None = typer.Option(None, "--target-exploitability",
                                        help="Stop when the exploitability (chips/game) is at most this."),
    seconds: float | None = typer.Option(None, "--time", help="Stop after this many seconds."),
    out: Path | None = typer.Option(None, "--out", help="Save the solver state (.npz) to resume or export."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue a saved solver state (.npz) of the same "
                                       "GAME; its algorithm, parameters and random state are kept."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the Monte Carlo variants (not with --resume)."),
    alpha: float | None = typer.Option(None, "--alpha", help="lcfr/dcfr only: positive-regret discount exponent, "
                                       "in [0, 10]."),
    beta: float | None = typer.Option(None, "--beta", help="lcfr/dcfr only: negative-regret discount exponent, "
                                      "in [-10, 10]."),
    gamma: float | None = typer.Option(None, "--gamma", help="cfr/cfr+/lcfr/dcfr only: average-strategy weight "
                                       "exponent (t^gamma), in [0, 10]."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Solve GAME with a CFR-family algorithm and report the exploitability of the average strategy."""
    console = Console(stderr=True)
    if resume is not None and not resume.exists():
        raise InvalidArgumentError(f"resume file not found: {resume}")
    overrides = {k: v for k, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)) if v is not None}
    if overrides and resume is not None:
        raise InvalidArgumentError("--alpha/--beta/--gamma cannot change a resumed run (its flags are saved)")
    if seed is not None and resume is not None:
        raise InvalidArgumentError("--seed cannot be given with --resume (the saved random state continues)")
    if resume is None and iterations is None and target is None and seconds is None:
        iterations = 1000
    if overrides:
        algo = algorithm_config(algo or "cfr+", **overrides)  # type: ignore[assignment]  # str -> its config
    name = algo.name if isinstance(algo, SolverConfig) else (algo or "cfr+")
    if as_json or not console.is_terminal:
        callback = None
        result = solve(game, algo, iterations=iterations, target_exploitability=target, time_limit=seconds,
                       seed=seed, resume=resume)
    else:
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed:,} it"),
                      TextColumn("exploitability {task.fields[expl]}"), TimeElapsedColumn(),
                      console=console, transient=True) as bar:
            task = bar.add_task(f"{game} {name}", total=iterations, expl="-")

            def callback(p: SolveProgress) -> None:
                text = f"{p.exploitability:.3e}" if p.exploitability is not None else "-"
                bar.update(task, completed=p.iteration, total=p.total, expl=text)

            result = solve(game, algo, iterations=iterations, target_exploitability=target, time_limit=seconds,
                           seed=seed, resume=resume, progress=callback)
    if out is not None:
        result.solver.save(out)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    table = Table(title=f"{result.game}: {result.algorithm}", show_header=False)
    table.add_row("iterations", f"{result.iterations:,}")
    table.add_row("exploitability", f"{result.exploitability:.6g} chips/game ({result.mbb_per_game:.4g} mbb/game)")
    table.add_row("game value (player 1)", f"{result.game_value:+.6f} chips/game")
    table.add_row("time", f"{result.elapsed_s:.3f} s")
    sizes = result.solver.game.sizes
    table.add_row("tree", f"{sizes.histories:,} histories, {sizes.decision_nodes:,} decision nodes, "
                          f"{sizes.infosets:,} infosets")
    if out is not None:
        table.add_row("saved", str(out))
    Console().print(table)


def _exploitability(
    file: Path = typer.Argument(..., help="Solver state saved by `pokerlab solve --out`."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Exact exploitability and game value of the average strategy in a saved solver state."""
    solver = Solver.load(file)
    e = solver.exploitability()
    data = {"game": solver.game.name, "algorithm": solver.config.name, "iterations": solver.iteration,
            **e.to_dict()}
    if as_json:
        typer.echo(json.dumps(data))
        return
    typer.echo(f"{solver.game.name} {solver.config.name} after {solver.iteration:,} iterations: exploitability "
               f"{e.exploitability:.6g} chips/game ({e.mbb_per_game:.4g} mbb/game), nash_conv {e.nash_conv:.6g}, "
               f"game value {e.game_value:+.6f}")


def _rps(
    iterations: int = typer.Option(10_000, "--iterations", "-n", help="Regret-matching iterations."),
    png: Path | None = typer.Option(None, "--png", help="Write the convergence plot here."),
    symmetric: bool = typer.Option(False, "--symmetric",
                                   help="Plain RPS (default: rock beats scissors by 2, so convergence shows)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Regret matching on rock-paper-scissors: average strategy, exploitability and the classic plot."""
    from pokerlab.games.matrix import rps

    if png is not None:
        figure_path(png)  # a bad suffix fails before the run, not after it
    result = regret_matching(rps(asymmetric=not symmetric), iterations, history=png is not None)
    if png is not None:
        png = plot_convergence(result, png)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    strat = ", ".join(f"{k} {v:.4f}" for k, v in zip(result.game.row_labels, result.average_row, strict=True))
    typer.echo(f"{result.game.name} after {iterations:,} iterations: average {strat}; exploitability "
               f"{result.exploitability:.3e} chips/game" + (f"; plot {png}" if png else ""))


def _export(
    file: Path = typer.Argument(..., help="Solver state saved by `pokerlab solve --out`."),
    fmt: str = typer.Option("openspiel", "--format", help="Export format (openspiel)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write here instead of standard output."),
) -> None:
    """Export the average strategy as JSON keyed by OpenSpiel information-state strings (Kuhn, Leduc)."""
    if fmt != "openspiel":
        raise InvalidArgumentError(f"unknown export format {fmt!r} (expected openspiel)")
    text = json.dumps(to_openspiel(Solver.load(file).average_policy()), indent=1)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n")


def register(app: typer.Typer) -> None:
    """Add the solver commands to the ``pokerlab`` app."""
    app.command("solve")(user_errors(_solve))
    app.command("exploitability")(user_errors(_exploitability))
    app.command("rps")(user_errors(_rps))
    app.command("export")(user_errors(_export))
