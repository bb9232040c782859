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
- a pot the hero watches (a spectator: its money still depends on who wins, under ICM) and showdowns of three
  or more players are valued as ``reach_in_pot(h) * centre + correction(h)``: the removal-conditioned reach
  of the players in the pot (``prod_q class_pairs @ sigma_q / 1,225``) times the payoff's mean when they hold
  random hands (``centre``, a constant of the terminal, per class for a hero), plus the mean over deals of
  ``prod_q sigma_q(dealt hand) * (payoff - centre)``. Both terms are multilinear in the players' strategies,
  as the game must be for CFR's guarantees and for best responses to mean anything; a constant payoff gives
  exactly the reach. Two-player pots use the exact class tables for the correction; 3+ way pots a fixed
  sample of deals (``multiway_samples``, seeded): a uniform deal of one combo per seat and a board, and per
  sample one combo of every class for the hero, used when it avoids the board and the other all-in hands.
  The correction is unbiased; the per-class standard error floor is :meth:`PushFoldGame.multiway_error`,
  and :func:`pokerlab.pushfold.pushfold` measures the effect on each solution (the strategy's gains in the
  game resampled on independent deals, :meth:`PushFoldGame.resampled`). Uniform deals weigh little once the
  ranges are tight (a deal's weight is the product of the pot's strategy weights), so the solver redeals
  (:meth:`PushFoldGame.redealt`): each 3+ way pot gets its own deals, importance-sampled from the ranges that
  reached it, weighted by density ratios and divided by the known mean of their products
  (:func:`_reference_disjoint`: unbiased and multilinear; their sum, heavy-tailed once ranges are tight, made
  nine-seat solves stall), and centred on the payoff's mean against those ranges. Ties in these samples are broken by
  a random seat priority (exact for chip EV in expectation, an approximation of the split for ICM). An
  earlier ratio estimator (weighted mean payoff over the deals, unweighted where no deal had weight) was not
  multilinear, and CFR stalled on it with 9 seats (docs/benchmarks.md).

Payoffs are a vector per outcome from a ``payoff`` function of the final stacks (chip EV in big blinds, or
ICM money from :mod:`pokerlab.pushfold`).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.cards.kernels import partial_hand, value_with_two
from pokerlab.cards.ranges import COMBO_MASKS, COMBOS
from pokerlab.cards.tables import EvalTables, load_tables
from pokerlab.equity.preflop import NUMBER_OF_CLASSES, PreflopTables, preflop_tables
from pokerlab.errors import InvalidGameError
from pokerlab.games.base import FOLD, TERMINAL, VECTOR_FORM, Action, GameType
from pokerlab.games.vector import CompiledPublicTree, VectorGame
from pokerlab.stats.rng import numpy_generator, numpy_generators, substream_start, uniform

