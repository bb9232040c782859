"""The decisions table of "Beating ICM": heroes deciding by each model against the same heroes deciding by ICM,
on the same seeds, per field size, payout shape and stage; the paired difference of their realised prize with
Student-t intervals, Holm-adjusted over the models of each case (:func:`pokerlab.simulation.study.decision_study`).

Run: ``python scripts/beating_icm_decisions.py [--fields 100,1000,10000] [--scale 1] [--ray local]``. Every case:
a field of ``--field`` players (``fullring``: the shipped full-ring charts by position, the default; ``pushfold``:
the heads-up charts at every table; or a mix of kinds such as ``fullring:0.6,icm:0.2,fullring-tight:0.2``:
chart players, ICM-aware players, tight full-ring players), on the blind ``--structure`` (``turbo``,
``regular``, ``deep``; default the simulator's default schedule), 15% paid, pool 1,000, payouts ``flat`` (equal),
``standard`` (power law, exponent 1) or ``top-heavy`` (power law, exponent 1.5); a ``--hero-share`` of the field
decides by each model. Stages: ``early`` (whole tournaments, one replicate each), ``bubble`` and ``final``
(continuations of ``snapshots`` field snapshots, one replicate each). Models: ``chip-ev``, ``power-icm@ALPHA``
(``--alpha``: an exponent fitted elsewhere, given here), ``harville@DISCOUNT`` and ``malmuth-weitzman`` (the last
two decide by exact recursions over the players left: final tables only), and with ``--fgs DEPTHS`` (``1``,
``1,2``) ``fgs@DEPTH`` (the next hands played out at the one table: final tables only, refused with any other
stage). Every case records the average stack in
big blinds where the heroes start (per snapshot). Writes ``--output`` (JSON: the commit,
every case's seed, code digest and chart hashes (the full-ring chart file's content hash and every spot each
model's runs used; the FGS heroes' tables' hash), the per-replicate prizes) and prints the table as markdown.
``--checkpoint DIR`` keeps every finished chunk (one folder per case, snapshot and model): rerun the same command
to resume exactly; Ctrl-C stops with one line and exit 130.
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

from pokerlab.errors import PokerlabError
from pokerlab.icm import flat, power_law
from pokerlab.pushfold.fullring_charts import read_charts, shipped_charts
from pokerlab.simulation.core import RING_MODELS, model_parts, parse_play, prepare
from pokerlab.simulation.schedule import STRUCTURES
from pokerlab.simulation.study import STAGES, decision_study, source_commit

SHAPES = {"flat": lambda paid: flat(paid, 1000.0), "standard": lambda paid: power_law(paid, 1000.0, 1.0),
          "top-heavy": lambda paid: power_law(paid, 1000.0, 1.5)}
TOURNAMENTS = {"early": {100: 40, 1_000: 8, 10_000: 2}, "bubble": {100: 20, 1_000: 10, 10_000: 4},
               "final": {100: 40, 1_000: 40, 10_000: 40}}  # per replicate (early: replicates) at --scale 1
SNAPSHOTS = {100: 10, 1_000: 6, 10_000: 3}  # field snapshots per case at --scale 1 (bubble, final)


def models_for(stage: str, alpha: float, discount: float, fgs: tuple[int, ...] = ()) -> tuple[str, ...]:
    """The heroes' models of a stage (discounted Harville, Malmuth-Weitzman and FGS of each depth in ``fgs``
    decide on final tables only)."""
    models = ("chip-ev", f"power-icm@{alpha:g}")
    if stage != "final":
        return models
    return (*models, f"harville@{discount:g}", "malmuth-weitzman", *(f"fgs@{depth}" for depth in fgs))


def fgs_depths(text: str | None, stages: list[str]) -> tuple[int, ...]:
    """The FGS heroes' depths of ``--fgs`` (comma separated; none without it), refused unless every stage is a
    final table (FGS plays the one table as the whole tournament)."""
    if text is None:
        return ()
    depths = tuple(int(model_parts(f"fgs@{depth.strip()}")[1]) for depth in text.split(","))
    if any(stage != "final" for stage in stages):
        raise ValueError(f"--fgs: FGS heroes decide at final tables only (one table, played as the whole "
                         f"tournament): use --stages final, got {','.join(stages)}")
    return depths


def one_case(players: int, shape: str, stage: str, args: argparse.Namespace, seed: int,
             progress: Any) -> dict[str, Any]:
    paid = max(2, players * 15 // 100)
    payouts = SHAPES[shape](paid)
    early = stage == "early"
    tournaments = max(2 if early else 1, round(TOURNAMENTS[stage][players] * args.scale))
    snapshots = max(2, round(SNAPSHOTS[players] * args.scale))
    start = time.perf_counter()
    study = decision_study(
        None, payouts, players=players, models=models_for(stage, args.alpha, args.discount, args.fgs_depths),
        baseline="icm",
        field=args.field, hero_share=args.hero_share if stage != "final" else max(args.hero_share, 0.2),
        tournaments=tournaments, stage=stage, snapshots=snapshots, seed=seed, workers=args.workers, ray=args.ray,
        checkpoint=None if args.checkpoint is None else Path(args.checkpoint) / f"{players}-{shape}-{stage}",
        progress=progress, **({"chart_file": args.chart_file} if args.chart_file else {}),
        **({"structure": args.structure} if args.structure else {}),
    )
    return {"players": players, "payouts": shape, "stage": stage, "paid": paid, **study.to_dict(),
            "prizes": {name: values.tolist() for name, values in study.prizes.items()},
            "elapsed_s": time.perf_counter() - start}


def table(cases: list[dict[str, Any]]) -> str:
    """The decisions table: per case and model, the mean prize per hero minus the ICM heroes', its 95% interval
    and Holm-adjusted p-value (``*``: the interval excludes 0 after Holm)."""
    lines = ["| field | payouts | stage | stack (bb) | replicates | model | minus ICM (prize per hero) | "
             "95% interval | p (Holm) |", "|---:|---|---|---:|---:|---|---:|---|---:|"]
    for case in cases:
        depth = case.get("average_stack_bb")
        for c in case["comparisons"]:
            mark = " *" if c["separates"] else ""
            lines.append(f"| {case['players']:,} | {case['payouts']} | {case['stage']} | "
                         f"{'-' if depth is None else f'{depth:.1f}'} | {case['replicates']} | "
                         f"{c['model']} | {c['mean']:+.3f}{mark} | [{c['low']:+.3f}, {c['high']:+.3f}] | "
                         f"{c['p_holm']:.3g} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", default="100,1000,10000", help="field sizes (comma separated)")
    parser.add_argument("--payouts", default="flat,standard,top-heavy", help=f"shapes: {', '.join(SHAPES)}")
    parser.add_argument("--stages", default="early,bubble,final", help=f"stages: {', '.join(STAGES)}")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every tournament and snapshot count")
    parser.add_argument("--field", default="fullring", help="the field's play model or a mix of kinds "
                                                            "(fullring:0.6,icm:0.2,fullring-tight:0.2)")
    parser.add_argument("--structure", default=None, help=f"blind structure: {', '.join(STRUCTURES)} (default: the "
                                                          "simulator's default schedule)")
    parser.add_argument("--chart-file", default=None, help="a full-ring chart file (default: the shipped one)")
    parser.add_argument("--hero-share", type=float, default=0.1, help="heroes' share of the field (final: >= 0.2)")
    parser.add_argument("--alpha", type=float, default=0.8, help="power ICM's exponent (fitted elsewhere)")
    parser.add_argument("--discount", type=float, default=0.8, help="discounted Harville's exponent")
    parser.add_argument("--fgs", default=None, help="FGS heroes' depths in hands, e.g. 1 or 1,2 (final tables only)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=0, help="local processes (0: this process)")
    parser.add_argument("--ray", default=None, help="Ray address (local, HOST:PORT)")
    parser.add_argument("--checkpoint", default=None, help="folder for finished chunks (rerun to resume)")
    parser.add_argument("--output", default="beating-icm-decisions.json", help="JSON output file")
    args = parser.parse_args()
    try:
        fields = [int(f) for f in args.fields.split(",")]
        shapes = args.payouts.split(",")
        stages = args.stages.split(",")
        unknown = [f for f in fields if f not in SNAPSHOTS] + [s for s in shapes if s not in SHAPES] + [
            s for s in stages if s not in STAGES]
        if args.structure is not None and args.structure not in STRUCTURES:
            unknown.append(args.structure)
        if unknown or not args.scale > 0:
            raise ValueError(f"unknown field size, payout shape, stage or structure (or a scale <= 0): {unknown}")
        kinds = parse_play(args.field)
        args.fgs_depths = fgs_depths(args.fgs, stages)
        for stage in stages:  # every hero model's name and exponent, before any work
            for model in models_for(stage, args.alpha, args.discount, args.fgs_depths):
                parse_play(model)
        output = Path(args.output)
        if not output.parent.is_dir() or output.is_dir():
            raise ValueError(f"--output {output}: no folder {output.parent}" if not output.parent.is_dir() else
                             f"--output {output} is a folder")
        if args.chart_file:  # another version or a damaged file is refused before any work
            read_charts(Path(args.chart_file))
    except (ValueError, PokerlabError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    start = time.perf_counter()
    cases: list[dict[str, Any]] = []
    done = [0]

    def progress(finished: int, total: int) -> None:
        if sys.stderr.isatty():
            elapsed = time.perf_counter() - case_start[0]
            eta = elapsed / max(finished, 1) * (total - finished)
            print(f"\rcase {len(cases) + 1}: {finished}/{total} tournaments, ETA {eta:.0f} s", end="",
                  file=sys.stderr, flush=True)
        done[0] = finished

    case_start = [time.perf_counter()]
    try:
        for k, (players, shape, stage) in enumerate((p, s, g) for p in fields for s in shapes for g in stages):
            case_start[0] = time.perf_counter()
            cases.append(one_case(players, shape, stage, args, args.seed + k, progress))
            print(f"\r{players:,} {shape} {stage}: done in {cases[-1]['elapsed_s']:.0f} s" + " " * 20,
                  file=sys.stderr)
    except KeyboardInterrupt:
        kept = f"finished chunks are in {args.checkpoint}: rerun to resume" if args.checkpoint else "nothing kept"
        print(f"\ninterrupted after {len(cases)} cases and {done[0]} tournaments of the next; {kept}",
              file=sys.stderr)
        raise SystemExit(130) from None
    except PokerlabError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    elapsed = time.perf_counter() - start
    command = "python scripts/beating_icm_decisions.py " + " ".join(sys.argv[1:])
    meta = {"command": command, "commit": source_commit(), "elapsed_s": elapsed, "cores": os.cpu_count(),
            "machine": platform.machine(), "load_average": os.getloadavg()[0], "seed": args.seed,
            "field": args.field, "structure": args.structure}
    if any(model_parts(name)[0] in RING_MODELS for name, _ in kinds):
        charts = read_charts(Path(args.chart_file)) if args.chart_file else shipped_charts()
        meta["fullring_charts"] = {key: charts.header[key] for key in ("content_sha256", "format", "code_version")}
    if args.fgs_depths:  # the FGS heroes' future-hand tables (the same for every payout and depth)
        meta["fgs_charts"] = prepare(stacks=[1, 1], payouts=[1.0], play="fgs@1").describe()["fgs_charts"]
    partial = output.with_name(output.name + ".partial")  # an earlier result is replaced whole or not at all
    partial.write_text(json.dumps({**meta, "cases": cases}, indent=None, separators=(",", ":")) + "\n",
                       encoding="utf-8")
    os.replace(partial, output)
    print(f"`{command}`: {elapsed / 60:.1f} min on {os.cpu_count()} cores (load average "
          f"{meta['load_average']:.1f} at the end), commit {meta['commit']}\n")
    print(table(cases))
    print(f"\n{len(cases)} cases; the JSON is {output}")


if __name__ == "__main__":
    main()
