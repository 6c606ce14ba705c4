"""Rami batch kernels: result columns, one deal driven move by move, deals and matches,
and the runner's entry points. The rules are in ``rules.py``, the players in
``players.py``; the driver ``play_deal`` asks each seat's policy for its move and applies
it with ``rules.apply_move``, the very functions the search plays out."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, HEURISTIC, RANDOM, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.rami.players import heuristic_move, new_search_work, random_move, search_move
from simlab.games.rami.rules import (
    K_HAND,
    K_JOKERS,
    K_JPEN,
    K_MAX_DEALS,
    K_PLAYERS,
    K_TARGET,
    MAX_CARDS,
    PH_DISCARD,
    PH_OVER,
    S_CAPPED,
    S_DISC_N,
    S_DISCARD_DRAWS,
    S_DRAWN,
    S_N_TABLE,
    S_OPEN_TURN,
    S_OPEN_VALUE,
    S_PHASE,
    S_RAMI,
    S_SEAT,
    S_TAKEN,
    S_TALON_END,
    S_TALON_POS,
    S_TURN,
    S_TURNOVERS,
    S_WENT_OUT,
    RamiKnobs,
    apply_move,
    deal,
    deal_score,
    hand_value,
    knob_vector,
    new_scratch,
    new_state,
)
from simlab.mechanics.melds import MAX_MELDS
from simlab.mechanics.tricks import EMPTY, bit, cards_of

# --- result columns -----------------------------------------------------------------
# score_s* from column 3; then fixed columns, then per-seat blocks (see _cols).
C_DEAL, C_DEALER, C_ANNULLED, C_SCORE = 0, 1, 2, 3
(X_TURNS, X_OUT, X_RAMI, X_CAPPED, X_TURNOVERS, X_DISCARD_DRAWS, N_X) = range(7)


@hot
def _cols(P: int) -> tuple[int, int, int, int, int]:
    """(first fixed column, open_turn_s0, open_value_s0, penalty_s0, number of columns)."""
    b = C_SCORE + P
    return b, b + N_X, b + N_X + P, b + N_X + 2 * P, b + N_X + 3 * P


def deal_columns(k: RamiKnobs | None = None) -> list[Column]:
    P = (k or RamiKnobs()).players
    cols = [Column("deal"), Column("dealer"), Column("annulled", BOOL)]
    cols += [Column(f"score_s{i}", help="points marked this deal: the penalty of the cards "
                    "left (doubled by a Rami), the winner's bonus for who went out; lower is "
                    "better") for i in range(P)]
    cols += [Column("turns", help="turns played in the deal (all players)"),
             Column("went_out", help="seat that went out; -1 if the deal was capped"),
             Column("rami", BOOL, help="the winner went out in the turn of his first lay-down"),
             Column("capped", BOOL, help="stopped by the turn cap (or nobody could draw)"),
             Column("talon_turnovers", help="times the discard pile became the talon"),
             Column("discard_draws", help="draws from the discard pile")]
    cols += [Column(f"open_turn_s{i}", help="deal turn (0-based, all players) of the seat's "
                    "opening; -1 never") for i in range(P)]
    cols += [Column(f"open_value_s{i}", help="value of the seat's opening melds (0 never)")
             for i in range(P)]
    cols += [Column(f"penalty_s{i}", help="value of the cards left in hand at the end")
             for i in range(P)]
    assert len(cols) == _cols(P)[4]
    return cols


def match_columns(k: RamiKnobs | None = None) -> list[Column]:
    P = (k or RamiKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the lowest total; -1 if capped"), Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(P)]
    cols += [Column("n_rami", help="deals ended by a Rami"),
             Column("n_capped_deals", help="deals stopped by the turn cap"),
             Column("leader_3_before", help="seat with the lowest total 3 deals before the "
                                            "end (-1: tie or fewer than 3 deals)"),
             Column("capped", BOOL)]
    assert len(cols) == 8 + P
    return cols


# --- one deal -------------------------------------------------------------------------------
@batch
def new_work(log_len: int) -> tuple:
    """Everything a deal needs: (state, meld-search scratch, search work, turn log
    ``tlog`` [L, 4] of (seat, card drawn, 1 if from the discard pile, card discarded or
    -1), ``tmask`` [L, 2] of (cards on the table, hand) after the turn)."""
    return (new_state(), new_scratch(), new_search_work(),
            np.full((log_len, 4), -2, dtype=np.int64), np.zeros((log_len, 2), dtype=np.uint64))


@hot
def _log(S: tuple, tlog: np.ndarray, tmask: np.ndarray, t: int, p: int, d: int) -> None:
    if t >= tlog.shape[0]:
        return
    st, hands, tcards = S[0], S[1], S[6]
    tlog[t, 0] = p
    tlog[t, 1] = st[S_DRAWN]
    tlog[t, 2] = st[S_TAKEN]
    tlog[t, 3] = d
    m = EMPTY
    for i in range(st[S_N_TABLE]):
        m |= tcards[i]
    tmask[t, 0] = m
    tmask[t, 1] = hands[p]


@hot
def play_deal(deck: np.ndarray, n_cards: int, dealer: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
              wk: tuple, state: np.uint64, seed: np.uint64, index: int, sub: int, row: np.ndarray,
              dealt: np.ndarray, hands_out: np.ndarray, rec_table: np.ndarray,
              rec_rest: np.ndarray) -> np.uint64:
    """One deal from a shuffled ``deck[:n_cards]``, move by move: each seat's policy picks
    its move (``state``: the policy stream of the random players; ``seed, index, sub``:
    the search players' streams) and ``rules.apply_move`` plays it. Fills ``row`` from
    C_SCORE on, the dealt hands ``dealt`` [P, k], the final hands ``hands_out`` [P, k],
    the table's melds ``rec_table`` [MAX_MELDS] and (talon, discard pile) masks
    ``rec_rest`` [2]. Returns the policy stream state."""
    S, X, Y, tlog, tmask = wk
    st, hands, known, talon, disc, tm, tcards, plan = S
    P = kv[K_PLAYERS]
    fixed, c_open_turn, c_open_val, c_pen, _ = _cols(P)
    deal(deck, n_cards, dealer, kv, S, dealt)
    while st[S_PHASE] != PH_OVER:
        p = st[S_SEAT]
        if pol[p] == HEURISTIC:
            move = heuristic_move(S, X, seat_kv[p], Y[-1])
        elif pol[p] == RANDOM:
            state, move = random_move(state, S, X, kv)
        else:
            move = search_move(S, X, Y, seat_kv[p], seed, index, sub)
        t = st[S_TURN]
        discarding = st[S_PHASE] == PH_DISCARD
        apply_move(S, X, kv, move)
        if discarding or st[S_PHASE] == PH_OVER:
            _log(S, tlog, tmask, t, p, move if discarding else -1)

    went_out = st[S_WENT_OUT]
    t = st[S_TURN]
    row[fixed + X_TURNS] = t + 1 if went_out >= 0 else t
    row[fixed + X_OUT] = went_out
    row[fixed + X_RAMI] = st[S_RAMI]
    row[fixed + X_CAPPED] = st[S_CAPPED]
    row[fixed + X_TURNOVERS] = st[S_TURNOVERS]
    row[fixed + X_DISCARD_DRAWS] = st[S_DISCARD_DRAWS]
    for p in range(P):
        row[c_open_turn + p] = st[S_OPEN_TURN + p]
        row[c_open_val + p] = st[S_OPEN_VALUE + p]
        row[c_pen + p] = hand_value(hands[p], kv[K_JPEN])
        row[C_SCORE + p] = deal_score(S, kv, p)
        cards_of(hands[p], hands_out[p])
    n_table = st[S_N_TABLE]
    for i in range(MAX_MELDS):
        rec_table[i] = tcards[i] if i < n_table else EMPTY
    m = EMPTY
    for i in range(st[S_TALON_POS], st[S_TALON_END]):
        m |= bit(talon[i])
    rec_rest[0] = m
    m = EMPTY
    for i in range(st[S_DISC_N]):
        m |= bit(disc[i])
    rec_rest[1] = m
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 record: bool, log_len: int) -> tuple:
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    n_cards = 52 + kv[K_JOKERS]
    n_cols = _cols(P)[4]
    out = np.zeros((n_cols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, P, hs), -1, dtype=np.int64)
    hands_out = np.full((n_rec, P, hs), -1, dtype=np.int64)
    rec_table = np.zeros((n_rec, MAX_MELDS), dtype=np.uint64)
    rec_rest = np.zeros((n_rec, 2), dtype=np.uint64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    wk = new_work(log_len)  # a turn log only for count == 1 (trace_deal)
    for i in range(count):
        d = start + i
        for c in range(n_cards):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, n_cards)
        dealer = d % P
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        if not record:
            hands_out[0, :, :] = -1
        play_deal(deck, n_cards, dealer, pol, seat_kv, kv, wk, rng.stream(seed, d, 0, rng.POLICY), seed, d,
                  0, out[i], dealt[j], hands_out[j], rec_table[j], rec_rest[j])
    return out, dealt, hands_out, rec_table, rec_rest, wk[3], wk[4]


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    n_cards = 52 + kv[K_JOKERS]
    n_cols = _cols(P)[4]
    fixed = _cols(P)[0]
    out = np.zeros((count, 8 + P), dtype=np.int64)
    row = np.zeros((n_cols, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((P, hs), dtype=np.int64)
    hands_out = np.empty((P, hs), dtype=np.int64)
    rec_table = np.zeros(MAX_MELDS, dtype=np.uint64)
    rec_rest = np.zeros(2, dtype=np.uint64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    totals = np.zeros(P, dtype=np.int64)
    hist = np.zeros((4, P), dtype=np.int64)  # totals after deal n at row n % 4
    wk = new_work(0)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), P)
        dealer = first
        totals[:] = 0
        hist[:, :] = 0
        n_deals = 0
        n_rami = 0
        n_capped = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(n_cards):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, n_cards)
            row[:] = 0
            play_deal(deck, n_cards, dealer, pol, seat_kv, kv, wk,
                      rng.stream(seed, m, n_deals + 1, rng.POLICY), seed, m, n_deals + 1, row,
                      dealt, hands_out, rec_table, rec_rest)
            n_deals += 1
            n_rami += row[fixed + X_RAMI]
            n_capped += row[fixed + X_CAPPED]
            for p in range(P):
                totals[p] += row[C_SCORE + p]
                hist[n_deals % 4, p] = totals[p]
            hi = totals.max()
            dealer = (dealer + 1) % P
            if hi >= kv[K_TARGET]:
                winner = _lowest_seat(totals, P)
                if winner >= 0:  # a tie for the lowest total plays on
                    break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(P):
            out[i, 4 + p] = totals[p]
        out[i, 4 + P] = n_rami
        out[i, 5 + P] = n_capped
        out[i, 6 + P] = _lowest_seat(hist[(n_deals - 3) % 4], P) if n_deals >= 3 else -1
        out[i, 7 + P] = winner < 0
    return out


@hot
def _lowest_seat(totals: np.ndarray, P: int) -> int:
    """The seat with the strictly lowest total, -1 on a tie."""
    best = 0
    tie = False
    for p in range(1, P):
        if totals[p] < totals[best]:
            best = p
            tie = False
        elif totals[p] == totals[best]:
            tie = True
    return -1 if tie else best


# --- entry points for the runner -----------------------------------------------------
def run_deals_detail(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
                     count: int, record: bool = True) -> tuple:
    """(rows, dealt, final hands, table melds [count, MAX_MELDS] uint64 masks, (talon,
    discard pile) masks [count, 2]): everything needed to audit a deal's end."""
    return deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                        seat_vectors(knobs, policies, knob_vector), knob_vector(knobs),
                        record, 0)[:5]


