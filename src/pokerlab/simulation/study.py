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

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, optional_callback, whole_number
from pokerlab.icm import icm
from pokerlab.icm.alternatives import chip_proportional, malmuth_weitzman
from pokerlab.provenance import PACKAGE_ROOT, sources_digest
from pokerlab.simulation.core import (
    SIMULATOR_SOURCES,
    SimulationResult,
    check_mix,
    check_seed,
    parse_play,
    prepare,
    simulate,
)
from pokerlab.simulation.ring import chart_record
from pokerlab.stats.paired import PairedComparison, paired_comparisons
from pokerlab.stats.rng import fresh_seed, keyed_start

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


def source_commit() -> str | None:
    """The git commit of the checkout this package runs from (``+dirty`` when its tracked files differ from
    it), or None outside a git checkout: named in every study's JSON beside its seeds and hashes."""
    root = PACKAGE_ROOT.parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if dirty else head


STAGES = ("early", "bubble", "final")
"""Where the heroes start deciding: ``early`` the whole tournament from the first hand; ``bubble`` (the start
of the round, a hand at every table, in which the money is reached) and ``final`` (the final table) the
continuations of a field-only tournament's snapshot."""


@dataclass(frozen=True)
class DecisionStudy:
    """Decisions scored in money: ``prizes[model][r]`` is the mean prize of the heroes (the players of ``model``,
    a ``hero_share`` of the field) in replicate ``r``, every model played on the same seeds (tournament ``r``
    seats the field and starts its random stream the same way for every model); ``comparisons``: each model
    minus ``baseline``, paired over the replicates (positive: the model's heroes won more money). A replicate is
    one tournament (stage ``early``) or one snapshot's ``tournaments`` continuations (``bubble``, ``final``)."""

    prizes: dict[str, np.ndarray]
    baseline: str
    field: str
    hero_share: float
    comparisons: list[PairedComparison]
    seed: int
    provenance: dict[str, Any]  # git commit, the simulator's code digest and each model's runs' chart-set hashes
    stage: str = "early"
    tournaments: int = 0  # tournaments played per model (all replicates)
    structure: str | None = None  # the named blind structure (None: a given or the default schedule)
    depths: tuple[float, ...] = ()  # the average stack in big blinds where the heroes start, per start

    def to_dict(self) -> dict[str, Any]:
        return {"replicates": len(next(iter(self.prizes.values()))), "tournaments": self.tournaments,
                "stage": self.stage, "seed": self.seed, "field": self.field, "hero_share": self.hero_share,
                "structure": self.structure, "average_stack_bb": float(np.mean(self.depths)) if self.depths else None,
                "average_stack_bb_each": [float(d) for d in self.depths],
                "baseline": self.baseline, "provenance": self.provenance,
                "mean_prize": {name: float(values.mean()) for name, values in self.prizes.items()},
                "comparisons": [c.to_dict() for c in self.comparisons]}


def _hero_prizes(result: SimulationResult) -> np.ndarray:
    """Each tournament's mean prize of the heroes (the players of the field's last play model)."""
    t = result.tournament
    heroes = t.field.model == len(t.model_names) - 1
    pay = np.zeros(heroes.size + 1)
    pay[1: t.payouts.size + 1] = t.payouts
    records = result.records
    if records is None:
        raise AssertionError("simulate(records=True) kept no records")  # pragma: no cover
    prizes: np.ndarray = pay[records["places"][:, heroes]].mean(axis=1)
    return prizes


