"""The shipped full-ring charts valued in the real game, as a player plays them.

A chart's stored gains (:mod:`pokerlab.pushfold.fullring_charts`) hold in the chart model, for the whole solved
profile. A player reading the chart has less and more: less, because the chart shows first-in jams, calls of a lone
jam and over-calls facing a jam and a call, not the deeper nodes (facing three or more all-ins he calls by the
range facing the first two, as the simulator's ``fullring`` players do, :mod:`pokerlab.simulation.ring`); more,
because his table is the real game, where every seat's cards come from one deck, folded hands included
(:mod:`pokerlab.pushfold.real_game`).

So each shipped spot of three or more seats is valued here as played (:func:`played_range`): the profile that jams
first in by ``jam[seat]``, calls a lone jam by ``call[seat, jammer]`` and, facing a jam and calls, calls by the
over-call range of the first two (``overcall[seat, jammer, first caller]``; by ``call[seat, jammer]`` at a spot
whose over-call ranges are not shipped), the quantised probabilities as shipped, on :data:`DEALS` joint deals (seed
:data:`SEED`). Per seat the file stores the chip EV (bb) and the best-response gain bracketed: the cross-fitted gain
(``low``; in expectation at most the true gain, with its standard error) and the gain chosen and measured on all the
deals (``high``; in expectation at least it). Heads-up the chart model is the exact game, so the gain of the
quantised chart is computed exactly (``low`` = ``high``).

The measurements are package data (``data/fullring_real_game.npz``, written by
``scripts/build_fullring_real_game.py``, read by :func:`pokerlab.pushfold.fullring_charts.shipped_real_game`): the
file names the content hashes of the chart file and the over-call file it was measured with, the digest of this
module and the joint-deal check (:func:`~pokerlab.pushfold.fullring_charts.real_game_version`), the deals and the
seed; a file that does not match the shipped charts, over-calls or this code is not used (and the reader says why),
never read silently.

>>> from pokerlab.pushfold.fullring_charts import full_ring_chart
>>> measured = measure_chart(full_ring_chart(3, 10, "none"), deals=2_000)
>>> len(measured.low), bool(abs(sum(measured.values)) < 1e-9)  # chip EV: the seats' values sum to 0 on every deal
(3, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pokerlab.games.pushfold import JAM
from pokerlab.games.pushfold.joint import JointPotGame
from pokerlab.games.vector import CompiledPublicTree, compile_public_tree
from pokerlab.pushfold.fullring import spot_game
from pokerlab.pushfold.fullring_charts import FullRingChart, RealGameGains
from pokerlab.pushfold.real_game import real_game_check
from pokerlab.solvers.vector_strategy import VectorStrategy, best_response_gains

DEALS = 200_000
"""Joint deals per spot (a ten-seat spot takes about 5 s CPU)."""
SEED = 5


def played_range(chart: FullRingChart, seat: int, in_pot: Sequence[int]) -> np.ndarray:
    """Seat ``seat``'s probability per class of going all in when the seats ``in_pot`` (in the order they acted: a
    jam, then calls) are all in before him and everyone else before him folded, as a player of ``chart`` plays it:
    first in by ``jam``; facing a lone jam by ``call``; facing a jam and one or more calls by ``overcall`` of the
    first two (by ``call`` of the jammer where the spot's over-call ranges are not shipped).

    >>> from pokerlab.pushfold.fullring_charts import full_ring_chart
    >>> chart = full_ring_chart(4, 10, "none")  # CO, BTN, SB, BB
    >>> bool((played_range(chart, 3, [0, 1, 2]) == chart.overcall[3, 0, 1]).all())  # facing three: the first two's
    True
    """
    row: np.ndarray
    if not in_pot:
        row = chart.jam[seat]
    elif len(in_pot) == 1 or chart.overcall is None:
        row = chart.call[seat, in_pot[0]]
    else:
        row = chart.overcall[seat, in_pot[0], in_pot[1]]
    return row


def chart_profile(chart: FullRingChart) -> tuple[JointPotGame, CompiledPublicTree, VectorStrategy]:
    """The chart model's game and tree of ``chart``'s spot and the profile a player of the chart plays in it (see
    the module docstring)."""
    game = spot_game(len(chart.seats), chart.depth_bb, chart.ante)
    tree = compile_public_tree(game)
    profile = VectorStrategy.uniform(tree)
    deciders = game.decision_seats
    for node in tree.decision_nodes():
        state = tree.states[int(node)]
        in_pot = [deciders[k] for k, action in enumerate(state) if action == JAM]
        jam = played_range(chart, deciders[len(state)], in_pot)
        block = profile.block(int(node))
        block[:, 1] = jam
        block[:, 0] = 1.0 - jam
    return game, tree, profile


def measure_chart(chart: FullRingChart, *, deals: int = DEALS, seed: int = SEED) -> RealGameGains:
    """``chart`` played in the real game on ``deals`` joint deals of seed ``seed`` (heads-up: exactly)."""
    game, tree, profile = chart_profile(chart)
    seats = len(chart.seats)
    if seats == 2:
        exact = best_response_gains(tree, profile)
        gains = np.array(exact.gains)
        return RealGameGains(np.array(exact.values), np.zeros(2), gains, np.zeros(2), gains.copy(), 0, seed)
    check = real_game_check(game, tree, profile, deals=deals, seed=seed)
    return RealGameGains(np.array(check.values), np.array(check.value_errors), np.array(check.gains),
                         np.array(check.gain_errors), np.array(check.upper_gains), check.deals, seed)
