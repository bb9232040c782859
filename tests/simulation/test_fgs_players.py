"""Players who decide by FGS (``fgs@D``, pokerlab.simulation.icm_players) against oracles: every outcome's value
is the public :func:`pokerlab.pushfold.fgs.fgs_equity` (itself tested against brute forces in
tests/pushfold/test_fgs.py) of the stacks after it, the next hand's button and the hand's blinds; a jam and a
call margin are the brute-force comparisons of those values; depth 0 decides as the ICM decider (exact ICM at a
final table) and, heads-up winner take all, as the chip-EV decider; bad names and fields are refused."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.classes import class_index
from pokerlab.cli.main import app
from pokerlab.equity.preflop import preflop_tables
from pokerlab.errors import InvalidArgumentError, InvalidStacksError
from pokerlab.icm.local import build_field, rest_payoffs
from pokerlab.pushfold.fgs import fgs_buffers, fgs_equity, fgs_scratch, icm_money
from pokerlab.simulation import simulate
from pokerlab.simulation.core import deciders, fgs_bundle, model_parts, prepare, pushfold_charts
from pokerlab.simulation.icm_players import (
    DECIDE_ICM,
    FINAL_TABLE_PLAYERS,
    FgsSpot,
    call_margin,
    fgs_outcome_equity,
    jam_margin,
)

PAY = np.array([50.0, 30.0, 20.0, 0.0, 0.0])
BLINDS = (100.0, 200.0)
ANTE = 25.0


def spot_of(aware, button: int, ante: float = ANTE, bb_ante: float = 0.0) -> FgsSpot:
    """The FGS decider's bundle for a hand at :data:`BLINDS` with the button at ``button``."""
    tables = fgs_bundle(aware)._replace(small_blind=BLINDS[0], big_blind=BLINDS[1], ante=ante, bb_ante=bb_ante)
    return FgsSpot(tables, button, fgs_buffers(2, FINAL_TABLE_PLAYERS), fgs_scratch(FINAL_TABLE_PLAYERS),
                   np.zeros(FINAL_TABLE_PLAYERS), np.zeros(1))


def fgs_value_of(after: np.ndarray, before: np.ndarray, hero: int, button: int, depth: int,
                 pay: np.ndarray = PAY, ante: float = ANTE, bb_ante: float = 0.0) -> float:
    """The hero's money when the stacks ``before`` (chips behind at the decision) become ``after``, by the public
    API: busted, his share of the places the hand's busted players take; else ``fgs_equity`` of the players
    left, the places left, the next hand's button (the first seat after ``button`` with chips)."""
    alive = after > 0
    left = int(alive.sum())
    if not alive[hero]:
        busted = int(((before > 0) & ~alive).sum())
        return float(pay[left: left + busted].sum() / busted)
    seats = list(np.flatnonzero(alive))
    n = after.size
    following = next(s for s in ((button + step) % n for step in range(1, n + 1)) if alive[s])
    places = pay[:left]
    places = places[: max(int(np.flatnonzero(places > 0).max()) + 1, 1)]
    result = fgs_equity(after[alive].tolist(), places.tolist(), blinds=BLINDS, ante=ante, bb_ante=bb_ante,
                        button=seats.index(following), depth=depth)
    return result.equity[seats.index(hero)]


def call_share_and_equity(hand: int, weights: np.ndarray) -> tuple[float, float]:
    """(share of the range among the combos ``hand`` leaves, ``hand``'s all-in equity against it, ties half),
    from the preflop class tables."""
    tables = preflop_tables()
    held = tables.class_pairs[hand] @ weights
    equity = ((tables.class_win[hand] + 0.5 * tables.class_tie[hand]) @ weights) / held
    return float(held / tables.class_pairs[hand].sum()), float(equity)


def test_an_outcome_is_worth_its_fgs_equity() -> None:
    """Outcome rows of a five-handed table (players busted, the button's seat busted, the hero busted): the
    decider's value equals fgs_equity of the players left with the button moved on, to 1e-9."""
    aware = deciders(["pushfold", "fgs@1"], PAY, 5)
    before = np.array([2900.0, 2400.0, 1600.0, 2300.0, 4000.0])
    field = build_field(before.copy(), aware.pay)
    members = np.arange(5)
    rows = [before, np.array([0.0, 5300.0, 1600.0, 2300.0, 4000.0]), np.array([2900.0, 2400.0, 0.0, 6900.0, 0.0]),
            np.array([3000.0, 2300.0, 1650.0, 2250.0, 4000.0]), np.array([0.0, 2400.0, 1600.0, 5200.0, 4000.0])]
    for depth in (0, 1, 2):
        for button in (0, 3):
            for row in rows:
                for hero in range(5):
                    got = fgs_outcome_equity(depth, field, members, row, hero, spot_of(aware, button))
                    expected = fgs_value_of(row, before, hero, button, depth)
                    assert got == pytest.approx(expected, abs=1e-9), (depth, button, row, hero)


