"""The simulation façade: validate a tournament once, run a batch of it, merge the statistics.

:func:`simulate` plays ``tournaments`` multi-table tournaments (or a single table from given stacks) and returns
a :class:`SimulationResult`: finishing-place probabilities and prize equity with standard errors per player
(given stacks) or per group of identical starting players (a whole field: same starting stack and play model),
the ICM equity of the starting stacks beside them, hands played, and optionally every tournament's finishing
order and stack snapshots (for :mod:`pokerlab.simulation.analysis` and the Parquet output).

Tournament ``t`` of a batch seeded ``seed`` is the same whatever the number of workers, the chunking or the
engine (local processes or Ray): its random stream is a function of ``(seed, t)`` alone, and statistics are
merged in chunk order.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import pokerlab.simulation.kernels as kernels
from pokerlab.errors import (
    InvalidArgumentError,
    InvalidPayoutsError,
    InvalidStacksError,
    ResourceLimitError,
    optional_callback,
    true_or_false,
    whole_number,
)
from pokerlab.games.pushfold import Table as PushFoldTable
from pokerlab.io import atomic_write
from pokerlab.progress import deferred_interrupts
from pokerlab.provenance import sources_digest
from pokerlab.pushfold.fgs import FgsTables, fgs_tables
from pokerlab.pushfold.fullring_charts import ChartFile
from pokerlab.simulation.batch import Checkpoint, run_chunks, stored_seed
from pokerlab.simulation.charts import rules_chart, stack_charts, validate_charts
from pokerlab.simulation.icm_players import (
    DECIDE_FGS,
    DECIDE_HARVILLE,
    DECIDE_ICM,
    DECIDE_MW,
    FINAL_TABLE_PLAYERS,
    MAX_DECIDER_FGS_DEPTH,
    MAX_SUMMARIES,
    RULES,
    Aware,
)
from pokerlab.simulation.kernels import Charts, Field, Schedule, Snapshots
from pokerlab.simulation.ring import (
    RING_MODEL,
    TIGHT_KEEP,
    TIGHT_MODEL,
    RingCharts,
    chart_record,
    ring_charts,
    with_fresh_uses,
)
from pokerlab.simulation.schedule import STRUCTURES, default_schedule, schedule_to_dict, structure_schedule
from pokerlab.stats import validate_seed
from pokerlab.stats.rng import fresh_seed

MAX_PLAYERS = 100_000
MAX_TOURNAMENTS = 10**9
MAX_SEED = 2**64 - 1  # the kernels' random streams are keyed by a 64-bit seed
CALLERS = {"coinflip": 1, "pushfold": 1, "rules": 1, "tight": 1, "fullring": 9, "fullring-tight": 9, "icm": 1,
           "chip-ev": 1, "power-icm": 1, "harville": 1, "malmuth-weitzman": 1, "fgs": 1}
"""The play models and each one's option: the most players who call a jam (1: the first caller closes the
action, as charts that hold only calls of a lone jam need; ``fullring``: every player after the jam decides,
:mod:`pokerlab.simulation.ring`). A field of several models plays the smallest of its chart models' (the
deciders' own count applies to a field of deciders only). ``fullring`` players play the shipped full-ring
charts by position (:mod:`pokerlab.simulation.ring`); ``fullring-tight`` (``fullring-tight@KEEP``) players the
same charts with each range cut to its strongest ``KEEP`` share (default 0.5).
``icm``, ``chip-ev``, ``power-icm@ALPHA`` (ICM on ``stacks ** ALPHA``), ``harville@DISCOUNT`` (discounted
Harville), ``malmuth-weitzman`` and ``fgs@DEPTH`` (FGS: the next ``DEPTH`` hands, 0 to
:data:`~pokerlab.simulation.icm_players.MAX_DECIDER_FGS_DEPTH`, played out before ICM; depth 0 is ICM) players
decide every jam and call by that model's value of the hand's outcomes (:mod:`pokerlab.simulation.icm_players`;
the last three in fields of at most :data:`~pokerlab.simulation.icm_players.FINAL_TABLE_PLAYERS` players, FGS at
one table); the others put them on the ``pushfold`` charts' ranges."""
PLAY_MODELS = tuple(CALLERS)
EXPONENT_MODELS = ("power-icm", "harville")  # deciders named with their exponent: power-icm@0.8
DEPTH_MODELS = ("fgs",)  # deciders named with their depth in hands: fgs@1
RING_MODELS = (RING_MODEL, TIGHT_MODEL)  # the models that play the full-ring chart file


def model_parts(name: str) -> tuple[str, float]:
    """(play model, exponent) of a play model's name: ``'power-icm@0.8'`` is ``('power-icm', 0.8)``, a model
    without an exponent has 1; FGS's "exponent" is its depth in hands (``'fgs@2'`` is ``('fgs', 2.0)``).

    >>> model_parts('harville@0.7'), model_parts('icm'), model_parts('fullring-tight'), model_parts('fgs@1')
    (('harville', 0.7), ('icm', 1.0), ('fullring-tight', 0.5), ('fgs', 1.0))
    """
    base, sep, text = name.partition("@")
    base = base.strip()
    if base not in PLAY_MODELS:
        raise InvalidArgumentError(f"unknown play model {base!r}; use one of {', '.join(PLAY_MODELS)} (power-icm and "
                                   f"harville with their exponent: power-icm@0.8; fgs with its depth: fgs@1)")
    if base in DEPTH_MODELS:
        depths = f"0 to {MAX_DECIDER_FGS_DEPTH} hands"
        if not sep:
            raise InvalidArgumentError(f"{base} needs its depth ({depths}), e.g. {base}@1")
        if text.strip() not in [str(d) for d in range(MAX_DECIDER_FGS_DEPTH + 1)]:
            raise InvalidArgumentError(f"{base}'s depth must be {depths} (a deeper look costs a hundred times more "
                                       f"per decision for each hand), got {text!r}")
        return base, float(text)
    if base == TIGHT_MODEL:  # the share of each range kept, default TIGHT_KEEP
        try:
            keep = float(text) if sep else TIGHT_KEEP
        except ValueError as error:
            raise InvalidArgumentError(f"{base}'s kept share must be a number, got {text!r}") from error
        if not (math.isfinite(keep) and 0.0 < keep <= 1.0):
            raise InvalidArgumentError(f"{base}'s kept share of each range must be in (0, 1], got {text!r}")
        return base, keep
    if base not in EXPONENT_MODELS:
        if sep:
            raise InvalidArgumentError(f"play model {base!r} takes no exponent, got {name!r}")
        return base, 1.0
    if not sep:
        raise InvalidArgumentError(f"{base} needs its exponent, e.g. {base}@0.8")
    try:
        value = float(text)
    except ValueError as error:
        raise InvalidArgumentError(f"{base}'s exponent must be a number, got {text!r}") from error
    if not (math.isfinite(value) and 0.0 < value <= 4.0):
        raise InvalidArgumentError(f"{base}'s exponent must be in (0, 4], got {text!r}")
    return base, value
