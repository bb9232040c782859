"""One strategy type for every solver, and what it offers the agents: play it (the action distribution at a
state), evaluate it exactly (expected value against another strategy over both seats, and exploitability), save
and load it (one file entry point, :func:`save_strategy` / :func:`load_strategy`, told apart by the file's format
field), or train the default one of a game.

Three representations implement :class:`Strategy`: a :class:`~pokerlab.solvers.policy.Policy` over a compiled
tree (limit poker, matrix games; tree-form solvers), a :class:`~pokerlab.solvers.vector.VectorStrategy` (one
row of action probabilities per private hand at each public node; vector-form solvers, push/fold charts) and a
:class:`~pokerlab.solvers.two_round.TwoRoundBot` (the two-round hold'em game, too large to compile: its MCCFR
and best response). The functions here are the one place that tells them apart.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidGameError, PokerlabError
from pokerlab.games.base import Game, require_two_player_zero_sum
from pokerlab.games.two_round import NODE_DECISION, TwoRoundHoldem, TwoRoundSpec, TwoRoundState
from pokerlab.games.vector import VectorGame, compile_public_tree
from pokerlab.io import save_atomically
from pokerlab.progress import ProgressCallback
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.two_round import TwoRoundBot, TwoRoundStrategy, TwoRoundTrainer, tree_of
from pokerlab.solvers.two_round_tables import two_round_tables
from pokerlab.solvers.vector import VectorStrategy, vector_exploitability, vector_profile_values


@runtime_checkable
class Strategy(Protocol):
    """What every strategy of every solver is: :class:`~pokerlab.solvers.policy.Policy`,
    :class:`~pokerlab.solvers.vector.VectorStrategy` or :class:`~pokerlab.solvers.two_round.TwoRoundBot`.
    ``save(path)`` writes it through :func:`save_strategy`; :func:`load_strategy` reads any of them back.

    >>> from pokerlab.games import compiled
    >>> isinstance(Policy.uniform(compiled("kuhn")), Strategy)
    True
    """

    def save(self, path: str | Path) -> Path:
        """Write the strategy to ``path`` (an ``.npz`` with a format field; see :func:`save_strategy`)."""
        ...


Distribution = Callable[[Game, Any], Sequence[tuple[Any, float]]]


def action_distribution(strategy: Strategy, game: Game, state: Any) -> list[tuple[Any, float]]:
    """``(action, probability)`` over the legal actions of ``state`` under ``strategy``. A vector-form strategy
    is read through the game's :meth:`~pokerlab.games.vector.VectorGame.public_view` (public state and the acting
    player's private hand)."""
    if isinstance(strategy, VectorStrategy):
        return _vector_distribution(strategy, game, state)
    if isinstance(strategy, TwoRoundBot):
        if not isinstance(game, TwoRoundHoldem):
            raise InvalidGameError("a two-round bot plays only the two-round game")
        return _two_round_distribution(strategy, game, state)
    if not isinstance(strategy, Policy):
        raise InvalidArgumentError(f"not a pokerlab strategy: {type(strategy).__name__}")
    g = strategy.game
    index = g._key_index().get(game.infoset_key(state))
    if index is None:
        raise InvalidGameError(f"the policy of {g.name!r} has no information set {game.infoset_key(state)!r}")
    lo, hi = int(g.info_offset[index]), int(g.info_offset[index + 1])
    return list(zip(game.legal_actions(state), (float(p) for p in strategy.probs[lo:hi]), strict=True))


def _vector_distribution(strategy: VectorStrategy, game: Game, state: Any) -> list[tuple[Any, float]]:
    if not isinstance(game, VectorGame) or game.spec() != strategy.tree.game.spec():
        raise InvalidGameError(f"the vector-form strategy of {strategy.tree.game.name!r} does not play "
                               f"{game.name!r}")
    public, hand = game.public_view(state)
    row = strategy.block(strategy.node_of(public))[int(hand)]
    return list(zip(game.public_actions(public), (float(p) for p in row), strict=True))


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


def _as_policy(game: Game, strategy: Strategy) -> Strategy:
    """``strategy`` as a tree-form policy of ``game`` (read state by state through the protocol)."""
    if isinstance(strategy, Policy):
        return strategy
    return strategy_from_distribution(game, lambda g, s: action_distribution(strategy, g, s), "strategy")


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
    if isinstance(a, VectorStrategy) and isinstance(b, VectorStrategy) and a.tree.game.spec() == b.tree.game.spec():
        require_two_player_zero_sum(a.tree.game.game_type, a.tree.game.name, "a seat-averaged value")
        return 0.5 * (vector_profile_values(a, b)[0] - vector_profile_values(b, a)[0])
    if type(a) is not type(b) and not isinstance(game, TwoRoundHoldem):
        a, b = _as_policy(game, a), _as_policy(game, b)  # e.g. a vector-form strategy against a fixed agent
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
    if isinstance(strategy, VectorStrategy):
        return vector_exploitability(strategy.tree, strategy)
    raise InvalidArgumentError("this strategy does not belong to this game")


