"""Poker hand ranking with wild Jokers, for any poker-like game (numba-friendly).

A hand is a bit mask of *natural* cards plus a number of wild Jokers. Natural card ids
follow the standard decks (``simlab.engine.decks``, "52"/"54"): ``id = suit * 13 + r`` with
``r = 0 .. 12`` for 2, 3, .., 10, J, Q, K, A. Every natural card is distinct (one pack).

Categories, lowest to highest (the poker ones; no five of a kind)::

    HIGH_CARD < PAIR < TWO_PAIR < TRIPS < STRAIGHT < FLUSH < FULL_HOUSE < QUADS
    < STRAIGHT_FLUSH

A Joker stands for any card *not already in the hand* — two Jokers never copy the same
card, so five of a kind is impossible — and always takes the value best for its owner.

Short hands (fewer than 5 cards) are ranked too: a missing card is below every real
card, and a straight or a flush needs 5 cards. Hands of more than 5 cards are ranked by
their best 5 (``best5``); ``chunk_keys`` splits a long hand into successive 5-card
hands, each the strongest the cards left allow and, among equally strong choices, the
split best for the hand's owner.

Value keys: ``category << 20 | k1 << 16 | k2 << 12 | k3 << 8 | k4 << 4 | k5`` where
``k1 .. k5`` are the tie-break ranks (``r + 1``; 0 = no card), most significant first:
the set ranks (quads, trips, then pair; two pair: high pair, low pair), then kickers in
descending order; straights by their top card only; flushes card by card. A larger key
is a stronger hand; two hands of equal key are exactly equal. The empty hand is key 0.

Counts: over the 2,598,960 five-card hands of 52 cards this gives the standard counts
(straight flush 40 including the 4 royal flushes, quads 624, full house 3,744, flush
5,108, straight 10,200, trips 54,912, two pair 123,552, pair 1,098,240, high card
1,302,540); ``tests/test_duel_las_vegas_poker.py`` checks them by enumeration, and
pins the counts of the 3,162,510 hands of 54 cards with two wild Jokers, which it checks
against a brute-force substitution of every Joker by every card not in the hand.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import batch, hot

N_RANKS = 13
N_SUITS = 4
N_NATURAL = 52
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
CATEGORIES = ("high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house",
              "quads", "straight_flush")
(HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS,
 STRAIGHT_FLUSH) = range(9)
CAT_SHIFT = 20
ACE = 12
RANK_MASK_ALL = (1 << N_RANKS) - 1
WHEEL_TOP = 3  # the 5 in A-2-3-4-5
_WHEEL = (1 << ACE) | 0b1111  # ranks A, 2, 3, 4, 5


@hot
def window(top: int) -> int:
    """Rank mask of the straight whose top card is rank ``top`` (3 = the wheel, 5-high)."""
    if top == WHEEL_TOP:
        return _WHEEL
    return 0b11111 << (top - 4)


@hot
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@hot
def category(key: int) -> int:
    return key >> CAT_SHIFT


@hot
def _pack(cat: int, k: np.ndarray) -> int:
    """Key from a category and five tie-break values (rank + 1, 0 = none)."""
    return (cat << CAT_SHIFT) | (k[0] << 16) | (k[1] << 12) | (k[2] << 8) | (k[3] << 4) | k[4]


@hot
def _take(mask: int, suit_of_rank: np.ndarray, r: int, n: int) -> int:
    """``mask`` with up to ``n`` natural cards of rank ``r`` from ``suit_of_rank`` taken
    (lowest suits first: a canonical choice)."""
    taken = 0
    for s in range(N_SUITS):
        if taken == n:
            break
        c = s * N_RANKS + r
        if (suit_of_rank[r] >> s) & 1:
            mask |= 1 << c
            taken += 1
    return mask


@hot
def _kickers(k: np.ndarray, start: int, count: int, exclude: int, cnt: np.ndarray,
             jokers: int, suit_of_rank: np.ndarray, used: int) -> tuple[int, int]:
    """Fill ``k[start:start+count]`` with the best kickers: ranks outside ``exclude`` from
    the highest down, a natural card where the hand has one, else a Joker while any is
    left (it becomes a card of that rank, which the hand lacks). Returns (used natural
    mask, Jokers used)."""
    j_used = 0
    i = start
    for r in range(ACE, -1, -1):
        if i == start + count:
            break
        if (exclude >> r) & 1:
            continue
        if cnt[r] > 0:
            k[i] = r + 1
            used = _take(used, suit_of_rank, r, 1)
            i += 1
        elif j_used < jokers:
            k[i] = r + 1
            j_used += 1
            i += 1
    return used, j_used


@hot
def _flush_in_suit(suit_ranks: int, s: int, jokers: int) -> tuple[int, int, int]:
    """(key, natural cards used, Jokers used) of the best flush in suit ``s``, whose ranks
    in the hand are ``suit_ranks``: its natural cards from the top, a Joker for each
    higher rank it lacks while any is left (the caller checks there are 5 in all)."""
    key = FLUSH << CAT_SHIFT
    shift = 16
    j_left = jokers
    used = 0
    j_used = 0
    for r in range(ACE, -1, -1):
        if shift < 0:
            break
        if (suit_ranks >> r) & 1:
            used |= 1 << (s * N_RANKS + r)
        elif j_left > 0:
            j_left -= 1
            j_used += 1
        else:
            continue
        key |= (r + 1) << shift
        shift -= 4
    return key, used, j_used


@hot
def best5(nat: int, jokers: int, wheel: bool, k: np.ndarray, cnt: np.ndarray,
          suit_of_rank: np.ndarray, smask: np.ndarray) -> tuple[int, int, int]:
    """The strongest hand of at most 5 cards among the natural cards ``nat`` (bit mask)
    and ``jokers`` wild Jokers. Returns (key, natural cards used (mask), Jokers used).

    Where equally strong choices exist, the natural cards are used before Jokers (a
    Joker left over is worth most in what remains) and, among natural cards of one rank,
    the lowest suits. ``wheel``: A-2-3-4-5 is a straight. Scratch arrays: ``k`` [5],
    ``cnt`` [13], ``suit_of_rank`` [13], ``smask`` [4] (int64)."""
    for r in range(N_RANKS):
        cnt[r] = 0
        suit_of_rank[r] = 0
    for s in range(N_SUITS):
        smask[s] = 0
    n = 0
    present = 0
    x = nat
    while x:
        c = 0
        y = x & -x
        while (y >> c) != 1:
            c += 1
        x ^= y
        s = c // N_RANKS
        r = c - s * N_RANKS
        cnt[r] += 1
        suit_of_rank[r] |= 1 << s
        smask[s] |= 1 << r
        present |= 1 << r
        n += 1
    for i in range(5):
        k[i] = 0
    total = n + jokers
    if total == 0:
        return 0, 0, 0
    lowest_top = WHEEL_TOP if wheel else 4
    # straight flush: the highest window any suit completes with the Jokers
    if total >= 5:
        for top in range(ACE, lowest_top - 1, -1):
            w = window(top)
            best_s = -1
            best_missing = 6
            for s in range(N_SUITS):
                missing = 5 - popcount(smask[s] & w)
                if missing <= jokers and missing < best_missing:
                    best_s = s
                    best_missing = missing
            if best_s >= 0:
                k[0] = top + 1
                used = 0
                for r in range(N_RANKS):
                    if (smask[best_s] & w) >> r & 1:
                        used |= 1 << (best_s * N_RANKS + r)
                return _pack(STRAIGHT_FLUSH, k), used, best_missing
    # four of a kind: the highest rank the Jokers complete, then the best kicker
    for r in range(ACE, -1, -1):
        need = 4 - cnt[r]
        if need <= jokers:
            k[0] = r + 1
            used = _take(0, suit_of_rank, r, 4)
            used, jk = _kickers(k, 1, 1, 1 << r, cnt, jokers - need, suit_of_rank, used)
            return _pack(QUADS, k), used, need + jk
    # full house: the highest triple, then the highest pair the Jokers left allow
    if total >= 5:
        for t in range(ACE, -1, -1):
            need_t = max(0, 3 - cnt[t])
            if need_t > jokers:
                continue
            for p in range(ACE, -1, -1):
                if p == t:
                    continue
                need_p = max(0, 2 - cnt[p])
                if need_t + need_p <= jokers:
                    k[0] = t + 1
                    k[1] = p + 1
                    used = _take(_take(0, suit_of_rank, t, 3), suit_of_rank, p, 2)
                    return _pack(FULL_HOUSE, k), used, need_t + need_p
    # flush: per suit, its cards and the Jokers as its highest missing cards; best 5
    if total >= 5:
        best_key = -1
        best_used = 0
        best_j = 0
        for s in range(N_SUITS):
            if popcount(smask[s]) + jokers < 5:
                continue
            key, used, j_used = _flush_in_suit(smask[s], s, jokers)
            if key > best_key or (key == best_key and j_used < best_j):
                best_key = key
                best_used = used
                best_j = j_used
        if best_key >= 0:
            return best_key, best_used, best_j
    # straight: the highest window of ranks the Jokers complete
    if total >= 5:
        for top in range(ACE, lowest_top - 1, -1):
            w = window(top)
            missing = 5 - popcount(present & w)
            if missing <= jokers:
                k[0] = top + 1
                used = 0
                for r in range(N_RANKS):
                    if (present & w) >> r & 1:
                        used = _take(used, suit_of_rank, r, 1)
                return _pack(STRAIGHT, k), used, missing
    # three of a kind
    for t in range(ACE, -1, -1):
        need = max(0, 3 - cnt[t])
        if need <= jokers and total >= 3:
            k[0] = t + 1
            used = _take(0, suit_of_rank, t, 3)
            used, jk = _kickers(k, 1, 2, 1 << t, cnt, jokers - need, suit_of_rank, used)
            return _pack(TRIPS, k), used, need + jk
    # two pair (natural only: one Joker with a pair already makes three of a kind)
    hi_p = -1
    lo_p = -1
    for r in range(ACE, -1, -1):
        if cnt[r] >= 2:
            if hi_p < 0:
                hi_p = r
            elif lo_p < 0:
                lo_p = r
    if lo_p >= 0:
        k[0] = hi_p + 1
        k[1] = lo_p + 1
        used = _take(_take(0, suit_of_rank, hi_p, 2), suit_of_rank, lo_p, 2)
        used, jk = _kickers(k, 2, 1, (1 << hi_p) | (1 << lo_p), cnt, jokers, suit_of_rank,
                            used)
        return _pack(TWO_PAIR, k), used, jk
    # one pair: a natural pair, or a Joker pairing the highest card (two Jokers alone: Aces)
    for r in range(ACE, -1, -1):
        need = max(0, 2 - cnt[r])
        if need <= jokers and total >= 2:
            k[0] = r + 1
            used = _take(0, suit_of_rank, r, 2)
            used, jk = _kickers(k, 1, 3, 1 << r, cnt, jokers - need, suit_of_rank, used)
            return _pack(PAIR, k), used, need + jk
    # high card (a lone Joker is an Ace)
    used, jk = _kickers(k, 0, 5, 0, cnt, jokers, suit_of_rank, 0)
    return _pack(HIGH_CARD, k), used, jk


@hot
def evaluate(nat: int, jokers: int, wheel: bool, work: np.ndarray) -> int:
    """Key of the best hand of at most 5 cards (``best5``); ``work``: int64 [35] or more."""
    key, _, _ = best5(nat, jokers, wheel, work[0:5], work[5:18], work[18:31], work[31:35])
    return key


# --- splitting a long hand into successive 5-card hands ----------------------------------
# ``chunk_keys`` searches the splits whose every hand is the strongest the cards left
# allow, for the one best for the hand's owner. Its scratch, after best5's 35 ints: the
# current split's keys, the best split's keys, then one record per chunk level.
MAX_CHUNKS = 12  # the most 5-card hands a split has (a hand of up to 60 cards)
_CUR = 35
_BEST = _CUR + MAX_CHUNKS
_LEVELS = _BEST + MAX_CHUNKS
# a level's record: the cards it splits (natural, Jokers, how many), how its alternative best 5s are described, how
# many there are and the next to try; the Jokers and the fixed natural cards every
# alternative of kind RANKS uses; then its items (RANKS: rank, count, suits held, number of
# choices, per rank whose suits may vary; LIST: natural cards used, Jokers used)
(L_NAT, L_JOK, L_TOTAL, L_KIND, L_NALT, L_NEXT, L_JU, L_NRANKS, L_FIXED,
 L_ITEMS) = range(10)
_LEVEL = L_ITEMS + 20
KIND_LIST, KIND_RANKS = 0, 1
# the cards left after some chunks are often reached again by another order of the same
# choices (a royal flush in spades then hearts, or hearts then spades): a table of the
# (cards left, chunks taken, those chunks' keys) already searched, marked with the call's
# stamp, skips them
_STAMP = _LEVELS + MAX_CHUNKS * _LEVEL
_TABLE = _STAMP + 1
_TABLE_SLOTS = 256
(T_STAMP, T_NAT, T_JOK, T_DEPTH, T_KEYS) = range(5)
_ENTRY = T_KEYS + MAX_CHUNKS
WORK_SIZE = _TABLE + _TABLE_SLOTS * _ENTRY


@hot
def _choose(n: int, k: int) -> int:
    c = 1
    for i in range(k):
        c = c * (n - i) // (i + 1)
    return c


@hot
def _open_level(nat: int, jokers: int, total: int, wheel: bool, work: np.ndarray,
                d: int) -> None:
    """Chunk level ``d`` of the split search: the best 5 of ``nat`` + ``jokers`` (``total``
    cards; its key to the current split's keys) and the equally strong choices of its
    cards.

    A best 5's key fixes the rank of each of its cards, so equally strong choices differ
    only (a) in which suits serve for a rank the hand holds in more copies than it
    uses, (b) for a flush or straight flush, in the suit, or (c) in a Joker standing for
    a natural card the hand holds. (c) never helps the leftover (a Joker left over can
    be that very card), so best5's natural cards first stay. (b) is at most 4 choices,
    all kept. (a) only changes which suits are left over, which matters only where the
    leftover can hold a flush (5 cards of a suit, Jokers included); otherwise the best 5
    of ``best5`` is the only choice kept."""
    k = work[0:5]
    cnt = work[5:18]
    sor = work[18:31]
    smask = work[31:35]
    key, used, ju = best5(nat, jokers, wheel, k, cnt, sor, smask)
    work[_CUR + d] = key
    b = _LEVELS + d * _LEVEL
    work[b + L_NAT] = nat
    work[b + L_JOK] = jokers
    work[b + L_TOTAL] = total
    work[b + L_NEXT] = 0
    work[b + L_KIND] = KIND_LIST
    work[b + L_NALT] = 1
    work[b + L_ITEMS] = used
    work[b + L_ITEMS + 1] = ju
    left = total - popcount(used) - ju
    if left == 0:
        return
    cat = key >> CAT_SHIFT
    if cat == FLUSH or cat == STRAIGHT_FLUSH:
        n = 0
        top = ((key >> 16) & 15) - 1
        for s in range(N_SUITS):
            if cat == STRAIGHT_FLUSH:
                w = window(top)
                j = 5 - popcount(smask[s] & w)
                if j > jokers:
                    continue
                u = (smask[s] & w) << (s * N_RANKS)
            else:
                if popcount(smask[s]) + jokers < 5:
                    continue
                kk, u, j = _flush_in_suit(smask[s], s, jokers)
                if kk != key:
                    continue
            work[b + L_ITEMS + 2 * n] = u
            work[b + L_ITEMS + 2 * n + 1] = j
            n += 1
        work[b + L_NALT] = n
        return
    if left < 5:
        return
    flushable = False
    for s in range(N_SUITS):
        if popcount(smask[s]) + jokers - ju >= 5:
            flushable = True
    if not flushable:
        return
    nalt = 1
    nr = 0
    fixed = used
    for r in range(N_RANKS):
        need = 0
        for s in range(N_SUITS):
            need += (used >> (s * N_RANKS + r)) & 1
        if need == 0:
            continue
        ch = _choose(popcount(sor[r]), need)
        if ch > 1:
            i = b + L_ITEMS + 4 * nr
            work[i] = r
            work[i + 1] = need
            work[i + 2] = sor[r]
            work[i + 3] = ch
            nr += 1
            nalt *= ch
            for s in range(N_SUITS):
                fixed &= ~(1 << (s * N_RANKS + r))
    if nalt > 1:
        work[b + L_KIND] = KIND_RANKS
        work[b + L_NALT] = nalt
        work[b + L_JU] = ju
        work[b + L_NRANKS] = nr
        work[b + L_FIXED] = fixed


@hot
def _alternative(work: np.ndarray, d: int, i: int) -> tuple[int, int]:
    """(natural cards used, Jokers used) of level ``d``'s alternative ``i``."""
    b = _LEVELS + d * _LEVEL
    if work[b + L_KIND] == KIND_LIST:
        return work[b + L_ITEMS + 2 * i], work[b + L_ITEMS + 2 * i + 1]
    used = work[b + L_FIXED]
    for j in range(work[b + L_NRANKS]):
        it = b + L_ITEMS + 4 * j
        r = work[it]
        need = work[it + 1]
        held = work[it + 2]
        ch = work[it + 3]
        c = i % ch
        i //= ch
        for m in range(1, 1 << N_SUITS):  # the c-th set of ``need`` suits among ``held``
            if m & ~held == 0 and popcount(m) == need:
                if c == 0:
                    for s in range(N_SUITS):
                        if (m >> s) & 1:
                            used |= 1 << (s * N_RANKS + r)
                    break
                c -= 1
    return used, work[b + L_JU]


@hot
def _cmp_prefix(work: np.ndarray, n: int) -> int:
    """Sign of the current split's first ``n`` keys against the best split's."""
    for i in range(n):
        if work[_CUR + i] > work[_BEST + i]:
            return 1
        if work[_CUR + i] < work[_BEST + i]:
            return -1
    return 0


@hot
def _searched(work: np.ndarray, nat: int, jokers: int, d: int) -> bool:
    """True if the cards ``nat`` + ``jokers`` left after ``d`` chunks were already
    searched after chunks whose keys are at least the current split's ``d`` first keys
    (every split through here is then no better than the best found); else records them
    as searched now, after the current keys."""
    h = (nat ^ (nat >> 13) ^ (nat >> 29) ^ (jokers << 5) ^ (d << 8)) & (_TABLE_SLOTS - 1)
    e = _TABLE + h * _ENTRY
    if (work[e + T_STAMP] == work[_STAMP] and work[e + T_NAT] == nat
            and work[e + T_JOK] == jokers and work[e + T_DEPTH] == d):
        sign = 0
        for i in range(d):
            if work[_CUR + i] != work[e + T_KEYS + i]:
                sign = 1 if work[_CUR + i] > work[e + T_KEYS + i] else -1
                break
        if sign <= 0:
            return True
    work[e + T_STAMP] = work[_STAMP]
    work[e + T_NAT] = nat
    work[e + T_JOK] = jokers
    work[e + T_DEPTH] = d
    for i in range(d):
        work[e + T_KEYS + i] = work[_CUR + i]
    return False


@hot
def chunk_keys(nat: int, jokers: int, wheel: bool, out: np.ndarray, work: np.ndarray) -> int:
    """Split a hand into successive 5-card hands, each the strongest the cards left
    allow, and write their keys to ``out`` (then zeros up to its length). Returns how
    many chunks. Two hands compare by their chunks in order (``compare_chunks``); a
    missing chunk (a shorter hand) is key 0, below any real one.

    Where several equally strong best 5s leave different cards, the split is the one
    best for the hand's owner (Duel à Las Vegas, catalogue #4): the largest sequence of
    keys, compared chunk by chunk, over every such choice at every chunk (a depth-first
    search with the choices ``_open_level`` keeps, cut where the keys so far already
    fall below the best split found, or where the cards left were already searched).
    ``work``: ``work_array()`` (``WORK_SIZE`` ints); at most ``MAX_CHUNKS`` chunks are
    computed."""
    for i in range(out.shape[0]):
        out[i] = 0
    if (nat == 0 and jokers <= 0) or out.shape[0] == 0:
        return 0
    total = popcount(nat) + jokers
    if total <= 5:  # one chunk, no choice
        out[0] = evaluate(nat, jokers, wheel, work)
        return 1
    depth = min(out.shape[0], MAX_CHUNKS)
    for i in range(MAX_CHUNKS):
        work[_CUR + i] = 0
        work[_BEST + i] = 0
    have = False
    branched = False
    best_m = 0
    work[_STAMP] += 1
    _open_level(nat, jokers, total, wheel, work, 0)
    d = 0
    while True:
        b = _LEVELS + d * _LEVEL
        if work[b + L_NEXT] == work[b + L_NALT]:
            if d == 0:
                break
            d -= 1
            continue
        branched = branched or work[b + L_NALT] > 1
        used, ju = _alternative(work, d, work[b + L_NEXT])
        work[b + L_NEXT] += 1
        rest = work[b + L_NAT] & ~used
        rest_j = work[b + L_JOK] - ju
        rest_total = work[b + L_TOTAL] - popcount(used) - ju
        if rest_total == 0 or d + 1 == depth:
            # a whole split: keys 0..d, then nothing (a key of 0)
            if not have or _cmp_prefix(work, d + 1) > 0:
                have = True
                best_m = d + 1
                for i in range(MAX_CHUNKS):
                    work[_BEST + i] = work[_CUR + i] if i <= d else 0
            continue
        if branched and _searched(work, rest, rest_j, d + 1):
            continue
        _open_level(rest, rest_j, rest_total, wheel, work, d + 1)
        if have and _cmp_prefix(work, d + 2) < 0:
            continue  # already below the best split
        d += 1
    for i in range(best_m):
        out[i] = work[_BEST + i]
    return best_m


@hot
def compare_chunks(a: np.ndarray, b: np.ndarray) -> int:
    """+1 if the chunk keys ``a`` beat ``b``, -1 if they lose, 0 if exactly equal."""
    for i in range(a.shape[0]):
        if a[i] > b[i]:
            return 1
        if a[i] < b[i]:
            return -1
    return 0


def work_array() -> np.ndarray:
    """Scratch for ``evaluate`` (its first 35 ints) and ``chunk_keys``."""
    return np.zeros(WORK_SIZE, dtype=np.int64)


def mask_of(cards: list[int]) -> tuple[int, int]:
    """(natural mask, Jokers) of a list of card ids (ids >= 52 are Jokers)."""
    nat = 0
    jokers = 0
    for c in cards:
        if c >= N_NATURAL:
            jokers += 1
        else:
            nat |= 1 << c
    return nat, jokers


def card_id(label: str) -> int:
    """Natural card id of a label such as ``"10♠"`` or ``"Q♥"`` ("Joker" -> 52)."""
    if label.lower().startswith("joker"):
        return N_NATURAL
    suits = "♠♥♦♣"
    return suits.index(label[-1]) * N_RANKS + RANK_LABELS.index(label[:-1])


def describe(key: int) -> str:
    """Readable form of a key, e.g. ``quads K, A`` (for traces and tests)."""
    cat = key >> CAT_SHIFT
    ranks = [(key >> s) & 15 for s in (16, 12, 8, 4, 0)]
    shown = ", ".join(RANK_LABELS[r - 1] for r in ranks if r)
    return f"{CATEGORIES[cat]} {shown}".strip()


@batch
def category_counts(jokers: int, wheel: bool, out: np.ndarray, work: np.ndarray) -> None:
    """Adds to ``out`` [9] the category counts of every 5-card hand from the 52 natural
    cards plus ``jokers`` wild Jokers (hands holding i Jokers are counted C(jokers, i)
    times: the Jokers are distinct cards)."""
    for nj in range(min(jokers, 5) + 1):
        ways = 1
        for i in range(nj):  # C(jokers, nj)
            ways = ways * (jokers - i) // (i + 1)
        nn = 5 - nj
        idx = np.zeros(5, dtype=np.int64)
        for i in range(nn):
            idx[i] = i
        while True:
            nat = 0
            for i in range(nn):
                nat |= 1 << idx[i]
            out[evaluate(nat, nj, wheel, work) >> CAT_SHIFT] += ways
            # next combination of nn indices out of 52
            i = nn - 1
            while i >= 0 and idx[i] == N_NATURAL - nn + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for q in range(i + 1, nn):
                idx[q] = idx[q - 1] + 1
