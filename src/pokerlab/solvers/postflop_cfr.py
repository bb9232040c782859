"""Discounted CFR and exact best responses on a :class:`~pokerlab.games.postflop.game.PostflopGame`.

The postflop game's own compiled pass (:func:`~pokerlab.games.postflop.kernels.tree_values`: recursive, per
street, the showdown linear in the hands, merged cards) in place of the generic vector-form traversal, whose
reach-per-node storage does not fit a turn or flop tree. Alternating updates; the discounts of
postflop-solver (positive regrets times ``t^1.5 / (t^1.5 + 1)``, negative times 1/2, the cumulative strategy
times ``(t' / (t' + 1))^3`` where ``t'`` counts from the last of iterations 1, 4 and 16; postflop-solver's
``t'`` restarts at every power of 4, and at 64 that threw away an average of good strategies for a few
current ones: see :data:`LAST_RESET`), the average strategy weighted by
the player's own reach (postflop-solver sums the current strategies unweighted, which spares the update walk
its own-reach rows, about 1.5% of a turn iteration, but took more iterations: to 0.5% / 0.3% of the pot,
medians 120 / 160 against 110 / 150 over five weight scalings of the benchmark's turn; docs/benchmarks.md,
session 16). The updates walk float32
rows (reaches, strategies, values: postflop-solver's type; every sum float64), the values and best responses
float64 rows. Exploitability is exact: both best responses to the average strategy, each over the
whole tree, the mean of the two gains in chips (and in % of the starting pot); with rake each gain is over the
player's value on the average strategies.

The float32 storage is one array, each decision node's block its regrets then its cumulative strategy but
the last action's (:meth:`~pokerlab.games.postflop.game.PostflopGame.block_rows`): the cumulative strategy is
weighted by the actor's own reach, so the rows of a node sum to the actor's reach there times the discounted
count of the iterations (:func:`strategy_weight`), and the last action's average is what the others leave
(:func:`~pokerlab.games.postflop.kernels._derived_into`). That is 44% less cumulative storage on the
benchmark's flop, whose decision nodes mostly have two actions. The compressed storage keeps every row (its
16-bit steps are relative to each node's largest value, so a row taken from its parent's would carry the
parent's steps).

Node locking (``locks``): some rows of the strategy (a node, some or all of the actor's hands) are fixed to
given action probabilities. The locked rows of the regrets are overwritten with the locked mix at the start
and after each player's pass: regret matching of a row of non-negative regrets proportional to the mix returns
the mix (zero-probability actions exactly 0, a pure lock exactly 1), so every iteration plays it and the
average there is the mix (to float32 rounding, relative 3e-7); the rows stay free everywhere else. In a locked
game a best response keeps its player's locks (:meth:`PostflopSolver.best_value`): the exploitability is that
of the game the locks leave.

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
from collections.abc import Callable, Mapping

import numpy as np
from numba import get_num_threads

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.kernels import (
    AVERAGE,
    BEST,
    CHANCE_NODE,
    UPDATE,
    Discount,
    WalkPointer,
    chance_branches,
    chance_reaches,
    combine_branches,
    scaled_tree_values,
    scratch,
    tree_values,
    walk_pointer,
    work_size,
)

NodeLocks = Mapping[int, tuple[np.ndarray, np.ndarray]]
"""Locked rows by decision node: the actor's hand indices ``(k,)`` and their fixed action probabilities
``(actions, k)`` (each column sums to 1)."""


LAST_RESET = 16
"""The last iteration at which the cumulative strategy restarts (``gamma`` = 0). postflop-solver restarts it at
every power of 4 (1, 4, 16, 64, 256, ...): each restart leaves the average as only the current strategies from
there, so its exploitability jumps (the issue's turn spot: 1.19% of the pot after 64 iterations, 9.11% after 65,
under 1% again only after 99; postflop-solver's own curve 1.34% -> 6.06% there). Without the restarts from 64 on
the solves reach 1% / 0.5% / 0.3% of the pot in as many or fewer iterations on the benchmark's river and turn
spots over five scalings of the ranges' weights (docs/benchmarks.md)."""


MAX_BATCH = 16
"""Most iterations of a river in one compiled call (:meth:`PostflopSolver.batch`): a large river's iteration
takes milliseconds, so a batch stays well under the second within which Ctrl-C must land."""

_discount_rows = np.zeros((0, 4))
""":func:`discount` of the first iterations as rows, shared by the solvers and grown as they need."""


_weights_by_iteration = [0.0]
""":func:`strategy_weight` of the first iterations, grown as the solvers need."""


def strategy_weight(iterations: int) -> float:
    """The cumulative strategy's weight after ``iterations`` updates: each update multiplies it by the
    iteration's ``gamma`` and adds 1 (0 before any, 1 right after a restart), so a node's cumulative rows sum to
    the actor's reach in the average strategy times this.

    >>> strategy_weight(0), strategy_weight(1), strategy_weight(17)  # the 17th update restarts the sum
    (0.0, 1.0, 1.0)
    """
    while len(_weights_by_iteration) <= iterations:
        t = len(_weights_by_iteration) - 1
        _weights_by_iteration.append(_weights_by_iteration[-1] * discount(t).gamma + 1.0)
    return _weights_by_iteration[iterations]


def discount(iteration: int) -> Discount:
    """DCFR factors of ``iteration`` (0-based): postflop-solver's ``DiscountParams`` but for the restarts of the
    cumulative strategy, which stop after :data:`LAST_RESET`.

    >>> discount(0).gamma, discount(2).alpha, discount(16).gamma, discount(64).gamma == (48 / 49) ** 3
    (0.0, 0.5, 0.0, True)
    """
    lower_power_of_4 = 0 if iteration == 0 else min(1 << ((iteration.bit_length() - 1) & ~1), LAST_RESET)
    t_alpha = max(iteration - 1, 0)
    t_gamma = iteration - lower_power_of_4
    pow_alpha = t_alpha**1.5
    return Discount(pow_alpha / (pow_alpha + 1.0), 0.5, (t_gamma / (t_gamma + 1.0)) ** 3)


class PostflopSolver:
    """The solver state of one game: float32 regrets and cumulative strategy (one array: see the module
    docstring), the iteration count; with ``compress`` (postflop-solver's 16-bit mode; default: the storage the
    game was built for) int16 regrets and uint16 cumulative strategy, each decision node's blocks with one
    float32 scale (``scales``, two per node of the tree: see
    :func:`~pokerlab.games.postflop.kernels.scaled_tree_values`). The strategies played and measured are those
    the integers store: the exploitability is exact for them. ``weight``: what the average strategy's reads
    divide the float32 cumulative strategy by, for a storage built from a strategy
    (:meth:`~pokerlab.games.postflop.game.PostflopGame.strategy_storage`: 1); default :func:`strategy_weight`
    of the iterations."""

    def __init__(self, game: PostflopGame, regrets: np.ndarray | None = None, cumulative: np.ndarray | None = None,
                 iteration: int = 0, locks: NodeLocks | None = None, *, compress: bool | None = None,
                 scales: np.ndarray | None = None, weight: float | None = None) -> None:
        self.game = game
        size = game.storage_size
        if compress is None:  # the storage the game was laid out for
            compress = game.compress
        if compress and locks:
            raise InvalidArgumentError("node locking is not supported with the compressed (16-bit) storage: solve "
                                       "without compress")
        if compress != game.compress:
            raise InvalidArgumentError("the game was built for the other storage: build it with the same compress")
        self.compressed = compress
        if compress:
            self.regrets = np.zeros(size, dtype=np.int16) if regrets is None else regrets
            self.cumulative = np.zeros(size, dtype=np.uint16) if cumulative is None else cumulative
        else:  # one array holds both (see the module docstring): given as either, or as both
            if regrets is not None and cumulative is not None and regrets is not cumulative:
                raise InvalidArgumentError("float32 storage is one array: pass it as regrets (or cumulative) alone")
            given = regrets if regrets is not None else cumulative
            self.regrets = self.cumulative = np.zeros(size, dtype=np.float32) if given is None else given
        self.scales = (np.zeros(2 * game.tree.kind.size if compress else 0, dtype=np.float32) if scales is None
                       else scales)
        self.iteration = iteration
        self.given_weight = weight  # a storage built from a strategy (PostflopGame.strategy_storage) names its own
        self._weights = [np.array(game.hands.weights[p, :game.hands.sizes[p]]) for p in range(2)]
        # the updates walk float32 rows (postflop-solver's), the values and best responses float64 rows (the
        # exploitability exact to float64 rounding): each row type its weights and scratch
        self._reaches = {np.float64: self._weights, np.float32: [w.astype(np.float32) for w in self._weights]}
        # the walks' scratch (its slabs cover the whole tree), kept for every pass instead of allocated by each
        # (so one solver is not for calls from two threads at once)
        width = game.hands.weights.shape[1]
        slabs = scratch(game.tree, game.hands, 0, self._weights[0]).shape
        self._slabs = (int(slabs[0]), int(slabs[1]))  # the depth and rows of a slab: every walk's
        self._scratch = {rows: (np.empty(slabs, rows), np.empty((2, width), rows), np.empty(work_size(slabs[0], width)),
                                np.empty(width, rows)) for rows in (np.float32, np.float64)}
        self._update_walk: WalkPointer | None = None  # the float32 walk the parallel branches call
        self._no_chance_values = np.zeros((0, width))
        # the mixes as played: float32, normalised in float64 as regret matching and the average do
        self.locks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for node, (hands, mix) in (locks or {}).items():
            played = np.asarray(mix, dtype=np.float32).astype(np.float64)
            self.locks[node] = (np.asarray(hands, dtype=np.int64), played / played.sum(axis=0))
        tree = game.tree
        index: list[np.ndarray] = []
        value: list[np.ndarray] = []
        # per player: the locked nodes and every node above one (the part a best response walks in Python)
        self._lock_paths: tuple[set[int], set[int]] = (set(), set())
        for node, (hands, mix) in (locks or {}).items():
            rows = int(game.hands.sizes[int(tree.player[node])])
            actions = np.arange(int(tree.num_children[node]))[:, None]
            index.append((int(tree.offset[node]) + actions * rows + hands[None, :]).ravel())
            value.append(np.asarray(mix, dtype=np.float32).ravel())
            path = self._lock_paths[int(tree.player[node])]
            up = node
            while up >= 0 and up not in path:
                path.add(up)
                up = int(game.parent[up])
        self._lock_index = np.concatenate(index) if index else np.zeros(0, dtype=np.int64)
        self._lock_value = np.concatenate(value) if value else np.zeros(0, dtype=np.float32)
        self._apply_locks()

    def _apply_locks(self) -> None:
        """Write the locked mixes into the regrets (see the module docstring)."""
        self.regrets[self._lock_index] = self._lock_value

    @property
    def weight(self) -> float:
        """What the average strategy's reads divide the cumulative strategy by (:func:`strategy_weight` of the
        iterations done, unless the storage was built with its own)."""
        return strategy_weight(self.iteration) if self.given_weight is None else self.given_weight

    def _unit_discount(self) -> np.ndarray:
        """The rows of a walk that updates nothing and reads the average strategy."""
        return np.array([[1.0, 1.0, 1.0, self.weight]])

    def locked(self, player: int) -> bool:
        """Whether some row of ``player``'s strategy is locked."""
        return bool(self._lock_paths[player])

    @staticmethod
    def _discounts(first: int, count: int) -> np.ndarray:
        """:func:`discount` of iterations ``first`` to ``first + count`` as rows ``(alpha, beta, gamma, weight)``
        (the weight unread by an update)."""
        global _discount_rows
        size = _discount_rows.shape[0]
        if size < first + count:  # about a microsecond a row: a river solve is about a hundred microseconds a row
            grown = max(2 * size, first + count, 256)
            _discount_rows = np.array([tuple(discount(t)) for t in range(grown)])
        return _discount_rows[first:first + count]

    def _pass(self, player: int, mode: int) -> np.ndarray:
        """Root values of ``player``'s hands after one walk. An update (float32 rows): the reaches at the top
        chance nodes, their branches in parallel (numba's threads), then the part above them (the same sums in the
        same order as one serial walk: the results do not depend on the threads). Values and best responses
        (float64 rows): one serial walk (see :func:`~pokerlab.games.postflop.kernels.chance_branches`)."""
        g = self.game
        discounts = self._discounts(self.iteration, 1) if mode == UPDATE else self._unit_discount()
        rows = np.float32 if mode == UPDATE else np.float64
        own, opp = self._reaches[rows][player], self._reaches[rows][1 - player]
        args = (g.tree, g.hands, self.regrets, self.cumulative)
        buf, top_rows, work, out = self._scratch[rows]
        top = g.top_chance
        if top.size == 0 or mode != UPDATE:
            scaled_tree_values(*args, self.scales, 0, player, own, opp, mode, discounts, g.half_pot,
                               g.chance_index, self._no_chance_values, buf, top_rows, work, out)
            return out[:own.size].astype(np.float64)
        width = g.hands.weights.shape[1]
        own_at = np.zeros((top.size, width), rows)
        opp_at = np.zeros((top.size, width), rows)
        chance_reaches(*args, 0, player, own, opp, mode, self.weight, g.chance_index, own_at, opp_at)
        if self._update_walk is None:
            self._update_walk = walk_pointer(*args, self.scales, g.chance_index, rows)
        branches = chance_branches(self._update_walk, *args, self.scales, top, g.branch_node, g.branch_child,
                                   player, own_at, opp_at, mode, discounts, g.half_pot, g.chance_index,
                                   get_num_threads(), self._slabs)
        at_chance = combine_branches(g.tree, g.hands, player, top.size, g.branch_node, g.branch_child, branches)
        scaled_tree_values(*args, self.scales, 0, player, own, opp, mode, discounts, g.half_pot, g.chance_index,
                           at_chance, buf, top_rows, work, out)
        return out[:own.size].astype(np.float64)

    def fused(self) -> bool:
        """Whether an iteration is one compiled call (no parallel chance branches, no locks)."""
        return self.game.top_chance.size == 0 and not self._lock_index.size

    def batch(self, check_every: int, iterations: int | None) -> int:
        """How many iterations the next call of :meth:`steps` should run: a river's up to the next check (every
        ``check_every``), at most :data:`MAX_BATCH` and not past ``iterations`` (total); otherwise one. Ctrl-C
        lands between compiled calls, so a batch is capped whatever ``check_every`` is.

        >>> from pokerlab.postflop import build_game
        >>> game, _ = build_game("Td9d6hQc2s", "AA,KK", "QQ,JJ", pot=100, stack=200, bets="a", raises="a")
        >>> solver = PostflopSolver(game)
        >>> solver.batch(10, None), solver.batch(1000, None), solver.batch(1000, 5)
        (10, 16, 5)
        """
        if not self.fused():
            return 1
        every = max(check_every, 1)
        count = min(every - self.iteration % every, MAX_BATCH)
        return count if iterations is None else min(count, iterations - self.iteration)

    def steps(self, count: int) -> None:
        """``count`` DCFR iterations, each OOP's update then IP's; without parallel chance branches or locks (a
        river) all of them in one compiled call (a call from Python costs about a tenth of a river iteration)."""
        g = self.game
        if self.fused():
            oop, ip = self._reaches[np.float32]
            scaled_tree_values(g.tree, g.hands, self.regrets, self.cumulative, self.scales, 0, -1, oop, ip,
                               UPDATE, self._discounts(self.iteration, count), g.half_pot, g.chance_index,
                               self._no_chance_values, *self._scratch[np.float32])
            self.iteration += count
            return
        for _ in range(count):
            for player in (0, 1):
                self._pass(player, UPDATE)
                if self._lock_index.size:
                    self._apply_locks()
            self.iteration += 1

    def step(self) -> None:
        """One DCFR iteration: OOP's update, then IP's."""
        self.steps(1)

    def counterfactual_values(self, player: int, best: bool = False) -> np.ndarray:
        """Root counterfactual values of ``player``'s hands (chips times compatible opponent weight): the
        average strategies' (``best=False``) or ``player``'s best response to the opponent's average."""
        return self._pass(player, BEST if best else AVERAGE)

    def value(self, player: int, best: bool = False) -> float:
        """``player``'s expected value per deal in chips, net of its half of the starting pot; ``best``: its
        best response to the opponent's average strategy over every node, its locks ignored (see
        :meth:`best_value`)."""
        values = self.counterfactual_values(player, best)
        return float(self._weights[player] @ values) / self.game.pairs_weight

    def best_value(self, player: int) -> float:
        """``player``'s best-response value (chips per deal, net of its half pot) to the opponent's average
        strategy, keeping ``player``'s own locked rows: the compiled best response where it has none, else a
        walk over the nodes above its locks (the compiled pass below every other node)."""
        if not self.locked(player):
            return self.value(player, True)
        values = self._locked_best(0, player, self._weights[player], self._weights[1 - player])
        return float(self._weights[player] @ values) / self.game.pairs_weight

    def _locked_best(self, node: int, p: int, own: np.ndarray, opp: np.ndarray) -> np.ndarray:
        """:func:`tree_values` in ``BEST`` mode, but a locked row of ``p`` plays its mix (the same sums)."""
        g = self.game
        tree = g.tree
        if node not in self._lock_paths[p]:
            return tree_values(g.tree, g.hands, self.regrets, self.cumulative, node, p, own, opp, BEST,
                               Discount(1.0, 1.0, 1.0, self.weight), g.half_pot, g.chance_index,
                               np.zeros((0, own.size)))
        first = int(tree.first_child[node])
        na = int(tree.num_children[node])
        cards = g.hands.cards[p, :own.size]
        if tree.kind[node] == CHANCE_NODE:
            total = np.zeros(own.size)
            theirs = g.hands.cards[1 - p, :opp.size]
            for child in range(first, first + na):
                card = int(tree.card[child])
                holds = (cards == card).any(axis=1)
                own_c = np.where(holds, 0.0, own)
                opp_c = np.where((theirs == card).any(axis=1), 0.0, opp * tree.factor[node])
                v = np.where(holds, 0.0, self._locked_best(child, p, own_c, opp_c))
                total += v
                for swap in tree.iso_swaps[tree.iso_start[child]:tree.iso_start[child] + tree.iso_count[child]]:
                    total += v[g.hands.perm[swap, p, :own.size]]
            return total
        actor = int(tree.player[node])
        if actor != p:  # the opponent's reach carries the chance factors above (``factor`` at a decision node)
            sigma = g.average_block(self.cumulative, node, opp / tree.factor[node], self.weight)
            return sum((self._locked_best(first + a, p, own, opp * sigma[a]) for a in range(na)),
                       np.zeros(own.size))
        values = np.array([self._locked_best(first + a, p, own, opp) for a in range(na)])
        out: np.ndarray = values.max(axis=0)
        if node in self.locks:
            hands, mix = self.locks[node]
            out[hands] = (mix * values[:, hands]).sum(axis=0)
        return out

    def gains(self) -> tuple[float, float]:
        """Each player's gain from a best response that keeps its own locks (chips per deal): its
        :meth:`best_value` less its value on the average strategies."""
        return (self.best_value(0) - self.value(0), self.best_value(1) - self.value(1))

    def exploitability(self) -> float:
        """The mean of the two players' gains from a best response (chips per deal; 0 at an equilibrium): each
        best-response value less the player's value on the average strategies (in a zero-sum game, without rake,
        those two values sum to 0 and are not computed), as postflop-solver measures it. With locks each best
        response keeps its player's locks (:meth:`gains`)."""
        if self._lock_index.size:
            return 0.5 * sum(self.gains())
        gain = self._both(BEST)
        if self.game.raked:
            gain -= self._both(AVERAGE)
        return 0.5 * gain

    def _both(self, mode: int) -> float:
        """Both players' :meth:`value` summed (``BEST``: each its best response, ``AVERAGE``: the average
        strategies), their two walks in one compiled call."""
        g = self.game
        oop, ip = self._reaches[np.float64]
        total = scaled_tree_values(g.tree, g.hands, self.regrets, self.cumulative, self.scales, 0, -1, oop, ip, mode,
                                   self._unit_discount(), g.half_pot, g.chance_index, self._no_chance_values,
                                   *self._scratch[np.float64])
        return float(total) / g.pairs_weight

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
            self.steps(self.batch(check_every, iterations) if time_limit is None else 1)
            if target_percent is not None and self.iteration % check_every == 0:
                now = self.exploitability_percent()
                if progress is not None:
                    progress(self.iteration, now)
                if now <= target_percent:
                    return "target"
