"""Charts: the classic heads-up chip-EV jam/call table over stack depths, 13 x 13 text grids and PNG figures.

>>> chart = heads_up_chart([10], target=1e-3)
>>> 57 < chart.jam_pct[0] < 61 and 36 < chart.call_pct[0] < 41
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.errors import InvalidArgumentError, ResourceLimitError
from pokerlab.plotting import pyplot, save_figure
from pokerlab.pushfold.solve import PushFoldResult, pushfold

RANK_LABELS = "AKQJT98765432"


@dataclass(frozen=True)
class HeadsUpChart:
    """Heads-up chip-EV Nash push/fold at each depth (effective stack in big blinds, blinds 0.5/1, no ante).

    ``jam[d]``/``call[d]``: per-class probability (169, grid order) of the SB jamming / the BB calling at
    ``depths[d]`` (1 for every class where the blinds put the stack all in: at 1 bb the big blind is in with
    every hand). ``jam_depth``/``call_depth``: per class, the largest depth of the list at which it jams /
    calls with probability at least one half (0 when never). ``max_gain[d]``: the larger best-response gain
    (bb) of the solution at each depth.
    """

    depths: tuple[float, ...]
    jam: np.ndarray
    call: np.ndarray
    max_gain: tuple[float, ...]
    elapsed_s: float

    @property
    def jam_depth(self) -> np.ndarray:
        return _largest_depth(self.depths, self.jam)

    @property
    def call_depth(self) -> np.ndarray:
        return _largest_depth(self.depths, self.call)

    @property
    def jam_pct(self) -> list[float]:
        return [_percent(row) for row in self.jam]

    @property
    def call_pct(self) -> list[float]:
        return [_percent(row) for row in self.call]

    def to_dict(self) -> dict[str, Any]:
        """JSON form of ``pokerlab pushfold --chart heads-up --json``."""
        return {
            "depths": list(self.depths),
            "jam_depth": dict(zip(CLASS_NAMES, map(float, self.jam_depth), strict=True)),
            "call_depth": dict(zip(CLASS_NAMES, map(float, self.call_depth), strict=True)),
            "jam_pct": self.jam_pct,
            "call_pct": self.call_pct,
            "max_gain": list(self.max_gain),
            "gain_unit": "bb",
            "elapsed_s": self.elapsed_s,
        }


def _percent(probabilities: np.ndarray) -> float:
    from pokerlab.equity.preflop import preflop_tables  # noqa: PLC0415

    return float(100.0 * probabilities @ preflop_tables().class_size / 1326.0)


def _largest_depth(depths: Sequence[float], probabilities: np.ndarray) -> np.ndarray:
    out = np.zeros(probabilities.shape[1])
    for d, row in zip(depths, probabilities, strict=True):
        out = np.where(row >= 0.5, np.maximum(out, d), out)
    return out


def heads_up_chart(depths: Sequence[float], *, target: float = 1e-4) -> HeadsUpChart:
    """Solve heads-up chip-EV push/fold at each depth (bb) to a best-response gain of ``target`` bb.

    The solved probabilities are the arrays other engines play (``jam``/``call``, one row per depth).
    """
    values = [float(d) for d in depths]
    if not values or any(not d > 0 for d in values):
        raise InvalidArgumentError(f"depths must be positive numbers of big blinds, got {list(depths)}")
    start = time.perf_counter()
    jams, calls, gains = [], [], []
    for depth in values:
        result = pushfold([depth, depth], (0.5, 1.0), target=target)
        # a stack the blinds put all in has no decision: it is in the pot with every hand
        jams.append(np.ones(169) if np.isnan(result.jam[0, 0]) else result.jam[0])
        calls.append(result.call.get((1, 0), np.ones(169)))
        gains.append(result.max_gain)
    return HeadsUpChart(tuple(values), np.array(jams), np.array(calls), tuple(gains), time.perf_counter() - start)


MAX_DEPTHS = 1000  # solves of one heads-up chart (each about a second): more would not finish in a session


def parse_depths(text: str) -> list[float]:
    """``'1-20'`` (integers), ``'5,10,15'`` or a mix -> depths in big blinds.

    >>> parse_depths("1-3,7.5")
    [1.0, 2.0, 3.0, 7.5]
    """
    out: list[float] = []
    asked = 0
    try:
        for token in (t.strip() for t in text.split(",") if t.strip()):
            if "-" in token[1:]:
                low, high = token.split("-", 1)
                asked = int(high) - int(low) + 1 + len(out)
                if asked > MAX_DEPTHS:
                    break
                out.extend(float(d) for d in range(int(low), int(high) + 1))
            else:
                out.append(float(token))
    except ValueError:
        raise InvalidArgumentError(f"cannot parse depths {text!r}: give e.g. 1-20 or 5,10,15") from None
    if asked > MAX_DEPTHS:
        raise ResourceLimitError(f"depths {text!r} ask for {asked:,} solves; a chart takes at most {MAX_DEPTHS:,} "
                                 "depths")
    if not out or any(d <= 0 for d in out):
        raise InvalidArgumentError(f"depths must be positive numbers of big blinds, got {text!r}")
    if len(out) > MAX_DEPTHS:
        raise ResourceLimitError(f"depths {text!r} ask for {len(out):,} solves; a chart takes at most "
                                 f"{MAX_DEPTHS:,} depths")
    return out


def grid_text(values: np.ndarray, fmt: str = "{:3.0f}") -> str:
    """A 13 x 13 grid (169 values, grid order) as text with rank labels; ``fmt`` formats one cell."""
    grid = values.reshape(13, 13)
    lines = ["     " + " ".join(f"{r:>3}" for r in RANK_LABELS)]
    for row in range(13):
        lines.append(f"  {RANK_LABELS[row]}  " + " ".join(fmt.format(v) if np.isfinite(v) else "  ."
                                                        for v in grid[row]))
    return "\n".join(lines)


def save_grid_png(values: np.ndarray, title: str, path: str | Path) -> Path:
    """A 13 x 13 heat map of per-class probabilities (0..1) with class names, written to ``path``."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 6.4))
    axes.imshow(values.reshape(13, 13), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    for index, name in enumerate(CLASS_NAMES):
        row, col = divmod(index, 13)
        axes.text(col, row, f"{name}\n{values[index]:.2f}", ha="center", va="center", fontsize=5)
    axes.set_xticks([])
    axes.set_yticks([])
    axes.set_title(title)
    return save_figure(figure, path, dpi=120, bbox_inches="tight")


def save_depth_png(depths: np.ndarray, title: str, path: str | Path, top: float) -> Path:
    """A 13 x 13 chart of per-class largest depths (bb) as in the classic heads-up tables."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 6.4))
    axes.imshow(depths.reshape(13, 13), cmap="viridis", vmin=0.0, vmax=top)
    for index, name in enumerate(CLASS_NAMES):
        row, col = divmod(index, 13)
        label = f"{depths[index]:g}" + ("+" if depths[index] >= top else "")
        axes.text(col, row, f"{name}\n{label}", ha="center", va="center", fontsize=5, color="white")
    axes.set_xticks([])
    axes.set_yticks([])
    axes.set_title(title)
    return save_figure(figure, path, dpi=120, bbox_inches="tight")


def result_pngs(result: PushFoldResult, directory: str | Path) -> list[Path]:
    """One jam chart per seat and one call chart per (caller, jammer) pair, as PNG files in ``directory``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for seat, name in enumerate(result.seats):
        if not np.isnan(result.jam[seat, 0]):
            written.append(save_grid_png(result.jam[seat], f"{name} jam first in ({result.model})",
                                         folder / f"jam-{name}.png"))
    for (caller, jammer), probs in sorted(result.call.items()):
        written.append(save_grid_png(probs, f"{result.seats[caller]} calls {result.seats[jammer]} "
                                            f"({result.model})", folder / f"call-{result.seats[caller]}-vs-"
                                                                          f"{result.seats[jammer]}.png"))
    return written
