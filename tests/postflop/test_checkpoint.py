"""Checkpoints during a postflop solve: a solve stopped part way (its own stop rule, or a real process killed with
SIGKILL) and continued from its checkpoint ends with the arrays, EVs and exploitability of one uninterrupted solve,
bit for bit; a checkpoint of another spot, other code, another format or a truncated one is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.errors import FileFormatError, Interrupted, OutputPathError
from pokerlab.postflop import PostflopResult, load, solve
from pokerlab.solvers.archive import read_archive, write_archive

RIVER = dict(board="Kh9d5c2s2h", oop="QQ, 99, AKo, T8s", ip="KK, JTs, 76s", pot=100, stack=150, bets="75%",
             raises="a")
TURN = dict(board="Td9d6hQc", oop="AA,KK,JTs,87s,A5s", ip="QQ,99,KQs,AJo", pot=100, stack=200, bets="75%,a",
            raises="a")
TURN_ARGS = ["--board", "Td9d6hQc", "--oop", "AA,KK,JTs,87s,A5s", "--ip", "QQ,99,KQs,AJo", "--pot", "100",
             "--stack", "200", "--bets", "75%,a", "--raises", "a"]


def same(a: PostflopResult, b: PostflopResult) -> None:
    """Bit for bit: iterations, regrets, cumulative strategy, exploitability, EVs."""
    assert a.iterations == b.iterations
    assert a.regrets.dtype == b.regrets.dtype == np.float32
    assert np.array_equal(a.regrets, b.regrets) and np.array_equal(a.cumulative, b.cumulative)
    assert a.exploitability == b.exploitability and a.ev == b.ev


def test_resume_from_a_checkpoint_is_the_uninterrupted_solve(tmp_path: Path) -> None:
    """A turn spot (chance nodes, merged cards, threads): 40 iterations straight against 17 with checkpoints
    every 5 iterations, then a new solve call on the same file to 40; the file holds the final state, and a
    rerun of the finished solve does no more work."""
    path = tmp_path / "turn.npz"
    straight = solve(**TURN, target=None, iterations=40)
    first = solve(**TURN, target=None, iterations=17, checkpoint=path, checkpoint_iterations=5)
    assert first.iterations == 17 and load(path).iterations == 17
    resumed = solve(**TURN, target=None, iterations=40, checkpoint=path, checkpoint_iterations=5)
    same(straight, resumed)
    same(straight, load(path))
    assert read_archive(path, "solve")[0]["stop_reason"] == "iterations"
    again = solve(**TURN, target=None, iterations=40, checkpoint=path)
    same(straight, again)


def test_a_solve_stopped_at_its_target_is_not_continued(tmp_path: Path) -> None:
    """A rerun of a solve that stopped at its target keeps it (the target is checked at the checkpoint's
    iteration, as the uninterrupted solve did); with a lower target it continues to where a straight solve
    to that target stops."""
    path = tmp_path / "river.npz"
    reached = solve(**RIVER, target=1.0, iterations=5000, checkpoint=path)
    assert reached.stop_reason == "target"
    again = solve(**RIVER, target=1.0, iterations=5000, checkpoint=path)
    same(reached, again)
    assert again.stop_reason == "target"
    further = solve(**RIVER, target=0.2, iterations=5000, checkpoint=path)
    same(solve(**RIVER, target=0.2, iterations=5000), further)


def test_the_time_limit_counts_the_checkpoints_seconds(tmp_path: Path) -> None:
    """A checkpoint that has solved for 100 s (its ``elapsed_s``) and a rerun with --time 50: no more
    iterations, stopped for time, the seconds carried on."""
    path = tmp_path / "river.npz"
    solve(**RIVER, target=None, iterations=10, checkpoint=path)
    meta, arrays = read_archive(path, "solve")
    write_archive(path, {**meta, "elapsed_s": 100.0}, arrays)
    again = solve(**RIVER, target=None, iterations=None, time_limit=50, checkpoint=path)
    assert again.stop_reason == "time" and again.iterations == 10 and again.elapsed_s >= 100.0


def test_ctrl_c_writes_a_checkpoint_that_resumes_exactly(tmp_path: Path) -> None:
    path = tmp_path / "river.npz"

    def stop(iteration: int, _: float) -> None:
        if iteration >= 30:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        solve(**RIVER, target=1e-9, iterations=70, progress=stop, checkpoint=path)
    saved = read_archive(path, "solve")[0]
    assert saved["iterations"] == 30 and saved["stop_reason"] == "interrupted"
    same(solve(**RIVER, target=None, iterations=70), solve(**RIVER, target=None, iterations=70, checkpoint=path))


def test_a_real_sigint_mid_iteration_lands_on_an_iteration_boundary(tmp_path: Path) -> None:
    """SIGINT sent to this process while the turn spot's kernels run is held until the iteration ends: the
    checkpoint then resumes to the uninterrupted solve's arrays (half an iteration would not)."""
    import threading

    path = tmp_path / "turn.npz"
    timers = []

    def soon(iteration: int, _: float) -> None:
        if iteration == 10:
            timers.append(threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    with pytest.raises(Interrupted) as caught:
        solve(**TURN, target=1e-9, iterations=10_000, progress=soon, checkpoint=path)
    timers[0].join()
    stopped = caught.value.partial
    assert stopped is not None and 10 <= stopped.iterations < 10_000
    total = stopped.iterations + 3
    same(solve(**TURN, target=None, iterations=total),
         solve(**TURN, target=None, iterations=total, checkpoint=path))


def test_an_iteration_broken_off_half_way_is_never_checkpointed(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A second Ctrl-C raises at once, possibly between OOP's and IP's pass: the checkpoint keeps the last whole
    iteration (written after each one here), and resumes to the uninterrupted solve."""
    from pokerlab.games.postflop.kernels import UPDATE
    from pokerlab.solvers.postflop_cfr import PostflopSolver

    path = tmp_path / "river.npz"
    steps = PostflopSolver.steps

    def broken_at_12(self: PostflopSolver, count: int) -> None:
        if self.iteration == 12:
            self._pass(0, UPDATE)  # OOP's half of the iteration only
            raise KeyboardInterrupt
        steps(self, count)

    monkeypatch.setattr(PostflopSolver, "steps", broken_at_12)
    with pytest.raises(Interrupted):
        solve(**RIVER, target=None, iterations=40, checkpoint=path, checkpoint_iterations=1)
    monkeypatch.setattr(PostflopSolver, "steps", steps)
    assert read_archive(path, "solve")[0]["iterations"] == 12
    same(solve(**RIVER, target=None, iterations=40), solve(**RIVER, target=None, iterations=40, checkpoint=path))


def test_a_locked_solve_checkpoints_its_baseline_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "locked.npz"
    lock = "line=check; strategy=check"
    straight = solve(**RIVER, target=None, iterations=40, lock=lock)
    solve(**RIVER, target=None, iterations=20, lock=lock, checkpoint=path)
    assert load(tmp_path / "locked.baseline.npz").spec["lock"] is None
    resumed = solve(**RIVER, target=None, iterations=40, lock=lock, checkpoint=path)
    same(straight, resumed)
    assert resumed.equilibrium == straight.equilibrium and resumed.gains == straight.gains


def test_bad_checkpoints_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "river.npz"
    solve(**RIVER, target=None, iterations=10, checkpoint=path)
    with pytest.raises(FileFormatError, match=r"a checkpoint of another spot \(pot differ\)"):
        solve(**{**RIVER, "pot": 120}, target=None, iterations=20, checkpoint=path)
    with pytest.raises(FileFormatError, match=r"another spot \(lock differ\)"):
        solve(**RIVER, target=None, iterations=20, checkpoint=path, lock="line=check; strategy=check",
              baseline=False)
    meta, arrays = read_archive(path, "solve")
    other_code = tmp_path / "other_code.npz"
    write_archive(other_code, {**meta, "code": "0123456789abcdef"}, arrays)
    with pytest.raises(FileFormatError, match="made by other solver code"):
        solve(**RIVER, target=None, iterations=20, checkpoint=other_code)
    other_version = tmp_path / "other_version.npz"
    write_archive(other_version, {**meta, "format_version": 99}, arrays)
    with pytest.raises(FileFormatError, match="unsupported format version 99"):
        solve(**RIVER, target=None, iterations=20, checkpoint=other_version)
    short = tmp_path / "short.npz"
    write_archive(short, meta, {k: v[:-1] for k, v in arrays.items()})
    with pytest.raises(FileFormatError, match="its arrays do not fit the spot"):
        solve(**RIVER, target=None, iterations=20, checkpoint=short)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FileFormatError, match="not a pokerlab postflop solve"):
        solve(**RIVER, target=None, iterations=20, checkpoint=truncated)
    with pytest.raises(OutputPathError, match="folder .* does not exist"):
        solve(**RIVER, target=None, iterations=20, checkpoint=tmp_path / "nowhere" / "c.npz")
    assert read_archive(path, "solve")[0]["iterations"] == 10  # never overwritten by a refused solve
    runner = CliRunner()
    refused = runner.invoke(app, ["postflop", "solve", *TURN_ARGS, "--checkpoint", str(truncated)])
    assert refused.exit_code == 2  # after the size and "continuing" lines on stderr, one error line
    assert refused.output.strip().splitlines()[-1] == (f"error: {truncated}: not a pokerlab postflop solve (not a "
                                                       ".npz archive)")


def test_a_killed_command_resumes_to_the_straight_answer(tmp_path: Path) -> None:
    """SIGKILL to a real `pokerlab postflop solve --checkpoint` after its first checkpoint; the same command
    again continues the checkpoint and ends with the arrays, EVs and exploitability of an uninterrupted solve."""
    path = tmp_path / "turn.npz"
    out = tmp_path / "out.npz"
    args = ["postflop", "solve", *TURN_ARGS, "--target", "0.0001%", "--iterations", "60", "--checkpoint", str(path),
            "--checkpoint-every", "5"]
    process = subprocess.Popen([sys.executable, "-m", "pokerlab.cli.main", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})
    deadline = time.monotonic() + 300
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=60) == -signal.SIGKILL
    killed_at = read_archive(path, "solve")[0]["iterations"]
    assert 5 <= killed_at < 60, killed_at
    resumed = CliRunner().invoke(app, [*args, "--out", str(out), "--json"])
    assert resumed.exit_code == 0, resumed.output
    data = json.loads(resumed.stdout)
    straight = solve(**TURN, target="0.0001%", iterations=60)
    same(straight, load(out))
    same(straight, load(path))
    assert data["iterations"] == 60 and data["exploitability"] == straight.exploitability
    assert (data["ev"]["OOP"], data["ev"]["IP"]) == straight.ev


def test_a_checkpoint_is_synced_to_disk_before_it_replaces_the_last(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The write of a checkpoint: a temporary file in the same folder, fsync, rename over the last one, fsync
    of the folder (so a power cut, not only a kill, leaves one whole checkpoint)."""
    import pokerlab.io

    events: list[str] = []
    fsync, replace = os.fsync, os.replace

    def record_fsync(fd: int) -> None:
        events.append("fsync folder" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync file")
        fsync(fd)

    def record_replace(source: str | Path, target: str | Path) -> None:
        assert Path(source).parent == Path(target).parent == tmp_path
        events.append("rename")
        replace(source, target)

    monkeypatch.setattr(pokerlab.io.os, "fsync", record_fsync)
    monkeypatch.setattr(pokerlab.io.os, "replace", record_replace)
    solve(**RIVER, target=None, iterations=9, checkpoint=tmp_path / "c.npz", checkpoint_iterations=4)
    assert events == ["fsync file", "rename", "fsync folder"] * 3  # after 4 and 8 iterations, and at the end
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npz"]
