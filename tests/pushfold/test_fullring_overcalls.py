"""The full-ring charts' over-call ranges (pokerlab.pushfold.fullring_overcalls): the file's layout against an
independent count, the shipped ranges equal to those of fresh solves of sampled spots (the chart builder's own
``solve_spot``, not the quick reproduction the builder uses), the quick reproduction equal to the full one, the
ranges a chart's player reads (written out by hand), a file of other charts or code not used, and the builder's
resume and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from math import comb
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.games.base import FOLD
from pokerlab.games.pushfold import JAM
from pokerlab.pushfold.fullring import ANTES, chart_arrays, solve_spot
from pokerlab.pushfold.fullring_charts import (
    ARRAYS,
    CHART_FILE,
    OVERCALL_FILE,
    dequantise,
    full_ring_chart,
    full_ring_table,
    overcall_index,
    overcall_rows_count,
    overcall_triples,
    overcalls_withheld,
    quantise,
    read_charts,
    read_overcalls,
    save_chart_file,
    shipped_charts,
    shipped_overcalls,
)
from pokerlab.pushfold.fullring_overcalls import overcall_rows, reproduce_spot
from pokerlab.pushfold.fullring_real import chart_profile, played_range

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_fullring_overcalls.py"
SHIPPED_SEATS = range(3, 11)
"""Seat counts whose over-call ranges are shipped (every spot of them but the withheld ones)."""


def _row(seats: int, depth: float, ante: str) -> int:
    key = shipped_charts().key
    return int(np.flatnonzero((key[:, 0] == seats) & (key[:, 1] == depth) & (key[:, 2] == list(ANTES).index(ante)))[0])


@pytest.mark.parametrize("seats", range(3, 11))
def test_the_layout_counts_every_jammer_first_caller_and_caller_once(seats: int) -> None:
    triples = overcall_triples(seats)
    assert len(triples) == overcall_rows_count(seats) == comb(seats, 3)
    assert all(j < f < c for c, j, f in triples) and len(set(triples)) == len(triples)
    assert [overcall_index(c, j, f) for c, j, f in triples] == list(range(len(triples)))


def test_the_shipped_file_is_of_the_shipped_charts_and_holds_every_spot_of_its_seat_counts() -> None:
    """Every spot of its seat counts but the withheld ones (:func:`overcalls_withheld`)."""
    stored = shipped_overcalls()
    charts = shipped_charts()
    assert stored.reason == "", stored.reason
    assert stored.header["chart_content_sha256"] == charts.header["content_sha256"]
    assert set(SHIPPED_SEATS) <= set(stored.seat_counts())
    kept = ~overcalls_withheld(charts)
    for seats in stored.seat_counts():
        np.testing.assert_array_equal(stored.key[stored.key[:, 0] == seats],
                                      charts.key[(charts.key[:, 0] == seats) & kept])
    counts = np.diff(stored.start)
    assert counts.tolist() == [comb(int(n), 3) for n in stored.key[:, 0]]
    assert stored.rows.max() <= 200  # every row a probability (255: no decision, never stored)


@pytest.mark.parametrize("spot", [(3, 10.0, "none"), (4, 3.0, "none"), (5, 9.0, "none"), (4, 12.0, "12.5")])
def test_the_shipped_ranges_are_a_fresh_solves(spot: tuple[int, float, str]) -> None:
    charts = shipped_charts()
    row = _row(*spot)
    fresh = solve_spot(*spot, max_iterations=int(charts.iterations[row]))
    assert fresh.strategy is not None
    np.testing.assert_array_equal(quantise(fresh.jam), charts.jam[row, :spot[0]])  # the same solve as shipped
    expected = quantise(overcall_rows(fresh.strategy))
    stored = shipped_overcalls().steps_of(*spot)
    assert stored is not None
    np.testing.assert_array_equal(stored, expected)


def test_the_quick_reproduction_is_the_full_one() -> None:
    charts = shipped_charts()
    spot = (5, 9.0, "none")
    row = _row(*spot)
    quick, was_quick = reproduce_spot(*spot, int(charts.iterations[row]), charts.gains[row, :5])
    full = solve_spot(*spot, max_iterations=int(charts.iterations[row])).strategy
    assert was_quick and full is not None
    np.testing.assert_array_equal(quick.probs, full.probs)
    with pytest.raises(ValueError, match="the chart file stores"):
        reproduce_spot(*spot, int(charts.iterations[row]) - 16, charts.gains[row, :5])


def test_a_player_facing_all_ins_reads_the_ranges_written_out_by_hand() -> None:
    chart = full_ring_chart(5, 10, "none")  # MP, CO, BTN, SB, BB
    assert chart.overcall is not None
    bb = 4
    np.testing.assert_array_equal(played_range(chart, bb, [3]), chart.call[bb, 3])
    np.testing.assert_array_equal(played_range(chart, 2, []), chart.jam[2])
    np.testing.assert_array_equal(played_range(chart, bb, [0, 2]), chart.overcall[bb, 0, 2])
    np.testing.assert_array_equal(played_range(chart, bb, [0, 2, 3]), chart.overcall[bb, 0, 2])  # the first two
    steps = shipped_overcalls().steps_of(5, 10.0, "none")
    assert steps is not None
    np.testing.assert_array_equal(chart.overcall[bb, 0, 2], dequantise(steps[overcall_index(bb, 0, 2)]))
    assert np.isnan(chart.overcall[bb, 2, 0]).all()  # no such node: the jammer acts before the caller
    without = replace(chart, overcall=None)
    np.testing.assert_array_equal(played_range(without, bb, [0, 2]), chart.call[bb, 0])
    # facing a jam and a call, the big blind calls tighter than against the jam alone, by combos
    assert chart.overcall[bb, 0, 2].sum() < chart.call[bb, 0].sum()


def _subset(path: Path, spots: list[tuple[int, float, str]]) -> None:
    charts = shipped_charts()
    rows = [_row(*spot) for spot in spots]
    header = {k: v for k, v in charts.header.items() if k != "content_sha256"}
    save_chart_file(path, header, {name: getattr(charts, name)[rows] for name in ARRAYS})


def test_a_file_of_other_charts_or_code_is_not_used(tmp_path: Path) -> None:
    other = tmp_path / "charts.npz"
    _subset(other, [(3, 10.0, "none")])
    assert "another chart file" in read_overcalls(OVERCALL_FILE, read_charts(other)).reason
    with np.load(OVERCALL_FILE) as stored:
        arrays = {name: stored[name] for name in stored.files}
    header = json.loads(str(arrays.pop("header")))
    for change, said in ((("code_version", "0" * 16), "built by other code"),
                         (("content_sha256", "0" * 64), "content hash does not match")):
        edited = tmp_path / "edited.npz"
        np.savez(edited, header=np.array(json.dumps(header | dict([change]))), **arrays)
        assert said in read_overcalls(edited, shipped_charts()).reason


def _build(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--charts", str(tmp_path / "charts.npz"), "--work",
                           str(tmp_path / "work"), "--output", str(tmp_path / "overcalls.npz"), *args],
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_builder_reproduces_the_shipped_ranges_and_resumes(tmp_path: Path) -> None:
    spots = [(2, 10.0, "none"), (3, 10.0, "none"), (4, 3.0, "none")]
    _subset(tmp_path / "charts.npz", spots)
    first = _build(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "2 spots of 3,4,5,6,7,8,9,10 seats (0 withheld, not reproduced), 0 already done, 2 to reproduce" in \
        first.stdout
    again = _build(tmp_path)
    assert again.returncode == 0 and "2 already done, 0 to reproduce" in again.stdout
    built = read_overcalls(tmp_path / "overcalls.npz", read_charts(tmp_path / "charts.npz"))
    assert built.reason == "" and built.seat_counts() == [3, 4]
    for spot in spots[1:]:
        np.testing.assert_array_equal(built.steps_of(*spot), shipped_overcalls().steps_of(*spot))


def test_a_build_started_from_the_shipped_file_takes_its_unchanged_spots_and_solves_the_others(tmp_path: Path) -> None:
    """``--start-from``: the spots whose chart is the same as in the chart file the shipped over-call file was built
    for are checkpointed from it (nothing solved, the same steps); a spot whose chart differs is not."""
    spots = [(3, 10.0, "none"), (4, 10.0, "none")]
    _subset(tmp_path / "charts.npz", spots)
    start = ("--start-from", str(OVERCALL_FILE), "--start-charts", str(CHART_FILE))
    built = _build(tmp_path, *start)
    assert built.returncode == 0, built.stderr
    assert f"2 spots of {OVERCALL_FILE} checkpointed" in built.stdout and "0 to reproduce" in built.stdout
    written = read_overcalls(tmp_path / "overcalls.npz", read_charts(tmp_path / "charts.npz"))
    for spot in spots:
        np.testing.assert_array_equal(written.steps_of(*spot), shipped_overcalls().steps_of(*spot))
    # a spot whose chart is not the one the start file's ranges were made on is not taken from it
    charts = shipped_charts()
    rows = [_row(*spot) for spot in spots]
    header = {k: v for k, v in charts.header.items() if k != "content_sha256"}
    arrays = {name: getattr(charts, name)[rows].copy() for name in ARRAYS}
    arrays["gains"][1, 0] *= 2
    save_chart_file(tmp_path / "changed.npz", header, arrays)
    changed = subprocess.run([sys.executable, str(SCRIPT), "--charts", str(tmp_path / "changed.npz"), "--work",
                              str(tmp_path / "work2"), "--output", str(tmp_path / "overcalls2.npz"), "--seats", "3",
                              *start], capture_output=True, text=True, timeout=300, check=False)
    assert changed.returncode == 0, changed.stderr
    assert f"1 spots of {OVERCALL_FILE} checkpointed" in changed.stdout
    half = _build(tmp_path, "--start-from", str(OVERCALL_FILE))
    assert half.returncode == 2 and half.stderr.count("\n") == 1 and "--start-charts" in half.stderr


@pytest.mark.parametrize("bad", [("--seats", "2"), ("--seats", "ten"), ("--charts", "missing.npz"),
                                 ("--output", "absent/overcalls.npz")])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, bad: tuple[str, str]) -> None:
    value = str(tmp_path / bad[1]) if bad[0] in ("--charts", "--output") else bad[1]
    done = subprocess.run([sys.executable, str(SCRIPT), "--work", str(tmp_path / "work"), bad[0], value],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert not (tmp_path / "work").exists()


def test_the_chart_model_profile_is_read_back_whole() -> None:
    """The over-call rows with the jam and call charts are the profile's strategy at every node facing at most two
    all-ins (three seats: every node), read back from the tree by state, not by the row layout."""
    charts = shipped_charts()
    row = _row(3, 10.0, "none")
    spot = solve_spot(3, 10.0, "none", max_iterations=int(charts.iterations[row]))
    assert spot.strategy is not None
    jam, call = chart_arrays(spot.strategy.tree, spot.strategy)
    over = overcall_rows(spot.strategy)
    profile = spot.strategy
    nodes = {(): jam[0], (FOLD,): jam[1], (JAM,): call[1, 0], (FOLD, JAM): call[2, 1], (JAM, FOLD): call[2, 0],
             (JAM, JAM): over[0]}
    assert len(spot.strategy.tree.decision_nodes()) == len(nodes)
    for state, expected in nodes.items():
        np.testing.assert_array_equal(profile.block(profile.node_of(state))[:, 1], expected)


def test_the_cli_prints_exports_and_says_the_over_call_ranges(tmp_path: Path) -> None:
    """``--overcalls`` adds them to the printed grids (the largest depth at which each class calls), the JSON (by
    class) and the CSV (``call <jammer> and <first caller>``); without it, the JSON says they are shipped and holds
    none."""
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    runner = CliRunner()
    args = ["pushfold", "--chart", "full-ring", "--seats", "4", "--depths", "5,10"]
    text = runner.invoke(app, [*args, "--overcalls"])
    assert text.exit_code == 0, text.output
    assert text.output.count(" call up to this many bb") == 4
    assert "BB calls a CO jam and a BTN call up to this many bb" in text.output
    csv_path = tmp_path / "charts.csv"
    data = json.loads(runner.invoke(app, [*args, "--overcalls", "--json", "--csv", str(csv_path)]).output)
    charts = {c["depth_bb"]: c for c in data["charts"]}
    chart = full_ring_chart(4, 10, "none")
    assert chart.overcall is not None and charts[10.0]["overcalls_shipped"]
    shown = np.array([charts[10.0]["overcall"]["SB vs CO and BTN"][name] for name in CLASS_NAMES])
    np.testing.assert_allclose(shown, chart.overcall[2, 0, 1], atol=5e-5)
    rows = [line.split(",") for line in csv_path.read_text().splitlines()[1:]]
    over = [r for r in rows if r[1] == "call CO and BTN" and r[0] == "BB" and r[2] == "10.0"]
    assert len(over) == 169 and float(dict((r[3], r[4]) for r in over)["AA"]) == chart.overcall[3, 0, 1, 0]
    plain = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert all(c["overcalls_shipped"] and "overcall" not in c for c in plain["charts"])


def test_the_withheld_spots_are_the_short_ones_whose_solve_stopped_above_its_target() -> None:
    """The rule recomputed spot by spot from the chart file's gains and target; a withheld chart has no ranges and
    says why, its player reads the lone-jam chart facing a jam and a call, and a table over a withheld and a shipped
    depth shows, at the withheld one, the lone-jam call (written out here per class)."""
    charts = shipped_charts()
    target = charts.header["target_bb"]["multiway"]
    expected = [int(k[0]) >= 3 and float(k[1]) < 10.0 and float(max(charts.gains[i, :int(k[0])])) > target
                for i, k in enumerate(charts.key)]
    np.testing.assert_array_equal(overcalls_withheld(charts), expected)
    assert sum(expected) == 282  # the shipped file's: 41 and 44 at 5 and 6 seats, 46 to 51 at each of 7-10
    chart = full_ring_chart(5, 5, "none")  # MP, CO, BTN, SB, BB
    assert chart.overcalls_withheld and chart.overcall is None
    shown = chart.to_dict(overcalls=True)
    assert not shown["overcalls_shipped"] and "overcall" not in shown and "withheld" in shown["overcalls_why"]
    assert not full_ring_chart(5, 10, "none").to_dict()["overcalls_withheld"]
    _, _, profile = chart_profile(chart)
    np.testing.assert_array_equal(profile.block(profile.node_of((JAM, JAM, FOLD, FOLD)))[:, 1], chart.call[4, 0])
    table = full_ring_table(5, "none", [5, 10])
    deep = full_ring_chart(5, 10, "none")
    assert table.overcall_depth is not None and deep.overcall is not None
    for c, j, f in overcall_triples(5):
        by_hand = [10.0 if deep.overcall[c, j, f, k] >= 0.5 else 5.0 if chart.call[c, j, k] >= 0.5 else 0.0
                   for k in range(len(CLASS_NAMES))]
        np.testing.assert_array_equal(table.overcall_depth[c, j, f], by_hand)


def test_the_cli_says_where_the_over_call_ranges_are_withheld() -> None:
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    shown = CliRunner().invoke(app, ["pushfold", "--chart", "full-ring", "--seats", "5", "--depths", "4.5,5,12",
                                     "--overcalls"])
    assert shown.exit_code == 0, shown.output
    assert "over-call ranges withheld at 4.5, 5 bb" in shown.output
    assert shown.output.count(" call up to this many bb") == 10
