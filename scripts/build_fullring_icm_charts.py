"""Solve the full-ring ICM chart spots and write them as package data (src/pokerlab/data/fullring_icm_charts.npz).

Each spot (stage, seats, depth) is solved in the ICM chart model (pokerlab.pushfold.fullring_icm.solve_icm_spot)
and checkpointed atomically in its own file under --work (the chip-EV builder's checkpoint format); a rerun skips
the spots already there of the same code version, so an interrupted build resumes exactly. At the end every
checkpoint of this code version in --work is written to --output with the code version and a content hash.

    nice -n 10 .venv/bin/python scripts/build_fullring_icm_charts.py --stages final,bubble --seats 3-10 \\
        --depths 10,15,20,5

Spots are solved depth by depth in the order given, each depth's stages in the order given, seat counts
ascending, in --workers processes (Ctrl-C stops after the spots in progress are abandoned, prints one line and
exits 130).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from build_fullring_charts import chart_depths, load_spot, refuse, save_spot, seat_counts, solve_all

from pokerlab.errors import PokerlabError
from pokerlab.io import check_output_path
from pokerlab.pushfold.fullring import MAX_ITERATIONS, ChartSpot
from pokerlab.pushfold.fullring_icm import STAGES, check_icm_spot, code_version, money_target, solve_icm_spot
from pokerlab.pushfold.fullring_icm_charts import ICM_CHART_FILE, write_icm_charts

ROOT = Path(__file__).resolve().parent.parent


def checkpoint_path(work: Path, stage: str, seats: int, depth: float) -> Path:
    return work / f"{stage}-{seats:02d}-{depth:06.2f}.npz"


def _solve(job: tuple[int, float, str, int | None, str]) -> str:
    """Solve one ICM spot and checkpoint it; returns a line saying what was done."""
    seats, depth, stage, max_iterations, work = job
    spot = solve_icm_spot(seats, depth, stage, max_iterations=MAX_ITERATIONS if max_iterations is None
                          else max_iterations)
    save_spot(checkpoint_path(Path(work), stage, seats, depth), spot, code_version())
    return (f"{stage} {seats} seats {depth:g} bb: {spot.iterations} iterations, {spot.cpu_s:.1f} s CPU, largest "
            f"gain {spot.max_gain:.2e} (target {money_target(seats, depth):.2e})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--seats", default="3-10")
    parser.add_argument("--depths", default="10,15,20,5")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "fullring-icm-charts")
    parser.add_argument("--output", type=Path, default=ICM_CHART_FILE)
    parser.add_argument("--max-iterations", type=int, default=None, help="default: the chip-EV charts' 512")
    parser.add_argument("--assemble-only", action="store_true", help="write --output from the checkpoints only")
    args = parser.parse_args(argv)
    try:
        jobs = [check_icm_spot(seats, depth, stage)
                for depth in chart_depths(args.depths) for stage in args.stages.split(",")
                for seats in seat_counts(args.seats)]
        check_output_path(args.output, "--output file")
    except (ValueError, PokerlabError) as error:
        return refuse(error)
    version = code_version()
    args.work.mkdir(parents=True, exist_ok=True)
    todo = [job for job in jobs if load_spot(checkpoint_path(args.work, job[2], job[0], job[1]), version) is None]
    print(f"{len(jobs)} spots asked, {len(jobs) - len(todo)} already checkpointed, {len(todo)} to solve (code "
          f"version {version})", flush=True)
    if not args.assemble_only and todo:
        spots_to_solve = [(seats, depth, stage, args.max_iterations, str(args.work)) for seats, depth, stage in todo]
        if solve_all(_solve, spots_to_solve, args.workers, args.work) == 130:
            return 130
    spots: list[tuple[str, ChartSpot]] = []
    for stage in STAGES:
        for path in sorted(args.work.glob(f"{stage}-*.npz")):
            spot = load_spot(path, version)
            if spot is not None:
                spots.append((stage, spot))
    header = write_icm_charts(spots, args.output)
    over = [s for _, s in spots if s.max_gain > money_target(s.seats, s.depth_bb)]
    print(f"wrote {args.output}: {header['spots']} spots ({len(over)} above their target), code version "
          f"{header['code_version']}, content sha256 {header['content_sha256'][:16]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
