"""La batouille: the batch kernels and the runner's entry points.

There is no deal: both seats start with their whole suit. A deal-level row is one game
played by the two players, each drawing its choices from the game's policy stream
(seed, deal); a match is ``match_games`` games, game ``g`` of match ``m`` drawing from
(seed, m, g).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.batouille.equilibrium import tables
from simlab.games.batouille.players import choose, policy_codes
from simlab.games.batouille.rules import (
    C_DEAL,
    C_DRAW,
    C_FIRST,
    C_FORCED,
    C_REPLAYS,
    C_RESULT,
    C_ROUNDS,
    C_SCORE,
    C_VOIDS,
    C_WINNER,
    KV_MATCH_GAMES,
    KV_MAX_TIES,
    KV_RANKS,
    M_DRAWN,
    M_DRAWN_GAMES,
    M_FINAL,
    M_FORCED,
    M_MATCH,
    M_N_DEALS,
    M_REPLAYS,
    M_WINNER,
    MAX_RANKS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_ST,
    S_FIRST,
    S_FORCED,
    S_HAND,
    S_OVER,
    S_REPLAYS,
    S_ROUNDS,
    S_TIES,
    S_TRICKS,
    S_VOIDS,
    BatouilleKnobs,
    apply_round,
    card_id,
    knob_vector,
    new_game,
    outcome,
    winner_of,
)


@hot
def play_out(st: np.ndarray, state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray,
             kv: np.ndarray, eq: np.ndarray, pidx: np.ndarray, dist: np.ndarray,
             log: np.ndarray) -> np.int64:
    """Play the position in ``st`` to its end; ``log`` [L, 2] records the first L rounds'
    cards (seat 0's, seat 1's rank index). Seat ``s`` chooses with its own knob vector
    ``seat_kv[s]`` (its policy knobs, ``simlab.engine.seatknobs``); the rules read the
    run's ``kv``. Returns the rounds played."""
    n_ties = kv[KV_MAX_TIES]
    i = 0
    while st[S_OVER] == 0:
        h0 = st[S_HAND]
        h1 = st[S_HAND + 1]
        d = st[S_TRICKS] - st[S_TRICKS + 1]
        t = st[S_TIES]
        state, r0 = choose(pol[0], state, h0, h1, d, t, seat_kv[0], n_ties, eq, pidx, dist)
        state, r1 = choose(pol[1], state, h1, h0, -d, t, seat_kv[1], n_ties, eq, pidx, dist)
        if i < log.shape[0]:
            log[i, 0] = r0
            log[i, 1] = r1
        i += 1
        apply_round(st, n_ties, r0, r1)
    return i


@hot
def play_game(seed: np.uint64, index: np.int64, sub: np.int64, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, eq: np.ndarray, pidx: np.ndarray,
              st: np.ndarray, dist: np.ndarray, log: np.ndarray) -> np.int64:
    new_game(st, kv[KV_RANKS])
    state = rng.stream(seed, index, sub, rng.POLICY)
    return play_out(st, state, pol, seat_kv, kv, eq, pidx, dist, log)


@hot
def fill_row(st: np.ndarray, row: np.ndarray) -> None:
    row[C_SCORE] = st[S_TRICKS]
    row[C_SCORE + 1] = st[S_TRICKS + 1]
    row[C_WINNER] = winner_of(st)
    row[C_DRAW] = winner_of(st) < 0
    row[C_RESULT] = outcome(st, 0)
    row[C_REPLAYS] = st[S_REPLAYS]
    row[C_VOIDS] = st[S_VOIDS]
    row[C_FORCED] = st[S_FORCED]
    row[C_ROUNDS] = st[S_ROUNDS]
    row[C_FIRST] = st[S_FIRST]


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, eq: np.ndarray, pidx: np.ndarray,
                 log_len: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    st = np.zeros(N_ST, dtype=np.int64)
    dist = np.zeros(MAX_RANKS, dtype=np.float64)
    log = np.full((log_len, 2), -1, dtype=np.int64)
    for i in range(count):
        d = start + i
        out[i, C_DEAL] = d
        play_game(seed, d, 0, pol, seat_kv, kv, eq, pidx, st, dist, log)
        fill_row(st, out[i])
    return out, log


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray, eq: np.ndarray, pidx: np.ndarray
                   ) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    dist = np.zeros(MAX_RANKS, dtype=np.float64)
    log = np.empty((0, 2), dtype=np.int64)
    for i in range(count):
        m = start + i
        o = out[i]
        o[M_MATCH] = m
        for g in range(kv[KV_MATCH_GAMES]):
            play_game(seed, m, g, pol, seat_kv, kv, eq, pidx, st, dist, log)
            w = winner_of(st)
            if w < 0:
                o[M_DRAWN_GAMES] += 1
            else:
                o[M_FINAL + w] += 1
            o[M_REPLAYS] += st[S_REPLAYS]
            o[M_FORCED] += st[S_FORCED]
        o[M_N_DEALS] = kv[KV_MATCH_GAMES]
        if o[M_FINAL] > o[M_FINAL + 1]:
            o[M_WINNER] = 0
        elif o[M_FINAL + 1] > o[M_FINAL]:
            o[M_WINNER] = 1
        else:
            o[M_WINNER] = -1
            o[M_DRAWN] = 1
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: BatouilleKnobs, policies: tuple[str, ...]) -> tuple:
    codes = policy_codes(policies)
    eq, pidx = tables(knobs, codes)
    return codes, seat_vectors(knobs, policies, knob_vector), knob_vector(knobs), eq, pidx


def run_deals(knobs: BatouilleKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv, eq, pidx = _setup(knobs, policies)
    rows, _ = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, eq, pidx, 0)
    if not record_hands:
        return KernelOutput(rows)
    # no deal: each seat holds its whole suit
    dealt = np.full((count, 2, knobs.ranks), -1, dtype=np.int64)
    for s in range(2):
        dealt[:, s, :] = [card_id(knobs, s, r) for r in range(knobs.ranks)]
    return KernelOutput(rows, dealt=dealt, hands=dealt.copy())


def run_matches(knobs: BatouilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv, eq, pidx = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, eq,
                                       pidx))


def trace_game(knobs: BatouilleKnobs, policies: tuple[str, ...], seed: int, d: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Game ``d`` of a deal-level run: (row, rounds [n, 2] of the rank indices played by
    seat 0 and seat 1). For tests and debugging."""
    pol, seat_kv, kv, eq, pidx = _setup(knobs, policies)
    rows, log = deals_kernel(np.uint64(seed), d, 1, pol, seat_kv, kv, eq, pidx, 100_000)
    n = int((log[:, 0] >= 0).sum())
    return rows[0], log[:n]
