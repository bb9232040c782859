"""The result of a postflop solve: summaries at the root and at any node of the tree, per hand and per class,
the line in plain words; saved and loaded through :mod:`pokerlab.solvers.archive`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBOS, NUMBER_OF_COMBOS, combo_index
from pokerlab.cards.encoding import format_card, parse_card, parse_cards
from pokerlab.cards.ranges import Range
from pokerlab.errors import InvalidArgumentError
from pokerlab.games.postflop.bettree import STREETS
from pokerlab.games.postflop.game import SWAPS, PostflopGame, _swap_card, showdown_tables
from pokerlab.games.postflop.kernels import (
    AVERAGE,
    CHANCE_NODE,
    DECISION_NODE,
    Discount,
    HandArrays,
    showdown_shares,
    tree_values,
)
from pokerlab.postflop.lock import ResolvedLocks, as_locks, resolve_locks
from pokerlab.provenance import sources_digest
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.postflop_cfr import strategy_weight

FORMAT = "pokerlab-postflop"
FORMAT_VERSION = 2
PLAYERS = ("OOP", "IP")
SOLVER_SOURCES = ("cards", "games/postflop", "solvers/postflop_cfr.py", "postflop/lock.py", "postflop/solve.py")
"""The code a solve's arrays come from: a saved solve names its digest (``code``), and a checkpoint made by
other code is not resumed (its iterates would not continue those of one uninterrupted solve)."""


@cache
def solver_code() -> str:
    """The digest of :data:`SOLVER_SOURCES` (16 hex digits), as this process runs them."""
    return sources_digest(SOLVER_SOURCES)


@dataclass(frozen=True)
class NodeView:
    """One node of a solved spot, seen by the player to act (``player`` 0 OOP, 1 IP; at a chance or terminal
    node the view of OOP). ``hands`` are that player's combos that can reach the node, ``strategy`` their
    action probabilities ``(hands, actions)``, ``ev`` each hand's expected chips (its share of the final pot
    less what it still puts in), ``equity`` its share of the pot at a showdown against the opponent's range at
    the node, ``reach`` the weight of each hand at the node and ``mass`` the opponent's weight it can face
    there (no shared card): a hand is dealt and reaches the node in proportion to ``reach * mass``, the weight
    of every aggregate (``frequencies``, the node's EV and equity, the grids). EV and equity are NaN where
    the opponent cannot be at the node. ``locked``: which hands play a locked mix here (a locked solve)."""

    line: tuple[str, ...]
    description: str
    kind: str
    player: int
    actions: tuple[str, ...]
    hands: tuple[str, ...]
    strategy: np.ndarray
    ev: np.ndarray
    equity: np.ndarray
    reach: np.ndarray
    mass: np.ndarray
    pot: float
    locked: np.ndarray | None = None

    @property
    def weight(self) -> np.ndarray:
        """How likely each hand is to be dealt and reach the node (relative)."""
        weight: np.ndarray = self.reach * self.mass
        return weight

    def _mean(self, values: np.ndarray) -> float | None:
        w = self.weight
        ok = np.isfinite(values) & (w > 0)
        return float(w[ok] @ values[ok] / w[ok].sum()) if ok.any() else None

    @property
    def realisation(self) -> np.ndarray:
        """EV realisation per hand: EV over (equity times the pot at the node); NaN where undefined."""
        with np.errstate(invalid="ignore", divide="ignore"):
            share = self.equity * self.pot
            out: np.ndarray = np.where(share > 0, self.ev / np.where(share > 0, share, 1.0), np.nan)
        return out

    @property
    def frequencies(self) -> dict[str, float]:
        total = float(self.weight.sum())
        if not self.actions or total <= 0:
            return {}
        mix = self.weight @ self.strategy
        mix = mix / mix.sum()  # the rows sum to 1: a pure strategy gives exactly 1 and 0 (not 1 + 2e-16)
        return {a: float(f) for a, f in zip(self.actions, mix, strict=True)}

    def hand(self, text: str) -> dict[str, Any]:
        """One hand's strategy, EV and equity (``AsKs``; :class:`InvalidArgumentError` if not at the node)."""
        cards = parse_cards(text)
        if len(cards) != 2:
            raise InvalidArgumentError(f"--hand needs two cards, got {text!r}")
        name = "".join(format_card(c) for c in sorted(cards, reverse=True))
        if name not in self.hands:
            raise InvalidArgumentError(f"{PLAYERS[self.player]} cannot hold {text} at this node")
        i = self.hands.index(name)
        return {"hand": name, "strategy": dict(zip(self.actions, self.strategy[i].tolist(), strict=True)),
                "ev": _finite(self.ev[i]), "equity": _finite(self.equity[i]),
                "locked": self.locked is not None and bool(self.locked[i])}

    def grid(self, action: str | None = None) -> np.ndarray:
        """13x13 per-class frequency of ``action`` (default the first) weighted by reach, NaN where the class
        cannot be at the node (A first; pairs on the diagonal, suited above)."""
        a = 0 if action is None else self.actions.index(action)
        top = np.zeros((13, 13))
        bottom = np.zeros((13, 13))
        for i, name in enumerate(self.hands):
            cards = parse_cards(name)
            row, column = divmod(int(CLASS_OF_COMBO[combo_index(cards[0], cards[1])]), 13)
            top[row, column] += self.weight[i] * self.strategy[i, a]
            bottom[row, column] += self.weight[i]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)

    def range(self, action: str | None = None) -> Range:
        """The acting player's range here (each combo's weight: its weight in the dealt range times its own
        action frequencies on the way), or the part of it that takes ``action`` (times that frequency);
        ``Range.export`` writes it as players paste ranges (PioSOLVER, GTO+, per combo)."""
        weights = self.reach
        if action is not None:
            if action not in self.actions:
                raise InvalidArgumentError(f"no action {action!r} here: the actions are {', '.join(self.actions)}"
                                           if self.actions else f"no action {action!r}: nobody acts at this node")
            weights = self.reach * self.strategy[:, self.actions.index(action)]
        out = np.zeros(NUMBER_OF_COMBOS)
        for name, weight in zip(self.hands, weights, strict=True):
            first, second = parse_cards(name)
            out[combo_index(first, second)] = weight
        return Range(out)

    def to_dict(self, hands: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"line": list(self.line), "description": self.description, "kind": self.kind,
                               "player": PLAYERS[self.player], "actions": list(self.actions),
                               "frequencies": self.frequencies, "pot": self.pot,
                               "ev": self._mean(self.ev), "equity": self._mean(self.equity),
                               "locked_hands": 0 if self.locked is None else int(self.locked.sum())}
        if hands:
            out["hands"] = {h: {"strategy": self.strategy[i].tolist(), "ev": _finite(self.ev[i]),
                                "equity": _finite(self.equity[i]), "reach": float(self.reach[i]),
                                "locked": self.locked is not None and bool(self.locked[i])}
                            for i, h in enumerate(self.hands)}
        return out


