"""The ICM charts' over-call ranges: every shipped ICM spot's, reproduced from its stored iteration count (the
solve is deterministic), read by stage, played in the real-game measurement and shown by the CLI and the JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.pushfold import fullring_icm_charts
from pokerlab.pushfold.fullring_charts import ARRAYS, no_overcalls, overcall_triples, quantise, save_chart_file
from pokerlab.pushfold.fullring_icm import STAGES
from pokerlab.pushfold.fullring_icm_charts import (
    ICM_REAL_GAME_FILE,
    icm_chart,
    read_icm_charts,
    read_icm_overcalls,
    read_icm_real_game,
    shipped_icm_charts,
    shipped_icm_overcalls,
    stage_charts,
)
from pokerlab.pushfold.fullring_overcalls import overcall_rows, reproduce_icm_spot


def test_every_icm_spot_has_its_over_call_ranges() -> None:
    charts = shipped_icm_charts()
    overcalls = shipped_icm_overcalls()
    assert overcalls.reason == ""
    assert overcalls.header["chart_content_sha256"] == charts.header["content_sha256"]
    assert np.array_equal(overcalls.key, charts.key)  # both stages, every spot (none withheld)


@pytest.mark.parametrize(("seats", "depth", "stage"), [(3, 10.0, "bubble"), (4, 20.0, "final")])
def test_a_spot_solved_again_gives_the_shipped_ranges(seats: int, depth: float, stage: str) -> None:
    """The spot solved afresh to its stored iteration count: the stored gains, and the shipped over-call ranges
    step for step."""
    charts = shipped_icm_charts()
    row = int(np.flatnonzero((charts.key[:, 0] == seats) & (charts.key[:, 1] == depth)
                             & (charts.key[:, 3] == STAGES.index(stage)))[0])
    profile = reproduce_icm_spot(seats, depth, stage, int(charts.iterations[row]), charts.gains[row, :seats])
    shipped = stage_charts(stage).overcalls
    assert shipped is not None
    steps = shipped.steps_of(seats, depth, "none")
    assert steps is not None and np.array_equal(quantise(overcall_rows(profile)), steps)
    with pytest.raises(ValueError, match="the ICM chart file stores"):
        reproduce_icm_spot(seats, depth, stage, int(charts.iterations[row]), charts.gains[row, :seats] + 1)


def test_a_chart_reads_its_stage_s_ranges() -> None:
    """Facing a CO jam and a BTN call, the big blind calls AA and a range tighter than against the jam alone; the
    bubble's (three paid of four) tighter still than the final table's; each stage reads its own rows."""
    final, bubble = icm_chart(4, 10, "final"), icm_chart(4, 10, "bubble")
    assert final.overcall is not None and bubble.overcall is not None
    facing, lone = final.overcall[3, 0, 1], final.call[3, 0]
    assert facing[0] == 1.0 and facing.sum() < lone.sum()
    assert bubble.overcall[3, 0, 1].sum() < facing.sum()
    stored = shipped_icm_overcalls()  # the file's own rows, found by the stage column of its key
    for stage, chart in (("final", final), ("bubble", bubble)):
        s = int(np.flatnonzero((stored.key[:, 0] == 4) & (stored.key[:, 1] == 10.0)
                               & (stored.key[:, 3] == STAGES.index(stage)))[0])
        steps = stored.rows[stored.start[s]:stored.start[s + 1]]
        for r, (c, j, f) in enumerate(overcall_triples(4)):
            assert np.array_equal(quantise(chart.overcall[c, j, f]), steps[r])


def test_the_real_game_file_names_the_ranges_it_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ICM real-game file is keyed on the over-call file's hash: read against other ranges (none here) it is
    not used, and says why."""
    assert read_icm_real_game(ICM_REAL_GAME_FILE, shipped_icm_charts()).reason == ""
    monkeypatch.setattr(fullring_icm_charts, "icm_overcalls_of", lambda charts: no_overcalls("none here"))
    stored = read_icm_real_game(ICM_REAL_GAME_FILE, shipped_icm_charts())
    assert stored.reason.startswith("measured with other over-call ranges")


def test_the_cli_prints_and_exports_them() -> None:
    runner = CliRunner()
    args = ["pushfold", "--chart", "full-ring", "--icm", "bubble", "--seats", "4", "--depths", "10", "--overcalls"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "BB calls a CO jam and a BTN call up to this many bb" in text.output
    data = runner.invoke(app, [*args, "--json"])
    chart = json.loads(data.output)["charts"][0]
    assert chart["overcalls_shipped"] and set(chart["overcall"]) == {"SB vs CO and BTN", "BB vs CO and BTN",
                                                                     "BB vs CO and SB", "BB vs BTN and SB"}


SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_fullring_overcalls.py"


def test_the_builder_reproduces_the_shipped_icm_ranges(tmp_path: Path) -> None:
    """``--icm`` on a file of two shipped ICM spots (one per stage): their ranges as shipped; ``--start-from``, which
    extends the chip-EV file, is refused with ``--icm`` in one line."""
    charts = shipped_icm_charts()
    spots = [(3, 10.0, "bubble"), (4, 10.0, "final")]
    rows = [int(np.flatnonzero((charts.key[:, 0] == s) & (charts.key[:, 1] == d)
                               & (charts.key[:, 3] == STAGES.index(stage)))[0]) for s, d, stage in spots]
    header = {k: v for k, v in charts.header.items() if k != "content_sha256"}
    save_chart_file(tmp_path / "icm.npz", header, {name: getattr(charts, name)[rows].copy() for name in ARRAYS})
    command = [sys.executable, str(SCRIPT), "--icm", "--charts", str(tmp_path / "icm.npz"), "--work",
               str(tmp_path / "work"), "--output", str(tmp_path / "overcalls.npz")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "2 spots of 3,4,5,6,7,8,9,10 seats (0 withheld, not reproduced), 0 already done, 2 to reproduce" in \
        done.stdout
    built = read_icm_overcalls(tmp_path / "overcalls.npz", read_icm_charts(tmp_path / "icm.npz"))
    assert built.reason == ""
    for seats, depth, stage in spots:
        mine = built.subset(built.key[:, 3] == STAGES.index(stage)).steps_of(seats, depth, "none")
        shipped = stage_charts(stage).overcalls
        assert shipped is not None and mine is not None
        np.testing.assert_array_equal(mine, shipped.steps_of(seats, depth, "none"))
    refused = subprocess.run([*command, "--start-from", "a.npz", "--start-charts", "b.npz"], capture_output=True,
                             text=True, timeout=120, check=False)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--icm" in refused.stderr
