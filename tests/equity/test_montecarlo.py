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
