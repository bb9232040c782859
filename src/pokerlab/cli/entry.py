"""The ``pokerlab`` console script and ``python -m pokerlab``: Ctrl-C is one line from the first moment.

While the command line loads (typer, rich, then the command's module: the first ~0.1-0.2 s), Python's own handler
would turn Ctrl-C into a ``KeyboardInterrupt`` traceback. :func:`main` runs before any of that: it makes Ctrl-C
print ``interrupted`` and exit 130 at once (nothing has been done yet, so nothing is lost) and, once the
application is loaded, makes it a ``KeyboardInterrupt`` (:func:`interrupt`, which no import can swallow), which
every command turns into its own one line saying what was done. It imports only modules Python has loaded at start
(``os``, ``sys``, ``_thread`` and ``_signal``, the C module under ``signal``, whose ``enum`` import alone takes 6
ms) and, through the package, nothing heavy (``pokerlab/__init__.py`` loads the API lazily). What is left is
Python's own start (``site``, and ``runpy`` for ``-m``: 10-40 ms), where no code of ours can run: a Ctrl-C there
ends the process by the signal, silently, or prints Python's traceback of its start-up.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # what `signal` re-exports, without its 6 ms of enums
import _thread
import os
import sys

TYPE_CHECKING = False  # typing is not loaded at Python's start: importing it would widen the window above
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

EXIT_INTERRUPTED = 130


def _stop_at_once(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)  # no work yet: nothing to save or flush


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


_MAIN_THREAD = _thread.get_ident()  # the console script and ``-m`` import this module in the main thread


def _when_imported(signum: int) -> None:
    """Raise ``signum`` again in the main thread once it has left every import (polled every 5 ms)."""
    pause = _thread.allocate_lock()
    pause.acquire()
    while _importing(sys._current_frames().get(_MAIN_THREAD)):
        pause.acquire(timeout=0.005)
    _thread.interrupt_main(signum)  # type: ignore[arg-type]  # the C function takes any signal number


def interrupt(signum: int, frame: object, stop: type[BaseException] = KeyboardInterrupt) -> None:
    """Ctrl-C's handler once the command line is loaded (and SIGTERM's, with ``stop``): raise ``stop``, but not
    inside an import, where it is raised again as soon as the import is done.

    A module's import may swallow any exception: a compiled extension's initialisation does (numpy.random's
    ``_generator`` while numba loads, 0.15-0.3 s after a command starts here), and the Ctrl-C was gone, with no
    line, while the command ran on (1 run in 50 to 800 at those moments). No command's work runs inside an
    import, so nothing waits on this but the import itself."""
    if _importing(sys._getframe(1)):
        _thread.start_new_thread(_when_imported, (signum,))
        return
    raise stop


def _interrupt_again(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt that Python would drop is delivered again.

    A signal's handler runs wherever the main thread is between two instructions, also inside a finalizer
    (``__del__``, a weakref callback: numba, llvmlite and multiprocessing run many), and an exception raised there
    is printed as "Exception ignored" and dropped: the command ran on. The signal is raised again from a new
    thread once this hook has returned (raised here, it would land inside the hook, whose own exceptions are
    dropped too); the exception may carry ``signum`` (the signal it stands for; Ctrl-C's SIGINT by default)."""
    stop = unraisable.exc_value
    if isinstance(stop, KeyboardInterrupt):
        try:
            _thread.start_new_thread(_thread.interrupt_main, (getattr(stop, "signum", _signal.SIGINT),))
            return
        except RuntimeError:  # no new thread at interpreter shutdown: nothing is left to stop
            pass
    sys.__unraisablehook__(unraisable)


def _quiet_interrupts(kind: type[BaseException], error: BaseException, traceback: Any) -> None:
    """``sys.excepthook`` (Python calls it for an exception that nothing caught, and a compiled extension calls
    it for one it cannot pass on, e.g. Cython's ``noexcept`` functions: scipy's Sobol set-up printed a Ctrl-C's
    traceback there): a ``KeyboardInterrupt`` prints nothing, as the command line says it in one line (after
    :func:`_interrupt_again` raises it again); everything else as Python prints it."""
    if not issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, traceback)


def main() -> None:
    """Run the command line: Ctrl-C is one ``interrupted`` line while the application loads, then a
    ``KeyboardInterrupt`` (:func:`interrupt`) that each command turns into its own line."""
    sys.unraisablehook = _interrupt_again
    sys.excepthook = _quiet_interrupts
    # Only where Ctrl-C would raise KeyboardInterrupt: `nohup pokerlab ...` (or a caller that ignores SIGINT) keeps
    # ignoring it
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _stop_at_once)
    from pokerlab.cli.main import app

    try:
        if _signal.getsignal(_signal.SIGINT) is _stop_at_once:
            _signal.signal(_signal.SIGINT, interrupt)
        app()
    except KeyboardInterrupt:  # between handing Ctrl-C back and the application's own handling of it
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
