"""Kernel helpers every XXL game shares: bit masks of cards, hand totals, the starter
("le joueur qui a le plus de points commence"), places with shared ranks (XXL pur), and
the search player's world sampling (hidden cards re-dealt to the hidden places).

Hands are uint64 bit masks over the 55 card ids (``simlab.games.xxl.deck``).

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_S56 = np.uint64(56)
_S58 = np.uint64(58)
_ONE = np.uint64(1)
# index of the lowest set bit from the de Bruijn product's top 6 bits
DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    DEBRUIJN_INDEX[(((1 << _i) * 0x03F79D71B4CB0A89) & 0xFFFFFFFFFFFFFFFF) >> 58] = _i

STARTER_RULES = ("highest_total", "dealer_left")
STARTER_HIGHEST, STARTER_DEALER_LEFT = 0, 1


@hot
def popcount(m: np.uint64) -> np.int64:
    m = m - ((m >> _ONE) & _M1)
    m = (m & _M2) + ((m >> np.uint64(2)) & _M2)
    m = (m + (m >> np.uint64(4))) & _M4
    return np.int64((m * _H01) >> _S56)


@hot
def lowest(m: np.uint64, index: np.ndarray) -> np.int64:
    """Id of the lowest card in a non-empty mask (``index`` = ``DEBRUIJN_INDEX``)."""
    low = m & (~m + _ONE)
    return index[np.int64((low * _DEBRUIJN) >> _S58)]


@hot
def bit(c: np.int64) -> np.uint64:
    return _ONE << np.uint64(c)


@hot
def hand_total(m: np.uint64, total: np.ndarray, index: np.ndarray) -> np.int64:
    """Sum of the printed totals of the cards in ``m``."""
    s = 0
    while m != 0:
        c = lowest(m, index)
        s += total[c]
        m &= m - _ONE
    return s


@hot
def starter(hands: np.ndarray, n: int, dealer: int, rule: int, total: np.ndarray,
            index: np.ndarray) -> np.int64:
    """Who plays first: the highest hand total ("le joueur qui a le plus de points
    commence"; ties: the tied player nearest the dealer's left), or the dealer's left."""
    first = (dealer + 1) % n
    if rule == STARTER_DEALER_LEFT:
        return first
    best = first
    best_total = -1
    for k in range(n):
        p = (first + k) % n
        t = hand_total(hands[p], total, index)
        if t > best_total:
            best_total = t
            best = p
    return best


@hot
def places(score: np.ndarray, n: int, lower_wins: bool, out: np.ndarray) -> None:
    """XXL pur's places: 1 + the number of players strictly better; equal scores share a
    place and the next place does not exist (1, 1, 3)."""
    for p in range(n):
        better = 0
        for q in range(n):
            if (lower_wins and score[q] < score[p]) or (not lower_wins and score[q] > score[p]):
                better += 1
        out[p] = better + 1


@hot
def sole_best(score: np.ndarray, n: int, lower_wins: bool) -> np.int64:
    """The seat with the strictly best score, -1 when the best is shared."""
    best = 0
    shared = False
    for p in range(1, n):
        if (lower_wins and score[p] < score[best]) or (not lower_wins and score[p] > score[best]):
            best = p
            shared = False
        elif score[p] == score[best]:
            shared = True
    return -1 if shared else best


@hot
def redeal_hidden(state: np.uint64, hidden: np.uint64, sizes: np.ndarray, n: int, me: int,
                  hands: np.ndarray, talon: np.ndarray, tpos: int, buf: np.ndarray,
                  index: np.ndarray) -> np.uint64:
    """One world for seat ``me``: the ``hidden`` cards (neither in its hand nor public)
    shuffled and dealt to the other seats' hands (``sizes[p]`` cards each) and to the
    talon's unseen positions ``talon[tpos:]``, in a canonical order (card ids ascending,
    then Fisher-Yates on ``state``). Reads nothing hidden but the counts."""
    k = 0
    m = hidden
    while m != 0:
        buf[k] = lowest(m, index)
        k += 1
        m &= m - _ONE
    state = rng.shuffle(state, buf, k)
    pos = 0
    for p in range(n):
        if p == me:
            continue
        h = np.uint64(0)
        for _ in range(sizes[p]):
            h |= _ONE << np.uint64(buf[pos])
            pos += 1
        hands[p] = h
    for i in range(tpos, talon.shape[0]):
        talon[i] = buf[pos]
        pos += 1
    return state
