"""Ctrl-C sent to a real `pokerlab` process mid-kernel: it stops (well within the timeout here, about a second
when the kernels are compiled), prints one `interrupted after ...` line with what was done (and the partial
result where one is meaningful), exits 130 with no traceback, and a checkpoint written on the way out loads.

The commands run under a pseudo-terminal (pexpect), so their progress bar shows; the signal is sent once the
bar is up, i.e. while the chunked kernels run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

from pokerlab.solvers.core import Solver  # noqa: E402

POKERLAB = [sys.executable, "-m", "pokerlab.cli.main"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
STOP_TIMEOUT = 60  # generous for a loaded machine; a command that ignores Ctrl-C runs for minutes
STOP_WITHIN = 10  # seconds from Ctrl-C to exit where a test measures it: about 1 s unloaded (chunks of 0.15 s plus
# the interpreter's exit), generous for a machine shared by several jobs


def default_ctrl_c() -> None:
    """In the child: Ctrl-C as a user's shell sets it (a test runner may have left SIGINT ignored, which a child
    inherits, and a `nohup pokerlab` rightly keeps)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_under_terminal(args: list[str], cwd: Path, timed: bool = False) -> Any:
    """Start ``pokerlab ARGS`` on a terminal, wait for its progress bar, send SIGINT; (exit status, last line),
    and with ``timed`` the seconds from the signal to the end of the process."""
    child = pexpect.spawn(POKERLAB[0], [*POKERLAB[1:], *args], cwd=str(cwd), encoding="utf-8", timeout=600,
                          dimensions=(24, 200), env={**os.environ, "COLUMNS": "200"},
                          preexec_fn=default_ctrl_c)
    child.expect(r"ETA (\x1b\[\d+m)?\d+:\d\d:\d\d")  # the bar has an estimate: the chunked kernels are running
    time.sleep(0.5)
    child.kill(signal.SIGINT)
    sent = time.monotonic()
    child.expect(pexpect.EOF, timeout=STOP_TIMEOUT)
    waited = time.monotonic() - sent
    child.close()
    text = ANSI.sub("", child.before).replace("\r", "\n")
    assert "Traceback" not in text and "Error" not in text, text[-2000:]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (child.exitstatus, lines[-1], waited) if timed else (child.exitstatus, lines[-1])


def test_equity_monte_carlo_stops_with_its_estimate(tmp_path):
    status, line = interrupt_under_terminal(["equity", "AsKs", "QQ", "random", "--mc", "--trials", "10000000000"],
                                            tmp_path)
    assert status == 130
    assert re.match(r"interrupted after [\d,]+ trials \([\d.]+ s\): equity AsKs [\d.]+% ± [\d.]+, QQ", line), line


def test_exact_range_equity_stops_between_chunks(tmp_path):
    """Three ranges preflop, exact: one deal of known hands per orbit of matchups (about a minute here). The
    deals run in chunks of about 0.15 s: Ctrl-C stops it part way, at once (a run that ignored the signal until
    the end would take most of a minute more), with one line saying how much was done."""
    status, line, waited = interrupt_under_terminal(["equity", "JJ+,AK", "TT+,AQ", "random", "--exact"], tmp_path,
                                                    timed=True)
    assert_stopped_part_way(status, line, waited, r"interrupted after ([\d.]+)% of the exact enumeration \([\d.]+ s "
                            r"of about [\d,]+ s\); --mc estimates sooner$")


def assert_stopped_part_way(status: int, line: str, waited: float, pattern: str) -> None:
    """Exit 130 within :data:`STOP_WITHIN`, with one line matching ``pattern``, whose first group (the share
    done, percent) is strictly between 0 and 100."""
    assert status == 130
    match = re.match(pattern, line)
    assert match, line
    assert 0 < float(match.group(1)) < 100
    assert waited < STOP_WITHIN, waited


def test_icm_monte_carlo_stops_with_its_estimate(tmp_path):
    status, line = interrupt_under_terminal(["icm", "--stacks", "alice:5,000 3,000 2,000 1,000", "--payouts",
                                             "50/30/20", "--method", "montecarlo", "--samples", "100000000000"],
                                            tmp_path)
    assert status == 130
    assert re.match(r"interrupted after [\d,]+ samples .*: equity 1 alice [\d.]+ ± [\d.]+, 2 ", line), line


def field_file(tmp_path: Path, players: int) -> Path:
    from pokerlab.icm import truncated_normal_stacks

    path = tmp_path / "stacks.txt"
    stacks = truncated_normal_stacks(players, mean=10_000, sd=5_000, seed=players)
    path.write_text("\n".join(f"{x:.0f}" for x in stacks))
    return path


