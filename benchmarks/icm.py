"""ICM benchmark: the brief's 50-player scenario, large exact fields, Monte Carlo variance reduction.

Run: ``python benchmarks/icm.py``. Prints workload, time, target, error against an oracle, and the machine.
Numba kernels are warmed before any timed region. The "which estimator" table measures, per field shape, the
worst player's variance times the time per sample of each Monte Carlo estimator: the rule of
``pokerlab.icm.default_variance_reduction`` is fitted to it.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from _machine import machine_description
from pokerlab.icm import banded, default_variance_reduction, icm, model, power_law, race, truncated_normal_stacks
from pokerlab.stats import normal_quantile


def best_of(function, repeats: int) -> tuple[float, object]:
    best, value = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def closed_form_linear(stacks: np.ndarray) -> np.ndarray:
    return 1.0 + (stacks[:, None] / (stacks[:, None] + stacks[None, :])).sum(axis=1) - 0.5


def _integration_inputs(stacks: np.ndarray, payouts: np.ndarray) -> tuple:
    """What the façade hands the compiled driver (stacks normalised to mean 1, payouts, range, block)."""
    s = stacks / stacks.mean()
    pay = np.ascontiguousarray(payouts, dtype=np.float64)
    w_end = race.race_variable(s, race.tail_time(s, pay.size, math.log(1e-18)))[0]
    return s, pay, w_end, 1e-3 * pay.sum() / s.size, model._block(s.size, pay.size)


def kernel_time(stacks: np.ndarray, payouts: np.ndarray, repeats: int) -> float:
    """Best time of the compiled adaptive integration alone, to separate the façade's overhead."""
    s, pay, w_end, floor, block = _integration_inputs(stacks, payouts)
    log_eps = banded.DEFAULT_LOG_EPS + 2 * math.log(s.size)
    args = (s, pay, w_end, model.DEFAULT_RTOL, floor, block, log_eps, *model.gk15(),
            numba.get_num_threads())
    return best_of(lambda: banded.race_equity_adaptive(*args), repeats)[0]


def unbanded_equity(stacks: np.ndarray, payouts: np.ndarray) -> np.ndarray:
    """The same integration with the count bands switched off (L <= 0): measures the banding error."""
    s, pay, w_end, floor, block = _integration_inputs(stacks, payouts)
    return banded.race_equity_adaptive(s, pay, w_end, model.DEFAULT_RTOL, floor, block, 0.0, *model.gk15(),
                                        numba.get_num_threads())[0]


def row(workload: str, seconds: float, target: str, note: str) -> None:
    print(f"{workload:<52} {seconds * 1e3:>10.3f} ms   target {target:<9} {note}")


