"""The server's rough edges of issue 26, each with the behaviour a user met before: a precision target of 1e-300
(500), validator words (``stacks.0: Input should be a valid number``), ``true`` taken as a number, ``HEAD /``
(405), share links recomputed by the streamed endpoints, a 9.5 MB body parsed while every request waited, a bad
range waiting in line behind busy workers, queued clients told nothing, any Host header answered, and an OpenAPI
document that did not describe what the server sends."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from pokerlab.web.app import Settings, create_app
from web.live import start_server, stop_server, wait_until_idle
from web.test_server import run_async


@pytest.mark.parametrize(("path", "body", "words"), [
    ("/api/equity", {"players": ["AhAs", "KdKc"], "stderr": 1e-300}, "stderr 1e-300 is out of reach in 10 s"),
    ("/api/equity/stream", {"players": ["AhAs", "KdKc"], "stderr": 1e-300}, "stderr 1e-300 is out of reach"),
    ("/api/icm", {"stacks": [5, 3, 2], "payouts": "50,30,20", "method": "montecarlo", "half_width": 1e-300},
     "half_width 1e-300 is out of reach in 10 s"),
])
def test_a_tiny_precision_target_is_a_422_sentence_at_once_not_a_500(client, path, body, words):
    client.post("/api/equity", json={"players": ["AhAs", "KdKc"], "trials": 1000, "seed": 1})  # a warm worker
    started = time.monotonic()
    response = client.post(path, json=body)
    assert time.monotonic() - started < 15  # the pilot run: a fraction of a second after the kernels load
    if path.endswith("/stream") and response.status_code == 200:
        last = json.loads(response.text.strip().splitlines()[-1])
        assert last["status"] == 422 and words in last["error"]
    else:
        assert response.status_code == 422, response.text
        detail = response.json()["detail"]
        assert words in detail and "allow about" in detail


def test_a_precision_target_in_reach_still_answers(client):
    response = client.post("/api/equity", json={"players": ["AhAs", "KdKc"], "stderr": 3e-3, "seed": 1})
    assert response.status_code == 200 and response.json()["stop_reason"] == "precision"


@pytest.mark.parametrize(("body", "words"), [
    ({"stacks": [True, 3], "payouts": "50,30"}, "stacks item 1 must be a number, got true"),
    ({"stacks": ["12,500", 3], "payouts": "50,30"}, 'stacks item 1 must be a number, got "12,500"'),
    ({"stacks": [5, 3], "payouts": "50,30", "places": 1}, "places must be true or false, got 1"),
    ({"stacks": [5, 3], "payouts": "50,30", "samples": 1.5}, "samples must be a whole number, got 1.5"),
    ({"stacks": [5, 3]}, "payouts is required"),
    ({"stacks": [[5], [3]], "payouts": "50"}, "stacks item 1 must be a number, got [5]"),
])
def test_bad_requests_are_said_in_words_and_booleans_are_not_numbers(client, body, words):
    response = client.post("/api/icm", json=body)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith(words), detail
    assert "Input should" not in detail and "stacks.0" not in detail


def test_many_problems_are_named_three_then_counted(client):
    response = client.post("/api/icm", json={"stacks": ["x"] * 20_000, "payouts": "50"})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.endswith("and 19,997 more problems") and len(response.content) < 400


def test_head_of_the_page_is_200(client):
    response = client.head("/")
    assert response.status_code == 200 and response.content == b""


def test_streamed_endpoints_answer_from_the_cache():
    with TestClient(create_app(Settings(workers=1))) as local:
        body = {"players": ["AhAs", "KdKc"], "board": "2c3d4h"}
        first = local.post("/api/equity/stream", json=body)
        assert first.status_code == 200 and first.headers["x-pokerlab-cache"] == "miss"
        hits = local.get("/api/health").json()["cache_hits"]
        again = local.post("/api/equity/stream", json=body)  # a share link opened again
        assert again.headers["x-pokerlab-cache"] == "hit"
        assert json.loads(again.text)["result"] == json.loads(first.text.strip().splitlines()[-1])["result"]
        assert local.get("/api/health").json()["cache_hits"] == hits + 1
        # the plain endpoint shares the cache
        assert local.post("/api/equity", json=body).headers["x-pokerlab-cache"] == "hit"


def test_host_header_is_checked_when_hosts_are_set():
    with TestClient(create_app(Settings(workers=1, allowed_hosts=("127.0.0.1", "localhost"))),
                    base_url="http://localhost:8000") as local:
        assert local.get("/api/info").status_code == 200
        refused = local.get("/api/info", headers={"Host": "attacker.example"})
        assert refused.status_code == 400 and "attacker.example" in refused.json()["detail"]


def test_openapi_describes_what_the_server_sends(client):
    document = client.get("/openapi.json").json()
    equity = document["paths"]["/api/equity"]["post"]
    assert {"200", "400", "413", "422", "503"} <= set(equity["responses"])
    problem = equity["responses"]["422"]["content"]["application/json"]["schema"]
    assert problem == {"$ref": "#/components/schemas/Problem"}
    assert document["components"]["schemas"]["Problem"]["properties"]["detail"]["type"] == "string"
    stream = document["paths"]["/api/equity/stream"]["post"]["responses"]["200"]["content"]
    assert "application/x-ndjson" in stream
    fields = document["components"]["schemas"]["EquityRequest"]["properties"]
    assert fields["method"]["enum"] == ["auto", "exact", "montecarlo"]
    assert fields["trials"]["maximum"] == 200_000_000 and fields["time"]["maximum"] == 10.0
    assert "200,000,000" in document["info"]["description"]  # the limits are stated
    page = client.get("/docs")
    assert page.status_code == 200 and "cdn" not in page.text.lower()
    assert "http://" not in page.text and "https://" not in page.text  # nothing from another host: works offline
    assert client.get("/static/docs.js").status_code == 200


REFUSED_BEFORE_THE_LINE = [
    ("/api/pushfold", {"stacks": [10, -5]}, "stacks must be positive, seat 2"),
    ("/api/pushfold", {"stacks": [10, 10], "payouts": [30, 70]}, "list payouts from first place down"),
    ("/api/pushfold", {"stacks": [10, 10], "field": [5]}, "a field only matters for ICM"),
    ("/api/pushfold", {"stacks": [10, 10], "target": 0}, "the target gain must be positive"),
    ("/api/pushfold/stream", {"stacks": [10, 10], "blinds": [1, 0.5]}, "the small blind (1) is larger"),
    ("/api/pushfold", {"stacks": [1e300, 1e300]}, "deeper than push/fold can solve"),
    ("/api/pushfold", {"stacks": [10, 10], "bounty": [1, 2, 3]}, "3 bounties for 2 players"),
    ("/api/pushfold", {"stacks": [10, 10], "bounty": 1, "pko_share": 2}, "must be in (0, 1], got 2"),
    ("/api/two-round", {"iterations": 0}, "iterations must be a positive integer"),
    ("/api/two-round/stream", {"time": -1.0}, "time must be a positive number of seconds"),
    ("/api/two-round", {"seed": -1}, "seed must be at least 0"),
    ("/api/equity", {"players": ["AA", "KK"], "method": "fast"}, "method must be one of auto, exact, montecarlo"),
    ("/api/icm", {"stacks": [5, 3], "payouts": "50,30", "method": "quick"}, "unknown ICM method 'quick'"),
    ("/api/icm/stream", {"stacks": [5, 3], "payouts": "50,30", "method": "montecarlo", "variance_reduction": "magic"},
     "unknown variance reduction 'magic'"),
]
"""Requests refused before they wait for a worker (push/fold and two-round inputs, unknown method names): each
was refused only by the worker before (after the job ahead of it)."""


def test_a_big_body_is_refused_fast_and_bad_input_never_waits_in_line():
    """One worker, busy with a long job: a 9.5 MB body gets a short 413 at once (other requests answered
    meanwhile), a bad range a 422 at once, and a queued client is told its place in the line."""
    server = start_server("--workers", "1", "--queue", "4")
    try:
        wait_until_idle(server.url)

        async def scenario() -> dict:
            out: dict = {}
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                busy = asyncio.ensure_future(client.post("/api/solve", json={"game": "leduc", "time": 8.0}))
                await asyncio.sleep(1.0)
                huge = b'{"text": "' + b"A" * 9_500_000 + b'"}'
                started = time.monotonic()
                big = asyncio.ensure_future(client.post("/api/range", content=huge,
                                                        headers={"Content-Type": "application/json"}))
                health = await client.get("/api/health")
                out["health_s"] = time.monotonic() - started
                out["big"] = await big
                out["big_s"] = time.monotonic() - started
                started = time.monotonic()
                out["bad"] = await client.post("/api/equity", json={"players": ["AKx", "QQ"]})
                out["bad_s"] = time.monotonic() - started
                out["health"] = health.json()
                out["refused"] = []
                for path, body, words in REFUSED_BEFORE_THE_LINE:
                    started = time.monotonic()
                    response = await client.post(path, json=body)
                    out["refused"].append((path, words, response.status_code, response.json().get("detail", ""),
                                           time.monotonic() - started))
                out["health_after"] = (await client.get("/api/health")).json()
                async with client.stream("POST", "/api/equity/stream",
                                         json={"players": ["JJ", "AKo"], "board": "2c3d4h"}) as response:
                    out["queued_status"] = response.status_code
                    async for line in response.aiter_lines():
                        out["first_line"] = json.loads(line)
                        break
                busy.cancel()
                await asyncio.gather(busy, return_exceptions=True)
            return out

        out = run_async(scenario())
        assert out["health"]["running"] == 1
        assert out["big"].status_code == 413 and len(out["big"].content) < 300
        assert "over this server's limit of 1,000,000 bytes" in out["big"].json()["detail"]
        assert out["big_s"] < 5 and out["health_s"] < 5  # was 12 s, every request stalled
        assert out["bad"].status_code == 422 and out["bad_s"] < 3  # was 28 s behind busy workers
        assert "player 1" in out["bad"].json()["detail"]
        for path, words, status, detail, seconds in out["refused"]:  # each waited for the busy worker before
            assert status == 422 and words in detail and seconds < 0.5, (path, words, status, detail, seconds)
        assert out["health_after"]["running"] == 1 and out["health_after"]["waiting"] == 0
        assert out["queued_status"] == 200
        assert out["first_line"] == {"progress": {"queue": 1, "workers": 1}}
    finally:
        stop_server(server)


def test_the_schema_names_the_methods_the_engines_take():
    """The allowed names the OpenAPI document lists are the engines' own (which the server checks before a job
    waits in line)."""
    from pokerlab.equity.core import METHODS as EQUITY_METHODS
    from pokerlab.icm.core import METHODS as ICM_METHODS
    from pokerlab.icm.core import VARIANCE_REDUCTION

    document = create_app(Settings(workers=1)).openapi()["components"]["schemas"]
    assert document["EquityRequest"]["properties"]["method"]["enum"] == list(EQUITY_METHODS)
    assert document["ICMRequest"]["properties"]["method"]["enum"] == list(ICM_METHODS)
    assert document["ICMRequest"]["properties"]["variance_reduction"]["enum"] == ["auto", *VARIANCE_REDUCTION]


def test_the_live_server_checks_the_host_header(live_server):
    assert httpx.get(f"{live_server.url}/api/info").status_code == 200
    response = httpx.get(f"{live_server.url}/api/info", headers={"Host": "rebound.example"})
    assert response.status_code == 400


def test_hand_equity_per_class_against_exact_enumeration(client):
    from pokerlab.equity import equity

    data = client.post("/api/hand-equity", json={"players": ["AA, KK:0.5, AKs", "QQ"], "player": 0, "seed": 3})
    assert data.status_code == 200, data.text
    hands = data.json()["hands"]
    assert sorted(hands) == ["AA", "AKs", "KK"]
    for hand in hands:
        exact = equity([hand, "QQ"], method="exact").equity[0]
        assert abs(hands[hand]["equity"] - exact) < 4 * hands[hand]["stderr"]  # 1e6 showdowns each
    refused = client.post("/api/hand-equity", json={"players": ["AA", "KK"], "player": 2})
    assert refused.status_code == 422 and "not one of the 2 players" in refused.json()["detail"]
