"""The ICM façade: validate stacks and payouts once, pick a method, return an :class:`ICMResult`.

Methods:

- ``"subset"``: exact subset recursion (``n <= 24``), the oracle;
- ``"exact"``: exact exponential-race quadrature, any field size, error below ``rtol`` of each equity;
- ``"montecarlo"``: Streib's exponential clocks with a stopping rule from :mod:`pokerlab.stats`;
- ``"auto"``: ``"exact"``; up to ``PLAIN_MAX_PLAYERS`` (10) live players the subset recursion in plain
  numpy (:mod:`pokerlab.icm.small_field`, under a millisecond, with no compiled code to load), else the quadrature.

Busted players: a stack of exactly 0 is a player already eliminated. The live players (stack > 0) play for
the first ``live`` places; the busted players take the last places and, since their order of elimination is
not known, share the payouts of those places equally.
"""

from __future__ import annotations

import functools
import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import (
    Interrupted,
    InvalidArgumentError,
    InvalidPayoutsError,
    InvalidStacksError,
    ResourceLimitError,
    real_number,
    whole_number,
)
from pokerlab.icm.lobby import amounts
from pokerlab.icm.payouts import check_finite_pool, not_rising
from pokerlab.icm.small_field import PLAIN_MAX_PLAYERS, finish_places
from pokerlab.limits import MEMORY_SHARE, available_memory, check_work, format_bytes
from pokerlab.progress import deferred_interrupts, stop_if_interrupted
from pokerlab.stats import StoppingRule, run_until, validate_seed
from pokerlab.stats.threads import threads_for

# The quadrature, Monte Carlo and subset kernels (and numba, 0.3-0.5 s to import) load where a method runs them:
# a small field's "auto" (icm.small_field) loads neither numba nor a kernel

METHODS = ("auto", "exact", "subset", "montecarlo")
VARIANCE_REDUCTION = ("plain", "antithetic", "sobol", "conditional")
SUBSET_MAX_PLAYERS = 24
DEFAULT_RTOL = 1e-11


def check_method(method: object) -> None:
    """Refuse a method :func:`icm` does not know, in its words (a server checks it before a job waits).

    >>> check_method("quick")
    Traceback (most recent call last):
    pokerlab.errors.InvalidArgumentError: unknown ICM method 'quick'; use one of auto, exact, subset, montecarlo
    """
    if method not in METHODS:
        raise InvalidArgumentError(f"unknown ICM method {method!r}; use one of {', '.join(METHODS)}")


def check_variance_reduction(name: object) -> None:
    """Refuse a variance reduction Monte Carlo ICM does not know (``auto`` is resolved before this check)."""
    if name not in VARIANCE_REDUCTION:
        raise InvalidArgumentError(f"unknown variance reduction {name!r}; use one of {', '.join(VARIANCE_REDUCTION)}")


@dataclass(frozen=True)
class ICMResult:
    """Prize equity per player.

    ``equity[i]`` is player i's expected prize (payout units); ``places[i, m]`` the probability of finishing in
    place ``m + 1`` for the paid places (``None`` unless asked for); ``stderr`` the standard error per player
    for Monte Carlo (``None`` when exact); ``places_stderr`` the standard error of each sampled place
    probability (Agresti-Coull; ``None`` when exact or without places); ``samples`` the Monte Carlo sample count
    (0 when exact); ``stop_reason`` why sampling stopped (``trials``, ``time``, ``precision``).
    """

    stacks: np.ndarray
    payouts: np.ndarray
    equity: np.ndarray
    method: str
    elapsed_s: float
    places: np.ndarray | None = None
    stderr: np.ndarray | None = None
    samples: int = 0
    stop_reason: str | None = None
    nodes: int = 0
    places_stderr: np.ndarray | None = None

    @property
    def exact(self) -> bool:
        """Whether the equities are exact (no standard errors) rather than sampled."""
        return self.stderr is None

    @property
    def chip_share(self) -> np.ndarray:
        """Each player's fraction of the chips in play."""
        return chip_share(self.stacks)

    @property
    def prize_share(self) -> np.ndarray:
        """Each player's fraction of the prize pool."""
        pool = self.payouts.sum()
        return self.equity / pool if pool > 0 else np.zeros_like(self.equity)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"method", "players": [{"stack", "equity", "stderr"}], "elapsed_s"}``, players with
        ``places`` (and ``places_stderr`` when sampled) when asked for, and ``samples`` and ``stop_reason`` when
        sampled."""
        players: list[dict[str, Any]] = [
            {
                "stack": float(self.stacks[i]),
                "equity": float(self.equity[i]),
                "stderr": None if self.stderr is None else float(self.stderr[i]),
            }
            for i in range(len(self.stacks))
        ]
        out: dict[str, Any] = {"method": self.method, "players": players, "elapsed_s": float(self.elapsed_s)}
        if self.places is not None:
            for player, row in zip(players, self.places, strict=True):
                player["places"] = [float(x) for x in row]
        if self.places_stderr is not None:
            for player, row in zip(players, self.places_stderr, strict=True):
                player["places_stderr"] = [float(x) for x in row]
        if self.samples:
            out["samples"] = int(self.samples)
            out["stop_reason"] = self.stop_reason
        return out


def validate(stacks: Any, payouts: Any, allow_rising: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stacks and payouts as float arrays, or a specific error saying what is wrong (payouts that rise with
    place too, unless ``allow_rising``: a typo, or places listed last first)."""
    s = amounts(stacks, "stacks", InvalidStacksError)
    pay = check_finite_pool(amounts(payouts, "payouts", InvalidPayoutsError))
    if s.size == 0:
        raise InvalidStacksError("no players: give at least one stack")
    if not np.all(np.isfinite(s)):
        bad = ~np.isfinite(s)
        raise InvalidStacksError(f"stacks must be finite, got {s[bad][0]} (player {_first(bad)})")
    if np.any(s < 0):
        raise InvalidStacksError(f"stacks must be >= 0, player {_first(s < 0)} has {s[s < 0][0]:g}")
    if not np.any(s > 0):
        raise InvalidStacksError("every stack is 0: at least one player must have chips")
    if pay.size == 0:
        raise InvalidPayoutsError("no payouts: give at least one paid place")
    if not np.all(np.isfinite(pay)):
        raise InvalidPayoutsError("payouts must be finite numbers")
    if np.any(pay < 0):
        raise InvalidPayoutsError(f"payouts must be >= 0, place {_first(pay < 0)} pays {pay[pay < 0][0]:g}")
    if pay.size > s.size:
        raise InvalidPayoutsError(
            f"{pay.size} payouts for {s.size} players: there are more paid places than players"
        )
    return s, not_rising(pay, allow_rising)


