"""Web benchmark: server start, the page's first paint and a grid stroke in headless Chromium, and the mixed load
test (2,000 requests, 50 at a time) with p50/p99 latency per request kind and the server's memory.

Run: ``python benchmarks/web_server.py`` (needs the web extra, httpx, psutil; Playwright and /usr/bin/chromium for the
page timings, skipped without them). The numba kernels are compiled before anything is timed: the first server
start warms the on-disk cache and is reported apart.
"""

from __future__ import annotations

import asyncio
import json
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


PROBE = """
import http.client, json, sys, time
host, port = sys.argv[1], int(sys.argv[2])
body = json.dumps({"players": ["AhAs", "KdKc"]})
connection = http.client.HTTPConnection(host, port, timeout=120)
latencies = []
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()  # go
while True:
    start = time.perf_counter()
    connection.request("POST", "/api/equity", body, {"Content-Type": "application/json"})
    response = connection.getresponse(); response.read()
    assert response.status == 200 and response.getheader("X-Pokerlab-Cache") == "hit"
    latencies.append(time.perf_counter() - start)
    time.sleep(0.02)
    if len(latencies) % 25 == 0:
        sys.stdout.write(json.dumps(latencies) + "\\n"); sys.stdout.flush()
        latencies = []
"""


def start_probe(url: str) -> subprocess.Popen[str]:
    """A page's view of the server under load: another process (its own CPU share, not the load generator's
    event loop) sending a cached heads-up preflop equity every 20 ms on one kept-alive connection (plain
    http.client: no client library's overhead in the figure)."""
    host, port = url.removeprefix("http://").split(":")
    probe = subprocess.Popen([sys.executable, "-c", PROBE, host, port], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert probe.stdout is not None and probe.stdout.readline().strip() == "ready"
    return probe


def stop_probe(probe: subprocess.Popen[str]) -> list[float]:
    probe.kill()
    out, _ = probe.communicate()
    return sorted(x for line in out.splitlines() if line.startswith("[") for x in json.loads(line))


def percentiles(values: list[float]) -> str:
    return (f"n {len(values)}, p50 {1e3 * values[len(values) // 2]:.1f} ms, "
            f"p99 {1e3 * values[min(len(values) - 1, int(0.99 * len(values)))]:.1f} ms, max {1e3 * values[-1]:.1f} ms")


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
        with httpx.Client(base_url=server.url, timeout=60) as client:  # one kept-alive connection, as a page's
            client.post("/api/equity", json=cached)
            alone = []
            for _ in range(200):
                t0 = time.perf_counter()
                client.post("/api/equity", json=cached)
                alone.append(time.perf_counter() - t0)
        print(f"cached heads-up preflop equity, one client, idle server: {percentiles(sorted(alone))}")
        probe = start_probe(server.url)
        # The load generator (50 httpx clients in one Python process) shares this machine's 2 cores with the
        # server: it runs at nice 5 from here on, as the other users of a real server run on their own machines
        # (the server and its workers were started before, at the usual priority)
        os.nice(5)
        assert probe.stdin is not None
        probe.stdin.write("go\n")
        probe.stdin.flush()
        report = asyncio.run(run_load(server.url, requests=int(os.environ.get("WEB_LOAD_REQUESTS", 2000)),
                                      concurrency=50, pid=server.process.pid))
        summary = report.summary()
        during = percentiles(stop_probe(probe))
        print(f"cached heads-up preflop equity seen by a separate client during the load: {during}")
        print(f"load: {sum(report.statuses.values())} requests, 50 concurrent, {summary['wall_s']:.1f} s, "
              f"{summary['requests_per_s']:.0f} req/s, statuses {summary['statuses']}, "
              f"unanswered {summary['failures'] or 'none'}, memory "
              f"{summary['memory_before_mib']:.0f} -> {summary['memory_after_mib']:.0f} MiB (server + workers)")
        print(f"{'kind':<15}{'n':>6}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
        for kind, row in summary["kinds"].items():
            print(f"{kind:<15}{row['n']:>6}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}{row['max_ms']:>10.1f}")
    finally:
        stop_server(server)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
