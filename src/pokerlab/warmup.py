"""Compile kernels before a timed run, so that no time shown to a user includes compilation.

numba compiles a kernel the first time it is called with new argument types (tens of seconds for the big
ones), or loads it from its on-disk cache (a fraction of a second). Either would land inside an engine's
``elapsed_s``. So the CLI commands and the demo first run a *warm-up*: a tiny workload through the same
façades, which compiles (or loads) every kernel specialization the real call will use; then they run and time
the real call. While a warm-up actually compiles (a cache miss, seen through numba's ``numba:compile`` event),
a terminal shows the line ``compiling kernels (first run only)`` with a spinner; a pipe or ``--json`` output
shows nothing. A group's warm-up (:func:`prepare`) runs at most once per process.

:data:`KERNEL_GROUPS` names the warm-ups of every engine; ``pokerlab warmup`` runs them all (in two processes)
so that a fresh install compiles once, up front, and says how long it took. tests/test_warmup.py checks that
after a command's warm-up its real call neither compiles nor loads a kernel.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pokerlab.progress import compiling

COMPILING_NOTICE = "compiling kernels (first run only)"


@dataclass(frozen=True)
class KernelGroup:
    """The kernels of one engine route: ``warm()`` runs a tiny workload through the façade that compiles (or
    loads from the cache) every kernel specialization the route's real calls use."""

    name: str
    description: str
    warm: Callable[[], object]
    within: str | None = None  # a group whose warm-up includes this one's (``pokerlab warmup`` runs only that)


def _evaluator() -> None:
    import numpy as np

    from pokerlab.cards.evaluator import evaluate_batch, evaluate_hand

    evaluate_hand("AsKsQsJsTs9s8s")
    for size in (5, 6, 7):
        evaluate_batch(np.arange(size, dtype=np.uint8).reshape(1, size))


def _all_seven_card_hands() -> None:
    from pokerlab.cards.kernels import seven_card_value_counts
    from pokerlab.cards.tables import load_tables

    seven_card_value_counts.compile((seven_card_value_counts.typeof_pyval(load_tables()),))


TURN = "2c3d4h5s"  # one card to come: an exact route's kernels compile on 44-46 boards


def _enumerate(players: list[str], board: str = TURN) -> None:
    """Exact equity of ``players`` on ``board`` by the compiled routes (the route, and so the kernel, that a real
    call of the same kind of players takes when it is too big for the plain-numpy route of small problems)."""
    from pokerlab.equity.exact import plan_exact, solve_exact
    from pokerlab.equity.problem import prepare_problem

    problem = prepare_problem(players, board, "")
    plan = plan_exact(problem)
    assert plan is not None
    solve_exact(problem, plan, False, None)


def _equity_known_hands() -> None:
    for players in (["AsKs", "QdQc"], ["AsKs", "QdQc", "JhTh"]):
        _enumerate(players)


def _exact_workload(*players: str) -> Callable[[], None]:
    """An exact run on :data:`TURN` of ``players`` by the compiled routes (see :func:`_enumerate`)."""

    def run() -> None:
        _enumerate(list(players))

    return run


# one kernel each (see pokerlab.equity.kernels.exact_enumeration): a hand against a random hand, against a weighted
# range, two weighted ranges, three or more players
_exact_hand_vs_random = _exact_workload("AsKs", "random")
_exact_hand_vs_range = _exact_workload("AsKs", "QQ+:0.5, AKs")
_exact_heads_up = _exact_workload("AKs:0.5", "QQ")
_exact_multiway = _exact_workload("AK:0.5", "QQ", "T9s")


def _equity_exact() -> None:
    _equity_known_hands()
    for route in (_exact_hand_vs_random, _exact_hand_vs_range, _exact_heads_up, _exact_multiway):
        route()
    for players in (["AA", "KK"], ["QQ+, AKs", "TT+, AQs+"], ["AA", "random"]):
        _enumerate(players)


