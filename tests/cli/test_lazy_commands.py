"""The CLI loads a command's module only when the command runs: `pokerlab --help` and `pokerlab eval` import
neither numba nor the engines, and the listing's one-line help matches every command's own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pokerlab.cli.main import COMMANDS, load_command

PROBE = """
import sys
from pokerlab.cli.main import app
try:
    app({args!r})
except SystemExit:
    pass
print("LOADED", sorted(m for m in ("numba", "pokerlab.equity", "pokerlab.solvers", "pokerlab.agents",
                                   "pokerlab.icm") if m in sys.modules))
"""


@pytest.mark.parametrize("args, allowed", [(["--help"], []), (["eval", "AsKs", "QsJsTs"], [])])
def test_help_and_eval_load_no_engine(args, allowed):
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == f"LOADED {allowed}"
    if args == ["--help"]:
        for name, (_, short_help) in COMMANDS.items():
            assert (name in done.stdout) == (short_help is not None)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_listing_matches_each_commands_own_help(name):
    command = load_command(name)
    short_help = COMMANDS[name][1]
    assert command.hidden == (short_help is None)
    if short_help is not None:
        assert command.get_short_help_str(limit=1000) == short_help
