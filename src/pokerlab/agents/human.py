"""A human at the terminal, and ``play_session``: hands against a bot with a running score.

Input at a decision: the letter of an action (``f`` fold, ``c``/``k`` check or call, ``r``/``b`` raise or bet
in the limit games), or in the brief's game the number of chips to put in (0..4, as in the brief: fewer than
the call is a fold); ``?`` lists the legal actions, ``q`` quits. Anything else is answered with a hint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pokerlab.agents.match import play_hand
from pokerlab.agents.players import Agent, fold_code
from pokerlab.errors import InvalidArgumentError
from pokerlab.games.base import Game
from pokerlab.games.brief_holdem import FOLD as BRIEF_FOLD
from pokerlab.games.brief_holdem import BriefHoldem, history_text
from pokerlab.stats import validate_seed


class QuitGame(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised when the human types ``q``."""


def _cards(game: Game, cards: tuple[int, ...]) -> str:
    # both supported families (LimitPoker, BriefHoldem) label cards with card_label
    return " ".join(game.card_label(c) for c in cards)  # type: ignore[attr-defined]


def describe_state(game: Game, state: Any, seat: int) -> str:
    """What the player in ``seat`` sees: private cards, board, chips in the pot and the betting so far."""
    if isinstance(game, BriefHoldem):
        b = state.betting
        ante = game.brief.ante
        mine, theirs = ante + b.put[seat], ante + b.put[1 - seat]
        board = _cards(game, state.flop) if state.flop else "(no flop yet)"
        return (f"Your cards: {_cards(game, state.hands[seat])}   Board: {board}\n"
                f"Pot {mine + theirs}: you {mine}, bot {theirs}; behind: you {game.brief.stack - b.put[seat]}, "
                f"bot {game.brief.stack - b.put[1 - seat]}   Betting: {history_text(state.history) or '-'}")
    board = _cards(game, state.board) if state.board else "(none)"
    mine, theirs = state.contrib[seat], state.contrib[1 - seat]
    # the actions so far, one letter each (c check/call, r bet/raise, f fold) and rounds separated by '/',
    # so a player who acts second sees what the bot did
    betting = "/".join("".join("fc"[a] if a < 2 else "r" for a in actions) for actions in state.history)
    return (f"Your card: {_cards(game, state.hands[seat])}   Board: {board}\n"
            f"Pot {mine + theirs:g}: you {mine:g}, bot {theirs:g}   Round {state.round + 1}"
            f"   Betting: {betting.strip('/') or '-'}")


def _options(game: Game, state: Any) -> list[tuple[str, Any, str]]:
    """(key, action, label) for every legal action."""
    out = []
    fold = fold_code(game)
    for a in game.legal_actions(state):
        label = game.action_label(state, a)
        if a == fold:
            key = "f"
        elif isinstance(game, BriefHoldem):
            key = str(a)
        elif label in ("check", "call"):
            key = "c"
        else:
            key = "r"
        out.append((key, a, label))
    return out


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
        if text in ("k", "check", "call") and "c" in keys:
            return keys["c"]
        if isinstance(game, BriefHoldem):
            if text in ("c", "k", "check", "call"):
                call = min(a for _, a, _ in options if a != BRIEF_FOLD)
                return call
            if text.isdigit():
                x = int(text)
                legal = [a for _, a, _ in options if a != BRIEF_FOLD]
                if x < min(legal) and x <= game.brief.max_bet:
                    return BRIEF_FOLD  # the brief's rule: putting in less than the call is a fold
                if x in legal:
                    return x
            return None
        if text in ("b", "bet", "raise") and "r" in keys:
            return keys["r"]
        if text == "fold" and "f" in keys:
            return keys["f"]
        return None

    def observe_end(self, game: Game, state: Any, payoff: float, seat: int) -> None:
        self.write(end_summary(game, state, payoff, seat))


def _help(game: Game) -> str:
    if isinstance(game, BriefHoldem):
        return ("Each decision puts 0 to 4 chips in (at most what you have behind). Facing a bet, fewer chips "
                "than the call is a fold, exactly the call is a call, more is a raise. Type the number of chips, "
                "or f (fold), c (check/call); q quits.")
    return "Type f to fold, c to check or call, r to bet or raise; q quits."


def end_summary(game: Game, state: Any, payoff: float, seat: int) -> str:
    """The end of a hand from ``seat``'s side: how it ended, the cards shown and the chips won."""
    if isinstance(game, BriefHoldem):
        folded = state.betting.folded
        line = f"Betting: {history_text(state.history)}. "
        if folded >= 0:
            line += "You folded. " if folded == seat else "The bot folded. "
        else:
            from pokerlab.cards.evaluator import category, evaluate

            mine = evaluate([*state.hands[seat], *state.flop])
            theirs = evaluate([*state.hands[1 - seat], *state.flop])
            line += (f"Showdown on {_cards(game, state.flop)}: you {_cards(game, state.hands[seat])} "
                     f"({category(mine)}), bot {_cards(game, state.hands[1 - seat])} ({category(theirs)}). ")
    else:
        if state.folded >= 0:
            line = "You folded. " if state.folded == seat else "The bot folded. "
        else:
            board = f" with board {_cards(game, state.board)}" if state.board else ""
            line = (f"Showdown{board}: you {_cards(game, state.hands[seat])}, bot "
                    f"{_cards(game, state.hands[1 - seat])}. ")
    if not payoff:
        return line + "Split pot."
    return line + f"You {'won' if payoff > 0 else 'lost'} {abs(payoff):g} chips."


def play_session(game: Game, bot: Agent, human: HumanAgent, seed: int | None = None,
                 hands: int | None = None) -> tuple[int, float]:
    """Hands of ``human`` against ``bot``, alternating seats, until ``hands`` are played or the human quits.

    Returns (hands completed, the human's net chips). Prints a running score after each hand. ``seed``: a
    non-negative integer or None (fresh cards); ``hands``: a positive integer or None (until the human quits).
    """
    seed = validate_seed(seed)
    if hands is not None and (isinstance(hands, bool) or not isinstance(hands, int | np.integer) or hands < 1):
        raise InvalidArgumentError(f"hands must be a positive integer, got {hands!r}")
    rng = np.random.default_rng(seed)
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
