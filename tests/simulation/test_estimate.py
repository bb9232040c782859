"""Simulate's estimates before a run (issue 26: a run of days or one that could not fit was accepted): the
memory estimate against the bytes a small run really keeps, the time estimate's arithmetic, and a request over
either refused with its numbers. No clock is read: the time estimate is checked from a given time per
tournament."""

from __future__ import annotations

import math
import re

import pytest

from pokerlab.errors import ResourceLimitError
from pokerlab.limits import MAX_RUN_SECONDS
from pokerlab.simulation import prepare
from pokerlab.simulation.core import (
    CHUNK_OVERHEAD_BYTES,
    ChunkTask,
    batch_bytes,
    check_batch_memory,
    check_batch_time,
    chunk_size,
)

SUMMED = ("place_counts", "prize_sum", "prize_sq")  # a chunk's arrays kept per chunk until the merge
RECORDS = ("hands_each", "places", "snap_stacks", "snap_info")  # kept per tournament with records


@pytest.mark.parametrize("records", [False, True])
def test_the_memory_estimate_is_the_bytes_a_run_keeps(records):
    """Every chunk a small run returns holds, besides the fixed overhead, exactly the data bytes the estimate
    counts for it."""
    t = prepare(stacks=[50, 30, 20, 20, 10, 10], payouts=[60, 40], play="coinflip", bet=1,
                snapshots=[4, 2] if records else ())
    tournaments = 130  # 65 chunks of 2, one chunk of fewer
    size = chunk_size(tournaments, t.field.stacks.size)
    n_chunks = math.ceil(tournaments / size)
    task = ChunkTask(t, 1, tournaments, size, records)
    chunks = [task(index) for index in range(n_chunks)]
    data = sum(chunk[name].nbytes for chunk in chunks for name in SUMMED)
    if records:
        data += sum(chunk[name].nbytes for chunk in chunks for name in RECORDS)
        assert t.snapshots.players_left.size == 2
    assert sum(int(chunk["tournaments"]) for chunk in chunks) == tournaments
    assert batch_bytes(t, tournaments, records) == n_chunks * CHUNK_OVERHEAD_BYTES + data


def test_the_time_estimate_and_its_refusal_say_the_numbers():
    assert check_batch_time(1000, 0.5, 4) == 125.0
    assert check_batch_time(1000, 0.5, 0) == 500.0  # 0 workers: in this process, one at a time
    each, workers = 0.09, 2
    most = int(MAX_RUN_SECONDS * workers / each)  # 1,920,000: a day on two workers
    assert check_batch_time(most, each, workers) <= MAX_RUN_SECONDS
    with pytest.raises(ResourceLimitError) as refused:
        check_batch_time(10_000_000, each, workers)
    message = str(refused.value)
    assert message.startswith("10,000,000 tournaments would take about 5.2 days on 2 worker(s) (one took 0.09 s)")
    assert message.endswith(f"ask for at most {most:,}")


def test_a_batch_over_the_memory_is_refused_with_its_numbers(monkeypatch):
    """At 100,000 players a chunk is one tournament: 10^7 of them keep 10^7 chunks' statistics."""
    monkeypatch.setattr("pokerlab.limits.available_memory", lambda: 2**30)  # 1 GiB: the same answer anywhere
    t = prepare(players=100_000, payouts=[50, 30, 20])
    tournaments = 10_000_000
    each = batch_bytes(t, tournaments, False) / tournaments
    assert chunk_size(tournaments, 100_000) == 1 and each > CHUNK_OVERHEAD_BYTES
    with pytest.raises(ResourceLimitError) as refused:
        check_batch_memory(t, tournaments, False)
    message = str(refused.value)
    assert message.startswith("10,000,000 tournaments of 100,000 players would need about ")
    most = int(re.search(r"ask for at most ([\d,]+)$", message).group(1).replace(",", ""))
    assert most == int(0.8 * 2**30 // each)
    check_batch_memory(t, most // 2, False)  # well within: accepted
