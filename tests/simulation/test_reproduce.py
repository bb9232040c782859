"""scripts/beating_icm_reproduce.py and the study scripts it runs: one JSON with the commit, the seeds and every
chart hash; bad input (an unknown scale, stage, structure or model, a stored file that does not parse, a chart
file of another version) is one line and exit 2 with nothing overwritten."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from pokerlab.pushfold.fullring_charts import CHART_FILE, OVERCALL_FILE

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
KEPT = "an earlier result\n"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refused(module: ModuleType, arguments: list[str], output: Path, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the script's main with ``arguments``: it must exit 2 with one line on stderr, ``output`` unchanged."""
    output.write_text(KEPT)
    monkeypatch.setattr(sys, "argv", ["script", *arguments, "--output", str(output)])
    with pytest.raises(SystemExit) as stop:
        module.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and err[0].startswith("error: "), err
    assert output.read_text() == KEPT
    return err[0]


def _chart_file_of_another_version(folder: Path) -> Path:
    with np.load(CHART_FILE) as stored:
        arrays = {name: stored[name] for name in stored.files}
    header = json.loads(str(arrays["header"]))
    header["code_version"] = "0" * 16
    arrays["header"] = np.array(json.dumps(header))
    path = folder / "other-version.npz"
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(("arguments", "message"), [
    (["--stages", "early,preflop"], "['preflop']"),
    (["--structure", "hyper"], "['hyper']"),
    (["--payouts", "steep"], "['steep']"),
    (["--field", "fullring:0.5,nash:0.5"], "unknown play model 'nash'"),
    (["--field", "fullring:0.8,icm:0.3"], "1"),
    (["--alpha", "0"], "exponent"),
    (["--stages", "bubble,final", "--fgs", "1"], "final tables only"),
    (["--stages", "final", "--fgs", "1,3"], "depth must be 0 to 2"),
    (["--stages", "final", "--fgs", "one"], "depth must be"),
])
def test_the_decisions_script_refuses_unknown_names_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, arguments: list[str],
        message: str) -> None:
    line = _refused(_script("beating_icm_decisions"), ["--fields", "100", "--scale", "0.05", *arguments],
                    tmp_path / "out.json", capsys, monkeypatch)
    assert message in line


def test_a_chart_file_of_another_version_or_unreadable_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    module = _script("beating_icm_decisions")
    monkeypatch.setattr(module, "decision_study", None)  # work started would fail otherwise than in one line
    other = _chart_file_of_another_version(tmp_path)
    line = _refused(module, ["--fields", "100", "--chart-file", str(other)], tmp_path / "out.json", capsys,
                    monkeypatch)
    assert "0000000000000000" in line and "rebuild it" in line
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a chart file")
    line = _refused(module, ["--fields", "100", "--chart-file", str(broken)], tmp_path / "out.json", capsys,
                    monkeypatch)
    assert "cannot read the full-ring chart file" in line


def test_a_stored_transfer_study_that_does_not_parse_is_refused_and_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    module = _script("beating_icm_transfer")
    for content in ('{"configurations": [', '{"grid": [1.0]}', "[1, 2]"):
        stored = tmp_path / "stored.json"
        stored.write_text(content)
        monkeypatch.setattr(sys, "argv", ["script", "--render", str(stored)])
        with pytest.raises(SystemExit) as stop:
            module.main()
        err = capsys.readouterr().err.strip().splitlines()
        assert stop.value.code == 2 and len(err) == 1 and "is not a stored transfer study" in err[0], err
        assert stored.read_text() == content


@pytest.mark.parametrize(("arguments", "message"), [
    (["--plays", "pushfold,nash"], "unknown play model 'nash'"),
    (["--plays", ","], "at least one play model"),
    (["--scale", "0"], "--scale above 0"),
    (["--scale", "nan"], "--scale above 0"),
    (["--seed", "-3"], "--seed of 0 or more"),
    (["--fields", "100,500"], "give field sizes among 100, 1000, 10000"),
    (["--fields", "ten"], "give field sizes among"),
    (["--fields", ""], "give field sizes among"),
    (["--doc", "/nonexistent-folder/page.md"], "no folder /nonexistent-folder"),
    (["--render"], "is not a run's results file"),
])
def test_the_calibration_script_refuses_bad_input_in_one_line_and_keeps_its_results(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, arguments: list[str],
        message: str) -> None:
    module = _script("beating_icm")
    monkeypatch.setattr(module, "one_case", None)  # work started would fail otherwise than in one line
    monkeypatch.setattr(module, "write_docs", None)
    results = tmp_path / "results.json"
    results.write_text('{"cases": [')
    monkeypatch.setattr(sys, "argv", ["script", *arguments, "--json", str(results)])
    with pytest.raises(SystemExit) as stop:
        module.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert results.read_text() == '{"cases": ['


