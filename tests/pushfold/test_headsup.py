"""The plain-numpy heads-up route against the compiled one: the same stacks after every outcome (the table rules),
the same ICM payoffs, the same class tables, the same solve (iterations, charts, EVs, gains, values and every JSON
field), and the route taken only where it applies; the LP and combo oracles of test_solver.py run on this route."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pokerlab.equity.headsup_table import class_tables
from pokerlab.equity.preflop import preflop_tables
from pokerlab.games.base import FOLD
from pokerlab.games.pushfold import JAM, MAX_SEATS, PushFoldGame, Table
from pokerlab.pushfold import headsup, pushfold, solve
from pokerlab.pushfold.fgs import MAX_FGS_DEPTH
from pokerlab.pushfold.real_game import REAL_GAME_DEALS
from pokerlab.pushfold.request import MAX_SEATS as REQUEST_MAX_SEATS
from pokerlab.pushfold.request import checked_table
from pokerlab.pushfold.situation import ICMPayoff
from pokerlab.solvers.core import algorithm_config

# (stacks, blinds, ante, bb_ante): equal and unequal stacks, antes, a big-blind ante, a short big blind
TABLES = [((10.0, 10.0), (0.5, 1.0), 0.0, 0.0), ((8.0, 15.0), (0.5, 1.0), 0.1, 0.0),
          ((25.0, 6.5), (0.4, 1.0), 0.0, 1.0), ((3.0, 1.6), (0.5, 1.0), 0.125, 0.0),
          ((1.2, 40.0), (0.5, 1.0), 0.0, 0.0)]


def test_constants_equal_the_modules_they_mirror():
    dcfr = algorithm_config("dcfr")
    assert (dcfr.alpha, dcfr.beta, dcfr.gamma) == (headsup.ALPHA, headsup.BETA, headsup.GAMMA)
    assert dcfr.discount and not dcfr.floor and dcfr.name == headsup.ALGORITHM
    assert REQUEST_MAX_SEATS == MAX_SEATS and solve.REAL_GAME_DEALS == REAL_GAME_DEALS
    assert solve.MAX_FGS_DEPTH == MAX_FGS_DEPTH


def test_class_tables_equal_the_games():
    game_tables = preflop_tables()
    mine = class_tables()
    for ours, theirs in ((mine.class_pairs, game_tables.class_pairs), (mine.class_win, game_tables.class_win),
                         (mine.class_tie, game_tables.class_tie)):
        assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("stacks, blinds, ante, bb_ante", TABLES)
def test_outcomes_and_payoffs_follow_the_table_rules(stacks, blinds, ante, bb_ante):
    request = checked_table(stacks, blinds, ante, bb_ante)
    assert headsup.answers(request, None, None, bounties=False, fgs_depth=0, algorithm="dcfr")
    game = PushFoldGame(Table(*request), lambda final: final)
    mine = headsup.outcomes(request)
    for state, rows in (((FOLD,), mine.fold), ((JAM, FOLD), mine.steal), ((JAM, JAM), mine.showdown)):
        assert np.allclose(rows, game.final_stacks_of(state), rtol=0, atol=1e-12), state
        assert np.allclose(rows.sum(axis=1), sum(stacks), rtol=0, atol=1e-12)  # chips conserved
    payouts, field = np.array([50.0, 30.0, 20.0]), np.array([9.0, 4.0])
    icm = ICMPayoff(np.array(stacks), payouts, field)
    mine_icm = headsup.utilities(request, payouts, field)
    for rows, utilities in zip(mine, mine_icm, strict=True):
        for final, utility in zip(rows, utilities, strict=True):
            assert np.allclose(utility, icm(final), rtol=0, atol=1e-12)


def test_the_route_applies_only_where_it_answers():
    plain = checked_table([10, 10], [0.5, 1.0], 0.0, 0.0)
    assert headsup.answers(plain, None, None, bounties=False, fgs_depth=0, algorithm="dcfr")
    assert not headsup.answers(plain, None, None, bounties=True, fgs_depth=0, algorithm="dcfr")
    assert not headsup.answers(plain, None, None, bounties=False, fgs_depth=0, algorithm="cfr+")
    assert not headsup.answers(plain, np.array([1.0]), np.ones(9), bounties=False, fgs_depth=0, algorithm="dcfr")
    assert headsup.answers(plain, np.array([1.0]), np.ones(8), bounties=False, fgs_depth=0, algorithm="dcfr")
    # a seat all in by posting has no decision: a short big blind (or both seats short) is answered here, a
    # short small blind facing a big blind that decides is the compiled route's (its tree differs)
    for stacks, answered in (([10, 1], True), ([1, 1], True), ([0.5, 0.5], True), ([0.4, 3], False)):
        assert headsup.answers(checked_table(stacks, [0.5, 1.0], 0.0, 0.0), None, None, bounties=False,
                               fgs_depth=0, algorithm="dcfr") == answered, stacks
    assert headsup.deciders(checked_table([10, 1], [0.5, 1.0], 0.0, 0.0)) == (True, False)
    assert headsup.deciders(checked_table([0.4, 3], [0.5, 1.0], 0.0, 0.0)) == (False, True)
    assert not headsup.answers(checked_table([10, 10, 10], [0.5, 1.0], 0.0, 0.0), None, None, bounties=False,
                               fgs_depth=0, algorithm="dcfr")
    assert not solve.needs_kernels([10, 10]) and not solve.needs_kernels([10, 10], payouts=[70, 30], field=[5])
    assert solve.needs_kernels([10, 10], bounty=1.0) and solve.needs_kernels([10, 10, 10])
    assert not solve.needs_kernels([10, -1])  # refused before any work


def _both_routes(monkeypatch, stacks, **options):
    fast = pushfold(stacks, **options)
    with monkeypatch.context() as patch:
        patch.setattr(headsup, "answers", lambda *args, **kwargs: False)
        compiled = pushfold(stacks, **options)
    return fast, compiled


@pytest.mark.parametrize("stacks, options", [
    ([10.0, 10.0], {}),
    ([8.0, 15.0], {"ante": 0.1, "target": 1e-6}),
    ([25.0, 6.5], {"blinds": (0.4, 1.0), "bb_ante": 1.0}),
    ([12.0, 8.0], {"payouts": [70.0, 30.0], "field": [10.0, 6.0]}),
    ([10.0, 10.0], {"target": 1e-12, "iterations": 20}),
    ([1.0, 1.0], {}),  # the big blind all in by posting: the small blind's decision alone
    ([5.0, 0.8], {"payouts": [70.0, 30.0], "field": [3.0]}),
    ([0.4, 0.3], {}),  # both all in by posting: no decision
])
def test_equals_the_compiled_route(monkeypatch, stacks, options):
    fast, compiled = _both_routes(monkeypatch, stacks, **options)
    assert (fast.iterations, fast.stop_reason, fast.model, fast.gain_unit) == (
        compiled.iterations, compiled.stop_reason, compiled.model, compiled.gain_unit)
    assert fast.target == compiled.target and fast.multiway_samples == compiled.multiway_samples
    assert list(fast.call) == list(compiled.call)
    for ours, theirs in ((fast.jam, compiled.jam), (fast.ev_jam, compiled.ev_jam), (fast.ev_fold, compiled.ev_fold),
                         *((fast.call[key], compiled.call[key]) for key in compiled.call)):
        assert np.allclose(ours, theirs, rtol=0, atol=1e-9, equal_nan=True)
    assert np.allclose(fast.gains, compiled.gains, rtol=0, atol=1e-12)
    assert np.allclose(fast.values, compiled.values, rtol=0, atol=1e-12)
    assert fast.value_errors == compiled.value_errors == (0.0, 0.0)
    ours, theirs = fast.to_dict(), compiled.to_dict()
    assert ours.keys() == theirs.keys()
    for key in ours.keys() - {"elapsed_s", "max_gain", "value_sum", "seats", "strategies"}:
        assert ours[key] == theirs[key], key
    for seat, other in zip(ours["seats"], theirs["seats"], strict=True):
        assert seat.keys() == other.keys()
        assert seat["call"] == other["call"] and seat["jam"] == other["jam"]
    assert [(s["history"], s["seat"], s["action"]) for s in ours["strategies"]] == [
        (s["history"], s["seat"], s["action"]) for s in theirs["strategies"]]
    # the strategy in vector form, built on request, is the same profile of the same game
    assert fast.game.spec() == compiled.game.spec()
    assert np.allclose(fast.strategy.probs, compiled.strategy.probs, rtol=0, atol=1e-9)


def test_answers_without_loading_numba():
    script = ("import sys; from pokerlab.pushfold import pushfold; r = pushfold([10, 10], target=1e-3); "
              "r.to_dict(); from pokerlab.pushfold.charts import heads_up_chart; heads_up_chart([0.5, 1, 2]); "
              "print('numba' in sys.modules, 'scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
