"""Le pousse-pousse players.

* ``random``: a uniform legal move (building: a card of the hand, then a legal cell;
  sliding: one of the legal turns).
* ``heuristic`` (the catalogue's sketch, greedy): building — the placement whose card
  makes the longest run of one's own suit through its cell (its run points, and a little
  for two in a row, the "near runs"); sliding — the turn with the best points this turn,
  one's own minus ``heuristic_gift_weight`` times the opponent's (gifts count against
  it); ties at random.
* ``minimax``: alpha-beta to ``minimax_depth`` plies (``simlab.mechanics.minimax``),
  evaluation = the score difference plus half the difference of "near runs" (two cards
  of a suit one rank apart side by side on a line), scaled into (-1, 1).
* ``mcts``: UCT (``simlab.mechanics.mcts``), ``mcts_iterations`` iterations and
  ``mcts_playouts`` playouts per node, playouts by the heuristic (or random) players.

Each seat reads its own knob row (``seat_kv``; ``mcts:mcts_iterations=800``).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import policy_name
from simlab.games.pousse_pousse.rules import (
    CELLS,
    END_NO_MOVE,
    KV_GIFT_WEIGHT,
    KV_ROLLOUT_RANDOM,
    KV_TARGET,
    LINE_CELLS,
    LINE_LEN,
    MAX_RUNS,
    N_CARDS,
    N_LINES,
    N_RANKS,
    N_ST,
    S_EMPTY,
    S_END,
    S_GRID,
    S_HAND,
    S_OVER,
    S_PREV,
    S_PREV_EMPTY,
    S_SCORE,
    S_TO_MOVE,
    SIDE,
    STRIDE,
    WEIGHT_SCALE,
    apply_move,
    building,
    new_points,
    place_legal,
    run_points,
    slid_grid,
    slide_shape_legal,
    turn_legal,
    winner_of,
)

RANDOM, HEURISTIC, MINIMAX, MCTS = range(4)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "minimax": MINIMAX, "mcts": MCTS}
STRONG = (MINIMAX, MCTS)
MAX_MOVES = N_CARDS * CELLS  # building: at most 12 cards x 24 cells; sliding: 32
SCRATCH = N_ST + MAX_RUNS  # a state copy, then run codes


def policy_codes(policies: tuple[str, ...]) -> np.ndarray:
    if len(policies) != 2:
        raise SimlabError(f"pousse_pousse needs 2 policies, got {len(policies)}")
    try:
        return np.array([POLICY_CODES[policy_name(s)] for s in policies], dtype=np.int64)
    except KeyError as e:
        raise SimlabError(f"unknown policy {e.args[0]!r} for pousse_pousse; valid policies: "
                          f"{', '.join(POLICY_CODES)}") from None


@hot
def gen_moves(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, scratch: np.ndarray
              ) -> np.int64:
    """Every legal move into ``moves``; returns how many (0: none, the game is stuck)."""
    n = 0
    if st[S_OVER] != 0:
        return 0
    seat = st[S_TO_MOVE]
    if building(st):
        hand = st[S_HAND + seat]
        first = -1
        for r in range(N_RANKS):
            if (hand >> r) & 1:
                first = seat * STRIDE + r
                break
        for cell in range(CELLS):
            if place_legal(st, first, cell):  # the cell's legality is the card's too
                for r in range(N_RANKS):
                    if (hand >> r) & 1:
                        moves[n] = (seat * STRIDE + r) * CELLS + cell
                        n += 1
        return n
    for mv in range(2 * CELLS):
        if turn_legal(st, kv, mv, scratch):
            moves[n] = mv
            n += 1
    return n


@hot
def line_value(st: np.ndarray, cell: np.int64, c: np.int64, kv: np.ndarray) -> np.float64:
    """Card ``c`` on ``cell``: for each line direction the longest monotone run of its suit
    through the cell; its points (and 0.3 for two in a row)."""
    total = 0.0
    r0 = cell // SIDE
    c0 = cell % SIDE
    near = False  # most placements touch no card of the suit one rank away: value 0
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            r = r0 + dr
            cc = c0 + dc
            if (dr != 0 or dc != 0) and 0 <= r < SIDE and 0 <= cc < SIDE:
                x = st[S_GRID + r * SIDE + cc]
                if x >= 0 and (x - c == 1 or c - x == 1):
                    near = True
    if not near:
        return 0.0
    for d in range(4):
        dr = 0 if d == 0 else 1
        dc = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
        best = 1
        for step in (-1, 1):
            length = 1
            for sgn in (-1, 1):
                prev = c
                r = r0 + sgn * dr
                cc = c0 + sgn * dc
                while 0 <= r < SIDE and 0 <= cc < SIDE:
                    x = st[S_GRID + r * SIDE + cc]
                    if x < 0 or x - prev != sgn * step:
                        break
                    length += 1
                    prev = x
                    r += sgn * dr
                    cc += sgn * dc
            if length > best:
                best = length
        if best >= 3:
            total += run_points(best, kv)
        elif best == 2:
            total += 0.3
    return total


@hot
def neighbour_codes(st: np.ndarray, cell: np.int64) -> np.int64:
    """Bit x set when a card of code x lies next to ``cell`` (8 neighbours)."""
    r0 = cell // SIDE
    c0 = cell % SIDE
    m = np.int64(0)
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            r = r0 + dr
            cc = c0 + dc
            if (dr != 0 or dc != 0) and 0 <= r < SIDE and 0 <= cc < SIDE:
                x = st[S_GRID + r * SIDE + cc]
                if x >= 0:
                    m |= np.int64(1) << x
    return m


@hot
def random_move(st: np.ndarray, kv: np.ndarray, state: np.uint64, moves: np.ndarray,
                scratch: np.ndarray) -> tuple[np.uint64, np.int64]:
    n = gen_moves(st, kv, moves, scratch)
    if n == 0:
        return state, -1
    state, j = rng.below(state, n)
    return state, moves[j]


@hot
def heuristic_move(st: np.ndarray, kv: np.ndarray, state: np.uint64, moves: np.ndarray,
                   scratch: np.ndarray) -> tuple[np.uint64, np.int64]:
    seat = st[S_TO_MOVE]
    best = -1e18
    pick = -1
    ties = 0
    if building(st):
        n = gen_moves(st, kv, moves, scratch)
        last_cell = -1
        adj = np.int64(0)
        for i in range(n):
            cell = moves[i] % CELLS
            c = moves[i] // CELLS
            if cell != last_cell:  # the codes of the cards around the cell (8 neighbours)
                last_cell = cell
                adj = neighbour_codes(st, cell)
            if (adj >> (c + 1)) & 1 or (c > 0 and (adj >> (c - 1)) & 1):
                v = line_value(st, cell, c, kv)
            else:
                v = 0.0  # no card of its suit one rank away next to it
            if v > best + 1e-9:
                best = v
                pick = moves[i]
                ties = 1
            elif v > best - 1e-9:
                ties += 1
                state, j = rng.below(state, ties)  # reservoir: uniform among the best
                if j == 0:
                    pick = moves[i]
        return state, pick
    if st[S_OVER] != 0:
        return state, -1
    w = kv[KV_GIFT_WEIGHT] / WEIGHT_SCALE
    for mv in range(2 * CELLS):  # the legal turns, in gen_moves' order, each tried once
        if not slide_shape_legal(st, kv, mv):
            continue
        lines = slid_grid(st, kv, mv, scratch)
        if scratch[S_EMPTY] == st[S_PREV_EMPTY]:
            same = True
            for t in range(CELLS):
                if scratch[S_GRID + t] != st[S_PREV + t]:
                    same = False
                    break
            if same:
                continue  # the no-undo rule
        g0, g1, _ = new_points(scratch, st, kv, scratch[N_ST:], False, lines)
        mine = st[S_SCORE + seat] + (g0 if seat == 0 else g1)
        theirs = st[S_SCORE + 1 - seat] + (g1 if seat == 0 else g0)
        v = g0 - w * g1 if seat == 0 else g1 - w * g0
        if mine >= kv[KV_TARGET] and mine > theirs:
            v += 1000.0  # a winning turn
        elif theirs >= kv[KV_TARGET] and theirs > mine:
            v -= 1000.0
        if v > best + 1e-9:
            best = v
            pick = mv
            ties = 1
        elif v > best - 1e-9:
            ties += 1
            state, j = rng.below(state, ties)
            if j == 0:
                pick = mv
    return state, pick


@hot
def turn_values(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, out: np.ndarray,
                scratch: np.ndarray) -> None:
    """Each sliding turn's points this turn, the mover's minus the opponent's."""
    seat = st[S_TO_MOVE]
    for i in range(moves.shape[0]):
        lines = slid_grid(st, kv, moves[i], scratch)
        g0, g1, _ = new_points(scratch, st, kv, scratch[N_ST:], False, lines)
        out[i] = g0 - g1 if seat == 0 else g1 - g0


