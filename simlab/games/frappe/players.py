"""Frappe: the players. Each picks a move of ``rules.py`` (``legal_moves`` /
``apply_move``); none changes a rule.

* ``heuristic_move``: scores every legal card by playing it on a copy of the state
  (``rules.play_card``: the card's own effect, never the next round's cards) — points
  marked now by both seats, plus ``card_weight`` per card won — and corrects what the
  card leaves to chance from the seat's view (the unseen cards: the opponent's hand and
  the pack): a card that stays may be struck, a frappe may be counter-struck (or answered
  by the seat's own pénitence), a contre-frappe may meet a pénitence, and the table left
  offers the opponent its best capture (``exposure_weight``), each by the chance the
  opponent holds the rank (``opp_holds``: the unseen cards, sharpened by his
  announcement and the cards he has played this round). The catalogue's
  priorities come out of these numbers: pénitence, contre-frappe, the best strike or
  sweep, the largest capture, en place, then the card least likely to be struck. The
  dealer's extension timing is the knob ``extension_timing``.
* ``random_move``: uniform over the legal moves.
* ``sample_world``: the cards hidden from a seat (the opponent's hand, the pack's order)
  dealt anew consistently with what it sees: its hand, the table, both won piles, the
  cards each seat played this round, hand sizes, and the opponent's announcement of this
  round (pair / brelan / nothing), by rejection, which keeps the world uniform among the
  consistent deals.
* ``search_move``: determinized search (``simlab.mechanics.search``): in each sampled world every
  legal move is played out to the end of the deal by heuristic players; the move with the
  best total (points in the deal minus the opponent's, +-100 for a pénitence or reaching
  the match target) wins, the heuristic's own move on ties. It covers the extension
  timing and every card.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM
from simlab.engine.jit import batch, hot
from simlab.games.frappe.rules import (
    ANN_NONE,
    ANN_PAIR,
    ANN_TRIPS,
    EXT_SIZE,
    EXT_TURN,
    EXT_WAIT,
    HAND,
    K_QUAD,
    K_TRIPLE,
    M_HAND,
    M_PEND,
    M_PILE,
    M_PLAYED,
    M_ROUND,
    M_TABLE,
    MAX_MOVES,
    N_CARDS,
    N_M,
    N_RANKS,
    N_ROUNDS,
    N_S,
    PH_EXT,
    PH_OVER,
    PP_CARD_W,
    PP_EXPOSURE,
    PP_PEN_COST,
    PP_THRESHOLD,
    PP_TIMING,
    RANK_OF,
    S_ANN0,
    S_COUNTER_RANK,
    S_COUNTER_SEAT,
    S_DEALER,
    S_DECISIONS,
    S_DECK_POS,
    S_EXT_RANDOM,
    S_EXT_ROUND,
    S_PEN_WINS,
    S_PEND_RANK,
    S_PEND_SEAT,
    S_PEND_SWEEP,
    S_PENITENCE,
    S_PHASE,
    S_PREV_STAYED,
    S_ROUND,
    S_TURN,
    apply_move,
    capture_set,
    copy_state,
    hand_type,
    legal_moves,
    outcome,
    pair_value,
    play_card,
    points,
    rank_count,
    to_move,
    unseen_of,
)
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, bit, lowest, popcount

TIMING_EXPECTED, TIMING_FIRST, TIMING_LAST, TIMING_RANDOM = 0, 1, 2, 3
SEARCH_BONUS = 100  # a pénitence or the match target, in the search's outcome
MAX_TRIES = 1_000_000  # rejection sampling of the opponent's hand (the truth always fits)


# --- what the seat can estimate ------------------------------------------------------------
@hot
def p_holds(n_unseen: int, u: int, h: int) -> float:
    """Probability that ``h`` cards drawn from ``n_unseen`` include one of ``u`` given
    cards (hypergeometric: 1 - C(n - u, h) / C(n, h))."""
    if h <= 0 or u <= 0:
        return 0.0
    q = 1.0
    for i in range(h):
        if n_unseen - i <= 0:
            return 1.0
        q *= max(0.0, (n_unseen - u - i) / (n_unseen - i))
    return 1.0 - q


@hot
def opp_holds(st: np.ndarray, mk: np.ndarray, o: int, r: int, unseen: np.uint64,
              n_unseen: int, h: int) -> float:
    """Probability that the ``h`` cards seat ``o`` has left this round include rank ``r``,
    from the unseen cards and what his announcement says with the cards he has played
    this round: nothing announced and an ``r`` played, no other; a pair played, no third;
    a pair announced and two ranks played, his last card pairs one of them; a brelan, the
    rank he played. Otherwise the hypergeometric ``p_holds``."""
    u = rank_count(unseen, r)
    if h <= 0 or u == 0:
        return 0.0
    played = mk[M_PLAYED + o]
    n_played = popcount(played)
    ann = st[S_ANN0 + o]
    if ann == ANN_NONE and rank_count(played, r) > 0:
        return 0.0
    if ann == ANN_PAIR and n_played == 2:
        t, pr = hand_type(played)
        if t == ANN_PAIR:
            return 0.0 if r == pr else p_holds(n_unseen, u, h)
        x = RANK_OF[lowest(played)]
        y = RANK_OF[lowest(played & (played - np.uint64(1)))]
        if r != x and r != y:
            return 0.0
        both = rank_count(unseen, x) + rank_count(unseen, y)
        return u / both if both > 0 else 0.0
    if ann == ANN_TRIPS and n_played > 0:
        return 1.0 if r == RANK_OF[lowest(played)] else 0.0
    return p_holds(n_unseen, u, h)


@hot
def _comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    v = 1.0
    for i in range(k):
        v = v * (n - i) / (i + 1)
    return v


@hot
def expected_multiples(unseen: np.uint64, table: np.uint64, kv: np.ndarray) -> float:
    """The extension's expected multiple points if turned now, from the dealer's view: its
    4 cards drawn uniformly from the cards he has not seen (hypergeometric by rank)."""
    n = popcount(unseen)
    total = _comb(n, EXT_SIZE)
    if total <= 0.0:
        return 0.0
    e = 0.0
    for r in range(N_RANKS):
        u = rank_count(unseen, r)
        t = rank_count(table, r)
        for k in range(1, min(u, EXT_SIZE) + 1):
            m = k + t
            if m < 2:
                continue
            mult = 1 if m == 2 else kv[K_TRIPLE] if m == 3 else kv[K_QUAD]
            e += _comb(u, k) * _comb(n - u, EXT_SIZE - k) / total * pair_value(r, kv) * mult
    return e


# --- heuristic and random players ------------------------------------------------------------
@batch
def heuristic_work() -> tuple:
    """Scratch of ``heuristic_move``: a state copy (st, mk) and a move list."""
    return (np.zeros(N_S, dtype=np.int64), np.zeros(N_M, dtype=np.uint64),
            np.zeros(MAX_MOVES, dtype=np.int64))


@hot
def extension_decision(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, pp: np.ndarray) -> int:
    """The heuristic dealer's extension timing (knob ``extension_timing``)."""
    timing = int(pp[PP_TIMING])
    if timing == TIMING_FIRST:
        return EXT_TURN
    if timing == TIMING_LAST:
        return EXT_WAIT
    if timing == TIMING_RANDOM:
        return EXT_TURN if st[S_ROUND] >= st[S_EXT_RANDOM] else EXT_WAIT
    dealer = st[S_DEALER]
    e = expected_multiples(unseen_of(mk, dealer), mk[M_TABLE], kv)
    return EXT_TURN if e >= pp[PP_THRESHOLD] else EXT_WAIT


