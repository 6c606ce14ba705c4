"""Bésigue players: the heuristic, the random player, what a seat sees, the worlds
consistent with it, and the search player (``--policy search``).

Every policy chooses among ``rules.legal_moves`` and the kernels apply the choice with
``rules.apply_move``: the real deal, the search's playouts and the heuristic follow one
code path.

Heuristic (catalogue "Heuristic policies"):

* declarations: the highest-scoring declaration now, a suspended meld (seed 5.1)
  included (preferred on equal points: it dies when one of its cards is played); between
  equal ones, the suit with the most sequence material fixes trump; then, scoring as much
  now, the lay that suspends the most points for later (crossed melds, several Bésigues
  at once: catalogue "lay crossed melds together when that lets you bank several");
  never pass when something scores;
* the least useful card (``keep_value``): 7, 8, 9 off trump are worth nothing; Bésigue
  cards, trumps, K/Q pairs, Aces and 10s and cards of a standing meld are kept; a tabled
  card no meld covers blocks the clean-table rule and goes first;
* draw phase (knob ``chase_melds``): play the card whose trick, if won, opens the best
  declaration (``declaration_after``: a tabled card played away lets a broken four or
  sequence be re-formed, or unblocks the clean-table rule); a reply plays it only when it
  wins the trick and is not a key card; otherwise shed the least useful card;
* end phase: win with the cheapest winning card, else throw the cheapest; lead the
  cheapest non-trump card, keeping trumps for the last trick;
* brisques request: exact — the player knows his own brisques and the opponent's (all
  10s and Aces are in the tricks: the opponent's are the rest), so he asks only when
  counting them raises his own result.

Search (determinized, ``simlab/mechanics/search.py``): at a decision with more than one move it
samples ``search_worlds`` worlds — the cards it cannot see (the opponent's cards in hand
and the stock, in a random order) dealt again from the unseen multiset: the deck less
its own cards, the opponent's tabled melds (public, seed 5.1) and every card played —
plays each move out to the end of the deal with heuristic players and keeps the move
with the best summed (own marks - opponent's marks). The opponent's hand size and the
stock count are public; so are the melds laid and which of them are suspended (announced
when laid, seed 5.1): the worlds keep them. It never reads a hidden card. It searches
every decision of the deal ``search_budget`` gives worlds to: the end phase with one world
(nothing is hidden any more), the draw phase with ``search_worlds`` once the stock holds
at most ``search_stock`` cards (default 12: the last six turns), and before that, the
early draw phase where most melds are won, ``search_draw_worlds`` (``gated_search_move``:
its best move replaces the heuristic's only when clearly better). That budget is 0 by
default, the heuristic deciding there, because measured it does not pay (issue 32,
duplicate against the heuristic, seed 0: +265 [+171, +359] points a deal with 0, n = 300;
1 world, plain best: -1433 [-1569, -1298], n = 300; 2 worlds gated at 1 standard error:
-953 [-1267, -639]; 4 worlds gated at 1.5: -321 [-635, -7], n = 100; 8 worlds gated at
2: +433 [+8, +857], n = 60, and against the default search +225 [-176, +626], n = 60, not
a clear gain; one search seat plays 135 deals/s with 0, 7.0 with 1 world, 1.6 with 4,
0.7 with 8, on one core): a deal's marks swing by thousands (the Rubicon, the Bésigue
ladder) and the early playouts are the longest, so a few worlds measure noise. Known
simplification: a hand shown for "cartes blanches" is not remembered (the worlds are
then wider than the seat's knowledge, never narrower). The brisques request needs no search (exact rule above).
"""

from __future__ import annotations

