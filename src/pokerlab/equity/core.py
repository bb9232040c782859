"""The equity façade: validate players, board and dead cards once, pick exact or Monte Carlo, return a result.

>>> from pokerlab import equity
>>> result = equity(["AhAs", "KdKc"])
>>> round(result.equity[0], 6), result.method, result.showdowns
(0.812555, 'exact', 1712304)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numba
import numpy as np

from pokerlab.cards.encoding import cards_to_mask, format_cards, parse_cards
from pokerlab.cards.kernels import partial_hand
from pokerlab.cards.ranges import COMBO_MASKS, COMBOS, Range, parse_range
from pokerlab.cards.tables import CATEGORIES, NUMBER_OF_CLASSES, load_tables
from pokerlab.equity.kernels import (
    MC_REJECTION_LIMIT,
    SHARE_UNITS,
    exact_enumeration,
    monte_carlo_batch,
    versus_random_batch,
)
from pokerlab.equity.symmetry import symmetry_group
from pokerlab.errors import DuplicateCardError, InvalidArgumentError, InvalidHandError, InvalidRangeError
from pokerlab.stats import RunningMoments, StoppingRule, run_until, validate_seed

PlayerLike = str | Range
Progress = Callable[[float], None]

METHODS = ("auto", "exact", "montecarlo")
EXACT_BUDGET = 3.0e9  # estimated inner-loop steps (about 1-2 s on 2 cores) below which "auto" enumerates
MAX_MATCHUPS = 20_000_000  # joint combos an exact run may hold in memory
DEFAULT_TARGET_STDERR = 2e-4  # Monte Carlo default when no trial count, time or target is given
MC_CHUNKS = 16  # independent random streams per batch; fixed, so results do not depend on the thread count


@lru_cache(maxsize=1)
def _category_of_value() -> np.ndarray:
    starts = load_tables().category_starts
    values = np.arange(NUMBER_OF_CLASSES + 1)
    categories = np.searchsorted(starts, values, side="right") - 1
    categories[0] = 0
    return categories.astype(np.uint8)


@dataclass(frozen=True)
class EquityResult:
    """All-in equity of each player.

    ``equity[i]`` is player i's expected share of the pot, ``win[i]`` the probability of winning alone,
    ``tie[i]`` of splitting it. ``stderr`` is ``None`` for an exact result, else each equity's standard error.
    ``showdowns`` counts (matchup, board) pairs enumerated or sampled. ``wins``/``ties`` are the exact integer
    counts when exact and unweighted (``None`` otherwise). ``breakdown`` (on request) maps each player to
    ``{category: {"frequency": p, "equity": e}}``: how often the player ends with that hand category and
    how much equity it brings.
    """

    players: tuple[str, ...]
    equity: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    stderr: tuple[float, ...] | None
    showdowns: int
    method: str
    elapsed: float
    board: str = ""
    dead: str = ""
    wins: tuple[int, ...] | None = None
    ties: tuple[int, ...] | None = None
    stop_reason: str | None = None
    breakdown: tuple[dict[str, dict[str, float]], ...] | None = field(default=None, repr=False)

    @property
    def exact(self) -> bool:
        """True when the result comes from full enumeration."""
        return self.method == "exact"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``pokerlab equity --json``."""
        data: dict[str, Any] = {
            "method": self.method,
            "players": [
                {
                    "range": name,
                    "equity": self.equity[i],
                    "win": self.win[i],
                    "tie": self.tie[i],
                    # JSON has no infinity: a standard error from fewer than two trials is unknown
                    "stderr": None if self.stderr is None or not math.isfinite(self.stderr[i]) else self.stderr[i],
                }
                for i, name in enumerate(self.players)
            ],
            "showdowns": self.showdowns,
            "elapsed_s": self.elapsed,
        }
        if self.breakdown is not None:
            data["breakdown"] = list(self.breakdown)
        return data


@dataclass(frozen=True)
class _Problem:
    """A validated equity problem: card-removed ranges, board, dead cards and the remaining deck."""

    names: tuple[str, ...]
    ranges: tuple[Range, ...]
    originals: tuple[Range, ...]
    board: list[int]
    dead: list[int]
    deck: np.ndarray

    @property
    def missing(self) -> int:
        return 5 - len(self.board)

    @property
    def fixed_mask(self) -> int:
        return cards_to_mask(self.board) | cards_to_mask(self.dead)


