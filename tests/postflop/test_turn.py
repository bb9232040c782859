"""Turn spots: merged isomorphic river cards solve the same game, the generic vector-form best response agrees
with ours, per-hand equities agree with pokerlab.equity, chips are conserved, a saved solve loads and resumes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards.classes import COMBOS, combo_index
from pokerlab.equity import equity
from pokerlab.games.postflop.game import SWAPS, PostflopGame, _swap_card
from pokerlab.games.postflop.kernels import CHANCE_NODE, DECISION_NODE
from pokerlab.games.vector import compile_public_tree
from pokerlab.postflop import build_game, load, resume, solve
from pokerlab.solvers.postflop_cfr import PostflopSolver, discount
from pokerlab.solvers.vector_strategy import VectorStrategy, vector_exploitability

MONOTONE = "Ah8h5h2h"
OOP = "AKo, KQs, 77, 33, T9s, JcTc"
IP = "QQ, JJ, KJs, 65s, 98s, KdQd"


def test_monotone_turn_merges_three_suits_and_solves_the_same_game() -> None:
    merged, _ = build_game(MONOTONE, "AKo, KQs, 77, T9s", "QQ, KJs, 65s", pot=100, stack=200, bets="a", raises="")
    plain, _ = build_game(MONOTONE, "AKo, KQs, 77, T9s", "QQ, KJs, 65s", pot=100, stack=200, bets="a", raises="",
                          isomorphism=False)
    # 48 river cards: the 9 hearts left apart, the 39 of the other suits merge 3 to 1 (9 + 13 = 22 children)
    chance = [int(n) for n in np.flatnonzero(merged.tree.kind == 3)]
    assert {int(merged.tree.num_children[n]) for n in chance} == {22}
    assert {int(plain.tree.num_children[n]) for n in np.flatnonzero(plain.tree.kind == 3)} == {48}
    assert merged.decision_count < plain.decision_count
    solver = PostflopSolver(merged)
    solver.run(iterations=60)
    played = PostflopSolver(plain, _merged_strategy_in_plain_tree(
        merged, plain, merged.average_strategy(solver.cumulative, solver.weight)), weight=1.0)
    for p in (0, 1):
        assert solver.value(p) == pytest.approx(played.value(p), abs=1e-5)
        assert solver.value(p, best=True) == pytest.approx(played.value(p, best=True), abs=1e-5)


def test_a_line_through_a_merged_card_shows_the_twin() -> None:
    r = solve(MONOTONE, "AKo, 77", "QQ, KJs", pot=100, stack=200, bets="a", raises="", iterations=50, target=None)
    clubs, spades = r.node("check", "check", "3c"), r.node("check", "check", "3s")
    assert clubs.line == ("OOP check", "IP check", "river 3c")
    # the spade runout's hands are the club runout's with the suits swapped, same numbers
    swap = {"c": "s", "s": "c", "d": "d", "h": "h"}
    renamed = ["".join(ch if i % 2 == 0 else swap[ch] for i, ch in enumerate(h)) for h in clubs.hands]
    order = [spades.hands.index("".join(sorted([n[:2], n[2:]], key=lambda c: ("23456789TJQKA".index(c[0]),
                                                                           "cdhs".index(c[1])), reverse=True)))
             for n in renamed]
    assert np.allclose(spades.strategy[order], clubs.strategy)
    assert np.allclose(spades.equity[order], clubs.equity)


def test_generic_vector_best_response_agrees() -> None:
    game, _ = build_game("Kd9s5c2h", OOP, IP, pot=100, stack=100, bets="a", raises="", isomorphism=False)
    solver = PostflopSolver(game)
    solver.run(iterations=40)
    tree = compile_public_tree(game)
    strategy = VectorStrategy.uniform(tree)
    average = game.average_strategy(solver.cumulative, solver.weight)
    for n in tree.decision_nodes():
        strategy.block(int(n))[:] = average[int(tree.states[int(n)])].T
    generic = vector_exploitability(tree, strategy) / game.pairs_weight
    assert generic == pytest.approx(solver.exploitability(), rel=1e-6, abs=1e-9)
    assert solver.exploitability() > 0.01  # a 40-iteration solve is measurably exploitable: the check bites


def test_root_equities_match_pokerlab_equity() -> None:
    r = solve("Kd9s5c2h", OOP, "QQ, 65s", pot=100, stack=100, bets="a", raises="", iterations=2, target=None)
    view = r.root
    for name in ("AsKc", "7h7d", "JcTc"):
        exact = equity([name, "QQ, 65s"], board="Kd9s5c2h", method="exact").equity[0]
        assert view.hand(name)["equity"] == pytest.approx(exact, abs=1e-12)
    # chips are conserved: the two EVs add up to the pot
    assert sum(r.ev) == pytest.approx(100.0, abs=1e-9)


def test_save_load_resume(tmp_path: Path) -> None:
    first = solve("Kd9s5c2h", OOP, IP, pot=100, stack=100, bets="a", raises="", iterations=20, target=None)
    path = first.save(tmp_path / "spot.npz")
    loaded = load(path)
    assert loaded.iterations == 20 and loaded.exploitability == first.exploitability
    assert np.array_equal(loaded.cumulative, first.cumulative)
    assert loaded.node("check").to_dict() == first.node("check").to_dict()
    # resuming 20 more equals 40 in one go, exactly
    more = resume(loaded, iterations=40)
    straight = solve("Kd9s5c2h", OOP, IP, pot=100, stack=100, bets="a", raises="", iterations=40, target=None)
    assert np.array_equal(more.cumulative, straight.cumulative)
    assert more.exploitability == straight.exploitability
    decisions = int(np.count_nonzero(straight.game.tree.kind == DECISION_NODE))
    assert decisions == straight.game.decision_count


def test_parallel_branches_equal_one_serial_walk() -> None:
    """The top chance nodes' branches of an update run on numba's threads; the sums are the serial walk's (in
    float32 rows, as the solver's updates), bit for bit."""
    from pokerlab.games.postflop.kernels import AVERAGE, BEST, UPDATE, Discount, tree_values

    game, _ = build_game(MONOTONE, OOP, IP, pot=100, stack=200, bets="50%, a", raises="a")
    assert game.top_chance.size > 0
    parallel, serial = PostflopSolver(game), PostflopSolver(game)
    parallel.run(iterations=12)
    rows = [w.astype(np.float32) for w in serial._weights]
    for t in range(12):
        for p in (0, 1):
            tree_values(game.tree, game.hands, serial.regrets, serial.cumulative, 0, p, rows[p], rows[1 - p], UPDATE,
                        discount(t), game.half_pot, game.chance_index, np.zeros((0, 1)))
    assert np.array_equal(parallel.regrets, serial.regrets)
    assert np.array_equal(parallel.cumulative, serial.cumulative)
    for mode in (AVERAGE, BEST):
        whole = tree_values(game.tree, game.hands, serial.regrets, serial.cumulative, 0, 0, serial._weights[0],
                            serial._weights[1], mode, Discount(1.0, 1.0, 1.0, parallel.weight), game.half_pot,
                            game.chance_index, np.zeros((0, 1)))
        assert np.array_equal(whole, parallel.counterfactual_values(0, best=mode == BEST))


