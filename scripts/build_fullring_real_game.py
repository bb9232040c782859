"""Value every shipped full-ring chart in the real game, as a player plays it, and write the measurements as package
data (src/pokerlab/data/fullring_real_game.npz; pokerlab.pushfold.fullring_real says what is measured).

Each spot is measured on --deals joint deals of seed --seed and checkpointed atomically in its own file under --work
(stamped with the code version, the digests of the spot's chart and of its over-call ranges, the deals and the seed);
a rerun skips the spots already there, so an interrupted build resumes exactly, and the measurement is deterministic,
so a rebuild writes the same file. At the end every spot of the chart file must have its checkpoint; the file is
written with the chart and over-call files' content hashes, the code version, the deals and the seed.

    nice -n 10 .venv/bin/python scripts/build_fullring_real_game.py --workers 2

To extend the shipped file after spots were added to the chart file (and the over-call file rebuilt), without its
old checkpoints, start from it and the files it was measured on: the spots measured as they would be now are
checkpointed from it, the others measured.

    git show HEAD:src/pokerlab/data/fullring_real_game.npz > old-real.npz   # likewise old-charts.npz, old-overcalls.npz
    .venv/bin/python scripts/build_fullring_real_game.py --start-from old-real.npz old-charts.npz old-overcalls.npz

With --deeper it measures, for each short spot whose solve stopped above its target (the spots whose over-call
ranges are withheld), the chart of the next deeper shipped depth played at the spot's depth
(pokerlab.pushfold.fullring_deeper) into src/pokerlab/data/fullring_deeper_reading.npz, checkpointed the same way.

With --icm it measures the shipped ICM charts instead (pokerlab.pushfold.fullring_icm_real: the ICM payoffs, the
ICM over-call ranges) into src/pokerlab/data/fullring_icm_real_game.npz, checkpointed the same way:

    nice -n 10 .venv/bin/python scripts/build_fullring_real_game.py --icm --workers 2

Ctrl-C stops after the spot in progress is abandoned, prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from build_fullring_charts import read_checkpoint, refuse, seat_counts, solve_all, write_checkpoint

from pokerlab.errors import PokerlabError
from pokerlab.io import check_output_path
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import (
    CHART_FILE,
    REAL_GAME_ARRAYS,
    REAL_GAME_FILE,
    ChartFile,
    OvercallFile,
    RealGameGains,
    full_ring_chart,
    overcalls_of,
    overcalls_withheld,
    read_charts,
    read_overcalls,
    read_real_game,
    real_game_gains,
    real_game_version,
    spot_digest,
    spot_row,
    write_real_game,
)
from pokerlab.pushfold.fullring_deeper import DEEPER_FILE, deeper_depth, measure_deeper, write_deeper
from pokerlab.pushfold.fullring_icm import STAGES
from pokerlab.pushfold.fullring_icm_charts import (
    ICM_CHART_FILE,
    ICM_REAL_GAME_FILE,
    icm_chart,
    read_icm_charts,
    stage_charts,
    write_icm_real_game,
)
from pokerlab.pushfold.fullring_icm_real import icm_real_game_version, measure_icm_chart
from pokerlab.pushfold.fullring_real import DEALS, SEED, measure_chart

ROOT = Path(__file__).resolve().parent.parent


def checkpoint_path(work: Path, seats: int, depth: float, ante: str) -> Path:
    return work / f"{seats:02d}-{ante}-{depth:06.2f}.npz"


def stamp(charts: ChartFile, overcalls: OvercallFile, seats: int, depth: float, ante: str, deals: int,
          seed: int) -> dict[str, object]:
    """What a spot's checkpoint must have been measured with to be reused: the code, the spot's chart (its digest)
    and over-call ranges (their digest, or "none"), the deals and the seed; so a spot's measurement stays valid when
    other spots, or other spots' over-call ranges, are added."""
    row = spot_row(charts.key, seats, depth, ante)
    assert row is not None
    return {"code_version": real_game_version(), "spot_sha256": spot_digest(charts, row),
            "overcalls_sha256": steps_digest(overcalls.steps_of(seats, depth, ante)), "deals": deals, "seed": seed}


def steps_digest(steps: np.ndarray | None) -> str:
    """What names a spot's over-call ranges in a checkpoint: the SHA-256 of their steps, "none" without them."""
    return "none" if steps is None else hashlib.sha256(steps.tobytes()).hexdigest()


