"""The ``pokerlab`` Typer application: a table of every command, each loaded from its module on first use.

Each engine has its own module here (``eval_cmd``, ``equity_cmd``, ...) whose module-level functions are
declared with :func:`pokerlab.cli.common.command` (see that module for the one style); this module lists them
in :data:`COMMANDS` and builds a command from its module's declarations only when it runs, so the CLI starts
in a blink. Usage errors and Ctrl-C are one line here too (:class:`pokerlab.cli.common.OneLineErrorsGroup`).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer.core import TyperCommand

from pokerlab.cli.common import DECLARED, GROUPS, OneLineErrorsGroup

# Every command: the module under pokerlab.cli that registers it and its one-line help for `pokerlab --help`
# (None: hidden). Modules load only when one of their commands runs or shows its own help, so `pokerlab --help`
# imports none of numpy, numba or the engines; tests/cli/test_lazy_commands.py checks this table against
# the commands themselves. Add a new command here and declare it in its module with @command.
COMMANDS: dict[str, tuple[str, str | None]] = {
    "eval": ("eval_cmd", "Rank a hand of 5, 6 or 7 cards: its value (larger is stronger), category and description."),
    "equity": ("equity_cmd", "All-in equity of 2 to 10 players: exact when affordable, else Monte Carlo."),
    "range": ("equity_cmd", "Show a range: canonical text, combo count and (with --grid) the 13x13 grid; or (--style) "
                            "the range as PioSOLVER, GTO+ or per-combo text."),
    "icm": ("icm_cmd", "Prize equity of every player by the Independent Chip Model (Malmuth-Harville), or by FGS."),
    "solve": ("solve_cmd", "Solve GAME with a CFR-family algorithm and report the exploitability of the average "
                           "strategy."),
    "exploitability": ("solve_cmd", "Exact exploitability and game value of the average strategy in a saved solver "
                                    "state."),
    "rps": ("solve_cmd", "Regret matching on rock-paper-scissors: average strategy, exploitability and the classic "
                         "plot."),
    "export": ("solve_cmd", "Export the average strategy as JSON keyed by OpenSpiel information-state strings (Kuhn, "
                            "Leduc)."),
    "match": ("bots_cmd", "Play A against B: chips per hand (95% CI), hands and matches won, exact EV from the "
                          "policies."),
    "play": ("bots_cmd", "Play hands against a bot at the terminal; q quits at any prompt."),
    "two-round": ("bots_cmd", "The two-round hold'em game: size, training, exploitability."),
    "pushfold": ("pushfold_cmd", "Push/fold Nash ranges: jam first in and call a jam, per seat, under chip EV or ICM."),
    "postflop": ("postflop_cmd", "No-limit hold'em postflop solving: solve a river, turn or flop spot; show a saved "
                                 "solve; report one spot over many flops."),
    "simulate": ("simulate_cmd", "Simulate tournaments (coin flip, push/fold charts, simple rules) and compare "
                                 "equity models."),
    "warmup": ("warmup_cmd", "Compile every kernel the commands use (first run only; later runs load them from the "
                             "cache)."),
    "serve": ("serve_cmd", "Serve the web page (equity, ICM, push/fold, solving) and its JSON API at http://HOST:PORT."),
}
_loaded: dict[str, Any] = {}


def load_command(name: str) -> Any:
    """The click command ``name``, built from its module's declarations on first use."""
    module_name = COMMANDS[name][0]
    if module_name not in _loaded:
        try:
            module = importlib.import_module(f"pokerlab.cli.{module_name}")
        except KeyboardInterrupt:  # typer would turn it into a silent exit 130: say it, as every command does
            typer.echo("interrupted", err=True)
            sys.exit(130)
        scratch = typer.Typer()
        scratch.callback()(lambda: None)  # a callback keeps even a single command inside a group
        groups: dict[str, typer.Typer] = {}
        for spec in DECLARED:
            if spec.function.__module__ != module.__name__:
                continue
            if spec.group is None:
                scratch.command(spec.name)(spec.function)
                continue
            if spec.group not in groups:
                groups[spec.group] = typer.Typer(help=GROUPS[spec.group].help, no_args_is_help=True)
            groups[spec.group].command(spec.name)(spec.function)
        for group_name, group in groups.items():
            scratch.add_typer(group, name=group_name)
        _loaded[module_name] = typer.main.get_command(scratch)
    return _loaded[module_name].commands[name]


class _LazyCommands(OneLineErrorsGroup):
    """The command group: lists the table above, loads a command's module when it is resolved."""

    listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        module_name, short_help = COMMANDS[cmd_name]
        if self.listing:  # the overview needs names and one-line help only
            return TyperCommand(cmd_name, help=short_help, hidden=short_help is None)
        return load_command(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    name="pokerlab",
    help="Poker mathematics: hand evaluation, equity, ICM and CFR solving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_LazyCommands,
)


def _version_callback(value: bool) -> None:
    if value:
        from pokerlab import __version__

        typer.echo(f"pokerlab {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Poker mathematics: hand evaluation, equity, ICM and CFR solving."""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
