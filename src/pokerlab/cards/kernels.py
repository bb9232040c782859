"""Compiled hand-evaluation kernels. They assume valid input (distinct cards 0..51) and never raise.

A partial hand is a pair ``(key, bits)``: ``key`` is ``SUIT_BIAS`` plus the sum of its cards' ``card_keys``
and ``bits`` the OR of their ``card_bits`` (see :mod:`pokerlab.cards.tables`). Adding a card is one add and
one OR, so a board's partial hand is computed once and reused for every pair of hole cards.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerlab.cards.tables import FLUSH_CHECK, RANK_KEY_MASK, ROW_MASK, ROW_SHIFT, SUIT_BIAS, SUIT_SHIFT, EvalTables

_SUIT_BIAS = np.uint64(SUIT_BIAS)
_SLOTS = 16  # work slots of the exhaustive count: several per thread, so the split stays even


@njit(cache=True, inline="always")
def value_of_partial(key: np.uint64, bits: np.uint64, tables: EvalTables) -> np.uint16:
    """Hand value (1..7462) of a complete partial hand of 5 to 7 cards."""
    flush = (key >> SUIT_SHIFT) & FLUSH_CHECK
    if flush:
        shift = 0
        if flush & 0x8800:
            shift = 32
        if flush & 0x8080:
            shift += 16
        return tables.flush_values[(bits >> shift) & 0x1FFF]
    rank_key = key & RANK_KEY_MASK
    return tables.rank_values[np.int64(tables.row_offsets[rank_key >> ROW_SHIFT]) + np.int64(rank_key & ROW_MASK)]


@njit(cache=True)
def partial_hand(cards: np.ndarray, tables: EvalTables) -> tuple[np.uint64, np.uint64]:
    """``(key, bits)`` of a set of cards (any number, e.g. a board), ready for more cards to be added."""
    key = _SUIT_BIAS
    bits = np.uint64(0)
    for card in cards:
        key += tables.card_keys[card]
        bits |= tables.card_bits[card]
    return key, bits


@njit(cache=True, inline="always")
def value_with_two(key: np.uint64, bits: np.uint64, first: int, second: int, tables: EvalTables) -> np.uint16:
    """Hand value of a partial hand (e.g. a five-card board) plus two hole cards: the equity inner loop."""
    return value_of_partial(
        key + tables.card_keys[first] + tables.card_keys[second],
        bits | tables.card_bits[first] | tables.card_bits[second],
        tables,
    )


@njit(cache=True, parallel=True)
def evaluate_rows(hands: np.ndarray, tables: EvalTables) -> np.ndarray:
    """Hand value of every row of an ``(N, k)`` uint8 array of cards, 5 <= k <= 7, in parallel."""
    count, width = hands.shape
    values = np.empty(count, dtype=np.uint16)
    for row in prange(count):
        key = _SUIT_BIAS
        bits = np.uint64(0)
        for column in range(width):
            card = hands[row, column]
            key += tables.card_keys[card]
            bits |= tables.card_bits[card]
        values[row] = value_of_partial(key, bits, tables)
    return values


@njit(cache=True, parallel=True)
def seven_card_value_counts(tables: EvalTables) -> np.ndarray:
    """How many of the 133,784,560 seven-card hands have each hand value (index 0..7462).

    Seven nested loops add one card at a time to the partial key, so the innermost work is one add, one OR
    and one lookup per hand. The two outer cards are flattened into the 1,326 pairs and dealt round-robin to
    ``_SLOTS`` slots (pair ``i`` to slot ``i % _SLOTS``), so every slot gets a similar mix of heavy and light
    pairs and the slots split evenly over the threads (set ``numba.set_num_threads(1)`` for one core).
    """
    pairs = np.empty((1326, 2), dtype=np.int64)
    index = 0
    for first in range(51):  # first card smallest: pairs with small cards have the most hands above them
        for second in range(first + 1, 52):
            pairs[index, 0] = first
            pairs[index, 1] = second
            index += 1
    counts_per_slot = np.zeros((_SLOTS, 7463), dtype=np.int64)
    for slot in prange(_SLOTS):
        counts = counts_per_slot[slot]
        for pair in range(slot, 1326, _SLOTS):
            _count_pair(pairs[pair, 0], pairs[pair, 1], counts, tables)
    return counts_per_slot.sum(axis=0)


@njit(cache=True, inline="always")
def _count_pair(first: int, c2: int, counts: np.ndarray, tables: EvalTables) -> None:
    """Add to ``counts`` the values of every seven-card hand whose two smallest cards are ``first`` and ``c2``."""
    key2 = _SUIT_BIAS + tables.card_keys[first] + tables.card_keys[c2]
    bits2 = tables.card_bits[first] | tables.card_bits[c2]
    for c3 in range(c2 + 1, 52):
        key3, bits3 = key2 + tables.card_keys[c3], bits2 | tables.card_bits[c3]
        for c4 in range(c3 + 1, 52):
            key4, bits4 = key3 + tables.card_keys[c4], bits3 | tables.card_bits[c4]
            for c5 in range(c4 + 1, 52):
                key5, bits5 = key4 + tables.card_keys[c5], bits4 | tables.card_bits[c5]
                for c6 in range(c5 + 1, 52):
                    key6, bits6 = key5 + tables.card_keys[c6], bits5 | tables.card_bits[c6]
                    for c7 in range(c6 + 1, 52):
                        counts[value_of_partial(key6 + tables.card_keys[c7],
                                                bits6 | tables.card_bits[c7], tables)] += 1
