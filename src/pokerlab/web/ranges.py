"""Range text <-> 13x13 grid for the page's range editor, through the library's own parser and formatter (so
the text the page shows is exactly what the CLI reads)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from pokerlab.cards.encoding import cards_to_mask, parse_cards
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.errors import InvalidRangeError


def range_summary(text: str, board: str = "", paint: dict[str, float] | None = None) -> dict[str, Any]:
    """``pokerlab range TEXT --board BOARD --json`` (``range``, ``combos``, ``weighted_combos``, ``fraction``:
    what is left once the board's cards are out) plus ``grid`` (13x13 weighted fraction of each hand class
    left, aces first, suited above the diagonal) and ``text`` (the range before the board, what the page's
    text box shows), after setting every combo of each ``paint`` class (``{"AKs": 0.5}``) to its weight (0
    removes the class).

    >>> summary = range_summary("QQ+", board="Qh2c3d", paint={"AKs": 1})
    >>> summary["text"], summary["range"], summary["combos"]
    ('QQ+, AKs', 'KK+, AKs, QsQd, QsQc, QdQc', 19)
    """
    weights = parse_range(text).weights.copy() if text.strip() else np.zeros(1326)
    for name, weight in (paint or {}).items():
        if not (0.0 <= weight <= 1.0):
            raise InvalidRangeError(f"weight of {name!r} must be in [0, 1], got {weight:g}")
        members = parse_range(name).weights > 0
        weights[members] = weight
    full = Range(weights)
    r = full.without(cards_to_mask(parse_cards(board))) if board.strip() else full
    return {"text": full.text, "range": r.text, "combos": r.combo_count, "weighted_combos": r.weighted_count,
            "fraction": r.fraction,
            "grid": [[round(float(x), 4) for x in row] for row in r.grid()]}


@lru_cache(maxsize=4096)
def cached_range_summary(text: str, board: str, paint: tuple[tuple[str, float], ...]) -> dict[str, Any]:
    """:func:`range_summary` remembered by its arguments: the page asks for the same ranges again and again
    (every board change re-counts every player). Callers must not modify the returned dict."""
    return range_summary(text, board, dict(paint))
