"""The postflop endpoint: a river spot solved through the API, a spot over the budget refused with 422 before
any work, bad input 422."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402

SPOT = {"board": "Kh9d5c2s2h", "oop": "QQ,99,AKo", "ip": "KK,JTs", "pot": 100, "stack": 150, "bets": "75%",
        "raises": "a", "target": 0.5}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1, max_queue=4, warm=False,
                                        limits=Limits(job_seconds=30.0)))) as test_client:
        yield test_client


def test_a_river_spot(client: TestClient) -> None:
    answer = client.post("/api/postflop", json={**SPOT, "line": "check, bet 75%"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["exploitability_percent"] <= 0.5
    assert abs(data["ev"]["OOP"] + data["ev"]["IP"] - 100) < 1e-9
    assert data["node"]["actions"] == ["fold", "call", "all-in 150"]
    assert "QsQh" in data["node"]["hands"]


def test_a_raked_spot(client: TestClient) -> None:
    answer = client.post("/api/postflop", json={**SPOT, "rake": 5, "rake_cap": 3})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["spot"]["rake"] == 5.0
    assert 100 - 3 <= data["ev"]["OOP"] + data["ev"]["IP"] < 100 - 1


@pytest.mark.parametrize(("change", "words"), [
    ({"board": "Td9d6h", "oop": "random", "ip": "random", "stack": 900, "bets": "60%,e,a", "raises": "2.5x"},
     "MiB of solver storage, above the limit of 256 MiB"),
    ({"board": "Td9d6hQc", "oop": "random", "ip": "random", "stack": 900, "iterations": 100000},
     "over this server's budget"),
    ({"board": "Kh9d"}, "a postflop board has 3, 4 or 5 cards, got 2"),
    ({"bets": "75%,huge"}, "bet size 'huge' does not parse"),
    ({"time": 1e9}, "outside this server's range"),
    ({"rake": 150}, "the rake must be from 0% to below 100% of the pot"),
    ({"rake_cap": -1}, "the rake cap must be 0 chips or more"),
])
def test_refused_before_any_work(client: TestClient, change: dict[str, object], words: str) -> None:
    answer = client.post("/api/postflop", json={**SPOT, **change})
    assert answer.status_code == 422
    assert words in answer.json()["detail"]
