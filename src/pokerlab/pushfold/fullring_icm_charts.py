"""The shipped full-ring ICM charts: their file (package data), its version check, and reading a chart.

The file (``data/fullring_icm_charts.npz``, built by ``scripts/build_fullring_icm_charts.py``) holds the ICM
spots of :mod:`pokerlab.pushfold.fullring_icm` in the chip-EV chart file's arrays
(:mod:`pokerlab.pushfold.fullring_charts`: probabilities in steps of 1/200, gains and values as float32, here
money with the pool 100) with a fourth key column, the stage (0: final table, 1: bubble), and a JSON header
naming the payouts of every seat count and stage. It is keyed on
:func:`~pokerlab.pushfold.fullring_icm.code_version` (the chip-EV chart model's sources and the ICM model's) and
its content hash; a file of another format, code version or content is refused (:class:`ChartVersionError`).

>>> table = icm_ring_table(6, "final", [10])
>>> table.payouts, table.table.charts[0].seats[0], round(float(table.table.charts[0].values.sum()), 3)
((32.0, 22.0, 16.0, 12.0, 10.0, 8.0), 'LJ', 100.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.pushfold.fullring import CHART_TARGET, ChartSpot
from pokerlab.pushfold.fullring_charts import (
    MAX_SEATS,
    PLAYED_PROFILE,
    REAL_GAME_ARRAYS,
    ChartFile,
    FullRingChart,
    FullRingTable,
    OvercallFile,
    RealGameFile,
    RealGameGains,
    available_depths,
    full_ring_table,
    load_data_file,
    overcall_hash,
    overcalls_for,
    overcalls_if_built,
    read_chart_file,
    read_if_built,
    read_overcalls,
    real_game_arrays,
    save_chart_file,
    spot_arrays,
)
from pokerlab.pushfold.fullring_icm import (
    FINAL_TABLE_PAYOUTS,
    POOL,
    STAGES,
    check_icm_spot,
    code_version,
    money_target,
    stage_payouts,
)
from pokerlab.pushfold.fullring_icm_real import icm_real_game_version

ICM_FORMAT = "pokerlab-fullring-icm-charts-v1"
ICM_CHART_FILE = Path(__file__).resolve().parent.parent / "data" / "fullring_icm_charts.npz"


def write_icm_charts(spots: Iterable[tuple[str, ChartSpot]], path: Path = ICM_CHART_FILE) -> dict[str, Any]:
    """Write ``(stage, spot)`` pairs as an ICM chart file (atomically, compressed) and return its header."""
    ordered = sorted(spots, key=lambda s: (STAGES.index(s[0]), s[1].seats, s[1].depth_bb))
    arrays = spot_arrays([(spot.seats, spot.depth_bb, 0, STAGES.index(stage)) for stage, spot in ordered],
                         [spot for _, spot in ordered])
    header = {"format": ICM_FORMAT, "code_version": code_version(),
              "target": f"{CHART_TARGET} bb at the pool's average value of a big blind (pool / chips in play)",
              "pool": POOL, "units": "money (the prize pool is 100)", "spots": len(ordered),
              "payouts": {"final": {str(n): list(FINAL_TABLE_PAYOUTS[n]) for n in range(3, MAX_SEATS + 1)},
                          "bubble": {str(n): list(FINAL_TABLE_PAYOUTS[n - 1]) for n in range(3, MAX_SEATS + 1)}},
              "key_columns": ["seats", "depth_bb", "ante (0: none)", "stage (0: final, 1: bubble)"],
              "model": "ICM (equal stacks, blinds 0.5/1, no ante); card removal joint among the players in the pot, "
                       "folded hands ignored; seats out of a two-way pot valued per outcome (exact); 3+ way pots "
                       "from the sampled tables, ties broken by a random seat priority"}
    return save_chart_file(path, header, arrays)


def read_icm_charts(path: Path = ICM_CHART_FILE) -> ChartFile:
    """Read an ICM chart file (its ``key`` has the stage column); :class:`ChartVersionError` if it is of another
    format or code version or its content hash does not match, :class:`~pokerlab.errors.FileFormatError` if it
    cannot be read."""
    return read_chart_file(path, ICM_FORMAT, code_version(), "full-ring ICM chart",
                           "scripts/build_fullring_icm_charts.py")


@lru_cache(maxsize=1)
def shipped_icm_charts() -> ChartFile:
    """The package's ICM chart file, read and checked once per process."""
    return read_icm_charts(ICM_CHART_FILE)


