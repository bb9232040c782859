"""Models against simulation: from one snapshot of stacks, predict each player's prize equity with ICM,
Malmuth-Weitzman, chip proportional and power-of-stacks ICM, and measure each against many simulated
continuations of the same snapshot.

Error of a model, in % of the prize pool still to be paid: the root mean square over players of
(model - simulated equity), with the Monte Carlo noise of the simulated equity subtracted
(``E[(m - Ê)^2] = (m - E)^2 + se^2``), and a 95% interval from a jackknife over the batch's chunks (blocks of
independent continuations). The paired difference of each model's mean squared error with ICM's is linear in
the simulated equities, so its interval is exact up to the jackknife: where it excludes 0, one model is closer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, whole_number
from pokerlab.icm import icm
from pokerlab.icm.alternatives import chip_proportional, malmuth_weitzman, power_icm
from pokerlab.simulation.core import MAX_TOURNAMENTS, SimulationResult, simulate
from pokerlab.simulation.kernels import Charts, Schedule

Z95 = 1.959963984540054


@dataclass(frozen=True)
class ModelError:
    """One model's distance from the simulation (% of the pool still to be paid)."""

    model: str
    rms: float  # noise-corrected RMS error per player
    rms_low: float
    rms_high: float
    max_abs: float  # largest |model - simulated| over players (not noise-corrected)
    mse_minus_icm: float  # mean squared error minus ICM's, (% of pool)^2: < 0 means closer than ICM
    mse_minus_icm_stderr: float

    def to_dict(self) -> dict[str, Any]:
        return {k: (v if isinstance(v, str) else float(v)) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class ModelComparison:
    """Predicted and simulated equity per player of one snapshot, and each model's error."""

    stacks: np.ndarray
    payouts: np.ndarray
    simulated: np.ndarray
    simulated_stderr: np.ndarray
    predictions: dict[str, np.ndarray]
    errors: list[ModelError]
    continuations: int
    alpha: float
    elapsed_s: float

    @property
    def closest(self) -> str:
        """The model with the smallest noise-corrected RMS error."""
        return min(self.errors, key=lambda e: e.rms).model

    def to_dict(self) -> dict[str, Any]:
        """JSON form: stacks, simulated equity and its standard error, every model's predictions and errors."""
        return {
            "players": [
                {"stack": float(s), "equity": float(e), "equity_stderr": float(se),
                 **{name: float(p[i]) for name, p in self.predictions.items()}}
                for i, (s, e, se) in enumerate(zip(self.stacks, self.simulated, self.simulated_stderr, strict=True))
            ],
            "errors": [e.to_dict() for e in self.errors], "closest": self.closest,
            "continuations": int(self.continuations), "power_alpha": float(self.alpha),
            "elapsed_s": float(self.elapsed_s),
        }


def field_snapshot(players: int, payouts: Any, play: str, left: int, seed: int,
                   starting_stack: int = 10_000) -> tuple[np.ndarray, int]:
    """The stacks (chips) of the players still in when at most ``left`` remain, in one seeded tournament of
    ``players`` starting with ``starting_stack`` each (tables of 9, the default schedule), and the blind level then.

    >>> stacks, level = field_snapshot(30, [600, 400], "coinflip", left=6, seed=1)
    >>> stacks.size <= 6, int(stacks.sum())  # every chip is still in play
    (True, 300000)
    """
    result = simulate(players=players, starting_stack=starting_stack, payouts=payouts, play=play, tournaments=1,
                      seed=seed, snapshots=(left,), records=True, workers=0)
    assert result.records is not None
    stacks = result.records["snap_stacks"][0, 0]
    return stacks[stacks > 0].astype(np.float64), int(result.records["snap_info"][0, 0, 1])


def predictions_and_noise(stacks: np.ndarray, payouts: np.ndarray, alpha: float, *,
                          seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Every model's equity for a snapshot (players still in only), and each sampled model's noise: the mean
    over players of its squared standard error, which :func:`model_errors` takes out of that model's error.
    Malmuth-Weitzman is sampled past 16 players, from ``4e9 / n^2`` orders (500 to 20,000: 8 ms each at 2,000
    players)."""
    pay = payouts[: stacks.size]
    samples = int(np.clip(4e9 / stacks.size**2, 500, 20_000))  # Monte Carlo costs n^2 / 2 per sample
    mw = malmuth_weitzman(stacks, pay, samples=samples, seed=seed)
    predicted = {
        "icm": icm(stacks, pay).equity,
        "malmuth-weitzman": mw.equity,
        "chip": chip_proportional(stacks, pay).equity,
        "power-icm": power_icm(stacks, pay, alpha).equity,
    }
    noise = {"malmuth-weitzman": float(np.mean(mw.stderr**2))} if mw.stderr is not None else {}
    return predicted, noise


def model_errors(result: SimulationResult, predicted: dict[str, np.ndarray], pool: float,
                 noise: dict[str, float] | None = None) -> list[ModelError]:
    """Each model's noise-corrected RMS error with a jackknife interval over chunks, and its MSE minus ICM's.
    ``noise``: a sampled model's own noise (mean squared standard error per player, money^2), independent of the
    simulation's and taken out of its error and of its difference with ICM as the simulation's is (a model's
    sampling error is not a modelling error)."""
    if result.block_prize is None or result.block_count is None or len(result.block_count) < 2:
        raise InvalidArgumentError("model errors need at least two chunks of continuations")
    sims = result.block_prize  # (K, n): per chunk, sums of each player's prize
    counts = result.block_count.astype(np.float64)
    total = sims.sum(axis=0)
    k = counts.size
    leave_out = (total[None, :] - sims) / (counts.sum() - counts)[:, None]  # (K, n) jackknife means
    full = total / counts.sum()
    noise_sim = float(np.mean(result.equity_stderr**2))
    scale = 100.0 / pool
    errors = []
    icm_pred = predicted["icm"]

    def jackknife(values: np.ndarray) -> float:
        return float(np.sqrt((k - 1) / k * ((values - values.mean()) ** 2).sum()))

    for name, m in predicted.items():
        own = (noise or {}).get(name, 0.0)
        mse = float(np.mean((m - full) ** 2))
        mse_sd = jackknife(np.mean((m[None, :] - leave_out) ** 2, axis=1))
        corrected = max(0.0, mse - noise_sim - own)
        diff = np.mean((m - icm_pred)[None, :] * ((m + icm_pred)[None, :] - 2 * leave_out), axis=1)
        diff_full = float(np.mean((m - icm_pred) * (m + icm_pred - 2 * full))) - own
        errors.append(ModelError(
            model=name, rms=float(np.sqrt(corrected)) * scale,
            rms_low=float(np.sqrt(max(0.0, corrected - Z95 * mse_sd))) * scale,
            rms_high=float(np.sqrt(corrected + Z95 * mse_sd)) * scale,
            max_abs=float(np.max(np.abs(m - full))) * scale,
            mse_minus_icm=diff_full * scale**2, mse_minus_icm_stderr=jackknife(diff) * scale**2,
        ))
    return errors


def compare_models(
    stacks: Sequence[float] | np.ndarray, payouts: Any, *, continuations: int = 10_000, play: str = "coinflip",
    bet: int | None = None, schedule: Schedule | None = None, start_level: int = 0, table_size: int | None = None,
    alpha: float | None = None, seed: int | None = None, workers: int | None = None, ray: str | None = None,
    charts: dict[str, Charts] | None = None, checkpoint: str | None = None,
    progress: Callable[[int, int], None] | None = None, chart_file: str | Path | None = None,
) -> ModelComparison:
    """Simulate ``continuations`` of a snapshot (the stacks of the players still in; ``payouts`` for places
    1, 2, ...) and measure every model against them. ``alpha``: the power-ICM exponent; ``None`` fits it to
    these continuations (in sample: say so when reporting it).

    >>> c = compare_models([5, 3, 2], [600, 400], bet=1, continuations=4000, seed=1, workers=0)
    >>> sorted(c.predictions), c.continuations
    (['chip', 'icm', 'malmuth-weitzman', 'power-icm'], 4000)
    """
    from pokerlab.icm.alternatives import fit_power

    continuations = whole_number(continuations, "continuations", low=1, high=MAX_TOURNAMENTS)
    result = simulate(stacks, payouts, play=play, bet=bet, schedule=schedule, start_level=start_level,
                      table_size=table_size, tournaments=continuations, seed=seed, workers=workers, ray=ray,
                      charts=charts, checkpoint=checkpoint, progress=progress, chart_file=chart_file)
    s = result.tournament.field.stacks.astype(np.float64)
    pay = result.tournament.payouts
    full_pay = np.zeros(s.size)
    full_pay[: pay.size] = pay
    if alpha is None:
        alpha = fit_power([s], [full_pay], [result.equity])
    predicted, noise = predictions_and_noise(s, full_pay, alpha, seed=result.seed)
    return ModelComparison(s, full_pay, result.equity, result.equity_stderr, predicted,
                           model_errors(result, predicted, float(full_pay.sum()), noise), result.tournaments,
                           float(alpha),
                           result.elapsed_s)
