"""Card encoding, parsing and formatting.

One encoding everywhere: ``card = 4 * rank + suit`` with rank 0..12 for 2..A and suit 0..3 for c, d, h, s.
A set of cards is a ``uint64`` bitmask with bit ``card`` set. Parsing accepts the forms people type
(``AsKd``, ``As Kd``, ``as,kd``, ``10h``, ``A♠K♦``); formatting is canonical (``AsKd``).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Sequence

from pokerlab.errors import DuplicateCardError, InvalidCardError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52

RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
RANK_PLURALS = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks",
                "queens", "kings", "aces")

# suits as card rooms and books print them, filled or outlined
SUIT_SYMBOLS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s", "♧": "c", "♢": "d", "♡": "h", "♤": "s"}
_SUIT_SYMBOL_TABLE = str.maketrans(SUIT_SYMBOLS)
_VARIATION_SELECTORS = str.maketrans({"\ufe0e": None, "\ufe0f": None})  # text/emoji style of ♠️

_SEPARATORS = re.compile(r"[\s,;]+")
_CARD_TOKEN = re.compile(r"(10|.)(.)")


def card_from_rank_suit(rank: int, suit: int) -> int:
    """Card index of a rank (0..12 for 2..A) and suit (0..3 for c, d, h, s). Example: ``(12, 3) -> 51`` (As)."""
    return 4 * rank + suit


def suits_as_letters(text: str) -> str:
    """``text`` with the suit symbols ♣♦♥♠ (and ♧♢♡♤, with or without emoji selectors) written as c, d, h, s.

    >>> suits_as_letters("A♠K♥ 10♦")
    'AsKh 10d'
    """
    return text.translate(_VARIATION_SELECTORS).translate(_SUIT_SYMBOL_TABLE)


def parse_card(token: str) -> int:
    """Parse one card such as ``'As'``, ``'td'``, ``'10h'`` or ``'A♠'`` into its index 0..51.

    Raises :class:`InvalidCardError` naming the token and what is wrong with it.

    >>> parse_card("As"), parse_card("A♠")
    (51, 51)
    """
    text = suits_as_letters(token.strip())
    if text[:2] == "10":
        rank_char, suit_part = "T", text[2:]
    else:
        rank_char, suit_part = text[:1].upper(), text[1:]
    if not text:
        raise InvalidCardError("empty card token")
    if rank_char not in RANKS:
        raise InvalidCardError(f"{token!r}: unknown rank {text[:1]!r} (expected one of {RANKS} or 10)")
    if len(suit_part) != 1:
        what = "missing suit" if not suit_part else f"unexpected {suit_part!r} after the rank"
        raise InvalidCardError(f"{token!r}: {what} (expected a rank then one suit of {SUITS})")
    suit_char = suit_part.lower()
    if suit_char not in SUITS:
        raise InvalidCardError(f"{token!r}: unknown suit {suit_part!r} (expected one of {SUITS} or ♣♦♥♠)")
    return card_from_rank_suit(RANKS.index(rank_char), SUITS.index(suit_char))


def _split_card_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for chunk in _SEPARATORS.split(suits_as_letters(text).strip()):
        if not chunk:
            continue
        position = 0
        while position < len(chunk):
            match = _CARD_TOKEN.match(chunk, position)
            if match is None:  # a lone trailing character
                tokens.append(chunk[position:])
                break
            tokens.append(match.group(0))
            position = match.end()
    return tokens


def parse_cards(text: str | Iterable[str] | Iterable[int], *, allow_duplicates: bool = False) -> list[int]:
    """Parse a list of cards written as ``'AsKd'``, ``'As Kd'``, ``'as,kd'`` or ``'10h 9h'``.

    Also accepts an iterable of card strings or of card indices. Raises :class:`InvalidCardError` for a
    bad token and :class:`DuplicateCardError` for a card given twice (unless ``allow_duplicates``).

    >>> parse_cards("AsKd")
    [51, 45]
    """
    if isinstance(text, str):
        cards = [parse_card(token) for token in _split_card_tokens(text)]
    elif not isinstance(text, Iterable) or isinstance(text, bytes):
        raise InvalidCardError(f"cards must be text like 'AsKd' or a list of cards, got {type(text).__name__}")
    else:
        cards = []
        for item in text:
            if isinstance(item, str):
                cards.extend(parse_cards(item, allow_duplicates=True))
            elif isinstance(item, bool) or not isinstance(item, numbers.Integral):
                raise InvalidCardError(f"a card is text like 'As' or an index 0..51, got {type(item).__name__}")
            else:
                value = int(item)
                if not 0 <= value < DECK_SIZE:
                    raise InvalidCardError(f"card index {value} is outside 0..51")
                cards.append(value)
    if not allow_duplicates:
        check_distinct(cards)
    return cards


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`DuplicateCardError` naming the first card that appears twice."""
    seen = 0
    for card in cards:
        bit = 1 << card
        if seen & bit:
            raise DuplicateCardError(f"duplicate card {format_card(card)}")
        seen |= bit


def format_card(card: int) -> str:
    """Canonical text of one card index. Example: ``format_card(51) == 'As'``."""
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[int], separator: str = "") -> str:
    """Canonical text of several cards, in the given order. Example: ``format_cards([51, 45]) == 'AsKd'``."""
    return separator.join(format_card(int(card)) for card in cards)


def cards_to_mask(cards: Iterable[int]) -> int:
    """Bitmask (as a Python int fitting in uint64) with bit ``card`` set for each card."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def mask_to_cards(mask: int) -> list[int]:
    """Card indices set in a bitmask, in increasing order."""
    return [card for card in range(DECK_SIZE) if mask >> card & 1]
