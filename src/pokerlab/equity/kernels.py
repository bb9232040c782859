"""Compiled equity kernels: exact enumeration under suit symmetry, Monte Carlo batches, 1..N opponents.

They assume valid input (distinct cards, non-empty ranges, a feasible deal) and never raise. Players' combos
are flattened into one array (``combo_cards``, ``combo_masks``) with ``starts[p]:starts[p+1]`` the slice of
player ``p``. A *matchup* (joint combo) is a row of ``tuple_index`` giving one combo per player.

Equity shares are kept exactly as integers in units of 1/2520 (the least common multiple of 1..10), so a pot
split ``k`` ways adds ``2520 // k`` units to each tied player and exact counts stay integers.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.kernels import rank_only_value, value_of_key, value_with_two_cards
from pokerlab.cards.tables import RANK_KEY_MASK, ROW_MASK, ROW_SHIFT, EvalTables
from pokerlab.equity.problem import SHARE_UNITS
from pokerlab.stats.rng import GOLDEN, mix64, stream_seed


class ExactInputs(NamedTuple):
    """What the exact enumeration reads: the remaining ``deck`` and ``missing`` board cards, the board's partial
    hand (``board_key``, ``board_bits``), the suit permutations ``perms`` fixing the problem, the flattened combos
    (``combo_cards``, ``combo_masks``), the joint combos (``tuple_index`` rows, their ``tuple_masks`` and
    ``tuple_weights``) and the hand category of every hand value."""

    deck: np.ndarray
    missing: int
    board_key: np.uint64
    board_bits: np.uint64
    perms: np.ndarray
    combo_cards: np.ndarray
    combo_masks: np.ndarray
    tuple_index: np.ndarray
    tuple_masks: np.ndarray
    tuple_weights: np.ndarray
    category_of_value: np.ndarray


class MonteCarloInputs(NamedTuple):
    """What the sampling kernel reads: ``deck`` (the cards left once the board and dead cards are out),
    ``missing`` board cards, the board's partial hand, per player ``is_random`` and ``uniform_weights`` flags
    and the slice ``starts[p]:starts[p + 1]`` of the flattened combos (``combo_cards``, ``combo_masks``,
    ``cumulative`` weights), and the hand category of every hand value."""

    deck: np.ndarray
    missing: int
    board_key: np.uint64
    board_bits: np.uint64
    is_random: np.ndarray
    starts: np.ndarray
    combo_cards: np.ndarray
    combo_masks: np.ndarray
    cumulative: np.ndarray
    uniform_weights: np.ndarray
    category_of_value: np.ndarray


class VersusRandomInputs(NamedTuple):
    """What :func:`versus_random_batch` reads: the ``deck`` left after the board, dead cards and the hand, the
    ``missing`` board cards, the board's partial hand (``board_key``, ``board_bits``), the ``fixed_mask`` of
    board, dead and hole cards, the hand's two cards and the largest number of ``opponents``."""

    deck: np.ndarray
    missing: int
    board_key: np.uint64
    board_bits: np.uint64
    fixed_mask: np.uint64
    hero_first: int
    hero_second: int
    opponents: int


MC_REJECTION_LIMIT = 1_000_000  # consecutive rejected joint draws before a Monte Carlo run gives up
_PLANE = np.uint64(sum(1 << (4 * rank) for rank in range(13)))
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_FOUR = np.uint64(4)
_U11 = np.uint64(11)
_U16 = np.uint64(16)
_LOW16 = np.uint64(0xFFFF)
_TWO16 = np.uint64(1 << 16)
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0
_RANK_KEY_MASK = np.uint64(RANK_KEY_MASK)
_ROW_SHIFT = np.uint64(ROW_SHIFT)
_ROW_MASK = np.uint64(ROW_MASK)


# ---------------------------------------------------------------------------------------------------------
# Suit symmetry


@njit(cache=True, inline="always")
def permute_suits(mask: np.uint64, perm: np.ndarray) -> np.uint64:
    """Image of a card bitmask under the suit relabelling ``suit -> perm[suit]`` (card = 4 * rank + suit)."""
    image = np.uint64(0)
    for suit in range(4):
        image |= ((mask >> np.uint64(suit)) & _PLANE) << np.uint64(perm[suit])
    return image


@njit(cache=True, inline="always")
def orbit_size(mask: np.uint64, perms: np.ndarray) -> int:
    """Size of the orbit of ``mask`` under the group ``perms`` if ``mask`` is its orbit's smallest member
    (the canonical representative), else 0. ``perms[0]`` must be the identity."""
    stabiliser = 1
    for g in range(1, perms.shape[0]):
        image = permute_suits(mask, perms[g])
        if image < mask:
            return 0
        if image == mask:
            stabiliser += 1
    orbit: int = perms.shape[0] // stabiliser
    return orbit


# ---------------------------------------------------------------------------------------------------------
# Exact enumeration


@njit(cache=True, inline="always")
def _score_board(
    key: np.uint64, bits: np.uint64, bmask: np.uint64, mult: int, values: np.ndarray, combo_cards: np.ndarray,
    combo_masks: np.ndarray, tuple_index: np.ndarray, tuple_masks: np.ndarray, tuple_weights: np.ndarray,
    weighted: bool, want_categories: bool, category_of_value: np.ndarray, acc_int: np.ndarray,
    acc_float: np.ndarray, acc_cat: np.ndarray, card_keys: np.ndarray, card_bits: np.ndarray,
    flush_values: np.ndarray, row_offsets: np.ndarray, rank_values: np.ndarray,
) -> None:
    """Evaluate every combo on one complete board once, then score every matchup that fits the board."""
    for c in range(combo_cards.shape[0]):
        if combo_masks[c] & bmask:
            values[c] = 0
        else:
            values[c] = value_with_two_cards(key, bits, combo_cards[c, 0], combo_cards[c, 1], card_keys, card_bits,
                                             flush_values, row_offsets, rank_values)
    players = tuple_index.shape[1]
    for t in range(tuple_index.shape[0]):
        if tuple_masks[t] & bmask:
            continue
        best = 0
        tied = 0
        for p in range(players):
            v = values[tuple_index[t, p]]
            if v > best:
                best = v
                tied = 1
            elif v == best:
                tied += 1
        share = SHARE_UNITS // tied
        weight = mult * tuple_weights[t] if weighted else 1.0
        acc_int[players, 0] += mult
        if weighted:
            acc_float[players, 0] += weight
        for p in range(players):
            v = values[tuple_index[t, p]]
            if v == best:
                if tied == 1:
                    acc_int[p, 0] += mult
                else:
                    acc_int[p, 1] += mult
                acc_int[p, 2] += mult * share
                if weighted:
                    if tied == 1:
                        acc_float[p, 0] += weight
                    else:
                        acc_float[p, 1] += weight
                    acc_float[p, 2] += weight / tied
            if want_categories:
                category = category_of_value[v]
                w = weight if weighted else float(mult)
                acc_cat[p, 0, category] += w
                if v == best:
                    acc_cat[p, 1, category] += w / tied


