"""FGS (pokerlab.pushfold.fgs) against oracles written here: ICM at depth 0, the chip EV of heads-up winner take
all, money conserved, and a three-seat depth-1 brute force of the model's next hand."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from pokerlab.equity.preflop import preflop_tables
from pokerlab.errors import InvalidArgumentError, InvalidStacksError, PokerlabError
from pokerlab.icm import icm
from pokerlab.pushfold import pushfold
from pokerlab.pushfold.fgs import MAX_FGS_DEPTH, fgs_equity, future_charts, icm_money
from pokerlab.pushfold.solve import chart_changes

BOARDS = 1_712_304


def chart_row(effective_bb: float) -> int:
    """The chart a stack of ``effective_bb`` plays: ``(b, b + 1]`` bb plays the ``b + 1`` bb solve (rows 2..30)."""
    return min(max(math.ceil(effective_bb) - 2, 0), 28)


def share(probabilities: np.ndarray) -> float:
    """Share of the 1,326 combos a per-class range holds, counted combo by combo."""
    return float(np.sum(probabilities[preflop_tables().class_of]) / 1326)


@cache
def showdown(jam_row: int | None, call_row: int | None) -> tuple[float, float]:
    """(P(the first hand wins), P(tie)) of the jam range at ``jam_row`` against the call range at ``call_row``
    (None: a random hand), over every pair of combos sharing no card (the combo tables, not the class ones the
    kernel reads)."""
    tables = preflop_tables()
    jam, call = future_charts()
    a = np.ones(1326) if jam_row is None else jam[jam_row][tables.class_of]
    b = np.ones(1326) if call_row is None else call[call_row][tables.class_of]
    pairs = a @ tables.disjoint @ b
    return float(a @ tables.wins @ b / BOARDS / pairs), float(a @ tables.ties @ b / BOARDS / pairs)


def test_depth_zero_is_icm():
    for stacks, payouts in (([3.0, 7.0], [1.0]), ([12, 8, 10], [50, 30, 20]),
                            ([5, 9, 2, 7, 11, 6], [40, 25, 15, 10]), (list(range(1, 11)), [50, 30, 20])):
        got = fgs_equity(stacks, payouts, depth=0).equity
        assert got == pytest.approx(icm(stacks, payouts).equity, abs=1e-12)


def test_the_leaf_icm_is_icm_for_every_number_of_paid_places():
    """The kernel's ICM at the leaves (a closed form up to three paid places, the subset recursion beyond), seats
    already out (0 chips) left out, against :func:`pokerlab.icm.icm` of the seats with chips."""
    rng = np.random.default_rng(5)
    for seats in (2, 3, 6, 9):
        for paid in range(1, seats + 1):
            stacks = rng.uniform(0.2, 30.0, seats)
            stacks[rng.random(seats) < 0.25] = 0.0
            stacks[0] = max(stacks[0], 1.0)  # at least one seat with chips
            payouts = np.sort(rng.uniform(1.0, 50.0, seats))[::-1]
            payouts[paid:] = 0.0
            alive = stacks > 0
            got = icm_money(stacks, payouts)
            if alive.sum() == 1:
                expected = np.where(alive, payouts[0], 0.0)
            else:
                live_paid = payouts[: alive.sum()]
                expected = np.zeros(seats)
                expected[alive] = icm(stacks[alive], live_paid[live_paid > 0]).equity
            assert got == pytest.approx(expected, abs=1e-11), (seats, paid)


def hu_expected_chips(stacks: tuple[float, float], button: int, depth: int) -> float:
    """Seat 0's expected chips after ``depth`` heads-up hands (blinds 0.5/1, the button posting the small blind),
    by the model's rules written out for two players."""
    if depth == 0 or min(stacks) <= 0:
        return stacks[0]
    jam_c, call_c = future_charts()
    sb, bb = button, 1 - button
    effective = min(stacks)
    nxt = 1 - button

    def after(sb_change: float) -> float:
        s = list(stacks)
        s[sb] += sb_change
        s[bb] -= sb_change
        return hu_expected_chips((s[0], s[1]), nxt, depth - 1)

    def all_in(p: float, win: float, tie: float, matched: float) -> float:
        return p * (win * after(matched) + (1 - win - tie) * after(-matched) + tie * after(0.0))

    if stacks[sb] <= 0.5:  # the small blind is all in by posting: two random hands, no decision
        return all_in(1.0, *showdown(None, None), min(stacks[sb], 1.0))
    jam = share(jam_c[chart_row(effective)])
    if stacks[bb] <= 1.0 or stacks[sb] <= 1.0:  # the big blind is in without acting: a random hand
        return (1 - jam) * after(-0.5) + all_in(jam, *showdown(chart_row(effective), None), effective)
    call = share(call_c[chart_row(effective)])
    return ((1 - jam) * after(-0.5) + jam * (1 - call) * after(1.0)
            + all_in(jam * call, *showdown(chart_row(effective), chart_row(effective)), effective))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_heads_up_winner_take_all_is_the_chip_ev(depth):
    # ICM of winner take all heads-up is the chip share, linear: FGS is the expected chip share after the hands
    stacks = (6.0, 9.0)
    got = fgs_equity(list(stacks), [1.0], blinds=(0.5, 1.0), button=0, depth=depth, prune=0).equity
    expected = hu_expected_chips(stacks, 0, depth) / 15.0
    assert got[0] == pytest.approx(expected, abs=1e-12)
    assert got[0] + got[1] == pytest.approx(1.0, abs=1e-12)
    assert abs(got[0] - 6.0 / 15.0) > 1e-4  # the blinds' moves are in it: not the chip share of today's stacks


