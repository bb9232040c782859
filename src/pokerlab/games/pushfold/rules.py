"""The table rules of push/fold: seats and positions, forced bets, side pots, and the stacks after a hand.

The one statement of the rules that the push/fold game (:mod:`pokerlab.games.pushfold.game`) and the tournament
simulator (:mod:`pokerlab.simulation.kernels`) both follow. Everyone posts first: the ante, then the small and
big blind; with a big-blind ante the big blind posts the blind, then the ante (live money before dead, so a big
blind too short for both keeps the most he can win from the callers). A stack that cannot cover its posts is
all-in by posting and takes no decision. Antes are dead money in the main pot; blinds and calls build side pots
by the usual levels, and money nobody can match goes back to its owner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

MAX_SEATS = 10


def seat_names(n: int) -> tuple[str, ...]:
    """Position names in acting order: ``('SB', 'BB')`` heads-up, ``('BTN', 'SB', 'BB')`` three-handed, ...

    >>> seat_names(6)
    ('LJ', 'HJ', 'CO', 'BTN', 'SB', 'BB')
    """
    if n == 2:
        return ("SB", "BB")
    late = ("LJ", "HJ", "CO", "BTN", "SB", "BB")[-n:] if n <= 6 else ("LJ", "HJ", "CO", "BTN", "SB", "BB")
    early = ("UTG", "UTG+1", "UTG+2", "UTG+3")[: max(0, n - 6)]
    return early + late


@dataclass(frozen=True)
class Table:
    """A push/fold table in chips: ``stacks`` in acting order, blinds, an ante per seat (``ante``) or a big-blind
    ante (``bb_ante``, paid by the big blind). The façade (:func:`pokerlab.pushfold.pushfold`) validates."""

    stacks: tuple[float, ...]
    small_blind: float
    big_blind: float
    ante: float = 0.0
    bb_ante: float = 0.0

    @property
    def seats(self) -> int:
        return len(self.stacks)

    def posts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(dead, live)`` chips each seat posts before any decision (:func:`post_forced_bets`; the small and big
        blind are the last two seats)."""
        n = self.seats
        dead = np.zeros(n)
        live = np.zeros(n)
        post_forced_bets(np.asarray(self.stacks, dtype=np.float64), n, n - 2, n - 1, float(self.small_blind),
                         float(self.big_blind), float(self.ante), float(self.bb_ante), dead, live)
        return dead, live


def pots(contributions: np.ndarray, dead: np.ndarray, participants: Sequence[int]) -> tuple[list[float], list[int],
                                                                                             np.ndarray]:
    """Side pots: ``(amounts, eligible seat bitmasks, refunds)`` (:func:`side_pots`, for Python callers). Live
    money (contributions minus antes) is cut at the participants' levels; antes join the main pot. The top
    participant's unmatched chips form a pot only it can win; chips of folded seats above every participant's
    level go back to them (``refunds``).

    >>> pots(np.array([10.0, 4.0, 1.0]), np.zeros(3), [0, 1])
    ([9.0, 6.0], [3, 1], array([0., 0., 0.]))
    """
    n = contributions.shape[0]
    live = np.ascontiguousarray(contributions - dead, dtype=np.float64)
    in_hand = np.zeros(n, dtype=np.bool_)
    in_hand[list(participants)] = True
    amounts = np.zeros(n)
    eligible = np.zeros(n, dtype=np.int64)
    refunds = np.zeros(n)
    count = side_pots(live, n, in_hand, table_sum(np.ascontiguousarray(dead, dtype=np.float64), n), amounts,
                      eligible, refunds)
    return [float(x) for x in amounts[:count]], [int(x) for x in eligible[:count]], refunds


def pot_winner_sequences(participants: Sequence[int], eligible: Sequence[int]) -> list[list[int]]:
    """Every possible sequence of pot winners (one seat per pot, pots from the main pot up) when hands have a
    strict order: a pot's winner is the best of its eligible seats, so it is the previous pot's winner when
    that seat is eligible, else any eligible seat. At most ``2 ** (m - 1)`` sequences for ``m`` participants.

    >>> pot_winner_sequences([0, 1, 2], [7, 6])
    [[0, 1], [0, 2], [1, 1], [2, 2]]
    """
    sequences: list[list[int]] = [[]]
    for mask in eligible:
        grown = []
        for winners in sequences:
            if winners and mask >> winners[-1] & 1:
                grown.append([*winners, winners[-1]])
            else:
                grown.extend([*winners, seat] for seat in participants if mask >> seat & 1)
        sequences = grown
    return sequences


