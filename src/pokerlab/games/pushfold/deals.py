"""Drawing the deals that value push/fold's 3+ way pots: uniform deals (one combo per seat and a board, and per
deal one combo of every class for the hero), and a redeal's importance-sampled deals (each pot's seats drawn from
the ranges that reach it; see :mod:`pokerlab.games.pushfold.valuation`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBO_MASKS, COMBOS, NUMBER_OF_CLASSES
from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables, load_tables
from pokerlab.games.pushfold.kernels import Deals
from pokerlab.stats.rng import substream_start, uniform


def combo_classes() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each combo's class, the combos sorted by class, where each class starts in that order, and class sizes."""
    classes = CLASS_OF_COMBO
    order = np.argsort(classes, kind="stable")
    starts = np.searchsorted(classes[order], np.arange(NUMBER_OF_CLASSES))
    return classes, order, starts, np.bincount(classes, minlength=NUMBER_OF_CLASSES)


def _hero_picks(count: int, rng: np.random.Generator) -> np.ndarray:
    """``(count, 169)``: for each deal, one combo of each class, uniform within the class."""
    _, order, starts, sizes = combo_classes()
    return _picks_of(rng.random((count, NUMBER_OF_CLASSES)), order, starts, sizes)


@njit(cache=True)
def _picks_of(uniforms: np.ndarray, order: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``order[starts[c] + floor(u * sizes[c])]`` for each deal's uniform ``u`` of class ``c``: the combos sorted by
    class (``order``), where each class starts among them and its size (in one pass: the same picks as the numpy
    expression, without its four temporaries of the deals' size)."""
    count, classes = uniforms.shape
    picks = np.empty((count, classes), dtype=np.int64)
    for s in range(count):
        for c in range(classes):
            picks[s, c] = order[starts[c] + np.int64(uniforms[s, c] * sizes[c])]
    return picks


def reference_disjoint(seats: int, taken: int) -> float:
    """Probability that ``seats`` combos, each uniform among the 1,081 that avoid a board, avoid ``taken`` given
    cards off the board and each other: the mean of a redealt pot's density-ratio products (times the
    indicator that a deal can be used), its known normaliser
    (see :meth:`~pokerlab.games.pushfold.PushFoldGame.redealt`).

    >>> round(reference_disjoint(2, 0), 9) == round(990 / 1081, 9)  # C(45, 2) of the second combo avoid the first
    True
    """
    p = 1.0
    for i in range(seats):
        free = 47 - taken - 2 * i
        p *= free * (free - 1) / 2 / 1081
    return p


def _hero_cards(picks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower and higher card of each picked combo, ``uint8`` (the hot loop reads them for every class and deal:
    two bytes where a card mask takes eight)."""
    cards = COMBOS[picks].astype(np.uint8)
    return np.minimum(cards[..., 0], cards[..., 1]), np.maximum(cards[..., 0], cards[..., 1])


def draw_uniform_deals(count: int, seats: int, rng: np.random.Generator) -> Deals:
    """``count`` uniform deals of ``seats`` combos and a board, and per deal one combo of every class for the hero."""
    classes = combo_classes()[0]
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    picks = _hero_picks(count, rng)
    deal_combo, deal_key, hero_key = _sample_keys(decks, priority, picks, COMBOS.astype(np.int64), load_tables())
    return Deals(classes[deal_combo].astype(np.uint8), deal_key, COMBO_MASKS[deal_combo], hero_key,
                            *_hero_cards(picks), np.ones((count, seats)))


def random_boards(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` uniform boards (``int64[count, 5]`` cards), the combo index of each pair of a board's cards
    (``int64[count, 10]``: the combos the board makes impossible) and each board's card mask (``uint64[count]``).

    >>> boards, pairs, masks = random_boards(2, np.random.default_rng(0))
    >>> boards.shape, pairs.shape, bool(all(bin(int(m)).count("1") == 5 for m in masks))
    ((2, 5), (2, 10), True)
    """
    boards = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)[:, :5]
    masks = np.zeros(count, dtype=np.uint64)
    for k in range(5):
        masks |= np.uint64(1) << boards[:, k].astype(np.uint64)
    first, second = np.triu_indices(5, 1)
    high, low = np.maximum(boards[:, first], boards[:, second]), np.minimum(boards[:, first], boards[:, second])
    return boards, high * (high - 1) // 2 + low, masks


def draw_proposal_deals(count: int, proposals: np.ndarray, inside: np.ndarray, rng: np.random.Generator
                           ) -> Deals:
    """Deals for importance sampling, one row per 3+ way terminal: ``count`` uniform boards and per-class hero
    combos shared by every row, then in row ``r`` each seat of ``inside[r]`` holds a combo drawn from its class
    distribution ``proposals[r, seat]`` (uniform within a class) among the combos that avoid the board;
    ``deal_ratio`` is the uniform density of that combo given the board over its proposal density. Seats not
    inside hold no cards (only their tie-break priority is read)."""
    classes, _, _, sizes = combo_classes()
    rows, seats, _ = proposals.shape
    boards, board_pairs, board_masks = random_boards(count, rng)
    start = np.uint64(rng.integers(2 ** 63))  # the kernel's splitmix stream, from the caller's
    combos, dealt, masks, ratio = _draw_rows(start, proposals, inside, classes.astype(np.int64),
                               sizes.astype(np.float64), boards, board_pairs, board_masks,
                               COMBOS.astype(np.int64), COMBO_MASKS)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    picks = _hero_picks(count, rng)
    tables = load_tables()
    _, _, hero_key = _sample_keys(boards, np.zeros((count, 0), dtype=np.int64), picks, COMBOS.astype(np.int64),
                                  tables)
    deal_key = _deal_keys(boards, combos, inside, priority, COMBOS.astype(np.int64), tables)
    return Deals(dealt, deal_key, masks, hero_key, *_hero_cards(picks), ratio)


_GUIDES = 1326  # guide-table entries of the inverse CDF in _draw_rows


@njit(cache=True)
def _draw_rows(
    start: np.uint64, proposals: np.ndarray, inside: np.ndarray, classes: np.ndarray, sizes: np.ndarray,
    boards: np.ndarray,
    board_pairs: np.ndarray, board_masks: np.ndarray, combo_cards: np.ndarray, combo_masks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's combos for the seats inside (see :func:`draw_proposal_deals`), their classes, card masks (0
    for the seats not inside) and density ratios:
    inverse-CDF draws from the seat's combo distribution, redrawn while the combo touches the board (uniforms from
    row ``r``'s sub-stream of the splitmix stream started at ``start``: a row's deals do not depend on the others';
    one thread, as every push/fold valuation kernel, see :mod:`pokerlab.games.pushfold.kernels`). The inverse CDF
    starts from a guide table (per 1/1326 of the mass, the first combo past it) and steps up: the same combo as a
    binary search over the CDF (``np.searchsorted(cdf, v, side="right")``) in about one step instead of eleven."""
    rows, seats, _ = proposals.shape
    count = boards.shape[0]
    combos = np.zeros((rows, count, seats), dtype=np.int64)
    dealt = np.zeros((rows, count, seats), dtype=np.uint8)
    masks = np.zeros((rows, count, seats), dtype=np.uint64)
    ratio = np.ones((rows, count, seats))
    for r in range(rows):
        state = np.array([substream_start(start, r)], dtype=np.uint64)
        density = np.empty(1326)
        cdf = np.empty(1326)
        by_card = np.empty(52)
        level = np.empty(_GUIDES)
        guide = np.empty(_GUIDES, dtype=np.int64)
        for q in range(seats):
            if not inside[r, q]:
                continue
            total = 0.0
            for x in range(1326):
                density[x] = proposals[r, q, classes[x]] / sizes[classes[x]]
                total += density[x]
            by_card[:] = 0.0
            running = 0.0
            for x in range(1326):
                density[x] /= total
                running += density[x]
                cdf[x] = running
                by_card[combo_cards[x, 0]] += density[x]
                by_card[combo_cards[x, 1]] += density[x]
            x = 0
            for j in range(_GUIDES):  # guide[j]: the first combo whose CDF exceeds level[j]
                level[j] = j * cdf[-1] / _GUIDES
                while x < 1326 and cdf[x] <= level[j]:
                    x += 1
                guide[j] = x
            for s in range(count):
                mass = 1.0  # the proposal's mass on the combos that avoid the board
                for k in range(5):
                    mass -= by_card[boards[s, k]]
                for k in range(board_pairs.shape[1]):
                    mass += density[board_pairs[s, k]]
                while True:
                    v = uniform(state) * cdf[-1]
                    bucket = min(int(v / cdf[-1] * _GUIDES), _GUIDES - 1)
                    while bucket > 0 and level[bucket] > v:  # rounding: a guide at or below v, none past the answer
                        bucket -= 1
                    x = guide[bucket]
                    while x < 1326 and cdf[x] <= v:
                        x += 1
                    x = min(x, 1325)
                    if (combo_masks[x] & board_masks[s]) == 0:
                        break
                combos[r, s, q] = x
                dealt[r, s, q] = classes[x]
                masks[r, s, q] = combo_masks[x]
                ratio[r, s, q] = mass / (density[x] * 1081.0)  # 1081 = C(47, 2) combos avoid a board
    return combos, dealt, masks, ratio


@njit(cache=True)
def _deal_keys(boards: np.ndarray, combos: np.ndarray, inside: np.ndarray, priority: np.ndarray,
               combo_cards: np.ndarray, tables: EvalTables) -> np.ndarray:
    """``value * 16 + priority`` of every row's seats' combos on the shared boards (the priority alone for the
    seats not inside the row's pot: only a hero's priority is read from its own entry)."""
    rows, count, seats = combos.shape
    out = np.empty((rows, count, seats), dtype=np.int64)
    for s in range(count):
        key, bits = partial_hand(boards[s], tables)
        for r in range(rows):
            for seat in range(seats):
                if not inside[r, seat]:
                    out[r, s, seat] = priority[s, seat]
                    continue
                c = combos[r, s, seat]
                out[r, s, seat] = np.int64(value_with_two(key, bits, combo_cards[c, 0], combo_cards[c, 1],
                                                          tables)) * 16 + priority[s, seat]
    return out


@njit(cache=True)
def _sample_keys(
    decks: np.ndarray, priority: np.ndarray, picks: np.ndarray, combo_cards: np.ndarray, tables: EvalTables
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Combos and hand keys of the sampled deals: seat k holds cards 2k, 2k+1 of the shuffled deck, the board is
    the next five; each class's sampled combo is ranked on the same board (0 when it touches the board)."""
    count, seats = priority.shape
    deal_combo = np.empty((count, seats), dtype=np.int64)
    deal_key = np.empty((count, seats), dtype=np.int64)
    hero_key = np.zeros(picks.shape, dtype=np.int32)
    for s in range(count):
        board = decks[s, 2 * seats: 2 * seats + 5]
        key, bits = partial_hand(board, tables)
        board_mask = np.uint64(0)
        for card in board:
            board_mask |= np.uint64(1) << np.uint64(card)
        for seat in range(seats):
            c1, c2 = decks[s, 2 * seat], decks[s, 2 * seat + 1]
            high, low = max(c1, c2), min(c1, c2)
            deal_combo[s, seat] = high * (high - 1) // 2 + low
            deal_key[s, seat] = np.int64(value_with_two(key, bits, c1, c2, tables)) * 16 + priority[s, seat]
        for c in range(picks.shape[1]):
            c1, c2 = combo_cards[picks[s, c], 0], combo_cards[picks[s, c], 1]
            hand = (np.uint64(1) << np.uint64(c1)) | (np.uint64(1) << np.uint64(c2))
            if (board_mask & hand) == 0:
                hero_key[s, c] = np.int32(value_with_two(key, bits, c1, c2, tables)) * 16
    return deal_combo, deal_key, hero_key

