"""Speed players: which legal card onto which pile. Both see only their own hand and
the two tops (public); how fast they act is the player model of
``simlab.mechanics.realtime`` (per-seat knobs), not a choice.

* ``random``: uniform over the legal (card, pile) pairs.
* ``heuristic``: the play that keeps the hand spread: after it, the remaining cards can
  play on the most possible tops (``spread_weight`` per rank of top covered), and, second,
  it leaves few follow-ups on the two new tops (``follow_up_weight`` per legal play left,
  default -1). The catalogue's "keep follow-ups" chooser is ``spread_weight=0`` and
  ``follow_up_weight=1``: measured, it loses to random choice (48 % at equal speed,
  20,000 games), because the follow-up it keeps is raced for on the very pile the other
  player is reaching for, while a spread hand plays on whatever top comes. The cards it
  will draw are unknown, so they do not count; ties by a fair draw.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC
from simlab.engine.jit import hot
from simlab.games.speed.rules import (
    CENTRE,
    HAND,
    KV_FOLLOW_W,
    KV_SPREAD_W,
    adjacent,
    legal,
    rank_of,
    top_rank,
)


@hot
def follow_ups(piles: np.ndarray, n: np.ndarray, seat: np.int64, slot: np.int64,
               pile: np.int64) -> np.int64:
    """Legal plays left in the hand after playing ``slot`` onto ``pile``."""
    new_top = rank_of(piles[HAND + seat, slot])
    other = top_rank(piles, n, CENTRE + 1 - pile)
    c = 0
    for j in range(n[HAND + seat]):
        if j == slot:
            continue
        r = rank_of(piles[HAND + seat, j])
        if adjacent(r, new_top):
            c += 1
        if adjacent(r, other):
            c += 1
    return c


@hot
def coverage(piles: np.ndarray, n: np.ndarray, seat: np.int64, slot: np.int64) -> np.int64:
    """Ranks a top could have on which the hand, less ``slot``, could play."""
    mask = 0
    for j in range(n[HAND + seat]):
        if j == slot:
            continue
        r = rank_of(piles[HAND + seat, j])
        mask |= (1 << ((r + 1) % 13)) | (1 << ((r + 12) % 13))
    c = 0
    while mask != 0:
        mask &= mask - 1
        c += 1
    return c


@hot
def score_of(piles: np.ndarray, n: np.ndarray, seat: np.int64, slot: np.int64,
             pile: np.int64, row: np.ndarray) -> np.int64:
    """The heuristic's value of a play: its policy knobs weigh the hand's spread and the
    follow-ups it leaves."""
    return (row[KV_SPREAD_W] * coverage(piles, n, seat, slot)
            + row[KV_FOLLOW_W] * follow_ups(piles, n, seat, slot, pile))


@hot
def choose(code: np.int64, state: np.uint64, piles: np.ndarray, n: np.ndarray,
           seat: np.int64, row: np.ndarray) -> tuple[np.uint64, np.int64, np.int64, np.int64]:
    """(state, slot, pile, options): the chosen play and how many legal plays there were
    (slot -1: none)."""
    options = 0
    best = -(1 << 40)
    n_best = 0
    for slot in range(n[HAND + seat]):
        for p in range(2):
            if legal(piles, n, seat, slot, p):
                options += 1
                score = score_of(piles, n, seat, slot, p, row) if code == HEURISTIC else 0
                if score > best:
                    best = score
                    n_best = 1
                elif score == best:
                    n_best += 1
    if options == 0:
        return state, np.int64(-1), np.int64(-1), np.int64(0)
    state, k = rng.below(state, n_best)
    for slot in range(n[HAND + seat]):
        for p in range(2):
            if legal(piles, n, seat, slot, p):
                score = score_of(piles, n, seat, slot, p, row) if code == HEURISTIC else 0
                if score == best:
                    if k == 0:
                        return state, np.int64(slot), np.int64(p), np.int64(options)
                    k -= 1
    return state, np.int64(-1), np.int64(-1), np.int64(0)  # not reached
