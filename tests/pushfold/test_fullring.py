"""The chart model (games/pushfold/joint.py, pot_tables.py), the chart solve and the shipped full-ring charts.

Oracles: the exact heads-up class tables (the two-way pots of the chart model must equal the exact game's), the
exact two-combo card-removal probabilities (the sampled three-way table's marginals), exact counts (every deal
counted six times; the shares sum to one per deal), chips conserved (chip-EV values sum to zero), a fresh solve
of sampled shipped spots, and the independent solver of pokerlab.pushfold (its removal-conditioned game with
sampled 3+ way pots) valuing the chart model's three-seat strategy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.pushfold.joint import JointPotGame
from pokerlab.games.pushfold.pot_tables import build_pot_tables
from pokerlab.games.vector import compile_public_tree
from pokerlab.pushfold import fullring_charts
from pokerlab.pushfold.fullring import (
    ANTES,
    HEADS_UP_MAX_ITERATIONS,
    MAX_ITERATIONS,
    check_spot,
    default_target,
    solve_spot,
)
from pokerlab.pushfold.fullring_charts import ChartVersionError, full_ring_chart, read_charts, shipped_charts
from pokerlab.pushfold.real_game import real_game_check
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains, vector_node_values

DEALS = 200_000
OTHER_MODEL_GAIN = 5e-3
"""Bound (bb) on the gain of the chart model's three-seat 10 bb profile in the other card-removal models
(measured: see the report; a profile solved to 1e-3 in the chart model)."""


@pytest.fixture(scope="module")
def small_pots():
    return build_pot_tables(triple_deals=DEALS, bank_deals=2048, seed=7)


def _random_strategy(tree, seed: int) -> VectorStrategy:
    strategy = VectorStrategy.uniform(tree)
    rng = np.random.default_rng(seed)
    for node in tree.decision_nodes():
        block = strategy.block(int(node))
        jam = rng.random(block.shape[0]) * (rng.random(block.shape[0]) < 0.5)
        block[:, 1] = jam
        block[:, 0] = 1.0 - jam
    return strategy


def test_three_way_table_counts_and_card_removal(small_pots):
    pots = small_pots
    assert int(pots.triple_count.sum()) == 6 * DEALS  # every deal counted under its six orders
    assert int(pots.share6.sum()) == 12 * DEALS  # shares sum to 1 per deal: 6 * 2 orders per hand
    assert np.array_equal(pots.triple_count, pots.triple_count.transpose(0, 2, 1))
    # the marginal of the first two classes is the exact two-combo removal probability
    from pokerlab.equity.preflop import preflop_tables

    tables = preflop_tables()
    sizes = tables.class_size.astype(float)
    exact = sizes[:, None] * tables.class_pairs / (1326.0 * 1225.0)
    sampled = pots.triple_count.sum(axis=2) / (6.0 * DEALS)
    # grouped by first class (169 cells of ~1/169): binomial standard errors, 4 of them
    row_exact, row_sampled = exact.sum(axis=1), sampled.sum(axis=1)
    assert np.allclose(row_exact.sum(), 1.0)
    se = np.sqrt(row_exact / DEALS)
    assert np.all(np.abs(row_sampled - row_exact) < 4 * se + 1e-12)
    # and pairs AA vs KK, AKs vs AKo exactly where removal matters most, within 4 standard errors
    for a, b in [(0, 14), (1, 13), (0, 1)]:
        assert abs(sampled[a, b] - exact[a, b]) < 4 * np.sqrt(exact[a, b] / (3 * DEALS)) + 1e-12


def test_two_way_pots_equal_the_exact_game(small_pots):
    table = Table((10.0, 10.0), 0.5, 1.0)
    payoff = lambda final: final - 10.0  # noqa: E731
    joint = compile_public_tree(JointPotGame(table, payoff, pots=small_pots))
    exact = compile_public_tree(PushFoldGame(table, payoff))
    strategy = _random_strategy(joint, 3)
    other = VectorStrategy(exact, strategy.offsets, strategy.probs)
    for seat in range(2):
        assert np.allclose(vector_node_values(joint, strategy, seat)[0], vector_node_values(exact, other, seat)[0],
                           rtol=0, atol=1e-12)


@pytest.mark.parametrize("seats", [3, 5])
def test_chips_are_conserved(small_pots, seats):
    table = Table((8.0,) * seats, 0.5, 1.0, ante=0.125)
    tree = compile_public_tree(JointPotGame(table, lambda final: final - 8.0, pots=small_pots))
    strategy = _random_strategy(tree, seats)
    values = [float(vector_node_values(tree, strategy, p)[0] @ tree.weights[p]) for p in range(seats)]
    assert abs(sum(values)) < 1e-12
    assert max(abs(v) for v in values) > 1e-2  # not trivially zero


def _sparse_strategy(tree, seed: int, playing: float) -> VectorStrategy:
    """Every decision plays (jams or calls) a random ``playing`` share of the classes, with random weights."""
    strategy = VectorStrategy.uniform(tree)
    rng = np.random.default_rng(seed)
    for node in tree.decision_nodes():
        block = strategy.block(int(node))
        jam = rng.random(block.shape[0]) * (rng.random(block.shape[0]) < playing)
        block[:, 1] = jam
        block[:, 0] = 1.0 - jam
    return strategy


@pytest.mark.parametrize("playing", [0.08, 0.9])  # the bank visited through one range's classes, and in order
def test_pot_values_equal_a_direct_sum_over_the_deals(small_pots, playing):
    """Every terminal of a five-seat table against the definition of the model, written out here: a two-way pot
    from the exact class tables, a three-way pot summed over the three-way table, a 4-5 way pot over the bank's
    deals; the kernel evaluates every seat in turn with its memory of the three-way pots shared, as CFR does."""
    from pokerlab.solvers.vector_traversal import Traversal

    game = JointPotGame(Table((9.0,) * 5, 0.5, 1.0, ante=0.1), lambda final: final - 9.0, pots=small_pots)
    tree = compile_public_tree(game)
    walk = Traversal(tree)
    strategy = _sparse_strategy(tree, 11, playing)
    reaches = walk.reach(strategy.offsets, strategy.probs)[0][walk.terminals]
    plans = game.plans([tree.states[int(node)] for node in walk.terminals])
    tables = game.tables
    w = tables.weights
    count = small_pots.triple_count.astype(float)
    share = small_pots.share6.astype(float) / 6.0
    checked = set()
    for player in range(5):
        kernel = game.evaluate_terminals(tree, walk.terminals, player, reaches)
        for t in range(walk.terminals.size):
            m = int(plans.size[t])
            inside = [int(q) for q in plans.inside[t, :m]]
            x = [reaches[t, q] / w for q in inside]
            folded = np.prod([reaches[t, q].sum() for q in range(5) if q != player and q not in inside])
            if m == 1 and player in inside:  # everyone else folded
                expected = np.full(169, plans.fixed[t, player] * folded)
            elif player not in inside:  # the pot's reach probability times a fixed payoff
                if m == 1:
                    mass = float(np.sum(w * x[0]))
                elif m == 2:
                    mass = float((w * x[0]) @ game.equity.class_pairs @ x[1]) / 1225.0
                elif m == 3:
                    mass = float(np.einsum("a,abc,b,c->", w * x[0] * tables.triple_scale, count, x[1], x[2]))
                else:
                    classes = small_pots.bank_classes[m - 4]
                    mass = float(np.mean(np.prod([x[j][classes[:, j]] for j in range(m)], axis=0)))
                expected = np.full(169, plans.fixed[t, player] * folded * mass)
            else:
                slot = inside.index(player)
                others = [x[j] for j in range(m) if j != slot]
                win, lose = plans.win[t, player], plans.lose[t, player]
                if m == 2:
                    won = game.equity.class_win @ others[0]
                    tied = game.equity.class_tie @ others[0]
                    total = game.equity.class_pairs @ others[0]
                    expected = folded * (win * won + lose * (total - won - tied)
                                         + plans.tie[t, player] * tied) / 1225.0
                elif m == 3:
                    reach = np.einsum("hab,a,b->h", count, others[0], others[1]) * tables.triple_scale
                    shared = np.einsum("hab,a,b->h", share, others[0], others[1]) * tables.triple_scale
                    expected = folded * (lose * reach + (win - lose) * shared)
                else:
                    classes, shares = small_pots.bank_classes[m - 4], small_pots.bank_shares[m - 4]
                    weight = np.prod([x[j][classes[:, j]] for j in range(m) if j != slot], axis=0)
                    summed = np.bincount(classes[:, slot], weight * (lose + (win - lose) * shares[:, slot]),
                                         minlength=169)
                    expected = folded * summed * tables.bank_scale
            assert np.allclose(kernel[t], expected, rtol=1e-9, atol=1e-13), (player, t, m)
            checked.add((m, player in inside))
    assert checked == {(m, inside) for m in range(1, 6) for inside in (False, True)} - {(5, False)}


def test_side_pots_are_refused():
    from pokerlab.errors import InvalidGameError

    with pytest.raises(InvalidGameError, match="one pot per showdown"):
        JointPotGame(Table((10.0, 10.0, 1.5), 0.5, 1.0, bb_ante=1.0), lambda final: final)


def test_three_seat_chart_in_the_other_models():
    spot = solve_spot(3, 10.0, "none", target=1e-3)
    assert spot.max_gain <= 1e-3 and abs(sum(spot.values)) < 1e-9 and spot.strategy is not None
    assert np.array_equal(solve_spot(3, 10.0, "none", target=1e-3).jam, spot.jam, equal_nan=True)  # deterministic
    # the same profile in pokerlab.pushfold's game (removal against each seat's own hand, sampled 3-way pot)
    # and in the real game (joint deals of every seat): the models differ only in card removal
    game = PushFoldGame(Table((10.0,) * 3, 0.5, 1.0), lambda final: final - 10.0, multiway_samples=4000)
    other = compile_public_tree(game)
    moved = VectorStrategy(other, spot.strategy.offsets, spot.strategy.probs)
    assert max(best_response_gains(other, moved).gains) < OTHER_MODEL_GAIN
    real = real_game_check(game, other, moved, deals=20_000, seed=1)
    assert abs(sum(real.values)) < 1e-9
    assert max(np.array(real.gains) - 4 * np.array(real.gain_errors)) < OTHER_MODEL_GAIN
    uniform = VectorStrategy.uniform(other)
    assert max(best_response_gains(other, uniform).gains) > 0.1  # the check can fail


SAMPLE_CPU_S = 0.5
"""The most CPU seconds (as stored in the file) a sampled spot's fresh solve may take in the test."""


