"""A real ``pokerlab serve`` process on a free port of 127.0.0.1, for the browser, server and load tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]
    started_s: float  # from launching `pokerlab serve` to its first answer
    log: Path  # the server's and its workers' standard error

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's log, for a failing test's message."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def start_server(*options: str) -> LiveServer:
    """``pokerlab serve`` on a free port; returns once ``/api/info`` answers."""
    port = free_port()
    command = [sys.executable, "-m", "pokerlab.cli.main", "serve", "--port", str(port), *options]
    start = time.perf_counter()
    # a file, not a pipe: nobody reads a pipe while the tests run, and a full one would block the server's logging
    log = Path(tempfile.mkstemp(prefix="pokerlab-serve-", suffix=".log")[1])
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink)
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/api/info", timeout=1.0).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"pokerlab serve did not start: {log.read_text(errors='replace')}")
        time.sleep(0.05)
    return LiveServer(url, process, time.perf_counter() - start, log)


def wait_for_answer(url: str, timeout: float = 60.0, poll: float = 0.02) -> None:
    """Return the instant ``url`` answers 200 (a server still starting refuses connections, asked every
    ``poll`` seconds); a server silent for ``timeout`` seconds fails the test."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(poll)
    raise AssertionError(f"{url} did not answer within {timeout:g} s")


def stop_server(server: LiveServer) -> int:
    """Ctrl-C the server as a user would; returns its exit status."""
    server.process.send_signal(signal.SIGINT)
    try:
        return server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise


def wait_until_idle(url: str, timeout: float = 900.0) -> dict:
    """Wait for the workers to finish warming up (on a fresh clone numba compiles every kernel first: minutes)."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = httpx.post(f"{url}/api/equity", json={"players": ["2c2d", "3c3d"], "board": "AhKhQh"},
                              timeout=timeout)
        if response.status_code == 200:
            return response.json()
        # a full line of waiting jobs is the only answer that means "not yet"; any other is a fault to report
        assert response.status_code == 503, f"{response.status_code}: {response.text}"
        time.sleep(0.1)
    raise RuntimeError("the server's workers did not become ready")


def kill_if_running(process: subprocess.Popen[str]) -> None:
    """Kill a server started in its own session (``start_new_session``), workers included, unless it ended."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def assert_stopped_in_one_line(process: subprocess.Popen[str], stderr: str) -> None:
    """A server stopped by Ctrl-C: exit status 130, its banner and then the one line ``stopped``."""
    lines = stderr.strip().splitlines()
    assert process.returncode == 130, stderr
    assert lines[-1] == "stopped" and len(lines) == 2, stderr  # the banner, then the one line of Ctrl-C
