"""The shipped full-ring charts valued in the real game (pokerlab.pushfold.fullring_real): the profile a chart's
player plays (read off the chart by hand at a three-seat table), the shipped measurements matching the shipped
charts and coming out of the script again, conserved chips, the heads-up measurement exact, the builder's resume and
bad input, and a file measured on other charts not used."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pokerlab.games.base import FOLD
from pokerlab.games.pushfold import JAM
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import (
    ARRAYS,
    CHART_FILE,
    OVERCALL_FILE,
    REAL_GAME_FILE,
    full_ring_chart,
    overcalls_of,
    read_charts,
    read_real_game,
    real_game_dict,
    save_chart_file,
    shipped_charts,
    shipped_overcalls,
    shipped_real_game,
)
from pokerlab.pushfold.fullring_real import chart_profile, measure_chart
from pokerlab.solvers.vector_strategy import best_response_gains

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_fullring_real_game.py"
SPOTS = [(2, 10.0, "none"), (3, 10.0, "none"), (4, 5.0, "10")]


def test_the_profile_is_the_chart_as_a_player_reads_it() -> None:
    """Three seats: BTN first in, SB first in or facing the BTN's jam, BB facing one jam or a jam and a call (the
    over-call range), every row written out by hand; four seats, the big blind facing three all-ins calls by the
    range facing the first two; without over-call ranges, by the lone-jam chart of the jammer."""
    chart = full_ring_chart(3, 10, "none")
    assert chart.overcall is not None
    _, tree, profile = chart_profile(chart)
    btn, sb, bb = 0, 1, 2
    expected = {(): chart.jam[btn], (FOLD,): chart.jam[sb], (JAM,): chart.call[sb, btn],
                (FOLD, JAM): chart.call[bb, sb], (JAM, FOLD): chart.call[bb, btn],
                (JAM, JAM): chart.overcall[bb, btn, sb]}
    assert len(tree.decision_nodes()) == len(expected)
    for state, jam in expected.items():
        block = profile.block(profile.node_of(state))
        np.testing.assert_array_equal(block[:, 1], jam)
        np.testing.assert_array_equal(block.sum(axis=1), 1.0)
    four = full_ring_chart(4, 10, "none")
    assert four.overcall is not None
    _, _, profile = chart_profile(four)
    np.testing.assert_array_equal(profile.block(profile.node_of((JAM, JAM, JAM)))[:, 1], four.overcall[3, 0, 1])
    np.testing.assert_array_equal(profile.block(profile.node_of((FOLD, JAM, JAM)))[:, 1], four.overcall[3, 1, 2])
    _, _, profile = chart_profile(replace(four, overcall=None))
    np.testing.assert_array_equal(profile.block(profile.node_of((JAM, JAM, JAM)))[:, 1], four.call[3, 0])


@pytest.fixture(scope="module")
def shipped():
    stored = shipped_real_game()
    assert stored.reason == "", stored.reason
    return stored


def test_every_shipped_chart_is_measured_on_the_shipped_file(shipped) -> None:
    charts = shipped_charts()
    assert shipped.header["chart_content_sha256"] == charts.header["content_sha256"]
    assert shipped.header["overcall_content_sha256"] == shipped_overcalls().header["content_sha256"]
    np.testing.assert_array_equal(shipped.arrays["key"], charts.key)
    seats = charts.key[:, 0].astype(int)
    for row, n in enumerate(seats):
        values = shipped.arrays["values"][row, :n]
        assert abs(float(values.astype(np.float64).sum())) < 1e-5  # chip EV: conserved on every deal
        assert np.isnan(shipped.arrays["values"][row, n:]).all()
    heads_up = seats == 2
    np.testing.assert_array_equal(shipped.arrays["low"][heads_up], shipped.arrays["high"][heads_up])
    # the cross-fitted gain is at most the truth and the in-sample one at least it, in expectation: a spot whose
    # in-sample gain lies far below its cross-fitted one would say the two are mixed up
    multiway = ~heads_up
    low, error, high = (shipped.arrays[name][multiway] for name in ("low", "low_errors", "high"))
    seat = ~np.isnan(low)
    low, error, high = low[seat], error[seat], high[seat]
    assert (high - low).mean() > 0 and (high >= low - 5 * error).mean() > 0.99


@pytest.mark.parametrize("spot", [(3, 10.0, "none"), (2, 15.0, "bb")])
def test_a_shipped_measurement_is_reproduced(shipped, spot) -> None:
    chart = full_ring_chart(*spot)
    stored = shipped.of(chart)
    assert stored is not None
    again = measure_chart(chart, deals=stored.deals or 1, seed=stored.seed)
    for name in ("values", "value_errors", "low", "low_errors", "high"):
        np.testing.assert_array_equal(getattr(again, name).astype(np.float32), getattr(stored, name), err_msg=name)


def test_heads_up_is_exact_and_near_the_solved_gain() -> None:
    """Heads-up the chart model is the exact game: the quantised chart's gain is the exact best response's, and
    within the quantisation's effect (steps of 1/200) of the gain stored for the solved profile."""
    chart = full_ring_chart(2, 10, "none")
    measured = measure_chart(chart)
    _, tree, profile = chart_profile(chart)
    exact = best_response_gains(tree, profile)
    np.testing.assert_array_equal(measured.low, exact.gains)
    assert measured.deals == 0 and (measured.low_errors == 0).all()
    assert np.abs(measured.low - chart.gains).max() < 2e-4
    assert abs(float(measured.values.sum())) < 1e-12


