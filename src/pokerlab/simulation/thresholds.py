"""Slopes, not levels: the equity a player needs to call an all-in, by each model and by simulation.

Players use a tournament-equity model through differences: whether to call a jam depends on how much money the
call wins against how much it loses, not on the level of any equity. For a caller ``i`` facing an all-in of
``a = min(stack_i, stack_j)`` chips from ``j``, with no other money in the pot, the call is right when his chance
of winning ``p`` satisfies ``p E_win + (1 - p) E_lose >= E_fold``, so the **required equity** is

    r = (E_fold - E_lose) / (E_win - E_lose)

(chip EV: 0.5; ``r - 0.5`` is the risk premium, ``(E_fold - E_lose) / (E_win - E_fold)`` the bubble factor, the
same number in another unit). A model gives ``r`` from its equities of the three stack states; the simulation
gives it from continuations of each state, played on common random numbers (tournament ``t`` of every state
draws the same stream, so the three estimates move together and their differences are tight), with a jackknife
standard error over the batch's chunks. A player busted by the all-in is paid his place at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, whole_number
from pokerlab.icm import icm
from pokerlab.icm.alternatives import malmuth_weitzman, power_icm
from pokerlab.simulation.core import prepare, run

#: ``model(stacks of the players still in, payouts for places 1..len(stacks))``: money per player.
EquityModel = Callable[[np.ndarray, np.ndarray], np.ndarray]

MW_EXACT_PLAYERS = 16
"""Malmuth-Weitzman is exact up to this many players; past it its sampling noise would be counted as its error,
so it is left out of a snapshot's thresholds."""


def threshold_models(alpha: float, players: int) -> dict[str, EquityModel]:
    """The models whose required equities are compared: ICM, power ICM at ``alpha`` and, up to
    :data:`MW_EXACT_PLAYERS` players, Malmuth-Weitzman (chip EV's is 0.5 by definition).

    >>> sorted(threshold_models(0.9, 20))
    ['icm', 'power-icm']
    """
    models: dict[str, EquityModel] = {
        "icm": lambda s, p: icm(s, p).equity,
        "power-icm": lambda s, p: power_icm(s, p, alpha).equity,
    }
    if players <= MW_EXACT_PLAYERS:
        models["malmuth-weitzman"] = lambda s, p: malmuth_weitzman(s, p).equity
    return models


@dataclass(frozen=True)
class AllInStates:
    """The stacks after a caller wins or loses an all-in, with where the caller sits and who busted."""

    stacks: np.ndarray  # the players still in (a busted one removed)
    caller: int  # the caller's index in ``stacks``
    busted_prize: float  # what the busted player was paid (0 when nobody busted or short of the money)
    caller_busted: bool  # the caller himself busted: his money is the prize of his place, nothing to simulate


def after_all_in(stacks: np.ndarray, payouts: np.ndarray, caller: int, jammer: int, caller_wins: bool) -> AllInStates:
    """The state after ``caller`` calls ``jammer``'s all-in of the smaller stack and wins or loses it.

    >>> s = after_all_in(np.array([5.0, 3.0, 2.0]), np.array([60.0, 40.0]), 0, 2, True)
    >>> s.stacks.tolist(), s.caller, s.busted_prize, s.caller_busted
    ([7.0, 3.0], 0, 0.0, False)
    """
    amount = min(stacks[caller], stacks[jammer])
    after = stacks.astype(np.float64).copy()
    sign = 1.0 if caller_wins else -1.0
    after[caller] += sign * amount
    after[jammer] -= sign * amount
    out = np.flatnonzero(after <= 0)
    if out.size == 0:
        return AllInStates(after, caller, 0.0, False)
    place = stacks.size  # the one player busted finishes last of those in
    prize = float(payouts[place - 1]) if place <= payouts.size else 0.0
    kept = np.delete(after, out[0])
    return AllInStates(kept, caller - int(out[0] < caller), prize, bool(out[0] == caller))


@dataclass(frozen=True)
class CallThreshold:
    """The required equity of one caller against one jammer: simulated (with its jackknife standard error and
    its leave-one-chunk-out values, for statistics over many thresholds) and by each model."""

    caller: int
    jammer: int
    amount: float
    simulated: float
    stderr: float
    leave_out: np.ndarray
    models: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (without the leave-one-out values)."""
        return {"caller": self.caller, "jammer": self.jammer, "amount": self.amount, "simulated": self.simulated,
                "stderr": self.stderr, "models": self.models}


def _prize_blocks(stacks: np.ndarray, payouts: np.ndarray, player: int, tournaments: int, seed: int,
                  simulation: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk of continuations: the sum of ``player``'s prizes, and the chunk's tournament count."""
    paid = payouts[: stacks.size]
    t = prepare(stacks=stacks, payouts=paid[paid > 0], **simulation)
    result = run(t, tournaments, seed=seed, workers=0)
    assert result.block_prize is not None and result.block_count is not None
    return result.block_prize[:, player], result.block_count.astype(np.float64)


def _required(fold: Any, win: Any, lose: Any) -> Any:
    """The equity at which calling (``win`` or ``lose``) is worth folding (``fold``): floats or arrays."""
    return (fold - lose) / (win - lose)


