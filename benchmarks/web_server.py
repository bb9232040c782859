"""Web benchmark: server start, the page's first paint and a grid stroke in headless Chromium, and the mixed load
test (2,000 requests, 50 at a time) with p50/p99 latency per request kind and the server's memory.

Run: ``python benchmarks/web_server.py`` (needs the web extra, httpx, psutil; Playwright and /usr/bin/chromium for the
page timings, skipped without them). The numba kernels are compiled before anything is timed: the first server
start warms the on-disk cache and is reported apart.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from _machine import machine_description
from pokerlab.web.loadtest import run_load

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web.live import start_server, stop_server, wait_until_idle  # noqa: E402
from web.page_timing import page_timings as measure_page  # noqa: E402


def instruction_sets() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return "unknown"
    return " ".join(sorted({f for f in flags if f.startswith("avx")})) or "no AVX"


def page_timings(url: str, repeats: int = 5) -> dict[str, float]:
    """Best of ``repeats`` fresh pages, each timed inside the browser (tests/web/page_timing.py): first
    contentful paint, page ready, a grid click until the repaint and until the text box shows the range, in ms."""
    from playwright.sync_api import sync_playwright

    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    best: dict[str, float] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=flags)
        for _ in range(repeats):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            for key, value in measure_page(context.new_page(), f"{url}/").items():
                best[key] = min(best.get(key, float("inf")), value)
            context.close()
        browser.close()
    return best


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    print(f"machine: {machine_description()}; {instruction_sets()}")
    print(f"load before: {load()}")
    server = start_server("--workers", "2", "--queue", "64")
    wait_until_idle(server.url)  # compiles every kernel on a fresh checkout
    stop_server(server)
    starts = []
    for _ in range(3):
        server = start_server("--workers", "2", "--queue", "64")
        starts.append(server.started_s)
        if len(starts) < 3:
            stop_server(server)
    print(f"server start (launch to first answer, kernels cached): best {min(starts):.2f} s, "
          f"worst {max(starts):.2f} s of {len(starts)}")
    start = time.perf_counter()
    wait_until_idle(server.url)
    print(f"workers ready for a first computation {time.perf_counter() - start:.2f} s after that")
    try:
        if Path("/usr/bin/chromium").exists():
            timings = page_timings(server.url)
            print("page (best of 5, ms): " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()))
        cached = {"players": ["AhAs", "KdKc"]}
        httpx.post(f"{server.url}/api/equity", json=cached, timeout=60)
        alone = []
        for _ in range(200):
            t0 = time.perf_counter()
            httpx.post(f"{server.url}/api/equity", json=cached)
            alone.append(time.perf_counter() - t0)
        alone.sort()
        print(f"cached heads-up preflop equity, one client: p50 {1e3 * alone[100]:.2f} ms, "
              f"p99 {1e3 * alone[198]:.2f} ms")
        report = asyncio.run(run_load(server.url, requests=int(os.environ.get("WEB_LOAD_REQUESTS", 2000)),
                                      concurrency=50, pid=server.process.pid))
        summary = report.summary()
        print(f"load: {sum(report.statuses.values())} requests, 50 concurrent, {summary['wall_s']:.1f} s, "
              f"{summary['requests_per_s']:.0f} req/s, statuses {summary['statuses']}, memory "
              f"{summary['memory_before_mib']:.0f} -> {summary['memory_after_mib']:.0f} MiB (server + workers)")
        print(f"{'kind':<15}{'n':>6}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
        for kind, row in summary["kinds"].items():
            print(f"{kind:<15}{row['n']:>6}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}{row['max_ms']:>10.1f}")
    finally:
        stop_server(server)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