def _player_name(player: PlayerLike) -> str:
    return "".join(player.split()) if isinstance(player, str) else player.text


def _prepare(players: Sequence[PlayerLike], board: str | Sequence[int], dead: str | Sequence[int]) -> _Problem:
    if isinstance(players, (str, Range)):
        raise InvalidArgumentError("players must be a list of ranges or hands, e.g. ['AsKs', 'QQ+']")
    if not 2 <= len(players) <= 10:
        raise InvalidArgumentError(f"equity needs 2 to 10 players, got {len(players)}")
    board_cards = parse_cards(board)
    if len(board_cards) not in (0, 3, 4, 5):
        raise InvalidHandError(f"a board has 0, 3, 4 or 5 cards, got {len(board_cards)}")
    dead_cards = parse_cards(dead)
    overlap = cards_to_mask(board_cards) & cards_to_mask(dead_cards)
    if overlap:
        raise DuplicateCardError(f"{format_cards(c for c in range(52) if overlap >> c & 1)} is both on the board "
                                 "and dead")
    fixed = cards_to_mask(board_cards) | cards_to_mask(dead_cards)
    originals = []
    for index, player in enumerate(players):
        try:
            originals.append(parse_range(player))
        except InvalidRangeError as error:
            raise InvalidRangeError(f"player {index + 1}: {error}") from None
    names = tuple(_player_name(p) for p in players)
    # exact hands fix their cards: they may not collide with each other, the board or dead cards
    known = fixed
    for index, original in enumerate(originals):
        if original.is_exact_hand:
            mask = int(COMBO_MASKS[original.indices[0]])
            if mask & known:
                clash = mask & known
                card = format_cards([c for c in range(52) if clash >> c & 1][:1])
                raise DuplicateCardError(f"player {index + 1} ({names[index]}) holds {card}, which is already "
                                         "on the board, dead or in another player's hand")
            known |= mask
    ranges = []
    for index, original in enumerate(originals):
        others = known
        if original.is_exact_hand:
            others &= ~int(COMBO_MASKS[original.indices[0]])
        reduced = original.without(others)
        if reduced.combo_count == 0:
            raise InvalidRangeError(f"player {index + 1}'s range {names[index]!r} has no combo left after removing "
                                    "the board, dead cards and the other players' exact hands")
        ranges.append(reduced)
    deck = np.array([c for c in range(52) if not fixed >> c & 1], dtype=np.uint8)
    if len(deck) - 2 * len(players) < 5 - len(board_cards):
        raise InvalidArgumentError(f"not enough cards left to deal {len(players)} hands and the board")
    problem = _Problem(names, tuple(ranges), tuple(originals), board_cards, dead_cards, deck)
    if _feasible(problem) is False:
        raise InvalidRangeError(_NO_JOINT_COMBO)
    return problem


_NO_JOINT_COMBO = "the ranges cannot all be dealt at once: every joint combo shares a card"


def _feasible(problem: _Problem, node_limit: int = 200_000) -> bool | None:
    """Whether some joint combo has no card in common: ``True``, ``False``, or ``None`` when the search gave
    up after ``node_limit`` nodes (the exact and Monte Carlo runs then detect an empty support themselves).

    Depth-first, smallest ranges first, pruned by a counting bound: the players still to place need two cards
    each among the unused cards of their ranges.
    """
    order = sorted(range(len(problem.ranges)), key=lambda p: problem.ranges[p].combo_count)
    masks = [[int(m) for m in COMBO_MASKS[problem.ranges[p].indices]] for p in order]
    unions = [0] * (len(masks) + 1)  # unions[d]: every card of the ranges of players d, d+1, ...
    for depth in range(len(masks) - 1, -1, -1):
        card_union = 0
        for mask in masks[depth]:
            card_union |= mask
        unions[depth] = unions[depth + 1] | card_union
    nodes = 0

    def search(depth: int, used: int) -> bool | None:
        nonlocal nodes
        if depth == len(masks):
            return True
        if (unions[depth] & ~used).bit_count() < 2 * (len(masks) - depth):
            return False
        undecided = False
        for mask in masks[depth]:
            nodes += 1
            if nodes > node_limit:
                return None
            if not mask & used:
                found = search(depth + 1, used | mask)
                if found:
                    return True
                undecided = undecided or found is None
        return None if undecided else False

    return search(0, 0)


