"""The ``pokerlab`` Typer application: registers every command group.

Each engine has its own module here (``eval_cmd``, ``equity_cmd``, ...) exposing ``register(app)``; this
module only wires them; `pokerlab.cli.common` turns library errors into one line and exit status 2.
"""

from __future__ import annotations

import sys

import typer

from pokerlab import __version__

app = typer.Typer(
    name="pokerlab",
    help="Poker mathematics: hand evaluation, equity, ICM and CFR solving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"pokerlab {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Poker mathematics: hand evaluation, equity, ICM and CFR solving."""


def _register_commands() -> None:
    # Each engine's command module exposes register(app); add new ones to this tuple.
    from pokerlab.cli import bots_cmd, equity_cmd, eval_cmd, icm_cmd, pushfold_cmd, serve_cmd, solve_cmd

    modules = (eval_cmd, equity_cmd, icm_cmd, solve_cmd, bots_cmd, pushfold_cmd, serve_cmd)
    for module in modules:
        module.register(app)


_register_commands()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
