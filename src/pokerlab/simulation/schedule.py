"""Blind schedules: levels of (hands, small blind, big blind, ante), by hands played at a table.

A schedule file is JSON, ``{"big_blind_ante": false, "levels": [{"hands": 10, "small_blind": 50,
"big_blind": 100, "ante": 0}, ...]}``, or CSV with the header ``hands,small_blind,big_blind,ante`` (or
``...,big_blind_ante`` as the last column name: the big blind then pays one ante for the table). The last level
lasts until the end.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, ResourceLimitError, whole_number
from pokerlab.simulation.kernels import Schedule

MAX_LEVELS = 10_000
MAX_SCHEDULE_BYTES = 2_000_000  # MAX_LEVELS levels of JSON with generous spacing; a larger file is refused unread


def make_schedule(levels: Sequence[Sequence[float]], big_blind_ante: bool = False) -> Schedule:
    """A validated schedule from ``(hands, small_blind, big_blind, ante)`` rows.

    >>> make_schedule([(10, 50, 100, 0), (10, 100, 200, 25)]).big_blind.tolist()
    [100, 200]
    """
    if not levels:
        raise InvalidArgumentError("a blind schedule needs at least one level")
    if len(levels) > MAX_LEVELS:
        raise InvalidArgumentError(f"a blind schedule has at most {MAX_LEVELS:,} levels, got {len(levels):,}")
    rows = []
    for number, level in enumerate(levels, start=1):
        if len(level) != 4:
            raise InvalidArgumentError(f"level {number}: expected hands, small blind, big blind, ante")
        values = []
        for name, value in zip(("hands", "small blind", "big blind", "ante"), level, strict=True):
            values.append(whole_number(value, f"level {number}: {name}", low=0, high=2**53 - 1, floats=True))
        hands, small, big, ante = values
        if hands < 1:
            raise InvalidArgumentError(f"level {number}: a level lasts at least one hand, got {hands}")
        if big < 1:
            raise InvalidArgumentError(f"level {number}: the big blind must be at least 1 chip, got {big}")
        if small > big:
            raise InvalidArgumentError(f"level {number}: small blind {small} is larger than the big blind {big}")
        rows.append(values)
    a = np.array(rows, dtype=np.int64)
    return Schedule(a[:, 1].copy(), a[:, 2].copy(), a[:, 3].copy(), a[:, 0].copy(), bool(big_blind_ante))


def default_schedule(starting_stack: int, hands_per_level: int = 10, growth: float = 1.3,
                     levels: int = 40, depth: float = 100.0) -> Schedule:
    """Blinds from ``1 / depth`` of the starting stack (``depth`` big blinds), up ``growth`` times every
    ``hands_per_level`` hands, with a big blind ante equal to the big blind from the second level; the default
    (100 bb, 10 hands, x1.3) ends in a few hundred hands.

    >>> s = default_schedule(10_000)
    >>> s.big_blind[:4].tolist(), bool(s.big_blind_ante)
    ([100, 130, 170, 220], True)
    """
    rows = []
    big = max(2.0, starting_stack / depth)
    for level in range(levels):
        bb = int(_round_blind(big))
        rows.append((hands_per_level, bb // 2, bb, 0 if level == 0 else bb))
        big *= growth
    return make_schedule(rows, big_blind_ante=True)


class Structure(NamedTuple):
    """A named blind structure: the starting stack in big blinds, the hands (rounds at a table) of each level and
    the blinds' growth per level; every structure posts a big-blind ante of one big blind from its second level."""

    depth: float  # starting stack in big blinds
    hands_per_level: int
    growth: float  # the big blind's factor from one level to the next (before rounding to two digits)

    def levels(self) -> int:
        """Levels until the big blind is 1,000 starting stacks (the last one lasts to the end)."""
        return math.ceil(math.log(1000.0 * self.depth) / math.log(self.growth)) + 1