@hot
def move_value(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, pp: np.ndarray, move: int,
               st2: np.ndarray, mk2: np.ndarray) -> float:
    """The heuristic's worth of a card for the seat to move (see the module docstring).
    Reads the seat's hand and public cards only."""
    p = st[S_TURN]
    o = 1 - p
    w = pp[PP_CARD_W]
    pen = pp[PP_PEN_COST]
    for i in range(N_S):
        st2[i] = st[i]
    for i in range(N_M):
        mk2[i] = mk[i]
    play_card(st2, mk2, kv, move)
    if st2[S_PENITENCE] == p and st2[S_PEN_WINS]:
        return 1e9
    if not st[S_PEN_WINS]:
        pen = 0.0  # a pénitence only ends the deal: its points are counted as they are
    v = float((points(st2, p) - points(st, p)) - (points(st2, o) - points(st, o)))
    v += w * ((popcount(mk2[M_PILE + p]) - popcount(mk[M_PILE + p]))
              - (popcount(mk2[M_PILE + o]) - popcount(mk[M_PILE + o])))
    unseen = unseen_of(mk, p)
    n_unseen = popcount(unseen)
    h_o = popcount(mk[M_HAND + o])  # hand sizes are public
    if st2[S_PEND_SEAT] == p:  # my frappe waits for the opponent's next card
        r = st2[S_PEND_RANK]
        val = pair_value(r, kv)
        n = popcount(mk2[M_PEND])
        sweep = st2[S_PEND_SWEEP]
        q = opp_holds(st, mk, o, r, unseen, n_unseen, h_o)
        v += (1.0 - q) * (val + sweep + w * n) - q * (kv[K_TRIPLE] * val + sweep + w * (n + 1))
        if rank_count(mk2[M_HAND + p], r) > 0:  # a contre-frappe would meet my pénitence
            v += q * pen
    elif st2[S_PREV_STAYED] == move >> 1:  # my card stays on the table
        r = move >> 1
        same_round = h_o > 0
        q = opp_holds(st, mk, o, r, unseen, n_unseen, h_o) if same_round else \
            p_holds(n_unseen, rank_count(unseen, r), HAND)
        taken, last = capture_set(mk2[M_TABLE], r, kv)
        loss = w * (popcount(taken) + 1)
        if same_round:
            loss += pair_value(r, kv)  # the frappe
        if taken == mk2[M_TABLE]:
            loss += pair_value(last, kv)  # and the sweep
        v -= q * loss
    if pp[PP_EXPOSURE] > 0.0 and st2[S_PEND_SEAT] != p:
        # what the table left to the opponent is worth to him: his best capture (its
        # cards and sweep), by the chance he holds its rank
        table = mk2[M_TABLE]
        best = 0.0
        for r in range(N_RANKS):
            if rank_count(table, r) == 0 or (st2[S_PREV_STAYED] == r and r == move >> 1):
                continue
            taken, last = capture_set(table, r, kv)
            gain = w * (popcount(taken) + 1)
            if taken == table:
                gain += pair_value(last, kv)
            q = opp_holds(st, mk, o, r, unseen, n_unseen, h_o) if h_o > 0 else \
                p_holds(n_unseen, rank_count(unseen, r), HAND)
            best = max(best, q * gain)
        v -= pp[PP_EXPOSURE] * best
    if st2[S_COUNTER_SEAT] == p:  # my contre-frappe: the striker may hold the fourth card
        r = st2[S_COUNTER_RANK]
        v -= opp_holds(st, mk, o, r, unseen, n_unseen, h_o) * pen
    return v



