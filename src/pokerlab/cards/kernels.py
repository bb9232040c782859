"""Compiled hand-evaluation kernels. They assume valid input (distinct cards 0..51) and never raise.

A partial hand is a pair ``(key, bits)``: ``key`` is ``SUIT_BIAS`` plus the sum of its cards' ``card_keys``
and ``bits`` the OR of their ``card_bits`` (see :mod:`pokerlab.cards.tables`). Adding a card is one add and
one OR, so a board's partial hand is computed once and reused for every pair of hole cards.

Hot loops read the table arrays out of the :class:`EvalTables` bundle once, before the loop, and call
:func:`value_of_key` with the arrays: reading a field of the bundle inside a compiled loop takes a reference
on the array each time (two atomic operations per hand), which makes a loop 2-3x slower.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerlab.cards.tables import FLUSH_CHECK, RANK_KEY_MASK, ROW_MASK, ROW_SHIFT, SUIT_BIAS, SUIT_SHIFT, EvalTables

_SUIT_BIAS = np.uint64(SUIT_BIAS)
_ONE = np.uint64(1)
_SUIT_SHIFT = np.uint64(SUIT_SHIFT)
_FLUSH_CHECK = np.uint64(FLUSH_CHECK)
_ONE_OF_EACH_SUIT = np.uint64(0x1111)
_TWO_OF_EACH_SUIT = np.uint64(0x2222)
_RANK_KEY_MASK = np.uint64(RANK_KEY_MASK)
_ROW_SHIFT = np.uint64(ROW_SHIFT)
_ROW_MASK = np.uint64(ROW_MASK)
_SLOTS = 16  # work slots of the exhaustive count: several per thread, so the split stays even


@njit(cache=True, inline="always")
def value_of_key(
    key: np.uint64, bits: np.uint64, flush_values: np.ndarray, row_offsets: np.ndarray, rank_values: np.ndarray
) -> np.uint16:
    """Hand value (1..7462) of a complete partial hand of 5 to 7 cards, from the evaluator's table arrays
    (``tables.flush_values``, ``tables.row_offsets``, ``tables.rank_values``, read once before a loop)."""
    flush = (key >> SUIT_SHIFT) & FLUSH_CHECK
    if flush:
        shift = 0
        if flush & 0x8800:
            shift = 32
        if flush & 0x8080:
            shift += 16
        flush_value: np.uint16 = flush_values[(bits >> shift) & 0x1FFF]
        return flush_value
    rank_key = key & RANK_KEY_MASK
    value: np.uint16 = rank_values[np.int64(row_offsets[rank_key >> ROW_SHIFT]) + np.int64(rank_key & ROW_MASK)]
    return value


@njit(cache=True, inline="always")
def value_of_partial(key: np.uint64, bits: np.uint64, tables: EvalTables) -> np.uint16:
    """Hand value (1..7462) of a complete partial hand of 5 to 7 cards (outside hot loops: see
    :func:`value_of_key`)."""
    return value_of_key(key, bits, tables.flush_values, tables.row_offsets, tables.rank_values)


@njit(cache=True)
def partial_hand(cards: np.ndarray, tables: EvalTables) -> tuple[np.uint64, np.uint64]:
    """``(key, bits)`` of a set of cards (any number, e.g. a board), ready for more cards to be added."""
    card_keys, card_bits = tables.card_keys, tables.card_bits
    key = _SUIT_BIAS
    bits = np.uint64(0)
    for card in cards:
        key += card_keys[card]
        bits |= card_bits[card]
    return key, bits


@njit(cache=True, inline="always")
def value_with_two(key: np.uint64, bits: np.uint64, first: int, second: int, tables: EvalTables) -> np.uint16:
    """Hand value of a partial hand (e.g. a five-card board) plus two hole cards (outside hot loops)."""
    card_keys, card_bits = tables.card_keys, tables.card_bits
    return value_of_key(
        key + card_keys[first] + card_keys[second],
        bits | card_bits[first] | card_bits[second],
        tables.flush_values, tables.row_offsets, tables.rank_values,
    )


@njit(cache=True, inline="always")
def value_with_two_cards(
    key: np.uint64, bits: np.uint64, first: int, second: int, card_keys: np.ndarray, card_bits: np.ndarray,
    flush_values: np.ndarray, row_offsets: np.ndarray, rank_values: np.ndarray,
) -> np.uint16:
    """:func:`value_with_two` from the table arrays read once before a hot loop: the equity inner loop."""
    return value_of_key(key + card_keys[first] + card_keys[second], bits | card_bits[first] | card_bits[second],
                        flush_values, row_offsets, rank_values)


@njit(cache=True, inline="always")
def rank_only_value(rank_key: np.uint64, row_offsets: np.ndarray, rank_values: np.ndarray) -> np.uint16:
    """Value of a hand of 5 to 7 cards that cannot be a flush, from the rank half of its key
    (``key & RANK_KEY_MASK``)."""
    value: np.uint16 = rank_values[np.int64(row_offsets[rank_key >> _ROW_SHIFT]) + np.int64(rank_key & _ROW_MASK)]
    return value


@njit(cache=True, parallel=True)
def evaluate_rows(hands: np.ndarray, tables: EvalTables) -> np.ndarray:
    """Hand value of every row of an ``(N, k)`` uint8 array of cards, 5 <= k <= 7, in parallel."""
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    count, width = hands.shape
    values = np.empty(count, dtype=np.uint16)
    # One straight-line loop per width, the cards unrolled: twice as fast as a loop over the columns, which
    # keeps the compiler from interleaving the rows' independent lookups.
    if width == 7:
        for row in prange(count):
            c0, c1, c2, c3, c4, c5, c6 = (hands[row, 0], hands[row, 1], hands[row, 2], hands[row, 3],
                                          hands[row, 4], hands[row, 5], hands[row, 6])
            key = (_SUIT_BIAS + card_keys[c0] + card_keys[c1] + card_keys[c2] + card_keys[c3] + card_keys[c4]
                   + card_keys[c5] + card_keys[c6])
            bits = (card_bits[c0] | card_bits[c1] | card_bits[c2] | card_bits[c3] | card_bits[c4]
                    | card_bits[c5] | card_bits[c6])
            values[row] = value_of_key(key, bits, flush_values, row_offsets, rank_values)
    elif width == 6:
        for row in prange(count):
            c0, c1, c2, c3, c4, c5 = (hands[row, 0], hands[row, 1], hands[row, 2], hands[row, 3], hands[row, 4],
                                      hands[row, 5])
            key = (_SUIT_BIAS + card_keys[c0] + card_keys[c1] + card_keys[c2] + card_keys[c3] + card_keys[c4]
                   + card_keys[c5])
            bits = card_bits[c0] | card_bits[c1] | card_bits[c2] | card_bits[c3] | card_bits[c4] | card_bits[c5]
            values[row] = value_of_key(key, bits, flush_values, row_offsets, rank_values)
    else:
        for row in prange(count):
            c0, c1, c2, c3, c4 = hands[row, 0], hands[row, 1], hands[row, 2], hands[row, 3], hands[row, 4]
            key = _SUIT_BIAS + card_keys[c0] + card_keys[c1] + card_keys[c2] + card_keys[c3] + card_keys[c4]
            bits = card_bits[c0] | card_bits[c1] | card_bits[c2] | card_bits[c3] | card_bits[c4]
            values[row] = value_of_key(key, bits, flush_values, row_offsets, rank_values)
    return values


@njit(cache=True, parallel=True)
def first_invalid_row(hands: np.ndarray) -> np.int64:
    """Index of the first row of an ``(N, k)`` integer array holding a card outside 0..51 or a repeated card,
    or -1 when every row is valid. One pass, no temporary arrays (rows are checked in parallel blocks)."""
    count, width = hands.shape
    blocks = 64
    first_bad = np.full(blocks, count, dtype=np.int64)
    for block in prange(blocks):
        for row in range(count * block // blocks, count * (block + 1) // blocks):
            seen = np.uint64(0)
            bad = False
            for column in range(width):
                card = hands[row, column]
                if card < 0 or card > 51:
                    bad = True
                    break
                bit = _ONE << np.uint64(card)
                if seen & bit:
                    bad = True
                    break
                seen |= bit
            if bad:
                first_bad[block] = row
                break
    found = first_bad.min()
    return np.int64(-1) if found == count else found


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
    counts_total: np.ndarray = counts_per_slot.sum(axis=0)
    return counts_total


@njit(cache=True, inline="always")
def _count_pair(first: int, c2: int, counts: np.ndarray, tables: EvalTables) -> None:
    """Add to ``counts`` the values of every seven-card hand whose two smallest cards are ``first`` and ``c2``.

    When six cards hold no four of a suit, no seventh card makes a flush and the hand's value depends only on
    the seventh card's rank: the cards above ``c6`` are counted per rank (one lookup for up to four cards),
    which makes the count about 2.5x faster than one lookup per hand. One level up, when five cards hold no
    three of a suit (63% of them), the last two cards are counted per pair of ranks (:func:`_count_two_by_rank`).
    """
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    key2 = _SUIT_BIAS + card_keys[first] + card_keys[c2]
    bits2 = card_bits[first] | card_bits[c2]
    for c3 in range(c2 + 1, 52):
        key3, bits3 = key2 + card_keys[c3], bits2 | card_bits[c3]
        for c4 in range(c3 + 1, 52):
            key4, bits4 = key3 + card_keys[c4], bits3 | card_bits[c4]
            for c5 in range(c4 + 1, 52):
                key5, bits5 = key4 + card_keys[c5], bits4 | card_bits[c5]
                if not (((key5 >> _SUIT_SHIFT) + _TWO_OF_EACH_SUIT) & _FLUSH_CHECK):  # two more cannot flush
                    _count_two_by_rank(key5 & _RANK_KEY_MASK, c5, counts, card_keys, row_offsets, rank_values)
                    continue
                for c6 in range(c5 + 1, 52):
                    key6, bits6 = key5 + card_keys[c6], bits5 | card_bits[c6]
                    if ((key6 >> _SUIT_SHIFT) + _ONE_OF_EACH_SUIT) & _FLUSH_CHECK:  # a seventh card may flush
                        for c7 in range(c6 + 1, 52):
                            counts[value_of_key(key6 + card_keys[c7], bits6 | card_bits[c7], flush_values,
                                                row_offsets, rank_values)] += 1
                        continue
                    rank_key6 = key6 & _RANK_KEY_MASK
                    rank6 = c6 >> 2
                    same_rank_above = 3 - (c6 & 3)  # cards of c6's rank with a larger suit
                    if same_rank_above:
                        counts[rank_only_value(rank_key6 + (card_keys[c6] & _RANK_KEY_MASK), row_offsets,
                                           rank_values)] += same_rank_above
                    for rank7 in range(rank6 + 1, 13):
                        counts[rank_only_value(rank_key6 + (card_keys[4 * rank7] & _RANK_KEY_MASK), row_offsets,
                                           rank_values)] += 4


@njit(cache=True, inline="always")
def _count_two_by_rank(rank_key5: np.uint64, c5: int, counts: np.ndarray, card_keys: np.ndarray,
                       row_offsets: np.ndarray, rank_values: np.ndarray) -> None:
    """Add to ``counts`` the values of the hands made by five cards that cannot flush (rank half of their key
    ``rank_key5``, largest card ``c5``) and any two cards above ``c5``, one lookup per pair of ranks: ``C(n, 2)``
    hands for a pair of a rank with ``n`` cards above ``c5``, ``n1 * n2`` for two ranks."""
    rank5 = c5 >> 2
    for rank6 in range(rank5, 13):
        above6 = 3 - (c5 & 3) if rank6 == rank5 else 4  # cards of rank6 above c5
        rank_key6 = card_keys[4 * rank6] & _RANK_KEY_MASK
        key6 = rank_key5 + rank_key6
        if above6 >= 2:
            counts[rank_only_value(key6 + rank_key6, row_offsets, rank_values)] += above6 * (above6 - 1) // 2
        if above6 == 0:
            continue
        for rank7 in range(rank6 + 1, 13):
            counts[rank_only_value(key6 + (card_keys[4 * rank7] & _RANK_KEY_MASK), row_offsets,
                                   rank_values)] += 4 * above6


@njit(cache=True, inline="always")
def _card_slot(card: np.integer) -> np.uint64:
    """A card as a uint8 value: a card above 255 or negative (it wraps to a huge unsigned value) becomes 255, which
    the card check refuses like any card above 51. For uint8 cards this is the card itself."""
    return min(np.uint64(card), np.uint64(255))


SLAB_ROWS = 64
"""Rows per slab of the card check: the byte pattern of a slab's pair masks (:func:`card_pair_masks`) repeats
every slab."""
CHECK_CHUNKS = 64  # slabs are checked in this many parallel chunks, so the split stays even over the threads
MAX_SHIFT = 6  # the most cards after a card in its row (seven cards)


def card_pair_masks(width: int) -> np.ndarray:
    """``(6, 64 * width)`` bools: ``masks[d - 1, j]`` is whether byte ``j`` of a slab of rows of ``width`` cards
    and byte ``j + d`` lie in the same row, i.e. whether the check compares them (plain numpy, built once per
    width by the caller)."""
    column = np.arange(SLAB_ROWS * width) % width
    return np.array([column + shift < width for shift in range(1, MAX_SHIFT + 1)])


@njit(cache=True)
def _slabs_hold_invalid(cards: np.ndarray, start: int, slabs: int, width: int, masks: np.ndarray) -> bool:
    """Whether the ``slabs`` slabs of :data:`SLAB_ROWS` rows from byte ``start`` of the flat uint8 ``cards`` hold
    a card above 51 or a row holding a card twice. Byte compares only: each byte against the 1..6 bytes after it,
    masked to pairs within a row, which the compiler turns into 64-byte vector compares (about four instructions
    a row). Reads up to 6 bytes past the last slab: the caller leaves them in the array."""
    span = SLAB_ROWS * width
    size = span * slabs
    a0, a1, a2 = cards[start:start + size], cards[start + 1:start + size + 1], cards[start + 2:start + size + 2]
    a3, a4 = cards[start + 3:start + size + 3], cards[start + 4:start + size + 4]
    a5, a6 = cards[start + 5:start + size + 5], cards[start + 6:start + size + 6]
    m1, m2, m3, m4, m5, m6 = masks[0], masks[1], masks[2], masks[3], masks[4], masks[5]
    bad = False
    width_bytes = np.uint64(span)
    for slab in range(np.uint64(slabs)):
        o = slab * width_bytes  # unsigned indices: no negative-index wrap to test (3x faster)
        for j in range(width_bytes):  # bools, not integers: a wider type made the vectors 8 bytes wide, 4x slower
            i = o + j
            x = a0[i]
            bad |= ((x > 51) | ((x == a1[i]) & m1[j]) | ((x == a2[i]) & m2[j]) | ((x == a3[i]) & m3[j])
                    | ((x == a4[i]) & m4[j]) | ((x == a5[i]) & m5[j]) | ((x == a6[i]) & m6[j]))
    return bad


@njit(cache=True, parallel=True)
def holds_invalid_card(cards: np.ndarray, masks: np.ndarray) -> bool:
    """Whether a C-contiguous ``(N, k)`` uint8 array of cards (5 <= k <= 7) holds a card above 51 or a row
    holding a card twice; ``masks`` is :func:`card_pair_masks` of ``k``.

    A pass of its own before :func:`evaluate_rows`, in slabs of :data:`SLAB_ROWS` rows compared byte by byte
    with vector instructions (:func:`_slabs_hold_invalid`), the last few rows one by one. A check inside the
    evaluation needs every card's bit on every row (the evaluation reads the bits only for flush rows) and ran at
    0.5-0.76x the unchecked evaluation; this pass costs about a quarter of it (the two together 0.78x, one
    thread, uint8 cards), bound by its instructions, not by reading the cards again."""
    count, width = cards.shape
    flat = cards.reshape(-1)
    slabs = max(0, (count * width - MAX_SHIFT) // (SLAB_ROWS * width))  # whole slabs with 6 bytes after them
    bad = np.zeros(CHECK_CHUNKS, dtype=np.bool_)
    for chunk in prange(CHECK_CHUNKS):
        low, high = slabs * chunk // CHECK_CHUNKS, slabs * (chunk + 1) // CHECK_CHUNKS
        if high > low:
            bad[chunk] = _slabs_hold_invalid(flat, low * SLAB_ROWS * width, high - low, width, masks)
    for row in range(slabs * SLAB_ROWS, count):
        seen = np.uint64(0)
        for column in range(width):
            card = cards[row, column]
            if card > 51 or seen & (_ONE << np.uint64(card)):
                return True
            seen |= _ONE << np.uint64(card)
    return bool(bad.any())


@njit(cache=True)
def narrow_cards(cards: np.ndarray, out: np.ndarray) -> None:
    """Copy the flat integer ``cards`` into the flat uint8 ``out``, a card outside 0..255 as 255 (refused by
    :func:`holds_invalid_card` like any card above 51). This is the pass numpy's cast makes of wide cards on the
    unchecked path, with the range folded in, so that the check costs on int64 cards what it costs on uint8 ones.
    One thread: a parallel loop here kept the compiler from vectorising it and ran 3x slower."""
    for i in range(cards.size):
        out[i] = np.uint8(_card_slot(cards[i]))
