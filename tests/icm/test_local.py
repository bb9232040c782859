"""Local ICM (pokerlab.icm.local) against exact ICM (pokerlab.icm.icm: the subset recursion and the exact
quadrature): the hero's equity in each outcome of a hand that moves chips between two or three players."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm import icm
from pokerlab.icm.local import (
    MEMBERS_MAX,
    STRIDE_MAX,
    STRIDE_RATIO,
    _dense_payoff,
    _edgeworth_masses,
    _edgeworth_window,
    _mass_payoff,
    _power_sums,
    _rest_cdf,
    _stride_half_width,
    _stride_taper,
    _strided_payoffs,
    _window_constants,
    equity_after,
    filtered_payouts,
    local_field,
    member_equity,
    node_decays,
    pair_equity,
    pair_terms,
    rest_payoffs,
    update_stack,
)
from pokerlab.icm.payouts import power_law


def _outcomes(stacks: np.ndarray, hero: int, villain: int) -> np.ndarray:
    """Fold (nothing moves), double up, lose the all-in: the hero's and the villain's chips."""
    a, b = stacks[hero], stacks[villain]
    x = min(a, b)
    return np.array([[a, b], [a + x, b - x], [a - x, b + x]])


def _exact(stacks: np.ndarray, pay: np.ndarray, members: list[int], after: np.ndarray) -> np.ndarray:
    values = []
    for row in after:
        s = stacks.copy()
        s[members] = row
        values.append(icm(s, pay).equity[members[0]])
    return np.array(values)


@pytest.mark.parametrize("n, paid", [(3, 2), (6, 3), (10, 4)])
def test_small_fields_are_exact(n: int, paid: int) -> None:
    rng = np.random.default_rng(n)
    stacks = np.round(rng.uniform(100, 5000, n))
    pay = power_law(paid, 1000.0)
    after = _outcomes(stacks, 0, 1)
    local = equity_after(local_field(stacks, pay), [0, 1], after)
    assert np.allclose(local, _exact(stacks, pay, [0, 1], after), rtol=0, atol=1e-9)


@pytest.mark.parametrize("n, paid", [(11, 11), (30, 5), (64, 9)])
def test_medium_fields_exact_rest_within_1e_7_of_a_fair_share(n: int, paid: int) -> None:
    rng = np.random.default_rng(n)
    stacks = np.round(rng.gamma(2.0, 1000.0, n)) + 10
    pay = power_law(paid, 1000.0)
    for hero, villain in ((0, 1), (int(np.argmax(stacks)), int(np.argmin(stacks)))):
        after = _outcomes(stacks, hero, villain)
        local = equity_after(local_field(stacks, pay), [hero, villain], after)
        error = np.abs(local - _exact(stacks, pay, [hero, villain], after)) / (pay.sum() / n)
        assert error.max() < 1e-7


@pytest.mark.parametrize("n, paid, bound", [(200, 30, 2e-4), (1000, 150, 1e-4)])
def test_large_fields_within_stated_error(n: int, paid: int, bound: float) -> None:
    """Beyond 64 players the rest of the field is an expansion (Poisson-Charlier, then Edgeworth): measured
    errors 5e-5 (200 players) and 2e-5 (1,000) of a fair share, asserted at 2e-4 and 1e-4, on the levels and on
    the differences a decision compares (double up - fold, lose - fold)."""
    rng = np.random.default_rng(n)
    stacks = np.round(rng.uniform(500, 3000, n))
    pay = power_law(paid, 1000.0)
    fair = pay.sum() / n
    members = [1, 2, 3]  # three stacks change: 1 doubles through 2 while 3 loses a little to 1
    base = stacks[members]
    after = np.array([base, base + [base[2] * 0.5 + base[1], -base[1], -base[2] * 0.5],
                      [0.0, base[1] + base[0] * 0.6, base[2] + base[0] * 0.4]])
    local = equity_after(local_field(stacks, pay), members, after)
    exact = _exact(stacks, pay, members, after)
    assert local[2] == pay[n - 1] if n <= paid else local[2] == 0.0  # the hero is out: last place's money
    assert np.abs(local - exact).max() / fair < bound
    assert np.abs(np.diff(local) - np.diff(exact)).max() / fair < bound


@pytest.mark.parametrize("n", [40, 300])
def test_a_whole_table_as_members(n: int) -> None:
    """Nine members (a table whose every stack a hand moves: antes, blinds, a pot): within 1e-7 (exact rest)
    and 2e-4 (expansions) of a fair share."""
    rng = np.random.default_rng(n)
    stacks = np.round(rng.uniform(500, 3000, n))
    pay = power_law(n // 6, 1000.0)
    members = list(range(10, 19))
    before = stacks[members]
    after = np.array([before, before - 50 + np.eye(9)[3] * 450, before + np.eye(9)[0] * before[5] - np.eye(9)[5]
                      * before[5]])
    local = equity_after(local_field(stacks, pay), members, after)
    bound = 1e-7 if n <= 64 else 2e-4
    assert np.abs(local - _exact(stacks, pay, members, after)).max() / (pay.sum() / n) < bound


def test_update_stack_matches_a_fresh_build() -> None:
    rng = np.random.default_rng(5)
    stacks = np.round(rng.uniform(500, 3000, 300))
    pay = power_law(45, 1000.0)
    field = local_field(stacks, pay)
    moved = stacks.copy()
    for player, chips in ((4, 0.0), (7, moved[7] + moved[4]), (9, 123.0)):
        update_stack(field, player, chips)
        moved[player] = chips
    assert int(field.alive[0]) == 299
    fresh = local_field(moved, pay)
    # the nodes stay those of the first build: the power sums there as a fresh sum gives them, and the equities
    assert np.allclose(field.power, _power_sums(moved, field.scale, field.nodes), rtol=1e-12, atol=1e-9)
    after = _outcomes(moved, 7, 9)
    values = equity_after(field, [7, 9], after)
    assert np.allclose(values, equity_after(fresh, [7, 9], after), rtol=0, atol=1e-4 * pay.sum() / 300)


def test_every_open_place_paying_the_same() -> None:
    """200 left, every place paid the same (past the bubble of a flat payout): ICM gives every survivor that
    prize and a player knocked out it too; no subset recursion over the 200 (2^200 sets)."""
    rng = np.random.default_rng(3)
    stacks = np.round(rng.uniform(500, 3000, 200))
    field = local_field(stacks, np.full(200, 5.0))
    assert field.nodes.size == 0
    assert equity_after(field, [0, 1], [[stacks[0] + stacks[1], 0.0], [0.0, stacks[0] + stacks[1]]]).tolist() == [
        5.0, 5.0]


def test_refuses_bad_members() -> None:
    field = local_field([5000, 3000, 2000], [60, 40])
    with pytest.raises(InvalidArgumentError, match="distinct player indices"):
        equity_after(field, [0, 0], [[1, 2]])
    with pytest.raises(InvalidArgumentError, match="one row of chips"):
        equity_after(field, [0, 1], [[1, -2]])
    with pytest.raises(InvalidArgumentError, match="1 to 10 members"):
        equity_after(local_field([100] * 12, [60, 40]), list(range(11)), [[1] * 11])


@pytest.mark.parametrize("n, paid", [(400, 60), (3000, 450)])
def test_pair_terms_give_each_outcome_as_member_equity_does(n: int, paid: int) -> None:
    """A decision's outcomes from the pair terms (the other members averaged once per node, each outcome O(1) per
    node) against the member-by-member quadrature of the same nodes and payoffs (member_equity), for outcomes
    moving the hero alone, the hero and one other (doubling through him, busting him, busting the hero), and a
    member with no chips who wins some: equal within 1e-12 of a fair share (rounding only)."""
    rng = np.random.default_rng(n)
    stacks = np.round(rng.gamma(2.0, 1000.0, n)) + 10
    pay = power_law(paid, 1000.0)
    field = local_field(stacks, pay)
    members = np.arange(20, 29, dtype=np.int64)
    update_stack(field, 27, 0.0)  # all in from the blinds and called: no chips behind
    near = field.stacks[members].copy()
    payoff = rest_payoffs(field, members)
    fair = pay.sum() / n
    for hero in (0, 3, 8):
        terms = pair_terms(field, members, near, payoff, hero, 4)  # few slots: the last one recycled
        for other, gain in ((-1, 500.0), (1, near[1]), (hero, -300.0), (2, -near[2]), (7, 700.0), (1, -1e9)):
            row = near.copy()
            if other >= 0:
                row[other] = max(row[other] + gain, 0.0)
                row[hero] = max(row[hero] - gain, 0.0) if other != hero else row[hero]
            else:
                row[hero] += gain
            expected = member_equity(field, members, row, payoff, hero)
            assert abs(pair_equity(field, members, row, terms, hero, other) - expected) < 1e-12 * fair


def test_node_decays_match_the_exponential() -> None:
    """The vectorised exponential against math.exp: relative error within 4e-16 over the node times and rates a
    field meets (and exp(-700) for anything smaller)."""
    nodes = np.sort(np.random.default_rng(1).random(300)) * 3.0
    out = np.empty(nodes.size)
    bits = np.empty(nodes.size, dtype=np.int64)
    for x in (0.0, 1e-12, 1e-3, 0.7, 1.0, 13.3, 233.3, 5000.0):
        node_decays(x, nodes, out, bits)
        exact = np.exp(-np.minimum(x * nodes, 700.0))
        assert np.all(np.abs(out - exact) <= 4e-16 * exact)


@pytest.mark.parametrize("c_lo, c_hi", [(600, 1000), (805, 813)])
def test_the_window_recurrence_gives_the_expansion_count_by_count(c_lo: int, c_hi: int) -> None:
    """The rest's cdf over a window of counts by the recurrence (_edgeworth_window: restarts every 32 counts with
    three exps, a square root and an erfc) against the Edgeworth cdf evaluated count by count (_rest_cdf: an erfc
    and an exp per count): within 1e-12, over a wide window and over a drop's short run of nine counts."""
    mu, sigma, g1, g2 = 812.3, 27.4, 0.031, -0.004
    fixed = np.empty(8)
    _window_constants(sigma, fixed)
    window = np.empty(c_hi - c_lo + 1)
    _edgeworth_window(window, c_lo, c_hi, mu, sigma, g1, g2, fixed)
    direct = [_rest_cdf(c, False, np.empty(1), np.empty(1), 0.0, 0.0, mu, sigma, g1, g2) for c in range(c_lo, c_hi + 1)]
    assert np.abs(window - np.array(direct)).max() < 1e-12


