"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

DEMO_HANDS = (
    "AsKs QsJsTs 2d 3c",
    "Kc Kd Kh 7s 7d 2c",
    "Ah Kh 9h 4h 2h Kc",
    "5c 4d 3h 2s Ac 9d 9c",
    "Jc Jd 8s 8h 3c",
    "Ac Qd 9h 6s 3c",
)


def hands_section(console: Console) -> None:
    """Rank a few hands, then all 133,784,560 seven-card hands."""
    import time

    from pokerlab.cards.evaluator import evaluate_hand, seven_card_category_counts
    from pokerlab.cards.tables import CATEGORIES

    table = Table(title="pokerlab eval", header_style="bold")
    for column in ("cards", "rank", "category", "description"):
        table.add_column(column)
    for cards in DEMO_HANDS:
        hand = evaluate_hand(cards)
        table.add_row(hand.cards, str(hand.rank), hand.category, hand.description)
    console.print(table)

    seven_card_category_counts()  # first call loads the tables and the compiled kernel
    start = time.perf_counter()
    counts = seven_card_category_counts()
    elapsed = time.perf_counter() - start
    table = Table(title=f"All {counts.sum():,} seven-card hands, ranked in {elapsed:.2f} s", header_style="bold")
    table.add_column("category")
    table.add_column("hands", justify="right")
    table.add_column("share", justify="right")
    for name, count in zip(CATEGORIES, counts, strict=True):
        table.add_row(name, f"{count:,}", f"{count / counts.sum():.4%}")
    console.print(table)


def bots_section(console: Console) -> None:
    """Short matches: a CFR+ bot against a random bot in Leduc (sampled and exact EV), the brief game's size and
    a full-bet bot against a random one in it."""
    from pokerlab.agents.match import default_trained, game_by_name, run_match
    from pokerlab.agents.players import FullBetAgent, RandomAgent
    from pokerlab.games.brief_holdem import BriefSpec, brief_sizes

    table = Table(title="pokerlab match (seats alternate; A's chips per hand)", header_style="bold")
    for column in ("game", "A vs B", "chips/hand (95% CI)", "exact EV", "hands won", "matches won"):
        table.add_column(column)
    leduc = game_by_name("leduc")
    runs = [(leduc, default_trained(leduc), RandomAgent(), True),
            (game_by_name("brief"), FullBetAgent(), RandomAgent(), False)]
    for game, a, b, exact in runs:
        r = run_match(game, a, b, hands=2000, matches=50, seed=7, exact=exact)
        table.add_row(game.name, f"{a.name} vs {b.name}", f"{r.chips_per_hand:+.3f} ± {r.ci95:.3f}",
                      "-" if r.exact_ev is None else f"{r.exact_ev:+.3f}", f"{r.hands_won_pct:.1f}%",
                      f"{r.matches_won_a}/{r.matches}")
    console.print(table)
    s = brief_sizes(BriefSpec())
    console.print(f"The brief's game (7 ranks x 4 suits, 1-chip ante, 6 behind, bets 0..4): {s.deals:,} deals, "
                  f"{s.histories:,} histories, {s.infosets:,} information sets, {s.betting_sequences:,} betting "
                  "sequences. Train a bot with `pokerlab brief train`, play it with `pokerlab play brief`.")


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return [("Hands: the evaluator", hands_section), ("Bots: matches", bots_section)]


def main() -> None:
    console = Console()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
