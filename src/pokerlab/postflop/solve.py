"""``pokerlab.postflop.solve``: a no-limit hold'em river, turn or flop spot solved by discounted CFR, with its
exact exploitability, nodes locked where asked (:mod:`pokerlab.postflop.lock`), checkpointed while it runs
(``checkpoint=PATH``: a rerun continues it, bit for bit as an uninterrupted solve); ``load`` reads a saved solve
back (and ``resume`` continues it)."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from pokerlab.cards.encoding import format_cards
from pokerlab.cards.ranges import Range
from pokerlab.errors import FileFormatError, Interrupted, InvalidArgumentError, real_number, whole_number
from pokerlab.games.postflop.bettree import STREETS, TreeConfig, parse_street_sizes, sizes_text
from pokerlab.games.postflop.game import MAX_MEMORY, PostflopGame, parse_board
from pokerlab.io import check_output_path
from pokerlab.postflop.lock import Lock, ResolvedLocks, as_locks, resolve_locks
from pokerlab.postflop.result import PostflopResult, load_meta, solver_code
from pokerlab.solvers.postflop_cfr import PostflopSolver

SPOT_KEYS = ("board", "oop", "ip", "pot", "stack", "bets", "raises", "donk", "add_allin", "force_allin", "merging",
             "raise_cap", "rake", "rake_cap")
"""The fields of a spot's description that make the game (a baseline must match them)."""


class Checkpoint:
    """Where and how often a solve writes its state: ``path`` (a saved solve, :meth:`PostflopResult.save`'s
    format, written atomically), every ``seconds`` of solving or, if given, every ``iterations`` iterations;
    always when the solve stops (its stop rule, Ctrl-C). The seconds count from the end of the last write and
    are at least 9 times that write's (a flop's state is hundreds of MiB to compress): writing then takes at
    most a tenth of the solve.

    >>> import tempfile
    >>> every = Checkpoint(f"{tempfile.mkdtemp()}/spot.npz", seconds=60)
    >>> every.wrote(10, 20.0); every.due(11)  # a 20 s write: the next one after 180 s, not 60 s
    False
    """

    def __init__(self, path: str | Path, seconds: float | None = 60.0, iterations: int | None = None) -> None:
        self.path = check_output_path(path, "checkpoint file")
        if iterations is not None:
            iterations = whole_number(iterations, "checkpoint_iterations", low=1)
        elif seconds is None or not real_number(seconds, "checkpoint_every (seconds)") > 0:
            raise InvalidArgumentError(f"checkpoint_every must be a positive number of seconds, got {seconds!r}")
        self.seconds = seconds
        self.iterations = iterations
        self._last_iteration = 0
        self._last_time = time.monotonic()
        self._write_s = 0.0

    def due(self, iteration: int) -> bool:
        """Whether a checkpoint is due after ``iteration``."""
        if self.iterations is not None:
            return iteration - self._last_iteration >= self.iterations
        return time.monotonic() - self._last_time >= max(self.seconds or 0.0, 9 * self._write_s)

    def wrote(self, iteration: int, seconds: float) -> None:
        """A checkpoint of ``iteration`` was written in ``seconds``: the period restarts now."""
        self._last_iteration, self._last_time, self._write_s = iteration, time.monotonic(), seconds

    def sibling(self, name: str) -> Checkpoint:
        """The checkpoint of a second solve of the same run (``spot.npz`` -> ``spot.baseline.npz``)."""
        return Checkpoint(self.path.with_name(f"{self.path.stem}.{name}{self.path.suffix}"), self.seconds,
                          self.iterations)


def parse_target(value: float | str | None) -> float | None:
    """A target in % of the pot: ``0.5``, ``"0.5%"``."""
    if value is None:
        return None
    text = str(value).strip().rstrip("%")
    try:
        target = float(text)
    except ValueError:
        raise InvalidArgumentError(f"target {value!r}: expected a share of the pot such as 0.5%") from None
    if not 0 < target < 1000:
        raise InvalidArgumentError(f"the target exploitability must be above 0% of the pot, got {value!r}")
    return target


