"""Loba players: random, heuristic and a determinized search; what a seat sees.

May import: simlab.engine.*, simlab.mechanics.*, simlab.games.loba.rules.

A turn is played by one function per policy (``heuristic_turn``, ``random_turn``,
``search_turn``) out of the moves of ``rules.py``: draw, act (first meld, or new melds and
lay-offs once melded on an earlier turn), discard.

The heuristic (catalogue sketch): take the discard when it brings the first meld closer
(or, once melded, when it fits a meld on the table or joins a pair), lay the first meld as
soon as it is held, then lay every new set (3+ of a rank) and run (4+), lay off every card
that fits (Joker shifts included), and discard the card of most penalty that the first
meld's best cover does not use and that has fewest meld partners, not one that fits a meld
on the table (which would feed the next player).

The search player (``search_turn``) sees only its seat's view: its hand, the table, the
discard pile, every hand's size and the stock's. For its draw (stock or discard), its
first meld (lay now or hold) and its discard (the heuristic's ``search_discards`` best) it
samples ``search_worlds`` worlds (the unseen cards dealt at random to the other hands and
the stock, ``sample_world``), plays each option out with the heuristic for every seat for
``search_horizon`` turns, and keeps the option of least (own penalty - mean of the others'
penalties); a hand not yet melded at the horizon counts its penalty plus 5 points a
missing card. The same worlds serve every option (common random numbers), and the
search leaves the heuristic's choice only for an option better over those worlds by more
than ``search_margin`` standard errors of the paired difference.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.loba.rules import (
    K_DISCARDS,
    K_GO_MELD,
    K_HORIZON,
    K_JLIM,
    K_JOKERS,
    K_JPEN,
    K_MARGIN,
    K_MULTI,
    K_SEARCH_HOLD,
    K_TAKE,
    K_TOP,
    K_TRIES,
    K_WORLDS,
    MAX_CARDS,
    N_KINDS,
    PH_OVER,
    S_DISC_N,
    S_FIRST,
    S_HELD,
    S_MELDED_NOW,
    S_NRUNS,
    S_NSETS,
    S_NTABLE,
    S_PHASE,
    S_PLAYERS,
    S_SEAT,
    S_STOCK_END,
    S_STOCK_POS,
    S_TURN,
    begin_turn,
    can_meld_first,
    card_value,
    check_out,
    copy_state,
    discard,
    distance,
    draw,
    hand_penalty,
    hand_size,
    lay_first,
    lay_off,
    lay_run,
    lay_set,
    new_state,
    round_penalty,
)
from simlab.mechanics.melds import (
    ACE,
    JOKER_KIND,
    N_NAT,
    N_RANKS,
    P_HI,
    P_JPOS,
    P_KEY,
    P_KIND,
    P_LO,
    P_NJ,
    SEQ,
    card_at,
    fits_multi,
)


# --- what fits where ------------------------------------------------------------------------
@hot
def fits_table(S: tuple, kv: np.ndarray, c: int) -> int:
    """The first table meld kind ``c`` can be added to, -1 if none."""
    for i in range(S[0][S_NTABLE]):
        if fits_multi(c, S[4], i, kv[K_JLIM], kv[K_TOP]) >= 0:
            return i
    return -1


@hot
def partners(cnt: np.ndarray, p: int, c: int, multi: bool) -> int:
    """Meld potential of natural ``c`` in seat ``p``'s hand: 2 per other card of its rank,
    2 per run neighbour held, 1 per card two places away."""
    r = c % N_RANKS
    s = c // N_RANKS
    pot = 0
    for t in range(4):
        pot += 2 * cnt[p, t * N_RANKS + r]
    pot -= 2  # c itself
    for d in (-2, -1, 1, 2):
        for k in range(2):
            pc = r + 1 if r != ACE else (0 if k == 0 else 13)
            if k == 1 and r != ACE:
                break
            q = pc + d
            if q < 0 or q > 13:
                continue
            w = 2 if d == -1 or d == 1 else 1
            if multi:
                rr = card_at(0, q) % N_RANKS
                held = 0
                for t in range(4):
                    held += cnt[p, t * N_RANKS + rr]
                if held > 0:
                    pot += w
            elif cnt[p, card_at(s, q)] > 0:
                pot += w
    return pot


@hot
def _need(S: tuple, kv: np.ndarray, X: tuple, n_melds: int) -> None:
    """``X[6]``: the naturals of the seat's hand the cover in ``X[5]`` uses."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    need = X[6]
    plan = X[5]
    multi = kv[K_MULTI] == 1
    need[:] = 0
    for i in range(n_melds):
        if plan[i, P_KIND] != SEQ:
            continue
        for q in range(plan[i, P_LO], plan[i, P_HI] + 1):
            if (plan[i, P_JPOS] >> q) & 1:
                continue
            if multi:
                r = card_at(0, q) % N_RANKS
                for t in range(4):
                    c = t * N_RANKS + r
                    if cnt[p, c] > need[c]:
                        need[c] += 1
                        break
            else:
                c = card_at(plan[i, P_KEY], q)
                if cnt[p, c] > need[c]:
                    need[c] += 1
    for i in range(n_melds):
        if plan[i, P_KIND] == SEQ:
            continue
        r = plan[i, P_KEY]
        want = 3 - plan[i, P_NJ]
        for t in range(4):
            c = t * N_RANKS + r
            while want > 0 and cnt[p, c] > need[c]:
                need[c] += 1
                want -= 1


