"""The no-limit hold'em postflop game (river, turn or flop spot) in vector form: two players, weighted ranges
with card removal, a bet tree, and the turn and river cards dealt at chance nodes, isomorphic cards merged.

The tree is materialised once (every decision node of every runout kept, a merged card standing for its
suit-swapped twins) into :class:`~pokerlab.games.postflop.kernels.TreeArrays`; private hands are each player's
combos in range that miss the board, so a river spot of two 200-combo ranges has 200 hands each. Payoffs are
chips net of each player's half of the starting pot: winning a showdown where both put in ``m`` more is worth
``pot / 2 + m`` less the rake (``config.rake`` of the final pot up to ``config.rake_cap``, paid by the winner of
every pot, folds included, half by each player on a tie), losing it ``-(pot / 2 + m)``.

>>> from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
>>> config = TreeConfig(pot=100, stack=100, street=2, bets=parse_street_sizes("a"), raises=((), (), ()))
>>> game = PostflopGame("AhKd7c2s3s", "AA, 72o", "KK, QQ", config)
>>> game.num_private_hands(0), game.num_private_hands(1), game.decision_count
(10, 9, 4)
"""

from __future__ import annotations

import ctypes
import dataclasses
import itertools
from array import array
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from pokerlab.cards.classes import COMBO_MASKS, COMBOS, combo_index
from pokerlab.cards.encoding import format_card, format_cards, parse_cards
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.errors import InvalidArgumentError, InvalidRangeError, ResourceLimitError
from pokerlab.games.base import CHANCE, TERMINAL, VECTOR_FORM, GameType
from pokerlab.games.postflop.bettree import (
    STREETS,
    ActionNode,
    TreeConfig,
    build_action_tree,
)
from pokerlab.games.postflop.kernels import (
    CHANCE_NODE,
    DECISION_NODE,
    FOLD_NODE,
    SHOWDOWN_NODE,
    HandArrays,
    TreeArrays,
    fold_values,
    showdown_values,
)
from pokerlab.games.vector import CompiledPublicTree, VectorGame

MAX_MEMORY = 4 * 2**30
"""Default limit of the solver's storage (bytes): a spot above it is refused before allocation."""
SWAPS = tuple(itertools.combinations(range(4), 2))
"""The six suit transpositions, by index."""


