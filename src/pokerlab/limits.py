"""Limits that protect the machine: work that could not finish, or would not fit in memory, is refused before
it starts, with the estimate that says why.

Rates are deliberately optimistic (what a fast, quiet machine does), so only requests that are out of reach
on any machine are refused; the message gives the rate and the resulting estimate.
"""

from __future__ import annotations

import os

from pokerlab.errors import ResourceLimitError

MAX_RUN_SECONDS = 24 * 3600.0  # a run that would take more than a day is refused: split it, or ask for less
MEMORY_SHARE = 0.8  # of the memory available now that one request may take
HEADS_UP_TARGET = 1e-5
"""Push/fold's default target gain heads-up (bb; ICM: money worth this many bb): a chart pure except at the true
indifference points, in milliseconds (docs/benchmarks.md)."""
MULTIWAY_TARGET = 1e-3
"""Push/fold's default target gain with 3+ seats."""
MULTIWAY_DEALS = 4000
"""Push/fold's default deals per 3+ way pot after the redeal (:func:`pokerlab.pushfold.pushfold`; docs/benchmarks.md:
with 1,000 the nine-seat solves stalled, and the sampling hid gains of 0.1-0.3; with 4,000 they reach the target).
Here, not in the solver, so that the CLI and the web form read it without importing the engine."""
MULTIWAY_BYTES = 64
"""Bytes per seat, deal and 3+ way pot that a push/fold game's deals and outcome tables hold at the peak, with a
margin: every seat valued once, tracemalloc measured 44-49 (six seats, 4,000 deals; nine, 1,000 deals)."""


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (``MemAvailable`` on Linux, else physical memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 1 << 34


def format_bytes(count: float) -> str:
    """``format_bytes(7.3 * 2**40) == '7.3 TiB'``."""
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def format_duration(seconds: float) -> str:
    """``format_duration(90) == '1.5 min'``, ``format_duration(3 * 86400 * 365) == '3.0 years'``."""
    for size, unit in ((365.25 * 86400, "years"), (86400, "days"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} s"


def check_work(count: int | float, what: str, *, per_second: float, bytes_each: float = 0.0,
               max_seconds: float = MAX_RUN_SECONDS) -> None:
    """Refuse ``count`` units of work (``what`` names them, e.g. ``"--hands 1,000,000,000,000"``) that would
    need more than :data:`MEMORY_SHARE` of the available memory at ``bytes_each`` per unit, or more than
    ``max_seconds`` at ``per_second`` units a second. Raises :class:`ResourceLimitError` with the estimate.

    >>> check_work(10_000, "--hands 10,000", per_second=50_000, bytes_each=8)
    >>> check_work(10**12, "--hands 10^12", per_second=50_000, bytes_each=8)
    Traceback (most recent call last):
    ...
    pokerlab.errors.ResourceLimitError: --hands 10^12 would need about 7.3 TiB of memory (8 bytes each)...
    """
    needed = float(count) * bytes_each
    budget = MEMORY_SHARE * available_memory()
    if needed > budget:
        most = int(budget // bytes_each)
        raise ResourceLimitError(f"{what} would need about {format_bytes(needed)} of memory ({bytes_each:g} bytes "
                                 f"each) and {format_bytes(budget)} can be used: ask for at most {most:,}")
    seconds = float(count) / per_second
    if seconds > max_seconds:
        most = int(max_seconds * per_second)
        raise ResourceLimitError(f"{what} would take at least {format_duration(seconds)} (about {per_second:,.0f} "
                                 f"a second on a fast machine), more than the {format_duration(max_seconds)} one "
                                 f"run may take: ask for at most {most:,} and continue from there")


def multiway_deals_fit(seats: int, deals: int) -> bool:
    """Whether :func:`check_multiway_deals` accepts ``deals`` (push/fold doubles its deals only where they fit).

    >>> multiway_deals_fit(9, 4000), multiway_deals_fit(10, 10**9)
    (True, False)
    """
    try:
        check_multiway_deals(seats, deals)
    except ResourceLimitError:
        return False
    return True


def check_multiway_deals(seats: int, deals: int) -> None:
    """Refuse push/fold deals per 3+ way pot that would not fit in memory: every 3+ way pot of ``seats`` seats
    (``2^n - 1 - n - n(n - 1)/2`` of them) holds ``deals`` deals of every seat (one set at a time: a solved game
    frees its deals before the next set is drawn).

    >>> check_multiway_deals(9, 4000)
    >>> check_multiway_deals(10, 10**9)
    Traceback (most recent call last):
    ...
    pokerlab.errors.ResourceLimitError: --multiway-samples 1,000,000,000 at 10 seats would need about ...
    """
    if seats < 3:
        return
    pots = 2 ** seats - 1 - seats - seats * (seats - 1) // 2
    # counted in deals (bytes and time per deal of every pot and seat), so the advised maximum is in deals too
    check_work(deals, f"--multiway-samples {deals:,} at {seats} seats", per_second=1e7 / (pots * seats),
               bytes_each=MULTIWAY_BYTES * pots * seats)
