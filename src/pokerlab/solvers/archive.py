"""The one file form of every solver state and strategy: an ``.npz`` archive (never pickle) holding the arrays and
a ``meta`` entry, a JSON object with at least ``format`` (what the file is) and ``format_version``; written
atomically (an interrupted save leaves the previous file whole). Each loader checks its own fields after
:func:`read_archive` and :func:`check_format`."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.io import atomic_write


def write_archive(path: str | Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> Path:
    """Write ``arrays`` and ``meta`` (as JSON) to ``path`` atomically; ``path`` back.

    >>> import tempfile
    >>> path = write_archive(Path(tempfile.mkdtemp()) / "a.npz", {"format": "demo", "format_version": 1},
    ...                      {"x": np.arange(3.0)})
    >>> meta, arrays = read_archive(path, "demo file"); meta["format"], arrays["x"].tolist()
    ('demo', [0.0, 1.0, 2.0])
    """
    path = Path(path)
    with atomic_write(path) as temporary, temporary.open("wb") as handle:
        np.savez_compressed(handle, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    return path


def npz_reason(error: Exception) -> str:
    """A short reason for a file numpy could not read as our archive (numpy calls any non-zip file 'pickled')."""
    text = str(error)
    if isinstance(error, zipfile.BadZipFile | EOFError) or "pickled" in text or "allow_pickle" in text:
        return "not a .npz archive"
    return text


def read_archive(path: str | Path, what: str, keys: Collection[str] | None = None,
                 missing: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The ``meta`` object and the arrays (``keys``, or all of them) of the archive at ``path``.

    ``what`` names the file in errors (``pokerlab solver file``): :class:`FileFormatError` ``"{path}: not a
    {what} ({reason})"`` for anything that is not such an archive (a missing key included). A missing file
    raises :class:`InvalidArgumentError` with ``missing`` (default ``"no {what} {path}"``).
    """
    path = Path(path)
    if not path.exists():
        raise InvalidArgumentError(missing or f"no {what} {path}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"]))
            names = [k for k in npz.files if k != "meta"] if keys is None else keys
            arrays = {k: np.array(npz[k]) for k in names}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise FileFormatError(f"{path}: not a {what} ({npz_reason(error)})") from error
    if not isinstance(meta, dict):
        raise FileFormatError(f"{path}: not a {what} (metadata is not an object)")
    return meta, arrays


#: Formats pokerlab wrote once and reads no more, with what to do about such a file.
RETIRED_FORMATS = {"pokerlab-brief-bot": "train the bot again with `pokerlab two-round train --out FILE`"}


def refuse_retired(path: str | Path, meta: Mapping[str, Any]) -> None:
    """Refuse (:class:`FileFormatError`, one line saying what to do) an archive of a retired format.

    >>> try:
    ...     refuse_retired("old.npz", {"format": "pokerlab-brief-bot"})
    ... except FileFormatError as error:
    ...     print(str(error)[:54])
    old.npz: format 'pokerlab-brief-bot' is no longer read
    """
    kind = meta.get("format")
    if isinstance(kind, str) and kind in RETIRED_FORMATS:
        raise FileFormatError(f"{path}: format {kind!r} is no longer read; {RETIRED_FORMATS[kind]}")


def check_format(path: str | Path, meta: Mapping[str, Any], formats: Collection[str], version: int,
                 what: str) -> None:
    """Refuse (:class:`FileFormatError`) an archive whose ``meta`` has a format not in ``formats`` (a retired
    format: saying what to do, :func:`refuse_retired`) or a format version other than ``version``."""
    refuse_retired(path, meta)
    if meta.get("format") not in formats:
        raise FileFormatError(f"{path}: not a {what} (format {meta.get('format')!r})")
    if meta.get("format_version") != version:
        raise FileFormatError(f"{path}: unsupported format version {meta.get('format_version')!r} "
                              f"(this pokerlab reads version {version})")
