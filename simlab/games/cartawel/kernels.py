"""Le cartawel: the batch kernels, the searching players' game loop, and the runner's
entry points.

There is no deal: each seat holds its whole suit; a lot (the game's SETUP stream) picks
who lays first. Random and heuristic games run in the jitted batch kernel; a game with a
``minimax`` or ``mcts`` seat runs in ``play_game`` (Python: the searches are Python over
the game's jitted steps, ``simlab.mechanics.minimax``), which uses the same streams, so a
heuristic game is the same game in both. A match is two games, seat 0 laying first in
the first and seat 1 in the second (colour-swapped).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.cartawel.players import (
    HEURISTIC,
    MAX_MOVES,
    MCTS,
    MINIMAX,
    STRONG,
    WORK_LEN,
    WORK_ROWS,
    CartawelSearch,
    choose_fast,
    policy_codes,
)
from simlab.games.cartawel.rules import (
    C_BEST,
    C_CAPTURES,
    C_CARDS_TAKEN,
    C_DEAL,
    C_DRAW,
    C_END,
    C_FIRST,
    C_FIRST_WON,
    C_LEFT,
    C_LENGTH,
    C_RESULT,
    C_SCORE,
    C_STALLED,
    C_WINNER,
    END_CAP,
    KV_DEPTH,
    KV_ITER,
    KV_PLAYOUTS,
    KV_SEARCH_PHASE,
    M_FINAL,
    M_MATCH,
    MOVE_LEN,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_ST,
    S_BEST_CAPTURE,
    S_CAPTURES,
    S_CARDS_TAKEN,
    S_END,
    S_FIRST,
    S_OVER,
    S_SOWS,
    S_TO_MOVE,
    CartawelKnobs,
    apply_move,
    final_points,
    is_legal,
    knob_vector,
    laying,
    left_points,
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
    row[C_SCORE] = final_points(st, kv, 0)
    row[C_SCORE + 1] = final_points(st, kv, 1)
    row[C_WINNER] = w
    row[C_DRAW] = w < 0
    row[C_RESULT] = 0 if w < 0 else (1 if w == 0 else -1)
    f = st[S_FIRST]
    row[C_FIRST] = f
    row[C_FIRST_WON] = 0 if w < 0 else (1 if w == f else -1)
    row[C_LENGTH] = st[S_SOWS]
    for s in range(2):
        row[C_CAPTURES + s] = st[S_CAPTURES + s]
        row[C_CARDS_TAKEN + s] = st[S_CARDS_TAKEN + s]
    row[C_LEFT] = left_points(st, kv)
    row[C_BEST] = st[S_BEST_CAPTURE]
    row[C_END] = st[S_END]
    row[C_STALLED] = st[S_END] == END_CAP


@hot
def play_fast(seed: np.uint64, index: np.int64, sub: np.int64, first: np.int64,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, st: np.ndarray,
              mv: np.ndarray, moves: np.ndarray, gains: np.ndarray, work: np.ndarray) -> None:
    """One game between random / heuristic players (``first`` < 0: the lot decides); each
    seat chooses with its own knob row (its rule values are the run's)."""
    new_game(st, lot(seed, index, sub) if first < 0 else first)
    state = rng.stream(seed, index, sub, rng.POLICY)
    while st[S_OVER] == 0:
        seat = st[S_TO_MOVE]
        state = choose_fast(pol[seat], st, seat_kv[seat], state, mv, moves, gains, work)
        apply_move(st, kv, mv)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    st = np.zeros(N_ST, dtype=np.int64)
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
    gains = np.zeros(MAX_MOVES, dtype=np.int64)
    work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
    for i in range(count):
        d = start + i
        out[i, C_DEAL] = d
        play_fast(seed, d, 0, -1, pol, seat_kv, kv, st, mv, moves, gains, work)
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
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
    gains = np.zeros(MAX_MOVES, dtype=np.int64)
    work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
    for i in range(count):
        m = start + i
        out[i, M_MATCH] = m
        for g in range(2):
            play_fast(seed, m, g, g, pol, seat_kv, kv, st, mv, moves, gains, work)
            match_row(out[i], st, kv)
        close_match(out[i])
    return out


# --- any players, the searching ones included (Python) ---------------------------------
def play_game(seed: int, index: int, sub: int, first: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, log: list | None = None) -> np.ndarray:
    """One game between any players; returns the final state. ``log`` (a list) receives
    each move as ``(state before, move array)``."""
    st = np.zeros(N_ST, dtype=np.int64)
    new_game(st, lot(np.uint64(seed), index, sub) if first < 0 else first)
    state = np.uint64(rng.stream(np.uint64(seed), index, sub, rng.POLICY))
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
    gains = np.zeros(MAX_MOVES, dtype=np.int64)
    work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
    searchers = make_searchers(pol, seat_kv, lambda seat_row: CartawelSearch(kv, seat_row),
                               MINIMAX, MCTS, KV_DEPTH, KV_ITER, KV_PLAYOUTS)
    gens = [np.random.default_rng([int(seed), int(index), int(sub), s]) for s in range(2)]
    while st[S_OVER] == 0:
        seat = int(st[S_TO_MOVE])
        phase = seat_kv[seat][KV_SEARCH_PHASE]  # 0 both, 1 laying only, 2 sowing only
        searching = searchers[seat] is not None and (
            phase == 0 or (phase == 1) == bool(laying(st)))
        if not searching:
            mv[:] = 0
            code = pol[seat] if searchers[seat] is None else HEURISTIC
            state = np.uint64(choose_fast(code, st, seat_kv[seat], state, mv, moves, gains,
                                         work))
        else:
            move = np.frombuffer(searchers[seat].choose(st, gens[seat]), dtype=np.int64)
            mv[:] = 0
            mv[:len(move)] = move
        if log is not None:
            if not is_legal(st, kv, mv):
                raise AssertionError(f"illegal move {mv[:3 + mv[2]]} by seat {seat}")
            log.append((st.copy(), mv.copy()))
        apply_move(st, kv, mv)
    return st


def _setup(knobs: CartawelKnobs, policies: tuple[str, ...]) -> tuple:
    return (policy_codes(policies), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs))


def run_deals(knobs: CartawelKnobs, policies: tuple[str, ...], seed: int, start: int,
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


def run_matches(knobs: CartawelKnobs, policies: tuple[str, ...], seed: int, start: int,
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


def trace_game(knobs: CartawelKnobs, policies: tuple[str, ...], seed: int, d: int,
               first: int = -1) -> tuple[np.ndarray, list]:
    """Game ``d`` of a deal-level run: (its row, [(state before, move)] for every move,
    each checked legal). For tests and debugging."""
    pol, seat_kv, kv = _setup(knobs, policies)
    log: list = []
    st = play_game(seed, d, 0, first, pol, seat_kv, kv, log)
    row = np.zeros(N_DEAL_COLS, dtype=np.int64)
    row[C_DEAL] = d
    fill_row(st, kv, row)
    return row, log
