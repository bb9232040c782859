"""The postflop endpoint (``POST /api/postflop``): a spot solved as ``pokerlab postflop solve --json`` within a
work budget, the root's node view and, when asked, one line's node (every hand)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from pokerlab.errors import ResourceLimitError

MAX_MEMORY = 256 * 2**20
"""Solver storage one request may use (bytes)."""
MAX_UPDATES = 4_000_000_000
"""Hand-action updates one request may ask for: storage values times iterations (a turn spot of the issue's
benchmark, 2.9 M values, for about 1,400 iterations)."""


class PostflopRequest(BaseModel):
    """``pokerlab postflop solve --json``, and ``line``: a node to show (``"check, bet 75%"``)."""

    model_config = ConfigDict(extra="forbid")

    board: str = Field(max_length=20, examples=["Td9d6hQc2s"])
    oop: str = Field(max_length=2000)
    ip: str = Field(max_length=2000)
    pot: int
    stack: int
    bets: str = Field(default="33%,75%,a", max_length=200)
    raises: str = Field(default="2.5x,a", max_length=200)
    add_allin: float = 1.5
    force_allin: float = 0.15
    merging: float = 0.1
    raise_cap: int | None = None
    donk: bool = True
    rake: float = Field(default=0.0, description="% of the final pot")
    rake_cap: float | None = None
    target: float | None = 0.5
    iterations: int = 1000
    time: float | None = None
    line: str = Field(default="", max_length=500)
    lock: list[Annotated[str, Field(max_length=500)]] = Field(default=[], max_length=50,
                                                            description="pokerlab.postflop.lock's text form")


def _spot(params: dict[str, Any]) -> dict[str, Any]:
    keys = ("pot", "stack", "bets", "raises", "add_allin", "force_allin", "merging", "raise_cap", "donk", "rake",
            "rake_cap")
    return {k: params[k] for k in keys}


def postflop_limits(body: PostflopRequest, seconds: float) -> float:
    """Refuse (422) a spot over the budget before any work: its memory estimate and its updates; the seconds
    the job may run."""
    from pokerlab.postflop import build_game

    params = body.model_dump()
    game, _ = build_game(body.board, body.oop, body.ip, **_spot(params), max_memory=MAX_MEMORY, build=False)
    if body.iterations < 1:
        raise ResourceLimitError(f"iterations must be at least 1, got {body.iterations}")
    updates = game.memory_bytes // 8 * body.iterations
    if updates > MAX_UPDATES:
        raise ResourceLimitError(f"{body.iterations:,} iterations of this tree are {updates:,} updates, over this "
                                 f"server's budget of {MAX_UPDATES:,}; ask for fewer iterations, a smaller tree "
                                 "or narrower ranges")
    if body.time is not None and not 0 < body.time <= seconds:
        raise ResourceLimitError(f"time {body.time} is outside this server's range of (0, {seconds:g}] seconds")
    return seconds + 5.0


def postflop_task(params: dict[str, Any], report: Any) -> dict[str, Any]:
    """Solve the spot; the result's ``to_dict()`` plus ``node`` (the line's node, every hand)."""
    from pokerlab.postflop import solve

    result = solve(params["board"], params["oop"], params["ip"], **_spot(params), target=params.get("target"),
                   iterations=params["iterations"], time_limit=params.get("time"), max_memory=MAX_MEMORY,
                   progress=lambda i, e: report({"iteration": i, "exploitability_percent": e}),
                   lock=params.get("lock") or None)
    data = result.to_dict()
    data["node"] = result.node(params["line"]).to_dict(hands=True) if params.get("line") else None
    return data
