"""Démons batch kernels: deal after deal (or match after match), each deal the shuffle
(again while all 5 Démons would be turned), the six-swaps, then the players' moves
applied with ``rules.apply_move`` until it is over. ``deal_stats_kernel`` only shuffles
and deals, for the exact-combinatorics tests. The runner's entry points ``run_deals`` and
``run_matches`` are at the end.

May import: simlab.engine.*, simlab.mechanics.*, simlab.games.demons.*.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.demons.players import (
    heuristic_move,
    random_move,
    search_move,
    search_work,
    six_swap_choice,
)
from simlab.games.demons.rules import (
    C_BET_ANY,
    C_BETS,
    C_DEAL,
    C_DEALER,
    C_DIABLE,
    C_FAULT,
    C_REDEALS,
    C_SCORE,
    COLOUR_SUITS,
    DEMON_MASK,
    HAND,
    K_MAX_DEALS,
    K_MUST_BET,
    K_SCORE_BEFORE,
    K_TARGET,
    M_CAPPED,
    M_COLOUR,
    M_DIABLE_DEALS,
    M_FINAL,
    M_FIRST,
    M_MATCH,
    M_N_DEALS,
    M_NOBET_RESETS,
    M_RESETS,
    M_WINNER,
    M_WINNER_DIABLE_DEALS,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    PLAYERS,
    S_HAND,
    S_LEADER,
    S_PHASE,
    S_SIX_CHANCES,
    S_TO_MOVE,
    DemonsKnobs,
    _vector,
    all_demons_turned,
    apply_move,
    deal,
    six_swap,
    six_swaps_allowed,
    slot_seat,
    write_row,
)
from simlab.mechanics.tricks import EMPTY, ONE, lowest

MAX_REDEALS = 64  # P(all 5 Démons turned) = 2.5e-5: never reached


@hot
def shuffled(seed: np.uint64, index: int, sub: int, deck: np.ndarray) -> int:
    """A uniform shuffle from the deal's own stream, shuffled again (a further stream)
    while it would turn all 5 Démons (§5 "la donne est annulée et on procède à une
    nouvelle donne"). Returns the number of redeals."""
    for r in range(MAX_REDEALS):
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, index, sub * MAX_REDEALS + r, rng.SHUFFLE), deck,
                    N_CARDS)
        if not all_demons_turned(deck):
            return r
    return MAX_REDEALS


@hot
def draw_colours(seed: np.uint64, index: int, colours: np.ndarray) -> None:
    """§4 the three 8s (♠, ♦, ♣) shuffled face down, each player draws one: once per
    match (each deal of a deals run draws its own)."""
    for p in range(PLAYERS):
        colours[p] = COLOUR_SUITS[p]
    rng.shuffle(rng.stream(seed, index, 0, rng.SETUP), colours, PLAYERS)


@hot
def do_six_swaps(state: np.ndarray, pol: np.ndarray, st: np.uint64) -> np.uint64:
    """§6 in turn from the leader, each player with two 6s or more may swap (1 / 2 / 3
    cards for 2 / 3 / 4 sixes), as his policy chooses."""
    for k in range(PLAYERS):
        p = (state[S_LEADER] + k) % PLAYERS
        n = six_swaps_allowed(state, p)
        if n == 0:
            continue
        state[S_SIX_CHANCES] += 1
        for _ in range(n):
            st, g, t = six_swap_choice(state, p, pol[p], st)
            if g < 0:
                break
            six_swap(state, p, g, t)
    return st


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, colours: np.ndarray,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, st: np.uint64,
              seed: np.uint64, index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
              hands: np.ndarray, work: tuple) -> np.uint64:
    """One deal from ``deck`` with the players ``pol``: fills ``row`` (from C_SCORE on),
    ``dealt`` and ``hands`` [3, 9] (the cards dealt, the hands after the six-swaps)."""
    deal(state, deck, dealer, colours, kv)
    for p in range(PLAYERS):
        list_cards(np.uint64(state[S_HAND + p]), dealt[p])
    st = do_six_swaps(state, pol, st)
    for p in range(PLAYERS):
        list_cards(np.uint64(state[S_HAND + p]), hands[p])
    moves = work[9]
    while state[S_PHASE] != P_DONE:
        p = state[S_TO_MOVE]
        code = pol[p]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[p])
        elif code == RANDOM:
            st, m = random_move(state, kv, st, moves)
        else:
            m = search_move(state, seat_kv[p], seed, index, sub, work)
        apply_move(state, m, kv)
    write_row(state, kv, row)
    return st


