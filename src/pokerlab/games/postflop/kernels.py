"""Compiled kernels of the postflop game: showdown and fold values linear in the hands, and the recursive
discounted-CFR / best-response / evaluation pass over the materialised tree.

Values are counterfactual: ``v[h]`` sums, over the opponent's hands ``h'`` that share no card with ``h`` (and
with the board), the opponent's reach of ``h'`` times the chance factors on the way times ``h``'s payoff in
chips (net of the starting pot share). A showdown is one sweep over both players' hands sorted by strength,
card removal by per-card sums of the opponent's reach; a fold is the opponent's total reach less its per-card
sums plus the identical combo (subtracted twice). Regrets and cumulative strategies are stored as float32, or
in 16 bits with a scale per node (:func:`scaled_tree_values`); every sum is float64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba import typeof as numba_type
from numba.core.dispatcher import Dispatcher
from numba.core.types import WrapperAddressProtocol
from numba.core.typing.templates import Signature
from numba.extending import intrinsic, overload
from numba.np import arrayobj

FOLD_NODE, SHOWDOWN_NODE, DECISION_NODE, CHANCE_NODE = 0, 1, 2, 3
UPDATE, BEST, AVERAGE = 0, 1, 2
"""Modes of :func:`tree_values`: a DCFR update of the traverser, its best response to the opponent's average
strategy, or both players on their average strategies."""


class TreeArrays(NamedTuple):
    """The materialised tree, one entry per node (children of a node are contiguous): ``kind``, ``player``
    (actor at a decision, folder at a fold), ``first_child``, ``num_children``, ``amount`` (chips each player
    put in beyond the starting pot; the folder's at a fold), ``board`` (showdown table of a showdown),
    ``card`` (card dealt on the edge into a chance child), ``offset`` (first storage index of a decision's
    block: :meth:`~pokerlab.games.postflop.game.PostflopGame.block_rows`), ``iso_start``/``iso_count`` (suit
    swaps whose cards the chance child stands for, in ``iso_swaps``), ``factor`` (a chance node's 1 / cards a
    deal of both hands leaves; a decision node's product of the chance factors above it), ``rake`` (chips raked at
    a fold or showdown: the winner pays it, each player half of it on a tie; the same array as ``factor``, whose
    terminals' entries it is). Narrow types where the values allow: ``int8`` kind, player, number of children,
    card and swap count, ``int32`` first child, board and swaps' start, ``float32`` amounts (whole chips);
    ``int64`` offset and swaps, ``float64`` factors and rake (with the game's chance index, labels' index and
    dealt cards, 47 bytes a node instead of 112: 20 MiB for a flop's 443,734 nodes)."""

    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    amount: np.ndarray
    board: np.ndarray
    card: np.ndarray
    offset: np.ndarray
    iso_start: np.ndarray
    iso_count: np.ndarray
    iso_swaps: np.ndarray
    factor: np.ndarray
    rake: np.ndarray


class HandArrays(NamedTuple):
    """Both players' hands (padded to the larger count): ``cards`` (2, H, 2), ``sizes`` (2,: hands per
    player), ``weights`` (2, H), ``same`` (2, H: index of the identical combo in the other player's list, -1), ``perm``
    (swaps, 2, H: a hand's index after a suit swap), ``order``/``strength``/``sorted_cards`` (boards, 2, H:
    hands sorted by strength on each showdown board, blocked hands left out, their cards in that order),
    ``valid`` (boards, 2: how many) and ``misses`` (2, 52, H: whether a hand is one of the player's and holds
    neither card: a chance branch's card removal, row by row)."""

    cards: np.ndarray
    sizes: np.ndarray
    weights: np.ndarray
    same: np.ndarray
    perm: np.ndarray
    order: np.ndarray
    strength: np.ndarray
    sorted_cards: np.ndarray
    valid: np.ndarray
    misses: np.ndarray


class Discount(NamedTuple):
    """DCFR factors of one iteration: positive regrets times ``alpha``, negative times ``beta``, the
    cumulative strategy times ``gamma``; ``weight``: what the walks that read the average strategy divide the
    float32 cumulative strategy by (the solver's :func:`~pokerlab.solvers.postflop_cfr.strategy_weight`: the
    discounted count of the iterations summed, see :func:`_derived_into`)."""

    alpha: float
    beta: float
    gamma: float
    weight: float = 1.0


_make_array = cast(Callable[..., Any], arrayobj.make_array)  # numba's own helpers, untyped
_populate_array = cast(Callable[..., None], arrayobj.populate_array)


@intrinsic
def _unowned_view(typingctx: object, array: types.Type) -> tuple[Signature, Callable[..., ir.Value]]:  # noqa: ARG001
    """A view of ``array`` (same data, shape, strides) that holds no reference to its memory: its meminfo is null,
    so numba's reference counting of it and of every slice of it is a test of a null pointer instead of an atomic
    increment and decrement. A walk makes several slices per node and passes arrays to calls that are not
    inlined, and those atomics were 15-20% of an iteration on the river. Only for arrays kept alive by the
    caller for as long as the view is used (never returned, never stored)."""

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]) -> ir.Value:
        source = _make_array(signature.args[0])(context, builder, args[0])
        view = _make_array(signature.return_type)(context, builder)
        _populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=None)
        return view._getvalue()

    return array(array), codegen


_A = TypeVar("_A", bound=np.ndarray)
_unowned = cast(Callable[[_A], _A], _unowned_view)  # the compiled call's type, for the type checker


@intrinsic
def _data_pointer(typingctx: object, array: types.Array) -> tuple[Signature, Callable[..., ir.Value]]:  # noqa: ARG001
    """The address of ``array``'s first element as a typed pointer (numba's ``CPointer``), which compiled code
    indexes like a 1-D array (``pointer[i]``, without the wrap of negative indices). A call passes a pointer as
    one machine word where it passes an array as seven or more (its meminfo, parent, size, item size, data,
    shape and strides): the walk's per-node cost was mostly the pushing of its arguments. Only for C-contiguous
    arrays kept alive by the caller, read at indices within their size."""

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]) -> ir.Value:
        return _make_array(signature.args[0])(context, builder, args[0]).data

    pointer: types.Type = cast(Any, types.CPointer)(array.dtype)  # untyped in numba's stubs
    return pointer(array), codegen


_pointer = cast(Callable[[_A], _A], _data_pointer)  # indexed like the array: its type, for the type checker


@intrinsic
def _magnitude_bits(typingctx: object, x: types.Type) -> tuple[Signature, Callable[..., ir.Value]]:  # noqa: ARG001
    """The bits of a float64's magnitude as a uint64 (its bits with the sign cleared). Magnitudes order as their
    bits do, so a row's largest magnitude is an integer maximum, which LLVM vectorises; a float maximum it does
    not (without fastmath, which would allow reordering the row's arithmetic too)."""

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]) -> ir.Value:
        bits = builder.bitcast(args[0], ir.IntType(64))
        return builder.and_(bits, ir.Constant(ir.IntType(64), (1 << 63) - 1))

    return types.uint64(types.float64), codegen


@intrinsic
def _float_of_bits(typingctx: object, bits: types.Type) -> tuple[Signature, Callable[..., ir.Value]]:  # noqa: ARG001
    """The float64 whose bits are ``bits`` (the inverse of :func:`_magnitude_bits` on magnitudes)."""

    def codegen(context: object, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]) -> ir.Value:
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.uint64), codegen


_magnitude = cast(Callable[[float], int], _magnitude_bits)  # the compiled calls' types, for the type checker
_from_bits = cast(Callable[[int], float], _float_of_bits)


_F = TypeVar("_F", bound=Callable[..., Any])


