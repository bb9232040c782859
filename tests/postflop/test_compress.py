"""The compressed (16-bit) storage of the postflop solver: int16 regrets and uint16 cumulative strategy with a
float32 scale per node (postflop-solver's compressed storage). Its solve reaches the float32 solve's target
with about the same exploitability; that exploitability is exact for the strategy the integers store (the
float32 solver measures the same integers to the same bits); its memory estimate is the bytes it allocates;
checkpoints, save, load and resume keep it; a float32 solve never compiles its kernels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app
from pokerlab.errors import FileFormatError, InvalidArgumentError, ResourceLimitError
from pokerlab.games.postflop.kernels import (
    DECISION_NODE,
    REGRET_STEPS,
    STRATEGY_STEPS,
    _new_cumulative,
    _new_regrets,
)
from pokerlab.postflop import PostflopResult, build_game, load, solve
from pokerlab.postflop.solve import resume
from pokerlab.solvers.postflop_cfr import PostflopSolver

RIVER: dict[str, Any] = dict(board="Kh9d5c2s2h", oop="QQ, 99, AKo, T8s, A5s", ip="KK, JTs, 76s, AQo", pot=100,
                             stack=150, bets="50%, a", raises="a")


@pytest.fixture(scope="module")
def both() -> tuple[PostflopResult, PostflopResult]:
    """The same river spot solved to 0.2% of the pot in float32 and compressed storage."""
    return (solve(**RIVER, target=0.2, iterations=2000),
            solve(**RIVER, target=0.2, iterations=2000, compress=True))


def test_compressed_solve_reaches_the_float32_target(both: tuple[PostflopResult, PostflopResult]) -> None:
    """Both below the target in the same number of checks give or take one, the compressed exploitability within
    0.05% of the pot of the float32 one, the EVs within the two exploitabilities (chips)."""
    plain, packed = both
    assert packed.regrets.dtype == np.int16 and packed.cumulative.dtype == np.uint16
    assert packed.stop_reason == plain.stop_reason == "target"
    assert plain.exploitability_percent <= 0.2 and packed.exploitability_percent <= 0.2
    assert abs(packed.iterations - plain.iterations) <= 10
    assert packed.exploitability_percent == pytest.approx(plain.exploitability_percent, abs=0.05)
    for a, b in zip(packed.ev, plain.ev, strict=True):
        assert a == pytest.approx(b, abs=packed.exploitability + plain.exploitability)


def test_exploitability_is_that_of_the_stored_integers(both: tuple[PostflopResult, PostflopResult]) -> None:
    """The float32 solver given the strategy the stored integers make (their rows normalised) measures the same
    best responses and values, to the float32 storage's rounding: the compressed exploitability is that of the
    strategy stored."""
    packed = both[1]
    plain_game = build_game(**RIVER)[0]
    strategy = packed.game.average_strategy(packed.cumulative, 1.0)
    measured = PostflopSolver(plain_game, plain_game.strategy_storage(strategy), weight=1.0)
    assert measured.exploitability() == pytest.approx(packed.exploitability, rel=1e-6)
    assert measured.value(0) + packed.game.half_pot == pytest.approx(packed.ev[0], abs=1e-5)


def test_each_updated_block_uses_the_whole_range(both: tuple[PostflopResult, PostflopResult]) -> None:
    """Every decision node's blocks are encoded over their largest magnitude: 32767 (regrets), 65535 (sums)."""
    packed = both[1]
    game = packed.game
    assert packed.scales is not None
    for node in np.flatnonzero(game.tree.kind == DECISION_NODE):
        lo = int(game.tree.offset[node])
        size = int(game.tree.num_children[node]) * game.num_private_hands(int(game.tree.player[node]))
        regrets = packed.regrets[lo:lo + size].astype(np.int64)
        sums = packed.cumulative[lo:lo + size]
        assert (np.abs(regrets).max() == REGRET_STEPS) == (packed.scales[2 * node] > 0)
        assert (sums.max() == STRATEGY_STEPS) == (packed.scales[2 * node + 1] > 0)


