"""The default trained bot (``cfr``) of each game: which solver trains it, and its cache on disk.

A game's strategy kind (:attr:`pokerlab.games.base.Game.strategy_format`) chooses the trainer in
:data:`TRAINERS`: CFR+ on the compiled tree for policies, MCCFR with card abstraction for two-round bots.
Every cache file holds the solver's whole state (the same file ``pokerlab solve --out`` or ``pokerlab two-round
train --out`` writes), is named after the game and the trainer's version, and is retrained and replaced
(atomically) when it cannot be read or holds another game's strategy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pokerlab.agents.players import StrategyAgent
from pokerlab.cards.tables import cache_directory
from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games.base import Game
from pokerlab.progress import ProgressCallback
from pokerlab.solvers.core import Solver, solve
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.strategy import Strategy
from pokerlab.solvers.two_round import TwoRoundBot, TwoRoundTrainer, two_round_rules

DEFAULT_TWO_ROUND_ITERATIONS = 4_000_000  # the default two-round bot's MCCFR iterations on the main stack

Note = Callable[[str], None]


@dataclass(frozen=True)
class DefaultTrainer:
    """How the default bot of one strategy kind is trained: ``file_name(game)`` in the cache folder, ``load``
    (the bot in a cache file, or None when the file is another game's), ``train`` (writes the file, returns the
    bot) and ``announce`` (what the first training says when it takes long enough to tell)."""

    file_name: Callable[[Game], str]
    load: Callable[[Path, Game], Strategy | None]
    train: Callable[[Game, Path, ProgressCallback | None], Strategy]
    announce: str | None = None


def _load_policy(path: Path, game: Game) -> Strategy | None:
    solver = Solver.load(path)
    return solver.average_policy() if solver.game.spec == game.spec() else None


def _train_policy(game: Game, path: Path, training: ProgressCallback | None) -> Strategy:
    result = solve(game, "cfr+", target_exploitability=1e-4 if game.name == "kuhn" else 1e-3, iterations=20_000,
                   seed=0)
    result.solver.save(path)
    return result.policy


def _load_two_round(path: Path, game: Game) -> Strategy | None:
    bot = TwoRoundBot.load(path)
    return bot if bot.spec == two_round_rules(game) else None


def _train_two_round(game: Game, path: Path, training: ProgressCallback | None) -> Strategy:
    trainer = TwoRoundTrainer(two_round_rules(game), seed=0)
    trainer.train(DEFAULT_TWO_ROUND_ITERATIONS,
                  progress=None if training is None else lambda p: training(p.iteration, p.total))
    trainer.save(path)
    return trainer.bot()


def _two_round_file(game: Game) -> str:
    rules = two_round_rules(game)
    return f"two-round-r{rules.ranks}s{rules.suits}k{rules.stack}-v1.npz"


TRAINERS: dict[str, DefaultTrainer] = {
    Policy.format: DefaultTrainer(lambda game: f"{game.name}-cfr+-v1.npz", _load_policy, _train_policy),
    TwoRoundBot.format: DefaultTrainer(_two_round_file, _load_two_round, _train_two_round,
                                       "training the default two-round bot once (about a minute: 4,000,000 MCCFR "
                                       "iterations)"),
}


def default_strategy(game: Game, folder: Path, progress: Note | None = None,
                     training: ProgressCallback | None = None) -> Strategy:
    """The default trained strategy of a game, cached in ``folder`` after the first use; ``progress`` receives a
    line saying what happens (training, and how long it takes), ``training(done, total)`` the iterations.

    Limit games: CFR+ to an exploitability below 1e-4 chips/game (Kuhn) or 1e-3 (others), a few seconds.
    The two-round game: 4 million MCCFR iterations on 24 equity buckets (about a minute on one core). A cache
    file that cannot be read, or that holds another game's strategy, is retrained and replaced (atomically).
    """
    trainer = TRAINERS.get(game.strategy_format)
    if trainer is None:
        raise InvalidArgumentError(f"{game.name!r} has no default bot (its strategies are "
                                   f"{game.strategy_format!r})")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / trainer.file_name(game)
    if path.exists():
        try:
            cached = trainer.load(path, game)
            if cached is not None:
                return cached
        except (FileFormatError, InvalidArgumentError):
            pass
        if progress:
            progress(f"the cached bot {path} is unreadable or for another game; retraining it")
    elif progress and trainer.announce:
        progress(f"{trainer.announce}; it is cached in {folder} afterwards")
    return trainer.train(game, path, training)


def default_trained(game: Game, progress: Note | None = None,
                    training: ProgressCallback | None = None) -> StrategyAgent:
    """The default ``cfr`` bot of a game, cached on disk (``<cache>/bots``, see
    :func:`pokerlab.cards.tables.cache_directory`) after the first use.

    Limit games: CFR+ to an exploitability below 1e-4 chips/game (Kuhn) or 1e-3 (Leduc), a few seconds.
    The two-round game: 4 million MCCFR iterations on 24 equity buckets (about a minute on one core); the bot
    documented in ``docs/results.md`` is trained longer with ``pokerlab two-round train``. A cache file that cannot
    be read, or that holds a bot of another game, is retrained and replaced (written atomically).

    Example: ``default_trained(game_by_name("kuhn")).name == "cfr"``.
    """
    return StrategyAgent(default_strategy(game, cache_directory() / "bots", progress, training), name="cfr")
