"""Push/fold valued with card removal joint among the players in the pot, folded hands ignored: the chart model.

The model (as HoldemResources Calculator's): at a terminal, the hands of the seats in the pot are dealt jointly
(no two share a card), and every other seat's hand is independent of them and of each other, with the class
weights ``combos / 1,326``. It holds for a table whose every showdown is one contested pot (no side pots: equal
stacks, nobody all in by posting; chips of one seat that nobody matches go back to it) and payoffs linear in
the pot share (chip EV); :class:`JointPotGame` refuses others.

- one seat in the pot (everyone else folded): its payoff is constant (heads-up, the two hands are still dealt
  jointly: the chart model is the exact game with two seats);
- two seats: exact, from the class tables of :mod:`pokerlab.equity.preflop` (wins and ties summed over the
  disjoint combo pairs);
- three seats: the sampled three-way table of :mod:`pokerlab.games.pushfold.pot_tables` (unbiased; the same
  table for every pot, so the game is one fixed game);
- four to ten seats: that module's fixed bank of joint deals per pot size (unbiased, coarse; such pots are rare
  at a chart's equilibrium).

Every term is multilinear in the strategies, the same joint distribution serves every seat at a terminal, and
the pot's shares sum to one on every sample, so the seats' values sum to zero chips exactly (tested): CFR's
guarantees and the exact best responses of :func:`~pokerlab.solvers.vector_strategy.best_response_gains` hold
in this game.

>>> from pokerlab.games.pushfold import Table
>>> from pokerlab.games.pushfold.pot_tables import build_pot_tables
>>> pots = build_pot_tables(triple_deals=1000, bank_deals=16, seed=1)
>>> game = JointPotGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), lambda final: final - 10.0, pots=pots)
>>> game.spec()["valuation"]
'joint-pots'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.equity.preflop import PreflopTables
from pokerlab.errors import InvalidGameError
from pokerlab.games.pushfold.game import PushFoldGame, State
from pokerlab.games.pushfold.kernels import DISJOINT_COMBOS
from pokerlab.games.pushfold.pot_tables import PotTables, pot_tables
from pokerlab.games.pushfold.rules import Table

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.games.vector import CompiledPublicTree


class JointPlans(NamedTuple):
    """Per terminal ``t`` of a list: ``inside[t]`` the seats in the pot (increasing, -1 padded), ``size[t]``
    how many; per (terminal, seat): ``fixed`` its payoff when it is not in the pot or alone in it, ``win`` /
    ``lose`` / ``tie`` its payoff when it wins the pot, loses it, or splits a two-way pot."""

    inside: np.ndarray
    size: np.ndarray
    fixed: np.ndarray
    win: np.ndarray
    lose: np.ndarray
    tie: np.ndarray


class JointTables(NamedTuple):
    """The kernel's read-only tables: class weights, the two-way class tables, the three-way table
    (``share6_by_pair[B, C, A] = share6[A, B, C]``) and the bank, with their per-class scales
    (``1326 / (size * samples)``).
    ``bank_order[k - 4, slot]``: the bank's deals of ``k`` hands sorted by the class at ``slot``, and
    ``bank_start[k - 4, slot, c]`` where class ``c``'s run starts there (a pot's deals are visited through the
    classes its narrowest range holds)."""

    weights: np.ndarray
    pairs: np.ndarray
    win: np.ndarray
    tie: np.ndarray
    triple_count: np.ndarray
    share6_by_pair: np.ndarray
    triple_scale: np.ndarray
    bank_classes: np.ndarray
    bank_shares: np.ndarray
    bank_scale: np.ndarray
    bank_order: np.ndarray
    bank_start: np.ndarray


def _bank_index(classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, start)`` of :class:`JointTables` for the bank's ``classes`` (pot sizes, deals, slots)."""
    sizes, deals, slots = classes.shape
    order = np.zeros((sizes, slots, deals), dtype=np.int32)
    start = np.zeros((sizes, slots, NUMBER_OF_CLASSES + 1), dtype=np.int64)
    for k in range(sizes):
        for slot in range(min(k + 4, slots)):
            column = classes[k, :, slot].astype(np.int64)
            order[k, slot] = np.argsort(column, kind="stable")
            start[k, slot, 1:] = np.cumsum(np.bincount(column, minlength=NUMBER_OF_CLASSES))
    return order, start


