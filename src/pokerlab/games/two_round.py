"""A two-round hold'em game, as a :class:`~pokerlab.games.base.Game` and as a compiled
public betting tree for the numba kernels of :mod:`pokerlab.agents`.

Rules (also in ``docs/games-two-round.md``):

- Deck: the ``ranks`` highest ranks of the standard deck (default 7: 8 9 T J Q K A) in ``suits`` suits
  (default 4: c d h s, 28 cards). Hands are ranked with the standard hold'em ranking by
  :func:`pokerlab.evaluate` on five cards (two private + three flop); equal hands split the pot.
- Both players post an ante of 1 chip and have ``stack`` chips behind it (equal effective stacks).
- Chance deals two private cards to each player; round 1 (preflop) is bet; chance deals a three-card flop;
  round 2 is bet; then showdown. Player 0 acts first in both rounds (a match alternates the seats).
- Each decision puts ``x`` chips in, ``0 <= x <= min(max_bet, chips behind)`` (default ``max_bet`` 4). Facing a
  bet of ``c`` (the opponent has put ``c`` more in), ``x < c`` is a **fold** (the game's rule; the all-in
  exception never applies since effective stacks are equal, so a player facing a bet always covers it),
  ``x == c`` a **call** (a **check** when ``c == 0``) and ``x > c`` a **raise** (a **bet** when ``c == 0``).
  The legal actions are therefore {fold (when facing a bet), check/call, put ``x`` for each larger ``x``}.
- A round ends on a call, or when both players check. A player who is all-in cannot act again: a called
  all-in goes straight to the showdown (the flop is still dealt).
- Utilities: player 0's net chips (the winner wins the loser's ante plus everything the loser put in).

Actions are coded as integers: :data:`FOLD` (-1) or the number of chips put in this decision ``x >= c``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from itertools import combinations
from math import comb
from typing import Any, NamedTuple

import numpy as np

from pokerlab.cards.encoding import RANKS, SUITS
from pokerlab.errors import InvalidGameError
from pokerlab.games.base import CHANCE, FOLD, TERMINAL, Game, GameType
from pokerlab.games.compiler import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL
from pokerlab.games.registry import PLAY, register_game

# Node kinds of the compiled betting tree.
# Node kinds of the compiled betting tree: the compiler's kinds (pokerlab.games.compiler), with the terminals of
# the betting tree split in two (a showdown, or a fold that needs no cards).
NODE_DECISION = KIND_DECISION
NODE_SHOWDOWN = KIND_TERMINAL  # terminal: cards are compared
NODE_FLOP = KIND_CHANCE  # chance: the flop is dealt; exactly one child (round 2's root, or a showdown after an all-in)
NODE_FOLD = 3  # terminal: the player ``player[n]`` of the node's parent folded; see ``folder``


@dataclass(frozen=True)
class TwoRoundSpec:
    """Parameters of the two-round game. ``ranks`` top ranks of the standard deck, ``suits`` suits, ``stack``
    chips behind the ``ante`` (1 chip) for each player, ``max_bet`` the most chips one decision can put in."""

    ranks: int = 7
    suits: int = 4
    stack: int = 6
    max_bet: int = 4
    ante: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TwoRoundSpec:
        try:
            return cls(**{k: int(data[k]) for k in ("ranks", "suits", "stack", "max_bet", "ante") if k in data})
        except (TypeError, ValueError) as error:
            raise InvalidGameError(f"malformed two-round game spec: {error}") from error

    def validate(self) -> None:
        """Raise :class:`InvalidGameError` unless 4 <= ranks <= 13, 1 <= suits <= 4 with at least 7 cards,
        0 <= stack <= 40, 1 <= max_bet <= 20 and 1 <= ante <= 10 (chips). Example: ``TwoRoundSpec().validate()``."""
        if not (4 <= self.ranks <= 13 and 1 <= self.suits <= 4):
            raise InvalidGameError(f"two-round game: ranks must be 4..13 and suits 1..4 (got {self.ranks}, "
                                   f"{self.suits})")
        if self.ranks * self.suits < 7:
            raise InvalidGameError("two-round game: the deck needs at least 7 cards (2 + 2 private, 3 on the flop)")
        if not (0 <= self.stack <= 40 and 1 <= self.max_bet <= 20 and 1 <= self.ante <= 10):
            raise InvalidGameError(f"two-round game: need 0 <= stack <= 40, 1 <= max_bet <= 20, 1 <= ante <= 10 "
                                   f"(got stack {self.stack}, max_bet {self.max_bet}, ante {self.ante})")

    def deck(self) -> tuple[int, ...]:
        """Card indices (standard encoding ``4 * rank + suit``) of the deck, ascending."""
        ranks = range(13 - self.ranks, 13)
        suits = range(4 - self.suits, 4)
        return tuple(sorted(4 * r + s for r in ranks for s in suits))


class Betting(NamedTuple):
    """The public betting state: round (0 preflop, 1 flop), chips put in beyond the ante by each player, the
    player to act, actions so far in this round, and how the hand ended (``folded`` player or -1,
    ``showdown``)."""

    round: int
    put: tuple[int, int]
    to_act: int
    actions_in_round: int
    folded: int
    showdown: bool


def betting_root() -> Betting:
    """The betting state at the start of a hand: preflop, nothing put in beyond the antes, player 0 to act.

    >>> betting_root().put, betting_root().to_act
    ((0, 0), 0)
    """
    return Betting(0, (0, 0), 0, 0, -1, False)


def betting_actions(b: Betting, stack: int, max_bet: int) -> list[int]:
    """Legal actions at a betting state: ``FOLD`` when facing a bet, then ``x`` chips for call/check and raises."""
    me = b.to_act
    to_call = b.put[1 - me] - b.put[me]
    top = min(max_bet, stack - b.put[me])
    actions = [FOLD] if to_call > 0 else []
    actions.extend(range(to_call, top + 1))
    return actions


def betting_step(b: Betting, x: int, stack: int) -> tuple[Betting, bool]:
    """The state after the player to act plays ``x``; the flag says the flop must be dealt before going on."""
    me, other = b.to_act, 1 - b.to_act
    if x == FOLD:
        return b._replace(folded=me), False
    to_call = b.put[other] - b.put[me]
    put = (b.put[0] + x, b.put[1]) if me == 0 else (b.put[0], b.put[1] + x)
    if x > to_call or (x == 0 and b.actions_in_round == 0):
        # A bet/raise, or the first check of the round: the opponent acts. After an all-in raise the opponent
        # has exactly the call behind (equal stacks), so betting_actions offers only fold or call.
        return Betting(b.round, put, other, b.actions_in_round + 1, -1, False), False
    # A call, or a check behind: the round is over. Both all-in, or the last round: showdown.
    if put[me] >= stack or b.round == 1:
        return Betting(b.round, put, other, b.actions_in_round + 1, -1, True), b.round == 0
    return Betting(1, put, 0, 0, -1, False), True


class BettingArrays(NamedTuple):
    """The per-node arrays of a :class:`BettingTree` that the kernels read."""

    kind: np.ndarray
    round: np.ndarray
    player: np.ndarray
    put0: np.ndarray
    put1: np.ndarray
    subtree_end: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    child_list: np.ndarray
    act_offset: np.ndarray


@dataclass(frozen=True, eq=False)
class BettingTree:
    """The public betting tree of a two-round game, numbered depth-first (preorder): the subtree of ``n`` is
    ``n .. subtree_end[n] - 1`` and every parent precedes its children.

    Per node: ``kind`` (:data:`NODE_DECISION`, :data:`NODE_FOLD`, :data:`NODE_SHOWDOWN`, :data:`NODE_FLOP`),
    ``round``, ``player`` (to act, decision nodes; the folder at fold nodes), ``put0``/``put1`` (chips beyond the
    ante), ``parent``, ``children`` block ``child_start[n] .. child_start[n] + num_children[n] - 1`` of
    ``child_list``, ``action`` (the action on the edge from the parent), ``act_offset`` (first flat action of a
    decision node: strategies are arrays over flat actions), ``decision_index`` (-1 unless a decision node).
    """

    spec: TwoRoundSpec
    kind: np.ndarray
    round: np.ndarray
    player: np.ndarray
    put0: np.ndarray
    put1: np.ndarray
    parent: np.ndarray
    subtree_end: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    child_list: np.ndarray
    action: np.ndarray
    act_offset: np.ndarray
    histories: tuple[tuple[tuple[int, ...], ...], ...]

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_flat_actions(self) -> int:
        return int(np.sum(self.num_children[self.kind == NODE_DECISION]))

    def children(self, n: int) -> np.ndarray:
        lo = int(self.child_start[n])
        return self.child_list[lo:lo + int(self.num_children[n])]

    def child_after(self, n: int, action: int) -> int:
        """The child of decision node ``n`` reached by ``action`` (raises for an illegal action)."""
        for c in self.children(n):
            if int(self.action[c]) == action:
                return int(c)
        raise InvalidGameError(f"action {action} is not legal at betting node {n}")

    def skip_flop(self, n: int) -> int:
        """``n`` itself, or the single child of a flop node."""
        return int(self.child_list[self.child_start[n]]) if self.kind[n] == NODE_FLOP else n

    def node_after(self, history: tuple[tuple[int, ...], ...]) -> int:
        """The betting node reached by a state's per-round actions (the flop node is passed through)."""
        node = 0
        for round_index, actions in enumerate(history):
            if round_index == 1:
                node = self.skip_flop(node)
            for action in actions:
                node = self.child_after(node, action)
        return node

    def arrays(self) -> BettingArrays:
        """The tree as the kernels take it (one argument)."""
        return BettingArrays(self.kind, self.round, self.player, self.put0, self.put1, self.subtree_end,
                             self.child_start, self.num_children, self.child_list, self.act_offset)


