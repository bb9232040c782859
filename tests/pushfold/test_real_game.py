"""The real-game check (joint deals of the whole table) against exact values: money conserved at 3, 4 and 6 seats,
heads-up values and gains equal to the exact game's (the solver's heads-up game is the real one), a planted
deviation's gain recovered, and what a result reports (value per seat, a gain over target said plainly)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab.cards.classes import class_index
from pokerlab.games.pushfold import JAM
from pokerlab.pushfold import pushfold
from pokerlab.pushfold.real_game import RealGameCheck, real_game_check
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains


@pytest.mark.parametrize("stacks", [(12, 8, 10), (9, 7, 11, 13), (10, 14, 6, 9, 12, 8)])
def test_seat_values_sum_to_the_pool(stacks):
    result = pushfold(list(stacks), (0.5, 1.0), payouts=[50, 30, 20], iterations=4, multiway_samples=200,
                      real_game_deals=2_000, check_sampling=True)
    real = result.real_game
    assert real is not None and real.pool == pytest.approx(100.0, abs=1e-12)
    assert sum(result.values) == pytest.approx(100.0, abs=1e-9)
    assert all(e > 0 for e in result.value_errors)
    # the solver's model (removal against each seat's own hand only) is what the real game corrects
    assert result.to_dict()["value_sum"] == pytest.approx(100.0, abs=1e-9)


def test_chip_ev_values_sum_to_zero():
    result = pushfold([12, 8, 10], (0.5, 1.0), iterations=4, multiway_samples=200, real_game_deals=2_000)
    assert sum(result.values) == pytest.approx(0.0, abs=1e-9)


@pytest.fixture(scope="module")
def heads_up():
    return pushfold([10.0, 10.0], (0.5, 1.0))


def test_heads_up_default_target_is_1e_5(heads_up):
    assert heads_up.target == 1e-5 and heads_up.max_gain <= 1e-5
    # the chart is pure except at a few indifference points
    jam = heads_up.jam[0]
    assert np.sum((jam > 0.01) & (jam < 0.99)) <= 3
    assert heads_up.jam[0, class_index("T7o")] < 0.05  # jammed 34% at the former default of 1e-3


def test_heads_up_real_game_agrees_with_the_exact_game(heads_up):
    """Heads-up the class tables are exact card removal: the joint-deal estimates must agree within 4 standard
    errors for the values (exact, summing to 0 chip EV); the cross-fitted gains are a lower bound in expectation
    (a deviation chosen on other deals: near-indifferent classes chosen by noise lose), so they lie below the
    exact gains plus 4 standard errors."""
    check = real_game_check(heads_up.game, heads_up.tree, heads_up.strategy, deals=40_000, seed=3)
    assert sum(heads_up.values) == pytest.approx(0.0, abs=1e-12)
    for exact, estimate, error in zip(heads_up.values, check.values, check.value_errors, strict=True):
        assert abs(estimate - exact) < 4 * error + 1e-12
    for exact, estimate, error in zip(heads_up.gains, check.gains, check.gain_errors, strict=True):
        assert estimate < exact + 4 * error


def test_the_two_gain_estimates_bracket_the_exact_gain(heads_up):
    """Known truth (heads-up the exact game), a profile off equilibrium at many classes (every call range
    widened by 20 points) and several seeds: the cross-fitted gain is at most the exact gain and the in-sample gain
    at least it, each within 4 of the cross-fit's standard errors; and with 16x the deals the bracket narrows."""
    tree = heads_up.tree
    strategy = VectorStrategy(tree, heads_up.strategy.offsets, heads_up.strategy.probs.copy())
    block = strategy.block(strategy.node_of((1,)))
    block[:, 1] = np.clip(block[:, 1] + 0.2, 0.0, 1.0)
    block[:, 0] = 1.0 - block[:, 1]
    exact = best_response_gains(tree, strategy).gains[1]
    widths = []
    for deals in (5_000, 80_000):
        for seed in (1, 2, 3):
            check = real_game_check(heads_up.game, tree, strategy, deals=deals, seed=seed)
            error = check.gain_errors[1]
            assert check.gains[1] < exact + 4 * error
            assert check.upper_gains[1] > exact - 4 * error
            widths.append(check.upper_gains[1] - check.gains[1])
    assert np.mean(widths[3:]) < np.mean(widths[:3]) / 2


def test_a_planted_deviation_is_measured(heads_up):
    """The BB folding AA and KK to a jam: its exact best-response gain (heads-up the exact game) is recovered by
    the cross-fitted joint-deal estimate within 4 standard errors, and is said to be over the target."""
    tree = heads_up.tree
    strategy = VectorStrategy(tree, heads_up.strategy.offsets, heads_up.strategy.probs.copy())
    call = strategy.node_of((1,))
    for name in ("AA", "KK"):
        strategy.block(call)[class_index(name)] = (1.0, 0.0)
    exact = best_response_gains(tree, strategy).gains
    assert exact[1] > 0.01
    check = real_game_check(heads_up.game, tree, strategy, deals=40_000, seed=5)
    assert abs(check.gains[1] - exact[1]) < 4 * check.gain_errors[1]
    assert 1 in check.over_target(1e-3)


