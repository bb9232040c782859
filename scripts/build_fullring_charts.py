"""Solve the full-ring push/fold chart grid and write it as package data (src/pokerlab/data/fullring_charts.npz).

Each spot (seats, depth, ante rule) is solved in the chart model (pokerlab.pushfold.fullring.solve_spot) and
checkpointed atomically in its own file under --work; a rerun skips the spots already there (of the same code
version), so an interrupted build resumes exactly. At the end every checkpoint of this code version in --work
is written to --output with the code version and a content hash (pokerlab.pushfold.fullring_charts).

    nice -n 10 .venv/bin/python scripts/build_fullring_charts.py --seats 2-10 --depths 5,10,15,20 --antes none,bb

Depths: a list (``5,7.5,10``) and/or ranges (``1-40`` = every 0.5 bb to 20, every bb beyond, the issue's grid);
depths where a seat would be all in by posting are left out (the chart model needs one pot per showdown). Spots
are solved depth by depth in the order given (a coarse grid first: ``--depths 10,20,5,...,1-40``), each depth's
ante rules in the order given, seat counts ascending.
Spots stopped at the iteration cap above their target can be solved again with a higher cap:
``--resolve-over-target --max-iterations 2048`` solves every asked spot whose checkpoint is over its target (and
stopped below the new cap) from the start, and replaces the checkpoint only when the new largest gain is lower.
The solve is deterministic, so a spot is reproduced by ``solve_spot`` with ``max_iterations`` set to its stored
iteration count, whatever cap it was built with.
Ctrl-C stops after the spot in progress is abandoned, prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.io import check_output_path
from pokerlab.pushfold.fullring import ANTES, ChartSpot, check_spot, default_target, solve_spot
from pokerlab.pushfold.fullring_charts import (
    CHART_FILE,
    MAX_SEATS,
    code_version,
    dequantise,
    read_charts,
    write_charts,
)

ROOT = Path(__file__).resolve().parent.parent


def chart_depths(text: str) -> list[float]:
    """Depths from ``5,7.5,10`` and ranges ``a-b`` (every 0.5 bb up to 20, every bb beyond), in the order given
    (each once): the build solves them in that order, so a coarse grid listed first is done first.

    >>> chart_depths("10,5,4-6")
    [10.0, 5.0, 4.0, 4.5, 5.5, 6.0]
    """
    out: dict[float, None] = {}
    for part in text.split(","):
        if "-" in part:
            low, high = (float(x) for x in part.split("-"))
            depth = low
            while depth <= high + 1e-9:
                out[round(depth, 2)] = None
                depth += 0.5 if depth < 20 - 1e-9 else 1.0
        else:
            out[float(part)] = None
    return list(out)


def seat_counts(text: str) -> list[int]:
    """Seat counts from ``3,5`` and ranges ``a-b``, ascending; ValueError outside 2 to 10.

    >>> seat_counts("9,3-5")
    [3, 4, 5, 9]
    """
    out: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            low, high = (int(x) for x in part.split("-"))
            out.update(range(low, high + 1))
        else:
            out.add(int(part))
    if not out or min(out) < 2 or max(out) > MAX_SEATS:
        raise ValueError(f"--seats {text}: a chart has 2 to {MAX_SEATS} seats")
    return sorted(out)


def refuse(message: object) -> int:
    """Bad input, before any work: one line on stderr and exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def checkpoint_path(work: Path, seats: int, depth: float, ante: str) -> Path:
    return work / f"{seats:02d}-{ante}-{depth:06.2f}.npz"


