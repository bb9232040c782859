"""Shared benchmark helpers: the machine description and a best-of timer."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable


def machine_description() -> str:
    """CPU model, logical cores and Python version, for the header of every benchmark."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{model}, {os.cpu_count()} logical cores, {instruction_sets()}, Python {platform.python_version()}, "
            f"{platform.system()}, load {os.getloadavg()[0]:.1f}")


def instruction_sets() -> str:
    """The widest vector instruction sets of the CPU (timings depend on them: state them beside every figure)."""
    try:
        with open("/proc/cpuinfo") as handle:
            flags = next((line.split(":", 1)[1].split() for line in handle if line.startswith("flags")), [])
    except OSError:
        return "instruction sets unknown"
    found = [name for name, flag in (("AVX2", "avx2"), ("AVX-512", "avx512f")) if flag in flags]
    return "/".join(found) if found else "no AVX2"


def best_time(function: Callable[[], object], repeats: int = 3,
              clock: Callable[[], float] = time.perf_counter) -> float:
    """Smallest time of ``repeats`` calls, in seconds (the usual estimate of the undisturbed time): wall time,
    or with ``clock=time.process_time`` the CPU time of this process (what the work took on a core, whatever
    else shared it)."""
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        function()
        best = min(best, clock() - start)
    return best


def row(workload: str, ours: float, unit: str, target: str = "", peer: str = "", ratio: str = "") -> None:
    """Print one aligned result line."""
    print(f"  {workload:<46} {ours:>12.4g} {unit:<10} {target:<16} {peer:<28} {ratio}")
