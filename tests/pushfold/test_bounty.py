"""Push/fold with knockout bounties against oracles written here: a heads-up ICM table with a field and bounties
whose outcome payoffs (ICM by enumerating finishing orders, bounties paid in the hand, future bounties by
enumerating orders and busters) and best responses (on the exact class tables) are computed independently;
bounty money conserved at every outcome; the bounty settled by side pots; calls widen against covered stacks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pokerlab.equity.preflop import preflop_tables
from pokerlab.errors import InvalidArgumentError
from pokerlab.games.pushfold import Table
from pokerlab.games.pushfold.game import Bounties, settle_bounties
from pokerlab.pushfold import pushfold
from pokerlab.pushfold.situation import build_game

PAYOUTS = [50.0, 30.0, 20.0]
FIELD = [15.0, 15.0]


def money_after(stacks: list[float], heads: list[float], share: float) -> np.ndarray:
    """Prize money plus future bounties of each player with chips (0 for a busted one, who is last): every
    Malmuth-Harville order enumerated with every buster assignment, the heads growing as busts are played out."""
    n = len(stacks)
    alive = [i for i in range(n) if stacks[i] > 0]
    total = np.zeros(n)
    for order in itertools.permutations(alive):
        p, left = 1.0, sum(stacks)
        for player in order:
            p *= stacks[player] / left
            left -= stacks[player]
        for place, player in enumerate(order):
            total[player] += p * (PAYOUTS[place] if place < len(PAYOUTS) else 0.0)
        choices = [range(m) for m in range(1, len(order))]
        count = math.prod(len(c) for c in choices)
        for busters in itertools.product(*choices):
            head = list(heads)
            for place in range(len(order) - 1, 0, -1):
                busted, buster = order[place], order[busters[place - 1]]
                total[buster] += p / count * share * head[busted]
                head[buster] += (1 - share) * head[busted]
            total[order[0]] += p / count * head[order[0]]
    return total


def heads_up_payoffs(sb: float, bb: float, head: float, share: float) -> dict[str, np.ndarray]:
    """Each outcome's payoff (SB, BB) at blinds 0.5/1 with the field, by the bounty rules written out."""
    def row(final_sb: float, final_bb: float, won: tuple[float, float] = (0.0, 0.0),
            heads: tuple[float, float] = (head, head)) -> np.ndarray:
        value = money_after([final_sb, final_bb, *FIELD], [*heads, head, head], share)
        return value[:2] + np.array(won)

    return {"sb_folds": row(sb - 0.5, bb + 0.5), "bb_folds": row(sb + 1.0, bb - 1.0),
            "sb_wins": row(2 * sb, bb - sb), "tie": row(sb, bb),
            # the BB covers the SB: busting him wins share of his head now, the rest onto the BB's head
            "bb_wins": row(0.0, bb + sb, (0.0, share * head), (0.0, head + (1 - share) * head))}


