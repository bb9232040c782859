"""What a result was made by: a digest of the source files that made it, to key caches and name reports."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent


def sources_digest(names: Iterable[str]) -> str:
    """SHA-256 (16 hex digits) of the package's sources ``names`` (files or folders, relative to the package;
    a folder's ``*.py`` files in path order), each with its path: any edit of that code changes it.

    >>> len(sources_digest(["errors.py", "stats"])), sources_digest(["errors.py"]) == sources_digest(["stats"])
    (16, False)
    """
    digest = hashlib.sha256()
    for name in names:
        path = PACKAGE_ROOT / name
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(source.relative_to(PACKAGE_ROOT).as_posix().encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]
