"""Exceptions raised by pokerlab façades.

Every user-facing error is a :class:`PokerlabError` (a ``ValueError``), so callers can catch one type and the
CLI can turn any of them into a one-line message with exit status 2.
"""

from __future__ import annotations


class PokerlabError(ValueError):
    """Base class of every error pokerlab raises for bad input."""


class InvalidCardError(PokerlabError):
    """A card token could not be parsed, e.g. ``'Ax': unknown suit 'x'``."""


class DuplicateCardError(PokerlabError):
    """The same card appears twice where cards must be distinct."""


class InvalidHandError(PokerlabError):
    """A hand has the wrong number of cards for the requested operation."""


class InvalidRangeError(PokerlabError):
    """A range token could not be parsed, or a range has no combo left."""


class InvalidStacksError(PokerlabError):
    """Tournament stacks are negative, non-finite or missing."""


class InvalidPayoutsError(PokerlabError):
    """Tournament payouts are negative, non-finite or longer than the field."""


class InvalidGameError(PokerlabError):
    """A game name, preset or parameter is unknown or inconsistent."""


class InvalidArgumentError(PokerlabError):
    """Any other argument outside its documented domain (trials, confidence, seeds, files...)."""


class FileFormatError(PokerlabError):
    """A saved artefact is unreadable, of the wrong kind or of an unsupported format version."""


class UnsupportedGameError(PokerlabError):
    """A valid game that an algorithm cannot take, e.g. a three-player general-sum game given to a solver that
    needs two-player zero-sum."""


class OutputPathError(InvalidArgumentError):
    """An output file cannot be written: its folder is missing, it is a folder, or it is not writable."""


class ResourceLimitError(InvalidArgumentError):
    """A request that could not finish in reasonable time or would not fit in memory, refused before any work
    with the estimate (e.g. a match of 10^12 hands, an exact place matrix of 50 GB)."""


class NonFiniteResultError(PokerlabError):
    """A computation overflowed or produced NaN/infinity: the inputs are out of the range the result can hold."""


class Interrupted(KeyboardInterrupt):  # noqa: N818 - named like the KeyboardInterrupt it is
    """Ctrl-C stopped a long computation between two chunks of work.

    A ``KeyboardInterrupt``, so code that catches those keeps working. ``str(error)`` says what was done
    (``"after 3,200,000 trials of 10,000,000"``); ``partial`` holds the result so far where one is meaningful
    (a Monte Carlo estimate with its honest standard error, a solver at its last complete iteration), else None.

    >>> error = Interrupted("after 3 of 10 batches", partial=0.42)
    >>> isinstance(error, KeyboardInterrupt), str(error), error.partial
    (True, 'after 3 of 10 batches', 0.42)
    """

    def __init__(self, message: str, partial: object | None = None) -> None:
        super().__init__(message)
        self.partial = partial


def excerpt(text: object, limit: int = 60) -> str:
    """``repr`` of a user's input for an error message, cut to about ``limit`` characters, so that a message
    never echoes a pasted 60,000-character input back.

    >>> excerpt("5000,3000")
    "'5000,3000'"
    >>> excerpt("1," * 1000, limit=10)
    "'1,1,1,1,1,…' (2,000 characters)"
    """
    value = str(text)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}"[:-1] + f"…' ({len(value):,} characters)"


def real_number(value: object, what: str, error: type[PokerlabError] = InvalidArgumentError) -> float:
    """``value`` as a float if it is a real number (an int or float, numpy's included; not a bool, text or
    None), else ``error`` naming ``what``. Ranges are the caller's to check.

    >>> real_number(2, "time limit")
    2.0
    >>> real_number("2", "time limit")
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: time limit must be a number, got str '2'
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise error(f"{what} must be a number, got {type(value).__name__} {excerpt(value)}")
    return float(value)


def whole_number(value: object, what: str, *, low: int | None = None, high: int | None = None,
                 floats: bool = False, error: type[PokerlabError] = InvalidArgumentError) -> int:
    """``value`` as an int if it is a whole number in ``[low, high]`` (either bound optional), else ``error``
    naming ``what`` and the range. Ints of Python and numpy are whole numbers; a float with no fractional part
    (``3.0``, as JSON and YAML write counts) only when ``floats`` is true; bools, text and None never.

    >>> whole_number(3, "seats", low=2, high=10)
    3
    >>> whole_number(3.0, "paid places", low=1, floats=True)
    3
    >>> whole_number(True, "seats")
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: seats must be a whole number, got bool True
    >>> whole_number(11, "seats", low=2, high=10)
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: seats must be from 2 to 10, got 11
    """
    import math
    import numbers

    if isinstance(value, bool):
        raise error(f"{what} must be a whole number, got bool {value}")
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif floats and isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        number = int(float(value))
    else:
        shown = str(value) if value is None or isinstance(value, numbers.Number) else excerpt(value)
        raise error(f"{what} must be a whole number, got {type(value).__name__} {shown}")
    if (low is not None and number < low) or (high is not None and number > high):
        if low is not None and high is not None:
            bounds = f"from {low:,} to {high:,}"
        elif low is not None:
            bounds = f"at least {low:,}"
        else:
            bounds = f"at most {high:,}"
        raise error(f"{what} must be {bounds}, got {number:,}")
    return number


def true_or_false(value: object, what: str) -> bool:
    """``value`` if it is a bool, else :class:`InvalidArgumentError` naming ``what``.

    >>> true_or_false(1, "records")
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: records must be True or False, got int
    """
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"{what} must be True or False, got {type(value).__name__}")
    return value


def optional_callback(value: object, what: str, arguments: str) -> None:
    """Refuse ``value`` unless it is None or callable (``arguments`` says what it receives, for the message).

    >>> optional_callback(3, "progress", "(done, total)")
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: progress must be a function of (done, total) or None, got int
    """
    if value is not None and not callable(value):
        raise InvalidArgumentError(f"{what} must be a function of {arguments} or None, got {type(value).__name__}")
