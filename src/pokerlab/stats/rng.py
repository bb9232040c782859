"""Compiled random numbers shared by every engine's kernels: one generator, one exponential.

The generator is splitmix64 (Steele, Lea and Flood 2014; Vigna's finaliser constants): a 64-bit counter that
advances by the golden-ratio increment :data:`GOLDEN`, mixed by :func:`mix64`. Its output for draw ``t`` is
``mix64(start + t * GOLDEN)``, a function of the counter alone, so a kernel may draw a whole row of numbers in
one loop without a loop-carried dependency, and the compiler vectorises it (:mod:`pokerlab.icm.sampling` does
this for its exponential clocks). :func:`next_u64` and :func:`uniform` are the one-at-a-time form over a
one-word state array (saved with a solver's checkpoint, for instance); both forms give the same stream.

:func:`neg_log` is ``-log(u)`` in plain arithmetic (numba's ``np.log`` is a scalar library call that stops
vectorisation): within 3 ulp of ``-np.log(u)`` over ``(0, 1]`` (tests/stats/test_rng.py).

Seeds become streams here, and only here, for every engine (seed -> state -> stream); the test
``tests/stats/test_seed_streams.py::test_no_engine_derives_its_own_stream`` fails if an engine seeds numpy or
mixes a seed itself. Two families, each kept exactly as it was when the engines were split so that a seed gives
the same numbers as before:

- **counter-based, from the seed word** (:func:`seed_word`: the validated seed itself): the stream of each unit
  of work is a hash of (seed, unit), so any worker, thread or chunk can start any unit without the others.
  :func:`stream_seed` hashes (seed, batch, chunk) for the equity engine; :func:`keyed_start` starts an engine's
  stream from (seed, key) and :func:`substream_start` sub-stream ``i`` of it (Malmuth-Weitzman sampling;
  tournament ``i`` of a simulation batch).
- **sequential, from the mixed seed** (:func:`mixed_seed`: the seed mixed by numpy's ``SeedSequence``, so
  that nearby seeds start far apart): :func:`seed_state`, the one-word state saved with a checkpoint (the
  solvers' MCCFR, the two-round game's MCCFR); :func:`batch_seed` and :func:`stream_counter` (ICM Monte
  Carlo); :func:`numpy_generator` / :func:`numpy_generators`, numpy ``Generator`` objects for plain-Python
  play and set-up (matches, the human at the terminal, payout and stack draws, push/fold's sampled deals, the
  scrambled Sobol points).

Why two, not one: merging them changes every seeded number of one family, and only seeded numbers (each is
checked against an exact value within a stated tolerance, so none is more right than another). The
counter-based family holds the equity convergence table (docs/algorithms.md) and every simulated figure of
docs/beating-icm.md (a 12.6-minute run); the sequential family holds the trained two-round bot and the match
figures of docs/results.md (a 10^7-iteration training; the default bot, trained with a fixed seed, is cached
by every user) and the seeded tests of the solvers and of ICM Monte Carlo. Both families start from one
validated seed (:func:`~pokerlab.stats.seeds.validate_seed`); :func:`fresh_seed` serves ``None`` in both.

Every seed function takes ``None`` for a fresh random run.

These helpers are inlined into cached kernels of other modules, and numba checks only the kernel's own source
file: after editing this file run ``make clean-kernels`` (CI and fresh installs start from an empty cache).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.typing.templates import Signature
from numba.extending import intrinsic

from pokerlab.stats.seeds import validate_seed

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd: the counter's step
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """splitmix64's output function: a bijective mix of a 64-bit word (``mix64(start + t * GOLDEN)`` is draw t)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance the one-word state ``state[0]`` (uint64 array) and return the next 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@njit(cache=True, inline="always")
def uniform(state: np.ndarray) -> float:
    """Next uniform double in ``[0, 1)`` (53 random bits) from the one-word state ``state[0]``."""
    return float(next_u64(state) >> np.uint64(11)) * _TWO_TO_MINUS_53


@njit(cache=True, inline="always")
def open_unit(bits: np.uint64) -> float:
    """The top 53 of 64 random bits as a uniform double in ``(0, 1]``: never 0, so ``-log`` stays finite."""
    return (float(np.int64(bits >> np.uint64(11))) + 1.0) * _TWO_TO_MINUS_53


@njit(cache=True, inline="always")
def reflected_unit(bits: np.uint64) -> float:
    """The antithetic partner of :func:`open_unit`: ``1 + 2^-53 - open_unit(bits)``, also uniform on ``(0, 1]``."""
    return float(np.int64(9007199254740992) - np.int64(bits >> np.uint64(11))) * _TWO_TO_MINUS_53


