"""Node locking: the strategy of some nodes of a postflop spot fixed (for the whole range or some hands), the
rest solved against it.

A lock names a node by its action line, as :meth:`~pokerlab.postflop.result.PostflopResult.node` reads it
(``check, bet 75%``; a turn or river card where the line crosses a chance node, or ``*`` for every card), a
mix of that node's actions (probabilities summing to 1; one action alone means always) and, optionally, the
hands it holds for (pokerlab's range syntax; weights are ignored): those hands play the mix at every node the
line names, every other hand stays free, as PioSOLVER and GTO+ lock. "IP never bluffs the river with 65s, 43s"
is a lock of those hands to ``check``. Where two locks name the same hand at the same node the later one holds.

Text form (the CLI's ``--lock``, one lock per line of a lock file), three ``key=value`` fields separated by
``;``, actions and probabilities by ``:`` (``30%`` or ``0.3``)::

    line=check, bet 75%; strategy=fold: 30%, call: 70%
    line=check, check, *; strategy=check; hands=65s, 43s

JSON form (``--lock-file``, the ``lock=`` argument of :func:`~pokerlab.postflop.solve`): a list of objects
``{"line": "check, bet 75%", "strategy": {"fold": 0.3, "call": 0.7}, "hands": "KQs"}`` (``line`` may be a list,
``strategy`` the text above), or of strings in the text form.

>>> lock = parse_lock("line=check, bet 75%; strategy=fold: 30%, call: 70%")
>>> lock.line, lock.strategy
(('check', 'bet 75%'), (('fold', 0.3), ('call', 0.7)))
>>> lock.text
'line=check, bet 75%; strategy=fold: 30%, call: 70%'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.classes import COMBOS, combo_index
from pokerlab.cards.encoding import format_card, format_cards, parse_card
from pokerlab.cards.ranges import parse_range
from pokerlab.errors import FileFormatError, InvalidArgumentError, InvalidCardError, InvalidRangeError
from pokerlab.games.postflop.bettree import STREETS
from pokerlab.games.postflop.game import SWAPS, PostflopGame, _swap_card
from pokerlab.games.postflop.kernels import CHANCE_NODE, DECISION_NODE

EVERY_CARD = ("*", "any", "every")
"""Words that stand for every card at a chance node."""
PLAYERS = ("OOP", "IP")
MAX_LOCKS = 1000


class LockError(InvalidArgumentError):
    """A lock that does not parse or does not fit the spot (line, actions, probabilities, hands)."""


@dataclass(frozen=True)
class Lock:
    """One lock: the ``line`` to the node (steps; ``*`` at a chance node: every card), the ``strategy`` (action
    text, probability) pairs as given, the ``hands`` it holds for (range text; None: the whole range)."""

    line: tuple[str, ...]
    strategy: tuple[tuple[str, float], ...]
    hands: str | None = None

    @property
    def text(self) -> str:
        """The text form (parsed back by :func:`parse_lock`)."""
        mix = ", ".join(f"{a}: {_probability_text(p)}" for a, p in self.strategy)
        out = f"line={', '.join(self.line)}; strategy={mix}"
        return out + (f"; hands={self.hands}" if self.hands is not None else "")

    def to_dict(self) -> dict[str, Any]:
        return {"line": ", ".join(self.line), "strategy": dict(self.strategy), "hands": self.hands}


def _probability_text(p: float) -> str:
    """``30%`` where that reads back as ``p`` exactly, else ``p`` in full (``0.3333333333333333``)."""
    percent = f"{100 * p:g}%"
    return percent if float(percent[:-1]) / 100 == p else repr(p)


def _line(value: object) -> tuple[str, ...]:
    parts = [value] if isinstance(value, str) else value if isinstance(value, Sequence) else None
    if parts is None or not all(isinstance(p, str) for p in parts):
        raise LockError(f"a lock's line is text such as 'check, bet 75%', got {value!r}")
    steps = tuple(s.strip() for part in parts for s in str(part).split(",") if s.strip())
    return () if steps in ((), ("root",)) else steps


def _probability(text: str, action: str) -> float:
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise LockError(f"{action}: {raw!r} is not a probability (30% or 0.3)") from None
    if not 0 <= value <= 1:
        raise LockError(f"{action}: probability {raw} is outside 0 to 1 (0% to 100%)")
    return value


def _strategy(value: object) -> tuple[tuple[str, float], ...]:
    pairs: list[tuple[str, float]] = []
    if isinstance(value, Mapping):
        for action, prob in value.items():
            pairs.append((str(action).strip(), _probability(str(prob), str(action))))
    elif isinstance(value, str):
        items = [item.strip() for item in value.split(",") if item.strip()]
        for item in items:
            action, colon, prob = item.rpartition(":")
            if not colon:
                if len(items) > 1:
                    raise LockError(f"strategy {value!r}: give each action its probability, as 'fold: 30%, "
                                    "call: 70%' (one action alone means always)")
                action, prob = item, "1"
            pairs.append((action.strip(), _probability(prob, action.strip())))
    else:
        raise LockError(f"a lock's strategy is text such as 'fold: 30%, call: 70%' or a mapping, got {value!r}")
    if not pairs:
        raise LockError("a lock needs a strategy: actions and their probabilities, as 'fold: 30%, call: 70%'")
    total = sum(p for _, p in pairs)
    if abs(total - 1.0) > 1e-6:
        raise LockError(f"the strategy's probabilities add up to {total:g}, not 1: "
                        + ", ".join(f"{a}: {p:g}" for a, p in pairs))
    return tuple(pairs)


def parse_lock(text: str) -> Lock:
    """A lock from its text form (see the module docstring); :class:`LockError` for what does not parse."""
    fields: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        key = key.strip().lower()
        if not equals or key not in ("line", "strategy", "hands"):
            raise LockError(f"lock {text!r}: expected 'line=...; strategy=...[; hands=...]', got {part.strip()!r}")
        if key in fields:
            raise LockError(f"lock {text!r} gives {key}= twice")
        fields[key] = value.strip()
    return lock_from_dict(fields, text)


def lock_from_dict(value: Mapping[str, Any], where: object = None) -> Lock:
    """A lock from its JSON form ``{"line", "strategy", "hands"}``."""
    name = repr(where if where is not None else dict(value))
    unknown = set(value) - {"line", "strategy", "hands"}
    if unknown:
        raise LockError(f"lock {name}: unknown field {sorted(unknown)[0]!r} (line, strategy, hands)")
    if "strategy" not in value:
        raise LockError(f"lock {name} has no strategy: add e.g. 'strategy=check' or 'strategy=fold: 30%, call: 70%'")
    hands = value.get("hands")
    if hands is not None and not (isinstance(hands, str) and hands.strip()):
        raise LockError(f"lock {name}: hands are range text such as 'KQs, 64s', got {hands!r}")
    return Lock(_line(value.get("line", "")), _strategy(value["strategy"]),
                None if hands is None else " ".join(str(hands).split()))


def as_locks(value: object) -> tuple[Lock, ...]:
    """Locks from what a caller may give: None, a :class:`Lock`, its text or JSON form, or a list of those."""
    if value is None:
        return ()
    items = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
    out = []
    for item in items:
        if isinstance(item, Lock):
            out.append(item)
        elif isinstance(item, str):
            out.append(parse_lock(item))
        elif isinstance(item, Mapping):
            out.append(lock_from_dict(item))
        else:
            raise LockError(f"a lock is text ('line=...; strategy=...') or a mapping, got {item!r}")
    if len(out) > MAX_LOCKS:
        raise LockError(f"{len(out)} locks: at most {MAX_LOCKS}")
    return tuple(out)


def read_lock_file(path: str | Path) -> tuple[Lock, ...]:
    """Locks from a file: JSON (a list, or ``{"locks": [...]}``) or text, one lock per line (``#`` comments)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise FileFormatError(f"{path}: cannot read the lock file ({error})") from None
    if text.lstrip().startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise FileFormatError(f"{path}: not valid JSON ({error})") from None
        if isinstance(data, dict):
            data = data.get("locks", [data] if "strategy" in data else None)
        if not isinstance(data, list):
            raise FileFormatError(f"{path}: expected a list of locks or {{\"locks\": [...]}}")
        return as_locks(data)
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return as_locks([line for line in lines if line])


@dataclass(frozen=True)
class ResolvedLocks:
    """Locks placed on a game: ``rows`` (node: the actor's hand indices and their mixes ``(actions, hands)``),
    for the solver), ``symmetric`` (False: some lock tells apart suits the game merges, and the game must be
    built without merging), and per lock the player and the number of nodes and hands it fixes."""

    rows: dict[int, tuple[np.ndarray, np.ndarray]]
    symmetric: bool
    summary: tuple[dict[str, Any], ...]


def _nodes(game: PostflopGame, lock: Lock) -> tuple[list[int], bool]:
    """The decision nodes the lock's line names, and whether the line names a card that the game merges."""
    tree = game.tree
    frontier = [0]
    words: list[str] = []
    for step in lock.line:
        after: list[int] = []
        for node in frontier:
            kind = int(tree.kind[node])
            first = int(tree.first_child[node])
            count = int(tree.num_children[node])
            street = STREETS[len(game.board) - 3 + len(game.dealt[node]) + 1] if kind == CHANCE_NODE else ""
            if kind == CHANCE_NODE:
                if step.lower() in EVERY_CARD:
                    after.extend(range(first, first + count))
                    continue
                try:
                    card = parse_card(step)
                except (InvalidCardError, ValueError):
                    raise LockError(f"lock {lock.text!r}: the {street} is dealt after "
                                    f"{', '.join(words) or 'the root'}; give a card (e.g. {game.labels[node][0]}) "
                                    f"or * for every card, not {step!r}") from None
                if card in game.board or card in game.dealt[node]:
                    raise LockError(f"lock {lock.text!r}: {format_card(card)} cannot be dealt on the {street} "
                                    f"(the board is {format_cards(game.board + game.dealt[node])})")
                hit = [c for c in range(first, first + count) if int(tree.card[c]) == card]
                if not hit or int(tree.iso_count[hit[0]]):
                    return [], False  # a merged card: only a game without merging tells it from its twins
                after.append(hit[0])
                continue
            if kind != DECISION_NODE:
                raise LockError(f"lock {lock.text!r}: the line ends at a terminal before {step!r}")
            if step.lower() in EVERY_CARD:
                raise LockError(f"lock {lock.text!r}: {step} stands for every card where one is dealt; here "
                                f"{PLAYERS[int(tree.player[node])]} acts ({', '.join(game.labels[node])})")
            try:
                after.append(first + game.action_index(node, step))
            except InvalidArgumentError as error:
                raise LockError(f"lock {lock.text!r} after {', '.join(words) or 'the root'}: {error}") from None
        words.append(step)
        frontier = after
    kind = int(tree.kind[frontier[0]])
    if kind == CHANCE_NODE:
        street = STREETS[len(game.board) - 3 + len(game.dealt[frontier[0]]) + 1]
        raise LockError(f"lock {lock.text!r}: its line ends where the {street} is dealt; a lock needs a node "
                        f"where a player acts: add a card or * and the actions after it")
    if kind != DECISION_NODE:
        raise LockError(f"lock {lock.text!r}: its line ends at a terminal (a fold or a showdown), where nobody acts")
    return frontier, True


def _hand_rows(game: PostflopGame, lock: Lock, player: int) -> tuple[np.ndarray, bool]:
    """The indices of the lock's hands among ``player``'s, and whether the set is unchanged by the suit swaps
    the game merges."""
    count = game.num_private_hands(player)
    if lock.hands is None:
        return np.arange(count), True
    try:
        named = parse_range(lock.hands)
    except InvalidRangeError as error:
        raise LockError(f"lock {lock.text!r}: hands: {error}") from None
    board = 0
    for card in game.board:
        board |= 1 << card
    wanted = [int(k) for k in named.without(board).indices]
    position = {int(k): i for i, k in enumerate(game.combos(player))}
    missing = [k for k in wanted if k not in position]
    if missing or not wanted:
        names = ", ".join(format_cards(COMBOS[k].tolist()) for k in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise LockError(f"lock {lock.text!r}: " + (f"{names}{more} not in {PLAYERS[player]}'s range here; name only "
                                                   f"hands of that range" if missing else
                                                   f"no hand of {lock.hands!r} is left once the board is removed"))
    chosen = set(wanted)
    symmetric = True
    if game.tree.iso_count.any():
        for s in set(game.tree.iso_swaps.tolist()):  # the swaps that merge a card somewhere
            s1, s2 = SWAPS[s]
            image = {combo_index(*(_swap_card(int(c), s1, s2) for c in COMBOS[k])) for k in wanted}
            symmetric &= image == chosen
    return np.array(sorted(position[k] for k in wanted), dtype=np.int64), symmetric


def resolve_locks(game: PostflopGame, locks: Sequence[Lock]) -> ResolvedLocks:
    """Place ``locks`` on ``game`` (:class:`LockError` for a line, action, probability or hand that does not
    fit, saying what to change).

    >>> from pokerlab.postflop import build_game
    >>> game, _ = build_game("Kh9d5c2s2h", "QQ, 99", "KK, JTs", pot=100, stack=150, bets="75%", raises="a")
    >>> placed = resolve_locks(game, [parse_lock("line=check; strategy=check: 25%, bet 75%: 75%; hands=JTs")])
    >>> placed.summary[0]["player"], placed.summary[0]["hands"], placed.rows[1][1][:, 0].tolist()
    ('IP', 4, [0.25, 0.75, 0.0])
    """
    fixed: dict[int, dict[int, np.ndarray]] = {}
    summary = []
    symmetric = True
    for lock in locks:
        nodes, found = _nodes(game, lock)
        if not found:
            symmetric = False
            continue
        tree = game.tree
        player = int(tree.player[nodes[0]])
        mix = np.zeros(int(tree.num_children[nodes[0]]))
        seen: set[int] = set()
        for action, prob in lock.strategy:
            try:
                a = game.action_index(nodes[0], action)
            except InvalidArgumentError as error:
                raise LockError(f"lock {lock.text!r}: {error}") from None
            if a in seen:
                raise LockError(f"lock {lock.text!r} names {game.labels[nodes[0]][a]} twice")
            seen.add(a)
            mix[a] = prob
        mix /= mix.sum()
        hands, same = _hand_rows(game, lock, player)
        symmetric &= same
        for node in nodes:
            at_node = fixed.setdefault(node, {})
            for h in hands.tolist():
                at_node[h] = mix
        summary.append({"lock": lock.text, "player": PLAYERS[player], "nodes": len(nodes), "hands": len(hands),
                        "actions": list(game.labels[nodes[0]])})
    rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for node, by_hand in fixed.items():
        order = sorted(by_hand)
        rows[node] = (np.array(order, dtype=np.int64), np.array([by_hand[h] for h in order]).T)
    return ResolvedLocks(rows, symmetric, tuple(summary))
