"""The postflop endpoints: a spot solved as ``pokerlab postflop solve --json`` within a work budget
(``POST /api/postflop``, streamed at ``/api/postflop/stream``), kept in a bounded store of finished solves and
browsed node by node without solving again (``/api/postflop/node``), stopped early and kept as far as it went
(``/api/postflop/stop``), reopened from a share link (``/api/postflop/open``), a saved solve uploaded
(``/api/postflop/load``, streamed to disk) or downloaded (``/api/postflop/file/{id}``), and the memory a spot
needs, told before it is solved (``/api/postflop/estimate``).

The store lives in the server process: a private temporary folder of ``.npz`` files (the form
``pokerlab postflop solve --out`` writes), at most :data:`STORE_SOLVES` of them and :data:`STORE_BYTES` bytes,
the least recently used dropped first. A worker writes a solve there when it finishes; a node request names the
solve by the id its answer gave, and a worker reads the file back (keeping the last one it read in memory)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import tempfile
import weakref
import zipfile
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, cast

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from pokerlab.errors import FileFormatError, InvalidArgumentError, PokerlabError, ResourceLimitError

MAX_MEMORY = 256 * 2**20
"""Solver storage one request may use (bytes)."""
MAX_UPDATES = 4_000_000_000
"""Hand-action updates one request may ask for: storage values times iterations (a turn spot of the issue's
benchmark, 2.7 M values, for about 1,480 iterations; the same in float32 and 16-bit storage)."""
STORE_SOLVES = 16
"""Finished solves the server keeps for browsing (the least recently used is dropped first)."""
STORE_BYTES = 512 * 2**20
"""Bytes of saved solves the server keeps on disk, all of them together."""
SAVE_BYTES_PER_SECOND = 20e6
"""A slow rate of writing a compressed solve, for the job's time limit only."""
CURVE_POINTS = 400
"""Most points of the exploitability curve an answer carries (thinned evenly beyond it)."""
UPLOAD_BYTES = 256 * 2**20
"""Bytes of a saved solve one upload may send (streamed to disk; the request body limit does not apply)."""
CHECK_TARGET = 1e-9
"""The target (% of the pot) a solve asked for without one runs to: the exploitability is still checked every
10 iterations, for the curve and so that Stop is seen (a spot solved that exactly stops there, as it should)."""


class PostflopRequest(BaseModel):
    """``pokerlab postflop solve --json``, and ``line``: a node to show (``"check, bet 75%"``)."""

    model_config = ConfigDict(extra="forbid")

    board: str = Field(max_length=20, examples=["Td9d6hQc2s"])
    oop: str = Field(max_length=2000)
    ip: str = Field(max_length=2000)
    pot: int
    stack: int
    bets: str = Field(default="33%,75%,a", max_length=200)
    raises: str = Field(default="2.5x,a", max_length=200)
    add_allin: float = 1.5
    force_allin: float = 0.15
    merging: float = 0.1
    raise_cap: int | None = None
    donk: bool = True
    rake: float = Field(default=0.0, description="% of the final pot")
    rake_cap: float | None = None
    target: float | None = 0.5
    iterations: int = 1000
    time: float | None = None
    line: str = Field(default="", max_length=500)
    lock: list[Annotated[str, Field(max_length=500)]] = Field(default=[], max_length=50,
                                                            description="pokerlab.postflop.lock's text form")
    compress: bool = Field(default=False, description="16-bit storage (about half the memory), not with lock")


Step = Annotated[str, Field(max_length=40)]


class PostflopNodeRequest(BaseModel):
    """One node of a stored solve: ``id`` as a solve's answer gave it, ``line`` the steps from the root, each an
    action as labelled (``"check"``, ``"bet 75"``, ``"all-in 150"``) or a card dealt (``"Qc"``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=64, examples=["3f2a9c0d1e4b5a6c7d8e9f00"])
    line: list[Step] = Field(default_factory=list, max_length=60, examples=[["check", "bet 75"]])


class PostflopKeyRequest(BaseModel):
    """A kept or running solve, by the id its answer (or its first progress line) gave."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=64, examples=["3f2a9c0d1e4b5a6c7d8e9f00"])


