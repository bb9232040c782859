"""One solver core for the CFR family and Monte Carlo CFR, with save/resume and the ``solve`` façade."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games.base import Game
from pokerlab.games.compiler import CompiledGame
from pokerlab.games.registry import compiled, game_from_spec
from pokerlab.solvers import kernels
from pokerlab.solvers.policy import Exploitability, Policy, exploitability

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


def algorithm_config(algorithm: str | SolverConfig, **overrides: float) -> SolverConfig:
    """The config of a named algorithm (``cfr``, ``cfr+``, ``lcfr``, ``dcfr``, ``es-mccfr``, ``os-mccfr``),
    with optional overrides such as ``alpha=2``."""
    if isinstance(algorithm, SolverConfig):
        config = algorithm
    else:
        config = ALGORITHMS.get(str(algorithm).strip().lower())
        if config is None:
            raise InvalidArgumentError(f"unknown algorithm {algorithm!r} (expected one of {', '.join(ALGORITHMS)})")
    if overrides:
        config = replace(config, **{k: float(v) for k, v in overrides.items()})
    if config.sampling not in ("full", "external", "outcome"):
        raise InvalidArgumentError(f"unknown sampling {config.sampling!r}")
    if not 0.0 < config.epsilon <= 1.0:
        raise InvalidArgumentError(f"epsilon must be in (0, 1], got {config.epsilon}")
    return config


def _seed_word(seed: int | None) -> np.ndarray:
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed!r}")
    # Mix the seed once so that nearby seeds start far apart in the splitmix64 sequence.
    mixed = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint64)[0]
    return np.array([mixed], dtype=np.uint64)


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
        self.rng = _seed_word(seed)
        self._max_actions = int(max(np.max(self.game.num_children), 1))

    # -- running ----------------------------------------------------------------------------------------------
    def iterate(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (one iteration updates both players, alternating)."""
        if iterations < 0:
            raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
        if iterations == 0:
            return
        g, c = self.game, self.config
        if c.sampling == "full":
            kernels.cfr_iterations(g.kind, g.player, g.parent, g.first_child, g.num_children, g.chance_prob,
                                   g.infoset, g.utility, g.info_player, g.info_offset, g.level_offsets, self.sigma,
                                   self.regrets, self.cumulative, self.iteration, iterations, c.floor, c.discount,
                                   c.alpha, c.beta, c.gamma)
        elif c.sampling == "external":
            kernels.external_sampling_iterations(g.kind, g.player, g.first_child, g.num_children, g.chance_prob,
                                                 g.infoset, g.utility, g.info_offset, self.regrets, self.cumulative,
                                                 iterations, self.rng, self._max_actions)
        else:
            kernels.outcome_sampling_iterations(g.kind, g.player, g.first_child, g.num_children, g.chance_prob,
                                                g.infoset, g.utility, g.info_offset, self.regrets, self.cumulative,
                                                iterations, self.rng, c.epsilon, self._max_actions,
                                                int(g.sizes.depth))
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
        path = Path(path)
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game_spec": self.game.spec,
                "config": asdict(self.config), "iteration": self.iteration, "seed": self.seed}
        with path.open("wb") as handle:
            np.savez_compressed(handle, meta=np.array(json.dumps(meta)), regrets=self.regrets,
                                cumulative=self.cumulative, sigma=self.sigma, rng=self.rng)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Solver:
        """Resume a solver saved by :meth:`save`; raises :class:`FileFormatError` for anything else."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = {k: np.array(data[k]) for k in ("regrets", "cumulative", "sigma", "rng")}
        except FileNotFoundError:
            raise
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as error:
            raise FileFormatError(f"{path}: not a pokerlab solver file ({error})") from error
        if meta.get("format") != FORMAT:
            raise FileFormatError(f"{path}: not a pokerlab solver file")
        if meta.get("format_version") != FORMAT_VERSION:
            raise FileFormatError(f"{path}: unsupported format version {meta.get('format_version')!r} "
                                  f"(this pokerlab reads version {FORMAT_VERSION})")
        solver = cls(game_from_spec(meta["game_spec"]), SolverConfig(**meta["config"]), seed=0)
        if arrays["regrets"].shape != solver.regrets.shape:
            raise FileFormatError(f"{path}: arrays do not match the game {solver.game.name!r}")
        solver.regrets = arrays["regrets"].astype(np.float64)
        solver.cumulative = arrays["cumulative"].astype(np.float64)
        solver.sigma = arrays["sigma"].astype(np.float64)
        solver.rng = arrays["rng"].astype(np.uint64)
        solver.iteration = int(meta["iteration"])
        solver.seed = meta.get("seed")
        return solver


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


def solve(game: str | Game | CompiledGame | None = None, algorithm: str | SolverConfig = "cfr+",
          iterations: int | None = None, target_exploitability: float | None = None,
          time_limit: float | None = None, seed: int | None = None,
          progress: Callable[[SolveProgress], None] | None = None, resume: Solver | str | Path | None = None,
          check_every: int | None = None) -> SolveResult:
    """Solve a two-player zero-sum game with a CFR-family algorithm.

    Stops at the first of: ``iterations`` (total, counting resumed ones), ``target_exploitability`` (chips per
    game, checked exactly between batches), ``time_limit`` (seconds). With none given, runs 1,000 iterations.
    ``resume`` continues a :class:`Solver` or a saved ``.npz`` (its algorithm and game win).

    >>> r = solve("kuhn", "cfr+", iterations=200)
    >>> abs(r.game_value + 1 / 18) < 1e-3 and r.exploitability < 1e-3
    True
    """
    if resume is not None:
        solver = resume if isinstance(resume, Solver) else Solver.load(resume)
    else:
        if game is None:
            raise InvalidArgumentError("give a game to solve or a solver to resume")
        solver = Solver(game, algorithm, seed=seed)
    for label, value in (("iterations", iterations), ("check_every", check_every)):
        if value is not None and (not isinstance(value, int | np.integer) or value < 0):
            raise InvalidArgumentError(f"{label} must be a non-negative integer, got {value!r}")
    if target_exploitability is not None and not (target_exploitability > 0 and np.isfinite(target_exploitability)):
        raise InvalidArgumentError(f"target exploitability must be a positive number, got {target_exploitability!r}")
    if time_limit is not None and not (time_limit > 0 and np.isfinite(time_limit)):
        raise InvalidArgumentError(f"time limit must be a positive number of seconds, got {time_limit!r}")
    if iterations is None and target_exploitability is None and time_limit is None:
        iterations = 1000
    total = int(iterations) if iterations is not None else None
    warm_kernels(solver.config.sampling)
    start = time.perf_counter()
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
    final = current if current is not None and target_exploitability is not None else solver.exploitability()
    elapsed = time.perf_counter() - start
    return SolveResult(game=solver.game.name, algorithm=solver.config.name, iterations=solver.iteration,
                       exploitability=final.exploitability, mbb_per_game=final.mbb_per_game,
                       nash_conv=final.nash_conv, game_value=final.game_value, elapsed_s=elapsed,
                       policy=solver.average_policy(), solver=solver)
