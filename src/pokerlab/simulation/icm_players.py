"""Players who decide by a tournament-equity model: jam or fold first in, call or fold a jam, by the value under
model M of each outcome of the hand.

A player of rule ``DECIDE_CHIPS`` (M = chip EV), ``DECIDE_ICM`` (M = ICM or power ICM, by
:mod:`pokerlab.icm.local`: the table's players as members, the rest of the field as its power-sum summary),
``DECIDE_HARVILLE``, ``DECIDE_MW`` or ``DECIDE_FGS`` compares, for his hand class,

- **jam first in**: ``sum_j P(j is the first to call) [e_j V(win against j) + (1 - e_j) V(lose to j)] +
  P(nobody calls) V(take the pot)`` against ``V(fold)``, where ``j`` runs over the players left to act in
  action order, each calling by his own model's call chart at the depth the simulator gives him
  (``P(j first) = c_j prod_{i before j} (1 - c_i)``, ``c_j`` the share of his call range among the hands the
  hero's cards leave: the one-caller action of :data:`pokerlab.simulation.core.CALLERS`), and ``e_j`` the
  hero's all-in equity against that range (the preflop class tables, ties counted half, card removal by the
  hero's hand). Folding leaves the pot to the big blind (who would win it when everyone folds).
- **call a jam**: ``e V(win) + (1 - e) V(lose)`` against ``V(fold)`` (the jammer takes the pot), ``e`` against
  the jammer's range by his jam chart.

``V`` is the player's chips (chip EV) or his equity under M of the stacks after the outcome with the rest of
the field as it is: ICM and power ICM (ICM on ``stacks ** alpha``) by local ICM at every field size, from a
summary of the field kept at the decider's power (:class:`Summaries`: one per distinct power among a
tournament's deciders, at most two, so power-ICM deciders sit beside ICM-aware ones); discounted Harville and
Malmuth-Weitzman by their exact recursions over the players left, which bounds their tournaments to
:data:`FINAL_TABLE_PLAYERS` players; FGS of depth ``D``
(:mod:`pokerlab.pushfold.fgs`: the next ``D`` hands played out by heads-up push/fold charts, ICM at the leaves)
from the stacks after the outcome with the button one seat on, as the simulator's next hand has it (the blinds
and antes of the hand being played), in tournaments that sit at one table (FGS plays that table as the whole
tournament), so at most :data:`FINAL_TABLE_PLAYERS` players. He jams (calls) when that is worth strictly more
than folding. Simplifications, each the same under every model: a player put
all in by the blinds is not counted among the callers, a blind that covers a short jam calls it with any hand,
and a tie is valued as half a win and half a loss.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.icm.alternatives import dh_exact, mw_exact
from pokerlab.icm.local import (
    SUBSET_PLAYERS,
    LocalField,
    PairTerms,
    busted_share,
    member_equity,
    members_left,
    outcome_stacks,
    pair_equity,
    pair_terms,
)
from pokerlab.pushfold.fgs import FgsBuffers, FgsScratch, FgsTables, fgs_value, icm_money, next_alive

DECIDE_CHART = 0  # play the chart's probabilities
DECIDE_CHIPS = 1  # jam/call by chip EV
DECIDE_ICM = 2  # jam/call by ICM on stacks ** exponent (local evaluation; exponent 1: ICM, else power ICM)
DECIDE_HARVILLE = 3  # jam/call by discounted Harville (exact, final tables)
DECIDE_MW = 4  # jam/call by Malmuth-Weitzman (exact, final tables)
DECIDE_FGS = 5  # jam/call by FGS of a depth (one-table tournaments)
RULES = {"chart": DECIDE_CHART, "chip-ev": DECIDE_CHIPS, "icm": DECIDE_ICM, "power-icm": DECIDE_ICM,
         "harville": DECIDE_HARVILLE, "malmuth-weitzman": DECIDE_MW, "fgs": DECIDE_FGS}
FINAL_TABLE_PLAYERS = 10
"""The most players a discounted-Harville, Malmuth-Weitzman or FGS decider's tournament may hold: each decision
is the exact recursion over the subsets of the players left (``2^n n`` per outcome; no local evaluation of these
models for big fields is built), or for FGS a tree of future hands at the one table (FGS has no field)."""
MAX_DECIDER_FGS_DEPTH = 2
"""The deepest FGS a decider looks (hands): each outcome of a decision (up to 18 at nine seats) is an FGS tree of
about ``h ** D`` leaves, ``h`` the outcomes of a future hand (117 at nine seats): one decision at nine seats takes
0.5-4 ms at depth 1 and 50-350 ms at depth 2 (docs/algorithms.md), so seconds at depth 3, and a tournament plays
thousands of decisions."""


class Aware(NamedTuple):
    """What model-deciding players need besides the charts (one per tournament)."""

    rule: np.ndarray  # int64[C]: per chart, one of the DECIDE_* rules
    param: np.ndarray  # float64[C]: per chart, the model's exponent (power ICM's alpha, Harville's discount)
    pay: np.ndarray  # float64[n]: money for places 1..n (0 past the paid places)
    win: np.ndarray  # float64[169, 169]: class_win + class_tie / 2 of the preflop tables (summed over B's combos)
    pairs: np.ndarray  # float64[169, 169]: combos of class B one combo of class A leaves
    summaries: int  # local-ICM summaries of the field a tournament keeps: 0 (no chart decides by the field), 1, 2
    exponents: np.ndarray  # float64[MAX_SUMMARIES]: summary s holds stacks ** exponents[s] (unkept slots: 1)
    summary: np.ndarray  # int64[C]: per chart, the summary its decider reads (the one at his power ICM's alpha;
    # at 1 for ICM, Harville, Malmuth-Weitzman and FGS, which read raw chips)


MAX_SUMMARIES = 2
"""The most powers at which one tournament keeps its field (:class:`Summaries`): ICM-aware deciders read power 1,
power-ICM deciders their alpha; each summary is updated for every hand's stacks."""