class PostflopOpenRequest(BaseModel):
    """A share link's solve: its ``id`` and the spot the link describes (the solve is shown only if it is of
    that spot)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, examples=["3f2a9c0d1e4b5a6c7d8e9f00"])
    spot: PostflopRequest


def _spot(params: dict[str, Any]) -> dict[str, Any]:
    keys = ("pot", "stack", "bets", "raises", "add_allin", "force_allin", "merging", "raise_cap", "donk", "rake",
            "rake_cap")
    return {k: params[k] for k in keys} | {"compress": bool(params.get("compress"))}


def _estimated_game(body: PostflopRequest) -> tuple[Any, dict[str, Any]]:
    """The spot's game, not built, and its description: every input checked (a 422 sentence), and its storage
    estimated in the mode asked (16-bit with ``compress``) against :data:`MAX_MEMORY`."""
    from pokerlab.postflop import build_game

    if body.compress and body.lock:
        raise InvalidArgumentError("compress (16-bit storage) does not support node locking: drop compress or "
                                   "the locks")
    return build_game(body.board, body.oop, body.ip, **_spot(body.model_dump()), max_memory=MAX_MEMORY,
                      build=False)


def _updates_per_iteration(game: Any) -> int:
    """Hand-action updates of one iteration (the same count in float32 or 16-bit storage, whose bytes
    differ)."""
    return int(game.estimated_updates)


def postflop_estimate(body: PostflopRequest) -> dict[str, Any]:
    """What a spot costs before it is solved: solver storage (bytes), the server's limit, and the hand-action
    updates of the iterations asked for against the server's budget; a spot over the storage limit or a bad
    input raises the same error as the solve would (422). ``compress``: the 16-bit storage's bytes (the
    updates are the same)."""
    game, spec = _estimated_game(body)
    updates = _updates_per_iteration(game) * max(body.iterations, 1)
    return {"memory_bytes": int(game.memory_bytes), "max_memory_bytes": MAX_MEMORY, "street": spec["street"],
            "board": spec["board"], "compress": body.compress, "updates": int(updates), "max_updates": MAX_UPDATES,
            "within_budget": updates <= MAX_UPDATES}


def postflop_limits(body: PostflopRequest, seconds: float) -> float:
    """Refuse (422) a spot over the budget before any work: its memory estimate and its updates; the seconds
    the job may run (the solve, and writing it to the store). ``compress``: the memory limit holds the 16-bit
    storage's estimate; a compressed spot with locks is refused."""
    game, _ = _estimated_game(body)
    if body.iterations < 1:
        raise ResourceLimitError(f"iterations must be at least 1, got {body.iterations}")
    solves = 2 if body.lock else 1  # a locked spot is solved again unlocked, for the EV gain over equilibrium
    updates = _updates_per_iteration(game) * body.iterations * solves
    if updates > MAX_UPDATES:
        what = "iterations of this tree (twice: locked and unlocked)" if body.lock else "iterations of this tree"
        raise ResourceLimitError(f"{body.iterations:,} {what} are {updates:,} updates, over this server's budget "
                                 f"of {MAX_UPDATES:,}; ask for fewer iterations, a smaller tree or narrower ranges")
    if body.time is not None and not 0 < body.time <= seconds:
        raise ResourceLimitError(f"time {body.time} is outside this server's range of (0, {seconds:g}] seconds")
    # each solve ends itself at ``seconds`` of iterations (kept, its answer says so); the rest: the first
    # iteration (kernels compiled or loaded in a fresh worker), the last exploitability, the line's node
    return solves * seconds + 30.0 + float(game.memory_bytes) / SAVE_BYTES_PER_SECOND


def spot_hash(spec: dict[str, Any]) -> str:
    """The hash of what makes a spot's game (:data:`~pokerlab.postflop.solve.SPOT_KEYS`) and its locks: two
    solves of one hash browse the same tree (how far each was solved may differ).

    >>> spot = {"board": "Kh9d5c2s2h", "oop": "QQ", "ip": "KK", "pot": 100, "stack": 150, "lock": []}
    >>> spot_hash(spot) == spot_hash({**spot, "lock": None}), spot_hash(spot) == spot_hash({**spot, "pot": 90})
    (True, False)
    """
    from pokerlab.cards.ranges import parse_range
    from pokerlab.postflop.solve import SPOT_KEYS

    game = {k: spec.get(k) for k in SPOT_KEYS} | {"lock": list(spec.get("lock") or [])}
    for player in ("oop", "ip"):  # ranges as their canonical text ("QQ, 99" and "99,QQ" are one range)
        game[player] = parse_range(str(game[player])).text
    return hashlib.sha256(json.dumps(game, sort_keys=True).encode()).hexdigest()[:32]


