"""Progression batch kernels: game after game (or match after match), each a loop of the
players' moves applied with ``rules.apply_move`` until it is over. The runner's entry
points ``run_deals`` and ``run_matches`` are at the end.

A deal-level row is one game, dealt by seat ``deal % 2``. The book scores no match, so a
match is ``match_games`` games (1 by default), the first dealer drawn at random, the deal
alternating."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.progression.players import (
    heuristic_move,
    player_work,
    random_move,
    search_move,
)
from simlab.games.progression.rules import (
    C_CAPPED,
    C_DEAL,
    C_WINNER,
    K_HAND,
    K_MATCH_GAMES,
    M_CAPPED,
    M_DRAWN,
    M_DRAWN_GAMES,
    M_FINAL,
    M_FIRST_DEALER,
    M_MATCH,
    M_N_DEALS,
    M_WINNER,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    P_DONE,
    S_PHASE,
    S_START_CARD,
    S_TO_MOVE,
    SAME_RANK,
    ProgressionKnobs,
    along_mask,
    apply_move,
    knob_vector,
    longest_run,
    new_state,
    start_game,
    write_row,
)


@hot
def play_game(st: np.ndarray, deck: np.ndarray, dealer: np.int64, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, seed: np.uint64, index: np.int64,
              sub: np.int64, row: np.ndarray, dealt: np.ndarray, work: tuple) -> None:
    """One game from a shuffled ``deck``: fills ``row`` (from ``C_DEALER`` on) and
    ``dealt`` [2, hand]."""
    start_game(st, deck, dealer, kv, dealt)
    first = 1 - dealer
    start = st[S_START_CARD]
    fits_start = along_mask(start, kv) | SAME_RANK[start]
    h0 = np.int64(0)
    h1 = np.int64(0)
    for i in range(2 * kv[K_HAND]):
        seat = first if i % 2 == 0 else dealer
        if seat == 0:
            h0 |= np.int64(1) << deck[i]
        else:
            h1 |= np.int64(1) << deck[i]
    opener = 0
    m = (h0 if first == 0 else h1) & fits_start
    while m != 0:
        m &= m - 1
        opener += 1
    pst = rng.stream(seed, index, sub, rng.POLICY)
    while st[S_PHASE] != P_DONE:
        p = st[S_TO_MOVE]
        code = pol[p]
        if code == HEURISTIC:
            mv = heuristic_move(st, seat_kv[p], work)
        elif code == RANDOM:
            pst, mv = random_move(st, kv, pst, work)
        else:
            mv = search_move(st, seat_kv[p], seed, index, sub, work)
        apply_move(st, mv, kv)
    write_row(st, kv, row, opener, longest_run(h0), longest_run(h1))


@hot
def shuffled(seed: np.uint64, index: np.int64, sub: np.int64, deck: np.ndarray) -> None:
    """"Le donneur bat et fait couper les cartes": a uniform shuffle from the deal's own
    stream (a cut of a uniform pack is still uniform)."""
    for c in range(N_CARDS):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, kv[K_HAND]), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    st = new_state()
    work = player_work()
    for i in range(count):
        d = start + i
        shuffled(seed, d, 0, deck)
        out[i, C_DEAL] = d
        j = i if record else 0
        play_game(st, deck, d % 2, pol, seat_kv, kv, seed, d, 0, out[i], dealt[j], work)
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.full((2, kv[K_HAND]), -1, dtype=np.int64)
    st = new_state()
    work = player_work()
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 2)
        o = out[i]
        o[M_MATCH] = m
        o[M_FIRST_DEALER] = first
        games = kv[K_MATCH_GAMES]
        for g in range(games):
            shuffled(seed, m, g + 1, deck)
            play_game(st, deck, (first + g) % 2, pol, seat_kv, kv, seed, m, g + 1, row,
                      dealt, work)
            w = row[C_WINNER]
            if w < 0:
                o[M_DRAWN_GAMES] += 1
            else:
                o[M_FINAL + w] += 1
            o[M_CAPPED] += row[C_CAPPED]
        o[M_N_DEALS] = games
        if o[M_FINAL] > o[M_FINAL + 1]:
            o[M_WINNER] = 0
        elif o[M_FINAL + 1] > o[M_FINAL]:
            o[M_WINNER] = 1
        else:
            o[M_WINNER] = -1
            o[M_DRAWN] = 1
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: ProgressionKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                               seat_vectors(knobs, policies, knob_vector),
                               knob_vector(knobs), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt)


def run_matches(knobs: ProgressionKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, knob_vector),
                                       knob_vector(knobs)))