def exact_uses_kernels(stacks: Any, method: str) -> bool:
    """Whether :func:`icm` with an exact ``method`` (``auto``, ``exact``, ``subset``) runs a compiled kernel on
    these stacks: not for ``auto`` on a field of at most :data:`PLAIN_MAX_PLAYERS` live players (a
    warm-up then has nothing to compile, and numba is not imported). Stacks that fail validation count as a
    small field: the façade refuses them before any kernel runs.

    >>> exact_uses_kernels([5000, 3000, 2000], "auto"), exact_uses_kernels([5000, 3000, 2000], "exact")
    (False, True)
    """
    if method != "auto":
        return True
    try:
        live = int(np.count_nonzero(np.asarray(stacks, dtype=np.float64) > 0))
    except (TypeError, ValueError):
        return False
    return live > PLAIN_MAX_PLAYERS


def chip_share(stacks: np.ndarray) -> np.ndarray:
    """``stacks / stacks.sum()`` without overflow: scaled by the largest stack first, so stacks near the float
    limit (``[1e308, 1e308]``) still give ``[0.5, 0.5]``."""
    scaled = stacks / stacks.max()
    share: np.ndarray = scaled / scaled.sum()
    return share


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0]) + 1


def icm(
    stacks: Any,
    payouts: Any,
    method: str = "auto",
    *,
    places: bool = False,
    rtol: float = DEFAULT_RTOL,
    samples: int | None = None,
    half_width: float | None = None,
    relative_half_width: float | None = None,
    confidence: float | None = None,
    time_limit: float | None = None,
    variance_reduction: str = "auto",
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    allow_rising: bool = False,
) -> ICMResult:
    """Malmuth-Harville prize equity of every player.

    ``stacks``: chips per player (0 = busted, see module docs). ``payouts``: money per place from first down;
    places past the end pay 0. ``method``: ``auto`` | ``exact`` | ``subset`` | ``montecarlo``. ``places``:
    also return the finish-place probability matrix (players x paid places). ``rtol``: target relative error
    of the quadrature. Monte Carlo: stop after ``samples``, or when every player's confidence half-width is
    below ``half_width`` (money) or ``relative_half_width * pool`` at ``confidence`` (default 0.95), or after
    ``time_limit`` seconds;
    ``variance_reduction`` is ``plain``, ``antithetic``, ``sobol``, ``conditional`` (O(n k) per sample, 22x
    less variance in the 50-player benchmark scenario) or ``auto`` (:func:`default_variance_reduction`).
    ``samples`` is rounded up to whole antithetic pairs or Sobol sets of 256 points and must give at least
    two of them (a standard error needs two); ``result.samples`` is the number actually drawn. The Monte
    Carlo options (``samples``, ``half_width``, ``relative_half_width``, ``confidence``, ``time_limit``,
    ``variance_reduction``, ``seed``) are an :class:`InvalidArgumentError` with an exact method. ``places=True``
    with Monte Carlo counts finishing places from plain samples (``auto`` then means ``plain``), with a binomial
    standard error per place in ``places_stderr``: the route for fields too big for the exact matrix
    (``O(n k^2)`` per node: 8 s for 2,048 players / 307 places, hours at 10,000 / 1,500). Monte Carlo reports
    the fraction done to ``progress`` between batches; Ctrl-C stops between batches with
    :class:`~pokerlab.errors.Interrupted` whose ``partial`` is the result so far, with its honest errors. The
    exact quadrature runs in kernel calls of about a tenth of a second (16 s for 50,000 players / 7,000 paid):
    it reports its estimated fraction done to ``progress`` after each, and Ctrl-C stops it between them with
    :class:`~pokerlab.errors.Interrupted` (no partial result).
    Payouts that rise with place (place 2 paying more than place 1: a typo, or places listed last first) are
    an :class:`InvalidPayoutsError` unless ``allow_rising=True``.

    >>> r = icm([5000, 3000, 2000], [50, 30, 20])
    >>> [round(float(x), 6) for x in r.equity]
    [38.392857, 32.75, 28.857143]
    """
    check_method(method)
    if not (math.isfinite(real_number(rtol, "rtol")) and 1e-15 <= rtol < 1):
        raise InvalidArgumentError(f"rtol must be in [1e-15, 1), got {rtol}")
    s, pay = validate(stacks, payouts, allow_rising)
    seed = validate_seed(seed)
    chosen = "exact" if method == "auto" else method
    if chosen == "montecarlo":
        for name, number in (("samples", samples), ("half_width", half_width), ("confidence", confidence),
                             ("relative_half_width", relative_half_width), ("time_limit", time_limit)):
            if number is not None:
                real_number(number, name)
        if places and variance_reduction not in ("auto", "plain"):
            raise InvalidArgumentError(
                "finish places by Monte Carlo are counted from plain samples: use variance_reduction='plain' or "
                f"'auto', not {variance_reduction!r}"
            )
    else:
        mc_options = {"samples": samples, "half_width": half_width, "relative_half_width": relative_half_width,
                      "confidence": confidence, "time_limit": time_limit, "seed": seed,
                      "variance_reduction": None if variance_reduction == "auto" else variance_reduction}
        given = [name for name, value in mc_options.items() if value is not None]
        if given:
            raise InvalidArgumentError(
                f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to method='montecarlo'; "
                f"method {method!r} is exact"
            )
    start = time.perf_counter()
    n = s.size
    live = np.flatnonzero(s > 0)
    n_live = live.size
    full_pay = np.zeros(n)
    full_pay[: pay.size] = pay
    live_pay = full_pay[:n_live].copy()
    busted_share = full_pay[n_live:].mean() if n_live < n else 0.0
    equity = np.full(n, busted_share)
    place_matrix = np.zeros((n, pay.size)) if places else None
    if place_matrix is not None and n_live < n:
        for m in range(n_live, pay.size):
            place_matrix[s == 0, m] = 1.0 / (n - n_live)
    stderr = None
    places_stderr = None
    count = 0
    reason = None
    nodes = 0
    if chosen in ("subset", "exact"):
        # "auto" answers a small field by the subset recursion in plain numpy: exact too, with no kernel to load
        route = "small field" if method == "auto" and n_live <= PLAIN_MAX_PLAYERS else chosen
        if chosen == "subset" and n_live > SUBSET_MAX_PLAYERS:
            raise InvalidArgumentError(
                f"the subset recursion takes 2^n memory: at most {SUBSET_MAX_PLAYERS} live players, got {n_live}"
            )
        n_places = min(pay.size, n_live)
        if places and chosen == "exact":  # now, not after the equities (16 s for 50,000 players)
            check_place_matrix_memory(n_live, n_places)
        reached = [0.0]

        def report(fraction: float) -> None:
            reached[0] = fraction
            if progress is not None:
                progress(fraction)

        try:
            values, matrix, nodes = _exact_by_tiers(s[live], live_pay, n_places, route, places, rtol, report)
        except Interrupted:
            raise
        except KeyboardInterrupt:  # between the kernel calls (about a tenth of a second each)
            what = f"finish-place matrix of {n_live:,} players x {n_places:,} places" if places else "equity"
            raise Interrupted(f"during the exact {what} ({time.perf_counter() - start:.1f} s, about "
                              f"{100 * reached[0]:.0f}% done); method='montecarlo' estimates sooner") from None
        equity[live] = values
        if place_matrix is not None:
            place_matrix[live, :n_places] = matrix
    else:
        # scale-free (only ratios matter): the exact methods normalise per tier of raw stacks, where a stack 1e-310
        # of the largest would be 0 after this
        live_stacks = _normalised(s[live])
        k = _paid_places(live_pay)
        if live_stacks.min() < 1e-300:
            raise InvalidArgumentError(
                "stacks differ by more than 1e300: Monte Carlo clocks cannot hold that range; the exact methods "
                "split such fields into tiers"
            )
        if variance_reduction == "auto":
            variance_reduction = "plain" if places else default_variance_reduction(n_live, k, samples)
        n_places = min(pay.size, n_live) if places else 0
        if samples is not None:  # a count that could never finish is refused now, with the estimate
            check_work(samples, f"{samples:,} samples of {n_live:,} players",
                       per_second=SAMPLE_PLAYERS_PER_SECOND / n_live)
        values, err, count, reason, counted = _monte_carlo(
            live_stacks, live_pay, k, samples, half_width, relative_half_width, confidence, time_limit,
            variance_reduction, seed, n_places, progress,
        )
        equity[live] = values
        stderr = np.zeros(n)
        stderr[live] = err
        if place_matrix is not None:
            assert counted is not None  # counted whenever places are asked for
            place_matrix[live, :n_places] = counted
            places_stderr = np.zeros_like(place_matrix)
            # Agresti-Coull: sqrt(p~ (1 - p~) / (N + 4)) with p~ = (x + 2) / (N + 4). Wald's sqrt(p (1 - p) / N)
            # is 0 for a place never seen and too small for rare ones (its z-scores have heavy tails)
            adjusted = (counted * count + 2.0) / (count + 4.0)
            places_stderr[live, :n_places] = np.sqrt(adjusted * (1.0 - adjusted) / (count + 4.0))
        chosen = f"montecarlo-{variance_reduction}"
    elapsed = time.perf_counter() - start
    result = ICMResult(
        stacks=s, payouts=pay, equity=equity, method=chosen, elapsed_s=elapsed,
        places=place_matrix, stderr=stderr, samples=count, stop_reason=reason, nodes=nodes,
        places_stderr=places_stderr,
    )
    return stop_if_interrupted(result, f"after {count:,} samples ({elapsed:.1f} s)")