@hot
def choose_fast(code: np.int64, st: np.ndarray, kv: np.ndarray, state: np.uint64,
                moves: np.ndarray, scratch: np.ndarray) -> tuple[np.uint64, np.int64]:
    """The random or the heuristic player's move (-1: no legal move)."""
    if code == HEURISTIC:
        return heuristic_move(st, kv, state, moves, scratch)
    return random_move(st, kv, state, moves, scratch)


@hot
def near_pairs(st: np.ndarray) -> np.int64:
    """Two cards of a suit one rank apart side by side on a line (a run in the making,
    the catalogue's "near runs"): seat 0's pairs minus seat 1's."""
    d = 0
    for li in range(N_LINES):
        for i in range(LINE_LEN[li] - 1):
            a = st[S_GRID + LINE_CELLS[li, i]]
            b = st[S_GRID + LINE_CELLS[li, i + 1]]
            if a >= 0 and b >= 0 and (a - b == 1 or b - a == 1):
                d += 1 if a < STRIDE else -1
    return d


@hot
def evaluate(st: np.ndarray, kv: np.ndarray) -> np.float64:
    """Seat 0's estimate in (-1, 1): the score difference plus half the near runs'
    difference (the catalogue's sketch), scaled."""
    v = st[S_SCORE] - st[S_SCORE + 1] + 0.5 * near_pairs(st)
    return v / (4.0 * (kv[KV_TARGET] + 16) + 80.0)


