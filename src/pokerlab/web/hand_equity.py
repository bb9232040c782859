"""Equity of every hand class of one player's range against the other players: what the page writes in each cell
of the grid after a run. One Monte Carlo equity per class present (at most 169), through the public façade, with
a fixed seed and the same number of showdowns each, so the grid is reproducible and every figure has its
standard error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

RANKS = "AKQJT98765432"
GRID_NAMES = [RANKS[r] * 2 if r == c else f"{RANKS[min(r, c)]}{RANKS[max(r, c)]}{'s' if r < c else 'o'}"
              for r in range(13) for c in range(13)]
"""The 169 classes in the grid's order (aces first, suited above the diagonal), as the page names its cells."""
SHOWDOWNS = 3_000_000  # shared by the classes of a range: about a second on one core at three players
LEAST_PER_HAND = 20_000  # a standard error of about 0.35% at most for one class


def hand_equity(params: dict[str, Any], report: Callable[..., None]) -> dict[str, Any]:
    """``{"player", "trials_per_hand", "hands": {"AKs": {"equity", "stderr"}, ...}}`` for ``params["player"]``
    (0-based) of ``params["players"]`` on ``board`` with ``dead`` cards; a class no deal allows (the board
    blocks it, or the other hands do) is left out. ``report({"fraction": f})`` as the classes are done.

    >>> data = hand_equity({"players": ["AA, 72o", "KK"], "player": 0, "seed": 1}, lambda _: None)
    >>> sorted(data["hands"]), round(data["hands"]["AA"]["equity"], 2)
    (['72o', 'AA'], 0.82)
    """
    import numpy as np

    from pokerlab.cards.ranges import parse_range
    from pokerlab.equity import equity
    from pokerlab.errors import InvalidArgumentError, PokerlabError

    players = list(params["players"])
    index = params.get("player", 0)
    if not isinstance(index, int) or not 0 <= index < len(players):
        raise InvalidArgumentError(f"player must be from 0 to {len(players) - 1}, got {index!r}")
    weights = parse_range(players[index]).weights
    # each class as the player holds it: its combos at their weights in the player's range
    held = {name: np.where(parse_range(name).weights > 0, weights, 0.0) for name in GRID_NAMES}
    classes = {name: combos for name, combos in held.items() if combos.any()}
    trials = max(LEAST_PER_HAND, SHOWDOWNS // max(len(classes), 1))
    hands: dict[str, dict[str, float]] = {}
    for done, (name, combos) in enumerate(classes.items()):
        text = ", ".join(f"{c}:{w:g}" if w < 1 else c for c, w in _combos(combos))
        try:
            result = equity([*players[:index], text, *players[index + 1:]], board=params.get("board") or "",
                            dead=params.get("dead") or "", method="montecarlo", trials=trials,
                            seed=params.get("seed", 0))
        except PokerlabError:  # no deal holds this class with the others' hands and the board
            continue
        stderr = result.stderr[index] if result.stderr is not None else 0.0
        hands[name] = {"equity": result.equity[index], "stderr": stderr}
        report({"fraction": (done + 1) / len(classes)})
    return {"player": index, "trials_per_hand": trials, "hands": hands}


def _combos(weights: Any) -> list[tuple[str, float]]:
    """The combos of a weight vector with weight above 0, as text (``AsKs``) and weight."""
    import numpy as np

    from pokerlab.cards.classes import COMBOS
    from pokerlab.cards.encoding import format_cards

    return [(format_cards(COMBOS[i].tolist()), float(weights[i])) for i in np.flatnonzero(weights > 0)]
