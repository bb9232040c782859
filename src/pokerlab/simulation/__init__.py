"""Tournament simulation: multi-table tournaments (tables, blinds, balancing), play models (coin flip, push/fold
charts, simple rules), batches on local processes or Ray with checkpoints, and models measured against it."""

from pokerlab.simulation.core import SimulationResult, Tournament, prepare, run, simulate
from pokerlab.simulation.schedule import default_schedule, load_schedule, make_schedule

__all__ = ["SimulationResult", "Tournament", "default_schedule", "load_schedule", "make_schedule", "prepare", "run",
           "simulate"]
