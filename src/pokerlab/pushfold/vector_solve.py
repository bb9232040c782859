"""The push/fold solve on the compiled vector-form solver (every table the plain-numpy heads-up solve of
:mod:`pokerlab.pushfold.headsup` does not answer): build the game, run discounted CFR by the schedule of
:mod:`pokerlab.pushfold.schedule` (redeals of the 3+ way pots included), read the charts off the strategy, check
the sampling and measure the real game. :func:`pokerlab.pushfold.pushfold` checks the request and calls
:func:`solve_table`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.errors import Interrupted
from pokerlab.games.base import FOLD
from pokerlab.games.compiler import KIND_DECISION, KIND_TERMINAL
from pokerlab.games.pushfold import DISJOINT_COMBOS, JAM, PushFoldGame, Table, seat_names
from pokerlab.games.pushfold.game import Bounties
from pokerlab.games.vector import CompiledPublicTree, compile_public_tree
from pokerlab.limits import multiway_deals_fit
from pokerlab.progress import deferred_interrupts
from pokerlab.pushfold.fgs import FGSPayoff
from pokerlab.pushfold.real_game import real_game_check
from pokerlab.pushfold.request import TableRequest
from pokerlab.pushfold.result import Decision, PushFoldResult, Solved
from pokerlab.pushfold.schedule import ITERATIONS, REDEAL, TIME, SolveSchedule
from pokerlab.pushfold.situation import ICMPayoff, build_game
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import (
    BestResponseGains,
    VectorStrategy,
    best_response_gains,
    vector_node_values,
)

Progress = Callable[[int, float], None]


def solve_table(request: TableRequest, payout_array: np.ndarray | None, field_array: np.ndarray | None, *,
                target: float, iterations: int | None, time_limit: float | None, multiway_samples: int,
                uniform_deals: int, seed: int, algorithm: str, check_sampling: bool, multiway_proposal_share: float,
                progress: Progress | None, real_game_deals: int, bounties: Bounties | None, fgs_depth: int
                ) -> PushFoldResult:
    """:func:`pokerlab.pushfold.pushfold` of a checked request (its arguments, checked; ``uniform_deals`` the deals
    of the 3+ way pots before the redeal) on the compiled solver."""
    table = Table(*request)
    payoff_model: Callable[[np.ndarray, np.ndarray, np.ndarray], ICMPayoff] = (
        ICMPayoff if fgs_depth == 0 else partial(FGSPayoff, table=table, depth=fgs_depth))
    start = time.perf_counter()
    # Ctrl-C inside a compiled kernel would surface as a SystemError traceback: every kernel call below runs
    # inside deferred_interrupts, which delivers Ctrl-C when the call returns (one iteration at most)
    try:
        with deferred_interrupts():
            game, model, icm_payoff = build_game(table, payout_array, field_array, multiway_samples=uniform_deals,
                                                 seed=seed, bounties=bounties, payoff_model=payoff_model)
            tree = compile_public_tree(game)
    except KeyboardInterrupt:
        raise Interrupted("while building the game: nothing solved yet") from None
    target_value = target
    if icm_payoff is not None:
        chips = float(np.sum(table.stacks)) + float(icm_payoff.field.sum())
        target_value = target * float(icm_payoff.payouts.sum()) * table.big_blind / chips
    # 3+ way pots: solved first on uniform deals, then redealt from the ranges that reach them (importance
    # sampling, PushFoldGame.redealt), going on from the same regrets; the target counts only after the redeal
    # (a solution of the uniform deals' game hides a sampling error 10x the target, docs/benchmarks.md)
    schedule = SolveSchedule(
        target=target_value, iterations=iterations, deadline=time_limit, clock=lambda: time.perf_counter() - start,
        redeal=multiway_proposal_share > 0 and any(len(t.participants) > 2 for t in game.terminals.values()),
        can_double=multiway_deals_fit(table.seats, 2 * multiway_samples))
    solver = VectorSolver(tree, algorithm)
    best: _Checked | None = None
    before_redeal: _Checked | None = None  # the uniform deals' best, kept until the redealt game has its own
    notes: list[str] = []
    stop = ITERATIONS
    try:
        for player in range(tree.num_players):  # the game's per-seat caches, one seat per block
            with deferred_interrupts():
                solver.prepare(player)
        while True:
            for _ in range(schedule.next_batch(solver.iteration)):
                with deferred_interrupts():
                    solver.iterate(1)
                if schedule.out_of_time():
                    break
            best = _better(best, game, tree, solver, table.seats)
            if progress is not None:
                progress(solver.iteration, best.gain)
            step = schedule.after_check(solver.iteration, best.gain)
            if step.action == REDEAL:
                with deferred_interrupts():  # Ctrl-C here keeps the game solved so far (nothing is replaced)
                    game, tree, solver = _redealt(best, solver, multiway_proposal_share,
                                                  step.deals_factor * multiway_samples, algorithm)
                before_redeal, best = best, None
                continue
            if step.stops:
                stop = step.action
                break
    except KeyboardInterrupt:
        stop = "interrupted"
    if best is None and before_redeal is not None:  # stopped before the redealt game's first check
        best = before_redeal
        notes.append("stopped before the redealt game's first gain check: the strategy and gains are those of "
                     "the game before the redeal")
    if best is None:  # stopped before the first check: no gains to show (computing them costs seconds)
        raise Interrupted(f"after {solver.iteration} iterations, before the first best-response check: "
                          "no strategy to show yet")
    if stop == TIME and schedule.redeal_pending:
        notes.append("the time limit came before the redeal: 3+ way pots valued on the uniform deals only")
    game, tree, strategy, gains = best.game, best.tree, best.strategy, best.gains
    try:
        with deferred_interrupts():
            jam, call, ev_jam, ev_fold = _charts(game, tree, strategy)
    except KeyboardInterrupt:  # raised once the charts are complete: return them, and say so
        stop = "interrupted"
    multiway_error = game.multiway_error() if table.seats > 2 else 0.0
    check_gains = None
    if check_sampling and table.seats > 2 and stop != "interrupted":
        if schedule.out_of_time():
            notes.append("the time limit came before the sampling check: multiway_check_gains not measured")
        else:
            try:
                with deferred_interrupts():
                    check_gains = _sampling_check(game, strategy)
            except KeyboardInterrupt:  # Ctrl-C during the check: the solution without it
                stop = "interrupted"
    real = None
    if (check_sampling and real_game_deals > 0 and table.seats > 2 and stop != "interrupted"
            and not schedule.out_of_time()):
        try:
            with deferred_interrupts():
                real = real_game_check(game, tree, strategy, deals=real_game_deals, seed=seed)
        except KeyboardInterrupt:
            stop = "interrupted"
    if real is not None:
        values, value_errors = real.values, real.value_errors
        over = real.over_target(target_value)
        if over:
            notes.append("OVER TARGET in the real game: " + ", ".join(
                f"{seat_names(table.seats)[i]} can gain {real.gains[i]:.2e} +- {real.gain_errors[i]:.1e} "
                f"{'bb' if model == 'chipev' else 'money'}" for i in over)
                + f" by deviating (target {target_value:.2e}; measured on {real.deals:,} joint deals)")
    else:
        values, value_errors, over = _model_values(tree, strategy), (0.0,) * table.seats, ()
        if table.seats > 2:
            notes.append("seat values are the solver's model's (card removal against each seat's own hand "
                         "only), not measured in the real game")
    fgs = icm_payoff if isinstance(icm_payoff, FGSPayoff) else None
    return PushFoldResult(
        seats=seat_names(table.seats), stacks=table.stacks, big_blind=table.big_blind, table=request,
        model=model if fgs is None else "fgs",
        gain_unit="bb" if model == "chipev" else "money", jam=jam, call=call, ev_jam=ev_jam, ev_fold=ev_fold,
        gains=tuple(float(g) for g in gains.gains), iterations=solver.iteration,
        elapsed_s=time.perf_counter() - start, stop_reason=stop, multiway_samples=game.multiway_samples,
        multiway_error=multiway_error, multiway_check_gains=check_gains, solved=Solved.given(game, tree, strategy),
        decisions=decisions(tree, strategy), notes=tuple(notes), values=values, value_errors=value_errors,
        real_game=real, target=target_value, over_target=over, bounties=bounties,
        fgs_depth=0 if fgs is None else fgs.depth, fgs_pruned=0.0 if fgs is None else fgs.pruned,
    )



def decisions(tree: CompiledPublicTree, strategy: VectorStrategy) -> tuple[Decision, ...]:
    """Every decision node of ``tree`` with its path, seat, action and per-class probability of jamming or
    calling under ``strategy``."""
    game = tree.game
    assert isinstance(game, PushFoldGame)
    out = []
    for n in tree.decision_nodes():
        state = tree.states[n]
        path = tuple((int(s), int(a)) for s, a in zip(game.decision_seats, state, strict=False))
        out.append(Decision(path, int(tree.tree.player[n]), tree.labels[n][1], strategy.block(int(n))[:, 1].copy()))
    return tuple(out)


def _model_values(tree: CompiledPublicTree, strategy: VectorStrategy) -> tuple[float, ...]:
    """Each seat's expected payoff in the solver's game (exact heads-up)."""
    return tuple(float(vector_node_values(tree, strategy, seat)[0] @ tree.weights[seat])
                 for seat in range(tree.num_players))


@dataclass(frozen=True)
class _Checked:
    """A profile whose gains were computed, with the game and tree they were computed in."""

    gain: float
    strategy: VectorStrategy
    gains: BestResponseGains
    game: PushFoldGame
    tree: CompiledPublicTree


def _better(best: _Checked | None, game: PushFoldGame, tree: CompiledPublicTree, solver: VectorSolver,
            seats: int) -> _Checked:
    """``best`` or a profile of ``solver`` with a smaller largest gain: for 3+ players neither the average nor
    the current strategy is sure to improve every iteration, so both are checked and the better kept."""
    candidates = [solver.average_strategy()] + ([solver.current_strategy()] if seats > 2 else [])
    for candidate in candidates:
        with deferred_interrupts():
            gains = best_response_gains(tree, candidate)
        if best is None or max(gains.gains) < best.gain:
            best = _Checked(max(gains.gains), candidate, gains, game, tree)
    assert best is not None
    return best


def multiway_ranges(tree: CompiledPublicTree, strategy: VectorStrategy) -> dict[tuple[int, ...], np.ndarray]:
    """Per 3+ way terminal state, every seat's strategy weights on the way there under ``strategy``
    (``(seats, 169)``: its reach over the class weights), the ``ranges`` of :meth:`PushFoldGame.redealt`.

    >>> from pokerlab.games.pushfold import Table
    >>> tree = compile_public_tree(PushFoldGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), lambda f: f - 10.0))
    >>> ranges = multiway_ranges(tree, VectorStrategy.uniform(tree))
    >>> sorted(ranges), float(ranges[(1, 1, 1)][0, 0])  # everyone jams or calls: the one 3-way pot, 1/2 each
    ([(1, 1, 1)], 0.5)
    """
    game = tree.game
    assert isinstance(game, PushFoldGame)
    t = tree.tree
    reach = np.empty((tree.num_nodes, tree.num_players, NUMBER_OF_CLASSES))
    reach[0] = 1.0
    for node in range(tree.num_nodes):  # breadth-first: parents before children
        if t.kind[node] != KIND_DECISION:
            continue
        q = int(t.player[node])
        block = strategy.block(node)
        for a in range(int(t.num_children[node])):
            child = int(t.first_child[node]) + a
            reach[child] = reach[node]
            reach[child, q] *= block[:, a]
    return {tree.states[int(node)]: reach[node] for node in np.flatnonzero(t.kind == KIND_TERMINAL)
            if len(game.terminals[tree.states[int(node)]].participants) > 2}


def _redealt(best: _Checked, solver: VectorSolver, share: float, deals: int, algorithm: str
             ) -> tuple[PushFoldGame, CompiledPublicTree, VectorSolver]:
    """The game of ``best`` with its 3+ way pots redealt on ``deals`` deals from the ranges of ``best``'s
    profile, its tree, and a solver on it that goes on from ``solver``'s regrets (every seat prepared)."""
    ranges = multiway_ranges(best.tree, best.strategy)
    best.game.release_deals()  # the new deals take their memory (the old are drawn again if needed)
    game = best.game.redealt(ranges, share, deals)
    tree = dataclasses.replace(best.tree, game=game)
    continued = _continued(solver, tree, algorithm)
    for player in range(tree.num_players):
        continued.prepare(player)
    return game, tree, continued


