"""Matches between agents: independent hands (chips per hand with a 95% confidence interval, exact EV where the
game allows) and stack-until-bust matches (the stack-until-bust format).

Format: agents A and B alternate seats every hand (and the first seat alternates between matches), so
position cancels out. A bust-format match starts both players with ``start_chips`` and ends when one has no
chips left; a match still running after ``max_match_hands`` hands goes to the chip leader (a draw when level).
In the two-round game each hand is played with the smaller stack behind the ante, capped at the game's stack
(6 chips by default), so nobody loses more than they have; in the limit games a hand's loss is capped at the
loser's chips.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.agents.players import Agent
from pokerlab.errors import Interrupted, InvalidArgumentError, whole_number
from pokerlab.games.base import CHANCE, TERMINAL, Game
from pokerlab.games.registry import playable_game
from pokerlab.limits import check_work
from pokerlab.progress import ProgressCallback
from pokerlab.solvers.policy import MBB_PER_CHIP
from pokerlab.stats import normal_quantile
from pokerlab.stats.rng import numpy_generators


def game_by_name(name: str) -> Game:
    """A poker game for matches by name: one the game registry offers for play
    (:func:`pokerlab.games.registry.playable_game`), e.g. ``kuhn``, ``leduc`` or ``two-round``.

    >>> game_by_name("two-round").name
    'two-round'
    """
    return playable_game(name)


def sample_chance(game: Game, state: Any, rng: np.random.Generator) -> Any:
    """One chance outcome (the cards dealt at ``state``), drawn with the game's probabilities from ``rng``.

    The game draws it (:meth:`pokerlab.games.base.Game.sample_chance`): in the limit games one of
    ``game.chance_outcomes(state)`` (a tuple of dealt cards); in the two-round game a sorted tuple of card codes
    (2 hole cards, then 3 flop cards).

    >>> from pokerlab.stats.rng import numpy_generator
    >>> g = game_by_name("kuhn"); rng = numpy_generator(0)
    >>> sample_chance(g, g.initial_state(), rng) in ((0,), (1,), (2,))
    True
    """
    return game.sample_chance(state, rng)


def play_hand(game: Game, seat0: Agent, seat1: Agent, rng: np.random.Generator) -> tuple[float, Any]:
    """Play one hand with ``seat0`` as player 0 (first to act) and ``seat1`` as player 1, drawing cards and the
    agents' random choices from ``rng``. Returns (player 0's payoff in chips, final state); both agents'
    ``observe_end`` see the end.

    >>> from pokerlab.agents.players import CheckCallAgent
    >>> from pokerlab.stats.rng import numpy_generator
    >>> g = game_by_name("kuhn"); payoff, _ = play_hand(g, CheckCallAgent(), CheckCallAgent(), numpy_generator(0))
    >>> payoff in (-1.0, 1.0)
    True
    """
    state = game.initial_state()
    agents = (seat0, seat1)
    while True:
        who = game.current_player(state)
        if who == TERMINAL:
            break
        if who == CHANCE:
            state = game.apply(state, sample_chance(game, state, rng))
        else:
            state = game.apply(state, agents[who].act(game, state, rng))
    payoff = float(game.utility(state))
    seat0.observe_end(game, state, payoff, 0)
    seat1.observe_end(game, state, -payoff, 1)
    return payoff, state


@dataclass(frozen=True)
class MatchResult:
    """Outcome of :func:`run_match`, from agent A's side. Chips per hand: mean, standard error and 95%
    confidence interval half-width over ``hands`` independent hands (seats alternating); hands won/lost/tied
    in percent; bust-format matches won by A and by B (with a 95% interval on A's share of decided matches);
    ``exact_ev`` the expected chips per hand computed from the policies (no sampling), when available;
    ``exploitability`` of each agent (chips per hand, exact) when requested."""

    game: str
    agent_a: str
    agent_b: str
    seed: int
    hands: int
    chips_per_hand: float
    stderr: float
    ci95: float
    hands_won_pct: float
    hands_lost_pct: float
    hands_tied_pct: float
    matches: int
    matches_won_a: int
    matches_won_b: int
    matches_drawn: int
    matches_capped: int
    match_win_pct: float
    match_win_ci95: float
    mean_match_hands: float
    start_chips: int
    exact_ev: float | None
    exploitability: tuple[float | None, float | None]
    elapsed_s: float

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["exploitability"] = list(self.exploitability)
        data["mbb_per_hand"] = self.chips_per_hand * MBB_PER_CHIP
        return data


def exact_expected_value(game: Game, a: Agent, b: Agent) -> float | None:
    """Exact chips per hand of ``a`` against ``b`` averaged over both seats, or None for a human."""
    try:
        return a.strategy(game).value_against(game, b.strategy(game))
    except NotImplementedError:
        return None


def agent_exploitability(game: Game, agent: Agent) -> float | None:
    """Exact exploitability (chips per hand, mean of both seats' best-response values) of an agent's policy."""
    try:
        return agent.strategy(game).exploitability(game)
    except NotImplementedError:
        return None


def run_match(game: Game, a: Agent, b: Agent, hands: int = 10_000, seed: int = 0, matches: int = 200,
              start_chips: int = 20, max_match_hands: int = 1000, exact: bool = True,
              exploitabilities: bool = False, progress: ProgressCallback | None = None) -> MatchResult:
    """Play ``hands`` independent hands and ``matches`` stack-until-bust matches between ``a`` and ``b``.

    ``progress(done, total)`` counts hands, then matches (``total = hands + matches``). Ctrl-C stops at once
    with :class:`~pokerlab.errors.Interrupted`, whose ``partial`` is the result of the hands and matches done.
    Counts that could not finish in a day are refused up front (:func:`pokerlab.limits.check_work`).

    >>> from pokerlab.agents.players import RandomAgent, FullBetAgent
    >>> r = run_match(game_by_name("kuhn"), FullBetAgent(), RandomAgent(), hands=2000, matches=20, seed=1)
    >>> abs(r.chips_per_hand - r.exact_ev) < 4 * r.stderr
    True
    """
    hands, matches = whole_number(hands, "hands", low=0), whole_number(matches, "matches", low=0)
    start_chips = whole_number(start_chips, "start_chips", low=2)
    max_match_hands = whole_number(max_match_hands, "max_match_hands", low=1)
    seed = whole_number(seed, "seed", low=0)  # None too: a match is always reproducible
    if hands < 2 and matches < 1:
        raise InvalidArgumentError("play at least 2 hands or 1 match")
    check_work(hands, f"{hands:,} hands", per_second=HANDS_PER_SECOND, bytes_each=8)
    check_work(matches * max_match_hands, f"{matches:,} matches of up to {max_match_hands:,} hands",
               per_second=HANDS_PER_SECOND)
    start = time.perf_counter()
    hand_rng, match_rng = numpy_generators(seed, 2)
    results = np.empty(hands)
    total = hands + matches
    played = 0
    try:
        for i in range(hands):
            if i % 2 == 0:
                payoff, _ = play_hand(game, a, b, hand_rng)
                results[i] = payoff
            else:
                payoff, _ = play_hand(game, b, a, hand_rng)
                results[i] = -payoff
            played = i + 1
            if progress is not None and played % 1024 == 0:
                progress(played, total)
    except KeyboardInterrupt:
        partial = _summary(game, a, b, seed, results[:played], start_chips, [], (0, 0, 0, 0), start)
        raise Interrupted(f"after {played:,} of {hands:,} hands", partial=partial) from None
    outcomes = [0, 0, 0, 0]  # A won, B won, drawn, capped
    lengths: list[int] = []
    try:
        for m in range(matches):
            length, chips = _bust_match(game, a, b, m, start_chips, max_match_hands, match_rng)
            lengths.append(length)
            outcomes[3] += min(chips) > 0
            outcomes[0 if chips[0] > chips[1] else 1 if chips[1] > chips[0] else 2] += 1
            if progress is not None:
                progress(hands + m + 1, total)
    except KeyboardInterrupt:
        partial = _summary(game, a, b, seed, results, start_chips, lengths, tuple(outcomes), start)
        raise Interrupted(f"after {hands:,} hands and {len(lengths):,} of {matches:,} matches",
                          partial=partial) from None
    ev = exact_expected_value(game, a, b) if exact else None
    expl: tuple[float | None, float | None] = (None, None)
    if exploitabilities:
        expl = (agent_exploitability(game, a), agent_exploitability(game, b))
    return _summary(game, a, b, seed, results, start_chips, lengths, tuple(outcomes), start, ev, expl)


HANDS_PER_SECOND = 100_000.0  # an optimistic rate of match hands (pure Python play), for the limits only


def _bust_match(game: Game, a: Agent, b: Agent, m: int, start_chips: int, max_match_hands: int,
                rng: np.random.Generator) -> tuple[int, list[float]]:
    """Play match ``m`` until one side is bust or ``max_match_hands``: its length and final chips (A first)."""
    chips = [float(start_chips), float(start_chips)]  # chips[0] is A's
    n = 0
    while min(chips) > 0 and n < max_match_hands:
        hand_game = game.for_stacks(chips)
        a_first = (n + m) % 2 == 0
        payoff, _ = play_hand(hand_game, a, b, rng) if a_first else play_hand(hand_game, b, a, rng)
        gain_a = payoff if a_first else -payoff
        gain_a = min(gain_a, chips[1]) if gain_a > 0 else max(gain_a, -chips[0])
        chips[0] += gain_a
        chips[1] -= gain_a
        n += 1
    return n, chips


def _summary(game: Game, a: Agent, b: Agent, seed: int, results: np.ndarray, start_chips: int, lengths: list[int],
             outcomes: tuple[int, ...], start: float, ev: float | None = None,
             expl: tuple[float | None, float | None] = (None, None)) -> MatchResult:
    """The match result of the hands in ``results`` and the matches in ``lengths`` / ``outcomes``."""
    hands = results.size
    mean = float(results.mean()) if hands else math.nan
    stderr = float(results.std(ddof=1) / math.sqrt(hands)) if hands >= 2 else math.nan
    z = normal_quantile(0.95)
    won = float(np.mean(results > 0) * 100) if hands else math.nan
    lost = float(np.mean(results < 0) * 100) if hands else math.nan
    tied = float(np.mean(results == 0) * 100) if hands else math.nan  # counted, not 100 - won - lost (rounding)

    wins_a, wins_b, draws, capped = outcomes
    matches = len(lengths)
    decided = wins_a + wins_b
    share = wins_a / decided if decided else math.nan
    share_ci = z * math.sqrt(share * (1 - share) / decided) if decided else math.nan

    return MatchResult(game=game.name, agent_a=a.name, agent_b=b.name, seed=int(seed), hands=hands,
                       chips_per_hand=mean, stderr=stderr, ci95=z * stderr, hands_won_pct=won, hands_lost_pct=lost,
                       hands_tied_pct=tied, matches=matches,
                       matches_won_a=wins_a, matches_won_b=wins_b, matches_drawn=draws, matches_capped=capped,
                       match_win_pct=share * 100, match_win_ci95=share_ci * 100,
                       mean_match_hands=float(np.mean(lengths)) if lengths else math.nan, start_chips=start_chips,
                       exact_ev=ev, exploitability=expl, elapsed_s=time.perf_counter() - start)