@hot
def discard_scores(S: tuple, kv: np.ndarray, X: tuple, score: np.ndarray) -> None:
    """``score[c]``: how much the heuristic wants to discard kind ``c`` (-1e9: not held)."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    multi = kv[K_MULTI] == 1
    jpen = kv[K_JPEN]
    melded = st[S_FIRST + p] >= 0
    need = X[6]
    if not melded:
        ns, nr = st[S_NSETS], st[S_NRUNS]
        distance(cnt[p], ns, nr, kv, X, False)
        _need(S, kv, X, ns + nr)
    else:
        need[:] = 0
    n_spare = 0
    for c in range(N_NAT):
        if cnt[p, c] > need[c]:
            n_spare += 1
    for c in range(N_KINDS):
        score[c] = -1e9
        if cnt[p, c] <= 0:
            continue
        if c == JOKER_KIND:
            score[c] = -1e6 if not melded else -1e5  # the last card to let go
            continue
        v = card_value(c, jpen) - 3.0 * partners(cnt, p, c, multi)
        if n_spare > 0 and cnt[p, c] <= need[c]:
            v -= 1000.0  # the first meld's cover uses it
        if fits_table(S, kv, c) >= 0:
            v -= 30.0  # it would feed the next player's lay-offs
        score[c] = v


@hot
def best_discard(S: tuple, kv: np.ndarray, X: tuple, score: np.ndarray) -> int:
    discard_scores(S, kv, X, score)
    best = -1
    for c in range(N_KINDS):
        if score[c] > -1e9 and (best < 0 or score[c] > score[best]):
            best = c
    return best


# --- heuristic ------------------------------------------------------------------------------
@hot
def wants_discard(S: tuple, kv: np.ndarray, seat_kv: np.ndarray, X: tuple) -> bool:
    """Take the discard pile's top card? (the heuristic's draw)"""
    st, cnt, disc = S[0], S[1], S[3]
    if st[S_DISC_N] == 0 or seat_kv[K_TAKE] == 0:
        return False
    p = st[S_SEAT]
    top = disc[st[S_DISC_N] - 1]
    if top == JOKER_KIND:
        return True
    if st[S_FIRST + p] < 0:
        ns, nr = st[S_NSETS], st[S_NRUNS]
        d0 = distance(cnt[p], ns, nr, kv, X, False)
        cnt[p, top] += 1
        d1 = distance(cnt[p], ns, nr, kv, X, False)
        cnt[p, top] -= 1
        return d1 < d0
    if fits_table(S, kv, top) >= 0:
        return True
    r = top % N_RANKS
    held = 0
    for t in range(4):
        held += cnt[p, t * N_RANKS + r]
    return held >= 2


@hot
def keep_count(kv: np.ndarray) -> int:
    """Cards a player must keep while melding (1 when going out needs a discard)."""
    return 0 if kv[K_GO_MELD] == 1 else 1


@hot
def meld_all(S: tuple, kv: np.ndarray) -> None:
    """Once melded on an earlier turn: lay every set of 3+ naturals of a rank, every run of
    4+ held naturals, then lay off every card that fits (Jokers last), keeping a card for
    the discard when the rules want one."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    keep = keep_count(kv)
    multi = kv[K_MULTI] == 1
    top = kv[K_TOP]
    for r in range(N_RANKS):
        n = 0
        for t in range(4):
            n += cnt[p, t * N_RANKS + r]
        if n >= 3 and hand_size(cnt, p) - n >= keep:
            lay_set(S, kv, r, n, 0)
    for s in range(1 if multi else 4):
        q = 0
        while q <= top:
            lo = q
            while q <= top and _held_pos(cnt, p, s, q, multi) and not (lo == 0 and q == 13):
                q += 1
            hi = q - 1
            if hi - lo >= 3 and hand_size(cnt, p) - (hi - lo + 1) >= keep:
                lay_run(S, kv, s, lo, hi, 0)
            if q == lo:
                q += 1
    changed = True
    while changed:
        changed = False
        for c in range(N_NAT):
            while cnt[p, c] > 0 and hand_size(cnt, p) > keep:
                i = fits_table(S, kv, c)
                if i < 0 or not lay_off(S, kv, c, i):
                    break
                changed = True
    while cnt[p, JOKER_KIND] > 0 and hand_size(cnt, p) > keep:
        i = fits_table(S, kv, JOKER_KIND)
        if i < 0 or not lay_off(S, kv, JOKER_KIND, i):
            break
        # a Joker laid may open a place for a natural
        for c in range(N_NAT):
            while cnt[p, c] > 0 and hand_size(cnt, p) > keep:
                j = fits_table(S, kv, c)
                if j < 0 or not lay_off(S, kv, c, j):
                    break


