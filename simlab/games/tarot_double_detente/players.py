"""Tarot double détente: the players. The heuristic (hand value -> contract, an
exact-target lead and follow), the random player, what a seat sees and the worlds
consistent with it, and the search player (``--policy search``; simlab/mechanics/search.py).

Every player decides from the part's state (``rules.py``: ``st``/``cw``) through the
same ``legal_moves`` / ``apply_move`` the batch kernels use. The heuristic reads only
what its seat sees: its hand, the cards out of play (earlier parts, turned cards, cards
played), the contracts and tricks so far. The search player builds its worlds in
:func:`hidden_places` from the seat's information only (hidden cards in ascending slot
order, voids and trump ceilings shown in play, hands' sizes) and never reads a hidden
card. Its playouts assume no irregularity (``fault_per_mille``) is to come. It maximises
its own mark for the part, so it never declares tout ou rien (which can only lower the
declarer's mark; its gain is the named opponent's loss, which matters over a match).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import TRUMP_SUIT
from simlab.engine.jit import hot, hot_inline
from simlab.games.tarot_double_detente.rules import (
    ALL0,
    ALL1,
    EXCUSE,
    EXCUSE1,
    K_EV_HIGH,
    K_EV_LONG,
    K_EV_SECOND,
    K_EV_SHORT,
    K_EV_SINGLE,
    K_EV_TOP,
    K_EV_VOID,
    K_H,
    K_HIGH_FROM,
    K_N,
    K_ROLLOUTS,
    K_SCALE,
    K_TOR_EV,
    K_WORLDS,
    N_CARDS,
    N_S,
    N_W,
    NO_FAULT,
    PETIT,
    PETIT1,
    PH_BID,
    PH_DONE,
    PH_PLAY,
    PH_TOR,
    RA,
    RK,
    RQ,
    S_BID,
    S_CEIL,
    S_FAULT_SEAT,
    S_FAULT_TRICK,
    S_K,
    S_LED,
    S_PHASE,
    S_PLY,
    S_REV,
    S_SECOND,
    S_SOFAR,
    S_TOTAL,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    S_VOID,
    S_WIN,
    SUIT_BITS,
    TRUMP_NUMBER0,
    TRUMPS1,
    W_GONE,
    W_HAND,
    W_TALON,
    _add,
    apply_move,
    forbidden_bid,
    legal_cards,
    legal_moves,
    n_tor_eligible,
    outcome,
    tor_eligible,
)
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    lowest,
    popcount,
    wbest_in,
    wis_master,
    wrandom_card,
    wwinners,
)


# --- contracts ------------------------------------------------------------------------
@hot
def expected_tricks(h0: np.uint64, h1: np.uint64, rev: int, kv: np.ndarray) -> int:
    """Heuristic hand value in hundredths of a trick: high trumps, other trumps (by
    length), the top and guarded second card of each suit (a reversed suit's top is the
    1), voids and singletons when holding trumps."""
    trumps = h1 & TRUMPS1
    nt = popcount(trumps)
    high = popcount(trumps >> np.uint64(kv[K_HIGH_FROM] - 1))
    ev = high * kv[K_EV_HIGH] + (nt - high) * (kv[K_EV_LONG] if nt >= 5 else kv[K_EV_SHORT])
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        c = popcount(m)
        top = RA if s == rev else RK
        sec = RA + 1 if s == rev else RQ
        if (m >> np.uint64(top)) & ONE != EMPTY:
            ev += kv[K_EV_TOP]
        if c >= 2 and (m >> np.uint64(sec)) & ONE != EMPTY:
            ev += kv[K_EV_SECOND]
        if nt >= 2:
            if c == 0:
                ev += kv[K_EV_VOID]
            elif c == 1:
                ev += kv[K_EV_SINGLE]
    return ev



# --- play heuristics -------------------------------------------------------------------
@hot
def lead_card(h0: np.uint64, h1: np.uint64, need: int, u0: np.uint64, u1: np.uint64,
              tricks_left: int, v: int, tb: tuple) -> int:
    """Exact-target lead. Short of the target: cash a master card (cheapest first), else
    the cheapest card. At the target: lead the lowest card some unseen card beats; the
    Excuse (never wins) if everything else is master. The Excuse goes by the
    second-to-last trick at the latest."""
    suit_of, suit_mask, excuse_mask, points, strength, above, cheap, rich, win = tb
    if h1 & EXCUSE1 != EMPTY and tricks_left <= 2:
        return EXCUSE
    n1 = h1 & ~EXCUSE1
    if need > 0:
        m0 = EMPTY
        m1 = EMPTY
        x0 = h0
        while x0 != EMPTY:
            c = lowest(x0)
            x0 &= x0 - ONE
            if wis_master(c, u0, u1, above[v]):
                m0 |= ONE << np.uint64(c)
        x1 = n1
        while x1 != EMPTY:
            c = lowest(x1)
            x1 &= x1 - ONE
            if wis_master(64 + c, u0, u1, above[v]):
                m1 |= ONE << np.uint64(c)
        c = wbest_in(m0, m1, win[v])
        if c >= 0:
            return c
        c = wbest_in(h0, n1 & ~PETIT1, cheap[v])
        return c if c >= 0 else wbest_in(h0, h1, cheap[v])
    # at or above the target: lowest beatable card
    best = -1
    best_s = 1 << 30
    x0 = h0
    while x0 != EMPTY:
        c = lowest(x0)
        x0 &= x0 - ONE
        if not wis_master(c, u0, u1, above[v]) and strength[v, c] < best_s:
            best_s = strength[v, c]
            best = c
    x1 = n1
    while x1 != EMPTY:
        c = 64 + lowest(x1)
        x1 &= x1 - ONE
        if not wis_master(c, u0, u1, above[v]) and strength[v, c] + 100 < best_s:
            best_s = strength[v, c] + 100
            best = c
    if best >= 0:
        return best
    if h1 & EXCUSE1 != EMPTY:
        return EXCUSE
    return wbest_in(h0, h1, cheap[v])


@hot
def strongest(x0: np.uint64, x1: np.uint64, strength: np.ndarray, petit_low: bool) -> int:
    """Highest card of a two-word card set, trumps above suit cards (with ``petit_low``
    the Petit ranks among the low cards, to keep it out of harm's way)."""
    best = -1
    best_s = -1
    while x0 | x1 != EMPTY:
        if x0 != EMPTY:
            c = lowest(x0)
            x0 &= x0 - ONE
        else:
            c = 64 + lowest(x1)
            x1 &= x1 - ONE
        key = strength[c] + (100 if c >= 64 and not (petit_low and c == PETIT) else 0)
        if key > best_s:
            best_s = key
            best = c
    return best


@hot
def follow_card(l0: np.uint64, l1: np.uint64, win: int, need: int, last: bool,
                u0: np.uint64, u1: np.uint64, tricks_left: int, v: int, tb: tuple) -> int:
    """Exact-target follow. Short: win with the cheapest master winner (or the cheapest
    winner when last), else the strongest winner; unable to win: the Excuse, else the
    cheapest card. At the target: the strongest card that loses; forced to win: the
    Excuse, else (last) the strongest winner to unload it, or the weakest hoping to be
    overtaken."""
    suit_of, suit_mask, excuse_mask, points, strength, above, cheap, rich, win_rank = tb
    has_exc = l1 & EXCUSE1 != EMPTY
    if has_exc and tricks_left <= 2:
        return EXCUSE
    n1 = l1 & ~EXCUSE1
    if l0 | n1 == EMPTY:
        return EXCUSE
    w0, w1 = wwinners(l0, n1, win, TRUMP_SUIT, suit_of, suit_mask, excuse_mask, above[v])
    if need > 0:
        if w0 | w1 != EMPTY:
            if last:
                return wbest_in(w0, w1, win_rank[v])
            best = -1
            best_r = 1 << 30
            x0 = w0
            x1 = w1
            while x0 | x1 != EMPTY:
                if x0 != EMPTY:
                    c = lowest(x0)
                    x0 &= x0 - ONE
                else:
                    c = 64 + lowest(x1)
                    x1 &= x1 - ONE
                if wis_master(c, u0, u1, above[v]) and win_rank[v, c] < best_r:
                    best_r = win_rank[v, c]
                    best = c
            return best if best >= 0 else strongest(w0, w1, strength[v], False)
        if has_exc:
            return EXCUSE
        c = wbest_in(l0, n1 & ~PETIT1, cheap[v])
        return c if c >= 0 else wbest_in(l0, n1, cheap[v])
    lo0 = l0 & ~w0
    lo1 = n1 & ~w1
    if lo0 | lo1 != EMPTY:
        return strongest(lo0, lo1, strength[v], True)
    if has_exc:
        return EXCUSE
    if last:
        return strongest(w0, w1, strength[v], False)
    return wbest_in(w0, w1, win_rank[v])



# --- the players: one decision from the state -------------------------------------------
@hot_inline
def heuristic_bid(ev: int, forbid: int, kv: np.ndarray) -> int:
    """round(ev x scale); a forbidden bid moves to the nearer neighbour of the unrounded
    value (up at the bottom, down at the top)."""
    h = kv[K_H]
    scaled = ev * kv[K_SCALE]  # tricks x 10000
    bid = min(h, max(0, (scaled + 5000) // 10000))
    if bid == forbid:
        up = scaled >= bid * 10000
        if (up and bid < h) or bid == 0:
            bid += 1
        else:
            bid -= 1
    return bid


@hot
def choose_bid(ev: int, forbid: int, heuristic: bool, kv: np.ndarray, state: np.uint64
               ) -> tuple[np.uint64, int]:
    """Heuristic: :func:`heuristic_bid`. Random: uniform legal bid."""
    if not heuristic:
        n_opts = kv[K_H] + 1 - (1 if forbid >= 0 else 0)
        state, x = rng.below(state, n_opts)
        if forbid >= 0 and x >= forbid:
            x += 1
        return state, x
    return state, heuristic_bid(ev, forbid, kv)


@hot_inline
def tor_target(st: np.ndarray, p: int, kv: np.ndarray) -> int:
    """The eligible opponent with the highest total (the first such seat on a tie)."""
    target = -1
    for q in range(kv[K_N]):
        if tor_eligible(st, p, q, kv) and (target < 0 or st[S_TOTAL + q] > st[S_TOTAL + target]):
            target = q
    return target


@hot_inline
def heuristic_move(st: np.ndarray, cw: np.ndarray, kv: np.ndarray, rules: np.ndarray,
                   tb: tuple) -> int:
    """The heuristic player's move for the seat to move, from what that seat sees (its
    hand, the public cards out of play, the contracts and tricks so far). Contract: the
    hand's expected tricks scaled; tout ou rien on a contract of 0 with a weak hand;
    play: the exact-target lead and follow below."""
    p = st[S_TURN]
    ph = st[S_PHASE]
    h0 = cw[W_HAND + 2 * p]
    h1 = cw[W_HAND + 2 * p + 1]
    if ph == PH_BID:
        ev = expected_tricks(h0, h1, st[S_REV], kv)
        return heuristic_bid(ev, forbidden_bid(st[S_K], kv[K_N], st[S_SOFAR], kv), kv)
    if ph == PH_TOR:
        if st[S_BID + p] == 0 and expected_tricks(h0, h1, st[S_REV], kv) <= kv[K_TOR_EV]:
            return 1 + tor_target(st, p, kv)
        return 0
    v = st[S_REV] + 1
    h = kv[K_H]
    t = st[S_TRICK]
    u0 = ALL0 & ~cw[W_GONE] & ~h0
    u1 = ALL1 & ~cw[W_GONE + 1] & ~h1
    need = st[S_BID + p] - st[S_TRICKS + p]
    if st[S_LED] < 0:  # leading, or only the Excuse on the table: a free lead
        return lead_card(h0, h1, need, u0, u1, h - t, v, tb)
    l0, l1 = legal_cards(st, cw, rules, tb)
    return follow_card(l0, l1, st[S_WIN], need, st[S_K] == kv[K_N] - 1, u0, u1, h - t, v, tb)


@hot_inline
def random_move(st: np.ndarray, cw: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                state: np.uint64) -> tuple[np.uint64, int]:
    """Uniform over the legal moves (one draw from the policy stream ``state``)."""
    p = st[S_TURN]
    ph = st[S_PHASE]
    if ph == PH_BID:
        return choose_bid(0, forbidden_bid(st[S_K], kv[K_N], st[S_SOFAR], kv), False, kv, state)
    if ph == PH_TOR:
        state, x = rng.below(state, n_tor_eligible(st, p, kv) + 1)
        if x > 0:
            for q in range(kv[K_N]):
                if tor_eligible(st, p, q, kv):
                    x -= 1
                    if x == 0:
                        return state, 1 + q
        return state, 0
    l0, l1 = legal_cards(st, cw, rules, tb)
    return wrandom_card(state, l0, l1)


@hot
def playout(st: np.ndarray, cw: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Every seat plays heuristically to the end of the part."""
    while st[S_PHASE] != PH_DONE:
        apply_move(st, cw, heuristic_move(st, cw, kv, rules, tb), kv, rules, tb)


# --- what a seat sees, and worlds consistent with it ---------------------------------------
# Places the hidden cards may be in: the other seats' hands (in seat order, skipping the
# searching seat), the second turned card while it is still face down (the Excuse was
# turned; it is shown after the contracts), and the undealt rest of the pack.
MAX_HIDDEN = N_CARDS


@hot
def hidden_places(st: np.ndarray, cw: np.ndarray, seat: int, kv: np.ndarray, cards: np.ndarray,
                  allowed: np.ndarray, capacity: np.ndarray) -> tuple[int, int]:
    """What ``seat`` does not see, from its information only: the cards neither in its
    hand nor out of play (ascending slots, into ``cards``), the places they may be in
    (``capacity``: how many each holds; hands' sizes are public) and, per card, the places
    it may go to (``allowed``, a bit per place: a void or a trump ceiling shown by a
    player keeps such cards out of his hand; cards put under the talon stay there).
    Returns (number of hidden cards, number of places)."""
    n = kv[K_N]
    n_opp = n - 1
    pending = st[S_SECOND] >= 0 and st[S_PHASE] < PH_PLAY
    talon_place = n_opp + (1 if pending else 0)
    n_places = talon_place + 1
    n_hidden = 0
    for w in range(2):
        x = ALL0 if w == 0 else ALL1
        x &= ~cw[W_GONE + w] & ~cw[W_HAND + 2 * seat + w]
        talon = cw[W_TALON + w]
        while x != EMPTY:
            b = lowest(x)
            x &= x - ONE
            c = 64 * w + b
            cards[n_hidden] = c
            if talon >> np.uint64(b) & ONE != EMPTY:
                allowed[n_hidden] = 1 << talon_place
            else:
                a = 1 << talon_place
                if pending:
                    a |= 1 << n_opp
                for i in range(n_opp):
                    q = i if i < seat else i + 1
                    if c == EXCUSE:
                        a |= 1 << i
                    elif c >= 64:
                        if c - TRUMP_NUMBER0 <= st[S_CEIL + q]:
                            a |= 1 << i
                    elif st[S_VOID + q] >> (c // 14) & 1 == 0:
                        a |= 1 << i
                allowed[n_hidden] = a
            n_hidden += 1
    in_hands = 0
    for i in range(n_opp):
        q = i if i < seat else i + 1
        capacity[i] = popcount(cw[W_HAND + 2 * q]) + popcount(cw[W_HAND + 2 * q + 1])
        in_hands += capacity[i]
    if pending:
        capacity[n_opp] = 1
        in_hands += 1
    capacity[talon_place] = n_hidden - in_hands
    return n_hidden, n_places


@hot
def build_world(st: np.ndarray, cw: np.ndarray, seat: int, kv: np.ndarray, cards: np.ndarray,
                owner: np.ndarray, n_hidden: int, wst: np.ndarray, wcw: np.ndarray) -> None:
    """A world: the real state with the hidden cards where ``owner`` puts them (places
    as in :func:`hidden_places`) and no irregularity to come. Only the other hands and
    the face-down second card are rewritten: the seat's own hand and everything public
    are kept."""
    n = kv[K_N]
    n_opp = n - 1
    for i in range(N_S):
        wst[i] = st[i]
    for i in range(N_W):
        wcw[i] = cw[i]
    for i in range(n_opp):
        q = i if i < seat else i + 1
        wcw[W_HAND + 2 * q] = EMPTY
        wcw[W_HAND + 2 * q + 1] = EMPTY
    pending = st[S_SECOND] >= 0 and st[S_PHASE] < PH_PLAY
    for k in range(n_hidden):
        s = owner[k]
        c = cards[k]
        if s < n_opp:
            q = s if s < seat else s + 1
            _add(wcw, W_HAND + 2 * q, c)
        elif pending and s == n_opp:
            wst[S_SECOND] = c
    wst[S_FAULT_SEAT] = NO_FAULT
    wst[S_FAULT_TRICK] = NO_FAULT


# --- the search player ------------------------------------------------------------------------
N_MOVES_MAX = 32  # 14 contracts, 3 tout-ou-rien choices or at most 13 cards


def search_work() -> tuple:
    """Work arrays of :func:`search_move` (allocated once per batch kernel call)."""
    return (np.zeros((2, N_S), dtype=np.int64), np.zeros((2, N_W), dtype=np.uint64),
            np.zeros(N_MOVES_MAX, dtype=np.int64), np.zeros(N_MOVES_MAX, dtype=np.int64),
            np.zeros(MAX_HIDDEN, dtype=np.int64), np.zeros(MAX_HIDDEN, dtype=np.int64),
            np.zeros(MAX_HIDDEN, dtype=np.int64), np.zeros(search.MAX_SLOTS, dtype=np.int64),
            np.zeros(search.work_size(MAX_HIDDEN), dtype=np.int64), np.zeros(6, dtype=np.int64))


@hot
def search_move(st: np.ndarray, cw: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, sw: tuple) -> int:
    """Determinized Monte Carlo (simlab/mechanics/search.py) for the seat to move: in each of
    ``search_worlds`` worlds consistent with what the seat sees, every legal move is
    played out to the end of the part by heuristic players; the move with the best
    total of the seat's own mark for the part wins (ties: the first in move order).
    Contracts and tout ou rien are searched like cards. ``index``/``sub``: the deal (or
    match) and the part's sub-stream, which key the seat's own random stream."""
    wst, wcw, moves, total, cards, owner, allowed, capacity, swork, res = sw
    n_moves = legal_moves(st, cw, kv, rules, tb, moves)
    if n_moves == 1:
        return moves[0]
    seat = st[S_TURN]
    state = search.decision_stream(seed, index, sub, seat, st[S_PLY])
    n_hidden, n_places = hidden_places(st, cw, seat, kv, cards, allowed, capacity)
    for m in range(n_moves):
        total[m] = 0
    world, trial = wst[0], wst[1]
    world_cw, trial_cw = wcw[0], wcw[1]
    bonus, out = res[0:3], res[3:6]
    for _ in range(kv[K_WORLDS]):
        state, ok = search.sample_owners(state, allowed, capacity, n_hidden, n_places, owner,
                                         swork)
        if not ok:  # cannot happen with consistent information; keep the others' worlds
            continue
        build_world(st, cw, seat, kv, cards, owner, n_hidden, world, world_cw)
        for m in range(n_moves):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_S):
                    trial[i] = world[i]
                for i in range(N_W):
                    trial_cw[i] = world_cw[i]
                apply_move(trial, trial_cw, moves[m], kv, rules, tb)
                playout(trial, trial_cw, kv, rules, tb)
                outcome(trial, kv, bonus, out)
                total[m] += out[seat]
    return moves[search.best_move(total, n_moves)]
