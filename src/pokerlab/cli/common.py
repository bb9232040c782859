"""The one style of pokerlab's command modules, and the helpers they share.

A command module (``cli/<engine>_cmd.py``) holds module-level functions decorated with :func:`command`; the
docstring is the help text, and ``cli/main.py``'s ``COMMANDS`` table names the module and repeats the first
line of the docstring (the listing loads no module)::

    import typer

    from pokerlab.cli.common import JSON_OPTION, command, check_output, print_json, progress_bar

    @command("thing")
    def thing_command(
        stacks: str = typer.Option(..., "--stacks", help="Chips per player, e.g. 5,000 3,000 2,000."),
        out: Path | None = typer.Option(None, "--out", help="Write the result here (.json)."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        \"\"\"Say in one line what the command computes.\"\"\"
        from pokerlab.thing import parse_stacks, thing, thing_table  # heavy imports inside: the CLI starts fast

        check_output(out)                        # 1. every output path, before any work
        result = thing(parse_stacks(stacks))     # 2. the engine parses and validates, raising PokerlabError
        if as_json:
            print_json(result.to_dict())         # 3. JSON (non-finite numbers are refused, not printed)
        else:
            print_table(thing_table(result))     #    or the engine's display code

What :func:`command` gives every command, so a module never handles these itself:

- a :class:`~pokerlab.errors.PokerlabError` (bad input) or an ``OSError`` -> one line ``error: ...`` on stderr
  (at most :data:`MAX_MESSAGE` characters, whatever the user pasted), exit status 2;
- Ctrl-C -> one line ``interrupted: <what was done>`` on stderr, exit status 130; an engine raising
  :class:`~pokerlab.errors.Interrupted` says what was done in its message. A command that has a meaningful
  partial result catches ``Interrupted`` itself, prints it, then calls :func:`interrupted`;
- usage errors (unknown option, missing argument, a value of the wrong type) are one line and exit 2 too
  (:class:`OneLineErrorsGroup`, the application's group class).

Long work: ``with progress_bar("solve", total, enabled=not as_json) as update: engine(progress=update)``
shows a bar with rate and ETA on a terminal and nothing on a pipe or with ``--json``. Engines run their
kernels in chunks inside :func:`pokerlab.progress.deferred_interrupts`, so Ctrl-C lands between chunks.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import click.exceptions as click_exceptions
import typer
from typer.core import TyperGroup

from pokerlab.errors import (
    Interrupted,
    InvalidArgumentError,
    NonFiniteResultError,
    PokerlabError,
    excerpt,
    whole_number,
)
from pokerlab.io import check_output_path
from pokerlab.progress import deferred_interrupts

F = TypeVar("F", bound=Callable[..., Any])

MAX_MESSAGE = 300  # characters of one error line; longer messages are cut (they would echo pasted input)
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

PRECISION_TIME_LIMIT = 600.0  # a precision target given without --time stops here: out of reach ends, honestly
PILOT_SECONDS = 0.3  # a precision target given without --time is first tried this long, to refuse one out of reach
JSON_OPTION: Any = typer.Option(False, "--json", help="Print one JSON object instead of a table.")


@dataclass(frozen=True)
class CommandSpec:
    """One registered command: its name, the group it belongs to (None: top level) and the function."""

    name: str
    group: str | None
    function: Callable[..., Any]


#: Every command declared with :func:`command` so far (modules declare theirs when imported); ``cli/main.py``
#: builds each command from these when it is first used.
DECLARED: list[CommandSpec] = []


@dataclass(frozen=True)
class GroupSpec:
    """A group of commands (``pokerlab NAME sub-command``): its help."""

    help: str


#: Every command group declared with :func:`command_group`, by name.
GROUPS: dict[str, GroupSpec] = {}


def command(name: str, *, group: str | None = None,
            vocabulary: dict[str, str] | None = None) -> Callable[[F], F]:
    """Declare a module-level function as the command ``pokerlab [group] name`` with one-line errors, exit
    status 2 for bad input and 130 for Ctrl-C (see the module docstring).

    ``vocabulary`` maps the engine's API words that can appear in its error messages to the command line's
    (``{"method='montecarlo'": "--mc", "time_limit": "--time"}``), so messages speak CLI."""
    if group is not None and group not in GROUPS:
        raise ValueError(f"declare the group {group!r} with command_group() first")

    def declare(function: F) -> F:
        wrapped = one_line_errors(function, vocabulary)
        DECLARED.append(CommandSpec(name, group, wrapped))
        return wrapped

    return declare


def command_group(name: str, help: str) -> str:
    """Declare a group of commands (``pokerlab NAME sub-command``) and return its name."""
    GROUPS[name] = GroupSpec(help)
    return name


def one_line(message: str) -> str:
    """``message`` on one line of at most :data:`MAX_MESSAGE` characters."""
    text = re.sub(r"\s+", " ", str(message)).strip()
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def fail(message: str) -> NoReturn:
    """Print one error line to stderr and exit with status 2 (bad input)."""
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code=EXIT_USAGE)


def interrupted(message: str = "") -> NoReturn:
    """Stop the command after Ctrl-C: :func:`command` prints one ``interrupted <message>`` line (what was done)
    to stderr once every progress bar is gone, and exits with status 130."""
    raise Interrupted(message)


def _print_interrupted(message: str) -> NoReturn:
    typer.echo(one_line(f"interrupted {message}".strip() if message else "interrupted"), err=True)
    raise typer.Exit(code=EXIT_INTERRUPTED)


def speak_cli(message: str, vocabulary: dict[str, str] | None) -> str:
    """``message`` with every API word of ``vocabulary`` replaced by its command-line spelling.

    >>> speak_cli("use method='montecarlo' or raise time_limit", {"method='montecarlo'": "--mc",
    ...                                                            "time_limit": "--time"})
    'use --mc or raise --time'
    """
    for api, cli in sorted((vocabulary or {}).items(), key=lambda pair: -len(pair[0])):  # longest phrase first
        message = re.sub(rf"(?<![\w-]){re.escape(api)}(?![\w])", cli, message)
    return message


def one_line_errors(function: F, vocabulary: dict[str, str] | None = None) -> F:
    """Wrap a command: bad input -> one ``error:`` line and exit 2; Ctrl-C -> one line and exit 130."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PokerlabError as error:
            fail(speak_cli(str(error), vocabulary))
        except Interrupted as stop:
            _print_interrupted(speak_cli(str(stop), vocabulary))
        except KeyboardInterrupt:
            _print_interrupted("")
        except MemoryError:
            fail("out of memory: ask for less work (fewer samples, players or iterations)")
        except BrokenPipeError:  # `pokerlab ... | head`: the reader left; nothing more to say
            sys.stderr.close()
            raise typer.Exit(code=0) from None
        except OSError as error:
            fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))

    return wrapper  # type: ignore[return-value]


