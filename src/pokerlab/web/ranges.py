"""Range text <-> 13x13 grid for the page's range editor, through the library's own parser and formatter (so
the text the page shows is exactly what the CLI reads)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.cards.encoding import cards_to_mask, parse_cards
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.errors import InvalidRangeError


def range_summary(text: str, board: str = "", paint: dict[str, float] | None = None) -> dict[str, Any]:
    """``pokerlab range TEXT --json`` (``range``, ``combos``, ``weighted_combos``, ``fraction``) plus ``grid``
    (13x13 weighted fraction of each hand class, aces first, suited above the diagonal), after setting every
    combo of each ``paint`` class (``{"AKs": 0.5}``) to its weight (0 removes the class).

    >>> range_summary("QQ+", paint={"AKs": 1})["range"]
    'QQ+, AKs'
    """
    weights = parse_range(text).weights.copy() if text.strip() else np.zeros(1326)
    for name, weight in (paint or {}).items():
        if not (0.0 <= weight <= 1.0):
            raise InvalidRangeError(f"weight of {name!r} must be in [0, 1], got {weight:g}")
        members = parse_range(name).weights > 0
        weights[members] = weight
    r = Range(weights)
    if board.strip():
        r = r.without(cards_to_mask(parse_cards(board)))
    return {"range": r.text, "combos": r.combo_count, "weighted_combos": r.weighted_count, "fraction": r.fraction,
            "grid": [[round(float(x), 4) for x in row] for row in r.grid()]}
