"""Added full-ring chart spots against what a player read there before: each spot of a chart file NEW that an OLD one
lacks, played in the real game (``pokerlab.pushfold.fullring_real.measure_chart``, the same joint deals for both) by
its own chart and by the OLD file's nearest shipped depth (what ``pokerlab pushfold --chart full-ring`` showed for
that depth before), neither with over-call ranges (withheld at these spots, as the chart files' rule has it).

Run: ``python benchmarks/fullring_reading.py OLD NEW [--deals 200000] [--seed 5] [--json out.json]``, where OLD and
NEW are chart files (``git show REV:src/pokerlab/data/fullring_charts.npz > old.npz``). Per spot: the largest seat's
cross-fitted gain (bb) of each reading with its standard error, and which is better beyond 3 standard errors of
their difference (the two are measured on the same deals, so the difference's error is at most the sum of theirs:
this counts conservatively); then the counts by distance to the former nearest depth. CPU time per spot is a few
seconds (ten seats: about 5 s).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from _machine import machine_description
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import FullRingChart, full_ring_chart, read_charts, spot_row
from pokerlab.pushfold.fullring_real import DEALS, SEED, measure_chart


def largest(chart: FullRingChart, deals: int, seed: int) -> tuple[float, float, float]:
    """The largest seat's cross-fitted gain, its standard error, and the seats' sum of cross-fitted gains (bb)."""
    measured = measure_chart(replace(chart, overcall=None), deals=deals, seed=seed)
    seat = int(np.argmax(measured.low))
    return float(measured.low[seat]), float(measured.low_errors[seat]), float(measured.low.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--deals", type=int, default=DEALS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--json", type=Path, help="write every spot's row here")
    parser.add_argument("--done", type=Path, help="a --json file of an earlier run: its spots are taken from it, "
                                                   "not measured again")
    args = parser.parse_args()
    old, new = read_charts(args.old), read_charts(args.new)
    added = [(int(k[0]), float(k[1]), list(ANTES)[int(k[2])]) for k in new.key
             if spot_row(old.key, int(k[0]), float(k[1]), list(ANTES)[int(k[2])]) is None and int(k[0]) >= 3]
    print(f"machine: {machine_description()}; {len(added)} added spots of 3+ seats; {args.deals} deals, seed "
          f"{args.seed}", flush=True)
    rows: list[dict[str, Any]] = []
    done = {tuple(r["spot"]): r for r in json.loads(args.done.read_text())} if args.done else {}
    verdicts: Counter[tuple[float, str]] = Counter()
    for seats, depth, ante in added:
        if (seats, depth, ante) in done:
            row = done[(seats, depth, ante)]
            rows.append(row)
            verdicts[(abs(row["former_depth"] - depth), row["verdict"])] += 1
            continue
        cpu = time.process_time()
        own_chart = full_ring_chart(seats, depth, ante, new)
        former = full_ring_chart(seats, depth, ante, old)
        own = largest(own_chart, args.deals, args.seed)
        nearest = largest(replace(former, depth_bb=depth), args.deals, args.seed)
        margin = 3 * (own[1] + nearest[1])
        verdict = "better" if own[0] < nearest[0] - margin else "worse" if own[0] > nearest[0] + margin else "same"
        distance = abs(former.depth_bb - depth)
        verdicts[(distance, verdict)] += 1
        rows.append({"spot": [seats, depth, ante], "former_depth": former.depth_bb, "own": own, "nearest": nearest,
                     "verdict": verdict})
        print(f"{seats} seats {depth:g} bb {ante}: own {own[0]:.2e} +- {own[1]:.1e}, former {former.depth_bb:g} bb "
              f"chart {nearest[0]:.2e} +- {nearest[1]:.1e}: {verdict} ({time.process_time() - cpu:.1f} s CPU)",
              flush=True)
    for word in ("better", "worse", "same"):
        print(f"{word}: {sum(n for (_, v), n in verdicts.items() if v == word)}", end="; ")
    print()
    for distance in sorted({d for d, _ in verdicts}):
        print(f"  former depth {distance:g} bb away: " + ", ".join(
            f"{verdicts[(distance, w)]} {w}" for w in ("better", "worse", "same")))
    mean = [float(np.mean([r[k][0] for r in rows])) if rows else 0.0 for k in ("own", "nearest")]
    print(f"mean largest gain: own {mean[0]:.3e} bb, former nearest {mean[1]:.3e} bb")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
