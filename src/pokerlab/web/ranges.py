"""Range text <-> 13x13 grid for the page's range editor, through the library's own parser and formatter (so
the text the page shows is exactly what the CLI reads)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from pokerlab.cards.classes import COMBO_MASKS, COMBOS
from pokerlab.cards.encoding import cards_to_mask, format_cards, parse_cards
from pokerlab.cards.ranges import RANGE_STYLES, Range, parse_range
from pokerlab.errors import InvalidRangeError


def range_summary(text: str, board: str = "", paint: dict[str, float] | None = None,
                  hand: str = "") -> dict[str, Any]:
    """``pokerlab range TEXT --board BOARD --json`` (``range``, ``combos``, ``weighted_combos``, ``fraction``:
    what is left once the board's cards are out) plus ``grid`` (13x13: the weight of each hand class over its
    combos the board leaves, aces first, suited above the diagonal), ``blocked`` (13x13: the share of each
    class's combos that use a board card) and ``text`` (the range before the board, what the page's text box
    shows), after setting every combo of each ``paint`` key (a class ``{"AKs": 0.5}`` or one combo
    ``{"AhKh": 0}``) to its weight (0 removes it). With ``hand`` (a class), ``combos`` lists its combos with
    their weights and whether the board blocks them (the page's suit picker). ``export``: the range before the
    board as PioSOLVER, GTO+ and per-combo text (:meth:`~pokerlab.cards.ranges.Range.export`).

    >>> summary = range_summary("QQ+", board="Qh2c3d", paint={"AKs": 1})
    >>> summary["text"], summary["range"], summary["combos"], summary["grid"][2][2], summary["blocked"][2][2]
    ('QQ+, AKs', 'KK+, AKs, QsQd, QsQc, QdQc', 19, 1.0, 0.5)
    >>> [c for c in range_summary("AKs:0.5", paint={"AhKh": 0}, hand="AKs")["hand_combos"] if c["weight"]]
    [{'combo': 'AsKs', 'weight': 0.5, 'blocked': False}, {'combo': 'AdKd', 'weight': 0.5, 'blocked': False}, \
{'combo': 'AcKc', 'weight': 0.5, 'blocked': False}]
    """
    weights = parse_range(text).weights.copy() if text.strip() else np.zeros(1326)
    for name, weight in (paint or {}).items():
        if not (0.0 <= weight <= 1.0):
            raise InvalidRangeError(f"weight of {name!r} must be in [0, 1], got {weight:g}")
        members = parse_range(name).weights > 0
        weights[members] = weight
    full = Range(weights)
    mask = cards_to_mask(parse_cards(board)) if board.strip() else 0
    r = full.without(mask) if mask else full
    left = Range(np.ones(weights.size)).without(mask).grid()  # the share of each class the board leaves
    grid = np.divide(r.grid(), left, out=np.zeros((13, 13)), where=left > 0)
    summary: dict[str, Any] = {
        "text": full.text, "range": r.text, "combos": r.combo_count, "weighted_combos": r.weighted_count,
        "fraction": r.fraction, "grid": [[round(float(x), 4) for x in row] for row in grid],
        "blocked": [[round(1.0 - float(x), 4) for x in row] for row in left],
        "export": {style: full.export(style) for style in RANGE_STYLES}}
    if hand:
        combos = np.flatnonzero(parse_range(hand).weights > 0)
        summary["hand_combos"] = [{"combo": format_cards(COMBOS[i].tolist()), "weight": float(weights[i]),
                                   "blocked": bool(COMBO_MASKS[i] & np.uint64(mask))} for i in combos[::-1]]
    return summary


@lru_cache(maxsize=4096)
def cached_range_summary(text: str, board: str, paint: tuple[tuple[str, float], ...], hand: str = "") -> dict[str, Any]:
    """:func:`range_summary` remembered by its arguments: the page asks for the same ranges again and again
    (every board change re-counts every player). Callers must not modify the returned dict."""
    return range_summary(text, board, dict(paint), hand)
