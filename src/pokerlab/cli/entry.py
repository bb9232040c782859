"""The ``pokerlab`` console script and ``python -m pokerlab``: Ctrl-C is one line from the first moment.

While the command line loads (typer, rich, then the command's module: the first ~0.1-0.2 s), Python's own
handler would turn Ctrl-C into a ``KeyboardInterrupt`` traceback. :func:`main` runs before any of that: it makes
Ctrl-C print ``interrupted`` and exit 130 at once (nothing has been done yet, so nothing is lost) and hands Ctrl-C
back to Python once the application is loaded, where every command turns it into its own one line saying what
was done. It imports only modules Python has loaded at start (``os``, ``sys`` and
``_signal``, the C module under ``signal``, whose ``enum`` import alone takes 6 ms) and, through the package,
nothing heavy (``pokerlab/__init__.py`` loads the API lazily). What is left is Python's own start (``site``, and
``runpy`` for ``-m``: 10-40 ms), where no code of ours can run: a Ctrl-C there ends the process by the signal,
silently, or prints Python's traceback of its start-up.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # what `signal` re-exports, without its 6 ms of enums
import os
import sys

EXIT_INTERRUPTED = 130


def _stop_at_once(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)  # no work yet: nothing to save or flush


def main() -> None:
    """Run the command line: Ctrl-C is one ``interrupted`` line while the application loads, then Python's Ctrl-C
    handling is back in place for the commands."""
    # Only where Ctrl-C would raise KeyboardInterrupt: `nohup pokerlab ...` (or a caller that ignores SIGINT) keeps
    # ignoring it
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _stop_at_once)
    from pokerlab.cli.main import app

    try:
        if _signal.getsignal(_signal.SIGINT) is _stop_at_once:
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        app()
    except KeyboardInterrupt:  # between handing Ctrl-C back and the application's own handling of it
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
