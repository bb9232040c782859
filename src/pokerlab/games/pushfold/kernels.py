"""The compiled kernels of push/fold's terminal valuation (see :mod:`pokerlab.games.pushfold.valuation`).

Every function here trusts its input. The bundles they read: :class:`Deals` (the sampled deals of the 3+ way
pots), :class:`PlayerTerminals` (one player's static arrays over the terminals) and :class:`SourceProducts`
(the reach sources' products with the class tables). ``kind`` of a terminal for a player: :data:`CONSTANT`
(the payoff does not depend on the hands), :data:`SPECTATOR` (the player watches a showdown), :data:`HEADS_UP`
(the player in a two-way showdown) or :data:`MULTIWAY` (the player in a 3+ way showdown).

Every kernel here runs on one thread. A solve calls them a few thousand times for milliseconds each, and each
parallel call ends at a barrier where OpenMP's threads spin while they wait for one another: on the shared 2-core
machine (load 5-6) a six-seat solve spent 11.4 s of CPU and 24 s of wall time with them parallel against 2.8 s
and 4.7 s on one thread, the same values bit for bit (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.games.pushfold.rules import MAX_SEATS

DISJOINT_COMBOS = 1225  # combos left by one combo: C(50, 2)
MOMENT_BLOCKS = 8  # blocks of deals whose partial sums hero_moments adds (shorter sums: less rounding)
CONSTANT, SPECTATOR, HEADS_UP, MULTIWAY = range(4)


class Deals(NamedTuple):
    """Sampled deals of 3+ way pots, stacked by row where a redeal gives each pot its own (``deal_*``:
    ``(rows, samples, seats)``, or one row's ``(samples, seats)`` view); the hero's per-class combos are shared."""

    deal_class: np.ndarray  # (S, seats) uint8 class of each seat's combo (the hot loop reads it for every deal)
    deal_key: np.ndarray  # (S, seats) int64 hand value * 16 + tie-break priority
    deal_mask: np.ndarray  # (S, seats) uint64 card masks
    hero_key: np.ndarray  # (S, 169) int32 value * 16 of the class's sampled combo, 0 when it touches the board
    hero_low: np.ndarray  # (S, 169) uint8 the sampled combo's lower card
    hero_high: np.ndarray  # (S, 169) uint8 its higher card
    deal_ratio: np.ndarray  # (S, seats) uniform density / proposal density of each seat's dealt combo (1: uniform)



class PlayerTerminals(NamedTuple):
    """One player's static arrays over the terminals, the bundle :func:`batched_values` reads: how each is
    valued (``kind``), the removal scale, the folders' seats and the showdown's seats (the opponents for a
    sampled multiway hero; -1 padded), the player's utility per outcome (heads-up: win, lose, tie), the row
    of each multiway spectator's sampled outcomes and deal weights (:func:`pot_weights`), each terminal's
    row of deals (``deal_row``, see :meth:`MultiwayValuation.deals
    <pokerlab.games.pushfold.valuation.MultiwayValuation.deals>`), the offset of each multiway hero's
    ``(samples, seats in the pot)`` outcome table in ``positions``, the payoff's mean with random hands in the
    pot (``centre``, or against the redeal's ranges) and a 3+ way hero's usable deals per class, summed with
    their density ratios (``counts``)."""

    kind: np.ndarray
    scale: np.ndarray
    folders: np.ndarray
    inside: np.ndarray
    utilities: np.ndarray
    spectator_row: np.ndarray
    sample_outcomes: np.ndarray
    pot_weights: np.ndarray
    deal_row: np.ndarray
    position_at: np.ndarray
    positions: np.ndarray
    centre: np.ndarray
    counts: np.ndarray


class SourceProducts(NamedTuple):
    """The batch's reach sources as :func:`batched_values` reads them: ``source[i, q]`` the source of seat
    ``q``'s reach at terminal ``i``, each source's reach over class weights ``x`` and its products with the
    class tables (``removal``, ``win``, ``tie``; see :class:`SourceCache`)."""

    source: np.ndarray
    x: np.ndarray
    removal: np.ndarray
    win: np.ndarray
    tie: np.ndarray


@njit(cache=True)
def winners_code(order_seats: np.ndarray, eligible: np.ndarray, seats: int) -> int:
    """Outcome key of the pot winners when the participants finish in ``order_seats`` (best first)."""
    code = 0
    scale = 1
    for p in range(eligible.shape[0]):
        for seat in order_seats:
            if (eligible[p] >> seat) & 1:
                code += seat * scale
                break
        scale *= seats
    return code


@njit(cache=True)
def position_outcomes(
    deal_key: np.ndarray, hero: int, opponents: np.ndarray, eligible: np.ndarray, outcome_keys: np.ndarray,
    seats: int,
) -> np.ndarray:
    """Static part of a hero's multiway value: for each sample, the outcome index for each number of opponents
    ranked above the hero.

    With the opponents ranked best first, let ``first[p]`` be the rank of pot ``p``'s best eligible opponent: with
    ``k`` opponents above the hero, pot ``p`` goes to the hero when it is eligible and ``k <= first[p]``, else to
    that opponent (the pot's winner is its best eligible hand). So one ranking of the opponents per deal gives
    every position's pot winners, and the outcome is looked up only where they change."""
    count = deal_key.shape[0]
    m = opponents.shape[0] + 1
    pots = eligible.shape[0]
    by_position = np.empty((count, m), dtype=np.int32)
    ranked = np.empty(m - 1, dtype=np.int64)  # scratch shared by the deals
    first = np.empty(pots, dtype=np.int64)
    scale = np.empty(pots, dtype=np.int64)  # seats ** p: the outcome key's digit of pot p (winners_code)
    hero_in = np.empty(pots, dtype=np.bool_)
    digit = 1
    for p in range(pots):
        scale[p] = digit
        digit *= seats
        hero_in[p] = (eligible[p] >> hero) & 1 == 1
    for s in range(count):
        seats_by_key(deal_key, s, opponents, ranked)
        for p in range(pots):
            f = m - 1  # no eligible opponent: only the hero can win the pot
            for j in range(m - 1):
                if (eligible[p] >> ranked[j]) & 1:
                    f = j
                    break
            first[p] = f
        previous = -1
        index = 0
        for k in range(m):
            code = 0
            for p in range(pots):
                code += scale[p] * (hero if hero_in[p] and k <= first[p] else ranked[first[p]])
            if code != previous:
                index = int(np.searchsorted(outcome_keys, code))
                previous = code
            by_position[s, k] = index
    return by_position


@njit(cache=True)
def seats_by_key(deal_key: np.ndarray, s: int, seats: np.ndarray, out: np.ndarray) -> None:
    """``seats`` into ``out`` by decreasing key in deal ``s`` (insertion sort: a few seats, no allocation)."""
    for j in range(seats.shape[0]):
        q = seats[j]
        i = j
        while i > 0 and deal_key[s, out[i - 1]] < deal_key[s, q]:
            out[i] = out[i - 1]
            i -= 1
        out[i] = q


@njit(cache=True)
def hero_sums(
    samples: Deals, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray, centre: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """A 3+ way hero's sampled sums per class: over the deals the class can use (its sampled combo avoids the
    board and the opponents' cards, which avoid each other), ``sum r w (u - centre[c])`` with ``w`` the
    product of the opponents' strategy weights ``sig`` at their dealt classes and ``r`` the product of their
    density ratios (1 for uniform deals), and the sum of ``r`` over such deals. With ``sig`` all ones and
    ``centre`` 0 the first divided by the second is the class's mean payoff with random opponents (the solver's
    per-iteration sums are :func:`hero_correction`)."""
    deal_key, hero_key = samples.deal_key, samples.hero_key
    total = np.zeros(NUMBER_OF_CLASSES)
    usable = np.zeros(NUMBER_OF_CLASSES)
    for s in range(deal_key.shape[0]):
        weight, ratio, used = _pot_deal(samples, s, opponents, sig)
        if ratio == 0.0:
            continue
        priority = deal_key[s, hero] % 16  # the hero's tie-break priority is its seat's in the deal
        for c in range(NUMBER_OF_CLASSES):
            if hero_key[s, c] == 0 or _clashes(samples, s, c, used):
                continue
            usable[c] += ratio
            if weight != 0.0:
                above = _ranked_above(deal_key, s, opponents, hero_key[s, c] + priority)
                total[c] += weight * (utilities[by_position[s, above]] - centre[c])
    return total, usable


@njit(cache=True, fastmath=True)
def hero_correction(
    samples: Deals, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray, centre: np.ndarray,
) -> np.ndarray:
    """The first of :func:`hero_sums`' sums, the solver's hot loop. Deals of weight 0 (most of them: a seat's
    class out of its range) are skipped whole, found from the classes alone. Per deal the opponents' keys,
    shifted by the hero's tie-break priority and sorted, are thresholds: the payoff with ``k`` opponents above
    the hero is the payoff with none plus one step per threshold above the hero's key, so the loop over the
    classes has no gather and no branch, and nine thresholds are unrolled (padded with -1, below every key)
    so that it runs in vector registers (3 times faster than a loop over the opponents, measured)."""
    deal_key, hero_key, low, high = samples.deal_key, samples.hero_key, samples.hero_low, samples.hero_high
    deal_class = samples.deal_class
    total = np.zeros(NUMBER_OF_CLASSES)
    weights = np.zeros(NUMBER_OF_CLASSES)
    m = opponents.shape[0]
    threshold = np.full(MAX_SEATS - 1, -1, dtype=np.int32)
    step = np.zeros(MAX_SEATS - 1)
    one = np.uint64(1)
    for s in range(deal_key.shape[0]):
        held = True  # every opponent's class in its range: no early exit, whose branch the CPU cannot predict
        for j in range(m):
            held &= sig[j, deal_class[s, opponents[j]]] != 0.0
        if not held:
            continue
        weight, _, used = _pot_deal(samples, s, opponents, sig)
        if weight == 0.0:
            continue
        priority = deal_key[s, hero] % 16
        for j in range(m):  # an opponent ranks above the hero's key k + priority when its key - priority > k
            key = np.int32(deal_key[s, opponents[j]] - priority)
            i = j
            while i > 0 and threshold[i - 1] < key:  # insertion sort, decreasing
                threshold[i] = threshold[i - 1]
                i -= 1
            threshold[i] = key
        base = weight * utilities[by_position[s, 0]]
        for k in range(m):
            step[k] = weight * (utilities[by_position[s, k + 1]] - utilities[by_position[s, k]])
        t0, t1, t2, t3, t4, t5, t6, t7, t8 = (threshold[0], threshold[1], threshold[2], threshold[3], threshold[4],
                                              threshold[5], threshold[6], threshold[7], threshold[8])
        d0, d1, d2, d3, d4, d5, d6, d7, d8 = (step[0], step[1], step[2], step[3], step[4], step[5], step[6],
                                              step[7], step[8])
        keys, lows, highs = hero_key[s], low[s], high[s]
        for c in range(NUMBER_OF_CLASSES):
            key = keys[c]
            value = (base + (d0 if t0 > key else 0.0) + (d1 if t1 > key else 0.0) + (d2 if t2 > key else 0.0)
                     + (d3 if t3 > key else 0.0) + (d4 if t4 > key else 0.0) + (d5 if t5 > key else 0.0)
                     + (d6 if t6 > key else 0.0) + (d7 if t7 > key else 0.0) + (d8 if t8 > key else 0.0))
            clash = ((used >> np.uint64(lows[c])) | (used >> np.uint64(highs[c]))) & one
            usable = (key != 0) & (clash == 0)
            total[c] += value if usable else 0.0
            weights[c] += weight if usable else 0.0
    corrected: np.ndarray = total - weights * centre
    return corrected


@njit(cache=True)
def hero_moments(
    samples: Deals, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per class of a 3+ way hero, over the deals it can use (as :func:`hero_sums`), with ``w`` the product of
    the opponents' ``sig`` at their dealt classes and density ratios: ``sum w u``, ``sum w`` and ``sum w^2``
    (each of :data:`MOMENT_BLOCKS` blocks of deals summed on its own, the blocks' sums added at the end)."""
    deal_key, hero_key = samples.deal_key, samples.hero_key
    count = deal_key.shape[0]
    blocks = MOMENT_BLOCKS
    parts = np.zeros((blocks, 3, NUMBER_OF_CLASSES))
    for b in range(blocks):
        for s in range(b * count // blocks, (b + 1) * count // blocks):
            weight, _, used = _pot_deal(samples, s, opponents, sig)
            if weight == 0.0:
                continue
            priority = deal_key[s, hero] % 16
            for c in range(NUMBER_OF_CLASSES):
                if hero_key[s, c] == 0 or _clashes(samples, s, c, used):
                    continue
                above = _ranked_above(deal_key, s, opponents, hero_key[s, c] + priority)
                parts[b, 0, c] += weight * utilities[by_position[s, above]]
                parts[b, 1, c] += weight
                parts[b, 2, c] += weight * weight
    total = parts.sum(axis=0)
    return total[0], total[1], total[2]


@njit(cache=True)
def _pot_deal(samples: Deals, s: int, seats: np.ndarray, sig: np.ndarray
              ) -> tuple[float, float, np.uint64]:
    """Deal ``s`` seen by the pot's ``seats``: the product of their strategy weights ``sig`` at their dealt
    classes times their density ratios, the product of the ratios alone (0 when two of them share a card),
    and their cards."""
    weight = 1.0
    ratio = 1.0
    used = np.uint64(0)
    for j in range(seats.shape[0]):
        q = seats[j]
        weight *= sig[j, samples.deal_class[s, q]]
        if (used & samples.deal_mask[s, q]) != 0:
            ratio = 0.0
        ratio *= samples.deal_ratio[s, q]
        used |= samples.deal_mask[s, q]
    return weight * ratio if ratio != 0.0 else 0.0, ratio, used


@njit(cache=True)
def _clashes(samples: Deals, s: int, c: int, used: np.uint64) -> bool:
    """Whether class ``c``'s sampled combo of deal ``s`` holds one of the cards ``used``."""
    clash: bool = (((used >> samples.hero_low[s, c]) | (used >> samples.hero_high[s, c])) & np.uint64(1)) != 0
    return clash


@njit(cache=True)
def _ranked_above(deal_key: np.ndarray, s: int, opponents: np.ndarray, key: int) -> int:
    """How many opponents' hands in deal ``s`` rank above a hero's ``key``."""
    above = 0
    for j in range(opponents.shape[0]):
        if deal_key[s, opponents[j]] > key:
            above += 1
    return above


@njit(cache=True)
def positive_or_one(counts: np.ndarray) -> np.ndarray:
    """The normalisers of the per-class corrections, 1 where a class has no usable deal (its sums are 0)."""
    out = counts.copy()
    for c in range(out.shape[0]):
        if out[c] <= 0.0:
            out[c] = 1.0
    return out


@njit(cache=True)
def usable_counts(samples: Deals, opponents: np.ndarray) -> np.ndarray:
    """The deals each class of a 3+ way hero can use, summed with their density ratios (as
    :func:`hero_sums` counts them): the normaliser of its correction."""
    usable = np.zeros(NUMBER_OF_CLASSES)
    for s in range(samples.hero_key.shape[0]):
        used = np.uint64(0)
        ratio = 1.0
        clash = False
        for j in range(opponents.shape[0]):
            q = opponents[j]
            clash = clash or (used & samples.deal_mask[s, q]) != 0
            used |= samples.deal_mask[s, q]
            ratio *= samples.deal_ratio[s, q]
        if clash:
            continue
        for c in range(NUMBER_OF_CLASSES):
            if samples.hero_key[s, c] != 0 and not _clashes(samples, s, c, used):
                usable[c] += ratio
    return usable


@njit(cache=True)
def pot_weights(samples: Deals, inside: np.ndarray) -> np.ndarray:
    """Per deal, the product of the density ratios of the seats ``inside`` the pot, 0 where two of them share
    a card (a spectator's view: every deal with disjoint hands counts)."""
    out = np.zeros(samples.deal_mask.shape[0])
    for s in range(out.shape[0]):
        used = np.uint64(0)
        ratio = 1.0
        for j in range(inside.shape[0]):
            q = inside[j]
            if (used & samples.deal_mask[s, q]) != 0:
                ratio = 0.0
                break
            used |= samples.deal_mask[s, q]
            ratio *= samples.deal_ratio[s, q]
        out[s] = ratio
    return out


@njit(cache=True)
def spectator_sum(
    deal_class: np.ndarray, inside: np.ndarray, sig: np.ndarray, outcome_of_sample: np.ndarray,
    utilities: np.ndarray, centre: float, pot_weight: np.ndarray,
) -> float:
    """A spectator's sampled correction of a 3+ way pot: the sum over the deals, weighted by ``pot_weight``
    (:func:`pot_weights` over their normaliser), of the product of the players' strategy weights at their dealt
    classes times ``u - centre``."""
    total = 0.0
    for s in range(deal_class.shape[0]):
        r = pot_weight[s]
        if r == 0.0:
            continue
        weight = r
        for j in range(inside.shape[0]):
            weight *= sig[j, deal_class[s, inside[j]]]
        if weight != 0.0:
            total += weight * (utilities[outcome_of_sample[s]] - centre)
    return total


@njit(cache=True)
def sample_outcomes(
    deal_key: np.ndarray, inside: np.ndarray, eligible: np.ndarray, outcome_keys: np.ndarray, seats: int
) -> np.ndarray:
    """Outcome index of every sampled deal for the participants ``inside`` (a spectator's view)."""
    count = deal_key.shape[0]
    out = np.empty(count, dtype=np.int64)
    order = np.empty(inside.shape[0], dtype=np.int64)  # scratch shared by the deals, as in position_outcomes
    for s in range(count):
        seats_by_key(deal_key, s, inside, order)
        out[s] = np.searchsorted(outcome_keys, winners_code(order, eligible, seats))
    return out


@njit(cache=True, inline="always")
def _folders_removal(plans: PlayerTerminals, removal: np.ndarray, source: np.ndarray, t: int) -> np.ndarray:
    """Terminal ``t``'s scale times the removal factor of every seat that folded on the way."""
    value = np.full(NUMBER_OF_CLASSES, plans.scale[t])
    for j in range(source.shape[1]):
        q = plans.folders[t, j]
        if q < 0:
            break
        value *= removal[source[t, q]]
    return value


@njit(cache=True, inline="always")
def _heads_up_into(out: np.ndarray, t: int, value: np.ndarray, plans: PlayerTerminals, sources: SourceProducts,
                   player: int) -> None:
    """``out[t]`` of a terminal whose payoff is constant or a showdown of the player against one seat."""
    source, _, removal, win, tie = sources
    u = plans.utilities[t]
    if plans.kind[t] == CONSTANT:
        for h in range(NUMBER_OF_CLASSES):
            out[t, h] = value[h] * u[0]
        return
    o = source[t, plans.inside[t, 0] if plans.inside[t, 0] != player else plans.inside[t, 1]]
    for h in range(NUMBER_OF_CLASSES):
        lose = removal[o, h] - win[o, h] - tie[o, h]
        out[t, h] = value[h] * (u[0] * win[o, h] + u[1] * lose + u[2] * tie[o, h]) / DISJOINT_COMBOS


@njit(cache=True, inline="always")
def _pot_reach(plans: PlayerTerminals, removal: np.ndarray, source: np.ndarray,
               t: int) -> tuple[np.ndarray, np.ndarray]:
    """The seats in terminal ``t``'s pot and the product of their removal factors (the reach in the pot)."""
    seats = source.shape[1]
    m = 0
    while m < seats and plans.inside[t, m] >= 0:
        m += 1
    pot = plans.inside[t, :m]
    reach_in_pot = np.ones(NUMBER_OF_CLASSES)
    for j in range(m):
        reach_in_pot *= removal[source[t, pot[j]]] / DISJOINT_COMBOS
    return pot, reach_in_pot


@njit(cache=True, inline="always")
def _spectator_pair(plans: PlayerTerminals, sources: SourceProducts, class_size: np.ndarray, t: int,
                    pot: np.ndarray) -> np.ndarray:
    """The correction of a player who watches a two-seat showdown (constant over the player's classes)."""
    source, x, removal, win, tie = sources
    u = plans.utilities[t]
    centre = plans.centre[t]
    a, b = source[t, pot[0]], source[t, pot[1]]
    d0, d1, d2 = u[0] - centre[0], u[1] - centre[0], u[2] - centre[0]
    acc = 0.0
    for o in range(NUMBER_OF_CLASSES):
        lose = removal[b, o] - win[b, o] - tie[b, o]
        acc += x[a, o] * class_size[o] * (d0 * win[b, o] + d1 * lose + d2 * tie[b, o])
    return np.full(NUMBER_OF_CLASSES, acc / (1326.0 * DISJOINT_COMBOS))


@njit(cache=True, inline="always")
def _pot_row_into(out: np.ndarray, t: int, value: np.ndarray, reach_in_pot: np.ndarray, centre: np.ndarray,
                  correction: np.ndarray) -> None:
    row_value = value * (reach_in_pot * centre + correction)
    for h in range(NUMBER_OF_CLASSES):  # element by element: a row assigned whole compiles numba's shape-mismatch
        out[t, h] = row_value[h]        # message (string code, seconds of a first run)


@njit(cache=True)
def batched_values(
    plans: PlayerTerminals, sources: SourceProducts, class_size: np.ndarray, samples: Deals,
    player: int, out: np.ndarray,
) -> None:
    """Every terminal's value for ``player`` (rows of ``out``) from the sources' products (see
    :meth:`pokerlab.games.pushfold.valuation.MultiwayValuation.evaluate_terminals`)."""
    source, x, removal, _, _ = sources
    for t in range(plans.kind.shape[0]):
        value = _folders_removal(plans, removal, source, t)
        kind = plans.kind[t]
        if kind in (CONSTANT, HEADS_UP):
            _heads_up_into(out, t, value, plans, sources, player)
            continue
        # spectator or 3+ way hero: reach in the pot times the centre, plus the correction
        pot, reach_in_pot = _pot_reach(plans, removal, source, t)
        m = pot.shape[0]
        centre = plans.centre[t]
        if kind == SPECTATOR and m == 2:
            correction = _spectator_pair(plans, sources, class_size, t, pot)
        else:
            sig = np.empty((m, NUMBER_OF_CLASSES))
            for j in range(m):
                sig[j] = x[source[t, pot[j]]]
            r = plans.deal_row[t]
            deals = Deals(samples.deal_class[r], samples.deal_key[r], samples.deal_mask[r],
                          samples.hero_key, samples.hero_low, samples.hero_high, samples.deal_ratio[r])
            if kind == SPECTATOR:
                row = plans.spectator_row[t]
                correction = np.full(NUMBER_OF_CLASSES, spectator_sum(
                    deals.deal_class, pot, sig, plans.sample_outcomes[row], plans.utilities[t], centre[0],
                    plans.pot_weights[row]))
            else:
                count = deals.deal_class.shape[0]
                at = plans.position_at[t]
                by_position = plans.positions[at:at + count * (m + 1)].reshape(count, m + 1)
                correction = hero_correction(deals, player, pot, sig, by_position, plans.utilities[t],
                                             centre) / plans.counts[t]
        _pot_row_into(out, t, value, reach_in_pot, centre, correction)


@njit(cache=True)
def two_seat_pot_values(plans: PlayerTerminals, sources: SourceProducts, class_size: np.ndarray, player: int,
                        out: np.ndarray) -> None:
    """:func:`batched_values` of a game whose pots hold at most two seats (every table without a 3+ way pot,
    heads-up included): the same values, with none of the sampled 3+ way code to compile (a first heads-up solve
    compiled it for 6 of its 11 seconds). Both are built from the same inline steps."""
    source, x, removal, win, tie = sources
    for t in range(plans.kind.shape[0]):
        value = _folders_removal(plans, removal, source, t)
        kind = plans.kind[t]
        if kind in (CONSTANT, HEADS_UP):
            _heads_up_into(out, t, value, plans, sources, player)
            continue
        pot, reach_in_pot = _pot_reach(plans, removal, source, t)
        correction = _spectator_pair(plans, sources, class_size, t, pot)
        _pot_row_into(out, t, value, reach_in_pot, plans.centre[t], correction)


@njit(cache=True)
def source_products(
    x: np.ndarray, rows: np.ndarray, pairs: np.ndarray, win: np.ndarray, tie: np.ndarray, removal: np.ndarray,
    win_out: np.ndarray, tie_out: np.ndarray,
) -> None:
    """``removal[r] = pairs @ x[r]`` (and the same with ``win``, ``tie``) for the sources ``rows``. A compiled
    loop rather than BLAS (a multithreaded BLAS on a shared machine measured 10x slower than this)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        for h in range(NUMBER_OF_CLASSES):
            total = 0.0
            won = 0.0
            tied = 0.0
            for o in range(NUMBER_OF_CLASSES):
                total += pairs[h, o] * x[r, o]
                won += win[h, o] * x[r, o]
                tied += tie[h, o] * x[r, o]
            removal[r, h] = total
            win_out[r, h] = won
            tie_out[r, h] = tied
