"""pokerlab: poker mathematics, exact where affordable and fast everywhere.

The public API is re-exported here; see the README for a tour.
"""

from __future__ import annotations

import os
import sys
import types

# numba's OpenMP threads spin at the end of every parallel loop by default, and the kernels here run many loops
# of a few milliseconds: the spinning cost more CPU than the work and, on a busy machine, more wall time too
# (docs/benchmarks.md, session 15). Sleeping threads are woken in microseconds. Read when the threading layer
# first loads, so a user's own setting (or one made before any parallel kernel runs) is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# typing.TYPE_CHECKING without importing typing (25 ms of the command line's start, during which Ctrl-C would
# still be Python's traceback: see pokerlab.cli.entry); type checkers read the name the same way
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    from pokerlab.postflop import PostflopResult
    from pokerlab.pushfold import PushFoldResult, pushfold
    from pokerlab.simulation import SimulationResult, simulate
    from pokerlab.solvers import Policy, Solver, best_response, expected_value, exploitability, solve

# Every public name and the module that defines it. The modules load on first use of a name, so that
# ``import pokerlab`` (and the CLI's start) does not pay for numpy, numba and every engine.
_EXPORTS = {
    "run_match": "pokerlab.agents.match",
    "format_cards": "pokerlab.cards.encoding",
    "parse_card": "pokerlab.cards.encoding",
    "parse_cards": "pokerlab.cards.encoding",
    "HandValue": "pokerlab.cards.evaluator",
    "category": "pokerlab.cards.evaluator",
    "describe": "pokerlab.cards.evaluator",
    "evaluate": "pokerlab.cards.evaluator",
    "evaluate_batch": "pokerlab.cards.evaluator",
    "evaluate_hand": "pokerlab.cards.evaluator",
    "Range": "pokerlab.cards.ranges",
    "parse_range": "pokerlab.cards.ranges",
    "EquityResult": "pokerlab.equity",
    "VersusRandomResult": "pokerlab.equity",
    "equity": "pokerlab.equity",
    "equity_vs_random": "pokerlab.equity",
    "DuplicateCardError": "pokerlab.errors",
    "InvalidCardError": "pokerlab.errors",
    "InvalidHandError": "pokerlab.errors",
    "InvalidRangeError": "pokerlab.errors",
    "PokerlabError": "pokerlab.errors",
    "compile_game": "pokerlab.games",
    "get_game": "pokerlab.games",
    "kuhn": "pokerlab.games",
    "leduc": "pokerlab.games",
    "ICMResult": "pokerlab.icm",
    "icm": "pokerlab.icm",
    "PostflopResult": "pokerlab.postflop",
    "PushFoldResult": "pokerlab.pushfold",
    "pushfold": "pokerlab.pushfold",
    "SimulationResult": "pokerlab.simulation",
    "simulate": "pokerlab.simulation",
    "Policy": "pokerlab.solvers",
    "Solver": "pokerlab.solvers",
    "best_response": "pokerlab.solvers",
    "expected_value": "pokerlab.solvers",
    "exploitability": "pokerlab.solvers",
    "solve": "pokerlab.solvers",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pokerlab")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+unknown"


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use (PEP 562) and keep the name here."""
    if name == "__version__":
        value: Any = _version()
    elif name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'pokerlab' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | {"__version__"})


class _Package(types.ModuleType):
    """``pokerlab.equity`` and ``pokerlab.icm`` name both a function and a subpackage. Importing a subpackage
    sets it as an attribute of its parent, which would hide the function that ``from pokerlab import equity``
    means; the functions keep those two names (the subpackages stay importable through ``sys.modules``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _EXPORTS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
    "PostflopResult",
    "PushFoldResult",
    "pushfold",
    "SimulationResult",
    "simulate",

    "parse_range",
    "DuplicateCardError",
    "InvalidCardError",
    "InvalidHandError",
    "InvalidRangeError",
    "PokerlabError",
    "Policy",
    "Solver",

    "icm",
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
