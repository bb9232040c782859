"""Combos and the 169 preflop hand classes, in one numbering used everywhere.

A *combo* is two distinct cards, indexed 0..1325 by ``high * (high - 1) / 2 + low`` over the card codes
(:data:`COMBOS`, :func:`combo_index`). A *class* is a combo up to suits: a pair (6 combos), a suited (4) or an
offsuit (12) hand of two ranks. Classes are indexed by the 13 x 13 grid players read, flattened row-major: row
and column ``12 - rank`` (aces first), pairs on the diagonal, suited hands above it (row of the high rank, column
of the low), offsuit hands below it (row of the low rank, column of the high). So ``AA`` is 0, ``AKs`` 1, ``AKo``
13 and ``22`` 168. The preflop tables, ranges, push/fold results and the simulator's charts all use it.

>>> class_index("AA"), class_index("AKs"), class_index("AKo"), class_index("22")
(0, 1, 13, 168)
>>> class_label(1), int(CLASS_SIZES.sum())
('AKs', 1326)
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from pokerlab.cards.encoding import RANKS
from pokerlab.errors import InvalidRangeError

NUMBER_OF_CLASSES = 169
NUMBER_OF_COMBOS = 1326
PREFLOP_ORDER_FILE = "preflop_order.json"


def class_of_ranks(high: int, low: int, suited: bool) -> int:
    """The class index of two ranks (0..12 for 2..A, ``high >= low``), suited or not (ignored for a pair).

    >>> class_of_ranks(12, 11, True), class_of_ranks(12, 11, False), class_of_ranks(0, 0, False)
    (1, 13, 168)
    """
    if high == low or suited:
        return 13 * (12 - high) + (12 - low)
    return 13 * (12 - low) + (12 - high)


def class_of_cards(first: int, second: int) -> int:
    """The class index of two hole cards (``card = 4 * rank + suit``). Plain Python, so that reading the classes
    loads no compiler; the simulator compiles this same function into its hand (``simulation.kernels``).

    >>> class_of_cards(51, 47), class_of_cards(0, 1)  # AsKs, 2c2d
    (1, 168)
    """
    r1 = first >> 2
    r2 = second >> 2
    high = max(r1, r2)
    low = min(r1, r2)
    if high == low or (first & 3) == (second & 3):
        return 13 * (12 - high) + (12 - low)
    return 13 * (12 - low) + (12 - high)


def class_ranks(index: int) -> tuple[int, int, str]:
    """``(high rank, low rank, kind)`` of a class, kind ``''`` for a pair, ``'s'`` suited, ``'o'`` offsuit.

    >>> class_ranks(1), class_ranks(13), class_ranks(0)
    ((12, 11, 's'), (12, 11, 'o'), (12, 12, ''))
    """
    row, col = divmod(index, 13)
    high, low = 12 - min(row, col), 12 - max(row, col)
    return high, low, "" if row == col else "s" if col > row else "o"


def class_label(index: int) -> str:
    """The name of a class: ``AA``, ``AKs``, ``T9o``."""
    high, low, kind = class_ranks(index)
    return RANKS[high] + RANKS[low] + kind


CLASS_NAMES: tuple[str, ...] = tuple(class_label(i) for i in range(NUMBER_OF_CLASSES))
"""The 169 class names by index (grid order)."""
_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_index(name: str) -> int:
    """The index of a class name (``AA``, ``AKs``, ``KAo``: ranks in either order), or the error saying what is
    wrong."""
    text = name.strip()
    text = text[:2].upper() + text[2].lower() if len(text) == 3 and text[0] != text[1] else text.upper()
    if len(text) >= 2 and text[0] in RANKS and text[1] in RANKS and RANKS.index(text[0]) < RANKS.index(text[1]):
        text = text[1] + text[0] + text[2:]
    index = _INDEX.get(text)
    if index is None:
        raise InvalidRangeError(f"{name!r} is not a hand class: expected a pair (AA), suited (AKs) or offsuit (AKo)")
    return index


def _all_combos() -> np.ndarray:
    combos = np.empty((NUMBER_OF_COMBOS, 2), dtype=np.uint8)
    index = 0
    for high in range(52):
        for low in range(high):
            combos[index] = (high, low)
            index += 1
    combos.setflags(write=False)
    return combos


COMBOS = _all_combos()
"""``(1326, 2)`` uint8: the two cards of each combo, higher card first."""
COMBO_MASKS = (np.uint64(1) << COMBOS[:, 0].astype(np.uint64)) | (np.uint64(1) << COMBOS[:, 1].astype(np.uint64))
"""``(1326,)`` uint64: the card bitmask of each combo."""
CLASS_OF_COMBO = np.array([class_of_cards(int(high), int(low)) for high, low in COMBOS], dtype=np.int64)
"""``(1326,)`` int64: the class of each combo."""
CLASS_OF_COMBO.setflags(write=False)
CLASS_SIZES = np.bincount(CLASS_OF_COMBO, minlength=NUMBER_OF_CLASSES).astype(np.int64)
"""``(169,)`` int64: combos per class (6, 4 or 12)."""
CLASS_SIZES.setflags(write=False)


def combo_index(first: int, second: int) -> int:
    """Index (0..1325) of the combo of two distinct cards, in either order. ``combo_index(51, 47)`` is AsKs."""
    high, low = max(first, second), min(first, second)
    return high * (high - 1) // 2 + low


def class_combos(index: int) -> np.ndarray:
    """The combo indices of a class, increasing.

    >>> class_combos(class_index("AKs")).size, class_combos(class_index("AA")).size
    (4, 6)
    """
    return np.flatnonzero(np.equal(CLASS_OF_COMBO, index))


@lru_cache(maxsize=1)
def preflop_order() -> tuple[np.ndarray, np.ndarray]:
    """The 169 class indices strongest first, and each one's exact all-in equity against one random hand.

    The order behind ``15%``-style range tokens and the simulator's simple-rules charts. It ships as
    ``pokerlab/data/preflop_order.json``, computed by pokerlab's own exact enumeration
    (``scripts/preflop_order.py`` regenerates it). The arrays are read-only.

    >>> order, equity = preflop_order()
    >>> CLASS_NAMES[order[0]], round(float(equity[0]), 4)
    ('AA', 0.852)
    """
    text = resources.files("pokerlab").joinpath("data", PREFLOP_ORDER_FILE).read_text(encoding="utf-8")
    entries = json.loads(text)["classes"]
    order = np.array([class_index(entry["class"]) for entry in entries], dtype=np.int64)
    equity = np.array([float(entry["equity"]) for entry in entries])
    order.setflags(write=False)
    equity.setflags(write=False)
    return order, equity
