"""Limits that protect the machine: work that could not finish or fit is refused up front with the estimate,
a precision target out of reach stops at a stated time limit, checkpoints parse, writes are atomic."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pokerlab.cli.common import Checkpoints
from pokerlab.cli.main import app
from pokerlab.errors import InvalidArgumentError, ResourceLimitError
from pokerlab.io import atomic_write
from pokerlab.limits import check_work, format_bytes, format_duration

runner = CliRunner()


def test_check_work_refuses_with_the_estimate():
    check_work(10**6, "a million", per_second=1e6, bytes_each=8)
    with pytest.raises(ResourceLimitError, match=r"7\.3 TiB of memory .* ask for at most"):
        check_work(10**12, "hands", per_second=1e9, bytes_each=8)
    with pytest.raises(ResourceLimitError, match=r"would take at least 11\.6 days .* ask for at most 86,400 "):
        check_work(10**6, "iterations", per_second=1.0)
    assert format_bytes(1536) == "1.5 KiB" and format_duration(5400) == "1.5 h"


@pytest.mark.parametrize("args", [
    ["equity", "AsKs", "QQ", "--mc", "--stderr", "1e-9", "--time", "0.3", "--seed", "1", "--json"],
    ["icm", "--stacks", "5 3 2", "--payouts", "50,30", "--method", "montecarlo", "--half-width", "1e-12",
     "--time", "0.3", "--seed", "1", "--json"],
])
def test_unreachable_precision_with_a_time_limit_stops_at_it(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "time"


def test_checkpoint_periods():
    assert Checkpoints.parse("5,000").iterations == 5000
    assert Checkpoints.parse("30s").seconds == 30 and Checkpoints.parse("2h").seconds == 7200
    every = Checkpoints.parse("100")
    assert not every.due(50) and every.due(100) and not every.due(150) and every.due(200)
    for bad in ("0", "-3", "1.5", "soon", "10 minutes"):
        with pytest.raises(InvalidArgumentError):
            Checkpoints.parse(bad)


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path):
    target = tmp_path / "state.npz"
    target.write_bytes(b"good state")
    with pytest.raises(RuntimeError), atomic_write(target) as temporary:
        temporary.write_bytes(b"half a")
        raise RuntimeError("crash mid-write")
    assert target.read_bytes() == b"good state" and [p.name for p in tmp_path.iterdir()] == ["state.npz"]
    with atomic_write(target) as temporary:
        temporary.write_bytes(b"new state")
    assert target.read_bytes() == b"new state" and oct(target.stat().st_mode & 0o777) != oct(0o600)
