"""The short full-ring spots' charts against the next deeper chart, both played in the real game at the spot's depth.

At the short spots whose solve stopped above its target (3+ seats below 10 bb: those whose over-call ranges are
withheld, :func:`~pokerlab.pushfold.fullring_charts.overcalls_withheld`) the chart model's equilibrium is looser
than the real game's: played at the spot's own depth, the chart of the next deeper shipped depth measures better in
the real game than the spot's own chart at most of them, and the chart 0.5 bb shallower worse (docs/benchmarks.md,
"the short 7-10 seat spots"; the model leaves out the folded hands' card removal). So for each such spot the deeper
chart, as a player reads it (its over-call ranges where shipped), is measured at the spot's depth by
:func:`~pokerlab.pushfold.fullring_real.measure_chart` on the same joint deals as the spot's own chart in the
real-game file, and a reader of the spot is told when it is better there (:func:`deeper_reading_dict`): the largest
seat's cross-fitted gain lower than the own chart's by more than three times the sum of their standard errors.

The measurements are package data (``data/fullring_deeper_reading.npz``, written by
``scripts/build_fullring_real_game.py --deeper``), keyed like the real-game file: the chart and over-call files'
content hashes and :func:`~pokerlab.pushfold.fullring_charts.real_game_version`.

>>> from pokerlab.pushfold.fullring_charts import shipped_charts
>>> charts = shipped_charts()
>>> deeper_depth(charts, 7, 6.5, "none"), deeper_depth(charts, 7, 40.0, "none")
(7.0, None)
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.pushfold.fullring_charts import (
    CHART_FILE,
    REAL_GAME_ARRAYS,
    ChartFile,
    FullRingChart,
    OvercallFile,
    RealGameFile,
    RealGameGains,
    available_depths,
    full_ring_chart,
    load_data_file,
    overcall_hash,
    read_if_built,
    real_game_arrays,
    real_game_version,
    save_chart_file,
    shipped_charts,
    shipped_overcalls,
    shipped_real_game,
    spot_row,
)
from pokerlab.pushfold.fullring_real import DEALS, SEED, measure_chart

DEEPER_FORMAT = "pokerlab-fullring-deeper-reading-v1"
DEEPER_FILE = CHART_FILE.with_name("fullring_deeper_reading.npz")
DEEPER_ARRAYS = (*REAL_GAME_ARRAYS, "deeper_bb")
MARGIN_ERRORS = 3.0
"""A deeper chart is said to play better where its largest seat's gain is below the own chart's by more than this
many times the sum of their standard errors (the two are measured on the same deals)."""


def deeper_depth(charts: ChartFile, seats: int, depth_bb: float, ante: str) -> float | None:
    """The next deeper shipped depth of ``seats`` seats with ante rule ``ante`` than ``depth_bb`` (None: none)."""
    depths = available_depths(seats, ante, charts)
    deeper = depths[depths > depth_bb]
    return float(deeper[0]) if deeper.size else None


def measure_deeper(charts: ChartFile, seats: int, depth_bb: float, ante: str, *, deals: int = DEALS,
                   seed: int = SEED) -> tuple[float, RealGameGains]:
    """The next deeper chart of ``charts`` played at ``depth_bb`` in the real game, as a player reads it (its
    over-call ranges where shipped): its depth and its measurement."""
    deeper = deeper_depth(charts, seats, depth_bb, ante)
    if deeper is None:
        raise ValueError(f"no shipped chart of {seats} seats with ante {ante} deeper than {depth_bb:g} bb")
    chart = full_ring_chart(seats, deeper, ante, charts)
    return deeper, measure_chart(replace(chart, depth_bb=depth_bb), deals=deals, seed=seed)


def write_deeper(charts: ChartFile, overcalls: OvercallFile, rows: list[int], deeper: list[float],
                 measured: list[RealGameGains], path: Path = DEEPER_FILE) -> dict[str, Any]:
    """Write the deeper charts' measurements of the spots at ``rows`` of ``charts`` (atomically); returns the header."""
    spots = replace(charts, key=charts.key[rows])
    arrays, deals, seed = real_game_arrays(spots, measured)
    arrays["deeper_bb"] = np.array(deeper, dtype=np.float32)
    header = {"format": DEEPER_FORMAT, "code_version": real_game_version(),
              "chart_content_sha256": charts.header["content_sha256"],
              "overcall_content_sha256": overcall_hash(overcalls), "deals": deals, "seed": seed,
              "units": "bb per hand (chip EV)",
              "what": "per short spot (3+ seats below 10 bb, solve stopped above its target), the chart of the next "
                      "deeper shipped depth (deeper_bb) played at the spot's depth in the real game"}
    return save_chart_file(path, header, arrays)


