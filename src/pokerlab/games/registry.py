"""The one game registry: games by name and by saved spec, each registered by its own module, and a cache of
compiled trees.

A game module registers its named games (:func:`register_game`: a name, a factory, what the game is offered
for) and, if a saved spec rebuilds it, its family (:func:`register_family`); ``pokerlab.games`` imports every
game module, so the registry is full whenever it is in use. The command line, the agents and the web page ask
it which games to offer (:func:`game_names`) and build them (:func:`get_game`); no other list of names exists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import Game
from pokerlab.games.compiler import CompiledGame, compile_game, freeze_arrays

SOLVE = "solve"
"""Offered to the tree-form solvers (``pokerlab solve``): the game compiles to a tree."""
PLAY = "play"
"""Offered for play: matches between agents, the human at the terminal (``pokerlab match``, ``pokerlab play``)."""
WEB = "web"
"""Offered on the web page's Solve tab (small enough to solve in seconds)."""
USES = (SOLVE, PLAY, WEB)


@dataclass(frozen=True)
class GameEntry:
    """A named game: ``make()`` builds it, ``summary`` says what it is in a few words, ``uses`` what it is
    offered for (:data:`SOLVE`, :data:`PLAY`, :data:`WEB`). ``warmup`` names the kernel group
    (:data:`pokerlab.warmup.KERNEL_GROUPS`) that compiles its exact evaluation when that evaluation is too slow
    to run once just to compile it (the two-round game's best responses); None when a short run compiles
    everything."""

    name: str
    make: Callable[[], Game]
    summary: str
    uses: frozenset[str]
    warmup: str | None = None


@dataclass(frozen=True)
class GameFamily:
    """Games that a saved spec rebuilds (:func:`game_from_spec`): the spec's ``family`` field, the classes that
    are exactly what their spec says (not subclasses, which may change the rules and keep the spec) and the
    rebuilder."""

    name: str
    classes: tuple[type[Game], ...]
    from_spec: Callable[[Mapping[str, Any]], Game]


_GAMES: dict[str, GameEntry] = {}
_FAMILIES: dict[str, GameFamily] = {}
_CACHE: dict[str, CompiledGame] = {}


def register_game(name: str, make: Callable[[], Game], summary: str, uses: tuple[str, ...],
                  warmup: str | None = None) -> None:
    """Register a named game (called by the game's module when it loads)."""
    key = name.strip().lower()
    if key in _GAMES:
        raise ValueError(f"game {key!r} registered twice")
    unknown = set(uses) - set(USES)
    if unknown:
        raise ValueError(f"unknown uses {sorted(unknown)} (expected among {', '.join(USES)})")
    _GAMES[key] = GameEntry(key, make, summary, frozenset(uses), warmup)


def register_family(name: str, classes: tuple[type[Game], ...], from_spec: Callable[[Mapping[str, Any]], Game]) -> None:
    """Register a family of games rebuilt from a saved spec whose ``family`` field is ``name``."""
    if name in _FAMILIES:
        raise ValueError(f"game family {name!r} registered twice")
    _FAMILIES[name] = GameFamily(name, classes, from_spec)


def game_names(use: str | None = None) -> tuple[str, ...]:
    """The names of the registered games offered for ``use`` (every name when None), in registration order.

    >>> game_names("web")
    ('kuhn', 'leduc', 'kuhn4', 'leduc3s', 'leduc-2sizes')
    >>> "two-round" in game_names("play") and "two-round" not in game_names("solve")
    True
    """
    return tuple(name for name, entry in _GAMES.items() if use is None or use in entry.uses)


def game_entry(name: str, use: str | None = None) -> GameEntry:
    """The registry's entry of a game name (case and surrounding spaces ignored); an unknown name, or one not
    offered for ``use``, raises :class:`InvalidGameError` listing the names that are."""
    entry = _GAMES.get(name.strip().lower())
    if entry is None or (use is not None and use not in entry.uses):
        purpose = f" for {_PURPOSES[use]}" if use is not None else ""
        raise InvalidGameError(f"unknown game {name!r}{purpose} (expected one of {', '.join(game_names(use))})")
    return entry


_PURPOSES = {SOLVE: "the tree-form solvers", PLAY: "play", WEB: "the web page"}


def get_game(name: str, use: str | None = None) -> Game:
    """A game by name (see :func:`game_names`); ``use`` restricts the names to those offered for it.

    >>> get_game("kuhn").name
    'kuhn'
    >>> get_game("two-round", use="play").name
    'two-round'
    """
    return game_entry(name, use).make()


def playable_game(name: str) -> Game:
    """A game bots and people play (matches, the terminal): ``two-round`` (default parameters), or a limit
    poker preset (``kuhn``, ``leduc``, ...).

    >>> playable_game("kuhn").name
    'kuhn'
    """
    return get_game(name, PLAY)


def game_from_spec(spec: Mapping[str, Any]) -> Game:
    """Rebuild a game from :meth:`Game.spec` (as saved in solver files)."""
    family = _FAMILIES.get(str(spec.get("family")))
    if family is None:
        raise InvalidGameError(f"cannot rebuild a game from spec {json.dumps(spec)[:80]}")
    return family.from_spec(spec)


def rebuildable(game: Game) -> bool:
    """Whether :func:`game_from_spec` rebuilds exactly this game from its spec: true for the classes of a
    registered family (limit poker, matrix games), false for any other class, subclasses included (a subclass
    may override ``utility`` or anything else while keeping its parent's spec)."""
    family = _FAMILIES.get(str(game.spec().get("family")))
    return family is not None and type(game) in family.classes


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
        game = get_game(game, SOLVE)
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