import math

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.besigue.rules import (
    HMAX,
    JACK_DIAMONDS,
    K_CHASE,
    K_COPIES,
    K_DRAW_MARGIN,
    K_DRAW_WORLDS,
    K_ROLLOUTS,
    K_SEARCH_STOCK,
    K_WORLDS,
    M_BES,
    M_CAR,
    M_CLAIM,
    M_CROSS,
    M_MAR,
    M_PASS,
    M_SEQ,
    MAX_MOVES,
    MAXM,
    N_DECLARE,
    N_STATE,
    N_TYPES,
    NO,
    P_DECLARE,
    P_DONE,
    P_FOLLOW,
    P_LEAD,
    P_REQUEST,
    QUEEN_SPADES,
    R10,
    REQUEST,
    RK,
    RQ,
    S_DECK,
    S_END_PHASE,
    S_GONE,
    S_LED,
    S_MARKS,
    S_N_CARDS,
    S_PHASE,
    S_PLY,
    S_STOCK_POS,
    S_TO_MOVE,
    S_TRUMP,
    S_TY,
    STRENGTH,
    apply_move,
    beats,
    claim_points,
    claimable,
    covered,
    ladder_above,
    legal_moves,
    meld_cards,
    meld_points,
    outcome_of,
    rank_of,
    remove_card,
    stock_left,
    suit_of,
    tabled,
    ty,
)
from simlab.mechanics import search

# --- the heuristic ---------------------------------------------------------------------------
# by rank 7, 8, 9, 10, J, Q, K, A: 7-9 are worth nothing to a Bésigue player; J Q K make
# melds; 10s and Aces are brisques and sequence cards
KEEP_BASE = np.array([0, 0, 0, 4, 2, 3, 3, 5], dtype=np.int64)


@hot
def keep_value(state: np.ndarray, p: int, i: int) -> int:
    """How much seat p wants to keep slot i (draw phase): meld material and brisques."""
    t = ty(state, p, i)
    r = rank_of(t)
    s = suit_of(t)
    trump = state[S_TRUMP]
    if tabled(state, p, i) and not covered(state, p, i):
        return -10  # blocks the next declaration (clean-table rule): shed it
    v = KEEP_BASE[r]
    if trump >= 0 and s == trump:
        v += 4 if r != 0 and r != 1 and r != 2 else 1
    if t == QUEEN_SPADES or t == JACK_DIAMONDS:
        v += 8
    if r == RK or r == RQ:  # half of a marriage held
        other = s * 8 + (RQ if r == RK else RK)
        for x in range(HMAX):
            if ty(state, p, x) == other:
                v += 3
                break
    if r >= 3:  # J, Q, K, 10, A: several of a rank build toward a four
        same = 0
        for x in range(HMAX):
            y = ty(state, p, x)
            if y >= 0 and rank_of(y) == r:
                same += 1
        if same >= 3 and r != R10:
            v += 2 * (same - 2)
    if tabled(state, p, i):
        v += 3  # part of a standing meld: the ladder and crossings build on it
    return v


@hot
def best_declaration(state: np.ndarray, p: int, kv: np.ndarray) -> tuple[int, int]:
    """(move, points) of the best declaration or suspended meld seat p can score now
    ((M_PASS, 0) if none). Equal points: a suspended meld, else the suit with the most
    J Q K 10 A (sequence material) when it fixes trump."""
    best = M_PASS
    best_pts = 0
    best_tie = -1
    for code in range(1, M_SEQ + 4):
        if meld_cards(state, p, code, kv) < 0:
            continue
        pts = meld_points(state, p, code, kv)
        tie = 0
        if state[S_TRUMP] < 0 and (code < M_MAR + 8 or code >= M_SEQ):
            s = (code - M_MAR) // 2 if code < M_SEQ else code - M_SEQ
            for x in range(HMAX):
                y = ty(state, p, x)
                if y >= 0 and suit_of(y) == s and rank_of(y) >= 3:
                    tie += 1
        if pts > best_pts or (pts == best_pts and tie > best_tie):
            best = code
            best_pts = pts
            best_tie = tie
    for j in range(MAXM):
        if claimable(state, p, j):
            pts = claim_points(state, p, j, kv)
            if pts >= best_pts and pts > 0:
                best = M_CLAIM + j
                best_pts = pts
    return best, best_pts


