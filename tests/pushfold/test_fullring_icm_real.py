"""The shipped full-ring ICM charts valued in the real game (pokerlab.pushfold.fullring_icm_real): a winner-take-all
prize pool, where ICM equity is the chip share, gives the chip-EV measurement scaled (a closed form); money is
conserved; the shipped measurements match the shipped ICM charts and come out again; the CLI and the JSON carry
them (the web answer and page: tests/web/test_fullring_charts.py); a file of another chart file is not used; the
builder's ICM mode and its bad input."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.pushfold import Table
from pokerlab.games.pushfold.joint_icm import IcmJointPotGame
from pokerlab.pushfold.fullring_charts import full_ring_chart
from pokerlab.pushfold.fullring_icm import POOL, STAGES, icm_payoff
from pokerlab.pushfold.fullring_icm_charts import (
    ICM_REAL_GAME_FILE,
    icm_chart,
    icm_real_game_dict,
    read_icm_charts,
    read_icm_real_game,
    shipped_icm_charts,
    shipped_icm_real_game,
    stage_real_game,
)
from pokerlab.pushfold.fullring_icm_real import measure_icm_chart, measure_in
from pokerlab.pushfold.fullring_real import measure_chart

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_fullring_real_game.py"


def _winner_takes_all(seats: int, depth: float) -> IcmJointPotGame:
    """The ICM chart model's game of equal stacks with one place paid: ICM equity is then the pool times the chip
    share, so every payoff is the chip change times pool / chips."""
    stacks = np.full(seats, depth)
    equity = icm_payoff(stacks, (POOL,))
    before = equity(stacks)

    def change(final: np.ndarray) -> np.ndarray:
        out: np.ndarray = equity(final) - before
        return out

    return IcmJointPotGame(Table(tuple(float(s) for s in stacks), 0.5, 1.0), change)


@pytest.mark.parametrize(("seats", "depth"), [(3, 10.0), (5, 7.0)])
def test_winner_take_all_is_the_chip_measurement_scaled(seats: int, depth: float) -> None:
    """On the same deals and seed, every value, gain and standard error is the chip-EV measurement's times pool /
    chips (the same profile, the payoffs of every outcome scaled)."""
    chart = full_ring_chart(seats, depth, "none")
    scale = POOL / (seats * depth)
    money = measure_in(_winner_takes_all(seats, depth), chart, deals=4_000, seed=11)
    chips = measure_chart(chart, deals=4_000, seed=11)
    assert money.deals == chips.deals == 4_000
    for name in ("values", "value_errors", "low", "low_errors", "high"):
        np.testing.assert_allclose(getattr(money, name), scale * getattr(chips, name), rtol=1e-9, atol=1e-12)
    assert chips.high.max() > 1e-4  # the comparison is not of zeros


def test_a_game_of_another_table_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="not the chart's"):
        measure_in(_winner_takes_all(4, 10.0), full_ring_chart(3, 10.0, "none"), deals=200)


@pytest.mark.parametrize(("seats", "depth", "stage"), [(3, 10, "bubble"), (6, 5, "final")])
def test_icm_values_sum_to_the_pool(seats: int, depth: float, stage: str) -> None:
    measured = measure_icm_chart(icm_chart(seats, depth, stage), stage, deals=2_000, seed=3)
    assert abs(float(measured.values.sum()) - POOL) < 1e-9
    assert (measured.high >= measured.low - 4 * measured.low_errors - 1e-12).all()


@pytest.fixture(scope="module")
def shipped():
    stored = shipped_icm_real_game()
    assert stored.reason == "", stored.reason
    return stored


def test_every_shipped_icm_chart_is_measured_and_conserves_money(shipped) -> None:
    charts = shipped_icm_charts()
    assert shipped.header["chart_content_sha256"] == charts.header["content_sha256"]
    np.testing.assert_array_equal(shipped.arrays["key"], charts.key)
    for row, n in enumerate(charts.key[:, 0].astype(int)):
        assert abs(float(shipped.arrays["values"][row, :n].sum()) - POOL) < 1e-3  # float32 per seat
        assert np.isnan(shipped.arrays["values"][row, n:]).all()
        assert (shipped.arrays["high"][row, :n] >= shipped.arrays["low"][row, :n]
                - 4 * shipped.arrays["low_errors"][row, :n] - 1e-6).all()


@pytest.mark.parametrize(("seats", "depth", "stage"), [(3, 10.0, "bubble"), (4, 20.0, "final")])
def test_a_shipped_icm_measurement_is_reproduced(shipped, seats: int, depth: float, stage: str) -> None:
    chart = icm_chart(seats, depth, stage)
    stored = stage_real_game(stage, shipped).of(chart)
    assert stored is not None and stored.deals == shipped.header["deals"]
    fresh = measure_icm_chart(chart, stage, deals=stored.deals, seed=stored.seed)
    for name in ("values", "value_errors", "low", "low_errors", "high"):
        np.testing.assert_allclose(getattr(stored, name), getattr(fresh, name).astype(np.float32), rtol=0, atol=0)


def test_a_file_of_other_icm_charts_is_not_used() -> None:
    charts = shipped_icm_charts()
    other = replace(charts, header=charts.header | {"content_sha256": "0" * 64})
    stored = read_icm_real_game(ICM_REAL_GAME_FILE, other)
    assert stored.reason.startswith("measured on another ICM chart file")
    assert stored.of(icm_chart(3, 10, "final")) is None


def test_the_json_and_the_cli_carry_the_measurement(shipped) -> None:
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    data = icm_real_game_dict(icm_chart(9, 15, "bubble"), "bubble")
    assert data["measured"] and len(data["gains_low_money"]) == 9 and abs(sum(data["values_money"]) - POOL) < 1e-3
    assert "where the spot's over-call ranges are shipped" in data["profile"]
    args = ["pushfold", "--chart", "full-ring", "--icm", "final", "--seats", "6", "--depths", "10,20"]
    text = " ".join(CliRunner().invoke(app, args).output.split())
    measured = [stage_real_game("final", shipped).of(icm_chart(6, d, "final")) for d in (10, 20)]
    largest = max(float(m.low.max()) for m in measured if m is not None)
    assert f"(with their over-call ranges): largest gain {largest:.1e} money" in text


def test_the_builder_measures_the_icm_charts_and_resumes(tmp_path: Path) -> None:
    """Three seats only (the file is written once every spot is measured: exit 1 saying so), on 300 deals: each
    checkpoint is what measure_icm_chart gives; a rerun measures nothing."""
    work, out = tmp_path / "work", tmp_path / "icm.npz"
    command = [sys.executable, str(SCRIPT), "--icm", "--seats", "3", "--deals", "300", "--work", str(work),
               "--output", str(out)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 1 and "not measured yet" in first.stderr and not out.exists()
    charts = read_icm_charts()
    three = int((charts.key[:, 0] == 3).sum())
    assert len(list(work.glob("icm-*.npz"))) == three
    stage, depth = STAGES[1], 10.0
    header = np.load(work / f"icm-{stage}-03-{depth:06.2f}.npz")
    fresh = measure_icm_chart(icm_chart(3, depth, stage), stage, deals=300)
    np.testing.assert_array_equal(header["low"], fresh.low)
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert f"{three} ICM spots, {three} already measured, 0 to measure" in again.stdout


@pytest.mark.parametrize("bad", [["--start-from", "a", "b", "c"], ["--deals", "5"]])
def test_the_builders_bad_icm_input_is_one_line_and_exit_2(tmp_path: Path, bad: list[str]) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--icm", *bad, "--work", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith("error:") and len(result.stderr.splitlines()) == 1
