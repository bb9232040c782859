"""Seed -> state -> stream lives in pokerlab.stats.rng alone, and each derivation is pinned against an independent
plain-Python (or plain-numpy) computation, so that a seed keeps giving the same numbers in every engine."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import pokerlab
from pokerlab.errors import InvalidArgumentError
from pokerlab.icm.alternatives import malmuth_weitzman
from pokerlab.simulation.kernels import tournament_start
from pokerlab.stats.rng import (
    fresh_seed,
    keyed_start,
    mixed_seed,
    numpy_generator,
    numpy_generators,
    seed_state,
    seed_word,
    stream_seed,
    substream_start,
)

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

# What an engine may not write outside stats/rng.py: seeding numpy itself, or mixing a seed into a stream start.
FORBIDDEN = re.compile(r"SeedSequence|default_rng|np\.random\.(seed|RandomState|PCG64|Philox|MT19937|SFC64)\b"
                       r"|\bseed\s*[\^*+]|[\^*+]\s*seed\b")


def _mix64(z: int) -> int:
    """splitmix64's output function in Python integers (Steele, Lea and Flood 2014; Vigna's constants)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def test_no_engine_derives_its_own_stream():
    root = Path(pokerlab.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).as_posix() == "stats/rng.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if code.lstrip().startswith(">>>"):  # a docstring example may build its own generator
                continue
            if FORBIDDEN.search(code):
                offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert offenders == [], "derive streams with pokerlab.stats.rng:\n" + "\n".join(offenders)


def test_the_check_above_can_fail():
    for line in ("rng = np.random.default_rng(seed)", "s = np.random.SeedSequence(7)", "start = mix64(seed ^ K)",
                 "counter = 3 * seed"):
        assert FORBIDDEN.search(line)
    assert not FORBIDDEN.search("rng = numpy_generator(seed)")


def test_seed_word_is_the_seed_and_mixed_seed_is_numpys_seed_sequence():
    assert int(seed_word(5)) == 5
    assert int(seed_word(2**64 + 3)) == 3
    expected = int(np.random.SeedSequence(1).generate_state(1, dtype=np.uint64)[0])
    assert int(mixed_seed(1)) == expected == 7434755675892716031
    assert seed_state(1).tolist() == [expected]


def test_equity_stream_seed_is_the_pinned_hash():
    # state = seed; three splitmix64 steps with the batch and chunk folded in between (stream_seed's definition)
    def reference(seed: int, batch: int, chunk: int) -> int:
        state = (seed + GOLDEN) & MASK
        state ^= (batch * 0xBF58476D1CE4E5B9) & MASK
        state = (state + GOLDEN) & MASK
        state ^= (chunk * 0x94D049BB133111EB) & MASK
        state = (state + GOLDEN) & MASK
        return _mix64(state)

    for seed, batch, chunk in ((1, 0, 0), (42, 3, 15), (2**63 + 5, 7, 1)):
        assert int(stream_seed(np.uint64(seed), batch, chunk)) == reference(seed, batch, chunk)
    assert int(stream_seed(np.uint64(1), 0, 0)) == 17911839290282890590


@njit(cache=True)
def _keyed(seed, key, index):
    return keyed_start(seed, key), substream_start(keyed_start(seed, key), index)


def test_keyed_and_substream_starts_and_the_simulations_tournament_start():
    key = 0x5EED5EED5EED5EED
    for seed, index in ((0, 0), (1, 5), (2**62 + 11, 12345)):
        start, sub = _keyed(np.uint64(seed), np.uint64(key), index)
        assert int(start) == _mix64(seed ^ key)
        assert int(sub) == _mix64((_mix64(seed ^ key) + index * GOLDEN) & MASK)
        assert int(tournament_start(seed, index)) == int(sub)


def test_malmuth_weitzman_sampling_is_seeded_by_its_key():
    stacks, payouts = [5, 3, 2, 4, 1, 6, 2, 3, 5, 2, 4, 3, 1, 2, 6, 3, 2, 4, 5, 1, 3, 2], [50, 30, 20]
    a = malmuth_weitzman(stacks, payouts, samples=2000, seed=3)
    assert np.array_equal(a.equity, malmuth_weitzman(stacks, payouts, samples=2000, seed=3).equity)
    assert not np.array_equal(a.equity, malmuth_weitzman(stacks, payouts, samples=2000, seed=4).equity)


def test_numpy_generators_are_numpys_own():
    assert numpy_generator(7).integers(1 << 30, size=4).tolist() == \
        np.random.default_rng(7).integers(1 << 30, size=4).tolist()
    children = np.random.SeedSequence(7).spawn(2)
    for mine, theirs in zip(numpy_generators(7, 2), children, strict=True):
        assert mine.random(3).tolist() == np.random.default_rng(theirs).random(3).tolist()
    with pytest.raises(InvalidArgumentError):
        numpy_generator(-1)


def test_fresh_seeds_are_63_bit_and_differ():
    seeds = {fresh_seed() for _ in range(8)}
    assert len(seeds) == 8 and all(0 <= s < 2**63 for s in seeds)