def _equity_montecarlo() -> None:
    from pokerlab.equity import equity

    for players in (["AsKs", "QdQc"], ["QQ+, AKs", "TT+, AQs+:0.5", "random"]):
        equity(players, method="montecarlo", trials=2048, seed=1)


def _equity_vs_random() -> None:
    from pokerlab.equity import equity_vs_random

    equity_vs_random("AhAs", max_opponents=2, trials=2048, seed=1)


def _icm_exact() -> None:
    import numpy as np

    from pokerlab.icm import bounty_equity, core, icm

    bounty_equity([3.0, 2.0, 1.0], 1.0, share=0.5, method="exact")  # the bounty kernel (push/fold leaves, fields)
    for players, paid in ((3, 2), (12, 3), (60, 9)):
        stacks = [1000.0 + 37 * i for i in range(players)]
        payouts = [float(paid - i) for i in range(paid)]
        icm(stacks, payouts)
        icm(stacks, payouts, places=True)
    # big fields run the quadrature in short calls from Python (its own compiled entry points): on a small one
    core._quadrature_equity(np.linspace(0.5, 1.5, 60), np.linspace(9.0, 1.0, 9), 9, core.DEFAULT_RTOL,
                             first_work=1.0)


def _icm_montecarlo() -> None:
    from pokerlab.icm import icm

    stacks, payouts = [5000, 3000, 2000, 1500, 900], [50, 30, 20]
    for reduction in ("plain", "antithetic", "sobol", "conditional"):
        icm(stacks, payouts, "montecarlo", samples=512, variance_reduction=reduction, seed=1)
    icm(stacks, payouts, "montecarlo", samples=512, places=True, seed=1)


def _simulation() -> None:
    from pokerlab.simulation import simulate

    # in this process (workers=1): the kernels land in the cache that worker processes then load
    simulate([5, 3, 2], [600, 400], bet=1, tournaments=4, seed=1, workers=1)
    simulate(players=30, starting_stack=10_000, payouts="power:paid=5", play="rules", tournaments=1, seed=1,
             workers=1)


def _solvers() -> None:
    from pokerlab.solvers import solve

    for game, algorithm, iterations in (("kuhn", "cfr+", 2), ("leduc", "cfr+", 2), ("leduc", "es-mccfr", 10)):
        solve(game, algorithm, iterations=iterations, seed=1)


def _pushfold() -> None:
    from pokerlab.pushfold import pushfold

    pushfold([10, 10], (0.5, 1), target=0.5, bounty=1.0)  # heads-up on the kernels (plain: no kernel to warm)
    pushfold([12, 8, 10], (0.5, 1), target=0.5, multiway_samples=20, real_game_deals=200)
    pushfold([12, 8, 10], (0.5, 1), payouts=[50, 30, 20], target=0.5, multiway_samples=20, real_game_deals=200)


def _fgs() -> None:
    from pokerlab.pushfold import pushfold
    from pokerlab.pushfold.fgs import fgs_equity

    # the future hands' tree walk (and, once per code version, the heads-up charts it plays them by: seconds)
    fgs_equity([10, 8, 12], [50, 30, 20], depth=1)
    pushfold([10, 8, 12], (0.5, 1), payouts=[50, 30, 20], fgs_depth=1, iterations=1, multiway_samples=20,
             real_game_deals=200)


def _two_round() -> None:
    from pokerlab.games.two_round import TwoRoundSpec
    from pokerlab.solvers.two_round import Abstraction, TwoRoundBot, TwoRoundTrainer, exploitability

    # stack 1 of the real deck: its card tables (about a second, cached per deck) are the ones a real run uses;
    # the kernels' types do not depend on the stack
    trainer = TwoRoundTrainer(TwoRoundSpec(stack=1), Abstraction(), seed=0)
    trainer.train(10)
    exploitability(trainer.bot().strategy(1))
    exploitability(TwoRoundBot.fixed("uniform", TwoRoundSpec(stack=1)).strategy(1))  # a card-blind bot's rows
    # every hand its own preflop row (a writable array, another kernel specialization), on a small deck
    small = TwoRoundTrainer(TwoRoundSpec(ranks=4, suits=2, stack=1), Abstraction(buckets=4, exact_preflop=True))
    small.train(10)
    exploitability(small.bot().strategy(1))


