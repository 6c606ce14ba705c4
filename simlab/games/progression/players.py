"""Progression players: the heuristic, the random player, what a seat sees, the worlds
consistent with it and the search player (``--policy search``).

Every policy chooses among ``rules.legal_moves`` and the kernels play the choice with
``rules.apply_move``, so the real game and the search's playouts follow one code path.

The heuristic (catalogue "Heuristic policy"):

* place: the legal card and cell that most shorten one's own race to the arrival, the
  race being a pawn's *potential* — the fewest cards it must walk over the road to a card
  plus that card's grid distance to the arrival (a lower bound of the steps left). The
  road is shared, so a card that brings the opponent as close counts against it:
  ``1000 x mine - block_weight x 1000 x his``, the smallest wins (first in move order on
  ties); ``block_weight`` 0 is a pure road builder;
* pawn: step to the neighbouring card of least potential when it is lower than here
  (``pawn_wait``: not from a junction before the arrival is linked);
* discard: a card that fits nowhere on the field now, among those the one with fewest
  placed relatives (same suit +-1, same rank), lowest id on ties.

What a seat sees: its hand, the field, the talon's top card, where its own discards lie
in the discards and the talon. Hidden: the opponent's hand, the talon below its top card,
the opponent's discards, the arrival card (out of play). A world deals the cards not
seen into those places at random (the seat's memory of which cards the opponent drew
face up is not used: fewer constraints, never a peek).

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) decides the
placement among the heuristic's ``search_candidates`` best and the pawn move among all:
in ``search_worlds`` worlds it plays each candidate out to the end with heuristic players
and keeps the best mean result (+1000 won, -1000 lost, plus the final margin in grid
steps), replacing the heuristic's choice only when the gain exceeds ``search_caution``
standard errors. Discards are the heuristic's.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.progression.rules import (
    ALONG,
    DIRS,
    K_BLOCK_MILLI,
    K_CANDIDATES,
    K_CAUTION_MILLI,
    K_ENTRY,
    K_PAWN_WAIT,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    NC,
    P_DISCARD,
    P_DONE,
    P_PAWN,
    P_PLACE,
    PASS,
    S_ARR,
    S_ARR_CARD,
    S_DBY,
    S_DISC,
    S_DISC_N,
    S_GRID,
    S_HAND,
    S_LINKED,
    S_OKH,
    S_OKV,
    S_PAWN,
    S_PHASE,
    S_PL,
    S_PL_N,
    S_PLACED,
    S_PLY,
    S_TALON,
    S_TALON_N,
    S_TO_MOVE,
    S_TOUCH,
    S_WINNER,
    SAME_RANK,
    STAY,
    apply_move,
    circulating,
    copy_state,
    fitting,
    legal_moves,
    lowest_bit,
    manhattan,
    popcount,
)
from simlab.mechanics import search

BIG = 1 << 40


@batch
def player_work() -> tuple:
    """Scratch arrays of the players (one set per batch kernel): legal moves, scores,
    candidates, summed values, summed squared gains, values, the playout state, the world,
    the hidden cards, two distance planes over cells (-1), a queue, a potential plane,
    summed squared gains, a second queue."""
    dist = np.full(NC, -1, dtype=np.int64)
    dist2 = np.full(NC, -1, dtype=np.int64)
    sim = np.zeros(N_STATE, dtype=np.int64)
    sim[S_GRID:S_GRID + NC] = -1
    world = sim.copy()
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.float64), np.zeros(MAX_MOVES, dtype=np.int64),
            sim, world,
            np.zeros(N_CARDS + 8, dtype=np.int64), dist, dist2,
            np.zeros(N_CARDS + 8, dtype=np.int64), np.zeros(NC, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(N_CARDS + 8, dtype=np.int64))


# --- distances over the road -------------------------------------------------------------
@hot
def road_bfs(st: np.ndarray, src: np.int64, dist: np.ndarray, queue: np.ndarray) -> np.int64:
    """Cards walked from ``src`` to every placed card (``dist``; the road is connected:
    every card touches an earlier one). Returns the cells visited (in ``queue``)."""
    n = 1
    head = 0
    queue[0] = src
    dist[src] = 0
    while head < n:
        c = queue[head]
        head += 1
        for d in range(4):
            nb = c + DIRS[d]
            if dist[nb] < 0 and st[S_GRID + nb] >= 0:
                dist[nb] = dist[c] + 1
                queue[n] = nb
                n += 1
    return n


@hot
def reset(dist: np.ndarray, queue: np.ndarray, n: np.int64) -> None:
    for i in range(n):
        dist[queue[i]] = -1


@hot
def race(st: np.ndarray, dist: np.ndarray, queue: np.ndarray, n: np.int64) -> np.int64:
    """A pawn's potential: min over the road of cards walked + grid steps left."""
    arr = st[S_ARR]
    best = BIG
    for i in range(n):
        c = queue[i]
        v = dist[c] + manhattan(c, arr)
        if v < best:
            best = v
    return best