def requested_spot_hash(body: PostflopRequest) -> str:
    """:func:`spot_hash` of the spot a request describes, as its solve would describe it (ranges, sizes and
    locks in their canonical text)."""
    from pokerlab.postflop import build_game
    from pokerlab.postflop.lock import as_locks

    _, spec = build_game(body.board, body.oop, body.ip, **_spot(body.model_dump()), max_memory=MAX_MEMORY,
                         build=False)
    return spot_hash({**spec, "lock": [lock.text for lock in as_locks(body.lock or None)]})


class PostflopReportRequest(BaseModel):
    """``pokerlab postflop report`` on a few flops: the spot without a board, and ``flops`` (a list such as
    ``"AsKd2c 7h7d2c"`` or a subset size such as ``"5"``, at most :data:`REPORT_FLOPS` flops)."""

    model_config = ConfigDict(extra="forbid")

    oop: str = Field(max_length=2000)
    ip: str = Field(max_length=2000)
    pot: int
    stack: int
    flops: str = Field(max_length=400, examples=["AsKd2c 7h7d2c QhJh9h"])
    bets: str = Field(default="75%", max_length=200)
    raises: str = Field(default="a", max_length=200)
    donk: bool = True
    target: float | None = 1.0
    iterations: int = 200
    compress: bool = Field(default=False, description="16-bit storage (about half the memory)")


REPORT_FLOPS = 12
"""Most flops one web report may solve (the CLI's ``pokerlab postflop report`` takes any set, resumable)."""


def report_limits(body: PostflopReportRequest, seconds: float) -> float:
    """Refuse (422) a report over the budget before any work: more than :data:`REPORT_FLOPS` flops, or its
    updates (the first flop's storage values times iterations times flops) over :data:`MAX_UPDATES`; the
    seconds the job may run (the report ends itself between two flops after ``seconds``, kept so far; one flop
    may run past). ``compress``: the memory limit holds the 16-bit storage's estimate."""
    from pokerlab.postflop import build_game
    from pokerlab.postflop.flops import flop_name, parse_flops

    flops = parse_flops(body.flops)
    count = len(flops.weights)
    if count > REPORT_FLOPS:
        raise ResourceLimitError(f"{count:,} flops are over this server's limit of {REPORT_FLOPS} per report; give "
                                 "fewer, or run `pokerlab postflop report` (any set, on every core, resumable)")
    if body.iterations < 1:
        raise ResourceLimitError(f"iterations must be at least 1, got {body.iterations}")
    game, _ = build_game(flop_name(flops.cards[0]), body.oop, body.ip, pot=body.pot, stack=body.stack, bets=body.bets,
                         raises=body.raises, donk=body.donk, max_memory=MAX_MEMORY, build=False,
                         compress=body.compress)
    # the first flop's storage for every flop (an estimate: flops differ by their suit classes; estimating each
    # here would hold the server's event loop, 1.6 s for 12 flops of a wide spot on a loaded core)
    updates = _updates_per_iteration(game) * body.iterations * count
    if updates > MAX_UPDATES:
        raise ResourceLimitError(f"{body.iterations:,} iterations on {count} flops are {updates:,} updates, over "
                                 f"this server's budget of {MAX_UPDATES:,}; ask for fewer iterations or flops, a "
                                 "smaller tree or narrower ranges")
    return seconds + 120.0


