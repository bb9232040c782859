"""Equity benchmark: the issue's exact and Monte Carlo workloads with their targets, and eval7 on the same
inputs (hand vs range exact on the river, Monte Carlo preflop and on the flop).

Run with ``make bench`` or ``.venv/bin/python benchmarks/equity.py``. eval7 comes from the ``bench`` extra;
when it is missing its rows are skipped.
"""

from __future__ import annotations

import time

import numba

from _machine import best_time, machine_description, row
from pokerlab.equity import equity

MC_TRIALS = 20_000_000


def main() -> None:
    threads = numba.config.NUMBA_NUM_THREADS
    print(f"# Equity benchmark\nmachine: {machine_description()}\nnumba threads: {threads}")
    start = time.perf_counter()
    for players in (["AsKs", "random"], ["AhAs", "KdKc"], ["AA", "KK"]):  # compile / load kernels
        equity(players, board="Js8s5d", method="exact")
        equity(players, method="montecarlo", trials=10_000, seed=1)
    print(f"kernels ready in {time.perf_counter() - start:.1f} s")
    print(f"  {'workload':<46} {'ours':>12} {'unit':<10} {'target':<16} {'peer':<28} ratio")

    exact_cases = [
        (["AsKs", "random"], "", "<= 1 s", 1),
        (["AhAs", "KdKc"], "", "<= 20 ms", 5),
        (["AA", "KK"], "", "<= 50 ms", 5),
        (["QQ+", "TT+"], "", "", 3),
        (["AsAh", "QdQc", "9c3d"], "", "", 3),
        (["AsKh", "random"], "", "", 2),
    ]
    for players, board, target, repeats in exact_cases:
        seconds = best_time(lambda p=players, b=board: equity(p, board=b, method="exact"), repeats)
        result = equity(players, board=board, method="exact")
        row(f"exact {' vs '.join(players)} ({result.showdowns:,} sd)", seconds, "s", target)

    mc_cases = [(["AsKs", "QdQc"], "", ">= 40 M/s"), (["AsKs", "random"], "", ""), (["AA", "KK"], "", ""),
                (["AsKs", "random", "random"], "", ""), (["AhAs", "random", "random", "random", "random"], "", "")]
    for players, board, target in mc_cases:
        seconds = best_time(lambda p=players, b=board: equity(p, board=b, method="montecarlo", trials=MC_TRIALS,
                                                               seed=1), 2)
        row(f"MC {' vs '.join(players)}, {threads} threads", MC_TRIALS / seconds / 1e6, "M sd/s", target)

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
