"""The one game protocol: a toy game written here in both forms (tree and vector), solved by the tree-form and
the vector-form solvers through the protocol alone, and a three-player general-sum game that the protocol
accepts and the two-player zero-sum solvers refuse."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerlab.agents.match import agent_exploitability, exact_expected_value, run_match
from pokerlab.agents.players import RandomAgent, StrategyAgent
from pokerlab.errors import FileFormatError, InvalidGameError, UnsupportedGameError
from pokerlab.games import compile_game
from pokerlab.games.base import CHANCE, FOLD, TERMINAL, TREE_FORM, VECTOR_FORM, Game, GameType
from pokerlab.games.vector import VectorGame, compile_public_tree
from pokerlab.solvers import Policy, Solver, exploitability
from pokerlab.solvers.policy import expected_value
from pokerlab.solvers.strategy import strategy_from_distribution
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import (
    VectorStrategy,
    best_response_gains,
    vector_exploitability,
    vector_strategy_from,
)

CHECK, BET = 0, 1  # Kuhn: check/call and bet; FOLD (-1) folds


class ToyKuhn(Game, VectorGame):
    """Kuhn poker (cards 0 < 1 < 2, ante 1, one bet of 1) in both forms, as postflop-solver's tests/kuhn.rs."""

    name = "toy-kuhn"
    game_type = GameType(players=2, zero_sum=True, forms=(TREE_FORM, VECTOR_FORM), has_fold=True)

    # -- shared rules -------------------------------------------------------------------------------------
    @staticmethod
    def _to_act(history: tuple[int, ...]) -> int:
        if history in ((CHECK, CHECK), (BET, FOLD), (BET, CHECK), (CHECK, BET, FOLD), (CHECK, BET, CHECK)):
            return TERMINAL
        return len(history) % 2

    @staticmethod
    def _actions(history: tuple[int, ...]) -> list[int]:
        return [FOLD, CHECK] if history and history[-1] == BET else [CHECK, BET]

    @staticmethod
    def _payoff0(history: tuple[int, ...], c0: int, c1: int) -> float:
        if history[-1] == FOLD:
            return 1.0 if len(history) == 2 else -1.0
        stake = 2.0 if BET in history else 1.0
        return stake if c0 > c1 else -stake

    # -- tree form ----------------------------------------------------------------------------------------
    def initial_state(self):
        return ()

    def current_player(self, s):
        return CHANCE if not s else self._to_act(s[1:])

    def chance_outcomes(self, s):
        return [((a, b), 1 / 6) for a in range(3) for b in range(3) if a != b]

    def legal_actions(self, s):
        return self._actions(s[1:])

    def apply(self, s, a):
        return (a,) if not s else (*s, a)

    def utility(self, s):
        return self._payoff0(s[1:], *s[0])

    def infoset_key(self, s):
        return f"{s[0][len(s[1:]) % 2]}|{s[1:]}"

    # -- vector form --------------------------------------------------------------------------------------
    def public_root(self):
        return ()

    def public_player(self, s):
        return self._to_act(s)

    def public_actions(self, s):
        return self._actions(s)

    def public_chance(self, s):
        return []

    def public_apply(self, s, a):
        return (*s, a)

    def num_private_hands(self, player):
        return 3

    def initial_weights(self, player):
        return np.ones(3)

    def evaluate(self, s, player, reaches):
        opp = reaches[1 - player]
        sign = 1.0 if player == 0 else -1.0
        out = np.zeros(3)
        for h in range(3):
            for o in range(3):
                if o != h:
                    c0, c1 = (h, o) if player == 0 else (o, h)
                    out[h] += opp[o] / 6 * sign * self._payoff0(s, c0, c1)
        return out

    def action_label(self, s, a):
        return {FOLD: "fold", CHECK: "check", BET: "bet"}[a]

    def public_view(self, s):
        history = s[1:]
        return history, s[0][len(history) % 2]


