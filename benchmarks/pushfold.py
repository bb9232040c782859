"""Push/fold benchmark: the issue's speed targets, the preflop table, and the effect of sampling 3+ way pots.

Run: ``python benchmarks/pushfold.py [--skip-field] [--skip-hard]`` (``--skip-hard``: leave out two nine-seat
cases, nine equal stacks and plain chip EV, up to two minutes each); ``--fullring [SEATS...]``: only the
full-ring chart spots (equal 10 bb stacks, chip EV, no ante) in the chart model against
``pokerlab.pushfold``'s solver on the same spots, interleaved, process CPU seconds (default seats 3 6). Kernels,
the preflop tables and the ICM engine are warmed before any timed region (compile time is never reported as
run time). Times are wall seconds of ``pokerlab.pushfold(...)`` including building the game (every outcome's
ICM), as a user sees them.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from _machine import best_time, machine_description
from pokerlab.equity.preflop import preflop_tables
from pokerlab.pushfold import pushfold

SIX = [12.0, 8.0, 15.0, 10.0, 9.0, 11.0]
NINE = [10.0, 12.0, 8.0, 15.0, 9.0, 11.0, 7.0, 14.0, 10.0]
FINAL_TABLE = [30.0, 20.0, 14.0, 10.0, 8.0, 6.0, 5.0, 4.0, 3.0]


def header() -> None:
    print(f"machine: {machine_description()}; load {os.getloadavg()[0]:.1f} (1 min)")
    flags = set()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("flags"):
                    flags = {f for f in line.split() if f.startswith("avx")}
                    break
    except OSError:
        pass
    print(f"instruction sets: {' '.join(sorted(flags)) or 'unknown'}")


def timed(label: str, goal: str, repeats: int = 1, **kwargs) -> object:
    """Best of ``repeats`` wall times of one ``pushfold`` call (the sampling check included, as a user runs it)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = pushfold(**kwargs)
        best = min(best, time.perf_counter() - start)
    check = "" if result.multiway_check_gain is None else f", on independent deals {result.multiway_check_gain:.2e}"
    print(f"  {label:<44} {best:8.2f} s  target {goal:<8} {result.iterations:5d} it  max gain "
          f"{result.max_gain:.2e} {result.gain_unit}{check} (stop: {result.stop_reason}; best of {repeats}, "
          f"load {os.getloadavg()[0]:.1f})", flush=True)
    return result


def warm() -> None:
    preflop_tables()
    pushfold([10, 10, 10], (0.5, 1), payouts=[50, 30, 20], iterations=8, multiway_samples=50)
    pushfold([10, 10], (0.5, 1), payouts=[50, 30, 20], field=[10.0] * 30, iterations=8)


def multiway_effect() -> None:
    """Solve 6-max ICM on uniform deals only (``multiway_proposal_share=0``) and with the redeal (the default),
    with 1,000 and 4,000 deals per 3+ way pot: each solve reports the strategy's gains in the game valued on
    independent deals (``multiway_check_gain``), the part of the gain that the sampling hides; and how far the
    jam-first-in ranges move between the sample sizes."""
    kwargs = {"stacks": SIX, "blinds": (0.5, 1.0), "ante": 0.1, "payouts": [50, 30, 20], "target": 1e-3}
    results = {}
    for share in (0.0, 0.5):
        for samples in (1000, 4000):
            start = time.perf_counter()
            r = results[share, samples] = pushfold(**kwargs, multiway_samples=samples, multiway_proposal_share=share)
            print(f"  6-max ICM, {'uniform deals' if share == 0 else 'redealt'}, {samples:,} deals: "
                  f"{time.perf_counter() - start:.2f} s, {r.iterations} it, max gain {r.max_gain:.2e} money in its "
                  f"own game, {r.multiway_check_gain:.2e} money on independent deals", flush=True)
    large = results[0.5, 4000]
    for key in ((0.0, 1000), (0.5, 1000), (0.0, 4000)):
        small = results[key]
        diffs = [abs(small.percent(small.jam[i]) - large.percent(large.jam[i])) for i in range(5)]
        print(f"  jam-first-in ranges, {key[1]:,} deals {'uniform' if key[0] == 0 else 'redealt'} vs 4,000 redealt: "
              f"largest difference {max(diffs):.2f} points of the 1,326 combos "
              f"(seats {', '.join(f'{d:.2f}' for d in diffs)})")