@hot
def place_scores(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: np.int64,
                 scores: np.ndarray, work: tuple) -> None:
    """Each placement's heuristic score (lower is better)."""
    dist, dist2, queue, q2 = work[9], work[10], work[11], work[14]
    p = st[S_TO_MOVE]
    arr = st[S_ARR]
    n0 = road_bfs(st, st[S_PAWN + p], dist, queue)
    mine = race(st, dist, queue, n0)
    n1 = road_bfs(st, st[S_PAWN + 1 - p], dist2, q2)
    his = race(st, dist2, q2, n1)
    bw = kv[K_BLOCK_MILLI]
    for i in range(n):
        mv = moves[i]
        if mv == PASS:
            scores[i] = 1000 * mine - bw * his + 1
            continue
        c = mv // 104
        a = BIG
        b = BIG
        for d in range(4):
            nb = c + DIRS[d]
            if st[S_GRID + nb] >= 0:
                if dist[nb] >= 0 and dist[nb] + 1 < a:
                    a = dist[nb] + 1
                if dist2[nb] >= 0 and dist2[nb] + 1 < b:
                    b = dist2[nb] + 1
        h = manhattan(c, arr)
        new_mine = min(mine, a + h)
        new_his = min(his, b + h)
        scores[i] = 1000 * new_mine - bw * new_his
    reset(dist, queue, n0)
    reset(dist2, q2, n1)


@hot
def best_index(scores: np.ndarray, n: np.int64) -> np.int64:
    b = 0
    for i in range(1, n):
        if scores[i] < scores[b]:
            b = i
    return b


@hot
def potentials(st: np.ndarray, kv: np.ndarray, pot: np.ndarray) -> None:
    """``pot`` at every placed card: the fewest cards a pawn there must still walk, or
    walk and have placed, to reach the arrival — a card beside the arrival counts 1 (the
    step onto it), a card beside a live empty cell (one some card in play would fit)
    counts 1 + that cell's grid steps to the arrival, and a pawn walks the rest (relaxed
    to a fixed point over the road). Dead ends count as far as their way out; a road
    with no live cell left leaves ``BIG``."""
    arr = st[S_ARR]
    npl = st[S_PL_N]
    live = circulating(st)
    for i in range(npl):
        c = st[S_PL + i]
        v = BIG
        if c == arr:
            v = 0
        for d in range(4):
            nb = c + DIRS[d]
            if nb == arr and kv[K_ENTRY] == 0:
                v = min(v, 1)
            elif st[S_GRID + nb] < 0 and st[S_TOUCH + nb] == 1 and \
                    (st[S_OKH + nb] | st[S_OKV + nb]) & live != 0:
                v = min(v, 1 + manhattan(nb, arr))
        pot[c] = v
    changed = True
    while changed:
        changed = False
        for i in range(npl):
            c = st[S_PL + i]
            for d in range(4):
                nb = c + DIRS[d]
                if st[S_GRID + nb] >= 0 and pot[nb] + 1 < pot[c]:
                    pot[c] = pot[nb] + 1
                    changed = True


