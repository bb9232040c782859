"""Extensive-form games: the ``Game`` protocol, a compiler to flat arrays, matrix games and limit poker."""

from pokerlab.games.base import CHANCE, TERMINAL, Game
from pokerlab.games.compiler import CompiledGame, GameSizes, compile_game
from pokerlab.games.matrix import RPS, RPS_ASYMMETRIC, MatrixGame, rps
from pokerlab.games.poker import PRESETS, BettingRound, LimitPoker, PokerSpec, kuhn, leduc, preset
from pokerlab.games.registry import GAME_NAMES, compiled, game_from_spec, get_game

__all__ = [
    "CHANCE", "GAME_NAMES", "PRESETS", "RPS", "RPS_ASYMMETRIC", "TERMINAL", "BettingRound", "CompiledGame",
    "Game", "GameSizes", "LimitPoker", "MatrixGame", "PokerSpec", "compile_game", "compiled", "game_from_spec",
    "get_game", "kuhn", "leduc", "preset", "rps",
]