def _njit_without_refcounts(fastmath: bool = False) -> Callable[[_F], Dispatcher[_F]]:
    """``njit(cache=True)`` without numba's reference counting of arrays (``_nrt=False``), for the walk and
    every kernel it calls: see :func:`_walk`. Such a kernel allocates nothing and takes arrays its caller keeps
    alive."""
    return cast("Callable[[_F], Dispatcher[_F]]", cast(Any, njit)(cache=True, fastmath=fastmath, _nrt=False))


@njit(cache=True)
def fold_values(hands: HandArrays, p: int, opp: np.ndarray, payoff: float) -> np.ndarray:
    """``payoff`` times the opponent's compatible reach, for each of ``p``'s hands."""
    out = np.empty(hands.sizes[p])
    _fold_into(hands.cards, hands.sizes, hands.same, p, opp, payoff, np.zeros(52), out)
    return out


@njit(cache=True, inline="always")
def _card_sums(cards: np.ndarray, sizes: np.ndarray, o: int, opp: np.ndarray, card_sum: np.ndarray) -> float:
    """The per-card sums of ``o``'s reach ``opp`` into ``card_sum``; returns the whole reach, half their sum
    (four partial sums: no chain of dependent additions through the hands' loop)."""
    cards_o = cards[o]
    for c in range(52):
        card_sum[c] = 0.0
    for j in range(sizes[o]):
        r = opp[j]
        card_sum[np.uint64(cards_o[j, 0])] += r  # unsigned: no wrap of negative indices (see _showdown_into)
        card_sum[np.uint64(cards_o[j, 1])] += r
    t0 = 0.0
    t1 = 0.0
    t2 = 0.0
    t3 = 0.0
    for c in range(0, 52, 4):
        t0 += card_sum[c]
        t1 += card_sum[c + 1]
        t2 += card_sum[c + 2]
        t3 += card_sum[c + 3]
    return 0.5 * ((t0 + t1) + (t2 + t3))


@njit(cache=True, inline="always")
def _fold_from_sums(cards: np.ndarray, sizes: np.ndarray, same_all: np.ndarray, p: int, opp: np.ndarray,
                    total: float, card_sum: np.ndarray, payoff: float, out: np.ndarray) -> None:
    """``payoff`` times the opponent's reach compatible with each hand of ``p``, into ``out``, from the whole
    reach ``total`` and its per-card sums: the total less both cards' sums plus the identical combo."""
    mine = sizes[p]
    if total == 0.0:
        out[:mine] = 0.0
        return
    cards_p = cards[p]
    same = same_all[p]
    for h in range(mine):
        s = total - card_sum[np.uint64(cards_p[h, 0])] - card_sum[np.uint64(cards_p[h, 1])]
        k = same[h]
        if k >= 0:
            s += opp[np.uint64(k)]
        out[h] = payoff * s


@njit(cache=True, inline="always")
def _fold_into(cards: np.ndarray, sizes: np.ndarray, same: np.ndarray, p: int, opp: np.ndarray, payoff: float,
               card_sum: np.ndarray, out: np.ndarray) -> None:
    _fold_from_sums(cards, sizes, same, p, opp, _card_sums(cards, sizes, 1 - p, opp, card_sum), card_sum, payoff,
                    out)


@njit(cache=True)
def showdown_values(hands: HandArrays, board: int, p: int, opp: np.ndarray, payoff: float) -> np.ndarray:
    """``payoff`` times (compatible opponent reach beaten minus compatible reach that beats), per hand of
    ``p`` on showdown board ``board``; hands blocked by the board get 0. One sweep over the sorted hands."""
    out = np.zeros(hands.sizes[p])
    _showdown_into(hands.valid, hands.strength, hands.order, hands.sorted_cards, hands.same, board, p, opp, payoff,
                   0.0, np.zeros(52 + hands.weights.shape[1]), out)
    return out


@_njit_without_refcounts()
def _showdown_into(valid: np.ndarray, strength: np.ndarray, order: np.ndarray, sorted_cards: np.ndarray,
                   same_all: np.ndarray, board: int, p: int, opp: np.ndarray, payoff: float, whole: float,
                   work: np.ndarray, out: np.ndarray) -> float:
    """``payoff`` times (compatible reach beaten minus compatible reach that beats) plus ``whole`` times the
    whole compatible reach, into the rows of ``p``'s hands that miss the board. One sweep up the opponent's
    hands: a hand of strength ``s`` reads the compatible reach below ``s`` before the opponent's hands of
    strength ``s`` are added and the reach up to ``s`` after; what beats it is the whole compatible reach (the
    per-card sums at the end) less the reach up to ``s``, so each opponent hand is added once (postflop-solver
    sweeps twice, from each end). The identical combo, counted -1 times in both the reach up to ``s`` and the
    whole reach, cancels there; the ``whole`` term adds it back. ``work``: the per-card sums (52 floats), then
    one float64 per hand of ``p`` in strength order for the partial sums (contiguous, and not rounded to the
    rows' type), so that ``out`` is written once per hand. Returns the opponent's whole reach; its per-card sums
    are left in ``work[:52]``. The tables are :class:`HandArrays`' fields, passed one by one (see :func:`_walk`)."""
    o = 1 - p
    mine = valid[board, p]
    strength_p = strength[board, p]
    strength_o = strength[board, o]
    order_p = order[board, p]
    order_o = order[board, o]
    cards_p = sorted_cards[board, p]
    cards_o = sorted_cards[board, o]
    for c in range(52):
        work[c] = 0.0
    cum = 0.0
    # indices read from the tables are cast to unsigned: numba then drops its per-access wrap of negative
    # indices (about a tenth of a whole iteration)
    one = np.uint64(1)
    at = np.uint64(52)  # the partial sums' first index in work
    j = np.uint64(0)
    end = np.uint64(valid[board, o])
    i = np.uint64(0)
    stop = np.uint64(mine)
    while i < stop:
        s = strength_p[i]
        while j < end and strength_o[j] < s:
            r = opp[np.uint64(order_o[j])]
            cum += r
            work[np.uint64(cards_o[j, 0])] += r
            work[np.uint64(cards_o[j, 1])] += r
            j += one
        if j < end and strength_o[j] == s:
            tie_end = i
            while tie_end < stop and strength_p[tie_end] == s:
                work[at + tie_end] = (cum - work[np.uint64(cards_p[tie_end, 0])]
                                      - work[np.uint64(cards_p[tie_end, 1])])
                tie_end += one
            while j < end and strength_o[j] == s:
                r = opp[np.uint64(order_o[j])]
                cum += r
                work[np.uint64(cards_o[j, 0])] += r
                work[np.uint64(cards_o[j, 1])] += r
                j += one
            while i < tie_end:
                work[at + i] += cum - work[np.uint64(cards_p[i, 0])] - work[np.uint64(cards_p[i, 1])]
                i += one
        else:
            # no opponent hand ties: the reach up to s is the reach below s, and x + x is exactly 2x, so one
            # pass writes what the two passes above would
            while i < stop and strength_p[i] == s:
                below = cum - work[np.uint64(cards_p[i, 0])] - work[np.uint64(cards_p[i, 1])]
                work[at + i] = below + below
                i += one
    while j < end:
        r = opp[np.uint64(order_o[j])]
        cum += r
        work[np.uint64(cards_o[j, 0])] += r
        work[np.uint64(cards_o[j, 1])] += r
        j += one
    same = same_all[p]
    for k in range(mine):
        kk = np.uint64(k)
        h = np.uint64(order_p[kk])
        up_to_all = cum - work[np.uint64(cards_p[kk, 0])] - work[np.uint64(cards_p[kk, 1])]
        value = payoff * (work[at + kk] - up_to_all)
        if whole != 0.0:
            twin = same[h]
            value += whole * (up_to_all + opp[np.uint64(twin)] if twin >= 0 else up_to_all)
        out[h] = value
    return cum


