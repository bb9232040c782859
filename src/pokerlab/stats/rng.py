"""Compiled random numbers shared by every engine's kernels: one generator, one exponential.

The generator is splitmix64 (Steele, Lea and Flood 2014; Vigna's finaliser constants): a 64-bit counter that
advances by the golden-ratio increment :data:`GOLDEN`, mixed by :func:`mix64`. Its output for draw ``t`` is
``mix64(start + t * GOLDEN)``, a function of the counter alone, so a kernel may draw a whole row of numbers in
one loop without a loop-carried dependency, and the compiler vectorises it (:func:`pokerlab.icm.kernels` does
this for its exponential clocks). :func:`next_u64` and :func:`uniform` are the one-at-a-time form over a
one-word state array (saved with a solver's checkpoint, for instance); both forms give the same stream.

:func:`neg_log` is ``-log(u)`` in plain arithmetic (numba's ``np.log`` is a scalar library call that stops
vectorisation): within 3 ulp of ``-np.log(u)`` over ``(0, 1]`` (tests/stats/test_rng.py).

These helpers are inlined into cached kernels of other modules, and numba checks only the kernel's own source
file: after editing this file run ``make clean-kernels`` (CI and fresh installs start from an empty cache).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

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


@intrinsic
def float_bits(typingctx, x):  # noqa: ARG001 (numba's intrinsic signature)
    """The IEEE-754 bit pattern of a float64 as an int64 (a bit cast, no conversion)."""
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@intrinsic
def bits_float(typingctx, x):  # noqa: ARG001
    """The float64 whose IEEE-754 bit pattern is the int64 ``x`` (a bit cast, no conversion)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@intrinsic
def fma(typingctx, a, b, c):  # noqa: ARG001
    """``a * b + c`` with one rounding (LLVM's ``llvm.fma``): the same result in a scalar or a vector lane and on
    every CPU, where leaving the fusing to fastmath would let the compiler decide per loop. On a CPU without
    FMA instructions (before x86-64-v3) it becomes a library call: still exact, no longer vectorised."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        double = ir.DoubleType()
        fused = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(fused, args)

    return sig, codegen


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