def main() -> None:
    print(f"machine: {machine_description()}")
    # warm every kernel on a small case
    icm([3.0, 2.0, 1.0], [5.0, 3.0], "subset")
    icm([3.0, 2.0, 1.0], [5.0, 3.0], places=True)
    for vr in ("plain", "antithetic", "sobol", "conditional"):
        icm([3.0, 2.0, 1.0], [5.0, 3.0], "montecarlo", samples=2000, variance_reduction=vr, seed=0)

    # --- the brief's scenario: 50 players, 40 paid, power law a=1, pool 1000, truncated-normal stacks
    stacks = truncated_normal_stacks(50, mean=10_000, sd=5_000, seed=2021)
    payouts = power_law(40, 1000.0, 1.0)
    seconds, exact = best_of(lambda: icm(stacks, payouts), 50)
    equal = icm(np.full(50, 10_000.0), payouts).equity
    row("50 players / 40 paid, exact (quadrature)", seconds, "<= 1 ms",
        f"nodes {exact.nodes}; equal-stack error {np.max(np.abs(equal - 20.0)) / 20.0:.1e} rel")
    kernel_seconds = kernel_time(stacks, payouts, 50)
    print(f"{'':52} of which compiled integration {kernel_seconds * 1e3:.3f} ms, façade (validation, "
          f"normalisation, range, result) {(seconds - kernel_seconds) * 1e3:.3f} ms")
    vs_linear = icm(stacks, np.arange(50, 0, -1.0)).equity
    linear_error = np.max(np.abs(vs_linear / closed_form_linear(stacks) - 1))
    print(f"{'':52} linear-prize closed form error {linear_error:.1e} rel")
    small = truncated_normal_stacks(20, mean=10_000, sd=5_000, seed=20)
    small_pay = power_law(15, 1000.0, 1.0)
    subset = icm(small, small_pay, "subset").equity
    race = icm(small, small_pay).equity
    print(f"{'':52} 20 players / 15 paid vs subset recursion {np.max(np.abs(race / subset - 1)):.1e} rel")
    per_sample = {}
    for vr in ("plain", "antithetic", "sobol", "conditional"):
        samples = 15_360 if vr == "sobol" else 15_500  # Sobol: 60 scrambles x 256 points
        repeats = 100 if vr in ("plain", "antithetic") else 3  # the fast ones: more runs, less noise in the best
        seconds, mc = best_of(
            lambda vr=vr, samples=samples: icm(stacks, payouts, "montecarlo", samples=samples,
                                               variance_reduction=vr, seed=1), repeats)
        err = np.max(np.abs(mc.equity - exact.equity) / mc.stderr)
        per_sample[vr] = seconds / mc.samples
        row(f"50 / 40, Monte Carlo {vr}, {mc.samples} samples", seconds, "<= 2 ms",
            f"{seconds / mc.samples * 1e9:.0f} ns/sample; max stderr {np.max(mc.stderr):.4f}, "
            f"max |err|/stderr {err:.2f}")

    # --- samples each stopping rule needs for +-1 at 90% with a pool of 1000
    z = normal_quantile(0.90)
    d = 1.0
    print("samples needed for +-1 at 90% (pool 1000), variances from 200,000 samples:")
    plain_variance = None
    for vr in ("plain", "antithetic", "conditional"):
        mc = icm(stacks, payouts, "montecarlo", samples=200_000, variance_reduction=vr, seed=3)
        variance = mc.stderr**2 * mc.samples  # per-sample variance (antithetic: per draw, pairs counted as 2)
        if plain_variance is None:
            plain_variance = variance
        ours = math.ceil(z**2 * variance.max() / d**2)
        brief = math.ceil(z * variance.sum() / d**2)
        reduction = plain_variance.max() / variance.max()
        print(f"  {vr:<12} ours (z^2 max var / d^2): {ours:>8}   brief (z sum var / d^2): {brief:>8}   "
              f"variance reduction x{reduction:.1f}   ~{ours * per_sample[vr] * 1e3:.1f} ms at the cost per "
              "sample above")

    which_estimator()

    # --- large exact fields
    for n, paid, target in ((2048, 307, "<= 100 ms"), (10_000, 1500, "<= 2 s")):
        stacks = truncated_normal_stacks(n, mean=10_000, sd=5_000, seed=n)
        payouts = power_law(paid, 1000.0, 1.0)
        repeats = 3 if n < 5000 else 1
        seconds, result = best_of(lambda stacks=stacks, payouts=payouts: icm(stacks, payouts), repeats)
        fine = icm(stacks, payouts, rtol=1e-15).equity
        equal = icm(np.full(n, 10_000.0), payouts).equity
        unbanded = unbanded_equity(stacks, payouts)
        row(f"{n} players / {paid} paid, exact (quadrature)", seconds, target,
            f"nodes {result.nodes}; vs rtol=1e-15 run {np.max(np.abs(result.equity / fine - 1)):.1e} rel; "
            f"equal stacks {np.max(np.abs(equal * n / 1000.0 - 1)):.1e} rel; "
            f"vs unbanded kernel {np.max(np.abs(result.equity / unbanded - 1)):.1e} rel")
    stacks = truncated_normal_stacks(1000, mean=10_000, sd=5_000, seed=1000)
    payouts = power_law(150, 1000.0, 1.0)
    icm(stacks[:20], payouts[:5], places=True)  # warm
    seconds, result = best_of(lambda: icm(stacks, payouts, places=True), 1)
    consistency = np.max(np.abs(result.places @ payouts / result.equity - 1))
    columns = np.max(np.abs(result.places.sum(axis=0) - 1))
    row("1000 players / 150 paid, finish-place matrix, exact", seconds, "-",
        f"places @ payouts vs equity kernel {consistency:.1e} rel; paid places' columns sum to 1 within {columns:.1e}")
    stacks = truncated_normal_stacks(10_000, mean=10_000, sd=5_000, seed=10_000)
    payouts = power_law(1500, 1000.0, 1.0)
    icm(stacks[:100], payouts[:10], "montecarlo", places=True, samples=1000, seed=0)  # warm
    exact = icm(stacks, payouts).equity
    seconds, result = best_of(lambda: icm(stacks, payouts, "montecarlo", places=True, samples=20_000, seed=1), 1)
    # rms error over rms stderr, not the worst player's z: a small stack's stderr estimated from its few cashes
    # is correlated with its estimate (docs/algorithms.md), so single-player z-scores have heavy tails here
    ratio = np.sqrt(np.mean((result.equity - exact) ** 2) / np.mean(result.stderr**2))
    row("10000 players / 1500 paid, finish places by Monte Carlo, 20,000 samples", seconds, "-",
        f"max place stderr {np.max(result.places_stderr):.4f}; equities: rms error / rms stderr {ratio:.2f} "
        "(the exact matrix: O(n k^2) per node, hours)")
    n = 2048
    stacks = truncated_normal_stacks(n, seed=7)
    seconds, result = best_of(lambda: icm(stacks, np.arange(n, 0, -1.0)), 1)
    row(f"{n} players, all paid (linear prizes), exact", seconds, "-",
        f"closed form error {np.max(np.abs(result.equity / closed_form_linear(stacks) - 1)):.1e} rel")