def postflop_report_task(params: dict[str, Any], report: Any) -> dict[str, Any]:
    """``pokerlab postflop report --json`` on the flops asked, in this worker, one flop after another;
    ``{"flops_done", "flops"}`` progress after each; after ``budget_s`` seconds the report ends between two
    flops with the flops finished (``early`` says so), as Ctrl-C ends the CLI's."""
    import time

    from pokerlab.errors import Interrupted
    from pokerlab.postflop.report import FlopReport, flop_report

    start = time.monotonic()
    budget = float(params["budget_s"])

    def progress(done: int, total: int) -> None:
        report({"flops_done": done, "flops": total}, force=True)
        if done < total and time.monotonic() - start > budget:
            raise KeyboardInterrupt  # between two flops: the report of the finished ones is kept

    early = None
    try:
        result = flop_report(params["oop"], params["ip"], pot=params["pot"], stack=params["stack"],
                             flops=params["flops"], bets=params["bets"], raises=params["raises"],
                             donk=params["donk"], target=params.get("target"), iterations=params["iterations"],
                             workers=0, progress=progress, compress=bool(params.get("compress")))
    except Interrupted as stopped:
        result = cast("FlopReport", stopped.partial)
        early = (f"stopped early: the server's time budget of {budget:g} s ended the report after "
                 f"{len(result.rows)} of {len(result.flops.weights)} flops; the tables hold the flops finished")
    data = result.to_dict()
    data["early"] = early
    return data


# ---- the store (server process) ------------------------------------------------------------------------------

class SolveStore:
    """Finished solves on disk, by id, at most ``solves`` files and ``total_bytes`` bytes (least recently used
    out). An id is handed out first (:meth:`reserve`); its file counts once a worker has written it whole (the
    write is atomic: a temporary name, then a rename), which every call notices.

    >>> store = SolveStore(solves=1, total_bytes=10_000)
    >>> first = store.reserve(); _ = store.path(first).write_bytes(b"x" * 10)
    >>> store.get(first) == store.path(first)
    True
    >>> second = store.reserve(); _ = store.path(second).write_bytes(b"y" * 10)
    >>> store.get(second).exists(), store.path(first).exists()
    (True, False)
    >>> store.close()
    """

    def __init__(self, solves: int = STORE_SOLVES, total_bytes: int = STORE_BYTES) -> None:
        self.solves = solves
        self.total_bytes = total_bytes
        self.folder = Path(tempfile.mkdtemp(prefix="pokerlab-solves-"))
        self.kept: OrderedDict[str, int] = OrderedDict()  # id -> bytes, least recently used first
        self.pending: OrderedDict[str, None] = OrderedDict()  # ids handed out whose file may not be written yet
        self._remove = weakref.finalize(self, shutil.rmtree, self.folder, True)  # at exit, if not closed before

    def reserve(self) -> str:
        """A fresh id (unguessable: a solve is seen only by whoever was given its id)."""
        self._collect()
        key = secrets.token_hex(12)
        self.pending[key] = None
        while len(self.pending) > 4 * self.solves + 64:  # ids whose job never finished
            self.discard(next(iter(self.pending)))
        return key

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.npz"

    def get(self, key: str) -> Path:
        """The file of solve ``key``, now the most recently used; a 422 sentence when it is not (or no longer)
        kept."""
        self._collect()
        if key not in self.kept:
            raise InvalidArgumentError(
                f"this server no longer holds the solve {key[:12]!r} (it keeps the last {self.solves} solves, "
                f"{self.total_bytes / 2**20:,.0f} MiB in all, and forgets them when it restarts): solve the spot "
                "again, or load the saved file")
        self.kept.move_to_end(key)
        return self.path(key)

    def answer_path(self, key: str) -> Path:
        """The answer solve ``key`` gave (JSON), written before its file."""
        return answer_file(self.path(key))

    def stop_path(self, key: str) -> Path:
        return self.folder / f".{key}-stop"

    def stop(self, key: str) -> bool:
        """Ask the running solve ``key`` to stop where it is (it is then kept, and its answer says so): True;
        False when it has finished already; a 422 sentence when no solve of that id runs or is kept."""
        self._collect()
        if key in self.kept:
            return False
        if key not in self.pending:
            raise InvalidArgumentError(f"this server runs no solve {key[:12]!r} (it finished and was dropped, or "
                                       "the id is wrong)")
        self.stop_path(key).touch()
        return True

    def answer(self, key: str) -> dict[str, Any]:
        """The answer kept solve ``key`` gave, now the most recently used; a 422 sentence when not kept."""
        self.get(key)
        try:
            answer: dict[str, Any] = json.loads(self.answer_path(key).read_text())
        except (OSError, ValueError):
            raise InvalidArgumentError(f"this server holds no answer for the solve {key[:12]!r}: solve the spot "
                                       "again, or load the saved file") from None
        answer["id"] = key
        return answer

    def discard(self, key: str) -> None:
        """Forget ``key`` and delete its file (and a temporary file a stopped write left)."""
        self.pending.pop(key, None)
        self.kept.pop(key, None)
        self.path(key).unlink(missing_ok=True)
        for left in self.folder.glob(f".{key}-*"):
            left.unlink(missing_ok=True)

    def _collect(self) -> None:
        """Count the files written since the last call, then drop the least recently used over the bounds."""
        for key in [k for k in self.pending if self.path(k).exists()]:
            del self.pending[key]
            self.kept[key] = self.path(key).stat().st_size
        while self.kept and (len(self.kept) > self.solves or sum(self.kept.values()) > self.total_bytes):
            self.discard(next(iter(self.kept)))

    def close(self) -> None:
        """Delete every kept solve and the folder."""
        self._remove()


