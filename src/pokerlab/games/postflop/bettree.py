"""No-limit bet trees in the syntax players type, and the action tree of one spot (betting only, no cards).

Sizes, comma-separated (postflop-solver's syntax, ``src/bet_size.rs``):

=============  ===========================================================================================
``75%``        a bet of 75% of the pot; as a raise, the call plus 75% of the pot after the call
``2.5x``       a raise to 2.5 times the previous bet (raises only)
``120c``       a bet or raise of 120 chips (a raise: 120 more than the previous bet)
``e``          geometric: the same fraction of the pot on every remaining street leaves the player all-in
               (``2e``: over two streets; ``e150%``: at most 150% of the pot)
``a``          all-in
=============  ===========================================================================================

Per street: ``"flop: 33%, 75%, a; turn: 50%, a; river: 75%"``; a list without a street applies to every street.
The tree follows postflop-solver's rules (so that its tree and ours are the same game): amounts in whole
chips, rounded; a bet is at least the call plus the previous bet, at most the stack; all-in is added when it
is at most ``add_allin`` times the pot, a size that leaves at most ``force_allin`` times the pot behind after
the call becomes all-in; sizes within ``merging`` of a larger one (as pot ratios) are merged into it. A raise
cap (``raise_cap``) limits the raises per street (``None``: until all-in).

>>> tree = build_action_tree(TreeConfig(pot=200, stack=900, street=2, bets=parse_street_sizes("33%, 75%, a"),
...                                     raises=parse_street_sizes("3x, a", raises=True)))
>>> tree.actions
('check', 'bet 66', 'bet 150', 'all-in 900')
>>> count_nodes(tree)
(24, 69)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from pokerlab.errors import InvalidArgumentError

STREETS = ("flop", "turn", "river")
MAX_SIZES = 8
"""At most this many sizes per list (a tree grows as the product of its lists)."""


class BetTreeError(InvalidArgumentError):
    """A bet tree or bet size that does not parse or makes no sense."""


@dataclass(frozen=True)
class BetSize:
    """One size: ``kind`` is ``pot`` (``value`` a fraction of the pot), ``prev`` (a multiple of the previous
    bet), ``chips``, ``geometric`` (``streets``, 0 for all remaining; ``value`` the maximum pot fraction) or
    ``allin``."""

    kind: str
    value: float = 0.0
    streets: int = 0

    @property
    def text(self) -> str:
        if self.kind == "pot":
            return f"{self.value * 100:g}%"
        if self.kind == "prev":
            return f"{self.value:g}x"
        if self.kind == "chips":
            return f"{self.value:g}c"
        if self.kind == "geometric":
            head = f"{self.streets}e" if self.streets else "e"
            return head if math.isinf(self.value) else f"{head}{self.value * 100:g}%"
        return "a"


_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"


def parse_size(token: str, *, raises: bool = False) -> BetSize:
    """One size token (see the module docstring); :class:`BetTreeError` for what does not parse or is not
    positive.

    >>> parse_size("75%"), parse_size("2.5x", raises=True).value, parse_size("e").kind
    (BetSize(kind='pot', value=0.75, streets=0), 2.5, 'geometric')
    """
    text = token.strip().lower()
    if text in ("a", "allin", "all-in"):
        return BetSize("allin")
    match = re.fullmatch(_NUMBER + r"%", text)
    if match:
        value = float(match.group(1)) / 100
        if not 0 < value <= 100:
            raise BetTreeError(f"bet size {token.strip()!r}: a pot fraction must be above 0% and at most 10000%")
        return BetSize("pot", value)
    match = re.fullmatch(_NUMBER + r"x", text)
    if match:
        if not raises:
            raise BetTreeError(f"bet size {token.strip()!r}: 'x' (times the previous bet) is for raises only")
        value = float(match.group(1))
        if not 1 < value <= 100:
            raise BetTreeError(f"raise size {token.strip()!r}: a raise multiple must be above 1x and at most 100x")
        return BetSize("prev", value)
    match = re.fullmatch(_NUMBER + r"c", text)
    if match:
        value = float(match.group(1))
        if value <= 0 or value != int(value):
            raise BetTreeError(f"bet size {token.strip()!r}: chips must be a whole number above 0")
        return BetSize("chips", value)
    match = re.fullmatch(r"(\d?)e(?:" + _NUMBER + r"%)?", text)
    if match:
        streets = int(match.group(1) or 0)
        cap = float(match.group(2)) / 100 if match.group(2) else math.inf
        if match.group(1) and not 1 <= streets <= 3 or cap <= 0:
            raise BetTreeError(f"bet size {token.strip()!r}: geometric sizes take 1 to 3 streets and a positive cap")
        return BetSize("geometric", cap, streets)
    raise BetTreeError(f"bet size {token.strip()!r} does not parse: use a pot fraction (75%), a raise multiple "
                       "(2.5x), chips (120c), e (geometric) or a (all-in)")


def parse_sizes(text: str, *, raises: bool = False) -> tuple[BetSize, ...]:
    """A comma-separated list of sizes (empty text: no sizes), duplicates removed, order kept."""
    tokens = [t for t in text.split(",") if t.strip()]
    if len(tokens) > MAX_SIZES:
        raise BetTreeError(f"at most {MAX_SIZES} sizes per list, got {len(tokens)} in {text.strip()!r}")
    return tuple(dict.fromkeys(parse_size(t, raises=raises) for t in tokens))


def parse_street_sizes(text: str, *, raises: bool = False) -> tuple[tuple[BetSize, ...], ...]:
    """Sizes per street (flop, turn, river) from ``"flop: 33%, a; turn: 50%; river: 75%"`` or one list for
    every street (``"33%, 75%, a"``). A street the text does not name gets no sizes when others are named.

    >>> [len(s) for s in parse_street_sizes("flop: 33%, a; river: 75%")]
    [2, 0, 1]
    """
    parts = [p for p in text.split(";") if p.strip()]
    if len(parts) == 1 and ":" not in parts[0]:
        one = parse_sizes(parts[0], raises=raises)
        return (one, one, one)
    sizes: dict[str, tuple[BetSize, ...]] = {}
    for part in parts:
        name, colon, body = part.partition(":")
        street = name.strip().lower()
        if not colon or street not in STREETS:
            raise BetTreeError(f"{part.strip()!r}: expected 'flop: ...', 'turn: ...' or 'river: ...' "
                               "(or one list of sizes for every street)")
        if street in sizes:
            raise BetTreeError(f"street {street!r} given twice in {text.strip()!r}")
        sizes[street] = parse_sizes(body, raises=raises)
    return tuple(sizes.get(s, ()) for s in STREETS)


def sizes_text(sizes: tuple[tuple[BetSize, ...], ...]) -> str:
    """The text of sizes per street, as :func:`parse_street_sizes` reads it."""
    return "; ".join(f"{s}: {', '.join(b.text for b in sz)}" for s, sz in zip(STREETS, sizes, strict=True))


@dataclass(frozen=True)
class TreeConfig:
    """The betting of a spot: starting ``pot`` and effective ``stack`` (whole chips), the first ``street``
    (0 flop, 1 turn, 2 river), bet and raise sizes per street (both players), donk bets (OOP leading a street
    after calling the last one), the all-in thresholds, the merging threshold and a raise cap per street; the
    ``rake`` (a share of the final pot, 0 to 1, taken from the winner of every pot, folds included, half from
    each player on a tie) and its ``rake_cap`` (chips; None: no cap), as postflop-solver rakes."""

    pot: int
    stack: int
    street: int
    bets: tuple[tuple[BetSize, ...], ...]
    raises: tuple[tuple[BetSize, ...], ...]
    donk: bool = True
    add_allin: float = 1.5
    force_allin: float = 0.15
    merging: float = 0.1
    raise_cap: int | None = None
    rake: float = 0.0
    rake_cap: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pot, int) or self.pot <= 0:
            raise BetTreeError(f"the starting pot must be a whole number of chips above 0, got {self.pot!r}")
        if not isinstance(self.stack, int) or self.stack < 0:
            raise BetTreeError(f"the effective stack must be a whole number of chips, 0 or more, got {self.stack!r}")
        for name, value in (("add-all-in", self.add_allin), ("force-all-in", self.force_allin),
                            ("merging", self.merging)):
            if not math.isfinite(value) or value < 0:
                raise BetTreeError(f"the {name} threshold must be a number 0 or more, got {value!r}")
        if self.raise_cap is not None and self.raise_cap < 0:
            raise BetTreeError(f"the raise cap must be 0 or more, got {self.raise_cap}")
        if not (math.isfinite(self.rake) and 0 <= self.rake < 1):
            raise BetTreeError(f"the rake is a share of the pot from 0 to below 1 (0.05 for 5%), got {self.rake!r}")
        if self.rake_cap is not None and not (math.isfinite(self.rake_cap) and self.rake_cap >= 0):
            raise BetTreeError(f"the rake cap must be a number of chips, 0 or more, got {self.rake_cap!r}")

    def rake_of(self, amount: float) -> float:
        """Chips raked from a pot where each player put ``amount`` beyond the starting pot.

        >>> config = TreeConfig(pot=100, stack=100, street=2, bets=((), (), ()), raises=((), (), ()), rake=0.05,
        ...                     rake_cap=8)
        >>> config.rake_of(0), config.rake_of(100)
        (5.0, 8.0)
        """
        raked = self.rake * (self.pot + 2 * amount)
        return raked if self.rake_cap is None else min(raked, float(self.rake_cap))


FOLD, CHECK, CALL, BET, RAISE, ALLIN = range(6)
_WORDS = {FOLD: "fold", CHECK: "check", CALL: "call", BET: "bet", RAISE: "raise to", ALLIN: "all-in"}


@dataclass
class ActionNode:
    """A node of the action tree: ``kind`` is ``decision``, ``chance`` (the next street's card), ``fold`` or
    ``showdown``; ``player`` 0 (OOP) or 1 (IP) at decisions and the folder at a fold; ``amount`` the chips each
    player has put in beyond the starting pot (the smaller of the two at a fold); ``street`` 0..2.
    ``moves`` are (kind, chips bet this street after the action) pairs, one per child."""

    kind: str
    player: int
    street: int
    amount: int
    pot_before: int = 0
    moves: list[tuple[int, int]] = field(default_factory=list)
    children: list[ActionNode] = field(default_factory=list)

    @property
    def actions(self) -> tuple[str, ...]:
        """The labels of the moves (``check``, ``bet 150``, ``raise to 450``, ``all-in 900``, ...)."""
        return tuple(move_label(kind, chips) for kind, chips in self.moves)


def move_label(kind: int, chips: int) -> str:
    """``bet 150`` etc.: chips are the player's bet this street after the move."""
    return _WORDS[kind] if kind in (FOLD, CHECK, CALL) else f"{_WORDS[kind]} {chips}"


@dataclass
class _Info:
    prev: int = -1  # last move kind (-1: none, -2: a card was dealt)
    bets: int = 0
    allin: bool = False
    oop_called: bool = False
    stack: tuple[int, int] = (0, 0)
    prev_amount: int = 0


def _chips(amount: float) -> int:
    """``amount`` to whole chips, halves rounded up (Rust's ``f64::round``, as postflop-solver sizes its bets;
    Python's ``round`` takes halves to the even neighbour: a 50% bet into a pot of 245 would be 122, not 123).

    >>> _chips(122.5), _chips(32.5), _chips(32.4)
    (123, 33, 32)
    """
    return math.floor(amount + 0.5)


def _merge(moves: list[tuple[int, int]], pot: int, offset: int, param: float) -> list[tuple[int, int]]:
    """Drop a size within ``param`` (pot ratio) of the next larger kept one (postflop-solver's rule)."""
    kept: list[tuple[int, int]] = []
    current = 2**31 - 1
    for kind, amount in reversed(moves):
        if kind in (BET, RAISE, ALLIN):
            ratio = (amount - offset) / pot
            threshold = ((current - offset) / pot - param) / (1 + param)
            if ratio < threshold * (1 - 1e-12):
                kept.append((kind, amount))
                current = amount
        else:
            kept.append((kind, amount))
    return kept[::-1]


def _moves(config: TreeConfig, node: ActionNode, info: _Info) -> list[tuple[int, int]]:
    player = node.player
    mine, theirs = info.stack[player], info.stack[1 - player]
    prev = info.prev_amount
    to_call = mine - theirs
    pot = config.pot + 2 * (node.amount + to_call)
    max_amount = theirs + prev
    min_amount = min(max(prev + to_call, 1), max_amount)
    spr_after_call = theirs / pot
    remaining = 3 - node.street

    def geometric(streets: int, cap: float) -> int:
        ratio = float(((2 * spr_after_call + 1) ** (1 / streets) - 1) / 2)
        return _chips(pot * min(ratio, cap))

    moves: list[tuple[int, int]] = []
    if info.prev in (-1, -2, CHECK):
        moves.append((CHECK, 0))
        may_bet = config.donk or not (info.prev == -2 and info.oop_called and player == 0)
        for size in config.bets[node.street] if may_bet else ():
            if size.kind == "pot":
                moves.append((BET, _chips(pot * size.value)))
            elif size.kind == "chips":
                moves.append((BET, int(size.value)))
            elif size.kind == "geometric":
                moves.append((BET, geometric(size.streets or remaining, size.value)))
            elif size.kind == "allin":
                moves.append((ALLIN, max_amount))
        if may_bet and max_amount <= _chips(pot * config.add_allin):
            moves.append((ALLIN, max_amount))
    else:
        moves += [(FOLD, 0), (CALL, 0)]
        capped = config.raise_cap is not None and info.bets - 1 >= config.raise_cap
        if not info.allin and not capped:
            for size in config.raises[node.street]:
                if size.kind == "pot":
                    moves.append((RAISE, prev + _chips(pot * size.value)))
                elif size.kind == "prev":
                    moves.append((RAISE, _chips(prev * size.value)))
                elif size.kind == "chips":
                    moves.append((RAISE, prev + int(size.value)))
                elif size.kind == "geometric":
                    streets = max((size.streets or remaining) - info.bets + 1, 1)
                    moves.append((RAISE, prev + geometric(streets, size.value)))
                else:
                    moves.append((ALLIN, max_amount))
            if max_amount <= prev + _chips(pot * config.add_allin):
                moves.append((ALLIN, max_amount))

    def forced(amount: int) -> bool:
        new_pot = pot + 2 * (amount - prev)
        return max_amount <= amount + _chips(new_pot * config.force_allin)

    clamped = []
    for kind, amount in moves:
        if kind in (BET, RAISE):
            amount = min(max(amount, min_amount), max_amount)
            if forced(amount):
                kind, amount = ALLIN, max_amount
        clamped.append((kind, amount))
    return _merge(sorted(set(clamped)), pot, prev, config.merging)


def _next_info(info: _Info, player: int, kind: int, amount: int) -> _Info:
    stack = list(info.stack)
    if kind == CHECK:
        return _Info(CHECK, info.bets, info.allin, False, info.stack, info.prev_amount)
    if kind == CALL:
        stack[player] = stack[1 - player]
        return _Info(CALL, 0, info.allin, player == 0, (stack[0], stack[1]), 0)
    if kind in (BET, RAISE, ALLIN):
        to_call = stack[player] - stack[1 - player]
        stack[player] -= amount - info.prev_amount + to_call
        return _Info(kind, info.bets + 1, kind == ALLIN, info.oop_called, (stack[0], stack[1]), amount)
    return info


def _build(config: TreeConfig, node: ActionNode, info: _Info, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise BetTreeError("the bet tree has more than 2,000,000 betting nodes per runout: use fewer sizes or a "
                           "raise cap")
    if node.kind == "chance":
        if info.allin and node.street + 1 < 2:
            child = ActionNode("chance", -1, node.street + 1, node.amount)
        elif info.allin:
            child = ActionNode("showdown", -1, 2, node.amount)
        else:
            child = ActionNode("decision", 0, node.street + 1, node.amount)
        node.children.append(child)
        nxt = _Info(-2, 0, info.allin, info.oop_called, info.stack, 0)
        _build(config, child, nxt, budget)
        return
    if node.kind != "decision":
        return
    node.pot_before = config.pot + 2 * node.amount
    node.moves = _moves(config, node, info)
    player = node.player
    to_call = info.stack[player] - info.stack[1 - player]
    after_call = "showdown" if node.street == 2 else "chance"
    for kind, amount in node.moves:
        if kind == FOLD:
            child = ActionNode("fold", player, node.street, node.amount)
        elif kind == CHECK:
            child = (ActionNode("decision", 1, node.street, node.amount) if player == 0
                     else ActionNode(after_call, -1, node.street, node.amount))
        elif kind == CALL:
            child = ActionNode(after_call, -1, node.street, node.amount + to_call)
        else:
            child = ActionNode("decision", 1 - player, node.street, node.amount + to_call)
        node.children.append(child)
        _build(config, child, _next_info(info, player, kind, amount), budget)


def build_action_tree(config: TreeConfig) -> ActionNode:
    """The action tree of ``config``: one subtree per street transition (a chance node has one child, the
    cards are dealt later by the game), OOP to act first. With a stack of 0 the root is a showdown (or the
    next card)."""
    if config.stack == 0:
        root = ActionNode("chance" if config.street < 2 else "showdown", -1, config.street, 0)
        _build(config, root, _Info(allin=True), [2_000_000])
        return root
    root = ActionNode("decision", 0, config.street, 0)
    _build(config, root, _Info(stack=(config.stack, config.stack)), [2_000_000])
    return root


def count_nodes(root: ActionNode) -> tuple[int, int]:
    """(decision nodes, all nodes) of the action tree, one runout (postflop-solver counts all nodes)."""
    decisions = total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        total += 1
        decisions += node.kind == "decision"
        stack.extend(node.children)
    return decisions, total
