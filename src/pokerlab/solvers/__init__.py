"""Solvers: regret matching for matrix games, the CFR family, Monte Carlo CFR, best response and exploitability."""

from pokerlab.solvers.core import (
    ALGORITHMS,
    FORMAT_VERSION,
    SolveProgress,
    Solver,
    SolverConfig,
    SolveResult,
    algorithm_config,
    solve,
)
from pokerlab.solvers.policy import (
    BestResponse,
    Exploitability,
    Policy,
    best_response,
    expected_value,
    exploitability,
)

__all__ = [
    "ALGORITHMS", "FORMAT_VERSION", "BestResponse", "Exploitability", "Policy", "SolveProgress", "SolveResult",
    "Solver", "SolverConfig", "algorithm_config", "best_response", "expected_value", "exploitability", "solve",
]