@njit(cache=True, inline="always")
def _support(x: np.ndarray) -> np.ndarray:
    """Indices of the positive entries of ``x``."""
    return np.flatnonzero(x > 0.0)


@njit(cache=True, inline="always")
def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` of two vectors of 169 (a loop: no BLAS call per terminal)."""
    total = 0.0
    for k in range(a.shape[0]):
        total += a[k] * b[k]
    return total


@njit(cache=True, inline="always")
def _three_way(x1: np.ndarray, x2: np.ndarray, tables: JointTables, heroes: np.ndarray, r: np.ndarray,
               s: np.ndarray) -> None:
    """``r[h]``: probability that two opponents with per-class strategies ``x1``, ``x2`` hold hands that reach
    the pot, given one combo of class ``h``; ``s[h]``: the same weighted by ``h``'s share of the pot; for the
    classes ``heroes`` only (the others are left as they are; all 169 or an increasing subset). The opponents'
    classes ``a``, ``b`` are the outer loops and the hero's class the inner one: ``triple_count`` is symmetric,
    so ``triple_count[a, b]`` is the contiguous row of every hero, and ``share6_by_pair[a, b, h]`` is
    ``share6[h, a, b]``; the inner loop is a vectorised multiply-add over a contiguous row (3x the speed of a
    gather over ``b``), and each hero's sums are the same, in the same order, as with the hero outermost."""
    a_idx, b_idx = _support(x1), _support(x2)
    every = heroes.size == NUMBER_OF_CLASSES
    inner_total = np.empty(NUMBER_OF_CLASSES)
    inner_share = np.empty(NUMBER_OF_CLASSES)
    for h in heroes:
        r[h] = 0.0
        s[h] = 0.0
    for a in a_idx:
        xa = x1[a]
        inner_total[:] = 0.0
        inner_share[:] = 0.0
        for b in b_idx:
            xb = x2[b]
            count = tables.triple_count[a, b]
            share = tables.share6_by_pair[a, b]
            if every:
                for h in range(NUMBER_OF_CLASSES):
                    inner_total[h] += xb * count[h]
                    inner_share[h] += xb * share[h]
            else:
                for h in heroes:
                    inner_total[h] += xb * count[h]
                    inner_share[h] += xb * share[h]
        for h in heroes:
            r[h] += xa * inner_total[h]
            s[h] += xa * inner_share[h]
    for h in heroes:
        r[h] *= tables.triple_scale[h]
        s[h] *= tables.triple_scale[h] / 6.0


@njit(cache=True, inline="always")
def _bank_values(xs: np.ndarray, size: int, slot: int, tables: JointTables, lose: float, gain: float,
                 out: np.ndarray) -> float:
    """A pot of ``size`` >= 4 seats on the bank's deals (``xs[j]``: the per-class strategy of the pot's
    ``j``-th seat). ``slot`` >= 0: ``out[h]`` += the seat's value ``lose + gain * share`` per class (scaled),
    returns 0; ``slot`` < 0: returns the probability that the hands reach the pot (a spectator's factor).
    Only the deals whose class at one other slot is in that slot's range can weigh: the deals are visited
    through the slot whose range holds the fewest of them."""
    classes = tables.bank_classes[size - 4]
    shares = tables.bank_shares[size - 4]
    deals = classes.shape[0]
    starts = tables.bank_start[size - 4]
    pivot = -1
    fewest = deals + 1
    for j in range(size):
        if j == slot:
            continue
        held = 0
        for c in range(NUMBER_OF_CLASSES):
            if xs[j, c] > 0.0:
                held += starts[j, c + 1] - starts[j, c]
        if held < fewest:
            fewest = held
            pivot = j
    order = tables.bank_order[size - 4, pivot]
    sparse = 4 * fewest < deals  # else in storage order: a scattered visit of most deals costs more
    mass = 0.0
    for c in range(NUMBER_OF_CLASSES if sparse else 1):
        if sparse and xs[pivot, c] == 0.0:
            continue
        for i in range(starts[pivot, c] if sparse else 0, starts[pivot, c + 1] if sparse else deals):
            d = order[i] if sparse else i
            weight = 1.0
            for j in range(size):
                if j != slot:
                    weight *= xs[j, classes[d, j]]
                    if weight == 0.0:
                        break
            if weight == 0.0:
                continue
            if slot < 0:
                mass += weight
            else:
                out[classes[d, slot]] += weight * (lose + gain * shares[d, slot])
    if slot >= 0:
        for h in range(NUMBER_OF_CLASSES):
            out[h] *= tables.bank_scale[h]
    return float(mass / deals)


class ThreeWayMemo(NamedTuple):
    """What the three-way pots of a list of terminals remember between calls: ``r[t, slot]`` the reach factor
    :func:`_three_way` gave the seat at ``slot`` of terminal ``t``'s pot, against ``others[t, slot]`` the two
    other seats' strategies then, where ``known[t, slot]``. A spectator's factor, the probability that the pot's
    three hands reach it, is ``sum_h w[h] x[h] r[h]`` for any slot whose others have not changed since: one dot
    product instead of a contraction (with alternating CFR updates some slot always qualifies)."""

    r: np.ndarray
    others: np.ndarray
    known: np.ndarray

    @classmethod
    def empty(cls, terminals: int) -> ThreeWayMemo:
        return cls(np.zeros((terminals, 3, NUMBER_OF_CLASSES)), np.zeros((terminals, 3, 2, NUMBER_OF_CLASSES)),
                   np.zeros((terminals, 3), dtype=np.bool_))


@njit(cache=True, inline="always")
def _remembered_mass(xs: np.ndarray, w: np.ndarray, memo_r: np.ndarray, memo_others: np.ndarray,
                     memo_known: np.ndarray, t: int) -> float:
    """The spectator's factor of terminal ``t``'s three-way pot from ``memo`` (see :class:`ThreeWayMemo`), or -1
    when no slot's factor is still current."""
    for slot in range(3):
        if not memo_known[t, slot]:
            continue
        current = True
        for k in range(2):
            other = (slot + 1 + k) % 3
            for c in range(NUMBER_OF_CLASSES):
                if memo_others[t, slot, k, c] != xs[other, c]:
                    current = False
                    break
            if not current:
                break
        if current:
            mass = 0.0
            for c in range(NUMBER_OF_CLASSES):
                mass += w[c] * xs[slot, c] * memo_r[t, slot, c]
            return mass
    return -1.0


@njit(cache=True, parallel=True)
def joint_pot_values(plans: JointPlans, reaches: np.ndarray, player: int, tables: JointTables,
                     out: np.ndarray, memo_r: np.ndarray, memo_others: np.ndarray, memo_known: np.ndarray) -> None:
    """``out[t, h]``: the counterfactual value of ``player``'s class ``h`` at terminal ``t`` (its expected payoff
    there times the others' reach), ``reaches[t, q]`` each seat's reach (class weights included); the arrays of
    a :class:`ThreeWayMemo` (one row per terminal; passed one by one: numba's parallel loop loses the writes into
    arrays reached through a tuple's fields) are read and written."""
    terminals, seats, _ = reaches.shape
    w = tables.weights
    for t in prange(terminals):
        m = plans.size[t]
        inside = plans.inside[t, :m]
        folded = 1.0
        hero_slot = -1
        for q in range(seats):
            in_pot = False
            for j in range(m):
                if inside[j] == q:
                    in_pot = True
                    if q == player:
                        hero_slot = j
            if q != player and not in_pot:
                folded *= reaches[t, q].sum()
        xs = np.empty((m, NUMBER_OF_CLASSES))
        for j in range(m):
            xs[j] = reaches[t, inside[j]] / w
        row = out[t]
        if seats == 2 and m == 1:  # heads-up, a fold: the two hands are dealt jointly (the exact game)
            other = reaches[t, 1 - player] / w
            for h in range(NUMBER_OF_CLASSES):
                row[h] = plans.fixed[t, player] * _dot(tables.pairs[h], other) / DISJOINT_COMBOS
            continue
        if hero_slot < 0:  # a spectator (or the lone winner's opponents): its payoff is fixed
            if m == 1:
                mass = reaches[t, inside[0]].sum()
            elif m == 2:
                mass = 0.0
                for a in range(NUMBER_OF_CLASSES):
                    if xs[0, a] > 0.0:
                        mass += w[a] * xs[0, a] * _dot(tables.pairs[a], xs[1]) / DISJOINT_COMBOS
            elif m == 3:
                mass = _remembered_mass(xs, w, memo_r, memo_others, memo_known, t)
                if mass < 0.0:
                    r = np.zeros(NUMBER_OF_CLASSES)
                    s = np.zeros(NUMBER_OF_CLASSES)
                    _three_way(xs[1], xs[2], tables, _support(xs[0]), r, s)
                    mass = _dot(w * xs[0], r)
            else:
                mass = _bank_values(xs, m, -1, tables, 0.0, 0.0, row)
            row[:] = plans.fixed[t, player] * folded * mass
            continue
        if m == 1:
            row[:] = plans.fixed[t, player] * folded
            continue
        win, lose, tie = plans.win[t, player], plans.lose[t, player], plans.tie[t, player]
        if m == 2:
            o = xs[1 - hero_slot]
            for h in range(NUMBER_OF_CLASSES):
                total = _dot(tables.pairs[h], o)
                won = _dot(tables.win[h], o)
                tied = _dot(tables.tie[h], o)
                row[h] = folded * (win * won + lose * (total - won - tied) + tie * tied) / DISJOINT_COMBOS
        elif m == 3:
            r = np.empty(NUMBER_OF_CLASSES)
            s = np.empty(NUMBER_OF_CLASSES)
            _three_way(xs[(hero_slot + 1) % 3], xs[(hero_slot + 2) % 3], tables, np.arange(NUMBER_OF_CLASSES), r,
                       s)
            for c in range(NUMBER_OF_CLASSES):
                memo_r[t, hero_slot, c] = r[c]
                memo_others[t, hero_slot, 0, c] = xs[(hero_slot + 1) % 3, c]
                memo_others[t, hero_slot, 1, c] = xs[(hero_slot + 2) % 3, c]
            memo_known[t, hero_slot] = True
            for h in range(NUMBER_OF_CLASSES):
                row[h] = folded * (lose * r[h] + (win - lose) * s[h])
        else:
            row[:] = 0.0
            _bank_values(xs, m, hero_slot, tables, lose, win - lose, row)
            row *= folded


_DERIVED: list[tuple[PotTables, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = []


def _derived(pots: PotTables) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``share6_by_pair`` and the bank's index (:func:`_bank_index`) of ``pots``, made once for the last
    tables object asked (the shipped one, in a chart build)."""
    if not _DERIVED or _DERIVED[0][0] is not pots:
        by_pair = np.ascontiguousarray(pots.share6.transpose(1, 2, 0))
        _DERIVED[:] = [(pots, (pots.triple_count, by_pair, *_bank_index(pots.bank_classes)))]
    return _DERIVED[0][1]


@dataclass
class _TreePlans:
    tree: CompiledPublicTree
    terminals: np.ndarray
    plans: JointPlans
    memo: ThreeWayMemo


class JointPotGame(PushFoldGame):
    """Push/fold in the chart model (see the module docstring): the same table rules, public tree and outcomes
    as :class:`~pokerlab.games.pushfold.game.PushFoldGame`, valued with card removal joint among the players in
    the pot and folded hands ignored. ``pots``: the sampled tables (default: the shipped-size ones,
    :func:`~pokerlab.games.pushfold.pot_tables.pot_tables`). Raises :class:`~pokerlab.errors.InvalidGameError`
    for a table with a side pot or a payoff not linear in the pot share."""

    def __init__(self, table: Table, payoff: Callable[..., np.ndarray], *, equity: PreflopTables | None = None,
                 pots: PotTables | None = None) -> None:
        super().__init__(table, payoff, multiway_samples=1, seed=0, equity=equity)
        self.pots = pots if pots is not None else pot_tables()
        for state, terminal in self.terminals.items():
            contested = sum(bin(int(mask)).count("1") > 1 for mask in terminal.pot_eligible)
            if len(terminal.participants) > 1 and contested != 1:
                raise InvalidGameError(
                    f"the joint-pot model needs one pot per showdown; {state} has {contested} "
                    "(a seat is all in by posting or the stacks differ): solve it with pokerlab.pushfold.pushfold")
        sizes = self.equity.class_size.astype(np.float64)
        bank_deals = self.pots.bank_deals
        count, share6, order, start = _derived(self.pots)
        self.tables = JointTables(
            self.class_weights, self.equity.class_pairs, self.equity.class_win, self.equity.class_tie,
            count, share6, 1326.0 / (sizes * self.pots.ordered_samples),
            self.pots.bank_classes, self.pots.bank_shares, 1326.0 / (sizes * bank_deals), order, start)
        self._plans: _TreePlans | None = None

    def spec(self) -> dict[str, Any]:
        meta = self.pots.meta
        return super().spec() | {"valuation": "joint-pots", "triple_deals": int(meta[0]),
                                 "bank_deals": int(meta[1]), "pots_seed": int(meta[2])}

    def plans(self, states: Sequence[State]) -> JointPlans:
        """The kernel's static arrays for these terminals (see :class:`JointPlans`)."""
        n = self.table.seats
        count = len(states)
        inside = np.full((count, n), -1, dtype=np.int64)
        size = np.zeros(count, dtype=np.int64)
        fixed, win, lose, tie = (np.zeros((count, n)) for _ in range(4))
        for t, state in enumerate(states):
            terminal = self.terminals[state]
            u = terminal.utilities
            seats = terminal.participants
            m = len(seats)
            inside[t, :m] = seats
            size[t] = m
            for i in range(n):
                if i not in seats or m == 1:
                    if not np.allclose(u[:, i], u[0, i], rtol=0, atol=1e-9 * max(1.0, abs(u[0, i]))):
                        raise InvalidGameError("the joint-pot model needs a payoff fixed for a seat out of the "
                                               "pot (chip EV)")
                    fixed[t, i] = u[0, i]
                    continue
                r = seats.index(i)
                if m == 2:
                    win[t, i], lose[t, i], tie[t, i] = u[r, i], u[1 - r, i], u[2, i]
                    continue
                # one row per winner of the contested pot, the first (a pot above it, one seat's own chips,
                # goes back to that seat whoever wins)
                winners = [int(key) % n for key in terminal.keys]
                if sorted(winners) != list(seats):
                    raise InvalidGameError("the joint-pot model needs one pot per showdown")  # pragma: no cover
                r = winners.index(i)
                others = [u[k, i] for k in range(m) if k != r]
                if not np.allclose(others, others[0], rtol=0, atol=1e-9 * max(1.0, abs(others[0]))):
                    raise InvalidGameError("the joint-pot model needs a payoff linear in the pot share (chip EV)")
                win[t, i], lose[t, i] = u[r, i], others[0]
        return JointPlans(inside, size, fixed, win, lose, tie)

    def evaluate(self, state: State, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual value of each class of ``player`` at one terminal (the model's; see the module)."""
        out = np.empty((1, NUMBER_OF_CLASSES))
        stacked = np.stack([np.asarray(r, dtype=np.float64) for r in reaches])[None]
        joint_pot_values(self.plans([state]), stacked, player, self.tables, out, *ThreeWayMemo.empty(1))
        values: np.ndarray = out[0]
        return values

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at every terminal in one compiled call."""
        cached = self._plans
        if cached is None or cached.tree is not tree or not np.array_equal(cached.terminals, terminals):
            cached = self._plans = _TreePlans(tree, terminals.copy(),
                                              self.plans([tree.states[int(node)] for node in terminals]),
                                              ThreeWayMemo.empty(terminals.size))
        out = np.empty((terminals.size, NUMBER_OF_CLASSES))
        joint_pot_values(cached.plans, np.ascontiguousarray(reaches[:, :, :NUMBER_OF_CLASSES]), player,
                         self.tables, out, *cached.memo)
        return out
