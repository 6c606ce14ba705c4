"""Démons punisseurs batch kernels: deal after deal (or match after match), each deal a
loop of the players' moves applied with ``rules.apply_move`` until it is over. The
runner's entry points ``run_deals`` and ``run_matches`` are at the end.

May import: ``simlab.engine.*``, ``simlab.mechanics.*``, this game's modules.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.demons_punisseurs.players import (
    heuristic_move,
    random_move,
    search_move,
    search_work,
    swap_heuristic,
    swap_random,
)
from simlab.games.demons_punisseurs.rules import (
    C_DEAL,
    C_DEALER,
    C_SCORE,
    HAND,
    K_MAX_DEALS,
    K_TARGET,
    M_CAPPED,
    M_FINAL,
    M_FIRST,
    M_MARGIN,
    M_MATCH,
    M_N_DEALS,
    M_WINNER,
    MAX_MOVES,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    PLAYERS,
    S_DEALER,
    S_HAND,
    S_PHASE,
    S_TO_MOVE,
    DemonsPunisseursKnobs,
    _vector,
    apply_move,
    deal,
    start_play,
    write_row,
)
from simlab.mechanics.tricks import EMPTY, ONE, lowest


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, st: np.uint64, seed: np.uint64,
              index: int, sub: int, row: np.ndarray, dealt: np.ndarray, hands: np.ndarray,
              world: np.ndarray, work: tuple, moves: np.ndarray, scratch: np.ndarray
              ) -> np.uint64:
    """One deal from a shuffled ``deck`` with the players ``pol``: fills ``row`` (deal
    columns from C_SCORE on), ``dealt`` [3, 7] (cards as dealt) and ``hands`` [3, 7] (the
    hands play starts with, after the dealer's swaps). Returns the policy stream."""
    deal(state, deck, dealer, kv, dealt)
    d = state[S_DEALER]
    if pol[d] == RANDOM:
        st = swap_random(state, kv, st)
    else:
        swap_heuristic(state, seat_kv[d])
    for p in range(PLAYERS):
        h = np.uint64(state[S_HAND + p])
        k = 0
        while h != EMPTY:
            hands[p, k] = lowest(h)
            h &= h - ONE
            k += 1
    start_play(state)
    while state[S_PHASE] != P_DONE:
        p = state[S_TO_MOVE]
        code = pol[p]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[p], moves)
        elif code == RANDOM:
            st, m = random_move(state, kv, st, moves)
        else:
            m = search_move(state, seat_kv[p], seed, index, sub, world, work)
        apply_move(state, m, kv)
    write_row(state, row, scratch)
    return st


@hot
def shuffled(seed: np.uint64, index: int, sub: int, deck: np.ndarray) -> None:
    """A uniform shuffle of the 33 cards from the deal's own stream."""
    for c in range(N_CARDS):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, PLAYERS, HAND), -1, dtype=np.int64)
    hands = np.full((n_rec, PLAYERS, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(6, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        shuffled(seed, d, 0, deck)
        dealer = d % PLAYERS
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(state, deck, dealer, pol, seat_kv, kv, rng.stream(seed, d, 0, rng.POLICY),
                  seed, d, 0, out[i], dealt[j], hands[j], world, work, moves, scratch)
    return out, dealt, hands


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    """Matches: the first dealer at random, the deal passing clockwise (catalogue #13);
    the first seat to reach ``target_points`` after a deal wins (the highest if several;
    a tie at the top plays on: catalogue #2, the seed has no match end)."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((PLAYERS, HAND), dtype=np.int64)
    hands = np.empty((PLAYERS, HAND), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(6, dtype=np.int64)
    score = np.zeros(PLAYERS, dtype=np.int64)
    work = search_work()
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), PLAYERS)
        dealer = first
        for p in range(PLAYERS):
            score[p] = 0
        n_deals = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            n_deals += 1
            shuffled(seed, m, n_deals, deck)
            for j in range(N_DEAL_COLS):
                row[j] = 0
            play_deal(state, deck, dealer, pol, seat_kv, kv,
                      rng.stream(seed, m, n_deals, rng.POLICY), seed, m, n_deals, row, dealt,
                      hands, world, work, moves, scratch)
            best = -(1 << 40)
            who = -1
            tie = False
            for p in range(PLAYERS):
                score[p] += row[C_SCORE + p]
                if score[p] > best:
                    best = score[p]
                    who = p
                    tie = False
                elif score[p] == best:
                    tie = True
            dealer = (dealer + 1) % PLAYERS
            if best >= target and not tie:
                winner = who
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        second = -(1 << 40)
        for p in range(PLAYERS):
            out[i, M_FINAL + p] = score[p]
            if p != winner and score[p] > second:
                second = score[p]
        out[i, M_CAPPED] = winner < 0
        out[i, M_MARGIN] = score[winner] - second if winner >= 0 else 0
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: DemonsPunisseursKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector), _vector(knobs),
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: DemonsPunisseursKnobs, policies: tuple[str, ...], seed: int,
                start: int, count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs)))
