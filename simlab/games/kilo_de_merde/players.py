"""Kilo de merde players: which card to pass left. A seat sees its own hand and the
combinations laid aside (public), never another hand. When to slap is the player model
(``simlab.mechanics.realtime``): a seat with a combination slaps one reaction delay after
everyone holds 4 cards; its error rate makes it slap falsely.

* ``random``: any card of the hand, uniformly.
* ``heuristic`` (the catalogue's sketch): keep the rank or suit it holds most of among
  those still possible (a rank none of whose cards was laid aside, a suit with 4 cards
  still in play): pass a card that shares the least with the rest of the hand; ties by a
  fair draw. Holding a combination and a fifth card it passes the fifth.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC
from simlab.engine.jit import hot
from simlab.games.kilo_de_merde.rules import card_value


@hot
def choose_pass(code: np.int64, state: np.uint64, hand: np.ndarray, k: np.int64,
                live_rank: np.ndarray, live_suit: np.ndarray, combo: np.int64
                ) -> tuple[np.uint64, np.int64]:
    """(state, index in the hand of the card passed)."""
    if code != HEURISTIC:
        return rng.below(state, k)
    best = 1 << 30
    n_best = 0
    for j in range(k):
        v = card_value(hand, k, j, live_rank, live_suit, combo)
        if v < best:
            best = v
            n_best = 1
        elif v == best:
            n_best += 1
    state, pick = rng.below(state, n_best)
    for j in range(k):
        if card_value(hand, k, j, live_rank, live_suit, combo) == best:
            if pick == 0:
                return state, np.int64(j)
            pick -= 1
    return state, np.int64(0)  # not reached
