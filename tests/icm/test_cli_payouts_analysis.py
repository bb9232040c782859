"""CLI, payout structures, stack generator and tournament analysis."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidPayoutsError
from pokerlab.icm import flat, icm, parse_payouts, power_law, standard, truncated_normal_stacks
from pokerlab.icm.analysis import bubble_factors, deal, plot_shares
from pokerlab.icm.payouts import from_csv

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


def test_cli_stopping_rules():
    """--half-width stops once every player is within it at the confidence asked; --time and
    --variance-reduction reach the library (the method names the estimator)."""
    stacks = ["--stacks", "5000,3000,2000,1000", "--payouts", "50,30,20", "--method", "montecarlo", "--seed", "3"]
    result = runner.invoke(app, ["icm", *stacks, "--half-width", "0.2", "--confidence", "0.9", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "precision"
    assert all(1.6448536269514722 * p["stderr"] <= 0.2 for p in data["players"])
    exact = icm([5000, 3000, 2000, 1000], [50, 30, 20]).equity
    assert all(abs(p["equity"] - e) <= 4 * p["stderr"] for p, e in zip(data["players"], exact, strict=True))
    result = runner.invoke(app, ["icm", *stacks, "--time", "0.05", "--variance-reduction", "conditional", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "montecarlo-conditional" and data["samples"] >= 2 and data["stop_reason"] == "time"
    places = runner.invoke(app, ["icm", *stacks, "--samples", "5000", "--places", "--json"])
    assert places.exit_code == 0, places.output
    players = json.loads(places.stdout)["players"]
    sampled = np.array([p["places"] for p in players])
    errors = np.array([p["places_stderr"] for p in players])
    exact_places = icm([5000, 3000, 2000, 1000], [50, 30, 20], places=True).places
    assert sampled.shape == exact_places.shape and np.all(np.abs(sampled - exact_places) <= 4 * errors)
    table = runner.invoke(app, ["icm", *stacks, "--samples", "5000", "--places"])
    assert "±" in table.output
    table = runner.invoke(app, ["icm", *stacks, "--samples", "1024"])
    assert "1,024 samples, stopped on trials" in " ".join(table.output.split()), table.output


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
    assert_one_line_error(["icm", *args])


def assert_one_line_error(args: list[str], message: str = "") -> None:
    """Exit status 2, exactly one ``error:`` line (stderr is part of ``output``), and a clean SystemExit (an
    uncaught exception would be the ``result.exception`` instead)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert message in lines[0]


@pytest.fixture()
def binary_file(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(256)) * 4)
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--stacks", "5000,3000", "--payouts", "50,30", "--plot", "p.txt"], "use one of .png, .pdf, .svg"),
        (["--stacks", "5000,3000", "--payouts", "power:paid=inf"], "paid places must be a whole number, got float inf"),
        (["--stacks", "5000,3000", "--payouts", "power:paid=nan"], "paid places must be a whole number, got float nan"),
        (["--stacks", "5000,3000", "--payouts", "power:paid=1e12"], "from 1 to 1,000,000"),
        (["--stacks", "5000,3000", "--payouts", "flat:paid=0"], "from 1 to 1,000,000"),
        (["--stacks", "5000,3000", "--payouts", "power:paid=2.5"], "whole number"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--seed", "-1"], "seed must be at least 0"),
        (["--stacks", "5,3", "--payouts", "50", "--seed", "1"], "seed applies only to --method montecarlo"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "exact", "--samples", "100"],
         "samples applies only to --method montecarlo"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--samples", "1"],
         "samples must be at least"),
        (["--stacks", "5,3,1", "--payouts", "50,30", "--method", "montecarlo", "--places", "--variance-reduction",
          "conditional"], "counted from plain samples"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "magic"], "unknown ICM method 'magic'"),
        (["--stacks", "5,3", "--payouts", "50", "--half-width", "1"],
         "--half-width applies only to --method montecarlo"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--variance-reduction", "magic"],
         "unknown variance reduction 'magic'"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--half-width", "1", "--confidence", "1"],
         "confidence must be strictly between 0 and 1"),
        (["--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--time", "0"], "time limit must be"),
        (["--stacks", "5,3", "--payouts", "50", "--confidence", "0.9"],
         "confidence applies only to --method montecarlo"),

    ],
)
def test_cli_errors_name_the_problem(args, message):
    assert_one_line_error(["icm", *args], message)


