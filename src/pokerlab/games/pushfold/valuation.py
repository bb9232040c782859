"""The valuation of push/fold's terminals: each class's expected payoff times the other seats' reach.

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
  as the game must be for CFR's guarantees and for best responses to mean anything (a ratio estimator, the
  weighted mean payoff over the deals, is not, and CFR stalls on it at nine seats: docs/benchmarks.md); a
  constant payoff gives exactly the reach. Two-player pots use the exact class tables for the correction;
  3+ way pots a fixed sample of deals, seeded (:mod:`pokerlab.games.pushfold.deals`).

A :class:`MultiwayValuation` is one of three stages, each built explicitly from the one before:

- **uniform** (:meth:`MultiwayValuation.uniform`): every 3+ way pot on the same uniform deals (the seed's first
  stream); a per-class standard error floor is :meth:`MultiwayValuation.multiway_error`;
- **redealt** (:meth:`MultiwayValuation.redealt`): each 3+ way pot on its own deals, importance-sampled from the
  ranges that reached it, weighted by density ratios and divided by the known mean of their products
  (:func:`~pokerlab.games.pushfold.deals.reference_disjoint`: unbiased and multilinear; the sum of the ratio
  products, heavy-tailed once ranges are tight, made nine-seat solves stall), and centred on the payoff's mean
  against those ranges. Uniform deals weigh little once the ranges are tight (a deal's weight is the product of
  the pot's strategy weights), which the redeal's deals do not;
- **checked** (:meth:`MultiwayValuation.checked`): the same stage on independent deals (the seed's second
  stream, or its fourth after a redeal), to measure what the sampling hides
  (:func:`pokerlab.pushfold.pushfold`).

The estimator's constants (:class:`Centres`: the 3+ way heroes' centres with random hands, shared by every stage
of a game; the centres against a redeal's ranges, shared by the redeal and its check) are handed from stage to
stage: any constant keeps the estimator unbiased, and a check must value the same estimator. Ties in the
sampled deals are broken by a random seat priority (exact for chip EV in expectation, an approximation of the
split for ICM).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.equity.preflop import PreflopTables
from pokerlab.errors import InvalidGameError
from pokerlab.games.pushfold.deals import draw_proposal_deals, draw_uniform_deals, reference_disjoint
from pokerlab.games.pushfold.kernels import (
    CONSTANT,
    DISJOINT_COMBOS,
    HEADS_UP,
    MULTIWAY,
    SPECTATOR,
    Deals,
    PlayerTerminals,
    SourceProducts,
    batched_values,
    hero_moments,
    hero_sums,
    position_outcomes,
    positive_or_one,
    pot_weights,
    sample_outcomes,
    source_products,
    two_seat_pot_values,
    usable_counts,
)
from pokerlab.games.pushfold.rules import Terminal
from pokerlab.stats.rng import numpy_generator, numpy_generators

if TYPE_CHECKING:  # pragma: no cover
    from pokerlab.games.vector import CompiledPublicTree

CENTRE_DEALS = 256  # deals that estimate a 3+ way hero's centre (a constant of the estimator, see above)
RECENTRE_DEALS = 1000  # deals that estimate it again against the ranges of a redeal (any constant stays unbiased)
MIN_CENTRE_DEALS = 10  # effective deals a centre against ranges needs (else the random-hands centre stays)

State = tuple[int, ...]
Ranges = dict[State, np.ndarray]


@dataclass
class Centres:
    """The estimator's constants (see the module docstring): per (terminal, player), a 3+ way hero's centre with
    random hands (``random_hands``, computed on first use from the first :data:`CENTRE_DEALS` deals) and the
    centres against a redeal's ranges (``against_ranges``)."""

    random_hands: dict[tuple[State, int], np.ndarray] = field(default_factory=dict)
    against_ranges: dict[tuple[State, int], np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """Per (terminal, player): the seats whose removal-conditioned reach multiplies the value (``folders``),
    how the showdown is valued (``kind``, one of the kernels' kinds) and the static parts of that valuation."""

    terminal: Terminal
    kind: int
    folders: np.ndarray
    scale: float
    opponents: np.ndarray
    first: bool  # heads-up: the player is the pot's first participant
    outcome_by_position: np.ndarray | None  # (S, m) outcome index when k opponents rank above the hero
    outcome_of_sample: np.ndarray | None  # (S,) outcome index of each deal (spectator of a multiway pot)
    pot_weight: np.ndarray | None  # (S,) the deal's weight for a spectator of a multiway pot (pot_weights)
    centre: np.ndarray  # (169,) the payoff's mean with random hands in the pot (spectators: one value)
    counts: np.ndarray  # (169,) usable deals per class of a 3+ way hero (1 where none): the correction divides by it


@dataclass
class SourceCache:
    """Player-independent state of the batched evaluation for one compiled tree (see
    :meth:`MultiwayValuation.evaluate_terminals`): ``source[i, q]`` the source of seat ``q``'s reach at terminal
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
    players: dict[int, PlayerTerminals]


class MultiwayValuation:
    """The valuation of one push/fold game's terminals at one stage (see the module docstring). Build it with
    :meth:`uniform`, then :meth:`redealt` and :meth:`checked`; the deals are drawn on first use and freed by
    :meth:`release_deals`.

    ``terminals``: the game's terminals by state; ``equity``: the preflop class tables; ``seats``: the table's.
    """

    def __init__(self, terminals: dict[State, Terminal], equity: PreflopTables, seats: int, *, samples: int,
                 seed: int, centres: Centres, ranges: Ranges | None = None, share: float = 0.0,
                 independent: bool = False) -> None:
        self.terminals = terminals
        self.equity = equity
        self.seats = seats
        self.samples = int(samples)
        self.seed = int(seed)
        self.centres = centres
        self.ranges = ranges
        self.share = share
        self.independent = independent  # the check's stage: the seed's independent streams
        self.class_weights = equity.class_size / 1326.0
        self.class_lose = equity.class_pairs - equity.class_win - equity.class_tie
        self._row_of: dict[State, int] = {}
        self._deals: Deals | None = None
        self._board_avoiding: np.ndarray | None = None
        self._caches: dict[int, SourceCache] = {}
        self._spectator_outcomes: dict[State, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def uniform(cls, terminals: dict[State, Terminal], equity: PreflopTables, seats: int, samples: int,
                seed: int) -> MultiwayValuation:
        """The first stage: every 3+ way pot on ``samples`` uniform deals of the seed's first stream."""
        return cls(terminals, equity, seats, samples=samples, seed=seed, centres=Centres())

    def redealt(self, ranges: Ranges, share: float, samples: int | None = None) -> MultiwayValuation:
        """This game's valuation with each 3+ way pot on ``samples`` deals of its own (default: as many as
        this stage's), importance-sampled from ``ranges`` (see :meth:`PushFoldGame.redealt`); the centres with
        random hands are kept, those against ranges start afresh."""
        if not 0 <= share < 1:
            raise InvalidGameError(f"the share of the ranges in the proposal must be in [0, 1), got {share}")
        own = {state: np.asarray(sig, dtype=np.float64) for state, sig in ranges.items()
               if len(self.terminals[state].participants) > 2}
        return MultiwayValuation(self.terminals, self.equity, self.seats,
                                 samples=self.samples if samples is None else samples, seed=self.seed,
                                 centres=Centres(self.centres.random_hands), ranges=own, share=float(share))

    def checked(self) -> MultiwayValuation:
        """This stage on independent deals (the seed's second stream, or its fourth after a redeal), with the
        same constants: the same estimator, resampled."""
        return MultiwayValuation(self.terminals, self.equity, self.seats, samples=self.samples, seed=self.seed,
                                 centres=self.centres, ranges=self.ranges, share=self.share, independent=True)

    @property
    def stage(self) -> str:
        """``'uniform'`` or ``'redealt'``, with ``', checked'`` on the independent deals of a check."""
        return ("uniform" if self.ranges is None else "redealt") + (", checked" if self.independent else "")

    def spec(self) -> dict[str, Any]:
        """The valuation's part of the game's specification (its inputs, the redeal's ranges by digest)."""
        return {"multiway_samples": self.samples, "seed": self.seed} | (
            {"check_stream": True} if self.independent else {}) | (
            {} if self.ranges is None else {"redealt": {"share": self.share, "ranges_sha256": self._ranges_digest()}})

    def _ranges_digest(self) -> str:
        """SHA-256 of the redeal's ranges (terminal states and arrays, in order): a compact name for them."""
        digest = hashlib.sha256()
        ranges = self.ranges or {}
        for state in sorted(ranges):
            digest.update(repr(state).encode())
            digest.update(np.ascontiguousarray(ranges[state], dtype=np.float64).tobytes())
        return digest.hexdigest()

    # ---------------------------------------------------------------------------------------------------
    # values

    def evaluate(self, state: State, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual value of each class of ``player`` at one terminal (the compiled path of
        :meth:`evaluate_terminals`, with each seat's reach its own source)."""
        x = np.stack([np.asarray(r, dtype=np.float64) / self.class_weights for r in reaches])
        sources = np.arange(self.seats, dtype=np.int64)
        removal, win, tie = (np.empty((self.seats, NUMBER_OF_CLASSES)) for _ in range(3))
        source_products(x, sources, self.equity.class_pairs, self.equity.class_win, self.equity.class_tie,
                        removal, win, tie)
        states = [state]
        multiway = len(self.terminals[state].participants) > 2
        plans = self.player_terminals(states, player, multiway)
        out = np.empty((1, NUMBER_OF_CLASSES))
        products = SourceProducts(sources[None, :], x, removal, win, tie)
        if multiway:
            batched_values(plans, products, self.equity.class_size.astype(np.float64), self.deals(), player, out)
        else:
            two_seat_pot_values(plans, products, self.equity.class_size.astype(np.float64), player, out)
        values: np.ndarray = out[0]
        return values

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at every terminal in one compiled call (the solvers' hot path; the same values).

        The reach of a seat at a terminal is its initial weight times its probability of the one action it
        took on the way (a seat acts at most once per path), so the terminals share a few hundred distinct
        reach vectors (*sources*: one per decision edge and seat). Their removal-conditioned products with the
        class tables (``class_pairs``, ``class_win``, ``class_tie``: three 169 x 169 matrix products) are
        computed once per source and kept while the source's reach is unchanged: per CFR iteration each source
        changes once, when its seat updates. Every terminal's value is then elementwise in those products,
        except the sampled corrections of 3+ way pots.
        """
        cache = self._source_cache(tree, terminals)
        x = reaches[cache.source_terminal, cache.source_seat, :NUMBER_OF_CLASSES] / self.class_weights
        changed = np.flatnonzero(np.any(x != cache.x, axis=1))
        if changed.size:
            cache.x[changed] = x[changed]
            source_products(cache.x, changed, self.equity.class_pairs, self.equity.class_win, self.equity.class_tie,
                            cache.removal, cache.win, cache.tie)
        plans = cache.players.get(player)
        if plans is None:
            states = [tree.states[int(node)] for node in cache.terminals]
            plans = cache.players[player] = self.player_terminals(states, player, cache.multiway)
        out = np.empty((terminals.size, NUMBER_OF_CLASSES))
        sources = SourceProducts(cache.source, cache.x, cache.removal, cache.win, cache.tie)
        if cache.multiway:
            batched_values(plans, sources, self.equity.class_size.astype(np.float64), self.deals(), player, out)
        else:
            two_seat_pot_values(plans, sources, self.equity.class_size.astype(np.float64), player, out)
        return out

    def _source_cache(self, tree: CompiledPublicTree, terminals: np.ndarray) -> SourceCache:
        """The player-independent part of :meth:`evaluate_terminals` for one tree and terminal list: each
        (terminal, seat)'s source (the edge below the seat's decision on the path, or its root) and the
        sources' cached products."""
        key = id(tree)
        cache = self._caches.get(key)
        if cache is not None and cache.tree is tree and np.array_equal(cache.terminals, terminals):
            return cache
        n = self.seats
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
        cache = SourceCache(tree, terminals.copy(), source, np.array(rep_terminal, dtype=np.int64),
                            np.array(rep_seat, dtype=np.int64), np.full((count, NUMBER_OF_CLASSES), np.nan),
                            np.empty((count, NUMBER_OF_CLASSES)), np.empty((count, NUMBER_OF_CLASSES)),
                            np.empty((count, NUMBER_OF_CLASSES)), multiway, {})
        self._caches = {key: cache}
        return cache

    def player_terminals(self, states: Sequence[State], player: int, multiway: bool) -> PlayerTerminals:
        """Static per-terminal arrays of one player for the compiled valuation, from the per-terminal plans
        (``multiway``: some terminal is a 3+ way pot, whose deals are then drawn)."""
        n = self.seats
        count = len(states)
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
        for i, state in enumerate(states):
            plan = self.plan(state, player)
            terminal = plan.terminal
            kind[i] = plan.kind
            scale[i] = plan.scale
            centre[i] = plan.centre
            counts[i] = plan.counts
            folders[i, :plan.folders.size] = plan.folders
            u = terminal.utilities[:, player]
            if plan.kind == MULTIWAY:
                inside[i, :plan.opponents.size] = plan.opponents
                assert plan.outcome_by_position is not None
                positions.append(plan.outcome_by_position.reshape(-1))
                position_at[i] = at
                at += positions[-1].size
            else:
                inside[i, :len(terminal.participants)] = terminal.participants
            if plan.kind == HEADS_UP:
                u = np.array([u[0], u[1], u[2]] if plan.first else [u[1], u[0], u[2]])
            utilities[i, :u.size] = u
            if plan.outcome_of_sample is not None:
                spectator_row[i] = len(sample_rows)
                sample_rows.append(plan.outcome_of_sample.astype(np.int32))
                assert plan.pot_weight is not None
                weight_rows.append(plan.pot_weight)
        samples = self.samples if multiway else 0
        return PlayerTerminals(
            kind, scale, folders, inside, utilities, spectator_row,
            np.array(sample_rows, dtype=np.int32).reshape(len(sample_rows), samples),
            np.array(weight_rows, dtype=np.float64).reshape(len(weight_rows), samples),
            np.array([self._row_of.get(state, 0) for state in states], dtype=np.int64),
            position_at, np.concatenate(positions) if positions else np.zeros(0, dtype=np.int32),
            centre, counts)

    def plan(self, state: State, player: int) -> Plan:
        """What the valuation needs at a terminal for one player."""
        terminal = self.terminals[state]
        inside = terminal.participants
        n = self.seats
        others = [q for q in range(n) if q != player]
        u = terminal.utilities[:, player]
        opponents = np.array([q for q in inside if q != player], dtype=np.int64)
        kind, first = MULTIWAY, False
        outcome_by_position = outcome_of_sample = pot_weight = None
        centre = np.zeros(NUMBER_OF_CLASSES)
        counts = np.zeros(NUMBER_OF_CLASSES)
        if player not in inside or len(inside) == 1:
            kind = CONSTANT if len(inside) <= 1 or np.ptp(u) == 0.0 else SPECTATOR
        elif len(inside) == 2:
            kind = HEADS_UP
            first = inside[0] == player
        # spectators and 3+ way heroes: the seats in the pot are valued in the bracket of the module docstring,
        # the others multiply by their removal-conditioned reach; elsewhere every other seat does
        folders = np.array([q for q in others if q not in inside or kind == CONSTANT], dtype=np.int64)
        if kind == SPECTATOR and len(inside) == 2:
            ones = np.ones(NUMBER_OF_CLASSES)  # the payoff's mean when both hold random hands
            t = self.equity
            weighted = t.class_size
            pair = weighted @ t.class_pairs @ ones
            win, tie = weighted @ t.class_win @ ones, weighted @ t.class_tie @ ones
            centre[:] = (win * u[0] + (pair - win - tie) * u[1] + tie * u[2]) / pair
        elif kind == SPECTATOR:  # the sampled outcomes are the same for every spectator: computed once
            known_outcomes = self._spectator_outcomes.get(state)
            if known_outcomes is None:
                pot = np.array(inside, dtype=np.int64)
                deals = self.deals_of(state)
                weights = pot_weights(deals, pot)
                # the mean's normaliser: after a redeal the known mean of the weights (see reference_disjoint),
                # as their sum is heavy-tailed when ranges are tight; on uniform deals (ratios 1) their sum
                norm = (weights.size * reference_disjoint(pot.size, 0) if self.ranges is not None
                        else max(float(weights.sum()), 1e-300))
                known_outcomes = self._spectator_outcomes[state] = (
                    sample_outcomes(deals.deal_key, pot, terminal.pot_eligible, terminal.keys, n), weights / norm)
            outcome_of_sample, pot_weight = known_outcomes
            centre[:] = self._recentred_spectator(state, player, inside, pot_weight, u[outcome_of_sample])
        elif kind == MULTIWAY:
            samples = self.deals_of(state)
            outcome_by_position = position_outcomes(samples.deal_key, player, opponents, terminal.pot_eligible,
                                                    terminal.keys, n)
            known = self.centres.random_hands.get((state, player))
            if known is None:  # any constant keeps the value unbiased: the first CENTRE_DEALS deals suffice
                head = min(CENTRE_DEALS, samples.deal_class.shape[0])
                ones = np.ones((opponents.size, NUMBER_OF_CLASSES))
                first_deals = Deals(*(array[:head] for array in samples))
                sums, seen = hero_sums(first_deals, player, opponents, ones, outcome_by_position[:head], u, centre)
                known = self.centres.random_hands[(state, player)] = np.where(
                    seen > 0, sums / np.maximum(seen, 1.0), float(u.mean()))
            centre = known
            if self.ranges is None:  # the correction's normaliser: the usable deals, or their known mean
                counts = positive_or_one(usable_counts(samples, opponents))
            else:
                counts = positive_or_one(self.board_avoiding() * reference_disjoint(opponents.size, 2))
            centre = self._recentred_hero(state, player, opponents, outcome_by_position, u, centre)
        return Plan(terminal, kind, folders, 1.0 / DISJOINT_COMBOS ** len(folders), opponents, first,
                    outcome_by_position, outcome_of_sample, pot_weight, centre, counts)

    # ---------------------------------------------------------------------------------------------------
    # deals

    def deals(self) -> Deals:
        """The fixed deals of the multiway showdowns (drawn on first use), stacked by row: ``deal_*`` arrays are
        ``(rows, samples, seats)``, the hero's per-class combos ``(samples, 169)`` shared by every row. Uniform
        deals are one row for every terminal; redealt, each 3+ way terminal has its own row."""
        if self._deals is None:
            if self.ranges is None:
                rng = numpy_generators(self.seed, 2)[1] if self.independent else numpy_generator(self.seed)
                one = draw_uniform_deals(self.samples, self.seats, rng)
                self._deals = Deals(one.deal_class[None], one.deal_key[None], one.deal_mask[None], one.hero_key,
                                    one.hero_low, one.hero_high, one.deal_ratio[None])
                self._row_of = {}
            else:  # the seed's third and fourth streams
                rng = numpy_generators(self.seed, 4)[3 if self.independent else 2]
                states = sorted(self.ranges)
                self._row_of = {state: r for r, state in enumerate(states)}
                proposals = np.empty((len(states), self.seats, NUMBER_OF_CLASSES))
                for r, state in enumerate(states):
                    held = self.ranges[state] * self.class_weights[None, :]
                    mass = held.sum(axis=1, keepdims=True)
                    in_pot = np.where(mass > 0, held / np.where(mass > 0, mass, 1.0), self.class_weights[None, :])
                    proposals[r] = self.share * in_pot + (1 - self.share) * self.class_weights
                inside = np.zeros((len(states), self.seats), dtype=bool)
                for r, state in enumerate(states):
                    inside[r, list(self.terminals[state].participants)] = True
                self._deals = draw_proposal_deals(self.samples, proposals, inside, rng)
        return self._deals

    def row_of(self, state: State) -> int:
        """The row of :meth:`deals` that values the 3+ way pot at ``state`` (0 for uniform deals)."""
        self.deals()
        return self._row_of.get(state, 0)

    def board_avoiding(self) -> np.ndarray:
        """Per class, the deals whose sampled combo of the class avoids the board (shared by every pot's row)."""
        if self._board_avoiding is None:
            self._board_avoiding = np.count_nonzero(self.deals().hero_key, axis=0)
        return self._board_avoiding

    def deals_of(self, state: State) -> Deals:
        """The deals that value the 3+ way pot at terminal ``state`` (views into :meth:`deals`)."""
        deals = self.deals()
        r = self._row_of.get(state, 0)
        return Deals(deals.deal_class[r], deals.deal_key[r], deals.deal_mask[r], deals.hero_key,
                     deals.hero_low, deals.hero_high, deals.deal_ratio[r])

    def release_deals(self) -> None:
        """Free the deals and everything built on them (up to :data:`pokerlab.limits.MULTIWAY_BYTES` per seat,
        deal and 3+ way pot: gigabytes at nine or ten seats). They are drawn again, the same (the
        seed's stream), if this stage is valued again."""
        self._deals = None
        self._board_avoiding = None
        self._caches = {}
        self._spectator_outcomes = {}

    def multiway_error(self) -> float:
        """Standard error bound of a class's sampled multiway showdown value, as a fraction of the payoff range
        at the terminal: ``0.5 / sqrt(n)`` with ``n`` the fewest deals any class can use (its combo avoids the
        board; a Bernoulli standard deviation is at most 0.5). It is a floor, not a ceiling: deals blocked by
        the other all-in hands, and tight opponent ranges that weigh few deals, leave fewer effective deals;
        the effect on solutions is measured in docs/benchmarks.md."""
        accepted = np.count_nonzero(self.deals().hero_key > 0, axis=0)
        return float(0.5 / np.sqrt(max(1, accepted.min())))

    # ---------------------------------------------------------------------------------------------------
    # centres against a redeal's ranges

    def _recentred_hero(self, state: State, player: int, opponents: np.ndarray, by_position: np.ndarray,
                        u: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """A 3+ way hero's centre (the constant of the estimator, see the module docstring) after a redeal: the
        payoff's estimated mean per class against the redeal's ranges (where some deal weighs), else
        ``centre``. A centre near the actual mean leaves the sampled correction small, hence its noise;
        computed once and shared with the check, so it stays a constant of both."""
        key = (state, player)
        known = self.centres.against_ranges.get(key)
        if known is not None or self.ranges is None or state not in self.ranges:
            return centre if known is None else known
        head = min(RECENTRE_DEALS, by_position.shape[0])
        deals = Deals(*(array[:head] for array in self.deals_of(state)))
        sums, mass, squares = hero_moments(deals, player, opponents, self.ranges[state][opponents],
                                           by_position[:head], u)
        effective = mass ** 2 / np.where(squares > 0, squares, np.inf)  # Kish's effective number of deals
        known = self.centres.against_ranges[key] = np.where(effective >= MIN_CENTRE_DEALS,
                                                            sums / np.where(mass > 0, mass, 1.0), centre)
        return known

    def _recentred_spectator(self, state: State, player: int, inside: Sequence[int], pot_weight: np.ndarray,
                             payoffs: np.ndarray) -> float:
        """A spectator's centre: the payoff's mean over the deals (weighted by their density ratios), after a
        redeal against its ranges (as :meth:`_recentred_hero`)."""
        key = (state, player)
        known = self.centres.against_ranges.get(key)
        if known is not None:
            return float(known[0])
        weight = pot_weight
        if self.ranges is not None and state in self.ranges:
            sig = self.ranges[state]
            deal_class = self.deals_of(state).deal_class
            ranged = pot_weight * np.prod([sig[q][deal_class[:, q]] for q in inside], axis=0)
            if ranged.sum() ** 2 >= MIN_CENTRE_DEALS * (ranged ** 2).sum() > 0:
                weight = ranged
        centre = float(weight @ payoffs / max(weight.sum(), 1e-300))
        if self.ranges is not None:
            self.centres.against_ranges[key] = np.array([centre])
        return centre
