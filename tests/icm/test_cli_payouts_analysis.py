"""CLI, payout structures, stack generator and tournament analysis."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.errors import InvalidPayoutsError
from pokerlab.icm import flat, icm, parse_payouts, power_law, standard, truncated_normal_stacks
from pokerlab.icm.analysis import bubble_factors, deal, plot_shares

runner = CliRunner()


def test_cli_json_shape():
    result = runner.invoke(app, ["icm", "--stacks", "5000,3000,2000", "--payouts", "50,30,20", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "exact" and isinstance(data["elapsed_s"], float)
    assert [set(p) for p in data["players"]] == [{"stack", "equity", "stderr"}] * 3
    assert data["players"][0]["equity"] == pytest.approx(1075 / 28, rel=1e-12)
    assert data["players"][0]["stderr"] is None


def test_cli_montecarlo_and_options(tmp_path):
    stacks_file = tmp_path / "stacks.txt"
    stacks_file.write_text("5000\n3000\n2000\n1000\n")
    result = runner.invoke(
        app, ["icm", "--stacks-file", str(stacks_file), "--payouts", "power:a=1,pool=1000,paid=3", "--method",
              "montecarlo", "--samples", "20000", "--seed", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"].startswith("montecarlo") and all(p["stderr"] > 0 for p in data["players"])
    plot = tmp_path / "shares.png"
    result = runner.invoke(app, ["icm", "--stacks", "5000,3000,2000", "--payouts", "65/35", "--places",
                                 "--bubble-factors", "--deal", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "bubble" in result.output and plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args",
    [
        ["--stacks", "5000,-1", "--payouts", "50"],
        ["--stacks", "5000,abc", "--payouts", "50"],
        ["--stacks", "5000,3000", "--payouts", "50,30,20"],
        ["--stacks", "5000,3000", "--payouts", "power:paid=x"],
        ["--stacks", "5000,3000", "--payouts", "50", "--method", "magic"],
        ["--stacks-file", "/nonexistent/file", "--payouts", "50"],
        ["--payouts", "50"],
    ],
)
def test_cli_bad_input_one_line_exit_2(args):
    result = runner.invoke(app, ["icm", *args])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_payout_structures(tmp_path):
    np.testing.assert_allclose(power_law(3, 110.0, 1.0), [60.0, 30.0, 20.0])
    np.testing.assert_allclose(flat(4, 100.0), 25.0)
    np.testing.assert_allclose(standard("65/35", 100.0), [65.0, 35.0])
    np.testing.assert_allclose(parse_payouts("power:a=1,pool=1000,paid=40"), power_law(40, 1000.0, 1.0))
    np.testing.assert_allclose(parse_payouts("50/30/20"), [50.0, 30.0, 20.0])
    np.testing.assert_allclose(parse_payouts("flat:pool=90,paid=9"), 10.0)
    np.testing.assert_allclose(parse_payouts("7,2.5"), [7.0, 2.5])
    column = tmp_path / "column.csv"
    column.write_text("payout\n500\n300\n200\n")
    np.testing.assert_allclose(parse_payouts(str(column)), [500.0, 300.0, 200.0])
    row = tmp_path / "row.csv"
    row.write_text("50,30,20\n")
    np.testing.assert_allclose(parse_payouts(f"file:{row}"), [50.0, 30.0, 20.0])
    for bad in ["", "power:a=1", "power:zz=3,paid=2", "nonsense", "flat:pool=-1,paid=3"]:
        with pytest.raises(InvalidPayoutsError):
            parse_payouts(bad)


def test_truncated_normal_stacks():
    a = truncated_normal_stacks(1000, mean=10_000, sd=5_000, seed=1)
    assert a.shape == (1000,) and np.all(a >= 500) and np.array_equal(a, truncated_normal_stacks(1000, seed=1))
    assert 9_000 < a.mean() < 12_000


def test_bubble_factors_against_direct_icm():
    stacks, payouts = [5000.0, 3000.0, 2000.0], [50.0, 30.0, 20.0]
    bf = bubble_factors(stacks, payouts)
    base = icm(stacks, payouts).equity
    win = icm([8000.0, 0.0, 2000.0], payouts).equity[0] - base[0]
    lose = base[0] - icm([2000.0, 6000.0, 2000.0], payouts).equity[0]
    assert bf.factor[0, 1] == pytest.approx(lose / win, rel=1e-12)
    assert bf.risk_premium[0, 1] == pytest.approx(bf.factor[0, 1] / (1 + bf.factor[0, 1]) - 0.5)
    assert np.all(bf.factor[~np.eye(3, dtype=bool)] > 1.0)  # ICM makes every all-in cost more than it wins
    # a winner-take-all payout is chip EV: bubble factor 1
    assert bubble_factors(stacks, [100.0]).factor[0, 1] == pytest.approx(1.0, rel=1e-12)


def test_deal():
    d = deal([5000.0, 3000.0, 2000.0], [50.0, 30.0, 20.0])
    np.testing.assert_allclose(d.chip, [40.0, 32.0, 28.0])
    np.testing.assert_allclose(d.icm, [1075 / 28, 131 / 4, 202 / 7], rtol=1e-13)
    assert d.chip_minus_icm.sum() == pytest.approx(0.0, abs=1e-12)
    assert d.to_dict()["players"][0]["chip_minus_icm"] == pytest.approx(40.0 - 1075 / 28)


def test_plot(tmp_path):
    path = plot_shares(icm([5000, 3000, 2000], [50, 30, 20]), tmp_path / "p.png")
    assert path.stat().st_size > 1000
