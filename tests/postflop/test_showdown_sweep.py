"""The showdown sweep (:func:`showdown_values`) against a brute force over every pair of compatible hands, on
river boards whose strength groups both have and lack opponent hands of the same strength (the sweep takes a
shorter path for the latter)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.encoding import parse_cards
from pokerlab.cards.evaluator import evaluate
from pokerlab.games.postflop.kernels import showdown_values
from pokerlab.postflop import build_game

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


@pytest.mark.parametrize("board", ["Td9d6hQc2s", "AhKhQh7c7d", "5c5d5h9s9c"])
def test_showdown_values_against_brute_force(board: str) -> None:
    game, _ = build_game(board, OOP, IP, pot=200, stack=900, bets="50%", raises="a")
    hands = game.hands
    table = [int(c) for c in parse_cards(board)]
    rng = np.random.default_rng(11)
    groups_tied = groups_alone = 0
    for p in range(2):
        o = 1 - p
        opp = hands.weights[o] * rng.uniform(0.0, 1.0, hands.weights.shape[1])
        opp[rng.uniform(0.0, 1.0, opp.size) < 0.2] = 0.0  # some hands never reach the showdown
        got = showdown_values(hands, 0, p, opp, 3.5)
        strength: dict[tuple[int, int], int] = {}  # -1: blocked by the board (the evaluator's values are >= 1)
        for q in range(2):
            for k in range(hands.sizes[q]):
                cards = [int(c) for c in hands.cards[q, k]]
                strength[q, k] = -1 if set(cards) & set(table) else int(evaluate(cards + table))
        expected = np.zeros(hands.sizes[p])
        for i in range(hands.sizes[p]):
            if strength[p, i] < 0:
                continue
            mine = set(int(c) for c in hands.cards[p, i])
            for j in range(hands.sizes[o]):
                if strength[o, j] < 0 or mine & set(int(c) for c in hands.cards[o, j]):
                    continue
                expected[i] += opp[j] * np.sign(strength[p, i] - strength[o, j])
        np.testing.assert_allclose(got, 3.5 * expected, rtol=1e-12, atol=1e-9)
        theirs = {strength[o, j] for j in range(hands.sizes[o])} - {-1}
        for s in {strength[p, i] for i in range(hands.sizes[p])} - {-1}:
            if s in theirs:
                groups_tied += 1
            else:
                groups_alone += 1
    assert groups_tied > 0 and groups_alone > 0  # both of the sweep's paths are taken
