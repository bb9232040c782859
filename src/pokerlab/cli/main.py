"""The ``pokerlab`` Typer application: registers every command group.

Each engine has its own module here (``eval_cmd``, ``equity_cmd``, ...) exposing ``register(app)``; this
module only wires them and turns library errors into one-line messages with exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer

from pokerlab import __version__
from pokerlab.errors import PokerlabError

app = typer.Typer(
    name="pokerlab",
    help="Poker mathematics: hand evaluation, equity, ICM and CFR solving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    """Print one error line to stderr and exit with status 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def user_errors(function: F) -> F:
    """Decorate a command so that a ``PokerlabError`` becomes one line on stderr and exit status 2."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PokerlabError as error:
            fail(str(error))
        except OSError as error:
            fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))

    return wrapper  # type: ignore[return-value]


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
    from pokerlab.cli import equity_cmd, eval_cmd

    # Each engine's command module exposes register(app); add new ones to this tuple.
    modules = (eval_cmd, equity_cmd)
    for module in modules:
        module.register(app)


_register_commands()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
