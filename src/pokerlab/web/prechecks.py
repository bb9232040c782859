"""What the server checks itself before a job waits in line for a worker: the parsing a user most often gets
wrong (ranges and cards, payouts and stacks, a game or algorithm name), by the façades' own parsers, so the
refusal is the library's message and comes at once even when every worker is busy (``AKx`` once waited 28 s for
its 422). The rest (numbers the engines check as they start) is still checked in the worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def equity_precheck(params: dict[str, Any]) -> None:
    """Players, board and dead cards as the equity façade parses them (``player 2: ...`` on a bad range)."""
    from pokerlab.equity.problem import prepare_problem

    prepare_problem(params["players"], params.get("board") or "", params.get("dead") or "")


def icm_precheck(params: dict[str, Any]) -> None:
    """Payouts parsed and checked against the stacks, as the ICM façade does first."""
    from pokerlab.icm import parse_payouts
    from pokerlab.icm.core import validate

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


PRECHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "equity": equity_precheck,
    "hand-equity": equity_precheck,
    "icm": icm_precheck,
    "solve": solve_precheck,
}