def tree_policy_of(game: ToyKuhn, strategy: VectorStrategy):
    """The tree-form policy that plays ``strategy`` (card -> row of the public node's block)."""
    tree = compile_game(game)
    node_of = {s: n for n, s in enumerate(strategy.tree.states)}
    probs = np.empty(tree.num_flat_actions)
    for i, key in enumerate(tree.infoset_keys):
        card, history = key.split("|")
        row = strategy.block(node_of[eval(history)])[int(card)]  # noqa: S307 - our own tuple text
        probs[tree.info_offset[i]:tree.info_offset[i + 1]] = row
    return tree, Policy(tree, probs)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr"])
def test_kuhn_solved_by_both_forms_with_the_same_exploitability(algorithm):
    game = ToyKuhn()
    vector = VectorSolver(game, algorithm)
    vector.iterate(1000)
    tree_solver = Solver(game, algorithm)
    tree_solver.iterate(1000)
    v_strategy = vector.average_strategy()
    v_expl = vector_exploitability(vector.tree, v_strategy)
    t_expl = tree_solver.exploitability().exploitability
    # The same algorithm (alternating updates, the same discounts and averaging) in both forms: the same numbers
    # up to the order of floating-point sums (CFR+ amplifies rounding near zero regrets a little over 1,000 steps).
    assert v_expl == pytest.approx(t_expl, rel=1e-8)
    assert v_expl < 1e-3 if algorithm != "cfr" else v_expl < 2e-3
    gains = best_response_gains(vector.tree, v_strategy)
    assert gains.values[0] == pytest.approx(-1 / 18, abs=2e-3)
    assert gains.values[0] == pytest.approx(-gains.values[1], abs=1e-15)


def test_vector_best_response_equals_tree_best_response_on_random_profiles():
    game = ToyKuhn()
    public = compile_public_tree(game)
    rng = np.random.default_rng(3)
    for _ in range(5):
        strategy = vector_strategy_from(
            public, lambda n: rng.dirichlet(np.ones(int(public.tree.num_children[n])), size=3))
        tree, policy = tree_policy_of(game, strategy)
        expected = exploitability(tree, policy)
        gains = best_response_gains(public, strategy)
        assert gains.best_response_values == pytest.approx(expected.best_response_values, abs=1e-13)
        assert gains.values[0] == pytest.approx(expected.game_value, abs=1e-13)
        assert vector_exploitability(public, strategy) == pytest.approx(expected.exploitability, abs=1e-13)


def test_uniform_kuhn_nash_conv_matches_oracle(oracle):
    public = compile_public_tree(ToyKuhn())
    gains = best_response_gains(public, VectorStrategy.uniform(public))
    assert gains.nash_conv == pytest.approx(oracle("games")["kuhn"]["uniform_random_nash_conv"], abs=1e-12)


# -- a three-player general-sum game -----------------------------------------------------------------------------

PASS = 0


