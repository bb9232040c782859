"""Batch runners: chunks of tournaments on local processes (the default) or on a Ray cluster, checkpointed.

A batch is ``n_chunks`` independent tasks; ``task(index)`` returns that chunk's statistics as a dict of numpy
arrays (mergeable: the caller folds them in chunk order, so the result does not depend on which worker ran what
or in which order chunks finished). A checkpoint directory keeps every finished chunk as ``chunk-NNNNNN.npz``
(written to a temporary name, then renamed: a chunk file is whole or absent) beside ``manifest.json``, which
names the run by a fingerprint of its inputs; a rerun with the same inputs loads the finished chunks and runs
only the others: nothing lost, nothing counted twice.

Workers ignore SIGINT; Ctrl-C reaches the parent, which terminates them and raises :class:`KeyboardInterrupt`
(finished chunks are already on disk). A worker that dies (killed, out of memory) breaks the process pool: the
runner starts a new pool and resubmits the chunks that had not come back, up to :data:`MAX_POOL_RESTARTS` times.
Ray retries lost tasks itself.
"""

from __future__ import annotations

import json
import signal
import socket
import zipfile
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.io import atomic_write

CHECKPOINT_FORMAT = 2  # 2: the manifest keeps the seed, every chunk its run's fingerprint and its index
RUN_KEY = "checkpoint_run"
INDEX_KEY = "checkpoint_index"
MAX_POOL_RESTARTS = 3
RAY_CONNECT_TIMEOUT_S = 5.0

Chunk = dict[str, np.ndarray]
Chunks = Generator[tuple[int, Chunk], None, None]
Task = Callable[[int], Chunk]


_worker_task: Task | None = None
"""In a local worker process: the task its pool was started for (:func:`_start_worker`)."""


def _start_worker(task: Task) -> None:
    """A local worker's start: its task, inherited through the fork (a forked process's arguments are not pickled,
    and a task holds the tournament, whose full-ring charts are tens of MiB: sent with every chunk they cost a small
    simulation about a second per call), so only a chunk's index goes to it; its signals: Ctrl-C and SIGTERM are
    the parent's to handle (it stops the workers itself)."""
    global _worker_task
    _worker_task = task
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_in_worker(index: int) -> Chunk:
    """Chunk ``index`` of the worker's task (:data:`_worker_task`)."""
    if _worker_task is None:
        raise RuntimeError("a local worker was started without its task")
    return _worker_task(index)


def stored_seed(directory: str | Path) -> int | None:
    """The seed kept in the manifest of checkpoint ``directory`` (None: no checkpoint there yet, or none kept),
    so that a run whose seed was drawn resumes with the same seed."""
    manifest = Path(directory) / "manifest.json"
    try:
        seed = json.loads(manifest.read_text(encoding="utf-8")).get("seed")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return None  # no manifest, or a damaged one (Checkpoint says so)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None


