"""Preflop all-in equity tables: every heads-up combo against every combo, exact, and the 169 x 169 class table
with card-removal weights.

Two hole-card combos that share no card meet on one of C(48, 5) = 1,712,304 boards. The table counts, for every
such matchup, the boards the first combo wins and the boards it ties. Suit relabelling and swapping the two
hands leave a matchup's counts unchanged (up to exchanging wins and losses), so only one matchup per class of
that symmetry is enumerated: 47,008 of the 812,175 unordered disjoint pairs. ``scripts/build_preflop_table.py``
enumerates them with :func:`count_matchups` and ships the counts as package data (``data/preflop_headsup.npz``,
integers, about 0.5 MB); :func:`preflop_tables` expands them once per process.

>>> tables = preflop_tables()
>>> from pokerlab.cards.classes import combo_index
>>> aa, kk = combo_index(51, 50), combo_index(47, 46)  # AsAh, KsKh
>>> int(tables.wins[aa, kk]), int(tables.ties[aa, kk]), round(float(tables.equity[aa, kk]), 6)
(1410336, 9308, 0.826366)
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBO_MASKS, COMBOS, NUMBER_OF_CLASSES, NUMBER_OF_COMBOS, combo_index
from pokerlab.cards.kernels import value_of_partial
from pokerlab.cards.tables import SUIT_BIAS, EvalTables, cached_arrays, load_tables
from pokerlab.equity.headsup_table import TABLE_FILE, TABLE_FORMAT_VERSION, shipped_counts
from pokerlab.equity.symmetry import ALL_SUIT_PERMUTATIONS
from pokerlab.equity.symmetry import _tables as suit_tables
from pokerlab.errors import FileFormatError

BOARDS = 1_712_304  # C(48, 5): boards of a heads-up preflop all-in
_BIAS = np.uint64(SUIT_BIAS)


class PreflopTables(NamedTuple):
    """Heads-up preflop all-in tables. Combos and classes indexed as :mod:`pokerlab.cards.classes` indexes them.

    ``wins[a, b]``/``ties[a, b]``: boards (of 1,712,304) on which combo ``a`` beats / ties combo ``b``; 0 when
    they share a card. ``equity[a, b]``: ``(wins + ties / 2) / 1,712,304``. ``disjoint[a, b]``: 1.0 when the
    combos share no card. ``class_of``: class (0..168) of each combo. ``class_size``: combos per class (6, 4
    or 12). ``class_pairs[A, B]``: combos of class B that one given combo of class A leaves (card removal: the
    same for every combo of A). ``class_win``/``class_tie[A, B]``: average over the combos of A of the summed
    win / tie probability against the combos of B, so that against a strategy ``s`` constant on each class the
    win probability of a combo of A, weighted by reach, is ``class_win[A] @ s``.
    """

    wins: np.ndarray
    ties: np.ndarray
    equity: np.ndarray
    disjoint: np.ndarray
    class_of: np.ndarray
    class_size: np.ndarray
    class_pairs: np.ndarray
    class_win: np.ndarray
    class_tie: np.ndarray


# ------------------------------------------------------------------------------------------------------------
# symmetry: one representative matchup per orbit of suit relabelling and swapping the hands


def matchup_orbits() -> tuple[np.ndarray, np.ndarray]:
    """Canonical key of every ordered pair of combos and the sorted list of canonical keys.

    ``key[a, b] = min over the 24 relabellings g of (min(ga, gb) * 1326 + max(ga, gb))`` for disjoint combos,
    -1 when they share a card. Returns ``(key (1326, 1326) int64, representatives (n,) int64)``; a
    representative key ``k`` stands for the matchup ``(k // 1326, k % 1326)``.
    """
    _, images = suit_tables()  # (24, 1326): image of each combo under each relabelling
    key = np.full((NUMBER_OF_COMBOS, NUMBER_OF_COMBOS), -1, dtype=np.int64)
    for a in range(NUMBER_OF_COMBOS):
        ga = images[:, a][:, None]
        gb = images
        candidates = np.minimum(ga, gb) * NUMBER_OF_COMBOS + np.maximum(ga, gb)
        key[a] = candidates.min(axis=0)
    key[(COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) != 0] = -1
    return key, np.unique(key[key >= 0])


_SLOTS = 16  # independent accumulators: several per thread so the split stays even


@njit(cache=True, parallel=True)
def count_matchups(pairs: np.ndarray, tables: EvalTables) -> tuple[np.ndarray, np.ndarray]:
    """Boards won and tied by the first combo of each matchup, by full enumeration of the boards.

    ``pairs``: ``(n, 2)`` int64 combo indices (sharing no card). Returns two ``(n,)`` int64 arrays. Every
    five-card board of the 52 cards is dealt once; on it the value of every combo is computed once (1,326
    lookups) and then every matchup that avoids the board is one comparison, so the work is 2.6 M boards x
    (1,326 lookups + n comparisons) instead of n x 1.7 M boards x 2 lookups.
    """
    n = pairs.shape[0]
    first = pairs[:, 0].copy()
    second = pairs[:, 1].copy()
    win_slots = np.zeros((_SLOTS, n), dtype=np.int64)
    tie_slots = np.zeros((_SLOTS, n), dtype=np.int64)
    combo_cards = np.empty((NUMBER_OF_COMBOS, 2), dtype=np.int64)
    index = 0
    for high in range(52):
        for low in range(high):
            combo_cards[index, 0] = high
            combo_cards[index, 1] = low
            index += 1
    for slot in prange(_SLOTS):
        values = np.zeros(NUMBER_OF_COMBOS, dtype=np.int32)
        wins = win_slots[slot]
        ties = tie_slots[slot]
        pair_index = 0
        for c1 in range(52):
            for c2 in range(c1 + 1, 52):
                pair_index += 1
                if pair_index % _SLOTS != slot:
                    continue
                k2 = _BIAS + tables.card_keys[c1] + tables.card_keys[c2]
                b2 = tables.card_bits[c1] | tables.card_bits[c2]
                for c3 in range(c2 + 1, 52):
                    k3 = k2 + tables.card_keys[c3]
                    b3 = b2 | tables.card_bits[c3]
                    for c4 in range(c3 + 1, 52):
                        k4 = k3 + tables.card_keys[c4]
                        b4 = b3 | tables.card_bits[c4]
                        for c5 in range(c4 + 1, 52):
                            k5 = k4 + tables.card_keys[c5]
                            b5 = b4 | tables.card_bits[c5]
                            board = ((np.uint64(1) << np.uint64(c1)) | (np.uint64(1) << np.uint64(c2))
                                     | (np.uint64(1) << np.uint64(c3)) | (np.uint64(1) << np.uint64(c4))
                                     | (np.uint64(1) << np.uint64(c5)))
                            for h in range(NUMBER_OF_COMBOS):
                                x = combo_cards[h, 0]
                                y = combo_cards[h, 1]
                                if (board >> np.uint64(x)) & np.uint64(1) or (board >> np.uint64(y)) & np.uint64(1):
                                    values[h] = 0  # touches the board: no matchup with it is counted
                                else:
                                    values[h] = value_of_partial(
                                        k5 + tables.card_keys[x] + tables.card_keys[y],
                                        b5 | tables.card_bits[x] | tables.card_bits[y], tables)
                            for m in range(n):
                                v = values[first[m]]
                                w = values[second[m]]
                                if v != 0 and w != 0:
                                    wins[m] += v > w
                                    ties[m] += v == w
    return win_slots.sum(axis=0), tie_slots.sum(axis=0)


def representative_pairs(representatives: np.ndarray) -> np.ndarray:
    """``(n, 2)`` int64 combo indices of the matchups named by canonical keys (see :func:`matchup_orbits`)."""
    return np.stack([representatives // NUMBER_OF_COMBOS, representatives % NUMBER_OF_COMBOS], axis=1)


def build_counts() -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Enumerate every canonical matchup: ``(representatives, wins, ties, seconds)``, the seconds not counting
    compilation. ``scripts/build_preflop_table.py`` calls it and writes the package data."""
    _, representatives = matchup_orbits()
    pairs = representative_pairs(representatives)
    tables = load_tables()
    count_matchups(pairs[:1], tables)  # compile (and one full pass over the boards) outside the timed region
    start = time.perf_counter()
    wins, ties = count_matchups(pairs, tables)
    return representatives, wins, ties, time.perf_counter() - start


# ------------------------------------------------------------------------------------------------------------
# loading and expansion


def headsup_counts(first: int, second: int) -> tuple[int, int]:
    """Boards (of the 1,712,304) on which combo ``first`` beats and ties combo ``second`` preflop, with no dead
    card: the shipped count of their matchup's orbit, without expanding the tables (:func:`preflop_tables`).

    Combo indices as :data:`pokerlab.cards.ranges.COMBOS`; the combos must share no card. The matchup's
    canonical key is the smallest over the 24 suit relabellings of its unordered key (as in
    :func:`matchup_orbits`); the stored counts are the wins of the representative's first combo, which is
    ``first``'s image when some relabelling keeps the order (the smallest ordered key equals the unordered one).

    >>> from pokerlab.cards.classes import combo_index
    >>> headsup_counts(combo_index(51, 50), combo_index(47, 46))  # AsAh vs KsKh
    (1410336, 9308)
    """
    (a1, a2), (b1, b2) = COMBOS[first].tolist(), COMBOS[second].tolist()
    unordered = ordered = NUMBER_OF_COMBOS * NUMBER_OF_COMBOS
    for perm in ALL_SUIT_PERMUTATIONS:
        a = combo_index(a1 - (a1 & 3) + perm[a1 & 3], a2 - (a2 & 3) + perm[a2 & 3])
        b = combo_index(b1 - (b1 & 3) + perm[b1 & 3], b2 - (b2 & 3) + perm[b2 & 3])
        unordered = min(unordered, a * NUMBER_OF_COMBOS + b if a < b else b * NUMBER_OF_COMBOS + a)
        ordered = min(ordered, a * NUMBER_OF_COMBOS + b)
    representatives, wins, ties = shipped_counts()
    index = int(np.searchsorted(representatives, unordered))
    if index == len(representatives) or representatives[index] != unordered:
        raise FileFormatError(f"{TABLE_FILE} does not cover every matchup: run scripts/build_preflop_table.py")
    won, tied = int(wins[index]), int(ties[index])
    return (won, tied) if ordered == unordered else (BOARDS - won - tied, tied)


@lru_cache(maxsize=1)
def preflop_tables() -> PreflopTables:
    """The heads-up preflop equity tables: expanded from the shipped counts on first use (about 4 s) and cached
    under the user cache directory (:func:`pokerlab.cards.tables.cache_directory`; then about 0.1 s).

    See :class:`PreflopTables` for the fields. The arrays are read-only.
    """
    return cached_arrays(f"preflop-v{TABLE_FORMAT_VERSION}.npz", PreflopTables, _expand)


def _expand() -> PreflopTables:
    """Every matchup's counts from its representative's, and the class tables."""
    representatives, rep_wins, rep_ties = shipped_counts()
    key, _ = matchup_orbits()
    disjoint = key >= 0
    index = np.searchsorted(representatives, np.where(disjoint, key, 0))
    index = np.minimum(index, len(representatives) - 1)
    if not np.array_equal(representatives[index][disjoint], key[disjoint]):
        raise FileFormatError(f"{TABLE_FILE} does not cover every matchup: run scripts/build_preflop_table.py")
    # the representative (p, q) stores p's wins; the pair (a, b) maps to it either as a -> p or as a -> q.
    # a is the first combo of its representative when some relabelling maps a to p and b to q (with p < q);
    # equivalently the canonical key of (a, b) taken as an ordered pair equals the unordered key
    _, images = suit_tables()
    ordered = _ordered_keys(images)
    a_first = ordered == key
    wins = np.zeros((NUMBER_OF_COMBOS, NUMBER_OF_COMBOS), dtype=np.int64)
    ties = np.zeros_like(wins)
    rw, rt = rep_wins[index], rep_ties[index]
    losses = BOARDS - rw - rt
    wins[disjoint] = np.where(a_first, rw, losses)[disjoint]
    ties[disjoint] = rt[disjoint]
    equity = np.where(disjoint, (wins + 0.5 * ties) / BOARDS, 0.0)
    classes = CLASS_OF_COMBO
    sizes = np.bincount(classes, minlength=NUMBER_OF_CLASSES).astype(np.float64)
    member = np.zeros((NUMBER_OF_COMBOS, NUMBER_OF_CLASSES))
    member[np.arange(NUMBER_OF_COMBOS), classes] = 1.0
    average = member.T / sizes[:, None]  # (169, 1326): mean over a class's combos
    dis = disjoint.astype(np.float64)
    class_pairs = average @ dis @ member
    class_win = average @ (wins / BOARDS) @ member
    class_tie = average @ (ties / BOARDS) @ member
    return PreflopTables(wins.astype(np.int32), ties.astype(np.int32), equity, dis, classes, sizes, class_pairs,
                         class_win, class_tie)


def _ordered_keys(images: np.ndarray) -> np.ndarray:
    """``min over g of (ga * 1326 + gb)`` for every ordered pair: equal to the unordered key exactly when some
    relabelling maps the pair onto its representative in the same order."""
    out = np.empty((NUMBER_OF_COMBOS, NUMBER_OF_COMBOS), dtype=np.int64)
    for a in range(NUMBER_OF_COMBOS):
        out[a] = (images[:, a][:, None] * NUMBER_OF_COMBOS + images).min(axis=0)
    return out
