"""The short full-ring spots' next deeper charts played at the spots' depth (pokerlab.pushfold.fullring_deeper): the
file covers every short spot whose solve stopped above its target, each entry is the measurement made again, "better"
is a difference beyond three standard errors, and the CLI, its JSON and the builder say what they measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pokerlab.pushfold import fullring_deeper
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import (
    RealGameFile,
    full_ring_chart,
    overcalls_withheld,
    shipped_charts,
    shipped_overcalls,
)
from pokerlab.pushfold.fullring_deeper import deeper_depth, deeper_reading_dict, measure_deeper, shipped_deeper

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_fullring_real_game.py"


@pytest.fixture(scope="module")
def shipped() -> RealGameFile:
    stored = shipped_deeper()
    assert stored.reason == "", stored.reason
    return stored


def _spot(key: np.ndarray) -> tuple[int, float, str]:
    return int(key[0]), float(key[1]), list(ANTES)[int(key[2])]


def test_every_short_spot_has_its_deeper_chart_measured(shipped: RealGameFile) -> None:
    charts = shipped_charts()
    assert shipped.header["chart_content_sha256"] == charts.header["content_sha256"]
    assert shipped.header["overcall_content_sha256"] == shipped_overcalls().header["content_sha256"]
    short = {_spot(k) for k in charts.key[overcalls_withheld(charts)]}
    listed = [_spot(k) for k in shipped.arrays["key"]]
    assert set(listed) == {s for s in short if deeper_depth(charts, *s) is not None} and len(listed) == len(short)
    for spot, deeper in zip(listed, shipped.arrays["deeper_bb"], strict=True):
        assert deeper == deeper_depth(charts, *spot) > spot[1]
        depths = charts.key[(charts.key[:, 0] == spot[0]) & (charts.key[:, 2] == list(ANTES).index(spot[2])), 1]
        assert not ((depths > spot[1]) & (depths < deeper)).any()  # the next deeper one


def test_a_deeper_measurement_is_reproduced(shipped: RealGameFile) -> None:
    spot = (7, 6.5, "none")
    stored = shipped.of(full_ring_chart(*spot))
    assert stored is not None
    deeper, fresh = measure_deeper(shipped_charts(), *spot, deals=stored.deals, seed=stored.seed)
    assert deeper == 7.0
    for name in ("values", "value_errors", "low", "low_errors", "high"):
        np.testing.assert_array_equal(getattr(stored, name), getattr(fresh, name).astype(np.float32))


def _file(low: float, error: float) -> RealGameFile:
    arrays = {"key": np.array([[3.0, 5.0, 0.0]]), "deeper_bb": np.array([6.0], dtype=np.float32)}
    for name, value in (("values", 0.0), ("value_errors", 0.0), ("low", low), ("low_errors", error), ("high", low)):
        arrays[name] = np.full((1, 10), np.nan, dtype=np.float32)
        arrays[name][0, :3] = [value, value / 2, 0.0]
    return RealGameFile({"deals": 1000, "seed": 5}, arrays)


@pytest.mark.parametrize(("deeper_low", "better"), [(0.0100, True), (0.0108, False)])
def test_better_is_beyond_three_standard_errors_of_each(monkeypatch, deeper_low: float, better: bool) -> None:
    """Own largest gain 0.02 (s.e. 0.001), the deeper chart's with s.e. 0.0022: better below 0.02 - 3 * 0.0032 =
    0.0104."""
    monkeypatch.setattr(fullring_deeper, "shipped_deeper", lambda: _file(deeper_low, 0.0022))
    monkeypatch.setattr(fullring_deeper, "shipped_real_game", lambda: _file(0.02, 0.001))
    answer = deeper_reading_dict(full_ring_chart(3, 5, "none"))
    assert answer["measured"] and answer["depth_bb"] == 6.0 and answer["better"] is better
    assert answer["own_largest_gain_bb"] == pytest.approx(0.02)


def test_spots_that_are_not_short_or_not_shown_at_their_depth_say_why(shipped: RealGameFile) -> None:
    assert "short spots" in deeper_reading_dict(full_ring_chart(7, 20, "none"))["why"]
    assert deeper_reading_dict(full_ring_chart(7, 6.6, "none"))["why"] == "the chart shown is of another depth"


def test_the_cli_and_its_json_say_where_a_deeper_chart_plays_better(shipped: RealGameFile) -> None:
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    better = next(_spot(k) for k in shipped.arrays["key"] if deeper_reading_dict(full_ring_chart(*_spot(k)))["better"])
    seats, depth, ante = better
    args = ["pushfold", "--chart", "full-ring", "--seats", str(seats), "--depths", f"{depth:g}", "--ante", ante]
    text = " ".join(CliRunner().invoke(app, args).output.split())
    reading = deeper_reading_dict(full_ring_chart(*better))
    assert (f"at {depth:g} bb the {reading['depth_bb']:g} bb chart {max(reading['gains_low_bb']):.1e} against "
            f"{reading['own_largest_gain_bb']:.1e}") in text
    data = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)
    assert data["charts"][0]["deeper_reading"] == reading


def test_the_builder_measures_the_deeper_charts_and_resumes(tmp_path: Path) -> None:
    """Five seats only (the fewest with short spots above their target), on 300 deals (exit 1: the file is written
    once every spot is measured); each checkpoint is what measure_deeper gives; a rerun measures nothing; --deeper
    with --icm is refused."""
    work = tmp_path / "work"
    command = [sys.executable, str(SCRIPT), "--deeper", "--seats", "5", "--deals", "300", "--work", str(work),
               "--output", str(tmp_path / "deeper.npz")]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 1 and "not measured yet" in first.stderr
    charts = shipped_charts()
    five = [_spot(k) for k in charts.key[overcalls_withheld(charts)] if int(k[0]) == 5]
    assert five and len(list(work.glob("deeper-*.npz"))) == len(five)
    seats, depth, ante = five[0]
    stored = np.load(work / f"deeper-{seats:02d}-{ante}-{depth:06.2f}.npz")
    np.testing.assert_array_equal(stored["low"], measure_deeper(charts, seats, depth, ante, deals=300)[1].low)
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert ", 0 to measure" in again.stdout
    refused = subprocess.run([*command, "--icm"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
