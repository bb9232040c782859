"""pokerlab: poker mathematics, exact where affordable and fast everywhere.

The public API is re-exported here; see the README for a tour.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from pokerlab.agents.match import run_match
from pokerlab.cards.encoding import format_cards, parse_card, parse_cards
from pokerlab.cards.evaluator import HandValue, category, describe, evaluate, evaluate_batch, evaluate_hand
from pokerlab.cards.ranges import Range, parse_range
from pokerlab.equity import EquityResult, VersusRandomResult, equity, equity_vs_random
from pokerlab.errors import (
    DuplicateCardError,
    InvalidCardError,
    InvalidHandError,
    InvalidRangeError,
    PokerlabError,
)
from pokerlab.games import compile_game, get_game, kuhn, leduc
from pokerlab.icm import ICMResult, icm
from pokerlab.pushfold import PushFoldResult, pushfold
from pokerlab.solvers import Policy, Solver, best_response, expected_value, exploitability, solve

try:
    __version__ = version("pokerlab")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = [
    "EquityResult",
    "HandValue",
    "Range",
    "VersusRandomResult",
    "category",
    "describe",
    "equity",
    "equity_vs_random",
    "evaluate",
    "evaluate_batch",
    "evaluate_hand",
    "format_cards",
    "parse_card",
    "parse_cards",
    "run_match",
    "DuplicateCardError",
    "InvalidCardError",
    "InvalidHandError",
    "ICMResult",

    "parse_range",
    "DuplicateCardError",
    "InvalidCardError",
    "InvalidHandError",
    "InvalidRangeError",
    "PokerlabError",
    "Policy",
    "Solver",

    "icm",
    "PushFoldResult",
    "pushfold",
    "__version__",
    "best_response",
    "compile_game",
    "expected_value",
    "exploitability",
    "get_game",
    "kuhn",
    "leduc",
    "solve",
]