def betting_tree(spec: TwoRoundSpec) -> BettingTree:
    """Build the public betting tree (no cards) of a two-round game.

    >>> t = betting_tree(TwoRoundSpec(stack=1, max_bet=1)); t.num_nodes
    20
    """
    spec.validate()
    kinds: list[int] = []
    rounds: list[int] = []
    players: list[int] = []
    put0: list[int] = []
    put1: list[int] = []
    parents: list[int] = []
    actions: list[int] = []
    children: list[list[int]] = []
    subtree_end: list[int] = []
    histories: list[tuple[tuple[int, ...], ...]] = []

    # Iterative DFS in preorder: (state, parent, action on the edge, flop pending, history).
    def add(kind: int, b: Betting, parent: int, action: int, player: int, hist: tuple[tuple[int, ...], ...],
            below: bool) -> int:
        n = len(kinds)
        kinds.append(kind)
        rounds.append(1 if below else 0)  # round 1 = below a flop node (the all-in showdown included)
        players.append(player)
        put0.append(b.put[0])
        put1.append(b.put[1])
        parents.append(parent)
        actions.append(action)
        children.append([])
        subtree_end.append(-1)
        histories.append(hist)
        if parent >= 0:
            children[parent].append(n)
        return n

    stack: list[tuple[Any, ...]] = [("enter", betting_root(), -1, 0, False, ((),), False)]
    while stack:
        item = stack.pop()
        if item[0] == "exit":
            subtree_end[item[1]] = len(kinds)
            continue
        _, b, parent, action, flop, hist, below = item
        if flop:
            n = add(NODE_FLOP, b, parent, action, -1, hist, False)
            stack.append(("exit", n))
            stack.append(("enter", b, n, 0, False, hist if b.showdown else (*hist, ()), True))
            continue
        if b.folded >= 0:
            n = add(NODE_FOLD, b, parent, action, b.folded, hist, below)
            subtree_end[n] = n + 1
            continue
        if b.showdown:
            n = add(NODE_SHOWDOWN, b, parent, action, -1, hist, below)
            subtree_end[n] = n + 1
            continue
        n = add(NODE_DECISION, b, parent, action, b.to_act, hist, below)
        stack.append(("exit", n))
        for x in reversed(betting_actions(b, spec.stack, spec.max_bet)):
            child, deal = betting_step(b, x, spec.stack)
            stack.append(("enter", child, n, x, deal, (*hist[:-1], (*hist[-1], x)), below))

    count = len(kinds)
    child_start = np.zeros(count, dtype=np.int64)
    num_children = np.zeros(count, dtype=np.int64)
    flat: list[int] = []
    for n in range(count):
        child_start[n] = len(flat)
        num_children[n] = len(children[n])
        flat.extend(children[n])
    kind = np.asarray(kinds, dtype=np.int64)
    act_offset = np.full(count, -1, dtype=np.int64)
    offset = 0
    for n in range(count):
        if kind[n] == NODE_DECISION:
            act_offset[n] = offset
            offset += int(num_children[n])
    return BettingTree(spec, kind, np.asarray(rounds, dtype=np.int64), np.asarray(players, dtype=np.int64),
                       np.asarray(put0, dtype=np.int64), np.asarray(put1, dtype=np.int64),
                       np.asarray(parents, dtype=np.int64), np.asarray(subtree_end, dtype=np.int64), child_start,
                       num_children, np.asarray(flat, dtype=np.int64), np.asarray(actions, dtype=np.int64),
                       act_offset, tuple(histories))


