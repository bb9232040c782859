"""Players who decide by a tournament-equity model: jam or fold first in, call or fold a jam, by the value under
model M of each outcome of the hand.

A player of rule ``DECIDE_CHIPS`` (M = chip EV) or ``DECIDE_ICM`` (M = ICM, by :mod:`pokerlab.icm.local`: the
table's players as members, the rest of the field as its power-sum summary) compares, for his hand class,

- **jam first in**: ``sum_j P(j is the first to call) [e_j V(win against j) + (1 - e_j) V(lose to j)] +
  P(nobody calls) V(take the pot)`` against ``V(fold)``, where ``j`` runs over the players left to act in
  action order, each calling by his own model's call chart at the depth the simulator gives him
  (``P(j first) = c_j prod_{i before j} (1 - c_i)``, ``c_j`` the share of his call range among the hands the
  hero's cards leave: the one-caller action of :data:`pokerlab.simulation.core.CALLERS`), and ``e_j`` the
  hero's all-in equity against that range (the preflop class tables, ties counted half, card removal by the
  hero's hand). Folding leaves the pot to the big blind (who would win it when everyone folds).
- **call a jam**: ``e V(win) + (1 - e) V(lose)`` against ``V(fold)`` (the jammer takes the pot), ``e`` against
  the jammer's range by his jam chart.

``V`` is the player's chips (chip EV) or his ICM equity of the table's stacks after the outcome with the rest
of the field as it is. He jams (calls) when that is worth strictly more than folding. Simplifications, each
the same under every model: a player put all in by the blinds is not counted among the callers, a blind that
covers a short jam calls it with any hand, and a tie is valued as half a win and half a loss.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.icm.local import LocalField, member_equity

DECIDE_CHART = 0  # play the chart's probabilities
DECIDE_CHIPS = 1  # jam/call by chip EV
DECIDE_ICM = 2  # jam/call by ICM (local evaluation)
RULES = {"chart": DECIDE_CHART, "chip-ev": DECIDE_CHIPS, "icm": DECIDE_ICM}


class Aware(NamedTuple):
    """What model-deciding players need besides the charts (one per tournament)."""

    rule: np.ndarray  # int64[C]: per chart, DECIDE_CHART, DECIDE_CHIPS or DECIDE_ICM
    pay: np.ndarray  # float64[n]: money for places 1..n (0 past the paid places)
    win: np.ndarray  # float64[169, 169]: class_win + class_tie / 2 of the preflop tables (summed over B's combos)
    pairs: np.ndarray  # float64[169, 169]: combos of class B one combo of class A leaves
    icm: bool  # some chart decides by ICM: the tournament keeps a local-ICM summary of the field


@njit(cache=True)
def range_call(aware: Aware, hero_class: int, weights: np.ndarray) -> tuple[float, float]:
    """(share of the range ``weights`` (probability per class) among the hands the hero's cards leave, the
    hero's all-in equity against it); equity 0.5 for an empty range."""
    held = 0.0
    total = 0.0
    won = 0.0
    for b in range(weights.size):
        pairs = aware.pairs[hero_class, b]
        total += pairs
        held += pairs * weights[b]
        won += aware.win[hero_class, b] * weights[b]
    if held <= 0.0:
        return 0.0, 0.5
    return held / total, won / held


@njit(cache=True, inline="always")
def _value(rule: int, field: LocalField, members: np.ndarray, row: np.ndarray, payoff: np.ndarray,
           hero: int) -> float:
    if rule == DECIDE_CHIPS:
        chips: float = row[hero]
        return chips
    return member_equity(field, members, row, payoff, hero)


@njit(cache=True, inline="always")
def _pot_and_fold(rule: int, field: LocalField, members: np.ndarray, chips: np.ndarray, contrib: np.ndarray,
                  dead: float, payoff: np.ndarray, row: np.ndarray, taker: int, hero: int) -> tuple[float, float]:
    """The pot (``dead`` plus every seat's blinds) and ``hero``'s model value when ``hero`` folds and ``taker``
    takes it; ``row`` is left holding the stacks behind."""
    pot = dead
    for s in range(members.size):
        pot += contrib[s]
        row[s] = chips[s]
    row[taker] += pot
    fold = _value(rule, field, members, row, payoff, hero)
    row[taker] -= pot
    return pot, fold


@njit(cache=True, inline="always")
def _won_and_lost(rule: int, field: LocalField, members: np.ndarray, chips: np.ndarray, contrib: np.ndarray,
                  pot: float, payoff: np.ndarray, row: np.ndarray, me: int, other: int) -> tuple[float, float]:
    """The model value of ``me`` after winning and after losing an all-in against ``other`` (the rest of ``pot``
    to the winner); ``row`` holds the stacks behind and is left as it was."""
    mine = contrib[me] + chips[me]
    theirs = contrib[other] + chips[other]
    matched = min(mine, theirs)
    rest = pot - contrib[me] - contrib[other]
    row[me] = mine + matched + rest
    row[other] = theirs - matched
    won = _value(rule, field, members, row, payoff, me)
    row[me] = mine - matched
    row[other] = theirs + matched + rest
    lost = _value(rule, field, members, row, payoff, me)
    row[me] = chips[me]
    row[other] = chips[other]
    return won, lost


@njit(cache=True)
def jam_margin(rule: int, aware: Aware, field: LocalField, members: np.ndarray, chips: np.ndarray,
               contrib: np.ndarray, dead: float, order: np.ndarray, k: int, bb: int, hero_class: int,
               ranges: np.ndarray, payoff: np.ndarray, row: np.ndarray) -> float:
    """Model value of jamming minus that of folding for the player at ``order[k]`` (first in), in chips (chip
    EV) or money (ICM). Seats ``0..count-1`` (``count = members.size``): ``members`` the players, ``chips``
    their chips behind after the forced bets, ``contrib`` their blinds; ``dead`` the antes; ``ranges[j]`` seat
    ``j``'s call range against this jam (rows of the players after ``k`` are read); ``payoff`` from
    :func:`pokerlab.icm.local.rest_payoffs` of ``members`` (ICM only); ``row`` scratch of ``count``."""
    count = members.size
    i = order[k]
    pot, fold = _pot_and_fold(rule, field, members, chips, contrib, dead, payoff, row, bb, i)
    reach = 1.0
    jam = 0.0
    for kk in range(k + 1, count):
        j = order[kk]
        if chips[j] <= 0.0:
            continue
        share, equity = range_call(aware, hero_class, ranges[j])
        if share <= 0.0:
            continue
        won, lost = _won_and_lost(rule, field, members, chips, contrib, pot, payoff, row, i, j)
        jam += reach * share * (equity * won + (1.0 - equity) * lost)
        reach *= 1.0 - share
        if reach <= 0.0:
            break
    if reach > 0.0:
        row[i] = chips[i] + pot
        jam += reach * _value(rule, field, members, row, payoff, i)
        row[i] = chips[i]
    return jam - fold


@njit(cache=True)
def call_margin(rule: int, aware: Aware, field: LocalField, members: np.ndarray, chips: np.ndarray,
                contrib: np.ndarray, dead: float, caller: int, jammer: int, hero_class: int, jam_range: np.ndarray,
                payoff: np.ndarray, row: np.ndarray) -> float:
    """Model value of calling the all-in of seat ``jammer`` minus that of folding, for seat ``caller`` (the
    arguments as :func:`jam_margin`'s; ``jam_range`` the jammer's range)."""
    pot, fold = _pot_and_fold(rule, field, members, chips, contrib, dead, payoff, row, jammer, caller)
    _, equity = range_call(aware, hero_class, jam_range)
    won, lost = _won_and_lost(rule, field, members, chips, contrib, pot, payoff, row, caller, jammer)
    return equity * won + (1.0 - equity) * lost - fold
