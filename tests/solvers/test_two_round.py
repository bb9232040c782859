"""Two-round game strategies: exact best response and EV against the solving engine on the full compiled tree of
a reduced game, exact equity tables, MCCFR training, checkpoint/resume."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games.compiler import compile_game
from pokerlab.games.two_round import NODE_DECISION, TwoRoundHoldem, TwoRoundSpec
from pokerlab.solvers.policy import Policy
from pokerlab.solvers.policy import expected_value as tree_ev
from pokerlab.solvers.policy import exploitability as tree_exploitability
from pokerlab.solvers.two_round import (
    Abstraction,
    TwoRoundBot,
    TwoRoundTrainer,
    expected_value,
    exploitability,
    fixed_strategy,
)
from pokerlab.solvers.two_round_tables import two_round_tables

SMALL = TwoRoundSpec(ranks=4, suits=2, stack=1, max_bet=2)


@pytest.fixture(scope="module")
def small_tree():
    return compile_game(TwoRoundHoldem(SMALL))


def to_policy(strategy, compiled):
    """The strategy as a Policy of the compiled full game, looked up state by state (independent path)."""
    tables = two_round_tables(strategy.spec)
    tree = strategy.tree
    probs = np.zeros(compiled.num_flat_actions)
    for i, state in enumerate(compiled.infoset_states):
        me = state.betting.to_act
        a, b = sorted(tables.local(c) for c in state.hands[me])
        h = tables.hand_id[a, b]
        f = -1
        if state.flop:
            x, y, z = sorted(tables.local(c) for c in state.flop)
            f = tables.flop_id[x, y, z]
        node = tree.node_after(state.history)
        p = strategy.probabilities(node, h, f)
        lo = int(compiled.info_offset[i])
        probs[lo:lo + len(p)] = p
    return Policy(compiled, probs)


@pytest.mark.slow
def test_best_response_and_ev_match_the_full_tree(small_tree):
    trainer = TwoRoundTrainer(SMALL, Abstraction(buckets=3), seed=5)
    trainer.train(2000)
    trained = trainer.bot().strategy(SMALL.stack)
    fixed = {k: fixed_strategy(SMALL, k) for k in ("uniform", "fullbet", "checkcall")}
    for strategy in (trained, *fixed.values()):
        ours = exploitability(strategy)
        ref = tree_exploitability(small_tree, to_policy(strategy, small_tree))
        assert ours.best_response_values == pytest.approx(ref.best_response_values, abs=1e-12)
        assert ours.exploitability == pytest.approx(ref.exploitability, abs=1e-12)
    a, b = to_policy(trained, small_tree), to_policy(fixed["fullbet"], small_tree)
    ref_ev = 0.5 * (tree_ev(small_tree, a, b) - tree_ev(small_tree, b, a))
    assert expected_value(trained, fixed["fullbet"]) == pytest.approx(ref_ev, abs=1e-12)


def test_equity_table_is_exact():
    spec = TwoRoundSpec(ranks=5, suits=2)
    t = two_round_tables(spec)
    rng = np.random.default_rng(3)
    for _ in range(5):
        f = int(rng.integers(t.n_flops))
        valid = np.flatnonzero(t.values[f] > 0)
        h = int(rng.choice(valid))
        flop = [int(t.deck[c]) for c in t.flop_cards[f]]
        mine = [int(t.deck[c]) for c in t.hand_cards[h]]
        me = evaluate(mine + flop)
        rest = [int(c) for c in t.deck if int(c) not in mine + flop]
        score = n = 0.0
        for opp in combinations(rest, 2):
            v = evaluate(list(opp) + flop)
            score += 1.0 if me > v else (0.5 if me == v else 0.0)
            n += 1
        assert t.equity[f, h] == pytest.approx(score / n, abs=1e-12)
        assert t.values[f, h] == me


def test_equity_is_one_half_on_average_per_flop():
    t = two_round_tables(TwoRoundSpec(ranks=5, suits=2))
    for f in range(0, t.n_flops, 17):
        eq = t.equity[f][t.values[f] > 0]
        assert eq.mean() == pytest.approx(0.5, abs=1e-12)  # each pair of hands counted from both sides


def test_fixed_bots_are_deterministic_where_documented():
    """fullbet and checkcall are pure strategies (one action with probability 1 at every decision, the same for
    every hand); uniform spreads evenly over the legal actions."""
    for kind in ("fullbet", "checkcall", "uniform"):
        strat = fixed_strategy(SMALL, kind)
        tree = strat.tree
        for node in np.flatnonzero(tree.kind == NODE_DECISION):
            for hand in (0, strat.pre_row.shape[0] - 1):
                flop = 0 if tree.round[node] == 1 else -1
                p = strat.probabilities(int(node), hand, flop)
                if kind == "uniform":
                    np.testing.assert_allclose(p, 1.0 / len(p))
                else:
                    assert sorted(p.tolist()) == [0.0] * (len(p) - 1) + [1.0]
    s = fixed_strategy(SMALL, "checkcall")
    e = exploitability(s)
    assert e.exploitability > 0
    u = fixed_strategy(SMALL, "uniform")
    assert expected_value(u, u) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(InvalidArgumentError):
        fixed_strategy(SMALL, "nonsense")


def test_mccfr_without_abstraction_approaches_equilibrium():
    spec = TwoRoundSpec(ranks=4, suits=2, stack=1, max_bet=1)
    trainer = TwoRoundTrainer(spec, Abstraction(buckets=0, exact_preflop=True), seed=11)
    trainer.train(20_000)
    first = exploitability(trainer.bot().strategy(1)).exploitability
    trainer.train(180_000)
    later = exploitability(trainer.bot().strategy(1)).exploitability
    uniform = exploitability(fixed_strategy(spec, "uniform")).exploitability
    assert later < first < uniform
    assert later < 0.05


def test_checkpoint_resume_is_exact(tmp_path):
    spec = TwoRoundSpec(ranks=4, suits=2, stack=2, max_bet=2)
    straight = TwoRoundTrainer(spec, Abstraction(buckets=4), seed=2)
    straight.train(3000)
    straight.train(3000)
    part = TwoRoundTrainer(spec, Abstraction(buckets=4), seed=2)
    part.train(3000)
    path = part.save(tmp_path / "bot.npz")
    resumed = TwoRoundTrainer.load(path)
    resumed.train(3000)
    for s in straight.stacks:
        assert np.array_equal(straight.stacks[s].cum_post, resumed.stacks[s].cum_post)
        assert np.array_equal(straight.stacks[s].reg_pre, resumed.stacks[s].reg_pre)
    assert resumed.iterations == straight.iterations
    bot = TwoRoundBot.load(path)
    assert set(bot.strategies) == {0, 1, 2}


def test_bad_files(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(FileFormatError):
        TwoRoundBot.load(bad)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array('{"format": "pokerlab-two-round-bot", "format_version": 99}'))
    with pytest.raises(FileFormatError, match="version"):
        TwoRoundBot.load(other)
    with pytest.raises(InvalidArgumentError):
        TwoRoundBot.load(tmp_path / "missing.npz")


def test_bot_files_of_the_retired_format_are_refused_saying_what_to_do(tmp_path):
    """A trainer file whose format field holds the game's retired name is refused in one line that says how to
    get a bot again, by every entry point: the trainer, the bot, the strategy files and the command line."""
    import json

    from typer.testing import CliRunner

    from pokerlab.cli.main import app
    from pokerlab.games.two_round import TwoRoundHoldem
    from pokerlab.solvers.strategy import load_strategy

    trainer = TwoRoundTrainer(SMALL, Abstraction(buckets=2), seed=3)
    trainer.train(500)
    path = trainer.save(tmp_path / "bot.npz")
    with np.load(path) as data:
        arrays = {k: np.array(data[k]) for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta["format"] = "pokerlab-brief-bot"
    old = tmp_path / "old.npz"
    np.savez_compressed(old, meta=np.array(json.dumps(meta)), **arrays)
    expected = "format 'pokerlab-brief-bot' is no longer read; train the bot again with `pokerlab two-round train"
    for load in (TwoRoundTrainer.load, TwoRoundBot.load, lambda p: load_strategy(p, TwoRoundHoldem(SMALL))):
        with pytest.raises(FileFormatError, match=expected):
            load(old)
    result = CliRunner().invoke(app, ["two-round", "exploitability", str(old)])
    assert result.exit_code == 2
    assert [line for line in result.output.splitlines() if line.strip()] == [f"error: {old}: {expected} --out FILE`"]
