"""Ranges in and out in the styles players paste: PioSOLVER (``AKs:0.5``), GTO+ (``[50]AKs[/50]``), one combo
per line or per comma (``AsKs: 0.5``); every export parses back to the range it came from."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from pokerlab.cards.classes import COMBOS, NUMBER_OF_COMBOS, combo_index
from pokerlab.cards.encoding import parse_cards
from pokerlab.cards.ranges import RANGE_STYLES, Range, parse_range
from pokerlab.cli.main import app
from pokerlab.errors import InvalidRangeError


def combos_of(*names: str) -> list[int]:
    return [combo_index(*parse_cards(name)) for name in names]


@pytest.mark.parametrize("seed", range(6))
def test_every_style_parses_back_to_the_same_range(seed):
    rng = np.random.default_rng(seed)
    weights = np.zeros(NUMBER_OF_COMBOS)
    chosen = rng.choice(NUMBER_OF_COMBOS, size=int(rng.integers(1, 400)), replace=False)
    weights[chosen] = rng.choice([1.0, 0.5, 0.25, 0.75, 0.1, 1 / 3], size=chosen.size)
    if seed % 2:  # whole classes too, so the compressed tokens (QQ+, A2s+) are exercised
        weights[[i for i, (a, b) in enumerate(COMBOS) if a // 4 == b // 4 and a // 4 >= 9]] = 1.0
    r = Range(weights)
    for style in RANGE_STYLES:
        back = parse_range(r.export(style))
        assert np.allclose(back.weights, r.weights, rtol=0, atol=1e-12), style
    assert parse_range(r.export("pio")) == r and parse_range(r.export("combos")) == r  # exactly


def test_gtoplus_brackets_and_pasted_lists_read_as_written():
    r = parse_range("[75]AA,KK[/75],QQ, [12.5]AsKs[/12.5]")
    expected = np.zeros(NUMBER_OF_COMBOS)
    pairs = {rank: [i for i, (a, b) in enumerate(COMBOS) if a // 4 == b // 4 == rank] for rank in (10, 11, 12)}
    expected[pairs[12] + pairs[11]] = 0.75
    expected[pairs[10]] = 1.0
    expected[combos_of("AsKs")] = 0.125
    assert np.array_equal(r.weights, expected)
    listed = parse_range("AsKs: 0.5\nAhKh: 1\r\n\nQdQc:0.25;\n")
    expected = np.zeros(NUMBER_OF_COMBOS)
    expected[combos_of("AsKs")] = 0.5
    expected[combos_of("AhKh")] = 1.0
    expected[combos_of("QdQc")] = 0.25
    assert np.array_equal(listed.weights, expected)


@pytest.mark.parametrize(("text", "message"), [
    ("[50AA", "unmatched bracket"),
    ("AA]", "unmatched bracket"),
    ("[x]AA[/x]", "a bracket weight is a percentage"),
    ("[150]AA[/150]", "a percentage from 0 to 100"),
    ("[50]AKx[/50]", "AKx:0.5"),
])
def test_bad_styles_say_what_to_write(text, message):
    with pytest.raises(InvalidRangeError, match=message.replace("[", r"\[")):
        parse_range(text)


def test_the_range_command_prints_each_style():
    runner = CliRunner()
    for style in RANGE_STYLES:
        result = runner.invoke(app, ["range", "QQ+, AKs:0.5", "--style", style])
        assert result.exit_code == 0 and result.output.strip() == parse_range("QQ+, AKs:0.5").export(style)
    result = runner.invoke(app, ["range", "QQ+", "--style", "holdem-manager"])
    assert result.exit_code == 2 and "expected one of pio, gtoplus, combos" in result.output
