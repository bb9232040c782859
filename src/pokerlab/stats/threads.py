"""How many threads a parallel kernel call gets: one below a measured work size, numba's count above it.

Waking a second thread costs more than it saves on a small call, and far more when the other core is busy:
numba's parallel region waits for every thread it started, and a descheduled one holds the call for a time
slice (a 50-player exact ICM took 12-16 ms a call with two threads while the other core was busy, 0.2-0.8 ms on
one). Each engine states its threshold beside its kernel, with the measurement it comes from
(``benchmarks/startup.py --threads`` prints the rows).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def threads_for(work: float, minimum: float) -> Iterator[int]:
    """Run the block on one numba thread when ``work < minimum``, else on numba's current count; yields the
    count (the ``threads`` argument of kernels that split their work themselves). Imports numba: use it
    around a kernel call only.

    >>> with threads_for(10, 100) as small, threads_for(1000, 100) as big:
    ...     small, big >= 1
    (1, True)
    """
    import numba

    threads = numba.get_num_threads()
    if work >= minimum or threads == 1:
        yield threads
        return
    numba.set_num_threads(1)
    try:
        yield 1
    finally:
        numba.set_num_threads(threads)
