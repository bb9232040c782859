"""The ICM chart model (games/pushfold/joint_icm.py), the ICM chart spots (pushfold/fullring_icm.py) and the
shipped ICM charts (pushfold/fullring_icm_charts.py).

Oracles: published exact range-vs-range showdown counts (AA vs KK, QQ+ vs TT+ over every non-conflicting pair of
combos and every board, /work/shared/oracles/equity.json; copied here) for a spectator's value; money conserved
(the seats' ICM values sum to the pool); the chart model of chip EV (bit for bit through the new path); the ICM
engine (pokerlab.icm) for the payoff; a fresh solve of a sampled shipped spot.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards.classes import CLASS_NAMES, NUMBER_OF_CLASSES
from pokerlab.errors import InvalidArgumentError, InvalidGameError
from pokerlab.games.compiler import KIND_TERMINAL
from pokerlab.games.pushfold import Table
from pokerlab.games.pushfold.joint import JointPotGame
from pokerlab.games.pushfold.joint_icm import IcmJointPotGame
from pokerlab.games.pushfold.pot_tables import build_pot_tables
from pokerlab.games.vector import compile_public_tree
from pokerlab.icm import icm
from pokerlab.pushfold import fullring_icm_charts
from pokerlab.pushfold.fullring_charts import ChartVersionError
from pokerlab.pushfold.fullring_icm import FINAL_TABLE_PAYOUTS, STAGES, icm_payoff, money_target, solve_icm_spot
from pokerlab.pushfold.fullring_icm_charts import icm_ring_table, read_icm_charts, shipped_icm_charts
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy, vector_node_values

FOLD = -1
JAM = 1
RANGE_SHOWDOWNS = {  # first range, second range: (showdowns, first wins, second wins, splits), exact
    (("AA",), ("KK",)): (61642944, 50371344, 10986372, 285228),
    (("QQ", "KK", "AA"), ("TT", "JJ", "QQ", "KK", "AA")): (770536800, 484876704, 252971328, 32688768),
}
BOARDS = 1712304  # C(48, 5)


@pytest.fixture(scope="module")
def small_pots():
    return build_pot_tables(triple_deals=20_000, bank_deals=256, seed=3)


def _terminals(tree) -> np.ndarray:
    return np.flatnonzero(tree.tree.kind == KIND_TERMINAL)


def _random_reaches(tree, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    terminals = _terminals(tree)
    reaches = rng.random((terminals.size, tree.num_players, NUMBER_OF_CLASSES))
    return reaches * (rng.random(reaches.shape) < 0.6)


def _random_strategy(tree, seed: int) -> VectorStrategy:
    strategy = VectorStrategy.uniform(tree)
    rng = np.random.default_rng(seed)
    for node in tree.decision_nodes():
        block = strategy.block(int(node))
        jam = rng.random(block.shape[0]) * (rng.random(block.shape[0]) < 0.4)
        block[:, 1] = jam
        block[:, 0] = 1.0 - jam
    return strategy


def test_chip_ev_through_the_icm_path_is_the_chart_model_bit_for_bit(small_pots):
    """Four seats (two-, three- and four-way pots): every terminal's values for every seat, and a few solver
    iterations, are the same floats in both games."""
    stacks = np.full(4, 10.0)
    table = Table((10.0,) * 4, 0.5, 1.0)
    old = JointPotGame(table, lambda final: final - stacks, pots=small_pots)
    new = IcmJointPotGame(table, lambda final: final - stacks, pots=small_pots)
    old_tree, new_tree = compile_public_tree(old), compile_public_tree(new)
    reaches = _random_reaches(old_tree, 1)
    terminals = _terminals(old_tree)
    for player in range(4):
        assert np.array_equal(old.evaluate_terminals(old_tree, terminals, player, reaches),
                              new.evaluate_terminals(new_tree, terminals, player, reaches))
    assert not new.spectators([new_tree.states[int(t)] for t in terminals]).watched.any()
    solvers = [VectorSolver(tree, "dcfr") for tree in (old_tree, new_tree)]
    for solver in solvers:
        solver.iterate(4)
    assert np.array_equal(solvers[0].average_strategy().probs, solvers[1].average_strategy().probs)


def _spectator_payoff(stacks: np.ndarray, payouts: tuple[float, ...]):
    """ICM, plus for the button a term that depends on who wins the blinds' pot when it folds (0.01 times the
    small blind's stack when the big blind is busted): a spectator's payoff that changes with the winner."""
    base = icm_payoff(stacks, payouts)

    def payoff(final: np.ndarray) -> np.ndarray:
        out = base(final)
        if final[0] > 0 and final[2] == 0:
            out[0] += 0.01 * final[1]
        return out

    return payoff


@pytest.mark.parametrize("ranges", list(RANGE_SHOWDOWNS))
def test_a_spectator_of_a_two_way_pot_against_exact_range_counts(small_pots, ranges):
    """The button folds, the small blind jams with ``ranges[0]``, the big blind calls with ``ranges[1]``: the
    button's value is the reach of the pot times its payoff per outcome weighted by the exact counts."""
    stacks = np.full(3, 10.0)
    game = IcmJointPotGame(Table((10.0,) * 3, 0.5, 1.0), _spectator_payoff(stacks, (50.0, 30.0, 20.0)),
                           pots=small_pots)
    state = (FOLD, JAM, JAM)
    u = game.terminals[state].utilities[:, 0]
    assert u[0] != u[1] != u[2]  # the winner and a split all matter to the button
    weights = game.class_weights
    reaches = [weights * 0.3, np.zeros(NUMBER_OF_CLASSES), np.zeros(NUMBER_OF_CLASSES)]
    for seat, names in ((1, ranges[0]), (2, ranges[1])):
        reaches[seat][[CLASS_NAMES.index(n) for n in names]] = weights[[CLASS_NAMES.index(n) for n in names]]
    showdowns, first, second, split = RANGE_SHOWDOWNS[ranges]
    reach = showdowns / BOARDS / (1326 * 1225)  # the non-conflicting combo pairs, each dealt with this chance
    expected = reach * (u[0] * first + u[1] * second + u[2] * split) / showdowns
    value = game.evaluate(state, 0, reaches)
    assert np.allclose(value, expected, rtol=1e-12, atol=0)
    tree = compile_public_tree(game)
    terminals = _terminals(tree)
    at = [tree.states[int(t)] for t in terminals].index(state)
    stacked = np.zeros((terminals.size, 3, NUMBER_OF_CLASSES))
    stacked[at] = reaches
    assert np.allclose(game.evaluate_terminals(tree, terminals, 0, stacked)[at], expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("seats", [3, 5])
def test_icm_values_sum_to_the_pool(small_pots, seats):
    """Every seat's value (its ICM equity before the hand plus the change) of a random profile: the pool, to
    1e-9, with two-way pots watched by the other seats, three-way and larger pots."""
    stacks = np.full(seats, 10.0)
    equity = icm_payoff(stacks, FINAL_TABLE_PAYOUTS[seats - 1])
    before = equity(stacks)
    game = IcmJointPotGame(Table((10.0,) * seats, 0.5, 1.0), lambda final: equity(final) - before, pots=small_pots)
    tree = compile_public_tree(game)
    assert game.spectators([tree.states[int(t)] for t in _terminals(tree)]).watched.any()
    strategy = _random_strategy(tree, seats)
    values = [before[p] + float(vector_node_values(tree, strategy, p)[0] @ tree.weights[p]) for p in range(seats)]
    assert abs(sum(values) - 100.0) < 1e-9


def test_the_payoff_is_icm():
    stacks = np.full(5, 10.0)
    pay = icm_payoff(stacks, FINAL_TABLE_PAYOUTS[5])
    final = np.array([25.0, 0.0, 7.5, 0.0, 17.5])
    alive = final > 0
    expected = np.zeros(5)
    expected[alive] = icm(final[alive], np.array(FINAL_TABLE_PAYOUTS[5][:3])).equity
    expected[~alive] = np.mean(FINAL_TABLE_PAYOUTS[5][3:])  # two busted in the same hand share 4th and 5th
    assert np.allclose(pay(final), expected, rtol=0, atol=1e-12)


def test_a_loser_paid_by_who_wins_a_three_way_pot_is_refused(small_pots):
    """Stacks 10/10/15: a busted short stack is paid 3rd alone or shares 2nd-3rd depending on which seat wins."""
    stacks = np.array([10.0, 10.0, 15.0])
    pay = icm_payoff(stacks, (50.0, 30.0, 20.0))
    game = IcmJointPotGame(Table((10.0, 10.0, 15.0), 0.5, 1.0), pay, pots=small_pots)
    with pytest.raises(InvalidGameError, match="whichever other seat wins"):
        compile_public_tree(game).game.plans([(JAM, JAM, JAM)])


def test_a_solved_spot_is_at_its_target_with_its_values_summing_to_the_pool():
    spot = solve_icm_spot(3, 15.0, "bubble")
    assert spot.max_gain <= money_target(3, 15.0)
    assert abs(sum(spot.values) - 100.0) < 1e-9
    assert np.isnan(spot.jam[2]).all() and not np.isnan(spot.jam[:2]).any()


# -- the shipped file ---------------------------------------------------------------------------------------------

SAMPLE_CPU_S = 2.0


def test_a_sampled_shipped_spot_matches_a_fresh_solve():
    charts = shipped_icm_charts()
    assert charts.header["spots"] == charts.key.shape[0]
    rng = np.random.default_rng(int(charts.header["content_sha256"][:12], 16))
    row = int(rng.choice(np.flatnonzero(charts.cpu_s <= SAMPLE_CPU_S)))
    seats, depth, stage = int(charts.key[row, 0]), float(charts.key[row, 1]), STAGES[int(charts.key[row, 3])]
    fresh = solve_icm_spot(seats, depth, stage, max_iterations=int(charts.iterations[row]))
    chart = icm_ring_table(seats, stage, [depth]).table.charts[0]
    assert chart.exact and fresh.iterations == charts.iterations[row]
    known = ~np.isnan(fresh.jam)
    assert np.array_equal(known, ~np.isnan(chart.jam))
    assert np.max(np.abs(fresh.jam[known] - chart.jam[known])) <= 1 / 400 + 1e-9
    called = ~np.isnan(fresh.call)
    assert np.max(np.abs(fresh.call[called] - chart.call[called])) <= 1 / 400 + 1e-9
    assert np.allclose(fresh.gains, chart.gains, rtol=1e-5, atol=1e-9)
    assert np.allclose(fresh.values, chart.values, rtol=1e-6, atol=1e-5)


def test_every_shipped_spot_conserves_money():
    charts = shipped_icm_charts()
    for row, (seats, _, ante, stage) in enumerate(charts.key):
        n = int(seats)
        assert ante == 0 and stage in (0, 1)
        assert abs(float(charts.values[row, :n].sum()) - 100.0) < 1e-3 and np.all(charts.values[row, n:] == 0)
        assert np.all(charts.gains[row, :n] >= 0)


def test_an_icm_chart_file_of_another_version_is_refused(tmp_path, monkeypatch):
    with np.load(fullring_icm_charts.ICM_CHART_FILE) as stored:
        arrays = {name: stored[name] for name in stored.files}
    header = json.loads(str(arrays.pop("header"))) | {"code_version": "0123456789abcdef"}
    path = Path(tmp_path) / "icm.npz"
    np.savez(path, header=np.array(json.dumps(header)), **arrays)
    with pytest.raises(ChartVersionError, match="rebuild it"):
        read_icm_charts(path)
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    monkeypatch.setattr(fullring_icm_charts, "ICM_CHART_FILE", path)
    shipped_icm_charts.cache_clear()
    try:
        result = CliRunner().invoke(app, ["pushfold", "--chart", "full-ring", "--icm", "final", "--seats", "3",
                                          "--depths", "10"])
    finally:
        shipped_icm_charts.cache_clear()
    assert result.exit_code == 2 and "rebuild it" in result.output and "Traceback" not in result.output


def test_no_icm_chart_for_heads_up():
    with pytest.raises(InvalidArgumentError, match="3 to 10 seats"):
        icm_ring_table(2, "final", [10])


def test_the_cli_prints_and_exports_the_icm_charts(tmp_path):
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    runner = CliRunner()
    csv_path = tmp_path / "icm.csv"
    result = runner.invoke(app, ["pushfold", "--chart", "full-ring", "--icm", "bubble", "--seats", "3", "--depths",
                                 "10,15", "--json", "--csv", str(csv_path), "--png", str(tmp_path)])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["stage"] == "bubble" and body["payouts"] == [65.0, 35.0]
    assert body["model"]["code_version"] and [c["depth_bb"] for c in body["charts"]] == [10.0, 15.0]
    assert abs(sum(body["charts"][0]["values_money"]) - 100.0) < 1e-3
    chart = icm_ring_table(3, "bubble", [10]).table.charts[0]
    assert body["charts"][0]["jam"]["BTN"]["K5o"] == round(float(chart.jam[0, CLASS_NAMES.index("K5o")]), 4)
    assert csv_path.read_text().startswith("seat,action,depth_bb,class,probability")
    assert (tmp_path / "full-ring-3-icm-bubble-jam-BTN.png").is_file()
    text = runner.invoke(app, ["pushfold", "--chart", "full-ring", "--icm", "final", "--seats", "6", "--depths", "10"])
    assert text.exit_code == 0 and "ICM final table, payouts 32/22/16/12/10/8" in text.output


@pytest.mark.parametrize(("args", "words"), [
    (["--chart", "full-ring", "--icm", "final", "--seats", "2"], "3 to 10 seats"),
    (["--chart", "full-ring", "--icm", "semi", "--seats", "5"], "'final'"),
    (["--chart", "full-ring", "--icm", "final", "--seats", "5", "--ante", "10%"], "no ante"),
    (["--chart", "heads-up", "--icm", "final"], "with --chart full-ring"),
])
def test_bad_icm_chart_input_is_one_line_and_exit_2(args, words):
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    result = CliRunner().invoke(app, ["pushfold", *args])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
