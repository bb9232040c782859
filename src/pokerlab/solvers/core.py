"""One solver core for the CFR family and Monte Carlo CFR, with save/resume and the ``solve`` façade."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import pokerlab.solvers.kernels as kernels
from pokerlab.errors import (
    FileFormatError,
    Interrupted,
    InvalidArgumentError,
    PokerlabError,
    real_number,
    whole_number,
)
from pokerlab.games.base import Game
from pokerlab.games.compiler import CompiledGame
from pokerlab.games.registry import compiled, game_from_spec, rebuildable
from pokerlab.limits import check_work
from pokerlab.progress import deferred_interrupts
from pokerlab.solvers.archive import check_format, read_archive, write_archive
from pokerlab.solvers.policy import Exploitability, Policy, exploitability
from pokerlab.solvers.strategy import register_reader
from pokerlab.stats import validate_seed
from pokerlab.stats.rng import seed_state

FORMAT = "pokerlab-solver"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class SolverConfig:
    """Flags of the solver core. ``sampling``: ``"full"`` (whole-tree CFR), ``"external"`` or ``"outcome"``
    (MCCFR). Full traversal only: ``floor`` (regret matching plus: clamp regrets at 0), ``discount`` (multiply
    positive regrets by t^alpha/(t^alpha+1), negative ones by t^beta/(t^beta+1)), ``gamma`` (iteration t adds
    weight t^gamma to the average strategy). ``epsilon``: outcome-sampling exploration."""

    name: str
    sampling: str = "full"
    floor: bool = False
    discount: bool = False
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 0.0
    epsilon: float = 0.6


ALGORITHMS: dict[str, SolverConfig] = {
    "cfr": SolverConfig("cfr"),
    "cfr+": SolverConfig("cfr+", floor=True, gamma=1.0),
    "lcfr": SolverConfig("lcfr", discount=True, alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": SolverConfig("dcfr", discount=True, alpha=1.5, beta=0.0, gamma=2.0),
    "es-mccfr": SolverConfig("es-mccfr", sampling="external"),
    "os-mccfr": SolverConfig("os-mccfr", sampling="outcome", epsilon=0.6),
}


# Which algorithms read each tunable parameter, and its accepted range (closed interval). The bounds keep t^x finite
# in float64 for any realistic iteration count t (up to 1e9 iterations: 1e9^10 = 1e90).
PARAMETER_RANGES: dict[str, tuple[float, float]] = {"alpha": (0.0, 10.0), "beta": (-10.0, 10.0),
                                                    "gamma": (0.0, 10.0), "epsilon": (0.0, 1.0)}


def _uses(config: SolverConfig, parameter: str) -> bool:
    if parameter in ("alpha", "beta"):
        return config.sampling == "full" and config.discount
    if parameter == "gamma":
        return config.sampling == "full"
    return config.sampling == "outcome"  # epsilon


def _validate_config(config: SolverConfig) -> SolverConfig:
    if config.sampling not in ("full", "external", "outcome"):
        raise InvalidArgumentError(f"unknown sampling {config.sampling!r}")
    for name, (lo, hi) in PARAMETER_RANGES.items():
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) \
                or not np.isfinite(value) or not lo <= value <= hi:
            raise InvalidArgumentError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    if config.epsilon <= 0.0:
        raise InvalidArgumentError(f"epsilon must be in (0, 1], got {config.epsilon}")
    return config


def algorithm_config(algorithm: str | SolverConfig, **overrides: float) -> SolverConfig:
    """The config of a named algorithm (``cfr``, ``cfr+``, ``lcfr``, ``dcfr``, ``es-mccfr``, ``os-mccfr``),
    with optional overrides of the parameters that algorithm uses.

    Parameters and ranges: ``alpha`` in [0, 10] and ``beta`` in [-10, 10] (discounted CFR: lcfr, dcfr);
    ``gamma`` in [0, 10] (average weight t^gamma, full-traversal algorithms: cfr, cfr+, lcfr, dcfr);
    ``epsilon`` in (0, 1] (os-mccfr exploration). An override the algorithm does not use, or a value that is
    not finite or out of range, raises :class:`InvalidArgumentError`.

    >>> algorithm_config("dcfr", alpha=2).alpha
    2.0
    """
    if isinstance(algorithm, SolverConfig):
        config = algorithm
    else:
        named = ALGORITHMS.get(str(algorithm).strip().lower())
        if named is None:
            raise InvalidArgumentError(f"unknown algorithm {algorithm!r} (expected one of {', '.join(ALGORITHMS)})")
        config = named
    if overrides:
        for key, value in overrides.items():
            if key not in PARAMETER_RANGES:
                raise InvalidArgumentError(f"unknown solver parameter {key!r} (expected one of "
                                           f"{', '.join(PARAMETER_RANGES)})")
            if not _uses(config, key):
                raise InvalidArgumentError(f"{config.name} does not use {key}; it applies to "
                                           + {"alpha": "lcfr and dcfr", "beta": "lcfr and dcfr",
                                              "gamma": "cfr, cfr+, lcfr and dcfr", "epsilon": "os-mccfr"}[key])
            if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
                raise InvalidArgumentError(f"{key} must be a number, got {value!r}")
        config = replace(config, **{k: float(v) for k, v in overrides.items()})  # type: ignore[arg-type]
    return _validate_config(config)


class Solver:
    """State of one run of the CFR family or MCCFR on a compiled game; ``iterate`` continues it.

    >>> s = Solver("kuhn", "cfr+"); s.iterate(200); s.exploitability().exploitability < 1e-3
    True
    """

    def __init__(self, game: str | Game | CompiledGame, algorithm: str | SolverConfig = "cfr+",
                 seed: int | None = None) -> None:
        self.game = compiled(game)
        self.config = algorithm_config(algorithm)
        n = self.game.num_flat_actions
        self.regrets = np.zeros(n)
        self.cumulative = np.zeros(n)
        self.sigma = Policy.uniform(self.game).probs.copy()
        self.iteration = 0
        self.seed = seed
        self.rng = seed_state(seed)
        self._max_actions = int(max(np.max(self.game.num_children), 1))

    # -- running ----------------------------------------------------------------------------------------------
    def iterate(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (one iteration updates both players, alternating)."""
        if iterations < 0:
            raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
        if iterations == 0:
            return
        g, c = self.game, self.config
        with deferred_interrupts():  # Ctrl-C waits for the arrays and the count to agree
            if c.sampling == "full":
                schedule = kernels.CfrSchedule(bool(c.floor), bool(c.discount), float(c.alpha), float(c.beta),
                                               float(c.gamma))  # fixed types: one compiled specialisation
                kernels.cfr_iterations(g.arrays(), kernels.CfrTables(self.sigma, self.regrets, self.cumulative),
                                       schedule, self.iteration, iterations)
            elif c.sampling == "external":
                kernels.external_sampling_iterations(g.arrays(), self.regrets, self.cumulative, iterations,
                                                     self.rng, self._max_actions)
            else:
                kernels.outcome_sampling_iterations(g.arrays(), self.regrets, self.cumulative, iterations, self.rng,
                                                    c.epsilon, self._max_actions, int(g.sizes.depth))
            self.iteration += iterations

    # -- results ----------------------------------------------------------------------------------------------
    def average_policy(self) -> Policy:
        """The average strategy (the one that converges to equilibrium)."""
        out = np.empty_like(self.cumulative)
        kernels.normalize_average(self.cumulative, self.game.info_offset, out)
        return Policy(self.game, out)

    def current_policy(self) -> Policy:
        """The current (regret-matching) strategy."""
        out = np.empty_like(self.regrets)
        kernels.regret_matching(self.regrets, self.game.info_offset, self.game.info_player, -1, out)
        return Policy(self.game, out)

    def exploitability(self) -> Exploitability:
        """Exact exploitability of the average strategy."""
        return exploitability(self.game, self.average_policy())

    # -- persistence ------------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the complete state to ``path`` (.npz with a format version); ``Solver.load`` resumes it exactly."""
        source = self.game.source
        if source is None or not rebuildable(source):
            raise InvalidArgumentError(f"cannot save a solver of the custom game {self.game.name!r}: only built-in "
                                       "games (limit poker presets and specs, matrix games) can be rebuilt from a file")
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game_spec": self.game.spec,
                "config": asdict(self.config), "iteration": self.iteration, "seed": self.seed}
        return write_archive(path, meta, {"regrets": self.regrets, "cumulative": self.cumulative,
                                          "sigma": self.sigma, "rng": self.rng})

    @classmethod
    def load(cls, path: str | Path) -> Solver:
        """Resume a solver saved by :meth:`save`; raises :class:`FileFormatError` for anything else."""
        if not isinstance(path, str | os.PathLike):
            raise InvalidArgumentError(f"a solver file is a path, got {type(path).__name__}")
        path = Path(path)
        meta, arrays = read_archive(path, "pokerlab solver file", ("regrets", "cumulative", "sigma", "rng"),
                                    missing=f"no solver file {path}")
        check_format(path, meta, (FORMAT,), FORMAT_VERSION, "pokerlab solver file")
        try:
            solver = cls(game_from_spec(meta["game_spec"]), SolverConfig(**meta["config"]), seed=0)
            iteration = int(meta["iteration"])
            seed = meta.get("seed")
            if iteration < 0:
                raise ValueError(f"negative iteration count {iteration}")
            validate_seed(seed)
        except (PokerlabError, TypeError, KeyError, ValueError, AttributeError) as error:
            raise FileFormatError(f"{path}: corrupt pokerlab solver file ({type(error).__name__}: {error})") from error
        shapes = {"regrets": solver.regrets.shape, "cumulative": solver.cumulative.shape,
                  "sigma": solver.sigma.shape, "rng": (1,)}
        if any(arrays[k].shape != shape for k, shape in shapes.items()):
            raise FileFormatError(f"{path}: arrays do not match the game {solver.game.name!r}")
        try:
            solver.regrets = arrays["regrets"].astype(np.float64)
            solver.cumulative = arrays["cumulative"].astype(np.float64)
            solver.sigma = arrays["sigma"].astype(np.float64)
            solver.rng = arrays["rng"].astype(np.uint64)
        except (TypeError, ValueError) as error:
            raise FileFormatError(f"{path}: corrupt pokerlab solver file ({error})") from error
        solver.iteration = iteration
        solver.seed = seed
        return solver