def seed_checkpoints(real_path: Path, chart_path: Path, overcall_path: Path, charts: ChartFile, deals: int,
                     seed: int, work: Path) -> int:
    """Checkpoint every spot of the real-game file ``real_path`` (measured on the chart file ``chart_path`` and the
    over-call file ``overcall_path``) that was measured as it would be now (the same :func:`stamp`: its chart, its
    over-call ranges, the deals and seed) and has no checkpoint; returns how many were written."""
    old_charts = read_charts(chart_path)
    old_overcalls = read_overcalls(overcall_path, old_charts)
    old = read_real_game(real_path, old_charts, old_overcalls)
    if old.reason:
        raise PokerlabError(f"--start-from {real_path}: {old.reason}")
    overcalls = overcalls_of(charts)
    written = 0
    for k in old.arrays["key"]:
        spot = (int(k[0]), float(k[1]), list(ANTES)[int(k[2])])
        if spot_row(charts.key, *spot) is None:
            continue
        expected = stamp(charts, overcalls, *spot, deals, seed)
        path = checkpoint_path(work, *spot)
        if (stamp(old_charts, old_overcalls, *spot, int(old.header["deals"]), int(old.header["seed"])) != expected
                or load_measured(path, expected) is not None):
            continue
        measured = old.of_spot(*spot)
        assert measured is not None
        write_checkpoint(path, expected | {"measured_deals": measured.deals, "seeded_from": str(real_path)},
                         {name: getattr(measured, name) for name in REAL_GAME_ARRAYS[1:]})
        written += 1
    return written


def load_measured(path: Path, expected: dict[str, object]) -> RealGameGains | None:
    """A checkpoint measured with ``expected`` (:func:`stamp`), else None."""
    stored = read_checkpoint(path, expected)
    if stored is None:
        return None
    header, arrays = stored
    return real_game_gains(arrays, int(header["measured_deals"]), int(header["seed"]))


def _measure(job: tuple[str, int, float, str, int, int, str]) -> str:
    """Measure one spot of the chart file ``job[0]`` and checkpoint it; returns a line saying what was done."""
    charts_path, seats, depth, ante, deals, seed, work = job
    charts = read_charts(Path(charts_path))
    cpu = time.process_time()
    measured = measure_chart(full_ring_chart(seats, depth, ante, charts), deals=deals, seed=seed)
    header = stamp(charts, overcalls_of(charts), seats, depth, ante, deals, seed) | {"measured_deals": measured.deals}
    write_checkpoint(checkpoint_path(Path(work), seats, depth, ante), header,
                     {name: getattr(measured, name) for name in REAL_GAME_ARRAYS[1:]})
    largest = int(np.argmax(measured.high))
    return (f"{seats} seats {depth:g} bb ante {ante}: {time.process_time() - cpu:.1f} s CPU, largest gain "
            f"{measured.low[largest]:.2e} to {measured.high[largest]:.2e} bb (seat {largest})")


def deeper_stamp(charts: ChartFile, overcalls: OvercallFile, seats: int, depth: float, ante: str, deals: int,
                 seed: int) -> dict[str, object]:
    """What a deeper reading's checkpoint must have been measured with: the code, the spot's chart and the deeper
    spot's (with its over-call ranges), the deeper depth, the deals and the seed."""
    deeper = deeper_depth(charts, seats, depth, ante)
    assert deeper is not None
    own, other = spot_row(charts.key, seats, depth, ante), spot_row(charts.key, seats, deeper, ante)
    assert own is not None and other is not None
    return stamp(charts, overcalls, seats, deeper, ante, deals, seed) | {
        "own_spot_sha256": spot_digest(charts, own), "depth": depth, "deeper": deeper}


def _measure_deeper(job: tuple[str, int, float, str, int, int, str]) -> str:
    """Measure the deeper chart of one spot of the chart file ``job[0]`` at its depth and checkpoint it."""
    charts_path, seats, depth, ante, deals, seed, work = job
    charts = read_charts(Path(charts_path))
    cpu = time.process_time()
    deeper, measured = measure_deeper(charts, seats, depth, ante, deals=deals, seed=seed)
    write_checkpoint(deeper_checkpoint_path(Path(work), seats, depth, ante),
                     deeper_stamp(charts, overcalls_of(charts), seats, depth, ante, deals, seed)
                     | {"measured_deals": measured.deals},
                     {name: getattr(measured, name) for name in REAL_GAME_ARRAYS[1:]})
    largest = int(np.argmax(measured.low))
    return (f"{seats} seats {depth:g} bb ante {ante}, the {deeper:g} bb chart: {time.process_time() - cpu:.1f} s CPU, "
            f"largest gain {measured.low[largest]:.2e} bb (seat {largest})")


def deeper_checkpoint_path(work: Path, seats: int, depth: float, ante: str) -> Path:
    return work / f"deeper-{seats:02d}-{ante}-{depth:06.2f}.npz"