def check_upload(path: Path, limit: int) -> None:
    """Refuse (422) an upload (the file ``path``) that is not a zip archive or that would unpack to more than
    ``limit`` bytes of arrays (a small file of zeros may unpack to gigabytes)."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise FileFormatError("the uploaded file is not a saved postflop solve (not a .npz archive); save one with "
                              "`pokerlab postflop solve --out FILE.npz` or the page's Save button") from None
    if unpacked > limit:
        raise ResourceLimitError(f"the uploaded solve unpacks to {unpacked / 2**20:,.0f} MiB, over this server's "
                                 f"limit of {limit / 2**20:,.0f} MiB")


def upload_too_large(size: int | None, limit: int = UPLOAD_BYTES) -> str:
    """The sentence a refused upload gets (``size``: its Content-Length, None when counted as it came)."""
    shown = "more than" if size is None else f"{size:,} bytes,"
    return (f"the uploaded solve is {shown} over this server's limit of {limit:,} bytes ({limit / 2**20:,.0f} MiB); "
            "browse it with `pokerlab postflop show FILE` instead")


async def receive_upload(chunks: AsyncIterator[bytes], path: Path, limit: int = UPLOAD_BYTES) -> bool:
    """Write the body ``chunks`` to ``path`` as they arrive; False (and no file) as soon as more than ``limit``
    bytes came, before the rest is read."""
    size = 0
    try:
        with path.open("wb") as out:
            async for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    break
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if size > limit:
        path.unlink(missing_ok=True)
        return False
    return True


# ---- the tasks (worker processes) ----------------------------------------------------------------------------

_READ: OrderedDict[str, Any] = OrderedDict()
"""The solves this worker read or made last, by file (one: a solve may take up to :data:`MAX_MEMORY`)."""


def _remember(path: str, result: Any) -> None:
    _READ[path] = result
    _READ.move_to_end(path)
    while len(_READ) > 1:
        _READ.popitem(last=False)


def _stored(path: str) -> Any:
    """The solve in the store's file ``path``, read once per worker."""
    from pokerlab.postflop import load

    if path in _READ:
        _READ.move_to_end(path)
        return _READ[path]
    if not Path(path).exists():
        raise InvalidArgumentError("this server no longer holds that solve: solve the spot again, or load the "
                                   "saved file")
    result = load(path)
    _remember(path, result)
    return result


