"""Hold'em hand ranges: the syntax players type, card removal, canonical text and the 13x13 grid.

Syntax (comma-separated tokens, spaces ignored, ranks case-insensitive):

==============  ==============================================================
``AA``          one pocket pair (6 combos)
``QQ+``         QQ, KK, AA
``22-77``       every pair from 22 to 77 (either order)
``AKs`` ``AKo``  suited (4) or offsuit (12) combos; ``AK`` is both (16)
``A2s+``        A2s, A3s, ..., AKs (kicker up to one below the top card)
``KTo+``        KTo, KJo, KQo
``T9s-65s``     T9s, 98s, 87s, 76s, 65s (same gap, both ranks move)
``K9s-K6s``     K9s, K8s, K7s, K6s (same top card, kicker moves)
``AsKs``        one exact combo
``random``      every combo (also ``*``, ``any`` and ``100%``)
``15%``         the top 15% of combos in the preflop order (equity against a random hand, exact;
                see :func:`pokerlab.cards.classes.preflop_order`)
``AKs:0.5``     any token with a weight in [0, 1] (PioSOLVER style); a later token overrides an earlier one
``[50]AKs[/50]``  GTO+ style: every token inside the brackets at that weight in percent
==============  ==============================================================

Tokens may also come one per line (or separated by ``;``), as per-combo lists are pasted (``AsKs: 0.5``).
:meth:`Range.export` writes a range back in each of these styles (:data:`RANGE_STYLES`).

A :class:`Range` holds a weight in [0, 1] for each of the 1,326 two-card combos, indexed as
:mod:`pokerlab.cards.classes` indexes them (and the 169 classes).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pokerlab.cards.classes import (
    CLASS_NAMES,
    CLASS_OF_COMBO,
    CLASS_SIZES,
    COMBO_MASKS,
    COMBOS,
    NUMBER_OF_CLASSES,
    NUMBER_OF_COMBOS,
    class_combos,
    class_of_ranks,
    combo_index,
    preflop_order,
)
from pokerlab.cards.encoding import RANKS, SUITS, format_card, suits_as_letters
from pokerlab.errors import InvalidRangeError
from pokerlab.plotting import pyplot, save_figure

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

def _class_combos(high: int, low: int, kind: str) -> np.ndarray:
    """The combos of a class token's ranks: one class (a pair, ``'s'`` or ``'o'``), or both for ``kind == ''``
    on two ranks (``AK``: 16 combos)."""
    if kind == "" and high != low:
        return np.concatenate([class_combos(class_of_ranks(high, low, True)),
                               class_combos(class_of_ranks(high, low, False))])
    return class_combos(class_of_ranks(high, low, kind == "s"))


def _top_percent(percent: float) -> np.ndarray:
    """Combo weights (0 or 1) of the top ``percent`` of combos in the preflop order.

    Classes are added strongest first while that brings the combo count closer to ``percent`` of 1,326, so
    ``15%`` selects whole classes totalling the count nearest to 198.9 combos.
    """
    target = percent / 100.0 * NUMBER_OF_COMBOS
    weights = np.zeros(NUMBER_OF_COMBOS)
    total = 0
    for index in preflop_order()[0]:
        combos = class_combos(int(index))
        if abs(total + len(combos) - target) > abs(total - target) and total > 0:
            break
        if total == 0 and target <= 0:
            break
        weights[combos] = 1.0
        total += len(combos)
    return weights


# ---------------------------------------------------------------------------------------------------------
# Parsing.

_EXPECTED = (
    "expected a hand class (AA, AKs, AKo, AK), a class with + (QQ+, A2s+), a span (22-77, T9s-65s, K9s-K6s), "
    "an exact hand (AsKs), random or a percentage (15%), optionally with a weight (AKs:0.5)"
)
_CLASS = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([SO]?)$")
_EXACT = re.compile(r"^([2-9TJQKA][CDHS])([2-9TJQKA][CDHS])$")
_PERCENT = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)%$")


def _parse_class(text: str, token: str) -> tuple[int, int, str]:
    match = _CLASS.match(text)
    if match is None:
        raise InvalidRangeError(f"{token!r}: {_EXPECTED}")
    r1, r2 = RANKS.index(match.group(1)), RANKS.index(match.group(2))
    kind = match.group(3).lower()
    if r1 == r2 and kind:
        raise InvalidRangeError(f"{token!r}: a pocket pair cannot be suited or offsuit (write {RANKS[r1] * 2})")
    return max(r1, r2), min(r1, r2), kind


def _classes_of_token(body: str, token: str) -> list[tuple[int, int, str]]:
    if body.endswith("+"):
        high, low, kind = _parse_class(body[:-1], token)
        if high == low:
            return [(rank, rank, "") for rank in range(low, 13)]
        return [(high, kicker, kind) for kicker in range(low, high)]
    if "-" in body:
        parts = body.split("-")
        if len(parts) != 2:
            raise InvalidRangeError(f"{token!r}: a span has exactly one '-' ({_EXPECTED})")
        a, b = (_parse_class(part, token) for part in parts)
        if a[0] == a[1] and b[0] == b[1]:
            lo, hi = sorted((a[0], b[0]))
            return [(rank, rank, "") for rank in range(lo, hi + 1)]
        if (a[0] == a[1]) != (b[0] == b[1]):
            raise InvalidRangeError(f"{token!r}: a span joins two pairs or two non-pairs, not one of each")
        if a[2] != b[2]:
            raise InvalidRangeError(f"{token!r}: both ends of a span must have the same suffix (s, o or none)")
        if a[0] == b[0]:  # K9s-K6s: same top card, the kicker moves
            lo, hi = sorted((a[1], b[1]))
            return [(a[0], kicker, a[2]) for kicker in range(lo, hi + 1)]
        if a[0] - a[1] == b[0] - b[1]:  # T9s-65s: same gap, both ranks move
            gap = a[0] - a[1]
            lo, hi = sorted((a[1], b[1]))
            return [(low + gap, low, a[2]) for low in range(lo, hi + 1)]
        raise InvalidRangeError(
            f"{token!r}: a span needs the same top card (K9s-K6s) or the same gap between ranks (T9s-65s)"
        )
    return [_parse_class(body, token)]


def _token_weights(token: str) -> tuple[np.ndarray, float]:
    """The combos (as a 0/1 vector) and weight of one token."""
    body, weight = token, 1.0
    if ":" in token:
        body, _, weight_text = token.partition(":")
        try:
            weight = float(weight_text)
        except ValueError:
            raise InvalidRangeError(f"{token!r}: the weight after ':' must be a number in [0, 1]") from None
        if not (0.0 <= weight <= 1.0) or math.isnan(weight):
            raise InvalidRangeError(f"{token!r}: the weight after ':' must be in [0, 1], got {weight_text}")
    if not body:
        raise InvalidRangeError(f"{token!r}: {_EXPECTED}")
    upper = body.upper()
    selected = np.zeros(NUMBER_OF_COMBOS)
    if upper in ("RANDOM", "*", "ANY"):
        selected[:] = 1.0
        return selected, weight
    percent = _PERCENT.match(upper)
    if percent:
        value = float(percent.group(1))
        if not 0.0 < value <= 100.0:
            raise InvalidRangeError(f"{token!r}: a percentage must be in (0, 100]")
        return (_top_percent(value) if value < 100.0 else np.ones(NUMBER_OF_COMBOS)), weight
    upper = upper.replace("10", "T")  # people type 10 for a ten: A10s, 10s9s
    exact = _EXACT.match(upper)
    if exact:
        first = 4 * RANKS.index(exact.group(1)[0]) + SUITS.index(exact.group(1)[1].lower())
        second = 4 * RANKS.index(exact.group(2)[0]) + SUITS.index(exact.group(2)[1].lower())
        if first == second:
            raise InvalidRangeError(f"{token!r}: an exact hand needs two different cards")
        selected[combo_index(first, second)] = 1.0
        return selected, weight
    for high, low, kind in _classes_of_token(upper, token):
        selected[_class_combos(high, low, kind)] = 1.0
    return selected, weight


_BRACKETS = re.compile(r"\[([^\]/]*)\]([^\[]*)\[/[^\]]*\]")


def _plain_syntax(text: str) -> str:
    """``text`` with lines and ``;`` as commas and GTO+ brackets (``[50]AKs,AQs[/50]``) as per-token weights."""
    parts = [part.strip().strip(",") for part in re.split(r"[\r\n;]+", text)]
    text = ",".join(part for part in parts if part)

    def weighted(match: re.Match[str]) -> str:
        try:
            percent = float(match.group(1))
        except ValueError:
            raise InvalidRangeError(f"[{match.group(1)}]: a bracket weight is a percentage, e.g. [50]AKs[/50]") \
                from None
        if not 0 <= percent <= 100:
            raise InvalidRangeError(f"[{match.group(1)}]: a bracket weight is a percentage from 0 to 100")
        return ",".join(f"{token.strip()}:{percent / 100!r}" for token in match.group(2).split(",") if token.strip())

    text = _BRACKETS.sub(weighted, text)
    if "[" in text or "]" in text:
        raise InvalidRangeError(f"unmatched bracket in {text!r}: a GTO+ weight reads [50]AKs,AQs[/50]")
    return text


def parse_range(text: str) -> Range:
    """Parse a range such as ``'QQ+, AKs, A5s-A2s:0.5, T9s-65s'`` into a :class:`Range`.

    Raises :class:`InvalidRangeError` naming the bad token and what was expected.

    >>> parse_range("QQ+, AKs").combo_count
    22
    """
    if isinstance(text, Range):
        return text
    if not isinstance(text, str):
        raise InvalidRangeError(f"a range must be text, got {type(text).__name__}")
    compact = suits_as_letters("".join(_plain_syntax(text).split()))
    if not compact:
        raise InvalidRangeError("empty range: " + _EXPECTED)
    weights = np.zeros(NUMBER_OF_COMBOS)
    for token in compact.split(","):
        if not token:
            raise InvalidRangeError(f"empty token between commas in {text!r}")
        selected, weight = _token_weights(token)
        weights[selected > 0] = weight  # a later token overrides an earlier one
    return Range(weights)


# ---------------------------------------------------------------------------------------------------------
# The Range object.


#: The text styles :meth:`Range.export` writes and :func:`parse_range` reads.
RANGE_STYLES = ("pio", "gtoplus", "combos")


def _format_weight(weight: float) -> str:
    # repr is the shortest text that parses back to the same float, so canonical text round-trips exactly
    return "" if weight == 1.0 else f":{float(weight)!r}"


@dataclass(frozen=True, eq=False)
class Range:
    """A weighted set of two-card combos: ``weights[i]`` in [0, 1] for combo ``i`` (see :data:`COMBOS`).

    >>> r = parse_range("AA, AKs:0.5")
    >>> r.combo_count, r.text
    (10, 'AA, AKs:0.5')
    """

    weights: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        array = np.asarray(self.weights, dtype=np.float64).copy()
        if array.shape != (NUMBER_OF_COMBOS,):
            raise InvalidRangeError(f"a range has {NUMBER_OF_COMBOS} combo weights, got shape {array.shape}")
        if not np.all(np.isfinite(array)) or array.min() < 0 or array.max() > 1:
            raise InvalidRangeError("combo weights must be finite numbers in [0, 1]")
        array.setflags(write=False)
        object.__setattr__(self, "weights", array)

    @cached_property
    def indices(self) -> np.ndarray:
        """Indices of the combos with positive weight, increasing (read-only; computed once: the weights are
        read-only too)."""
        indices = np.flatnonzero(self.weights > 0)
        indices.setflags(write=False)
        return indices

    @property
    def combos(self) -> np.ndarray:
        """``(n, 2)`` uint8 cards of the combos with positive weight (higher card first)."""
        cards: np.ndarray = COMBOS[self.indices]
        return cards

    @property
    def combo_count(self) -> int:
        """Number of combos with positive weight."""
        return len(self.indices)

    @property
    def weighted_count(self) -> float:
        """Sum of the weights: the number of combos counting ``AKs:0.5`` as 2."""
        return float(self.weights.sum())

    @property
    def is_exact_hand(self) -> bool:
        """True when the range is one combo."""
        return self.combo_count == 1

    @property
    def fraction(self) -> float:
        """Weighted share of all 1,326 combos (1.0 for ``random``)."""
        return self.weighted_count / NUMBER_OF_COMBOS

    def without(self, mask: int) -> Range:
        """The range less every combo that uses a card of ``mask`` (a bitmask of board, dead or known cards)."""
        blocked = (COMBO_MASKS & np.uint64(mask)) != 0
        weights = self.weights.copy()
        weights[blocked] = 0.0
        return Range(weights)

    def permuted(self, suit_map: tuple[int, int, int, int]) -> Range:
        """The range with suits relabelled: suit ``s`` becomes ``suit_map[s]``."""
        mapping = np.array([4 * (c >> 2) + suit_map[c & 3] for c in range(52)], dtype=np.int64)
        new_index = np.array([combo_index(int(mapping[a]), int(mapping[b])) for a, b in COMBOS])
        weights = np.zeros(NUMBER_OF_COMBOS)
        weights[new_index] = self.weights
        return Range(weights)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Range) and bool(np.array_equal(self.weights, other.weights))

    def __hash__(self) -> int:
        return hash(self.weights.tobytes())

    def __len__(self) -> int:
        return self.combo_count

    def __str__(self) -> str:
        return self.text

    # -- canonical text ---------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Canonical text: whole classes compressed into ``QQ+``, ``A2s+``, ``77-22``, ``K9s-K6s``,
        partial classes as exact combos, weights as ``:w``. Parsing it gives back the same range."""
        w = self.weights
        if np.all(w == w[0]) and w[0] > 0:
            return "random" + _format_weight(float(w[0]))
        tokens: list[str] = []
        leftovers: list[int] = []

        def class_weight(high: int, low: int, kind: str) -> float | None:
            combos = _class_combos(high, low, kind)
            values = w[combos]
            if values[0] > 0 and np.all(values == values[0]):
                return float(values[0])
            leftovers.extend(c for c in combos if w[c] > 0)
            return None

        pair_weights = [class_weight(rank, rank, "") for rank in range(13)]
        tokens.extend(_runs_of_pairs(pair_weights))
        for kind in ("s", "o"):
            for high in range(12, 0, -1):
                kicker_weights = [class_weight(high, low, kind) for low in range(high)]
                tokens.extend(_runs_of_kickers(high, kind, kicker_weights))
        for index in sorted(leftovers, reverse=True):
            a, b = COMBOS[index]
            tokens.append(format_card(int(a)) + format_card(int(b)) + _format_weight(float(w[index])))
        return ", ".join(tokens) if tokens else ""

    def export(self, style: str = "pio") -> str:
        """The range as text in ``style`` (:data:`RANGE_STYLES`): ``pio`` the canonical text (PioSOLVER's
        syntax, ``AKs:0.5``); ``gtoplus`` each weight's hands in GTO+ brackets (``[50]AKs[/50]``, percent);
        ``combos`` every combo with its weight (``AsKs:0.5``, GTO Wizard's paste). Each parses back to this
        range (weights to 1e-12 in ``gtoplus``, whose percent is written in full).

        >>> r = parse_range("QQ+, AKs:0.5")
        >>> r.export("gtoplus")
        'QQ+, [50.0]AKs[/50.0]'
        >>> parse_range(r.export("gtoplus")) == r, parse_range(r.export("combos")) == r
        (True, True)
        """
        if style not in RANGE_STYLES:
            raise InvalidRangeError(f"range style {style!r}: expected one of {', '.join(RANGE_STYLES)}")
        if style == "pio":
            return self.text
        w = self.weights
        if style == "combos":
            return ",".join(format_card(int(COMBOS[i][0])) + format_card(int(COMBOS[i][1])) + f":{float(w[i])!r}"
                            for i in np.flatnonzero(w > 0)[::-1])
        parts = []
        for weight in sorted(set(w[w > 0].tolist()), reverse=True):
            text = Range(np.where(w == weight, 1.0, 0.0)).text
            parts.append(text if weight == 1.0 else f"[{100 * weight!r}]{text}[/{100 * weight!r}]")
        return ", ".join(parts)

    # -- grid ----------------------------------------------------------------------------------------------

    def grid(self) -> np.ndarray:
        """``(13, 13)`` weighted fraction of each class present: pairs on the diagonal, suited above it,
        offsuit below, aces first (row 0 / column 0)."""
        totals = np.bincount(CLASS_OF_COMBO, weights=self.weights, minlength=NUMBER_OF_CLASSES)
        grid: np.ndarray = (totals / CLASS_SIZES).reshape(13, 13)
        return grid

    def rich_grid(self) -> Table:
        """The 13x13 grid as a rich table, cells shaded by the fraction of the class in the range."""
        from rich.table import Table

        fractions = self.grid()
        table = Table(show_header=False, box=None, padding=(0, 0))
        for _ in range(13):
            table.add_column(justify="center", width=4)
        for row in range(13):
            cells = []
            for col in range(13):
                name = CLASS_NAMES[13 * row + col]
                fraction = fractions[row, col]
                if fraction >= 1.0:
                    style = "bold black on green"
                elif fraction > 0:
                    style = "black on yellow"
                else:
                    style = "dim"
                cells.append(f"[{style}]{name:^4}[/]")
            table.add_row(*cells)
        return table

    def save_png(self, path: str | Path) -> Path:
        """Draw the grid to an image file (needs the ``plot`` extra: matplotlib); ``.png`` is added to a name
        without a suffix. Returns the path written."""
        plt = pyplot()
        fractions = self.grid()
        figure, axes = plt.subplots(figsize=(7, 7))
        axes.imshow(fractions, cmap="Greens", vmin=0, vmax=1)
        for row in range(13):
            for col in range(13):
                name = CLASS_NAMES[13 * row + col]
                axes.text(col, row, name, ha="center", va="center", fontsize=7,
                          color="white" if fractions[row, col] > 0.6 else "black")
        axes.set_xticks([])
        axes.set_yticks([])
        axes.set_title(f"{self.combo_count} combos ({100 * self.fraction:.1f}%)")
        return save_figure(figure, path, dpi=100, bbox_inches="tight")


