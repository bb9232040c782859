"""Fixtures of the web tests: an in-process app (FastAPI's test client) and a real server on 127.0.0.1 started
with ``pokerlab serve`` (the browser and load tests talk to it over TCP)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402
from web.live import LiveServer, start_server, stop_server, wait_until_idle  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app with one worker process and a small job time limit (so the limit can be tested quickly)."""
    with TestClient(create_app(Settings(workers=1, max_queue=8, limits=Limits(job_seconds=20.0)))) as test_client:
        yield test_client


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


@pytest.fixture
def page(browser, live_server):
    """A fresh tab on the page, ready (menus filled, grid drawn); fails the test on any JavaScript error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{live_server.url}/")
    tab.wait_for_selector("body[data-ready='1']")
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
