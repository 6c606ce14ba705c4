"""Bésigue batch kernels: result columns, one deal driven move by move, deals and matches,
and the runner's entry points. ``play_deal`` asks each seat's policy for its move and
applies it with ``rules.apply_move``, the very function the search plays out."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import SUITS
from simlab.engine.game import BOOL, HEURISTIC, RANDOM, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.besigue.players import heuristic_move, random_move, search_move, search_work
from simlab.games.besigue.rules import (
    HMAX,
    K_BRISQUE,
    K_COPIES,
    K_HAND,
    K_MAX_DEALS,
    K_RUBICON,
    K_TARGET,
    LABEL_COPIES,
    MAX_MOVES,
    N_STATE,
    P_DONE,
    S_BES_MAX,
    S_BES_PTS,
    S_BLANCHES,
    S_BRISQUES,
    S_CAR_PTS,
    S_COUNTED,
    S_CUT,
    S_LAST_WINNER,
    S_LIFT,
    S_MAR_PTS,
    S_MARKS,
    S_MELD_PTS,
    S_N_MELDS,
    S_PHASE,
    S_PLY,
    S_REQUESTED,
    S_SEQ_PTS,
    S_SUSP_LAID,
    S_SUSP_PTS,
    S_TIE,
    S_TO_MOVE,
    S_TOTAL,
    S_TRICKS,
    S_TRUMP,
    S_TRUMP_BY,
    S_TY,
    S_WINNER,
    BesigueKnobs,
    _vector,
    apply_move,
    cut_lift,
    deal,
)

# --- result columns -----------------------------------------------------------------
PER_SEAT = ("total", "brisques", "meld", "besigue", "besigue_level", "marriage", "four",
            "sequence", "blanches", "cut_bonus", "n_melds", "tricks", "n_suspended",
            "suspended")
PER_SEAT_HELP = {
    "total": "deal total before brisques: melds + cut bonus + cartes blanches + last trick",
    "brisques": "10s and Aces won in tricks",
    "meld": "meld points",
    "besigue": "meld points from the Bésigue ladder",
    "besigue_level": "highest Bésigue level scored (1 simple .. 4 quadruple, 0 none)",
    "marriage": "meld points from marriages",
    "four": "meld points from fours",
    "sequence": "meld points from sequences",
    "blanches": "'cartes blanches' points",
    "cut_bonus": "cut bonus: dealer's exact pile or non-dealer's exact guess",
    "n_melds": "declarations scored",
    "tricks": "tricks won",
    "n_suspended": "melds laid suspended (crossed with the one scored, or Bésigue rungs "
                   "laid at once)",
    "suspended": "meld points scored from suspended melds, on later turns",
}
(C_DEAL, C_DEALER, C_SCORE, C_WINNER, C_COUNTED, C_REQUESTED, C_TIE, C_RUBICON_MISSED,
 C_LAST, C_TRUMP, C_TRUMP_BY, C_LIFT, C_PLIES) = (0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
C_SEAT = 14  # per-seat blocks: name_s0, name_s1 for each of PER_SEAT
N_DEAL_COLS = C_SEAT + 2 * len(PER_SEAT)
SEAT_SLOTS = (S_TOTAL, S_BRISQUES, S_MELD_PTS, S_BES_PTS, S_BES_MAX, S_MAR_PTS, S_CAR_PTS,
              S_SEQ_PTS, S_BLANCHES, S_CUT, S_N_MELDS, S_TRICKS, S_SUSP_LAID, S_SUSP_PTS)


def deal_columns(_: BesigueKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer"),
            Column("score_s0", help="points marked this deal (the winner's; the loser 0)"),
            Column("score_s1"), Column("winner"),
            Column("brisques_counted", BOOL, help="brisques added to the totals (asked "
                                                  "for, or a tie)"),
            Column("requested_by", help="seat that asked for the brisques, -1 none"),
            Column("tie", BOOL, help="equal totals before the brisques"),
            Column("rubicon_missed", BOOL, help="the loser's final total is below the "
                                                "Rubicon"),
            Column("last_trick", help="seat that won the last trick"),
            Column("trump", SUITS), Column("trump_by", help="seat whose declaration fixed "
                                                            "trump, -1 none"),
            Column("cut_lift", help="cards in the dealer's lifted pile"),
            Column("plies", help="moves played (cards, declarations, requests)")]
    for name in PER_SEAT:
        for p in range(2):
            cols.append(Column(f"{name}_s{p}", help=PER_SEAT_HELP[name] if p == 0 else ""))
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST, M_WINNER, M_N_DEALS, M_FINAL, M_CAPPED, M_BIGGEST, M_ONE_DEAL,
 M_BEHIND, M_QUAD, M_TRIPLE) = (0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 12)
N_MATCH_COLS = 14


def match_columns(_: BesigueKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat that reached the target, -1 if capped"),
            Column("n_deals"), Column("final_score_s0"), Column("final_score_s1"),
            Column("capped", BOOL), Column("biggest_deal", help="largest deal score"),
            Column("one_deal_target", BOOL, help="a single deal scored the target or more"),
            Column("winner_behind_before_last", BOOL,
                   help="the winner was behind (or level) before the last deal"),
            Column("quad_s0", help="deals in which seat 0 laid a quadruple Bésigue"),
            Column("quad_s1"),
            Column("triple_s0", help="deals in which seat 0 reached a triple Bésigue (or "
                                     "more)"),
            Column("triple_s1")]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- one deal ---------------------------------------------------------------------------
@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int, row: np.ndarray,
              dealt: np.ndarray, world: np.ndarray, moves: np.ndarray, work: tuple) -> None:
    """Shuffle, cut, deal and play one deal; fills ``row`` from C_SCORE on and ``dealt``
    [2, HMAX] (label ids, -1 padding). Streams: (seed, index, sub) with the SHUFFLE,
    SETUP (the cut) and POLICY (the random player) purposes; the search player's own."""
    n_cards = 32 * kv[K_COPIES]
    for c in range(n_cards):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, n_cards)
    for c in range(n_cards):
        deck[c] = deck[c] // kv[K_COPIES]  # physical card -> card type
    _, lift = cut_lift(rng.stream(seed, index, sub, rng.SETUP), kv)
    deal(state, deck, dealer, lift, kv)
    for p in range(2):
        for i in range(HMAX):
            dealt[p, i] = -1
        for i in range(kv[K_HAND]):
            t = state[S_TY + p * HMAX + i]
            copy = 0
            for j in range(i):
                copy += state[S_TY + p * HMAX + j] == t
            dealt[p, i] = t * LABEL_COPIES + copy
    st = rng.stream(seed, index, sub, rng.POLICY)
    while state[S_PHASE] != P_DONE:
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]], moves, work[6])
        elif code == RANDOM:
            st, m = random_move(st, state, kv, moves)
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], seed, index, sub, world, work)
        apply_move(state, m, kv)
    write_row(state, kv, row)


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    w = state[S_WINNER]
    row[C_SCORE] = state[S_MARKS]
    row[C_SCORE + 1] = state[S_MARKS + 1]
    row[C_WINNER] = w
    row[C_COUNTED] = state[S_COUNTED]
    row[C_REQUESTED] = state[S_REQUESTED]
    row[C_TIE] = state[S_TIE]
    loser = 1 - w
    final = state[S_TOTAL + loser] + (state[S_BRISQUES + loser] * kv[K_BRISQUE]
                                      if state[S_COUNTED] else 0)
    row[C_RUBICON_MISSED] = final < kv[K_RUBICON]
    row[C_LAST] = state[S_LAST_WINNER]
    row[C_TRUMP] = state[S_TRUMP]
    row[C_TRUMP_BY] = state[S_TRUMP_BY]
    row[C_LIFT] = state[S_LIFT]
    row[C_PLIES] = state[S_PLY]
    for k in range(len(SEAT_SLOTS)):
        for p in range(2):
            row[C_SEAT + 2 * k + p] = state[SEAT_SLOTS[k] + p]


