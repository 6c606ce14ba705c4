"""Belote de comptoir batch kernels: deal after deal (or match after match), each deal a
loop of ``players`` moves and ``rules`` steps over the deal's state until it is over. The
runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.belote_comptoir.players import (
    estimate,
    heuristic_move,
    random_move,
    search_move,
    search_work,
    seat_view,
)
from simlab.games.belote_comptoir.rules import (
    C_DEAL,
    C_DEALER,
    C_SCORE,
    F_MADE,
    F_TAKER,
    K_K,
    K_MAX_DEALS,
    K_N,
    K_TARGET,
    MAX_PLAYERS,
    N_CARDS,
    N_STATE,
    P_DONE,
    P_PLAY,
    S_CONTRACT,
    S_PHASE,
    S_TAKER,
    S_TO_MOVE,
    ComptoirKnobs,
    _rules,
    _vector,
    apply_move,
    deal,
    kernel_tables,
    n_deal_columns,
    n_match_columns,
    write_row,
)


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64, seed: np.uint64,
              index: int, sub: int, row: np.ndarray, dealt: np.ndarray, world: np.ndarray,
              work: tuple) -> np.uint64:
    """One deal from a shuffled ``deck``: each move from the seat's policy (``st``: the
    deal's policy stream, used by the random player; (seed, index, sub) key the search
    player's own streams). Fills ``row`` from C_SCORE on and ``dealt`` [n, k]; returns
    the policy stream."""
    deal(state, deck, dealer, kv, dealt)
    hand_value = -1
    while state[S_PHASE] != P_DONE:
        seat = state[S_TO_MOVE]
        code = pol[seat]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[seat], rules, tb)
        elif code == RANDOM:
            st, m = random_move(st, state, kv, rules, tb, work[0])
        else:
            m = search_move(state, seat_kv[seat], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
        if state[S_PHASE] == P_PLAY and hand_value < 0:
            # the bidder's hand value for the contract named, his whole hand seen
            known, n_unknown, unseen, n_held, shown = seat_view(state, state[S_TAKER])
            hand_value = np.int64(estimate(known, n_unknown, unseen, n_held, shown,
                                           state[S_CONTRACT], kv, tb))
    write_row(state, kv, tb, max(hand_value, 0), row)
    return st


@hot
def shuffled(deck: np.ndarray, seed: np.uint64, index: int, sub: int) -> None:
    for c in range(N_CARDS):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool) -> tuple[np.ndarray, np.ndarray]:
    n = kv[K_N]
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((n_deal_columns(n), count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, kv[K_K]), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        shuffled(deck, seed, d, 0)
        dealer = d % n
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        st = rng.stream(seed, d, 0, rng.POLICY)
        play_deal(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, d, 0, out[i],
                  dealt[i if record else 0], world, work)
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    """Matches to ``target`` points: the dealer rotates every deal (a deal everybody
    passes is redealt by the next dealer); the first seat at or above the target, alone
    at the top, wins ("La partie peut se jouer à 5 points"); a tie at the top plays on."""
    n = kv[K_N]
    out = np.zeros((count, n_match_columns(n)), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((n_deal_columns(n), 1), dtype=np.int64).T[0]  # same type as in deals_kernel
    dealt = np.empty((n, kv[K_K]), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    f = C_SCORE + n
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        dealer = first
        score[:] = 0
        n_deals = 0
        thrown = 0
        n_made = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            shuffled(deck, seed, m, n_deals + 1)
            row[:] = 0
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            play_deal(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, m, n_deals + 1, row,
                      dealt, world, work)
            n_deals += 1
            dealer = (dealer + 1) % n
            if row[f + F_TAKER] < 0:
                thrown += 1
                continue
            n_made += row[f + F_MADE]
            top = -1
            n_top = 0
            for p in range(n):
                score[p] += row[C_SCORE + p]
                if score[p] > top:
                    top = score[p]
                    n_top = 1
                elif score[p] == top:
                    n_top += 1
            if top >= kv[K_TARGET] and n_top == 1:
                for p in range(n):
                    if score[p] == top:
                        winner = p
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(n):
            out[i, 4 + p] = score[p]
        out[i, 4 + n] = thrown
        out[i, 5 + n] = n_made
        out[i, 6 + n] = n_deals - thrown - n_made
        out[i, 7 + n] = winner < 0
    return out


# --- entry points for the runner -------------------------------------------------------------
def run_deals(knobs: ComptoirKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                               seat_vectors(knobs, policies, _vector),
                               _vector(knobs), _rules(knobs), kernel_tables(knobs),
                               record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt)  # no exchange: play starts with the dealt hands


def run_matches(knobs: ComptoirKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs), _rules(knobs), kernel_tables(knobs)))
