"""What a strategy is, whatever solver made it: the :class:`Strategy` protocol, and the one file entry point
(:func:`save_strategy` / :func:`load_strategy`) that tells files apart by their format field.

Each strategy kind implements the protocol in its own module and registers there, at import, the formats it
reads: :class:`~pokerlab.solvers.policy.Policy` (a compiled tree's behaviour strategy),
:class:`~pokerlab.solvers.vector_strategy.VectorStrategy` (a row of action probabilities per private hand at each public
node) and :class:`~pokerlab.solvers.two_round.TwoRoundBot` (the two-round game, too large to compile), plus
the solver states read as their average strategies. This module imports none of them: a kind imports it.
The ``pokerlab.solvers`` package imports every kind, so the table is full whenever this module is in use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, PokerlabError
from pokerlab.games.base import Game
from pokerlab.solvers.archive import check_format, read_archive, refuse_retired, write_archive

STRATEGY_FORMAT_VERSION = 1
STRATEGY_FILE = "pokerlab strategy file"

Distribution = Callable[[Game, Any], Sequence[tuple[Any, float]]]
"""An agent's play: ``(game, state) -> [(action, probability), ...]`` over the legal actions of ``state``."""


@runtime_checkable
class Strategy(Protocol):
    """What every strategy of every solver offers: play it, value it exactly, and write it to a file.

    ``format`` names its file form (the ``format`` field of the archive's meta). ``value_against`` and
    ``exploitability`` are exact (no sampling), in chips per hand; a kind values another kind by reading the
    other's :meth:`distribution` into its own form.

    >>> from pokerlab.games import compiled
    >>> from pokerlab.solvers.policy import Policy
    >>> isinstance(Policy.uniform(compiled("kuhn")), Strategy)
    True
    """

    format: ClassVar[str]

    def distribution(self, game: Game, state: Any) -> list[tuple[Any, float]]:
        """``(action, probability)`` over the legal actions of ``state`` (a state of ``game``)."""
        ...

    def value_against(self, game: Game, other: Strategy) -> float:
        """Exact chips per hand won against ``other``, averaged over both seats."""
        ...

    def exploitability(self, game: Game) -> float:
        """Exact exploitability in ``game`` (chips per hand, the mean of both seats' best-response values)."""
        ...

    def to_archive(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The file form: meta fields (JSON; ``format`` and its version are added by :func:`save_strategy`)
        and arrays."""
        ...

    @classmethod
    def from_archive(cls, path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray], game: Game) -> Strategy:
        """The strategy :meth:`to_archive` wrote, checked against ``game``: :class:`InvalidArgumentError`
        starting with ``path`` for another game's strategy; anything else raised reads as a corrupt file."""
        ...

    def save(self, path: str | Path) -> Path:
        """Write the strategy to ``path`` (through :func:`save_strategy`)."""
        ...


Reader = Callable[[Path, Game], Strategy]
"""Reads a file of one format as a strategy of ``game`` (raising the file's precise error)."""

_READERS: dict[str, Reader] = {}
_KINDS: dict[str, type[Strategy]] = {}
_FROM_DISTRIBUTION: dict[str, Callable[[Game, Distribution, str], Strategy]] = {}

_Kind = TypeVar("_Kind", bound=type[Any])


def strategy_kind(cls: _Kind) -> _Kind:
    """Class decorator: register a strategy kind's file format (``cls.format``, read by ``cls.from_archive``)
    and, if the class has one, its ``from_distribution(game, distribution, name)`` builder, which
    :func:`strategy_from_distribution` uses for the games whose ``strategy_format`` is that format."""
    name = cls.format
    if name in _READERS:
        raise ValueError(f"strategy format {name!r} registered twice")
    _KINDS[name] = cls
    _READERS[name] = lambda path, game: _read_kind(cls, path, game)
    builder = getattr(cls, "from_distribution", None)
    if builder is not None:
        _FROM_DISTRIBUTION[name] = builder
    return cls


def register_reader(format_name: str, reader: Reader) -> None:
    """Register a file format read as a strategy that is not a strategy kind's own (a solver state, read as its
    average strategy)."""
    if format_name in _READERS:
        raise ValueError(f"strategy format {format_name!r} registered twice")
    _READERS[format_name] = reader


def strategy_formats() -> tuple[str, ...]:
    """Every format :func:`load_strategy` reads.

    >>> "pokerlab-policy" in strategy_formats()
    True
    """
    return tuple(_READERS)


def save_strategy(strategy: Strategy, path: str | Path) -> Path:
    """Write any :class:`Strategy` to ``path`` (atomically), an ``.npz`` with a ``meta`` JSON holding its format
    (``pokerlab-policy``, ``pokerlab-vector-strategy`` or ``pokerlab-two-round-strategy``), a format version and
    the game it belongs to; :func:`load_strategy` reads it back bit for bit. No pickle.

    >>> import tempfile
    >>> from pokerlab.games import compiled, kuhn
    >>> from pokerlab.solvers.policy import Policy
    >>> path = Path(tempfile.mkdtemp()) / "uniform.npz"
    >>> _ = save_strategy(Policy.uniform(compiled("kuhn")), path)
    >>> load_strategy(path, kuhn()).action_probabilities("K||")
    {'check': 0.5, 'bet 1': 0.5}
    """
    kind = getattr(type(strategy), "format", None)
    if kind not in _KINDS or not isinstance(strategy, _KINDS[kind]):
        raise InvalidArgumentError(f"not a pokerlab strategy: {type(strategy).__name__}")
    meta, arrays = strategy.to_archive()
    return write_archive(path, {"format": kind, **meta, "format_version": STRATEGY_FORMAT_VERSION}, arrays)


def load_strategy(path: str | Path, game: Game) -> Strategy:
    """Any strategy file, checked against ``game`` and told apart by its format field: one written by
    :func:`save_strategy` (a policy, a vector-form strategy or a two-round bot), a tree-form solver state
    (``pokerlab solve --out``: its average policy), a vector-form solver state (its average strategy) or a
    two-round trainer (``pokerlab two-round train``: its average strategies). Raises :class:`InvalidArgumentError`
    for a missing file or another game's strategy and :class:`FileFormatError` for an unreadable, unknown,
    retired or corrupt one."""
    path = Path(path)
    meta, _ = read_archive(path, STRATEGY_FILE, keys=(), missing=f"strategy file not found: {path}")
    refuse_retired(path, meta)
    kind = meta.get("format")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise FileFormatError(f"{path}: not a {STRATEGY_FILE} (format {kind!r})")
    return reader(path, game)


def _read_kind(cls: type[Strategy], path: Path, game: Game) -> Strategy:
    meta, arrays = read_archive(path, STRATEGY_FILE)
    check_format(path, meta, (cls.format,), STRATEGY_FORMAT_VERSION, STRATEGY_FILE)
    try:
        return cls.from_archive(path, meta, arrays, game)
    except InvalidArgumentError as error:
        if str(error).startswith(f"{path}:"):
            raise  # another game's strategy
        raise FileFormatError(f"{path}: corrupt {STRATEGY_FILE} ({error})") from error
    except (PokerlabError, TypeError, KeyError, ValueError, AttributeError, IndexError) as error:
        raise FileFormatError(f"{path}: corrupt {STRATEGY_FILE} ({type(error).__name__}: {error})") from error


def strategy_from_distribution(game: Game, distribution: Distribution, name: str) -> Strategy:
    """The strategy that plays ``distribution`` (an agent's), for exact evaluation, in the kind the game names
    (:attr:`pokerlab.games.base.Game.strategy_format`): a policy of the compiled tree for most games; in the
    two-round game (too large to list every information set) a card-blind bot, so the distribution must not
    depend on the cards (:class:`InvalidArgumentError` otherwise).

    >>> from pokerlab.games import kuhn
    >>> uniform = strategy_from_distribution(kuhn(), lambda g, s: [(a, 0.5) for a in g.legal_actions(s)], "u")
    >>> uniform.action_probabilities("K||")
    {'check': 0.5, 'bet 1': 0.5}
    """
    builder = _FROM_DISTRIBUTION.get(game.strategy_format)
    if builder is None:
        raise InvalidArgumentError(f"no strategy kind builds strategies of {game.name!r} from an agent's play "
                                   f"(format {game.strategy_format!r})")
    return builder(game, distribution, name)


def seat_average_value(game: Game, a: Strategy, b: Strategy) -> float:
    """Exact chips per hand of ``a`` against ``b``, averaged over both seats (no sampling)."""
    return a.value_against(game, b)


def strategy_exploitability(game: Game, strategy: Strategy) -> float:
    """Exact exploitability (chips per hand, mean of both seats' best-response values) of a strategy."""
    return strategy.exploitability(game)


def same_spec(saved: Any, spec: Mapping[str, Any]) -> bool:
    """Whether a spec read from a file's JSON equals ``spec`` (compared as JSON: tuples read back as lists)."""
    return bool(saved == json.loads(json.dumps(spec)))


def float_array(array: np.ndarray) -> np.ndarray:
    """Probabilities read from a file as float64, refusing (``ValueError``) another dtype or a non-finite value."""
    if array.dtype.kind != "f" or not np.all(np.isfinite(array)):
        raise ValueError("probabilities must be finite floating-point numbers")
    return array.astype(np.float64)