def _subcommands_with(error: click_exceptions.NoSuchOption) -> list[str]:
    """The subcommands of the group ``error`` was raised in that take its option (``pokerlab postflop --oop``:
    ``pokerlab postflop solve``), as command paths; none where it was raised in a command."""
    ctx = error.ctx
    if ctx is None or not isinstance(ctx.command, click.Group):
        return []
    group = ctx.command
    owners = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and any(error.option_name in (*param.opts, *param.secondary_opts)
                                       for param in command.params):
            owners.append(f"{ctx.command_path} {name}")
    return owners


class OneLineErrorsGroup(TyperGroup):
    """The application's click group: usage errors (unknown option, missing or malformed argument) print one
    ``error:`` line naming the help to read, exit status 2; Ctrl-C outside a command prints ``interrupted`` and
    exits 130."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        from typer import Abort

        no_args_is_help = getattr(click_exceptions, "NoArgsIsHelpError", ())
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except click_exceptions.ClickException as error:
            if not standalone_mode:
                raise
            if no_args_is_help and isinstance(error, no_args_is_help):  # `pokerlab` alone: the help, as asked
                error.show()
                sys.exit(error.exit_code)
            hint = ""
            if isinstance(error, click_exceptions.UsageError) and error.ctx is not None:
                hint = f" (see {error.ctx.command_path} --help)"
                if isinstance(error, click_exceptions.NoSuchOption) and (owners := _subcommands_with(error)):
                    named = owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} and {owners[-1]}"
                    hint = f" ({error.option_name} is an option of {named}: see {owners[0]} --help)"
            typer.echo(f"error: {one_line(error.format_message())}{hint}", err=True)
            sys.exit(error.exit_code)
        except Abort as error:  # end of input at a prompt, or Ctrl-C that click caught before a command ran
            if not standalone_mode:
                raise
            if isinstance(error.__context__, KeyboardInterrupt):
                typer.echo("interrupted", err=True)
                sys.exit(EXIT_INTERRUPTED)
            sys.exit(1)
        except KeyboardInterrupt:  # Ctrl-C while the command's module loads
            if not standalone_mode:
                raise
            typer.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)

    # typer turns a KeyboardInterrupt raised while it parses the arguments or starts a command (before the
    # command's own handling, e.g. while its module is built) into a silent exit 130: say it, as every command does
    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            _print_interrupted("")

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _print_interrupted("")


CHECKPOINT_HELP = ("Save the state to --out every N iterations ('5000') or every so long ('30s', '10m'); also on "
                   "Ctrl-C. Default 60s.")


@dataclass
class Checkpoints:
    """When to save a long run's state: every ``iterations`` iterations or every ``seconds`` seconds (one of
    the two), written by ``save(path)`` atomically; ``due(iteration)`` says whether it is time.

    >>> Checkpoints.parse("500").iterations, Checkpoints.parse("2m").seconds
    (500, 120.0)
    """

    iterations: int | None = None
    seconds: float | None = None
    last_iteration: int = 0
    last_time: float = field(default_factory=time.monotonic)

    @classmethod
    def parse(cls, text: str) -> Checkpoints:
        """``'5000'`` iterations, or ``'30s'``, ``'10m'``, ``'2h'`` of wall time; anything else is refused."""
        value = text.strip().lower().replace(",", "").replace("_", "")
        match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(s|m|h|min)?", value)
        if match is None or float(match.group(1)) <= 0:
            raise InvalidArgumentError(f"--checkpoint-every takes a positive number of iterations (5000) or a time "
                                       f"(30s, 10m, 2h), got {excerpt(text)}")
        number, unit = float(match.group(1)), match.group(2)
        if unit is None:
            return cls(iterations=whole_number(number, "--checkpoint-every iterations", floats=True))
        return cls(seconds=number * {"s": 1, "m": 60, "min": 60, "h": 3600}[unit])

    def due(self, iteration: int) -> bool:
        """Whether a checkpoint is due at ``iteration``; if so, the period restarts now."""
        if self.iterations is not None:
            ready = iteration - self.last_iteration >= self.iterations
        else:
            ready = time.monotonic() - self.last_time >= (self.seconds or 0.0)
        if ready:
            self.last_iteration, self.last_time = iteration, time.monotonic()
        return ready


def check_output(*paths: str | Path | None, what: str = "output file") -> None:
    """Check every given output path before any work (None = not asked for); see
    :func:`pokerlab.io.check_output_path`. Raises :class:`~pokerlab.errors.OutputPathError`."""
    for path in paths:
        if path is not None:
            check_output_path(path, what)


def print_json(data: Any) -> None:
    """Print ``data`` as one JSON object on stdout; a NaN or infinity anywhere in it is a
    :class:`NonFiniteResultError` naming where (a result the engine could not compute is an error, not a
    number). Use None for values that are undefined by design."""
    bad = _non_finite(data, "")
    if bad is not None:
        raise NonFiniteResultError(f"the result holds a non-finite number at {bad or 'the top'}: the inputs are "
                                   "out of the range the result can hold")
    typer.echo(json.dumps(data))


def _non_finite(value: Any, where: str) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _non_finite(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None


def print_table(renderable: Any) -> None:
    """Print a rich table (or any renderable) on stdout."""
    from rich.console import Console

    Console().print(renderable)


def stderr_console() -> Any:
    """The rich console on stderr (progress bars, notes), so stdout carries only the result."""
    from rich.console import Console

    return Console(stderr=True)


@contextlib.contextmanager
def progress_bar(description: str, total: int | float | None, *, enabled: bool = True, unit: str = "it",
                 console: Any = None, show_after: float = 0.0) -> Iterator[Callable[..., None]]:
    """Yield ``update(done, total=None, **fields)`` drawing a bar with percentage, count, rate and ETA on a
    terminal (stderr); on a pipe, or when not ``enabled`` (``--json``), ``update`` does nothing. The bar
    disappears when the block ends, normally or by an exception (Ctrl-C), before any error line is printed.

    ``unit`` names what ``done`` counts (``"hands"``); an empty unit means ``done`` is a fraction of
    ``total`` (no count, no rate). Extra ``fields`` are shown after the bar (``status="exploitability 1e-3"``).
    ``show_after``: seconds before the bar appears (work that is usually quick shows nothing unless it is not).
    """
    console = console or stderr_console()
    if not enabled or not console.is_terminal:
        yield _ignore
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[counts]}"), TextColumn("ETA"), TimeRemainingColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[status]}")]
    bar = Progress(*columns, console=console, transient=True)
    task = bar.add_task(description, total=total, counts="", status="")
    appears = time.monotonic() + show_after
    shown = False

    def update(done: int | float, total: int | float | None = None, **fields: Any) -> None:
        nonlocal shown
        # Ctrl-C must not land inside rich's locks (a lock left held hangs the bar's stop): hold it here
        with deferred_interrupts():
            _draw(done, total, fields)
            if not shown and time.monotonic() >= appears:
                bar.start()
                shown = True

    def _draw(done: int | float, total: int | float | None, fields: dict[str, Any]) -> None:
        options: dict[str, Any] = {"completed": done}
        if total is not None:
            options["total"] = total
        if unit:
            planned = bar.tasks[0].total if total is None else total
            speed = bar.tasks[0].speed
            rate = f", {speed:,.0f} {unit}/s" if speed else ""
            of = f"/{planned:,.0f}" if planned else ""
            options["counts"] = f"{done:,.0f}{of} {unit}{rate}"
        if fields:
            options["status"] = " ".join(str(value) for value in fields.values())
        bar.update(task, **options)

    if show_after <= 0:
        bar.start()
        shown = True
    try:
        yield update
    finally:
        if shown:
            with deferred_interrupts():
                bar.stop()


def _ignore(*args: Any, **kwargs: Any) -> None:
    return None