@batch
def new_buffers() -> tuple:
    return (np.empty(192, dtype=np.int64), np.zeros(N_STATE, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64))


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 record: bool) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # a contiguous column each
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, HMAX), -1, dtype=np.int64)
    deck, state, world, moves = new_buffers()
    work = search_work()
    for i in range(count):
        d = start + i
        out[i, C_DEAL] = d
        out[i, C_DEALER] = d % 2
        play_deal(state, deck, d % 2, pol, seat_kv, kv, seed, d, 0, out[i], dealt[i if record else 0],
                  world, moves, work)
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray
                   ) -> np.ndarray:
    """Whole matches: deals until a player's total reaches the target (seed 9), dealers
    alternating (catalogue #3), the first dealer drawn at random."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((2, HMAX), dtype=np.int64)
    deck, state, world, moves = new_buffers()
    work = search_work()
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 2)
        dealer = first
        score0 = 0
        score1 = 0
        n_deals = 0
        winner = -1
        biggest = 0
        behind = False
        for p in range(2):
            out[i, M_QUAD + p] = 0
            out[i, M_TRIPLE + p] = 0
        while n_deals < kv[K_MAX_DEALS]:
            before0 = score0
            before1 = score1
            play_deal(state, deck, dealer, pol, seat_kv, kv, seed, m, n_deals + 1, row, dealt, world,
                      moves, work)
            n_deals += 1
            score0 += row[C_SCORE]
            score1 += row[C_SCORE + 1]
            biggest = max(biggest, row[C_SCORE] + row[C_SCORE + 1])
            for p in range(2):
                level = row[C_SEAT + 2 * 4 + p]  # besigue_level
                out[i, M_QUAD + p] += level >= 4
                out[i, M_TRIPLE + p] += level >= 3
            dealer = 1 - dealer
            if score0 >= kv[K_TARGET] or score1 >= kv[K_TARGET]:
                winner = 0 if score0 >= kv[K_TARGET] else 1  # one scorer per deal
                behind = (before0 <= before1) if winner == 0 else (before1 <= before0)
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        out[i, M_FINAL] = score0
        out[i, M_FINAL + 1] = score1
        out[i, M_CAPPED] = winner < 0
        out[i, M_BIGGEST] = biggest
        out[i, M_ONE_DEAL] = biggest >= kv[K_TARGET]
        out[i, M_BEHIND] = behind
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: BesigueKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                               seat_vectors(knobs, policies, _vector),
                               _vector(knobs), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt)  # play starts right after the deal


def run_matches(knobs: BesigueKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs)))
