"""Benchmark of the bots engine: MCCFR iterations per second on the two-round game, exact best response time,
match throughput. Peer: the generic compiled-tree best response of pokerlab.solvers on a reduced two-round game
(the full game does not fit a compiled tree: 4.7e11 histories)."""

from __future__ import annotations

import time

from _machine import machine_description
from pokerlab.agents.match import game_by_name, run_match
from pokerlab.agents.players import FullBetAgent, RandomAgent
from pokerlab.games.compiler import compile_game
from pokerlab.games.two_round import TwoRoundHoldem, TwoRoundSpec, two_round_sizes
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.policy import exploitability as tree_exploitability
from pokerlab.solvers.two_round import Abstraction, TwoRoundTrainer, exploitability, fixed_strategy


def main() -> None:
    print(f"machine: {machine_description()}")
    spec = TwoRoundSpec()
    sizes = two_round_sizes(spec)
    print(f"two-round game (7 ranks x 4 suits, stack 6): {sizes.histories:,} histories, {sizes.infosets:,} infosets, "
          f"betting tree {sizes.betting_nodes:,} nodes")
    trainer = TwoRoundTrainer(spec, Abstraction(buckets=24), seed=0)
    trainer.train(20_000, smaller_stacks=0)  # warm the kernels
    main_stack = trainer.stacks[spec.stack]
    n = 2_000_000
    start = time.perf_counter()
    main_stack.run(n, trainer.tables, trainer.rng, True)
    elapsed = time.perf_counter() - start
    print(f"MCCFR (external sampling, stack 6, 24 buckets): {n:,} iterations in {elapsed:.2f} s = "
          f"{n / elapsed:,.0f} iterations/s (target >= 100,000/s)")
    strategy = trainer.bot().strategy(spec.stack)
    small = TwoRoundSpec(ranks=4, suits=2, stack=1, max_bet=2)
    exploitability(fixed_strategy(small, "uniform"))  # warm
    start = time.perf_counter()
    e = exploitability(strategy)
    elapsed = time.perf_counter() - start
    print(f"exact best response, both seats, full two-round game (248,648,400 deals): {elapsed:.1f} s "
          f"(exploitability {e.exploitability:.4f} chips/hand; target < 120 s)")
    # Peer: the generic compiled-tree best response on a reduced game both can handle.
    t0 = time.perf_counter()
    tree = compile_game(TwoRoundHoldem(small))
    compile_s = time.perf_counter() - t0
    uni = fixed_strategy(small, "uniform")
    start = time.perf_counter()
    ours = exploitability(uni)
    ours_s = time.perf_counter() - start
    policy = Policy.uniform(tree)
    start = time.perf_counter()
    ref = tree_exploitability(tree, policy)
    peer_s = time.perf_counter() - start
    assert abs(ref.exploitability - ours.exploitability) < 1e-12
    print(f"reduced game (4 ranks x 2 suits, stack 1, {tree.sizes.histories:,} histories): vectorised best "
          f"response {ours_s * 1000:.2f} ms, compiled-tree best response {peer_s * 1000:.2f} ms (+{compile_s:.1f} s "
          f"to compile), ratio {peer_s / ours_s:.1f}x")
    game = game_by_name("two-round")
    start = time.perf_counter()
    run_match(game, RandomAgent(), FullBetAgent(), hands=5000, matches=0, seed=0, exact=False)
    elapsed = time.perf_counter() - start
    print(f"match: 5,000 two-round hands random vs fullbet in {elapsed:.2f} s = {5000 / elapsed:,.0f} hands/s")


if __name__ == "__main__":
    main()
