"""A mixed-request load test against a running ``pokerlab serve``: latency per request kind, status codes and
the server's memory (its process and its workers) before and after.

``python -m pokerlab.web.loadtest http://127.0.0.1:8000 --requests 2000 --concurrency 50`` (needs httpx, and
psutil with ``--pid`` for memory).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

HEADS_UP = [["AhAs", "KdKc"], ["AsKs", "QhQd"], ["7c7d", "AhKd"], ["JsTs", "2c2d"], ["AcKd", "AhQs"],
            ["QQ+, AKs", "JJ-88"], ["9h8h", "AcKc"], ["KsKh", "AdKd"], ["5d5c", "AsKh"], ["TT", "AKo"]]
RANGES = ["QQ+, AKs", "22+, A2s+, KTs+, QJs", "15%", "AKs:0.5, JJ", "random", "T9s-65s, 55-22", "AsKs, 8h8d"]
RANKS = "23456789TJQKA"
SUITS = "cdhs"

# share of requests of each kind (the cached heads-up preflop equity is the page's most common call)
MIX = {"equity_cached": 0.5, "range": 0.15, "icm": 0.15, "equity_flop": 0.1, "solve": 0.05, "pushfold": 0.05}
TIMEOUT_S = 120.0  # a request unanswered this long is recorded as a ReadTimeout of its kind


def _request(kind: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    if kind == "equity_cached":
        return "/api/equity", {"players": rng.choice(HEADS_UP)}
    if kind == "range":
        return "/api/range", {"text": rng.choice(RANGES), "paint": {"AKo": rng.choice([0, 0.5, 1])}}
    if kind == "icm":
        n = rng.randint(3, 9)
        return "/api/icm", {"stacks": [rng.randint(1, 100) * 100 for _ in range(n)], "payouts": "50,30,20",
                            "deal": True}
    if kind == "equity_flop":
        cards = rng.sample([r + s for r in RANKS for s in SUITS], 7)
        return "/api/equity", {"players": [cards[0] + cards[1], cards[2] + cards[3]], "board": "".join(cards[4:])}
    if kind == "solve":
        return "/api/solve", {"game": "kuhn", "iterations": rng.choice([100, 200, 300])}
    return "/api/pushfold", {"stacks": [rng.choice([8, 10, 12]), 10]}


@dataclass
class LoadReport:
    """Latencies (seconds) and outcomes per request kind, memory (MiB) before and after, wall time. An outcome is
    the HTTP status code, or the name of the client error that ended the request (``ReadTimeout`` after
    :data:`TIMEOUT_S`, a dropped connection, ...): a request the server never answered is counted, not fatal."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    memory_before_mib: float | None = None
    memory_after_mib: float | None = None
    wall_s: float = 0.0

    def percentile(self, kind: str, q: float) -> float:
        values = sorted(self.latencies[kind])
        return values[min(len(values) - 1, int(q * len(values)))]

    def summary(self) -> dict[str, Any]:
        kinds = {kind: {"n": len(v), "p50_ms": 1e3 * self.percentile(kind, 0.5),
                        "p99_ms": 1e3 * self.percentile(kind, 0.99), "max_ms": 1e3 * max(v)}
                 for kind, v in sorted(self.latencies.items())}
        return {"kinds": kinds, "statuses": dict(self.statuses), "failures": dict(self.failures),
                "memory_before_mib": self.memory_before_mib,
                "memory_after_mib": self.memory_after_mib, "wall_s": self.wall_s,
                "requests_per_s": sum(len(v) for v in self.latencies.values()) / self.wall_s}


def server_memory_mib(pid: int) -> float:
    """Resident memory of the server process and all its children (the workers), MiB."""
    import psutil

    process = psutil.Process(pid)
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            total += child.memory_info().rss
    mebibytes: float = total / 2**20
    return mebibytes


async def run_load(url: str, requests: int = 2000, concurrency: int = 50, seed: int = 0,
                   pid: int | None = None) -> LoadReport:
    """Send ``requests`` mixed requests, ``concurrency`` at a time (each kind's share is :data:`MIX`), while one
    more client sends a cached heads-up preflop equity every 50 ms (``probe_cached``)."""
    import httpx

    rng = random.Random(seed)
    kinds = rng.choices(list(MIX), weights=list(MIX.values()), k=requests)
    report = LoadReport()
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S,
                                 limits=httpx.Limits(max_connections=concurrency)) as client:
        # first sight of each cached request happens here, so the timed run measures the cache
        for players in HEADS_UP:
            await client.post("/api/equity", json={"players": players})
        if pid is not None:
            report.memory_before_mib = server_memory_mib(pid)
        queue: asyncio.Queue[str] = asyncio.Queue()
        for kind in kinds:
            queue.put_nowait(kind)

        async def send(http: httpx.AsyncClient, kind: str, path: str, body: dict[str, Any]) -> None:
            start = time.perf_counter()
            try:
                response = await http.post(path, json=body)
            except httpx.HTTPError as error:  # unanswered: recorded with its kind, the run goes on
                outcome = type(error).__name__
                report.failures[f"{kind} {outcome}"] += 1
            else:
                outcome = str(response.status_code)
            report.latencies[kind].append(time.perf_counter() - start)
            report.statuses[outcome] += 1

        async def user() -> None:
            while not queue.empty():
                kind = queue.get_nowait()
                await send(client, kind, *_request(kind, rng))

        async def probe() -> None:
            # one more client, as a page would be: a cached heads-up preflop equity every 50 ms during the load
            async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S) as own:
                while not queue.empty():
                    await send(own, "probe_cached", "/api/equity", {"players": HEADS_UP[0]})
                    await asyncio.sleep(0.05)

        start = time.perf_counter()
        await asyncio.gather(probe(), *(user() for _ in range(concurrency)))
        report.wall_s = time.perf_counter() - start
        if pid is not None:
            report.memory_after_mib = server_memory_mib(pid)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--pid", type=int, default=None, help="server process id (for its memory)")
    args = parser.parse_args()
    report = asyncio.run(run_load(args.url, args.requests, args.concurrency, pid=args.pid))
    print(json.dumps(report.summary(), indent=1))


if __name__ == "__main__":
    main()
