"""pokerlab: poker mathematics, exact where affordable and fast everywhere.

The public API is re-exported here; see the README for a tour.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from pokerlab.errors import (
    DuplicateCardError,
    InvalidCardError,
    InvalidHandError,
    PokerlabError,
)
from pokerlab.icm import ICMResult, icm

try:
    __version__ = version("pokerlab")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = [
    "DuplicateCardError",
    "InvalidCardError",
    "InvalidHandError",
    "ICMResult",
    "PokerlabError",
    "icm",
    "__version__",
]