def main_deeper(args: argparse.Namespace, charts: ChartFile, measure: list[int]) -> int:
    """``--deeper``: measure the deeper chart of every short spot of ``charts`` whose over-call ranges are withheld
    (of the seat counts ``measure``) at the spot's depth (see the module docstring)."""
    overcalls = overcalls_of(charts)
    short = [(int(r), (int(charts.key[r, 0]), float(charts.key[r, 1]), list(ANTES)[int(charts.key[r, 2])]))
             for r in np.flatnonzero(overcalls_withheld(charts))]
    found = [(row, spot, deeper_depth(charts, *spot)) for row, spot in short]
    rows = [row for row, _, d in found if d is not None]
    spots = [spot for _, spot, d in found if d is not None]
    deeper = [d for _, _, d in found if d is not None]
    return measure_and_write(
        args, "short spots", real_game_version(), [(s[0], s, deeper_checkpoint_path(args.work, *s),
                                                    deeper_stamp(charts, overcalls, *s, args.deals, args.seed))
                                                   for s in spots], measure, _measure_deeper,
        lambda measured: write_deeper(charts, overcalls, rows, deeper, measured, args.output))


def icm_checkpoint_path(work: Path, stage: str, seats: int, depth: float) -> Path:
    return work / f"icm-{stage}-{seats:02d}-{depth:06.2f}.npz"


def icm_stamp(charts: ChartFile, row: int, deals: int, seed: int) -> dict[str, object]:
    """What an ICM spot's checkpoint must have been measured with to be reused: the code, the spot's chart and
    over-call ranges (their digest, or "none"), the deals and the seed."""
    key = charts.key[row]
    overcalls = stage_charts(STAGES[int(key[3])], charts).overcalls
    steps = None if overcalls is None else overcalls.steps_of(int(key[0]), float(key[1]), "none")
    return {"code_version": icm_real_game_version(), "spot_sha256": spot_digest(charts, row),
            "overcalls_sha256": steps_digest(steps), "deals": deals, "seed": seed}


def _measure_icm(job: tuple[str, str, int, float, int, int, str]) -> str:
    """Measure one spot of the ICM chart file ``job[0]`` and checkpoint it; returns a line saying what was done."""
    charts_path, stage, seats, depth, deals, seed, work = job
    charts = read_icm_charts(Path(charts_path))
    cpu = time.process_time()
    measured = measure_icm_chart(icm_chart(seats, depth, stage, charts), stage, deals=deals, seed=seed)
    row = icm_row(charts, stage, seats, depth)
    write_checkpoint(icm_checkpoint_path(Path(work), stage, seats, depth),
                     icm_stamp(charts, row, deals, seed) | {"measured_deals": measured.deals},
                     {name: getattr(measured, name) for name in REAL_GAME_ARRAYS[1:]})
    largest = int(np.argmax(measured.high))
    return (f"{stage} {seats} seats {depth:g} bb: {time.process_time() - cpu:.1f} s CPU, largest gain "
            f"{measured.low[largest]:.2e} to {measured.high[largest]:.2e} money (seat {largest})")


def icm_row(charts: ChartFile, stage: str, seats: int, depth: float) -> int:
    """The row of an ICM chart file holding a spot."""
    key = charts.key
    return int(np.flatnonzero((key[:, 0] == seats) & (key[:, 1] == depth) & (key[:, 3] == STAGES.index(stage)))[0])


def main_icm(args: argparse.Namespace, charts: ChartFile, measure: list[int]) -> int:
    """``--icm``: measure every spot of the ICM chart file ``charts`` of the seat counts ``measure`` (see the module
    docstring)."""
    spots = [(STAGES[int(k[3])], int(k[0]), float(k[1])) for k in charts.key]
    return measure_and_write(
        args, "ICM spots", icm_real_game_version(), [(s[1], s, icm_checkpoint_path(args.work, *s),
                                                      icm_stamp(charts, row, args.deals, args.seed))
                                                     for row, s in enumerate(spots)], measure, _measure_icm,
        lambda measured: write_icm_real_game(charts, measured, args.output))