def decision_study(
    stacks: Any = None, payouts: Any = None, *, models: tuple[str, ...] = ("chip-ev",), baseline: str = "icm",
    field: str = "pushfold", hero_share: float = 0.1, tournaments: int = 100, stage: str = "early",
    snapshots: int = 10, confidence: float = 0.95, seed: int | None = None, workers: int | None = 0,
    ray: str | None = None, checkpoint: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None, **simulation: Any,
) -> DecisionStudy:
    """Heroes deciding by each of ``models`` (play models of :func:`pokerlab.simulation.simulate`: ``icm``,
    ``chip-ev``, ``power-icm@ALPHA``, ``harville@DISCOUNT``, ``malmuth-weitzman``, ``fgs@DEPTH`` or a chart model
    other than ``field``) against heroes deciding by ``baseline``, in a field of ``field`` players, on the same
    seeds: the paired difference of the heroes' realised mean prize per replicate, with Student-t intervals
    Holm-adjusted over the models (:func:`pokerlab.stats.paired.paired_comparisons`). The heroes are the last
    ``hero_share`` of the players (the last seats of given ``stacks``; seating is random). ``field`` may be a mix
    (``'fullring:0.6,icm:0.2,fullring-tight:0.2'``): the heroes take their share from every kind in proportion,
    and are counted apart from field players of their own model. Common random numbers: tournament
    ``r`` draws everything (seating, cards, the charts' mixing, tie-breaks) from one stream of the seed, so it
    deals the same cards to the same seats for every model until the heroes' decisions first differ.

    ``stage`` ``early``: ``tournaments`` whole tournaments, one replicate each. ``bubble`` / ``final``:
    ``snapshots`` field-only tournaments (``field`` everywhere) are played to that point; from each snapshot
    (its stacks and blind level) the heroes play ``tournaments`` continuations; a replicate is a snapshot (the
    heroes' mean prize over its continuations), so the interval holds over snapshots. ``ray``, ``checkpoint``
    (a directory: one sub-directory per snapshot and model, finished chunks kept, a rerun resumes exactly) and
    ``progress(done, total)`` (tournaments, over every model) as :func:`pokerlab.simulation.simulate`'s.

    >>> study = decision_study([1000, 1000], [1.0], models=("icm",), baseline="chip-ev", hero_share=0.5,
    ...                        tournaments=20, seed=1)
    >>> [(c.model, c.mean, c.stderr) for c in study.comparisons]  # winner-take-all heads-up: the same decisions
    [('icm', 0.0, 0.0)]
    """
    names = list(dict.fromkeys([baseline, *models]))
    if not (isinstance(hero_share, int | float) and 0.0 < hero_share < 1.0):
        raise InvalidArgumentError(f"hero share must be a fraction of the field in (0, 1), got {hero_share!r}")
    kinds = parse_play(field)
    if len(kinds) == 1 and kinds[0][0] in names:
        raise InvalidArgumentError(f"the heroes' models must differ from the field's ({field!r})")
    if stage not in STAGES:
        raise InvalidArgumentError(f"unknown stage {stage!r}; use one of {', '.join(STAGES)}")
    tournaments = whole_number(tournaments, "tournaments", low=1 if stage != "early" else 2)
    snapshots = whole_number(snapshots, "snapshots", low=2)
    optional_callback(progress, "progress", "(done, total)")
    seed = check_seed(seed)
    if seed is None:
        seed = fresh_seed()
    for name in names:
        check_mix(_play(kinds, name, hero_share))
    if stage == "early":
        starts = [(stacks, payouts, dict(simulation))]
        replicate_seeds = [seed]
        first = prepare(stacks=stacks, payouts=payouts, play=field, **simulation)
        depths = [float(first.field.stacks.mean() / first.schedule.big_blind[0])]
    else:
        starts, replicate_seeds, depths = _stage_starts(stacks, payouts, field, stage, snapshots, seed, workers, ray,
                                                None if checkpoint is None else Path(checkpoint) / "snapshots",
                                                simulation)
    for name in names:  # every model's field is valid, and holds a hero, before the heroes play
        model = prepare(stacks=starts[0][0], payouts=starts[0][1], play=_play(kinds, name, hero_share),
                        **starts[0][2]).field.model
        if not (model == len(kinds)).any():
            raise InvalidArgumentError(f"a hero share of {hero_share:g} of {model.size} players is no player")
    total = len(names) * len(starts) * tournaments
    done = 0
    prizes: dict[str, list[np.ndarray]] = {name: [] for name in names}
    charts: dict[str, str] = {}
    ring_uses: dict[str, np.ndarray] = {}
    ring_file = None
    for k, ((chips, pay, rest), start_seed) in enumerate(zip(starts, replicate_seeds, strict=True)):
        for name in names:
            folder = None if checkpoint is None else Path(checkpoint) / (f"snapshot-{k}" if stage != "early"
                                                                        else ".") / name
            base = done

            def tick(finished: int, _: int, base: int = base) -> None:
                if progress is not None:
                    progress(base + finished, total)

            result = simulate(chips, pay, play=_play(kinds, name, hero_share), tournaments=tournaments,
                              seed=start_seed, workers=workers, ray=ray, checkpoint=folder, records=True,
                              progress=tick, **rest)
            done += tournaments
            charts[name] = result.tournament.describe()["charts"]
            if result.chart_uses is not None and result.tournament.ring_file is not None:
                ring_file = result.tournament.ring_file
                ring_uses[name] = ring_uses.get(name, 0) + result.chart_uses
            won = _hero_prizes(result)
            prizes[name].append(won if stage == "early" else np.array([won.mean()]))
    joined = {name: np.concatenate(values) for name, values in prizes.items()}
    provenance: dict[str, Any] = {"commit": source_commit(), "code": sources_digest([*SIMULATOR_SOURCES, "pushfold"]),
                                  "charts": charts}
    if ring_file is not None:  # the full-ring chart file's hash and, per model's runs, every spot used
        provenance["fullring_charts"] = {name: chart_record(ring_file, uses) for name, uses in ring_uses.items()}
    structure = simulation.get("structure")
    return DecisionStudy(joined, baseline, field, float(hero_share),
                         paired_comparisons(joined, baseline, confidence=confidence), int(seed), provenance, stage,
                         len(starts) * tournaments, structure if isinstance(structure, str) else None, tuple(depths))