@hot
def pawn_choice(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: np.int64,
                work: tuple) -> np.int64:
    """The heuristic's pawn move among ``moves[:n]`` (``STAY`` first)."""
    arr = st[S_ARR]
    for i in range(1, n):
        if moves[i] == arr:
            return arr
    if n <= 1:
        return STAY
    p = st[S_TO_MOVE]
    here = st[S_PAWN + p]
    if kv[K_PAWN_WAIT] and st[S_LINKED] == 0:
        around = 0
        for d in range(4):
            if st[S_GRID + here + DIRS[d]] >= 0:
                around += 1
        if around >= 3:
            return STAY
    pot = work[12]
    potentials(st, kv, pot)
    best = STAY
    best_v = pot[here]
    for i in range(1, n):
        t = moves[i]
        if pot[t] < best_v:
            best_v = pot[t]
            best = t
    return best


@hot
def discard_choice(st: np.ndarray) -> np.int64:
    p = st[S_TO_MOVE]
    hand = st[S_HAND + p]
    fits = fitting(st)
    placed = st[S_PLACED]
    best = -1
    best_keep = BIG
    m = hand
    while m != 0:
        c = lowest_bit(m)
        m &= m - 1
        keep = 100 * ((fits >> c) & 1) + popcount((ALONG[c] | SAME_RANK[c]) & placed)
        if keep < best_keep:
            best_keep = keep
            best = c
    return best


@hot
def heuristic_move(st: np.ndarray, kv: np.ndarray, work: tuple) -> np.int64:
    moves, scores = work[0], work[1]
    ph = st[S_PHASE]
    if ph == P_DISCARD:
        return discard_choice(st)
    n = legal_moves(st, kv, moves, work[9])
    if ph == P_PAWN:
        return pawn_choice(st, kv, moves, n, work)
    if n == 1:
        return moves[0]
    place_scores(st, kv, moves, n, scores, work)
    return moves[best_index(scores, n)]


@hot
def random_move(st: np.ndarray, kv: np.ndarray, state: np.uint64, work: tuple
                ) -> tuple[np.uint64, np.int64]:
    moves = work[0]
    n = legal_moves(st, kv, moves, work[9])
    state, k = rng.below(state, n)
    return state, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, work: tuple) -> None:
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, work), kv)


# --- what a seat sees, and worlds consistent with it -------------------------------------
@hot
def seen_by(st: np.ndarray, seat: np.int64) -> np.int64:
    """Cards ``seat`` knows the place of: its hand, the field, the talon's top card, its
    own discards still in the discards or the talon."""
    m = st[S_HAND + seat] | st[S_PLACED]
    nt = st[S_TALON_N]
    if nt > 0:
        m |= np.int64(1) << st[S_TALON + nt - 1]
    for i in range(nt):
        c = st[S_TALON + i]
        if st[S_DBY + c] == seat:
            m |= np.int64(1) << c
    for i in range(st[S_DISC_N]):
        c = st[S_DISC + i]
        if st[S_DBY + c] == seat:
            m |= np.int64(1) << c
    return m