def stage_charts(stage: str, charts: ChartFile | None = None) -> ChartFile:
    """The spots of one stage as a chip-EV-shaped chart file (key columns seats, depth, ante), for the readers of
    :mod:`pokerlab.pushfold.fullring_charts`, with their over-call ranges (:func:`icm_overcalls_of`)."""
    charts = charts if charts is not None else shipped_icm_charts()
    rows = charts.key[:, 3] == STAGES.index(stage)
    overcalls = icm_overcalls_of(charts)
    if not overcalls.reason:
        overcalls = overcalls.subset(overcalls.key[:, 3] == STAGES.index(stage))
    return ChartFile(charts.header, charts.key[rows, :3], charts.jam[rows], charts.call[rows], charts.gains[rows],
                     charts.values[rows], charts.iterations[rows], charts.cpu_s[rows], overcalls)


# ---- the over-call ranges of the ICM charts (reproduced by scripts/build_fullring_overcalls.py --icm) ----

ICM_OVERCALL_FILE = ICM_CHART_FILE.with_name("fullring_icm_overcalls.npz")


def read_icm_overcalls(path: Path, charts: ChartFile) -> OvercallFile:
    """Read an ICM over-call file of the ICM chart file ``charts`` (the chip-EV over-call file's format, its key
    with the stage column, stamped with :func:`~pokerlab.pushfold.fullring_icm.code_version`); one of another
    format, code version or chart file comes back with its ``reason`` and no ranges."""
    return read_overcalls(path, charts, code_version(), "run scripts/build_fullring_overcalls.py --icm")


@lru_cache(maxsize=1)
def shipped_icm_overcalls() -> OvercallFile:
    """The package's ICM over-call file, read once per process (a missing file: no ranges, and why)."""
    return overcalls_if_built(ICM_OVERCALL_FILE, lambda path: read_icm_overcalls(path, shipped_icm_charts()),
                              " --icm")


def icm_overcalls_of(charts: ChartFile) -> OvercallFile:
    """The shipped ICM over-call ranges if they are of the ICM chart file ``charts`` (both stages), else none and
    why (its players then call a jam and calls by the lone-jam chart)."""
    return overcalls_for(charts, shipped_icm_overcalls())


@dataclass(frozen=True)
class IcmRingTable:
    """Shipped ICM charts of one seat count and stage over several depths: ``table`` (a
    :class:`~pokerlab.pushfold.fullring_charts.FullRingTable`: its gains and values are money), the stage and
    its payouts."""

    table: FullRingTable
    stage: str
    payouts: tuple[float, ...]
    header: dict[str, Any]

    def to_dict(self, overcalls: bool = False) -> dict[str, Any]:
        """The charts as JSON, gains and values in money (their over-call ranges with ``overcalls``)."""
        out = self.table.to_dict(overcalls)
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


def icm_chart_answer(seats: int, depth_bb: float, stage: str, charts: ChartFile | None = None,
                     overcalls: bool = False) -> dict[str, Any]:
    """The shipped ICM chart of ``seats`` at ``stage`` nearest ``depth_bb`` as one JSON object (the web page's
    answer): :meth:`~pokerlab.pushfold.fullring_charts.FullRingChart.to_dict` (its over-call ranges with
    ``overcalls``) with ``gains_money`` and ``values_money``, ``exact``, the file's header as ``model``, ``stage``,
    ``payouts``, the shipped ``depths`` and the spot's ``target_money``.

    >>> answer = icm_chart_answer(3, 10, "bubble")
    >>> answer["payouts"], answer["depth_bb"], answer["seats"]
    ([65.0, 35.0], 10.0, ['BTN', 'SB', 'BB'])
    """
    table = icm_ring_table(seats, stage, [depth_bb], charts)
    chart = table.table.charts[0]
    shipped = available_depths(seats, "none", stage_charts(table.stage, charts))
    answer: dict[str, Any] = table.to_dict(overcalls)["charts"][0]
    return answer | {
        "exact": chart.exact, "model": dict(table.header), "stage": table.stage, "payouts": list(table.payouts),
        "depths": shipped.tolist(), "target_money": money_target(seats, chart.depth_bb),
        "real_game": icm_real_game_dict(chart, table.stage)}


