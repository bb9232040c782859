"""Exact equity of small problems on a flop, turn or river, in plain numpy (no compiled kernel).

With at most two board cards to come there are at most ``C(48, 2) = 1,128`` completions, so a problem with few
joint combos (two known hands on a flop: 990 boards) is enumerated as arrays: every combo's hand value on every
completion by the evaluator's table lookups, then each joint combo's winners board by board. The counts are the
same integers the compiled enumeration makes (weighted ranges: the same weighted sums, up to rounding), in about
a millisecond, with neither numba nor a kernel to import, compile or load: ``pokerlab equity AsKs QdQc --board
2c7d9h`` answers at once, on its first run too.

>>> from pokerlab.equity.problem import prepare_problem
>>> outcome = few_boards_outcome(prepare_problem(["AhAd", "KsKc"], "2c7d9h", ""))
>>> outcome["wins"], outcome["ties"], outcome["showdowns"]
((907, 83), (0, 0), 990)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab.cards.classes import COMBO_MASKS, COMBOS
from pokerlab.cards.tables import FLUSH_CHECK, RANK_KEY_MASK, ROW_MASK, ROW_SHIFT, SUIT_BIAS, SUIT_SHIFT, load_tables
from pokerlab.equity.problem import NO_JOINT_COMBO, SHARE_UNITS, EquityProblem
from pokerlab.errors import InvalidRangeError

FEW_BOARDS_WORK = 2_000_000
"""Most hand values (joint combos x completions x players, an upper bound) enumerated here at once: about 0.1 s
and 50 MB at the limit; larger problems go to the compiled enumeration."""


def answers(problem: EquityProblem) -> bool:
    """Whether ``problem`` is enumerated here: at most two board cards to come and at most
    :data:`FEW_BOARDS_WORK` hand values (counted as if no joint combo shared a card)."""
    if problem.missing > 2:
        return False
    work = math.comb(len(problem.deck), problem.missing) * len(problem.ranges)
    for reduced in problem.ranges:
        work *= reduced.combo_count
        if work > FEW_BOARDS_WORK:
            return False
    return True


def _completions(problem: EquityProblem) -> tuple[np.ndarray, np.ndarray]:
    """The cards of every completion of the board from the remaining deck (``(B, missing)``) and their masks."""
    deck = problem.deck.astype(np.int64)
    if problem.missing == 2:
        first, second = np.triu_indices(len(deck), k=1)
        cards = np.stack([deck[first], deck[second]], axis=1)
    elif problem.missing == 1:
        cards = deck[:, None]
    else:
        cards = np.zeros((1, 0), dtype=np.int64)
    masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1,
                                 initial=np.uint64(0))
    return cards, masks


def hand_values(keys: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Hand values (1..7462) of complete partial hands of 5 to 7 cards (``key`` and ``bits`` arrays as
    :mod:`pokerlab.cards.kernels` builds them), by the same table lookups as its ``value_of_key``.

    >>> tables = load_tables()
    >>> cards = [51, 47, 43, 39, 35]  # As Ks Qs Js Ts
    >>> key = np.uint64(SUIT_BIAS) + tables.card_keys[cards].sum(dtype=np.uint64)
    >>> int(hand_values(np.array([key]), np.bitwise_or.reduce(tables.card_bits[cards])[None])[0])
    7462
    """
    tables = load_tables()
    flush = (keys >> np.uint64(SUIT_SHIFT)) & np.uint64(FLUSH_CHECK)
    shift = np.where(flush & np.uint64(0x8800), np.uint64(32), np.uint64(0))
    shift = shift + np.where(flush & np.uint64(0x8080), np.uint64(16), np.uint64(0))
    flush_values = tables.flush_values[((bits >> shift) & np.uint64(0x1FFF)).astype(np.int64)]
    rank_keys = keys & np.uint64(RANK_KEY_MASK)
    rows = tables.row_offsets[(rank_keys >> np.uint64(ROW_SHIFT)).astype(np.int64)].astype(np.int64)
    rank_values = tables.rank_values[rows + (rank_keys & np.uint64(ROW_MASK)).astype(np.int64)]
    return np.where(flush != 0, flush_values, rank_values).astype(np.int32)