PLACE_CELLS = 200_000  # groups x tracked places per chunk (memory of a merge); past it fewer places are tracked


@dataclass(frozen=True)
class Tournament:
    """A validated tournament: the kernels' inputs plus what the statistics need."""

    field: Field
    schedule: Schedule
    charts: Charts
    snapshots: Snapshots
    payouts: np.ndarray  # money per place, length <= players
    aware: Aware  # the players who decide by a model (rule per chart, payouts, preflop class tables)
    ring: RingCharts  # the full-ring charts of the fullring players (an empty bundle without them)
    group: np.ndarray  # int64[n]: statistics group of each player
    group_stack: np.ndarray  # float64[G]
    group_model: list[str]
    group_size: np.ndarray  # int64[G]
    per_player: bool  # groups are single players (given stacks) rather than identical starting players
    tracked_places: int
    model_names: list[str]
    names: tuple[str, ...] | None = None  # the players' names (given stacks only), shown with their rows
    ring_file: ChartFile | None = None  # the full-ring chart file the ring players read (None: no ring player)
    structure: str | None = None  # the named blind structure (None: a given schedule or the default one)
    fgs: FgsTables | None = None  # the FGS deciders' tables (None: no player decides by FGS)

    def describe(self) -> dict[str, Any]:
        """Everything that determines the tournaments (the checkpoint fingerprint hashes it)."""
        return {
            "stacks": self.field.stacks.tolist(), "model": self.field.model.tolist(),
            "table_size": self.field.table_size, "play": self.field.play, "bet": self.field.bet,
            "callers": self.field.callers,
            "schedule": schedule_to_dict(self.schedule), "snapshots": self.snapshots.players_left.tolist(),
            "snapshots_before": self.snapshots.before.tolist(),
            "charts": hashlib.sha256(self.charts.jam.tobytes() + self.charts.call.tobytes()).hexdigest(),
            "models": self.model_names, "payouts": self.payouts.tolist(),
            **({"structure": self.structure} if self.structure is not None else {}),
            **({"rules": self.aware.rule.tolist()} if np.any(self.aware.rule) else {}),
            **({"fgs_charts": hashlib.sha256(self.fgs.jam_share.tobytes() + self.fgs.call_share.tobytes()
                                             + self.fgs.win.tobytes() + self.fgs.tie.tobytes()).hexdigest()}
               if self.fgs is not None else {}),
            **({"fullring_charts": self.ring_file.header["content_sha256"], "ring_players": self.ring.plays.tolist(),
                "ring_shift": self.ring.shift.tolist()} if self.ring_file is not None else {}),
        }


def parse_play(spec: str) -> list[tuple[str, float]]:
    """``'pushfold'`` or a mix ``'pushfold:0.8,rules:0.2'`` (shares of the field) as (model, share) pairs.

    >>> parse_play('pushfold:0.75,rules:0.25')
    [('pushfold', 0.75), ('rules', 0.25)]
    >>> parse_play('pushfold:0.8,rules:0.8')
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: play model shares add up to 1.6, not 1: give shares of the field ...
    """
    if not isinstance(spec, str):
        raise InvalidArgumentError(f"play must be a model name or a mix like 'pushfold:0.8,rules:0.2', got "
                                   f"{type(spec).__name__}")
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts:
        raise InvalidArgumentError("play model is empty: use coinflip, pushfold, rules or a mix like "
                                   "pushfold:0.8,rules:0.2")
    mix = []
    for part in parts:
        name, sep, share = part.partition(":")
        name = name.strip()
        model_parts(name)
        try:
            value = float(share) if sep else 1.0
        except ValueError as error:
            raise InvalidArgumentError(f"play model share must be a number, got {share!r}") from error
        if not (math.isfinite(value) and value > 0):
            raise InvalidArgumentError(f"play model share must be positive, got {share!r}")
        mix.append((name, value))
    names = [m for m, _ in mix]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"play model listed twice in {spec!r}")
    return check_mix(mix)


