"""FGS benchmark: six-handed, per depth, the FGS equity of one stack state and the push/fold charts under FGS.

Run: ``python benchmarks/fgs.py [--max-depth 4] [--payoff-depth 3] [--solve-depth 2]``. Rows: the FGS equity of
one stack state; the payoffs of every outcome of a six-seat push/fold hand (what FGS adds to a solve); whole
push/fold solves (charts), whose time is mostly the six-seat solve itself (depth 0 is plain ICM).

``python benchmarks/fgs.py --whole 0-3 [--baseline OTHER/src]``: only whole solves, each in a fresh process after
a warm-up solve there (kernels loaded, the future hands' charts solved), with the CPU and wall seconds of each
phase (the game with its ICM or FGS payoffs, the CFR iterations and gain checks, the sampling check, the real-game
check); with ``--baseline`` each row is also run on another checkout's ``src`` (``PYTHONPATH``), interleaved.

ICMIZER publishes, six-handed, FGS depth 2 in about 0.5 s, depth 3 about 9 s and depth 4 about 3 minutes
(icmizer.com blog, "ICMIZER 2.5 update", 2016; it does not say whether that is one equity or a whole Nash
calculation, nor on which machine: the figures are quoted, not measured here). Kernels are compiled and the
future hands' charts solved before any timed region. Times are wall seconds; the load average is printed with
them (this machine is shared).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from _machine import machine_description
from pokerlab.pushfold import pushfold
from pokerlab.pushfold.fgs import FGSPayoff, fgs_equity
from pokerlab.pushfold.situation import ICMPayoff, build_game, validate_table

SIX = [12.0, 8.0, 15.0, 10.0, 9.0, 11.0]  # big blinds, acting order UTG .. BB
PAYOUTS = [50.0, 30.0, 20.0]  # a six-player sit-and-go's bubble
ICMIZER = {1: None, 2: 0.5, 3: 9.0, 4: 180.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-depth", type=int, default=4, help="deepest FGS of the equity rows")
    parser.add_argument("--payoff-depth", type=int, default=3, help="deepest FGS of the payoff rows")
    parser.add_argument("--solve-depth", type=int, default=2, help="deepest FGS of the chart (solve) rows")
    parser.add_argument("--whole", help="only whole solves at these depths (e.g. 0-3), one process each")
    parser.add_argument("--baseline", help="with --whole: another checkout's src, run interleaved")
    parser.add_argument("--whole-row", type=int, help=argparse.SUPPRESS)  # one row, in this process
    args = parser.parse_args()
    if args.whole_row is not None:
        print(json.dumps(_whole_row(args.whole_row)))
        return
    if args.whole is not None:
        _whole_rows(args.whole, args.baseline)
        return
    print(f"machine: {machine_description()}; load {os.getloadavg()[0]:.1f} (1 min)")
    fgs_equity(SIX, PAYOUTS, depth=1)  # compiles the kernels, solves the future hands' charts
    pushfold(SIX, payouts=PAYOUTS, iterations=1, multiway_samples=20, fgs_depth=1)
    print("six-handed 12/8/15/10/9/11 bb, blinds 0.5/1, payouts 50/30/20")
    print(f"{'what':<34}{'depth':>6}{'seconds':>10}{'ICMIZER s':>11}{'ratio':>8}{'pruned mass':>13}{'load':>6}")
    for depth in range(1, args.max_depth + 1):
        for prune, label in ((1e-7, "FGS equity, one state"), (0.0, "FGS equity, one state, unpruned")):
            if prune == 0.0 and depth == 4:
                continue  # ~51^4 leaves: minutes
            seconds = float("inf")
            for _ in range(3 if depth < 4 else 1):  # best of three below a second (thread wake-ups under load)
                start = time.perf_counter()
                result = fgs_equity(SIX, PAYOUTS, depth=depth, prune=prune)
                seconds = min(seconds, time.perf_counter() - start)
            _row(label, depth, seconds, result.pruned)
    table = validate_table(np.array(SIX), [0.5, 1.0], 0.0, 0.0)
    payouts = np.array(PAYOUTS)
    for depth in range(0, args.payoff_depth + 1):  # what FGS adds to a solve: every outcome's payoff
        model = ICMPayoff if depth == 0 else partial(FGSPayoff, table=table, depth=depth)
        start = time.perf_counter()
        game, _, payoff = build_game(table, payouts, None, payoff_model=model)
        seconds = time.perf_counter() - start
        outcomes = sum(len(t.utilities) for t in game.terminals.values())
        _row(f"payoffs of the hand ({outcomes} outcomes)", depth, seconds, getattr(payoff, "pruned", 0.0))
    for depth in range(0, args.solve_depth + 1):
        start = time.perf_counter()
        solved = pushfold(SIX, payouts=PAYOUTS, fgs_depth=depth)
        seconds = time.perf_counter() - start
        _row(f"charts (pushfold, {solved.stop_reason})", depth, seconds, solved.fgs_pruned)


PHASES = {"build_game": "game", "real_game_check": "real game", "_sampling_check": "sampling check"}
"""The solve's phases timed by name in :mod:`pokerlab.pushfold.vector_solve` (the rest: CFR and gain checks)."""


