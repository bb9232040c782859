"""Regenerate ``src/pokerlab/data/preflop_headsup.npz``: wins and ties of every heads-up preflop matchup, one per
class of suit relabelling and hand swapping (47,008 matchups), by full enumeration of the boards.

About 4 minutes on 2 loaded cores (see docs/benchmarks.md). Run with
``.venv/bin/python scripts/build_preflop_table.py``.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np

from pokerlab.equity.preflop import TABLE_FILE, TABLE_FORMAT_VERSION, build_counts

OUTPUT = Path(__file__).resolve().parent.parent / "src" / "pokerlab" / "data" / TABLE_FILE


def main() -> None:
    start = time.perf_counter()
    representatives, wins, ties, seconds = build_counts()
    np.savez_compressed(
        OUTPUT, format_version=np.int64(TABLE_FORMAT_VERSION), representatives=representatives.astype(np.int32),
        wins=wins.astype(np.uint32), ties=ties.astype(np.uint32),
    )
    print(f"{len(representatives)} matchups enumerated in {seconds:.1f} s "
          f"({time.perf_counter() - start:.1f} s with compilation) on {os.cpu_count()} cores "
          f"({platform.processor() or platform.machine()}), load {os.getloadavg()[0]:.1f}; "
          f"wrote {OUTPUT} ({OUTPUT.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