@dataclass(frozen=True, eq=False)
class PostflopResult:
    """A solved spot: the game, the average strategy (float32 cumulative sums), the solve's iterations, its
    exact exploitability (chips and % of the starting pot), both players' EVs at the root (chips, the pot
    share included: they add up to the pot), why it stopped and how long it took: ``elapsed_s`` the solve's
    seconds less ``compile_s``, the first iteration's (where the kernels load or compile).

    A locked solve (``spec["lock"]``) has ``gains``: each player's gain in chips from a best response that
    keeps its own locks (the exploitability is their mean; a player without locks: how far its play is from
    the best response to the locked play), and ``equilibrium``: the same spot solved without locks (``ev``,
    ``exploitability``, ``iterations``), from which :attr:`gain_over_equilibrium` is read.

    A float32 solve keeps its one storage array as both ``regrets`` and ``cumulative`` (the solver's layout,
    :mod:`pokerlab.solvers.postflop_cfr`). A compressed solve (``spec["compress"]``) keeps int16 regrets and
    uint16 cumulative sums as stored, with ``scales`` (two float32 per node of the tree) for a resume; its
    strategies are the stored sums normalised. ``strategy_weight``: that of a storage built from a strategy (None:
    the solve's, from its iterations)."""

    game: PostflopGame
    spec: dict[str, Any]
    cumulative: np.ndarray = field(repr=False)
    regrets: np.ndarray = field(repr=False)
    iterations: int
    exploitability: float
    exploitability_percent: float
    ev: tuple[float, float]
    stop_reason: str
    elapsed_s: float
    compile_s: float = 0.0
    gains: tuple[float, float] | None = None
    equilibrium: dict[str, Any] | None = None
    scales: np.ndarray | None = field(default=None, repr=False)
    strategy_weight: float | None = None

    @property
    def locks(self) -> list[str]:
        """The locks of the solve in their text form (:mod:`pokerlab.postflop.lock`); empty if none."""
        return list(self.spec.get("lock") or [])

    @cached_property
    def placed_locks(self) -> ResolvedLocks | None:
        """The locks placed on the game: locked rows by node, each lock's player, nodes and hands; None if none."""
        return resolve_locks(self.game, as_locks(self.locks)) if self.locks else None

    @property
    def lock_rows(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The locked rows by node (the actor's hands, their mixes ``(actions, hands)``); empty if none."""
        return {} if self.placed_locks is None else self.placed_locks.rows

    def with_equilibrium(self, baseline: PostflopResult | dict[str, Any]) -> PostflopResult:
        """This locked solve with the EVs of the spot without locks: a solve of it or its ``equilibrium``."""
        if isinstance(baseline, PostflopResult):
            baseline = {"ev": list(baseline.ev), "exploitability": baseline.exploitability,
                        "exploitability_percent": baseline.exploitability_percent,
                        "iterations": baseline.iterations}
        return replace(self, equilibrium=dict(baseline))

    @property
    def gain_over_equilibrium(self) -> dict[str, float] | None:
        """Each player's EV in this locked solve less its EV at the spot's equilibrium without locks (chips), and
        ``within``: the bound on the error of both from the two solves' exploitabilities (each EV is within
        twice its solve's exploitability of the exact value, without rake); None without a baseline."""
        if self.equilibrium is None:
            return None
        ev = self.equilibrium["ev"]
        return {"OOP": self.ev[0] - float(ev[0]), "IP": self.ev[1] - float(ev[1]),
                "within": 2 * (self.exploitability + float(self.equilibrium["exploitability"]))}

    def node(self, *line: str) -> NodeView:
        """The node after ``line``: actions as labelled (``check``, ``bet 150``) or as sizes (``bet 75%``, a
        pot fraction of the pot before the bet; ``all-in``), cards at chance nodes (``Qc``).

        A card merged with its suit twin is shown through the twin, hands relabelled."""
        game = self.game
        tree = game.tree
        node = 0
        suit_map = [0, 1, 2, 3]
        words: list[str] = []
        for step in (s.strip() for part in line for s in part.split(",") if s.strip()):
            kind = int(tree.kind[node])
            first = int(tree.first_child[node])
            if kind == CHANCE_NODE:
                try:
                    card = parse_card(step)
                except ValueError:
                    raise InvalidArgumentError(f"{step!r}: a card is dealt here ({', '.join(game.labels[node])} "
                                               "and their suit twins)") from None
                mapped = 4 * (card >> 2) + suit_map[card & 3]
                for i in range(int(tree.num_children[node])):
                    child = first + i
                    rep = int(tree.card[child])
                    twins = tree.iso_swaps[tree.iso_start[child]:tree.iso_start[child] + tree.iso_count[child]]
                    if rep == mapped:
                        break
                    hit = [s for s in twins.tolist() if _swap_card(mapped, *SWAPS[s]) == rep]
                    if hit:
                        s1, s2 = SWAPS[hit[0]]
                        suit_map = [s2 if x == s1 else s1 if x == s2 else x for x in suit_map]
                        break
                else:
                    raise InvalidArgumentError(f"{step!r} cannot be dealt here (it is on the board)")
                node = child
                words.append(f"{STREETS[len(game.board) - 3 + len(game.dealt[node])]} {format_card(card)}")
                continue
            if kind != DECISION_NODE:
                raise InvalidArgumentError(f"the line ends at a terminal before {step!r}")
            a = game.action_index(node, step)
            who = PLAYERS[int(tree.player[node])]
            words.append(f"{who} {game.labels[node][a]}")
            node = first + a
        return self._view(node, tuple(words), suit_map)

    def _reaches(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        game = self.game
        tree = game.tree
        path = []
        n = node
        while n > 0:
            path.append(n)
            n = int(game.parent[n])
        reach = [game.initial_weights(p).copy() for p in range(2)]
        up = 0
        for n in reversed(path):
            if tree.kind[up] == DECISION_NODE:
                actor = int(tree.player[up])
                a = n - int(tree.first_child[up])
                reach[actor] *= self._average(up, reach[actor])[a]
            elif tree.kind[up] == CHANCE_NODE:
                card = int(tree.card[n])
                for p in range(2):
                    hit = (game.hands.cards[p, :game.hands.sizes[p]] == card).any(axis=1)
                    reach[p][hit] = 0.0
            up = n
        return reach[0], reach[1]

    def _average(self, node: int, reach: np.ndarray) -> np.ndarray:
        """The average strategy at decision ``node`` given its actor's ``reach`` there, ``(actions, hands)``: a
        locked row is its mix (the stored rows play it to float32 rounding)."""
        block = self.game.average_block(self.cumulative, node, reach, self.weight)
        if node in self.lock_rows:
            hands, mix = self.lock_rows[node]
            block[:, hands] = mix / mix.sum(axis=0)
        return block

    @property
    def weight(self) -> float:
        """What the average strategy's reads divide the float32 cumulative strategy by
        (:func:`~pokerlab.solvers.postflop_cfr.strategy_weight` of the iterations, unless the solve named one)."""
        return strategy_weight(self.iterations) if self.strategy_weight is None else self.strategy_weight

    def _view(self, node: int, words: tuple[str, ...], suit_map: list[int]) -> NodeView:
        game = self.game
        tree = game.tree
        kind = int(tree.kind[node])
        player = int(tree.player[node]) if kind == DECISION_NODE else 0
        reach = self._reaches(node)
        other = 1 - player
        # the walk's opponent reach carries the chance factors above the node, its values too
        chance = game.chance_scale(len(game.dealt[node]))
        values = tree_values(tree, game.hands, self.regrets, self.cumulative, node, player, reach[player],
                             reach[other] * chance, AVERAGE, Discount(1.0, 1.0, 1.0, self.weight), game.half_pot,
                             game.chance_index, np.zeros((0, 1))) / chance
        opp_mass = _compatible_mass(game.hands, player, reach[other], game.dealt[node])
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = np.where(opp_mass > 0, values / np.where(opp_mass > 0, opp_mass, 1.0), np.nan)
        ev = ev + game.half_pot + float(tree.amount[node])
        equity = _equity(game, player, reach[other], game.dealt[node])
        strategy = (self._average(node, reach[player]).T if kind == DECISION_NODE
                    else np.ones((game.num_private_hands(player), 0)))
        keep = np.flatnonzero(reach[player] > 0)
        # relabel through the suit twins of merged cards (the hands of the node the line named)
        inverse = [suit_map.index(s) for s in range(4)]
        names = []
        for k in game.combos(player)[keep]:
            c1, c2 = (4 * (int(c) >> 2) + inverse[int(c) & 3] for c in COMBOS[k])
            names.append("".join(format_card(c) for c in sorted((c1, c2), reverse=True)))
        actions = game.labels[node] if kind == DECISION_NODE else ()
        pot = game.config.pot + 2 * float(tree.amount[node])
        description = ", ".join(words) if words else "the root"
        kinds = {0: "fold", 1: "showdown", 2: "decision", 3: "chance"}
        if kind == DECISION_NODE:
            description += f": {PLAYERS[player]} to act, pot {pot:g}"
        locked = None
        if self.locks:
            locked = np.zeros(game.num_private_hands(player), dtype=bool)
            if node in self.lock_rows:
                locked[self.lock_rows[node][0]] = True
            locked = locked[keep]
        return NodeView(tuple(words), description, kinds[kind], player, actions, tuple(names), strategy[keep],
                        ev[keep], equity[keep], reach[player][keep], opp_mass[keep], pot, locked)

    @property
    def root(self) -> NodeView:
        return self.node()

    def to_dict(self) -> dict[str, Any]:
        out = {"spot": self.spec, "iterations": self.iterations, "exploitability": self.exploitability,
               "exploitability_percent": self.exploitability_percent, "ev": {"OOP": self.ev[0], "IP": self.ev[1]},
               "stop_reason": self.stop_reason, "elapsed_s": self.elapsed_s, "compile_s": self.compile_s,
               "decision_nodes": self.game.decision_count, "memory_bytes": self.game.memory_bytes,
               "root": self.root.to_dict()}
        if self.locks:
            out["lock"] = {"locks": self.locks,
                           "placed": [] if self.placed_locks is None else list(self.placed_locks.summary),
                           "gains": None if self.gains is None else dict(zip(PLAYERS, self.gains, strict=True)),
                           "equilibrium": self.equilibrium, "gain_over_equilibrium": self.gain_over_equilibrium}
        return out

    def save(self, path: str | Path) -> Path:
        """Write the solve (spot, strategy, regrets: a later solve resumes it) as a versioned ``.npz``, atomically,
        with the digest of the solver code that made it (``code``)."""
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "code": solver_code(), "spot": self.spec,
                "iterations": self.iterations, "exploitability": self.exploitability,
                "exploitability_percent": self.exploitability_percent, "ev": list(self.ev),
                "stop_reason": self.stop_reason, "elapsed_s": self.elapsed_s,
                "gains": None if self.gains is None else list(self.gains), "equilibrium": self.equilibrium}
        if self.strategy_weight is not None:
            meta["strategy_weight"] = self.strategy_weight
        arrays = {"storage": self.regrets}
        if self.scales is not None:  # compressed storage: int16 / uint16 arrays and their scales
            arrays = {"cumulative": self.cumulative, "regrets": self.regrets, "scales": self.scales}
        return write_archive(path, meta, arrays)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _compatible_mass(hands: HandArrays, p: int, opp: np.ndarray, dealt: tuple[int, ...]) -> np.ndarray:
    """The opponent's reach that each of ``p``'s hands can face (no shared card)."""
    o = 1 - p
    mine = hands.cards[p, :hands.sizes[p]]
    theirs = hands.cards[o, :hands.sizes[o]]
    clash = ((mine[:, None, :, None] == theirs[None, :, None, :]).any(axis=(2, 3)))
    mass: np.ndarray = (~clash * opp[None, :hands.sizes[o]]).sum(axis=1)
    return mass


def _equity(game: PostflopGame, p: int, opp: np.ndarray, dealt: tuple[int, ...]) -> np.ndarray:
    """Each hand's showdown share against ``opp`` over every runout after ``dealt`` (equal odds per runout)."""
    board = game.board + dealt
    left = [c for c in range(52) if c not in board]
    runouts = [()] if len(board) == 5 else ([(c,) for c in left] if len(board) == 4 else
                                            [(a, b) for i, a in enumerate(left) for b in left[i + 1:]])
    share = np.zeros(game.num_private_hands(p))
    whole = np.zeros_like(share)
    base = game.hands
    padded = np.zeros(base.cards.shape[1])
    padded[:base.sizes[1 - p]] = opp
    order, strength, sorted_cards, valid = showdown_tables(base.cards, base.sizes, [board + r for r in runouts])
    tables = base._replace(order=order, strength=strength, sorted_cards=sorted_cards, valid=valid)
    for index in range(len(runouts)):
        s, w = showdown_shares(tables, index, p, padded)
        share += s
        whole += w
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(whole > 0, share / np.where(whole > 0, whole, 1.0), np.nan)


def load_meta(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and arrays of a saved solve (:class:`~pokerlab.errors.FileFormatError` for another format
    or version)."""
    meta, arrays = read_archive(path, "pokerlab postflop solve")
    check_format(path, meta, (FORMAT,), FORMAT_VERSION, "pokerlab postflop solve")
    return meta, arrays


