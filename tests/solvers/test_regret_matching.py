"""Regret matching on matrix games against linear-programming solutions (scipy)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.games import MatrixGame, compiled, rps
from pokerlab.solvers import solve
from pokerlab.solvers.regret_matching import plot_convergence, regret_matching, solve_matrix_lp


def test_asymmetric_rps_converges_to_lp_equilibrium():
    value, x, y = solve_matrix_lp(rps(asymmetric=True).matrix)
    assert value == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(x, [0.25, 0.5, 0.25], atol=1e-9)
    result = regret_matching(rps(asymmetric=True), 50_000)
    np.testing.assert_allclose(result.average_row, x, atol=0.01)
    assert result.exploitability < 5e-3


@pytest.mark.parametrize("seed", range(4))
def test_random_matrices_against_linprog(seed):
    rng = np.random.default_rng(seed)
    payoff = rng.normal(size=(3 + seed, 4))
    value, _, _ = solve_matrix_lp(payoff)
    game = MatrixGame(payoff, name=f"random{seed}")
    result = regret_matching(game, 40_000)
    assert result.exploitability < 0.02
    # the value of an eps-equilibrium is within eps of the game value
    assert abs(result.value - value) <= 2 * result.exploitability + 1e-9
    # CFR+ on the same game as an extensive-form tree agrees with the LP as well
    cfr = solve(game, "cfr+", iterations=3000)
    assert abs(cfr.game_value - value) < 1e-2 and cfr.exploitability < 1e-2


def test_histories_are_distributions():
    result = regret_matching(rps(asymmetric=True), 100)
    for hist in (result.current_row_history, result.average_col_history):
        np.testing.assert_allclose(hist.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(InvalidArgumentError):
        regret_matching(rps(), 0)


def test_png_written(tmp_path):
    pytest.importorskip("matplotlib")
    path = plot_convergence(regret_matching(rps(asymmetric=True), 200), tmp_path / "rps.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rps_tree_value_zero():
    assert compiled("rps").sizes.infosets == 2  # one per player: the column player cannot see the row's move
    result = solve("rps", "cfr+", iterations=500)
    assert result.game_value == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(result.policy.probs, 1 / 3, atol=1e-6)