def parse_rake(value: float | str | None) -> float:
    """A rake in % of the pot (``5``, ``"5%"``, ``"4.5 %"``) as a share of the pot (0.05); None or 0: no rake.

    >>> parse_rake("5%"), parse_rake(2.5), parse_rake(None)
    (0.05, 0.025, 0.0)
    """
    if value is None:
        return 0.0
    text = str(value).strip().rstrip("%").strip()
    try:
        percent = float(text)
    except ValueError:
        raise InvalidArgumentError(f"rake {value!r}: expected a share of the pot in %, such as 5%") from None
    if not 0 <= percent < 100:
        raise InvalidArgumentError(f"the rake must be from 0% to below 100% of the pot, got {value!r}")
    return percent / 100


def build_game(board: str, oop: str | Range, ip: str | Range, *, pot: float, stack: float,
               bets: str = "33%, 75%, a", raises: str = "2.5x, a", donk: bool = True, add_allin: float = 1.5,
               force_allin: float = 0.15, merging: float = 0.1, raise_cap: int | None = None,
               rake: float | str | None = None, rake_cap: float | None = None,
               isomorphism: bool = True, max_memory: int = MAX_MEMORY,
               build: bool = True, compress: bool = False) -> tuple[PostflopGame, dict[str, Any]]:
    """The game of a spot and its JSON description (what a saved solve keeps to rebuild it); every input is
    checked here, before any work (:class:`~pokerlab.errors.PokerlabError` subclasses); ``build=False``: the
    checks and the memory estimate only (``game.memory_bytes``), no tree. ``rake``: in % of the final pot
    (``5`` or ``"5%"``), taken from the winner of every pot, at most ``rake_cap`` chips (None: no cap);
    ``compress``: the estimate is that of the 16-bit storage, and the description says so."""
    cards = parse_board(board)
    rake_share = parse_rake(rake)
    if rake_cap is not None:
        rake_cap = real_number(rake_cap, "the rake cap (chips)")
        if not rake_cap >= 0:
            raise InvalidArgumentError(f"the rake cap must be 0 chips or more, got {rake_cap!r}")
    pot_chips = whole_number(pot, "the starting pot (chips)", low=1, floats=True)
    stack_chips = whole_number(stack, "the effective stack (chips)", low=0, floats=True)
    if raise_cap is not None:
        raise_cap = whole_number(raise_cap, "the raise cap", low=0)
    config = TreeConfig(pot=pot_chips, stack=stack_chips, street=len(cards) - 3,
                        bets=parse_street_sizes(bets), raises=parse_street_sizes(raises, raises=True),
                        donk=bool(donk), add_allin=real_number(add_allin, "add-all-in threshold"),
                        force_allin=real_number(force_allin, "force-all-in threshold"),
                        merging=real_number(merging, "merging threshold"), raise_cap=raise_cap,
                        rake=rake_share, rake_cap=rake_cap)
    game = PostflopGame(cards, oop, ip, config, isomorphism=isomorphism, max_memory=max_memory, build=build,
                        compress=bool(compress))
    spec = {"board": format_cards(cards), "oop": oop.text if isinstance(oop, Range) else oop,
            "ip": ip.text if isinstance(ip, Range) else ip, "pot": pot_chips, "stack": stack_chips,
            "bets": sizes_text(config.bets),
            "raises": sizes_text(config.raises), "donk": config.donk, "add_allin": config.add_allin,
            "force_allin": config.force_allin, "merging": config.merging, "raise_cap": raise_cap,
            "rake": 100 * rake_share, "rake_cap": rake_cap, "isomorphism": isomorphism,
            "street": STREETS[config.street]}
    if compress:  # only then: a float32 solve's description (and checkpoint) is as before
        spec["compress"] = True
    return game, spec


