"""The chart model (:mod:`pokerlab.games.pushfold.joint`) with payoffs that are not linear in chips (ICM).

Under ICM a seat out of a two-way pot is worth a different amount when the pot is split (one more player
survives) than when it is won, and, with unequal stacks in the pot, by who wins it. :class:`IcmJointPotGame`
values that seat exactly: its payoff is the mean over the pot's joint two-hand distribution (the exact class
tables, the same distribution the two seats in the pot are valued on) of its payoff in each outcome, the first
seat winning, the second, or a split, times the reach of the seats that folded (independent of the pot, as in
the chart model)::

    value = folded * (u_first * P(first wins) + u_second * P(second wins) + u_split * P(split))

Every other term is :class:`~pokerlab.games.pushfold.joint.JointPotGame`'s, whose terms already take a payoff
per outcome: the seats in a two-way pot (win, lose, split), a lone winner. A pot of three or more seats has one
row per winner (ties broken by a random seat priority, as :class:`~pokerlab.games.pushfold.game.PushFoldGame`
and its sampled valuation break them: exact in expectation for chip EV, for ICM the model's valuation of a
split 3+ way pot); the chart model needs a seat's payoff there to be the same whichever other seat wins (true
with equal stacks in the pot, the full-ring charts' case), and the new game refuses a table where it is not.

The seats' values at every terminal are means over one joint distribution of the pot's hands, so they sum to the
pool times the terminal's reach (tested to 1e-9), and CFR's guarantees and the exact best responses hold in this
model. With payoffs linear in chips (chip EV) no seat's payoff depends on a pot it is out of, nothing is
overwritten, and the values are :class:`JointPotGame`'s bit for bit (tested).

>>> from pokerlab.games.pushfold import Table
>>> from pokerlab.games.pushfold.pot_tables import build_pot_tables
>>> pots = build_pot_tables(triple_deals=1000, bank_deals=16, seed=1)
>>> def split_pays(final):  # a seat out of the pot gets 1 when three seats are left, else 0
...     return np.full(3, float((final > 0).sum() == 3))
>>> game = IcmJointPotGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), split_pays, pots=pots)
>>> game.spec()["valuation"], int(game.spectators([(-1, 1, 1)]).watched.sum())  # BTN folds, SB jams, BB calls
('joint-pots-icm', 1)
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.errors import InvalidGameError
from pokerlab.games.pushfold.game import State
from pokerlab.games.pushfold.joint import JointPlans, JointPotGame, JointTables, ThreeWayMemo, joint_pot_values
from pokerlab.games.pushfold.kernels import DISJOINT_COMBOS
from pokerlab.games.pushfold.rules import Terminal

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.games.vector import CompiledPublicTree


class SpectatorPlans(NamedTuple):
    """Per terminal ``t`` of a list and seat ``i``: ``watched[t, i]`` whether ``i`` is out of a two-way pot whose
    outcome changes its payoff, and then ``payoff[t, i]`` its payoff when the pot's first seat wins, the second
    wins, or they split (the rows of the terminal's utilities)."""

    watched: np.ndarray
    payoff: np.ndarray


@njit(cache=True, parallel=True)
def spectator_values(plans: JointPlans, spectators: SpectatorPlans, reaches: np.ndarray, player: int,
                     tables: JointTables, out: np.ndarray) -> None:
    """``out[t, :]`` for every terminal where ``player`` watches a two-way pot (``spectators.watched``): the
    reach of the seats that folded times the mean of its payoff over the pot's joint deal (the exact class tables;
    constant over its own classes, as every term of a seat out of the pot in the chart model); the other rows are
    left as they are."""
    terminals, seats, _ = reaches.shape
    w = tables.weights
    for t in prange(terminals):
        if not spectators.watched[t, player]:
            continue
        first_seat, second_seat = plans.inside[t, 0], plans.inside[t, 1]
        folded = 1.0
        for q in range(seats):
            if q != player and q != first_seat and q != second_seat:
                folded *= reaches[t, q].sum()
        x_first = reaches[t, first_seat] / w
        x_second = reaches[t, second_seat] / w
        total = 0.0
        first = 0.0
        split = 0.0
        for a in range(NUMBER_OF_CLASSES):
            if x_first[a] <= 0.0:
                continue
            weight = w[a] * x_first[a]
            pairs = 0.0
            won = 0.0
            tied = 0.0
            for b in range(NUMBER_OF_CLASSES):
                pairs += tables.pairs[a, b] * x_second[b]
                won += tables.win[a, b] * x_second[b]
                tied += tables.tie[a, b] * x_second[b]
            total += weight * pairs
            first += weight * won
            split += weight * tied
        u = spectators.payoff[t, player]
        value = folded * (u[0] * first + u[1] * (total - first - split) + u[2] * split) / DISJOINT_COMBOS
        for h in range(NUMBER_OF_CLASSES):
            out[t, h] = value


def _same(values: np.ndarray) -> bool:
    """Whether every entry of ``values`` equals the first (to 1e-9 relative)."""
    return bool(np.allclose(values, values[0], rtol=0, atol=1e-9 * max(1.0, abs(float(values[0])))))


@dataclass
class _TreeSpectators:
    tree: CompiledPublicTree
    terminals: np.ndarray
    spectators: SpectatorPlans


class IcmJointPotGame(JointPotGame):
    """Push/fold in the chart model with any payoff of the final stacks (see the module docstring): the seats out
    of a two-way pot valued per outcome. Raises :class:`~pokerlab.errors.InvalidGameError` for a table the chart
    model does not take (a side pot) or where a seat's payoff in or beside a 3+ way pot depends on which other
    seat wins it (unequal stacks in such a pot)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spectators: _TreeSpectators | None = None

    def spec(self) -> dict[str, Any]:
        return super().spec() | {"valuation": "joint-pots-icm"}

    def _chart_terminal(self, terminal: Terminal) -> Terminal:
        """``terminal`` with the payoffs :class:`JointPotGame`'s plans read: a seat out of a two-way pot given its
        payoff when the first seat wins (its other outcomes are :meth:`spectators`'); checked that no payoff
        depends on which other seat wins a 3+ way pot."""
        u = terminal.utilities
        m = len(terminal.participants)
        if m < 2:
            return terminal
        if m > 2:
            for i in range(self.table.seats):
                rows = [k for k in range(m) if int(terminal.keys[k]) % self.table.seats != i]
                if not _same(u[rows, i]):
                    raise InvalidGameError(
                        "the ICM chart model needs a seat's payoff to be the same whichever other seat wins a 3+ "
                        "way pot (equal stacks in the pot): solve this table with pokerlab.pushfold.pushfold")
            return terminal
        shown = u.copy()
        for i in range(self.table.seats):
            if i not in terminal.participants:
                shown[:, i] = u[0, i]
        return dataclasses.replace(terminal, utilities=shown)

    def plans(self, states: Sequence[State]) -> JointPlans:
        """:class:`JointPotGame`'s plans of these terminals, a seat out of a two-way pot given its payoff when
        the first seat wins (replaced by :func:`spectator_values` where the outcome matters)."""
        shown = copy.copy(self)
        shown.terminals = {state: self._chart_terminal(self.terminals[state]) for state in states}
        return JointPotGame.plans(shown, states)

    def spectators(self, states: Sequence[State]) -> SpectatorPlans:
        """The seats out of a two-way pot whose payoff depends on its outcome (see :class:`SpectatorPlans`)."""
        n = self.table.seats
        watched = np.zeros((len(states), n), dtype=np.bool_)
        payoff = np.zeros((len(states), n, 3))
        for t, state in enumerate(states):
            terminal = self.terminals[state]
            if len(terminal.participants) != 2:
                continue
            for i in range(n):
                if i not in terminal.participants and not _same(terminal.utilities[:, i]):
                    watched[t, i] = True
                    payoff[t, i] = terminal.utilities[:3, i]
        return SpectatorPlans(watched, payoff)

    def evaluate(self, state: State, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual value of each class of ``player`` at one terminal (this model's)."""
        out = np.empty((1, NUMBER_OF_CLASSES))
        stacked = np.stack([np.asarray(r, dtype=np.float64) for r in reaches])[None]
        plans = self.plans([state])
        joint_pot_values(plans, stacked, player, self.tables, out, *ThreeWayMemo.empty(1))
        spectator_values(plans, self.spectators([state]), stacked, player, self.tables, out)
        values: np.ndarray = out[0]
        return values

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at every terminal: :class:`JointPotGame`'s compiled call, then the watched two-way
        pots' spectators."""
        out = super().evaluate_terminals(tree, terminals, player, reaches)
        cached = self._spectators
        if cached is None or cached.tree is not tree or not np.array_equal(cached.terminals, terminals):
            cached = self._spectators = _TreeSpectators(
                tree, terminals.copy(), self.spectators([tree.states[int(node)] for node in terminals]))
        if cached.spectators.watched[:, player].any():
            assert self._plans is not None
            spectator_values(self._plans.plans, cached.spectators,
                             np.ascontiguousarray(reaches[:, :, :NUMBER_OF_CLASSES]), player, self.tables, out)
        return out