@hot
def sample_world(st: np.ndarray, seat: np.int64, state: np.uint64, world: np.ndarray,
                 cards: np.ndarray, slots: np.ndarray) -> np.uint64:
    """``world`` = ``st`` with the cards ``seat`` has not seen dealt again at random into
    the places hidden from it (the opponent's hand, the talon below its top, the
    opponent's discards, the arrival card), listed in ascending id before the shuffle so
    the world depends only on what the seat sees and the stream. A re-dealt card keeps
    the public history of its place (who discarded there)."""
    copy_state(st, world)
    hidden = ((np.int64(1) << N_CARDS) - 1) & ~seen_by(st, seat)
    n = 0
    m = hidden
    while m != 0:
        cards[n] = lowest_bit(m)
        m &= m - 1
        n += 1
    state = rng.shuffle(state, cards, n)
    opp = 1 - seat
    k = 0
    # the opponent's hand: as many cards as he holds
    h = np.int64(0)
    for _ in range(popcount(st[S_HAND + opp])):
        h |= np.int64(1) << cards[k]
        world[S_DBY + cards[k]] = -1
        k += 1
    world[S_HAND + opp] = h
    nt = st[S_TALON_N]
    for i in range(nt - 1):
        c = st[S_TALON + i]
        if st[S_DBY + c] != seat:
            slots[0] = st[S_DBY + c]
            world[S_TALON + i] = cards[k]
            world[S_DBY + cards[k]] = slots[0]
            k += 1
    for i in range(st[S_DISC_N]):
        c = st[S_DISC + i]
        if st[S_DBY + c] != seat:
            slots[0] = st[S_DBY + c]
            world[S_DISC + i] = cards[k]
            world[S_DBY + cards[k]] = slots[0]
            k += 1
    world[S_ARR_CARD] = cards[k]
    world[S_DBY + cards[k]] = -1
    return state


# --- the search player -------------------------------------------------------------------
@hot
def outcome_value(sim: np.ndarray, seat: np.int64) -> np.int64:
    from_winner = 0
    w = sim[S_WINNER]
    if w == seat:
        from_winner = 1000
    elif w == 1 - seat:
        from_winner = -1000
    arr = sim[S_ARR]
    return from_winner + manhattan(sim[S_PAWN + 1 - seat], arr) - \
        manhattan(sim[S_PAWN + seat], arr)


@hot
def search_move(st: np.ndarray, kv: np.ndarray, seed: np.uint64, index: np.int64,
                sub: np.int64, work: tuple) -> np.int64:
    """The search player's move for the seat to move (see the module docstring)."""
    moves, scores, cand, totals, sc, vals, sim, world, cards = (
        work[0], work[1], work[2], work[3], work[4], work[5], work[6], work[7], work[8])
    squares = work[13]
    ph = st[S_PHASE]
    if ph == P_DISCARD:
        return discard_choice(st)
    n = legal_moves(st, kv, moves, work[9])
    if n <= 1:
        return moves[0]
    seat = st[S_TO_MOVE]
    if ph == P_PLACE:
        place_scores(st, kv, moves, n, scores, work)
        k = min(n, kv[K_CANDIDATES])
        # the k best by score, the heuristic's first (selection, stable)
        for j in range(k):
            b = -1
            for i in range(n):
                if scores[i] < BIG and (b < 0 or scores[i] < scores[b]):
                    b = i
            cand[j] = moves[b]
            scores[b] = BIG
    else:
        h = pawn_choice(st, kv, moves, n, work)
        k = n
        cand[0] = h
        j = 1
        for i in range(n):
            if moves[i] != h:
                cand[j] = moves[i]
                j += 1
    if k <= 1:
        return cand[0]
    for j in range(k):
        totals[j] = 0
        vals[j] = 0
    for j in range(k):
        squares[j] = 0
    state = search.decision_stream(seed, index, sub, seat, st[S_PLY])
    worlds = kv[K_WORLDS]
    for _ in range(worlds):
        state = sample_world(st, seat, state, world, cards, work[11])
        for j in range(k):
            copy_state(world, sim)
            apply_move(sim, cand[j], kv)
            playout(sim, kv, work)
            vals[j] = outcome_value(sim, seat)
        for j in range(k):
            totals[j] += vals[j]
            squares[j] += (vals[j] - vals[0]) * (vals[j] - vals[0])
    caution = kv[K_CAUTION_MILLI] / 1000.0
    sc[0] = 0.0
    for j in range(1, k):
        gain = (totals[j] - totals[0]) / worlds
        var = 0.0
        if worlds > 1:
            var = max(squares[j] / worlds - gain * gain, 0.0) * worlds / (worlds - 1)
        sc[j] = gain - caution * np.sqrt(var / worlds)
    b = 0
    for j in range(1, k):
        if sc[j] > sc[b]:
            b = j
    return cand[b]
