"""Postflop benchmark: pokerlab's solver against postflop-solver, built from source (benchmarks/
build_postflop_solver.sh), on the issue's river and turn spots; one core each, CPU seconds, interleaved.

Run: ``python benchmarks/postflop.py PEER_BINARY [--rounds N] [--flop] [--only SPOT] [--targets 1,0.5]
[--compress] [--scalings] [--boards K [--seed S]]`` (``--compress``: both solvers' 16-bit storage;
``--scalings``: instead of the times, the iterations each solver needs to each target with every range token
given weight 1.0, 0.9, 0.8, 0.7 and 0.6: the same game in exact arithmetic, whose solves' rounding makes the
iterations to a target vary by tens; ``--boards K``: the turn spot's (or with ``--only
river`` the river's) ranges and bets on K random boards drawn with seed S, one solve each per board
and target, and per target the geometric mean of the per-board ratios with a Student-t interval on their logs,
Bonferroni-corrected over the targets: whether the benchmark's one spot is typical)
(PEER_BINARY: what the build script prints). Each round runs every (spot, target) once for each solver,
alternating which goes first; the table reports the median CPU seconds of the solve loop (and our wall seconds:
with ``NUMBA_NUM_THREADS=2`` the 2-thread figure) (exploitability checked every 10 iterations by both; the tree
and memory set-up apart, compilation apart: our kernels are warmed before any timed region) and the ratio
peer / ours (above 1: we are faster). Both EVs and the exploitability reached are printed beside the times, and
both memory figures: each solver's own estimate of its storage, the peer's peak resident memory, and at the end
this process's (``--only flop`` for the flop's alone: it also holds Python, numpy and the compiled kernels).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import time
from typing import Any

import numpy as np
from scipy import stats

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from _machine import machine_description  # noqa: E402
from pokerlab.cards.encoding import format_cards  # noqa: E402
from pokerlab.postflop import build_game, solve  # noqa: E402
from pokerlab.solvers.postflop_cfr import PostflopSolver  # noqa: E402

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
SPOTS = {
    "river": ("Td9d6hQc2s", "33%,75%,150%,a", "3x,a"),
    "turn": ("Td9d6hQc", "50%,100%,a", "2.5x,a"),
    "flop": ("Td9d6h", "60%,e,a", "2.5x"),
}
TARGETS = (1.0, 0.5, 0.3)
Spot = str | tuple[str, str, str]  # a name of SPOTS, or (board, bets, raises)
SCALINGS = (1.0, 0.9, 0.8, 0.7, 0.6)


def scaled(hand_range: str, weight: float) -> str:
    """``hand_range`` with every token given ``weight``."""
    return hand_range if weight == 1.0 else ",".join(f"{token}:{weight}" for token in hand_range.split(","))


def our_iterations(spot: str, weight: float, targets: list[float]) -> list[int | None]:
    """Iterations our solver needs to each target (checked every 10), ranges scaled by ``weight``."""
    board, bets, raises = SPOTS[spot]
    game, _ = build_game(board, scaled(OOP, weight), scaled(IP, weight), pot=200, stack=900, bets=bets,
                         raises=raises)
    solver = PostflopSolver(game)
    reached: dict[float, int] = {}
    while solver.iteration < 5000 and len(reached) < len(targets):
        solver.step()
        if solver.iteration % 10 == 0:
            now = solver.exploitability_percent()
            reached.update((t, solver.iteration) for t in targets if now <= t and t not in reached)
    return [reached.get(t) for t in targets]


def peer_iterations(binary: str, spot: str, weight: float, targets: list[float]) -> list[int]:
    """The same for postflop-solver (one solve per target)."""
    board, bets, raises = SPOTS[spot]
    return [json.loads(subprocess.run([binary, scaled(OOP, weight), scaled(IP, weight), board, "200", "900", bets,
                                       raises, str(t), "5000"], capture_output=True, text=True,
                                      check=True).stdout)["iterations"] for t in targets]


def scalings(binary: str, spots: list[str], targets: list[float]) -> None:
    """Print both solvers' iterations to each target over :data:`SCALINGS`, and their medians."""
    for spot in spots:
        for name, count in (("pokerlab", our_iterations),
                            ("postflop-solver", lambda s, w, t: peer_iterations(binary, s, w, t))):
            rows = [count(spot, w, targets) for w in SCALINGS]
            medians = [statistics.median(r[i] or 5000 for r in rows) for i in range(len(targets))]
            print(f"{spot:5} {name:15} " + ", ".join("/".join(str(x) for x in r) for r in rows)
                  + f"  median {'/'.join(f'{m:g}' for m in medians)}", flush=True)


