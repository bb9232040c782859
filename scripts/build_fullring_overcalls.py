"""Reproduce the shipped full-ring charts' solves and write their over-call ranges as package data
(src/pokerlab/data/fullring_overcalls.npz; pokerlab.pushfold.fullring_overcalls says what they are).

Each spot of 3+ seats of the chart file is solved again for its stored iteration count (the solve is
deterministic), checked against the file (the same gains, bit for bit, and the same quantised jam and call charts),
and its over-call ranges checkpointed atomically in its own file under --work (stamped with the code version and the
spot's own digest, so a checkpoint stays valid when spots are added to the chart file); a rerun skips the spots
already there, so an interrupted build resumes exactly. The spots whose ranges
``pokerlab.pushfold.fullring_charts.overcalls_withheld`` withholds (short spots whose solve stopped above its
target: their players call a jam and a call by the lone-jam chart) are not reproduced. At the end every checkpoint
of a spot of the chart file is written to --output (a build of some seat counts only writes a file of those: the
others' players keep calling by the lone-jam chart, and the file says which spots it holds).

    nice -n 10 .venv/bin/python scripts/build_fullring_overcalls.py --seats 3-6 --workers 2

With --icm the ICM charts' (src/pokerlab/data/fullring_icm_charts.npz: both stages) into
src/pokerlab/data/fullring_icm_overcalls.npz, each spot solved again to its stored iteration count.

To extend the shipped file after spots were added to the chart file, without its old checkpoints, start from it and
the chart file it was built for (the spots whose chart is unchanged are checkpointed from it, the new ones solved):

    git show HEAD:src/pokerlab/data/fullring_charts.npz > old-charts.npz
    git show HEAD:src/pokerlab/data/fullring_overcalls.npz > old-overcalls.npz
    .venv/bin/python scripts/build_fullring_overcalls.py --start-from old-overcalls.npz --start-charts old-charts.npz

Ctrl-C stops after the spot in progress is abandoned, prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
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
    dequantise,
    overcalls_withheld,
    quantise,
    read_charts,
    read_overcalls,
    spot_digest,
    spot_row,
    write_overcalls,
)
from pokerlab.pushfold.fullring_icm import STAGES
from pokerlab.pushfold.fullring_icm import code_version as icm_code_version
from pokerlab.pushfold.fullring_icm_charts import ICM_CHART_FILE, ICM_OVERCALL_FILE, read_icm_charts
from pokerlab.pushfold.fullring_overcalls import overcall_rows, reproduce_icm_spot, reproduce_spot

ROOT = Path(__file__).resolve().parent.parent


def is_icm(charts: ChartFile) -> bool:
    """Whether ``charts`` is an ICM chart file (its key has the stage column)."""
    return bool(charts.key.shape[1] > 3)


def version_of(charts: ChartFile) -> str:
    """The code version of ``charts``' model: the chip-EV charts' or the ICM charts'."""
    return icm_code_version() if is_icm(charts) else code_version()


def stamp(charts: ChartFile, row: int) -> dict[str, object]:
    """What a checkpoint of chart row ``row`` must have been made with to be reused: the code and that spot (so it
    stays valid when other spots are added to the chart file)."""
    return {"code_version": version_of(charts), "spot_sha256": spot_digest(charts, row)}


def spot_name(charts: ChartFile, row: int) -> str:
    """Chart row ``row`` in words."""
    key = charts.key[row]
    where = f"at the {STAGES[int(key[3])]}" if is_icm(charts) else f"ante {list(ANTES)[int(key[2])]}"
    return f"{int(key[0])} seats {float(key[1]):g} bb {where}"


def checkpoint_of(work: Path, charts: ChartFile, row: int) -> Path:
    """Where chart row ``row``'s over-call ranges are checkpointed under ``work``."""
    key = charts.key[row]
    if is_icm(charts):
        return work / f"icm-{STAGES[int(key[3])]}-{int(key[0]):02d}-{float(key[1]):06.2f}.npz"
    return checkpoint_path(work, int(key[0]), float(key[1]), list(ANTES)[int(key[2])])


def seed_checkpoints(overcall_path: Path, chart_path: Path, charts: ChartFile,
                     path_of: Callable[[int], Path]) -> int:
    """Checkpoint every spot of the over-call file ``overcall_path`` (of the chart file ``chart_path``) whose chart
    is the same in ``charts`` (its :func:`spot_digest`) and that has no checkpoint at ``path_of(row)``; returns how
    many were written.
    Its ranges come back dequantised, which quantise to the file's steps again."""
    old_charts = read_charts(chart_path)
    old = read_overcalls(overcall_path, old_charts)
    if old.reason:
        raise PokerlabError(f"--start-from {overcall_path}: {old.reason}")
    written = 0
    for k in old.key:
        seats, depth, ante = int(k[0]), float(k[1]), list(ANTES)[int(k[2])]
        row, old_row = spot_row(charts.key, seats, depth, ante), spot_row(old_charts.key, seats, depth, ante)
        if row is None or old_row is None or spot_digest(charts, row) != spot_digest(old_charts, old_row):
            continue
        expected = stamp(charts, row)
        if load_rows(path_of(row), expected) is not None:
            continue
        steps = old.steps_of(seats, depth, ante)
        assert steps is not None
        write_checkpoint(path_of(row), expected | {"seeded_from": str(overcall_path)}, {"rows": dequantise(steps)})
        written += 1
    return written