class Summaries(NamedTuple):
    """A tournament's local-ICM summaries of its field, one per power the deciders read (``Aware.exponents``):
    slot 0 and slot 1 (a placeholder where :attr:`Aware.summaries` is below 2). Kept in step with every hand
    and rebuilt together as the field shrinks."""

    first: LocalField
    second: LocalField


class FgsSpot(NamedTuple):
    """What an FGS decider's values need besides the outcome's stacks: the hand's :class:`FgsTables` (the
    tournament's, :attr:`pokerlab.simulation.core.Tournament.fgs`, with this hand's blinds and antes), the hand's
    button (an index into the table's seats), and working memory (the FGS kernels' buffers for the decider's
    depth at :data:`FINAL_TABLE_PLAYERS` seats, ``stacks`` a row of that many seats, ``pruned`` one float)."""

    tables: FgsTables
    button: int
    buffers: FgsBuffers
    scratch: FgsScratch
    stacks: np.ndarray
    pruned: np.ndarray


@njit(cache=True)
def range_call(win: np.ndarray, pairs: np.ndarray, hero_class: int, weights: np.ndarray) -> tuple[float, float]:
    """(share of the range ``weights`` (probability per class) among the hands the hero's cards leave, the
    hero's all-in equity against it); equity 0.5 for an empty range. ``win`` and ``pairs``: :class:`Aware`'s
    (taken out of the bundle by the caller: a call that passes a bundle counts a reference to each of its
    arrays, and this runs once per caller of each decision)."""
    held = 0.0
    total = 0.0
    won = 0.0
    for b in range(weights.size):
        combos = pairs[hero_class, b]
        total += combos
        held += combos * weights[b]
        won += win[hero_class, b] * weights[b]
    if held <= 0.0:
        return 0.0, 0.5
    return held / total, won / held


@njit(cache=True)
def final_table_equity(rule: int, param: float, field: LocalField, members: np.ndarray, row: np.ndarray,
                       hero: int) -> float:
    """The discounted-Harville (``param`` its discount) or Malmuth-Weitzman equity of ``members[hero]`` when the
    members' stacks become ``row`` and every other stack is as in ``field`` (raw chips), exact over the players
    left; members knocked out share their places' money."""
    left, busted = members_left(field, members, row)
    if row[hero] <= 0:
        return busted_share(field.pay, left + busted, max(busted, 1))
    stacks = outcome_stacks(field, members, row, hero, left)
    stacks /= stacks.max()
    pay = field.pay[:left]
    if rule == DECIDE_MW:
        equity: float = mw_exact(stacks, pay)[0]
        return equity
    per_place = np.full(left, param)
    per_place[0] = 1.0
    places = 0
    for k in range(left):
        if pay[k] > 0.0:
            places = k + 1
    if places == 0:
        return 0.0
    harville: float = dh_exact(stacks, pay, per_place, places)[0]
    return harville


