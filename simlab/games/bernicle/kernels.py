"""Bernicle batch kernels: deal after deal (or match after match), each deal a loop of
``players`` moves and ``rules`` steps over the deal's state until it is over. The
runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, kernel_entries
from simlab.engine.jit import batch
from simlab.games.bernicle.players import heuristic_move, random_move, search_move, search_work
from simlab.games.bernicle.rules import (
    C_DEAL,
    C_DEALER,
    C_SCORE,
    C_TAKER,
    HAND_SIZE,
    K_MAX_DEALS,
    K_TARGET,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_SEATS,
    N_STATE,
    P_DONE,
    P_PLAY,
    S_HAND,
    S_PHASE,
    S_TO_MOVE,
    _rules,
    _vector,
    apply_move,
    deal,
    tables,
    write_row,
)
from simlab.mechanics.tricks import cards_of


@batch
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64, seed: np.uint64,
              index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, world: np.ndarray, work: tuple) -> np.uint64:
    """One deal from a shuffled ``deck`` with the seats' policies ``pol``: fills ``row``
    (deal columns from C_SCORE on), ``dealt`` [4, 13] (the hands dealt; row 3: the chien
    then the two chiots) and ``hands_out`` [3, 13] (hands when play starts). ``st``: the
    deal's policy stream (random player); (seed, index, sub) key the search player's
    streams. Returns the policy stream."""
    deal(state, deck, dealer, dealt)
    recorded = False
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:
            recorded = True
            for p in range(N_SEATS):
                cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]], rules, tb)
        elif code == RANDOM:
            st, m = random_move(st, state, kv, rules, tb, work[0])
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
    write_row(state, kv, row)
    return st


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major for polars
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, HAND_SIZE), -1, dtype=np.int64)
    hands_out = np.full((n_rec, N_SEATS, HAND_SIZE), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % N_SEATS
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
    """Whole matches: the deal passes to the left after every deal (a passed-out deal is
    redealt by the next dealer); the first to reach ``target`` wins, several at once:
    the highest total (catalogue ambiguity 11; a tie at the top plays on)."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((4, HAND_SIZE), dtype=np.int64)
    hands_out = np.empty((N_SEATS, HAND_SIZE), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    total = np.zeros(N_SEATS, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), N_SEATS)
        dealer = first
        total[:] = 0
        n_deals = 0
        passed = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            play_deal(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, m, n_deals + 1, row,
                      dealt, hands_out, world, work)
            n_deals += 1
            dealer = (dealer + 1) % N_SEATS
            if row[C_TAKER] < 0:
                passed += 1
                continue
            for p in range(N_SEATS):
                total[p] += row[C_SCORE + p]
            top = total.max()
            if top >= kv[K_TARGET] and (total == top).sum() == 1:
                winner = int(np.argmax(total))
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(N_SEATS):
            out[i, 4 + p] = total[p]
        out[i, 7] = passed
        out[i, 8] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
run_deals, run_matches = kernel_entries(
    deals_kernel, matches_kernel,
    lambda knobs: (_vector(knobs), _rules(knobs), tables(knobs).kernel_args()),
    seat_vector=_vector)
