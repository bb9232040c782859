"""Draw a decisions table as a forest plot: per case and model, the heroes' mean prize minus the ICM heroes' with
its 95% interval, from decision-study JSON files, optionally beside the same cases of older files (hollow).

Run: ``python scripts/beating_icm_forest.py NEW.json[,NEW2.json] [--old OLD.json[,OLD2.json]] --output PNG``
(the JSON files ``beating_icm_decisions.py`` writes). Rows identically 0 (flat payouts at a final table) are left
out; each case's values are in % of the ICM heroes' mean prize in that case, so that field sizes and stages
share one axis.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

STAGES = {"early": 0, "bubble": 1, "final": 2}
SHAPES = {"flat": 0, "standard": 1, "top-heavy": 2}
MODELS = {"chip-ev": "C0", "power-icm@0.8": "C1", "harville@0.8": "C2", "malmuth-weitzman": "C3"}


def rows(files: str) -> dict[tuple[int, str, str, str], tuple[float, float, float, bool]]:
    """(players, payouts, stage, model) -> (mean, low, high, separated), in % of the ICM heroes' mean prize."""
    found: dict[tuple[int, str, str, str], tuple[float, float, float, bool]] = {}
    for name in files.split(","):
        for case in json.loads(Path(name).read_text(encoding="utf-8"))["cases"]:
            share = case["mean_prize"][case["baseline"]] / 100.0
            for c in case["comparisons"]:
                if c["mean"] == c["low"] == c["high"] == 0.0:
                    continue
                found[(case["players"], case["payouts"], case["stage"], c["model"])] = (
                    c["mean"] / share, c["low"] / share, c["high"] / share, c["separates"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new", help="decision-study JSON files (comma separated)")
    parser.add_argument("--old", default=None, help="the same cases from older files, drawn hollow")
    parser.add_argument("--title", default="Heroes deciding by a model minus the same heroes deciding by ICM")
    parser.add_argument("--limit", type=float, default=100.0, help="cut the axis at +-LIMIT % (arrows beyond)")
    parser.add_argument("--output", required=True, help="PNG file")
    args = parser.parse_args()
    try:
        new = rows(args.new)
        old = rows(args.old) if args.old else {}
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: not a decision-study JSON ({type(error).__name__}: {error})", file=sys.stderr)
        raise SystemExit(2) from None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(new, key=lambda k: (k[0], SHAPES.get(k[1], 9), STAGES.get(k[2], 9), list(MODELS).index(k[3])
                                      if k[3] in MODELS else 9))
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(keys) + 1.5))
    labels: list[str] = []
    for y, key in enumerate(reversed(keys)):
        colour = MODELS.get(key[3], "k")
        points: list[tuple[float, Any, str, float]] = [(y + 0.15, new[key], colour, 1.0)]
        if key in old:
            points.append((y - 0.15, old[key], "none", 0.6))
        for position, (mean, low, high, separated), face, alpha in points:
            cut = [min(max(value, -args.limit), args.limit) for value in (low, mean, high)]
            ax.plot([cut[0], cut[2]], [position, position], color=colour, alpha=alpha, lw=1.2)
            ax.plot([cut[1]], [position], "o" if separated else "s", ms=5, markerfacecolor=face,
                    markeredgecolor=colour, alpha=alpha)
            for value, end, arrow in ((low, cut[0], "<"), (high, cut[2], ">")):
                if value != end:  # the interval goes on beyond the axis
                    ax.plot([end], [position], arrow, ms=4, color=colour, alpha=alpha)
        labels.append(f"{key[0]:,} {key[1]} {key[2]}: {key[3]}")
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_xlim(-args.limit * 1.05, args.limit * 1.05)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("minus ICM, in % of the ICM heroes' mean prize (95% interval; arrows: cut at the axis, a point "
                  "beyond it drawn at the edge)\ncircle: separated after Holm over the case's models", fontsize=8)
    ax.set_title(args.title + ("\nfilled: new file; hollow, below: old file" if old else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    main()