@njit(cache=True)
def showdown_shares(hands: HandArrays, board: int, p: int, opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per hand of ``p`` on board ``board``: the compatible opponent reach it beats plus half the reach it
    ties, and the whole compatible reach (equity = first / second)."""
    o = 1 - p
    share = np.zeros(hands.sizes[p])
    whole = np.zeros(hands.sizes[p])
    less = np.zeros(52)
    upto = np.zeros(52)
    cum_less = 0.0
    cum_upto = 0.0
    j_less = 0
    j_upto = 0
    theirs = hands.valid[board, o]
    for i in range(hands.valid[board, p]):
        s = hands.strength[board, p, i]
        while j_less < theirs and hands.strength[board, o, j_less] < s:
            k = hands.order[board, o, j_less]
            cum_less += opp[k]
            less[hands.cards[o, k, 0]] += opp[k]
            less[hands.cards[o, k, 1]] += opp[k]
            j_less += 1
        while j_upto < theirs and hands.strength[board, o, j_upto] <= s:
            k = hands.order[board, o, j_upto]
            cum_upto += opp[k]
            upto[hands.cards[o, k, 0]] += opp[k]
            upto[hands.cards[o, k, 1]] += opp[k]
            j_upto += 1
        h = hands.order[board, p, i]
        c1 = hands.cards[p, h, 0]
        c2 = hands.cards[p, h, 1]
        below = cum_less - less[c1] - less[c2]
        tied = cum_upto - upto[c1] - upto[c2] - below
        k = hands.same[p, h]
        if k >= 0:
            tied += opp[k]  # the identical combo ties and was subtracted twice
        share[h] = below + 0.5 * tied
    # the whole compatible reach: total less the per-card sums plus the identical combo
    total = 0.0
    card_sum = np.zeros(52)
    for j in range(theirs):
        k = hands.order[board, o, j]
        total += opp[k]
        card_sum[hands.cards[o, k, 0]] += opp[k]
        card_sum[hands.cards[o, k, 1]] += opp[k]
    for i in range(hands.valid[board, p]):
        h = hands.order[board, p, i]
        w = total - card_sum[hands.cards[p, h, 0]] - card_sum[hands.cards[p, h, 1]]
        k = hands.same[p, h]
        if k >= 0:
            w += opp[k]
        whole[h] = w
    return share, whole


# Row kernels: each loop over a node's hands is its own function of distinct 1-D arrays (contiguous slices),
# which LLVM vectorises; the same loop written over rows of one 2-D scratch array, or with an offset added to the
# index (numba then wraps negative indices per element), compiles to scalar code at 2-4 times the cost. The two
# of regret matching are inlined into _strategy_into (a function of 1-D rows too: its loops still vectorise, and
# six calls a node cost more than their loops on small rows); the others inlined into the walk lost their
# vectorisation there (the benchmark's turn no faster, docs/benchmarks.md, session 17).


@njit(cache=True, inline="always")
def _positive_into(src: np.ndarray, sigma: np.ndarray, total: np.ndarray, rows: int) -> None:
    # in the rows' type (float32 in the updates: twice the vector width of float64, and exact either way: a
    # float32 or int16 stored value is a float32, and a float32 sum rounded once is the float64 sum rounded)
    zero = total.dtype.type(0)
    for h in range(rows):
        x = src[h]
        y = sigma.dtype.type(x) if x > 0 else zero
        sigma[h] = y
        total[h] += y


@njit(cache=True, inline="always")
def _normalise(sigma: np.ndarray, total: np.ndarray, rows: int, uniform: float) -> None:
    same_type = sigma.dtype.type(uniform)
    for h in range(rows):
        t = total[h]
        sigma[h] = sigma[h] / t if t > 0 else same_type


@_njit_without_refcounts()
def _product_into(out: np.ndarray, x: np.ndarray, y: np.ndarray, rows: int) -> None:
    for h in range(rows):
        out[h] = x[h] * y[h]


@_njit_without_refcounts()
def _kept_into(out: np.ndarray, x: np.ndarray, scale: float, keep: np.ndarray, rows: int) -> None:
    for h in range(rows):
        out[h] = x[h] * scale if keep[h] else 0.0


@_njit_without_refcounts()
def _add_into(out: np.ndarray, x: np.ndarray, rows: int) -> None:
    for h in range(rows):
        out[h] += x[h]


@_njit_without_refcounts()
def _add_product_into(out: np.ndarray, x: np.ndarray, y: np.ndarray, rows: int) -> None:
    for h in range(rows):
        out[h] += x[h] * y[h]


@_njit_without_refcounts(fastmath=True)
def _update_row(regrets: np.ndarray, cumulative: np.ndarray, values: np.ndarray, sigma: np.ndarray,
                out: np.ndarray, own: np.ndarray, rows: int, discount: Discount) -> None:
    alpha, beta, gamma = discount.alpha, discount.beta, discount.gamma
    for h in range(rows):
        r = np.float64(regrets[h])
        r *= alpha if r > 0.0 else beta
        regrets[h] = r + values[h] - out[h]
        cumulative[h] = np.float64(cumulative[h]) * gamma + own[h] * sigma[h]


@_njit_without_refcounts()
def _strategy_into(block: np.ndarray, lo: int, rows: int, na: int, slab: np.ndarray, first: int,
                   total: np.ndarray) -> None:
    """Action probabilities from a block stored action-major (``lo + a * rows + h``) into rows ``first`` to
    ``first + na`` of ``slab`` (``total``: scratch, the row sums): regret matching of regrets, or a normalised
    cumulative strategy (uniform where a row has no positive entry). A true division, neither a product with a
    reciprocal nor fastmath (which allows one): a row with one positive entry must give exactly 1, so that the
    played action's instantaneous regret is exactly 0. A rounding residue of either sign there picks a pure or
    a uniform strategy for the next iteration (most often after the second iteration, whose discount zeroes
    the positive regrets), and the solve needed about 1.3 times the iterations to 1% of the pot on the
    benchmark's turn."""
    for h in range(rows):
        total[h] = 0.0
    for a in range(na):
        base = lo + a * rows
        _positive_into(block[base:base + rows], slab[first + a], total, rows)
    uniform = 1.0 / na
    for a in range(na):
        _normalise(slab[first + a], total, rows, uniform)


@njit(cache=True)
def _strategy(block: np.ndarray, lo: int, rows: int, na: int, like: np.ndarray) -> np.ndarray:
    """:func:`_strategy_into` as a new ``(actions, rows)`` array of ``like``'s type."""
    sigma = np.empty((na + 1, rows), like.dtype)
    _strategy_into(block, lo, rows, na, sigma, rows - rows, sigma[na])  # a first row that is not a literal 0:
    return sigma[:na]  # numba would compile _strategy_into once more for a literal argument


@njit(cache=True)
def _average(cumulative: np.ndarray, lo: int, rows: int, na: int, reach: np.ndarray, weight: float) -> np.ndarray:
    """:func:`_average_node` of a node with no chance node above as a new ``(actions, rows)`` array of
    ``reach``'s type."""
    sigma = np.empty((na + 1, rows), reach.dtype)
    _average_node(cumulative, lo, rows, na, sigma, rows - rows, sigma[na], reach, 1.0 / weight if weight > 0.0 else 0.0)
    return sigma[:na]


@_njit_without_refcounts()
def _update(regrets: np.ndarray, cumulative: np.ndarray, lo: int, slab: np.ndarray, first: int, na: int, rows: int,
            out: np.ndarray, own: np.ndarray, discount: Discount) -> None:
    """The DCFR update of one node's float32 block (actions' values in rows ``0`` to ``na`` of ``slab``, the
    strategy in rows ``first`` to ``first + na``): discounted regrets plus the instantaneous ones, the discounted
    cumulative strategy plus the own-reach-weighted current one, for every action but the last, whose
    cumulative row is not stored (:func:`_derived_into`)."""
    for a in range(na - 1):
        base = lo + a * rows
        kept = lo + (na + a) * rows
        _update_row(regrets[base:base + rows], cumulative[kept:kept + rows], slab[a], slab[first + a], out, own,
                    rows, discount)
    base = lo + (na - 1) * rows
    _update_regret_row(regrets[base:base + rows], slab[na - 1], out, rows, discount)


@_njit_without_refcounts(fastmath=True)
def _update_regret_row(regrets: np.ndarray, values: np.ndarray, out: np.ndarray, rows: int,
                       discount: Discount) -> None:
    alpha, beta = discount.alpha, discount.beta
    for h in range(rows):
        r = np.float64(regrets[h])
        r *= alpha if r > 0.0 else beta
        regrets[h] = r + values[h] - out[h]


@_njit_without_refcounts()
def _derived_into(cumulative: np.ndarray, base: int, rows: int, na: int, slab: np.ndarray, first: int,
                  total: np.ndarray, reach: np.ndarray, unit: float) -> None:
    """The average strategy of a decision node whose last action's cumulative row is not stored, into rows
    ``first`` to ``first + na`` of ``slab`` (``total``: scratch). The cumulative strategy is weighted by the
    actor's own reach, so a node's rows sum, hand by hand, to the actor's reach of the node summed over the
    iterations with the same discounts: its reach in the average strategy times the solver's weight (the
    iterations' discounted count). So the average of action ``a`` is its row times ``unit / reach`` (``reach``:
    the actor's reach of the node in the walk's rows; ``unit``: 1 / weight for the walk's own player, the chance
    factors of the node / weight for the opponent, whose reach carries them) and the last action's is the rest
    (postflop-solver stores every row; float32 sums agree with the reach to about 3e-7 of the node's largest).
    A hand the average never brings here (reach 0), or a solver with nothing summed (``unit`` 0), plays
    uniformly; a rest below 0 (rounding) is 0, the stored actions scaled to sum to 1."""
    uniform = 1.0 / na
    if unit <= 0.0:
        for a in range(na):
            for h in range(rows):
                slab[first + a, h] = uniform
        return
    # branch-free row loops (they vectorise); a hand the average never brings here gets 0 here, then uniform
    for h in range(rows):
        r = reach[h]
        total[h] = unit / r if r > 0.0 else 0.0
    last = slab[first + na - 1]
    for h in range(rows):
        last[h] = 1.0 if total[h] > 0.0 else uniform
    for a in range(na - 1):
        stored = cumulative[base + a * rows:base + (a + 1) * rows]
        row = slab[first + a]
        for h in range(rows):
            x = stored[h] * total[h]
            row[h] = x if total[h] > 0.0 else uniform
            last[h] -= x
    for h in range(rows):  # rounding: the stored actions hold more than the reach (rare)
        if last[h] < 0.0:
            whole = 0.0
            for a in range(na - 1):
                whole += slab[first + a, h]
            for a in range(na - 1):
                slab[first + a, h] /= whole
            last[h] = 0.0


def _average_node(cumulative: np.ndarray, lo: int, rows: int, na: int, slab: np.ndarray, first: int,
                  total: np.ndarray, reach: np.ndarray, unit: float) -> None:
    """The average strategy of one decision node into rows ``first`` to ``first + na`` of ``slab``: float32
    storage :func:`_derived_into` (its rows after the node's regrets), compressed storage its ``na`` stored
    rows normalised (:func:`_strategy_into`); chosen when the walk compiles (:func:`_choose_average`)."""
    raise NotImplementedError("compiled only")


@overload(_average_node)
def _choose_average(cumulative: Any, lo: Any, rows: Any, na: Any, slab: Any, first: Any, total: Any, reach: Any,
                    unit: Any) -> Callable[..., None]:
    """The implementation of :func:`_average_node` for the storage's element type (numba's types)."""
    if isinstance(cumulative.dtype, types.Integer):
        def normalised(cumulative: Any, lo: Any, rows: Any, na: Any, slab: Any, first: Any, total: Any,
                       reach: Any, unit: Any) -> None:
            _strategy_into(cumulative, lo, rows, na, slab, first, total)
        return normalised

    def derived(cumulative: Any, lo: Any, rows: Any, na: Any, slab: Any, first: Any, total: Any, reach: Any,
                unit: Any) -> None:
        _derived_into(cumulative, lo + na * rows, rows, na, slab, first, total, reach, unit)
    return derived


REGRET_STEPS = 32767
"""Compressed regrets: int16 steps of a node's scale / 32767 (postflop-solver's compressed storage)."""
STRATEGY_STEPS = 65535
"""Compressed cumulative strategy: uint16 steps of a node's scale / 65535."""


@_njit_without_refcounts()
def _new_regrets(stored: np.ndarray, values: np.ndarray, out: np.ndarray, rows: int, positive: float,
                 negative: float) -> float:
    """A row's discounted stored regrets (``positive`` / ``negative``: the decoding step times the discount of
    each sign) plus the instantaneous ones, into ``values``; returns their largest magnitude."""
    top = _magnitude(0.0)
    for h in range(rows):
        q = np.float64(stored[h])
        r = q * (positive if q > 0.0 else negative) + values[h] - out[h]
        values[h] = r
        top = max(top, _magnitude(r))
    return _from_bits(top)


@_njit_without_refcounts()
def _new_cumulative(stored: np.ndarray, sigma: np.ndarray, own: np.ndarray, rows: int, step: float) -> float:
    """A row's discounted stored cumulative strategy (``step``: decoding step times the discount) plus the
    own-reach-weighted current strategy, into ``sigma``; returns the largest."""
    top = _magnitude(0.0)
    for h in range(rows):
        c = np.float64(stored[h]) * step + own[h] * sigma[h]
        sigma[h] = c
        top = max(top, _magnitude(c))  # c >= 0: its magnitude is itself
    return _from_bits(top)


@_njit_without_refcounts()
def _encode_signed(stored: np.ndarray, x: np.ndarray, scale: float, rows: int) -> None:
    for h in range(rows):
        stored[h] = np.int16(min(max(np.rint(x[h] * scale), -REGRET_STEPS), REGRET_STEPS))


@_njit_without_refcounts()
def _encode_unsigned(stored: np.ndarray, x: np.ndarray, scale: float, rows: int) -> None:
    for h in range(rows):
        stored[h] = np.uint16(min(x[h] * scale + 0.5, STRATEGY_STEPS))


@_njit_without_refcounts()
def _update_compressed(regrets: np.ndarray, cumulative: np.ndarray, scales: np.ndarray, node: int, lo: int,
                       slab: np.ndarray, first: int, na: int, rows: int, out: np.ndarray, own: np.ndarray,
                       discount: Discount) -> None:
    """:func:`_update` on compressed storage, as postflop-solver's compressed mode does it: the block's
    stored values decoded with the node's scales, updated in float64 and kept in the slab's rows (done with
    then; the walk's row type, float32 in the solver's updates: 24 bits against the encoding's 15 or 16), and
    encoded again over the new largest magnitudes (rounded to the nearest step; each scale kept as float32,
    and an encoded value at most 32767 or 65535 steps)."""
    step = np.float64(scales[2 * node]) / REGRET_STEPS
    top = 0.0
    for a in range(na):
        base = lo + a * rows
        top = max(top, _new_regrets(regrets[base:base + rows], slab[a], out, rows, step * discount.alpha,
                                    step * discount.beta))
    scale = np.float32(top)
    scales[2 * node] = scale
    encode = REGRET_STEPS / np.float64(scale) if scale > 0.0 else 0.0
    for a in range(na):
        base = lo + a * rows
        _encode_signed(regrets[base:base + rows], slab[a], encode, rows)
    step = np.float64(scales[2 * node + 1]) / STRATEGY_STEPS * discount.gamma
    top = 0.0
    for a in range(na):
        base = lo + a * rows
        top = max(top, _new_cumulative(cumulative[base:base + rows], slab[first + a], own, rows, step))
    scale = np.float32(top)
    scales[2 * node + 1] = scale
    encode = STRATEGY_STEPS / np.float64(scale) if scale > 0.0 else 0.0
    for a in range(na):
        base = lo + a * rows
        _encode_unsigned(cumulative[base:base + rows], slab[first + a], encode, rows)


def _update_node(regrets: np.ndarray, cumulative: np.ndarray, scales: np.ndarray, node: int, lo: int,
                 slab: np.ndarray, first: int, na: int, rows: int, out: np.ndarray, own: np.ndarray,
                 discount: Discount) -> None:
    """The update of one decision node's block: :func:`_update` on float32 storage, :func:`_update_compressed`
    on int16 regrets; chosen when the walk compiles (:func:`_choose_update`), so that a float32 solve never
    compiles the compressed kernels."""
    raise NotImplementedError("compiled only")


@overload(_update_node)
def _choose_update(regrets: Any, cumulative: Any, scales: Any, node: Any, lo: Any, slab: Any, first: Any, na: Any,
                   rows: Any, out: Any, own: Any, discount: Any) -> Callable[..., None]:
    """The implementation of :func:`_update_node` for the storage's element type (numba's types; it asks for
    the implementation's parameters as the typing function's, annotations included)."""
    if isinstance(regrets.dtype, types.Integer):
        def compressed(regrets: Any, cumulative: Any, scales: Any, node: Any, lo: Any, slab: Any, first: Any,
                       na: Any, rows: Any, out: Any, own: Any, discount: Any) -> None:
            _update_compressed(regrets, cumulative, scales, node, lo, slab, first, na, rows, out, own, discount)
        return compressed

    def plain(regrets: Any, cumulative: Any, scales: Any, node: Any, lo: Any, slab: Any, first: Any, na: Any,
              rows: Any, out: Any, own: Any, discount: Any) -> None:
        _update(regrets, cumulative, lo, slab, first, na, rows, out, own, discount)
    return plain


@_njit_without_refcounts()
def _terminal_into(kind: int, folder: int, amount: float, board: int, rake: float, cards: np.ndarray,
                   sizes: np.ndarray, same: np.ndarray, valid: np.ndarray, strength: np.ndarray, order: np.ndarray,
                   sorted_cards: np.ndarray, p: int, opp: np.ndarray, half_pot: float, work: np.ndarray,
                   out: np.ndarray) -> float:
    """``p``'s values at a fold or showdown node (its ``kind``, ``folder``, ``amount``, showdown ``board`` and
    ``rake``: the tree's fields at the node) into ``out`` (the hands' fields one by one, see :func:`_walk`). With
    rake ``r`` a showdown pays the winner ``stake - r``, the loser ``-stake`` and each of a tie ``-r / 2``:
    ``(stake - r / 2)`` times (reach beaten minus reach that beats) plus ``-r / 2`` times the whole compatible
    reach. Returns the opponent's whole reach at a showdown (its per-card sums left in ``work[:52]``),
    0 at a fold."""
    stake = half_pot + amount
    if kind == FOLD_NODE:
        _fold_into(cards, sizes, same, p, opp, -stake if folder == p else stake - rake, work, out)
        return 0.0
    for h in range(out.shape[0]):
        out[h] = 0.0
    return _showdown_into(valid, strength, order, sorted_cards, same, board, p, opp, stake - 0.5 * rake,
                          -0.5 * rake, work, out)


@njit(cache=True)
def _shape_below(tree: TreeArrays, node: int) -> tuple[int, int]:
    """The depth of the subtree below ``node`` (1 for a leaf) and the most actions of a decision node in it.
    A chance node's children are the same action tree under different cards: its first child stands for all
    (so this walks one runout, not every one, for each walk of the tree)."""
    if tree.kind[node] <= SHOWDOWN_NODE:
        return 1, 1
    depth = 0
    actions = tree.num_children[node] if tree.kind[node] == DECISION_NODE else 1
    last = tree.first_child[node] + (tree.num_children[node] if tree.kind[node] == DECISION_NODE else 1)
    for child in range(tree.first_child[node], last):
        d, a = _shape_below(tree, child)
        depth = max(depth, d)
        actions = max(actions, a)
    return depth + 1, actions


@njit(cache=True)
def scratch(tree: TreeArrays, hands: HandArrays, node: int, like: np.ndarray) -> np.ndarray:
    """The rows one walk below ``node`` needs, one slab per depth (see :func:`_walk`): ``(depth, 2 * actions
    + 4, hands)`` of ``like``'s type, allocated once per walk instead of per node (a solver keeps the root's,
    which covers every walk of its tree)."""
    depth, actions = _shape_below(tree, node)
    return np.empty((depth, 2 * actions + 4, hands.weights.shape[1]), like.dtype)


@njit(cache=True)
def work_size(depth: int, width: int) -> int:
    """Floats of a walk's ``work`` (see :func:`scaled_tree_values`) for ``depth`` slabs of rows ``width`` wide."""
    return 52 + (1 + depth) * width


@njit(cache=True)
def tree_values(tree: TreeArrays, hands: HandArrays, regrets: np.ndarray, cumulative: np.ndarray, node: int,
                p: int, own: np.ndarray, opp: np.ndarray, mode: int, discount: Discount,
                half_pot: float, chance_index: np.ndarray, chance_values: np.ndarray) -> np.ndarray:
    """Counterfactual values of ``p``'s hands at ``node`` given ``p``'s reach ``own`` and the opponent's
    ``opp`` (both initial weights times strategies times chance factors), recursively; in ``UPDATE`` mode
    ``p``'s regrets and cumulative strategy below ``node`` are updated (DCFR, ``discount``). A chance node
    ``n`` with ``chance_index[n] = k`` below ``len(chance_values)`` is not walked: its values are
    ``chance_values[k]`` (solved in parallel before, :func:`chance_branches`); pass an empty ``chance_values``
    to walk everything. The walk's rows (reaches, values, strategies) have ``own``'s type: the solver's updates
    walk float32 rows (postflop-solver's; the sweeps', chance nodes' and the update's sums still float64), its
    values and best responses float64 rows, so that the exploitability is exact to float64 rounding (the oracle
    tests hold best responses to a brute force within 1e-9 of the pot). Compressed storage (int16 regrets,
    uint16 cumulative strategy) is read as stored here; its updates need its scales
    (:func:`scaled_tree_values`)."""
    buf = scratch(tree, hands, node, own)
    width = hands.weights.shape[1]
    out = np.empty(width, own.dtype)
    scaled_tree_values(tree, hands, regrets, cumulative, np.zeros(0, np.float32), node, p, own, opp, mode,
                       discount_rows(discount), half_pot, chance_index, chance_values, buf,
                       np.empty((2, width), own.dtype), np.empty(work_size(buf.shape[0], width)), out)
    return out[:hands.sizes[p]].astype(np.float64)


@njit(cache=True)
def discount_rows(discount: Discount) -> np.ndarray:
    """``discount`` as the one row ``(alpha, beta, gamma, weight)`` of :func:`scaled_tree_values`'
    ``discounts``."""
    rows = np.empty((1, 4))
    rows[0, 0] = discount.alpha
    rows[0, 1] = discount.beta
    rows[0, 2] = discount.gamma
    rows[0, 3] = discount.weight
    return rows


@_njit_without_refcounts()
def scaled_tree_values(tree: TreeArrays, hands: HandArrays, regrets: np.ndarray, cumulative: np.ndarray,
                       scales: np.ndarray, node: int, p: int, own: np.ndarray, opp: np.ndarray, mode: int,
                       discounts: np.ndarray, half_pot: float, chance_index: np.ndarray, chance_values: np.ndarray,
                       buf: np.ndarray, top: np.ndarray, work: np.ndarray, out: np.ndarray) -> float:
    """:func:`tree_values` into ``out`` (as wide as the rows: ``p``'s values in its first ``sizes[p]``) on
    storage of either kind: float32 ``regrets`` and ``cumulative`` (``scales`` empty), or the compressed mode's
    int16 regrets and uint16 cumulative strategy with one float32 scale per decision node and array
    (``scales[2 * node]``: the regrets', ``scales[2 * node + 1]``: the cumulative strategy's;
    :func:`_update_compressed`). Regret matching and the average strategy are a block's entries over their row
    sums, whatever the block's scale: both read the integers as stored. The caller's scratch: ``buf`` (at least
    the shape :func:`scratch` gives below ``node``), ``top`` (2 rows as wide: the reaches, zero-padded) and
    ``work`` (:func:`work_size` floats: per-card sums, a showdown's partial sums, a row of sums per slab), so
    that a solver's walks and the many branches of a chance node allocate none (a scratch per walk was about a
    tenth of a turn iteration). ``discounts``: DCFR factors, one row ``(alpha,
    beta, gamma, weight)`` per iteration (:func:`discount_rows`); a walk of one player reads the first. ``p`` = -1: both
    players' walks, OOP's (``own`` its reach) then IP's, in one call, and in ``UPDATE`` mode one such iteration
    per row of ``discounts`` (a river solver's iterations between two exploitability checks: on a river a walk is
    tens of microseconds, a call from Python about ten). Returns the sum over the walked players of their reach
    times their values at ``node`` with ``p`` = -1 (in ``BEST`` mode the two best responses' sum, the
    exploitability's, in one call), 0 with ``p`` >= 0 (the callers read ``out``; the sum is a chain of dependent
    additions over the hands, and a turn iteration walks over two thousand branches); ``out`` holds the last walk's
    values. The only caller of :func:`_walk`: one
    specialisation of the recursion (see there); the parallel branches and a river's iteration call this, not
    a new function (a new compiled caller of the walk, or of this, crashed when loaded from numba's cache)."""
    total = 0.0
    iterations = discounts.shape[0] if p < 0 and mode == UPDATE else 1
    for i in range(iterations):
        discount = Discount(discounts[i, 0], discounts[i, 1], discounts[i, 2], discounts[i, 3])
        for q in range(2) if p < 0 else range(p, p + 1):
            if q == p or q == 0:
                mine, theirs = own, opp
            else:
                mine, theirs = opp, own
            for h in range(top.shape[1]):
                top[0, h] = mine[h] if h < mine.shape[0] else 0.0
                top[1, h] = theirs[h] if h < theirs.shape[0] else 0.0
            # every array below is alive until this returns: the walk gets views without reference counts
            _walk(_pointer(tree.kind), _pointer(tree.player), _pointer(tree.first_child),
                  _pointer(tree.num_children), _pointer(tree.amount), _pointer(tree.board), _pointer(tree.card),
                  _pointer(tree.offset), _pointer(tree.iso_start), _pointer(tree.iso_count),
                  _pointer(tree.iso_swaps), _pointer(tree.factor), _pointer(tree.rake), _unowned(hands.cards),
                  _pointer(hands.sizes), _unowned(hands.same), _unowned(hands.perm), _unowned(hands.order),
                  _unowned(hands.strength), _unowned(hands.sorted_cards), _unowned(hands.valid),
                  _unowned(hands.misses), _unowned(regrets), _unowned(cumulative), _unowned(scales), node, q,
                  _unowned(top[0]), _unowned(top[1]), mode, discount, half_pot, _unowned(work),
                  _pointer(chance_index), _unowned(chance_values), _unowned(buf), buf.shape[0] - 1, _unowned(out))
            if p < 0 and i == iterations - 1:  # one player's walk: its caller reads ``out``
                for h in range(hands.sizes[q]):
                    total += np.float64(top[0, h]) * np.float64(out[h])
    return total


class WalkPointer(WrapperAddressProtocol):
    """:func:`scaled_tree_values` compiled for one set of argument types, as a first-class function (numba's
    wrapper address protocol: its compiled code's address and signature) for :func:`chance_branches`, which calls
    it through that address. A compiled callee is otherwise linked into every caller's library and optimised
    again there, so the parallel branches (``chance_branches``, its loop body and :func:`_branch_run`) held the
    whole recursive walk: with the updates' walk in float32 rows beside the float64 one, a cold first solve took
    31.7-32.2 s CPU against 25.4-25.9 s (session 15, the walk linked), through the address 27.7-28.8 s against
    25.4-26.8 s (the issue allows 30; docs/benchmarks.md, session 16)."""

    def __init__(self, *args: object) -> None:
        self._signature = types.float64(*(cast(Callable[[object], types.Type], numba_type)(a) for a in args))
        result: Any = scaled_tree_values.get_compile_result(self._signature)
        self._address = int(result.library.get_pointer_to_function(result.fndesc.llvm_cfunc_wrapper_name))
        self._result = result  # its library holds the code at the address

    def __call__(self, *args: Any) -> float:
        """The walk called from Python (where numba's compilation is off, the kernels run as Python)."""
        return float(scaled_tree_values(*args))

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self) -> Signature:
        return self._signature


