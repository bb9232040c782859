"""Exact heads-up preflop equity of any two ranges from the shipped table, in plain numpy (no compiled kernel).

Two players, no board and no dead card: every matchup of two disjoint combos meets on the same
``C(48, 5) = 1,712,304`` boards, and ``data/preflop_headsup.npz`` holds the boards won and tied of one matchup
per orbit of suit relabelling and swapping the hands (47,008 of them; see :mod:`pokerlab.equity.preflop`,
which builds the table). A range against a range is then a sum over its matchups of table entries: the same
integer counts as an enumeration of every board (weighted ranges: the same weighted sums, up to rounding),
in a few milliseconds, with neither numba nor a kernel to compile or load. This is how ``pokerlab equity
AsKs random`` answers at once, on its first run too.

>>> from pokerlab.equity.problem import prepare_problem
>>> outcome = headsup_preflop_outcome(prepare_problem(["AsAh", "KsKh"], "", ""))
>>> outcome["wins"], outcome["ties"], outcome["showdowns"]
((1410336, 292660), (9308, 9308), 1712304)
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from pokerlab.cards.classes import CLASS_OF_COMBO, COMBO_MASKS, NUMBER_OF_CLASSES, NUMBER_OF_COMBOS
from pokerlab.cards.tables import cached_arrays
from pokerlab.equity.symmetry import _tables as suit_tables
from pokerlab.errors import FileFormatError, InvalidRangeError

if TYPE_CHECKING:  # the problem's module parses ranges: push/fold's class tables need none of it
    from pokerlab.equity.problem import EquityProblem

BOARDS = 1_712_304  # C(48, 5): the boards of one heads-up preflop matchup
TABLE_FILE = "preflop_headsup.npz"
TABLE_FORMAT_VERSION = 1
_PAIRS_PER_STEP = 65_536  # matchups keyed at once: 24 relabellings x this many int64 keys, about 12 MB


def answers(problem: EquityProblem) -> bool:
    """Whether the table answers ``problem`` exactly: two players, no board and no dead card."""
    return len(problem.ranges) == 2 and not problem.board and not problem.dead


@lru_cache(maxsize=1)  # read once per process (a few milliseconds)
def shipped_counts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shipped table: sorted representative keys, and the boards its first combo wins and ties (plain numpy:
    the table's readers load no compiler; :mod:`pokerlab.equity.preflop` builds it)."""
    try:
        with resources.files("pokerlab.data").joinpath(TABLE_FILE).open("rb") as handle, np.load(handle) as stored:
            if int(stored["format_version"]) != TABLE_FORMAT_VERSION:
                raise FileFormatError(f"{TABLE_FILE}: format version {int(stored['format_version'])}, "
                                      f"expected {TABLE_FORMAT_VERSION}: run scripts/build_preflop_table.py")
            return (stored["representatives"].astype(np.int64), stored["wins"].astype(np.int64),
                    stored["ties"].astype(np.int64))
    except FileNotFoundError:
        raise FileFormatError(f"package data {TABLE_FILE} is missing: run scripts/build_preflop_table.py") from None


