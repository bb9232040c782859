"""The simulator against independent oracles: the gambler's-ruin Markov chain, the martingale P(win) = stack
share, conservation and balancing invariants, and the exact EV of push/fold charts heads-up."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

from pokerlab.cards.classes import CLASS_SIZES, class_index, class_of_cards
from pokerlab.cards.tables import load_tables
from pokerlab.equity import equity
from pokerlab.simulation import simulate
from pokerlab.simulation.charts import rules_chart
from pokerlab.simulation.kernels import CLASSES, Charts, play_hands


def gamblers_ruin_places(stacks: tuple[int, int, int]) -> np.ndarray:
    """Exact finish-place probabilities of three players who flip a fair coin for one chip, a uniformly random
    pair of the players still in each hand: a Markov chain on (a, b, c), solved with scipy.sparse.

    While three are in, the transient states are all (a, b, c) >= 1 summing to N. When player j busts he is
    third; the other two are then heads-up and, by the gambler's ruin, a player with y chips wins with
    probability y / N (that is the chain's own two-player solution: a linear harmonic function)."""
    total = sum(stacks)
    states = [(a, b, total - a - b) for a in range(1, total) for b in range(1, total - a) if total - a - b >= 1]
    index = {s: i for i, s in enumerate(states)}
    size = len(states)
    q = scipy.sparse.lil_matrix((size, size))
    reward = np.zeros((size, 3, 3))  # reward[state, player, place]: one-step absorption probability into it
    for s, i in index.items():
        for x, y in itertools.combinations(range(3), 2):
            for winner, loser in ((x, y), (y, x)):
                p = (1 / 3) * 0.5
                nxt = list(s)
                nxt[winner] += 1
                nxt[loser] -= 1
                if nxt[loser] > 0:
                    q[i, index[tuple(nxt)]] += p
                    continue
                reward[i, loser, 2] += p
                for other in range(3):
                    if other != loser:
                        reward[i, other, 0] += p * nxt[other] / total
                        reward[i, other, 1] += p * (1 - nxt[other] / total)
    system = (scipy.sparse.identity(size) - q.tocsc()).tocsc()
    solution = scipy.sparse.linalg.spsolve(system, reward.reshape(size, 9))
    return np.asarray(solution[index[tuple(stacks)]]).reshape(3, 3)


def test_three_player_coin_flip_matches_the_gamblers_ruin_chain():
    exact = gamblers_ruin_places((5, 3, 2))
    assert np.allclose(exact.sum(axis=1), 1) and np.allclose(exact.sum(axis=0), 1)
    assert np.allclose(exact[:, 0], [0.5, 0.3, 0.2])  # the martingale, from the chain itself
    r = simulate([5, 3, 2], [600, 400], bet=1, tournaments=40_000, seed=11, workers=0)
    z = (r.places - exact) / np.maximum(r.places_stderr, 1e-9)
    assert np.all(np.abs(z) < 4), z
    exact_equity = exact[:, :2] @ np.array([600.0, 400.0])
    assert np.all(np.abs(r.equity - exact_equity) < 4 * r.equity_stderr)
    # the test can fail: ICM's equities differ from the chain's by more than the Monte Carlo error
    assert np.any(np.abs(r.icm - exact_equity) > 4 * r.equity_stderr)


@pytest.mark.parametrize("bet", [0, 1])
def test_heads_up_coin_flip_wins_with_the_stack_share(bet):
    r = simulate([7, 3], [1], bet=bet, tournaments=20_000, seed=5, workers=0)
    assert abs(r.places[0, 0] - 0.7) < 4 * r.places_stderr[0, 0]


def test_multi_table_coin_flip_wins_with_the_stack_share():
    stacks = np.array([40, 5, 30, 12, 8, 25, 60, 7, 3, 10, 20, 15, 35, 9, 1, 50, 22, 18, 6, 4], dtype=np.int64)
    r = simulate(stacks, [50, 30, 20], table_size=6, tournaments=20_000, seed=7, workers=0)
    share = stacks / stacks.sum()
    z = (r.places[:, 0] - share) / r.places_stderr[:, 0]
    assert np.all(np.abs(z) < 4.5), z
    assert r.checks == {"max_table_spread": 1, "chip_errors": 0, "table_errors": 0}


@pytest.mark.parametrize("play", ["coinflip", "rules"])
def test_conservation_and_balancing(play):
    payouts = [30.0, 20.0, 15.0, 10.0, 10.0, 8.0, 7.0]
    r = simulate(players=137, starting_stack=3000, table_size=8, payouts=payouts, play=play, tournaments=30,
                 seed=3, workers=0, records=True, snapshots=(100, 20, 8))
    assert r.checks["chip_errors"] == 0  # chips conserved every round
    assert r.checks["max_table_spread"] <= 1  # never two tables two or more apart after balancing
    assert r.checks["table_errors"] == 0  # never more tables than the players left need
    places = r.records["places"]
    assert np.all(np.sort(places, axis=1) == np.arange(1, 138))  # a permutation of the places
    assert np.isclose(r.equity @ r.tournament.group_size, sum(payouts))  # prizes sum to the pool
    snaps = r.records["snap_stacks"]
    assert np.all(snaps.sum(axis=2) == 137 * 3000)
    assert np.all((snaps > 0).sum(axis=2) <= np.array([100, 20, 8]))
    # a snapshot holds exactly the players who finish better than the players left at that moment
    for t in range(places.shape[0]):
        for s in range(3):
            alive = snaps[t, s] > 0
            assert places[t, alive].max() == alive.sum()


def test_mixed_field_is_summarised_per_play_model():
    r = simulate(players=90, starting_stack=2000, payouts="power:paid=12", play="rules:0.7,tight:0.3",
                 tournaments=60, seed=2, workers=0)
    rows = r.to_dict()["players"]
    assert [(p["play"], p["count"]) for p in rows] == [("rules", 63), ("tight", 27)]
    assert np.isclose(r.equity @ r.tournament.group_size, 1000.0)
    assert r.checks["chip_errors"] == 0


def test_same_seed_same_tournaments_whatever_the_workers():
    kwargs = {"players": 60, "starting_stack": 1000, "payouts": "power:paid=9", "play": "rules", "tournaments": 40,
              "seed": 9, "records": True}
    a = simulate(workers=0, **kwargs)
    b = simulate(workers=2, **kwargs)
    assert np.array_equal(a.records["places"], b.records["places"])
    assert np.array_equal(a.equity, b.equity) and np.array_equal(a.places, b.places)
    c = simulate(workers=0, **{**kwargs, "seed": 10})
    assert not np.array_equal(a.records["places"], c.records["places"])


def _class_set_chart(classes: list[str], buckets: int = 20) -> np.ndarray:
    row = np.zeros(CLASSES)
    row[[class_index(c) for c in classes]] = 1.0
    return np.broadcast_to(row, (1, buckets, CLASSES)).copy()


def test_heads_up_push_fold_ev_matches_the_exact_chart_ev():
    """SB jams {AA, KK, QQ, AKs} and the BB calls with {AA, KK, AKo} at 10 bb: the exact EV is a sum over the
    1,326 x 1,225 deals, with the all-in equity of the two ranges from the exact equity engine."""
    jam_classes, call_classes = ["AA", "KK", "QQ", "AKs"], ["AA", "KK", "AKo"]
    charts = Charts(_class_set_chart(jam_classes), _class_set_chart(call_classes))
    stack, sb, bb = 1000, 50, 100
    # exact: count the deals of each kind
    combos = [(a, b) for a in range(52) for b in range(a + 1, 52)]
    klass = np.array([class_of_cards(a, b) for a, b in combos])
    jam = np.isin(klass, [class_index(c) for c in jam_classes])
    call = np.isin(klass, [class_index(c) for c in call_classes])
    ev_fold_sb, ev_steal, showdown_pairs = 0.0, 0.0, 0
    for i, (a, b) in enumerate(combos):
        if not jam[i]:
            ev_fold_sb += -sb * 1225
            continue
        for j, (c, d) in enumerate(combos):
            if len({a, b, c, d}) < 4:
                continue
            if call[j]:
                showdown_pairs += 1
            else:
                ev_steal += bb
    range_equity = equity([",".join(jam_classes), ",".join(call_classes)], method="exact").equity[0]
    ev = (ev_fold_sb + ev_steal + showdown_pairs * stack * (2 * range_equity - 1)) / (1326 * 1225)
    hands = 400_000
    total, squares = np.zeros(2), np.zeros(2)
    play_hands(np.array([stack, stack], dtype=np.int64), np.zeros(2, dtype=np.int64), 0, sb, bb, 0, False, 1, charts,
               load_tables(), 21, hands, total, squares)
    mean = total[0] / hands
    stderr = np.sqrt((squares[0] / hands - mean**2) / hands)
    assert total.sum() == 0  # zero-sum, chip for chip
    assert abs(mean - ev) < 4 * stderr, (mean, ev, stderr)
    assert abs(ev - (-sb)) > 8 * stderr  # the charts' EV is far from always folding: the test can fail


def test_rules_chart_jams_the_stated_share():
    chart = rules_chart()
    combos = CLASS_SIZES
    for depth in (1, 5, 10, 20, 40):
        share = (chart.jam[0, depth - 1] * combos).sum() / 1326
        assert np.isclose(share, min(1.0, 2.5 / depth))


def _chain_equity(stacks: list[float], payouts: tuple[float, ...], player: int) -> float:
    """A player's exact prize equity in the chip-by-chip game: the chain with three players in, the gambler's
    ruin (a player's chance of first place is his chip share) with two."""
    if len(stacks) == 2:
        share = stacks[player] / sum(stacks)
        return share * payouts[0] + (1 - share) * payouts[1]
    places = gamblers_ruin_places(tuple(int(s) for s in stacks))  # type: ignore[arg-type]
    return float(places[player] @ np.array([*payouts, 0.0][:3]))


def _exact_threshold(stacks: list[float], payouts: tuple[float, ...], caller: int, jammer: int) -> float:
    amount = min(stacks[caller], stacks[jammer])
    levels = []
    for sign in (0, 1, -1):
        after = list(stacks)
        after[caller] += sign * amount
        after[jammer] -= sign * amount
        if min(after) > 0:
            levels.append(_chain_equity(after, payouts, caller))
        elif after[caller] <= 0:
            levels.append(0.0)  # the caller busts third of three: unpaid
        else:
            busted = after.index(0)
            levels.append(_chain_equity([s for k, s in enumerate(after) if k != busted], payouts,
                                        caller - int(busted < caller)))
    fold, win, lose = levels
    return (fold - lose) / (win - lose)


def test_call_thresholds_cover_the_chains_exact_required_equity():
    """The simulated equity a caller needs (three states on common random numbers, a jackknife standard error)
    against the exact chain: every interval within 4 standard errors, and the 95% intervals cover at about their
    rate over 8 seeds x 3 pairs; the models' thresholds are those of exact ICM's equities of the same states."""
    from pokerlab.icm import icm
    from pokerlab.simulation.thresholds import call_thresholds

    stacks, payouts = [6.0, 4.0, 2.0], (60.0, 40.0)
    pairs = [(1, 0), (0, 2), (2, 1)]
    exact = [_exact_threshold(stacks, payouts, c, j) for c, j in pairs]
    covered = 0
    for seed in range(8):
        found = call_thresholds(stacks, payouts, pairs, continuations=1000, seed=seed, bet=1)
        z = np.array([(t.simulated - e) / t.stderr for t, e in zip(found, exact, strict=True)])
        assert np.all(np.abs(z) < 4), (seed, z)
        covered += int(np.sum(np.abs(z) < 1.96))
    assert covered >= 19, covered  # of 24: P(18 or fewer | 95% coverage) is 0.7%
    win = icm(np.array([2.0, 8.0, 2.0]), np.array(payouts)).equity[1]
    fold = icm(np.array(stacks), np.array(payouts)).equity[1]
    assert found[0].models["icm"] == pytest.approx(fold / win)  # losing busts him unpaid: r = fold / win