def walk_pointer(tree: TreeArrays, hands: HandArrays, regrets: np.ndarray, cumulative: np.ndarray,
                 scales: np.ndarray, chance_index: np.ndarray, rows: type[np.floating[Any]]) -> WalkPointer:
    """:class:`WalkPointer` of the walks over this storage with rows of type ``rows`` (float32 or float64): the
    argument types :func:`_branch_run` calls it with."""
    width = hands.weights.shape[1]
    row = np.empty(width, rows)
    return WalkPointer(tree, hands, regrets, cumulative, scales, 0, 0, row, row, 0, np.ones((1, 4)), 0.0,
                       chance_index, np.empty((0, width)), np.empty((1, 1, width), rows), np.empty((2, width), rows),
                       np.empty(work_size(1, width)), row)


@_njit_without_refcounts()
def _walk(kind: np.ndarray, player: np.ndarray, first_child: np.ndarray, num_children: np.ndarray,
          amount: np.ndarray, board: np.ndarray, card: np.ndarray, offset: np.ndarray, iso_start: np.ndarray,
          iso_count: np.ndarray, iso_swaps: np.ndarray, factor: np.ndarray, rake: np.ndarray, cards: np.ndarray,
          sizes: np.ndarray, same: np.ndarray, perm: np.ndarray, order: np.ndarray, strength: np.ndarray,
          sorted_cards: np.ndarray, valid: np.ndarray, misses: np.ndarray, regrets: np.ndarray,
          cumulative: np.ndarray,
          scales: np.ndarray, node: int, p: int, own: np.ndarray, opp: np.ndarray, mode: int, discount: Discount,
          half_pot: float, work: np.ndarray, chance_index: np.ndarray, chance_values: np.ndarray, buf: np.ndarray,
          level: int, out: np.ndarray) -> None:
    """:func:`tree_values` into ``out`` (rows as wide as ``buf``'s), with no allocation: the node keeps its rows
    in slab ``buf[level]`` (actions' values, then the strategy's rows, the strategy's row sums, a reach, a second
    reach, a child's values) and hands each child a row of it to write into; its children use ``buf[level - 1]``.
    ``level`` is not a literal at the top call (``buf.shape[0] - 1``): a second, literal-typed specialisation of
    this recursive function crashes when numba loads both from its cache. The tree's and hands' fields come one
    by one, not as their bundles: numba takes a reference to every array of a tuple passed to a call that is not
    inlined (an atomic increment and decrement each): in a recursive walk that does nothing else, about 130 ns
    a call for the two bundles, whether the callee reads the arrays or not, against about 1 ns for an unused
    array argument. The tree's 1-D fields, ``sizes`` and ``chance_index`` come as pointers to their data
    (:func:`_data_pointer`: a word each where an array is seven), and :func:`_terminal_into` gets the node's
    fields, not the arrays: the turn with 6 hands a side 4.2 -> 3.0 ms an iteration. The walk,
    :func:`scaled_tree_values` and every kernel they call are compiled without numba's reference counting
    (``_nrt=False``): with it, a function calls ``NRT_incref`` on entry and ``NRT_decref`` on exit for each array
    argument, a call each even for a view without a reference (:func:`_unowned_view`), and LLVM's pruning of them
    left the walk's 32 pairs in place: 64 calls a node, about 40% of an iteration of the turn with 6 hands a
    side, 10% with the benchmark's ranges (docs/benchmarks.md, session 18). Such a function cannot allocate, nor
    assign one array slice to another (numba may copy the source first): loops instead, and the chance nodes'
    float64 sums in a row of ``work`` per level (:func:`work_size`)."""
    node_kind = kind[node]
    mine = sizes[p]
    theirs = sizes[1 - p]
    if node_kind <= SHOWDOWN_NODE:
        _terminal_into(kind[node], player[node], amount[node], board[node], rake[node], cards, sizes,
                       same, valid, strength, order, sorted_cards, p, opp, half_pot, work, out)
        return
    first = first_child[node]
    na = num_children[node]
    slab = buf[level]
    actions = (slab.shape[0] - 4) // 2
    total_row = 2 * actions
    reach = slab[total_row + 1]
    reach2 = slab[total_row + 2]
    v = slab[total_row + 3]
    for h in range(mine):
        out[h] = 0.0
    if node_kind == CHANCE_NODE:
        k = chance_index[node]
        if 0 <= k < chance_values.shape[0]:
            values = chance_values[k]
            for h in range(mine):
                out[h] = values[h]
            return
        o = 1 - p
        width = buf.shape[2]
        at = 52 + (1 + level) * width  # this level's row of float64 sums in work (the walk allocates nothing)
        total = work[at:at + mine]
        for h in range(mine):
            total[h] = 0.0
        for a in range(na):
            child = first + a
            dealt = card[child]
            _kept_into(reach, own, 1.0, misses[p, dealt], mine)
            _kept_into(reach2, opp, factor[node], misses[o, dealt], theirs)
            _walk(kind, player, first_child, num_children, amount, board, card, offset, iso_start, iso_count,
                  iso_swaps, factor, rake, cards, sizes, same, perm, order, strength, sorted_cards, valid, misses,
                  regrets, cumulative, scales, child, p, reach, reach2, mode, discount, half_pot, work, chance_index,
                  chance_values, buf, level - 1, v)
            # a hand holding the dealt card is not in this branch (folds would value it)
            _kept_into(v, v, 1.0, misses[p, dealt], mine)
            _add_into(total, v, mine)
            for s in range(iso_start[child], iso_start[child] + iso_count[child]):
                swap = iso_swaps[s]
                for h in range(mine):
                    total[h] += v[perm[swap, p, h]]
        for h in range(mine):
            out[h] = total[h]
        return
    actor = player[node]
    lo = offset[node]
    if mode == UPDATE:  # two calls, not one on a choice of array: compressed storage has two element types
        _strategy_into(regrets, lo, sizes[actor], na, slab, actions, slab[total_row])
    elif actor != p:  # the opponent's reach carries the chance factors (the node's: ``factor`` at a decision node)
        _average_node(cumulative, lo, theirs, na, slab, actions, slab[total_row], opp,
                      factor[node] / discount.weight if discount.weight > 0.0 else 0.0)
    elif mode == AVERAGE:  # a best response does not read its own strategy
        _average_node(cumulative, lo, mine, na, slab, actions, slab[total_row], own,
                      1.0 / discount.weight if discount.weight > 0.0 else 0.0)
    if actor != p:
        # one reach row for all actions (a child is done with it when it returns); terminal children are
        # evaluated in place, without a call
        for a in range(na):
            child = first + a
            _product_into(reach, opp, slab[actions + a], theirs)
            if kind[child] <= SHOWDOWN_NODE:
                _terminal_into(kind[child], player[child], amount[child], board[child], rake[child], cards, sizes,
                               same, valid, strength, order, sorted_cards, p, reach, half_pot, work, v)
            else:
                _walk(kind, player, first_child, num_children, amount, board, card, offset, iso_start, iso_count,
                      iso_swaps, factor, rake, cards, sizes, same, perm, order, strength, sorted_cards, valid,
                      misses, regrets, cumulative, scales, child, p, own, reach, mode, discount, half_pot, work,
                      chance_index, chance_values, buf, level - 1, v)
            _add_into(out, v, mine)
        return
    for a in range(na):
        child = first + a
        child_kind = kind[child]
        if child_kind == FOLD_NODE and a + 1 < na and kind[child + 1] == SHOWDOWN_NODE:
            continue  # valued after the showdown, from its sums (below)
        if child_kind <= SHOWDOWN_NODE:
            whole = _terminal_into(kind[child], player[child], amount[child], board[child], rake[child], cards,
                                   sizes, same, valid, strength, order, sorted_cards, p, opp, half_pot, work, slab[a])
            if child_kind == SHOWDOWN_NODE and a > 0 and kind[child - 1] == FOLD_NODE:
                # p's fold beside a call to showdown: the same opponent reach, whose whole and per-card sums the
                # showdown's sweep leaves behind, so the fold costs one pass over p's hands
                _fold_from_sums(cards, sizes, same, p, opp, whole, work, -(half_pot + amount[child - 1]),
                                slab[a - 1])
        else:
            if mode == BEST:
                for h in range(mine):
                    reach[h] = own[h]
            else:
                _product_into(reach, own, slab[actions + a], mine)
            _walk(kind, player, first_child, num_children, amount, board, card, offset, iso_start, iso_count,
                  iso_swaps, factor, rake, cards, sizes, same, perm, order, strength, sorted_cards, valid, misses,
                  regrets, cumulative, scales, child, p, reach, opp, mode, discount, half_pot, work, chance_index,
                  chance_values, buf, level - 1, slab[a])
    if mode == BEST:
        for h in range(mine):
            best = slab[0, h]
            for a in range(1, na):
                best = max(best, slab[a, h])
            out[h] = best
        return
    for a in range(na):
        _add_product_into(out, slab[actions + a], slab[a], mine)
    if mode == UPDATE:
        _update_node(regrets, cumulative, scales, node, lo, slab, actions, na, mine, out, own, discount)

