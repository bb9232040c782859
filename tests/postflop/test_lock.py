"""Node locking against independent oracles: a player locked to its equilibrium (the sequence-form LP's) changes
nothing; a player locked to an exploitable strategy leaves the other its exact best-response value (a deal-by-deal
brute force, and the clairvoyance game's closed form); some hands locked give the LP's value of the game the
locks leave; locks through merged turn and river cards; bad locks refused with what to change."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.encoding import format_card
from pokerlab.cli.main import app
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.kernels import CHANCE_NODE, DECISION_NODE
from pokerlab.postflop import build_game, load, resume, solve
from pokerlab.postflop.lock import LockError, parse_lock, read_lock_file, resolve_locks
from pokerlab.solvers.postflop_cfr import PostflopSolver
from postflop.test_river_oracles import SPOTS, brute_force_value, lp_solution

RIVER = dict(board="Kh9d5c2s2h", pot=100, stack=150)
TURN = dict(board="Td9d6h5d", oop="AA, QJs, 87s", ip="TT, KQs, A4s", pot=100, stack=100, bets="a", raises="")


def _line(game: PostflopGame, node: int, every: bool = False) -> str:
    """The action line of ``node`` (cards at chance nodes, or ``*`` with ``every``)."""
    steps = []
    while node > 0:
        up = int(game.parent[node])
        if game.tree.kind[up] == CHANCE_NODE:
            steps.append("*" if every else format_card(int(game.tree.card[node])))
        else:
            steps.append(game.labels[up][node - int(game.tree.first_child[up])])
        node = up
    return ", ".join(reversed(steps))


def _nodes(game: PostflopGame, player: int) -> list[int]:
    tree = game.tree
    return [v for v in range(len(tree.kind)) if tree.kind[v] == DECISION_NODE and tree.player[v] == player]


def _uniform_locks(game: PostflopGame, player: int, every: bool = False) -> list[dict[str, object]]:
    """Every node of ``player`` locked to the uniform mix, for the whole range (one lock per line)."""
    locks = {}
    for v in _nodes(game, player):
        labels = game.labels[v]
        locks[_line(game, v, every)] = {"line": _line(game, v, every),
                                        "strategy": {a: 1 / len(labels) for a in labels}}
    return list(locks.values())


@pytest.mark.parametrize("spot", [0, 1])
def test_lock_to_the_equilibrium_changes_nothing(spot: int) -> None:
    """Every OOP row locked to the LP's equilibrium strategy: IP's value is minus the game value (its best
    response to an equilibrium), within IP's gain; OOP's gain is 0 (nothing of it is free); the EVs equal the
    unlocked solve's within both solves' bounds."""
    oop, ip, bets, raises = SPOTS[spot]
    spot_args = dict(RIVER, oop=oop, ip=ip, bets=bets, raises=raises)
    game, _ = build_game(**spot_args)
    value, blocks = lp_solution(game)
    locks = []
    names = game.hand_names(0)
    for v in _nodes(game, 0):
        na = int(game.tree.num_children[v])
        lo = int(game.tree.offset[v])
        mix = np.clip(blocks[0][lo:lo + na * len(names)].reshape(na, -1), 0, None)
        mix /= mix.sum(axis=0)
        for h, name in enumerate(names):
            locks.append({"line": _line(game, v), "hands": name,
                          "strategy": dict(zip(game.labels[v], mix[:, h].tolist(), strict=True))})
    result = solve(**spot_args, lock=locks, target=0.01, iterations=3000)
    pot = 100
    assert result.gains is not None
    # a wholly locked player has nothing to gain but the float32 storage's rounding of its mix (3e-7 relative)
    assert result.gains[0] == pytest.approx(0.0, abs=1e-8 * pot)
    assert result.gains[1] < 1e-4 * pot
    ip_value = result.ev[1] - pot / 2
    assert -value - result.gains[1] - 1e-7 <= ip_value <= -value + 1e-7
    gain = result.gain_over_equilibrium
    assert gain is not None and abs(gain["OOP"]) <= gain["within"] and abs(gain["IP"]) <= gain["within"]
    # the locked rows are played as locked (float32): the root's mix per hand is the LP's
    root = result.root
    for i, name in enumerate(root.hands):
        h = names.index(name)
        mix = np.clip(blocks[0][:len(root.actions) * len(names)].reshape(len(root.actions), -1)[:, h], 0, None)
        assert root.strategy[i] == pytest.approx(mix / mix.sum(), abs=1e-6)


@pytest.mark.parametrize("spot", [0, 1])
def test_lock_to_an_exploitable_strategy_gives_its_best_response(spot: int) -> None:
    """OOP locked to the uniform mix at every node: IP's value converges to its exact best-response value
    against that strategy, computed deal by deal (the brute force of the river oracles), from below."""
    oop, ip, bets, raises = SPOTS[spot]
    spot_args = dict(RIVER, oop=oop, ip=ip, bets=bets, raises=raises)
    game, _ = build_game(**spot_args)
    result = solve(**spot_args, lock=_uniform_locks(game, 0), target=0.002, iterations=3000, baseline=False)
    assert result.equilibrium is None and result.gains is not None
    best = brute_force_value(game, PostflopSolver(game, game.strategy_storage({}), weight=1.0), 1)
    ip_value = result.ev[1] - 50
    assert result.stop_reason == "target" and result.gains[1] <= 2 * 0.002
    # within the float32 storage's rounding of the locked mix (3e-7 relative) times chips at stake
    assert best - result.gains[1] - 1e-5 <= ip_value <= best + 1e-5
    assert result.gains[0] == pytest.approx(0.0, abs=1e-5)


def test_clairvoyance_bettor_locked_to_always_jam() -> None:
    """The clairvoyance game (OOP: AA or 65s, IP: QQ, pot 100, 50 behind) with OOP locked to jam everything:
    IP's best response calls; it wins 100 net of its half pot against 4 bluff combos, loses 100 against 3 value
    combos, 100/7 a deal; unlocked, IP is held to the closed form's -(3 * 50 (1 - c) + ...) value."""
    spot = dict(board="AhKd7c4s2h", oop="AA, 65s", ip="QQ", pot=100, stack=50, bets="a", raises="", add_allin=0.0)
    result = solve(**spot, lock="line=; strategy=all-in", target=0.001, iterations=2000)
    assert result.ev[1] - 50 == pytest.approx(100 / 7, abs=1e-6)
    assert result.node("all-in").frequencies["call"] == pytest.approx(1.0, abs=1e-6)
    c = 1 / 1.5
    unlocked_ip = -(3 * ((1 - c) * 50 + c * 100) + 4 * -50) / 7
    gain = result.gain_over_equilibrium
    assert gain is not None
    assert gain["IP"] == pytest.approx(100 / 7 - unlocked_ip, abs=gain["within"] + 1e-9)


