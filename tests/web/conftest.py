"""Fixtures of the web tests: an in-process app (FastAPI's test client) and a real server on 127.0.0.1 started
with ``pokerlab serve`` (the browser and load tests talk to it over TCP)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app with one worker process and a small job time limit (so the limit can be tested quickly)."""
    with TestClient(create_app(Settings(workers=1, max_queue=8, limits=Limits(job_seconds=20.0)))) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]
    started_s: float  # from launching `pokerlab serve` to its first answer


def start_server(*options: str) -> LiveServer:
    """``pokerlab serve`` on a free port; returns once ``/api/info`` answers."""
    port = free_port()
    command = [sys.executable, "-m", "pokerlab.cli.main", "serve", "--port", str(port), *options]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
            raise RuntimeError(f"pokerlab serve did not start: {process.stderr.read().decode() if process.stderr else ''}")
        time.sleep(0.05)
    return LiveServer(url, process, time.perf_counter() - start)


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
    raise RuntimeError("the server's workers did not become ready")


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    server = start_server("--workers", "2", "--queue", "64")
    wait_until_idle(server.url)
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium driven by Playwright (no browser download: `make browser` installs chromium)."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium: `make browser` installs it with apt-get (needs root or sudo)")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with playwright_api.sync_playwright() as playwright:
        # launch() gives chromium a fresh empty profile directory of its own
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=flags)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    """Where the browser tests save their screenshots: docs/ when POKERLAB_SCREENSHOTS=docs (to refresh the
    README's pictures), else a temporary folder."""
    if os.environ.get("POKERLAB_SCREENSHOTS") == "docs":
        return Path(__file__).resolve().parents[2] / "docs"
    return tmp_path_factory.mktemp("screenshots")
