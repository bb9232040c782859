"""Full-ring players (:mod:`pokerlab.simulation.ring`): the simulator plays the shipped charts by position with
several callers, by the one set of hand rules, and its EV of a fixed full-table profile is the real game's
(valued independently, on joint deals, by :func:`pokerlab.pushfold.real_game.real_game_check`); a chart file
of another version is refused in one line; every result names the charts it used."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards.tables import load_tables
from pokerlab.games.pushfold import JAM, PushFoldGame, Table
from pokerlab.games.vector import compile_public_tree
from pokerlab.pushfold.fullring_charts import CHART_FILE, LEVELS, full_ring_chart, overcall_triples, shipped_charts
from pokerlab.pushfold.real_game import real_game_check
from pokerlab.simulation import simulate
from pokerlab.simulation.kernels import Charts, play_hands
from pokerlab.simulation.ring import RingCharts, position, ring_call_probability, ring_charts
from pokerlab.solvers.vector_strategy import VectorStrategy

SEATS = 4
DEPTH_BB = 5  # stacks, a shipped depth: its wide calls make pots of several callers
BIG_BLIND = 100


def chart_profile(game: PushFoldGame, tree, jam: np.ndarray, call: np.ndarray, overcall: np.ndarray | None
                  ) -> VectorStrategy:
    """The full-ring players' profile in the game: first in by ``jam[seat]``, after a lone jam by ``call[seat,
    jammer]``, after a jam and calls by ``overcall[seat, jammer, first caller]`` (None: by ``call[seat, jammer]``)."""
    strategy = VectorStrategy.uniform(tree)
    for node in tree.decision_nodes():
        state = tree.states[int(node)]
        seat = game.decision_seats[len(state)]
        jams = [game.decision_seats[k] for k, action in enumerate(state) if action == JAM]
        if not jams:
            p = jam[seat]
        elif len(jams) == 1 or overcall is None:
            p = call[seat, jams[0]]
        else:
            p = overcall[seat, jams[0], jams[1]]
        block = strategy.block(int(node))
        block[:, 1] = p
        block[:, 0] = 1.0 - p
    return strategy


def test_positions_are_the_charts_seat_order():
    # UTG .. BTN, SB, BB from the small blind's table seat; heads-up the small blind (the button) is SB
    assert [position(seat, 0, 5) for seat in range(5)] == [3, 4, 0, 1, 2]
    assert [position(seat, 1, 2) for seat in range(2)] == [1, 0]


def _simulated_ev(ring: RingCharts, hands: int = 400_000) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's mean chip result (bb) and its standard error over ``hands`` hands of the full-ring players of
    ``ring`` at the test's table (stacks reset every hand)."""
    total = np.zeros(SEATS)
    square = np.zeros(SEATS)
    stacks = np.full(SEATS, DEPTH_BB * BIG_BLIND, dtype=np.int64)
    unused = Charts(np.zeros((1, 1, 169)), np.zeros((1, 1, 169)))
    # button at table seat SEATS - 3: the simulator's seats are the game's (UTG, BTN, SB, BB)
    play_hands(stacks, np.zeros(SEATS, dtype=np.int64), SEATS - 3, BIG_BLIND // 2, BIG_BLIND, 0, False, SEATS - 1,
               unused, load_tables(), 11, hands, total, square, ring)
    assert total.sum() == 0  # chips are conserved on every hand
    simulated = total / hands / BIG_BLIND
    return simulated, np.sqrt((square / hands / BIG_BLIND**2 - simulated**2) / hands)


