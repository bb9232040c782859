"""``pokerlab eval CARDS``: rank and describe a hand of 5, 6 or 7 cards."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from pokerlab.cards.evaluator import evaluate_hand
from pokerlab.cli.common import user_errors


def register(app: typer.Typer) -> None:
    """Add ``pokerlab eval`` to the application."""

    @app.command("eval")
    @user_errors
    def eval_command(
        cards: list[str] = typer.Argument(..., help="5 to 7 cards, e.g. 'AsKs QsJsTs 2d 3c' (10 works for T)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
    ) -> None:
        """Rank a hand of 5, 6 or 7 cards: its value (larger is stronger), category and description."""
        hand = evaluate_hand(" ".join(cards))
        if as_json:
            typer.echo(json.dumps(hand.to_dict()))
            return
        table = Table(show_header=True, header_style="bold")
        for column in ("cards", "rank", "category", "description"):
            table.add_column(column)
        table.add_row(hand.cards, str(hand.rank), hand.category, hand.description)
        Console().print(table)
