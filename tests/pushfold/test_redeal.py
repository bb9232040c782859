"""Importance-sampled 3+ way pots (``PushFoldGame.redealt``): the batched and per-terminal evaluations agree
(multilinear values and a constant payoff equal to the reach: tests/pushfold/test_batched.py, on redealt games
too), the density ratios are right, the sampling error is smaller than the uniform deals' at the same count,
and nine equal stacks converge."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pushfold.reference_valuation import reference_values
from tests.pushfold.test_batched import random_strategy

from pokerlab.errors import ResourceLimitError
from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.pushfold.deals import reference_disjoint
from pokerlab.games.pushfold.kernels import hero_correction, hero_sums, pot_weights
from pokerlab.games.vector import compile_public_tree
from pokerlab.pushfold import pushfold
from pokerlab.pushfold.situation import build_game
from pokerlab.pushfold.vector_solve import multiway_ranges
from pokerlab.solvers.vector_traversal import Traversal

SIX = [12.0, 8.0, 15.0, 10.0, 9.0, 11.0]


def redealt(game: PushFoldGame, seed: int) -> tuple[PushFoldGame, object]:
    tree = compile_public_tree(game)
    other = game.redealt(multiway_ranges(tree, random_strategy(tree, seed)), 0.5)
    return other, compile_public_tree(other)


def test_redealt_batched_values_equal_the_per_terminal_evaluation():
    # (multilinear: tests/pushfold/test_batched.py, on the redealt game too)
    table = Table((9.0, 12.0, 7.0, 10.0), 0.5, 1.0, 0.1)
    base, _, _ = build_game(table, [50.0, 30.0, 20.0], multiway_samples=120, seed=5)
    game, tree = redealt(base, 4)
    assert game.deals().deal_class.shape[0] == len(game.valuation.ranges or {}) > 1  # one row of deals per 3+ way pot
    walk = Traversal(tree)
    a = walk.reach(random_strategy(tree, 1).offsets, random_strategy(tree, 1).probs)[0][walk.terminals]
    for player in range(4):
        batched = game.evaluate_terminals(tree, walk.terminals, player, a)
        reference = reference_values(game, tree, walk.terminals, player, a)
        np.testing.assert_allclose(batched, reference, rtol=0, atol=1e-12 * np.abs(reference).max())


def test_density_ratios_average_one_under_the_proposal():
    # the ratio of a seat's dealt combo is uniform density / proposal density given the board: its mean over
    # the proposal's draws is 1 (4 standard errors), however far the proposal is from uniform
    table = Table((10.0, 10.0, 10.0), 0.5, 1.0)
    base = PushFoldGame(table, lambda final: final - 10.0, multiway_samples=4000)
    tree = compile_public_tree(base)
    ranges = multiway_ranges(tree, random_strategy(tree, 9))
    game = base.redealt(ranges, 0.9)
    ratio = game.deals().deal_ratio
    for r, state in enumerate(sorted(ranges)):
        for q in game.terminals[state].participants:
            values = ratio[r, :, q]
            assert values.mean() == pytest.approx(1.0, abs=4 * values.std() / np.sqrt(values.size))
            assert values.std() > 0.1  # the proposal is far from uniform: the test could fail


def test_known_normaliser_is_the_mean_of_the_ratio_products():
    # a redealt pot's correction divides by the known mean of its deals' density-ratio products (times "the
    # hands can be used together"), reference_disjoint, not by their heavy-tailed sum: check that mean on the
    # deals themselves (4 standard errors), for a spectator's pot (every seat in it) and a hero's (its
    # opponents, whose cards must also avoid the hero's sampled combo)
    table = Table((10.0, 10.0, 10.0, 10.0), 0.5, 1.0)
    base = PushFoldGame(table, lambda final: final - 10.0, multiway_samples=20000)
    tree = compile_public_tree(base)
    game = base.redealt(multiway_ranges(tree, random_strategy(tree, 3)), 0.5)
    deals = game.deals()
    state = max(game.valuation.ranges or {}, key=lambda s: len(game.terminals[s].participants))  # the 4-way pot
    pot = np.array(game.terminals[state].participants)
    r = game.valuation.row_of(state)
    weights = pot_weights(game.valuation.deals_of(state), pot)
    assert weights.std() > 0.3  # far from uniform: the check could fail
    assert weights.mean() == pytest.approx(reference_disjoint(4, 0), abs=4 * weights.std() / np.sqrt(weights.size))
    opponents, hero_class = pot[1:], 100
    masks = deals.deal_mask[r][:, opponents]
    ratio = np.prod(deals.deal_ratio[r][:, opponents], axis=1)
    clash = np.zeros(ratio.size, dtype=bool)
    for a in range(3):
        for b in range(a + 1, 3):
            clash |= (masks[:, a] & masks[:, b]) != 0
    hero = (np.uint64(1) << deals.hero_low[:, hero_class].astype(np.uint64)) | (
        np.uint64(1) << deals.hero_high[:, hero_class].astype(np.uint64))
    avoids_board = deals.hero_key[:, hero_class] != 0
    usable = avoids_board & ~clash & ((masks[:, 0] | masks[:, 1] | masks[:, 2]) & hero == 0)
    values = (ratio * usable)[avoids_board]
    tolerance = 4 * values.std() / np.sqrt(values.size)
    assert values.mean() == pytest.approx(reference_disjoint(3, 2), abs=tolerance)
    assert abs(reference_disjoint(3, 0) - reference_disjoint(3, 2)) > 2 * tolerance  # the test tells them apart


def test_redeal_shrinks_the_error_the_sampling_hides():
    # the same solve with uniform deals only (share 0) and with the redeal: the strategy's gains valued on
    # independent deals (the sampling check) fall several times (measured 8.0e-2 and 0.6-2.2e-2 money)
    kwargs = {"stacks": SIX, "blinds": (0.5, 1.0), "ante": 0.1, "payouts": [50, 30, 20], "target": 1e-3}
    uniform = pushfold(**kwargs, multiway_samples=1000, multiway_proposal_share=0.0)
    importance = pushfold(**kwargs, multiway_samples=1000)
    assert uniform.multiway_check_gain > 3 * importance.multiway_check_gain
    assert importance.game.valuation.stage == "redealt" and uniform.game.valuation.stage == "uniform"
    assert importance.multiway_samples == uniform.multiway_samples == 1000


@pytest.mark.slow
def test_nine_equal_stacks_converge():
    # nine 10 bb stacks, 50/30/20: uniform deals stalled (max gain 5.6e-3 to 1.3e-2 money after 64-256
    # iterations of DCFR); with the redeal it reaches the target (1.11e-3 money) within 64 iterations
    r = pushfold([10.0] * 9, (0.5, 1.0), payouts=[50, 30, 20], target=1e-3, iterations=64)
    assert r.stop_reason == "target" and r.max_gain <= 1e-3 * 100 / 90


def test_solver_loop_equals_the_plain_sums():
    # the solver's branch-free correction (hero_correction: sorted thresholds, nine unrolled) against the plain
    # loop over the opponents (hero_sums), for every hero of the largest pots of ten seats (nine opponents: every
    # unrolled threshold is used), redealt, with strategies that are zero on a third of the classes
    table = Table(tuple([10.0] * 10), 0.5, 1.0)
    base = PushFoldGame(table, lambda final: final - 10.0, multiway_samples=400)
    tree = compile_public_tree(base)
    game = base.redealt(multiway_ranges(tree, random_strategy(tree, 2)), 0.5)
    rng = np.random.default_rng(0)
    game.deals()
    states = sorted(game.valuation.ranges or {}, key=lambda s: -len(game.terminals[s].participants))[:4]
    assert len(game.terminals[states[0]].participants) == 10
    for state in states:
        terminal = game.terminals[state]
        for hero in terminal.participants:
            opponents = np.array([q for q in terminal.participants if q != hero], dtype=np.int64)
            sig = rng.random((opponents.size, 169)) * (rng.random((opponents.size, 169)) < 0.97)
            plan = game.valuation.plan(state, hero)
            u = terminal.utilities[:, hero]
            deals = game.valuation.deals_of(state)
            fast = hero_correction(deals, hero, opponents, sig, plan.outcome_by_position, u, plan.centre)
            plain = hero_sums(deals, hero, opponents, sig, plan.outcome_by_position, u, plan.centre)[0]
            assert np.any(plain != 0)
            np.testing.assert_allclose(fast, plain, rtol=0, atol=1e-12 * np.abs(plain).max())


def test_a_stalled_solve_is_redealt_on_twice_the_deals():
    # a target out of reach: MORE_DEALS_AFTER iterations after the redeal the solve goes on with twice the deals
    # (the result says how many valued it); a solve that reaches its target keeps the deals asked for
    stalled = pushfold([10.0, 9.0, 11.0, 8.0], (0.5, 1.0), target=1e-12, iterations=64, multiway_samples=300)
    assert stalled.stop_reason == "iterations" and stalled.multiway_samples == 600
    assert stalled.game.deals().deal_class.shape[1] == 600
    quick = pushfold([10.0, 9.0, 11.0, 8.0], (0.5, 1.0), target=0.05, multiway_samples=300)
    assert quick.stop_reason == "target" and quick.multiway_samples == 300


def test_deals_that_cannot_fit_are_refused_before_any_work():
    with pytest.raises(ResourceLimitError, match="--multiway-samples 1,000,000,000 at 10 seats"):
        pushfold([10.0] * 10, (0.5, 1.0), multiway_samples=10**9)


def test_released_deals_are_drawn_again_the_same():
    # a solve frees a game's deals before the next set is drawn (one set in memory at a time); valuing the game
    # again draws the same deals from the seed, so its values do not change
    table = Table((9.0, 12.0, 7.0, 10.0), 0.5, 1.0, 0.1)
    base, _, _ = build_game(table, [50.0, 30.0, 20.0], multiway_samples=200, seed=3)
    game, tree = redealt(base, 6)
    walk = Traversal(tree)
    strategy = random_strategy(tree, 2)
    reach = walk.reach(strategy.offsets, strategy.probs)[0][walk.terminals]
    before = [game.evaluate_terminals(tree, walk.terminals, p, reach) for p in range(4)]
    game.release_deals()
    assert game.valuation._deals is None and not game.valuation._caches
    after = [game.evaluate_terminals(tree, walk.terminals, p, reach) for p in range(4)]
    for x, y in zip(before, after, strict=True):
        np.testing.assert_array_equal(x, y)
    assert np.ptp(before[0]) > 0


def test_proposal_draws_are_the_inverse_cdf_of_a_binary_search():
    """The redeal's combos (drawn from a guide table into the CDF, then stepped up) against a plain binary search
    of the CDF on the same uniforms (the kernel's stream, replayed here), redrawn while a combo touches the
    board; proposals with long runs of zero mass and single heavy combos (the guide's hard cases)."""
    from pokerlab.cards.classes import COMBO_MASKS, COMBOS
    from pokerlab.games.pushfold.deals import _draw_rows, combo_classes, random_boards
    from pokerlab.stats.rng import substream_start, uniform

    classes, _, _, sizes = combo_classes()
    rng = np.random.default_rng(5)
    rows, seats, count = 3, 4, 300
    proposals = rng.uniform(0.0, 1.0, (rows, seats, 169)) * (rng.uniform(0.0, 1.0, (rows, seats, 169)) < 0.2)
    proposals[0, 0] = 0.0
    proposals[0, 0, [0, 168]] = [1.0, 1e-9]  # one class holds nearly all the mass, the other a sliver
    inside = np.ones((rows, seats), dtype=np.bool_)
    boards, board_pairs, board_masks = random_boards(count, rng)
    start = np.uint64(12345)
    combos = _draw_rows(start, proposals, inside, classes.astype(np.int64), sizes.astype(np.float64), boards,
                        board_pairs, board_masks, COMBOS.astype(np.int64), COMBO_MASKS)[0]
    for r in range(rows):
        state = np.array([substream_start(start, r)], dtype=np.uint64)
        for q in range(seats):
            density = proposals[r, q, classes] / sizes[classes]
            cdf = np.cumsum(density / density.sum())
            for s in range(count):
                while True:
                    x = min(int(np.searchsorted(cdf, uniform(state) * cdf[-1], side="right")), 1325)
                    if not COMBO_MASKS[x] & board_masks[s]:
                        break
                assert combos[r, s, q] == x