def ours(spot: Spot, target: float, compress: bool = False) -> dict[str, Any]:
    board, bets, raises = SPOTS[spot] if isinstance(spot, str) else spot
    game, _ = build_game(board, OOP, IP, pot=200, stack=900, bets=bets, raises=raises, compress=compress)
    solver = PostflopSolver(game, compress=compress)
    start, wall = time.process_time(), time.perf_counter()
    solver.run(iterations=5000, target_percent=target)
    cpu = time.process_time() - start
    wall = time.perf_counter() - wall
    half = game.half_pot
    return {"cpu_s": cpu, "wall_s": wall, "iterations": solver.iteration,
            "exploitability_percent": solver.exploitability_percent(),
            "ev": [solver.value(0) + half, solver.value(1) + half], "memory_bytes": game.memory_bytes}


def peer(binary: str, spot: Spot, target: float, compress: bool = False) -> dict[str, Any]:
    board, bets, raises = SPOTS[spot] if isinstance(spot, str) else spot
    out = subprocess.run([binary, OOP, IP, board, "200", "900", bets, raises, str(target), "5000",
                          *(["compress"] if compress else [])],
                         capture_output=True, text=True, check=True)
    # its peak_rss_bytes: its own VmHWM (a child's rusage would count this process's size at the fork)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def random_boards(count: int, seed: int, cards: int = 4) -> list[str]:
    """``count`` distinct boards of ``cards`` cards drawn uniformly with ``seed``."""
    rng = np.random.default_rng(seed)
    boards: list[str] = []
    while len(boards) < count:
        board = format_cards(sorted(int(c) for c in rng.choice(52, cards, replace=False)))
        if board not in boards:
            boards.append(board)
    return boards


