"""Helpers shared by every command module: one-line errors with exit status 2."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer

from pokerlab.errors import PokerlabError

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