def test_exact_icm_of_a_huge_field_stops_mid_quadrature(tmp_path):
    """50,000 players / 7,000 paid: about 16 s of quadrature, once one kernel call. Its bar shows after a second,
    and Ctrl-C stops it between calls of about a tenth of a second, saying how far it got."""
    status, line, waited = interrupt_under_terminal(
        ["icm", "--stacks-file", str(field_file(tmp_path, 50_000)), "--payouts", "power:a=1,pool=1000,paid=7000",
         "--method", "exact"], tmp_path, timed=True)
    assert_stopped_part_way(status, line, waited, r"interrupted during the exact equity \([\d.]+ s, about (\d+)% "
                            r"done\); --method montecarlo estimates sooner$")


def test_exact_finish_places_stop_mid_quadrature(tmp_path):
    """The finish-place matrix of 2,048 players x 307 places (several seconds) stops between node steps too."""
    status, line, waited = interrupt_under_terminal(
        ["icm", "--stacks-file", str(field_file(tmp_path, 2048)), "--payouts", "power:a=1,pool=1000,paid=307",
         "--places"], tmp_path, timed=True)
    assert status == 130
    assert re.match(r"interrupted during the exact finish-place matrix of 2,048 players x 307 places \([\d.]+ s, "
                    r"about \d+% done\); --method montecarlo estimates sooner$", line), line
    assert waited < STOP_WITHIN, waited


def test_rps_stops_within_the_run(tmp_path):
    status, line = interrupt_under_terminal(["rps", "--iterations", "1000000000"], tmp_path)
    assert status == 130
    done = int(re.match(r"interrupted after ([\d,]+) of 1,000,000,000 iterations: exploitability", line)
               .group(1).replace(",", ""))
    assert 0 < done < 1_000_000_000


def test_match_stops_with_the_hands_played(tmp_path):
    status, line = interrupt_under_terminal(["match", "random", "fullbet", "--hands", "50000000"], tmp_path)
    assert status == 130
    assert re.match(r"interrupted after [\d,]+ of 50,000,000 hands: A's chips per hand [-+][\d.]+ ± [\d.]+", line)


def test_solve_saves_a_loadable_checkpoint(tmp_path):
    state = tmp_path / "leduc.npz"
    status, line = interrupt_under_terminal(["solve", "leduc", "-n", "100000000", "--out", str(state),
                                             "--checkpoint-every", "1000000"], tmp_path)
    assert status == 130
    match = re.match(r"interrupted after ([\d,]+) iterations: exploitability [\d.e+-]+ chips/game; saved to", line)
    assert match, line
    solver = Solver.load(state)
    assert solver.iteration == int(match.group(1).replace(",", "")) > 0
    assert not [p for p in tmp_path.iterdir() if p.name != state.name]  # no temporary file left behind


@pytest.mark.slow
def test_two_round_training_saves_a_loadable_checkpoint(tmp_path):
    from pokerlab.solvers.two_round import TwoRoundTrainer

    bot = tmp_path / "bot.npz"
    status, line = interrupt_under_terminal(["two-round", "train", "--out", str(bot), "-n", "100000000",
                                             "--buckets", "4"], tmp_path)
    assert status == 130 and line.startswith("interrupted with ") and f"saved to {bot}" in line, line
    assert TwoRoundTrainer.load(bot).iterations[6] > 0


def test_two_round_exploitability_stops_between_chunks(tmp_path):
    """The two exact best responses (about 25 s together) run in chunks: Ctrl-C stops them part way."""
    status, line = interrupt_under_terminal(["two-round", "exploitability", "random"], tmp_path)
    assert status == 130
    match = re.match(r"interrupted after ([\d,]+) of ([\d,]+) node-boards of the two best responses \([\d.]+ s\)$",
                     line)
    assert match, line
    done, total = (int(group.replace(",", "")) for group in match.groups())
    assert 0 < done < total  # stopped inside the kernels' work, not after it


def test_two_round_exploitability_on_a_pipe_prints_no_bar(tmp_path):
    """No terminal (or --json): the result on stdout, nothing on stderr."""
    bot = tmp_path / "bot.npz"
    subprocess.run([*POKERLAB, "two-round", "train", "--stack", "1", "--buckets", "2", "-n", "1000", "--out",
                    str(bot), "--json"], cwd=tmp_path, check=True, capture_output=True)
    for json_flag in ([], ["--json"]):
        done = subprocess.run([*POKERLAB, "two-round", "exploitability", str(bot), *json_flag], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == "" and "exploitability" in done.stdout, done


def test_solve_on_a_pipe_stops_and_keeps_the_checkpoint(tmp_path):
    """No terminal: no progress bar on stderr, and Ctrl-C still stops it, with the state saved."""
    state = tmp_path / "leduc.npz"
    process = subprocess.Popen([*POKERLAB, "solve", "leduc", "-n", "100000000", "--out", str(state),
                                "--checkpoint-every", "2000"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c)
    deadline = time.monotonic() + 600
    while not state.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the first checkpoint: the run is under way
    first = Solver.load(state).iteration
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=STOP_TIMEOUT)
    assert process.returncode == 130 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted after ") and "Traceback" not in err, err
    assert Solver.load(state).iteration >= first > 0
