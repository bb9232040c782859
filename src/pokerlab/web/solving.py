"""The web app's only calls into the games and solvers packages (kept together so that a change of their API
is one edit here): which games and algorithms the Solve page offers, and one solve with a progress stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pokerlab.games.registry import WEB, game_names, get_game

GAMES = game_names(WEB)


def algorithms() -> tuple[str, ...]:
    """Names of the CFR-family algorithms, as ``pokerlab solve --algo`` accepts them."""
    from pokerlab.solvers.core import ALGORITHMS

    return tuple(ALGORITHMS)


def web_game(name: str) -> str:
    """``name`` as the page's menu spells it, or :class:`InvalidGameError` when the page does not offer it."""
    from pokerlab.errors import InvalidGameError

    game = str(name).strip().lower()
    if game not in GAMES:
        raise InvalidGameError(f"unknown game {name!r} for the web page (expected one of {', '.join(GAMES)})")
    return game


def solve_with_curve(params: dict[str, Any], report: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Solve ``params["game"]`` with ``params["algo"]`` (the CLI's options: iterations, target_exploitability,
    time, seed, alpha, beta, gamma); ``report`` receives ``{"iteration", "exploitability", "elapsed_s"}`` after
    each batch. Returns the CLI's ``--json`` object plus ``curve`` (the points reported) and ``strategy``
    (``{infoset: {action: probability}}`` of the average strategy)."""
    from pokerlab.solvers.core import SolveProgress, algorithm_config, solve

    game = get_game(web_game(params["game"]), WEB)
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


# -- the two-round hold'em game (docs/games-two-round.md) ----------------------------------------------------

#: What the page asks for when the client gives nothing: a game small enough to train and measure in seconds.
TWO_ROUND_DEFAULTS: dict[str, Any] = {"stack": 3, "buckets": 24, "iterations": 100_000, "checks": 4, "seed": 0}


#: MCCFR iterations per kernel call (0.01-0.1 s at stack 6, quiet to loaded core): a time bound and the progress
#: act between calls.
TWO_ROUND_BATCH = 5000


def two_round_best_response_work(stack: int, checks: int) -> int:
    """Node-boards (one round-2 betting node evaluated on one flop) of ``checks`` exact exploitability
    measurements of the two-round game with ``stack`` chips behind the ante: the unit in which
    :func:`pokerlab.solvers.two_round.exploitability` counts its work (two best responses per measurement). Only
    the betting tree is built (no card tables), so the server can budget a request before it runs.

    >>> two_round_best_response_work(1, 1)
    72072
    """
    from math import comb

    import numpy as np

    from pokerlab.games.two_round import NODE_FLOP, TwoRoundSpec
    from pokerlab.solvers.two_round import tree_of

    spec = TwoRoundSpec(stack=stack)
    tree = tree_of(spec)
    flop_nodes = np.flatnonzero(tree.kind == NODE_FLOP)
    per_flop = sum(max(1, int(tree.subtree_end[n] - n - 1)) for n in flop_nodes)
    return 2 * checks * per_flop * comb(spec.ranks * spec.suits, 3)


def _two_round_marks(checks: int) -> list[float]:
    """Fractions of the run after which the exploitability is measured: evenly spaced on the curve's log scale
    (halving back from the end: ..., 1/4, 1/2, 1)."""
    return [2.0 ** -(checks - 1 - k) for k in range(checks)]


def two_round_options(params: dict[str, Any]) -> tuple[int, int, int, int, int | None, float | None]:
    """``(stack, buckets, checks, seed, iterations, time)`` of a two-round request, missing ones from
    :data:`TWO_ROUND_DEFAULTS`, or the :class:`~pokerlab.errors.InvalidArgumentError` saying which is wrong.

    >>> two_round_options({"stack": 2, "time": 1.5})
    (2, 24, 4, 0, None, 1.5)
    """
    import math

    from pokerlab.errors import InvalidArgumentError
    from pokerlab.stats import validate_seed

    def option(name: str) -> Any:
        value = params.get(name)
        return TWO_ROUND_DEFAULTS[name] if value is None else value

    stack, buckets, checks, seed = option("stack"), option("buckets"), option("checks"), option("seed")
    iterations, seconds = params.get("iterations"), params.get("time")
    if iterations is None and seconds is None:
        iterations = TWO_ROUND_DEFAULTS["iterations"]
    if stack < 1:
        raise InvalidArgumentError(f"stack must be at least 1 chip behind the ante, got {stack}")
    if buckets < 1:
        raise InvalidArgumentError(f"buckets must be at least 1, got {buckets} (0, no abstraction, needs a row per "
                                   "flop and hand: train it with `pokerlab two-round train --buckets 0`)")
    if checks < 1:
        raise InvalidArgumentError(f"checks must be at least 1 exploitability measurement, got {checks}")
    if iterations is not None and iterations < 1:
        raise InvalidArgumentError(f"iterations must be a positive integer, got {iterations}")
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise InvalidArgumentError(f"time must be a positive number of seconds, got {seconds}")
    validate_seed(seed)
    return stack, buckets, checks, seed, iterations, seconds


def two_round_with_curve(params: dict[str, Any], report: Callable[..., None]) -> dict[str, Any]:
    """Train the two-round game with external-sampling MCCFR (``pokerlab two-round train``) and measure the
    exact exploitability of the full-stack average strategy ``checks`` times as it runs.

    ``params``: ``stack`` (chips behind the ante), ``buckets`` (flop buckets by equity), ``iterations`` and/or
    ``time`` (training seconds, the exact measurements not counted; the run stops at whichever comes first),
    ``checks`` (exploitability measurements, after 1/2^(checks-1), ..., 1/4, 1/2 and all of the run) and ``seed``;
    missing ones from :data:`TWO_ROUND_DEFAULTS`. ``report`` receives ``{"phase": "training", "iteration",
    "fraction"}`` and ``{"phase": "exploitability", "iteration", "fraction"}`` while it runs, and each curve
    point ``{"iteration", "exploitability", "mbb_per_game", "elapsed_s"}`` as soon as it is measured.

    Returns the keys of ``pokerlab two-round train --exploitability --json`` (``iterations``, ``buckets``,
    ``best_response_values``, ``exploitability``, ``mbb_per_game``, ``elapsed_s``; no ``out``: the server writes
    no files) plus ``game``, ``stack``, ``training_s`` (``elapsed_s`` is the whole run), ``curve`` and ``strategy``
    (see :func:`two_round_strategy_view`).
    """
    import math
    import time

    from pokerlab.games.two_round import TwoRoundSpec
    from pokerlab.solvers.two_round import Abstraction, TwoRoundTrainer, exploitability

    stack, buckets, checks, seed, iterations, seconds = two_round_options(params)
    start = time.perf_counter()
    trainer = TwoRoundTrainer(TwoRoundSpec(stack=stack), Abstraction(buckets=buckets), seed=seed)
    done, training_s = 0, 0.0
    curve: list[dict[str, Any]] = []

    def fraction() -> float:
        return max(done / iterations if iterations else 0.0, training_s / seconds if seconds else 0.0)

    for mark in _two_round_marks(checks):
        while fraction() < mark:
            # Fixed batches, so that a seed gives the same strategy on any machine: the sampling kernel restarts
            # its card shuffle at each call, so where the calls split a run changes the deals drawn
            n = TWO_ROUND_BATCH if iterations is None else max(1, min(TWO_ROUND_BATCH,
                                                                       math.ceil(mark * iterations) - done))
            began = time.perf_counter()
            # only the full-stack strategy is measured and shown: the smaller stacks (for matches) are not trained
            trainer.train(n, smaller_stacks=0.0, batch=n)
            done, training_s = done + n, training_s + time.perf_counter() - began
            report({"phase": "training", "iteration": done, "fraction": min(1.0, fraction())})
        if curve and curve[-1]["iteration"] == done:
            continue  # a short run: two marks fell on the same iteration

        def measuring(work: int, total: int | None, at: int = done) -> None:
            report({"phase": "exploitability", "iteration": at, "fraction": work / total if total else 1.0})

        measured = exploitability(trainer.bot().strategy(stack), progress=measuring)
        point = {"iteration": done, "exploitability": measured.exploitability,
                 "mbb_per_game": measured.mbb_per_game, "elapsed_s": time.perf_counter() - start}
        curve.append(point)
        report(point, force=True)  # a curve point is never throttled away
    strategy = trainer.bot().strategy(stack)
    data: dict[str, Any] = {"game": "two-round", "stack": stack, "iterations": done, "buckets": buckets,
                            **measured.to_dict()}
    data.update(elapsed_s=time.perf_counter() - start, training_s=training_s, curve=curve,
                strategy=two_round_strategy_view(strategy, buckets))
    return data


def two_round_strategy_view(strategy: Any, buckets: int) -> dict[str, Any]:
    """A two-round strategy as the page shows it: one table per betting node (every decision of both rounds),
    rows the 49 preflop hand classes (``AKs``, ``TT``, ``98o``, ...) in round 1 and the equity buckets in round 2,
    columns the node's actions (``fold``, ``check``, ``call 2``, ``bet 3``, ``raise 4``).

    Returns ``{"rows": {"preflop": labels, "flop": labels}, "row_share": {...}, "nodes": [{"node", "street",
    "player", "line", "history", "actions", "probabilities"}]}``: ``row_share`` is each row's share of the deals
    (hand classes out of the 378 hands; buckets out of the valid flop-and-hand pairs), ``line`` the betting so far
    in words, ``history`` the infoset key's history (``1.3/0``), ``probabilities[row][action]`` rounded to 4
    digits."""
    import numpy as np

    from pokerlab.games.two_round import NODE_DECISION, Betting, action_label, history_text
    from pokerlab.solvers.two_round_tables import two_round_tables

    tree, tables = strategy.tree, two_round_tables(strategy.spec)
    pre_rows = int(strategy.pre.shape[0])
    pre_share = np.bincount(strategy.pre_row, minlength=pre_rows) / strategy.pre_row.shape[0]
    valid = strategy.post_row[strategy.post_row >= 0]
    post_share = np.bincount(valid, minlength=buckets) / valid.shape[0]

    def labels(n: int) -> list[str]:
        me = int(tree.player[n])
        betting = Betting(int(tree.round[n]), (int(tree.put0[n]), int(tree.put1[n])), me, 0, -1, False)
        return [action_label(betting, int(tree.action[c])) for c in tree.children(n)]

    def line(n: int) -> str:
        steps: list[str] = []
        node = n
        while tree.parent[node] >= 0:
            parent = int(tree.parent[node])
            if tree.kind[parent] == NODE_DECISION:
                label = labels(parent)[list(tree.children(parent)).index(node)]
                steps.append(f"P{int(tree.player[parent]) + 1} {label}")
            else:
                steps.append("flop")
            node = parent
        return ", ".join(reversed(steps)) or "start"

    nodes = []
    for n in map(int, np.flatnonzero(tree.kind == NODE_DECISION)):
        off, na = int(tree.act_offset[n]), int(tree.num_children[n])
        rows = strategy.pre if tree.round[n] == 0 else strategy.post
        nodes.append({"node": n, "street": "preflop" if tree.round[n] == 0 else "flop",
                      "player": int(tree.player[n]) + 1, "line": line(n), "history": history_text(tree.histories[n]),
                      "actions": labels(n), "probabilities": np.round(rows[:, off:off + na], 4).tolist()})
    flop_labels = [f"equity {b / buckets:.2f}-{(b + 1) / buckets:.2f}" for b in range(buckets)]
    return {"rows": {"preflop": list(tables.pre_labels[:pre_rows]), "flop": flop_labels},
            "row_share": {"preflop": np.round(pre_share, 6).tolist(), "flop": np.round(post_share, 6).tolist()},
            "nodes": nodes}
