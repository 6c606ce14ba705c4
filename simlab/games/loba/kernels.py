"""Loba batch kernels: result columns, one round played turn by turn, rounds and
six-round matches, and the runner's entry points.

May import: simlab.engine.*, simlab.mechanics.*, simlab.games.loba.rules,
simlab.games.loba.players.

Each deal (round) draws from its own streams keyed by (seed, deal index): the shuffle
(sub 0), the reshuffles of an exhausted stock (sub 1, purpose SHUFFLE), the random
players (POLICY) and the search player's worlds (SEARCH, sub = the round's number in a
match). A match's round k uses index = match, sub = k + 1.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.loba.players import heuristic_turn, new_search_work, random_turn, search_turn
from simlab.games.loba.rules import (
    K_HAND,
    K_JOKERS,
    K_MENE,
    K_NREQ,
    K_PLAYERS,
    MAX_CARDS,
    N_KINDS,
    PH_OVER,
    S_DDRAWS,
    S_ENDED,
    S_FIRST,
    S_FIRST_DIST,
    S_HELD,
    S_JLAY,
    S_LAYOFFS,
    S_NEWMELDS,
    S_NRUNS,
    S_NSETS,
    S_OTHERS_LAYOFFS,
    S_OUT,
    S_PHASE,
    S_RESHUF,
    S_SEAT,
    S_SHIFTS,
    S_SIX,
    S_TURN,
    LobaKnobs,
    deal,
    distance,
    knob_vector,
    new_scratch,
    new_state,
    parse_requirements,
    round_penalty,
)
from simlab.mechanics.melds import JOKER_KIND

ENDINGS = ("out", "stock", "cap")
# --- result columns ------------------------------------------------------------------------
C_DEAL, C_DEALER, C_ROUND, C_SCORE = 0, 1, 2, 3
(X_TURNS, X_OUT, X_ENDED, X_RESHUF, X_DDRAWS, X_LAYOFFS, X_OTHERS, X_SHIFTS, X_JLAY,
 X_NEWMELDS, X_SIX, X_HELD, N_X) = range(13)


@hot
def _cols(P: int) -> tuple[int, int, int, int]:
    """(first fixed column, first_meld_turn_s0, dealt_distance_s0, number of columns)."""
    b = C_SCORE + P
    return b, b + N_X, b + N_X + P, b + N_X + 2 * P


def deal_columns(k: LobaKnobs | None = None) -> list[Column]:
    P = (k or LobaKnobs()).players
    cols = [Column("deal"), Column("dealer"),
            Column("round", help="the round (mène) played: 1..6, its first meld from the "
                   "requirements")]
    cols += [Column(f"score_s{i}", help="penalty marked this round: the cards left in hand "
                    "(0 for who went out); lower is better") for i in range(P)]
    cols += [Column("turns", help="turns played in the round (all players)"),
             Column("went_out", help="seat that went out; -1 if the round ended otherwise"),
             Column("ended", ENDINGS, help="how the round ended: a player went out, the "
                    "stock could not be refilled, or the turn cap"),
             Column("reshuffles", help="times the discard pile was shuffled into a new stock"),
             Column("discard_draws", help="draws from the discard pile (all players)"),
             Column("layoffs", help="cards laid off on table melds"),
             Column("others_layoffs", help="lay-offs on a meld another player laid"),
             Column("joker_shifts", help="naturals that took a Joker's end place (the Joker "
                    "moved one step out)"),
             Column("joker_layoffs", help="Jokers laid off"),
             Column("new_melds", help="sets and runs laid after a first meld"),
             Column("six_of_a_kind", help="first melds holding two sets of one rank (a six "
                    "of a kind counted as two sets)"),
             Column("first_meld_held", help="turns a search player held a first meld it "
                    "could lay")]
    cols += [Column(f"first_meld_turn_s{i}", help="round turn (0-based, all players) of the "
                    "seat's first meld; -1 never") for i in range(P)]
    cols += [Column(f"dealt_distance_s{i}", help="cards the dealt hand lacked for the "
                    "round's first meld") for i in range(P)]
    assert len(cols) == _cols(P)[3]
    return cols


def match_columns(k: LobaKnobs | None = None) -> list[Column]:
    k = k or LobaKnobs()
    P = k.players
    R = len(parse_requirements(k.requirements))
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the lowest total; -1 on a shared win"),
            Column("n_winners", help="seats sharing the lowest total")]
    cols += [Column(f"final_score_s{i}", help="total penalty after all rounds; lower is "
                    "better") for i in range(P)]
    cols += [Column(f"turns_r{j + 1}", help=f"turns of round {j + 1}") for j in range(R)]
    cols += [Column("deciding_rounds", help="rounds without whose penalties another seat "
                    "(or another set of seats) would have the lowest total"),
             Column("stock_ends", help="rounds ended by an exhausted stock"),
             Column("capped_rounds", help="rounds stopped by the turn cap"),
             Column("reshuffles", help="discard piles shuffled into a new stock")]
    assert len(cols) == _mcols(P, R)
    return cols


@hot
def _mcols(P: int, R: int) -> int:
    return 4 + P + R + 4


# --- one round ------------------------------------------------------------------------------
@batch
def new_work() -> tuple:
    """(state, requirement scratch, search work, discard scores)."""
    return new_state(), new_scratch(), new_search_work(), np.zeros(N_KINDS, dtype=np.float64)


@hot
def play_round(deck: np.ndarray, n_cards: int, dealer: int, rnd: int, pol: np.ndarray,
               seat_kv: np.ndarray, kv: np.ndarray, wk: tuple, state: np.uint64,
               seed: np.uint64, index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
               hands_out: np.ndarray) -> np.uint64:
    """One round from the shuffled physical ``deck[:n_cards]``; fills ``row`` from
    C_SCORE on, ``dealt`` [P, hand] and the final hands ``hands_out`` (physical ids)."""
    S, X, Y, score = wk
    st, cnt = S[0], S[1]
    P = kv[K_PLAYERS]
    fixed, c_first, c_dist, _ = _cols(P)
    deal(deck, n_cards, dealer, rnd, kv, S, dealt, rng.stream(seed, index, sub, rng.SHUFFLE)
         + np.uint64(1))
    for p in range(P):
        st[S_FIRST_DIST + p] = distance(cnt[p], st[S_NSETS], st[S_NRUNS], kv, X, True)
    while st[S_PHASE] != PH_OVER:
        p = st[S_SEAT]
        if pol[p] == HEURISTIC:
            heuristic_turn(S, kv, seat_kv[p], X, score)
        elif pol[p] == RANDOM:
            state = random_turn(state, S, kv, X)
        else:
            search_turn(S, kv, seat_kv[p], X, Y, seed, index, sub)
    row[fixed + X_TURNS] = st[S_TURN]
    row[fixed + X_OUT] = st[S_OUT]
    row[fixed + X_ENDED] = st[S_ENDED]
    row[fixed + X_RESHUF] = st[S_RESHUF]
    row[fixed + X_DDRAWS] = st[S_DDRAWS]
    row[fixed + X_LAYOFFS] = st[S_LAYOFFS]
    row[fixed + X_OTHERS] = st[S_OTHERS_LAYOFFS]
    row[fixed + X_SHIFTS] = st[S_SHIFTS]
    row[fixed + X_JLAY] = st[S_JLAY]
    row[fixed + X_NEWMELDS] = st[S_NEWMELDS]
    row[fixed + X_SIX] = st[S_SIX]
    row[fixed + X_HELD] = st[S_HELD]
    for p in range(P):
        row[C_SCORE + p] = round_penalty(S, kv, p)
        row[c_first + p] = st[S_FIRST + p]
        row[c_dist + p] = st[S_FIRST_DIST + p]
        k = 0
        for c in range(N_KINDS):
            for j in range(cnt[p, c]):
                if k < hands_out.shape[1]:
                    hands_out[p, k] = 104 + j if c == JOKER_KIND else 2 * c + (j % 2)
                k += 1
    return state


@hot
def round_of_deal(kv: np.ndarray, d: int) -> int:
    """The round deal ``d`` of a round-level run plays (knob ``mene``)."""
    if kv[K_MENE] > 0:
        return kv[K_MENE]
    return d % kv[K_NREQ] + 1


# --- batch kernels --------------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record: bool) -> tuple:
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    n_cards = 104 + kv[K_JOKERS]
    out = np.zeros((_cols(P)[3], count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, P, hs), -1, dtype=np.int64)
    hands_out = np.full((n_rec, P, hs + 1), -1, dtype=np.int64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    wk = new_work()
    for i in range(count):
        d = start + i
        for c in range(n_cards):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, n_cards)
        dealer = d % P
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        rnd = round_of_deal(kv, d)
        out[i, C_ROUND] = rnd
        j = i if record else 0
        if not record:
            hands_out[0, :, :] = -1
        play_round(deck, n_cards, dealer, rnd, pol, seat_kv, kv, wk,
                   rng.stream(seed, d, 0, rng.POLICY), seed, d, 0, out[i], dealt[j],
                   hands_out[j])
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    P = kv[K_PLAYERS]
    R = kv[K_NREQ]
    hs = kv[K_HAND]
    n_cards = 104 + kv[K_JOKERS]
    fixed = _cols(P)[0]
    out = np.zeros((count, _mcols(P, R)), dtype=np.int64)
    row = np.zeros((_cols(P)[3], 1), dtype=np.int64).T[0]
    dealt = np.empty((P, hs), dtype=np.int64)
    hands_out = np.empty((P, hs + 1), dtype=np.int64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    totals = np.zeros(P, dtype=np.int64)
    pen = np.zeros((R, P), dtype=np.int64)
    wk = new_work()
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), P)
        totals[:] = 0
        stock_ends = 0
        capped = 0
        reshuf = 0
        for k in range(R):
            for c in range(n_cards):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, k + 1, rng.SHUFFLE), deck, n_cards)
            row[:] = 0
            play_round(deck, n_cards, (first + k) % P, k + 1, pol, seat_kv, kv, wk,
                       rng.stream(seed, m, k + 1, rng.POLICY), seed, m, k + 1, row, dealt,
                       hands_out)
            for p in range(P):
                pen[k, p] = row[C_SCORE + p]
                totals[p] += row[C_SCORE + p]
            out[i, 4 + P + k] = row[fixed + X_TURNS]
            stock_ends += row[fixed + X_ENDED] == 1
            capped += row[fixed + X_ENDED] == 2
            reshuf += row[fixed + X_RESHUF]
        low = totals.min()
        n_low = 0
        winner = -1
        for p in range(P):
            if totals[p] == low:
                n_low += 1
                winner = p
        deciding = 0
        for k in range(R):
            low2 = totals[0] - pen[k, 0]
            for p in range(P):
                low2 = min(low2, totals[p] - pen[k, p])
            same = True
            for p in range(P):
                if (totals[p] == low) != (totals[p] - pen[k, p] == low2):
                    same = False
            if not same:
                deciding += 1
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner if n_low == 1 else -1
        out[i, 3] = n_low
        for p in range(P):
            out[i, 4 + p] = totals[p]
        out[i, 4 + P + R] = deciding
        out[i, 5 + P + R] = stock_ends
        out[i, 6 + P + R] = capped
        out[i, 7 + P + R] = reshuf
    return out


# --- entry points for the runner ------------------------------------------------------------
def run_deals(knobs: LobaKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, knob_vector),
                                      knob_vector(knobs), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: LobaKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, knob_vector),
                                       knob_vector(knobs)))
