"""Belote batch kernels: deal after deal (or match after match), each deal a loop of
``players`` moves and ``rules`` steps over the deal's state until it is over.
The runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, kernel_entries
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import all_seats_use
from simlab.games.belote.players import (
    heuristic_bid,
    heuristic_card,
    heuristic_move,
    random_move,
    search_move,
    search_work,
)
from simlab.games.belote.rules import (
    C_CAPOT,
    C_DEAL,
    C_DEALER,
    C_LITIGE,
    C_LITIGE_POINTS,
    C_SCORE,
    C_TAKER,
    K_LITIGE_CARRY,
    K_MAX_DEALS,
    K_SAME_DEALER,
    K_TARGET,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    P_PLAY,
    S_HAND,
    S_PHASE,
    S_TO_MOVE,
    S_TRUMP,
    TEAM_OF,
    _rules,
    _vector,
    apply_bid,
    apply_move,
    deal,
    legal_cards_now,
    play_card,
    tables,
    write_row,
)
from simlab.mechanics.tricks import cards_of


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, kv: np.ndarray, rules: np.ndarray,
              tb: tuple, row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray) -> None:
    """One dealing from a shuffled ``deck``, every seat heuristic: fills ``row`` (deal
    columns from C_SCORE on), ``dealt`` [4, 5] and ``hands_out`` [4, 8] (hands when play
    starts). The loop calls the heuristic and the rules with the trump's table rows; any
    other mix of players goes through ``play_deal_any`` (a branch per move on the seat's
    policy measured this loop slower)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    deal(state, deck, dealer, dealt)
    while state[S_PHASE] < P_PLAY:  # the auction
        apply_bid(state, heuristic_bid(state, kv, suit_mask), kv)
    if state[S_PHASE] == P_DONE:  # thrown in
        write_row(state, kv, row)
        return
    for p in range(4):
        cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
    t = state[S_TRUMP] + 1
    strength_t, points_t, above_t = strength[t], points[t], above[t]
    cheap_t, rich_t, win_t = cheap[t], rich[t], win_rank[t]
    while state[S_PHASE] != P_DONE:  # 8 tricks
        legal = legal_cards_now(state, rules, suit_of, suit_mask, excuse_mask, above_t)
        c = heuristic_card(state, legal, kv, suit_of, suit_mask, excuse_mask, strength_t,
                           points_t, above_t, cheap_t, rich_t, win_t)
        play_card(state, c, kv, suit_of, points_t, above_t)
    write_row(state, kv, row)


@hot
def play_deal_any(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
                  seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  st: np.uint64, seed: np.uint64, index: int, sub: int, row: np.ndarray,
                  dealt: np.ndarray, hands_out: np.ndarray, world: np.ndarray,
                  work: tuple) -> np.uint64:
    """``play_deal`` with any players (heuristic, random, search): one move per step of the
    loop, from ``players`` (``st``: the deal's policy stream, used by the random player;
    (seed, index, sub) key the search player's own streams). Each seat decides with its
    own policy values (``seat_kv[seat]``); the rules read ``kv``. Returns the policy
    stream."""
    deal(state, deck, dealer, dealt)
    recorded = False
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:  # the hands once the auction is over
            recorded = True
            for p in range(4):
                cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
        seat = state[S_TO_MOVE]
        code = pol[seat]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[seat], rules, tb)
        elif code == RANDOM:
            st, m = random_move(st, state, kv, rules, tb, work[0])
        else:
            m = search_move(state, seat_kv[seat], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
    write_row(state, kv, row)
    return st


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, 5), -1, dtype=np.int64)
    hands_out = np.full((n_rec, 4, 8), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    heuristic_only = (pol == HEURISTIC).all() and all_seats_use(seat_kv, kv)
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % 4
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        st = rng.stream(seed, d, 0, rng.POLICY)
        if heuristic_only:
            play_deal(state, deck, dealer, kv, rules, tb, out[i], dealt[j], hands_out[j])
        else:
            play_deal_any(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, d, 0,
                          out[i], dealt[j], hands_out[j], world, work)
        if record and out[i, C_TAKER] < 0:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple
                   ) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((4, 5), dtype=np.int64)
    hands_out = np.empty((4, 8), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    heuristic_only = (pol == HEURISTIC).all() and all_seats_use(seat_kv, kv)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 4)
        dealer = first
        score0 = 0
        score1 = 0
        reserve = 0
        n_deals = 0
        thrown = 0
        litiges = 0
        capots = 0
        low0 = 0  # each team's lowest margin along the match
        low1 = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            if heuristic_only:
                play_deal(state, deck, dealer, kv, rules, tb, row, dealt, hands_out)
            else:
                play_deal_any(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, m,
                              n_deals + 1, row, dealt, hands_out, world, work)
            n_deals += 1
            if row[C_TAKER] < 0:
                thrown += 1
                if not kv[K_SAME_DEALER]:
                    dealer = (dealer + 1) % 4
                continue
            s0 = row[C_SCORE]
            s1 = row[C_SCORE + 1]
            if row[C_LITIGE]:
                litiges += 1
                if kv[K_LITIGE_CARRY]:
                    reserve += row[C_LITIGE_POINTS]
            elif reserve > 0:  # the winner of this deal collects the reserve
                if s0 > s1:
                    s0 += reserve
                else:
                    s1 += reserve
                reserve = 0
            capots += row[C_CAPOT]
            score0 += s0
            score1 += s1
            low0 = min(low0, score0 - score1)
            low1 = min(low1, score1 - score0)
            dealer = (dealer + 1) % 4
            if score0 >= kv[K_TARGET] or score1 >= kv[K_TARGET]:
                if score0 != score1:  # both past the target: the higher total wins
                    winner = 0 if score0 > score1 else 1
                    break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(4):
            out[i, 4 + p] = score0 if TEAM_OF[p] == 0 else score1
        out[i, 8] = thrown
        out[i, 9] = litiges
        out[i, 10] = capots
        out[i, 11] = low0 if winner == 0 else low1 if winner == 1 else 0
        out[i, 12] = low1 if winner == 0 else low0 if winner == 1 else 0
        out[i, 13] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
run_deals, run_matches = kernel_entries(
    deals_kernel, matches_kernel,
    lambda knobs: (_vector(knobs), _rules(knobs), tables(knobs).kernel_args()),
    seat_vector=_vector)
