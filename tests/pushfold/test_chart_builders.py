"""scripts/build_fullring_charts.py and scripts/build_fullring_icm_charts.py: a spot built afresh equals the
shipped file's spot bit for bit (the solve is deterministic, so the package data comes out of the scripts in
the repository), a rerun resumes from the checkpoints without solving again, and bad input is one line, exit 2,
before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pokerlab.pushfold.fullring_charts import ARRAYS, ChartFile, read_charts, shipped_charts
from pokerlab.pushfold.fullring_icm_charts import read_icm_charts, shipped_icm_charts

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
EXACT = [name for name in ARRAYS if name not in ("key", "cpu_s")]  # cpu_s is the machine's, not the chart's


def _build(script: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / script), "--work", str(tmp_path / "work"),
                           "--output", str(tmp_path / "charts.npz"), *args],
                          capture_output=True, text=True, timeout=300, check=False)


def _assert_same_spot(built: ChartFile, shipped: ChartFile) -> None:
    assert len(built.key) == 1
    row = np.flatnonzero((shipped.key == built.key[0]).all(axis=1))
    assert len(row) == 1, f"spot {built.key[0]} is not in the shipped file"
    for name in EXACT:
        np.testing.assert_array_equal(getattr(built, name)[0], getattr(shipped, name)[row[0]], err_msg=name)


def test_chip_ev_builder_reproduces_a_shipped_spot_and_resumes(tmp_path: Path) -> None:
    args = ("--seats", "3", "--depths", "10", "--antes", "none")
    first = _build("build_fullring_charts.py", tmp_path, *args)
    assert first.returncode == 0, first.stderr
    _assert_same_spot(read_charts(tmp_path / "charts.npz"), shipped_charts())
    again = _build("build_fullring_charts.py", tmp_path, *args)
    assert again.returncode == 0, again.stderr
    assert "1 already checkpointed (and kept), 0 to solve" in again.stdout
    assert "[1/1]" not in again.stdout


def test_a_build_started_from_the_shipped_file_assembles_it_unchanged(tmp_path: Path) -> None:
    """``--start-from``: the shipped spots become checkpoints whose assembly is the shipped file's arrays (so a
    build extends the shipped grid without its old checkpoints), and nothing is solved."""
    from pokerlab.pushfold.fullring_charts import CHART_FILE

    args = ("--seats", "3", "--depths", "10", "--antes", "none", "--start-from", str(CHART_FILE))
    built = _build("build_fullring_charts.py", tmp_path, *args)
    assert built.returncode == 0, built.stderr
    assert "0 to solve" in built.stdout and "[1/1]" not in built.stdout
    assembled, shipped = read_charts(tmp_path / "charts.npz"), shipped_charts()
    assert assembled.header["content_sha256"] == shipped.header["content_sha256"]
    again = _build("build_fullring_charts.py", tmp_path, *args)
    assert f"0 spots of {CHART_FILE} checkpointed" in again.stdout
    other = tmp_path / "other.npz"
    other.write_bytes(b"not a chart file")
    refused = _build("build_fullring_charts.py", tmp_path, "--start-from", str(other), "--seats", "3")
    assert refused.returncode == 2 and refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1


def test_icm_builder_reproduces_a_shipped_spot(tmp_path: Path) -> None:
    built = _build("build_fullring_icm_charts.py", tmp_path, "--stages", "final", "--seats", "3", "--depths", "5")
    assert built.returncode == 0, built.stderr
    _assert_same_spot(read_icm_charts(tmp_path / "charts.npz"), shipped_icm_charts())


@pytest.mark.parametrize("script", ["build_fullring_charts.py", "build_fullring_icm_charts.py"])
@pytest.mark.parametrize("bad", [("--depths", "ten"), ("--seats", "1")])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, script: str, bad: tuple[str, str]) -> None:
    result = _build(script, tmp_path, *bad)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not (tmp_path / "work").exists() and not (tmp_path / "charts.npz").exists()


def test_missing_output_folder_is_refused_before_any_work(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SCRIPTS / "build_fullring_charts.py"), "--seats", "3",
                             "--depths", "10", "--antes", "none", "--work", str(tmp_path / "work"),
                             "--output", str(tmp_path / "absent" / "charts.npz")],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 2 and "does not exist" in result.stderr
    assert not (tmp_path / "work").exists()
