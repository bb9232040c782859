"""A deliberately simple hold'em evaluator in plain Python, sharing no code with pokerlab's.

It works on (rank, suit) pairs with rank 2..14, sorts, counts ranks and checks flushes and straights directly,
and returns a tuple (category, tie-breaking ranks...) that compares like hand strength.
"""

from collections import Counter

RANK_CHARS = {c: i for i, c in enumerate("23456789TJQKA", start=2)}


def cards_from_text(text):
    return [(RANK_CHARS[text[i]], text[i + 1]) for i in range(0, len(text), 2)]


def cards_from_indices(indices):
    return [(index // 4 + 2, "cdhs"[index % 4]) for index in indices]


def _straight_top(ranks):
    distinct = set(ranks)
    if 14 in distinct:
        distinct.add(1)
    for top in range(14, 4, -1):
        if all(top - step in distinct for step in range(5)):
            return top
    return None


def reference_score(cards):
    """(category 0..8, tie-breakers...) of the best five of 5..7 cards; larger tuples are stronger."""
    suits = Counter(suit for _, suit in cards)
    flush_suit = next((suit for suit, n in suits.items() if n >= 5), None)
    if flush_suit is not None:
        flush_ranks = sorted((rank for rank, suit in cards if suit == flush_suit), reverse=True)
        top = _straight_top(flush_ranks)
        if top is not None:
            return (8, top)
    counts = Counter(rank for rank, _ in cards)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ranks_desc = sorted(counts, reverse=True)
    if groups[0][1] == 4:
        quad = groups[0][0]
        return (7, quad, max(r for r in ranks_desc if r != quad))
    trips = sorted((r for r, n in counts.items() if n == 3), reverse=True)
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    if trips and (len(trips) >= 2 or pairs):
        return (6, trips[0], max(trips[1:] + pairs))
    if flush_suit is not None:
        return (5, *flush_ranks[:5])
    top = _straight_top(ranks_desc)
    if top is not None:
        return (4, top)
    if trips:
        return (3, trips[0], *[r for r in ranks_desc if r != trips[0]][:2])
    if len(pairs) >= 2:
        kicker = max(r for r in ranks_desc if r not in pairs[:2])
        return (2, pairs[0], pairs[1], kicker)
    if pairs:
        return (1, pairs[0], *[r for r in ranks_desc if r != pairs[0]][:3])
    return (0, *ranks_desc[:5])
