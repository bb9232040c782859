"""The shipped heads-up preflop equity table against the exact equity engine, its symmetries and class sums."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.classes import COMBOS
from pokerlab.cards.encoding import format_cards
from pokerlab.cards.tables import load_tables
from pokerlab.equity import equity
from pokerlab.equity.preflop import BOARDS, count_matchups, matchup_orbits, preflop_tables


@pytest.fixture(scope="module")
def tables():
    return preflop_tables()


def test_orbits():
    key, representatives = matchup_orbits()
    assert representatives.size == 47_008
    assert np.count_nonzero(key >= 0) == 2 * 812_175  # ordered pairs of combos sharing no card


def test_entries_against_the_equity_engine(tables):
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 6:
        a, b = rng.integers(0, 1326, size=2)
        if not tables.disjoint[a, b]:
            continue
        result = equity([format_cards(COMBOS[a]), format_cards(COMBOS[b])], method="exact")
        assert result.showdowns == BOARDS
        assert (int(tables.wins[a, b]), int(tables.ties[a, b])) == (result.wins[0], result.ties[0])
        assert tables.equity[a, b] == pytest.approx(result.equity[0], abs=1e-15)
        checked += 1


def test_symmetries_and_class_sums(tables):
    d = tables.disjoint.astype(bool)
    assert np.array_equal(tables.wins * d, (BOARDS - tables.wins - tables.ties).T * d)
    assert np.array_equal(tables.ties, tables.ties.T)
    assert np.all(tables.wins[~d] == 0) and np.all(tables.equity[~d] == 0)
    assert np.allclose(tables.class_pairs.sum(axis=1), 1225)
    assert tables.class_size.sum() == 1326
    # the class tables are sums over combos: probabilities of a combo pair add to 1 over win, tie and loss
    lose = tables.class_pairs - tables.class_win - tables.class_tie
    assert np.all(lose > -1e-12)
    # AA against KK with card removal: 6 x 6 combo pairs, each AA combo meets all 6 KK combos
    aa, kk = 0, 14  # grid cells (0, 0) and (1, 1)
    assert tables.class_pairs[aa, kk] == pytest.approx(6)
    engine = equity(["AA", "KK"], method="exact")  # the engine weighs the joint combos the same way
    assert (tables.class_win[aa, kk] + 0.5 * tables.class_tie[aa, kk]) / 6 == pytest.approx(engine.equity[0],
                                                                                            abs=1e-12)


@pytest.mark.slow
def test_kernel_counts_two_matchups():
    # the build kernel itself (every board once, about 30 s on 2 cores) against the engine
    pairs = np.array([[1325, 1080], [100, 900]], dtype=np.int64)  # AsAh-KhKd, 5h4d-QhJs
    wins, ties = count_matchups(pairs, load_tables())
    for (a, b), w, t in zip(pairs, wins, ties, strict=True):
        result = equity([format_cards(COMBOS[a]), format_cards(COMBOS[b])], method="exact")
        assert (w, t) == (result.wins[0], result.ties[0])
