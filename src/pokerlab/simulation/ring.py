"""Full-ring players: the shipped full-ring push/fold charts (:mod:`pokerlab.pushfold.fullring_charts`) played by
position in the simulator.

A player of the ``fullring`` play model, at a table of ``n`` players (2-10), plays the chart of ``n`` seats
whose depth is nearest his effective stack in big blinds (first in: against the deepest player still to act;
calling: against the jammer; the deeper shipped depth on a tie, as
:func:`~pokerlab.pushfold.fullring_charts.full_ring_chart`) and whose ante rule is nearest the hand's dead
money per seat in big blinds (an ante per player ``a``: ``a / bb``; a big-blind ante ``a``: ``a / (n bb)``;
the charts' ``none`` 0, ``10`` 0.1, ``12.5`` 0.125, and the heads-up ``bb`` rule 0.5), among the rules shipped
for ``n`` seats. He jams first in by his position's chart (``jam[position]``), calls a lone jam by
``call[position, jammer's position]`` and, facing a jam and one or more calls, calls by the over-call range of the
jammer and the first caller (``overcall[position, jammer, first caller]``,
:mod:`pokerlab.pushfold.fullring_overcalls`; at a spot whose over-call ranges are not shipped, by the lone-jam
chart), so several players may call (the model's ``CALLERS``): :func:`pokerlab.pushfold.fullring_real.played_range`
as a kernel. Positions are the charts' seat order: ``UTG .. BTN, SB, BB`` (heads-up ``SB, BB``).

A ``fullring-tight`` player (``fullring-tight@KEEP``, ``KEEP`` in (0, 1], default :data:`TIGHT_KEEP`) plays the
same charts with every range cut to its strongest ``KEEP`` share: of each jam and call range (the chart's
probability per class times the class's combos) he keeps the classes strongest first in the project's preflop
order (:func:`pokerlab.cards.classes.preflop_order`: all-in equity against a random hand) until ``KEEP`` of the
range's combos are kept, the class at the edge in part, quantised to the charts' ``1 / 200`` steps
(:func:`tightened`). At ``KEEP = 1`` he plays the charts exactly.

The kernels read the file's quantised probabilities as they are (steps of ``1 / 200``) and count, per spot, the
chart players' decisions and the deciders' range reads made from it (``RingCharts.uses``): every result that
used a chart names the content hashes of the chart and over-call files and each spot it used with its count.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pokerlab.cards.classes import CLASS_SIZES, NUMBER_OF_CLASSES, preflop_order
from pokerlab.errors import InvalidArgumentError
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import (
    LEVELS,
    MAX_SEATS,
    NO_DECISION,
    ChartFile,
    OvercallFile,
    overcall_hash,
    overcall_index,
    overcalls_of,
    read_charts,
    shipped_charts,
)

RING_MODEL = "fullring"
TIGHT_MODEL = "fullring-tight"
TIGHT_KEEP = 0.5
"""A ``fullring-tight`` player's default share of each chart range kept."""
ANTE_PER_SEAT = np.array([ANTES[rule][0] + ANTES[rule][1] / 2.0 for rule in ANTES])
"""Dead money per seat (big blinds) of each ante rule of the charts, in :data:`~pokerlab.pushfold.fullring.ANTES`
order (the big-blind ante rule is heads-up only: one big blind over two seats)."""


class RingCharts(NamedTuple):
    """The full-ring charts as the kernels read them (one per tournament; ``uses`` one per chunk)."""

    plays: np.ndarray  # bool[C]: chart c of the field plays the full-ring charts
    jam: np.ndarray  # uint8[V * K, 10, 169]: spot k's first-in jam probability per position, in 1/200 (255: none)
    call: np.ndarray  # uint8[V * K, 10, 10, 169]: spot k's call of a lone jam per (caller, jammer) position
    depths: np.ndarray  # float64[R, 11, D]: shipped depths (bb) per (ante rule, seats), increasing, inf padded
    spot: np.ndarray  # int64[R, 11, D]: the spot of each of those depths
    shipped: np.ndarray  # int64[R, 11]: how many depths are shipped per (ante rule, seats)
    ante: np.ndarray  # float64[R]: each rule's dead money per seat (bb), ANTE_PER_SEAT
    uses: np.ndarray  # int64[K]: decisions and range reads made from each spot (counted by the kernels)
    shift: np.ndarray  # int64[C]: chart c reads spot k's ranges at k + shift[c] (V variants: cut ranges, tightened)
    overcall: np.ndarray  # uint8[V * O, 169]: the over-call ranges of every spot, V variants of O rows
    overcall_start: np.ndarray  # int64[K]: spot k's first over-call row (-1: none shipped)
    overcall_shift: np.ndarray  # int64[C]: chart c reads over-call row r at r + overcall_shift[c]


