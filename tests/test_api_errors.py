"""Every bad argument to a public function raises a specific PokerlabError (never a bare TypeError,
AttributeError or FileNotFoundError), and nested or boolean stacks are refused rather than flattened."""

from __future__ import annotations

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
from pokerlab.solvers.core import Solver, solve
from pokerlab.solvers.regret_matching import regret_matching

HEADS_UP = ["AsKs", "QQ"]
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
