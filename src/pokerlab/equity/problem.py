"""An equity problem, validated once: players' ranges after card removal, board, dead cards, remaining deck;
the check that some joint deal exists; the table from hand value to hand category."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pokerlab.cards.classes import COMBO_MASKS
from pokerlab.cards.encoding import cards_to_mask, format_cards, parse_cards
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.cards.tables import NUMBER_OF_CLASSES, load_tables
from pokerlab.errors import DuplicateCardError, InvalidArgumentError, InvalidHandError, InvalidRangeError

PlayerLike = str | Range
Progress = Callable[[float], None]
NO_JOINT_COMBO = "the ranges cannot all be dealt at once: every joint combo shares a card"
SHARE_UNITS = 2520  # a pot split k ways for k <= 10 is a whole number of these: exact integer equity shares


@lru_cache(maxsize=1)
def category_of_value() -> np.ndarray:
    """Hand category (0..8) of every hand value (index 0 unused), cached."""
    starts = load_tables().category_starts
    values = np.arange(NUMBER_OF_CLASSES + 1)
    categories = np.searchsorted(starts, values, side="right") - 1
    categories[0] = 0
    return categories.astype(np.uint8)


@dataclass(frozen=True)
class EquityProblem:
    """A validated equity problem: card-removed ranges, board, dead cards and the remaining deck."""

    names: tuple[str, ...]
    ranges: tuple[Range, ...]
    originals: tuple[Range, ...]
    board: list[int]
    dead: list[int]
    deck: np.ndarray

    @property
    def missing(self) -> int:
        return 5 - len(self.board)

    @property
    def fixed_mask(self) -> int:
        return cards_to_mask(self.board) | cards_to_mask(self.dead)


def _player_name(player: PlayerLike) -> str:
    return "".join(player.split()) if isinstance(player, str) else player.text


def prepare_problem(players: Sequence[PlayerLike], board: str | Sequence[int],
                    dead: str | Sequence[int]) -> EquityProblem:
    """Parse and validate the players, board and dead cards (the specific :class:`PokerlabError` otherwise)."""
    if isinstance(players, (str, Range)) or not isinstance(players, Sequence):
        raise InvalidArgumentError("players must be a list of ranges or hands, e.g. ['AsKs', 'QQ+'], got "
                                   f"{type(players).__name__}")
    if not 2 <= len(players) <= 10:
        raise InvalidArgumentError(f"equity needs 2 to 10 players, got {len(players)}")
    board_cards = parse_cards(board)
    if len(board_cards) not in (0, 3, 4, 5):
        raise InvalidHandError(f"a board has 0, 3, 4 or 5 cards, got {len(board_cards)}")
    dead_cards = parse_cards(dead)
    overlap = cards_to_mask(board_cards) & cards_to_mask(dead_cards)
    if overlap:
        raise DuplicateCardError(f"{format_cards(c for c in range(52) if overlap >> c & 1)} is both on the board "
                                 "and dead")
    fixed = cards_to_mask(board_cards) | cards_to_mask(dead_cards)
    originals = []
    for index, player in enumerate(players):
        try:
            originals.append(player if isinstance(player, Range) else parse_range(player))
        except InvalidRangeError as error:
            raise InvalidRangeError(f"player {index + 1}: {error}") from None
    names = tuple(_player_name(p) for p in players)
    # exact hands fix their cards: they may not collide with each other, the board or dead cards
    known = fixed
    for index, original in enumerate(originals):
        if original.is_exact_hand:
            mask = int(COMBO_MASKS[original.indices[0]])
            if mask & known:
                clash = mask & known
                card = format_cards([c for c in range(52) if clash >> c & 1][:1])
                raise DuplicateCardError(f"player {index + 1} ({names[index]}) holds {card}, which is already "
                                         "on the board, dead or in another player's hand")
            known |= mask
    ranges = []
    for index, original in enumerate(originals):
        others = known
        if original.is_exact_hand:
            others &= ~int(COMBO_MASKS[original.indices[0]])
        reduced = original.without(others)
        if reduced.combo_count == 0:
            raise InvalidRangeError(f"player {index + 1}'s range {names[index]!r} has no combo left after removing "
                                    "the board, dead cards and the other players' exact hands")
        ranges.append(reduced)
    deck = np.array([c for c in range(52) if not fixed >> c & 1], dtype=np.uint8)
    if len(deck) - 2 * len(players) < 5 - len(board_cards):
        raise InvalidArgumentError(f"not enough cards left to deal {len(players)} hands and the board")
    problem = EquityProblem(names, tuple(ranges), tuple(originals), board_cards, dead_cards, deck)
    if feasible_deal(problem) is False:
        raise InvalidRangeError(NO_JOINT_COMBO)
    return problem


def feasible_deal(problem: EquityProblem, node_limit: int = 200_000) -> bool | None:
    """Whether some joint combo has no card in common: ``True``, ``False``, or ``None`` when the search gave
    up after ``node_limit`` nodes (the exact and Monte Carlo runs then detect an empty support themselves).

    Depth-first, smallest ranges first, pruned by a counting bound: the players still to place need two cards
    each among the unused cards of their ranges.
    """
    order = sorted(range(len(problem.ranges)), key=lambda p: problem.ranges[p].combo_count)
    masks = [[int(m) for m in COMBO_MASKS[problem.ranges[p].indices]] for p in order]
    unions = [0] * (len(masks) + 1)  # unions[d]: every card of the ranges of players d, d+1, ...
    for depth in range(len(masks) - 1, -1, -1):
        card_union = 0
        for mask in masks[depth]:
            card_union |= mask
        unions[depth] = unions[depth + 1] | card_union
    nodes = 0

    def search(depth: int, used: int) -> bool | None:
        nonlocal nodes
        if depth == len(masks):
            return True
        if (unions[depth] & ~used).bit_count() < 2 * (len(masks) - depth):
            return False
        undecided = False
        for mask in masks[depth]:
            nodes += 1
            if nodes > node_limit:
                return None
            if not mask & used:
                found = search(depth + 1, used | mask)
                if found:
                    return True
                undecided = undecided or found is None
        return None if undecided else False

    return search(0, 0)


def is_uniform_random(original: Range) -> bool:
    """Whether a range gives every combo the same positive weight (a 'random' player)."""
    weights = original.weights
    return bool(weights[0] > 0 and np.all(weights == weights[0]))
