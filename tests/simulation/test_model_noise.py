"""A sampled model's own noise is not a modelling error: with it given, a model's error and its difference with
ICM are unbiased (a known-truth test over many noisy predictions); without it, they are too large by the noise.
And Malmuth-Weitzman past 16 players reports that noise."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pokerlab.simulation.analysis import model_errors, predictions_and_noise


def test_a_models_sampling_noise_is_taken_out_of_its_error():
    rng = np.random.default_rng(12)
    n, blocks, pool = 50, 4, 100.0
    truth = rng.dirichlet(np.ones(n)) * pool
    # a simulation with no noise of its own, in identical blocks: the errors below are the model's alone
    result = SimpleNamespace(block_prize=np.tile(truth, (blocks, 1)), block_count=np.ones(blocks),
                             equity_stderr=np.zeros(n))
    bias = np.where(np.arange(n) % 2 == 0, 2.0, -2.0) * 0.01 * pool  # the model's error: 2% of the pool each
    sigma = 0.01 * pool  # its sampling noise per player
    corrected, plain, gap, plain_gap = [], [], [], []
    for _ in range(400):
        noisy = truth + bias + rng.normal(0.0, sigma, size=n)
        predicted = {"icm": truth, "model": noisy}
        with_noise = {e.model: e for e in model_errors(result, predicted, pool, {"model": sigma**2})}
        without = {e.model: e for e in model_errors(result, predicted, pool)}
        corrected.append(with_noise["model"].rms ** 2)
        plain.append(without["model"].rms ** 2)
        gap.append(with_noise["model"].mse_minus_icm)
        plain_gap.append(without["model"].mse_minus_icm)
    # in (% of the pool)^2: the bias is 4, the noise adds 1; the mean over 400 predictions has an sd of ~0.03
    assert np.mean(corrected) == pytest.approx(4.0, abs=0.15)
    assert np.mean(plain) == pytest.approx(5.0, abs=0.15)
    assert np.mean(gap) == pytest.approx(4.0, abs=0.15) and np.mean(plain_gap) == pytest.approx(5.0, abs=0.15)


def test_malmuth_weitzman_reports_its_noise_past_the_exact_size():
    stacks = np.linspace(1.0, 5.0, 20)
    payouts = np.r_[50.0, 30.0, 20.0, np.zeros(17)]
    _, noise = predictions_and_noise(stacks, payouts, 1.0, seed=3)
    assert set(noise) == {"malmuth-weitzman"} and 0 < noise["malmuth-weitzman"] < 1.0
    _, none = predictions_and_noise(stacks[:10], payouts[:10], 1.0, seed=3)
    assert none == {}  # exact to 16 players
