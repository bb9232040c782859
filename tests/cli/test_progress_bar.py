"""The command line's progress bar: on a terminal only, not with --json, and (``show_after``) only once the work
has run that long, so quick work prints nothing."""

from __future__ import annotations

import time
from io import StringIO

from rich.console import Console

from pokerlab.cli.common import progress_bar


def terminal() -> Console:
    return Console(file=StringIO(), force_terminal=True, width=120)


def test_quick_work_shows_no_bar():
    console = terminal()
    with progress_bar("exact ICM", 1.0, unit="", console=console, show_after=60.0) as update:
        update(0.5)
        update(1.0)
    assert console.file.getvalue() == ""


def test_the_bar_appears_once_the_work_runs_past_its_delay():
    console = terminal()
    with progress_bar("exact ICM", 1.0, unit="", console=console, show_after=0.05) as update:
        update(0.1)
        assert console.file.getvalue() == ""
        time.sleep(0.1)
        update(0.5)
    assert "exact ICM" in console.file.getvalue()


def test_no_bar_with_json_or_on_a_pipe():
    for console, enabled in ((terminal(), False), (Console(file=StringIO(), force_terminal=False), True)):
        with progress_bar("exact ICM", 1.0, unit="", console=console, enabled=enabled) as update:
            update(0.5)
        assert console.file.getvalue() == ""
