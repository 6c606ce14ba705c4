"""XXL — À moins: the players.

* ``random``: a uniform choice among the options (every legal discard; after a draw that
  fits, also keeping the card when ``drawn_card = optional``; drawing instead of playing
  when ``voluntary_draw``).
* ``heuristic`` (the catalogue's sketch): score each legal discard by ``card total -
  starve_weight x (the unseen cards that could undercut the new top)`` — shed heavy
  cards, and leave a top whose halves are low, to starve the next player; the unseen
  cards are those this seat has seen neither in its hand nor on the discard pile. Going
  out beats everything. It always plays a drawn card that fits and never draws by choice.
* ``search``: determinized Monte Carlo (``simlab.mechanics.search``): ``search_worlds``
  worlds re-deal the cards the seat has not seen to the other hands (sizes are public)
  and the talon; each option is played in each world, then every seat plays the
  heuristic to the end; the best summed result (the table's mean penalty minus the
  seat's) wins. A seat with one option does not search. It reads only its hand, the
  discards, the hand sizes and the talon size.

May import: the engine, the mechanics, ``simlab.games.xxl``, this game's ``rules``.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, SEARCH
from simlab.engine.jit import batch, hot
from simlab.games.xxl.common import bit, popcount, redeal_hidden
from simlab.games.xxl.deck import FULL_MASK, N_CARDS
from simlab.games.xxl_a_moins.rules import (
    DRAW,
    HM_PUBLIC,
    KEEP,
    KV_CAP,
    KV_DRAWN_MUST,
    KV_VOLUNTARY,
    KV_W_STARVE,
    KV_WORLDS,
    MAX_MOVES,
    N_HM,
    N_ST,
    S_DRAW_PLAYS,
    S_KEPT,
    S_N,
    S_OVER,
    S_STRICT,
    S_TPOS,
    S_TURN,
    S_TURNS,
    S_VOL_DRAWS,
    W_SCALE,
    beats_mask,
    draw,
    end_turn,
    hand_score,
    legal_moves,
    pass_turn,
    play,
    talon_left,
)
from simlab.mechanics import search

FULL = np.uint64(FULL_MASK)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "search": SEARCH}
GOING_OUT = 1.0e6


@hot
def turn_options(st: np.ndarray, hm: np.ndarray, p: int, kv: np.ndarray, num: np.ndarray,
                 col: np.ndarray, holders: np.ndarray, mv: np.ndarray,
                 index: np.ndarray) -> int:
    """Seat ``p``'s options at the start of its turn: its legal discards, plus drawing
    instead (``voluntary_draw``, with a talon); 0 = it must draw (or pass)."""
    n = legal_moves(st, hm[p], num, col, holders, mv, index)
    if n > 0 and kv[KV_VOLUNTARY] == 1 and talon_left(st) > 0:
        mv[n] = DRAW
        n += 1
    return n


@hot
def drawn_options(st: np.ndarray, c: int, kv: np.ndarray, num: np.ndarray, col: np.ndarray,
                  holders: np.ndarray, mv: np.ndarray, index: np.ndarray) -> int:
    """After a forced draw of ``c``: discarding it if it fits, and keeping it unless it
    must be played."""
    n = legal_moves(st, bit(c), num, col, holders, mv, index)
    if n > 0 and kv[KV_DRAWN_MUST] == 0:
        mv[n] = KEEP
        n += 1
    return n


@hot
def heuristic_pick(st: np.ndarray, hm: np.ndarray, p: int, mv: np.ndarray, n: int,
                   kv: np.ndarray, num: np.ndarray, col: np.ndarray, holders: np.ndarray,
                   total: np.ndarray) -> int:
    hand = hm[p]
    unseen = FULL & ~hand & ~hm[HM_PUBLIC]
    ws = kv[KV_W_STARVE] / W_SCALE
    strict = st[S_STRICT]
    best = 0
    best_score = -1.0e18
    for i in range(n):
        c = mv[i]
        if c < 0:  # drawing by choice or keeping a fitting card: never
            score = -1.0e17
        elif hand & ~bit(c) == 0:
            score = GOING_OUT
        else:
            replies = popcount(unseen & beats_mask(c, strict, num, col, holders))
            score = total[c] - ws * replies
        if score > best_score:
            best_score = score
            best = i
    return best


@hot
def apply_option(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, opt: int,
                 after_draw: bool, kv: np.ndarray, num: np.ndarray, col: np.ndarray,
                 holders: np.ndarray, total: np.ndarray, mv2: np.ndarray,
                 index: np.ndarray) -> None:
    """Carry out one option of seat ``p`` (a discard, keeping a drawn card, or drawing by
    choice, after which the heuristic decides about the drawn card); not the end of turn."""
    if opt >= 0:
        play(st, hm, p, opt)
        if after_draw:
            st[S_DRAW_PLAYS] += 1
    elif opt == KEEP:
        st[S_KEPT] += 1
    else:  # DRAW
        st[S_VOL_DRAWS] += 1
        c = draw(st, hm, order, p)
        n = drawn_options(st, c, kv, num, col, holders, mv2, index)
        if n > 0:
            i = heuristic_pick(st, hm, p, mv2, n, kv, num, col, holders, total)
            if mv2[i] >= 0:
                play(st, hm, p, mv2[i])
                st[S_DRAW_PLAYS] += 1
            else:
                st[S_KEPT] += 1


@hot
def heuristic_turn(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
                   num: np.ndarray, col: np.ndarray, holders: np.ndarray, total: np.ndarray,
                   mv: np.ndarray, mv2: np.ndarray, index: np.ndarray) -> None:
    """One whole turn of the seat to move, played by the heuristic."""
    p = st[S_TURN]
    n = turn_options(st, hm, p, kv, num, col, holders, mv, index)
    if n > 0:
        i = heuristic_pick(st, hm, p, mv, n, kv, num, col, holders, total)
        apply_option(st, hm, order, p, mv[i], False, kv, num, col, holders, total, mv2,
                     index)
    elif talon_left(st) > 0:
        c = draw(st, hm, order, p)
        n = drawn_options(st, c, kv, num, col, holders, mv, index)
        if n > 0:
            i = heuristic_pick(st, hm, p, mv, n, kv, num, col, holders, total)
            apply_option(st, hm, order, p, mv[i], True, kv, num, col, holders, total, mv2,
                         index)
    else:
        pass_turn(st)
    end_turn(st, kv[KV_CAP])


@hot
def playout(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
            num: np.ndarray, col: np.ndarray, holders: np.ndarray, total: np.ndarray,
            mv: np.ndarray, mv2: np.ndarray, index: np.ndarray) -> None:
    """Every seat plays the heuristic to the end of the game."""
    while st[S_OVER] == 0:
        heuristic_turn(st, hm, order, kv, num, col, holders, total, mv, mv2, index)


@batch
def new_search_work() -> tuple:
    """Scratch arrays of :func:`search_pick`."""
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_HM, dtype=np.uint64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(N_HM, dtype=np.uint64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.float64),
            np.zeros(8, dtype=np.int64))


@hot
def search_pick(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, mv: np.ndarray,
                n: int, after_draw: bool, kv: np.ndarray, num: np.ndarray, col: np.ndarray,
                holders: np.ndarray, total: np.ndarray, index: np.ndarray, seed: np.uint64,
                deal: np.int64, sub: np.int64, W: tuple) -> int:
    """The search player's option for seat ``p`` among ``mv[:n]`` (see the module doc)."""
    if n == 1:
        return 0
    wst, whm, word, xst, xhm, xord, buf, pmv, pmv2, value, sizes = W
    for i in range(n):
        value[i] = 0.0
    ss = search.decision_stream(seed, deal, sub, p, st[S_TURNS] * 2 + (1 if after_draw else 0))
    hidden = FULL & ~hm[p] & ~hm[HM_PUBLIC]
    players = st[S_N]
    for q in range(players):
        sizes[q] = popcount(hm[q])
    for _w in range(kv[KV_WORLDS]):
        for j in range(N_ST):
            wst[j] = st[j]
        for j in range(N_HM):
            whm[j] = hm[j]
        for j in range(N_CARDS):
            word[j] = order[j]
        ss = redeal_hidden(ss, hidden, sizes, players, p, whm, word, st[S_TPOS], buf, index)
        for i in range(n):
            for j in range(N_ST):
                xst[j] = wst[j]
            for j in range(N_HM):
                xhm[j] = whm[j]
            for j in range(N_CARDS):
                xord[j] = word[j]
            apply_option(xst, xhm, xord, p, mv[i], after_draw, kv, num, col, holders, total,
                         pmv2, index)
            end_turn(xst, kv[KV_CAP])
            playout(xst, xhm, xord, kv, num, col, holders, total, pmv, pmv2, index)
            mine = hand_score(xhm, p, total, index)
            s = 0
            for q in range(players):
                s += hand_score(xhm, q, total, index)
            value[i] += s / players - mine  # the table's mean penalty minus mine
    return search.best_move(value, n)


__all__ = ["POLICY_CODES", "apply_option", "drawn_options", "heuristic_pick",
           "heuristic_turn", "new_search_work", "playout", "rng", "search_pick",
           "turn_options"]
