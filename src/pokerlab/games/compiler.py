"""Compile a :class:`~pokerlab.games.base.Game` once into flat numpy arrays for the numba solvers.

Nodes are numbered breadth-first, so (1) the children of a node are a contiguous block
``first_child[n] .. first_child[n] + num_children[n] - 1``, (2) every child has a larger index than its parent
(a top-down pass is a loop over increasing indices, a bottom-up pass over decreasing indices) and (3) the nodes
of one depth are contiguous (``level_offsets``), which the exact best response uses.

Information sets own a contiguous block of "flat actions" (``info_offset[i] .. info_offset[i + 1] - 1``); the
regrets, strategies and policies of every solver are float64 arrays over these flat actions.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import (
    CHANCE,
    TERMINAL,
    TREE_FORM,
    Game,
    checked_chance_outcomes,
    require_form,
    require_two_player_zero_sum,
)

KIND_TERMINAL = 0
KIND_CHANCE = 1
KIND_DECISION = 2


class TreeArrays(NamedTuple):
    """A compiled tree as the tree-form kernels take it (one argument): the per-node arrays ``kind``,
    ``player``, ``parent``, ``first_child``, ``num_children``, ``chance_prob``, ``infoset``, ``utility``, the
    per-infoset ``info_player`` and ``info_offset``, and ``level_offsets`` (see :class:`CompiledGame`)."""

    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    chance_prob: np.ndarray
    infoset: np.ndarray
    utility: np.ndarray
    info_player: np.ndarray
    info_offset: np.ndarray
    level_offsets: np.ndarray


@dataclass(frozen=True)
class GameSizes:
    """Sizes of a compiled game tree."""

    histories: int
    terminals: int
    chance_nodes: int
    decision_nodes: int
    infosets: int
    infosets_per_player: tuple[int, int]
    flat_actions: int
    depth: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "histories": self.histories,
            "terminals": self.terminals,
            "chance_nodes": self.chance_nodes,
            "decision_nodes": self.decision_nodes,
            "infosets": self.infosets,
            "infosets_per_player": list(self.infosets_per_player),
            "flat_actions": self.flat_actions,
            "depth": self.depth,
        }


@dataclass(frozen=True, eq=False)
class CompiledGame:
    """A game tree as flat arrays (see the module docstring for the layout).

    Per node: ``kind`` (0 terminal, 1 chance, 2 decision), ``player`` (0/1, -1 otherwise), ``parent``,
    ``first_child``, ``num_children``, ``chance_prob`` (probability of the chance edge leading *into* the node,
    1 when the parent is not a chance node), ``infoset`` (-1 unless a decision node), ``utility`` (player 0's
    payoff in chips at terminals, 0 elsewhere). Per infoset: ``info_player``, ``info_offset`` (length
    ``infosets + 1``), plus ``infoset_keys`` and ``action_labels`` for people.
    """

    name: str
    spec: dict[str, Any]
    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    chance_prob: np.ndarray
    infoset: np.ndarray
    utility: np.ndarray
    level_offsets: np.ndarray
    info_player: np.ndarray
    info_offset: np.ndarray
    infoset_keys: tuple[str, ...]
    action_labels: tuple[tuple[str, ...], ...]
    sizes: GameSizes
    source: Game | None = field(default=None, repr=False)
    # One state per infoset (the first met breadth-first); used by exports that need the game's own view.
    infoset_states: tuple[Any, ...] = field(default=(), repr=False)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_keys)

    @property
    def num_flat_actions(self) -> int:
        return int(self.info_offset[-1])

    def infoset_index(self, key: str) -> int:
        """Index of the infoset with this key; raises :class:`InvalidGameError` when unknown."""
        index = self._key_index().get(key)
        if index is None:
            raise InvalidGameError(f"unknown information set {key!r} in game {self.name!r}")
        return index

    def _key_index(self) -> dict[str, int]:
        cache = self.__dict__.get("_key_cache")
        if cache is None:
            cache = {key: i for i, key in enumerate(self.infoset_keys)}
            object.__setattr__(self, "_key_cache", cache)
        return cache

    def arrays(self) -> TreeArrays:
        """The arrays of the tree-form kernels, as their one argument (built once, then shared)."""
        bundle = self.__dict__.get("_arrays")
        if bundle is None:
            bundle = TreeArrays(self.kind, self.player, self.parent, self.first_child, self.num_children,
                                self.chance_prob, self.infoset, self.utility, self.info_player, self.info_offset,
                                self.level_offsets)
            object.__setattr__(self, "_arrays", bundle)
        return bundle


def compile_game(game: Game, max_nodes: int = 50_000_000) -> CompiledGame:
    """Walk ``game`` once breadth-first and return its :class:`CompiledGame`.

    The tree-form solvers need a two-player zero-sum game in tree form: any other game (its
    :class:`~pokerlab.games.base.GameType` says so) raises :class:`~pokerlab.errors.UnsupportedGameError`.
    Validates what the solvers rely on: chance probabilities are positive and sum to 1, every state of an
    information set has the same player, the same actions and the same depth. Raises
    :class:`InvalidGameError` otherwise, or when the tree has more than ``max_nodes`` histories.

    >>> from pokerlab.games import kuhn
    >>> compile_game(kuhn()).sizes.infosets
    12
    """
    require_form(game.game_type, TREE_FORM, game.name)
    require_two_player_zero_sum(game.game_type, game.name, "the tree-form solvers (CFR family, best response)")
    root = game.initial_state()
    states: list[Any] = [root]
    kinds: list[int] = []
    players: list[int] = []
    parents: list[int] = [-1]
    first_child: list[int] = []
    num_children: list[int] = []
    chance_prob: list[float] = [1.0]
    infosets: list[int] = []
    utilities: list[float] = []
    depths: list[int] = [0]
    key_index: dict[str, int] = {}
    info_player: list[int] = []
    info_actions: list[tuple[str, ...]] = []
    info_depth: list[int] = []
    info_states: list[Any] = []

    queue: deque[int] = deque([0])
    while queue:
        n = queue.popleft()
        state = states[n]
        states[n] = None  # free memory as we go; the infoset representatives are kept separately
        who = game.current_player(state)
        start = len(parents)
        if who == TERMINAL:
            kinds.append(KIND_TERMINAL)
            players.append(-1)
            infosets.append(-1)
            utilities.append(float(game.utility(state)))
            first_child.append(start)
            num_children.append(0)
            continue
        utilities.append(0.0)
        if who == CHANCE:
            outcomes = checked_chance_outcomes(game.chance_outcomes(state), game.name, f"node {n}")
            kinds.append(KIND_CHANCE)
            players.append(-1)
            infosets.append(-1)
            children = [(game.apply(state, outcome), float(p)) for outcome, p in outcomes]
        elif who in (0, 1):
            actions = list(game.legal_actions(state))
            if not actions:
                raise InvalidGameError(f"{game.name}: decision node {n} has no legal action")
            key = game.infoset_key(state)
            labels = tuple(game.action_label(state, a) for a in actions)
            index = key_index.get(key)
            if index is None:
                index = len(info_player)
                key_index[key] = index
                info_player.append(who)
                info_actions.append(labels)
                info_depth.append(depths[n])
                info_states.append(state)
            elif info_player[index] != who or info_actions[index] != labels or info_depth[index] != depths[n]:
                raise InvalidGameError(f"{game.name}: information set {key!r} mixes states with different players, "
                                       "actions or depths")
            kinds.append(KIND_DECISION)
            players.append(who)
            infosets.append(index)
            children = [(game.apply(state, a), 1.0) for a in actions]
        else:
            raise InvalidGameError(f"{game.name}: current_player returned {who!r}")
        first_child.append(start)
        num_children.append(len(children))
        for child, p in children:
            queue.append(len(states))
            states.append(child)
            parents.append(n)
            chance_prob.append(p)
            depths.append(depths[n] + 1)
        if len(states) > max_nodes:
            raise InvalidGameError(f"{game.name}: more than {max_nodes} histories; too large to compile")

    total_nodes = len(kinds)
    depth_arr = np.asarray(depths, dtype=np.int32)
    max_depth = int(depth_arr.max())
    # BFS numbering makes each depth a contiguous block; level_offsets[d] is its first node.
    level_offsets = np.searchsorted(depth_arr, np.arange(max_depth + 2)).astype(np.int64)
    counts = np.asarray([len(a) for a in info_actions], dtype=np.int64)
    info_offset = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=info_offset[1:])
    info_player_arr = np.asarray(info_player, dtype=np.int64)
    kind_arr = np.asarray(kinds, dtype=np.int64)
    sizes = GameSizes(
        histories=total_nodes,
        terminals=int(np.sum(kind_arr == KIND_TERMINAL)),
        chance_nodes=int(np.sum(kind_arr == KIND_CHANCE)),
        decision_nodes=int(np.sum(kind_arr == KIND_DECISION)),
        infosets=len(info_player),
        infosets_per_player=(int(np.sum(info_player_arr == 0)), int(np.sum(info_player_arr == 1))),
        flat_actions=int(info_offset[-1]),
        depth=max_depth,
    )
    return CompiledGame(
        name=game.name,
        spec=game.spec(),
        kind=kind_arr,
        player=np.asarray(players, dtype=np.int64),
        parent=np.asarray(parents, dtype=np.int64),
        first_child=np.asarray(first_child, dtype=np.int64),
        num_children=np.asarray(num_children, dtype=np.int64),
        chance_prob=np.asarray(chance_prob, dtype=np.float64),
        infoset=np.asarray(infosets, dtype=np.int64),
        utility=np.asarray(utilities, dtype=np.float64),
        level_offsets=level_offsets,
        info_player=info_player_arr,
        info_offset=info_offset,
        infoset_keys=tuple(key_index),
        action_labels=tuple(info_actions),
        sizes=sizes,
        source=game,
        infoset_states=tuple(info_states),
    )


def freeze_arrays(holder: object) -> None:
    """Make every numpy array attribute of ``holder`` read-only: cached trees are shared by every caller."""
    for value in vars(holder).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
