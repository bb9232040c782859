"""FGS (future game simulation): a seat's prize equity with the next ``depth`` hands played out before ICM.

ICM values the chips as they stand and ignores that the blinds move: a stack about to post the big blind is
worth less than the same stack that just posted it. FGS plays the next ``depth`` hands forward, every branch of
each, and applies ICM (:func:`pokerlab.icm.icm`'s exact subset recursion) only at the leaves. The model of a
future hand (docs/algorithms.md, "FGS"), exactly:

- **Table.** The button moves one seat clockwise each hand (to the next seat with chips; seat order is the
  clockwise order, the acting order of the hand being solved); the blinds follow it (heads-up the button posts
  the small blind); everyone posts by the table rules (:func:`~pokerlab.games.pushfold.rules.post_forced_bets`:
  antes, blinds, a big-blind ante; a stack that cannot cover its posts is all in by posting). The blinds and
  antes stay at the level given.
- **Play.** Jam or fold; the first player in jams with the heads-up chip-EV Nash small blind's range at his
  effective stack (his stack against the deepest stack left to act), a later player calls with the heads-up
  big blind's calling range at ``min(his stack, the jammer's)``, and the first call closes the action (later
  players fold): the rules of the simulator's ``pushfold`` play model, bucket for bucket. A blind that already
  covers a short jam, and a stack all in by posting, is in the pot without acting. The ranges are pokerlab's own
  heads-up chip-EV solves (:func:`future_charts`) at 2, 3, ..., 30 big blinds; an effective stack in
  ``(b, b + 1]`` bb plays the ``b + 1`` bb solution (up to 2 bb the 2 bb one, beyond 30 bb the 30 bb one).
- **Chances.** A range plays with the share of the 1,326 combos it holds, independently of the others' hands;
  a two-way showdown is won, lost or tied with the exact probabilities of the two ranges' hands against each
  other with card removal (:data:`~pokerlab.equity.preflop.PreflopTables.class_win`); a hand dealt without a
  choice (a blind or a stack in by posting) is a random hand. A showdown of three or more (only when a stack is
  in without acting) orders the players by a Plackett-Luce rule on their two-way equities: the best hand is
  player ``i``'s with probability proportional to the product of his equities against each other player, then
  the same among the rest (no ties). Pots, side pots and refunds by :func:`~pokerlab.games.pushfold.rules.settle`.
- **Busts.** A stack that busts takes the last places left at once, larger stacks before the hand first (equal
  stacks share), as :class:`~pokerlab.pushfold.situation.ICMPayoff` does for the hand being solved.
- **Pruning.** A branch whose probability falls below ``prune`` is valued by ICM where it stands (its later hands
  not played); ``FGSResult.pruned`` is the probability mass so valued (0 with ``prune=0``: every branch played).

Every branch conserves chips and money: the seats' values sum to the prize pool.

>>> r = fgs_equity([2000, 3000, 5000], [50, 30, 20], blinds=(100, 200), button=0, depth=2)
>>> round(sum(r.equity), 9), r.depth
(100.0, 2)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.tables import cache_directory
from pokerlab.equity.preflop import preflop_tables
from pokerlab.errors import InvalidArgumentError, InvalidPayoutsError, InvalidStacksError, whole_number
from pokerlab.games.pushfold import JAM, PushFoldGame, Table
from pokerlab.games.pushfold.rules import post_forced_bets, settle
from pokerlab.games.vector import compile_public_tree
from pokerlab.icm.subset import icm_subset
from pokerlab.io import atomic_write
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.situation import ICMPayoff, chip_ev_payoff, validate_table
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import best_response_gains

MAX_FGS_DEPTH = 4
"""The deepest FGS (hands played out): at 6 seats a depth-4 tree has millions of leaves (docs/benchmarks.md)."""
CHART_TOP_BB = 30
"""Future hands' ranges are solved at 2, 3, ..., this many big blinds (deeper stacks play the last)."""
CHART_TARGET = 1e-5
"""Best-response gain (bb) the future hands' heads-up solves stop at (about 8 s for the 29 solves, once per code
version): their charts are pure to 1e-3 except at a few near-indifferent classes per depth."""
DEFAULT_PRUNE = 1e-7
"""Branches below this probability are valued by ICM where they stand (the error is at most this mass times the
pool per branch, and the total mass so valued is reported)."""
_MAX_OUTCOMES = 8192  # per hand: a 10-seat hand has ~150 two-way outcomes; 3+ way showdowns add a few hundred


class FgsTables(NamedTuple):
    """What the FGS kernels read: each bucket's jam and call shares of the combos, the two-way showdown
    probabilities of every pair of ranges (indices: jam bucket ``b``, call bucket ``buckets + b``, a random
    hand ``2 * buckets``), the payouts padded to the seats, the blinds and antes (chips), and the prune level."""

    jam_share: np.ndarray  # (B,)
    call_share: np.ndarray  # (B,)
    win: np.ndarray  # (2B + 1, 2B + 1): P(the first range's hand beats the second's)
    tie: np.ndarray  # (2B + 1, 2B + 1)
    payouts: np.ndarray  # (seats,)
    small_blind: float
    big_blind: float
    ante: float
    bb_ante: float
    prune: float


