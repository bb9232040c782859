"""A parameterised family of two-player limit poker games; Kuhn and Leduc poker are presets.

Rules (also in ``docs/games.md``): a deck of ``ranks x suits`` cards (card id ``rank * suits + suit``, rank 0 the
lowest); both players post ``ante``; chance deals ``private_cards`` cards to player 0, then to player 1 (each
hand as one chance event over the combinations of the remaining cards); then each round deals its
``public_cards`` to the board and runs one limit betting round: the round's first player acts first, a player
facing no bet may check or raise, a player facing a bet may fold, call or raise; a raise puts in the call
amount plus one of the round's ``raise_sizes``; at most ``max_raises`` raises per round. The round ends when a
bet is called or both players check. After the last round the better hand (``showdown``) wins the pot; equal
hands split it. Utilities are player 0's net chips.

Actions: :data:`~pokerlab.games.base.FOLD` (-1, the protocol's fold), 1 check/call, ``2 + j`` raise by
``raise_sizes[j]`` (OpenSpiel's Leduc numbers the fold 0: :meth:`LimitPoker.openspiel_action` maps it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from itertools import combinations
from math import comb
from typing import Any, NamedTuple

from pokerlab.errors import InvalidGameError
from pokerlab.games.base import CHANCE, FOLD, TERMINAL, Game, GameType
from pokerlab.games.registry import PLAY, SOLVE, WEB, register_family, register_game

CALL = 1
RAISE = 2  # RAISE + j: the j-th raise size of the round
# FOLD (-1) is the protocol's one fold code (pokerlab.games.base); OpenSpiel numbers a fold 0

_RANK_CHARS = "23456789TJQKA"
_SUIT_CHARS = "cdhs"


@dataclass(frozen=True)
class BettingRound:
    """One betting round: cards dealt to the board before it, raise sizes (chips) and the raise cap."""

    public_cards: int = 0
    raise_sizes: tuple[float, ...] = (1.0,)
    max_raises: int = 1
    first_player: int = 0


def _high_card(private: Sequence[int], board: Sequence[int]) -> tuple[int, ...]:
    """Compare private ranks only, highest first (Kuhn)."""
    return tuple(sorted(private, reverse=True))


def _pair_then_high(private: Sequence[int], board: Sequence[int]) -> tuple[int, ...]:
    """A private card pairing the board beats anything unpaired; otherwise the higher private card (Leduc)."""
    board_ranks = set(board)
    paired = [r for r in private if r in board_ranks]
    if paired:
        return (1, max(paired))
    return (0, *sorted(private, reverse=True))


def _rank_counts(private: Sequence[int], board: Sequence[int]) -> tuple[int, ...]:
    """All cards together by rank multiplicity: quads > full house > trips > two pair > pair > high card.

    Ranks only (no straights or flushes); ties are broken by the ranks in order of multiplicity then rank.
    """
    counts: dict[int, int] = {}
    for r in (*private, *board):
        counts[r] = counts.get(r, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    pattern = tuple(c for _, c in ordered)
    return (*pattern, *(r for r, _ in ordered))


SHOWDOWNS: dict[str, Callable[[Sequence[int], Sequence[int]], tuple[int, ...]]] = {
    "high_card": _high_card,
    "pair_then_high": _pair_then_high,
    "rank_counts": _rank_counts,
}


@dataclass(frozen=True)
class PokerSpec:
    """Parameters of a limit poker game of the family (see the module docstring for the rules)."""

    name: str
    ranks: int
    suits: int
    private_cards: int
    rounds: tuple[BettingRound, ...]
    ante: float = 1.0
    showdown: str = "high_card"
    openspiel_game: str | None = None
    rank_labels: str = ""  # one character per rank, lowest first; default the ranks just below the ace (J Q K)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rounds"] = [asdict(r) for r in self.rounds]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PokerSpec:
        try:
            rounds = tuple(
                BettingRound(int(r["public_cards"]), tuple(float(s) for s in r["raise_sizes"]), int(r["max_raises"]),
                             int(r.get("first_player", 0)))
                for r in data["rounds"]
            )
            return cls(name=str(data["name"]), ranks=int(data["ranks"]), suits=int(data["suits"]),
                       private_cards=int(data["private_cards"]), rounds=rounds, ante=float(data.get("ante", 1.0)),
                       showdown=str(data.get("showdown", "high_card")), openspiel_game=data.get("openspiel_game"),
                       rank_labels=str(data.get("rank_labels", "")))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidGameError(f"malformed poker game spec: {error}") from error


class PokerState(NamedTuple):
    """A history of the game: hands dealt so far, board, current round, per-round action codes, contributions."""

    hands: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    round: int
    history: tuple[tuple[int, ...], ...]
    contrib: tuple[float, float]
    to_act: int
    raises: int
    folded: int


@dataclass(frozen=True, eq=False)
class LimitPoker(Game):
    """A game of the limit poker family. Build presets with :func:`kuhn`, :func:`leduc` or :func:`preset`.

    >>> g = LimitPoker(PokerSpec("mini", ranks=3, suits=1, private_cards=1, rounds=(BettingRound(),)))
    >>> g.current_player(g.initial_state())
    -1
    """

    poker: PokerSpec
    rank_labels: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        p = self.poker
        if not (1 <= p.ranks <= 13 and 1 <= p.suits <= 4):
            raise InvalidGameError(f"{p.name}: ranks must be 1..13 and suits 1..4 (got {p.ranks}, {p.suits})")
        if p.private_cards < 1 or not p.rounds:
            raise InvalidGameError(f"{p.name}: need at least one private card and one betting round")
        cards_needed = 2 * p.private_cards + sum(r.public_cards for r in p.rounds)
        if cards_needed > p.ranks * p.suits:
            raise InvalidGameError(f"{p.name}: {cards_needed} cards needed but the deck has {p.ranks * p.suits}")
        for r in p.rounds:
            if r.max_raises < 0 or not r.raise_sizes or any(s <= 0 for s in r.raise_sizes):
                raise InvalidGameError(f"{p.name}: raise sizes must be positive and the cap non-negative")
            if r.first_player not in (0, 1) or r.public_cards < 0:
                raise InvalidGameError(f"{p.name}: first_player must be 0 or 1 and public_cards >= 0")
        if p.showdown not in SHOWDOWNS:
            raise InvalidGameError(f"{p.name}: unknown showdown {p.showdown!r} (expected one of {sorted(SHOWDOWNS)})")
        if p.ante < 0:
            raise InvalidGameError(f"{p.name}: ante must be >= 0")
        labels = p.rank_labels or (_RANK_CHARS[12 - p.ranks:12] if p.ranks <= 12 else _RANK_CHARS)
        if len(labels) != p.ranks:
            raise InvalidGameError(f"{p.name}: rank_labels needs one character per rank ({p.ranks})")
        object.__setattr__(self, "rank_labels", labels)
        object.__setattr__(self, "_board_needed", tuple(sum(r.public_cards for r in p.rounds[: i + 1])
                                                        for i in range(len(p.rounds))))
        object.__setattr__(self, "_rank_of", SHOWDOWNS[p.showdown])

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.poker.name

    def spec(self) -> dict[str, Any]:
        return {"family": "limit_poker", **self.poker.to_dict()}

    # -- cards ------------------------------------------------------------------------------------------------
    def card_label(self, card: int) -> str:
        rank, suit = divmod(card, self.poker.suits)
        return self.rank_labels[rank] + (_SUIT_CHARS[suit] if self.poker.suits > 1 else "")

    def _rank(self, card: int) -> int:
        return card // self.poker.suits

    # -- protocol ---------------------------------------------------------------------------------------------
    def initial_state(self) -> PokerState:
        a = self.poker.ante
        return PokerState((), (), 0, ((),), (a, a), self.poker.rounds[0].first_player, 0, -1)

    def current_player(self, s: PokerState) -> int:
        if s.folded >= 0 or s.round >= len(self.poker.rounds):
            return TERMINAL
        if len(s.hands) < 2 or len(s.board) < self._board_needed[s.round]:  # type: ignore[attr-defined]
            return CHANCE
        return s.to_act

    def _deck_left(self, s: PokerState) -> list[int]:
        used = set(s.board)
        for hand in s.hands:
            used.update(hand)
        return [c for c in range(self.poker.ranks * self.poker.suits) if c not in used]

    def chance_outcomes(self, s: PokerState) -> list[tuple[tuple[int, ...], float]]:
        deck = self._deck_left(s)
        k = self.poker.private_cards if len(s.hands) < 2 else self._board_needed[s.round] - len(s.board)  # type: ignore[attr-defined]
        p = 1.0 / comb(len(deck), k)
        return [(combo, p) for combo in combinations(deck, k)]

    def legal_actions(self, s: PokerState) -> list[int]:
        rnd = self.poker.rounds[s.round]
        facing = s.contrib[1 - s.to_act] > s.contrib[s.to_act]
        actions = [FOLD] if facing else []
        actions.append(CALL)
        if s.raises < rnd.max_raises:
            actions.extend(RAISE + j for j in range(len(rnd.raise_sizes)))
        return actions

    def apply(self, s: PokerState, action: Any) -> PokerState:
        if self.current_player(s) == CHANCE:
            if len(s.hands) < 2:
                return s._replace(hands=(*s.hands, tuple(action)))
            return s._replace(board=(*s.board, *action))
        me, other = s.to_act, 1 - s.to_act
        history = (*s.history[:-1], (*s.history[-1], action))
        if action == FOLD:
            return s._replace(history=history, folded=me)
        contrib = list(s.contrib)
        contrib[me] = contrib[other]
        if action == CALL:
            if s.raises > 0 or len(history[-1]) >= 2:  # a call of a bet, or check-check: the round is over
                nxt = s.round + 1
                if nxt < len(self.poker.rounds):
                    return s._replace(history=(*history, ()), contrib=(contrib[0], contrib[1]), round=nxt,
                                      to_act=self.poker.rounds[nxt].first_player, raises=0)
                return s._replace(history=history, contrib=(contrib[0], contrib[1]), round=nxt)
            return s._replace(history=history, contrib=(contrib[0], contrib[1]), to_act=other)
        contrib[me] += self.poker.rounds[s.round].raise_sizes[action - RAISE]
        return s._replace(history=history, contrib=(contrib[0], contrib[1]), to_act=other, raises=s.raises + 1)

    def utility(self, s: PokerState) -> float:
        if s.folded == 0:
            return -s.contrib[0]
        if s.folded == 1:
            return s.contrib[1]
        ranks0 = self._rank_of([self._rank(c) for c in s.hands[0]], [self._rank(c) for c in s.board])  # type: ignore[attr-defined]
        ranks1 = self._rank_of([self._rank(c) for c in s.hands[1]], [self._rank(c) for c in s.board])  # type: ignore[attr-defined]
        if ranks0 > ranks1:
            return s.contrib[1]
        if ranks1 > ranks0:
            return -s.contrib[0]
        return 0.0

    def _token(self, rnd: int, action: int) -> str:
        if action == FOLD:
            return "f"
        if action == CALL:
            return "c"
        sizes = self.poker.rounds[rnd].raise_sizes
        return "r" if len(sizes) == 1 else f"r{action - RAISE}"

    def infoset_key(self, s: PokerState) -> str:
        """``private|board|history`` from the acting player's view, e.g. ``'Ks|Jh|rc/c'`` in Leduc."""
        p = s.to_act
        hand = "".join(self.card_label(c) for c in s.hands[p])
        board = "".join(self.card_label(c) for c in s.board)
        history = "/".join("".join(self._token(i, a) for a in h) for i, h in enumerate(s.history))
        return f"{hand}|{board}|{history}"

    def action_label(self, s: PokerState, action: Any) -> str:
        if self.current_player(s) == CHANCE:
            return "".join(self.card_label(c) for c in action)
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if s.contrib[1 - s.to_act] > s.contrib[s.to_act] else "check"
        size = self.poker.rounds[s.round].raise_sizes[action - RAISE]
        verb = "raise" if s.raises > 0 else "bet"
        return f"{verb} {size:g}"

    # -- terminal play -------------------------------------------------------------------------------------------
    game_type = GameType(players=2, zero_sum=True, has_fold=True)

    def describe_state(self, s: PokerState, seat: int) -> str:
        board = self._cards(s.board) if s.board else "(none)"
        mine, theirs = s.contrib[seat], s.contrib[1 - seat]
        # the actions so far, one letter each (c check/call, r bet/raise, f fold) and rounds separated by '/',
        # so a player who acts second sees what the bot did
        betting = "/".join("".join("f" if a == FOLD else "c" if a == CALL else "r" for a in actions)
                           for actions in s.history)
        return (f"Your card: {self._cards(s.hands[seat])}   Board: {board}\n"
                f"Pot {mine + theirs:g}: you {mine:g}, bot {theirs:g}   Round {s.round + 1}"
                f"   Betting: {betting.strip('/') or '-'}")

    def action_key(self, s: PokerState, action: int) -> str:
        if action == FOLD:
            return "f"
        return "c" if action == CALL else "r"

    def parse_action(self, s: PokerState, text: str) -> int | None:
        legal = self.legal_actions(s)
        if text in ("k", "check", "call"):
            return CALL
        if text in ("b", "bet", "raise") and legal[-1] >= RAISE:
            return legal[-1]  # the biggest raise, as the key r
        if text == "fold" and FOLD in legal:
            return FOLD
        return None

    def play_help(self) -> str:
        return "Type f to fold, c to check or call, r to bet or raise; q quits."

    def end_summary(self, s: PokerState, payoff: float, seat: int) -> str:
        if s.folded >= 0:
            line = "You folded. " if s.folded == seat else "The bot folded. "
        else:
            board = f" with board {self._cards(s.board)}" if s.board else ""
            line = f"Showdown{board}: you {self._cards(s.hands[seat])}, bot {self._cards(s.hands[1 - seat])}. "
        if not payoff:
            return line + "Split pot."
        return line + f"You {'won' if payoff > 0 else 'lost'} {abs(payoff):g} chips."

    def _cards(self, cards: tuple[int, ...]) -> str:
        return " ".join(self.card_label(c) for c in cards)

    # -- OpenSpiel ---------------------------------------------------------------------------------------------
    def openspiel_infostate(self, s: PokerState) -> str:
        """OpenSpiel's ``information_state_string`` of the acting player (presets ``kuhn`` and ``leduc`` only)."""
        p = s.to_act
        if self.poker.openspiel_game == "kuhn_poker":
            # Kuhn: the private card (0 J, 1 Q, 2 K) then 'p' (pass: check or fold) or 'b' (bet: bet or call).
            letters, bet_seen = [], False
            for a in s.history[0]:
                letters.append("b" if a >= RAISE or (a == CALL and bet_seen) else "p")
                bet_seen = bet_seen or a >= RAISE
            return str(s.hands[p][0]) + "".join(letters)
        if self.poker.openspiel_game == "leduc_poker":
            pot = s.contrib[0] + s.contrib[1]
            money = " ".join(_fmt(100 - c) for c in s.contrib)
            public = f"[Public: {s.board[0]}]" if s.board else ""
            seqs = [" ".join(str(self.openspiel_action(s, a)) for a in h) for h in s.history] + ["", ""]
            return (f"[Observer: {p}][Private: {s.hands[p][0]}][Round {s.round + 1}][Player: {p}][Pot: {_fmt(pot)}]"
                    f"[Money: {money}]{public}[Round1: {seqs[0]}][Round2: {seqs[1]}]")
        raise InvalidGameError(f"{self.name} has no OpenSpiel counterpart (only the kuhn and leduc presets do)")

    def openspiel_action(self, s: PokerState, action: int) -> int:
        """OpenSpiel's action id: Kuhn 0 pass / 1 bet; Leduc 0 fold / 1 call / 2 raise."""
        if self.poker.openspiel_game == "kuhn_poker":
            facing = s.contrib[1 - s.to_act] > s.contrib[s.to_act]
            return 1 if action >= RAISE or (action == CALL and facing) else 0
        return 0 if action == FOLD else int(action)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


