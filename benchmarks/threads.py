"""One numba thread against two across work sizes, and the parallel-work thresholds the rows suggest.

Usage: python benchmarks/threads.py [--quick]   (about 1-2 minutes; ``--quick``: fewer sizes, under a minute)

The library runs a kernel call on one thread below a work size (``pokerlab.stats.threads.threads_for``):
``QUADRATURE_PARALLEL_MIN_WORK`` for exact ICM (work = band-kernel steps per node, ``n (sqrt(k) + 1)`` for ``n``
players and ``k`` paid places), ``MC_PARALLEL_MIN_WORK`` in ``pokerlab.icm.core`` for Monte Carlo ICM (work =
player-samples per batch, x 256 for a Sobol set) and ``MC_PARALLEL_MIN_WORK`` in ``pokerlab.equity.montecarlo``
for Monte Carlo equity (work = player-hands per batch). Here those thresholds are set to 0, so that every call
runs on the thread count set with ``numba.set_num_threads``; each row is the best of three interleaved medians
of per-call wall time (each median over about 0.2 s of calls). A Monte Carlo row's work is that of its largest batch
(batches double from the first). For each family the suggested threshold is the
geometric mean of the largest work where two threads were not at least ``WIN`` times faster and the smallest
work above it where they were at every size measured from there on.

Run it on a quiet machine (no other jobs; the header prints the load): under load a second thread waits for a
busy core and every threshold comes out too high. The printed suggestion is the number to put in the library.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from _machine import machine_description

WIN = 1.1
"""Two threads count as faster at a size when one thread takes at least this many times as long."""
BUDGET_S = 0.2
"""Seconds of calls behind each median."""

Case = tuple[str, float, Callable[[], object]]
"""A row: its label, its work (in the threshold's units) and the call timed."""


def numba_threads() -> int:
    """numba's thread count at start-up (``NUMBA_NUM_THREADS``; the typing stubs lack it)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def largest_batch(samples: int, first: int, cap: int) -> int:
    """The largest batch of a Monte Carlo call of ``samples`` samples whose batches double from ``first`` up to
    ``cap`` (:func:`pokerlab.stats.run_until`): the threshold applies per batch, and the largest batch holds at
    least half of the call's work, so a call's ratio is close to its largest batch's."""
    size, done, largest = min(first, samples), 0, 0
    while done < samples:
        size = min(size, samples - done)
        largest, done = max(largest, size), done + size
        size = min(max(size * 2, first), cap)
    return largest


def per_call(function: Callable[[], object]) -> float:
    """Median wall time of one call, over about :data:`BUDGET_S` of calls (at least 3)."""
    function()
    times: list[float] = []
    spent = 0.0
    while len(times) < 3 or (spent < BUDGET_S and len(times) < 200):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        spent += times[-1]
    return statistics.median(times)


def one_against_two(function: Callable[[], object]) -> tuple[float, float]:
    """Best of three interleaved per-call medians on one thread and on two."""
    import numba

    best = {1: math.inf, 2: math.inf}
    for _ in range(3):
        for threads in (1, 2):
            numba.set_num_threads(threads)
            best[threads] = min(best[threads], per_call(function))
    numba.set_num_threads(numba_threads())
    return best[1], best[2]


def suggested(rows: list[tuple[float, float]]) -> str:
    """The threshold the ``(work, one / two)`` rows suggest (see the module docstring)."""
    rows = sorted(rows)
    first_win = len(rows)
    for index in range(len(rows) - 1, -1, -1):
        if rows[index][1] < WIN:
            break
        first_win = index
    if first_win == len(rows):
        return f"above {rows[-1][0]:,.0f} (two threads were not {WIN}x faster at any size measured)"
    if first_win == 0:
        return f"at most {rows[0][0]:,.0f} (two threads were {WIN}x faster at every size measured)"
    low, high = rows[first_win - 1][0], rows[first_win][0]
    return f"{math.sqrt(low * high):,.0f} (between {low:,.0f} and {high:,.0f})"


def family(title: str, current: float, cases: list[Case]) -> None:
    """Print the rows of one family and its suggested threshold."""
    print(f"\n### {title} (threshold now {current:,.0f})\n")
    print("| problem | work | 1 thread | 2 threads | 1 thread / 2 threads |")
    print("|---|---|---|---|---|")
    ratios = []
    for label, work, function in cases:
        one, two = one_against_two(function)
        ratios.append((work, one / two))
        print(f"| {label} | {work:,.0f} | {1e3 * one:.3f} ms | {1e3 * two:.3f} ms | {one / two:.2f} |", flush=True)
    print(f"\nsuggested threshold: {suggested(ratios)}  (load {os.getloadavg()[0]:.1f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes (under a minute)")
    quick = parser.parse_args().quick
    started = time.perf_counter()
    import numpy as np

    from pokerlab.equity import equity, montecarlo
    from pokerlab.icm import core, icm

    print(f"## One thread against two ({machine_description()})")
    if numba_threads() < 2:
        sys.exit("numba has one thread here (NUMBA_NUM_THREADS): nothing to compare")
    if os.getloadavg()[0] > 0.5:
        print(f"\nWARNING: load {os.getloadavg()[0]:.1f}: other jobs share the cores, so two threads look slower "
              "than they are; rerun on a quiet machine before moving a threshold")
    thresholds = (core.QUADRATURE_PARALLEL_MIN_WORK, core.MC_PARALLEL_MIN_WORK, montecarlo.MC_PARALLEL_MIN_WORK)
    core.QUADRATURE_PARALLEL_MIN_WORK = core.MC_PARALLEL_MIN_WORK = montecarlo.MC_PARALLEL_MIN_WORK = 0

    exact: list[Case] = []
    for players in (11, 50, 100, 200, 300, 500) if quick else (11, 20, 50, 100, 150, 200, 300, 400, 500, 700, 1000):
        stacks = np.random.default_rng(players).uniform(1, 10, players)
        payouts = np.arange(max(3, players // 5), 0, -1.0)
        work = players * (math.sqrt(payouts.size) + 1.0)
        exact.append((f"exact ICM, {players} players, {payouts.size} paid", work,
                      partial(icm, stacks, payouts, "exact")))
    family("Exact ICM (quadrature): pokerlab.icm.core.QUADRATURE_PARALLEL_MIN_WORK", thresholds[0], exact)

    field, paid = np.random.default_rng(50).uniform(1, 10, 50), np.arange(10, 0, -1.0)
    sampled: list[Case] = []
    most = core.ICM_BATCH_WORK // 50
    for samples in (1_024, 4_096, 16_384, 65_536) if quick else (1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 131_072):
        work = largest_batch(samples, 16_384, most) * 50.0  # first batch: core._monte_carlo with a sample count
        sampled.append((f"Monte Carlo ICM (plain), 50 players, {samples:,} samples", work,
                        partial(icm, field, paid, "montecarlo", samples=samples, variance_reduction="plain", seed=1)))
    family("Monte Carlo ICM: pokerlab.icm.core.MC_PARALLEL_MIN_WORK (player-samples a batch; a Sobol set is 256)",
           thresholds[1], sampled)

    trials_rows: list[Case] = []
    for trials in (1_000, 10_000, 100_000, 1_000_000) if quick else (
            1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000):
        work = largest_batch(trials, 1 << 14, montecarlo.max_batch(2)) * 2.0  # montecarlo.run_monte_carlo's batches
        trials_rows.append((f"Monte Carlo equity AsKs vs QQ on 2c3d4h, {trials:,} trials", work,
                            partial(equity, ["AsKs", "QQ"], board="2c3d4h", method="montecarlo", trials=trials,
                                    seed=1)))
    family("Monte Carlo equity: pokerlab.equity.montecarlo.MC_PARALLEL_MIN_WORK (player-hands a batch)",
           thresholds[2], trials_rows)
    print(f"\n{time.perf_counter() - started:.0f} s in all, load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
