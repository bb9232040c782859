"""Every training algorithm: regret matching for matrix games; on compiled trees the CFR family, Monte Carlo CFR,
best response and exploitability; on vector-form games (public tree, private hands) CFR+/DCFR and best-response
gains for n players; the two-round game's MCCFR.

Every strategy kind registers its file formats with :mod:`pokerlab.solvers.strategy` when its module loads;
importing them here fills that table before any file is read (a new kind adds its import below)."""

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
from pokerlab.solvers.two_round import TwoRoundBot
from pokerlab.solvers.vector import VectorSolver
from pokerlab.solvers.vector_strategy import (
    BestResponseGains,
    VectorStrategy,
    best_response_gains,
    vector_exploitability,
)

__all__ = [
    "ALGORITHMS", "FORMAT_VERSION", "BestResponse", "Exploitability", "Policy", "SolveProgress", "SolveResult",
    "Solver", "SolverConfig", "algorithm_config", "best_response", "expected_value", "exploitability", "solve",
    "BestResponseGains", "TwoRoundBot", "VectorSolver", "VectorStrategy", "best_response_gains",
    "vector_exploitability",
]
