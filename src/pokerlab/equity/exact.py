"""Exact equity: the plan (joint combos, suit symmetry, estimated work) and the drivers of the enumeration kernels.

Every route runs its kernel in chunks of work items (units of board enumeration, against one slice of the joint
combos where a unit would take long; deals of known hands) from Python, each chunk sized to about
:data:`CHUNK_SECONDS` by the time the chunks before it took and run whole inside
:func:`pokerlab.progress.deferred_interrupts`: Ctrl-C lands between chunks and progress moves. Counts are
integers and floating-point totals are summed per item in item order, so the numbers are the same bit for bit
however the work was chunked (and whatever the thread count)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numba
import numpy as np

from pokerlab.cards.classes import COMBO_MASKS, COMBOS, NUMBER_OF_COMBOS
from pokerlab.cards.encoding import cards_to_mask
from pokerlab.cards.kernels import partial_hand
from pokerlab.cards.ranges import Range
from pokerlab.cards.tables import load_tables
from pokerlab.equity.kernels import (
    ExactInputs,
    FixedHandsInputs,
    exact_enumeration,
    fixed_hands_enumeration,
)
from pokerlab.equity.preflop import BOARDS, headsup_counts
from pokerlab.equity.problem import (
    NO_JOINT_COMBO,
    SHARE_UNITS,
    EquityProblem,
    Progress,
    category_of_value,
    is_uniform_random,
)
from pokerlab.equity.symmetry import combo_images, combo_orbits, symmetry_group
from pokerlab.errors import Interrupted, InvalidRangeError
from pokerlab.progress import deferred_interrupts

EXACT_BUDGET = 3.0e9  # estimated inner-loop steps (about 1-2 s on 2 cores) below which "auto" enumerates
MAX_MATCHUPS = 20_000_000  # joint combos an exact run may hold in memory


@dataclass
class ExactPlan:
    """Flattened combos and joint combos of an exact run, its symmetry group and estimated work."""

    combo_cards: np.ndarray
    combo_masks: np.ndarray
    tuple_index: np.ndarray
    tuple_masks: np.ndarray
    tuple_weights: np.ndarray
    weighted: bool
    perms: np.ndarray
    boards: int  # number of board completions (before symmetry)
    work: float
    hero_mode: int  # 1: two players, the first a single combo (lean heads-up loop); 2: and the second random;
    # 3: two players, any ranges (totals in registers); 0: the general loop


def plan_exact(problem: EquityProblem, max_matchups: int = MAX_MATCHUPS) -> ExactPlan | None:
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
    if hero_mode and is_uniform_random(problem.originals[1]) and not weighted:
        hero_mode = 2
    if hero_mode:
        work = boards / len(perms) * combos + 3.0 * boards
    elif len(problem.ranges) == 2:
        hero_mode = 3
    return ExactPlan(np.concatenate(cards), np.concatenate(masks), np.ascontiguousarray(tuple_index),
                      tuple_masks, tuple_weights, weighted, perms, boards, work, hero_mode)


@lru_cache(maxsize=64)
def work_units(n: int, missing: int) -> np.ndarray:
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


def _enumeration_deck(problem: EquityProblem) -> np.ndarray:
    """The cards a board can use: the remaining deck less the players' exact hands (every joint combo holds
    them, so boards with them were enumerated and then skipped: 2.6 M boards instead of 1.7 M heads-up)."""
    held = 0
    for reduced in problem.ranges:
        if reduced.is_exact_hand:
            held |= int(COMBO_MASKS[reduced.indices[0]])
    return np.array([c for c in problem.deck if not held >> int(c) & 1], dtype=np.uint8)


CHUNK_SECONDS = 0.15  # wall time aimed at per chunk: Ctrl-C waits about this long, and progress moves as often
FIRST_CHUNK_WORK = 1e8  # work (ExactPlan.work units) of a first chunk: a few hundredths of a second, or all of a
# small run (one kernel call: each call wakes the threads, 2-50 ms under load)


class ChunkedWork:
    """The chunks of one exact run, their progress and what Ctrl-C reports.

    :meth:`run` calls ``work(start, stop)`` over consecutive slices of a list of items, each slice holding
    about :data:`CHUNK_SECONDS` of work by the rate measured on the chunks so far (at most four times the last
    chunk's work, so a slow first call, e.g. one that compiles, only shrinks the next ones), each run whole
    inside :func:`deferred_interrupts`. Work is estimated in the units of :attr:`ExactPlan.work`; ``size``
    fixes the items per chunk instead (tests check the numbers do not depend on it). ``progress`` gets the
    fraction of the planned ``total`` done."""

    def __init__(self, progress: Progress | None, size: int | None = None) -> None:
        self.progress, self.size = progress, size
        self.total = 1.0
        self.done = 0.0
        self.budget = FIRST_CHUNK_WORK
        self.started = time.perf_counter()
        self.first_chunk: float | None = None  # when the first chunk began (planning comes before)

    def run(self, costs: np.ndarray, work: Callable[[int, int], None], allotted: float) -> None:
        """Do items ``0 .. len(costs) - 1`` (estimated costs ``costs``, rescaled to add up to ``allotted`` of
        the planned total) in order, in chunks."""
        ends = np.cumsum(costs, dtype=np.float64)
        if len(ends) and ends[-1] > 0:
            ends *= allotted / ends[-1]
        else:
            ends = np.linspace(allotted / max(len(costs), 1), allotted, len(costs))
        start = 0
        while start < len(ends):
            before = float(ends[start - 1]) if start else 0.0
            if self.size is not None:
                stop = min(start + self.size, len(ends))
            else:
                stop = max(start + 1, int(np.searchsorted(ends, before + self.budget, side="right")))
            began = time.perf_counter()
            if self.first_chunk is None:
                self.first_chunk = began
            with deferred_interrupts():  # a chunk is added whole or not at all: Ctrl-C lands between chunks
                work(start, stop)
            spent = time.perf_counter() - began
            done = float(ends[stop - 1]) - before
            self.done += done
            if done > 0:
                measured = done * CHUNK_SECONDS / spent if spent > 0 else math.inf
                self.budget = min(measured, 4 * max(self.budget, done))
            start = stop
            if self.progress is not None:
                self.progress(min(self.done / self.total, 1.0))

    def interrupted(self) -> Interrupted:
        """What a Ctrl-C stopped: the share of the run done and the time it took."""
        elapsed = time.perf_counter() - self.started
        fraction = min(self.done / self.total, 1.0)
        rest = ""
        if fraction > 0 and self.first_chunk is not None:
            planning = self.first_chunk - self.started
            rest = f" of about {planning + (elapsed - planning) / fraction:,.0f} s"
        return Interrupted(f"after {100 * fraction:.1f}% of the exact enumeration ({elapsed:.1f} s{rest}); "
                           "method='montecarlo' estimates sooner")


def _unit_boards(n: int, missing: int, units: np.ndarray) -> np.ndarray:
    """Board completions of each unit of :func:`work_units` (the boards from its first one or two cards on)."""
    if missing < 2:
        return np.ones(len(units))
    by_second = np.array([math.comb(n - 1 - j, missing - 2) for j in range(n)], dtype=np.float64)
    weights: np.ndarray = by_second[units[:, 1]]
    return weights


ITEM_WORK = 2e7  # the most estimated work (ExactPlan.work units) of one item: ~0.1-0.2 s on one loaded core
MIN_SLICE_PER_COMBO = 16  # a slice holds at least this many matchups per combo (each item evaluates every combo)


def matchup_slices(plan: ExactPlan, largest_unit_boards: float, players: int, hero_mode: int) -> int:
    """How many slices the joint combos are cut into so that one item (a unit of boards against one slice) is at
    most about :data:`ITEM_WORK`: a unit of the general loop holds up to ``C(n - 2, 3)`` boards (19,600 preflop),
    each scoring every matchup, so against 1.65 M matchups of three players it took 32 s, all of it one kernel
    call that Ctrl-C had to wait for. 1 (no slicing) for the lean loops and small problems. Fixed by the problem
    alone (not by timing), so the numbers do not depend on the machine."""
    if hero_mode not in (0, 3):  # the lean loops read matchups as the second player's combos, or none at all
        return 1
    tuples = len(plan.tuple_index)
    per_board = (len(plan.combo_cards) + tuples * players) / len(plan.perms)
    wanted = math.ceil(largest_unit_boards * per_board / ITEM_WORK)
    most = max(1, tuples // (MIN_SLICE_PER_COMBO * len(plan.combo_cards)))
    return max(1, min(wanted, most))


def _accumulate(problem: EquityProblem, plan: ExactPlan, breakdown: bool, chunks: ChunkedWork,
                allotted: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate every board in chunks of items (``allotted``: this run's share of the planned work): the
    kernel's three accumulators, the floating-point ones summed item by item in item order.

    An item is a unit of boards (:func:`work_units`) against one slice of the joint combos
    (:func:`matchup_slices`; one slice, the whole list, unless a unit would take long), slice by slice: integer
    counts are the same whatever the slices, and floating-point totals the same whatever the chunks and threads
    (with several slices they are summed in another order than with one, a difference of rounding only)."""
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    deck = _enumeration_deck(problem)
    units = work_units(len(deck), problem.missing)
    inputs = ExactInputs(deck, problem.missing, key, bits, plan.perms, plan.combo_cards, plan.combo_masks,
                         plan.tuple_index, plan.tuple_masks, plan.tuple_weights, category_of_value())
    players = len(problem.ranges)
    acc_int = np.zeros((players + 1, 3), dtype=np.int64)
    acc_float = np.zeros((players + 1, 3))
    acc_cat = np.zeros((players, 2, 9))
    floats = plan.weighted or breakdown  # otherwise the float accumulators stay zero
    threads = numba.get_num_threads()
    hero_mode = 0 if breakdown else plan.hero_mode
    unit_boards = _unit_boards(len(deck), problem.missing, units)
    slices = matchup_slices(plan, float(unit_boards.max()), players, hero_mode)
    edges = np.linspace(0, len(plan.tuple_index), slices + 1).astype(np.int64)

    def work(start: int, stop: int) -> None:
        while start < stop:  # items start .. stop - 1: runs of units against one slice, one kernel call each
            part, first = divmod(start, len(units))
            last = min(len(units), first + stop - start)
            sliced = inputs
            if slices > 1:
                lo, hi = edges[part], edges[part + 1]
                sliced = inputs._replace(tuple_index=plan.tuple_index[lo:hi], tuple_masks=plan.tuple_masks[lo:hi],
                                         tuple_weights=plan.tuple_weights[lo:hi])
            i, f, c = exact_enumeration(sliced, units[first:last], threads, plan.weighted, breakdown, hero_mode,
                                        tables)
            acc_int[:] += i.sum(axis=0)  # integers: any order gives the same total
            if floats:
                for k in range(len(f)):  # item order, whatever the chunks
                    acc_float[:] += f[k]
                    acc_cat[:] += c[k]
            start += last - first

    chunks.run(np.tile(unit_boards, slices), work, allotted)
    return acc_int, acc_float, acc_cat


def _outcome(acc_int: np.ndarray, acc_float: np.ndarray, acc_cat: np.ndarray, weighted: bool,
             breakdown: bool) -> dict[str, Any]:
    """The outcome fields of a result from the accumulators of an exact run."""
    players = acc_int.shape[0] - 1
    showdowns = int(acc_int[players, 0])
    if showdowns == 0:
        raise InvalidRangeError(NO_JOINT_COMBO)
    if weighted:
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


def run_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, chunks: ChunkedWork) -> dict[str, Any]:
    """Enumerate every board of the planned problem as it stands; the outcome fields of a result."""
    chunks.total = plan.work
    return _outcome(*_accumulate(problem, plan, breakdown, chunks, plan.work), plan.weighted, breakdown)


