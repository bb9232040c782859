"""The checks of a push/fold request that need no game: the table's numbers (stacks, blinds, antes) and the prizes
(payouts and a field), in plain numpy, so that a request is checked (by the façade, the web server's precheck)
and a heads-up table solved (:mod:`pokerlab.pushfold.headsup`) without loading the compiled game.

>>> checked_table([10, 10], [0.5, 1.0], 0.0, 0.0)
TableRequest(stacks=(10.0, 10.0), small_blind=0.5, big_blind=1.0, ante=0.0, bb_ante=0.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from pokerlab.errors import InvalidArgumentError, InvalidPayoutsError, InvalidStacksError

MAX_SEATS = 10
"""The most seats at a push/fold table (the table rules' :data:`pokerlab.games.pushfold.MAX_SEATS`; a test holds
them equal)."""


class TableRequest(NamedTuple):
    """A checked table in chips, the fields of :class:`pokerlab.games.pushfold.Table` in its order (``Table(*request)``
    builds it): stacks in acting order, the blinds, an ante per seat or a big-blind ante."""

    stacks: tuple[float, ...]
    small_blind: float
    big_blind: float
    ante: float = 0.0
    bb_ante: float = 0.0

    @property
    def seats(self) -> int:
        return len(self.stacks)


def _numbers(values: Any, what: str, error: type[Exception]) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise error(f"{what} must be numbers: {exc}") from exc
    if not np.all(np.isfinite(array)):
        raise error(f"{what} must be finite numbers")
    return array


def checked_table(stacks: Any, blinds: Sequence[float], ante: float, bb_ante: float) -> TableRequest:
    """The table's numbers, or the specific error saying what is wrong."""
    s = _numbers(stacks, "stacks", InvalidStacksError)
    if not 2 <= s.size <= MAX_SEATS:
        raise InvalidStacksError(f"push/fold needs 2 to {MAX_SEATS} seats, got {s.size} stacks")
    if np.any(s <= 0):
        raise InvalidStacksError(f"stacks must be positive, seat {int(np.flatnonzero(s <= 0)[0]) + 1} has "
                                 f"{s[s <= 0][0]:g}")
    b = _numbers(blinds, "blinds", InvalidArgumentError)
    if b.size != 2:
        raise InvalidArgumentError(f"give two blinds (small, big), e.g. 0.5,1; got {b.size}")
    if np.any(b <= 0):
        raise InvalidArgumentError(f"blinds must be positive, got {b[0]:g},{b[1]:g}")
    if b[0] > b[1]:
        raise InvalidArgumentError(f"the small blind ({b[0]:g}) is larger than the big blind ({b[1]:g})")
    for value, name in ((ante, "ante"), (bb_ante, "big-blind ante")):
        if not (math.isfinite(value) and value >= 0):
            raise InvalidArgumentError(f"the {name} must be a number >= 0, got {value}")
    if ante > 0 and bb_ante > 0:
        raise InvalidArgumentError("give an ante per player or a big-blind ante, not both")
    return TableRequest(tuple(float(x) for x in s), float(b[0]), float(b[1]), float(ante), float(bb_ante))


def checked_prizes(seats: int, payouts: Any, field: Any) -> tuple[np.ndarray | None, np.ndarray]:
    """``(payouts or None, field stacks)`` as arrays, or the specific error: payouts that the ICM refuses (a
    typo, or places listed last first) or more paid places than players, a field without payouts (the checks
    :func:`pokerlab.pushfold.situation.build_game` makes first, for a caller that checks a request without
    building its game).

    >>> checked_prizes(2, [70, 30], [5.0])[0].tolist()
    [70.0, 30.0]
    """
    field_stacks = np.zeros(0) if field is None else _numbers(field, "field stacks", InvalidStacksError)
    if field_stacks.size and np.any(field_stacks <= 0):
        raise InvalidStacksError("field stacks must be positive")
    if field_stacks.size and payouts is None:
        raise InvalidArgumentError("a field only matters for ICM: give the payouts too")
    if payouts is None:
        return None, field_stacks
    pay = _numbers(payouts, "payouts", InvalidPayoutsError)
    players = seats + field_stacks.size
    if pay.size == 0:
        raise InvalidPayoutsError("no payouts: give at least one paid place")
    if np.any(pay < 0):
        raise InvalidPayoutsError("payouts must be >= 0")
    if np.any(np.diff(pay) > 0):
        place = int(np.flatnonzero(np.diff(pay) > 0)[0]) + 2
        raise InvalidPayoutsError(f"place {place} pays {pay[place - 1]:g}, more than place {place - 1} "
                                  f"({pay[place - 2]:g}): list payouts from first place down")
    if pay.size > players:
        raise InvalidPayoutsError(f"{pay.size} payouts for {players} players in the tournament: there are more paid "
                                  "places than players")
    return pay, field_stacks