@hot
def heuristic_move(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, pp: np.ndarray,
                   hw: tuple) -> int:
    """The heuristic's move for the seat ``to_move``; ties go to the lower rank."""
    if st[S_PHASE] == PH_EXT:
        return extension_decision(st, mk, kv, pp)
    st2, mk2, moves = hw
    nm = legal_moves(st, mk, kv, moves)
    if nm == 1:
        return moves[0]
    best = moves[0]
    best_v = -1e18
    for i in range(nm):
        v = move_value(st, mk, kv, pp, moves[i], st2, mk2)
        if v > best_v + 1e-9:
            best_v = v
            best = moves[i]
    return best


@hot
def random_move(state: np.uint64, st: np.ndarray, mk: np.ndarray, kv: np.ndarray,
                moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves, from the deal's POLICY stream ``state``."""
    nm = legal_moves(st, mk, kv, moves)
    if nm == 1:
        return state, moves[0]
    state, i = rng.below(state, nm)
    return state, moves[i]


@hot
def playout(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray, pp: np.ndarray,
            hw: tuple) -> None:
    """Play the deal to its end with heuristic players at both seats."""
    while st[S_PHASE] != PH_OVER:
        apply_move(st, mk, dk, kv, heuristic_move(st, mk, kv, pp, hw))


# --- worlds and the search player -------------------------------------------------------------
@batch
def search_work() -> tuple:
    """Work arrays of one search seat: a world (st, mk, dk), a rollout's state, the
    heuristic's scratch, the hidden-card pool, the legal moves and their totals."""
    world = (np.zeros(N_S, dtype=np.int64), np.zeros(N_M, dtype=np.uint64),
             np.zeros(N_CARDS, dtype=np.int64))
    roll = (np.zeros(N_S, dtype=np.int64), np.zeros(N_M, dtype=np.uint64),
            np.zeros(N_CARDS, dtype=np.int64))
    pool = np.zeros(N_CARDS, dtype=np.int64)
    mv = np.zeros((2, MAX_MOVES), dtype=np.int64)
    return world, roll, heuristic_work(), pool, mv


@hot
def sample_world(state: np.uint64, st: np.ndarray, mk: np.ndarray, dk: np.ndarray,
                 seat: int, world: tuple, pool: np.ndarray) -> tuple[np.uint64, bool]:
    """A world for ``seat``: the state copied into ``world`` with the opponent's hand and
    the pack's order dealt anew from the cards the seat has not seen (canonical order:
    ascending ids, so the true deal cannot show through). The opponent's hand is a
    uniform draw of its size, redrawn until his whole round hand (with the cards he has
    played this round) matches his announcement; the rest, shuffled, is the pack. The
    dealer's private 'random' extension round is redrawn for the non-dealer."""
    wst, wmk, wdk = world
    copy_state(st, mk, dk, wst, wmk, wdk)
    o = 1 - seat
    hidden = unseen_of(mk, seat)
    nu = 0
    m = hidden
    while m != EMPTY:
        pool[nu] = lowest(m)
        m &= m - np.uint64(1)
        nu += 1
    h = popcount(mk[M_HAND + o])
    pos = st[S_DECK_POS]
    if nu - h != N_CARDS - pos:
        return state, False
    played = mk[M_PLAYED + o]
    ann = st[S_ANN0 + o]
    ok = False
    hand = EMPTY
    for _ in range(MAX_TRIES):
        hand = EMPTY
        for i in range(h):
            state, j = rng.below(state, nu - i)
            t = pool[i]
            pool[i] = pool[i + j]
            pool[i + j] = t
            hand |= bit(pool[i])
        if hand_type(played | hand)[0] == ann:
            ok = True
            break
    if not ok:
        return state, False
    wmk[M_HAND + o] = hand
    wmk[M_ROUND + o] = played | hand
    rest = pool[h:nu]
    state = rng.shuffle(state, rest, nu - h)
    for i in range(nu - h):
        wdk[pos + i] = rest[i]
    if seat != st[S_DEALER] and st[S_EXT_ROUND] < 0 and st[S_ROUND] < N_ROUNDS - 1:
        # the truth is uniform over the rounds after this one (this one was declined)
        state, k = rng.below(state, N_ROUNDS - 1 - st[S_ROUND])
        wst[S_EXT_RANDOM] = st[S_ROUND] + 1 + k
    return state, True


@hot
def _reshuffle_pack(state: np.uint64, st: np.ndarray, dk: np.ndarray) -> np.uint64:
    pos = st[S_DECK_POS]
    return rng.shuffle(state, dk[pos:N_CARDS], N_CARDS - pos)


@hot
def search_move(seed: np.uint64, index: int, sub: int, st: np.ndarray, mk: np.ndarray,
                dk: np.ndarray, kv: np.ndarray, pp: np.ndarray, n_worlds: int,
                n_rollouts: int, sw: tuple) -> int:
    """The search player's move for the seat ``to_move`` (deal ``index``, deal ``sub`` of
    a match, run ``seed``). A forced move is made at once. Otherwise each legal move is
    applied in ``n_worlds`` worlds and played out by heuristic players, ``n_rollouts``
    times (each after the first on a reshuffled pack: the chance left after the
    decision); the best total wins, the heuristic's move on ties."""
    world, roll, hw, pool, mv = sw
    wst, wmk, wdk = world
    rst, rmk, rdk = roll
    moves, total = mv[0], mv[1]
    seat = to_move(st)
    nm = legal_moves(st, mk, kv, moves)
    if nm == 1:
        return moves[0]
    h = heuristic_move(st, mk, kv, pp, hw)
    hi = 0
    for i in range(nm):
        total[i] = 0
        if moves[i] == h:
            hi = i
    state = search.decision_stream(seed, index, sub, seat, st[S_DECISIONS])
    for _ in range(n_worlds):
        state, ok = sample_world(state, st, mk, dk, seat, world, pool)
        if not ok:  # cannot happen: the true deal is consistent with the seat's view
            return h
        for i in range(nm):
            for k in range(n_rollouts):
                copy_state(wst, wmk, wdk, rst, rmk, rdk)
                if k > 0:
                    state = _reshuffle_pack(state, rst, rdk)
                apply_move(rst, rmk, rdk, kv, moves[i])
                playout(rst, rmk, rdk, kv, pp, hw)
                total[i] += outcome(rst, seat, SEARCH_BONUS)
    best = search.best_move(total, nm)
    if total[hi] == total[best]:
        best = hi
    return moves[best]


@hot
def choose(pol: int, policy_state: np.uint64, seed: np.uint64, index: int, sub: int,
           st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray, pp: np.ndarray,
           n_worlds: int, n_rollouts: int, sw: tuple) -> tuple[np.uint64, int]:
    """The move of the seat to move under its policy ``pol`` (RANDOM draws from the deal's
    POLICY stream; SEARCH uses its own streams). Returns (policy state, move)."""
    if pol == HEURISTIC:
        return policy_state, heuristic_move(st, mk, kv, pp, sw[2])
    if pol == RANDOM:
        return random_move(policy_state, st, mk, kv, sw[2][2])
    return policy_state, search_move(seed, index, sub, st, mk, dk, kv, pp, n_worlds,
                                     n_rollouts, sw)
