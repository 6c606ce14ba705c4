"""XXL — Montées et descentes: the batch kernels and the runner's entry points.

Deal ``d`` shuffles with its own stream (``simlab.games.xxl.dealing.shuffle_deck``: seed,
d, 0) and the dealer is ``d mod players``; the random player draws from the deal's
policy stream, the search player from its own decision streams. A match (XXL
individuel) is ``match_games`` games, game ``g`` of match ``m`` shuffled from (seed, m,
g), the dealer moving left each game.

May import: the engine, the mechanics, ``simlab.games.xxl``, this game's modules.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, kernel_entries
from simlab.engine.jit import batch, hot
from simlab.games.xxl.common import DEBRUIJN_INDEX, lowest, places, sole_best, starter
from simlab.games.xxl.dealing import shuffle_deck
from simlab.games.xxl.deck import N_CARDS, tables_for
from simlab.games.xxl_montees_descentes.players import (
    apply_option,
    drawn_options,
    heuristic_pick,
    new_search_work,
    search_pick,
    turn_options,
)
from simlab.games.xxl_montees_descentes.rules import (
    END_CAP,
    KV_CAP,
    KV_HAND,
    KV_IND_PLACES,
    KV_MATCH_GAMES,
    KV_PILES,
    KV_PLAYERS,
    KV_STARTER,
    MAX_MOVES,
    N_HM,
    N_ST,
    S_DRAW_PLAYS,
    S_DRAWS,
    S_END,
    S_KEPT,
    S_OUT,
    S_OVER,
    S_PLAYS,
    S_RESTARTS,
    S_SEAT_DRAWS,
    S_STARTER,
    S_TURN,
    S_TURNS,
    S_VOL_DRAWS,
    MonteesKnobs,
    deal_columns,
    draw,
    end_turn,
    hand_score,
    knob_vector,
    match_columns,
    new_game,
    pass_turn,
    talon_left,
)


@hot
def pick(code: int, state: np.uint64, st: np.ndarray, hm: np.ndarray, order: np.ndarray,
         p: int, mv: np.ndarray, n: int, after_draw: bool, kv: np.ndarray,
         holders: np.ndarray, col: np.ndarray, num: np.ndarray, total: np.ndarray,
         save: np.ndarray, index: np.ndarray, seed: np.uint64, deal: np.int64,
         sub: np.int64, W: tuple) -> tuple[np.uint64, int]:
    if code == RANDOM:
        return rng.below(state, n)
    if code == HEURISTIC:
        return state, heuristic_pick(st, hm, p, mv, n, kv, holders, col, num, total, save)
    return state, search_pick(st, hm, order, p, mv, n, after_draw, kv, holders, col, num,
                              total, index, seed, deal, sub, W)


@hot
def play_game(seed: np.uint64, deal: np.int64, sub: np.int64, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, num: np.ndarray, col: np.ndarray, total: np.ndarray,
              holders: np.ndarray, index: np.ndarray, st: np.ndarray, hm: np.ndarray,
              order: np.ndarray, mv: np.ndarray, mv2: np.ndarray, save: np.ndarray,
              W: tuple) -> None:
    """Play one game from the shuffled ``order`` (the caller shuffles)."""
    n = kv[KV_PLAYERS]
    new_game(st, hm, order, n, kv[KV_HAND], kv[KV_PILES], col, num)
    first = starter(hm, n, dealer, kv[KV_STARTER], total, index)
    st[S_TURN] = first
    st[S_STARTER] = first
    state = rng.stream(seed, deal, sub, rng.POLICY)
    while st[S_OVER] == 0:
        p = st[S_TURN]
        code = pol[p]
        kp = seat_kv[p]  # the seat's own policy knobs (the rule entries equal kv's)
        k = turn_options(st, hm, p, kp, holders, col, mv, index)
        if k > 0:
            if code == HEURISTIC:  # the common case, without the search's arguments
                i = heuristic_pick(st, hm, p, mv, k, kp, holders, col, num, total, save)
            else:
                state, i = pick(code, state, st, hm, order, p, mv, k, False, kp, holders,
                                col, num, total, save, index, seed, deal, sub, W)
            apply_option(st, hm, order, p, mv[i], False, kp, holders, col, num, total, mv2,
                         save, index)
        elif talon_left(st) > 0:
            c = draw(st, hm, order, p)
            k = drawn_options(st, c, kp, holders, col, mv, index)
            if k > 0:
                if code == HEURISTIC:
                    i = heuristic_pick(st, hm, p, mv, k, kp, holders, col, num, total, save)
                else:
                    state, i = pick(code, state, st, hm, order, p, mv, k, True, kp, holders,
                                    col, num, total, save, index, seed, deal, sub, W)
                apply_option(st, hm, order, p, mv[i], True, kp, holders, col, num, total,
                             mv2, save, index)
        else:
            pass_turn(st)
        end_turn(st, kv[KV_CAP])


# row layout (deal_columns order)
@hot
def fill_row(st: np.ndarray, hm: np.ndarray, n: int, dealer: int, start_totals: np.ndarray,
             total: np.ndarray, index: np.ndarray, score: np.ndarray, place: np.ndarray,
             row: np.ndarray) -> None:
    for p in range(n):
        score[p] = hand_score(hm, p, total, index)
    places(score, n, True, place)
    row[1] = dealer
    row[2] = st[S_STARTER]
    j = 3
    for p in range(n):
        row[j + p] = score[p]
        row[j + n + p] = place[p]
        row[j + 2 * n + p] = start_totals[p]
    j += 3 * n
    row[j] = sole_best(score, n, True)
    row[j + 1] = st[S_OUT]
    row[j + 2] = st[S_END] - 1
    row[j + 3] = st[S_TURNS]
    row[j + 4] = st[S_PLAYS]
    row[j + 5] = st[S_DRAWS]
    mx = 0
    for p in range(n):
        mx = max(mx, st[S_SEAT_DRAWS + p])
    row[j + 6] = mx
    row[j + 7] = st[S_DRAW_PLAYS]
    row[j + 8] = st[S_KEPT]
    row[j + 9] = st[S_VOL_DRAWS]
    row[j + 10] = st[S_RESTARTS]
    row[j + 11] = talon_left(st)
    row[j + 12] = 1 if st[S_END] == END_CAP else 0


N_FIXED_COLS = 16  # deal, dealer, starter + 13 after the per-seat blocks


@hot
def record(hm: np.ndarray, n: int, out: np.ndarray, index: np.ndarray) -> None:
    for p in range(n):
        m = hm[p]
        k = 0
        while m != 0:
            out[p, k] = lowest(m, index)
            k += 1
            m &= m - np.uint64(1)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray,
                 num: np.ndarray, col: np.ndarray, total: np.ndarray, holders: np.ndarray,
                 index: np.ndarray, record_hands: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = kv[KV_PLAYERS]
    width = N_FIXED_COLS + 3 * n
    out = np.zeros((width, count), dtype=np.int64).T
    rec = count if record_hands else 0
    dealt = np.full((rec, n, N_CARDS), -1, dtype=np.int64)
    hands = np.full((rec, n, N_CARDS), -1, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    hm = np.zeros(N_HM, dtype=np.uint64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    mv = np.zeros(MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(MAX_MOVES, dtype=np.int64)
    save = np.zeros(8, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    place = np.zeros(n, dtype=np.int64)
    start_totals = np.zeros(n, dtype=np.int64)
    W = new_search_work()
    empty = np.zeros((0, N_CARDS), dtype=np.int64)
    for i in range(count):
        d = start + i
        dealer = d % n
        if record_hands:
            play_game_recorded(seed, d, 0, dealer, pol, seat_kv, kv, num, col, total, holders, index,
                               st, hm, order, mv, mv2, save, W, start_totals, dealt[i])
        else:
            play_game_recorded(seed, d, 0, dealer, pol, seat_kv, kv, num, col, total, holders, index,
                               st, hm, order, mv, mv2, save, W, start_totals, empty)
        out[i, 0] = d
        fill_row(st, hm, n, dealer, start_totals, total, index, score, place, out[i])
        if record_hands:
            record(hm, n, hands[i], index)
    return out, dealt, hands


@hot
def play_game_recorded(seed: np.uint64, deal: np.int64, sub: np.int64, dealer: int,
                       pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                       num: np.ndarray, col: np.ndarray,
                       total: np.ndarray, holders: np.ndarray, index: np.ndarray,
                       st: np.ndarray, hm: np.ndarray, order: np.ndarray, mv: np.ndarray,
                       mv2: np.ndarray, save: np.ndarray, W: tuple, start_totals: np.ndarray,
                       dealt: np.ndarray) -> None:
    """:func:`play_game`, noting each seat's dealt hand total (and cards, if ``dealt`` has
    rows)."""
    n = kv[KV_PLAYERS]
    hand = kv[KV_HAND]
    shuffle_deck(seed, deal, sub, order)
    for p in range(n):
        t = 0
        for j in range(hand):
            c = order[p * hand + j]
            t += total[c]
            if dealt.shape[0] > 0:
                dealt[p, j] = c
        start_totals[p] = t
    play_game(seed, deal, sub, dealer, pol, seat_kv, kv, num, col, total, holders, index, st, hm,
              order, mv, mv2, save, W)


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray,
                   num: np.ndarray, col: np.ndarray, total: np.ndarray, holders: np.ndarray,
                   index: np.ndarray) -> np.ndarray:
    n = kv[KV_PLAYERS]
    width = 3 + n + 3
    out = np.zeros((width, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    hm = np.zeros(N_HM, dtype=np.uint64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    mv = np.zeros(MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(MAX_MOVES, dtype=np.int64)
    save = np.zeros(8, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    place = np.zeros(n, dtype=np.int64)
    final = np.zeros(n, dtype=np.int64)
    W = new_search_work()
    games = kv[KV_MATCH_GAMES]
    for i in range(count):
        m = start + i
        o = out[i]
        o[0] = m
        for p in range(n):
            final[p] = 0
        for g in range(games):
            shuffle_deck(seed, m, g, order)
            play_game(seed, m, g, g % n, pol, seat_kv, kv, num, col, total, holders, index, st, hm,
                      order, mv, mv2, save, W)
            for p in range(n):
                score[p] = hand_score(hm, p, total, index)
            places(score, n, True, place)
            for p in range(n):
                final[p] += place[p] if kv[KV_IND_PLACES] == 1 else score[p]
            if st[S_END] == 2:
                o[3 + n + 1] += 1
            elif st[S_END] == END_CAP:
                o[3 + n + 2] += 1
        w = sole_best(final, n, True)
        o[1] = w
        o[2] = games
        for p in range(n):
            o[3 + p] = final[p]
        o[3 + n] = 1 if w < 0 else 0
    return out


# --- entry points for the runner -------------------------------------------------------
def kernel_args(knobs: MonteesKnobs) -> tuple:
    num, col, total, holders, _ = tables_for(knobs.deck_colouring)
    return knob_vector(knobs), num, col, total, holders, DEBRUIJN_INDEX


_run_deals, run_matches = kernel_entries(deals_kernel, matches_kernel, kernel_args,
                                         seat_vector=knob_vector)


def run_deals(knobs: MonteesKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    out = _run_deals(knobs, policies, seed, start, count, record_hands)
    if record_hands:  # the dealt hands hold hand_size cards: trim the padding
        out.dealt = out.dealt[:, :, :knobs.hand_size]
    return out


__all__ = ["deal_columns", "match_columns", "run_deals", "run_matches", "deals_kernel",
           "matches_kernel", "play_game", "kernel_args"]
