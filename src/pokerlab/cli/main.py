"""The ``pokerlab`` Typer application: every command declared in the command modules, in one style.

Each engine has its own module here (``eval_cmd``, ``equity_cmd``, ...) whose module-level functions are
declared with :func:`pokerlab.cli.common.command`; this module imports the modules listed in
``COMMAND_MODULES`` and adds what they declared. A new command module is one line in that tuple.
"""

from __future__ import annotations

import importlib
import sys

import typer

from pokerlab import __version__
from pokerlab.cli.common import COMMANDS, GROUPS, OneLineErrorsGroup

# Add new command modules here (pokerlab.cli.<name>); their commands appear in this order in --help.
COMMAND_MODULES = ("eval_cmd", "equity_cmd", "icm_cmd", "solve_cmd", "bots_cmd")

app = typer.Typer(
    name="pokerlab",
    help="Poker mathematics: hand evaluation, equity, ICM and CFR solving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrorsGroup,
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


def _build() -> None:
    for module in COMMAND_MODULES:
        importlib.import_module(f"pokerlab.cli.{module}")
    groups = {name: typer.Typer(help=group.help, no_args_is_help=True) for name, group in GROUPS.items()}
    for spec in COMMANDS:
        target = app if spec.group is None else groups[spec.group]
        target.command(spec.name)(spec.function)
    for name, group in groups.items():
        app.add_typer(group, name=name)
        for former in GROUPS[name].former_names:
            app.add_typer(group, name=former, hidden=True, deprecated=True)


_build()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
