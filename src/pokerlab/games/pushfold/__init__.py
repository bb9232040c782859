"""Push/fold preflop poker as a game, by concern: the table rules (:mod:`~pokerlab.games.pushfold.rules`:
posting, side pots, final stacks; the simulator plays by them too), the public tree and its terminals
(:mod:`~pokerlab.games.pushfold.game`), the valuation of the terminals with its sampled 3+ way pots and their
stages (:mod:`~pokerlab.games.pushfold.valuation`), the deals it samples (:mod:`~pokerlab.games.pushfold.deals`)
and its compiled kernels (:mod:`~pokerlab.games.pushfold.kernels`).
"""

from pokerlab.games.pushfold.game import JAM, PushFoldGame
from pokerlab.games.pushfold.kernels import DISJOINT_COMBOS
from pokerlab.games.pushfold.rules import (
    MAX_SEATS,
    Table,
    Terminal,
    outcome_key,
    outcome_values,
    post_forced_bets,
    pot_winner_sequences,
    pots,
    seat_names,
    settle,
)

__all__ = ["DISJOINT_COMBOS", "JAM", "MAX_SEATS", "PushFoldGame", "Table", "Terminal", "outcome_key", "outcome_values",
           "post_forced_bets", "pot_winner_sequences", "pots", "seat_names", "settle"]
