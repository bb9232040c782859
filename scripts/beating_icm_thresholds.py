"""Section 2.3 of docs/beating-icm.md: slopes, not levels. The equity a player needs to call an all-in, by each
model (ICM, power ICM at an exponent fitted elsewhere, Malmuth-Weitzman where exact, chip EV) against simulated
continuations of the same three stack states.

Run: ``python scripts/beating_icm_thresholds.py [--plays fullring,rules,coinflip] [--payouts
flat,standard,top-heavy] [--snapshots 5] [--continuations 10000] [--seed 2150] [--players 100] --output FILE`` (the
defaults are the page's first run). For each play model and payout shape (``--players`` players, 15% paid, pool
1,000): ``--snapshots`` independent tournaments are played to ``--left`` players (by default one more than the paid
places: the bubble); in each, six calls are measured (the short, middle and big stacks, 20th, 50th and 80th
percentile, each calling each other's all-in), every state from ``--continuations`` continuations on common random
numbers (``pokerlab.simulation.thresholds``). Writes one JSON (the commit, seeds, simulator digest, every threshold
and score) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.icm import flat, power_law
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fullring_charts import overcall_hash, overcalls_of, shipped_charts
from pokerlab.simulation import default_schedule
from pokerlab.simulation.analysis import field_snapshot
from pokerlab.simulation.core import SIMULATOR_SOURCES, parse_play
from pokerlab.simulation.study import source_commit
from pokerlab.simulation.thresholds import call_thresholds, threshold_scores

START = 10_000
SHAPES = {"flat": lambda paid: flat(paid, 1000.0), "standard": lambda paid: power_law(paid, 1000.0, 1.0),
          "top-heavy": lambda paid: power_law(paid, 1000.0, 1.5)}
ROLES = (0.2, 0.5, 0.8)  # the stack percentiles of the short, middle and big stack


def role_pairs(stacks: np.ndarray) -> list[tuple[int, int]]:
    """Every ordered pair of the short, middle and big stacks (the players at :data:`ROLES` percentiles)."""
    order = np.argsort(stacks, kind="stable")
    roles = [int(order[round(q * (stacks.size - 1))]) for q in ROLES]
    return [(a, b) for a in roles for b in roles if a != b]


def one_configuration(play: str, shape: str, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """One play model and payout shape: every snapshot's six thresholds and the models' scores over them."""
    paid = args.players * 15 // 100
    payouts = SHAPES[shape](paid)
    start = time.perf_counter()
    groups, snaps = [], []
    for k in range(args.snapshots):
        for attempt in range(10):  # a hand that busts two players can pass the bubble: that tournament is redrawn
            stacks, level = field_snapshot(args.players, payouts, play, args.left,
                                           seed + 100 * k + 10 * attempt, START)
            if stacks.size > paid:
                break
        else:
            raise PokerlabError(f"ten tournaments in a row passed the bubble before {args.left} were left")
        found = call_thresholds(stacks, payouts, role_pairs(stacks), continuations=args.continuations,
                                seed=seed + 100 * k + 10 * attempt + 1, alpha=args.alpha, play=play, table_size=9,
                                start_level=level, schedule=default_schedule(START))
        groups.append(found)
        snaps.append({"stacks": stacks.tolist(), "level": level, "redrawn": attempt,
                      "thresholds": [t.to_dict() for t in found]})
    return {"play": play, "payouts": shape, "players": args.players, "paid": paid, "left": args.left,
            "continuations": args.continuations, "alpha": args.alpha, "seed": seed, "snapshots": snaps,
            "scores": [s.to_dict() for s in threshold_scores(groups)], "elapsed_s": time.perf_counter() - start}


def table(configurations: list[dict[str, Any]]) -> str:
    """The scores as a markdown table: each model's RMS error in required equity (percentage points) and its
    mean squared error minus ICM's with a 95% interval."""
    lines = ["| play | payouts | thresholds | simulated (range) | ICM | power ICM | Malmuth-Weitzman | chip EV | "
             "power ICM MSE - ICM's | MW MSE - ICM's | chip EV MSE - ICM's |",
             "|---|---|---:|---|---:|---:|---:|---:|---|---|---|"]
    for c in configurations:
        scores = {s["model"]: s for s in c["scores"]}
        sims = [t["simulated"] for s in c["snapshots"] for t in s["thresholds"]]

        def rms(name: str, scores: dict[str, Any] = scores) -> str:
            return f"{100 * scores[name]['rms']:.1f}" if name in scores else "-"

        def diff(name: str, scores: dict[str, Any] = scores) -> str:
            if name not in scores:
                return "-"
            s = scores[name]
            return f"{1e4 * s['mse_minus_icm']:+.1f} ± {1.96e4 * s['mse_minus_icm_stderr']:.1f}"

        lines.append(f"| {c['play']} | {c['payouts']} | {len(sims)} | {min(sims):.2f}-{max(sims):.2f} | {rms('icm')} "
                     f"| {rms('power-icm')} | {rms('malmuth-weitzman')} | {rms('chip-ev')} | {diff('power-icm')} "
                     f"| {diff('malmuth-weitzman')} | {diff('chip-ev')} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", default="fullring,rules,coinflip", help="play models (comma separated)")
    parser.add_argument("--payouts", default="flat,standard,top-heavy", help=f"shapes: {', '.join(SHAPES)}")
    parser.add_argument("--snapshots", type=int, default=5, help="independent tournaments per configuration")
    parser.add_argument("--continuations", type=int, default=10_000, help="continuations of each stack state")
    parser.add_argument("--players", type=int, default=100, help="players in each tournament (15%% are paid)")
    parser.add_argument("--left", type=int, default=None, help="players left at the snapshot (default: one more "
                        "than the paid places, the bubble)")
    parser.add_argument("--alpha", type=float, default=0.9, help="power ICM's exponent (fitted elsewhere: 2.1)")
    parser.add_argument("--seed", type=int, default=2150)
    parser.add_argument("--output", default="beating-icm-thresholds.json", help="JSON output file")
    args = parser.parse_args()
    try:
        plays = args.plays.split(",")
        for play in plays:
            parse_play(play)
        shapes = args.payouts.split(",")
        if any(s not in SHAPES for s in shapes):
            raise ValueError(f"--payouts {args.payouts}: give shapes among {', '.join(SHAPES)}")
        if not 20 <= args.players <= 100_000:
            raise ValueError(f"--players {args.players}: give 20 to 100,000 players")
        paid = args.players * 15 // 100
        args.left = paid + 1 if args.left is None else args.left
        if args.snapshots < 1 or args.continuations < 128 or not paid < args.left < args.players or args.seed < 0:
            raise ValueError(f"give --snapshots of 1 or more, --continuations of 128 or more, --left from {paid + 1} "
                             f"(one more than the paid places) to {args.players - 1} and a --seed of 0 or more")
        if not 0 < args.alpha <= 4:
            raise ValueError(f"--alpha {args.alpha}: give an exponent in (0, 4]")
        output = Path(args.output)
        if not output.parent.is_dir() or output.is_dir():
            raise ValueError(f"--output {output}: no folder {output.parent}" if not output.parent.is_dir() else
                             f"--output {output} is a folder")
    except (ValueError, PokerlabError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    start = time.perf_counter()
    configurations: list[dict[str, Any]] = []
    try:
        for play in plays:
            for shape in shapes:
                configurations.append(one_configuration(play, shape, args, args.seed + 1000 * len(configurations)))
                print(f"{play} {shape}: {configurations[-1]['elapsed_s']:.0f} s", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {len(configurations)} configurations; nothing written", file=sys.stderr)
        raise SystemExit(130) from None
    except PokerlabError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    elapsed = time.perf_counter() - start
    command = "python scripts/beating_icm_thresholds.py " + " ".join(sys.argv[1:])
    meta = {"command": command, "commit": source_commit(), "code": sources_digest([*SIMULATOR_SOURCES, "pushfold"]),
            "seed": args.seed, "elapsed_s": elapsed, "cores": os.cpu_count(), "machine": platform.machine(),
            "load_average": os.getloadavg()[0]}
    if any(play.startswith("fullring") for play in plays):  # the chart and over-call files the field read
        charts = shipped_charts()
        meta["fullring_charts"] = {**{key: charts.header[key] for key in ("content_sha256", "format", "code_version")},
                                   "overcall_content_sha256": overcall_hash(overcalls_of(charts))}
    partial = output.with_name(output.name + ".partial")  # an earlier result is replaced whole or not at all
    partial.write_text(json.dumps({**meta, "configurations": configurations}, separators=(",", ":")) + "\n",
                       encoding="utf-8")
    os.replace(partial, output)
    print(f"`{command}`: {elapsed / 60:.1f} min on {os.cpu_count()} cores (load average {meta['load_average']:.1f} "
          f"at the end), commit {meta['commit']}\n\n{table(configurations)}")


if __name__ == "__main__":
    main()
