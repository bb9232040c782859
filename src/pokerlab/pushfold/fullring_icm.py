"""Full-ring ICM charts: equal-stack final tables and bubbles, solved in the ICM chart model and shipped.

A spot is (seats, depth, stage): ``seats`` (3-10) equal stacks of ``depth`` big blinds, blinds 0.5/1, no ante,
and the payouts of the stage (:func:`stage_payouts`): ``final`` pays every seat (:data:`FINAL_TABLE_PAYOUTS`,
percent of the prize pool), ``bubble`` one seat fewer (the final-table payouts of ``seats - 1``; three seats:
65/35). Each seat's payoff is its ICM prize equity after the hand (:func:`icm_payoff`), the game
:class:`~pokerlab.games.pushfold.joint_icm.IcmJointPotGame` (the chart model with the seats out of a two-way pot
valued per outcome), solved by the chip-EV charts' loop (discounted CFR from a sparse start, the best of the
trimmed average and the current strategy kept) to :func:`money_target` money. Values and gains are money (the
pool is 100); gains are exact best responses in the model.

The file (``data/fullring_icm_charts.npz``, built by ``scripts/build_fullring_icm_charts.py``) has the chip-EV
file's arrays (:mod:`pokerlab.pushfold.fullring_charts`) with a fourth key column, the stage (0: final, 1:
bubble), and a header naming the payouts; it is keyed on :func:`code_version` (the chip-EV charts' sources and
this model's) and its content hash, and refused when either differs.

>>> spot = solve_icm_spot(3, 10.0, "final", target=0.05)
>>> spot.max_gain <= 0.05, round(sum(spot.values), 9)
(True, 100.0)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games.pushfold import Table
from pokerlab.games.pushfold.joint_icm import IcmJointPotGame
from pokerlab.games.vector import compile_public_tree
from pokerlab.icm.subset import icm_subset
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fullring import CHART_TARGET, MAX_ITERATIONS, ChartSpot, chart_arrays, starting_profile, trimmed
from pokerlab.pushfold.fullring_charts import (
    MAX_SEATS,
    MODEL_SOURCES,
    NO_DECISION,
    ChartFile,
    ChartVersionError,
    FullRingTable,
    _content_hash,
    full_ring_table,
    quantise,
)
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains, vector_node_values

ICM_FORMAT = "pokerlab-fullring-icm-charts-v1"
ICM_CHART_FILE = Path(__file__).resolve().parent.parent / "data" / "fullring_icm_charts.npz"
ICM_SOURCES = ("games/pushfold/joint_icm.py", "pushfold/fullring_icm.py", "icm/subset.py")
"""The ICM model's sources, keyed with the chip-EV charts' :data:`MODEL_SOURCES`."""
STAGES = ("final", "bubble")
POOL = 100.0
FINAL_TABLE_PAYOUTS: dict[int, tuple[float, ...]] = {
    2: (65.0, 35.0),
    3: (50.0, 30.0, 20.0),
    4: (40.0, 28.0, 19.0, 13.0),
    5: (35.0, 25.0, 17.0, 13.0, 10.0),
    6: (32.0, 22.0, 16.0, 12.0, 10.0, 8.0),
    7: (30.0, 20.0, 15.0, 11.0, 9.0, 8.0, 7.0),
    8: (28.0, 19.0, 14.0, 11.0, 9.0, 7.0, 6.0, 6.0),
    9: (26.0, 18.0, 13.0, 10.0, 9.0, 7.0, 6.0, 6.0, 5.0),
    10: (25.0, 17.0, 12.0, 10.0, 8.0, 7.0, 6.0, 5.0, 5.0, 5.0),
}
"""Percent of the prize pool per place when ``seats`` players are left and all are paid (a final table's share
of a tournament's pool, renormalised; the two and three seat rows are the sit-and-go standards)."""


def code_version() -> str:
    """The digest of the chip-EV chart model's sources and the ICM model's (16 hex digits)."""
    return sources_digest(MODEL_SOURCES + ICM_SOURCES)


def stage_payouts(seats: int, stage: str) -> tuple[float, ...]:
    """The payouts (percent of the pool, first place first) of a ``stage`` spot of ``seats`` seats.

    >>> stage_payouts(4, "bubble")
    (50.0, 30.0, 20.0)
    """
    seats, stage = check_icm_spot(seats, 10.0, stage)[0::2]  # type: ignore[assignment]
    return FINAL_TABLE_PAYOUTS[seats if stage == "final" else seats - 1]


def check_icm_spot(seats: object, depth_bb: object, stage: object) -> tuple[int, float, str]:
    """``(seats, depth, stage)`` checked: 3-10 seats, a depth above 1 bb and at most 1,000 bb, a stage of
    :data:`STAGES`; else :class:`~pokerlab.errors.InvalidArgumentError`."""
    if not isinstance(seats, int | np.integer) or isinstance(seats, bool) or not 3 <= int(seats) <= MAX_SEATS:
        raise InvalidArgumentError(f"full-ring ICM charts have 3 to 10 seats (heads-up ICM is chip EV), got {seats!r}")
    if stage not in STAGES:
        raise InvalidArgumentError(f"ICM chart stage must be 'final' (every seat paid) or 'bubble' (one seat "
                                   f"fewer paid), got {stage!r}")
    try:
        depth = float(depth_bb)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"depth must be a number of big blinds, got {depth_bb!r}") from None
    if not np.isfinite(depth) or not 1.0 < depth <= 1000:
        raise InvalidArgumentError(f"depth {depth_bb} bb: the chart model needs more than 1 bb (every seat covers "
                                   "its blind) and at most 1000 bb")
    return int(seats), depth, str(stage)