def load_rows(path: Path, expected: dict[str, object]) -> np.ndarray | None:
    """A checkpoint's over-call ranges (probabilities) if made with ``expected``, else None."""
    stored = read_checkpoint(path, expected)
    return None if stored is None else stored[1].get("rows")


def read_any(path: Path, icm: bool) -> ChartFile:
    """The chart file at ``path``: an ICM one with ``icm``."""
    return read_icm_charts(path) if icm else read_charts(path)


def _reproduce(job: tuple[str, bool, int, str]) -> str:
    """Reproduce chart row ``job[2]`` of the chart file ``job[0]`` (an ICM one if ``job[1]``), check it against the
    file and checkpoint its over-call ranges under ``job[3]``; returns a line saying what was done."""
    charts_path, icm, row, work = job
    charts = read_any(Path(charts_path), icm)
    seats, depth = int(charts.key[row, 0]), float(charts.key[row, 1])
    cpu = time.process_time()
    if icm:
        profile = reproduce_icm_spot(seats, depth, STAGES[int(charts.key[row, 3])], int(charts.iterations[row]),
                                     charts.gains[row, :seats])
        quick = False
    else:
        profile, quick = reproduce_spot(seats, depth, list(ANTES)[int(charts.key[row, 2])],
                                        int(charts.iterations[row]), charts.gains[row, :seats])
    jam, call = chart_arrays(profile.tree, profile)
    if not (np.array_equal(quantise(jam), charts.jam[row, :seats])
            and np.array_equal(quantise(call), charts.call[row, :seats, :seats])):
        raise ValueError(f"{spot_name(charts, row)}: reproduced with the stored gains but other charts")
    rows = overcall_rows(profile)
    spent = time.process_time() - cpu
    header = stamp(charts, row) | {"quick": quick, "cpu_s": spent}
    write_checkpoint(checkpoint_of(Path(work), charts, row), header, {"rows": rows})
    return (f"{spot_name(charts, row)}: {int(charts.iterations[row])} iterations "
            f"({'last check' if quick else 'every check'}), {spent:.1f} s CPU (stored solve {charts.cpu_s[row]:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--icm", action="store_true", help="the ICM charts' (default --charts, --output and --work: "
                                                           "the ICM files)")
    parser.add_argument("--charts", type=Path, default=None, help="the chart file whose spots to reproduce")
    parser.add_argument("--seats", default="3-10")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--start-from", type=Path, default=None,
                        help="checkpoint the ranges of this over-call file for every spot whose chart is unchanged "
                             "(with --start-charts, the chart file it was built for), so that a build extends it")
    parser.add_argument("--start-charts", type=Path, default=None, help="the chart file --start-from was built for")
    args = parser.parse_args(argv)
    args.charts = args.charts or (ICM_CHART_FILE if args.icm else CHART_FILE)
    args.output = args.output or (ICM_OVERCALL_FILE if args.icm else OVERCALL_FILE)
    args.work = args.work or ROOT / "build" / ("fullring-icm-overcalls" if args.icm else "fullring-overcalls")
    try:
        seats = [s for s in seat_counts(args.seats) if s >= 3]
        if not seats:
            raise ValueError(f"--seats {args.seats}: over-calls need 3 or more seats")
        charts = read_any(args.charts, args.icm)
        check_output_path(args.output, "--output file")
        if (args.start_from is None) != (args.start_charts is None):
            raise ValueError("--start-from and --start-charts go together (an over-call file and its chart file)")
        if args.icm and args.start_from is not None:
            raise ValueError("--start-from extends the chip-EV over-call file: not with --icm")
    except (ValueError, PokerlabError) as error:
        return refuse(error)
    args.work.mkdir(parents=True, exist_ok=True)

    def path_of(row: int) -> Path:
        return checkpoint_of(args.work, charts, row)

    if args.start_from is not None:
        try:
            seeded = seed_checkpoints(args.start_from, args.start_charts, charts, path_of)
        except PokerlabError as error:
            return refuse(error)
        print(f"{seeded} spots of {args.start_from} checkpointed in {args.work}", flush=True)
    withheld = overcalls_withheld(charts)
    asked = [int(i) for i in np.flatnonzero(np.isin(charts.key[:, 0], seats) & ~withheld)]
    todo = [i for i in asked if load_rows(path_of(i), stamp(charts, i)) is None]
    print(f"{len(asked)} spots of {','.join(map(str, seats))} seats ({int(withheld.sum())} withheld, not "
          f"reproduced), {len(asked) - len(todo)} already done, {len(todo)} to reproduce (code version "
          f"{version_of(charts)}, {args.workers} worker(s))", flush=True)
    if todo:
        # the most costly first (by their stored solve time): the ETA then errs long
        jobs = [(str(args.charts), args.icm, i, str(args.work)) for i in sorted(todo, key=lambda i: -charts.cpu_s[i])]
        if solve_all(_reproduce, jobs, args.workers, args.work) == 130:
            return 130
    shipped = {i: rows for i in range(charts.key.shape[0]) if int(charts.key[i, 0]) >= 3 and not withheld[i]
               and (rows := load_rows(path_of(i), stamp(charts, i))) is not None}
    header = write_overcalls(charts, shipped, args.output, version_of(charts))
    held = sorted({int(charts.key[i, 0]) for i in shipped})
    print(f"wrote {args.output}: {header['spots']} spots ({', '.join(map(str, held))} seats; "
          f"{int(withheld.sum())} withheld), content sha256 {header['content_sha256'][:16]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
