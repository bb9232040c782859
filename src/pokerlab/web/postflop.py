"""The postflop endpoints: a spot solved as ``pokerlab postflop solve --json`` within a work budget
(``POST /api/postflop``, streamed at ``/api/postflop/stream``), kept in a bounded store of finished solves and
browsed node by node without solving again (``/api/postflop/node``), a saved solve uploaded
(``/api/postflop/load``) or downloaded (``/api/postflop/file/{id}``), and the memory a spot needs, told before it
is solved (``/api/postflop/estimate``).

The store lives in the server process: a private temporary folder of ``.npz`` files (the form
``pokerlab postflop solve --out`` writes), at most :data:`STORE_SOLVES` of them and :data:`STORE_BYTES` bytes,
the least recently used dropped first. A worker writes a solve there when it finishes; a node request names the
solve by the id its answer gave, and a worker reads the file back (keeping the last one it read in memory)."""

from __future__ import annotations

import secrets
import shutil
import tempfile
import weakref
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from pokerlab.errors import FileFormatError, InvalidArgumentError, PokerlabError, ResourceLimitError

MAX_MEMORY = 256 * 2**20
"""Solver storage one request may use (bytes)."""
MAX_UPDATES = 4_000_000_000
"""Hand-action updates one request may ask for: storage values times iterations (a turn spot of the issue's
benchmark, 2.9 M values, for about 1,400 iterations)."""
STORE_SOLVES = 16
"""Finished solves the server keeps for browsing (the least recently used is dropped first)."""
STORE_BYTES = 512 * 2**20
"""Bytes of saved solves the server keeps on disk, all of them together."""
SAVE_BYTES_PER_SECOND = 20e6
"""A slow rate of writing a compressed solve, for the job's time limit only."""
CURVE_POINTS = 400
"""Most points of the exploitability curve an answer carries (thinned evenly beyond it)."""


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


Step = Annotated[str, Field(max_length=40)]


class PostflopNodeRequest(BaseModel):
    """One node of a stored solve: ``id`` as a solve's answer gave it, ``line`` the steps from the root, each an
    action as labelled (``"check"``, ``"bet 75"``, ``"all-in 150"``) or a card dealt (``"Qc"``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=64, examples=["3f2a9c0d1e4b5a6c7d8e9f00"])
    line: list[Step] = Field(default_factory=list, max_length=60, examples=[["check", "bet 75"]])


def _spot(params: dict[str, Any]) -> dict[str, Any]:
    keys = ("pot", "stack", "bets", "raises", "add_allin", "force_allin", "merging", "raise_cap", "donk", "rake",
            "rake_cap")
    return {k: params[k] for k in keys}


def postflop_estimate(body: PostflopRequest) -> dict[str, Any]:
    """What a spot costs before it is solved: solver storage (bytes), the server's limit, and the hand-action
    updates of the iterations asked for against the server's budget; a spot over the storage limit or a bad
    input raises the same error as the solve would (422)."""
    from pokerlab.postflop import build_game

    game, spec = build_game(body.board, body.oop, body.ip, **_spot(body.model_dump()), max_memory=MAX_MEMORY,
                            build=False)
    updates = game.memory_bytes // 8 * max(body.iterations, 1)
    return {"memory_bytes": int(game.memory_bytes), "max_memory_bytes": MAX_MEMORY, "street": spec["street"],
            "board": spec["board"], "updates": int(updates), "max_updates": MAX_UPDATES,
            "within_budget": updates <= MAX_UPDATES}


def postflop_limits(body: PostflopRequest, seconds: float) -> float:
    """Refuse (422) a spot over the budget before any work: its memory estimate and its updates; the seconds
    the job may run (the solve, and writing it to the store)."""
    from pokerlab.postflop import build_game

    params = body.model_dump()
    game, _ = build_game(body.board, body.oop, body.ip, **_spot(params), max_memory=MAX_MEMORY, build=False)
    if body.iterations < 1:
        raise ResourceLimitError(f"iterations must be at least 1, got {body.iterations}")
    solves = 2 if body.lock else 1  # a locked spot is solved again unlocked, for the EV gain over equilibrium
    updates = game.memory_bytes // 8 * body.iterations * solves
    if updates > MAX_UPDATES:
        what = "iterations of this tree (twice: locked and unlocked)" if body.lock else "iterations of this tree"
        raise ResourceLimitError(f"{body.iterations:,} {what} are {updates:,} updates, over this server's budget "
                                 f"of {MAX_UPDATES:,}; ask for fewer iterations, a smaller tree or narrower ranges")
    if body.time is not None and not 0 < body.time <= seconds:
        raise ResourceLimitError(f"time {body.time} is outside this server's range of (0, {seconds:g}] seconds")
    return solves * seconds + 5.0 + game.memory_bytes / SAVE_BYTES_PER_SECOND


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


def check_upload(data: bytes, limit: int) -> None:
    """Refuse (422) an upload that is not a zip archive or that would unpack to more than ``limit`` bytes of
    arrays (a small file of zeros may unpack to gigabytes)."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise FileFormatError("the uploaded file is not a saved postflop solve (not a .npz archive); save one with "
                              "`pokerlab postflop solve --out FILE.npz` or the page's Save button") from None
    if unpacked > limit:
        raise ResourceLimitError(f"the uploaded solve unpacks to {unpacked / 2**20:,.0f} MiB, over this server's "
                                 f"limit of {limit / 2**20:,.0f} MiB")


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
    exploitability after each check, % of the pot) and, when the server gave a place in its store
    (``store``: ``{"id", "path"}``), the solve written there and its ``id``."""
    from pokerlab.postflop import solve

    curve: list[dict[str, float]] = []

    def progress(iteration: int, exploitability: float) -> None:
        curve.append({"iteration": iteration, "exploitability_percent": exploitability})
        if len(curve) > CURVE_POINTS:
            del curve[1::2]
        report({"iteration": iteration, "exploitability_percent": exploitability})

    result = solve(params["board"], params["oop"], params["ip"], **_spot(params), target=params.get("target"),
                   iterations=params["iterations"], time_limit=params.get("time"), max_memory=MAX_MEMORY,
                   progress=progress, lock=params.get("lock") or None)
    data = result.to_dict()
    data["node"] = result.node(params["line"]).to_dict(hands=True) if params.get("line") else None
    data["curve"] = curve
    store = params.get("store")
    if store:
        result.save(store["path"])
        _remember(store["path"], result)
        data["id"] = store["id"]
    return data


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