@hot
def list_cards(m: np.uint64, out: np.ndarray) -> None:
    k = 0
    while m != EMPTY and k < out.shape[0]:
        out[k] = lowest(m)
        m &= m - ONE
        k += 1
    while k < out.shape[0]:
        out[k] = -1
        k += 1


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, PLAYERS, HAND), -1, dtype=np.int64)
    hands = np.full((n_rec, PLAYERS, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    colours = np.empty(PLAYERS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        redeals = shuffled(seed, d, 0, deck)
        draw_colours(seed, d, colours)
        dealer = d % PLAYERS
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(state, deck, dealer, colours, pol, seat_kv, kv,
                  rng.stream(seed, d, 0, rng.POLICY), seed, d, 0, out[i], dealt[j],
                  hands[j], work)
        out[i, C_REDEALS] = redeals
    return out, dealt, hands


@batch
def deal_stats_kernel(seed: np.uint64, start: int, count: int) -> np.ndarray:
    """Per deal index: [the first shuffle turns all 5 Démons, seat 1 (the leader when
    seat 0 deals) is dealt a Démon by it]: the exact-combinatorics checks."""
    out = np.zeros((count, 2), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    for i in range(count):
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, start + i, 0, rng.SHUFFLE), deck, N_CARDS)
        out[i, 0] = all_demons_turned(deck)
        has = 0
        for k in range(HAND * PLAYERS + 6):
            if slot_seat(k, 0) == 1 and DEMON_MASK >> np.uint64(deck[k]) & ONE:
                has = 1
        out[i, 1] = has
    return out


@hot
def match_end(scores: np.ndarray, before: np.ndarray, bet_any: np.ndarray, bets: np.ndarray,
              target: int, must_bet: int) -> tuple[int, int, int]:
    """§12 at the end of a deal (catalogue ambiguity 15), ``scores`` already include it:
    "Lorsque les points cumulés d'un joueur atteignent 333 points au cours d'une donne où
    il a parié ... il est déclaré vainqueur"; "Un joueur qui atteint 333 points sans avoir
    parié voit son score remis au niveau qu'il occupait au début de la donne"; several
    qualifying: "celui qui a remporté le gain des plis est le vainqueur ; si aucun d'entre
    eux ne l'a fait, alors leurs scores restent au niveau ... du début de la donne".
    Updates ``scores``; returns (winner or -1, resets, resets for not having bet)."""
    n_q = 0
    q_win = -1
    resets = 0
    nobet = 0
    for p in range(PLAYERS):
        if scores[p] >= target:
            if bet_any[p] == 1 or must_bet == 0:
                n_q += 1
                if bets[p] > 0:
                    q_win = p
            else:
                scores[p] = before[p]
                resets += 1
                nobet += 1
    if n_q == 1:
        for p in range(PLAYERS):
            if scores[p] >= target:
                return p, resets, nobet
    if n_q > 1:
        if q_win >= 0:
            return q_win, resets, nobet
        for p in range(PLAYERS):
            if scores[p] >= target:
                scores[p] = before[p]
                resets += 1
    return -1, resets, nobet


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    colours = np.empty(PLAYERS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((PLAYERS, HAND), dtype=np.int64)
    hands = np.empty((PLAYERS, HAND), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    skv = seat_kv.copy()
    mkv = kv.copy()
    scores = np.zeros(PLAYERS, dtype=np.int64)
    before = np.zeros(PLAYERS, dtype=np.int64)
    diable_deals = np.zeros(PLAYERS, dtype=np.int64)
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        draw_colours(seed, m, colours)
        _, first = rng.below(rng.stream(seed, m, 1, rng.SETUP), PLAYERS)
        dealer = first
        for p in range(PLAYERS):
            scores[p] = 0
            diable_deals[p] = 0
        n_deals = 0
        resets = 0
        nobet = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            n_deals += 1
            for p in range(PLAYERS):
                before[p] = scores[p]
                for q in range(PLAYERS):
                    skv[q, K_SCORE_BEFORE + p] = scores[p]
                mkv[K_SCORE_BEFORE + p] = scores[p]
            shuffled(seed, m, n_deals, deck)
            for j in range(N_DEAL_COLS):
                row[j] = 0
            play_deal(state, deck, dealer, colours, pol, skv, mkv,
                      rng.stream(seed, m, n_deals, rng.POLICY), seed, m, n_deals, row,
                      dealt, hands, work)
            diable_deals[row[C_DIABLE]] += 1
            for p in range(PLAYERS):
                scores[p] += row[C_SCORE + p]
            dealer = (dealer + 1) % PLAYERS
            if row[C_FAULT] >= 0:
                continue
            w, r, nb = match_end(scores, before, row[C_BET_ANY:C_BET_ANY + PLAYERS],
                                 row[C_BETS:C_BETS + PLAYERS], target, kv[K_MUST_BET])
            resets += r
            nobet += nb
            if w >= 0:
                winner = w
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        for p in range(PLAYERS):
            out[i, M_FINAL + p] = scores[p]
            out[i, M_COLOUR + p] = colours[p]
            out[i, M_DIABLE_DEALS + p] = diable_deals[p]
        out[i, M_RESETS] = resets
        out[i, M_NOBET_RESETS] = nobet
        out[i, M_WINNER_DIABLE_DEALS] = diable_deals[winner] if winner >= 0 else -1
        out[i, M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: DemonsKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector), _vector(knobs),
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: DemonsKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs)))
