"""Payout structures and stack generators.

Payouts are money per place from first down (a float array; places past its end pay 0). Stacks are chips
per player.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np

from pokerlab.errors import (
    InvalidArgumentError,
    InvalidPayoutsError,
    InvalidStacksError,
    excerpt,
    real_number,
    whole_number,
)
from pokerlab.icm.lobby import parse_amount, read_text_file, split_amounts

MAX_PAID_PLACES = 1_000_000  # far above any real tournament; keeps a typo like paid=1e12 from eating the memory
STANDARD = {"50/30/20": (50.0, 30.0, 20.0), "65/35": (65.0, 35.0), "winner": (100.0,)}


def power_law(paid: int, pool: float = 1000.0, a: float = 1.0) -> np.ndarray:
    """Place ``i`` (1-based) gets a share proportional to ``1 / i^a`` of ``pool``, over ``paid`` places.

    >>> power_law(3, pool=110.0, a=1.0).round(6).tolist()
    [60.0, 30.0, 20.0]
    """
    paid = _check_paid(paid)
    if not (math.isfinite(a) and a >= 0):
        raise InvalidPayoutsError(f"power-law exponent must be a finite number >= 0, got {a}")
    _check_pool(pool)
    weights = 1.0 / np.arange(1, paid + 1, dtype=np.float64) ** a
    prizes: np.ndarray = pool * weights / weights.sum()
    return prizes


def flat(paid: int, pool: float = 1000.0) -> np.ndarray:
    """Every one of the ``paid`` places gets ``pool / paid``. ``flat(4, 100.0) -> [25, 25, 25, 25]``."""
    paid = _check_paid(paid)
    _check_pool(pool)
    return np.full(paid, pool / paid)


def standard(name: str, pool: float = 100.0) -> np.ndarray:
    """A standard sit-and-go split by name, scaled to ``pool``: ``'50/30/20'``, ``'65/35'``, ``'winner'``."""
    if name not in STANDARD:
        raise InvalidPayoutsError(f"unknown payout structure {name!r}; known: {', '.join(STANDARD)}")
    _check_pool(pool)
    shares = np.array(STANDARD[name])
    prizes: np.ndarray = pool * shares / shares.sum()
    return prizes


def from_csv(path: str | Path) -> np.ndarray:
    """Payouts (money per place, first place first, in any currency unit) from a UTF-8 CSV file: one number
    per row (first column), or all numbers of a single row.

    A header row that is not numeric is skipped. Blank lines are ignored. A file that is not text is a
    :class:`FileFormatError`; a non-numeric row after the first an :class:`InvalidPayoutsError`.

    Example: a file ``payouts.csv`` holding ``place_payout``, ``500``, ``300``, ``200`` on four lines (or
    ``500,300,200`` on one) gives ``from_csv("payouts.csv") -> array([500., 300., 200.])``.
    """
    text = read_text_file(path, "payouts file")
    rows: list[list[float]] = []
    for row_number, row in enumerate(csv.reader(text.splitlines()), start=1):
        cells = [cell.strip() for cell in row if cell.strip()]
        if not cells:
            continue
        parsed = []
        for cell in cells:
            try:
                parsed.append(float(cell))
            except ValueError:
                parsed = None  # type: ignore[assignment]  # not a number: the row is a header
                break
        if parsed is None:
            if row_number == 1:
                continue  # header
            raise InvalidPayoutsError(f"{path}: row {row_number} is not numeric: {','.join(cells)}")
        rows.append(parsed)
    # one row of several numbers is a horizontal list; otherwise the first column, one place per row
    values = rows[0] if len(rows) == 1 else [row[0] for row in rows]
    if not values:
        raise InvalidPayoutsError(f"{path}: no payouts found")
    return np.asarray(values, dtype=np.float64)


def parse_payouts(spec: str, pool: float | None = None, allow_rising: bool = False) -> np.ndarray:
    """Parse payouts as typed or pasted (money per place, first place first).

    - ``'50,30,20'``, ``'5,000 3,000 2,000'``: money per place (thousands separators as in
      :mod:`pokerlab.icm.lobby`);
    - ``'70/30'``, ``'60/25/15'``, ``'50%,30%,20%'``: percentage splits of ``pool`` (which must add up to
      100%; ``pool`` defaults to 100, or write ``'70/30:pool=500'``);
    - ``'power:a=1,pool=1000,paid=40'``: power law; ``'flat:pool=100,paid=9'``;
    - ``'file:payouts.csv'`` or a path ending in ``.csv``: a CSV file.

    Payouts that rise with place (a typo, or places listed last first) raise :class:`InvalidPayoutsError`
    unless ``allow_rising``.

    >>> parse_payouts("60/25/15", pool=1000).tolist()
    [600.0, 250.0, 150.0]
    """
    if not isinstance(spec, str):
        raise InvalidPayoutsError(f"payouts to parse are text like '50,30,20' or '70/30', got {type(spec).__name__} "
                                  "(give numbers to icm() directly)")
    return check_finite_pool(_parse_payouts(spec, pool, allow_rising))


def _parse_payouts(spec: str, pool: float | None = None, allow_rising: bool = False) -> np.ndarray:
    spec = spec.strip()
    if not spec:
        raise InvalidPayoutsError("payouts are empty")
    if pool is not None:
        _check_pool(pool)
    kind, _, rest = spec.partition(":")
    if kind in ("power", "flat"):
        options = _options(rest, spec)
        pool = options.pop("pool", 1000.0 if pool is None else pool)
        if "paid" not in options:
            raise InvalidPayoutsError(f"{spec!r}: say how many places are paid, e.g. {kind}:paid=40")
        paid = whole_number(options.pop("paid"), f"{spec!r}: paid places", low=1, high=MAX_PAID_PLACES, floats=True,
                            error=InvalidPayoutsError)
        if kind == "power":
            a = options.pop("a", 1.0)
            _no_more(options, spec)
            return power_law(paid, pool, a)
        _no_more(options, spec)
        return flat(paid, pool)
    if kind == "winner":
        options = _options(rest, spec)
        pool = options.pop("pool", 100.0 if pool is None else pool)
        _no_more(options, spec)
        return standard(kind, pool)
    if kind == "file":
        return not_rising(from_csv(rest), allow_rising)
    if spec.lower().endswith(".csv"):
        return not_rising(from_csv(spec), allow_rising)
    if "/" in kind or "%" in kind:
        options = _options(rest, spec)
        if "pool" in options:
            pool = options.pop("pool")
            _check_pool(pool)
        _no_more(options, spec)
        return not_rising(_split(kind, 100.0 if pool is None else pool), allow_rising)
    if rest:
        raise InvalidPayoutsError(f"cannot parse payouts {excerpt(spec)}: options after ':' apply to 70/30, power: "
                                  "and flat: forms")
    if pool is not None:
        raise InvalidPayoutsError("a prize pool applies to percentage splits (70/30, 50%,30%,20%) and to power: "
                                  "and flat:, not to payouts given in money")
    tokens = split_amounts(spec, InvalidPayoutsError, "payouts", between="places")
    money = [parse_amount(token, InvalidPayoutsError, "payout") for token in tokens]
    return not_rising(np.array(money, dtype=np.float64), allow_rising)


def check_finite_pool(payouts: np.ndarray) -> np.ndarray:
    """Refuse payouts whose total a float cannot hold (every share of the pool would overflow); return them.

    >>> check_finite_pool(np.array([1e308, 1e308]))
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidPayoutsError: payouts add up to more than 1.8e308, the largest amount a float holds
    """
    with np.errstate(over="ignore"):
        total = float(np.sum(payouts))
    if not np.isfinite(total):
        raise InvalidPayoutsError("payouts add up to more than 1.8e308, the largest amount a float holds")
    return payouts


def _split(text: str, pool: float) -> np.ndarray:
    """``'60/25/15'`` or ``'50%,30%,20%'`` of ``pool``; the percentages must add up to 100."""
    tokens = [token.strip() for token in re.split(r"[/,;\s]+", text) if token.strip()]
    try:
        shares = np.array([float(token.rstrip("%")) for token in tokens], dtype=np.float64)
    except ValueError:
        raise InvalidPayoutsError(f"cannot parse the split {excerpt(text)}: write percentages like 70/30 or "
                                  "50%,30%,20%") from None
    if shares.size == 0 or not np.all(np.isfinite(shares)) or np.any(shares < 0):
        raise InvalidPayoutsError(f"the split {excerpt(text)} needs non-negative percentages, like 70/30")
    total = float(shares.sum())
    if abs(total - 100.0) > 1e-6:
        raise InvalidPayoutsError(f"the split {excerpt(text)} adds up to {total:g}%, not 100%")
    return pool * shares / 100.0


def not_rising(payouts: np.ndarray, allow_rising: bool) -> np.ndarray:
    """``payouts``, or :class:`InvalidPayoutsError` when they rise with place and ``allow_rising`` is not set (a
    typo, or places listed last first).

    >>> not_rising(np.array([10.0, 30.0]), allow_rising=True).tolist()
    [10.0, 30.0]
    """
    if not allow_rising and payouts.size > 1:
        rises = np.flatnonzero(np.diff(payouts) > 0)
        if rises.size:
            place = int(rises[0]) + 2
            raise InvalidPayoutsError(
                f"place {place} pays {payouts[place - 1]:g}, more than place {place - 1} ({payouts[place - 2]:g}): "
                "list payouts from first place down (allow_rising=True if they really rise)")
    return payouts


def _options(text: str, spec: str) -> dict[str, float]:
    options: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key.strip() not in ("a", "pool", "paid"):
            raise InvalidPayoutsError(f"{spec!r}: expected options a=, pool=, paid=, got {item!r}")
        try:
            options[key.strip()] = float(value)
        except ValueError as error:
            raise InvalidPayoutsError(f"{spec!r}: {key.strip()} must be a number, got {value!r}") from error
    return options


def _no_more(options: dict[str, float], spec: str) -> None:
    if options:
        raise InvalidPayoutsError(f"{spec!r}: option(s) {', '.join(options)} do not apply here")


def _check_paid(paid: int) -> int:
    """``paid`` as an int: a whole number of paid places (a float such as 40.0 too), 1 to :data:`MAX_PAID_PLACES`."""
    return whole_number(paid, "paid places", low=1, high=MAX_PAID_PLACES, floats=True, error=InvalidPayoutsError)


def _check_pool(pool: float) -> None:
    real_number(pool, "prize pool", InvalidPayoutsError)
    if not (math.isfinite(pool) and pool > 0):
        raise InvalidPayoutsError(f"prize pool must be a positive number, got {pool}")


def truncated_normal_stacks(
    players: int, mean: float = 10_000.0, sd: float = 5_000.0, low: float | None = None, seed: int | None = None
) -> np.ndarray:
    """Stacks drawn from a normal law truncated to ``[low, inf)`` (``low`` defaults to ``mean / 20``), by
    rejection; the 50-player benchmark scenario. ``truncated_normal_stacks(50, seed=1)`` -> 50 positive stacks.
    """
    if players < 1:
        raise InvalidStacksError(f"need at least one player, got {players}")
    if not (math.isfinite(mean) and mean > 0 and math.isfinite(sd) and sd >= 0):
        raise InvalidArgumentError(f"mean must be positive and sd non-negative, got mean={mean}, sd={sd}")
    low = mean / 20.0 if low is None else low
    if not (math.isfinite(low) and 0 < low < mean + 8 * sd):
        raise InvalidArgumentError(f"truncation point must be positive and below mean + 8 sd, got {low}")
    from pokerlab.stats.rng import numpy_generator  # with numba (0.3-0.5 s): only where stacks are drawn

    rng = numpy_generator(seed)
    out = np.empty(0)
    while out.size < players:
        draw = rng.normal(mean, sd, size=2 * players + 16)
        out = np.concatenate([out, draw[draw >= low]])
    return out[:players]