@pytest.mark.parametrize("compress", [False, True])
def test_one_call_river_iteration_equals_two_walks(compress: bool) -> None:
    """A river's iteration is both players' walks in one compiled call (``p`` = -1); it leaves the regrets,
    cumulative strategy and scales of OOP's walk then IP's, each its own call, bit for bit."""
    from pokerlab.games.postflop.kernels import UPDATE, scaled_tree_values, scratch

    game, _ = build_game("Td9d6hQc2s", OOP, IP, pot=100, stack=200, bets="50%, a", raises="a", compress=compress)
    assert game.top_chance.size == 0
    fused, apart = PostflopSolver(game, compress=compress), PostflopSolver(game, compress=compress)
    fused.run(iterations=12)
    width = game.hands.weights.shape[1]
    rows = [w.astype(np.float32) for w in apart._weights]  # the updates' row type
    buf, top, work, out = (scratch(game.tree, game.hands, 0, rows[0]), np.empty((2, width), np.float32),
                           np.empty(52 + width), np.empty(width, np.float32))
    for t in range(12):
        for p in (0, 1):
            scaled_tree_values(game.tree, game.hands, apart.regrets, apart.cumulative, apart.scales, 0, p,
                               rows[p], rows[1 - p], UPDATE, np.array([discount(t)]), game.half_pot,
                               game.chance_index, np.zeros((0, width)), buf, top, work, out)
    assert np.array_equal(fused.regrets, apart.regrets)
    assert np.array_equal(fused.cumulative, apart.cumulative)
    assert np.array_equal(fused.scales, apart.scales)
    assert np.abs(fused.regrets).max() > 0