def call_thresholds(stacks: Sequence[float] | np.ndarray, payouts: Sequence[float] | np.ndarray,
                    pairs: Sequence[tuple[int, int]], *, continuations: int, seed: int, alpha: float = 0.9,
                    **simulation: Any) -> list[CallThreshold]:
    """Each pair's (caller, jammer) required equity to call an all-in of the smaller stack, simulated from
    ``continuations`` continuations of each of the three states (fold, win, lose) on common random numbers,
    and by each model of :func:`threshold_models`. ``simulation``: the arguments of
    :func:`pokerlab.simulation.prepare` besides stacks and payouts (``play``, ``bet``, ``schedule``, ...).

    Chip-by-chip coin flips (``bet=1``), where an exact chain gives 0.703 for this call:

    >>> [t] = call_thresholds([6, 4, 2], [60, 40], [(1, 0)], continuations=2000, seed=1, bet=1)
    >>> round(t.models["icm"], 3), abs(t.simulated - 0.703) < 3 * t.stderr
    (0.711, True)
    """
    chips = np.asarray(stacks, dtype=np.float64)
    pay = np.asarray(payouts, dtype=np.float64)
    continuations = whole_number(continuations, "continuations", low=128)
    if chips.ndim != 1 or chips.size < 3:
        raise InvalidArgumentError("call thresholds need the stacks of at least 3 players (heads-up every "
                                   "model's threshold is 0.5)")
    for caller, jammer in pairs:
        if caller == jammer or not (0 <= caller < chips.size and 0 <= jammer < chips.size):
            raise InvalidArgumentError(f"pair ({caller}, {jammer}): give two different players of the "
                                       f"{chips.size} stacks")
    full_pay = np.zeros(chips.size)
    full_pay[: min(pay.size, chips.size)] = pay[: chips.size]
    models = threshold_models(alpha, chips.size)
    fold_levels = {name: model(chips, full_pay) for name, model in models.items()}
    fold_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    out = []
    for caller, jammer in pairs:
        states = [after_all_in(chips, full_pay, caller, jammer, wins) for wins in (True, False)]
        by_model = {}
        for name, model in models.items():  # first (cheap), so that a call that changes nothing is refused at once
            won, lost = (state.busted_prize if state.caller_busted else
                         float(model(state.stacks, full_pay[: state.stacks.size])[state.caller]) for state in states)
            if won <= lost:
                raise InvalidArgumentError(f"a stack of {chips[caller]:,.0f} calling an all-in from "
                                           f"{chips[jammer]:,.0f}: {name} pays as much losing as winning (every "
                                           "player left paid the same?): no call threshold; take stacks from "
                                           "before the money")
            by_model[name] = _required(float(fold_levels[name][caller]), won, lost)
        if caller not in fold_cache:
            fold_cache[caller] = _prize_blocks(chips, full_pay, caller, continuations, seed, simulation)
        fold, counts = fold_cache[caller]
        blocks = []
        for state in states:
            if state.caller_busted:
                blocks.append(state.busted_prize * counts)
                continue
            sums, state_counts = _prize_blocks(state.stacks, full_pay, state.caller, continuations, seed,
                                               simulation)
            if not np.array_equal(state_counts, counts):
                raise InvalidArgumentError("the states' continuations fell into different chunks: give a "
                                           "number of continuations that the batch splits alike")
            blocks.append(sums)
        win, lose = blocks
        total = counts.sum()
        simulated = float(_required(fold.sum() / total, win.sum() / total, lose.sum() / total))
        rest = total - counts
        leave_out = _required((fold.sum() - fold) / rest, (win.sum() - win) / rest, (lose.sum() - lose) / rest)
        k = counts.size
        stderr = float(np.sqrt((k - 1) / k * ((leave_out - leave_out.mean()) ** 2).sum()))
        out.append(CallThreshold(caller, jammer, float(min(chips[caller], chips[jammer])), simulated, stderr,
                                 np.asarray(leave_out, dtype=np.float64), by_model))
    return out


@dataclass(frozen=True)
class ThresholdScore:
    """A model's error in required equity over many thresholds: the noise-corrected root mean square of
    (model - simulated), and its mean squared error minus ICM's with a standard error (negative: closer than
    ICM)."""

    model: str
    rms: float
    mse_minus_icm: float
    mse_minus_icm_stderr: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"model": self.model, "rms": self.rms, "mse_minus_icm": self.mse_minus_icm,
                "mse_minus_icm_stderr": self.mse_minus_icm_stderr}


def threshold_scores(groups: Sequence[Sequence[CallThreshold]]) -> list[ThresholdScore]:
    """Every model's score over independent groups of thresholds (one group per snapshot: thresholds within a
    group share continuations, so each group's difference with ICM gets a jackknife variance over its chunks,
    and the groups' variances add). Chip EV (0.5) is scored beside the models every threshold has.

    >>> a = CallThreshold(0, 1, 1.0, 0.6, 0.0, np.full(4, 0.6), {"icm": 0.6, "power-icm": 0.5})
    >>> [(s.model, round(s.rms, 3)) for s in threshold_scores([[a]])]
    [('icm', 0.0), ('power-icm', 0.1), ('chip-ev', 0.1)]
    """
    names = [*(name for name in groups[0][0].models if all(name in t.models for g in groups for t in g)), "chip-ev"]
    count = sum(len(g) for g in groups)
    scores = []
    for name in names:
        squared = noise = diff = variance = 0.0
        for group in groups:
            sim = np.array([t.simulated for t in group])
            outs = np.stack([t.leave_out for t in group])  # (thresholds, chunks)
            model = np.array([0.5 if name == "chip-ev" else t.models[name] for t in group])
            base = np.array([t.models["icm"] for t in group])
            squared += float(((model - sim) ** 2).sum())
            noise += float(sum(t.stderr**2 for t in group))
            diff += float(((model - base) * (model + base - 2 * sim)).sum())
            per_chunk = ((model - base)[:, None] * ((model + base)[:, None] - 2 * outs)).sum(axis=0)
            k = per_chunk.size
            variance += (k - 1) / k * float(((per_chunk - per_chunk.mean()) ** 2).sum())
        scores.append(ThresholdScore(name, float(np.sqrt(max(0.0, squared - noise) / count)), diff / count,
                                     float(np.sqrt(variance)) / count))
    return scores
