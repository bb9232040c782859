"""Card tables of a two-round game for the kernels: hands, flops, hand values and the card abstraction.

Cards are *local* indices ``0 .. n-1`` into the game's deck (``spec.deck()``); kernels never see the standard
encoding except through ``values``. For every flop ``f`` and two-card hand ``h``:

- ``values[f, h]``: the hand value (1..7462, :func:`pokerlab.evaluate`) of the five cards, 0 when ``h``
  shares a card with ``f``;
- ``equity[f, h]``: the exact probability of winning (ties count one half) against an opponent hand drawn
  uniformly from the remaining cards, computed by enumeration (nothing is dealt after the flop);
- ``post_bucket[f, h]``: the flop bucket ``min(floor(equity * buckets), buckets - 1)`` (-1 when invalid).

Preflop, ``pre_class[h]`` is the suit-isomorphism class of the hand (pair, suited or offsuit ranks).
With ``buckets=0`` the abstraction is the identity (every (flop, hand) its own bucket): the real game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables, load_tables
from pokerlab.games.two_round import TwoRoundSpec


@njit(cache=True, inline="always")
def _reach_of_strictly_weaker(order: np.ndarray, count: int, descending: bool, values: np.ndarray,
                              reach: np.ndarray, hand_cards: np.ndarray, per_card: np.ndarray,
                              out: np.ndarray) -> None:
    """Sweep ``order[:count]`` upwards (or downwards with ``descending``) by groups of equal value: ``out[h]`` =
    total ``reach`` already swept, i.e. of strictly lower (higher) values, minus the hands sharing a card with
    ``h``. The sum runs in the same order whichever the direction."""
    per_card[:] = 0.0
    total = 0.0
    i = 0
    while i < count:
        v = values[order[count - 1 - i if descending else i]]
        j = i
        while j < count and values[order[count - 1 - j if descending else j]] == v:
            j += 1
        for k in range(i, j):
            h = order[count - 1 - k if descending else k]
            out[h] = total - per_card[hand_cards[h, 0]] - per_card[hand_cards[h, 1]]
        for k in range(i, j):
            h = order[count - 1 - k if descending else k]
            r = reach[h]
            total += r
            per_card[hand_cards[h, 0]] += r
            per_card[hand_cards[h, 1]] += r
        i = j


@njit(cache=True)
def showdown_sums(order: np.ndarray, count: int, values: np.ndarray, reach: np.ndarray, hand_cards: np.ndarray,
                  n_cards: int, win: np.ndarray, lose: np.ndarray) -> None:
    """For each hand ``h = order[i]`` (i < count, sorted by increasing value): ``win[h]`` = total ``reach`` of the
    hands with a lower value sharing no card with ``h``; ``lose[h]`` the same for higher values.

    Card removal is exact: a running total minus running totals per card (a hand sharing both cards with
    ``h`` is ``h`` itself, which never has a strictly lower or higher value).
    """
    per_card = np.zeros(n_cards)
    _reach_of_strictly_weaker(order, count, False, values, reach, hand_cards, per_card, win)
    _reach_of_strictly_weaker(order, count, True, values, reach, hand_cards, per_card, lose)


@njit(cache=True)
def _flop_values(deck: np.ndarray, hand_cards: np.ndarray, flop_cards: np.ndarray, tables: EvalTables) -> np.ndarray:
    n_flops = flop_cards.shape[0]
    n_hands = hand_cards.shape[0]
    values = np.zeros((n_flops, n_hands), dtype=np.int64)
    board = np.empty(3, dtype=np.int64)
    for f in range(n_flops):
        for k in range(3):
            board[k] = deck[flop_cards[f, k]]
        key, bits = partial_hand(board, tables)
        for h in range(n_hands):
            a, b = hand_cards[h, 0], hand_cards[h, 1]
            if a == flop_cards[f, 0] or a == flop_cards[f, 1] or a == flop_cards[f, 2] or \
                    b == flop_cards[f, 0] or b == flop_cards[f, 1] or b == flop_cards[f, 2]:
                continue
            values[f, h] = value_with_two(key, bits, deck[a], deck[b], tables)
    return values


@njit(cache=True)
def _orders_and_equity(values: np.ndarray, hand_cards: np.ndarray, n_cards: int) -> tuple[np.ndarray, np.ndarray,
                                                                                           np.ndarray]:
    n_flops, n_hands = values.shape
    order = np.zeros((n_flops, n_hands), dtype=np.int64)
    count = np.zeros(n_flops, dtype=np.int64)
    equity = np.full((n_flops, n_hands), -1.0)
    ones = np.ones(n_hands)
    win = np.zeros(n_hands)
    lose = np.zeros(n_hands)
    opponents = (n_cards - 5) * (n_cards - 6) / 2.0
    for f in range(n_flops):
        valid = np.nonzero(values[f] > 0)[0]
        sorted_valid = valid[np.argsort(values[f, valid], kind="mergesort")]
        c = sorted_valid.shape[0]
        count[f] = c
        order[f, :c] = sorted_valid
        showdown_sums(order[f], c, values[f], ones, hand_cards, n_cards, win, lose)
        for k in range(c):
            h = sorted_valid[k]
            tie = opponents - win[h] - lose[h]
            equity[f, h] = (win[h] + 0.5 * tie) / opponents
    return order, count, equity


class DealTables(NamedTuple):
    """The card tables the kernels read (see :class:`TwoRoundTables`), as one argument."""

    hand_cards: np.ndarray
    hand_id: np.ndarray
    flop_id: np.ndarray
    values: np.ndarray
    order: np.ndarray
    valid_count: np.ndarray
    n_cards: int


@dataclass(frozen=True, eq=False)
class TwoRoundTables:
    """The card tables of one two-round deck (see the module docstring). Shapes: ``hand_cards (H, 2)``,
    ``flop_cards (F, 3)``, ``values``/``equity``/``order (F, H)``, ``valid_count (F,)``, ``hand_id``/``flop_id``
    dense lookups by local cards (``flop_id[a, b, c]`` with ``a < b < c``), ``pre_class (H,)``."""

    spec: TwoRoundSpec
    deck: np.ndarray
    hand_cards: np.ndarray
    flop_cards: np.ndarray
    hand_id: np.ndarray
    flop_id: np.ndarray
    values: np.ndarray
    equity: np.ndarray
    order: np.ndarray
    valid_count: np.ndarray
    pre_class: np.ndarray
    pre_labels: tuple[str, ...]

    @property
    def n_cards(self) -> int:
        return int(self.deck.shape[0])

    def deals(self) -> DealTables:
        """The tables as the kernels take them."""
        return DealTables(self.hand_cards, self.hand_id, self.flop_id, self.values, self.order, self.valid_count,
                          self.n_cards)

    @property
    def n_hands(self) -> int:
        return int(self.hand_cards.shape[0])

    @property
    def n_flops(self) -> int:
        return int(self.flop_cards.shape[0])

    def post_bucket(self, buckets: int) -> tuple[np.ndarray, int]:
        """``(bucket[f, h], number of buckets)``; ``buckets=0`` gives the identity abstraction."""
        if buckets <= 0:
            ids = np.arange(self.n_flops * self.n_hands, dtype=np.int64).reshape(self.n_flops, self.n_hands)
            return np.where(self.values > 0, ids, -1), self.n_flops * self.n_hands
        bucket = np.minimum((self.equity * buckets).astype(np.int64), buckets - 1)
        return np.where(self.values > 0, bucket, -1), buckets

    def pre_abstraction(self, exact: bool) -> tuple[np.ndarray, int]:
        """``(class[h], number of classes)``: suit-isomorphic classes, or every hand its own (``exact``)."""
        if exact:
            return np.arange(self.n_hands, dtype=np.int64), self.n_hands
        return self.pre_class, len(self.pre_labels)

    def local(self, card: int) -> int:
        """Local index of a standard card index (raises ``ValueError`` when not in the deck)."""
        return int(np.flatnonzero(self.deck == card)[0])


@lru_cache(maxsize=8)
def _tables(ranks: int, suits: int) -> TwoRoundTables:
    spec = TwoRoundSpec(ranks=ranks, suits=suits)
    deck = np.asarray(spec.deck(), dtype=np.int64)
    n = deck.shape[0]
    hands = [(a, b) for a in range(n) for b in range(a + 1, n)]
    flops = [(a, b, c) for a in range(n) for b in range(a + 1, n) for c in range(b + 1, n)]
    hand_cards = np.asarray(hands, dtype=np.int64)
    flop_cards = np.asarray(flops, dtype=np.int64)
    hand_id = np.full((n, n), -1, dtype=np.int64)
    for i, (a, b) in enumerate(hands):
        hand_id[a, b] = hand_id[b, a] = i
    flop_id = np.full((n, n, n), -1, dtype=np.int64)
    for i, (a, b, c) in enumerate(flops):
        flop_id[a, b, c] = i
    values = _flop_values(deck, hand_cards, flop_cards, load_tables())
    order, count, equity = _orders_and_equity(values, hand_cards, n)
    # Suit isomorphism preflop: (high rank, low rank, suited).
    from pokerlab.cards.encoding import RANKS

    labels: dict[tuple[int, int, bool], int] = {}
    pre_class = np.empty(len(hands), dtype=np.int64)
    names: list[str] = []
    for i, (a, b) in enumerate(hands):
        ra, rb = int(deck[a]) // 4, int(deck[b]) // 4
        hi, lo = max(ra, rb), min(ra, rb)
        suited = int(deck[a]) % 4 == int(deck[b]) % 4
        key = (hi, lo, suited)
        if key not in labels:
            labels[key] = len(labels)
            names.append(RANKS[hi] + RANKS[lo] + ("" if hi == lo else ("s" if suited else "o")))
        pre_class[i] = labels[key]
    assert len(flops) == comb(n, 3)
    arrays = (deck, hand_cards, flop_cards, hand_id, flop_id, values, equity, order, count, pre_class)
    for array in arrays:
        array.setflags(write=False)  # shared by every caller through the cache; the kernels only read them
    return TwoRoundTables(spec, *arrays, tuple(names))


def two_round_tables(spec: TwoRoundSpec) -> TwoRoundTables:
    """The (cached) card tables of a two-round game's deck; about a second for the default 28-card deck.

    The tables depend on the deck alone, so one object serves every spec with the same ranks and suits: its
    ``spec`` carries those ranks and suits with the default stack and bets, not the ``spec`` passed in. Its
    arrays are read-only (shared through the cache).

    >>> t = two_round_tables(TwoRoundSpec()); t.n_hands, t.n_flops
    (378, 3276)
    """
    spec.validate()
    return _tables(spec.ranks, spec.suits)