def fullring(seats: list[int]) -> None:
    """Chart spots: the chart model's solve (pokerlab.pushfold.fullring, to its chart target) and
    pokerlab.pushfold's (to 1e-3 bb, no sampling check), interleaved per seat count, CPU seconds."""
    from pokerlab.pushfold.fullring import solve_spot

    solve_spot(3, 10.0, "none")  # compile and the sampled pot tables, outside the timed regions
    pushfold([10.0] * 3, (0.5, 1), iterations=8, check_sampling=False)
    for n in seats:
        spot = solve_spot(n, 10.0, "none")
        print(f"  chart model, {n} seats 10 bb chip EV: {spot.cpu_s:8.1f} s CPU {spot.iterations:5d} it  max gain "
              f"{spot.max_gain:.2e} bb (load {os.getloadavg()[0]:.1f})", flush=True)
        cpu = time.process_time()
        result = pushfold([10.0] * n, (0.5, 1), target=1e-3, check_sampling=False)
        print(f"  pokerlab.pushfold, {n} seats 10 bb chip EV: {time.process_time() - cpu:8.1f} s CPU "
              f"{result.iterations:5d} it  max gain {result.max_gain:.2e} bb (load {os.getloadavg()[0]:.1f})",
              flush=True)


def main() -> None:
    header()
    if "--fullring" in sys.argv:
        fullring([int(a) for a in sys.argv[sys.argv.index("--fullring") + 1:] if a.isdigit()] or [3, 6])
        return
    start = time.perf_counter()
    preflop_tables.cache_clear()
    preflop_tables()
    print(f"preflop tables: load from the user cache {time.perf_counter() - start:.2f} s "
          "(first use expands the shipped counts: about 4 s; scripts/build_preflop_table.py: 284 s)")
    warm()
    hu = best_time(lambda: pushfold([10, 10], (0.5, 1), target=1e-4), repeats=5)
    result = pushfold([10, 10], (0.5, 1), target=1e-4)
    print(f"  {'heads-up 10 bb chip EV to 1e-4 bb (best of 5)':<44} {hu:8.3f} s  target 0.5 s    "
          f"{result.iterations:5d} it  max gain {result.max_gain:.2e} bb")
    timed("6 seats ICM 50/30/20, ante 0.1, to 1e-3", "5 s", 3, stacks=SIX, blinds=(0.5, 1), ante=0.1,
          payouts=[50, 30, 20], target=1e-3, time_limit=120)
    timed("9 seats final table ICM, ante 0.1, to 1e-3", "20 s", 2, stacks=NINE, blinds=(0.5, 1), ante=0.1,
          payouts=FINAL_TABLE, target=1e-3, time_limit=180)
    if "--skip-field" not in sys.argv:
        rng = np.random.default_rng(5)
        field = rng.uniform(4.0, 30.0, 991)
        pay = np.round(np.geomspace(1000.0, 15.0, 150), 2)
        timed("9 seats in a 1,000-player field ICM, to 1e-3", "60 s", stacks=NINE, blinds=(0.5, 1), ante=0.1,
              payouts=pay, field=field, target=1e-3, time_limit=180)
    if "--skip-hard" not in sys.argv:
        timed("9 equal 10 bb stacks ICM 50/30/20, to 1e-3", "-", stacks=[10.0] * 9, blinds=(0.5, 1),
              payouts=[50, 30, 20], target=1e-3, time_limit=120)
        timed("9 seats chip EV, ante 0.1, to 1e-3 bb", "-", stacks=NINE, blinds=(0.5, 1), ante=0.1, target=1e-3,
              time_limit=120)
    multiway_effect()


if __name__ == "__main__":
    main()
