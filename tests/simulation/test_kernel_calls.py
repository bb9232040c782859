"""A chunk of tournaments is played in short kernel calls (Ctrl-C is seen between them): the tournaments do not
depend on where the calls stop, and the hand-by-hand state they carry (the button, the blinds) moves as a
tournament's does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pokerlab.cards.tables import load_tables
from pokerlab.simulation import core, kernels, prepare, simulate


def _records(**setup: Any) -> tuple[dict[str, np.ndarray], int]:
    result = simulate(tournaments=3, seed=7, workers=0, records=True, **setup)
    assert result.records is not None
    return result.records, result.hands


@pytest.mark.parametrize("setup", [
    {"stacks": [5, 3, 2], "payouts": [600, 400], "bet": 1},
    {"players": 30, "payouts": [500, 300, 200], "play": "pushfold:0.8,icm:0.2", "snapshots": [9]},
], ids=["coinflip", "charts-and-icm-deciders"])
def test_the_tournaments_do_not_depend_on_the_kernel_calls(monkeypatch: pytest.MonkeyPatch,
                                                            setup: dict[str, Any]) -> None:
    whole, hands = _records(**setup)
    monkeypatch.setattr(core, "FIRST_CALL_HANDS", 1)
    monkeypatch.setattr(core, "next_call_hands", lambda last, seconds: 1)  # one table's hand per call
    one_by_one, again = _records(**setup)
    assert hands == again > 3
    for name in whole:
        assert np.array_equal(whole[name], one_by_one[name]), name


def _step(t: Any, run: Any, summary: Any, places: np.ndarray, snaps: np.ndarray, info: np.ndarray,
          checks: np.ndarray) -> tuple[Any, int]:
    stepped: tuple[Any, int] = kernels.play_rounds(t.field, t.schedule, t.charts, t.ring, t.aware, t.snapshots,
                                                   load_tables(), run, summary, places, snaps, info, checks, 1)
    return stepped


@pytest.mark.parametrize("players", [2, 4])
def test_the_button_moves_one_seat_a_hand(players: int) -> None:
    t = prepare(stacks=[10_000] * players, payouts=[1.0], play="pushfold")
    run = kernels.new_run(t.field, t.snapshots)
    places = np.zeros(players, dtype=np.int64)
    checks = np.zeros(4, dtype=np.int64)
    snaps, info = np.zeros((0, players), dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    summary = kernels.start_tournament(t.field, t.schedule, t.aware, run, kernels.tournament_start(3, 0), places,
                                       checks)
    for _ in range(6):
        button = int(run.tables.button[0])
        before = run.stack.copy()
        summary, played = _step(t, run, summary, places, snaps, info, checks)
        if run.clock[kernels.FINISHED] or run.tables.counts[0] < players:
            break
        assert played == 1 and run.tables.button[0] == (button + 1) % players
        # the small blind (the button heads-up) lost his blind or won the pot: his stack moved
        small_blind = run.tables.seats[0, button if players == 2 else (button + 1) % players]
        assert run.stack[small_blind] != before[small_blind]


def test_the_bubble_snapshot_is_the_start_of_the_round_that_reaches_the_money() -> None:
    """A multi-table field loses several players in a round (a hand at every table): the bubble snapshot holds
    more players than the paid places, and its round ends with at most that many (every player still in at it
    who finished below the paid places went in that round, so the last of them finished exactly at paid + 1
    or below, and some player of the snapshot finished outside the money)."""
    from pokerlab.icm import flat
    from pokerlab.simulation import simulate

    result = simulate(players=300, payouts=flat(45, 1000.0), play="fullring", tournaments=6, snapshots=["bubble"],
                      records=True, seed=5, workers=0)
    assert result.records is not None
    snaps = result.records["snap_stacks"][:, 0]
    places = result.records["places"]
    for r in range(snaps.shape[0]):
        alive = snaps[r] > 0
        assert alive.sum() > 45
        assert (places[r, alive] > 45).any()  # someone of the snapshot busted outside the money