CHART_SOURCES = ("games/pushfold", "games/vector.py", "solvers/vector.py", "solvers/vector_strategy.py",
                 "equity/preflop.py", "cards/classes.py", "pushfold/situation.py", "pushfold/fgs.py")
"""The code that makes the future hands' charts: its hash keys their cache file."""


def _charts_key(target: float) -> str:
    return hashlib.sha256(f"{target!r} {CHART_TOP_BB} {sources_digest(CHART_SOURCES)}".encode()).hexdigest()[:16]


@cache
def future_charts(target: float = CHART_TARGET) -> tuple[np.ndarray, np.ndarray]:
    """The ranges of future hands: ``(jam, call)``, each ``(29, 169)``, the heads-up chip-EV Nash small blind's
    jam and big blind's call probabilities per class at 2, 3, ..., 30 big blinds (blinds 0.5/1, no ante), solved
    by pokerlab's vector-form solver to a best-response gain of ``target`` bb (seconds), kept under the user
    cache directory keyed by a hash of the code that makes them (:data:`CHART_SOURCES`) and ``target``.

    >>> jam, call = future_charts()
    >>> jam.shape, bool(jam[8, 0] > 0.999)  # 10 bb: aces jam
    ((29, 169), True)
    """
    path = cache_directory() / f"fgs-charts-{_charts_key(target)}.npz"
    try:
        with np.load(path) as stored:
            jam, call = stored["jam"], stored["call"]
        if jam.shape == call.shape == (CHART_TOP_BB - 1, 169) and np.all((jam >= 0) & (jam <= 1)) and np.all(
                (call >= 0) & (call <= 1)):
            return jam, call
    except (OSError, KeyError, ValueError):
        pass  # absent or damaged: solve again
    jams, calls = [], []
    for depth in range(2, CHART_TOP_BB + 1):
        stacks = np.array([float(depth), float(depth)])
        game = PushFoldGame(Table((float(depth), float(depth)), 0.5, 1.0), chip_ev_payoff(stacks, 1.0))
        tree = compile_public_tree(game)
        solver = VectorSolver(tree, "dcfr")
        for player in range(2):
            solver.prepare(player)
        while True:
            solver.iterate(8)
            strategy = solver.average_strategy()
            if max(best_response_gains(tree, strategy).gains) <= target or solver.iteration >= 4096:
                break
        jams.append(strategy.block(tree.states.index(()))[:, 1])
        calls.append(strategy.block(tree.states.index((JAM,)))[:, 1])
    jam, call = np.array(jams), np.array(calls)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as temporary:
            np.savez(temporary, jam=jam, call=call)
    except OSError:
        pass  # a read-only cache only costs solving again next time
    return jam, call