def test_memory_estimate_is_the_allocated_storage(both: tuple[PostflopResult, PostflopResult]) -> None:
    """The compressed estimate is below the float32 one by exactly the bytes the compressed arrays save (the
    float32 estimate counts the built tree exactly: test_turn.py; its storage is one array, regrets and
    cumulative strategy)."""
    plain, packed = both
    assert packed.scales is not None and plain.regrets is plain.cumulative
    saved = plain.regrets.nbytes - (packed.regrets.nbytes + packed.cumulative.nbytes + packed.scales.nbytes)
    assert plain.game.memory_bytes - packed.game.memory_bytes == saved > 0
    assert packed.game.estimated_counts[:2] == (packed.game.storage_size, packed.game.tree.kind.size)


def test_checkpoint_save_load_and_resume_keep_the_compressed_state(tmp_path: Path) -> None:
    """Half a compressed solve checkpointed and continued, or saved, loaded and resumed: the arrays, scales and
    exploitability of one uninterrupted compressed solve, bit for bit."""
    keep = tmp_path / "spot.npz"
    half = solve(**RIVER, target=None, iterations=30, checkpoint=keep, compress=True)
    continued = solve(**RIVER, target=None, iterations=60, checkpoint=keep, compress=True)
    straight = solve(**RIVER, target=None, iterations=60, compress=True)
    half.save(tmp_path / "half.npz")
    loaded = load(tmp_path / "half.npz")
    assert loaded.regrets.dtype == np.int16 and loaded.spec["compress"] is True
    resumed = resume(loaded, iterations=60)
    for other in (continued, resumed):
        assert other.scales is not None and straight.scales is not None
        assert np.array_equal(other.regrets, straight.regrets)
        assert np.array_equal(other.cumulative, straight.cumulative)
        assert np.array_equal(other.scales, straight.scales)
        assert other.exploitability == straight.exploitability