def _matches() -> None:
    from pokerlab.agents.defaults import default_trained
    from pokerlab.agents.match import game_by_name, run_match
    from pokerlab.agents.players import FullBetAgent, RandomAgent

    leduc = game_by_name("leduc")
    run_match(leduc, default_trained(leduc), RandomAgent(), hands=20, matches=2, seed=1, exact=True)
    run_match(game_by_name("two-round"), FullBetAgent(), RandomAgent(), hands=20, matches=2, seed=1, exact=False)


#: Every engine route's warm-up, in the order ``pokerlab warmup`` starts them (the longest first).
KERNEL_GROUPS: dict[str, KernelGroup] = {group.name: group for group in (
    KernelGroup("equity-exact", "exact equity: every route (ranges, hand vs random, known hands)", _equity_exact),
    KernelGroup("equity-montecarlo", "Monte Carlo equity", _equity_montecarlo),
    KernelGroup("icm", "ICM: exact equity and finish places", _icm_exact),
    KernelGroup("icm-montecarlo", "ICM by Monte Carlo", _icm_montecarlo),
    KernelGroup("equity-known-hands", "exact equity of known hands", _equity_known_hands,
                within="equity-exact"),
    KernelGroup("equity-exact-hand-vs-random", "exact equity of a hand against a random hand", _exact_hand_vs_random,
                within="equity-exact"),
    KernelGroup("equity-exact-hand-vs-range", "exact equity of a hand against a weighted range", _exact_hand_vs_range,
                within="equity-exact"),
    KernelGroup("equity-exact-heads-up", "exact equity of two weighted ranges", _exact_heads_up,
                within="equity-exact"),
    KernelGroup("equity-exact-multiway", "exact equity of three or more weighted ranges", _exact_multiway,
                within="equity-exact"),
    KernelGroup("equity-vs-random", "equity against 1..N random hands", _equity_vs_random),
    KernelGroup("simulation", "tournament simulation (coin flips, simple-rules push/fold)", _simulation),
    KernelGroup("solvers", "CFR+ and external-sampling MCCFR on Kuhn and Leduc", _solvers),
    KernelGroup("pushfold", "push/fold Nash ranges, chip EV and ICM", _pushfold),
    KernelGroup("fgs", "FGS: push/fold's future hands played out before ICM", _fgs),
    KernelGroup("two-round", "two-round hold'em: MCCFR training and exact exploitability", _two_round),
    KernelGroup("matches", "bot matches (Leduc, two-round hold'em)", _matches),
    KernelGroup("evaluator", "the hand evaluator", _evaluator),
    KernelGroup("all-hands", "all 133,784,560 seven-card hands", _all_seven_card_hands),
)}

_warmed: set[str] = set()


class _CompileWatch:
    """numba ``numba:compile`` listener: counts real compilations (cache loads are not events) and calls
    ``on_first`` at the first one."""

    def __init__(self, on_first: Callable[[], None]) -> None:
        from numba.core import event

        class Listener(event.Listener):  # type: ignore[misc, unused-ignore]
            def on_start(inner, ev: Any) -> None:  # noqa: N805 (numba's listener protocol)
                compiling(True)  # Ctrl-C stops a compilation at once (pokerlab.progress.deferred_interrupts)
                self.compiled += 1
                if self.compiled == 1:
                    on_first()

            def on_end(inner, ev: Any) -> None:  # noqa: N805
                compiling(False)

        self.compiled = 0
        self.listener = Listener()


