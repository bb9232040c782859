"""Numba kernels of the two-round game: external-sampling MCCFR on the public betting tree with sampled deals, and
the exact value of a strategy profile (best response or fixed strategy) vectorised over private hands.

Strategies are two row-major tables over the tree's flat actions: ``pre[row, a]`` for round-1 nodes (row =
preflop class of the hand) and ``post[row, a]`` for round-2 nodes (row = flop bucket of (flop, hand)).
The tree is :meth:`pokerlab.games.two_round.BettingTree.arrays`, a :class:`BettingArrays` bundle (preorder
numbering).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.games.two_round import NODE_DECISION, NODE_FLOP, NODE_FOLD, NODE_SHOWDOWN, BettingArrays
from pokerlab.solvers.kernels import match_regrets, normalize_block, push_node, sample_action
from pokerlab.solvers.two_round_tables import DealTables, showdown_sums
from pokerlab.stats.rng import uniform


class RowStrategy(NamedTuple):
    """A strategy as the kernels read it: ``pre[pre_row[h], a]`` in round 1 and ``post[post_row[f, h], a]`` in
    round 2 (rows of the card abstraction, columns the tree's flat actions)."""

    pre: np.ndarray
    post: np.ndarray
    pre_row: np.ndarray
    post_row: np.ndarray


class MccfrState(NamedTuple):
    """What MCCFR updates, in the rows of the card abstraction (``pre_row[h]``, ``post_row[f, h]``): regrets and
    cumulative strategies of both rounds."""

    pre_row: np.ndarray
    post_row: np.ndarray
    reg_pre: np.ndarray
    reg_post: np.ndarray
    cum_pre: np.ndarray
    cum_post: np.ndarray


@njit(cache=True)
def mccfr_iterations(tree: BettingArrays, deals: DealTables, state: MccfrState, ante: float, iterations: int,
                     rng: np.ndarray, floor: bool) -> None:
    """External-sampling MCCFR (Lanctot et al. 2009) with the deal sampled once per iteration.

    Each iteration deals 2 + 2 + 3 cards uniformly, then traverses the betting tree once per player: the
    traverser explores all its actions, the opponent samples one action from its current strategy (and adds
    that strategy to its cumulative average). ``floor`` clamps regrets at zero (regret matching plus).
    """
    hand_id, flop_id, values, n_cards = deals.hand_id, deals.flop_id, deals.values, deals.n_cards
    pre_row, post_row, reg_pre, reg_post = state.pre_row, state.post_row, state.reg_pre, state.reg_post
    cum_pre, cum_post = state.cum_pre, state.cum_post
    kind, rnd, player, put0, put1 = tree.kind, tree.round, tree.player, tree.put0, tree.put1
    child_start, num_children = tree.child_start, tree.num_children
    child_list, act_offset = tree.child_list, tree.act_offset
    n_nodes = kind.shape[0]
    stack = np.empty(n_nodes, dtype=np.int64)
    expanded = np.zeros(n_nodes, dtype=np.bool_)
    chosen = np.empty(n_nodes, dtype=np.int64)
    value = np.empty(n_nodes)
    probs = np.empty(64)
    perm = np.arange(n_cards)
    rows = np.empty((2, 2), dtype=np.int64)  # rows[player, round]
    for _ in range(iterations):
        for k in range(7):  # partial Fisher-Yates: the first 7 entries become the dealt cards
            j = k + int(uniform(rng) * (n_cards - k))
            t = perm[k]
            perm[k] = perm[j]
            perm[j] = t
        h0 = hand_id[perm[0], perm[1]]
        h1 = hand_id[perm[2], perm[3]]
        a, b, c = perm[4], perm[5], perm[6]
        if a > b:
            a, b = b, a
        if b > c:
            b, c = c, b
        if a > b:
            a, b = b, a
        f = flop_id[a, b, c]
        v0 = values[f, h0]
        v1 = values[f, h1]
        rows[0, 0] = pre_row[h0]
        rows[1, 0] = pre_row[h1]
        rows[0, 1] = post_row[f, h0]
        rows[1, 1] = post_row[f, h1]
        for p in range(2):
            top = 0
            stack[0] = 0
            expanded[0] = False
            while top >= 0:
                n = stack[top]
                kd = kind[n]
                if not expanded[top]:
                    if kd == NODE_FOLD or kd == NODE_SHOWDOWN:  # noqa: SIM109 - numba-friendly
                        if kd == NODE_FOLD:
                            u0 = -float(ante + put0[n]) if player[n] == 0 else float(ante + put1[n])
                        elif v0 > v1:
                            u0 = float(ante + put1[n])
                        elif v1 > v0:
                            u0 = -float(ante + put0[n])
                        else:
                            u0 = 0.0
                        value[n] = u0 if p == 0 else -u0
                        top -= 1
                        continue
                    expanded[top] = True
                    fc = child_start[n]
                    na = num_children[n]
                    if kd == NODE_FLOP:
                        chosen[n] = child_list[fc]
                        top = push_node(stack, expanded, top, chosen[n])
                        continue
                    actor = player[n]
                    off = act_offset[n]
                    row = rows[actor, rnd[n]]
                    if actor != p:
                        if rnd[n] == 0:
                            match_regrets(reg_pre[row], off, off + na, probs)
                            for q in range(na):
                                cum_pre[row, off + q] += probs[q]
                        else:
                            match_regrets(reg_post[row], off, off + na, probs)
                            for q in range(na):
                                cum_post[row, off + q] += probs[q]
                        chosen[n] = child_list[fc + sample_action(probs, na, rng)]
                        top = push_node(stack, expanded, top, chosen[n])
                    else:
                        for q in range(na):
                            top = push_node(stack, expanded, top, child_list[fc + q])
                else:
                    top -= 1
                    if kd == NODE_FLOP or player[n] != p:
                        value[n] = value[chosen[n]]
                        continue
                    fc = child_start[n]
                    na = num_children[n]
                    off = act_offset[n]
                    row = rows[p, rnd[n]]
                    reg = reg_pre[row] if rnd[n] == 0 else reg_post[row]
                    match_regrets(reg, off, off + na, probs)
                    v = 0.0
                    for q in range(na):
                        v += probs[q] * value[child_list[fc + q]]
                    value[n] = v
                    for q in range(na):
                        r = reg[off + q] + value[child_list[fc + q]] - v
                        reg[off + q] = r if (r > 0.0 or not floor) else 0.0


@njit(cache=True)
def _compat(reach: np.ndarray, hands: np.ndarray, count: int, hand_cards: np.ndarray, n_cards: int,
            out: np.ndarray) -> None:
    """``out[h]`` = total reach of the hands in ``hands[:count]`` sharing no card with ``h``."""
    per_card = np.zeros(n_cards)
    total = 0.0
    for i in range(count):
        h = hands[i]
        total += reach[h]
        per_card[hand_cards[h, 0]] += reach[h]
        per_card[hand_cards[h, 1]] += reach[h]
    for i in range(count):
        h = hands[i]
        out[h] = total - per_card[hand_cards[h, 0]] - per_card[hand_cards[h, 1]] + reach[h]


@njit(cache=True, inline="always")
def _push_reach(reach: np.ndarray, n: int, tree: BettingArrays, hands: np.ndarray, cnt: int, acting: bool,
                strategy: np.ndarray, strategy_row: np.ndarray) -> None:
    """Reach of node ``n``'s children for ``hands[:cnt]``: times the acting opponent's action probability
    (``strategy[strategy_row[h], off + q]``), or unchanged below the responder's own decisions."""
    fc, na, off, child_list = tree.child_start[n], tree.num_children[n], tree.act_offset[n], tree.child_list
    for q in range(na):
        c = child_list[fc + q]
        for i in range(cnt):
            h = hands[i]
            reach[c, h] = reach[n, h] * strategy[strategy_row[h], off + q] if acting else reach[n, h]


@njit(cache=True, inline="always")
def _decision_values(val: np.ndarray, n: int, tree: BettingArrays, hands: np.ndarray, cnt: int, responding: bool,
                     best_response: bool, strategy: np.ndarray, strategy_row: np.ndarray) -> None:
    """Value of decision node ``n`` for ``hands[:cnt]``: the responder's best child (best response) or its
    strategy's mix; at the opponent's nodes the reach already weighs the children, so their values add."""
    fc, na, off, child_list = tree.child_start[n], tree.num_children[n], tree.act_offset[n], tree.child_list
    for i in range(cnt):
        h = hands[i]
        if responding and best_response:
            best = val[child_list[fc], h]
            for q in range(1, na):
                best = max(best, val[child_list[fc + q], h])
            val[n, h] = best
        elif responding:
            total = 0.0
            for q in range(na):
                total += strategy[strategy_row[h], off + q] * val[child_list[fc + q], h]
            val[n, h] = total
        else:
            total = 0.0
            for q in range(na):
                total += val[child_list[fc + q], h]
            val[n, h] = total


@njit(cache=True, inline="always")
def _fold_payoff(n: int, tree: BettingArrays, responder: int, ante: float) -> float:
    """The responder's chips at fold node ``n``: it loses its contribution if it folded, wins the other's."""
    player, put0, put1 = tree.player, tree.put0, tree.put1
    mine = put0[n] if responder == 0 else put1[n]
    theirs = put1[n] if responder == 0 else put0[n]
    return -float(ante + mine) if player[n] == responder else float(ante + theirs)


class ProfileWork(NamedTuple):
    """The arrays of one exact profile evaluation, kept between the chunks a Python driver runs (so that Ctrl-C
    lands between chunks): per node and hand the opponent's reach and the responder's value, the flop nodes
    (preorder), the running sum over flops of the current flop node, and scratch rows."""

    reach: np.ndarray
    val: np.ndarray
    flop_nodes: np.ndarray
    flop_total: np.ndarray
    comp: np.ndarray
    win: np.ndarray
    lose: np.ndarray


@njit(cache=True)
def profile_round_one_reach(tree: BettingArrays, deals: DealTables, responder: int, opponent: RowStrategy,
                            work: ProfileWork) -> None:
    """Start a profile evaluation (see :func:`profile_flop_items`): round 1, top-down, the opponent's reach per
    hand."""
    kind, rnd, player = tree.kind, tree.round, tree.player
    n_hands = deals.hand_cards.shape[0]
    reach = work.reach
    all_hands = np.arange(n_hands)
    reach[0, :] = 1.0
    for n in range(kind.shape[0]):
        if rnd[n] == 0 and kind[n] == NODE_DECISION:
            _push_reach(reach, n, tree, all_hands, n_hands, player[n] == 1 - responder, opponent.pre,
                        opponent.pre_row)


@njit(cache=True)
def profile_flop_items(tree: BettingArrays, deals: DealTables, ante: float, responder: int, best_response: bool,
                       opponent: RowStrategy, own: RowStrategy, work: ProfileWork, start: int, stop: int) -> None:
    """Round 2 of a profile evaluation for the items ``start .. stop - 1`` of ``(flop node, flop)`` in order
    (item ``k`` is flop ``k % n_flops`` below flop node ``work.flop_nodes[k // n_flops]``): top-down the
    opponent's reach, bottom-up the responder's values, summed over the flops into the flop node's value.

    Any split of ``0 .. len(flop_nodes) * n_flops`` into consecutive chunks gives the same numbers bit for bit
    as one call over all items: the same operations run in the same order.
    """
    hand_cards, values, order, valid_count, n_cards = (deals.hand_cards, deals.values, deals.order,
                                                       deals.valid_count, deals.n_cards)
    opp_post, opp_post_row = opponent.post, opponent.post_row
    me_post, me_post_row = own.post, own.post_row
    kind, player, put0, subtree_end = tree.kind, tree.player, tree.put0, tree.subtree_end
    reach, val, flop_total, comp, win, lose = work.reach, work.val, work.flop_total, work.comp, work.win, work.lose
    n_flops = values.shape[0]
    opp = 1 - responder
    for k in range(start, stop):
        fn = work.flop_nodes[k // n_flops]
        f = k % n_flops
        root = fn + 1
        end = subtree_end[fn]
        if f == 0:
            flop_total[:] = 0.0
        hands = order[f]
        cnt = valid_count[f]
        for i in range(cnt):
            h = hands[i]
            reach[root, h] = reach[fn, h]
        for n in range(root, end):
            if kind[n] == NODE_DECISION:
                _push_reach(reach, n, tree, hands, cnt, player[n] == opp, opp_post, opp_post_row[f])
        for n in range(end - 1, root - 1, -1):
            kn = kind[n]
            if kn == NODE_FOLD:
                payoff = _fold_payoff(n, tree, responder, ante)
                _compat(reach[n], hands, cnt, hand_cards, n_cards, comp)
                for i in range(cnt):
                    h = hands[i]
                    val[n, h] = payoff * comp[h]
            elif kn == NODE_SHOWDOWN:
                stake = float(ante + put0[n])  # equal contributions at a showdown
                showdown_sums(hands, cnt, values[f], reach[n], hand_cards, n_cards, win, lose)
                for i in range(cnt):
                    h = hands[i]
                    val[n, h] = stake * (win[h] - lose[h])
            else:
                _decision_values(val, n, tree, hands, cnt, player[n] == responder, best_response, me_post,
                                 me_post_row[f])
        for i in range(cnt):
            h = hands[i]
            flop_total[h] += val[root, h]
        if f == n_flops - 1:
            val[fn, :] = flop_total


@njit(cache=True)
def profile_round_one_value(tree: BettingArrays, deals: DealTables, ante: float, responder: int,
                            best_response: bool, own: RowStrategy, work: ProfileWork) -> float:
    """Finish a profile evaluation once every flop item is done: round 1, bottom-up; the responder's expected
    payoff in chips per game (see :func:`pokerlab.solvers.two_round.exploitability`)."""
    hand_cards, n_cards = deals.hand_cards, deals.n_cards
    kind, rnd, player = tree.kind, tree.round, tree.player
    reach, val, comp = work.reach, work.val, work.comp
    n_hands = hand_cards.shape[0]
    all_hands = np.arange(n_hands)
    flops_per_deal = (n_cards - 4) * (n_cards - 5) * (n_cards - 6) / 6.0
    for n in range(kind.shape[0] - 1, -1, -1):
        if rnd[n] != 0:
            continue
        k = kind[n]
        if k == NODE_FOLD:
            payoff = _fold_payoff(n, tree, responder, ante)
            _compat(reach[n], all_hands, n_hands, hand_cards, n_cards, comp)
            for h in range(n_hands):
                val[n, h] = payoff * comp[h] * flops_per_deal
        elif k == NODE_DECISION:
            _decision_values(val, n, tree, all_hands, n_hands, player[n] == responder, best_response, own.pre,
                             own.pre_row)
    deals = n_hands * ((n_cards - 2) * (n_cards - 3) / 2.0) * flops_per_deal
    per_deal: float = val[0, :].sum() / deals
    return per_deal


@njit(cache=True)
def normalize_rows(cum: np.ndarray, act_offset: np.ndarray, num_children: np.ndarray, decision: np.ndarray,
                   out: np.ndarray) -> None:
    """Average strategy from cumulative sums: each decision node's block normalised (uniform when empty)."""
    rows = cum.shape[0]
    for n in decision:
        off = act_offset[n]
        na = num_children[n]
        for r in range(rows):
            normalize_block(cum[r], off, off + na, out[r])
