"""Equity benchmark: the workloads of issue 14 against OMPEval in the same run (interleaved, best of N, with
1 and 2 threads), range-level suit symmetry, and eval7 on hand vs range.

Run with ``make bench`` or ``.venv/bin/python benchmarks/equity.py [--ompeval PATH] [--repeats N]``. OMPEval is
built from a checkout given by ``--ompeval`` or ``$OMPEVAL_SRC`` (see ``benchmarks/_ompeval.py``); eval7 comes
from the ``bench`` extra. A missing peer is reported and its rows skipped. Timings never include compilation:
every kernel runs once before the clock starts.
"""

from __future__ import annotations

import os
import sys
import time

import numba

from _machine import best_time, machine_description, row
from _ompeval import OMPEval, source_path
from pokerlab.equity import equity

MC_TRIALS = 5_000_000
EXACT_CASES = [  # (our players, OMPEval's ranges)
    (["AhAs", "KdKc"], ["AhAs", "KdKc"]),
    (["AsAh", "QdQc", "9c3d"], ["AsAh", "QdQc", "9c3d"]),
    (["QQ+, AKs", "TT+, AQs+"], ["QQ+,AKs", "TT+,AQs+"]),
    (["AsKs", "random"], ["AsKs", "random"]),
]
MC_CASES = [
    (["AsKs", "QdQc"], ["AsKs", "QdQc"]),
    (["AhAs", "random", "random", "random", "random"], ["AhAs", "random", "random", "random", "random"]),
]
ORBIT_CASES = [(["AA", "random"], ["AsAh", "random"]), (["72o", "random"], ["7c2d", "random"]),
               (["QQ+, AKs", "TT+, AQs+"], ["QcQd", "TT+, AQs+"])]


def _repeats() -> int:
    if "--repeats" in sys.argv:
        return int(sys.argv[sys.argv.index("--repeats") + 1])
    return 5


def _interleaved(ours, theirs, repeats: int) -> tuple[float, float]:
    """Best of ``repeats`` for each, the two alternating so that both see the same machine load."""
    best_ours = best_theirs = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        ours()
        best_ours = min(best_ours, time.perf_counter() - start)
        if theirs is not None:
            best_theirs = min(best_theirs, theirs())
    return best_ours, best_theirs


def _ratio(ours: float, theirs: float, higher_is_better: bool = False) -> str:
    if theirs == float("inf"):
        return ""
    factor = theirs / ours if not higher_is_better else ours / theirs
    return f"ours {factor:.2f}x OMPEval's speed" if factor < 1 else f"ours {factor:.2f}x faster"


def main() -> None:
    repeats = _repeats()
    print(f"# Equity benchmark\nmachine: {machine_description()}")
    omp = OMPEval.build(source_path())
    start = time.perf_counter()
    for players, _ in EXACT_CASES + ORBIT_CASES:
        equity(players, method="exact")
    for players, _ in MC_CASES:
        equity(players, method="montecarlo", trials=10_000, seed=1)
    print(f"kernels ready in {time.perf_counter() - start:.1f} s (compiled or loaded from the cache; not timed below)")
    print(f"  {'workload':<46} {'ours':>12} {'unit':<10} {'target':<16} {'peer':<28} ratio")
    for threads in (1, 2):
        if threads > numba.config.NUMBA_NUM_THREADS:
            continue
        numba.set_num_threads(threads)
        for players, peer in EXACT_CASES:
            theirs = (lambda p=peer, t=threads: omp.seconds("exact", str(t), "0", "", "", *p)) if omp else None
            ours, best_peer = _interleaved(lambda p=players: equity(p, method="exact"), theirs, repeats)
            peer_text = f"OMPEval {best_peer * 1e3:.1f} ms" if omp else ""
            row(f"exact {' vs '.join(players)}, {threads} thr", ours * 1e3, "ms", "<= OMPEval", peer_text,
                _ratio(ours, best_peer))
        for players, peer in MC_CASES:
            theirs = ((lambda p=peer, t=threads: omp.seconds("montecarlo", str(t), str(MC_TRIALS), "", "", *p))
                      if omp else None)
            ours, best_peer = _interleaved(lambda p=players: equity(p, method="montecarlo", trials=MC_TRIALS,
                                                                    seed=1), theirs, max(2, repeats // 2))
            peer_text = f"OMPEval {MC_TRIALS / best_peer / 1e6:.1f} M/s" if omp else ""
            label = " vs ".join(players).replace("random vs random vs random vs random", "4 random")
            row(f"MC {label}, {threads} thr", MC_TRIALS / ours / 1e6, "M sd/s", ">= OMPEval", peer_text,
                _ratio(ours, best_peer))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for players, single in ORBIT_CASES:
        whole = best_time(lambda p=players: equity(p, method="exact"), repeats)
        one = best_time(lambda p=single: equity(p, method="exact"), repeats)
        row(f"exact {' vs '.join(players)} / {' vs '.join(single)}", whole / one, "x time", "AA: <= 1.1x")
    print(f"load after the runs: {os.getloadavg()[0]:.1f}")

    try:
        import eval7
    except ImportError:
        print("  eval7 not installed (pip install '.[bench]'): skipped")
        return

    def cards(text: str) -> list:
        return [eval7.Card(text[i:i + 2]) for i in range(0, len(text), 2)]

    # hand vs range, exact on the river: eval7 enumerates the range's combos; so do we (one board)
    for villain, board in (("QQ+, AQs+, 99", "Js8s5d2c7h"), ("random", "Js8s5d2c7h")):
        eval7_range = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32" if villain == "random"
                                      else villain)
        peer = best_time(lambda vr=eval7_range, b=board: eval7.py_hand_vs_range_exact(cards("AsKs"), vr, cards(b)),
                         5)
        ours = best_time(lambda v=villain, b=board: equity(["AsKs", v], board=b, method="exact"), 5)
        row(f"river exact AsKs vs {villain}", ours * 1e3, "ms", "", f"eval7 {peer * 1e3:.3f} ms",
            f"ours {peer / ours:.2f}x eval7's speed")
    # hand vs range, Monte Carlo (eval7 runs on one thread; we use all of ours)
    iterations = 2_000_000
    for villain, board in (("random", ""), ("QQ+, AQs+, 99", "Js8s5d")):
        eval7_range = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32" if villain == "random"
                                      else villain)
        peer = best_time(lambda vr=eval7_range, b=board: eval7.py_hand_vs_range_monte_carlo(
            cards("AsKs"), vr, cards(b), iterations), 2)
        ours = best_time(lambda v=villain, b=board: equity(["AsKs", v], board=b, method="montecarlo",
                                                           trials=iterations, seed=1), 2)
        row(f"MC AsKs vs {villain} {board or 'preflop'}", iterations / ours / 1e6, "M sd/s", "",
            f"eval7 {iterations / peer / 1e6:.1f} M/s (1 thread)", f"ours {peer / ours:.2f}x")


if __name__ == "__main__":
    main()