def postflop_task(params: dict[str, Any], report: Any) -> dict[str, Any]:
    """Solve the spot; the result's ``to_dict()`` plus ``node`` (the line's node, every hand), ``curve`` (the
    exploitability after each check, % of the pot; a locked spot's, not its unlocked twin's: those progress
    lines say ``unlocked``), ``spot_hash`` and ``early`` (None, or why the solve ended
    before its own stopping rules and at what exploitability). Runs to the server's ``budget_s`` seconds at most
    when the spot asks for no time. When the server gave a place in its store (``store``: ``{"id", "path",
    "stop"}``), the solve is written there with its answer, and ``id`` is its name; its first progress line is
    ``{"id"}`` (what a Stop names), and a file at ``stop`` ends the solve where it is, kept like a finished
    one."""
    from pokerlab.errors import Interrupted
    from pokerlab.postflop import PostflopResult, solve

    curve: list[dict[str, float]] = []
    store = params.get("store")
    stop = Path(store["stop"]) if store else None
    if store:
        report({"id": store["id"]}, force=True)

    twin = [False]  # a locked spot is solved again without locks (its equilibrium): not the curve's solve

    def progress(iteration: int, exploitability: float) -> None:
        twin[0] = twin[0] or bool(curve) and iteration <= curve[-1]["iteration"]
        if not twin[0]:
            curve.append({"iteration": iteration, "exploitability_percent": exploitability})
            if len(curve) > CURVE_POINTS:
                del curve[1::2]
        report({"iteration": iteration, "exploitability_percent": exploitability, "unlocked": twin[0]})
        if stop is not None and stop.exists():
            raise KeyboardInterrupt  # between two iterations: the solve wraps its state as it is

    budget = params.get("budget_s")
    seconds = params.get("time") or budget
    target = params.get("target")
    early: tuple[str, str] | None = None
    try:
        result = solve(params["board"], params["oop"], params["ip"], **_spot(params),
                       target=CHECK_TARGET if target is None else target, iterations=params["iterations"],
                       time_limit=seconds, max_memory=MAX_MEMORY, progress=progress, lock=params.get("lock") or None)
        if result.stop_reason == "time" and not params.get("time"):
            early = ("budget", f"the server's time budget of {seconds:g} s per solve ended it after "
                               f"{result.iterations:,} iterations")
    except Interrupted as stopped:  # the Stop button: what was solved is kept
        result = cast("PostflopResult", stopped.partial)
        early = ("stop", f"Stop ended it after {result.iterations:,} iterations")
        if str(stopped).startswith("interrupted while solving the unlocked spot"):
            early = ("stop", f"Stop ended the unlocked solve (for the gain over equilibrium, not shown) before it "
                             f"finished; the locked solve had run its {result.iterations:,} iterations")
    data = result.to_dict()
    data["node"] = result.node(params["line"]).to_dict(hands=True) if params.get("line") else None
    data["curve"] = curve
    data["spot_hash"] = spot_hash(result.spec)
    asked = "no target" if target is None else f"the target was {target:g}%"
    data["early"] = None if early is None else _early(early[0], early[1], result, asked)
    if store:
        Path(store["stop"]).unlink(missing_ok=True)
        _write_answer(Path(store["path"]), data)
        result.save(store["path"])
        _remember(store["path"], result)
        data["id"] = store["id"]
    return data


def _early(reason: str, why: str, result: Any, asked: str) -> dict[str, Any]:
    """How a solve that ended before its own stopping rules is described: ``reason`` (``stop``, ``budget`` or
    ``file``) and a sentence with its exploitability, computed when it stopped."""
    return {"reason": reason, "exploitability_percent": result.exploitability_percent,
            "message": f"stopped early: {why}, at an exploitability of {result.exploitability_percent:.4g}% of "
                       f"the pot (computed; {asked}). The strategy shown is the average so far, not an equilibrium"}


def answer_file(path: Path) -> Path:
    """Where the answer of the solve kept in ``path`` (``ID.npz``) is kept: ``.ID-answer.json`` beside it."""
    return path.with_name(f".{path.stem}-answer.json")


def _write_answer(path: Path, data: dict[str, Any]) -> None:
    """The answer a kept solve gave, next to its file (a share link reopens it), written atomically."""
    answer = {k: v for k, v in data.items() if k not in ("node", "id")}
    target = answer_file(path)
    part = target.with_suffix(".part")
    part.write_text(json.dumps(answer))
    os.replace(part, target)


