"""The façade's stops (target, iterations, time, Ctrl-C keeping the solve), node views (frequencies, grids, EV
realisation) and lines through chance nodes."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.classes import CLASS_OF_COMBO, combo_index
from pokerlab.cards.encoding import parse_cards
from pokerlab.errors import Interrupted, InvalidArgumentError
from pokerlab.postflop import solve

RIVER = dict(board="Kh9d5c2s2h", oop="QQ, 99, AKo, T8s", ip="KK, JTs, 76s", pot=100, stack=150, bets="75%",
             raises="a")


def test_stops() -> None:
    assert solve(**RIVER, target=None, iterations=7).iterations == 7
    assert solve(**RIVER, target=None, iterations=None, time_limit=0.05).stop_reason == "time"
    reached = solve(**RIVER, target=1.0, iterations=5000)
    assert reached.stop_reason == "target" and reached.exploitability_percent <= 1.0
    assert reached.iterations % 10 == 0


def test_ctrl_c_keeps_the_solve() -> None:
    def stop(iteration: int, _: float) -> None:
        if iteration >= 30:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as caught:
        solve(**RIVER, target=1e-9, iterations=5000, progress=stop)
    partial = caught.value.partial
    assert partial.iterations == 30 and partial.stop_reason == "interrupted"
    again = solve(**RIVER, target=None, iterations=30)
    assert partial.exploitability == again.exploitability


def test_node_views_add_up() -> None:
    r = solve(**RIVER, target=None, iterations=300)
    root = r.root
    assert sum(root.frequencies.values()) == pytest.approx(1.0)
    # the root's EV averaged over deals is the result's EV
    assert root.to_dict()["ev"] == pytest.approx(r.ev[0], abs=1e-9)
    facing = r.node("check", "bet 75%")
    assert facing.description == "OOP check, IP bet 75: OOP to act, pot 100"
    # a grid cell is the weighted mean of its combos' frequency
    call = facing.actions.index("call")
    mask = [n.startswith("Q") for n in facing.hands]
    w = facing.weight[mask]
    expected = float(w @ facing.strategy[mask, call] / w.sum())
    cards = parse_cards(facing.hands[mask.index(True)])
    k = combo_index(cards[0], cards[1])
    row, column = divmod(int(CLASS_OF_COMBO[k]), 13)
    assert facing.grid("call")[row, column] == pytest.approx(expected)
    assert np.isnan(facing.grid("call")[0, 0])  # AA is in no range
    # EV realisation: EV over equity times the pot, per hand
    ok = np.isfinite(facing.ev) & (facing.equity > 0)
    assert np.allclose(facing.realisation[ok], facing.ev[ok] / (facing.equity[ok] * facing.pot))
    with pytest.raises(InvalidArgumentError, match="no action 'raise 3x' here"):
        r.node("check", "raise 3x")
    with pytest.raises(InvalidArgumentError, match="IP cannot hold AsAd"):
        r.node("check").hand("AsAd")