def _average_of_solver_file(path: Path, game: Game) -> Policy:
    """A solver file read as a strategy of ``game`` (:func:`pokerlab.solvers.strategy.load_strategy`): its
    average policy."""
    solver = Solver.load(path)
    if solver.game.spec != game.spec():
        raise InvalidArgumentError(f"{path}: a strategy of {solver.game.name!r}, not {game.name!r}")
    return solver.average_policy()


register_reader(FORMAT, _average_of_solver_file)


def _check_resume(solver: Solver, game: str | Game | CompiledGame | None, algorithm: str | SolverConfig | None,
                  seed: int | None, iterations: int | None) -> None:
    """Refuse options that a resumed run would otherwise ignore."""
    if game is not None:
        given = compiled(game)
        if given is not solver.game and given.spec != solver.game.spec:
            raise InvalidArgumentError(f"the saved run solves {solver.game.name!r}, not {given.name!r}")
    if algorithm is not None:
        config = algorithm_config(algorithm)
        if config != solver.config:
            raise InvalidArgumentError(f"the saved run uses {solver.config.name!r}"
                                       + (f", not {config.name!r}" if config.name != solver.config.name else
                                          " with other parameters") + "; resuming keeps its algorithm")
    if seed is not None:
        raise InvalidArgumentError("a seed cannot be given when resuming (the saved random state continues)")
    if isinstance(iterations, int | np.integer) and 0 <= iterations <= solver.iteration:
        raise InvalidArgumentError(f"the saved run already has {solver.iteration:,} iterations; iterations is the "
                                   f"total to reach, so give more than {solver.iteration:,}")