def icm_payoff(stacks: np.ndarray, payouts: Iterable[float]) -> Callable[[np.ndarray], np.ndarray]:
    """Each seat's ICM prize equity after the hand from its final stack (the payoff of a chart spot): busted
    seats take the last places (bigger stacks before the hand first, equal ones sharing), the others share the
    rest by ICM (:func:`~pokerlab.icm.subset.icm_subset`).

    >>> pay = icm_payoff(np.full(3, 10.0), (50.0, 30.0, 20.0))
    >>> pay(np.array([20.0, 0.0, 10.0])).round(4).tolist(), pay(np.array([30.0, 0.0, 0.0])).tolist()
    ([33.3333, 20.0, 46.6667], [50.0, 25.0, 25.0])
    """
    paid_all = np.zeros(stacks.size)
    paid = np.asarray(tuple(payouts), dtype=np.float64)
    paid_all[: paid.size] = paid
    scale = float(stacks.sum())

    def payoff(final: np.ndarray) -> np.ndarray:
        busted = np.flatnonzero(final <= 1e-12 * scale)
        alive = np.flatnonzero(final > 1e-12 * scale)
        equity = np.zeros(final.size)
        place = stacks.size - busted.size
        starts = stacks[busted]
        for value in sorted(set(starts.tolist()), reverse=True):
            group = busted[starts == value]
            equity[group] = paid_all[place: place + group.size].mean()
            place += group.size
        k = int(np.count_nonzero(paid_all[: alive.size]))
        if alive.size == 1:
            equity[alive] = paid_all[0]
        elif k > 0:
            equity[alive] = icm_subset(final[alive] / final[alive].mean(), k) @ paid_all[:k]
        return equity

    return payoff


def money_target(seats: int, depth_bb: float, target_bb: float = CHART_TARGET) -> float:
    """The money a spot is solved to: ``target_bb`` at the pool's average value of a big blind (``POOL`` over
    the chips in play), as :func:`pokerlab.pushfold.pushfold` converts its target under ICM.

    >>> round(money_target(6, 10.0), 6)
    0.003333
    """
    return target_bb * POOL / (seats * depth_bb)


def icm_spot_game(seats: int, depth_bb: float, stage: str) -> IcmJointPotGame:
    """The ICM chart model's game of a spot: each seat's payoff is the change of its ICM equity in the hand
    (money, the pool 100; :func:`icm_payoff` after minus before). In the chart model a seat's hands that fold are
    ignored where the others' in a pot are dealt jointly, so the reach over a seat's terminals need not sum to
    one and a constant added to a payoff is not neutral: the change, zero-sum on every outcome as the chip-EV
    charts' change of stack, makes the values sum to the pool exactly (a payoff of the equity itself would add
    the pool times that reach error: +0.13 at three seats, +12.7 at six, measured)."""
    seats, depth, stage = check_icm_spot(seats, depth_bb, stage)
    stacks = np.full(seats, depth)
    equity = icm_payoff(stacks, stage_payouts(seats, stage))
    before = equity(stacks)

    def change(final: np.ndarray) -> np.ndarray:
        return equity(final) - before

    return IcmJointPotGame(Table(tuple(float(s) for s in stacks), 0.5, 1.0), change)