def measure_and_write(args: argparse.Namespace, what: str, version: str,
                      spots: list[tuple[int, Any, Path, dict[str, object]]], seats: list[int],
                      measure: Callable[[Any], str], write: Callable[[list[RealGameGains]], dict[str, Any]]) -> int:
    """Measure the ``spots`` (``(seat count, spot, checkpoint, stamp)`` in the file's row order) of the seat counts
    ``seats`` that have no checkpoint of their stamp, by ``measure`` of ``(charts, *spot, deals, seed, work)`` in
    ``args.workers`` processes (the largest tables first: the ETA then errs long, and the last jobs are the short
    ones); then, if every spot's checkpoint is there, write the file (``write`` of the measurements) and say so; 1
    with a line on stderr if some are missing, 130 after Ctrl-C."""
    asked = [(n, spot, path, stamp) for n, spot, path, stamp in spots if n in seats]
    todo = [(n, spot) for n, spot, path, stamp in asked if load_measured(path, stamp) is None]
    print(f"{len(asked)} {what}, {len(asked) - len(todo)} already measured, {len(todo)} to measure (code version "
          f"{version}, {args.deals} deals, seed {args.seed}, {args.workers} worker(s))", flush=True)
    jobs = [(str(args.charts), *spot, args.deals, args.seed, str(args.work))
            for _, spot in sorted(todo, key=lambda job: -job[0])]
    if jobs and solve_all(measure, jobs, args.workers, args.work) == 130:
        return 130
    measured = [load_measured(path, stamp) for _, _, path, stamp in spots]
    missing = [path.name for (_, _, path, _), m in zip(spots, measured, strict=True) if m is None]
    if missing:
        print(f"{len(missing)} spots are not measured yet (e.g. {missing[0]}): the file is written once they are "
              "(rerun with their --seats)", file=sys.stderr)
        return 1
    header = write([m for m in measured if m is not None])
    print(f"wrote {args.output}: {len(measured)} spots, code version {header['code_version']}, content sha256 "
          f"{header['content_sha256'][:16]}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--icm", action="store_true", help="measure the ICM charts (default --charts, --output and "
                                                            "--work: the ICM files)")
    parser.add_argument("--deeper", action="store_true", help="measure each short spot's next deeper chart at its "
                                                               "depth (default --output: the deeper-reading file)")
    parser.add_argument("--charts", type=Path, default=None, help="the chart file to measure")
    parser.add_argument("--deals", type=int, default=DEALS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seats", default="2-10", help="measure the spots of these seat counts only (the file is "
                                                        "written once every spot is measured)")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--start-from", type=Path, nargs=3, default=None, metavar=("REAL", "CHARTS", "OVERCALLS"),
                        help="checkpoint the measurements of the real-game file REAL (measured on CHARTS played with "
                             "OVERCALLS) of every spot measured as it would be now, so that a build extends it")
    args = parser.parse_args(argv)
    icm = {"charts": ICM_CHART_FILE, "output": ICM_REAL_GAME_FILE, "work": ROOT / "build" / "fullring-real-game-icm"}
    chip = {"charts": CHART_FILE, "output": DEEPER_FILE if args.deeper else REAL_GAME_FILE,
            "work": ROOT / "build" / "fullring-real-game"}
    if args.icm and args.deeper:
        return refuse("--deeper is for the chip-EV charts: leave out --icm")
    for name, default in (icm if args.icm else chip).items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.deals < 100:
        return refuse(f"--deals {args.deals}: at least 100 joint deals per spot")
    if (args.icm or args.deeper) and args.start_from is not None:
        return refuse("--start-from is for the chip-EV real-game file: --icm and --deeper builds resume from their "
                      "--work checkpoints")
    try:
        charts = (read_icm_charts if args.icm else read_charts)(args.charts)
        measure = seat_counts(args.seats)
        check_output_path(args.output, "--output file")
    except (ValueError, PokerlabError) as error:
        return refuse(error)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.icm:
        return main_icm(args, charts, measure)
    if args.deeper:
        return main_deeper(args, charts, measure)
    overcalls = overcalls_of(charts)
    if overcalls.reason:
        print(f"note: no over-call ranges ({overcalls.reason}): facing a jam and calls, the charts' players call by "
              "the lone-jam chart", flush=True)
    if args.start_from is not None:
        try:
            real, old_charts, old_overcalls = args.start_from
            seeded = seed_checkpoints(real, old_charts, old_overcalls, charts, args.deals, args.seed, args.work)
        except PokerlabError as error:
            return refuse(error)
        print(f"{seeded} spots of {args.start_from[0]} checkpointed in {args.work}", flush=True)
    spots = [(int(k[0]), float(k[1]), list(ANTES)[int(k[2])]) for k in charts.key]
    return measure_and_write(
        args, "spots", real_game_version(), [(s[0], s, checkpoint_path(args.work, *s),
                                              stamp(charts, overcalls, *s, args.deals, args.seed)) for s in spots],
        measure, _measure, lambda measured: write_real_game(charts, overcalls, measured, args.output))


if __name__ == "__main__":
    sys.exit(main())
