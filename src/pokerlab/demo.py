"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``. A section
compiles its kernels first (:func:`pokerlab.warmup.prepare`: "compiling kernels (first run only)"), so every
time it prints is the run's own, never compilation.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from pokerlab.cli.common import progress_bar
from pokerlab.warmup import KERNEL_GROUPS, prepare, warm_groups

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

    prepare(["all-hands"])
    seven_card_category_counts()  # first call loads the tables
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


def solver_section(console: Console) -> None:
    """CFR+ on Kuhn and Leduc poker: exploitability, game value and time against the known values."""
    from rich.table import Table

    from pokerlab.solvers import solve

    prepare(["solvers"])
    table = Table("game", "algorithm", "iterations", "exploitability (chips)", "value", "known value", "time")
    for game, algorithm, iterations, known in (("kuhn", "cfr+", 200, -1 / 18), ("leduc", "cfr+", 1000, -0.0856064),
                                               ("leduc", "es-mccfr", 100_000, -0.0856064)):
        r = solve(game, algorithm, iterations=iterations, seed=1)
        table.add_row(game, algorithm, f"{r.iterations:,}", f"{r.exploitability:.2e}", f"{r.game_value:+.5f}",
                      f"{known:+.5f}", f"{r.elapsed_s:.3f} s")
    console.print(table)


def icm_section(console: Console) -> None:
    """ICM: a final table exactly, then a 2,048-player field (15% paid) exactly and by Monte Carlo."""
    from pokerlab.icm import icm, power_law, truncated_normal_stacks

    prepare(["icm", "icm-montecarlo"])
    small = icm([5000, 3000, 2000], [50, 30, 20])
    console.print("stacks 5000/3000/2000, payouts 50/30/20 ->", ", ".join(f"{x:.4f}" for x in small.equity),
                  "(exact: 1075/28, 131/4, 202/7)")
    stacks = truncated_normal_stacks(2048, seed=1)
    payouts = power_law(307, 1000.0, 1.0)
    exact = icm(stacks, payouts)
    mc = icm(stacks, payouts, "montecarlo", samples=20_000, seed=1)
    top = int(stacks.argmax())
    assert mc.stderr is not None  # a Monte Carlo result has standard errors
    console.print(f"2,048 players, 307 paid (power law, pool 1000): exact in {exact.elapsed_s * 1e3:.0f} ms "
                  f"({exact.nodes} nodes); chip leader {exact.equity[top]:.4f}, Monte Carlo {mc.equity[top]:.4f} "
                  f"+- {mc.stderr[top]:.4f} in {mc.elapsed_s * 1e3:.0f} ms ({mc.method}, {mc.samples:,} samples)")


def bots_section(console: Console) -> None:
    """Short matches: a CFR+ bot against a random bot in Leduc (sampled and exact EV), the two-round game's size and
    a full-bet bot against a random one in it."""
    from pokerlab.agents.defaults import default_trained
    from pokerlab.agents.match import game_by_name, run_match
    from pokerlab.agents.players import FullBetAgent, RandomAgent
    from pokerlab.games.two_round import TwoRoundSpec, two_round_sizes

    prepare(["matches"])
    table = Table(title="pokerlab match (seats alternate; A's chips per hand)", header_style="bold")
    for column in ("game", "A vs B", "chips/hand (95% CI)", "exact EV", "hands won", "matches won"):
        table.add_column(column)
    leduc = game_by_name("leduc")
    runs = [(leduc, default_trained(leduc), RandomAgent(), True),
            (game_by_name("two-round"), FullBetAgent(), RandomAgent(), False)]
    for game, a, b, exact in runs:
        r = run_match(game, a, b, hands=2000, matches=50, seed=7, exact=exact)
        table.add_row(game.name, f"{a.name} vs {b.name}", f"{r.chips_per_hand:+.3f} ± {r.ci95:.3f}",
                      "-" if r.exact_ev is None else f"{r.exact_ev:+.3f}", f"{r.hands_won_pct:.1f}%",
                      f"{r.matches_won_a}/{r.matches}")
    console.print(table)
    s = two_round_sizes(TwoRoundSpec())
    console.print(f"The two-round game (7 ranks x 4 suits, 1-chip ante, 6 behind, bets 0..4): {s.deals:,} deals, "
                  f"{s.histories:,} histories, {s.infosets:,} information sets, {s.betting_sequences:,} betting "
                  "sequences. Train a bot with `pokerlab two-round train`, play it with `pokerlab play two-round`.")