class Checkpoint:
    """A directory of finished chunks for one run (identified by ``fingerprint``)."""

    def __init__(self, directory: str | Path, fingerprint: str, n_chunks: int, seed: int | None = None) -> None:
        self.directory = Path(directory)
        self.fingerprint = fingerprint
        self.n_chunks = n_chunks
        manifest = self.directory / "manifest.json"
        if self.directory.exists() and not self.directory.is_dir():
            raise InvalidArgumentError(f"checkpoint path {self.directory} exists and is not a directory")
        if manifest.exists():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
                version, stored = data["format_version"], data["fingerprint"]
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
                raise FileFormatError(f"checkpoint {manifest} is corrupt: {error}") from error
            if version != CHECKPOINT_FORMAT:
                raise FileFormatError(f"checkpoint {manifest} has format {version}, this version reads "
                                      f"{CHECKPOINT_FORMAT}")
            if stored != fingerprint:
                raise InvalidArgumentError(
                    f"checkpoint {self.directory} belongs to a different run (other inputs or seed); "
                    "use another directory or delete it"
                )
        else:
            other = [p.name for p in self.directory.iterdir()] if self.directory.is_dir() else []
            if other:
                raise InvalidArgumentError(f"checkpoint directory {self.directory} is not empty and has no manifest")
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise InvalidArgumentError(
                    f"cannot create checkpoint directory {self.directory}: {error.strerror or error}"
                ) from error
            with atomic_write(manifest) as temporary:
                temporary.write_text(json.dumps({"format_version": CHECKPOINT_FORMAT, "fingerprint": fingerprint,
                                                 "chunks": n_chunks, "seed": seed}))

    def path(self, index: int) -> Path:
        return self.directory / f"chunk-{index:06d}.npz"

    def finished(self) -> dict[int, Chunk]:
        """Every chunk on disk; a damaged one is a :class:`FileFormatError` (nothing is overwritten)."""
        done: dict[int, Chunk] = {}
        for index in range(self.n_chunks):
            path = self.path(index)
            if not path.exists():
                continue
            try:
                with np.load(path, allow_pickle=False) as stored:
                    chunk = {name: stored[name] for name in stored.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
                raise FileFormatError(f"checkpoint chunk {path} is corrupt ({error}); delete it to recompute it") \
                    from error
            run, number = chunk.pop(RUN_KEY, None), chunk.pop(INDEX_KEY, None)
            if run is None or number is None or run.shape != () or str(run) != self.fingerprint \
                    or number.shape != () or int(number) != index:
                raise FileFormatError(f"checkpoint chunk {path} is not chunk {index} of this run (copied from another "
                                      "run, or another file): delete it to recompute it")
            done[index] = chunk
        return done

    def save(self, index: int, chunk: Chunk) -> None:
        marked = {**chunk, RUN_KEY: np.array(self.fingerprint), INDEX_KEY: np.array(index)}
        with atomic_write(self.path(index)) as temporary:
            np.savez(temporary, **marked)  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle


def run_local(task: Task, todo: list[int], workers: int) -> Chunks:
    """Yield ``(index, chunk)`` as chunks finish on ``workers`` processes (0: in this process, in order)."""
    if workers == 0:
        for index in todo:
            yield index, task(index)
        return
    pending = list(todo)
    restarts = 0
    while pending:
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork"),
                                       initializer=_start_worker, initargs=(task,))
        futures: dict[Future[Chunk], int] = {}
        clean = False
        try:
            # keep at most 2 chunks per worker in flight: a Ctrl-C or a lost worker wastes little
            queue = list(pending)
            while queue or futures:
                while queue and len(futures) < 2 * workers:
                    index = queue.pop(0)
                    futures[executor.submit(_run_in_worker, index)] = index
                finished, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in finished:
                    index = futures.pop(future)
                    chunk = future.result()
                    pending.remove(index)
                    yield index, chunk
            clean = True
        except BrokenProcessPool:
            restarts += 1
            if restarts > MAX_POOL_RESTARTS:
                raise
        finally:
            if clean:
                executor.shutdown(wait=True)
            else:
                kill_pool(executor)


