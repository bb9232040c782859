"""Games by name and by saved spec, with a cache of compiled trees."""

from __future__ import annotations

import json
from typing import Any

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import Game
from pokerlab.games.compiler import CompiledGame, compile_game, freeze_arrays
from pokerlab.games.matrix import MatrixGame, rps
from pokerlab.games.poker import PRESETS, LimitPoker, PokerSpec

GAME_NAMES = ("rps", "rps2", *PRESETS)
_CACHE: dict[str, CompiledGame] = {}


def get_game(name: str) -> Game:
    """A game by name: ``rps``, ``rps2`` (rock beats scissors by 2), ``kuhn``, ``leduc`` or another preset.

    >>> get_game("kuhn").name
    'kuhn'
    """
    key = name.strip().lower()
    if key == "rps":
        return rps()
    if key == "rps2":
        return rps(asymmetric=True)
    if key in PRESETS:
        return LimitPoker(PRESETS[key])
    raise InvalidGameError(f"unknown game {name!r} (expected one of {', '.join(GAME_NAMES)})")


PLAYABLE_GAMES = ("kuhn", "leduc", "two-round")
DEPRECATED_NAMES = {"brief": "two-round"}  # the two-round game's former name


def playable_game(name: str) -> Game:
    """A poker game bots and people play (matches, the terminal): ``two-round`` (default parameters), or a
    limit poker preset (``kuhn``, ``leduc``, ...); ``brief`` is the two-round game's former name.

    >>> playable_game("kuhn").name
    'kuhn'
    """
    key = name.strip().lower()
    key = DEPRECATED_NAMES.get(key, key)
    if key == "two-round":
        from pokerlab.games.two_round import TwoRoundHoldem

        return TwoRoundHoldem()
    if key not in PRESETS:
        raise InvalidGameError(f"unknown game {name!r} for play (expected {', '.join(PLAYABLE_GAMES)} or a limit "
                               f"poker preset: {', '.join(PRESETS)})")
    return LimitPoker(PRESETS[key])


def game_from_spec(spec: dict[str, Any]) -> Game:
    """Rebuild a game from :meth:`Game.spec` (as saved in solver files)."""
    family = spec.get("family")
    if family == "limit_poker":
        data = {k: v for k, v in spec.items() if k != "family"}
        return LimitPoker(PokerSpec.from_dict(data))
    if family == "matrix":
        return MatrixGame(tuple(tuple(r) for r in spec["payoff"]), name=str(spec.get("name", "matrix")),
                          row_labels=tuple(spec.get("row_labels", ())), col_labels=tuple(spec.get("col_labels", ())))
    raise InvalidGameError(f"cannot rebuild a game from spec {json.dumps(spec)[:80]}")


def rebuildable(game: Game) -> bool:
    """Whether :func:`game_from_spec` rebuilds exactly this game from its spec: true for the built-in classes
    (limit poker, matrix games), false for any other class, subclasses included (a subclass may override
    ``utility`` or anything else while keeping its parent's spec)."""
    return type(game) in (LimitPoker, MatrixGame) and game.spec().get("family") in ("limit_poker", "matrix")


def compiled(game: str | Game | CompiledGame) -> CompiledGame:
    """The compiled tree of a game given by name, object or already compiled.

    Built-in games are cached by spec (two equal specs are the same game); any other game is compiled afresh
    on each call, since its spec need not describe its rules. The cached arrays are read-only: the kernels
    only read them, and every caller shares them.

    >>> compiled("kuhn") is compiled("kuhn")
    True
    """
    if isinstance(game, CompiledGame):
        return game
    if isinstance(game, str):
        game = get_game(game)
    if not isinstance(game, Game):
        raise InvalidGameError(f"not a game: {game!r}")
    if not rebuildable(game):
        return compile_game(game)
    key = json.dumps(game.spec(), sort_keys=True)
    tree = _CACHE.get(key)
    if tree is None:
        tree = compile_game(game)
        freeze_arrays(tree)
        if len(_CACHE) < 32:
            _CACHE[key] = tree
    return tree