def no_ring(charts: int) -> RingCharts:
    """The bundle of a field without full-ring players (``charts`` chart models, none of them ``fullring``)."""
    return RingCharts(np.zeros(charts, dtype=np.bool_), np.zeros((1, MAX_SEATS, NUMBER_OF_CLASSES), dtype=np.uint8),
                      np.zeros((1, MAX_SEATS, MAX_SEATS, NUMBER_OF_CLASSES), dtype=np.uint8),
                      np.full((len(ANTES), MAX_SEATS + 1, 1), np.inf), np.zeros((len(ANTES), MAX_SEATS + 1, 1),
                                                                                dtype=np.int64),
                      np.zeros((len(ANTES), MAX_SEATS + 1), dtype=np.int64), ANTE_PER_SEAT.copy(),
                      np.zeros(1, dtype=np.int64), np.zeros(charts, dtype=np.int64),
                      np.zeros((1, NUMBER_OF_CLASSES), dtype=np.uint8), np.full(1, -1, dtype=np.int64),
                      np.zeros(charts, dtype=np.int64))


def tightened(steps: np.ndarray, keep: float) -> np.ndarray:
    """Chart rows (``uint8[..., 169]`` in ``1 / 200`` steps, 255: no decision) cut to the strongest ``keep``
    share of each row's combos (see the module docs); ``keep = 1`` returns them unchanged.

    >>> from pokerlab.cards.classes import class_index
    >>> row = np.zeros(169, dtype=np.uint8); row[class_index('AA')] = row[class_index('72o')] = 200
    >>> cut = tightened(row, 6 / 18)  # 6 combos of aces, 12 of seven-deuce offsuit: the aces are a third
    >>> int(cut[class_index('AA')]), int(cut[class_index('72o')]), bool(np.array_equal(tightened(row, 1.0), row))
    (200, 0, True)
    """
    order = preflop_order()[0]
    none = steps == NO_DECISION
    p = np.where(none, 0, steps).astype(np.float64)[..., order]
    mass = p * CLASS_SIZES[order]
    before = np.cumsum(mass, axis=-1) - mass
    target = keep * mass.sum(axis=-1, keepdims=True)
    part = np.clip((target - before) / np.where(mass > 0, mass, 1.0), 0.0, 1.0)
    cut = np.empty_like(p)
    cut[..., order] = np.rint(p * part)
    return np.where(none, NO_DECISION, cut).astype(np.uint8)