def solve(board: str, oop: str | Range, ip: str | Range, *, pot: float, stack: float,
          bets: str = "33%, 75%, a", raises: str = "2.5x, a", donk: bool = True, add_allin: float = 1.5,
          force_allin: float = 0.15, merging: float = 0.1, raise_cap: int | None = None,
          rake: float | str | None = None, rake_cap: float | None = None, target: float | str | None = 0.5,
          iterations: int | None = 1000, time_limit: float | None = None,
          isomorphism: bool = True, max_memory: int = MAX_MEMORY, check_every: int = 10,
          progress: Callable[[int, float], None] | None = None, lock: object = None,
          baseline: bool | PostflopResult = True, checkpoint: str | Path | None = None,
          checkpoint_every: float | None = 60.0, checkpoint_iterations: int | None = None,
          compress: bool = False) -> PostflopResult:
    """Solve a postflop spot: ``board`` (3, 4 or 5 cards), OOP's and IP's ranges (pokerlab's range syntax,
    weights included), starting ``pot`` and effective ``stack`` in whole chips, the bet tree (``bets`` and
    ``raises`` in players' syntax, per street or for all: see :mod:`pokerlab.games.postflop.bettree`), the
    ``rake`` in % of the final pot (``"5%"``; the winner of every pot pays it, folds included, each player half
    on a tie) and its ``rake_cap`` in chips. With rake the EVs sum to the pot less the expected rake and the
    exploitability is each player's gain from a best response over its value, as postflop-solver's.

    Stops at ``target`` (exploitability in % of the pot, checked every ``check_every`` iterations), after
    ``iterations`` or ``time_limit`` seconds, whichever comes first. Ctrl-C stops between iterations and raises
    :class:`~pokerlab.errors.Interrupted` holding the result so far (``partial``).

    ``lock``: nodes whose strategy is fixed, wholly or for some hands (a :class:`~pokerlab.postflop.lock.Lock`,
    its text or JSON form, or a list of them: see :mod:`pokerlab.postflop.lock`); the rest is solved against
    them. The exploitability is then that of the locked game (each best response keeps its player's locks;
    ``gains`` per player), and ``equilibrium`` holds the EVs of the same spot unlocked: from ``baseline``, a
    solve of the same spot without locks (``True``: solved here after the locked one, to the same stop rule;
    ``False``: none). A lock that tells apart suits the game would merge turns the merging off for this solve.

    ``checkpoint``: a file the solver state is written to, atomically, every ``checkpoint_every`` seconds of
    solving (or every ``checkpoint_iterations`` iterations) and when the solve stops, Ctrl-C included; a
    :meth:`PostflopResult.save` file (``load`` and ``pokerlab postflop show`` read it). If the file exists the
    solve continues from it, and its stop rule counts the checkpoint's iterations and seconds: the arrays,
    EVs and exploitability then equal those of one uninterrupted solve bit for bit. A checkpoint of another
    spot (locks included), of other solver code or of another format is refused
    (:class:`~pokerlab.errors.FileFormatError`), never used. A locked solve's baseline is checkpointed beside
    it (``spot.npz``: ``spot.baseline.npz``).

    >>> r = solve("Kh9d5c2s2h", "QQ, 99, AKo", "KK, JTs", pot=100, stack=150, bets="75%", raises="a")
    >>> r.exploitability_percent <= 0.5, round(sum(r.ev), 6)
    (True, 100.0)
    >>> r.node("bet 75%").actions
    ('fold', 'call', 'all-in 150')
    >>> never_bets = solve("Kh9d5c2s2h", "QQ, 99, AKo", "KK, JTs", pot=100, stack=150, bets="75%", raises="a",
    ...                    lock="line=check; strategy=check")
    >>> never_bets.node("check").frequencies["check"], never_bets.gain_over_equilibrium["OOP"] > 0
    (1.0, True)

    ``compress``: postflop-solver's 16-bit storage (int16 regrets, uint16 cumulative strategy, a float32 scale
    per node and array, re-encoded at every update): about half the memory of the float32 storage
    (``game.memory_bytes`` says it before allocation) and the same exact exploitability, measured on the
    strategy the integers store; not with ``lock``.

    Half a solve kept in a checkpoint, then continued by the same call with more iterations: the arrays of one
    uninterrupted solve, bit for bit.

    >>> import pathlib, tempfile
    >>> spot = dict(board="Kh9d5c2s2h", oop="QQ, 99, AKo", ip="KK, JTs", pot=100, stack=150, bets="75%", raises="a")
    >>> keep = pathlib.Path(tempfile.mkdtemp()) / "spot.npz"
    >>> solve(**spot, target=None, iterations=50, checkpoint=keep).iterations
    50
    >>> resumed = solve(**spot, target=None, iterations=100, checkpoint=keep)
    >>> straight = solve(**spot, target=None, iterations=100)
    >>> bool((resumed.regrets == straight.regrets).all()), resumed.exploitability == straight.exploitability
    (True, True)
    """
    locks = as_locks(lock)
    if compress and locks:
        raise InvalidArgumentError("node locking is not supported with the compressed (16-bit) storage: solve "
                                   "without compress")

    def build(merge: bool) -> tuple[PostflopGame, dict[str, Any]]:
        return build_game(board, oop, ip, pot=pot, stack=stack, bets=bets, raises=raises, donk=donk,
                          add_allin=add_allin, force_allin=force_allin, merging=merging, raise_cap=raise_cap,
                          rake=rake, rake_cap=rake_cap, isomorphism=merge, max_memory=max_memory,
                          compress=compress)

    keep = None if checkpoint is None else Checkpoint(checkpoint, checkpoint_every, checkpoint_iterations)
    keep_baseline = None if keep is None or not locks or baseline is not True else keep.sibling("baseline")
    game, spec, placed = locked_game(build, isomorphism, locks)
    target_percent = parse_target(target)
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=1)
    if time_limit is not None and not real_number(time_limit, "time limit (seconds)") > 0:
        raise InvalidArgumentError(f"the time limit must be a positive number of seconds, got {time_limit!r}")
    if isinstance(baseline, PostflopResult):
        _check_baseline(baseline, spec)
    elif not isinstance(baseline, bool):
        raise InvalidArgumentError(f"baseline is True, False or an unlocked PostflopResult, got {baseline!r}")
    rows = None if placed is None else placed.rows
    solver, elapsed = resumed_solver(keep, game, spec, rows)
    result = run(solver, spec, iterations=iterations, target_percent=target_percent, time_limit=time_limit,
                 check_every=check_every, progress=progress, checkpoint=keep, elapsed=elapsed)
    if placed is None or baseline is False:
        return result
    if baseline is True:
        unlocked = {**spec, "lock": None}
        try:
            solver, elapsed = resumed_solver(keep_baseline, game, unlocked, None)
            baseline = run(solver, unlocked, iterations=iterations, target_percent=target_percent,
                           time_limit=time_limit, check_every=check_every, progress=progress,
                           checkpoint=keep_baseline, elapsed=elapsed)
        except Interrupted:
            raise Interrupted(f"interrupted while solving the unlocked spot (the locked solve is done, "
                              f"{result.iterations} iterations)", partial=result) from None
    return result.with_equilibrium(baseline)


