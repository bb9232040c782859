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
from pokerlab.cards.ranges import COMBO_MASKS, COMBOS
from pokerlab.cards.tables import load_tables
from pokerlab.equity.kernels import SHARE_UNITS, ExactInputs, exact_enumeration
from pokerlab.equity.problem import NO_JOINT_COMBO, EquityProblem, Progress, category_of_value, is_uniform_random
from pokerlab.equity.symmetry import symmetry_group
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
    hero_mode: int  # 1: two players, the first a single combo (lean heads-up loop); 2: and the second random


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


def run_exact(problem: EquityProblem, plan: ExactPlan, breakdown: bool, progress: Progress | None) -> dict[str, Any]:
    """Enumerate every board (in slices when a progress bar is shown); the outcome fields of a result."""
    tables = load_tables()
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    units = work_units(len(problem.deck), problem.missing)
    inputs = ExactInputs(problem.deck, problem.missing, key, bits, plan.perms, plan.combo_cards, plan.combo_masks,
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
    showdowns = int(acc_int[players, 0])
    if showdowns == 0:
        raise InvalidRangeError(NO_JOINT_COMBO)
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


def swap_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    """The outcome of the mirrored two-player problem, back in the players' order."""
    swapped = {}
    for name, value in outcome.items():
        if name in ("equity", "win", "tie", "wins", "ties", "categories", "stderr") and value is not None:
            swapped[name] = value[::-1]
        else:
            swapped[name] = value
    return swapped
