"""The hold'em hand evaluator: a scalar API for convenience and a batch API for speed.

Hand values run from 1 (the weakest five-card hand, 7-5-4-3-2 offsuit) to 7462 (a royal flush); a larger
value is a stronger hand and equal values tie. Any 5, 6 or 7 distinct cards can be ranked: with more than five
cards the value is that of the best five.

>>> from pokerlab import evaluate, describe
>>> describe(evaluate("AsKs QsJsTs 2d 3c"))
'Royal flush'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from pokerlab.cards.encoding import RANK_NAMES, RANK_PLURALS, RANKS, format_cards, parse_cards
from pokerlab.cards.tables import (
    CATEGORIES,
    FLUSH_CHECK,
    NUMBER_OF_CLASSES,
    RANK_KEY_MASK,
    ROW_MASK,
    ROW_SHIFT,
    SUIT_BIAS,
    SUIT_SHIFT,
    load_tables,
)
from pokerlab.errors import DuplicateCardError, InvalidCardError, InvalidHandError

CardsLike = str | Iterable[str] | Iterable[int]


def _hand_cards(cards: CardsLike) -> list[int]:
    parsed = parse_cards(cards)
    if not 5 <= len(parsed) <= 7:
        raise InvalidHandError(f"a hand to evaluate needs 5, 6 or 7 cards, got {len(parsed)}")
    return parsed


def evaluate(cards: CardsLike) -> int:
    """Hand value (1..7462, larger is stronger) of 5, 6 or 7 distinct cards.

    >>> evaluate("As Ks Qs Js Ts")
    7462
    """
    return _value_of_cards(_hand_cards(cards))


def _value_of_cards(cards: list[int]) -> int:
    """One hand's value in plain Python from the same tables as the kernels (no compiled code to load: the
    CLI's ``eval`` answers without importing numba)."""
    tables = load_tables()
    key = SUIT_BIAS + sum(int(tables.card_keys[card]) for card in cards)
    bits = 0
    for card in cards:
        bits |= int(tables.card_bits[card])
    flush = (key >> SUIT_SHIFT) & FLUSH_CHECK
    if flush:
        shift = (32 if flush & 0x8800 else 0) + (16 if flush & 0x8080 else 0)
        return int(tables.flush_values[(bits >> shift) & 0x1FFF])
    rank_key = key & RANK_KEY_MASK
    return int(tables.rank_values[int(tables.row_offsets[rank_key >> ROW_SHIFT]) + (rank_key & ROW_MASK)])


def evaluate_batch(hands: np.ndarray, *, validate: bool = True) -> np.ndarray:
    """Hand values of many hands at once, in parallel: ``hands`` is an ``(N, k)`` array of card indices.

    ``k`` is 5, 6 or 7; the result is a ``uint16`` array of ``N`` values. With ``validate`` (the default) the
    cards (any integer dtype) are checked to be in 0..51 and distinct within each row, in a vectorised pass over
    the cards before the evaluation; ``validate=False`` skips the check and casts to ``uint8``: invalid cards (a
    card out of range, or held twice) then give undefined values and may read outside the evaluator's tables, so
    use it only on cards known to be valid.

    >>> import numpy as np
    >>> evaluate_batch(np.array([[48, 44, 40, 36, 32], [0, 5, 10, 15, 21]])).tolist()
    [7462, 1]
    """
    from pokerlab.cards.kernels import evaluate_rows, first_invalid_row, holds_invalid_card, narrow_cards

    array = np.asarray(hands)
    if array.ndim != 2 or not 5 <= array.shape[1] <= 7:
        raise InvalidHandError(f"hands must be an (N, k) array with k in 5..7, got shape {array.shape}")
    if not validate:
        return evaluate_rows(np.ascontiguousarray(array, dtype=np.uint8), load_tables())
    if array.dtype.kind not in "iu":
        raise InvalidCardError(f"card indices must be integers, got an array of {array.dtype}")
    cards = np.ascontiguousarray(array)
    if cards.dtype != np.uint8:
        narrowed = np.empty(cards.shape, dtype=np.uint8)
        narrow_cards(cards.reshape(-1), narrowed.reshape(-1))
        cards = narrowed
    if holds_invalid_card(cards):
        row = int(first_invalid_row(cards))
        if array[row].min() < 0 or array[row].max() > 51:
            raise InvalidCardError(f"card indices must be in 0..51 (hand {row}: {array[row].tolist()})")
        raise DuplicateCardError(f"hand {row} repeats a card: {format_cards(array[row])}")
    return evaluate_rows(cards, load_tables())


