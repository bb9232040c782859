"""Export policies keyed by OpenSpiel's information-state strings (Kuhn and Leduc presets).

Format (JSON)::

    {"format": "pokerlab-openspiel-policy", "format_version": 1, "game": "leduc_poker",
     "policy": {"[Observer: 0][Private: 5][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]":
                [[1, 0.12], [2, 0.88]], ...}}

Each value lists ``[openspiel_action_id, probability]`` for the legal actions, as
``pyspiel`` ``TabularPolicy`` rows or ``policy.action_probabilities(state)`` expect them. Kuhn uses OpenSpiel's
``"0pb"`` strings (card 0 J, 1 Q, 2 K, then p pass / b bet) and actions 0 pass, 1 bet; Leduc uses actions
0 fold, 1 call, 2 raise and cards 0..5 = J J Q Q K K (``2 * rank + suit``).
"""

from __future__ import annotations

from typing import Any

from pokerlab.errors import InvalidGameError
from pokerlab.games.poker import LimitPoker
from pokerlab.solvers.policy import Policy

EXPORT_FORMAT = "pokerlab-openspiel-policy"
EXPORT_VERSION = 1


def to_openspiel(policy: Policy) -> dict[str, Any]:
    """The policy as a JSON-able dict keyed by OpenSpiel information-state strings.

    >>> from pokerlab.games import compiled
    >>> d = to_openspiel(Policy.uniform(compiled("kuhn"))); d["policy"]["0pb"]
    [[0, 0.5], [1, 0.5]]
    """
    game = policy.game
    source = game.source
    if not isinstance(source, LimitPoker) or source.poker.openspiel_game is None:
        raise InvalidGameError(f"{game.name} has no OpenSpiel counterpart (export works for kuhn and leduc)")
    table: dict[str, list[list[float]]] = {}
    for i, state in enumerate(game.infoset_states):
        actions = source.legal_actions(state)
        lo = int(game.info_offset[i])
        key = source.openspiel_infostate(state)
        table[key] = [[source.openspiel_action(state, a), float(policy.probs[lo + k])] for k, a in enumerate(actions)]
    return {"format": EXPORT_FORMAT, "format_version": EXPORT_VERSION, "game": source.poker.openspiel_game,
            "policy": table}
