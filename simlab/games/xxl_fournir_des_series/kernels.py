"""XXL — Fournir des séries: the batch kernels and the runner's entry points.

Deal ``d`` shuffles with its own stream (``simlab.games.xxl.dealing.shuffle_deck``: seed,
d, 0) and the dealer is ``d mod players``; the random player draws from the deal's policy
stream, the search player from its own decision streams. A match is ``match_games``
games, game ``g`` of match ``m`` shuffled from (seed, m, g), the dealer moving left.

May import: the engine, the mechanics, ``simlab.games.xxl``, this game's modules.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, kernel_entries
from simlab.engine.jit import batch, hot
from simlab.games.xxl.common import DEBRUIJN_INDEX, lowest, places, popcount, sole_best, starter
from simlab.games.xxl.dealing import shuffle_deck
from simlab.games.xxl.deck import N_CARDS, tables_for
from simlab.games.xxl_fournir_des_series.players import (
    heuristic_pick,
    new_search_work,
    search_pick,
)
from simlab.games.xxl_fournir_des_series.rules import (
    END_CAP,
    KV_CAP,
    KV_HAND,
    KV_MATCH_GAMES,
    KV_PLAYERS,
    MAX_ACTIONS,
    N_HM,
    N_ST,
    S_DISPLAY_RUN_CARDS,
    S_END,
    S_FEEDS,
    S_OVER,
    S_PASS_COUNT,
    S_REVEALS,
    S_RUNS,
    S_SCORE,
    S_SEAT_RUNS,
    S_STARTER,
    S_SWAPS,
    S_TURN,
    S_TURNS,
    SeriesKnobs,
    apply_action,
    deal_columns,
    end_turn,
    knob_vector,
    legal_actions,
    match_columns,
    new_game,
    talon_left,
)


@hot
def play_game(seed: np.uint64, deal: np.int64, sub: np.int64, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, num: np.ndarray, col: np.ndarray, total: np.ndarray,
              holders: np.ndarray, index: np.ndarray, st: np.ndarray, hm: np.ndarray,
              order: np.ndarray, acts: np.ndarray, scratch: np.ndarray, W: tuple) -> None:
    """Play one game from the shuffled ``order`` (the caller shuffles)."""
    n = kv[KV_PLAYERS]
    new_game(st, hm, order, kv)
    first = starter(hm, n, dealer, 0, total, index)
    st[S_TURN] = first
    st[S_STARTER] = first
    state = rng.stream(seed, deal, sub, rng.POLICY)
    while st[S_OVER] == 0:
        p = st[S_TURN]
        code = pol[p]
        k = legal_actions(st, hm, p, holders, acts, index)
        if code == HEURISTIC:
            i = heuristic_pick(st, hm, p, acts, k, seat_kv[p], num, col, total, index)
        elif code == RANDOM:
            state, i = rng.below(state, k)
        else:
            i = search_pick(st, hm, order, p, acts, k, seat_kv[p], num, col, total, holders,
                            index,
                            seed, deal, sub, W)
        apply_action(st, hm, order, p, acts[i], total)
        end_turn(st, hm, order, kv[KV_CAP], holders, scratch, index)


@hot
def fill_row(st: np.ndarray, hm: np.ndarray, n: int, dealer: int, start_totals: np.ndarray,
             score: np.ndarray, place: np.ndarray, row: np.ndarray) -> None:
    for p in range(n):
        score[p] = st[S_SCORE + p]
    places(score, n, False, place)
    row[1] = dealer
    row[2] = st[S_STARTER]
    j = 3
    unused = 0
    for p in range(n):
        row[j + p] = score[p]
        row[j + n + p] = place[p]
        row[j + 2 * n + p] = st[S_SEAT_RUNS + p]
        row[j + 3 * n + p] = start_totals[p]
        unused += popcount(hm[p])
    j += 4 * n
    row[j] = sole_best(score, n, False)
    row[j + 1] = st[S_END] - 1
    row[j + 2] = st[S_TURNS]
    row[j + 3] = st[S_RUNS]
    row[j + 4] = st[S_DISPLAY_RUN_CARDS]
    row[j + 5] = st[S_SWAPS]
    row[j + 6] = st[S_FEEDS]
    row[j + 7] = st[S_PASS_COUNT]
    row[j + 8] = st[S_REVEALS]
    row[j + 9] = unused
    row[j + 10] = talon_left(st)
    row[j + 11] = 1 if st[S_END] == END_CAP else 0


N_FIXED_COLS = 15


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
    hand = kv[KV_HAND]
    out = np.zeros((N_FIXED_COLS + 4 * n, count), dtype=np.int64).T
    rec = count if record_hands else 0
    dealt = np.full((rec, n, hand), -1, dtype=np.int64)
    hands = np.full((rec, n, N_CARDS), -1, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    hm = np.zeros(N_HM, dtype=np.uint64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    acts = np.zeros(MAX_ACTIONS, dtype=np.int64)
    scratch = np.zeros(4, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    place = np.zeros(n, dtype=np.int64)
    start_totals = np.zeros(n, dtype=np.int64)
    W = new_search_work()
    for i in range(count):
        d = start + i
        dealer = d % n
        shuffle_deck(seed, d, 0, order)
        for p in range(n):
            t = 0
            for j in range(hand):
                c = order[p * hand + j]
                t += total[c]
                if record_hands:
                    dealt[i, p, j] = c
            start_totals[p] = t
        play_game(seed, d, 0, dealer, pol, seat_kv, kv, num, col, total, holders, index, st, hm,
                  order, acts, scratch, W)
        out[i, 0] = d
        fill_row(st, hm, n, dealer, start_totals, score, place, out[i])
        if record_hands:
            record(hm, n, hands[i], index)
    return out, dealt, hands


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray,
                   num: np.ndarray, col: np.ndarray, total: np.ndarray, holders: np.ndarray,
                   index: np.ndarray) -> np.ndarray:
    n = kv[KV_PLAYERS]
    out = np.zeros((3 + n + 2, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    hm = np.zeros(N_HM, dtype=np.uint64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    acts = np.zeros(MAX_ACTIONS, dtype=np.int64)
    scratch = np.zeros(4, dtype=np.int64)
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
                      order, acts, scratch, W)
            for p in range(n):
                final[p] += st[S_SCORE + p]
            if st[S_END] == END_CAP:
                o[3 + n + 1] += 1
        w = sole_best(final, n, False)
        o[1] = w
        o[2] = games
        for p in range(n):
            o[3 + p] = final[p]
        o[3 + n] = 1 if w < 0 else 0
    return out


def kernel_args(knobs: SeriesKnobs) -> tuple:
    num, col, total, holders, _ = tables_for(knobs.deck_colouring)
    return knob_vector(knobs), num, col, total, holders, DEBRUIJN_INDEX


run_deals, run_matches = kernel_entries(deals_kernel, matches_kernel, kernel_args,
                                        seat_vector=knob_vector)

__all__ = ["KernelOutput", "deal_columns", "match_columns", "run_deals", "run_matches",
           "deals_kernel", "matches_kernel", "play_game", "kernel_args", "S_OVER"]
