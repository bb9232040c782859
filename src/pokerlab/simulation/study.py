"""Predictions measured right: every model predicts each player's prize from a snapshot of stacks, and is
scored against the prizes that same tournament then paid.

One tournament gives one snapshot (its stacks when ``players_left`` are left) and one continuation (how it
ended): a model's squared error against the realised prizes is an unbiased score of that model on that
snapshot, since ``E[(m - X)^2] = (m - E)^2 + Var(X)`` and the variance is the same for every model. Every model
is scored on the same tournaments, so the difference of two models' scores on one tournament cancels its luck,
and the tournaments are independent: :func:`pokerlab.stats.paired.paired_comparisons` turns the per-snapshot
differences into intervals and Holm-adjusted p-values (the mean difference with the truth is
``E[sum_i (m_i - E_i)^2]`` over the snapshots, tested against an exact chain in ``tests/simulation``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, whole_number
from pokerlab.icm import icm
from pokerlab.icm.alternatives import chip_proportional, malmuth_weitzman
from pokerlab.provenance import sources_digest
from pokerlab.simulation.core import SimulationResult, simulate
from pokerlab.stats.paired import PairedComparison, paired_comparisons

#: ``model(stacks of the players still in, payouts for places 1..len(stacks))``: money per player.
Model = Callable[[np.ndarray, np.ndarray], np.ndarray]

STANDARD_MODELS: dict[str, Model] = {
    "icm": lambda stacks, pay: icm(stacks, pay).equity,
    "chip": lambda stacks, pay: chip_proportional(stacks, pay).equity,
    "malmuth-weitzman": lambda stacks, pay: malmuth_weitzman(stacks, pay, samples=20_000, seed=0).equity,
}


@dataclass(frozen=True)
class PredictionStudy:
    """Each model's score per snapshot (``scores[model][r]``: the squared error of its predictions against the
    prizes tournament ``r`` paid, summed over the players still in, in (% of the prizes still to pay)^2), and
    every model compared with ``baseline`` (negative means: closer than the baseline)."""

    players_left: int
    scores: dict[str, np.ndarray]
    baseline: str
    comparisons: list[PairedComparison]
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {"players_left": self.players_left, "snapshots": len(next(iter(self.scores.values()))),
                "seed": self.seed, "baseline": self.baseline,
                "mean_score": {name: float(values.mean()) for name, values in self.scores.items()},
                "comparisons": [c.to_dict() for c in self.comparisons]}


def snapshot_scores(result: SimulationResult, models: Mapping[str, Model], stage: int = 0) -> dict[str, np.ndarray]:
    """Every model's score on every tournament of ``result`` (simulated with ``records=True``) at its snapshot
    ``stage``: the predictions from the stacks then, against the prizes each player still in went on to win."""
    if result.records is None or result.records["snap_stacks"].shape[1] <= stage:
        raise InvalidArgumentError("scores need a simulation with records=True and a snapshot at that stage")
    places = result.records["places"]
    snaps = result.records["snap_stacks"][:, stage, :]
    payouts = result.tournament.payouts
    scores = {name: np.zeros(places.shape[0]) for name in models}
    for r in range(places.shape[0]):
        alive = snaps[r] > 0
        m = int(alive.sum())
        pay = np.zeros(m)
        pay[: min(m, payouts.size)] = payouts[:m]
        realised = np.zeros(m)
        finished = places[r, alive] - 1  # the players still in take places 1..m
        if np.any(finished >= m):
            raise AssertionError("a player still in at the snapshot finished below it")  # pragma: no cover
        inside = finished < pay.size
        realised[inside] = pay[finished[inside]]
        scale = 100.0 / pay.sum() if pay.sum() > 0 else 0.0
        stacks = snaps[r, alive].astype(np.float64)
        for name, model in models.items():
            scores[name][r] = float(np.sum((np.asarray(model(stacks, pay)) - realised) ** 2)) * scale**2
    return scores


def prediction_study(
    stacks: Any = None, payouts: Any = None, *, players_left: int, snapshots: int = 30,
    models: Mapping[str, Model] | None = None, baseline: str = "icm", confidence: float = 0.95,
    seed: int | None = None, workers: int | None = 0, **simulation: Any,
) -> PredictionStudy:
    """Play ``snapshots`` independent tournaments (``stacks``/``payouts`` and any other argument of
    :func:`pokerlab.simulation.simulate`, e.g. ``play``, ``players``, ``starting_stack``), take each one's
    stacks when ``players_left`` are left, score every model (default :data:`STANDARD_MODELS`) against the
    prizes that tournament then paid, and compare each model with ``baseline`` by paired differences, Holm-
    adjusted over the models.

    >>> study = prediction_study([5, 3, 2], [60, 40], players_left=3, snapshots=200, bet=1, seed=1)
    >>> [(c.model, c.separates) for c in study.comparisons]
    [('chip', False), ('malmuth-weitzman', False)]
    """
    chosen = dict(STANDARD_MODELS if models is None else models)
    if baseline not in chosen:
        raise InvalidArgumentError(f"baseline {baseline!r} is not among the models ({', '.join(chosen)})")
    players_left = whole_number(players_left, "players_left", low=2)
    snapshots = whole_number(snapshots, "snapshots", low=2)
    result = simulate(stacks, payouts, tournaments=snapshots, seed=seed, workers=workers,
                      snapshots=[players_left], records=True, **simulation)
    scores = snapshot_scores(result, chosen)
    return PredictionStudy(players_left, scores, baseline, paired_comparisons(scores, baseline,
                                                                             confidence=confidence), result.seed)


@dataclass(frozen=True)
class DecisionStudy:
    """Decisions scored in money: ``prizes[model][r]`` is the mean prize of the heroes (the players of ``model``,
    a ``hero_share`` of the field) in tournament ``r``, every model played on the same seeds (tournament ``r``
    seats the field and starts its random stream the same way for every model); ``comparisons``: each model
    minus ``baseline``, paired over the tournaments (positive: the model's heroes won more money)."""

    prizes: dict[str, np.ndarray]
    baseline: str
    field: str
    hero_share: float
    comparisons: list[PairedComparison]
    seed: int
    provenance: dict[str, Any]  # the simulator's code digest and each model's run's chart-set hash

    def to_dict(self) -> dict[str, Any]:
        return {"tournaments": len(next(iter(self.prizes.values()))), "seed": self.seed, "field": self.field,
                "hero_share": self.hero_share, "baseline": self.baseline, "provenance": self.provenance,
                "mean_prize": {name: float(values.mean()) for name, values in self.prizes.items()},
                "comparisons": [c.to_dict() for c in self.comparisons]}


def decision_study(
    stacks: Any = None, payouts: Any = None, *, models: tuple[str, ...] = ("chip-ev",), baseline: str = "icm",
    field: str = "pushfold", hero_share: float = 0.1, tournaments: int = 100, confidence: float = 0.95,
    seed: int | None = None, workers: int | None = 0, **simulation: Any,
) -> DecisionStudy:
    """Heroes deciding by each of ``models`` (play models of :func:`pokerlab.simulation.simulate`: ``icm``,
    ``chip-ev`` or a chart model other than ``field``) against heroes deciding by ``baseline``, in a field of
    ``field`` players, on the same ``tournaments`` seeds: the paired difference of the heroes' realised mean
    prize per tournament, with Student-t intervals Holm-adjusted over the models
    (:func:`pokerlab.stats.paired.paired_comparisons`). The heroes are the last ``hero_share`` of the players
    (the last seats of given ``stacks``). Common random numbers: tournament ``r`` deals the same cards to the
    same seats for every model until the heroes' decisions first differ (cards are dealt from the one stream).

    >>> study = decision_study([1000, 1000], [1.0], models=("icm",), baseline="chip-ev", hero_share=0.5,
    ...                        tournaments=20, seed=1)
    >>> [(c.model, c.mean, c.stderr) for c in study.comparisons]  # winner-take-all heads-up: the same decisions
    [('icm', 0.0, 0.0)]
    """
    names = list(dict.fromkeys([baseline, *models]))
    if not (isinstance(hero_share, int | float) and 0.0 < hero_share < 1.0):
        raise InvalidArgumentError(f"hero share must be a fraction of the field in (0, 1), got {hero_share!r}")
    if field in names:
        raise InvalidArgumentError(f"the heroes' models must differ from the field's ({field!r})")
    tournaments = whole_number(tournaments, "tournaments", low=2)
    prizes: dict[str, np.ndarray] = {}
    charts: dict[str, str] = {}
    used_seed = seed
    for name in names:
        play = f"{field}:{1.0 - hero_share!r},{name}:{hero_share!r}"
        result = simulate(stacks, payouts, play=play, tournaments=tournaments, seed=used_seed, workers=workers,
                          records=True, **simulation)
        used_seed = result.seed  # a drawn seed is kept for every model
        t = result.tournament
        charts[name] = t.describe()["charts"]
        heroes = t.field.model == 1
        if not heroes.any():
            raise InvalidArgumentError(f"a hero share of {hero_share:g} of {heroes.size} players is no player")
        pay = np.zeros(heroes.size + 1)
        pay[1: t.payouts.size + 1] = t.payouts
        records = result.records
        if records is None:
            raise AssertionError("simulate(records=True) kept no records")  # pragma: no cover
        prizes[name] = pay[records["places"][:, heroes]].mean(axis=1)
    provenance = {"code": sources_digest(["simulation", "icm", "games/pushfold", "pushfold"]), "charts": charts}
    return DecisionStudy(prizes, baseline, field, float(hero_share),
                         paired_comparisons(prizes, baseline, confidence=confidence), int(used_seed or 0), provenance)
