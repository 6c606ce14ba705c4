"""Monte Carlo tree search (UCT) for any perfect-information, deterministic two-player
game, over the same protocol as ``simlab.mechanics.minimax`` (:class:`PerfectInfoGame`:
moves, play, to_move, over, result, key, and a ``playout`` that plays a position to its
end with a fast policy and returns seat 0's result).

Plain Python for the same reason as the minimax (a jitted search generic over games
would take the game's jitted functions as arguments, which numba recompiles in every
process): the tree lives in Python dictionaries, and the expensive part, the playouts,
runs in the game's own jitted code called by name from its protocol object.

One iteration: from the root, descend by UCB1 (``c`` = exploration constant, rewards in
[0, 1] from the point of view of the seat that made the move into a node) while every
move of a node has been tried; expand one untried move; play ``playouts`` playouts from
the new node and back their mean up the path. Untried moves are expanded in the
game's ``order`` (likely-best first, ties shuffled), which matters when the budget is
smaller than the number of moves. The move played is the root's most
visited child (ties: the better mean, then the earlier in the shuffled move order).

May import: the engine (nothing of it is needed here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simlab.mechanics.minimax import PerfectInfoGame


@dataclass
class Node:
    state: Any
    mover: int  # the seat whose move led here (-1 at the root)
    untried: list[Any]
    children: list[tuple[Any, Node]] = field(default_factory=list)
    visits: int = 0
    reward: float = 0.0  # summed, in [0, 1] per visit, for ``mover``
    terminal: bool = False


@dataclass
class Mcts:
    """UCT with ``iterations`` tree iterations and ``playouts`` playouts per expansion."""

    game: PerfectInfoGame
    iterations: int
    playouts: int = 1
    c: float = 1.4

    def choose(self, state: Any, rng: np.random.Generator) -> Any:
        game = self.game
        moves = list(game.moves(state))
        if len(moves) == 1:
            return moves[0]
        root = self._node(state, -1, rng)
        for _ in range(self.iterations):
            self._iterate(root, rng)
        best = max(root.children, key=lambda mc: (mc[1].visits, mc[1].reward / max(mc[1].visits, 1)))
        return best[0]

    def _node(self, state: Any, mover: int, rng: np.random.Generator) -> Node:
        game = self.game
        if game.over(state):
            return Node(state, mover, [], terminal=True)
        moves = list(game.moves(state))
        perm = rng.permutation(len(moves))
        shuffled = [moves[i] for i in perm]
        scores = game.order(state, shuffled)
        # expanded from the end: the game's likely-best moves (its ``order``) first
        idx = sorted(range(len(shuffled)), key=lambda i: scores[i])
        return Node(state, mover, [shuffled[i] for i in idx])

    def _iterate(self, root: Node, rng: np.random.Generator) -> None:
        game = self.game
        path = [root]
        node = root
        while not node.terminal and not node.untried and node.children:
            node = self._select(node)
            path.append(node)
        if not node.terminal and node.untried:
            move = node.untried.pop()
            child = self._node(game.play(node.state, move), game.to_move(node.state), rng)
            node.children.append((move, child))
            node = child
            path.append(node)
        if node.terminal:
            value0 = game.result(node.state)
            n = 1
        else:
            n = self.playouts
            value0 = sum(game.playout(node.state, rng) for _ in range(n)) / n
        seat0_reward = (value0 + 1.0) / 2.0  # [-1, 1] -> [0, 1]
        for nd in path:
            nd.visits += 1
            if nd.mover >= 0:
                nd.reward += seat0_reward if nd.mover == 0 else 1.0 - seat0_reward

    def _select(self, node: Node) -> Node:
        log_n = math.log(node.visits)
        best, best_score = None, -math.inf
        for _, child in node.children:
            score = child.reward / child.visits + self.c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best
