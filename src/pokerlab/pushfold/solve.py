"""The push/fold façade: validate a table, build the game, solve it by vector-form discounted CFR and report
charts, EVs and each seat's exact best-response gain.

>>> r = pushfold([10, 10], blinds=(0.5, 1), target=1e-3)
>>> r.model, r.gain_unit, r.max_gain <= 1e-3
('chipev', 'bb', True)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from pokerlab.cards.classes import CLASS_NAMES, NUMBER_OF_CLASSES
from pokerlab.errors import (
    Interrupted,
    InvalidArgumentError,
    InvalidPayoutsError,
    InvalidStacksError,
    optional_callback,
    real_number,
    true_or_false,
    whole_number,
)
from pokerlab.games.base import FOLD
from pokerlab.games.compiler import KIND_DECISION, KIND_TERMINAL
from pokerlab.games.pushfold import DISJOINT_COMBOS, JAM, PushFoldGame, Table, seat_names
from pokerlab.games.pushfold.game import Bounties
from pokerlab.games.vector import CompiledPublicTree, compile_public_tree
from pokerlab.limits import HEADS_UP_TARGET, MULTIWAY_DEALS, MULTIWAY_TARGET, check_multiway_deals, multiway_deals_fit
from pokerlab.progress import deferred_interrupts
from pokerlab.pushfold.fgs import FGSPayoff, check_fgs_depth
from pokerlab.pushfold.real_game import REAL_GAME_DEALS, RealGameCheck, real_game_check
from pokerlab.pushfold.schedule import ITERATIONS, REDEAL, TIME, SolveSchedule
from pokerlab.pushfold.situation import ICMPayoff, build_game, checked_bounties, checked_prizes, validate_table
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import (
    BestResponseGains,
    VectorStrategy,
    best_response_gains,
    vector_node_values,
)

Progress = Callable[[int, float], None]
"""Called after every gain check with (iterations, current maximum gain)."""
UNIFORM_DEALS = 1000
"""At most this many uniform deals value the 3+ way pots before the redeal: those iterations only find the ranges
that the redeal samples from, and a few times fewer deals than the redeal's make them cheap (docs/benchmarks.md)."""