POLICY_FORMAT = "pokerlab-policy"
VECTOR_STRATEGY_FORMAT = "pokerlab-vector-strategy"
TWO_ROUND_STRATEGY_FORMAT = "pokerlab-two-round-strategy"
STRATEGY_FORMAT_VERSION = 1


def save_strategy(strategy: Strategy, path: str | Path) -> Path:
    """Write any :class:`Strategy` to ``path`` (atomically), an ``.npz`` with a ``meta`` JSON holding its format
    (``pokerlab-policy``, ``pokerlab-vector-strategy`` or ``pokerlab-two-round-strategy``), a format version and
    the game it belongs to; :func:`load_strategy` reads it back bit for bit. No pickle.

    >>> import tempfile
    >>> from pokerlab.games import compiled, kuhn
    >>> path = Path(tempfile.mkdtemp()) / "uniform.npz"
    >>> _ = save_strategy(Policy.uniform(compiled("kuhn")), path)
    >>> load_strategy(path, kuhn()).action_probabilities("K||")
    {'check': 0.5, 'bet 1': 0.5}
    """
    arrays: dict[str, np.ndarray]
    if isinstance(strategy, Policy):
        meta: dict[str, Any] = {"format": POLICY_FORMAT, "game_spec": strategy.game.spec}
        arrays = {"probs": strategy.probs}
    elif isinstance(strategy, VectorStrategy):
        meta = {"format": VECTOR_STRATEGY_FORMAT, "game_spec": strategy.tree.game.spec(),
                "num_hands": list(strategy.tree.num_hands)}
        arrays = {"probs": strategy.probs}
    elif isinstance(strategy, TwoRoundBot):
        meta = {"format": TWO_ROUND_STRATEGY_FORMAT, "spec": strategy.spec.to_dict(), "info": strategy.info,
                "names": {str(s): t.name for s, t in strategy.strategies.items()}}
        arrays = {}
        for s, t in strategy.strategies.items():
            arrays.update({f"s{s}_pre": t.pre, f"s{s}_post": t.post, f"s{s}_pre_row": t.pre_row,
                           f"s{s}_post_row": t.post_row})
    else:
        raise InvalidArgumentError(f"not a pokerlab strategy: {type(strategy).__name__}")
    meta["format_version"] = STRATEGY_FORMAT_VERSION
    return write_archive(path, meta, arrays)


def load_strategy(path: Path, game: Game) -> Strategy:
    """Any strategy file, checked against ``game`` and told apart by its format field: one written by
    :func:`save_strategy` (a policy, a vector-form strategy or a two-round bot), a tree-form solver state
    (``pokerlab solve --out``: its average policy), a vector-form solver state (its average strategy) or a
    two-round trainer (``pokerlab two-round train``: its average strategies). Raises :class:`InvalidArgumentError`
    for a missing file or another game's strategy and :class:`FileFormatError` for an unreadable, unknown or
    corrupt one."""
    from pokerlab.solvers.core import FORMAT as SOLVER_FORMAT
    from pokerlab.solvers.core import Solver
    from pokerlab.solvers.two_round import FORMAT as TRAINER_FORMAT
    from pokerlab.solvers.two_round import LEGACY_FORMAT as LEGACY_TRAINER_FORMAT
    from pokerlab.solvers.vector import FORMAT as VECTOR_SOLVER_FORMAT
    from pokerlab.solvers.vector import VectorSolver

    path = Path(path)
    if not path.exists():
        raise InvalidArgumentError(f"strategy file not found: {path}")
    kind = _format_of(path)
    if kind is None:
        TwoRoundBot.load(path)  # raises with the precise reason (the historical message for an unreadable file)
        raise FileFormatError(f"{path}: not a pokerlab strategy file")
    if kind in (TRAINER_FORMAT, LEGACY_TRAINER_FORMAT):
        return _checked_two_round(path, TwoRoundBot.load(path), game)
    if kind == SOLVER_FORMAT:
        solver = Solver.load(path)
        if solver.game.spec != game.spec():
            raise InvalidArgumentError(f"{path}: a strategy of {solver.game.name!r}, not {game.name!r}")
        return solver.average_policy()
    if kind == VECTOR_SOLVER_FORMAT:
        return VectorSolver.load(path, _vector_game(path, game)).average_strategy()
    if kind not in (POLICY_FORMAT, VECTOR_STRATEGY_FORMAT, TWO_ROUND_STRATEGY_FORMAT):
        raise FileFormatError(f"{path}: not a pokerlab strategy file (format {kind!r})")
    meta, data = read_archive(path, "pokerlab strategy file")
    check_format(path, meta, (kind,), STRATEGY_FORMAT_VERSION, "pokerlab strategy file")
    try:
        if kind == POLICY_FORMAT:
            return _read_policy(path, meta, data, game)
        if kind == VECTOR_STRATEGY_FORMAT:
            return _read_vector(path, meta, data, game)
        return _checked_two_round(path, _read_two_round(meta, data), game)
    except InvalidArgumentError as error:
        if str(error).startswith(f"{path}:"):
            raise  # another game's strategy
        raise FileFormatError(f"{path}: corrupt pokerlab strategy file ({error})") from error
    except (PokerlabError, TypeError, KeyError, ValueError, AttributeError, IndexError) as error:
        raise FileFormatError(f"{path}: corrupt pokerlab strategy file ({type(error).__name__}: {error})") \
            from error


