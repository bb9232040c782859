"""``make demo``: one short run of every engine, printed with rich.

Each engine contributes a section function taking the console; run with ``python -m pokerlab.demo``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console


def sections() -> list[tuple[str, Callable[[Console], None]]]:
    """The demo's sections in order: (title, function printing the section)."""
    return []


def main() -> None:
    console = Console()
    for title, section in sections():
        console.rule(f"[bold]{title}")
        section(console)


if __name__ == "__main__":
    main()