def _compress_runs(weights: list[float | None], top: int, name: Callable[[int], str]) -> list[str]:
    """Compress weights indexed by rank, from ``top`` down, into tokens: a run of equal weights starting at
    ``top`` is ``bottom+`` (``QQ+``, ``A2s+``), any other run ``top-bottom`` (``77-22``, ``K9s-K6s``), a single
    rank its own name; ``None`` marks a rank absent from the range."""
    tokens = []
    rank = top
    while rank >= 0:
        weight = weights[rank]
        if weight is None:
            rank -= 1
            continue
        bottom = rank
        while bottom - 1 >= 0 and weights[bottom - 1] == weight:
            bottom -= 1
        if bottom == rank:
            token = name(rank)
        elif rank == top:
            token = name(bottom) + "+"
        else:
            token = f"{name(rank)}-{name(bottom)}"
        tokens.append(token + _format_weight(weight))
        rank = bottom - 1
    return tokens


def _runs_of_pairs(weights: list[float | None]) -> list[str]:
    """Pair weights (index = rank) as ``QQ+``, ``77-22``, ``55`` tokens, top rank first."""
    return _compress_runs(weights, 12, lambda rank: RANKS[rank] * 2)


def _runs_of_kickers(high: int, kind: str, weights: list[float | None]) -> list[str]:
    """One top card's kicker weights (index = kicker rank) as ``A2s+``, ``K9s-K6s``, ``AKo`` tokens."""
    return _compress_runs(weights, high - 1, lambda kicker: CLASS_NAMES[class_of_ranks(high, kicker, kind == "s")])
