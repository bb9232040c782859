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
batch's deals (a lower bound, in expectation, of the true best-response gain); its standard error is the batches'
spread. The same gain with each action chosen on all the deals and measured on them is biased up by the noise (an
upper bound in expectation: the mean of a maximum is at least the maximum of the means): the two bracket the true
gain, and their distance says how much the deals leave unknown. Ties of three or more hands are
broken by a random seat priority per deal (as the solver's deals; exact for chip EV in expectation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBOS, NUMBER_OF_CLASSES
from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables, load_tables
from pokerlab.games.pushfold.deals import _hero_picks
from pokerlab.games.pushfold.game import JAM, PushFoldGame
from pokerlab.games.pushfold.kernels import winners_code
from pokerlab.games.vector import CompiledPublicTree
from pokerlab.solvers.vector_strategy import VectorStrategy
from pokerlab.stats.rng import numpy_generators

REAL_GAME_DEALS = 100_000
"""Joint deals of a real-game check by default (about 0.7 s CPU at six seats; the 12/8/10 ICM gains' standard errors
are then 1.4e-4 to 6.2e-4 money, docs/benchmarks.md)."""
BATCHES = 20
"""Batches of deals: the cross-fitting's folds and the standard errors' samples."""


@dataclass(frozen=True)
class RealGameCheck:
    """A profile valued on ``deals`` joint deals (seed ``seed``): per seat its ``values`` (payoff units) and their
    standard errors, and its best-response ``gains`` (cross-fitted, see the module docstring) with theirs;
    ``upper_gains`` the same gains chosen and measured on all the deals (in expectation at least the true gain, as
    ``gains`` is at most it).
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
    upper_gains: tuple[float, ...]

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


SUM_BLOCKS = 8
"""Blocks of a batch's deals, each summed into its own sums before they are added (shorter sums: less rounding).
One thread, as every push/fold valuation kernel (:mod:`pokerlab.games.pushfold.kernels` says why)."""


class TerminalPaths(NamedTuple):
    """The terminals of a game as padded arrays, the bundle :func:`batch_sums` reads. Per terminal ``t``: its
    path's ``length`` and per step ``k`` the acting ``seat``, the decision ``node``, the ``action`` column (0 fold,
    1 jam or call) and the node's index among the seat's own (``hero_node``); the ``inside`` seats of the pot
    (-1 padded, ``inside_count``), its pots' eligible-seat masks (``eligible``, ``pots``), its sorted outcome
    keys (``outcome_keys``, ``key_count``), its utilities (``utilities[t, row, seat]``) and per step ``k`` the
    first terminal after ``t`` whose path differs from ``t``'s in steps ``0..k`` (``subtree_end``: the terminals
    between share that prefix, so a prefix of reach 0 skips them all)."""

    length: np.ndarray
    seat: np.ndarray
    node: np.ndarray
    action: np.ndarray
    hero_node: np.ndarray
    inside: np.ndarray
    inside_count: np.ndarray
    eligible: np.ndarray
    pots: np.ndarray
    outcome_keys: np.ndarray
    key_count: np.ndarray
    utilities: np.ndarray
    subtree_end: np.ndarray


def terminal_paths(game: PushFoldGame, tree: CompiledPublicTree) -> tuple[TerminalPaths, list[list[int]]]:
    """The game's terminals as :class:`TerminalPaths` and each seat's decision nodes (increasing; ``hero_node``
    indexes them)."""
    seats = game.table.seats
    states = list(game.terminals)
    node_of = {tree.states[int(n)]: int(n) for n in tree.decision_nodes()}
    paths = [[(game.decision_seats[k], node_of[state[:k]], 1 if a == JAM else 0) for k, a in enumerate(state)]
             for state in states]
    hero_nodes = [sorted({node for path in paths for seat, node, _ in path if seat == i}) for i in range(seats)]
    index = [{node: h for h, node in enumerate(nodes)} for nodes in hero_nodes]
    count, longest = len(states), max(len(path) for path in paths)
    terminals = [game.terminals[state] for state in states]
    rows = max(t.utilities.shape[0] for t in terminals)
    pots = max(max(len(t.pot_eligible) for t in terminals), 1)
    keys = max(max(len(t.keys) for t in terminals), 1)
    bundle = TerminalPaths(
        length=np.array([len(path) for path in paths], dtype=np.int64),
        seat=np.zeros((count, longest), dtype=np.int64), node=np.zeros((count, longest), dtype=np.int64),
        action=np.zeros((count, longest), dtype=np.int64), hero_node=np.zeros((count, longest), dtype=np.int64),
        inside=np.full((count, seats), -1, dtype=np.int64),
        inside_count=np.array([len(t.participants) for t in terminals], dtype=np.int64),
        eligible=np.zeros((count, pots), dtype=np.int64),
        pots=np.array([len(t.pot_eligible) for t in terminals], dtype=np.int64),
        outcome_keys=np.zeros((count, keys), dtype=np.int64),
        key_count=np.array([len(t.keys) for t in terminals], dtype=np.int64),
        utilities=np.zeros((count, rows, seats)), subtree_end=np.zeros((count, longest), dtype=np.int64))
    for t, (path, terminal) in enumerate(zip(paths, terminals, strict=True)):
        for k, (seat, node, a) in enumerate(path):
            bundle.seat[t, k], bundle.node[t, k], bundle.action[t, k] = seat, node, a
            bundle.hero_node[t, k] = index[seat][node]
        bundle.inside[t, :len(terminal.participants)] = terminal.participants
        bundle.eligible[t, :len(terminal.pot_eligible)] = terminal.pot_eligible
        bundle.outcome_keys[t, :len(terminal.keys)] = terminal.keys
        bundle.utilities[t, :terminal.utilities.shape[0]] = terminal.utilities
    for t in range(count - 1, -1, -1):  # from the last: a next terminal sharing steps 0..k ends where t's does
        for k in range(len(states[t])):
            shares = t + 1 < count and states[t + 1][:k + 1] == states[t][:k + 1]
            bundle.subtree_end[t, k] = bundle.subtree_end[t + 1, k] if shares else t + 1
    return bundle, hero_nodes


@njit(cache=True)
def _outcome_row(paths: TerminalPaths, t: int, row: np.ndarray, order: np.ndarray, seats: int) -> int:
    """The outcome row of terminal ``t`` when the seats hold hands keyed ``row`` (``order``: scratch)."""
    m = paths.inside_count[t]
    if m == 1:
        return 0
    if m == 2:
        first, second = row[paths.inside[t, 0]] >> 4, row[paths.inside[t, 1]] >> 4
        return 0 if first > second else (1 if first < second else 2)
    for j in range(m):  # insertion sort, best first
        q = paths.inside[t, j]
        i = j
        while i > 0 and row[order[i - 1]] < row[q]:
            order[i] = order[i - 1]
            i -= 1
        order[i] = q
    return int(np.searchsorted(paths.outcome_keys[t, :paths.key_count[t]],
                               winners_code(order[:m], paths.eligible[t, :paths.pots[t]], seats)))


@njit(cache=True)
def _rank_payoffs(paths: TerminalPaths, t: int, seat: int, keys: np.ndarray, s: int, ranked: np.ndarray,
                  order: np.ndarray, out: np.ndarray, seats: int) -> None:
    """A 3+ way showdown of terminal ``t``: the other seats in the pot into ``ranked`` by decreasing key in deal
    ``s``, and ``seat``'s payoff into ``out[above]`` when ``above`` of them hold a better hand."""
    m = paths.inside_count[t]
    n = 0
    for j in range(m):
        q = paths.inside[t, j]
        if q == seat:
            continue
        i = n
        while i > 0 and keys[s, ranked[i - 1]] < keys[s, q]:
            ranked[i] = ranked[i - 1]
            i -= 1
        ranked[i] = q
        n += 1
    outcome_keys = paths.outcome_keys[t, :paths.key_count[t]]
    eligible = paths.eligible[t, :paths.pots[t]]
    for above in range(m):
        for j in range(above):
            order[j] = ranked[j]
        order[above] = seat
        for j in range(above, m - 1):
            order[j + 1] = ranked[j]
        out[above] = paths.utilities[t, np.searchsorted(outcome_keys, winners_code(order[:m], eligible, seats)), seat]