@contextlib.contextmanager
def _notice(quiet: bool) -> Iterator[Callable[[], None]]:
    """Yield ``start()``: shows the compiling line and a spinner on a terminal (stderr) until the block ends."""
    from rich.console import Console

    console = Console(stderr=True)
    shown: list[Any] = []
    began = time.perf_counter()

    def start() -> None:
        if quiet or not console.is_terminal or shown:
            return
        console.print(COMPILING_NOTICE, highlight=False)
        status = console.status("compiling", spinner="dots")
        status.start()
        shown.append(status)

    completed = False
    try:
        yield start
        completed = True
    finally:
        if shown:
            shown[0].stop()
        if shown and completed:  # an interrupted compilation compiled nothing worth a line
            console.print(f"kernels compiled in {time.perf_counter() - began:.1f} s; `pokerlab warmup` compiles "
                          "them all at once", highlight=False, markup=False)


def prepare(groups: Iterable[str], *, quiet: bool = False) -> int:
    """Compile (or load) the kernels of ``groups`` (names in :data:`KERNEL_GROUPS`) unless this process has
    already; call it before timing a run. On a terminal, unless ``quiet``, a compilation shows
    :data:`COMPILING_NOTICE` and a spinner on stderr. Returns the number of kernels compiled (0: all were in
    the cache or already loaded).

    >>> prepare(["evaluator"], quiet=True) >= 0
    True
    >>> prepare(["evaluator"])  # already warm in this process: nothing to do
    0
    """
    todo = [name for name in groups if name not in _warmed]
    unknown = [name for name in todo if name not in KERNEL_GROUPS]
    if unknown:
        raise ValueError(f"unknown kernel groups {unknown}; known: {', '.join(KERNEL_GROUPS)}")
    if not todo:
        return 0
    return compile_first([KERNEL_GROUPS[name].warm for name in todo], quiet=quiet, names=todo)


def compile_first(workloads: Iterable[Callable[[], object]], *, quiet: bool = False,
                  names: Iterable[str] = ()) -> int:
    """Run ``workloads`` (tiny calls that compile the kernels a timed call will use) with the compiling notice
    of :func:`prepare`; ``names`` are recorded as warm. Returns the number of kernels compiled."""
    from numba.core import event

    with _notice(quiet) as start:
        watch = _CompileWatch(start)
        with event.install_listener("numba:compile", watch.listener):
            for work in workloads:
                # a façade that keeps Ctrl-C as its result's stop reason must not swallow it here: the timed run
                # would then start as if nothing had been pressed
                if getattr(work(), "stop_reason", None) == "interrupted":
                    raise KeyboardInterrupt
    _warmed.update(names)
    return watch.compiled


def equity_groups(players: Any, board: Any, dead: Any, method: str, sampling_asked: bool) -> list[str]:
    """The kernel groups that :func:`pokerlab.equity.equity` with these arguments will use (the route that
    ``method="auto"`` chooses); bad input raises the error the façade would."""
    from pokerlab.equity.core import METHODS, choose_method, from_few_boards, from_table
    from pokerlab.equity.problem import prepare_problem

    if method not in METHODS or (method == "exact" and sampling_asked):
        return []  # the façade refuses these before any kernel runs
    problem = prepare_problem(players, board, dead)
    if method == "montecarlo" or sampling_asked:
        return ["equity-montecarlo"]  # no exact plan needed (planning big ranges takes up to a second)
    if from_table(problem, method, sampling_asked, breakdown=False):
        return []  # answered from the shipped heads-up preflop table: no kernel runs, numba is not even imported
    if from_few_boards(problem, method, sampling_asked, breakdown=False):
        return []  # a small problem on a flop, turn or river, enumerated in plain numpy: no kernel either
    from pokerlab.equity.exact import only_against_random

    chosen, plan = choose_method(problem, method, sampling_asked)
    if chosen != "exact" or plan is None:
        return [f"equity-{chosen}"]
    if plan.weighted:  # no symmetry shortcut: one board-walk kernel, known from the players
        if len(problem.ranges) > 2:
            return ["equity-exact-multiway"]
        if any(reduced.is_exact_hand for reduced in problem.ranges):
            return ["equity-exact-hand-vs-range"]
        return ["equity-exact-heads-up"]
    if all(reduced.is_exact_hand for reduced in problem.ranges):
        return ["equity-known-hands"]  # one deal of known hands: the board-walk kernels are never called
    if only_against_random(problem, plan):
        return ["equity-exact-hand-vs-random"]
    return ["equity-exact"]  # orbits of matchups as known hands, or a board walk: every exact kernel may run