def test_a_result_reports_values_and_over_target_plainly():
    result = pushfold([12, 8, 10], (0.5, 1.0), payouts=[50, 30, 20], iterations=2, multiway_samples=200,
                      real_game_deals=4_000)
    data = json.loads(json.dumps(result.to_dict()))
    assert [s["value"] for s in data["seats"]] == pytest.approx(list(result.values))
    assert data["real_game"]["deals"] == 4_000
    assert all(s["real_game_gain_stderr"] > 0 for s in data["seats"][:2])
    assert all(s["real_game_gain_in_sample"] is not None for s in data["seats"])
    # two iterations are far from the target: the real game says so, in the result, the JSON and a note
    assert result.over_target and data["real_game"]["over_target"]
    assert any("OVER TARGET" in note for note in result.notes)


def test_over_target_reads_the_measured_gains():
    check = RealGameCheck((1.0, -1.0), (0.1, 0.1), (2e-3, 5e-4), (1e-4, 1e-4), 0.0, 100, 0, (3e-3, 6e-4))
    assert check.over_target(1e-3) == (0,) and check.max_gain == 2e-3


@pytest.mark.parametrize("pure", [False, True])
def test_per_class_sums_equal_a_direct_count(pure):
    """The compiled sums (a showdown's payoff per class read off the hero's rank among the others; the payoffs that
    do not depend on the class summed per deal first) against a direct count: per deal, terminal, seat on the path
    and usable class, the pot winners by sorting the whole table's keys with the class's combo in the seat's
    place. ``pure``: half the classes play one action only, so that many paths hold one or two factors of 0."""
    from pokerlab.cards.classes import CLASS_OF_COMBO, COMBOS
    from pokerlab.cards.tables import load_tables
    from pokerlab.games.pushfold import PushFoldGame, Table
    from pokerlab.games.pushfold.deals import _hero_picks
    from pokerlab.games.pushfold.rules import outcome_key
    from pokerlab.games.vector import compile_public_tree
    from pokerlab.pushfold.real_game import batch_sums, class_keys, deal_hands, terminal_paths

    seats, count = 4, 24
    game = PushFoldGame(Table((9.0, 7.0, 11.0, 13.0), 0.5, 1.0), lambda final: final - np.array([9, 7, 11, 13.0]),
                        multiway_samples=50)
    tree = compile_public_tree(game)
    rng = np.random.default_rng(7)
    probs = np.zeros((tree.num_nodes, 169, 2))
    for node in tree.decision_nodes():  # a mixed profile: every pot is reached with weights that vary by class
        probs[node, :, 1] = rng.uniform(0.1, 0.9, 169)
        if pure:
            probs[node, rng.permutation(169)[:85], 1] = rng.integers(0, 2, 85)
        probs[node, :, 0] = 1.0 - probs[node, :, 1]
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    tables = load_tables()
    classes, keys = deal_hands(decks, priority, tables, CLASS_OF_COMBO)
    picked = class_keys(decks, seats, _hero_picks(count, rng), COMBOS.astype(np.int64), tables)
    paths, hero_nodes = terminal_paths(game, tree)
    values, actions = batch_sums(classes, keys, picked, priority, probs, paths, max(map(len, hero_nodes)))

    def payoff(terminal, row, seat):
        inside = terminal.participants
        if len(inside) == 1:
            return terminal.utilities[0, seat]
        if len(inside) == 2:
            a, b = row[inside[0]] >> 4, row[inside[1]] >> 4
            return terminal.utilities[0 if a > b else 1 if a < b else 2, seat]
        order = sorted(inside, key=lambda q: -row[q])
        winners = [next(q for q in order if mask >> q & 1) for mask in terminal.pot_eligible]
        return terminal.utilities[int(np.searchsorted(terminal.keys, outcome_key(winners, seats))), seat]

    expected_values = np.zeros(seats)
    expected = [np.zeros((len(nodes), 2, 169)) for nodes in hero_nodes]
    node_of = {tree.states[int(n)]: int(n) for n in tree.decision_nodes()}
    for s in range(count):
        for state, terminal in game.terminals.items():
            path = [(game.decision_seats[k], node_of[state[:k]], 1 if a == JAM else 0) for k, a in enumerate(state)]
            factors = [probs[node, classes[s, seat], a] for seat, node, a in path]
            expected_values += np.prod(factors) * np.array([payoff(terminal, keys[s], q) for q in range(seats)])
            for k, (seat, node, a) in enumerate(path):
                others = np.prod(factors[:k] + factors[k + 1:])
                for c in np.flatnonzero(picked[s] >= 0):
                    row = keys[s].copy()
                    row[seat] = picked[s, c] + priority[s, seat]
                    expected[seat][hero_nodes[seat].index(node), a, c] += others * payoff(terminal, row, seat)
    assert values == pytest.approx(expected_values, rel=1e-12, abs=1e-12)
    for seat in range(seats):
        np.testing.assert_allclose(actions[seat, :len(hero_nodes[seat])], expected[seat], rtol=1e-12, atol=1e-12)