def outcome_key(winners: Sequence[int], seats: int) -> int:
    """Integer key of a pot-winner sequence (one winning seat per pot): ``sum winners[p] * seats ** p``."""
    return sum(w * seats ** p for p, w in enumerate(winners))


@dataclass(frozen=True)
class Terminal:
    """A terminal of the public tree: ``participants`` (seats in the showdown or the lone winner, increasing),
    the outcomes' utility rows (``utilities[o, seat]``) and, for three or more participants, the sorted outcome
    keys (pot winners, see :func:`outcome_key`)."""

    participants: tuple[int, ...]
    utilities: np.ndarray
    keys: np.ndarray
    pot_eligible: np.ndarray  # (pots,) int64 bitmask of eligible seats


def outcome_values(winners: Sequence[int], seats: int) -> np.ndarray:
    """Hand values (larger wins) under which each pot ``p`` goes to ``winners[p]``, for a sequence of
    :func:`pot_winner_sequences`: a seat first winning pot ``p`` gets ``pots - p``, a seat winning none 0.

    >>> outcome_values([2, 2, 0], 3).tolist()  # seat 2 wins the first two pots, seat 0 the third
    [1, 0, 3]
    """
    values = np.zeros(seats, dtype=np.int64)
    for p, seat in enumerate(winners):
        if values[seat] == 0:
            values[seat] = len(winners) - p
    return values


# ---------------------------------------------------------------------------------------------------------
# compiled: the rules as the game (float chips) and the simulator (whole chips) both run them; inlined into the
# simulator's hand, its hot loop (an edit here needs `make clean-kernels`: numba checks only a kernel's own file)


@njit(cache=True, inline="always")
def post_forced_bets(start: np.ndarray, count: int, small_blind_seat: int, big_blind_seat: int, small_blind: Any,
                     big_blind: Any, ante: Any, bb_ante: Any, dead: np.ndarray, live: np.ndarray) -> None:
    """Every seat's forced bets from its chips ``start[k]`` (``k < count``), into ``dead`` (antes) and ``live``
    (blinds): each seat posts its ante, then its blind; with a big-blind ante (``bb_ante > 0``) the big blind
    posts its blind first, then the ante, and nobody else antes. Each post is capped by what is left."""
    for k in range(count):
        blind = small_blind if k == small_blind_seat else (big_blind if k == big_blind_seat else 0 * big_blind)
        if bb_ante > 0 and k == big_blind_seat:
            live[k] = min(blind, start[k])
            dead[k] = min(bb_ante, start[k] - live[k])
        else:
            dead[k] = min(ante, start[k])
            live[k] = min(blind, start[k] - dead[k])


@njit(cache=True)
def table_sum(values: np.ndarray, count: int) -> Any:
    """The sum of ``values[:count]`` (at most 15), in the order of numpy's pairwise sum: a pot computed here
    equals ``np.sum`` of the same chips to the last bit, whichever caller computes it."""
    return _level_sum(values, count, np.inf, values[0] - values[0])


@njit(cache=True, inline="always")
def _level_part(live: np.ndarray, j: int, level: Any, previous: Any) -> Any:
    """The chips seat ``j`` puts in the pot between ``previous`` and ``level``."""
    return min(live[j], level) - min(live[j], previous)


@njit(cache=True, inline="always")
def _level_sum(live: np.ndarray, count: int, level: Any, previous: Any) -> Any:
    """The chips of every seat between ``previous`` and ``level`` (at most 15 seats), summed in the order of
    numpy's pairwise sum (sequential below 8 terms, then eight partial sums): a pot equals ``np.sum`` of the
    same chips to the last bit, whichever caller computes it, and nothing is allocated."""
    if count < 8:
        total = _level_part(live, 0, level, previous) - _level_part(live, 0, level, previous)
        for k in range(count):
            total += _level_part(live, k, level, previous)
        return total
    total = ((_level_part(live, 0, level, previous) + _level_part(live, 1, level, previous))
             + (_level_part(live, 2, level, previous) + _level_part(live, 3, level, previous))) + (
        (_level_part(live, 4, level, previous) + _level_part(live, 5, level, previous))
        + (_level_part(live, 6, level, previous) + _level_part(live, 7, level, previous)))
    for k in range(8, count):
        total += _level_part(live, k, level, previous)
    return total