def which_estimator() -> None:
    """Variance x time per sample of each estimator over field shapes: the data behind
    pokerlab.icm.default_variance_reduction (smaller is better: time to a given precision)."""
    estimators = ("plain", "antithetic", "sobol", "conditional")
    print("which estimator: worst player's variance x seconds per sample (x 1e6; lower reaches a precision sooner)")
    print(f"  {'players':>7} {'paid':>5}" + "".join(f" {vr:>11}" for vr in estimators) + "   best        auto")
    for n, paid in ((3, 3), (9, 3), (12, 3), (20, 5), (20, 10), (30, 9), (40, 10), (50, 10), (50, 40), (64, 16),
                    (100, 15), (200, 30), (1000, 150), (2048, 307)):
        stacks = truncated_normal_stacks(n, mean=10_000, sd=5_000, seed=n)
        payouts = power_law(paid, 1000.0, 1.0)
        scores = {}
        for vr in estimators:
            samples = 2_000 if vr == "conditional" and n * paid > 20_000 else 102_400
            icm(stacks, payouts, "montecarlo", samples=1024, variance_reduction=vr, seed=0)
            seconds, result = best_of(lambda stacks=stacks, payouts=payouts, vr=vr, samples=samples: icm(
                stacks, payouts, "montecarlo", samples=samples, variance_reduction=vr, seed=1), 3)
            # per-sample variance: Sobol's stderr comes from replicate means of 256 points, so stderr^2 x points
            # is the variance a plain sample would need to match it
            variance = (result.stderr**2 * result.samples).max()
            scores[vr] = variance * seconds / result.samples
        best = min(scores, key=scores.get)
        print(f"  {n:>7} {paid:>5}" + "".join(f" {scores[vr] * 1e6:>11.0f}" for vr in estimators)
              + f"   {best:<11} {default_variance_reduction(n, paid)}")
    print(f"  (above n k = {model.CONDITIONAL_MAX_WORK:,} auto does not take conditional: a sample costs over ~0.3 ms "
          "there, the stopping rule's 1,000-sample minimum most of a second)")

if __name__ == "__main__":
    main()