@pytest.mark.parametrize("mu, sigma, g1, g2", [(60.0, 5.0, 0.12, 0.01), (812.3, 27.4, 0.031, -0.004)])
def test_the_masses_give_the_expansion_and_its_payoffs(mu: float, sigma: float, g1: float, g2: float) -> None:
    """The rest's count law as masses (_edgeworth_masses: Euler-Maclaurin steps of the normal cdf, one exp per
    count) summed back into the cdf, against the Edgeworth cdf count by count (_rest_cdf, erfc per count): within
    the Euler-Maclaurin bound 4.3e-10 at sigma = 5 (the smallest spread it is used at) over the whole window of
    6.5 sigma + 6 each side; and the payoffs E[pay(1 + m + R)] of every member count m by the masses
    (_mass_payoff, summation by parts) against the cdf's (_dense_payoff) within that bound times the first prize."""
    span = 6.5 * sigma + 6.0
    c_lo, c_hi = max(int(np.floor(mu - span)), 0), int(np.ceil(mu + span))
    width = c_hi - c_lo + 1
    mass, squares, density = np.empty(width), np.empty(width), np.empty(width)
    _edgeworth_masses(mass, squares, density, np.empty(width, dtype=np.int64), c_lo, width, mu, sigma, g1, g2)
    direct = np.array([_rest_cdf(c, False, np.empty(1), np.empty(1), 0.0, 0.0, mu, sigma, g1, g2)
                       for c in range(c_lo, c_hi + 1)])
    assert np.abs(np.cumsum(mass) - direct).max() < 4.3e-10
    pay = np.concatenate([power_law(c_hi - 20, 1000.0), np.zeros(40)])  # the last paid place inside the window
    top = c_hi - 20
    for m in range(9):
        by_mass = _mass_payoff(pay, mass, c_lo, c_hi, min(c_hi, top - m), m)
        by_cdf = _dense_payoff(pay, direct, c_lo, c_hi, min(c_hi, top - m), m)
        assert abs(by_mass - by_cdf) < 4.3e-10 * pay[0]


