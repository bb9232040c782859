"""Tournament equity: the Malmuth-Harville Independent Chip Model, exact at any field size, Monte Carlo,
payout structures, knockout bounties and tournament analysis (bubble factors, deals).

The names below load their modules on first use, so that a caller of one module of the package (the plain-numpy
ICM of :mod:`pokerlab.icm.small_field`, the payout parser) does not pay for the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pokerlab.icm.bounty import BountyResult, bounty_equity
    from pokerlab.icm.core import ICMResult, default_variance_reduction, icm
    from pokerlab.icm.payouts import flat, parse_payouts, power_law, standard, truncated_normal_stacks

_EXPORTS = {"BountyResult": "pokerlab.icm.bounty", "bounty_equity": "pokerlab.icm.bounty",
            "ICMResult": "pokerlab.icm.core", "default_variance_reduction": "pokerlab.icm.core",
            "icm": "pokerlab.icm.core", "flat": "pokerlab.icm.payouts", "parse_payouts": "pokerlab.icm.payouts",
            "power_law": "pokerlab.icm.payouts", "standard": "pokerlab.icm.payouts",
            "truncated_normal_stacks": "pokerlab.icm.payouts"}

__all__ = [
    "BountyResult", "ICMResult", "bounty_equity", "default_variance_reduction", "flat", "icm", "parse_payouts",
    "power_law", "standard", "truncated_normal_stacks",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pokerlab.icm' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
