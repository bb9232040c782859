"""A bounded pool of worker processes for the web app's CPU work.

The numba kernels hold the GIL while they run, so CPU work in a thread of the server would stall the event loop
(and every cached answer behind it) for as long as a kernel call lasts. Each job therefore runs in one of a few
long-lived worker processes. A job that runs past its time limit, or whose client went away, is stopped by
killing its worker (a kernel cannot be interrupted any other way) and a fresh worker takes its place.

Messages between the server and a worker are JSON arrays (a name, then JSON objects) in length-prefixed frames
over a socket pair; a worker only runs the task functions named in :data:`pokerlab.web.tasks.TASKS`, never code
sent by a client. The server reads its end without ever blocking, whatever mode the event loop leaves the socket
in: uvicorn's uvloop makes every descriptor it watches non-blocking, and a large result then arrives in pieces
(``multiprocessing``'s ``Connection.recv`` raised ``BlockingIOError`` half-way through a message, which looked
like a dead worker).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import struct
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from typing import Any

log = logging.getLogger("pokerlab.web")

ProgressHandler = Callable[[dict[str, Any]], None]


class QueueFullError(Exception):
    """Every worker is busy and the waiting line is at its bound: the client should retry later."""


class JobTimeoutError(Exception):
    """A job ran past its time limit and its worker was stopped."""


class JobFailedError(Exception):
    """A job raised an error: ``status`` 422 for bad input (the library's message), 500 for a bug."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


_HEADER = struct.Struct("!Q")  # the length of the JSON text that follows, in bytes


def _frame(message: tuple[Any, ...] | list[Any]) -> bytes:
    """``message`` as one frame: its length, then its JSON text."""
    body = json.dumps(message).encode()
    return _HEADER.pack(len(body)) + body


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` whole to ``fd``, waiting whenever a non-blocking socket's buffer is full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            select.select([], [fd], [])


def _read_exact(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``; :class:`EOFError` when the other end closed first."""
    parts: list[bytes] = []
    while size:
        try:
            chunk = os.read(fd, size)
        except BlockingIOError:
            select.select([fd], [], [])
            continue
        if not chunk:
            raise EOFError
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _read_message(fd: int) -> list[Any]:
    """The next whole message from ``fd`` (blocking: the worker's side)."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    message: list[Any] = json.loads(_read_exact(fd, size))
    return message


def _take_messages(buffer: bytearray) -> list[list[Any]]:
    """Remove and return the whole messages at the start of ``buffer`` (the server's side reads in pieces).

    >>> buffer = bytearray(_frame(("ready",)) + _frame(("progress", {"fraction": 0.5}))[:9])
    >>> _take_messages(buffer), len(buffer)
    ([['ready']], 9)
    """
    messages = []
    while len(buffer) >= _HEADER.size:
        (size,) = _HEADER.unpack_from(buffer)
        end = _HEADER.size + size
        if len(buffer) < end:
            break
        messages.append(json.loads(bytes(buffer[_HEADER.size:end])))
        del buffer[:end]
    return messages


def _throttled_sender(fd: int) -> Callable[..., None]:
    """A progress callback that sends at most ten messages a second (the page cannot draw more)."""
    last = [0.0]

    def report(data: dict[str, Any], force: bool = False) -> None:
        now = time.monotonic()
        if force or now - last[0] >= 0.1:
            last[0] = now
            _write_all(fd, _frame(("progress", data)))

    return report


def _worker_main(conn: multiprocessing.connection.Connection, warm: bool) -> None:
    """Body of a worker process: warm the kernels, then run one job at a time until the pipe closes."""
    # Ctrl-C in the terminal reaches the whole process group: the server shuts down and kills its workers, so
    # a worker ignores it rather than print a traceback from inside a kernel (it started with SIGINT blocked, see
    # _sigint_blocked_for_children: one sent since is discarded here)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # below the server: on a machine with few cores a long job must not delay the answers the server gives from
    # its cache (measured: a cached answer's p99 rose to 74 ms under load with equal priority)
    os.nice(5)
    try:
        _serve_jobs(conn, warm)
    except BaseException:  # noqa: BLE001 - a worker must not die slowly and silently
        # Left to propagate, an error here would close the pipe at once (the server sees the worker gone) and
        # then spend seconds in interpreter shutdown with no exit code to report; say why and exit now instead.
        print(f"pokerlab web worker {os.getpid()} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        os._exit(70)


def _serve_jobs(conn: multiprocessing.connection.Connection, warm: bool) -> None:
    from pokerlab.errors import PokerlabError
    from pokerlab.web.tasks import TASKS, warm_kernels

    fd = conn.fileno()
    if warm:
        warm_kernels()
    _write_all(fd, _frame(("ready",)))
    while True:
        try:
            _, name, params = _read_message(fd)
        except (EOFError, OSError):  # the server closed its end: it is shutting down or retired this worker
            return
        reply: tuple[Any, ...]
        try:
            reply = ("done", TASKS[name](params, _throttled_sender(fd)))
        except PokerlabError as error:
            reply = ("error", 422, str(error))
        except Exception as error:  # a bug: keep the worker alive, say so in the log and to the client
            reply = ("error", 500, f"internal error ({type(error).__name__}); see the server log")
            log.error("task %s failed:\n%s", name, traceback.format_exc())
        try:
            frame = _frame(reply)
        except (TypeError, ValueError) as error:  # a result that is not JSON is a bug of the task
            log.error("task %s returned a result that is not JSON:\n%s", name, traceback.format_exc())
            frame = _frame(("error", 500, f"internal error ({type(error).__name__}); see the server log"))
        _write_all(fd, frame)


@contextlib.contextmanager
def _sigint_blocked_for_children() -> Iterator[None]:
    """Start processes with SIGINT blocked from their first instruction (the signal mask of the starting thread
    is kept through fork and exec); a worker then ignores it, and a Ctrl-C sent in between is discarded unseen.
    (A Ctrl-C to the process group while a worker imported printed a traceback per worker.) This process's own
    handling of SIGINT is never changed: ignoring it here for those milliseconds dropped a Ctrl-C that reached
    a thread not blocking it (OpenBLAS's native threads), sent the instant the server first answered.
    multiprocessing's resource tracker, started by the first spawn, unblocks SIGINT in the starting thread
    whatever its mask was (bpo-33613's guard): it is started first, and the mask restored after."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    try:
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _exit_status(worker: _Worker) -> str:
    """How a worker that closed its end ended, in words (waits up to a second for it to finish exiting)."""
    worker.process.join(timeout=1.0)
    code = worker.process.exitcode
    if code is None:
        return f"pid {worker.process.pid} closed its pipe and is still running"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"pid {worker.process.pid} killed by {signal.Signals(-code).name}; out of memory?"
    return f"pid {worker.process.pid} exit code {code}; see the server log"


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection  # owns the server's end of the socket pair
    messages: asyncio.Queue[list[Any]] = field(default_factory=asyncio.Queue)
    received: bytearray = field(default_factory=bytearray)  # a message's first pieces until it is whole
    ready: bool = False


class WorkerPool:
    """``workers`` processes, at most ``max_queue`` jobs waiting for one; :meth:`run` is the only entry point.

    Use as ``pool = WorkerPool(2, 32); await pool.start(); result = await pool.run("equity", {...}, 10.0)``.
    """

    def __init__(self, workers: int, max_queue: int, warm: bool = True) -> None:
        self.size = workers
        self.max_queue = max_queue
        self.warm = warm
        self.waiting = 0
        self.running = 0
        self.restarts = 0
        self._context = multiprocessing.get_context("spawn")  # no fork of a process running an event loop
        self._idle: asyncio.Queue[_Worker | None] = asyncio.Queue()  # None: the pool is broken
        self._workers: set[_Worker] = set()
        self._closed = False
        self._failed_starts = 0
        # the jobs waiting for a worker, first first (asyncio.Queue serves its getters in that order): each
        # waiter's progress handler, told its place whenever it changes
        self._line: list[list[ProgressHandler | None]] = []

    async def start(self) -> None:
        """Start the worker processes; they join the idle queue once their kernels are warm."""
        for _ in range(self.size):
            self._spawn()

    def _spawn(self) -> None:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=_worker_main, args=(child, self.warm), daemon=True,
                                        name="pokerlab-web-worker")
        with _sigint_blocked_for_children():
            process.start()
        child.close()
        os.set_blocking(parent.fileno(), False)  # read what has arrived, never wait for the rest
        worker = _Worker(process, parent)
        self._workers.add(worker)
        loop = asyncio.get_running_loop()
        loop.add_reader(parent.fileno(), self._on_readable, worker)

    def _on_readable(self, worker: _Worker) -> None:
        closed = False
        try:
            while chunk := os.read(worker.conn.fileno(), 1 << 16):
                worker.received += chunk
            closed = True  # an empty read: the worker's end is closed
        except BlockingIOError:  # all that has arrived is read
            pass
        except OSError:
            closed = True
        for message in _take_messages(worker.received):
            if message[0] == "ready":
                worker.ready = True
                self._failed_starts = 0
                self._idle.put_nowait(worker)
            else:
                worker.messages.put_nowait(message)
        if closed:
            asyncio.get_running_loop().remove_reader(worker.conn.fileno())
            worker.messages.put_nowait(["dead"])
            if not worker.ready:  # died while starting: try again a few times, then give up loudly
                self._failed_starts += 1
                log.error("a worker process died while starting (%d in a row)", self._failed_starts)
                self._workers.discard(worker)
                if self._failed_starts < 3 and not self._closed:
                    self._spawn()
                else:
                    self._idle.put_nowait(None)

    def _retire(self, worker: _Worker) -> None:
        """Kill a worker (it may be inside a kernel) and start a fresh one in its place."""
        self._workers.discard(worker)
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        worker.process.kill()
        worker.conn.close()
        worker.process.join(timeout=1.0)
        self.restarts += 1
        if not self._closed:
            self._spawn()

    async def run(self, task: str, params: dict[str, Any], time_limit: float,
                  progress: ProgressHandler | None = None) -> Any:
        """Run ``task(params)`` in a worker and return its result.

        Raises :class:`QueueFullError` at once when ``max_queue`` jobs already wait, :class:`JobTimeoutError`
        when the job runs longer than ``time_limit`` seconds (waiting in line not counted), and
        :class:`JobFailedError` for an error inside the task, or a worker that died during the job (status 500;
        not run again: a job that made the system kill its worker would kill the next one too). Cancelling the
        awaiting coroutine (a client that disconnected) kills the job's worker.
        """
        if self._idle.empty() and self.waiting >= self.max_queue:
            raise QueueFullError
        self.waiting += 1
        place: list[ProgressHandler | None] = [progress]
        self._line.append(place)
        if self._idle.empty():
            self._tell_places(len(self._line) - 1)
        try:
            worker = await self._idle.get()
        finally:
            self.waiting -= 1
            behind = self._line.index(place)
            del self._line[behind]
            self._tell_places(behind)
        if worker is None:
            self._idle.put_nowait(None)  # wake the next waiter too
            raise JobFailedError(503, "the worker processes cannot start; see the server log")
        if not worker.process.is_alive():
            self._retire(worker)
            raise JobFailedError(503, "a worker process stopped unexpectedly; try again")
        self.running += 1
        deadline = time.monotonic() + time_limit
        finished = False
        try:
            _write_all(worker.conn.fileno(), _frame(("run", task, params)))
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise JobTimeoutError
                try:
                    message = await asyncio.wait_for(worker.messages.get(), timeout=remaining)
                except TimeoutError:
                    raise JobTimeoutError from None
                kind = message[0]
                if kind == "progress":
                    if progress is not None:
                        progress(message[1])
                    continue
                if kind == "dead":
                    status = _exit_status(worker)
                    log.error("a worker died during %s: %s", task, status)
                    raise JobFailedError(500, f"the worker process died during the job ({status})")
                finished = True
                if kind == "error":
                    raise JobFailedError(message[1], message[2])
                return message[1]
        finally:
            if finished:
                self._idle.put_nowait(worker)
            else:  # timed out, cancelled or dead: the worker may still be computing
                self._retire(worker)
            # last: /api/health reads these from another thread (while _retire waits for the killed process), and
            # no job running must mean its worker's restart is counted
            self.running -= 1

    def _tell_places(self, start: int) -> None:
        """Tell the waiters from ``start`` on their place in the line (1: next to get a worker)."""
        for index in range(start, len(self._line)):
            handler = self._line[index][0]
            if handler is not None:
                handler({"queue": index + 1, "workers": self.size})

    def pids(self) -> list[int]:
        """Process ids of the live workers (for memory accounting)."""
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    async def close(self) -> None:
        """Stop every worker."""
        self._closed = True
        for worker in list(self._workers):
            self._retire(worker)