@cache
def _showdown_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(jam_share, call_share, win, tie)`` of :class:`FgsTables` from :func:`future_charts` (computed once)."""
    jam, call = future_charts()
    tables = preflop_tables()
    size = tables.class_size.astype(np.float64)
    ranges = np.vstack([jam, call, np.ones((1, jam.shape[1]))])  # per-class probabilities, (R, 169)
    weights = ranges * size  # combos of each class in the range
    pairs = weights @ tables.class_pairs @ ranges.T  # combo pairs sharing no card, (R, R)
    win = weights @ tables.class_win @ ranges.T / pairs
    tie = weights @ tables.class_tie @ ranges.T / pairs
    return weights[: jam.shape[0]].sum(axis=1) / 1326.0, weights[jam.shape[0]: -1].sum(axis=1) / 1326.0, win, tie


def fgs_tables(payouts: np.ndarray, seats: int, table: Table, prune: float = DEFAULT_PRUNE) -> FgsTables:
    """The kernels' bundle for a table of ``seats`` seats with these payouts (money per place), blinds and
    antes (``table``'s; its stacks are not read)."""
    jam_share, call_share, win, tie = _showdown_tables()
    padded = np.zeros(seats)
    padded[: min(seats, payouts.size)] = payouts[:seats]
    return FgsTables(jam_share, call_share, win, tie, padded, float(table.small_blind), float(table.big_blind),
                     float(table.ante), float(table.bb_ante), float(prune))


# ---------------------------------------------------------------------------------------------------------
# kernels


class FgsScratch(NamedTuple):
    """One thread's working memory for a future hand and an ICM valuation (each array sized for every seat; a
    hand of ``m`` players uses the first ``m`` entries): allocated once per tree, so that the inner loops, run
    once per leaf, allocate nothing."""

    order: np.ndarray  # the hand's players in acting order: seat numbers (int64)
    start: np.ndarray  # chips before the forced bets
    dead: np.ndarray  # antes
    live: np.ndarray  # blinds
    left: np.ndarray  # chips behind the forced bets
    deepest_after: np.ndarray  # the deepest stack acting after each player
    in_hand: np.ndarray  # bool
    jammed: np.ndarray  # bool
    ranges: np.ndarray  # range index of each player's hand (int64)
    contrib: np.ndarray
    behind: np.ndarray
    final: np.ndarray
    amounts: np.ndarray
    refunds: np.ndarray
    eligible: np.ndarray  # int64
    acting: np.ndarray  # 0, 1, ..., seats - 1 (int64)
    value: np.ndarray  # int64
    players: np.ndarray  # int64
    placed: np.ndarray  # bool
    one_way: np.ndarray  # (1, 1) int64: the one order of a lone player
    two_way: np.ndarray  # (3, 2) int64: first wins, second wins, split
    one_way_prob: np.ndarray  # (1,)
    two_way_prob: np.ndarray  # (3,)
    one_way_ties: np.ndarray  # (1,) bool
    two_way_ties: np.ndarray  # (3,) bool
    alive: np.ndarray  # ICM: the seats with chips (int64)
    chips: np.ndarray  # ICM: their stacks
    money: np.ndarray  # ICM: money per seat


@njit(cache=True)
def fgs_scratch(seats: int) -> FgsScratch:
    """Working memory for hands of up to ``seats`` seats."""
    return FgsScratch(
        np.zeros(seats, dtype=np.int64), np.zeros(seats), np.zeros(seats), np.zeros(seats), np.zeros(seats),
        np.zeros(seats), np.zeros(seats, dtype=np.bool_), np.zeros(seats, dtype=np.bool_),
        np.zeros(seats, dtype=np.int64), np.zeros(seats), np.zeros(seats), np.zeros(seats), np.zeros(seats),
        np.zeros(seats), np.zeros(seats, dtype=np.int64), np.arange(seats), np.zeros(seats, dtype=np.int64),
        np.zeros(seats, dtype=np.int64), np.zeros(seats, dtype=np.bool_), np.zeros((1, 1), dtype=np.int64),
        np.array([[0, 1], [1, 0], [0, 1]], dtype=np.int64), np.ones(1), np.zeros(3), np.zeros(1, dtype=np.bool_),
        np.array([False, False, True]), np.zeros(seats, dtype=np.int64), np.zeros(seats), np.zeros(seats))


@njit(cache=True)
def icm_money(stacks: np.ndarray, payouts: np.ndarray) -> np.ndarray:
    """ICM money of every seat with chips (``stacks > 0``) for the top places of ``payouts``; 0 for the others
    (their money was paid when they busted)."""
    table = np.empty((1, stacks.shape[0]))
    table[0] = stacks
    return _icm_into(table, 0, payouts, fgs_scratch(stacks.shape[0])).copy()


@njit(cache=True, inline="always")
def _icm_into(stacks: np.ndarray, row: int, payouts: np.ndarray, s: FgsScratch) -> np.ndarray:
    """:func:`icm_money` of ``stacks[row]`` into ``s.money`` (returned; valid until the next call with ``s``) by
    :func:`_icm_row`."""
    return _icm_row(stacks, row, payouts, s.alive, s.chips, s.contrib, s.behind, s.final, s.money)


@njit(cache=True, inline="always")
def _icm_row(stacks: np.ndarray, row: int, payouts: np.ndarray, alive: np.ndarray, x: np.ndarray,
             first: np.ndarray, sums: np.ndarray, column: np.ndarray, money: np.ndarray) -> np.ndarray:
    """:func:`icm_money` of ``stacks[row]`` into ``money`` (returned), the other arrays scratch of a
    :class:`FgsScratch`. At most three paid places: the closed form of :func:`_icm_top3`; more:
    :func:`pokerlab.icm.subset.icm_subset` on the stacks over their mean. The
    stacks are read in place and the scratch taken as arrays: a view of a row, or an array taken out of a bundle,
    costs a pair of atomic reference counts, a large part of a leaf's time once its arithmetic is this short."""
    n = stacks.shape[1]
    m = 0
    for i in range(n):
        money[i] = 0.0
        if stacks[row, i] > 0:
            alive[m] = i
            x[m] = stacks[row, i]
            m += 1
    if m == 0:
        return money
    if m == 1:
        money[alive[0]] = payouts[0]
        return money
    k = 0
    for p in range(m):
        if payouts[p] > 0:
            k = p + 1
    if k == 0:
        return money
    if k <= 3:
        return _icm_top3(payouts, m, k, alive, x, first, sums, column, money)
    chips = x[:m]  # more places (rare at the leaves): the exact recursion, as ICM elsewhere
    places = icm_subset(chips / chips.mean(), k)
    for a in range(m):
        value = 0.0
        for p in range(k):
            value += places[a, p] * payouts[p]
        money[alive[a]] = value
    return money


@njit(cache=True)
def _icm_top3(payouts: np.ndarray, m: int, k: int, alive: np.ndarray, x: np.ndarray, first: np.ndarray,
              row: np.ndarray, column: np.ndarray, money: np.ndarray) -> np.ndarray:
    """:func:`_icm_into` of ``m`` seats with chips (``s.alive``) when at most three places pay (``k <= 3``), in
    closed form: with ``x`` the stacks and ``S`` their sum, ``P(i first) = x_i / S``, ``P(i second) = x_i (A -
    a_i)`` with ``a_j = x_j / (S (S - x_j))`` and ``A`` their sum, ``P(i third) = x_i (B - sum_l b_il - sum_j
    b_ji)`` with ``b_jl = a_j x_l / (S - x_j - x_l)`` over ordered pairs and ``B`` their sum: about 20 divisions
    for six seats where the subset recursion makes 130 (equal to it to rounding, 1e-15 of the pool)."""
    total = 0.0
    for a in range(m):
        total += x[a]
    sum_first = 0.0
    for a in range(m):
        first[a] = x[a] / (total * (total - x[a]))
        sum_first += first[a]
    both = 0.0
    if k == 3:
        for a in range(m):
            row[a] = 0.0
            column[a] = 0.0
        for j in range(m):
            for i in range(j + 1, m):
                inverse = 1.0 / (total - x[j] - x[i])
                forward = first[j] * x[i] * inverse  # j first, i second
                backward = first[i] * x[j] * inverse  # i first, j second
                row[j] += forward
                column[i] += forward
                row[i] += backward
                column[j] += backward
                both += forward + backward
    for a in range(m):
        value = payouts[0] * (x[a] / total)
        if k >= 2:
            value += payouts[1] * (x[a] * (sum_first - first[a]))
        if k == 3:
            value += payouts[2] * (x[a] * (both - row[a] - column[a]))
        money[alive[a]] = value
    return money


@njit(cache=True, inline="always")
def _bucket(effective: float, big_blind: float, buckets: int) -> int:
    """Chart bucket of an effective stack: ``(b, b + 1]`` bb plays row ``b - 1`` (the ``b + 1`` bb solution)."""
    b = int(math.ceil(effective / big_blind - 1e-9)) - 2
    if b < 0:
        return 0
    if b >= buckets:
        return buckets - 1
    return b


@njit(cache=True, inline="always")
def next_alive(stacks: np.ndarray, seat: int) -> int:
    """The next seat clockwise after ``seat`` with chips (``seat`` itself if none)."""
    n: int = stacks.shape[0]
    for step in range(1, n + 1):
        s = (seat + step) % n
        if stacks[s] > 0:
            return s
    return seat


@njit(cache=True)
def hand_outcomes(stacks: np.ndarray, button: int, t: FgsTables, out_prob: np.ndarray, out_next: np.ndarray,
                  out_money: np.ndarray, out_button: np.ndarray, s: FgsScratch) -> int:
    """Every outcome of one future hand at ``stacks`` (chips per seat, clockwise; 0: out) with the button at
    ``button``: its probability, the stacks after it, the money of the seats busted in it and the next hand's
    button, written to the ``out_*`` buffers (``s``: working memory); returns the number of outcomes."""
    n = stacks.shape[0]
    m = 0
    for seat in range(n):
        if stacks[seat] > 0:
            m += 1
    sb = button if m == 2 else next_alive(stacks, button)
    bb = next_alive(stacks, sb)
    order, start, dead, live, left = s.order, s.start, s.dead, s.live, s.left
    seat = bb
    for k in range(m):
        seat = next_alive(stacks, seat)
        order[k] = seat
    for k in range(m):
        start[k] = stacks[order[k]]
        dead[k] = 0.0
        live[k] = 0.0
    post_forced_bets(start, m, m - 2, m - 1, t.small_blind, t.big_blind, t.ante, t.bb_ante, dead, live)
    for k in range(m):
        left[k] = (start[k] - dead[k]) - live[k]
    buckets = t.jam_share.shape[0]
    random_hand = 2 * buckets
    deepest_after = s.deepest_after
    deepest = 0.0
    for k in range(m - 1, -1, -1):
        deepest_after[k] = deepest
        deepest = max(deepest, start[k])
    in_hand, jammed, ranges = s.in_hand, s.jammed, s.ranges
    # the working memory taken out of its bundle once per hand: every access to a bundle's array, and every view
    # of a row, is a pair of atomic reference counts, which were 40% of the time when made per outcome
    payouts, win, tie, jam_share, call_share = t.payouts, t.win, t.tie, t.jam_share, t.call_share
    contrib, behind, final, amounts, refunds = s.contrib, s.behind, s.final, s.amounts, s.refunds
    eligible, acting, value, players, placed = s.eligible, s.acting, s.value, s.players, s.placed
    one_way, two_way, one_way_prob, two_way_prob = s.one_way, s.two_way, s.one_way_prob, s.two_way_prob
    one_way_ties, two_way_ties = s.one_way_ties, s.two_way_ties

    def emit(prob: float, count: int) -> int:
        """Append the showdown outcomes of one line of play (``prob``: its probability; ``in_hand``: the players
        in the pot, ``ranges`` their range indices; ``jammed``: who put his whole stack in) to the outcome
        buffers; returns the new count."""
        for k in range(m):
            contrib[k] = live[k]
            if jammed[k]:
                contrib[k] += left[k]
        # chips each player keeps back: behind
        dead_total = 0.0
        for k in range(m):
            behind[k] = (start[k] - dead[k]) - contrib[k]
            dead_total += dead[k]
        p = 0
        for k in range(m):
            if in_hand[k]:
                players[p] = k
                p += 1
        # the orders of the players' hands (best first) and their probabilities
        if p == 1:
            orders = one_way
            order_prob = one_way_prob
            ties = one_way_ties
        elif p == 2:
            a, b = players[0], players[1]
            orders = two_way
            w = win[ranges[a], ranges[b]]
            d = tie[ranges[a], ranges[b]]
            order_prob = two_way_prob
            order_prob[0] = w
            order_prob[1] = max(1.0 - w - d, 0.0)
            order_prob[2] = d
            ties = two_way_ties
        else:
            total = 1
            for r in range(2, p + 1):
                total *= r
            if count + total > out_prob.shape[0]:
                raise ValueError("FGS: too many outcomes in one hand")
            orders = np.empty((total, p), dtype=np.int64)
            current = np.arange(p)
            c = np.zeros(p, dtype=np.int64)
            orders[0] = current
            row = 1
            i = 0
            while i < p:  # Heap's algorithm: every permutation once
                if c[i] < i:
                    if i % 2 == 0:
                        current[0], current[i] = current[i], current[0]
                    else:
                        current[c[i]], current[i] = current[i], current[c[i]]
                    orders[row] = current
                    row += 1
                    c[i] += 1
                    i = 0
                else:
                    c[i] = 0
                    i += 1
            strength = np.empty((p, p))
            for x in range(p):
                for y in range(p):
                    if x != y:
                        rx, ry = ranges[players[x]], ranges[players[y]]
                        strength[x, y] = win[rx, ry] + 0.5 * tie[rx, ry]
            order_prob = np.empty(total)
            for o in range(total):
                pr = 1.0
                for r in range(p - 1):
                    norm = 0.0
                    top = 0.0
                    for u in range(r, p):
                        x = orders[o, u]
                        prod = 1.0
                        for v in range(r, p):
                            if v != u:
                                prod *= strength[x, orders[o, v]]
                        norm += prod
                        if u == r:
                            top = prod
                    pr *= top / norm if norm > 0 else 1.0 / (p - r)
                order_prob[o] = pr
            ties = np.zeros(total, dtype=np.bool_)
        scale = 0.0
        for k in range(m):
            scale += start[k]
        if count + orders.shape[0] > out_prob.shape[0]:
            raise ValueError("FGS: too many outcomes in one hand")
        for o in range(orders.shape[0]):
            q = prob * order_prob[o]
            if q <= 0.0:
                continue
            for k in range(m):
                value[k] = 0
            for r in range(p):
                value[players[orders[o, r]]] = p - r
            if ties[o]:
                value[players[0]] = 1
                value[players[1]] = 1
            for k in range(m):
                final[k] = behind[k]
            settle(final, contrib, m, in_hand, dead_total, value, acting, amounts, eligible, refunds)
            for seat in range(n):
                out_next[count, seat] = 0.0
                out_money[count, seat] = 0.0
            alive_after = 0
            for k in range(m):
                chips = final[k] if final[k] > 1e-12 * scale else 0.0
                out_next[count, order[k]] = chips
                if chips > 0:
                    alive_after += 1
            # the stacks busted in this hand take the places from alive_after down, larger starting stacks first
            for k in range(m):
                placed[k] = out_next[count, order[k]] > 0.0
            place = alive_after
            while place < m:
                largest = -1.0
                for k in range(m):
                    if not placed[k] and start[k] > largest:
                        largest = start[k]
                group = 0
                share = 0.0
                for k in range(m):
                    if not placed[k] and start[k] == largest:
                        share += payouts[place + group]
                        group += 1
                for k in range(m):
                    if not placed[k] and start[k] == largest:
                        out_money[count, order[k]] = share / group
                        placed[k] = True
                place += group
            out_prob[count] = q
            following = button  # the next seat with chips after the button
            for step in range(1, n + 1):
                if out_next[count, (button + step) % n] > 0:
                    following = (button + step) % n
                    break
            out_button[count] = following
            count += 1
        return count

    count = 0
    reach = 1.0  # probability that every player so far folded
    for k in range(m - 1):
        if left[k] <= 0.0:
            continue  # all in by posting: no decision
        b = _bucket(min(start[k], deepest_after[k]), t.big_blind, buckets)
        jam = jam_share[b]
        if jam > 0.0:
            # k jams: later players call in turn until the first call
            no_call = reach * jam
            for i in range(k + 1, m):
                if left[i] <= 0.0 or live[i] >= start[k] - dead[k]:
                    continue  # in the pot without acting
                call = call_share[_bucket(min(start[i], start[k]), t.big_blind, buckets)]
                if call > 0.0:
                    for j in range(m):
                        in_hand[j] = left[j] <= 0.0 or (j > k and live[j] >= start[k] - dead[k] and j < i)
                        jammed[j] = False
                        ranges[j] = random_hand
                    in_hand[k] = in_hand[i] = jammed[k] = jammed[i] = True
                    ranges[k] = b
                    ranges[i] = buckets + _bucket(min(start[i], start[k]), t.big_blind, buckets)
                    count = emit(no_call * call, count)
                no_call *= 1.0 - call
            if no_call > 0.0:
                for j in range(m):
                    in_hand[j] = left[j] <= 0.0 or (j > k and live[j] >= start[k] - dead[k])
                    jammed[j] = False
                    ranges[j] = random_hand
                in_hand[k] = jammed[k] = True
                ranges[k] = b
                count = emit(no_call, count)
        reach *= 1.0 - jam
    if reach > 0.0:  # folded to the big blind: he and every stack all in by posting see the board
        for j in range(m):
            in_hand[j] = left[j] <= 0.0 or j == m - 1
            jammed[j] = False
            ranges[j] = random_hand
        count = emit(reach, count)
    return count


class FgsBuffers(NamedTuple):
    """Outcome buffers of every level of the recursion (level ``d - 1`` for a node with ``d`` hands to go):
    allocated once per tree, not per node."""

    prob: np.ndarray  # (levels, outcomes)
    next: np.ndarray  # (levels, outcomes, seats)
    money: np.ndarray  # (levels, outcomes, seats)
    button: np.ndarray  # (levels, outcomes)


@njit(cache=True)
def fgs_buffers(levels: int, seats: int) -> FgsBuffers:
    """Outcome buffers for trees of up to ``levels`` hands at up to ``seats`` seats (about ``levels * seats * 130``
    KB)."""
    return FgsBuffers(np.empty((levels, _MAX_OUTCOMES)), np.empty((levels, _MAX_OUTCOMES, seats)),
                      np.empty((levels, _MAX_OUTCOMES, seats)), np.empty((levels, _MAX_OUTCOMES), dtype=np.int64))


@njit(cache=True)
def fgs_value(stacks: np.ndarray, button: int, depth: int, reach: float, t: FgsTables, pruned: np.ndarray,
              work: FgsBuffers, s: FgsScratch) -> np.ndarray:
    """Money of every seat with ``depth`` hands played out from ``stacks`` (button at ``button``) and ICM at the
    leaves; 0 for seats already out. ``reach``: the branch's probability (for pruning); the mass valued by ICM
    early is added to ``pruned[0]``. ``work``: buffers of at least ``depth`` levels; ``s``: working memory (the
    result may be ``s.money``: read it before the next call with ``s``)."""
    n = stacks.shape[0]
    alive = 0
    for seat in range(n):
        if stacks[seat] > 0:
            alive += 1
    if depth == 0 or alive <= 1:
        return icm_money(stacks, t.payouts)
    level = depth - 1
    out_prob = work.prob[level]
    out_next = work.next[level]
    out_money = work.money[level]
    out_button = work.button[level]
    count = hand_outcomes(stacks, button, t, out_prob, out_next, out_money, out_button, s)
    result = np.zeros(n)
    payouts = t.payouts
    alive_at, x, first, sums, column, money = s.alive, s.chips, s.contrib, s.behind, s.final, s.money
    for o in range(count):
        q = out_prob[o]
        branch = reach * q
        if depth > 1 and branch >= t.prune:
            below = fgs_value(out_next[o], out_button[o], depth - 1, branch, t, pruned, work, s)
        else:  # a leaf, or a branch pruned: ICM here (not through a call of this recursive function)
            below = _icm_row(out_next, o, payouts, alive_at, x, first, sums, column, money)
            if depth > 1:
                pruned[0] += branch
        for seat in range(n):
            result[seat] += q * (out_money[o, seat] + below[seat])
    return result


@njit(cache=True)
def _subtree(stacks: np.ndarray, button: int, depth: int, reach: float, t: FgsTables) -> tuple[np.ndarray, float]:
    """:func:`fgs_value` with buffers of its own: ``(money, pruned mass)``."""
    mass = np.zeros(1)
    n = stacks.shape[0]
    money = fgs_value(stacks, button, depth, reach, t, mass, fgs_buffers(max(depth, 1), n), fgs_scratch(n))
    return money.copy(), mass[0]


@njit(cache=True, parallel=True)
def _fgs_value_parallel(stacks: np.ndarray, button: int, depth: int, t: FgsTables) -> tuple[np.ndarray, float]:
    """:func:`fgs_value` with the first hand's outcomes valued in parallel: ``(money, pruned mass)``."""
    n = stacks.shape[0]
    prob = np.empty(_MAX_OUTCOMES)  # plain arrays: a parallel loop's body cannot name a NamedTuple class
    after = np.empty((_MAX_OUTCOMES, n))
    money = np.empty((_MAX_OUTCOMES, n))
    buttons = np.empty(_MAX_OUTCOMES, dtype=np.int64)
    count = hand_outcomes(stacks, button, t, prob, after, money, buttons, fgs_scratch(n))
    below = np.zeros((count, n))
    pruned = np.zeros(count)
    for o in prange(count):
        if depth == 1 or prob[o] >= t.prune:
            below[o], pruned[o] = _subtree(after[o], buttons[o], depth - 1, prob[o], t)
        else:
            below[o] = icm_money(after[o], t.payouts)
            pruned[o] = prob[o]
    result = np.zeros(n)
    for o in range(count):
        for s in range(n):
            result[s] += prob[o] * (money[o, s] + below[o, s])
    return result, pruned.sum()


@njit(cache=True, parallel=True)
def _fgs_rows(finals: np.ndarray, buttons: np.ndarray, depth: int, t: FgsTables) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fgs_value` of every row of ``finals``, the rows in parallel: ``(money, pruned mass per row)``."""
    money = np.zeros(finals.shape)
    pruned = np.zeros(finals.shape[0])
    for r in prange(finals.shape[0]):
        money[r], pruned[r] = _subtree(finals[r], buttons[r], depth, 1.0, t)
    return money, pruned


def fgs_values(finals: np.ndarray, buttons: np.ndarray, depth: int, t: FgsTables) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fgs_value` of each row of ``finals`` (chips per seat, 0: out) with the button at ``buttons[row]``:
    ``(money (rows, seats), pruned mass per row)``; many rows valued in parallel, one row's first hand's outcomes
    in parallel."""
    if finals.shape[0] > 1 and depth > 0:
        try:
            return _fgs_rows(finals, buttons, depth, t)
        except ValueError:
            pass  # a row too large for the buffers: said row by row below
    money = np.zeros(finals.shape)
    pruned = np.zeros(finals.shape[0])
    for r in range(finals.shape[0]):
        if depth == 0 or np.count_nonzero(finals[r] > 0) <= 1:
            money[r] = icm_money(finals[r], t.payouts)
        else:
            try:  # a shallow tree takes milliseconds: waking the worker threads would cost more
                money[r], pruned[r] = (_fgs_value_parallel(finals[r], int(buttons[r]), depth, t) if depth >= 3
                                       else _subtree(finals[r], int(buttons[r]), depth, 1.0, t))
            except ValueError:  # the kernel's outcome buffers: only with many stacks all in by posting
                raise InvalidStacksError("FGS: too many stacks all in by their forced bets in one hand (their "
                                         "showdowns have more orders than FGS enumerates); raise the stacks or "
                                         "lower the blinds and antes") from None
    return money, pruned


# ---------------------------------------------------------------------------------------------------------
# façade

SECONDS_PER_LEAF = 4e-7
"""Wall seconds per leaf of :func:`fgs_seconds_estimate`'s count, twice the most measured from depth 2 on the
shared 2-core machine at load 5-6 (2.0e-7 at 8 and 9 seats depth 2; 0.6-1.8e-7 at 5-7 seats depths 2-4, where
pruning and the hand's real outcomes cut the count; docs/benchmarks.md, "six-seat FGS, session 16"). At depth 1
the count is low (about 8e-7 s a leaf measured at 9-10 seats) but so is the time, about 2 s at ten seats: a
server's fixed allowance covers it."""


def fgs_seconds_estimate(seats: int, depth: int) -> float:
    """Rough wall seconds of ``pushfold(..., fgs_depth=depth)``'s payoffs at ``seats`` seats, for refusing work
    up front: the hand's outcomes (about ``h * 2 ** (seats - 3)``) times ``h ** depth`` leaves each, ``h =
    seats * (3 * seats - 1) / 2`` outcomes per future hand (a walk, each uncalled jam, and win / lose / tie of
    each jammer-caller pair).

    >>> round(fgs_seconds_estimate(6, 2), 1)
    0.4
    """
    if depth <= 0:
        return 0.0
    per_hand = 1 + (seats - 1) + 3 * seats * (seats - 1) / 2
    return float(per_hand * 2 ** max(seats - 3, 0) * per_hand ** depth * SECONDS_PER_LEAF)



def check_fgs_depth(depth: object, seats: int) -> int:
    """``depth`` as a whole number in 0..:data:`MAX_FGS_DEPTH` for a table of 2..10 ``seats``, or the error."""
    value = whole_number(depth, "the FGS depth", low=0, high=MAX_FGS_DEPTH)
    if not 2 <= seats <= 10:
        raise InvalidStacksError(f"FGS needs 2 to 10 seats at the table, got {seats}")
    return value


@dataclass(frozen=True)
class FGSResult:
    """FGS prize equity of a table: ``equity`` (money per seat, clockwise as given) with ``depth`` hands played
    out from the hand whose button is ``button``, and ``icm`` the same stacks' ICM equity; they both sum to
    ``pool``. ``pruned``: probability mass of the branches valued by ICM before ``depth`` hands (``prune``)."""

    equity: tuple[float, ...]
    icm: tuple[float, ...]
    depth: int
    button: int
    pool: float
    pruned: float
    prune: float
    elapsed_s: float

    def to_dict(self) -> dict[str, Any]:
        return {"model": "fgs", "depth": self.depth, "button": self.button, "equity": list(self.equity),
                "icm_equity": list(self.icm), "difference": [a - b for a, b in zip(self.equity, self.icm,
                                                                                   strict=True)],
                "pool": self.pool, "pruned_mass": self.pruned, "prune": self.prune, "elapsed_s": self.elapsed_s}


def _payout_array(payouts: Any, players: int) -> np.ndarray:
    from pokerlab.icm.lobby import amounts  # noqa: PLC0415 (the same checks as push/fold's)

    pay = amounts(payouts, "payouts", InvalidPayoutsError)
    if pay.size == 0:
        raise InvalidPayoutsError("no payouts: give at least one paid place")
    if np.any(pay < 0):
        raise InvalidPayoutsError("payouts must be >= 0")
    if np.any(np.diff(pay) > 0):
        raise InvalidPayoutsError("list payouts from first place down (each place pays at most the one above)")
    if pay.size > players:
        raise InvalidPayoutsError(f"{pay.size} payouts for {players} players: FGS models one table, the whole "
                                  "tournament (more paid places than players)")
    return pay


def fgs_equity(stacks: Sequence[float], payouts: Sequence[float], blinds: Sequence[float] = (0.5, 1.0), *,
               ante: float = 0.0, bb_ante: float = 0.0, button: int | None = None, depth: int = 2,
               prune: float = DEFAULT_PRUNE) -> FGSResult:
    """FGS prize equity (money) of each seat: the next ``depth`` hands (0 to 4) played out by the model of the
    module docstring, the first with the button at seat ``button`` (0-based, clockwise; default the seat three
    before the last, the button of push/fold's acting order ``UTG ... BTN, SB, BB``, heads-up seat 0), then ICM.
    ``stacks`` in chips (2 to 10 seats, the whole tournament: no other tables), ``payouts`` money per place,
    ``blinds`` and ``ante``/``bb_ante`` in chips. Depth 0 is ICM exactly.

    >>> r = fgs_equity([10, 10], [1], blinds=(0.5, 1), depth=1)  # heads-up winner take all: the chip EV
    >>> round(r.equity[0] + r.equity[1], 12), r.equity[0] < 0.5  # at 10 bb the small blind's hand loses a little
    (1.0, True)
    """
    import time  # noqa: PLC0415

    started = time.perf_counter()
    from pokerlab.icm.lobby import amounts  # noqa: PLC0415

    stack_array = amounts(stacks, "stacks", InvalidStacksError)
    blind_array = amounts(blinds, "blinds", InvalidArgumentError)
    table = validate_table(stack_array, blind_array.tolist(), float(ante), float(bb_ante))
    n = table.seats
    depth = check_fgs_depth(depth, n)
    pay = _payout_array(payouts, n)
    if button is None:
        button = 0 if n == 2 else n - 3
    button = whole_number(button, "the button seat", low=0, high=n - 1)
    if not (isinstance(prune, int | float) and math.isfinite(prune) and 0 <= prune < 1):
        raise InvalidArgumentError(f"prune must be a probability in [0, 1), got {prune}")
    t = fgs_tables(pay, n, table, prune)
    chips = np.asarray(table.stacks, dtype=np.float64)
    money, pruned = fgs_values(chips[None, :], np.array([button], dtype=np.int64), depth, t)
    icm = icm_money(chips, t.payouts)
    return FGSResult(tuple(float(x) for x in money[0]), tuple(float(x) for x in icm), depth, button,
                     float(pay.sum()), float(pruned[0]), float(prune), time.perf_counter() - started)


PAYOFF_CHUNK = 16
"""Outcomes of the hand valued per parallel batch (two cores stay busy; Python runs between batches)."""


class FGSPayoff(ICMPayoff):
    """The push/fold game's payoff under FGS: the seats busted in the hand being solved take the last places
    (as under ICM), the others' money is :func:`fgs_value` of the final stacks with ``depth`` more hands played
    out, the button one seat on (acting order is clockwise: the button of a hand of three or more is seat
    ``n - 3``, heads-up seat 0). Every outcome of the hand at ``table`` is valued up front in one parallel batch
    (:meth:`prepare`), cached per final-stack vector; ``pruned`` is the largest pruned mass of any outcome."""

    def __init__(self, stacks: np.ndarray, payouts: np.ndarray, field: np.ndarray, table: Table, depth: int,
                 prune: float = DEFAULT_PRUNE) -> None:
        super().__init__(stacks, payouts, field)
        self.depth = depth
        self.tables = fgs_tables(self.payouts, stacks.size, table, prune)
        self.pruned = 0.0
        self._fgs: dict[bytes, np.ndarray] = {}
        finals: list[np.ndarray] = []

        def record(final: np.ndarray) -> np.ndarray:
            finals.append(final.copy())
            return final

        PushFoldGame(table, record, multiway_samples=1)  # every outcome of the hand, then one parallel batch
        self.prepare(np.array(finals))

    def prepare(self, finals: np.ndarray) -> None:
        """Value every row of ``finals`` (final stacks of the hand) in parallel, from depth 3
        :data:`PAYOFF_CHUNK` rows per batch (Python runs between the batches: a second Ctrl-C, which the
        solve's deferral lets through, stops within one)."""
        rows = [f for f in finals if np.round(f, 9).tobytes() not in self._fgs]
        if not rows:
            return
        batch = np.array(rows, dtype=np.float64)
        scale = self.stacks.sum()
        batch = np.where(batch > 1e-12 * scale, batch, 0.0)
        n = self.stacks.size
        button = 0 if n == 2 else n - 3
        buttons = np.array([next_alive(row, button) for row in batch], dtype=np.int64)
        money = np.empty_like(batch)
        pruned = np.empty(batch.shape[0])
        chunk = PAYOFF_CHUNK if self.depth >= 3 else batch.shape[0]  # shallower: the whole hand in under a second
        for first in range(0, batch.shape[0], chunk):
            part = slice(first, first + chunk)
            money[part], pruned[part] = fgs_values(batch[part], buttons[part], self.depth, self.tables)
        self.pruned = max(self.pruned, float(pruned.max()))
        for row, value in zip(rows, money, strict=True):
            self._fgs[np.round(row, 9).tobytes()] = value

    def __call__(self, final: np.ndarray) -> np.ndarray:
        key = np.round(final, 9).tobytes()
        if key not in self._fgs:
            self.prepare(final[None, :])
        equity, alive = self.busted_places(final)  # the survivors' ICM is not computed: FGS replaces it
        equity[alive] = self._fgs[key][alive]
        return equity