def independent_gains(result, u: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(values, best-response gains) of the SB and the BB from the class tables: joint class probabilities,
    and the SB's win / tie / loss probabilities per pair of classes."""
    t = preflop_tables()
    size = t.class_size
    joint = size[:, None] * t.class_pairs / (1326.0 * 1225.0)
    win = size[:, None] * t.class_win / (1326.0 * 1225.0)
    tie = size[:, None] * t.class_tie / (1326.0 * 1225.0)
    lose = joint - win - tie
    x, y = result.jam[0], result.call[(1, 0)]
    shown = [(win, u["sb_wins"]), (tie, u["tie"]), (lose, u["bb_wins"])]
    called = [sum(prob * pay[s] for prob, pay in shown) for s in (0, 1)]  # (A, B) payoff mass when called
    # SB class A: fold, or jam against the BB's calls
    fold_sb = size / 1326.0 * u["sb_folds"][0]
    jam_sb = joint @ (1 - y) * u["bb_folds"][0] + called[0] @ y
    sb_value = x @ jam_sb + (1 - x) @ fold_sb
    sb_best = np.maximum(jam_sb, fold_sb).sum()
    # BB class B: walks when the SB folds; facing a jam, folds or calls
    walk = (1 - x) @ joint * u["sb_folds"][1]
    fold_bb = x @ joint * u["bb_folds"][1]
    call_bb = x @ called[1]
    bb_value = (walk + (1 - y) * fold_bb + y * call_bb).sum()
    bb_best = (walk + np.maximum(fold_bb, call_bb)).sum()
    return np.array([sb_value, bb_value]), np.array([sb_best - sb_value, bb_best - bb_value])


@pytest.mark.parametrize("share", [1.0, 0.5])
def test_heads_up_bounty_solve_against_an_independent_best_response(share: float) -> None:
    result = pushfold([6.0, 20.0], payouts=PAYOUTS, field=FIELD, bounty=10.0, pko=share if share < 1 else False)
    values, gains = independent_gains(result, heads_up_payoffs(6.0, 20.0, 10.0, share))
    np.testing.assert_allclose(result.values, values, rtol=0, atol=1e-9)
    np.testing.assert_allclose(result.gains, gains, rtol=0, atol=1e-9)
    assert max(gains) <= result.target
    assert result.to_dict()["bounty"] == {"heads": [10.0, 10.0], "share": share,
                                          "format": "knockout" if share == 1 else "pko"}


def test_calls_widen_against_a_covered_stack() -> None:
    plain = pushfold([6.0, 20.0], payouts=PAYOUTS, field=FIELD)
    bounty = pushfold([6.0, 20.0], payouts=PAYOUTS, field=FIELD, bounty=10.0)
    pko = pushfold([6.0, 20.0], payouts=PAYOUTS, field=FIELD, bounty=10.0, pko=True)
    calls = [r.percent(r.call[(1, 0)]) for r in (plain, pko, bounty)]
    # 35.5% -> 47.0% (PKO: half the head in cash) -> 72.8% (knockout) of hands call the covered jammer
    assert calls[0] + 5 < calls[1] and calls[1] + 5 < calls[2], calls


def test_heads_up_chip_ev_bounty_is_chip_ev_rescaled() -> None:
    # heads-up a knockout goes with the chips: the payoff is the chip EV one times 1 + (heads) / (chips)
    plain = pushfold([10.0, 10.0])
    bounty = pushfold([10.0, 10.0], bounty=2.0)
    assert bounty.values[0] == pytest.approx(plain.values[0] * (1 + 4.0 / 20.0), abs=1e-4)
    assert sum(bounty.values) == pytest.approx(0.0, abs=1e-12)
    assert plain.percent(plain.jam[0]) == pytest.approx(bounty.percent(bounty.jam[0]), abs=0.5)


@pytest.mark.parametrize("payouts, share", [(None, 1.0), ([50.0, 30.0, 20.0], 1.0), ([50.0, 30.0, 20.0], 0.5)])
def test_money_is_conserved_at_every_outcome(payouts: list[float] | None, share: float) -> None:
    heads = (3.0, 1.0, 2.0, 4.0)
    game, model, _ = build_game(Table((4.0, 9.0, 6.0, 12.0), 0.5, 1.0), payouts,
                                bounties=Bounties(heads, share), multiway_samples=10)
    expected = 0.0 if payouts is None else 100.0 + sum(heads)
    for terminal in game.terminals.values():
        np.testing.assert_allclose(terminal.utilities.sum(axis=1), expected, rtol=0, atol=1e-9)


def test_side_pots_pay_the_bounty_to_the_winner_of_the_busted_seats_top_pot() -> None:
    stacks = np.array([5.0, 10.0, 20.0])
    pot_seats = np.array([0b111, 0b110, 0b100])  # main pot, a side pot of seats 1 and 2, seat 2's own chips
    heads = Bounties((1.0, 2.0, 4.0), 0.5)
    # seat 0 wins the main pot (15 chips) and seat 2 the side pot: seat 1 is busted by seat 2
    won, after = settle_bounties(stacks, np.array([15.0, 0.0, 20.0]), np.array([3, 1, 2]), pot_seats, heads)
    assert won.tolist() == [0.0, 0.0, 1.0] and after.tolist() == [1.0, 0.0, 5.0]
    # seat 1 wins the main and side pots: seat 0's bounty is his, seat 2 keeps chips
    won, after = settle_bounties(stacks, np.array([0.0, 25.0, 10.0]), np.array([1, 3, 2]), pot_seats, heads)
    assert won.tolist() == [0.0, 0.5, 0.0] and after.tolist() == [0.0, 2.5, 4.0]
    # seats 1 and 2 tie over seat 0: the split pots split his bounty
    won, after = settle_bounties(np.array([5.0, 10.0, 10.0]), np.array([0.0, 12.5, 12.5]), np.array([0, 2, 2]),
                                 np.array([0b111, 0b110]), Bounties((2.0, 2.0, 2.0), 1.0))
    assert won.tolist() == [0.0, 1.0, 1.0] and after.tolist() == [0.0, 2.0, 2.0]


@pytest.mark.parametrize("kwargs, message", [
    ({"bounty": -1.0}, "bounties must be >= 0"),
    ({"bounty": [1.0, 2.0, 3.0]}, "3 bounties for 2 players"),
    ({"pko": True}, "a progressive knockout (pko) needs bounties"),
    ({"bounty": 1.0, "pko": 2.0}, "the PKO share"),
])
def test_bad_bounties_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pushfold([10.0, 10.0], **kwargs)


def test_three_seats_real_game_values_sum_to_the_pool_and_the_bounties() -> None:
    result = pushfold([12.0, 8.0, 10.0], payouts=PAYOUTS, bounty=[5.0, 2.0, 3.0], pko=True, real_game_deals=5_000)
    assert result.real_game is not None and result.real_game.pool == pytest.approx(110.0, abs=1e-9)
    assert sum(result.values) == pytest.approx(110.0, abs=1e-9)
    assert result.max_gain <= result.target