def _same_spec(saved: Any, spec: dict[str, Any]) -> bool:
    return bool(saved == json.loads(json.dumps(spec)))


def _read_policy(path: Path, meta: dict[str, Any], data: dict[str, np.ndarray], game: Game) -> Policy:
    from pokerlab.games.registry import compiled

    tree = compiled(game)
    if not _same_spec(meta["game_spec"], tree.spec):
        raise InvalidArgumentError(f"{path}: a strategy of {meta.get('game_spec')!r}, not {game.name!r}")
    return Policy(tree, _float_array(data["probs"]))


def _vector_game(path: Path, game: Game) -> VectorGame:
    if not isinstance(game, VectorGame):
        raise InvalidArgumentError(f"{path}: a vector-form strategy, and {game.name!r} has no vector form")
    return game


def _read_vector(path: Path, meta: dict[str, Any], data: dict[str, np.ndarray], game: Game) -> VectorStrategy:
    tree = compile_public_tree(_vector_game(path, game))
    if not _same_spec(meta["game_spec"], tree.game.spec()) or meta.get("num_hands") != list(tree.num_hands):
        raise InvalidArgumentError(f"{path}: a strategy of {meta.get('game_spec')!r}, not {game.name!r}")
    strategy = VectorStrategy.uniform(tree)
    probs = _float_array(data["probs"])
    if probs.shape != strategy.probs.shape:
        raise ValueError(f"{probs.size} probabilities, the game has {strategy.probs.size}")
    for n in tree.decision_nodes():
        block = strategy.block(int(n))
        block[:] = probs[int(strategy.offsets[n]):int(strategy.offsets[n]) + block.size].reshape(block.shape)
        if np.any(block < 0) or np.max(np.abs(block.sum(axis=1) - 1.0)) > 1e-9:
            raise ValueError(f"probabilities at public node {int(n)} are negative or do not sum to 1")
    return strategy


def _read_two_round(meta: dict[str, Any], data: dict[str, np.ndarray]) -> TwoRoundBot:
    spec = TwoRoundSpec.from_dict(meta["spec"])
    tables = two_round_tables(spec)
    strategies = {}
    for s in range(spec.stack + 1):
        tree = tree_of(replace(spec, stack=s))
        pre, post = _float_array(data[f"s{s}_pre"]), _float_array(data[f"s{s}_post"])
        pre_row, post_row = data[f"s{s}_pre_row"], data[f"s{s}_post_row"]
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
    return TwoRoundBot(spec, strategies, info)


def _checked_two_round(path: Path, bot: TwoRoundBot, game: Game) -> TwoRoundBot:
    if not isinstance(game, TwoRoundHoldem) or bot.spec != game.rules:
        raise InvalidArgumentError(f"{path}: a two-round bot for {bot.spec}, not for the game {game.name!r}")
    return bot


def _float_array(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind != "f" or not np.all(np.isfinite(array)):
        raise ValueError("probabilities must be finite floating-point numbers")
    return array.astype(np.float64)


def _format_of(path: Path) -> str | None:
    try:
        meta, _ = read_archive(path, "pokerlab strategy file", keys=())
    except FileFormatError:
        return None  # the loaders give the precise error
    format_name = meta.get("format")
    return format_name if isinstance(format_name, str) else None


DEFAULT_TWO_ROUND_ITERATIONS = 4_000_000  # the default two-round bot's MCCFR iterations on the main stack


def default_strategy(game: Game, folder: Path, progress: Callable[[str], None] | None = None,
                     training: ProgressCallback | None = None) -> Strategy:
    """The default trained strategy of a game, cached in ``folder`` after the first use; ``progress`` receives a
    line saying what happens (training, and how long it takes), ``training(done, total)`` the iterations.

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
            progress("training the default two-round bot once (about a minute: 4,000,000 MCCFR iterations); it is "
                     f"cached in {folder} afterwards")
        trainer = TwoRoundTrainer(rules, seed=0)
        trainer.train(DEFAULT_TWO_ROUND_ITERATIONS,
                      progress=None if training is None else lambda p: training(p.iteration, p.total))
        save_atomically(trainer.save, path)
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
    save_atomically(result.solver.save, path)
    return result.policy
