"""Sampled showdown tables of 3+ way all-in pots with card removal joint among the players in the pot.

A *deal* is ``k`` hole-card combos and a five-card board, all disjoint, drawn uniformly (a shuffled deck); each
player's *share* of the pot is 1 for the best hand, ``1/t`` each for ``t`` tied best hands, else 0.

- **Three-way pots**: ``count[A, B, C]`` the deals (ordered: every deal is counted under all six orders of its
  three hands, so the table is symmetric) whose combos are of classes ``A, B, C``, and ``share6[A, B, C]`` six
  times the summed share of the first hand there (integers: the sums are exact; ``PotTables.triple_count``
  holds ``count``). With ``N = 6 * deals`` ordered samples, ``1326 / (size(A) * N) * count[A, B, C]``
  estimates, unbiased, the probability that one given combo of ``A`` meets a combo of ``B`` and then one of
  ``C`` that avoid it and each other (``n(A, B, C) / (size(A) * 1225 * 1081)``), and the same with
  ``share6 / 6`` the share it takes: the counterfactual value of a class against two opponents' per-class
  strategies is a contraction of these with the strategies (:mod:`pokerlab.games.pushfold.joint`).
- **Four- to ten-way pots**: a fixed bank of ``BANK_DEALS`` deals per pot size (classes and shares per slot):
  rare pots at a chart's equilibrium, valued by the bank's mean (unbiased, coarse).

The tables are made once from a fixed seed and cached under the user cache directory with the code version in
the file name (:func:`pot_tables`).

>>> from pokerlab.games.pushfold.pot_tables import build_pot_tables
>>> small = build_pot_tables(triple_deals=2000, bank_deals=64, seed=1)
>>> int(small.triple_count.sum()) == 6 * 2000, small.bank_classes.shape  # every deal counted in six orders
(True, (7, 64, 10))
>>> bool((small.triple_count == small.triple_count.transpose(1, 0, 2)).all())
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.classes import CLASS_OF_COMBO, NUMBER_OF_CLASSES
from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables, cached_arrays, load_tables
from pokerlab.provenance import sources_digest
from pokerlab.stats.rng import mixed_seed, substream_start, uniform

TRIPLE_DEALS = 1 << 24
"""Deals of three hands behind the three-way table: about 21 ordered samples per class triple on average."""
BANK_DEALS = 1 << 14
"""Deals per pot size (4 to 10 hands) in the bank of the larger pots."""
TABLE_SEED = 20261126
"""The one seed of the shipped tables (they are a fixed part of the chart model)."""
CHUNKS = 2
"""Independent sub-streams the deals are drawn in (in parallel; the result does not depend on the threads)."""
MAX_HANDS = 10


class PotTables(NamedTuple):
    """The sampled showdown tables (see the module docstring). ``triple_count``/``share6``: (169, 169, 169) int32;
    ``bank_classes[k - 4, d, slot]`` (int16) and ``bank_shares`` (float64) of deal ``d`` of ``k`` hands (slots
    ``k..9`` unused); ``meta``: ``[triple_deals, bank_deals, seed]``."""

    triple_count: np.ndarray
    share6: np.ndarray
    bank_classes: np.ndarray
    bank_shares: np.ndarray
    meta: np.ndarray

    @property
    def ordered_samples(self) -> int:
        """Ordered three-hand samples behind ``triple_count`` (six per deal)."""
        return 6 * int(self.meta[0])

    @property
    def bank_deals(self) -> int:
        return int(self.meta[1])


@njit(cache=True, inline="always")
def _shuffle_prefix(deck: np.ndarray, cards: int, state: np.ndarray) -> None:
    """The first ``cards`` cards of ``deck`` become a uniform draw without replacement (partial Fisher-Yates)."""
    for i in range(cards):
        j = i + min(int(uniform(state) * (52 - i)), 51 - i)
        deck[i], deck[j] = deck[j], deck[i]


@njit(cache=True, inline="always")
def _deal_shares(deck: np.ndarray, hands: int, classes: np.ndarray, shares: np.ndarray, values: np.ndarray,
                 tables: EvalTables) -> None:
    """Classes and pot shares of the ``hands`` combos in ``deck`` (hand ``k``: cards ``2k, 2k + 1``; the board
    the next five)."""
    key, bits = partial_hand(deck[2 * hands: 2 * hands + 5], tables)
    best = 0
    for k in range(hands):
        c1, c2 = deck[2 * k], deck[2 * k + 1]
        high, low = max(c1, c2), min(c1, c2)
        classes[k] = CLASS_OF_COMBO[high * (high - 1) // 2 + low]
        values[k] = value_with_two(key, bits, c1, c2, tables)
        best = max(best, values[k])
    tied = 0
    for k in range(hands):
        tied += values[k] == best
    for k in range(hands):
        shares[k] = 1.0 / tied if values[k] == best else 0.0


@njit(cache=True, parallel=True)
def _triple_counts(start: np.uint64, deals: int, tables: EvalTables) -> tuple[np.ndarray, np.ndarray]:
    """``(count, share6)`` over ``deals`` three-hand deals, drawn in :data:`CHUNKS` sub-streams."""
    n = NUMBER_OF_CLASSES
    count = np.zeros((CHUNKS, n, n, n), dtype=np.int32)
    share6 = np.zeros((CHUNKS, n, n, n), dtype=np.int32)
    for chunk in prange(CHUNKS):
        state = np.array([substream_start(start, chunk)], dtype=np.uint64)
        deck = np.arange(52, dtype=np.int64)
        classes = np.empty(3, dtype=np.int64)
        shares = np.empty(3)
        values = np.empty(3, dtype=np.int64)
        mine = deals // CHUNKS + (1 if chunk < deals % CHUNKS else 0)
        for _ in range(mine):
            _shuffle_prefix(deck, 11, state)
            _deal_shares(deck, 3, classes, shares, values, tables)
            for first in range(3):
                for second in range(3):
                    if second == first:
                        continue
                    third = 3 - first - second
                    a, b, c = classes[first], classes[second], classes[third]
                    count[chunk, a, b, c] += 1
                    share6[chunk, a, b, c] += np.int32(round(6.0 * shares[first]))
    total_count = np.zeros((n, n, n), dtype=np.int32)
    total_share = np.zeros((n, n, n), dtype=np.int32)
    for chunk in range(CHUNKS):
        total_count += count[chunk]
        total_share += share6[chunk]
    return total_count, total_share


@njit(cache=True, parallel=True)
def _bank(start: np.uint64, deals: int, tables: EvalTables) -> tuple[np.ndarray, np.ndarray]:
    """Classes and shares of ``deals`` deals of every pot size 4..10 (deal ``d`` of size ``k`` from its own
    sub-stream)."""
    classes = np.zeros((MAX_HANDS - 3, deals, MAX_HANDS), dtype=np.int16)
    shares = np.zeros((MAX_HANDS - 3, deals, MAX_HANDS))
    for row in prange((MAX_HANDS - 3) * deals):
        size = row // deals
        d = row - size * deals
        hands = size + 4
        state = np.array([substream_start(start, CHUNKS + row)], dtype=np.uint64)
        deck = np.arange(52, dtype=np.int64)
        dealt = np.empty(MAX_HANDS, dtype=np.int64)
        won = np.empty(MAX_HANDS)
        values = np.empty(MAX_HANDS, dtype=np.int64)
        _shuffle_prefix(deck, 2 * hands + 5, state)
        _deal_shares(deck, hands, dealt, won, values, tables)
        for k in range(hands):
            classes[size, d, k] = dealt[k]
            shares[size, d, k] = won[k]
    return classes, shares


def build_pot_tables(triple_deals: int = TRIPLE_DEALS, bank_deals: int = BANK_DEALS,
                     seed: int = TABLE_SEED) -> PotTables:
    """Draw the tables (the shipped sizes take about half a minute of CPU; see :func:`pot_tables`)."""
    tables = load_tables()
    start = mixed_seed(seed)
    count, share6 = _triple_counts(start, int(triple_deals), tables)
    classes, shares = _bank(start, int(bank_deals), tables)
    return PotTables(count, share6, classes, shares, np.array([triple_deals, bank_deals, seed], dtype=np.int64))


POT_TABLE_SOURCES = ("games/pushfold/pot_tables.py", "cards/kernels.py", "cards/tables.py", "stats/rng.py")
"""The code the tables depend on: its digest is in the cache file's name."""


@lru_cache(maxsize=1)
def pot_tables() -> PotTables:
    """The shipped-size tables (:data:`TRIPLE_DEALS`, :data:`BANK_DEALS`, :data:`TABLE_SEED`): from memory, else
    the user cache (keyed by the code version), else drawn and cached."""
    name = f"pushfold-pots-{sources_digest(POT_TABLE_SOURCES)}-{TRIPLE_DEALS}-{BANK_DEALS}-{TABLE_SEED}.npz"
    return cached_arrays(name, PotTables, build_pot_tables)
