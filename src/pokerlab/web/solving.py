"""The web app's only calls into the games and solvers packages (kept together so that a change of their API
is one edit here): which games and algorithms the Solve page offers, and one solve with a progress stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GAMES = ("kuhn", "leduc", "kuhn4", "leduc3s", "leduc-2sizes")


def algorithms() -> tuple[str, ...]:
    """Names of the CFR-family algorithms, as ``pokerlab solve --algo`` accepts them."""
    from pokerlab.solvers.core import ALGORITHMS

    return tuple(ALGORITHMS)


def solve_with_curve(params: dict[str, Any], report: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Solve ``params["game"]`` with ``params["algo"]`` (the CLI's options: iterations, target_exploitability,
    time, seed, alpha, beta, gamma); ``report`` receives ``{"iteration", "exploitability", "elapsed_s"}`` after
    each batch. Returns the CLI's ``--json`` object plus ``curve`` (the points reported) and ``strategy``
    (``{infoset: {action: probability}}`` of the average strategy)."""
    from pokerlab.errors import InvalidGameError
    from pokerlab.solvers.core import SolveProgress, algorithm_config, solve

    game = str(params["game"]).strip().lower()
    if game not in GAMES:
        raise InvalidGameError(f"unknown game {params['game']!r} for the web page (expected one of "
                               f"{', '.join(GAMES)})")
    overrides = {k: params[k] for k in ("alpha", "beta", "gamma") if params.get(k) is not None}
    algo = algorithm_config(params.get("algo") or "cfr+", **overrides) if overrides else (params.get("algo") or "cfr+")
    curve: list[dict[str, float]] = []

    def progress(p: SolveProgress) -> None:
        if p.exploitability is None:
            return
        point = {"iteration": p.iteration, "exploitability": p.exploitability, "elapsed_s": p.elapsed_s}
        curve.append(point)
        report(point)

    iterations, target, seconds = params.get("iterations"), params.get("target_exploitability"), params.get("time")
    if iterations is None and target is None and seconds is None:
        iterations = 1000
    result = solve(game, algo, iterations=iterations, target_exploitability=target, time_limit=seconds,
                   seed=params.get("seed"), progress=progress)
    data = result.to_dict()
    data["curve"] = curve
    data["strategy"] = result.policy.to_dict()
    return data
