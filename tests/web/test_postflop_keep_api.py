"""A solve ended early is kept and says so (Stop, the server's time budget), at an exploitability computed again
here from the file kept; a share link reopens a kept solve by id only for the spot it solved; an upload of a
saved solve larger than a request body streams to disk, and one over its own limit is refused in words before
it is all read."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.postflop import load, resume  # noqa: E402
from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402
from pokerlab.web.postflop import postflop_task  # noqa: E402

RIVER = {"board": "Kh9d5c2s2h", "oop": "QQ,99,AKo", "ip": "KK,JTs", "pot": 100, "stack": 150, "bets": "75%",
         "raises": "a", "target": 0.5}
ENDLESS = {**RIVER, "target": 1e-7, "iterations": 1_000_000}  # ends only by Stop or a time


def task_params(spot: dict[str, Any], folder: Path, **more: Any) -> dict[str, Any]:
    defaults = {"add_allin": 1.5, "force_allin": 0.15, "merging": 0.1, "raise_cap": None, "donk": True,
                "rake": 0.0, "rake_cap": None, "time": None, "line": "", "lock": []}
    store = {"id": "k" * 24, "path": str(folder / f"{'k' * 24}.npz"), "stop": str(folder / "stop")}
    return defaults | spot | {"store": store} | more


def recomputed(path: str) -> float:
    """The exploitability of the kept file's average strategy, measured again (no iteration added)."""
    kept = load(path)
    return resume(kept, iterations=kept.iterations).exploitability_percent


def test_stop_keeps_the_solve_at_its_computed_exploitability(tmp_path: Path) -> None:
    params = task_params(ENDLESS, tmp_path)
    Path(params["store"]["stop"]).touch()  # asked before the first check: the solve stops there
    seen: list[dict[str, Any]] = []
    data = postflop_task(params, lambda message, force=False: seen.append(message))
    assert seen[0] == {"id": "k" * 24}  # what the page's Stop names
    assert data["iterations"] == 10 and data["stop_reason"] == "interrupted"
    assert data["early"]["reason"] == "stop" and data["early"]["message"].startswith("stopped early: Stop ended")
    kept = params["store"]["path"]
    assert data["early"]["exploitability_percent"] == pytest.approx(recomputed(kept), rel=1e-9)
    assert f"{data['exploitability_percent']:.4g}%" in data["early"]["message"]
    assert data["exploitability_percent"] > ENDLESS["target"]
    assert load(kept).iterations == 10 and not Path(params["store"]["stop"]).exists()
    answer = json.loads((tmp_path / f".{'k' * 24}-answer.json").read_text())
    assert answer["early"] == data["early"] and answer["spot_hash"] == data["spot_hash"]


def test_stop_during_the_unlocked_twin_keeps_the_locked_solve_without_the_gain(tmp_path: Path) -> None:
    params = task_params({**ENDLESS, "iterations": 20}, tmp_path, lock=["line=check; strategy=check"])
    checks: list[int] = []

    def report(message: dict[str, Any], force: bool = False) -> None:
        if "iteration" in message:
            checks.append(message["iteration"])
            if len(checks) == 3:  # the locked solve's checks at 10 and 20, then the unlocked one's first
                Path(params["store"]["stop"]).touch()

    data = postflop_task(params, report)
    assert checks == [10, 20, 10] and data["iterations"] == 20 and data["early"]["reason"] == "stop"
    assert [point["iteration"] for point in data["curve"]] == [10, 20]  # the locked solve's, not its twin's
    assert data["early"]["message"].startswith("stopped early: Stop ended the unlocked solve")
    assert data["lock"]["equilibrium"] is None and data["lock"]["gain_over_equilibrium"] is None
    assert data["early"]["exploitability_percent"] == pytest.approx(recomputed(params["store"]["path"]), rel=1e-9)