def test_partial_lock_against_the_lp_of_the_locked_game() -> None:
    """Some OOP hands locked at the root (QQ checks, T8s jams), the rest free: the solve's value is the LP's
    value of the game with those rows fixed (within twice the exploitability), the locked hands play their
    lock exactly and the free hands of the same node do not."""
    oop, ip, bets, raises = SPOTS[0]
    spot_args = dict(RIVER, oop=oop, ip=ip, bets=bets, raises=raises)
    game, _ = build_game(**spot_args)
    labels = game.labels[0]
    names = game.hand_names(0)
    fixed = {}
    for h, name in enumerate(names):
        if name[0] == name[2] == "Q":
            fixed[(0, h)] = np.array([a == "check" for a in labels], dtype=float)
        elif name[0] + name[2] == "T8":
            fixed[(0, h)] = np.array([a.startswith("all-in") for a in labels], dtype=float)
    assert len(fixed) == 6 + 4
    value, _ = lp_solution(game, fixed)
    free_value, _ = lp_solution(game)
    assert abs(value - free_value) > 0.5  # the locks cost OOP something: the test can tell
    result = solve(**spot_args, lock=["line=; strategy=check; hands=QQ", "line=root; strategy=all-in; hands=T8s"],
                   target=0.005, iterations=3000)
    eps = result.exploitability
    assert eps <= 0.005 and result.ev[0] - 50 == pytest.approx(value, abs=2 * eps + 1e-9)
    root = result.root
    for i, name in enumerate(root.hands):
        h = names.index(name)
        if (0, h) in fixed:
            assert root.strategy[i].tolist() == fixed[(0, h)].tolist()
    free = [root.strategy[i] for i, n in enumerate(root.hands) if n[0] == n[2] == "9"]
    assert all(0.01 < s[labels.index("check")] < 0.99 or s[labels.index("check")] < 0.01 for s in free)
    assert not all(s[labels.index("check")] == 1.0 for s in free)


