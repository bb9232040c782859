"""The push/fold game: one orbit of jam-or-fold preflop poker at a table of 2 to 10 seats, in vector form.

Seats act in order (UTG ... BTN, SB, BB; heads-up the SB acts first). Everyone posts first: the ante, then the
small and big blind (with a big-blind ante the big blind posts the blind, then the ante); a stack that cannot
cover its posts is all-in by posting and takes no decision. Until somebody jams, each seat folds or jams all-in;
after the first jam each later seat calls all-in or folds (any number of callers). Antes are dead money in the
main pot; blinds and calls build side pots by the usual levels, and money nobody can match goes back to its
owner. A seat with nobody left to play against wins the pot without a decision.

Private hands are the 169 hand classes with weights ``combos / 1,326``. A class is an exact summary of its
combos: the game is symmetric under suit relabelling, so against strategies that are constant on classes every
combo of a class has the same value and a best response may be chosen per class (see docs/algorithms.md).
Card removal between the hands of the players:

- two-player showdowns are exact: combo-pair win/tie counts of :mod:`pokerlab.equity.preflop`, summed over
  disjoint combo pairs per class pair;
- the reach of a player who is not in the showdown is conditioned on the hero's hand (exact pairwise removal)
  but taken independent of the other players' hands;
- showdowns of three or more players are evaluated on a fixed sample of deals (``multiway_samples``, seeded):
  a uniform deal of one combo per seat and a board, and per sample one combo of every class for the hero,
  kept when it avoids the board and the other all-in hands. The estimate is unbiased for the value of a hand;
  its standard error is stated by :meth:`PushFoldGame.multiway_error` and its effect on the solution is
  measured in docs/benchmarks.md. Ties in these samples are broken by a random seat priority (exact for chip
  EV in expectation, an approximation of the split for ICM).

Payoffs are a vector per outcome from a ``payoff`` function of the final stacks (chip EV in big blinds, or
ICM money from :mod:`pokerlab.pushfold`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.ranges import COMBO_MASKS, COMBOS
from pokerlab.cards.tables import load_tables
from pokerlab.equity.preflop import NUMBER_OF_CLASSES, PreflopTables, preflop_tables
from pokerlab.errors import InvalidGameError
from pokerlab.games.base import FOLD, TERMINAL, VECTOR_FORM, Action, GameType
from pokerlab.games.vector import VectorGame
from pokerlab.stats.rng import numpy_generator

JAM: Action = 1
"""Jam all-in first in, or call all-in after a jam."""
DISJOINT_COMBOS = 1225  # combos left by one combo: C(50, 2)
MAX_SEATS = 10


def seat_names(n: int) -> tuple[str, ...]:
    """Position names in acting order: ``('SB', 'BB')`` heads-up, ``('BTN', 'SB', 'BB')`` three-handed, ...

    >>> seat_names(6)
    ('LJ', 'HJ', 'CO', 'BTN', 'SB', 'BB')
    """
    if n == 2:
        return ("SB", "BB")
    late = ("LJ", "HJ", "CO", "BTN", "SB", "BB")[-n:] if n <= 6 else ("LJ", "HJ", "CO", "BTN", "SB", "BB")
    early = ("UTG", "UTG+1", "UTG+2", "UTG+3")[: max(0, n - 6)]
    return early + late


@dataclass(frozen=True)
class Table:
    """A push/fold table in chips: ``stacks`` in acting order, blinds, an ante per seat (``ante``) or a big-blind
    ante (``bb_ante``, paid by the big blind). The façade (:func:`pokerlab.pushfold.pushfold`) validates."""

    stacks: tuple[float, ...]
    small_blind: float
    big_blind: float
    ante: float = 0.0
    bb_ante: float = 0.0

    @property
    def seats(self) -> int:
        return len(self.stacks)

    def posts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(dead, live)`` chips each seat posts before any decision: antes (dead money) and blinds (live),
        each capped by what is left of the stack."""
        n = self.seats
        stacks = np.asarray(self.stacks, dtype=np.float64)
        dead = np.zeros(n)
        live = np.zeros(n)
        blinds = np.zeros(n)
        blinds[n - 2] = self.small_blind
        blinds[n - 1] = self.big_blind
        for i in range(n):
            if self.bb_ante > 0 and i == n - 1:
                live[i] = min(blinds[i], stacks[i])
                dead[i] = min(self.bb_ante, stacks[i] - live[i])
            else:
                dead[i] = min(self.ante, stacks[i])
                live[i] = min(blinds[i], stacks[i] - dead[i])
        return dead, live


