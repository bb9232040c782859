"""One postflop spot solved on many flops, and the report players read: each flop's root strategy, EVs, equity
and exploitability, and the same weighted over all flops and by texture.

Each flop is one task of the tournament simulator's batch engine (:mod:`pokerlab.simulation.batch`): local
processes by default or a Ray cluster, a checkpoint folder that keeps every finished flop (written whole or not
at all), so a report stopped by Ctrl-C resumes where it stopped, and a rerun with other inputs is refused. The
flops and their weights come from :mod:`pokerlab.postflop.flops`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import Interrupted, InvalidArgumentError, whole_number
from pokerlab.postflop.flops import TEXTURES, FlopSet, flop_name, parse_flops, texture
from pokerlab.postflop.solve import build_game, parse_target, solve
from pokerlab.provenance import sources_digest
from pokerlab.simulation.batch import Checkpoint, run_chunks
from pokerlab.simulation.core import default_workers

#: The code a report's numbers come from (its digest is in every report and checkpoint).
REPORT_SOURCES = ("games/postflop", "solvers/postflop_cfr.py", "postflop", "cards")
TEXTURE_FIELDS = tuple(TEXTURES)
REPORT_FORMAT = "pokerlab-flop-report"


@dataclass(frozen=True)
class FlopTask:
    """The solve of one flop of a report (picklable: it runs in a worker process or as a Ray task)."""

    spot: dict[str, Any]
    flops: np.ndarray
    target: float | None
    iterations: int | None

    def __call__(self, index: int) -> dict[str, np.ndarray]:
        spot = self.spot
        started = time.perf_counter()
        result = solve(flop_name(self.flops[index]), spot["oop"], spot["ip"], pot=spot["pot"], stack=spot["stack"],
                       bets=spot["bets"], raises=spot["raises"], donk=spot["donk"], target=self.target,
                       iterations=self.iterations, compress=spot["compress"])
        root = result.root
        mix = root.frequencies
        equity = root.to_dict()["equity"]
        return {"actions": np.array(list(mix), dtype=str), "frequencies": np.array(list(mix.values())),
                "ev": np.array(result.ev), "oop_equity": np.array(np.nan if equity is None else equity),
                "exploitability_percent": np.array(result.exploitability_percent),
                "iterations": np.array(result.iterations), "seconds": np.array(time.perf_counter() - started)}


@dataclass(frozen=True)
class FlopReport:
    """A spot solved on a set of flops. ``rows``: one dict per finished flop (flop, weight, texture, OOP's root
    action frequencies, both players' EVs in chips, OOP's equity, exploitability in % of the pot, iterations,
    seconds); ``actions``: OOP's first actions; ``complete``: every flop is in."""

    spot: dict[str, Any]
    flops: FlopSet
    actions: tuple[str, ...]
    rows: list[dict[str, Any]]
    target_percent: float | None
    code: str
    fingerprint: str

    @property
    def complete(self) -> bool:
        return len(self.rows) == len(self.flops.weights)

    def aggregate(self, by: str | None = None) -> dict[str, dict[str, Any]]:
        """Weighted means over the finished flops (weights: flops represented), overall (``by`` None, key
        ``"all"``) or per value of a texture field (``suits``, ``pairing``, ``high``, ``connectedness``)."""
        if by is not None and by not in TEXTURE_FIELDS:
            raise InvalidArgumentError(f"group by one of {', '.join(TEXTURE_FIELDS)}, got {by!r}")
        groups: dict[str, list[dict[str, Any]]] = {key: [] for key in (("all",) if by is None else TEXTURES[by])}
        for row in self.rows:
            groups["all" if by is None else row[by]].append(row)
        out: dict[str, dict[str, Any]] = {}
        for key, rows in groups.items():
            if not rows:
                continue
            w = np.array([row["weight"] for row in rows], dtype=np.float64)
            share = w / w.sum()

            def mean(values: Sequence[float], share: np.ndarray = share) -> float:
                return float(share @ np.asarray(values, dtype=np.float64))

            out[key] = {"flops": len(rows), "weight": int(w.sum()),
                        "frequencies": {a: mean([row["frequencies"][a] for row in rows]) for a in self.actions},
                        "oop_ev": mean([row["oop_ev"] for row in rows]), "ip_ev": mean([row["ip_ev"] for row in rows]),
                        "oop_equity": mean([row["oop_equity"] for row in rows]),
                        "exploitability_percent_max": max(row["exploitability_percent"] for row in rows)}
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary: the spot, the inputs' and the code's hashes, the aggregates and every row."""
        import pokerlab

        return {"format": REPORT_FORMAT, "pokerlab": pokerlab.__version__, "code": self.code,
                "fingerprint": self.fingerprint, "spot": self.spot, "target_percent": self.target_percent,
                "flops": len(self.flops.weights), "finished": len(self.rows), "complete": self.complete,
                "actions": list(self.actions), "all": self.aggregate()["all"] if self.rows else None,
                "by_texture": {field: self.aggregate(field) for field in TEXTURE_FIELDS} if self.rows else {},
                "rows": self.rows}

    def write(self, directory: str | Path, *, plot: bool = False) -> list[Path]:
        """``summary.json`` and ``flops.parquet`` (one row per flop) in ``directory``, and with ``plot``
        ``frequencies.png`` (OOP's action mix by texture); returns the paths written."""
        from pokerlab.io import atomic_write
        from pokerlab.simulation.output import check_output_directory, pyarrow_module

        folder = check_output_directory(directory)
        written = []
        with atomic_write(folder / "summary.json") as temporary:
            temporary.write_text(json.dumps(self.to_dict(), indent=1))
        written.append(folder / "summary.json")
        if self.rows:
            pa = pyarrow_module()
            columns: dict[str, list[Any]] = {name: [row[name] for row in self.rows] for name in self.rows[0]
                                             if name != "frequencies"}
            for action in self.actions:
                columns[f"freq {action}"] = [row["frequencies"][action] for row in self.rows]
            with atomic_write(folder / "flops.parquet") as temporary:
                pa.parquet.write_table(pa.table(columns), temporary)
            written.append(folder / "flops.parquet")
        if plot and self.rows:
            written.append(self._plot(folder / "frequencies.png"))
        return written

    def _plot(self, path: Path) -> Path:
        from pokerlab.plotting import pyplot, save_figure

        plt = pyplot()
        groups = [(key, values) for field in (None, "suits", "pairing", "high")
                  for key, values in self.aggregate(field).items()]
        figure, axis = plt.subplots(figsize=(max(6.0, 0.7 * len(groups)), 4.0))
        bottom = np.zeros(len(groups))
        for action in self.actions:
            heights = np.array([values["frequencies"][action] for _, values in groups])
            axis.bar(range(len(groups)), heights, bottom=bottom, label=action)
            bottom += heights
        axis.set_xticks(range(len(groups)), [f"{key}\n({values['flops']})" for key, values in groups], fontsize=7)
        axis.set_ylabel("OOP's first action (share)")
        axis.set_title(f"{self.spot['oop']} vs {self.spot['ip']}: pot {self.spot['pot']}, stack "
                       f"{self.spot['stack']}", fontsize=9)
        axis.legend(fontsize=7, loc="upper right")
        figure.tight_layout()
        return save_figure(figure, path, dpi=110)

def flop_report(
    oop: str, ip: str, *, pot: float, stack: float, flops: str | FlopSet = "49", bets: str = "33%, 75%, a",
    raises: str = "2.5x, a", donk: bool = True, target: float | str | None = 1.0, iterations: int | None = 1000,
    workers: int | None = None, ray: str | None = None, checkpoint: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None, compress: bool = False,
) -> FlopReport:
    """Solve the spot (OOP's and IP's ranges, starting ``pot`` and effective ``stack`` in chips, the bet tree)
    on every flop of ``flops`` (``"all"``, a subset size such as ``"49"``, a list such as ``"AsKd2c QhJh9h"``,
    or a :class:`~pokerlab.postflop.flops.FlopSet`), each to ``target`` (% of the pot) or ``iterations``, on
    ``workers`` processes (None: one per core; 0: this process) or the Ray cluster ``ray``; ``checkpoint``
    keeps finished flops for a resume. ``compress``: every flop solved in the 16-bit storage (about half the
    memory; see :func:`~pokerlab.postflop.solve.solve`), the spot saying so. ``progress(done, total)`` after
    each flop. Ctrl-C raises :class:`~pokerlab.errors.Interrupted` with the report of the finished flops
    (``partial``).

    >>> report = flop_report("AA, KK", "QQ", pot=100, stack=100, flops="7h7d2c", bets="a", raises="",
    ...                      iterations=5, workers=0)
    >>> report.complete, report.actions, round(report.rows[0]["oop_ev"] + report.rows[0]["ip_ev"], 6)
    (True, ('check', 'all-in 100'), 100.0)
    """
    flop_set = flops if isinstance(flops, FlopSet) else parse_flops(str(flops))
    workers = default_workers() if workers is None else whole_number(workers, "workers", low=0, high=256)
    target_percent = parse_target(target)
    if iterations is not None:
        iterations = whole_number(iterations, "iterations", low=1)
    # every input checked on the first flop before any work (ranges, sizes, memory), without building a tree
    _, spec = build_game(flop_name(flop_set.cards[0]), oop, ip, pot=pot, stack=stack, bets=bets, raises=raises,
                         donk=donk, build=False, compress=compress)
    spot = {key: spec[key] for key in ("oop", "ip", "pot", "stack", "bets", "raises", "donk")}
    spot["compress"] = bool(compress)  # in the fingerprint: a checkpoint of the other storage is refused
    code = sources_digest(REPORT_SOURCES)
    inputs = json.dumps({"spot": spot, "flops": flop_set.cards.tolist(), "weights": flop_set.weights.tolist(),
                         "target": target_percent, "iterations": iterations, "code": code}, sort_keys=True)
    fingerprint = hashlib.sha256(inputs.encode()).hexdigest()[:16]
    store = Checkpoint(checkpoint, fingerprint, len(flop_set.weights)) if checkpoint is not None else None
    task = FlopTask(spot, flop_set.cards, target_percent, iterations)
    finished: dict[int, dict[str, np.ndarray]] = {}

    def on_chunk(index: int, chunk: dict[str, np.ndarray]) -> None:
        finished[index] = chunk
        if progress is not None:
            progress(len(finished), len(flop_set.weights))

    def report() -> FlopReport:
        actions = tuple(str(a) for a in next(iter(finished.values()))["actions"]) if finished else ()
        rows = [_row(flop_set, index, finished[index], actions) for index in sorted(finished)]
        return FlopReport(spot, flop_set, actions, rows, target_percent, code, fingerprint)

    try:
        run_chunks(task, len(flop_set.weights), workers=workers, ray_address=ray, checkpoint=store,
                   on_chunk=on_chunk)
    except KeyboardInterrupt:
        kept = f"; rerun with the same checkpoint ({checkpoint}) to resume" if checkpoint is not None else ""
        raise Interrupted(f"after {len(finished)} of {len(flop_set.weights)} flops{kept}", partial=report()) \
            from None
    return report()


def _row(flops: FlopSet, index: int, chunk: dict[str, np.ndarray], actions: tuple[str, ...]) -> dict[str, Any]:
    got = tuple(str(a) for a in chunk["actions"])
    if got != actions:  # the root's sizes depend on the pot and stack only: the same on every flop
        raise AssertionError(f"first actions differ between flops: {got} and {actions}")  # pragma: no cover
    cards = flops.cards[index]
    ev = chunk["ev"]
    return {"flop": flop_name(cards), "weight": int(flops.weights[index]), **texture(cards),
            "frequencies": dict(zip(actions, (float(f) for f in chunk["frequencies"]), strict=True)),
            "oop_ev": float(ev[0]), "ip_ev": float(ev[1]), "oop_equity": float(chunk["oop_equity"]),
            "exploitability_percent": float(chunk["exploitability_percent"]),
            "iterations": int(chunk["iterations"]), "seconds": float(chunk["seconds"])}
