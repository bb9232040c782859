"""The exact quadrature in short kernel calls (Ctrl-C is seen between them, progress moves): the equities and the
finish-place matrix are the same bit for bit however the work is split, against the whole integration in one
call; Ctrl-C sent during a call is held until the call ends and stops the integration there."""

from __future__ import annotations

import math
import os
import signal

import numpy as np
import pytest

from pokerlab.errors import Interrupted
from pokerlab.icm import banded, core, gauss_kronrod, icm, power_law, race, truncated_normal_stacks


def fields() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(5)
    skewed = np.concatenate([[300.0], rng.uniform(0.01, 3.0, 199)])
    return [
        ("normal 50/40", truncated_normal_stacks(50, seed=50), power_law(40, 1000.0, 1.0)),
        ("skewed 200/30", skewed, np.linspace(100.0, 1.0, 30)),
        ("normal 2048/307", truncated_normal_stacks(2048, seed=2048), power_law(307, 1000.0, 1.0)),
    ]


def integration(stacks: np.ndarray, pay: np.ndarray) -> tuple[banded.RaceQuadrature, np.ndarray, int]:
    """The equity integral of a field as the façade sets it up, and its result in one call (the oracle)."""
    s = stacks / stacks.mean()
    pay = np.ascontiguousarray(pay, dtype=np.float64)
    n, k = s.size, pay.size
    w_end = race.race_variable(s, race.tail_time(s, k, math.log(1e-18)))[0]
    log_eps = banded.DEFAULT_LOG_EPS + 2 * math.log(n)
    floor = 1e-3 * pay.sum() / n
    problem = banded.RaceQuadrature(s, pay, *core.gk15(), core._block(n, k), log_eps,
                                    w_end, gauss_kronrod.acceptance_tolerance(core.DEFAULT_RTOL), floor)
    total, evaluations = banded.race_equity_adaptive(s, pay, w_end, core.DEFAULT_RTOL, floor, problem.block,
                                                     log_eps, *core.gk15(), 2)
    return problem, total, int(evaluations)


@pytest.mark.parametrize("name, stacks, pay", fields(), ids=lambda x: x if isinstance(x, str) else "")
def test_equity_in_any_split_is_the_one_call_result(name, stacks, pay):
    problem, whole, evaluations = integration(stacks, pay)
    n, k = problem.stacks.size, problem.pay.size
    for budget, min_group, threads in ((1, 1, 2), (7, 2, 2), (40, 3, 4), (1000, 2, 2)):
        scratch = banded.thread_scratch(threads, n, k, problem.block)
        state = banded.adaptive_start(n, problem.w_end)
        calls = 0
        while not state.step[banded.DONE]:
            state = banded.race_equity_advance(problem, state, scratch, budget, min_group)
            calls += 1
        np.testing.assert_array_equal(state.total, whole)  # bit for bit
        assert state.step[banded.EVALUATIONS] == evaluations
        assert calls >= evaluations // max(budget, 15 * min_group)  # it was split as asked


def test_the_facade_in_short_calls_gives_the_same_equities_and_reports_progress(monkeypatch):
    stacks, pay = truncated_normal_stacks(2048, seed=2048), power_law(307, 1000.0, 1.0)
    whole = icm(stacks, pay, "exact")
    monkeypatch.setattr(core, "QUADRATURE_FIRST_WORK", 1.0)  # the first call one node, then ~1 ms calls
    monkeypatch.setattr(gauss_kronrod, "CALL_SECONDS", 1e-3)
    seen: list[float] = []
    split = icm(stacks, pay, "exact", progress=seen.append)
    np.testing.assert_array_equal(split.equity, whole.equity)
    assert split.nodes == whole.nodes
    assert len(seen) > 5 and seen == sorted(seen) and seen[-1] == 1.0 and 0 < seen[0] < 0.5


def test_place_matrix_in_short_calls_is_the_same(monkeypatch):
    stacks, pay = truncated_normal_stacks(300, seed=3), power_law(45, 1000.0, 1.0)
    whole = icm(stacks, pay, "exact", places=True)
    monkeypatch.setattr(core, "QUADRATURE_FIRST_WORK", 1.0)
    monkeypatch.setattr(gauss_kronrod, "CALL_SECONDS", 1e-4)
    seen: list[float] = []
    split = icm(stacks, pay, "exact", places=True, progress=seen.append)
    np.testing.assert_array_equal(split.places, whole.places)
    np.testing.assert_array_equal(split.equity, whole.equity)
    assert len(seen) > 5 and seen == sorted(seen) and seen[-1] == 1.0


@pytest.mark.parametrize("places", [False, True])
def test_ctrl_c_during_a_call_stops_after_it(monkeypatch, places):
    """SIGINT arriving while a kernel call runs is held until the call has returned (no half-updated state, no
    SystemError from inside compiled code), then the integration stops with one clear error."""
    monkeypatch.setattr(core, "QUADRATURE_FIRST_WORK", 1.0)
    monkeypatch.setattr(gauss_kronrod, "CALL_SECONDS", 1e-3)
    module, name = (race, "icm_places_nodes") if places else (banded, "race_equity_advance")
    kernel = getattr(module, name)
    calls = []

    def interrupted_call(*args):
        calls.append("began")
        if calls.count("began") == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C now, inside the second call
        result = kernel(*args)
        calls.append("ended")  # the call went on to its end
        return result

    monkeypatch.setattr(module, name, interrupted_call)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(Interrupted, match=r"during the exact .*\([\d.]+ s, about \d+% done\); "
                                              r"method='montecarlo' estimates sooner"):
            icm(truncated_normal_stacks(300, seed=3), power_law(45, 1000.0, 1.0), "exact", places=places)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls == ["began", "ended"] * 2  # stopped right after the interrupted call, which completed


def test_a_place_matrix_too_big_is_refused_before_any_work(monkeypatch):
    """50,000 players x 7,000 places would need ~260 GiB: refused at once, not after the 16 s of equities."""
    from pokerlab.errors import ResourceLimitError

    def no_work(*args, **kwargs):
        raise AssertionError("the quadrature ran before the memory check")

    monkeypatch.setattr(core, "_quadrature_equity", no_work)
    with pytest.raises(ResourceLimitError, match=r"finish-place matrix of 50,000 players x 7,000 places needs about"):
        icm(np.linspace(1.0, 2.0, 50_000), power_law(7000, 1000.0, 1.0), "exact", places=True)