def test_the_server_s_time_budget_ends_a_solve_and_keeps_it(tmp_path: Path) -> None:
    params = task_params(ENDLESS, tmp_path, budget_s=0.3)
    data = postflop_task(params, lambda message, force=False: None)
    assert data["stop_reason"] == "time" and data["early"]["reason"] == "budget"
    assert "time budget of 0.3 s" in data["early"]["message"]
    assert data["early"]["exploitability_percent"] == pytest.approx(recomputed(params["store"]["path"]), rel=1e-9)
    # a time the spot asked for is its own stopping rule, not an early end
    own = postflop_task(task_params(ENDLESS, tmp_path, budget_s=60.0, time=0.2), lambda message, force=False: None)
    assert own["stop_reason"] == "time" and own["early"] is None


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    limits = Limits(job_seconds=30.0, upload_bytes=3_000_000)
    with TestClient(create_app(Settings(workers=1, max_queue=4, warm=False, limits=limits))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def river(client: TestClient) -> dict[str, Any]:
    answer = client.post("/api/postflop", json=RIVER)
    assert answer.status_code == 200, answer.text
    assert answer.json()["early"] is None
    return dict(answer.json())


def test_stop_through_the_api_keeps_the_solve_for_browsing(client: TestClient) -> None:
    solves = client.app.state.solves  # type: ignore[attr-defined]
    before = set(solves.pending)
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(client.post("/api/postflop", json=ENDLESS)))
    thread.start()
    deadline = time.monotonic() + 30
    while not set(solves.pending) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    (key,) = set(solves.pending) - before
    stopped = client.post("/api/postflop/stop", json={"id": key})
    assert stopped.status_code == 200 and stopped.json() == {"id": key, "stopping": True}
    thread.join(60)
    data = answers[0].json()
    assert answers[0].status_code == 200 and data["id"] == key and data["early"]["reason"] == "stop"
    assert client.post("/api/postflop/node", json={"id": key, "line": ["check"]}).status_code == 200
    assert client.post("/api/postflop/stop", json={"id": key}).json()["stopping"] is False  # finished already
    unknown = client.post("/api/postflop/stop", json={"id": "0" * 24})
    assert unknown.status_code == 422 and "runs no solve" in unknown.json()["detail"]
    reopened = client.post("/api/postflop/open", json={"id": key, "spot": ENDLESS}).json()
    assert reopened["early"] == data["early"] and reopened["iterations"] == data["iterations"]


def test_a_share_link_reopens_the_kept_solve_of_its_spot_only(client: TestClient, river: dict[str, Any]) -> None:
    key = river["id"]
    # the link's spot as typed (other spaces): the same spot, the kept answer, no solve
    same = client.post("/api/postflop/open", json={"id": key, "spot": {**RIVER, "oop": "QQ, 99, AKo"}})
    assert same.status_code == 200, same.text
    assert {k: same.json()[k] for k in river if k != "node"} == {k: v for k, v in river.items() if k != "node"}
    for change in ({"pot": 90}, {"ip": "KK"}, {"bets": "33%"}, {"lock": ["line=check; strategy=check"]}):
        other = client.post("/api/postflop/open", json={"id": key, "spot": {**RIVER, **change}})
        assert other.status_code == 422 and "another spot" in other.json()["detail"], change
    gone = client.post("/api/postflop/open", json={"id": "0" * 24, "spot": RIVER})
    assert gone.status_code == 422 and "no longer holds" in gone.json()["detail"]
    # a loaded file reopens too
    saved = client.get(f"/api/postflop/file/{key}").content
    loaded = client.post("/api/postflop/load", content=saved).json()
    again = client.post("/api/postflop/open", json={"id": loaded["id"], "spot": RIVER})
    assert again.status_code == 200 and again.json()["iterations"] == river["iterations"]


def padded(solve: bytes, size: int) -> bytes:
    """A saved solve with an extra array of ``size`` random bytes (its reader ignores it)."""
    with np.load(io.BytesIO(solve)) as npz:
        meta = json.loads(str(npz["meta"]))
        arrays = {k: np.array(npz[k]) for k in npz.files if k != "meta"}
    arrays["padding"] = np.random.default_rng(0).integers(0, 256, size, dtype=np.uint8)
    out = io.BytesIO()
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    return out.getvalue()