def boards_summary(ratios: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """The geometric mean of per-board time ratios (peer / ours) and its Student-t interval at level ``1 - alpha``
    on the logs (a percentile bootstrap undercovered with 16 boards: 94.8% for a nominal 98.3% on log-normal
    ratios of known mean, 400 trials; this one 98.1%, 2,000 trials)."""
    logs = np.log(ratios)
    half = float(stats.t.ppf(1 - alpha / 2, logs.size - 1) * logs.std(ddof=1) / np.sqrt(logs.size))
    return float(np.exp(logs.mean())), float(np.exp(logs.mean() - half)), float(np.exp(logs.mean() + half))


def many_boards(binary: str, spot_name: str, count: int, seed: int, targets: list[float], compress: bool) -> None:
    """One solve per solver, board and target on :func:`random_boards` (``spot_name``'s ranges and bets),
    alternating which goes first; per target the per-board ratios' geometric mean with its interval
    (Bonferroni over the targets), how many boards are at least 1, and the iterations' median difference."""
    board_of_spot, bets, raises = SPOTS[spot_name]
    alpha = 0.05 / len(targets)
    for target in targets:
        ratios, extra = [], []
        for i, board in enumerate(random_boards(count, seed, len(board_of_spot) // 2)):
            spot = (board, bets, raises)
            order = ("ours", "peer") if i % 2 == 0 else ("peer", "ours")
            runs = {side: ours(spot, target, compress) if side == "ours" else peer(binary, spot, target, compress)
                    for side in order}
            mine, theirs = runs["ours"], runs["peer"]
            ratio = theirs["cpu_s"] / mine["cpu_s"]
            ratios.append(ratio)
            extra.append(mine["iterations"] - theirs["iterations"])
            print(f"  {board} to {target:.1f}%: pokerlab {mine['cpu_s']:.3f} s ({mine['iterations']} it)"
                  f"  postflop-solver {theirs['cpu_s']:.3f} s ({theirs['iterations']} it)  ratio {ratio:.2f}",
                  flush=True)
        mean, low, high = boards_summary(np.array(ratios), alpha)
        above = sum(r >= 1.0 for r in ratios)
        print(f"{spot_name} boards to {target:.1f}%: geometric mean ratio {mean:.3f} ({100 * (1 - alpha):.1f}% "
              f"interval {low:.3f}-{high:.3f}), {above} of {count} boards at least 1, iterations ours minus the "
              f"peer's: median {statistics.median(extra):+g} (load {os.getloadavg()[0]:.1f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("peer", help="the postflop-solver bench binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--flop", action="store_true", help="the flop spot too (minutes per solve)")
    parser.add_argument("--only", choices=sorted(SPOTS), help="this spot alone")
    parser.add_argument("--targets", default=",".join(map(str, TARGETS)),
                        help="exploitability targets in %% of the pot, comma-separated")
    parser.add_argument("--compress", action="store_true", help="both solvers' 16-bit storage")
    parser.add_argument("--scalings", action="store_true",
                        help="iterations to each target over five weight scalings of the ranges, not times")
    parser.add_argument("--boards", type=int,
                        help="the turn spot (or --only river) on this many random boards instead")
    parser.add_argument("--seed", type=int, default=1, help="the random boards' seed")
    args = parser.parse_args()
    targets = [float(t) for t in args.targets.split(",")]
    threads = os.environ["NUMBA_NUM_THREADS"]
    print(f"machine: {machine_description()}; pokerlab on NUMBA_NUM_THREADS={threads}, postflop-solver on 1")
    start = time.perf_counter()
    solve("Td9d6hQc2s", "AA,KK", "QQ,JJ", pot=100, stack=100, bets="a", raises="", iterations=2, target=None,
          compress=args.compress)
    solve("Td9d6hQc", "AA,KK", "QQ,JJ", pot=100, stack=100, bets="a", raises="", iterations=2, target=None,
          compress=args.compress)
    print(f"warm-up (kernels from the cache or compiled): {time.perf_counter() - start:.1f} s")
    if args.boards:
        many_boards(args.peer, args.only or "turn", args.boards, args.seed, targets, args.compress)
        return
    spots = [args.only] if args.only else ["river", "turn"] + (["flop"] if args.flop else [])
    if args.scalings:
        scalings(args.peer, spots, targets)
        return
    for spot in spots:
        for target in targets:
            mine: list[dict[str, Any]] = []
            theirs: list[dict[str, Any]] = []
            for r in range(args.rounds):
                for side in ("ours", "peer") if r % 2 == 0 else ("peer", "ours"):
                    if side == "ours":
                        mine.append(ours(spot, target, args.compress))
                    else:
                        theirs.append(peer(args.peer, spot, target, args.compress))
            a = statistics.median(m["cpu_s"] for m in mine)
            b = statistics.median(t["cpu_s"] for t in theirs)
            m, t = mine[-1], theirs[-1]
            ours_wall = statistics.median(m["wall_s"] for m in mine)
            print(f"{spot:5} to {target:.1f}%: pokerlab {a:9.4f} s ({m['iterations']} it, "
                  f"{m['exploitability_percent']:.3f}%, EV {m['ev'][0]:.2f}/{m['ev'][1]:.2f}, "
                  f"{m['memory_bytes'] / 2**20:.1f} MiB, wall {ours_wall:.3f} s on {threads} thread(s))  "
                  f"postflop-solver {b:9.4f} s ({t['iterations']} it, "
                  f"{t['exploitability_percent']:.3f}%, EV {t['ev'][0]:.2f}/{t['ev'][1]:.2f}, "
                  f"{t['memory_bytes'] / 2**20:.1f} MiB, peak RSS {t['peak_rss_bytes'] / 2**20:.0f} MiB)  "
                  f"ratio {b / a if a > 0 else float('nan'):.2f}  "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