@pytest.mark.parametrize("depth", [1, 2])
def test_jam_and_call_margins_are_the_brute_force_over_fgs_values(depth: int) -> None:
    """Five-handed, blinds 100/200, ante 25, button seat 0: the under-the-gun jam margin (fold: the pot to the big
    blind; nobody calls; each later player calling first by his chart's range) and the big blind's call margin
    against that jam, each outcome valued by fgs_equity, equal the decider's to 1e-9."""
    charts = pushfold_charts()
    aware = deciders(["pushfold", f"fgs@{depth}"], PAY, 5)
    rule, param = int(aware.rule[1]), float(aware.param[1])
    start = np.array([2900.0, 2400.0, 1600.0, 2300.0, 4000.0])  # BTN, SB, BB, UTG, CO
    contrib = np.array([0.0, BLINDS[0], BLINDS[1], 0.0, 0.0])
    dead = 5 * ANTE
    chips = start - ANTE - contrib
    field = build_field(chips.copy(), aware.pay)
    members = np.arange(5)
    order = np.array([3, 4, 0, 1, 2])
    pot = dead + contrib.sum()
    for hand in ("AA", "KTo", "87s", "72o"):
        h = class_index(hand)
        ranges = np.zeros((10, 169))
        for seat in (4, 0, 1, 2):
            ranges[seat] = charts.call[0, int(np.ceil(min(start[seat], start[3]) / BLINDS[1])) - 1]
        margin = jam_margin(rule, param, aware, field, members, chips, contrib, dead, order, 0, 2, h, ranges,
                            np.empty((0, 0)), np.zeros(5), spot_of(aware, 0))

        def value(after: np.ndarray, hero: int = 3) -> float:
            return fgs_value_of(after, chips, hero, 0, depth)

        fold = chips.copy()
        fold[2] += pot
        reach, jam = 1.0, 0.0
        for seat in (4, 0, 1, 2):
            share, equity = call_share_and_equity(h, ranges[seat])
            mine, theirs = chips[3], chips[seat] + contrib[seat]
            matched = min(mine, theirs)
            win, lose = chips.copy(), chips.copy()
            win[3], win[seat] = mine + matched + pot - contrib[seat], theirs - matched
            lose[3], lose[seat] = mine - matched, theirs + matched + pot - contrib[seat]
            jam += reach * share * (equity * value(win) + (1 - equity) * value(lose))
            reach *= 1 - share
        taken = chips.copy()
        taken[3] += pot
        jam += reach * value(taken)
        assert margin == pytest.approx(jam - value(fold), abs=1e-9), hand

        # the big blind (seat 2) facing the under-the-gun jam
        jammed_chips, jammed_contrib = chips.copy(), contrib.copy()
        jammed_contrib[3], jammed_chips[3] = chips[3], 0.0
        jam_range = charts.jam[0, int(np.ceil(min(start[3], start[4]) / BLINDS[1])) - 1]
        got = call_margin(rule, param, aware, field, members, jammed_chips, jammed_contrib, dead, 2, 3, h,
                          jam_range, np.empty((0, 0)), np.zeros(5), spot_of(aware, 0))
        _, equity = call_share_and_equity(h, jam_range)
        call_pot = dead + jammed_contrib.sum()
        fold = jammed_chips.copy()
        fold[3] += call_pot
        mine, theirs = jammed_chips[2] + jammed_contrib[2], chips[3]
        matched = min(mine, theirs)
        win, lose = jammed_chips.copy(), jammed_chips.copy()
        rest = call_pot - jammed_contrib[2] - jammed_contrib[3]
        win[2], win[3] = mine + matched + rest, theirs - matched
        lose[2], lose[3] = mine - matched, theirs + matched + rest
        expected = (equity * value(win, 2) + (1 - equity) * value(lose, 2)) - value(fold, 2)
        assert got == pytest.approx(expected, abs=1e-9), hand


def test_depth_zero_decides_as_the_icm_decider() -> None:
    """FGS of depth 0 is ICM: on random six-handed spots its jam margins equal the ICM decider's (exact ICM at a
    final table) to 1e-12, and a final table of FGS@0 deciders plays the ICM deciders' tournaments bit for bit."""
    rng = np.random.default_rng(7)
    pay = np.array([50.0, 30.0, 20.0, 0.0, 0.0, 0.0])
    icm_aware = deciders(["pushfold", "icm"], pay, 6)
    fgs_aware = deciders(["pushfold", "fgs@0"], pay, 6)
    members = np.arange(6)
    for _ in range(20):
        start = rng.integers(300, 5000, 6).astype(np.float64)
        contrib = np.array([0.0, BLINDS[0], BLINDS[1], 0.0, 0.0, 0.0])
        chips = start - contrib
        field = build_field(chips.copy(), pay)
        ranges = np.zeros((10, 169))
        ranges[:6] = rng.uniform(0.0, 1.0, (6, 169)) < 0.3
        order = np.array([3, 4, 5, 0, 1, 2])
        for k in range(4):
            hand = int(rng.integers(169))
            by_icm = jam_margin(DECIDE_ICM, 1.0, icm_aware, field, members, chips, contrib, 0.0, order, k, 2, hand,
                                ranges, rest_payoffs(field, members), np.zeros(6))
            by_fgs = jam_margin(int(fgs_aware.rule[1]), 0.0, fgs_aware, field, members, chips, contrib, 0.0, order,
                                k, 2, hand, ranges, np.empty((0, 0)), np.zeros(6), spot_of(fgs_aware, 0, 0.0))
            assert by_fgs == pytest.approx(by_icm, abs=1e-12)
    stacks = [3000, 2000, 1500, 4000, 2500, 2000]
    icm_run = simulate(stacks, pay[:3], play="pushfold:0.5,icm:0.5", tournaments=30, seed=4, workers=0)
    fgs_run = simulate(stacks, pay[:3], play="pushfold:0.5,fgs@0:0.5", tournaments=30, seed=4, workers=0)
    assert np.array_equal(icm_run.places, fgs_run.places) and icm_run.hands == fgs_run.hands