def icm_chart(seats: int, depth_bb: float, stage: str, charts: ChartFile | None = None) -> FullRingChart:
    """The shipped ICM chart of ``seats`` at ``stage`` nearest ``depth_bb`` (gains and values money).

    >>> icm_chart(4, 12, "final").depth_bb
    12.5
    """
    return icm_ring_table(seats, stage, [depth_bb], charts).table.charts[0]


# ---- the shipped ICM charts valued in the real game (measured by pokerlab.pushfold.fullring_icm_real) ----

ICM_REAL_GAME_FORMAT = "pokerlab-fullring-icm-real-game-v1"
ICM_REAL_GAME_FILE = ICM_CHART_FILE.with_name("fullring_icm_real_game.npz")


def write_icm_real_game(charts: ChartFile, measured: list[RealGameGains], path: Path = ICM_REAL_GAME_FILE
                        ) -> dict[str, Any]:
    """Write the real-game measurements of every spot of the ICM chart file ``charts`` (``measured[i]``: row ``i``)
    atomically; returns the header."""
    arrays, deals, seed = real_game_arrays(charts, measured)
    header = {"format": ICM_REAL_GAME_FORMAT, "code_version": icm_real_game_version(),
              "chart_content_sha256": charts.header["content_sha256"],
              "overcall_content_sha256": overcall_hash(icm_overcalls_of(charts)), "deals": deals, "seed": seed,
              "profile": PLAYED_PROFILE, "units": "money per hand (ICM equity, the pool 100)",
              "key_columns": charts.header["key_columns"]}
    return save_chart_file(path, header, arrays)


def read_icm_real_game(path: Path, charts: ChartFile) -> RealGameFile:
    """Read an ICM real-game file measured on the ICM chart file ``charts``; a file of another format, code version
    or chart file comes back with its ``reason`` and no measurements; :class:`~pokerlab.errors.FileFormatError` if it
    cannot be read."""
    header, arrays = load_data_file(path, REAL_GAME_ARRAYS, "full-ring ICM real-game")
    rebuild = "run scripts/build_fullring_real_game.py --icm"
    if header.get("format") != ICM_REAL_GAME_FORMAT or header.get("code_version") != icm_real_game_version():
        return RealGameFile(header, {}, f"measured by other code ({header.get('code_version')}, this pokerlab's is "
                                        f"{icm_real_game_version()}): {rebuild}")
    if header.get("chart_content_sha256") != charts.header["content_sha256"] or not np.array_equal(
            arrays["key"], charts.key):
        return RealGameFile(header, {}, f"measured on another ICM chart file: {rebuild}")
    if header.get("overcall_content_sha256") != overcall_hash(icm_overcalls_of(charts)):
        return RealGameFile(header, {}, f"measured with other over-call ranges than the shipped ones: {rebuild}")
    return RealGameFile(header, arrays)


@lru_cache(maxsize=1)
def shipped_icm_real_game() -> RealGameFile:
    """The package's ICM real-game file, read once per process (a missing file: no measurements, and why)."""
    return read_if_built(ICM_REAL_GAME_FILE, lambda path: read_icm_real_game(path, shipped_icm_charts()),
                         "ICM real-game", " --icm")


def stage_real_game(stage: str, stored: RealGameFile | None = None) -> RealGameFile:
    """The measurements of one stage's spots (key columns seats, depth, ante), as :func:`stage_charts` their charts."""
    stored = stored if stored is not None else shipped_icm_real_game()
    if stored.reason:
        return stored
    rows = stored.arrays["key"][:, 3] == STAGES.index(stage)
    return RealGameFile(stored.header, {name: stored.arrays[name][rows] for name in REAL_GAME_ARRAYS}
                        | {"key": stored.arrays["key"][rows, :3]})


def icm_real_game_dict(chart: FullRingChart, stage: str) -> dict[str, Any]:
    """The ICM chart ``chart`` of ``stage`` played in the real game as JSON, in money (``{"measured": false, "why":
    ...}`` where there is none).

    >>> answer = icm_real_game_dict(icm_chart(3, 10, "final"), "final")
    >>> answer["measured"], round(sum(answer["values_money"]), 4), answer["deals"]
    (True, 100.0, 200000)
    """
    stored = stage_real_game(stage)
    measured = stored.of(chart)
    if measured is None:
        return {"measured": False, "why": stored.reason or "this spot is not in the ICM real-game file"}
    return {"measured": True} | measured.to_dict("money", PLAYED_PROFILE)