STRUCTURES = {
    "turbo": Structure(50.0, 6, 1.3),
    "regular": Structure(100.0, 12, 1.25),
    "deep": Structure(200.0, 20, 1.2),
}
"""Named structures (``--structure``). At about 60 hands an hour at a nine-handed table: ``turbo`` 50 bb and
6-minute levels, ``regular`` 100 bb and 12-minute levels, ``deep`` 200 bb and 20-minute levels. Without a
structure the simulator plays :func:`default_schedule` (100 bb, 10 hands, x1.3)."""


def structure_schedule(name: str, starting_stack: int) -> Schedule:
    """The schedule of structure ``name`` (:data:`STRUCTURES`) for a starting stack of ``starting_stack`` chips.

    >>> s = structure_schedule("deep", 10_000)
    >>> s.big_blind[:4].tolist(), int(s.hands[0]), s.ante[:2].tolist()
    ([50, 60, 72, 86], 20, [0, 60])
    >>> structure_schedule("hyper", 10_000)
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: unknown structure 'hyper'; use one of turbo, regular, deep
    """
    if name not in STRUCTURES:
        raise InvalidArgumentError(f"unknown structure {name!r}; use one of {', '.join(STRUCTURES)}")
    shape = STRUCTURES[name]
    return default_schedule(starting_stack, shape.hands_per_level, shape.growth, shape.levels(), shape.depth)


def _round_blind(x: float) -> float:
    """Two significant digits (blinds as casinos print them)."""
    digits = max(0, int(np.floor(np.log10(x))) - 1)
    return float(round(x / 10**digits) * 10**digits)


def schedule_to_dict(schedule: Schedule) -> dict[str, Any]:
    """The JSON form of a schedule (what :func:`load_schedule` reads)."""
    return {
        "big_blind_ante": bool(schedule.big_blind_ante),
        "levels": [
            {"hands": int(h), "small_blind": int(s), "big_blind": int(b), "ante": int(a)}
            for h, s, b, a in zip(schedule.hands, schedule.small_blind, schedule.big_blind, schedule.ante,
                                  strict=True)
        ],
    }


def load_schedule(path: str | Path) -> Schedule:
    """A schedule from a JSON or CSV file (see the module docs); a malformed file is a specific error."""
    from pokerlab.icm.lobby import read_text_file

    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # missing or unreadable: read_text_file says which
    if size > MAX_SCHEDULE_BYTES:
        raise ResourceLimitError(f"schedule file {path} has {size:,} bytes; a schedule of at most {MAX_LEVELS:,} "
                                 f"levels fits in {MAX_SCHEDULE_BYTES:,}: is it the right file?")
    text = read_text_file(path, "schedule file")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
            rows = [(lv["hands"], lv["small_blind"], lv["big_blind"], lv.get("ante", 0)) for lv in data["levels"]]
            bba = data.get("big_blind_ante", False)
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise FileFormatError(
                f"schedule file {path}: expected {{\"levels\": [{{\"hands\", \"small_blind\", \"big_blind\", "
                f"\"ante\"}}, ...]}} ({error})"
            ) from error
        if not isinstance(bba, bool):
            raise FileFormatError(f"schedule file {path}: big_blind_ante must be true or false")
        return make_schedule(rows, bba)
    lines = [row for row in csv.reader(text.splitlines()) if any(cell.strip() for cell in row)]
    if not lines:
        raise FileFormatError(f"schedule file {path} is empty")
    big_blind_ante = False
    if not lines[0][0].strip().lstrip("-").isdigit():
        header = [cell.strip().lower() for cell in lines[0]]
        big_blind_ante = len(header) == 4 and header[3] == "big_blind_ante"
        lines = lines[1:]
    levels: list[tuple[float, float, float, float]] = []
    for number, row in enumerate(lines, start=1):
        try:
            values = [float(cell) for cell in row]
        except ValueError as error:
            raise FileFormatError(f"schedule file {path}: row {number} is not numeric: {','.join(row)}") from error
        if len(values) not in (3, 4):
            raise FileFormatError(f"schedule file {path}: row {number} needs hands,small_blind,big_blind[,ante]")
        hands, small, big, *ante = values
        levels.append((hands, small, big, ante[0] if ante else 0.0))
    return make_schedule(levels, big_blind_ante)