def test_heads_up_winner_take_all_depth_zero_decides_as_chip_ev() -> None:
    """Heads-up winner take all ICM is the chip share: FGS@0 deciders play the chip-EV deciders' tournaments bit
    for bit (at depth 1 the next hand's chip EV under the future charts enters each outcome's value, so FGS@1 is
    not the chip EV of today's stacks: tests/pushfold/test_fgs.py)."""
    chips = simulate([1700, 1300], [1.0], play="chip-ev", tournaments=200, seed=9, workers=0)
    fgs = simulate([1700, 1300], [1.0], play="fgs@0", tournaments=200, seed=9, workers=0)
    assert np.array_equal(chips.places, fgs.places) and chips.hands == fgs.hands


def test_fgs_deciders_conserve_chips_and_money() -> None:
    """A final table of four FGS@1 deciders and chart players with a big-blind ante: no chip error, the pool
    paid in every tournament, the same seed the same tournaments."""
    stacks = [2600, 1800, 3100, 900, 2200, 1400]
    first = simulate(stacks, [60, 40], play="pushfold:0.5,fgs@1:0.5", structure="turbo", tournaments=12, seed=5,
                     workers=0)
    again = simulate(stacks, [60, 40], play="pushfold:0.5,fgs@1:0.5", structure="turbo", tournaments=12, seed=5,
                     workers=0)
    assert first.checks["chip_errors"] == 0
    assert first.equity.sum() == pytest.approx(100.0, abs=1e-9)
    assert np.array_equal(first.places, again.places)


def test_an_outcome_beyond_the_fgs_buffers_is_valued_by_icm() -> None:
    """Ten seats, seven of them all in by their antes in the next hand: more showdown orders than the FGS kernels
    enumerate (the public API refuses the table); the decider values that outcome by ICM where it stands."""
    pay = np.array([40.0, 25.0, 15.0, 10.0, 10.0, 0, 0, 0, 0, 0])
    aware = deciders(["fgs@1"], pay, 10)
    after = np.array([20.0, 15.0, 30.0, 10.0, 25.0, 20.0, 18.0, 5000.0, 4000.0, 3000.0])
    field = build_field(after.copy(), aware.pay)
    with pytest.raises(InvalidStacksError):
        fgs_equity(after.tolist(), pay[:5].tolist(), blinds=BLINDS, ante=ANTE, button=9, depth=1)
    got = fgs_outcome_equity(1, field, np.arange(10), after, 8, spot_of(aware, 9))
    assert got == pytest.approx(icm_money(after, pay)[8], abs=1e-12)


@pytest.mark.parametrize("name, words", [("fgs@5", "depth must be 0 to 2 hands"), ("fgs@x", "depth must be 0 to 2"),
                                         ("fgs@1.5", "depth must be 0 to 2"), ("fgs", "needs its depth")])
def test_bad_depths_are_refused(name: str, words: str) -> None:
    with pytest.raises(InvalidArgumentError, match=words):
        model_parts(name)


def test_fields_beyond_one_final_table_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match=f"at most {FINAL_TABLE_PLAYERS} players"):
        prepare(players=11, payouts=[50, 30, 20], play="pushfold:0.5,fgs@1:0.5")
    with pytest.raises(InvalidArgumentError, match="sits at one table"):
        prepare(players=10, table_size=5, payouts=[50, 30, 20], play="pushfold:0.5,fgs@1:0.5")


@pytest.mark.parametrize("heroes, words", [("fgs@5", "depth must be 0 to 2"), ("fgs@x", "depth must be 0 to 2"),
                                           ("fgs@1", "at most 10 players")])
def test_cli_refuses_bad_fgs_heroes_in_one_line(heroes: str, words: str) -> None:
    stacks = ",".join(["1000"] * (12 if heroes == "fgs@1" else 6))
    result = CliRunner().invoke(app, ["simulate", "--stacks", stacks, "--payouts", "50,30,20", "--play", "pushfold",
                                      "--heroes", heroes, "--tournaments", "4"])
    assert result.exit_code == 2, result.output
    assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output
