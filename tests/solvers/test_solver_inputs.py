"""Review fixes: custom-game caching, resume checks, parameter ranges, seeds, malformed files, bounded histories."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games import CHANCE, TERMINAL, Game, compiled, rps
from pokerlab.games.two_round import TwoRoundSpec
from pokerlab.solvers import solve
from pokerlab.solvers.core import Solver, algorithm_config, seed_state
from pokerlab.solvers.regret_matching import HISTORY_POINTS, regret_matching
from pokerlab.solvers.two_round import Abstraction, TwoRoundTrainer


class Guess(Game):
    """Chance flips a coin, player 0 guesses it: +1 when right, -1 when wrong (value 0: guessing is 50/50)."""

    name = "guess"

    def initial_state(self):
        return ()

    def current_player(self, s):
        return CHANCE if not s else (0 if len(s) == 1 else TERMINAL)

    def chance_outcomes(self, s):
        return [("H", 0.5), ("T", 0.5)]

    def legal_actions(self, s):
        return ["H", "T"]

    def apply(self, s, a):
        return (*s, a)

    def utility(self, s):
        return 1.0 if s[0] == s[1] else -1.0

    def infoset_key(self, s):
        return ""


class FlatFive(Guess):
    """Same name and default spec family as Guess, but every outcome pays 5 chips: value 5."""

    def utility(self, s):
        return 5.0


def test_custom_games_with_one_name_do_not_share_a_compiled_tree():
    assert solve(Guess(), "cfr+", iterations=50).game_value == pytest.approx(0.0, abs=1e-12)
    assert solve(FlatFive(), "cfr+", iterations=50).game_value == pytest.approx(5.0, abs=1e-12)
    assert Guess().spec()["class"].endswith("Guess") and FlatFive().spec()["class"].endswith("FlatFive")
    assert compiled(Guess()) is not compiled(Guess())  # custom games are not cached by spec


def test_custom_game_cannot_be_saved(tmp_path):
    solver = Solver(FlatFive(), "cfr")
    with pytest.raises(InvalidArgumentError, match="custom game"):
        solver.save(tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()


def test_cached_arrays_are_read_only():
    tree = compiled("kuhn")
    assert compiled("kuhn") is tree
    for array in (tree.utility, tree.kind, tree.info_offset, tree.chance_prob):
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[0] = 1


@pytest.fixture()
def kuhn_state(tmp_path):
    path = tmp_path / "kuhn.npz"
    solve("kuhn", "dcfr", iterations=30).solver.save(path)
    return path


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"game": "leduc"}, "solves 'kuhn', not 'leduc'"),
    ({"game": "kuhn", "algorithm": "cfr"}, "uses 'dcfr', not 'cfr'"),
    ({"algorithm": algorithm_config("dcfr", alpha=2.0)}, "other parameters"),
    ({"seed": 3}, "seed cannot be given when resuming"),
    ({"iterations": 30}, "already has 30 iterations"),
    ({"iterations": 5}, "already has 30 iterations"),
])
def test_resume_rejects_what_it_would_ignore(kuhn_state, kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        solve(resume=kuhn_state, **kwargs)


def test_resume_counts_total_iterations(kuhn_state):
    assert solve("kuhn", "dcfr", iterations=40, resume=kuhn_state).iterations == 40
    assert solve(resume=kuhn_state).iterations == 1030  # no stopping rule: 1000 more


@pytest.mark.parametrize(("algo", "overrides", "message"), [
    ("dcfr", {"alpha": float("nan")}, "finite number"),
    ("dcfr", {"alpha": -1}, r"alpha must be a finite number in \[0, 10\]"),
    ("dcfr", {"beta": float("inf")}, "finite number"),
    ("lcfr", {"gamma": -0.5}, "gamma must be"),
    ("cfr", {"alpha": 2}, "cfr does not use alpha"),
    ("cfr+", {"beta": 0.5}, "does not use beta"),
    ("es-mccfr", {"gamma": 1}, "does not use gamma"),
    ("os-mccfr", {"epsilon": 0}, "epsilon must be"),
    ("dcfr", {"epsilon": 0.5}, "does not use epsilon"),
    ("dcfr", {"delta": 1}, "unknown solver parameter"),
])
def test_bad_solver_parameters(algo, overrides, message):
    with pytest.raises(InvalidArgumentError, match=message):
        algorithm_config(algo, **overrides)


def test_good_solver_parameters():
    assert algorithm_config("dcfr", alpha=2, beta=-1, gamma=3).alpha == 2.0
    assert algorithm_config("cfr+", gamma=2).gamma == 2.0
    assert algorithm_config("os-mccfr", epsilon=0.3).epsilon == 0.3


@pytest.mark.parametrize("seed", [-1, 1.5, True, "3"])
def test_one_seed_rule_for_solvers_and_two_round_trainer(seed):
    with pytest.raises(InvalidArgumentError, match="seed must be (at least 0|a whole number)"):
        Solver("kuhn", "es-mccfr", seed=seed)
    with pytest.raises(InvalidArgumentError, match="seed must be (at least 0|a whole number)"):
        TwoRoundTrainer(TwoRoundSpec(ranks=4, suits=2, stack=1), Abstraction(buckets=2), seed=seed)


def test_seed_state_is_shared_and_reproducible():
    assert seed_state(7)[0] == seed_state(7)[0] != seed_state(8)[0]
    trainer = TwoRoundTrainer(TwoRoundSpec(ranks=4, suits=2, stack=1), Abstraction(buckets=2), seed=7)
    assert trainer.rng[0] == seed_state(7)[0]
    assert Solver("kuhn", "es-mccfr", seed=7).rng[0] == seed_state(7)[0]


def _write_npz(path, meta, **arrays):
    with path.open("wb") as handle:
        np.savez(handle, meta=np.array(json.dumps(meta)), **arrays)
    return path


def test_solver_load_malformed_files(tmp_path, kuhn_state):
    with np.load(kuhn_state) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in data.files if k != "meta"}
    cases = {
        "noconfig": {k: v for k, v in meta.items() if k != "config"},
        "badconfig": {**meta, "config": {"name": "cfr", "bogus": 1}},
        "badparam": {**meta, "config": {**meta["config"], "alpha": -5}},
        "badgame": {**meta, "game_spec": {"family": "chess"}},
        "badspec": {**meta, "game_spec": {"family": "limit_poker", "ranks": "x"}},
        "noiteration": {k: v for k, v in meta.items() if k != "iteration"},
        "listmeta": [1, 2],
    }
    for name, bad in cases.items():
        path = _write_npz(tmp_path / f"{name}.npz", bad, **arrays)
        with pytest.raises(FileFormatError, match="pokerlab solver file"):
            Solver.load(path)
    short = _write_npz(tmp_path / "short.npz", meta, **{**arrays, "sigma": arrays["sigma"][:3]})
    with pytest.raises(FileFormatError, match="do not match"):
        Solver.load(short)
    for name, content in (("text.npz", b"not an archive"), ("truncated.npz", b"PK\x03\x04 truncated")):
        (tmp_path / name).write_bytes(content)
        with pytest.raises(FileFormatError, match=r"not a \.npz archive"):
            Solver.load(tmp_path / name)
        with pytest.raises(FileFormatError, match=r"not a \.npz archive"):
            TwoRoundTrainer.load(tmp_path / name)


def test_two_round_trainer_load_malformed_files(tmp_path):
    trainer = TwoRoundTrainer(TwoRoundSpec(ranks=4, suits=2, stack=1), Abstraction(buckets=2), seed=1)
    good = trainer.save(tmp_path / "good.npz")
    with np.load(good) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in data.files if k != "meta"}
    cases = {
        "badabstraction": {**meta, "abstraction": {"nope": 1}},
        "nospec": {k: v for k, v in meta.items() if k != "spec"},
        "badspec": {**meta, "spec": {"ranks": "many"}},
        "noiterations": {k: v for k, v in meta.items() if k != "iterations"},
        "badseed": {**meta, "seed": -4},
    }
    for name, bad in cases.items():
        path = _write_npz(tmp_path / f"{name}.npz", bad, **arrays)
        with pytest.raises(FileFormatError, match="two-round bot file"):
            TwoRoundTrainer.load(path)
    text = tmp_path / "text.npz"
    text.write_text("not an archive")
    with pytest.raises(FileFormatError, match=r"not a \.npz archive"):
        TwoRoundTrainer.load(text)
    assert TwoRoundTrainer.load(good).iterations == trainer.iterations


def test_regret_matching_history_is_bounded_and_optional():
    small = regret_matching(rps(asymmetric=True), 50)
    assert small.history_iterations.tolist() == list(range(1, 51))
    big = regret_matching(rps(asymmetric=True), 30_000)
    assert len(big.history_iterations) <= HISTORY_POINTS and big.history_iterations[-1] == 30_000
    assert big.average_row_history.shape == (len(big.history_iterations), 3)
    np.testing.assert_allclose(big.average_row_history[-1], big.average_row, atol=1e-12)
    # the subsampled rows are the same strategies a full history records at those iterations
    full = regret_matching(rps(asymmetric=True), 1500)
    part = regret_matching(rps(asymmetric=True), 3000)
    for row, it in enumerate(part.history_iterations[part.history_iterations <= 1500]):
        np.testing.assert_allclose(part.current_row_history[row], full.current_row_history[it - 1], atol=1e-12)
    bare = regret_matching(rps(asymmetric=True), 1000, history=False)
    assert bare.current_row_history.shape == (0, 3) and len(bare.history_iterations) == 0
    np.testing.assert_allclose(bare.average_row, regret_matching(rps(asymmetric=True), 1000).average_row)
    with pytest.raises(InvalidArgumentError, match="iterations must be from 1 to 1,000,000,000, got 10,000,000,000"):
        regret_matching(rps(), 10**10)