def test_locks_through_merged_cards() -> None:
    """A turn spot whose river cards merge (clubs and spades): every IP node locked to uniform for every card
    keeps the merging and leaves IP no gain (the walk of its locked best response through merged cards agrees
    with the compiled evaluation); a lock on a whole range for every river card gives the same EVs merged and
    unmerged; a lock naming a merged card or hands that tell merged suits apart turns the merging off."""
    game, _ = build_game(**TURN)
    assert game.tree.iso_count.any()
    uniform = solve(**TURN, lock=_uniform_locks(game, 1, every=True), target=0.05, iterations=2000, baseline=False)
    assert uniform.spec["isomorphism"] is True and uniform.gains is not None
    assert uniform.gains[1] == pytest.approx(0.0, abs=1e-9)
    river = "line=check, check, *, check; strategy=check"
    merged = solve(**TURN, lock=river, target=0.05, iterations=2000, baseline=False)
    plain = solve(**TURN, lock=river, target=0.05, iterations=2000, baseline=False, isomorphism=False)
    assert merged.spec["isomorphism"] is True and plain.spec["isomorphism"] is False
    assert merged.ev[0] == pytest.approx(plain.ev[0], abs=2 * (merged.exploitability + plain.exploitability))
    one_card = solve(**TURN, lock="line=check, check, 2c, check; strategy=check", iterations=20, target=None,
                     baseline=False)
    assert one_card.spec["isomorphism"] is False
    assert one_card.node("check, check, 2c, check").frequencies["check"] == 1.0
    assert resolve_locks(game, [parse_lock("line=check; strategy=check; hands=KcQc")]).symmetric is False
    assert resolve_locks(game, [parse_lock("line=check; strategy=check; hands=KhQh")]).symmetric is True


def test_saved_locked_solve_loads_resumes_and_shows(tmp_path: Path) -> None:
    oop, ip, bets, raises = SPOTS[0]
    spot_args = dict(RIVER, oop=oop, ip=ip, bets=bets, raises=raises)
    locked = solve(**spot_args, lock="line=check; strategy=check: 50%, bet 75%: 50%; hands=KK", iterations=40,
                   target=None)
    back = load(locked.save(tmp_path / "locked.npz"))
    assert back.locks == locked.locks and back.gains == locked.gains and back.equilibrium == locked.equilibrium
    third = parse_lock("line=; strategy=check: 0.1, bet 75: 0.6, all-in: 0.3")
    assert parse_lock(third.text) == third and "check: 10%" in third.text
    assert parse_lock(parse_lock(f"line=; strategy=check: {1 / 3!r}, bet 75: {2 / 3!r}").text).strategy[0][1] == 1 / 3
    more = resume(back, iterations=80)
    assert more.iterations == 80 and more.equilibrium == locked.equilibrium
    kk = more.node("check").hand("KsKc")["strategy"]
    assert kk["check"] == pytest.approx(0.5, abs=1e-7) and kk["bet 75"] == pytest.approx(0.5, abs=1e-7)
    assert more.node("check").hand("KsKc")["locked"] and not more.node("check").hand("AsAc")["locked"]
    assert more.to_dict()["lock"]["locks"] == ["line=check; strategy=check: 50%, bet 75%: 50%; hands=KK"]


@pytest.mark.parametrize(("lock", "message"), [
    ("line=raise; strategy=check", "no action 'raise' here: the actions are check"),
    ("line=check, check; strategy=check", "ends at a terminal"),
    ("line=; strategy=check: 50%, bet 75: 40%", "add up to 0.9, not 1"),
    ("line=; strategy=fold", "no action 'fold' here"),
    ("line=; strategy=check, bet 75", "give each action its probability"),
    ("line=; strategy=check; hands=JJ", "not in OOP's range"),
    ("line=; strategy=check; hands=QQ; hands=99", "gives hands= twice"),
    ("line=; strategy=check: 150%", "outside 0 to 1"),
    ("line=; strategy=check: 50%, check: 50%", "names check twice"),
    ("line=check; strategy=check; hands=QQ", "QdQc, QhQc, QhQd, QsQc, QsQd and 1 more not in IP's range"),
    ("line=; strategy=check; hands=Kh9d", "no hand of"),
    ("strategy=check; who=IP", "expected 'line=...; strategy=...[; hands=...]'"),
    ("line=check", "has no strategy"),
    ("line=*; strategy=check", "stands for every card where one is dealt"),
])
def test_bad_river_locks(lock: str, message: str) -> None:
    oop, ip, bets, raises = SPOTS[0]
    with pytest.raises(LockError, match=message.replace("(", r"\(").replace("[", r"\[").replace(".", r"\.")):
        solve(**RIVER, oop=oop, ip=ip, bets=bets, raises=raises, lock=lock, iterations=1)


