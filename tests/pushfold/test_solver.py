"""Push/fold solutions against independent oracles: the heads-up LP, known heads-up bands, an independent best
response on combos, ICM with a winner-takes-all payout (= chip EV) and a huge field (-> chip EV)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from pokerlab.cards.classes import CLASS_OF_COMBO
from pokerlab.equity.preflop import BOARDS, preflop_tables
from pokerlab.pushfold import pushfold

STACK = 10.0


@pytest.fixture(scope="module")
def heads_up():
    return pushfold([STACK, STACK], (0.5, 1.0), target=1e-5)


def lp_heads_up(stack: float):
    """Heads-up chip-EV push/fold as a linear program on the class tables: maximise over the SB's jam
    probabilities x the SB's EV against a best-responding BB (who calls a jam with class B iff that lowers the
    SB's EV). Returns (SB value in bb, x, BB call probabilities y from the dual)."""
    t = preflop_tables()
    size = t.class_size
    # joint deal probability of (A, B) and the SB's showdown EV when called: 2 S eq - S, minus the 1 bb it
    # wins when the BB folds
    joint = size[:, None] * t.class_pairs / (1326.0 * 1225.0)
    equity_sum = size[:, None] * (t.class_win + 0.5 * t.class_tie) / (1326.0 * 1225.0)
    m = 2 * stack * equity_sum - (stack + 1.0) * joint
    p = size / 1326.0
    n = 169
    # variables: x (169) in [0, 1], z (169) <= 0; maximise 1.5 p.x + sum z  s.t.  z_B - sum_A m_AB x_A <= 0
    c = -np.concatenate([1.5 * p, np.ones(n)])
    a_ub = np.hstack([-m.T, np.eye(n)])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), bounds=[(0, 1)] * n + [(None, 0)] * n, method="highs")
    assert res.status == 0
    value = -0.5 + (-res.fun)
    y = -res.ineqlin.marginals  # the BB's call probabilities are the duals of the z constraints
    return value, res.x[:n], y


def test_matches_linear_program(heads_up):
    value, x, y = lp_heads_up(STACK)
    from pokerlab.solvers.vector_strategy import best_response_gains

    gains = best_response_gains(heads_up.tree, heads_up.strategy)
    assert gains.values[0] == pytest.approx(value, abs=2e-5)
    assert np.all((y > -1e-9) & (y < 1 + 1e-9))
    jam, call = heads_up.jam[0], heads_up.call[(1, 0)]
    assert heads_up.percent(jam) == pytest.approx(heads_up.percent(x), abs=0.2)
    assert heads_up.percent(call) == pytest.approx(heads_up.percent(y), abs=0.2)
    # every class the LP plays purely is played the same way (an equilibrium mixes at most a hand or two)
    pure_x = (x < 1e-6) | (x > 1 - 1e-6)
    pure_y = (y < 1e-6) | (y > 1 - 1e-6)
    assert np.sum(np.abs(jam - x)[pure_x] > 0.02) <= 1
    assert np.sum(np.abs(call - y)[pure_y] > 0.02) <= 1


def test_known_heads_up_bands(heads_up):
    # HRC / SnapShove: at 10 bb without ante the SB jams about 58-60% of combos, the BB calls about 37-40%
    jam_pct = heads_up.percent(heads_up.jam[0])
    call_pct = heads_up.percent(heads_up.call[(1, 0)])
    assert 58.0 <= jam_pct <= 60.0, jam_pct  # ours: 58.3%
    assert 37.0 <= call_pct <= 40.0, call_pct  # ours: 37.3%
    assert heads_up.max_gain <= 1e-5 and heads_up.stop_reason == "target"


