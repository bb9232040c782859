"""The push/fold façade: check a request, solve it by discounted CFR on the route that fits (a heads-up table in
plain numpy, :mod:`pokerlab.pushfold.headsup`; every other on the compiled vector-form solver,
:mod:`pokerlab.pushfold.vector_solve`) and report charts, EVs and each seat's exact best-response gain. This
module loads no compiled kernel: a heads-up answer needs none.

>>> r = pushfold([10, 10], blinds=(0.5, 1), target=1e-3)
>>> r.model, r.gain_unit, r.max_gain <= 1e-3
('chipev', 'bb', True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.errors import (
    InvalidArgumentError,
    InvalidPayoutsError,
    InvalidStacksError,
    optional_callback,
    real_number,
    true_or_false,
    whole_number,
)
from pokerlab.limits import HEADS_UP_TARGET, MULTIWAY_DEALS, MULTIWAY_TARGET, check_multiway_deals
from pokerlab.pushfold.headsup import ALGORITHM as HEADS_UP_ALGORITHM
from pokerlab.pushfold.headsup import answers as heads_up_answers
from pokerlab.pushfold.headsup import solve_heads_up
from pokerlab.pushfold.request import TableRequest, checked_prizes, checked_table
from pokerlab.pushfold.result import PushFoldResult

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.games.pushfold.game import Bounties

Progress = Callable[[int, float], None]
"""Called after every gain check with (iterations, current maximum gain)."""
UNIFORM_DEALS = 1000
"""At most this many uniform deals value the 3+ way pots before the redeal: those iterations only find the ranges
that the redeal samples from, and a few times fewer deals than the redeal's make them cheap (docs/benchmarks.md)."""
REAL_GAME_DEALS = 100_000
"""Joint deals of the real-game check by default (:data:`pokerlab.pushfold.real_game.REAL_GAME_DEALS`; a test holds
them equal: that module loads the compiled kernels)."""
MAX_FGS_DEPTH = 4
"""The deepest FGS (:data:`pokerlab.pushfold.fgs.MAX_FGS_DEPTH`; a test holds them equal)."""

__all__ = ["PushFoldResult", "check_fgs", "check_request", "chart_changes", "pushfold"]