def read_deeper(path: Path, charts: ChartFile, overcalls: OvercallFile) -> RealGameFile:
    """Read a deeper-reading file measured on ``charts`` played with ``overcalls`` (its ``arrays`` hold
    ``deeper_bb`` beside the real-game arrays); a file of another format, code, chart or over-call file comes back
    with its ``reason`` and no measurements; :class:`~pokerlab.errors.FileFormatError` if it cannot be read."""
    header, arrays = load_data_file(path, DEEPER_ARRAYS, "full-ring deeper-reading")
    rebuild = "run scripts/build_fullring_real_game.py --deeper"
    if header.get("format") != DEEPER_FORMAT or header.get("code_version") != real_game_version():
        return RealGameFile(header, {}, f"measured by other code ({header.get('code_version')}): {rebuild}")
    if (header.get("chart_content_sha256") != charts.header["content_sha256"]
            or header.get("overcall_content_sha256") != overcall_hash(overcalls)):
        return RealGameFile(header, {}, f"measured on other chart or over-call files: {rebuild}")
    return RealGameFile(header, arrays)


@lru_cache(maxsize=1)
def shipped_deeper() -> RealGameFile:
    """The package's deeper-reading file, read once per process (a missing file: no measurements, and why)."""
    return read_if_built(DEEPER_FILE, lambda path: read_deeper(path, shipped_charts(), shipped_overcalls()),
                         "deeper-reading", " --deeper")


def deeper_reading_dict(chart: FullRingChart) -> dict[str, Any]:
    """For a shipped short spot's chart (at its own depth), the next deeper chart played at its depth in the real
    game as JSON: ``depth_bb`` (the deeper chart's), its measurement (:meth:`RealGameGains.to_dict`), the own
    chart's largest gain and whether the deeper chart plays better there (``better``, see :data:`MARGIN_ERRORS`);
    ``{"measured": false, "why": ...}`` elsewhere.

    >>> from pokerlab.pushfold.fullring_charts import full_ring_chart
    >>> deeper_reading_dict(full_ring_chart(7, 6.5, "none"))["depth_bb"]
    7.0
    >>> deeper_reading_dict(full_ring_chart(7, 20, "none"))["measured"]
    False
    """
    stored, real = shipped_deeper(), shipped_real_game()
    own = real.of(chart)
    measured = stored.of(chart) if chart.exact else None
    if measured is None or own is None:
        why = (stored.reason or real.reason or ("the chart shown is of another depth" if not chart.exact else
                                                "measured only at short spots whose solve stopped above its target "
                                                "(3+ seats below 10 bb)"))
        return {"measured": False, "why": why}
    row = spot_row(stored.arrays["key"], len(chart.seats), chart.depth_bb, chart.ante)
    assert row is not None  # the file has the spot: its measurement was read above
    seat, other = int(np.argmax(own.low)), int(np.argmax(measured.low))
    margin = MARGIN_ERRORS * (float(own.low_errors[seat]) + float(measured.low_errors[other]))
    return {"measured": True, "depth_bb": float(stored.arrays["deeper_bb"][row]), "better":
            bool(measured.low[other] < own.low[seat] - margin), "own_largest_gain_bb": float(own.low[seat]),
            "own_largest_gain_stderr_bb": float(own.low_errors[seat])} | measured.to_dict()

