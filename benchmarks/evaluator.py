"""Hand evaluator benchmark: all 7-card hands on one core, random 7-card batches, OMPEval (C++) on the same
hands in the same run, and the Python peers.

Run with ``make bench`` or ``.venv/bin/python benchmarks/evaluator.py [--ompeval PATH]``; ``--checks`` runs only
``evaluate_batch`` with its checks against the unchecked path. OMPEval is built from
a checkout given by ``--ompeval`` or ``$OMPEVAL_SRC`` (see ``benchmarks/_ompeval.py``); eval7 and phevaluator
come from the optional ``bench`` extra. A missing peer is reported and skipped.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from _machine import best_time, machine_description, row
from _ompeval import OMPEval, source_path
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.cards.kernels import evaluate_rows, seven_card_value_counts
from pokerlab.cards.tables import load_tables

ALL_SEVEN = 133_784_560
PEER_SAMPLE = 200_000


def random_hands(count: int, size: int, seed: int) -> np.ndarray:
    """``count`` rows of ``size`` distinct random cards, uint8, dealt a million rows at a time (one argsort of
    ``count`` x 52 floats would hold 4 GB for 10 M rows)."""
    rng = np.random.default_rng(seed)
    hands = np.empty((count, size), dtype=np.uint8)
    for start in range(0, count, 1_000_000):
        stop = min(count, start + 1_000_000)
        hands[start:stop] = np.argsort(rng.random((stop - start, 52)), axis=1)[:, :size]
    return hands


def peer_rates(hands: np.ndarray) -> dict[str, float]:
    """Hands per second of each installed peer, evaluating hand by hand from Python as users do."""
    rates = {}
    texts = [["23456789TJQKA"[c >> 2] + "cdhs"[c & 3] for c in row_] for row_ in hands.tolist()]
    try:
        import eval7

        cards = [[eval7.Card(t) for t in hand] for hand in texts]
        start = time.perf_counter()
        for hand in cards:
            eval7.evaluate(hand)
        rates["eval7"] = len(cards) / (time.perf_counter() - start)
    except ImportError:
        print("  eval7 not installed (pip install '.[bench]'): skipped")
    try:
        from phevaluator import Card, evaluate_cards

        cards = [[Card(t) for t in hand] for hand in texts]
        start = time.perf_counter()
        for hand in cards:
            evaluate_cards(*hand)
        rates["phevaluator"] = len(cards) / (time.perf_counter() - start)
    except ImportError:
        print("  phevaluator not installed (pip install '.[bench]'): skipped")
    return rates


def checked_rows(hands: np.ndarray, rounds: int = 9) -> None:
    """The public call with its checks against the unchecked path, on uint8 and int64 cards, one thread,
    interleaved call by call; CPU time of this process (what a shared machine's load leaves alone)."""
    numba.set_num_threads(1)
    for label, cards in (("uint8", hands), ("int64", hands.astype(np.int64))):
        evaluate_batch(cards[:1000])  # load the kernels of this dtype outside the timings
        checked = unchecked = float("inf")
        for _ in range(rounds):
            unchecked = min(unchecked, best_time(lambda c=cards: evaluate_batch(c, validate=False), 1,
                                                 time.process_time))
            checked = min(checked, best_time(lambda c=cards: evaluate_batch(c), 1, time.process_time))
        row(f"evaluate_batch checked, {label} cards, 1 core, CPU", len(hands) / checked / 1e6, "M hands/s",
            ">= 0.9x unchecked", f"unchecked {len(hands) / unchecked / 1e6:.0f} M/s",
            f"checked {unchecked / checked:.2f}x unchecked")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def main() -> None:
    if "--checks" in sys.argv[1:]:  # only the checked rows: the 10 M hands, then the two dtypes
        print(f"# evaluate_batch, checked against unchecked\nmachine: {machine_description()}")
        checked_rows(random_hands(10_000_000, 7, seed=1))
        return
    print(f"# Hand evaluator benchmark\nmachine: {machine_description()}")
    start = time.perf_counter()
    tables = load_tables()
    print(f"tables ready in {time.perf_counter() - start:.2f} s (built on first use, then read from the disk cache)")
    hands = random_hands(10_000_000, 7, seed=1)
    evaluate_batch(hands[:10])  # compile / load the cached kernels outside the timings
    numba.set_num_threads(1)
    seven_card_value_counts(tables)

    print(f"  {'workload':<46} {'ours':>12} {'unit':<10} {'target':<16} {'peer':<28} ratio")
    exhaustive_one = best_time(lambda: seven_card_value_counts(tables))
    batch_one = best_time(lambda: evaluate_rows(hands, tables))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    exhaustive_all = best_time(lambda: seven_card_value_counts(tables))
    batch_all = best_time(lambda: evaluate_rows(hands, tables))

    omp = OMPEval.build(source_path())
    if omp is not None:  # the same hands and the same single core, runs interleaved with ours
        numba.set_num_threads(1)
        hand_file = Path(tempfile.mkdtemp(prefix="pokerlab-hands-")) / "hands.bin"
        hands.tofile(hand_file)
        ours_random = ours_checked = ours_all = omp_random = omp_all = float("inf")
        for _ in range(5):
            ours_random = min(ours_random, best_time(lambda: evaluate_rows(hands, tables), 1))
            ours_checked = min(ours_checked, best_time(lambda: evaluate_batch(hands), 1))
            omp_random = min(omp_random, omp.seconds("random", str(hand_file)))
            ours_all = min(ours_all, best_time(lambda: seven_card_value_counts(tables), 1))
            omp_all = min(omp_all, omp.seconds("enumerate"))
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        row("random 7-card hands, 1 core, vs OMPEval", len(hands) / ours_random / 1e6, "M hands/s", ">= 300 M/s",
            f"OMPEval {len(hands) / omp_random / 1e6:.0f} M/s", f"ours {omp_random / ours_random:.2f}x OMPEval's")
        row("  the same, evaluate_batch with its checks", len(hands) / ours_checked / 1e6, "M hands/s", "",
            f"OMPEval {len(hands) / omp_random / 1e6:.0f} M/s", f"ours {omp_random / ours_checked:.2f}x OMPEval's")
        row("all 133,784,560 hands, 1 core, vs OMPEval", ours_all, "s", "<= 0.15 s", f"OMPEval {omp_all:.3f} s",
            f"ours {omp_all / ours_all:.2f}x OMPEval's")

    rates = peer_rates(hands[:PEER_SAMPLE])
    ours_rate_one = len(hands) / batch_one
    row("all 133,784,560 7-card hands, 1 core", exhaustive_one, "s", "<= 0.15 s")
    row(f"all 7-card hands, {numba.config.NUMBA_NUM_THREADS} cores", exhaustive_all, "s")
    for name, rate in rates.items():
        row(f"  {name}: all 7-card hands (extrapolated)", ALL_SEVEN / rate, "s", "",
            f"{name} {rate / 1e6:.2f} M/s", f"ours {ALL_SEVEN / rate / exhaustive_one:,.0f}x faster")
    row("random 7-card hands, batch, 1 core", ours_rate_one / 1e6, "M hands/s", ">= 300 M/s")
    checked_rows(hands)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    row(f"random 7-card hands, batch, {numba.config.NUMBA_NUM_THREADS} cores", len(hands) / batch_all / 1e6,
        "M hands/s")
    for name, rate in rates.items():
        row(f"  {name}: random 7-card hands from Python", rate / 1e6, "M hands/s", "",
            f"{name} {rate / 1e6:.2f} M/s", f"ours {ours_rate_one / rate:,.0f}x faster")


if __name__ == "__main__":
    main()