JAM: Action = 1
"""Jam all-in first in, or call all-in after a jam."""
DISJOINT_COMBOS = 1225  # combos left by one combo: C(50, 2)
CENTRE_DEALS = 256  # deals that estimate a 3+ way hero's centre (a constant of the estimator, see above)
RECENTRE_DEALS = 1000  # deals that estimate it again against the ranges of a redeal (any constant stays unbiased)
MIN_CENTRE_DEALS = 10  # effective deals a centre against ranges needs (else the random-hands centre stays)
MAX_SEATS = 10
MOMENT_BLOCKS = 8  # blocks of deals summed in parallel by _hero_moments
OUTCOME_BLOCKS = 16  # blocks of deals whose outcome tables are built in parallel


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
        self.check_stream = False  # True in a resampled game (see resampled)
        self.proposal_share = 0.0
        self._ranges: dict[tuple[int, ...], np.ndarray] | None = None  # per 3+ way terminal (see redealt)
        self._row_of: dict[tuple[int, ...], int] = {}
        self._recentred: dict[tuple[tuple[int, ...], int], np.ndarray] = {}
        self._samples: _MultiwaySamples | None = None
        self._board_avoiding: tuple[_MultiwaySamples, np.ndarray] | None = None
        self._plans: dict[tuple[tuple[int, ...], int], _Plan] = {}
        self._removal_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._batches: dict[int, _Batch] = {}
        self._spectator_outcomes: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._centres: dict[tuple[tuple[int, ...], int], np.ndarray] = {}
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
                "multiway_samples": self.multiway_samples, "seed": self.seed} | (
                    {"check_stream": True} if self.check_stream else {}) | (
                    {} if self._ranges is None else {"redealt": {"share": self.proposal_share,
                                                                 "ranges_sha256": self._ranges_digest()}})

    def _ranges_digest(self) -> str:
        """SHA-256 of the redeal's ranges (terminal states and arrays, in order): a compact name for them."""
        digest = hashlib.sha256()
        ranges = self._ranges or {}
        for state in sorted(ranges):
            digest.update(repr(state).encode())
            digest.update(np.ascontiguousarray(ranges[state], dtype=np.float64).tobytes())
        return digest.hexdigest()

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
        if plan.kind == _HEADS_UP:
            return value * (plan.win_matrix @ (reaches[plan.opponents[0]] / self.class_weights))
        # spectators and 3+ way heroes: reach of the seats in the pot times the payoff's mean with random hands,
        # plus the estimated correction for the actual ranges (both multilinear in the strategies)
        pot = plan.opponents if plan.kind == _MULTIWAY else np.array(terminal.participants, dtype=np.int64)
        reach_in_pot = np.ones(NUMBER_OF_CLASSES)
        for q in pot:
            reach_in_pot *= self._removal(reaches[q]) / DISJOINT_COMBOS
        sig = np.stack([reaches[q] for q in pot]) / self.class_weights
        samples = self.deals_of(state)
        if plan.kind == _MULTIWAY:
            assert plan.outcome_by_position is not None  # _plan sets it for every multiway hero
            correction = _hero_correction(samples, player, plan.opponents, sig, plan.outcome_by_position, u,
                                          plan.centre) / plan.counts
        elif pot.size == 2:
            t = self.equity
            d = u[:3] - plan.centre[0]
            weighted = sig[0] * t.class_size
            correction = np.full(NUMBER_OF_CLASSES, (d[0] * (weighted @ t.class_win @ sig[1])
                                                     + d[1] * (weighted @ self.class_lose @ sig[1])
                                                     + d[2] * (weighted @ t.class_tie @ sig[1]))
                                 / (1326.0 * DISJOINT_COMBOS))
        else:
            assert plan.outcome_of_sample is not None and plan.pot_weight is not None  # set for every spectator
            correction = np.full(NUMBER_OF_CLASSES, _spectator_sum(samples.deal_class, pot, sig,
                                                                   plan.outcome_of_sample, u, plan.centre[0],
                                                                   plan.pot_weight))
        return value * (reach_in_pot * plan.centre + correction)

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at every terminal in one compiled call (the solvers' hot path; the same values).

        The reach of a seat at a terminal is its initial weight times its probability of the one action it
        took on the way (a seat acts at most once per path), so the terminals share a few hundred distinct
        reach vectors (*sources*: one per decision edge and seat). Their removal-conditioned products with the
        class tables (``class_pairs``, ``class_win``, ``class_tie``: three 169 x 169 matrix products) are
        computed once per source and kept while the source's reach is unchanged: per CFR iteration each source
        changes once, when its seat updates. Every terminal's value is then elementwise in those products,
        except the sampled corrections of 3+ way pots (:func:`_hero_sums`, :func:`_spectator_sum`).
        """
        batch = self._batch(tree, terminals)
        x = reaches[batch.source_terminal, batch.source_seat, :NUMBER_OF_CLASSES] / self.class_weights
        changed = np.flatnonzero(np.any(x != batch.x, axis=1))
        if changed.size:
            batch.x[changed] = x[changed]
            _source_products(batch.x, changed, self.equity.class_pairs, self.equity.class_win, self.equity.class_tie,
                             batch.removal, batch.win, batch.tie)
        plans = batch.players.get(player)
        if plans is None:
            plans = batch.players[player] = self._player_batch(batch, player)
        samples = self.deals() if batch.multiway else _NO_SAMPLES
        out = np.empty((terminals.size, NUMBER_OF_CLASSES))
        sources = _SourceProducts(batch.source, batch.x, batch.removal, batch.win, batch.tie)
        _batched_values(plans, sources, self.equity.class_size.astype(np.float64), samples, player, out)
        return out

    def _batch(self, tree: CompiledPublicTree, terminals: np.ndarray) -> _Batch:
        """The player-independent part of :meth:`evaluate_terminals` for one tree and terminal list: each
        (terminal, seat)'s source (the edge below the seat's decision on the path, or its root) and the
        sources' cached products."""
        key = id(tree)
        batch = self._batches.get(key)
        if batch is not None and batch.tree is tree and np.array_equal(batch.terminals, terminals):
            return batch
        n = self.table.seats
        t = tree.tree
        source = np.empty((terminals.size, n), dtype=np.int64)
        ids: dict[int, int] = {}
        rep_terminal: list[int] = []
        rep_seat: list[int] = []
        for i, node in enumerate(terminals):
            edge = {q: -1 - q for q in range(n)}  # root: the seat never acted on this path
            c = int(node)
            while c > 0:
                parent = int(t.parent[c])
                edge[int(t.player[parent])] = c
                c = parent
            for q in range(n):
                sid = ids.get(edge[q])
                if sid is None:
                    sid = ids[edge[q]] = len(rep_terminal)
                    rep_terminal.append(i)
                    rep_seat.append(q)
                source[i, q] = sid
        count = len(rep_terminal)
        multiway = any(len(self.terminals[tree.states[int(node)]].participants) > 2 for node in terminals)
        batch = _Batch(tree, terminals.copy(), source, np.array(rep_terminal, dtype=np.int64),
                       np.array(rep_seat, dtype=np.int64), np.full((count, NUMBER_OF_CLASSES), np.nan),
                       np.empty((count, NUMBER_OF_CLASSES)), np.empty((count, NUMBER_OF_CLASSES)),
                       np.empty((count, NUMBER_OF_CLASSES)), multiway, {})
        self._batches = {key: batch}
        return batch

    def _player_batch(self, batch: _Batch, player: int) -> _PlayerTerminals:
        """Static per-terminal arrays of one player for :func:`_batched_values`, from the per-terminal plans."""
        n = self.table.seats
        count = batch.terminals.size
        kind = np.empty(count, dtype=np.int64)
        scale = np.empty(count)
        folders = np.full((count, n), -1, dtype=np.int64)
        inside = np.full((count, n), -1, dtype=np.int64)
        width = max(t.utilities.shape[0] for t in self.terminals.values())
        utilities = np.zeros((count, max(3, width)))
        sample_rows: list[np.ndarray] = []
        weight_rows: list[np.ndarray] = []
        spectator_row = np.full(count, -1, dtype=np.int64)
        positions: list[np.ndarray] = []
        position_at = np.full(count, -1, dtype=np.int64)
        centre = np.zeros((count, NUMBER_OF_CLASSES))
        counts = np.zeros((count, NUMBER_OF_CLASSES))
        at = 0
        for i, node in enumerate(batch.terminals):
            state = batch.tree.states[int(node)]
            plan = self._plan(state, player, keep=False)
            terminal = plan.terminal
            kind[i] = plan.kind
            scale[i] = plan.scale
            centre[i] = plan.centre
            counts[i] = plan.counts
            folders[i, :plan.folders.size] = plan.folders
            u = terminal.utilities[:, player]
            if plan.kind == _MULTIWAY:
                inside[i, :plan.opponents.size] = plan.opponents
                assert plan.outcome_by_position is not None
                positions.append(plan.outcome_by_position.reshape(-1))
                position_at[i] = at
                at += positions[-1].size
            else:
                inside[i, :len(terminal.participants)] = terminal.participants
            if plan.kind == _HEADS_UP:
                u = np.array([u[0], u[1], u[2]] if plan.first else [u[1], u[0], u[2]])
            utilities[i, :u.size] = u
            if plan.outcome_of_sample is not None:
                spectator_row[i] = len(sample_rows)
                sample_rows.append(plan.outcome_of_sample.astype(np.int32))
                assert plan.pot_weight is not None
                weight_rows.append(plan.pot_weight)
        samples = self.multiway_samples if batch.multiway else 0
        return _PlayerTerminals(
            kind, scale, folders, inside, utilities, spectator_row,
            np.array(sample_rows, dtype=np.int32).reshape(len(sample_rows), samples),
            np.array(weight_rows, dtype=np.float64).reshape(len(weight_rows), samples),
            np.array([self._row_of.get(batch.tree.states[int(node)], 0) for node in batch.terminals], dtype=np.int64),
            position_at, np.concatenate(positions) if positions else np.zeros(0, dtype=np.int32),
            centre, counts)

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

    def _plan(self, state: tuple[int, ...], player: int, keep: bool = True) -> _Plan:
        """What ``evaluate`` needs at a terminal for one player (kept for later calls with ``keep``)."""
        terminal = self.terminals[state]
        inside = terminal.participants
        n = self.table.seats
        others = [q for q in range(n) if q != player]
        u = terminal.utilities[:, player]
        opponents = np.array([q for q in inside if q != player], dtype=np.int64)
        kind, first = _MULTIWAY, False
        win_matrix = None
        outcome_by_position = outcome_of_sample = pot_weight = None
        centre = np.zeros(NUMBER_OF_CLASSES)
        counts = np.zeros(NUMBER_OF_CLASSES)
        if player not in inside or len(inside) == 1:
            kind = _CONSTANT if len(inside) <= 1 or np.ptp(u) == 0.0 else _SPECTATOR
        elif len(inside) == 2:
            kind = _HEADS_UP
            first = inside[0] == player
            u_win, u_lose = (u[0], u[1]) if first else (u[1], u[0])
            if keep:  # the batched evaluation uses the class tables' products instead
                win_matrix = (self.equity.class_win * u_win + self.class_lose * u_lose
                              + self.equity.class_tie * u[2]) / DISJOINT_COMBOS
        # spectators and 3+ way heroes: the seats in the pot are valued in the bracket of the module docstring,
        # the others multiply by their removal-conditioned reach; elsewhere every other seat does
        folders = np.array([q for q in others if q not in inside or kind == _CONSTANT], dtype=np.int64)
        if kind == _SPECTATOR and len(inside) == 2:
            ones = np.ones(NUMBER_OF_CLASSES)  # the payoff's mean when both hold random hands
            t = self.equity
            weighted = t.class_size
            pair = weighted @ t.class_pairs @ ones
            win, tie = weighted @ t.class_win @ ones, weighted @ t.class_tie @ ones
            centre[:] = (win * u[0] + (pair - win - tie) * u[1] + tie * u[2]) / pair
        elif kind == _SPECTATOR:  # the sampled outcomes are the same for every spectator: computed once
            known_outcomes = self._spectator_outcomes.get(state)
            if known_outcomes is None:
                pot = np.array(inside, dtype=np.int64)
                deals = self.deals_of(state)
                weights = _pot_weights(deals, pot)
                # the mean's normaliser: after a redeal the known mean of the weights (see _reference_disjoint),
                # as their sum is heavy-tailed when ranges are tight; on uniform deals (ratios 1) their sum
                norm = (weights.size * _reference_disjoint(pot.size, 0) if self._ranges is not None
                        else max(float(weights.sum()), 1e-300))
                known_outcomes = self._spectator_outcomes[state] = (
                    _sample_outcomes(deals.deal_key, pot, terminal.pot_eligible, terminal.keys, n), weights / norm)
            outcome_of_sample, pot_weight = known_outcomes
            centre[:] = self._recentred_spectator(state, player, inside, pot_weight, u[outcome_of_sample])
        elif kind == _MULTIWAY:
            samples = self.deals_of(state)
            outcome_by_position = _position_outcomes(samples.deal_key, player, opponents, terminal.pot_eligible,
                                                     terminal.keys, n)
            known = self._centres.get((state, player))
            if known is None:  # any constant keeps the value unbiased: the first CENTRE_DEALS deals suffice
                head = min(CENTRE_DEALS, samples.deal_class.shape[0])
                ones = np.ones((opponents.size, NUMBER_OF_CLASSES))
                first_deals = _MultiwaySamples(*(array[:head] for array in samples))
                sums, seen = _hero_sums(first_deals, player, opponents, ones, outcome_by_position[:head], u, centre)
                known = self._centres[(state, player)] = np.where(seen > 0, sums / np.maximum(seen, 1.0),
                                                                  float(u.mean()))
            centre = known  # a resampled game reuses its original's
            if self._ranges is None:  # the correction's normaliser: the usable deals, or their known mean
                counts = _positive_or_one(_usable_counts(samples, opponents))
            else:
                counts = _positive_or_one(self.board_avoiding() * _reference_disjoint(opponents.size, 2))
            centre = self._recentred_hero(state, player, opponents, outcome_by_position, u, centre)
        plan = _Plan(terminal, kind, folders, 1.0 / DISJOINT_COMBOS ** len(folders), opponents, first, win_matrix,
                     outcome_by_position, outcome_of_sample, pot_weight, centre, counts)
        if keep:
            self._plans[(state, player)] = plan
        return plan

    def deals(self) -> _MultiwaySamples:
        """The fixed deals of the multiway showdowns (drawn on first use), stacked by row: ``deal_*`` arrays are
        ``(rows, samples, seats)``, the hero's per-class combos ``(samples, 169)`` shared by every row. Uniform
        deals are one row for every terminal; after :meth:`redealt`, each 3+ way terminal has its own row."""
        if self._samples is None:
            if self._ranges is None:
                rng = numpy_generators(self.seed, 2)[1] if self.check_stream else numpy_generator(self.seed)
                one = _draw_samples(self.multiway_samples, self.table.seats, rng)
                self._samples = _MultiwaySamples(one.deal_class[None], one.deal_key[None], one.deal_mask[None],
                                                 one.hero_key, one.hero_low, one.hero_high,
                                                 one.deal_ratio[None])
                self._row_of = {}
            else:  # the seed's third and fourth streams
                rng = numpy_generators(self.seed, 4)[3 if self.check_stream else 2]
                states = sorted(self._ranges)
                self._row_of = {state: r for r, state in enumerate(states)}
                proposals = np.empty((len(states), self.table.seats, NUMBER_OF_CLASSES))
                for r, state in enumerate(states):
                    held = self._ranges[state] * self.class_weights[None, :]
                    mass = held.sum(axis=1, keepdims=True)
                    in_pot = np.where(mass > 0, held / np.where(mass > 0, mass, 1.0), self.class_weights[None, :])
                    proposals[r] = self.proposal_share * in_pot + (1 - self.proposal_share) * self.class_weights
                inside = np.zeros((len(states), self.table.seats), dtype=bool)
                for r, state in enumerate(states):
                    inside[r, list(self.terminals[state].participants)] = True
                self._samples = _draw_proposal_samples(self.multiway_samples, proposals, inside, rng)
        return self._samples

    def board_avoiding(self) -> np.ndarray:
        """Per class, the deals whose sampled combo of the class avoids the board (shared by every pot's row)."""
        deals = self.deals()
        if self._board_avoiding is None or self._board_avoiding[0] is not deals:
            self._board_avoiding = (deals, np.count_nonzero(deals.hero_key, axis=0))
        return self._board_avoiding[1]

    def deals_of(self, state: tuple[int, ...]) -> _MultiwaySamples:
        """The deals that value the 3+ way pot at terminal ``state`` (views into :meth:`deals`)."""
        deals = self.deals()
        r = self._row_of.get(state, 0)
        return _MultiwaySamples(deals.deal_class[r], deals.deal_key[r], deals.deal_mask[r], deals.hero_key,
                                deals.hero_low, deals.hero_high, deals.deal_ratio[r])

    def _recentred_hero(self, state: tuple[int, ...], player: int, opponents: np.ndarray,
                        by_position: np.ndarray, u: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """A 3+ way hero's centre (the constant of the estimator, see the module docstring) after a redeal: the
        payoff's estimated mean per class against the ranges given to :meth:`redealt` (where some deal weighs),
        else ``centre``. A centre near the actual mean leaves the sampled correction small, hence its noise;
        computed once and shared with the resampled game, so it stays a constant of both."""
        key = (state, player)
        known = self._recentred.get(key)
        if known is not None or self._ranges is None or state not in self._ranges:
            return centre if known is None else known
        head = min(RECENTRE_DEALS, by_position.shape[0])
        deals = _MultiwaySamples(*(array[:head] for array in self.deals_of(state)))
        sums, mass, squares = _hero_moments(deals, player, opponents, self._ranges[state][opponents],
                                            by_position[:head], u)
        effective = mass ** 2 / np.where(squares > 0, squares, np.inf)  # Kish's effective number of deals
        known = self._recentred[key] = np.where(effective >= MIN_CENTRE_DEALS,
                                                sums / np.where(mass > 0, mass, 1.0), centre)
        return known

    def _recentred_spectator(self, state: tuple[int, ...], player: int, inside: Sequence[int],
                             pot_weight: np.ndarray, payoffs: np.ndarray) -> float:
        """A spectator's centre: the payoff's mean over the deals (weighted by their density ratios), after a
        redeal against the ranges given to :meth:`redealt` (as :meth:`_recentred_hero`)."""
        key = (state, player)
        known = self._recentred.get(key)
        if known is not None:
            return float(known[0])
        weight = pot_weight
        if self._ranges is not None and state in self._ranges:
            sig = self._ranges[state]
            deal_class = self.deals_of(state).deal_class
            ranged = pot_weight * np.prod([sig[q][deal_class[:, q]] for q in inside], axis=0)
            if ranged.sum() ** 2 >= MIN_CENTRE_DEALS * (ranged ** 2).sum() > 0:
                weight = ranged
        centre = float(weight @ payoffs / max(weight.sum(), 1e-300))
        if self._ranges is not None:
            self._recentred[key] = np.array([centre])
        return centre

    def _fresh_copy(self) -> PushFoldGame:
        """A copy sharing terminals, payoffs and the 3+ way heroes' centres (constants of the estimator, any
        value keeps it unbiased), with no deals and no caches that depend on them."""
        other = copy.copy(self)
        other.release_deals()
        return other

    def release_deals(self) -> None:
        """Free the deals and everything built on them (about 100 bytes per seat, deal and 3+ way pot: gigabytes
        at nine or ten seats). They are drawn again, the same (the seed's stream), if this game is valued again."""
        self._samples = None
        self._board_avoiding = None
        self._plans = {}
        self._removal_cache = {}
        self._batches = {}
        self._spectator_outcomes = {}

    def redealt(self, ranges: dict[tuple[int, ...], np.ndarray], share: float = 0.5,
                samples: int | None = None) -> PushFoldGame:
        """The same game with each 3+ way pot valued on its own deals, importance-sampled from the ranges that
        reach it. ``ranges``: per 3+ way terminal state, each seat's strategy weights ``(seats, 169)`` (its
        reach over the class weights) on the way there. A terminal's deals share the boards and the hero's
        per-class combos; each seat in its pot holds a combo drawn, among those that avoid the board, from
        ``share`` times its hand's distribution at that terminal plus ``1 - share`` times the uniform one. The
        valuation weighs a deal by the uniform-over-proposal density ratios of the seats in the pot and divides
        by the known mean of their products over the deals a class can use (:func:`_reference_disjoint`; an
        unbiased estimator, multilinear in the strategies): while the strategies stay near ``ranges`` nearly
        every deal weighs, where uniform deals weigh the product of tight ranges' frequencies. The pots'
        centres become the payoff's means against ``ranges`` (the estimator's constant: any value keeps it
        unbiased, one near the actual mean keeps its noise small). ``samples`` deals per terminal (default: as
        many as this game's).

        >>> game = PushFoldGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), lambda final: final - 10.0)
        >>> game.redealt({(1, 1, 1): np.ones((3, 169))}, samples=50).deals().deal_ratio.shape  # pots, deals, seats
        (1, 50, 3)
        """
        if not 0 <= share < 1:
            raise InvalidGameError(f"the share of the ranges in the proposal must be in [0, 1), got {share}")
        other = self._fresh_copy()
        other.check_stream = False
        other.proposal_share = float(share)
        other._ranges = {state: np.asarray(sig, dtype=np.float64) for state, sig in ranges.items()
                         if len(self.terminals[state].participants) > 2}
        other._recentred = {}
        if samples is not None:
            other.multiway_samples = int(samples)
        return other

    def resampled(self) -> PushFoldGame:
        """The same game with its 3+ way showdowns valued on an independent set of ``multiway_samples`` deals
        (the seed's second stream, or its fourth after a redeal, :func:`pokerlab.stats.rng.numpy_generators`;
        a redealt game's proposals are kept): terminals, payoffs and the 3+ way pots' centres (constants of
        the estimator, see the module docstring) are shared, not recomputed.
        Valuing a strategy in it measures what the sampling hides (see :func:`pokerlab.pushfold.pushfold`)."""
        other = self._fresh_copy()
        other.check_stream = True
        return other

    def multiway_error(self) -> float:
        """Standard error bound of a class's sampled multiway showdown value, as a fraction of the payoff range
        at the terminal: ``0.5 / sqrt(n)`` with ``n`` the fewest deals any class can use (its combo avoids the
        board; a Bernoulli standard deviation is at most 0.5). It is a floor, not a ceiling: deals blocked by
        the other all-in hands, and tight opponent ranges that weigh few deals, leave fewer effective deals;
        the effect on solutions is measured in docs/benchmarks.md."""
        accepted = np.count_nonzero(self.deals().hero_key > 0, axis=0)
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
    pot_weight: np.ndarray | None  # (S,) the deal's weight for a spectator of a multiway pot (_pot_weights)
    centre: np.ndarray  # (169,) the payoff's mean with random hands in the pot (spectators: one value)
    counts: np.ndarray  # (169,) usable deals per class of a 3+ way hero (1 where none): the correction divides by it


@dataclass
class _Batch:
    """Player-independent state of the batched evaluation for one compiled tree (see
    :meth:`PushFoldGame.evaluate_terminals`): ``source[i, q]`` the source of seat ``q``'s reach at terminal
    ``i``; a representative (terminal, seat) per source; per source the reach over class weights ``x`` last
    seen and its products with ``class_pairs`` (``removal``), ``class_win`` and ``class_tie``."""

    tree: CompiledPublicTree
    terminals: np.ndarray
    source: np.ndarray
    source_terminal: np.ndarray
    source_seat: np.ndarray
    x: np.ndarray
    removal: np.ndarray
    win: np.ndarray
    tie: np.ndarray
    multiway: bool
    players: dict[int, _PlayerTerminals]


class _PlayerTerminals(NamedTuple):
    """One player's static arrays over the terminals, the bundle :func:`_batched_values` reads: how each is
    valued (``kind``), the removal scale, the folders' seats and the showdown's seats (the opponents for a
    sampled multiway hero; -1 padded), the player's utility per outcome (heads-up: win, lose, tie), the row
    of each multiway spectator's sampled outcomes and deal weights (:func:`_pot_weights`), each terminal's
    row of deals (``deal_row``, see :meth:`PushFoldGame.deals`), the offset of each multiway hero's
    ``(samples, seats in the pot)`` outcome table in ``positions``, the payoff's mean with random hands in the
    pot (``centre``, or against the redeal's ranges) and a 3+ way hero's usable deals per class, summed with
    their density ratios (``counts``)."""

    kind: np.ndarray
    scale: np.ndarray
    folders: np.ndarray
    inside: np.ndarray
    utilities: np.ndarray
    spectator_row: np.ndarray
    sample_outcomes: np.ndarray
    pot_weights: np.ndarray
    deal_row: np.ndarray
    position_at: np.ndarray
    positions: np.ndarray
    centre: np.ndarray
    counts: np.ndarray


class _SourceProducts(NamedTuple):
    """The batch's reach sources as :func:`_batched_values` reads them: ``source[i, q]`` the source of seat
    ``q``'s reach at terminal ``i``, each source's reach over class weights ``x`` and its products with the
    class tables (``removal``, ``win``, ``tie``; see :class:`_Batch`)."""

    source: np.ndarray
    x: np.ndarray
    removal: np.ndarray
    win: np.ndarray
    tie: np.ndarray


class _MultiwaySamples(NamedTuple):
    deal_class: np.ndarray  # (S, seats) uint8 class of each seat's combo (the hot loop reads it for every deal)
    deal_key: np.ndarray  # (S, seats) int64 hand value * 16 + tie-break priority
    deal_mask: np.ndarray  # (S, seats) uint64 card masks
    hero_key: np.ndarray  # (S, 169) int32 value * 16 of the class's sampled combo, 0 when it touches the board
    hero_low: np.ndarray  # (S, 169) uint8 the sampled combo's lower card
    hero_high: np.ndarray  # (S, 169) uint8 its higher card
    deal_ratio: np.ndarray  # (S, seats) uniform density / proposal density of each seat's dealt combo (1: uniform)


def _combo_classes() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each combo's class, the combos sorted by class, where each class starts in that order, and class sizes."""
    from pokerlab.equity.preflop import class_of_combo  # noqa: PLC0415

    classes = class_of_combo()
    order = np.argsort(classes, kind="stable")
    starts = np.searchsorted(classes[order], np.arange(NUMBER_OF_CLASSES))
    return classes, order, starts, np.bincount(classes, minlength=NUMBER_OF_CLASSES)


def _hero_picks(count: int, rng: np.random.Generator) -> np.ndarray:
    """``(count, 169)``: for each deal, one combo of each class, uniform within the class."""
    _, order, starts, sizes = _combo_classes()
    return order[starts[None, :] + (rng.random((count, NUMBER_OF_CLASSES)) * sizes[None, :]).astype(np.int64)]


def _reference_disjoint(seats: int, taken: int) -> float:
    """Probability that ``seats`` combos, each uniform among the 1,081 that avoid a board, avoid ``taken`` given
    cards off the board and each other: the mean of a redealt pot's density-ratio products (times the
    indicator that a deal can be used), its known normaliser (see :meth:`PushFoldGame.redealt`).

    >>> round(_reference_disjoint(2, 0), 9) == round(990 / 1081, 9)  # C(45, 2) of the second combo avoid the first
    True
    """
    p = 1.0
    for i in range(seats):
        free = 47 - taken - 2 * i
        p *= free * (free - 1) / 2 / 1081
    return p


def _hero_cards(picks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower and higher card of each picked combo, ``uint8`` (the hot loop reads them for every class and deal:
    two bytes where a card mask takes eight)."""
    cards = COMBOS[picks].astype(np.uint8)
    return np.minimum(cards[..., 0], cards[..., 1]), np.maximum(cards[..., 0], cards[..., 1])


def _draw_samples(count: int, seats: int, rng: np.random.Generator) -> _MultiwaySamples:
    classes = _combo_classes()[0]
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    picks = _hero_picks(count, rng)
    deal_combo, deal_key, hero_key = _sample_keys(decks, priority, picks, COMBOS.astype(np.int64), load_tables())
    return _MultiwaySamples(classes[deal_combo].astype(np.uint8), deal_key, COMBO_MASKS[deal_combo], hero_key,
                            *_hero_cards(picks), np.ones((count, seats)))


def _draw_proposal_samples(count: int, proposals: np.ndarray, inside: np.ndarray, rng: np.random.Generator
                           ) -> _MultiwaySamples:
    """Deals for importance sampling, one row per 3+ way terminal: ``count`` uniform boards and per-class hero
    combos shared by every row, then in row ``r`` each seat of ``inside[r]`` holds a combo drawn from its class
    distribution ``proposals[r, seat]`` (uniform within a class) among the combos that avoid the board;
    ``deal_ratio`` is the uniform density of that combo given the board over its proposal density. Seats not
    inside hold no cards (only their tie-break priority is read)."""
    classes, _, _, sizes = _combo_classes()
    rows, seats, _ = proposals.shape
    boards = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (count, 1)), axis=1)[:, :5]
    board_masks = np.zeros(count, dtype=np.uint64)
    for k in range(5):
        board_masks |= np.uint64(1) << boards[:, k].astype(np.uint64)
    first, second = np.triu_indices(5, 1)
    high, low = np.maximum(boards[:, first], boards[:, second]), np.minimum(boards[:, first], boards[:, second])
    board_pairs = high * (high - 1) // 2 + low  # (S, 10) combos made of two board cards
    start = np.uint64(rng.integers(2 ** 63))  # the kernel's splitmix stream, from the caller's
    combos, dealt, masks, ratio = _draw_rows(start, proposals, inside, classes.astype(np.int64),
                               sizes.astype(np.float64), boards, board_pairs, board_masks,
                               COMBOS.astype(np.int64), COMBO_MASKS)
    priority = rng.permuted(np.tile(np.arange(seats, dtype=np.int64), (count, 1)), axis=1)
    picks = _hero_picks(count, rng)
    tables = load_tables()
    _, _, hero_key = _sample_keys(boards, np.zeros((count, 0), dtype=np.int64), picks, COMBOS.astype(np.int64),
                                  tables)
    deal_key = _deal_keys(boards, combos, inside, priority, COMBOS.astype(np.int64), tables)
    return _MultiwaySamples(dealt, deal_key, masks, hero_key, *_hero_cards(picks), ratio)


@njit(cache=True, parallel=True)
def _draw_rows(
    start: np.uint64, proposals: np.ndarray, inside: np.ndarray, classes: np.ndarray, sizes: np.ndarray,
    boards: np.ndarray,
    board_pairs: np.ndarray, board_masks: np.ndarray, combo_cards: np.ndarray, combo_masks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's combos for the seats inside (see :func:`_draw_proposal_samples`), their classes, card masks (0
    for the seats not inside) and density ratios:
    inverse-CDF draws from the seat's combo distribution, redrawn while the combo touches the board (uniforms from
    row ``r``'s sub-stream of the splitmix stream started at ``start``, so rows are drawn in parallel)."""
    rows, seats, _ = proposals.shape
    count = boards.shape[0]
    combos = np.zeros((rows, count, seats), dtype=np.int64)
    dealt = np.zeros((rows, count, seats), dtype=np.uint8)
    masks = np.zeros((rows, count, seats), dtype=np.uint64)
    ratio = np.ones((rows, count, seats))
    for r in prange(rows):
        state = np.array([substream_start(start, r)], dtype=np.uint64)
        density = np.empty(1326)
        cdf = np.empty(1326)
        by_card = np.empty(52)
        for q in range(seats):
            if not inside[r, q]:
                continue
            total = 0.0
            for x in range(1326):
                density[x] = proposals[r, q, classes[x]] / sizes[classes[x]]
                total += density[x]
            by_card[:] = 0.0
            running = 0.0
            for x in range(1326):
                density[x] /= total
                running += density[x]
                cdf[x] = running
                by_card[combo_cards[x, 0]] += density[x]
                by_card[combo_cards[x, 1]] += density[x]
            for s in range(count):
                mass = 1.0  # the proposal's mass on the combos that avoid the board
                for k in range(5):
                    mass -= by_card[boards[s, k]]
                for k in range(board_pairs.shape[1]):
                    mass += density[board_pairs[s, k]]
                while True:
                    x = min(np.searchsorted(cdf, uniform(state) * cdf[-1], side="right"), 1325)
                    if (combo_masks[x] & board_masks[s]) == 0:
                        break
                combos[r, s, q] = x
                dealt[r, s, q] = classes[x]
                masks[r, s, q] = combo_masks[x]
                ratio[r, s, q] = mass / (density[x] * 1081.0)  # 1081 = C(47, 2) combos avoid a board
    return combos, dealt, masks, ratio


@njit(cache=True, parallel=True)
def _deal_keys(boards: np.ndarray, combos: np.ndarray, inside: np.ndarray, priority: np.ndarray,
               combo_cards: np.ndarray, tables: EvalTables) -> np.ndarray:
    """``value * 16 + priority`` of every row's seats' combos on the shared boards (the priority alone for the
    seats not inside the row's pot: only a hero's priority is read from its own entry)."""
    rows, count, seats = combos.shape
    out = np.empty((rows, count, seats), dtype=np.int64)
    for s in prange(count):
        key, bits = partial_hand(boards[s], tables)
        for r in range(rows):
            for seat in range(seats):
                if not inside[r, seat]:
                    out[r, s, seat] = priority[s, seat]
                    continue
                c = combos[r, s, seat]
                out[r, s, seat] = np.int64(value_with_two(key, bits, combo_cards[c, 0], combo_cards[c, 1],
                                                          tables)) * 16 + priority[s, seat]
    return out


@njit(cache=True)
def _sample_keys(
    decks: np.ndarray, priority: np.ndarray, picks: np.ndarray, combo_cards: np.ndarray, tables: EvalTables
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Combos and hand keys of the sampled deals: seat k holds cards 2k, 2k+1 of the shuffled deck, the board is
    the next five; each class's sampled combo is ranked on the same board (0 when it touches the board)."""
    count, seats = priority.shape
    deal_combo = np.empty((count, seats), dtype=np.int64)
    deal_key = np.empty((count, seats), dtype=np.int64)
    hero_key = np.zeros(picks.shape, dtype=np.int32)
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
                hero_key[s, c] = np.int32(value_with_two(key, bits, c1, c2, tables)) * 16
    return deal_combo, deal_key, hero_key


@njit(cache=True)
def _winners_code(order_seats: np.ndarray, eligible: np.ndarray, seats: int) -> int:
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


@njit(cache=True, parallel=True)
def _position_outcomes(
    deal_key: np.ndarray, hero: int, opponents: np.ndarray, eligible: np.ndarray, outcome_keys: np.ndarray,
    seats: int,
) -> np.ndarray:
    """Static part of a hero's multiway value: for each sample, the outcome index for each number of opponents
    ranked above the hero."""
    count = deal_key.shape[0]
    m = opponents.shape[0] + 1
    by_position = np.empty((count, m), dtype=np.int32)
    for block in prange(OUTCOME_BLOCKS):  # blocks of deals, each with its own scratch (an allocation per deal
        order = np.empty(m, dtype=np.int64)  # cost as much as the work)
        ranked = np.empty(m - 1, dtype=np.int64)
        for s in range(block * count // OUTCOME_BLOCKS, (block + 1) * count // OUTCOME_BLOCKS):
            _rank_position_outcomes(deal_key, s, hero, opponents, eligible, outcome_keys, seats, order, ranked,
                                    by_position)
    return by_position


@njit(cache=True)
def _seats_by_key(deal_key: np.ndarray, s: int, seats: np.ndarray, out: np.ndarray) -> None:
    """``seats`` into ``out`` by decreasing key in deal ``s`` (insertion sort: a few seats, no allocation)."""
    for j in range(seats.shape[0]):
        q = seats[j]
        i = j
        while i > 0 and deal_key[s, out[i - 1]] < deal_key[s, q]:
            out[i] = out[i - 1]
            i -= 1
        out[i] = q


@njit(cache=True)
def _rank_position_outcomes(deal_key: np.ndarray, s: int, hero: int, opponents: np.ndarray, eligible: np.ndarray,
                            outcome_keys: np.ndarray, seats: int, order: np.ndarray, ranked: np.ndarray,
                            by_position: np.ndarray) -> None:
    """One deal's row of :func:`_position_outcomes` (``order``, ``ranked``: scratch)."""
    m = opponents.shape[0] + 1
    _seats_by_key(deal_key, s, opponents, ranked)
    for pos in range(m):
        order[:pos] = ranked[:pos]
        order[pos] = hero
        order[pos + 1:] = ranked[pos:]
        by_position[s, pos] = np.searchsorted(outcome_keys, _winners_code(order, eligible, seats))


@njit(cache=True)
def _hero_sums(
    samples: _MultiwaySamples, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray, centre: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """A 3+ way hero's sampled sums per class: over the deals the class can use (its sampled combo avoids the
    board and the opponents' cards, which avoid each other), ``sum r w (u - centre[c])`` with ``w`` the
    product of the opponents' strategy weights ``sig`` at their dealt classes and ``r`` the product of their
    density ratios (1 for uniform deals), and the sum of ``r`` over such deals. With ``sig`` all ones and
    ``centre`` 0 the first divided by the second is the class's mean payoff with random opponents (the solver's
    per-iteration sums are :func:`_hero_correction`)."""
    deal_key, hero_key = samples.deal_key, samples.hero_key
    total = np.zeros(NUMBER_OF_CLASSES)
    usable = np.zeros(NUMBER_OF_CLASSES)
    for s in range(deal_key.shape[0]):
        weight, ratio, used = _pot_deal(samples, s, opponents, sig)
        if ratio == 0.0:
            continue
        priority = deal_key[s, hero] % 16  # the hero's tie-break priority is its seat's in the deal
        for c in range(NUMBER_OF_CLASSES):
            if hero_key[s, c] == 0 or _clashes(samples, s, c, used):
                continue
            usable[c] += ratio
            if weight != 0.0:
                above = _ranked_above(deal_key, s, opponents, hero_key[s, c] + priority)
                total[c] += weight * (utilities[by_position[s, above]] - centre[c])
    return total, usable


@njit(cache=True, fastmath=True)
def _hero_correction(
    samples: _MultiwaySamples, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray, centre: np.ndarray,
) -> np.ndarray:
    """The first of :func:`_hero_sums`' sums, the solver's hot loop. Deals of weight 0 (most of them: a seat's
    class out of its range) are skipped whole, found from the classes alone. Per deal the opponents' keys,
    shifted by the hero's tie-break priority and sorted, are thresholds: the payoff with ``k`` opponents above
    the hero is the payoff with none plus one step per threshold above the hero's key, so the loop over the
    classes has no gather and no branch, and nine thresholds are unrolled (padded with -1, below every key)
    so that it runs in vector registers (3 times faster than a loop over the opponents, measured)."""
    deal_key, hero_key, low, high = samples.deal_key, samples.hero_key, samples.hero_low, samples.hero_high
    deal_class = samples.deal_class
    total = np.zeros(NUMBER_OF_CLASSES)
    weights = np.zeros(NUMBER_OF_CLASSES)
    m = opponents.shape[0]
    threshold = np.full(MAX_SEATS - 1, -1, dtype=np.int32)
    step = np.zeros(MAX_SEATS - 1)
    one = np.uint64(1)
    for s in range(deal_key.shape[0]):
        held = True  # every opponent's class in its range: no early exit, whose branch the CPU cannot predict
        for j in range(m):
            held &= sig[j, deal_class[s, opponents[j]]] != 0.0
        if not held:
            continue
        weight, _, used = _pot_deal(samples, s, opponents, sig)
        if weight == 0.0:
            continue
        priority = deal_key[s, hero] % 16
        for j in range(m):  # an opponent ranks above the hero's key k + priority when its key - priority > k
            key = np.int32(deal_key[s, opponents[j]] - priority)
            i = j
            while i > 0 and threshold[i - 1] < key:  # insertion sort, decreasing
                threshold[i] = threshold[i - 1]
                i -= 1
            threshold[i] = key
        base = weight * utilities[by_position[s, 0]]
        for k in range(m):
            step[k] = weight * (utilities[by_position[s, k + 1]] - utilities[by_position[s, k]])
        t0, t1, t2, t3, t4, t5, t6, t7, t8 = (threshold[0], threshold[1], threshold[2], threshold[3], threshold[4],
                                              threshold[5], threshold[6], threshold[7], threshold[8])
        d0, d1, d2, d3, d4, d5, d6, d7, d8 = (step[0], step[1], step[2], step[3], step[4], step[5], step[6],
                                              step[7], step[8])
        keys, lows, highs = hero_key[s], low[s], high[s]
        for c in range(NUMBER_OF_CLASSES):
            key = keys[c]
            value = (base + (d0 if t0 > key else 0.0) + (d1 if t1 > key else 0.0) + (d2 if t2 > key else 0.0)
                     + (d3 if t3 > key else 0.0) + (d4 if t4 > key else 0.0) + (d5 if t5 > key else 0.0)
                     + (d6 if t6 > key else 0.0) + (d7 if t7 > key else 0.0) + (d8 if t8 > key else 0.0))
            clash = ((used >> np.uint64(lows[c])) | (used >> np.uint64(highs[c]))) & one
            usable = (key != 0) & (clash == 0)
            total[c] += value if usable else 0.0
            weights[c] += weight if usable else 0.0
    return total - weights * centre


@njit(cache=True, parallel=True)
def _hero_moments(
    samples: _MultiwaySamples, hero: int, opponents: np.ndarray, sig: np.ndarray, by_position: np.ndarray,
    utilities: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per class of a 3+ way hero, over the deals it can use (as :func:`_hero_sums`), with ``w`` the product of
    the opponents' ``sig`` at their dealt classes and density ratios: ``sum w u``, ``sum w`` and ``sum w^2``
    (the deals in blocks shared among the threads, each block's sums added at the end: a fixed number of
    blocks, so the sums do not depend on the number of threads)."""
    deal_key, hero_key = samples.deal_key, samples.hero_key
    count = deal_key.shape[0]
    blocks = MOMENT_BLOCKS
    parts = np.zeros((blocks, 3, NUMBER_OF_CLASSES))
    for b in prange(blocks):
        for s in range(b * count // blocks, (b + 1) * count // blocks):
            weight, _, used = _pot_deal(samples, s, opponents, sig)
            if weight == 0.0:
                continue
            priority = deal_key[s, hero] % 16
            for c in range(NUMBER_OF_CLASSES):
                if hero_key[s, c] == 0 or _clashes(samples, s, c, used):
                    continue
                above = _ranked_above(deal_key, s, opponents, hero_key[s, c] + priority)
                parts[b, 0, c] += weight * utilities[by_position[s, above]]
                parts[b, 1, c] += weight
                parts[b, 2, c] += weight * weight
    total = parts.sum(axis=0)
    return total[0], total[1], total[2]


@njit(cache=True)
def _pot_deal(samples: _MultiwaySamples, s: int, seats: np.ndarray, sig: np.ndarray
              ) -> tuple[float, float, np.uint64]:
    """Deal ``s`` seen by the pot's ``seats``: the product of their strategy weights ``sig`` at their dealt
    classes times their density ratios, the product of the ratios alone (0 when two of them share a card),
    and their cards."""
    weight = 1.0
    ratio = 1.0
    used = np.uint64(0)
    for j in range(seats.shape[0]):
        q = seats[j]
        weight *= sig[j, samples.deal_class[s, q]]
        if (used & samples.deal_mask[s, q]) != 0:
            ratio = 0.0
        ratio *= samples.deal_ratio[s, q]
        used |= samples.deal_mask[s, q]
    return weight * ratio if ratio != 0.0 else 0.0, ratio, used


@njit(cache=True)
def _clashes(samples: _MultiwaySamples, s: int, c: int, used: np.uint64) -> bool:
    """Whether class ``c``'s sampled combo of deal ``s`` holds one of the cards ``used``."""
    return (((used >> samples.hero_low[s, c]) | (used >> samples.hero_high[s, c])) & np.uint64(1)) != 0


@njit(cache=True)
def _ranked_above(deal_key: np.ndarray, s: int, opponents: np.ndarray, key: int) -> int:
    """How many opponents' hands in deal ``s`` rank above a hero's ``key``."""
    above = 0
    for j in range(opponents.shape[0]):
        if deal_key[s, opponents[j]] > key:
            above += 1
    return above


@njit(cache=True)
def _positive_or_one(counts: np.ndarray) -> np.ndarray:
    """The normalisers of the per-class corrections, 1 where a class has no usable deal (its sums are 0)."""
    out = counts.copy()
    for c in range(out.shape[0]):
        if out[c] <= 0.0:
            out[c] = 1.0
    return out


@njit(cache=True)
def _usable_counts(samples: _MultiwaySamples, opponents: np.ndarray) -> np.ndarray:
    """The deals each class of a 3+ way hero can use, summed with their density ratios (as
    :func:`_hero_sums` counts them): the normaliser of its correction."""
    usable = np.zeros(NUMBER_OF_CLASSES)
    for s in range(samples.hero_key.shape[0]):
        used = np.uint64(0)
        ratio = 1.0
        clash = False
        for j in range(opponents.shape[0]):
            q = opponents[j]
            clash = clash or (used & samples.deal_mask[s, q]) != 0
            used |= samples.deal_mask[s, q]
            ratio *= samples.deal_ratio[s, q]
        if clash:
            continue
        for c in range(NUMBER_OF_CLASSES):
            if samples.hero_key[s, c] != 0 and not _clashes(samples, s, c, used):
                usable[c] += ratio
    return usable


@njit(cache=True)
def _pot_weights(samples: _MultiwaySamples, inside: np.ndarray) -> np.ndarray:
    """Per deal, the product of the density ratios of the seats ``inside`` the pot, 0 where two of them share
    a card (a spectator's view: every deal with disjoint hands counts)."""
    out = np.zeros(samples.deal_mask.shape[0])
    for s in range(out.shape[0]):
        used = np.uint64(0)
        ratio = 1.0
        for j in range(inside.shape[0]):
            q = inside[j]
            if (used & samples.deal_mask[s, q]) != 0:
                ratio = 0.0
                break
            used |= samples.deal_mask[s, q]
            ratio *= samples.deal_ratio[s, q]
        out[s] = ratio
    return out


@njit(cache=True)
def _spectator_sum(
    deal_class: np.ndarray, inside: np.ndarray, sig: np.ndarray, outcome_of_sample: np.ndarray,
    utilities: np.ndarray, centre: float, pot_weight: np.ndarray,
) -> float:
    """A spectator's sampled correction of a 3+ way pot: the sum over the deals, weighted by ``pot_weight``
    (:func:`_pot_weights` over their normaliser), of the product of the players' strategy weights at their dealt
    classes times ``u - centre``."""
    total = 0.0
    for s in range(deal_class.shape[0]):
        r = pot_weight[s]
        if r == 0.0:
            continue
        weight = r
        for j in range(inside.shape[0]):
            weight *= sig[j, deal_class[s, inside[j]]]
        if weight != 0.0:
            total += weight * (utilities[outcome_of_sample[s]] - centre)
    return total


@njit(cache=True, parallel=True)
def _sample_outcomes(
    deal_key: np.ndarray, inside: np.ndarray, eligible: np.ndarray, outcome_keys: np.ndarray, seats: int
) -> np.ndarray:
    """Outcome index of every sampled deal for the participants ``inside`` (a spectator's view)."""
    count = deal_key.shape[0]
    m = inside.shape[0]
    out = np.empty(count, dtype=np.int64)
    for block in prange(OUTCOME_BLOCKS):  # as _position_outcomes: scratch per block of deals
        order = np.empty(m, dtype=np.int64)
        for s in range(block * count // OUTCOME_BLOCKS, (block + 1) * count // OUTCOME_BLOCKS):
            _seats_by_key(deal_key, s, inside, order)
            out[s] = np.searchsorted(outcome_keys, _winners_code(order, eligible, seats))
    return out


_NO_SAMPLES = _MultiwaySamples(np.zeros((1, 0, 1), dtype=np.uint8), np.zeros((1, 0, 1), dtype=np.int64),
                               np.zeros((1, 0, 1), dtype=np.uint64), np.zeros((0, NUMBER_OF_CLASSES), dtype=np.int32),
                               np.zeros((0, NUMBER_OF_CLASSES), dtype=np.uint8),
                               np.zeros((0, NUMBER_OF_CLASSES), dtype=np.uint8), np.zeros((1, 0, 1)))


@njit(cache=True, parallel=True)
def _batched_values(
    plans: _PlayerTerminals, sources: _SourceProducts, class_size: np.ndarray, samples: _MultiwaySamples,
    player: int, out: np.ndarray,
) -> None:
    """Every terminal's value for ``player`` (rows of ``out``), as :meth:`PushFoldGame.evaluate` computes it
    terminal by terminal, from the sources' products (see :meth:`PushFoldGame.evaluate_terminals`)."""
    source, x, removal, win, tie = sources
    seats = source.shape[1]
    for t in prange(plans.kind.shape[0]):
        value = np.full(NUMBER_OF_CLASSES, plans.scale[t])
        for j in range(seats):
            q = plans.folders[t, j]
            if q < 0:
                break
            value *= removal[source[t, q]]
        u = plans.utilities[t]
        kind = plans.kind[t]
        if kind == _CONSTANT:
            out[t] = value * u[0]
        elif kind == _HEADS_UP:
            o = source[t, plans.inside[t, 0] if plans.inside[t, 0] != player else plans.inside[t, 1]]
            for h in range(NUMBER_OF_CLASSES):
                lose = removal[o, h] - win[o, h] - tie[o, h]
                out[t, h] = value[h] * (u[0] * win[o, h] + u[1] * lose + u[2] * tie[o, h]) / DISJOINT_COMBOS
        else:  # spectator or 3+ way hero: reach in the pot times the centre, plus the correction
            m = 0
            while m < seats and plans.inside[t, m] >= 0:
                m += 1
            pot = plans.inside[t, :m]
            reach_in_pot = np.ones(NUMBER_OF_CLASSES)
            for j in range(m):
                reach_in_pot *= removal[source[t, pot[j]]] / DISJOINT_COMBOS
            centre = plans.centre[t]
            if kind == _SPECTATOR and m == 2:
                a, b = source[t, pot[0]], source[t, pot[1]]
                d0, d1, d2 = u[0] - centre[0], u[1] - centre[0], u[2] - centre[0]
                acc = 0.0
                for o in range(NUMBER_OF_CLASSES):
                    lose = removal[b, o] - win[b, o] - tie[b, o]
                    acc += x[a, o] * class_size[o] * (d0 * win[b, o] + d1 * lose + d2 * tie[b, o])
                correction = np.full(NUMBER_OF_CLASSES, acc / (1326.0 * DISJOINT_COMBOS))
            else:
                sig = np.empty((m, NUMBER_OF_CLASSES))
                for j in range(m):
                    sig[j] = x[source[t, pot[j]]]
                r = plans.deal_row[t]
                deals = _MultiwaySamples(samples.deal_class[r], samples.deal_key[r], samples.deal_mask[r],
                                         samples.hero_key, samples.hero_low, samples.hero_high, samples.deal_ratio[r])
                if kind == _SPECTATOR:
                    row = plans.spectator_row[t]
                    correction = np.full(NUMBER_OF_CLASSES, _spectator_sum(
                        deals.deal_class, pot, sig, plans.sample_outcomes[row], u, centre[0], plans.pot_weights[row]))
                else:
                    count = deals.deal_class.shape[0]
                    at = plans.position_at[t]
                    by_position = plans.positions[at:at + count * (m + 1)].reshape(count, m + 1)
                    correction = _hero_correction(deals, player, pot, sig, by_position, u, centre) / plans.counts[t]
            out[t] = value * (reach_in_pot * centre + correction)


@njit(cache=True, parallel=True)
def _source_products(
    x: np.ndarray, rows: np.ndarray, pairs: np.ndarray, win: np.ndarray, tie: np.ndarray, removal: np.ndarray,
    win_out: np.ndarray, tie_out: np.ndarray,
) -> None:
    """``removal[r] = pairs @ x[r]`` (and the same with ``win``, ``tie``) for the sources ``rows``. A compiled
    loop rather than BLAS (a multithreaded BLAS on a shared machine measured 10x slower than this), the sources
    split among numba's threads."""
    for i in prange(rows.shape[0]):
        r = rows[i]
        for h in range(NUMBER_OF_CLASSES):
            total = 0.0
            won = 0.0
            tied = 0.0
            for o in range(NUMBER_OF_CLASSES):
                total += pairs[h, o] * x[r, o]
                won += win[h, o] * x[r, o]
                tied += tie[h, o] * x[r, o]
            removal[r, h] = total
            win_out[r, h] = won
            tie_out[r, h] = tied