@pytest.mark.parametrize("overcalls", ["shipped", "every hand"])
def test_the_simulator_plays_a_full_table_chart_at_the_real_games_ev(overcalls: str) -> None:
    """Four seats at 5 bb, no ante: every player plays the shipped 5 bb chart by his position, over-calls by the
    shipped over-call ranges (or, to give the check power over them, by a file whose over-call ranges call with
    every hand). The simulator's mean chip result per seat (400,000 hands) matches the real game's value of the
    same profile (100,000 joint deals, an independent implementation) within 4 combined standard errors (about
    0.03-0.05 bb). The check has power against a misplaced button (one seat off: 76 standard errors), against the
    first caller closing the action (``callers=1``: the big blind 6.6 standard errors off), and against the
    over-calls read from the lone-jam chart (every-hand over-calls: about 6 standard errors, asserted below)."""
    chart = full_ring_chart(SEATS, DEPTH_BB, "none")
    assert chart.asked_bb == DEPTH_BB and chart.exact and chart.overcall is not None
    game = PushFoldGame(Table((float(DEPTH_BB),) * SEATS, 0.5, 1.0), lambda final: final - DEPTH_BB)
    tree = compile_public_tree(game)
    ring, _ = ring_charts([1.0])
    overcall = chart.overcall
    if overcalls == "every hand":
        overcall = np.where(np.isnan(overcall), np.nan, 1.0)
        ring = ring._replace(overcall=np.full_like(ring.overcall, LEVELS))
    check = real_game_check(game, tree, chart_profile(game, tree, chart.jam, chart.call, overcall), deals=100_000,
                            seed=5)
    simulated, simulated_error = _simulated_ev(ring)
    tolerance = 4 * np.hypot(simulated_error, np.array(check.value_errors))
    assert np.all(np.abs(simulated - np.array(check.values)) <= tolerance), (simulated, check.values, tolerance)
    if overcalls == "every hand":
        lone = real_game_check(game, tree, chart_profile(game, tree, chart.jam, chart.call, None), deals=100_000,
                               seed=5)
        assert np.max(np.abs(simulated - np.array(lone.values)) / tolerance) > 1  # about 6 standard errors
    key = shipped_charts().key
    assert ring.uses.sum() > 0 and np.flatnonzero(ring.uses).tolist() == [
        int(k) for k in np.flatnonzero((key[:, 0] == SEATS) & (key[:, 1] == chart.depth_bb) & (key[:, 2] == 0))]


def test_the_kernel_reads_the_shipped_over_call_and_call_ranges() -> None:
    """Every (caller, jammer, first caller) and class of a five-seat spot: the kernel's call probability is the
    file's over-call range, and with no first caller the lone-jam chart's."""
    ring, _ = ring_charts([1.0])
    chart = full_ring_chart(5, 10, "none")
    assert chart.overcall is not None
    rule = 0  # none: the nearest rule to no ante
    for caller, jammer, first in overcall_triples(5):
        got = [ring_call_probability(ring, 0, rule, 5, 10 * BIG_BLIND, BIG_BLIND, caller, jammer, first, c)
               for c in range(169)]
        np.testing.assert_allclose(got, chart.overcall[caller, jammer, first], rtol=0, atol=1e-12)
        alone = [ring_call_probability(ring, 0, rule, 5, 10 * BIG_BLIND, BIG_BLIND, caller, jammer, -1, c)
                 for c in range(169)]
        np.testing.assert_allclose(alone, chart.call[caller, jammer], rtol=0, atol=1e-12)


def test_a_result_names_the_chart_file_and_every_spot_it_used():
    result = simulate(None, "power:paid=3", players=12, play="fullring", tournaments=2, seed=3, workers=0)
    record = result.to_dict()["fullring_charts"]
    assert record["content_sha256"] == shipped_charts().header["content_sha256"]
    assert record["spots"] and all(s["uses"] > 0 and 2 <= s["seats"] <= 9 for s in record["spots"])
    assert result.tournament.field.callers == 9  # several callers
    assert result.tournament.describe()["fullring_charts"] == record["content_sha256"]


def test_a_chart_file_of_another_version_is_refused_in_one_line(tmp_path):
    import subprocess

    with np.load(CHART_FILE) as stored:
        arrays = {name: stored[name] for name in stored.files}
    header = json.loads(str(arrays.pop("header")))
    header["code_version"] = "0" * 16
    other = tmp_path / "other.npz"
    np.savez(other, header=np.array(json.dumps(header)), **arrays)
    before = other.read_bytes()
    out = tmp_path / "out"
    cli = Path(sys.executable).with_name("pokerlab")
    done = subprocess.run([str(cli), "simulate", "--players", "20", "--payouts", "power:paid=3", "--play", "fullring",
                           "--chart-file", str(other), "--tournaments", "2", "--workers", "0", "--output", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "rebuild it" in done.stderr and "Traceback" not in done.stderr
    assert other.read_bytes() == before and not (out / "summary.json").exists()


def test_a_chart_file_without_fullring_play_is_refused():
    from pokerlab.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="fullring and fullring-tight play only"):
        simulate(None, "power:paid=3", players=12, play="rules", tournaments=2, seed=3, workers=0,
                 chart_file=CHART_FILE)
