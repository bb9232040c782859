"""The worker pool's wire: messages arrive whole however the socket hands them over.

uvicorn runs the app on uvloop, which makes every descriptor it watches non-blocking; a large result then arrives
in pieces, and reading it with ``multiprocessing``'s blocking ``recv`` raised ``BlockingIOError`` half-way
through, which the pool took for a dead worker (the browser test's Leduc solve failed on CI that way)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import socket
from collections.abc import Callable
from typing import Any

import pytest

from pokerlab.web import jobs
from pokerlab.web.jobs import WorkerPool


def in_thread(run: Callable[..., Any], *args: Any) -> Any:
    """Run an event loop in a thread of its own: the browser tests' Playwright keeps one in this thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run, *args).result()


class _FakeProcess:
    pid = 0
    exitcode = None

    def join(self, timeout: float | None = None) -> None:
        pass


def test_a_message_that_arrives_in_pieces_is_read_whole_and_is_not_a_death():
    async def scenario() -> list[list]:
        server_end, worker_end = socket.socketpair()
        server_end.setblocking(False)
        pool = WorkerPool(1, 1, warm=False)
        connection = type("Conn", (), {"fileno": lambda self: server_end.fileno()})()
        worker = jobs._Worker(_FakeProcess(), connection)  # type: ignore[arg-type]
        frame = jobs._frame(("done", {"strategy": {f"infoset {i}": [0.25, 0.75] for i in range(4000)}}))
        assert len(frame) > 100_000
        got = []
        for start in range(0, len(frame), 40_000):  # the worker's write reaches the server in three pieces
            worker_end.sendall(frame[start:start + 40_000])
            pool._on_readable(worker)
            while not worker.messages.empty():
                got.append(worker.messages.get_nowait())
        worker_end.close()
        pool._on_readable(worker)  # now the worker really is gone
        got.append(worker.messages.get_nowait())
        server_end.close()
        return got

    done, dead = in_thread(asyncio.run, scenario())
    assert done[0] == "done" and len(done[1]["strategy"]) == 4000
    assert dead == ["dead"]


def test_frames_round_trip_through_a_blocking_socket():
    left, right = socket.socketpair()
    with left, right:
        jobs._write_all(left.fileno(), jobs._frame(("run", "solve", {"game": "kuhn"})))
        assert jobs._read_message(right.fileno()) == ["run", "solve", {"game": "kuhn"}]
        left.close()
        with pytest.raises(EOFError):
            jobs._read_message(right.fileno())


def test_a_pool_under_uvloop_returns_a_large_result():
    """The server's own loop (uvicorn picks uvloop when it is installed): a Leduc solve's result is tens of KB
    (82 KB at 3,000 iterations)."""
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> dict:
        pool = WorkerPool(1, 1, warm=False)
        await pool.start()
        try:
            return await pool.run("solve", {"game": "leduc", "algo": "cfr+", "iterations": 200}, 300.0)
        finally:
            await pool.close()

    result = in_thread(uvloop.run, scenario())
    assert result["iterations"] == 200 and len(result["strategy"]) > 100