def test_cli_binary_files_are_format_errors(binary_file, tmp_path):
    assert_one_line_error(["icm", "--stacks-file", str(binary_file), "--payouts", "50"], "not a UTF-8 text file")
    assert_one_line_error(["icm", "--stacks", "5,3", "--payouts", f"file:{binary_file}"], "not a UTF-8 text file")
    nul = tmp_path / "nul.csv"
    nul.write_bytes(b"50\x00,30\n")  # valid UTF-8, still not text
    assert_one_line_error(["icm", "--stacks", "5,3", "--payouts", f"file:{nul}"], "contains NUL bytes")
    assert_one_line_error(["icm", "--stacks-file", str(nul), "--payouts", "50"], "contains NUL bytes")


def test_from_csv_binary_is_file_format_error(binary_file):
    with pytest.raises(FileFormatError, match="not a UTF-8 text file"):
        from_csv(binary_file)


@pytest.mark.parametrize("paid", [0, -3, 2.5, float("inf"), float("nan"), 10**12, True])
def test_payout_generators_check_paid(paid):
    with pytest.raises(InvalidPayoutsError, match="paid places must be"):
        power_law(paid)
    with pytest.raises(InvalidPayoutsError, match="paid places must be"):
        flat(paid)


def test_cli_plot_prints_the_path_written(tmp_path):
    result = runner.invoke(app, ["icm", "--stacks", "5,3", "--payouts", "50,30", "--plot", str(tmp_path / "shares")])
    assert result.exit_code == 0, result.output
    written = tmp_path / "shares.png"
    assert written.read_bytes()[:4] == b"\x89PNG" and not (tmp_path / "shares").exists()
    # rich may wrap a long path: compare without whitespace
    assert f"plotwrittento{written}" in "".join(result.output.split())


def test_cli_huge_stacks():
    result = runner.invoke(app, ["icm", "--stacks", "1e308,1e308", "--payouts", "50,30", "--json"])
    assert result.exit_code == 0, result.output
    assert [p["equity"] for p in json.loads(result.stdout)["players"]] == pytest.approx([40.0, 40.0], rel=1e-12)


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


def test_deal_with_a_busted_player():
    """The busted player keeps the 3rd-place money; heads-up the ICM is linear in chips, so chip chop == ICM."""
    d = deal([5000.0, 0.0, 3000.0], [50.0, 30.0, 20.0])
    np.testing.assert_allclose(d.icm, [42.5, 20.0, 37.5], rtol=1e-13)
    np.testing.assert_allclose(d.chip, [42.5, 20.0, 37.5], rtol=1e-13)
    # two busted players share places 4 and 5 equally; the three live players chop places 1-3
    d = deal([0.0, 5000.0, 3000.0, 0.0, 2000.0], [40.0, 25.0, 15.0, 12.0, 8.0])
    np.testing.assert_allclose(d.chip[[0, 3]], 10.0)
    np.testing.assert_allclose(d.chip[[1, 2, 4]], 15.0 + 35.0 * np.array([0.5, 0.3, 0.2]), rtol=1e-13)
    assert d.chip.sum() == pytest.approx(100.0) and d.icm.sum() == pytest.approx(100.0)


def test_bubble_factors_with_a_busted_player():
    """Heads-up between the live players is linear in chips: every bubble factor is 1, busted rows/cols nan."""
    bf = bubble_factors([5000.0, 0.0, 3000.0], [50.0, 30.0, 20.0])
    assert bf.factor[0, 2] == pytest.approx(1.0, rel=1e-12) and bf.factor[2, 0] == pytest.approx(1.0, rel=1e-12)
    assert np.isnan(bf.factor[1]).all() and np.isnan(bf.factor[:, 1]).all()
    # a busted player changes nothing for the live ones
    with_busted = bubble_factors([5000.0, 0.0, 3000.0, 2000.0], [50.0, 30.0, 20.0, 10.0])
    alone = bubble_factors([5000.0, 3000.0, 2000.0], [50.0, 30.0, 20.0])
    live = [0, 2, 3]
    np.testing.assert_allclose(with_busted.factor[np.ix_(live, live)], alone.factor, rtol=1e-12)


def test_analysis_of_huge_stacks():
    np.testing.assert_allclose(deal([1e308, 1e308], [50.0, 30.0]).chip, [40.0, 40.0])
    bf = bubble_factors([1e308, 1e308], [50.0, 30.0])
    assert bf.factor[0, 1] == pytest.approx(1.0, rel=1e-12)


def test_plot(tmp_path):
    path = plot_shares(icm([5000, 3000, 2000], [50, 30, 20]), tmp_path / "p.png")
    assert path == tmp_path / "p.png" and path.stat().st_size > 1000
    assert plot_shares(icm([5000, 3000], [50, 30]), tmp_path / "q") == tmp_path / "q.png"
    with pytest.raises(InvalidArgumentError, match="use one of .png, .pdf, .svg"):
        plot_shares(icm([5000, 3000], [50, 30]), tmp_path / "p.txt")
    assert not (tmp_path / "p.txt").exists()