#: A Monte Carlo ICM warm-up's samples: two Sobol sets, so "auto" picks the estimator a longer run picks.
ICM_WARM_SAMPLES = 512


def prepare_icm(stacks: Any, payouts: Any, method: str, *, places: bool, samples: int | None,
                variance_reduction: str, allow_rising: bool = False, quiet: bool = False) -> int:
    """Compile the kernels that :func:`pokerlab.icm.icm` with these arguments will use (``pokerlab icm`` and the
    web's ICM task call it before their timed run): Monte Carlo by a small run of the same call (each estimator
    compiles its own kernels), the exact methods by the ``icm`` group. Returns the number of kernels compiled.

    >>> prepare_icm([5000, 3000, 2000], [50, 30, 20], "montecarlo", places=False, samples=None,
    ...             variance_reduction="auto", quiet=True) >= 0
    True
    """
    if method != "montecarlo":
        from pokerlab.icm.core import exact_uses_kernels

        return prepare(["icm"], quiet=quiet) if exact_uses_kernels(stacks, method) else 0
    from pokerlab.icm import icm

    few = samples if samples is not None and samples <= ICM_WARM_SAMPLES else ICM_WARM_SAMPLES  # the same estimator
    return compile_first([lambda: icm(stacks, payouts, method, places=places, samples=few,
                                      variance_reduction=variance_reduction, seed=1, allow_rising=allow_rising)],
                         quiet=quiet)


def warm_once(key: str, workload: Callable[[], object], *, quiet: bool = False) -> int:
    """:func:`compile_first` of ``workload`` unless this process has already warmed ``key`` (a name for the
    kernel signatures the workload compiles): a long-lived process (a web worker) warms once per kind of request,
    not once per request. Returns the number of kernels compiled.

    >>> warm_once("doc-example", lambda: None, quiet=True), warm_once("doc-example", lambda: 1 / 0, quiet=True)
    (0, 0)
    """
    if key in _warmed:
        return 0
    return compile_first([workload], quiet=quiet, names=[key])


def warm_group(name: str) -> tuple[str, float, int]:
    """Compile one group in this process (``pokerlab warmup``'s worker): ``(name, seconds, kernels compiled)``."""
    start = time.perf_counter()
    compiled = compile_first([KERNEL_GROUPS[name].warm], quiet=True, names=[name])
    return name, time.perf_counter() - start, compiled


def warm_groups(names: Iterable[str], jobs: int = 2,
                on_done: Callable[[int, str], None] | None = None) -> list[tuple[str, float, int]]:
    """Compile the groups ``names`` into numba's on-disk cache, ``jobs`` processes at once (numba compiles on one
    core per process, so two processes halve the wall time on two cores). Returns :func:`warm_group`'s
    ``(name, seconds, kernels compiled)`` per group, in the order they finished; ``on_done(groups finished so
    far, name)`` is called as each finishes (a progress bar's update). This process loads the kernels from the
    cache when it next uses them.

    >>> [name for name, _, _ in warm_groups(["evaluator"], jobs=1)]
    ['evaluator']
    """
    names = list(names)
    done: list[tuple[str, float, int]] = []

    def finished(result: tuple[str, float, int]) -> None:
        done.append(result)
        if on_done is not None:
            on_done(len(done), result[0])

    if jobs == 1 or len(names) == 1:
        for name in names:
            finished(warm_group(name))
        return done
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    # spawned workers: a fork of a process that has loaded numba's threading layer is unsafe
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        for future in as_completed([pool.submit(warm_group, name) for name in names]):
            finished(future.result())
    return done