@njit(cache=True, inline="always")
def side_pots(live: np.ndarray, count: int, in_hand: np.ndarray, dead_total: Any, amounts: np.ndarray,
              eligible: np.ndarray, refunds: np.ndarray) -> int:
    """The pots of a hand: live chips (``live[k]``, antes excluded) cut at the levels of the seats still in the
    hand (``in_hand``), lowest first; the dead money (``dead_total``) joins the main pot. Pot ``p``'s chips
    go to ``amounts[p]``, its eligible seats (those in the hand whose live chips reach its level) to
    ``eligible[p]`` as a bitmask; chips above the top level, which nobody in the hand matched, go back to their
    owners (``refunds``). Returns the number of pots."""
    previous = live[0] - live[0]
    pots = 0
    while True:
        level = previous
        found = False
        for j in range(count):
            if in_hand[j] and (live[j] > previous or (pots == 0 and live[j] == previous)) and (
                    not found or live[j] < level):
                level = live[j]
                found = True
        if not found:
            break
        amount = _level_sum(live, count, level, previous)
        if pots == 0:
            amount += dead_total
        mask = 0
        for j in range(count):
            if in_hand[j] and live[j] >= level:
                mask |= 1 << j
        amounts[pots] = amount
        eligible[pots] = mask
        pots += 1
        previous = level
    for j in range(count):
        refunds[j] = max(live[j] - previous, 0 * previous)
    return pots


def _share(amount: Any, winners: int) -> Any:
    """A winner's share of a split pot (compiled by type: whole chips divide down, the odd chips follow)."""
    return amount / winners  # pragma: no cover (the compiled versions below are used)


def _odd_chips(amount: Any, share: Any, winners: int) -> Any:
    """The chips a split leaves over (whole chips only)."""
    return 0  # pragma: no cover


@overload(_share, inline="always")
def _share_by_type(amount: Any, winners: Any) -> Callable[[Any, Any], Any]:
    def whole(amount: Any, winners: Any) -> Any:
        return amount // winners

    def divided(amount: Any, winners: Any) -> Any:
        return amount / winners

    return whole if isinstance(amount, types.Integer) else divided


@overload(_odd_chips, inline="always")
def _odd_chips_by_type(amount: Any, share: Any, winners: Any) -> Callable[[Any, Any, Any], Any]:
    def whole(amount: Any, share: Any, winners: Any) -> Any:
        return amount - share * winners

    def divided(amount: Any, share: Any, winners: Any) -> Any:
        return 0

    return whole if isinstance(amount, types.Integer) else divided


@njit(cache=True, inline="always")
def award_pots(final: np.ndarray, amounts: np.ndarray, eligible: np.ndarray, pots: int, value: np.ndarray,
               order: np.ndarray, count: int) -> None:
    """Each pot to its eligible seats with the largest hand ``value``, added to ``final``: split equally, and with
    whole chips the odd chips one each to the winners first in ``order`` (the seats in acting order)."""
    for p in range(pots):
        mask = eligible[p]
        best = -1
        for k in range(count):
            if (mask >> k) & 1 and (best < 0 or value[k] > best):
                best = value[k]
        winners = 0
        for k in range(count):
            if (mask >> k) & 1 and value[k] == best:
                winners += 1
        share = _share(amounts[p], winners)
        odd = _odd_chips(amounts[p], share, winners)
        for m in range(count):
            k = order[m]
            if (mask >> k) & 1 and value[k] == best:
                final[k] += share + (1 if odd > 0 else 0)
                odd -= 1


@njit(cache=True, inline="always")
def settle(final: np.ndarray, live: np.ndarray, count: int, in_hand: np.ndarray, dead_total: Any, value: np.ndarray,
           order: np.ndarray, amounts: np.ndarray, eligible: np.ndarray, refunds: np.ndarray) -> None:
    """The end of a hand: ``final`` (each seat's chips once its bets are in) plus its refund and its winnings
    (:func:`side_pots`, :func:`award_pots`; ``amounts``, ``eligible``, ``refunds``: scratch of ``count``)."""
    pots = side_pots(live, count, in_hand, dead_total, amounts, eligible, refunds)
    for k in range(count):
        final[k] += refunds[k]
    award_pots(final, amounts, eligible, pots, value, order, count)
