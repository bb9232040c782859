"""Equity engine: exact enumeration with suit symmetry and Monte Carlo with stopping rules.

>>> from pokerlab.equity import equity
>>> equity(["AhAd", "KsKc"], board="2c7d9h").wins
(907, 83)

The names below load their modules on first use, so that a caller of one module of the package (push/fold's
class tables, :mod:`pokerlab.equity.headsup_table`) does not pay for the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pokerlab.equity.core import equity, equity_vs_random
    from pokerlab.equity.result import EquityResult, VersusRandomResult

_EXPORTS = {"EquityResult": "pokerlab.equity.result", "VersusRandomResult": "pokerlab.equity.result",
            "equity": "pokerlab.equity.core", "equity_vs_random": "pokerlab.equity.core"}

__all__ = ["EquityResult", "VersusRandomResult", "equity", "equity_vs_random"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pokerlab.equity' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
