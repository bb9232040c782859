"""Monte Carlo equity: the kernel inputs, the stopping rule and the driver of the sampling kernel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pokerlab.cards.classes import COMBO_MASKS, COMBOS
from pokerlab.cards.tables import load_tables
from pokerlab.equity.problem import NO_JOINT_COMBO, EquityProblem, Progress, category_of_value, is_uniform_random
from pokerlab.errors import InvalidRangeError, whole_number
from pokerlab.stats import StoppingRule, run_until
from pokerlab.stats.threads import threads_for

if TYPE_CHECKING:
    from pokerlab.equity.kernels import MonteCarloInputs

DEFAULT_TARGET_STDERR = 2e-4  # Monte Carlo default when no trial count, time or target is given
MC_CHUNKS = 16  # independent random streams per batch; fixed, so results do not depend on the thread count
# The most player-hands a batch deals (samples x players): a batch is about 0.15-0.2 s on 2 loaded cores (2-3e7
# player-hands per second), and Ctrl-C waits for the batch. A count, not a time: seeded results stay the same
# on every machine.
MC_BATCH_WORK = 1 << 22
# A batch of fewer player-hands (samples x players) runs on one thread. Measured per call (AsKs vs QQ on a turn) on
# this project's 2-core EPYC under load 3.5-5, numba pinned to 1 or 2 threads (benchmarks/startup.py --threads,
# 2026-11-25): 2,000 trials 0.4 ms on one thread, 1.1x faster on two at best and 56-60 ms in two runs of three
# (the second thread descheduled); 20,000 trials 0.8-0.9 ms, 1.2-1.4x faster on two. 100,000 player-hands is
# 50,000 heads-up trials: a short run stays on one core, a long run's later batches (up to 2^22 player-hands)
# use every thread
MC_PARALLEL_MIN_WORK = 100_000


def max_batch(players: int) -> int:
    """The most samples in one Monte Carlo batch of ``players`` players (see :data:`MC_BATCH_WORK`).

    >>> max_batch(2), max_batch(10)
    (2097152, 419430)
    """
    return MC_BATCH_WORK // players


def monte_carlo_inputs(problem: EquityProblem) -> MonteCarloInputs:
    """The sampling kernel's input bundle: flattened combos with cumulative weights, board, fixed cards."""
    from pokerlab.cards.kernels import partial_hand  # numba loads with the first run that samples
    from pokerlab.equity.kernels import MonteCarloInputs

    tables = load_tables()
    starts = [0]
    cards, masks, cumulative = [], [], []
    is_random = []
    uniform = []
    for original, reduced in zip(problem.originals, problem.ranges, strict=True):
        random_player = is_uniform_random(original)
        is_random.append(random_player)
        indices = reduced.indices
        weights = reduced.weights[indices]
        cards.append(COMBOS[indices])
        masks.append(COMBO_MASKS[indices])
        cumulative.append(np.cumsum(weights))
        uniform.append(bool(np.all(weights == weights[0])))
        starts.append(starts[-1] + len(indices))
    key, bits = partial_hand(np.array(problem.board, dtype=np.uint8), tables)
    return MonteCarloInputs(
        deck=problem.deck, missing=problem.missing, board_key=key, board_bits=bits,
        is_random=np.array(is_random),
        starts=np.array(starts, dtype=np.int64), combo_cards=np.concatenate(cards),
        combo_masks=np.concatenate(masks), cumulative=np.concatenate(cumulative),
        uniform_weights=np.array(uniform), category_of_value=category_of_value(),
    )


def stopping_rule(trials: int | None, time_limit: float | None, target_stderr: float | None,
                  confidence: float) -> StoppingRule:
    """The stopping rule of a Monte Carlo run (a target standard error of 2e-4 when no limit is given)."""
    if trials is not None:
        trials = whole_number(trials, "trials")
    if trials is None and time_limit is None and target_stderr is None:
        target_stderr = DEFAULT_TARGET_STDERR
    if target_stderr is not None:
        return StoppingRule.from_stderr(target_stderr, max_samples=trials, time_limit=time_limit,
                                        confidence=confidence)
    return StoppingRule(max_samples=trials, time_limit=time_limit, confidence=confidence)


def run_monte_carlo(problem: EquityProblem, rule: StoppingRule, seed: np.uint64, breakdown: bool,
                    progress: Progress | None) -> dict[str, Any]:
    """Sample until ``rule`` stops; the outcome fields of a result (means, standard errors, stop reason)."""
    from pokerlab.equity.kernels import MC_REJECTION_LIMIT, monte_carlo_batch

    inputs = monte_carlo_inputs(problem)
    tables = load_tables()
    players = len(problem.ranges)
    totals = np.zeros((players, 4))
    cats = np.zeros((players, 2, 9))

    def sample_batch(batch: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        with threads_for(size * players, MC_PARALLEL_MIN_WORK):  # the chunks, not the threads, fix the numbers
            stats, categories = monte_carlo_batch(seed, batch, size, MC_CHUNKS, inputs, breakdown, tables)
        if np.isnan(stats[0, 0]):
            raise InvalidRangeError(f"{NO_JOINT_COMBO} (or almost never: {MC_REJECTION_LIMIT:,} joint draws in a "
                                    "row were rejected)")
        totals[:] += stats
        cats[:] += categories
        return stats[:, 0], stats[:, 1]

    moments, reason, _ = run_until(rule, players, sample_batch, first_batch=1 << 14, max_batch=max_batch(players),
                                   progress=rule.fraction_reporter(progress))
    n = moments.count
    return {"equity": moments.mean, "win": totals[:, 2] / n, "tie": totals[:, 3] / n,
            "stderr": moments.stderr, "showdowns": n, "wins": None, "ties": None,
            "categories": cats / n if breakdown else None, "stop_reason": reason}