def pushfold(
    stacks: Sequence[float],
    blinds: Sequence[float] = (0.5, 1.0),
    *,
    ante: float = 0.0,
    bb_ante: float = 0.0,
    payouts: Sequence[float] | None = None,
    field: Sequence[float] | None = None,
    target: float | None = None,
    iterations: int | None = None,
    time_limit: float | None = None,
    multiway_samples: int = MULTIWAY_DEALS,
    seed: int = 0,
    algorithm: str = "dcfr",
    check_sampling: bool = True,
    multiway_proposal_share: float = 0.5,
    progress: Progress | None = None,
    real_game_deals: int = REAL_GAME_DEALS,
    bounty: Any = None,
    pko: bool | float = False,
    fgs_depth: int = 0,
) -> PushFoldResult:
    """Nash push/fold strategies of every seat (chip EV, or ICM with ``payouts`` and an optional ``field``).

    ``stacks``: chips per seat in acting order (UTG ... BTN, SB, BB; heads-up SB then BB); ``blinds``: small and
    big blind in chips; ``ante`` per seat or ``bb_ante`` paid by the big blind. ``payouts``: money per place
    (ICM); ``field``: stacks of the players at other tables. Stops when every seat's best-response gain is at
    most ``target`` (default 1e-5 heads-up, 1e-3 with 3+ seats; big blinds for chip EV; for ICM the money
    worth ``target`` big blinds at the average chip
    value, ``pool * big_blind / chips``), after ``iterations``, after ``time_limit`` seconds or on Ctrl-C
    (``stop_reason`` says which; the time limit is checked after every iteration and before the redeal and the
    sampling check, which are skipped once it has passed, and ``notes`` says what was skipped: a run overshoots
    it by at most one iteration, one gain check and reading the charts, and building the game comes first,
    uncut; Ctrl-C before the first gain check raises :class:`~pokerlab.errors.Interrupted`).
    ``multiway_samples``: deals that evaluate showdowns of 3+ players; with
    ``check_sampling`` (and 3+ seats) the strategy returned is also valued on an independent set of as many
    deals, and each seat's best-response gain there is ``multiway_check_gains``: the part of the gain the
    sampling hides, measured (a check costs about one gain computation); and the strategy is valued in the real
    game on ``real_game_deals`` joint deals of the whole table (``real_game``, 0: not).
    ``multiway_proposal_share``: with 3+ way pots, after 16 iterations on uniform deals (or at the target or
    the iteration limit, if sooner; :mod:`~pokerlab.pushfold.schedule`) each such pot is redealt on
    ``multiway_samples`` deals of its own, each seat's hand drawn from ``share`` times its distribution there
    under the best strategy so far plus ``1 - share`` times the uniform one (importance sampling,
    :meth:`PushFoldGame.redealt`); the solve goes on from the same regrets, and the target counts only after the
    redeal. A solve still above its target 16 iterations later is redealt once more on ``2 * multiway_samples``
    deals, where they fit in memory (``multiway_samples`` reports the deals of the game solved). 0 keeps the
    uniform deals.
    ``algorithm``: a vector-form solver of `pokerlab.solvers.vector.VectorSolver` (discounted CFR by default). With 3+
    seats the profile returned is the checked one (average or current strategy) with the smallest maximum gain.
    ``bounty``: knockout bounties, one number for every head or one per seat (money under ICM, big blinds under
    chip EV), paid in the hand by the table rules and valued after it by the future-bounty model
    (:mod:`pokerlab.pushfold.situation`); ``pko``: a progressive knockout, ``True`` paying half of a head to
    the buster (the rest onto his head) or the share paid as a number in (0, 1].
    ``fgs_depth``: 1 to 4 values the outcomes by FGS instead of ICM (:mod:`~pokerlab.pushfold.fgs`: that many
    more hands played out, blinds and button moving, then ICM; needs ``payouts``, no ``field``, no bounties;
    model ``"fgs"``, ``fgs_pruned`` the largest probability mass of an outcome's branches valued early); 0 is ICM.
    """
    table, payout_array, field_array, target, iterations, multiway_samples, bounties = _checked_request(
        stacks, blinds, ante, bb_ante, payouts, field, target, iterations, time_limit, multiway_samples,
        multiway_proposal_share, bounty, pko)
    real_game_deals = whole_number(real_game_deals, "real_game_deals", low=0)
    seed = whole_number(seed, "seed", low=0, high=2**64 - 1)
    if not isinstance(algorithm, str):
        raise InvalidArgumentError(f"algorithm must be a solver's name, got {type(algorithm).__name__}")
    true_or_false(check_sampling, "check_sampling")
    optional_callback(progress, "progress", "(iterations, gain)")
    depth = check_fgs(fgs_depth, table.seats, payout_array, field_array)
    if bounties is not None and depth > 0:
        raise InvalidArgumentError("FGS with knockout bounties is not offered (future bounties follow ICM's "
                                   "finishing order): leave out the FGS depth or the bounties")
    uniform = multiway_samples if multiway_proposal_share == 0 else min(multiway_samples, UNIFORM_DEALS)
    if heads_up_answers(table, payout_array, field_array, bounties=bounties is not None, fgs_depth=depth,
                       algorithm=algorithm):
        return solve_heads_up(table, payout_array, field_array, target=target, iterations=iterations,
                                      time_limit=time_limit, uniform_deals=uniform, seed=seed, progress=progress)
    from pokerlab.pushfold.vector_solve import solve_table  # loads the compiled kernels

    return solve_table(table, payout_array, field_array, target=target, iterations=iterations,
                       time_limit=time_limit, multiway_samples=multiway_samples, uniform_deals=uniform, seed=seed,
                       algorithm=algorithm, check_sampling=check_sampling,
                       multiway_proposal_share=multiway_proposal_share, progress=progress,
                       real_game_deals=real_game_deals, bounties=bounties, fgs_depth=depth)


