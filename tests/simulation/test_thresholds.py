"""pokerlab.simulation.thresholds: the all-in states, the scores over thresholds, and bad input. The simulated
thresholds against an exact chain are in test_oracles.py."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.simulation.thresholds import CallThreshold, after_all_in, call_thresholds, threshold_scores


def test_the_loser_of_an_all_in_between_equal_stacks_busts_and_is_paid_his_place():
    stacks, payouts = np.array([5.0, 5.0, 3.0, 1.0]), np.array([50.0, 30.0, 20.0])
    won = after_all_in(stacks, payouts, 1, 0, True)  # the jammer (seat 0) busts fourth of four: unpaid
    assert won.stacks.tolist() == [10.0, 3.0, 1.0] and won.caller == 0 and won.busted_prize == 0
    lost = after_all_in(stacks, payouts, 1, 0, False)
    assert lost.caller_busted and lost.busted_prize == 0
    three = after_all_in(np.array([5.0, 4.0, 2.0]), payouts, 0, 2, True)  # bust third of three: paid 20
    assert three.stacks.tolist() == [7.0, 4.0] and three.busted_prize == 20 and not three.caller_busted
    assert stacks.sum() == won.stacks.sum()  # chips are conserved


def _threshold(simulated: float, models: dict[str, float], outs: list[float]) -> CallThreshold:
    return CallThreshold(0, 1, 1.0, simulated, 0.0, np.array(outs), models)


def test_scores_take_the_model_differences_against_icm_with_their_sign():
    group = [_threshold(0.60, {"icm": 0.55, "power-icm": 0.59}, [0.60, 0.61, 0.59, 0.60]),
             _threshold(0.52, {"icm": 0.56, "power-icm": 0.53}, [0.52, 0.51, 0.53, 0.52])]
    scores = {s.model: s for s in threshold_scores([group])}
    assert scores["icm"].mse_minus_icm == 0 and scores["icm"].rms == pytest.approx(np.sqrt((0.05**2 + 0.04**2) / 2))
    assert scores["power-icm"].mse_minus_icm == pytest.approx((0.01**2 + 0.01**2 - 0.05**2 - 0.04**2) / 2)
    assert scores["power-icm"].mse_minus_icm_stderr > 0
    assert scores["chip-ev"].rms == pytest.approx(np.sqrt((0.1**2 + 0.02**2) / 2))


@pytest.mark.parametrize(("stacks", "pairs", "message"), [
    ([5, 3], [(0, 1)], "at least 3 players"),
    ([5, 3, 2], [(0, 0)], "two different players"),
    ([5, 3, 2], [(0, 3)], "two different players"),
])
def test_bad_input_says_what_to_change(stacks: list[int], pairs: list[tuple[int, int]], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        call_thresholds(stacks, [60, 40], pairs, continuations=500, seed=1, bet=1)
    with pytest.raises(InvalidArgumentError, match="continuations"):
        call_thresholds([5, 3, 2], [60, 40], [(0, 1)], continuations=10, seed=1, bet=1)


def test_a_call_that_changes_nobodys_money_is_refused_before_any_work():
    """Flat payouts with every player left paid: winning and losing pay the same, so no equity is required."""
    with pytest.raises(InvalidArgumentError, match="as much losing as winning"):
        call_thresholds([5, 3, 2], [50, 50, 50], [(0, 1)], continuations=500, seed=1, bet=1)


def test_a_model_only_some_thresholds_have_is_not_scored():
    """Malmuth-Weitzman is exact (and given) up to 16 players only: over snapshots of 16 and 17 players it is left
    out of the scores rather than read as chip EV's 0.5 where it is missing."""
    small = _threshold(0.60, {"icm": 0.55, "power-icm": 0.59, "malmuth-weitzman": 0.62}, [0.60, 0.61, 0.59, 0.60])
    big = _threshold(0.52, {"icm": 0.56, "power-icm": 0.53}, [0.52, 0.51, 0.53, 0.52])
    assert [s.model for s in threshold_scores([[small], [big]])] == ["icm", "power-icm", "chip-ev"]