def test_the_reproduction_refuses_an_unknown_scale_or_output_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    module = _script("beating_icm_reproduce")
    assert "unknown scale 'tiny'" in _refused(module, ["--scale", "tiny"], tmp_path / "out.json", capsys,
                                              monkeypatch)
    assert "--workers -1: give 0 or more" in _refused(module, ["--workers", "-1"], tmp_path / "out.json", capsys,
                                                      monkeypatch)
    monkeypatch.setattr(sys, "argv", ["script", "--output", str(tmp_path / "missing" / "out.json")])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 2 and "no folder" in capsys.readouterr().err


def test_a_refused_step_stops_the_reproduction_with_its_line_and_nothing_written(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    module = _script("beating_icm_reproduce")
    monkeypatch.setitem(module.STEPS, "small", [("a bad stage", module.DECISIONS, ["--stages", "preflop"])])
    output = tmp_path / "out.json"
    output.write_text(KEPT)
    monkeypatch.setattr(sys, "argv", ["script", "--output", str(output)])
    with pytest.raises(SystemExit) as stop:
        module.main()
    err = [line for line in capfd.readouterr().err.splitlines() if line and not line.startswith("step ")]
    assert stop.value.code == 2 and len(err) == 1 and "['preflop']" in err[0], err
    assert output.read_text() == KEPT and list(tmp_path.iterdir()) == [output]


def test_the_reproduction_json_names_the_commit_every_seed_and_chart_hash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tiny steps (a full-ring final-table decision study and a coin-flip transfer): the one JSON holds both
    results whole, their seeds, the commit, and the shipped chart file's content hash with its code version."""
    module = _script("beating_icm_reproduce")
    monkeypatch.setitem(module.STEPS, "small", [
        ("decisions", module.DECISIONS, ["--fields", "100", "--payouts", "standard", "--stages", "final",
                                         "--scale", "0.05", "--seed", "7"]),
        ("transfer", module.TRANSFER, ["--fields", "100", "--payouts", "flat,standard", "--plays", "coinflip",
                                       "--snapshots", "2", "--seed", "8"]),
        ("thresholds", module.THRESHOLDS, ["--plays", "coinflip", "--payouts", "flat", "--snapshots", "1",
                                           "--continuations", "128", "--seed", "9"]),
    ])
    output = tmp_path / "out.json"
    monkeypatch.setattr(sys, "argv", ["script", "--output", str(output), "--workers", "2"])
    module.main()
    data = json.loads(output.read_text())
    # the transfer and the thresholds ran side by side (one process each), each result filed under its own step
    assert len(data["steps"][2]["result"]["configurations"][0]["snapshots"][0]["thresholds"]) == 6
    assert data["seeds"].pop("thresholds") == 9
    with np.load(CHART_FILE) as stored:
        shipped = json.loads(str(stored["header"]))
    assert data["seeds"] == {"decisions": 7, "transfer": 8} and data["scale"] == "small"
    assert data["commit"] == data["steps"][0]["result"]["commit"] and data["commit"]
    assert [c["content_sha256"] for c in data["chart_files"]] == [shipped["content_sha256"]]
    assert data["chart_files"][0]["code_version"] == shipped["code_version"]
    with np.load(OVERCALL_FILE) as stored:
        overcalls = json.loads(str(stored["header"]))
    assert data["chart_files"][0]["overcall_content_sha256"] == overcalls["content_sha256"]
    assert data["chart_descriptions"] and all(len(h) == 64 for h in data["chart_descriptions"])
    assert data["steps"][0]["result"]["cases"][0]["seed"] == 7
    assert [c["seed"] for c in data["steps"][1]["result"]["configurations"]] == [8, 9]
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize("content", [b'{"stacks": [5, 3', b"\xff\xfe not text", b"", b"5,3,2 and more"])
def test_a_snapshot_file_that_does_not_parse_is_one_line(tmp_path: Path, content: bytes) -> None:
    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    path = tmp_path / "snap.json"
    path.write_bytes(content)
    result = CliRunner().invoke(app, ["simulate", "--from-snapshot", str(path), "--payouts", "60,40"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert path.read_bytes() == content


def test_the_forest_plot_draws_new_beside_old_and_refuses_what_is_not_a_study(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    module = _script("beating_icm_forest")
    comparison = {"model": "chip-ev", "mean": -2.0, "low": -3.0, "high": -1.0, "separates": True}
    case = {"players": 100, "payouts": "standard", "stage": "bubble", "baseline": "icm",
            "mean_prize": {"icm": 50.0}, "comparisons": [comparison, {**comparison, "model": "power-icm@0.8",
                                                                       "mean": 0.0, "low": 0.0, "high": 0.0}]}
    study = tmp_path / "study.json"
    study.write_text(json.dumps({"cases": [case]}))
    assert module.rows(str(study)) == {(100, "standard", "bubble", "chip-ev"): (-4.0, -6.0, -2.0, True)}
    picture = tmp_path / "forest.png"
    monkeypatch.setattr(sys, "argv", ["script", str(study), "--old", str(study), "--output", str(picture)])
    module.main()
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    study.write_text('{"cases": [{"players": 100}]}')
    monkeypatch.setattr(sys, "argv", ["script", str(study), "--output", str(picture)])
    with pytest.raises(SystemExit) as stop:
        module.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "not a decision-study JSON" in err[0]


@pytest.mark.parametrize("name", ["beating_icm_decisions", "beating_icm_transfer"])
def test_an_output_that_is_a_folder_or_in_no_folder_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    module = _script(name)
    for output, message in ((tmp_path, "is a folder"), (tmp_path / "missing" / "out.json", "no folder")):
        monkeypatch.setattr(sys, "argv", ["script", "--fields", "100", "--output", str(output)])
        with pytest.raises(SystemExit) as stop:
            module.main()
        err = capsys.readouterr().err.strip().splitlines()
        assert stop.value.code == 2 and len(err) == 1 and message in err[0], err


def test_fgs_heroes_at_final_tables_pair_with_the_icm_heroes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A small run of the decisions script at 100-player final tables with FGS heroes of depths 0 and 1 beside
    power-ICM heroes in a field with ICM-aware players: FGS of depth 0 is ICM (exact at a final table), so its
    heroes' prizes are the ICM heroes' bit for bit; depth 1 is a row of its own; the JSON records the FGS tables'
    hash."""
    output = tmp_path / "fgs.json"
    monkeypatch.setattr(sys, "argv", ["script", "--fields", "100", "--payouts", "top-heavy", "--stages", "final",
                                      "--scale", "0.05", "--structure", "turbo", "--fgs", "0,1", "--seed", "3",
                                      "--field", "fullring:0.8,icm:0.2", "--output", str(output)])
    _script("beating_icm_decisions").main()
    assert "fgs@1" in capsys.readouterr().out
    stored = json.loads(output.read_text())
    (case,) = stored["cases"]
    assert [c["model"] for c in case["comparisons"]] == ["chip-ev", "power-icm@0.8", "harville@0.8",
                                                         "malmuth-weitzman", "fgs@0", "fgs@1"]
    assert case["prizes"]["fgs@0"] == case["prizes"]["icm"] and len(case["prizes"]["fgs@1"]) == 2
    assert len(stored["fgs_charts"]) == 64


class _WorkStarted(Exception):
    """Raised in place of a study's first case: every check before the work passed."""


def _work_started(*_: object, **__: object) -> None:
    raise _WorkStarted


@pytest.mark.parametrize("scale", ["small", "hour", "full"])
def test_every_step_of_the_reproduction_passes_its_scripts_own_checks(
        scale: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step's arguments (the page's commands), with the options the reproduction adds, are accepted by the
    study script it names: the script reaches its first case instead of refusing them."""
    module = _script("beating_icm_reproduce")
    scripts = {module.DECISIONS: _script("beating_icm_decisions"), module.TRANSFER: _script("beating_icm_transfer"),
               module.CALIBRATION: _script("beating_icm"), module.THRESHOLDS: _script("beating_icm_thresholds")}
    monkeypatch.setattr(scripts[module.DECISIONS], "one_case", _work_started)
    monkeypatch.setattr(scripts[module.CALIBRATION], "one_case", _work_started)
    for script in (module.TRANSFER, module.THRESHOLDS):
        monkeypatch.setattr(scripts[script], "one_configuration", _work_started)
    output = tmp_path / "out.json"
    for name, script, arguments in module.STEPS[scale]:
        added = ["--workers", "0"] if script == module.DECISIONS else []
        monkeypatch.setattr(sys, "argv", ["script", *arguments, *added, *module.output_arguments(script, output)])
        with pytest.raises(_WorkStarted):
            scripts[script].main()
        assert list(tmp_path.iterdir()) == [], name


def test_the_hour_scale_covers_every_configuration_of_the_full_scale() -> None:
    """``hour`` runs every section's configurations (field size, payouts, stage, structure, field, heroes) that
    ``full`` runs, once, plus the calibration and the call thresholds: no replication, no configuration left out."""
    module = _script("beating_icm_reproduce")

    def cases(scale: str) -> set[tuple[object, ...]]:
        found = set()
        for _, script, arguments in module.STEPS[scale]:
            options = dict(zip(arguments[::2], arguments[1::2], strict=True))
            for drop in ("--scale", "--seed", "--snapshots"):
                options.pop(drop, None)
            fields = options.pop("--fields", "-").split(",")
            payouts = options.pop("--payouts", "flat,standard,top-heavy").split(",")
            stages = options.pop("--stages", "early,bubble,final").split(",")
            rest = tuple(sorted(options.items()))
            found |= {(script, f, p, stage, rest) for f in fields for p in payouts for stage in stages}
        return found

    hour, full = cases("hour"), cases("full")
    assert full <= hour, sorted(full - hour)
    assert {script for _, script, _ in module.STEPS["hour"]} == {module.DECISIONS, module.TRANSFER,
                                                                 module.CALIBRATION, module.THRESHOLDS}
    assert not any(name.startswith("replication") for name, _, _ in module.STEPS["hour"])


@pytest.mark.parametrize(("arguments", "message"), [
    (["--plays", "fullring,nash"], "unknown play model 'nash'"),
    (["--payouts", "steep"], "give shapes among"),
    (["--snapshots", "0"], "--snapshots of 1 or more"),
    (["--continuations", "50"], "--continuations of 128 or more"),
    (["--left", "15"], "--left from 16"),
    (["--players", "1000", "--left", "150"], "--left from 151"),
    (["--players", "10"], "give 20 to 100,000 players"),
    (["--alpha", "0"], "exponent in (0, 4]"),
])
def test_the_thresholds_script_refuses_bad_input_in_one_line_and_keeps_its_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, arguments: list[str],
        message: str) -> None:
    module = _script("beating_icm_thresholds")
    monkeypatch.setattr(module, "one_configuration", None)  # work started would fail otherwise than in one line
    assert message in _refused(module, arguments, tmp_path / "out.json", capsys, monkeypatch)


_INTERRUPTED = '''
import importlib.util, sys
spec = importlib.util.spec_from_file_location("reproduce", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
slow = ["--plays", "coinflip", "--payouts", "flat", "--snapshots", "50", "--continuations", "100000", "--seed", "1"]
module.STEPS["small"] = [("one", module.THRESHOLDS, slow), ("two", module.THRESHOLDS, slow)]
sys.argv = ["reproduce", "--output", sys.argv[2], "--parallel", "2"]
module.main()
'''


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads child processes from /proc")
def test_ctrl_c_stops_every_running_step_at_once_in_one_line_and_keeps_the_output(tmp_path: Path) -> None:
    """SIGINT while two steps run side by side: exit 130 within seconds, one line, both steps' processes gone,
    the earlier output untouched."""
    import signal
    import subprocess
    import time

    driver = tmp_path / "driver.py"
    driver.write_text(_INTERRUPTED)
    output = tmp_path / "out.json"
    output.write_text(KEPT)
    process = subprocess.Popen([sys.executable, str(driver), str(SCRIPTS / "beating_icm_reproduce.py"), str(output)],
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    steps: list[int] = []
    while time.monotonic() < deadline and len(steps) < 2:
        time.sleep(0.2)
        steps = [int(c) for task in Path(f"/proc/{process.pid}/task").iterdir()
                 for c in (task / "children").read_text().split()] if process.poll() is None else []
    assert len(steps) == 2, "the two steps never ran side by side"
    time.sleep(2.0)  # both steps at work
    process.send_signal(signal.SIGINT)
    start = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert time.monotonic() - start < 5 and process.returncode == 130, err
    lines = [line for line in err.strip().splitlines() if line and not line.startswith("step ")]
    assert lines == ["interrupted after 0 of 2 finished steps; nothing written"], err
    assert output.read_text() == KEPT and sorted(p.name for p in tmp_path.iterdir()) == ["driver.py", "out.json"]
    for pid in steps:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text(), pid
