"""The shipped full-ring charts: their file (package data), its version check, and reading a chart.

The file (``data/fullring_charts.npz``, built by ``scripts/build_fullring_charts.py``) holds every solved spot
of :mod:`pokerlab.pushfold.fullring` with jam and call probabilities quantised to ``1 / 200`` (uint8; 255 where
the seat has no such decision), each seat's best-response gain and chip EV (float32, bb), the iterations and
CPU seconds, and a JSON header: the format, the code version (:data:`CODE_VERSION`: the digest of the chart
model's sources), the target, the sampled tables' sizes and seed, and the SHA-256 of the arrays (the content
hash). A file of another format or code version is refused (:class:`ChartVersionError`), never read silently.

Beside it, ``data/fullring_real_game.npz`` holds each spot's chart valued in the real game as a player plays it
(measured by :mod:`pokerlab.pushfold.fullring_real`, read by :func:`shipped_real_game`): it names the chart file's
content hash and the code that measured it, and is not used for other charts or code (the reader says why).

>>> chart = full_ring_chart(3, 10, "none")
>>> chart.depth_bb, chart.jam.shape, chart.seats
(10.0, (3, 169), ('BTN', 'SB', 'BB'))
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from pokerlab.cards.classes import NUMBER_OF_CLASSES
from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.games.pushfold import seat_names
from pokerlab.games.pushfold.pot_tables import BANK_DEALS, TABLE_SEED, TRIPLE_DEALS
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fullring import ANTES, CHART_TARGET, HEADS_UP_CHART_TARGET, ChartSpot, check_spot

CHART_FORMAT = "pokerlab-fullring-charts-v1"
CHART_FILE = Path(__file__).resolve().parent.parent / "data" / "fullring_charts.npz"
MODEL_SOURCES = ("pushfold/fullring.py", "games/pushfold/joint.py", "games/pushfold/pot_tables.py",
                 "games/pushfold/game.py", "games/pushfold/rules.py")
"""The sources that define a chart's game and its solve (the generic vector-form solver is held to the same
charts by the test that solves sampled spots afresh)."""
LEVELS = 200
ARRAYS = ("key", "jam", "call", "gains", "values", "iterations", "cpu_s")  # a chart file's arrays, by name
NO_DECISION = 255
MAX_SEATS = 10


class ChartVersionError(FileFormatError):
    """A chart file of another format or code version than this pokerlab's."""


def code_version() -> str:
    """The digest of :data:`MODEL_SOURCES` (16 hex digits)."""
    return sources_digest(MODEL_SOURCES)


def quantise(probabilities: np.ndarray) -> np.ndarray:
    """Probabilities (NaN: no decision) as uint8 steps of ``1 / 200`` (255 for NaN).

    >>> quantise(np.array([0.0, 0.5, 1.0, np.nan])).tolist()
    [0, 100, 200, 255]
    """
    out = np.full(probabilities.shape, NO_DECISION, dtype=np.uint8)
    known = ~np.isnan(probabilities)
    out[known] = np.rint(np.clip(probabilities[known], 0.0, 1.0) * LEVELS).astype(np.uint8)
    return out


def dequantise(steps: np.ndarray) -> np.ndarray:
    """The inverse of :func:`quantise` (within ``1 / 400``)."""
    return np.where(steps == NO_DECISION, np.nan, steps.astype(np.float64) / LEVELS)


