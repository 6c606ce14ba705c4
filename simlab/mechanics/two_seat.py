"""Two-seat perfect-information games played as a two-game match (cartawel,
pousse-pousse): the lot that picks who starts, the match's columns and its close, and the
search players (``minimax`` / ``mcts``) a game builds around its own protocol object.

May import: the engine; ``simlab.mechanics``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.mechanics.mcts import Mcts
from simlab.mechanics.minimax import Minimax

# a match row: the match, the seat that won more games (-1 drawn), the games played, each
# seat's games won, drawn
(M_MATCH, M_WINNER, M_N_DEALS, M_FINAL, M_DRAWN, N_MATCH_COLS) = (0, 1, 2, 3, 5, 6)


def two_game_match_columns(n_deals_help: str) -> list[Column]:
    """The match table's columns; ``n_deals_help`` says why a match is two games."""
    return [Column("match"),
            Column("winner", help="seat that won more games, -1 = drawn"),
            Column("n_deals", help=n_deals_help),
            Column("final_score_s0", help="games won by seat 0"),
            Column("final_score_s1", help="games won by seat 1"),
            Column("drawn", BOOL, help="both seats won as many games")]


@hot
def lot(seed: np.uint64, index: np.int64, sub: np.int64) -> np.int64:
    """Who starts game (index, sub): a fair draw from its SETUP stream."""
    _, w = rng.below(rng.stream(seed, index, sub, rng.SETUP), 2)
    return w


@hot
def close_match(o: np.ndarray) -> None:
    """A two-game match's row once its games won (``o[M_FINAL + s]``) are counted."""
    o[M_N_DEALS] = 2
    if o[M_FINAL] > o[M_FINAL + 1]:
        o[M_WINNER] = 0
    elif o[M_FINAL + 1] > o[M_FINAL]:
        o[M_WINNER] = 1
    else:
        o[M_WINNER] = -1
        o[M_DRAWN] = 1


def any_searching(pol: np.ndarray, strong: tuple[int, ...]) -> bool:
    """Does a seat use a search player (its code in ``strong``)?"""
    return any(int(p) in strong for p in pol)


def make_searchers(pol: np.ndarray, seat_kv: np.ndarray, new_protocol: Callable,
                   minimax_code: int, mcts_code: int, kv_depth: int, kv_iter: int,
                   kv_playouts: int) -> list:
    """Each seat's search player (``None`` for the others): ``new_protocol(seat_knobs)``
    builds the game's protocol object, the seat's knob row gives the depth / iterations /
    playouts."""
    searchers: list = [None, None]
    for s in range(2):
        if pol[s] in (minimax_code, mcts_code):
            proto = new_protocol(seat_kv[s])
            if pol[s] == mcts_code:
                searchers[s] = Mcts(proto, int(seat_kv[s][kv_iter]), int(seat_kv[s][kv_playouts]))
            else:
                searchers[s] = Minimax(proto, int(seat_kv[s][kv_depth]))
    return searchers
