"""Belote Noisette batch kernels: deal after deal (or match after match: manches of deals
with the hazelnuts and the pot carried from deal to deal), each deal a loop of
``players`` moves and ``rules`` steps over the deal's state until it is over.
The runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, kernel_entries
from simlab.engine.jit import batch, hot
from simlab.games.belote_noisette.players import (
    heuristic_move,
    playout,
    random_move,
    search_move,
    search_work,
    trump_strength,
)
from simlab.games.belote_noisette.rules import (
    C_CF_PASS,
    C_CF_TAKE,
    C_CONTRACT,
    C_DEAL,
    C_DEALER,
    C_FIRST_STRENGTH,
    C_FIRST_TOOK,
    C_POT,
    C_POT_LEFT,
    C_TAKER,
    K_CF,
    K_MATCH_TARGET,
    K_MAX_DEALS,
    K_PUSH,
    K_START,
    M_CAPPED,
    M_CARRY,
    M_CARRY_START,
    M_COMPLETE,
    M_DEALS,
    M_DECIDED_CARRY,
    M_FIRST,
    M_MANCHES,
    M_MATCH,
    M_MAX_POT,
    M_MP,
    M_PARTIAL,
    M_TARGET,
    M_WIN_POS,
    M_WINNER,
    MANCHE_COMPLETE,
    MANCHE_ON,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_PLAYERS,
    N_STATE,
    NAME,
    P_DONE,
    P_PLAY,
    PASS,
    S_NUTS,
    S_PHASE,
    S_POT,
    S_TO_MOVE,
    S_UP1,
    _rules,
    _vector,
    apply_bid,
    apply_move,
    deal,
    hand_of,
    manche_end,
    match_winner,
    net_nuts,
    tables,
    write_row,
)
from simlab.mechanics.tricks import bit, cards_of


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, nuts: np.ndarray, carry: int,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64,
              seed: np.uint64, index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, world: np.ndarray, work: tuple) -> np.uint64:
    """One deal from a shuffled ``deck`` (``nuts``: the seats' hazelnuts before the ante,
    ``carry``: the pot carried over), one move per step from the seat's player (``st``:
    the deal's policy stream, for the random player; (seed, index, sub) key the search
    player's streams). Fills ``row`` (deal columns from C_SCORE on), ``dealt`` [3, 5]
    and ``hands_out`` [3, 8] (hands when play starts). Returns the policy stream."""
    deal(state, deck, dealer, nuts, carry, kv, dealt)
    recorded = False
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:
            recorded = True
            for p in range(N_PLAYERS):
                cards_of(hand_of(state, p), hands_out[p])
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]], rules, tb)
        elif code == RANDOM:
            st, m = random_move(st, state, rules, tb, work[0])
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
    write_row(state, kv, row)
    return st


@hot
def round1_counterfactual(sim: np.ndarray, deck: np.ndarray, dealer: int, nuts: np.ndarray,
                          kv: np.ndarray, rules: np.ndarray, tb: tuple, dealt: np.ndarray,
                          take: bool) -> int:
    """The dealer's left's net hazelnuts when he takes (``take``) or passes in round 1 and
    everything else is played by heuristic players (the take-or-pass question)."""
    deal(sim, deck, dealer, nuts, 0, kv, dealt)
    first = sim[S_TO_MOVE]
    apply_bid(sim, NAME + sim[S_UP1] // 8 if take else PASS, kv)
    playout(sim, kv, rules, tb)
    return net_nuts(sim, first)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent deals, each the first of a manche: every seat holds ``start_nuts``
    hazelnuts and the pot is empty; dealer = deal index mod 3."""
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major for polars
    n_rec = count if record else 1
    dealt = np.full((n_rec, N_PLAYERS, 5), -1, dtype=np.int64)
    hands_out = np.full((n_rec, N_PLAYERS, 8), -1, dtype=np.int64)
    scratch = np.full((N_PLAYERS, 5), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    nuts = np.full(N_PLAYERS, kv[K_START], dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    sim = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % N_PLAYERS
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        st = rng.stream(seed, d, 0, rng.POLICY)
        play_deal(state, deck, dealer, nuts, 0, pol, seat_kv, kv, rules, tb, st, seed, d, 0, out[i],
                  dealt[j], hands_out[j], world, work)
        first = (dealer + 1) % N_PLAYERS
        out[i, C_FIRST_TOOK] = out[i, C_TAKER] == first and out[i, C_CONTRACT] == 0
        deal(sim, deck, dealer, nuts, 0, kv, scratch)
        up = sim[S_UP1]
        out[i, C_FIRST_STRENGTH] = trump_strength(hand_of(sim, first) | bit(up), up // 8)
        if kv[K_CF]:
            # played out by heuristic players with the first bidder's policy values
            # (the rules' entries of every seat's row are the run's)
            out[i, C_CF_TAKE] = round1_counterfactual(sim, deck, dealer, nuts, seat_kv[first],
                                                      rules, tb, scratch, True)
            out[i, C_CF_PASS] = round1_counterfactual(sim, deck, dealer, nuts, seat_kv[first],
                                                      rules, tb, scratch, False)
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    """Whole matches: manches of deals (hazelnuts and pot carried from deal to deal, the
    dealer turning clockwise), match points per manche, to the (pushed) target."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((N_PLAYERS, 5), dtype=np.int64)
    hands_out = np.empty((N_PLAYERS, 8), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    nuts = np.zeros(N_PLAYERS, dtype=np.int64)
    mp = np.zeros(N_PLAYERS, dtype=np.int64)
    won = np.zeros(N_PLAYERS, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), N_PLAYERS)
        dealer = first
        target = kv[K_MATCH_TARGET]
        mp[:] = 0
        winner = -1
        n_deals = 0
        o = out[i]
        while winner < 0 and n_deals < kv[K_MAX_DEALS]:
            # §4: a manche starts with 10 hazelnuts each and an empty pot
            nuts[:] = kv[K_START]
            pot = 0
            manche_dealer = dealer
            kind = MANCHE_ON
            carried = False
            while kind == MANCHE_ON and n_deals < kv[K_MAX_DEALS]:
                for c in range(N_CARDS):
                    deck[c] = c
                n_deals += 1
                rng.shuffle(rng.stream(seed, m, n_deals, rng.SHUFFLE), deck, N_CARDS)
                st = rng.stream(seed, m, n_deals, rng.POLICY)
                carried = pot > 0
                o[M_CARRY_START] += carried
                play_deal(state, deck, dealer, nuts, pot, pol, seat_kv, kv, rules, tb, st, seed, m,
                          n_deals, row, dealt, hands_out, world, work)
                for p in range(N_PLAYERS):
                    nuts[p] = state[S_NUTS + p]
                pot = state[S_POT]
                o[M_CARRY] += row[C_POT_LEFT] > 0
                o[M_MAX_POT] = max(o[M_MAX_POT], row[C_POT])
                dealer = (dealer + 1) % N_PLAYERS
                kind = manche_end(nuts, kv, won)
            if kind == MANCHE_ON:  # capped mid-manche
                break
            o[M_MANCHES] += 1
            o[M_COMPLETE if kind == MANCHE_COMPLETE else M_PARTIAL] += 1
            o[M_DECIDED_CARRY] += carried
            best = 0
            for p in range(N_PLAYERS):
                mp[p] += won[p]
                best = max(best, won[p])
            # the manche's winner: the complete winner, or the partial one's sole leader
            n_best = 0
            top = -1
            for p in range(N_PLAYERS):
                if won[p] == best:
                    n_best += 1
                    top = p
            if n_best == 1:
                o[M_WIN_POS + (top - manche_dealer) % N_PLAYERS] += 1
            winner, target = match_winner(mp, target, kv[K_PUSH])
        o[M_MATCH] = m
        o[M_FIRST] = first
        o[M_WINNER] = winner
        o[M_DEALS] = n_deals
        for p in range(N_PLAYERS):
            o[M_MP + p] = mp[p]
        o[M_TARGET] = target
        o[M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
run_deals, run_matches = kernel_entries(
    deals_kernel, matches_kernel,
    lambda knobs: (_vector(knobs), _rules(knobs), tables(knobs).kernel_args()),
    seat_vector=_vector)

