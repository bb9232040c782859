"""The postflop viewer's endpoints: a solve kept by id and browsed node by node without solving again, checked
against the library's own node views of the same saved solve; uploads of a saved solve, the memory estimate,
the store's bounds and the refusals (422 in words)."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web,test]')")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.cards.classes import CLASS_NAMES, CLASS_OF_COMBO, combo_index  # noqa: E402
from pokerlab.cards.encoding import parse_cards  # noqa: E402
from pokerlab.postflop import build_game, load  # noqa: E402
from pokerlab.solvers.archive import write_archive  # noqa: E402
from pokerlab.web.app import Limits, Settings, create_app  # noqa: E402
from pokerlab.web.postflop import SolveStore  # noqa: E402

RIVER = {"board": "Kh9d5c2s2h", "oop": "QQ,99,AKo", "ip": "KK,JTs", "pot": 100, "stack": 150, "bets": "75%",
         "raises": "a", "target": 0.5}
TURN = {"board": "Kh9d5c2s", "oop": "QQ,AKo", "ip": "KK,JTs", "pot": 100, "stack": 100, "bets": "a",
        "raises": "a", "target": 1.0, "iterations": 200}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1, max_queue=4, warm=False,
                                        limits=Limits(job_seconds=30.0)))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def river(client: TestClient, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, object]:
    """The river spot solved through the API: its id, and the library's result read from the file the server
    kept (downloaded as a user would)."""
    answer = client.post("/api/postflop", json=RIVER)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["curve"] and data["curve"][-1]["iteration"] <= data["iterations"]
    assert data["curve"][-1]["exploitability_percent"] == pytest.approx(data["exploitability_percent"], abs=1e-9) \
        or data["stop_reason"] != "target"
    saved = client.get(f"/api/postflop/file/{data['id']}")
    assert saved.status_code == 200
    path = tmp_path_factory.mktemp("solve") / "river.npz"
    path.write_bytes(saved.content)
    result = load(path)
    assert result.iterations == data["iterations"]
    return data["id"], result


def node(client: TestClient, key: str, line: list[str]) -> dict:
    answer = client.post("/api/postflop/node", json={"id": key, "line": line})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_node_two_actions_deep_is_the_library_s_node_view(client: TestClient, river) -> None:
    key, result = river
    data = node(client, key, ["check", "bet 75"])
    view = result.node("check", "bet 75")
    assert data["player"] == "OOP" and data["actions"] == list(view.actions) == ["fold", "call", "all-in 150"]
    assert data["line"] == ["OOP check", "IP bet 75"] and data["kind"] == "decision"
    assert data["pot"] == view.pot
    rows = {row["hand"]: row for row in data["hands"]}
    assert set(rows) == set(view.hands)
    for i, hand in enumerate(view.hands):
        assert rows[hand]["strategy"] == pytest.approx(view.strategy[i].tolist(), abs=1e-12)
        assert rows[hand]["ev"] == pytest.approx(float(view.ev[i]), abs=1e-9)
        assert rows[hand]["equity"] == pytest.approx(float(view.equity[i]), abs=1e-12)
        assert rows[hand]["weight"] == pytest.approx(float(view.weight[i]), abs=1e-12)
    for action, frequency in view.frequencies.items():
        assert data["frequencies"][action] == pytest.approx(frequency, abs=1e-12)
    # a class's mix is its hands' strategies weighted by how likely each reaches the node: the library's grid
    for a, action in enumerate(view.actions):
        grid = view.grid(action)
        for name, cell in data["classes"].items():
            k = CLASS_NAMES.index(name)
            assert cell["strategy"][a] == pytest.approx(grid[divmod(k, 13)], abs=1e-12)
    assert sum(c["weight"] for c in data["classes"].values()) == pytest.approx(float(view.weight.sum()), abs=1e-9)


def test_the_opponent_s_range_is_the_reach_of_their_last_action(client: TestClient, river) -> None:
    key, _ = river
    before = node(client, key, ["check"])  # IP acts: every IP hand's chance of betting 75
    bet = before["actions"].index("bet 75")
    after = node(client, key, ["check", "bet 75"])
    assert after["opponent"]["player"] == "IP"
    per_class: dict[str, float] = {}
    for row in before["hands"]:
        per_class[row["class"]] = per_class.get(row["class"], 0.0) + row["reach"] * row["strategy"][bet]
    combos = {name: cell["combos"] for name, cell in after["opponent"]["classes"].items()}
    assert combos == pytest.approx({k: v for k, v in per_class.items() if v > 0}, abs=1e-12)
    # at the root nobody has acted: IP's range is the range dealt (KK: 3 combos left by the Kh, JTs: 4)
    root = node(client, key, [])
    assert root["opponent"]["classes"]["KK"] == {"reach": 1.0, "combos": 3.0}
    assert root["opponent"]["classes"]["JTs"] == {"reach": 1.0, "combos": 4.0}


def test_browsing_does_not_solve_again(client: TestClient, river) -> None:
    key, _ = river
    first = client.post("/api/postflop/node", json={"id": key, "line": ["bet 75"]})
    again = client.post("/api/postflop/node", json={"id": key, "line": ["bet 75"]})
    assert first.status_code == again.status_code == 200
    assert again.headers["X-Pokerlab-Cache"] == "hit"
    assert first.json()["description"].startswith("OOP bet 75")
    # a line as one text, comma-separated as the CLI takes it, is the same node
    assert node(client, key, ["check, bet 75"])["hands"] == node(client, key, ["check", "bet 75"])["hands"]


def test_a_turn_node_deals_a_river_card(client: TestClient) -> None:
    answer = client.post("/api/postflop", json=TURN)
    assert answer.status_code == 200, answer.text
    key = answer.json()["id"]
    chance = node(client, key, ["check", "check"])
    assert chance["kind"] == "chance" and chance["actions"] == []
    assert len(chance["deal"]) == 48 and "Kh" not in chance["deal"] and "Qc" in chance["deal"]
    river = node(client, key, ["check", "check", "Qc"])
    assert river["board"] == ["Kh", "9d", "5c", "2s", "Qc"] and river["kind"] == "decision"
    assert all("Qc" not in row["hand"] for row in river["hands"])
    assert "QcQd" not in river["hands"] and river["classes"]["QQ"]["combos"] == 3
    # the opponent (IP) checked behind on the turn: QQ's reach there, less the combos the Qc blocks
    assert "Qc" not in "".join(river["opponent"]["classes"])  # classes, not combos: only names such as KK, JTs


def test_an_uploaded_solve_browses_as_the_solve_itself(client: TestClient, river) -> None:
    key, result = river
    saved = client.get(f"/api/postflop/file/{key}").content
    answer = client.post("/api/postflop/load", content=saved, headers={"Content-Type": "application/octet-stream"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["id"] != key and data["iterations"] == result.iterations
    assert data["spot"]["board"] == "Kh9d5c2s2h"
    assert node(client, data["id"], ["check", "bet 75"])["hands"] == node(client, key, ["check", "bet 75"])["hands"]


def test_an_upload_of_anything_else_is_refused_in_words(client: TestClient, tmp_path: Path) -> None:
    def upload(data: bytes) -> str:
        answer = client.post("/api/postflop/load", content=data, headers={"Content-Type": "application/octet-stream"})
        assert answer.status_code == 422, answer.text
        detail: str = answer.json()["detail"]
        assert str(tmp_path) not in detail and "/tmp" not in detail
        return detail

    assert "not a .npz archive" in upload(b"hello")
    other = write_archive(tmp_path / "other.npz", {"format": "pokerlab-solver", "format_version": 1},
                          {"cumulative": np.zeros(3), "regrets": np.zeros(3)})
    assert upload(other.read_bytes()).startswith("the uploaded file")
    newer = write_archive(tmp_path / "newer.npz", {"format": "pokerlab-postflop", "format_version": 99},
                          {"cumulative": np.zeros(3), "regrets": np.zeros(3)})
    assert "version 99" in upload(newer.read_bytes())
    wrong = write_archive(tmp_path / "wrong.npz", {"format": "pokerlab-postflop", "format_version": 2,
                                                   "spot": {"board": "Kh9d"}},
                          {"storage": np.zeros(3, dtype=np.float32)})
    assert "not a saved postflop solve" in upload(wrong.read_bytes())
    # a small file that would unpack to gigabytes is refused before it is read
    bomb = io.BytesIO()
    np.savez_compressed(bomb, cumulative=np.zeros(80_000_000, dtype=np.float32))
    assert len(bomb.getvalue()) < 1_000_000
    assert "unpacks to 305 MiB, over this server's limit" in upload(bomb.getvalue())
    # over the request body limit (1 MB) but not the upload limit: read whole, then refused for what it is
    assert "not a .npz archive" in upload(b"x" * 1_100_000)


def test_an_unknown_or_forgotten_solve_asks_to_solve_again(client: TestClient, river) -> None:
    key, _ = river
    for line, status, words in [
        ({"id": "0" * 24, "line": []}, 422, "solve the spot again"),
        ({"id": key, "line": ["raise 9999"]}, 422, "no action 'raise 9999' here"),
        ({"id": key, "line": ["check", "check", "Qc"]}, 422, "the line ends at a terminal"),
        ({"id": key, "line": ["x" * 41]}, 422, "at most 40 characters"),
        ({"id": key, "line": "check"}, 422, "line"),
    ]:
        answer = client.post("/api/postflop/node", json=line)
        assert answer.status_code == status, answer.text
        assert words in answer.json()["detail"]
    assert client.get("/api/postflop/file/nothing").status_code == 422


def test_the_estimate_is_the_game_s_own(client: TestClient) -> None:
    answer = client.post("/api/postflop/estimate", json=TURN)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    game, _ = build_game(TURN["board"], TURN["oop"], TURN["ip"], pot=100, stack=100, bets="a", raises="a",
                         build=False)
    assert data["memory_bytes"] == game.memory_bytes and data["street"] == "turn" and data["within_budget"]
    assert data["updates"] == game.estimated_updates * TURN["iterations"]  # hands times actions
    over = client.post("/api/postflop/estimate", json={**TURN, "board": "Td9d6h", "oop": "random", "ip": "random",
                                                       "stack": 900, "bets": "60%,e,a", "raises": "2.5x"})
    assert over.status_code == 422 and "above the limit of 256 MiB" in over.json()["detail"]


def test_the_store_keeps_its_bounds() -> None:
    store = SolveStore(solves=3, total_bytes=250)
    keys = []
    for size in (100, 100, 40, 100):
        key = store.reserve()
        store.path(key).write_bytes(b"x" * size)
        keys.append(key)
        store.get(key)
    # four files over a count of three: the least recently used went
    assert list(store.kept) == keys[1:] and sum(store.kept.values()) == 240
    assert not store.path(keys[0]).exists()
    with pytest.raises(ValueError, match="solve the spot again"):
        store.get(keys[0])
    store.get(keys[1])  # used: now the most recent, so the next ones out are keys[2], then keys[3]
    key = store.reserve()
    store.path(key).write_bytes(b"y" * 100)
    store.get(key)
    # over the count: keys[2] went; then 300 bytes over 250: keys[3] went too
    assert list(store.kept) == [keys[1], key] and sum(store.kept.values()) == 200
    folder = store.folder
    store.close()
    assert not folder.exists()


def test_class_of_a_hand_row_is_its_combo_s_class(client: TestClient, river) -> None:
    key, _ = river
    for row in node(client, key, [])["hands"]:
        first, second = parse_cards(row["hand"])
        assert row["class"] == CLASS_NAMES[int(CLASS_OF_COMBO[combo_index(first, second)])]
        assert math.isclose(sum(row["strategy"]), 1.0, abs_tol=1e-12)


def test_the_openapi_document_lists_the_postflop_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/postflop", "/api/postflop/stream", "/api/postflop/estimate", "/api/postflop/node",
                 "/api/postflop/load", "/api/postflop/file/{key}", "/api/postflop/stop", "/api/postflop/open",
                 "/api/postflop/report", "/api/postflop/report/stream"):
        assert path in paths
    assert "application/x-ndjson" in paths["/api/postflop/stream"]["post"]["responses"]["200"]["content"]
    assert "application/octet-stream" in paths["/api/postflop/load"]["post"]["requestBody"]["content"]
    assert paths["/api/postflop/node"]["post"]["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"}


def test_a_terminal_node_is_shown_with_its_values(client: TestClient, river) -> None:
    key, result = river
    data = node(client, key, ["bet 75", "fold"])
    view = result.node("bet 75", "fold")
    assert data["kind"] == view.kind == "fold" and data["actions"] == [] and data["frequencies"] == {}
    assert data["deal"] == [] and data["opponent"]["player"] == "IP"
    assert data["ev"] == pytest.approx(view.to_dict()["ev"], abs=1e-9)
    assert all(cell["strategy"] == [] for cell in data["classes"].values())
