"""Bridgette batch kernels: deal after deal (or match after match), each deal a loop of
``players`` moves and ``rules`` steps over the deal's state until it is over.
The runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.bridgette.players import heuristic_move, random_move, search_move, search_work
from simlab.games.bridgette.rules import (
    C_DEAL,
    C_DEALER,
    C_SCORE,
    C_TAKER,
    HAND,
    K_DEALS,
    K_MAX_DEALS,
    K_PASSOUT_COUNTS,
    MAX_HELD,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    P_PLAY,
    S_HAND,
    S_PHASE,
    S_TO_MOVE,
    BridgetteKnobs,
    _vector,
    apply_move,
    deal,
    high_card_points,
    write_row,
)
from simlab.mechanics.tricks import EMPTY, bit, cards_of


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, st: np.uint64, seed: np.uint64, index: int, sub: int,
              row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray, world: np.ndarray,
              work: tuple) -> np.uint64:
    """One deal from a shuffled ``deck``, each seat moved by its policy (heuristic, random,
    search): fills ``row`` (deal columns from C_SCORE on), ``dealt`` [2, MAX_HELD] (the
    13 cards dealt, then the draw) and ``hands_out`` [2, 13] (the hands when play starts).
    ``st``: the deal's policy stream (the random player's); (seed, index, sub) key the
    search player's own streams. Returns the policy stream."""
    deal(state, deck, dealer, kv, dealt)
    recorded = False
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:
            recorded = True
            for p in range(2):
                cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]])
        elif code == RANDOM:
            st, m = random_move(st, state, kv, work[0])
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], seed, index, sub, world, work)
        apply_move(state, m, kv)
    dealt_hcp0 = high_card_points(dealt_mask(dealt, 0))
    dealt_hcp1 = high_card_points(dealt_mask(dealt, 1))
    write_row(state, kv, dealt_hcp0, dealt_hcp1, row)
    return st


@hot
def dealt_mask(dealt: np.ndarray, p: int) -> np.uint64:
    """The 13 cards dealt to seat ``p`` (a mask)."""
    m = EMPTY
    for i in range(HAND):
        m |= bit(dealt[p, i])
    return m


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 record: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, MAX_HELD), -1, dtype=np.int64)
    hands_out = np.full((n_rec, 2, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % 2
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(state, deck, dealer, pol, seat_kv, kv, rng.stream(seed, d, 0, rng.POLICY), seed, d, 0,
                  out[i], dealt[j], hands_out[j], world, work)
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray
                   ) -> np.ndarray:
    """Matches of ``deals_per_match`` deals, the dealer alternating (catalogue #10); while
    tied after them, one more deal at a time (seed §10, catalogue #11). A passed-out deal
    counts as a deal unless ``passout_counts`` is off. ``max_deals`` caps the dealings."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((2, MAX_HELD), dtype=np.int64)
    hands_out = np.empty((2, HAND), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 2)
        dealer = first
        score0 = 0
        score1 = 0
        n_deals = 0  # deals that count
        dealings = 0  # every dealing, passed-out ones included (they key the streams)
        passed = 0
        tied_after = False
        winner = -1
        while dealings < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, dealings + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(state, deck, dealer, pol, seat_kv, kv, rng.stream(seed, m, dealings + 1, rng.POLICY),
                      seed, m, dealings + 1, row, dealt, hands_out, world, work)
            dealings += 1
            dealer = 1 - dealer
            if row[C_TAKER] < 0:
                passed += 1
                if not kv[K_PASSOUT_COUNTS]:
                    continue
            n_deals += 1
            score0 += row[C_SCORE]
            score1 += row[C_SCORE + 1]
            if n_deals >= kv[K_DEALS]:
                if score0 != score1:
                    winner = 0 if score0 > score1 else 1
                    break
                if n_deals == kv[K_DEALS]:
                    tied_after = True
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        out[i, 4] = score0
        out[i, 5] = score1
        out[i, 6] = passed
        out[i, 7] = tied_after
        out[i, 8] = max(0, n_deals - kv[K_DEALS])
        out[i, 9] = abs(score0 - score1) if winner >= 0 else 0
        out[i, 10] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: BridgetteKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector),
                                      _vector(knobs), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: BridgetteKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs)))
