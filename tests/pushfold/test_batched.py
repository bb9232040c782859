"""The batched terminal evaluation of push/fold (one compiled call per pass) against a per-terminal valuation
in plain numpy (tests/pushfold/reference_valuation.py), on random mixed strategies: every game shape (heads-up,
3+ way pots, spectators of 2- and 3-way pots, seats all-in by posting, walks), chip EV and ICM."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pushfold.reference_valuation import reference_evaluate, reference_values

from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.vector import VectorGame, compile_public_tree
from pokerlab.pushfold.situation import build_game
from pokerlab.pushfold.vector_solve import multiway_ranges
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import VectorStrategy
from pokerlab.solvers.vector_traversal import Traversal


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
    walk = Traversal(tree)
    for seed in (1, 2):  # the second strategy changes every source: the cached products must follow
        reaches, _ = walk.reach(*(lambda s: (s.offsets, s.probs))(random_strategy(tree, seed)))
        at = reaches[walk.terminals]
        for player in range(tree.num_players):
            batched = game.evaluate_terminals(tree, walk.terminals, player, at)
            reference = reference_values(game, tree, walk.terminals, player, at)
            np.testing.assert_allclose(VectorGame.evaluate_terminals(game, tree, walk.terminals, player, at), batched,
                                       rtol=0, atol=1e-13 * np.abs(reference).max())  # evaluate: one terminal
            scale = np.abs(reference).max()
            assert scale > 0
            np.testing.assert_allclose(batched, reference, rtol=0, atol=1e-12 * scale)


def test_solver_on_the_batched_game_matches_the_per_terminal_game():
    # the same solver run on a game whose batched evaluation is switched off (the protocol's default loop)
    table = Table((10.0, 9.0, 11.0), 0.5, 1.0, 0.1)

    class PerTerminal(PushFoldGame):
        def evaluate_terminals(self, tree, terminals, player, reaches):
            return VectorGame.evaluate_terminals(self, tree, terminals, player, reaches)

        def evaluate(self, state, player, reaches):
            return reference_evaluate(self, state, player, reaches)

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


@pytest.mark.parametrize("redeal", [False, True])  # uniform deals; importance-sampled per pot (redealt)
def test_terminal_values_are_multilinear_in_the_strategies(redeal):
    # CFR and best responses need a multilinear game: mixing one seat's reach mixes every terminal value
    # (spectators and 3+ way pots included; the former ratio estimator failed this)
    table = Table((9.0, 12.0, 7.0, 10.0), 0.5, 1.0, 0.1)
    game, _, _ = build_game(table, [50.0, 30.0, 20.0], multiway_samples=150, seed=5)
    tree = compile_public_tree(game)
    if redeal:
        game = game.redealt(multiway_ranges(tree, random_strategy(tree, 4)), 0.5)
        tree = compile_public_tree(game)
    walk = Traversal(tree)
    a = walk.reach(random_strategy(tree, 1).offsets, random_strategy(tree, 1).probs)[0][walk.terminals]
    b = walk.reach(random_strategy(tree, 2).offsets, random_strategy(tree, 2).probs)[0][walk.terminals]
    for player in range(4):
        for seat in range(4):
            if seat == player:
                continue
            mixed = a.copy()
            mixed[:, seat] = 0.3 * a[:, seat] + 0.7 * b[:, seat]
            other = a.copy()
            other[:, seat] = b[:, seat]
            values = [game.evaluate_terminals(tree, walk.terminals, player, r) for r in (mixed, a, other)]
            np.testing.assert_allclose(values[0], 0.3 * values[1] + 0.7 * values[2], rtol=0,
                                       atol=1e-12 * np.abs(values[1]).max())


@pytest.mark.parametrize("redeal", [False, True])
def test_a_constant_payoff_gives_exactly_the_reach(redeal):
    # every seat's payoff 1 in every outcome: each terminal's value is the removal-conditioned reach of the others
    table = Table((9.0, 12.0, 7.0, 10.0), 0.5, 1.0, 0.1)
    game = PushFoldGame(table, lambda final: np.ones(final.size), multiway_samples=100)
    tree = compile_public_tree(game)
    if redeal:
        game = game.redealt(multiway_ranges(tree, random_strategy(tree, 6)), 0.5)
        tree = compile_public_tree(game)
    walk = Traversal(tree)
    strategy = random_strategy(tree, 3)
    reaches = walk.reach(strategy.offsets, strategy.probs)[0][walk.terminals]
    for player in range(4):
        np.testing.assert_allclose(game.evaluate_terminals(tree, walk.terminals, player, reaches),
                                   removal_conditioned_reach(game, reaches, player), rtol=1e-12, atol=0)


def removal_conditioned_reach(game, reaches, player):
    """Per terminal and class of ``player``: the product over the other seats of their reach conditioned on the
    player's hand (``class_pairs @ sigma / 1225``), the value of a payoff that is 1 in every outcome."""
    t = game.equity
    expected = np.ones((reaches.shape[0], 169))
    for q in range(reaches.shape[1]):
        if q != player:
            expected *= (t.class_pairs @ (reaches[:, q, :169] / game.class_weights).T).T / 1225.0
    return expected