def kill_pool(executor: ProcessPoolExecutor, wait: bool = False) -> None:
    """Stop at once (Ctrl-C, error, lost worker): SIGKILL the workers, whose work is lost anyway (finished
    chunks are already saved), so none of them prints a traceback of a half-read queue.

    A worker killed while it writes a chunk leaves half a message in the results pipe, and the pool's manager
    thread waits for the rest of it; Python's exit joins that thread, so the command hung after its last line
    (1 stop in 16 on a loaded machine). This process holds the pipe's last write end besides the killed workers':
    closing it ends the read (end of file), and the thread sees a broken pool and exits. ``wait``: return once
    that thread has ended."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    results = getattr(executor, "_result_queue", None)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=1.0)
    writer = getattr(results, "_writer", None)
    if writer is not None:  # a worker still dying writes nothing more: its end closes when it is gone
        writer.close()  # the manager thread reads only the other end; nothing in this process writes here
    executor.shutdown(wait=wait, cancel_futures=True)


def check_ray_address(address: str) -> None:
    """Fail fast (:data:`RAY_CONNECT_TIMEOUT_S`) with one line when a Ray address does not answer, or answers
    but is not Ray (a web server, say: Ray's head and client server speak gRPC, whose first words on a new
    connection are an HTTP/2 SETTINGS frame)."""
    if not isinstance(address, str) or not address.strip():
        raise InvalidArgumentError(f"Ray address {address!r} is empty: give local, auto, HOST:PORT or ray://HOST:PORT")
    if address in ("local", "auto"):
        return
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise InvalidArgumentError(f"Ray address {address!r} must be local, auto, HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_TIMEOUT_S) as connection:
            grpc = speaks_grpc(connection)
    except OSError as error:
        raise InvalidArgumentError(
            f"cannot reach the Ray cluster at {address} within {RAY_CONNECT_TIMEOUT_S:g} s: {error.strerror or error}"
        ) from error
    if not grpc:
        raise InvalidArgumentError(f"{address} answers but is not a Ray cluster (it does not speak gRPC): give the "
                                   "address of a Ray head (its GCS port, 6379 by default) or ray://HOST:10001")


HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # then empty SETTINGS
SETTINGS_FRAME = 4


def speaks_grpc(connection: socket.socket) -> bool:
    """Whether the server on ``connection`` answers an HTTP/2 client preface with a SETTINGS frame (what every
    gRPC server sends first); a timeout or any other answer is False."""
    connection.sendall(HTTP2_PREFACE)
    header = b""
    try:
        while len(header) < 9:
            data = connection.recv(9 - len(header))
            if not data:
                break
            header += data
    except OSError:
        return False
    return len(header) == 9 and header[3] == SETTINGS_FRAME


def ray_init(address: str, num_cpus: int | None = None) -> Any:
    """Connect to (or, for ``local``, start) a Ray instance; returns the ``ray`` module."""
    try:
        import ray
    except ImportError as error:
        raise InvalidArgumentError("Ray is not installed: pip install 'pokerlab[ray]'") from error
    check_ray_address(address)
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        try:
            if address == "local":
                ray.init(address="local", num_cpus=num_cpus, **options)
            else:
                ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, TimeoutError, ValueError) as error:
            raise InvalidArgumentError(f"cannot start or join Ray at {address}: {str(error).splitlines()[0]}") \
                from error
    return ray


def run_ray(task: Task, todo: list[int], address: str, workers: int | None = None) -> Chunks:
    """Yield ``(index, chunk)`` as chunks finish as Ray tasks (lost workers retried by Ray)."""
    ray = ray_init(address, num_cpus=workers)
    remote = ray.remote(max_retries=MAX_POOL_RESTARTS)(_call)
    task_ref = ray.put(task)
    refs = {remote.remote(task_ref, index): index for index in todo}
    try:
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=0.2)
            for ref in ready:
                index = refs.pop(ref)
                yield index, ray.get(ref)
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)


def _call(task: Task, index: int) -> Chunk:
    return task(index)


def run_chunks(task: Task, n_chunks: int, *, workers: int = 0, ray_address: str | None = None,
               checkpoint: Checkpoint | None = None,
               on_chunk: Callable[[int, Chunk], None] | None = None) -> list[Chunk]:
    """Every chunk's statistics in chunk order: finished chunks from ``checkpoint``, the rest computed (and
    saved there as they finish). ``on_chunk(index, chunk)`` is called for each chunk as it becomes available
    (progress)."""
    done = checkpoint.finished() if checkpoint is not None else {}
    for index, chunk in sorted(done.items()):
        if on_chunk is not None:
            on_chunk(index, chunk)
    todo = [i for i in range(n_chunks) if i not in done]
    source = run_ray(task, todo, ray_address, workers or None) if ray_address else run_local(task, todo, workers)
    # closed here, not when collected: a Ctrl-C that lands while a chunk is saved or shown leaves the runner
    # suspended at its yield, and a traceback kept by the caller would keep its workers running until exit
    with closing(source):
        for index, chunk in source:
            if checkpoint is not None:
                checkpoint.save(index, chunk)
            done[index] = chunk
            if on_chunk is not None:
                on_chunk(index, chunk)
    return [done[i] for i in range(n_chunks)]
