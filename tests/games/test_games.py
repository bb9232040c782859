"""The game protocol, the compiler and the poker family against counts and rules worked out by hand."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from pokerlab.errors import InvalidGameError
from pokerlab.games import (
    CHANCE,
    FOLD,
    TERMINAL,
    BettingRound,
    Game,
    LimitPoker,
    MatrixGame,
    PokerSpec,
    compile_game,
    compiled,
    game_from_spec,
    get_game,
    kuhn,
    leduc,
)
from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL


def test_infoset_counts_match_oracle(oracle):
    games = oracle("games")
    assert compiled("kuhn").sizes.infosets == games["kuhn"]["infosets"]
    assert compiled("leduc").sizes.infosets == games["leduc"]["infosets"]


def test_kuhn_tree_sizes_by_hand():
    s = compiled("kuhn").sizes
    # 6 deals x (5 terminal betting lines, 4 decision nodes); root + 3 second-deal chance nodes
    assert (s.terminals, s.decision_nodes, s.chance_nodes) == (30, 24, 4)
    assert s.histories == 58 and s.infosets_per_player == (6, 6)


@pytest.mark.parametrize("name", ["rps", "kuhn", "leduc", "leduc-2sizes"])
def test_compiled_layout_invariants(name):
    g = compiled(name)
    n = g.kind.shape[0]
    for node in range(n):
        fc, nc = g.first_child[node], g.num_children[node]
        assert (nc == 0) == (g.kind[node] == KIND_TERMINAL)
        if nc:
            assert fc > node and np.all(g.parent[fc:fc + nc] == node)
        if g.kind[node] == KIND_CHANCE:
            assert abs(g.chance_prob[fc:fc + nc].sum() - 1.0) < 1e-12
        if g.kind[node] == KIND_DECISION:
            i = g.infoset[node]
            assert g.info_player[i] == g.player[node]
            assert g.info_offset[i + 1] - g.info_offset[i] == nc
    assert g.level_offsets[0] == 0 and g.level_offsets[-1] == n


def test_leduc_rules_spot_checks():
    g = leduc()
    s = g.initial_state()
    assert g.current_player(s) == CHANCE and len(g.chance_outcomes(s)) == 6
    s = g.apply(s, (0,))  # player 0: Jc
    s = g.apply(s, (4,))  # player 1: Kc
    assert g.legal_actions(s) == [1, 2]  # check or raise
    s = g.apply(s, 2)  # raise 2
    assert g.legal_actions(s) == [FOLD, 1, 2] and s.contrib == (3.0, 1.0)
    s = g.apply(s, 1)  # call: round 1 over
    assert g.current_player(s) == CHANCE and len(g.chance_outcomes(s)) == 4
    s = g.apply(s, (1,))  # board Jd: player 0 pairs
    assert g.current_player(s) == 0  # player 0 acts first in round 2 too
    s = g.apply(s, 2)  # bet 4
    s = g.apply(s, 2)  # raise 4
    assert g.legal_actions(s) == [FOLD, 1]  # cap of two raises reached
    s = g.apply(s, 1)
    assert g.current_player(s) == TERMINAL and g.utility(s) == 11.0  # pair of jacks beats the king
    assert g.infoset_key(g.apply(g.apply(leduc().initial_state(), (0,)), (4,))) == "Jc||"


def test_leduc_split_pot_and_fold():
    g = leduc()
    s = g.apply(g.apply(g.initial_state(), (2,)), (3,))  # Qc vs Qd
    s = g.apply(g.apply(s, 1), 1)  # check, check
    s = g.apply(s, (0,))
    s = g.apply(g.apply(s, 1), 1)
    assert g.current_player(s) == TERMINAL and g.utility(s) == 0.0
    s = g.apply(g.apply(g.initial_state(), (2,)), (3,))
    s = g.apply(g.apply(s, 2), FOLD)  # raise, fold
    assert g.utility(s) == 1.0


def test_kuhn_utilities_zero_sum_and_bounded():
    g = compiled("kuhn")
    terminal = g.utility[g.kind == KIND_TERMINAL]
    assert set(np.abs(terminal)) == {1.0, 2.0}


def test_family_two_private_cards_and_flop():
    # The shape of the next issue's game (smaller): 2 private cards, a 3-card flop, several bet sizes.
    spec = PokerSpec("mini-holdem", ranks=4, suits=2, private_cards=2,
                     rounds=(BettingRound(0, (1.0, 2.0), 1), BettingRound(3, (2.0,), 1)), showdown="rank_counts")
    game = LimitPoker(spec)
    tree = compile_game(game)
    deals = comb(8, 2) * comb(6, 2)
    root_children = tree.num_children[0]
    assert root_children == comb(8, 2) and tree.num_children[1] == comb(6, 2)
    # 5 round-1 lines reach the flop: cc, c-r1-c, c-r2-c, r1-c, r2-c (cap of one raise)
    assert tree.sizes.chance_nodes == 1 + comb(8, 2) + deals * 5
    assert len(game_from_spec(game.spec()).spec()) == len(game.spec())
    # zero-sum bounded utilities: nobody wins more than the other's contribution (1 + 2 + 2)
    assert np.max(np.abs(tree.utility)) <= 5.0


def test_rank_counts_ordering():
    rank = LimitPoker(PokerSpec("x", 4, 2, 2, (BettingRound(3),), showdown="rank_counts"))._rank_of
    assert rank([0, 0], [0, 1, 2]) > rank([3, 3], [0, 1, 2])  # trips beat a pair of aces
    assert rank([3, 2], [3, 2, 0]) > rank([1, 1], [3, 2, 0])  # two pair beats a pair
    assert rank([4, 2], [0, 0, 1]) > rank([3, 2], [0, 0, 1])  # equal pattern: the kickers decide


@pytest.mark.parametrize("bad", [
    dict(ranks=0), dict(suits=5), dict(private_cards=0), dict(ranks=1, suits=1),
    dict(rounds=(BettingRound(0, (0.0,), 1),)), dict(showdown="nope"), dict(ante=-1.0),
])
def test_family_rejects_bad_parameters(bad):
    base = dict(name="bad", ranks=3, suits=1, private_cards=1, rounds=(BettingRound(),))
    with pytest.raises(InvalidGameError):
        LimitPoker(PokerSpec(**{**base, **bad}))


def test_unknown_game_and_bad_matrix():
    with pytest.raises(InvalidGameError, match="unknown game"):
        get_game("holdem")
    with pytest.raises(InvalidGameError):
        MatrixGame(((1.0, float("nan")),))
    with pytest.raises(InvalidGameError):
        game_from_spec({"family": "unknown"})


class _Inconsistent(Game):
    """Two states share an infoset key but not the same actions: the compiler must refuse it."""

    name = "inconsistent"

    def initial_state(self):
        return ()

    def current_player(self, s):
        return CHANCE if not s else (0 if len(s) == 1 else TERMINAL)

    def chance_outcomes(self, s):
        return [(0, 0.5), (1, 0.5)]

    def legal_actions(self, s):
        return [0, 1] if s[0] == 0 else [0, 1, 2]

    def apply(self, s, a):
        return (*s, a)

    def utility(self, s):
        return 0.0

    def infoset_key(self, s):
        return "same"


def test_compiler_rejects_inconsistent_infosets():
    with pytest.raises(InvalidGameError, match="mixes"):
        compile_game(_Inconsistent())


def test_spec_round_trip_of_presets():
    for name in ("kuhn", "leduc", "rps2"):
        game = get_game(name)
        assert game_from_spec(game.spec()).spec() == game.spec()
    assert kuhn().spec() != leduc().spec()