@hot
def _held_pos(cnt: np.ndarray, p: int, s: int, q: int, multi: bool) -> bool:
    if multi:
        r = card_at(0, q) % N_RANKS
        for t in range(4):
            if cnt[p, t * N_RANKS + r] > 0:
                return True
        return False
    return cnt[p, card_at(s, q)] > 0


@hot
def heuristic_act(S: tuple, kv: np.ndarray, X: tuple) -> bool:
    """The heuristic's melds after its draw; returns False when the round ended."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    if st[S_FIRST + p] < 0:
        ns, nr = st[S_NSETS], st[S_NRUNS]
        if can_meld_first(cnt[p], ns, nr, kv, X):
            lay_first(S, kv, X[5], ns + nr)
    else:
        meld_all(S, kv)
    if kv[K_GO_MELD] == 1 and check_out(S, kv):
        return False
    return True


@hot
def heuristic_turn(S: tuple, kv: np.ndarray, seat_kv: np.ndarray, X: tuple,
                   score: np.ndarray) -> None:
    if not begin_turn(S, kv):
        return
    draw(S, wants_discard(S, kv, seat_kv, X))
    if not heuristic_act(S, kv, X):
        return
    discard(S, kv, best_discard(S, kv, X, score))


# --- random ---------------------------------------------------------------------------------
@hot
def random_turn(state: np.uint64, S: tuple, kv: np.ndarray, X: tuple) -> np.uint64:
    """Draw from either pile at random, lay the first meld when held (else no round would
    end), lay off and meld as the heuristic does, discard a card of the hand at random."""
    st, cnt = S[0], S[1]
    if not begin_turn(S, kv):
        return state
    state, coin = rng.below(state, 2)
    draw(S, coin == 1 and st[S_DISC_N] > 0)
    if not heuristic_act(S, kv, X):
        return state
    p = st[S_SEAT]
    n = hand_size(cnt, p)
    state, k = rng.below(state, n)
    for c in range(N_KINDS):
        if k < cnt[p, c]:
            discard(S, kv, c)
            return state
        k -= cnt[p, c]
    return state


# --- what a seat sees, worlds ----------------------------------------------------------------
@hot
def unseen(S: tuple, kv: np.ndarray, p: int, pool: np.ndarray) -> None:
    """``pool[c]``: copies of kind ``c`` seat ``p`` cannot see (the other hands and the
    stock): the pack minus his hand, the table and the discard pile."""
    cnt, disc, tcnt = S[1], S[3], S[5]
    for c in range(N_NAT):
        pool[c] = 2
    pool[JOKER_KIND] = kv[K_JOKERS]
    for c in range(N_KINDS):
        pool[c] -= cnt[p, c] + tcnt[c]
    for i in range(S[0][S_DISC_N]):
        pool[disc[i]] -= 1


@hot
def sample_world(S: tuple, kv: np.ndarray, p: int, state: np.uint64, T: tuple,
                 pool: np.ndarray, buf: np.ndarray, X: tuple, tries: int) -> np.uint64:
    """``T``: ``S`` with the cards seat ``p`` cannot see dealt again at random (each other
    hand keeps its size, the stock its size); a hand not yet melded is the closest to its
    first meld of ``tries`` random hands. Reads only ``p``'s view of ``S``."""
    copy_state(S, T)
    unseen(S, kv, p, pool)
    n = 0
    for c in range(N_KINDS):
        for _ in range(pool[c]):
            buf[n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        state, j = rng.below(state, i + 1)
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
    st, cnt, stock = T[0], T[1], T[2]
    k = 0
    for q in range(st[S_PLAYERS]):
        if q == p:
            continue
        m = hand_size(cnt, q)
        # a player still short of his first meld has kept the cards that serve it: of
        # ``tries`` blocks of the shuffled unseen cards he gets the closest to his meld
        best_b = 0
        if st[S_FIRST + q] < 0 and tries > 1:
            best_d = 1 << 30
            for b in range(tries):
                if k + (b + 1) * m > n:
                    break
                cnt[q, :] = 0
                for i in range(k + b * m, k + (b + 1) * m):
                    cnt[q, buf[i]] += 1
                d = distance(cnt[q], st[S_NSETS], st[S_NRUNS], kv, X, False)
                if d < best_d:
                    best_d = d
                    best_b = b
        for i in range(m):
            t = buf[k + i]
            buf[k + i] = buf[k + best_b * m + i]
            buf[k + best_b * m + i] = t
        cnt[q, :] = 0
        for _ in range(m):
            cnt[q, buf[k]] += 1
            k += 1
    for i in range(st[S_STOCK_POS], st[S_STOCK_END]):
        stock[i] = buf[k]
        k += 1
    state, x = rng.next_u64(state)
    T[6][0] = x
    return state


@hot
def seat_estimate(S: tuple, kv: np.ndarray, q: int, X: tuple) -> float:
    """What seat ``q`` is expected to pay: 0 if he went out, his penalty at the end, else
    (unfinished playout) his hand's penalty plus 5 a card missing from his first meld."""
    st = S[0]
    if st[S_PHASE] == PH_OVER:
        return float(round_penalty(S, kv, q))
    v = float(hand_penalty(S[1][q], kv[K_JPEN]))
    if st[S_FIRST + q] < 0:
        v += 5.0 * distance(S[1][q], st[S_NSETS], st[S_NRUNS], kv, X, False)
    return v


@hot
def playout_value(T: tuple, kv: np.ndarray, p: int, X: tuple, score: np.ndarray,
                  horizon: int) -> float:
    """Heuristic play for every seat from ``T`` (at a turn's start) for ``horizon`` turns;
    seat ``p``'s penalty minus the others' mean (lower is better for ``p``)."""
    st = T[0]
    stop = st[S_TURN] + horizon
    while st[S_PHASE] != PH_OVER and st[S_TURN] < stop:
        heuristic_turn(T, kv, kv, X, score)
    P = st[S_PLAYERS]
    own = seat_estimate(T, kv, p, X)
    others = 0.0
    for q in range(P):
        if q != p:
            others += seat_estimate(T, kv, q, X)
    return own - others / (P - 1)


@batch
def new_search_work() -> tuple:
    """(world state, pool [53], card buffer [108], discard scores [53], candidate kinds
    [53], each option's playout values [16 options, 256 worlds])."""
    return (new_state(), np.zeros(N_KINDS, dtype=np.int64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(N_KINDS, dtype=np.float64), np.zeros(N_KINDS, dtype=np.int64),
            np.zeros((16, 256), dtype=np.float64))


# option codes of the search's decisions
O_STOCK, O_DISCARD, O_LAY, O_HOLD = 0, 1, 2, 3
O_DISCARD_KIND = 10  # + kind


@hot
def _option_value(S: tuple, kv: np.ndarray, seat_kv: np.ndarray, X: tuple, Y: tuple,
                  option: int, seed0: np.uint64, slot: int) -> float:
    """Mean playout value of ``option`` for the seat to move over the sampled worlds; each
    world's value goes to ``Y[5][slot]``."""
    T, pool, buf, score = Y[0], Y[1], Y[2], Y[3]
    p = S[0][S_SEAT]
    state = seed0
    total = 0.0
    W = seat_kv[K_WORLDS]
    for w in range(W):
        state = sample_world(S, kv, p, state, T, pool, buf, X, seat_kv[K_TRIES])
        st = T[0]
        if option == O_STOCK or option == O_DISCARD:
            draw(T, option == O_DISCARD)
            if heuristic_act(T, kv, X):
                discard(T, kv, best_discard(T, kv, X, score))
        elif option == O_LAY or option == O_HOLD:
            if option == O_LAY:
                ns, nr = st[S_NSETS], st[S_NRUNS]
                if can_meld_first(T[1][p], ns, nr, kv, X):
                    lay_first(T, kv, X[5], ns + nr)
                if kv[K_GO_MELD] == 1 and check_out(T, kv):
                    v = playout_value(T, kv, p, X, score, 0)
                    Y[5][slot, w] = v
                    total += v
                    continue
            discard(T, kv, best_discard(T, kv, X, score))
        else:
            discard(T, kv, option - O_DISCARD_KIND)
        v = playout_value(T, kv, p, X, score, seat_kv[K_HORIZON])
        Y[5][slot, w] = v
        total += v
    return total / W


@hot
def _gain(Y: tuple, alt: int, default: int, W: int, z: float) -> float:
    """How much better (lower) option ``alt`` plays than ``default`` over the same worlds,
    when the paired difference is below zero by more than ``z`` standard errors; else 0."""
    vals = Y[5]
    m = 0.0
    m2 = 0.0
    for w in range(W):
        d = vals[alt, w] - vals[default, w]
        m += d
        m2 += d * d
    m /= W
    if W < 2:
        return -m if m < 0 else 0.0
    var = (m2 - W * m * m) / (W - 1)
    se = np.sqrt(max(var, 0.0) / W)
    if m + z * se < 0:
        return -m
    return 0.0


@hot
def search_turn(S: tuple, kv: np.ndarray, seat_kv: np.ndarray, X: tuple, Y: tuple,
                seed: np.uint64, index: int, sub: int) -> None:
    """One turn of the search player (see the module docstring)."""
    st, cnt = S[0], S[1]
    if not begin_turn(S, kv):
        return
    p = st[S_SEAT]
    base = rng.stream(seed, index, sub * 100000 + st[S_TURN], rng.SEARCH)
    # the draw
    W = min(seat_kv[K_WORLDS], 256)
    z = seat_kv[K_MARGIN] / 100.0
    take = wants_discard(S, kv, seat_kv, X)
    if st[S_DISC_N] > 0:
        _option_value(S, kv, seat_kv, X, Y, O_DISCARD if take else O_STOCK, base, 0)
        _option_value(S, kv, seat_kv, X, Y, O_STOCK if take else O_DISCARD, base, 1)
        if _gain(Y, 1, 0, W, z) > 0:
            take = not take
    draw(S, take)
    # the first meld: lay now or hold
    if st[S_FIRST + p] < 0:
        ns, nr = st[S_NSETS], st[S_NRUNS]
        if can_meld_first(cnt[p], ns, nr, kv, X) and seat_kv[K_SEARCH_HOLD] == 0:
            lay_first(S, kv, X[5], ns + nr)
        elif can_meld_first(cnt[p], ns, nr, kv, X):
            _option_value(S, kv, seat_kv, X, Y, O_LAY, base + np.uint64(1), 0)
            _option_value(S, kv, seat_kv, X, Y, O_HOLD, base + np.uint64(1), 1)
            if _gain(Y, 1, 0, W, z) == 0:
                can_meld_first(cnt[p], ns, nr, kv, X)
                lay_first(S, kv, X[5], ns + nr)
            else:
                st[S_HELD] += 1
        if kv[K_GO_MELD] == 1 and check_out(S, kv):
            return
    elif st[S_MELDED_NOW] == 0:
        meld_all(S, kv)
        if kv[K_GO_MELD] == 1 and check_out(S, kv):
            return
    # the discard: the heuristic's best few
    score, cand = Y[3], Y[4]
    discard_scores(S, kv, X, score)
    K = seat_kv[K_DISCARDS]
    n = 0
    for _ in range(K):
        best = -1
        for c in range(N_KINDS):
            if score[c] > -1e9 and (best < 0 or score[c] > score[best]):
                best = c
        if best < 0:
            break
        cand[n] = best
        n += 1
        score[best] = -2e9
    if n == 1 or hand_size(cnt, p) == 1:
        discard(S, kv, cand[0])
        return
    best_c = cand[0]
    best_g = 0.0
    _option_value(S, kv, seat_kv, X, Y, O_DISCARD_KIND + cand[0], base + np.uint64(2), 0)
    for i in range(1, n):
        _option_value(S, kv, seat_kv, X, Y, O_DISCARD_KIND + cand[i], base + np.uint64(2), i)
        g = _gain(Y, i, 0, W, z)
        if g > best_g:
            best_g = g
            best_c = cand[i]
    discard(S, kv, best_c)

