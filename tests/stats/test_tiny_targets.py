"""A precision target far below what floating point resolves (1e-300) is a target out of reach, never a
ZeroDivisionError or OverflowError (issue 26: it answered 500 on the web and a traceback on the CLI)."""

from __future__ import annotations

import numpy as np

from pokerlab.stats.stopping import MOST_SAMPLES, RunningMoments, StoppingRule, out_of_reach


def test_samples_needed_for_a_tiny_target_is_a_count_no_run_makes():
    for target in (1e-300, 5e-324, 1e-160):
        rule = StoppingRule(half_width=target, time_limit=1.0)
        assert rule.samples_needed(np.array([0.25, 0.1])) == MOST_SAMPLES
    moments = RunningMoments(1)
    moments.add_sums(np.array([600.0]), np.array([600.0]), 2000)
    rule = StoppingRule.from_stderr(1e-300, time_limit=1.0)
    assert rule.reason_to_stop(moments, 0.1) is None and rule.reason_to_stop(moments, 1.0) == "time"
    assert 0 < rule.next_batch(moments, 0.1, 4096) <= 4096


def test_samples_needed_agrees_with_the_closed_form():
    rule = StoppingRule(half_width=0.01, confidence=0.95, time_limit=1.0)
    # z^2 s^2 / d^2 = 1.959964^2 * 0.25 / 1e-4 = 9603.6
    assert rule.samples_needed(np.array([0.25])) == 9604


def test_out_of_reach_says_what_the_time_allows():
    assert out_of_reach(1e-3, 1e-3, 0.5, 600.0, what="x") is None
    message = out_of_reach(1e-300, 1e-3, 0.5, 600.0, what="--stderr 1e-300")
    assert message is not None and "far longer than the age of the universe" in message
    # an error falls as 1/sqrt(time): 1e-3 in 0.5 s gives 1e-3 * sqrt(0.5 / 600) in 600 s
    assert f"allow about {1e-3 * (0.5 / 600) ** 0.5:.2g}" in message
