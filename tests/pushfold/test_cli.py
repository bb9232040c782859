"""The pushfold command: JSON schema, text charts, the heads-up chart, PNG files and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app

runner = CliRunner()


def test_json_schema():
    r = runner.invoke(app, ["pushfold", "--stacks", "10,10", "--blinds", "0.5,1", "--target", "1e-4", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert {"seats", "model", "max_gain", "gain_unit", "iterations", "elapsed_s", "strategies"} <= set(data)
    assert data["model"] == "chipev" and data["gain_unit"] == "bb" and data["max_gain"] <= 1e-4
    assert isinstance(data["iterations"], int)
    sb, bb = data["seats"]
    assert sb["seat"] == "SB" and sb["stack"] == 10.0 and len(sb["jam"]) == 169
    assert 58 <= sb["jam_pct"] <= 60 and sb["call"] == {}
    assert bb["jam"] == {} and set(bb["call"]) == {"SB"} and 37 <= bb["call_pct"]["SB"] <= 40
    assert sb["jam"]["AA"] > 0.999 and bb["call"]["SB"]["72o"] < 0.001


def test_text_output_icm_with_field(tmp_path):
    field = tmp_path / "field.txt"
    field.write_text("12\n9\n15\n")
    r = runner.invoke(app, ["pushfold", "--stacks", "10,8,12", "--payouts", "50,30,20",
                            "--field-stacks-file", str(field), "--iterations", "16", "--multiway-samples", "200"])
    assert r.exit_code == 0, r.output
    assert "push/fold icm" in r.stdout and "BTN" in r.stdout and "hands that change under ICM" in r.stdout


def test_heads_up_chart_json_and_png(tmp_path):
    r = runner.invoke(app, ["pushfold", "--chart", "heads-up", "--depths", "1,5,10", "--json", "--png", str(tmp_path)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["depths"] == [1.0, 5.0, 10.0]
    assert data["jam_depth"]["AA"] == 10.0 and data["jam_depth"]["72o"] in (1.0, 5.0)
    assert data["call_pct"][0] == 100.0  # at 1 bb the big blind is all in by posting
    assert (tmp_path / "heads-up-jam.png").stat().st_size > 0


@pytest.mark.parametrize("args,message", [
    (["--stacks", "10,-1"], "stacks must be positive"),
    (["--stacks", "10,10", "--blinds", "1,0.5"], "larger than the big blind"),
    (["--stacks", "10,10", "--blinds", "0,1"], "blinds must be positive"),
    (["--stacks", ",".join(["10"] * 11)], "2 to 10"),
    (["--stacks", "10,10,10", "--payouts", "50,30,20,10"], "more paid places than players"),
    (["--stacks", "10,x"], "'x' has no stack"),
    (["--chart", "nine-max"], "unknown chart"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    r = runner.invoke(app, ["pushfold", *args])
    assert r.exit_code == 2
    assert message in r.output and len(r.output.strip().splitlines()) == 1


def test_unparsable_field_file(tmp_path):
    bad = tmp_path / "field.txt"
    bad.write_text("10, ten, 12")
    r = runner.invoke(app, ["pushfold", "--stacks", "10,10", "--payouts", "50,30,20",
                            "--field-stacks-file", str(bad)])
    assert r.exit_code == 2 and "stack '10,': a thousands separator comes before each group" in r.output


def test_stacks_as_pasted_from_a_lobby(tmp_path):
    """Stacks parse as for icm (thousands separators, player names), payouts as a split of a pool: the names
    are carried into the table, the JSON and the charts, and the numbers are those of the plain input."""
    common = ["--iterations", "8", "--multiway-samples", "100", "--json"]
    named = runner.invoke(app, ["pushfold", "--stacks", "alice:1,500 bob:1,000 carol:800", "--blinds", "50/100",
                                "--payouts", "70/30", "--pool", "1,000", "--png", str(tmp_path), *common])
    plain = runner.invoke(app, ["pushfold", "--stacks", "1500,1000,800", "--blinds", "50 100",
                                "--payouts", "700,300", *common])
    assert named.exit_code == 0 and plain.exit_code == 0, named.output + plain.output
    a, b = json.loads(named.stdout), json.loads(plain.stdout)
    assert [seat["seat"] for seat in a["seats"]] == ["BTN alice", "SB bob", "BB carol"]
    assert [seat["seat"] for seat in b["seats"]] == ["BTN", "SB", "BB"]
    assert [seat["jam"] for seat in a["seats"]] == [seat["jam"] for seat in b["seats"]]
    assert [seat["stack_bb"] for seat in a["seats"]] == [15.0, 10.0, 8.0]
    assert (tmp_path / "jam-BTN alice.png").stat().st_size > 0
    text = runner.invoke(app, ["pushfold", "--stacks", "alice:1,500 bob:1,000", "--blinds", "50/100",
                               "--iterations", "8"])
    assert text.exit_code == 0 and "SB alice" in text.stdout and "BB bob" in text.stdout, text.output


@pytest.mark.parametrize("iterations, last_line", [
    (0, "interrupted before the first iteration: no strategy yet"),
    (8, "interrupted after 8 iterations: the strategy above has a maximum best-response gain of"),
])
def test_ctrl_c_shows_the_strategy_so_far_and_solves_nothing_more(monkeypatch, iterations, last_line):
    """Ctrl-C during the solve (the solver returns its best profile so far, stop_reason 'interrupted'): exit 130
    with one line on stderr, at once: no chip-EV comparison solved after it, and nothing shown before the first
    iteration (a comparison of 0 iterations used to fail with 'iterations must be at least 1')."""
    import dataclasses
    import importlib

    package = importlib.import_module("pokerlab.pushfold")  # `pokerlab.pushfold` is also the function's name
    real = package.pushfold
    calls = []

    def interrupted_solve(*args, **kwargs):
        if kwargs.get("iterations") == 1:  # the warm-up that compiles the kernels first
            return real(*args, **kwargs)
        calls.append(kwargs.get("iterations"))
        result = real(*args, **{**kwargs, "iterations": 8})
        return dataclasses.replace(result, stop_reason="interrupted", iterations=iterations)

    monkeypatch.setattr(package, "pushfold", interrupted_solve)
    r = runner.invoke(app, ["pushfold", "--stacks", "10,8,12", "--payouts", "50,30,20", "--multiway-samples", "100"])
    assert r.exit_code == 130 and len(calls) == 1, r.output
    assert r.stderr.strip().splitlines()[-1].startswith(last_line) and len(r.stderr.strip().splitlines()) == 1
    assert ("jams first in" in r.stdout) == (iterations > 0)


def _start_pushfold(*args: str, stacks: str = "10,10,10,10,10,10"):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "pokerlab.cli.main", "pushfold", "--stacks", stacks,
                             "--payouts", "50,30,20", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})  # each line as soon as it is printed


@pytest.mark.parametrize("delay, stacks", [(1.5, "10,10,10,10,10,10"), (3.0, "10,10,10,10,10,10"),
                                           (5.0, "10,10,10,10,10,10"), (2.5, "10,12,8,9,11,10,7,13,10")])
def test_a_real_ctrl_c_at_any_moment_exits_130_in_one_line(delay, stacks):
    """SIGINT to a real process at several moments (imports, the compile-first warm-up, the solve): one
    `interrupted` line, exit 130, no traceback (a Ctrl-C inside a kernel surfaced as a SystemError, one during the
    warm-up was swallowed and the whole solve ran; at 9 seats the first iteration and the gains of an unchecked
    profile held it for seconds)."""
    process = _start_pushfold("--target", "1e-9", "--iterations", "400", stacks=stacks)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "Error" not in err, err[-3000:]
    assert len(err.strip().splitlines()) == 1 and err.startswith("interrupted"), err
    assert "discounted CFR iterations" not in out or "interrupted after" in err


def test_a_real_ctrl_c_during_the_chip_ev_comparison_keeps_the_icm_charts():
    process = _start_pushfold("--target", "1e-9", "--iterations", "150")
    assert process.stdout is not None
    assert process.stdout.readline().startswith("push/fold icm")  # the ICM solve is done
    while "(the sampling's effect)" not in process.stdout.readline():  # the last line before the chip EV solve
        pass
    time.sleep(0.5)  # past the printing, inside the chip EV solve (150 iterations: seconds)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in err
    assert err.strip() == "interrupted during the chip EV comparison: the ICM strategy above is complete"
    assert "jams first in" in out and "chip EV jams" not in out