@njit(cache=True)
def chance_reaches(tree: TreeArrays, hands: HandArrays, regrets: np.ndarray, cumulative: np.ndarray, node: int,
                   p: int, own: np.ndarray, opp: np.ndarray, mode: int, weight: float, chance_index: np.ndarray,
                   own_at: np.ndarray, opp_at: np.ndarray) -> None:
    """Both reach vectors at every top chance node (``chance_index`` >= 0) below ``node``, top-down with the
    strategies :func:`tree_values` plays in ``mode`` (``weight``: the average strategy's, :class:`Discount`):
    rows of ``own_at`` and ``opp_at``, computed in ``own``'s type as the walk computes them (a float32 walk's
    strategies and products would round the same way)."""
    kind = tree.kind[node]
    if kind == CHANCE_NODE:
        k = chance_index[node]
        # loops, not slice assignments: numba compiles a slice assignment's shape-mismatch message (string
        # formatting, about 1.8 s of a cold first solve) for a check these rows never need
        for h in range(own.shape[0]):
            own_at[k, h] = own[h]
        for h in range(opp.shape[0]):
            opp_at[k, h] = opp[h]
        return
    if kind != DECISION_NODE:
        return
    first = tree.first_child[node]
    na = tree.num_children[node]
    actor = tree.player[node]
    lo = tree.offset[node]
    rows = hands.sizes[actor]
    if mode == UPDATE:
        sigma = _strategy(regrets, lo, rows, na, own)
    else:  # no chance node above: the opponent's reach carries no chance factor (``factor`` is 1 here)
        sigma = _average(cumulative, lo, rows, na, own if actor == p else opp, weight)
    # the products by the walk's own row kernel, not array expressions (numba compiles a broadcast for each)
    for a in range(na):
        if actor != p:
            reach = np.empty_like(opp)
            _product_into(reach, opp, sigma[a], opp.shape[0])
            chance_reaches(tree, hands, regrets, cumulative, first + a, p, own, reach, mode, weight, chance_index,
                           own_at, opp_at)
        elif mode == BEST:
            chance_reaches(tree, hands, regrets, cumulative, first + a, p, own, opp, mode, weight, chance_index,
                           own_at, opp_at)
        else:
            reach = np.empty_like(own)
            _product_into(reach, own, sigma[a], own.shape[0])
            chance_reaches(tree, hands, regrets, cumulative, first + a, p, reach, opp, mode, weight, chance_index,
                           own_at, opp_at)


