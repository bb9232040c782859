"""Reports over many flops: the flop classes against an independent count, subsets that keep the textures'
shares, texture words on hand-made flops, a report's rows against direct solves and its aggregates against
weighted means written here, resume from a checkpoint without solving again, Ctrl-C, and bad input."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations, permutations

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.encoding import parse_cards
from pokerlab.cli.main import app
from pokerlab.errors import InvalidArgumentError
from pokerlab.postflop import solve
from pokerlab.postflop.flops import distinct_flops, flop_subset, parse_flops, texture
from pokerlab.postflop.report import FlopTask, flop_report

SPOT = {"oop": "AA, KK, QQ", "ip": "AKs, JJ", "pot": 100, "stack": 100, "bets": "a", "raises": ""}
ITERATIONS = 20  # a fixed count, no target: a solve is then the same wherever it runs


def test_the_1755_flop_classes_match_a_count_by_suit_relabelling():
    """Independent of the module's numpy canonical form: relabel each flop's suits in order of first appearance,
    trying every order of its cards of equal rank, and keep the least; count the classes and their sizes."""
    def key(flop: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        best = None
        for order in permutations(sorted(flop, reverse=True)):
            if [c // 4 for c in order] != sorted((c // 4 for c in flop), reverse=True):
                continue
            names: dict[int, int] = {}
            labelled = tuple((c // 4, names.setdefault(c % 4, len(names))) for c in order)
            best = labelled if best is None or labelled < best else best
        return best

    counted = Counter(key(flop) for flop in combinations(range(52), 3))
    flops = distinct_flops()
    assert len(counted) == len(flops.weights) == 1755 and sum(counted.values()) == flops.weights.sum() == 22100
    mine = Counter()
    for cards, weight in zip(flops.cards, flops.weights, strict=True):
        mine[key(tuple(int(c) for c in cards))] += int(weight)
    assert mine == counted


@pytest.mark.parametrize("size", [49, 95, 184])
def test_subsets_keep_every_textures_share_to_within_a_run(size):
    flops, subset = distinct_flops(), flop_subset(size)
    assert len(subset.weights) == size and subset.weights.sum() == 22100
    assert len({tuple(c) for c in subset.cards.tolist()}) == size  # distinct classes
    run = 22100 / size
    for field in ("suits", "pairing", "high"):
        full, sub = Counter(), Counter()
        for cards, weight in zip(flops.cards, flops.weights, strict=True):
            full[texture(cards)[field]] += int(weight)
        for cards, weight in zip(subset.cards, subset.weights, strict=True):
            sub[texture(cards)[field]] += int(weight)
        for value, weight in full.items():
            assert abs(sub[value] - weight) <= 2 * run, (field, value, sub[value], weight)


@pytest.mark.parametrize(("flop", "words"), [
    ("Kh7h2h", ("monotone", "unpaired", "K", "disconnected")),
    ("Ah7h2h", ("monotone", "unpaired", "A", "semi-connected")),  # a wheel needs one more board card
    ("Ah2d3c", ("rainbow", "unpaired", "A", "connected")),  # the wheel: the ace plays low
    ("KsQd2s", ("two-tone", "unpaired", "K", "semi-connected")),
    ("9s8d7c", ("rainbow", "unpaired", "T-", "connected")),
    ("JsJd4c", ("rainbow", "paired", "J", "disconnected")),
    ("5s5d5c", ("rainbow", "trips", "T-", "disconnected")),
    ("QhTh6h", ("monotone", "unpaired", "Q", "semi-connected")),
])
def test_texture_words(flop, words):
    assert tuple(texture(parse_cards(flop)).values()) == words


def test_report_rows_are_the_direct_solves_and_aggregates_their_weighted_means(tmp_path, monkeypatch):
    flops = "AsKd2c 7h7d2c"
    report = flop_report(**SPOT, flops=flops, iterations=ITERATIONS, target=None, workers=0,
                         checkpoint=tmp_path / "ck")
    assert report.complete and report.actions == ("check", "all-in 100")
    direct = solve("AsKd2c", SPOT["oop"], SPOT["ip"], pot=100, stack=100, bets="a", raises="",
                   iterations=ITERATIONS, target=None)
    row = report.rows[0]
    assert row["flop"] == "AsKd2c" and row["weight"] == 24 and row["iterations"] == ITERATIONS
    assert row["frequencies"] == pytest.approx(direct.root.frequencies, abs=1e-12)
    assert (row["oop_ev"], row["ip_ev"]) == pytest.approx(direct.ev, abs=1e-9)
    assert row["exploitability_percent"] == pytest.approx(direct.exploitability_percent, abs=1e-9)
    for r in report.rows:  # chips: the two EVs share the pot
        assert r["oop_ev"] + r["ip_ev"] == pytest.approx(100, abs=1e-6)
    w = np.array([24.0, 12.0])
    everything = report.aggregate()["all"]
    assert everything["weight"] == 36
    assert everything["oop_ev"] == pytest.approx(w @ [r["oop_ev"] for r in report.rows] / w.sum(), abs=1e-12)
    assert everything["frequencies"]["check"] == pytest.approx(
        w @ [r["frequencies"]["check"] for r in report.rows] / w.sum(), abs=1e-12)
    assert set(report.aggregate("pairing")) == {"unpaired", "paired"}
    written = report.write(tmp_path / "out", plot=True)
    assert sorted(p.name for p in written) == ["flops.parquet", "frequencies.png", "summary.json"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["complete"] and summary["fingerprint"] == report.fingerprint and len(summary["code"]) == 16

    # the same report again: every flop from the checkpoint, nothing solved
    def refuse(self, index):
        raise AssertionError("solved again")

    monkeypatch.setattr(FlopTask, "__call__", refuse)
    again = flop_report(**SPOT, flops=flops, iterations=ITERATIONS, target=None, workers=0,
                        checkpoint=tmp_path / "ck")
    assert again.rows == report.rows
    with pytest.raises(InvalidArgumentError, match="different run"):  # other inputs, same folder
        flop_report(**SPOT, flops=flops, iterations=ITERATIONS + 1, target=None, workers=0,
                    checkpoint=tmp_path / "ck")


def test_a_compressed_report_is_the_compressed_solves(tmp_path):
    """``compress``: each row is the 16-bit solve of its flop; the EVs are the float32 report's within twice the
    two solves' exploitabilities (each the mean of two best-response gains); the storage is part of the
    fingerprint, so a checkpoint of one storage is refused for the other; the CLI's --compress is the same."""
    packed = flop_report(**SPOT, flops="AsKd2c", iterations=ITERATIONS, target=None, workers=0, compress=True,
                         checkpoint=tmp_path / "ck")
    plain = flop_report(**SPOT, flops="AsKd2c", iterations=ITERATIONS, target=None, workers=0)
    direct = solve("AsKd2c", SPOT["oop"], SPOT["ip"], pot=100, stack=100, bets="a", raises="",
                   iterations=ITERATIONS, target=None, compress=True)
    assert packed.spot["compress"] is True and plain.spot["compress"] is False
    assert packed.fingerprint != plain.fingerprint
    row, other = packed.rows[0], plain.rows[0]
    assert row["frequencies"] == pytest.approx(direct.root.frequencies, abs=1e-12)
    assert (row["oop_ev"], row["ip_ev"]) == pytest.approx(direct.ev, abs=1e-9)
    assert row["exploitability_percent"] == pytest.approx(direct.exploitability_percent, abs=1e-9)
    assert row["exploitability_percent"] != other["exploitability_percent"]  # the other storage's solve
    bound = 2 * (row["exploitability_percent"] + other["exploitability_percent"]) / 100 * SPOT["pot"]
    assert row["oop_ev"] == pytest.approx(other["oop_ev"], abs=bound)
    assert row["oop_ev"] + row["ip_ev"] == pytest.approx(100, abs=1e-6)
    with pytest.raises(InvalidArgumentError, match="different run"):
        flop_report(**SPOT, flops="AsKd2c", iterations=ITERATIONS, target=None, workers=0,
                    checkpoint=tmp_path / "ck")
    argv = ["postflop", "report", "--oop", SPOT["oop"], "--ip", SPOT["ip"], "--pot", "100", "--stack", "100",
            "--bets", "a", "--raises", "", "--flops", "AsKd2c", "--iterations", str(ITERATIONS), "--target",
            "0.0001%", "--workers", "0", "--compress", "--json"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["spot"]["compress"] is True
    assert summary["rows"][0]["oop_ev"] == pytest.approx(row["oop_ev"], abs=1e-9)


def test_ctrl_c_keeps_the_finished_flops_and_the_rerun_completes_them(tmp_path):
    command = [sys.executable, "-m", "pokerlab", "postflop", "report", "--oop", SPOT["oop"], "--ip", SPOT["ip"],
               "--pot", "100", "--stack", "100", "--bets", "a", "--raises", "", "--iterations", str(ITERATIONS),
               "--target", "0.0001%", "--flops", "AsKd2c 7h7d2c 9h8h7h", "--workers", "1",
               "--checkpoint", str(tmp_path / "ck"), "--json"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while not (tmp_path / "ck" / "chunk-000000.npz").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out == "", (out, err)
    assert err.startswith("interrupted after ") and "of 3 flops" in err and "resume" in err, err
    assert len(err.strip().splitlines()) == 1, err
    finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    summary = json.loads(finished.stdout)
    assert summary["complete"] and [r["flop"] for r in summary["rows"]] == ["AsKd2c", "7h7d2c", "9h8h7h"]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--flops", "2000"], "a flop subset has 1 to 1,755 flops, got 2000"),
    (["--flops", "AsKd"], "flop 'AsKd' has 2 cards: a flop is three, e.g. AsKd2c"),
    (["--flops", ","], "no flops given"),
    (["--flops", "AsAd2c", "--plot"], "--plot writes into the --output folder"),
    (["--workers", "-1"], "workers must be from 0 to 256, got -1"),
    (["--oop", "AKx"], "AKx"),
])
def test_bad_input_is_one_line_and_exit_2(arguments, message):
    base = {"--oop": "AA", "--ip": "KK", "--pot": "100", "--stack": "100", "--flops": "AsKd2c"}
    given = dict(zip(arguments[::2], arguments[1::2], strict=False))
    argv = ["postflop", "report"]
    for name, value in {**base, **given}.items():
        argv += [name, value]
    if "--plot" in arguments:
        argv.append("--plot")
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


def test_parse_flops_weights_each_flop_by_its_class():
    chosen = parse_flops("AsKd2c, AhAd2c, 9h8h7h")
    assert chosen.weights.tolist() == [24, 12, 4]
