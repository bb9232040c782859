"""What the server checks itself before a job waits in line for a worker: the parsing a user most often gets
wrong (ranges and cards, payouts and stacks, a game, algorithm or method name), by the façades' own parsers, so the
refusal is the library's message and comes at once even when every worker is busy (``AKx`` once waited 28 s for
its 422); every push/fold and two-round input. The rest (numbers the equity and ICM engines check as they start)
is still checked in the worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def equity_precheck(params: dict[str, Any]) -> None:
    """Players, board and dead cards as the equity façade parses them (``player 2: ...`` on a bad range)."""
    from pokerlab.equity.core import check_method
    from pokerlab.equity.problem import prepare_problem

    check_method(params.get("method") or "auto")
    prepare_problem(params["players"], params.get("board") or "", params.get("dead") or "")


def icm_precheck(params: dict[str, Any]) -> None:
    """The method's and variance reduction's names; payouts parsed and checked against the stacks, as the ICM
    façade does first."""
    from pokerlab.icm import parse_payouts
    from pokerlab.icm.core import check_method, check_variance_reduction, validate

    check_method(params.get("method") or "auto")
    if (params.get("variance_reduction") or "auto") != "auto":
        check_variance_reduction(params["variance_reduction"])
    validate(params["stacks"], parse_payouts(params["payouts"]))
    if params.get("bounty") is not None or params.get("pko_share") is not None:
        from pokerlab.icm.bounty import knockout_format

        knockout_format(params.get("bounty"), params.get("pko_share"), len(params["stacks"]))


def solve_precheck(params: dict[str, Any]) -> None:
    """A game the page offers and a known algorithm (with its parameters)."""
    from pokerlab.solvers.core import algorithm_config
    from pokerlab.web.solving import web_game

    web_game(params["game"])
    overrides = {k: params[k] for k in ("alpha", "beta", "gamma") if params.get(k) is not None}
    algorithm_config(params.get("algo") or "cfr+", **overrides)


def pushfold_precheck(params: dict[str, Any]) -> None:
    """Everything :func:`pokerlab.pushfold.pushfold` checks before it builds the game: the table, payouts and
    field, the target, iterations, time and the multiway deals' memory. (Its module loads numba: see
    :func:`load_prechecks`.)"""
    from pokerlab.pushfold.solve import check_request

    check_request(params["stacks"], params["blinds"], ante=params["ante"], bb_ante=params["bb_ante"],
                  payouts=params["payouts"], field=params["field"], target=params["target"],
                  iterations=params["iterations"], time_limit=params["time"],
                  multiway_samples=params["multiway_samples"], bounty=params.get("bounty"),
                  pko=False if params.get("pko_share") is None else params["pko_share"])


def two_round_precheck(params: dict[str, Any]) -> None:
    """Iterations, time and seed as the two-round task reads them (stack, buckets and checks are bounded by
    the server's limits first)."""
    from pokerlab.web.solving import two_round_options

    two_round_options(params)


def load_prechecks() -> None:
    """Import the modules the prechecks need that load slowly (push/fold's façade, with numpy and the card
    classes: 0.15 s of CPU), so that no request waits for them; the server calls it in a thread as its workers
    start."""
    import pokerlab.pushfold.solve  # noqa: F401


PRECHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "equity": equity_precheck,
    "hand-equity": equity_precheck,
    "icm": icm_precheck,
    "solve": solve_precheck,
    "pushfold": pushfold_precheck,
    "two-round": two_round_precheck,
}
