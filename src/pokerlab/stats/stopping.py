"""Running moments and stopping rules for Monte Carlo estimates.

Kernels return per-batch sums (``sum x`` and ``sum x^2`` per component); :class:`RunningMoments` accumulates
them without storing samples, and :class:`StoppingRule` decides when to stop: after a trial count, after a
time budget, or once every component's confidence half-width is below a target.

The half-width rule is the Chow-Robbins fixed-width sequential rule: stop at the first checked ``n`` with
``n >= z^2 * s_n^2 / d^2`` (equivalently ``z * s_n / sqrt(n) <= d``), where ``z`` is the two-sided normal
quantile at the confidence and ``s_n^2`` the running unbiased variance. The ``z^2`` matters: a rule written
as ``sum of variances <= n d^2 / z`` (as in one of the source articles) under-samples for ``z > 1``.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from pokerlab.errors import InvalidArgumentError, real_number
from pokerlab.progress import deferred_interrupts

MOST_SAMPLES = 1 << 62
"""What :meth:`StoppingRule.samples_needed` answers for a target out of any reach (a count no run makes)."""


def normal_quantile(confidence: float) -> float:
    """Two-sided standard normal quantile: ``z`` with ``P(|Z| <= z) = confidence``. ``0.95 -> 1.95996...``."""
    if not 0.0 < confidence < 1.0:
        raise InvalidArgumentError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


@dataclass
class RunningMoments:
    """Running count, mean and variance of a vector of estimates, fed with batch sums.

    To avoid the cancellation of ``sum x^2 - n mean^2`` the sums are taken about a shift (the first batch's
    mean), which the kernels need not know about: :meth:`add_sums` re-centres exactly.

    >>> m = RunningMoments(1)
    >>> m.add_sums(np.array([3.0]), np.array([5.0]), 2)   # samples 1 and 2
    >>> float(m.mean[0]), float(m.variance[0])
    (1.5, 0.5)
    """

    components: int
    count: int = 0
    _shift: np.ndarray = field(init=False, repr=False)
    _sum: np.ndarray = field(init=False, repr=False)
    _sum_squares: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._shift = np.zeros(self.components)
        self._sum = np.zeros(self.components)
        self._sum_squares = np.zeros(self.components)

    def add_sums(self, sums: np.ndarray, sums_of_squares: np.ndarray, count: int) -> None:
        """Add a batch given by its per-component sums ``sum x`` and ``sum x^2`` over ``count`` samples."""
        if count <= 0:
            return
        sums = np.asarray(sums, dtype=np.float64)
        sums_of_squares = np.asarray(sums_of_squares, dtype=np.float64)
        if self.count == 0:
            self._shift = sums / count
        # sum (x - c)^2 = sum x^2 - 2 c sum x + n c^2, with c the fixed shift
        self._sum += sums - count * self._shift
        self._sum_squares += sums_of_squares - 2.0 * self._shift * sums + count * self._shift**2
        self.count += count

    @property
    def mean(self) -> np.ndarray:
        """Running mean per component (zeros before any sample)."""
        if self.count == 0:
            return np.zeros(self.components)
        return self._shift + self._sum / self.count

    @property
    def variance(self) -> np.ndarray:
        """Unbiased sample variance per component (``inf`` with fewer than two samples)."""
        if self.count < 2:
            return np.full(self.components, np.inf)
        centred = self._sum_squares - self._sum**2 / self.count
        return np.maximum(centred, 0.0) / (self.count - 1)

    @property
    def stderr(self) -> np.ndarray:
        """Standard error of the mean per component."""
        if self.count < 2:
            return np.full(self.components, np.inf)
        return np.sqrt(self.variance / self.count)


@dataclass(frozen=True)
class StoppingRule:
    """When a Monte Carlo run stops: whichever of its limits is reached first.

    - ``max_samples``: a trial count;
    - ``time_limit``: seconds of wall time;
    - ``half_width`` at ``confidence``: every component's confidence half-width ``z * stderr`` is at most
      ``half_width`` (Chow-Robbins), checked only after ``min_samples`` so the variance estimate is sane.

    At least one limit must be set. ``StoppingRule(half_width=1.0, confidence=0.90)`` stops when each
    estimate is known to +-1 at 90%.
    """

    max_samples: int | None = None
    time_limit: float | None = None
    half_width: float | None = None
    confidence: float = 0.95
    min_samples: int = 1000

    def __post_init__(self) -> None:
        for name in ("time_limit", "half_width"):
            if getattr(self, name) is not None:
                real_number(getattr(self, name), name.replace("_", " "))
        real_number(self.confidence, "confidence")
        if self.max_samples is not None and (isinstance(self.max_samples, bool)
                                             or not isinstance(self.max_samples, numbers.Integral)):
            raise InvalidArgumentError(f"trial count must be a whole number, got {self.max_samples!r}")
        if self.max_samples is None and self.time_limit is None and self.half_width is None:
            raise InvalidArgumentError("a Monte Carlo run needs a trial count, a time limit or a target error")
        if self.max_samples is not None and self.max_samples < 1:
            raise InvalidArgumentError(f"trial count must be at least 1, got {self.max_samples}")
        if self.time_limit is not None and not (self.time_limit > 0 and math.isfinite(self.time_limit)):
            raise InvalidArgumentError(f"time limit must be a positive number of seconds, got {self.time_limit}")
        if self.half_width is not None and not (self.half_width > 0 and math.isfinite(self.half_width)):
            raise InvalidArgumentError(f"target error must be positive, got {self.half_width}")
        normal_quantile(self.confidence)  # validates the confidence

    @classmethod
    def from_stderr(cls, target_stderr: float, **kwargs: float | int | None) -> StoppingRule:
        """A rule whose target is a standard error rather than a half-width (``half_width = z * stderr``)."""
        confidence = float(kwargs.pop("confidence", 0.95) or 0.95)
        if not (target_stderr > 0 and math.isfinite(target_stderr)):
            raise InvalidArgumentError(f"target standard error must be positive, got {target_stderr}")
        return cls(half_width=normal_quantile(confidence) * target_stderr, confidence=confidence,
                   **kwargs)  # type: ignore[arg-type]  # the remaining fields, by name

    @property
    def z(self) -> float:
        """The two-sided normal quantile of this rule's confidence."""
        return normal_quantile(self.confidence)

    def samples_needed(self, variance: np.ndarray) -> int:
        """Samples the half-width rule needs for the given per-component variances: ``max z^2 s^2 / d^2``."""
        if self.half_width is None:
            return self.max_samples or 0
        worst = float(np.max(variance)) if np.size(variance) else 0.0
        if not math.isfinite(worst):
            return self.min_samples
        # as a ratio first: the square of a tiny target (1e-300) is 0 in floating point
        ratio = self.z * math.sqrt(worst) / self.half_width
        if not ratio < math.sqrt(MOST_SAMPLES):
            return MOST_SAMPLES
        return max(self.min_samples, math.ceil(ratio * ratio))

    def reason_to_stop(self, moments: RunningMoments, elapsed: float) -> str | None:
        """Why the run should stop now (``'trials'``, ``'time'``, ``'precision'``), or ``None`` to go on."""
        if self.max_samples is not None and moments.count >= self.max_samples:
            return "trials"
        if self.time_limit is not None and elapsed >= self.time_limit:
            return "time"
        if (
            self.half_width is not None
            and moments.count >= self.min_samples
            and moments.count >= self.samples_needed(moments.variance)
        ):
            return "precision"
        return None

    def fraction_done(self, moments: RunningMoments, elapsed: float) -> float:
        """How far the run is towards its nearest limit, in [0, 1] (for a progress bar)."""
        fraction = 0.0
        if self.max_samples:
            fraction = max(fraction, moments.count / self.max_samples)
        if self.time_limit:
            fraction = max(fraction, elapsed / self.time_limit)
        if self.half_width is not None and moments.count >= 2:
            fraction = max(fraction, moments.count / max(self.samples_needed(moments.variance), 1))
        return min(fraction, 1.0)

    def fraction_reporter(self, progress: Callable[[float], None] | None
                          ) -> Callable[[RunningMoments, float], None] | None:
        """The :func:`run_until` callback that hands :meth:`fraction_done` to ``progress`` (None without one)."""
        if progress is None:
            return None
        return lambda moments, elapsed: progress(self.fraction_done(moments, elapsed))

    def next_batch(self, moments: RunningMoments, elapsed: float, batch: int, cap: int = 1 << 22) -> int:
        """Size of the next batch: no more than the trial count or the half-width rule still needs, and
        small enough that a time limit is checked every few hundredths of a second."""
        size = batch
        if self.max_samples is not None:
            size = min(size, self.max_samples - moments.count)
        if self.half_width is not None and moments.count >= self.min_samples:
            remaining = self.samples_needed(moments.variance) - moments.count
            # grow geometrically towards the estimate; the estimate itself is noisy early on
            size = min(size, max(remaining, moments.count // 8, 1))
        if self.time_limit is not None and moments.count > 0 and elapsed > 0:
            rate = moments.count / elapsed
            size = min(size, max(1, int(rate * max(self.time_limit - elapsed, 0.0) + 1)), max(1, int(rate * 0.05)))
        return max(1, min(size, cap))


def run_until(
    rule: StoppingRule,
    components: int,
    sample_batch: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
    *,
    first_batch: int = 4096,
    max_batch: int = 1 << 22,
    progress: Callable[[RunningMoments, float], None] | None = None,
) -> tuple[RunningMoments, str, float]:
    """Drive a Monte Carlo kernel until ``rule`` says stop.

    ``sample_batch(batch_index, size)`` must return ``(sums, sums_of_squares)`` over ``size`` fresh samples;
    the batch index lets the caller derive an independent, reproducible seed per batch. Batches double from
    ``first_batch`` up to ``max_batch`` samples (bound it by the work of a sample, so that a batch, which Ctrl-C
    waits for, stays well under a second). Returns the moments, the reason for stopping and the elapsed seconds.

    Ctrl-C during a batch is held until the batch is added (:func:`pokerlab.progress.deferred_interrupts`), then
    stops the run with the reason ``'interrupted'`` and the honest moments of the batches done (a Ctrl-C before
    the first batch is done raises ``KeyboardInterrupt``); the façade turns that into
    :class:`pokerlab.errors.Interrupted` carrying the partial result (:func:`pokerlab.progress.stop_if_interrupted`).
    """
    moments = RunningMoments(components)
    start = time.perf_counter()
    batch_index = 0
    size = first_batch if rule.max_samples is None else min(first_batch, rule.max_samples)
    try:
        while True:
            with deferred_interrupts():  # a batch is added whole or not at all
                sums, squares = sample_batch(batch_index, size)
                moments.add_sums(sums, squares, size)
            batch_index += 1
            elapsed = time.perf_counter() - start
            if progress is not None:
                progress(moments, elapsed)
            reason = rule.reason_to_stop(moments, elapsed)
            if reason is not None:
                return moments, reason, elapsed
            # batch sizes never depend on the clock unless there is a time limit: a seed gives one result
            size = rule.next_batch(moments, elapsed, batch=max(size * 2, first_batch), cap=max_batch)
    except KeyboardInterrupt:
        if moments.count == 0:
            raise
        return moments, "interrupted", time.perf_counter() - start


def out_of_reach(target: float, pilot_error: float, pilot_seconds: float, seconds: float, *, what: str) -> str | None:
    """Why a Monte Carlo target error ``target`` cannot be reached in ``seconds``, or None when it can.

    A pilot run of ``pilot_seconds`` reached an error of ``pilot_error``; an error falls as one over the square
    root of the samples, and the samples grow in proportion to the time, so ``seconds`` reach about
    ``pilot_error * sqrt(pilot_seconds / seconds)``, and the target needs ``pilot_seconds * (pilot_error /
    target)^2``. ``what`` names the target as the user gave it (``"--stderr 1e-09"``).

    >>> out_of_reach(1e-4, 1e-3, 0.5, 600.0, what="--stderr 0.0001") is None
    True
    >>> why = out_of_reach(1e-9, 1e-3, 0.5, 600.0, what="--stderr 1e-09")
    >>> why.split(": ")[0], why.split("needs ")[1]
    ('--stderr 1e-09 is out of reach in 600 s', 'about 15.8 thousand years here; 600 s allow about 2.9e-05')
    """
    if not (pilot_error > 0 and math.isfinite(pilot_error) and pilot_seconds > 0):
        return None  # an exact answer (no spread), or a pilot too short to measure
    ratio = pilot_error / target if target > 0 else math.inf
    needed = pilot_seconds * ratio * ratio if ratio < 1e150 else math.inf  # (1e-300) ** -2 overflows a float
    if needed <= seconds:
        return None
    reachable = pilot_error * math.sqrt(pilot_seconds / seconds)
    return (f"{what} is out of reach in {seconds:g} s: a pilot run reached {pilot_error:.2g} in {pilot_seconds:.2g} s, "
            f"so the target needs {_duration(needed)} here; {seconds:g} s allow about {reachable:.2g}")


def _duration(seconds: float) -> str:
    """``_duration(90) == 'about 1.5 min'``; beyond a thousand years in words (``'about 15.8 thousand years'``)."""
    year = 365.25 * 86400
    if not math.isfinite(seconds) or seconds > 1e30 * year:
        return "far longer than the age of the universe"
    if seconds >= 1e3 * year:
        value, scale = seconds / year, ""
        for size, word in ((1e12, " trillion"), (1e9, " billion"), (1e6, " million"), (1e3, " thousand")):
            if value >= size:
                value, scale = value / size, word
                break
        return f"about {value:,.1f}{scale} years"
    for size, unit in ((year, "years"), (86400, "days"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"about {seconds / size:,.1f} {unit}"
    return f"about {seconds:.1f} s"