def _subset(path: Path, spots: list[tuple[int, float, str]] = SPOTS) -> None:
    charts = shipped_charts()
    rows = [int(np.flatnonzero((charts.key[:, 0] == s) & (charts.key[:, 1] == d)
                               & (charts.key[:, 2] == list(ANTES).index(a)))[0]) for s, d, a in spots]
    header = {k: v for k, v in charts.header.items() if k != "content_sha256"}
    save_chart_file(path, header, {name: getattr(charts, name)[rows] for name in ARRAYS})


def _build(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--charts", str(tmp_path / "charts.npz"), "--work",
                           str(tmp_path / "work"), "--output", str(tmp_path / "real.npz"), *args],
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_builder_measures_resumes_and_writes_what_measure_chart_gives(tmp_path: Path) -> None:
    _subset(tmp_path / "charts.npz")
    first = _build(tmp_path, "--deals", "2000")
    assert first.returncode == 0, first.stderr
    again = _build(tmp_path, "--deals", "2000")
    assert again.returncode == 0 and "3 already measured, 0 to measure" in again.stdout
    charts = read_charts(tmp_path / "charts.npz")
    stored = read_real_game(tmp_path / "real.npz", charts, overcalls_of(charts))
    assert stored.reason == "" and stored.header["deals"] == 2000
    for spot in SPOTS:
        chart = full_ring_chart(*spot, charts=charts)
        direct = measure_chart(chart, deals=2000)
        kept = stored.of(chart)
        assert kept is not None
        np.testing.assert_array_equal(kept.high, direct.high.astype(np.float32))
    # measured on these three spots, the file is not the shipped charts' and is not used for them
    other = read_real_game(tmp_path / "real.npz", shipped_charts(), shipped_overcalls())
    assert "another chart file" in other.reason and other.of(full_ring_chart(3, 10, "none")) is None


def test_a_build_started_from_the_shipped_file_takes_the_spots_measured_as_they_would_be_now(shipped,
                                                                                            tmp_path: Path) -> None:
    """``--start-from``: a spot whose chart, over-call ranges, deals and seed are the shipped measurement's is
    checkpointed from it (the written file holds the shipped numbers, nothing measured); a spot played with other
    over-call ranges (here none: the subset is not the shipped over-call file's chart file) is not."""
    start = ("--start-from", str(REAL_GAME_FILE), str(CHART_FILE), str(OVERCALL_FILE))
    unchanged = [(2, 10.0, "none"), (5, 3.0, "none")]  # heads-up, and a spot whose over-call ranges are withheld
    _subset(tmp_path / "charts.npz", unchanged)
    built = _build(tmp_path, *start)
    assert built.returncode == 0, built.stderr
    assert f"2 spots of {REAL_GAME_FILE} checkpointed" in built.stdout and "0 to measure" in built.stdout
    charts = read_charts(tmp_path / "charts.npz")
    written = read_real_game(tmp_path / "real.npz", charts, overcalls_of(charts))
    for spot in unchanged:
        kept, there = written.of(full_ring_chart(*spot, charts=charts)), shipped.of(full_ring_chart(*spot))
        assert kept is not None and there is not None
        for name in ("values", "value_errors", "low", "low_errors", "high"):
            np.testing.assert_array_equal(getattr(kept, name), getattr(there, name), err_msg=name)
    _subset(tmp_path / "charts.npz", [*unchanged, (3, 10.0, "none")])
    partial = _build(tmp_path, *start, "--seats", "2,5", "--work", str(tmp_path / "work2"))
    assert partial.returncode == 1 and f"2 spots of {REAL_GAME_FILE} checkpointed" in partial.stdout
    assert "1 spots are not measured" in partial.stderr


@pytest.mark.parametrize("bad", [("--deals", "10"), ("--charts", "missing.npz")])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, bad: tuple[str, str]) -> None:
    _subset(tmp_path / "charts.npz")
    args = [bad[0], str(tmp_path / bad[1]) if bad[0] == "--charts" else bad[1]]
    done = subprocess.run([sys.executable, str(SCRIPT), "--work", str(tmp_path / "work"), "--output",
                           str(tmp_path / "real.npz"), *args], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert not (tmp_path / "work").exists()


def test_the_json_says_what_was_measured(shipped) -> None:
    data = real_game_dict(full_ring_chart(9, 10, "none"))
    assert data["measured"] and data["deals"] == shipped.header["deals"] and len(data["gains_low_bb"]) == 9
    assert "over-call" in data["profile"]


def test_the_cli_says_the_largest_real_game_gain_or_why_there_is_none(shipped, monkeypatch, tmp_path) -> None:
    from typer.testing import CliRunner

    from pokerlab.cli.main import app
    from pokerlab.pushfold import fullring_charts

    args = ["pushfold", "--chart", "full-ring", "--seats", "3", "--depths", "10,20"]
    text = " ".join(CliRunner().invoke(app, args).output.split())
    measured = [m for m in (shipped.of(full_ring_chart(3, d, "none")) for d in (10, 20)) if m is not None]
    largest = max(float(m.low.max()) for m in measured)
    said = f"the charts as a player reads them (with their over-call ranges): largest gain {largest:.1e} bb"
    assert said in text
    monkeypatch.setattr(fullring_charts, "REAL_GAME_FILE", tmp_path / "absent.npz")
    shipped_real_game.cache_clear()
    try:
        text = " ".join(CliRunner().invoke(app, args).output.split())
    finally:
        shipped_real_game.cache_clear()
    assert "real game: not measured (no real-game file: run scripts/build_fullring_real_game.py)" in text
