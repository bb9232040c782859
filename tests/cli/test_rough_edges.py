"""The command line's rough edges (issue 26), each as a new user meets it, in a subprocess: a precision target
out of reach refused at once by a pilot run with the precision the time allows (never a traceback, never 600 s
of work), bubble factors of a huge field refused before any work."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest


def pokerlab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pokerlab.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize(("args", "what"), [
    (["equity", "AhAs", "KdKc", "--stderr", "1e-9", "--seed", "1"], "--stderr 1e-09"),
    (["equity", "AhAs", "KdKc", "--stderr", "1e-300"], "--stderr 1e-300"),
    (["icm", "--stacks", "5000,3000,2000", "--payouts", "50,30,20", "--method", "montecarlo",
      "--half-width", "1e-9", "--seed", "1"], "--half-width 1e-09"),
    (["icm", "--stacks", "5000,3000,2000", "--payouts", "50,30,20", "--method", "montecarlo",
      "--half-width", "1e-300"], "--half-width 1e-300"),
])
def test_a_precision_target_out_of_reach_is_refused_at_once_with_what_the_time_allows(args, what):
    started = time.monotonic()
    result = pokerlab(*args)
    assert time.monotonic() - started < 90  # the default limit is 600 s: the pilot answers in about a second
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"error: {what} is out of reach in 600 s: a pilot run reached ")
    assert "600 s allow about " in lines[0]


def test_a_precision_target_in_reach_runs_as_before():
    result = pokerlab("equity", "AhAs", "KdKc", "--stderr", "2e-3", "--seed", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert '"stop_reason": "precision"' in result.stdout or '"stop_reason":"precision"' in result.stdout


def test_bubble_factors_of_a_huge_field_are_refused_before_the_work(tmp_path: Path):
    stacks = tmp_path / "big.txt"
    stacks.write_text("\n".join(str(1000 + i) for i in range(100_000)))
    started = time.monotonic()
    result = pokerlab("icm", "--stacks-file", str(stacks), "--payouts", "50,30,20", "--bubble-factors")
    assert time.monotonic() - started < 30  # was 108 s of ICM before the refusal
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("error: --bubble-factors need 9,999,900,000 ICM runs of 100,000 players")