def test_an_upload_over_the_request_body_limit_loads(client: TestClient, river: dict[str, Any]) -> None:
    big = padded(client.get(f"/api/postflop/file/{river['id']}").content, 1_500_000)
    assert 1_000_000 < len(big) < 3_000_000
    answer = client.post("/api/postflop/load", content=big, headers={"Content-Type": "application/octet-stream"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["iterations"] == river["iterations"]
    json_body = client.post("/api/postflop/estimate", content=b"x" * 1_100_000)  # other bodies: still 1 MB
    assert json_body.status_code == 413


def asgi_post(app: Any, path: str, chunk: bytes, chunks: int, length: int | None = None) -> tuple[int, str, int]:
    """POST ``chunks`` copies of ``chunk`` to ``app`` straight through ASGI: the status, the answer's text and
    how many chunks the server read."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read >= chunks:
            return {"type": "http.disconnect"}
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": read < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/octet-stream")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    # in a thread of its own: an event loop another test left registered in this thread cannot get in the way
    runner = threading.Thread(target=lambda: asyncio.run(app(scope, receive, send)))
    runner.start()
    runner.join()
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)["detail"], read


def test_an_upload_over_its_limit_is_refused_before_it_is_all_read(tmp_path: Path) -> None:
    app = create_app(Settings(workers=1, warm=False, limits=Limits(upload_bytes=100_000)))
    folder = app.state.solves.folder
    chunk = b"x" * 10_000
    # no Content-Length: counted as it streams to disk, refused at the first chunk over the limit
    status, detail, read = asgi_post(app, "/api/postflop/load", chunk, 10_000)
    assert status == 413 and read == 11
    assert detail.startswith("the uploaded solve is more than over this server's limit of 100,000 bytes")
    # a Content-Length over the limit: refused before the endpoint reads a byte (the client's rest is drained,
    # 64 MiB at most, so that it can read the answer; beyond that the connection closes)
    status, detail, read = asgi_post(app, "/api/postflop/load", chunk, 10_000, length=100_000_000)
    assert status == 413 and "100,000,000 bytes, over this server's limit of 100,000 bytes" in detail
    assert read < 10_000
    assert not any(folder.iterdir())  # nothing kept of either
    app.state.solves.close()



REPORT = {"oop": "QQ, AKo", "ip": "KK, JTs", "pot": 100, "stack": 100, "flops": "7h7d2c", "bets": "75%",
          "raises": "a", "target": 1.0, "iterations": 30}


def test_a_report_over_a_few_flops_is_the_library_s_report(client: TestClient) -> None:
    from pokerlab.postflop.report import flop_report

    answer = client.post("/api/postflop/report", json=REPORT)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    expected = flop_report(REPORT["oop"], REPORT["ip"], pot=100, stack=100, flops=REPORT["flops"], bets="75%",
                           raises="a", target=1.0, iterations=30, workers=0).to_dict()
    assert data["early"] is None and data["complete"] and data["finished"] == 1
    assert data["by_texture"]["pairing"]["paired"]["flops"] == 1
    strip = ("seconds",)
    assert [{k: v for k, v in row.items() if k not in strip} for row in data["rows"]] \
        == [{k: v for k, v in row.items() if k not in strip} for row in expected["rows"]]
    assert data["by_texture"] == expected["by_texture"] and data["all"] == expected["all"]
    for body, words in [({"flops": "13"}, "over this server's limit of 12 per report"),
                        ({"iterations": 10**9}, "over this server's budget"),
                        ({"flops": "AsKd"}, "")]:
        refused = client.post("/api/postflop/report", json={**REPORT, **body})
        assert refused.status_code == 422 and words in refused.json()["detail"], refused.text


def test_the_time_budget_ends_a_report_between_flops_keeping_the_finished_ones() -> None:
    from pokerlab.web.postflop import postflop_report_task

    seen: list[dict[str, Any]] = []
    params = {**REPORT, "flops": "7h7d2c AsKd2c", "donk": True, "budget_s": 0.0}
    data = postflop_report_task(params, lambda message, force=False: seen.append(message))
    assert seen == [{"flops_done": 1, "flops": 2}] and data["finished"] == 1 and not data["complete"]
    assert data["early"].startswith("stopped early: the server's time budget of 0 s ended the report after 1 of 2")
