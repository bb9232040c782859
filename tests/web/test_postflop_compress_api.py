"""The 16-bit storage (``compress``) through the postflop endpoints: a river spot solved compressed reaches its
target, its answer and its kept file say compress, and its EVs are the float32 solve's within the two solves'
exploitabilities; the estimate and the memory limit use the 16-bit storage's bytes (a flop over the limit in
float32 fits compressed) while the updates are the same in both; compress with locks is refused (422)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.errors import ResourceLimitError  # noqa: E402
from pokerlab.postflop import build_game, load  # noqa: E402
from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402
from pokerlab.web.postflop import (  # noqa: E402
    MAX_MEMORY,
    PostflopReportRequest,
    PostflopRequest,
    postflop_limits,
    report_limits,
)

RIVER = {"board": "Kh9d5c2s2h", "oop": "QQ,99,AKo", "ip": "KK,JTs", "pot": 100, "stack": 150, "bets": "75%",
         "raises": "a", "target": 0.5}
WIDE_FLOP = {"board": "Td9d6h", "oop": "22+,A2+", "ip": "22+,A2+", "pot": 200, "stack": 900, "bets": "75%",
             "raises": "a", "iterations": 20}
"""About 372 MiB of float32 storage (over the server's 256 MiB), about 201 MiB compressed."""
LOCK = "line=check; strategy=check"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1, max_queue=4, warm=False,
                                        limits=Limits(job_seconds=30.0)))) as test_client:
        yield test_client


def test_a_compressed_river_solve(client: TestClient, tmp_path: Path) -> None:
    answers = []
    for compress in (True, False):
        answer = client.post("/api/postflop", json={**RIVER, "compress": compress})
        assert answer.status_code == 200, answer.text
        answers.append(answer.json())
    packed, plain = answers
    assert packed["spot"]["compress"] is True and "compress" not in plain["spot"]
    assert packed["stop_reason"] == "target" and packed["exploitability_percent"] <= RIVER["target"]
    assert packed["early"] is None and packed["curve"][-1]["exploitability_percent"] <= RIVER["target"]
    assert sum(packed["ev"].values()) == pytest.approx(RIVER["pot"], abs=1e-6)  # chips: the two EVs share the pot
    # each EV is within twice a solve's exploitability (the mean of the two best-response gains) of the value
    bound = 2 * (packed["exploitability"] + plain["exploitability"])
    assert packed["ev"] == pytest.approx(plain["ev"], abs=bound) and packed["ev"] != plain["ev"]
    # the same spot (by hash): a share link of either opens it; the kept file is the 16-bit one
    assert packed["spot_hash"] == plain["spot_hash"]
    saved = client.get(f"/api/postflop/file/{packed['id']}")
    assert saved.status_code == 200
    path = tmp_path / "packed.npz"
    path.write_bytes(saved.content)
    kept = load(path)
    assert kept.regrets.dtype == np.int16 and kept.cumulative.dtype == np.uint16
    assert kept.exploitability == packed["exploitability"]
    node = client.post("/api/postflop/node", json={"id": packed["id"], "line": ["check"]})
    assert node.status_code == 200 and node.json()["actions"] == ["check", "bet 75", "all-in 150"]


def test_the_estimate_is_the_16_bit_storage_s(client: TestClient) -> None:
    game, _ = build_game(WIDE_FLOP["board"], WIDE_FLOP["oop"], WIDE_FLOP["ip"], pot=200, stack=900, bets="75%",
                         raises="a", build=False, compress=True, max_memory=2 * MAX_MEMORY)
    plain = client.post("/api/postflop/estimate", json=WIDE_FLOP)
    assert plain.status_code == 422 and "above the limit of 256 MiB" in plain.json()["detail"]
    answer = client.post("/api/postflop/estimate", json={**WIDE_FLOP, "compress": True})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["compress"] and data["memory_bytes"] == game.memory_bytes < MAX_MEMORY
    # updates count the storage's values, which the 16-bit storage holds in fewer bytes, not fewer
    assert data["updates"] == game.estimated_updates * WIDE_FLOP["iterations"]
    river = [client.post("/api/postflop/estimate", json={**RIVER, "compress": c}).json() for c in (False, True)]
    assert river[1]["memory_bytes"] < river[0]["memory_bytes"] and river[1]["updates"] == river[0]["updates"]


def test_the_memory_limit_is_the_16_bit_storage_s() -> None:
    """The work budget check before a solve or a report: the wide flop is refused in float32 and allowed
    compressed (no solve here: the check only)."""
    with pytest.raises(ResourceLimitError, match="above the limit of 256 MiB"):
        postflop_limits(PostflopRequest(**WIDE_FLOP), 10.0)
    assert postflop_limits(PostflopRequest(**WIDE_FLOP, compress=True), 10.0) > 10.0
    report = {k: v for k, v in WIDE_FLOP.items() if k != "board"} | {"flops": WIDE_FLOP["board"]}
    with pytest.raises(ResourceLimitError, match="above the limit of 256 MiB"):
        report_limits(PostflopReportRequest(**report), 10.0)
    assert report_limits(PostflopReportRequest(**report, compress=True), 10.0) > 10.0


@pytest.mark.parametrize("path", ["/api/postflop", "/api/postflop/stream", "/api/postflop/estimate"])
def test_compress_with_locks_is_refused(client: TestClient, path: str) -> None:
    answer = client.post(path, json={**RIVER, "compress": True, "lock": [LOCK]})
    assert answer.status_code == 422, answer.text
    assert "does not support node locking" in answer.json()["detail"]


def test_a_compressed_report_over_a_flop(client: TestClient) -> None:
    from pokerlab.postflop.report import flop_report

    body = {"oop": "QQ, AKo", "ip": "KK, JTs", "pot": 100, "stack": 100, "flops": "7h7d2c", "bets": "75%",
            "raises": "a", "target": None, "iterations": 20, "compress": True}
    answer = client.post("/api/postflop/report", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    expected = flop_report(body["oop"], body["ip"], pot=100, stack=100, flops="7h7d2c", bets="75%", raises="a",
                           target=None, iterations=20, workers=0, compress=True).to_dict()
    assert data["spot"]["compress"] is True and data["fingerprint"] == expected["fingerprint"]
    assert data["rows"][0]["oop_ev"] == expected["rows"][0]["oop_ev"]
