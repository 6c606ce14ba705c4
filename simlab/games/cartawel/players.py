"""Le cartawel players.

* ``random``: a uniform legal move. Laying: a card of the hand and a legal position;
  sowing: a pile holding one's suit and a uniformly random order of its cards (any of the
  k! orders the rules allow).
* ``heuristic`` (the catalogue's sketch, kept cheap): laying — the first cards (alone on
  an empty position) are one's lowest, on a random empty position; afterwards one's
  highest card goes onto the pile holding the most opponent points whose strongest card
  it beats (it protects them: a tie or a stronger card blocks his capture there, and a
  later sowing of that pile is one's own), else one's lowest card onto a random legal
  pile. Sowing — the move capturing the most points among the candidate orders (below),
  ties at random.
* ``minimax``: alpha-beta to ``minimax_depth`` plies (``simlab.mechanics.minimax``) over
  the candidate moves, evaluation = captured points difference + half the best capture
  the player to move has now (while laying: half the difference of both seats' best
  capture were the sowing to start now).
* ``mcts``: UCT (``simlab.mechanics.mcts``) with ``mcts_iterations`` iterations and
  ``mcts_playouts`` playouts per node, playouts by the heuristic (or random) players.

Candidate orders (the searching players and the heuristic): a pile of k cards has k!
orders; the players consider every order up to 3 cards (``sow_orders=all``: up to 5),
and above that, for each card sown last, the greedy order — walking back from the last
pile, one's cheapest card that makes the pile capturable, else the lowest-valued card.
Only the order relative to the capture tests matters for this move's captures, so the
candidates keep every capture the move can make; they drop orders that differ only in
where the non-capturing cards go.

Each seat reads its own knob row (``seat_kv``; ``minimax:minimax_depth=4``).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import policy_name
from simlab.games.cartawel.rules import (
    KV_ALL_LAYS,
    KV_ALL_ORDERS,
    KV_FIG_PTS,
    KV_LAY_CAP,
    KV_POS,
    KV_PROTECT,
    KV_ROLLOUT_RANDOM,
    LAY,
    M_CARDS,
    M_K,
    M_KIND,
    M_POS,
    MOVE_LEN,
    N_CARDS,
    N_KEY,
    RANKS,
    S_HAND,
    S_LAID,
    S_OVER,
    S_PILE,
    S_TO_MOVE,
    SOW,
    apply_move,
    capturable,
    final_points,
    lay_legal,
    laying,
    mask_points,
    next_pos,
    owner,
    points,
    popcount,
    seat_mask,
    sow_gain,
    strength,
    winner_of,
)

RANDOM, HEURISTIC, MINIMAX, MCTS = range(4)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "minimax": MINIMAX, "mcts": MCTS}
STRONG = (MINIMAX, MCTS)
MAX_MOVES = 4096
FULL_ORDERS_K = 3
ALL_ORDERS_K = 5
EVAL_SCALE = 4.0 * 268.0
W_CARDS, W_ORDER, W_TARGETS, W_PILES, WORK_ROWS = range(5)  # rows of the ``work`` scratch
WORK_LEN = 64


def policy_codes(policies: tuple[str, ...]) -> np.ndarray:
    """This game's own player codes (``POLICY_CODES``)."""
    if len(policies) != 2:
        raise SimlabError(f"cartawel needs 2 policies, got {len(policies)}")
    try:
        return np.array([POLICY_CODES[policy_name(s)] for s in policies], dtype=np.int64)
    except KeyError as e:
        raise SimlabError(f"unknown policy {e.args[0]!r} for cartawel; valid policies: "
                          f"{', '.join(POLICY_CODES)}") from None


# --- move generation ------------------------------------------------------------------
@hot
def pile_cards(m: np.int64, out: np.ndarray) -> np.int64:
    k = 0
    for c in range(N_CARDS):
        if (m >> c) & 1:
            out[k] = c
            k += 1
    return k


@hot
def factorial(n: np.int64) -> np.int64:
    f = 1
    for i in range(2, n + 1):
        f *= i
    return f


@hot
def nth_order(cards: np.ndarray, k: np.int64, idx: np.int64, out: np.ndarray) -> None:
    """The ``idx``-th of the k! orders of ``cards[:k]`` (Lehmer code)."""
    used = 0
    f = factorial(k)
    for i in range(k):
        f //= k - i
        j = idx // f
        idx %= f
        for t in range(k):
            if (used >> t) & 1 == 0:
                if j == 0:
                    out[i] = cards[t]
                    used |= 1 << t
                    break
                j -= 1