# ---------------------------------------------------------------------------------------------------------
# Exact


@dataclass
class _ExactPlan:
    combo_cards: np.ndarray
    combo_masks: np.ndarray
    tuple_index: np.ndarray
    tuple_masks: np.ndarray
    tuple_weights: np.ndarray
    weighted: bool
    perms: np.ndarray
    boards: int  # number of board completions (before symmetry)
    work: float
    hero_mode: int  # 1: two players, the first a single combo (lean heads-up loop); 2: and the second random


def _plan_exact(problem: _Problem, max_matchups: int = MAX_MATCHUPS) -> _ExactPlan | None:
    """Flatten the combos, build the joint combos and estimate the work; ``None`` when too many matchups."""
    starts = [0]
    cards, masks, weights = [], [], []
    for reduced in problem.ranges:
        indices = reduced.indices
        cards.append(COMBOS[indices])
        masks.append(COMBO_MASKS[indices])
        weights.append(reduced.weights[indices])
        starts.append(starts[-1] + len(indices))
    tuple_index = np.arange(starts[1], dtype=np.int32)[:, None]
    tuple_masks = masks[0].copy()
    tuple_weights = weights[0].copy()
    for p in range(1, len(problem.ranges)):
        if len(tuple_masks) * len(masks[p]) > 8 * max_matchups:
            return None
        fits = (tuple_masks[:, None] & masks[p][None, :]) == 0
        rows, cols = np.nonzero(fits)
        if len(rows) > max_matchups:
            return None
        tuple_index = np.hstack([tuple_index[rows], (starts[p] + cols).astype(np.int32)[:, None]])
        tuple_masks = tuple_masks[rows] | masks[p][cols]
        tuple_weights = tuple_weights[rows] * weights[p][cols]
    weighted = any(not np.all(w == 1.0) for w in weights)
    if problem.missing == 0:  # a complete board is its own only completion: no symmetry to exploit
        perms = np.arange(4, dtype=np.int64)[None, :]
    else:
        perms = symmetry_group([cards_to_mask(problem.board), cards_to_mask(problem.dead)],
                               [r.weights for r in problem.ranges])
    boards = math.comb(len(problem.deck), problem.missing)
    combos = starts[-1]
    work = boards / len(perms) * (combos + len(tuple_index) * len(problem.ranges)) + 3.0 * boards
    hero_mode = int(len(problem.ranges) == 2 and starts[1] == 1)
    if hero_mode and _is_uniform_random(problem.originals[1]) and not weighted:
        hero_mode = 2
    if hero_mode:
        work = boards / len(perms) * combos + 3.0 * boards
    return _ExactPlan(np.concatenate(cards), np.concatenate(masks), np.ascontiguousarray(tuple_index),
                      tuple_masks, tuple_weights, weighted, perms, boards, work, hero_mode)


@lru_cache(maxsize=64)
def _work_units(n: int, missing: int) -> np.ndarray:
    """First one or two deck indices of each unit of board enumeration, largest units first (cached,
    read-only)."""
    if missing >= 2:
        first, second = np.triu_indices(n, k=1)
        sizes = np.array([math.comb(n - 1 - j, missing - 2) for j in range(n)])[second]
        order = np.argsort(-sizes, kind="stable")
        units = np.stack([first[order], second[order]], axis=1).astype(np.int64)
    elif missing == 1:
        units = np.stack([np.arange(n), np.zeros(n, dtype=np.int64)], axis=1).astype(np.int64)
    else:
        units = np.zeros((1, 2), dtype=np.int64)
    units.setflags(write=False)
    return units


