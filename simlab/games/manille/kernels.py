"""Manille batch kernels: deal after deal (or match after match), each deal a loop of the
players' cards played with ``rules.play_card`` over the deal's state until it is over. The
runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import all_seats_use, seat_vectors
from simlab.games.manille.players import heuristic_card, heuristic_move, search_move, search_work
from simlab.games.manille.rules import (
    C_DEAL,
    C_DEALER,
    C_SCORE,
    C_WIN_TEAM,
    FAULT,
    HAND,
    K_MAX_DEALS,
    K_RENONCE,
    K_RESHUFFLE,
    K_TARGET,
    K_TWO_IN_A_ROW,
    M_BY_TWO,
    M_CAPPED,
    M_FINAL,
    M_FIRST,
    M_MATCH,
    M_N_DEALS,
    M_N_VOID,
    M_TWO_DEAL,
    M_TWO_FIRST,
    M_WINNER,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    S_HIST,
    S_PHASE,
    S_TO_MOVE,
    S_TRUMP,
    TEAM_OF,
    ManilleKnobs,
    _vector,
    apply_move,
    apply_renonce,
    cut_gathered_tricks,
    deal,
    draw_cut,
    draw_renonce,
    legal_cards_now,
    play_card,
    rules_for,
    tables,
    write_row,
)
from simlab.mechanics.tricks import random_card


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, kv: np.ndarray, rules: np.ndarray,
              tb: tuple, row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray) -> None:
    """One deal from a shuffled ``deck``, every seat heuristic: fills ``row`` (deal columns
    from C_ANNULLED on), ``dealt`` and ``hands_out`` [4, 8] (card ids in dealing order; the
    classic game has no exchange). Any other mix of players goes through
    ``play_deal_any``."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    deal(state, deck, dealer, dealt)
    for p in range(4):
        for i in range(HAND):
            hands_out[p, i] = dealt[p, i]
    t = state[S_TRUMP] + 1
    points_t, above_t, cheap_t, rich_t, win_t = points[t], above[t], cheap[t], rich[t], win_rank[t]
    while state[S_PHASE] != P_DONE:
        legal = legal_cards_now(state, rules, suit_of, suit_mask, excuse_mask, above_t)
        c = heuristic_card(state, legal, kv, suit_of, suit_mask, excuse_mask, points_t, above_t,
                           cheap_t, rich_t, win_t)
        play_card(state, c, suit_of, points_t, above_t)
    write_row(state, kv, row)


@hot
def play_deal_any(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
                  seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64, seed: np.uint64,
                  index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
                  hands_out: np.ndarray, world: np.ndarray, work: tuple) -> np.uint64:
    """``play_deal`` with any players (heuristic, random, search): ``st`` is the deal's
    policy stream (the random player's), (seed, index, sub) key the search player's own
    streams. Returns the policy stream."""
    deal(state, deck, dealer, dealt)
    for p in range(4):
        for i in range(HAND):
            hands_out[p, i] = dealt[p, i]
    while state[S_PHASE] != P_DONE:
        seat = state[S_TO_MOVE]
        code = pol[seat]
        if code == HEURISTIC:
            c = heuristic_move(state, seat_kv[seat], rules, tb)
        elif code == RANDOM:
            t = state[S_TRUMP] + 1
            st, c = random_card(st, legal_cards_now(state, rules, tb[0], tb[1], tb[2], tb[5][t]))
        else:
            c = search_move(state, seat_kv[seat], rules, tb, seed, index, sub, world, work)
        apply_move(state, c, tb)
    write_row(state, kv, row)
    return st


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, 4, HAND), -1, dtype=np.int64)
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
        if heuristic_only:
            play_deal(state, deck, dealer, kv, rules, tb, out[i], dealt[j], hands_out[j])
        else:
            play_deal_any(state, deck, dealer, pol, seat_kv, kv, rules, tb,
                          rng.stream(seed, d, 0, rng.POLICY), seed, d, 0, out[i], dealt[j],
                          hands_out[j], world, work)
        offender = draw_renonce(rng.stream(seed, d, 0, FAULT), dealer, kv[K_RENONCE])
        if offender >= 0:
            apply_renonce(out[i], offender, dealer)
    return out, dealt, hands_out


