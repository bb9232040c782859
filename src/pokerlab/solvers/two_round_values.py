"""One strategy of the two-round game for one effective stack (:class:`TwoRoundStrategy`, the fixed card-blind
ones) and its exact evaluation in the real (unabstracted) game: the expected value of two strategies and the
exploitability, by vectorised best responses run in interruptible chunks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import pokerlab.solvers.two_round_kernels as K
from pokerlab.errors import Interrupted, InvalidArgumentError
from pokerlab.games.base import FOLD
from pokerlab.games.compiler import freeze_arrays
from pokerlab.games.two_round import NODE_DECISION, NODE_FLOP, BettingTree, TwoRoundSpec, betting_tree
from pokerlab.progress import ProgressCallback, deferred_interrupts
from pokerlab.solvers.policy import MBB_PER_CHIP
from pokerlab.solvers.two_round_tables import two_round_tables

_TREES: dict[TwoRoundSpec, BettingTree] = {}


def tree_of(spec: TwoRoundSpec) -> BettingTree:
    """The (cached) betting tree of a spec; its arrays are read-only since every strategy of the spec shares them."""
    tree = _TREES.get(spec)
    if tree is None:
        tree = betting_tree(spec)
        freeze_arrays(tree)
        _TREES[spec] = tree
    return tree


@dataclass(frozen=True, eq=False)
class TwoRoundStrategy:
    """A behaviour strategy of one player seat-independently: ``pre[pre_row[h], a]`` in round 1 and
    ``post[post_row[f, h], a]`` in round 2, over the flat actions of ``tree`` (one stack)."""

    spec: TwoRoundSpec
    name: str
    pre: np.ndarray
    post: np.ndarray
    pre_row: np.ndarray
    post_row: np.ndarray
    tree: BettingTree = field(repr=False)

    def rows(self) -> K.RowStrategy:
        """The strategy as the kernels take it."""
        return K.RowStrategy(self.pre, self.post, self.pre_row, self.post_row)

    def probabilities(self, node: int, hand: int, flop: int) -> np.ndarray:
        """Probabilities of the children of decision ``node`` for local hand id ``hand`` (flop id in round 2)."""
        t = self.tree
        off, na = int(t.act_offset[node]), int(t.num_children[node])
        if t.round[node] == 0:
            return self.pre[self.pre_row[hand], off:off + na]
        return self.post[self.post_row[flop, hand], off:off + na]


def fixed_strategy(spec: TwoRoundSpec, kind: str) -> TwoRoundStrategy:
    """A card-blind bot: ``uniform`` (every legal action equally likely), ``fullbet`` (always the most chips
    allowed, so it calls or raises, never folds) or ``checkcall`` (always check or call).

    >>> fixed_strategy(TwoRoundSpec(stack=1), "fullbet").pre[0, :4].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    tree = tree_of(spec)
    tables = two_round_tables(spec)
    probs = np.zeros((1, tree.num_flat_actions))
    for n in np.flatnonzero(tree.kind == NODE_DECISION):
        off, na = int(tree.act_offset[n]), int(tree.num_children[n])
        acts = [int(tree.action[c]) for c in tree.children(int(n))]
        if kind == "uniform":
            probs[0, off:off + na] = 1.0 / na
        elif kind == "fullbet":
            probs[0, off + int(np.argmax(acts))] = 1.0
        elif kind == "checkcall":
            calls = [i for i, a in enumerate(acts) if a != FOLD]
            probs[0, off + calls[0]] = 1.0
        else:
            raise InvalidArgumentError(f"unknown fixed bot {kind!r} (expected uniform, fullbet or checkcall)")
    zeros_h = np.zeros(tables.n_hands, dtype=np.int64)
    zeros_fh = np.zeros((tables.n_flops, tables.n_hands), dtype=np.int64)
    return TwoRoundStrategy(spec, kind, probs, probs, zeros_h, zeros_fh, tree)


#: Wall time aimed at per chunk of the exact evaluation: Ctrl-C waits at most about this long (seconds).
CHUNK_SECONDS = 0.1


