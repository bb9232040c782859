"""Every game behind one protocol (:mod:`pokerlab.games.base`): tree form (``Game``, compiled to flat arrays)
and vector form (``VectorGame``, a public tree with private hands); matrix games, limit poker, two-round hold'em.

Each game module registers its games in :mod:`pokerlab.games.registry` when it loads; importing them here fills
the registry before anyone asks it (a new game module adds its import below)."""

from pokerlab.games.base import CHANCE, FOLD, TERMINAL, TREE_FORM, VECTOR_FORM, Action, Game, GameType
from pokerlab.games.compiler import CompiledGame, GameSizes, compile_game
from pokerlab.games.matrix import RPS, RPS_ASYMMETRIC, MatrixGame, rps
from pokerlab.games.poker import PRESETS, BettingRound, LimitPoker, PokerSpec, kuhn, leduc, preset
from pokerlab.games.registry import compiled, game_from_spec, game_names, get_game
from pokerlab.games.two_round import TwoRoundHoldem, TwoRoundSpec
from pokerlab.games.vector import CoinPoker, CompiledPublicTree, PublicTree, VectorGame, compile_public_tree

__all__ = [
    "CHANCE", "FOLD", "PRESETS", "RPS", "RPS_ASYMMETRIC", "TERMINAL", "TREE_FORM", "VECTOR_FORM",
    "Action", "BettingRound", "CoinPoker", "CompiledGame", "CompiledPublicTree", "Game", "GameSizes", "GameType",
    "LimitPoker", "MatrixGame", "PokerSpec", "PublicTree", "TwoRoundHoldem", "TwoRoundSpec", "VectorGame",
    "compile_game", "compile_public_tree", "compiled", "game_from_spec", "game_names", "get_game", "kuhn", "leduc",
    "preset", "rps",
]
