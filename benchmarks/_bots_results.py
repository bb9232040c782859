"""Reproduce the TIPE report's table (trained bot vs random vs full bet) for Kuhn, Leduc and the two-round game.

Usage: python benchmarks/_bots_results.py TWO_ROUND_BOT.npz [HANDS] [MATCHES]. Prints markdown for docs/results.md.
Kuhn and Leduc use CFR+ (pokerlab.solvers) to 1e-4 / 1e-3 chips/game; the two-round game uses the given bot.
"""

from __future__ import annotations

import sys
import time
from itertools import combinations

from pokerlab.agents.defaults import default_trained
from pokerlab.agents.match import agent_exploitability, game_by_name, run_match
from pokerlab.agents.players import FullBetAgent, RandomAgent, StrategyAgent
from pokerlab.solvers.two_round import TwoRoundBot


def main() -> None:
    bot_file = sys.argv[1]
    hands = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    matches = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    seed = 2024
    for name in ("kuhn", "leduc", "two-round"):
        game = game_by_name(name)
        trained = StrategyAgent(TwoRoundBot.load(bot_file)) if name == "two-round" else default_trained(game)
        agents = [trained, RandomAgent(), FullBetAgent()]
        t0 = time.perf_counter()
        expl = {a.name: agent_exploitability(game, a) for a in agents}
        print(f"\n### {name}\n\nExploitability (chips/hand, exact): "
              + ", ".join(f"{k} {v:.4f}" for k, v in expl.items()) + f" ({time.perf_counter() - t0:.0f} s)\n")
        print("| A vs B | A chips/hand (95% CI) | exact EV | hands won by A | matches won by A (95% CI) "
              "| mean match length |")
        print("|---|---|---|---|---|---|")
        for a, b in combinations(agents, 2):
            r = run_match(game, a, b, hands=hands, seed=seed, matches=matches, start_chips=20)
            print(f"| {a.name} vs {b.name} | {r.chips_per_hand:+.4f} ± {r.ci95:.4f} | {r.exact_ev:+.4f} | "
                  f"{r.hands_won_pct:.1f}% (lost {r.hands_lost_pct:.1f}%) | {r.matches_won_a}/{r.matches} = "
                  f"{r.match_win_pct:.1f}% ± {r.match_win_ci95:.1f}% | {r.mean_match_hands:.1f} |", flush=True)


if __name__ == "__main__":
    main()