# ------------------------------------------------------------------------------------------------------------
# exact quadrature driver
# ------------------------------------------------------------------------------------------------------------

TIER_GAP = 1e30  # stacks this many times apart finish in stack order, to within n^2 / 1e30 of probability


def _paid_places(pay: np.ndarray) -> int:
    """How many leading places pay anything (the last paying place's number; 0 if none pays)."""
    paying = np.flatnonzero(pay > 0)
    return int(paying[-1]) + 1 if paying.size else 0


def _normalised(stacks: np.ndarray) -> np.ndarray:
    """Stacks scaled to mean 1 (divided by the largest first, so stacks near the float limit cannot overflow)."""
    scaled = stacks / stacks.max()
    normalised: np.ndarray = scaled / scaled.mean()
    return normalised


def _exact_by_tiers(stacks: np.ndarray, pay: np.ndarray, n_places: int, method: str, places: bool,
                    rtol: float, progress: Callable[[float], None] | None = None,
                    ) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Exact equity (and the first ``n_places`` finish places) of live players, one tier at a time.

    Players whose stacks are more than :data:`TIER_GAP` apart finish in stack order: a smaller stack s passes a
    bigger one S with probability below s / S per pair, so with the field split into tiers at such gaps the
    biggest tier takes the first places, the next tier the next ones, and so on, with an error below
    n^2 / TIER_GAP of the pool (1e-22 for 10,000 players), far under double precision (a tier with no paid place
    gets 0 where the truth is of order s / S times a payout). Without tiers the quadrature's range would span the
    whole ratio (it loses accuracy past ~1e250: 1e300 against 1, 1). ``stacks``: raw chips, normalised per tier.
    ``progress``: the fraction of the quadrature done (each tier's in turn).
    """
    order = np.argsort(-stacks, kind="stable")
    ranked = stacks[order]
    cuts = np.flatnonzero(ranked[1:] < ranked[:-1] / TIER_GAP) + 1  # divided, not multiplied: no overflow
    if cuts.size == 0:
        return _exact(_normalised(stacks), pay, n_places, method, places, rtol, progress)
    equity = np.zeros(stacks.size)
    matrix = np.zeros((stacks.size, n_places)) if places else None
    nodes = 0
    first = 0
    for tier in np.split(order, cuts):
        size = tier.size
        tier_places = max(0, min(n_places - first, size))
        values, tier_matrix, tier_nodes = _exact(_normalised(stacks[tier]), pay[first:first + size], tier_places,
                                                 method, places, rtol, progress)
        equity[tier] = values
        if matrix is not None and tier_places:
            matrix[tier, first:first + tier_places] = tier_matrix
        nodes += tier_nodes
        first += size
    return equity, matrix, nodes


def _exact(stacks: np.ndarray, pay: np.ndarray, n_places: int, method: str, places: bool, rtol: float,
           progress: Callable[[float], None] | None = None) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Equity by the subset recursion (``method``: ``"subset"`` compiled, ``"small field"`` in plain numpy) or the
    quadrature for live players (``pay`` one entry per player), and with ``places`` their first ``n_places``
    finish-place probabilities; returns the quadrature node count. ``progress``: the estimated fraction of the
    quadrature done."""
    n = stacks.size
    k = _paid_places(pay)
    if method in ("subset", "small field"):
        if method == "subset":
            from pokerlab.icm.subset import icm_subset

            by_place = icm_subset(stacks, max(k, n_places, 1))
        else:
            by_place = finish_places(stacks, max(k, n_places, 1))
        equity = by_place[:, :k] @ pay[:k] if k else np.zeros(n)
        return equity, (by_place[:, :n_places] if places else None), 0
    # the equity's share of the work: a node costs about n sqrt(k) steps, one of the place matrix n k^2 / 2
    share = 1.0 / (1.0 + n_places ** 1.5 / 2.0) if places and n_places else 1.0
    equity, nodes = _quadrature_equity(stacks, pay, k, rtol, _part(progress, 0.0, share))
    matrix = None
    if places:
        matrix = (_quadrature_places(stacks, n_places, rtol, _part(progress, share, 1.0)) if n_places
                  else np.zeros((n, 0)))
    return equity, matrix, nodes


def _part(progress: Callable[[float], None] | None, start: float,
          stop: float) -> Callable[[float], None] | None:
    """``progress`` for one part of a job: its fraction mapped onto ``[start, stop]`` of the whole."""
    if progress is None:
        return None
    report = progress
    return lambda fraction: report(start + (stop - start) * fraction)


#: The most work of one Monte Carlo batch, in player-samples (x paid places for the conditional estimator): about
#: 0.2 s on 2 loaded cores (4-5e7 player-samples a second counting places for 1,500 players).
ICM_BATCH_WORK = 1 << 23
CONDITIONAL_MAX_WORK = 200_000  # players x paid places: above it one conditional sample costs over ~0.3 ms
SOBOL_MAX_PLAYERS = 4096  # beyond it 256-point Sobol sets gain little over plain sampling (measured at 5,000)


def default_variance_reduction(players: int, paid: int, samples: int | None = None) -> str:
    """The estimator that reaches a given precision soonest (least variance x time per sample), by a rule fitted
    to measurements on the development machine (docs/benchmarks.md, "Which estimator").

    Up to 64 players, scrambled Sobol sets (randomised QMC) win by 2-7x over antithetic pairs and more over the
    rest. In larger fields conditional Monte Carlo wins, by 2-4x over Sobol and 10-20x over plain sampling: it
    costs O(n k) per sample against O(n), but its variance falls faster as the field grows. Above
    ``n k =`` :data:`CONDITIONAL_MAX_WORK` a conditional sample costs over 0.3 ms (0.8 ms at 2,048 / 307): the
    stopping rule's 1,000-sample minimum alone takes most of a second and a sample count sized for the O(n)
    estimators runs 50x longer, so the rule takes Sobol again up to :data:`SOBOL_MAX_PLAYERS` players and plain
    sampling beyond (the exact method answers such fields in milliseconds to seconds). A Sobol run draws whole
    sets of 256 points, at least two: when fewer ``samples`` are asked for, antithetic pairs (at least 4
    samples) or plain sampling.

    >>> default_variance_reduction(50, 40), default_variance_reduction(200, 30), default_variance_reduction(50, 40, 100)
    ('sobol', 'conditional', 'antithetic')
    """
    from pokerlab.icm.sampling import RANK_BY_COUNTING

    if players > RANK_BY_COUNTING and players * paid <= CONDITIONAL_MAX_WORK:
        return "conditional"
    if players > SOBOL_MAX_PLAYERS:
        return "plain"
    if isinstance(samples, numbers.Real) and samples < 2 * SOBOL_POINTS:  # (bad values fail validation later)
        return "antithetic" if samples >= 4 else "plain"
    return "sobol"


# Below this work per node (band-kernel steps: n (sqrt(k) + 1) for the equities, n k^2 / 2 for the place matrix)
# the quadrature runs on one thread. Measured per call on this project's 2-core EPYC under load 3.5-5, numba pinned
# to 1 or 2 threads (benchmarks/startup.py --threads; docs/benchmarks.md "Start-up", 2026-11-25): one thread
# 0.15 ms (11 players, 3 paid), 0.38 ms (50 / 10), 0.72 ms (100 / 20), 1.9 ms (200 / 40); two threads at best
# 1.1-1.3x faster up to 100 players, and 32 ms (a scheduler slice) in one run of three or more whenever the other
# core was busy. 2,000 steps is about 250 players with 50 paid: above it a quiet machine's second core pays; the
# thresholded rows on a quiet machine were not measured (no quiet machine was available)
QUADRATURE_PARALLEL_MIN_WORK = 2_000.0
QUADRATURE_FIRST_WORK = 1e7  # band-kernel steps in the first call of the equity integration (~0.1 s, see below)


def _quadrature_equity(s: np.ndarray, pay: np.ndarray, k: int, rtol: float,
                       progress: Callable[[float], None] | None = None,
                       first_work: float | None = None) -> tuple[np.ndarray, int]:
    """Equity of live players (stacks normalised to mean 1) by adaptive Gauss-Kronrod on
    ``w = sqrt(mu(t)) + log(1 + t)``, in kernel calls of about a tenth of a second (the result does not depend
    on how the work is split), ``progress`` told the estimated fraction done after each. ``first_work``: the
    first call's work (default :data:`QUADRATURE_FIRST_WORK`; the warm-up passes a tiny one to compile the
    short calls of big fields on a small one)."""
    from pokerlab.icm import banded, gauss_kronrod, race

    gk_nodes, gk_kronrod, gk_gauss = gk15()
    n = s.size
    if k == 0:
        return np.zeros(n), 0
    if n == 1:
        return np.array([pay[0]]), 0
    # Last place always pays pay[n-1] (0 unless every place is paid): take it out so the integrand vanishes
    # once all but one player have finished, which bounds the integration range. The shifted payouts may be
    # negative (payouts that rise with place): the integral is linear in them, only the range needs the last
    # nonzero one.
    base = pay[n - 1] if k == n else 0.0
    shifted = pay[:k] - base
    nonzero = np.flatnonzero(shifted != 0)
    if nonzero.size == 0:
        return np.full(n, base), 0
    kk = int(nonzero[-1]) + 1
    shifted = np.ascontiguousarray(shifted[:kk])
    scale_floor = 1e-3 * np.abs(shifted).sum() / n
    t_end = race.tail_time(s, kk, math.log(1e-18))
    w_end = race.race_variable(s, t_end)[0]
    log_eps = banded.DEFAULT_LOG_EPS + 2.0 * math.log(n)
    block = _block(n, kk)
    with threads_for(n * (math.sqrt(kk) + 1.0), QUADRATURE_PARALLEL_MIN_WORK) as threads:
        # a node costs about n sqrt(k) steps of the band kernel: the first call takes what fits in about a tenth of a
        # second at a cautious rate. Where that covers several times the first round (fields up to a few thousand
        # players), the whole integration is one call with plain arguments (the driver's overhead, ~0.3 ms, would
        # double the time of a 50-player field)
        first = int((QUADRATURE_FIRST_WORK if first_work is None else first_work) * threads
                    / (n * (math.sqrt(kk) + 1.0)))
        if first >= 4 * len(gk_nodes) * gauss_kronrod.initial_panel_count(w_end):
            total, nodes = banded.race_equity_adaptive(s, shifted, w_end, rtol, scale_floor, block, log_eps, gk_nodes,
                                                       gk_kronrod, gk_gauss, threads)
            return base + total, int(nodes)
        problem = banded.RaceQuadrature(s, shifted, gk_nodes, gk_kronrod, gk_gauss, block, log_eps, w_end,
                                        gauss_kronrod.acceptance_tolerance(rtol), scale_floor)
        scratch = banded.thread_scratch(threads, n, kk, block)
        state = banded.adaptive_start(n, w_end)
        calls = gauss_kronrod.CallBudget(first)
        estimate = gauss_kronrod.ProgressEstimate(len(gk_nodes))
        while not state.step[banded.DONE]:
            before = int(state.step[banded.EVALUATIONS])
            calls.start()
            with deferred_interrupts():  # Ctrl-C is seen between calls (each about CALL_SECONDS), not inside one
                state = banded.race_equity_advance(problem, state, scratch, calls.budget, threads)
            done = int(state.step[banded.EVALUATIONS])
            calls.measured(done - before)
            if progress is not None:
                step = state.step
                left = len(gk_nodes) * (len(state.left) - step[banded.GROUP_START]) - (
                    step[banded.GROUP_END] - step[banded.GROUP_START]) * step[banded.NEXT_NODE]
                progress(1.0 if state.step[banded.DONE] else estimate.fraction(done, len(state.left), int(left)))
        total, nodes = state.total, int(state.step[banded.EVALUATIONS])
        return base + total, nodes


PLACES_EXACT_BYTES_PER_CELL = 800  # peak memory of the exact place matrix per (player, place) cell, with margin
PLACES_EXACT_BYTES = 4 << 30  # memory the exact place matrix may take (4 GiB: 2,048 x 307 takes about 0.4)


def check_place_matrix_memory(n: int, k: int) -> None:
    """Refuse, before any work, an exact finish-place matrix of ``n`` players x ``k`` places that would not fit:
    the panels of the adaptive rule hold a few hundred bytes per cell (measured 430-650, 500 to 2,048 players).
    Raises :class:`ResourceLimitError` with the estimate."""
    needed = n * k * PLACES_EXACT_BYTES_PER_CELL
    if needed > min(PLACES_EXACT_BYTES, MEMORY_SHARE * available_memory()):
        raise ResourceLimitError(
            f"the exact finish-place matrix of {n:,} players x {k:,} places needs about {format_bytes(needed)}, over "
            f"the {format_bytes(PLACES_EXACT_BYTES)} allowed: Monte Carlo counts places in far less memory "
            "(method='montecarlo', places=True)")


def _quadrature_places(s: np.ndarray, k: int, rtol: float,
                       progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Finish-place matrix ``(n, k)`` of live players by the race, adaptively integrated in calls of about a tenth
    of a second (Ctrl-C is seen between them), ``progress`` told the estimated fraction done."""
    from pokerlab.icm import gauss_kronrod, race

    gk_nodes, gk_kronrod, gk_gauss = gk15()
    n = s.size
    if n == 1:
        return np.ones((1, 1))[:, :k]
    # the last place's column is what the other columns leave over (rows sum to 1): the range stays finite
    kq = min(k, n - 1)

    def evaluate(left: np.ndarray, right: np.ndarray, first: int, last: int, kron: np.ndarray, gauss: np.ndarray,
                 carried: np.ndarray) -> None:
        race.icm_places_nodes(s, kq, left, right, gk_nodes, gk_kronrod, gk_gauss, first, last, kron, gauss, carried)

    t_end = race.tail_time(s, kq, math.log(1e-18))
    w_end = race.race_variable(s, t_end)[0]
    with threads_for(n * kq * kq / 2.0 + n, QUADRATURE_PARALLEL_MIN_WORK) as threads:
        # a node costs about n k^2 / 2 steps (the convolutions): about a tenth of a second in the first call
        first = max(1, int(QUADRATURE_FIRST_WORK * threads / (n * kq * kq / 2.0 + n)))
        total, _ = gauss_kronrod.adaptive_integral(evaluate, n * kq, w_end, rtol, 1e-6, first, threads, progress)
    matrix = total.reshape(n, kq)
    if k > kq:
        matrix = np.concatenate([matrix, 1.0 - matrix.sum(axis=1, keepdims=True)], axis=1)
    return matrix


@functools.cache
def gk15() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Gauss-Kronrod rule of the quadrature: nodes, Kronrod and Gauss weights (:func:`gauss_kronrod.gk15_rule`)."""
    from pokerlab.icm.gauss_kronrod import gk15_rule

    return gk15_rule()


def _block(n: int, k: int) -> int:
    # checkpoint spacing: about sqrt(n) rows, enough to keep one block of G rows in cache
    return max(8, min(n, int(math.sqrt(n)) + 1, max(8, 2_000_000 // (8 * (k + 1)))))


# ------------------------------------------------------------------------------------------------------------
# Monte Carlo driver
# ------------------------------------------------------------------------------------------------------------

SAMPLE_PLAYERS_PER_SECOND = 1e9  # an optimistic Monte Carlo rate (players x samples per second), for the limits
MC_STREAMS = 16  # independent random streams per batch, run in parallel; fixed so a seed gives one result
# A batch of fewer player-samples (x 256 for a Sobol set) runs on one thread. Measured per call, 50 players / 10 paid,
# on this project's 2-core EPYC under load 6.4-7.3, numba pinned to 1 or 2 threads (benchmarks/startup.py --threads,
# 2026-11-25): 2,048 plain samples 0.69 ms on one thread, 0.48 ms on two; 16,384 samples 8.3 ms on one, 47.5 ms on
# two (the second thread descheduled); Sobol 6-10 ms on one, 22-44 ms on two. 1,000,000 is 20,000 samples of 50
# players: a short run stays on one core
MC_PARALLEL_MIN_WORK = 1_000_000
SOBOL_POINTS = 256  # points per scrambled replicate; a replicate's mean is one sample of the stopping rule


PLACE_COUNT_BYTES = 1 << 30  # memory for a Monte Carlo run's finish places: counts, totals and the result (1 GiB)


def _monte_carlo(s: np.ndarray, pay: np.ndarray, k: int, samples: object, half_width: float | None,
                 relative_half_width: float | None, confidence: float | None, time_limit: float | None, vr: str,
                 seed: int | None, n_places: int = 0, progress: Callable[[float], None] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, int, str, np.ndarray | None]:
    """Monte Carlo equity of live players: ``(mean, stderr, samples drawn, stop reason, place probabilities or
    None)``; ``n_places > 0`` counts the first ``n_places`` finishing places (plain sampling only)."""
    import numba

    from pokerlab.icm import sampling, sobol
    from pokerlab.stats.rng import batch_seed, mixed_seed, numpy_generators

    check_variance_reduction(vr)
    if s.size > 65536:
        raise InvalidArgumentError("Monte Carlo ICM supports at most 65,536 live players")
    n = s.size
    slots = min(MC_STREAMS, numba.get_num_threads())
    # per (player, place): an int32 count per slot, the int64 batch and run totals, the float64 probabilities,
    # the result matrix and its standard errors: peak measured 48 bytes per cell with 2 slots (3,000 x 3,000)
    needed = n * n_places * (4 * slots + 40)
    if n_places and needed > PLACE_COUNT_BYTES:
        raise InvalidArgumentError(
            f"counting {n_places:,} finishing places for {n:,} players needs about {needed >> 20:,} MiB, over the "
            f"{PLACE_COUNT_BYTES >> 20:,} MiB allowed (the result alone is {n * n_places * 16 >> 20:,} MiB): ask for "
            "the equities only, or fewer paid places"
        )
    if k == 0 and not n_places:
        return np.zeros(n), np.zeros(n), 0, "exact", None
    pay_k = np.ascontiguousarray(pay[:k])
    pool = float(pay_k.sum())
    if relative_half_width is not None:
        if not (math.isfinite(relative_half_width) and relative_half_width > 0):
            raise InvalidArgumentError(f"relative half-width must be positive, got {relative_half_width}")
        if pool <= 0:
            raise InvalidArgumentError("a relative half-width needs a prize pool above 0: give half_width instead")
        half_width = relative_half_width * pool
    if samples is None and half_width is None and time_limit is None:
        samples = 100_000
    unit = SOBOL_POINTS if vr == "sobol" else (2 if vr == "antithetic" else 1)
    if samples is not None:
        samples = whole_number(samples, "samples", floats=True)
        if samples < 2 * unit:
            what = {1: "samples", 2: "antithetic pairs", SOBOL_POINTS: f"Sobol sets of {SOBOL_POINTS} points"}[unit]
            raise InvalidArgumentError(
                f"samples must be at least {2 * unit} for {vr} Monte Carlo (a standard error needs two {what}), "
                f"got {samples}"
            )
    rule = StoppingRule(
        max_samples=None if samples is None else math.ceil(samples / unit),
        time_limit=time_limit,
        half_width=half_width,
        confidence=0.95 if confidence is None else confidence,
        min_samples=20 if vr == "sobol" else 1000,
    )
    # a batch (which Ctrl-C waits for) is bounded by its work, not by the clock, so a seed gives the same numbers
    # on every machine: player-samples, times the paid places for the conditional estimator (O(n k) a sample)
    per_item = n * unit * (k if vr == "conditional" else 1)
    most = max(2, ICM_BATCH_WORK // per_item)
    base_seed = mixed_seed(seed)
    mode = {"plain": sampling.MC_PLAIN, "antithetic": sampling.MC_ANTITHETIC, "conditional": sampling.MC_CONDITIONAL}

    if vr == "sobol":
        from scipy.stats import qmc

        # one scrambled Sobol set (scipy), then an independent random digital shift per replicate: far cheaper
        # than a new scrambled engine per replicate, and still an unbiased, independent replicate each
        base_rng, shift_source = numpy_generators(seed, 2)
        engine = qmc.Sobol(d=n, scramble=True, bits=sobol.SOBOL_BITS, seed=base_rng)
        base = np.ascontiguousarray(np.round(engine.random(SOBOL_POINTS) * (1 << sobol.SOBOL_BITS)).astype(np.int64))

        def batch(index: int, size: int) -> tuple[np.ndarray, np.ndarray]:
            shifts = shift_source.integers(0, 1 << sobol.SOBOL_BITS, size=(size, n), dtype=np.int64)
            with threads_for(size * SOBOL_POINTS * n, MC_PARALLEL_MIN_WORK):
                return sobol.mc_sobol_shifted(s, pay_k, base, shifts)

        if time_limit is not None:  # load the compiled kernel first: the budget is for sampling
            sobol.mc_sobol_shifted(s, pay_k, base, np.zeros((0, n), dtype=np.int64))
        # a time limit starts small so the rate is known before a big batch overshoots it
        moments, reason, _ = run_until(rule, n, batch, first_batch=min(2 if time_limit is not None else 20, most),
                                       max_batch=most, progress=rule.fraction_reporter(progress))
        return moments.mean, moments.stderr, moments.count * unit, reason, None

    def child(index: int) -> int:  # the seed of batch ``index``
        return batch_seed(base_seed, index)

    # plain sampling of a small field, or with places, counts finishing places; the sums follow from the counts
    counting = n_places > 0 or (vr == "plain" and n <= sampling.RANK_BY_COUNTING)
    width = max(n_places, k)
    counted = np.zeros((n, width), dtype=np.int64)

    def sample_batch(index: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        with threads_for(size * n, MC_PARALLEL_MIN_WORK):  # the streams, not the threads, fix the numbers
            if not counting:
                return sampling.mc_batch(s, pay_k, size, child(index), mode[vr], MC_STREAMS)
            counts = sampling.mc_place_counts(s, width, size, child(index), MC_STREAMS, slots)
        counted[:] += counts
        paid = counts[:, :k].astype(np.float64)
        return paid @ pay_k, paid @ (pay_k * pay_k)

    if time_limit is not None:  # load the compiled kernel first: the budget is for sampling
        sample_batch(0, 0)
    first = 256 if time_limit is not None else (4096 if samples is None else 16384)
    moments, reason, _ = run_until(rule, n, sample_batch, first_batch=min(first, most), max_batch=most,
                                   progress=rule.fraction_reporter(progress))
    places = counted[:, :n_places] / max(moments.count, 1) if n_places else None
    return moments.mean, moments.stderr, moments.count * unit, reason, places