KUHN = PokerSpec("kuhn", ranks=3, suits=1, private_cards=1, rounds=(BettingRound(0, (1.0,), 1),), ante=1.0,
                 showdown="high_card", openspiel_game="kuhn_poker")
LEDUC = PokerSpec("leduc", ranks=3, suits=2, private_cards=1,
                  rounds=(BettingRound(0, (2.0,), 2), BettingRound(1, (4.0,), 2)), ante=1.0,
                  showdown="pair_then_high", openspiel_game="leduc_poker")
PRESETS: dict[str, PokerSpec] = {
    "kuhn": KUHN,
    "leduc": LEDUC,
    # Kuhn with four ranks; Leduc with a third suit and with a two-round, two-size ("small/big") bet.
    "kuhn4": PokerSpec("kuhn4", ranks=4, suits=1, private_cards=1, rounds=(BettingRound(0, (1.0,), 1),)),
    "leduc3s": PokerSpec("leduc3s", ranks=3, suits=3, private_cards=1,
                         rounds=(BettingRound(0, (2.0,), 2), BettingRound(1, (4.0,), 2)), showdown="pair_then_high"),
    "leduc-2sizes": PokerSpec("leduc-2sizes", ranks=3, suits=2, private_cards=1,
                              rounds=(BettingRound(0, (1.0, 2.0), 2), BettingRound(1, (2.0, 4.0), 2)),
                              showdown="pair_then_high"),
}


