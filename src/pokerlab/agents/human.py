"""A human at the terminal, and ``play_session``: hands against a bot with a running score.

Input at a decision: the letter of an action (``f`` fold, ``c``/``k`` check or call, ``r``/``b`` raise or bet
in the limit games), or in the two-round game the number of chips to put in (0..4, as in the game's rules: fewer than
the call is a fold); ``?`` lists the legal actions, ``q`` quits. Anything else is answered with a hint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pokerlab.agents.match import play_hand
from pokerlab.agents.players import Agent
from pokerlab.errors import whole_number
from pokerlab.games.base import Game
from pokerlab.stats import validate_seed
from pokerlab.stats.rng import numpy_generator


class QuitGame(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised when the human types ``q``."""


def describe_state(game: Game, state: Any, seat: int) -> str:
    """What the player in ``seat`` sees: private cards, board, chips in the pot and the betting so far (the game
    describes itself, :meth:`pokerlab.games.base.Game.describe_state`)."""
    return game.describe_state(state, seat)


def _options(game: Game, state: Any) -> list[tuple[str, Any, str]]:
    """(key, action, label) for every legal action."""
    return [(game.action_key(state, a), a, game.action_label(state, a)) for a in game.legal_actions(state)]


class HumanAgent(Agent):
    """Reads decisions from ``read`` (default ``input``) and writes to ``write`` (default ``print``)."""

    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    def act(self, game: Game, state: Any, rng: np.random.Generator) -> Any:
        seat = game.current_player(state)
        options = _options(game, state)
        self.write(describe_state(game, state, seat))
        menu = "  ".join(f"[{k}] {label}" for k, _, label in options)
        while True:
            try:
                text = self.read(f"Your move ({menu}, ? help, q quit): ").strip().lower()
            except EOFError:
                raise QuitGame from None
            if text in ("q", "quit", "exit"):
                raise QuitGame
            if text in ("?", "h", "help"):
                self.write(_help(game))
                continue
            action = self._parse(game, state, text, options)
            if action is not None:
                return action
            self.write(f"'{text}' is not a legal move here. Type one of: {', '.join(k for k, _, _ in options)}"
                       " (or ? for help, q to quit).")

    @staticmethod
    def _parse(game: Game, state: Any, text: str, options: list[tuple[str, Any, str]]) -> Any:
        keys = {k: a for k, a, _ in options}
        if text in keys:
            return keys[text]
        return game.parse_action(state, text)

    def observe_end(self, game: Game, state: Any, payoff: float, seat: int) -> None:
        self.write(end_summary(game, state, payoff, seat))


def _help(game: Game) -> str:
    return game.play_help()


def end_summary(game: Game, state: Any, payoff: float, seat: int) -> str:
    """The end of a hand from ``seat``'s side: how it ended, the cards shown and the chips won."""
    return game.end_summary(state, payoff, seat)


def play_session(game: Game, bot: Agent, human: HumanAgent, seed: int | None = None,
                 hands: int | None = None) -> tuple[int, float]:
    """Hands of ``human`` against ``bot``, alternating seats, until ``hands`` are played or the human quits.

    Returns (hands completed, the human's net chips). Prints a running score after each hand. ``seed``: a
    non-negative integer or None (fresh cards); ``hands``: a positive integer or None (until the human quits).
    """
    seed = validate_seed(seed)
    if hands is not None:
        hands = whole_number(hands, "hands", low=1)
    rng = numpy_generator(seed)
    played, score = 0, 0.0
    try:
        while hands is None or played < hands:
            seat = played % 2
            human.write(f"--- Hand {played + 1}: you are player {seat + 1}"
                        f" ({'first' if seat == 0 else 'second'} to act) ---")
            agents = (human, bot) if seat == 0 else (bot, human)
            payoff, _ = play_hand(game, agents[0], agents[1], rng)
            score += payoff if seat == 0 else -payoff
            played += 1
            human.write(f"Score after {played} hand{'s' if played > 1 else ''}: {score:+g} chips "
                        f"({score / played:+.2f} per hand)")
    except QuitGame:
        human.write(f"Bye. You played {played} complete hand{'s' if played != 1 else ''}, net {score:+g} chips.")
    return played, score
