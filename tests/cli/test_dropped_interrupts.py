"""A Ctrl-C (or ``kill``) is not lost where Python would lose it:
- inside an import, which may swallow any exception (numpy.random's compiled ``_generator`` did, while numba loads:
  no line, the command ran on, 1 run in 50 to 800 with Ctrl-C at 0.15-0.3 s): the command line's handler
  (:func:`pokerlab.cli.entry.interrupt`) raises it once the import is done;
- inside a finalizer, where Python prints it as "Exception ignored" and drops it: the command line's
  ``sys.unraisablehook`` raises the signal again.
Each case runs in its own process: the signal handlers and the hook are process-wide; each has its control, the
same case with Python's own handling, where the signal is lost."""

from __future__ import annotations

import subprocess
import sys

FINALIZER_GETS_THE_SIGNAL = """
import signal, sys, time
{setup}
class Finalized:
    def __del__(self):
        signal.raise_signal(signal.{signal})  # the handler runs here, inside the finalizer
        for _ in range(1000):
            pass
start = time.monotonic()
try:
    Finalized()
    while time.monotonic() < start + 5:
        pass
    print("ran on")
except KeyboardInterrupt as stop:
    print(type(stop).__name__, round(time.monotonic() - start, 3))
"""


def run(setup: str, signal_name: str = "SIGINT") -> subprocess.CompletedProcess[str]:
    code = FINALIZER_GETS_THE_SIGNAL.format(setup=setup, signal=signal_name)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


HOOK = "from pokerlab.cli.entry import _interrupt_again; sys.unraisablehook = _interrupt_again"


def test_without_the_hook_python_drops_the_interrupt():
    """The failure the hook exists for (the control: it shows the case reaches a finalizer)."""
    done = run("")
    assert done.stdout.strip() == "ran on"
    assert "Exception ignored" in done.stderr and "KeyboardInterrupt" in done.stderr


def test_ctrl_c_inside_a_finalizer_is_raised_again_at_once():
    done = run(HOOK)
    name, seconds = done.stdout.split()
    assert name == "KeyboardInterrupt" and float(seconds) < 1.0, done
    assert done.stderr == ""


def test_sigterm_inside_a_finalizer_is_raised_again_as_terminated():
    setup = HOOK + "\nfrom pokerlab.cli.simulate_cmd import _Terminated, _terminate\n" \
                   "signal.signal(signal.SIGTERM, _terminate)"
    done = run(setup, "SIGTERM")
    name, seconds = done.stdout.split()
    assert name == "_Terminated" and float(seconds) < 1.0, done
    assert done.stderr == ""


def test_other_unraisable_exceptions_are_still_printed():
    code = HOOK.replace("from", "import sys\nfrom", 1) + """
class Broken:
    def __del__(self):
        raise ValueError("a finalizer's own error")
Broken()
print("ran on")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ran on"
    assert "Exception ignored" in done.stderr and "a finalizer's own error" in done.stderr


IMPORT_SWALLOWS_THE_SIGNAL = """
import signal, sys, time
from pathlib import Path
{setup}
Path(sys.argv[1], "swallowing.py").write_text(
    "import signal\\n"
    "try:\\n"
    "    signal.raise_signal(signal.{signal})  # the handler runs here, inside the import\\n"
    "    for _ in range(1000):\\n"
    "        pass\\n"
    "except BaseException:  # as a compiled extension's initialisation may (numpy.random's _generator did)\\n"
    "    pass\\n")
sys.path.insert(0, sys.argv[1])
start = time.monotonic()
try:
    import swallowing
    while time.monotonic() < start + 5:
        pass
    print("ran on")
except KeyboardInterrupt as stop:
    print(type(stop).__name__, round(time.monotonic() - start, 3))
"""


def run_import(tmp_path, setup: str, signal_name: str = "SIGINT") -> subprocess.CompletedProcess[str]:
    code = IMPORT_SWALLOWS_THE_SIGNAL.format(setup=setup, signal=signal_name)
    return subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)


def test_with_pythons_handler_an_import_swallows_ctrl_c(tmp_path):
    """The failure :func:`pokerlab.cli.entry.interrupt` exists for (the control)."""
    assert run_import(tmp_path, "").stdout.strip() == "ran on"


def test_ctrl_c_inside_an_import_is_raised_once_the_import_is_done(tmp_path):
    done = run_import(tmp_path, "from pokerlab.cli.entry import interrupt\nsignal.signal(signal.SIGINT, interrupt)")
    name, seconds = done.stdout.split()
    assert name == "KeyboardInterrupt" and float(seconds) < 1.0, done
    assert done.stderr == ""


def test_sigterm_inside_an_import_is_raised_once_the_import_is_done(tmp_path):
    setup = "from pokerlab.cli.simulate_cmd import _terminate\nsignal.signal(signal.SIGTERM, _terminate)"
    done = run_import(tmp_path, setup, "SIGTERM")
    name, seconds = done.stdout.split()
    assert name == "_Terminated" and float(seconds) < 1.0, done


def test_a_ctrl_c_that_an_extension_prints_is_left_to_the_one_line(capsys):
    """Cython's ``noexcept`` functions print an exception they cannot pass on through ``sys.excepthook`` (scipy's
    Sobol set-up printed a Ctrl-C's traceback before the command's line): the hook prints nothing for one, and
    everything else as Python does."""
    from pokerlab.cli.entry import _quiet_interrupts

    _quiet_interrupts(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert capsys.readouterr().err == ""
    _quiet_interrupts(ValueError, ValueError("a real error"), None)
    assert "ValueError: a real error" in capsys.readouterr().err


def test_the_command_line_installs_its_handlers():
    """Ctrl-C's handler and the unraisable hook are in place while a command runs, and the exception hook in
    force then (typer's, which hands what it does not dress to the one it found) prints no Ctrl-C."""
    code = ("import atexit, signal, sys\nfrom pokerlab.cli.entry import main\n"
            "def show():\n"
            "    print(signal.getsignal(signal.SIGINT).__name__, sys.unraisablehook.__name__)\n"
            "    sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)\n"
            "atexit.register(show)\n"
            "sys.argv = ['pokerlab', 'eval', 'AsKs2c3d4h']\nmain()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "interrupt _interrupt_again", done
    assert done.stderr == ""