@hot
def match_pack(state: np.ndarray, seed: np.uint64, m: int, deal_no: int, reshuffle: bool,
               deck: np.ndarray) -> None:
    """The pack, top card first, for deal ``deal_no`` (1 = the first) of match ``m``, in
    ``deck``: shuffled from the deal's own stream for the first deal and, with
    ``reshuffle``, for every deal; otherwise the tricks of the deal just played (still in
    ``state``) gathered and cut at a point drawn from that same stream."""
    shuffle_st = rng.stream(seed, m, deal_no, rng.SHUFFLE)
    if deal_no == 1 or reshuffle:
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(shuffle_st, deck, N_CARDS)
    else:
        _, cut = draw_cut(shuffle_st)
        cut_gathered_tricks(state[S_HIST:S_HIST + N_CARDS], cut, deck)


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((4, HAND), dtype=np.int64)
    hands_out = np.empty((4, HAND), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    heuristic_only = (pol == HEURISTIC).all() and all_seats_use(seat_kv, kv)
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 4)
        dealer = first
        score0 = 0
        score1 = 0
        n_deals = 0
        n_void = 0
        run_team = -1  # team on a run of consecutive deal wins, and its length
        run = 0
        winner = -1
        by_two = False
        two_deal = -1  # first deal ending a run of two before the target: tracked always
        while n_deals < kv[K_MAX_DEALS]:
            match_pack(state, seed, m, n_deals + 1, kv[K_RESHUFFLE] != 0, deck)
            for j in range(N_DEAL_COLS):
                row[j] = 0
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            if heuristic_only:
                play_deal(state, deck, dealer, kv, rules, tb, row, dealt, hands_out)
            else:
                play_deal_any(state, deck, dealer, pol, seat_kv, kv, rules, tb, st, seed, m, n_deals + 1,
                              row, dealt, hands_out, world, work)
            offender = draw_renonce(rng.stream(seed, m, n_deals + 1, FAULT), dealer,
                                    kv[K_RENONCE])
            if offender >= 0:
                apply_renonce(row, offender, dealer)
            n_deals += 1
            score0 += row[C_SCORE]
            score1 += row[C_SCORE + 1]
            win_team = row[C_WIN_TEAM]
            if win_team < 0:
                n_void += 1
                run_team = -1
                run = 0
            elif win_team == run_team:
                run += 1
            else:
                run_team = win_team
                run = 1
            dealer = (dealer + 1) % 4  # the deal passes to the left
            reached = score0 >= target or score1 >= target
            if run >= 2 and two_deal < 0 and not reached:
                two_deal = n_deals
            # Only the deal's winner marks, so at most one team reaches the target.
            if reached:
                winner = 0 if score0 >= target else 1
                break
            if kv[K_TWO_IN_A_ROW] and run >= 2:
                winner = run_team
                by_two = True
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        for p in range(4):
            out[i, M_FINAL + p] = score0 if TEAM_OF[p] == 0 else score1
        out[i, M_N_VOID] = n_void
        out[i, M_BY_TWO] = by_two
        out[i, M_TWO_FIRST] = two_deal > 0
        out[i, M_TWO_DEAL] = two_deal
        out[i, M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: ManilleKnobs, policies: tuple[str, ...]):
    """Kernel arguments: policy codes, each seat's knob vector (simlab.engine.seatknobs), the
    run's, the play rules and the tables."""
    return (policy_codes(policies), seat_vectors(knobs, policies, _vector), _vector(knobs),
            rules_for(knobs), tables(knobs).kernel_args())


def run_deals(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    if knobs.variant != "classic":
        from simlab.games.manille.variant_kernels import run_variant_deals

        return run_variant_deals(knobs, policies, seed, start, count, record_hands)
    pol, seat_kv, kv, rules, tb = _setup(knobs, policies)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, rules, tb,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    if knobs.variant != "classic":
        from simlab.games.manille.variant_kernels import run_variant_matches

        return run_variant_matches(knobs, policies, seed, start, count)
    pol, seat_kv, kv, rules, tb = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, rules, tb))
