"""Monte Carlo: fixed seeds land within 4 standard errors of exact values; reproducible; honest stderr."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.equity import equity, equity_vs_random
from pokerlab.errors import InvalidArgumentError

CASES = [
    (["AsKs", "random"], "", 0.670446323092352),
    (["AhAs", "KdKc"], "", 0.812554896794),
    (["AA", "KK"], "", 0.819460504677),
    (["QQ+", "TT+"], "", 0.650482998346),
    (["AsKs", "AcJc"], "Js8s5d", 0.465656565657),
    (["AsAh", "QdQc", "9c3d"], "", 0.710113801115),
]


@pytest.mark.parametrize("players, board, exact", CASES)
def test_within_four_standard_errors_of_exact(players, board, exact):
    result = equity(players, board=board, method="montecarlo", trials=400_000, seed=7)
    assert result.method == "montecarlo" and result.showdowns == 400_000
    assert result.stderr is not None and 0 < result.stderr[0] < 2e-3
    assert abs(result.equity[0] - exact) < 4 * result.stderr[0]
    assert sum(result.equity) == pytest.approx(1.0, abs=1e-12)


def test_multiway_random_references(oracle):
    for case in oracle("equity")["monte_carlo_references"]:
        result = equity(case["players"], method="montecarlo", trials=300_000, seed=11)
        # the reference itself carries a standard error of about 2e-5
        assert abs(result.equity[0] - case["equity_approx"]) < 4 * np.hypot(result.stderr[0], 2e-5)


def test_wins_ties_and_breakdown_within_four_standard_errors_of_exact():
    # Monte Carlo counts showdowns by their set of winners and makes wins, ties and shares from those counts at
    # the end; the exact engine (an independent kernel) gives the true fractions. Two players with the same
    # ranks tie often, the third makes the sets of winners varied.
    players, board = ["AsKd", "AhKc", "7s6s"], "Qs8d2s"
    trials = 400_000
    sampled = equity(players, board=board, method="montecarlo", trials=trials, seed=5, breakdown=True)
    exact = equity(players, board=board, method="exact", breakdown=True)
    assert exact.tie[0] > 0.2 and exact.win[2] > 0.3

    def close(estimate: float, truth: float) -> bool:
        return abs(estimate - truth) <= 4 * np.sqrt(max(truth * (1 - truth), 1e-12) / trials) + 1e-12

    for p in range(3):
        assert close(sampled.win[p], exact.win[p]) and close(sampled.tie[p], exact.tie[p])
        for category, row in exact.breakdown[p].items():
            assert close(sampled.breakdown[p][category]["frequency"], row["frequency"])
            assert abs(sampled.breakdown[p][category]["equity"] - row["equity"]) <= 4 * sampled.stderr[p] + 1e-12


def test_sixteen_bit_draws_are_exactly_uniform():
    # Every 16-bit piece, fed to the draw one at a time, is either rejected or maps to one value, and each
    # value in [0, n) takes the same number of pieces: the draw has no bias (Lemire's method, exhaustively).
    from numba import njit

    from pokerlab.equity.kernels import _below16

    @njit
    def accepted_values(n):
        counts = np.zeros(n, dtype=np.int64)
        for piece in range(1 << 16):
            value, _, _, left = _below16(np.uint64(n), np.uint64(0), np.uint64(piece), np.uint64(1))
            if left == 0:  # the piece was used, not rejected (a rejection refills the buffer: 3 pieces left)
                counts[value] += 1
        return counts

    for n in (1, 3, 45, 50, 52, 1081, 1326, 65536):
        counts = accepted_values(n)
        assert counts.min() == counts.max() == (1 << 16) // n, n


def test_same_seed_same_result_and_different_seed_differs():
    a = equity(["AK", "QQ"], method="montecarlo", trials=100_000, seed=42)
    b = equity(["AK", "QQ"], method="montecarlo", trials=100_000, seed=42)
    c = equity(["AK", "QQ"], method="montecarlo", trials=100_000, seed=43)
    assert a.equity == b.equity and a.win == b.win
    assert a.equity != c.equity


def test_weighted_ranges_sampled_with_their_weights():
    exact = equity(["AKs:0.25, QQ", "JJ, AKo:0.5"], method="exact")
    sampled = equity(["AKs:0.25, QQ", "JJ, AKo:0.5"], method="montecarlo", trials=400_000, seed=3)
    assert abs(sampled.equity[0] - exact.equity[0]) < 4 * sampled.stderr[0]


def test_target_stderr_stops_when_reached():
    result = equity(["AhAs", "KdKc"], method="montecarlo", target_stderr=1e-3, seed=5)
    assert result.stop_reason == "precision"
    assert max(result.stderr) <= 1e-3 * 1.05


def test_time_limit_stops():
    result = equity(["AhAs", "KdKc"], method="montecarlo", time_limit=0.2, seed=5)
    assert result.stop_reason == "time"


def test_bad_monte_carlo_arguments():
    with pytest.raises(InvalidArgumentError):
        equity(["AA", "KK"], method="montecarlo", trials=0)
    with pytest.raises(InvalidArgumentError):
        equity(["AA", "KK"], method="montecarlo", target_stderr=-1)
    with pytest.raises(InvalidArgumentError):
        equity(["AA", "KK"], method="guess")


def test_versus_random_one_pass_matches_exact_and_multiway():
    result = equity_vs_random("AsKs", max_opponents=4, trials=400_000, seed=9)
    assert abs(result.equity[0] - 0.670446323092352) < 4 * result.stderr[0]
    assert abs(result.equity[1] - 0.50720) < 4 * np.hypot(result.stderr[1], 2e-5)
    assert list(result.equity) == sorted(result.equity, reverse=True)
    aces = equity_vs_random("AhAs", max_opponents=4, trials=400_000, seed=9)
    assert abs(aces.equity[3] - 0.55865) < 4 * np.hypot(aces.stderr[3], 2e-5)


def test_versus_random_on_a_river_matches_exact():
    board = "Ks7d2c9h3s"
    result = equity_vs_random("AsKd", max_opponents=1, board=board, trials=200_000, seed=2)
    exact = equity(["AsKd", "random"], board=board, method="exact")
    assert abs(result.equity[0] - exact.equity[0]) < 4 * result.stderr[0]


@pytest.mark.slow
def test_reported_stderr_matches_spread_over_seeds():
    estimates, reported = [], []
    for seed in range(40):
        result = equity(["AhKh", "QsQd"], method="montecarlo", trials=50_000, seed=seed)
        estimates.append(result.equity[0])
        reported.append(result.stderr[0])
    spread = np.std(estimates, ddof=1)
    # the sample standard deviation of 40 estimates is within about +-25% of the truth at 4 sigma
    assert 0.7 < spread / np.mean(reported) < 1.3
    assert abs(np.mean(estimates) - 0.462144572459) < 4 * np.mean(reported) / np.sqrt(len(estimates))


def test_convergence_table_and_png(tmp_path):
    pytest.importorskip("matplotlib")
    from pokerlab.equity.convergence import convergence_table, plot_convergence

    exact, rows = convergence_table(players=("AhAs", "KdKc"), trials=(1_000, 100_000), seed=3)
    assert exact == pytest.approx(0.812554896794, abs=1e-12)
    assert [row.trials for row in rows] == [1_000, 100_000]
    assert all(abs(row.error) < 4 * row.stderr for row in rows)
    assert plot_convergence(exact, rows, tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
