"""Le pousse-pousse: the batch kernels, the searching players' game loop, and the
runner's entry points (the same shape as ``simlab.games.cartawel.kernels``).

No deal: each seat holds its 12 cards; a lot (the game's SETUP stream) picks who places
first, and the other seat slides first. Random and heuristic games run in the jitted
batch kernel; a game with a ``minimax`` or ``mcts`` seat runs in ``play_game`` (Python),
on the same streams. A match is two games, seat 0 placing first in the first and seat 1
in the second.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.pousse_pousse.players import (
    MAX_MOVES,
    MCTS,
    MINIMAX,
    SCRATCH,
    STRONG,
    PoussePousseSearch,
    choose_fast,
    mark_stuck,
    policy_codes,
)
from simlab.games.pousse_pousse.rules import (
    C_BUILD_PTS,
    C_DEAL,
    C_DRAW,
    C_END,
    C_FIRST,
    C_FIRST_RESULT,
    C_GIFT,
    C_LENGTH,
    C_RESULT,
    C_RUNS,
    C_SCORE,
    C_STALLED,
    C_WINNER,
    END_CAP,
    KV_DEPTH,
    KV_ITER,
    KV_PLAYOUTS,
    M_FINAL,
    M_MATCH,
    MAX_RUNS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_ST,
    S_BUILD_PTS,
    S_END,
    S_FIRST,
    S_GIFT,
    S_OVER,
    S_RUNS_SCORED,
    S_SCORE,
    S_TO_MOVE,
    S_TURNS,
    PoussePousseKnobs,
    apply_move,
    is_legal,
    knob_vector,
    new_game,
    winner_of,
)
from simlab.mechanics.two_seat import (
    any_searching,
    close_match,
    lot,
    make_searchers,
)


@hot
def fill_row(st: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    w = winner_of(st, kv)
    for s in range(2):
        row[C_SCORE + s] = st[S_SCORE + s]
        row[C_BUILD_PTS + s] = st[S_BUILD_PTS + s]
        row[C_GIFT + s] = st[S_GIFT + s]
        row[C_RUNS + s] = st[S_RUNS_SCORED + s]
    row[C_WINNER] = w
    row[C_DRAW] = w < 0
    row[C_RESULT] = 0 if w < 0 else (1 if w == 0 else -1)
    f = st[S_FIRST]
    row[C_FIRST] = f
    row[C_FIRST_RESULT] = 0 if w < 0 else (1 if w == f else -1)
    row[C_LENGTH] = st[S_TURNS]
    row[C_END] = st[S_END]
    row[C_STALLED] = st[S_END] == END_CAP


@hot
def play_fast(seed: np.uint64, index: np.int64, sub: np.int64, first: np.int64,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, st: np.ndarray,
              moves: np.ndarray, scratch: np.ndarray, tmp: np.ndarray) -> None:
    """One game between random / heuristic players; each seat chooses with its own knob
    row (its rule values are the run's)."""
    new_game(st, lot(seed, index, sub) if first < 0 else first)
    state = rng.stream(seed, index, sub, rng.POLICY)
    while st[S_OVER] == 0:
        seat = st[S_TO_MOVE]
        state, mv = choose_fast(pol[seat], st, seat_kv[seat], state, moves, scratch)
        if mv < 0:
            mark_stuck(st)
            break
        apply_move(st, kv, mv, tmp)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(SCRATCH, dtype=np.int64)
    tmp = np.zeros(MAX_RUNS, dtype=np.int64)
    for i in range(count):
        d = start + i
        out[i, C_DEAL] = d
        play_fast(seed, d, 0, -1, pol, seat_kv, kv, st, moves, scratch, tmp)
        fill_row(st, kv, out[i])
    return out


@hot
def match_row(o: np.ndarray, st: np.ndarray, kv: np.ndarray) -> None:
    w = winner_of(st, kv)
    if w >= 0:
        o[M_FINAL + w] += 1


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(SCRATCH, dtype=np.int64)
    tmp = np.zeros(MAX_RUNS, dtype=np.int64)
    for i in range(count):
        m = start + i
        out[i, M_MATCH] = m
        for g in range(2):
            play_fast(seed, m, g, g, pol, seat_kv, kv, st, moves, scratch, tmp)
            match_row(out[i], st, kv)
        close_match(out[i])
    return out


def play_game(seed: int, index: int, sub: int, first: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, log: list | None = None) -> np.ndarray:
    """One game between any players; returns the final state. ``log`` (a list) receives
    ``(state before, move)`` for each move, each checked legal."""
    st = np.zeros(N_ST, dtype=np.int64)
    new_game(st, lot(np.uint64(seed), index, sub) if first < 0 else first)
    state = np.uint64(rng.stream(np.uint64(seed), index, sub, rng.POLICY))
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(SCRATCH, dtype=np.int64)
    tmp = np.zeros(MAX_RUNS, dtype=np.int64)
    searchers = make_searchers(pol, seat_kv, lambda seat_row: PoussePousseSearch(kv, seat_row),
                               MINIMAX, MCTS, KV_DEPTH, KV_ITER, KV_PLAYOUTS)
    gens = [np.random.default_rng([int(seed), int(index), int(sub), s]) for s in range(2)]
    while st[S_OVER] == 0:
        seat = int(st[S_TO_MOVE])
        if searchers[seat] is None:
            state, mv = choose_fast(pol[seat], st, seat_kv[seat], state, moves, scratch)
            state = np.uint64(state)
        else:
            mv = int(searchers[seat].choose(st, gens[seat])) if searchers[seat].game.moves(st) else -1
        if mv < 0:
            mark_stuck(st)
            break
        if log is not None:
            if not is_legal(st, kv, mv, scratch):
                raise AssertionError(f"illegal move {mv} by seat {seat}")
            log.append((st.copy(), int(mv)))
        apply_move(st, kv, mv, tmp)
    return st


def _setup(knobs: PoussePousseKnobs, policies: tuple[str, ...]) -> tuple:
    return (policy_codes(policies), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs))


def run_deals(knobs: PoussePousseKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    if not any_searching(pol, STRONG):
        return KernelOutput(deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv))
    rows = np.zeros((count, N_DEAL_COLS), dtype=np.int64)
    for i in range(count):
        st = play_game(seed, start + i, 0, -1, pol, seat_kv, kv)
        rows[i, C_DEAL] = start + i
        fill_row(st, kv, rows[i])
    return KernelOutput(rows)


def run_matches(knobs: PoussePousseKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    if not any_searching(pol, STRONG):
        return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv))
    rows = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    for i in range(count):
        rows[i, M_MATCH] = start + i
        for g in range(2):
            match_row(rows[i], play_game(seed, start + i, g, g, pol, seat_kv, kv), kv)
        close_match(rows[i])
    return KernelOutput(rows)


def trace_game(knobs: PoussePousseKnobs, policies: tuple[str, ...], seed: int, d: int,
               first: int = -1) -> tuple[np.ndarray, list]:
    """Game ``d`` of a deal-level run: (its row, [(state before, move)], each move checked
    legal). For tests and debugging."""
    pol, seat_kv, kv = _setup(knobs, policies)
    log: list = []
    st = play_game(seed, d, 0, first, pol, seat_kv, kv, log)
    row = np.zeros(N_DEAL_COLS, dtype=np.int64)
    row[C_DEAL] = d
    fill_row(st, kv, row)
    return row, log