def _joint_combos(problem: EquityProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every joint combo with no card in common: per player the index into its range's combos (``(T, P)``),
    the joint card masks and the products of the weights."""
    first = problem.ranges[0]
    index = np.arange(first.combo_count)[:, None]
    masks = COMBO_MASKS[first.indices].astype(np.uint64)
    weights = first.weights[first.indices].astype(np.float64)
    for reduced in problem.ranges[1:]:
        theirs = COMBO_MASKS[reduced.indices].astype(np.uint64)
        rows, cols = np.nonzero((masks[:, None] & theirs[None, :]) == 0)
        index = np.hstack([index[rows], cols[:, None]])
        masks = masks[rows] | theirs[cols]
        weights = weights[rows] * reduced.weights[reduced.indices][cols]
    return index, masks, weights


def few_boards_outcome(problem: EquityProblem) -> dict[str, Any]:
    """The outcome fields of an exact result (as :func:`pokerlab.equity.exact.solve_exact` returns them) of a
    problem this module :func:`answers`: integer win and tie counts for unweighted ranges, weighted shares
    else (the PokerStove convention: each joint combo weighted by the product of its combos' weights, every
    completion of the board that misses its cards counted once)."""
    tables = load_tables()
    completion_cards, completion_masks = _completions(problem)
    board_key = np.uint64(SUIT_BIAS) + tables.card_keys[problem.board].sum(dtype=np.uint64)
    board_bits = np.bitwise_or.reduce(tables.card_bits[problem.board], initial=np.uint64(0))
    keys = board_key + tables.card_keys[completion_cards].sum(axis=1, dtype=np.uint64)
    bits = board_bits | np.bitwise_or.reduce(tables.card_bits[completion_cards], axis=1, initial=np.uint64(0))
    values = []  # per player: (combos, completions) hand values
    for reduced in problem.ranges:
        cards = COMBOS[reduced.indices].astype(np.int64)
        hand_keys = tables.card_keys[cards[:, 0]] + tables.card_keys[cards[:, 1]]
        hand_bits = tables.card_bits[cards[:, 0]] | tables.card_bits[cards[:, 1]]
        values.append(hand_values(keys[None, :] + hand_keys[:, None], bits[None, :] | hand_bits[:, None]))
    index, masks, weights = _joint_combos(problem)
    players = len(problem.ranges)
    shown = (masks[:, None] & completion_masks[None, :]) == 0  # (T, B): the completion misses the joint combo
    if not shown.any():
        raise InvalidRangeError(NO_JOINT_COMBO)
    dealt = np.stack([values[p][index[:, p]] for p in range(players)])  # (P, T, B)
    winners = dealt == dealt.max(axis=0)
    tied = winners.sum(axis=0)
    sole = shown & (tied == 1)
    split = shown & (tied > 1)
    if np.all(weights == 1.0):
        showdowns = int(shown.sum())
        wins = tuple(int((winners[p] & sole).sum()) for p in range(players))
        ties = tuple(int((winners[p] & split).sum()) for p in range(players))
        shares = np.array([int(np.where(winners[p] & shown, SHARE_UNITS // tied, 0).sum()) for p in range(players)])
        return {"equity": shares / (SHARE_UNITS * showdowns), "win": np.array(wins) / showdowns,
                "tie": np.array(ties) / showdowns, "stderr": None, "showdowns": showdowns, "wins": wins,
                "ties": ties, "categories": None, "stop_reason": None}
    total = float(weights @ shown.sum(axis=1))
    win = np.array([weights @ (winners[p] & sole).sum(axis=1) for p in range(players)]) / total
    tie = np.array([weights @ (winners[p] & split).sum(axis=1) for p in range(players)]) / total
    equity = np.array([weights @ np.where(winners[p] & shown, 1.0 / tied, 0.0).sum(axis=1)
                       for p in range(players)]) / total
    return {"equity": equity, "win": win, "tie": tie, "stderr": None, "showdowns": int(shown.sum()), "wins": None,
            "ties": None, "categories": None, "stop_reason": None}
