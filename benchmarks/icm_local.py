"""Local ICM benchmark: one ICM-aware decision (the hero's equity when he folds, doubles up through a villain, or
loses to him) by :mod:`pokerlab.icm.local`, against exact ICM of the three outcomes (:func:`pokerlab.icm.icm`,
the exact quadrature, rtol 1e-11) measured in the same run on the same stacks.

Run: ``python benchmarks/icm_local.py [--sizes 100,1000,2000,10000] [--pairs 5]``. Fields: gamma-distributed
stacks (shape 2), 15% paid. ``banded`` payouts pay places 1-9 each their own amount and then bands of growing
width (9, 14, 22, ... places) one amount each, as large live and online tournaments do; ``dense`` pays every
place a different amount (power law), the worst case of local ICM (its cost grows with the payout levels within
the spread of the count of players out). Per row: the field's build (nodes and power sums, once per field), one
decision (CPU time per call, best of 5 rounds of many calls), exact ICM of the same three outcomes, their ratio,
and the largest error of local ICM over ``--pairs`` random hero/villain pairs, in fair shares (pool / players),
on the equities and on the differences a decision compares (double up - fold, lose - fold).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from _machine import best_time, machine_description
from pokerlab.icm import icm
from pokerlab.icm.local import LocalField, local_field, outcome_equities
from pokerlab.icm.payouts import power_law

CALLS = 200  # decisions per timed round


def banded(players: int, pool: float = 1e6) -> np.ndarray:
    """15% paid: places 1-9 their own amounts, then bands of growing width paying the band's mean."""
    paid = max(players * 15 // 100, 3)
    dense = power_law(paid, pool)
    pay = dense.copy()
    end, width = 9, 9
    while end < paid:
        stop = min(paid, end + width)
        pay[end:stop] = dense[end:stop].mean()
        end, width = stop, int(width * 1.5) + 1
    return pay


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,2000,10000")
    parser.add_argument("--pairs", type=int, default=5, help="hero/villain pairs whose error is measured")
    args = parser.parse_args()
    print(f"machine: {machine_description()}")
    sizes = [int(s) for s in args.sizes.split(",")]
    warm = local_field([5000.0, 3000.0] * 40, [50.0, 30.0, 20.0])
    outcome_equities(warm, np.array([0, 1]), np.array([[5000.0, 3000.0]]), np.empty(1))
    print(f"{'players':>8}{'payouts':>8}{'levels':>7}{'nodes':>6}{'build ms':>10}{'decision us':>12}"
          f"{'exact ms':>10}{'ratio':>8}{'err levels':>11}{'err diffs':>10}{'load':>6}")
    for n in sizes:
        for shape in ("banded", "dense"):
            if shape == "dense" and n > 2000:
                continue  # every place its own amount at 10,000 players: milliseconds, not the use case
            rng = np.random.default_rng(n)
            stacks = np.round(rng.gamma(2.0, 5000.0, n)) + 100.0
            pay = banded(n) if shape == "banded" else power_law(max(n * 15 // 100, 3), 1e6)
            start = time.perf_counter()
            field = local_field(stacks, pay)
            build = time.perf_counter() - start
            fair = pay.sum() / n
            worst_level = worst_diff = 0.0
            exact_s = []
            decision_s = []
            for _ in range(args.pairs):
                hero, villain = (int(v) for v in rng.choice(n, 2, replace=False))
                a, b = stacks[hero], stacks[villain]
                x = min(a, b)
                after = np.array([[a, b], [a + x, b - x], [a - x, b + x]])
                members = np.array([hero, villain])
                out = np.empty(3)
                def decide(field: LocalField = field, members: np.ndarray = members, after: np.ndarray = after,
                           out: np.ndarray = out) -> None:
                    for _ in range(CALLS):
                        outcome_equities(field, members, after, out)

                decision_s.append(best_time(decide, 5, time.process_time) / CALLS)
                start = time.perf_counter()
                exact = []
                for row in after:
                    s = stacks.copy()
                    s[[hero, villain]] = row
                    exact.append(icm(s, pay).equity[hero])
                exact_s.append(time.perf_counter() - start)
                err = np.abs(out - np.array(exact)) / fair
                worst_level = max(worst_level, float(err.max()))
                worst_diff = max(worst_diff, float(np.abs(np.diff(out) - np.diff(exact)).max() / fair))
            decision = float(np.median(decision_s))
            exact_time = float(np.median(exact_s))
            print(f"{n:>8}{shape:>8}{field.band_end.size:>7}{field.nodes.size:>6}{build * 1e3:>10.1f}"
                  f"{decision * 1e6:>12.1f}{exact_time * 1e3:>10.1f}{exact_time / decision:>8.0f}"
                  f"{worst_level:>11.1e}{worst_diff:>10.1e}{os.getloadavg()[0]:>6.1f}")


if __name__ == "__main__":
    main()
