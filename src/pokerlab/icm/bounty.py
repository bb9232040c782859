"""Knockout bounties: the expected bounty money of every player by the future-bounty model, valued through the
Malmuth-Harville (ICM) finishing order.

The model (HoldemResources' "standard" bounty model): the players finish in the Malmuth-Harville order (the
winner chosen with probability proportional to chips, then second place among the rest, and so on); the player
who finishes in place ``m`` was busted by one of the ``m - 1`` players who finish ahead of him, each equally
likely; the winner keeps the bounty on his own head. With ``share = 1`` (a plain knockout) the buster is paid the
whole bounty. A progressive knockout (``share < 1``) pays ``share`` of the busted player's head to the buster in
cash and adds the rest onto the buster's own head, which he carries into his later all-ins.

What follows exactly from the model: the bounty on the head of the player in place ``m`` travels up a chain of
busters, each a place chosen uniformly above the last, until it reaches the winner. The player in place ``r``
is on that chain after ``L`` steps with a probability that does not depend on who the players are, and summing
``share (1 - share)^(L - 1)`` over the chain gives the fraction of the head that reaches place ``r`` in cash:
``a(m, r) = share * F(m - 2) / ((m - 1) F(r - 1))`` for ``r > 1`` and ``F(m - 2) / (m - 1)`` for the winner
(who keeps what reaches him), with ``F(x) = prod_{k=1..x} (1 + (1 - share) / k)``. The fractions of one head sum
to 1 (no bounty money is lost), and with ``share = 1`` they are ``1 / (m - 1)`` each. Being a product of a
factor of ``m`` and a factor of ``r``, the expectation over the finishing order is one pass of the subset
recursion of :mod:`pokerlab.icm.subset` that also carries, per set of placed players, each one's expected
``1 / F(r - 1)`` (exact, ``2^n n^2`` work: up to :data:`EXACT_MAX_PLAYERS` live players), or an average over
finishing orders drawn from exponential clocks (any field, with a standard error).

Players with a stack of 0 are out: their bounty is no longer in play and they win none.

>>> r = bounty_equity([10, 20, 30, 40, 50], 1.0)
>>> [round(float(x), 4) for x in r.equity]
[0.4143, 0.7685, 1.0475, 1.2823, 1.4874]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import InvalidArgumentError, InvalidStacksError, excerpt, real_number, whole_number
from pokerlab.icm.lobby import amounts, is_amount, parse_amount, split_amounts
from pokerlab.icm.small_field import PLAIN_MAX_PLAYERS
from pokerlab.limits import check_work
from pokerlab.stats import validate_seed

BOUNTY_METHODS = ("auto", "exact", "montecarlo")
EXACT_MAX_PLAYERS = 18  # the exact recursion holds 2^n x n numbers (38 MB at 18 live players)
DEFAULT_SAMPLES = 200_000  # finishing orders drawn by default, fewer for a big field (DEFAULT_SAMPLE_WORK)
DEFAULT_SAMPLE_WORK = 20_000_000  # players x orders by default: about a second (1,000 players: 20,000 orders)
MIN_DEFAULT_SAMPLES = 2_000
DEFAULT_PKO_SHARE = 0.5
SAMPLE_BATCH_CELLS = 2_000_000  # players x orders per numpy batch (16 MB an array)
# an optimistic rate of the sampled path (players x orders a second; measured 7-30 million CPU-time on this
# project's 2-core EPYC under load 5-8), for refusing up front a run that could not finish
SAMPLE_PLAYERS_PER_SECOND = 1e8


@dataclass(frozen=True)
class BountyResult:
    """Expected bounty money per player: ``equity[i]`` is what player i is expected to collect from bounties
    from now on (the winner's own head included), in the bounties' money; ``bounties`` the bounty on each head
    now; ``share`` the fraction of a head paid to the buster in cash (1 for a plain knockout); ``stderr`` per
    player when sampled (``None`` when exact) and ``samples`` the finishing orders drawn (0 when exact)."""

    stacks: np.ndarray
    bounties: np.ndarray
    share: float
    equity: np.ndarray
    method: str
    elapsed_s: float
    stderr: np.ndarray | None = None
    samples: int = 0

    @property
    def exact(self) -> bool:
        """Whether the expected bounties are exact (not sampled)."""
        return self.stderr is None

    @property
    def format(self) -> str:
        """``knockout`` or ``progressive knockout``."""
        return "knockout" if self.share == 1.0 else "progressive knockout"

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"format", "share", "method", "bounties", "bounty_equity", "elapsed_s"}`` and, when
        sampled, ``bounty_stderr`` and ``samples``."""
        out: dict[str, Any] = {
            "format": "pko" if self.share < 1.0 else "knockout", "share": self.share, "method": self.method,
            "bounties": [float(x) for x in self.bounties], "bounty_equity": [float(x) for x in self.equity],
            "elapsed_s": float(self.elapsed_s)}
        if self.stderr is not None:
            out["bounty_stderr"] = [float(x) for x in self.stderr]
            out["samples"] = int(self.samples)
        return out


def validate_bounties(bounties: Any, players: int) -> np.ndarray:
    """Bounties per player as a float array (a single number: the same bounty on every head), or the specific
    :class:`InvalidArgumentError`: negative, not finite, or a list whose length is not the number of players.

    >>> validate_bounties(2, 3).tolist()
    [2.0, 2.0, 2.0]
    >>> validate_bounties([1, 2], 3)
    Traceback (most recent call last):
    ...
    pokerlab.errors.InvalidArgumentError: 2 bounties for 3 players: give one bounty per player, or one for all
    """
    if isinstance(bounties, int | float | np.integer | np.floating) and not isinstance(bounties, bool):
        b = np.full(players, real_number(bounties, "bounty"))
    else:
        b = amounts(bounties, "bounties", InvalidArgumentError)
        if b.size != players:
            raise InvalidArgumentError(f"{b.size} bounties for {players} players: give one bounty per player, or "
                                       "one for all")
    if not np.all(np.isfinite(b)):
        raise InvalidArgumentError("bounties must be finite numbers")
    if np.any(b < 0):
        first = int(np.flatnonzero(b < 0)[0])
        raise InvalidArgumentError(f"bounties must be >= 0, player {first + 1} has {b[first]:g}")
    return b


def parse_bounties(text: str) -> float | list[float]:
    """Bounties as typed: one amount for every head (``10``, ``1,000``) or one per player (``1,2,1.5`` or
    ``'1 2 1.5'``), or an :class:`InvalidArgumentError` saying what is wrong.

    >>> parse_bounties("12.5"), parse_bounties("1,2,1.5"), parse_bounties("1,000 500")
    (12.5, [1.0, 2.0, 1.5], [1000.0, 500.0])
    """
    tokens = split_amounts(text, InvalidArgumentError, "bounties")
    values = [parse_amount(token, InvalidArgumentError, "bounty") for token in tokens]
    return values[0] if len(values) == 1 else values


def split_bounty_column(text: str) -> tuple[str, str]:
    """A stacks file whose lines end with each player's bounty (``alice 5,000 12.5``, one player per line) as
    ``(the stacks' text, the bounties' text)`` for :func:`~pokerlab.icm.lobby.parse_stacks` and
    :func:`parse_bounties`.

    >>> split_bounty_column("alice 5,000 10\\nbob 3,000 12.5\\n")
    ('alice 5,000\\nbob 3,000', '10 12.5')
    """
    stacks: list[str] = []
    bounties: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        head, _, last = line.strip().rpartition(" ") if "\t" not in line else line.strip().rpartition("\t")
        if not head.strip() or not is_amount(last):
            raise InvalidArgumentError(f"line {number} of the stacks file ({excerpt(line)}) has no bounty column: "
                                       "write one player per line as 'name stack bounty'")
        stacks.append(head.strip())
        bounties.append(last.strip())
    if not stacks:
        raise InvalidArgumentError("the stacks file is empty")
    return "\n".join(stacks), " ".join(bounties)


def validate_share(share: Any) -> float:
    """The cash share of a progressive knockout, in (0, 1] (1 = a plain knockout)."""
    value = real_number(share, "PKO share")
    if not (math.isfinite(value) and 0 < value <= 1):
        raise InvalidArgumentError(f"the PKO share (the part of a bounty paid to the buster) must be in (0, 1], got "
                                   f"{share}")
    return value


def knockout_format(bounty: Any, pko_share: Any, players: int) -> tuple[np.ndarray, float]:
    """``(bounties, share)`` of a request that gives ``bounty`` (one number or one per player) and ``pko_share``
    (``None``: a plain knockout), or the specific :class:`InvalidArgumentError`.

    >>> knockout_format(2, 0.5, 3)
    (array([2., 2., 2.]), 0.5)
    """
    if bounty is None:
        raise InvalidArgumentError("a progressive knockout (pko_share) needs bounties: give bounty too")
    return validate_bounties(bounty, players), 1.0 if pko_share is None else validate_share(pko_share)


def chain_factors(n: int, share: float) -> tuple[np.ndarray, np.ndarray]:
    """``(u, v)``: the fraction of the head of the player in place ``m`` that the player in place ``r < m``
    collects is ``u[m - 1] * v[r - 1]`` (module docstring; ``u[0] = 0``: nobody busts the winner, ``v[0] = 1``:
    the winner keeps what reaches him).

    >>> u, v = chain_factors(3, 0.5)
    >>> [float(u[2] * v[0]), float(u[2] * v[1])]  # place 3's head: 3/4 ends with the winner, 1/4 with second
    [0.75, 0.25]
    """
    rest = 1.0 - share
    f = np.ones(max(n, 1))  # f[x] = prod_{k=1..x} (1 + rest / k)
    for x in range(1, f.size):
        f[x] = f[x - 1] * (1.0 + rest / x)
    u = np.zeros(n)
    v = np.ones(n)
    for m in range(2, n + 1):
        u[m - 1] = f[m - 2] / (m - 1)
    for r in range(2, n + 1):
        v[r - 1] = share / f[r - 1]
    return u, v


def bounty_equity(stacks: Any, bounties: Any, *, share: Any = 1.0, method: str = "auto",
                  samples: int | None = None, seed: int | None = None) -> BountyResult:
    """Expected bounty money of every player by the future-bounty model (module docstring).

    ``stacks``: chips per player (0 = busted). ``bounties``: the bounty on each head now (money), one number for
    all or one per player. ``share``: the fraction of a busted head paid to the buster in cash; 1 (default) is a
    plain knockout, 0.5 the usual progressive knockout (the rest goes onto the buster's head). ``method``:
    ``exact`` (up to :data:`EXACT_MAX_PLAYERS` live players), ``montecarlo`` (``samples`` finishing orders,
    by default 200,000 or, for a big field, as many as take about a second (20,000 at 1,000 players), seeded by
    ``seed``; the standard errors are reported) or ``auto`` (exact where it fits). The expected bounties sum to the
    bounties of the live players.

    >>> r = bounty_equity([5000, 3000, 2000], [10, 10, 10], share=0.5)
    >>> round(float(r.equity.sum()), 9)
    30.0
    """
    if method not in BOUNTY_METHODS:
        raise InvalidArgumentError(f"unknown bounty method {method!r}; use one of {', '.join(BOUNTY_METHODS)}")
    s = amounts(stacks, "stacks", InvalidStacksError)
    if s.size == 0:
        raise InvalidStacksError("no players: give at least one stack")
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise InvalidStacksError("stacks must be finite numbers >= 0")
    if not np.any(s > 0):
        raise InvalidStacksError("every stack is 0: at least one player must have chips")
    b = validate_bounties(bounties, s.size)
    rate = validate_share(share)
    seed = validate_seed(seed)
    live = np.flatnonzero(s > 0)
    chosen = method
    if method == "auto":
        chosen = "exact" if live.size <= EXACT_MAX_PLAYERS else "montecarlo"
    if chosen == "exact" and (samples is not None or seed is not None):
        raise InvalidArgumentError("samples and seed apply only to method='montecarlo'; the exact method has none")
    if chosen == "exact" and live.size > EXACT_MAX_PLAYERS:
        raise InvalidArgumentError(f"the exact bounty recursion takes 2^n x n memory: at most {EXACT_MAX_PLAYERS} "
                                   f"live players, got {live.size}; use method='montecarlo'")
    start = time.perf_counter()
    equity = np.zeros(s.size)
    stderr = None
    drawn = 0
    stacks_live = s[live] / s[live].max()
    if chosen == "exact":
        # "auto" answers a final table in plain numpy (no numba to load: a CLI run stays under a second)
        plain = method == "auto" and live.size <= PLAIN_MAX_PLAYERS
        equity[live] = exact_bounty_equity(stacks_live, b[live], rate, compiled=not plain)
    else:
        count = (max(MIN_DEFAULT_SAMPLES, min(DEFAULT_SAMPLES, DEFAULT_SAMPLE_WORK // live.size)) if samples is None
                 else whole_number(samples, "samples", low=2, floats=True))
        check_work(count * live.size, f"{count:,} finishing orders of {live.size:,} players",
                   per_second=SAMPLE_PLAYERS_PER_SECOND)
        mean, se = sampled_bounty_equity(stacks_live, b[live], rate, count, seed)
        equity[live] = mean
        stderr = np.zeros(s.size)
        stderr[live] = se
        drawn = count
    return BountyResult(s, b, rate, equity, chosen, time.perf_counter() - start, stderr, drawn)


def exact_bounty_equity(stacks: np.ndarray, bounties: np.ndarray, share: float, *,
                        compiled: bool = True) -> np.ndarray:
    """Expected bounty money of each player, exactly (positive ``stacks``; a kernel's input, unchecked): by the
    compiled kernel (:func:`~pokerlab.icm.bounty_kernels.bounty_subset`, tens of microseconds for a table: the
    push/fold game's leaves), or with ``compiled=False`` by the same recursion in plain numpy
    (:func:`plain_bounty_subset`, about a millisecond at 10 players, nothing to load)."""
    n = stacks.size
    if n == 1:
        return bounties.astype(np.float64).copy()
    u, v = chain_factors(n, share)
    s = np.ascontiguousarray(stacks, dtype=np.float64)
    b = np.ascontiguousarray(bounties, dtype=np.float64)
    if not compiled:
        return plain_bounty_subset(s, b, u, v)
    from pokerlab.icm.bounty_kernels import bounty_subset  # numba, loaded where it runs

    return np.asarray(bounty_subset(s, b, u, v))


def plain_bounty_subset(stacks: np.ndarray, bounties: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """:func:`~pokerlab.icm.bounty_kernels.bounty_subset` in plain numpy, one place at a time for all sets of
    that size at once (as :func:`pokerlab.icm.finish_places`); for up to about
    :data:`~pokerlab.icm.PLAIN_MAX_PLAYERS` players."""
    n = stacks.size
    masks = np.arange(1 << n, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(n)) & 1  # (2^n, n): who holds the first places
    outside = (1 - bits) @ stacks  # chips of the players not yet placed
    weighted = (1 - bits) @ (stacks * bounties)  # their bounty x chips
    popcount = bits.sum(axis=1)
    prob = np.zeros(masks.size)
    prob[0] = 1.0
    carried = np.zeros((masks.size, n))  # per set, each placed player's expected v[place - 1]
    equity = np.zeros(n)
    for placed in range(n):
        level = masks[(popcount == placed) & (prob > 0.0)]
        if placed > 0:  # the next player placed pays u[placed] b_j, weighted by s_j / outside, to each placed one
            equity += (u[placed] * weighted[level] / outside[level]) @ carried[level]
        for j in range(n):
            free = level[bits[level, j] == 0]
            step = stacks[j] / outside[free]
            grown = free | (1 << j)  # each set S + {j} is reached from S once per j: no collisions
            reach = prob[free] * step
            prob[grown] += reach
            carried[grown] += carried[free] * step[:, None]
            carried[grown, j] += reach * v[placed]
            if placed == 0:
                equity[j] += reach.sum() * bounties[j]  # the winner keeps his own head
    return equity


def sampled_bounty_equity(stacks: np.ndarray, bounties: np.ndarray, share: float, samples: int,
                          seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of each player's bounty money over ``samples`` Malmuth-Harville finishing orders
    (exponential clocks of rate ``stacks``: the first to ring wins), with the buster chain's expectation given
    the order taken exactly (so the only noise is the order's)."""
    from pokerlab.stats.rng import numpy_generators

    (rng,) = numpy_generators(seed, 1)
    n = stacks.size
    u, v = chain_factors(n, share)
    total = np.zeros(n)
    squares = np.zeros(n)
    done = 0
    while done < samples:
        size = min(max(1, SAMPLE_BATCH_CELLS // n), samples - done)
        clocks = rng.exponential(size=(size, n)) / stacks
        order = np.argsort(clocks, axis=1)  # order[:, r]: the player in place r + 1
        paid = bounties[order] * u  # each place's head times its chain factor
        above = np.cumsum(paid[:, ::-1], axis=1)[:, ::-1]  # sum over places m >= r
        collected = v * (above - paid)  # from the places below
        collected[:, 0] += bounties[order[:, 0]]  # the winner keeps his own head
        gains = np.empty_like(collected)
        np.put_along_axis(gains, order, collected, axis=1)
        total += gains.sum(axis=0)
        squares += (gains * gains).sum(axis=0)
        done += size
    mean = total / samples
    variance = np.maximum(squares / samples - mean * mean, 0.0) * samples / (samples - 1)
    return mean, np.sqrt(variance / samples)
