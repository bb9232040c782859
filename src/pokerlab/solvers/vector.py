"""Vector-form solvers: CFR+ / discounted CFR and exact best response over a public tree with private hands.

Written against :class:`pokerlab.games.vector.VectorGame` only. An information set is a (public decision
node, private hand) pair, so every quantity is a vector over the acting player's hands: regrets and
cumulative strategies are ``(hands, actions)`` blocks, one per decision node, counterfactual values one float
per hand. Any number of players (2..10) and general-sum payoffs: CFR runs in self-play with alternating
updates, and the guarantee it gives for n > 2 players is the measured one, each player's best-response gain
(:func:`best_response_gains`). For two-player zero-sum games the gains add up to NashConv and
:func:`vector_exploitability` is the usual exploitability (chips per game, the mean of the two gains).

The solver's passes are those of :mod:`pokerlab.solvers.vector_traversal`; its strategies are
:class:`~pokerlab.solvers.vector_strategy.VectorStrategy`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, PokerlabError
from pokerlab.games.base import Game
from pokerlab.games.vector import CompiledPublicTree, VectorGame
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.core import SolverConfig, algorithm_config
from pokerlab.solvers.strategy import register_reader, same_spec
from pokerlab.solvers.vector_strategy import (
    BestResponseGains,
    VectorStrategy,
    _compiled,
    _vector_game,
    best_response_gains,
)
from pokerlab.solvers.vector_traversal import UPDATE, Traversal, _match_player, block_offsets

VECTOR_ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
FORMAT = "pokerlab-vector-solver"
FORMAT_VERSION = 1


class VectorSolver:
    """CFR (``cfr``), CFR+ (``cfr+``) or discounted CFR (``lcfr``, ``dcfr``) on a vector-form game, with the
    flags and parameters of :class:`pokerlab.solvers.core.SolverConfig` and alternating updates (player 0, 1,
    ..., n-1 in each iteration), as the tree-form solver does.

    >>> from pokerlab.games.vector import CoinPoker
    >>> solver = VectorSolver(CoinPoker(), "cfr+"); solver.iterate(2000)
    >>> solver.gains().nash_conv < 1e-3
    True
    """

    def __init__(self, game: VectorGame | CompiledPublicTree, algorithm: str | SolverConfig = "cfr+") -> None:
        self.tree = _compiled(game)
        self.config = algorithm_config(algorithm)
        if self.config.sampling != "full":
            raise InvalidArgumentError(f"the vector-form solver runs full-traversal algorithms "
                                       f"({', '.join(VECTOR_ALGORITHMS)}), not {self.config.name!r}")
        self.offsets = block_offsets(self.tree)
        size = int(self.offsets[-1])
        self.regrets = np.zeros(size)
        self.cumulative = np.zeros(size)
        self.sigma = VectorStrategy.uniform(self.tree).probs.copy()
        self.iteration = 0
        self._walk = Traversal(self.tree)

    def _block(self, array: np.ndarray, node: int) -> np.ndarray:
        t = self.tree.tree
        lo = int(self.offsets[node])
        hands = self.tree.num_hands[int(t.player[node])]
        return array[lo:lo + hands * int(t.num_children[node])].reshape(hands, int(t.num_children[node]))

    def prepare(self, player: int) -> None:
        """Evaluate ``player``'s terminals once at the current strategy and discard the values: a game that
        builds per-player caches on first use (push/fold's valuation plans: seconds at 9 seats) builds them here,
        one player per call, so that a caller can stop between players (Ctrl-C) rather than after a whole first
        iteration. Changes nothing of the solver's state.
        """
        self._walk.terminal_values(self._walk.reach(self.offsets, self.sigma), player)

    def iterate(self, iterations: int, progress: Callable[[int], None] | None = None) -> None:
        """Run ``iterations`` more iterations; ``progress`` (if given) receives the iteration count after each."""
        if iterations < 0:
            raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
        c = self.config
        walk = self._walk
        for _ in range(iterations):
            t = float(self.iteration + 1)
            weight = t ** c.gamma if c.gamma != 0.0 else 1.0
            pos = t ** c.alpha / (t ** c.alpha + 1.0)
            neg = t ** c.beta / (t ** c.beta + 1.0)
            for p in range(self.tree.num_players):
                # one CFR pass for p: its instantaneous regrets and weight * own reach * strategy
                reach = walk.reach(self.offsets, self.sigma)
                values = walk.terminal_values(reach, p)
                walk.up(self.offsets, self.sigma, p, values, UPDATE, reach[0], self.regrets, self.cumulative,
                        weight)
                _match_player(self.tree.tree, self.offsets, self.tree.num_hands[p], p, self.regrets, self.sigma,
                              c.floor, c.discount, pos, neg)
            self.iteration += 1
            if progress is not None:
                progress(self.iteration)

    def average_strategy(self) -> VectorStrategy:
        """The average strategy (cumulative sums normalised per hand, uniform where nothing accumulated)."""
        out = np.empty_like(self.cumulative)
        for n in self.tree.decision_nodes():
            block = self._block(self.cumulative, n)
            total = block.sum(axis=1, keepdims=True)
            self._block(out, n)[:] = np.where(total > 0.0, block / np.where(total > 0.0, total, 1.0),
                                              1.0 / block.shape[1])
        return VectorStrategy(self.tree, self.offsets, out)

    def current_strategy(self) -> VectorStrategy:
        """The current (regret-matching) strategy."""
        return VectorStrategy(self.tree, self.offsets, self.sigma.copy())

    def gains(self) -> BestResponseGains:
        """Exact best-response gains of every player against the average strategy."""
        return best_response_gains(self.tree, self.average_strategy())

    # -- persistence ------------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the complete state (regrets, cumulative and current strategies, iteration, algorithm and the
        game's spec) to ``path`` atomically, an ``.npz`` with a format version (no pickle); :meth:`load` resumes
        it exactly."""
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game_spec": self.tree.game.spec(),
                "num_hands": list(self.tree.num_hands), "config": asdict(self.config), "iteration": self.iteration}
        return write_archive(path, meta, {"regrets": self.regrets, "cumulative": self.cumulative,
                                          "sigma": self.sigma})

    @classmethod
    def load(cls, path: str | Path, game: VectorGame | CompiledPublicTree) -> VectorSolver:
        """Resume a solver saved by :meth:`save` on ``game`` (a vector-form game is code, so it is given, and
        checked against the saved spec and sizes); anything else raises :class:`FileFormatError`."""
        path = Path(path)
        what = "pokerlab vector solver file"
        meta, arrays = read_archive(path, what, ("regrets", "cumulative", "sigma"),
                                    missing=f"no vector solver file {path}")
        check_format(path, meta, (FORMAT,), FORMAT_VERSION, what)
        tree = _compiled(game)
        if not same_spec(meta.get("game_spec"), tree.game.spec()) or meta.get("num_hands") != list(tree.num_hands):
            raise FileFormatError(f"{path}: saved for the game {meta.get('game_spec')!r}, not {tree.game.spec()!r}")
        try:
            solver = cls(tree, SolverConfig(**meta["config"]))
            iteration = int(meta["iteration"])
            if iteration < 0:
                raise ValueError(f"negative iteration count {iteration}")
        except (PokerlabError, TypeError, KeyError, ValueError) as error:
            raise FileFormatError(f"{path}: corrupt {what} ({error})") from error
        for name, array in arrays.items():
            if array.shape != solver.regrets.shape or array.dtype.kind != "f":
                raise FileFormatError(f"{path}: arrays do not match the game {tree.game.name!r}")
            setattr(solver, name, array.astype(np.float64))
        solver.iteration = iteration
        return solver


def _average_of_solver_file(path: Path, game: Game) -> VectorStrategy:
    return VectorSolver.load(path, _vector_game(path, game)).average_strategy()


register_reader(FORMAT, _average_of_solver_file)
