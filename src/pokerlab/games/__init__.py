"""Every game behind one protocol (:mod:`pokerlab.games.base`): tree form (``Game``, compiled to flat arrays)
and vector form (``VectorGame``, a public tree with private hands); matrix games, limit poker, two-round hold'em."""

from pokerlab.games.base import CHANCE, FOLD, TERMINAL, TREE_FORM, VECTOR_FORM, Action, Game, GameType
from pokerlab.games.compiler import CompiledGame, GameSizes, compile_game
from pokerlab.games.matrix import RPS, RPS_ASYMMETRIC, MatrixGame, rps
from pokerlab.games.poker import PRESETS, BettingRound, LimitPoker, PokerSpec, kuhn, leduc, preset
from pokerlab.games.registry import GAME_NAMES, compiled, game_from_spec, get_game
from pokerlab.games.vector import CoinPoker, CompiledPublicTree, PublicTree, VectorGame, compile_public_tree

__all__ = [
    "CHANCE", "FOLD", "GAME_NAMES", "PRESETS", "RPS", "RPS_ASYMMETRIC", "TERMINAL", "TREE_FORM", "VECTOR_FORM",
    "Action", "BettingRound", "CoinPoker", "CompiledGame", "CompiledPublicTree", "Game", "GameSizes", "GameType",
    "LimitPoker", "MatrixGame", "PokerSpec", "PublicTree", "VectorGame", "compile_game", "compile_public_tree",
    "compiled", "game_from_spec", "get_game", "kuhn", "leduc", "preset", "rps",
]