@njit(cache=True)
def fgs_outcome_equity(depth: int, field: LocalField, members: np.ndarray, row: np.ndarray, hero: int,
                       spot: FgsSpot) -> float:
    """The FGS money of ``members[hero]`` (``depth`` hands played out, :func:`pokerlab.pushfold.fgs.fgs_value`)
    when the members' stacks become ``row`` (chips, the table's seats in order; 0: out), the next hand's button
    the first seat after ``spot.button`` with chips. ``members`` are the whole tournament (FGS has no field);
    members knocked out share their places' money. An outcome whose future hands hold more showdown orders than
    the FGS kernels enumerate (several stacks all in by their forced bets at once) is valued by ICM where it
    stands, as FGS values a pruned branch."""
    left, busted = members_left(field, members, row)
    if row[hero] <= 0:
        return busted_share(field.pay, left + busted, max(busted, 1))
    stacks = spot.stacks
    for s in range(stacks.size):
        stacks[s] = row[s] if s < row.size else 0.0
    button = next_alive(stacks, spot.button)
    try:
        money = fgs_value(stacks, button, depth, 1.0, spot.tables, spot.pruned, spot.buffers, spot.scratch)
    except Exception:  # noqa: BLE001 (the kernels' one error: an outcome buffer overrun, said in the docstring)
        money = icm_money(stacks, spot.tables.payouts)
    equity: float = money[hero]
    return equity


@njit(cache=True)
def decision_terms(rule: int, param: float, field: LocalField, members: np.ndarray, chips: np.ndarray,
                   payoff: np.ndarray, hero: int) -> PairTerms:
    """The :class:`pokerlab.icm.local.PairTerms` of ``members[hero]``'s decision from ``chips`` (the table's
    chips behind, at the model's power) for an ICM or power-ICM decider where local ICM integrates; empty
    terms (each outcome by :func:`pokerlab.icm.local.member_equity`) otherwise."""
    if rule != DECIDE_ICM or field.nodes.size == 0 or field.alive[0] <= SUBSET_PLAYERS:
        empty = np.empty((0, 0))
        return PairTerms(empty, empty, np.empty(0), np.empty(0), empty, np.zeros(1, dtype=np.int64),
                         np.empty(0, dtype=np.int64))
    row = chips if param == 1.0 else chips**param
    return pair_terms(field, members, row, payoff, hero, 4 * members.size + 4)


@njit(cache=True)
def _value(rule: int, param: float, field: LocalField, members: np.ndarray, row: np.ndarray,
           payoff: np.ndarray, hero: int, terms: PairTerms, other: int, spot: FgsSpot | None) -> float:
    """``members[hero]``'s value by ``rule`` when the members' stacks become ``row`` (chips), ``row`` differing
    from the decision's chips in the hero's stack and ``members[other]``'s only (``other = -1``: the hero's);
    ``spot``: an FGS decider's (None for the other rules)."""
    if rule == DECIDE_CHIPS:
        chips: float = row[hero]
        return chips
    if spot is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes the branch for None)
        if rule == DECIDE_FGS:
            return fgs_outcome_equity(int(param), field, members, row, hero, spot)
    if rule == DECIDE_ICM:
        powered = row if param == 1.0 else row**param  # the summary holds stacks ** param
        if terms.whole.size:
            return pair_equity(field, members, powered, terms, hero, other)
        return member_equity(field, members, powered, payoff, hero)
    return final_table_equity(rule, param, field, members, row, hero)


@njit(cache=True, inline="always")
def _pot_and_fold(rule: int, param: float, field: LocalField, members: np.ndarray, chips: np.ndarray,
                  contrib: np.ndarray, dead: float, payoff: np.ndarray, row: np.ndarray, taker: int,
                  hero: int, terms: PairTerms, spot: FgsSpot | None) -> tuple[float, float]:
    """The pot (``dead`` plus every seat's blinds) and ``hero``'s model value when ``hero`` folds and ``taker``
    takes it; ``row`` is left holding the stacks behind."""
    pot = dead
    for s in range(members.size):
        pot += contrib[s]
        row[s] = chips[s]
    row[taker] += pot
    fold = _value(rule, param, field, members, row, payoff, hero, terms, taker, spot)
    row[taker] -= pot
    return pot, fold


