"""Rummy melds: candidate melds, jokers as wildcards, the exact best partition of a hand,
and lay-offs onto melds on the table. Shared by the rummy family (Rami first; Loba,
XXL, Achille, Crapette later).

Cards (the ``"54"`` deck layout, ``simlab.engine.decks``): natural card ``c = suit * 13 + r``
with ``r = 0..12`` for 2, 3, ..., 10, J, Q, K, A; jokers are ids 52 and 53. A hand or
any set of cards is a ``uint64`` bitmask (``simlab.mechanics.tricks`` bit helpers).

Melds (the usual French rules, as in Rami):

* a **set** (brelan, carré): 3 or 4 cards of one rank (distinct suits: one pack);
* a **sequence**: 3 or more consecutive cards of one suit. Sequence *positions* run
  0..13: position 0 is the ace played low (A-2-3), positions 1..12 are 2..K, position
  13 is the ace played high (Q-K-A, only when ``top = 13``; ``top = 12`` forbids it).
  A sequence never holds both ace positions (no wrap K-A-2);
* a **joker** stands for any card; a meld holds at least one natural card.

A meld is an int64 row of ``N_F`` fields (``F_KIND`` SET/SEQ, ``F_KEY`` rank or suit,
``F_LO``/``F_HI`` the window of a sequence (-1 for a set), ``F_NJ`` jokers in it,
``F_NAT`` the mask of its natural cards as int64); on the table each meld also has a
``uint64`` mask of its physical cards (naturals and jokers).

Exact best partition (``best_partition``): a depth-first branch and bound. At each node
the lowest natural card left either stays in hand (deadwood) or belongs to one of the
melds that contain it: every set of its rank (every subset of the other cards of that
rank, with 0..2 jokers, 3 or 4 cards) and every sequence window through it whose other
positions are cards still free or jokers (including windows where a joker stands in for
a free natural, which then stays free). Every partition of the hand into melds is
therefore reached; a node is cut when its score plus the best weight all remaining
cards could add cannot beat the best found. The score is a weighted sum of melded
cards given by the caller, so one search answers several questions:

* the 51-point opening: weights = card values, jokers worth the card they stand for
  (``jw = -1``), a low ace worth ``w_low``;
* going out / fewest cards left: weights ``1000 + value``: the search maximises the
  number of cards melded, then their value (read ``score // 1000`` and ``score % 1000``);
* least penalty left: penalty weights with a fixed joker weight (``jw >= 0``).

Random 11-card hands (Rami at two players, after the draw) take about 30 nodes on
average (~1-2 us); the search never allocates: callers own ``ws`` (``new_workspace``).
The recursive ``_dfs`` is compiled for one explicit signature (writable C arrays):
callers pass writable weight tables, not module-level constants (read-only in numba).

A later game uses it like Rami (``simlab.games.rami``): keep each hand as a mask, call
``best_partition`` with its weight table, move a chosen plan to the table with
``lay_plan``, and lay single cards off with ``fits``/``add_card`` (or ``lay_off_all``).
Multi-pack games (Loba's 108 cards) need a two-word or per-card-count variant of the
masks: add it here beside these functions.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import cached_njit, hot
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, has, lowest

N_RANKS = 13
N_NAT = 52
ACE = 12  # rank index of the ace in the 2..A order
NAT_MASK = np.uint64((1 << N_NAT) - 1)
JOKER_MASK = np.uint64(3 << N_NAT)  # ids 52 and 53
RANK_MASK = np.array([sum(1 << (s * N_RANKS + r) for s in range(4)) for r in range(N_RANKS)],
                     dtype=np.uint64)
SUIT_MASK = np.array([((1 << N_RANKS) - 1) << (s * N_RANKS) for s in range(4)], dtype=np.uint64)

SET, SEQ = 0, 1
F_KIND, F_KEY, F_LO, F_HI, F_NJ, F_NAT = range(6)
N_F = 6
MAX_MELDS = 18  # 54 cards / 3
# workspace planes: the DFS path, the best plan, a spare plan (keep-one searches)
W_PATH, W_PLAN, W_SPARE = range(3)


def new_workspace() -> tuple[np.ndarray, np.ndarray]:
    """(ws int64 [3, MAX_MELDS, N_F], best int64 [4]) for ``best_partition``."""
    return np.zeros((3, MAX_MELDS, N_F), dtype=np.int64), np.zeros(4, dtype=np.int64)


# --- positions ------------------------------------------------------------------------
@hot
def card_at(s: int, p: int) -> int:
    """The natural card at sequence position ``p`` (0..13) of suit ``s``."""
    if p == 0 or p == 13:
        return s * N_RANKS + ACE
    return s * N_RANKS + p - 1


@hot
def pos_weight(s: int, p: int, w: np.ndarray, w_low: int) -> int:
    if p == 0:
        return w_low
    return w[card_at(s, p)]


@hot
def wmax(c: int, w: np.ndarray, w_low: int) -> int:
    """The most a natural card can add to a score (an ace may count low or high)."""
    if c % N_RANKS == ACE and w_low > w[c]:
        return w_low
    return w[c]


@hot
def mask_wmax(m: np.uint64, w: np.ndarray, w_low: int) -> int:
    t = 0
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        t += wmax(c, w, w_low)
    return t


# --- exact best partition ---------------------------------------------------------------
@hot
def _push(ws: np.ndarray, depth: int, kind: int, key: int, lo: int, hi: int, nj: int,
          natm: np.uint64) -> None:
    path = ws[W_PATH]
    path[depth, F_KIND] = kind
    path[depth, F_KEY] = key
    path[depth, F_LO] = lo
    path[depth, F_HI] = hi
    path[depth, F_NJ] = nj
    path[depth, F_NAT] = np.int64(natm)


@hot
def _seq_weight(s: int, lo: int, hi: int, natm: np.uint64, nj: int, w: np.ndarray, w_low: int,
                jw: int) -> int:
    t = 0
    for p in range(lo, hi + 1):
        if jw < 0 or has(natm, card_at(s, p)):
            t += pos_weight(s, p, w, w_low)
    if jw >= 0:
        t += nj * jw
    return t


# One explicit signature: a recursive function compiled for several argument types breaks
# numba's on-disk cache (numba issue #6713: segfault when the cached caller is reloaded).
_DFS_SIG = ("int64(uint64, int64, int64, int64, int64, int64[::1], int64, int64, int64, int64, "
            "int64[:, :, ::1], int64[::1])")


@cached_njit(_DFS_SIG, _nrt=False)
def _dfs(nat: np.uint64, jok: int, score: int, rem: int, depth: int, w: np.ndarray, w_low: int,
         jw: int, jmax: int, top: int, ws: np.ndarray, best: np.ndarray) -> int:
    if nat == EMPTY:
        if score > best[0]:
            best[0] = score
            best[1] = depth
            for i in range(depth):
                for f in range(N_F):
                    ws[W_PLAN, i, f] = ws[W_PATH, i, f]
        return 1
    if score + rem + jok * jmax <= best[0]:
        return 1
    nodes = 1
    c = lowest(nat)
    rest = nat & ~bit(c)
    s = c // N_RANKS
    r = c % N_RANKS
    cb = bit(c)
    # sets of c's rank: every subset of the other naturals of the rank, 0..2 jokers
    mates = rest & RANK_MASK[r]
    sub = mates
    while True:
        n = 1 + count(sub)
        natm = sub | cb
        for nj in range(max(0, 3 - n), min(jok, 4 - n) + 1):
            wt = 0
            m = natm
            while m != EMPTY:
                wt += w[lowest(m)]
                m &= m - ONE
            wt += nj * (jw if jw >= 0 else w[c])
            _push(ws, depth, SET, r, -1, -1, nj, natm)
            nodes += _dfs(nat & ~natm, jok - nj, score + wt, rem - mask_wmax(natm, w, w_low),
                          depth + 1, w, w_low, jw, jmax, top, ws, best)
        if sub == EMPTY:
            break
        sub = (sub - ONE) & mates
    # sequences of c's suit through c's position(s)
    n_pos = 2 if r == ACE and top == 13 else 1
    for k in range(n_pos):
        pc = r + 1 if r != ACE else (0 if k == 0 else 13)
        miss_lo = 0
        lo = pc
        while lo >= 0:
            if lo < pc and not has(rest, card_at(s, lo)):
                miss_lo += 1
            if miss_lo > jok:
                break
            miss = miss_lo
            hi = pc
            while hi <= top:
                if hi > pc and not has(rest, card_at(s, hi)):
                    miss += 1
                if miss > jok or (lo == 0 and hi == 13):
                    break
                if hi - lo >= 2:
                    avail = EMPTY
                    for p in range(lo, hi + 1):
                        if p != pc and has(rest, card_at(s, p)):
                            avail |= bit(card_at(s, p))
                    natm = avail | cb
                    wt = _seq_weight(s, lo, hi, natm, miss, w, w_low, jw)
                    _push(ws, depth, SEQ, s, lo, hi, miss, natm)
                    nodes += _dfs(nat & ~natm, jok - miss, score + wt,
                                  rem - mask_wmax(natm, w, w_low), depth + 1, w, w_low, jw, jmax,
                                  top, ws, best)
                    spare = jok - miss
                    if spare >= 1:  # a joker stands in for a free natural, which stays free
                        a1 = avail
                        while a1 != EMPTY:
                            x = a1 & (~a1 + ONE)
                            a1 &= a1 - ONE
                            m1 = natm & ~x
                            wt = _seq_weight(s, lo, hi, m1, miss + 1, w, w_low, jw)
                            _push(ws, depth, SEQ, s, lo, hi, miss + 1, m1)
                            nodes += _dfs(nat & ~m1, jok - miss - 1, score + wt,
                                          rem - mask_wmax(m1, w, w_low), depth + 1, w, w_low, jw,
                                          jmax, top, ws, best)
                            if spare >= 2:
                                a2 = a1
                                while a2 != EMPTY:
                                    y = a2 & (~a2 + ONE)
                                    a2 &= a2 - ONE
                                    m2 = m1 & ~y
                                    wt = _seq_weight(s, lo, hi, m2, miss + 2, w, w_low, jw)
                                    _push(ws, depth, SEQ, s, lo, hi, miss + 2, m2)
                                    nodes += _dfs(nat & ~m2, jok - miss - 2, score + wt,
                                                  rem - mask_wmax(m2, w, w_low), depth + 1, w,
                                                  w_low, jw, jmax, top, ws, best)
                hi += 1
            lo -= 1
    # c stays in hand
    nodes += _dfs(rest, jok, score, rem - wmax(c, w, w_low), depth, w, w_low, jw, jmax, top, ws,
                  best)
    return nodes


@hot
def best_partition(hand: np.uint64, w: np.ndarray, w_low: int, jw: int, top: int,
                   ws: np.ndarray, best: np.ndarray) -> int:
    """Exact maximum over all partitions of ``hand`` into melds (+ cards left) of the
    melded weight: natural ``c`` weighs ``w[c]`` (an ace at the low position ``w_low``),
    a joker ``jw`` or, when ``jw < 0``, the weight of the card it stands for. The best
    plan is left in ``ws[W_PLAN, :best[1]]``; returns the score (0: no meld). ``best[2]``
    receives the number of search nodes."""
    nat = hand & NAT_MASK
    jok = count(hand & JOKER_MASK)
    jmax = jw
    if jw < 0:
        jmax = w_low
        for c in range(N_NAT):
            jmax = max(jmax, w[c])
    best[0] = -1
    best[1] = 0
    best[2] = _dfs(nat, jok, 0, mask_wmax(nat, w, w_low), 0, w, w_low, jw, jmax, top, ws, best)
    return best[0]


@hot
def plan_cards(ws: np.ndarray, plane: int, n: int) -> tuple[np.uint64, int]:
    """(natural cards, jokers) used by the first ``n`` melds of plan ``plane``."""
    m = EMPTY
    nj = 0
    for i in range(n):
        m |= np.uint64(ws[plane, i, F_NAT])
        nj += ws[plane, i, F_NJ]
    return m, nj


@hot
def best_partition_keep(hand: np.uint64, keep: bool, w: np.ndarray, w_low: int, jw: int, top: int,
                        ws: np.ndarray, best: np.ndarray) -> int:
    """``best_partition``, but with ``keep`` at least one card must stay in hand (a final
    discard is required): when the best plan melds everything, the best plan of the hand
    without each card in turn is taken instead (exact too)."""
    v = best_partition(hand, w, w_low, jw, top, ws, best)
    if not keep:
        return v
    m, nj = plan_cards(ws, W_PLAN, best[1])
    if count(m) + nj < count(hand):
        return v
    best_v = -1
    best_n = 0
    rest = hand
    while rest != EMPTY:
        x = lowest(rest)
        rest &= rest - ONE
        if x >= N_NAT and x != lowest(hand & JOKER_MASK):
            continue  # the two jokers are interchangeable
        vx = best_partition(hand & ~bit(x), w, w_low, jw, top, ws, best)
        if vx > best_v:
            best_v = vx
            best_n = best[1]
            for i in range(best_n):
                for f in range(N_F):
                    ws[W_SPARE, i, f] = ws[W_PLAN, i, f]
    for i in range(best_n):
        for f in range(N_F):
            ws[W_PLAN, i, f] = ws[W_SPARE, i, f]
    best[0] = best_v
    best[1] = best_n
    return best_v


# --- quick bounds -------------------------------------------------------------------------
@hot
def meldable(hand: np.uint64, top: int) -> np.uint64:
    """The natural cards of ``hand`` that belong to at least one meld made of cards of
    ``hand`` (jokers included): a superset of what any partition melds, cheap to get."""
    nat = hand & NAT_MASK
    jok = count(hand & JOKER_MASK)
    out = EMPTY
    m = nat
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        r = c % N_RANKS
        if count(nat & RANK_MASK[r]) - 1 + jok >= 2:
            out |= bit(c)
            continue
        s = c // N_RANKS
        n_pos = 2 if r == ACE and top == 13 else 1
        found = False
        for k in range(n_pos):
            pc = r + 1 if r != ACE else (0 if k == 0 else 13)
            for lo in range(max(0, pc - 2), pc + 1):
                hi = lo + 2
                if hi > top:
                    break
                miss = 0
                for p in range(lo, hi + 1):
                    if p != pc and not has(nat, card_at(s, p)):
                        miss += 1
                if miss <= jok:
                    found = True
                    break
            if found:
                break
        if found:
            out |= bit(c)
    return out


@hot
def partners(c: int, hand: np.uint64, top: int) -> int:
    """Meld potential of natural ``c`` in ``hand``: 2 per other card of its rank, 2 per
    same-suit neighbour, 1 per same-suit card two positions away."""
    nat = hand & NAT_MASK & ~bit(c)
    r = c % N_RANKS
    s = c // N_RANKS
    pot = 2 * count(nat & RANK_MASK[r])
    n_pos = 2 if r == ACE and top == 13 else 1
    for k in range(n_pos):
        pc = r + 1 if r != ACE else (0 if k == 0 else 13)
        for d in (-2, -1, 1, 2):
            p = pc + d
            if 0 <= p <= top and has(nat, card_at(s, p)):
                pot += 2 if d == -1 or d == 1 else 1
    return pot


# --- melds on the table -----------------------------------------------------------------
@hot
def fits(card: int, tm: np.ndarray, i: int, tcards: np.ndarray, top: int) -> int:
    """Can ``card`` be added to table meld ``i``? -1: no; otherwise, for a sequence, the
    position it takes (one past either end), for a set 0. A joker goes past the high end
    when it can. Jokers already in a meld stay there (no exchange)."""
    size = count(tcards[i])
    if tm[i, F_KIND] == SET:
        if size >= 4:
            return -1
        if card >= N_NAT:
            return 0
        if card % N_RANKS == tm[i, F_KEY] and not has(tcards[i], card):
            return 0
        return -1
    lo = tm[i, F_LO]
    hi = tm[i, F_HI]
    if card >= N_NAT:
        if hi + 1 <= top and not (lo == 0 and hi + 1 == 13):
            return hi + 1
        if lo - 1 >= 0 and not (lo - 1 == 0 and hi == 13):
            return lo - 1
        return -1
    if card // N_RANKS != tm[i, F_KEY]:
        return -1
    r = card % N_RANKS
    n_pos = 2 if r == ACE and top == 13 else 1
    for k in range(n_pos):
        pc = r + 1 if r != ACE else (0 if k == 0 else 13)
        if pc == hi + 1 and pc <= top and not (lo == 0 and pc == 13):
            return pc
        if pc == lo - 1 and pc >= 0 and not (pc == 0 and hi == 13):
            return pc
    return -1


@hot
def add_card(card: int, pos: int, tm: np.ndarray, i: int, tcards: np.ndarray) -> None:
    """Add ``card`` to table meld ``i`` at ``pos`` (from ``fits``)."""
    tcards[i] |= bit(card)
    if card >= N_NAT:
        tm[i, F_NJ] += 1
    else:
        tm[i, F_NAT] = np.int64(np.uint64(tm[i, F_NAT]) | bit(card))
    if tm[i, F_KIND] == SEQ:
        if pos > tm[i, F_HI]:
            tm[i, F_HI] = pos
        else:
            tm[i, F_LO] = pos


@hot
def lay_plan(hand: np.uint64, ws: np.ndarray, plane: int, n: int, tm: np.ndarray,
             tcards: np.ndarray, n_table: int) -> tuple[np.uint64, int]:
    """Move the ``n`` melds of plan ``plane`` from ``hand`` to the table (physical jokers
    taken lowest id first). Returns (hand, number of table melds)."""
    for i in range(n):
        t = n_table
        for f in range(N_F):
            tm[t, f] = ws[plane, i, f]
        natm = np.uint64(ws[plane, i, F_NAT])
        cards = natm
        for _ in range(ws[plane, i, F_NJ]):
            j = lowest(hand & JOKER_MASK)
            cards |= bit(j)
            hand &= ~bit(j)
        hand &= ~natm
        tcards[t] = cards
        n_table += 1
    return hand, n_table


@hot
def fits_any(card: int, tm: np.ndarray, tcards: np.ndarray, n_table: int, top: int) -> bool:
    for i in range(n_table):
        if fits(card, tm, i, tcards, top) >= 0:
            return True
    return False


@hot
def lay_off_all(hand: np.uint64, tm: np.ndarray, tcards: np.ndarray, n_table: int, top: int,
                keep: int) -> np.uint64:
    """Lay off every natural card of ``hand`` that fits a table meld, repeatedly (a card
    laid off may make room for the next), while more than ``keep`` cards remain. Jokers
    are laid off only when at most one natural card is left besides them (they are
    worth more in future melds)."""
    changed = True
    while changed:
        changed = False
        m = hand & NAT_MASK
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if count(hand) <= keep:
                return hand
            for i in range(n_table):
                pos = fits(c, tm, i, tcards, top)
                if pos >= 0:
                    add_card(c, pos, tm, i, tcards)
                    hand &= ~bit(c)
                    changed = True
                    break
    if hand & JOKER_MASK != EMPTY and count(hand & NAT_MASK) <= 1:
        while hand & JOKER_MASK != EMPTY and count(hand) > keep:
            j = lowest(hand & JOKER_MASK)
            placed = False
            for i in range(n_table):
                pos = fits(j, tm, i, tcards, top)
                if pos >= 0:
                    add_card(j, pos, tm, i, tcards)
                    hand &= ~bit(j)
                    placed = True
                    break
            if not placed:
                break
    return hand


@hot
def is_valid(cards: np.uint64, top: int) -> bool:
    """Is this set of physical cards a legal meld (some assignment of its jokers)?"""
    nat = cards & NAT_MASK
    n_nat = count(nat)
    n = n_nat + count(cards & JOKER_MASK)
    if n_nat == 0 or n < 3:
        return False
    c = lowest(nat)
    if nat & ~RANK_MASK[c % N_RANKS] == EMPTY and n <= 4:
        return True
    s = c // N_RANKS
    if nat & ~SUIT_MASK[s] != EMPTY:
        return False
    # the naturals' positions (an ace low or high), then a window of length n around them
    for ace_high in range(2 if top == 13 else 1):
        lo_n = 99
        hi_n = -1
        m = nat
        while m != EMPTY:
            x = lowest(m)
            m &= m - ONE
            r = x % N_RANKS
            p = r + 1 if r != ACE else (13 if ace_high else 0)
            lo_n = min(lo_n, p)
            hi_n = max(hi_n, p)
        if hi_n - lo_n + 1 > n:
            continue
        for lo in range(max(0, hi_n - n + 1), lo_n + 1):
            hi = lo + n - 1
            if hi <= top and not (lo == 0 and hi == 13):
                return True
    return False


# --- multi-pack melds (Loba: two packs, every card twice, four jokers) ---------------------
# A hand is a count vector ``cnt`` int64[53]: ``cnt[c]`` copies of natural ``c`` (0..51, the
# layout above), ``cnt[JOKER_KIND]`` jokers. Multi-pack melds on the table are int64 rows of
# ``N_T`` fields: ``T_KIND`` SET/SEQ, ``T_KEY`` the rank of a set or the suit of a sequence
# (-1: a multicolour sequence), ``T_LO``/``T_HI`` the sequence's positions (0..13, as
# above), ``T_NJ`` jokers in the meld, ``T_JPOS`` the bit mask of the positions jokers
# hold in a sequence, ``T_N`` the number of cards. These functions leave the one-pack
# functions above untouched (Rami's results do not move).
JOKER_KIND = 52
T_KIND, T_KEY, T_LO, T_HI, T_NJ, T_JPOS, T_N = range(7)
N_T = 7
MAX_REQ = 8  # melds in a requirement plan
# plan rows (``req_cover``): kind, key (rank / suit, -1 multicolour), lo, hi, jokers,
# joker position mask (sequence), then up to 4 natural kinds (-1 = none) for a set of 3
# or a sequence of 4 (a sequence's naturals follow from key, lo, hi and the mask)
P_KIND, P_KEY, P_LO, P_HI, P_NJ, P_JPOS = range(6)
N_PF = 6


@hot
def seq_positions(r: int, top: int) -> tuple[int, int]:
    """The sequence positions of rank ``r``: (p, -1), or (0, 13) for an ace when ``top = 13``."""
    if r != ACE:
        return r + 1, -1
    if top == 13:
        return 0, 13
    return 0, -1


@hot
def _view(cnt: np.ndarray, multi: bool, view: np.ndarray) -> None:
    """``view``: the counts the requirement search reads: ``cnt`` itself, or for
    multicolour sequences every rank's count in suit 0's slots (suits no longer matter)."""
    if not multi:
        for c in range(N_NAT):
            view[c] = cnt[c]
        return
    for c in range(N_NAT):
        view[c] = 0
    for c in range(N_NAT):
        view[c % N_RANKS] += cnt[c]


@hot
def _sets_cost(view: np.ndarray, n_sets: int, jok: int, jlim: int, dp: np.ndarray,
               choice: np.ndarray) -> tuple[int, int]:
    """Fewest cards missing from ``n_sets`` sets of exactly three made of ``view``'s
    naturals (any suits, duplicates allowed) and at most ``jok`` jokers, at most ``jlim``
    per set: a DP over ranks. Returns (missing, jokers used); ``choice[r]`` gets the
    number of sets of rank ``r`` times 8 plus their jokers."""
    if jok == 0:
        # no joker: give each set in turn the rank with most cards left (capped at 3),
        # which is optimal since a rank's gain per set only falls
        for r in range(N_RANKS):
            n = 0
            for s in range(4):
                n += view[s * N_RANKS + r]
            dp[r, 0, 0] = n
            choice[r] = 0
        miss = 0
        for _ in range(n_sets):
            br = 0
            for r in range(1, N_RANKS):
                if min(dp[r, 0, 0], 3) > min(dp[br, 0, 0], 3):
                    br = r
            take = min(dp[br, 0, 0], 3)
            dp[br, 0, 0] -= take
            miss += 3 - take
            choice[br] += 8
        return miss, 0
    # dp[r, k, j]: least missing using ranks < r for k sets and j jokers
    BIG = 1 << 20
    for r in range(N_RANKS + 1):
        for k in range(n_sets + 1):
            for j in range(jok + 1):
                dp[r, k, j] = BIG
    dp[0, 0, 0] = 0
    for r in range(N_RANKS):
        n = 0
        for s in range(4):
            n += view[s * N_RANKS + r]
        for k in range(n_sets + 1):
            for j in range(jok + 1):
                base = dp[r, k, j]
                if base >= BIG:
                    continue
                for s in range(n_sets - k + 1):
                    for jj in range(min(jlim * s, jok - j) + 1):
                        miss = 3 * s - n - jj
                        if miss < 0:
                            miss = 0
                        if jj > 0 and 3 * s - n - (jj - 1) <= 0:
                            break  # a joker more would fill nothing
                        v = base + miss
                        if v < dp[r + 1, k + s, j + jj]:
                            dp[r + 1, k + s, j + jj] = v
    best = BIG
    bj = 0
    for j in range(jok + 1):
        if dp[N_RANKS, n_sets, j] < best:
            best = dp[N_RANKS, n_sets, j]
            bj = j
    # walk back the choices
    k = n_sets
    j = bj
    for r in range(N_RANKS - 1, -1, -1):
        choice[r] = 0
        n = 0
        for s in range(4):
            n += view[s * N_RANKS + r]
        found = False
        for s in range(k + 1):
            for jj in range(min(jlim * s, j) + 1):
                miss = 3 * s - n - jj
                if miss < 0:
                    miss = 0
                if dp[r, k - s, j - jj] + miss == dp[r + 1, k, j]:
                    choice[r] = s * 8 + jj
                    k -= s
                    j -= jj
                    found = True
                    break
            if found:
                break
    return best, bj


@hot
def _win_held(view: np.ndarray, w: int) -> int:
    s = w // 16
    lo = w % 16
    held = 0
    for p in range(lo, lo + 4):
        if view[card_at(s, p)] > 0:
            held += 1
    return held


@hot
def req_cover(cnt: np.ndarray, n_sets: int, n_runs: int, jlim: int, top: int, multi: bool,
              voluntary: bool, view: np.ndarray, dp: np.ndarray, choice: np.ndarray,
              wins: np.ndarray, work: np.ndarray, plan: np.ndarray) -> int:
    """The fewest cards missing from a first meld of exactly ``n_sets`` sets of three and
    ``n_runs`` sequences of four (same suit, or any suits with ``multi``) made from the
    hand ``cnt`` (every card at most ``cnt[c]`` times, at most ``jlim`` jokers a meld):
    0 means the hand holds the meld now. The best cover is written to ``plan`` (rows
    P_KIND.., sets first then sequences; returns -1 if no cover is possible at all).
    Sequences are sought among windows holding at least two of their cards (all the
    windows a meld can use); ``voluntary`` also lets a joker stand in a sequence for a
    card the hand holds, freeing that card for a set (exact; else a close bound)."""
    jok = cnt[JOKER_KIND]
    _view(cnt, multi, view)
    n_suits = 1 if multi else 4
    # candidate windows: (suit, lo) holding at least 2 of their 4 positions
    nw = 0
    most = 0
    for s in range(n_suits):
        for lo in range(0, top - 2):
            held = 0
            for p in range(lo, lo + 4):
                if view[card_at(s, p)] > 0:
                    held += 1
            if held > most:
                most = held
            if held >= 2 and nw < wins.shape[0]:
                wins[nw] = s * 16 + lo
                nw += 1
    if n_runs > 0 and nw == 0:  # nothing close: any window with the most cards
        for s in range(n_suits):
            for lo in range(0, top - 2):
                held = 0
                for p in range(lo, lo + 4):
                    if view[card_at(s, p)] > 0:
                        held += 1
                if held == most and nw < wins.shape[0]:
                    wins[nw] = s * 16 + lo
                    nw += 1
    # strongest windows first (a good cover early cuts the rest), and a bound on the
    # sets' part: their cost with every card and joker of the hand still free
    for a in range(1, nw):
        x = wins[a]
        hx = _win_held(view, x)
        b = a - 1
        while b >= 0 and _win_held(view, wins[b]) < hx:
            wins[b + 1] = wins[b]
            b -= 1
        wins[b + 1] = x
    sets_lb, _ = _sets_cost(view, n_sets, jok, jlim, dp, choice)
    best = 1 << 20
    # work[0:4] the windows' indices, [4:8] jokers each uses, [8:12] its missing positions
    for i in range(12):
        work[i] = 0
    while True:
        # apply the windows work[0 + 0..n_runs-1]
        cost = 0
        jl = jok
        for i in range(n_runs):
            w = wins[work[0 + i]]
            s = w // 16
            lo = w % 16
            miss = 0
            jm = 0
            for p in range(lo, lo + 4):
                c = card_at(s, p)
                if view[c] > 0:
                    view[c] -= 1
                else:
                    miss += 1
                    jm |= 1 << p
            u = min(miss, jlim, jl)
            jl -= u
            cost += miss - u
            work[4 + i] = u
            work[8 + i] = jm
        if cost + sets_lb < best:
            sc, sj = _sets_cost(view, n_sets, jl, jlim, dp, choice)
            tot = cost + sc
            vol_i = -1
            vol_p = -1
            if voluntary and tot > 0 and jl - sj > 0:
                # a spare joker takes a sequence slot whose card a set then uses
                for i in range(n_runs):
                    if work[4 + i] >= jlim:
                        continue
                    w = wins[work[0 + i]]
                    s = w // 16
                    lo = w % 16
                    for p in range(lo, lo + 4):
                        if work[8 + i] & (1 << p):
                            continue
                        c = card_at(s, p)
                        view[c] += 1
                        sc2, _ = _sets_cost(view, n_sets, jl - 1, jlim, dp, choice)
                        view[c] -= 1
                        if cost + sc2 < tot:
                            tot = cost + sc2
                            vol_i = i
                            vol_p = p
                    if tot == cost:
                        break
            if tot < best:
                best = tot
                # write the plan: sets (from choice, recomputed for the chosen variant)
                if vol_i >= 0:
                    w = wins[work[0 + vol_i]]
                    view[card_at(w // 16, vol_p)] += 1
                    _sets_cost(view, n_sets, jl - 1, jlim, dp, choice)
                    view[card_at(w // 16, vol_p)] -= 1
                else:
                    _sets_cost(view, n_sets, jl, jlim, dp, choice)
                row = 0
                for r in range(N_RANKS):
                    ns = choice[r] // 8
                    nj = choice[r] % 8
                    for k in range(ns):
                        plan[row, P_KIND] = SET
                        plan[row, P_KEY] = r
                        plan[row, P_LO] = -1
                        plan[row, P_HI] = -1
                        plan[row, P_NJ] = nj // ns + (1 if k < nj % ns else 0)
                        plan[row, P_JPOS] = 0
                        row += 1
                for i in range(n_runs):
                    w = wins[work[0 + i]]
                    plan[row, P_KIND] = SEQ
                    plan[row, P_KEY] = -1 if multi else w // 16
                    plan[row, P_LO] = w % 16
                    plan[row, P_HI] = w % 16 + 3
                    jm = work[8 + i]
                    if vol_i == i:
                        jm |= 1 << vol_p
                    plan[row, P_JPOS] = jm
                    plan[row, P_NJ] = count(np.uint64(jm))
                    row += 1
        # undo the windows
        for i in range(n_runs):
            w = wins[work[0 + i]]
            s = w // 16
            lo = w % 16
            for p in range(lo, lo + 4):
                if not (work[8 + i] & (1 << p)):
                    view[card_at(s, p)] += 1
        if best == 0:
            break
        # next combination with repetition work[0 + 0] <= work[0 + 1] <= ...
        k = n_runs - 1
        while k >= 0 and work[0 + k] == nw - 1:
            k -= 1
        if k < 0:
            break
        work[0 + k] += 1
        for i in range(k + 1, n_runs):
            work[0 + i] = work[0 + k]
    if best >= 1 << 20:
        return -1
    return best


@hot
def fits_multi(c: int, tm: np.ndarray, i: int, jlim: int, top: int) -> int:
    """Can kind ``c`` (a natural, or ``JOKER_KIND``) be added to multi-pack table meld
    ``i``? -1: no. Else, for a set 0; for a sequence the position it takes one past an end
    (``pos``), or ``100 + p`` when a natural takes the place of the joker ending the
    sequence at ``p`` (the joker then moves one step further out: a *shift*). A set takes
    any number of naturals of its rank; a joker goes into a meld holding fewer than
    ``jlim`` jokers (over its whole life), past the high end when it can."""
    kind = tm[i, T_KIND]
    lo = tm[i, T_LO]
    hi = tm[i, T_HI]
    if c == JOKER_KIND:
        if tm[i, T_NJ] >= jlim:
            return -1
        if kind == SET:
            return 0
        if hi + 1 <= top and not (lo == 0 and hi + 1 == 13):
            return hi + 1
        if lo - 1 >= 0 and not (lo - 1 == 0 and hi == 13):
            return lo - 1
        return -1
    r = c % N_RANKS
    if kind == SET:
        return 0 if r == tm[i, T_KEY] else -1
    if tm[i, T_KEY] >= 0 and c // N_RANKS != tm[i, T_KEY]:
        return -1
    p1, p2 = seq_positions(r, top)
    jp = tm[i, T_JPOS]
    for k in range(2):
        pc = p1 if k == 0 else p2
        if pc < 0:
            continue
        if pc == hi + 1 and pc <= top and not (lo == 0 and pc == 13):
            return pc
        if pc == lo - 1 and pc >= 0 and not (pc == 0 and hi == 13):
            return pc
        # shift: the joker ending the sequence at pc moves one step further out
        if pc == hi and (jp >> hi) & 1 and hi + 1 <= top and not (lo == 0 and hi + 1 == 13):
            return 100 + pc
        if pc == lo and (jp >> lo) & 1 and lo - 1 >= 0 and not (lo - 1 == 0 and hi == 13):
            return 100 + pc
    return -1


@hot
def add_multi(c: int, pos: int, tm: np.ndarray, i: int) -> None:
    """Add kind ``c`` to multi-pack table meld ``i`` at ``pos`` (from ``fits_multi``)."""
    tm[i, T_N] += 1
    if c == JOKER_KIND:
        tm[i, T_NJ] += 1
    if tm[i, T_KIND] == SET:
        return
    if pos >= 100:  # shift: the natural takes the joker's place, the joker moves out
        p = pos - 100
        tm[i, T_JPOS] &= ~(1 << p)
        if p == tm[i, T_HI]:
            tm[i, T_HI] = p + 1
            tm[i, T_JPOS] |= 1 << (p + 1)
        else:
            tm[i, T_LO] = p - 1
            tm[i, T_JPOS] |= 1 << (p - 1)
        return
    if c == JOKER_KIND:
        tm[i, T_JPOS] |= 1 << pos
    if pos > tm[i, T_HI]:
        tm[i, T_HI] = pos
    else:
        tm[i, T_LO] = pos
