"""Reproduce docs/beating-icm.md with one command, at a stated scale.

Run: ``python scripts/beating_icm_reproduce.py [--scale small|hour|full] [--parallel N] [--workers N] [--ray ADDRESS]
[--output FILE]``. ``small`` (the default; within 15 minutes on 2 cores) runs, at a quarter or less of the page's
replicates and with the page's seeds: the decisions table at 100 players (every payout shape and stage, section 1.2),
the turbo structure's bubble and final table (section 1.3) and the exponent's transfer at 100 and 1,000 players
(section 2.1). ``hour`` (about an hour on 2 cores) runs every configuration and stage of the page once, decisions
and predictions: sections 1.2-1.5 with at least 30 snapshots a case at 100 and 1,000 players (whole tournaments: 120
and 40) and 6 at 10,000 (one whole tournament), section 2.1, 2.2's calibration and 2.3's call thresholds as the page
gives them; no replication. ``full`` runs every command of sections 1.2-1.5 and 2.1 as the page gives it (its seeds
and scale, the replication runs included; about 2.3 hours on 2 cores by its steps' own times). Steps run
``--parallel`` at a time (default: every core), one process each; a decisions step given ``--workers`` local
processes (their results do not depend on it) or a Ray cluster (``--ray``) runs alone.

Each step is one of the study scripts (``beating_icm_decisions.py``, ``beating_icm_transfer.py``,
``beating_icm.py``, ``beating_icm_thresholds.py``) in a child process; the one JSON written at the end holds the
commit, every step's command, seed and whole result, and every chart file's content hash (``chart_files``, with the
over-call file's hash where a step names it) and chart description hash (``chart_descriptions``) any step used.

Bad input (an unknown scale, an output folder that does not exist, a step's own refusal) is one line and exit 2;
Ctrl-C stops the running steps at once, one line, exit 130. The output is written only when every step has
finished (atomically): a failed or interrupted run overwrites nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from pokerlab.simulation.study import source_commit

SCRIPTS = Path(__file__).resolve().parent
DECISIONS, TRANSFER = "beating_icm_decisions.py", "beating_icm_transfer.py"
CALIBRATION, THRESHOLDS = "beating_icm.py", "beating_icm_thresholds.py"
Step = tuple[str, str, list[str]]


def _decisions(*steps: tuple[str, str]) -> list[Step]:
    return [(name, DECISIONS, arguments.split()) for name, arguments in steps]


STRUCTURE_STEPS = _decisions(  # sections 1.3-1.5 at the page's scale (30 snapshots a case or more)
    ("default schedule, 100 players (1.3)", "--fields 100 --payouts standard --scale 3 --seed 2100"),
    *((f"{structure}, 100 players (1.3)",
       f"--fields 100 --payouts standard --scale 3 --seed {seed} --structure {structure}")
      for structure, seed in (("turbo", 2101), ("regular", 2102), ("deep", 2103))),
    ("ICM-aware field, 100 players (1.3)", "--fields 100 --payouts standard --scale 3 --seed 2104 "
     "--structure regular --field fullring:0.6,icm:0.2,fullring-tight:0.2"),
    ("tight field, 100 players (1.3)", "--fields 100 --payouts standard --scale 3 --seed 2105 "
     "--structure regular --field fullring:0.7,fullring-tight:0.3"),
    *((f"{structure}, 1,000 players, bubble (1.3)",
       f"--fields 1000 --payouts standard --stages bubble --scale 5 --seed {seed} --structure {structure}")
      for structure, seed in (("turbo", 2110), ("regular", 2111))),
    ("tight field, 1,000 players, bubble (1.3)", "--fields 1000 --payouts standard --stages bubble "
     "--scale 5 --seed 2112 --structure regular --field fullring:0.7,fullring-tight:0.3"),
)
PAYOUT_STEPS = _decisions(
    *((f"{structure}, flat bubble (1.4)",
       f"--fields 100 --payouts flat --stages bubble --scale 3 --structure {structure} --seed {seed}")
      for structure, seed in (("turbo", 2120), ("regular", 2122), ("deep", 2124))),
    *((f"{structure}, top-heavy (1.4)", f"--fields 100 --payouts top-heavy --stages bubble,final --scale 3 "
       f"--structure {structure} --seed {seed}")
      for structure, seed in (("turbo", 2121), ("regular", 2123), ("deep", 2125))),
    ("ICM-aware field, flat and top-heavy (1.4)", "--fields 100 --payouts flat,top-heavy --stages "
     "bubble,final --scale 3 --structure regular --field fullring:0.6,icm:0.2,fullring-tight:0.2 --seed 2126"),
    ("FGS heroes at final tables (1.5)", "--fields 100 --payouts standard,top-heavy --stages final "
     "--scale 3 --structure regular --fgs 1 --seed 2130"),
)
TRANSFER_STEP: Step = ("transfer, 100 and 1,000 players (2.1)", TRANSFER,
                       ["--fields", "100,1000", "--snapshots", "60", "--seed", "2040"])
STEPS: dict[str, list[Step]] = {
    "small": [
        ("decisions, 100 players (1.2)", DECISIONS, ["--fields", "100", "--scale", "1", "--seed", "2027"]),
        ("turbo, 100 players, bubble and final (1.3)", DECISIONS,
         ["--fields", "100", "--payouts", "standard", "--stages", "bubble,final", "--scale", "1",
          "--structure", "turbo", "--seed", "2101"]),
        ("transfer, 100 and 1,000 players (2.1)", TRANSFER,
         ["--fields", "100,1000", "--snapshots", "20", "--seed", "2040"]),
    ],
    "hour": [  # the longest steps first, so that two at a time finish together
        ("call thresholds (2.3)", THRESHOLDS, ["--payouts", "flat,standard,top-heavy", "--snapshots", "5",
                                               "--continuations", "10000", "--seed", "2150"]),
        ("calibration (2.2)", CALIBRATION, ["--plays", "coinflip,rules,fullring", "--scale", "5", "--seed", "2026"]),
        *_decisions(("decisions, 1,000 players (1.2)", "--fields 1000 --scale 5 --seed 2050")),
        PAYOUT_STEPS[-1],
        *_decisions(
            ("decisions, 100 players (1.2)", "--fields 100 --scale 3 --seed 2027"),
            ("decisions, 10,000 players, bubble and final (1.2)",
             "--fields 10000 --stages bubble,final --scale 2 --seed 2032"),
        ),
        *STRUCTURE_STEPS, *PAYOUT_STEPS[:-1],
        *_decisions(("decisions, 10,000 players, early (1.2)", "--fields 10000 --stages early --scale 0.5 "
                                                                "--seed 2031")),
        TRANSFER_STEP,
    ],
    "full": [
        *_decisions(
            ("decisions, 100 players (1.2)", "--fields 100 --scale 4 --seed 2027"),
            ("decisions, 1,000 players, bubble (1.2)", "--fields 1000 --stages bubble --scale 2 --seed 2050"),
            *((f"decisions, 1,000 players, {shape} {stage} (1.2)",
               f"--fields 1000 --payouts {shape} --stages {stage} --scale 2 --seed {seed}")
              for stage, seeds in (("final", (2029, 2032, 2035)), ("early", (2027, 2030, 2033)))
              for shape, seed in zip(("flat", "standard", "top-heavy"), seeds, strict=True)),
            ("decisions, 10,000 players, standard and top-heavy (1.2)",
             "--fields 10000 --payouts standard,top-heavy --stages bubble,final --scale 2 --seed 2032"),
            ("decisions, 10,000 players, flat (1.2)",
             "--fields 10000 --payouts flat --stages bubble,final --scale 2 --seed 2036"),
            ("decisions, 10,000 players, early (1.2)",
             "--fields 10000 --payouts standard --stages early --scale 0.5 --seed 2031"),
            ("replication, 10,000 players, bubble and final (1.2)",
             "--fields 10000 --stages bubble,final --scale 10 --seed 2070"),
            ("replication, 10,000 players, early (1.2)", "--fields 10000 --stages early --scale 5 --seed 2080"),
            ("replication, 1,000 players (1.2)", "--fields 1000 --scale 6 --seed 2200"),
            ("replication, 100 players (1.2)", "--fields 100 --scale 8 --seed 2300"),
        ),
        *STRUCTURE_STEPS,
        *_decisions(*((f"replication, {structure}, 1,000 players, bubble (1.3)",
                       f"--fields 1000 --payouts standard --stages bubble --scale 5 --seed {seed} "
                       f"--structure {structure}") for structure, seed in (("turbo", 2210), ("regular", 2211)))),
        *PAYOUT_STEPS, TRANSFER_STEP,
    ],
}


def chart_hashes(result: Any) -> Iterator[tuple[str, Any]]:
    """Every chart hash a step's JSON names, wherever it sits: ``("file", header)`` for a chart file's content hash
    (with its format, code version and, where named, the over-call file's content hash), ``("description", sha)``
    for a chart description's hash."""
    if isinstance(result, dict):
        if isinstance(result.get("content_sha256"), str):
            yield "file", {key: result[key] for key in ("content_sha256", "format", "code_version",
                                                      "overcall_content_sha256") if key in result}
        charts = result.get("charts")
        for value in (charts.values() if isinstance(charts, dict) else [charts]):
            if isinstance(value, str) and len(value) == 64:
                yield "description", value
        for value in result.values():
            yield from chart_hashes(value)
    elif isinstance(result, list):
        for value in result:
            yield from chart_hashes(value)


def output_arguments(script: str, output: Path) -> list[str]:
    """The options that send a study script's JSON to ``output`` (the calibration script also writes its results
    section and figures: beside ``output``, not into docs/)."""
    if script == CALIBRATION:
        return ["--json", str(output), "--doc", str(output.with_suffix(".md"))]
    return ["--output", str(output)]


class StepFailed(Exception):
    """A step ended with a nonzero exit status (it printed its own error line)."""

    def __init__(self, index: int, status: int) -> None:
        super().__init__(index, status)
        self.index, self.status = index, status


def run_plan(commands: list[tuple[str, list[str], Path]], parallel: int, alone: set[int],
             started: Callable[[int], None], results: dict[int, tuple[str, float]]) -> None:
    """Run study scripts, each ``(script, arguments, output)`` in a child process of its own session (Ctrl-C
    reaches only this process, which stops the children), up to ``parallel`` at once in the given order, a step
    in ``alone`` (one that uses every core itself) with nothing beside it; their stderr (progress, errors) passes
    through. Each finished step's stdout and seconds go into ``results``; the first step that fails stops the
    others (StepFailed)."""
    running: dict[int, tuple[subprocess.Popen[str], IO[str], float]] = {}
    pending = list(range(len(commands)))

    def can_start() -> bool:  # a step that uses every core starts on an idle machine, and nothing beside it
        if not pending or len(running) >= parallel:
            return False
        return not running or (pending[0] not in alone and not alone & running.keys())

    try:
        while pending or running:
            while can_start():
                k = pending.pop(0)
                script, arguments, output = commands[k]
                out = output.with_suffix(".stdout").open("w+", encoding="utf-8")
                child = subprocess.Popen([sys.executable, str(SCRIPTS / script), *arguments,
                                          *output_arguments(script, output)],
                                         stdout=out, text=True, start_new_session=True)
                running[k] = (child, out, time.perf_counter())
                started(k)
            time.sleep(0.1)
            for k, (child, out, began) in list(running.items()):
                if child.poll() is None:
                    continue
                del running[k]
                out.seek(0)
                results[k] = (out.read(), time.perf_counter() - began)
                out.close()
                if child.returncode != 0:
                    raise StepFailed(k, child.returncode)
    finally:  # Ctrl-C or a failed step: the steps still running are stopped
        for child, out, _ in running.values():
            child.kill()
            child.wait()
            out.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="small", help=f"one of {', '.join(STEPS)}")
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 1,
                        help="steps run at once, one process each (default: every core)")
    parser.add_argument("--workers", type=int, default=0,
                        help="local processes for each decisions step (0, the default: the step's own process; "
                        "such a step then runs alone)")
    parser.add_argument("--ray", default=None, help="Ray address for the decisions steps (local, HOST:PORT)")
    parser.add_argument("--output", default="beating-icm-reproduced.json", help="JSON output file")
    args = parser.parse_args()
    output = Path(args.output)
    problem = (f"unknown scale {args.scale!r}: use one of {', '.join(STEPS)}" if args.scale not in STEPS else
               f"no folder {output.parent} for --output" if not output.parent.is_dir() else
               f"--output {output} is a folder" if output.is_dir() else
               f"--workers {args.workers}: give 0 or more" if args.workers < 0 else
               f"--parallel {args.parallel}: give 1 or more" if args.parallel < 1 else None)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    command = "python scripts/beating_icm_reproduce.py " + " ".join(sys.argv[1:])
    start, load_start = time.perf_counter(), os.getloadavg()[0]
    steps: list[dict[str, Any]] = []
    plan = STEPS[args.scale]
    with tempfile.TemporaryDirectory(prefix="beating-icm-") as scratch:
        commands = []
        for k, (_, script, arguments) in enumerate(plan):
            if script == DECISIONS:
                arguments = [*arguments, *(["--ray", args.ray] if args.ray else ["--workers", str(args.workers)])]
            commands.append((script, arguments, Path(scratch) / f"step-{k}.json"))
        alone = {k for k, (_, script, _) in enumerate(plan) if script == DECISIONS and (args.ray or args.workers)}

        def started(k: int) -> None:
            print(f"step {k + 1}/{len(plan)}: {plan[k][0]}", file=sys.stderr, flush=True)

        ran: dict[int, tuple[str, float]] = {}
        try:
            run_plan(commands, args.parallel, alone, started, ran)
        except KeyboardInterrupt:
            print(f"\ninterrupted after {len(ran)} of {len(plan)} finished steps; nothing written", file=sys.stderr)
            raise SystemExit(130) from None
        except StepFailed as failed:
            if failed.status not in (2, 130):
                print(f"error: step {failed.index + 1} ({plan[failed.index][0]}) failed with exit status "
                      f"{failed.status}", file=sys.stderr)
            raise SystemExit(2 if failed.status == 2 else failed.status) from None
        for k, (name, script, _) in enumerate(plan):
            tables, elapsed = ran[k]
            written = commands[k][2]
            result = json.loads(written.read_text(encoding="utf-8"))
            steps.append({"name": name, "command": f"python scripts/{script} {' '.join(commands[k][1])}",
                          "seed": result.get("seed"), "elapsed_s": elapsed, "tables": tables, "result": result})
    files: dict[str, Any] = {}
    descriptions: set[str] = set()
    for kind, value in chart_hashes([step["result"] for step in steps]):
        if kind == "file":
            files.setdefault(value["content_sha256"], {}).update(value)
        else:
            descriptions.add(value)
    elapsed = time.perf_counter() - start
    meta = {"command": command, "commit": source_commit(), "scale": args.scale, "elapsed_s": elapsed,
            "cores": os.cpu_count(), "machine": platform.machine(), "load_average_start": load_start,
            "load_average_end": os.getloadavg()[0], "seeds": {step["name"]: step["seed"] for step in steps},
            "chart_files": sorted(files.values(), key=lambda header: str(header["content_sha256"])),
            "chart_descriptions": sorted(descriptions)}
    partial = output.with_name(output.name + ".partial")
    partial.write_text(json.dumps({**meta, "steps": steps}, separators=(",", ":")) + "\n", encoding="utf-8")
    os.replace(partial, output)
    for step in steps:
        print(f"## {step['name']}\n\n`{step['command']}` ({step['elapsed_s'] / 60:.1f} min)\n\n{step['tables']}")
    print(f"`{command}`: {elapsed / 60:.1f} min on {os.cpu_count()} cores (load average {load_start:.1f} at the "
          f"start, {meta['load_average_end']:.1f} at the end), commit {meta['commit']}; chart files "
          f"{', '.join(str(h)[:16] for h in files)}; the JSON is {output}")


if __name__ == "__main__":
    main()
