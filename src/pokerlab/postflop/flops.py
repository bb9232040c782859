"""The flops of a many-flop report: the 1,755 strategically distinct flops with their frequencies, subsets of
them that keep the textures' frequencies, and each flop's texture.

Two flops are the same strategically when a permutation of the suits maps one onto the other (ranges are
suit-symmetric before the flop): the 22,100 flops fall into 1,755 classes, and a class's **weight** is the
number of flops in it (4 for a monotone flop of three ranks, 24 for a rainbow one, ...). A class is named by its
smallest member under the card encoding (``card = 4 * rank + suit``), highest card first.

**Subsets** (``49``, ``95``, ``184`` flops, or any size): the classes are put in texture order (suits, pairing,
high card, connectedness, then ranks) and cut into that many runs of equal total weight; each run's
representative is the class at its weighted middle, and it carries the run's whole weight. An aggregate over a
subset is then the weighted mean over the representatives, and every texture keeps its share of the 22,100
flops up to one run. These are pokerlab's subsets, built by that rule; they are not the lists another solver
ships under the same sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations

import numpy as np

from pokerlab.cards.encoding import RANKS, format_card, parse_cards
from pokerlab.errors import InvalidArgumentError

ALL_FLOPS = 22_100
DISTINCT_FLOPS = 1_755
SUBSET_SIZES = (49, 95, 184)
SUIT_TEXTURES = ("monotone", "two-tone", "rainbow")
PAIRING = ("unpaired", "paired", "trips")
HIGH_CARDS = ("A", "K", "Q", "J", "T-")
CONNECTEDNESS = ("connected", "semi-connected", "disconnected")
#: Every texture field and its values, in the order reports show them.
TEXTURES = {"suits": SUIT_TEXTURES, "pairing": PAIRING, "high": HIGH_CARDS, "connectedness": CONNECTEDNESS}


@dataclass(frozen=True)
class FlopSet:
    """Flops (``cards``: ``(n, 3)`` card codes, highest first) and their weights (flops represented each)."""

    cards: np.ndarray
    weights: np.ndarray

    @property
    def names(self) -> list[str]:
        return [flop_name(row) for row in self.cards]


def flop_name(cards: np.ndarray | tuple[int, ...]) -> str:
    """``"AsKd2c"``: the flop's cards, highest first."""
    return "".join(format_card(int(c)) for c in sorted((int(c) for c in cards), reverse=True))