class ThreeBidders(Game, VectorGame):
    """Three players hold a low (0) or high (1) hand, each 1/2, independently; each in turn passes or bets 1.
    The best hand among the bettors takes the bets plus a bonus of 1 from outside (split on ties): the payoffs do
    not sum to zero."""

    name = "three-bidders"
    game_type = GameType(players=3, zero_sum=False, forms=(TREE_FORM, VECTOR_FORM))

    @staticmethod
    def payoffs(history, hands):
        bettors = [p for p in range(3) if history[p] == BET]
        out = [-1.0 if p in bettors else 0.0 for p in range(3)]
        if bettors:
            top = max(hands[p] for p in bettors)
            winners = [p for p in bettors if hands[p] == top]
            for p in winners:
                out[p] += (len(bettors) + 1.0) / len(winners)
        return out

    # tree form
    def initial_state(self):
        return ()

    def current_player(self, s):
        return CHANCE if not s else (len(s) - 1 if len(s) < 4 else TERMINAL)

    def chance_outcomes(self, s):
        return [(h, 1 / 8) for h in itertools.product((0, 1), repeat=3)]

    def legal_actions(self, s):
        return [PASS, BET]

    def apply(self, s, a):
        return (a,) if not s else (*s, a)

    def returns(self, s):
        return tuple(self.payoffs(s[1:], s[0]))

    def infoset_key(self, s):
        return f"{s[0][len(s) - 1]}|{s[1:]}"

    # vector form
    def public_root(self):
        return ()

    def public_player(self, s):
        return len(s) if len(s) < 3 else TERMINAL

    def public_actions(self, s):
        return [PASS, BET]

    def public_chance(self, s):
        return []

    def public_apply(self, s, a):
        return (*s, a)

    def num_private_hands(self, player):
        return 2

    def initial_weights(self, player):
        return np.full(2, 0.5)

    def evaluate(self, s, player, reaches):
        out = np.zeros(2)
        others = [q for q in range(3) if q != player]
        for h in range(2):
            for hq in itertools.product((0, 1), repeat=2):
                hands = [0, 0, 0]
                hands[player] = h
                weight = 1.0
                for q, hand in zip(others, hq, strict=True):
                    hands[q] = hand
                    weight *= reaches[q][hand]
                out[h] += weight * self.payoffs(s, hands)[player]
        return out


def brute_force(game: ThreeBidders, strategy: VectorStrategy, player: int) -> tuple[float, float]:
    """``player``'s value under ``strategy`` and its best over every pure strategy, by walking the tree form."""
    node_of = {s: n for n, s in enumerate(strategy.tree.states)}

    def value(state, pure):
        who = game.current_player(state)
        if who == TERMINAL:
            return game.returns(state)[player]
        if who == CHANCE:
            return sum(p * value(game.apply(state, o), pure) for o, p in game.chance_outcomes(state))
        hand = state[0][who]
        if who == player and pure is not None:
            return value(game.apply(state, pure[(state[1:], hand)]), pure)
        row = strategy.block(node_of[state[1:]])[hand]
        return sum(row[i] * value(game.apply(state, a), pure) for i, a in enumerate(game.legal_actions(state)))

    infosets = [(s, h) for s in node_of if len(s) == player for h in (0, 1)]
    best = max(value(game.initial_state(), dict(zip(infosets, choice, strict=True)))
               for choice in itertools.product((PASS, BET), repeat=len(infosets)))
    return value(game.initial_state(), None), best


def test_three_player_general_sum_game_is_accepted_by_the_protocol_and_the_vector_solver():
    game = ThreeBidders()
    public = compile_public_tree(game)
    assert public.num_players == 3 and public.num_hands == (2, 2, 2)
    rng = np.random.default_rng(11)
    strategy = vector_strategy_from(public, lambda n: rng.dirichlet(np.ones(2), size=2))
    gains = best_response_gains(public, strategy)
    for p in range(3):
        value, best = brute_force(game, strategy, p)
        assert gains.values[p] == pytest.approx(value, abs=1e-13)
        assert gains.best_response_values[p] == pytest.approx(best, abs=1e-13)
    assert abs(sum(gains.values)) > 0.1  # general-sum: the bonus leaves the game
    solver = VectorSolver(game, "cfr+")
    solver.iterate(300)
    solved = solver.gains()
    assert all(g >= -1e-12 for g in solved.gains)
    assert max(solved.gains) < max(gains.gains)
    for p in range(3):
        value, best = brute_force(game, solver.average_strategy(), p)
        assert solved.gains[p] == pytest.approx(best - value, abs=1e-12)


