"""The push/fold solver's game and the tournament simulator play by one set of hand rules
(:mod:`pokerlab.games.pushfold.rules`): on hand-made deals (side pots with several callers and antes, a short big
blind with a big-blind ante, a blind covering a short jam, a split pot, a folded blind above the only stack in
the hand) the simulator's hand ends with the chips counted by hand here, and that is one of the outcomes of the
game's terminal for the same actions."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.encoding import parse_cards
from pokerlab.cards.tables import load_tables
from pokerlab.games.base import FOLD
from pokerlab.games.pushfold import JAM, PushFoldGame, Table
from pokerlab.simulation.kernels import Charts, replay_hand

# stacks (acting order: UTG .. BTN, SB, BB), blinds, ante, big-blind ante, the game's actions (decision seats in
# order), hole cards by seat, board, and the chips after the hand counted by hand
CASES = {
    "side pots, three callers, antes": (
        [2000, 500, 1200, 3000], (50, 100), 10, 0, (JAM, JAM, JAM, JAM),
        ["QsQh", "AsAh", "KsKh", "7d2s"], "3c8d9hJc4c",
        # dead 40; levels 490 / 1190 / 1990 / 2990: pots 2000 (all), 2100 (UTG, SB, BB), 1600 (UTG, BB), 1000 (BB)
        [1600, 2000, 2100, 1000]),
    "short big blind with a big-blind ante": (
        [3000, 3000, 150], (50, 100), 0, 100, (JAM, FOLD),
        ["7d2s", "8h3c", "AsAh"], "3d8s9hJc4c",
        # the big blind posts his blind (100, live), then 50 of ante (dead): main pot 100 + 50 + 100 + 50 = 300
        [2900, 2950, 300]),
    "a big blind covering a short jam": (
        [80, 3000, 3000], (50, 100), 0, 0, (JAM, FOLD, JAM),
        ["AsAh", "8h3c", "7d2s"], "3d8s9hJc4c",
        # main pot 80 + 50 + 80; the big blind's 20 above the jam (or his all-in call) come back to him
        [210, 2950, 2920]),
    "a split pot heads-up": (
        [1000, 1000], (50, 100), 0, 0, (JAM, JAM),
        ["2c3d", "4h5d"], "AsKsQdJhTc",
        [1000, 1000]),
    "a folded small blind above the only stack in the hand": (
        [3000, 3000, 30], (50, 100), 0, 0, (FOLD, FOLD),
        ["7d2s", "8h3c", "AsAh"], "3d8s9hJc4c",
        # the big blind is all in by posting 30: he wins 30 from the small blind, whose other 20 come back
        [3000, 2970, 60]),
}


def simulated(stacks, blinds, ante, bb_ante, actions, hole, board, callers):
    """The simulator's hand: the seats' charts script the actions (1 or 0 for every class)."""
    n = len(stacks)
    game = PushFoldGame(Table(tuple(map(float, stacks)), *map(float, blinds), float(ante), float(bb_ante)),
                        lambda final: final)
    jam = np.zeros((n, 1, 169))
    call = np.zeros((n, 1, 169))
    jammed = False
    for seat, action in zip(game.decision_seats, actions, strict=True):
        (call if jammed else jam)[seat] = float(action == JAM)
        jammed = jammed or action == JAM
    cards = np.full(25, -1, dtype=np.int64)
    for seat, text in enumerate(hole):
        cards[2 * seat: 2 * seat + 2] = parse_cards(text)
    cards[20:25] = parse_cards(board)
    button = 0 if n == 2 else n - 3  # the simulator's action order is then the seat order
    return replay_hand(np.array(stacks, dtype=np.int64), np.arange(n, dtype=np.int64), button, blinds[0], blinds[1],
                       bb_ante or ante, bb_ante > 0, callers, Charts(jam, call), load_tables(), cards), game


@pytest.mark.parametrize("name", list(CASES))
def test_the_simulator_and_the_game_settle_a_hand_alike(name):
    stacks, blinds, ante, bb_ante, actions, hole, board, expected = CASES[name]
    final, game = simulated(stacks, blinds, ante, bb_ante, actions, hole, board, callers=len(stacks))
    assert final.tolist() == expected
    outcomes = game.final_stacks_of(actions)
    assert np.any(np.all(outcomes == np.array(expected, dtype=float), axis=1)), outcomes


def test_one_caller_closes_the_action():
    # the play models' option: after the button's call the blinds fold without acting
    stacks, blinds, ante, bb_ante, actions, hole, board, _ = CASES["side pots, three callers, antes"]
    final, _ = simulated(stacks, blinds, ante, bb_ante, actions, hole, board, callers=1)
    # UTG 1990 live against the button's 490: main pot 490 + 490 + 50 + 100 + 40 of antes to the button
    assert final.tolist() == [1500, 1170, 1140, 2890]
