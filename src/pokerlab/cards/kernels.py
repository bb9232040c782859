"""Compiled hand-evaluation kernels. They assume valid input (distinct cards 0..51) and never raise.

A partial hand is a pair ``(key, bits)``: ``key`` is ``SUIT_BIAS`` plus the sum of its cards' ``card_keys``
and ``bits`` the OR of their ``card_bits`` (see :mod:`pokerlab.cards.tables`). Adding a card is one add and
one OR, so a board's partial hand is computed once and reused for every pair of hole cards.

Hot loops read the table arrays out of the :class:`EvalTables` bundle once, before the loop, and call
:func:`value_of_key` with the arrays: reading a field of the bundle inside a compiled loop takes a reference
on the array each time (two atomic operations per hand), which makes a loop 2-3x slower.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core.typing.templates import Signature
from numba.extending import intrinsic

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


VECTOR_BYTES = 64
"""Bytes the card check compares at once: one AVX-512 register (LLVM splits the vectors on other CPUs)."""
CHECK_BLOCKS = 8  # vectors per call of a width's check: its running minimum and maximum are reduced once a call
CHECK_CHUNKS = 64  # the calls are split into this many parallel chunks, so the split stays even over the threads

# numba calls an intrinsic's definition with its typing context and the argument types, and its code generator
# with LLVM's builder; each is bound below to the type of the compiled call, which is what the type checker sees.
_Codegen = Callable[[Any, ir.IRBuilder, Signature, list[ir.Value]], ir.Value]
_BYTES = ir.VectorType(ir.IntType(8), VECTOR_BYTES)


@njit(cache=True)
def check_rows(width: int) -> tuple[int, int]:
    """``(rows, overread)``: the rows of ``width`` cards one call of the card check covers, and the bytes after
    them it reads (the rows of a vector fill all but ``64 % width`` of its bytes)."""
    rows_per_vector = VECTOR_BYTES // width
    return CHECK_BLOCKS * rows_per_vector, VECTOR_BYTES - rows_per_vector * width


def _partner_lanes(width: int, distance: int) -> list[int]:
    """For each byte of a vector of whole rows of ``width`` cards, the byte ``distance`` places after it in its row
    taken cyclically (a row's last card is followed by its first); a byte after the last whole row is its own
    partner (the check masks it)."""
    filled = VECTOR_BYTES // width * width
    return [lane - lane % width + (lane % width + distance) % width if lane < filled else lane
            for lane in range(VECTOR_BYTES)]


def _row_check(width: int) -> Callable[[np.ndarray, np.uint64], bool]:
    """A compiled helper for rows of ``width`` cards: ``check(cards, start)`` is whether the :func:`check_rows`
    rows from byte ``start`` of the flat uint8 ``cards`` hold a card above 51 or a row holding a card twice.

    Each of its :data:`CHECK_BLOCKS` vectors holds ``64 // width`` whole rows (9 of 7 cards); every pair of cards of
    a row lies at a cyclic distance of 1 to ``width // 2`` (21 pairs for 7 cards: 7 at each of 1, 2, 3), so the
    vector is compared with ``width // 2`` permutations of itself (byte shuffles inside the register, no memory
    access): a byte of ``x XOR partner`` is zero exactly where a row repeats a card. The running minimum of those
    bytes (the bytes past the last whole row forced to 0xFF) and the running maximum of the cards are reduced once
    a call: about 11 vector instructions for 9 rows of 7 cards. Comparing each byte with unaligned reloads of the
    bytes after it, masked by patterns held in memory, takes twice as many loads as instructions and is bound by
    them (3.7x slower on this machine: docs/benchmarks.md, "Start-up, session 13")."""
    filled = VECTOR_BYTES // width * width
    permutations = [ir.Constant(ir.VectorType(ir.IntType(32), VECTOR_BYTES), _partner_lanes(width, distance))
                    for distance in range(1, width // 2 + 1)]
    past_rows = ir.Constant(_BYTES, [0 if lane < filled else 0xFF for lane in range(VECTOR_BYTES)])

    @intrinsic
    def check(typingctx: object, cards: types.Type, start: types.Type) -> tuple[Signature, _Codegen]:  # noqa: ARG001
        def codegen(context: Any, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]) -> ir.Value:
            first = builder.gep(context.make_array(signature.args[0])(context, builder, args[0]).data, [args[1]])
            smallest = ir.Constant(_BYTES, [0xFF] * VECTOR_BYTES)
            largest = ir.Constant(_BYTES, [0] * VECTOR_BYTES)
            for block in range(CHECK_BLOCKS):
                at = builder.gep(first, [ir.Constant(ir.IntType(64), block * filled)])
                cards_ = builder.load(builder.bitcast(at, _BYTES.as_pointer()), align=1)
                # the bytes past the last whole row are cards of the next rows, inside the array: counting them
                # here can only refuse a batch that holds a card above 51
                largest = builder.select(builder.icmp_unsigned(">", cards_, largest), cards_, largest)
                for permutation in permutations:
                    partners = builder.shuffle_vector(cards_, ir.Constant(_BYTES, ir.Undefined), permutation)
                    differences = builder.or_(builder.xor(cards_, partners), past_rows)
                    smallest = builder.select(builder.icmp_unsigned("<", differences, smallest), differences, smallest)
            repeat = builder.icmp_unsigned("==", _reduce(builder, "umin", smallest), ir.Constant(ir.IntType(8), 0))
            too_large = builder.icmp_unsigned(">", _reduce(builder, "umax", largest), ir.Constant(ir.IntType(8), 51))
            return builder.or_(repeat, too_large)

        return types.boolean(cards, start), codegen

    return cast(Callable[[np.ndarray, np.uint64], bool], check)


def _reduce(builder: ir.IRBuilder, operation: str, vector: ir.Value) -> ir.Value:
    """The unsigned minimum or maximum (``operation`` ``"umin"`` or ``"umax"``) of a vector's bytes."""
    name = f"llvm.vector.reduce.{operation}.v{VECTOR_BYTES}i8"
    function = builder.module.globals.get(name)
    if function is None:
        function = ir.Function(builder.module, ir.FunctionType(ir.IntType(8), [_BYTES]), name)
    return builder.call(function, [vector])


