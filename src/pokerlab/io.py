"""Writing files safely: output paths checked before any work, and atomic writes (write, then rename).

Every engine that saves an artefact (a solver state, a trained bot, a figure, JSON) writes through
:func:`atomic_write`, so a crash or a Ctrl-C in the middle of a write never leaves a half file where a good
one was; every command that takes an output path calls :func:`check_output_path` before it starts working, so
a mistyped folder costs a second, not an hour of computation.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pokerlab.errors import OutputPathError


def check_output_path(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """Return ``path`` as a :class:`Path` if a file can be written there, else raise :class:`OutputPathError`
    naming the problem: the folder does not exist, the path is a folder, or the folder or file is not writable.

    The folder is probed by creating (and removing) a temporary file in it, so the check holds for read-only
    file systems and for every user, root included. Nothing is created at ``path`` itself.

    >>> try:
    ...     check_output_path("/nonexistent-folder/state.npz")
    ... except OutputPathError as error:
    ...     print(error)
    cannot write output file /nonexistent-folder/state.npz: folder /nonexistent-folder does not exist
    """
    target = Path(path)
    if str(path) == "":
        raise OutputPathError(f"{what}: empty path")
    folder = target.parent
    prefix = f"cannot write {what} {target}"
    if target.is_dir():
        raise OutputPathError(f"{prefix}: it is a folder")
    if not folder.exists():
        raise OutputPathError(f"{prefix}: folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputPathError(f"{prefix}: {folder} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".pokerlab-probe-")
    except OSError as error:
        raise OutputPathError(f"{prefix}: folder {folder} is not writable ({error.strerror})") from None
    os.close(fd)
    os.unlink(probe)
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputPathError(f"{prefix}: the existing file is not writable")
    return target


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block ends normally, the temporary file is flushed to
    disk (fsync) and replaces ``path`` in one rename (the folder then synced too), else it is removed and
    ``path`` keeps its old content: a crash, a kill or a power cut leaves the old file or the new one, whole.

    The temporary name keeps the suffix of ``path`` (``np.savez`` and matplotlib choose formats by suffix).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> with atomic_write(folder / "a.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('done', ['a.txt'])
    """
    target = Path(path)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=f".tmp{target.suffix}")
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, _mode_for(target))  # mkstemp's 0600 would hide the file from the user's group
        _sync(temporary)
        os.replace(temporary, target)
        _sync(target.parent)
    finally:
        temporary.unlink(missing_ok=True)


def _sync(path: Path) -> None:
    """Flush a file's or a folder's data to disk (a rename is durable once its folder is synced); a folder that
    cannot be opened for it (some file systems) is left to the system."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _mode_for(target: Path) -> int:
    """The permissions a new file at ``target`` gets: those of the file it replaces, else 0666 less the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_text_atomically(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return ``path``.

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "x.json"
    >>> write_text_atomically(p, "{}").read_text()
    '{}'
    """
    with atomic_write(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return Path(path)
