"""Rich tables of card results, shared by the command line and the demo."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from pokerlab.cards.evaluator import HandValue
from pokerlab.cards.ranges import Range


def hand_table(hand: HandValue) -> Table:
    """One row: the hand's cards, rank (larger is stronger), category and description.

    >>> from pokerlab.cards.evaluator import evaluate_hand
    >>> hand_table(evaluate_hand("AsKsQsJsTs")).row_count
    1
    """
    table = Table(show_header=True, header_style="bold")
    for column in ("cards", "rank", "category", "description"):
        table.add_column(column)
    table.add_row(hand.cards, str(hand.rank), hand.category, hand.description)
    return table


def range_summary(hand_range: Range, grid: bool = False) -> Group:
    """The canonical text of a range, its combo count and (with ``grid``) the 13x13 grid.

    >>> from pokerlab.cards.ranges import parse_range
    >>> len(range_summary(parse_range("QQ+")).renderables)
    2
    """
    lines: list[Any] = [
        Text(hand_range.text or "(empty)", style="bold"),
        Text(f"{hand_range.combo_count} combos ({hand_range.weighted_count:g} weighted, "
             f"{100 * hand_range.fraction:.2f}% of 1326)"),
    ]
    if grid:
        lines.append(hand_range.rich_grid())
    return Group(*lines)
