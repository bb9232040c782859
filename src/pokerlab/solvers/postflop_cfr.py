"""Discounted CFR and exact best responses on a :class:`~pokerlab.games.postflop.game.PostflopGame`.

The postflop game's own compiled pass (:func:`~pokerlab.games.postflop.kernels.tree_values`: recursive, per
street, the showdown linear in the hands, merged cards) in place of the generic vector-form traversal, whose
reach-per-node storage does not fit a turn or flop tree. Alternating updates; the discounts of
postflop-solver (positive regrets times ``t^1.5 / (t^1.5 + 1)``, negative times 1/2, the cumulative strategy
times ``(t' / (t' + 1))^3`` where ``t'`` counts from the last power of 4), the average strategy weighted by
the player's own reach. Exploitability is exact: both best responses to the average strategy, each over the
whole tree, the mean of the two gains in chips (and in % of the starting pot); with rake each gain is over the
player's value on the average strategies.

>>> from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
>>> from pokerlab.games.postflop.game import PostflopGame
>>> config = TreeConfig(pot=100, stack=100, street=2, bets=parse_street_sizes("a"), raises=((), (), ()))
>>> solver = PostflopSolver(PostflopGame("AhKd7c2s3s", "AA, 72o", "KK, QQ", config))
>>> solver.run(iterations=300)
'iterations'
>>> solver.exploitability_percent() < 0.5
True
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.kernels import (
    AVERAGE,
    BEST,
    UPDATE,
    Discount,
    chance_branches,
    chance_reaches,
    combine_branches,
    tree_values,
)


def discount(iteration: int) -> Discount:
    """DCFR factors of ``iteration`` (0-based), as postflop-solver's ``DiscountParams``.

    >>> discount(0).gamma, discount(2).alpha
    (0.0, 0.5)
    """
    lower_power_of_4 = 0 if iteration == 0 else 1 << ((iteration.bit_length() - 1) & ~1)
    t_alpha = max(iteration - 1, 0)
    t_gamma = iteration - lower_power_of_4
    pow_alpha = t_alpha**1.5
    return Discount(pow_alpha / (pow_alpha + 1.0), 0.5, (t_gamma / (t_gamma + 1.0)) ** 3)


class PostflopSolver:
    """The solver state of one game: float32 regrets and cumulative strategy, the iteration count."""

    def __init__(self, game: PostflopGame, regrets: np.ndarray | None = None, cumulative: np.ndarray | None = None,
                 iteration: int = 0) -> None:
        self.game = game
        size = game.storage_size
        self.regrets = np.zeros(size, dtype=np.float32) if regrets is None else regrets
        self.cumulative = np.zeros(size, dtype=np.float32) if cumulative is None else cumulative
        self.iteration = iteration
        self._work = np.zeros(52)
        self._weights = [np.array(game.hands.weights[p, :game.hands.sizes[p]]) for p in range(2)]

    def _pass(self, player: int, mode: int, params: Discount = Discount(1.0, 1.0, 1.0)) -> np.ndarray:
        """Root values of ``player``'s hands after one walk: the reaches at the top chance nodes, their
        branches in parallel (numba's threads), then the part above them (the same sums in the same order as
        one serial walk: the results do not depend on the threads)."""
        g = self.game
        own, opp = self._weights[player], self._weights[1 - player]
        args = (g.tree, g.hands, self.regrets, self.cumulative)
        top = g.top_chance
        if top.size == 0:
            return tree_values(*args, 0, player, own, opp, mode, params, g.half_pot, self._work, g.chance_index,
                               np.zeros((0, own.size)))
        width = g.hands.weights.shape[1]
        own_at = np.zeros((top.size, width))
        opp_at = np.zeros((top.size, width))
        chance_reaches(*args, 0, player, own, opp, mode, g.chance_index, own_at, opp_at)
        branches = chance_branches(*args, top, g.branch_node, g.branch_child, player, own_at, opp_at, mode, params,
                                   g.half_pot, g.chance_index)
        at_chance = combine_branches(g.tree, g.hands, player, top.size, g.branch_node, g.branch_child, branches)
        return tree_values(*args, 0, player, own, opp, mode, params, g.half_pot, self._work, g.chance_index,
                           at_chance)

    def step(self) -> None:
        """One DCFR iteration: OOP's update, then IP's."""
        params = discount(self.iteration)
        for player in (0, 1):
            self._pass(player, UPDATE, params)
        self.iteration += 1

    def counterfactual_values(self, player: int, best: bool = False) -> np.ndarray:
        """Root counterfactual values of ``player``'s hands (chips times compatible opponent weight): the
        average strategies' (``best=False``) or ``player``'s best response to the opponent's average."""
        return self._pass(player, BEST if best else AVERAGE)

    def value(self, player: int, best: bool = False) -> float:
        """``player``'s expected value per deal in chips, net of its half of the starting pot."""
        values = self.counterfactual_values(player, best)
        return float(self._weights[player] @ values) / self.game.pairs_weight

    def exploitability(self) -> float:
        """The mean of the two players' gains from a best response (chips per deal; 0 at an equilibrium): each
        best-response value less the player's value on the average strategies (in a zero-sum game, without rake,
        those two values sum to 0 and are not computed), as postflop-solver measures it."""
        gain = self.value(0, True) + self.value(1, True)
        if self.game.raked:
            gain -= self.value(0) + self.value(1)
        return 0.5 * gain

    def exploitability_percent(self) -> float:
        """:meth:`exploitability` in % of the starting pot."""
        return 100.0 * self.exploitability() / self.game.config.pot

    def run(self, *, iterations: int | None = None, target_percent: float | None = None,
            time_limit: float | None = None, check_every: int = 10,
            progress: Callable[[int, float], None] | None = None) -> str:
        """Iterate until ``iterations`` (total), an exploitability at most ``target_percent`` of the pot
        (checked every ``check_every`` iterations) or ``time_limit`` seconds; returns why it stopped
        (``iterations``, ``target``, ``time``). Ctrl-C propagates between iterations, the state whole."""
        if iterations is None and target_percent is None and time_limit is None:
            iterations = 1000
        start = time.monotonic()
        while True:
            if iterations is not None and self.iteration >= iterations:
                return "iterations"
            if time_limit is not None and time.monotonic() - start >= time_limit:
                return "time"
            self.step()
            if target_percent is not None and self.iteration % check_every == 0:
                now = self.exploitability_percent()
                if progress is not None:
                    progress(self.iteration, now)
                if now <= target_percent:
                    return "target"