@dataclass(frozen=True)
class TwoRoundSizes:
    """Sizes of a two-round game: deck, deals, public betting tree and the full game tree (computed, not guessed).

    ``histories`` counts every node of the full game tree (chance, decision and terminal, one per card deal);
    ``infosets`` counts information sets (private cards x board x public betting history)."""

    cards: int
    deals: int
    betting_nodes: int
    betting_decisions: tuple[int, int]
    betting_terminals: int
    betting_sequences: int
    flat_actions: int
    histories: int
    infosets: int
    infosets_per_round: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def two_round_sizes(spec: TwoRoundSpec, tree: BettingTree | None = None) -> TwoRoundSizes:
    """Count the game's histories and information sets from the betting tree and the deck (exact integers)."""
    tree = tree or betting_tree(spec)
    n = spec.ranks * spec.suits
    hands0 = comb(n, 2)
    hands01 = hands0 * comb(n - 2, 2)
    flops = comb(n - 4, 3)
    deals = hands01 * flops
    kind, rnd = tree.kind, tree.round
    # Full tree: root chance (deal P0) -> hands0 chance nodes (deal P1) -> hands01 copies of round 1; each flop
    # node of round 1 is a chance node with `flops` children, each a copy of its round-2 subtree.
    r2 = rnd == 1
    # Full tree: one copy of the round-1 nodes (flop nodes included) per deal of hands, one copy of the nodes
    # below the flop per deal of hands and flop.
    histories = 1 + hands0 + hands01 * int(np.sum(rnd == 0)) + hands01 * flops * int(np.sum(r2))
    dec = kind == NODE_DECISION
    d1 = int(np.sum(dec & (rnd == 0)))
    d2 = int(np.sum(dec & r2))
    # An infoset is (own two cards, board, public history): round 1 has C(n,2) hands per node; round 2 has
    # C(n,3) flops x C(n-3,2) hands per node (the acting player's view).
    info1 = d1 * hands0
    info2 = d2 * comb(n, 3) * comb(n - 3, 2)
    terminals = int(np.sum((kind == NODE_FOLD) | (kind == NODE_SHOWDOWN)))
    return TwoRoundSizes(cards=n, deals=deals, betting_nodes=tree.num_nodes, betting_decisions=(d1, d2),
                      betting_terminals=terminals, betting_sequences=terminals, flat_actions=tree.num_flat_actions,
                      histories=histories, infosets=info1 + info2, infosets_per_round=(info1, info2))


