"""Ctrl-C in the first moments of the command line (while Python, typer and the command's module load): one
`interrupted` line and exit status 130, never Python's KeyboardInterrupt traceback. Sent to real processes at
several early delays, through `python -m pokerlab` and the console script's entry point."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

EXIT_INTERRUPTED = 130  # (pokerlab.cli.entry's)

ENTRIES = {
    "python -m pokerlab": [sys.executable, "-m", "pokerlab"],
    "console script": [sys.executable, "-c", "import sys; from pokerlab.cli.entry import main; sys.exit(main())"],
}
DELAYS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5)


def default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell starts a command (a test runner may ignore SIGINT)


LOST: list[float] = []  # delays whose first Ctrl-C was lost (see interrupt_at)


def interrupt_at(command: list[str], delay: float) -> tuple[int, str, str]:
    """Start ``command``, send SIGINT after ``delay`` seconds: (exit status, stdout, stderr).

    A first Ctrl-C can be lost, and the user presses again; so does this helper, and records the delay in
    :data:`LOST`, then returns what came after. One way is left: CPython drops it during its own start, before any
    code of ours runs (a ``KeyboardInterrupt`` raised while an import runs a weakref callback of its module locks is
    printed as "Exception ignored ... KeyboardInterrupt"; 1 in 300 runs at 10 ms). A Ctrl-C that an import swallows
    once the command runs (numpy.random's compiled ``_generator`` while numba loads, 0.15-0.3 s in) is raised again
    once the import is done (``tests/cli/test_dropped_interrupts.py``).
    A process that a second Ctrl-C does not stop fails the test."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=default_ctrl_c)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=15)
    except subprocess.TimeoutExpired as running:
        before = running.stderr or b""
        LOST.append(delay)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(f"Ctrl-C at {delay} s, then again: still running, stderr {before!r}") from None
        err = err[len(before.decode()):]
    return process.returncode, out, err


FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)')


def command_line_frames(traceback: str) -> list[str]:
    """The frames of a traceback that show the command line loading or running: any of typer, click, rich or numpy,
    and any of ``pokerlab/cli`` except the entry module's (and its package's) own top level. A Ctrl-C that lands
    while Python reads ``entry.py`` is taken at that module's first instruction, before any of its code has run:
    part of Python's start, like the package's ``__init__`` (seen once at 10 ms in a fresh clone, on the line
    ``_MAIN_THREAD = ...``).

    >>> command_line_frames('File "/x/pokerlab/cli/entry.py", line 43, in <module>')
    []
    >>> command_line_frames('File "/x/pokerlab/cli/entry.py", line 99, in main')
    ['/x/pokerlab/cli/entry.py in main']
    """
    found = []
    for path, scope in FRAME.findall(traceback):
        start = path.endswith(("pokerlab/cli/entry.py", "pokerlab/cli/__init__.py")) and scope == "<module>"
        if not start and any(name in path for name in ("pokerlab/cli", "typer", "click", "rich", "numpy")):
            found.append(f"{path} in {scope}")
    return found


def test_the_frames_check_finds_the_command_lines_modules():
    loading = 'File "/v/site-packages/typer/main.py", line 5, in <module>\n'
    assert command_line_frames(loading) == ["/v/site-packages/typer/main.py in <module>"]
    assert command_line_frames('File "/x/pokerlab/__init__.py", line 3, in <module>') == []


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_ctrl_c_while_the_command_line_loads_is_one_line(entry):
    """Every Ctrl-C that lands once the entry point runs gives the one line. Before that, Python is still starting
    (its own imports: site, runpy for -m, then the package's lazy __init__; 10-40 ms here): no code of ours can
    act there, and Python either ends by the signal or prints its own traceback, which names none of the command
    line's modules (where the traceback used to come from, until ~0.15 s)."""
    ours = 0
    LOST.clear()
    for delay in DELAYS:
        # a Monte Carlo ICM with no end: it cannot finish before the signal (a plain exact icm with warm kernels
        # ended in under 0.2 s in a fresh clone), and its loading and warm-up outlast every delay here
        status, out, err = interrupt_at([*ENTRIES[entry], "icm", "--stacks", "5,000 3,000 2,000", "--payouts",
                                         "50/30/20", "--method", "montecarlo", "--samples", "100000000000"], delay)
        if "Traceback" in err:  # Python's own start-up, or the package's __init__ before the entry point runs
            assert not command_line_frames(err), (delay, err)
        elif status == -signal.SIGINT and err == "interrupted\n":
            # the line, then the end by the signal itself: a shell reports it as status 130 too. Seen in 2 of 20
            # runs at 0.10-0.16 s on a quiet machine (the process ends by SIGINT after our line; where the second
            # delivery comes from is not found yet, see the issue 10 note)
            assert out == "", (delay, out, err)
            ours += 1
        elif status == -signal.SIGINT:  # before Python ran any code: ended by the signal, silently
            assert out == err == "", (delay, out, err)
        else:
            # "interrupted", or what was done where the signal came after the loading (a busy machine at 0.5 s:
            # "interrupted after 512 samples (4.1 s)")
            assert (status, out) == (EXIT_INTERRUPTED, ""), (delay, status, out, err)
            assert err == "interrupted\n" or (err.startswith("interrupted after ") and err.count("\n") == 1), err
            ours += 1
    # the later delays land in the loading, where the traceback used to be (Python's own start takes 10-40 ms on
    # a quiet machine, up to 80 ms here under a load of 6)
    assert ours >= 4
    assert len(LOST) <= 2, LOST  # a lost first Ctrl-C is rare (see interrupt_at); more would be a new fault


def test_nohup_keeps_ignoring_ctrl_c():
    """A command started with Ctrl-C ignored (nohup, a script's trap) keeps ignoring it."""
    process = subprocess.Popen([*ENTRIES["python -m pokerlab"], "eval", "AsKs", "QsJsTs"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0 and "Royal flush" in out, (out, err)


def test_ctrl_c_during_a_first_compilation_stops_it_at_once(tmp_path):
    """A first run compiles its kernels (tens of seconds on a busy machine): Ctrl-C there stops at once with the
    one line, not after the compilation and its warm-up run ("interrupted after 512 samples"), and no line
    claims kernels were compiled. An empty numba cache folder makes the compilation real; a terminal (a pty)
    makes the command show its compiling notice, which says when to press Ctrl-C."""
    import os
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen([*ENTRIES["python -m pokerlab"], "icm", "--stacks", "5000,3000,2000", "--payouts",
                                "50,30,20", "--method", "montecarlo", "--samples", "100000000000"],
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, preexec_fn=default_ctrl_c,
                               env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    os.close(follower)
    seen = b""
    try:
        while b"compiling" not in seen:
            chunk = os.read(leader, 4096)  # the notice comes within seconds; a hang fails on the test's timeout
            assert chunk, seen
            seen += chunk
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=60)
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    finally:
        process.kill()
        os.close(leader)
    text = seen.decode(errors="replace")
    assert status == EXIT_INTERRUPTED, text
    assert text.rstrip().endswith("interrupted") and "samples" not in text and "kernels compiled" not in text, text