def _sampled_rows(charts) -> list[int]:
    """Spots drawn by the file's content hash (every new file gets a new sample, every run of the same file the
    same one) among those solved in at most SAMPLE_CPU_S: one of 3+ seats per ante rule that has them, one
    heads-up with a big-blind ante, one heads-up of another rule."""
    rng = np.random.default_rng(int(charts.header["content_sha256"][:12], 16))
    cheap = charts.cpu_s <= SAMPLE_CPU_S
    heads_up = charts.key[:, 0] == 2
    big_blind_ante = charts.key[:, 2] == list(ANTES).index("bb")
    pools = [cheap & ~heads_up & (charts.key[:, 2] == rule) for rule in range(len(ANTES))]
    pools += [cheap & heads_up & big_blind_ante, cheap & heads_up & ~big_blind_ante]
    return [int(rng.choice(np.flatnonzero(pool))) for pool in pools if pool.any()]


def test_shipped_charts_match_fresh_solves():
    charts = shipped_charts()
    assert charts.header["spots"] == charts.key.shape[0]
    rows = _sampled_rows(charts)
    drawn = {(int(charts.key[r, 0]) > 2, list(ANTES)[int(charts.key[r, 2])]) for r in rows}
    assert {(True, "none"), (True, "10"), (True, "12.5"), (False, "bb")} <= drawn and len(rows) == 5
    for row in rows:
        seats, depth, rule = int(charts.key[row, 0]), float(charts.key[row, 1]), list(ANTES)[int(charts.key[row, 2])]
        chart = full_ring_chart(seats, depth, rule)
        assert chart.exact
        # the solve is deterministic: its stored iteration count reproduces it, whatever cap it was built with
        fresh = solve_spot(seats, depth, rule, max_iterations=int(charts.iterations[row]))
        assert fresh.iterations == charts.iterations[row], (seats, depth, rule)
        known = ~np.isnan(fresh.jam)
        assert np.array_equal(known, ~np.isnan(chart.jam))
        assert np.max(np.abs(fresh.jam[known] - chart.jam[known])) <= 1 / 400 + 1e-9
        called = ~np.isnan(fresh.call)
        assert np.max(np.abs(fresh.call[called] - chart.call[called])) <= 1 / 400 + 1e-9
        assert np.allclose(fresh.gains, chart.gains, rtol=1e-5, atol=1e-9)
        assert np.allclose(fresh.values, chart.values, rtol=1e-5, atol=1e-6)


