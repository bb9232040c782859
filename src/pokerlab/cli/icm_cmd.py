"""``pokerlab icm``: tournament prize equity (ICM), finish places, bubble factors and deals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from pokerlab.cli.common import user_errors
from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidStacksError
from pokerlab.plotting import figure_path


def parse_stacks(text: str) -> np.ndarray:
    """``'5000,3000,2000'`` (commas, spaces or newlines) -> stacks."""
    tokens = [tok for tok in text.replace("\n", ",").replace(" ", ",").split(",") if tok.strip()]
    try:
        return np.array([float(tok) for tok in tokens], dtype=np.float64)
    except ValueError as error:
        message = f"cannot parse stacks {text.strip()[:60]!r}: give numbers like 5000,3000,2000"
        raise InvalidStacksError(message) from error


def read_stacks_file(path: Path) -> str:
    """The text of a stacks file; a file that is not UTF-8 text is a :class:`FileFormatError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise FileFormatError(f"stacks file {path} is not a UTF-8 text file ({error.reason})") from error
    if "\0" in text:
        raise FileFormatError(f"stacks file {path} is not a text file (it contains NUL bytes)")
    return text


def register(app: typer.Typer) -> None:
    @app.command("icm")
    @user_errors
    def icm_command(
        stacks: str = typer.Option(None, "--stacks", help="Chips per player, e.g. 5000,3000,2000 (0 = busted)."),
        stacks_file: Path = typer.Option(None, "--stacks-file", help="File of stacks (commas or one per line)."),
        payouts: str = typer.Option(
            ..., "--payouts", help="50,30,20 | power:a=1,pool=1000,paid=40 | flat:pool=100,paid=9 | 65/35 | file.csv"
        ),
        method: str = typer.Option("auto", "--method", help="auto | exact | subset | montecarlo"),
        samples: int = typer.Option(None, "--samples", help="Monte Carlo samples (default 100,000; montecarlo only)."),
        half_width: float = typer.Option(
            None, "--half-width", help="Monte Carlo: stop once every player's equity is within +- this much money."
        ),
        confidence: float = typer.Option(None, "--confidence", help="Confidence of --half-width (default 0.95)."),
        time_limit: float = typer.Option(None, "--time", help="Monte Carlo: stop after this many seconds."),
        variance_reduction: str = typer.Option(
            "auto", "--variance-reduction", help="Monte Carlo: auto | plain | antithetic | sobol | conditional."
        ),
        seed: int = typer.Option(None, "--seed", help="Monte Carlo seed (montecarlo only)."),
        places: bool = typer.Option(
            False, "--places", help="Show finish-place probabilities (Monte Carlo: counted from plain samples)."
        ),
        bubble: bool = typer.Option(False, "--bubble-factors", help="Show bubble factors and risk premiums."),
        deal_: bool = typer.Option(False, "--deal", help="Show ICM chop and chip chop."),
        plot: Path = typer.Option(
            None, "--plot", help="Write a chip share vs prize share figure here (.png, .pdf or .svg)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Prize equity of every player by the Independent Chip Model (Malmuth-Harville)."""
        from pokerlab.icm import icm, parse_payouts
        from pokerlab.icm.analysis import bubble_factors, deal, plot_shares

        if (stacks is None) == (stacks_file is None):
            raise InvalidArgumentError("give the stacks with exactly one of --stacks or --stacks-file")
        stack_values = parse_stacks(stacks if stacks is not None else read_stacks_file(stacks_file))
        pay = parse_payouts(payouts)
        if plot is not None:
            figure_path(plot)  # a bad file name fails before any work
        result = icm(stack_values, pay, method, places=places, samples=samples, half_width=half_width,
                     confidence=confidence, time_limit=time_limit, variance_reduction=variance_reduction, seed=seed)
        bf = bubble_factors(stack_values, pay) if bubble else None
        split = deal(stack_values, pay) if deal_ else None
        written = plot_shares(result, plot) if plot is not None else None
        if as_json:
            data = result.to_dict()
            if bf is not None:
                data["bubble_factors"] = bf.to_dict()["bubble_factors"]
                data["risk_premium"] = bf.to_dict()["risk_premium"]
            if split is not None:
                data["deal"] = split.to_dict()["players"]
            typer.echo(json.dumps(data))
            return
        console = Console()
        sampled = f", {result.samples:,} samples, stopped on {result.stop_reason}" if result.samples else ""
        table = Table(title=f"ICM ({result.method}, {result.elapsed_s * 1e3:.2f} ms{sampled})")
        table.add_column("player", justify="right")
        table.add_column("stack", justify="right")
        table.add_column("chips %", justify="right")
        table.add_column("equity", justify="right")
        table.add_column("prize %", justify="right")
        if result.stderr is not None:
            table.add_column("stderr", justify="right")
        if split is not None:
            table.add_column("chip chop", justify="right")
            table.add_column("chip - ICM", justify="right")
        for i in range(len(stack_values)):
            row = [str(i + 1), f"{stack_values[i]:g}", f"{100 * result.chip_share[i]:.2f}",
                   f"{result.equity[i]:.4f}", f"{100 * result.prize_share[i]:.2f}"]
            if result.stderr is not None:
                row.append(f"{result.stderr[i]:.4f}")
            if split is not None:
                row += [f"{split.chip[i]:.4f}", f"{split.chip_minus_icm[i]:+.4f}"]
            table.add_row(*row)
        console.print(table)
        if result.places is not None:
            ptable = Table(title="finish-place probabilities")
            ptable.add_column("player", justify="right")
            for m in range(result.places.shape[1]):
                ptable.add_column(f"#{m + 1}", justify="right")
            errors = result.places_stderr
            for i, row in enumerate(result.places):
                if errors is None:
                    ptable.add_row(str(i + 1), *(f"{x:.4f}" for x in row))
                else:
                    ptable.add_row(str(i + 1), *(f"{x:.4f}±{e:.4f}" for x, e in zip(row, errors[i], strict=True)))
            console.print(ptable)
        if bf is not None:
            btable = Table(title="bubble factors (row loses vs column) / risk premium")
            btable.add_column("player", justify="right")
            for j in range(len(stack_values)):
                btable.add_column(str(j + 1), justify="right")
            for i in range(len(stack_values)):
                factor, premium = bf.factor[i], 100 * bf.risk_premium[i]
                cells = [
                    f"{factor[j]:.2f} / {premium[j]:.1f}%" if np.isfinite(factor[j]) else "-"
                    for j in range(len(stack_values))
                ]
                btable.add_row(str(i + 1), *cells)
            console.print(btable)
        if written is not None:
            console.print(f"plot written to {written}")