@dataclass(frozen=True)
class Terminal:
    """A terminal of the public tree: ``participants`` (seats in the showdown or the lone winner, increasing),
    the outcomes' utility rows (``utilities[o, seat]``) and, for
    three or more participants, the sorted outcome keys (pot winners, see :func:`outcome_key`)."""

    participants: tuple[int, ...]
    utilities: np.ndarray
    keys: np.ndarray
    pot_eligible: np.ndarray  # (pots,) int64 bitmask of eligible seats


def pots(contributions: np.ndarray, dead: np.ndarray, participants: Sequence[int]) -> tuple[list[float], list[int],
                                                                                             np.ndarray]:
    """Side pots: ``(amounts, eligible seat bitmasks, refunds)``. Live money (contributions minus antes) is cut at
    the participants' levels; antes join the main pot. The top participant's unmatched chips form a pot only it
    can win; chips of folded seats above every participant's level go back to them (``refunds``).

    >>> pots(np.array([10.0, 4.0, 1.0]), np.zeros(3), [0, 1])
    ([9.0, 6.0], [3, 1], array([0., 0., 0.]))
    """
    live = contributions - dead
    levels = sorted({float(live[j]) for j in participants})
    amounts, eligible = [], []
    previous = 0.0
    for k, level in enumerate(levels):
        amount = float(np.sum(np.minimum(live, level) - np.minimum(live, previous)))
        if k == 0:
            amount += float(dead.sum())
        mask = 0
        for j in participants:
            if live[j] >= level:
                mask |= 1 << j
        amounts.append(amount)
        eligible.append(mask)
        previous = level
    refunds = np.maximum(live - levels[-1], 0.0)
    return amounts, eligible, refunds


def final_stacks(stacks: np.ndarray, contributions: np.ndarray, amounts: Sequence[float], eligible: Sequence[int],
                 refunds: np.ndarray, winners: Sequence[Sequence[int]]) -> np.ndarray:
    """Stacks after the hand: each pot split equally among its ``winners[p]`` (a list of seats)."""
    final = stacks - contributions + refunds
    for amount, won in zip(amounts, winners, strict=True):
        for seat in won:
            final[seat] += amount / len(won)
    return final


def pot_winner_sequences(participants: Sequence[int], eligible: Sequence[int]) -> list[list[int]]:
    """Every possible sequence of pot winners (one seat per pot, pots from the main pot up) when hands have a
    strict order: a pot's winner is the best of its eligible seats, so it is the previous pot's winner when
    that seat is eligible, else any eligible seat. At most ``2 ** (m - 1)`` sequences for ``m`` participants.

    >>> pot_winner_sequences([0, 1, 2], [7, 6])
    [[0, 1], [0, 2], [1, 1], [2, 2]]
    """
    sequences: list[list[int]] = [[]]
    for mask in eligible:
        grown = []
        for winners in sequences:
            if winners and mask >> winners[-1] & 1:
                grown.append([*winners, winners[-1]])
            else:
                grown.extend([*winners, seat] for seat in participants if mask >> seat & 1)
        sequences = grown
    return sequences


def outcome_key(winners: Sequence[int], seats: int) -> int:
    """Integer key of a pot-winner sequence (one winning seat per pot): ``sum winners[p] * seats ** p``."""
    return sum(w * seats ** p for p, w in enumerate(winners))