def _law_masses(c: np.ndarray, mu: float, sigma: float, g1: float, g2: float) -> np.ndarray:
    """P(R = c) of the rest's Edgeworth law, count by count: differences of its cdf ``Phi(z) - phi(z) E(z)``,
    ``z = (c + 1/2 - mu) / sigma`` (as _rest_cdf, unclipped: the law the masses paths sum, negative where the
    expansion's density is, far in the tails)."""
    z = (np.concatenate([[c[0] - 1], c]) + 0.5 - mu) / sigma
    a3, a4, a6 = g1 / 6.0, g2 / 24.0, g1 * g1 / 72.0
    poly = a3 * (z * z - 1) + a4 * z * (z * z - 3) + a6 * z * (z**4 - 10 * z * z + 15)
    cdf = ndtr(z) - np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) * poly
    return np.diff(cdf)


def _strided_cases() -> list[tuple[float, float, float]]:
    """(sigma, g1, g2): every stride from both ends of its range of spreads, skewness and kurtosis of either sign
    up to about those of a field's count at that spread."""
    cases = []
    for stride in range(2, STRIDE_MAX + 2):
        for sigma in (STRIDE_RATIO * stride, STRIDE_RATIO * (stride + 1) - 1e-6):
            cases.append((sigma, 1.0 / sigma, -0.5 / sigma**2))
            cases.append((sigma, -0.6 / sigma, 0.8 / sigma**2))
    return cases


