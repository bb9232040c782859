"""``pokerlab.postflop.solve``: a no-limit hold'em river, turn or flop spot solved by discounted CFR, with its
exact exploitability; ``load`` reads a saved solve back (and ``resume`` continues it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.encoding import format_cards
from pokerlab.cards.ranges import Range
from pokerlab.errors import FileFormatError, Interrupted, InvalidArgumentError, real_number, whole_number
from pokerlab.games.postflop.bettree import STREETS, TreeConfig, parse_street_sizes, sizes_text
from pokerlab.games.postflop.game import MAX_MEMORY, PostflopGame, parse_board
from pokerlab.postflop.result import PostflopResult, load_meta
from pokerlab.solvers.postflop_cfr import PostflopSolver


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
               build: bool = True) -> tuple[PostflopGame, dict[str, Any]]:
    """The game of a spot and its JSON description (what a saved solve keeps to rebuild it); every input is
    checked here, before any work (:class:`~pokerlab.errors.PokerlabError` subclasses); ``build=False``: the
    checks and the memory estimate only (``game.memory_bytes``), no tree. ``rake``: in % of the final pot
    (``5`` or ``"5%"``), taken from the winner of every pot, at most ``rake_cap`` chips (None: no cap)."""
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
    game = PostflopGame(cards, oop, ip, config, isomorphism=isomorphism, max_memory=max_memory, build=build)
    spec = {"board": format_cards(cards), "oop": oop.text if isinstance(oop, Range) else oop,
            "ip": ip.text if isinstance(ip, Range) else ip, "pot": pot_chips, "stack": stack_chips,
            "bets": sizes_text(config.bets),
            "raises": sizes_text(config.raises), "donk": config.donk, "add_allin": config.add_allin,
            "force_allin": config.force_allin, "merging": config.merging, "raise_cap": raise_cap,
            "rake": 100 * rake_share, "rake_cap": rake_cap, "isomorphism": isomorphism,
            "street": STREETS[config.street]}
    return game, spec


def solve(board: str, oop: str | Range, ip: str | Range, *, pot: float, stack: float,
          bets: str = "33%, 75%, a", raises: str = "2.5x, a", donk: bool = True, add_allin: float = 1.5,
          force_allin: float = 0.15, merging: float = 0.1, raise_cap: int | None = None,
          rake: float | str | None = None, rake_cap: float | None = None, target: float | str | None = 0.5,
          iterations: int | None = 1000, time_limit: float | None = None,
          isomorphism: bool = True, max_memory: int = MAX_MEMORY, check_every: int = 10,
          progress: Callable[[int, float], None] | None = None) -> PostflopResult:
    """Solve a postflop spot: ``board`` (3, 4 or 5 cards), OOP's and IP's ranges (pokerlab's range syntax,
    weights included), starting ``pot`` and effective ``stack`` in whole chips, the bet tree (``bets`` and
    ``raises`` in players' syntax, per street or for all: see :mod:`pokerlab.games.postflop.bettree`), the
    ``rake`` in % of the final pot (``"5%"``; the winner of every pot pays it, folds included, each player half
    on a tie) and its ``rake_cap`` in chips. With rake the EVs sum to the pot less the expected rake and the
    exploitability is each player's gain from a best response over its value, as postflop-solver's.

    Stops at ``target`` (exploitability in % of the pot, checked every ``check_every`` iterations), after
    ``iterations`` or ``time_limit`` seconds, whichever comes first. Ctrl-C stops between iterations and raises
    :class:`~pokerlab.errors.Interrupted` holding the result so far (``partial``).

    >>> r = solve("Kh9d5c2s2h", "QQ, 99, AKo", "KK, JTs", pot=100, stack=150, bets="75%", raises="a")
    >>> r.exploitability_percent <= 0.5, round(sum(r.ev), 6)
    (True, 100.0)
    >>> r.node("bet 75%").actions
    ('fold', 'call', 'all-in 150')
    """
    game, spec = build_game(board, oop, ip, pot=pot, stack=stack, bets=bets, raises=raises, donk=donk,
                            add_allin=add_allin, force_allin=force_allin, merging=merging, raise_cap=raise_cap,
                            rake=rake, rake_cap=rake_cap, isomorphism=isomorphism, max_memory=max_memory)
    target_percent = parse_target(target)
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=1)
    if time_limit is not None and not real_number(time_limit, "time limit (seconds)") > 0:
        raise InvalidArgumentError(f"the time limit must be a positive number of seconds, got {time_limit!r}")
    return run(PostflopSolver(game), spec, iterations=iterations, target_percent=target_percent,
               time_limit=time_limit, check_every=check_every, progress=progress)


def run(solver: PostflopSolver, spec: dict[str, Any], *, iterations: int | None, target_percent: float | None,
        time_limit: float | None, check_every: int = 10,
        progress: Callable[[int, float], None] | None = None) -> PostflopResult:
    """Iterate ``solver`` and wrap the state in a :class:`PostflopResult` (on Ctrl-C too)."""
    start = time.perf_counter()
    compile_s = 0.0
    if solver.iteration == 0:  # the first iteration compiles the kernels (or loads them from the cache)
        solver.step()
        compile_s = time.perf_counter() - start
    reason = "interrupted"
    try:
        reason = solver.run(iterations=iterations, target_percent=target_percent, time_limit=time_limit,
                            check_every=check_every, progress=progress)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after {solver.iteration} iterations",
                          partial=_result(solver, spec, reason, time.perf_counter() - start - compile_s,
                                          compile_s)) from None
    return _result(solver, spec, reason, time.perf_counter() - start - compile_s, compile_s)


def _result(solver: PostflopSolver, spec: dict[str, Any], reason: str, elapsed: float,
            compile_s: float) -> PostflopResult:
    half = solver.game.half_pot
    exploitability = solver.exploitability()
    ev = (solver.value(0) + half, solver.value(1) + half)
    return PostflopResult(solver.game, spec, solver.cumulative, solver.regrets, solver.iteration, exploitability,
                          100 * exploitability / solver.game.config.pot, ev, reason, elapsed, compile_s)


def load(path: str | Path) -> PostflopResult:
    """A saved solve (:meth:`PostflopResult.save`), its game rebuilt from the spot it holds; another format or
    version raises :class:`~pokerlab.errors.FileFormatError` before the game is built."""
    meta, arrays = load_meta(path)
    spec = meta.get("spot")
    if not isinstance(spec, dict):
        raise FileFormatError(f"{path}: not a pokerlab postflop solve (no spot)")
    game, _ = build_game(spec["board"], spec["oop"], spec["ip"], pot=spec["pot"], stack=spec["stack"],
                         bets=spec["bets"], raises=spec["raises"], donk=spec["donk"], add_allin=spec["add_allin"],
                         force_allin=spec["force_allin"], merging=spec["merging"], raise_cap=spec["raise_cap"],
                         rake=spec.get("rake"), rake_cap=spec.get("rake_cap"), isomorphism=spec["isomorphism"])
    cumulative = np.asarray(arrays["cumulative"], dtype=np.float32)
    regrets = np.asarray(arrays["regrets"], dtype=np.float32)
    if cumulative.shape != (game.storage_size,) or regrets.shape != cumulative.shape:
        raise FileFormatError(f"{path}: its strategy does not fit the spot it describes")
    ev = meta.get("ev", [0.0, 0.0])
    return PostflopResult(game, spec, cumulative, regrets, int(meta["iterations"]), float(meta["exploitability"]),
                          float(meta["exploitability_percent"]), (float(ev[0]), float(ev[1])),
                          str(meta["stop_reason"]), float(meta["elapsed_s"]))


def resume(result: PostflopResult, *, iterations: int | None = None, target: float | str | None = None,
           time_limit: float | None = None) -> PostflopResult:
    """Continue a solve (e.g. a loaded one) exactly where it stopped."""
    solver = PostflopSolver(result.game, result.regrets.copy(), result.cumulative.copy(), result.iterations)
    return run(solver, result.spec, iterations=iterations, target_percent=parse_target(target), time_limit=time_limit)
