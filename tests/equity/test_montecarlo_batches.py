"""Monte Carlo batches are bounded by their work (samples x players), not by the clock: Ctrl-C waits for a
batch, so a batch stays well under a second however many players, and a seed gives the same numbers on every
machine."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.equity import equity, equity_vs_random, kernels, montecarlo


@pytest.mark.parametrize("players", [2, 3, 9, 10])
def test_a_batch_deals_at_most_the_bounded_work(monkeypatch, players):
    sizes: list[int] = []

    def counting_batch(seed, batch, size, chunks, inputs, breakdown, tables):
        sizes.append(size)
        stats = np.zeros((players, 4))
        stats[:, 0] = stats[:, 1] = size / players  # every sample an equal share: a finite variance of zero
        return stats, np.zeros((players, 2, 9))

    monkeypatch.setattr(kernels, "monte_carlo_batch", counting_batch)  # imported where it runs
    equity(["random"] * players, method="montecarlo", trials=40_000_000, seed=1)
    assert sum(sizes) == 40_000_000
    assert max(sizes) == montecarlo.MC_BATCH_WORK // players  # grown to the bound, never past it


def test_versus_random_batches_count_every_opponent(monkeypatch):
    sizes: list[int] = []

    def counting_batch(seed, batch, size, *rest):
        sizes.append(size)
        return np.zeros((9, 4))

    monkeypatch.setattr(kernels, "versus_random_batch", counting_batch)
    equity_vs_random("AsKs", max_opponents=9, trials=20_000_000, seed=1)
    assert sum(sizes) == 20_000_000 and max(sizes) == montecarlo.MC_BATCH_WORK // 10