def test_two_player_zero_sum_solvers_refuse_the_three_player_game_clearly():
    game = ThreeBidders()
    with pytest.raises(UnsupportedGameError, match="two-player zero-sum.*3 players, general-sum"):
        Solver(game, "cfr+")
    with pytest.raises(UnsupportedGameError, match="two-player zero-sum"):
        compile_game(game)
    public = compile_public_tree(game)
    with pytest.raises(UnsupportedGameError, match="exploitability needs a two-player zero-sum game"):
        vector_exploitability(public, VectorStrategy.uniform(public))


def test_game_type_and_vector_form_validation():
    with pytest.raises(InvalidGameError, match="2..10 players"):
        GameType(players=11)
    with pytest.raises(InvalidGameError, match="forms"):
        GameType(forms=("matrix",))

    class NoHands(ThreeBidders):
        def num_private_hands(self, player):
            return 0

    with pytest.raises(InvalidGameError, match="the private hands of player 0 must be at least 1, got 0"):
        compile_public_tree(NoHands())

    class TreeOnly(ThreeBidders):
        game_type = GameType(players=3, zero_sum=False, forms=(TREE_FORM,))

    with pytest.raises(UnsupportedGameError, match="not a vector-form game"):
        compile_public_tree(TreeOnly())


def test_vector_solver_resumes_exactly_from_a_file(tmp_path):
    game = ThreeBidders()
    straight = VectorSolver(game, "dcfr")
    straight.iterate(40)
    first = VectorSolver(game, "dcfr")
    first.iterate(15)
    path = first.save(tmp_path / "run.npz")
    resumed = VectorSolver.load(path, game)
    assert resumed.iteration == 15 and resumed.config == first.config
    resumed.iterate(25)
    assert np.array_equal(resumed.average_strategy().probs, straight.average_strategy().probs)
    with pytest.raises(FileFormatError, match="not the game|saved for the game"):
        VectorSolver.load(path, ToyKuhn())
    (tmp_path / "bad.npz").write_text("nope")
    with pytest.raises(FileFormatError, match="not a pokerlab vector solver file"):
        VectorSolver.load(tmp_path / "bad.npz", game)


class StakedKuhn(ToyKuhn):
    """Kuhn poker after a public coin that sets the stakes (x1 or x3, probabilities 1/4 and 3/4): a public chance
    node in the vector form, a chance node after the deal in the tree form."""

    name = "staked-kuhn"
    COIN = ((1.0, 0.25), (3.0, 0.75))

    # tree form: (cards, stake, *history)
    def current_player(self, s):
        if len(s) < 2:
            return CHANCE
        return self._to_act(s[2:])

    def chance_outcomes(self, s):
        return super().chance_outcomes(s) if not s else list(self.COIN)

    def legal_actions(self, s):
        return self._actions(s[2:])

    def apply(self, s, a):
        return (*s, a) if s else (a,)

    def utility(self, s):
        return s[1] * self._payoff0(s[2:], *s[0])

    def infoset_key(self, s):
        return f"{s[0][len(s[2:]) % 2]}|{s[1]}|{s[2:]}"

    # vector form: (stake, *history)
    def public_player(self, s):
        return CHANCE if not s else self._to_act(s[1:])

    def public_actions(self, s):
        return self._actions(s[1:])

    def public_chance(self, s):
        return list(self.COIN)

    def evaluate(self, s, player, reaches):
        return s[0] * super().evaluate(s[1:], player, reaches)

    def public_view(self, s):
        return s[1:], s[0][len(s[2:]) % 2]


