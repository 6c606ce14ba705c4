"""Speed: the batch kernels and the runner's entry points.

A deal-level row is one game: the pack shuffled from (seed, deal), every reaction delay,
mistake and tie drawn from the game's policy stream (seed, deal); a match is
``match_games`` games, game ``g`` of match ``m`` from (seed, m, g). Rows carry the
simulated time (``time_ms``).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import seat_vectors
from simlab.games.speed.players import choose
from simlab.games.speed.rules import (
    C_CAPPED,
    C_DEAL,
    C_DRAW,
    C_ERRORS,
    C_LEFT,
    C_PLAYS,
    C_RECYCLES,
    C_REFUSED,
    C_RESULT,
    C_SCORE,
    C_STALLS,
    C_TIES,
    C_TIME,
    C_WINNER,
    HAND,
    KV_HAND,
    KV_MATCH_GAMES,
    KV_MAX_RECYCLES,
    KV_PENALTY_MS,
    KV_PERSONAL,
    KV_SHUFFLE,
    KV_STALL_MS,
    M_DRAWN,
    M_DRAWN_GAMES,
    M_FINAL,
    M_MATCH,
    M_N_DEALS,
    M_STALLS,
    M_TIME,
    M_WINNER,
    MAX_HAND,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_PILES,
    N_ST,
    PILE_CAP,
    PLAYERS,
    S_CAPPED,
    S_ERRORS,
    S_PLAN_CARD,
    S_PLAN_PILE,
    S_PLAYS,
    S_RECYCLES,
    S_REFUSED,
    S_STALLS,
    S_WINNER,
    SpeedKnobs,
    cards_left,
    deal,
    flip,
    knob_vector,
    play,
    recycle,
    winner_at_cap,
)
from simlab.mechanics import realtime as rt

MAX_ACTIONS = 100_000  # a game that reaches it stops as capped (only with absurd error rates)


@hot
def replan(state: np.uint64, code: np.int64, piles: np.ndarray, n: np.ndarray,
           st: np.ndarray, clock: np.ndarray, seat: np.int64, now: np.float64,
           row: np.ndarray) -> np.uint64:
    """The seat looks at the board again: a new plan and its time."""
    state, slot, pile, options = choose(code, state, piles, n, seat, row)
    st[S_PLAN_CARD + seat] = slot
    st[S_PLAN_PILE + seat] = pile
    return rt.schedule(state, clock, seat, now, row, options)


@hot
def play_out(state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
             piles: np.ndarray, n: np.ndarray, st: np.ndarray, clock: np.ndarray,
             ev: np.ndarray) -> np.float64:
    """Play the dealt board to its end; returns the simulated time in seconds."""
    for i in range(rt.EV_SIZE):
        ev[i] = 0
    now = 0.0
    for s in range(PLAYERS):
        state = replan(state, pol[s], piles, n, st, clock, s, now, seat_kv[s])
    actions = 0
    while True:
        state, s = rt.earliest(state, clock, PLAYERS, ev)
        if s < 0:  # nobody can play: flip, or recycle the centre piles
            st[S_STALLS] += 1
            ev[rt.EV_STALLS] += 1
            now += kv[KV_STALL_MS] / 1000.0
            if not flip(piles, n):
                if st[S_RECYCLES] >= kv[KV_MAX_RECYCLES]:
                    st[S_CAPPED] = 1
                    ev[rt.EV_CAPS] += 1
                    st[S_WINNER] = winner_at_cap(n)
                    return now
                st[S_RECYCLES] += 1
                state = recycle(piles, n, state, kv[KV_SHUFFLE] != 0)
            for o in range(PLAYERS):
                state = replan(state, pol[o], piles, n, st, clock, o, now, seat_kv[o])
            continue
        now = clock[s]
        actions += 1
        if actions > MAX_ACTIONS:
            st[S_CAPPED] = 1
            ev[rt.EV_CAPS] += 1
            st[S_WINNER] = winner_at_cap(n)
            return now
        state, wrong = rt.errs(state, seat_kv[s])
        if wrong:  # an illegal card, taken back; the seat freezes, then looks again
            st[S_ERRORS] += 1
            ev[rt.EV_ERRORS] += 1
            state = replan(state, pol[s], piles, n, st, clock, s,
                           now + kv[KV_PENALTY_MS] / 1000.0, seat_kv[s])
            continue
        pile = st[S_PLAN_PILE + s]
        play(piles, n, s, st[S_PLAN_CARD + s], pile, kv[KV_HAND])
        st[S_PLAYS + s] += 1
        ev[rt.EV_ACTIONS] += 1
        if cards_left(n, s) == 0:
            st[S_WINNER] = s
            return now
        state = replan(state, pol[s], piles, n, st, clock, s, now, seat_kv[s])
        for o in range(PLAYERS):
            if o == s:
                continue
            if st[S_PLAN_CARD + o] >= 0 and st[S_PLAN_PILE + o] == pile:
                st[S_REFUSED] += 1  # the pile it reached for changed: it lost the race
                ev[rt.EV_REFUSED] += 1
                state = replan(state, pol[o], piles, n, st, clock, o, now, seat_kv[o])
            elif st[S_PLAN_CARD + o] < 0:  # was waiting: the new top may let it play
                state = replan(state, pol[o], piles, n, st, clock, o, now, seat_kv[o])


@hot
def play_game(seed: np.uint64, index: np.int64, sub: np.int64, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, deck: np.ndarray, piles: np.ndarray,
              n: np.ndarray, st: np.ndarray, clock: np.ndarray, ev: np.ndarray
              ) -> np.float64:
    for i in range(N_CARDS):
        deck[i] = i
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)
    deal(deck, piles, n, st, kv)
    return play_out(rng.stream(seed, index, sub, rng.POLICY), pol, seat_kv, kv, piles, n,
                    st, clock, ev)


@hot
def fill_row(st: np.ndarray, n: np.ndarray, kv: np.ndarray, ev: np.ndarray,
             now: np.float64, row: np.ndarray) -> None:
    w = st[S_WINNER]
    for s in range(PLAYERS):
        left = cards_left(n, s)
        row[C_LEFT + s] = left
        row[C_SCORE + s] = kv[KV_PERSONAL] - left
        row[C_PLAYS + s] = st[S_PLAYS + s]
    row[C_WINNER] = w
    row[C_DRAW] = w < 0
    row[C_RESULT] = 0 if w < 0 else (1 if w == 0 else -1)
    row[C_TIME] = np.int64(now * 1000.0 + 0.5)
    row[C_STALLS] = st[S_STALLS]
    row[C_RECYCLES] = st[S_RECYCLES]
    row[C_CAPPED] = st[S_CAPPED]
    row[C_REFUSED] = st[S_REFUSED]
    row[C_ERRORS] = st[S_ERRORS]
    row[C_TIES] = ev[rt.EV_TIES]


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record_hands: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    k = kv[KV_HAND] if record_hands else 0
    dealt = np.full((count if record_hands else 0, PLAYERS, MAX_HAND), -1, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    piles = np.zeros((N_PILES, PILE_CAP), dtype=np.int64)
    n = np.zeros(N_PILES, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    clock = np.zeros(PLAYERS, dtype=np.float64)
    ev = np.zeros(rt.EV_SIZE, dtype=np.int64)
    for i in range(count):
        d = start + i
        for j in range(N_CARDS):
            deck[j] = j
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        deal(deck, piles, n, st, kv)
        if record_hands:
            for s in range(PLAYERS):
                for j in range(k):
                    if j < n[HAND + s]:
                        dealt[i, s, j] = piles[HAND + s, j]
        now = play_out(rng.stream(seed, d, 0, rng.POLICY), pol, seat_kv, kv, piles, n,
                       st, clock, ev)
        out[i, C_DEAL] = d
        fill_row(st, n, kv, ev, now, out[i])
    return out, dealt, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    deck = np.zeros(N_CARDS, dtype=np.int64)
    piles = np.zeros((N_PILES, PILE_CAP), dtype=np.int64)
    n = np.zeros(N_PILES, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    clock = np.zeros(PLAYERS, dtype=np.float64)
    ev = np.zeros(rt.EV_SIZE, dtype=np.int64)
    for i in range(count):
        m = start + i
        o = out[i]
        o[M_MATCH] = m
        t = 0.0
        for g in range(kv[KV_MATCH_GAMES]):
            t += play_game(seed, m, g, pol, seat_kv, kv, deck, piles, n, st, clock, ev)
            w = st[S_WINNER]
            if w < 0:
                o[M_DRAWN_GAMES] += 1
            else:
                o[M_FINAL + w] += 1
            o[M_STALLS] += st[S_STALLS]
        o[M_N_DEALS] = kv[KV_MATCH_GAMES]
        o[M_TIME] = np.int64(t * 1000.0 + 0.5)
        if o[M_FINAL] > o[M_FINAL + 1]:
            o[M_WINNER] = 0
        elif o[M_FINAL + 1] > o[M_FINAL]:
            o[M_WINNER] = 1
        else:
            o[M_WINNER] = -1
            o[M_DRAWN] = 1
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: SpeedKnobs, policies: tuple[str, ...]) -> tuple:
    if len(policies) != PLAYERS:
        raise SimlabError(f"speed is for exactly 2 players, got {len(policies)} policies")
    return (policy_codes(policies), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs))


def run_deals(knobs: SpeedKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt[:, :, :knobs.hand_size],
                        hands=hands[:, :, :knobs.hand_size].copy())


def run_matches(knobs: SpeedKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv))


def simulate_rows(knobs: SpeedKnobs, policies: tuple[str, ...], seed: int, count: int,
                  start: int = 0) -> np.ndarray:
    """Rows straight from the kernel (the report's sweeps; tests)."""
    return run_deals(knobs, policies, seed, start, count).rows