SHORT_FULL_RING_CAP = 256
"""The iteration cap the 7-10 seat spots below 10 bb were built with (``--max-iterations 256``: their solves cost up
to 800 s CPU each at that cap; docs/benchmarks.md, "Full-ring charts: the short 7-10 seat spots"); the others' is
:data:`MAX_ITERATIONS`."""


def test_every_shipped_spot_is_whole():
    """Every spot of the file: chips conserved, the decisions of its seat count and nothing else, a gain at its
    target or a solve that ran to its build's iteration cap, and no spot the chart model refuses."""
    charts = shipped_charts()
    assert len({tuple(k) for k in charts.key.tolist()}) == charts.key.shape[0]
    for row, (seats_f, depth, rule_index) in enumerate(charts.key):
        seats, rule = int(seats_f), list(ANTES)[int(rule_index)]
        assert check_spot(seats, float(depth), rule) == (seats, float(depth), rule)
        values, gains = charts.values[row], charts.gains[row]
        assert abs(float(values[:seats].sum())) < 1e-4 and np.all(values[seats:] == 0)
        assert np.all(gains[:seats] >= 0) and np.all(gains[seats:] == 0)
        if gains.max() > default_target(seats):
            cap = (HEADS_UP_MAX_ITERATIONS if seats == 2 else SHORT_FULL_RING_CAP if seats >= 7 and depth < 10
                   else MAX_ITERATIONS)
            assert charts.iterations[row] >= cap
        jam = charts.jam[row]
        assert np.all(jam[: seats - 1] <= 200) and np.all(jam[seats - 1:] == 255)  # the big blind never opens
        call = charts.call[row]
        for caller in range(seats):
            for jammer in range(seats):
                has = jammer < caller  # a lone jam from an earlier seat
                assert np.all(call[caller, jammer] <= 200) if has else np.all(call[caller, jammer] == 255)


