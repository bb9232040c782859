# ruff: noqa: E501 - one case per line: a table reads better than wrapped rows
"""Every bad argument to a public function raises a specific PokerlabError (never a bare TypeError,
AttributeError or FileNotFoundError), and nested or boolean stacks are refused rather than flattened."""

from __future__ import annotations

import datetime

import pytest

from pokerlab.cards.evaluator import evaluate_hand
from pokerlab.cards.ranges import parse_range
from pokerlab.equity import equity
from pokerlab.errors import (
    FileFormatError,
    InvalidArgumentError,
    InvalidCardError,
    InvalidPayoutsError,
    InvalidStacksError,
    PokerlabError,
    ResourceLimitError,
)
from pokerlab.games import rps
from pokerlab.icm import icm, parse_payouts, power_law
from pokerlab.icm.analysis import bubble_factors, deal
from pokerlab.pushfold import pushfold
from pokerlab.simulation import simulate
from pokerlab.simulation.analysis import compare_models
from pokerlab.solvers.core import Solver, solve
from pokerlab.solvers.regret_matching import regret_matching

HEADS_UP = ["AsKs", "QQ"]
WHEN = datetime.datetime(2026, 1, 1)
SIM = {"payouts": [60, 40], "bet": 1, "tournaments": 10, "seed": 1, "workers": 0}
CASES = [
    ("equity(None)", lambda: equity(None), InvalidArgumentError),
    ("equity('AsKs')", lambda: equity("AsKs"), InvalidArgumentError),
    ("equity([None, 'QQ'])", lambda: equity([None, "QQ"]), PokerlabError),
    ("equity board=5", lambda: equity(HEADS_UP, board=5), InvalidCardError),
    ("equity board=[True]", lambda: equity(HEADS_UP, board=[True, 1, 2]), InvalidCardError),
    ("equity trials='x'", lambda: equity(HEADS_UP, method="montecarlo", trials="x"), InvalidArgumentError),
    ("equity trials=True", lambda: equity(HEADS_UP, method="montecarlo", trials=True), InvalidArgumentError),
    ("equity time_limit='1'", lambda: equity(HEADS_UP, method="montecarlo", time_limit="1"), InvalidArgumentError),
    ("equity trials=1e15", lambda: equity(HEADS_UP, method="montecarlo", trials=10**15), ResourceLimitError),
    ("icm(None, None)", lambda: icm(None, None), InvalidStacksError),
    ("icm nested stacks", lambda: icm([[5000], [3000]], [50]), InvalidStacksError),
    ("icm ragged stacks", lambda: icm([[5000, 1], [3000]], [50]), InvalidStacksError),
    ("icm boolean stacks", lambda: icm([True, False], [50]), InvalidStacksError),
    ("icm text stacks", lambda: icm("5000,3000", [50]), InvalidStacksError),
    ("icm one number", lambda: icm(5000, [50]), InvalidStacksError),
    ("icm payouts None", lambda: icm([5, 3], None), InvalidPayoutsError),
    ("icm payouts overflow", lambda: icm([5, 3], [1e308, 1e308]), InvalidPayoutsError),
    ("icm samples='x'", lambda: icm([5, 3], [50], "montecarlo", samples="x"), InvalidArgumentError),
    ("icm samples=True", lambda: icm([5, 3], [50], "montecarlo", samples=True), InvalidArgumentError),
    ("icm samples=1e15", lambda: icm([5, 3], [50], "montecarlo", samples=10**15), ResourceLimitError),
    ("icm rtol=None", lambda: icm([5, 3], [50], rtol=None), InvalidArgumentError),
    ("icm time_limit='2'", lambda: icm([5, 3], [50], "montecarlo", time_limit="2"), InvalidArgumentError),
    ("solve(None)", lambda: solve(None), InvalidArgumentError),
    ("solve iterations='x'", lambda: solve("kuhn", iterations="x"), InvalidArgumentError),
    ("solve time_limit='x'", lambda: solve("kuhn", time_limit="x"), InvalidArgumentError),
    ("solve iterations=1e18", lambda: solve("kuhn", iterations=10**18), ResourceLimitError),
    ("solve missing resume", lambda: solve("kuhn", resume="/nonexistent/run.npz"), InvalidArgumentError),
    ("Solver.load(None)", lambda: Solver.load(None), InvalidArgumentError),
    ("Solver.load(missing)", lambda: Solver.load("/nonexistent/run.npz"), InvalidArgumentError),
    ("evaluate_hand(None)", lambda: evaluate_hand(None), InvalidCardError),
    ("evaluate_hand(5)", lambda: evaluate_hand(5), InvalidCardError),
    ("parse_range(None)", lambda: parse_range(None), PokerlabError),
    ("parse_payouts(None)", lambda: parse_payouts(None), InvalidPayoutsError),
    ("parse_payouts rising", lambda: parse_payouts("20,30"), InvalidPayoutsError),
    ("power_law('x')", lambda: power_law("x"), InvalidPayoutsError),
    ("power_law pool='x'", lambda: power_law(3, pool="x"), InvalidPayoutsError),
    ("bubble_factors(None)", lambda: bubble_factors(None, [1]), InvalidStacksError),
    ("deal payouts 'x'", lambda: deal([5, 3], "x"), InvalidPayoutsError),
    ("regret_matching(None)", lambda: regret_matching(None), InvalidArgumentError),
    ("regret_matching 'x'", lambda: regret_matching(rps(), "x"), InvalidArgumentError),
    ("pushfold nested stacks", lambda: pushfold([[10], [10]]), InvalidStacksError),
    ("pushfold boolean stacks", lambda: pushfold([True, True]), InvalidStacksError),
    ("pushfold text stacks", lambda: pushfold("10,10"), InvalidStacksError),
    ("pushfold string items", lambda: pushfold(["10", "10"]), InvalidStacksError),
    ("pushfold complex stacks", lambda: pushfold([10 + 1j, 10]), InvalidStacksError),
    ("pushfold datetime stacks", lambda: pushfold([WHEN, WHEN]), InvalidStacksError),
    ("pushfold nested blinds", lambda: pushfold([10, 10], [[0.5, 1]]), InvalidArgumentError),
    ("pushfold boolean blinds", lambda: pushfold([10, 10], [True, True]), InvalidArgumentError),
    ("pushfold payouts nested", lambda: pushfold([10, 10], payouts=[[60], [40]]), InvalidPayoutsError),
    ("pushfold field booleans", lambda: pushfold([10, 10], payouts=[60, 40], field=[True]), InvalidStacksError),
    ("pushfold ante='1'", lambda: pushfold([10, 10], ante="1"), InvalidArgumentError),
    ("pushfold ante=None", lambda: pushfold([10, 10], ante=None), InvalidArgumentError),
    ("pushfold target='x'", lambda: pushfold([10, 10], target="x"), InvalidArgumentError),
    ("pushfold target=nan", lambda: pushfold([10, 10], target=float("nan")), InvalidArgumentError),
    ("pushfold iterations='5'", lambda: pushfold([10, 10], iterations="5"), InvalidArgumentError),
    ("pushfold iterations=True", lambda: pushfold([10, 10], iterations=True), InvalidArgumentError),
    ("pushfold time_limit='1'", lambda: pushfold([10, 10], time_limit="1"), InvalidArgumentError),
    ("pushfold multiway_samples=2.5", lambda: pushfold([10, 10, 10], multiway_samples=2.5), InvalidArgumentError),
    ("pushfold multiway_samples=1e9 10 seats", lambda: pushfold([10] * 10, multiway_samples=10**9), ResourceLimitError),
    ("pushfold seed='x'", lambda: pushfold([10, 10], seed="x"), InvalidArgumentError),
    ("pushfold seed=-1", lambda: pushfold([10, 10], seed=-1), InvalidArgumentError),
    ("pushfold progress=5", lambda: pushfold([10, 10], progress=5), InvalidArgumentError),
    ("pushfold check_sampling='no'", lambda: pushfold([10, 10], check_sampling="no"), InvalidArgumentError),
    ("pushfold stacks 1e300", lambda: pushfold([1e300, 1e300]), InvalidStacksError),
    ("simulate nested stacks", lambda: simulate([[5], [3], [2]], **SIM), InvalidStacksError),
    ("simulate boolean stacks", lambda: simulate([True, True, True], **SIM), InvalidStacksError),
    ("simulate text stacks", lambda: simulate("5,3,2", **SIM), InvalidStacksError),
    ("simulate complex stacks", lambda: simulate([5 + 1j, 3, 2], **SIM), InvalidStacksError),
    ("simulate datetime stacks", lambda: simulate([WHEN, WHEN], **SIM), InvalidStacksError),
    ("simulate nested payouts", lambda: simulate([5, 3, 2], [[60], [40]], bet=1, workers=0), InvalidPayoutsError),
    ("simulate play=5", lambda: simulate([5, 3, 2], [60, 40], play=5, workers=0), InvalidArgumentError),
    ("simulate play mix 1.6", lambda: simulate([5, 3, 2], [60, 40], play="rules:0.8,tight:0.8"), InvalidArgumentError),
    ("simulate schedule='x'", lambda: simulate([5, 3, 2], [60, 40], schedule="x"), InvalidArgumentError),
    ("simulate start_level='1'", lambda: simulate([5, 3, 2], [60, 40], start_level="1"), InvalidArgumentError),
    ("simulate start_level=True", lambda: simulate([5, 3, 2], [60, 40], start_level=True), InvalidArgumentError),
    ("simulate snapshots=[True]", lambda: simulate([5, 3, 2], [60, 40], snapshots=[True]), InvalidArgumentError),
    ("simulate snapshots='final'", lambda: simulate([5, 3, 2], [60, 40], snapshots="final"), InvalidArgumentError),
    ("simulate starting_stack with stacks", lambda: simulate([5, 3, 2], [60, 40], starting_stack=5), InvalidArgumentError),
    ("simulate seed=2**64", lambda: simulate([5, 3, 2], [60, 40], seed=2**64), InvalidArgumentError),
    ("simulate seed='1'", lambda: simulate([5, 3, 2], [60, 40], seed="1"), InvalidArgumentError),
    ("simulate tournaments=1.5", lambda: simulate([5, 3, 2], [60, 40], tournaments=1.5), InvalidArgumentError),
    ("simulate ray=''", lambda: simulate([5, 3, 2], [60, 40], ray=""), InvalidArgumentError),
    ("simulate ray=5", lambda: simulate([5, 3, 2], [60, 40], ray=5), InvalidArgumentError),
    ("simulate checkpoint=5", lambda: simulate([5, 3, 2], [60, 40], checkpoint=5), InvalidArgumentError),
    ("simulate checkpoint=''", lambda: simulate([5, 3, 2], [60, 40], checkpoint=""), InvalidArgumentError),
    ("simulate progress=5", lambda: simulate([5, 3, 2], [60, 40], progress=5), InvalidArgumentError),
    ("simulate records='yes'", lambda: simulate([5, 3, 2], [60, 40], records="yes"), InvalidArgumentError),
    ("simulate 10^9 tournaments of 100,000", lambda: simulate(None, [50, 30, 20], players=100_000, tournaments=10**9), ResourceLimitError),
    ("compare_models continuations=0", lambda: compare_models([5, 3, 2], [60, 40], continuations=0), InvalidArgumentError),
]