@hot
def greedy_order(st: np.ndarray, kv: np.ndarray, q: np.int64, cards: np.ndarray,
                 k: np.int64, last: np.int64, out: np.ndarray, targets: np.ndarray) -> None:
    """Card ``cards[last]`` sown last; walking back, one's cheapest card that makes the
    pile capturable, else the lowest-valued card (an opponent's first on equal value)."""
    seat = st[S_TO_MOVE]
    p = q
    for i in range(k):
        p = next_pos(p, q, kv)
        targets[i] = p
    left = ((np.int64(1) << k) - 1) & ~(np.int64(1) << last)
    out[k - 1] = cards[last]
    for i in range(k - 2, -1, -1):
        t = targets[i]
        base = st[S_PILE + t] if t != q else 0
        best = -1
        best_s = 1 << 30
        for j in range(k):
            if (left >> j) & 1 and owner(cards[j]) == seat:
                if capturable(base | (np.int64(1) << cards[j]), seat, kv):
                    s = strength(cards[j], 1)
                    if s < best_s:
                        best_s = s
                        best = j
        if best < 0:
            best_v = 1 << 30
            for j in range(k):
                if (left >> j) & 1:
                    v = 2 * points(cards[j], kv[KV_FIG_PTS]) + (owner(cards[j]) == seat)
                    if v < best_v:
                        best_v = v
                        best = j
        out[i] = cards[best]
        left &= ~(np.int64(1) << best)


@hot
def lay_candidate(hand: np.int64, c: np.int64) -> bool:
    """The cards the searching players consider laying (``lay_cards=candidates``): the
    lowest and the highest card of the hand, the lowest figure or Ace (20 points), and
    the highest pip card."""
    lo = -1
    hi = -1
    lo_fig = -1
    hi_pip = -1
    for x in range(N_CARDS):
        if (hand >> x) & 1:
            r = x % RANKS
            if lo < 0:
                lo = x
            hi = x
            if r >= 9 and lo_fig < 0:
                lo_fig = x
            if r <= 8:
                hi_pip = x
    return c == lo or c == hi or c == lo_fig or c == hi_pip


@hot
def gen_moves(st: np.ndarray, kv: np.ndarray, all_orders: np.int64, moves: np.ndarray,
              work: np.ndarray) -> np.int64:
    """The candidate moves in ``moves`` (``work``: scratch [WORK_ROWS, WORK_LEN]). Laying:
    every legal lay (``all_orders`` & 2: only the candidate cards); sowing: the candidate
    orders (``all_orders`` & 1: every order up to 5 cards)."""
    seat = st[S_TO_MOVE]
    n = 0
    if st[S_OVER] != 0:
        return 0
    if laying(st):
        hand = st[S_HAND + seat]
        for c in range(N_CARDS):
            if (hand >> c) & 1 and ((all_orders & 2) == 0 or lay_candidate(hand, c)):
                for q in range(kv[KV_POS]):
                    if lay_legal(st, kv, c, q):
                        moves[n, M_KIND] = LAY
                        moves[n, M_POS] = q
                        moves[n, M_K] = 1
                        moves[n, M_CARDS] = c
                        n += 1
        return n
    cards = work[W_CARDS]
    order = work[W_ORDER]
    full_k = ALL_ORDERS_K if (all_orders & 1) != 0 else FULL_ORDERS_K
    mine = seat_mask(seat)
    for q in range(kv[KV_POS]):
        m = st[S_PILE + q]
        if m & mine == 0:
            continue
        k = pile_cards(m, cards)
        if k <= full_k:
            for idx in range(factorial(k)):
                nth_order(cards, k, idx, order)
                n = put_sow(moves, n, q, order, k)
        else:
            for last in range(k):
                greedy_order(st, kv, q, cards, k, last, order, work[W_TARGETS])
                n = put_sow(moves, n, q, order, k)
    return n


@hot
def put_sow(moves: np.ndarray, n: np.int64, q: np.int64, order: np.ndarray, k: np.int64
            ) -> np.int64:
    moves[n, M_KIND] = SOW
    moves[n, M_POS] = q
    moves[n, M_K] = k
    for i in range(k):
        moves[n, M_CARDS + i] = order[i]
    return n + 1


@hot
def move_gains(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: np.int64,
               out: np.ndarray, work: np.ndarray) -> np.int64:
    """Each move's capture (0 for a lay); returns the largest."""
    piles = work[W_PILES]
    best = 0
    for i in range(n):
        g = 0
        if moves[i, M_KIND] == SOW:
            g = sow_gain(st, kv, moves[i], piles)
        out[i] = g
        if g > best:
            best = g
    return best


