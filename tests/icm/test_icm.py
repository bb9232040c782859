"""ICM equities against exact rationals, closed forms, published values and each other."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError, InvalidPayoutsError, InvalidStacksError
from pokerlab.icm import icm, power_law, truncated_normal_stacks
from pokerlab.icm.analysis import bubble_factors, deal


def harville_fractions(stacks: list[int], payouts: list[int]) -> list[Fraction]:
    """Brute force over all finishing orders with exact rationals (independent of the engine)."""
    n = len(stacks)
    pay = list(payouts) + [0] * (n - len(payouts))
    equity = [Fraction(0)] * n
    for order in itertools.permutations(range(n)):
        prob = Fraction(1)
        remaining = sum(stacks)
        for player in order:
            prob *= Fraction(stacks[player], remaining)
            remaining -= stacks[player]
        for place, player in enumerate(order):
            equity[player] += prob * pay[place]
    return equity


def closed_form_linear(stacks: np.ndarray) -> np.ndarray:
    """Payout n - m to the player with m players ahead: E_i = 1 + sum_{j != i} s_i / (s_i + s_j)."""
    s = np.asarray(stacks, dtype=np.float64)
    return 1.0 + (s[:, None] / (s[:, None] + s[None, :])).sum(axis=1) - 0.5


@pytest.mark.parametrize("method", ["subset", "exact", "auto"])
def test_oracle_cases(oracle, method):
    for case in oracle("icm")["cases"]:
        result = icm(case["stacks"], case["payouts"], method)
        tolerance = case.get("tolerance", 1e-9)
        np.testing.assert_allclose(result.equity, case["equity"], atol=tolerance, rtol=0)
        if "exact_fractions" in case:
            exact = [float(Fraction(f)) for f in case["exact_fractions"]]
            np.testing.assert_allclose(result.equity, exact, rtol=1e-13, atol=0)
        assert result.exact and result.stderr is None


def test_finish_probabilities_oracle(oracle):
    for case in oracle("icm")["finish_probabilities"]:
        n = len(case["stacks"])
        for method in ("subset", "exact"):
            result = icm(case["stacks"], [1.0] * n, method, places=True)
            assert case["place"] == "last"
            np.testing.assert_allclose(result.places[:, -1], case["probability"], atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_brute_force_fractions(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    stacks = [int(x) for x in rng.integers(1, 100, size=n)]
    paid = int(rng.integers(1, n + 1))
    payouts = sorted((int(x) for x in rng.integers(0, 50, size=paid)), reverse=True)
    exact = np.array([float(f) for f in harville_fractions(stacks, payouts)])
    for method in ("subset", "exact"):
        np.testing.assert_allclose(icm(stacks, payouts, method).equity, exact, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "payouts",
    [
        power_law(12, 1000.0, 1.0),
        np.array([50.0, 30.0, 20.0]),
        np.arange(16, 0, -1.0),
        [10.0] * 4 + [5.0] * 4 + [1.0] * 5,
    ],
)
def test_exact_methods_agree(payouts):
    stacks = truncated_normal_stacks(16, seed=3)
    subset = icm(stacks, payouts, "subset", places=True)
    race = icm(stacks, payouts, "exact", places=True)
    pool = float(np.sum(payouts))
    np.testing.assert_allclose(race.equity, subset.equity, rtol=1e-12, atol=1e-12 * pool)
    np.testing.assert_allclose(race.places, subset.places, atol=1e-12)


def test_places_of_a_larger_field_against_the_equity_kernel():
    """300 players, 40 paid: each paid place is taken by exactly one player, and places @ payouts reproduces the
    equity computed by the (independent) banded equity kernel."""
    stacks = truncated_normal_stacks(300, seed=30)
    payouts = power_law(40, 1000.0, 1.0)
    result = icm(stacks, payouts, "exact", places=True)
    np.testing.assert_allclose(result.places.sum(axis=0), 1.0, atol=1e-12)
    assert np.all(result.places.sum(axis=1) <= 1.0 + 1e-12) and np.all(result.places >= -1e-15)
    np.testing.assert_allclose(result.places @ payouts, result.equity, rtol=1e-11, atol=1e-12)


def test_places_are_probabilities():
    stacks = truncated_normal_stacks(12, seed=5)
    places = icm(stacks, [1.0] * 12, "exact", places=True).places
    np.testing.assert_allclose(places.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(places.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(places >= -1e-15)


@pytest.mark.parametrize("n", [7, 200, 1000])
def test_linear_closed_form_any_field(n):
    stacks = truncated_normal_stacks(n, seed=n)
    result = icm(stacks, np.arange(n, 0, -1.0), "exact")
    np.testing.assert_allclose(result.equity, closed_form_linear(stacks), rtol=1e-12)


@pytest.mark.parametrize("n, paid", [(64, 9), (2048, 307)])
def test_equal_stacks_share_the_pool_equally(n, paid):
    """Equal stacks: every finishing order is equally likely, so each player gets pool / n, for any payouts."""
    payouts = power_law(paid, 1000.0, 1.0)
    result = icm(np.full(n, 1500.0), payouts, "exact")
    np.testing.assert_allclose(result.equity, 1000.0 / n, rtol=1e-12)


def test_large_field_sums_to_pool_and_is_ordered():
    stacks = truncated_normal_stacks(3000, seed=9)
    payouts = power_law(450, 1000.0, 1.2)
    result = icm(stacks, payouts)
    assert result.equity.sum() == pytest.approx(1000.0, rel=1e-12)
    order = np.argsort(stacks)
    assert np.all(np.diff(result.equity[order]) >= -1e-12)


def test_scale_invariance_and_permutation():
    stacks = np.array([10.0, 40.0, 25.0, 5.0, 20.0])
    payouts = [60.0, 25.0, 15.0]
    base = icm(stacks, payouts).equity
    np.testing.assert_allclose(icm(stacks * 1e6, payouts).equity, base, rtol=1e-13)
    perm = np.array([3, 0, 4, 1, 2])
    np.testing.assert_allclose(icm(stacks[perm], payouts).equity, base[perm], rtol=1e-13)


def test_extreme_stacks():
    stacks = [1e9, 1.0, 1.0, 2.0]
    payouts = [50.0, 30.0, 20.0]
    exact = np.array([float(f) for f in harville_fractions([10**9, 1, 1, 2], [50, 30, 20])])
    np.testing.assert_allclose(icm(stacks, payouts, "exact").equity, exact, rtol=1e-11)


def test_busted_players_take_the_last_places():
    live = icm([5000, 3000, 2000], [50, 30, 20]).equity
    with_busted = icm([5000, 0, 3000, 2000, 0], [50, 30, 20, 0, 0])
    np.testing.assert_allclose(with_busted.equity[[0, 2, 3]], live, rtol=1e-13)
    assert with_busted.equity[1] == 0.0 and with_busted.equity[4] == 0.0
    # busted players share the payouts of the places they occupy (their bust order is unknown)
    shared = icm([5000, 3000, 0, 0], [40, 30, 20, 10], places=True)
    assert shared.equity[2] == pytest.approx(15.0) and shared.equity[3] == pytest.approx(15.0)
    np.testing.assert_allclose(shared.equity[:2], icm([5000, 3000], [40, 30]).equity + 0.0)
    np.testing.assert_allclose(shared.places[2], [0, 0, 0.5, 0.5])


def test_single_live_player_and_flat_payouts():
    assert icm([100.0], [7.0]).equity.tolist() == [7.0]
    np.testing.assert_allclose(icm([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]).equity, 5.0)


@pytest.mark.parametrize(
    "stacks, payouts, error",
    [
        ([], [1.0], InvalidStacksError),
        ([1.0, -2.0], [1.0], InvalidStacksError),
        ([1.0, float("nan")], [1.0], InvalidStacksError),
        ([1.0, float("inf")], [1.0], InvalidStacksError),
        ([0.0, 0.0], [1.0], InvalidStacksError),
        ([1.0, 2.0], [3.0, 2.0, 1.0], InvalidPayoutsError),
        ([1.0, 2.0], [3.0, -1.0], InvalidPayoutsError),
        ([1.0, 2.0], [], InvalidPayoutsError),
        (["a", 2.0], [1.0], InvalidStacksError),
    ],
)
def test_bad_input(stacks, payouts, error):
    with pytest.raises(error):
        icm(stacks, payouts)


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError):
        icm([1.0, 2.0], [1.0], "magic")
    with pytest.raises(InvalidArgumentError):
        icm(np.ones(30), [1.0], "subset")
    with pytest.raises(InvalidArgumentError):
        icm([1.0, 2.0], [1.0], "montecarlo", variance_reduction="voodoo")


def test_result_dict_shape():
    result = icm([5000, 3000, 2000], [50, 30, 20])
    data = result.to_dict()
    assert set(data) >= {"method", "players", "elapsed_s"}
    assert data["players"][0] == {"stack": 5000.0, "equity": pytest.approx(1075 / 28), "stderr": None}
    np.testing.assert_allclose(result.chip_share, [0.5, 0.3, 0.2])
    assert result.prize_share.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("kind", ["chip leader", "micro stack", "log-normal", "near-equal"])
@pytest.mark.parametrize("payouts", [[47.6, 42.9, 39.1, 9.4, 7.4], [1.0], power_law(9, 1000.0, 1.7)])
def test_quadrature_on_awkward_fields_matches_subset(kind, payouts):
    """Fields that stress the integration variable (plateaus of mu, a stack 1e6 times the others, ties) and
    the panel acceptance rule, against the subset recursion to 1e-12 (relative, floor 1e-3 pool / n)."""
    rng = np.random.default_rng(len(kind))
    n = 11
    stacks = {
        "chip leader": np.r_[1e6, rng.uniform(1, 10, n - 1)],
        "micro stack": np.r_[rng.uniform(1, 10, n - 1), 1e-6],
        "log-normal": np.exp(rng.normal(0, 3, n)),
        "near-equal": 5.0 + rng.uniform(0, 1e-9, n),
    }[kind]
    subset = icm(stacks, payouts, "subset").equity
    race = icm(stacks, payouts).equity
    floor = 1e-3 * float(np.sum(payouts)) / n
    assert np.max(np.abs(race - subset) / np.maximum(subset, floor)) < 1e-12


@pytest.mark.parametrize("method", ["exact", "subset", "montecarlo"])
def test_stacks_near_the_float_limit_do_not_overflow(method):
    """Equal stacks share the pool equally however large: the mean of [1e308, 1e308] overflows to inf."""
    kwargs = {"samples": 2000, "seed": 1} if method == "montecarlo" else {}
    result = icm([1e308, 1e308], [50.0, 30.0], method, **kwargs)
    if method == "montecarlo":
        assert np.all(np.isfinite(result.stderr)) and np.all(np.abs(result.equity - 40.0) <= 4 * result.stderr)
    else:
        np.testing.assert_allclose(result.equity, [40.0, 40.0], rtol=1e-12)
    np.testing.assert_allclose(result.chip_share, [0.5, 0.5])
    scaled = icm([3e307, 1e308, 5e307], [50.0, 30.0, 20.0]).equity
    np.testing.assert_allclose(scaled, icm([3.0, 10.0, 5.0], [50.0, 30.0, 20.0]).equity, rtol=1e-12)


@pytest.mark.parametrize("method", ["auto", "exact", "subset"])
@pytest.mark.parametrize(
    "option, value",
    [("samples", 1000), ("seed", 1), ("half_width", 0.1), ("relative_half_width", 0.01), ("time_limit", 1.0),
     ("variance_reduction", "plain")],
)
def test_monte_carlo_options_with_an_exact_method_are_rejected(method, option, value):
    with pytest.raises(InvalidArgumentError, match=f"{option} applies only to method='montecarlo'"):
        icm([1.0, 2.0, 3.0], [5.0, 3.0], method, **{option: value})


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seed(seed):
    with pytest.raises(InvalidArgumentError, match="seed must be (at least 0|a whole number)"):
        icm([1.0, 2.0, 3.0], [5.0, 3.0], "montecarlo", samples=100, seed=seed)


@pytest.mark.parametrize("n", [2, 3, 9, 20])
@pytest.mark.parametrize("paid", ["all", "all but one"])
def test_final_tables_integrate_over_a_finite_range(n, paid):
    """Every place (or all but the last) paid: the Chernoff range bound once saturated there, sending the
    integration to t = 1e300 (3,500 nodes for 2 players); now ~100 nodes, still equal to the subset recursion."""
    stacks = truncated_normal_stacks(n, seed=n)
    payouts = power_law(n if paid == "all" else n - 1, 1000.0, 1.0) if n > 1 else [1.0]
    result = icm(stacks, payouts, "exact")  # the quadrature ("auto" takes the plain subset recursion up to 10)
    assert result.nodes <= 300, result.nodes
    np.testing.assert_allclose(result.equity, icm(stacks, payouts, "subset").equity, rtol=1e-11)


def test_stack_ratios_beyond_the_float_range_of_the_race():
    """Tiers: stacks 1e300 apart finish in stack order; the rest is an ICM of its own (was 24.998 / 24.998)."""
    result = icm([1e300, 1, 1], [50, 30, 20], places=True)
    np.testing.assert_allclose(result.equity, [50, 25, 25], rtol=1e-12)
    np.testing.assert_allclose(result.places, [[1, 0, 0], [0, 0.5, 0.5], [0, 0.5, 0.5]], atol=1e-12)
    stacks = [10**40, 2 * 10**40, 1, 3, 2]  # two tiers of a small field: the Fraction enumeration agrees
    exact = [float(x) for x in harville_fractions(stacks, [50, 30, 20])]
    for method in ("exact", "subset"):
        np.testing.assert_allclose(icm(stacks, [50, 30, 20], method).equity, exact, rtol=1e-12)



def two_class_equity(a: int, b: int, x: float, y: float, payouts: np.ndarray) -> tuple[float, float]:
    """Malmuth-Harville for a players of stack x and b of stack y, exactly, by recursion over how many of each
    have finished (O(k^2), independent of the race): per-player equity of each class."""
    k = len(payouts)
    reach = np.zeros((k + 1, k + 1))  # reach[i, j]: probability that the first i + j finishers hold i of class a
    reach[0, 0] = 1.0
    class_a = class_b = 0.0
    for placed in range(k):
        for i in range(max(0, placed - b), min(placed, a) + 1):
            j = placed - i
            left_a, left_b = (a - i) * x, (b - j) * y
            p_a = left_a / (left_a + left_b)
            class_a += reach[i, j] * p_a * payouts[placed]
            class_b += reach[i, j] * (1.0 - p_a) * payouts[placed]
            reach[i + 1, j] += reach[i, j] * p_a
            reach[i, j + 1] += reach[i, j] * (1.0 - p_a)
    return class_a / a, class_b / b


@pytest.mark.parametrize("a, b, x, y, paid", [(500, 500, 2.0, 1.0, 150), (2000, 1000, 20.0, 1.0, 450),
                                              (200, 2800, 5.0, 1.0, 450)])
def test_large_two_class_fields_against_the_class_recursion(a, b, x, y, paid):
    """Big fields with unequal stacks and part of the field paid, in shuffled order, against an exact recursion
    that shares nothing with the race (the other large-field oracles have equal stacks or every place paid)."""
    payouts = power_law(paid, 1000.0, 1.0)
    expected_a, expected_b = two_class_equity(a, b, x, y, payouts)
    stacks = np.random.default_rng(a).permutation(np.concatenate([np.full(a, x), np.full(b, y)]))
    equity = icm(stacks, payouts).equity
    np.testing.assert_allclose(equity[stacks == x], expected_a, rtol=1e-12)
    np.testing.assert_allclose(equity[stacks == y], expected_b, rtol=1e-12)


@pytest.mark.parametrize("payouts", [[0.0, 3.0], [10.0, 30.0, 20.0], [5.0, 5.0, 9.0, 1.0]])
def test_payouts_that_rise_with_place(payouts):
    """Unusual but valid structures (a later place paying more): exact equals the enumeration of all orders
    (the race used to drop the negative steps left after taking out the last place's payout: [0, 3] gave 3, 3)."""
    stacks = [5, 3, 2, 1][: max(len(payouts), 2)]
    expected = [float(x) for x in harville_fractions(stacks, [int(p) for p in payouts])]
    for method in ("exact", "subset"):
        np.testing.assert_allclose(icm(stacks, payouts, method, allow_rising=True).equity, expected, rtol=1e-11)


@pytest.mark.parametrize("call", [
    lambda pay: icm([5, 3, 2], pay),
    lambda pay: icm([5, 3, 2], pay, "montecarlo", samples=1000, seed=1),
    lambda pay: bubble_factors([5, 3, 2], pay),
    lambda pay: deal([5, 3, 2], pay),
])
def test_payouts_that_rise_with_place_are_refused_unless_asked_for(call):
    """A later place paying more is a typo or places listed last first: refused, naming the place."""
    with pytest.raises(InvalidPayoutsError, match=r"place 3 pays 30, more than place 2 \(20\).*allow_rising=True"):
        call([50, 20, 30])
    call([50, 30, 20])


def test_tiers_beyond_the_float_range_of_a_normalised_stack():
    """1e300 against 1e-30: the tiny stacks would be 0 after dividing by the largest, so tiers are split on the
    raw chips; Monte Carlo cannot hold the range and says so."""
    result = icm([1e300, 1e-30, 2e-30], [50, 30, 20])
    np.testing.assert_allclose(result.equity, [50, 30 * 1 / 3 + 20 * 2 / 3, 30 * 2 / 3 + 20 * 1 / 3], rtol=1e-12)
    np.testing.assert_allclose(icm([1e300, 1e-30, 2e-30], [50, 30, 20], "subset").equity, result.equity, rtol=1e-12)
    with pytest.raises(InvalidArgumentError, match="differ by more than 1e300"):
        icm([1e300, 1e-30, 2e-30], [50, 30, 20], "montecarlo", samples=100)


def test_ctrl_c_during_the_exact_method_says_what_was_stopped(monkeypatch):
    from pokerlab.errors import Interrupted
    from pokerlab.icm import core as icm_core

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(icm_core, "_exact_by_tiers", stopped)
    with pytest.raises(Interrupted, match=r"during the exact finish-place matrix of 3 players x 2 places "
                                          r"\([\d.]+ s, about 0% done\); method='montecarlo' estimates sooner"):
        icm([5, 3, 2], [60, 40], places=True)