@pytest.mark.parametrize(("call", "expected"), [(c, e) for _, c, e in CASES], ids=[n for n, _, _ in CASES])
def test_bad_argument_raises_a_pokerlab_error(call, expected):
    with pytest.raises(expected) as caught:
        call()
    assert isinstance(caught.value, PokerlabError) and str(caught.value)


def test_rising_payouts_parse_when_asked():
    assert parse_payouts("20,30", allow_rising=True).tolist() == [20.0, 30.0]


def test_a_corrupt_file_is_a_format_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    with pytest.raises(FileFormatError):
        Solver.load(bad)


def test_continuations_errors_speak_of_continuations():
    with pytest.raises(InvalidArgumentError, match="^continuations must be from 1"):
        compare_models([5, 3, 2], [60, 40], continuations=0)


def test_the_multiway_samples_refusal_advises_a_maximum_in_deals():
    """The advised maximum is a number of deals that fits (it was the count of deals x pots x seats, 10,000x
    too large at 10 seats)."""
    import re

    from pokerlab.limits import check_multiway_deals, multiway_deals_fit

    with pytest.raises(ResourceLimitError) as caught:
        check_multiway_deals(10, 10**9)
    most = int(re.search(r"ask for at most ([\d,]+)", str(caught.value)).group(1).replace(",", ""))
    assert multiway_deals_fit(10, most // 2) and not multiway_deals_fit(10, 2 * most)