def needs_kernels(stacks: Any, blinds: Any = (0.5, 1.0), *, ante: Any = 0.0, bb_ante: Any = 0.0, payouts: Any = None,
                  field: Any = None, bounty: Any = None, pko: Any = False, fgs_depth: Any = 0,
                  algorithm: Any = HEADS_UP_ALGORITHM) -> bool:
    """Whether :func:`pushfold` solves this table on the compiled solver (a caller compiles or loads its kernels
    first, :func:`pokerlab.warmup.compile_first`); False where the plain-numpy heads-up route answers, or where
    the request is refused before any work.

    >>> needs_kernels([10, 10]), needs_kernels([10, 10, 10])
    (False, True)
    """
    try:
        stack_array, blind_array, payout_array, field_array = _checked_amounts(stacks, blinds, payouts, field)
        table = checked_table(stack_array, blind_array.tolist(), real_number(ante, "ante"),
                              real_number(bb_ante, "big-blind ante"))
        pay, field_stacks = checked_prizes(table.seats, payout_array, field_array)
        depth = check_fgs(fgs_depth, table.seats, pay, field_array)
    except ValueError:
        return False
    given = bounty is not None or pko is not False
    return not heads_up_answers(table, pay, field_stacks, bounties=given, fgs_depth=depth, algorithm=algorithm)


# FGS: the outcomes valued with more hands played out (pokerlab.pushfold.fgs) -------------------------------

def check_fgs(depth: object, seats: int, payouts: object, field: object) -> int:
    """The FGS depth as a whole number 0..4 for a table of ``seats`` (2 to 10), with the payouts FGS needs and
    no field; or the error saying what to change (the CLI calls it before any work)."""
    value = whole_number(depth, "the FGS depth", low=0, high=MAX_FGS_DEPTH)
    if not 2 <= seats <= 10:
        raise InvalidStacksError(f"FGS needs 2 to 10 seats at the table, got {seats}")
    if value > 0 and payouts is None:
        raise InvalidArgumentError("FGS values prize money: give the payouts (--payouts), or leave out the FGS depth")
    if value > 0 and field is not None:
        raise InvalidArgumentError("FGS plays this table as the whole tournament: leave out the field, or use "
                                   "FGS depth 0 (ICM)")
    return value


def chart_changes(icm: PushFoldResult, fgs: PushFoldResult, threshold: float = 0.5) -> dict[str, Any]:
    """Which hands change between two solutions of the same table (ICM and FGS): per seat, the classes that
    jam first in under one and not the other (probability at least ``threshold`` in one, below it in the
    other), and the same for each lone-jam call; with the jam and call percentages of both.

    Keys: ``jam[seat]`` and ``call["caller vs jammer"]`` map to ``{"added": [...], "removed": [...],
    "icm_pct", "fgs_pct"}`` (``added``: played under FGS only)."""
    def changes(before: np.ndarray, after: np.ndarray) -> dict[str, Any]:
        was, now = before >= threshold, after >= threshold
        return {"added": [CLASS_NAMES[c] for c in np.flatnonzero(now & ~was)],
                "removed": [CLASS_NAMES[c] for c in np.flatnonzero(was & ~now)],
                "icm_pct": icm.percent(before), "fgs_pct": fgs.percent(after)}

    jam = {name: changes(icm.jam[i], fgs.jam[i]) for i, name in enumerate(icm.seats)
           if not np.isnan(icm.jam[i, 0]) and not np.isnan(fgs.jam[i, 0])}
    call = {f"{icm.seats[c]} vs {icm.seats[j]}": changes(icm.call[(c, j)], fgs.call[(c, j)])
            for (c, j) in sorted(icm.call) if (c, j) in fgs.call}
    return {"fgs_depth": fgs.fgs_depth, "threshold": threshold, "jam": jam, "call": call,
            "icm_values": list(icm.values), "fgs_values": list(fgs.values)}


MAX_DEPTH_BB = 1e6
"""The deepest stack push/fold takes, in big blinds: a payoff of 10^k bb holds gains only to about 10^(k-16) bb
in double precision, so a far deeper stack never reaches a target gain (and nobody jams a million blinds)."""


