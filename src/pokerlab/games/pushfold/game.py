"""The push/fold game: one orbit of jam-or-fold preflop poker at a table of 2 to 10 seats, in vector form.

Seats act in order (UTG ... BTN, SB, BB; heads-up the SB acts first), after the forced bets of the table rules
(:mod:`pokerlab.games.pushfold.rules`). Until somebody jams, each seat folds or jams all-in; after the first jam
each later seat calls all-in or folds (any number of callers). A seat with nobody left to play against wins the
pot without a decision.

Private hands are the 169 hand classes with weights ``combos / 1,326``. A class is an exact summary of its
combos: the game is symmetric under suit relabelling, so against strategies that are constant on classes every
combo of a class has the same value and a best response may be chosen per class (see docs/algorithms.md). The
terminals are valued by a :class:`~pokerlab.games.pushfold.valuation.MultiwayValuation` (card removal, the
sampled 3+ way pots and their stages). Payoffs are a vector per outcome from a ``payoff`` function of the final
stacks (chip EV in big blinds, or ICM money from :mod:`pokerlab.pushfold`).

Knockout bounties (:class:`Bounties`): a seat busted in the hand pays the bounty on its head to the winner of the
highest pot it was in (the pot its last chips went into), split equally among that pot's winners; with a
progressive knockout only ``share`` of it in cash, the rest added onto each winner's head. The payoff is then
told, per outcome, the bounty money each seat won in the hand and the heads after it (:func:`settle_bounties`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from pokerlab.cards.classes import NUMBER_OF_CLASSES, class_label
from pokerlab.equity.preflop import PreflopTables, preflop_tables
from pokerlab.errors import InvalidGameError
from pokerlab.games.base import FOLD, TERMINAL, VECTOR_FORM, Action, GameType
from pokerlab.games.pushfold.kernels import Deals
from pokerlab.games.pushfold.rules import (
    MAX_SEATS,
    Table,
    Terminal,
    award_pots,
    outcome_key,
    outcome_values,
    pot_winner_sequences,
    pots,
)
from pokerlab.games.pushfold.valuation import MultiwayValuation, Ranges
from pokerlab.games.vector import CompiledPublicTree, VectorGame

JAM: Action = 1
"""Jam all-in first in, or call all-in after a jam."""
State = tuple[int, ...]


class Bounties(NamedTuple):
    """Knockout bounties at the table: ``heads[seat]`` the bounty on each seat's head (money), ``share`` the part
    of a busted head paid to the buster in cash (1: a knockout; below 1: a progressive knockout, the rest going
    onto the buster's head)."""

    heads: tuple[float, ...]
    share: float = 1.0


def settle_bounties(stacks: np.ndarray, final: np.ndarray, values: np.ndarray, pot_seats: np.ndarray,
                    bounties: Bounties) -> tuple[np.ndarray, np.ndarray]:
    """``(won, heads)``: the bounty money each seat wins in the hand and the bounty on each head after it. A seat
    whose stack is gone (it had chips before the hand) is busted by the winners of the highest pot it is eligible
    for (``pot_seats``: bitmask per pot; ``values``: the hand values the pots were awarded by, larger wins),
    who split its head equally: ``share`` in cash, the rest onto their heads.

    >>> won, heads = settle_bounties(np.array([5.0, 10.0]), np.array([0.0, 15.0]), np.array([0, 1]),
    ...                              np.array([3]), Bounties((2.0, 2.0), 0.5))
    >>> won.tolist(), heads.tolist()
    ([0.0, 1.0], [0.0, 3.0])
    """
    heads = np.array(bounties.heads, dtype=np.float64)
    won = np.zeros(heads.size)
    for seat in np.flatnonzero((final <= 1e-12 * stacks.sum()) & (stacks > 0)):
        top = max(p for p in range(pot_seats.size) if pot_seats[p] >> seat & 1)
        eligible = [k for k in range(heads.size) if pot_seats[top] >> k & 1]
        best = max(values[k] for k in eligible)
        winners = [k for k in eligible if values[k] == best]
        head = bounties.heads[seat]
        for k in winners:
            won[k] += bounties.share * head / len(winners)
            heads[k] += (1.0 - bounties.share) * head / len(winners)
        heads[seat] = 0.0
    return won, heads


class PushFoldGame(VectorGame):
    """Push/fold at one table as a vector-form game (see the module docstring).

    ``payoff(final_stacks) -> utilities`` maps the seats' stacks after the hand (chips) to each seat's payoff
    (chip EV in big blinds, or ICM money); it is called once per distinct outcome when the game is built. With
    ``bounties`` it is called as ``payoff(final_stacks, bounty_won, heads_after)`` (:func:`settle_bounties`).
    ``multiway_samples`` deals (seed ``seed``) evaluate showdowns of three or more players. The stages of the
    valuation (:meth:`redealt`, :meth:`resampled`) are games of their own that share this game's terminals.

    >>> game = PushFoldGame(Table((10.0, 10.0), 0.5, 1.0), lambda final: (final - 10.0))
    >>> game.num_players, game.decision_seats, game.valuation.stage
    (2, (0, 1), 'uniform')
    """

    name = "pushfold"

    def __init__(self, table: Table, payoff: Callable[..., np.ndarray], *, multiway_samples: int = 1000,
                 seed: int = 0, equity: PreflopTables | None = None, bounties: Bounties | None = None) -> None:
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
        self._payoff = payoff
        self.bounties = bounties
        self.terminals: dict[State, Terminal] = {}
        self._build_terminals(())
        self.valuation = MultiwayValuation.uniform(self.terminals, self.equity, table.seats, multiway_samples, seed)

    def _staged(self, valuation: MultiwayValuation) -> PushFoldGame:
        """This game (the same table, terminals and payoffs) valued by ``valuation``."""
        other = PushFoldGame.__new__(PushFoldGame)
        other.table, other.stacks = self.table, self.stacks
        other.game_type = self.game_type  # type: ignore[misc]
        other.dead, other.live = self.dead, self.live
        other.all_in_by_posting, other.decision_seats = self.all_in_by_posting, self.decision_seats
        other.equity, other.class_weights, other._payoff = self.equity, self.class_weights, self._payoff
        other.bounties = self.bounties
        other.terminals = self.terminals
        other.valuation = valuation
        return other

    @property
    def multiway_samples(self) -> int:
        """Deals per 3+ way pot of this game's valuation."""
        return self.valuation.samples

    @property
    def seed(self) -> int:
        return self.valuation.seed

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
        return class_label(hand)

    def spec(self) -> dict[str, Any]:
        t = self.table
        bounty = {} if self.bounties is None else {"bounties": list(self.bounties.heads),
                                                   "bounty_share": self.bounties.share}
        return {"name": self.name, "family": "pushfold", "stacks": list(t.stacks), "small_blind": t.small_blind,
                "big_blind": t.big_blind, "ante": t.ante, "bb_ante": t.bb_ante} | bounty | self.valuation.spec()

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

    def _build_terminals(self, state: State) -> None:
        if self.public_player(state) == TERMINAL:
            finals, keys, eligible, values = self._outcome_rows(state)
            if not np.allclose(finals.sum(axis=1), self.stacks.sum(), rtol=0, atol=1e-9 * self.stacks.sum()):
                raise AssertionError("chips not conserved")  # pragma: no cover (a bug, tested)
            if self.bounties is None:
                utilities = np.array([np.asarray(self._payoff(f), dtype=np.float64) for f in finals])
            else:
                utilities = np.array([np.asarray(self._payoff(f, *settle_bounties(self.stacks, f, v, eligible,
                                                                                   self.bounties)), dtype=np.float64)
                                      for f, v in zip(finals, values, strict=True)])
            self.terminals[state] = Terminal(self.participants(state)[0], utilities, keys, eligible)
            return
        for action in (FOLD, JAM):
            self._build_terminals((*state, action))

    def _outcomes(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Final stacks of every outcome of a terminal by the table rules (one row each: the lone winner's;
        heads-up the first participant wins, the second, a tie; else per pot-winner sequence by increasing
        key), the outcome keys (3+ participants) and the pots' eligible seat bitmasks."""
        return self._outcome_rows(state)[:3]

    def _outcome_rows(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
        """:meth:`_outcomes` and each outcome's hand values (the pots were awarded by them)."""
        inside, contributions = self.participants(state)
        n = self.table.seats
        amounts, eligible, refunds = pots(contributions, self.dead, inside)
        before = self.stacks - contributions + refunds
        pot_chips, pot_seats, order = np.array(amounts), np.array(eligible, dtype=np.int64), np.arange(n)

        def after(values: np.ndarray) -> np.ndarray:
            final: np.ndarray = before.copy()
            award_pots(final, pot_chips, pot_seats, len(amounts), values, order, n)
            return final

        rows = []
        keys: list[int] = []
        hand_values: list[np.ndarray] = []
        if len(inside) <= 2:
            outcomes = [inside] if len(inside) == 1 else [inside[:1], inside[1:], inside]
            for winners in outcomes:
                values = np.zeros(n, dtype=np.int64)
                values[list(winners)] = 1
                hand_values.append(values)
                rows.append(after(values))
        else:
            by_key = {outcome_key(w, n): w for w in pot_winner_sequences(inside, eligible)}
            for key in sorted(by_key):
                keys.append(key)
                hand_values.append(outcome_values(by_key[key], n))
                rows.append(after(hand_values[-1]))
        return np.array(rows), np.array(keys, dtype=np.int64), pot_seats, hand_values

    def final_stacks_of(self, state: State) -> np.ndarray:
        """Final stacks of every outcome of a terminal (rows in the order of ``terminals[state].utilities``)."""
        return self._outcomes(state)[0]

    # ---------------------------------------------------------------------------------------------------
    # values (the valuation's)

    def evaluate(self, state: State, player: int, reaches: Sequence[np.ndarray]) -> np.ndarray:
        """Counterfactual value of each class of ``player`` at a terminal: the expected payoff given the hand,
        times the other players' probabilities of the actions that lead there
        (:meth:`MultiwayValuation.evaluate <pokerlab.games.pushfold.valuation.MultiwayValuation.evaluate>`)."""
        return self.valuation.evaluate(state, player, reaches)

    def evaluate_terminals(self, tree: CompiledPublicTree, terminals: np.ndarray, player: int,
                           reaches: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` at every terminal in one compiled call (the solvers' hot path)."""
        return self.valuation.evaluate_terminals(tree, terminals, player, reaches)

    def deals(self) -> Deals:
        """The deals of the 3+ way pots (:meth:`MultiwayValuation.deals
        <pokerlab.games.pushfold.valuation.MultiwayValuation.deals>`)."""
        return self.valuation.deals()

    def release_deals(self) -> None:
        """Free the deals and what is built on them (drawn again, the same, if this game is valued again)."""
        self.valuation.release_deals()

    def multiway_error(self) -> float:
        """The per-class standard error floor of a sampled 3+ way pot, as a fraction of its payoff range."""
        return self.valuation.multiway_error()

    def redealt(self, ranges: Ranges, share: float = 0.5, samples: int | None = None) -> PushFoldGame:
        """The same game with each 3+ way pot valued on its own deals, importance-sampled from the ranges that
        reach it. ``ranges``: per 3+ way terminal state, each seat's strategy weights ``(seats, 169)`` (its
        reach over the class weights) on the way there. A terminal's deals share the boards and the hero's
        per-class combos; each seat in its pot holds a combo drawn, among those that avoid the board, from
        ``share`` times its hand's distribution at that terminal plus ``1 - share`` times the uniform one. The
        valuation weighs a deal by the uniform-over-proposal density ratios of the seats in the pot and divides
        by the known mean of their products over the deals a class can use (an unbiased estimator, multilinear
        in the strategies): while the strategies stay near ``ranges`` nearly every deal weighs, where uniform
        deals weigh the product of tight ranges' frequencies. The pots' centres become the payoff's means
        against ``ranges`` (the estimator's constant: any value keeps it unbiased, one near the actual mean
        keeps its noise small). ``samples`` deals per terminal (default: as many as this game's).

        >>> game = PushFoldGame(Table((10.0, 10.0, 10.0), 0.5, 1.0), lambda final: final - 10.0)
        >>> redealt = game.redealt({(1, 1, 1): np.ones((3, 169))}, samples=50)
        >>> redealt.valuation.stage, redealt.deals().deal_ratio.shape  # pots, deals, seats
        ('redealt', (1, 50, 3))
        """
        return self._staged(self.valuation.redealt(ranges, share, samples))

    def resampled(self) -> PushFoldGame:
        """The same game with its 3+ way showdowns valued on an independent set of ``multiway_samples`` deals
        (:meth:`MultiwayValuation.checked <pokerlab.games.pushfold.valuation.MultiwayValuation.checked>`: the
        same estimator's constants, a redeal's proposals kept). Valuing a strategy in it measures what the
        sampling hides (see :func:`pokerlab.pushfold.pushfold`)."""
        return self._staged(self.valuation.checked())