def test_three_seats_depth_one_against_a_brute_force():
    # seats clockwise BTN, SB, BB (button 0); blinds 100/200: 7.5, 12.5 and 6 bb
    stacks = np.array([1500.0, 2500.0, 1200.0])
    payouts = [50.0, 30.0, 20.0]
    posted = np.array([0.0, 100.0, 200.0])
    jam_c, call_c = future_charts()

    def money(final: np.ndarray) -> np.ndarray:
        out = np.zeros(3)
        alive = final > 0
        if not alive.all():  # one bust: third place, the other two share the top two by ICM
            out[~alive] = payouts[2]
            out[alive] = icm(final[alive], payouts[:2]).equity
        else:
            out = np.asarray(icm(final, payouts).equity)
        return out

    def showdown_outcomes(jammer: int, caller: int, jam_row: int, call_row: int) -> list[tuple[float, np.ndarray]]:
        matched = min(stacks[jammer], stacks[caller])
        dead = sum(posted[s] for s in range(3) if s not in (jammer, caller))
        base = stacks - posted
        base[jammer] = stacks[jammer] - matched
        base[caller] = stacks[caller] - matched
        pot = 2 * matched + dead
        win, tie = showdown(jam_row, call_row)
        rows = []
        for p, shares in ((win, {jammer: pot}), (1 - win - tie, {caller: pot}),
                          (tie, {jammer: pot / 2, caller: pot / 2})):
            final = base.copy()
            for seat, chips in shares.items():
                final[seat] += chips
            rows.append((p, final))
        return rows

    outcomes: list[tuple[float, np.ndarray]] = []
    j0 = share(jam_c[chart_row(7.5)])  # the button against the deepest stack behind (12.5 bb)
    c1 = share(call_c[chart_row(7.5)])  # the small blind calls the button's 7.5 bb
    c2 = share(call_c[chart_row(6.0)])  # the big blind calls it with 6 bb
    outcomes += [(j0 * c1 * p, f) for p, f in showdown_outcomes(0, 1, chart_row(7.5), chart_row(7.5))]
    outcomes += [(j0 * (1 - c1) * c2 * p, f) for p, f in showdown_outcomes(0, 2, chart_row(7.5), chart_row(6.0))]
    outcomes.append((j0 * (1 - c1) * (1 - c2), stacks + np.array([300.0, -100.0, -200.0])))
    j1 = share(jam_c[chart_row(6.0)])  # the small blind's 12.5 bb against the big blind's 6
    c3 = share(call_c[chart_row(6.0)])
    outcomes += [((1 - j0) * j1 * c3 * p, f) for p, f in showdown_outcomes(1, 2, chart_row(6.0), chart_row(6.0))]
    outcomes.append(((1 - j0) * j1 * (1 - c3), stacks + np.array([0.0, 200.0, -200.0])))
    outcomes.append(((1 - j0) * (1 - j1), stacks + np.array([0.0, -100.0, 100.0])))
    assert sum(p for p, _ in outcomes) == pytest.approx(1.0, abs=1e-12)
    for _, final in outcomes:
        assert final.sum() == pytest.approx(stacks.sum())
    expected = sum(p * money(f) for p, f in outcomes)
    got = fgs_equity(stacks, payouts, blinds=(100, 200), button=0, depth=1, prune=0)
    assert got.equity == pytest.approx(expected, abs=1e-9)
    assert got.pruned == 0.0


@pytest.mark.parametrize(("stacks", "blinds", "ante", "bb_ante", "depth"), [
    ([5, 9, 2, 7, 11, 6], (0.5, 1.0), 0.0, 0.0, 2),
    ([0.8, 3, 0.4, 7, 1.2], (0.5, 1.0), 0.1, 0.0, 2),  # stacks all in by posting: three-way pots
    ([4, 0.7, 6, 12, 3, 9, 2, 5, 8, 10], (0.5, 1.0), 0.0, 1.0, 1),
])
def test_money_is_conserved(stacks, blinds, ante, bb_ante, depth):
    payouts = [50, 30, 20]
    r = fgs_equity(stacks, payouts, blinds=blinds, ante=ante, bb_ante=bb_ante, depth=depth, prune=0)
    assert sum(r.equity) == pytest.approx(100.0, abs=1e-9)
    assert all(e >= 0 for e in r.equity)
    assert r.equity != pytest.approx(r.icm, abs=1e-3)