def check_mix(mix: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """A field's (model, share) pairs, checked: known models, positive shares adding up to 1, coin flips alone.
    A model may come twice (two groups that play alike and are counted apart, as heroes in a field that has
    their model too).

    >>> check_mix([('fullring', 0.5), ('icm', 0.4), ('icm', 0.1)])
    [('fullring', 0.5), ('icm', 0.4), ('icm', 0.1)]
    """
    try:
        pairs = [(name.strip(), float(share)) for name, share in mix]
    except (TypeError, ValueError, AttributeError):
        raise InvalidArgumentError(f"play must be a model name, a mix like 'pushfold:0.8,rules:0.2' or (model, "
                                   f"share) pairs, got {mix!r}") from None
    if not pairs:
        raise InvalidArgumentError("a field needs at least one play model")
    for name, share in pairs:
        model_parts(name)
        if not (math.isfinite(share) and share > 0):
            raise InvalidArgumentError(f"play model share must be positive, got {share!r} for {name}")
    names = [m for m, _ in pairs]
    if "coinflip" in names and len(names) > 1:
        raise InvalidArgumentError("coinflip is a whole-table game: it cannot be mixed with chart players")
    total = sum(v for _, v in pairs)
    if abs(total - 1.0) > 1e-9:
        raise InvalidArgumentError(f"play model shares add up to {total:g}, not 1: give shares of the field that "
                                   f"add up to 1, e.g. pushfold:0.8,rules:0.2")
    return pairs


PUSHFOLD_DEPTH = 30  # big blinds: the deepest bucket of the push/fold charts (deeper stacks play it too)


CHARTS_SOURCES = ("games/pushfold", "pushfold", "solvers/vector.py", "equity/preflop.py", "equity/headsup_table.py",
                  "cards/classes.py")
"""The code that makes the push/fold charts (its hash keys their cache: a change of the solver solves again)."""


def charts_code_version() -> str:
    """SHA-256 (16 hex digits) of the sources in :data:`CHARTS_SOURCES`, in path order."""
    return sources_digest(CHARTS_SOURCES)


@cache
def pushfold_charts(depth: int = PUSHFOLD_DEPTH, target: float = 1e-3) -> Charts:
    """The push/fold engine's heads-up chip-EV Nash charts (:func:`pokerlab.pushfold.heads_up_chart`) solved at
    2, 3, ..., ``depth`` big blinds to a best-response gain of ``target`` bb, as simulation charts: bucket ``b``
    (effective stack in ``(b, b + 1]`` bb) plays the solution at ``b + 1`` bb (the first bucket the 2 bb one: at
    1 bb the big blind is all in from his blind and has no decision). At a table of more than two
    players the first player in jams by the small blind's heads-up chart and callers call by the big blind's:
    the heads-up Nash ranges, looser than full-table ones (a full-table solution per stack configuration is
    far too slow to play millions of hands). Solved once (seconds) and cached under the user cache directory,
    keyed by the inputs and :func:`charts_code_version`."""
    from pokerlab.cards.tables import cache_directory
    from pokerlab.pushfold import heads_up_chart

    path = cache_directory() / f"pushfold-charts-{charts_code_version()}-{depth}-{target:g}.npz"
    try:
        with np.load(path) as stored:
            return validate_charts(Charts(stored["jam"], stored["call"]))
    except (OSError, KeyError, ValueError, InvalidArgumentError):
        pass  # absent or damaged: solve again
    chart = heads_up_chart(list(range(2, depth + 1)), target=target)
    rows = [0, *range(depth - 1)]  # bucket 0 (up to 1 bb) plays the 2 bb solution
    charts = Charts(np.ascontiguousarray(chart.jam[rows][None]), np.ascontiguousarray(chart.call[rows][None]))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as temporary:
            np.savez(temporary, jam=charts.jam, call=charts.call)
    except OSError:
        pass  # a read-only cache only costs solving again next time
    return charts


def _chart_for(name: str) -> Charts:
    if model_parts(name)[0] in RING_MODELS:
        return rules_chart(buckets=1)  # unread: a full-ring player's every decision reads the full-ring charts
    if model_parts(name)[0] in ("pushfold", "icm", "chip-ev", "power-icm", "harville", "malmuth-weitzman", "fgs"):
        return pushfold_charts()
    return rules_chart(0.5 if name == "tight" else 1.0)


def prepare(
    *, stacks: Sequence[float] | np.ndarray | None = None, players: int | None = None,
    starting_stack: int | None = None, table_size: int | None = None, payouts: Any,
    play: str | Sequence[tuple[str, float]] = "coinflip", bet: int | None = None, schedule: Schedule | None = None,
    start_level: int = 0, snapshots: Sequence[int | str] = (), charts: dict[str, Charts] | None = None,
    names: Sequence[str] | None = None, chart_file: str | Path | None = None, structure: str | None = None,
) -> Tournament:
    """Validate a tournament (see :func:`simulate` for the arguments; ``play`` may also be (model, share)
    pairs, :func:`check_mix`)."""
    from pokerlab.icm import parse_payouts
    from pokerlab.icm.core import validate as validate_icm
    from pokerlab.icm.lobby import amounts

    if (stacks is None) == (players is None):
        raise InvalidArgumentError("give either the stacks of every player or a number of players")
    if stacks is not None:
        if starting_stack is not None:
            raise InvalidArgumentError("a starting stack applies to a field of players only: the stacks give "
                                       "every player's chips")
        raw = amounts(stacks, "stacks", InvalidStacksError)
        if raw.size < 2:
            raise InvalidStacksError(f"a tournament needs at least 2 players, got {raw.size}")
        if not np.all(np.isfinite(raw)) or np.any(raw <= 0) or np.any(raw != np.round(raw)) or raw.max() > 2**53:
            raise InvalidStacksError("stacks must be whole numbers of chips >= 1 (chips are integers)")
        values = raw.astype(np.int64)
        per_player = True
    else:
        players = whole_number(players, "players", low=2, high=MAX_PLAYERS)
        if starting_stack is None:
            starting_stack = 10_000
        starting_stack = whole_number(starting_stack, "starting stack (chips)", low=1, high=2**53 // players,
                                      error=InvalidStacksError)
        values = np.full(players, starting_stack, dtype=np.int64)
        per_player = False
    n = values.size
    if n > MAX_PLAYERS:
        raise InvalidStacksError(f"at most {MAX_PLAYERS:,} players, got {n:,}")
    if table_size is None:
        table_size = n if (per_player and n <= 10) else 9
    table_size = whole_number(table_size, "table size", low=2, high=10)
    _, pay = validate_icm(values.astype(np.float64), parse_payouts(payouts) if isinstance(payouts, str) else payouts)
    mix = parse_play(play) if isinstance(play, str) else check_mix(play)
    coinflip = mix[0][0] == "coinflip"
    if bet is None:
        bet = 0
    bet = whole_number(bet, "bet ('all-in' (0) or chips)", low=0)
    if bet and not coinflip:
        raise InvalidArgumentError("--bet applies to coin flip play only")
    if structure is not None:
        if schedule is not None:
            raise InvalidArgumentError("give a blind schedule or a structure, not both")
        if not isinstance(structure, str) or structure not in STRUCTURES:
            raise InvalidArgumentError(f"unknown structure {structure!r}; use one of {', '.join(STRUCTURES)}")
        schedule = structure_schedule(structure, int(np.median(values)))
    if schedule is None:
        schedule = default_schedule(int(np.median(values)))
    elif not isinstance(schedule, Schedule):
        raise InvalidArgumentError(f"schedule must be a Schedule (make_schedule, load_schedule), got "
                                   f"{type(schedule).__name__}")
    start_level = whole_number(start_level, "start level", low=0, high=schedule.hands.size - 1)
    if isinstance(snapshots, str | bytes):
        raise InvalidArgumentError(f"snapshots must be a list of players-left counts, 'bubble' or 'final', got "
                                   f"text {snapshots!r}")
    if charts is not None and not isinstance(charts, dict):
        raise InvalidArgumentError(f"charts must be a dict of play model name to Charts, got "
                                   f"{type(charts).__name__}")
    if start_level:
        schedule = Schedule(schedule.small_blind[start_level:].copy(), schedule.big_blind[start_level:].copy(),
                            schedule.ante[start_level:].copy(), schedule.hands[start_level:].copy(),
                            schedule.big_blind_ante)
    # the bubble: the start of the round (a hand at every table) in which the money is reached; the final table
    named = {"bubble": (pay.size, True), "final": (int(table_size), False)}
    try:
        wanted = list(snapshots)
    except TypeError:
        raise InvalidArgumentError(f"snapshots must be a list of players-left counts, 'bubble' or 'final', got "
                                   f"{type(snapshots).__name__}") from None
    snaps = sorted({named[s] if isinstance(s, str) and s in named
                    else (whole_number(s, "a snapshot (players left, 'bubble' or 'final')", low=1), False)
                    for s in wanted}, reverse=True)
    player_names = None
    if names is not None:
        player_names = tuple(str(name) for name in names)
        if not per_player or len(player_names) != n:
            raise InvalidArgumentError(f"names label given stacks, one each: {len(player_names)} names for "
                                       f"{n} {'stacks' if per_player else 'players of a field'}")
    models = [m for m, _ in mix]
    charts_by_name = dict(charts or {})
    if coinflip:
        chart_set = rules_chart(buckets=1)  # unused by coin flip play
        model = np.zeros(n, dtype=np.int64)
    else:
        chart_set = validate_charts(stack_charts([charts_by_name.get(m) or _chart_for(m) for m in models]))
        # skill as a share of the field: the first seats (seating is random) get the first model
        shares = np.array([s for _, s in mix])
        counts = np.floor(shares * n + 1e-9).astype(np.int64)  # 0.54 * 100 is 54, not 53.999...
        counts[0] += n - counts.sum()
        model = np.repeat(np.arange(len(models), dtype=np.int64), counts)
    if per_player:
        group = np.arange(n, dtype=np.int64)
        group_stack = values.astype(np.float64)
        group_model = [models[m] for m in model]
    else:
        keys = sorted({(int(v), int(m)) for v, m in zip(values, model, strict=True)})
        index = {k: g for g, k in enumerate(keys)}
        group = np.array([index[(int(v), int(m))] for v, m in zip(values, model, strict=True)], dtype=np.int64)
        group_stack = np.array([k[0] for k in keys], dtype=np.float64)
        group_model = [models[k[1]] for k in keys]
    group_size = np.bincount(group, minlength=group_stack.size).astype(np.int64)
    aware = deciders(models, pay, n)
    fgs_players = [m for m in models if model_parts(m)[0] in DEPTH_MODELS]
    if fgs_players and n > table_size:
        raise InvalidArgumentError(f"{' and '.join(fgs_players)} deciders play a tournament that sits at one table "
                                   f"(FGS plays that table forward as the whole tournament): at most the table size, "
                                   f"{table_size}, players, got {n}: start from a final table's stacks")
    parts = [model_parts(m) for m in models]
    if chart_file is not None and not any(base in RING_MODELS for base, _ in parts):
        raise InvalidArgumentError(f"a full-ring chart file applies to {RING_MODEL} and {TIGHT_MODEL} play only, got "
                                   f"play {play!r}")
    ring, ring_file = ring_charts([keep if base == TIGHT_MODEL else 1.0 if base == RING_MODEL else None
                                   for base, keep in parts], chart_file)
    if ring_file is not None:  # deciders in a full-ring field: the others put them on the full-ring ranges
        ring = ring._replace(plays=ring.plays | (aware.rule != RULES["chart"]))
    chart_bases = [model_parts(m)[0] for m in models if model_parts(m)[0] not in RULES]
    # every place for small fields; else the first places, as many as the cell budget allows (paid ones first)
    tracked = n if group_stack.size * n <= PLACE_CELLS else max(1, min(pay.size, PLACE_CELLS // group_stack.size))
    return Tournament(
        field=Field(values, model, int(table_size), kernels.PLAY_COINFLIP if coinflip else kernels.PLAY_CHARTS,
                    int(bet), min(CALLERS[base] for base in chart_bases or [model_parts(m)[0] for m in models])),
        schedule=schedule, charts=chart_set, payouts=pay,
        snapshots=Snapshots(np.array([c for c, _ in snaps], dtype=np.int64).reshape(-1),
                            np.array([b for _, b in snaps], dtype=np.bool_).reshape(-1)),
        aware=aware, ring=ring, ring_file=ring_file, group=group, group_stack=group_stack, group_model=group_model,
        group_size=group_size,
        per_player=per_player, tracked_places=int(tracked), model_names=models, names=player_names,
        structure=structure, fgs=fgs_bundle(aware),
    )


def deciders(models: Sequence[str], payouts: np.ndarray, players: int) -> Aware:
    """The :class:`~pokerlab.simulation.icm_players.Aware` bundle of a field of ``models`` (chart ``c`` is
    ``models[c]``): each chart's rule, the payouts for places 1..``players``, and the preflop class tables when
    some model decides by its value (else empty placeholders: nothing reads them)."""
    parts = [model_parts(m) for m in models]
    rule = np.array([RULES.get(base, RULES["chart"]) for base, _ in parts], dtype=np.int64)
    param = np.array([value for _, value in parts])
    small = [m for m, r in zip(models, rule, strict=True) if r in (DECIDE_HARVILLE, DECIDE_MW, DECIDE_FGS)]
    if small and players > FINAL_TABLE_PLAYERS:
        raise InvalidArgumentError(f"{' and '.join(small)} deciders take at most {FINAL_TABLE_PLAYERS} players (an "
                                   f"exact recursion or a tree of future hands per decision; none is built for bigger "
                                   f"fields), got {players}: start from a final table's stacks")
    reads = [value if r == DECIDE_ICM else 1.0 if r in (DECIDE_HARVILLE, DECIDE_MW, DECIDE_FGS) else None
             for (_, value), r in zip(parts, rule, strict=True)]  # the power of the field summary each chart reads
    powers = sorted({power for power in reads if power is not None})
    if len(powers) > MAX_SUMMARIES:
        raise InvalidArgumentError(f"one tournament keeps its field's stacks at {MAX_SUMMARIES} powers at most (icm, "
                                   f"harville, malmuth-weitzman and fgs read power 1, power-icm@ALPHA power ALPHA), "
                                   f"got {', '.join(models)}")
    pay = np.zeros(players)
    pay[: payouts.size] = payouts
    if np.any(rule != RULES["chart"]):
        from pokerlab.equity.preflop import preflop_tables

        tables = preflop_tables()
        win = np.ascontiguousarray(tables.class_win + 0.5 * tables.class_tie)
        pairs = np.ascontiguousarray(tables.class_pairs, dtype=np.float64)
    else:
        win = pairs = np.zeros((1, 1))
    exponents = np.ones(MAX_SUMMARIES)
    exponents[: len(powers)] = powers
    summary = np.array([0 if power is None else powers.index(power) for power in reads], dtype=np.int64)
    return Aware(rule, param, pay, win, pairs, len(powers), exponents, summary)


def fgs_bundle(aware: Aware) -> FgsTables | None:
    """The FGS deciders' :class:`~pokerlab.pushfold.fgs.FgsTables` of a tournament (``aware`` from
    :func:`deciders`): the future hands' ranges and showdowns (solved once per code version, then read from the
    cache) and the payouts padded to the players; each hand puts its blinds and antes in. None when no chart
    decides by FGS (the kernels are then compiled without FGS)."""
    if not np.any(aware.rule == DECIDE_FGS):
        return None
    return fgs_tables(aware.pay, aware.pay.size, PushFoldTable((1.0, 1.0), 0.5, 1.0))  # blinds: the kernels' per hand


@dataclass(frozen=True)
class ChunkTask:
    """Tournaments ``index * size ..`` of a batch as one picklable task returning mergeable statistics."""

    tournament: Tournament
    seed: int
    tournaments: int
    size: int
    records: bool
    call_hands: list[int] = field(default_factory=lambda: [FIRST_CALL_HANDS], compare=False)
    """The hands of the next kernel call, learnt by the last chunk this process played of the batch (the
    tournaments do not depend on it)."""

    def __call__(self, index: int) -> dict[str, np.ndarray]:
        from pokerlab.cards.tables import load_tables

        t = self.tournament
        first = index * self.size
        count = min(self.size, self.tournaments - first)
        n = t.field.stacks.size
        s = t.snapshots.players_left.size
        places = np.zeros((count, n), dtype=np.int64)
        snap_stacks = np.zeros((count, s, n), dtype=np.int64)
        snap_info = np.zeros((count, s, 2), dtype=np.int64)
        hands = np.zeros(count, dtype=np.int64)
        checks = np.zeros((count, 4), dtype=np.int64)
        tables = load_tables()
        run = kernels.new_run(t.field, t.snapshots)
        summary = kernels.no_summaries()  # placeholders: each tournament's start builds its own
        ring = with_fresh_uses(t.ring)
        cursor = np.zeros(2, dtype=np.int64)
        budget = self.call_hands[0]
        while cursor[0] < count:
            with _held_interrupts():  # a call runs whole: Ctrl-C lands between calls
                start = time.perf_counter()
                summary = kernels.play_chunk(t.field, t.schedule, t.charts, ring, t.aware, t.snapshots, tables,
                                             self.seed, first, places, snap_stacks, snap_info, hands, checks, run,
                                             summary, cursor, budget, t.fgs)
                budget = next_call_hands(budget, time.perf_counter() - start)
        self.call_hands[0] = budget
        return {**summarise(t, places, hands, checks, snap_stacks, snap_info, self.records), "ring_uses": ring.uses}


CALL_SECONDS = 0.1
"""The target length of one kernel call of a chunk: Ctrl-C is seen between calls, so it waits about this long
(a call stops between two tables' hands, whatever the field size)."""
FIRST_CALL_HANDS = 64
MAX_CALL_HANDS = 2**40  # a chunk that ends before its budget makes the next budget grow: capped well in int64


def next_call_hands(hands: int, seconds: float) -> int:
    """The hands of the next kernel call, from the last call's ``hands`` and ``seconds``: aimed at
    :data:`CALL_SECONDS`, growing at most fourfold a call (the first calls may have compiled or loaded kernels),
    at most :data:`MAX_CALL_HANDS`. The tournaments do not depend on it.

    >>> next_call_hands(64, 0.001), next_call_hands(1000, 1.0), next_call_hands(10, 100.0)
    (256, 100, 1)
    """
    if seconds <= 0.0:
        return min(MAX_CALL_HANDS, 4 * hands)
    return max(1, min(MAX_CALL_HANDS, 4 * hands, int(hands * CALL_SECONDS / seconds)))


@contextlib.contextmanager
def _held_interrupts() -> Iterator[None]:
    """:func:`pokerlab.progress.deferred_interrupts` where Ctrl-C is ours to handle; nothing in a worker process,
    which ignores it (its parent stops it)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    with deferred_interrupts():
        yield


def summarise(t: Tournament, places: np.ndarray, hands: np.ndarray, checks: np.ndarray, snap_stacks: np.ndarray,
              snap_info: np.ndarray, records: bool) -> dict[str, np.ndarray]:
    """A chunk's mergeable statistics: place counts per group, sums of each tournament's mean prize per group
    and of its square, hands, invariant checks, and (``records``) the raw places and snapshots."""
    count, n = places.shape
    groups = t.group_stack.size
    full_pay = np.zeros(n + 1)
    full_pay[1: t.payouts.size + 1] = t.payouts
    prize = full_pay[places]  # (count, n)
    group_prize = np.zeros((count, groups))
    for r in range(count):
        group_prize[r] = np.bincount(t.group, weights=prize[r], minlength=groups)
    group_prize /= t.group_size
    tracked = t.tracked_places
    flat = places.reshape(-1)
    keep = flat <= tracked
    cells = np.tile(t.group, count)[keep] * tracked + (flat[keep] - 1)
    place_counts = np.bincount(cells, minlength=groups * tracked).reshape(groups, tracked).astype(np.int64)
    out = {
        "tournaments": np.array(count), "hands": np.array(int(hands.sum())),
        "place_counts": place_counts, "prize_sum": group_prize.sum(axis=0), "prize_sq": (group_prize**2).sum(axis=0),
        "max_spread": np.array(int(checks[:, 0].max(initial=0))), "chip_errors": np.array(int(checks[:, 1].sum())),
        "table_errors": np.array(int(checks[:, 2].sum())),
    }
    if records:  # per tournament: kept only when asked (8 bytes each of 10^9 tournaments would be 8 GB)
        out["hands_each"] = hands
        out["places"] = places.astype(np.int32)
        out["snap_stacks"] = snap_stacks
        out["snap_info"] = snap_info
    return out


@dataclass(frozen=True)
class SimulationResult:
    """Merged statistics of a batch.

    Rows are players (``per_player``: given stacks) or groups of identical starting players (same stack and
    play model). ``places[g, m]``: probability that a member finishes in place ``m + 1`` (all places when rows x
    players <= 200,000, else the first paid places within that many cells);
    ``equity[g]``: expected prize per member, with standard errors over
    tournaments; ``icm[g]``: the ICM equity of the starting stacks (``None`` where too big to compute).
    """

    tournament: Tournament
    tournaments: int
    hands: int
    places: np.ndarray
    places_stderr: np.ndarray
    equity: np.ndarray
    equity_stderr: np.ndarray
    icm: np.ndarray | None
    elapsed_s: float
    checks: dict[str, int]
    records: dict[str, np.ndarray] | None = field(default=None, repr=False)
    seed: int = 0
    block_prize: np.ndarray | None = field(default=None, repr=False)  # (chunks, G): sums of mean prizes per chunk
    block_count: np.ndarray | None = field(default=None, repr=False)  # (chunks,): tournaments per chunk
    chart_uses: np.ndarray | None = field(default=None, repr=False)  # per full-ring spot: decisions and reads

    @property
    def fullring_charts(self) -> dict[str, Any] | None:
        """The full-ring chart file's content hash and every spot used with its count (None: no ring player)."""
        uses = self.chart_uses if self.chart_uses is not None else np.zeros(0, dtype=np.int64)
        return chart_record(self.tournament.ring_file, uses)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"players": [{"stack", "places", "places_stderr", "equity", "equity_stderr", "icm",
        ...}], "summary", "tournaments", "hands", "elapsed_s", "seed"}``."""
        t = self.tournament
        rows = []
        for g in range(t.group_stack.size):
            row: dict[str, Any] = {
                "stack": float(t.group_stack[g]),
                "places": [float(x) for x in self.places[g]],
                "places_stderr": [float(x) for x in self.places_stderr[g]],
                "equity": float(self.equity[g]),
                "equity_stderr": float(self.equity_stderr[g]),
                "icm": None if self.icm is None else float(self.icm[g]),
                "play": t.group_model[g],
            }
            if t.names is not None:
                row["name"] = t.names[g]
            if not t.per_player:
                row["count"] = int(t.group_size[g])
            rows.append(row)
        return {
            "players": rows,
            "summary": "per player" if t.per_player else "per starting stack and play model (members pooled)",
            "tournaments": int(self.tournaments), "hands": int(self.hands), "elapsed_s": float(self.elapsed_s),
            "seed": int(self.seed),
            **({"structure": self.tournament.structure} if self.tournament.structure is not None else {}),
            **({"fullring_charts": self.fullring_charts} if self.tournament.ring_file is not None else {}),
        }


def chunk_size(tournaments: int, players: int) -> int:
    """Tournaments per task: a function of the batch alone (never of the worker count), so the merged sums are
    the same bit for bit on any engine; about 64 chunks, each at most ~100,000 player-tournaments."""
    return max(1, min(math.ceil(tournaments / 64), max(1, 100_000 // players)))


SIMULATOR_SOURCES = ("simulation", "icm", "games/pushfold", "pushfold/fgs.py", "cards/kernels.py", "stats/rng.py")
"""The code that plays a tournament: its digest keys the checkpoints (chunks of other code are not resumed)."""


def fingerprint(t: Tournament, seed: int, tournaments: int, size: int, records: bool) -> str:
    """The checkpoint key of a batch: every input and the code that plays it."""
    text = json.dumps({"tournament": t.describe(), "seed": seed, "tournaments": tournaments, "chunk": size,
                       "records": records, "format": 1, "code": sources_digest(SIMULATOR_SOURCES)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def default_workers() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def check_seed(seed: object) -> int | None:
    """``seed`` as a whole number from 0 to :data:`MAX_SEED` (None: draw one), else
    :class:`~pokerlab.errors.InvalidArgumentError`.

    >>> check_seed(2**64)
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: seed must be at most 18,446,744,073,709,551,615 (64 bits), got ...
    """
    checked = validate_seed(seed)
    if checked is not None and checked > MAX_SEED:
        raise InvalidArgumentError(f"seed must be at most {MAX_SEED:,} (64 bits), got {checked:,}")
    return checked


def run(
    t: Tournament, tournaments: int, *, seed: int | None = None, workers: int | None = None, ray: str | None = None,
    checkpoint: str | Path | None = None, records: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Play ``tournaments`` of a validated tournament and merge the statistics (see :func:`simulate`)."""
    tournaments = whole_number(tournaments, "tournaments", low=1, high=MAX_TOURNAMENTS)
    seed = check_seed(seed)
    if workers is None:
        workers = default_workers()
    workers = whole_number(workers, "workers (0: in this process)", low=0)
    if ray is not None and (not isinstance(ray, str) or not ray.strip()):
        raise InvalidArgumentError(f"ray must be an address (local, HOST:PORT or ray://HOST:PORT) or None, got "
                                   f"{ray!r}")
    if checkpoint is not None and (not isinstance(checkpoint, str | os.PathLike) or not str(checkpoint).strip()):
        raise InvalidArgumentError(f"checkpoint must be a directory path or None, got {checkpoint!r}")
    true_or_false(records, "records")
    optional_callback(progress, "progress", "(done, total)")
    if seed is None and checkpoint is not None:
        seed = stored_seed(checkpoint)  # a run whose seed was drawn resumes with it
    if seed is None:
        seed = fresh_seed()
    size = chunk_size(tournaments, t.field.stacks.size)
    n_chunks = math.ceil(tournaments / size)
    check_batch_memory(t, tournaments, records)
    store = Checkpoint(checkpoint, fingerprint(t, seed, tournaments, size, records), n_chunks, seed) \
        if checkpoint is not None else None
    task = ChunkTask(t, seed, tournaments, size, records)
    done = [0]

    def on_chunk(index: int, chunk: dict[str, np.ndarray]) -> None:
        done[0] += int(chunk["tournaments"])
        if progress is not None:
            progress(done[0], tournaments)

    start = time.perf_counter()
    chunks = run_chunks(task, n_chunks, workers=workers, ray_address=ray, checkpoint=store, on_chunk=on_chunk)
    elapsed = time.perf_counter() - start
    return merge(t, chunks, elapsed, seed, records)


CHUNK_OVERHEAD_BYTES = 2048
"""Bytes of one merged chunk's statistics besides its arrays' data: the dict and a dozen numpy array headers."""


def batch_bytes(t: Tournament, tournaments: int, records: bool) -> int:
    """Bytes the merged statistics of a batch hold at the end (every chunk's, kept for the merge in chunk order):
    per chunk its place counts, prize sums and overhead, per tournament its hand count, and with ``records``
    every tournament's places and snapshots.

    >>> t = prepare(players=100_000, payouts=[50, 30, 20])
    >>> batch_bytes(t, 10**9, False) > 10**12  # one tournament per chunk at 100,000 players
    True
    """
    size = chunk_size(tournaments, t.field.stacks.size)
    n_chunks = math.ceil(tournaments / size)
    groups = t.group_stack.size
    per_chunk = CHUNK_OVERHEAD_BYTES + 8 * (groups * t.tracked_places + 2 * groups)
    per_tournament = 0
    if records:
        n = t.field.stacks.size
        s = t.snapshots.players_left.size
        per_tournament = 8 + 4 * n + 8 * s * (n + 2)
    return n_chunks * per_chunk + tournaments * per_tournament


def check_batch_memory(t: Tournament, tournaments: int, records: bool, what: str = "tournaments") -> None:
    """Refuse a batch whose merged statistics would not fit in memory, with the estimate
    (:class:`~pokerlab.errors.ResourceLimitError`); ``what`` names the runs (``continuations`` of a snapshot)."""
    from pokerlab.limits import check_work

    check_work(tournaments, f"{tournaments:,} {what} of {t.field.stacks.size:,} players", per_second=math.inf,
               bytes_each=batch_bytes(t, tournaments, records) / tournaments)


def check_batch_time(tournaments: int, seconds_each: float, workers: int, what: str = "tournaments") -> float:
    """Seconds ``tournaments`` would take on ``workers`` processes at ``seconds_each`` per tournament (one
    measured); refused past :data:`pokerlab.limits.MAX_RUN_SECONDS`
    (:class:`~pokerlab.errors.ResourceLimitError`)."""
    from pokerlab.limits import MAX_RUN_SECONDS, format_duration

    seconds = tournaments * seconds_each / max(workers, 1)
    if seconds > MAX_RUN_SECONDS:
        most = int(MAX_RUN_SECONDS * max(workers, 1) / seconds_each)
        raise ResourceLimitError(f"{tournaments:,} {what} would take about {format_duration(seconds)} on "
                                 f"{max(workers, 1)} worker(s) (one took {seconds_each:.3g} s), more than the "
                                 f"{format_duration(MAX_RUN_SECONDS)} one run may take: ask for at most {most:,}")
    return seconds


def merge(t: Tournament, chunks: list[dict[str, np.ndarray]], elapsed: float, seed: int,
          records: bool) -> SimulationResult:
    """Fold chunk statistics in chunk order into a :class:`SimulationResult`."""
    total = sum(int(c["tournaments"]) for c in chunks)
    place_counts = sum(c["place_counts"] for c in chunks)
    prize_sum = np.zeros(t.group_stack.size)
    prize_sq = np.zeros(t.group_stack.size)
    for c in chunks:
        prize_sum += c["prize_sum"]
        prize_sq += c["prize_sq"]
    size = t.group_size[:, None].astype(np.float64)
    places = place_counts / (total * size)
    # a member's place indicator averaged over the group is 0 or 1/size per tournament (one player per place)
    places_stderr = np.sqrt(np.maximum(places / size - places**2, 0.0) / max(total - 1, 1))
    equity = prize_sum / total
    variance = np.maximum(prize_sq / total - equity**2, 0.0) * total / max(total - 1, 1)
    equity_stderr = np.sqrt(variance / total)
    icm_values = starting_icm(t)
    checks = {"max_table_spread": max(int(c["max_spread"]) for c in chunks),
              "chip_errors": sum(int(c["chip_errors"]) for c in chunks),
              "table_errors": sum(int(c["table_errors"]) for c in chunks)}
    kept = None
    if records:
        kept = {name: np.concatenate([c[name] for c in chunks]) for name in ("places", "snap_stacks", "snap_info",
                                                                             "hands_each")}
    return SimulationResult(t, total, sum(int(c["hands"]) for c in chunks), places, places_stderr, equity,
                            equity_stderr, icm_values, elapsed, checks, kept, seed,
                            np.array([c["prize_sum"] for c in chunks]),
                            np.array([int(c["tournaments"]) for c in chunks]),
                            sum((c["ring_uses"] for c in chunks), np.zeros_like(t.ring.uses)))


ICM_MAX_PLAYERS = 20_000


def starting_icm(t: Tournament) -> np.ndarray | None:
    """ICM equity per group from the starting stacks (exact); ``None`` past :data:`ICM_MAX_PLAYERS` unequal
    stacks."""
    from pokerlab.icm import icm

    stacks = t.field.stacks.astype(np.float64)
    if np.all(stacks == stacks[0]):
        return np.full(t.group_stack.size, t.payouts.sum() / stacks.size)
    if stacks.size > ICM_MAX_PLAYERS:
        return None
    equity = icm(stacks, t.payouts).equity
    per_group: np.ndarray = np.bincount(t.group, weights=equity, minlength=t.group_stack.size) / t.group_size
    return per_group


def simulate(
    stacks: Sequence[float] | np.ndarray | None = None, payouts: Any = None, *, players: int | None = None,
    starting_stack: int | None = None, table_size: int | None = None,
    play: str | Sequence[tuple[str, float]] = "coinflip", bet: int | None = None, schedule: Schedule | None = None,
    structure: str | None = None, start_level: int = 0, tournaments: int = 1000, seed: int | None = None,
    snapshots: Sequence[int | str] = (), workers: int | None = None, ray: str | None = None,
    checkpoint: str | Path | None = None, records: bool = False, charts: dict[str, Charts] | None = None,
    chart_file: str | Path | None = None, progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Simulate ``tournaments`` tournaments and return finishing places and prize equity with standard errors.

    Either ``stacks`` (chips of each player; one table when there are at most 10, else tables of
    ``table_size``) or ``players`` with ``starting_stack`` (a whole field, tables of ``table_size``, default 9).
    ``payouts``: money per place (anything :func:`pokerlab.icm.parse_payouts` returns). ``play``: ``coinflip``
    (each hand a random pair at each table flips a fair coin for ``bet`` chips, 0 or ``None`` = all in),
    ``pushfold`` (the push/fold engine's charts), ``rules`` (:func:`pokerlab.simulation.charts.rules_chart`),
    ``tight`` (the rules at half the aggression), ``fullring`` (the shipped full-ring charts by position, several
    callers: :mod:`pokerlab.simulation.ring`; ``chart_file`` another chart file of this version),
    ``fullring-tight`` (``@KEEP``: those charts, each range cut to its strongest ``KEEP``, default 0.5) or a mix
    ``'fullring:0.6,icm:0.2,fullring-tight:0.2'`` (shares of the field); ``charts`` overrides a model's charts by
    name. ``schedule``: blind levels (default :func:`pokerlab.simulation.schedule.default_schedule`), or
    ``structure``: a named one (``turbo``, ``regular``, ``deep``: :data:`pokerlab.simulation.schedule.STRUCTURES`,
    from the median stack), starting at ``start_level``.
    ``snapshots``: players-left counts (or ``'bubble'``: the start of the round, a hand at every table, in which
    the money is reached, so more than the paid places are left; ``'final'``: a table size) at which to record
    stacks (kept with ``records=True``, as is every
    tournament's finishing order). ``workers``: local processes (default all cores, 0 = this process);
    ``ray``: a Ray address (``local`` starts one here). ``checkpoint``: a directory to save finished chunks and
    resume from. ``progress(done, total)`` is called as chunks finish.

    >>> r = simulate([5, 3, 2], [600, 400], bet=1, tournaments=2000, seed=1, workers=0)
    >>> round(float(r.places[0, 0]), 1), r.tournaments
    (0.5, 2000)
    """
    if payouts is None:
        raise InvalidPayoutsError("give the payouts (money per place)")
    t = prepare(stacks=stacks, players=players, starting_stack=starting_stack, table_size=table_size,
                payouts=payouts, play=play, bet=bet, schedule=schedule, start_level=start_level,
                snapshots=snapshots, charts=charts, chart_file=chart_file, structure=structure)
    return run(t, tournaments, seed=seed, workers=workers, ray=ray, checkpoint=checkpoint, records=records,
               progress=progress)
