"""Long work that can be watched and stopped: Ctrl-C between chunks of compiled work, and progress reports.

A numba kernel cannot see Ctrl-C: the signal is only acted on when control is back in Python, and one that
arrives while native code runs can surface as a ``SystemError`` with a long traceback, or leave a state half
updated. So every engine runs long kernels in chunks (each well under a second) from a Python driver, and
runs each chunk inside :func:`deferred_interrupts`: Ctrl-C pressed during a chunk is held until the chunk
(and the bookkeeping that goes with it) is complete, then raised as ``KeyboardInterrupt``. The driver catches
it and raises :class:`pokerlab.errors.Interrupted` with what was done and the partial result.

Progress is reported through a callback (``progress(done, total)``, ``total`` None when open-ended); the CLI
renders it with a rich progress bar (``pokerlab.cli.common.progress_bar``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

from pokerlab.errors import Interrupted

T = TypeVar("T")

#: ``progress(done, total)``: units of work done so far and the planned total (None when open-ended).
ProgressCallback = Callable[[int, "int | None"], None]


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block ends, then raise ``KeyboardInterrupt`` (or hand the signal to the
    handler that was installed before). A second Ctrl-C raises at once, and so does one while a kernel compiles
    (:func:`compiling`): numba's compiler is Python code and holds none of the block's state, and a first
    compilation takes tens of seconds on a busy machine. Outside the main thread, where Python delivers no
    signals, it does nothing. Blocks nest.

    >>> with deferred_interrupts():
    ...     total = sum(range(10))
    >>> total
    45
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[tuple[int, FrameType | None]] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if received or _compilations:  # the user will not wait (e.g. for a first compilation): stop now
            signal.signal(signal.SIGINT, previous)
            raise KeyboardInterrupt
        received.append((signum, frame))

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            _deliver(previous, *received[0])


_compilations = 0


def compiling(started: bool) -> None:
    """Count a kernel compilation starting (``True``) or ending (``False``); while one runs, Ctrl-C inside
    :func:`deferred_interrupts` stops at once (:func:`pokerlab.warmup.compile_first` reports numba's compile
    events here). Only a real compilation counts: loading a cached kernel or running one keeps the hold.

    >>> import pokerlab.progress as progress
    >>> compiling(True); progress._compilations
    1
    >>> compiling(False); compiling(False); progress._compilations  # never below zero
    0
    """
    global _compilations
    _compilations = max(0, _compilations + (1 if started else -1))


def _deliver(handler: Any, signum: int, frame: FrameType | None) -> None:
    if handler is signal.default_int_handler or handler in (None, signal.SIG_DFL):
        raise KeyboardInterrupt
    if callable(handler):
        handler(signum, frame)
    # SIG_IGN: the caller asked for Ctrl-C to be ignored


def stop_if_interrupted(result: T, done: str) -> T:
    """Return ``result``, or raise :class:`~pokerlab.errors.Interrupted` (``done`` says what was done, the result
    is its ``partial``) when its ``stop_reason`` is ``'interrupted'``: a Monte Carlo run stopped by Ctrl-C keeps
    its honest estimate, and the caller still sees the interrupt.

    >>> from types import SimpleNamespace
    >>> stop_if_interrupted(SimpleNamespace(stop_reason="trials"), "after 10 trials").stop_reason
    'trials'
    """
    if getattr(result, "stop_reason", None) == "interrupted":
        raise Interrupted(done, partial=result)
    return result