@hot
def best_capture(st: np.ndarray, kv: np.ndarray, seat: np.int64, moves: np.ndarray,
                 gains: np.ndarray, work: np.ndarray) -> np.int64:
    """The most points ``seat`` could capture in one sowing move from the current piles
    (as if it were his turn to sow)."""
    keep_seat = st[S_TO_MOVE]
    keep_h0 = st[S_HAND]
    keep_h1 = st[S_HAND + 1]
    st[S_TO_MOVE] = seat
    st[S_HAND] = 0
    st[S_HAND + 1] = 0
    n = gen_moves(st, kv, 0, moves, work)
    best = move_gains(st, kv, moves, n, gains, work)
    st[S_TO_MOVE] = keep_seat
    st[S_HAND] = keep_h0
    st[S_HAND + 1] = keep_h1
    return best


@hot
def evaluate(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, gains: np.ndarray,
             work: np.ndarray) -> np.float64:
    """Seat 0's estimate in (-1, 1): the captured points difference, plus half the best
    capture of the player to move (while laying: half the difference of both seats'
    best capture, were the sowing to start now)."""
    d = np.float64(final_points(st, kv, 0) - final_points(st, kv, 1))
    if laying(st):
        d += 0.5 * (best_capture(st, kv, 0, moves, gains, work)
                    - best_capture(st, kv, 1, moves, gains, work))
    else:
        seat = st[S_TO_MOVE]
        t = best_capture(st, kv, seat, moves, gains, work)
        d += 0.5 * t if seat == 0 else -0.5 * t
    return d / EVAL_SCALE


# --- random and heuristic choices -----------------------------------------------------
@hot
def random_move(st: np.ndarray, kv: np.ndarray, state: np.uint64, mv: np.ndarray,
                cards: np.ndarray) -> np.uint64:
    """A uniform legal lay (card, then position), or a uniform pile and order."""
    seat = st[S_TO_MOVE]
    if laying(st):
        k = pile_cards(st[S_HAND + seat], cards)
        state, j = rng.below(state, k)
        c = cards[j]
        n_ok = 0
        for q in range(kv[KV_POS]):
            if lay_legal(st, kv, c, q):
                n_ok += 1
        state, j = rng.below(state, n_ok)
        for q in range(kv[KV_POS]):
            if lay_legal(st, kv, c, q):
                if j == 0:
                    mv[M_KIND] = LAY
                    mv[M_POS] = q
                    mv[M_K] = 1
                    mv[M_CARDS] = c
                    break
                j -= 1
        return state
    mine = seat_mask(seat)
    n_ok = 0
    for q in range(kv[KV_POS]):
        if st[S_PILE + q] & mine:
            n_ok += 1
    state, j = rng.below(state, n_ok)
    for q in range(kv[KV_POS]):
        if st[S_PILE + q] & mine:
            if j == 0:
                k = pile_cards(st[S_PILE + q], cards)
                state = rng.shuffle(state, cards, k)
                mv[M_KIND] = SOW
                mv[M_POS] = q
                mv[M_K] = k
                for i in range(k):
                    mv[M_CARDS + i] = cards[i]
                break
            j -= 1
    return state


@hot
def heuristic_lay(st: np.ndarray, kv: np.ndarray, state: np.uint64, mv: np.ndarray
                  ) -> np.uint64:
    seat = st[S_TO_MOVE]
    hand = st[S_HAND + seat]
    lo = -1
    hi = -1
    for c in range(N_CARDS):
        if (hand >> c) & 1:
            if lo < 0 or strength(c, 1) < strength(lo, 1):
                lo = c
            if hi < 0 or strength(c, 1) > strength(hi, 1):
                hi = c
    mv[M_KIND] = LAY
    mv[M_K] = 1
    if st[S_LAID] >= kv[KV_POS] and kv[KV_PROTECT] != 0:
        # protect the pile holding the most opponent points that my highest card tops
        best_q = -1
        best_v = 0
        theirs = seat_mask(1 - seat)
        for q in range(kv[KV_POS]):
            m = st[S_PILE + q]
            if popcount(m) < kv[KV_LAY_CAP] and m & theirs:
                v = mask_points(m & theirs, kv[KV_FIG_PTS])
                top = -2
                for c in range(N_CARDS):
                    if (m >> c) & 1 and strength(c, 1) > top:
                        top = strength(c, 1)
                if strength(hi, 1) > top and v > best_v:
                    best_v = v
                    best_q = q
        if best_q >= 0:
            mv[M_POS] = best_q
            mv[M_CARDS] = hi
            return state
    n_ok = 0
    for q in range(kv[KV_POS]):
        if lay_legal(st, kv, lo, q):
            n_ok += 1
    state, j = rng.below(state, n_ok)
    for q in range(kv[KV_POS]):
        if lay_legal(st, kv, lo, q):
            if j == 0:
                mv[M_POS] = q
                mv[M_CARDS] = lo
                break
            j -= 1
    return state


