"""Reproduce docs/beating-icm.md with one command, at a stated scale.

Run: ``python scripts/beating_icm_reproduce.py [--scale small|hour|full] [--workers N] [--ray ADDRESS]
[--output FILE]``. ``small`` (the default; within 15 minutes on 2 cores) runs, at a quarter or less of the page's
replicates and with the page's seeds: the decisions table at 100 players (every payout shape and stage, section 1.2),
the turbo structure's bubble and final table (section 1.3) and the exponent's transfer at 100 and 1,000 players
(section 2.1). ``hour`` (about an hour on 2 cores) runs every configuration and stage of the page once, decisions
and predictions: sections 1.2-1.5 with at least 30 snapshots a case at 100 and 1,000 players (whole tournaments: 120
and 40) and 6 at 10,000 (one whole tournament), section 2.1, 2.2's calibration and 2.3's call thresholds as the page
gives them; no replication. ``full`` runs every command of sections 1.2-1.5 and 2.1 as the page gives it (its seeds
and scale, the replication runs included; about 2.3 hours on 2 cores by its steps' own times). The decisions steps
run on ``--workers`` local processes (default: every core; their results do not depend on it) or, with ``--ray``, on
a Ray cluster; the other steps run here, one process each.

Each step is one of the study scripts (``beating_icm_decisions.py``, ``beating_icm_transfer.py``,
``beating_icm.py``, ``beating_icm_thresholds.py``) in a child process; the one JSON written at the end holds the
commit, every step's command, seed and whole result, and every chart file's content hash (``chart_files``, with the
over-call file's hash where a step names it) and chart description hash (``chart_descriptions``) any step used.

Bad input (an unknown scale, an output folder that does not exist, a step's own refusal) is one line and exit 2;
Ctrl-C stops the running step at once, one line, exit 130. The output is written only when every step has
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
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

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
    "hour": [
        *_decisions(
            ("decisions, 100 players (1.2)", "--fields 100 --scale 3 --seed 2027"),
            ("decisions, 1,000 players (1.2)", "--fields 1000 --scale 5 --seed 2050"),
            ("decisions, 10,000 players, bubble and final (1.2)",
             "--fields 10000 --stages bubble,final --scale 2 --seed 2032"),
            ("decisions, 10,000 players, early (1.2)", "--fields 10000 --stages early --scale 0.5 --seed 2031"),
        ),
        *STRUCTURE_STEPS, *PAYOUT_STEPS,
        ("calibration (2.2)", CALIBRATION, ["--plays", "coinflip,rules,fullring", "--scale", "5", "--seed", "2026"]),
        ("call thresholds (2.3)", THRESHOLDS, ["--payouts", "flat,standard,top-heavy", "--snapshots", "5",
                                               "--continuations", "10000", "--seed", "2150"]),
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


def run_steps(commands: list[tuple[str, list[str], Path]]) -> list[tuple[int, str, float]]:
    """Run study scripts at once, each ``(script, arguments, output)`` in a child process of its own session
    (Ctrl-C reaches only this process, which stops the children); their stderr (progress, errors) passes through;
    returns each one's exit status, stdout and seconds to its end."""
    start = time.perf_counter()
    children: list[subprocess.Popen[str]] = []
    ended: dict[int, float] = {}
    with ExitStack() as files:
        outs = [files.enter_context(output.with_suffix(".stdout").open("w+", encoding="utf-8"))
                for _, _, output in commands]
        try:
            for (script, arguments, output), out in zip(commands, outs, strict=True):
                children.append(subprocess.Popen(
                    [sys.executable, str(SCRIPTS / script), *arguments, *output_arguments(script, output)],
                    stdout=out, text=True, start_new_session=True))
            while len(ended) < len(children):
                for k, child in enumerate(children):
                    if k not in ended and child.poll() is not None:
                        ended[k] = time.perf_counter() - start
                time.sleep(0.1)
        except KeyboardInterrupt:
            for child in children:
                child.kill()
            for child in children:
                child.wait()
            raise
        results = []
        for k, (child, out) in enumerate(zip(children, outs, strict=True)):
            out.seek(0)
            results.append((child.returncode, out.read(), ended[k]))
    return results


def batches(plan: list[Step], parallel: int) -> list[list[int]]:
    """The steps' indexes in the order they run: a decisions step alone (it uses every worker), the other steps
    (one process each) up to ``parallel`` at a time.

    >>> batches([("a", DECISIONS, []), ("b", TRANSFER, []), ("c", THRESHOLDS, []), ("d", CALIBRATION, [])], 2)
    [[0], [1, 2], [3]]
    """
    out: list[list[int]] = []
    for k, (_, script, _) in enumerate(plan):
        if script != DECISIONS and out and plan[out[-1][0]][1] != DECISIONS and len(out[-1]) < parallel:
            out[-1].append(k)
        else:
            out.append([k])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="small", help=f"one of {', '.join(STEPS)}")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="local processes for each decisions step (default: every core; 0: the step's own)")
    parser.add_argument("--ray", default=None, help="Ray address for the decisions steps (local, HOST:PORT)")
    parser.add_argument("--output", default="beating-icm-reproduced.json", help="JSON output file")
    args = parser.parse_args()
    output = Path(args.output)
    problem = (f"unknown scale {args.scale!r}: use one of {', '.join(STEPS)}" if args.scale not in STEPS else
               f"no folder {output.parent} for --output" if not output.parent.is_dir() else
               f"--output {output} is a folder" if output.is_dir() else
               f"--workers {args.workers}: give 0 or more" if args.workers < 0 else None)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    command = "python scripts/beating_icm_reproduce.py " + " ".join(sys.argv[1:])
    start, load_start = time.perf_counter(), os.getloadavg()[0]
    steps: list[dict[str, Any]] = []
    plan = STEPS[args.scale]
    parallel = max(1, (os.cpu_count() or 1) if args.ray else args.workers)
    with tempfile.TemporaryDirectory(prefix="beating-icm-") as scratch:
        for batch in batches(plan, parallel):
            commands = []
            for k in batch:
                name, script, arguments = plan[k]
                if script == DECISIONS:
                    arguments = [*arguments, *(["--ray", args.ray] if args.ray else ["--workers", str(args.workers)])]
                commands.append((script, arguments, Path(scratch) / f"step-{k}.json"))
                print(f"step {k + 1}/{len(plan)}: {name}", file=sys.stderr, flush=True)
            try:
                ran = run_steps(commands)
            except KeyboardInterrupt:
                names = ", ".join(f"{k + 1} ({plan[k][0]})" for k in batch)
                print(f"\ninterrupted in step {names} after {len(steps)} finished steps; nothing written",
                      file=sys.stderr)
                raise SystemExit(130) from None
            for k, (script, arguments, written), (status, tables, elapsed) in zip(batch, commands, ran, strict=True):
                name = plan[k][0]
                if status != 0:  # the step printed its own one-line error
                    if status not in (2, 130):
                        print(f"error: step {k + 1} ({name}) failed with exit status {status}", file=sys.stderr)
                    raise SystemExit(2 if status == 2 else status)
                result = json.loads(written.read_text(encoding="utf-8"))
                steps.append({"name": name, "command": f"python scripts/{script} {' '.join(arguments)}",
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
