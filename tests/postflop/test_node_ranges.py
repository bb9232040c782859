"""A solve node's range, as players export it: at the root it is the dealt range less the board; split by the
actions it adds back up; the part taking an action is the range the next node starts with; its text in every
style parses back to it; a bad action is one line."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.encoding import cards_to_mask, parse_cards
from pokerlab.cards.ranges import RANGE_STYLES, parse_range
from pokerlab.cli.main import app
from pokerlab.errors import InvalidArgumentError
from pokerlab.postflop import solve

RIVER = dict(board="Kh9d5c2s2h", oop="QQ, 99, AKo:0.5, T8s", ip="KK, JTs, 76s", pot=100, stack=150, bets="75%",
             raises="a")


@pytest.fixture(scope="module")
def solved():
    return solve(**RIVER, target=None, iterations=200)


def test_ranges_at_nodes_follow_the_strategy(solved):
    board = cards_to_mask(parse_cards(RIVER["board"]))
    root = solved.root
    assert np.array_equal(root.range().weights, parse_range(RIVER["oop"]).without(board).weights)
    parts = [root.range(action).weights for action in root.actions]
    assert np.allclose(sum(parts), root.range().weights, rtol=0, atol=1e-12)  # every hand does something
    # OOP checks, IP bets: OOP acts again, holding the part of its range that checked
    again = solved.node("check", solved.node("check").actions[1])
    assert again.player == 0 and again.kind == "decision"
    assert np.allclose(again.range().weights, root.range("check").weights, rtol=0, atol=1e-12)
    with pytest.raises(InvalidArgumentError, match="the actions are check, bet 75, all-in 150"):
        root.range("bet 50%")


def test_node_ranges_export_in_every_style(solved):
    part = solved.root.range("check")
    for style in RANGE_STYLES:
        assert np.allclose(parse_range(part.export(style)).weights, part.weights, rtol=0, atol=1e-12)


def test_show_prints_a_node_range(tmp_path, solved):
    path = solved.save(tmp_path / "spot.npz")
    runner = CliRunner()
    result = runner.invoke(app, ["postflop", "show", str(path), "--range", "check", "--style", "gtoplus"])
    assert result.exit_code == 0, result.output
    assert np.allclose(parse_range(result.output.strip()).weights, solved.root.range("check").weights, atol=1e-9)
    bad = runner.invoke(app, ["postflop", "show", str(path), "--range", "raise"])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1 and "the actions are" in bad.output
