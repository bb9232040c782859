"""Knockout bounties benchmark: the expected bounties of a field (exact by the subset recursion, plain numpy and
compiled; sampled orders for big fields) and push/fold with a bounty against the same solve without.

Run: ``python benchmarks/bounty.py``. No open peer computes bounty equity (HoldemResources Calculator and ICMIZER
are closed); the reference in the same run is this project's plain ICM of the same field, and for five players
the brute force over finishing orders and busters that the tests use. CPU times (``time.process_time``), best
of several calls, kernels compiled before any timed region.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from _machine import best_time, machine_description, row
from pokerlab.icm import bounty_equity, icm
from pokerlab.pushfold import pushfold


def brute_force(stacks: list[float], heads: list[float], share: float) -> np.ndarray:
    """Every Malmuth-Harville order and every buster assignment, busts played out (as tests/icm/test_bounty.py)."""
    n = len(stacks)
    won = np.zeros(n)
    for order in itertools.permutations(range(n)):
        p, left = 1.0, float(sum(stacks))
        for player in order:
            p *= stacks[player] / left
            left -= stacks[player]
        choices = [range(m) for m in range(1, n)]
        count = math.prod(len(c) for c in choices)
        for busters in itertools.product(*choices):
            head = list(heads)
            cash = np.zeros(n)
            for place in range(n - 1, 0, -1):
                busted, buster = order[place], order[busters[place - 1]]
                cash[buster] += share * head[busted]
                head[buster] += (1 - share) * head[busted]
            cash[order[0]] += head[order[0]]
            won += p / count * cash
    return won


def main() -> None:
    print(machine_description())
    bounty_equity([3.0, 2.0, 1.0], 1.0, method="exact")  # compile / load the kernel
    icm([3.0, 2.0, 1.0], [50.0, 30.0, 20.0], "exact")
    print("expected bounties, exact (CPU time per call):")
    five = [10.0, 20.0, 30.0, 40.0, 50.0]
    brute = best_time(lambda: brute_force(five, [1.0] * 5, 0.5), 3, time.process_time)
    ours = best_time(lambda: bounty_equity(five, 1.0, share=0.5), 20, time.process_time)
    row("5 players PKO, plain numpy", ours * 1e3, "ms", "", f"brute force {brute * 1e3:.3g} ms", f"{brute / ours:.0f}x")
    for n in (5, 10, 14, 18):
        stacks = np.linspace(1.0, 3.0, n)
        repeats = max(3, 2000 >> max(0, n - 8))
        for share in (1.0, 0.5):
            kernel = best_time(lambda s=stacks, r=share: bounty_equity(s, 1.0, share=r, method="exact"), repeats,
                               time.process_time)
            plain = (best_time(lambda s=stacks, r=share: bounty_equity(s, 1.0, share=r), repeats, time.process_time)
                     if n <= 10 else math.nan)
            plain_icm = best_time(lambda s=stacks: icm(s, [50.0, 30.0, 20.0]), repeats, time.process_time)
            row(f"{n} players, share {share:g}: kernel / plain numpy", kernel * 1e3, "ms",
                f"plain {plain * 1e3:.3g} ms", f"ICM of the field {plain_icm * 1e3:.3g} ms")
    print("expected bounties, sampled orders (the default count):")
    for n in (100, 1000, 10_000):
        stacks = np.linspace(1.0, 3.0, n)
        start = time.process_time()
        result = bounty_equity(stacks, 1.0, seed=1)
        spent = time.process_time() - start
        assert result.stderr is not None
        row(f"{n:,} players, {result.samples:,} orders", spent, "s", f"stderr <= {result.stderr.max():.2g}")
    print("push/fold heads-up, ICM with a field (6 vs 20 bb, field 15/15, 50/30/20), wall time of the solve:")
    pushfold([6.0, 20.0], payouts=[50, 30, 20], field=[15, 15], bounty=10.0, iterations=1)
    pushfold([6.0, 20.0], payouts=[50, 30, 20], field=[15, 15], iterations=1)
    for _ in range(2):  # interleaved
        plain = pushfold([6.0, 20.0], payouts=[50, 30, 20], field=[15, 15])
        knockout = pushfold([6.0, 20.0], payouts=[50, 30, 20], field=[15, 15], bounty=10.0)
        row("knockout 10 / no bounty", knockout.elapsed_s, "s", f"{knockout.iterations} it",
            f"no bounty {plain.elapsed_s:.3g} s, {plain.iterations} it", f"{knockout.elapsed_s / plain.elapsed_s:.2f}x")


if __name__ == "__main__":
    main()