def _sampling_check(game: PushFoldGame, strategy: VectorStrategy) -> tuple[float, ...]:
    """Each seat's best-response gain against ``strategy`` in ``game`` valued on independent deals."""
    game.release_deals()  # the check's deals take their memory: the peak is one set of deals, not two
    other = compile_public_tree(game.resampled())
    moved = VectorStrategy(other, strategy.offsets, strategy.probs)
    return tuple(float(g) for g in best_response_gains(other, moved).gains)


def _continued(solver: VectorSolver, tree: CompiledPublicTree, algorithm: str) -> VectorSolver:
    """A solver on ``tree`` (the same public tree, another valuation) that goes on from ``solver``'s regrets
    and current strategy at its iteration count; the average strategy starts afresh."""
    other = VectorSolver(tree, algorithm)
    other.regrets[:] = solver.regrets
    other.sigma[:] = solver.sigma
    other.iteration = solver.iteration
    return other


def _charts(game: PushFoldGame, tree: CompiledPublicTree, strategy: VectorStrategy
            ) -> tuple[np.ndarray, dict[tuple[int, int], np.ndarray], np.ndarray, np.ndarray]:
    """First-in jam and lone-jam call probabilities, and first-in EVs, read off the strategy."""
    n = game.table.seats
    jam = np.full((n, NUMBER_OF_CLASSES), np.nan)
    ev_jam = np.full((n, NUMBER_OF_CLASSES), np.nan)
    ev_fold = np.full((n, NUMBER_OF_CLASSES), np.nan)
    call: dict[tuple[int, int], np.ndarray] = {}
    node_of = {state: i for i, state in enumerate(tree.states)}
    dm = game.decision_seats
    for k, seat in enumerate(dm):
        first_in = tuple([FOLD] * k)
        node = node_of.get(first_in)
        if node is not None and tree.tree.kind[node] == KIND_DECISION:
            jam[seat] = strategy.block(node)[:, 1]
            values, reach = _action_values(game, tree, strategy, node)
            ev_jam[seat] = values[:, 1] / np.where(reach > 0, reach, 1.0)
            ev_fold[seat] = values[:, 0] / np.where(reach > 0, reach, 1.0)
        for j in range(k):
            state = tuple([FOLD] * j + [JAM] + [FOLD] * (k - j - 1))
            node = node_of.get(state)
            if node is not None and tree.tree.kind[node] == KIND_DECISION:
                call[(seat, dm[j])] = strategy.block(node)[:, 1].copy()
    return jam, call, ev_jam, ev_fold


def _action_values(game: PushFoldGame, tree: CompiledPublicTree, strategy: VectorStrategy, node: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Counterfactual value of each action of the acting seat at ``node`` (``(169, 2)``) and the probability,
    per class of that seat, that the others play to ``node`` (removal-conditioned as in the game)."""
    t = tree.tree
    player = int(t.player[node])
    reaches = [w.copy() for w in tree.weights]
    path = []
    n = node
    while n > 0:
        path.append(n)
        n = int(t.parent[n])
    for child in reversed(path):
        parent = int(t.parent[child])
        q = int(t.player[parent])
        reaches[q] = reaches[q] * strategy.block(parent)[:, int(child - t.first_child[parent])]

    fc = int(t.first_child[node])
    below = vector_node_values(tree, strategy, player)
    values = np.stack([below[fc + a] for a in range(int(t.num_children[node]))], axis=1)
    reach = np.ones(NUMBER_OF_CLASSES)
    for q in range(game.table.seats):
        if q != player:
            reach *= game.equity.class_pairs @ (reaches[q] / game.class_weights) / DISJOINT_COMBOS
    return values, reach
