"""XXL — Montées et descentes: the players.

* ``random``: a uniform choice among the options (every legal move; after a draw that
  fits, also keeping the card when ``drawn_card = optional``; drawing instead of playing
  when ``voluntary_draw``).
* ``heuristic`` (the catalogue's sketch): score each move by
  ``card total + keep_weight x (my cards still playable after it) - block_weight x (the
  next player's expected playable cards)``, the last term counted over the cards this
  seat has not seen (neither in its hand nor on the piles) times the next hand's share of
  them; going out beats everything. It always plays a drawn card that fits and never
  draws by choice.
* ``search``: determinized Monte Carlo (``simlab.mechanics.search``): ``search_worlds``
  worlds re-deal the cards the seat has not seen to the other hands (their sizes are
  public) and the talon; each option is played in each world, then every seat plays the
  heuristic to the end; the option with the best summed result (the seat's penalty
  against the table's mean) wins. A seat with one option does not search. It reads only
  its hand, the piles, the hand sizes and the talon size.

May import: the engine, the mechanics, ``simlab.games.xxl``, this game's ``rules``.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, SEARCH  # noqa: F401
from simlab.engine.jit import batch, hot
from simlab.games.xxl.common import bit, popcount, redeal_hidden
from simlab.games.xxl.deck import FULL_MASK, N_CARDS
from simlab.games.xxl_montees_descentes.rules import (
    DRAW,
    HM_PUBLIC,
    KEEP,
    KV_CAP,
    KV_DRAWN_MUST,
    KV_VOLUNTARY,
    KV_W_BLOCK,
    KV_W_KEEP,
    KV_WORLDS,
    MAX_MOVES,
    N_HM,
    N_ST,
    S_DRAW_PLAYS,
    S_KEPT,
    S_N,
    S_OVER,
    S_PILE,
    S_TPOS,
    S_TURN,
    S_TURNS,
    S_VOL_DRAWS,
    W_SCALE,
    draw,
    end_turn,
    hand_score,
    legal_moves,
    pass_turn,
    place_on_pile,
    play,
    talon_left,
    targets,
)
from simlab.mechanics import search

FULL = np.uint64(FULL_MASK)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "search": SEARCH}
GOING_OUT = 1.0e6


@hot
def turn_options(st: np.ndarray, hm: np.ndarray, p: int, kv: np.ndarray,
                 holders: np.ndarray, col: np.ndarray, mv: np.ndarray,
                 index: np.ndarray) -> int:
    """Seat ``p``'s options at the start of its turn: its legal moves, plus drawing
    instead (``voluntary_draw``, with a talon); 0 = it must draw (or pass)."""
    n = legal_moves(st, hm[p], holders, col, mv, index)
    if n > 0 and kv[KV_VOLUNTARY] == 1 and talon_left(st) > 0:
        mv[n] = DRAW
        n += 1
    return n


@hot
def drawn_options(st: np.ndarray, c: int, kv: np.ndarray, holders: np.ndarray,
                  col: np.ndarray, mv: np.ndarray, index: np.ndarray) -> int:
    """After a forced draw of ``c``: its moves, plus keeping it unless it must be played."""
    n = legal_moves(st, bit(c), holders, col, mv, index)
    if n > 0 and kv[KV_DRAWN_MUST] == 0:
        mv[n] = KEEP
        n += 1
    return n


@hot
def heuristic_pick(st: np.ndarray, hm: np.ndarray, p: int, mv: np.ndarray, n: int,
                   kv: np.ndarray, holders: np.ndarray, col: np.ndarray, num: np.ndarray,
                   total: np.ndarray, save: np.ndarray) -> int:
    hand = hm[p]
    unseen = FULL & ~hand & ~hm[HM_PUBLIC]
    n_unseen = max(1, popcount(unseen))
    nxt = (p + 1) % st[S_N]
    share = popcount(hm[nxt]) / n_unseen
    wk = kv[KV_W_KEEP] / W_SCALE
    wb = kv[KV_W_BLOCK] / W_SCALE
    best = 0
    best_score = -1.0e18
    for i in range(n):
        m = mv[i]
        if m < 0:  # drawing by choice or keeping a fitting card: never
            score = -1.0e17
        else:
            card = m >> 3
            k = (m >> 1) & 3
            base = S_PILE + 6 * k
            for j in range(6):
                save[j] = st[base + j]
            place_on_pile(st, m, col, num)
            t = targets(st, holders)
            for j in range(6):
                st[base + j] = save[j]
            rest = hand & ~bit(card)
            if rest == 0:
                score = GOING_OUT
            else:
                score = (total[card] + wk * popcount(rest & t)
                         - wb * popcount(unseen & t) * share)
        if score > best_score:
            best_score = score
            best = i
    return best


@hot
def random_pick(state: np.uint64, n: int) -> tuple[np.uint64, int]:
    return rng.below(state, n)


@hot
def apply_option(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, opt: int,
                 after_draw: bool, kv: np.ndarray, holders: np.ndarray, col: np.ndarray,
                 num: np.ndarray, total: np.ndarray, mv2: np.ndarray, save: np.ndarray,
                 index: np.ndarray) -> None:
    """Carry out one option of seat ``p`` (a move, keeping a drawn card, or drawing by
    choice, after which the heuristic decides about the drawn card); not the end of turn."""
    if opt >= 0:
        play(st, hm, p, opt, col, num)
        if after_draw:
            st[S_DRAW_PLAYS] += 1
    elif opt == KEEP:
        st[S_KEPT] += 1
    else:  # DRAW
        st[S_VOL_DRAWS] += 1
        c = draw(st, hm, order, p)
        n = drawn_options(st, c, kv, holders, col, mv2, index)
        if n > 0:
            i = heuristic_pick(st, hm, p, mv2, n, kv, holders, col, num, total, save)
            if mv2[i] >= 0:
                play(st, hm, p, mv2[i], col, num)
                st[S_DRAW_PLAYS] += 1
            else:
                st[S_KEPT] += 1


@hot
def heuristic_turn(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
                   holders: np.ndarray, col: np.ndarray, num: np.ndarray, total: np.ndarray,
                   mv: np.ndarray, mv2: np.ndarray, save: np.ndarray,
                   index: np.ndarray) -> None:
    """One whole turn of the seat to move, played by the heuristic."""
    p = st[S_TURN]
    n = turn_options(st, hm, p, kv, holders, col, mv, index)
    if n > 0:
        i = heuristic_pick(st, hm, p, mv, n, kv, holders, col, num, total, save)
        apply_option(st, hm, order, p, mv[i], False, kv, holders, col, num, total, mv2,
                     save, index)
    elif talon_left(st) > 0:
        c = draw(st, hm, order, p)
        n = drawn_options(st, c, kv, holders, col, mv, index)
        if n > 0:
            i = heuristic_pick(st, hm, p, mv, n, kv, holders, col, num, total, save)
            apply_option(st, hm, order, p, mv[i], True, kv, holders, col, num, total, mv2,
                         save, index)
    else:
        pass_turn(st)
    end_turn(st, kv[KV_CAP])


@hot
def playout(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
            holders: np.ndarray, col: np.ndarray, num: np.ndarray, total: np.ndarray,
            mv: np.ndarray, mv2: np.ndarray, save: np.ndarray, index: np.ndarray) -> None:
    """Every seat plays the heuristic to the end of the game."""
    while st[S_OVER] == 0:
        heuristic_turn(st, hm, order, kv, holders, col, num, total, mv, mv2, save, index)


@batch
def new_search_work() -> tuple:
    """Scratch arrays of :func:`search_pick`."""
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_HM, dtype=np.uint64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(N_HM, dtype=np.uint64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.float64),
            np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64))


@hot
def search_pick(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, mv: np.ndarray,
                n: int, after_draw: bool, kv: np.ndarray, holders: np.ndarray,
                col: np.ndarray, num: np.ndarray, total: np.ndarray, index: np.ndarray,
                seed: np.uint64, deal: np.int64, sub: np.int64, W: tuple) -> int:
    """The search player's option for seat ``p`` among ``mv[:n]`` (see the module doc)."""
    if n == 1:
        return 0
    wst, whm, word, xst, xhm, xord, buf, pmv, pmv2, value, save, sizes = W
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
            apply_option(xst, xhm, xord, p, mv[i], after_draw, kv, holders, col, num, total,
                         pmv2, save, index)
            end_turn(xst, kv[KV_CAP])
            playout(xst, xhm, xord, kv, holders, col, num, total, pmv, pmv2, save, index)
            mine = hand_score(xhm, p, total, index)
            s = 0
            for q in range(players):
                s += hand_score(xhm, q, total, index)
            value[i] += s / players - mine  # the table's mean penalty minus mine
    return search.best_move(value, n)