@hot
def choose_declaration(state: np.ndarray, p: int, kv: np.ndarray, moves: np.ndarray) -> int:
    """The heuristic's declaration: ``best_declaration``'s points now, then the most
    points suspended for later (a crossed pair's second meld, the Bésigue rungs above)."""
    best, pts = best_declaration(state, p, kv)
    if best == M_PASS:
        return best
    later = ladder_above(state, p, best, kv) if best < M_CLAIM else 0
    n = legal_moves(state, kv, moves)
    for k in range(n):
        m = moves[k]
        if m >= M_CROSS:
            a = (m - M_CROSS) // N_DECLARE
            if meld_points(state, p, a, kv) != pts:
                continue
            v = meld_points(state, p, (m - M_CROSS) % N_DECLARE, kv) + ladder_above(state, p, a, kv)
        elif m > M_BES and m < M_CAR and meld_points(state, p, m, kv) == pts:
            v = ladder_above(state, p, m, kv)
        else:
            continue
        if v > later:
            best = m
            later = v
    return best


@hot
def request_gain(state: np.ndarray, kv: np.ndarray) -> int:
    """The seat to move's (own marks - opponent's marks) with the brisques counted minus
    without: positive when asking pays."""
    p = state[S_TO_MOVE]
    w1, pts1, _, _ = outcome_of(state, True, kv)
    w0, pts0, _, _ = outcome_of(state, False, kv)
    return (pts1 if w1 == p else -pts1) - (pts0 if w0 == p else -pts0)


@hot
def cheapest(state: np.ndarray, p: int, moves: np.ndarray, n: int, winning: int) -> int:
    """``cheapest_of`` restricted to non-winning cards when ``winning`` is -1, falling
    back to any card when every card wins (not recursive: numba's cache dislikes it)."""
    c = cheapest_of(state, p, moves, n, winning)
    if c < 0 and winning == -1:
        return cheapest_of(state, p, moves, n, 0)
    return c


@hot
def cheapest_of(state: np.ndarray, p: int, moves: np.ndarray, n: int, winning: int) -> int:
    """Among card moves: the lowest keep_value (draw phase) or strength (end phase, trumps
    last); ``winning``: 1 only cards that beat the led card, 0 any, -1 only cards that do
    not beat it (when there is none, any)."""
    best = -1
    best_v = 1 << 30
    end = state[S_END_PHASE] != 0
    trump = state[S_TRUMP]
    for k in range(n):
        i = moves[k]
        t = ty(state, p, i)
        if winning != 0 and state[S_LED] >= 0:
            w = beats(t, state[S_LED], trump)
            if (winning == 1) != w:
                continue
        if end:
            v = STRENGTH[rank_of(t)] + (8 if suit_of(t) == trump else 0)
        else:
            v = keep_value(state, p, i) * 16 + STRENGTH[rank_of(t)]
        if v < best_v:
            best_v = v
            best = i
    return best


@hot
def declaration_after(state: np.ndarray, p: int, i: int, kv: np.ndarray,
                      scratch: np.ndarray) -> int:
    """Points of the best declaration seat p could make after playing slot i and winning
    the trick (the winner declares before drawing, seed 10.1). Playing a tabled card can
    open a declaration: a broken four or sequence may be re-formed with a copy from the
    hand ("il faut avoir enlevé un membre du Carré pour pouvoir ensuite le reformer",
    10.2), and a stray tabled card stops blocking the clean-table rule."""
    for x in range(S_DECK):  # the stock is not read
        scratch[x] = state[x]
    remove_card(scratch, p, i)
    return best_declaration(scratch, p, kv)[1]