def _whole_row(depth: int) -> dict[str, object]:
    """One whole six-seat solve at FGS ``depth`` (0: ICM) after a warm-up solve: CPU and wall seconds in all and
    per phase, iterations, the largest real-game gain and the seats over the target."""
    solve = importlib.import_module("pokerlab.pushfold.vector_solve")
    pushfold(SIX, payouts=PAYOUTS, iterations=1, multiway_samples=20, real_game_deals=200, fgs_depth=min(depth, 1))
    spent: dict[str, list[float]] = {}

    def timed(name: str, function: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            cpu, wall = time.process_time(), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[PHASES[name]] = [time.process_time() - cpu, time.perf_counter() - wall]
        return run

    for name in PHASES:
        setattr(solve, name, timed(name, getattr(solve, name)))
    cpu, wall = time.process_time(), time.perf_counter()
    result = pushfold(SIX, payouts=PAYOUTS, fgs_depth=depth)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    spent["CFR"] = [cpu - sum(c for c, _ in spent.values()), wall - sum(w for _, w in spent.values())]
    real = result.real_game
    return {"depth": depth, "cpu": cpu, "wall": wall, "phases": spent, "iterations": result.iterations,
            "real_gain": None if real is None else real.max_gain, "over": len(result.over_target),
            "deals": None if real is None else real.deals, "load": os.getloadavg()[0]}


def _whole_rows(depths: str, baseline: str | None) -> None:
    """Whole solves at ``depths`` ("0-3" or "2"), each in a fresh process, interleaved with ``baseline``'s."""
    low, _, high = depths.partition("-")
    print("six-handed 12/8/15/10/9/11 bb, blinds 0.5/1, payouts 50/30/20, `pushfold(..., fgs_depth=d)` defaults; "
          "seconds CPU / wall")
    print(f"{'code':<9}{'depth':>6}{'CPU':>8}{'wall':>8}  {'game':>11}{'CFR':>12}{'sampling':>12}{'real game':>12}"
          f"{'it':>4}{'real gain':>11}{'over':>5}{'load':>6}")
    for depth in range(int(low), int(high or low) + 1):
        for label, src in (("this", None), ("baseline", baseline)):
            if label == "baseline" and src is None:
                continue
            env = dict(os.environ) | ({"PYTHONPATH": src} if src else {})
            out = subprocess.run([sys.executable, __file__, "--whole-row", str(depth)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            row = json.loads(out.strip().splitlines()[-1])
            phases = row["phases"]
            cells = "".join(f"{_pair(phases.get(name, (0.0, 0.0))):>12}"
                            for name in ("CFR", "sampling check", "real game"))
            print(f"{label:<9}{depth:>6}{row['cpu']:>8.2f}{row['wall']:>8.2f}  "
                  f"{_pair(phases['game']):>11}{cells}{row['iterations']:>4}"
                  f"{row['real_gain']:>11.2e}{row['over']:>5}{row['load']:>6.1f}", flush=True)


def _pair(seconds: list[float]) -> str:
    return f"{seconds[0]:.1f}/{seconds[1]:.1f}"


def _row(label: str, depth: int, seconds: float, pruned: float) -> None:
    peer = ICMIZER.get(depth)
    ratio = f"{peer / seconds:7.1f}x" if peer else "      -"
    print(f"{label:<34}{depth:>6}{seconds:>10.2f}{(f'{peer:g}' if peer else '-'):>11}{ratio:>8}{pruned:>13.1e}"
          f"{os.getloadavg()[0]:>6.1f}")


if __name__ == "__main__":
    main()