@pytest.mark.parametrize(("lock", "message"), [
    ("line=check, check, check; strategy=check", "the river is dealt after check, check; give a card"),
    ("line=check, check; strategy=check", "ends where the river is dealt"),
    ("line=check, check, 9d, check; strategy=check", "9d cannot be dealt on the river"),
])
def test_bad_turn_locks(lock: str, message: str) -> None:
    with pytest.raises(PokerlabError, match=message):
        solve(**TURN, lock=lock, iterations=1)


def test_cli_locks_from_options_and_a_file(tmp_path: Path) -> None:
    runner = CliRunner()
    locks = tmp_path / "locks.json"
    locks.write_text(json.dumps([{"line": ["bet 75%"], "strategy": {"fold": 0.3, "call": 0.7}, "hands": "JTs"}]))
    assert read_lock_file(locks)[0].hands == "JTs"
    text = tmp_path / "locks.txt"
    text.write_text("# IP checks back\nline=check; strategy=check\n")
    out = tmp_path / "spot.npz"
    spot = ["postflop", "solve", "--board", "Kh9d5c2s2h", "--oop", "QQ,99,AKo,T8s", "--ip", "KK,JTs,76s", "--pot",
            "100", "--stack", "150", "--bets", "75%", "--raises", "a", "--target", "0.5%"]
    solved = runner.invoke(app, [*spot, "--lock-file", str(locks), "--lock", "line=check; strategy=check", "--json",
                                 "--out", str(out)])
    assert solved.exit_code == 0, solved.output
    data = json.loads(solved.stdout)["lock"]
    assert data["locks"] == ["line=check; strategy=check: 100%", "line=bet 75%; strategy=fold: 30%, call: 70%; "
                             "hands=JTs"]
    assert [(x["player"], x["nodes"], x["hands"]) for x in data["placed"]] == [("IP", 1, 11), ("IP", 1, 4)]
    assert data["gain_over_equilibrium"]["OOP"] > 1.0  # IP never bets: OOP wins more than at the equilibrium
    shown = runner.invoke(app, ["postflop", "show", str(out), "--line", "bet 75%", "--hand", "JhTh"])
    assert shown.exit_code == 0 and "lock: line=check; strategy=check: 100%" in shown.output
    assert "JhTh: fold: 30.0%  call: 70.0%" in shown.output and "(locked)" in shown.output
    assert "4 of " in shown.output and "hands here play a locked strategy" in shown.output
    base = tmp_path / "base.npz"
    assert runner.invoke(app, [*spot, "--out", str(base)]).exit_code == 0
    compared = runner.invoke(app, [*spot, "--lock-file", str(text), "--baseline", str(base)])
    assert compared.exit_code == 0 and "gain over it OOP +" in compared.output
    bad = runner.invoke(app, [*spot, "--lock", "line=check; strategy=check: 60%"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "add up to 0.6, not 1" in bad.output
    other = runner.invoke(app, [*spot, "--no-baseline"])
    assert other.exit_code == 2 and "give --lock too" in other.output


def test_web_api_takes_locks() -> None:
    """``lock`` in ``POST /api/postflop``: the locked solve's lock block; a bad lock answers 422 with what to
    change."""
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    from fastapi.testclient import TestClient

    from pokerlab.web.app import Limits, Settings, create_app

    spot = {"board": "Kh9d5c2s2h", "oop": "QQ,99,AKo", "ip": "KK,JTs", "pot": 100, "stack": 150, "bets": "75%",
            "raises": "a", "target": 0.5}
    with TestClient(create_app(Settings(workers=1, max_queue=4, warm=False,
                                        limits=Limits(job_seconds=30.0)))) as client:
        answer = client.post("/api/postflop", json={**spot, "lock": ["line=check; strategy=check"]})
        assert answer.status_code == 200, answer.text
        data = answer.json()
        assert data["lock"]["locks"] == ["line=check; strategy=check: 100%"]
        assert data["lock"]["gain_over_equilibrium"]["OOP"] > 0
        bad = client.post("/api/postflop", json={**spot, "lock": ["line=check; strategy=check: 40%"]})
        assert bad.status_code == 422 and "add up to 0.4, not 1" in bad.json()["detail"]