def _run_exact(problem: _Problem, plan: _ExactPlan, breakdown: bool, progress: Progress | None) -> dict[str, Any]:
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    units = _work_units(len(problem.deck), problem.missing)
    players = len(problem.ranges)
    acc_int = np.zeros((players + 1, 3), dtype=np.int64)
    acc_float = np.zeros((players + 1, 3))
    acc_cat = np.zeros((players, 2, 9))
    # split big runs into slices so that a progress bar can move; small runs go in one call
    slices = 1 if progress is None or plan.work < 3e8 else 20
    bounds = np.linspace(0, len(units), slices + 1).astype(int)
    for s in range(slices):
        part = units[bounds[s]:bounds[s + 1]]
        if len(part) == 0:
            continue
        i, f, c = exact_enumeration(problem.deck, problem.missing, key, bits, plan.perms, part, numba.get_num_threads(),
                                    plan.combo_cards, plan.combo_masks, plan.tuple_index, plan.tuple_masks,
                                    plan.tuple_weights, plan.weighted, breakdown, _category_of_value(),
                                    0 if breakdown else plan.hero_mode, tables)
        acc_int += i
        acc_float += f
        acc_cat += c
        if progress is not None:
            progress((s + 1) / slices)
    showdowns = int(acc_int[players, 0])
    if showdowns == 0:
        raise InvalidRangeError(_NO_JOINT_COMBO)
    if plan.weighted:
        total = acc_float[players, 0]
        equity = acc_float[:players, 2] / total
        win = acc_float[:players, 0] / total
        tie = acc_float[:players, 1] / total
        wins = ties = None
    else:
        equity = acc_int[:players, 2] / (SHARE_UNITS * showdowns)
        win = acc_int[:players, 0] / showdowns
        tie = acc_int[:players, 1] / showdowns
        wins = tuple(int(x) for x in acc_int[:players, 0])
        ties = tuple(int(x) for x in acc_int[:players, 1])
        total = float(showdowns)
    cats = acc_cat / total if breakdown else None
    return {"equity": equity, "win": win, "tie": tie, "stderr": None, "showdowns": showdowns, "wins": wins,
            "ties": ties, "categories": cats, "stop_reason": None}


# ---------------------------------------------------------------------------------------------------------
# Monte Carlo


def _is_uniform_random(original: Range) -> bool:
    weights = original.weights
    return bool(weights[0] > 0 and np.all(weights == weights[0]))


def _monte_carlo_inputs(problem: _Problem) -> dict[str, Any]:
    tables = load_tables()
    starts = [0]
    cards, masks, cumulative = [], [], []
    is_random = []
    uniform = []
    for original, reduced in zip(problem.originals, problem.ranges, strict=True):
        random_player = _is_uniform_random(original)
        is_random.append(random_player)
        indices = reduced.indices
        weights = reduced.weights[indices]
        cards.append(COMBOS[indices])
        masks.append(COMBO_MASKS[indices])
        cumulative.append(np.cumsum(weights))
        uniform.append(bool(np.all(weights == weights[0])))
        starts.append(starts[-1] + len(indices))
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    return {
        "deck": problem.deck, "missing": problem.missing, "board_key": key, "board_bits": bits,
        "fixed_mask": np.uint64(problem.fixed_mask), "is_random": np.array(is_random),
        "starts": np.array(starts, dtype=np.int64), "combo_cards": np.concatenate(cards),
        "combo_masks": np.concatenate(masks), "cumulative": np.concatenate(cumulative),
        "uniform_weights": np.array(uniform),
    }


def _stopping_rule(trials: int | None, time_limit: float | None, target_stderr: float | None,
                   confidence: float) -> StoppingRule:
    if trials is not None and (not isinstance(trials, (int, np.integer)) or isinstance(trials, bool)):
        raise InvalidArgumentError(f"trials must be a whole number, got {trials!r}")
    if trials is None and time_limit is None and target_stderr is None:
        target_stderr = DEFAULT_TARGET_STDERR
    if target_stderr is not None:
        return StoppingRule.from_stderr(target_stderr, max_samples=trials, time_limit=time_limit,
                                        confidence=confidence)
    return StoppingRule(max_samples=trials, time_limit=time_limit, confidence=confidence)


def _seed_value(seed: int | None) -> np.uint64:
    checked = validate_seed(seed)
    if checked is None:
        return np.uint64(np.random.SeedSequence().entropy % (1 << 64))
    return np.uint64(checked % (1 << 64))