def _play(kinds: list[tuple[str, float]], hero: str, share: float) -> list[tuple[str, float]]:
    """The field's kinds, each giving up ``share`` of its players, and the heroes last (their own group)."""
    return [*((name, part * (1.0 - share)) for name, part in kinds), (hero, share)]


def average_depth(stacks: np.ndarray, big_blind: float) -> float:
    """The average stack of the players still in (``stacks > 0``), in big blinds.

    >>> average_depth(np.array([3000, 0, 1000]), 100)
    20.0
    """
    alive = stacks[stacks > 0]
    return float(alive.mean() / big_blind)


def _stage_starts(stacks: Any, payouts: Any, field: str, stage: str, snapshots: int, seed: int,
                  workers: int | None, ray: str | None, checkpoint: Path | None,
                  simulation: dict[str, Any]) -> tuple[list[tuple[Any, Any, dict[str, Any]]], list[int], list[float]]:
    """The stacks, the payouts of the places still open and the blind level of ``snapshots`` field-only
    tournaments at ``stage`` (each continuation keeps the field's schedule and table size), a seed for each
    one's continuations and each snapshot's average stack in big blinds."""
    played = simulate(stacks, payouts, play=field, tournaments=snapshots, seed=seed, workers=workers, ray=ray,
                      checkpoint=checkpoint, snapshots=[stage], records=True, **simulation)
    records = played.records
    if records is None:
        raise AssertionError("simulate(records=True) kept no records")  # pragma: no cover
    t = played.tournament
    rest = {key: value for key, value in simulation.items() if key not in (
        "players", "starting_stack", "start_level", "table_size", "schedule", "names", "structure")}
    starts = []
    seeds = []
    depths = []
    for r in range(snapshots):
        chips = records["snap_stacks"][r, 0]
        chips = chips[chips > 0]
        if chips.size < 2:
            raise InvalidArgumentError(f"snapshot {r} at the {stage} has {chips.size} player left: nothing to decide")
        starts.append((chips, t.payouts[: chips.size], {**rest, "schedule": t.schedule,
                                                         "table_size": t.field.table_size,
                                                         "start_level": int(records["snap_info"][r, 0, 1])}))
        seeds.append(int(keyed_start(np.uint64(seed), np.uint64(r + 1))) >> 1)  # the kernels take 63 bits
        depths.append(average_depth(chips, float(t.schedule.big_blind[int(records["snap_info"][r, 0, 1])])))
    return starts, seeds, depths
