"""The table rules of push/fold: seats and positions, forced bets, side pots, and the stacks after a hand.

The one statement of the rules that the push/fold game (:mod:`pokerlab.games.pushfold.game`) and the tournament
simulator (:mod:`pokerlab.simulation.kernels`) both follow. Everyone posts first: the ante, then the small and
big blind; with a big-blind ante the big blind posts the blind, then the ante (live money before dead, so a big
blind too short for both keeps the most he can win from the callers). A stack that cannot cover its posts is
all-in by posting and takes no decision. Antes are dead money in the main pot; blinds and calls build side pots
by the usual levels, and money nobody can match goes back to its owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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
        """``(dead, live)`` chips each seat posts before any decision: antes (dead money) and blinds (live),
        each capped by what is left of the stack."""
        n = self.seats
        stacks = np.asarray(self.stacks, dtype=np.float64)
        dead = np.zeros(n)
        live = np.zeros(n)
        blinds = np.zeros(n)
        blinds[n - 2] = self.small_blind
        blinds[n - 1] = self.big_blind
        for i in range(n):
            if self.bb_ante > 0 and i == n - 1:
                live[i] = min(blinds[i], stacks[i])
                dead[i] = min(self.bb_ante, stacks[i] - live[i])
            else:
                dead[i] = min(self.ante, stacks[i])
                live[i] = min(blinds[i], stacks[i] - dead[i])
        return dead, live


def pots(contributions: np.ndarray, dead: np.ndarray, participants: Sequence[int]) -> tuple[list[float], list[int],
                                                                                             np.ndarray]:
    """Side pots: ``(amounts, eligible seat bitmasks, refunds)``. Live money (contributions minus antes) is cut at
    the participants' levels; antes join the main pot. The top participant's unmatched chips form a pot only it
    can win; chips of folded seats above every participant's level go back to them (``refunds``).

    >>> pots(np.array([10.0, 4.0, 1.0]), np.zeros(3), [0, 1])
    ([9.0, 6.0], [3, 1], array([0., 0., 0.]))
    """
    live = contributions - dead
    levels = sorted({float(live[j]) for j in participants})
    amounts, eligible = [], []
    previous = 0.0
    for k, level in enumerate(levels):
        amount = float(np.sum(np.minimum(live, level) - np.minimum(live, previous)))
        if k == 0:
            amount += float(dead.sum())
        mask = 0
        for j in participants:
            if live[j] >= level:
                mask |= 1 << j
        amounts.append(amount)
        eligible.append(mask)
        previous = level
    refunds = np.maximum(live - levels[-1], 0.0)
    return amounts, eligible, refunds


def final_stacks(stacks: np.ndarray, contributions: np.ndarray, amounts: Sequence[float], eligible: Sequence[int],
                 refunds: np.ndarray, winners: Sequence[Sequence[int]]) -> np.ndarray:
    """Stacks after the hand: each pot split equally among its ``winners[p]`` (a list of seats)."""
    final: np.ndarray = stacks - contributions + refunds
    for amount, won in zip(amounts, winners, strict=True):
        for seat in won:
            final[seat] += amount / len(won)
    return final


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