def showdown_tables(cards: np.ndarray, counts: np.ndarray,
                    boards: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each five-card board: each player's hands that miss it, sorted by strength (``order``: hand index,
    ``strength``, ``sorted_cards``: the hand's two cards, ``valid``: how many), as :class:`HandArrays` holds
    them."""
    width = cards.shape[1]
    full = np.array(boards, dtype=np.int64).reshape(len(boards), 5)
    # narrow types (hand indices below 1,326, the evaluator's 16-bit ranks, cards): the showdown sweep reads
    # these tables at every showdown, a quarter of the bytes of int64 ones
    order = np.zeros((len(boards), 2, width), dtype=np.uint16)
    strength = np.zeros((len(boards), 2, width), dtype=np.uint16)
    sorted_cards = np.zeros((len(boards), 2, width, 2), dtype=np.uint8)
    valid = np.zeros((len(boards), 2), dtype=np.int64)
    for p in range(2):  # every board at once: one evaluation call (a flop's 1,081 runouts took 2,162 calls)
        mine = cards[p, :counts[p]]
        n = len(mine)
        blocked = (mine[None, :, :, None] == full[:, None, None, :]).any(axis=(2, 3))
        rows = np.empty((len(full), n, 7), dtype=np.uint8)
        rows[:, :, :2] = mine[None]
        rows[:, :, 2:] = full[:, None, :]
        # only the hands that miss the board are evaluated: a card held twice is no hand, and the unchecked
        # evaluator's tables are not built for one (it read outside them)
        values = np.full((len(full), n), np.iinfo(np.int64).max)  # after every real hand, and cut below
        values[~blocked] = evaluate_batch(rows[~blocked], validate=False)
        sort = np.argsort(values, axis=1, kind="stable")
        valid[:, p] = n - blocked.sum(axis=1)
        kept = np.arange(n)[None, :] < valid[:, p, None]
        order[:, p, :n] = np.where(kept, sort, 0)
        strength[:, p, :n] = np.where(kept, np.take_along_axis(values, sort, axis=1), 0)
        sorted_cards[:, p, :n] = np.where(kept[:, :, None], mine[sort], 0)
    return order, strength, sorted_cards, valid


class PostflopSpotError(InvalidArgumentError):
    """A postflop spot that cannot be solved as given (board, ranges, sizes)."""


def _swap_card(card: int, s1: int, s2: int) -> int:
    suit = card & 3
    return card - suit + (s2 if suit == s1 else s1 if suit == s2 else suit)


def parse_board(board: str | Sequence[int]) -> tuple[int, ...]:
    """A flop, turn or river board: 3 to 5 distinct cards (:class:`PostflopSpotError` otherwise)."""
    cards = tuple(parse_cards(board) if isinstance(board, str) else (int(c) for c in board))
    if len(cards) not in (3, 4, 5):
        raise PostflopSpotError(f"a postflop board has 3, 4 or 5 cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        raise PostflopSpotError(f"board {format_cards(cards)} repeats a card")
    return cards


def _as_range(value: str | Range, who: str) -> Range:
    if isinstance(value, Range):
        return value
    try:
        return parse_range(value)
    except InvalidRangeError as error:
        raise InvalidRangeError(f"{who} range: {error}") from None


def _return_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere): the tree's
    set-up frees its per-node Python lists, whose pages glibc otherwise keeps for the rest of the process, about
    5 MiB under a flop's solver storage at its peak."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.malloc_trim(0)


class NodeLabels:
    """Per node of the materialised tree, the names of its actions (a decision node) or of the cards it deals
    (a chance node), ``()`` at a terminal: ``labels[node]``."""

    def __init__(self, index: np.ndarray, names: list[tuple[str, ...]]) -> None:
        self._index = index
        self._names = names

    def __getitem__(self, node: int) -> tuple[str, ...]:
        return self._names[int(self._index[node])]

    def __len__(self) -> int:
        return int(self._index.size)


class NodeCards:
    """Per node of the materialised tree, the cards dealt on the way to it (turn, then river): ``dealt[node]``."""

    def __init__(self, cards: np.ndarray) -> None:
        self._cards = cards  # (nodes, 2) int8, -1 where not dealt yet

    def __getitem__(self, node: int) -> tuple[int, ...]:
        return tuple(int(c) for c in self._cards[node] if c >= 0)

    def __len__(self) -> int:
        return int(self._cards.shape[0])


class PostflopGame(VectorGame):
    """A postflop spot: ``board`` (3-5 cards), OOP's and IP's ranges (text or :class:`Range`), the betting
    ``config``; ``isomorphism`` merges suit-swapped turn and river cards where the board and both ranges
    allow it; a tree whose solver storage (:attr:`memory_bytes`) would exceed ``max_memory`` is refused
    (:class:`~pokerlab.errors.ResourceLimitError`) before anything is built; ``build=False`` stops after the
    checks and the estimate; ``compress``: the estimate is that of the solver's 16-bit storage
    (:class:`~pokerlab.solvers.postflop_cfr.PostflopSolver`'s ``compress``)."""

    name = "postflop"
    game_type: ClassVar[GameType] = GameType(players=2, zero_sum=True, forms=(VECTOR_FORM,), chance=True,
                                             has_fold=True)

    def __init__(self, board: str | Sequence[int], oop: str | Range, ip: str | Range, config: TreeConfig, *,
                 isomorphism: bool = True, max_memory: int = MAX_MEMORY, build: bool = True,
                 compress: bool = False) -> None:
        self.board = parse_board(board)
        self.compress = compress
        if config.street != len(self.board) - 3:
            raise PostflopSpotError(f"a {len(self.board)}-card board starts on the {STREETS[len(self.board) - 3]}, "
                                    f"not the {STREETS[config.street]}")
        self.config = config
        if config.stack >= 2**24:
            raise PostflopSpotError(f"a stack of {config.stack:,} chips: the tree keeps amounts as float32, exact "
                                    "below 16,777,216 chips; give the pot and stack in a larger unit")
        self.isomorphism = isomorphism
        if config.rake > 0:
            # raked pots sum to less than 0: the generic vector-form solvers' zero-sum quantities (their
            # exploitability) refuse this game; the postflop solver measures it as postflop-solver does. The
            # class's declaration is shadowed for this instance only.
            self.__dict__["game_type"] = dataclasses.replace(self.game_type, zero_sum=False)
        mask = 0
        for card in self.board:
            mask |= 1 << card
        self.ranges = tuple(_as_range(r, who).without(mask) for r, who in ((oop, "OOP"), (ip, "IP")))
        for r, who in zip(self.ranges, ("OOP", "IP"), strict=True):
            if r.combo_count == 0:
                raise PostflopSpotError(f"the {who} range is empty once the board's cards are removed")
        combos = [r.indices for r in self.ranges]
        counts = np.array([len(c) for c in combos], dtype=np.int64)
        width = int(counts.max())
        cards = np.zeros((2, width, 2), dtype=np.int64)
        weights = np.zeros((2, width))
        same = np.full((2, width), -1, dtype=np.int64)
        position = [dict(zip(c.tolist(), range(len(c)), strict=True)) for c in combos]
        for p in range(2):
            cards[p, :counts[p]] = COMBOS[combos[p]]
            weights[p, :counts[p]] = self.ranges[p].weights[combos[p]]
            for h, combo in enumerate(combos[p].tolist()):
                same[p, h] = position[1 - p].get(combo, -1)
        self._combos = combos
        self.pairs_weight = self._pairs_weight(cards, weights, counts)
        if self.pairs_weight <= 0:
            raise PostflopSpotError("no deal: every OOP combo shares a card with every IP combo")
        self.action_tree = build_action_tree(config)
        self._swappable = self._symmetric_swaps() if isomorphism else ()
        self.memory_bytes = self._memory_estimate(counts)
        if self.memory_bytes > max_memory:
            raise ResourceLimitError(f"this tree needs about {self.memory_bytes / 2**20:,.0f} MiB of solver storage, "
                                     f"above the limit of {max_memory / 2**20:,.0f} MiB: use fewer bet sizes, a "
                                     "raise cap or narrower ranges")
        if self.estimated_counts[1] >= 2**31:  # the tree's arrays index nodes in 32 bits
            raise ResourceLimitError(f"this tree has about {self.estimated_counts[1]:,} nodes, above the 2^31 the "
                                     "solver indexes: use fewer bet sizes, a raise cap or narrower ranges")
        if not build:  # checked and sized only (a server's budget check)
            return
        perm = np.tile(np.arange(width, dtype=np.int64), (len(SWAPS), 2, 1))
        for s in self._swappable:
            s1, s2 = SWAPS[s]
            for p in range(2):
                for h, combo in enumerate(combos[p].tolist()):
                    a, b = COMBOS[combo]
                    perm[s, p, h] = position[p][combo_index(_swap_card(int(a), s1, s2), _swap_card(int(b), s1, s2))]
        self._boards: dict[tuple[int, ...], int] = {}
        self._materialise()
        held = np.arange(52)[None, :, None]
        misses = ((cards[:, None, :, 0] != held) & (cards[:, None, :, 1] != held)
                  & (np.arange(width)[None, None, :] < counts[:, None, None]))
        order, strength, sorted_cards, valid = self._showdown_tables(cards, counts)
        self.hands = HandArrays(cards, counts, weights, same, perm, order, strength, sorted_cards, valid, misses)
        _return_freed_memory()

    # -- set-up ----------------------------------------------------------------------------------------------
    @staticmethod
    def _pairs_weight(cards: np.ndarray, weights: np.ndarray, counts: np.ndarray) -> float:
        """Total weight of the compatible (OOP, IP) deals: the normaliser of every value per deal."""
        masks = [COMBO_MASKS[[combo_index(int(a), int(b)) for a, b in cards[p, :counts[p]]]] for p in range(2)]
        clash = (masks[0][:, None] & masks[1][None, :]) != 0
        w = np.outer(weights[0, :counts[0]], weights[1, :counts[1]])
        return float(w[~clash].sum())

    def _symmetric_swaps(self) -> tuple[int, ...]:
        """Suit swaps under which both ranges are unchanged (the board is checked at each chance node)."""
        out = []
        for s, (s1, s2) in enumerate(SWAPS):
            suit_map = [0, 1, 2, 3]
            suit_map[s1], suit_map[s2] = s2, s1
            if all(r.permuted((suit_map[0], suit_map[1], suit_map[2], suit_map[3])) == r for r in self.ranges):
                out.append(s)
        return tuple(out)

    def _card_classes(self, dealt: tuple[int, ...]) -> list[tuple[int, list[int]]]:
        """The cards a chance node deals after ``dealt`` (the whole board so far): (representative, swaps
        standing for its twins). A swap must map the board onto itself at every street so far, not only now:
        the earlier streets' strategies tell its two suits apart otherwise (Td9d6h then 6c: hearts and clubs
        hold the same ranks on the turn, not on the flop)."""
        prefixes = [dealt[:n] for n in range(len(self.board), len(dealt) + 1)]
        rank_sets = [[frozenset(c >> 2 for c in cards if c & 3 == s) for s in range(4)] for cards in prefixes]
        parent = list(range(4))
        for s in self._swappable:
            s1, s2 = SWAPS[s]
            if all(ranks[s1] == ranks[s2] for ranks in rank_sets):
                a, b = parent[s1], parent[s2]
                low = min(a, b)
                parent = [low if x in (a, b) else x for x in parent]
        out = []
        for card in range(52):
            if card in dealt:
                continue
            suit = card & 3
            if parent[suit] != suit:
                continue
            twins = [SWAPS.index((suit, t)) for t in range(4) if t != suit and parent[t] == suit]
            out.append((card, twins))
        return out

    NODE_BYTES: ClassVar[int] = 47
    """Bytes of the materialised tree's arrays per node (:class:`TreeArrays`' per-node fields, the rake sharing
    the chance factors' array; the chance index, the labels' index and the dealt cards): the storage offset and
    the chance factor (or rake) 8 bytes each, the amount (whole chips, float32), the first child, the showdown
    board, the suit swaps' start, the chance index and the labels' index 4, the dealt cards 2, the kind, the
    player, the number of children, the card and the swaps' count 1 (:attr:`parent` is made when first asked)."""

    SCALE_BYTES: ClassVar[int] = 8
    """Bytes per node of the compressed storage's scales (two float32 a node)."""

    def _memory_estimate(self, counts: np.ndarray) -> int:
        """Bytes of the solver's storage: the regrets and the cumulative strategy (float32 in one array of
        :attr:`storage_size` values once the tree is built, a decision node's ``2 * actions - 1`` rows: see
        :meth:`block_rows`; with ``compress`` two arrays of 2 bytes a value, ``actions`` rows each, and
        :attr:`SCALE_BYTES` a node), the tree's arrays (:attr:`NODE_BYTES` a node) and the showdown tables (6
        bytes a hand and player a river board). The cards a chance node deals are counted as the tree deals
        them, merged suit twins once (:meth:`_card_classes`): the rivers after each turn class, and their mean
        over the turn classes for the river nodes below a flop. Leaves the counts in :attr:`estimated_counts`:
        values of the storage array (of each of the two with ``compress``), nodes, river boards (an upper bound:
        two orders of the same turn and river are one board); and in :attr:`estimated_updates` the hand-action
        values an iteration updates (hands times actions over the decision nodes, whatever the storage)."""
        firsts = self._card_classes(self.board) if self._swappable else [
            (c, []) for c in range(52) if c not in self.board]
        if len(self.board) == 3:
            rivers = sum(len(self._card_classes((*self.board, c))) if self._swappable else 48 for c, _ in firsts)
            later = rivers / len(firsts)  # rivers per turn class, on average (exact in the sums below)
        else:
            rivers = len(firsts) if len(self.board) == 4 else 1
            later = 0.0

        def walk(node: ActionNode, deals: float) -> tuple[float, float, float]:
            values = updates = nodes = 0.0
            if node.kind == "decision":
                values += deals * int(counts[node.player]) * self.block_rows(len(node.children))
                updates += deals * int(counts[node.player]) * len(node.children)
            nodes += deals
            for child in node.children:
                more = 1.0
                if node.kind == "chance":
                    more = len(firsts) if node.street == len(self.board) - 3 else later
                v, u, n = walk(child, deals * more)
                values += v
                updates += u
                nodes += n
            return values, updates, nodes

        values, updates, nodes = walk(self.action_tree, 1.0)
        self.estimated_counts: tuple[int, int, int] = (round(values), round(nodes), rivers)
        self.estimated_updates = round(updates)
        node_bytes = self.NODE_BYTES + self.SCALE_BYTES if self.compress else self.NODE_BYTES
        return 4 * round(values) + node_bytes * round(nodes) + rivers * 2 * int(counts.max()) * 6

    def _materialise(self) -> None:
        """The whole tree as arrays, children contiguous, depth-first over the blocks. The per-node fields grow
        in typed buffers (``array.array``), not lists: a list keeps an int or float object per node, and
        freeing a flop's millions of them left tens of MiB with Python's allocator for the rest of the solve."""
        kind = array("b")
        player = array("b")
        first = array("i")
        count = array("b")
        amount = array("d")
        board = array("i")
        card = array("b")
        offset = array("q")
        iso_start = array("i")
        iso_count = array("b")
        swaps: list[int] = []
        factor = array("d")
        label_of = array("i")
        dealt_cards = (array("b"), array("b"))  # the turn and river cards on the way, -1 if none yet
        template: list[ActionNode] = []
        # one tuple of labels per action-tree node, shared by its copies in every runout (``node.actions``
        # makes new strings at each call: tens of MiB over a flop's runouts), one name per card; a node holds
        # the index of its tuple (a tuple per node, and one of dealt cards, were 9 MiB of a flop's set-up)
        names: list[tuple[str, ...]] = [()]
        action_labels: dict[int, int] = {}
        card_labels: dict[tuple[str, ...], int] = {}
        card_names = [format_card(c) for c in range(52)]
        kinds = {"fold": FOLD_NODE, "showdown": SHOWDOWN_NODE, "decision": DECISION_NODE, "chance": CHANCE_NODE}
        counts = [len(c) for c in self._combos]
        scales = [self.chance_scale(dealt) for dealt in range(6 - len(self.board))]  # a node's, by cards dealt
        at = 0

        def add(node: ActionNode, dealt: tuple[int, ...], edge_card: int, twins: list[int]) -> None:
            kind.append(kinds[node.kind])
            player.append(node.player)
            first.append(-1)
            count.append(0)
            amount.append(float(node.amount))
            board.append(self._board_id(dealt) if node.kind == "showdown" else -1)
            card.append(edge_card)
            offset.append(-1)
            iso_start.append(len(swaps))
            iso_count.append(len(twins))
            swaps.extend(twins)
            factor.append(1.0 / (52 - len(self.board) - len(dealt) - 4) if node.kind == "chance" else
                          scales[len(dealt)])
            label_of.append(0)
            for i, cards in enumerate(dealt_cards):
                cards.append(dealt[i] if i < len(dealt) else -1)
            template.append(node)

        add(self.action_tree, (), -1, [])
        stack = [0]
        while stack:
            n = stack.pop()
            node = template[n]
            dealt = tuple(cards[n] for cards in dealt_cards if cards[n] >= 0)
            if node.kind == "decision":
                offset[n] = at
                at += counts[node.player] * self.block_rows(len(node.children))
                first[n] = len(kind)
                count[n] = len(node.children)
                if id(node) not in action_labels:
                    action_labels[id(node)] = len(names)
                    names.append(node.actions)
                label_of[n] = action_labels[id(node)]
                for child in node.children:
                    add(child, dealt, -1, [])
            elif node.kind == "chance":
                child = node.children[0]
                classes = (self._card_classes(self.board + dealt) if self._swappable else
                           [(c, []) for c in range(52) if c not in self.board + dealt])
                first[n] = len(kind)
                count[n] = len(classes)
                dealt_names = tuple(card_names[c] for c, _ in classes)
                if dealt_names not in card_labels:
                    card_labels[dealt_names] = len(names)
                    names.append(dealt_names)
                label_of[n] = card_labels[dealt_names]
                for c, twins in classes:
                    add(child, (*dealt, c), c, twins)
            else:
                continue
            stack.extend(range(first[n] + count[n] - 1, first[n] - 1, -1))
        # whole chips, exact in float32 (the stack is checked below 2^24)
        kinds_array, amounts = np.array(kind), np.array(amount, dtype=np.float32)
        # one array for the chance factors (chance and decision nodes) and the rake (terminals): a node reads
        # one of the two, and a flop's tree has 3.4 MiB of either
        factors = np.array(factor)
        terminal = np.flatnonzero(kinds_array <= SHOWDOWN_NODE)
        factors[terminal] = 0.0
        if self.config.rake > 0:  # per distinct amount: a flop has a few dozen among its terminals
            distinct, where = np.unique(amounts[terminal], return_inverse=True)
            factors[terminal] = np.array([self.config.rake_of(float(a)) for a in distinct])[where]
        self.tree = TreeArrays(kinds_array, np.array(player), np.array(first), np.array(count), amounts,
                               np.array(board), np.array(card), np.array(offset), np.array(iso_start),
                               np.array(iso_count), np.array(swaps, dtype=np.int64), factors, factors)
        # the top chance nodes (no card dealt before them): their branches are solved in parallel
        chance = kinds_array == CHANCE_NODE
        top = [int(n) for n in np.flatnonzero(chance & (np.array(dealt_cards[0]) < 0))]
        self.chance_index = np.full(len(kind), -1, dtype=np.int32)
        self.chance_index[top] = np.arange(len(top))
        self.top_chance = np.array(top, dtype=np.int64)
        self.branch_node = np.array([k for k, n in enumerate(top) for _ in range(count[n])], dtype=np.int64)
        self.branch_child = np.array([first[n] + a for n in top for a in range(count[n])], dtype=np.int64)
        self.labels = NodeLabels(np.array(label_of), names)
        self.dealt = NodeCards(np.stack([np.array(cards) for cards in dealt_cards], axis=1))
        self.storage_size = at

    def block_rows(self, actions: int) -> int:
        """Rows of a decision node's block in the solver's storage, each as long as the actor's hands: float32,
        the regrets of every action then the cumulative strategy of every action but the last (one array: the
        last action's average is what the others leave, see
        :func:`~pokerlab.games.postflop.kernels._derived_into`); compressed, ``actions`` rows in each of the two
        arrays (int16 regrets, uint16 cumulative strategy).

        >>> from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
        >>> river = TreeConfig(pot=100, stack=100, street=2, bets=parse_street_sizes("a"), raises=((), (), ()))
        >>> [PostflopGame("AhKd7c2s3s", "AA", "KK", river, compress=c).block_rows(3) for c in (False, True)]
        [5, 3]
        """
        return actions if self.compress else 2 * actions - 1

    def average_block(self, cumulative: np.ndarray, node: int, reach: np.ndarray, weight: float) -> np.ndarray:
        """The average strategy of decision ``node`` as ``(actions, hands)`` rows (float64) from the solver's
        ``cumulative`` storage: compressed, its rows normalised (uniform where a hand has none); float32, the
        stored rows over ``reach`` (the actor's reach of the node in the average strategy: its weights times its
        strategies on the way, blocked hands 0, no chance factor) times ``weight`` (the solver's
        :func:`~pokerlab.solvers.postflop_cfr.strategy_weight`) and the last action the rest, as the walks read it
        (:func:`~pokerlab.games.postflop.kernels._derived_into`)."""
        actor = int(self.tree.player[node])
        na = int(self.tree.num_children[node])
        rows = int(self.hands.sizes[actor])
        lo = int(self.tree.offset[node])
        if self.compress:
            block = cumulative[lo:lo + na * rows].astype(np.float64).reshape(na, rows)
            total = block.sum(axis=0)
            out: np.ndarray = np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / na)
            return out
        base = lo + na * rows
        stored = cumulative[base:base + (na - 1) * rows].astype(np.float64).reshape(na - 1, rows)
        reach = np.asarray(reach, dtype=np.float64)[:rows]
        seen = (reach > 0) & (weight > 0)
        scale = np.where(seen, 1.0 / np.where(seen, reach * weight, 1.0), 0.0)
        head = stored * scale
        whole = head.sum(axis=0)
        rest = 1.0 - whole
        over = rest < 0
        head = np.where(over, head / np.where(over, whole, 1.0), head)
        out = np.vstack([head, np.maximum(rest, 0.0)[None, :]])
        out[:, ~seen] = 1.0 / na
        return out

    def average_strategy(self, cumulative: np.ndarray, weight: float) -> dict[int, np.ndarray]:
        """Every decision node's average strategy, ``(actions, hands)`` rows by node, from the solver's storage
        (:meth:`average_block` with the actor's reach in the average strategy, computed top-down); for a small
        tree (it keeps both players' reaches at every decision and chance node)."""
        return self._strategies(lambda node, reach: self.average_block(
            cumulative, node, reach[int(self.tree.player[node])], weight))

    def strategy_storage(self, strategy: dict[int, np.ndarray]) -> np.ndarray:
        """The float32 storage (regrets 0) whose average strategy, read with weight 1, is ``strategy``: each
        decision node's ``(actions, hands)`` probabilities (a node left out plays uniformly). For playing or
        measuring a given strategy: ``PostflopSolver(game, storage, weight=1.0)``; for a small tree.

        >>> from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
        >>> river = TreeConfig(pot=100, stack=100, street=2, bets=parse_street_sizes("a"), raises=((), (), ()))
        >>> game = PostflopGame("AhKd7c2s3s", "AA, 72o", "KK", river)
        >>> always_check = {0: np.array([[1.0] * 10, [0.0] * 10])}
        >>> storage = game.strategy_storage(always_check)
        >>> game.average_strategy(storage, 1.0)[0][:, 0].tolist()
        [1.0, 0.0]
        """
        if self.compress:
            raise InvalidArgumentError("a strategy's storage is float32: build the game without compress")
        tree = self.tree
        storage = np.zeros(self.storage_size, dtype=np.float32)

        def play(node: int, reach: list[np.ndarray]) -> np.ndarray:
            actor = int(tree.player[node])
            na = int(tree.num_children[node])
            rows = int(self.hands.sizes[actor])
            mix = np.asarray(strategy.get(node, np.full((na, rows), 1.0 / na)), dtype=np.float64)
            base = int(tree.offset[node]) + na * rows
            storage[base:base + (na - 1) * rows] = (reach[actor] * mix[:na - 1]).ravel()
            return mix

        self._strategies(play)
        return storage

    def _strategies(self, play: Callable[[int, list[np.ndarray]], np.ndarray]) -> dict[int, np.ndarray]:
        """Every decision node's ``(actions, hands)`` strategy, ``play(node, reaches)`` given both players'
        reaches there (weights times the strategies above, blocked hands 0, no chance factor), top-down (a
        node's index is above its parent's)."""
        tree = self.tree
        sizes = self.hands.sizes
        reaches = {0: [self.hands.weights[p, :sizes[p]].astype(np.float64) for p in range(2)]}
        out: dict[int, np.ndarray] = {}
        for node in range(tree.kind.size):
            if tree.kind[node] < DECISION_NODE:
                continue
            up = int(self.parent[node])
            if up >= 0:
                reach = list(reaches[up])
                if tree.kind[up] == DECISION_NODE:
                    actor = int(tree.player[up])
                    reach[actor] = reach[actor] * out[up][node - int(tree.first_child[up])]
                else:
                    card = int(tree.card[node])
                    reach = [np.where((self.hands.cards[p, :sizes[p]] == card).any(axis=1), 0.0, reach[p])
                             for p in range(2)]
                reaches[node] = reach
            if tree.kind[node] == DECISION_NODE:
                out[node] = play(node, reaches[node])
        return out

    def chance_scale(self, dealt: int) -> float:
        """The product of the chance factors above a node after ``dealt`` cards (1 / the cards a deal of both
        hands leaves, per card dealt): what the opponent's reach in a walk carries there. The tree's ``factor`` of
        a decision node holds it (a chance node's is its own factor, a terminal's its rake).

        >>> from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
        >>> flop = TreeConfig(pot=100, stack=100, street=0, bets=parse_street_sizes("a"), raises=((), (), ()))
        >>> game = PostflopGame("Td9d6h", "AA", "KK", flop)
        >>> game.chance_scale(0), game.chance_scale(2) == 1 / (45 * 44)
        (1.0, True)
        """
        scale = 1.0
        for k in range(dealt):
            scale /= 52 - len(self.board) - k - 4
        return scale

    @cached_property
    def parent(self) -> np.ndarray:
        """Each node's parent (-1 at the root), from the children's ranges when first asked: the solver does not
        need it (1.7 MiB of a flop's tree)."""
        tree = self.tree
        out = np.full(tree.kind.size, -1, dtype=np.int32)
        inner = np.flatnonzero(tree.kind >= DECISION_NODE)
        counts = tree.num_children[inner].astype(np.int64)
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        out[np.repeat(tree.first_child[inner].astype(np.int64), counts) + within] = np.repeat(inner, counts)
        return out

    def _board_id(self, dealt: tuple[int, ...]) -> int:
        key = tuple(sorted(dealt))
        if key not in self._boards:
            self._boards[key] = len(self._boards)
        return self._boards[key]

    def _showdown_tables(self, cards: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each showdown board's hands sorted by strength (blocked hands left out)."""
        runouts = sorted(self._boards, key=self._boards.__getitem__) or [()]
        return showdown_tables(cards, counts, [self.board + r for r in runouts])

    # -- what the façade reads ----------------------------------------------------------------------------------
    @property
    def half_pot(self) -> float:
        return self.config.pot / 2

    @property
    def raked(self) -> bool:
        """Whether some terminal is raked (the game is then not zero-sum)."""
        return bool(self.tree.rake[self.tree.kind <= SHOWDOWN_NODE].any())

    @cached_property
    def decision_count(self) -> int:
        """Decision nodes of the materialised tree."""
        return int(np.count_nonzero(self.tree.kind == DECISION_NODE))

    def action_index(self, node: int, text: str) -> int:
        """The action of decision ``node`` that ``text`` names: its label (``bet 150``), a size in % of the pot
        before the bet (``bet 75%``, nearest within 2%) or ``all-in`` (``a``, ``jam``);
        :class:`~pokerlab.errors.InvalidArgumentError` naming the node's actions otherwise."""
        labels = self.labels[node]
        given = text
        text = " ".join(text.lower().replace("allin", "all-in").split())
        if text in labels:
            return labels.index(text)
        if text in ("all-in", "a", "jam", "shove"):
            hits = [i for i, label in enumerate(labels) if label.startswith("all-in")]
            if hits:
                return hits[0]
        word, _, size = text.partition(" ")
        if size.endswith("%"):
            try:
                fraction = float(size[:-1]) / 100
            except ValueError:
                fraction = -1.0
            pot = self.config.pot + 2 * float(self.tree.amount[node])
            best, gap = -1, 0.02
            for i, label in enumerate(labels):
                parts = label.rsplit(" ", 1)
                if len(parts) == 2 and parts[0].split()[0] in (word, "all-in") and parts[1].isdigit():
                    g = abs(float(parts[1]) / pot - fraction)
                    if g <= gap:
                        best, gap = i, g
            if best >= 0:
                return best
        raise InvalidArgumentError(f"no action {given!r} here: the actions are {', '.join(labels)}")

    def combos(self, player: int) -> np.ndarray:
        """The combo indices (see :data:`~pokerlab.cards.ranges.COMBOS`) of ``player``'s hands."""
        return self._combos[player]

    def hand_names(self, player: int) -> list[str]:
        return [format_cards(COMBOS[c].tolist()) for c in self._combos[player]]

    # -- the VectorGame protocol: public states are node indices of the tree without merged cards ------------
    def public_root(self) -> int:
        return 0

    def public_player(self, state: int) -> int:
        kind = int(self.tree.kind[state])
        if kind == DECISION_NODE:
            return int(self.tree.player[state])
        if kind == CHANCE_NODE:
            return CHANCE
        return TERMINAL

    def public_actions(self, state: int) -> list[int]:
        return list(range(int(self.tree.num_children[state])))

    def public_chance(self, state: int) -> list[tuple[Any, float]]:
        if self._swappable:
            raise InvalidArgumentError("the vector-form protocol needs the game built with isomorphism=False")
        n = int(self.tree.num_children[state])
        return [(i, 1.0 / n) for i in range(n)]

    def public_apply(self, state: int, action: Any) -> int:
        return int(self.tree.first_child[state]) + int(action)

    def num_private_hands(self, player: int) -> int:
        return int(self.hands.sizes[player])

    def initial_weights(self, player: int) -> np.ndarray:
        return np.array(self.hands.weights[player, :self.hands.sizes[player]])

    def action_label(self, state: int, action: Any) -> str:
        return self.labels[state][int(action)]

    def hand_label(self, player: int, hand: int) -> str:
        return self.hand_names(player)[hand]

    def evaluate(self, state: Any, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Values at a terminal, the protocol's way: the solvers' chance probabilities (1 / cards at the node)
        are turned into the deal's (1 / cards both hands leave) and blocked hands count 0."""
        node = int(state)
        other = 1 - player
        hands = self.hands
        opp = np.zeros(hands.weights.shape[1])
        opp[:hands.sizes[other]] = reaches[other]
        scale = 1.0
        up = node
        while up > 0:
            up = int(self.parent[up])
            if self.tree.kind[up] == CHANCE_NODE:
                scale *= self.tree.factor[up] * self.tree.num_children[up]
        dealt = self.dealt[node]
        for p, vec in ((other, opp),):
            for c in dealt:
                vec[:hands.sizes[p]][(hands.cards[p, :hands.sizes[p]] == c).any(axis=1)] = 0.0
        stake = self.half_pot + self.tree.amount[node]
        rake = float(self.tree.rake[node])
        if self.tree.kind[node] == FOLD_NODE:
            out = fold_values(hands, player, opp, -stake if self.tree.player[node] == player else stake - rake)
        else:
            out = showdown_values(hands, int(self.tree.board[node]), player, opp, stake - 0.5 * rake)
            if rake > 0:  # each of a tie pays half the rake: -rake / 2 on the whole compatible reach
                out += fold_values(hands, player, opp, -0.5 * rake)
        for c in (*self.board, *dealt):
            out[(hands.cards[player, :hands.sizes[player]] == c).any(axis=1)] = 0.0
        return scale * out

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        return VectorGame.evaluate_terminals(self, tree, terminals, player, reaches)