def locked_game(build: Callable[[bool], tuple[PostflopGame, dict[str, Any]]], isomorphism: bool,
                locks: tuple[Lock, ...]) -> tuple[PostflopGame, dict[str, Any], ResolvedLocks | None]:
    """The game ``build(isomorphism)`` makes with ``locks`` placed on it: built again without merging where a
    lock tells apart suits the game merges (a specific merged card, hands not closed under the suit swaps);
    the spot's description then says ``isomorphism: false`` and holds the locks."""
    game, spec = build(isomorphism)
    if not locks:
        return game, spec, None
    placed = resolve_locks(game, locks)
    if not placed.symmetric:
        game, spec = build(False)
        placed = resolve_locks(game, locks)
    spec["lock"] = [lock.text for lock in locks]
    return game, spec, placed


def _check_baseline(baseline: PostflopResult, spec: dict[str, Any]) -> None:
    if baseline.spec.get("lock"):
        raise InvalidArgumentError("the baseline must be a solve without locks")
    differ = [k for k in SPOT_KEYS if baseline.spec.get(k) != spec.get(k)]
    if differ:
        raise InvalidArgumentError(f"the baseline is another spot ({', '.join(differ)} differ): solve the same spot "
                                   "without locks")


def resumed_solver(checkpoint: Checkpoint | None, game: PostflopGame, spec: dict[str, Any],
                   locks: dict[int, tuple[np.ndarray, np.ndarray]] | None) -> tuple[PostflopSolver, float]:
    """A solver of ``game`` and the seconds already spent: from the ``checkpoint`` file if there is one (its
    spot, code and arrays checked first: :class:`~pokerlab.errors.FileFormatError` in one line otherwise), else
    a fresh one and 0."""
    path = None if checkpoint is None else checkpoint.path
    compress = bool(spec.get("compress"))
    if path is None or not path.exists():
        return PostflopSolver(game, locks=locks, compress=compress), 0.0
    meta, arrays = load_meta(path)
    saved = meta.get("spot")
    if saved != json.loads(json.dumps(spec)):
        differ = sorted(k for k in {*spec, *(saved if isinstance(saved, dict) else {})}
                        if not isinstance(saved, dict) or saved.get(k) != json.loads(json.dumps(spec.get(k))))
        raise FileFormatError(f"{path}: a checkpoint of another spot ({', '.join(differ) or 'spot'} differ): use "
                              "another checkpoint file, or solve the spot it holds")
    if meta.get("code") != solver_code():
        raise FileFormatError(f"{path}: a checkpoint made by other solver code (code {meta.get('code')!r}, this "
                              f"pokerlab {solver_code()!r}): resuming it would not be exact; solve it anew")
    regrets, cumulative, scales = _stored_arrays(path, game, compress, arrays)
    iteration, elapsed = meta.get("iterations"), meta.get("elapsed_s")
    if not isinstance(iteration, int) or iteration < 0 or not isinstance(elapsed, int | float) or not elapsed >= 0:
        raise FileFormatError(f"{path}: its arrays do not fit the spot it describes")
    weight = meta.get("strategy_weight")
    return (PostflopSolver(game, regrets, cumulative, iteration, locks=locks, compress=compress, scales=scales,
                           weight=None if weight is None else float(weight)), float(elapsed))