def _copy_with_header(tmp_path: Path, **changes: str) -> Path:
    with np.load(fullring_charts.CHART_FILE) as stored:
        arrays = {name: stored[name] for name in stored.files}
    header = json.loads(str(arrays.pop("header"))) | changes
    path = tmp_path / "charts.npz"
    np.savez(path, header=np.array(json.dumps(header)), **arrays)
    return path


def test_a_chart_file_of_another_version_is_refused(tmp_path, monkeypatch):
    path = _copy_with_header(tmp_path, code_version="0123456789abcdef")
    with pytest.raises(ChartVersionError, match="rebuild it"):
        read_charts(path)
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    monkeypatch.setattr(fullring_charts, "CHART_FILE", path)
    shipped_charts.cache_clear()
    try:
        result = CliRunner().invoke(app, ["pushfold", "--chart", "full-ring", "--seats", "3", "--depths", "10"])
    finally:
        shipped_charts.cache_clear()
    assert result.exit_code == 2
    assert "rebuild it" in result.output and "Traceback" not in result.output


def test_the_cli_reads_every_ante_rule_and_says_which_depths_are_not_shipped(tmp_path):
    """``--depths 1-40`` lists the shipped depths and names each asked depth without a chart of its own (no chart
    can exist where a stack is all in by posting; the others are not built); ``10%`` and ``bb`` are ante rules."""
    from typer.testing import CliRunner

    from pokerlab.cli.main import app
    from pokerlab.pushfold.fullring_charts import available_depths

    runner = CliRunner()
    for seats, spelled, rule, floor in [(2, "bb", "bb", 2.0), (5, "10%", "10", 1.1), (9, "0", "none", 1.0)]:
        shipped = set(available_depths(seats, rule).tolist())
        csv_path = tmp_path / f"{seats}-{rule}.csv"
        result = runner.invoke(app, ["pushfold", "--chart", "full-ring", "--seats", str(seats), "--ante", spelled,
                                     "--depths", "1-40", "--json", "--csv", str(csv_path)])
        assert result.exit_code == 0, result.output
        answer = json.loads(result.output)
        assert [c["depth_bb"] for c in answer["charts"]] == sorted({a["depth_bb"] for a in answer["asked"]})
        assert {c["ante"] for c in answer["charts"]} == {rule}
        missing = {(a["asked_bb"], a["why"].split(":")[0]) for a in answer["not_shipped"]}
        assert missing == {(float(d), "no chart" if d <= floor else "not built") for d in range(1, 41)
                           if float(d) not in shipped}
        lines = csv_path.read_text().splitlines()
        assert lines[0] == "seat,action,depth_bb,class,probability" and len(lines) > 169
        text = runner.invoke(app, ["pushfold", "--chart", "full-ring", "--seats", str(seats), "--ante", spelled,
                                   "--depths", "1-40"])
        assert text.exit_code == 0 and "not shipped (no chart" in text.output
        assert ("not shipped (not built" in text.output) == any(w == "not built" for _, w in missing)
    refused = runner.invoke(app, ["pushfold", "--chart", "full-ring", "--seats", "3", "--ante", "7%"])
    assert refused.exit_code == 2 and "ante rule must be one of" in refused.output
    assert refused.output.count("\n") == 1
