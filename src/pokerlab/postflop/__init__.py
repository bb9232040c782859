"""No-limit hold'em postflop solving: :func:`solve` a river, turn or flop spot, browse the
:class:`PostflopResult` node by node, :func:`load` a saved solve and :func:`resume` it."""

from pokerlab.postflop.result import NodeView, PostflopResult
from pokerlab.postflop.solve import build_game, load, resume, solve

__all__ = ["NodeView", "PostflopResult", "build_game", "load", "resume", "solve"]
