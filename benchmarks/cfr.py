"""Benchmark of the solving engine: CFR, CFR+ and DCFR on Kuhn and Leduc, MCCFR on Leduc, OpenSpiel as peer.

Prints the workload, our time, the target, the peer's time and the ratio, and the machine. Numba kernels are
compiled (warmed) before any timed region; exploitability evaluations are excluded from the iteration times.
Run: ``python benchmarks/cfr.py`` (``--quick`` skips the 10,000-iteration Leduc runs and the OpenSpiel runs).
"""

from __future__ import annotations

import sys
import time

from _machine import machine_description
from pokerlab.solvers import Solver
from pokerlab.solvers.core import warm_kernels

CHECKPOINTS = (10, 100, 1000, 10_000)
TARGET_LEDUC_CFRPLUS_1000_S = 0.3


def convergence(game: str, algorithm: str, iterations: int) -> dict:
    """Iteration time (exploitability checks excluded), exploitability at checkpoints, time to 1e-3 / 1e-4."""
    solver = Solver(game, algorithm)
    spent = 0.0
    at: dict[int, float] = {}
    reach: dict[float, tuple[int, float]] = {}
    while solver.iteration < iterations:
        step = max(1, solver.iteration // 20)
        nxt = min(iterations, solver.iteration + step)
        for c in CHECKPOINTS:
            if solver.iteration < c < nxt:
                nxt = c
        t0 = time.perf_counter()
        solver.iterate(nxt - solver.iteration)
        spent += time.perf_counter() - t0
        e = solver.exploitability().exploitability
        if solver.iteration in CHECKPOINTS:
            at[solver.iteration] = e
        for target in (1e-3, 1e-4):
            if e <= target and target not in reach:
                reach[target] = (solver.iteration, spent)
    return {"time": spent, "iterations": solver.iteration, "at": at, "reach": reach}


def timed_iterations(game: str, algorithm: str, n: int, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        solver = Solver(game, algorithm, seed=1)
        t0 = time.perf_counter()
        solver.iterate(n)
        best = min(best, time.perf_counter() - t0)
    return best


def openspiel_cfr_plus(iterations: int) -> tuple[float, float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRPlusSolver(game)
    t0 = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    elapsed = time.perf_counter() - t0
    return elapsed, pyspiel.exploitability(game, solver.average_policy())


def openspiel_mccfr(kind: str, iterations: int) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    solver = (pyspiel.ExternalSamplingMCCFRSolver(game, seed=1) if kind == "es"
              else pyspiel.OutcomeSamplingMCCFRSolver(game, seed=1))
    t0 = time.perf_counter()
    for _ in range(iterations):
        solver.run_iteration()
    return iterations / (time.perf_counter() - t0)


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"machine: {machine_description()}")
    for sampling in ("full", "external", "outcome"):
        warm_kernels(sampling)
    Solver("leduc", "cfr").iterate(1)

    print("\n== CFR family: exploitability (chips/game) of the average strategy; alternating updates ==")
    header = f"{'game':6} {'algo':5} {'it/s':>9} " + " ".join(f"{'@' + format(c, ','):>10}" for c in CHECKPOINTS)
    print(header + f" {'to 1e-3':>16} {'to 1e-4':>16}")
    for game in ("kuhn", "leduc"):
        for algorithm in ("cfr", "cfr+", "dcfr"):
            n = 1000 if (quick and game == "leduc") else 10_000
            r = convergence(game, algorithm, n)
            rate = r["iterations"] / r["time"]
            cells = " ".join(f"{r['at'][c]:10.3e}" if c in r["at"] else f"{'-':>10}" for c in CHECKPOINTS)
            reach = " ".join(f"{r['reach'][t][1]:8.4f}s@{r['reach'][t][0]:<6}" if t in r["reach"]
                             else f"{'not reached':>16}" for t in (1e-3, 1e-4))
            print(f"{game:6} {algorithm:5} {rate:9,.0f} {cells} {reach}")

    print("\n== Target: 1,000 Leduc CFR+ iterations on one core ==")
    ours = timed_iterations("leduc", "cfr+", 1000)
    solver = Solver("leduc", "cfr+")
    solver.iterate(1000)
    ours_expl = solver.exploitability().exploitability
    print("workload: Leduc hold'em, CFR+ (alternating updates, linear averaging), 1,000 iterations")
    print(f"ours: {ours:.3f} s (best of 3), exploitability {ours_expl:.4e}; target <= {TARGET_LEDUC_CFRPLUS_1000_S} s: "
          f"{'met' if ours <= TARGET_LEDUC_CFRPLUS_1000_S else 'NOT met'}")
    peer = None if quick else openspiel_cfr_plus(1000)
    if peer is None:
        print("peer: OpenSpiel not installed (pip install 'pokerlab[bench]') or skipped (--quick)")
    else:
        print(f"peer: OpenSpiel C++ CFRPlusSolver {peer[0]:.2f} s, exploitability {peer[1]:.4e}; "
              f"ratio {peer[0] / ours:.1f}x faster; |difference in exploitability| {abs(peer[1] - ours_expl):.1e}")

    print("\n== Monte Carlo CFR on Leduc (one iteration = one traversal per player) ==")
    for algorithm, kind, n in (("es-mccfr", "es", 200_000), ("os-mccfr", "os", 500_000)):
        t = timed_iterations("leduc", algorithm, n, repeat=2)
        rate = n / t
        peer_rate = None if quick else openspiel_mccfr(kind, 20_000)
        solver = Solver("leduc", algorithm, seed=1)
        solver.iterate(n)
        line = (f"{algorithm}: {rate:,.0f} it/s, exploitability after {n:,} iterations "
                f"{solver.exploitability().exploitability:.3e}")
        if peer_rate is not None:
            line += f"; OpenSpiel C++ {peer_rate:,.0f} it/s; ratio {rate / peer_rate:.1f}x"
        print(line)


if __name__ == "__main__":
    main()
