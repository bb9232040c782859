"""Print the Monte Carlo convergence table for AsKs vs a random hand and draw docs/convergence.png."""

from __future__ import annotations

from pathlib import Path

from pokerlab.equity.convergence import convergence_table, plot_convergence

OUTPUT = Path(__file__).resolve().parent.parent / "docs" / "convergence.png"


def main() -> None:
    convergence_table(trials=(1000,), exact=0.67)  # compile / load the kernels outside the timings
    exact, rows = convergence_table(exact=0.670446323092352)
    print(f"AsKs vs random, exact equity {exact:.12f}")
    print(f"| {'trials':>10} | {'estimate':>9} | {'error':>10} | {'stderr':>9} | {'time (s)':>9} |")
    print(f"|{'-' * 12}|{'-' * 11}|{'-' * 12}|{'-' * 11}|{'-' * 11}|")
    for row in rows:
        print(f"| {row.trials:>10,} | {row.estimate:>9.6f} | {row.error:>+10.6f} | {row.stderr:>9.6f} "
              f"| {row.elapsed_s:>9.4f} |")
    OUTPUT.parent.mkdir(exist_ok=True)
    plot_convergence(exact, rows, OUTPUT)
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
