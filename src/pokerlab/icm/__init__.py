"""Tournament equity: the Malmuth-Harville Independent Chip Model, exact at any field size, Monte Carlo,
payout structures and tournament analysis (bubble factors, deals)."""

from pokerlab.icm.core import ICMResult, default_variance_reduction, icm
from pokerlab.icm.payouts import flat, parse_payouts, power_law, standard, truncated_normal_stacks

__all__ = [
    "ICMResult", "default_variance_reduction", "flat", "icm", "parse_payouts", "power_law", "standard",
    "truncated_normal_stacks",
]