@hot
def heuristic_move(st: np.ndarray, kv: np.ndarray, state: np.uint64, mv: np.ndarray,
                   moves: np.ndarray, gains: np.ndarray, work: np.ndarray) -> np.uint64:
    if laying(st):
        return heuristic_lay(st, kv, state, mv)
    n = gen_moves(st, kv, 0, moves, work)
    best = move_gains(st, kv, moves, n, gains, work)
    ties = 0
    pick = 0
    for i in range(n):
        if gains[i] == best:
            ties += 1
            state, j = rng.below(state, ties)  # reservoir: uniform among the best
            if j == 0:
                pick = i
    for i in range(MOVE_LEN):
        mv[i] = moves[pick, i]
    return state


@hot
def choose_fast(code: np.int64, st: np.ndarray, kv: np.ndarray, state: np.uint64,
                mv: np.ndarray, moves: np.ndarray, gains: np.ndarray, work: np.ndarray
                ) -> np.uint64:
    """The random or the heuristic player's move into ``mv``."""
    if code == HEURISTIC:
        return heuristic_move(st, kv, state, mv, moves, gains, work)
    return random_move(st, kv, state, mv, work[W_CARDS])


@batch
def playout(st0: np.ndarray, kv: np.ndarray, code: np.int64, state: np.uint64
            ) -> tuple[np.uint64, np.float64]:
    """Seat 0's result (+1, 0, -1) of the game from ``st0`` played out by two ``code``
    players (``st0`` unchanged)."""
    st = st0.copy()
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
    gains = np.zeros(MAX_MOVES, dtype=np.int64)
    work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
    while st[S_OVER] == 0:
        state = choose_fast(code, st, kv, state, mv, moves, gains, work)
        apply_move(st, kv, mv)
    w = winner_of(st, kv)
    return state, (0.0 if w < 0 else (1.0 if w == 0 else -1.0))


# --- the searching players (simlab.mechanics) ------------------------------------------
class CartawelSearch:
    """The protocol ``simlab.mechanics.minimax.PerfectInfoGame`` for one seat's knobs:
    states are the rules' int64 arrays, moves the bytes of ``[kind, position, k, cards...]``
    (int64; cheap to hash and compare)."""

    def __init__(self, kv: np.ndarray, seat_kv: np.ndarray) -> None:
        self.kv = kv
        self.all_orders = int(seat_kv[KV_ALL_ORDERS]) | (0 if seat_kv[KV_ALL_LAYS] else 2)
        self.rollout = RANDOM if seat_kv[KV_ROLLOUT_RANDOM] else HEURISTIC
        self._moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
        self._gains = np.zeros(MAX_MOVES, dtype=np.int64)
        self._work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
        self._cache: dict[bytes, list[tuple]] = {}

    def moves(self, state: np.ndarray) -> list[bytes]:
        key = state[:N_KEY].tobytes()
        got = self._cache.get(key)
        if got is None:
            n = gen_moves(state, self.kv, self.all_orders, self._moves, self._work)
            got = [self._moves[i, :M_CARDS + self._moves[i, M_K]].tobytes() for i in range(n)]
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[key] = got
        return got

    def play(self, state: np.ndarray, move: bytes) -> np.ndarray:
        st = state.copy()
        apply_move(st, self.kv, np.frombuffer(move, dtype=np.int64))
        return st

    def to_move(self, state: np.ndarray) -> int:
        return int(state[S_TO_MOVE])

    def over(self, state: np.ndarray) -> bool:
        return bool(state[S_OVER])

    def result(self, state: np.ndarray) -> float:
        w = winner_of(state, self.kv)
        return 0.0 if w < 0 else (1.0 if w == 0 else -1.0)

    def evaluate(self, state: np.ndarray) -> float:
        return float(evaluate(state, self.kv, self._moves, self._gains, self._work))

    def key(self, state: np.ndarray) -> bytes:
        return state[:N_KEY].tobytes()

    def order(self, state: np.ndarray, moves: list[bytes]) -> list[float]:
        if laying(state):
            return [0.0] * len(moves)
        arr = np.zeros((len(moves), MOVE_LEN), dtype=np.int64)
        for i, m in enumerate(moves):
            row = np.frombuffer(m, dtype=np.int64)
            arr[i, :len(row)] = row
        gains = np.zeros(len(moves), dtype=np.int64)
        move_gains(state, self.kv, arr, len(moves), gains, self._work)
        return gains.tolist()

    def playout(self, state: np.ndarray, gen: np.random.Generator) -> float:
        seed = np.uint64(gen.integers(0, 2**63))
        _, v = playout(state, self.kv, self.rollout, seed)
        return float(v)
