"""Claims that are statistics: models compared by paired differences over independent replicates, with the
family's multiplicity corrected, and a fitted parameter judged out of sample.

A study scores every model on the same replicates (common random numbers: the same snapshots, the same deals),
so the difference of two models on one replicate cancels what the replicate shares, and the replicates are
independent. :func:`paired_comparisons` gives each model's mean difference with a baseline, its Student-t
interval and p-value, and Holm's step-down adjustment over the whole family (the chance that any "separates"
is a false alarm stays at most ``1 - confidence``). :func:`leave_one_out` fits a parameter on every
configuration but one and scores it on the one left out, so a fitted model is judged where it was not fitted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from pokerlab.errors import InvalidArgumentError

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True)
class PairedComparison:
    """``model`` minus ``baseline`` over ``replicates`` paired replicates: the mean difference, its standard
    error, a two-sided ``confidence`` interval (Student t), the p-value of "no difference" and its Holm
    adjustment over the family it was computed with. ``separates``: the adjusted p-value is below
    ``1 - confidence``."""

    model: str
    baseline: str
    replicates: int
    mean: float
    stderr: float
    low: float
    high: float
    p_value: float
    p_holm: float
    confidence: float

    @property
    def separates(self) -> bool:
        return self.p_holm < 1.0 - self.confidence

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "separates": self.separates}


def paired_comparisons(scores: Mapping[str, Sequence[float] | np.ndarray], baseline: str, *,
                       confidence: float = 0.95) -> list[PairedComparison]:
    """Each model of ``scores`` (name -> one score per replicate, the same replicates in the same order for every
    model) against ``baseline``, Holm-adjusted over the family of all the comparisons returned.

    >>> scores = {"icm": [1.0, 2.0, 3.0, 4.0], "chip": [1.5, 2.4, 3.6, 4.5], "same": [1.0, 2.0, 3.0, 4.0]}
    >>> [(c.model, round(c.mean, 3), c.separates) for c in paired_comparisons(scores, "icm")]
    [('chip', 0.5, True), ('same', 0.0, False)]
    """
    from scipy.stats import t as student

    if not 0.0 < confidence < 1.0:
        raise InvalidArgumentError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if baseline not in scores:
        raise InvalidArgumentError(f"baseline {baseline!r} is not among the models ({', '.join(scores)})")
    base = np.asarray(scores[baseline], dtype=np.float64)
    if base.ndim != 1 or base.size < 2 or not np.all(np.isfinite(base)):
        raise InvalidArgumentError(f"paired comparisons need at least 2 finite scores per model, got {base.size}")
    rows = []
    for name, values in scores.items():
        if name == baseline:
            continue
        diff = np.asarray(values, dtype=np.float64) - base if len(values) == base.size else None
        if diff is None or not np.all(np.isfinite(diff)):
            raise InvalidArgumentError(f"model {name!r}: {len(values)} scores where {baseline!r} has {base.size}, "
                                       "or some are not finite; pair every model on the same replicates")
        n = diff.size
        mean = float(diff.mean())
        stderr = float(diff.std(ddof=1) / np.sqrt(n))
        half = float(student.ppf(0.5 + confidence / 2.0, n - 1)) * stderr
        # a zero standard error: every replicate gave the same difference, none or a certain one
        p = float(2.0 * student.sf(abs(mean) / stderr, n - 1)) if stderr > 0 else float(mean == 0)
        rows.append((name, n, mean, stderr, mean - half, mean + half, p))
    adjusted = holm([row[6] for row in rows])
    return [PairedComparison(name, baseline, n, mean, stderr, low, high, p, q, confidence)
            for (name, n, mean, stderr, low, high, p), q in zip(rows, adjusted, strict=True)]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (in the order given): the smallest p times m, the next times m - 1,
    ..., each at least the one before it, at most 1.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def leave_one_out(configurations: Sequence[T], fit: Callable[[Sequence[T]], P],
                  score: Callable[[P, T], float]) -> list[tuple[P, float]]:
    """For each configuration: the parameter ``fit`` finds on all the others, and ``score(parameter, the one
    left out)``; a model fitted per configuration (a power-ICM exponent) is judged only where it was not fitted.

    >>> leave_one_out([1.0, 2.0, 6.0], lambda xs: sum(xs) / len(xs), lambda m, x: abs(m - x))
    [(4.0, 3.0), (3.5, 1.5), (1.5, 4.5)]
    """
    if len(configurations) < 2:
        raise InvalidArgumentError("leave-one-out needs at least 2 configurations")
    out = []
    for i, left_out in enumerate(configurations):
        parameter = fit([c for j, c in enumerate(configurations) if j != i])
        out.append((parameter, float(score(parameter, left_out))))
    return out
