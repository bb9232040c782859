"""Monte Carlo ICM: within 4 standard errors of the exact values, honest standard errors, stopping rules."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm import default_variance_reduction, icm, power_law, truncated_normal_stacks

STACKS = truncated_normal_stacks(12, seed=11)
PAYOUTS = power_law(5, 1000.0, 1.0)


@pytest.fixture(scope="module")
def exact():
    return icm(STACKS, PAYOUTS, "subset").equity


@pytest.mark.parametrize("vr", ["plain", "antithetic", "sobol", "conditional"])
def test_within_four_standard_errors(exact, vr):
    result = icm(STACKS, PAYOUTS, "montecarlo", samples=40_000, variance_reduction=vr, seed=7)
    assert not result.exact and result.samples >= 40_000
    assert np.all(result.stderr > 0)
    assert np.all(np.abs(result.equity - exact) <= 4 * result.stderr)


def test_same_seed_same_result():
    a = icm(STACKS, PAYOUTS, "montecarlo", samples=5000, seed=3)
    b = icm(STACKS, PAYOUTS, "montecarlo", samples=5000, seed=3)
    np.testing.assert_array_equal(a.equity, b.equity)


def test_conditional_reduces_variance(exact):
    plain = icm(STACKS, PAYOUTS, "montecarlo", samples=20_000, variance_reduction="plain", seed=1)
    cond = icm(STACKS, PAYOUTS, "montecarlo", samples=20_000, variance_reduction="conditional", seed=1)
    assert np.max(cond.stderr) < 0.7 * np.max(plain.stderr)


def test_half_width_rule_stops_with_the_promised_precision():
    result = icm(STACKS, PAYOUTS, "montecarlo", half_width=2.0, confidence=0.9, variance_reduction="plain", seed=2)
    assert result.stop_reason == "precision"
    assert np.all(1.6448536269514722 * result.stderr <= 2.0 + 1e-9)
    rel = icm(STACKS, PAYOUTS, "montecarlo", relative_half_width=0.002, confidence=0.9, seed=2)
    assert np.all(1.6448536269514722 * rel.stderr <= 2.0 + 1e-9)


def test_paid_places_partial_selection(exact):
    """Few paid places (partial selection path) in a bigger field, against the exact quadrature."""
    stacks = truncated_normal_stacks(200, seed=4)
    payouts = power_law(10, 1000.0, 1.0)
    ref = icm(stacks, payouts).equity
    for vr in ("plain", "conditional"):
        result = icm(stacks, payouts, "montecarlo", samples=20_000, variance_reduction=vr, seed=5)
        assert np.all(np.abs(result.equity - ref) <= 4 * result.stderr + 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("vr", ["plain", "antithetic", "sobol", "conditional"])
def test_standard_error_is_honest(exact, vr):
    """Over 30 seeds the spread of the estimates matches the reported standard error (ratio near 1)."""
    estimates, errors = [], []
    for seed in range(30):
        result = icm(STACKS, PAYOUTS, "montecarlo", samples=4000, variance_reduction=vr, seed=100 + seed)
        estimates.append(result.equity)
        errors.append(result.stderr)
    spread = np.std(estimates, axis=0, ddof=1)
    reported = np.mean(errors, axis=0)
    ratio = spread / reported
    # with 30 replicates the sample sd is within about +-35% of the truth at 99%
    assert np.all((ratio > 0.6) & (ratio < 1.45)), ratio
    z = (np.mean(estimates, axis=0) - exact) / (reported / np.sqrt(30))
    assert np.all(np.abs(z) < 4.5)


def test_polynomial_exp_matches_libm():
    """The vectorisable e^{-x} used by conditional Monte Carlo, against numpy's exp to a few ulp."""
    from numba import njit

    from pokerlab.icm.sampling import _exp_neg

    @njit
    def apply(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = _exp_neg(x[i])
        return out

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0, 2, 20_000), rng.uniform(0, 745, 20_000), [0.0, 1e-300, 708.0, 745.5, 900.0]])
    ours, ref = apply(x), np.exp(-x)
    normal = ref > 1e-300
    np.testing.assert_allclose(ours[normal], ref[normal], rtol=1e-15, atol=0)
    np.testing.assert_allclose(ours[~normal], ref[~normal], rtol=0, atol=1e-310)


