"""What a worker process runs: one function per endpoint, each calling a public façade and returning the same
JSON object as the matching CLI command's ``--json`` (extra keys only where the page needs more).

Each task first compiles (or loads) its kernels exactly as the matching CLI command does (:mod:`pokerlab.warmup`),
so that its ``elapsed_s`` means what the CLI's does: the run's own time, never compilation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pokerlab.limits import MULTIWAY_DEALS
from pokerlab.web.hand_equity import hand_equity
from pokerlab.web.postflop import postflop_load_task, postflop_node_task, postflop_report_task, postflop_task
from pokerlab.web.solving import solve_with_curve, two_round_with_curve

Report = Callable[..., None]

PRECISION_SECONDS = 10.0
"""Seconds a precision target (``stderr``, ``half_width``) given without ``time`` or a sample count may run; a
0.3 s pilot run first refuses a target out of reach in that time, saying what the time allows."""
PILOT_SECONDS = 0.3


def _refuse_out_of_reach(target: float, pilot_error: float, pilot_seconds: float, what: str, instead: str) -> None:
    from pokerlab.errors import InvalidArgumentError
    from pokerlab.stats.stopping import out_of_reach

    why = out_of_reach(target, pilot_error, pilot_seconds, PRECISION_SECONDS, what=what)
    if why is not None:
        raise InvalidArgumentError(f"{why}; give a larger {what.split()[0]}, or {instead}")


def equity_task(params: dict[str, Any], report: Report) -> dict[str, Any]:
    """``pokerlab equity --json``; ``report({"fraction": f})`` on long runs."""
    from pokerlab.equity import equity
    from pokerlab.warmup import equity_groups, prepare

    board, dead, method = params.get("board") or "", params.get("dead") or "", params.get("method") or "auto"
    sampling_asked = any(params.get(key) is not None for key in ("trials", "time", "stderr"))
    prepare(equity_groups(params["players"], board, dead, method, sampling_asked), quiet=True)
    stderr, seconds = params.get("stderr"), params.get("time")
    if stderr is not None and seconds is None and params.get("trials") is None and stderr > 0:
        seconds = PRECISION_SECONDS
        pilot = equity(params["players"], board=board, dead=dead, method=method, time_limit=PILOT_SECONDS,
                       seed=params.get("seed"))
        if pilot.stderr is not None:
            _refuse_out_of_reach(stderr, max(pilot.stderr), pilot.elapsed_s, f"stderr {stderr:g}", "a time")
    result = equity(params["players"], board=board, dead=dead, method=method, trials=params.get("trials"),
                    time_limit=seconds, target_stderr=stderr, seed=params.get("seed"),
                    progress=lambda fraction: report({"fraction": fraction}))
    data = result.to_dict()
    if result.stop_reason is not None:
        data["stop_reason"] = result.stop_reason
    return data


def icm_task(params: dict[str, Any], report: Report) -> dict[str, Any]:
    """``pokerlab icm --json`` with the same options (stacks as a list, payouts in the CLI's text form), plus
    ``chip_share`` and ``prize_share`` per player for the page."""
    import numpy as np

    from pokerlab.icm import icm, parse_payouts
    from pokerlab.icm.analysis import bubble_factors, deal
    from pokerlab.warmup import prepare_icm

    stacks = np.asarray(params["stacks"], dtype=np.float64)
    payouts = parse_payouts(params["payouts"])
    method, places = params.get("method") or "auto", bool(params.get("places"))
    reduction = params.get("variance_reduction") or "auto"
    prepare_icm(stacks, payouts, method, places=places, samples=params.get("samples"), variance_reduction=reduction,
                quiet=True)
    half_width, seconds, confidence = params.get("half_width"), params.get("time"), params.get("confidence")
    if (half_width is not None and seconds is None and params.get("samples") is None and method == "montecarlo"
            and half_width > 0):
        from pokerlab.stats.stopping import normal_quantile

        seconds = PRECISION_SECONDS
        pilot = icm(stacks, payouts, method, confidence=confidence, time_limit=PILOT_SECONDS,
                    variance_reduction=reduction, seed=params.get("seed"))
        if pilot.stderr is not None:
            z = normal_quantile(0.95 if confidence is None else confidence)
            _refuse_out_of_reach(half_width, z * float(pilot.stderr.max()), pilot.elapsed_s,
                                 f"half_width {half_width:g}", "a time")
    result = icm(stacks, payouts, method, places=places, samples=params.get("samples"), half_width=half_width,
                 confidence=confidence, time_limit=seconds, variance_reduction=reduction, seed=params.get("seed"))
    data = result.to_dict()
    for player, chips, prize in zip(data["players"], result.chip_share, result.prize_share, strict=True):
        player["chip_share"] = float(chips)
        player["prize_share"] = float(prize)
    if params.get("bubble_factors"):
        bf = bubble_factors(stacks, payouts).to_dict()
        data["bubble_factors"] = bf["bubble_factors"]
        data["risk_premium"] = bf["risk_premium"]
    if params.get("deal"):
        data["deal"] = deal(stacks, payouts).to_dict()["players"]
    if params.get("bounty") is not None or params.get("pko_share") is not None:
        from pokerlab.icm import bounty_equity
        from pokerlab.icm.bounty import EXACT_MAX_PLAYERS, knockout_format
        from pokerlab.icm.display import with_bounties

        heads, share = knockout_format(params.get("bounty"), params.get("pko_share"), stacks.size)
        sampled = int(np.count_nonzero(stacks > 0)) > EXACT_MAX_PLAYERS  # a big field's bounties are sampled
        data = with_bounties(data, bounty_equity(stacks, heads, share=share,
                                                 seed=params.get("seed") if sampled else None))
    return data


def solve_task(params: dict[str, Any], report: Report) -> dict[str, Any]:
    """``pokerlab solve --json`` plus the exploitability curve and the average strategy."""
    from pokerlab.warmup import warm_once

    # as `pokerlab solve`: two iterations of the same game and algorithm compile the kernels of the timed run
    # (once per worker: later requests of the same kind find them loaded)
    warm = {**params, "iterations": 2, "target_exploitability": None, "time": None}
    warm_once(f"solve {params.get('game')} {params.get('algo')}", lambda: solve_with_curve(warm, _ignore), quiet=True)
    return solve_with_curve(params, report)


def two_round_task(params: dict[str, Any], report: Report) -> dict[str, Any]:
    """``pokerlab two-round train --exploitability --json`` plus the exploitability curve and the strategy per
    betting node (hand classes preflop, equity buckets on the flop)."""
    from pokerlab.warmup import prepare

    prepare(["two-round"], quiet=True)  # as `pokerlab two-round train`
    return two_round_with_curve(params, report)


def pushfold_task(params: dict[str, Any], report: Report) -> dict[str, Any]:
    """``pokerlab pushfold --json`` (stacks, blinds, ante, bb_ante, payouts and field as numbers); progress
    ``{"iteration", "max_gain"}`` after each gain check."""
    from pokerlab.pushfold import pushfold
    from pokerlab.warmup import warm_once

    game = {"blinds": params.get("blinds", (0.5, 1.0)), "ante": params.get("ante", 0.0),
            "bb_ante": params.get("bb_ante", 0.0), "payouts": params.get("payouts"), "field": params.get("field")}
    if params.get("bounty") is not None or params.get("pko_share") is not None:  # knockout bounties
        game |= {"bounty": params.get("bounty"),
                 "pko": False if params.get("pko_share") is None else params["pko_share"]}
    samples = params.get("multiway_samples", MULTIWAY_DEALS)
    # as `pokerlab pushfold`: one iteration of the same kind of game compiles the kernels of the timed solve (once
    # per worker: it costs seconds at 6+ seats, and the kernels depend on the kind of game, not on its numbers)
    kind = (len(params["stacks"]) > 2, game["payouts"] is not None, game["field"] is not None, "bounty" in game)
    fgs_depth = params.get("fgs_depth", 0)
    warm_once(f"pushfold {kind}", lambda: pushfold(params["stacks"], **game, iterations=1,
                                                   multiway_samples=min(samples, 20)), quiet=True)
    result = pushfold(params["stacks"], **game, target=params.get("target"), iterations=params.get("iterations"),
                      time_limit=params.get("time"), multiway_samples=samples, fgs_depth=fgs_depth,
                      progress=lambda done, gain: report({"iteration": done, "max_gain": gain}))
    return result.to_dict()


TASKS: dict[str, Callable[[dict[str, Any], Report], Any]] = {
    "equity": equity_task,
    "hand-equity": hand_equity,
    "icm": icm_task,
    "solve": solve_task,
    "pushfold": pushfold_task,
    "two-round": two_round_task,
    "postflop": postflop_task,
    "postflop-node": postflop_node_task,
    "postflop-load": postflop_load_task,
    "postflop-report": postflop_report_task,
}


def _ignore(*_: Any, **__: Any) -> None:
    return None


def warm_kernels() -> None:
    """Load every kernel a request may need (from numba's on-disk cache after the first run) so that the first
    request of a fresh worker does not wait for it (the tasks' own warm-ups then find them loaded)."""
    ignore = _ignore

    equity_task({"players": ["AhAs", "KdKc"], "board": "2c3d4h"}, ignore)
    equity_task({"players": ["AhAs", "KdKc"], "method": "montecarlo", "trials": 1000, "seed": 1}, ignore)
    equity_task({"players": ["QQ+", "AKs", "random"], "method": "montecarlo", "trials": 1000, "seed": 1}, ignore)
    icm_task({"stacks": [3, 2, 1], "payouts": "50,30,20", "places": True, "bubble_factors": True, "deal": True},
             ignore)
    solve_task({"game": "kuhn", "iterations": 10}, ignore)
    two_round_task({"stack": 1, "iterations": 10, "checks": 1}, ignore)
    pushfold_task({"stacks": [10, 10], "iterations": 2}, ignore)
    pushfold_task({"stacks": [10, 10], "payouts": [70, 30], "field": [10], "iterations": 2}, ignore)
