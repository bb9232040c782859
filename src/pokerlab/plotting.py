"""The one place pokerlab imports matplotlib (the ``plot`` extra) and writes figures.

Every engine that draws a picture calls :func:`pyplot` for the module and :func:`save_figure` to write it, so
the missing-extra message, the headless backend and the file-name checks are the same everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerlab.errors import InvalidArgumentError, OutputPathError

SUPPORTED_SUFFIXES = (".png", ".pdf", ".svg")


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the headless Agg backend; a clear error when the ``plot`` extra is missing."""
    try:
        import matplotlib
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError("plotting needs matplotlib: pip install 'pokerlab[plot]'") from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_path(path: str | Path) -> Path:
    """The file a figure will be written to: ``.png`` is added to a name without a suffix, and any suffix other
    than .png, .pdf or .svg is an :class:`InvalidArgumentError`. Example: ``figure_path("grid") == Path("grid.png")``.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputPathError(f"cannot write a figure to {str(target)!r}: it is a folder")
    if not target.suffix:
        return target.with_suffix(".png")
    if target.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise InvalidArgumentError(
            f"cannot write a figure to {str(target)!r}: use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    return target


def save_figure(figure: Any, path: str | Path, **savefig_options: Any) -> Path:
    """Write ``figure`` to ``path`` (checked by :func:`figure_path`), close it, and return the path written."""
    target = figure_path(path)
    try:
        figure.savefig(target, **savefig_options)
    finally:
        pyplot().close(figure)
    return target