def check_request(stacks: Any, blinds: Any = (0.5, 1.0), *, ante: Any = 0.0, bb_ante: Any = 0.0, payouts: Any = None,
                  field: Any = None, target: Any = None, iterations: Any = None, time_limit: Any = None,
                  multiway_samples: Any = MULTIWAY_DEALS, bounty: Any = None, pko: Any = False) -> None:
    """Raise the error :func:`pushfold` would raise for these inputs before any work, and do no work (a server
    refuses a request with it before the request waits for a worker).

    >>> check_request([10, 10], payouts=[30, 70])
    Traceback (most recent call last):
    pokerlab.errors.InvalidPayoutsError: place 2 pays 70, more than place 1 (30): list payouts from first place down
    """
    _checked_request(stacks, blinds, ante, bb_ante, payouts, field, target, iterations, time_limit, multiway_samples,
                     0.5, bounty, pko)


def _checked_request(stacks: Any, blinds: Any, ante: Any, bb_ante: Any, payouts: Any, field: Any, target: Any,
                     iterations: Any, time_limit: Any, multiway_samples: Any, share: Any, bounty: Any, pko: Any
                     ) -> tuple[TableRequest, np.ndarray | None, np.ndarray | None, float, int | None, int,
                                Bounties | None]:
    """``(table, payouts, field, target, iterations, multiway_samples, bounties)`` checked, the default target
    filled in."""
    stack_array, blind_array, payout_array, field_array = _checked_amounts(stacks, blinds, payouts, field)
    table = checked_table(stack_array, blind_array.tolist(), real_number(ante, "ante"),
                          real_number(bb_ante, "big-blind ante"))
    _check_depth(table.stacks, table.big_blind)
    checked_prizes(table.seats, payout_array, field_array)
    if target is None:
        target = HEADS_UP_TARGET if table.seats == 2 else MULTIWAY_TARGET
    iterations, multiway_samples = _checked_options(table.seats, target, iterations, time_limit, multiway_samples,
                                                    share)
    bounties = None
    if bounty is not None or pko is not False:  # the game's bounties: their module loads the compiled game
        from pokerlab.pushfold.situation import checked_bounties

        bounties = checked_bounties(bounty, pko, table.seats, field_array)
    return table, payout_array, field_array, float(target), iterations, multiway_samples, bounties


def _checked_amounts(stacks: Any, blinds: Any, payouts: Any, field: Any
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Stacks, blinds, payouts and field as flat float arrays, or the specific error: nested lists, booleans,
    text, complex numbers, dates and other objects are refused, never flattened or converted."""
    from pokerlab.icm.lobby import amounts

    return (amounts(stacks, "stacks", InvalidStacksError), amounts(blinds, "blinds", InvalidArgumentError),
            None if payouts is None else amounts(payouts, "payouts", InvalidPayoutsError),
            None if field is None else amounts(field, "field stacks", InvalidStacksError))


def _check_depth(stacks: Sequence[float], big_blind: float) -> None:
    """Refuse stacks deeper than :data:`MAX_DEPTH_BB` big blinds (their gains cannot reach any target)."""
    deepest = max(stacks) / big_blind
    if deepest > MAX_DEPTH_BB:
        raise InvalidStacksError(f"a stack of {deepest:.3g} big blinds is deeper than push/fold can solve (at most "
                                 f"{MAX_DEPTH_BB:,.0f} bb: deeper payoffs hide gains below the target in double "
                                 "precision); raise the blinds")


def _checked_options(seats: int, target: object, iterations: object, time_limit: object,
                     multiway_samples: object, share: object) -> tuple[int | None, int]:
    """``(iterations, multiway_samples)`` as whole numbers, or the error saying which option is wrong (deals
    that cannot fit in memory included)."""
    if not real_number(target, "the target gain") > 0:
        raise InvalidArgumentError(f"the target gain must be positive, got {target}")
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=1)
    if time_limit is not None and not real_number(time_limit, "the time limit") > 0:
        raise InvalidArgumentError(f"the time limit must be positive, got {time_limit}")
    samples = whole_number(multiway_samples, "multiway samples", low=1)
    check_multiway_deals(seats, samples)
    if not 0 <= real_number(share, "the proposal share") < 1:
        raise InvalidArgumentError(f"the proposal share must be in [0, 1), got {share}")
    return iterations, samples