def test_locks_are_refused_in_one_line() -> None:
    with pytest.raises(InvalidArgumentError, match="not supported with the compressed"):
        solve(**RIVER, lock="line=check; strategy=check", compress=True)
    args = ["postflop", "solve", "--board", "Kh9d5c2s2h", "--oop", "QQ", "--ip", "KK", "--pot", "100", "--stack",
            "100", "--compress", "--lock", "line=check; strategy=check"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "--compress does not support node locking" in result.output


def test_cli_compress_reports_the_smaller_estimate() -> None:
    base = ["postflop", "solve", "--board", RIVER["board"], "--oop", RIVER["oop"], "--ip", RIVER["ip"], "--pot",
            "100", "--stack", "150", "--bets", "50%,a", "--raises", "a", "--iterations", "20", "--json"]
    plain = CliRunner().invoke(app, base)
    packed = CliRunner().invoke(app, [*base, "--compress"])
    assert plain.exit_code == packed.exit_code == 0, packed.output
    assert '"compress": true' in packed.stdout and '"compress"' not in plain.stdout


def test_float32_storage_does_not_compile_the_compressed_update(tmp_path: Path) -> None:
    """A cold float32 solve must stay under the issue's 30 s of compilation: the walk's node update is chosen
    by the storage's type when it compiles, so float32 storage compiles the float32 update alone (a fresh
    process with an empty cache: this one has compiled both, and what loads from a cache is not counted)."""
    code = """
import numpy as np
from numba import njit
from pokerlab.games.postflop import kernels as k

@njit
def update(regrets, cumulative):
    slab = np.zeros((8, 3))
    k._update_node(regrets, cumulative, np.zeros(0, np.float32), 0, 0, slab, 2, 2, 3, np.zeros(3), np.ones(3),
                   k.Discount(1.0, 0.5, 1.0))

update(np.zeros(6, np.float32), np.zeros(6, np.float32))
print(len(k._update.signatures), len(k._update_compressed.signatures))
update(np.zeros(6, np.int16), np.zeros(6, np.uint16))
print(len(k._update.signatures), len(k._update_compressed.signatures))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env).stdout.split()
    assert out == ["1", "0", "1", "1"]


def test_the_estimate_decides_before_allocation() -> None:
    """A limit between the two estimates refuses the float32 tree and builds the 16-bit one."""
    plain, _ = build_game(**RIVER, build=False)
    packed, spec = build_game(**RIVER, build=False, compress=True)
    assert packed.memory_bytes < plain.memory_bytes and spec["compress"] is True
    limit = (plain.memory_bytes + packed.memory_bytes) // 2
    with pytest.raises(ResourceLimitError, match="MiB of solver storage"):
        build_game(**RIVER, max_memory=limit)
    assert build_game(**RIVER, max_memory=limit, compress=True)[0].memory_bytes == packed.memory_bytes


def test_a_saved_compressed_solve_is_browsed_as_stored(tmp_path: Path,
                                                       both: tuple[PostflopResult, PostflopResult]) -> None:
    """A loaded 16-bit solve's node strategies are its stored integers over their row sums; a float32
    checkpoint is not continued as a 16-bit solve (another spot description: refused in one line)."""
    packed = both[1]
    packed.save(tmp_path / "spot.npz")
    view = load(tmp_path / "spot.npz").node("check")
    game = packed.game
    node = 1  # the root's first child: OOP's check
    assert game.tree.kind[node] == DECISION_NODE
    na, rows = int(game.tree.num_children[node]), game.num_private_hands(int(game.tree.player[node]))
    lo = int(game.tree.offset[node])
    block = packed.cumulative[lo:lo + na * rows].astype(np.float64).reshape(na, rows)
    sums = block.sum(axis=0)
    live = sums > 0
    assert np.array_equal(view.strategy[live], (block / np.where(live, sums, 1.0)).T[live])
    solve(**RIVER, target=None, iterations=10, checkpoint=tmp_path / "plain.npz")
    with pytest.raises(FileFormatError, match="a checkpoint of another spot \\(compress differ\\)"):
        solve(**RIVER, target=None, iterations=20, checkpoint=tmp_path / "plain.npz", compress=True)


def test_a_rows_largest_magnitude_is_exact() -> None:
    """The decoding loops keep a row's largest magnitude as an integer maximum over the magnitudes' bits: it
    equals numpy's float maximum of the absolute values they write, bit for bit, with both signs, -0.0, a
    subnormal and values straddling powers of two in the row; and the row written is the decoding formula."""
    rng = np.random.default_rng(3)
    for size in (1, 7, 16, 61, 333):
        stored = rng.integers(-REGRET_STEPS, REGRET_STEPS + 1, size).astype(np.int16)
        values = rng.normal(0.0, 3.0, size).astype(np.float32)
        values[: min(3, size)] = np.array([-0.0, 5e-45, -1.9999999], np.float32)[: min(3, size)]
        out = rng.normal(0.0, 1.0, size).astype(np.float32)
        expected = np.float64(stored) * np.where(stored > 0, 0.25, 0.125) + np.float64(values) - np.float64(out)
        written = values.astype(np.float64)
        top = _new_regrets(stored, written, out.astype(np.float64), size, 0.25, 0.125)
        assert np.array_equal(written, expected) and top == np.abs(expected).max()
        cumulative = rng.integers(0, STRATEGY_STEPS + 1, size).astype(np.uint16)
        own = rng.random(size)
        sigma = rng.random(size)
        kept = np.float64(cumulative) * 1e-3 + own * sigma
        top = _new_cumulative(cumulative, sigma, own, size, 1e-3)
        assert np.array_equal(sigma, kept) and top == kept.max()
    assert _new_regrets(np.zeros(4, np.int16), np.zeros(4), np.zeros(4), 4, 1.0, 1.0) == 0.0
