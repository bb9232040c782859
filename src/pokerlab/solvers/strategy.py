"""What every trained or fixed strategy offers the agents, whatever solver made it: play it (the action
distribution at a state), evaluate it exactly (expected value against another strategy over both seats, and
exploitability), load it from a file, or train the default one of a game.

Two strategy types come out of the solvers for the games that are played: a :class:`~pokerlab.solvers.policy.Policy`
over a compiled tree (limit poker, matrix games; tree-form solvers) and a
:class:`~pokerlab.solvers.two_round.TwoRoundBot` (the two-round hold'em game, too large to compile: its
vector-form MCCFR and best response). The functions here are the one place that tells them apart.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidGameError
from pokerlab.games.base import Game
from pokerlab.games.two_round import NODE_DECISION, TwoRoundHoldem, TwoRoundState
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.two_round import TwoRoundBot, TwoRoundStrategy, TwoRoundTrainer, tree_of
from pokerlab.solvers.two_round_tables import two_round_tables

Strategy = Policy | TwoRoundBot
Distribution = Callable[[Game, Any], Sequence[tuple[Any, float]]]


def action_distribution(strategy: Strategy, game: Game, state: Any) -> list[tuple[Any, float]]:
    """``(action, probability)`` over the legal actions of ``state`` under ``strategy``."""
    if isinstance(strategy, TwoRoundBot):
        if not isinstance(game, TwoRoundHoldem):
            raise InvalidGameError("a two-round bot plays only the two-round game")
        return _two_round_distribution(strategy, game, state)
    g = strategy.game
    index = g._key_index().get(game.infoset_key(state))
    if index is None:
        raise InvalidGameError(f"the policy of {g.name!r} has no information set {game.infoset_key(state)!r}")
    lo, hi = int(g.info_offset[index]), int(g.info_offset[index + 1])
    return list(zip(game.legal_actions(state), (float(p) for p in strategy.probs[lo:hi]), strict=True))


def _two_round_distribution(bot: TwoRoundBot, game: TwoRoundHoldem, state: TwoRoundState) -> list[tuple[Any, float]]:
    spec = game.rules
    if replace(spec, stack=bot.spec.stack) != bot.spec:
        raise InvalidGameError("the bot was trained for another deck or bet size")
    strategy = bot.strategy(spec.stack)
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


def strategy_from_distribution(game: Game, distribution: Distribution, name: str) -> Strategy:
    """The strategy that plays ``distribution`` (an agent's), for exact evaluation. In the two-round game (too
    large to list every information set) the distribution must not depend on the cards: it is read once per
    betting node and checked on a second deal (:class:`InvalidArgumentError` otherwise)."""
    if isinstance(game, TwoRoundHoldem):
        return _card_blind_bot(game, distribution, name)
    from pokerlab.games.registry import compiled

    tree = compiled(game)
    source = tree.source
    assert source is not None  # compiled() keeps the game it compiled
    probs = np.zeros(tree.num_flat_actions)
    for i, state in enumerate(tree.infoset_states):
        lo = int(tree.info_offset[i])
        dist = dict(distribution(source, state))
        for k, a in enumerate(source.legal_actions(state)):
            probs[lo + k] = dist.get(a, 0.0)
    return Policy(tree, probs)


def _card_blind_bot(game: TwoRoundHoldem, distribution: Distribution, name: str) -> TwoRoundBot:
    spec = game.rules
    tree = tree_of(spec)
    tables = two_round_tables(spec)
    deck = spec.deck()
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
            raise InvalidArgumentError(f"agent {name!r} plays by its cards: the two-round game evaluates exactly "
                                       "only trained bots and card-blind agents")
        off = int(tree.act_offset[n])
        probs[0, off:off + len(rows[0])] = rows[0]
    strategy = TwoRoundStrategy(spec, name, probs, probs, np.zeros(tables.n_hands, dtype=np.int64),
                                np.zeros((tables.n_flops, tables.n_hands), dtype=np.int64), tree)
    return TwoRoundBot(spec, {spec.stack: strategy}, {"kind": name})


def seat_average_value(game: Game, a: Strategy, b: Strategy) -> float:
    """Exact chips per hand of ``a`` against ``b``, averaged over both seats (no sampling)."""
    if isinstance(a, TwoRoundBot) and isinstance(b, TwoRoundBot) and isinstance(game, TwoRoundHoldem):
        from pokerlab.solvers.two_round import expected_value as two_round_value

        return two_round_value(a.strategy(game.rules.stack), b.strategy(game.rules.stack))
    if isinstance(a, Policy) and isinstance(b, Policy):
        from pokerlab.solvers.policy import expected_value

        tree = a.game
        return 0.5 * (expected_value(tree, a, b) - expected_value(tree, b, a))
    raise InvalidArgumentError("the two strategies belong to different kinds of game")


def strategy_exploitability(game: Game, strategy: Strategy) -> float:
    """Exact exploitability (chips per hand, mean of both seats' best-response values) of a strategy."""
    if isinstance(strategy, TwoRoundBot) and isinstance(game, TwoRoundHoldem):
        from pokerlab.solvers.two_round import exploitability as two_round_exploitability

        return two_round_exploitability(strategy.strategy(game.rules.stack)).exploitability
    if isinstance(strategy, Policy):
        from pokerlab.solvers.policy import exploitability

        return exploitability(strategy.game, strategy).exploitability
    raise InvalidArgumentError("this strategy does not belong to this game")


def load_strategy(path: Path, game: Game) -> Strategy:
    """A trained strategy from a file, checked against ``game``: a two-round bot (``pokerlab two-round train``)
    or a solver state (``pokerlab solve --out``, its average policy), told apart by the file's format field.
    Raises :class:`FileFormatError` for unreadable files and :class:`InvalidArgumentError` for another game's."""
    from pokerlab.solvers.core import FORMAT as SOLVER_FORMAT
    from pokerlab.solvers.core import Solver

    if _format_of(path) != SOLVER_FORMAT:
        bot = TwoRoundBot.load(path)
        if not isinstance(game, TwoRoundHoldem) or bot.spec != game.rules:
            raise InvalidArgumentError(f"{path}: a two-round bot for {bot.spec}, not for the game {game.name!r}")
        return bot
    solver = Solver.load(path)
    if solver.game.spec != game.spec():
        raise InvalidArgumentError(f"{path}: a strategy of {solver.game.name!r}, not {game.name!r}")
    return solver.average_policy()


def _format_of(path: Path) -> str | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # the loaders give the precise error
    return meta.get("format") if isinstance(meta, dict) else None


def _save_atomically(save: Callable[[Path], Any], path: Path) -> None:
    """Write through a temporary file in the same folder and rename it, so that a run interrupted mid-write (or
    two runs at once) never leaves a truncated cache file behind."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp.npz")
    os.close(fd)
    tmp = Path(name)
    try:
        save(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def default_strategy(game: Game, folder: Path, progress: Callable[[str], None] | None = None) -> Strategy:
    """The default trained strategy of a game, cached in ``folder`` after the first use.

    Limit games: CFR+ to an exploitability below 1e-4 chips/game (Kuhn) or 1e-3 (others), a few seconds.
    The two-round game: 4 million MCCFR iterations on 24 equity buckets (about a minute on one core). A cache
    file that cannot be read, or that holds another game's strategy, is retrained and replaced (atomically).
    """
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(game, TwoRoundHoldem):
        rules = game.rules
        path = folder / f"two-round-r{rules.ranks}s{rules.suits}k{rules.stack}-v1.npz"
        former = folder / f"brief-r{rules.ranks}s{rules.suits}k{rules.stack}-v1.npz"  # cached before the rename
        if not path.exists() and former.exists():
            os.replace(former, path)
        if path.exists():
            try:
                bot = TwoRoundBot.load(path)
                if bot.spec == rules:
                    return bot
            except (FileFormatError, InvalidArgumentError):
                pass
            if progress:
                progress(f"the cached two-round bot {path} is unreadable or for another game; retraining it")
        elif progress:
            progress("training the default two-round bot once (about a minute); it is cached afterwards")
        trainer = TwoRoundTrainer(rules, seed=0)
        trainer.train(4_000_000)
        _save_atomically(trainer.save, path)
        return trainer.bot()
    from pokerlab.solvers.core import Solver, solve

    path = folder / f"{game.name}-cfr+-v1.npz"
    if path.exists():
        try:
            solver = Solver.load(path)
            if solver.game.spec == game.spec():
                return solver.average_policy()
        except (FileFormatError, InvalidArgumentError):
            pass
        if progress:
            progress(f"the cached bot {path} is unreadable or for another game; retraining it")
    result = solve(game, "cfr+", target_exploitability=1e-4 if game.name == "kuhn" else 1e-3, iterations=20_000,
                   seed=0)
    _save_atomically(result.solver.save, path)
    return result.policy
