"""The outcome tables of the sampled 3+ way pots (games/pushfold/kernels.py) against a direct count: per deal,
the pot winners by sorting the pot's hands with the hero placed after ``k`` opponents, keyed by the table
rules' :func:`~pokerlab.games.pushfold.rules.outcome_key`."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.pushfold.kernels import position_outcomes, sample_outcomes
from pokerlab.games.pushfold.rules import outcome_key

DEALS = 150


def _winners(order: list[int], eligible: np.ndarray) -> list[int]:
    return [next(q for q in order if int(mask) >> q & 1) for mask in eligible]


@pytest.mark.parametrize("stacks", [(12.0, 8.0, 15.0, 10.0, 9.0, 11.0), (0.8, 6.0, 3.0, 9.0, 2.0)])
def test_outcome_tables_equal_a_direct_count(stacks):
    """Uneven stacks (side pots; the second table has a seat all in by posting): every 3+ way terminal, every
    hero in its pot, every position of the hero among the opponents."""
    seats = len(stacks)
    game = PushFoldGame(Table(stacks, 0.5, 1.0), lambda final: final - np.array(stacks), multiway_samples=DEALS)
    side_pots = changes = 0
    for state, terminal in game.terminals.items():
        inside = list(terminal.participants)
        if len(inside) < 3:
            continue
        side_pots += len(terminal.pot_eligible) > 1
        keys = game.valuation.deals_of(state).deal_key
        outcome_index = {int(key): i for i, key in enumerate(terminal.keys)}
        spectator = sample_outcomes(keys, np.array(inside, dtype=np.int64), terminal.pot_eligible, terminal.keys,
                                    seats)
        for s in range(DEALS):
            best_first = sorted(inside, key=lambda q: -keys[s, q])
            assert spectator[s] == outcome_index[outcome_key(_winners(best_first, terminal.pot_eligible), seats)]
        for hero in inside:
            opponents = [q for q in inside if q != hero]
            table = position_outcomes(keys, hero, np.array(opponents, dtype=np.int64), terminal.pot_eligible,
                                      terminal.keys, seats)
            assert table.shape == (DEALS, len(inside))
            for s in range(DEALS):
                ranked = sorted(opponents, key=lambda q: -keys[s, q])
                for k in range(len(inside)):
                    order = ranked[:k] + [hero] + ranked[k:]
                    expected = outcome_index[outcome_key(_winners(order, terminal.pot_eligible), seats)]
                    assert table[s, k] == expected, (state, hero, s, k)
                changes += int(np.count_nonzero(np.diff(table[s])))
    assert side_pots > 0 and changes > 0  # the count is not vacuous: side pots, and outcomes that move with k


def test_hero_picks_are_one_uniform_combo_of_each_class():
    """Each deal's pick of class ``c`` is a combo of class ``c`` (the numbering of cards/classes.py), the picks
    are the numpy expression ``order[start + floor(u * size)]`` of the same uniforms, and every combo of a class
    is picked about equally often (pairs: 6 combos, suited 4, offsuit 12; 4 standard errors)."""
    from pokerlab.cards.classes import CLASS_OF_COMBO, NUMBER_OF_CLASSES
    from pokerlab.games.pushfold.deals import _hero_picks, combo_classes

    count = 6_000
    picks = _hero_picks(count, np.random.default_rng(11))
    assert picks.shape == (count, NUMBER_OF_CLASSES)
    assert np.array_equal(CLASS_OF_COMBO[picks], np.broadcast_to(np.arange(NUMBER_OF_CLASSES), picks.shape))
    _, order, starts, sizes = combo_classes()
    uniforms = np.random.default_rng(11).random((count, NUMBER_OF_CLASSES))
    assert np.array_equal(picks, order[starts[None, :] + np.floor(uniforms * sizes[None, :]).astype(np.int64)])
    for c in (0, 1, 13):  # AA, AKs, AKo
        seen = np.bincount(picks[:, c], minlength=1326)[np.equal(CLASS_OF_COMBO, c)]
        p = 1.0 / sizes[c]
        assert np.all(np.abs(seen - count * p) < 4 * np.sqrt(count * p * (1 - p)))
