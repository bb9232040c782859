"""Builds the push/fold game from a tournament situation: stacks, blinds, antes, payouts and a field.

Payoff models: **chip EV** (the change of a seat's stack, in big blinds) or **ICM** (a seat's prize equity in
money after the hand, by the exact ICM engine :func:`pokerlab.icm.icm`, with the stacks of the other tables'
players, the *field*, included in every outcome). A seat that busts in the hand finishes below every survivor;
seats busting together are ordered by their stacks before the hand (equal stacks share those places).

Knockout bounties (:class:`BountyPayoff`): the bounty money a seat wins in the hand (by the table rules,
:func:`~pokerlab.games.pushfold.game.settle_bounties`) plus its expected future bounties after the hand (the
future-bounty model of :mod:`pokerlab.icm.bounty` over the survivors, the field included, with the heads after
the hand) are added to the payoff: in money under ICM; under chip EV the bounty is in big blinds and the payoff
counts its change over the hand (the expected bounties before it subtracted), so that it still sums to 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, whole_number
from pokerlab.games.pushfold import PushFoldGame, Table
from pokerlab.games.pushfold.game import Bounties
from pokerlab.pushfold.field import FieldICM
from pokerlab.pushfold.request import checked_prizes, checked_table

SUBSET_PLAYERS = 12


def validate_table(stacks: Any, blinds: Sequence[float], ante: float, bb_ante: float) -> Table:
    """A :class:`~pokerlab.games.pushfold.Table`, or the specific error saying what is wrong
    (:func:`pokerlab.pushfold.request.checked_table`)."""
    return Table(*checked_table(stacks, blinds, ante, bb_ante))


class ICMPayoff:
    """Prize equity (money) of every seat from the seats' final stacks, the field's stacks and the payouts;
    results are cached per distinct final-stack vector."""

    def __init__(self, stacks: np.ndarray, payouts: np.ndarray, field: np.ndarray) -> None:
        self.stacks = stacks
        self.field = field
        total = stacks.size + field.size
        self.payouts = np.zeros(total)
        self.payouts[: payouts.size] = payouts
        self.calls = 0
        self._cache: dict[bytes, np.ndarray] = {}
        self._field_icm: FieldICM | None = None
        if stacks.size + field.size > SUBSET_PLAYERS:
            try:  # the field's part computed once for every outcome (pokerlab.pushfold.field)
                self._field_icm = FieldICM(stacks, field, self.payouts)
            except ValueError:
                self._field_icm = None  # a field no larger than the paid places: the exact engine per outcome

    def busted_places(self, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(equity, alive)``: the money of the seats that bust in the hand (0 for the others) and the seats
        that survive it. Busted seats take the last places, bigger stacks before the hand first; equal stacks
        share."""
        scale = self.stacks.sum() + self.field.sum()
        busted = np.flatnonzero(final <= 1e-12 * scale)
        alive = np.flatnonzero(final > 1e-12 * scale)
        equity = np.zeros(final.size)
        place = self.payouts.size - busted.size
        starts = self.stacks[busted]
        for value in sorted(set(starts.tolist()), reverse=True):
            group = busted[starts == value]
            equity[group] = self.payouts[place: place + group.size].mean()
            place += group.size
        return equity, alive

    def __call__(self, final: np.ndarray) -> np.ndarray:
        from pokerlab.icm import icm  # noqa: PLC0415 (keeps the game layer free of the ICM engine)
        from pokerlab.icm.subset import icm_subset  # noqa: PLC0415

        key = np.round(final, 9).tobytes()
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        equity, alive = self.busted_places(final)
        survivors = np.concatenate([final[alive], self.field])
        paid = self.payouts[: survivors.size]
        if survivors.size == 1:
            equity[alive] = paid[0]
        elif np.any(paid > 0):
            self.calls += 1
            if survivors.size <= SUBSET_PLAYERS:
                # a table alone: the subset recursion's kernel, exact and fastest, called directly (the
                # façade's validation cost 10x the kernel over a 9-seat game's 8,796 outcomes)
                k = int(np.flatnonzero(paid > 0)[-1]) + 1
                places = icm_subset(survivors / survivors.mean(), k)
                equity[alive] = (places @ paid[:k])[: alive.size]
            elif self._field_icm is not None:
                equity[alive] = self._field_icm.equity(final[alive])
            else:  # the quadrature for a field
                equity[alive] = icm(survivors, paid[: survivors.size], "exact").equity[: alive.size]
        self._cache[key] = equity
        return equity


def chip_ev_payoff(stacks: np.ndarray, big_blind: float) -> Any:
    """Chip EV payoff: the change of each seat's stack, in big blinds."""
    def payoff(final: np.ndarray) -> np.ndarray:
        change: np.ndarray = (final - stacks) / big_blind
        return change
    return payoff