def test_pruning_costs_at_most_the_pruned_mass():
    stacks, payouts = [5, 9, 2, 7, 11, 6], [50, 30, 20]
    exact = fgs_equity(stacks, payouts, depth=2, prune=0)
    pruned = fgs_equity(stacks, payouts, depth=2, prune=1e-4)
    assert pruned.pruned > 0
    assert np.max(np.abs(np.subtract(exact.equity, pruned.equity))) <= pruned.pruned * 100.0


def test_pushfold_under_fgs():
    icm_result = pushfold([10, 10], payouts=[1.0])
    fgs_result = pushfold([10, 10], payouts=[1.0], fgs_depth=1)
    assert fgs_result.model == "fgs" and fgs_result.fgs_depth == 1
    assert sum(fgs_result.values) == pytest.approx(1.0, abs=1e-9)
    assert fgs_result.to_dict()["fgs_depth"] == 1
    changes = chart_changes(icm_result, fgs_result)
    assert set(changes["jam"]) == {"SB"} and set(changes["call"]) == {"BB vs SB"}
    assert changes["jam"]["SB"]["icm_pct"] == pytest.approx(icm_result.percent(icm_result.jam[0]))


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"fgs_depth": MAX_FGS_DEPTH + 1}, InvalidArgumentError, "FGS depth"),
    ({"fgs_depth": -1}, InvalidArgumentError, "FGS depth"),
    ({"fgs_depth": 1.5}, InvalidArgumentError, "FGS depth"),
    ({"fgs_depth": 2, "payouts": None}, InvalidArgumentError, "payouts"),
    ({"fgs_depth": 2, "field": [10, 10]}, InvalidArgumentError, "field"),
])
def test_pushfold_refuses_bad_fgs_input(kwargs, error, words):
    args = {"payouts": [50, 30, 20]} | kwargs
    with pytest.raises(error, match=words):
        pushfold([12, 8, 10], **args)


def test_fgs_equity_refuses_bad_input():
    with pytest.raises(InvalidStacksError, match="seats|stacks"):
        fgs_equity(list(range(1, 12)), [1.0], depth=1)
    with pytest.raises(InvalidArgumentError, match="button"):
        fgs_equity([5, 5, 5], [1.0], button=3)
    with pytest.raises(InvalidArgumentError, match="prune"):
        fgs_equity([5, 5, 5], [1.0], prune=1.5)
    with pytest.raises(PokerlabError, match="payouts"):
        fgs_equity([5, 5, 5], [1.0, 2.0])


def test_cli_compares_fgs_with_icm():
    import json

    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    out = CliRunner().invoke(app, ["pushfold", "--stacks", "6,9", "--payouts", "1", "--fgs-depth", "2", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert data["model"] == "fgs" and data["fgs_depth"] == 2
    assert set(data["fgs_comparison"]["jam"]) == {"SB"}
    assert sum(data["fgs_comparison"]["fgs_values"]) == pytest.approx(1.0, abs=1e-9)
    text = CliRunner().invoke(app, ["pushfold", "--stacks", "6,9", "--payouts", "1", "--fgs-depth", "1"])
    assert text.exit_code == 0 and "FGS depth 1 against ICM" in text.output and "SB jams" in text.output


def test_a_table_of_stacks_all_in_by_posting_is_refused_not_overrun():
    # ten stacks too short for their posts: a ten-way showdown has 10! orders, more than FGS enumerates
    with pytest.raises(InvalidStacksError, match="all in by their forced bets"):
        fgs_equity([0.3] * 10, [50, 30, 20], blinds=(0.5, 1.0), ante=0.5, depth=1)
    assert sum(fgs_equity([0.3] * 4, [50, 30, 20], blinds=(0.5, 1.0), ante=0.5, depth=1).equity) == (
        pytest.approx(100.0, abs=1e-9))


def test_icm_command_shows_fgs_beside_icm():
    import json

    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    args = ["icm", "--stacks", "2,000 3,000 5,000", "--payouts", "50,30,20", "--blinds", "100/200", "--button", "1"]
    out = CliRunner().invoke(app, [*args, "--fgs-depth", "2", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    direct = fgs_equity([2000, 3000, 5000], [50, 30, 20], blinds=(100, 200), button=0, depth=2)
    assert data["equity"] == pytest.approx(direct.equity, abs=1e-12) and data["button"] == 1
    assert data["icm_equity"] == pytest.approx(icm([2000, 3000, 5000], [50, 30, 20]).equity, abs=1e-12)
    text = CliRunner().invoke(app, [*args, "--fgs-depth", "1"])
    assert text.exit_code == 0 and "FGS - ICM" in text.output