def _stored_arrays(path: str | Path, game: PostflopGame, compress: bool,
                   arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Copies of the regrets, cumulative strategy and (compressed storage) scales of a saved solve, their types
    and shapes checked against the spot (:class:`~pokerlab.errors.FileFormatError` in one line otherwise); float32
    storage is one array, returned as both."""
    size = game.storage_size
    if not compress:
        storage = np.asarray(arrays.get("storage", np.zeros(0)))
        if storage.dtype != np.float32 or storage.shape != (size,):
            raise FileFormatError(f"{path}: its arrays do not fit the spot it describes")
        kept = storage.copy()
        return kept, kept, None
    regrets = np.asarray(arrays.get("regrets", np.zeros(0)))
    cumulative = np.asarray(arrays.get("cumulative", np.zeros(0)))
    scales = np.asarray(arrays.get("scales", np.zeros(0)))
    if (regrets.dtype != np.int16 or cumulative.dtype != np.uint16 or regrets.shape != (size,)
            or cumulative.shape != (size,) or scales.dtype != np.float32
            or scales.shape != (2 * game.tree.kind.size,)):
        raise FileFormatError(f"{path}: its arrays do not fit the spot it describes")
    return regrets.copy(), cumulative.copy(), scales.copy()


@contextlib.contextmanager
def held_interrupts() -> Iterator[Callable[[], None]]:
    """Hold Ctrl-C (SIGINT) while the block runs and raise it (``KeyboardInterrupt``) where the block calls the
    function it yields, an iteration boundary (a Ctrl-C between OOP's and IP's pass would leave half an
    iteration), or when the block ends; a second Ctrl-C raises at once. The same as
    :func:`pokerlab.progress.deferred_interrupts` around each iteration, with one handler for the whole loop
    (two handler swaps an iteration cost about 5% of a small river spot's). Where Ctrl-C is not the default
    ``KeyboardInterrupt`` (ignored, another handler) or outside the main thread it changes nothing.

    >>> with held_interrupts() as boundary:
    ...     boundary()
    """
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield lambda: None
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if received:
            raise KeyboardInterrupt
        received.append(signum)

    def boundary() -> None:
        if received:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield boundary
    finally:
        signal.signal(signal.SIGINT, previous)
    boundary()


def run(solver: PostflopSolver, spec: dict[str, Any], *, iterations: int | None, target_percent: float | None,
        time_limit: float | None, check_every: int = 10, progress: Callable[[int, float], None] | None = None,
        checkpoint: Checkpoint | None = None, elapsed: float = 0.0) -> PostflopResult:
    """Iterate ``solver`` and wrap the state in a :class:`PostflopResult` (on Ctrl-C too): the stop rule of
    :meth:`PostflopSolver.run`, counting ``elapsed`` seconds already spent (a resumed checkpoint's); each
    iteration whole (Ctrl-C lands between iterations); the state written to ``checkpoint`` when due and at the
    end. The first iteration of the call is timed apart as ``compile_s`` (where the kernels compile or load)."""
    if iterations is None and target_percent is None and time_limit is None:
        iterations = 1000
    start = time.perf_counter()
    compile_s = 0.0
    reason = "interrupted"

    def spent() -> float:
        return elapsed + time.perf_counter() - start - compile_s

    whole = True  # False while an iteration runs: a second Ctrl-C there leaves half of one, never checkpointed

    def state(why: str) -> PostflopResult:
        result = _result(solver, spec, why, spent(), compile_s)
        if checkpoint is not None and whole:
            result.save(checkpoint.path)
        return result

    def iterate(boundary: Callable[[], None]) -> str:
        nonlocal compile_s, whole
        if target_percent is not None and solver.iteration > 0 and solver.iteration % check_every == 0 \
                and solver.exploitability_percent() <= target_percent:  # a resumed solve that had stopped there
            return "target"
        first = True
        while True:
            if iterations is not None and solver.iteration >= iterations:
                return "iterations"
            if time_limit is not None and spent() >= time_limit:
                return "time"
            began = time.perf_counter()
            whole = False
            # the first iteration alone (it is timed as the compilation), then a river's in batches
            batched = not first and time_limit is None and checkpoint is None
            solver.steps(solver.batch(check_every, iterations) if batched else 1)
            whole = True
            boundary()
            if first:
                compile_s, first = time.perf_counter() - began, False
            if target_percent is not None and solver.iteration % check_every == 0:
                now = solver.exploitability_percent()
                if progress is not None:
                    progress(solver.iteration, now)
                if now <= target_percent:
                    return "target"
            if checkpoint is not None and checkpoint.due(solver.iteration):
                began = time.perf_counter()
                state("checkpoint")
                checkpoint.wrote(solver.iteration, time.perf_counter() - began)

    result: PostflopResult | None = None
    try:
        with held_interrupts() as boundary:
            reason = iterate(boundary)
            result = state(reason)
            return result
    except KeyboardInterrupt:
        partial = result if result is not None else state(reason)
        raise Interrupted(f"interrupted after {solver.iteration} iterations", partial=partial) from None


def _result(solver: PostflopSolver, spec: dict[str, Any], reason: str, elapsed: float,
            compile_s: float) -> PostflopResult:
    half = solver.game.half_pot
    gains = solver.gains() if solver.locks else None
    exploitability = 0.5 * sum(gains) if gains is not None else solver.exploitability()
    ev = (solver.value(0) + half, solver.value(1) + half)
    return PostflopResult(solver.game, spec, solver.cumulative, solver.regrets, solver.iteration, exploitability,
                          100 * exploitability / solver.game.config.pot, ev, reason, elapsed, compile_s, gains,
                          scales=solver.scales if solver.compressed else None, strategy_weight=solver.given_weight)


def load(path: str | Path) -> PostflopResult:
    """A saved solve (:meth:`PostflopResult.save`), its game rebuilt from the spot it holds; another format or
    version raises :class:`~pokerlab.errors.FileFormatError` before the game is built."""
    meta, arrays = load_meta(path)
    spec = meta.get("spot")
    if not isinstance(spec, dict):
        raise FileFormatError(f"{path}: not a pokerlab postflop solve (no spot)")
    game, _, _ = _rebuild(spec)
    regrets, cumulative, scales = _stored_arrays(path, game, bool(spec.get("compress")), arrays)
    weight = meta.get("strategy_weight")
    ev = meta.get("ev", [0.0, 0.0])
    gains = meta.get("gains")
    return PostflopResult(game, spec, cumulative, regrets, int(meta["iterations"]), float(meta["exploitability"]),
                          float(meta["exploitability_percent"]), (float(ev[0]), float(ev[1])),
                          str(meta["stop_reason"]), float(meta["elapsed_s"]),
                          gains=None if gains is None else (float(gains[0]), float(gains[1])),
                          equilibrium=meta.get("equilibrium"), scales=scales,
                          strategy_weight=None if weight is None else float(weight))


def _rebuild(spec: dict[str, Any]) -> tuple[PostflopGame, dict[str, Any], ResolvedLocks | None]:
    """The game (and its locks) a spot's description makes."""
    game, _ = build_game(spec["board"], spec["oop"], spec["ip"], pot=spec["pot"], stack=spec["stack"],
                         bets=spec["bets"], raises=spec["raises"], donk=spec["donk"], add_allin=spec["add_allin"],
                         force_allin=spec["force_allin"], merging=spec["merging"], raise_cap=spec["raise_cap"],
                         rake=spec.get("rake"), rake_cap=spec.get("rake_cap"), isomorphism=spec["isomorphism"],
                         compress=bool(spec.get("compress")))
    locks = as_locks(spec.get("lock"))
    return game, spec, resolve_locks(game, locks) if locks else None


def resume(result: PostflopResult, *, iterations: int | None = None, target: float | str | None = None,
           time_limit: float | None = None) -> PostflopResult:
    """Continue a solve (e.g. a loaded one) exactly where it stopped, its locks kept (its unlocked baseline
    as it was); ``time_limit`` counts this call's seconds only."""
    placed = resolve_locks(result.game, as_locks(result.spec["lock"])) if result.spec.get("lock") else None
    regrets = result.regrets.copy()
    cumulative = regrets if result.scales is None else result.cumulative.copy()
    solver = PostflopSolver(result.game, regrets, cumulative, result.iterations,
                            locks=None if placed is None else placed.rows, compress=result.scales is not None,
                            scales=None if result.scales is None else result.scales.copy(),
                            weight=result.strategy_weight)
    out = run(solver, result.spec, iterations=iterations, target_percent=parse_target(target), time_limit=time_limit)
    return out if result.equilibrium is None else out.with_equilibrium(result.equilibrium)
