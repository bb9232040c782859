"""Monte Carlo estimators and stopping rules shared by the equity and ICM engines."""

from pokerlab.stats.seeds import validate_seed
from pokerlab.stats.stopping import RunningMoments, StoppingRule, normal_quantile, run_until

__all__ = ["RunningMoments", "StoppingRule", "normal_quantile", "run_until", "validate_seed"]
