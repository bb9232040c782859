"""``pokerlab simulate``'s rough edges, as a user meets them in a shell (subprocesses): damaged or foreign
checkpoint chunks, resuming a run whose seed was drawn, SIGTERM, a --ray address that is not Ray, snapshot files
that are not flat lists of chips, a huge schedule file, and player names kept in the output."""

from __future__ import annotations

import http.server
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app

BASE = ["simulate", "--stacks", "5,3,2", "--payouts", "600,400", "--bet", "1", "--tournaments", "200", "--workers",
        "0", "--json"]


def pokerlab(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pokerlab", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr[-2000:]
    return lines[0]


def test_a_chunk_replaced_by_another_npz_is_one_line(tmp_path):
    folder = tmp_path / "run"
    assert pokerlab(*BASE, "--seed", "3", "--checkpoint", str(folder)).returncode == 0
    np.savez(folder / "chunk-000000.npz", something=np.arange(3))
    line = one_error_line(pokerlab(*BASE, "--seed", "3", "--checkpoint", str(folder)))
    assert "chunk-000000.npz is not chunk 0 of this run" in line


def test_a_chunk_copied_from_another_run_is_refused_not_counted(tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    assert pokerlab(*BASE, "--seed", "3", "--checkpoint", str(mine)).returncode == 0
    assert pokerlab(*BASE, "--seed", "4", "--checkpoint", str(other)).returncode == 0
    shutil.copy(other / "chunk-000005.npz", mine / "chunk-000005.npz")
    assert "chunk-000005.npz is not chunk 5 of this run" in one_error_line(
        pokerlab(*BASE, "--seed", "3", "--checkpoint", str(mine)))
    (mine / "chunk-000005.npz").unlink()
    shutil.copy(mine / "chunk-000001.npz", mine / "chunk-000007.npz")  # the same run, another place
    assert "is not chunk 7 of this run" in one_error_line(pokerlab(*BASE, "--seed", "3", "--checkpoint", str(mine)))


def test_a_run_without_seed_resumes_with_the_drawn_seed(tmp_path):
    folder = tmp_path / "run"
    first = pokerlab(*BASE, "--checkpoint", str(folder))
    assert first.returncode == 0, first.stderr
    chunks = sorted(folder.glob("chunk-*.npz"))
    for path in chunks[::2]:  # what an interruption leaves: some chunks finished, others not
        path.unlink()
    again = pokerlab(*BASE, "--checkpoint", str(folder))
    assert again.returncode == 0, again.stderr
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    assert a["seed"] == b["seed"] and a["players"] == b["players"] and a["hands"] == b["hands"]
    assert json.loads((folder / "manifest.json").read_text())["seed"] == a["seed"]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(c) for c in text)
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads child processes from /proc")
def test_sigterm_is_one_line_exit_143_and_stops_the_workers(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "pokerlab", "simulate", "--players", "2000", "--payouts", "50,30,20",
         "--tournaments", "100000", "--workers", "2", "--seed", "1", "--checkpoint", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:  # the pool starts after the warm-up and pilot
        time.sleep(0.2)
        workers = _children(process.pid) if process.poll() is None else []
    assert len(workers) >= 2, "the pool never started"
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 143, err
    # the run's estimate is announced first when one tournament times slow (a loaded machine): not Ctrl-C's line
    lines = [line for line in err.strip().splitlines() if not line.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("terminated after "), err
    assert "rerun the same command to resume" in lines[0]
    time.sleep(0.5)
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text(), pid


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_ray_at_a_web_server_is_one_line_within_seconds(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        start = time.monotonic()
        done = pokerlab(*BASE, "--ray", f"127.0.0.1:{server.server_address[1]}", timeout=60)
        elapsed = time.monotonic() - start
    finally:
        server.shutdown()
    assert "answers but is not a Ray cluster" in one_error_line(done)
    assert elapsed < 30  # the interpreter's start included; the probe itself gives up after 5 s


def test_the_probe_knows_a_grpc_server():
    grpc = pytest.importorskip("grpc")
    from concurrent.futures import ThreadPoolExecutor

    from pokerlab.simulation.batch import check_ray_address

    server = grpc.server(ThreadPoolExecutor(max_workers=1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        check_ray_address(f"127.0.0.1:{port}")  # a gRPC server answers as Ray's head would: no error
    finally:
        server.stop(None)


runner = CliRunner()


@pytest.mark.parametrize(("content", "message"), [
    ('{"stacks": [[5], [3], [2]]}', "nested list"),
    ('{"stacks": [true, false, true]}', "item 1 is a boolean"),
    ('{"stacks": [5, 3, 2], "level": 1.5}', "level must be a whole number, got float 1.5"),
    ('{"stacks": [5, 3, 2], "level": true}', "level must be a whole number, got bool True"),
])
def test_a_snapshot_that_is_not_a_flat_list_of_chips_is_refused(tmp_path, content, message):
    path = tmp_path / "snap.json"
    path.write_text(content)
    result = runner.invoke(app, ["simulate", "--from-snapshot", str(path), "--payouts", "60,40"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output


def test_a_huge_schedule_file_is_refused_by_its_size_unread(tmp_path):
    path = tmp_path / "blinds.csv"
    with path.open("wb") as handle:
        handle.truncate(100 * 2**20)  # sparse: 100 MiB long, nothing on disk
    start = time.monotonic()
    result = runner.invoke(app, ["simulate", "--stacks", "5,3,2", "--payouts", "60,40", "--schedule", str(path)])
    assert time.monotonic() - start < 5
    assert result.exit_code == 2 and "has 104,857,600 bytes" in result.output, result.output


def test_player_names_are_kept_in_the_output(tmp_path):
    result = runner.invoke(app, ["simulate", "--stacks", "alice:5 bob:3 carol:2", "--payouts", "600,400", "--bet",
                                 "1", "--tournaments", "50", "--seed", "1", "--workers", "0", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["players"]
    assert [r["name"] for r in rows] == ["alice", "bob", "carol"] and [r["stack"] for r in rows] == [5, 3, 2]
    table = runner.invoke(app, ["simulate", "--stacks", "alice:5 bob:3 carol:2", "--payouts", "600,400", "--bet",
                                "1", "--tournaments", "50", "--seed", "1", "--workers", "0"])
    assert "alice" in table.output and "carol" in table.output


def test_a_snapshot_with_names_keeps_them(tmp_path):
    path = tmp_path / "snap.txt"
    path.write_text("alice:5\nbob:3\ncarol:2\n")
    from pokerlab.cli.simulate_cmd import read_snapshot

    assert read_snapshot(path)["names"] == ("alice", "bob", "carol")



def test_a_billion_continuations_are_refused_at_once_in_continuations(tmp_path, monkeypatch):
    """Issue 26: ``--from-snapshot ... --continuations 1000000000`` reached 8 GB within 25 s; it is refused before
    any work, in one line that speaks of continuations (605 GiB for the README's 200-player snapshot, beyond any
    machine this runs on), and writes nothing."""
    snapshot = Path(__file__).resolve().parents[2] / "examples" / "snap.json"
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["simulate", "--from-snapshot", str(snapshot), "--payouts", "power:paid=150",
                                 "--play", "rules", "--continuations", "1000000000"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "1,000,000,000 continuations of 200 players would need about" in lines[0], lines
    assert "tournaments" not in lines[0] and list(tmp_path.iterdir()) == []


def test_the_example_files_formats_are_documented():
    """Issue 26: the snapshot format was documented only in a docstring; examples/README.md gives every example
    file's format, the snapshot's keys among them."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    text = (examples / "README.md").read_text(encoding="utf-8")
    for path in examples.iterdir():
        if path.name != "README.md":
            assert f"`{path.name}`" in text, path.name
    snapshot_row = next(line for line in text.splitlines() if line.startswith("| `snap.json`"))
    assert '"stacks"' in snapshot_row and '"level"' in snapshot_row and "--from-snapshot" in snapshot_row
    assert set(json.loads((examples / "snap.json").read_text())) <= {"stacks", "level", "names"}


def test_call_prints_the_simulated_threshold_beside_the_models(tmp_path):
    """``--call bob,alice`` on a named snapshot is ``call_thresholds`` of those two players, the same numbers on
    the same seed."""
    from pokerlab.simulation.thresholds import call_thresholds

    path = tmp_path / "snap.txt"
    path.write_text("alice:6\nbob:4\ncarol:2\n")
    result = runner.invoke(app, ["simulate", "--from-snapshot", str(path), "--payouts", "60,40", "--bet", "1",
                                 "--call", "bob,alice", "--continuations", "1000", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    [shown] = json.loads(result.output)
    [direct] = call_thresholds([6, 4, 2], [60, 40], [(1, 0)], continuations=1000, seed=4, bet=1)
    assert shown == direct.to_dict() and (shown["caller"], shown["jammer"]) == (1, 0)


@pytest.mark.parametrize(("extra", "message"), [
    (["--call", "2,9"], "positions 1-3 of the snapshot"),
    (["--call", "1,2,3"], "give two players"),
    (["--call", "1,1"], "two different players"),
    (["--call", "1,2", "--ray", "local"], "--ray does not apply to --call"),
    (["--call", "1,2", "--workers", "2"], "--workers does not apply to --call"),
    (["--call", "1,2", "--alpha", "0"], "exponent in (0, 4]"),
    (["--alpha", "0.8"], "--alpha applies to --call only"),
])
def test_call_refuses_bad_input_in_one_line(tmp_path, extra, message):
    path = tmp_path / "snap.json"
    path.write_text('{"stacks": [6, 4, 2]}')
    result = runner.invoke(app, ["simulate", "--from-snapshot", str(path), "--payouts", "60,40", *extra])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output


def test_call_needs_a_snapshot():
    result = runner.invoke(app, ["simulate", "--stacks", "6,4,2", "--payouts", "60,40", "--call", "1,2"])
    assert result.exit_code == 2 and "--call applies to --from-snapshot only" in result.output
