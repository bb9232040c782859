"""Heads-up push/fold solved in plain numpy: the same discounted CFR as the compiled vector-form solver, on the
same game, with no compiled kernel to load (a warm ``pokerlab pushfold --stacks 10,10`` spent 1 s loading numba
and the push/fold kernels around a 20 ms solve).

The game: the small blind jams or folds; after a jam the big blind calls or folds. Private hands are the 169
classes weighted ``combos / 1,326``; card removal and the showdowns are exact through the 169 x 169 class tables
(:func:`pokerlab.equity.headsup_table.class_tables`, the same numbers as the game's). Each seat's counterfactual
values are then a few 169 x 169 matrix-vector products, and one iteration (both seats' alternating updates) costs
tens of microseconds. The iterations, discounting, averaging, gain checks and the schedule are those of
:class:`pokerlab.solvers.vector.VectorSolver` (``dcfr``) run by :func:`pokerlab.pushfold.pushfold`, so this route
returns the kernel route's result (tests/pushfold/test_headsup.py holds them equal, and both against an LP).

It answers a table of two seats without bounties or FGS, with the default algorithm, where both seats decide, or
the big blind is all in by posting (the small blind jams or folds, a jam is a showdown), or both are (no decision:
the hand is a showdown), under chip EV or under ICM with at most :data:`~pokerlab.icm.small_field.PLAIN_MAX_PLAYERS`
players in the tournament (:func:`answers`); the compiled route (:mod:`pokerlab.pushfold.vector_solve`) takes
the rest. The stacks after each outcome follow the table rules (:mod:`pokerlab.games.pushfold.rules`) for two
seats, and the ICM payoff is :class:`pokerlab.pushfold.situation.ICMPayoff`'s (the tests hold both equal to
theirs). The game, its compiled tree and the strategy in vector form are built only when a caller reads them
(:class:`~pokerlab.pushfold.result.Solved`).

>>> r = solve_heads_up(checked_table([10, 10], [0.5, 1.0], 0.0, 0.0), None, None, target=1e-3, iterations=None,
...                    time_limit=None, uniform_deals=1000, seed=0, progress=None)
>>> r.seats, r.max_gain <= 1e-3, round(r.percent(r.jam[0]), 1)
(('SB', 'BB'), True, 58.6)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from pokerlab.cards.classes import CLASS_SIZES
from pokerlab.equity.headsup_table import ClassTables, class_tables
from pokerlab.errors import Interrupted
from pokerlab.icm.small_field import PLAIN_MAX_PLAYERS, finish_places
from pokerlab.limits import multiway_deals_fit
from pokerlab.pushfold.request import TableRequest, checked_table
from pokerlab.pushfold.result import JAM, Decision, Parts, PushFoldResult, Solved
from pokerlab.pushfold.schedule import ITERATIONS, SolveSchedule

SEATS = ("SB", "BB")
"""The seats' names heads-up (:func:`pokerlab.games.pushfold.seat_names`)."""
DISJOINT_COMBOS = 1225  # combos one combo leaves: C(50, 2)
SCALE = 1.0 / DISJOINT_COMBOS  # a lone winner's value: the other seat's removal-conditioned reach times this
ALPHA, BETA, GAMMA = 1.5, 0.0, 2.0
"""Discounted CFR's parameters (:data:`pokerlab.solvers.core.ALGORITHMS` ``"dcfr"``; a test holds them equal)."""
ALGORITHM = "dcfr"
FORCED = np.array([0.0, 1.0])
"""The fold / jam-or-call probabilities of a seat all in by posting: it is in the hand with every class."""

Progress = Callable[[int, float], None]


def answers(request: TableRequest, payouts: np.ndarray | None, field: np.ndarray | None, *, bounties: bool,
            fgs_depth: int, algorithm: str) -> bool:
    """Whether this route solves the table: two seats, no bounties, no FGS, the default algorithm, chip EV or ICM
    with at most :data:`PLAIN_MAX_PLAYERS` players in all, and a small blind that decides unless both seats are all
    in by posting (a short small blind facing a big blind that decides is a different tree: the compiled route's)."""
    if request.seats != 2 or bounties or fgs_depth != 0 or algorithm != ALGORITHM:
        return False
    if payouts is not None and 2 + (0 if field is None else field.size) > PLAIN_MAX_PLAYERS:
        return False
    small_blind, big_blind = deciders(request)
    return small_blind or not big_blind