def test_public_chance_nodes_match_the_tree_form():
    game = StakedKuhn()
    public = compile_public_tree(game)
    tree = compile_game(game)
    node_of = {s: n for n, s in enumerate(public.states)}
    rng = np.random.default_rng(5)
    for _ in range(3):
        strategy = vector_strategy_from(
            public, lambda n: rng.dirichlet(np.ones(int(public.tree.num_children[n])), size=3))
        probs = np.empty(tree.num_flat_actions)
        for i, key in enumerate(tree.infoset_keys):
            card, stake, history = key.split("|")
            row = strategy.block(node_of[(float(stake), *eval(history))])[int(card)]  # noqa: S307
            probs[tree.info_offset[i]:tree.info_offset[i + 1]] = row
        expected = exploitability(tree, Policy(tree, probs))
        gains = best_response_gains(public, strategy)
        assert gains.best_response_values == pytest.approx(expected.best_response_values, abs=1e-13)
        assert gains.values[0] == pytest.approx(expected.game_value, abs=1e-13)
    solver = VectorSolver(game, "cfr+")
    solver.iterate(500)
    gains = solver.gains()
    assert gains.values[0] == pytest.approx(2.5 * -1 / 18, abs=5e-3)  # the stakes' mean times Kuhn's value


def test_coin_poker_values_by_hand():
    """The documentation's game, valued by hand: uniform play is worth 1/4 to player 0 (a bet wins the ante when
    player 1 folds, half the time; every showdown is even); a best response always bets (low: 0 instead of -1/2,
    high: 1 instead of 1/2) and wins 1/2, player 1's best response (call with the high card only) 0."""
    from pokerlab.games.vector import CoinPoker

    tree = compile_public_tree(CoinPoker())
    gains = best_response_gains(tree, VectorStrategy.uniform(tree))
    assert gains.values == pytest.approx((0.25, -0.25), abs=1e-15)
    assert gains.best_response_values == pytest.approx((0.5, 0.0), abs=1e-15)


def test_an_agent_plays_a_vector_form_strategy_at_the_tree_form_policys_exact_value():
    """The agent reads the vector-form strategy through the protocol alone (public_view); its exact value and
    exploitability equal those of the tree-form policy built independently from the same blocks."""
    game = ToyKuhn()
    solver = VectorSolver(game, "cfr+")
    solver.iterate(50)  # far from equilibrium: a strategy that plays by its cards
    strategy = solver.average_strategy()
    tree, policy = tree_policy_of(game, strategy)
    agent = StrategyAgent(strategy, "vector")
    row = strategy.block(strategy.node_of((CHECK, BET)))[2]  # player 0 holds card 2 facing check-bet
    assert agent.distribution(game, ((2, 0), CHECK, BET)) == [(FOLD, row[0]), (CHECK, row[1])]
    as_played = strategy_from_distribution(game, agent.distribution, agent.name)
    assert np.array_equal(as_played.probs, policy.probs)
    uniform = Policy.uniform(tree)
    oracle = 0.5 * (expected_value(tree, policy, uniform) - expected_value(tree, uniform, policy))
    assert oracle != 0.0
    assert exact_expected_value(game, agent, RandomAgent()) == pytest.approx(oracle, abs=1e-14)
    uniform_vector = StrategyAgent(VectorStrategy.uniform(solver.tree), "uniform")
    assert exact_expected_value(game, agent, uniform_vector) == pytest.approx(oracle, abs=1e-14)
    assert agent_exploitability(game, agent) == pytest.approx(exploitability(tree, policy).exploitability,
                                                              abs=1e-14)
    result = run_match(game, agent, RandomAgent(), hands=200, seed=3, matches=2)
    assert result.exact_ev == pytest.approx(oracle, abs=1e-14)


def test_an_agent_plays_a_vector_form_strategy_with_public_chance_at_its_vector_form_value():
    """With a public chance node: the agent's value read in the tree form (through public_view) against the random
    agent equals the vector-form evaluation against the uniform vector strategy."""
    game = StakedKuhn()
    solver = VectorSolver(game, "cfr")
    solver.iterate(30)
    agent = StrategyAgent(solver.average_strategy(), "vector")
    in_tree_form = exact_expected_value(game, agent, RandomAgent())
    in_vector_form = exact_expected_value(game, agent, StrategyAgent(VectorStrategy.uniform(solver.tree)))
    assert in_tree_form != 0.0
    assert in_tree_form == pytest.approx(in_vector_form, abs=1e-13)
