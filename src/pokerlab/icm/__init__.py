"""Tournament equity: the Malmuth-Harville Independent Chip Model, exact at any field size, Monte Carlo,
payout structures, knockout bounties and tournament analysis (bubble factors, deals)."""

from pokerlab.icm.bounty import BountyResult, bounty_equity
from pokerlab.icm.core import ICMResult, default_variance_reduction, icm
from pokerlab.icm.payouts import flat, parse_payouts, power_law, standard, truncated_normal_stacks

__all__ = [
    "BountyResult", "ICMResult", "bounty_equity", "default_variance_reduction", "flat", "icm", "parse_payouts",
    "power_law", "standard", "truncated_normal_stacks",
]