def test_finish_places_by_counting_within_four_standard_errors():
    """Monte Carlo finish places (counted from plain samples) against the exact matrix, with binomial standard
    errors; the equities are those of plain sampling with the same seed (the same finishing orders)."""
    exact = icm(STACKS, PAYOUTS, places=True)
    result = icm(STACKS, PAYOUTS, "montecarlo", places=True, samples=100_000, seed=4)
    assert result.method == "montecarlo-plain" and result.places.shape == exact.places.shape
    assert np.all(result.places_stderr > 0)
    assert np.all(np.abs(result.places - exact.places) <= 4 * result.places_stderr)
    np.testing.assert_allclose(result.places.sum(axis=0), 1.0, rtol=1e-12)  # each place taken once per sample
    plain = icm(STACKS, PAYOUTS, "montecarlo", variance_reduction="plain", samples=100_000, seed=4)
    np.testing.assert_allclose(result.equity, plain.equity, rtol=1e-12)
    np.testing.assert_allclose(result.stderr, plain.stderr, rtol=1e-9)
    data = result.to_dict()["players"][0]
    assert len(data["places"]) == len(data["places_stderr"]) == PAYOUTS.size


def test_place_counts_do_not_depend_on_the_work_slots():
    from pokerlab.icm.sampling import mc_place_counts

    stacks = truncated_normal_stacks(80, seed=8)  # above the counting border: the sorting path
    stacks = stacks / stacks.mean()
    one, two, five = (mc_place_counts(stacks, 20, 3000, 99, 16, slots) for slots in (1, 2, 5))
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, five)
    assert np.all(one.sum(axis=0) == 3000)


def test_finish_places_by_monte_carlo_need_plain_sampling_and_bounded_memory(monkeypatch):
    with pytest.raises(InvalidArgumentError, match="counted from plain samples"):
        icm(STACKS, PAYOUTS, "montecarlo", places=True, variance_reduction="sobol", samples=1024, seed=1)
    from pokerlab.icm import core as icm_core

    monkeypatch.setattr(icm_core, "PLACE_COUNT_BYTES", 64)
    with pytest.raises(InvalidArgumentError, match="needs about"):
        icm(STACKS, PAYOUTS, "montecarlo", places=True, samples=1000, seed=1)


@pytest.mark.parametrize("vr, samples, drawn", [("plain", 2, 2), ("conditional", 3, 3), ("antithetic", 5, 6),
                                                ("sobol", 600, 768)])
def test_reported_samples_are_the_samples_drawn(vr, samples, drawn):
    """Antithetic draws pairs and Sobol sets of 256: the request is rounded up and the result says so."""
    assert icm(STACKS, PAYOUTS, "montecarlo", samples=samples, variance_reduction=vr, seed=1).samples == drawn


@pytest.mark.parametrize("vr, samples, least", [("plain", 1, 2), ("conditional", 1, 2), ("antithetic", 3, 4),
                                                ("sobol", 511, 512)])
def test_too_few_samples_for_a_standard_error(vr, samples, least):
    with pytest.raises(InvalidArgumentError, match=f"samples must be at least {least} "):
        icm(STACKS, PAYOUTS, "montecarlo", samples=samples, variance_reduction=vr, seed=1)


@pytest.mark.parametrize("n", [50, 64, 65])
@pytest.mark.parametrize("vr", ["plain", "antithetic"])
def test_both_ranking_paths_at_their_border(n, vr):
    """Fields up to 64 players rank by counting, larger ones sort: both sides of the border, 40 paid places
    (the ICM benchmark's shape), against the exact quadrature."""
    stacks = truncated_normal_stacks(n, mean=10_000, sd=5_000, seed=n)
    payouts = power_law(40, 1000.0, 1.0)
    ref = icm(stacks, payouts).equity
    result = icm(stacks, payouts, "montecarlo", samples=30_000, variance_reduction=vr, seed=9)
    assert np.all(np.abs(result.equity - ref) <= 4 * result.stderr)


def _ranks(clocks):
    from pokerlab.icm.sampling import _coarse_scratch, _count_ranks

    ranks = np.empty(clocks.size, dtype=np.int32)
    _count_ranks(np.ascontiguousarray(clocks, dtype=np.float64), _coarse_scratch(), ranks)
    return ranks


def test_count_ranks_is_the_sorted_order():
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 17, 50, 64):
        clocks = rng.exponential(size=n) / rng.uniform(0.01, 3.0, size=n)
        expected = np.empty(n, dtype=np.int64)
        expected[np.argsort(clocks, kind="stable")] = np.arange(n)
        np.testing.assert_array_equal(_ranks(clocks), expected)


def test_count_ranks_resolves_single_precision_ties_exactly():
    """Clocks equal after rounding to single precision (the fast compare cannot tell them apart) and clocks
    exactly equal (ordered by index) still give the double-precision order; infinite clocks go last."""
    base = 1.2345678
    close = np.array([base + 4e-16, 3.0, base, base + 2e-16, 0.5])
    assert len(set(close.astype(np.float32).tolist())) == 3  # three of them share one single-precision value
    np.testing.assert_array_equal(_ranks(close), [3, 4, 1, 2, 0])
    equal = np.array([2.0, 1.0, 2.0, 1.0])
    np.testing.assert_array_equal(_ranks(equal), [2, 0, 3, 1])
    huge = np.array([np.inf, 1e300, 5.0, np.inf])  # 1e300 overflows single precision too
    np.testing.assert_array_equal(_ranks(huge), [2, 1, 0, 3])


