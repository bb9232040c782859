"""``pokerlab eval CARDS``: rank and describe a hand of 5, 6 or 7 cards."""

from __future__ import annotations

import typer

from pokerlab.cli.common import JSON_OPTION, command, print_json, print_table


@command("eval")
def eval_command(
    cards: list[str] = typer.Argument(..., help="5 to 7 cards, e.g. 'AsKs QsJsTs 2d 3c' (10 works for T; suits "
                                      "may be typed as ♠♥♦♣)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Rank a hand of 5, 6 or 7 cards: its value (larger is stronger), category and description."""
    from pokerlab.cards.display import hand_table
    from pokerlab.cards.evaluator import evaluate_hand

    hand = evaluate_hand(" ".join(cards))
    if as_json:
        print_json(hand.to_dict())
    else:
        print_table(hand_table(hand))
