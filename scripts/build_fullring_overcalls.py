"""Reproduce the shipped full-ring charts' solves and write their over-call ranges as package data
(src/pokerlab/data/fullring_overcalls.npz; pokerlab.pushfold.fullring_overcalls says what they are).

Each spot of 3+ seats of the chart file is solved again for its stored iteration count (the solve is
deterministic), checked against the file (the same gains, bit for bit, and the same quantised jam and call charts),
and its over-call ranges checkpointed atomically in its own file under --work; a rerun skips the spots already there,
so an interrupted build resumes exactly. At the end every checkpoint of this chart file and code version is written
to --output (a build of some seat counts only writes a file of those: the others' players keep calling by the
lone-jam chart, and the file says which spots it holds), but for the spots whose ranges
``pokerlab.pushfold.fullring_charts.overcalls_withheld`` withholds (short spots whose solve stopped above its
target: their players call a jam and a call by the lone-jam chart).

    nice -n 10 .venv/bin/python scripts/build_fullring_overcalls.py --seats 3-6 --workers 2

Ctrl-C stops after the spot in progress is abandoned, prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from build_fullring_charts import checkpoint_path, read_checkpoint, refuse, seat_counts, solve_all, write_checkpoint

from pokerlab.errors import PokerlabError
from pokerlab.io import check_output_path
from pokerlab.pushfold.fullring import ANTES, chart_arrays
from pokerlab.pushfold.fullring_charts import (
    CHART_FILE,
    OVERCALL_FILE,
    ChartFile,
    code_version,
    overcalls_withheld,
    quantise,
    read_charts,
    write_overcalls,
)
from pokerlab.pushfold.fullring_overcalls import overcall_rows, reproduce_spot

ROOT = Path(__file__).resolve().parent.parent


def stamp(charts: ChartFile) -> dict[str, object]:
    """What a checkpoint must have been made with to be reused."""
    return {"code_version": code_version(), "chart_content_sha256": charts.header["content_sha256"]}


def load_rows(path: Path, expected: dict[str, object]) -> np.ndarray | None:
    """A checkpoint's over-call ranges (probabilities) if made with ``expected``, else None."""
    stored = read_checkpoint(path, expected)
    return None if stored is None else stored[1].get("rows")


def _reproduce(job: tuple[str, int, str]) -> str:
    """Reproduce chart row ``job[1]`` of the chart file ``job[0]``, check it against the file and checkpoint its
    over-call ranges under ``job[2]``; returns a line saying what was done."""
    charts_path, row, work = job
    charts = read_charts(Path(charts_path))
    seats, depth, ante = int(charts.key[row, 0]), float(charts.key[row, 1]), list(ANTES)[int(charts.key[row, 2])]
    cpu = time.process_time()
    profile, quick = reproduce_spot(seats, depth, ante, int(charts.iterations[row]), charts.gains[row, :seats])
    jam, call = chart_arrays(profile.tree, profile)
    if not (np.array_equal(quantise(jam), charts.jam[row, :seats])
            and np.array_equal(quantise(call), charts.call[row, :seats, :seats])):
        raise ValueError(f"{seats} seats {depth:g} bb ante {ante}: reproduced with the stored gains but other charts")
    rows = overcall_rows(profile)
    spent = time.process_time() - cpu
    header = stamp(charts) | {"quick": quick, "cpu_s": spent}
    write_checkpoint(checkpoint_path(Path(work), seats, depth, ante), header, {"rows": rows})
    return (f"{seats} seats {depth:g} bb ante {ante}: {int(charts.iterations[row])} iterations "
            f"({'last check' if quick else 'every check'}), {spent:.1f} s CPU (stored solve {charts.cpu_s[row]:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--charts", type=Path, default=CHART_FILE, help="the chart file whose spots to reproduce")
    parser.add_argument("--seats", default="3-10")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "fullring-overcalls")
    parser.add_argument("--output", type=Path, default=OVERCALL_FILE)
    args = parser.parse_args(argv)
    try:
        seats = [s for s in seat_counts(args.seats) if s >= 3]
        if not seats:
            raise ValueError(f"--seats {args.seats}: over-calls need 3 or more seats")
        charts = read_charts(args.charts)
        check_output_path(args.output, "--output file")
    except (ValueError, PokerlabError) as error:
        return refuse(error)
    args.work.mkdir(parents=True, exist_ok=True)
    expected = stamp(charts)

    def path_of(row: int) -> Path:
        key = charts.key[row]
        return checkpoint_path(args.work, int(key[0]), float(key[1]), list(ANTES)[int(key[2])])

    asked = [int(i) for i in np.flatnonzero(np.isin(charts.key[:, 0], seats))]
    todo = [i for i in asked if load_rows(path_of(i), expected) is None]
    print(f"{len(asked)} spots of {','.join(map(str, seats))} seats, {len(asked) - len(todo)} already done, "
          f"{len(todo)} to reproduce (code version {expected['code_version']}, {args.workers} worker(s))", flush=True)
    if todo:
        # the most costly first (by their stored solve time): the ETA then errs long
        jobs = [(str(args.charts), i, str(args.work)) for i in sorted(todo, key=lambda i: -charts.cpu_s[i])]
        if solve_all(_reproduce, jobs, args.workers, args.work) == 130:
            return 130
    withheld = overcalls_withheld(charts)
    done = {i: rows for i in range(charts.key.shape[0]) if int(charts.key[i, 0]) >= 3
            and (rows := load_rows(path_of(i), expected)) is not None}
    shipped = {i: rows for i, rows in done.items() if not withheld[i]}
    header = write_overcalls(charts, shipped, args.output)
    held = sorted({int(charts.key[i, 0]) for i in shipped})
    print(f"wrote {args.output}: {header['spots']} spots ({', '.join(map(str, held))} seats; "
          f"{len(done) - len(shipped)} withheld), content sha256 {header['content_sha256'][:16]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
