"""Stacks and payouts as people paste them from a tournament lobby.

Amounts may carry thousands separators (``5,000``; ``12,500.5``). Players are separated by new lines, ``;``,
or spaces; a list with commas only (``5000,3000,2000``) separates players by its commas. That last form is
ambiguous once thousands separators appear in it (``5,000,3,000``: two players or four?), so a comma list
whose pieces look like thousands groups (a three-digit piece after a piece of one or two digits, or a piece
like ``000``) is refused with the two unambiguous ways to write it.

A player may be named: ``alice:5,000 bob:3,000``, or one player per line as ``alice 5,000`` (``Big Al:
5,000`` keeps the space). Players without a name are numbered from 1, as in every table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidStacksError, PokerlabError, excerpt

MAX_NAME = 40  # characters of a player name (a longer token is a typo, not a name)

_NOT_FINITE = ("inf", "infinity", "nan")
_PLAIN = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")


@dataclass(frozen=True)
class Stacks:
    """Chips per player (0 = busted) and each player's name (their 1-based number when none was given).

    >>> parse_stacks("alice:5,000 bob:3,000 2,000").names
    ('alice', 'bob', '3')
    """

    chips: np.ndarray
    names: tuple[str, ...]

    @property
    def named(self) -> bool:
        """Whether any player was given a name (tables and JSON then show names)."""
        return any(name != str(i + 1) for i, name in enumerate(self.names))


def amounts(values: Any, what: str, error: type[PokerlabError]) -> np.ndarray:
    """A flat list (or 1-D array) of real numbers as a float array; anything else raises ``error``: text
    (parse it with :func:`parse_stacks` or :func:`~pokerlab.icm.payouts.parse_payouts`), a single number, a
    nested list, booleans, None or other objects.

    >>> amounts([5000, 3000.5], "stacks", InvalidStacksError).tolist()
    [5000.0, 3000.5]
    >>> amounts([[5000], [3000]], "stacks", InvalidStacksError)
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidStacksError: stacks must be a flat list of numbers, got a nested list (2 dimensions)
    """
    if isinstance(values, str | bytes):
        raise error(f"{what} must be a list of numbers, got text {excerpt(values)} (parse text with parse_stacks "
                    "or parse_payouts)")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as problem:  # ragged nesting
        raise error(f"{what} must be a flat list of numbers ({problem})") from None
    if array.ndim != 1:
        shape = "a single number" if array.ndim == 0 else f"a nested list ({array.ndim} dimensions)"
        raise error(f"{what} must be a flat list of numbers, got {shape}")
    if array.dtype.kind in "iuf":
        return array.astype(np.float64)
    for index, item in enumerate(array.tolist()):
        if isinstance(item, bool) or not isinstance(item, int | float):
            kind = "a boolean" if isinstance(item, bool) else type(item).__name__
            raise error(f"{what} must be numbers: item {index + 1} is {kind} ({excerpt(item)})")
    return array.astype(np.float64)


def is_amount(token: str) -> bool:
    """Whether ``token`` reads as one amount: ``5000``, ``5,000``, ``12,500.5``, ``1e4``."""
    text = token.strip()
    return bool(_PLAIN.fullmatch(text) or _GROUPED.fullmatch(text))


def parse_amount(token: str, error: type[PokerlabError] = InvalidStacksError, what: str = "amount") -> float:
    """One amount, with or without thousands separators; raise ``error`` saying what is wrong.

    >>> parse_amount("12,500"), parse_amount("2.5e3")
    (12500.0, 2500.0)
    """
    text = token.strip()
    if _GROUPED.fullmatch(text):
        text = text.replace(",", "")
    elif "," in text and _PLAIN.fullmatch(text.replace(",", "")):
        raise error(f"{what} {excerpt(token)}: a thousands separator comes before each group of three digits, as "
                    "in 5,000 or 12,500")
    if text.lower().lstrip("+-") in _NOT_FINITE:
        raise error(f"{what} {excerpt(token)}: amounts must be finite numbers")
    if not _PLAIN.fullmatch(text):
        raise error(f"{what} {excerpt(token)} is not a number (write amounts like 5000 or 5,000)")
    return float(text)


def split_amounts(text: str, error: type[PokerlabError] = InvalidStacksError, what: str = "stacks",
                  between: str = "players", one_per_line: bool = False) -> list[str]:
    """Split a list of amounts into one token per entry (see the module docstring for the separators).

    >>> split_amounts("5,000 3,000; 2,000"), split_amounts("500,300,200")
    (['5,000', '3,000', '2,000'], ['500', '300', '200'])
    """
    stripped = text.strip()
    if not stripped:
        raise error(f"{what} are empty")
    if re.search(r"[\s;]", stripped):
        return [token for token in re.split(r"[\s;]+", stripped) if token]
    if one_per_line and _GROUPED.fullmatch(stripped):  # a line of a list, '2,000': one amount
        return [stripped]
    pieces = stripped.split(",")
    for before, piece in zip(pieces, pieces[1:], strict=False):
        grouped = re.fullmatch(r"\d{3}", piece) and (piece.startswith("0") or re.fullmatch(r"[+-]?\d{1,2}", before))
        if grouped:
            raise error(f"{what} {excerpt(stripped)} are ambiguous: is ',' a thousands separator or between {between}? "
                        f"Separate {between} with spaces, ';' or new lines ('5,000 3,000'), or drop the thousands "
                        f"separators ('5000,3000')")
    return [piece for piece in pieces if piece.strip()]


def parse_stacks(text: str) -> Stacks:
    """Parse stacks as typed or pasted: ``'5000,3000,2000'``, ``'5,000 3,000 2,000'``, one per line,
    ``'alice:5,000 bob:3,000'`` or lines ``'alice 5,000'``. Raises :class:`InvalidStacksError` for anything
    else, ambiguous thousands separators included; the values themselves are checked by the ICM.

    >>> s = parse_stacks("alice 5,000\\nbob 3,000\\n2,000")
    >>> s.chips.tolist(), s.names
    ([5000.0, 3000.0, 2000.0], ('alice', 'bob', '3'))
    """
    if not text.strip():
        raise InvalidStacksError("no stacks given")
    entries: list[tuple[str | None, str]] = []
    lines = [line for line in re.split(r"[\n;]+", text) if line.strip()]
    for line in lines:
        entries += _line_entries(line, one_per_line=len(lines) > 1)
    chips = np.array([parse_amount(value, InvalidStacksError, "stack") for _, value in entries], dtype=np.float64)
    names = tuple(name if name else str(i + 1) for i, (name, _) in enumerate(entries))
    _check_names(names)
    return Stacks(chips, names)


def _line_entries(line: str, one_per_line: bool) -> list[tuple[str | None, str]]:
    """The players of one line: amounts, each optionally after its name (``alice 5,000``, ``alice:5,000``,
    ``Big Al: 5,000``, ``alice,5000``)."""
    entries: list[tuple[str | None, str]] = []
    pending: list[str] = []
    for token in split_amounts(line, one_per_line=one_per_line):
        name, _, value = token.rpartition(":") if ":" in token else token.rpartition("=")
        if is_amount(token):
            name, value = "", token
        elif not value.strip():  # 'alice:' then the amount
            pending.append(name)
            continue
        elif not is_amount(value):  # a word of a name, unless it is a mistyped amount
            if re.fullmatch(r"[\d.,+-]+", token) or token.strip().lower().lstrip("+-") in _NOT_FINITE:
                parse_amount(token, InvalidStacksError, "stack")
            pending.append(token)
            continue
        full = " ".join([*pending, name]).strip()
        entries.append((full or None, value))
        pending = []
    if pending:
        raise InvalidStacksError(f"{excerpt(' '.join(pending))} has no stack (write stacks like 5,000 or "
                                 "name:5,000)")
    return entries


def _check_names(names: tuple[str, ...]) -> None:
    seen: set[str] = set()
    for name in names:
        if len(name) > MAX_NAME:
            raise InvalidStacksError(f"player name {excerpt(name)} is longer than {MAX_NAME} characters")
        if name in seen:
            raise InvalidStacksError(f"two players are called {name!r}: names must differ")
        seen.add(name)


def read_stacks_file(path: str | Path) -> str:
    """The text of a stacks file; a file that cannot be read or is not UTF-8 text is a :class:`PokerlabError`.

    Example: ``parse_stacks(read_stacks_file("stacks.txt"))`` for a file of one ``name stack`` per line.
    """
    return read_text_file(path, "stacks file")


def read_text_file(path: str | Path, what: str) -> str:
    """The UTF-8 text of ``path`` (``what`` names it in messages): an unreadable file is an
    :class:`InvalidArgumentError`, one that is not text a :class:`FileFormatError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise FileFormatError(f"{what} {path} is not a UTF-8 text file ({error.reason})") from error
    except OSError as error:
        raise InvalidArgumentError(f"cannot read {what} {path}: {error.strerror or error}") from error
    if "\0" in text:
        raise FileFormatError(f"{what} {path} is not a text file (it contains NUL bytes)")
    return text


def player_labels(count: int, names: Sequence[str] | None = None) -> list[str]:
    """``'1'``, ``'2'``, ... or ``'1 alice'`` where a name differs from the number.

    >>> player_labels(3, ["alice", "2", "carol"])
    ['1 alice', '2', '3 carol']
    """
    labels = []
    for i in range(count):
        name = names[i] if names is not None else str(i + 1)
        labels.append(str(i + 1) if name == str(i + 1) else f"{i + 1} {name}")
    return labels