def _interpolation_error(sigma: float, stride: int, g1: float, g2: float) -> float:
    """l1 distance between the law's masses at every count and their interpolant from every ``stride``-th count by
    the stride's filter (the kernel of filtered_payouts)."""
    half = _stride_half_width(stride)
    taper = _stride_taper(stride)
    offsets = np.arange(-half, half + 1)
    kernel = np.sinc(offsets / stride) * np.exp(-0.5 * (taper * offsets) ** 2)
    mu = 5000.3
    samples = np.arange(int(np.ceil((mu - 10 * sigma) / stride)), int((mu + 10 * sigma) // stride) + 1) * stride
    counts = np.arange(samples[0] - half, samples[-1] + half + 1)
    exact = _law_masses(counts, mu, sigma, g1, g2)
    interpolated = np.zeros(counts.size)
    for j in samples - counts[0]:
        interpolated[j - half: j + half + 1] += exact[j] * kernel
    return float(np.abs(exact - interpolated).sum())


def test_the_band_limited_interpolation_of_the_masses_is_exact_to_rounding() -> None:
    """The strided sums rest on one fact (_strided_payoffs' docstring): the law's masses, sampled every
    floor(sigma / STRIDE_RATIO) counts and interpolated by the stride's filter K_s (the kernel of
    filtered_payouts), give back the mass at every count, in l1 within 1e-11 (measured 2.8e-12 at sigma 5 and
    skewness 0.2, below 1.5e-12 elsewhere), at every stride and both ends of its range of spreads; so a strided
    payoff is the count-by-count one within 1e-11 of the first prize, whatever the payouts. Sampled more sparsely
    than the ratio allows (spread 10 every 5 counts: 1.8e-8) the interpolant is off by far more: the bound is not
    a property of any sampling."""
    for sigma, g1, g2 in _strided_cases():
        stride = min(int(sigma / STRIDE_RATIO), STRIDE_MAX)
        assert _interpolation_error(sigma, stride, g1, g2) < 1e-11, (sigma, stride)
    assert _interpolation_error(STRIDE_RATIO * 4, 5, 0.1, 0.0) > 1e-9


def _payout_shapes(n: int) -> dict[str, np.ndarray]:
    """Every place its own amount (power 1 and 1.5), bands with jumps, and uneven steps: full length ``n``."""
    paid = n * 15 // 100
    shapes = {"standard": power_law(paid, 1e6, 1.0), "top-heavy": power_law(paid, 1e6, 1.5)}
    bands = power_law(paid, 1e6, 1.0)
    for lo, hi in ((9, 18), (18, 32), (32, 54), (54, 87), (87, 137), (137, 212), (212, paid)):
        bands[lo:hi] = bands[lo:hi].mean()
    shapes["banded"] = bands
    steps = np.sort(np.random.default_rng(2).choice([0.0, 1.0, 5.0, 40.0], paid, p=[0.7, 0.2, 0.08, 0.02]))[::-1]
    shapes["uneven"] = np.cumsum(steps[::-1])[::-1] + 10.0
    return {name: np.concatenate([pay, np.zeros(n - paid)]) for name, pay in shapes.items()}


def test_strided_payoffs_equal_the_count_by_count_sum() -> None:
    """E[pay(1 + m + R)] for the ten member counts by the strided sum (_strided_payoffs: the law's masses every
    floor(sigma / STRIDE_RATIO) counts, by the midpoint series, against the payouts filtered for the stride)
    against the sum over every count of the same law (_law_masses), for payouts of every shape (jumps, bands,
    every place its own amount, the last paid place inside the window), every stride, skewed both ways: within
    2e-10 of the first prize (the interpolation 3e-12, the midpoint series 5.5e-12, the tails past 6.5 sigma + 6
    counts; measured 3.9e-11; sampling only within 6.5 sigma, the skewed expansion's heavier tail gave 1.3e-9)."""
    n = 3000
    worst = 0.0
    for pay in _payout_shapes(n).values():
        top = int(np.flatnonzero(pay)[-1]) + 1
        table, start = filtered_payouts(pay, top, STRIDE_MAX)
        out, mass, coef = np.empty(MEMBERS_MAX), np.empty(2000), np.empty(26)
        for sigma, g1, g2 in _strided_cases():
            stride = min(int(sigma / STRIDE_RATIO), STRIDE_MAX)
            rows = (start[stride + 1] - start[stride]) // MEMBERS_MAX
            for mu in (6.5 * sigma + 6.3, 151.7, top - 20.5, top + 2 * sigma + 0.25):
                if mu - 6.5 * sigma - 6 < 0:
                    continue
                _strided_payoffs(table, start[stride], rows, stride, mu, sigma, g1, g2, out, mass, coef)
                counts = np.arange(max(int(mu - 12 * sigma), 0), int(mu + 12 * sigma))
                masses = _law_masses(counts, mu, sigma, g1, g2)
                for m in range(MEMBERS_MAX):
                    direct = float(masses @ pay[counts + m])
                    worst = max(worst, abs(out[m] - direct) / pay[0])
    assert worst < 2e-10


@pytest.mark.parametrize("power", [1.0, 1.5])
def test_a_table_at_2000_players_with_every_place_paid_its_own_amount(power: float) -> None:
    """A full table's decision outcomes at 2,000 players, 15% paid, every paid place its own amount (the strided
    sums at every node whose spread reaches 5, strides 2 to 6): within 3e-5 of a fair share of exact ICM on the
    equities and on the differences a decision compares (measured 1.6e-5 and 1.1e-5 for powers 1 and 1.5 here,
    up to 2.4e-5 in benchmarks/icm_local.py: the expansion's error); and within 1e-9 of a fair share of the same
    field summed count by count (the strided tables removed; measured 1.7e-11), but not equal to it: the strided
    path ran."""
    n = 2000
    rng = np.random.default_rng(n + 1)
    stacks = np.round(rng.gamma(2.0, 5000.0, n)) + 100.0
    pay = power_law(n * 15 // 100, 1e6, power)
    members = np.sort(rng.choice(n, 9, replace=False)).astype(np.int64)
    before = stacks[members]
    moved = before.copy()
    moved[[3, 6]] = before[3] + before[6] / 2, before[6] / 2
    bust = before.copy()
    bust[[3, 6]] = 0.0, before[6] + before[3]
    after = np.array([before - 25.0, moved, bust])[:, [3, *range(3), *range(4, 9)]]
    order = [members[3], *members[:3], *members[4:]]
    field = local_field(stacks, pay)
    local = equity_after(field, order, after)
    counted = equity_after(field._replace(filtered_start=np.zeros_like(field.filtered_start)), order, after)
    exact = _exact(stacks, pay, order, after)
    fair = pay.sum() / n
    assert np.abs(local - exact).max() / fair < 3e-5
    assert np.abs(np.diff(local) - np.diff(exact)).max() / fair < 3e-5
    assert 0 < np.abs(local - counted).max() / fair < 1e-9