@hot
def after(state: np.ndarray, p: int, i: int, now: int, kv: np.ndarray,
          scratch: np.ndarray) -> int:
    """``declaration_after`` knowing ``now``, the best declaration before the play: a
    card from the hand can only take options away (nothing at all when nothing scores
    now, nothing when it is a 7, 8 or 9, which no meld uses)."""
    if not tabled(state, p, i):
        t = ty(state, p, i)
        if now == 0 or rank_of(t) < R10:
            return now
        for x in range(HMAX):  # an identical copy in hand stands in for it
            if x != i and ty(state, p, x) == t and not tabled(state, p, x):
                return now
    return declaration_after(state, p, i, kv, scratch)


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, moves: np.ndarray,
                   scratch: np.ndarray) -> int:
    """The heuristic's move (module docstring); ``scratch``: a state-sized work array."""
    p = state[S_TO_MOVE]
    ph = state[S_PHASE]
    if ph == P_DECLARE:
        return choose_declaration(state, p, kv, moves)
    if ph == P_REQUEST:
        return REQUEST if request_gain(state, kv) > 0 else NO
    n = legal_moves(state, kv, moves)
    if state[S_END_PHASE]:
        if ph == P_LEAD:
            return cheapest(state, p, moves, n, 0)
        c = cheapest(state, p, moves, n, 1)
        return c if c >= 0 else cheapest(state, p, moves, n, 0)
    if not kv[K_CHASE]:  # meld-blind: shed the least useful card
        return cheapest(state, p, moves, n, -1 if ph == P_FOLLOW else 0)
    # draw phase: the card whose trick, if won, opens the best declaration; a lead
    # hopes to win (the follower may not beat it), a reply only plays a winning card
    best = -1
    best_v = 0
    now = best_declaration(state, p, kv)[1]
    for k in range(n):
        i = moves[k]
        if ph == P_FOLLOW and not beats(ty(state, p, i), state[S_LED], state[S_TRUMP]):
            continue
        g = after(state, p, i, now, kv, scratch)
        if g <= 0:
            continue
        keep = keep_value(state, p, i)
        if ph == P_FOLLOW and keep >= 8 and g < 100:
            continue  # not worth a key card
        v = g * 16 - keep
        if best < 0 or v > best_v:
            best = i
            best_v = v
    if best >= 0 and ph == P_FOLLOW:
        return best
    c = cheapest(state, p, moves, n, -1 if ph == P_FOLLOW else 0)
    if best >= 0 and after(state, p, c, now, kv, scratch) * 16 - keep_value(state, p, c) < best_v:
        return best  # a lead that opens more than the cheapest card would
    return c


@hot
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, moves: np.ndarray
                ) -> tuple[np.uint64, int]:
    """Uniform over the legal moves (cards, declarations with pass, the request)."""
    n = legal_moves(state, kv, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, moves: np.ndarray, scratch: np.ndarray) -> None:
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, moves, scratch), kv)


# --- what a seat sees, and worlds consistent with it -------------------------------------------
@hot
def unseen_counts(state: np.ndarray, seat: int, kv: np.ndarray, unseen: np.ndarray) -> int:
    """Per card type, the copies ``seat`` cannot see: the deck less its own cards, the
    opponent's tabled cards (public) and the cards played (public: the current trick's led
    card included). Returns their number = the opponent's hidden cards + the stock."""
    for t in range(N_TYPES):
        unseen[t] = kv[K_COPIES] - state[S_GONE + t]
    for p in range(2):
        for i in range(HMAX):
            t = ty(state, p, i)
            if t >= 0 and (p == seat or tabled(state, p, i)):
                unseen[t] -= 1
    n = 0
    for t in range(N_TYPES):
        n += unseen[t]
    return n


@hot
def sample_world(state: np.ndarray, seat: int, st: np.uint64, kv: np.ndarray,
                 world: np.ndarray, cards: np.ndarray, unseen: np.ndarray) -> np.uint64:
    """``world`` = ``state`` with the opponent's untabled cards and the stock dealt again
    at random from the cards ``seat`` cannot see (listed in type order, then shuffled with
    the seat's own stream: the result depends only on what the seat sees)."""
    for i in range(N_STATE):
        world[i] = state[i]
    n = unseen_counts(state, seat, kv, unseen)
    k = 0
    for t in range(N_TYPES):
        for _ in range(unseen[t]):
            cards[k] = t
            k += 1
    st = rng.shuffle(st, cards, n)
    q = 1 - seat
    k = 0
    for i in range(HMAX):
        if ty(state, q, i) >= 0 and not tabled(state, q, i):
            world[S_TY + q * HMAX + i] = cards[k]
            k += 1
    for pos in range(state[S_STOCK_POS], state[S_N_CARDS]):
        world[S_DECK + pos] = cards[k]
        k += 1
    return st


