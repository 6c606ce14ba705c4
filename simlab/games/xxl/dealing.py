"""Dealing the XXL deck, and exact dealing frequencies.

Every XXL game shuffles the 55 card ids with :func:`shuffle_deck` on the deal's own
stream (``simlab.engine.rng``: seed, deal index, sub-index, SHUFFLE), then deals from the
top: seat after seat, ``hand`` cards each, then the turned cards, the rest is the talon.
Card ids do not depend on the colouring, so a deal is the same under every colouring.

May import: the engine; ``simlab.games.xxl.deck``.
"""

from __future__ import annotations

from math import comb

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot
from simlab.games.xxl.deck import N_CARDS


@hot
def shuffle_deck(seed: np.uint64, index: np.int64, sub: np.int64, order: np.ndarray) -> None:
    """``order[:55]`` = the card ids in the shuffled order of deal (index, sub)."""
    for i in range(N_CARDS):
        order[i] = i
    state = rng.stream(seed, index, sub, rng.SHUFFLE)
    rng.shuffle(state, order, N_CARDS)


@hot
def deal_hands(order: np.ndarray, players: int, hand: int, hands: np.ndarray) -> int:
    """``hands[p]`` = bit mask of seat p's ``hand`` cards (dealt in blocks from the top of
    ``order``); returns the position of the next undealt card."""
    pos = 0
    for p in range(players):
        m = np.uint64(0)
        for _ in range(hand):
            m |= np.uint64(1) << np.uint64(order[pos])
            pos += 1
        hands[p] = m
    return pos


def p_hand_misses(m: int, hand: int, deck: int = N_CARDS) -> float:
    """Exact chance that a ``hand``-card hand holds none of ``m`` given cards
    (hypergeometric): e.g. no card with a 10 half (m = 10) in 9 cards."""
    return comb(deck - m, hand) / comb(deck, hand)


def p_hand_holds_exactly(m: int, j: int, hand: int, deck: int = N_CARDS) -> float:
    """Exact chance that a ``hand``-card hand holds exactly ``j`` of ``m`` given cards."""
    return comb(m, j) * comb(deck - m, hand - j) / comb(deck, hand)
