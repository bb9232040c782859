"""Lookup tables of the hand evaluator, built at first use and cached on disk.

How a hand is ranked (see ``docs/algorithms.md``):

- Each card has an additive 64-bit key: the low 32 bits hold ``RANK_MULTIPLIERS[rank]`` and bits 32..47 hold a
  4-bit counter per suit. The multipliers are such that every multiset of at most 7 ranks (each at most 4
  times) has a distinct sum, so the low half of a hand's key identifies its ranks regardless of suits. The
  suit counters start at 3 (``SUIT_BIAS``), so bit 3 of a counter is set exactly when that suit has 5+ cards.
- Each card also has a bit in a suit-major mask (``1 << (16 * suit + rank)``), used only for flushes.
- Non-flush hands: the rank key is looked up through a row-displacement perfect hash
  (``index = ROW_OFFSETS[key >> ROW_SHIFT] + (key & ROW_MASK)``) into ``RANK_VALUES`` (about 142k uint16).
- Flushes: the 13-bit rank mask of the flush suit indexes ``FLUSH_VALUES`` (8192 uint16). With at most 7
  cards a flush excludes full houses and quads, so the flush value is the hand's value.

Hand values are the 7,462 equivalence classes of five-card poker hands, 1 (7-5-4-3-2 offsuit) to 7462
(royal flush): a larger value is a stronger hand and equal values tie. A board's partial key can be kept
and two hole cards added for one lookup, which is what the equity engine does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np

from pokerlab.io import atomic_write

TABLE_FORMAT_VERSION = 1

# Smallest multipliers, chosen greedily rank by rank, that keep the sums of all multisets of at most seven
# ranks (each rank at most four times) distinct; tests/cards/test_tables.py checks that property.
RANK_MULTIPLIERS = (1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520)
SUIT_SHIFT = 32
SUIT_BIAS = 0x3333 << SUIT_SHIFT
FLUSH_CHECK = 0x8888
RANK_KEY_MASK = 0xFFFFFFFF
ROW_SHIFT = 10
ROW_MASK = (1 << ROW_SHIFT) - 1

CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
NUMBER_OF_CLASSES = 7462


class EvalTables(NamedTuple):
    """Everything a compiled kernel needs to rank hands; pass it to kernels as one argument."""

    card_keys: np.ndarray  # uint64[52]: additive rank + suit-counter key per card
    card_bits: np.ndarray  # uint64[52]: suit-major bit per card (1 << (16 * suit + rank))
    row_offsets: np.ndarray  # uint32[rows]: perfect-hash displacement per row of the rank key
    rank_values: np.ndarray  # uint16[...]: hand value of each non-flush rank multiset of 5..7 cards
    flush_values: np.ndarray  # uint16[8192]: hand value of each flush rank mask (5..7 bits set)
    class_scores: np.ndarray  # int64[7463]: the category-and-kickers score of each hand value (index 0 unused)
    category_starts: np.ndarray  # int32[9]: smallest hand value of each category


# ---------------------------------------------------------------------------------------------------------
# Scores: an integer per five-card class, category first then kickers (base 13), ordered like hand strength.

_STRAIGHT_MASKS = [(0x1F << low, low + 4) for low in range(8, -1, -1)] + [(0x100F, 3)]  # A-2-3-4-5 last


def _score(category: int, ranks: list[int]) -> int:
    value = category
    for index in range(5):
        value = value * 13 + (ranks[index] if index < len(ranks) else 0)
    return value


def _straight_high(rank_mask: int) -> int:
    for pattern, high in _STRAIGHT_MASKS:
        if rank_mask & pattern == pattern:
            return high
    return -1


def _best_non_flush_score(counts: tuple[int, ...]) -> int:
    """Score of the best five cards among ranks with these counts, ignoring suits (no flushes)."""
    by_count: list[list[int]] = [[], [], [], [], []]
    for rank in range(12, -1, -1):
        by_count[counts[rank]].append(rank)
    present = [rank for rank in range(12, -1, -1) if counts[rank]]
    quads, trips, pairs = by_count[4], by_count[3], by_count[2]
    if quads:
        return _score(7, [quads[0], next(r for r in present if r != quads[0])])
    if trips and (len(trips) > 1 or pairs):
        second = max(trips[1:] + pairs)
        return _score(6, [trips[0], second])
    high = _straight_high(sum(1 << rank for rank in present))
    if high >= 0:
        return _score(4, [high])
    if trips:
        return _score(3, [trips[0]] + [r for r in present if r != trips[0]][:2])
    if len(pairs) >= 2:
        top = pairs[:2]
        return _score(2, top + [next(r for r in present if r not in top)])
    if pairs:
        return _score(1, [pairs[0]] + [r for r in present if r != pairs[0]][:3])
    return _score(0, present[:5])


def _flush_score(rank_mask: int) -> int:
    high = _straight_high(rank_mask)
    if high >= 0:
        return _score(8, [high])
    return _score(5, [rank for rank in range(12, -1, -1) if rank_mask >> rank & 1][:5])


def _rank_multisets(max_cards: int = 7) -> list[tuple[int, ...]]:
    multisets: list[tuple[int, ...]] = []

    def extend(prefix: list[int], remaining: int) -> None:
        if len(prefix) == 13:
            multisets.append(tuple(prefix))
            return
        for count in range(min(4, remaining) + 1):
            prefix.append(count)
            extend(prefix, remaining - count)
            prefix.pop()

    extend([], max_cards)
    return multisets


def _rank_key(counts: tuple[int, ...]) -> int:
    return sum(count * multiplier for count, multiplier in zip(counts, RANK_MULTIPLIERS, strict=True))


def _perfect_hash(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row offsets and slot index of each key for the evaluator's rank-key perfect hash."""
    from pokerlab.cards.perfect_hash import displace_rows  # numba loads only when the tables are built

    keys = np.sort(keys)
    rows = keys >> ROW_SHIFT
    counts = np.bincount(rows)
    row_starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    offsets, _ = displace_rows(row_starts, keys & ROW_MASK, np.argsort(-counts, kind="stable"), 1 << ROW_SHIFT)
    return offsets, offsets[rows].astype(np.int64) + (keys & ROW_MASK)