def solve_icm_spot(seats: int, depth_bb: float, stage: str = "final", *, target: float | None = None,
                   max_iterations: int = MAX_ITERATIONS,
                   progress: Callable[[int, float], None] | None = None) -> ChartSpot:
    """Solve one ICM spot (see the module docstring) until every seat's exact best-response gain in the model is
    at most ``target`` money (default :func:`money_target`) or ``max_iterations``; the loop of
    :func:`pokerlab.pushfold.fullring.solve_spot` (checks after 16 iterations, then every quarter of those done).
    The result's ``ante`` is ``none``, its ``values`` (each seat's ICM equity: the pool's share before the hand
    plus the change) and ``gains`` money."""
    seats, depth_bb, stage = check_icm_spot(seats, depth_bb, stage)
    target = money_target(seats, depth_bb) if target is None else float(target)
    cpu = time.process_time()
    game = icm_spot_game(seats, depth_bb, stage)
    tree = compile_public_tree(game)
    solver = VectorSolver(tree, "dcfr")
    start = starting_profile(game.equity.class_size)
    current = VectorStrategy(tree, solver.offsets, solver.sigma)
    for node in tree.decision_nodes():
        current.block(int(node))[:, 1] = start
        current.block(int(node))[:, 0] = 1.0 - start
    best: tuple[float, VectorStrategy, tuple[float, ...]] | None = None
    check_every = 16
    while True:
        solver.iterate(min(check_every, max_iterations - solver.iteration))
        for candidate in (trimmed(solver.average_strategy()), solver.current_strategy()):
            gains = tuple(float(g) for g in best_response_gains(tree, candidate).gains)
            if best is None or max(gains) < best[0]:
                best = (max(gains), candidate, gains)
        assert best is not None
        if progress is not None:
            progress(solver.iteration, best[0])
        if best[0] <= target or solver.iteration >= max_iterations:
            break
        check_every = max(16, solver.iteration // 4)
    _, strategy, gains = best
    jam, call = chart_arrays(tree, strategy)
    before = POOL / seats  # every stack equal
    values = tuple(before + float(vector_node_values(tree, strategy, p)[0] @ tree.weights[p]) for p in range(seats))
    return ChartSpot(seats, depth_bb, "none", jam, call, gains, values, solver.iteration,
                     time.process_time() - cpu, strategy)


ARRAYS = ("key", "jam", "call", "gains", "values", "iterations", "cpu_s")


def write_icm_charts(spots: Iterable[tuple[str, ChartSpot]], path: Path = ICM_CHART_FILE) -> dict[str, Any]:
    """Write ``(stage, spot)`` pairs as an ICM chart file (atomically, compressed) and return its header."""
    ordered = sorted(spots, key=lambda s: (STAGES.index(s[0]), s[1].seats, s[1].depth_bb))
    count = len(ordered)
    key = np.zeros((count, 4), dtype=np.float64)
    jam = np.full((count, MAX_SEATS, NUMBER_OF_CLASSES), NO_DECISION, dtype=np.uint8)
    call = np.full((count, MAX_SEATS, MAX_SEATS, NUMBER_OF_CLASSES), NO_DECISION, dtype=np.uint8)
    gains = np.zeros((count, MAX_SEATS), dtype=np.float32)
    values = np.zeros((count, MAX_SEATS), dtype=np.float32)
    iterations = np.zeros(count, dtype=np.int32)
    cpu = np.zeros(count, dtype=np.float32)
    for i, (stage, spot) in enumerate(ordered):
        n = spot.seats
        key[i] = (n, spot.depth_bb, 0, STAGES.index(stage))
        jam[i, :n] = quantise(spot.jam)
        call[i, :n, :n] = quantise(spot.call)
        gains[i, :n] = spot.gains
        values[i, :n] = spot.values
        iterations[i] = spot.iterations
        cpu[i] = spot.cpu_s
    arrays: dict[str, np.ndarray] = {"key": key, "jam": jam, "call": call, "gains": gains, "values": values,
                                     "iterations": iterations, "cpu_s": cpu}
    header = {"format": ICM_FORMAT, "code_version": code_version(), "content_sha256": _content_hash(arrays),
              "target": f"{CHART_TARGET} bb at the pool's average value of a big blind (pool / chips in play)",
              "pool": POOL, "units": "money (the prize pool is 100)", "spots": count,
              "payouts": {"final": {str(n): list(FINAL_TABLE_PAYOUTS[n]) for n in range(3, MAX_SEATS + 1)},
                          "bubble": {str(n): list(FINAL_TABLE_PAYOUTS[n - 1]) for n in range(3, MAX_SEATS + 1)}},
              "key_columns": ["seats", "depth_bb", "ante (0: none)", "stage (0: final, 1: bubble)"],
              "model": "ICM (equal stacks, blinds 0.5/1, no ante); card removal joint among the players in the pot, "
                       "folded hands ignored; seats out of a two-way pot valued per outcome (exact); 3+ way pots "
                       "from the sampled tables, ties broken by a random seat priority"}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(temporary, header=np.array(json.dumps(header, sort_keys=True)), **arrays)  # type: ignore[arg-type]
    temporary.replace(path)
    return header


def read_icm_charts(path: Path = ICM_CHART_FILE) -> ChartFile:
    """Read an ICM chart file (its ``key`` has the stage column); :class:`ChartVersionError` if it is of another
    format or code version or its content hash does not match, :class:`~pokerlab.errors.FileFormatError` if it
    cannot be read."""
    rebuild = "rebuild it with scripts/build_fullring_icm_charts.py"
    try:
        with np.load(path) as stored:
            header = json.loads(str(stored["header"]))
            arrays = {name: stored[name] for name in ARRAYS}
    except (OSError, KeyError, ValueError) as error:
        raise FileFormatError(f"cannot read the full-ring ICM chart file {path}: {error}") from None
    if header.get("format") != ICM_FORMAT:
        raise ChartVersionError(f"{path} is a chart file of format {header.get('format')!r}, this pokerlab reads "
                                f"{ICM_FORMAT!r}: {rebuild}")
    if header.get("code_version") != code_version():
        raise ChartVersionError(f"{path} was built by ICM chart code {header.get('code_version')}, this "
                                f"pokerlab's is {code_version()}: {rebuild}")
    if header.get("content_sha256") != _content_hash(arrays):
        raise ChartVersionError(f"{path}: its content hash does not match its header (a damaged or edited file): "
                                f"{rebuild}")
    return ChartFile(header, **arrays)


@lru_cache(maxsize=1)
def shipped_icm_charts() -> ChartFile:
    """The package's ICM chart file, read and checked once per process."""
    return read_icm_charts(ICM_CHART_FILE)


def stage_charts(stage: str, charts: ChartFile | None = None) -> ChartFile:
    """The spots of one stage as a chip-EV-shaped chart file (key columns seats, depth, ante), for the readers of
    :mod:`pokerlab.pushfold.fullring_charts`."""
    charts = charts if charts is not None else shipped_icm_charts()
    rows = charts.key[:, 3] == STAGES.index(stage)
    return ChartFile(charts.header, charts.key[rows, :3], *(getattr(charts, name)[rows] for name in ARRAYS[1:]))


@dataclass(frozen=True)
class IcmRingTable:
    """Shipped ICM charts of one seat count and stage over several depths: ``table`` (a
    :class:`~pokerlab.pushfold.fullring_charts.FullRingTable`: its gains and values are money), the stage and
    its payouts."""

    table: FullRingTable
    stage: str
    payouts: tuple[float, ...]
    header: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        out = self.table.to_dict()
        for chart in out["charts"]:
            chart["gains_money"] = chart.pop("gains_bb")
            chart["values_money"] = chart.pop("values_bb")
        return out | {"model": dict(self.header), "stage": self.stage, "payouts": list(self.payouts)}


def icm_ring_table(seats: int, stage: str, depths: Iterable[float], charts: ChartFile | None = None
                   ) -> IcmRingTable:
    """The shipped ICM charts of ``seats`` seats at ``stage`` nearest to each of ``depths`` (see
    :func:`~pokerlab.pushfold.fullring_charts.full_ring_table`); :class:`~pokerlab.errors.InvalidArgumentError`
    for seats or a stage with no shipped chart."""
    seats, _, stage = check_icm_spot(seats, 10.0, stage)
    charts = charts if charts is not None else shipped_icm_charts()
    chosen = stage_charts(stage, charts)
    if not (chosen.key[:, 0] == seats).any():
        raise InvalidArgumentError(f"no shipped full-ring ICM chart for {seats} seats at the {stage} "
                                   f"(shipped: {_shipped_text(charts)}); solve such a table with pokerlab pushfold "
                                   "--stacks ... --payouts ...")
    return IcmRingTable(full_ring_table(seats, "none", depths, chosen), stage, stage_payouts(seats, stage),
                        charts.header)


def _shipped_text(charts: ChartFile) -> str:
    parts = []
    for s, stage in enumerate(STAGES):
        seats = sorted({int(n) for n in charts.key[charts.key[:, 3] == s, 0]})
        parts.append(f"{stage} {','.join(map(str, seats)) or 'none'}")
    return "; ".join(parts)