def deciders(request: TableRequest) -> tuple[bool, bool]:
    """Whether the small blind and the big blind each have a decision: a seat the forced bets put all in has
    none."""
    dead, live = forced_bets(request)
    decides = dead + live < np.asarray(request.stacks)
    return bool(decides[0]), bool(decides[1])


def forced_bets(request: TableRequest) -> tuple[np.ndarray, np.ndarray]:
    """``(dead, live)`` chips each seat posts (:func:`pokerlab.games.pushfold.rules.post_forced_bets` for two
    seats: the ante, then the blind; a big-blind ante after the big blind's blind; each capped by the stack)."""
    stacks = request.stacks
    dead, live = np.zeros(2), np.zeros(2)
    for seat, blind in ((0, request.small_blind), (1, request.big_blind)):
        if request.bb_ante > 0 and seat == 1:
            live[seat] = min(blind, stacks[seat])
            dead[seat] = min(request.bb_ante, stacks[seat] - live[seat])
        else:
            dead[seat] = min(request.ante, stacks[seat])
            live[seat] = min(blind, stacks[seat] - dead[seat])
    return dead, live


class Outcomes(NamedTuple):
    """The seats' stacks after each outcome of the three terminals: the small blind folds (``fold``, one row),
    jams and is not called (``steal``, one row), jams and is called (``showdown``: the small blind wins, the big
    blind wins, a tie)."""

    fold: np.ndarray
    steal: np.ndarray
    showdown: np.ndarray


def outcomes(request: TableRequest) -> Outcomes:
    """The stacks after every outcome by the table rules (side pots and refunds as
    :func:`pokerlab.games.pushfold.rules.side_pots` cuts them, each pot to its best hands, split equally)."""
    stacks = np.asarray(request.stacks, dtype=np.float64)
    dead, live = forced_bets(request)
    posted = dead + live

    def settle(contributions: np.ndarray, inside: tuple[int, ...], winners: tuple[int, ...]) -> np.ndarray:
        bets = contributions - dead
        previous, refunds = 0.0, np.zeros(2)
        pots: list[tuple[float, list[int]]] = []
        while True:  # the levels of the seats in the hand, lowest first; the antes join the main pot
            levels = [bets[j] for j in inside if bets[j] > previous or (not pots and bets[j] == previous)]
            if not levels:
                break
            level = min(levels)
            amount = 0.0
            for j in range(2):
                amount += min(bets[j], level) - min(bets[j], previous)
            if not pots:
                amount += (0.0 + dead[0]) + dead[1]
            pots.append((amount, [j for j in inside if bets[j] >= level]))
            previous = level
        for j in range(2):
            refunds[j] = max(bets[j] - previous, 0.0)
        final = stacks - contributions + refunds
        for amount, eligible in pots:
            best = [j for j in eligible if j in winners] or eligible
            for j in best:
                final[j] += amount / len(best)
        settled: np.ndarray = final
        return settled

    jammed = posted.copy()
    jammed[0] = stacks[0]
    return Outcomes(settle(posted, (1,), (1,))[None, :], settle(jammed, (0,), (0,))[None, :],
                    np.array([settle(stacks, (0, 1), winners) for winners in ((0,), (1,), (0, 1))]))


def icm_payoff(final: np.ndarray, stacks: np.ndarray, payouts: np.ndarray, field: np.ndarray) -> np.ndarray:
    """Each seat's prize equity after the hand (:class:`pokerlab.pushfold.situation.ICMPayoff`'s rule: a busted
    seat takes the last place left, the survivors and the field share the rest by ICM), exactly, in plain numpy
    (:func:`pokerlab.icm.small_field.finish_places`)."""
    total = stacks.size + field.size
    paid_all = np.zeros(total)
    paid_all[: payouts.size] = payouts
    scale = stacks.sum() + field.sum()
    busted = np.flatnonzero(final <= 1e-12 * scale)
    alive = np.flatnonzero(final > 1e-12 * scale)
    equity = np.zeros(final.size)
    place = total - busted.size
    starts = stacks[busted]
    for value in sorted(set(starts.tolist()), reverse=True):
        group = busted[starts == value]
        equity[group] = paid_all[place: place + group.size].mean()
        place += group.size
    survivors = np.concatenate([final[alive], field])
    paid = paid_all[: survivors.size]
    if survivors.size == 1:
        equity[alive] = paid[0]
    elif np.any(paid > 0):
        k = int(np.flatnonzero(paid > 0)[-1]) + 1
        places = finish_places(survivors / survivors.mean(), k)
        equity[alive] = (places @ paid[:k])[: alive.size]
    return equity