class PushFoldGame(VectorGame):
    """Push/fold at one table as a vector-form game (see the module docstring).

    ``payoff(final_stacks) -> utilities`` maps the seats' stacks after the hand (chips) to each seat's payoff
    (chip EV in big blinds, or ICM money); it is called once per distinct outcome when the game is built.
    ``multiway_samples`` deals (seed ``seed``) evaluate showdowns of three or more players.

    >>> game = PushFoldGame(Table((10.0, 10.0), 0.5, 1.0), lambda final: (final - 10.0))
    >>> game.num_players, game.decision_seats
    (2, (0, 1))
    """

    name = "pushfold"

    def __init__(self, table: Table, payoff: Callable[[np.ndarray], np.ndarray], *, multiway_samples: int = 1000,
                 seed: int = 0, equity: PreflopTables | None = None) -> None:
        if not 2 <= table.seats <= MAX_SEATS:
            raise InvalidGameError(f"push/fold needs 2 to {MAX_SEATS} seats, got {table.seats}")
        self.table = table
        self.game_type = GameType(players=table.seats, zero_sum=False, forms=(VECTOR_FORM,), has_fold=True)  # type: ignore[misc]
        self.stacks = np.asarray(table.stacks, dtype=np.float64)
        self.dead, self.live = table.posts()
        posted = self.dead + self.live
        self.all_in_by_posting = tuple(bool(posted[i] >= self.stacks[i]) for i in range(table.seats))
        self.decision_seats = tuple(i for i in range(table.seats) if not self.all_in_by_posting[i])
        self.equity = equity if equity is not None else preflop_tables()
        self.class_weights = self.equity.class_size / 1326.0
        self.class_lose = self.equity.class_pairs - self.equity.class_win - self.equity.class_tie
        self._payoff = payoff
        self.multiway_samples = int(multiway_samples)
        self.seed = int(seed)
        self._samples: _MultiwaySamples | None = None
        self._plans: dict[tuple[tuple[int, ...], int], _Plan] = {}
        self._removal_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._fallbacks: dict[tuple[tuple[int, ...], int], np.ndarray] = {}
        self.terminals: dict[tuple[int, ...], Terminal] = {}
        self._build_terminals(())

    # ---------------------------------------------------------------------------------------------------
    # public tree

    def _position(self, state: tuple[int, ...]) -> tuple[int, int | None]:
        """(index into decision_seats of the seat to act, first jammer's seat or None)."""
        jammer = None
        for k, action in enumerate(state):
            if action == JAM and jammer is None:
                jammer = self.decision_seats[k]
        return len(state), jammer

    def _walks(self, state: tuple[int, ...]) -> bool:
        """True when no one has jammed and the seat to act has no opponent left (it wins the blinds)."""
        k, jammer = self._position(state)
        if jammer is not None or k >= len(self.decision_seats):
            return False
        seat = self.decision_seats[k]
        later = len(self.decision_seats) - k - 1
        others_posted = any(self.all_in_by_posting[j] for j in range(self.table.seats) if j != seat)
        return later == 0 and not others_posted

    def public_root(self) -> tuple[int, ...]:
        return ()

    def public_player(self, state: tuple[int, ...]) -> int:
        k, _ = self._position(state)
        if k >= len(self.decision_seats) or self._walks(state):
            return TERMINAL
        return self.decision_seats[k]

    def public_actions(self, state: tuple[int, ...]) -> Sequence[Action]:
        return [FOLD, JAM]

    def public_chance(self, state: Any) -> Sequence[tuple[Any, float]]:
        return []

    def public_apply(self, state: tuple[int, ...], action: Any) -> tuple[int, ...]:
        return (*state, int(action))

    def action_label(self, state: tuple[int, ...], action: Action) -> str:
        _, jammer = self._position(state)
        if action == FOLD:
            return "fold"
        return "jam" if jammer is None else "call"

    def num_private_hands(self, player: int) -> int:
        return NUMBER_OF_CLASSES

    def initial_weights(self, player: int) -> np.ndarray:
        return self.class_weights.copy()

    def hand_label(self, player: int, hand: int) -> str:
        from pokerlab.cards.ranges import class_name  # noqa: PLC0415 (only for labels)
        row, col = divmod(hand, 13)
        high, low = 12 - min(row, col), 12 - max(row, col)
        return class_name(high, low, "s" if col > row else "o")

    def spec(self) -> dict[str, Any]:
        t = self.table
        return {"name": self.name, "family": "pushfold", "stacks": list(t.stacks), "small_blind": t.small_blind,
                "big_blind": t.big_blind, "ante": t.ante, "bb_ante": t.bb_ante,
                "multiway_samples": self.multiway_samples, "seed": self.seed}

    # ---------------------------------------------------------------------------------------------------
    # terminals

    def participants(self, state: tuple[int, ...]) -> tuple[tuple[int, ...], np.ndarray]:
        """Seats still in the pot at a terminal and every seat's contribution in chips."""
        contributions = self.dead + self.live
        k, jammer = self._position(state)
        if self._walks(state):
            return (self.decision_seats[k],), contributions
        inside = {i for i in range(self.table.seats) if self.all_in_by_posting[i]}
        if jammer is not None:
            for seat, action in zip(self.decision_seats, state, strict=False):
                if action == JAM:
                    inside.add(seat)
        contributions = contributions.copy()
        for seat in inside:
            contributions[seat] = self.stacks[seat]
        return tuple(sorted(inside)), contributions

    def _build_terminals(self, state: tuple[int, ...]) -> None:
        if self.public_player(state) == TERMINAL:
            self.terminals[state] = self._terminal(state)
            return
        for action in (FOLD, JAM):
            self._build_terminals((*state, action))

    def _terminal(self, state: tuple[int, ...]) -> Terminal:
        inside, contributions = self.participants(state)
        n = self.table.seats
        amounts, eligible, refunds = pots(contributions, self.dead, inside)
        rows = []
        keys: list[int] = []
        if len(inside) == 1:
            rows.append(final_stacks(self.stacks, contributions, amounts, eligible, refunds, [inside] * len(amounts)))
        elif len(inside) == 2:
            a, b = inside
            for winners in ((a,), (b,), (a, b)):
                won = [[w for w in winners if eligible[p] >> w & 1] or [j for j in inside if eligible[p] >> j & 1]
                       for p in range(len(amounts))]
                rows.append(final_stacks(self.stacks, contributions, amounts, eligible, refunds, won))
        else:
            outcomes = {outcome_key(w, n): w for w in pot_winner_sequences(inside, eligible)}
            for key in sorted(outcomes):
                keys.append(key)
                rows.append(final_stacks(self.stacks, contributions, amounts, eligible, refunds,
                                         [[w] for w in outcomes[key]]))
        finals = np.array(rows)
        if not np.allclose(finals.sum(axis=1), self.stacks.sum(), rtol=0, atol=1e-9 * self.stacks.sum()):
            raise AssertionError("chips not conserved")  # pragma: no cover (a bug, tested)
        utilities = np.array([np.asarray(self._payoff(f), dtype=np.float64) for f in finals])
        return Terminal(inside, utilities, np.array(keys, dtype=np.int64),
                        np.array(eligible, dtype=np.int64))

    def final_stacks_of(self, state: tuple[int, ...]) -> np.ndarray:
        """Final stacks of every outcome of a terminal (rows in the order of ``terminals[state].utilities``)."""
        inside, contributions = self.participants(state)
        amounts, eligible, refunds = pots(contributions, self.dead, inside)
        if len(inside) == 1:
            return final_stacks(self.stacks, contributions, amounts, eligible, refunds, [inside] * len(amounts))[None]
        if len(inside) == 2:
            a, b = inside
            return np.array([final_stacks(self.stacks, contributions, amounts, eligible, refunds,
                                          [[w for w in winners if eligible[p] >> w & 1]
                                           or [j for j in inside if eligible[p] >> j & 1] for p in range(len(amounts))])
                             for winners in ((a,), (b,), (a, b))])
        keys = self.terminals[state].keys
        n = self.table.seats
        out = []
        for key in keys:
            winners = [(int(key) // n ** p) % n for p in range(len(amounts))]
            out.append(final_stacks(self.stacks, contributions, amounts, eligible, refunds, [[w] for w in winners]))
        return np.array(out)

    # ---------------------------------------------------------------------------------------------------
    # evaluation

    def evaluate(self, state: tuple[int, ...], player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual value of each class of ``player`` at a terminal: the expected payoff given the hand,
        times the other players' probabilities of the actions that lead there (see the module docstring)."""
        plan = self._plans.get((state, player))
        if plan is None:
            plan = self._plan(state, player)
        terminal = plan.terminal
        value = np.full(NUMBER_OF_CLASSES, plan.scale)
        for q in plan.folders:
            value *= self._removal(reaches[q])
        u = terminal.utilities[:, player]
        if plan.kind == _CONSTANT:
            return value * u[0]
        if plan.kind == _SPECTATOR:
            return value * float(self._outcome_probabilities(plan, reaches) @ u)
        if plan.kind == _HEADS_UP:
            return value * (plan.win_matrix @ (reaches[plan.opponents[0]] / self.class_weights))
        samples = self.samples()
        sig = np.stack([reaches[q] for q in plan.opponents]) / self.class_weights
        expected = _hero_values(samples.deal_class, samples.deal_key, samples.deal_mask, samples.hero_key,
                                samples.hero_mask, player, plan.opponents, sig, plan.outcome_by_position, u)
        unweighted = np.isnan(expected)
        if unweighted.any():
            expected[unweighted] = self._fallback(state, player, plan)[unweighted]
        return value * expected

    def _fallback(self, state: tuple[int, ...], player: int, plan: _Plan) -> np.ndarray:
        """Unweighted mean payoff per class over its usable deals (opponents holding random hands): the value
        of a class none of whose deals the opponents' strategies reach. Computed once per terminal and player."""
        key = (state, player)
        if key not in self._fallbacks:
            samples = self.samples()
            ones = np.ones((plan.opponents.size, NUMBER_OF_CLASSES))
            self._fallbacks[key] = _hero_values(samples.deal_class, samples.deal_key, samples.deal_mask,
                                                samples.hero_key, samples.hero_mask, player, plan.opponents, ones,
                                                plan.outcome_by_position, plan.terminal.utilities[:, player])
        return self._fallbacks[key]

    def _removal(self, reach: np.ndarray) -> np.ndarray:
        """``class_pairs @ sigma``: the removal-conditioned reach (times 1,225) of a seat's range given each
        class of the hero. A solver passes the same array to every terminal below a node, so results are kept
        per array object (the entry holds the array, so its id cannot be reused while cached)."""
        entry = self._removal_cache.get(id(reach))
        if entry is not None and entry[0] is reach:
            return entry[1]
        if len(self._removal_cache) > 4096:
            self._removal_cache.clear()
        result = self.equity.class_pairs @ (reach / self.class_weights)
        self._removal_cache[id(reach)] = (reach, result)
        return result

    def _plan(self, state: tuple[int, ...], player: int) -> _Plan:
        """What ``evaluate`` needs at a terminal for one player, computed once."""
        terminal = self.terminals[state]
        inside = terminal.participants
        n = self.table.seats
        others = [q for q in range(n) if q != player]
        # 3+ way showdowns are valued as reach (removal-conditioned, as for folders) times the sampled expected
        # payoff given that reach, so that a constant payoff gives exactly the reach, as everywhere else
        multiway = player in inside and len(inside) > 2
        folders = np.array([q for q in others if q not in inside or player not in inside or multiway],
                           dtype=np.int64)
        u = terminal.utilities[:, player]
        opponents = np.array([q for q in inside if q != player], dtype=np.int64)
        kind, first = _MULTIWAY, False
        win_matrix = None
        outcome_by_position = outcome_of_sample = None
        if player not in inside or len(inside) == 1:
            kind = _CONSTANT if len(inside) <= 1 or np.ptp(u) == 0.0 else _SPECTATOR
            if kind == _SPECTATOR and len(inside) > 2:
                samples = self.samples()
                outcome_of_sample = _sample_outcomes(samples.deal_key, np.array(inside, dtype=np.int64),
                                                     terminal.pot_eligible, terminal.keys, n)
        elif len(inside) == 2:
            kind = _HEADS_UP
            first = inside[0] == player
            u_win, u_lose = (u[0], u[1]) if first else (u[1], u[0])
            win_matrix = (self.equity.class_win * u_win + self.class_lose * u_lose
                          + self.equity.class_tie * u[2]) / DISJOINT_COMBOS
        else:
            samples = self.samples()
            outcome_by_position = _position_outcomes(samples.deal_key, player, opponents, terminal.pot_eligible,
                                                     terminal.keys, n)
        plan = _Plan(terminal, kind, folders, 1.0 / DISJOINT_COMBOS ** len(folders), opponents, first, win_matrix,
                     outcome_by_position, outcome_of_sample)
        self._plans[(state, player)] = plan
        return plan

    def _outcome_probabilities(self, plan: _Plan, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Outcome distribution of a showdown the hero is not in, from the participants' ranges."""
        inside = plan.terminal.participants
        sig = np.stack([reaches[q] for q in inside]) / self.class_weights
        if len(inside) == 2:
            weighted = sig[0] * self.equity.class_size
            pair = weighted @ self.equity.class_pairs @ sig[1]
            if pair <= 0.0:
                return np.zeros(3)
            win = weighted @ self.equity.class_win @ sig[1]
            tie = weighted @ self.equity.class_tie @ sig[1]
            return np.array([win, pair - win - tie, tie]) / pair
        samples = self.samples()
        return _outcome_weights(samples.deal_class, np.array(inside, dtype=np.int64), sig, plan.outcome_of_sample,
                                plan.terminal.keys.size)

    def samples(self) -> _MultiwaySamples:
        """The fixed deals of the multiway showdowns (drawn on first use)."""
        if self._samples is None:
            self._samples = _draw_samples(self.multiway_samples, self.table.seats, self.seed)
        return self._samples

    def multiway_error(self) -> float:
        """Standard error bound of a class's sampled multiway showdown value, as a fraction of the payoff range
        at the terminal: ``0.5 / sqrt(n)`` with ``n`` the fewest deals any class can use (its combo avoids the
        board; a Bernoulli standard deviation is at most 0.5). It is a floor, not a ceiling: deals blocked by
        the other all-in hands, and tight opponent ranges that weigh few deals, leave fewer effective deals;
        the effect on solutions is measured in docs/benchmarks.md."""
        samples = self.samples()
        accepted = np.count_nonzero(samples.hero_key > 0, axis=0)
        return float(0.5 / np.sqrt(max(1, accepted.min())))


_CONSTANT, _SPECTATOR, _HEADS_UP, _MULTIWAY = range(4)


@dataclass(frozen=True)
class _Plan:
    """Per (terminal, player): the seats whose removal-conditioned reach multiplies the value (``folders``),
    how the showdown is valued (``kind``) and the static parts of that valuation."""

    terminal: Terminal
    kind: int
    folders: np.ndarray
    scale: float
    opponents: np.ndarray
    first: bool
    win_matrix: np.ndarray | None
    outcome_by_position: np.ndarray | None  # (S, m) outcome index when k opponents rank above the hero
    outcome_of_sample: np.ndarray | None  # (S,) outcome index of each deal (spectator of a multiway pot)


@dataclass(frozen=True)
class _MultiwaySamples:
    deal_class: np.ndarray  # (S, seats) class of each seat's combo
    deal_key: np.ndarray  # (S, seats) int64 hand value * 16 + tie-break priority
    deal_mask: np.ndarray  # (S, seats) uint64 card masks
    hero_key: np.ndarray  # (S, 169) value * 16 of the class's sampled combo, 0 when it touches the board
    hero_mask: np.ndarray  # (S, 169) uint64


def _draw_samples(count: int, seats: int, seed: int) -> _MultiwaySamples:
    from pokerlab.equity.preflop import class_of_combo  # noqa: PLC0415

    rng = numpy_generator(seed)
    classes = class_of_combo()
    order = np.argsort(classes, kind="stable")
    starts = np.searchsorted(classes[order], np.arange(NUMBER_OF_CLASSES))
    sizes = np.bincount(classes, minlength=NUMBER_OF_CLASSES)
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    picks = order[starts[None, :] + (rng.random((count, NUMBER_OF_CLASSES)) * sizes[None, :]).astype(np.int64)]
    deal_combo, deal_key, hero_key = _sample_keys(decks, priority, picks, COMBOS.astype(np.int64), load_tables())
    return _MultiwaySamples(classes[deal_combo], deal_key, COMBO_MASKS[deal_combo], hero_key, COMBO_MASKS[picks])


@njit(cache=True)
def _sample_keys(decks, priority, picks, combo_cards, tables):
    """Combos and hand keys of the sampled deals: seat k holds cards 2k, 2k+1 of the shuffled deck, the board is
    the next five; each class's sampled combo is ranked on the same board (0 when it touches the board)."""
    count, seats = priority.shape
    deal_combo = np.empty((count, seats), dtype=np.int64)
    deal_key = np.empty((count, seats), dtype=np.int64)
    hero_key = np.zeros(picks.shape, dtype=np.int64)
    for s in range(count):
        board = decks[s, 2 * seats: 2 * seats + 5]
        key, bits = partial_hand(board, tables)
        board_mask = np.uint64(0)
        for card in board:
            board_mask |= np.uint64(1) << np.uint64(card)
        for seat in range(seats):
            c1, c2 = decks[s, 2 * seat], decks[s, 2 * seat + 1]
            high, low = max(c1, c2), min(c1, c2)
            deal_combo[s, seat] = high * (high - 1) // 2 + low
            deal_key[s, seat] = np.int64(value_with_two(key, bits, c1, c2, tables)) * 16 + priority[s, seat]
        for c in range(picks.shape[1]):
            c1, c2 = combo_cards[picks[s, c], 0], combo_cards[picks[s, c], 1]
            hand = (np.uint64(1) << np.uint64(c1)) | (np.uint64(1) << np.uint64(c2))
            if (board_mask & hand) == 0:
                hero_key[s, c] = np.int64(value_with_two(key, bits, c1, c2, tables)) * 16
    return deal_combo, deal_key, hero_key


@njit(cache=True)
def _winners_code(order_seats, eligible, seats):
    """Outcome key of the pot winners when the participants finish in ``order_seats`` (best first)."""
    code = 0
    scale = 1
    for p in range(eligible.shape[0]):
        for seat in order_seats:
            if (eligible[p] >> seat) & 1:
                code += seat * scale
                break
        scale *= seats
    return code


@njit(cache=True)
def _position_outcomes(deal_key, hero, opponents, eligible, outcome_keys, seats):
    """Static part of a hero's multiway value: for each sample, the outcome index for each number of opponents
    ranked above the hero."""
    count = deal_key.shape[0]
    m = opponents.shape[0] + 1
    by_position = np.empty((count, m), dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    for s in range(count):
        keys = np.array([deal_key[s, q] for q in opponents])
        ranked = opponents[np.argsort(-keys)]
        for pos in range(m):
            order[:pos] = ranked[:pos]
            order[pos] = hero
            order[pos + 1:] = ranked[pos:]
            by_position[s, pos] = np.searchsorted(outcome_keys, _winners_code(order, eligible, seats))
    return by_position


@njit(cache=True)
def _hero_values(deal_class, deal_key, deal_mask, hero_key, hero_mask, hero, opponents, sig, by_position, utilities):
    """Sampled expected payoff of each of the hero's classes in a multiway showdown given that the opponents
    play to it: over the class's usable samples, the mean payoff weighted by the opponents' strategy weights
    (a ratio estimator); NaN for a class none of whose usable samples has weight. With ``sig`` all ones this
    computes the unweighted means."""
    count = deal_class.shape[0]
    total = np.zeros(NUMBER_OF_CLASSES)
    weights = np.zeros(NUMBER_OF_CLASSES)
    m1 = opponents.shape[0]
    for s in range(count):
        weight = 1.0
        for j in range(m1):
            weight *= sig[j, deal_class[s, opponents[j]]]
        if weight == 0.0:
            continue
        used = np.uint64(0)
        for j in range(m1):
            used |= deal_mask[s, opponents[j]]
        priority = deal_key[s, hero] % 16  # the hero's tie-break priority is its seat's in the deal
        for c in range(NUMBER_OF_CLASSES):
            # usable: the class's sampled combo avoids the board (key > 0) and the opponents' cards
            if hero_key[s, c] == 0 or (hero_mask[s, c] & used) != 0:
                continue
            key = hero_key[s, c] + priority
            above = 0
            for j in range(m1):
                if deal_key[s, opponents[j]] > key:
                    above += 1
            total[c] += weight * utilities[by_position[s, above]]
            weights[c] += weight
    for c in range(NUMBER_OF_CLASSES):
        total[c] = total[c] / weights[c] if weights[c] > 0.0 else np.nan
    return total


@njit(cache=True)
def _sample_outcomes(deal_key, inside, eligible, outcome_keys, seats):
    """Outcome index of every sampled deal for the participants ``inside`` (a spectator's view)."""
    count = deal_key.shape[0]
    out = np.empty(count, dtype=np.int64)
    for s in range(count):
        keys = np.array([deal_key[s, q] for q in inside])
        order = inside[np.argsort(-keys)]
        out[s] = np.searchsorted(outcome_keys, _winners_code(order, eligible, seats))
    return out


@njit(cache=True)
def _outcome_weights(deal_class, inside, sig, outcome_of_sample, outcomes):
    """Outcome distribution of a multiway showdown over the sampled deals, weighted by the participants'
    strategies (for a player outside the showdown)."""
    probs = np.zeros(outcomes)
    total = 0.0
    for s in range(deal_class.shape[0]):
        weight = 1.0
        for j in range(inside.shape[0]):
            weight *= sig[j, deal_class[s, inside[j]]]
        if weight == 0.0:
            continue
        total += weight
        probs[outcome_of_sample[s]] += weight
    if total > 0.0:
        probs /= total
    return probs