def category_index(value: int) -> int:
    """Category of a hand value as an index into :data:`CATEGORIES` (0 high card .. 8 straight flush)."""
    if not 1 <= value <= NUMBER_OF_CLASSES:
        raise InvalidHandError(f"hand value must be in 1..{NUMBER_OF_CLASSES}, got {value}")
    return int(np.searchsorted(load_tables().category_starts, value, side="right")) - 1


def category(value: int) -> str:
    """Category name of a hand value, e.g. ``'full house'``."""
    return CATEGORIES[category_index(value)]


def _class_ranks(value: int) -> list[int]:
    score = int(load_tables().class_scores[value])
    digits = []
    for _ in range(5):
        digits.append(score % 13)
        score //= 13
    return digits[::-1]


def describe(value: int) -> str:
    """Human description of a hand value: ``'Full house, kings full of sevens'``, ``'Straight, five high'``.

    >>> describe(evaluate("Kc Kd Kh 7s 7d"))
    'Full house, kings full of sevens'
    """
    kind = category_index(value)
    ranks = _class_ranks(value)
    name, plural = RANK_NAMES, RANK_PLURALS

    def kickers(ranks_: list[int]) -> str:
        return " ".join(RANKS[rank] for rank in ranks_)

    if kind == 8:
        return "Royal flush" if ranks[0] == 12 else f"Straight flush, {name[ranks[0]]} high"
    if kind == 7:
        return f"Four of a kind, {plural[ranks[0]]}, {name[ranks[1]]} kicker"
    if kind == 6:
        return f"Full house, {plural[ranks[0]]} full of {plural[ranks[1]]}"
    if kind == 5:
        return f"Flush, {name[ranks[0]]} high ({kickers(ranks)})"
    if kind == 4:
        return f"Straight, {name[ranks[0]]} high"
    if kind == 3:
        return f"Three of a kind, {plural[ranks[0]]}, kickers {kickers(ranks[1:3])}"
    if kind == 2:
        return f"Two pair, {plural[ranks[0]]} and {plural[ranks[1]]}, {name[ranks[2]]} kicker"
    if kind == 1:
        return f"Pair of {plural[ranks[0]]}, kickers {kickers(ranks[1:4])}"
    return f"High card, {name[ranks[0]]} ({kickers(ranks)})"


@dataclass(frozen=True)
class HandValue:
    """A ranked hand: its cards (canonical text), value (1..7462), category and description."""

    cards: str
    rank: int
    category: str
    description: str

    def to_dict(self) -> dict[str, object]:
        """The JSON form printed by ``pokerlab eval --json``."""
        return {"cards": self.cards, "rank": self.rank, "category": self.category, "description": self.description}


def evaluate_hand(cards: CardsLike) -> HandValue:
    """Rank 5, 6 or 7 cards and describe the result.

    >>> evaluate_hand("AsKs QsJsTs 2d 3c").description
    'Royal flush'
    """
    hand = _hand_cards(cards)
    value = evaluate(hand)
    return HandValue(format_cards(hand), value, category(value), describe(value))


def seven_card_category_counts() -> np.ndarray:
    """How many of the 133,784,560 seven-card hands fall in each category (exhaustive, in parallel).

    Returns an ``int64`` array of 9 counts, high card first. Takes about half a second per core.
    """
    counts = seven_card_value_counts_all()
    starts = list(load_tables().category_starts) + [NUMBER_OF_CLASSES + 1]
    return np.array([counts[starts[k] : starts[k + 1]].sum() for k in range(9)], dtype=np.int64)


def seven_card_value_counts_all() -> np.ndarray:
    """Count of seven-card hands per hand value, index 0..7462 (index 0 is always 0)."""
    from pokerlab.cards.kernels import seven_card_value_counts

    return seven_card_value_counts(load_tables())