@batch
def playout(st0: np.ndarray, kv: np.ndarray, code: np.int64, state: np.uint64
            ) -> tuple[np.uint64, np.float64]:
    """Seat 0's result (+1, 0, -1) of the game from ``st0`` played out by two ``code``
    players (``st0`` unchanged)."""
    st = st0.copy()
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(SCRATCH, dtype=np.int64)
    tmp = np.zeros(MAX_RUNS, dtype=np.int64)
    while st[S_OVER] == 0:
        state, mv = choose_fast(code, st, kv, state, moves, scratch)
        if mv < 0:
            mark_stuck(st)
            break
        apply_move(st, kv, mv, tmp)
    w = winner_of(st, kv)
    return state, (0.0 if w < 0 else (1.0 if w == 0 else -1.0))


@hot
def mark_stuck(st: np.ndarray) -> None:
    """No legal move (the no-undo rule could forbid every turn): the game stops, drawn."""
    st[S_OVER] = 1
    st[S_END] = END_NO_MOVE


class PoussePousseSearch:
    """The protocol ``simlab.mechanics.minimax.PerfectInfoGame``: states are the rules'
    int64 arrays, moves the rules' move ints."""

    def __init__(self, kv: np.ndarray, seat_kv: np.ndarray) -> None:
        self.kv = kv
        self.rollout = RANDOM if seat_kv[KV_ROLLOUT_RANDOM] else HEURISTIC
        self._moves = np.zeros(MAX_MOVES, dtype=np.int64)
        self._scratch = np.zeros(SCRATCH, dtype=np.int64)
        self._tmp = np.zeros(MAX_RUNS, dtype=np.int64)

    def moves(self, state: np.ndarray) -> list[int]:
        n = gen_moves(state, self.kv, self._moves, self._scratch)
        return self._moves[:n].tolist()

    def play(self, state: np.ndarray, move: int) -> np.ndarray:
        st = state.copy()
        apply_move(st, self.kv, move, self._tmp)
        if st[S_OVER] == 0 and gen_moves(st, self.kv, self._moves, self._scratch) == 0:
            mark_stuck(st)
        return st

    def to_move(self, state: np.ndarray) -> int:
        return int(state[S_TO_MOVE])

    def over(self, state: np.ndarray) -> bool:
        return bool(state[S_OVER])

    def result(self, state: np.ndarray) -> float:
        w = winner_of(state, self.kv)
        return 0.0 if w < 0 else (1.0 if w == 0 else -1.0)

    def evaluate(self, state: np.ndarray) -> float:
        return float(evaluate(state, self.kv))

    def key(self, state: np.ndarray) -> bytes:
        return state.tobytes()

    def order(self, state: np.ndarray, moves: list[int]) -> list[float]:
        if building(state):
            return [float(line_value(state, m % CELLS, m // CELLS, self.kv)) for m in moves]
        out = np.zeros(len(moves), dtype=np.float64)
        turn_values(state, self.kv, np.array(moves, dtype=np.int64), out, self._scratch)
        return out.tolist()

    def playout(self, state: np.ndarray, gen: np.random.Generator) -> float:
        _, v = playout(state, self.kv, self.rollout, np.uint64(gen.integers(0, 2**63)))
        return float(v)