@batch
def search_work() -> tuple:
    """Preallocated arrays of ``search_move`` (one set per batch kernel): moves, totals,
    playout moves, the playout state, unseen cards, unseen counts, the heuristic's
    scratch state, and for ``gated_search_move`` each move's sum of squared gains and
    its value in the current world."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(N_STATE, dtype=np.int64),
            np.zeros(192, dtype=np.int64), np.zeros(N_TYPES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64))


@hot
def search_values(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                  world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal moves and ``work[1]`` with each one's summed
    (own marks - opponent's) over the worlds; returns the number of moves."""
    moves, totals, pmoves, sim, cards, unseen, scratch, _, _ = work
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    worlds = search_budget(state, kv)
    for _ in range(worlds):
        st = sample_world(state, seat, st, kv, world, cards, unseen)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv)
                playout(sim, kv, pmoves, scratch)
                totals[m] += sim[S_MARKS + seat] - sim[S_MARKS + 1 - seat]
    return n


@hot
def search_budget(state: np.ndarray, kv: np.ndarray) -> int:
    """Worlds the search samples at this decision: one in the end phase (nothing is
    hidden any more: the opponent holds exactly the unseen cards), ``search_worlds`` in
    the draw phase once the stock holds at most ``search_stock`` cards,
    ``search_draw_worlds`` before that (0: the heuristic decides); 0 for the brisques
    request (the heuristic's rule is exact: everything it depends on is known)."""
    if state[S_PHASE] == P_REQUEST:
        return 0
    if state[S_END_PHASE]:
        return 1
    if stock_left(state) > kv[K_SEARCH_STOCK]:
        return kv[K_DRAW_WORLDS]
    return kv[K_WORLDS]


@hot
def gated_search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int,
                      sub: int, world: np.ndarray, work: tuple) -> int:
    """The search's move in the early draw phase: every legal move played out in
    ``search_draw_worlds`` worlds (as ``search_values``), and the best one replaces the
    heuristic's move only when its gain over it, paired world by world, has a mean above
    ``search_draw_margin`` standard errors. Why: a deal's marks swing by thousands (the
    Rubicon), and the early playouts are the longest and most varied, so the plain best
    of a few worlds is mostly noise (measured: with one world it lost 1433 points a deal
    to the heuristic, issue 32)."""
    moves, gain, pmoves, sim, cards, unseen, scratch, gain_sq, value = work
    seat = state[S_TO_MOVE]
    h = heuristic_move(state, kv, pmoves, scratch)
    n = legal_moves(state, kv, moves)
    hi = -1
    for m in range(n):
        gain[m] = 0
        gain_sq[m] = 0
        if moves[m] == h:
            hi = m
    if n <= 1 or hi < 0:
        return h
    worlds = kv[K_DRAW_WORLDS]
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    for _ in range(worlds):
        st = sample_world(state, seat, st, kv, world, cards, unseen)
        for m in range(n):
            value[m] = 0
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv)
                playout(sim, kv, pmoves, scratch)
                value[m] += sim[S_MARKS + seat] - sim[S_MARKS + 1 - seat]
        for m in range(n):
            d = value[m] - value[hi]
            gain[m] += d
            gain_sq[m] += d * d
    z = kv[K_DRAW_MARGIN] / 100.0
    best = hi
    for m in range(n):
        if m == hi or gain[m] <= 0 or (best != hi and gain[m] <= gain[best]):
            continue
        if worlds > 1:
            mean = gain[m] / worlds
            var = (gain_sq[m] - gain[m] * mean) / (worlds - 1)
            if mean <= z * math.sqrt(max(var, 0.0) / worlds):
                continue
        elif z > 0:
            continue  # one world gives no standard error: the heuristic's move stands
        best = m
    return moves[best]


@hot
def search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                world: np.ndarray, work: tuple) -> int:
    """The search player's move: ``search_values``' best, in the early draw phase
    ``gated_search_move``'s, or the heuristic's where ``search_budget`` gives no world."""
    if search_budget(state, kv) == 0:
        return heuristic_move(state, kv, work[2], work[6])
    if not state[S_END_PHASE] and stock_left(state) > kv[K_SEARCH_STOCK]:
        return gated_search_move(state, kv, seed, index, sub, world, work)
    n = search_values(state, kv, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]