def postflop_load_task(params: dict[str, Any], report: Any) -> dict[str, Any]:
    """Read an uploaded solve (``path`` in the store) as the solve's answer would describe it: refused in words
    when it is not a postflop solve of this version, is corrupt, or its spot is over the server's limit."""
    from pokerlab.postflop import build_game
    from pokerlab.postflop.result import load_meta

    path = params["path"]
    try:
        meta, _ = load_meta(path)
        spec = meta.get("spot")
        if not isinstance(spec, dict):
            raise FileFormatError(f"{path}: not a pokerlab postflop solve (no spot)")
        build_game(spec["board"], spec["oop"], spec["ip"], pot=spec["pot"], stack=spec["stack"], bets=spec["bets"],
                   raises=spec["raises"], donk=spec["donk"], add_allin=spec["add_allin"],
                   force_allin=spec["force_allin"], merging=spec["merging"], raise_cap=spec["raise_cap"],
                   rake=spec.get("rake"), rake_cap=spec.get("rake_cap"), max_memory=MAX_MEMORY, build=False)
        result = _stored(path)
    except PokerlabError as error:  # the library's sentence, without the server's own folder in it
        kind = FileFormatError if isinstance(error, FileFormatError) else InvalidArgumentError
        raise kind(str(error).replace(str(path), "the uploaded file")) from None
    except (KeyError, TypeError, ValueError, IndexError):
        raise FileFormatError("the uploaded file is not a saved postflop solve (its spot is incomplete or "
                              "corrupt)") from None
    data: dict[str, Any] = result.to_dict()
    data["curve"] = []
    data["spot_hash"] = spot_hash(result.spec)
    data["early"] = None
    if result.stop_reason == "interrupted":  # saved after a Stop or Ctrl-C
        data["early"] = _early("file", f"the saved solve was interrupted after {result.iterations:,} iterations",
                               result, "its target is not in the file")
    _write_answer(Path(path), data)
    data["id"] = params["id"]
    return data


_VIEWS: OrderedDict[tuple[str, tuple[str, ...]], Any] = OrderedDict()
"""Node views this worker computed last, by file and line (a view costs a pass over the node's subtree and, on
the flop, an equity over every runout; the opponent's range at a node reads the view of its last action, which
the page has usually just shown)."""
VIEWS_KEPT = 64


def postflop_node_task(params: dict[str, Any], report: Any) -> dict[str, Any]:
    """One node of a stored solve (``path``, ``line``): :func:`node_payload`, the views kept per worker."""
    path = params["path"]
    result = _stored(path)

    def view_of(steps: list[str]) -> Any:
        key = (path, tuple(steps))
        if key in _VIEWS:
            _VIEWS.move_to_end(key)
            return _VIEWS[key]
        view = _VIEWS[key] = result.node(*steps)
        while len(_VIEWS) > VIEWS_KEPT:
            _VIEWS.popitem(last=False)
        return view

    return node_payload(result, list(params["line"]), view_of)


