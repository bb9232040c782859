"""The shipped full-ring ICM charts valued in the real game, as a player plays them.

An ICM chart's stored gains (:mod:`pokerlab.pushfold.fullring_icm_charts`) hold in the ICM chart model, where a
seat's hands are dealt jointly with those of the others in its pot only, folded hands ignored. Here each shipped
ICM spot is played as its reader plays it (:func:`pokerlab.pushfold.fullring_real.chart_profile`: jam first in by
``jam``, call a lone jam by ``call`` of the jammer, a jam and calls by the shipped ICM over-call ranges)
in the real game of :mod:`pokerlab.pushfold.real_game`: every seat's cards and the board from one deck, the payoff
of each outcome the change of every seat's ICM prize equity (the game of
:func:`~pokerlab.pushfold.fullring_icm.icm_spot_game`, whose terminals keep every outcome's payoffs; the chart
model's reading of them is only in its plans). Values are each seat's ICM equity after the hand (money, the pool
100: they sum to it on every deal), gains the best-response gain bracketed as for the chip-EV charts (cross-fitted
``low`` with its standard error, ``high`` chosen on all the deals), on :data:`~pokerlab.pushfold.fullring_real.DEALS`
joint deals of seed :data:`~pokerlab.pushfold.fullring_real.SEED`.

The measurements are package data (``data/fullring_icm_real_game.npz``, written by
``scripts/build_fullring_real_game.py --icm``, read by
:func:`pokerlab.pushfold.fullring_icm_charts.shipped_icm_real_game`), keyed on the ICM chart file's content hash
and :func:`icm_real_game_version`.

>>> from pokerlab.pushfold.fullring_icm_charts import icm_chart
>>> measured = measure_icm_chart(icm_chart(3, 10, "bubble"), "bubble", deals=2_000)
>>> len(measured.low), round(float(measured.values.sum()), 9)  # ICM equity: the seats' values sum to the pool
(3, 100.0)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.games.pushfold.joint import JointPotGame
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fullring_charts import MODEL_SOURCES, REAL_GAME_SOURCES, FullRingChart, RealGameGains
from pokerlab.pushfold.fullring_icm import ICM_SOURCES, POOL, icm_spot_game
from pokerlab.pushfold.fullring_real import DEALS, SEED, chart_profile
from pokerlab.pushfold.real_game import real_game_check

ICM_REAL_GAME_SOURCES = (*MODEL_SOURCES, *ICM_SOURCES, *REAL_GAME_SOURCES, "pushfold/fullring_icm_real.py")
"""The sources of an ICM chart's real-game measurement: the chart's game and payoffs, the joint-deal check, the
profile its player plays, and this module."""


def icm_real_game_version() -> str:
    """The digest of :data:`ICM_REAL_GAME_SOURCES` (16 hex digits)."""
    return sources_digest(ICM_REAL_GAME_SOURCES)


def measure_in(game: JointPotGame, chart: FullRingChart, *, deals: int = DEALS, seed: int = SEED
               ) -> RealGameGains:
    """``chart`` played as its reader plays it in the real game whose payoffs are ``game``'s (a chart-model game of
    the chart's table, with any payoff of the final stacks) on ``deals`` joint deals of seed ``seed``; values and
    gains in ``game``'s payoff units. :class:`~pokerlab.errors.InvalidArgumentError` if ``game`` is not of the
    chart's table."""
    chip_game, tree, profile = chart_profile(chart)
    if game.table != chip_game.table or game.decision_seats != chip_game.decision_seats:
        raise InvalidArgumentError(f"the game's table {game.table} is not the chart's {chip_game.table}")
    check = real_game_check(game, tree, profile, deals=deals, seed=seed)
    return RealGameGains(np.array(check.values), np.array(check.value_errors), np.array(check.gains),
                         np.array(check.gain_errors), np.array(check.upper_gains), check.deals, seed)


def measure_icm_chart(chart: FullRingChart, stage: str, *, deals: int = DEALS, seed: int = SEED) -> RealGameGains:
    """The ICM chart ``chart`` of stage ``stage`` (``final`` or ``bubble``) played in the real game (see the module
    docstring): values are each seat's ICM equity after the hand (money, the pool 100), gains money."""
    seats = len(chart.seats)
    measured = measure_in(icm_spot_game(seats, chart.depth_bb, stage), chart, deals=deals, seed=seed)
    return replace(measured, values=measured.values + POOL / seats)
