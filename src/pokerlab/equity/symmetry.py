"""Suit symmetry of an equity problem: the suit relabellings that leave board, dead cards and every range
unchanged. Boards are enumerated once per orbit of this group (see ``docs/algorithms.md``)."""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np

from pokerlab.cards.classes import COMBOS

ALL_SUIT_PERMUTATIONS: tuple[tuple[int, int, int, int], ...] = tuple(permutations(range(4)))  # type: ignore[arg-type]  # identity first


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """For each of the 24 relabellings: the image of every card (24, 52) and of every combo (24, 1326)."""
    deck = np.arange(52, dtype=np.int64)
    cards = 4 * (deck >> 2)[None, :] + np.array(ALL_SUIT_PERMUTATIONS, dtype=np.int64)[:, deck & 3]
    first, second = cards[:, COMBOS[:, 0]], cards[:, COMBOS[:, 1]]
    high, low = np.maximum(first, second), np.minimum(first, second)
    combos = high * (high - 1) // 2 + low  # combo_index of each image, for every relabelling at once
    return cards, combos


def permute_mask(mask: int, g: int) -> int:
    """Image of a card bitmask under relabelling number ``g`` of :data:`ALL_SUIT_PERMUTATIONS`."""
    cards, _ = _tables()
    image = 0
    while mask:  # one step per card of the mask (most masks are a board or empty)
        card = (mask & -mask).bit_length() - 1
        image |= 1 << int(cards[g, card])
        mask &= mask - 1
    return image


def symmetry_group(fixed_masks: list[int], range_weights: list[np.ndarray]) -> np.ndarray:
    """The relabellings (rows ``perm[suit] -> suit``, identity first) that map every fixed card set onto
    itself and every player's combo weights onto themselves. ``(G, 4)`` int64, G divides 24."""
    _, combos = _tables()
    # weights'[image(c)] = weights[c] must equal weights. A relabelling is a bijection, so it is enough to check
    # the combos a range holds: if each lands on a combo of the same weight, the range's support maps onto
    # itself and the combos outside it onto combos outside it (an exact hand checks one combo, not 1,326)
    kept = np.array([all(permute_mask(mask, g) == mask for mask in fixed_masks) for g in range(24)])
    for weights in range_weights:
        held = np.flatnonzero(weights)
        kept &= (weights[combos[:, held]] == weights[held]).all(axis=1)  # every relabelling at once
    return np.array([perm for perm, keep in zip(ALL_SUIT_PERMUTATIONS, kept, strict=True) if keep],
                    dtype=np.int64).reshape(-1, 4)


def combo_orbits(indices: np.ndarray, group: np.ndarray) -> list[tuple[int, int]]:
    """The combos ``indices`` grouped by orbit under ``group`` (rows as from :func:`symmetry_group`): for each
    group, ``(smallest combo index, how many of indices are in it)``, smallest combos increasing."""
    _, combos = _tables()
    rows = [ALL_SUIT_PERMUTATIONS.index(tuple(int(s) for s in perm)) for perm in group]
    members = {int(c) for c in indices}
    orbits = []
    for combo in sorted(members):
        if combo not in members:
            continue
        orbit = {int(combos[g, combo]) for g in rows} & members
        members -= orbit
        orbits.append((combo, len(orbit)))
    return orbits


def combo_images(group: np.ndarray) -> np.ndarray:
    """``(G, 1326)``: the image of every combo index under each relabelling of ``group`` (rows as from
    :func:`symmetry_group`)."""
    _, combos = _tables()
    rows = [ALL_SUIT_PERMUTATIONS.index(tuple(int(s) for s in perm)) for perm in group]
    return combos[rows]
