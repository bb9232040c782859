"""The two-round game's bots: training with MCCFR and card abstraction (:class:`TwoRoundTrainer`, resumable) and
the strategy kind that plays the game (:class:`TwoRoundBot`: playing, values, exploitability, its file form).

A :class:`TwoRoundStrategy` (:mod:`pokerlab.solvers.two_round_values`, with the exact evaluation and the fixed
bots, re-exported here) plays one effective stack; a :class:`TwoRoundBot` holds one strategy per effective stack
``0 .. stack`` so that it can play every hand of a stack-until-bust match (a hand is played with the smaller
stack behind the ante, capped at the game's ``stack``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import pokerlab.solvers.two_round_kernels as K
from pokerlab.errors import FileFormatError, Interrupted, InvalidArgumentError, InvalidGameError, PokerlabError
from pokerlab.games.base import Game
from pokerlab.games.two_round import NODE_DECISION, TwoRoundHoldem, TwoRoundSpec, TwoRoundState
from pokerlab.progress import deferred_interrupts
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.strategy import Distribution, Strategy, float_array, register_reader, save_strategy, strategy_kind
from pokerlab.solvers.two_round_tables import TwoRoundTables, two_round_tables
from pokerlab.solvers.two_round_values import (
    TwoRoundExploitability,
    TwoRoundStrategy,
    expected_value,
    exploitability,
    fixed_strategy,
    tree_of,
)
from pokerlab.stats import validate_seed
from pokerlab.stats.rng import seed_state

__all__ = [
    "FORMAT", "FORMAT_VERSION", "Abstraction", "TrainProgress", "TwoRoundBot", "TwoRoundExploitability",
    "TwoRoundStrategy", "TwoRoundTrainer", "expected_value", "exploitability", "fixed_strategy", "tree_of",
    "two_round_rules",
]

FORMAT = "pokerlab-two-round-bot"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Abstraction:
    """Card abstraction: ``buckets`` flop buckets by exact equity (0: none, the real game) and suit-isomorphic
    preflop classes (``exact_preflop=False``) or every hand apart."""

    buckets: int = 24
    exact_preflop: bool = False


class _StackTrainer:
    """MCCFR state for one effective stack."""

    def __init__(self, spec: TwoRoundSpec, abstraction: Abstraction, tables: TwoRoundTables) -> None:
        self.spec = spec
        self.tree = tree_of(spec)
        self.pre_row, n_pre = tables.pre_abstraction(abstraction.exact_preflop)
        self.post_row, n_post = tables.post_bucket(abstraction.buckets)
        f = self.tree.num_flat_actions
        self.reg_pre = np.zeros((n_pre, f))
        self.reg_post = np.zeros((n_post, f))
        self.cum_pre = np.zeros((n_pre, f))
        self.cum_post = np.zeros((n_post, f))
        self.iterations = 0

    def run(self, iterations: int, tables: TwoRoundTables, rng: np.ndarray, floor: bool) -> None:
        state = K.MccfrState(self.pre_row, self.post_row, self.reg_pre, self.reg_post, self.cum_pre, self.cum_post)
        K.mccfr_iterations(self.tree.arrays(), tables.deals(), state, float(self.spec.ante), iterations, rng, floor)
        self.iterations += iterations

    def average(self, name: str) -> TwoRoundStrategy:
        decision = np.flatnonzero(self.tree.kind == NODE_DECISION)
        pre = np.empty_like(self.cum_pre)
        post = np.empty_like(self.cum_post)
        K.normalize_rows(self.cum_pre, self.tree.act_offset, self.tree.num_children, decision, pre)
        K.normalize_rows(self.cum_post, self.tree.act_offset, self.tree.num_children, decision, post)
        return TwoRoundStrategy(self.spec, name, pre, post, self.pre_row, self.post_row, self.tree)


@dataclass(frozen=True)
class TrainProgress:
    """Reported during training: stack being trained, its iterations done and planned, seconds so far."""

    stack: int
    iteration: int
    total: int
    elapsed_s: float


class TwoRoundTrainer:
    """External-sampling MCCFR for the two-round game, one strategy per effective stack ``0 .. spec.stack``.

    >>> t = TwoRoundTrainer(TwoRoundSpec(ranks=4, suits=2, stack=1), Abstraction(buckets=4), seed=1)
    >>> t.train(100); t.iterations[1]
    100
    """

    def __init__(self, spec: TwoRoundSpec | None = None, abstraction: Abstraction | None = None,
                 seed: int | None = None, floor: bool = True) -> None:
        self.spec = spec or TwoRoundSpec()
        self.spec.validate()
        self.abstraction = abstraction or Abstraction()
        if self.abstraction.buckets < 0:
            raise InvalidArgumentError(f"buckets must be >= 0, got {self.abstraction.buckets}")
        self.tables = two_round_tables(self.spec)
        self.seed = seed
        self.rng = seed_state(seed)
        self.floor = floor
        self.stacks = {s: _StackTrainer(replace(self.spec, stack=s), self.abstraction, self.tables)
                       for s in range(self.spec.stack + 1)}

    @property
    def iterations(self) -> dict[int, int]:
        return {s: t.iterations for s, t in self.stacks.items()}

    def train(self, iterations: int, smaller_stacks: float = 0.5,
              progress: Callable[[TrainProgress], None] | None = None, batch: int = 20_000) -> None:
        """Run ``iterations`` more MCCFR iterations on the main stack and ``smaller_stacks`` times as many on
        each smaller effective stack (their trees are much smaller)."""
        if iterations < 0 or smaller_stacks < 0:
            raise InvalidArgumentError("iterations and smaller_stacks must be non-negative")
        start = time.perf_counter()
        try:
            for s, trainer in sorted(self.stacks.items(), reverse=True):
                total = iterations if s == self.spec.stack else int(round(iterations * smaller_stacks))
                done = 0
                while done < total:
                    n = min(batch, total - done)
                    with deferred_interrupts():  # Ctrl-C waits for the arrays and the counts to agree
                        trainer.run(n, self.tables, self.rng, self.floor)
                        done += n
                    if progress is not None:
                        progress(TrainProgress(s, done, total, time.perf_counter() - start))
        except KeyboardInterrupt:  # between two batches: the state is whole and can be saved
            counts = ", ".join(f"{t.iterations:,} at stack {s}" for s, t in sorted(self.stacks.items(), reverse=True))
            raise Interrupted(f"with {counts} iterations", partial=self) from None

    def bot(self) -> TwoRoundBot:
        """The average strategies so far as a :class:`TwoRoundBot` (named ``cfr``), with the abstraction, iteration
        counts and seed in its ``info``. Example: ``TwoRoundTrainer(spec).bot().strategy(spec.stack)``."""
        return TwoRoundBot(self.spec, {s: t.average("cfr") for s, t in self.stacks.items()},
                        {"abstraction": asdict(self.abstraction), "iterations": self.iterations,
                         "seed": self.seed})

    def save(self, path: str | Path) -> Path:
        """Checkpoint everything (regrets, averages, rng) so :meth:`load` resumes exactly; the file is also a
        bot file (:meth:`TwoRoundBot.load` reads its average strategies)."""
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "spec": self.spec.to_dict(),
                "abstraction": asdict(self.abstraction), "iterations": {str(k): v for k, v in self.iterations.items()},
                "seed": self.seed, "floor": self.floor}
        arrays = {"rng": self.rng}
        for s, t in self.stacks.items():
            arrays.update({f"s{s}_reg_pre": t.reg_pre, f"s{s}_reg_post": t.reg_post, f"s{s}_cum_pre": t.cum_pre,
                           f"s{s}_cum_post": t.cum_post})
        return write_archive(path, meta, arrays)

    @classmethod
    def load(cls, path: str | Path) -> TwoRoundTrainer:
        """Resume a trainer saved by :meth:`save`."""
        meta, data = _read(path)
        try:
            trainer = cls(TwoRoundSpec.from_dict(meta["spec"]), Abstraction(**meta["abstraction"]), seed=0,
                          floor=bool(meta.get("floor", True)))
            trainer.seed = validate_seed(meta.get("seed"))
            iterations = {s: int(meta["iterations"][str(s)]) for s in trainer.stacks}
            if min(iterations.values()) < 0:
                raise ValueError("negative iteration count")
        except (PokerlabError, TypeError, KeyError, ValueError, AttributeError) as error:
            raise FileFormatError(f"{path}: corrupt pokerlab two-round bot file ({type(error).__name__}: {error})") \
                from error
        rng = data.get("rng")
        if rng is None or rng.shape != (1,):
            raise FileFormatError(f"{path}: corrupt pokerlab two-round bot file (no random state)")
        trainer.rng = rng.astype(np.uint64)
        for s, t in trainer.stacks.items():
            for name in ("reg_pre", "reg_post", "cum_pre", "cum_post"):
                arr = data.get(f"s{s}_{name}")
                if arr is None or arr.shape != getattr(t, name).shape or arr.dtype.kind not in "fiu":
                    raise FileFormatError(f"{path}: arrays do not match the game")
                setattr(t, name, arr.astype(np.float64))
            t.iterations = iterations[s]
        return trainer


def _read(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    what = "pokerlab two-round bot file"
    meta, data = read_archive(path, what, missing=f"strategy file not found: {path}")
    check_format(path, meta, (FORMAT,), FORMAT_VERSION, what)
    return meta, data


@strategy_kind
@dataclass(frozen=True, eq=False)
class TwoRoundBot:
    """Strategies for every effective stack ``0 .. spec.stack`` of the two-round game: the
    :class:`~pokerlab.solvers.strategy.Strategy` kind of that game (any agent's card-blind play is read into
    one, :meth:`from_distribution`, to be valued exactly)."""

    format: ClassVar[str] = "pokerlab-two-round-strategy"

    spec: TwoRoundSpec
    strategies: dict[int, TwoRoundStrategy]
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def fixed(cls, kind: str, spec: TwoRoundSpec | None = None) -> TwoRoundBot:
        """A card-blind bot (``uniform``, ``fullbet`` or ``checkcall``, see :func:`fixed_strategy`) for every
        effective stack of ``spec`` (default: the two-round game).

        >>> sorted(TwoRoundBot.fixed("checkcall", TwoRoundSpec(ranks=4, suits=2, stack=1)).strategies)
        [0, 1]
        """
        spec = spec or TwoRoundSpec()
        return cls(spec, {s: fixed_strategy(replace(spec, stack=s), kind) for s in range(spec.stack + 1)},
                   {"kind": kind})

    @classmethod
    def load(cls, path: str | Path) -> TwoRoundBot:
        """The average strategies of a file written by :meth:`TwoRoundTrainer.save`."""
        return TwoRoundTrainer.load(path).bot()

    def strategy(self, stack: int) -> TwoRoundStrategy:
        """The strategy for effective ``stack`` chips behind the ante (0 .. ``spec.stack``); another stack raises
        :class:`InvalidArgumentError`. Example: ``bot.strategy(bot.spec.stack)`` is the full-stack strategy."""
        if stack not in self.strategies:
            raise InvalidArgumentError(f"no strategy for effective stack {stack} (have 0..{self.spec.stack})")
        return self.strategies[stack]

    @classmethod
    def from_distribution(cls, game: Game, distribution: Distribution, name: str = "agent") -> TwoRoundBot:
        """The card-blind bot that plays ``distribution`` at every betting node of ``game``'s main stack. The
        game is too large to list every information set, so the distribution is read on one deal and checked
        on a second: an agent that plays by its cards raises :class:`InvalidArgumentError`."""
        rules = two_round_rules(game)
        tree = tree_of(rules)
        tables = two_round_tables(rules)
        deck = rules.deck()
        deals = ((deck[0:2], deck[2:4], deck[4:7]), (deck[-2:], deck[-4:-2], deck[-7:-4]))
        probs = np.zeros((1, tree.num_flat_actions))
        for n in np.flatnonzero(tree.kind == NODE_DECISION):
            rows = []
            for hand0, hand1, flop in deals:
                state = game.apply(game.apply(game.initial_state(), hand0), hand1)
                for round_index, actions in enumerate(tree.histories[n]):
                    if round_index == 1:
                        state = game.apply(state, flop)
                    for action in actions:
                        state = game.apply(state, action)
                dist = dict(distribution(game, state))
                rows.append([dist.get(int(tree.action[c]), 0.0) for c in tree.children(int(n))])
            if rows[0] != rows[1]:
                raise InvalidArgumentError(f"agent {name!r} plays by its cards: the two-round game evaluates "
                                           "exactly only trained bots and card-blind agents")
            off = int(tree.act_offset[n])
            probs[0, off:off + len(rows[0])] = rows[0]
        strategy = TwoRoundStrategy(rules, name, probs, probs, np.zeros(tables.n_hands, dtype=np.int64),
                                    np.zeros((tables.n_flops, tables.n_hands), dtype=np.int64), tree)
        return cls(rules, {rules.stack: strategy}, {"kind": name})

    # -- the Strategy protocol ----------------------------------------------------------------------------------
    def distribution(self, game: Game, state: TwoRoundState) -> list[tuple[Any, float]]:
        """``(action, probability)`` at ``state``, played by the strategy of the state's effective stack."""
        spec = two_round_rules(game)
        if replace(spec, stack=self.spec.stack) != self.spec:
            raise InvalidGameError("the bot was trained for another deck or bet size")
        strategy = self.strategy(spec.stack)
        tables = two_round_tables(spec)
        tree = strategy.tree
        node = tree.node_after(state.history)
        me = state.betting.to_act
        hand = sorted(tables.local(c) for c in state.hands[me])
        h = int(tables.hand_id[hand[0], hand[1]])
        f = -1
        if state.flop:
            a, b, c = sorted(tables.local(x) for x in state.flop)
            f = int(tables.flop_id[a, b, c])
        probs = strategy.probabilities(node, h, f)
        return [(int(tree.action[child]), float(p)) for child, p in zip(tree.children(node), probs, strict=True)]

    def value_against(self, game: Game, other: Strategy) -> float:
        """Exact chips per hand against ``other`` over both seats at the game's stack (another kind is read
        into a card-blind bot first)."""
        stack = two_round_rules(game).stack
        them = other if isinstance(other, TwoRoundBot) else TwoRoundBot.from_distribution(game, other.distribution,
                                                                                         "other")
        return expected_value(self.strategy(stack), them.strategy(stack))

    def exploitability(self, game: Game) -> float:
        """Exact exploitability (chips per hand) at the game's stack, in the real (unabstracted) game."""
        return exploitability(self.strategy(two_round_rules(game).stack)).exploitability

    def to_archive(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        meta = {"spec": self.spec.to_dict(), "info": self.info,
                "names": {str(s): t.name for s, t in self.strategies.items()}}
        arrays = {}
        for s, t in self.strategies.items():
            arrays.update({f"s{s}_pre": t.pre, f"s{s}_post": t.post, f"s{s}_pre_row": t.pre_row,
                           f"s{s}_post_row": t.post_row})
        return meta, arrays

    @classmethod
    def from_archive(cls, path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray],
                     game: Game) -> TwoRoundBot:
        spec = TwoRoundSpec.from_dict(meta["spec"])
        tables = two_round_tables(spec)
        strategies = {}
        for s in range(spec.stack + 1):
            tree = tree_of(replace(spec, stack=s))
            pre, post = float_array(arrays[f"s{s}_pre"]), float_array(arrays[f"s{s}_post"])
            pre_row, post_row = arrays[f"s{s}_pre_row"], arrays[f"s{s}_post_row"]
            if pre.ndim != 2 or post.ndim != 2 or pre.shape[1] != tree.num_flat_actions or \
                    post.shape[1] != tree.num_flat_actions or pre_row.shape != (tables.n_hands,) or \
                    post_row.shape != (tables.n_flops, tables.n_hands) or pre_row.dtype.kind not in "iu" or \
                    post_row.dtype.kind not in "iu":
                raise ValueError(f"arrays of stack {s} do not match the game")
            if np.any(pre < 0) or np.any(post < 0) or not (pre_row.min() >= 0 and pre_row.max() < len(pre)) or \
                    not (post_row.min() >= -1 and post_row.max() < len(post)):
                raise ValueError(f"probabilities or rows of stack {s} out of range")
            strategies[s] = TwoRoundStrategy(replace(spec, stack=s), str(meta["names"][str(s)]), pre, post,
                                             pre_row.astype(np.int64), post_row.astype(np.int64), tree)
        info = meta.get("info", {})
        if not isinstance(info, dict):
            raise ValueError("info is not an object")
        return _checked(path, cls(spec, strategies, info), game)

    def save(self, path: str | Path) -> Path:
        """Write the bot's strategies to ``path`` (see :func:`pokerlab.solvers.strategy.save_strategy`; a
        trainer's checkpoint, :meth:`TwoRoundTrainer.save`, is also read as a bot)."""
        return save_strategy(self, path)


def two_round_rules(game: Game) -> TwoRoundSpec:
    """The rules of ``game``, which must be the two-round game, the only one a two-round bot plays
    (:class:`InvalidGameError` otherwise)."""
    if not isinstance(game, TwoRoundHoldem):
        raise InvalidGameError(f"a two-round bot plays only the two-round game, not {game.name!r}")
    return game.rules


def _checked(path: Path, bot: TwoRoundBot, game: Game) -> TwoRoundBot:
    if not isinstance(game, TwoRoundHoldem) or bot.spec != game.rules:
        raise InvalidArgumentError(f"{path}: a two-round bot for {bot.spec}, not for the game {game.name!r}")
    return bot


def _bot_of_trainer_file(path: Path, game: Game) -> TwoRoundBot:
    return _checked(path, TwoRoundBot.load(path), game)


register_reader(FORMAT, _bot_of_trainer_file)