class Utilities(NamedTuple):
    """Each seat's payoff (columns) at the three terminals: ``fold`` and ``steal`` one row, ``showdown`` three
    (the small blind wins, the big blind wins, a tie)."""

    fold: np.ndarray
    steal: np.ndarray
    showdown: np.ndarray


def utilities(request: TableRequest, payouts: np.ndarray | None, field: np.ndarray | None) -> Utilities:
    """The payoffs of every outcome: chip EV (big blinds) without payouts, ICM money with them."""
    stacks = np.asarray(request.stacks, dtype=np.float64)
    rows = outcomes(request)
    if payouts is None:
        return Utilities(*((final - stacks) / request.big_blind for final in rows))
    others = np.zeros(0) if field is None else field
    return Utilities(*(np.array([icm_payoff(final, stacks, payouts, others) for final in block]) for block in rows))


class HeadsUpGame:
    """The heads-up game's values in plain numpy (see the module docstring): ``jam`` and ``call`` are the small
    blind's per-class jam probability and the big blind's call probability after a jam. Values are the compiled
    valuation's (:mod:`pokerlab.games.pushfold.valuation`): a seat's counterfactual value per class, the
    others' reach conditioned on its hand."""

    def __init__(self, payoffs: Utilities, tables: ClassTables, weights: np.ndarray,
                 decides: tuple[bool, bool] = (True, True)) -> None:
        self.payoffs = payoffs
        self.decides = decides  # a seat all in by posting has no decision: it plays its forced jam or call
        self.pairs, self.win, self.tie = tables
        self.weights = weights
        self.removal_all = self.pairs @ np.ones(weights.size)  # the opponent with every hand

    def removal(self, x: np.ndarray) -> np.ndarray:
        removal: np.ndarray = self.pairs @ x
        return removal

    def _showdown(self, x: np.ndarray, won: float, lost: float, tied: float) -> np.ndarray:
        win, tie = self.win @ x, self.tie @ x
        lose = self.removal(x) - win - tie
        values: np.ndarray = (won * win + lost * lose + tied * tie) / DISJOINT_COMBOS
        return values

    def small_blind_values(self, call: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The small blind's counterfactual values of folding and of jamming, per class."""
        u = self.payoffs
        fold = SCALE * self.removal_all * u.fold[0, 0]
        called = self.weights * call / self.weights
        passed = self.weights * (1.0 - call) / self.weights
        steal = SCALE * self.removal(passed) * u.steal[0, 0]
        showdown = self._showdown(called, u.showdown[0, 0], u.showdown[1, 0], u.showdown[2, 0])
        return fold, steal + showdown

    def big_blind_values(self, jam: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The big blind's counterfactual values when the small blind folds, and of folding and calling a jam."""
        u = self.payoffs
        folded = self.weights * (1.0 - jam) / self.weights
        jammed = self.weights * jam / self.weights
        walk = SCALE * self.removal(folded) * u.fold[0, 1]
        fold = SCALE * self.removal(jammed) * u.steal[0, 1]
        call = self._showdown(jammed, u.showdown[1, 1], u.showdown[0, 1], u.showdown[2, 1])
        return walk, fold, call


class Gains(NamedTuple):
    """Each seat's value under the profile, its best-response value and the gain (best response - value)."""

    values: tuple[float, float]
    best: tuple[float, float]
    gains: tuple[float, float]


def profile_gains(game: HeadsUpGame, jam: np.ndarray, call: np.ndarray) -> Gains:
    """Exact values and best-response gains of both seats for the per-class ``(169, 2)`` blocks ``jam`` (the
    small blind's fold / jam) and ``call`` (the big blind's fold / call). A seat without a decision gains 0."""
    w = game.weights
    fold, jams = game.small_blind_values(call[:, 1])
    sb = (0.0 + jam[:, 0] * fold) + jam[:, 1] * jams
    sb_best = np.maximum(fold, jams) if game.decides[0] else sb
    walk, folds, calls = game.big_blind_values(jam[:, 1])
    bb = walk + ((0.0 + call[:, 0] * folds) + call[:, 1] * calls)
    bb_best = walk + np.maximum(folds, calls) if game.decides[1] else bb
    values = (float(w @ sb), float(w @ bb))
    best = (float(w @ sb_best), float(w @ bb_best))
    return Gains(values, best, (best[0] - values[0], best[1] - values[1]))


class DiscountedCFR:
    """Discounted CFR on the heads-up game, step for step as :class:`pokerlab.solvers.vector.VectorSolver`
    (``dcfr``) runs it: alternating updates (small blind, then big blind), iteration ``t`` adding its regrets,
    discounting positive regrets by ``t^1.5 / (t^1.5 + 1)`` and negative ones by one half, regret matching, and
    averaging with weight ``t^2``. ``sigma``/``cumulative``: ``(2, 169, 2)`` per seat's decision, actions
    (fold, jam or call); a seat without a decision is never updated and always jams or calls."""

    def __init__(self, game: HeadsUpGame) -> None:
        self.game = game
        self.regrets = np.zeros((2, game.weights.size, 2))
        self.cumulative = np.zeros_like(self.regrets)
        self.sigma = np.full_like(self.regrets, 0.5)
        self.iteration = 0
        for seat, decides in enumerate(game.decides):
            if not decides:
                self.sigma[seat] = FORCED

    def iterate(self) -> None:
        t = float(self.iteration + 1)
        weight = t ** GAMMA
        positive = t ** ALPHA / (t ** ALPHA + 1.0)
        negative = t ** BETA / (t ** BETA + 1.0)
        game, sigma = self.game, self.sigma
        if game.decides[0]:
            fold, jam = game.small_blind_values(sigma[1, :, 1])
            self._update(0, fold, jam, weight, positive, negative)
        if game.decides[1]:
            _, fold, call = game.big_blind_values(sigma[0, :, 1])
            self._update(1, fold, call, weight, positive, negative)
        self.iteration += 1

    def _update(self, seat: int, first: np.ndarray, second: np.ndarray, weight: float, positive: float,
                negative: float) -> None:
        sigma = self.sigma[seat]
        value = (0.0 + sigma[:, 0] * first) + sigma[:, 1] * second
        regrets = self.regrets[seat]
        regrets[:, 0] += first - value
        regrets[:, 1] += second - value
        self.cumulative[seat] += (weight * self.game.weights)[:, None] * sigma
        regrets *= np.where(regrets > 0.0, positive, np.where(regrets < 0.0, negative, 1.0))
        plus = np.where(regrets > 0.0, regrets, 0.0)
        total = 0.0 + plus[:, 0] + plus[:, 1]
        sigma[:] = np.where(total[:, None] > 0.0, plus / np.where(total > 0.0, total, 1.0)[:, None], 0.5)

    def average(self) -> np.ndarray:
        """The average strategy, ``(2, 169, 2)`` (uniform where nothing accumulated; the forced action of a seat
        without a decision)."""
        total = self.cumulative.sum(axis=2, keepdims=True)
        average: np.ndarray = np.where(total > 0.0, self.cumulative / np.where(total > 0.0, total, 1.0), 0.5)
        for seat, decides in enumerate(self.game.decides):
            if not decides:
                average[seat] = FORCED
        return average


def solve_heads_up(request: TableRequest, payouts: np.ndarray | None, field: np.ndarray | None, *, target: float,
                   iterations: int | None, time_limit: float | None, uniform_deals: int, seed: int,
                   progress: Progress | None) -> PushFoldResult:
    """:func:`pokerlab.pushfold.pushfold` of a checked heads-up request that :func:`answers` says this route
    solves (its arguments, checked; ``uniform_deals`` and ``seed`` only name the game built on request)."""
    start = time.perf_counter()
    try:
        payoffs = utilities(request, payouts, field)
        tables = class_tables()
    except KeyboardInterrupt:
        raise Interrupted("while building the game: nothing solved yet") from None
    decides = deciders(request)
    game = HeadsUpGame(payoffs, tables, CLASS_SIZES / 1326.0, decides)
    target_value = target
    if payouts is not None:
        chips = float(np.sum(request.stacks)) + float(0.0 if field is None else field.sum())
        target_value = target * float(payouts.sum()) * request.big_blind / chips
    schedule = SolveSchedule(target=target_value, iterations=iterations, deadline=time_limit,
                             clock=lambda: time.perf_counter() - start, redeal=False,
                             can_double=multiway_deals_fit(2, 2 * uniform_deals))
    solver = DiscountedCFR(game)
    best: tuple[float, np.ndarray, Gains] | None = None
    stop = ITERATIONS
    try:
        while True:
            for _ in range(schedule.next_batch(solver.iteration)):
                solver.iterate()
                if schedule.out_of_time():
                    break
            average = solver.average()
            gains = profile_gains(game, average[0], average[1])
            if best is None or max(gains.gains) < best[0]:
                best = (max(gains.gains), average, gains)
            if progress is not None:
                progress(solver.iteration, best[0])
            step = schedule.after_check(solver.iteration, best[0])
            if step.stops:
                stop = step.action
                break
    except KeyboardInterrupt:
        stop = "interrupted"
    if best is None:
        raise Interrupted(f"after {solver.iteration} iterations, before the first best-response check: "
                          "no strategy to show yet")
    _, strategy, gains = best
    jam, call = strategy[0], strategy[1]
    fold_value, jam_value = game.small_blind_values(call[:, 1])
    reach = game.removal_all / DISJOINT_COMBOS  # the big blind's reach, conditioned on the small blind's hand
    divisor = np.where(reach > 0, reach, 1.0)
    nan = np.full(jam.shape[0], np.nan)
    model = "chipev" if payouts is None else "icm"
    jams, calls = decides
    decisions = ((Decision((), 0, "jam", jam[:, 1].copy()),) if jams else ()) + (
        (Decision(((0, JAM),), 1, "call", call[:, 1].copy()),) if calls else ())
    return PushFoldResult(
        seats=SEATS, stacks=request.stacks, big_blind=request.big_blind, table=request, model=model,
        gain_unit="bb" if payouts is None else "money", jam=np.stack([jam[:, 1].copy() if jams else nan, nan]),
        call={(1, 0): call[:, 1].copy()} if calls else {},
        ev_jam=np.stack([jam_value / divisor if jams else nan, nan]),
        ev_fold=np.stack([fold_value / divisor if jams else nan, nan]), gains=gains.gains,
        iterations=solver.iteration, elapsed_s=time.perf_counter() - start, stop_reason=stop,
        multiway_samples=uniform_deals, multiway_error=0.0, multiway_check_gains=None,
        solved=Solved(lambda: _vector_parts(request, payouts, field, uniform_deals, seed, jam, call, decides)),
        decisions=decisions, values=gains.values, value_errors=(0.0, 0.0), target=target_value)


def _vector_parts(request: TableRequest, payouts: np.ndarray | None, field: np.ndarray | None, deals: int, seed: int,
                  jam: np.ndarray, call: np.ndarray, decides: tuple[bool, bool]) -> Parts:
    """The game the compiled route would have solved, its compiled tree and this solve's strategy in vector
    form (imported here: they load the compiled kernels)."""
    from pokerlab.games.pushfold import Table
    from pokerlab.games.vector import compile_public_tree
    from pokerlab.pushfold.situation import build_game
    from pokerlab.solvers.vector_strategy import VectorStrategy

    game, _, _ = build_game(Table(*request), payouts, field, multiway_samples=deals, seed=seed)
    tree = compile_public_tree(game)
    strategy = VectorStrategy.uniform(tree)
    if decides[0]:
        strategy.block(strategy.node_of(()))[:] = jam
    if decides[1]:
        strategy.block(strategy.node_of((JAM,)))[:] = call
    return game, tree, strategy


__all__ = ["answers", "checked_table", "solve_heads_up"]
