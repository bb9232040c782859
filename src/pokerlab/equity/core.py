"""The equity engine's public entry points: :func:`equity` (exact or Monte Carlo, 2-10 players, ranges) and
:func:`equity_vs_random` (one hand against 1..N random hands). They validate input once
(:mod:`pokerlab.equity.problem`), choose the method and call the drivers of :mod:`pokerlab.equity.exact` and
:mod:`pokerlab.equity.montecarlo`; results are :mod:`pokerlab.equity.result`'s."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pokerlab.cards.encoding import cards_to_mask, format_cards, parse_cards
from pokerlab.cards.tables import load_tables
from pokerlab.equity.few_boards import answers as few_boards_answers
from pokerlab.equity.few_boards import few_boards_outcome
from pokerlab.equity.headsup_table import answers as headsup_table_answers
from pokerlab.equity.headsup_table import headsup_preflop_outcome
from pokerlab.equity.montecarlo import MC_CHUNKS, max_batch, run_monte_carlo, stopping_rule
from pokerlab.equity.problem import EquityProblem, PlayerLike, Progress, prepare_problem
from pokerlab.equity.result import EquityResult, VersusRandomResult, category_breakdown
from pokerlab.errors import InvalidArgumentError, InvalidHandError, whole_number
from pokerlab.limits import check_work
from pokerlab.progress import stop_if_interrupted
from pokerlab.stats import run_until

# The exact enumeration, the kernels and the random streams load numba (0.3-0.5 s) and their compiled code: they
# are imported where a route runs them, so that a problem the shipped preflop table answers loads neither
if TYPE_CHECKING:
    from pokerlab.equity.exact import ExactPlan

SHOWDOWN_PLAYERS_PER_SECOND = 2e9  # an optimistic Monte Carlo rate (players x trials per second), for the limits

METHODS = ("auto", "exact", "montecarlo")


def check_method(method: object) -> None:
    """Refuse a method :func:`equity` does not know, in its words (a server checks it before a job waits).

    >>> check_method("fast")
    Traceback (most recent call last):
    pokerlab.errors.InvalidArgumentError: method must be one of auto, exact, montecarlo, got 'fast'
    """
    if method not in METHODS:
        raise InvalidArgumentError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def equity(
    players: Sequence[PlayerLike],
    board: str | Sequence[int] = "",
    dead: str | Sequence[int] = "",
    method: str = "auto",
    trials: int | None = None,
    time_limit: float | None = None,
    target_stderr: float | None = None,
    confidence: float = 0.95,
    seed: int | None = None,
    *,
    breakdown: bool = False,
    progress: Progress | None = None,
) -> EquityResult:
    """All-in equity of 2 to 10 players, each an exact hand (``'AsKs'``) or a range (``'QQ+, AKs:0.5'``).

    ``board`` has 0, 3, 4 or 5 cards; ``dead`` cards are out of play. Ranges lose combos that use a board,
    dead or other player's known card. Range-vs-range equity is the average over all non-conflicting
    joint combos weighted by the product of their weights (the PokerStove convention).

    ``method``: ``"exact"`` enumerates every board (using suit symmetry), ``"montecarlo"`` samples, and
    ``"auto"`` enumerates when the estimated work fits a budget (about a second or two on 2 cores) and no
    Monte Carlo limit was given, else samples; two players preflop with no dead card are always exact, summed
    from the shipped table of every heads-up matchup (:mod:`pokerlab.equity.headsup_table`, milliseconds).
    Monte Carlo stops at the first of ``trials`` showdowns, ``time_limit`` seconds, or every player's
    standard error below ``target_stderr`` (checked with the Chow-Robbins rule at ``confidence``); with none
    of them it targets a standard error of 2e-4. The same
    ``seed`` gives the same result. ``breakdown=True`` adds the final hand category breakdown; ``progress``
    is called with the fraction done on long runs.

    >>> round(equity(["AhAd", "KsKc"], board="2c7d9h").equity[0], 6)
    0.916162
    """
    check_method(method)
    start = time.perf_counter()
    problem = prepare_problem(players, board, dead)
    sampling_asked = trials is not None or time_limit is not None or target_stderr is not None
    if method == "exact" and sampling_asked:
        raise InvalidArgumentError("trials, time_limit and target_stderr are Monte Carlo limits; "
                                   "method='exact' enumerates every board (use method='montecarlo' or 'auto')")
    rule = stopping_rule(trials, time_limit, target_stderr, confidence) if method != "exact" else None
    if from_table(problem, method, sampling_asked, breakdown):
        chosen, outcome = "exact", headsup_preflop_outcome(problem)
        if progress is not None:
            progress(1.0)
    elif from_few_boards(problem, method, sampling_asked, breakdown):
        chosen, outcome = "exact", few_boards_outcome(problem)
        if progress is not None:
            progress(1.0)
    else:
        chosen, plan = choose_method(problem, method, sampling_asked)
        if chosen == "exact":
            from pokerlab.equity.exact import solve_exact

            assert plan is not None
            outcome = solve_exact(problem, plan, breakdown, progress)
        else:
            from pokerlab.stats.rng import seed_word

            assert rule is not None
            if trials is not None:  # a count that could never finish is refused now, with the estimate
                check_work(trials, f"{trials:,} trials",
                           per_second=SHOWDOWN_PLAYERS_PER_SECOND / len(problem.ranges))
            outcome = run_monte_carlo(problem, rule, seed_word(seed), breakdown, progress)
    elapsed = time.perf_counter() - start
    stderr = outcome["stderr"]
    result = EquityResult(
        players=problem.names,
        equity=tuple(float(x) for x in outcome["equity"]),
        win=tuple(float(x) for x in outcome["win"]),
        tie=tuple(float(x) for x in outcome["tie"]),
        stderr=None if stderr is None else tuple(float(x) for x in stderr),
        showdowns=int(outcome["showdowns"]),
        method="exact" if chosen == "exact" else "montecarlo",
        elapsed_s=elapsed,
        board=format_cards(problem.board),
        dead=format_cards(problem.dead),
        wins=outcome["wins"],
        ties=outcome["ties"],
        stop_reason=outcome["stop_reason"],
        breakdown=None if outcome["categories"] is None else category_breakdown(outcome["categories"]),
    )
    return stop_if_interrupted(result, f"after {result.showdowns:,} trials ({elapsed:.1f} s)")


def from_table(problem: EquityProblem, method: str, sampling_asked: bool, breakdown: bool) -> bool:
    """Whether :func:`equity` answers ``problem`` exactly from the shipped heads-up preflop table
    (:mod:`pokerlab.equity.headsup_table`: two players, no board, no dead card), with no kernel: the exact
    method (``"auto"`` included, a table lookup being the cheapest route) without a hand-category breakdown."""
    return method != "montecarlo" and not sampling_asked and not breakdown and headsup_table_answers(problem)


def from_few_boards(problem: EquityProblem, method: str, sampling_asked: bool, breakdown: bool) -> bool:
    """Whether :func:`equity` enumerates ``problem`` in plain numpy (:mod:`pokerlab.equity.few_boards`: at most
    two board cards to come and few joint combos), with no kernel: the exact method (``"auto"`` included)
    without a hand-category breakdown."""
    return method != "montecarlo" and not sampling_asked and not breakdown and few_boards_answers(problem)


def choose_method(problem: EquityProblem, method: str, sampling_asked: bool) -> tuple[str, ExactPlan | None]:
    """The method :func:`equity` uses for ``problem`` (``"exact"`` or ``"montecarlo"``) and the exact plan
    when it was made: ``auto`` enumerates when the plan's work fits :data:`EXACT_BUDGET` and no Monte Carlo
    limit was given (``sampling_asked``)."""
    from pokerlab.equity.exact import EXACT_BUDGET, MAX_MATCHUPS, plan_exact

    if method == "montecarlo":
        return method, None
    plan = plan_exact(problem)
    if method == "exact" and plan is None:
        raise InvalidArgumentError(
            f"exact enumeration would need more than {MAX_MATCHUPS:,} joint combos; use method='montecarlo'")
    if method == "auto" and (plan is None or plan.work > EXACT_BUDGET or sampling_asked):
        return "montecarlo", plan
    return "exact", plan


def equity_vs_random(
    hand: str | Sequence[int],
    max_opponents: int = 9,
    board: str | Sequence[int] = "",
    dead: str | Sequence[int] = "",
    trials: int | None = None,
    time_limit: float | None = None,
    target_stderr: float | None = None,
    confidence: float = 0.95,
    seed: int | None = None,
) -> VersusRandomResult:
    """Equity of ``hand`` against 1, 2, ..., ``max_opponents`` random hands, all from one simulation.

    Opponents are dealt one at a time; once one beats the hand, it has lost against every larger number of
    opponents and the deal stops. Ties split: tied with ``t`` opponents and beaten by none, the hand gets
    ``1 / (t + 1)``. The stopping rule applies to the worst standard error over all N.

    >>> r = equity_vs_random("AsKs", max_opponents=2, trials=200_000, seed=1)
    >>> abs(r.equity[0] - 0.6704) < 0.01
    True
    """
    cards = parse_cards(hand)
    if len(cards) != 2:
        raise InvalidHandError(f"a hand has two cards, got {len(cards)}")
    max_opponents = whole_number(max_opponents, "max_opponents", low=1, high=9)
    start = time.perf_counter()
    problem = prepare_problem([format_cards(cards), "random"], board, dead)
    fixed = problem.fixed_mask | cards_to_mask(cards)
    deck = np.array([c for c in range(52) if not fixed >> c & 1], dtype=np.uint8)
    if len(deck) < 2 * max_opponents + problem.missing:
        raise InvalidArgumentError(f"not enough cards left to deal {max_opponents} opponents")
    rule = stopping_rule(trials, time_limit, target_stderr, confidence)
    from pokerlab.cards.kernels import partial_hand
    from pokerlab.equity.kernels import VersusRandomInputs, versus_random_batch
    from pokerlab.stats.rng import seed_word

    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    seed_value = seed_word(seed)
    totals = np.zeros((max_opponents, 4))
    inputs = VersusRandomInputs(deck, problem.missing, key, bits, np.uint64(fixed), cards[0], cards[1], max_opponents)

    def sample_batch(batch: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        stats = versus_random_batch(seed_value, batch, size, MC_CHUNKS, inputs, tables)
        totals[:] += stats
        return stats[:, 0], stats[:, 1]

    moments, reason, _ = run_until(rule, max_opponents, sample_batch, first_batch=1 << 14,
                                   max_batch=max_batch(max_opponents + 1))
    n = moments.count
    result = VersusRandomResult(
        hand=format_cards(cards), board=format_cards(problem.board),
        equity=tuple(float(x) for x in moments.mean), win=tuple(float(x) for x in totals[:, 2] / n),
        tie=tuple(float(x) for x in totals[:, 3] / n), stderr=tuple(float(x) for x in moments.stderr),
        trials=n, elapsed_s=time.perf_counter() - start, stop_reason=reason,
    )
    return stop_if_interrupted(result, f"after {n:,} trials ({result.elapsed_s:.1f} s)")