def _mirrored(problem: EquityProblem) -> EquityProblem:
    return EquityProblem(problem.names[::-1], problem.ranges[::-1], problem.originals[::-1], problem.board,
                         problem.dead, problem.deck)


def _accumulate_heads_up(problem: EquityProblem, breakdown: bool, chunks: ChunkedWork,
                         allotted: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two players, the second an exact hand and the first not: the lean loops want the exact hand first, so
    the mirrored problem is enumerated and its accumulators swapped back."""
    mirrored = _mirrored(problem)
    mirrored_plan = plan_exact(mirrored)
    assert mirrored_plan is not None  # the same joint combos as the planned problem
    acc_int, acc_float, acc_cat = _accumulate(mirrored, mirrored_plan, breakdown, chunks, allotted)
    order = [1, 0, 2]
    return acc_int[order], acc_float[order], acc_cat[::-1]


def _orbit_plan(problem: EquityProblem, plan: ExactPlan) -> list[tuple[EquityProblem, ExactPlan, int]] | None:
    """Range-level suit symmetry, heads-up and unweighted: the sub-problems to solve instead of ``problem``.

    The suit relabellings that fix the board, the dead cards and player ``q``'s range map each combo ``c`` of
    player ``p`` to a combo with the same result against ``q``. So ``p``'s combos are grouped by orbit, and
    each orbit is solved once, as its smallest combo against ``q``, and counted as many times as the orbit
    has combos in ``p``'s range (``AA`` against a random hand is ``AsAh`` against it, six times). Returns
    ``(sub-problem, its plan, multiplicity)`` triples, or ``None`` when that is not less work than ``plan``.
    """
    if len(problem.ranges) != 2 or plan.weighted or problem.missing == 0:
        return None
    fixed = [cards_to_mask(problem.board), cards_to_mask(problem.dead)]
    best: list[tuple[EquityProblem, ExactPlan, int]] | None = None
    best_work = plan.work
    for p in (0, 1):
        q = 1 - p
        if problem.ranges[p].is_exact_hand:
            continue
        group = symmetry_group(fixed, [problem.ranges[q].weights])
        orbits = combo_orbits(problem.ranges[p].indices, group)
        if len(orbits) > 64 or len(orbits) == problem.ranges[p].combo_count:
            continue
        subproblems = []
        work = 0.0
        for combo, multiplicity in orbits:
            mask = int(COMBO_MASKS[combo])
            hand = Range(np.eye(1, NUMBER_OF_COMBOS, combo)[0])
            opponent = problem.ranges[q].without(mask)
            if opponent.combo_count == 0:
                continue  # no joint combo with this one: adds no showdown
            ranges = [hand, opponent] if p == 0 else [opponent, hand]
            originals = list(problem.originals)
            originals[p] = hand
            sub = EquityProblem(problem.names, tuple(ranges), tuple(originals), problem.board, problem.dead,
                                problem.deck)
            sub_plan = plan_exact(sub)
            assert sub_plan is not None  # one combo against one range
            subproblems.append((sub, sub_plan, multiplicity))
            work += sub_plan.work
        if work < best_work:
            best, best_work = subproblems, work
    return best


FIXED_DEAL_WORK = 1.5e6  # estimated work of one deal of known hands preflop, in the units of ExactPlan.work


def _fixed_hands(problem: EquityProblem, deals: np.ndarray, multiplicity: np.ndarray, chunks: ChunkedWork,
                 allotted: float) -> np.ndarray:
    """Showdown counts of deals of known hands (``deals``: ``(R, P)`` combo indices), each counted
    ``multiplicity`` times (see :func:`pokerlab.equity.kernels.fixed_hands_enumeration`), in chunks of deals
    (``allotted``: their share of the planned work)."""
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    cards = COMBOS[deals]  # (R, P, 2)
    hand_keys = np.ascontiguousarray(tables.card_keys[cards[..., 0]] + tables.card_keys[cards[..., 1]])
    hand_bits = np.ascontiguousarray(tables.card_bits[cards[..., 0]] | tables.card_bits[cards[..., 1]])
    hand_masks = np.bitwise_or.reduce(COMBO_MASKS[deals], axis=1)
    counts = multiplicity.astype(np.int64)
    acc_int = np.zeros((deals.shape[1] + 1, 3), dtype=np.int64)
    threads = numba.get_num_threads()

    def work(start: int, stop: int) -> None:
        inputs = FixedHandsInputs(problem.deck, problem.missing, key, bits, hand_keys[start:stop],
                                  hand_bits[start:stop], hand_masks[start:stop], counts[start:stop])
        if stop - start == 1:  # one deal is one thread's work: waking the others only costs (2-50 ms under load)
            numba.set_num_threads(1)
        try:
            acc_int[:] += fixed_hands_enumeration(inputs, tables)  # integers: the chunks do not change the sum
        finally:
            numba.set_num_threads(threads)

    chunks.run(np.ones(len(deals)), work, allotted)
    return acc_int


def from_preflop_table(problem: EquityProblem) -> bool:
    """Whether the exact answer comes from the shipped heads-up preflop table, with no kernel: two known
    hands, no board and no dead card."""
    return (len(problem.ranges) == 2 and not problem.board and not problem.dead
            and all(reduced.is_exact_hand for reduced in problem.ranges))


def _headsup_preflop(first: int, second: int) -> np.ndarray:
    """``acc_int`` of two known hands preflop with no dead card, from the shipped table of every heads-up
    matchup (:func:`pokerlab.equity.preflop.headsup_counts`): the counts the known-hands kernel makes, in
    microseconds."""
    wins, ties = headsup_counts(first, second)
    losses = BOARDS - wins - ties
    return np.array([[wins, ties, SHARE_UNITS * wins + SHARE_UNITS // 2 * ties],
                     [losses, ties, SHARE_UNITS * losses + SHARE_UNITS // 2 * ties],
                     [BOARDS, 0, 0]], dtype=np.int64)


def _matchup_orbits(problem: EquityProblem, plan: ExactPlan) -> tuple[np.ndarray, np.ndarray] | None:
    """Range-level suit symmetry for any number of players: one matchup per orbit of the suit relabellings
    that fix the board and dead cards (a matchup and its relabelled images have the same showdowns), with
    how many of the problem's matchups are in that orbit. ``None`` beyond six players (the orbit key is
    one int64)."""
    players = len(problem.ranges)
    if players > 6:
        return None
    ids = np.concatenate([reduced.indices for reduced in problem.ranges])  # the plan's combo order
    matchups = ids[plan.tuple_index]  # (T, P) combo indices
    group = symmetry_group([cards_to_mask(problem.board), cards_to_mask(problem.dead)], [])
    columns = [np.ascontiguousarray(matchups[:, p]) for p in range(players)]
    # each matchup's smallest key over its images, one relabelling at a time: arrays of T keys (not (G, T, P) at
    # once: about 1 GB and 14 s for 1.6 M matchups), and Ctrl-C is seen between them
    smallest = np.full(len(matchups), np.iinfo(np.int64).max, dtype=np.int64)
    for image in combo_images(group):
        keys = np.zeros(len(matchups), dtype=np.int64)
        for column in columns:
            keys = keys * NUMBER_OF_COMBOS + image[column]
        np.minimum(smallest, keys, out=smallest)
    _, first, counts = np.unique(smallest, return_index=True, return_counts=True)
    return matchups[first], counts


def _solve_by_combo_orbits(subproblems: list[tuple[EquityProblem, ExactPlan, int]], players: int,
                           chunks: ChunkedWork) -> dict[str, Any]:
    """Sum the sub-problems of :func:`_orbit_plan`, each counted as many times as its orbit has combos."""
    acc_int = np.zeros((players + 1, 3), dtype=np.int64)
    acc_float = np.zeros((players + 1, 3))
    acc_cat = np.zeros((players, 2, 9))
    chunks.total = sum(sub_plan.work for _, sub_plan, _ in subproblems)
    for sub, sub_plan, multiplicity in subproblems:
        if sub.ranges[1].is_exact_hand and sub_plan.hero_mode not in (1, 2):
            i, f, c = _accumulate_heads_up(sub, False, chunks, sub_plan.work)
        else:
            i, f, c = _accumulate(sub, sub_plan, False, chunks, sub_plan.work)
        acc_int += multiplicity * i
        acc_float += multiplicity * f
        acc_cat += multiplicity * c
    return _outcome(acc_int, acc_float, acc_cat, False, False)


def _against_random(plan: ExactPlan, subproblems: list[tuple[EquityProblem, ExactPlan, int]] | None) -> bool:
    """Whether an unweighted problem is solved as a hand (or each orbit of a range's combos) against a random
    hand: the route that runs only the hand-vs-random kernel."""
    if plan.hero_mode == 2:
        return True
    if not subproblems:
        return False
    return all(sub_plan.hero_mode == 2 for _, sub_plan, _ in subproblems)


def only_against_random(problem: EquityProblem, plan: ExactPlan) -> bool:
    """Whether :func:`solve_exact` (without a breakdown) enumerates this planned problem with the hand-vs-random
    kernel alone (``pokerlab.warmup`` then compiles only that one)."""
    if plan.weighted or all(reduced.is_exact_hand for reduced in problem.ranges):
        return False
    return _against_random(plan, _orbit_plan(problem, plan))


def solve_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, progress: Progress | None,
                chunk: int | None = None) -> dict[str, Any]:
    """Exact equity of a planned problem by the cheapest route: known hands by board ranks; a hand (or the
    orbits of a range's combos) against a random hand by rank pairs; one deal of known hands per orbit of
    matchups; range-level suit symmetry with the lean heads-up loops; the lean loops with the exact hand
    first; or the general enumeration. The outcome fields of a result.

    The work runs in chunks (``chunk`` items each, or about :data:`CHUNK_SECONDS` each when None) with
    ``progress`` called with the fraction done after each; Ctrl-C stops between chunks with
    :class:`~pokerlab.errors.Interrupted` saying how much was done (no partial result: a part of an exact
    enumeration is no estimate)."""
    chunks = ChunkedWork(progress, chunk)
    try:
        return _solve_exact(problem, plan, breakdown, chunks)
    except Interrupted:
        raise
    except KeyboardInterrupt:
        raise chunks.interrupted() from None


def _solve_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, chunks: ChunkedWork) -> dict[str, Any]:
    players = len(problem.ranges)
    if not breakdown and not plan.weighted:
        no_floats = (np.zeros((players + 1, 3)), np.zeros((players, 2, 9)))
        if all(reduced.is_exact_hand for reduced in problem.ranges):
            deal = np.array([[int(reduced.indices[0]) for reduced in problem.ranges]])
            if from_preflop_table(problem):
                return _outcome(_headsup_preflop(int(deal[0, 0]), int(deal[0, 1])), *no_floats, False, False)
            return _outcome(_fixed_hands(problem, deal, np.ones(1), chunks, 1.0), *no_floats, False, False)
        subproblems = _orbit_plan(problem, plan)
        if _against_random(plan, subproblems):
            # against a random hand, counting its hands per rank pair beats every other route
            if subproblems is not None:
                return _solve_by_combo_orbits(subproblems, players, chunks)
            return run_exact(problem, plan, breakdown, chunks)
        # each orbit of matchups as one deal of known hands, when that is less work than the board walk
        boards_share = math.comb(len(problem.deck) - 2 * players, problem.missing) / math.comb(48, 5)
        if len(plan.tuple_index) * FIXED_DEAL_WORK * boards_share / 24 < plan.work:
            orbits = _matchup_orbits(problem, plan)
            if orbits is not None and len(orbits[0]) * FIXED_DEAL_WORK * boards_share < plan.work:
                chunks.total = len(orbits[0]) * FIXED_DEAL_WORK * boards_share
                return _outcome(_fixed_hands(problem, *orbits, chunks, chunks.total), *no_floats, False, False)
        if subproblems is not None:
            return _solve_by_combo_orbits(subproblems, players, chunks)
    if len(problem.ranges) == 2 and problem.ranges[1].is_exact_hand and plan.hero_mode not in (1, 2):
        chunks.total = plan.work
        return _outcome(*_accumulate_heads_up(problem, breakdown, chunks, plan.work), plan.weighted, breakdown)
    return run_exact(problem, plan, breakdown, chunks)
