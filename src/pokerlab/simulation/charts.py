"""Push/fold charts as arrays: jam and call probabilities per effective-stack bucket and preflop hand class.

A chart set is :class:`pokerlab.simulation.kernels.Charts`: ``jam[c, b, h]`` is the probability that a player
of chart ``c`` moves all in first in with hand class ``h`` at an effective stack in ``(b, b + 1]`` big blinds
(the last bucket covers everything deeper), ``call[c, b, h]`` the probability that he calls a jam.

Hand classes are :mod:`pokerlab.cards.classes`' indices (the grid order every engine uses).

:func:`top_share_chart` builds the "simple rules" charts: jam (or call) with the strongest ``x`` of all
1,326 hands, ``x`` depending on the stack depth, in the project's preflop order
(``pokerlab/data/preflop_order.json``: classes by all-in equity against a random hand), with a fractional
probability on the class at the boundary so the share is exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pokerlab.cards.classes import CLASS_SIZES, preflop_order
from pokerlab.errors import InvalidArgumentError
from pokerlab.simulation.kernels import CLASSES, Charts

MAX_BUCKETS = 100  # charts up to 100 big blinds deep; deeper stacks use the last bucket


def top_share(share: float) -> np.ndarray:
    """Probability per class of being among the strongest ``share`` (0..1) of all 1,326 hands.

    >>> from pokerlab.cards.classes import class_index
    >>> row = top_share(6 / 1326)  # exactly the six combos of aces
    >>> float(row[class_index('AA')]), round(float(row.sum()), 12)
    (1.0, 1.0)
    """
    combos = CLASS_SIZES
    target = min(max(share, 0.0), 1.0) * 1326.0
    row = np.zeros(CLASSES)
    taken = 0.0
    for h in preflop_order()[0]:
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
    >>> round(float((c.jam[0, 9] * CLASS_SIZES).sum() / 1326), 3)  # 10 bb
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
