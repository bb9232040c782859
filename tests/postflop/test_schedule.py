"""The DCFR schedule: postflop-solver's discounts, but the cumulative strategy restarts only up to iteration 16
(a restart at 64 made the average's exploitability jump)."""

from __future__ import annotations

from pokerlab.postflop import build_game
from pokerlab.solvers.postflop_cfr import LAST_RESET, PostflopSolver, discount


def peer_discount(t: int) -> tuple[float, float, float]:
    """postflop-solver's ``DiscountParams::new`` (src/solver.rs), restarts at every power of 4."""
    lower = 0 if t == 0 else 1 << ((t.bit_length() - 1) & ~1)
    a = max(t - 1, 0) ** 1.5
    return a / (a + 1), 0.5, ((t - lower) / (t - lower + 1)) ** 3


def test_discounts_are_postflop_solvers_until_the_last_restart() -> None:
    for t in range(4 * LAST_RESET):
        assert tuple(discount(t))[:3] == peer_discount(t)
    restarts = [t for t in range(5000) if discount(t).gamma == 0.0]
    assert restarts == [0, 1, 4, 16]
    assert discount(64).gamma == ((64 - 16) / (64 - 16 + 1)) ** 3 and discount(64).alpha == peer_discount(64)[0]


def test_no_jump_of_the_exploitability_at_iteration_64() -> None:
    """A turn spot where postflop-solver's restart at 64 multiplies the average's exploitability by 4.8 (0.298%
    of the pot after 64 iterations, 1.428% after 65); without it the next iteration does not raise it."""
    game, _ = build_game("Ah8h5h2d", "AKo, KQs, 77, 33, T9s, JcTc", "QQ, JJ, KJs, 65s, 98s, KdQd", pot=100,
                         stack=200, bets="50%, a", raises="a")
    solver = PostflopSolver(game)
    solver.run(iterations=64)
    before = solver.exploitability_percent()
    solver.run(iterations=65)
    assert solver.exploitability_percent() <= 1.05 * before
