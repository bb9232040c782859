"""Tables and JSON of ICM results, with player names, shared by the command line and the demo.

Players are numbered from 1 everywhere (tables, JSON, plots); a named player also shows their name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from pokerlab.icm.analysis import BubbleFactors, Deal
from pokerlab.icm.bounty import BountyResult
from pokerlab.icm.core import ICMResult
from pokerlab.icm.lobby import player_labels


def money(value: float, sign: bool = False) -> str:
    """An amount with 4 decimals, or 6 significant digits once it is too large for decimals to mean anything.

    >>> money(38.392857), money(6.25e199), money(-0.5, sign=True)
    ('38.3929', '6.25e+199', '-0.5000')
    """
    plus = "+" if sign else ""
    return f"{value:{plus}.4f}" if abs(value) < 1e9 else f"{value:{plus}.6g}"


def icm_table(result: ICMResult, names: Sequence[str] | None = None, split: Deal | None = None,
              knockouts: BountyResult | None = None) -> Table:
    """One row per player: stack, chip share, equity, prize share (and the standard error when sampled, the
    chip chop with ``split``, the bounty on each head and its expected bounties with ``knockouts``).

    >>> from pokerlab.icm import icm
    >>> icm_table(icm([5000, 3000, 2000], [50, 30, 20]), ["alice", "bob", "carol"]).row_count
    3
    """
    sampled = f", {result.samples:,} samples, stopped on {result.stop_reason}" if result.samples else ""
    table = Table(title=f"ICM ({result.method}, {result.elapsed_s * 1e3:.2f} ms{sampled})")
    for column in ("player", "stack", "chips %", "equity", "prize %"):
        table.add_column(column, justify="left" if column == "player" else "right")
    if result.stderr is not None:
        table.add_column("stderr", justify="right")
    if split is not None:
        table.add_column("chip chop", justify="right")
        table.add_column("chip - ICM", justify="right")
    if knockouts is not None:
        for column in ("bounty", "bounty equity", "equity + bounties"):
            table.add_column(column, justify="right")
    labels = player_labels(result.stacks.size, names)
    for i, label in enumerate(labels):
        row = [label, f"{result.stacks[i]:,.6g}", f"{100 * result.chip_share[i]:.2f}", money(result.equity[i]),
               f"{100 * result.prize_share[i]:.2f}"]
        if result.stderr is not None:
            row.append(money(result.stderr[i]))
        if split is not None:
            row += [money(split.chip[i]), money(split.chip_minus_icm[i], sign=True)]
        if knockouts is not None:
            row += [money(knockouts.bounties[i]), _bounty_cell(knockouts, i),
                    money(result.equity[i] + knockouts.equity[i])]
        table.add_row(*row)
    return table


def _bounty_cell(knockouts: BountyResult, i: int) -> str:
    cell = money(knockouts.equity[i])
    return cell if knockouts.stderr is None else f"{cell} ± {money(knockouts.stderr[i])}"


def bounty_table(knockouts: BountyResult, names: Sequence[str] | None = None) -> Table:
    """One row per player: stack, the bounty on his head and his expected bounties (future-bounty model).

    >>> from pokerlab.icm import bounty_equity
    >>> bounty_table(bounty_equity([10, 20, 30], 1.0)).row_count
    3
    """
    sampled = f", {knockouts.samples:,} samples" if knockouts.samples else ""
    share = "" if knockouts.share == 1.0 else f", {knockouts.share:g} paid to the buster"
    table = Table(title=f"{knockouts.format} bounties ({knockouts.method}{sampled}{share})")
    for column in ("player", "stack", "bounty", "bounty equity"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for i, label in enumerate(player_labels(knockouts.stacks.size, names)):
        table.add_row(label, f"{knockouts.stacks[i]:,.6g}", money(knockouts.bounties[i]), _bounty_cell(knockouts, i))
    return table


def with_bounties(data: dict[str, Any], knockouts: BountyResult) -> dict[str, Any]:
    """ICM JSON (:func:`icm_json`) with each player's ``bounty`` and ``bounty_equity`` (and ``bounty_stderr``
    when sampled) and the top-level ``bounty`` block (format, share, method)."""
    for i, player in enumerate(data["players"]):
        player["bounty"] = float(knockouts.bounties[i])
        player["bounty_equity"] = float(knockouts.equity[i])
        if knockouts.stderr is not None:
            player["bounty_stderr"] = float(knockouts.stderr[i])
    summary = knockouts.to_dict()
    data["bounty"] = {key: summary[key] for key in ("format", "share", "method", "elapsed_s", "samples")
                      if key in summary}
    return data


def bounty_json(knockouts: BountyResult, names: Sequence[str] | None = None) -> dict[str, Any]:
    """JSON of expected bounties without payouts: ``{"players": [{"stack", "bounty", "bounty_equity"}], "bounty"}``
    (players' ``name`` when names were given).

    >>> from pokerlab.icm import bounty_equity
    >>> round(bounty_json(bounty_equity([10, 20], 1.0))["players"][1]["bounty_equity"], 6)
    1.333333
    """
    data: dict[str, Any] = {"players": [{"stack": float(x)} for x in knockouts.stacks]}
    if names is not None and any(name != str(i + 1) for i, name in enumerate(names)):
        for player, name in zip(data["players"], names, strict=True):
            player["name"] = name
    return with_bounties(data, knockouts)


def places_table(result: ICMResult, names: Sequence[str] | None = None) -> Table:
    """Finish-place probabilities, one row per player (``±`` standard errors when sampled)."""
    assert result.places is not None, "run icm(..., places=True)"
    table = Table(title="finish-place probabilities")
    table.add_column("player")
    for m in range(result.places.shape[1]):
        table.add_column(f"#{m + 1}", justify="right")
    errors = result.places_stderr
    for i, label in enumerate(player_labels(result.stacks.size, names)):
        row = result.places[i]
        if errors is None:
            table.add_row(label, *(f"{x:.4f}" for x in row))
        else:
            table.add_row(label, *(f"{x:.4f}±{e:.4f}" for x, e in zip(row, errors[i], strict=True)))
    return table


def bubble_table(factors: BubbleFactors, names: Sequence[str] | None = None) -> Table:
    """Bubble factor and risk premium of every row player losing an all-in against every column player."""
    n = factors.stacks.size
    labels = player_labels(n, names)
    table = Table(title="bubble factors (row loses vs column) / risk premium")
    table.add_column("player")
    for j in range(n):
        table.add_column(labels[j], justify="right")
    for i in range(n):
        factor, premium = factors.factor[i], 100 * factors.risk_premium[i]
        cells = [f"{factor[j]:.2f} / {premium[j]:.1f}%" if np.isfinite(factor[j]) else "-" for j in range(n)]
        table.add_row(labels[i], *cells)
    return table


def icm_json(result: ICMResult, names: Sequence[str] | None = None, factors: BubbleFactors | None = None,
             split: Deal | None = None) -> dict[str, Any]:
    """``result.to_dict()`` with each player's ``name`` (when names were given), and the bubble factors, risk
    premiums and deal when computed.

    >>> from pokerlab.icm import icm
    >>> icm_json(icm([5000, 3000], [70, 30]), ["alice", "bob"])["players"][0]["name"]
    'alice'
    """
    data = result.to_dict()
    if names is not None and any(name != str(i + 1) for i, name in enumerate(names)):
        for player, name in zip(data["players"], names, strict=True):
            player["name"] = name
    if factors is not None:
        data["bubble_factors"] = factors.to_dict()["bubble_factors"]
        data["risk_premium"] = factors.to_dict()["risk_premium"]
    if split is not None:
        data["deal"] = split.to_dict()["players"]
    return data
