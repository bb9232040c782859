"""Exact equity: the plan (joint combos, suit symmetry, estimated work) and the driver of the enumeration kernel."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numba
import numpy as np

from pokerlab.cards.encoding import cards_to_mask
from pokerlab.cards.kernels import partial_hand
from pokerlab.cards.ranges import COMBO_MASKS, COMBOS, NUMBER_OF_COMBOS, Range
from pokerlab.cards.tables import load_tables
from pokerlab.equity.kernels import (
    SHARE_UNITS,
    ExactInputs,
    FixedHandsInputs,
    exact_enumeration,
    fixed_hands_enumeration,
)
from pokerlab.equity.problem import NO_JOINT_COMBO, EquityProblem, Progress, category_of_value, is_uniform_random
from pokerlab.equity.symmetry import combo_images, combo_orbits, symmetry_group
from pokerlab.errors import InvalidRangeError

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


def _accumulate(problem: EquityProblem, plan: ExactPlan, breakdown: bool,
                progress: Progress | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate every board (in slices when a progress bar is shown): the kernel's three accumulators."""
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
    # split big runs into slices so that a progress bar can move; small runs go in one call
    slices = 1 if progress is None or plan.work < 3e8 else 20
    bounds = np.linspace(0, len(units), slices + 1).astype(int)
    for s in range(slices):
        part = units[bounds[s]:bounds[s + 1]]
        if len(part) == 0:
            continue
        i, f, c = exact_enumeration(inputs, part, numba.get_num_threads(), plan.weighted, breakdown,
                                    0 if breakdown else plan.hero_mode, tables)
        acc_int += i
        acc_float += f
        acc_cat += c
        if progress is not None:
            progress((s + 1) / slices)
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


def run_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, progress: Progress | None) -> dict[str, Any]:
    """Enumerate every board of the planned problem as it stands; the outcome fields of a result."""
    return _outcome(*_accumulate(problem, plan, breakdown, progress), plan.weighted, breakdown)


def _mirrored(problem: EquityProblem) -> EquityProblem:
    return EquityProblem(problem.names[::-1], problem.ranges[::-1], problem.originals[::-1], problem.board,
                         problem.dead, problem.deck)


def _accumulate_heads_up(problem: EquityProblem, breakdown: bool,
                         progress: Progress | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two players, the second an exact hand and the first not: the lean loops want the exact hand first, so
    the mirrored problem is enumerated and its accumulators swapped back."""
    mirrored = _mirrored(problem)
    mirrored_plan = plan_exact(mirrored)
    assert mirrored_plan is not None  # the same joint combos as the planned problem
    acc_int, acc_float, acc_cat = _accumulate(mirrored, mirrored_plan, breakdown, progress)
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


def _fixed_hands(problem: EquityProblem, deals: np.ndarray, multiplicity: np.ndarray) -> np.ndarray:
    """Showdown counts of deals of known hands (``deals``: ``(R, P)`` combo indices), each counted
    ``multiplicity`` times (see :func:`pokerlab.equity.kernels.fixed_hands_enumeration`)."""
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    cards = COMBOS[deals]  # (R, P, 2)
    hand_keys = tables.card_keys[cards[..., 0]] + tables.card_keys[cards[..., 1]]
    hand_bits = tables.card_bits[cards[..., 0]] | tables.card_bits[cards[..., 1]]
    hand_masks = np.bitwise_or.reduce(COMBO_MASKS[deals], axis=1)
    inputs = FixedHandsInputs(problem.deck, problem.missing, key, bits, np.ascontiguousarray(hand_keys),
                              np.ascontiguousarray(hand_bits), hand_masks, multiplicity.astype(np.int64))
    threads = numba.get_num_threads()
    if len(deals) == 1:  # one deal is one thread's work: waking the others only costs (2-50 ms under load)
        numba.set_num_threads(1)
    try:
        return fixed_hands_enumeration(inputs, tables)
    finally:
        numba.set_num_threads(threads)


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
    images = combo_images(group)[:, matchups]  # (G, T, P)
    keys = np.zeros(images.shape[:2], dtype=np.int64)
    for p in range(players):
        keys = keys * NUMBER_OF_COMBOS + images[:, :, p]
    _, first, counts = np.unique(keys.min(axis=0), return_index=True, return_counts=True)
    return matchups[first], counts


def _solve_by_combo_orbits(subproblems: list[tuple[EquityProblem, ExactPlan, int]], players: int,
                           progress: Progress | None) -> dict[str, Any]:
    """Sum the sub-problems of :func:`_orbit_plan`, each counted as many times as its orbit has combos."""
    acc_int = np.zeros((players + 1, 3), dtype=np.int64)
    acc_float = np.zeros((players + 1, 3))
    acc_cat = np.zeros((players, 2, 9))
    for done, (sub, sub_plan, multiplicity) in enumerate(subproblems, start=1):
        if sub.ranges[1].is_exact_hand and sub_plan.hero_mode not in (1, 2):
            i, f, c = _accumulate_heads_up(sub, False, None)
        else:
            i, f, c = _accumulate(sub, sub_plan, False, None)
        acc_int += multiplicity * i
        acc_float += multiplicity * f
        acc_cat += multiplicity * c
        if progress is not None:
            progress(done / len(subproblems))
    return _outcome(acc_int, acc_float, acc_cat, False, False)


def solve_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, progress: Progress | None) -> dict[str, Any]:
    """Exact equity of a planned problem by the cheapest route: known hands by board ranks; a hand (or the
    orbits of a range's combos) against a random hand by rank pairs; one deal of known hands per orbit of
    matchups; range-level suit symmetry with the lean heads-up loops; the lean loops with the exact hand
    first; or the general enumeration. The outcome fields of a result."""
    players = len(problem.ranges)
    if not breakdown and not plan.weighted:
        no_floats = (np.zeros((players + 1, 3)), np.zeros((players, 2, 9)))
        if all(reduced.is_exact_hand for reduced in problem.ranges):
            deal = np.array([[int(reduced.indices[0]) for reduced in problem.ranges]])
            return _outcome(_fixed_hands(problem, deal, np.ones(1)), *no_floats, False, False)
        subproblems = _orbit_plan(problem, plan)
        if plan.hero_mode == 2 or (subproblems and all(sub_plan.hero_mode == 2 for _, sub_plan, _ in subproblems)):
            # against a random hand, counting its hands per rank pair beats every other route
            if subproblems is not None:
                return _solve_by_combo_orbits(subproblems, players, progress)
            return run_exact(problem, plan, breakdown, progress)
        # each orbit of matchups as one deal of known hands, when that is less work than the board walk
        boards_share = math.comb(len(problem.deck) - 2 * players, problem.missing) / math.comb(48, 5)
        if len(plan.tuple_index) * FIXED_DEAL_WORK * boards_share / 24 < plan.work:
            orbits = _matchup_orbits(problem, plan)
            if orbits is not None and len(orbits[0]) * FIXED_DEAL_WORK * boards_share < plan.work:
                return _outcome(_fixed_hands(problem, *orbits), *no_floats, False, False)
        if subproblems is not None:
            return _solve_by_combo_orbits(subproblems, players, progress)
    if len(problem.ranges) == 2 and problem.ranges[1].is_exact_hand and plan.hero_mode not in (1, 2):
        return _outcome(*_accumulate_heads_up(problem, breakdown, progress), plan.weighted, breakdown)
    return run_exact(problem, plan, breakdown, progress)
