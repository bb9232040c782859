"""The exact best response of the two-round game runs in chunks of (flop node, flop) items so that Ctrl-C lands
between them: any chunking gives the numbers of one call over every item, bit for bit, and progress counts every
item once; Ctrl-C (KeyboardInterrupt between chunks) becomes one Interrupted saying how far it got."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import Interrupted
from pokerlab.games.two_round import TwoRoundSpec
from pokerlab.solvers.two_round import Abstraction, TwoRoundTrainer, exploitability, fixed_strategy

SPEC = TwoRoundSpec(ranks=5, suits=3, stack=3)


@pytest.fixture(scope="module")
def strategies():
    trainer = TwoRoundTrainer(SPEC, Abstraction(buckets=4), seed=3)
    trainer.train(3000)
    return [trainer.bot().strategy(SPEC.stack), fixed_strategy(SPEC, "uniform"), fixed_strategy(SPEC, "fullbet")]


def test_every_chunking_gives_the_same_numbers_bit_for_bit(strategies):
    for strategy in strategies:
        whole = exploitability(strategy, chunk=10**9)  # one kernel call over every item of each best response
        for chunk in (1, 7, 1000, None):
            e = exploitability(strategy, chunk=chunk)
            assert e.best_response_values == whole.best_response_values  # exact equality, not approx
            assert e.exploitability == whole.exploitability


def test_progress_counts_every_node_board_once_and_in_order(strategies):
    """Progress counts node-boards: round-2 nodes of the betting tree times flops, for each of two seats."""
    from pokerlab.games.two_round import betting_tree
    from pokerlab.solvers.two_round_tables import two_round_tables

    round_two_nodes = int((np.asarray(betting_tree(SPEC).arrays().round) == 1).sum())
    expected_total = 2 * round_two_nodes * two_round_tables(SPEC).n_flops
    for chunk in (50, None):
        seen: list[tuple[int, int | None]] = []
        exploitability(strategies[0], progress=lambda done, total, seen=seen: seen.append((done, total)), chunk=chunk)
        assert {total for _, total in seen} == {expected_total}
        dones = [done for done, _ in seen]
        assert dones == sorted(dones) and dones[-1] == expected_total


def test_ctrl_c_between_chunks_is_one_interrupted_with_how_far_it_got(strategies):
    calls = []

    def press_ctrl_c(done: int, total: int | None) -> None:
        calls.append(done)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted, match=r"after [\d,]+ of [\d,]+ node-boards of the two best responses"):
        exploitability(strategies[0], progress=press_ctrl_c, chunk=10)