@dataclass(frozen=True)
class PushFoldResult:
    """A solved push/fold table.

    ``jam[seat]``: probability of jamming first in (everyone before folded) per class (169, grid order,
    :data:`~pokerlab.cards.classes.CLASS_NAMES`), ``NaN`` for a seat without that decision.
    ``call[(caller, jammer)]``: probability of calling a lone jam of seat ``jammer`` (everyone else before the
    caller folded). ``ev_jam``/``ev_fold[seat]``: expected payoff (``gain_unit``) of jamming / folding first in,
    per class, given that the spot is
    reached. ``gains``: each seat's exact best-response gain against the others' strategies in the solver's
    game; ``max_gain`` the largest. ``values``: each seat's expected payoff (``gain_unit``) under the profile,
    ``value_errors`` their standard errors: heads-up exact (the solver's game is the real one), with 3+ seats
    measured on joint deals of the whole table (``real_game``, :mod:`~pokerlab.pushfold.real_game`:
    joint card removal among all seats, they sum to the pool on every deal) when the check ran, else the
    solver's model values (card removal against each seat's own hand only; they need not sum to the pool).
    ``real_game``: with 3+ seats, the values and the best-response gains measured in the real game, with their
    standard errors; ``over_target`` the seats whose real-game gain is above the target. ``strategy``: the
    full strategy (every public node, multiway calls included). ``notes``: what a
    time limit or Ctrl-C left out (the redeal, the sampling check), in words.
    """

    seats: tuple[str, ...]
    stacks: tuple[float, ...]
    big_blind: float
    model: str
    gain_unit: str
    jam: np.ndarray
    call: dict[tuple[int, int], np.ndarray]
    ev_jam: np.ndarray
    ev_fold: np.ndarray
    gains: tuple[float, ...]
    iterations: int
    elapsed_s: float
    stop_reason: str
    multiway_samples: int
    multiway_error: float
    multiway_check_gains: tuple[float, ...] | None
    game: PushFoldGame = field(repr=False)
    tree: CompiledPublicTree = field(repr=False)
    strategy: VectorStrategy = field(repr=False)
    notes: tuple[str, ...] = ()
    values: tuple[float, ...] = ()
    value_errors: tuple[float, ...] = ()
    real_game: RealGameCheck | None = None
    target: float = 0.0
    over_target: tuple[int, ...] = ()
    bounties: Bounties | None = None
    fgs_depth: int = 0
    fgs_pruned: float = 0.0

    @property
    def max_gain(self) -> float:
        return float(max(self.gains))

    @property
    def multiway_check_gain(self) -> float | None:
        """The largest best-response gain of the strategy in the game valued on independent deals (None when
        no 3+ way all-in can happen, or the check was not asked for)."""
        return None if self.multiway_check_gains is None else float(max(self.multiway_check_gains))

    @property
    def class_sizes(self) -> np.ndarray:
        return self.game.equity.class_size

    def percent(self, probabilities: np.ndarray) -> float:
        """Share of the 1,326 combos (percent) played with these per-class probabilities."""
        return float(100.0 * probabilities @ self.class_sizes / 1326.0)

    def jam_grid(self, seat: int) -> np.ndarray:
        """13 x 13 jam-first-in probabilities of a seat (rows/columns A..2; suited above the diagonal)."""
        grid: np.ndarray = self.jam[seat].reshape(13, 13)
        return grid

    def call_grid(self, caller: int, jammer: int) -> np.ndarray:
        """13 x 13 probabilities of ``caller`` calling a lone jam of ``jammer``."""
        return self.call[(caller, jammer)].reshape(13, 13)

    def node_strategies(self) -> list[dict[str, Any]]:
        """Every decision node: its history (``"UTG jam, HJ fold"``), acting seat and per-class probability of
        jamming or calling."""
        out = []
        for n in self.tree.decision_nodes():
            seat = int(self.tree.tree.player[n])
            state = self.tree.states[n]
            history = ", ".join(f"{self.seats[s]} {'jam' if a == JAM else 'fold'}"
                                for s, a in zip(self.game.decision_seats, state, strict=False))
            probs = self.strategy.block(int(n))[:, 1]
            out.append({"history": history, "seat": self.seats[seat], "action": self.tree.labels[n][1],
                        "strategy": _by_class(probs), "pct": self.percent(probs)})
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``pokerlab pushfold --json`` (schema in docs/algorithms.md)."""
        seats = []
        for i, name in enumerate(self.seats):
            has_jam = not np.isnan(self.jam[i, 0])
            calls = {self.seats[j]: _by_class(p) for (c, j), p in sorted(self.call.items()) if c == i}
            seats.append({
                "seat": name,
                "stack": self.stacks[i],
                "stack_bb": self.stacks[i] / self.big_blind,
                "jam": _by_class(self.jam[i]) if has_jam else {},
                "jam_pct": self.percent(self.jam[i]) if has_jam else 0.0,
                "call": calls,
                "call_pct": {self.seats[j]: self.percent(p) for (c, j), p in sorted(self.call.items()) if c == i},
                "ev_jam": _by_class(self.ev_jam[i]) if has_jam else {},
                "ev_fold": _by_class(self.ev_fold[i]) if has_jam else {},
                "gain": self.gains[i],
                "value": self.values[i] if self.values else None,
                "value_stderr": self.value_errors[i] if self.value_errors else None,
                "real_game_gain": None if self.real_game is None else self.real_game.gains[i],
                "real_game_gain_stderr": None if self.real_game is None else self.real_game.gain_errors[i],
            })
        real = self.real_game
        return {
            "seats": seats,
            "model": self.model,
            "max_gain": self.max_gain,
            "gain_unit": self.gain_unit,
            "iterations": self.iterations,
            "elapsed_s": self.elapsed_s,
            "stop_reason": self.stop_reason,
            "multiway_samples": self.multiway_samples,
            "multiway_stderr": self.multiway_error,
            "multiway_check_gain": self.multiway_check_gain,
            "multiway_check_gains": None if self.multiway_check_gains is None else list(self.multiway_check_gains),
            "target": self.target,
            "value_sum": float(sum(self.values)) if self.values else None,
            "real_game": None if real is None else {
                "deals": real.deals, "seed": real.seed, "pool": None if np.isnan(real.pool) else real.pool,
                "max_gain": real.max_gain, "over_target": [self.seats[i] for i in self.over_target]},
            "notes": list(self.notes),
            "bounty": None if self.bounties is None else {
                "heads": list(self.bounties.heads), "share": self.bounties.share,
                "format": "knockout" if self.bounties.share == 1.0 else "pko"},
            "fgs_depth": self.fgs_depth,
            "fgs_pruned_mass": self.fgs_pruned,
            "strategies": self.node_strategies(),
        }


def _by_class(probabilities: np.ndarray) -> dict[str, float]:
    return {name: round(float(p), 6) for name, p in zip(CLASS_NAMES, probabilities, strict=True)}


def pushfold(
    stacks: Sequence[float],
    blinds: Sequence[float] = (0.5, 1.0),
    *,
    ante: float = 0.0,
    bb_ante: float = 0.0,
    payouts: Sequence[float] | None = None,
    field: Sequence[float] | None = None,
    target: float | None = None,
    iterations: int | None = None,
    time_limit: float | None = None,
    multiway_samples: int = MULTIWAY_DEALS,
    seed: int = 0,
    algorithm: str = "dcfr",
    check_sampling: bool = True,
    multiway_proposal_share: float = 0.5,
    progress: Progress | None = None,
    real_game_deals: int = REAL_GAME_DEALS,
    bounty: Any = None,
    pko: bool | float = False,
    fgs_depth: int = 0,
) -> PushFoldResult:
    """Nash push/fold strategies of every seat (chip EV, or ICM with ``payouts`` and an optional ``field``).

    ``stacks``: chips per seat in acting order (UTG ... BTN, SB, BB; heads-up SB then BB); ``blinds``: small and
    big blind in chips; ``ante`` per seat or ``bb_ante`` paid by the big blind. ``payouts``: money per place
    (ICM); ``field``: stacks of the players at other tables. Stops when every seat's best-response gain is at
    most ``target`` (default 1e-5 heads-up, 1e-3 with 3+ seats; big blinds for chip EV; for ICM the money
    worth ``target`` big blinds at the average chip
    value, ``pool * big_blind / chips``), after ``iterations``, after ``time_limit`` seconds or on Ctrl-C
    (``stop_reason`` says which; the time limit is checked after every iteration and before the redeal and the
    sampling check, which are skipped once it has passed, and ``notes`` says what was skipped: a run overshoots
    it by at most one iteration, one gain check and reading the charts, and building the game comes first,
    uncut; Ctrl-C before the first gain check raises :class:`~pokerlab.errors.Interrupted`).
    ``multiway_samples``: deals that evaluate showdowns of 3+ players; with
    ``check_sampling`` (and 3+ seats) the strategy returned is also valued on an independent set of as many
    deals, and each seat's best-response gain there is ``multiway_check_gains``: the part of the gain the
    sampling hides, measured (a check costs about one gain computation); and the strategy is valued in the real
    game on ``real_game_deals`` joint deals of the whole table (``real_game``, 0: not).
    ``multiway_proposal_share``: with 3+ way pots, after 16 iterations on uniform deals (or at the target or
    the iteration limit, if sooner; :mod:`~pokerlab.pushfold.schedule`) each such pot is redealt on
    ``multiway_samples`` deals of its own, each seat's hand drawn from ``share`` times its distribution there
    under the best strategy so far plus ``1 - share`` times the uniform one (importance sampling,
    :meth:`PushFoldGame.redealt`); the solve goes on from the same regrets, and the target counts only after the
    redeal. A solve still above its target 16 iterations later is redealt once more on ``2 * multiway_samples``
    deals, where they fit in memory (``multiway_samples`` reports the deals of the game solved). 0 keeps the
    uniform deals.
    ``algorithm``: a vector-form solver of `pokerlab.solvers.vector.VectorSolver` (discounted CFR by default). With 3+
    seats the profile returned is the checked one (average or current strategy) with the smallest maximum gain.
    ``bounty``: knockout bounties, one number for every head or one per seat (money under ICM, big blinds under
    chip EV), paid in the hand by the table rules and valued after it by the future-bounty model
    (:mod:`pokerlab.pushfold.situation`); ``pko``: a progressive knockout, ``True`` paying half of a head to
    the buster (the rest onto his head) or the share paid as a number in (0, 1].
    ``fgs_depth``: 1 to 4 values the outcomes by FGS instead of ICM (:mod:`~pokerlab.pushfold.fgs`: that many
    more hands played out, blinds and button moving, then ICM; needs ``payouts``, no ``field``, no bounties;
    model ``"fgs"``, ``fgs_pruned`` the largest probability mass of an outcome's branches valued early); 0 is ICM.
    """
    table, payout_array, field_array, target, iterations, multiway_samples, bounties = _checked_request(
        stacks, blinds, ante, bb_ante, payouts, field, target, iterations, time_limit, multiway_samples,
        multiway_proposal_share, bounty, pko)
    real_game_deals = whole_number(real_game_deals, "real_game_deals", low=0)
    seed = whole_number(seed, "seed", low=0, high=2**64 - 1)
    if not isinstance(algorithm, str):
        raise InvalidArgumentError(f"algorithm must be a solver's name, got {type(algorithm).__name__}")
    true_or_false(check_sampling, "check_sampling")
    optional_callback(progress, "progress", "(iterations, gain)")
    payoff_model = _fgs_payoff_model(table, fgs_depth, payout_array, field_array)
    if bounties is not None and payoff_model is not ICMPayoff:
        raise InvalidArgumentError("FGS with knockout bounties is not offered (future bounties follow ICM's "
                                   "finishing order): leave out the FGS depth or the bounties")
    start = time.perf_counter()
    # Ctrl-C inside a compiled kernel would surface as a SystemError traceback: every kernel call below runs
    # inside deferred_interrupts, which delivers Ctrl-C when the call returns (one iteration at most)
    try:
        with deferred_interrupts():
            uniform = multiway_samples if multiway_proposal_share == 0 else min(multiway_samples, UNIFORM_DEALS)
            game, model, icm_payoff = build_game(table, payout_array, field_array, multiway_samples=uniform,
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
        seats=seat_names(table.seats), stacks=table.stacks, big_blind=table.big_blind,
        model=model if fgs is None else "fgs",
        gain_unit="bb" if model == "chipev" else "money", jam=jam, call=call, ev_jam=ev_jam, ev_fold=ev_fold,
        gains=tuple(float(g) for g in gains.gains), iterations=solver.iteration,
        elapsed_s=time.perf_counter() - start, stop_reason=stop, multiway_samples=game.multiway_samples,
        multiway_error=multiway_error, multiway_check_gains=check_gains, game=game,
        tree=tree, strategy=strategy, notes=tuple(notes), values=values, value_errors=value_errors,
        real_game=real, target=target_value, over_target=over, bounties=bounties,
        fgs_depth=0 if fgs is None else fgs.depth, fgs_pruned=0.0 if fgs is None else fgs.pruned,
    )


# FGS: the outcomes valued with more hands played out (pokerlab.pushfold.fgs) -------------------------------

def check_fgs(depth: object, seats: int, payouts: object, field: object) -> int:
    """The FGS depth as a whole number 0..4 for a table of ``seats`` (2 to 10), with the payouts FGS needs and
    no field; or the error saying what to change (the CLI calls it before any work)."""
    value = check_fgs_depth(depth, seats)
    if value > 0 and payouts is None:
        raise InvalidArgumentError("FGS values prize money: give the payouts (--payouts), or leave out the FGS depth")
    if value > 0 and field is not None:
        raise InvalidArgumentError("FGS plays this table as the whole tournament: leave out the field, or use "
                                   "FGS depth 0 (ICM)")
    return value


def _fgs_payoff_model(table: Table, depth: object, payouts: np.ndarray | None, field: np.ndarray | None
                      ) -> Callable[[np.ndarray, np.ndarray, np.ndarray], ICMPayoff]:
    """The payoff of the outcomes with payouts: ICM at ``depth`` 0, else FGS of that depth."""
    depth = check_fgs(depth, table.seats, payouts, field)
    return ICMPayoff if depth == 0 else partial(FGSPayoff, table=table, depth=depth)


def chart_changes(icm: PushFoldResult, fgs: PushFoldResult, threshold: float = 0.5) -> dict[str, Any]:
    """Which hands change between two solutions of the same table (ICM and FGS): per seat, the classes that
    jam first in under one and not the other (probability at least ``threshold`` in one, below it in the
    other), and the same for each lone-jam call; with the jam and call percentages of both.

    Keys: ``jam[seat]`` and ``call["caller vs jammer"]`` map to ``{"added": [...], "removed": [...],
    "icm_pct", "fgs_pct"}`` (``added``: played under FGS only)."""
    def changes(before: np.ndarray, after: np.ndarray) -> dict[str, Any]:
        was, now = before >= threshold, after >= threshold
        return {"added": [CLASS_NAMES[c] for c in np.flatnonzero(now & ~was)],
                "removed": [CLASS_NAMES[c] for c in np.flatnonzero(was & ~now)],
                "icm_pct": icm.percent(before), "fgs_pct": fgs.percent(after)}

    jam = {name: changes(icm.jam[i], fgs.jam[i]) for i, name in enumerate(icm.seats)
           if not np.isnan(icm.jam[i, 0]) and not np.isnan(fgs.jam[i, 0])}
    call = {f"{icm.seats[c]} vs {icm.seats[j]}": changes(icm.call[(c, j)], fgs.call[(c, j)])
            for (c, j) in sorted(icm.call) if (c, j) in fgs.call}
    return {"fgs_depth": fgs.fgs_depth, "threshold": threshold, "jam": jam, "call": call,
            "icm_values": list(icm.values), "fgs_values": list(fgs.values)}


def _model_values(tree: CompiledPublicTree, strategy: VectorStrategy) -> tuple[float, ...]:
    """Each seat's expected payoff in the solver's game (exact heads-up)."""
    return tuple(float(vector_node_values(tree, strategy, seat)[0] @ tree.weights[seat])
                 for seat in range(tree.num_players))


MAX_DEPTH_BB = 1e6
"""The deepest stack push/fold takes, in big blinds: a payoff of 10^k bb holds gains only to about 10^(k-16) bb
in double precision, so a far deeper stack never reaches a target gain (and nobody jams a million blinds)."""


def check_request(stacks: Any, blinds: Any = (0.5, 1.0), *, ante: Any = 0.0, bb_ante: Any = 0.0, payouts: Any = None,
                  field: Any = None, target: Any = None, iterations: Any = None, time_limit: Any = None,
                  multiway_samples: Any = MULTIWAY_DEALS, bounty: Any = None, pko: Any = False) -> None:
    """Raise the error :func:`pushfold` would raise for these inputs before any work, and do no work (a server
    refuses a request with it before the request waits for a worker).

    >>> check_request([10, 10], payouts=[30, 70])
    Traceback (most recent call last):
    pokerlab.errors.InvalidPayoutsError: place 2 pays 70, more than place 1 (30): list payouts from first place down
    """
    _checked_request(stacks, blinds, ante, bb_ante, payouts, field, target, iterations, time_limit, multiway_samples,
                     0.5, bounty, pko)


def _checked_request(stacks: Any, blinds: Any, ante: Any, bb_ante: Any, payouts: Any, field: Any, target: Any,
                     iterations: Any, time_limit: Any, multiway_samples: Any, share: Any, bounty: Any, pko: Any
                     ) -> tuple[Table, np.ndarray | None, np.ndarray | None, float, int | None, int, Bounties | None]:
    """``(table, payouts, field, target, iterations, multiway_samples, bounties)`` checked, the default target
    filled in."""
    stack_array, blind_array, payout_array, field_array = _checked_amounts(stacks, blinds, payouts, field)
    table = validate_table(stack_array, blind_array.tolist(), real_number(ante, "ante"),
                           real_number(bb_ante, "big-blind ante"))
    _check_depth(table.stacks, table.big_blind)
    checked_prizes(table.seats, payout_array, field_array)
    if target is None:
        target = HEADS_UP_TARGET if table.seats == 2 else MULTIWAY_TARGET
    iterations, multiway_samples = _checked_options(table.seats, target, iterations, time_limit, multiway_samples,
                                                    share)
    bounties = checked_bounties(bounty, pko, table.seats, field_array)
    return table, payout_array, field_array, float(target), iterations, multiway_samples, bounties


def _checked_amounts(stacks: Any, blinds: Any, payouts: Any, field: Any
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Stacks, blinds, payouts and field as flat float arrays, or the specific error: nested lists, booleans,
    text, complex numbers, dates and other objects are refused, never flattened or converted."""
    from pokerlab.icm.lobby import amounts

    return (amounts(stacks, "stacks", InvalidStacksError), amounts(blinds, "blinds", InvalidArgumentError),
            None if payouts is None else amounts(payouts, "payouts", InvalidPayoutsError),
            None if field is None else amounts(field, "field stacks", InvalidStacksError))


def _check_depth(stacks: Sequence[float], big_blind: float) -> None:
    """Refuse stacks deeper than :data:`MAX_DEPTH_BB` big blinds (their gains cannot reach any target)."""
    deepest = max(stacks) / big_blind
    if deepest > MAX_DEPTH_BB:
        raise InvalidStacksError(f"a stack of {deepest:.3g} big blinds is deeper than push/fold can solve (at most "
                                 f"{MAX_DEPTH_BB:,.0f} bb: deeper payoffs hide gains below the target in double "
                                 "precision); raise the blinds")


def _checked_options(seats: int, target: object, iterations: object, time_limit: object,
                     multiway_samples: object, share: object) -> tuple[int | None, int]:
    """``(iterations, multiway_samples)`` as whole numbers, or the error saying which option is wrong (deals
    that cannot fit in memory included)."""
    if not real_number(target, "the target gain") > 0:
        raise InvalidArgumentError(f"the target gain must be positive, got {target}")
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=1)
    if time_limit is not None and not real_number(time_limit, "the time limit") > 0:
        raise InvalidArgumentError(f"the time limit must be positive, got {time_limit}")
    samples = whole_number(multiway_samples, "multiway samples", low=1)
    check_multiway_deals(seats, samples)
    if not 0 <= real_number(share, "the proposal share") < 1:
        raise InvalidArgumentError(f"the proposal share must be in [0, 1), got {share}")
    return iterations, samples


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
