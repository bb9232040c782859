"""Numba kernels over a compiled game tree (see :mod:`pokerlab.games.compiler` for the array layout).

Every kernel loops over node indices: increasing for top-down passes (reach probabilities), decreasing for
bottom-up passes (values), since children always have larger indices than their parents. No recursion, no
Python objects. Strategies, regrets and policies are float64 arrays over the flat actions of the infosets.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL, TreeArrays
from pokerlab.stats.rng import uniform


class CfrTables(NamedTuple):
    """What full-traversal CFR reads and updates, per flat action of the infosets: the current strategy
    ``sigma``, the cumulative ``regrets`` and the ``cumulative`` (unnormalised average) strategy."""

    sigma: np.ndarray
    regrets: np.ndarray
    cumulative: np.ndarray


class CfrSchedule(NamedTuple):
    """The CFR-family variant, as :class:`pokerlab.solvers.core.SolverConfig` sets it: ``floor`` (CFR+),
    ``discount`` with exponents ``alpha`` (positive regrets) and ``beta`` (negative ones), and ``gamma`` (the
    average strategy's weight ``t**gamma``)."""

    floor: bool
    discount: bool
    alpha: float
    beta: float
    gamma: float


class _PassWork(NamedTuple):
    """Per-node scratch of one CFR pass: reach of the updating player, of its opponent and of chance, and the
    counterfactual value."""

    reach_own: np.ndarray
    reach_opp: np.ndarray
    reach_chance: np.ndarray
    value: np.ndarray


class MatrixRegrets(NamedTuple):
    """Regret matching on a matrix game: both players' cumulative regrets and strategy sums."""

    regrets_row: np.ndarray
    regrets_col: np.ndarray
    sum_row: np.ndarray
    sum_col: np.ndarray


class StrategyHistory(NamedTuple):
    """Where :func:`matrix_regret_matching` records strategies: after iteration ``record_at[k]`` (1-based,
    increasing) the current and average strategies of both players go to row ``k`` of the other arrays."""

    record_at: np.ndarray
    current_row: np.ndarray
    current_col: np.ndarray
    average_row: np.ndarray
    average_col: np.ndarray


@njit(cache=True, inline="always")
def match_regrets(regrets: np.ndarray, lo: int, hi: int, out: np.ndarray, at: int = 0) -> None:
    """Regret matching: ``out[at:at + hi - lo]`` = the positive parts of ``regrets[lo:hi]`` normalised, uniform if
    none is positive: every regret-matching step here and in the two-round game's MCCFR
    (pokerlab.solvers.two_round_kernels).
    ``at`` instead of a slice of ``out``: no array view per infoset on the CFR hot path."""
    total = 0.0
    for k in range(lo, hi):
        if regrets[k] > 0.0:
            total += regrets[k]
    shift = at - lo
    for k in range(lo, hi):
        if total > 0.0:
            out[shift + k] = regrets[k] / total if regrets[k] > 0.0 else 0.0
        else:
            out[shift + k] = 1.0 / (hi - lo)


@njit(cache=True)
def regret_matching(regrets: np.ndarray, info_offset: np.ndarray, info_player: np.ndarray, player: int,
                    sigma: np.ndarray) -> None:
    """sigma(I, a) = R+(I, a) / sum_b R+(I, b), uniform when no regret is positive; for ``player``'s infosets
    (``player`` < 0: every infoset)."""
    for i in range(info_offset.shape[0] - 1):
        if player >= 0 and info_player[i] != player:
            continue
        lo = info_offset[i]
        hi = info_offset[i + 1]
        match_regrets(regrets, lo, hi, sigma, lo)


@njit(cache=True, inline="always")
def normalize_block(cumulative: np.ndarray, lo: int, hi: int, out: np.ndarray) -> None:
    """Average strategy of one infoset (or decision node): ``out[lo:hi]`` = ``cumulative[lo:hi]`` normalised,
    uniform where the sum is zero; every average-strategy step here and in the two-round game's MCCFR."""
    total = 0.0
    for k in range(lo, hi):
        total += cumulative[k]
    if total > 0.0:
        for k in range(lo, hi):
            out[k] = cumulative[k] / total
    else:
        u = 1.0 / (hi - lo)
        for k in range(lo, hi):
            out[k] = u


@njit(cache=True)
def normalize_average(cumulative: np.ndarray, info_offset: np.ndarray, out: np.ndarray) -> None:
    """Average strategy: cumulative sums normalised per infoset, uniform where the sum is zero."""
    for i in range(info_offset.shape[0] - 1):
        normalize_block(cumulative, info_offset[i], info_offset[i + 1], out)


@njit(cache=True)
def _cfr_player_pass(tree: TreeArrays, p: int, tables: CfrTables, avg_weight: float, work: _PassWork) -> None:
    """One CFR pass for player ``p``: reach top-down, then counterfactual values bottom-up, adding the
    instantaneous regrets of ``p`` to ``regrets`` and ``avg_weight * pi_p(h) * sigma`` to ``cumulative``.

    Floating-point order is chosen to reproduce a depth-first implementation (OpenSpiel's) bit for bit:
    opponent and chance reach are kept apart and multiplied at the end, and the bottom-up pass walks the levels
    deepest first but each level in increasing index, which is the depth-first (lexicographic) order in which
    the states of an infoset add their regrets. CFR+ is chaotic near zero regrets, so this order matters.
    """
    kind, player, parent, first_child = tree.kind, tree.player, tree.parent, tree.first_child
    num_children, chance_prob, infoset, utility = tree.num_children, tree.chance_prob, tree.infoset, tree.utility
    info_offset, level_offsets = tree.info_offset, tree.level_offsets
    sigma, regrets, cumulative = tables.sigma, tables.regrets, tables.cumulative
    reach_own, reach_opp, reach_chance, value = work.reach_own, work.reach_opp, work.reach_chance, work.value
    n_nodes = kind.shape[0]
    reach_own[0] = 1.0
    reach_opp[0] = 1.0
    reach_chance[0] = 1.0
    for n in range(1, n_nodes):
        par = parent[n]
        ro = reach_own[par]
        rx = reach_opp[par]
        rc = reach_chance[par]
        if kind[par] == KIND_CHANCE:
            rc *= chance_prob[n]
        else:
            s = sigma[info_offset[infoset[par]] + n - first_child[par]]
            if player[par] == p:
                ro *= s
            else:
                rx *= s
        reach_own[n] = ro
        reach_opp[n] = rx
        reach_chance[n] = rc
    sign = 1.0 if p == 0 else -1.0
    n_levels = level_offsets.shape[0] - 1
    for level in range(n_levels - 1, -1, -1):
        for n in range(level_offsets[level], level_offsets[level + 1]):
            k = kind[n]
            if k == KIND_TERMINAL:
                value[n] = sign * utility[n]
            elif k == KIND_CHANCE:
                fc = first_child[n]
                v = 0.0
                for c in range(fc, fc + num_children[n]):
                    v += chance_prob[c] * value[c]
                value[n] = v
            else:
                fc = first_child[n]
                na = num_children[n]
                off = info_offset[infoset[n]]
                v = 0.0
                for a in range(na):
                    v += sigma[off + a] * value[fc + a]
                value[n] = v
                if player[n] == p:
                    cf = reach_opp[n] * reach_chance[n]
                    if cf != 0.0:
                        for a in range(na):
                            regrets[off + a] += cf * (value[fc + a] - v)
                    ro = reach_own[n]
                    if ro != 0.0:
                        for a in range(na):
                            cumulative[off + a] += avg_weight * ro * sigma[off + a]


@njit(cache=True)
def cfr_iterations(tree: TreeArrays, tables: CfrTables, schedule: CfrSchedule, start_iteration: int,
                   iterations: int) -> None:
    """Run ``iterations`` iterations of the CFR family with alternating updates (player 0 then player 1).

    Iteration ``t`` (1-based, continuing from ``start_iteration``) adds ``t**gamma * pi_p * sigma`` to the
    cumulative strategy. ``floor``: regrets are clamped at 0 after each pass (CFR+). ``discount``: after each
    pass positive regrets are multiplied by t^alpha/(t^alpha+1) and negative ones by t^beta/(t^beta+1)
    (discounted CFR; linear CFR is alpha = beta = gamma = 1). ``tables.sigma`` is the current strategy and is
    kept consistent with ``tables.regrets`` (regret matching after each pass).
    """
    info_player, info_offset = tree.info_player, tree.info_offset
    sigma, regrets = tables.sigma, tables.regrets
    floor, discount, alpha, beta, gamma = schedule
    n_nodes = tree.kind.shape[0]
    work = _PassWork(np.empty(n_nodes), np.empty(n_nodes), np.empty(n_nodes), np.empty(n_nodes))
    n_info = info_offset.shape[0] - 1
    for it in range(iterations):
        t = float(start_iteration + it + 1)
        weight = t ** gamma if gamma != 0.0 else 1.0
        pos = t ** alpha / (t ** alpha + 1.0)
        neg = t ** beta / (t ** beta + 1.0)
        for p in range(2):
            _cfr_player_pass(tree, p, tables, weight, work)
            if floor or discount:
                for i in range(n_info):
                    if info_player[i] != p:
                        continue
                    for k in range(info_offset[i], info_offset[i + 1]):
                        r = regrets[k]
                        if floor:
                            if r < 0.0:
                                regrets[k] = 0.0
                        elif r > 0.0:
                            regrets[k] = r * pos
                        elif r < 0.0:
                            regrets[k] = r * neg
            regret_matching(regrets, info_offset, info_player, p, sigma)


@njit(cache=True)
def expected_value(tree: TreeArrays, policy0: np.ndarray, policy1: np.ndarray) -> float:
    """Player 0's expected payoff (chips) when player 0 plays ``policy0`` and player 1 plays ``policy1``."""
    kind, player, parent, first_child = tree.kind, tree.player, tree.parent, tree.first_child
    chance_prob, infoset, utility, info_offset = tree.chance_prob, tree.infoset, tree.utility, tree.info_offset
    n_nodes = kind.shape[0]
    reach = np.empty(n_nodes)
    reach[0] = 1.0
    total = 0.0
    for n in range(1, n_nodes):
        par = parent[n]
        r = reach[par]
        if kind[par] == KIND_CHANCE:
            r *= chance_prob[n]
        elif player[par] == 0:
            r *= policy0[info_offset[infoset[par]] + n - first_child[par]]
        else:
            r *= policy1[info_offset[infoset[par]] + n - first_child[par]]
        reach[n] = r
        if kind[n] == KIND_TERMINAL:
            total += r * utility[n]
    if kind[0] == KIND_TERMINAL:
        total = utility[0]
    return total


@njit(cache=True)
def best_response(tree: TreeArrays, policy: np.ndarray, p: int, best_action: np.ndarray) -> float:
    """Exact best-response value (chips, for player ``p``) against ``policy`` of the other player.

    Works level by level from the deepest: values are weighted by the opponent's and chance's reach, so an
    infoset's action values are sums over its states; every state of an infoset has the same depth (checked by
    the compiler), hence all of them are final when their level is reached. ``best_action[i]`` receives the
    chosen action of each of ``p``'s infosets (the first maximiser).
    """
    kind, player, parent, first_child = tree.kind, tree.player, tree.parent, tree.first_child
    num_children, chance_prob, infoset, utility = tree.num_children, tree.chance_prob, tree.infoset, tree.utility
    info_offset, level_offsets = tree.info_offset, tree.level_offsets
    n_nodes = kind.shape[0]
    reach = np.empty(n_nodes)
    reach[0] = 1.0
    for n in range(1, n_nodes):
        par = parent[n]
        r = reach[par]
        if kind[par] == KIND_CHANCE:
            r *= chance_prob[n]
        elif player[par] != p:
            r *= policy[info_offset[infoset[par]] + n - first_child[par]]
        reach[n] = r
    n_flat = info_offset[info_offset.shape[0] - 1]
    q = np.zeros(n_flat)
    w = np.empty(n_nodes)
    sign = 1.0 if p == 0 else -1.0
    n_levels = level_offsets.shape[0] - 1
    for level in range(n_levels - 1, -1, -1):
        lo = level_offsets[level]
        hi = level_offsets[level + 1]
        for n in range(lo, hi):
            k = kind[n]
            if k == KIND_TERMINAL:
                w[n] = sign * utility[n] * reach[n]
            elif k == KIND_CHANCE or player[n] != p:
                fc = first_child[n]
                v = 0.0
                for c in range(fc, fc + num_children[n]):
                    v += w[c]
                w[n] = v
            else:
                fc = first_child[n]
                off = info_offset[infoset[n]]
                for a in range(num_children[n]):
                    q[off + a] += w[fc + a]
        for n in range(lo, hi):
            if kind[n] == KIND_DECISION and player[n] == p:
                i = infoset[n]
                off = info_offset[i]
                best = 0
                for a in range(1, num_children[n]):
                    if q[off + a] > q[off + best]:
                        best = a
                best_action[i] = best
                w[n] = w[first_child[n] + best]
    root_value: float = w[0]
    return root_value


# -- Monte Carlo CFR (random numbers: pokerlab.stats.rng.uniform on the one-word state saved with the solver) ----

@njit(cache=True, inline="always")
def push_node(stack: np.ndarray, expanded: np.ndarray, top: int, node: int) -> int:
    """Push ``node``, not yet expanded, on the explicit stack of a depth-first traversal; the new top. The
    external-sampling traversals (here and in the two-round game's MCCFR) visit a node twice: expanding it
    (children pushed, or one sampled), then, once its children are done, computing its value."""
    top += 1
    stack[top] = node
    expanded[top] = False
    return top


@njit(cache=True)
def sample_action(probs: np.ndarray, n: int, rng: np.ndarray) -> int:
    """An index drawn from the distribution ``probs[:n]`` (the last one if rounding leaves the sum below 1)."""
    x = uniform(rng)
    acc = 0.0
    for a in range(n - 1):
        acc += probs[a]
        if x < acc:
            return a
    return n - 1


@njit(cache=True)
def external_sampling_iterations(tree: TreeArrays, regrets: np.ndarray, cumulative: np.ndarray, iterations: int,
                                 rng: np.ndarray, max_actions: int) -> None:
    """External-sampling MCCFR (Lanctot et al. 2009), alternating traversals for players 0 and 1.

    The traverser explores all its actions; chance and the opponent are sampled once per node; the opponent's
    current strategy is added to its cumulative strategy where it is sampled ("simple" averaging, unbiased up
    to a per-infoset constant that normalisation removes). An explicit stack replaces recursion.
    """
    kind, player, first_child, num_children = tree.kind, tree.player, tree.first_child, tree.num_children
    chance_prob, infoset, utility, info_offset = tree.chance_prob, tree.infoset, tree.utility, tree.info_offset
    n_nodes = kind.shape[0]
    stack = np.empty(n_nodes, dtype=np.int64)
    expanded = np.zeros(n_nodes, dtype=np.bool_)
    chosen = np.empty(n_nodes, dtype=np.int64)
    value = np.empty(n_nodes)
    probs = np.empty(max_actions)
    for _ in range(iterations):
        for p in range(2):
            sign = 1.0 if p == 0 else -1.0
            top = 0
            stack[0] = 0
            expanded[0] = False
            while top >= 0:
                n = stack[top]
                k = kind[n]
                if not expanded[top]:
                    if k == KIND_TERMINAL:
                        value[n] = sign * utility[n]
                        top -= 1
                        continue
                    expanded[top] = True
                    fc = first_child[n]
                    na = num_children[n]
                    if k == KIND_CHANCE:
                        for a in range(na):
                            probs[a] = chance_prob[fc + a]
                        c = fc + sample_action(probs, na, rng)
                        chosen[n] = c
                        top = push_node(stack, expanded, top, c)
                    elif player[n] != p:
                        off = info_offset[infoset[n]]
                        match_regrets(regrets, off, off + na, probs)
                        for a in range(na):
                            cumulative[off + a] += probs[a]
                        c = fc + sample_action(probs, na, rng)
                        chosen[n] = c
                        top = push_node(stack, expanded, top, c)
                    else:
                        for a in range(na):
                            top = push_node(stack, expanded, top, fc + a)
                else:
                    top -= 1
                    if k == KIND_CHANCE or player[n] != p:
                        value[n] = value[chosen[n]]
                    else:
                        fc = first_child[n]
                        na = num_children[n]
                        off = info_offset[infoset[n]]
                        match_regrets(regrets, off, off + na, probs)
                        v = 0.0
                        for a in range(na):
                            v += probs[a] * value[fc + a]
                        value[n] = v
                        for a in range(na):
                            regrets[off + a] += value[fc + a] - v


@njit(cache=True)
def outcome_sampling_iterations(tree: TreeArrays, regrets: np.ndarray, cumulative: np.ndarray, iterations: int,
                                rng: np.ndarray, epsilon: float, max_actions: int, max_depth: int) -> None:
    """Outcome-sampling MCCFR (Lanctot et al. 2009), alternating traversers, epsilon-on-policy exploration at
    the traverser's nodes, importance-weighted regrets and stochastically-weighted averaging (as OpenSpiel)."""
    kind, player, first_child, num_children = tree.kind, tree.player, tree.first_child, tree.num_children
    chance_prob, infoset, utility, info_offset = tree.chance_prob, tree.infoset, tree.utility, tree.info_offset
    path = np.empty(max_depth + 1, dtype=np.int64)
    path_action = np.empty(max_depth + 1, dtype=np.int64)
    path_sigma = np.empty(max_depth + 1)
    path_sample = np.empty(max_depth + 1)
    path_opp = np.empty(max_depth + 1)
    path_samp_reach = np.empty(max_depth + 1)
    probs = np.empty(max_actions)
    sprobs = np.empty(max_actions)
    for _ in range(iterations):
        for p in range(2):
            n = 0
            depth = 0
            opp_reach = 1.0
            samp_reach = 1.0
            while kind[n] != KIND_TERMINAL:
                fc = first_child[n]
                na = num_children[n]
                if kind[n] == KIND_CHANCE:
                    # chance is sampled with its own probabilities; they cancel in every ratio below
                    for a in range(na):
                        probs[a] = chance_prob[fc + a]
                    n = fc + sample_action(probs, na, rng)
                    continue
                off = info_offset[infoset[n]]
                match_regrets(regrets, off, off + na, probs)
                if player[n] == p:
                    for a in range(na):
                        sprobs[a] = epsilon / na + (1.0 - epsilon) * probs[a]
                else:
                    for a in range(na):
                        sprobs[a] = probs[a]
                    # average strategy of the non-traverser, weighted by its reach over the sample probability
                    wgt = opp_reach / samp_reach
                    for a in range(na):
                        cumulative[off + a] += wgt * probs[a]
                a = sample_action(sprobs, na, rng)
                path[depth] = n
                path_action[depth] = a
                path_sigma[depth] = probs[a]
                path_sample[depth] = sprobs[a]
                path_opp[depth] = opp_reach
                path_samp_reach[depth] = samp_reach
                depth += 1
                if player[n] != p:
                    opp_reach *= probs[a]
                samp_reach *= sprobs[a]
                n = fc + a
            value = utility[n] if p == 0 else -utility[n]
            for d in range(depth - 1, -1, -1):
                n = path[d]
                a = path_action[d]
                child_value = value / path_sample[d]  # importance-corrected value of the sampled action
                value = path_sigma[d] * child_value  # estimate of the node's value
                if player[n] == p:
                    off = info_offset[infoset[n]]
                    wgt = path_opp[d] / path_samp_reach[d]
                    for b in range(num_children[n]):
                        regrets[off + b] -= wgt * value
                    regrets[off + a] += wgt * child_value


# -- regret matching on a matrix game ------------------------------------------------------------------------

@njit(cache=True)
def matrix_regret_matching(payoff: np.ndarray, iterations: int, state: MatrixRegrets,
                           history: StrategyHistory) -> None:
    """Simultaneous regret matching for both players of a matrix game (row player maximises ``payoff``).

    Each iteration: strategies from positive regrets (uniform when none), expected payoff of every pure action
    against the opponent's current mixed strategy, regrets += action payoff - strategy payoff. The current and
    average strategies after iteration ``history.record_at[k]`` (1-based, increasing) are written to row ``k`` of
    the other arrays of ``history``, so the history stays bounded however many iterations run.
    """
    regrets_row, regrets_col, sum_row, sum_col = state
    record_at, cur_row_hist, cur_col_hist, avg_row_hist, avg_col_hist = history
    m, n = payoff.shape
    k = 0
    x = np.empty(m)
    y = np.empty(n)
    for it in range(iterations):
        match_regrets(regrets_row, 0, m, x)
        match_regrets(regrets_col, 0, n, y)
        ur = payoff @ y  # row player's payoff of each row against y
        uc = -(x @ payoff)  # column player's payoff of each column against x
        vr = 0.0
        for i in range(m):
            vr += x[i] * ur[i]
        vc = 0.0
        for j in range(n):
            vc += y[j] * uc[j]
        for i in range(m):
            regrets_row[i] += ur[i] - vr
            sum_row[i] += x[i]
        for j in range(n):
            regrets_col[j] += uc[j] - vc
            sum_col[j] += y[j]
        if k < record_at.shape[0] and record_at[k] == it + 1:
            sr = 0.0
            for i in range(m):
                sr += sum_row[i]
            sc = 0.0
            for j in range(n):
                sc += sum_col[j]
            for i in range(m):
                cur_row_hist[k, i] = x[i]
                avg_row_hist[k, i] = sum_row[i] / sr
            for j in range(n):
                cur_col_hist[k, j] = y[j]
                avg_col_hist[k, j] = sum_col[j] / sc
            k += 1
