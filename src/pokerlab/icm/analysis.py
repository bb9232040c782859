"""Tournament analysis on top of the ICM: bubble factors, risk premium, deals, a chip-vs-prize picture."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError
from pokerlab.icm.core import ICMResult, chip_share, icm, validate
from pokerlab.icm.lobby import player_labels
from pokerlab.icm.payouts import check_finite_pool
from pokerlab.plotting import figure_path, pyplot, save_figure

BUBBLE_MAX_PLAYERS = 500


@dataclass(frozen=True)
class BubbleFactors:
    """``factor[i, j]``: equity i loses when losing an all-in for the effective stack against j, divided by the
    equity i gains when winning it (``nan`` on the diagonal and for busted players). ``risk_premium[i, j]``:
    the extra winning probability over the chip-EV break-even 50% that i needs to call j's shove,
    ``BF / (1 + BF) - 1/2``."""

    stacks: np.ndarray
    factor: np.ndarray
    risk_premium: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """JSON form with ``null`` for undefined entries."""
        def clean(matrix: np.ndarray) -> list[list[float | None]]:
            return [[None if not np.isfinite(x) else float(x) for x in row] for row in matrix]

        return {"stacks": self.stacks.tolist(), "bubble_factors": clean(self.factor),
                "risk_premium": clean(self.risk_premium)}


def bubble_factors(stacks: Any, payouts: Any, allow_rising: bool = False) -> BubbleFactors:
    """Bubble factors for every ordered pair of live players (exact ICM for each all-in outcome).

    ``stacks`` in chips (0 = busted), ``payouts`` in money per place from first down. Busted players have
    already secured the last places, so they and those places' payouts are taken out first: the live players
    play for the first ``live`` places only (heads-up that is linear in chips, bubble factor 1). Payouts that
    rise with place are refused unless ``allow_rising`` (see :func:`pokerlab.icm.icm`).

    >>> bf = bubble_factors([5000, 3000, 2000], [50, 30, 20])
    >>> round(float(bf.factor[0, 1]), 4) > 1.0
    True
    """
    s, pay = validate(stacks, payouts, allow_rising)
    check_finite_pool(pay)
    n = s.size
    if n > BUBBLE_MAX_PLAYERS:
        raise InvalidArgumentError(f"bubble factors need n^2 ICM runs: at most {BUBBLE_MAX_PLAYERS} players")
    live = np.flatnonzero(s > 0)
    # ICM is scale-free: dividing by the largest stack keeps the all-in outcomes (a stack can double) finite
    ls = s[live] / s[live].max()
    m = ls.size
    full = np.zeros(n)
    full[: pay.size] = pay
    live_pay = full[:m]
    base = icm(ls, live_pay, allow_rising=allow_rising).equity
    live_factor = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(i + 1, m):
            # an all-in between i and j has two outcomes, each one ICM run that serves both players
            e = min(ls[i], ls[j])
            i_wins = ls.copy()
            i_wins[i] += e
            i_wins[j] -= e
            j_wins = ls.copy()
            j_wins[i] -= e
            j_wins[j] += e
            after_i_wins = icm(i_wins, live_pay, allow_rising=allow_rising).equity
            after_j_wins = icm(j_wins, live_pay, allow_rising=allow_rising).equity
            for me, other, won, lost in ((i, j, after_i_wins, after_j_wins), (j, i, after_j_wins, after_i_wins)):
                gain = won[me] - base[me]
                loss = base[me] - lost[me]
                live_factor[me, other] = loss / gain if gain > 0 else np.inf
    factor = np.full((n, n), np.nan)
    factor[np.ix_(live, live)] = live_factor
    with np.errstate(invalid="ignore"):  # an infinite factor (nothing to gain) needs a certain win: +50%
        premium = np.where(np.isinf(factor), 0.5, factor / (1.0 + factor) - 0.5)
    return BubbleFactors(stacks=s, factor=factor, risk_premium=premium)


@dataclass(frozen=True)
class Deal:
    """Ways to split the remaining prize money now: ``icm`` (ICM chop), ``chip`` (chip chop: everyone is
    guaranteed the smallest remaining payout, the rest goes by chip share) and ``chip_minus_icm``, what each
    player gains (positive) or loses with a chip chop compared with an ICM chop."""

    stacks: np.ndarray
    icm: np.ndarray
    chip: np.ndarray

    @property
    def chip_minus_icm(self) -> np.ndarray:
        difference: np.ndarray = self.chip - self.icm
        return difference

    def to_dict(self) -> dict[str, Any]:
        rows = zip(self.stacks, self.icm, self.chip, strict=True)
        return {
            "players": [
                {"stack": float(s), "icm_chop": float(a), "chip_chop": float(b), "chip_minus_icm": float(b - a)}
                for s, a, b in rows
            ]
        }


def deal(stacks: Any, payouts: Any, allow_rising: bool = False) -> Deal:
    """ICM chop and chip chop of the remaining payouts among the remaining players.

    ``stacks`` in chips (0 = busted), ``payouts`` in money per place from first down; both chops are in money.
    The chip chop gives every live player the last live place's payout and splits the rest of the live
    places' money by chip share; busted players keep their secured places' payouts (shared equally). Payouts
    that rise with place are refused unless ``allow_rising`` (see :func:`pokerlab.icm.icm`).

    >>> d = deal([5000, 3000, 2000], [50, 30, 20])
    >>> [round(float(x), 2) for x in d.chip]
    [40.0, 32.0, 28.0]
    """
    s, pay = validate(stacks, payouts, allow_rising)
    check_finite_pool(pay)
    n = s.size
    full = np.zeros(n)
    full[: pay.size] = pay
    live = s > 0
    n_live = int(np.count_nonzero(live))
    equity = icm(s, pay, allow_rising=allow_rising).equity
    # busted players keep their secured places (shared equally, as in the ICM); the live players split what
    # they still play for, the first n_live places
    chip = np.full(n, full[n_live:].mean() if n_live < n else 0.0)
    floor = full[n_live - 1]
    remaining = full[:n_live].sum() - n_live * floor
    chip[live] = floor + remaining * chip_share(s[live])
    return Deal(stacks=s, icm=equity, chip=chip)


def plot_shares(result: ICMResult, path: str | Path, title: str | None = None,
                names: Sequence[str] | None = None) -> Path:
    """Draw chip share against prize share (both in % of the total) per player, largest stack first, each bar
    labelled with the player's 1-based number as in the tables (and name, from ``names``), and return the file
    written (``.png`` added to a name without a suffix; .png, .pdf or .svg; needs the ``plot``
    extra: matplotlib).

    >>> plot_shares(icm([5000, 3000, 2000], [50, 30, 20]), "shares")  # doctest: +SKIP
    PosixPath('shares.png')
    """
    path = figure_path(path)  # a bad suffix fails before any drawing
    plt = pyplot()
    order = np.argsort(-result.stacks)
    x = np.arange(result.stacks.size)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.25 * x.size), 4.0))
    ax.bar(x - 0.2, 100 * result.chip_share[order], width=0.4, label="chip share")
    ax.bar(x + 0.2, 100 * result.prize_share[order], width=0.4, label="prize share (ICM)")
    labels = player_labels(result.stacks.size, names)
    shown = x[:: max(1, -(-x.size // 40))]  # at most 40 labels: a 2,000-player field stays readable
    ax.set_xticks(shown, [labels[order[k]] for k in shown], rotation=90 if x.size > 12 else 0)
    ax.set_xlabel("player (largest stack first)")
    ax.set_ylabel("% of total")
    ax.set_title(title or f"ICM: chip share vs prize share ({result.method})")
    ax.legend()
    fig.tight_layout()
    return save_figure(fig, path, dpi=100)
