"""Equity engine: exact enumeration with suit symmetry and Monte Carlo with stopping rules.

>>> from pokerlab.equity import equity
>>> equity(["AhAd", "KsKc"], board="2c7d9h").wins
(907, 83)
"""

from pokerlab.equity.core import equity, equity_vs_random
from pokerlab.equity.result import EquityResult, VersusRandomResult

__all__ = ["EquityResult", "VersusRandomResult", "equity", "equity_vs_random"]