def kuhn() -> LimitPoker:
    """Kuhn poker: J<Q<K, ante 1, one bet of 1. Value for the first player -1/18 chips per game.

    >>> kuhn().name
    'kuhn'
    """
    return LimitPoker(KUHN)


def leduc() -> LimitPoker:
    """Leduc hold'em (OpenSpiel conventions): value for the first player -0.0856064 chips per game."""
    return LimitPoker(LEDUC)


def preset(name: str) -> LimitPoker:
    """A named preset of the family (``kuhn``, ``leduc``, ``kuhn4``, ``leduc3s``, ``leduc-2sizes``)."""
    spec = PRESETS.get(name)
    if spec is None:
        raise InvalidGameError(f"unknown poker preset {name!r} (expected one of {', '.join(PRESETS)})")
    return LimitPoker(spec)


def _from_spec(spec: Mapping[str, Any]) -> LimitPoker:
    return LimitPoker(PokerSpec.from_dict({k: v for k, v in spec.items() if k != "family"}))


PRESET_SUMMARIES = {
    "kuhn": "Kuhn poker: 3 cards, one bet",
    "leduc": "Leduc hold'em: 6 cards, a board card, two betting rounds",
    "kuhn4": "Kuhn poker with 4 ranks",
    "leduc3s": "Leduc hold'em with a third suit",
    "leduc-2sizes": "Leduc hold'em with two bet sizes per round",
}

register_family("limit_poker", (LimitPoker,), _from_spec)
for _name in PRESETS:
    register_game(_name, partial(preset, _name), PRESET_SUMMARIES[_name], (SOLVE, PLAY, WEB))
