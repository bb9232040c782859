"""The push/fold game of a table: posting, side pots, chips and money conserved in every terminal, ICM payoffs."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError, InvalidPayoutsError, InvalidStacksError
from pokerlab.games.base import FOLD, TERMINAL
from pokerlab.games.pushfold import JAM, PushFoldGame, Table, pot_winner_sequences, pots, seat_names
from pokerlab.icm import icm
from pokerlab.pushfold.situation import ICMPayoff, build_game, validate_table


def chip_game(stacks, sb=0.5, bb=1.0, ante=0.0, bb_ante=0.0, samples=50):
    table = Table(tuple(float(s) for s in stacks), sb, bb, ante, bb_ante)
    start = np.array(table.stacks)
    return PushFoldGame(table, lambda final: final - start, multiway_samples=samples)


def test_side_pots_by_hand():
    # three all-in for 2, 5 and 10 live chips plus 0.3 of antes: main 6.3 (all), side 6 (two biggest), 5 back
    amounts, eligible, refunds = pots(np.array([2.1, 5.1, 10.1]), np.full(3, 0.1), [0, 1, 2])
    assert amounts == pytest.approx([6.3, 6.0, 5.0])
    assert eligible == [0b111, 0b110, 0b100]
    assert refunds.tolist() == [0, 0, 0]
    # a folded big blind (live 1) against a lone jammer of 0.8: 0.2 goes back to it
    amounts, eligible, refunds = pots(np.array([0.8, 0.0, 1.0]), np.zeros(3), [0])
    assert amounts == pytest.approx([1.6]) and refunds.tolist() == pytest.approx([0, 0, 0.2])


def test_pot_winner_sequences_count():
    # m participants at distinct levels: 2^(m-1) outcomes
    masks = [0b1111, 0b1110, 0b1100, 0b1000]
    assert len(pot_winner_sequences([0, 1, 2, 3], masks)) == 8


def test_posting_rules():
    dead, live = Table((10.0, 0.3, 0.7), 0.5, 1.0, ante=0.1).posts()
    assert dead.tolist() == pytest.approx([0.1, 0.1, 0.1])
    assert live.tolist() == pytest.approx([0.0, 0.2, 0.6])  # both blinds are short: all in by posting
    dead, live = Table((10.0, 10.0, 1.5), 0.5, 1.0, bb_ante=1.0).posts()
    assert dead.tolist() == pytest.approx([0, 0, 0.5]) and live.tolist() == pytest.approx([0, 0.5, 1.0])
    game = chip_game((10.0, 0.3, 0.7), ante=0.1)
    assert game.decision_seats == (0,)
    assert game.public_player(()) == 0 and game.public_player((FOLD,)) == TERMINAL


def test_heads_up_tree_and_walk():
    game = chip_game((10, 10))
    assert game.public_player(()) == 0
    assert game.public_player((FOLD,)) == TERMINAL  # the BB walks
    assert game.public_player((JAM,)) == 1
    assert set(game.terminals) == {(FOLD,), (JAM, FOLD), (JAM, JAM)}
    assert game.terminals[(FOLD,)].utilities[0].tolist() == pytest.approx([-0.5, 0.5])
    assert game.terminals[(JAM, FOLD)].utilities[0].tolist() == pytest.approx([1.0, -1.0])
    assert np.allclose(game.terminals[(JAM, JAM)].utilities, [[10, -10], [-10, 10], [0, 0]])


@pytest.mark.parametrize("stacks,ante,bb_ante", [((10, 7, 3, 12), 0.1, 0.0), ((5, 0.4, 9, 2, 30), 0.0, 1.0),
                                                  ((4, 4, 4, 4, 4, 4), 0.25, 0.0)])
def test_chips_and_money_conserved_in_every_terminal(stacks, ante, bb_ante):
    game = chip_game(stacks, ante=ante, bb_ante=bb_ante)
    total = sum(stacks)
    pay = np.array([50.0, 30.0, 20.0])
    money = ICMPayoff(np.array(stacks, dtype=float), pay, np.zeros(0))
    for state, terminal in game.terminals.items():
        finals = game.final_stacks_of(state)
        assert finals.shape[0] == terminal.utilities.shape[0]
        assert np.allclose(finals.sum(axis=1), total, atol=1e-9)
        assert np.all(finals >= -1e-12)
        assert np.allclose(terminal.utilities.sum(axis=1), 0.0, atol=1e-9)  # chip EV is zero-sum
        for row in finals:
            assert money(row).sum() == pytest.approx(pay.sum(), abs=1e-9)


def test_icm_payoff_busts_and_field():
    stacks = np.array([10.0, 5.0, 5.0])
    payoff = ICMPayoff(stacks, np.array([50.0, 30.0, 20.0]), np.zeros(0))
    # seat 0 busts both others at once: they share 2nd and 3rd (equal stacks before the hand)
    assert payoff(np.array([20.0, 0.0, 0.0])).tolist() == pytest.approx([50, 25, 25])
    # unequal: the bigger stack before the hand finishes higher
    payoff = ICMPayoff(np.array([10.0, 6.0, 4.0]), np.array([50.0, 30.0, 20.0]), np.zeros(0))
    assert payoff(np.array([20.0, 0.0, 0.0])).tolist() == pytest.approx([50, 30, 20])
    # a field: table seats and field players in one ICM
    field = np.array([8.0, 12.0])
    payoff = ICMPayoff(np.array([10.0, 10.0]), np.array([40.0, 30.0, 20.0, 10.0]), field)
    expected = icm([15.0, 5.0, 8.0, 12.0], [40, 30, 20, 10]).equity[:2]
    assert payoff(np.array([15.0, 5.0])).tolist() == pytest.approx(expected.tolist())
    # a bust with a field: last place of the four
    assert payoff(np.array([20.0, 0.0]))[1] == pytest.approx(10.0)


def test_icm_payoff_inside_a_field_equals_the_icm_engine():
    # the fixed-field rule (pokerlab.pushfold.field) against the exact engine on the whole tournament, for
    # outcomes that move chips between seats and bust one
    rng = np.random.default_rng(8)
    stacks = rng.uniform(4.0, 25.0, 6)
    field = rng.uniform(2.0, 40.0, 300)
    pay = np.round(np.geomspace(500.0, 10.0, 45), 2)
    payoff = ICMPayoff(stacks, pay, field)
    assert payoff._field_icm is not None and payoff._field_icm.error <= 1e-9 * pay.sum()
    for bust in (False, False, True):
        final = stacks.copy()
        i, j = rng.choice(6, 2, replace=False)
        moved = final[j] if bust else final[j] * rng.uniform(0.1, 0.9)
        final[i] += moved
        final[j] -= moved
        expected = icm(np.concatenate([final, field]), pay).equity[:6]
        if bust:  # the engine shares the last places among all busted players; the payoff orders them
            expected[j] = 0.0
        assert payoff(final) == pytest.approx(expected, rel=0, abs=1e-9 * pay.sum())


def test_icm_payoff_of_a_table_alone_equals_the_icm_engine():
    # the payoff calls the subset kernel directly for a table without a field: same numbers as the façade
    rng = np.random.default_rng(4)
    stacks = rng.uniform(3.0, 30.0, 9)
    pay = np.array([30.0, 20.0, 14.0, 10.0, 8.0, 6.0, 5.0, 4.0, 3.0])[:6]
    payoff = ICMPayoff(stacks, pay, np.zeros(0))
    for _ in range(5):
        final = rng.permutation(stacks) * rng.uniform(0.5, 1.5, 9)
        assert payoff(final) == pytest.approx(icm(final, pay).equity, rel=1e-12, abs=1e-12)


def test_validation_errors():
    with pytest.raises(InvalidStacksError, match="positive"):
        validate_table([10, 0], (0.5, 1), 0, 0)
    with pytest.raises(InvalidStacksError, match="2 to 10"):
        validate_table([10] * 11, (0.5, 1), 0, 0)
    with pytest.raises(InvalidArgumentError, match="larger than the big blind"):
        validate_table([10, 10], (2, 1), 0, 0)
    with pytest.raises(InvalidArgumentError, match="positive"):
        validate_table([10, 10], (0, 1), 0, 0)
    table = validate_table([10, 10, 10], (0.5, 1), 0, 0)
    with pytest.raises(InvalidPayoutsError, match="more paid places than players"):
        build_game(table, [50, 30, 20, 10])
    with pytest.raises(InvalidArgumentError, match="field only matters"):
        build_game(table, None, [10, 10])


def test_seat_names():
    assert seat_names(2) == ("SB", "BB")
    assert seat_names(3) == ("BTN", "SB", "BB")
    assert seat_names(9) == ("UTG", "UTG+1", "UTG+2", "LJ", "HJ", "CO", "BTN", "SB", "BB")
    assert len(set(seat_names(10))) == 10
