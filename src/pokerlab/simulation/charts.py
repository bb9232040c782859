"""Push/fold charts as arrays: jam and call probabilities per effective-stack bucket and preflop hand class.

A chart set is :class:`pokerlab.simulation.kernels.Charts`: ``jam[c, b, h]`` is the probability that a player
of chart ``c`` moves all in first in with hand class ``h`` at an effective stack in ``(b, b + 1]`` big blinds
(the last bucket covers everything deeper), ``call[c, b, h]`` the probability that he calls a jam.

Hand classes are indexed ``13 * row + col`` over ranks 0..12 (2..A): pairs on the diagonal, suited hands at
(high rank, low rank), offsuit at (low rank, high rank) (:func:`class_index`, :func:`class_name`).

:func:`top_share_chart` builds the "simple rules" charts: jam (or call) with the strongest ``x`` of all
1,326 hands, ``x`` depending on the stack depth, in the project's preflop order
(``pokerlab/data/preflop_order.json``: classes by all-in equity against a random hand), with a fractional
probability on the class at the boundary so the share is exact.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib.resources import files

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.simulation.kernels import CLASSES, Charts

RANKS = "23456789TJQKA"
MAX_BUCKETS = 100  # charts up to 100 big blinds deep; deeper stacks use the last bucket


def class_index(name: str) -> int:
    """Index 0..168 of a class name such as ``'AA'``, ``'AKs'`` or ``'T9o'``.

    >>> class_index('AA'), class_index('AKs'), class_index('AKo')
    (168, 167, 155)
    """
    high, low = RANKS.index(name[0]), RANKS.index(name[1])
    if high < low:
        high, low = low, high
    if high == low:
        return 13 * high + high
    return 13 * high + low if name.endswith("s") else 13 * low + high


def class_name(index: int) -> str:
    """The name of class ``index`` (inverse of :func:`class_index`): ``class_name(167) == 'AKs'``."""
    row, col = divmod(index, 13)
    if row == col:
        return RANKS[row] * 2
    if row > col:
        return f"{RANKS[row]}{RANKS[col]}s"
    return f"{RANKS[col]}{RANKS[row]}o"


def class_combos() -> np.ndarray:
    """Combos per class (6 pairs, 4 suited, 12 offsuit): sums to 1,326."""
    combos = np.empty(CLASSES, dtype=np.int64)
    for h in range(CLASSES):
        row, col = divmod(h, 13)
        combos[h] = 6 if row == col else (4 if row > col else 12)
    return combos


@cache
def preflop_order() -> np.ndarray:
    """Class indices strongest first (all-in equity against one random hand)."""
    data = json.loads(files("pokerlab").joinpath("data/preflop_order.json").read_text(encoding="utf-8"))
    order = np.array([class_index(entry["class"]) for entry in data["classes"]], dtype=np.int64)
    order.setflags(write=False)
    return order


def top_share(share: float) -> np.ndarray:
    """Probability per class of being among the strongest ``share`` (0..1) of all 1,326 hands.

    >>> row = top_share(6 / 1326)  # exactly the six combos of aces
    >>> float(row[class_index('AA')]), round(float(row.sum()), 12)
    (1.0, 1.0)
    """
    combos = class_combos()
    target = min(max(share, 0.0), 1.0) * 1326.0
    row = np.zeros(CLASSES)
    taken = 0.0
    for h in preflop_order():
        if taken >= target:
            break
        part = min(1.0, (target - taken) / combos[h])
        row[h] = part
        taken += part * combos[h]
    return row


def top_share_chart(jam_share: Callable[[float], float], call_share: Callable[[float], float],
                    buckets: int = 50) -> Charts:
    """One chart of the simple rules: jam the top ``jam_share(d)`` of hands and call a jam with the top
    ``call_share(d)`` at effective depth ``d`` big blinds (the bucket's upper edge)."""
    jam = np.zeros((1, buckets, CLASSES))
    call = np.zeros((1, buckets, CLASSES))
    for b in range(buckets):
        depth = b + 1.0
        jam[0, b] = top_share(jam_share(depth))
        call[0, b] = top_share(call_share(depth))
    return Charts(jam, call)


def rules_chart(aggression: float = 1.0, buckets: int = 50) -> Charts:
    """The default simple-rules player: jams the top ``min(1, 2.5 * aggression / d)`` of hands at ``d`` big
    blinds (everything at 2.5 bb, 25% at 10 bb, 12.5% at 20 bb) and calls with half that share.

    >>> c = rules_chart()
    >>> round(float((c.jam[0, 9] * class_combos()).sum() / 1326), 3)  # 10 bb
    0.25
    """
    if not (0 < aggression <= 100):
        raise InvalidArgumentError(f"aggression must be in (0, 100], got {aggression}")
    return top_share_chart(lambda d: min(1.0, 2.5 * aggression / d), lambda d: min(1.0, 1.25 * aggression / d),
                           buckets)


def stack_charts(charts: list[Charts]) -> Charts:
    """Several one-chart sets as one set (chart ``c`` is the ``c``-th), padded to the deepest bucket count by
    repeating each chart's last bucket."""
    buckets = max(c.jam.shape[1] for c in charts)

    def pad(a: np.ndarray) -> np.ndarray:
        if a.shape[1] == buckets:
            return a
        return np.concatenate([a, np.repeat(a[:, -1:], buckets - a.shape[1], axis=1)], axis=1)

    return Charts(np.concatenate([pad(c.jam) for c in charts]), np.concatenate([pad(c.call) for c in charts]))


def validate_charts(charts: Charts) -> Charts:
    """Contiguous float arrays of equal shape ``(C, B, 169)`` with probabilities in [0, 1], or an error."""
    jam = np.ascontiguousarray(charts.jam, dtype=np.float64)
    call = np.ascontiguousarray(charts.call, dtype=np.float64)
    if jam.ndim != 3 or jam.shape[2] != CLASSES or jam.shape != call.shape or jam.shape[1] < 1:
        raise InvalidArgumentError(
            f"charts must be two arrays of shape (charts, buckets, 169), got {jam.shape} and {call.shape}"
        )
    if jam.shape[1] > MAX_BUCKETS:
        raise InvalidArgumentError(f"charts go at most {MAX_BUCKETS} big blinds deep, got {jam.shape[1]} buckets")
    for name, a in (("jam", jam), ("call", call)):
        if not np.all(np.isfinite(a)) or a.min() < 0 or a.max() > 1:
            raise InvalidArgumentError(f"{name} chart probabilities must be in [0, 1]")
    return Charts(jam, call)
