"""Section 2.2 of docs/beating-icm.md: equity models (ICM, Malmuth-Weitzman, chip proportional, power ICM) measured
against simulated continuations of tournament snapshots.

Run: ``python scripts/beating_icm.py [--scale 1.0] [--plays coinflip,rules,fullring] [--fields 100,1000,10000]``.
For each play model, field size and payout shape (flat, top-heavy power law, 15% of the field paid):

1. play two whole tournaments (seeded) and take the stacks when 20% of the field is left (before the money);
2. from each snapshot, simulate ``continuations`` independent continuations at the blind level reached;
3. fit power ICM's exponent on the second snapshot's simulated equities (out of sample), then measure every
   model against the first snapshot's (noise-corrected RMS error in % of the remaining pool, 95% jackknife
   intervals, and each model's mean squared error minus ICM's with its interval).

Writes ``--json`` (default ``docs/beating-icm.json``: every number, the commit, the seed, the simulator's code digest
and, per case, the hashes of the charts its players read), ``beating-icm-<play>.png`` beside ``--doc`` (calibration:
binned simulated equity against each model's prediction, by stack) and the results section of ``--doc`` (default
``docs/beating-icm.md``, between its ``<!-- results -->`` markers).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.icm import flat, power_law
from pokerlab.icm.alternatives import fit_power
from pokerlab.provenance import sources_digest
from pokerlab.simulation import default_schedule, prepare, run
from pokerlab.simulation.analysis import field_snapshot, model_errors, predictions_and_noise
from pokerlab.simulation.core import SIMULATOR_SOURCES, parse_play
from pokerlab.simulation.study import source_commit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FIELDS = (100, 1_000, 10_000)
CONTINUATIONS = {100: 20_000, 1_000: 3_000, 10_000: 400}
MODELS = ("icm", "malmuth-weitzman", "chip", "power-icm")
START, MARK_START, MARK_END = 10_000, "<!-- results -->", "<!-- /results -->"


def continuations(stacks: np.ndarray, payouts: np.ndarray, play: str, level: int, count: int, seed: int):
    pay = payouts[: stacks.size]
    t = prepare(stacks=stacks, payouts=pay, play=play, table_size=9, start_level=level,
                schedule=default_schedule(START))
    return run(t, count, seed=seed), pay


def one_case(play: str, players: int, shape: str, scale: float, seed: int) -> dict:
    paid = players * 15 // 100
    payouts = flat(paid, 1000.0) if shape == "flat" else power_law(paid, 1000.0, 1.0)
    start = time.perf_counter()
    fit_stacks, fit_level = field_snapshot(players, payouts, play, players // 5, seed, START)
    test_stacks, test_level = field_snapshot(players, payouts, play, players // 5, seed + 1, START)
    count = max(200, int(CONTINUATIONS[players] * scale))
    fit_result, fit_pay = continuations(fit_stacks, payouts, play, fit_level, count, seed + 2)
    charts = fit_result.tournament.describe()["charts"]
    alpha = fit_power([fit_stacks], [_full(fit_pay, fit_stacks.size)], [fit_result.equity],
                      np.linspace(0.3, 1.7, 29))
    result, pay = continuations(test_stacks, payouts, play, test_level, count, seed + 3)
    full = _full(pay, test_stacks.size)
    predicted, noise = predictions_and_noise(test_stacks, full, alpha, seed=seed)
    errors = model_errors(result, predicted, float(full.sum()), noise)
    return {
        "play": play, "players": players, "payouts": shape, "paid": paid, "left": int(test_stacks.size),
        "level": test_level, "continuations": count, "hands": int(result.hands), "alpha": alpha,
        "errors": [e.to_dict() for e in errors], "stacks": test_stacks.tolist(), "simulated": result.equity.tolist(),
        "simulated_stderr": result.equity_stderr.tolist(), "pool": float(full.sum()),
        "predictions": {k: v.tolist() for k, v in predicted.items()}, "elapsed_s": time.perf_counter() - start,
        "charts": charts, **({"fullring_charts": result.fullring_charts} if result.fullring_charts else {}),
    }


def _full(pay: np.ndarray, n: int) -> np.ndarray:
    full = np.zeros(n)
    full[: pay.size] = pay
    return full


def calibration_plot(cases: list[dict], play: str, path: Path) -> None:
    """One panel per field size and payout shape of ``play``'s cases: binned simulated equity and each model's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    chosen = [c for c in cases if c["play"] == play]
    fields = sorted({c["players"] for c in chosen})
    fig, axes = plt.subplots(len(fields), 2, figsize=(11, 4 * len(fields)), squeeze=False)
    for case in chosen:
        ax = axes[fields.index(case["players"]), 0 if case["payouts"] == "flat" else 1]
        stacks = np.array(case["stacks"])
        order = np.argsort(stacks)
        bins = np.array_split(order, min(12, stacks.size))
        x = [stacks[b].mean() / stacks.mean() for b in bins]
        scale = 100 / case["pool"]
        sim = np.array(case["simulated"]) * scale
        err = np.array(case["simulated_stderr"]) * scale
        y = [sim[b].mean() for b in bins]
        yerr = [1.96 * np.sqrt((err[b] ** 2).sum()) / b.size for b in bins]
        ax.errorbar(x, y, yerr=yerr, fmt="ko", ms=4, label="simulated (95% CI)", zorder=3)
        for name, style in zip(MODELS, ("-", "--", ":", "-."), strict=True):
            pred = np.array(case["predictions"][name]) * scale
            label = name if name != "power-icm" else f"power-icm (alpha {case['alpha']:.2f})"
            ax.plot(x, [pred[b].mean() for b in bins], style, label=label)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(f"{case['players']:,} players, {case['payouts']} payouts: {case['left']} left, "
                     f"{case['continuations']:,} continuations", fontsize=9)
        ax.set_xlabel("stack / average stack (bins of players)")
        ax.set_ylabel("equity, % of the remaining pool per player")
        ax.legend(fontsize=7)
    fig.suptitle(f"Calibration, {play} play: predicted vs simulated equity by stack")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def closest_models(errors: list[dict]) -> str:
    """The model with the smallest RMS error, with every model whose interval overlaps its interval (not
    separated by this run's noise)."""
    best = min(errors, key=lambda e: e["rms"])
    ties = [e["model"] for e in errors if e is not best and e["rms_low"] <= best["rms_high"]]
    return best["model"] + (f" (not separated from {', '.join(ties)})" if ties else "")