@njit(cache=True, inline="always")
def _add_two_way_counts(acc_int: np.ndarray, mult: int, valid: int, first: int, second: int, ties: int) -> None:
    """Add one board's heads-up showdown counts, ``mult`` times (the board's orbit), to the integer accumulators:
    showdowns, wins of each player, ties, and the equity shares in ``SHARE_UNITS``."""
    acc_int[2, 0] += mult * valid
    acc_int[0, 0] += mult * first
    acc_int[1, 0] += mult * second
    acc_int[0, 1] += mult * ties
    acc_int[1, 1] += mult * ties
    acc_int[0, 2] += mult * (SHARE_UNITS * first + SHARE_UNITS // 2 * ties)
    acc_int[1, 2] += mult * (SHARE_UNITS * second + SHARE_UNITS // 2 * ties)


@njit(cache=True, inline="always")
def _score_board_heads_up(
    key: np.uint64, bits: np.uint64, bmask: np.uint64, mult: int, values: np.ndarray, combo_cards: np.ndarray,
    combo_masks: np.ndarray, tuple_index: np.ndarray, tuple_masks: np.ndarray, tuple_weights: np.ndarray,
    weighted: bool, acc_int: np.ndarray, acc_float: np.ndarray, card_keys: np.ndarray, card_bits: np.ndarray,
    flush_values: np.ndarray, row_offsets: np.ndarray, rank_values: np.ndarray,
) -> None:
    """Two players, any ranges: like :func:`_score_board` with the board's totals kept in registers and added
    once per board (adding to the accumulator arrays per matchup chained every matchup on a store)."""
    for c in range(combo_cards.shape[0]):
        if combo_masks[c] & bmask:
            values[c] = 0
        else:
            values[c] = value_with_two_cards(key, bits, combo_cards[c, 0], combo_cards[c, 1], card_keys, card_bits,
                                             flush_values, row_offsets, rank_values)
    valid = 0
    first_wins = 0
    second_wins = 0
    wsum = 0.0
    wfirst = 0.0
    wsecond = 0.0
    for t in range(tuple_index.shape[0]):
        if tuple_masks[t] & bmask:
            continue
        first = values[tuple_index[t, 0]]
        second = values[tuple_index[t, 1]]
        valid += 1
        first_wins += first > second
        second_wins += second > first
        if weighted:
            w = tuple_weights[t]
            wsum += w
            if first > second:
                wfirst += w
            elif second > first:
                wsecond += w
    _add_two_way_counts(acc_int, mult, valid, first_wins, second_wins, valid - first_wins - second_wins)
    if weighted:
        wtie = wsum - wfirst - wsecond
        acc_float[2, 0] += mult * wsum
        acc_float[0, 0] += mult * wfirst
        acc_float[1, 0] += mult * wsecond
        acc_float[0, 1] += mult * wtie
        acc_float[1, 1] += mult * wtie
        acc_float[0, 2] += mult * (wfirst + 0.5 * wtie)
        acc_float[1, 2] += mult * (wsecond + 0.5 * wtie)


@njit(cache=True, inline="always")
def _score_board_hero(
    key: np.uint64, bits: np.uint64, bmask: np.uint64, mult: int, combo_cards: np.ndarray, combo_masks: np.ndarray,
    tuple_weights: np.ndarray, weighted: bool, acc_int: np.ndarray, acc_float: np.ndarray, card_keys: np.ndarray,
    card_bits: np.ndarray, flush_values: np.ndarray, row_offsets: np.ndarray, rank_values: np.ndarray,
) -> None:
    """Heads-up with player 0 a single combo (``combo 0``) against the combos ``1..M-1`` of player 1: no value
    buffer and no matchup list, one evaluation and two comparisons per opponent combo."""
    if combo_masks[0] & bmask:
        return
    hero = value_with_two_cards(key, bits, combo_cards[0, 0], combo_cards[0, 1], card_keys, card_bits, flush_values,
                                row_offsets, rank_values)
    wins = 0
    ties = 0
    valid = 0
    wsum = 0.0
    wwin = 0.0
    wtie = 0.0
    for c in range(1, combo_cards.shape[0]):
        if combo_masks[c] & bmask:
            continue
        v = value_with_two_cards(key, bits, combo_cards[c, 0], combo_cards[c, 1], card_keys, card_bits, flush_values,
                                 row_offsets, rank_values)
        valid += 1
        wins += v < hero  # type: ignore[assignment]  # numba: a bool counts as 0 or 1
        ties += v == hero
        if weighted:
            w = tuple_weights[c - 1]
            wsum += w
            if v < hero:
                wwin += w
            elif v == hero:
                wtie += w
    _add_two_way_counts(acc_int, mult, valid, wins, valid - wins - ties, ties)
    if weighted:
        acc_float[2, 0] += mult * wsum
        acc_float[0, 0] += mult * wwin
        acc_float[1, 0] += mult * (wsum - wwin - wtie)
        acc_float[0, 1] += mult * wtie
        acc_float[1, 1] += mult * wtie
        acc_float[0, 2] += mult * (wwin + 0.5 * wtie)
        acc_float[1, 2] += mult * (wsum - wwin - 0.5 * wtie)


@njit(cache=True, inline="always")
def _score_board_vs_random(
    key: np.uint64, bits: np.uint64, bmask: np.uint64, mult: int, deck: np.ndarray, combo_cards: np.ndarray,
    combo_masks: np.ndarray, acc_int: np.ndarray, left: np.ndarray, counts: np.ndarray, flush_cards: np.ndarray,
    card_keys: np.ndarray, card_bits: np.ndarray, flush_values: np.ndarray, row_offsets: np.ndarray,
    rank_values: np.ndarray,
) -> None:
    """Heads-up, player 0 a single combo against a uniformly random hand.

    Opponent hands that cannot make a flush have a value that depends on their two ranks only, so they are
    counted per rank pair (91 lookups for up to 990 combos): ``n_r1 * n_r2`` combos (``C(n_r, 2)`` for a
    pair), less those that could make a flush. Only those (both cards of a suit the board has three of; at
    least one card of a suit it has four of) are evaluated one by one. A five-flush board is done combo by
    combo.
    """
    if combo_masks[0] & bmask:
        return
    hero = value_with_two_cards(key, bits, combo_cards[0, 0], combo_cards[0, 1], card_keys, card_bits, flush_values,
                                row_offsets, rank_values)
    dead = bmask | combo_masks[0]
    counts[:] = 0  # buffers of the calling thread, reused board after board
    flush_cards[:] = 0
    flush_suit = -1
    on_board = 0
    for suit in range(4):
        count = np.int64((key >> np.uint64(32 + 4 * suit)) & np.uint64(0xF)) - 3
        if count >= 3:
            flush_suit = suit
            on_board = count  # type: ignore[assignment]  # numba: int64 is the int of compiled code
    n = 0
    for i in range(deck.shape[0]):
        card = deck[i]
        if not (dead & (_ONE << np.uint64(card))):
            left[n] = card
            n += 1
            counts[card >> 2] += 1
            if (card & 3) == flush_suit:
                flush_cards[card >> 2] = 1
    wins = 0
    ties = 0
    if on_board == 5:
        for i in range(n):
            k6 = key + card_keys[left[i]]
            b6 = bits | card_bits[left[i]]
            for j in range(i + 1, n):
                v = value_of_key(k6 + card_keys[left[j]], b6 | card_bits[left[j]], flush_values, row_offsets,
                                 rank_values)
                wins += v < hero  # type: ignore[assignment]  # numba: a bool counts as 0 or 1
                ties += v == hero
    else:
        rank_base = key & _RANK_KEY_MASK
        for r1 in range(13):
            n1 = counts[r1]
            if n1 == 0:
                continue
            plain1 = n1 - flush_cards[r1] if on_board == 4 else n1
            m1 = card_keys[4 * r1] & _RANK_KEY_MASK
            c = plain1 * (plain1 - 1) // 2
            if c > 0:
                v = rank_only_value(rank_base + m1 + m1, row_offsets, rank_values)
                wins += c * (v < hero)
                ties += c * (v == hero)
            for r2 in range(r1 + 1, 13):
                n2 = counts[r2]
                if n2 == 0:
                    continue
                if on_board == 4:
                    c = plain1 * (n2 - flush_cards[r2])
                elif on_board == 3:
                    c = n1 * n2 - flush_cards[r1] * flush_cards[r2]
                else:
                    c = n1 * n2
                if c > 0:
                    v = rank_only_value(rank_base + m1 + (card_keys[4 * r2] & _RANK_KEY_MASK), row_offsets, rank_values)
                    wins += c * (v < hero)
                    ties += c * (v == hero)
        if on_board >= 3:
            for i in range(n):
                first_flush = (left[i] & 3) == flush_suit
                if on_board == 3 and not first_flush:
                    continue
                k6 = key + card_keys[left[i]]
                b6 = bits | card_bits[left[i]]
                for j in range(i + 1, n):
                    second_flush = (left[j] & 3) == flush_suit
                    if on_board == 3:
                        if not second_flush:
                            continue
                    elif not (first_flush or second_flush):
                        continue
                    v = value_of_key(k6 + card_keys[left[j]], b6 | card_bits[left[j]], flush_values, row_offsets,
                                     rank_values)
                    wins += v < hero  # type: ignore[assignment]  # numba: a bool counts as 0 or 1
                    ties += v == hero
    valid = n * (n - 1) // 2
    _add_two_way_counts(acc_int, mult, valid, wins, valid - wins - ties, ties)


@njit(cache=True, inline="always")
def _keep(
    key: np.uint64, bits: np.uint64, bmask: np.uint64, perms: np.ndarray, buf_key: np.ndarray, buf_bits: np.ndarray,
    buf_mask: np.ndarray, buf_mult: np.ndarray, count: int,
) -> int:
    """Append a board completion to the thread's buffer if it is its orbit's canonical member."""
    mult = orbit_size(bmask, perms)
    if mult > 0:
        buf_key[count] = key
        buf_bits[count] = bits
        buf_mask[count] = bmask
        buf_mult[count] = mult
        return count + 1
    return count


class BoardBuffer(NamedTuple):
    """One thread's canonical boards of a work unit: partial-hand ``key`` and ``bits``, card ``mask`` and orbit
    size ``mult`` of each (room for every completion of the largest unit)."""

    key: np.ndarray
    bits: np.ndarray
    mask: np.ndarray
    mult: np.ndarray


@njit(cache=True)
def _board_buffer(inputs: ExactInputs) -> BoardBuffer:
    """A :class:`BoardBuffer` large enough for any work unit of ``inputs``: ``C(n, missing - 2)`` boards."""
    n = inputs.deck.shape[0]
    capacity = 1
    for r in range(max(inputs.missing - 2, 0)):
        capacity = capacity * (n - r) // (r + 1)
    return BoardBuffer(np.empty(capacity, dtype=np.uint64), np.empty(capacity, dtype=np.uint64),
                       np.empty(capacity, dtype=np.uint64), np.empty(capacity, dtype=np.int64))


@njit(cache=True)
def _canonical_boards(inputs: ExactInputs, first: int, second: int, keys: np.ndarray, cbits: np.ndarray,
                      boards: BoardBuffer) -> int:
    """Fill ``boards`` with the canonical completions of the work unit whose first two deck indices are ``first``
    and ``second`` (the rest of the board from later indices, one card's key added at a time); their count.

    Its own compiled function, called once per unit by each scoring kernel: the board walk (five nested loops,
    each with the symmetry test) is compiled once and cached, not again inside every kernel."""
    deck, missing, perms = inputs.deck, inputs.missing, inputs.perms
    buf_key, buf_bits, buf_mask, buf_mult = boards.key, boards.bits, boards.mask, boards.mult
    n = deck.shape[0]
    if missing == 0:
        return _keep(inputs.board_key, inputs.board_bits, np.uint64(0), perms, buf_key, buf_bits, buf_mask,
                     buf_mult, 0)
    c1 = deck[first]
    k1 = inputs.board_key + keys[c1]
    b1 = inputs.board_bits | cbits[c1]
    m1 = _ONE << np.uint64(c1)
    if missing == 1:
        return _keep(k1, b1, m1, perms, buf_key, buf_bits, buf_mask, buf_mult, 0)
    c2 = deck[second]
    k2 = k1 + keys[c2]
    b2 = b1 | cbits[c2]
    m2 = m1 | (_ONE << np.uint64(c2))
    if missing == 2:
        return _keep(k2, b2, m2, perms, buf_key, buf_bits, buf_mask, buf_mult, 0)
    count = 0
    for a in range(second + 1, n):
        c3 = deck[a]
        k3 = k2 + keys[c3]
        b3 = b2 | cbits[c3]
        m3 = m2 | (_ONE << np.uint64(c3))
        if missing == 3:
            count = _keep(k3, b3, m3, perms, buf_key, buf_bits, buf_mask, buf_mult, count)
            continue
        for b in range(a + 1, n):
            c4 = deck[b]
            k4 = k3 + keys[c4]
            b4 = b3 | cbits[c4]
            m4 = m3 | (_ONE << np.uint64(c4))
            if missing == 4:
                count = _keep(k4, b4, m4, perms, buf_key, buf_bits, buf_mask, buf_mult, count)
                continue
            for c in range(b + 1, n):
                c5 = deck[c]
                count = _keep(k4 + keys[c5], b4 | cbits[c5], m4 | (_ONE << np.uint64(c5)), perms, buf_key,
                              buf_bits, buf_mask, buf_mult, count)
    return count


@njit(cache=True)
def _unit_accumulators(units: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed ``acc_int``, ``acc_float`` and ``acc_cat`` of :func:`exact_enumeration`, one row per unit."""
    return (np.zeros((units.shape[0], players + 1, 3), dtype=np.int64),
            np.zeros((units.shape[0], players + 1, 3), dtype=np.float64),
            np.zeros((units.shape[0], players, 2, 9), dtype=np.float64))


# One kernel per scoring loop: the route a problem takes compiles only its own (the four were one kernel of about
# 40 s of compilation, every caller compiling all four). They share the board walk (:func:`_canonical_boards`,
# compiled once). Thread ``t`` takes units ``t, t + threads, ...`` (balanced when units are sorted by decreasing
# work), buffers a unit's canonical boards, scores them into its own accumulators (neighbouring units' rows would
# share cache lines between threads) and copies those into the unit's row. (Moving a thread's loop into a plain
# compiled function called from the parallel loop compiled no faster, and ran the loops 1.5-3x slower.)


@njit(cache=True, parallel=True)
def exact_general(inputs: ExactInputs, units: np.ndarray, threads: int, weighted: bool, want_categories: bool,
                  tables: EvalTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`exact_enumeration` by the general loop: any players and ranges, hand categories if asked."""
    players = inputs.tuple_index.shape[1]
    acc_int, acc_float, acc_cat = _unit_accumulators(units, players)
    combo_cards, combo_masks, category_of_value = inputs.combo_cards, inputs.combo_masks, inputs.category_of_value
    tuple_index, tuple_masks, tuple_weights = inputs.tuple_index, inputs.tuple_masks, inputs.tuple_weights
    # the evaluator's arrays, read out of the bundle once (inside the loops every read takes a reference)
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    for thread in prange(threads):
        boards = _board_buffer(inputs)
        buf_key, buf_bits, buf_mask, buf_mult = boards  # read out once: each read from the bundle takes a reference
        values = np.zeros(combo_cards.shape[0], dtype=np.uint16)
        thread_int = np.zeros((players + 1, 3), dtype=np.int64)
        thread_float = np.zeros((players + 1, 3), dtype=np.float64)
        thread_cat = np.zeros((players, 2, 9), dtype=np.float64)
        for u in range(thread, units.shape[0], threads):
            count = _canonical_boards(inputs, units[u, 0], units[u, 1], card_keys, card_bits, boards)
            for i in range(count):
                _score_board(buf_key[i], buf_bits[i], buf_mask[i], buf_mult[i], values, combo_cards,
                             combo_masks, tuple_index, tuple_masks, tuple_weights, weighted, want_categories,
                             category_of_value, thread_int, thread_float, thread_cat, card_keys, card_bits,
                             flush_values, row_offsets, rank_values)
            acc_int[u] = thread_int
            acc_float[u] = thread_float
            acc_cat[u] = thread_cat
            thread_int[:] = 0
            thread_float[:] = 0.0
            thread_cat[:] = 0.0
    return acc_int, acc_float, acc_cat


@njit(cache=True, parallel=True)
def exact_hand_vs_range(inputs: ExactInputs, units: np.ndarray, threads: int, weighted: bool,
                        tables: EvalTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`exact_enumeration` of one combo (combo 0) against a range (combos 1..M-1)."""
    acc_int, acc_float, acc_cat = _unit_accumulators(units, 2)
    combo_cards, combo_masks, tuple_weights = inputs.combo_cards, inputs.combo_masks, inputs.tuple_weights
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    for thread in prange(threads):
        boards = _board_buffer(inputs)
        buf_key, buf_bits, buf_mask, buf_mult = boards  # read out once: each read from the bundle takes a reference
        thread_int = np.zeros((3, 3), dtype=np.int64)
        thread_float = np.zeros((3, 3), dtype=np.float64)
        for u in range(thread, units.shape[0], threads):
            count = _canonical_boards(inputs, units[u, 0], units[u, 1], card_keys, card_bits, boards)
            for i in range(count):
                _score_board_hero(buf_key[i], buf_bits[i], buf_mask[i], buf_mult[i], combo_cards,
                                  combo_masks, tuple_weights, weighted, thread_int, thread_float, card_keys, card_bits,
                                  flush_values, row_offsets, rank_values)
            acc_int[u] = thread_int
            acc_float[u] = thread_float
            thread_int[:] = 0
            thread_float[:] = 0.0
    return acc_int, acc_float, acc_cat


@njit(cache=True, parallel=True)
def exact_hand_vs_random(inputs: ExactInputs, units: np.ndarray, threads: int,
                         tables: EvalTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`exact_enumeration` of one combo (combo 0) against a uniformly random hand, unweighted."""
    acc_int, acc_float, acc_cat = _unit_accumulators(units, 2)
    deck, combo_cards, combo_masks = inputs.deck, inputs.combo_cards, inputs.combo_masks
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    for thread in prange(threads):
        boards = _board_buffer(inputs)
        buf_key, buf_bits, buf_mask, buf_mult = boards  # read out once: each read from the bundle takes a reference
        left = np.empty(52, dtype=np.uint8)
        rank_counts = np.zeros(13, dtype=np.int64)
        flush_cards = np.zeros(13, dtype=np.int64)
        thread_int = np.zeros((3, 3), dtype=np.int64)
        for u in range(thread, units.shape[0], threads):
            count = _canonical_boards(inputs, units[u, 0], units[u, 1], card_keys, card_bits, boards)
            for i in range(count):
                _score_board_vs_random(buf_key[i], buf_bits[i], buf_mask[i], buf_mult[i], deck, combo_cards,
                                       combo_masks, thread_int, left, rank_counts, flush_cards, card_keys, card_bits,
                                       flush_values, row_offsets, rank_values)
            acc_int[u] = thread_int
            thread_int[:] = 0
    return acc_int, acc_float, acc_cat


@njit(cache=True, parallel=True)
def exact_heads_up(inputs: ExactInputs, units: np.ndarray, threads: int, weighted: bool,
                   tables: EvalTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`exact_enumeration` of two players with any ranges, the board's totals kept in registers."""
    acc_int, acc_float, acc_cat = _unit_accumulators(units, 2)
    combo_cards, combo_masks = inputs.combo_cards, inputs.combo_masks
    tuple_index, tuple_masks, tuple_weights = inputs.tuple_index, inputs.tuple_masks, inputs.tuple_weights
    card_keys, card_bits = tables.card_keys, tables.card_bits
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    for thread in prange(threads):
        boards = _board_buffer(inputs)
        buf_key, buf_bits, buf_mask, buf_mult = boards  # read out once: each read from the bundle takes a reference
        values = np.zeros(combo_cards.shape[0], dtype=np.uint16)
        thread_int = np.zeros((3, 3), dtype=np.int64)
        thread_float = np.zeros((3, 3), dtype=np.float64)
        for u in range(thread, units.shape[0], threads):
            count = _canonical_boards(inputs, units[u, 0], units[u, 1], card_keys, card_bits, boards)
            for i in range(count):
                _score_board_heads_up(buf_key[i], buf_bits[i], buf_mask[i], buf_mult[i], values, combo_cards,
                                      combo_masks, tuple_index, tuple_masks, tuple_weights, weighted, thread_int,
                                      thread_float, card_keys, card_bits, flush_values, row_offsets, rank_values)
            acc_int[u] = thread_int
            acc_float[u] = thread_float
            thread_int[:] = 0
            thread_float[:] = 0.0
    return acc_int, acc_float, acc_cat


def exact_enumeration(inputs: ExactInputs, units: np.ndarray, threads: int, weighted: bool, want_categories: bool,
                      hero_mode: int, tables: EvalTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate every way to complete the board with ``missing`` cards from ``deck`` (up to suit symmetry),
    and score every matchup on each canonical board, weighted by the board's orbit size.

    ``units`` is an ``(U, 2)`` array of the first one or two deck indices of each work unit (the rest of the
    board is enumerated from later indices); thread ``t`` of ``threads`` takes units ``t, t + threads, ...``.
    ``hero_mode`` picks the scoring kernel, and only that one is compiled: 0 the general loop
    (:func:`exact_general`, the only one that keeps hand categories); 1 two players, player 0 one combo,
    matchup ``t`` = player 1's combo ``t + 1`` (:func:`exact_hand_vs_range`, no value buffer); 2 the same with
    player 1 uniformly random, unweighted (:func:`exact_hand_vs_random`, the opponent's hands counted per rank
    pair); 3 two players, any ranges (:func:`exact_heads_up`, the board's totals in registers). Returns the
    accumulators of every unit: ``acc_int`` ``(U, P+1, 3)`` int64 (per player wins, ties, share units; row P
    column 0 the showdowns), ``acc_float`` the same weighted, and ``acc_cat`` ``(U, P, 2, 9)`` (category
    frequency and equity share by final hand category). Per unit, not per thread: the caller sums them in unit
    order, so floating-point totals do not depend on the thread count or on how the units were split into
    calls.
    """
    if hero_mode == 1:
        return exact_hand_vs_range(inputs, units, threads, weighted, tables)
    if hero_mode == 2:
        return exact_hand_vs_random(inputs, units, threads, tables)
    if hero_mode == 3:
        return exact_heads_up(inputs, units, threads, weighted, tables)
    return exact_general(inputs, units, threads, weighted, want_categories, tables)


# ---------------------------------------------------------------------------------------------------------
# Monte Carlo. Random numbers: splitmix64 (pokerlab.stats.rng), one stream per (seed, batch, chunk), so results
# do not depend on threads; the stream's counter and a buffer of unused random bits are kept in local variables
# (registers), and each 64-bit draw gives four 16-bit numbers.


@njit(cache=True, inline="always")
def _random16(counter: np.uint64, buffer: np.uint64, left: np.uint64
              ) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """16 random bits from ``buffer``, refilled with the stream's next 64 bits (``counter`` advanced by
    ``GOLDEN``, draw ``mix64(counter)``: :func:`pokerlab.stats.rng.next_u64` on a local counter) when its
    ``left`` 16-bit pieces are used up. Returns the bits and the new ``(counter, buffer, left)``."""
    if left == _ZERO:
        counter += GOLDEN
        buffer = mix64(counter)
        left = _FOUR
    return buffer & _LOW16, counter, buffer >> _U16, left - _ONE


@njit(cache=True, inline="always")
def _below16(n: np.uint64, counter: np.uint64, buffer: np.uint64, left: np.uint64
             ) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Uniform integer in ``[0, n)``, ``1 <= n <= 65536``, without bias: Lemire's multiply-and-reject on 16-bit
    pieces (a piece is rejected with probability ``(65536 mod n) / 65536``, below 0.08% for a deck; the modulo
    is computed only in the rare case that needs it). Returns the integer and the new stream state."""
    while True:
        bits, counter, buffer, left = _random16(counter, buffer, left)
        product = bits * n
        low = product & _LOW16
        if low >= n or low >= _TWO16 % n:
            return product >> _U16, counter, buffer, left


@njit(cache=True, inline="always")
def _deal_card(cards: np.ndarray, position: int, size: int, blocked: np.uint64, counter: np.uint64,
               buffer: np.uint64, left: np.uint64) -> tuple[int, np.uint64, np.uint64, np.uint64]:
    """One step of a partial Fisher-Yates shuffle of ``cards[:size]``: a uniform card of ``cards[position:size]``
    not in ``blocked`` is swapped to ``position`` and returned (with the new stream state). No card already
    dealt can come again, so nothing is rejected unless ``blocked`` (cards of combos drawn from ranges) holds
    one of the cards left. Starting from any order of the cards, the dealt prefix is uniform: the shuffle
    carries on from the previous deal's order, with no reset."""
    here = np.uint64(position)  # unsigned indices: no code for negative ones
    while True:
        offset, counter, buffer, left = _below16(np.uint64(size) - here, counter, buffer, left)
        index = here + offset
        card = cards[index]
        if not (blocked & (_ONE << np.uint64(card))):
            cards[index] = cards[here]
            cards[here] = card
            return np.int64(card), counter, buffer, left  # type: ignore[return-value]  # numba's int


@njit(cache=True, inline="always")
def _sample_combo(start: int, stop: int, cumulative: np.ndarray, uniform_weights: bool, counter: np.uint64,
                  buffer: np.uint64, left: np.uint64) -> tuple[int, np.uint64, np.uint64, np.uint64]:
    """A combo index in ``start:stop`` drawn with probability proportional to its weight (``cumulative`` holds
    the running sums), and the new stream state."""
    if uniform_weights:
        offset, counter, buffer, left = _below16(np.uint64(stop - start), counter, buffer, left)
        return start + np.int64(offset), counter, buffer, left  # type: ignore[return-value]  # numba's int
    counter += GOLDEN
    u = float(mix64(counter) >> _U11) * _TWO_TO_MINUS_53 * cumulative[stop - 1]
    lo, hi = start, stop - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo, counter, buffer, left


@njit(cache=True, inline="always")
def _live_cards(deck: np.ndarray, out: np.uint64) -> np.ndarray:
    """The cards of ``deck`` not in the bitmask ``out``, in deck order."""
    live = np.empty(deck.shape[0], dtype=np.uint8)
    size = 0
    for card in deck:
        if not (out & (_ONE << np.uint64(card))):
            live[size] = card
            size += 1
    return live[:size]


@njit(cache=True, inline="always")
def _popcount(mask: int) -> int:
    """Number of bits set in a small non-negative integer (a set of players)."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, parallel=True)
def monte_carlo_batch(seed: np.uint64, batch: int, trials: int, chunks: int, inputs: MonteCarloInputs,
                      want_categories: bool, tables: EvalTables) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` random showdowns in ``chunks`` independent streams (in parallel).

    Players holding a range (more than one combo, not ``is_random``) draw a combo from their weighted range, and
    the joint draw is rejected and redrawn while any two conflict (so the joint combo is uniform over
    non-conflicting joint combos, weighted by the product of weights). Then the random players' cards and the
    board are dealt by a partial Fisher-Yates shuffle of the cards left once the board, dead cards and exact
    hands are out (cards of the drawn combos are skipped). Every player uses exactly two cards, so the number
    of ways to deal the random players and the board afterwards is the same for every accepted joint combo:
    dealing them uniformly from the remaining deck keeps it unbiased.

    Showdowns are counted by their set of winners (one add per showdown); the totals are made from those counts
    at the end. Returns ``stats`` ``(P, 4)`` (sum of equity shares, sum of squared shares, wins, ties; NaN when
    the ranges could not be dealt together) and ``cats`` ``(P, 2, 9)`` (final hand category frequency and share
    by category).
    """
    deck, missing, board_key, board_bits = inputs.deck, inputs.missing, inputs.board_key, inputs.board_bits
    is_random, starts = inputs.is_random, inputs.starts
    combo_cards, combo_masks = inputs.combo_cards, inputs.combo_masks
    cumulative, uniform_weights, category_of_value = inputs.cumulative, inputs.uniform_weights, inputs.category_of_value
    card_keys, card_bits = tables.card_keys, tables.card_bits  # read once: see exact_enumeration
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    players = starts.shape[0] - 1
    exact_mask = np.uint64(0)  # the exact hands' cards: out of the shuffled deck
    has_ranges = False
    for p in range(players):
        if not is_random[p]:
            if starts[p + 1] - starts[p] == 1:
                exact_mask |= combo_masks[starts[p]]
            else:
                has_ranges = True
    live = _live_cards(deck, exact_mask)
    size = live.shape[0]
    by_winners = np.zeros((chunks, 1 << players), dtype=np.int64)
    cats = np.zeros((chunks, players, 2, 9), dtype=np.float64)
    failed = np.zeros(chunks, dtype=np.bool_)
    for chunk in prange(chunks):
        counter = stream_seed(seed, batch, chunk)
        buffer = _ZERO
        left = _ZERO
        begin = trials * chunk // chunks
        end = trials * (chunk + 1) // chunks
        cards = live.copy()
        counts = np.zeros(1 << players, dtype=np.int64)  # by set of winners (local: no shared cache lines)
        local_cats = np.zeros((players, 2, 9))
        keys = np.zeros(players, dtype=np.uint64)
        bitss = np.zeros(players, dtype=np.uint64)
        values = np.zeros(players, dtype=np.int64)
        for p in range(players):
            if not is_random[p]:
                c = starts[p]
                keys[p] = card_keys[combo_cards[c, 0]] + card_keys[combo_cards[c, 1]]
                bitss[p] = card_bits[combo_cards[c, 0]] | card_bits[combo_cards[c, 1]]
        for _ in range(begin, end):
            # 1. ranges by joint rejection (bounded, so ranges that cannot be dealt together end the run)
            blocked = np.uint64(0)
            if has_ranges:
                attempts = 0
                while True:
                    attempts += 1
                    if attempts > MC_REJECTION_LIMIT:
                        failed[chunk] = True
                        break
                    blocked = exact_mask
                    ok = True
                    for p in range(players):
                        if is_random[p] or starts[p + 1] - starts[p] == 1:
                            continue
                        c, counter, buffer, left = _sample_combo(starts[p], starts[p + 1], cumulative,
                                                                 uniform_weights[p], counter, buffer, left)
                        if combo_masks[c] & blocked:
                            ok = False
                            break
                        blocked |= combo_masks[c]
                        keys[p] = card_keys[combo_cards[c, 0]] + card_keys[combo_cards[c, 1]]
                        bitss[p] = card_bits[combo_cards[c, 0]] | card_bits[combo_cards[c, 1]]
                    if ok:
                        break
                if failed[chunk]:
                    break
            # 2. random players and the board: a partial shuffle of the cards left
            position = 0
            for p in range(players):
                if is_random[p]:
                    a, counter, buffer, left = _deal_card(cards, position, size, blocked, counter, buffer, left)
                    b, counter, buffer, left = _deal_card(cards, position + 1, size, blocked, counter, buffer, left)
                    position += 2
                    keys[p] = card_keys[a] + card_keys[b]
                    bitss[p] = card_bits[a] | card_bits[b]
            key = board_key
            bits = board_bits
            for _j in range(missing):
                card, counter, buffer, left = _deal_card(cards, position, size, blocked, counter, buffer, left)
                position += 1
                key += card_keys[card]
                bits |= card_bits[card]
            # 3. showdown, branch-free: which player wins is a coin flip the branch predictor cannot learn
            best = 0
            for p in range(players):
                v = np.int64(value_of_key(key + keys[p], bits | bitss[p], flush_values, row_offsets, rank_values))
                values[p] = v
                best = max(best, v)  # type: ignore[assignment]  # numba: uint16 hand values compare as ints
            winners = 0
            for p in range(players):
                winners |= (values[p] == best) << p
            counts[winners] += 1
            if want_categories:
                share = 1.0 / _popcount(winners)
                for p in range(players):
                    category = category_of_value[values[p]]
                    local_cats[p, 0, category] += 1.0
                    if values[p] == best:
                        local_cats[p, 1, category] += share
        by_winners[chunk] = counts
        cats[chunk] = local_cats
    stats = np.zeros((players, 4), dtype=np.float64)
    totals = by_winners.sum(axis=0)
    for winners in range(1, 1 << players):
        count = totals[winners]
        if count == 0:
            continue
        tied = _popcount(winners)
        share = 1.0 / tied
        for p in range(players):
            if (winners >> p) & 1:
                stats[p, 0] += count * share
                stats[p, 1] += count * share * share
                stats[p, 2 if tied == 1 else 3] += count
    if failed.any():
        stats[:, :] = np.nan  # the caller raises: the ranges (almost) never fit together
    return stats, cats.sum(axis=0)


@njit(cache=True, parallel=True)
def versus_random_batch(seed: np.uint64, batch: int, trials: int, chunks: int, inputs: VersusRandomInputs,
                        tables: EvalTables) -> np.ndarray:
    """Equity of one hand against 1..``opponents`` random hands from the same deals.

    Each trial deals the board, then opponents one at a time (a partial Fisher-Yates shuffle of the deck, see
    :func:`monte_carlo_batch`); once an opponent beats the hero, the hero has lost against every larger number
    of opponents, so no more cards are dealt. A hero tied with ``t`` of the first ``n`` opponents (and beaten
    by none) gets ``1 / (t + 1)`` against ``n``.

    Returns ``(opponents, 4)``: sum of shares, sum of squared shares, wins, ties, for 1..N opponents.
    """
    deck, missing, board_key, board_bits = inputs.deck, inputs.missing, inputs.board_key, inputs.board_bits
    hero_first, hero_second, opponents = inputs.hero_first, inputs.hero_second, inputs.opponents
    card_keys, card_bits = tables.card_keys, tables.card_bits  # read once: see exact_enumeration
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    live = _live_cards(deck, inputs.fixed_mask)
    size = live.shape[0]
    nothing = np.uint64(0)
    stats = np.zeros((chunks, opponents, 4), dtype=np.float64)
    for chunk in prange(chunks):
        counter = stream_seed(seed, batch, chunk)
        buffer = _ZERO
        left = _ZERO
        cards = live.copy()
        begin = trials * chunk // chunks
        end = trials * (chunk + 1) // chunks
        local = np.zeros((opponents + 8, 4))  # padded against false sharing
        for _ in range(begin, end):
            key = board_key
            bits = board_bits
            hero = np.int64(0)
            ties = 0
            first = 0
            # the board, then two cards per opponent, in one loop (one inlined copy of the dealing code)
            for position in range(missing + 2 * opponents):
                card, counter, buffer, left = _deal_card(cards, position, size, nothing, counter, buffer, left)
                if position < missing:
                    key += card_keys[card]
                    bits |= card_bits[card]
                    continue
                if position == missing:
                    hero = np.int64(value_with_two_cards(key, bits, hero_first, hero_second, card_keys, card_bits,
                                                         flush_values, row_offsets, rank_values))
                n = (position - missing) >> 1
                if (position - missing) & 1 == 0:
                    first = card
                    continue
                v = value_with_two_cards(key, bits, first, card, card_keys, card_bits, flush_values, row_offsets,
                                         rank_values)
                if v > hero:
                    break  # a loss against n+1 and every larger number of opponents: shares stay 0
                if v == hero:
                    ties += 1
                share = 1.0 / (ties + 1)
                local[n, 0] += share
                local[n, 1] += share * share
                if ties == 0:
                    local[n, 2] += 1.0
                else:
                    local[n, 3] += 1.0
        stats[chunk] = local[:opponents]
    totals: np.ndarray = stats.sum(axis=0)
    return totals


# ---------------------------------------------------------------------------------------------------------
# Exact enumeration when every player holds one known hand: by board ranks, then the flush boards


class FixedHandsInputs(NamedTuple):
    """What :func:`fixed_hands_enumeration` reads: the remaining ``deck`` (board and dead cards out), the
    ``missing`` board cards, the board's partial hand (``board_key``, ``board_bits``) and ``R`` deals of known
    hands: ``hand_keys`` and ``hand_bits`` ``(R, P)`` (each player's two hole cards as a partial hand,
    ``SUIT_BIAS`` not included), ``hand_masks`` ``(R,)`` (every card of the deal) and ``multiplicity`` ``(R,)``
    (how many times the deal counts)."""

    deck: np.ndarray
    missing: int
    board_key: np.uint64
    board_bits: np.uint64
    hand_keys: np.ndarray
    hand_bits: np.ndarray
    hand_masks: np.ndarray
    multiplicity: np.ndarray


@njit(cache=True, inline="always")
def _winners(values: np.ndarray) -> int:
    """Bitmask of the players with the best of ``values`` (bit p for player p), without branches: which player
    wins is a coin flip the branch predictor cannot learn."""
    best = values[0]
    for p in range(1, values.shape[0]):
        best = max(best, values[p])
    mask = 0
    for p in range(values.shape[0]):
        mask |= (values[p] == best) << p
    return mask


#: ``_CHOOSE[n, t] = C(n, t)`` for the ``n <= 4`` cards left of a rank (a constant of the compiled code)
_CHOOSE = np.array([[math.comb(n, t) for t in range(6)] for n in range(5)], dtype=np.int64)


@njit(cache=True)
def _rank_multisets(k: int, available: np.ndarray, card_keys: np.ndarray, ways: np.ndarray,
                    rank_keys: np.ndarray) -> int:
    """Every multiset of ``k`` ranks (0..12, ``k <= 5``) that can be dealt when ``available[r]`` cards of each
    rank are left: into ``ways`` the number of sets of cards with those ranks (``prod C(available[r], times r is
    dealt)``) and into ``rank_keys`` the rank half of their key. Returns how many were written.

    An odometer over non-decreasing rank sequences; the ways and key of each prefix are kept per position, so
    moving to the next sequence recomputes only the positions after the one that changed. A rank dealt ``t``
    times in a row multiplies the ways before that run by ``C(available, t)``."""
    choose = _CHOOSE
    if k == 0:
        ways[0] = 1
        rank_keys[0] = 0
        return 1
    ranks = np.zeros(k, dtype=np.int64)
    run = np.zeros(k, dtype=np.int64)  # run[i]: how many of ranks[..i] equal ranks[i] (ending at i)
    prefix_ways = np.ones(k + 1, dtype=np.int64)
    prefix_keys = np.zeros(k + 1, dtype=np.uint64)
    count = 0
    changed = 0
    while True:
        for i in range(changed, k):
            r = ranks[i]
            run[i] = run[i - 1] + 1 if i > 0 and ranks[i - 1] == r else 1
            prefix_ways[i + 1] = prefix_ways[i + 1 - run[i]] * choose[available[r], run[i]]
            prefix_keys[i + 1] = prefix_keys[i] + (card_keys[4 * r] & _RANK_KEY_MASK)
        if prefix_ways[k] > 0:
            ways[count] = prefix_ways[k]
            rank_keys[count] = prefix_keys[k]
            count += 1
        changed = k - 1
        while changed >= 0 and ranks[changed] == 12:
            changed -= 1
        if changed < 0:
            return count
        ranks[changed] += 1
        for later in range(changed + 1, k):
            ranks[later] = ranks[changed]


@njit(cache=True, inline="always")
def _next_subset(index: np.ndarray, k: int, n: int) -> bool:
    """Advance ``index[:k]`` (increasing positions in ``0..n-1``) to the next k-subset; False after the last."""
    position = k - 1
    while position >= 0 and index[position] == n - k + position:
        position -= 1
    if position < 0:
        return False
    index[position] += 1
    for later in range(position + 1, k):
        index[later] = index[later - 1] + 1
    return True


@njit(cache=True, parallel=True)
def fixed_hands_enumeration(inputs: FixedHandsInputs, tables: EvalTables) -> np.ndarray:
    """Exact showdown counts of ``R`` deals of known hands over every completion of the board, each deal
    weighted by its multiplicity, deals in parallel. Returns ``acc_int`` ``(P + 1, 3)`` like
    :func:`exact_enumeration`; see :func:`_count_known_hands` for the method."""
    deals, players = inputs.hand_keys.shape
    by_deal = np.zeros((deals, 1 << players), dtype=np.int64)
    for deal in prange(deals):
        deck = np.empty(inputs.deck.shape[0], dtype=np.uint8)
        n = 0
        for card in inputs.deck:
            if not (inputs.hand_masks[deal] & (_ONE << np.uint64(card))):
                deck[n] = card
                n += 1
        _count_known_hands(deck[:n], inputs.missing, inputs.board_key, inputs.board_bits, inputs.hand_keys[deal],
                           inputs.hand_bits[deal], by_deal[deal], tables)
    acc_int = np.zeros((players + 1, 3), dtype=np.int64)
    for mask in range(1, 1 << players):
        count = 0
        for deal in range(deals):
            count += inputs.multiplicity[deal] * by_deal[deal, mask]
        if count == 0:
            continue
        tied = 0
        for p in range(players):
            tied += (mask >> p) & 1
        acc_int[players, 0] += count
        for p in range(players):
            if (mask >> p) & 1:
                acc_int[p, 0 if tied == 1 else 1] += count
                acc_int[p, 2] += count * (SHARE_UNITS // tied)
    return acc_int


@njit(cache=True)
def _count_known_hands(
    deck: np.ndarray, missing: int, board_key: np.uint64, board_bits: np.uint64, hand_keys: np.ndarray,
    hand_bits: np.ndarray, by_winners: np.ndarray, tables: EvalTables,
) -> None:
    """Count the completions of the board by the set of winners (``by_winners[mask]``, bit p for player p)
    for one deal of known hands, without walking the boards one by one.

    Without flushes a hand's value depends on its ranks only, so the boards are first counted by the multiset
    of their new ranks: ``prod C(cards of rank r left, times r is dealt)`` boards per multiset (6,188 multisets
    for a preflop board instead of 1.7 M boards heads-up), every player ranked by rank alone. Then the boards
    on which some player holds a flush are corrected: a player flushes in suit ``s`` exactly when the board
    holds at least ``5 - (cards of s the player holds)`` >= 3 cards of ``s``, and two suits cannot both reach 3
    on five cards, so each such board is visited once, under its suit: its ``j`` new cards of the suit one
    subset at a time, the ``missing - j`` others by multisets of ranks (tabled once per suit and ``j``), adding
    the true showdown and removing the rank-only one. A flush of 5 to 7 cards excludes a full house or quads,
    so a flushing player's value is the flush table's, the same on every board of one subset. Boards are
    counted by the set of winners (one add per board, not 2P + 1), turned into totals by the caller.
    """
    card_keys, card_bits = tables.card_keys, tables.card_bits  # read once: see exact_enumeration
    flush_values, row_offsets, rank_values = tables.flush_values, tables.row_offsets, tables.rank_values
    players = hand_keys.shape[0]
    values = np.zeros(players, dtype=np.int64)
    exact_values = np.zeros(players, dtype=np.int64)
    hand_ranks = np.empty(players, dtype=np.uint64)
    for p in range(players):
        hand_ranks[p] = (board_key + hand_keys[p]) & _RANK_KEY_MASK
    ways = np.empty(6188, dtype=np.int64)  # C(17, 5): the multisets of 5 ranks
    rank_keys = np.empty(6188, dtype=np.uint64)
    # 1. every board ranked by ranks alone, one multiset of new ranks at a time
    available = np.zeros(13, dtype=np.int64)
    for card in deck:
        available[card >> 2] += 1
    count = _rank_multisets(missing, available, card_keys, ways, rank_keys)
    for i in range(count):
        for p in range(players):
            values[p] = rank_only_value(hand_ranks[p] + rank_keys[i], row_offsets, rank_values)
        by_winners[_winners(values)] += ways[i]
    # 2. the boards where some player holds a flush: true showdown in, rank-only showdown out
    suited = np.empty(13, dtype=np.uint8)
    other_available = np.zeros(13, dtype=np.int64)
    first = np.zeros(5, dtype=np.int64)
    flush_value = np.zeros(players, dtype=np.int64)
    for suit in range(4):
        shift = np.uint64(32 + 4 * suit)
        on_board = np.int64((board_key >> shift) & np.uint64(0xF)) - 3
        most_held = 0
        for p in range(players):
            held = int((hand_keys[p] >> shift) & np.uint64(0xF))
            if held > most_held:
                most_held = held
        n_suited = 0
        other_available[:] = available
        for card in deck:
            if (card & 3) == suit:
                suited[n_suited] = card
                n_suited += 1
                other_available[card >> 2] -= 1
        lowest = 5 - most_held - on_board  # new cards of the suit for some player to flush
        for j in range(lowest if lowest > 0 else 0, min(missing, n_suited) + 1):
            rest = missing - j
            # the other cards cannot flush (two suits cannot both reach three on the board): by ranks only
            others = _rank_multisets(rest, other_available, card_keys, ways, rank_keys)
            flushes = 0  # the players holding a flush on these boards
            for p in range(players):
                if np.int64((hand_keys[p] >> shift) & np.uint64(0xF)) + on_board + j >= 5:
                    flushes |= 1 << p
            for i in range(j):
                first[i] = i
            while True:
                suited_ranks = np.uint64(0)
                suited_bits = board_bits
                for i in range(j):
                    suited_ranks += card_keys[suited[first[i]]] & _RANK_KEY_MASK
                    suited_bits |= card_bits[suited[first[i]]]
                for p in range(players):
                    if (flushes >> p) & 1:
                        flush_value[p] = flush_values[((suited_bits | hand_bits[p]) >> np.uint64(16 * suit))
                                                      & np.uint64(0x1FFF)]
                for i in range(others):
                    key = suited_ranks + rank_keys[i]
                    for p in range(players):
                        values[p] = rank_only_value(hand_ranks[p] + key, row_offsets, rank_values)
                        exact_values[p] = flush_value[p] if (flushes >> p) & 1 else values[p]
                    by_winners[_winners(exact_values)] += ways[i]
                    by_winners[_winners(values)] -= ways[i]
                if not _next_subset(first, j, n_suited):
                    break