def matchup_counts(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boards (of 1,712,304) on which combo ``first[i]`` beats and ties combo ``second[i]`` preflop, for arrays of
    disjoint combo indices (as :data:`pokerlab.cards.ranges.COMBOS`).

    A matchup's key is the smallest over the 24 suit relabellings of ``min * 1326 + max`` of its two images; the
    table stores the wins of that representative's first combo, which is ``first``'s image exactly when the
    smallest ordered key ``first * 1326 + second`` equals it (as :func:`pokerlab.equity.preflop.headsup_counts`).

    >>> from pokerlab.cards.classes import combo_index
    >>> wins, ties = matchup_counts(np.array([combo_index(51, 50)]), np.array([combo_index(47, 46)]))
    >>> int(wins[0]), int(ties[0])
    (1410336, 9308)
    """
    representatives, rep_wins, rep_ties = shipped_counts()
    _, images = suit_tables()
    wins = np.empty(len(first), dtype=np.int64)
    ties = np.empty(len(first), dtype=np.int64)
    for lo in range(0, len(first), _PAIRS_PER_STEP):
        ga, gb = images[:, first[lo:lo + _PAIRS_PER_STEP]], images[:, second[lo:lo + _PAIRS_PER_STEP]]
        unordered = (np.minimum(ga, gb) * NUMBER_OF_COMBOS + np.maximum(ga, gb)).min(axis=0)
        ordered = (ga * NUMBER_OF_COMBOS + gb).min(axis=0)
        index = np.minimum(np.searchsorted(representatives, unordered), len(representatives) - 1)
        if not np.array_equal(representatives[index], unordered):
            raise FileFormatError(f"{TABLE_FILE} does not cover every matchup: run scripts/build_preflop_table.py")
        won, tied = rep_wins[index], rep_ties[index]
        wins[lo:lo + len(won)] = np.where(ordered == unordered, won, BOARDS - won - tied)
        ties[lo:lo + len(won)] = tied
    return wins, ties


def headsup_preflop_outcome(problem: EquityProblem) -> dict[str, Any]:
    """The outcome fields of an exact result (as :func:`pokerlab.equity.exact.solve_exact` returns them) of a
    problem the table :func:`answers`: integer win and tie counts for unweighted ranges, weighted shares else
    (the PokerStove convention: each matchup weighted by the product of its combos' weights)."""
    hero, villain = problem.ranges
    a, b = hero.indices, villain.indices
    fits = (COMBO_MASKS[a][:, None] & COMBO_MASKS[b][None, :]) == 0
    rows, cols = np.nonzero(fits)
    if len(rows) == 0:
        from pokerlab.equity.problem import NO_JOINT_COMBO

        raise InvalidRangeError(NO_JOINT_COMBO)
    first, second = a[rows], b[cols]
    wins, ties = matchup_counts(first, second)
    losses = BOARDS - wins - ties
    showdowns = len(rows) * BOARDS
    weights = hero.weights[first] * villain.weights[second]
    if np.all(weights == 1.0):
        won, lost, tied = int(wins.sum()), int(losses.sum()), int(ties.sum())
        return {"equity": np.array([won + tied / 2, lost + tied / 2]) / showdowns,
                "win": np.array([won, lost]) / showdowns, "tie": np.array([tied, tied]) / showdowns,
                "stderr": None, "showdowns": showdowns, "wins": (won, lost), "ties": (tied, tied),
                "categories": None, "stop_reason": None}
    total = float(weights.sum()) * BOARDS
    won_w, lost_w, tied_w = float(weights @ wins), float(weights @ losses), float(weights @ ties)
    return {"equity": np.array([won_w + tied_w / 2, lost_w + tied_w / 2]) / total,
            "win": np.array([won_w, lost_w]) / total, "tie": np.array([tied_w, tied_w]) / total,
            "stderr": None, "showdowns": showdowns, "wins": None, "ties": None, "categories": None,
            "stop_reason": None}


class ClassTables(NamedTuple):
    """The 169 x 169 class tables of heads-up preflop all-ins (the fields of the same names of
    :class:`pokerlab.equity.preflop.PreflopTables`, computed by the same formula from the same counts):
    ``class_pairs[A, B]`` the combos of class B that one combo of class A leaves, ``class_win``/``class_tie[A, B]``
    the mean over A's combos of the summed win / tie probabilities against B's combos."""

    class_pairs: np.ndarray
    class_win: np.ndarray
    class_tie: np.ndarray


@lru_cache(maxsize=1)
def class_tables() -> ClassTables:
    """The class tables in plain numpy (what a heads-up push/fold solve reads; no compiled kernel): built from the
    shipped table on first use (about a second) and cached under the user cache directory (then milliseconds).

    >>> from pokerlab.cards.classes import class_index
    >>> tables = class_tables()
    >>> round(float(tables.class_win[class_index("AA"), class_index("KK")] / 6), 6)  # AA's win share against KK
    0.817147
    """
    return cached_arrays(f"preflop-classes-v{TABLE_FORMAT_VERSION}.npz", ClassTables, _class_tables)


def _class_tables() -> ClassTables:
    """Every ordered pair's wins and ties from the shipped table (:func:`matchup_counts`), averaged over classes
    as :func:`pokerlab.equity.preflop.preflop_tables` averages its expanded table."""
    first, second = np.nonzero((COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) == 0)
    wins = np.zeros((NUMBER_OF_COMBOS, NUMBER_OF_COMBOS), dtype=np.int64)
    ties = np.zeros_like(wins)
    wins[first, second], ties[first, second] = matchup_counts(first, second)
    sizes = np.bincount(CLASS_OF_COMBO, minlength=NUMBER_OF_CLASSES).astype(np.float64)
    member = np.zeros((NUMBER_OF_COMBOS, NUMBER_OF_CLASSES))
    member[np.arange(NUMBER_OF_COMBOS), CLASS_OF_COMBO] = 1.0
    average = member.T / sizes[:, None]
    disjoint = np.zeros((NUMBER_OF_COMBOS, NUMBER_OF_COMBOS))
    disjoint[first, second] = 1.0
    return ClassTables(average @ disjoint @ member, average @ (wins / BOARDS) @ member,
                       average @ (ties / BOARDS) @ member)