def equity_section(console: Console) -> None:
    """Exact and Monte Carlo equity, a range grid, and equity against 1..N random hands."""
    from rich.table import Table

    from pokerlab.cards.ranges import parse_range
    from pokerlab.equity import equity, equity_vs_random
    from pokerlab.equity.display import equity_table

    prepare(["equity-montecarlo", "equity-vs-random"])  # the exact calls below need no kernel (table, plain numpy)
    console.print(equity_table(equity(["AsKs", "random"], method="exact")))
    console.print(equity_table(equity(["QQ+, AKs", "TT+, AQs+:0.5", "random"], method="montecarlo",
                                       target_stderr=5e-4, seed=1)))
    console.print(equity_table(equity(["AsKs", "AcJc"], board="Js8s5d")))
    top = parse_range("15%")
    console.print(f"[bold]15% of hands[/] ({top.combo_count} combos): {top.text}")
    console.print(top.rich_grid())
    many = equity_vs_random("AhAs", max_opponents=9, trials=2_000_000, seed=1)
    table = Table(title=f"AhAs against 1..9 random hands ({many.trials:,} deals, one pass, {many.elapsed_s:.2f} s)")
    table.add_column("opponents", justify="right")
    table.add_column("equity", justify="right")
    table.add_column("± stderr", justify="right")
    for n, (value, error) in enumerate(zip(many.equity, many.stderr, strict=True), start=1):
        table.add_row(str(n), f"{100 * value:.2f}%", f"{100 * error:.2f}%")
    console.print(table)


def pushfold_section(console: Console) -> None:
    """Heads-up push/fold at 10 bb (chip EV, against the known 58-60% / 37-40% bands) and a three-handed
    ICM table with its chip-EV twin."""
    from pokerlab.pushfold import pushfold

    prepare(["pushfold"])
    table = Table("table", "model", "seat", "jams first in", "calls", "max gain", "time", header_style="bold")
    runs = (("heads-up 10/10 bb", [10, 10], None), ("3-handed 12/8/10 bb", [12, 8, 10], None),
            ("3-handed 12/8/10 bb", [12, 8, 10], [50, 30, 20]))
    for name, stacks, payouts in runs:
        r = pushfold(stacks, (0.5, 1), payouts=payouts, target=1e-4 if len(stacks) == 2 else 1e-3,
                     multiway_samples=500)
        for seat, label in enumerate(r.seats):
            jam = "-" if r.jam[seat, 0] != r.jam[seat, 0] else f"{r.percent(r.jam[seat]):.1f}%"
            calls = ", ".join(f"vs {r.seats[j]} {r.percent(p):.1f}%" for (c, j), p in sorted(r.call.items())
                              if c == seat) or "-"
            table.add_row(name if seat == 0 else "", r.model if seat == 0 else "", label, jam, calls,
                          f"{r.max_gain:.1e} {r.gain_unit}" if seat == 0 else "",
                          f"{r.elapsed_s:.2f} s" if seat == 0 else "")
    console.print(table)
    console.print("Heads-up at 10 bb the published Nash bands are 58-60% (SB jams) and 37-40% (BB calls).")