class TwoRoundState(NamedTuple):
    """A history of the two-round game: private hands dealt so far, flop, betting state and per-round actions."""

    hands: tuple[tuple[int, ...], ...]
    flop: tuple[int, ...]
    betting: Betting
    history: tuple[tuple[int, ...], ...]
    flop_pending: bool


class TwoRoundHoldem(Game):
    """The two-round game (see the module docstring). ``TwoRoundHoldem()`` is the documented default.

    >>> g = TwoRoundHoldem(TwoRoundSpec(stack=2))
    >>> g.current_player(g.initial_state())
    -1
    """

    game_type = GameType(players=2, zero_sum=True, has_fold=True)
    strategy_format = "pokerlab-two-round-strategy"  # 4.7e11 histories: no compiled tree, a bot per stack

    def __init__(self, spec: TwoRoundSpec | None = None) -> None:
        self.rules = spec or TwoRoundSpec()
        self.rules.validate()
        self._deck = self.rules.deck()

    @property
    def name(self) -> str:  # type: ignore[override]
        return "two-round"

    def spec(self) -> dict[str, Any]:
        return {"family": "two_round_holdem", **self.rules.to_dict()}

    @staticmethod
    def card_label(card: int) -> str:
        return RANKS[card // 4] + SUITS[card % 4]

    def initial_state(self) -> TwoRoundState:
        return TwoRoundState((), (), betting_root(), ((),), False)

    def current_player(self, s: TwoRoundState) -> int:
        if len(s.hands) < 2 or s.flop_pending:
            return CHANCE
        if s.betting.folded >= 0 or s.betting.showdown:
            return TERMINAL
        return s.betting.to_act

    def chance_outcomes(self, s: TwoRoundState) -> list[tuple[tuple[int, ...], float]]:
        used = {c for h in s.hands for c in h} | set(s.flop)
        deck = [c for c in self._deck if c not in used]
        k = 2 if len(s.hands) < 2 else 3
        p = 1.0 / comb(len(deck), k)
        return [(combo, p) for combo in combinations(deck, k)]

    def legal_actions(self, s: TwoRoundState) -> list[int]:
        return betting_actions(s.betting, self.rules.stack, self.rules.max_bet)

    def apply(self, s: TwoRoundState, action: Any) -> TwoRoundState:
        if len(s.hands) < 2:
            return s._replace(hands=(*s.hands, tuple(action)))
        if s.flop_pending:
            history = s.history if s.betting.showdown else (*s.history, ())
            return s._replace(flop=tuple(action), flop_pending=False, history=history)
        if action not in self.legal_actions(s):
            raise InvalidGameError(f"illegal action {action!r} (legal: {self.legal_actions(s)})")
        betting, deal = betting_step(s.betting, int(action), self.rules.stack)
        history = (*s.history[:-1], (*s.history[-1], int(action)))
        return TwoRoundState(s.hands, s.flop, betting, history, deal)

    def utility(self, s: TwoRoundState) -> float:
        b = s.betting
        a = self.rules.ante
        if b.folded == 0:
            return -float(a + b.put[0])
        if b.folded == 1:
            return float(a + b.put[1])
        v0 = hand_value((*s.hands[0], *s.flop))
        v1 = hand_value((*s.hands[1], *s.flop))
        if v0 > v1:
            return float(a + b.put[1])
        if v1 > v0:
            return -float(a + b.put[0])
        return 0.0

    def infoset_key(self, s: TwoRoundState) -> str:
        """``hand|flop|history`` of the player to act, e.g. ``'AsKd|QhJh8c|2.3/0'`` (chips per decision, f fold)."""
        p = s.betting.to_act
        hand = "".join(self.card_label(c) for c in s.hands[p])
        flop = "".join(self.card_label(c) for c in s.flop)
        return f"{hand}|{flop}|{history_text(s.history)}"

    def action_label(self, s: TwoRoundState, action: Any) -> str:
        if self.current_player(s) == CHANCE:
            return "".join(self.card_label(c) for c in action)
        return action_label(s.betting, int(action))

    # -- playing ---------------------------------------------------------------------------------------------
    def sample_chance(self, s: TwoRoundState, rng: np.random.Generator) -> tuple[int, ...]:
        """A uniform deal (2 hole cards, or the 3-card flop) drawn without listing every combination: a sorted
        tuple of card codes."""
        used = {c for h in s.hands for c in h} | set(s.flop)
        deck = [c for c in self._deck if c not in used]
        k = 2 if len(s.hands) < 2 else 3
        return tuple(sorted(rng.choice(deck, size=k, replace=False).tolist()))

    def for_stacks(self, chips: Sequence[float]) -> TwoRoundHoldem:
        """The hand is played with the smaller stack behind the ante, capped at the game's stack."""
        spec = self.rules
        stack = int(min(spec.stack, min(chips) - spec.ante))
        return self if stack == spec.stack else TwoRoundHoldem(replace(spec, stack=max(stack, 0)))

    def _cards(self, cards: tuple[int, ...]) -> str:
        return " ".join(self.card_label(c) for c in cards)

    def describe_state(self, s: TwoRoundState, seat: int) -> str:
        b = s.betting
        ante = self.rules.ante
        mine, theirs = ante + b.put[seat], ante + b.put[1 - seat]
        board = self._cards(s.flop) if s.flop else "(no flop yet)"
        return (f"Your cards: {self._cards(s.hands[seat])}   Board: {board}\n"
                f"Pot {mine + theirs}: you {mine}, bot {theirs}; behind: you {self.rules.stack - b.put[seat]}, "
                f"bot {self.rules.stack - b.put[1 - seat]}   Betting: {history_text(s.history) or '-'}")

    def action_key(self, s: TwoRoundState, action: int) -> str:
        return "f" if action == FOLD else str(action)

    def parse_action(self, s: TwoRoundState, text: str) -> int | None:
        legal = [a for a in self.legal_actions(s) if a != FOLD]
        if text in ("c", "k", "check", "call"):
            return min(legal)
        if text.isdigit():
            x = int(text)
            if x < min(legal) and x <= self.rules.max_bet:
                return FOLD  # the game's rule: putting in less than the call is a fold
            if x in legal:
                return x
        return None

    def play_help(self) -> str:
        return ("Each decision puts 0 to 4 chips in (at most what you have behind). Facing a bet, fewer chips "
                "than the call is a fold, exactly the call is a call, more is a raise. Type the number of chips, "
                "or f (fold), c (check/call); q quits.")

    def end_summary(self, s: TwoRoundState, payoff: float, seat: int) -> str:
        folded = s.betting.folded
        line = f"Betting: {history_text(s.history)}. "
        if folded >= 0:
            line += "You folded. " if folded == seat else "The bot folded. "
        else:
            from pokerlab.cards.evaluator import category, evaluate

            mine = evaluate([*s.hands[seat], *s.flop])
            theirs = evaluate([*s.hands[1 - seat], *s.flop])
            line += (f"Showdown on {self._cards(s.flop)}: you {self._cards(s.hands[seat])} "
                     f"({category(mine)}), bot {self._cards(s.hands[1 - seat])} ({category(theirs)}). ")
        if not payoff:
            return line + "Split pot."
        return line + f"You {'won' if payoff > 0 else 'lost'} {abs(payoff):g} chips."


def hand_value(cards: tuple[int, ...]) -> int:
    """Value (1..7462) of five to seven standard cards, through the serial evaluator kernels (no thread start-up,
    unlike :func:`pokerlab.evaluate`'s batch kernel: this is called once per showdown in matches)."""
    from pokerlab.cards.kernels import partial_hand, value_of_partial
    from pokerlab.cards.tables import load_tables

    tables = load_tables()
    key, bits = partial_hand(np.asarray(cards, dtype=np.int64), tables)
    return int(value_of_partial(key, bits, tables))


def history_text(history: tuple[tuple[int, ...], ...]) -> str:
    """Rounds separated by ``/``, decisions by ``.``: chips put in, ``f`` for a fold (e.g. ``'1.3.2/0.0'``)."""
    return "/".join(".".join("f" if a == FOLD else str(a) for a in h) for h in history)


def action_label(b: Betting, x: int) -> str:
    """``fold``, ``check``, ``call 2``, ``bet 3`` or ``raise 4`` (the chips put in by this decision)."""
    to_call = b.put[1 - b.to_act] - b.put[b.to_act]
    if x == FOLD:
        return "fold"
    if x == to_call:
        return "check" if x == 0 else f"call {x}"
    return f"bet {x}" if to_call == 0 else f"raise {x}"


register_game("two-round", TwoRoundHoldem, "two-round hold'em: 28 cards, a flop, bets of 0 to 4 chips", (PLAY,),
              warmup="two-round")