def write_checkpoint(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """A spot's checkpoint (its JSON ``header`` and its ``arrays`` by name), written atomically."""
    temporary = path.with_name(path.name + f".{os.getpid()}.partial.npz")
    np.savez(temporary, header=np.array(json.dumps(header)), **arrays)  # type: ignore[arg-type]
    temporary.replace(path)


def read_checkpoint(path: Path, expected: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """A checkpoint's header and arrays if its header has every value of ``expected``, else (or unreadable) None."""
    try:
        with np.load(path) as stored:
            header = json.loads(str(stored["header"]))
            if any(header.get(k) != v for k, v in expected.items()):
                return None
            return header, {name: stored[name] for name in stored.files if name != "header"}
    except (OSError, KeyError, ValueError):
        return None


def save_spot(path: Path, spot: ChartSpot, version: str) -> None:
    """One spot's checkpoint, written atomically."""
    header = {"code_version": version, "seats": spot.seats, "depth_bb": spot.depth_bb, "ante": spot.ante,
              "iterations": spot.iterations, "cpu_s": spot.cpu_s}
    write_checkpoint(path, header, {"jam": spot.jam, "call": spot.call, "gains": np.array(spot.gains),
                                    "values": np.array(spot.values)})


def load_spot(path: Path, version: str) -> ChartSpot | None:
    """A checkpoint of this code version, else None."""
    stored = read_checkpoint(path, {"code_version": version})
    if stored is None:
        return None
    header, arrays = stored
    try:
        return ChartSpot(int(header["seats"]), float(header["depth_bb"]), str(header["ante"]), arrays["jam"],
                         arrays["call"], tuple(float(g) for g in arrays["gains"]),
                         tuple(float(v) for v in arrays["values"]), int(header["iterations"]), float(header["cpu_s"]))
    except (KeyError, ValueError):
        return None


def seed_checkpoints(path: Path, work: Path, version: str) -> int:
    """Checkpoint in ``work`` every spot of the chart file ``path`` (read and checked: of this code ``version``) that
    has no checkpoint of this version there; returns how many were written. Its probabilities come back
    dequantised, which quantise to the file's steps again: a file assembled from them holds the same arrays."""
    charts = read_charts(path)  # refused unless built by this code version
    written = 0
    for i, key in enumerate(charts.key):
        seats, depth, ante = int(key[0]), float(key[1]), list(ANTES)[int(key[2])]
        target = checkpoint_path(work, seats, depth, ante)
        if load_spot(target, version) is not None:
            continue
        spot = ChartSpot(seats, depth, ante, dequantise(charts.jam[i, :seats]),
                         dequantise(charts.call[i, :seats, :seats]),
                         tuple(float(g) for g in charts.gains[i, :seats]),
                         tuple(float(v) for v in charts.values[i, :seats]), int(charts.iterations[i]),
                         float(charts.cpu_s[i]))
        save_spot(target, spot, version)
        written += 1
    return written


def over_target(spot: ChartSpot, target: float | None, max_iterations: int | None) -> bool:
    """Whether a checkpointed spot is above its target and stopped before ``max_iterations`` (so a solve with
    that cap may do better)."""
    goal = default_target(spot.seats) if target is None else target
    return spot.max_gain > goal and max_iterations is not None and spot.iterations < max_iterations


def _solve(job: tuple[int, float, str, float | None, int | None, str]) -> str:
    """Solve one spot and checkpoint it, unless a checkpoint with a lower largest gain is already there (a
    re-solve with a higher cap keeps the better of the two); returns a line saying what was done."""
    seats, depth, ante, target, iterations, work = job
    path = checkpoint_path(Path(work), seats, depth, ante)
    version = code_version()
    before = load_spot(path, version)
    spot = solve_spot(seats, depth, ante, target=target, max_iterations=iterations)
    said = (f"{seats} seats {depth:g} bb ante {ante}: {spot.iterations} iterations, {spot.cpu_s:.1f} s CPU, "
            f"largest gain {spot.max_gain:.2e} bb")
    if before is not None and before.max_gain <= spot.max_gain:
        return f"{said}; kept the checkpoint's {before.max_gain:.2e} bb"
    save_spot(path, spot, version)
    if before is not None:
        said += f" (was {before.max_gain:.2e} bb after {before.iterations} iterations, {before.cpu_s:.1f} s CPU)"
    return said


def solve_all(solve: Callable[[Any], str], jobs: list[Any], workers: int, work: Path) -> int:
    """Run ``solve(job)`` (a line saying what was done, which names the spot) for every job in a pool of
    ``workers`` processes, printing each line with the elapsed time and an ETA as the jobs finish; 0 when all
    are done, 130 (one line on stderr) after Ctrl-C, every finished spot checkpointed under ``work``."""
    start = time.perf_counter()
    done = 0
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for future in as_completed([pool.submit(solve, job) for job in jobs]):
                said = future.result()
                done += 1
                elapsed = time.perf_counter() - start
                print(f"[{done}/{len(jobs)}] {said}; elapsed {elapsed:.0f} s, ETA "
                      f"{elapsed / done * (len(jobs) - done):.0f} s", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted: {done} of {len(jobs)} spots solved and checkpointed in {work}; rerun to resume",
              file=sys.stderr)
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", default="2-10")
    parser.add_argument("--depths", default="1-40")
    parser.add_argument("--antes", default=",".join(ANTES))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "fullring-charts")
    parser.add_argument("--output", type=Path, default=CHART_FILE)
    parser.add_argument("--target", type=float, default=None, help="default: 1e-5 bb heads-up, else 2e-3 bb")
    parser.add_argument("--max-iterations", type=int, default=None)
    parser.add_argument("--resolve-over-target", action="store_true",
                        help="solve again (with --max-iterations) the checkpointed spots above their target")
    parser.add_argument("--assemble-only", action="store_true", help="write --output from the checkpoints only")
    parser.add_argument("--start-from", type=Path, default=None,
                        help="checkpoint every spot of this chart file (of this code version) that --work lacks, "
                             "so that a build extends it (the shipped file, say) without its old checkpoints")
    args = parser.parse_args(argv)
    try:
        antes = args.antes.split(",")
        jobs = []
        for depth in chart_depths(args.depths):
            for ante in antes:
                for seats in seat_counts(args.seats):
                    try:
                        check_spot(seats, depth, ante)
                    except PokerlabError:
                        continue  # a seat all in by posting, or a big-blind ante at 3+ seats: not a chart spot
                    jobs.append((seats, depth, ante))
        if not jobs:
            raise ValueError(f"no chart spot at --seats {args.seats} --depths {args.depths} --antes {args.antes} "
                             "(every seat would be all in by posting, or a big-blind ante at 3+ seats)")
        check_output_path(args.output, "--output file")
    except (ValueError, PokerlabError) as error:
        return refuse(error)
    version = code_version()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.resolve_over_target and args.max_iterations is None:
        print("error: --resolve-over-target needs --max-iterations (the higher cap)", file=sys.stderr)
        return 2
    if args.start_from is not None:
        try:
            seeded = seed_checkpoints(args.start_from, args.work, version)
        except PokerlabError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"{seeded} spots of {args.start_from} checkpointed in {args.work}", flush=True)
    todo = []
    for job in jobs:
        stored = load_spot(checkpoint_path(args.work, *job), version)
        if stored is None or (args.resolve_over_target
                              and over_target(stored, args.target, args.max_iterations)):
            todo.append(job)
    print(f"{len(jobs)} spots asked, {len(jobs) - len(todo)} already checkpointed (and kept), {len(todo)} to solve "
          f"(code version {version}, {args.workers} worker(s))", flush=True)
    if not args.assemble_only and todo:
        spots_to_solve = [(s, d, a, args.target, args.max_iterations, str(args.work)) for s, d, a in todo]
        if solve_all(_solve, spots_to_solve, args.workers, args.work) == 130:
            return 130
    spots = [s for s in (load_spot(p, version) for p in sorted(args.work.glob("*.npz"))) if s is not None]
    header = write_charts(spots, args.output)
    over = [s for s in spots if s.max_gain > (default_target(s.seats) if args.target is None else args.target)]
    print(f"wrote {args.output}: {header['spots']} spots ({len(over)} above their target), code version "
          f"{header['code_version']}, content sha256 {header['content_sha256'][:16]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