def postflop_section(console: Console) -> None:
    """The river spot of postflop-solver's README ranges (issue 22): solved to 0.3% of the pot, its EVs against
    postflop-solver's, the root's action frequencies and one node down."""
    from pokerlab.postflop import solve

    r = solve("Td9d6hQc2s", "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s",
              "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+", pot=200, stack=900,
              bets="33%,75%,150%,a", raises="3x,a", target=0.3)
    console.print(f"River Td9d6hQc2s, pot 200, stack 900, bets 33%/75%/150%/all-in, raises 3x/all-in: "
                  f"{r.game.decision_count} decision nodes, {r.iterations} iterations in {r.elapsed_s:.2f} s "
                  f"(the first iteration, which loads or compiles the kernels, apart: {r.compile_s:.2f} s), "
                  f"exploitability {r.exploitability_percent:.3f}% of the pot (exact).")
    console.print(f"EV OOP {r.ev[0]:.2f}, IP {r.ev[1]:.2f} chips (postflop-solver: 91.68 / 108.32).")
    for view in (r.root, r.node("check")):
        mix = ", ".join(f"{a} {100 * f:.1f}%" for a, f in view.frequencies.items())
        console.print(f"{view.description}: {mix}")


def simulation_section(console: Console) -> None:
    """Tournament simulation: three players flipping coins for one chip (the gambler's ruin) against ICM, then a
    batch of 1,000-player tournaments with simple-rules push/fold players."""
    import numpy as np

    from pokerlab.simulation import simulate

    prepare(["simulation"])
    r = simulate([5, 3, 2], [600, 400], bet=1, tournaments=20_000, seed=1)
    table = Table(title=f"5/3/2 chips, 600/400, coin flips for 1 chip: {r.tournaments:,} tournaments "
                        f"({r.hands:,} hands, {r.elapsed_s:.2f} s)")
    for column in ("stack", "simulated equity", "± stderr", "exact (Markov chain)", "ICM"):
        table.add_column(column, justify="right")
    icm = r.icm if r.icm is not None else np.full(3, np.nan)  # always computed for three players
    exact = (445.35, 330.32, 224.34)  # the gambler's-ruin chain of tests/simulation/test_oracles.py
    for g in range(3):
        table.add_row(f"{r.tournament.group_stack[g]:g}", f"{r.equity[g]:.2f}", f"{r.equity_stderr[g]:.2f}",
                      f"{exact[g]:.2f}", f"{icm[g]:.2f}")
    console.print(table)
    field = simulate(players=1000, starting_stack=10_000, payouts="power:paid=150", play="rules", tournaments=40,
                     seed=1)
    console.print(f"40 tournaments of 1,000 players (tables of 9, blinds up every 10 hands, simple-rules push/fold): "
                  f"{field.hands:,} hands in {field.elapsed_s:.2f} s; every table balanced within "
                  f"{field.checks['max_table_spread']} player, chips conserved. See docs/beating-icm.md.")


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return [
        ("Hands: the evaluator", hands_section),
        ("Equity: exact and Monte Carlo", equity_section),
        ("ICM: tournament prize equity", icm_section),
        ("CFR solving: Kuhn and Leduc poker", solver_section),
        ("Bots: matches", bots_section),
        ("Push/fold: Nash jam and call ranges, chip EV and ICM", pushfold_section),
        ("Postflop: a no-limit hold'em river spot", postflop_section),
        ("Tournament simulation", simulation_section),
    ]


#: The kernel groups the sections prepare (tests/test_warmup.py checks this against the sections' calls).
DEMO_GROUPS = ("all-hands", "equity-montecarlo", "equity-vs-random", "icm", "icm-montecarlo", "solvers", "matches",
               "pushfold", "simulation")


def compile_demo_kernels() -> None:
    """On a fresh install, compile every section's kernels up front on two cores (numba compiles on one core per
    process; section by section, a cold demo spent about 150 s compiling on one). Whether the cache is cold is
    learnt from the first section's group: if it loads without compiling, the rest is loaded by each section."""
    if prepare(DEMO_GROUPS[:1]) == 0:
        return
    rest = [name for name in KERNEL_GROUPS if name in DEMO_GROUPS[1:]]  # the longest first, as `pokerlab warmup`
    with progress_bar("compiling kernels (first run only)", len(rest), unit="groups") as update:
        warm_groups(rest, jobs=2, on_done=lambda count, name: update(count, status=name))


def main() -> None:
    console = Console()
    compile_demo_kernels()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