def test_a_rivers_batches_are_capped_and_leave_the_state_of_single_iterations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With checks every 1,000 iterations a river still runs at most ``MAX_BATCH`` iterations per compiled call
    (Ctrl-C lands between calls), the batches end at the asked total, and the regrets, cumulative strategy and
    scales equal those of one iteration per call, bit for bit."""
    from pokerlab.solvers.postflop_cfr import MAX_BATCH

    game, _ = build_game("Td9d6hQc2s", OOP, IP, pot=100, stack=200, bets="50%, a", raises="a")
    counts: list[int] = []
    steps = PostflopSolver.steps

    def recorded(self: PostflopSolver, count: int) -> None:
        counts.append(count)
        steps(self, count)

    batched, single = PostflopSolver(game), PostflopSolver(game)
    for _ in range(40):
        single.step()
    monkeypatch.setattr(PostflopSolver, "steps", recorded)
    assert batched.run(iterations=40, target_percent=1e-9, check_every=1000) == "iterations"
    assert counts == [MAX_BATCH, MAX_BATCH, 40 - 2 * MAX_BATCH]
    for name in ("regrets", "cumulative", "scales"):
        assert np.array_equal(getattr(batched, name), getattr(single, name))


def test_scratch_holds_every_level_and_action_of_the_walk() -> None:
    """The walk keeps its rows in one slab per level, without bounds checks: the depth and the widest decision
    that ``_shape_below`` sizes them by, against a plain recursion, at every node of a turn tree."""
    from pokerlab.games.postflop.kernels import _shape_below

    game, _ = build_game("Kd9s5c2h", OOP, IP, pot=100, stack=100, bets="50%, a", raises="a", isomorphism=False)
    tree = game.tree

    def shape(node: int) -> tuple[int, int]:
        children = range(int(tree.first_child[node]), int(tree.first_child[node] + tree.num_children[node]))
        if tree.kind[node] not in (DECISION_NODE, CHANCE_NODE):
            return 1, 1
        below = [shape(c) for c in children]
        own = int(tree.num_children[node]) if tree.kind[node] == DECISION_NODE else 1
        return 1 + max(d for d, _ in below), max([own] + [a for _, a in below])

    for node in range(0, tree.kind.size, 7):
        assert _shape_below(tree, node) == shape(node)
    assert _shape_below(tree, 0)[0] >= 6  # two streets of actions and the river's deal


def _merged_strategy_in_plain_tree(merged: PostflopGame, plain: PostflopGame,
                                   average: dict[int, np.ndarray]) -> np.ndarray:
    """The plain tree's storage playing ``merged``'s ``average`` strategy (by node, actions by hands): each node of
    a twin card's branch plays the representative's node with the suits swapped (hands relabelled)."""
    out: dict[int, np.ndarray] = {}
    position = [{int(c): i for i, c in enumerate(merged.combos(p))} for p in range(2)]
    stack = [(0, 0, (0, 1, 2, 3))]
    while stack:
        n, m, suit_map = stack.pop()
        kind = plain.tree.kind[n]
        if kind == DECISION_NODE:
            actor = int(plain.tree.player[n])
            na = int(plain.tree.num_children[n])
            mapped = []
            for combo in plain.combos(actor):
                c1, c2 = (4 * (int(c) >> 2) + suit_map[int(c) & 3] for c in COMBOS[combo])
                mapped.append(position[actor][combo_index(c1, c2)])
            out[n] = average[m][:, mapped]
            for a in range(na):
                stack.append((int(plain.tree.first_child[n]) + a, int(merged.tree.first_child[m]) + a, suit_map))
        elif kind == CHANCE_NODE:
            for i in range(int(plain.tree.num_children[n])):
                child = int(plain.tree.first_child[n]) + i
                card = int(plain.tree.card[child])
                target = 4 * (card >> 2) + suit_map[card & 3]
                for j in range(int(merged.tree.num_children[m])):
                    rep = int(merged.tree.first_child[m]) + j
                    lo = merged.tree.iso_start[rep]
                    swaps = merged.tree.iso_swaps[lo:lo + merged.tree.iso_count[rep]]
                    if merged.tree.card[rep] == target:
                        stack.append((child, rep, suit_map))
                        break
                    hit = [s for s in swaps.tolist() if _swap_card(target, *SWAPS[s]) == merged.tree.card[rep]]
                    if hit:
                        s1, s2 = SWAPS[hit[0]]
                        stack.append((child, rep, tuple(s2 if x == s1 else s1 if x == s2 else x for x in suit_map)))
                        break
                else:
                    raise AssertionError(f"card {card} has no representative")
    return plain.strategy_storage(out)


def test_flop_merging_equals_no_merging() -> None:
    """On Td9d6h clubs and spades are twins for the turn; after a 6c turn hearts and clubs hold the same ranks
    but were not twins on the flop (6h), so the river must not merge them (the flop's strategies tell AhKh from
    AcKc). The merged tree's solve, played in the plain tree, has the same values and best responses (a
    comparison of two separate solves would also compare their rounding: regret matching of near-zero regrets
    amplifies it after a few iterations)."""
    spot = dict(pot=100, stack=100, bets="a", raises="")
    oop, ip = "AKs, QJs, KQs, 87s", "JJ, 87s, A5s, 54s"
    merged, _ = build_game("Td9d6h", oop, ip, **spot)
    plain, _ = build_game("Td9d6h", oop, ip, **spot, isomorphism=False)
    assert merged.decision_count < plain.decision_count
    solver = PostflopSolver(merged)
    solver.run(iterations=30)
    played = PostflopSolver(plain, _merged_strategy_in_plain_tree(
        merged, plain, merged.average_strategy(solver.cumulative, solver.weight)), weight=1.0)
    for p in (0, 1):  # to the float32 storage's rounding (1e-7 of the pot; the old rule was off by 1e-4)
        assert solver.value(p) == pytest.approx(played.value(p), abs=1e-5)
        assert solver.value(p, best=True) == pytest.approx(played.value(p, best=True), abs=1e-5)
    assert solver.exploitability() > 1e-3  # not an equilibrium: the best responses have something to find


@pytest.mark.parametrize(("board", "isomorphism"), [("Td9d6h", True), ("Td9d6h", False), (MONOTONE, True),
                                                    ("Ah8h5h2h6c", True)])
def test_memory_estimate_counts_the_built_tree(board: str, isomorphism: bool) -> None:
    """The estimate made before the tree is built counts its values and nodes exactly, merged rivers
    included (Td9d6h: 36 turn classes, then 36 or 48 rivers each; the old estimate took 48 for every turn)."""
    game, _ = build_game(board, "AKs, QJs, 87s", "JJ, A5s, 54s", pot=100, stack=100, bets="a", raises="",
                         isomorphism=isomorphism)
    values, nodes, boards = game.estimated_counts
    assert (values, nodes) == (game.storage_size, game.tree.kind.size)
    decisions = np.flatnonzero(game.tree.kind == DECISION_NODE)
    rows = game.hands.sizes[game.tree.player[decisions]]
    actions = game.tree.num_children[decisions].astype(np.int64)
    assert game.estimated_updates == int((rows * actions).sum())
    assert game.storage_size == int((rows * (2 * actions - 1)).sum())
    assert len(game._boards) <= boards <= 2 * len(game._boards)  # noqa: SLF001
    # the node arrays take what the estimate counts a node, the narrow types included
    per_node = [a for name, a in zip(game.tree._fields, game.tree, strict=True) if name not in ("iso_swaps", "rake")]
    node_bytes = sum(a.nbytes for a in [*per_node, game.chance_index, game.labels._index, game.dealt._cards])
    assert node_bytes == game.NODE_BYTES * nodes
    # the parent, made when asked, is the node whose children's range holds it
    for node in range(1, game.tree.kind.size, 97):
        up = int(game.parent[node])
        assert game.tree.first_child[up] <= node < game.tree.first_child[up] + game.tree.num_children[up]
    assert game.parent[0] == -1


def test_misses_mark_each_players_hands_without_each_card() -> None:
    """``misses[q, c, h]``: hand ``h`` is one of ``q``'s and holds neither card ``c`` (the chance branches' card
    removal), against the hands' cards one by one."""
    game, _ = build_game(MONOTONE, OOP, IP, pot=100, stack=200, bets="50%, a", raises="a")
    hands = game.hands
    width = hands.weights.shape[1]
    expected = np.array([[[h < hands.sizes[q] and c not in hands.cards[q, h] for h in range(width)]
                          for c in range(52)] for q in range(2)])
    assert hands.misses.dtype == np.bool_
    assert np.array_equal(hands.misses, expected)
    assert 0 < hands.misses.sum() < hands.misses.size


@pytest.mark.parametrize("board, rake", [("Td9d6hQc2s", None), ("Td9d6hQc2s", 0.05), (MONOTONE, None)])
def test_exploitability_in_one_call_equals_the_best_responses_one_by_one(board: str, rake: float | None) -> None:
    """Both best responses (and with rake both average values) are one compiled call; they equal the players'
    values walked one by one (the root sums compiled instead of numpy's: to 1e-12 of the pot)."""
    game, _ = build_game(board, OOP, IP, pot=100, stack=200, bets="50%, a", raises="a", rake=rake, rake_cap=3)
    solver = PostflopSolver(game)
    solver.run(iterations=23)
    gain = solver.value(0, True) + solver.value(1, True)
    if game.raked:
        gain -= solver.value(0) + solver.value(1)
    assert abs(solver.exploitability() - 0.5 * gain) < 1e-12 * 100
    assert solver.exploitability() > 0.01