def canonical(cards: tuple[int, int, int]) -> tuple[int, int, int]:
    """The class of a flop: its smallest image under the 24 suit permutations (sorted card codes, highest
    first, compared as tuples).

    >>> flop_name(canonical(tuple(parse_cards("AhKh2h")))) == flop_name(canonical(tuple(parse_cards("AcKc2c"))))
    True
    """
    best: tuple[int, int, int] | None = None
    for perm in permutations(range(4)):
        image = sorted((4 * (c // 4) + perm[c % 4] for c in cards), reverse=True)
        key = (image[0], image[1], image[2])
        if best is None or key < best:
            best = key
    assert best is not None
    return best


@cache
def distinct_flops() -> FlopSet:
    """The 1,755 flop classes and their weights (summing to 22,100), in texture order (:func:`texture_key`).

    >>> flops = distinct_flops(); len(flops.weights), int(flops.weights.sum())
    (1755, 22100)
    """
    flops = np.array(list(combinations(range(52), 3)), dtype=np.int64)
    perms = np.array(list(permutations(range(4))), dtype=np.int64)
    # every flop under every suit permutation, sorted highest first and read as one number: the least is its class
    images = -np.sort(-(4 * (flops // 4)[None] + perms[:, flops % 4]), axis=2)
    codes = ((images[..., 0] * 52 + images[..., 1]) * 52 + images[..., 2]).min(axis=0)
    keys, counts = np.unique(codes, return_counts=True)
    classes = np.stack([keys // 2704, keys // 52 % 52, keys % 52], axis=1)
    order = sorted(range(len(keys)), key=lambda i: texture_key(classes[i]))
    return FlopSet(classes[order], counts[order].astype(np.int64))


def texture(cards: np.ndarray | tuple[int, ...]) -> dict[str, str]:
    """A flop's texture in players' words: ``suits`` (monotone, two-tone, rainbow), ``pairing`` (unpaired,
    paired, trips), ``high`` (its highest rank: A, K, Q, J, or T-, for ten or lower) and ``connectedness``
    (``connected``: three ranks within five, so two hole cards can make a straight now; ``semi-connected``: two
    ranks within five, a straight needs a turn or river card too; ``disconnected``: neither). The ace plays low
    too (A-2-3 is connected, A-7-2 semi-connected).

    >>> texture(parse_cards("Ah7h2h"))["suits"], texture(parse_cards("9s8d7c"))["connectedness"]
    ('monotone', 'connected')
    """
    ranks = sorted({int(c) // 4 for c in cards}, reverse=True)
    suits = len({int(c) % 4 for c in cards})
    pairing = PAIRING[3 - len(ranks)]
    high = RANKS[ranks[0]] if ranks[0] >= RANKS.index("J") else "T-"
    # a rank set seen with the ace low as well (rank -1)
    spans = [ranks] + ([[r if r != 12 else -1 for r in ranks]] if 12 in ranks else [])
    within = 0
    for ranks_seen in spans:
        for low in range(-1, 9):
            within = max(within, sum(1 for r in ranks_seen if low <= r <= low + 4))
    if len(ranks) == 3 and within == 3:
        connected = "connected"
    elif within >= 2 and len(ranks) >= 2:
        connected = "semi-connected"
    else:
        connected = "disconnected"
    return {"suits": SUIT_TEXTURES[suits - 1], "pairing": pairing, "high": high,
            "connectedness": connected}


def texture_key(cards: np.ndarray) -> tuple[int, int, int, int, tuple[int, ...]]:
    """The order of :func:`distinct_flops`: suits, pairing, high card (high first), connectedness, ranks."""
    t = texture(cards)
    ranks = tuple(sorted(-(int(c) // 4) for c in cards))
    return (SUIT_TEXTURES.index(t["suits"]), PAIRING.index(t["pairing"]), ranks[0],
            CONNECTEDNESS.index(t["connectedness"]), ranks)


def flop_subset(size: int) -> FlopSet:
    """``size`` representatives of the 1,755 classes, each carrying the weight of the run of classes (in
    texture order) it stands for; the weights sum to 22,100 (see the module's docstring). ``size`` 1,755 is the
    full set.

    >>> subset = flop_subset(49); len(subset.weights), int(subset.weights.sum())
    (49, 22100)
    """
    full = distinct_flops()
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= DISTINCT_FLOPS:
        raise InvalidArgumentError(f"a flop subset has 1 to {DISTINCT_FLOPS:,} flops, got {size!r}")
    if size == DISTINCT_FLOPS:
        return full
    ends = np.cumsum(full.weights)
    starts = ends - full.weights
    # run k holds the classes whose weighted middle falls in [k, k + 1) * 22,100 / size
    run = np.minimum(((starts + ends) / 2 * size // ALL_FLOPS).astype(np.int64), size - 1)
    cards, weights = [], []
    for k in range(size):
        members = np.flatnonzero(run == k)
        if members.size == 0:  # only where a single class outweighs a run (never at the sizes offered)
            continue
        middle = (starts[members[0]] + ends[members[-1]]) / 2
        pick = members[np.searchsorted(ends[members], middle)]  # the class holding the middle (<= the last end)
        cards.append(full.cards[pick])
        weights.append(int(full.weights[members].sum()))
    return FlopSet(np.array(cards, dtype=np.int64), np.array(weights, dtype=np.int64))


def parse_flops(text: str) -> FlopSet:
    """A report's flops from the command line: ``all`` (the 1,755 classes), a subset size (``49``, ``95``,
    ``184`` or any number up to 1,755), or a list of flops (``AsKd2c QhJh9h``, comma or space separated; each
    weighted by its class's weight).

    >>> parse_flops("AsKd2c, 7h7d2c").names
    ['AsKd2c', '7h7d2c']
    """
    words = text.replace(",", " ").split()
    if not words:
        raise InvalidArgumentError("no flops given: say all, a subset size such as 49, or flops such as AsKd2c")
    if len(words) == 1 and words[0].lower() == "all":
        return distinct_flops()
    if len(words) == 1 and words[0].isdigit():
        return flop_subset(int(words[0]))
    weight_of = dict(zip(map(tuple, distinct_flops().cards.tolist()), distinct_flops().weights.tolist(),
                         strict=True))
    cards, weights = [], []
    for word in words:
        flop = parse_cards(word)
        if len(flop) != 3:
            raise InvalidArgumentError(f"flop {word!r} has {len(flop)} cards: a flop is three, e.g. AsKd2c")
        cards.append(sorted(flop, reverse=True))
        weights.append(weight_of[canonical((flop[0], flop[1], flop[2]))])
    return FlopSet(np.array(cards, dtype=np.int64), np.array(weights, dtype=np.int64))
