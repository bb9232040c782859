"""Knockout bounties (pokerlab.icm.bounty) against independent oracles: HoldemResources' published five-player
example, a brute force over finishing orders and busters written here (Malmuth-Harville order probabilities
enumerated directly, each buster assignment played out with the heads growing), conservation, symmetry, and the
sampled path against the exact one."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError, PokerlabError
from pokerlab.icm import bounty_equity

# HoldemResources Calculator, "Bounty / KO tournaments" help: stacks 10/20/30/40/50, bounty 1 on every head;
# the published expected bounties (4 decimals, truncated)
HRC_STACKS = [10, 20, 30, 40, 50]
HRC_EXPECTED = [0.4143, 0.7684, 1.0475, 1.2822, 1.4874]


def brute_force(stacks: list[float], heads: list[float], share: float) -> np.ndarray:
    """Every finishing order with its Malmuth-Harville probability, and for each every assignment of busters (the
    player in place m busted by any of the m - 1 ahead, equally likely), busts played out from the last place
    up: the buster takes ``share`` of the head in cash and the rest onto his head; the winner keeps his."""
    n = len(stacks)
    won = np.zeros(n)
    for order in itertools.permutations(range(n)):
        p = 1.0
        left = float(sum(stacks))
        for player in order:
            p *= stacks[player] / left
            left -= stacks[player]
        choices = [range(m) for m in range(1, n)]  # buster (an index into order) of places 2..n
        count = math.prod(len(c) for c in choices)
        for busters in itertools.product(*choices):
            head = list(heads)
            cash = np.zeros(n)
            for place in range(n - 1, 0, -1):  # the last place is busted first
                busted, buster = order[place], order[busters[place - 1]]
                cash[buster] += share * head[busted]
                head[buster] += (1 - share) * head[busted]
                head[busted] = 0.0
            cash[order[0]] += head[order[0]]
            won += p / count * cash
    return won


def test_holdem_resources_published_example() -> None:
    got = bounty_equity(HRC_STACKS, 1.0).equity
    # the published figures are truncated to 4 decimals: each lies within 1e-4 below ours
    assert [math.floor(x * 1e4) / 1e4 for x in got] == HRC_EXPECTED
    assert np.all(got - np.array(HRC_EXPECTED) < 1e-4)


@pytest.mark.parametrize("stacks, heads, share", [
    ([10, 20, 30, 40, 50], [1, 1, 1, 1, 1], 1.0),
    ([10, 20, 30, 40, 50], [1, 1, 1, 1, 1], 0.5),
    ([7, 3, 12], [2, 5, 1], 0.5),
    ([1, 4, 2, 9], [3, 0, 1, 2], 0.3),
    ([5, 5, 8, 1, 3], [1, 4, 2, 2, 7], 0.75),
])
@pytest.mark.parametrize("method", ["auto", "exact"])  # plain numpy and the compiled kernel
def test_exact_matches_brute_force(stacks: list[float], heads: list[float], share: float, method: str) -> None:
    got = bounty_equity(stacks, heads, share=share, method=method).equity
    np.testing.assert_allclose(got, brute_force(stacks, heads, share), rtol=0, atol=1e-12)


def test_plain_numpy_and_kernel_agree_on_a_final_table() -> None:
    stacks, heads = np.linspace(1.0, 4.0, 10), np.linspace(3.0, 1.0, 10)
    for share in (1.0, 0.5):
        plain = bounty_equity(stacks, heads, share=share).equity
        compiled = bounty_equity(stacks, heads, share=share, method="exact").equity
        np.testing.assert_allclose(plain, compiled, rtol=1e-13, atol=0)


@pytest.mark.parametrize("share", [1.0, 0.5, 0.2])
def test_conservation_and_symmetry(share: float) -> None:
    stacks = [3.0, 8.0, 3.0, 5.0, 0.0, 11.0, 2.0]
    heads = [2.0, 1.0, 2.0, 4.0, 9.0, 1.0, 3.0]
    got = bounty_equity(stacks, heads, share=share).equity
    assert got.sum() == pytest.approx(sum(heads) - 9.0, abs=1e-12)  # the busted player's head is out of play
    assert got[4] == 0.0
    assert got[0] == pytest.approx(got[2], abs=1e-14)  # equal stacks and heads
    permuted = [5, 1, 0, 6, 4, 3, 2]
    again = bounty_equity([stacks[i] for i in permuted], [heads[i] for i in permuted], share=share).equity
    np.testing.assert_allclose(again, got[permuted], atol=1e-13)


def test_equal_stacks_closed_form() -> None:
    # n equal stacks, a knockout of 1 each: by symmetry everyone expects 1 back
    np.testing.assert_allclose(bounty_equity([4.0] * 6, 1.0).equity, np.ones(6), atol=1e-13)
    # heads-up: the bigger stack wins with probability s / total and then holds both heads
    got = bounty_equity([3.0, 1.0], [2.0, 5.0], share=0.5).equity
    np.testing.assert_allclose(got, [0.75 * 7, 0.25 * 7], atol=1e-14)


def test_sampled_matches_exact_within_four_standard_errors() -> None:
    stacks, heads = [2.0, 9.0, 4.0, 4.0, 1.0, 7.0], [1.0, 2.0, 1.0, 3.0, 1.0, 1.0]
    for share in (1.0, 0.5):
        exact = bounty_equity(stacks, heads, share=share).equity
        sampled = bounty_equity(stacks, heads, share=share, method="montecarlo", samples=40_000, seed=7)
        assert sampled.stderr is not None and sampled.samples == 40_000
        assert np.all(np.abs(sampled.equity - exact) < 4 * sampled.stderr)
        assert sampled.equity.sum() == pytest.approx(sum(heads), abs=1e-9)  # conserved in every sample


def test_auto_samples_a_big_field() -> None:
    result = bounty_equity(np.linspace(1, 3, 30), 1.0, samples=2_000, seed=1)
    assert result.method == "montecarlo" and not result.exact
    assert result.equity.sum() == pytest.approx(30.0, abs=1e-9)
    assert result.to_dict()["samples"] == 2_000


@pytest.mark.parametrize("bounties, share, message", [
    (-1.0, 1.0, "bounties must be >= 0, player 1 has -1"),
    ([1, 2], 1.0, "2 bounties for 3 players"),
    ([1, float("nan"), 1], 1.0, "finite"),
    (1.0, 0.0, "PKO share"),
    (1.0, 1.5, "PKO share"),
])
def test_bad_bounties(bounties: object, share: float, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        bounty_equity([1, 2, 3], bounties, share=share)


def test_exact_refuses_a_big_field() -> None:
    with pytest.raises(PokerlabError, match="at most 18 live players"):
        bounty_equity(np.ones(19), 1.0, method="exact")


def test_cli_reports_bounty_equity_with_and_without_payouts(tmp_path) -> None:
    import json

    from typer.testing import CliRunner

    from pokerlab.cli.main import app

    runner = CliRunner()
    alone = runner.invoke(app, ["icm", "--stacks", "10,20,30,40,50", "--bounty", "1", "--json"])
    assert alone.exit_code == 0, alone.output
    got = [p["bounty_equity"] for p in json.loads(alone.output)["players"]]
    assert [math.floor(x * 1e4) / 1e4 for x in got] == HRC_EXPECTED
    both = runner.invoke(app, ["icm", "--stacks", "10,20,30,40,50", "--bounty", "1", "--payouts", "50,30,20", "--json"])
    players = json.loads(both.output)["players"]
    assert [p["bounty_equity"] for p in players] == pytest.approx(got, abs=1e-15)
    assert sum(p["equity"] for p in players) == pytest.approx(100.0)
    # per-player bounties from a stacks file's last column, as a progressive knockout
    (tmp_path / "lobby.txt").write_text("alice 5,000 10\nbob 3,000 12.5\ncarol 2,000 7\n")
    pko = runner.invoke(app, ["icm", "--stacks-file", str(tmp_path / "lobby.txt"), "--bounty-column", "--pko",
                              "--json"])
    data = json.loads(pko.output)
    assert data["bounty"]["share"] == 0.5 and [p["name"] for p in data["players"]] == ["alice", "bob", "carol"]
    expected = brute_force([5000, 3000, 2000], [10, 12.5, 7], 0.5)
    assert [p["bounty_equity"] for p in data["players"]] == pytest.approx(expected.tolist(), abs=1e-12)
    table = runner.invoke(app, ["icm", "--stacks", "10,20,30,40,50", "--bounty", "1", "--payouts", "50,30,20"])
    assert "bounty" in table.output and "1.4874" in table.output and "30.8003" in table.output


def test_sampled_standard_errors_are_honest() -> None:
    # the spread of the means over 12 seeds against the reported standard errors (same count each time)
    stacks, heads = [2.0, 9.0, 4.0, 1.0, 7.0], [1.0, 2.0, 1.0, 3.0, 1.0]
    runs = [bounty_equity(stacks, heads, share=0.5, method="montecarlo", samples=4_000, seed=seed)
            for seed in range(12)]
    spread = np.std([r.equity for r in runs], axis=0, ddof=1)
    reported = np.mean([r.stderr for r in runs], axis=0)
    # an honest standard error puts this ratio (a chi distribution with 11 degrees of freedom, scaled) in
    # [0.4, 1.7] with probability 0.998 per player; an error off by a factor 2 would leave it there rarely
    assert np.all((spread / reported > 0.4) & (spread / reported < 1.7)), spread / reported