def node_payload(result: Any, steps: list[str],
                 view_of: Callable[[list[str]], Any] | None = None) -> dict[str, Any]:
    """The page's view of the node after ``steps``: the node view (``NodeView.to_dict``), every hand of the
    player to act (``hands``: hand, class, weight, reach, strategy, EV, equity, whether it plays a locked mix),
    the 13x13 classes (weight of the node's range, its action mix, EV and equity weighted by how likely each
    hand reaches the node, how many of its combos are locked), the opponent's range there per class
    (``opponent``), and at a chance node the cards that may come (``deal``).
    ``view_of(steps)``: the node view of a line (default ``result.node``)."""
    from pokerlab.cards.classes import CLASS_NAMES, CLASS_OF_COMBO, combo_index
    from pokerlab.cards.encoding import format_card, parse_card, parse_cards

    steps = [s.strip() for step in steps for s in step.split(",") if s.strip()]  # one step per word of the line
    views: Callable[[list[str]], Any] = view_of or (lambda line: result.node(*line))
    view = views(steps)
    data: dict[str, Any] = view.to_dict()
    data["steps"] = steps
    board = parse_cards(result.spec["board"])
    dealt = [parse_card(word.split()[-1]) for word in view.line if word.split()[0] in ("turn", "river")]
    gone = set(board) | set(dealt)
    data["board"] = [format_card(c) for c in board + dealt]

    def class_of(name: str) -> int:
        first, second = parse_cards(name)
        return int(CLASS_OF_COMBO[combo_index(first, second)])

    live = _live_combos(gone)
    weight = view.weight
    rows = []
    totals: dict[int, dict[str, Any]] = {}
    for i, hand in enumerate(view.hands):
        k = class_of(hand)
        w = float(weight[i])
        strategy = view.strategy[i].tolist()
        locked = view.locked is not None and bool(view.locked[i])
        rows.append({"hand": hand, "class": CLASS_NAMES[k], "weight": w, "reach": float(view.reach[i]),
                     "strategy": strategy, "ev": _finite(view.ev[i]), "equity": _finite(view.equity[i]),
                     "locked": locked})
        t = totals.setdefault(k, {"reach": 0.0, "weight": 0.0, "mix": np.zeros(len(view.actions)), "ev": 0.0,
                                  "equity": 0.0, "valued": 0.0, "locked": 0})
        t["locked"] += locked
        t["reach"] += float(view.reach[i])
        t["weight"] += w
        t["mix"] += w * view.strategy[i]
        if w > 0 and np.isfinite(view.ev[i]) and np.isfinite(view.equity[i]):
            t["ev"] += w * float(view.ev[i])
            t["equity"] += w * float(view.equity[i])
            t["valued"] += w
    classes = {}
    for k, t in totals.items():
        classes[CLASS_NAMES[k]] = {
            "combos": live[k], "reach": t["reach"] / live[k] if live[k] else 0.0, "weight": t["weight"],
            "strategy": (t["mix"] / t["weight"]).tolist() if t["weight"] > 0 else None,
            "ev": t["ev"] / t["valued"] if t["valued"] > 0 else None,
            "equity": t["equity"] / t["valued"] if t["valued"] > 0 else None, "locked": t["locked"]}
    data["hands"] = rows
    data["classes"] = classes
    data["opponent"] = _opponent(result, steps, view, gone, live, views)
    data["deal"] = ([format_card(c) for c in range(51, -1, -1) if c not in gone] if view.kind == "chance" else [])
    return data


def _opponent(result: Any, steps: list[str], view: Any, gone: set[int], live: list[int],
              view_of: Callable[[list[str]], Any]) -> dict[str, Any]:
    """The range of the player not to act at the node: each combo's weight in the dealt range times that
    player's action frequencies along the line, combos holding a card dealt since cut; per class, the mean
    weight of its live combos (0 to 1), and the number of combos."""
    from pokerlab.cards.classes import CLASS_NAMES, CLASS_OF_COMBO, COMBOS, NUMBER_OF_COMBOS

    other = 1 - view.player
    name = ("OOP", "IP")[other]
    last = max((i for i, word in enumerate(view.line) if word.split()[0] == name), default=None)
    weights = np.zeros(NUMBER_OF_COMBOS)
    if last is None:  # no action of theirs yet: the dealt range
        weights[result.game.combos(other)] = result.game.initial_weights(other)
    else:  # their range after their last action on the line (cards and the other player's actions since leave
        # it as it was, less the combos a dealt card blocks)
        before = view_of(steps[:last])
        action = view.line[last].split(" ", 1)[1]
        weights = np.asarray(before.range(action).weights, dtype=np.float64).copy()
    for combo in range(NUMBER_OF_COMBOS):
        if weights[combo] > 0 and (int(COMBOS[combo][0]) in gone or int(COMBOS[combo][1]) in gone):
            weights[combo] = 0.0
    per_class = np.bincount(CLASS_OF_COMBO, weights=weights, minlength=len(CLASS_NAMES))
    classes = {CLASS_NAMES[k]: {"reach": float(per_class[k] / live[k]), "combos": float(per_class[k])}
               for k in range(len(CLASS_NAMES)) if per_class[k] > 0 and live[k]}
    return {"player": name, "combos": float(weights.sum()), "classes": classes}


def _live_combos(gone: set[int]) -> list[int]:
    """Per hand class, its combos that hold no card of ``gone``."""
    from pokerlab.cards.classes import CLASS_OF_COMBO, COMBOS, NUMBER_OF_CLASSES

    live = [0] * NUMBER_OF_CLASSES
    for combo, (first, second) in enumerate(COMBOS.tolist()):
        if first not in gone and second not in gone:
            live[int(CLASS_OF_COMBO[combo])] += 1
    return live


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None

