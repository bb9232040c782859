"""Start-up of every command on a small problem: warm wall and CPU time, the first answer after an install (an
empty numba cache and an empty table cache), a one-shot native script beside them, and one thread against two
on small problems.

Usage: python benchmarks/startup.py [--runs N] [--cold] [--before SRC] [--threads]

- warm: each command run ``--runs`` times as a fresh process (``python -m pokerlab ...``, what the ``pokerlab``
  script runs; and one-shot scripts through the Python API, ``python -c ...``), median wall time and median CPU
  time (user + sys of the child); CPU time is the figure to compare on a shared machine, wall time what a person
  waits.
- ``--cold``: one run of each command with ``NUMBA_CACHE_DIR`` and ``POKERLAB_CACHE_DIR`` pointing at empty
  folders (what a first run after ``pip install`` meets: every kernel it uses compiled, every table built).
- ``--before SRC``: the same rows for another checkout's ``src`` folder (a ``git worktree`` of the commit to
  compare with), run interleaved with this one's, so both see the same load.
- peers: ``python -c pass`` (the interpreter alone), a one-shot eval7 script (the ``bench`` extra: a native
  evaluator, imported and called once) and a C program computing a three-player ICM, compiled in a scratch
  folder (process start of a native program).
- ``--threads``: ``benchmarks/threads.py``, one thread against two across work sizes for exact ICM, Monte Carlo
  ICM and Monte Carlo equity, with the threshold each family's rows suggest (run it alone on a quiet machine:
  ``python benchmarks/threads.py``, about two minutes).

Every row states the load average it was taken under.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine_description

HERE = Path(__file__).resolve().parent.parent / "src"

COMMANDS: list[tuple[str, list[str]]] = [
    ("eval (one hand)", ["eval", "AsKsQsJsTs9d2c"]),
    ("equity AsKs random (preflop)", ["equity", "AsKs", "random"]),
    ("equity AsKs QdQc (heads-up preflop)", ["equity", "AsKs", "QdQc"]),
    ("equity QQ+,AKs TT+,AQs+ (ranges)", ["equity", "QQ+,AKs", "TT+,AQs+"]),
    ("range QQ+,AKs --grid", ["range", "QQ+,AKs", "--grid"]),
    ("icm 3 players", ["icm", "--stacks", "5000,3000,2000", "--payouts", "50,30,20"]),
    ("icm final table (9 players)", ["icm", "--stacks", "9000,8000,7000,6000,5000,4000,3000,2000,1000",
                                     "--payouts", "40,25,15,10,6,4"]),
    ("equity AsKs QdQc on a flop", ["equity", "AsKs", "QdQc", "--board", "2c7d9h"]),
    ("pushfold heads-up 10 bb", ["pushfold", "--stacks", "10,10"]),
    ("pushfold heads-up ICM 12/8 bb, 70/30", ["pushfold", "--stacks", "12,8", "--payouts", "70,30"]),
]
"""Commands run as ``python -m pokerlab ...``."""

SCRIPTS: list[tuple[str, str]] = [
    ("API: pushfold([10, 10]) (python -c)", "from pokerlab import pushfold; pushfold([10, 10])"),
]
"""One-shot scripts through the Python API, run as ``python -c ...`` beside the commands."""


def workloads() -> list[tuple[str, list[str]]]:
    """Every row's label and its interpreter arguments."""
    return ([(label, ["-m", "pokerlab", *args]) for label, args in COMMANDS]
            + [(label, ["-c", script]) for label, script in SCRIPTS])


ICM_C = r"""
#include <stdio.h>
int main(void) {  /* Malmuth-Harville ICM of three players by the subset recursion */
    double s[3] = {5000, 3000, 2000}, pay[3] = {50, 30, 20}, eq[3] = {0}, prob[8] = {1}, out;
    for (int mask = 0; mask < 8; mask++) {
        int placed = __builtin_popcount(mask);
        if (placed == 3 || prob[mask] == 0) continue;
        out = 0;
        for (int j = 0; j < 3; j++) if (!(mask >> j & 1)) out += s[j];
        for (int j = 0; j < 3; j++) if (!(mask >> j & 1)) {
            double p = prob[mask] * s[j] / out;
            eq[j] += p * pay[placed];
            prob[mask | 1 << j] += p;
        }
    }
    printf("%.6f %.6f %.6f\n", eq[0], eq[1], eq[2]);
    return 0;
}
"""