def results_markdown(cases: list[dict], header: str) -> str:
    lines = [header, ""]
    lines.append("| play | field | payouts | left / paid | continuations | ICM | Malmuth-Weitzman | chip | power ICM "
                 "(alpha) | closest | power ICM MSE - ICM's | ICM RMS, % of a fair share |")
    lines.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for c in cases:
        errors = {e["model"]: e for e in c["errors"]}

        def cell(name: str, errors: dict = errors) -> str:
            e = errors[name]
            return f"{e['rms']:.4f} [{e['rms_low']:.4f}, {e['rms_high']:.4f}]"

        closest = closest_models(c["errors"])
        p = errors["power-icm"]
        lines.append(
            f"| {c['play']} | {c['players']:,} | {c['payouts']} | {c['left']} / {c['paid']} | {c['continuations']:,} "
            f"| {cell('icm')} | {cell('malmuth-weitzman')} | {cell('chip')} | {cell('power-icm')} "
            f"({c['alpha']:.2f}) | {closest} | {p['mse_minus_icm']:+.2e} ± {1.96 * p['mse_minus_icm_stderr']:.1e} "
            f"| {errors['icm']['rms'] * c['left']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every continuation count")
    parser.add_argument("--plays", default="coinflip,rules,fullring", help="play models to run (comma separated)")
    parser.add_argument("--fields", default="100,1000,10000", help=f"field sizes (comma separated) of {FIELDS}")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, default=DOCS / "beating-icm.json",
                        help="the run's numbers: written by a run, read by --render")
    parser.add_argument("--doc", type=Path, default=DOCS / "beating-icm.md",
                        help="the page whose results section is replaced (the figures go beside it)")
    parser.add_argument("--render", action="store_true",
                        help="only redraw the plots and the results section from --json")
    args = parser.parse_args()
    try:
        if args.render:
            stored = read_results(args.json)
        else:
            plays = [p.strip() for p in args.plays.split(",") if p.strip()]
            for play in plays:  # every play model before any work (split on commas: one model each)
                parse_play(play)
            fields = [int(f) if f.strip().isdigit() else -1 for f in args.fields.split(",")]
            if any(f not in FIELDS for f in fields):
                raise ValueError(f"--fields {args.fields}: give field sizes among {', '.join(map(str, FIELDS))}")
            if not plays or not math.isfinite(args.scale) or args.scale <= 0 or args.seed < 0:
                raise ValueError("give at least one play model, a --scale above 0 and a --seed of 0 or more")
            if not args.json.parent.is_dir() or args.json.is_dir():
                raise ValueError(f"--json {args.json}: no folder {args.json.parent}" if not args.json.parent.is_dir()
                                 else f"--json {args.json} is a folder")
        if not args.doc.parent.is_dir() or args.doc.is_dir():
            raise ValueError(f"--doc {args.doc}: no folder {args.doc.parent}" if not args.doc.parent.is_dir()
                             else f"--doc {args.doc} is a folder")
    except (ValueError, PokerlabError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.render:
        write_docs(stored["cases"], stored["header"], args.doc)
        return
    start = time.perf_counter()
    cases = []
    try:
        for play in plays:
            for players in fields:
                for shape in ("flat", "top-heavy"):
                    case = one_case(play, players, shape, args.scale, args.seed + 10 * len(cases))
                    cases.append(case)
                    best = min(case["errors"], key=lambda e: e["rms"])["model"]
                    print(f"{play:>8} {players:>6} {shape:>9}: {case['left']} left, {case['continuations']} "
                          f"continuations, closest {best}, alpha {case['alpha']:.3f}, {case['elapsed_s']:.1f} s",
                          flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {len(cases)} of {len(plays) * len(fields) * 2} cases; nothing written (the "
              "cases are not checkpointed: rerun)", file=sys.stderr)
        raise SystemExit(130) from None
    elapsed = time.perf_counter() - start
    load = os.getloadavg()[0]
    commit = source_commit()
    header = (f"Generated by `python scripts/beating_icm.py --scale {args.scale:g} --plays {','.join(plays)} "
              f"--fields {','.join(map(str, fields))} --seed {args.seed}` at commit {(commit or 'unknown')[:12]} "
              f"in {elapsed / 60:.1f} min on {os.cpu_count()} cores "
              f"({platform.machine()}, load average {load:.1f} at the end). Errors: noise-corrected RMS over the "
              "players left of (model - simulated equity), in % of the remaining prize pool, with 95% jackknife "
              "intervals; the last column but one is power ICM's mean squared error minus ICM's ((% of pool)^2, "
              "± 95%): negative = closer than ICM; the last is ICM's RMS error relative to a fair share "
              "(pool / players left).")
    partial = args.json.with_name(args.json.name + ".partial")  # an earlier result is replaced whole or not at all
    meta = {"commit": commit, "code": sources_digest([*SIMULATOR_SOURCES, "pushfold"]), "seed": args.seed,
            "scale": args.scale, "command": "python scripts/beating_icm.py " + " ".join(sys.argv[1:])}
    partial.write_text(compact_json({"cases": cases, "elapsed_s": elapsed, "header": header, **meta}),
                       encoding="utf-8")
    os.replace(partial, args.json)
    write_docs(cases, header, args.doc)
    print(f"done in {elapsed / 60:.1f} min")


def read_results(path: Path) -> dict:
    """A run's numbers (``--json``) for ``--render``; ValueError saying what is wrong with the file."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        cases, header = stored["cases"], stored["header"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"--json {path} is not a run's results file ({error}): run the script without --render "
                         "to make one") from None
    if not isinstance(cases, list) or not cases or not isinstance(header, str):
        raise ValueError(f"--json {path} holds no cases: run the script without --render to make one")
    return {"cases": cases, "header": header}


def compact_json(data: object) -> str:
    """JSON with floats to 7 significant digits (far below the Monte Carlo error), one case per line."""

    def rounded(value: object) -> object:
        if isinstance(value, float):
            return float(f"{value:.7g}")
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rounded(v) for v in value]
        return value

    data = rounded(data)
    cases = ",\n".join(json.dumps(c, separators=(",", ":")) for c in data["cases"])  # type: ignore[index]
    rest = {k: v for k, v in data.items() if k != "cases"}  # type: ignore[union-attr]
    return f'{{"cases": [\n{cases}\n],\n{json.dumps(rest)[1:]}\n'


def write_docs(cases: list[dict], header: str, doc: Path) -> None:
    """The calibration figures and the results section of docs/beating-icm.md."""
    for play in sorted({c["play"] for c in cases}):
        calibration_plot(cases, play, doc.with_name(f"beating-icm-{play}.png"))
    text = doc.read_text(encoding="utf-8") if doc.exists() else f"# Beating ICM\n\n{MARK_START}\n{MARK_END}\n"
    before, _, rest = text.partition(MARK_START)
    _, _, after = rest.partition(MARK_END)
    doc.write_text(f"{before}{MARK_START}\n{results_markdown(cases, header)}\n{MARK_END}{after}", encoding="utf-8")


if __name__ == "__main__":
    main()
