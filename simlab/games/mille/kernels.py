"""Mille batch kernels: deal after deal (or match after match), each deal a loop of
``players`` moves and ``rules`` steps over the deal's state until it is over. The
runner's entry points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.mille.players import heuristic_move, random_move, search_move, search_work
from simlab.games.mille.rules import (
    C_BOMB,
    C_DEAL,
    C_DEALER,
    C_TAKER,
    HAND_SIZE,
    K_BARREL,
    K_BOMBS,
    K_MAX_DEALS,
    K_TARGET,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    NP,
    P_DONE,
    P_PLAY,
    S_BARREL_RUN,
    S_BARS,
    S_HAND,
    S_PHASE,
    S_SCORE,
    S_TO_MOVE,
    MilleKnobs,
    _rules,
    _vector,
    apply_move,
    deal,
    score_deal,
    tables,
    write_row,
    zero_bars,
)
from simlab.mechanics.tricks import cards_of

ALL_BOMBS = (1 << NP) - 1


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, bombs: int, sheet: np.ndarray,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, st: np.uint64,
              seed: np.uint64, index: int, sub: int, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, marks: np.ndarray, world: np.ndarray, work: tuple
              ) -> np.uint64:
    """One deal from a shuffled ``deck``: one move per step from the seat's policy.
    ``bombs``: the seats with a bomb left; ``sheet`` [3, NP]: the match sheet (scores, zero
    bars, deals on the barrel: public, the players see it); ``st``: the deal's policy
    stream, for the random player; (seed, index, sub) key the search player's streams.
    Fills ``row`` from C_SCORE on, ``marks``, ``dealt`` [3, 7] and ``hands_out`` [3, 8]
    (hands when play starts; left as they are after a bomb). Returns the policy stream."""
    deal(state, deck, dealer, bombs, dealt)
    for p in range(NP):
        state[S_SCORE + p] = sheet[0, p]
        state[S_BARS + p] = sheet[1, p]
        state[S_BARREL_RUN + p] = sheet[2, p]
    recorded = False
    while state[S_PHASE] != P_DONE:
        if not recorded and state[S_PHASE] == P_PLAY:
            recorded = True
            for p in range(NP):
                cards_of(np.uint64(state[S_HAND + p]), hands_out[p])
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]], rules, tb)
        elif code == RANDOM:
            st, m = random_move(st, state, kv, rules, tb, work[0])
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], rules, tb, seed, index, sub, world, work)
        apply_move(state, m, kv, tb)
    write_row(state, kv, row, marks)
    return st


@hot
def shuffled(deck: np.ndarray, seed: np.uint64, index: int, sub: int) -> None:
    for c in range(N_CARDS):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent deals (dealer = deal index mod 3), every seat holding its bomb when
    ``bombs_per_match`` > 0."""
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major for polars
    n_rec = count if record else 1
    dealt = np.full((n_rec, NP, HAND_SIZE), -1, dtype=np.int64)
    hands_out = np.full((n_rec, NP, 8), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    marks = np.zeros(NP, dtype=np.int64)
    work = search_work()
    bombs = ALL_BOMBS if kv[K_BOMBS] > 0 else 0
    sheet = np.zeros((3, NP), dtype=np.int64)  # single deals: a blank match sheet
    for i in range(count):
        d = start + i
        shuffled(deck, seed, d, 0)
        dealer = d % NP
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        st = rng.stream(seed, d, 0, rng.POLICY)
        play_deal(state, deck, dealer, bombs, sheet, pol, seat_kv, kv, rules, tb, st, seed, d, 0, out[i],
                  dealt[j], hands_out[j], marks, world, work)
        if record and out[i, C_BOMB]:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    """Whole matches to ``target`` (seed 9): the dealer moves clockwise each deal (the
    first drawn at random); each player has ``bombs_per_match`` bombs; the score sheet
    (``rules.score_deal``) applies the barrel and the zero bars after each deal."""
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as deals_kernel
    dealt = np.empty((NP, HAND_SIZE), dtype=np.int64)
    hands_out = np.empty((NP, 8), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    marks = np.zeros(NP, dtype=np.int64)
    sheet = np.zeros((3, NP), dtype=np.int64)  # scores, zero bars, deals on the barrel
    scores = sheet[0]
    bars = sheet[1]
    barrel_run = sheet[2]
    bombs_left = np.zeros(NP, dtype=np.int64)
    zero = np.zeros(NP, dtype=np.int64)
    work = search_work()
    floor = kv[K_BARREL]
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), NP)
        dealer = first
        for p in range(NP):
            scores[p] = 0
            bars[p] = 0
            barrel_run[p] = 0
            bombs_left[p] = kv[K_BOMBS]
        n_deals = 0
        n_bombs = 0
        falls = 0
        penalties = 0
        barrel_deals = 0
        winner = -1
        from_barrel = False
        while n_deals < kv[K_MAX_DEALS]:
            shuffled(deck, seed, m, n_deals + 1)
            row[:] = 0
            bombs = 0
            on_barrel = False
            for p in range(NP):
                if bombs_left[p] > 0:
                    bombs |= 1 << p
                on_barrel = on_barrel or (scores[p] == floor and floor < target)
            barrel_deals += on_barrel
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            play_deal(state, deck, dealer, bombs, sheet, pol, seat_kv, kv, rules, tb, st, seed, m, n_deals + 1,
                      row, dealt, hands_out, marks, world, work)
            n_deals += 1
            taker = row[C_TAKER]
            if row[C_BOMB]:
                bombs_left[taker] -= 1
                n_bombs += 1
            before = scores[taker] == floor and floor < target
            zero_bars(state, zero)
            f, z = score_deal(scores, bars, barrel_run, marks, taker, zero, kv)
            falls += f
            penalties += z
            dealer = (dealer + 1) % NP
            best = -1
            for k in range(NP):  # the taker first, then in turn: ties go to him
                p = (taker + k) % NP
                if scores[p] >= target and (best < 0 or scores[p] > scores[best]):
                    best = p
            if best >= 0:
                winner = best
                from_barrel = before and best == taker
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(NP):
            out[i, 4 + p] = scores[p]
        out[i, 7] = n_bombs
        out[i, 8] = falls
        out[i, 9] = penalties
        out[i, 10] = barrel_deals
        out[i, 11] = from_barrel
        out[i, 12] = winner < 0
    return out


# --- entry points for the runner ---------------------------------------------------------
def _args(knobs: MilleKnobs) -> tuple:
    return _vector(knobs), _rules(knobs), tables(knobs).kernel_args()


def run_deals(knobs: MilleKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb = _args(knobs)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector), kv, rules, tb,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: MilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector), kv, rules, tb))