EVAL7_SCRIPT = ("import eval7; print(eval7.handtype(eval7.evaluate([eval7.Card(c) for c in "
                "('As', 'Ks', 'Qs', 'Js', 'Ts', '9d', '2c')])))")


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + sys of the child) of one run; the run must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pokerlab_env(src: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src), **extra)
    env.pop("NUMBA_NUM_THREADS", None)
    # bytecode caches on, as in an installed package (pip compiles them): without them every run compiles each
    # pokerlab module from source, about 0.05 s of CPU on a push/fold command
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_rows(trees: dict[str, Path], runs: int) -> None:
    print(f"\n### Warm: median of {runs} runs (load {os.getloadavg()[0]:.1f} at start)\n")
    names = list(trees)
    print("| command | " + " | ".join(f"{name} wall | {name} CPU" for name in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for label, args in workloads():
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for name in names:  # once each, untimed: every kernel of the command in the cache
            timed([sys.executable, *args], pokerlab_env(trees[name]))
        for _ in range(runs):
            for name in names:  # interleaved: both trees see the same load
                samples[name].append(timed([sys.executable, *args], pokerlab_env(trees[name])))
        cells = []
        for name in names:
            wall = statistics.median(w for w, _ in samples[name])
            cpu = statistics.median(c for _, c in samples[name])
            cells.append(f"{wall:.2f} s | {cpu:.2f} s")
        print(f"| `{label}` | " + " | ".join(cells) + f" |  (load {os.getloadavg()[0]:.1f})", flush=True)


def cold_rows(trees: dict[str, Path]) -> None:
    print(f"\n### Cold: first answer with an empty numba cache and table cache (load {os.getloadavg()[0]:.1f})\n")
    names = list(trees)
    print("| command | " + " | ".join(f"{name} wall | {name} CPU" for name in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for label, args in workloads():
        cells = []
        for name in names:
            with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as tables:
                env = pokerlab_env(trees[name], NUMBA_CACHE_DIR=numba_cache, POKERLAB_CACHE_DIR=tables)
                wall, cpu = timed([sys.executable, *args], env)
            cells.append(f"{wall:.1f} s | {cpu:.1f} s")
        print(f"| `{label}` | " + " | ".join(cells) + f" |  (load {os.getloadavg()[0]:.1f})", flush=True)


def peer_rows(runs: int) -> None:
    print(f"\n### One-shot peers: median of {runs} runs (load {os.getloadavg()[0]:.1f})\n")
    print("| program | wall | CPU |")
    print("|---|---|---|")
    peers: list[tuple[str, list[str]]] = [("python -c pass (the interpreter alone)", [sys.executable, "-c", "pass"])]
    try:
        import eval7  # noqa: F401

        peers.append(("python: import eval7, rank one hand", [sys.executable, "-c", EVAL7_SCRIPT]))
    except ImportError:
        print("| eval7 (the bench extra) not installed: `pip install -e '.[bench]'` | | |")
    scratch = Path(tempfile.mkdtemp(prefix="pokerlab-startup-"))
    try:
        compiler = shutil.which("cc")
        if compiler is not None:
            (scratch / "icm.c").write_text(ICM_C)
            subprocess.run([compiler, "-O2", "-o", str(scratch / "icm"), str(scratch / "icm.c")], check=True)
            peers.append(("C program: three-player ICM", [str(scratch / "icm")]))
        for label, argv in peers:
            samples = [timed(argv) for _ in range(runs)]
            print(f"| {label} | {statistics.median(w for w, _ in samples):.3f} s | "
                  f"{statistics.median(c for _, c in samples):.3f} s |", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def thread_rows(src: Path) -> None:
    """One thread against two across work sizes, with suggested thresholds (``benchmarks/threads.py``)."""
    sys.stdout.flush()
    subprocess.run([sys.executable, str(Path(__file__).resolve().parent / "threads.py")], env=pokerlab_env(src),
                   check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="also the first answers with empty caches")
    parser.add_argument("--before", type=Path, help="another checkout's src folder, timed interleaved")
    parser.add_argument("--threads", action="store_true", help="also one thread against two (benchmarks/threads.py)")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm rows")
    options = parser.parse_args()
    print(f"## Start-up ({machine_description()})")
    trees = {"after": HERE} if options.before is None else {"before": options.before, "after": HERE}
    if not options.no_warm:
        warm_rows(trees, options.runs)
    peer_rows(options.runs)
    if options.cold:
        cold_rows(trees)
    if options.threads:
        thread_rows(HERE)


if __name__ == "__main__":
    main()
