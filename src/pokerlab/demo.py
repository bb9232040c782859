"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console


def icm_section(console: Console) -> None:
    """ICM: a final table exactly, then a 2,048-player field (15% paid) exactly and by Monte Carlo."""
    from pokerlab.icm import icm, power_law, truncated_normal_stacks

    small = icm([5000, 3000, 2000], [50, 30, 20])
    console.print("stacks 5000/3000/2000, payouts 50/30/20 ->", ", ".join(f"{x:.4f}" for x in small.equity),
                  "(exact: 1075/28, 131/4, 202/7)")
    stacks = truncated_normal_stacks(2048, seed=1)
    payouts = power_law(307, 1000.0, 1.0)
    exact = icm(stacks, payouts)
    mc = icm(stacks, payouts, "montecarlo", samples=20_000, seed=1)
    top = int(stacks.argmax())
    console.print(f"2,048 players, 307 paid (power law, pool 1000): exact in {exact.elapsed_s * 1e3:.0f} ms "
                  f"({exact.nodes} nodes); chip leader {exact.equity[top]:.4f}, Monte Carlo {mc.equity[top]:.4f} "
                  f"+- {mc.stderr[top]:.4f} in {mc.elapsed_s * 1e3:.0f} ms")


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return [("ICM: tournament prize equity", icm_section)]


def main() -> None:
    console = Console()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