_check_five, _check_six, _check_seven = _row_check(5), _row_check(6), _row_check(7)


@njit(cache=True, inline="always")
def _groups_hold_invalid(flat: np.ndarray, width: int, first: int, stop: int) -> bool:
    """Whether the groups ``first`` to ``stop - 1`` of :func:`check_rows` rows of the flat uint8 cards ``flat``
    (rows of ``width`` cards) hold a card above 51 or a row holding a card twice (one call of the width's vector
    check per group)."""
    group_rows, _ = check_rows(width)
    group_bytes = group_rows * width
    found = False
    for group in range(first, stop):
        start = np.uint64(group * group_bytes)
        if width == 7:
            found |= _check_seven(flat, start)
        elif width == 6:
            found |= _check_six(flat, start)
        else:
            found |= _check_five(flat, start)
    return found


@njit(cache=True, parallel=True)
def _chunks_hold_invalid(flat: np.ndarray, width: int, groups: int) -> bool:
    """:func:`_groups_hold_invalid` over the first ``groups`` groups, in parallel chunks."""
    bad = np.zeros(CHECK_CHUNKS, dtype=np.bool_)
    for chunk in prange(CHECK_CHUNKS):
        bad[chunk] = _groups_hold_invalid(flat, width, groups * chunk // CHECK_CHUNKS,
                                          groups * (chunk + 1) // CHECK_CHUNKS)
    return bool(bad.any())


PARALLEL_CHECK_ROWS = 100_000
"""Fewest rows the card check splits over threads: below, starting the parallel loop (2-4 us) costs more than the
check (about 0.2 ns a row of 7 cards, 20 us for this many rows on one thread)."""


@njit(cache=True)
def holds_invalid_card(cards: np.ndarray) -> bool:
    """Whether a C-contiguous ``(N, k)`` uint8 array of cards (5 <= k <= 7) holds a card above 51 or a row
    holding a card twice.

    A pass of its own before :func:`evaluate_rows`: the rows are checked :func:`check_rows` at a time by vector
    compares (:func:`_row_check`; in parallel from :data:`PARALLEL_CHECK_ROWS` rows), the rows after the last such
    group one by one. It costs about 7% of the evaluation (one thread, 7 cards); a check inside the evaluation
    needs every card's bit on every row (the evaluation reads the bits only for flush rows) and ran at 0.45-0.76x
    the unchecked evaluation."""
    count, width = cards.shape
    flat = cards.reshape(-1)
    group_rows, overread = check_rows(width)
    groups = max(0, (flat.size - overread) // (group_rows * width))  # every byte a call reads lies in the array
    for row in range(groups * group_rows, count):
        seen = np.uint64(0)
        for column in range(width):
            card = cards[row, column]
            if card > 51 or seen & (_ONE << np.uint64(card)):
                return True
            seen |= _ONE << np.uint64(card)
    if count < PARALLEL_CHECK_ROWS:
        return _groups_hold_invalid(flat, width, 0, groups)
    return _chunks_hold_invalid(flat, width, groups)


@njit(cache=True)
def narrow_cards(cards: np.ndarray, out: np.ndarray) -> None:
    """Copy the flat integer ``cards`` into the flat uint8 ``out``, a card outside 0..255 as 255 (refused by
    :func:`holds_invalid_card` like any card above 51). This is the pass numpy's cast makes of wide cards on the
    unchecked path, with the range folded in, so that the check costs on int64 cards what it costs on uint8 ones.
    One thread: a parallel loop here kept the compiler from vectorising it and ran 3x slower."""
    for i in range(cards.size):
        out[i] = np.uint8(_card_slot(cards[i]))
