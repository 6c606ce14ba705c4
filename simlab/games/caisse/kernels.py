"""Caisse batch kernels: deal after deal (or match after match), each deal a loop of
``players`` moves and ``rules`` steps until it is over. The runner's entry points
``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, kernel_entries
from simlab.engine.jit import batch, hot
from simlab.games.caisse.players import heuristic_move, random_move, search_move, search_work
from simlab.games.caisse.rules import (
    C_CONTRACT,
    C_DEAL,
    C_DEALER,
    C_SCORE,
    G_MG,
    K_MAX_DEALS,
    K_STEP,
    K_TARGET,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    N_TRICKS,
    NP,
    P_DONE,
    P_PLAY,
    S_HAND,
    S_PHASE,
    S_TO_MOVE,
    _rules,
    _vector,
    apply_move,
    deal,
    match_winner,
    tables,
    write_row,
)
from simlab.mechanics.tricks import cards_of


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64, seed: np.uint64,
              index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, world: np.ndarray, work: tuple) -> np.uint64:
    """One deal with any players (``pol``: a policy code per seat; ``st``: the deal's
    policy stream, used by the random player; (seed, index, sub) key the search player's
    streams). Fills ``row`` (from C_SCORE on), ``dealt`` [3, 9] and ``hands_out`` [3, 9]
    (the hands when play starts). Returns the policy stream."""
    deal(state, deck, dealer, dealt)
    recorded = False
    moves = work[13]
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:
            recorded = True
            for p in range(NP):
                cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]], rules, tb, moves)
        elif code == RANDOM:
            st, m = random_move(st, state, kv, rules, tb, moves)
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
    write_row(state, kv, row)
    return st


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, NP, N_TRICKS), -1, dtype=np.int64)
    hands_out = np.full((n_rec, NP, N_TRICKS), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % NP
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        st = rng.stream(seed, d, 0, rng.POLICY)
        play_deal(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, d, 0, out[i], dealt[j],
                  hands_out[j], world, work)
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    """Matches to ``target`` with the moving bar of §13.1; the deal passes to the left."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((NP, N_TRICKS), dtype=np.int64)
    hands_out = np.empty((NP, N_TRICKS), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    scores = np.zeros(NP, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), NP)
        dealer = first
        scores[:] = 0
        bar = kv[K_TARGET]
        n_deals = 0
        n_mg = 0
        winner = -1
        one_deal = False
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            play_deal(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, m, n_deals + 1, row,
                      dealt, hands_out, world, work)
            n_deals += 1
            n_mg += row[C_CONTRACT] == G_MG
            before = 0
            for p in range(NP):
                before = max(before, scores[p])
                scores[p] += row[C_SCORE + p]
            winner, bar = match_winner(scores, bar, kv[K_STEP])
            dealer = (dealer + 1) % NP
            if winner >= 0:
                one_deal = scores[winner] - row[C_SCORE + winner] < kv[K_TARGET]  \
                    and row[C_SCORE + winner] >= kv[K_TARGET]
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(NP):
            out[i, 4 + p] = scores[p]
        out[i, 7] = bar
        out[i, 8] = one_deal
        out[i, 9] = n_mg
        out[i, 10] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------------------
run_deals, run_matches = kernel_entries(
    deals_kernel, matches_kernel,
    lambda knobs: (_vector(knobs), _rules(knobs), tables(knobs).kernel_args()),
    seat_vector=_vector)