@pytest.mark.parametrize("players, paid, chosen", [
    (3, 3, "sobol"), (12, 3, "sobol"), (50, 40, "sobol"), (64, 16, "sobol"), (65, 40, "conditional"),
    (100, 15, "conditional"), (1000, 150, "conditional"), (2048, 307, "sobol"), (5000, 100, "plain"),
])
def test_auto_picks_the_estimator_measured_fastest(players, paid, chosen):
    """The shapes of the efficiency table in docs/benchmarks.md ("Which estimator"): the named estimator had the
    least variance x time per sample there (2,048 / 307: the fastest that is practical, see the docstring);
    the result names the estimator."""
    assert default_variance_reduction(players, paid) == chosen
    stacks = truncated_normal_stacks(players, seed=1)
    result = icm(stacks, power_law(paid, 1000.0, 1.0), "montecarlo", samples=512, seed=1)
    assert result.method == f"montecarlo-{chosen}"


@pytest.mark.parametrize("samples, chosen", [(2, "plain"), (3, "plain"), (4, "antithetic"), (511, "antithetic"),
                                             (512, "sobol")])
def test_auto_with_fewer_samples_than_two_sobol_sets(samples, chosen):
    for count in (samples, np.int64(samples), float(samples)):
        result = icm(STACKS, PAYOUTS, "montecarlo", samples=count, seed=1)
        assert result.method == f"montecarlo-{chosen}"


def test_plain_and_antithetic_clocks_agree_bit_for_bit():
    """Both draw loops compute the same clocks from the same counter, whatever vector width the compiler chose
    for each (no fastmath: IEEE operations in every lane)."""
    from pokerlab.icm.sampling import _draw_antithetic, _draw_clocks

    inv = 1.0 / np.linspace(0.1, 3.0, 50)
    clocks, first, partner = np.empty(50), np.empty(50), np.empty(50)
    for start in (0, 12345, 2**63 + 7):
        counter = np.uint64(start)
        assert _draw_clocks(counter, inv, clocks) == _draw_antithetic(counter, inv, first, partner)
        np.testing.assert_array_equal(clocks, first)
        assert np.all(partner > 0) and np.all(np.isfinite(partner))


@pytest.mark.parametrize("n, options", [
    (1500, {"places": True}),  # counting places: a sample costs O(n)
    (200, {"variance_reduction": "conditional"}),  # O(n k) a sample
    (60, {"variance_reduction": "sobol"}),  # sets of 256 points
    (6, {}),
])
def test_a_batch_is_bounded_by_its_work(monkeypatch, n, options):
    """Ctrl-C waits for a batch: with many players a batch of the default cap (4 M samples) took seconds. The
    bound is a count of player-samples (x paid places when conditional), so seeds give the same numbers on
    every machine."""
    from pokerlab.icm import core as icm_core

    seen = []
    real = icm_core.run_until

    def recording(rule, components, sample_batch, **kwargs):
        seen.append(kwargs)
        return real(rule, components, sample_batch, **kwargs)

    monkeypatch.setattr(icm_core, "run_until", recording)
    paid = 30 if n >= 30 else 3
    icm(np.linspace(1, 2, n), power_law(paid), "montecarlo", samples=2048, seed=1, **options)
    (kwargs,) = seen
    unit = 256 if options.get("variance_reduction") == "sobol" else 1
    work = n * unit * (paid if options.get("variance_reduction") == "conditional" else 1)
    assert kwargs["max_batch"] * work <= icm_core.ICM_BATCH_WORK and kwargs["first_batch"] <= kwargs["max_batch"]


def test_kth_smallest_is_numpys_partition():
    """The quickselect of the paid places' partial selection against np.partition: sorted, reversed and shuffled
    keys, and keys built as the clock keys are (a value in the high bits, the index in the low 16); every k of
    the small sizes (the keys are distinct, as the clock keys are)."""
    from pokerlab.icm.sampling import _kth_smallest

    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 7, 64, 65, 301):
        shuffled = rng.permutation(np.arange(3 * n, dtype=np.int64))[:n]
        for keys in (np.sort(shuffled), np.sort(shuffled)[::-1].copy(), shuffled, (shuffled << 16) | np.arange(n)):
            for k in range(n) if n <= 65 else rng.integers(0, n, 40):
                scratch = np.empty(n, dtype=np.int64)
                assert _kth_smallest(keys, int(k), scratch) == np.partition(keys, int(k))[int(k)]
