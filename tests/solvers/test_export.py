"""OpenSpiel export: exact information-state strings (format of open_spiel/games/{kuhn,leduc}_poker)."""

from __future__ import annotations

import pytest

from pokerlab.errors import InvalidGameError
from pokerlab.games import compiled
from pokerlab.solvers import Policy, solve
from pokerlab.solvers.export import to_openspiel


def test_kuhn_keys_and_actions():
    data = to_openspiel(Policy.uniform(compiled("kuhn")))
    assert data["game"] == "kuhn_poker"
    assert set(data["policy"]) == {"0", "1", "2", "0p", "1p", "2p", "0b", "1b", "2b", "0pb", "1pb", "2pb"}
    assert all([a for a, _ in row] == [0, 1] for row in data["policy"].values())


def test_leduc_keys():
    data = to_openspiel(solve("leduc", "cfr+", iterations=20).policy)
    keys = data["policy"]
    assert len(keys) == 936
    assert "[Observer: 0][Private: 5][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]" in keys
    # raise, call, then Q public: player 0 first in round 2
    assert "[Observer: 0][Private: 1][Round 2][Player: 0][Pot: 6][Money: 97 97][Public: 3][Round1: 2 1][Round2: ]" \
        in keys
    assert keys["[Observer: 1][Private: 0][Round 1][Player: 1][Pot: 4][Money: 97 99][Round1: 2][Round2: ]"][0][0] == 0
    for row in keys.values():
        assert abs(sum(p for _, p in row) - 1.0) < 1e-12


def test_export_refuses_other_games():
    with pytest.raises(InvalidGameError):
        to_openspiel(Policy.uniform(compiled("rps")))


def test_openspiel_evaluates_our_policy_identically():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_exploitability

    result = solve("kuhn", "cfr", iterations=50)
    data = to_openspiel(result.policy)
    game = pyspiel.load_game(data["game"])
    table = os_policy.TabularPolicy(game)
    for key, row in data["policy"].items():
        for action, p in row:
            table.action_probability_array[table.state_lookup[key]][action] = p
    assert os_exploitability.exploitability(game, table) == pytest.approx(result.exploitability, abs=1e-12)