@njit(cache=True, inline="always")
def _won_and_lost(rule: int, param: float, field: LocalField, members: np.ndarray, chips: np.ndarray,
                  contrib: np.ndarray, pot: float, payoff: np.ndarray, row: np.ndarray, me: int,
                  other: int, terms: PairTerms, spot: FgsSpot | None) -> tuple[float, float]:
    """The model value of ``me`` after winning and after losing an all-in against ``other`` (the rest of ``pot``
    to the winner); ``row`` holds the stacks behind and is left as it was."""
    mine = contrib[me] + chips[me]
    theirs = contrib[other] + chips[other]
    matched = min(mine, theirs)
    rest = pot - contrib[me] - contrib[other]
    row[me] = mine + matched + rest
    row[other] = theirs - matched
    won = _value(rule, param, field, members, row, payoff, me, terms, other, spot)
    row[me] = mine - matched
    row[other] = theirs + matched + rest
    lost = _value(rule, param, field, members, row, payoff, me, terms, other, spot)
    row[me] = chips[me]
    row[other] = chips[other]
    return won, lost


@njit(cache=True)
def jam_margin(rule: int, param: float, aware: Aware, field: LocalField, members: np.ndarray, chips: np.ndarray,
               contrib: np.ndarray, dead: float, order: np.ndarray, k: int, bb: int, hero_class: int,
               ranges: np.ndarray, payoff: np.ndarray, row: np.ndarray, spot: FgsSpot | None = None) -> float:
    """Model value of jamming minus that of folding for the player at ``order[k]`` (first in), in chips (chip
    EV) or money (the other models; ``param`` the model's exponent, ``aware.param`` of his chart). Seats
    ``0..count-1`` (``count = members.size``): ``members`` the players, ``chips`` their chips behind after the
    forced bets, ``contrib`` their blinds; ``dead`` the antes; ``ranges[j]`` seat ``j``'s call range against this
    jam (rows of the players after ``k`` are read); ``payoff`` from :func:`pokerlab.icm.local.rest_payoffs` of
    ``members`` (ICM only); ``row`` scratch of ``count``; ``spot`` the hand's :class:`FgsSpot` (FGS only: the
    other rules leave it None)."""
    count = members.size
    i = order[k]
    terms = decision_terms(rule, param, field, members, chips, payoff, i)
    pot, fold = _pot_and_fold(rule, param, field, members, chips, contrib, dead, payoff, row, bb, i, terms, spot)
    reach = 1.0
    jam = 0.0
    win, pairs = aware.win, aware.pairs
    for kk in range(k + 1, count):
        j = order[kk]
        if chips[j] <= 0.0:
            continue
        share, equity = range_call(win, pairs, hero_class, ranges[j])
        if share <= 0.0:
            continue
        won, lost = _won_and_lost(rule, param, field, members, chips, contrib, pot, payoff, row, i, j, terms, spot)
        jam += reach * share * (equity * won + (1.0 - equity) * lost)
        reach *= 1.0 - share
        if reach <= 0.0:
            break
    if reach > 0.0:
        row[i] = chips[i] + pot
        jam += reach * _value(rule, param, field, members, row, payoff, i, terms, -1, spot)
        row[i] = chips[i]
    return jam - fold


@njit(cache=True)
def call_margin(rule: int, param: float, aware: Aware, field: LocalField, members: np.ndarray, chips: np.ndarray,
                contrib: np.ndarray, dead: float, caller: int, jammer: int, hero_class: int, jam_range: np.ndarray,
                payoff: np.ndarray, row: np.ndarray, spot: FgsSpot | None = None) -> float:
    """Model value of calling the all-in of seat ``jammer`` minus that of folding, for seat ``caller`` (the
    arguments as :func:`jam_margin`'s; ``jam_range`` the jammer's range)."""
    terms = decision_terms(rule, param, field, members, chips, payoff, caller)
    pot, fold = _pot_and_fold(rule, param, field, members, chips, contrib, dead, payoff, row, jammer, caller,
                              terms, spot)
    _, equity = range_call(aware.win, aware.pairs, hero_class, jam_range)
    won, lost = _won_and_lost(rule, param, field, members, chips, contrib, pot, payoff, row, caller, jammer,
                              terms, spot)
    return equity * won + (1.0 - equity) * lost - fold