@njit(cache=True, parallel=True)
def chance_branches(walk: WalkPointer, tree: TreeArrays, hands: HandArrays, regrets: np.ndarray,
                    cumulative: np.ndarray, scales: np.ndarray, chance_nodes: np.ndarray, branch_node: np.ndarray,
                    branch_child: np.ndarray,
                    p: int, own_at: np.ndarray, opp_at: np.ndarray, mode: int, discounts: np.ndarray, half_pot: float,
                    chance_index: np.ndarray, threads: int, shape: tuple[int, int]) -> np.ndarray:
    """The values of every branch (chance node ``chance_nodes[branch_node[i]]``, child ``branch_child[i]``) in
    parallel (the subtrees share no storage), blocked hands 0: rows ``(branches, hands of p)``. The branches go
    in one contiguous run per thread (``threads``, as numba divides a ``prange``), each run with one scratch of
    ``shape`` (the depth and rows of :func:`scratch`'s slabs, e.g. the whole tree's: at least any branch's); a new
    scratch for every branch cost about a tenth of a turn iteration. The shape comes from the caller: a second
    caller of the recursive :func:`_shape_below` here crashed when loaded from numba's cache. A branch's values
    do not depend on its run. The ``prange`` body is one call of :func:`_branch_run`: numba compiles a parallel
    loop's body as a function of its own and optimises it with everything the body holds; the run's loop and
    allocations written in the body cost a cold first solve about 2 s more CPU (this function alone 10.9 s
    against 9.0 s; 2.6 s compiled without threads). ``walk``: the compiled walk for the rows' type, called
    through its address (:class:`WalkPointer`), not linked into this function's library and optimised again.
    The solver runs its updates (float32 rows) here; the exploitability's float64 walks go serially (through
    parallel branches of their own, compiled a second time, a cold first solve took 32.9 s CPU against 27.7 s)."""
    count = branch_child.shape[0]
    # every row is written by its run (np.zeros would be a parallel loop of its own, compiled apart)
    out = np.empty((count, hands.sizes[p]))
    runs = max(1, min(threads, count))
    for run in prange(runs):
        _branch_run(walk, tree, hands, regrets, cumulative, scales, chance_nodes, branch_node, branch_child, p,
                    own_at, opp_at, mode, discounts, half_pot, chance_index, shape, run * count // runs,
                    (run + 1) * count // runs, out)
    return out


@njit(cache=True)
def _branch_run(walk: WalkPointer, tree: TreeArrays, hands: HandArrays, regrets: np.ndarray,
                cumulative: np.ndarray, scales: np.ndarray, chance_nodes: np.ndarray, branch_node: np.ndarray,
                branch_child: np.ndarray,
                p: int, own_at: np.ndarray, opp_at: np.ndarray, mode: int, discounts: np.ndarray, half_pot: float,
                chance_index: np.ndarray, shape: tuple[int, int], start: int, stop: int, out: np.ndarray) -> None:
    """Branches ``start`` to ``stop`` of :func:`chance_branches` into their rows of ``out``, with one scratch."""
    mine = hands.sizes[p]
    theirs = hands.sizes[1 - p]
    width = hands.weights.shape[1]
    walked = np.zeros((0, width))  # no chance values: each branch walks its whole subtree
    buf = np.empty((shape[0], shape[1], width), own_at.dtype)
    top = np.empty((2, width), own_at.dtype)
    work = np.empty(work_size(shape[0], width))
    v = np.empty(width, own_at.dtype)
    own_c = np.empty(mine, own_at.dtype)
    opp_c = np.empty(theirs, own_at.dtype)
    # every array below is alive until this returns: the calls get views without reference counts (each call
    # took a reference to every array of the two bundles, about a thousand calls a turn pass)
    tree_view = TreeArrays(_unowned(tree.kind), _unowned(tree.player), _unowned(tree.first_child),
                           _unowned(tree.num_children), _unowned(tree.amount), _unowned(tree.board),
                           _unowned(tree.card), _unowned(tree.offset), _unowned(tree.iso_start),
                           _unowned(tree.iso_count), _unowned(tree.iso_swaps), _unowned(tree.factor),
                           _unowned(tree.rake))
    hands_view = HandArrays(_unowned(hands.cards), _unowned(hands.sizes), _unowned(hands.weights),
                            _unowned(hands.same), _unowned(hands.perm), _unowned(hands.order),
                            _unowned(hands.strength), _unowned(hands.sorted_cards), _unowned(hands.valid),
                            _unowned(hands.misses))
    for i in range(start, stop):
        k = branch_node[i]
        node = chance_nodes[k]
        child = branch_child[i]
        card = tree.card[child]
        # card removal by row kernels of the hands that miss the card (loops over the hands' cards were
        # about 3% of a turn iteration)
        _kept_into(own_c, own_at[k], 1.0, hands.misses[p, card], mine)
        _kept_into(opp_c, opp_at[k], tree.factor[node], hands.misses[1 - p, card], theirs)
        walk(tree_view, hands_view, _unowned(regrets), _unowned(cumulative), _unowned(scales), np.int64(child),
             np.int64(p), _unowned(own_c), _unowned(opp_c), np.int64(mode), _unowned(discounts), np.float64(half_pot),
             _unowned(chance_index), _unowned(walked), _unowned(buf), _unowned(top), _unowned(work), _unowned(v))
        _kept_into(out[i], v, 1.0, hands.misses[p, card], mine)


@njit(cache=True)
def combine_branches(tree: TreeArrays, hands: HandArrays, p: int, chance_count: int, branch_node: np.ndarray,
                     branch_child: np.ndarray, branch_values: np.ndarray) -> np.ndarray:
    """Each top chance node's values: its branches' values plus their suit twins', in branch order."""
    mine = hands.sizes[p]
    out = np.zeros((chance_count, mine))
    for i in range(branch_child.shape[0]):
        k = branch_node[i]
        child = branch_child[i]
        for h in range(mine):
            out[k, h] += branch_values[i, h]
        for s in range(tree.iso_start[child], tree.iso_start[child] + tree.iso_count[child]):
            swap = tree.iso_swaps[s]
            for h in range(mine):
                out[k, h] += branch_values[i, hands.perm[swap, p, h]]
    return out