_WARM: set[str] = set()


def warm_kernels(sampling: str = "full") -> None:
    """Compile (or load from numba's cache) the kernels of one sampling scheme on Kuhn poker, so that timings and
    time limits measure solving rather than compilation."""
    if sampling in _WARM:
        return
    tiny = Solver("kuhn", {"full": "cfr", "external": "es-mccfr", "outcome": "os-mccfr"}[sampling], seed=0)
    tiny.iterate(1)
    tiny.exploitability()
    tiny.current_policy()
    _WARM.add(sampling)


@dataclass(frozen=True)
class SolveProgress:
    """Reported to the progress callback: iterations done, the planned total (None when open-ended), the
    latest exploitability of the average strategy (chips per game; None before the first check) and seconds."""

    iteration: int
    total: int | None
    exploitability: float | None
    elapsed_s: float


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Outcome of :func:`solve`. ``exploitability`` is in chips per game (``nash_conv / 2``), ``game_value`` is
    player 0's expected payoff under the average policy, ``solver`` holds the state for saving/resuming."""

    game: str
    algorithm: str
    iterations: int
    exploitability: float
    mbb_per_game: float
    nash_conv: float
    game_value: float
    elapsed_s: float
    policy: Policy
    solver: Solver

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``--json`` shape."""
        return {"game": self.game, "algorithm": self.algorithm, "iterations": self.iterations,
                "exploitability": self.exploitability, "game_value": self.game_value, "elapsed_s": self.elapsed_s}


NODE_VISITS_PER_SECOND = 2e9  # an optimistic rate of tree-form iterations: histories visited per second


def solve(game: str | Game | CompiledGame | None = None, algorithm: str | SolverConfig | None = None,
          iterations: int | None = None, target_exploitability: float | None = None,
          time_limit: float | None = None, seed: int | None = None,
          progress: Callable[[SolveProgress], None] | None = None, resume: Solver | str | Path | None = None,
          check_every: int | None = None) -> SolveResult:
    """Solve a two-player zero-sum game with a CFR-family algorithm (``algorithm`` defaults to ``cfr+``).

    Stops at the first of: ``iterations`` (the *total*, counting resumed ones), ``target_exploitability`` (chips
    per game, checked exactly between batches), ``time_limit`` (seconds). With none given, runs 1,000 iterations
    (1,000 more when resuming). ``resume`` continues a :class:`Solver` or a saved ``.npz``: its game, algorithm
    and random state are kept, so a ``game`` or ``algorithm`` that differs from the saved one, any ``seed``, or
    an ``iterations`` total not above the saved count raises :class:`InvalidArgumentError`.

    >>> r = solve("kuhn", "cfr+", iterations=200)
    >>> abs(r.game_value + 1 / 18) < 1e-3 and r.exploitability < 1e-3
    True
    """
    if resume is not None:
        solver = resume if isinstance(resume, Solver) else Solver.load(resume)
        _check_resume(solver, game, algorithm, seed, iterations)
        if iterations is None and target_exploitability is None and time_limit is None:
            iterations = solver.iteration + 1000
    else:
        if game is None:
            raise InvalidArgumentError("give a game to solve or a solver to resume")
        solver = Solver(game, "cfr+" if algorithm is None else algorithm, seed=seed)
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=0)
    if check_every is not None:
        check_every = whole_number(check_every, "check_every", low=0)
    for label, number in (("target exploitability", target_exploitability), ("time limit", time_limit)):
        if number is not None:
            real_number(number, label)
    if target_exploitability is not None and not (target_exploitability > 0 and np.isfinite(target_exploitability)):
        raise InvalidArgumentError(f"target exploitability must be a positive number, got {target_exploitability!r}")
    if time_limit is not None and not (time_limit > 0 and np.isfinite(time_limit)):
        raise InvalidArgumentError(f"time limit must be a positive number of seconds, got {time_limit!r}")
    if iterations is None and target_exploitability is None and time_limit is None:
        iterations = 1000
    total = int(iterations) if iterations is not None else None
    if total is not None:  # a count that could never finish is refused now, with the estimate
        check_work(total - solver.iteration, f"{total:,} iterations of {solver.game.name}",
                   per_second=NODE_VISITS_PER_SECOND / max(int(solver.game.sizes.histories), 1))
    warm_kernels(solver.config.sampling)
    start = time.perf_counter()
    try:
        current = _run_batches(solver, total, target_exploitability, time_limit, check_every, progress, start)
    except KeyboardInterrupt:  # raised between two batches (Solver.iterate holds it): the state is whole
        raise Interrupted(f"after {solver.iteration:,} iterations", partial=solver) from None
    final = current if current is not None and target_exploitability is not None else solver.exploitability()
    elapsed = time.perf_counter() - start
    return SolveResult(game=solver.game.name, algorithm=solver.config.name, iterations=solver.iteration,
                       exploitability=final.exploitability, mbb_per_game=final.mbb_per_game,
                       nash_conv=final.nash_conv, game_value=final.game_value, elapsed_s=elapsed,
                       policy=solver.average_policy(), solver=solver)


def _run_batches(solver: Solver, total: int | None, target_exploitability: float | None, time_limit: float | None,
                 check_every: int | None, progress: Callable[[SolveProgress], None] | None,
                 start: float) -> Exploitability | None:
    """Iterate in batches of about 0.1 s until a limit is reached; return the last exploitability checked."""
    current: Exploitability | None = None
    batch = check_every or 10
    per_iteration = None
    while True:
        elapsed = time.perf_counter() - start
        if total is not None and solver.iteration >= total:
            break
        if time_limit is not None and elapsed >= time_limit:
            break
        if target_exploitability is not None and current is not None and \
                current.exploitability <= target_exploitability:
            break
        n = batch
        if check_every is None:
            # Aim at ~0.1 s per batch so progress and the time limit stay responsive.
            n = max(1, int(0.1 / per_iteration)) if per_iteration else batch
            if target_exploitability is not None:
                n = min(n, max(10, solver.iteration // 4))  # check often enough not to overshoot the target
        if total is not None:
            n = min(n, total - solver.iteration)
        if time_limit is not None and per_iteration:
            n = max(1, min(n, int((time_limit - elapsed) / per_iteration) + 1))
        t0 = time.perf_counter()
        solver.iterate(n)
        per_iteration = max((time.perf_counter() - t0) / n, 1e-7)
        if target_exploitability is not None or progress is not None:
            current = solver.exploitability()
        if progress is not None:
            progress(SolveProgress(solver.iteration, total, current.exploitability if current else None,
                                   time.perf_counter() - start))
    return current