@njit(cache=True)
def batch_sums(classes: np.ndarray, keys: np.ndarray, picked_keys: np.ndarray, priority: np.ndarray,
               probs: np.ndarray, paths: TerminalPaths, hero_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """One batch's sums of the real-game check: per seat, the reach-weighted payoff summed over the deals
    (``(seats,)``), and per (seat, own node, action, class) the sum over the deals the class can use of the other
    seats' reach times the seat's payoff with a combo of the class in its place (``(seats, hero_nodes, 2, 169)``).
    ``probs[node, class, action]``: the profile; ``picked_keys``: each deal's key of one combo per class (-1 where
    it touches a dealt card), ``priority`` the seats' tie-breaks.

    Where the seat's payoff does not depend on its class (it folded, or its pot has no showdown) a deal adds the
    same amount to every class it can use: those amounts are summed per (seat, node, action) over the deal's
    terminals first and spread over the classes once per deal (most steps of most paths are folds). A path whose
    factors hold two zeros by some step adds nothing at any terminal below that step: the walk skips them all
    (``subtree_end``; with mostly pure strategies that is most of the table's terminals on every deal)."""
    count, seats = keys.shape
    classes_n = picked_keys.shape[1]
    terminals, longest = paths.seat.shape
    block_values = np.zeros((SUM_BLOCKS, seats))
    block_actions = np.zeros((SUM_BLOCKS, seats, max(hero_nodes, 1), 2, classes_n))
    flat = np.zeros((seats, max(hero_nodes, 1), 2))  # one deal's class-independent amounts
    factors = np.empty(longest)
    row = np.empty(seats, dtype=np.int64)
    order = np.empty(seats, dtype=np.int64)
    ranked = np.empty(seats, dtype=np.int64)
    by_rank = np.empty(seats)
    for block in range(SUM_BLOCKS):
        values = block_values[block]
        actions = block_actions[block]
        for s in range(block * count // SUM_BLOCKS, (block + 1) * count // SUM_BLOCKS):
            flat[:] = 0.0
            for q in range(seats):
                row[q] = keys[s, q]
            t = 0
            while t < terminals:
                length = paths.length[t]
                reach = 1.0
                zeros = 0  # factors that are 0: with two, every product of all but one of them is 0
                skip = -1
                for k in range(length):
                    factors[k] = probs[paths.node[t, k], classes[s, paths.seat[t, k]], paths.action[t, k]]
                    reach *= factors[k]
                    zeros += factors[k] == 0.0
                    if zeros > 1:  # so at every terminal below this step: the deal adds nothing there
                        skip = paths.subtree_end[t, k]
                        break
                if skip >= 0:
                    t = skip
                    continue
                dealt = _outcome_row(paths, t, row, order, seats)
                if reach != 0.0:
                    for q in range(seats):
                        values[q] += reach * paths.utilities[t, dealt, q]
                for k in range(length):
                    others = 1.0
                    for j in range(length):
                        if j != k:
                            others *= factors[j]
                    if others == 0.0:
                        continue
                    i = paths.seat[t, k]
                    inside = False
                    for j in range(paths.inside_count[t]):
                        inside = inside or paths.inside[t, j] == i
                    if not inside or paths.inside_count[t] == 1:  # the payoff does not depend on the seat's class
                        flat[i, paths.hero_node[t, k], paths.action[t, k]] += others * paths.utilities[t, dealt, i]
                        continue
                    sums = actions[i, paths.hero_node[t, k], paths.action[t, k]]
                    if paths.inside_count[t] == 2:  # win, lose or tie by the hand values
                        other = paths.inside[t, 0] + paths.inside[t, 1] - i
                        value = keys[s, other] >> 4
                        first = paths.inside[t, 0] == i
                        win = others * paths.utilities[t, 0 if first else 1, i]
                        lose = others * paths.utilities[t, 1 if first else 0, i]
                        tie = others * paths.utilities[t, 2, i]
                        for c in range(classes_n):
                            if picked_keys[s, c] >= 0:
                                mine = picked_keys[s, c] >> 4
                                sums[c] += win if mine > value else (lose if mine < value else tie)
                        continue
                    # 3+ way: the outcome depends only on how many of the others hold a better hand
                    m = paths.inside_count[t]
                    _rank_payoffs(paths, t, i, keys, s, ranked, order, by_rank, seats)
                    for c in range(classes_n):
                        if picked_keys[s, c] >= 0:
                            mine = picked_keys[s, c] + priority[s, i]
                            above = 0
                            for j in range(m - 1):
                                if keys[s, ranked[j]] > mine:
                                    above += 1
                            sums[c] += others * by_rank[above]
                t += 1
            for i in range(seats):
                for node in range(flat.shape[1]):
                    for a in range(2):
                        amount = flat[i, node, a]
                        if amount == 0.0:
                            continue
                        sums = actions[i, node, a]
                        for c in range(classes_n):
                            if picked_keys[s, c] >= 0:
                                sums[c] += amount
    return block_values.sum(axis=0), block_actions.sum(axis=0)


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
    totals = np.concatenate([t.utilities.sum(axis=1) for t in game.terminals.values()])
    pool = float(totals[0]) if np.ptp(totals) <= 1e-9 * max(1.0, abs(float(totals[0]))) else float("nan")
    paths, hero_nodes = terminal_paths(game, tree)
    probs = np.zeros((tree.num_nodes, NUMBER_OF_CLASSES, 2))
    for node in tree.decision_nodes():
        probs[int(node)] = strategy.block(int(node))
    widest = max(len(nodes) for nodes in hero_nodes)
    value_sums = np.zeros((batches, seats))
    # per batch: (seat, own node, action, class) sums over the deals a class can use of the others' reach times
    # the seat's payoff, and per class how many deals it can use
    action_sums = np.zeros((batches, seats, max(widest, 1), 2, NUMBER_OF_CLASSES))
    usable = np.zeros((batches, NUMBER_OF_CLASSES))
    counts = np.zeros(batches)
    for b in range(batches):
        n = min(size, deals - b * size)
        if n <= 0:
            break
        counts[b] = n
        decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (n, 1)), axis=1)
        priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (n, 1)), axis=1)
        classes, keys = deal_hands(decks, priority, tables, CLASS_OF_COMBO)
        picked_keys = class_keys(decks, seats, _hero_picks(n, rng), combo_cards, tables)
        usable[b] = (picked_keys >= 0).sum(axis=0)
        value_sums[b], action_sums[b] = batch_sums(classes, keys, picked_keys, priority, probs, paths, widest)
    values = value_sums.sum(axis=0) / counts.sum()
    value_errors = _batch_error(value_sums / counts[:, None])
    weights = game.class_weights
    gains, gain_errors, upper_gains = [], [], []
    for i in range(seats):
        sums = action_sums[:, i, :len(hero_nodes[i])]
        if sums.shape[1] == 0:
            gains.append(0.0)
            gain_errors.append(0.0)
            upper_gains.append(0.0)
            continue
        sigma = np.stack([strategy.block(node) for node in hero_nodes[i]]).transpose(0, 2, 1)  # (nodes, 2, 169)
        every = sums.sum(axis=0) / np.maximum(usable.sum(axis=0), 1.0)
        upper_gains.append(float((every.max(axis=1) - (every * sigma).sum(axis=1)).sum(axis=0) @ weights))
        per_batch = np.empty(batches)
        for b in range(batches):
            rest = (sums.sum(axis=0) - sums[b]) / np.maximum(usable.sum(axis=0) - usable[b], 1.0)
            best = np.argmax(rest, axis=1)  # (nodes, classes): chosen without this batch's deals
            mean = sums[b] / np.maximum(usable[b], 1.0)
            chosen = np.take_along_axis(mean, best[:, None, :], axis=1)[:, 0, :]
            played = (mean * sigma).sum(axis=1)
            per_batch[b] = float((chosen - played).sum(axis=0) @ weights)
        gains.append(float(per_batch.mean()))
        gain_errors.append(float(_batch_error(per_batch[:, None])[0]))
    return RealGameCheck(tuple(float(v) for v in values), tuple(float(e) for e in value_errors), tuple(gains),
                         tuple(gain_errors), pool, int(counts.sum()), seed, tuple(upper_gains))


def _batch_error(per_batch: np.ndarray) -> np.ndarray:
    """Standard error of the mean of batch means (``(batches, k)``)."""
    count = per_batch.shape[0]
    error: np.ndarray = per_batch.std(axis=0, ddof=1) / np.sqrt(count)
    return error