def test_gains_equal_an_independent_best_response_on_combos(heads_up):
    t = preflop_tables()
    classes = CLASS_OF_COMBO
    x = heads_up.jam[0][classes]  # per combo
    y = heads_up.call[(1, 0)][classes]
    eq = (t.wins + 0.5 * t.ties) / BOARDS  # combo vs combo, 0 when they share a card
    d = t.disjoint
    # SB combo a: fold -0.5; jam: against each of the 1,225 BB combos, +1 if it folds, 2 S eq - S if it calls
    jam_ev = (d @ (1 - y) + (2 * STACK * eq - STACK * d) @ y) / 1225.0
    sb_value = np.mean((1 - x) * -0.5 + x * jam_ev)
    sb_best = np.mean(np.maximum(-0.5, jam_ev))
    # BB combo b facing a jam (SB combos weighted by x): fold -1, call S - 2 S eq(a, b)
    facing = (d @ x) / 1225.0
    call_ev = ((STACK * d - 2 * STACK * eq) * x[:, None]).sum(axis=0) / 1225.0
    walk = (d @ (1 - x)) / 1225.0 * 0.5
    bb_value = np.mean(walk + (1 - y) * -facing + y * call_ev)
    bb_best = np.mean(walk + np.maximum(-facing, call_ev))
    assert heads_up.gains[0] == pytest.approx(sb_best - sb_value, abs=1e-12)
    assert heads_up.gains[1] == pytest.approx(bb_best - bb_value, abs=1e-12)
    assert sb_value + bb_value == pytest.approx(0.0, abs=1e-12)


def test_icm_winner_takes_all_equals_chip_ev():
    stacks = [8.0, 12.0, 10.0]
    chip = pushfold(stacks, (0.5, 1.0), iterations=64, multiway_samples=200)
    wta = pushfold(stacks, (0.5, 1.0), payouts=[1.0], iterations=64, multiway_samples=200)
    # ICM with one prize is chips / total: an affine map of chip EV with the same scale for every seat
    assert np.allclose(np.nan_to_num(chip.jam), np.nan_to_num(wta.jam), atol=1e-6)
    for key, probs in chip.call.items():
        assert np.allclose(probs, wta.call[key], atol=1e-6)
    assert wta.model == "icm" and wta.gain_unit == "money"
    assert wta.max_gain == pytest.approx(chip.max_gain / 30.0, rel=1e-6)  # 1 bb is 1/30 of the prize


def test_two_seats_in_a_huge_field_approach_chip_ev(heads_up):
    # with a few paid places and a field of F equal stacks, each place's probability is nearly linear in a
    # seat's chips as F grows: the ICM solution tends to chip EV (measured: 20 players 57.1 / 33.8%, 2,000
    # players 58.36 / 37.33% against 58.31 / 37.38% for chip EV)
    def distance(field_size):
        r = pushfold([STACK, STACK], (0.5, 1.0), payouts=[50, 30, 20], field=np.full(field_size, STACK),
                     target=1e-5)
        return max(abs(r.percent(r.jam[0]) - heads_up.percent(heads_up.jam[0])),
                   abs(r.percent(r.call[(1, 0)]) - heads_up.percent(heads_up.call[(1, 0)])))

    near, far = distance(2000), distance(20)
    assert near < 0.2 and far > 1.0


def test_three_seats_gains_small_and_shapes():
    r = pushfold([10.0, 10.0, 10.0], (0.5, 1.0), target=1e-3, multiway_samples=300)
    assert r.max_gain <= 1e-3
    assert r.jam.shape == (3, 169) and set(r.call) == {(1, 0), (2, 0), (2, 1)}
    assert 0 < r.percent(r.jam[0]) < r.percent(r.jam[1])  # the button jams tighter than the small blind
    data = r.to_dict()
    assert [s["seat"] for s in data["seats"]] == ["BTN", "SB", "BB"]
    assert data["seats"][2]["jam"] == {} and set(data["seats"][2]["call"]) == {"BTN", "SB"}
    assert len(data["seats"][0]["jam"]) == 169


