"""The JSON API with FastAPI's test client: every endpoint against an oracle, the same JSON and the same refusals
as the CLI, the budgets, the time limit and the busy queue."""

from __future__ import annotations

import itertools
import json
import math
import shlex

import pytest
from typer.testing import CliRunner

from pokerlab.cli.common import speak_cli
from pokerlab.cli.equity_cmd import EQUITY_WORDS
from pokerlab.cli.icm_cmd import ICM_WORDS
from pokerlab.cli.main import app as cli_app

runner = CliRunner()


def cli_json(command: str) -> dict:
    result = runner.invoke(cli_app, shlex.split(command) + ["--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_error(command: str) -> str:
    """The one line the CLI prints for bad input, without its ``error: `` prefix."""
    result = runner.invoke(cli_app, shlex.split(command))
    assert result.exit_code == 2, result.output
    line = result.stderr.strip() if result.stderr else result.output.strip()
    return line.removeprefix("error: ")


def without_timing(data):
    if isinstance(data, dict):
        return {k: without_timing(v) for k, v in data.items() if k != "elapsed_s"}
    if isinstance(data, list):
        return [without_timing(v) for v in data]
    return data


def harville(stacks: list[float], payouts: list[float]) -> tuple[list[float], list[list[float]]]:
    """Independent ICM oracle: every finishing order's probability by the Malmuth-Harville product (busted
    players finish last, so the orders are of the live players)."""
    n = len(stacks)
    equity = [0.0] * n
    places = [[0.0] * len(payouts) for _ in range(n)]
    for order in itertools.permutations([i for i in range(n) if stacks[i] > 0]):
        probability, left = 1.0, sum(stacks)
        for player in order:
            probability *= stacks[player] / left
            left -= stacks[player]
        for place, player in enumerate(order[: len(payouts)]):
            equity[player] += probability * payouts[place]
            places[player][place] += probability
    return equity, places


# -- equity -------------------------------------------------------------------------------------------------

def test_equity_matches_published_value_and_cli_json(client):
    response = client.post("/api/equity", json={"players": ["AhAs", "KdKc"]})
    assert response.status_code == 200
    data = response.json()
    assert data["method"] == "exact" and data["showdowns"] == 1_712_304
    # published PokerStove value for AhAs vs KdKc: 81.2555% / 18.7445%
    assert data["players"][0]["equity"] == pytest.approx(0.812555, abs=5e-7)
    assert sum(p["equity"] for p in data["players"]) == pytest.approx(1.0, abs=1e-12)
    assert without_timing(data) == without_timing(cli_json("equity AhAs KdKc"))


def test_equity_cache_answers_the_same_bytes(client):
    body = {"players": ["QsQd", "AcKc"], "board": "2h7d9c"}
    first = client.post("/api/equity", json=body)
    second = client.post("/api/equity", json=body)
    assert first.headers["x-pokerlab-cache"] == "miss" and second.headers["x-pokerlab-cache"] == "hit"
    assert first.content == second.content


def test_equity_monte_carlo_seeded_within_four_stderr_of_exact(client):
    exact = client.post("/api/equity", json={"players": ["QQ+", "AKs, AKo"]}).json()
    body = {"players": ["QQ+", "AKs, AKo"], "method": "montecarlo", "trials": 200_000, "seed": 7}
    sampled = client.post("/api/equity", json=body).json()
    assert sampled["method"] == "montecarlo" and sampled["showdowns"] >= 200_000
    for e, s in zip(exact["players"], sampled["players"], strict=True):
        assert abs(e["equity"] - s["equity"]) < 4 * s["stderr"]
    assert client.post("/api/equity", json=body).json()["players"] == sampled["players"]  # same seed, same answer


def test_equity_stream_reports_progress_then_the_same_result(client):
    body = {"players": ["JJ", "AKs", "random"], "method": "montecarlo", "trials": 2_000_000, "seed": 3}
    with client.stream("POST", "/api/equity/stream", json=body) as response:
        assert response.status_code == 200
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert "result" in lines[-1] and all("progress" in line for line in lines[:-1])
    # a job that waits for a worker still starting is first told its place in line
    fractions = [line["progress"]["fraction"] for line in lines[:-1] if "queue" not in line["progress"]]
    assert fractions == sorted(fractions) and all(0 <= f <= 1 for f in fractions)
    plain = client.post("/api/equity", json=body).json()
    assert without_timing(lines[-1]["result"]) == without_timing(plain)


@pytest.mark.parametrize("players, options", [
    (["AhAs"], ""),
    (["AhAs", "Kx"], ""),
    (["AhAs", "AhKd"], ""),
    (["AhAs", "KK"], "--board AhKh2c"),
    (["AhAs", "KK"], "--board 2c3c"),
    (["AhAs", "KK"], "--exact --trials 1000"),
    (["AhAs", "KK"], "--dead Zz"),
    (["AA", "KK"], "--mc --trials 0"),
    (["AA", "KK"], "--mc --stderr -1"),
])
def test_equity_refuses_what_the_cli_refuses_with_its_message(client, players, options):
    cli_options = shlex.split(options)
    body: dict = {"players": players}
    flags = {"--board": "board", "--dead": "dead", "--trials": "trials", "--stderr": "stderr"}
    i = 0
    while i < len(cli_options):
        flag = cli_options[i]
        if flag == "--exact":
            body["method"] = "exact"
        elif flag == "--mc":
            body["method"] = "montecarlo"
        else:
            value = cli_options[i + 1]
            body[flags[flag]] = float(value) if flag == "--stderr" else int(value) if flag == "--trials" else value
            i += 1
        i += 1
    response = client.post("/api/equity", json=body)
    assert response.status_code == 422
    # the same refusal; the CLI says it in its flags (--mc), the API in its fields (method='montecarlo')
    assert speak_cli(response.json()["detail"], EQUITY_WORDS) == cli_error(f"equity {' '.join(players)} {options}")


@pytest.mark.parametrize("body, words", [
    ({"players": ["AA", "KK"], "method": "fast"}, "method must be one of"),
    ({"players": ["AA", "KK"], "speed": 1}, "speed is not an option of this request"),
    ({"players": "AA"}, "players must be a list, got \"AA\""),
    ({"players": ["AA", "KK"], "trials": "many"}, "trials must be a whole number, got \"many\""),
    ({"players": ["AA"] * 11}, "players may have at most 10 items, got 11"),
    ({"players": ["AA", "KK"], "trials": 10**12}, "over this server's budget"),
    ({"players": ["AA", "KK"], "time": 3600}, "over this server's limit of 10 s"),
])
def test_equity_bad_requests_are_422_with_a_sentence(client, body, words):
    response = client.post("/api/equity", json=body)
    assert response.status_code == 422
    assert words in response.json()["detail"]


def test_malformed_json_is_422_not_500(client):
    response = client.post("/api/equity", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "JSON" in response.json()["detail"]


# -- range ----------------------------------------------------------------------------------------------------

def test_range_paint_and_counts_match_the_cli(client):
    data = client.post("/api/range", json={"text": "QQ+", "paint": {"AKs": 1.0, "KK": 0.0, "AQo": 0.5}}).json()
    assert data["range"] == "AA, QQ, AKs, AQo:0.5"
    assert data["combos"] == 6 + 6 + 4 + 12 and data["weighted_combos"] == pytest.approx(22.0)
    cli = cli_json("range 'AA, QQ, AKs, AQo:0.5'")
    assert {k: data[k] for k in cli} == cli
    grid = data["grid"]
    assert grid[0][0] == 1.0 and grid[1][1] == 0.0 and grid[0][1] == 1.0 and grid[2][0] == 0.5  # AQo below
    assert sum(map(sum, grid)) == pytest.approx(1 + 1 + 1 + 0.5)


def test_range_of_one_combo_and_board(client):
    data = client.post("/api/range", json={"text": "AsKs, QQ", "board": "Qh"}).json()
    assert data["combos"] == 1 + 3 and data["grid"][0][1] == 0.25
    # QQ: the board's Qh blocks 3 of its 6 combos; the 3 left are all in the range (weight 1, not 0.5)
    assert data["grid"][2][2] == 1.0 and data["blocked"][2][2] == 0.5
    assert data["blocked"][2][0] == 0.25 and data["blocked"][0][1] == 0  # AQo: 3 of 12 blocked; AKs: none


@pytest.mark.parametrize("body, words", [
    ({"text": "AK+++"}, "AK+++"),
    ({"text": "", "paint": {"AKs": 2}}, "must be in [0, 1]"),
    ({"text": "", "paint": {"XYZ": 1}}, "XYZ"),
])
def test_range_refusals(client, body, words):
    response = client.post("/api/range", json=body)
    assert response.status_code == 422 and words in response.json()["detail"]


# -- ICM ------------------------------------------------------------------------------------------------------

def test_icm_against_harville_enumeration_with_places_bubble_factors_and_deals(client):
    stacks, payouts = [5000.0, 3000.0, 2000.0, 1000.0], [50.0, 30.0, 20.0]
    body = {"stacks": stacks, "payouts": "50,30,20", "places": True, "bubble_factors": True, "deal": True}
    data = client.post("/api/icm", json=body).json()
    equity, places = harville(stacks, payouts)
    for i, player in enumerate(data["players"]):
        assert player["equity"] == pytest.approx(equity[i], abs=1e-9)
        assert player["places"] == pytest.approx(places[i], abs=1e-9)
        assert player["chip_share"] == pytest.approx(stacks[i] / sum(stacks))
        assert player["prize_share"] == pytest.approx(equity[i] / 100.0)
    # bubble factor of 0 against 1: equity lost by losing the all-in over equity won by winning it
    covered = 3000.0
    lose = harville([stacks[0] - covered, stacks[1] + covered, *stacks[2:]], payouts)[0][0]
    win = harville([stacks[0] + covered, 0.0, *stacks[2:]], payouts)[0][0]  # player 1 busts in 4th
    assert data["bubble_factors"][0][1] == pytest.approx((equity[0] - lose) / (win - equity[0]), rel=1e-9)
    assert data["bubble_factors"][0][0] is None
    # ICM chop is the ICM equity; chip chop gives everyone the last paid prize... of the players still paid
    assert [d["icm_chop"] for d in data["deal"]] == pytest.approx(equity)
    assert sum(d["chip_chop"] for d in data["deal"]) == pytest.approx(100.0)
    cli = cli_json("icm --stacks 5000,3000,2000,1000 --payouts 50,30,20 --places --bubble-factors --deal")
    for ours, theirs in zip(data["players"], cli["players"], strict=True):
        assert {k: ours[k] for k in theirs} == theirs
    assert data["bubble_factors"] == cli["bubble_factors"] and data["deal"] == cli["deal"]


def test_icm_power_law_payouts_and_monte_carlo_seeded(client):
    stacks = [float(s) for s in range(1, 9)]
    exact = client.post("/api/icm", json={"stacks": stacks, "payouts": "power:a=1,pool=1000,paid=3"}).json()
    body = {"stacks": stacks, "payouts": "power:a=1,pool=1000,paid=3", "method": "montecarlo", "samples": 200_000,
            "seed": 5}
    response = client.post("/api/icm", json=body)
    assert response.status_code == 200, response.text
    sampled = response.json()
    assert sampled["method"].startswith("montecarlo") and not exact["method"].startswith("montecarlo")
    for e, s in zip(exact["players"], sampled["players"], strict=True):
        assert abs(e["equity"] - s["equity"]) < 4 * s["stderr"]


@pytest.mark.parametrize("body, cli", [
    ({"stacks": [5000, -3000, 2000], "payouts": "50,30,20"}, "icm --stacks 5000,-3000,2000 --payouts 50,30,20"),
    ({"stacks": [5000, 3000], "payouts": "50,x"}, "icm --stacks 5000,3000 --payouts 50,x"),
    ({"stacks": [5, 3], "payouts": "power:paid=2,b=1"}, "icm --stacks 5,3 --payouts power:paid=2,b=1"),
    ({"stacks": [5, 3], "payouts": "50,30", "method": "guess"}, "icm --stacks 5,3 --payouts 50,30 --method guess"),
    ({"stacks": [5, 3], "payouts": "50,30", "samples": 100}, "icm --stacks 5,3 --payouts 50,30 --samples 100"),
    ({"stacks": [5, 3], "payouts": "50,30", "bounty": -1}, "icm --stacks 5,3 --payouts 50,30 --bounty -1"),
    ({"stacks": [5, 3], "payouts": "50,30", "bounty": [1, 2, 3]}, "icm --stacks 5,3 --payouts 50,30 --bounty 1,2,3"),
    ({"stacks": [5, 3], "payouts": "50,30", "bounty": 1, "pko_share": 2},
     "icm --stacks 5,3 --payouts 50,30 --bounty 1 --pko --pko-share 2"),
])
def test_icm_refuses_what_the_cli_refuses_with_its_message(client, body, cli):
    response = client.post("/api/icm", json=body)
    assert response.status_code == 422
    assert speak_cli(response.json()["detail"], ICM_WORDS) == cli_error(cli)


@pytest.mark.parametrize("body, words", [
    ({"stacks": [5, 3], "payouts": "file:/etc/passwd"}, "reads no files"),
    ({"stacks": [5, 3], "payouts": "/tmp/payouts.csv"}, "reads no files"),
    ({"stacks": [1.0] * 301, "payouts": "50,30,20", "places": True}, "finish places are limited to 300"),
    ({"stacks": [1.0] * 61, "payouts": "50,30,20", "bubble_factors": True}, "bubble factors are limited to 60"),
    ({"stacks": [5, 3], "payouts": "50,30", "method": "montecarlo", "time": 99}, "limit of 10 s"),
    ({"stacks": [], "payouts": "50"}, "stacks must have at least 1 item, got 0"),
])
def test_icm_server_limits(client, body, words):
    response = client.post("/api/icm", json=body)
    assert response.status_code == 422 and words in response.json()["detail"]


# -- solve ----------------------------------------------------------------------------------------------------

def test_solve_kuhn_reaches_the_game_value_with_curve_and_strategy(client):
    data = client.post("/api/solve", json={"game": "kuhn", "algo": "cfr+", "iterations": 2000}).json()
    assert data["game_value"] == pytest.approx(-1 / 18, abs=1e-3) and data["exploitability"] < 1e-3
    assert data["iterations"] == 2000 and data["curve"][-1]["iteration"] == 2000
    assert data["curve"][-1]["exploitability"] == pytest.approx(data["exploitability"])
    assert data["curve"][0]["exploitability"] > 10 * data["exploitability"]
    assert len(data["strategy"]) == 12
    for row in data["strategy"].values():
        assert sum(row.values()) == pytest.approx(1.0, abs=1e-9)
    # Kuhn equilibrium: the first player never bets a queen first (any alpha); a king always calls a bet
    assert data["strategy"]["Q||"]["bet 1"] < 0.02 and data["strategy"]["K||r"]["call"] > 0.98
    cli = cli_json("solve kuhn --algo cfr+ -n 2000")
    assert {k: data[k] for k in cli if k != "elapsed_s"} == without_timing(cli)


def test_solve_stream_curve_points(client):
    with client.stream("POST", "/api/solve/stream", json={"game": "leduc", "iterations": 300}) as response:
        assert response.status_code == 200
        lines = [json.loads(line) for line in response.iter_lines() if line]
    result = lines[-1]["result"]
    assert result["game"] == "leduc" and result["iterations"] == 300
    assert [p["iteration"] for p in result["curve"]] == sorted(p["iteration"] for p in result["curve"])


@pytest.mark.parametrize("body, cli", [
    ({"game": "chess"}, "solve chess"),
    ({"game": "kuhn", "algo": "magic"}, "solve kuhn --algo magic"),
    ({"game": "kuhn", "algo": "cfr", "alpha": 2.0}, "solve kuhn --algo cfr --alpha 2"),
    ({"game": "kuhn", "target_exploitability": -1}, "solve kuhn --target-exploitability -1"),
])
def test_solve_refuses_what_the_cli_refuses_with_its_message(client, body, cli):
    response = client.post("/api/solve", json=body)
    assert response.status_code == 422
    expected = cli_error(cli)
    if body["game"] == "chess":  # the page offers fewer games than the CLI: the same refusal, its own list
        assert response.json()["detail"].startswith("unknown game 'chess'") and expected.startswith("unknown game")
    else:
        assert response.json()["detail"] == expected


def test_solve_budget(client):
    response = client.post("/api/solve", json={"game": "leduc", "iterations": 10**9})
    assert response.status_code == 422 and "over this server's budget" in response.json()["detail"]


# -- the two-round game ----------------------------------------------------------------------------------------

def test_two_round_matches_the_cli_train_json_exactly(client, tmp_path):
    """Same seed, same iterations: the web's run (smaller stacks untrained) and the CLI's train the full stack with
    the same random stream, so the exact exploitability agrees to the last bit."""
    data = client.post("/api/two-round", json={"stack": 1, "buckets": 4, "iterations": 3000, "checks": 1}).json()
    cli = cli_json(f"two-round train --out {tmp_path / 'bot.npz'} --stack 1 --buckets 4 -n 3000 --seed 0 "
                   "--exploitability")
    assert {k: data[k] for k in cli if k not in ("out", "elapsed_s")} == {k: v for k, v in cli.items()
                                                                         if k not in ("out", "elapsed_s")}
    assert data["game"] == "two-round" and data["stack"] == 1 and data["exploitability"] > 0
    assert data["mbb_per_game"] == pytest.approx(1000 * data["exploitability"], rel=1e-12)


def test_two_round_curve_and_strategy_view_against_the_trainer(client):
    from pokerlab.games.two_round import NODE_DECISION, TwoRoundSpec
    from pokerlab.solvers.two_round import Abstraction, TwoRoundTrainer, exploitability

    body = {"stack": 2, "buckets": 6, "iterations": 4000, "checks": 3, "seed": 5}
    data = client.post("/api/two-round", json=body).json()
    assert [p["iteration"] for p in data["curve"]] == [1000, 2000, 4000] and data["iterations"] == 4000
    assert data["curve"][-1]["exploitability"] == data["exploitability"]
    # oracle: the same training here, measured by the library's exact best response
    trainer = TwoRoundTrainer(TwoRoundSpec(stack=2), Abstraction(buckets=6), seed=5)
    trainer.train(1000, smaller_stacks=0.0)
    assert data["curve"][0]["exploitability"] == exploitability(trainer.bot().strategy(2)).exploitability
    trainer.train(1000, smaller_stacks=0.0)  # the web's kernel calls end at the curve's points
    trainer.train(2000, smaller_stacks=0.0)
    strategy = trainer.bot().strategy(2)
    view = data["strategy"]
    tree = strategy.tree
    decisions = [n for n in range(tree.num_nodes) if tree.kind[n] == NODE_DECISION]
    assert [n["node"] for n in view["nodes"]] == decisions
    assert len(view["rows"]["preflop"]) == 49 and len(view["rows"]["flop"]) == 6  # 7 pairs + 21 suited + 21 offsuit
    assert sum(view["row_share"]["preflop"]) == pytest.approx(1.0)
    assert sum(view["row_share"]["flop"]) == pytest.approx(1.0)
    assert view["row_share"]["preflop"][view["rows"]["preflop"].index("AA")] == pytest.approx(6 / 378)
    root = view["nodes"][0]
    assert root["line"] == "start" and root["player"] == 1 and root["actions"] == ["check", "bet 1", "bet 2"]
    facing = next(n for n in view["nodes"] if n["line"] == "P1 bet 2")
    assert facing["player"] == 2 and facing["actions"] == ["fold", "call 2"]
    river = next(n for n in view["nodes"] if n["line"] == "P1 check, P2 check, flop, P1 bet 1")
    assert river["street"] == "flop" and river["history"] == "0.0/1"
    assert river["actions"] == ["fold", "call 1", "raise 2"]
    hand = 17  # one hand and one flop: its class's and its bucket's rows are the strategy's probabilities
    flop = 100
    for node in (root, facing, river):
        rows = view["rows"]["preflop" if node["street"] == "preflop" else "flop"]
        row = strategy.pre_row[hand] if node["street"] == "preflop" else strategy.post_row[flop, hand]
        assert len(node["probabilities"]) == len(rows)
        assert node["probabilities"][row] == pytest.approx(strategy.probabilities(node["node"], hand, flop).tolist(),
                                                           abs=5e-5)
        for probabilities in node["probabilities"]:
            assert sum(probabilities) == pytest.approx(1.0, abs=5e-4)


def test_two_round_stream_reports_training_exploitability_and_points(client):
    body = {"stack": 1, "buckets": 3, "iterations": 2000, "checks": 2}
    with client.stream("POST", "/api/two-round/stream", json=body) as response:
        assert response.status_code == 200
        lines = [json.loads(line) for line in response.iter_lines() if line]
    progress = [line["progress"] for line in lines[:-1]]
    points = [p for p in progress if "exploitability" in p]
    assert [p["iteration"] for p in points] == [1000, 2000]
    assert {p.get("phase") for p in progress} >= {"training", "exploitability", None}
    result = lines[-1]["result"]
    assert [p["exploitability"] for p in result["curve"]] == [p["exploitability"] for p in points]
    plain = client.post("/api/two-round", json=body).json()
    assert without_timing(plain | {"training_s": 0}) == without_timing(result | {"training_s": 0})


def test_two_round_budget_is_the_best_response_work_it_reports():
    from pokerlab.games.two_round import TwoRoundSpec
    from pokerlab.solvers.two_round import exploitability, fixed_strategy
    from pokerlab.web.solving import two_round_best_response_work

    totals: dict[int, int] = {}
    for stack in (1, 2):
        exploitability(fixed_strategy(TwoRoundSpec(stack=stack), "uniform"),
                       progress=lambda _, total, stack=stack: totals.__setitem__(stack, total))
        assert two_round_best_response_work(stack, 3) == 3 * totals[stack]


def test_two_round_time_bound_and_cache(client):
    response = client.post("/api/two-round", json={"stack": 1, "buckets": 2, "time": 0.3, "checks": 1})
    assert response.status_code == 200 and response.headers["x-pokerlab-cache"] == "miss"
    data = response.json()
    assert data["iterations"] > 0 and 0.3 <= data["training_s"] < 2.0
    again = client.post("/api/two-round", json={"stack": 1, "buckets": 2, "time": 0.3, "checks": 1})
    assert again.headers["x-pokerlab-cache"] == "miss"  # timed: not repeatable, not cached
    body = {"stack": 1, "buckets": 2, "iterations": 500, "checks": 1}
    assert client.post("/api/two-round", json=body).headers["x-pokerlab-cache"] == "miss"
    assert client.post("/api/two-round", json=body).headers["x-pokerlab-cache"] == "hit"


@pytest.mark.parametrize("body, words", [
    ({"stack": 0}, "stack 0 is outside this server's range of 1 to 6"),
    ({"stack": 7}, "stack 7 is outside"),
    ({"buckets": 0}, "buckets 0 is outside this server's range"),
    ({"buckets": 1001}, "buckets 1001 is outside"),
    ({"checks": 0}, "checks 0 is outside"),
    ({"checks": 21}, "checks 21 is outside"),
    ({"iterations": 10**8}, "over this server's budget of 1,000,000"),
    ({"iterations": 0}, "iterations must be a positive integer, got 0"),
    ({"time": 1000}, "over this server's limit of 60 s"),
    ({"time": -1}, "time must be a positive number of seconds, got -1"),
    ({"stack": 6, "checks": 2}, "node-boards of best response, over this server's budget"),
    ({"seed": -3}, "seed must be at least 0, got -3"),
    ({"stack": "six"}, "stack must be a whole number, got \"six\""),
    ({"stacks": 3}, "stacks is not an option of this request"),
])
def test_two_round_refusals_are_422_with_a_sentence(client, body, words):
    for path in ("/api/two-round", "/api/two-round/stream"):
        response = client.post(path, json=body)
        assert response.status_code == 422 and words in response.json()["detail"], response.text


# -- service ---------------------------------------------------------------------------------------------------

def test_info_health_page_and_openapi(client):
    info = client.get("/api/info").json()
    assert "kuhn" in info["games"] and "cfr+" in info["algorithms"] and "65/35" in info["payout_splits"]
    health = client.get("/api/health").json()
    assert health["workers"] == 1 and health["waiting"] == 0
    page = client.get("/")
    assert page.status_code == 200 and "<title>pokerlab</title>" in page.text
    assert "http" not in page.text.replace('href="/', "")  # nothing loaded from another host
    for asset in ("/static/app.js", "/static/app.css"):
        assert client.get(asset).status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/equity", "/api/equity/stream", "/api/icm", "/api/solve", "/api/range"):
        assert path in paths


def test_time_limit_stops_the_job_and_the_worker_comes_back():
    from fastapi.testclient import TestClient

    from pokerlab.web.app import Limits, Settings, create_app

    with TestClient(create_app(Settings(workers=1, limits=Limits(job_seconds=1.0)))) as client:
        client.post("/api/equity", json={"players": ["AA", "KK"], "board": "2c3d4h"})  # the worker is up (milliseconds)
        # exact enumeration of two ranges and a random hand preflop: about a minute, far beyond a second
        response = client.post("/api/equity", json={"players": ["JJ+, AK", "TT+, AQ", "random"], "method": "exact"})
        assert response.status_code == 422
        assert "limit of 1 s and was stopped" in response.json()["detail"]
        assert client.get("/api/health").json()["restarts"] == 1
        again = client.post("/api/equity", json={"players": ["AhAs", "KdKc"], "board": "2c3d4h5s"})
        assert again.status_code == 200 and math.isclose(sum(p["equity"] for p in again.json()["players"]), 1.0)


# -- push/fold --------------------------------------------------------------------------------------------------

def test_pushfold_heads_up_chip_ev_is_an_equilibrium_and_matches_the_cli(client):
    data = client.post("/api/pushfold", json={"stacks": [10, 10], "target": 1e-3}).json()
    assert data["model"] == "chipev" and data["max_gain"] <= 1e-3  # exact best-response gains: the oracle
    sb, bb = data["seats"]
    assert sb["seat"] == "SB" and len(sb["jam"]) == 169 and list(bb["call"]) == ["SB"]
    # every hand's jam EV against the fold EV: a hand jammed for sure is never worth less than folding
    for hand, p in sb["jam"].items():
        if p > 0.999:
            assert sb["ev_jam"][hand] >= sb["ev_fold"][hand] - 1e-2
    assert sb["jam"]["AA"] > 0.99 and sb["jam"]["72o"] < 0.99 and bb["call"]["SB"]["AA"] > 0.99
    cli = cli_json("pushfold --stacks 10,10 --target 1e-3")
    assert without_timing(data) == without_timing(cli)


def test_pushfold_icm_with_a_field_and_progress(client):
    body = {"stacks": [3000, 2000], "blinds": [100, 200], "payouts": [50, 30, 20], "field": [1500]}
    with client.stream("POST", "/api/pushfold/stream", json=body) as response:
        assert response.status_code == 200
        lines = [json.loads(line) for line in response.iter_lines() if line]
    result = lines[-1]["result"]
    assert result["model"] == "icm" and result["stop_reason"] == "target"
    # ICM makes the big blind call tighter than chip EV
    chip_ev = client.post("/api/pushfold", json={"stacks": [3000, 2000], "blinds": [100, 200]}).json()
    assert result["seats"][1]["call_pct"]["SB"] < chip_ev["seats"][1]["call_pct"]["SB"]


@pytest.mark.parametrize("body, cli", [
    ({"stacks": [10, -1]}, "pushfold --stacks 10,-1"),
    ({"stacks": [10, 10], "target": 0}, "pushfold --stacks 10,10 --target 0"),
    ({"stacks": [10, 10], "iterations": 0}, "pushfold --stacks 10,10 --iterations 0"),
    ({"stacks": [10, 10], "bounty": -1}, "pushfold --stacks 10,10 --bounty -1"),
    ({"stacks": [10, 10], "bounty": [1, 2, 3]}, "pushfold --stacks 10,10 --bounty 1,2,3"),
    ({"stacks": [10, 10], "bounty": 1, "pko_share": 0}, "pushfold --stacks 10,10 --bounty 1 --pko --pko-share 0"),
    ({"stacks": [10, 10, 10], "payouts": [50, 30, 20], "fgs_depth": 5},
     "pushfold --stacks 10,10,10 --payouts 50,30,20 --fgs-depth 5"),
    ({"stacks": [10, 10, 10], "fgs_depth": 2}, "pushfold --stacks 10,10,10 --fgs-depth 2"),
])
def test_pushfold_refuses_what_the_cli_refuses_with_its_message(client, body, cli):
    response = client.post("/api/pushfold", json=body)
    assert response.status_code == 422
    assert speak_cli(response.json()["detail"], ICM_WORDS) == cli_error(cli)


def test_pushfold_budget(client):
    response = client.post("/api/pushfold", json={"stacks": [10, 10], "time": 3600})
    assert response.status_code == 422 and "limit of 60 s" in response.json()["detail"]
    deep = client.post("/api/pushfold", json={"stacks": [10] * 9, "payouts": [50, 30, 20], "fgs_depth": 4})
    assert deep.status_code == 422 and "FGS depth 4 at 9 seats takes about" in deep.json()["detail"]


def test_pushfold_fgs_matches_the_cli(client):
    data = client.post("/api/pushfold", json={"stacks": [6, 9], "payouts": [1], "fgs_depth": 1}).json()
    assert data["model"] == "fgs" and data["fgs_depth"] == 1
    assert sum(seat["value"] for seat in data["seats"]) == pytest.approx(1.0, abs=1e-9)


# -- knockout bounties -----------------------------------------------------------------------------------------

HRC_EXPECTED = [0.4143, 0.7684, 1.0475, 1.2822, 1.4874]  # HoldemResources, 10/20/30/40/50, bounty 1 (truncated)


def test_icm_answer_has_bounty_equity(client):
    body = {"stacks": [10, 20, 30, 40, 50], "payouts": "50,30,20", "bounty": 1}
    data = client.post("/api/icm", json=body).json()
    assert [math.floor(p["bounty_equity"] * 1e4) / 1e4 for p in data["players"]] == HRC_EXPECTED
    cli = cli_json("icm --stacks 10,20,30,40,50 --payouts 50,30,20 --bounty 1")
    assert [p["bounty_equity"] for p in data["players"]] == [p["bounty_equity"] for p in cli["players"]]
    pko = client.post("/api/icm", json={**body, "bounty": [1, 2, 1, 2, 1], "pko_share": 0.5}).json()
    assert pko["bounty"]["format"] == "pko"
    assert math.isclose(sum(p["bounty_equity"] for p in pko["players"]), 7.0, abs_tol=1e-12)


def test_pushfold_takes_a_bounty(client):
    body = {"stacks": [6, 20], "payouts": [50, 30, 20], "field": [15, 15], "bounty": 10, "target": 1e-3}
    data = client.post("/api/pushfold", json=body).json()
    assert data["bounty"] == {"heads": [10.0, 10.0], "share": 1.0, "format": "knockout"}
    assert data["max_gain"] <= 1e-3


def test_a_pko_share_without_bounties_is_422(client):
    response = client.post("/api/pushfold", json={"stacks": [10, 10], "pko_share": 0.5})
    assert response.status_code == 422 and "needs bounties" in response.json()["detail"]
    response = client.post("/api/icm", json={"stacks": [5, 3], "payouts": "50,30", "pko_share": 0.5})
    assert response.status_code == 422 and "needs bounties" in response.json()["detail"]
