"""Players who decide by a tournament-equity model (pokerlab.simulation.icm_players) against oracles: the
heads-up chip-EV Nash charts (a chip-EV decider is a best response to the other side's chart) and a brute-force
ICM comparison of every outcome of a three-handed jam (exact ICM, pokerlab.icm.icm)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.classes import class_index, class_of_cards, preflop_order
from pokerlab.cards.tables import load_tables
from pokerlab.equity.preflop import preflop_tables
from pokerlab.errors import InvalidArgumentError
from pokerlab.icm import icm
from pokerlab.icm.alternatives import discounted_harville, malmuth_weitzman, power_icm
from pokerlab.icm.local import _power_sums, build_field, rest_payoffs
from pokerlab.icm.payouts import power_law
from pokerlab.simulation import kernels, prepare, simulate
from pokerlab.simulation.core import deciders, pushfold_charts
from pokerlab.simulation.icm_players import DECIDE_CHIPS, call_margin, jam_margin


@pytest.mark.parametrize("depth", [4, 10, 20])
def test_chip_ev_decider_is_a_best_response_to_the_nash_chart(depth: int) -> None:
    """Heads-up at ``depth`` bb (blinds 50/100): the small blind deciding by chip EV against the big blind's
    Nash call chart jams the chart's pure jams and folds its pure folds, and the big blind deciding by chip EV
    against the Nash jam chart calls as the chart calls (mixed classes, and classes within 0.01 bb of
    indifference, the solver's tolerance, are skipped)."""
    charts = pushfold_charts()
    aware = deciders(["pushfold", "chip-ev"], np.array([1.0, 0.0]), 2)
    field = build_field(np.ones(2), np.zeros(2))
    chips = np.array([depth * 100.0 - 100.0, depth * 100.0 - 50.0])  # seat 0 big blind, seat 1 small blind
    contrib = np.array([100.0, 50.0])
    members = np.arange(2)
    ranges = np.zeros((10, 169))
    ranges[0] = charts.call[0, depth - 1]
    checked = 0
    for h in range(169):
        margin = jam_margin(DECIDE_CHIPS, 1.0, aware, field, members, chips, contrib, 0.0, np.array([1, 0]), 0, 0, h,
                            ranges, np.empty((0, 0)), np.zeros(2))
        chart = charts.jam[0, depth - 1, h]
        if abs(margin) > 1.0 and (chart < 0.01 or chart > 0.99):
            assert (margin > 0) == (chart > 0.99), (h, margin, chart)
            checked += 1
        jammed = np.array([0.0, depth * 100.0 - 50.0 + 50.0])
        call = call_margin(DECIDE_CHIPS, 1.0, aware, field, members, np.array([depth * 100.0 - 100.0, 0.0]),
                           np.array([100.0, jammed[1]]), 0.0, 0, 1, h, charts.jam[0, depth - 1],
                           np.empty((0, 0)), np.zeros(2))
        chart = charts.call[0, depth - 1, h]
        if abs(call) > 1.0 and (chart < 0.01 or chart > 0.99):
            assert (call > 0) == (chart > 0.99), (h, call, chart)
            checked += 1
    assert checked > 250


ORACLES = {  # model name -> exact equity of the players still in (all stacks > 0), every one by brute force
    "icm": lambda s, pay: icm(s, pay).equity,
    "power-icm@0.6": lambda s, pay: power_icm(s, pay, 0.6).equity,
    "harville@0.5": lambda s, pay: discounted_harville(s, pay, 0.5).equity,
    "malmuth-weitzman": lambda s, pay: malmuth_weitzman(s, pay).equity,
}


@pytest.mark.parametrize("model", list(ORACLES))
def test_decider_matches_its_model_on_every_outcome_three_handed(model: str) -> None:
    """Three left, 50/30/20: the button's jam margin by each decider (ICM and power ICM by local ICM on the
    powered stacks; discounted Harville and Malmuth-Weitzman by their exact recursions) equals the model's exact
    value (pokerlab.icm) of every outcome (fold: the pot to the big blind; nobody calls; the small blind calls
    first; the big blind calls, a player knocked out taking third) weighted by the callers' charts, computed
    here from the preflop tables."""
    charts = pushfold_charts()
    pay = np.array([50.0, 30.0, 20.0])
    aware = deciders(["pushfold", model], pay, 3)
    rule, param = int(aware.rule[1]), float(aware.param[1])
    start = np.array([1500.0, 2600.0, 900.0])  # button (hero), small blind, big blind; blinds 50/100
    contrib = np.array([0.0, 50.0, 100.0])
    chips = start - contrib
    field = build_field(chips.copy() ** aware.exponents[aware.summary[1]], aware.pay)
    members = np.arange(3)
    payoff = rest_payoffs(field, members)
    tables = preflop_tables()
    for hand in ("AA", "A5s", "KTo", "87s", "Q3o", "72o"):
        h = class_index(hand)
        ranges = np.zeros((10, 169))
        # callers by their charts at the depth the simulator gives them: min(own, hero's) start stack in bb
        for seat in (1, 2):
            ranges[seat] = charts.call[0, int(np.ceil(min(start[seat], start[0]) / 100)) - 1]
        margin = jam_margin(rule, param, aware, field, members, chips, contrib, 0.0, np.array([0, 1, 2]), 0, 2, h,
                            ranges, payoff, np.zeros(3))

        def value(stacks: np.ndarray) -> float:
            if stacks[0] <= 0:
                return 20.0
            alive = stacks > 0
            return float(ORACLES[model](stacks[alive], pay[: int(alive.sum())])[0])

        pot = contrib.sum()
        fold = value(chips + np.array([0.0, 0.0, pot]))
        reach, jam = 1.0, 0.0
        for seat in (1, 2):
            weights = ranges[seat]
            held = tables.class_pairs[h] @ weights
            share = held / tables.class_pairs[h].sum()
            equity = ((tables.class_win[h] + 0.5 * tables.class_tie[h]) @ weights) / held
            mine, theirs = chips[0], chips[seat] + contrib[seat]
            matched = min(mine, theirs)
            rest = pot - contrib[seat]
            win = chips.copy()
            win[0], win[seat] = mine + matched + rest, theirs - matched
            lose = chips.copy()
            lose[0], lose[seat] = mine - matched, theirs + matched + rest
            jam += reach * share * (equity * value(win) + (1 - equity) * value(lose))
            reach *= 1 - share
        jam += reach * value(chips + np.array([pot, 0.0, 0.0]))
        assert margin == pytest.approx(jam - fold, abs=1e-9)


def test_each_decider_reads_the_summary_at_his_power() -> None:
    """ICM, Harville, Malmuth-Weitzman and FGS deciders read the field at power 1, power-ICM deciders at their
    alpha: one summary per distinct power (two at most), chart players and chip-EV deciders read none."""
    models = ["pushfold", "icm", "power-icm@0.8", "harville@0.7", "malmuth-weitzman", "fgs@1", "chip-ev"]
    aware = deciders(models, np.array([60.0, 40.0]), 9)
    assert aware.summaries == 2 and list(aware.exponents) == [0.8, 1.0]
    assert list(aware.summary[1:6]) == [1, 0, 1, 1, 1]
    for only, power in (["icm"], 1.0), (["power-icm@0.6", "chip-ev"], 0.6), (["pushfold", "power-icm@1.5"], 1.5):
        single = deciders(only, np.array([60.0, 40.0]), 9)
        assert single.summaries == 1 and single.exponents[0] == power and not single.summary.any()
    assert deciders(["pushfold", "chip-ev"], np.array([1.0]), 9).summaries == 0
    with pytest.raises(InvalidArgumentError, match="2 powers at most"):
        deciders(["icm", "power-icm@0.8", "power-icm@0.6"], np.array([1.0]), 9)


def test_two_summaries_stay_in_step_with_the_stacks() -> None:
    """A 30-player field of chart players, ICM deciders and power-ICM deciders at 0.8, played hand by hand: the
    summary at power 1 holds every player's chips and the one at 0.8 his chips ** 0.8 after every hand (a
    bust: 0), through the rebuilds as the field shrinks."""
    t = prepare(players=30, payouts=[500, 300, 200], play="pushfold:0.5,icm:0.25,power-icm@0.8:0.25")
    assert t.aware.summaries == 2
    run = kernels.new_run(t.field, t.snapshots)
    places = np.zeros(30, dtype=np.int64)
    checks = np.zeros(4, dtype=np.int64)
    snaps, info = np.zeros((0, 30), dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    summary = kernels.start_tournament(t.field, t.schedule, t.aware, run, kernels.tournament_start(5, 0), places,
                                       checks)
    tables = load_tables()
    hands = 0
    while not run.clock[kernels.FINISHED]:
        summary, played = kernels.play_rounds(t.field, t.schedule, t.charts, t.ring, t.aware, t.snapshots, tables,
                                              run, summary, places, snaps, info, checks, 7)
        hands += played
        if run.clock[kernels.FINISHED]:
            break
        chips = run.stack.astype(np.float64)
        for kept, power in (summary.first, 0.8), (summary.second, 1.0):
            np.testing.assert_allclose(kept.stacks, chips**power, rtol=1e-14, atol=0.0)
            # the power sums at the summary's nodes: those of its stacks (each hand's updates, none missed)
            sums = _power_sums(kept.stacks, kept.scale, kept.nodes)
            np.testing.assert_allclose(kept.power, sums, rtol=0.0, atol=1e-9 * 30)
    assert hands > 100 and checks[1] == 0


def test_model_players_conserve_chips_and_money() -> None:
    """A field of 60: half charts, half ICM deciders (a local-ICM summary kept in step with every hand, rebuilt
    as the field shrinks): no chip error, every tournament pays the pool."""
    result = simulate(players=60, payouts="power:paid=9", play="pushfold:0.5,icm:0.5", tournaments=3, seed=3,
                      workers=0)
    assert result.checks["chip_errors"] == 0
    assert result.equity @ result.tournament.group_size == pytest.approx(result.tournament.payouts.sum())


@pytest.mark.parametrize("model", ["icm", "power-icm@0.8"])
def test_full_table_jam_in_a_big_field_matches_exact_icm_of_every_outcome(model: str) -> None:
    """Nine seats of a 400-player field of ICM and power-ICM deciders (the rest of the field by local ICM's
    expansions, every place paid its own amount): the first player in, eight to act each calling a fixed range,
    gets, from the field summary his chart reads, the jam margin that exact ICM (pokerlab.icm.icm, on the
    powered stacks for power ICM) of all 18 outcomes gives, weighted as here by the callers' shares and the
    hero's equity, within 2e-4 of a fair share (local ICM's stated error) for every hand class tried."""
    rng = np.random.default_rng(4)
    n = 400
    stacks = np.round(rng.uniform(1500, 6000, n))
    pay = power_law(60, 1000.0)
    models = ["icm", "power-icm@0.8"]
    aware = deciders(models, pay, n)
    chart = models.index(model)
    rule, param = int(aware.rule[chart]), float(aware.param[chart])
    members = np.arange(100, 109, dtype=np.int64)
    contrib = np.zeros(9)
    contrib[1], contrib[2] = 50.0, 100.0  # button seat 0, blinds seats 1 and 2, antes 12 each
    chips = stacks[members] - contrib - 12.0
    behind = stacks.copy()
    behind[members] = chips
    field = build_field(behind ** aware.exponents[aware.summary[chart]], aware.pay)
    payoff = rest_payoffs(field, members)
    order = np.array([3, 4, 5, 6, 7, 8, 0, 1, 2])
    ranges = np.zeros((10, 169))
    ranges[:, :30] = 1.0
    tables = preflop_tables()
    dead = 9 * 12.0
    pot = dead + contrib.sum()
    hero = order[0]
    fair = pay.sum() / n

    def value(row: np.ndarray) -> float:
        s = behind.copy()
        s[members] = row
        return float(icm(s ** param, pay).equity[members[hero]])

    for hand in ("AA", "A5s", "KTo", "72o"):
        h = class_index(hand)
        margin = jam_margin(rule, param, aware, field, members, chips, contrib, dead, order, 0, 2, h, ranges, payoff,
                            np.zeros(9))
        fold_row = chips.copy()
        fold_row[2] += pot
        reach, jam = 1.0, 0.0
        for seat in order[1:]:
            weights = ranges[seat]
            held = tables.class_pairs[h] @ weights
            share = held / tables.class_pairs[h].sum()
            equity = ((tables.class_win[h] + 0.5 * tables.class_tie[h]) @ weights) / held
            mine, theirs = chips[hero] + contrib[hero], chips[seat] + contrib[seat]
            matched = min(mine, theirs)
            rest = pot - contrib[hero] - contrib[seat]
            win, lose = chips.copy(), chips.copy()
            win[hero], win[seat] = mine + matched + rest, theirs - matched
            lose[hero], lose[seat] = mine - matched, theirs + matched + rest
            jam += reach * share * (equity * value(win) + (1 - equity) * value(lose))
            reach *= 1 - share
        alone = chips.copy()
        alone[hero] += pot
        jam += reach * value(alone)
        assert abs(margin - (jam - value(fold_row))) / fair < 2e-4, hand


JUNK = (0, 21, 4, 25, 2, 31)  # 2c 7d, 3c 8d, 2h 9s: the three opponents' cards (72o, 83o, 92o: outside their ranges)


@pytest.mark.parametrize("hero_model", ["icm", "power-icm@0.5"])
def test_in_the_hand_each_decider_reads_the_summary_of_his_power(hero_model: str) -> None:
    """A 16-player field of chart players, ICM deciders and power-ICM deciders at 0.5 (two summaries); at a
    four-handed table the hero (first to act, blinds 50/100, no ante) is dealt every hand class, the three others
    junk outside their call ranges (the top 25 classes). The tournament's compiled hand jams exactly when the jam
    margin by exact ICM (pokerlab.icm.icm over all 16 players, the stacks at the hero's power) is positive, for
    every class whose margin is beyond local ICM's error; and the test tells the summaries apart: for some
    classes the margin with the rest of the field at the other power has the other sign."""
    rng = np.random.default_rng(16)  # stacks where 28 (ICM) and 1 (power ICM) classes change sign between powers
    n = 16
    stacks = np.round(rng.uniform(800, 7000, n)).astype(np.int64)
    pay = power_law(4, 1000.0)
    models = ["pushfold", "icm", "power-icm@0.5"]
    aware = deciders(models, pay, n)
    assert aware.summaries == 2
    power = 1.0 if hero_model == "icm" else 0.5
    seats = np.array([5, 9, 12, 2], dtype=np.int64)  # button, small blind, big blind, the hero (first to act)
    model = np.zeros(n, dtype=np.int64)
    model[[0, 1]] = 1  # ICM and power-ICM deciders elsewhere in the field
    model[[3, 4]] = 2
    model[seats[3]] = models.index(hero_model)
    order, _ = preflop_order()
    call = np.zeros(169)
    call[order[:25]] = 1.0
    charts = kernels.Charts(np.zeros((3, 60, 169)), np.broadcast_to(call, (3, 60, 169)).copy())
    tables = preflop_tables()
    evaluator = load_tables()
    contrib = np.array([0.0, 50.0, 100.0, 0.0])
    behind = stacks.astype(np.float64)
    behind[seats] -= contrib
    chips = behind[seats]
    pot = contrib.sum()
    fair = pay.sum() / n

    def value(row: np.ndarray, rest_power: float) -> float:
        """The hero's exact ICM equity, the table's stacks ``row`` at his power, the rest's at ``rest_power``."""
        full = behind.copy()
        full[seats] = row
        if full[seats[3]] <= 0:
            return 0.0  # out 16th: unpaid
        powered = full**rest_power
        powered[seats] = full[seats] ** power
        alive = np.flatnonzero(full > 0)
        equity = icm(powered[alive], pay[: alive.size]).equity
        return float(equity[int(np.flatnonzero(alive == seats[3])[0])])

    fold = chips.copy()
    fold[2] += pot
    alone = chips.copy()
    alone[3] += pot
    outcomes = []  # per caller: (won, lost) stacks
    for j in (0, 1, 2):
        mine, theirs = chips[3], chips[j] + contrib[j]
        matched = min(mine, theirs)
        won, lost = chips.copy(), chips.copy()
        won[3], won[j] = mine + matched + pot - contrib[j], theirs - matched
        lost[3], lost[j] = mine - matched, theirs + matched + pot - contrib[j]
        outcomes.append((won, lost))
    values = {rest: (value(fold, rest), value(alone, rest), [(value(w, rest), value(x, rest)) for w, x in outcomes])
              for rest in (power, 1.5 - power)}

    def margin(h: int, rest_power: float) -> float:
        fold_value, alone_value, called = values[rest_power]
        held = tables.class_pairs[h] @ call
        share = held / tables.class_pairs[h].sum()
        equity = ((tables.class_win[h] + 0.5 * tables.class_tie[h]) @ call) / held
        reach, jam = 1.0, 0.0
        for won, lost in called:
            jam += reach * share * (equity * won + (1 - equity) * lost)
            reach *= 1 - share
        return jam + reach * alone_value - fold_value

    decided = told_apart = 0
    for h in range(169):
        first, second = next((a, b) for a in range(52) for b in range(a) if a not in JUNK and b not in JUNK
                             and class_of_cards(a, b) == h)
        given = np.zeros(25, dtype=np.int64)
        given[:6] = JUNK
        given[6:8] = first, second
        given[20:] = [c for c in range(51, -1, -1) if c not in (*JUNK, first, second)][:5]
        stack = stacks.copy()
        kernels.chart_hand(seats, 4, 0, stack, model, 50, 100, 0, False, 3, charts, evaluator,
                           kernels._scratch(np.uint64(1)), given, aware, kernels.build_summaries(stacks, aware))
        jammed = stack[seats[3]] != stacks[seats[3]]
        right, wrong = margin(h, power), margin(h, 1.5 - power)
        if abs(right) > 1e-6 * fair:
            assert jammed == (right > 0), (h, right)
            decided += 1
            told_apart += abs(wrong) > 1e-6 * fair and (wrong > 0) != (right > 0)
    assert decided > 160 and told_apart >= 1, (decided, told_apart)
