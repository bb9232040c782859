"""Compiled tournament kernels: one hand at a table, one whole multi-table tournament, a chunk of tournaments.

Everything here trusts its input (the façade in :mod:`pokerlab.simulation.core` validates it). Chips are int64
and conserved exactly. Randomness is the project's counter-based splitmix64 (:mod:`pokerlab.stats.rng`): a
tournament's stream starts at :func:`tournament_start` of the batch seed and the tournament's index, so the same
seed gives the same tournament whichever worker plays it.

A table is a row of ``seats`` (player ids in seat order, ``counts[t]`` of them) with a ``button`` index into
that row. After every round (each table with two or more players plays one hand) busted players are removed,
then tables are broken and balanced (:func:`_rebalance`) as real tournaments do.

Push/fold hands (play ``PLAY_CHARTS``) follow the table rules of :mod:`pokerlab.games.pushfold.rules`, the ones
the push/fold solver's game follows (forced bets, side pots, refunds, the split of a pot): in action order (UTG
first, the big blind last; heads-up the button is the small blind and acts first) the first player whose jam
chart says so moves all in; after a jam each later player calls all in by his call chart, up to
``field.callers`` callers (the play model's option: one caller, the usual push/fold simplification, for charts
that hold only calls of a lone jam), after which everyone else folds. A player put all in by the antes or blinds,
or a blind that already covers a short jam, is in the hand without acting. A player first in decides by his
effective stack against the deepest player still to act; a caller by his against the jammer's. Cards are dealt
lazily from a deck kept as a permutation (a partial Fisher-Yates per card) and showdowns go through the
evaluator kernels. Hand classes are :mod:`pokerlab.cards.classes`' indices.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.cards.classes import class_of_cards as _class_of_cards_python
from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.tables import EvalTables
from pokerlab.games.pushfold.rules import post_forced_bets, settle
from pokerlab.icm.local import LocalField, build_field, rest_payoffs, update_stack
from pokerlab.pushfold.fgs import FgsTables, fgs_buffers, fgs_scratch
from pokerlab.simulation.icm_players import (
    DECIDE_CHART,
    DECIDE_FGS,
    DECIDE_ICM,
    FINAL_TABLE_PLAYERS,
    Aware,
    FgsSpot,
    Summaries,
    call_margin,
    jam_margin,
)
from pokerlab.simulation.ring import (
    RingCharts,
    position,
    ring_call_probability,
    ring_call_row,
    ring_jam_row,
    ring_probability,
    ring_rule,
    ring_spot,
)
from pokerlab.stats.rng import keyed_start, next_u64, substream_start

PLAY_COINFLIP = 0
PLAY_CHARTS = 1
CLASSES = NUMBER_OF_CLASSES
class_of_cards = njit(cache=True, inline="always")(_class_of_cards_python)  # the one definition, compiled here
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0


class Field(NamedTuple):
    """The players and the rules of one tournament (shared by every tournament of a batch)."""

    stacks: np.ndarray  # int64[n]: starting chips per player
    model: np.ndarray  # int64[n]: chart index per player (push/fold play)
    table_size: int  # seats per table, 2..10
    play: int  # PLAY_COINFLIP or PLAY_CHARTS
    bet: int  # coin flip stake: 0 = all in (the smaller stack), else a fixed number of chips
    callers: int  # the most players who call a jam (the play model's option: 1 for lone-jam charts)


class Schedule(NamedTuple):
    """Blind levels by hands played at a table; the last level lasts forever."""

    small_blind: np.ndarray  # int64[L]
    big_blind: np.ndarray  # int64[L]
    ante: np.ndarray  # int64[L]: per player, or the big blind's single ante when big_blind_ante
    hands: np.ndarray  # int64[L]: hands (rounds) at each level
    big_blind_ante: bool


class Charts(NamedTuple):
    """Push/fold charts: probability to jam first in / to call a jam, per chart, stack bucket and hand class.

    Bucket ``b`` holds effective stacks in ``(b, b + 1]`` big blinds (the last bucket everything deeper)."""

    jam: np.ndarray  # float64[C, B, 169]
    call: np.ndarray  # float64[C, B, 169]


class Snapshots(NamedTuple):
    """When to record stacks: the first time the players left drop to ``players_left[s]`` or fewer, or where
    ``before[s]``, the start of that round (the last round start with more than ``players_left[s]`` left: a
    round plays a hand at every table, so several players may go in it; one started at or below the count is
    recorded at its first round's start)."""

    players_left: np.ndarray  # int64[S]
    before: np.ndarray  # bool[S]


@njit(cache=True)
def tournament_start(seed: int, index: int) -> np.uint64:
    """The splitmix64 counter that starts tournament ``index`` of a batch seeded ``seed``."""
    return substream_start(keyed_start(np.uint64(seed), np.uint64(0x5EED5EED5EED5EED)), index)


@njit(cache=True, inline="always")
def _below(state: np.ndarray, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` from 53 random bits (bias below 2^-40 for any table-sized bound)."""
    return int(float(next_u64(state) >> np.uint64(11)) * _TWO_TO_MINUS_53 * bound)


@njit(cache=True, inline="always")
def _unit(state: np.ndarray) -> float:
    return float(next_u64(state) >> np.uint64(11)) * _TWO_TO_MINUS_53


@njit(cache=True, inline="always")
def _deal(deck: np.ndarray, dealt: int, state: np.ndarray) -> int:
    """Draw the card at position ``dealt`` of a partial Fisher-Yates shuffle of ``deck`` (any permutation)."""
    j = dealt + _below(state, 52 - dealt)
    card = deck[j]
    deck[j] = deck[dealt]
    deck[dealt] = card
    dealt_card: int = card
    return dealt_card


@njit(cache=True, inline="always")
def _bucket(effective: int, big_blind: int, buckets: int) -> int:
    b = (effective + big_blind - 1) // big_blind - 1
    if b < 0:
        return 0
    if b >= buckets:
        return buckets - 1
    return b


class HandScratch(NamedTuple):
    """Work arrays of one table hand, allocated once per tournament."""

    deck: np.ndarray  # int64[52]: a permutation of the cards
    hole: np.ndarray  # int64[10, 2]
    has_cards: np.ndarray  # bool[10]
    contrib: np.ndarray  # int64[10]: live chips put in (blinds, jam, call), antes excluded (dead money)
    posted_dead: np.ndarray  # int64[10]: antes posted (dead money)
    chips: np.ndarray  # int64[10]: chips behind, by seat, while the hand is settled
    pot_chips: np.ndarray  # int64[10]: the side pots' chips (scratch of the settlement)
    pot_seats: np.ndarray  # int64[10]: the side pots' eligible seats (bitmasks)
    refunds: np.ndarray  # int64[10]: chips nobody in the hand matched, back to their owners
    folded: np.ndarray  # bool[10]
    value: np.ndarray  # int64[10]: showdown hand values
    order: np.ndarray  # int64[10]: seats in action order
    start: np.ndarray  # int64[10]: chips at the start of the hand
    behind: np.ndarray  # int64[10]: deepest stack acting after each position in the action order
    board: np.ndarray  # int64[5]
    state: np.ndarray  # uint64[1]: the random stream
    ranges: np.ndarray  # float64[10, 169]: the ranges a model-deciding player puts the others on
    chips_now: np.ndarray  # float64[10]: chips behind (model-deciding players)
    blinds: np.ndarray  # float64[10]: live chips in (model-deciding players)
    row: np.ndarray  # float64[10]: an outcome's stacks (model-deciding players)
    range_row: np.ndarray  # float64[169]: a full-ring opponent's range (model-deciding players)


@njit(cache=True)
def _scratch(counter: np.uint64) -> HandScratch:
    state = np.empty(1, dtype=np.uint64)
    state[0] = counter
    return HandScratch(
        np.arange(52, dtype=np.int64), np.zeros((10, 2), dtype=np.int64), np.zeros(10, dtype=np.bool_),
        np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64),
        np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64),
        np.zeros(10, dtype=np.bool_), np.zeros(10, dtype=np.int64),
        np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64),
        np.zeros(5, dtype=np.int64), state, np.zeros((10, CLASSES)), np.zeros(10), np.zeros(10), np.zeros(10),
        np.zeros(CLASSES),
    )


@njit(cache=True)
def coinflip_hand(seats: np.ndarray, count: int, stack: np.ndarray, bet: int, state: np.ndarray) -> None:
    """A random pair of the ``count`` players in ``seats`` flips a fair coin for ``bet`` chips (0 = all in:
    the smaller stack)."""
    i = _below(state, count)
    j = _below(state, count - 1)
    if j >= i:
        j += 1
    a = seats[i]
    b = seats[j]
    stake = min(stack[a], stack[b])
    if bet > 0:
        stake = min(stake, bet)
    if next_u64(state) & np.uint64(1):
        stack[a] += stake
        stack[b] -= stake
    else:
        stack[a] -= stake
        stack[b] += stake


@njit(cache=True, inline="always")
def _hole_cards(i: int, hole: np.ndarray, has_cards: np.ndarray, deck: np.ndarray, dealt: int,
                state: np.ndarray, given: np.ndarray | None) -> int:
    """Deal seat ``i`` his two cards unless he has them (``given[2i], given[2i + 1]`` when a dealt hand is
    replayed, else None: a branch the compiler removes); returns the number of cards dealt from the deck."""
    if has_cards[i]:
        return dealt
    if given is not None:
        hole[i, 0] = given[2 * i]
        hole[i, 1] = given[2 * i + 1]
    else:
        hole[i, 0] = _deal(deck, dealt, state)
        hole[i, 1] = _deal(deck, dealt + 1, state)
    has_cards[i] = True
    return dealt + 2


@njit(cache=True, inline="always")
def opponent_range(charts: Charts, ring: RingCharts | None, ring_rule_index: int, jams: bool, chart: int,
                   effective: int, big_blind: int, seats: int, at: int, against: int, out: np.ndarray) -> np.ndarray:
    """The range (probability per hand class) a model-deciding player puts an opponent of ``chart`` on: his jam
    range (``jams``) or call range at an effective stack of ``effective`` chips. The one place the deciders
    read the opponents' play: the field's charts, or for a full-ring player the chart of his position ``at``
    at a table of ``seats`` (calling the jam of position ``against``), written into ``out``."""
    if ring is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes the branch for None)
        if ring.plays[chart]:
            if jams:
                return ring_jam_row(ring, chart, ring_rule_index, seats, effective, big_blind, at, out)
            return ring_call_row(ring, chart, ring_rule_index, seats, effective, big_blind, at, against, out)
    table = charts.jam if jams else charts.call
    row: np.ndarray = table[chart, _bucket(effective, big_blind, table.shape[1])]
    return row


@njit(cache=True)
def _model_jams(rule: int, aware: Aware, field: LocalField, seats: np.ndarray, count: int, stack: np.ndarray,
                model: np.ndarray, big_blind: int, charts: Charts, ring: RingCharts | None, ring_rule_index: int,
                sb: int, work: HandScratch, payoff: np.ndarray, dead: float, k: int, bb: int, hero_class: int,
                spot: FgsSpot | None = None) -> float:
    """:func:`pokerlab.simulation.icm_players.jam_margin` for the player at ``work.order[k]`` of a hand in
    progress (the others put on their call charts at the depths :func:`chart_hand` gives them; ``spot``: an FGS
    decider's :func:`_fgs_spot`, None for the other rules, whose compiled code then holds nothing of FGS)."""
    order = work.order
    contrib = work.contrib
    start = work.start
    i = order[k]
    for kk in range(k + 1, count):
        j = order[kk]
        if contrib[j] >= contrib[i] + stack[seats[i]]:
            work.ranges[j, :] = 1.0  # a blind covering the jam is in with any hand
        else:
            work.ranges[j, :] = opponent_range(charts, ring, ring_rule_index, False, model[seats[j]],
                                               min(start[j], start[i]), big_blind, count, position(j, sb, count),
                                               position(i, sb, count), work.range_row)
    for s in range(count):
        work.chips_now[s] = stack[seats[s]]
        work.blinds[s] = contrib[s]
    margin: float = jam_margin(rule, aware.param[model[seats[i]]], aware, field, seats[:count],
                               work.chips_now[:count], work.blinds[:count], dead, order[:count], k, bb, hero_class,
                               work.ranges, payoff, work.row[:count], spot)
    return margin


@njit(cache=True)
def _model_calls(rule: int, aware: Aware, field: LocalField, seats: np.ndarray, count: int, stack: np.ndarray,
                 model: np.ndarray, big_blind: int, charts: Charts, ring: RingCharts | None, ring_rule_index: int,
                 sb: int, work: HandScratch, payoff: np.ndarray, dead: float, caller: int, jammer: int, jammer_k: int,
                 hero_class: int, spot: FgsSpot | None = None) -> float:
    """:func:`pokerlab.simulation.icm_players.call_margin` for seat ``caller`` facing the all-in of seat
    ``jammer`` (acting ``jammer_k``-th), the jammer put on his jam chart (``spot`` as :func:`_model_jams`')."""
    for s in range(count):
        work.chips_now[s] = stack[seats[s]]
        work.blinds[s] = work.contrib[s]
    jam_range = opponent_range(charts, ring, ring_rule_index, True, model[seats[jammer]],
                               min(work.start[jammer], work.behind[jammer_k]), big_blind, count,
                               position(jammer, sb, count), 0, work.range_row)
    margin: float = call_margin(rule, aware.param[model[seats[caller]]], aware, field, seats[:count],
                                work.chips_now[:count], work.blinds[:count], dead, caller, jammer, hero_class,
                                jam_range, payoff, work.row[:count], spot)
    return margin


@njit(cache=True)
def _fgs_spot(tables: FgsTables, button: int, small_blind: int, big_blind: int, ante: int, big_blind_ante: bool,
              depth: int) -> FgsSpot:
    """The :class:`~pokerlab.simulation.icm_players.FgsSpot` of an FGS decision: the tournament's FGS tables (built
    when it was prepared) with the hand's blinds and antes (the ante per seat, or the big blind's), its button,
    and working memory for ``depth`` hands (allocated here, a few microseconds beside the decision's 0.1-4 ms:
    kept out of the hand's scratch, which every other player's hands pass around)."""
    return FgsSpot(FgsTables(tables.jam_share, tables.call_share, tables.win, tables.tie, tables.payouts,
                             float(small_blind), float(big_blind), 0.0 if big_blind_ante else float(ante),
                             float(ante) if big_blind_ante else 0.0, tables.prune),
                   button, fgs_buffers(max(depth, 1), FINAL_TABLE_PLAYERS), fgs_scratch(FINAL_TABLE_PLAYERS),
                   np.zeros(FINAL_TABLE_PLAYERS), np.zeros(1))


@njit(cache=True, inline="always")
def _update_summaries(aware: Aware, field: Summaries, seats: np.ndarray, count: int, stack: np.ndarray) -> None:
    """The stacks of the ``count`` players in ``seats`` into each kept summary, at its power."""
    for k in range(count):
        chips = float(stack[seats[k]])
        update_stack(field.first, seats[k], chips ** aware.exponents[0])
        if aware.summaries > 1:
            update_stack(field.second, seats[k], chips ** aware.exponents[1])


@njit(cache=True)
def no_summaries() -> Summaries:
    """Placeholder summaries (a tournament that keeps none, or one not started yet: its start builds them)."""
    return Summaries(build_field(np.ones(2), np.zeros(2)), build_field(np.ones(2), np.zeros(2)))


@njit(cache=True)
def build_summaries(stack: np.ndarray, aware: Aware) -> Summaries:
    """The local-ICM summaries of a field of chips ``stack`` that ``aware``'s deciders read (the first
    ``aware.summaries`` slots; placeholders after)."""
    placeholders = no_summaries()
    first, second = placeholders.first, placeholders.second
    chips = stack.astype(np.float64)
    if aware.summaries > 0:
        first = build_field(chips ** aware.exponents[0], aware.pay)
    if aware.summaries > 1:
        second = build_field(chips ** aware.exponents[1], aware.pay)
    return Summaries(first, second)


@njit(cache=True, inline="always")
def chart_hand(
    seats: np.ndarray, count: int, button: int, stack: np.ndarray, model: np.ndarray, small_blind: int,
    big_blind: int, ante: int, big_blind_ante: bool, callers: int, charts: Charts, tables: EvalTables,
    work: HandScratch, given: np.ndarray | None = None, aware: Aware | None = None, field: Summaries | None = None,
    ring: RingCharts | None = None, fgs: FgsTables | None = None,
) -> None:
    """One push/fold hand at a table of ``count`` players (see the module docs); chips move in ``stack``.
    ``given``: the cards of a replayed hand (see :func:`replay_hand`), else None (dealt from the stream).
    ``aware``/``field``: players whose chart's rule is not ``DECIDE_CHART`` decide by a model
    (:mod:`pokerlab.simulation.icm_players`); ``field`` holds the local-ICM summaries of the whole tournament,
    kept in step with ``stack ** aware.exponents[s]`` here (the first ``aware.summaries`` of them; None: every
    player plays his chart), each decider reading the one of his chart's ``aware.summary``. ``fgs``: the
    tournament's FGS tables when some player decides by FGS (None: nobody does, and the compiled hand holds
    nothing of FGS)."""
    state = work.state
    contrib = work.contrib
    folded = work.folded
    has_cards = work.has_cards
    hole = work.hole
    deck = work.deck
    order = work.order
    buckets = charts.jam.shape[1]
    start = work.start
    posted_dead = work.posted_dead
    value = work.value
    for k in range(count):
        folded[k] = False
        has_cards[k] = False
        start[k] = stack[seats[k]]
    if count == 2:
        sb = button
        bb = 1 - button
    else:
        sb = (button + 1) % count
        bb = (button + 2) % count
    ring_rule_index = -1
    if ring is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes the branch for None)
        ring_rule_index = ring_rule(ring, count, ante, big_blind, big_blind_ante)
    post_forced_bets(start, count, sb, bb, small_blind, big_blind, 0 if big_blind_ante else ante,
                     ante if big_blind_ante else 0, posted_dead, contrib)
    dead = 0
    for k in range(count):
        stack[seats[k]] -= posted_dead[k] + contrib[k]
        dead += posted_dead[k]
    payoff = np.empty((0, 0))
    payoff_second = payoff
    if aware is not None:  # noqa: SIM102 (numba prunes a None argument's branch on a lone `is not None` test only)
        if field is not None and aware.summaries > 0:
            _update_summaries(aware, field, seats, count, stack)
            local = False  # an ICM decider reading summary 0 (1) sits here: the rest of the field's payoffs in
            local_second = False  # that summary (else nobody reads them)
            for k in range(count):
                chart = model[seats[k]]
                if aware.rule[chart] == DECIDE_ICM:
                    if aware.summary[chart] == 0:
                        local = True
                    else:
                        local_second = True
            if local:
                payoff = rest_payoffs(field.first, seats[:count])
            if local_second:
                payoff_second = rest_payoffs(field.second, seats[:count])
    # action order: the seat after the big blind first, the big blind last; behind[k] is the deepest starting
    # stack of the players acting after order[k] (who could call a jam)
    behind = work.behind
    deepest = 0
    for k in range(count - 1, -1, -1):
        order[k] = (bb + 1 + k) % count
        behind[k] = deepest
        deepest = max(deepest, start[order[k]])
    dealt = 0
    jammer = -1
    jammer_k = -1
    first_caller = -1
    called = 0
    for k in range(count):
        i = order[k]
        if stack[seats[i]] == 0:
            continue  # all in from the forced bets: in the hand without acting
        if jammer < 0:
            if i == bb:
                continue  # everyone folded to the big blind, who checks
            dealt = _hole_cards(i, hole, has_cards, deck, dealt, state, given)
            c = class_of_cards(hole[i, 0], hole[i, 1])
            rule = DECIDE_CHART
            jams = False
            if aware is not None:
                rule = aware.rule[model[seats[i]]]
                if field is not None and rule != DECIDE_CHART:
                    second = aware.summary[model[seats[i]]] == 1
                    own = field.second if second else field.first
                    own_payoff = payoff_second if second else payoff
                    if rule == DECIDE_FGS:
                        if fgs is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes it for None)
                            jams = _model_jams(rule, aware, own, seats, count, stack, model, big_blind, charts,
                                               ring, ring_rule_index, sb, work, own_payoff, float(dead), k, bb, c,
                                               _fgs_spot(fgs, button, small_blind, big_blind, ante, big_blind_ante,
                                                         int(aware.param[model[seats[i]]]))) > 0.0
                    else:
                        jams = _model_jams(rule, aware, own, seats, count, stack, model, big_blind, charts, ring,
                                           ring_rule_index, sb, work, own_payoff, float(dead), k, bb, c) > 0.0
            if rule == DECIDE_CHART:
                p = charts.jam[model[seats[i]], _bucket(min(start[i], behind[k]), big_blind, buckets), c]
                if ring is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes the branch for None)
                    if ring.plays[model[seats[i]]]:
                        p = ring_probability(ring.jam[ring_spot(ring, ring_rule_index, count,
                                                                min(start[i], behind[k]), big_blind)
                                                      + ring.shift[model[seats[i]]], position(i, sb, count), c])
                jams = p > 0.0 and (p >= 1.0 or _unit(state) < p)
            if jams:
                jammer = i
                jammer_k = k
                contrib[i] += stack[seats[i]]
                stack[seats[i]] = 0
            else:
                folded[i] = True
        elif called >= callers:
            folded[i] = True
        elif contrib[i] >= contrib[jammer]:
            continue  # a blind already covering a short jam is in without acting
        else:
            dealt = _hole_cards(i, hole, has_cards, deck, dealt, state, given)
            c = class_of_cards(hole[i, 0], hole[i, 1])
            rule = DECIDE_CHART
            calls = False
            if aware is not None:
                rule = aware.rule[model[seats[i]]]
                if field is not None and rule != DECIDE_CHART:
                    second = aware.summary[model[seats[i]]] == 1
                    own = field.second if second else field.first
                    own_payoff = payoff_second if second else payoff
                    if rule == DECIDE_FGS:
                        if fgs is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes it for None)
                            calls = _model_calls(rule, aware, own, seats, count, stack, model, big_blind, charts,
                                                 ring, ring_rule_index, sb, work, own_payoff, float(dead), i, jammer,
                                                 jammer_k, c, _fgs_spot(fgs, button, small_blind, big_blind, ante,
                                                                        big_blind_ante,
                                                                        int(aware.param[model[seats[i]]]))) > 0.0
                    else:
                        calls = _model_calls(rule, aware, own, seats, count, stack, model, big_blind, charts,
                                             ring, ring_rule_index, sb, work, own_payoff, float(dead), i, jammer,
                                             jammer_k, c) > 0.0
            if rule == DECIDE_CHART:
                p = charts.call[model[seats[i]], _bucket(min(start[i], start[jammer]), big_blind, buckets), c]
                if ring is not None:  # noqa: SIM102 (a lone `is not None` test: numba prunes the branch for None)
                    if ring.plays[model[seats[i]]]:
                        p = ring_call_probability(ring, model[seats[i]], ring_rule_index, count,
                                                  min(start[i], start[jammer]), big_blind, position(i, sb, count),
                                                  position(jammer, sb, count),
                                                  position(first_caller, sb, count) if first_caller >= 0 else -1, c)
                calls = p > 0.0 and (p >= 1.0 or _unit(state) < p)
            if calls:
                if first_caller < 0:
                    first_caller = i
                called += 1  # all in: what nobody matches comes back in the settlement
                contrib[i] += stack[seats[i]]
                stack[seats[i]] = 0
            else:
                folded[i] = True
    live = 0
    for k in range(count):
        value[k] = 0
        if not folded[k]:
            live += 1
    if live > 1:  # showdown of every player still in: deal missing hole cards and the board
        for k in range(count):
            if not folded[k]:
                dealt = _hole_cards(k, hole, has_cards, deck, dealt, state, given)
        board = work.board
        for m in range(5):
            if given is not None:
                board[m] = given[20 + m]
            else:
                board[m] = _deal(deck, dealt + m, state)
        key, bits = partial_hand(board, tables)
        for k in range(count):
            if not folded[k]:
                value[k] = value_with_two(key, bits, hole[k, 0], hole[k, 1], tables)
    chips = work.chips
    in_hand = work.has_cards  # reused: the players still in the hand
    for k in range(count):
        chips[k] = stack[seats[k]]
        in_hand[k] = not folded[k]
    settle(chips, contrib, count, in_hand, dead, value, order, work.pot_chips, work.pot_seats, work.refunds)
    for k in range(count):
        stack[seats[k]] = chips[k]
    if aware is not None:  # noqa: SIM102 (numba prunes a None argument's branch on a lone `is not None` test only)
        if field is not None and aware.summaries > 0:
            _update_summaries(aware, field, seats, count, stack)


class TableState(NamedTuple):
    """Seating of one tournament: tables, their counts, and count buckets for O(1) fullest/shortest lookup."""

    seats: np.ndarray  # int64[T, size]
    counts: np.ndarray  # int64[T]
    button: np.ndarray  # int64[T]
    active: np.ndarray  # int64[T]: the tables in play, first ``n_active[0]``
    n_active: np.ndarray  # int64[1]
    by_count: np.ndarray  # int64[size + 1, T]: tables holding c players
    bucket_len: np.ndarray  # int64[size + 1]
    where: np.ndarray  # int64[T]: position of a table in its count bucket


@njit(cache=True)
def _bucket_remove(ts: TableState, t: int) -> None:
    c = ts.counts[t]
    pos = ts.where[t]
    last = ts.by_count[c, ts.bucket_len[c] - 1]
    ts.by_count[c, pos] = last
    ts.where[last] = pos
    ts.bucket_len[c] -= 1


@njit(cache=True)
def _bucket_add(ts: TableState, t: int) -> None:
    c = ts.counts[t]
    ts.by_count[c, ts.bucket_len[c]] = t
    ts.where[t] = ts.bucket_len[c]
    ts.bucket_len[c] += 1


@njit(cache=True)
def _shortest(ts: TableState) -> int:
    for c in range(ts.by_count.shape[0]):
        if ts.bucket_len[c] > 0:
            table: int = ts.by_count[c, 0]
            return table
    return -1


@njit(cache=True)
def _fullest(ts: TableState) -> int:
    for c in range(ts.by_count.shape[0] - 1, -1, -1):
        if ts.bucket_len[c] > 0:
            table: int = ts.by_count[c, 0]
            return table
    return -1


@njit(cache=True)
def _seat_player(ts: TableState, t: int, player: int) -> None:
    _bucket_remove(ts, t)
    ts.seats[t, ts.counts[t]] = player
    ts.counts[t] += 1
    _bucket_add(ts, t)


@njit(cache=True)
def _unseat(ts: TableState, t: int, k: int) -> int:
    """Remove the player in seat position ``k`` of table ``t`` (later seats shift down); returns him."""
    player: int = ts.seats[t, k]
    _bucket_remove(ts, t)
    for m in range(k, ts.counts[t] - 1):
        ts.seats[t, m] = ts.seats[t, m + 1]
    ts.counts[t] -= 1
    if k < ts.button[t]:
        ts.button[t] -= 1
    if ts.counts[t] > 0:
        ts.button[t] %= ts.counts[t]
    else:
        ts.button[t] = 0
    _bucket_add(ts, t)
    return player


@njit(cache=True)
def _rebalance(ts: TableState, alive: int, size: int, state: np.ndarray) -> None:
    """Break tables while the others can absorb their players (the shortest goes, its players one by one to
    the shortest remaining table), then move a random player from the fullest to the shortest table while
    they differ by two or more."""
    target = (alive + size - 1) // size
    while ts.n_active[0] > target:
        t = _shortest(ts)
        _bucket_remove(ts, t)
        for a in range(ts.n_active[0]):
            if ts.active[a] == t:
                ts.active[a] = ts.active[ts.n_active[0] - 1]
                break
        ts.n_active[0] -= 1
        for k in range(ts.counts[t]):
            _seat_player(ts, _shortest(ts), ts.seats[t, k])
        ts.counts[t] = 0
    while True:
        full = _fullest(ts)
        short = _shortest(ts)
        if ts.counts[full] - ts.counts[short] < 2:
            break
        player = _unseat(ts, full, _below(state, ts.counts[full]))
        _seat_player(ts, short, player)


@njit(cache=True)
def _spread(ts: TableState) -> int:
    spread: int = ts.counts[_fullest(ts)] - ts.counts[_shortest(ts)]
    return spread


class TournamentRun(NamedTuple):
    """A tournament in progress: everything :func:`play_rounds` carries from one call to the next, so a tournament
    played in many calls (Ctrl-C is seen between them) is the same, bit for bit, as one played in one call."""

    stack: np.ndarray  # int64[n]: chips per player
    tables: TableState
    taken: np.ndarray  # bool[S]: snapshots taken
    clock: np.ndarray  # int64[CLOCK_SIZE]: the counters below
    start_stack: np.ndarray  # int64[n]: chips at the start of the round's hand (simultaneous busts)
    busted: np.ndarray  # int64[n]: scratch of the busts of a round
    tiebreak: np.ndarray  # float64[n]: scratch of the busts of a round
    work: HandScratch  # the hand's work arrays and the random stream


# the counters of TournamentRun.clock
LEVEL, LEVEL_END, ROUNDS, HANDS, ALIVE, NEXT_PLACE, BUILT_ALIVE, NEXT_TABLE, IN_ROUND, FINISHED = range(10)
CLOCK_SIZE = 10


@njit(cache=True)
def new_run(field: Field, snapshots: Snapshots) -> TournamentRun:
    """The arrays of a tournament of ``field`` (reset by :func:`start_tournament` for each tournament)."""
    n = field.stacks.size
    size = field.table_size
    n_tables = (n + size - 1) // size
    ts = TableState(
        np.full((n_tables, size), -1, dtype=np.int64), np.zeros(n_tables, dtype=np.int64),
        np.zeros(n_tables, dtype=np.int64), np.arange(n_tables, dtype=np.int64),
        np.full(1, n_tables, dtype=np.int64), np.zeros((size + 1, n_tables), dtype=np.int64),
        np.zeros(size + 1, dtype=np.int64), np.zeros(n_tables, dtype=np.int64),
    )
    return TournamentRun(field.stacks.copy(), ts, np.zeros(snapshots.players_left.size, dtype=np.bool_),
                         np.zeros(CLOCK_SIZE, dtype=np.int64), np.empty(n, dtype=np.int64),
                         np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float64), _scratch(np.uint64(0)))


@njit(cache=True)
def _reset_scratch(work: HandScratch, counter: np.uint64) -> None:
    """``work`` as :func:`_scratch` makes it (a fresh deck, the stream at ``counter``)."""
    for c in range(52):
        work.deck[c] = c
    work.hole[:] = 0
    work.has_cards[:] = False
    work.contrib[:] = 0
    work.posted_dead[:] = 0
    work.chips[:] = 0
    work.pot_chips[:] = 0
    work.pot_seats[:] = 0
    work.refunds[:] = 0
    work.folded[:] = False
    work.value[:] = 0
    work.order[:] = 0
    work.start[:] = 0
    work.behind[:] = 0
    work.board[:] = 0
    work.state[0] = counter
    work.ranges[:] = 0.0
    work.chips_now[:] = 0.0
    work.blinds[:] = 0.0
    work.row[:] = 0.0
    work.range_row[:] = 0.0


@njit(cache=True)
def start_tournament(field: Field, schedule: Schedule, aware: Aware, run: TournamentRun, counter: np.uint64,
                     places: np.ndarray, checks: np.ndarray) -> Summaries:
    """Seat a new tournament in ``run`` (random seating and buttons from the stream at ``counter``); returns the
    local-ICM summaries of its field (:func:`build_summaries`: placeholders when no player decides by a model of
    the whole field)."""
    work = run.work
    _reset_scratch(work, counter)
    state = work.state
    ts = run.tables
    n = field.stacks.size
    n_tables = ts.counts.size
    stack = run.stack
    stack[:] = field.stacks
    ts.seats[:] = -1
    ts.counts[:] = 0
    ts.button[:] = 0
    for t in range(n_tables):
        ts.active[t] = t
    ts.n_active[0] = n_tables
    ts.by_count[:] = 0
    ts.bucket_len[:] = 0
    ts.where[:] = 0
    # random seating: a shuffled field dealt round the tables
    perm = np.arange(n, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        j = _below(state, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    for t in range(n_tables):
        _bucket_add(ts, t)
    for i in range(n):
        _seat_player(ts, i % n_tables, perm[i])
    for t in range(n_tables):
        ts.button[t] = _below(state, ts.counts[t])
    for p in range(n):
        places[p] = 0
    run.taken[:] = False
    clock = run.clock
    clock[:] = 0
    clock[LEVEL_END] = schedule.hands[0]
    clock[ALIVE] = n
    clock[NEXT_PLACE] = n
    clock[BUILT_ALIVE] = n
    checks[:] = 0
    return build_summaries(stack, aware)


@njit(cache=True)
def play_rounds(
    field: Field, schedule: Schedule, charts: Charts, ring: RingCharts, aware: Aware, snapshots: Snapshots,
    tables: EvalTables, run: TournamentRun, summary: Summaries, places: np.ndarray, snap_stacks: np.ndarray,
    snap_info: np.ndarray, checks: np.ndarray, budget: int, fgs: FgsTables | None = None,
) -> tuple[Summaries, int]:
    """Play the tournament in ``run`` on, hand by hand, until it ends (``run.clock[FINISHED]``) or ``budget``
    hands (at least one) are played; returns the local-ICM summaries (rebuilt as the field shrinks) and the hands
    played. Calls may stop between any two tables' hands: the tournament does not depend on where.

    Writes ``places[p]`` (1 = winner) for every player, ``snap_stacks[s, p]`` (chips; 0 = busted) and
    ``snap_info[s] = (hands played, level index)`` at each snapshot, and ``checks``: ``[0]`` the largest
    difference between two tables' counts after any rebalancing, ``[1]`` rounds whose chip total changed,
    ``[2]`` rounds that ended with more tables than needed, ``[3]`` rounds played. ``aware``: the players who
    decide by a model (when ``aware.summaries`` is not 0, that many local-ICM summaries of the field are kept and
    rebuilt each time a fifth of the players left at their build have gone, so their nodes fit the field).
    """
    work = run.work
    state = work.state
    ts = run.tables
    stack = run.stack
    clock = run.clock
    n = field.stacks.size
    size = field.table_size
    total = field.stacks.sum()
    used = 0
    while True:
        if clock[IN_ROUND] == 0:
            alive = clock[ALIVE]
            for s in range(snapshots.players_left.size):
                if run.taken[s]:
                    continue
                target = snapshots.players_left[s]
                if snapshots.before[s] and alive > target:
                    # this round may reach the count (it can take every player but one a table): keep its start
                    if alive - target <= alive - ts.n_active[0]:
                        snap_stacks[s, :] = stack
                        snap_info[s, 0] = clock[HANDS]
                        snap_info[s, 1] = clock[LEVEL]
                    continue
                if alive <= target:
                    run.taken[s] = True
                    if snapshots.before[s] and snap_stacks[s].sum() > 0:
                        continue  # the start of the round that reached the count is kept
                    snap_stacks[s, :] = stack
                    snap_info[s, 0] = clock[HANDS]
                    snap_info[s, 1] = clock[LEVEL]
            if alive <= 1:
                for p in range(n):
                    if places[p] == 0:
                        places[p] = 1
                checks[3] = clock[ROUNDS]
                clock[FINISHED] = 1
                return summary, used
            if clock[ROUNDS] >= clock[LEVEL_END] and clock[LEVEL] + 1 < schedule.hands.size:
                clock[LEVEL] += 1
                clock[LEVEL_END] += schedule.hands[clock[LEVEL]]
            clock[IN_ROUND] = 1
            clock[NEXT_TABLE] = 0
        level = clock[LEVEL]
        while clock[NEXT_TABLE] < ts.n_active[0]:
            if used >= budget:
                return summary, used
            t = ts.active[clock[NEXT_TABLE]]
            clock[NEXT_TABLE] += 1
            c = ts.counts[t]
            if c < 2:
                continue
            for k in range(c):
                run.start_stack[ts.seats[t, k]] = stack[ts.seats[t, k]]
            if field.play == PLAY_COINFLIP:
                coinflip_hand(ts.seats[t], c, stack, field.bet, state)
            else:
                chart_hand(ts.seats[t], c, ts.button[t], stack, field.model, schedule.small_blind[level],
                           schedule.big_blind[level], schedule.ante[level], schedule.big_blind_ante, field.callers,
                           charts, tables, work, None, aware, summary, ring, fgs)
            ts.button[t] = (ts.button[t] + 1) % c
            clock[HANDS] += 1
            used += 1
        clock[IN_ROUND] = 0
        clock[ROUNDS] += 1
        # remove the busted; simultaneous busts: the bigger stack at the start of the hand finishes higher,
        # equal stacks in random order
        busted = run.busted
        tiebreak = run.tiebreak
        n_busted = 0
        for a in range(ts.n_active[0]):
            t = ts.active[a]
            k = 0
            while k < ts.counts[t]:
                p = ts.seats[t, k]
                if stack[p] == 0:
                    busted[n_busted] = p
                    tiebreak[n_busted] = run.start_stack[p] + _unit(state)
                    n_busted += 1
                    _unseat(ts, t, k)
                else:
                    k += 1
        for i in range(1, n_busted):  # insertion sort by (start stack, random), few players per round
            p = busted[i]
            key = tiebreak[i]
            j = i - 1
            while j >= 0 and tiebreak[j] > key:
                busted[j + 1] = busted[j]
                tiebreak[j + 1] = tiebreak[j]
                j -= 1
            busted[j + 1] = p
            tiebreak[j + 1] = key
        for i in range(n_busted):
            places[busted[i]] = clock[NEXT_PLACE]
            clock[NEXT_PLACE] -= 1
        clock[ALIVE] -= n_busted
        alive = clock[ALIVE]
        if aware.summaries > 0 and alive >= 2 and 5 * alive < 4 * clock[BUILT_ALIVE]:
            summary = build_summaries(stack, aware)
            clock[BUILT_ALIVE] = alive
        if alive >= 1:
            _rebalance(ts, alive, size, state)
            spread = _spread(ts)
            if spread > checks[0]:
                checks[0] = spread
            if ts.n_active[0] != (alive + size - 1) // size:
                checks[2] += 1
        if stack.sum() != total:
            checks[1] += 1


@njit(cache=True)
def play_chunk(
    field: Field, schedule: Schedule, charts: Charts, ring: RingCharts, aware: Aware, snapshots: Snapshots,
    tables: EvalTables, seed: int, first: int, places: np.ndarray, snap_stacks: np.ndarray, snap_info: np.ndarray,
    hands: np.ndarray, checks: np.ndarray, run: TournamentRun, summary: Summaries, cursor: np.ndarray, budget: int,
    fgs: FgsTables | None = None,
) -> Summaries:
    """Tournaments ``first .. first + len(hands) - 1`` of the batch seeded ``seed`` (row ``r`` of every output is
    tournament ``first + r``: see :func:`play_rounds`), played on from where the last call stopped for at most
    ``budget`` hands (at least one): ``cursor[0]`` is the row in play, ``cursor[1]`` whether it has started
    (``run`` and ``summary`` hold it). Done when ``cursor[0] == len(hands)``; returns the summary to pass on."""
    used = 0
    while cursor[0] < hands.size and used < budget:
        r = cursor[0]
        if cursor[1] == 0:
            summary = start_tournament(field, schedule, aware, run, tournament_start(seed, first + r), places[r],
                                       checks[r])
            cursor[1] = 1
        summary, played = play_rounds(field, schedule, charts, ring, aware, snapshots, tables, run, summary, places[r],
                                      snap_stacks[r], snap_info[r], checks[r], budget - used, fgs)
        used += played
        if run.clock[FINISHED]:
            hands[r] = run.clock[HANDS]
            cursor[0] += 1
            cursor[1] = 0
    return summary


@njit(cache=True)
def play_hands(
    stacks: np.ndarray, model: np.ndarray, button: int, small_blind: int, big_blind: int, ante: int,
    big_blind_ante: bool, callers: int, charts: Charts, tables: EvalTables, seed: int, hands: int,
    delta_sum: np.ndarray, delta_sq: np.ndarray, ring: RingCharts | None = None,
) -> None:
    """Play ``hands`` independent push/fold hands at one table, each from the same ``stacks`` and ``button``,
    and accumulate each seat's chip result (sum and sum of squares): the EV of the charts' strategies."""
    work = _scratch(tournament_start(seed, 0))
    count = stacks.size
    seats = np.arange(count, dtype=np.int64)
    stack = stacks.copy()
    for _ in range(hands):
        for k in range(count):
            stack[k] = stacks[k]
        chart_hand(seats, count, button, stack, model, small_blind, big_blind, ante, big_blind_ante, callers,
                   charts, tables, work, None, None, None, ring)
        for k in range(count):
            d = float(stack[k] - stacks[k])
            delta_sum[k] += d
            delta_sq[k] += d * d


@njit(cache=True)
def replay_hand(
    stacks: np.ndarray, model: np.ndarray, button: int, small_blind: int, big_blind: int, ante: int,
    big_blind_ante: bool, callers: int, charts: Charts, tables: EvalTables, cards: np.ndarray,
    ring: RingCharts | None = None,
) -> np.ndarray:
    """The chips after one push/fold hand dealt ``cards`` (seat ``k`` holds ``cards[2k], cards[2k + 1]``, the board
    is ``cards[20:25]``), played as :func:`play_tournament` plays a hand (charts of 0 and 1 script the actions)."""
    work = _scratch(tournament_start(0, 0))
    count = stacks.size
    stack = stacks.copy()
    chart_hand(np.arange(count, dtype=np.int64), count, button, stack, model, small_blind, big_blind, ante,
               big_blind_ante, callers, charts, tables, work, cards, None, None, ring)
    return stack