class _ProfileRun:
    """Exact profile evaluations run in chunks of ``(flop node, flop)`` items from Python, so that Ctrl-C lands
    between chunks (each held whole by :func:`deferred_interrupts`) and progress can be reported. The numbers
    are the same bit for bit whatever the chunks (the kernels run the same operations in the same order).

    Work is counted in node-boards (one round-2 node of the betting tree evaluated on one flop): an item's cost
    is its flop node's subtree size, which differs by orders of magnitude between betting lines, so chunks are
    sized and progress (rate, ETA) reported in that unit."""

    def __init__(self, spec: TwoRoundSpec, evaluations: int, progress: ProgressCallback | None,
                 chunk: int | None) -> None:
        self.spec, self.tree, self.tables = spec, tree_of(spec), two_round_tables(spec)
        arrays = self.tree.arrays()
        self.flop_nodes = np.flatnonzero(arrays.kind == NODE_FLOP).astype(np.int64)
        self.n_flops = self.tables.n_flops
        self.items = len(self.flop_nodes) * self.n_flops
        self.weights = [max(1, int(arrays.subtree_end[fn] - fn - 1)) for fn in self.flop_nodes]  # per item of each node
        self.total = sum(self.weights) * self.n_flops * evaluations
        self.done = 0
        self.progress, self.chunk = progress, chunk

    def _stop(self, start: int, budget: float) -> int:
        """The end of a chunk from item ``start`` holding about ``budget`` node-boards (at least one item)."""
        k = start
        while k < self.items:
            j = k // self.n_flops
            take = min((j + 1) * self.n_flops - k, int(budget // self.weights[j]))
            k += take
            budget -= take * self.weights[j]
            if take == 0 or budget < 1:
                break
        return max(k, start + 1)

    def _work(self, start: int, stop: int) -> int:
        """Node-boards of items ``start .. stop - 1``."""
        n = self.n_flops
        return sum(max(0, min(stop, (j + 1) * n) - max(start, j * n)) * w for j, w in enumerate(self.weights))

    def value(self, responder: int, best: bool, opp: TwoRoundStrategy, me: TwoRoundStrategy) -> float:
        """The responder's exact expected payoff (chips per game): a best response or its own strategy."""
        arrays, deals, ante = self.tree.arrays(), self.tables.deals(), float(self.spec.ante)
        n_nodes, n_hands = arrays.kind.shape[0], self.tables.n_hands
        work = K.ProfileWork(np.zeros((n_nodes, n_hands)), np.zeros((n_nodes, n_hands)), self.flop_nodes,
                             np.zeros(n_hands), np.zeros(n_hands), np.zeros(n_hands), np.zeros(n_hands))
        opp_rows, me_rows = opp.rows(), me.rows()
        K.profile_round_one_reach(arrays, deals, responder, opp_rows, work)
        start, budget = 0, 1.0  # a first tiny chunk (it may include compiling), then about CHUNK_SECONDS each
        while start < self.items:
            stop = min(start + self.chunk, self.items) if self.chunk else self._stop(start, budget)
            began = time.perf_counter()
            with deferred_interrupts():  # a chunk runs whole: Ctrl-C lands between chunks
                K.profile_flop_items(arrays, deals, ante, responder, best, opp_rows, me_rows, work, start, stop)
            spent = time.perf_counter() - began
            done = self._work(start, stop)
            self.done += done
            start = stop
            budget = min(4 * budget, done * CHUNK_SECONDS / spent) if spent > 0 else 4 * budget
            if self.progress is not None:
                self.progress(self.done, self.total)
        return float(K.profile_round_one_value(arrays, deals, ante, responder, best, me_rows, work))


def _profile(spec: TwoRoundSpec, responder: int, best: bool, opp: TwoRoundStrategy,
             me: TwoRoundStrategy | None) -> float:
    return _ProfileRun(spec, 1, None, None).value(responder, best, opp, me or opp)


def expected_value(a: TwoRoundStrategy, b: TwoRoundStrategy) -> float:
    """Exact expected chips per hand won by ``a`` against ``b``, averaged over both seats (no sampling).

    >>> u = fixed_strategy(TwoRoundSpec(ranks=4, suits=2, stack=1), "uniform"); expected_value(u, u)
    0.0
    """
    if a.spec != b.spec:
        raise InvalidArgumentError("the two strategies play different games")
    seat0 = _profile(a.spec, 0, False, b, a)
    seat1 = _profile(a.spec, 1, False, b, a)
    return 0.5 * (seat0 + seat1)


# Not pokerlab.solvers.Exploitability: that one reports a profile's nash_conv, game value and per-player best
# responses of a compiled tree; here the strategy plays both seats of a game too large to compile, so the result
# is the two seats' best-response values (and the time the vectorised best response took).
@dataclass(frozen=True)
class TwoRoundExploitability:
    """Exact best-response values (chips per hand) against a strategy in the real (unabstracted) game.

    ``best_response_values[i]``: what a best response in seat ``i`` wins against the strategy in the other
    seat. ``exploitability`` = their mean (chips per hand; 0 at a Nash equilibrium since the game is symmetric
    over seats), ``mbb_per_game`` = 1000 x that."""

    best_response_values: tuple[float, float]
    exploitability: float
    mbb_per_game: float
    elapsed_s: float

    def to_dict(self) -> dict[str, Any]:
        return {"best_response_values": list(self.best_response_values), "exploitability": self.exploitability,
                "mbb_per_game": self.mbb_per_game, "elapsed_s": self.elapsed_s}


def exploitability(strategy: TwoRoundStrategy, progress: ProgressCallback | None = None,
                   chunk: int | None = None) -> TwoRoundExploitability:
    """Exact exploitability of a strategy played in both seats, in the real game.

    This is (BR0 + BR1) / 2 where BRi is the best response value in seat i against the strategy in seat
    1 - i, the same quantity as ``pokerlab.solvers.exploitability`` (nash_conv / 2) for a symmetric profile.

    The two best responses run in chunks of ``(flop node, flop)`` items (``chunk`` items each; default: sized
    to about :data:`CHUNK_SECONDS` of work), the same numbers bit for bit whatever the chunks; ``progress(done,
    total)`` counts node-boards (one round-2 node of the betting tree evaluated on one flop). Ctrl-C between
    chunks raises :class:`~pokerlab.errors.Interrupted`.

    >>> e = exploitability(fixed_strategy(TwoRoundSpec(ranks=4, suits=2, stack=1), "checkcall"))
    >>> e.exploitability > 0
    True
    """
    start = time.perf_counter()
    run = _ProfileRun(strategy.spec, 2, progress, chunk)
    try:
        br0 = run.value(0, True, strategy, strategy)
        br1 = run.value(1, True, strategy, strategy)
    except KeyboardInterrupt:  # between two chunks: nothing half done, but no value either
        raise Interrupted(f"after {run.done:,} of {run.total:,} node-boards of the two best responses "
                          f"({time.perf_counter() - start:.1f} s)") from None
    e = 0.5 * (br0 + br1)
    return TwoRoundExploitability((br0, br1), e, e * MBB_PER_CHIP, time.perf_counter() - start)
