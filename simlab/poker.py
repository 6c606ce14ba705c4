"""Poker hand ranking with wild Jokers, for any poker-like game (numba-friendly).

A hand is a bit mask of *natural* cards plus a number of wild Jokers. Natural card ids
follow the standard decks (``simlab.decks``, "52"/"54"): ``id = suit * 13 + r`` with
``r = 0 .. 12`` for 2, 3, .., 10, J, Q, K, A. Every natural card is distinct (one pack).

Categories, lowest to highest (the poker ones; no five of a kind)::

    HIGH_CARD < PAIR < TWO_PAIR < TRIPS < STRAIGHT < FLUSH < FULL_HOUSE < QUADS
    < STRAIGHT_FLUSH

A Joker stands for any card *not already in the hand* — two Jokers never copy the same
card, so five of a kind is impossible — and always takes the value best for its owner.

Short hands (fewer than 5 cards) are ranked too: a missing card is below every real
card, and a straight or a flush needs 5 cards. Hands of more than 5 cards are ranked by
their best 5 (``best5``); a game that splits long hands into successive 5-card hands
calls ``best5`` again on the leftover (``used`` tells which cards the best 5 took).

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

from simlab.jit import batch, hot

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
            key = FLUSH << CAT_SHIFT
            shift = 16
            j_left = jokers
            used = 0
            j_used = 0
            for r in range(ACE, -1, -1):
                if shift < 0:
                    break
                if (smask[s] >> r) & 1:
                    used |= 1 << (s * N_RANKS + r)
                elif j_left > 0:
                    j_left -= 1
                    j_used += 1
                else:
                    continue
                key |= (r + 1) << shift
                shift -= 4
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
    """Key of the best hand of at most 5 cards (``best5``); ``work``: int64 [35]."""
    key, _, _ = best5(nat, jokers, wheel, work[0:5], work[5:18], work[18:31], work[31:35])
    return key


@hot
def chunk_keys(nat: int, jokers: int, wheel: bool, out: np.ndarray, work: np.ndarray) -> int:
    """Split a hand into successive 5-card hands, each the strongest the cards left
    allow, and write their keys to ``out`` (then zeros up to its length). Returns how
    many chunks. Two hands compare by their chunks in order (``compare_chunks``); a
    missing chunk (a shorter hand) is key 0, below any real one."""
    m = 0
    while (nat != 0 or jokers > 0) and m < out.shape[0]:
        key, used, j_used = best5(nat, jokers, wheel, work[0:5], work[5:18], work[18:31],
                                  work[31:35])
        out[m] = key
        m += 1
        nat &= ~used
        jokers -= j_used
    for i in range(m, out.shape[0]):
        out[i] = 0
    return m


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
    """Scratch for ``evaluate`` / ``chunk_keys``."""
    return np.zeros(35, dtype=np.int64)


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
