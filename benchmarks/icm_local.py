"""Local ICM benchmark: one ICM-aware decision (the hero's equity when he folds, doubles up through a villain, or
loses to him) by :mod:`pokerlab.icm.local`, against exact ICM of the three outcomes (:func:`pokerlab.icm.icm`,
the exact quadrature, rtol 1e-11) measured in the same run on the same stacks.

Run: ``python benchmarks/icm_local.py [--sizes 100,1000,2000,10000] [--pairs 5]``. Fields: gamma-distributed
stacks (shape 2), 15% paid. ``banded`` payouts pay places 1-9 each their own amount and then bands of growing
width (9, 14, 22, ... places) one amount each, as large live and online tournaments do; ``dense`` pays every
place a different amount (power law), the worst case of local ICM (many payout levels within
the spread of the count of players out). Per row: the field's build (nodes and power sums, once per field), one
decision (CPU time per call, best of 5 rounds of many calls), exact ICM of the same three outcomes, their ratio,
and the largest error of local ICM over ``--pairs`` random hero/villain pairs, in fair shares (pool / players),
on the equities and on the differences a decision compares (double up - fold, lose - fold).

``--table`` (default on) adds the decision a full-ring ICM decider makes in the tournament: nine members (a
table), the hero first in with eight players left to act, each calling a top-15% range, so his jam margin
(:func:`pokerlab.simulation.icm_players.jam_margin`) values 18 outcomes (fold, nobody calls, won and lost
against each first caller). Per row: the table's rest-of-field payoffs (once per hand, shared by every decider
at the table), one jam decision (CPU time), and the largest error of local ICM against exact ICM over the
outcomes the decision values (every outcome up to 2,000 players; fold, nobody calls and the first caller's two
at 10,000, where exact ICM takes seconds per outcome), in fair shares, on the equities (as the decision computes
them: :func:`pokerlab.icm.local.pair_equity`) and on the differences it compares (each outcome - fold); the
margin's error is at most twice the equities'. ``updates us``: a hand's nine stack updates of the field summary
(per hand in the tournament, apart from the decision).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from _machine import best_time, machine_description
from pokerlab.icm import icm
from pokerlab.icm.local import (
    LocalField,
    local_field,
    outcome_equities,
    pair_equity,
    pair_terms,
    rest_payoffs,
    update_stack,
)
from pokerlab.icm.payouts import power_law
from pokerlab.simulation.core import deciders
from pokerlab.simulation.icm_players import DECIDE_ICM, Aware, jam_margin

CALLS = 200  # decisions per timed round
ANTE = 25.0  # the full-table decision's ante (blinds 100/200)


def banded(players: int, pool: float = 1e6) -> np.ndarray:
    """15% paid: places 1-9 their own amounts, then bands of growing width paying the band's mean."""
    paid = max(players * 15 // 100, 3)
    dense = power_law(paid, pool)
    pay = dense.copy()
    end, width = 9, 9
    while end < paid:
        stop = min(paid, end + width)
        pay[end:stop] = dense[end:stop].mean()
        end, width = stop, int(width * 1.5) + 1
    return pay


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,2000,10000")
    parser.add_argument("--pairs", type=int, default=5, help="hero/villain pairs whose error is measured")
    parser.add_argument("--no-table", dest="table", action="store_false", help="skip the full-table decision")
    args = parser.parse_args()
    print(f"machine: {machine_description()}")
    sizes = [int(s) for s in args.sizes.split(",")]
    warm = local_field([5000.0, 3000.0] * 40, [50.0, 30.0, 20.0])
    outcome_equities(warm, np.array([0, 1]), np.array([[5000.0, 3000.0]]), np.empty(1))
    print(f"{'players':>8}{'payouts':>8}{'levels':>7}{'nodes':>6}{'build ms':>10}{'decision us':>12}"
          f"{'exact ms':>10}{'ratio':>8}{'err levels':>11}{'err diffs':>10}{'load':>6}")
    for n in sizes:
        for shape in ("banded", "dense"):
            rng = np.random.default_rng(n)
            stacks = np.round(rng.gamma(2.0, 5000.0, n)) + 100.0
            pay = banded(n) if shape == "banded" else power_law(max(n * 15 // 100, 3), 1e6)
            start = time.perf_counter()
            field = local_field(stacks, pay)
            build = time.perf_counter() - start
            fair = pay.sum() / n
            worst_level = worst_diff = 0.0
            exact_s = []
            decision_s = []
            for _ in range(args.pairs):
                hero, villain = (int(v) for v in rng.choice(n, 2, replace=False))
                a, b = stacks[hero], stacks[villain]
                x = min(a, b)
                after = np.array([[a, b], [a + x, b - x], [a - x, b + x]])
                members = np.array([hero, villain])
                out = np.empty(3)
                def decide(field: LocalField = field, members: np.ndarray = members, after: np.ndarray = after,
                           out: np.ndarray = out) -> None:
                    for _ in range(CALLS):
                        outcome_equities(field, members, after, out)

                decision_s.append(best_time(decide, 5, time.process_time) / CALLS)
                start = time.perf_counter()
                exact = []
                for row in after:
                    s = stacks.copy()
                    s[[hero, villain]] = row
                    exact.append(icm(s, pay).equity[hero])
                exact_s.append(time.perf_counter() - start)
                err = np.abs(out - np.array(exact)) / fair
                worst_level = max(worst_level, float(err.max()))
                worst_diff = max(worst_diff, float(np.abs(np.diff(out) - np.diff(exact)).max() / fair))
            decision = float(np.median(decision_s))
            exact_time = float(np.median(exact_s))
            print(f"{n:>8}{shape:>8}{field.band_end.size:>7}{field.nodes.size:>6}{build * 1e3:>10.1f}"
                  f"{decision * 1e6:>12.1f}{exact_time * 1e3:>10.1f}{exact_time / decision:>8.0f}"
                  f"{worst_level:>11.1e}{worst_diff:>10.1e}{os.getloadavg()[0]:>6.1f}")

    if args.table:
        table_decisions(sizes)


def table_outcomes(chips: np.ndarray, contrib: np.ndarray, dead: float,
                   order: np.ndarray) -> tuple[list[np.ndarray], list[int]]:
    """The stacks of the outcomes :func:`jam_margin` values for ``order[0]`` (first in, every other to act):
    fold (the pot to the big blind, ``order[-1]``), won and lost against each caller, nobody calls; and the seat
    besides the hero's each moves (-1: none)."""
    pot = dead + contrib.sum()
    hero, bb = order[0], order[-1]
    rows = []
    others = [int(bb)]
    fold = chips.copy()
    fold[bb] += pot
    rows.append(fold)
    for j in order[1:]:
        mine, theirs = contrib[hero] + chips[hero], contrib[j] + chips[j]
        matched = min(mine, theirs)
        rest = pot - contrib[hero] - contrib[j]
        for sign in (1, -1):
            row = chips.copy()
            row[hero] = mine + sign * matched + (rest if sign > 0 else 0.0)
            row[j] = theirs - sign * matched + (rest if sign < 0 else 0.0)
            rows.append(row)
            others.append(int(j))
    alone = chips.copy()
    alone[hero] += pot
    rows.append(alone)
    others.append(-1)
    return rows, others


def table_decisions(sizes: list[int]) -> None:
    """The full-ring decision (see the module docs): payoffs per hand, one jam decision, error of its outcomes."""
    print(f"\nfull-table decision (9 members, 8 callers), load {os.getloadavg()[0]:.1f}")
    print(f"{'players':>8}{'payouts':>10}{'nodes':>6}{'hand us':>9}{'decision us':>12}{'sum us':>8}"
          f"{'updates us':>11}{'outcomes':>9}{'err levels':>11}{'err diffs':>10}{'load':>6}")
    top15 = np.zeros(169)
    top15[:25] = 1.0  # classes 0..24 of the class order: a fixed range, about 15% of the hands
    for n in sizes:
        for shape in ("banded", "standard", "top-heavy"):
            rng = np.random.default_rng(n + 1)
            stacks = np.round(rng.gamma(2.0, 5000.0, n)) + 100.0
            paid = max(n * 15 // 100, 3)
            pay = banded(n) if shape == "banded" else power_law(paid, 1e6, 1.0 if shape == "standard" else 1.5)
            members = np.sort(rng.choice(n, 9, replace=False)).astype(np.int64)
            contrib = np.zeros(9)
            contrib[1], contrib[2] = 100.0, 200.0  # small and big blind; the button is seat 0
            chips = stacks[members] - contrib - ANTE
            field_stacks = stacks.copy()
            field_stacks[members] = chips  # as the tournament keeps it: the stacks behind after the forced bets
            field = local_field(field_stacks, pay)
            aware = deciders(["icm"], pay, n)
            order = np.array([3, 4, 5, 6, 7, 8, 0, 1, 2])
            ranges = np.tile(top15, (10, 1))
            row = np.empty(9)
            payoff = rest_payoffs(field, members)

            def hand(field: LocalField = field, members: np.ndarray = members) -> None:
                for _ in range(20):
                    rest_payoffs(field, members)

            def decide(field: LocalField = field, members: np.ndarray = members, chips: np.ndarray = chips,
                       contrib: np.ndarray = contrib, payoff: np.ndarray = payoff, aware: Aware = aware,
                       order: np.ndarray = order, ranges: np.ndarray = ranges, row: np.ndarray = row) -> None:
                for _ in range(20):
                    jam_margin(DECIDE_ICM, 1.0, aware, field, members, chips, contrib, 9 * ANTE, order, 0, 2, 0, ranges,
                               payoff, row)

            def updates(field: LocalField = field, members: np.ndarray = members, chips: np.ndarray = chips) -> None:
                for _ in range(10):  # a hand's nine stack changes, there and back
                    for k in range(9):
                        update_stack(field, int(members[k]), chips[k] + 25.0)
                    for k in range(9):
                        update_stack(field, int(members[k]), chips[k])

            per_hand = best_time(hand, 5, time.process_time) / 20
            per_decision = best_time(decide, 5, time.process_time) / 20
            per_updates = best_time(updates, 5, time.process_time) / 20
            outcomes, others = table_outcomes(chips, contrib, 9 * ANTE, order)
            if n > 2000:  # exact ICM takes seconds per outcome: fold, the first caller's two, nobody calls
                outcomes, others = [outcomes[i] for i in (0, 1, 2, -1)], [others[i] for i in (0, 1, 2, -1)]
            hero = int(order[0])
            terms = pair_terms(field, members, chips, payoff, hero, 40)
            local = np.array([pair_equity(field, members, o, terms, hero, other)
                              for o, other in zip(outcomes, others, strict=True)])
            exact = []
            for o in outcomes:
                s = field_stacks.copy()
                s[members] = o
                exact.append(icm(s, pay).equity[members[hero]])
            fair = pay.sum() / n
            err = np.abs(local - np.array(exact))
            diff = np.abs((local[1:] - local[0]) - (np.array(exact[1:]) - exact[0]))
            print(f"{n:>8}{shape:>10}{field.nodes.size:>6}{per_hand * 1e6:>9.1f}{per_decision * 1e6:>12.1f}"
                  f"{(per_hand + per_decision) * 1e6:>8.1f}{per_updates * 1e6:>11.1f}{len(outcomes):>9}"
                  f"{err.max() / fair:>11.1e}{diff.max() / fair:>10.1e}{os.getloadavg()[0]:>6.1f}", flush=True)


if __name__ == "__main__":
    main()
