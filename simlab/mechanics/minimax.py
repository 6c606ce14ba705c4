"""Alpha-beta minimax for any perfect-information, deterministic two-player game.

The search is written once, in plain Python, against a small protocol the game supplies
(:class:`PerfectInfoGame`): its legal moves, a move applied to a copy of the state, who
is to move, whether the game is over and its result, an evaluation for the depth
cut-off, and a hashable key for the transposition table. The game's own functions do
the heavy lifting (they are numba-jitted in the game package and called by name from
its protocol object), the tree walk here is Python.

Why plain Python and not a jitted generic driver: numba recompiles, in every new
process, a jitted function that receives another jitted function as an argument (or
closes over one), so a jitted search generic over games would have to be generated
source per game. The strong players need neither 5,000 games a second (only the
heuristic does; the search's speed is measured and reported) nor a batch kernel, so a
readable Python tree walk over the game's jitted steps is the simpler choice; every
game gets alpha-beta and MCTS (``simlab.mechanics.mcts``) by writing one protocol
object.

Values are from seat 0's point of view: seat 0 maximises, seat 1 minimises (the game
need not alternate strictly). A finished game is worth ``result * (WIN + depth left)``
so that a quicker win is preferred and a later loss; an evaluation must stay inside
(-1, 1) so it never outweighs a proven result.

Move ordering: the transposition table's best move first, then the game's ``order``
scores (captures first, say), highest first. Ties between equally good root moves are
broken by a shuffle drawn from the caller's random generator, so two identical
searchers do not replay the same game every time.

May import: the engine (nothing of it is needed here).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

WIN = 1_000_000.0
EXACT, LOWER, UPPER = 0, 1, 2
TT_LIMIT = 2_000_000  # entries; the table is cleared when it grows past this


class PerfectInfoGame(Protocol):
    """What a game supplies to the shared searches (this module and ``mcts``)."""

    def moves(self, state: Any) -> Sequence[Any]:
        """The legal moves (non-empty unless ``over``)."""

    def play(self, state: Any, move: Any) -> Any:
        """A new state: ``move`` applied to a copy of ``state`` (``state`` unchanged)."""

    def to_move(self, state: Any) -> int:
        """The seat (0 or 1) to move."""

    def over(self, state: Any) -> bool:
        """The game has ended."""

    def result(self, state: Any) -> float:
        """Seat 0's result of an ended game: +1 won, 0 drawn, -1 lost."""

    def evaluate(self, state: Any) -> float:
        """Seat 0's estimate of an unfinished position, strictly inside (-1, 1)."""

    def key(self, state: Any) -> Hashable:
        """A key equal for equal positions (the transposition table's)."""

    def order(self, state: Any, moves: Sequence[Any]) -> Sequence[float]:
        """A score per move, likely best first when sorted highest first (may be all 0)."""

    def playout(self, state: Any, rng: np.random.Generator) -> float:
        """Seat 0's result of the game played out from ``state`` by a fast policy
        (``mcts`` only)."""


@dataclass
class SearchStats:
    nodes: int = 0
    tt_hits: int = 0
    cutoffs: int = 0


@dataclass
class Minimax:
    """Depth-limited alpha-beta with a transposition table.

    ``depth``: plies searched before the evaluation; ``tt``: key -> (depth, value,
    bound, best move), kept across the decisions of one game (positions recur)."""

    game: PerfectInfoGame
    depth: int
    tt: dict[Hashable, tuple[int, float, int, Any]] = field(default_factory=dict)
    stats: SearchStats = field(default_factory=SearchStats)

    def value(self, state: Any, depth: int | None = None) -> float:
        """The alpha-beta value of ``state`` (seat 0's view) at ``depth`` plies."""
        d = self.depth if depth is None else depth
        return self._search(state, d, -np.inf, np.inf)

    def choose(self, state: Any, rng: np.random.Generator | None = None) -> Any:
        """The best move at ``state`` for the seat to move (ties: shuffled order)."""
        game = self.game
        moves = list(game.moves(state))
        if len(moves) == 1:
            return moves[0]
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        if rng is not None:
            perm = rng.permutation(len(moves))
            moves = [moves[i] for i in perm]
        moves = self._ordered(state, moves)
        maximise = game.to_move(state) == 0
        alpha, beta = -np.inf, np.inf
        best_move = moves[0]
        best = -np.inf if maximise else np.inf
        for m in moves:
            v = self._search(game.play(state, m), self.depth - 1, alpha, beta)
            if (maximise and v > best) or (not maximise and v < best):
                best, best_move = v, m
            if maximise:
                alpha = max(alpha, v)
            else:
                beta = min(beta, v)
        return best_move

    def _ordered(self, state: Any, moves: list[Any], first: Any = None) -> list[Any]:
        scores = self.game.order(state, moves)
        idx = sorted(range(len(moves)), key=lambda i: -scores[i])  # stable: ties keep order
        out = [moves[i] for i in idx]
        if first is not None:
            for i, m in enumerate(out):
                if _same(m, first):
                    out.insert(0, out.pop(i))
                    break
        return out

    def _search(self, state: Any, depth: int, alpha: float, beta: float) -> float:
        game = self.game
        self.stats.nodes += 1
        if game.over(state):
            return game.result(state) * (WIN + depth)
        if depth <= 0:
            return game.evaluate(state)
        key = game.key(state)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_value, e_bound, tt_move = entry
            if e_depth >= depth:
                self.stats.tt_hits += 1
                if e_bound == EXACT:
                    return e_value
                if e_bound == LOWER and e_value >= beta:
                    return e_value
                if e_bound == UPPER and e_value <= alpha:
                    return e_value
        alpha0, beta0 = alpha, beta
        maximise = game.to_move(state) == 0
        best = -np.inf if maximise else np.inf
        best_move = None
        for m in self._ordered(state, list(game.moves(state)), tt_move):
            v = self._search(game.play(state, m), depth - 1, alpha, beta)
            if maximise:
                if v > best:
                    best, best_move = v, m
                alpha = max(alpha, v)
            else:
                if v < best:
                    best, best_move = v, m
                beta = min(beta, v)
            if alpha >= beta:
                self.stats.cutoffs += 1
                break
        if best <= alpha0:
            bound = UPPER
        elif best >= beta0:
            bound = LOWER
        else:
            bound = EXACT
        self.tt[key] = (depth, best, bound, best_move)
        return best


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return a == b
