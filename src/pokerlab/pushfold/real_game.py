"""A push/fold profile valued in the real game: joint deals of every seat's hand and the board.

The solver's game conditions each other seat's hand on the hero's alone (see docs/algorithms.md): its values
need not sum to the pool with three or more seats, and its gains hold in that model. Here every deal is a whole
table: one uniform shuffle gives each seat two cards and the board, so card removal is joint among all players
(those in the pot and those who folded). On each deal every terminal's reach is the product of the seats'
probabilities of their actions with the classes they hold, and its payoff is the outcome the deal's hands give
by the table rules. Per deal the seats' payoffs sum to the pool (ICM) or to 0 (chip EV) and the terminals'
reaches to 1, so the seat values sum to the pool on every deal, not only on average.

A seat's best-response gain is estimated by cross-fitting: the deals are cut into batches; for each batch the
best action of each (node, class) of the seat is chosen on the other batches and its gain over the profile's
action measured on the batch. That is an unbiased estimate of the gain of a deviation chosen without the
batch's deals (a lower bound, in expectation, of the true best-response gain; the choice on the same deals
would be biased up by the noise); its standard error is the batches' spread. Ties of three or more hands are
broken by a random seat priority per deal (as the solver's deals; exact for chip EV in expectation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBOS, NUMBER_OF_CLASSES
from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables, load_tables
from pokerlab.games.pushfold.deals import _hero_picks
from pokerlab.games.pushfold.game import JAM, PushFoldGame
from pokerlab.games.pushfold.kernels import seats_by_key, winners_code
from pokerlab.games.vector import CompiledPublicTree
from pokerlab.solvers.vector_strategy import VectorStrategy
from pokerlab.stats.rng import numpy_generators

REAL_GAME_DEALS = 100_000
"""Joint deals of a real-game check by default (about 4 s CPU at three seats, 18 s at six, loaded machine; the
12/8/10 ICM gains' standard errors are then 1.4e-4 to 6.2e-4 money, docs/benchmarks.md)."""
BATCHES = 20
"""Batches of deals: the cross-fitting's folds and the standard errors' samples."""


@dataclass(frozen=True)
class RealGameCheck:
    """A profile valued on ``deals`` joint deals (seed ``seed``): per seat its ``values`` (payoff units) and their
    standard errors, and its best-response ``gains`` (cross-fitted, see the module docstring) with theirs.
    ``pool``: what the payoffs of every outcome sum to (the prize pool under ICM, 0 for chip EV; NaN with a
    field, where the table's share of the money changes with the outcome); ``values.sum()`` equals it on every
    deal, so to rounding."""

    values: tuple[float, ...]
    value_errors: tuple[float, ...]
    gains: tuple[float, ...]
    gain_errors: tuple[float, ...]
    pool: float
    deals: int
    seed: int

    @property
    def max_gain(self) -> float:
        return float(max(self.gains))

    def over_target(self, target: float) -> tuple[int, ...]:
        """Seats whose measured gain exceeds ``target``."""
        return tuple(i for i, g in enumerate(self.gains) if g > target)


@njit(cache=True)
def deal_hands(decks: np.ndarray, priority: np.ndarray, tables: EvalTables, combo_class: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's class and hand key (``value * 16 + priority``, larger wins) on each deal: seat ``k`` holds
    cards ``2k, 2k + 1`` of the shuffled deck, the board is the next five."""
    count, seats = priority.shape
    classes = np.empty((count, seats), dtype=np.int64)
    keys = np.empty((count, seats), dtype=np.int64)
    for s in range(count):
        key, bits = partial_hand(decks[s, 2 * seats: 2 * seats + 5], tables)
        for seat in range(seats):
            c1, c2 = decks[s, 2 * seat], decks[s, 2 * seat + 1]
            high, low = max(c1, c2), min(c1, c2)
            classes[s, seat] = combo_class[high * (high - 1) // 2 + low]
            keys[s, seat] = np.int64(value_with_two(key, bits, c1, c2, tables)) * 16 + priority[s, seat]
    return classes, keys


@njit(cache=True)
def multiway_outcomes(keys: np.ndarray, participants: np.ndarray, eligible: np.ndarray, outcome_keys: np.ndarray,
                      seats: int) -> np.ndarray:
    """Outcome index (into a terminal's sorted ``outcome_keys``) of each deal of a showdown of 3+ players."""
    count = keys.shape[0]
    m = participants.shape[0]
    out = np.empty(count, dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    for s in range(count):
        seats_by_key(keys, s, participants, order)  # best first
        out[s] = np.searchsorted(outcome_keys, winners_code(order, eligible, seats))
    return out


@njit(cache=True)
def class_keys(decks: np.ndarray, seats: int, picks: np.ndarray, combo_cards: np.ndarray, tables: EvalTables
               ) -> np.ndarray:
    """Each deal's key (``value * 16``) of one combo per class (``picks``) on the deal's board, -1 where the combo
    touches a dealt card (a seat's or the board's: then the class cannot use the deal). Given that the combo
    avoids them, the other seats' hands and the board are uniform over the deck without it (the number of
    hands the hero's own seat could hold is the same for every such deal), as in the real deal."""
    count, classes = picks.shape
    out = np.empty((count, classes), dtype=np.int64)
    for s in range(count):
        used = np.uint64(0)
        for k in range(2 * seats + 5):
            used |= np.uint64(1) << np.uint64(decks[s, k])
        key, bits = partial_hand(decks[s, 2 * seats: 2 * seats + 5], tables)
        for c in range(classes):
            c1, c2 = combo_cards[picks[s, c], 0], combo_cards[picks[s, c], 1]
            hand = (np.uint64(1) << np.uint64(c1)) | (np.uint64(1) << np.uint64(c2))
            out[s, c] = -1 if (used & hand) != 0 else np.int64(value_with_two(key, bits, c1, c2, tables)) * 16
    return out


@njit(cache=True)
def hero_multiway_outcomes(keys: np.ndarray, hero_keys: np.ndarray, hero: int, participants: np.ndarray,
                           eligible: np.ndarray, outcome_keys: np.ndarray, seats: int) -> np.ndarray:
    """:func:`multiway_outcomes` for every class of ``hero`` (its key per deal and class in ``hero_keys``)."""
    count, classes = hero_keys.shape
    m = participants.shape[0]
    out = np.zeros((count, classes), dtype=np.int64)
    row = np.empty(seats, dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    for s in range(count):
        for q in range(seats):
            row[q] = keys[s, q]
        for c in range(classes):
            if hero_keys[s, c] < 0:
                continue
            row[hero] = hero_keys[s, c]
            for j in range(m):
                q = participants[j]
                i = j
                while i > 0 and row[order[i - 1]] < row[q]:
                    order[i] = order[i - 1]
                    i -= 1
                order[i] = q
            out[s, c] = np.searchsorted(outcome_keys, winners_code(order, eligible, seats))
    return out


def _hero_rows(game: PushFoldGame, state: tuple[int, ...], keys: np.ndarray, hero: int, hero_keys: np.ndarray
               ) -> np.ndarray:
    """Each deal's and hero class's outcome row of a terminal whose pot ``hero`` is in (``(deals, 169)``)."""
    terminal = game.terminals[state]
    inside = terminal.participants
    if len(inside) == 1:
        return np.zeros(hero_keys.shape, dtype=np.int64)
    if len(inside) == 2:
        other = keys[:, inside[1] if inside[0] == hero else inside[0]][:, None] >> 4
        mine = hero_keys >> 4
        first, second = (mine, other) if inside[0] == hero else (other, mine)
        return np.where(first > second, 0, np.where(first < second, 1, 2))
    return hero_multiway_outcomes(keys, hero_keys, hero, np.asarray(inside, dtype=np.int64), terminal.pot_eligible,
                                  terminal.keys, game.table.seats)


def _outcome_rows(game: PushFoldGame, state: tuple[int, ...], keys: np.ndarray) -> np.ndarray:
    """Each deal's outcome row of a terminal (rows of ``terminals[state].utilities``)."""
    terminal = game.terminals[state]
    inside = terminal.participants
    if len(inside) == 1:
        return np.zeros(keys.shape[0], dtype=np.int64)
    if len(inside) == 2:
        first, second = keys[:, inside[0]] >> 4, keys[:, inside[1]] >> 4
        return np.where(first > second, 0, np.where(first < second, 1, 2))
    return multiway_outcomes(keys, np.asarray(inside, dtype=np.int64), terminal.pot_eligible, terminal.keys,
                             game.table.seats)


def real_game_check(game: PushFoldGame, tree: CompiledPublicTree, strategy: VectorStrategy, *,
                    deals: int = REAL_GAME_DEALS, seed: int = 0) -> RealGameCheck:
    """Value ``strategy`` in the real game on ``deals`` joint deals (see the module docstring).

    >>> from pokerlab.games.pushfold.rules import Table
    >>> from pokerlab.games.vector import compile_public_tree
    >>> game = PushFoldGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), lambda final: final - 10.0, multiway_samples=50)
    >>> tree = compile_public_tree(game)
    >>> check = real_game_check(game, tree, VectorStrategy.uniform(tree), deals=2_000)
    >>> abs(sum(check.values)) < 1e-9  # chip EV: the values sum to 0 on every deal
    True
    """
    seats = game.table.seats
    batches = min(BATCHES, max(2, deals // 100))
    size = -(-deals // batches)
    tables = load_tables()
    combo_cards = COMBOS.astype(np.int64)
    rng = numpy_generators(seed, 2)[1]  # a stream of its own: independent of the solver's deals
    terminals = [(state, game.terminals[state]) for state in game.terminals]
    totals = np.concatenate([t.utilities.sum(axis=1) for _, t in terminals])
    pool = float(totals[0]) if np.ptp(totals) <= 1e-9 * max(1.0, abs(float(totals[0]))) else float("nan")
    # every decision node; per terminal its path: (seat, node, action column)
    node_of = {tree.states[int(n)]: int(n) for n in tree.decision_nodes()}
    paths = [[(game.decision_seats[k], node_of[state[:k]], 1 if a == JAM else 0) for k, a in enumerate(state)]
             for state, _ in terminals]
    hero_nodes = [sorted({node for path in paths for seat, node, _ in path if seat == i}) for i in range(seats)]
    index = [{node: h for h, node in enumerate(nodes)} for nodes in hero_nodes]
    value_sums = np.zeros((batches, seats))
    # per seat: (batch, hero node, action, class) sums over the deals a class can use of the others' reach times
    # the seat's payoff, and per (batch, class) how many deals it can use
    action_sums = [np.zeros((batches, len(nodes), 2, NUMBER_OF_CLASSES)) for nodes in hero_nodes]
    usable = np.zeros((seats, batches, NUMBER_OF_CLASSES))
    counts = np.zeros(batches)
    for b in range(batches):
        n = min(size, deals - b * size)
        if n <= 0:
            break
        counts[b] = n
        decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (n, 1)), axis=1)
        priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (n, 1)), axis=1)
        classes, keys = deal_hands(decks, priority, tables, CLASS_OF_COMBO)
        probs = {node: strategy.block(node)[classes[:, int(tree.tree.player[node])]] for node in node_of.values()}
        factors = [[probs[node][:, a] for _, node, a in path] for path in paths]
        for (state, terminal), path_factors in zip(terminals, factors, strict=True):
            payoff = terminal.utilities[_outcome_rows(game, state, keys)]  # (n, seats)
            reach = np.prod(path_factors, axis=0) if path_factors else np.ones(n)
            value_sums[b] += reach @ payoff
        picked_keys = class_keys(decks, seats, _hero_picks(n, rng), combo_cards, tables)
        can = picked_keys >= 0
        usable[:, b] = can.sum(axis=0)
        for i in range(seats):
            if not hero_nodes[i]:
                continue
            hero_keys = np.where(can, picked_keys + priority[:, i:i + 1], -1)
            for (state, terminal), path, path_factors in zip(terminals, paths, factors, strict=True):
                own = [j for j, (seat, _, _) in enumerate(path) if seat == i]
                if not own:
                    continue
                others = np.prod([f for j, f in enumerate(path_factors) if j != own[0]], axis=0) \
                    if len(path_factors) > 1 else np.ones(n)
                _, node, a = path[own[0]]
                if i in terminal.participants:  # only the deals the others reach (few, once ranges are tight)
                    live = np.flatnonzero(others)
                    payoff = terminal.utilities[_hero_rows(game, state, keys[live], i, hero_keys[live]), i]
                    action_sums[i][b, index[i][node], a] += others[live] @ np.where(can[live], payoff, 0.0)
                else:  # the seat folded: its payoff does not depend on its class
                    payoff = terminal.utilities[_outcome_rows(game, state, keys), i]
                    action_sums[i][b, index[i][node], a] += (others * payoff) @ can
    values = value_sums.sum(axis=0) / counts.sum()
    value_errors = _batch_error(value_sums / counts[:, None])
    weights = game.class_weights
    gains, gain_errors = [], []
    for i in range(seats):
        sums = action_sums[i]
        if sums.shape[1] == 0:
            gains.append(0.0)
            gain_errors.append(0.0)
            continue
        sigma = np.stack([strategy.block(node) for node in hero_nodes[i]]).transpose(0, 2, 1)  # (nodes, 2, 169)
        per_batch = np.empty(batches)
        for b in range(batches):
            rest = (sums.sum(axis=0) - sums[b]) / np.maximum(usable[i].sum(axis=0) - usable[i, b], 1.0)
            best = np.argmax(rest, axis=1)  # (nodes, classes): chosen without this batch's deals
            mean = sums[b] / np.maximum(usable[i, b], 1.0)
            chosen = np.take_along_axis(mean, best[:, None, :], axis=1)[:, 0, :]
            played = (mean * sigma).sum(axis=1)
            per_batch[b] = float((chosen - played).sum(axis=0) @ weights)
        gains.append(float(per_batch.mean()))
        gain_errors.append(float(_batch_error(per_batch[:, None])[0]))
    return RealGameCheck(tuple(float(v) for v in values), tuple(float(e) for e in value_errors), tuple(gains),
                         tuple(gain_errors), pool, int(counts.sum()), seed)


def _batch_error(per_batch: np.ndarray) -> np.ndarray:
    """Standard error of the mean of batch means (``(batches, k)``)."""
    count = per_batch.shape[0]
    error: np.ndarray = per_batch.std(axis=0, ddof=1) / np.sqrt(count)
    return error