class BountyPayoff:
    """A payoff (chip EV or ICM) plus the bounties: what each seat won in the hand and its expected future
    bounties after it (:mod:`pokerlab.icm.bounty`, among the survivors and the field, each field player carrying
    ``field_head``), minus ``before`` (the expected bounties before the hand under chip EV, zeros under ICM).
    Cached per distinct (final stacks, heads)."""

    def __init__(self, base: Any, stacks: np.ndarray, field: np.ndarray, bounties: Bounties, field_head: float,
                 relative: bool) -> None:
        from pokerlab.icm.bounty import EXACT_MAX_PLAYERS  # noqa: PLC0415 (the ICM engine stays out of games/)

        if stacks.size + field.size > EXACT_MAX_PLAYERS:
            raise InvalidArgumentError(f"bounties are valued exactly for at most {EXACT_MAX_PLAYERS} players; the "
                                       f"table and field hold {stacks.size + field.size}: give a smaller field")
        self.base = base
        self.stacks = stacks
        self.field = field
        self.share = bounties.share
        self.field_heads = np.full(field.size, field_head)
        self._cache: dict[bytes, np.ndarray] = {}
        heads = np.array(bounties.heads, dtype=np.float64)
        self.before = self.future(stacks, heads) if relative else np.zeros(stacks.size)

    def future(self, final: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Each seat's expected bounties after the hand (exact; 0 for a busted seat)."""
        from pokerlab.icm.bounty import exact_bounty_equity  # noqa: PLC0415

        chips = np.concatenate([final, self.field])
        alive = np.flatnonzero(chips > 1e-12 * chips.sum())
        future = np.zeros(chips.size)
        future[alive] = exact_bounty_equity(chips[alive] / chips[alive].max(),
                                            np.concatenate([heads, self.field_heads])[alive], self.share)
        return future[: final.size]

    def __call__(self, final: np.ndarray, won: np.ndarray, heads: np.ndarray) -> np.ndarray:
        key = np.round(final, 9).tobytes() + np.round(heads, 12).tobytes()
        future = self._cache.get(key)
        if future is None:
            future = self.future(final, heads)
            self._cache[key] = future
        total: np.ndarray = np.asarray(self.base(final)) + won + future - self.before
        return total


def build_game(table: Table, payouts: Any = None, field: Any = None, *, multiway_samples: int = 1000,
               seed: int = 0, bounties: Bounties | None = None,
               payoff_model: Callable[[np.ndarray, np.ndarray, np.ndarray], ICMPayoff] = ICMPayoff,
               ) -> tuple[PushFoldGame, str, ICMPayoff | None]:
    """The push/fold game of a table: chip EV without payouts, ICM with them (``payoff_model(stacks, payouts,
    field)``: the payoff of the outcomes with payouts, :class:`ICMPayoff` or one built on it, e.g. FGS's), with
    ``bounties`` (:class:`BountyPayoff`; a field's players carry the mean of the table's heads). Returns ``(game,
    model, icm payoff or None)``."""
    stacks = np.asarray(table.stacks, dtype=np.float64)
    pay, field_stacks = checked_prizes(stacks.size, payouts, field)
    multiway_samples = whole_number(multiway_samples, "multiway samples", low=1)

    def game_of(payoff: Any) -> PushFoldGame:
        if bounties is not None:
            payoff = BountyPayoff(payoff, stacks, field_stacks, bounties, float(np.mean(bounties.heads)),
                                  relative=payouts is None)
        return PushFoldGame(table, payoff, multiway_samples=multiway_samples, seed=seed, bounties=bounties)

    if pay is None:
        return game_of(chip_ev_payoff(stacks, table.big_blind)), "chipev", None
    payoff = payoff_model(stacks, pay, field_stacks)
    return game_of(payoff), "icm", payoff


def checked_bounties(bounty: Any, pko: Any, seats: int, field: np.ndarray | None) -> Bounties | None:
    """Knockout bounties as the game takes them (``bounty``: one number or one per seat; ``pko``: ``False``, ``True``
    for the default share or the share), or the specific error (negative, a list of the wrong length, a PKO
    without bounties, a share outside (0, 1], several heads with a field).

    >>> checked_bounties(2.0, True, 2, None)
    Bounties(heads=(2.0, 2.0), share=0.5)
    """
    from pokerlab.icm.bounty import DEFAULT_PKO_SHARE, validate_bounties, validate_share

    if bounty is None:
        if pko is not False:
            raise InvalidArgumentError("a progressive knockout (pko) needs bounties: give bounty too")
        return None
    heads = validate_bounties(bounty, seats)
    if pko is True:
        share = DEFAULT_PKO_SHARE
    elif pko is False:
        share = 1.0
    else:
        share = validate_share(pko)
    if field is not None and field.size and not np.isscalar(bounty) and np.ptp(heads) > 0:
        raise InvalidArgumentError("with a field, give one bounty for every head (the field's players carry it)")
    return Bounties(tuple(float(h) for h in heads), share)
