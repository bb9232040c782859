"""The batched terminal evaluation of push/fold (one compiled call per pass) against the per-terminal
``evaluate``, the protocol's reference, on random mixed strategies: every game shape (heads-up, 3+ way pots,
spectators of 2- and 3-way pots, seats all-in by posting, walks), chip EV and ICM."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.vector import VectorGame, compile_public_tree
from pokerlab.pushfold.model import build_game
from pokerlab.solvers.vector import VectorSolver, VectorStrategy, _Traversal


def random_strategy(tree, seed):
    rng = np.random.default_rng(seed)
    strategy = VectorStrategy.uniform(tree)
    for n in tree.decision_nodes():
        block = strategy.block(int(n))
        # sparse ranges (many classes never jam or call) leave multiway classes with no weighted deal: the
        # fallback path is exercised too
        block[:, 1] = rng.random(block.shape[0]) ** 2 * (rng.random(block.shape[0]) < 0.5)
        block[:, 0] = 1.0 - block[:, 1]
    return strategy


@pytest.mark.parametrize(("stacks", "ante", "payouts"), [
    ((10.0, 10.0), 0.0, None),
    ((12.0, 8.0, 15.0, 10.0), 0.1, [50.0, 30.0, 20.0]),
    ((6.0, 0.8, 9.0, 0.4, 11.0), 0.1, None),  # two seats all-in by posting (with the ante, then blinds)
    ((7.0, 14.0, 9.0, 5.0, 10.0), 0.0, [60.0, 40.0]),
])
def test_batched_values_equal_the_per_terminal_evaluation(stacks, ante, payouts):
    table = Table(stacks, 0.5, 1.0, ante)
    game, _, _ = build_game(table, payouts, multiway_samples=120, seed=3)
    tree = compile_public_tree(game)
    walk = _Traversal(tree)
    for seed in (1, 2):  # the second strategy changes every source: the cached products must follow
        reaches, _ = walk.reach(*(lambda s: (s.offsets, s.probs))(random_strategy(tree, seed)))
        at = reaches[walk.terminals]
        for player in range(tree.num_players):
            batched = game.evaluate_terminals(tree, walk.terminals, player, at)
            reference = VectorGame.evaluate_terminals(game, tree, walk.terminals, player, at)
            scale = np.abs(reference).max()
            assert scale > 0
            np.testing.assert_allclose(batched, reference, rtol=0, atol=1e-12 * scale)


def test_solver_on_the_batched_game_matches_the_per_terminal_game():
    # the same solver run on a game whose batched evaluation is switched off (the protocol's default loop)
    table = Table((10.0, 9.0, 11.0), 0.5, 1.0, 0.1)

    class PerTerminal(PushFoldGame):
        def evaluate_terminals(self, tree, terminals, player, reaches):
            return VectorGame.evaluate_terminals(self, tree, terminals, player, reaches)

    start = np.array(table.stacks)
    solvers = []
    for cls in (PushFoldGame, PerTerminal):
        solver = VectorSolver(cls(table, lambda final: final - start, multiway_samples=100), "dcfr")
        solver.iterate(12)
        solvers.append(solver)
    np.testing.assert_allclose(solvers[0].regrets, solvers[1].regrets, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(solvers[0].average_strategy().probs, solvers[1].average_strategy().probs,
                               rtol=0, atol=1e-12)
    assert solvers[0].gains().gains == pytest.approx(solvers[1].gains().gains, rel=1e-9, abs=1e-13)