def build_tables() -> EvalTables:
    """Build every table from first principles (about a second); :func:`load_tables` caches the result."""
    card_keys = np.zeros(52, dtype=np.uint64)
    card_bits = np.zeros(52, dtype=np.uint64)
    for card in range(52):
        rank, suit = card >> 2, card & 3
        card_keys[card] = RANK_MULTIPLIERS[rank] + (1 << (SUIT_SHIFT + 4 * suit))
        card_bits[card] = 1 << (16 * suit + rank)

    five_card_scores = {_best_non_flush_score(c) for c in _rank_multisets(5) if sum(c) == 5}
    flush_masks = [mask for mask in range(1 << 13) if 5 <= mask.bit_count() <= 7]
    five_card_scores |= {_flush_score(mask) for mask in flush_masks if mask.bit_count() == 5}
    ordered = sorted(five_card_scores)
    if len(ordered) != NUMBER_OF_CLASSES:
        raise RuntimeError(f"expected {NUMBER_OF_CLASSES} five-card classes, built {len(ordered)}")
    value_of_score = {score: value for value, score in enumerate(ordered, start=1)}
    class_scores = np.array([0, *ordered], dtype=np.int64)
    category_starts = np.searchsorted(class_scores[1:] // 13**5, np.arange(9)).astype(np.int32) + 1

    flush_values = np.zeros(1 << 13, dtype=np.uint16)
    for mask in flush_masks:
        flush_values[mask] = value_of_score[_flush_score(mask)]

    hand_multisets = [c for c in _rank_multisets(7) if sum(c) >= 5]
    keys = np.array([_rank_key(c) for c in hand_multisets], dtype=np.int64)
    values = np.array([value_of_score[_best_non_flush_score(c)] for c in hand_multisets], dtype=np.uint16)
    order = np.argsort(keys)
    row_offsets, slots = _perfect_hash(keys[order])
    rank_values = np.zeros(int(slots.max()) + 1, dtype=np.uint16)
    rank_values[slots] = values[order]
    return EvalTables(card_keys, card_bits, row_offsets, rank_values, flush_values, class_scores, category_starts)


def cache_directory() -> Path:
    """Where pokerlab caches tables: ``$POKERLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/pokerlab``, else
    ``~/.cache/pokerlab``."""
    explicit = os.environ.get("POKERLAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pokerlab"


_TABLES: EvalTables | None = None
_Bundle = TypeVar("_Bundle")


def cached_arrays(file_name: str, bundle: type[_Bundle], build: Callable[[], _Bundle]) -> _Bundle:
    """A NamedTuple of numpy arrays from ``file_name`` in :func:`cache_directory`, else made by ``build`` and
    cached (written atomically: a crash never leaves half a file). The arrays are
    read-only: every caller shares them. A corrupt or partial cache file is rebuilt; a read-only cache
    directory only costs a rebuild next time."""
    path = cache_directory() / file_name
    fields: tuple[str, ...] = getattr(bundle, "_fields")  # noqa: B009 (a NamedTuple class)
    result: Any = None
    if path.exists():
        try:
            with np.load(path) as stored:
                result = bundle(*(stored[name] for name in fields))
        except (OSError, KeyError, ValueError):
            result = None
    if result is None:
        result = build()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path) as temporary:
                np.savez(temporary, **result._asdict())
        except OSError:
            pass
    for array in result:
        array.setflags(write=False)
    return cast(_Bundle, result)


def load_tables() -> EvalTables:
    """The evaluator tables: from memory, else from the disk cache, else built and cached (first use only)."""
    global _TABLES
    if _TABLES is None:
        _TABLES = cached_arrays(f"evaluator-v{TABLE_FORMAT_VERSION}.npz", EvalTables, build_tables)
    return _TABLES
