"""Independent reference computations on the plain-Python Game protocol (never on the compiled arrays)."""

from __future__ import annotations

import itertools

from pokerlab.games.base import CHANCE, TERMINAL


def recursive_value(game, policy0, policy1, state=None) -> float:
    """Player 0's expected payoff by recursion over the game's own states; policies map infoset key -> list."""
    state = game.initial_state() if state is None else state
    who = game.current_player(state)
    if who == TERMINAL:
        return game.utility(state)
    if who == CHANCE:
        return sum(p * recursive_value(game, policy0, policy1, game.apply(state, o))
                   for o, p in game.chance_outcomes(state))
    probs = (policy0 if who == 0 else policy1)[game.infoset_key(state)]
    return sum(p * recursive_value(game, policy0, policy1, game.apply(state, a))
               for a, p in zip(game.legal_actions(state), probs, strict=True) if p)


def brute_force_best_response(game, tree, policy_table, player) -> float:
    """Best-response value of ``player`` by enumerating every pure strategy (small games only)."""
    mine = [i for i in range(tree.num_infosets) if tree.info_player[i] == player]
    choices = [range(int(tree.info_offset[i + 1] - tree.info_offset[i])) for i in mine]
    best = -float("inf")
    for pure in itertools.product(*choices):
        table = dict(policy_table)
        for i, a in zip(mine, pure, strict=True):
            n = int(tree.info_offset[i + 1] - tree.info_offset[i])
            table[tree.infoset_keys[i]] = [1.0 if k == a else 0.0 for k in range(n)]
        v = recursive_value(game, table, table)
        best = max(best, v if player == 0 else -v)
    return best


def table_of(policy) -> dict[str, list[float]]:
    g = policy.game
    return {key: [float(x) for x in policy.probs[g.info_offset[i]:g.info_offset[i + 1]]]
            for i, key in enumerate(g.infoset_keys)}