_TIGHTENED: dict[tuple[str, str, float], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
"""A chart file's jam, call and over-call charts cut by :func:`tightened`, by (the chart and over-call files'
content hashes, ``keep``): every tournament of a study sets up its field, and cutting a whole file's call charts
(every spot x 10 x 10 x 169) takes about 0.4 s of float64 temporaries, which each set-up would otherwise repeat."""
_TIGHTENED_KEPT = 4


def _tightened_file(charts: ChartFile, overcalls: OvercallFile, keep: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``charts``' jam and call arrays and ``overcalls``' rows cut to ``keep`` (read-only; computed once per file
    and ``keep``)."""
    key = (str(charts.header["content_sha256"]), overcall_hash(overcalls), keep)
    if key not in _TIGHTENED:
        if len(_TIGHTENED) >= _TIGHTENED_KEPT:
            _TIGHTENED.pop(next(iter(_TIGHTENED)))
        cut = (tightened(charts.jam, keep), tightened(charts.call, keep), tightened(overcalls.rows, keep))
        for array in cut:
            array.flags.writeable = False
        _TIGHTENED[key] = cut
    return _TIGHTENED[key]


def ring_charts(keeps: Sequence[float | None],
                chart_file: str | Path | None = None) -> tuple[RingCharts, ChartFile | None]:
    """The bundle of a field whose chart ``c`` plays the full-ring charts keeping ``keeps[c]`` of each range
    (1: ``fullring``; less: ``fullring-tight``; None: not a full-ring player) and the chart file it reads (None
    when no chart is full-ring): the shipped file, or ``chart_file`` (read and checked: a file of another format
    or code version is :class:`~pokerlab.pushfold.fullring_charts.ChartVersionError`), with the shipped over-call
    ranges where they are of that chart file."""
    plays = np.array([k is not None for k in keeps], dtype=np.bool_)
    if not plays.any():
        return no_ring(len(keeps)), None
    charts = shipped_charts() if chart_file is None else read_charts(Path(chart_file))
    overcalls = overcalls_of(charts)
    key = charts.key
    missing = [seats for seats in range(2, MAX_SEATS + 1) if not np.any(key[:, 0] == seats)]
    if missing:
        raise InvalidArgumentError(f"the full-ring chart file has no chart of {', '.join(map(str, missing))} seats: "
                                   f"fullring players need one for every table size from 2 to {MAX_SEATS}")
    rules = len(ANTES)
    per = np.zeros((rules, MAX_SEATS + 1), dtype=np.int64)
    for seats, _, rule in key:
        per[int(rule), int(seats)] += 1
    width = max(1, int(per.max()))
    depths = np.full((rules, MAX_SEATS + 1, width), np.inf)
    spot = np.zeros((rules, MAX_SEATS + 1, width), dtype=np.int64)
    for rule in range(rules):
        for seats in range(2, MAX_SEATS + 1):
            rows = np.flatnonzero((key[:, 0] == seats) & (key[:, 2] == rule))
            rows = rows[np.argsort(key[rows, 1], kind="stable")]
            depths[rule, seats, : rows.size] = key[rows, 1]
            spot[rule, seats, : rows.size] = rows
    variants = sorted({1.0, *(k for k in keeps if k is not None)}, reverse=True)  # the charts as shipped first
    shift = np.array([0 if k is None else variants.index(k) * key.shape[0] for k in keeps], dtype=np.int64)
    cut = [(charts.jam, charts.call, overcalls.rows) if v == 1.0 else _tightened_file(charts, overcalls, v)
           for v in variants]
    jam = np.concatenate([j for j, _, _ in cut])
    call = np.concatenate([c for _, c, _ in cut])
    over = np.concatenate([o for _, _, o in cut]) if overcalls.rows.shape[0] else np.zeros((1, NUMBER_OF_CLASSES),
                                                                                            dtype=np.uint8)
    over_shift = np.array([0 if k is None else variants.index(k) * overcalls.rows.shape[0] for k in keeps],
                          dtype=np.int64)
    return RingCharts(plays, np.ascontiguousarray(jam), np.ascontiguousarray(call), depths, spot, per,
                      ANTE_PER_SEAT.copy(), np.zeros(key.shape[0], dtype=np.int64), shift,
                      np.ascontiguousarray(over), overcalls.chart_starts(charts), over_shift), charts


def with_fresh_uses(ring: RingCharts) -> RingCharts:
    """``ring`` with a zeroed use count (each chunk counts its own; the counts are merged in chunk order)."""
    return ring._replace(uses=np.zeros_like(ring.uses))


def chart_record(charts: ChartFile | None, uses: np.ndarray) -> dict[str, Any] | None:
    """What a result names of the charts it used: the file's content hash, format and code version, and every
    spot used (seats, depth in bb, ante rule) with its count of decisions and range reads."""
    if charts is None:
        return None
    rules = list(ANTES)
    overcalls = overcalls_of(charts)
    starts = overcalls.chart_starts(charts)
    spots = [{"seats": int(charts.key[k, 0]), "depth_bb": float(charts.key[k, 1]),
              "ante": rules[int(charts.key[k, 2])], "uses": int(uses[k]),
              "overcalls": bool(starts[k] >= 0 or charts.key[k, 0] < 3)} for k in np.flatnonzero(uses)]
    return {"content_sha256": charts.header["content_sha256"], "format": charts.header["format"],
            "code_version": charts.header["code_version"],
            "overcall_content_sha256": overcall_hash(overcalls), "spots": spots}


@njit(cache=True)
def ring_rule(ring: RingCharts, seats: int, ante: int, big_blind: int, big_blind_ante: bool) -> int:
    """The ante rule nearest the hand's dead money per seat among those shipped for ``seats`` (see the module
    docs); the first shipped one on a tie."""
    per_seat = ante / (big_blind * seats) if big_blind_ante else ante / big_blind
    best = -1
    gap = np.inf
    for rule in range(ring.ante.size):
        if ring.shipped[rule, seats] > 0 and abs(ring.ante[rule] - per_seat) < gap:
            gap = abs(ring.ante[rule] - per_seat)
            best = rule
    return best


@njit(cache=True)
def ring_spot(ring: RingCharts, rule: int, seats: int, effective: int, big_blind: int) -> int:
    """The spot of ``seats`` seats and ante ``rule`` whose depth is nearest ``effective`` chips in big blinds (the
    deeper on a tie); its use is counted."""
    depth = effective / big_blind
    best = 0
    gap = np.inf
    for d in range(ring.shipped[rule, seats]):
        if abs(ring.depths[rule, seats, d] - depth) <= gap:  # increasing depths: the deeper wins a tie
            gap = abs(ring.depths[rule, seats, d] - depth)
            best = d
    k: int = ring.spot[rule, seats, best]
    ring.uses[k] += 1
    return k


@njit(cache=True, inline="always")
def position(seat: int, small_blind: int, seats: int) -> int:
    """The charts' position (``UTG .. BTN, SB, BB``; heads-up ``SB, BB``) of table seat ``seat``."""
    return (seat - small_blind + seats - 2) % seats


@njit(cache=True)
def ring_probability(steps: int) -> float:
    """A chart's quantised probability (``1 / 200`` steps; no decision: 0)."""
    if steps == NO_DECISION:
        return 0.0
    return steps / LEVELS


@njit(cache=True)
def ring_jam_row(ring: RingCharts, chart: int, rule: int, seats: int, effective: int, big_blind: int, at: int,
                 out: np.ndarray) -> np.ndarray:
    """Position ``at``'s first-in jam range (probability per class) at ``effective`` chips, as chart ``chart``
    plays it, into ``out``."""
    k = ring_spot(ring, rule, seats, effective, big_blind) + ring.shift[chart]
    for h in range(out.size):
        out[h] = ring_probability(ring.jam[k, at, h])
    return out


@njit(cache=True)
def ring_call_probability(ring: RingCharts, chart: int, rule: int, seats: int, effective: int, big_blind: int,
                          at: int, jammer: int, first_caller: int, hand_class: int) -> float:
    """Position ``at``'s probability of calling with ``hand_class`` a jam of position ``jammer`` at ``effective``
    chips, followed by a call of position ``first_caller`` (-1: a lone jam), as chart ``chart`` plays it."""
    k = ring_spot(ring, rule, seats, effective, big_blind)
    first_row = ring.overcall_start[k]
    if first_caller >= 0 and first_row >= 0:
        row = first_row + overcall_index(at, jammer, first_caller) + ring.overcall_shift[chart]
        return ring_probability(ring.overcall[row, hand_class])
    return ring_probability(ring.call[k + ring.shift[chart], at, jammer, hand_class])


@njit(cache=True)
def ring_call_row(ring: RingCharts, chart: int, rule: int, seats: int, effective: int, big_blind: int, at: int,
                  jammer: int, out: np.ndarray) -> np.ndarray:
    """Position ``at``'s range calling a lone jam of position ``jammer`` at ``effective`` chips, as chart
    ``chart`` plays it, into ``out``."""
    k = ring_spot(ring, rule, seats, effective, big_blind) + ring.shift[chart]
    for h in range(out.size):
        out[h] = ring_probability(ring.call[k, at, jammer, h])
    return out
