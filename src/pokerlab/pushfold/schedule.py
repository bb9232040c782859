"""When a push/fold solve checks its gains, redeals its 3+ way pots, doubles their deals and stops.

The solve (:func:`pokerlab.pushfold.pushfold`) iterates, checks each seat's best-response gain, and asks a
:class:`SolveSchedule` what to do next. The schedule holds no game: it reads the iteration count, the best gain
so far and the clock, so its rules are tested on their own (tests/pushfold/test_schedule.py).

>>> schedule = SolveSchedule(target=1e-3, iterations=None, deadline=None, redeal=True, can_double=True)
>>> schedule.next_batch(0)
8
>>> schedule.after_check(8, 0.5).action, schedule.after_check(16, 0.5).action
('continue', 'redeal')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

REDEAL_ITERATIONS = 16
"""Iterations on uniform deals before the 3+ way pots are redealt from the ranges that reach them."""
MORE_DEALS_AFTER = 16
"""Iterations after the redeal before a solve that is still above its target is redealt once more on twice the
deals (where they fit in memory): the near-chip-EV nine-seat solves stall at a gain that falls with the deals'
noise (docs/benchmarks.md), which solves that reach their target sooner need not pay for."""
FIRST_CHECK = 8
"""Iterations before the first gain check, and the fewest between two checks."""

CONTINUE, REDEAL, TARGET, ITERATIONS, TIME = "continue", "redeal", "target", "iterations", "time"


@dataclass(frozen=True)
class Step:
    """What the solve does after a gain check: ``action`` one of ``continue``, ``redeal`` (on ``deals_factor``
    times the asked deals) or a stop reason (``target``, ``iterations``, ``time``)."""

    action: str
    deals_factor: int = 1

    @property
    def stops(self) -> bool:
        return self.action not in (CONTINUE, REDEAL)


class SolveSchedule:
    """The solve's plan: gain checks after 8 iterations, then every quarter of the iterations done (at least 8);
    with 3+ way pots a redeal after :data:`REDEAL_ITERATIONS` iterations (or sooner at the target or the
    iteration limit: a result comes from the redealt game), and once more on twice the deals when the gain is
    still above the target :data:`MORE_DEALS_AFTER` iterations later (``can_double``: the deals fit in memory).
    The target counts only after the redeal. With a ``deadline`` (on ``clock``'s scale, seconds) the solve
    stops at the first check past it, no redeal starts past it, and :meth:`out_of_time` lets the iteration
    loop end its batch early."""

    def __init__(self, *, target: float, iterations: int | None, deadline: float | None, redeal: bool,
                 can_double: bool, clock: Callable[[], float] = time.perf_counter) -> None:
        self.target = target
        self.iterations = iterations
        self.clock = clock
        self.deadline = deadline
        self.redeal_pending = redeal
        self.redealt_at: int | None = None
        self.doubled = not can_double
        self.check_every = FIRST_CHECK

    def out_of_time(self) -> bool:
        """Whether the time limit has passed."""
        return self.deadline is not None and self.clock() >= self.deadline

    def next_batch(self, iteration: int) -> int:
        """Iterations to run before the next gain check (the solve may end the batch early when out of time)."""
        if self.iterations is None:
            return self.check_every
        return max(0, min(self.check_every, self.iterations - iteration))

    def after_check(self, iteration: int, best_gain: float) -> Step:
        """The next step after a gain check at ``iteration`` whose best profile's largest gain is ``best_gain``."""
        at_limit = self.iterations is not None and iteration >= self.iterations
        late = self.out_of_time()
        reached = best_gain <= self.target
        if self.redeal_pending and not late and (iteration >= REDEAL_ITERATIONS or reached or at_limit):
            return self._redeal(iteration, 1)
        stalled = (self.redealt_at is not None and not self.doubled and not reached and not at_limit
                   and iteration >= REDEAL_ITERATIONS + MORE_DEALS_AFTER)
        if stalled and not late:
            self.doubled = True
            return self._redeal(iteration, 2)
        if reached and not self.redeal_pending:
            return Step(TARGET)
        if at_limit:
            return Step(ITERATIONS)
        if late:
            return Step(TIME)
        self.check_every = max(FIRST_CHECK, iteration // 4)
        return Step(CONTINUE)

    def _redeal(self, iteration: int, factor: int) -> Step:
        self.redeal_pending = False
        self.redealt_at = iteration
        self.check_every = FIRST_CHECK
        return Step(REDEAL, factor)