# numba calls an intrinsic's definition with its typing context and the argument types, and its code generator
# with LLVM's builder; each is bound below to the type of the compiled call, which is what the type checker sees.
_Codegen = Callable[[object, ir.IRBuilder, Signature, list[ir.Value]], ir.Value]


@intrinsic
def _float_bits(typingctx: object, x: types.Type) -> tuple[Signature, _Codegen]:  # noqa: ARG001
    """The IEEE-754 bit pattern of a float64 as an int64 (a bit cast, no conversion)."""
    sig = types.int64(types.float64)

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature,  # noqa: ARG001
                args: list[ir.Value]) -> ir.Value:
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@intrinsic
def _bits_float(typingctx: object, x: types.Type) -> tuple[Signature, _Codegen]:  # noqa: ARG001
    """The float64 whose IEEE-754 bit pattern is the int64 ``x`` (a bit cast, no conversion)."""
    sig = types.float64(types.int64)

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature,  # noqa: ARG001
                args: list[ir.Value]) -> ir.Value:
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@intrinsic
def _fma(typingctx: object, a: types.Type, b: types.Type, c: types.Type) -> tuple[Signature, _Codegen]:  # noqa: ARG001
    """``a * b + c`` with one rounding (LLVM's ``llvm.fma``): the same result in a scalar or a vector lane and on
    every CPU, where leaving the fusing to fastmath would let the compiler decide per loop. On a CPU without
    FMA instructions (before x86-64-v3) it becomes a library call: still exact, no longer vectorised."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature,  # noqa: ARG001
                args: list[ir.Value]) -> ir.Value:
        double = ir.DoubleType()
        fused = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(fused, args)

    return sig, codegen


float_bits = cast(Callable[[float], np.int64], _float_bits)
bits_float = cast(Callable[[np.int64], float], _bits_float)
fma = cast(Callable[[float, float, float], float], _fma)


_SQRT_HALF_BITS = np.int64(0x3FE6A09E667F3BCD)  # bit pattern of sqrt(1/2)
_ONE_BITS = np.int64(0x3FF0000000000000)  # bit pattern of 1.0
_MANTISSA = np.int64(0x000FFFFFFFFFFFFF)
_LN2 = 0.6931471805599453
_ATANH_SERIES = tuple(1.0 / (2 * j + 1) for j in range(10, -1, -1))  # 1/21, 1/19, ..., 1/3, 1 (Horner order)


@njit(cache=True, inline="always")
def neg_log(u: float) -> float:
    """``-log(u)`` for a normal double ``u > 0``, within 3 ulp, in arithmetic that vectorises.

    Write ``u = 2^e m`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` (integer operations on the bit pattern: adding
    ``1 - sqrt(1/2)`` in bit space carries into the exponent exactly when ``m >= sqrt(2)``). With ``f = m - 1``
    (exact, Sterbenz) and ``s = f / (2 + f)``, ``log m = 2 atanh s = 2 (s + s^3/3 + s^5/5 + ...)``; ``|s| <= 0.172``
    so twelve terms leave a truncation below ``s^24 / 25 < 2^-62`` relative. Then ``log u = e ln 2 + log m``.
    The Horner steps are explicit fused multiply-adds (:func:`fma`). Inlined: a calling loop vectorises when
    compiled with ``error_model="numpy"``, which drops the zero-division check of ``f / (2 + f)``; no fastmath
    is needed, so every lane does the same IEEE operations and a clock does not depend on the vector width the
    compiler chose (nor on the CPU).

    >>> from numba import njit
    >>> round(float(njit(lambda u: neg_log(u))(0.25)), 12)  # ln 4
    1.38629436112
    """
    shifted = float_bits(u) + (_ONE_BITS - _SQRT_HALF_BITS)
    exponent = float((shifted >> 52) - 1023)
    f = bits_float((shifted & _MANTISSA) + _SQRT_HALF_BITS) - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    series = 1.0 / 23.0
    for coefficient in _ATANH_SERIES:  # unrolled by the compiler (a global tuple)
        series = fma(series, s2, coefficient)
    return -fma(exponent, _LN2, 2.0 * s * series)


# -- seed -> state -> stream ------------------------------------------------------------------------------------

def _fresh_entropy() -> int:
    """128 bits of fresh entropy from the operating system (numpy's ``SeedSequence``), for ``seed=None``."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)
    return entropy


def fresh_seed() -> int:
    """A fresh seed (63 bits from the operating system) for a run asked for with ``seed=None`` that must record
    the seed it used (a simulation's result, for instance), so that the run can be repeated.

    >>> 0 <= fresh_seed() < 2**63
    True
    """
    return _fresh_entropy() % (1 << 63)


def seed_word(seed: int | None) -> np.uint64:
    """The equity engine's 64-bit seed word: ``seed`` modulo 2^64 (checked by
    :func:`~pokerlab.stats.seeds.validate_seed`), or fresh entropy for ``None``.

    >>> int(seed_word(5))
    5
    """
    checked = validate_seed(seed)
    if checked is None:
        return np.uint64(_fresh_entropy() % (1 << 64))
    return np.uint64(checked % (1 << 64))


def mixed_seed(seed: int | None) -> np.uint64:
    """``seed`` mixed once by numpy's ``SeedSequence`` (nearby seeds start far apart); fresh for ``None``.

    >>> bool(mixed_seed(1) == mixed_seed(1) != mixed_seed(2))
    True
    """
    checked = validate_seed(seed)
    if checked is None:
        checked = fresh_seed()
    word: np.uint64 = np.random.SeedSequence(checked).generate_state(1, dtype=np.uint64)[0]
    return word


def numpy_generator(seed: int | None) -> np.random.Generator:
    """numpy's default ``Generator`` for ``seed`` (its ``SeedSequence``, as :func:`mixed_seed`), for plain-Python
    draws; fresh for ``None``.

    >>> int(numpy_generator(1).integers(100)) == int(numpy_generator(1).integers(100))
    True
    """
    return np.random.default_rng(validate_seed(seed))


def numpy_generators(seed: int | None, count: int) -> tuple[np.random.Generator, ...]:
    """``count`` independent numpy ``Generator`` objects spawned from ``seed``'s ``SeedSequence`` (one per use,
    so that drawing more from one leaves the others unchanged); fresh for ``None``.

    >>> hands, matches = numpy_generators(1, 2); int(hands.integers(100)) != int(matches.integers(100))
    True
    """
    return tuple(np.random.default_rng(child) for child in np.random.SeedSequence(validate_seed(seed)).spawn(count))


def seed_state(seed: int | None) -> np.ndarray:
    """The one-word state array of :func:`next_u64` / :func:`uniform` for ``seed``: ``[mixed_seed(seed)]``.

    >>> int(seed_state(1)[0]) == int(seed_state(1)[0]) != int(seed_state(2)[0])
    True
    """
    return np.array([mixed_seed(seed)], dtype=np.uint64)


def batch_seed(base: np.uint64 | int, index: int) -> int:
    """The seed of batch ``index`` of a run started from ``base`` (a :func:`mixed_seed`), as a 63-bit integer.

    >>> batch_seed(0, 1)
    7146057691288625177
    """
    return (int(base) + index * 0x632BE59BD9B4E019) & 0x7FFFFFFFFFFFFFFF


@njit(cache=True)
def stream_seed(seed: np.uint64, batch: int, chunk: int) -> np.uint64:
    """Seed of the random stream of one chunk of one batch: a hash of (seed, batch, chunk)."""
    state = np.zeros(1, dtype=np.uint64)
    state[0] = seed
    next_u64(state)
    state[0] ^= np.uint64(batch) * _MIX1
    next_u64(state)
    state[0] ^= np.uint64(chunk) * _MIX2
    return next_u64(state)


@njit(cache=True, inline="always")
def keyed_start(seed: np.uint64, key: np.uint64) -> np.uint64:
    """Start counter of the stream an engine keys ``key`` (a constant of the engine) from the seed word ``seed``
    (:func:`seed_word`): its draws are ``mix64(start + t * GOLDEN)``, t = 1, 2, ..."""
    return mix64(seed ^ key)


@njit(cache=True, inline="always")
def substream_start(start: np.uint64, index: int) -> np.uint64:
    """Start counter of sub-stream ``index`` (a tournament of a batch, ...) of the stream started at ``start``:
    its draw ``index``, so any sub-stream starts without the others."""
    return mix64(start + np.uint64(index) * GOLDEN)


@njit(cache=True, inline="always")
def stream_counter(seed: int, stream: int, samples: int, streams: int) -> tuple[np.uint64, int]:
    """Start counter and sample count of one of ``streams`` splitmix64 streams sharing ``samples`` (so a seed
    gives the same draws whichever kernel or thread runs the stream)."""
    per = (samples + streams - 1) // streams
    count = max(0, min(samples, (stream + 1) * per) - stream * per)
    return np.uint64(seed) * GOLDEN + np.uint64(stream + 1) * np.uint64(0xD1B54A32D192ED03), count