def _progress_adapter(rule: StoppingRule, progress: Progress | None):
    if progress is None:
        return None

    def report(moments: RunningMoments, elapsed: float) -> None:
        fraction = 0.0
        if rule.max_samples:
            fraction = max(fraction, moments.count / rule.max_samples)
        if rule.time_limit:
            fraction = max(fraction, elapsed / rule.time_limit)
        if rule.half_width is not None and moments.count >= 2:
            fraction = max(fraction, moments.count / max(rule.samples_needed(moments.variance), 1))
        progress(min(fraction, 1.0))

    return report


def _run_monte_carlo(problem: _Problem, rule: StoppingRule, seed: np.uint64, breakdown: bool,
                     progress: Progress | None) -> dict[str, Any]:
    inputs = _monte_carlo_inputs(problem)
    tables = load_tables()
    players = len(problem.ranges)
    totals = np.zeros((players, 4))
    cats = np.zeros((players, 2, 9))

    def sample_batch(batch: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        stats, categories = monte_carlo_batch(seed, batch, size, MC_CHUNKS, inputs["deck"], inputs["missing"],
                                              inputs["board_key"], inputs["board_bits"], inputs["fixed_mask"],
                                              inputs["is_random"], inputs["starts"], inputs["combo_cards"],
                                              inputs["combo_masks"], inputs["cumulative"],
                                              inputs["uniform_weights"], breakdown, _category_of_value(), tables)
        if np.isnan(stats[0, 0]):
            raise InvalidRangeError(f"{_NO_JOINT_COMBO} (or almost never: {MC_REJECTION_LIMIT:,} joint draws in a "
                                    "row were rejected)")
        totals[:] += stats
        cats[:] += categories
        return stats[:, 0], stats[:, 1]

    moments, reason, _ = run_until(rule, players, sample_batch, first_batch=1 << 14,
                                   progress=_progress_adapter(rule, progress))
    n = moments.count
    return {"equity": moments.mean, "win": totals[:, 2] / n, "tie": totals[:, 3] / n,
            "stderr": moments.stderr, "showdowns": n, "wins": None, "ties": None,
            "categories": cats / n if breakdown else None, "stop_reason": reason}


def _swap_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    swapped = {}
    for name, value in outcome.items():
        if name in ("equity", "win", "tie", "wins", "ties", "categories", "stderr") and value is not None:
            swapped[name] = value[::-1]
        else:
            swapped[name] = value
    return swapped


def _breakdown(categories: np.ndarray) -> tuple[dict[str, dict[str, float]], ...]:
    return tuple(
        {CATEGORIES[k]: {"frequency": float(categories[p, 0, k]), "equity": float(categories[p, 1, k])}
         for k in range(9)}
        for p in range(categories.shape[0])
    )


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
    Monte Carlo limit was given, else samples. Monte Carlo stops at the first of ``trials`` showdowns,
    ``time_limit`` seconds, or every player's standard error below ``target_stderr`` (checked with the
    Chow-Robbins rule at ``confidence``); with none of them it targets a standard error of 2e-4. The same
    ``seed`` gives the same result. ``breakdown=True`` adds the final hand category breakdown; ``progress``
    is called with the fraction done on long runs.

    >>> round(equity(["AhAd", "KsKc"], board="2c7d9h").equity[0], 6)
    0.916162
    """
    if method not in METHODS:
        raise InvalidArgumentError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    start = time.perf_counter()
    problem = _prepare(players, board, dead)
    sampling_asked = trials is not None or time_limit is not None or target_stderr is not None
    if method == "exact" and sampling_asked:
        raise InvalidArgumentError("trials, time_limit and target_stderr are Monte Carlo limits; "
                                   "method='exact' enumerates every board (use method='montecarlo' or 'auto')")
    rule = _stopping_rule(trials, time_limit, target_stderr, confidence) if method != "exact" else None
    chosen = method
    plan = None
    if method in ("auto", "exact"):
        plan = _plan_exact(problem)
        if method == "exact" and plan is None:
            raise InvalidArgumentError(
                f"exact enumeration would need more than {MAX_MATCHUPS:,} joint combos; use method='montecarlo'")
        if method == "auto":
            chosen = "exact" if plan is not None and plan.work <= EXACT_BUDGET and not sampling_asked else "montecarlo"
    if chosen == "exact":
        assert plan is not None
        if len(problem.ranges) == 2 and problem.ranges[1].is_exact_hand and not plan.hero_mode:
            # the lean heads-up loop wants the exact hand first: solve the mirrored problem, swap back
            mirrored = _Problem(problem.names[::-1], problem.ranges[::-1], problem.originals[::-1],
                                problem.board, problem.dead, problem.deck)
            outcome = _swap_outcome(_run_exact(mirrored, _plan_exact(mirrored), breakdown, progress))
        else:
            outcome = _run_exact(problem, plan, breakdown, progress)
    else:
        assert rule is not None
        outcome = _run_monte_carlo(problem, rule, _seed_value(seed), breakdown, progress)
    elapsed = time.perf_counter() - start
    stderr = outcome["stderr"]
    return EquityResult(
        players=problem.names,
        equity=tuple(float(x) for x in outcome["equity"]),
        win=tuple(float(x) for x in outcome["win"]),
        tie=tuple(float(x) for x in outcome["tie"]),
        stderr=None if stderr is None else tuple(float(x) for x in stderr),
        showdowns=int(outcome["showdowns"]),
        method="exact" if chosen == "exact" else "montecarlo",
        elapsed=elapsed,
        board=format_cards(problem.board),
        dead=format_cards(problem.dead),
        wins=outcome["wins"],
        ties=outcome["ties"],
        stop_reason=outcome["stop_reason"],
        breakdown=None if outcome["categories"] is None else _breakdown(outcome["categories"]),
    )


# ---------------------------------------------------------------------------------------------------------
# 1..N random opponents in one pass


@dataclass(frozen=True)
class VersusRandomResult:
    """Equity of one hand against 1, 2, ..., N random hands (index 0 is one opponent), from one simulation."""

    hand: str
    board: str
    equity: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    stderr: tuple[float, ...]
    trials: int
    elapsed: float
    stop_reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form: one row per number of opponents."""
        return {
            "hand": self.hand,
            "board": self.board,
            "method": "montecarlo",
            "trials": self.trials,
            "elapsed_s": self.elapsed,
            "opponents": [
                {"opponents": n + 1, "equity": self.equity[n], "win": self.win[n], "tie": self.tie[n],
                 "stderr": self.stderr[n]}
                for n in range(len(self.equity))
            ],
        }


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
    if not isinstance(max_opponents, int) or not 1 <= max_opponents <= 9:
        raise InvalidArgumentError(f"max_opponents must be 1 to 9, got {max_opponents!r}")
    start = time.perf_counter()
    problem = _prepare([format_cards(cards), "random"], board, dead)
    fixed = problem.fixed_mask | cards_to_mask(cards)
    deck = np.array([c for c in range(52) if not fixed >> c & 1], dtype=np.uint8)
    if len(deck) < 2 * max_opponents + problem.missing:
        raise InvalidArgumentError(f"not enough cards left to deal {max_opponents} opponents")
    rule = _stopping_rule(trials, time_limit, target_stderr, confidence)
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    seed_value = _seed_value(seed)
    totals = np.zeros((max_opponents, 4))

    def sample_batch(batch: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        stats = versus_random_batch(seed_value, batch, size, MC_CHUNKS, deck, problem.missing, key, bits,
                                    np.uint64(fixed), cards[0], cards[1], max_opponents, tables)
        totals[:] += stats
        return stats[:, 0], stats[:, 1]

    moments, reason, _ = run_until(rule, max_opponents, sample_batch, first_batch=1 << 14)
    n = moments.count
    return VersusRandomResult(
        hand=format_cards(cards), board=format_cards(problem.board),
        equity=tuple(float(x) for x in moments.mean), win=tuple(float(x) for x in totals[:, 2] / n),
        tie=tuple(float(x) for x in totals[:, 3] / n), stderr=tuple(float(x) for x in moments.stderr),
        trials=n, elapsed=time.perf_counter() - start, stop_reason=reason,
    )
