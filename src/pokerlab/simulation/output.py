"""Batch results on disk: Parquet tables (pyarrow) of every tournament's finishing order and stack snapshots,
and a JSON summary."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.simulation.core import SimulationResult

SUMMARY_FORMAT = 1


def check_output_directory(path: str | Path) -> Path:
    """Create ``path`` if needed and make sure files can be written there, before any work starts."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise InvalidArgumentError(f"output path {directory} exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".write-test-"):
            pass
    except OSError as error:
        raise InvalidArgumentError(f"cannot write to output directory {directory}: {error.strerror or error}") \
            from error
    return directory


def pyarrow_module() -> Any:
    """The ``pyarrow`` module with its Parquet writer (an optional dependency: one line saying how to get it)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as error:
        raise InvalidArgumentError("Parquet output needs pyarrow: pip install 'pokerlab[ray]' or pyarrow") from error
    return pyarrow


def write_outputs(result: SimulationResult, directory: str | Path, extra: dict[str, Any] | None = None) -> list[Path]:
    """Write ``summary.json`` and, when the result kept its records, ``tournaments.parquet`` (one row per
    tournament and player: start stack, play model, place, prize) and ``snapshots.parquet`` (one row per
    snapshot and player still in: the snapshot's index, the players left in it, stack, hands played, blind
level). Returns the paths written."""
    directory = check_output_directory(directory)
    written = []
    summary = {"format_version": SUMMARY_FORMAT, **result.to_dict(), "checks": result.checks, **(extra or {})}
    path = directory / "summary.json"
    path.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    written.append(path)
    if result.records is None:
        return written
    pa = pyarrow_module()
    t = result.tournament
    places = result.records["places"]
    count, n = places.shape
    full_pay = np.zeros(n + 1)
    full_pay[1: t.payouts.size + 1] = t.payouts
    models = np.array(t.model_names)[t.field.model]
    table = pa.table({
        "tournament": np.repeat(np.arange(count, dtype=np.int64), n),
        "player": np.tile(np.arange(n, dtype=np.int32), count),
        "start_stack": np.tile(t.field.stacks, count),
        "play": np.tile(models, count),
        "place": places.reshape(-1),
        "prize": full_pay[places.reshape(-1)],
    })
    path = directory / "tournaments.parquet"
    pa.parquet.write_table(table, path)
    written.append(path)
    snaps = result.records["snap_stacks"]  # (count, S, n)
    if snaps.shape[1]:
        info = result.records["snap_info"]
        tour, snap, player = np.nonzero(snaps > 0)
        left = (snaps > 0).sum(axis=2)  # a bubble snapshot holds more than its count (the round's start)
        table = pa.table({
            "tournament": tour.astype(np.int64),
            "snapshot": snap.astype(np.int32),
            "players_left": left[tour, snap].astype(np.int64),
            "player": player.astype(np.int32),
            "stack": snaps[tour, snap, player],
            "hands": info[tour, snap, 0],
            "level": info[tour, snap, 1],
        })
        path = directory / "snapshots.parquet"
        pa.parquet.write_table(table, path)
        written.append(path)
    return written
