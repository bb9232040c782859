"""Does power ICM's exponent transfer? Fitted leave-one-configuration-out and scored where it was not fitted.

Run: ``python scripts/beating_icm_transfer.py [--fields 100,1000] [--plays fullring,rules,coinflip]
[--payouts flat,standard,top-heavy] [--snapshots 30] [--seed 2040] [--output FILE]``. A configuration is a field
size, a payout shape (15% paid, pool 1,000: ``flat``, ``standard`` power law exponent 1, ``top-heavy`` 1.5) and a
play style (``--plays``). For each, ``--snapshots`` independent tournaments are played with records, and the
stacks taken when ``--left`` of the field is left (default 0.2: before the money, as the old report did). Every
model predicts each player's prize from those stacks and is scored against the prizes that tournament then paid
(:func:`pokerlab.simulation.study.snapshot_scores`: the squared error summed over the players still in, in (% of
the prizes still to pay)^2; unbiased up to a constant that is the same for every model on a snapshot).

Power ICM's exponent for a configuration is the grid value (``--grid``) with the smallest mean score over the
*other* configurations, each in squared fair shares (its score times its players left) and weighted equally
(:func:`pokerlab.stats.paired.leave_one_out`). On the one left out, power ICM at that exponent minus ICM is a
paired difference per snapshot; its Student-t interval and p-value are Holm-adjusted over every configuration.
The exponent a configuration would pick for itself (in sample) is printed beside it. Writes ``--output`` (JSON:
the commit, the seeds, the simulator's code digest and every configuration's chart description and full-ring
chart hash with the spots used, the per-snapshot scores at every grid exponent) and prints the table as markdown.
``--render FILE`` recomputes the fit and the table from a stored JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.icm import flat, icm, power_law
from pokerlab.icm.alternatives import power_icm
from pokerlab.provenance import sources_digest
from pokerlab.simulation import simulate
from pokerlab.simulation.core import SIMULATOR_SOURCES
from pokerlab.simulation.study import Model, snapshot_scores, source_commit
from pokerlab.stats.paired import holm, leave_one_out, paired_comparisons

SHAPES = {"flat": lambda paid: flat(paid, 1000.0), "standard": lambda paid: power_law(paid, 1000.0, 1.0),
          "top-heavy": lambda paid: power_law(paid, 1000.0, 1.5)}
PLAYS = ("fullring", "rules", "pushfold", "coinflip")


def _power(stacks: np.ndarray, pay: np.ndarray, alpha: float) -> np.ndarray:
    return power_icm(stacks, pay, alpha).equity


def one_configuration(players: int, shape: str, play: str, grid: np.ndarray, args: argparse.Namespace,
                      seed: int) -> dict[str, Any]:
    """The scores of ICM and of power ICM at every grid exponent on ``args.snapshots`` snapshots."""
    paid = max(2, players * 15 // 100)
    payouts = SHAPES[shape](paid)
    left = max(2, round(players * args.left))
    start = time.perf_counter()
    result = simulate(players=players, payouts=payouts, play=play, tournaments=args.snapshots, seed=seed,
                      snapshots=[left], records=True, workers=0)
    models: dict[str, Model] = {"icm": lambda s, p: icm(s, p).equity}
    for alpha in grid:
        models[f"{alpha:.2f}"] = partial(_power, alpha=float(alpha))
    scores = snapshot_scores(result, models)
    return {"players": players, "payouts": shape, "play": play, "paid": paid, "left": left, "seed": int(result.seed),
            "charts": result.tournament.describe()["charts"], "fullring_charts": result.fullring_charts,
            "scores": {name: values.tolist() for name, values in scores.items()},
            "elapsed_s": time.perf_counter() - start}


def transfer(configs: list[dict[str, Any]], grid: np.ndarray, confidence: float = 0.95) -> list[dict[str, Any]]:
    """Per configuration: the exponent fitted on the others, its own (in sample), and power ICM at the fitted
    exponent minus ICM on it (paired over its snapshots, Holm-adjusted over the configurations)."""
    names = [f"{alpha:.2f}" for alpha in grid]

    def fit(others: Sequence[dict[str, Any]]) -> int:
        # a score is in (% of the prizes left)^2 summed over the players left, about 1/left of the field's
        # scale: times the players left (squared fair shares), every configuration weighs alike
        means = [np.mean([np.mean(c["scores"][name]) * c["left"] for c in others]) for name in names]
        return int(np.argmin(means))

    def held_out(k: int, config: dict[str, Any]) -> float:
        return float(np.mean(np.asarray(config["scores"][names[k]]) - np.asarray(config["scores"]["icm"])))

    fitted = leave_one_out(configs, fit, held_out)
    rows = []
    for config, (k, _) in zip(configs, fitted, strict=True):
        pair = paired_comparisons({"icm": config["scores"]["icm"], "power": config["scores"][names[k]]}, "icm",
                                  confidence=confidence)[0]
        own = fit([config])
        rows.append({"players": config["players"], "payouts": config["payouts"], "play": config["play"],
                     "alpha_elsewhere": float(grid[k]), "alpha_own": float(grid[own]),
                     "snapshots": pair.replicates, "mean": pair.mean, "low": pair.low, "high": pair.high,
                     "p_value": pair.p_value})
    for row, p in zip(rows, holm([r["p_value"] for r in rows]), strict=True):
        row["p_holm"] = p
        row["separates"] = p < 1.0 - confidence
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| play | field | payouts | alpha fitted elsewhere | alpha in sample | snapshots | power ICM - ICM "
             "(score) | 95% interval | p (Holm) |", "|---|---:|---|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        mark = " *" if r["separates"] else ""
        lines.append(f"| {r['play']} | {r['players']:,} | {r['payouts']} | {r['alpha_elsewhere']:.2f} | "
                     f"{r['alpha_own']:.2f} | {r['snapshots']} | {r['mean']:+.3f}{mark} | [{r['low']:+.3f}, "
                     f"{r['high']:+.3f}] | {r['p_holm']:.3g} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", default="100,1000", help="field sizes (comma separated)")
    parser.add_argument("--payouts", default="flat,standard,top-heavy", help=f"shapes: {', '.join(SHAPES)}")
    parser.add_argument("--plays", default="fullring,rules,coinflip", help=f"play styles: {', '.join(PLAYS)}")
    parser.add_argument("--snapshots", type=int, default=30, help="independent snapshots per configuration")
    parser.add_argument("--left", type=float, default=0.2, help="share of the field left at the snapshot")
    parser.add_argument("--grid", default="0.5:1.5:0.05", help="exponents tried: START:STOP:STEP (inclusive)")
    parser.add_argument("--seed", type=int, default=2040)
    parser.add_argument("--output", default="beating-icm-transfer.json", help="JSON output file")
    parser.add_argument("--render", default=None, help="recompute the fit and the table from this stored JSON")
    args = parser.parse_args()
    if args.render:
        try:
            stored = json.loads(Path(args.render).read_text(encoding="utf-8"))
            rows = transfer(stored["configurations"], np.asarray(stored["grid"]))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as error:
            print(f"error: {args.render} is not a stored transfer study ({type(error).__name__}: {error}); "
                  "give the JSON this script wrote", file=sys.stderr)
            raise SystemExit(2) from None
        stored["transfer"] = rows
        stored["rendered_by_commit"] = source_commit()
        Path(args.render).write_text(json.dumps(stored, separators=(",", ":")) + "\n", encoding="utf-8")
        print(table(rows))
        return
    try:
        fields = [int(f) for f in args.fields.split(",")]
        shapes = args.payouts.split(",")
        plays = args.plays.split(",")
        lo, hi, step = (float(x) for x in args.grid.split(":"))
        grid = np.round(np.arange(lo, hi + step / 2, step), 4)
        unknown = [s for s in shapes if s not in SHAPES] + [p for p in plays if p not in PLAYS]
        if unknown or args.snapshots < 2 or not 0 < args.left < 1 or grid.size < 1 or grid.min() <= 0:
            raise ValueError(f"unknown payout shape or play {unknown}, or snapshots < 2, left outside (0, 1) or "
                             "an empty grid")
        if len(fields) * len(shapes) * len(plays) < 2:
            raise ValueError("leave-one-out needs at least 2 configurations")
        output = Path(args.output)
        if not output.parent.is_dir() or output.is_dir():
            raise ValueError(f"--output {output}: no folder {output.parent}" if not output.parent.is_dir() else
                             f"--output {output} is a folder")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    start = time.perf_counter()
    configs: list[dict[str, Any]] = []
    try:
        for players in fields:
            for shape in shapes:
                for play in plays:
                    configs.append(one_configuration(players, shape, play, grid, args, args.seed + len(configs)))
                    print(f"{players:,} {shape} {play}: {configs[-1]['elapsed_s']:.0f} s", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {len(configs)} configurations; nothing kept", file=sys.stderr)
        raise SystemExit(130) from None
    except PokerlabError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    rows = transfer(configs, grid)
    elapsed = time.perf_counter() - start
    command = "python scripts/beating_icm_transfer.py " + " ".join(sys.argv[1:])
    meta = {"command": command, "commit": source_commit(), "code": sources_digest([*SIMULATOR_SOURCES, "pushfold"]),
            "elapsed_s": elapsed, "cores": os.cpu_count(), "machine": platform.machine(),
            "load_average": os.getloadavg()[0], "seed": args.seed, "grid": grid.tolist()}
    partial = output.with_name(output.name + ".partial")  # an earlier result is replaced whole or not at all
    partial.write_text(json.dumps({**meta, "transfer": rows, "configurations": configs}, separators=(",", ":"))
                       + "\n", encoding="utf-8")
    os.replace(partial, output)
    print(f"`{command}`: {elapsed / 60:.1f} min on {os.cpu_count()} cores (load average "
          f"{meta['load_average']:.1f} at the end), commit {meta['commit']}\n")
    print(table(rows))
    print(f"\n{len(rows)} configurations; the JSON is {output}")


if __name__ == "__main__":
    main()