def _content_hash(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def spot_arrays(keys: Sequence[Sequence[float]], spots: Sequence[ChartSpot]) -> dict[str, np.ndarray]:
    """The file arrays of ``spots`` (row ``i``: key ``keys[i]``), probabilities quantised (:data:`ARRAYS`)."""
    count = len(spots)
    jam = np.full((count, MAX_SEATS, NUMBER_OF_CLASSES), NO_DECISION, dtype=np.uint8)
    call = np.full((count, MAX_SEATS, MAX_SEATS, NUMBER_OF_CLASSES), NO_DECISION, dtype=np.uint8)
    gains = np.zeros((count, MAX_SEATS), dtype=np.float32)
    values = np.zeros((count, MAX_SEATS), dtype=np.float32)
    iterations = np.zeros(count, dtype=np.int32)
    cpu = np.zeros(count, dtype=np.float32)
    for i, spot in enumerate(spots):
        n = spot.seats
        jam[i, :n] = quantise(spot.jam)
        call[i, :n, :n] = quantise(spot.call)
        gains[i, :n] = spot.gains
        values[i, :n] = spot.values
        iterations[i] = spot.iterations
        cpu[i] = spot.cpu_s
    return {"key": np.array(keys, dtype=np.float64).reshape(count, -1), "jam": jam, "call": call, "gains": gains,
            "values": values, "iterations": iterations, "cpu_s": cpu}


def save_chart_file(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Write a chart file atomically and compressed, its header given the arrays' content hash; returns it."""
    header = {**header, "content_sha256": _content_hash(arrays)}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(temporary, header=np.array(json.dumps(header, sort_keys=True)), **arrays)  # type: ignore[arg-type]
    temporary.replace(path)
    return header


def write_charts(spots: Iterable[ChartSpot], path: Path = CHART_FILE) -> dict[str, Any]:
    """Write ``spots`` as a chart file (atomically, compressed) and return its header."""
    ordered = sorted(spots, key=lambda s: (s.seats, list(ANTES).index(s.ante), s.depth_bb))
    arrays = spot_arrays([(s.seats, s.depth_bb, list(ANTES).index(s.ante)) for s in ordered], ordered)
    header = {"format": CHART_FORMAT, "code_version": code_version(),
              "target_bb": {"heads_up": HEADS_UP_CHART_TARGET, "multiway": CHART_TARGET},
              "triple_deals": TRIPLE_DEALS, "bank_deals": BANK_DEALS, "tables_seed": TABLE_SEED,
              "antes": list(ANTES), "spots": len(ordered),
              "quantisation": f"jam and call probabilities in steps of 1/{LEVELS} (uint8, rounded to the nearest "
                              f"step, so within 1/{2 * LEVELS}; {NO_DECISION}: no such decision)",
              "model": "chip EV; card removal joint among the players in the pot, folded hands ignored"}
    return save_chart_file(path, header, arrays)


@dataclass(frozen=True)
class ChartFile:
    """A chart file read and checked (see the module docstring); ``overcalls``: the over-call ranges its readers
    play (None: the shipped chip-EV file's where it is of this chart file, :func:`overcalls_of`)."""

    header: dict[str, Any]
    key: np.ndarray
    jam: np.ndarray
    call: np.ndarray
    gains: np.ndarray
    values: np.ndarray
    iterations: np.ndarray
    cpu_s: np.ndarray
    overcalls: OvercallFile | None = None


def load_data_file(path: Path, names: Sequence[str], what: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A package-data file's JSON header and its arrays ``names``; :class:`~pokerlab.errors.FileFormatError` (naming
    ``what`` file) if it cannot be read."""
    try:
        with np.load(path) as stored:
            return json.loads(str(stored["header"])), {name: stored[name] for name in names}
    except (OSError, KeyError, ValueError) as error:
        raise FileFormatError(f"cannot read the {what} file {path}: {error}") from None


def read_chart_file(path: Path, chart_format: str, version: str, what: str, script: str) -> ChartFile:
    """Read a chart file of ``chart_format`` built by code ``version``; :class:`ChartVersionError` if it is of
    another format or code version (or its content hash does not match), :class:`~pokerlab.errors.FileFormatError`
    if it cannot be read. ``what`` names the file and ``script`` the builder in the messages."""
    rebuild = f"rebuild it with {script}"
    header, arrays = load_data_file(path, ARRAYS, what)
    if header.get("format") != chart_format:
        raise ChartVersionError(f"{path} is a chart file of format {header.get('format')!r}, this pokerlab reads "
                                f"{chart_format!r}: {rebuild}")
    if header.get("code_version") != version:
        raise ChartVersionError(f"{path} was built by {what} code {header.get('code_version')}, this pokerlab's is "
                                f"{version}: {rebuild}")
    if header.get("content_sha256") != _content_hash(arrays):
        raise ChartVersionError(f"{path}: its content hash does not match its header (a damaged or edited file): "
                                f"{rebuild}")
    return ChartFile(header, arrays["key"], arrays["jam"], arrays["call"], arrays["gains"], arrays["values"],
                     arrays["iterations"], arrays["cpu_s"])


def read_charts(path: Path = CHART_FILE) -> ChartFile:
    """Read a chart file; :class:`ChartVersionError` if it is of another format or code version (or its content
    hash does not match), :class:`~pokerlab.errors.FileFormatError` if it cannot be read."""
    return read_chart_file(path, CHART_FORMAT, code_version(), "full-ring chart", "scripts/build_fullring_charts.py")


def spot_row(key: np.ndarray, seats: int, depth_bb: float, ante: str) -> int | None:
    """The row of a file's ``key`` (seats, depth, ante index per row) holding the spot (None: not in the file).

    >>> charts = shipped_charts()
    >>> row = spot_row(charts.key, 9, 10.0, "none")
    >>> charts.key[row].tolist(), spot_row(charts.key, 9, 10.25, "none")
    ([9.0, 10.0, 0.0], None)
    """
    found = np.flatnonzero((key[:, 0] == seats) & (key[:, 1] == depth_bb) & (key[:, 2] == list(ANTES).index(ante)))
    return int(found[0]) if found.size else None


def spot_digest(charts: ChartFile, row: int) -> str:
    """What one spot of a chart file is, whatever else the file holds: the SHA-256 of its key and its arrays but the
    machine's CPU time (so a measurement or over-call ranges made on a spot stay valid when other spots are added).

    >>> charts = shipped_charts()
    >>> spot_digest(charts, 0) == spot_digest(charts, 0) != spot_digest(charts, 1)
    True
    """
    return _content_hash({name: getattr(charts, name)[row] for name in ARRAYS if name != "cpu_s"})


@lru_cache(maxsize=1)
def shipped_charts() -> ChartFile:
    """The package's chart file, read and checked once per process."""
    return read_charts(CHART_FILE)


@dataclass(frozen=True)
class FullRingChart:
    """One spot's chart: ``jam[seat]`` first-in jam and ``call[caller, jammer]`` lone-jam call probabilities per
    class (NaN where the seat has no such decision); ``depth_bb`` the shipped depth used, ``asked_bb`` the
    depth asked (the nearest shipped depth is used; ``exact`` when they are equal); ``gains`` each seat's
    best-response gain (bb) in the chart model, ``values`` its chip EV (bb); ``overcall[caller, jammer,
    first_caller]`` the probability of calling facing a jam and a call (NaN where there is none; None: the spot's
    over-call ranges are not shipped, :func:`shipped_overcalls`); ``overcalls_withheld``: not shipped by
    :func:`overcalls_withheld`'s rule (a player calls a jam and a call by the lone-jam chart there)."""

    seats: tuple[str, ...]
    ante: str
    depth_bb: float
    asked_bb: float
    jam: np.ndarray
    call: np.ndarray
    gains: np.ndarray
    values: np.ndarray
    overcall: np.ndarray | None = None
    overcalls_withheld: bool = False

    @property
    def exact(self) -> bool:
        return self.depth_bb == self.asked_bb

    def to_dict(self, overcalls: bool = False) -> dict[str, Any]:
        """The chart as JSON; ``overcall`` ranges (keyed ``"BB vs UTG and CO"``: caller, jammer, first caller) only
        with ``overcalls``, and where shipped (``overcalls_shipped``)."""
        from pokerlab.cards.classes import CLASS_NAMES  # noqa: PLC0415 (a constant of a lower layer)

        def by_class(p: np.ndarray) -> dict[str, float]:
            return {name: round(float(x), 4) for name, x in zip(CLASS_NAMES, p, strict=True)}

        n = len(self.seats)
        out = {"seats": list(self.seats), "ante": self.ante, "depth_bb": self.depth_bb, "asked_bb": self.asked_bb,
               "jam": {self.seats[s]: by_class(self.jam[s]) for s in range(n) if not np.isnan(self.jam[s, 0])},
               "call": {f"{self.seats[c]} vs {self.seats[j]}": by_class(self.call[c, j])
                        for c in range(n) for j in range(n) if not np.isnan(self.call[c, j, 0])},
               "gains_bb": [float(g) for g in self.gains], "values_bb": [float(v) for v in self.values],
               "overcalls_shipped": self.overcall is not None or n < 3,
               "overcalls_withheld": self.overcalls_withheld}
        if self.overcalls_withheld:
            out["overcalls_why"] = OVERCALLS_WITHHELD_WHY
        if overcalls and self.overcall is not None:
            names = self.seats
            out["overcall"] = {f"{names[c]} vs {names[j]} and {names[f]}": by_class(self.overcall[c, j, f])
                               for c, j, f in overcall_triples(n)}
        return out


ANTE_SPELLINGS = {"0": "none", "0%": "none", "no": "none", "10%": "10", "12.5%": "12.5", "big-blind": "bb",
                  "bba": "bb"}
"""Other spellings of the chart ante rules (:data:`~pokerlab.pushfold.fullring.ANTES`) taken from users."""


def ante_rule(text: object) -> str:
    """The chart ante rule (a key of :data:`~pokerlab.pushfold.fullring.ANTES`) that ``text`` names, allowing
    the spellings of :data:`ANTE_SPELLINGS` (``10%``, ``0``, ``bba``); else
    :class:`~pokerlab.errors.InvalidArgumentError`.

    >>> ante_rule("12.5%"), ante_rule("0"), ante_rule("BB")
    ('12.5', 'none', 'bb')
    """
    name = str(text).strip().lower()
    name = ANTE_SPELLINGS.get(name, name)
    if name not in ANTES:
        raise InvalidArgumentError(f"ante rule must be one of {', '.join(ANTES)} (10 and 12.5: that percent of the "
                                   f"big blind from every seat, also written 10%, 12.5%; bb: a big-blind ante), "
                                   f"got {text!r}")
    return name


def available_depths(seats: int, ante: str, charts: ChartFile | None = None) -> np.ndarray:
    """The shipped depths (bb, increasing) of ``seats`` seats with ante rule ``ante``."""
    charts = charts if charts is not None else shipped_charts()
    rows = (charts.key[:, 0] == seats) & (charts.key[:, 2] == list(ANTES).index(ante_rule(ante)))
    return np.sort(charts.key[rows, 1])


def full_ring_chart(seats: int, depth_bb: float, ante: str = "none", charts: ChartFile | None = None
                    ) -> FullRingChart:
    """The shipped chart of ``seats`` (2-10) equal stacks of ``depth_bb`` big blinds with ante rule ``ante``
    (``none``, ``10``, ``12.5``, ``bb``: see :data:`~pokerlab.pushfold.fullring.ANTES`), at the nearest shipped
    depth (the deeper one on a tie; ``depth_bb`` and ``asked_bb`` say which). Raises
    :class:`~pokerlab.errors.InvalidArgumentError` for seats or an ante rule with no shipped chart."""
    ante = ante_rule(ante)
    if not isinstance(seats, int | np.integer) or not 2 <= int(seats) <= MAX_SEATS:
        raise InvalidArgumentError(f"full-ring charts have 2 to 10 seats, got {seats!r}")
    asked = float(depth_bb)
    if not np.isfinite(asked) or asked <= 0:
        raise InvalidArgumentError(f"depth must be a positive number of big blinds, got {depth_bb!r}")
    charts = charts if charts is not None else shipped_charts()
    depths = available_depths(int(seats), ante, charts)
    if depths.size == 0 and ANTES[ante][1] > 0 and int(seats) > 2:
        raise InvalidArgumentError(
            f"no shipped full-ring chart for {seats} seats with a big-blind ante: those charts are heads-up only "
            "(the big blind's ante is dead money, so a 3+ way all-in has a side pot, which the chart model does "
            "not value); solve such a table with pokerlab.pushfold.pushfold")
    if depths.size == 0:
        raise InvalidArgumentError(f"no shipped full-ring chart for {seats} seats with ante rule {ante}")
    nearest = float(depths[np.argmin(np.abs(depths - asked) - 1e-9 * depths)])
    row = int(np.flatnonzero((charts.key[:, 0] == seats) & (charts.key[:, 1] == nearest)
                             & (charts.key[:, 2] == list(ANTES).index(ante)))[0])
    n = int(seats)
    return FullRingChart(seat_names(n), ante, nearest, asked, dequantise(charts.jam[row, :n]),
                         dequantise(charts.call[row, :n, :n]), charts.gains[row, :n].astype(np.float64),
                         charts.values[row, :n].astype(np.float64), _overcall_of(charts, n, nearest, ante),
                         bool(overcalls_withheld(charts, [row])[0]))


def overcall_triples(seats: int) -> list[tuple[int, int, int]]:
    """Every ``(caller, jammer, first caller)`` of a spot of ``seats`` seats, in the file's row order.

    >>> overcall_triples(4)
    [(2, 0, 1), (3, 0, 1), (3, 0, 2), (3, 1, 2)]
    """
    return [(c, j, f) for c in range(seats) for f in range(c) for j in range(f)]


@njit(cache=True)
def overcall_index(caller: int, jammer: int, first_caller: int) -> int:
    """The row of position ``caller``'s range facing a jam by ``jammer`` and a call by ``first_caller`` among a
    spot's over-call rows (``jammer < first_caller < caller``): rows ordered by caller, then first caller, then
    jammer (:func:`overcall_triples`' order).

    >>> overcall_index(3, 0, 1), overcall_index(9, 7, 8), overcall_rows_count(10)
    (1, 119, 120)
    """
    return (caller * (caller - 1) * (caller - 2)) // 6 + (first_caller * (first_caller - 1)) // 2 + jammer


def _overcall_of(charts: ChartFile, seats: int, depth_bb: float, ante: str) -> np.ndarray | None:
    """A spot's over-call ranges as ``[caller, jammer, first caller]`` probabilities from the shipped over-call file
    (None where it holds none for ``charts``)."""
    steps = overcalls_of(charts).steps_of(seats, depth_bb, ante)
    if steps is None:
        return None
    out = np.full((seats, seats, seats, NUMBER_OF_CLASSES), np.nan)
    for r, (c, j, f) in enumerate(overcall_triples(seats)):
        out[c, j, f] = dequantise(steps[r])
    return out


@dataclass(frozen=True)
class FullRingTable:
    """Charts of one seat count and ante rule over several shipped depths: ``charts`` in increasing depth;
    ``jam_depth[seat]``: per class the largest of those depths at which the seat jams first in with probability
    at least 1/2 (0: at none; NaN: the seat never has the decision); ``call_depth[caller, jammer]`` the same for
    calling a lone jam; ``overcall_depth[caller, jammer, first caller]`` for calling a jam and a call as a player
    does (None unless every chart's over-call ranges are shipped or withheld: at a depth whose ranges are withheld,
    the lone-jam call ``call[caller, jammer]``, which a player reads there)."""

    charts: tuple[FullRingChart, ...]
    jam_depth: np.ndarray
    call_depth: np.ndarray
    asked: tuple[tuple[float, float], ...] = ()
    """``(asked depth, shipped depth used)`` per depth asked, in the order asked."""
    overcall_depth: np.ndarray | None = None

    @property
    def depths(self) -> tuple[float, ...]:
        return tuple(c.depth_bb for c in self.charts)

    def not_shipped(self) -> list[tuple[float, float, str]]:
        """``(asked, used, why)`` for each depth asked without a shipped chart of its own: ``why`` says whether
        no chart can exist there (a stack all in by posting its blind and ante) or it is not built yet."""
        out = []
        for asked, used in self.asked:
            if asked == used:
                continue
            try:
                check_spot(len(self.charts[0].seats), asked, self.charts[0].ante)
                why = "not built"
            except InvalidArgumentError:
                why = ("no chart: a stack this short is all in by posting" if asked < 10
                       else "no chart: deeper than the chart model takes (1,000 bb)")
            out.append((asked, used, why))
        return out

    def to_dict(self, overcalls: bool = False) -> dict[str, Any]:
        """The charts as JSON (:meth:`FullRingChart.to_dict`; their over-call ranges with ``overcalls``)."""
        return {"model": shipped_model(), "charts": [c.to_dict(overcalls) for c in self.charts],
                "asked": [{"asked_bb": a, "depth_bb": u} for a, u in self.asked],
                "not_shipped": [{"asked_bb": a, "depth_bb": u, "why": why} for a, u, why in self.not_shipped()]}

    def csv_rows(self, overcalls: bool = False) -> list[tuple[str, str, float, str, float]]:
        """``(seat, action, depth, class, probability)`` rows: action ``jam``, ``call <jammer>`` or (with
        ``overcalls``, where shipped) ``call <jammer> and <first caller>``."""
        from pokerlab.cards.classes import CLASS_NAMES  # noqa: PLC0415 (a constant of a lower layer)

        rows: list[tuple[str, str, float, str, float]] = []

        def add(chart: FullRingChart, seat: int, action: str, row: np.ndarray) -> None:
            rows.extend((chart.seats[seat], action, chart.depth_bb, name, float(p))
                        for name, p in zip(CLASS_NAMES, row, strict=True))

        for chart in self.charts:
            n, names = len(chart.seats), chart.seats
            for s in range(n):
                if not np.isnan(chart.jam[s, 0]):
                    add(chart, s, "jam", chart.jam[s])
                for j in range(n):
                    if not np.isnan(chart.call[s, j, 0]):
                        add(chart, s, f"call {names[j]}", chart.call[s, j])
            if overcalls and chart.overcall is not None:
                for c, j, f in overcall_triples(n):
                    add(chart, c, f"call {names[j]} and {names[f]}", chart.overcall[c, j, f])
        return rows


def shipped_model() -> dict[str, Any]:
    """What the shipped charts are: the file's header (model, code version, content hash, target)."""
    return dict(shipped_charts().header)


def full_ring_table(seats: int, ante: str, depths: Iterable[float], charts: ChartFile | None = None
                    ) -> FullRingTable:
    """The shipped charts nearest to each of ``depths`` (each shipped depth once), with the largest depths at
    which each class jams or calls (see :class:`FullRingTable`)."""
    charts = charts if charts is not None else shipped_charts()
    chosen: dict[float, FullRingChart] = {}
    asked = []
    for depth in depths:
        chart = full_ring_chart(seats, depth, ante, charts)
        chosen.setdefault(chart.depth_bb, chart)
        asked.append((chart.asked_bb, chart.depth_bb))
    ordered = tuple(chosen[d] for d in sorted(chosen))
    jam = np.stack([c.jam for c in ordered])
    call = np.stack([c.call for c in ordered])
    levels = np.array([c.depth_bb for c in ordered])

    def largest(probabilities: np.ndarray) -> np.ndarray:
        # probabilities: (depths, ..., 169) -> (..., 169)
        playing = probabilities >= 0.5
        at = np.where(playing, levels.reshape((-1,) + (1,) * (probabilities.ndim - 1)), 0.0).max(axis=0)
        return np.where(np.isnan(probabilities).all(axis=0), np.nan, at)

    played = [c.overcall if c.overcall is not None else _lone_jam_reading(c) for c in ordered
              if c.overcall is not None or c.overcalls_withheld]
    over = largest(np.stack(played)) if len(played) == len(ordered) else None
    return FullRingTable(ordered, largest(jam), largest(call), tuple(asked), over)


def _lone_jam_reading(chart: FullRingChart) -> np.ndarray:
    """``[caller, jammer, first caller]``: the lone-jam call ``call[caller, jammer]`` where a first caller exists (a
    position between the jammer and the caller), NaN elsewhere: how a player calls a jam and a call at a spot whose
    over-call ranges are withheld."""
    n = len(chart.seats)
    out = np.full((n, n, n, NUMBER_OF_CLASSES), np.nan)
    for c, j, f in overcall_triples(n):
        out[c, j, f] = chart.call[c, j]
    return out


# ---- the over-call ranges of the shipped charts (computed by pokerlab.pushfold.fullring_overcalls) ----

OVERCALL_FORMAT = "pokerlab-fullring-overcalls-v1"
OVERCALL_FILE = CHART_FILE.with_name("fullring_overcalls.npz")
OVERCALL_ARRAYS = ("key", "start", "rows")
OVERCALL_RULE = ("facing a jam and a call: the over-call range of (caller, jammer, first caller); facing three or "
                 "more all-ins: the range facing the first two")
"""How a chart's player uses the over-call ranges, in words."""


OVERCALL_SHORT_BB = 10.0
"""Below this depth, a spot whose chart solve stopped above its target ships no over-call ranges
(:func:`overcalls_withheld`)."""
OVERCALLS_WITHHELD_WHY = (f"this spot's over-call ranges are withheld: below {OVERCALL_SHORT_BB:g} bb a spot whose "
                          "solve stopped above its target has its least converged nodes there, and read with them its "
                          "charts measure worse in the real game than calling a jam and a call by the lone-jam chart")
"""Why a chart's over-call ranges are withheld, in words (the chart JSON's ``overcalls_why``)."""


def overcalls_withheld(charts: ChartFile, rows: Sequence[int] | None = None) -> np.ndarray:
    """Per row of ``charts`` (``rows`` of it, or every row), whether its spot's over-call ranges are left out of the
    over-call file: 3+ seats, shallower than :data:`OVERCALL_SHORT_BB` and a stored gain above the multiway target
    (the solve stopped at its iteration cap). At those spots CFR stalls at the over-call nodes (docs/algorithms.md,
    "How far the model is from the real game"), and measured in the real game (200,000 joint deals, cross-fitted)
    the charts read with their over-call ranges were worse than read with the lone-jam chart at 65 of the 95 such
    spots of 3-8 seats, better at 16; from 10 bb up such spots' over-call ranges were better at 30 of 37, worse at
    none (see docs/algorithms.md, "Over-call ranges"). A player at a withheld spot calls a jam and a call by the
    lone-jam chart. A chart file with no multiway chip-EV target (the ICM charts: none of theirs above its target is
    shallower than 20 bb) withholds none.

    >>> charts = shipped_charts()
    >>> withheld = overcalls_withheld(charts)
    >>> bool(withheld[(charts.key[:, 0] >= 3) & (charts.key[:, 1] >= OVERCALL_SHORT_BB)].any())
    False
    """
    key, gains = (charts.key, charts.gains) if rows is None else (charts.key[list(rows)], charts.gains[list(rows)])
    seats = key[:, 0].astype(np.int64)
    target = charts.header.get("target_bb", {}).get("multiway")
    if target is None:
        return np.zeros(seats.size, dtype=bool)
    mask = np.arange(gains.shape[1])[None, :] < seats[:, None]
    largest = np.where(mask, gains, -np.inf).max(axis=1)
    withheld: np.ndarray = (seats >= 3) & (key[:, 1] < OVERCALL_SHORT_BB) & (largest > float(target))
    return withheld


def overcall_rows_count(seats: int) -> int:
    """Over-call ranges of a spot of ``seats`` seats: one per (jammer, first caller, caller), ``C(seats, 3)``."""
    return seats * (seats - 1) * (seats - 2) // 6


def write_overcalls(charts: ChartFile, rows: dict[int, np.ndarray], path: Path = OVERCALL_FILE,
                    version: str | None = None) -> dict[str, Any]:
    """Write the over-call ranges ``rows[i]`` (probabilities, ``float[C(n, 3), 169]``) of row ``i`` of ``charts``
    (any subset of its spots of 3+ seats) atomically and compressed, stamped with the code ``version`` of the
    charts' model (default :func:`code_version`); returns the header."""
    order = sorted(rows)
    counts = [overcall_rows_count(int(charts.key[i, 0])) for i in order]
    for i, count in zip(order, counts, strict=True):
        if rows[i].shape != (count, NUMBER_OF_CLASSES) or count == 0:
            raise ValueError(f"chart row {i} ({int(charts.key[i, 0])} seats) needs {count} over-call rows of "
                             f"{NUMBER_OF_CLASSES} classes, got {rows[i].shape}")
    arrays = {"key": charts.key[order].reshape(len(order), -1).copy(),
              "start": np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
              "rows": quantise(np.concatenate([rows[i] for i in order]) if order
                               else np.zeros((0, NUMBER_OF_CLASSES)))}
    header = {"format": OVERCALL_FORMAT, "code_version": code_version() if version is None else version,
              "chart_content_sha256": charts.header["content_sha256"], "spots": len(order), "rule": OVERCALL_RULE,
              "withheld": f"the spots overcalls_withheld selects: {OVERCALLS_WITHHELD_WHY}",
              "layout": "spot s's ranges are rows[start[s]:start[s + 1]], row C(caller, 3) + C(first caller, 2) + "
                        "jammer for positions jammer < first caller < caller",
              "quantisation": f"call probabilities in steps of 1/{LEVELS} (uint8)"}
    return save_chart_file(path, header, arrays)


@dataclass(frozen=True)
class OvercallFile:
    """The over-call ranges of the shipped charts' spots (``key`` as the chart file's, ``rows[start[s]:start[s +
    1]]`` spot ``s``'s, quantised), or why there are none (``reason``)."""

    header: dict[str, Any]
    key: np.ndarray
    start: np.ndarray
    rows: np.ndarray
    reason: str = ""

    def steps_of(self, seats: int, depth_bb: float, ante: str) -> np.ndarray | None:
        """The quantised over-call rows of a spot (None: not in the file, or the file is not used)."""
        s = None if self.reason else spot_row(self.key, seats, depth_bb, ante)
        return None if s is None else self.rows[self.start[s]:self.start[s + 1]]

    def chart_starts(self, charts: ChartFile) -> np.ndarray:
        """Per row of ``charts``, the first of its over-call rows in :attr:`rows` (-1: none)."""
        out = np.full(charts.key.shape[0], -1, dtype=np.int64)
        if self.reason:
            return out
        index = {tuple(k): s for s, k in enumerate(self.key.tolist())}
        for i, k in enumerate(charts.key.tolist()):
            s = index.get(tuple(k))
            if s is not None:
                out[i] = self.start[s]
        return out

    def seat_counts(self) -> list[int]:
        """The seat counts of the spots the file holds."""
        return sorted({int(s) for s in self.key[:, 0]}) if not self.reason else []

    def subset(self, spots: np.ndarray) -> OvercallFile:
        """The ranges of the spots ``spots`` (a mask over :attr:`key`'s rows), keyed by the seats, depth and ante
        columns (an ICM file's spots of one stage, keyed as a chip-EV file's)."""
        if self.reason:
            return self
        chosen = np.flatnonzero(spots)
        counts = self.start[chosen + 1] - self.start[chosen]
        rows = (np.concatenate([self.rows[self.start[s]:self.start[s + 1]] for s in chosen]) if chosen.size
                else self.rows[:0])
        return OvercallFile(self.header, self.key[chosen, :3], np.concatenate([[0], np.cumsum(counts)]), rows)


def no_overcalls(reason: str) -> OvercallFile:
    """An over-call file holding no ranges, and ``reason`` why (a chart's players then call a jam and calls by the
    lone-jam chart)."""
    empty = np.zeros((0, 3))
    return OvercallFile({}, empty, np.zeros(1, dtype=np.int64), np.zeros((0, NUMBER_OF_CLASSES), dtype=np.uint8),
                        reason)


def read_overcalls(path: Path, charts: ChartFile, version: str | None = None,
                   rebuild: str = "run scripts/build_fullring_overcalls.py") -> OvercallFile:
    """Read an over-call file of ``charts`` (whose model's code version is ``version``, default
    :func:`code_version`); one of another format, code version or chart file (or whose content hash does not
    match) comes back with its ``reason`` (ending in ``rebuild``) and no ranges;
    :class:`~pokerlab.errors.FileFormatError` if it cannot be read."""
    header, arrays = load_data_file(path, OVERCALL_ARRAYS, "full-ring over-call")
    version = code_version() if version is None else version
    if header.get("format") != OVERCALL_FORMAT or header.get("code_version") != version:
        return no_overcalls(f"built by other code ({header.get('code_version')}, this pokerlab's is "
                            f"{version}): {rebuild}")
    if header.get("chart_content_sha256") != charts.header["content_sha256"]:
        return no_overcalls(f"built for another chart file: {rebuild}")
    if header.get("content_sha256") != _content_hash(arrays):
        return no_overcalls(f"its content hash does not match its header (a damaged or edited file): {rebuild}")
    return OvercallFile(header, arrays["key"], arrays["start"], arrays["rows"])


@lru_cache(maxsize=1)
def shipped_overcalls() -> OvercallFile:
    """The package's over-call file, read once per process (a missing file: no ranges, and why)."""
    return overcalls_if_built(OVERCALL_FILE, lambda path: read_overcalls(path, shipped_charts()), "")


def overcalls_if_built(path: Path, read: Callable[[Path], OvercallFile], option: str) -> OvercallFile:
    """``read(path)``, or where the package has no such file no ranges and why (``option``: the over-call
    builder's mode that writes it)."""
    if not path.exists():
        return no_overcalls(f"no over-call file {path.name}: run scripts/build_fullring_overcalls.py{option}")
    return read(path)


def overcalls_of(charts: ChartFile) -> OvercallFile:
    """The over-call ranges ``charts`` carries (:attr:`ChartFile.overcalls`), else the shipped ones if they are of
    ``charts``, else none and why (that file's players then call a jam and calls by the lone-jam chart)."""
    return charts.overcalls if charts.overcalls is not None else overcalls_for(charts, shipped_overcalls())


def overcalls_for(charts: ChartFile, shipped: OvercallFile) -> OvercallFile:
    """``shipped`` if it holds the over-call ranges of ``charts``, else none and why."""
    if shipped.reason or shipped.header["chart_content_sha256"] != charts.header["content_sha256"]:
        return no_overcalls(shipped.reason or "the shipped over-call ranges are of another chart file")
    return shipped


# ---- the shipped charts valued in the real game (measured by pokerlab.pushfold.fullring_real) ----

REAL_GAME_FORMAT = "pokerlab-fullring-real-game-v1"
REAL_GAME_FILE = CHART_FILE.with_name("fullring_real_game.npz")
REAL_GAME_SOURCES = ("pushfold/real_game.py", "pushfold/fullring_real.py")
"""The sources that make a real-game measurement (the joint-deal check, the profile a chart's player plays)."""
REAL_GAME_ARRAYS = ("key", "values", "value_errors", "low", "low_errors", "high")
PLAYED_PROFILE = ("jam first in by jam[seat]; call a lone jam by call[seat, jammer]; facing a jam and one or more "
                  "calls, call by overcall[seat, jammer, first caller] where the spot's over-call ranges are shipped, "
                  "else by call[seat, jammer]; the shipped quantised probabilities")
"""The profile a chart's player plays in the real-game measurement, in words."""


def real_game_version() -> str:
    """The digest of :data:`REAL_GAME_SOURCES` (16 hex digits)."""
    return sources_digest(REAL_GAME_SOURCES)


@dataclass(frozen=True)
class RealGameGains:
    """One spot's chart played in the real game (:mod:`pokerlab.pushfold.fullring_real`), per seat in big blinds:
    ``values`` (chip EV) and ``value_errors``; the best-response gain between ``low`` (cross-fitted, error
    ``low_errors``) and ``high``; ``deals`` joint deals (0: exact, heads-up) of seed ``seed``."""

    values: np.ndarray
    value_errors: np.ndarray
    low: np.ndarray
    low_errors: np.ndarray
    high: np.ndarray
    deals: int
    seed: int

    def to_dict(self, units: str = "bb", profile: str = PLAYED_PROFILE) -> dict[str, Any]:
        """As JSON, the keys named in ``units`` (``bb``; ``money`` for the ICM charts')."""
        def listed(a: np.ndarray) -> list[float]:
            return [float(x) for x in a]

        return {f"values_{units}": listed(self.values), f"value_stderr_{units}": listed(self.value_errors),
                f"gains_low_{units}": listed(self.low), f"gains_low_stderr_{units}": listed(self.low_errors),
                f"gains_high_{units}": listed(self.high), "deals": self.deals, "seed": self.seed, "profile": profile}


def real_game_gains(arrays: dict[str, np.ndarray], deals: int, seed: int) -> RealGameGains:
    """A measurement from its arrays by name (:data:`REAL_GAME_ARRAYS` but the key)."""
    values, value_errors, low, low_errors, high = (np.asarray(arrays[name], dtype=np.float64)
                                                   for name in REAL_GAME_ARRAYS[1:])
    return RealGameGains(values, value_errors, low, low_errors, high, deals, seed)


def overcall_hash(overcalls: OvercallFile) -> str:
    """What names the over-call ranges a measurement played: the over-call file's content hash ("none" where no
    over-call file is used)."""
    return "none" if overcalls.reason else str(overcalls.header["content_sha256"])


def write_real_game(charts: ChartFile, overcalls: OvercallFile, measured: list[RealGameGains],
                    path: Path = REAL_GAME_FILE) -> dict[str, Any]:
    """Write the measurements of every spot of ``charts`` played with ``overcalls`` (``measured[i]``: row ``i``;
    one number of deals and one seed for them all) atomically; returns the header."""
    arrays, deals, seed = real_game_arrays(charts, measured)
    header = {"format": REAL_GAME_FORMAT, "code_version": real_game_version(),
              "chart_content_sha256": charts.header["content_sha256"], "overcall_content_sha256":
              overcall_hash(overcalls), "deals": deals, "seed": seed, "profile": PLAYED_PROFILE,
              "units": "bb per hand (chip EV)"}
    return save_chart_file(path, header, arrays)


def real_game_arrays(charts: ChartFile, measured: Sequence[RealGameGains]) -> tuple[dict[str, np.ndarray], int, int]:
    """The arrays of a real-game file (:data:`REAL_GAME_ARRAYS`, float32, one row per spot of ``charts`` padded with
    NaN to :data:`MAX_SEATS`) from ``measured[i]`` of row ``i``, with their one number of deals (0: all exact) and
    seed; ValueError if they are not one per row or of several deal counts or seeds."""
    count = len(measured)
    if count != charts.key.shape[0]:
        raise ValueError(f"{count} measurements for {charts.key.shape[0]} chart spots")
    deals = {spot.deals for spot in measured if spot.deals}  # 0: heads-up, exact
    seeds = {spot.seed for spot in measured}
    if len(deals) > 1 or len(seeds) != 1:
        raise ValueError(f"measurements of several deal counts {sorted(deals)} or seeds {sorted(seeds)}")
    arrays = {"key": charts.key.copy()}
    for name in REAL_GAME_ARRAYS[1:]:
        arrays[name] = np.full((count, MAX_SEATS), np.nan, dtype=np.float32)
        for i, spot in enumerate(measured):
            column = getattr(spot, name)
            arrays[name][i, :column.shape[0]] = column
    return arrays, deals.pop() if deals else 0, seeds.pop()


@dataclass(frozen=True)
class RealGameFile:
    """The real-game measurements of the shipped charts, or why there are none (``reason``)."""

    header: dict[str, Any]
    arrays: dict[str, np.ndarray]
    reason: str = ""

    def of(self, chart: FullRingChart) -> RealGameGains | None:
        """The measurement of ``chart``'s spot (None if the file is not used or lacks it)."""
        return self.of_spot(len(chart.seats), chart.depth_bb, chart.ante)

    def of_spot(self, seats: int, depth_bb: float, ante: str) -> RealGameGains | None:
        """The measurement of a spot (None if the file is not used or lacks it)."""
        row = None if self.reason else spot_row(self.arrays["key"], seats, depth_bb, ante)
        if row is None:
            return None
        deals = self.header["deals"] if seats > 2 else 0
        return real_game_gains({name: self.arrays[name][row, :seats] for name in REAL_GAME_ARRAYS[1:]}, int(deals),
                               int(self.header["seed"]))


def read_real_game(path: Path, charts: ChartFile, overcalls: OvercallFile) -> RealGameFile:
    """Read a real-game file measured on ``charts`` played with ``overcalls``; a file of another format, code
    version, chart or over-call file comes back with its ``reason`` and no measurements;
    :class:`~pokerlab.errors.FileFormatError` if it cannot be read."""
    header, arrays = load_data_file(path, REAL_GAME_ARRAYS, "full-ring real-game")
    rebuild = "run scripts/build_fullring_real_game.py"
    if header.get("format") != REAL_GAME_FORMAT or header.get("code_version") != real_game_version():
        return RealGameFile(header, {}, f"measured by other code ({header.get('code_version')}, this pokerlab's is "
                                        f"{real_game_version()}): {rebuild}")
    if header.get("chart_content_sha256") != charts.header["content_sha256"]:
        return RealGameFile(header, {}, f"measured on another chart file: {rebuild}")
    if header.get("overcall_content_sha256") != overcall_hash(overcalls):
        return RealGameFile(header, {}, f"measured with other over-call ranges: {rebuild}")
    if not np.array_equal(arrays["key"], charts.key):
        return RealGameFile(header, {}, f"its spots are not the chart file's: {rebuild}")
    return RealGameFile(header, arrays)


@lru_cache(maxsize=1)
def shipped_real_game() -> RealGameFile:
    """The package's real-game file, read once per process (a missing file: no measurements, and why)."""
    return read_if_built(REAL_GAME_FILE, lambda path: read_real_game(path, shipped_charts(), shipped_overcalls()),
                         "real-game", "")


def read_if_built(path: Path, read: Callable[[Path], RealGameFile], what: str, option: str) -> RealGameFile:
    """``read(path)``, or where the package has no such file no measurements and why (``what`` names the file,
    ``option`` the real-game builder's mode that writes it)."""
    if not path.exists():
        return RealGameFile({}, {}, f"no {what} file: run scripts/build_fullring_real_game.py{option}")
    return read(path)


def real_game_dict(chart: FullRingChart) -> dict[str, Any]:
    """``chart``'s real-game measurement as JSON (``{"measured": false, "why": ...}`` where there is none)."""
    stored = shipped_real_game()
    measured = stored.of(chart)
    if measured is None:
        return {"measured": False, "why": stored.reason or "this spot is not in the real-game file"}
    return {"measured": True} | measured.to_dict()
