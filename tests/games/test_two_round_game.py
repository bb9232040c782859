"""The two-round game: rules, pot accounting, sizes of the betting tree against independent enumerations."""

from __future__ import annotations

from math import comb

import pytest

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import CHANCE, TERMINAL
from pokerlab.games.compiler import compile_game
from pokerlab.games.two_round import (
    FOLD,
    NODE_FOLD,
    NODE_SHOWDOWN,
    TwoRoundHoldem,
    TwoRoundSpec,
    betting_tree,
    two_round_sizes,
)


def _deal(game, state, hands=((48, 49), (44, 45)), flop=(40, 41, 36)):
    state = game.apply(state, hands[0])
    return game.apply(state, hands[1]) if len(hands) > 1 else state


def test_deck_is_the_top_ranks():
    assert TwoRoundSpec().deck()[0] == 24  # 8c
    assert len(TwoRoundSpec().deck()) == 28
    assert TwoRoundSpec(suits=2).deck() == tuple(sorted(4 * r + s for r in range(6, 13) for s in (2, 3)))


def test_fold_call_raise_semantics():
    g = TwoRoundHoldem(TwoRoundSpec(stack=6))
    s = _deal(g, g.initial_state())
    assert g.current_player(s) == 0
    assert g.legal_actions(s) == [0, 1, 2, 3, 4]  # no bet to face: check or bet 1..4
    s = g.apply(s, 3)
    # facing 3: fold (any amount below 3), call 3, raise by putting 4
    assert g.legal_actions(s) == [FOLD, 3, 4]
    assert [g.action_label(s, a) for a in g.legal_actions(s)] == ["fold", "call 3", "raise 4"]
    folded = g.apply(s, FOLD)
    assert g.current_player(folded) == TERMINAL
    assert g.utility(folded) == 1.0  # player 1 loses the ante only
    s = g.apply(s, 4)  # put 4: call 3 + raise 1
    assert g.legal_actions(s) == [FOLD, 1, 2, 3]  # 1 = call; at most 3 behind (6 - 3)
    s = g.apply(s, 1)  # call: round over, flop to come
    assert g.current_player(s) == CHANCE
    s = g.apply(s, (40, 41, 36))
    assert s.history == ((3, 4, 1), ())
    assert g.current_player(s) == 0
    assert g.legal_actions(s) == [0, 1, 2]  # 2 chips behind each


def test_all_in_goes_to_showdown_and_pays_both_ways():
    g = TwoRoundHoldem(TwoRoundSpec(stack=2))
    s = _deal(g, g.initial_state(), hands=((48, 49), (44, 45)))  # AA vs KK
    s = g.apply(s, 2)  # all-in
    assert g.legal_actions(s) == [FOLD, 2]
    s = g.apply(s, 2)
    assert g.current_player(s) == CHANCE  # the flop is still dealt
    end = g.apply(s, (24, 29, 34))  # 8c 9d Th: aces win
    assert g.current_player(end) == TERMINAL
    assert g.utility(end) == 3.0
    end = g.apply(s, (44 + 2, 40, 36))  # Kh Qc Jc: kings make trips
    assert g.utility(end) == -3.0


def test_check_check_and_split_pot():
    g = TwoRoundHoldem(TwoRoundSpec(stack=3))
    s = _deal(g, g.initial_state(), hands=((48, 28), (49, 29)))  # Ac 9c vs Ad 9d
    s = g.apply(g.apply(s, 0), 0)
    s = g.apply(s, (42, 38, 35))  # Qh Jh Ts: both play A Q J T 9 high
    s = g.apply(g.apply(s, 0), 0)
    assert g.current_player(s) == TERMINAL
    assert g.utility(s) == 0.0


def test_zero_sum_and_payoffs_bounded_by_stack():
    spec = TwoRoundSpec(ranks=4, suits=2, stack=2, max_bet=2)
    tree = betting_tree(spec)
    for n in range(tree.num_nodes):
        if tree.kind[n] == NODE_FOLD:
            folder = tree.player[n]
            put = (tree.put0[n], tree.put1[n])
            assert put[folder] <= put[1 - folder]
        if tree.kind[n] == NODE_SHOWDOWN:
            assert tree.put0[n] == tree.put1[n] <= spec.stack


def _literal_sequences(stack: int, max_bet: int) -> int:
    """Terminal betting sequences by the rules read literally: every decision puts x in 0..min(max_bet, behind);
    x below the call folds (all such x are the same fold), a round ends on a call or a second check, a called
    all-in ends the betting. Written independently of pokerlab.games.two_round."""

    def rnd(put, to_act, acted, round_no):
        me, other = to_act, 1 - to_act
        to_call = put[other] - put[me]
        outcomes = set()
        for x in range(0, min(max_bet, stack - put[me]) + 1):
            outcomes.add("fold" if x < to_call else x)
        total = 0
        for o in outcomes:
            if o == "fold":
                total += 1
                continue
            new = list(put)
            new[me] += o
            if o == to_call and (to_call > 0 or acted > 0):
                if new[me] == stack or round_no == 1:
                    total += 1
                else:
                    total += rnd(tuple(new), 0, 0, 1)
            else:
                total += rnd(tuple(new), other, acted + 1, round_no)
        return total

    return rnd((0, 0), 0, 0, 0)


@pytest.mark.parametrize("stack", [0, 1, 2, 3, 4, 5, 6])
def test_tree_terminals_match_literal_rules(stack):
    tree = betting_tree(TwoRoundSpec(stack=stack))
    terminals = int(((tree.kind == NODE_FOLD) | (tree.kind == NODE_SHOWDOWN)).sum())
    assert terminals == _literal_sequences(stack, 4)


def test_default_sizes():
    s = two_round_sizes(TwoRoundSpec())
    assert s.deals == comb(28, 2) * comb(26, 2) * comb(24, 3) == 248_648_400
    assert s.betting_sequences == 1313
    assert s.betting_decisions == (92, 672)


@pytest.mark.slow
def test_sizes_match_the_compiled_full_game():
    spec = TwoRoundSpec(ranks=4, suits=2, stack=1, max_bet=2)
    compiled = compile_game(TwoRoundHoldem(spec))
    s = two_round_sizes(spec)
    assert s.histories == compiled.sizes.histories
    assert s.infosets == compiled.sizes.infosets


def test_bad_specs_raise():
    with pytest.raises(InvalidGameError):
        TwoRoundHoldem(TwoRoundSpec(ranks=2))
    with pytest.raises(InvalidGameError):
        TwoRoundHoldem(TwoRoundSpec(stack=-1))
    g = TwoRoundHoldem(TwoRoundSpec(stack=1))
    s = _deal(g, g.initial_state())
    with pytest.raises(InvalidGameError):
        g.apply(s, 3)