def trace_deal(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, d: int) -> tuple:
    """Deal ``d`` of a deal-level run with its turn log: (row, log [turns, 4] of (seat,
    card drawn, 1 if from the discard pile, card discarded or -1), masks [turns, 2] uint64
    of (cards on the table, the seat's hand) after each turn). For tests and debugging."""
    rows, _, _, _, _, log, masks = deals_kernel(np.uint64(seed), d, 1, policy_codes(policies),
                                                seat_vectors(knobs, policies, knob_vector),
                                                knob_vector(knobs), False, knobs.turn_cap)
    turns = int(rows[0, _cols(knobs.players)[0] + X_TURNS])
    return rows[0], log[:turns], masks[:turns]


def run_deals(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands, _, _ = run_deals_detail(knobs, policies, seed, start, count, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, knob_vector),
                                       knob_vector(knobs)))


# --- positions by hand (tests, tracing) -----------------------------------------------------
def start_deal(knobs: RamiKnobs, seed: int, d: int) -> tuple:
    """Deal ``d`` of a deal-level run with ``seed``, dealt and ready for its first move:
    (state, meld-search scratch, search work, knob vector)."""
    kv = knob_vector(knobs)
    n_cards = 52 + knobs.jokers
    deck = np.arange(MAX_CARDS, dtype=np.int64)
    rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, n_cards)
    S, X, Y, _, _ = new_work(0)
    dealt = np.full((knobs.players, knobs.cards_each), -1, dtype=np.int64)
    deal(deck, n_cards, d % knobs.players, kv, S, dealt)
    return S, X, Y, kv


def play_heuristic_moves(S: tuple, X: tuple, kv: np.ndarray, n: int) -> None:
    """Apply ``n`` heuristic moves (fewer if the deal ends)."""
    T = new_state()
    for _ in range(n):
        if S[0][S_PHASE] == PH_OVER:
            return
        apply_move(S, X, kv, heuristic_move(S, X, kv, T))
