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