@pytest.mark.parametrize("share", [0.0, 0.5])  # uniform deals only; redealt after 16 iterations
def test_sampling_check_equals_the_strategy_valued_in_a_game_built_on_other_deals(share):
    from pokerlab.games.pushfold.deals import draw_proposal_deals, draw_uniform_deals
    from pokerlab.games.pushfold.valuation import MultiwayValuation
    from pokerlab.games.vector import compile_public_tree
    from pokerlab.pushfold.situation import build_game, validate_table
    from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains
    from pokerlab.stats.rng import numpy_generators

    stacks, pay = [9.0, 12.0, 10.0], [60.0, 40.0]
    r = pushfold(stacks, (0.5, 1.0), payouts=pay, iterations=24, multiway_samples=150, seed=7,
                 multiway_proposal_share=share)
    # independent oracle: a game built from scratch on the check's deals (the seed's second stream, or the
    # fourth after a redeal), the strategy's exact gains there; the estimator's constants are shared by design
    # (PushFoldGame.resampled)
    game, _, _ = build_game(validate_table(stacks, (0.5, 1.0), 0.0, 0.0), pay, multiway_samples=150, seed=7)
    solved = r.game.valuation
    if share == 0:
        assert solved.stage == "uniform"
        valuation = MultiwayValuation(game.terminals, game.equity, 3, samples=150, seed=7, centres=solved.centres)
        one = draw_uniform_deals(150, 3, numpy_generators(7, 2)[1])
        valuation._deals = one._replace(**{k: getattr(one, k)[None] for k in (
            "deal_class", "deal_key", "deal_mask", "deal_ratio")})
    else:
        ranges = solved.ranges
        assert ranges is not None and solved.stage == "redealt" and solved.share == share
        states = sorted(ranges)
        proposals = np.empty((len(states), 3, 169))
        inside = np.zeros((len(states), 3), dtype=bool)
        weights = game.class_weights
        for k, state in enumerate(states):
            held = ranges[state] * weights
            proposals[k] = share * held / held.sum(axis=1, keepdims=True) + (1 - share) * weights
            inside[k, list(game.terminals[state].participants)] = True
        # a redealt game: its corrections divide by the ratios' known mean
        valuation = MultiwayValuation(game.terminals, game.equity, 3, samples=150, seed=7, centres=solved.centres,
                                      ranges=ranges, share=share)
        valuation._deals = draw_proposal_deals(150, proposals, inside, numpy_generators(7, 4)[3])
        valuation._row_of = {state: k for k, state in enumerate(states)}
    game = game._staged(valuation)
    tree = compile_public_tree(game)
    expected = best_response_gains(tree, VectorStrategy(tree, r.strategy.offsets, r.strategy.probs)).gains
    assert r.multiway_check_gains == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert r.multiway_check_gains != pytest.approx(r.gains, rel=1e-6)  # other deals, other values
    assert r.to_dict()["multiway_check_gain"] == pytest.approx(max(expected), rel=1e-12)
    assert pushfold(stacks, (0.5, 1.0), iterations=8, check_sampling=False).multiway_check_gain is None
    assert pushfold([10.0, 10.0], (0.5, 1.0), iterations=8).multiway_check_gain is None  # heads-up is exact


def test_ctrl_c_returns_what_it_has():
    calls = []

    def progress(iterations, gain):
        calls.append((iterations, gain))
        if len(calls) == 2:
            raise KeyboardInterrupt

    r = pushfold([10.0, 10.0], (0.5, 1.0), target=1e-9, progress=progress)
    assert r.stop_reason == "interrupted" and r.iterations == calls[-1][0]
    assert r.max_gain == pytest.approx(min(g for _, g in calls))


def test_limits():
    r = pushfold([10.0, 10.0], (0.5, 1.0), target=1e-12, iterations=20)
    assert r.stop_reason == "iterations" and r.iterations == 20
    with pytest.raises(ValueError, match="target"):
        pushfold([10.0, 10.0], target=0)
