"""Demo tricks players: each decides from a ``SeatView`` (what its seat sees), never from
the full state.

* ``random``: a legal card, uniformly;
* ``heuristic``: lead the highest trump with three trumps or more, else an Ace of a side
  suit, else the lowest card of the longest side suit; follow with the cheapest card that
  takes the trick, else throw the lowest card;
* ``search``: determinized search: ``WORLDS`` times, deal the unseen cards consistently
  with the seat's view (``rules.sample_state``), play each legal card then the heuristic
  to the end, and keep the card with the best total of (own points - the others' mean).

May import: simlab.engine.*, numpy, this package's rules.
"""

from __future__ import annotations

import numpy as np

from simlab_demo_tricks.rules import (
    SeatView,
    State,
    apply,
    is_over,
    legal_in_view,
    outcome,
    rank_of,
    sample_state,
    suit_of,
    trick_winner,
    view,
)

POLICIES = ("random", "heuristic", "search")
WORLDS = 8  # sampled deals per search decision


def choose(policy: str, v: SeatView, rng: np.random.Generator) -> int:
    """The card ``policy`` plays from this view."""
    moves = legal_in_view(v)
    if len(moves) == 1:
        return moves[0]
    if policy == "random":
        return moves[int(rng.integers(len(moves)))]
    if policy == "heuristic":
        return heuristic(v, moves)
    if policy == "search":
        return search(v, moves, rng)
    raise ValueError(f"unknown policy {policy!r}")


def _power(c: int, trump: int) -> int:
    return rank_of(c) + (8 if suit_of(c) == trump else 0)


def heuristic(v: SeatView, moves: list[int]) -> int:
    trump = v.trump
    if not v.trick:
        trumps = [c for c in moves if suit_of(c) == trump]
        if len(trumps) >= 3:  # long in trumps: draw the others' trumps, highest first
            return max(trumps, key=rank_of)
        side = [c for c in moves if suit_of(c) != trump]
        aces = [c for c in side if rank_of(c) == 7]
        if aces:
            return aces[0]
        if not side:
            return min(moves, key=rank_of)
        length = {s: sum(suit_of(c) == s for c in side) for s in range(4)}
        return min(side, key=lambda c: (-length[suit_of(c)], rank_of(c), c))
    winning = [c for c in moves
               if trick_winner((*v.trick, (v.seat, c)), trump) == v.seat]
    if winning:
        return min(winning, key=lambda c: (_power(c, trump), c))
    return min(moves, key=lambda c: (_power(c, trump), c))


def _finish_with_heuristic(state: State) -> list[int]:
    while not is_over(state):
        v = view(state, state.to_play)
        state = apply(state, heuristic(v, legal_in_view(v)))
    return outcome(state)


def search(v: SeatView, moves: list[int], rng: np.random.Generator) -> int:
    total = dict.fromkeys(moves, 0.0)
    others = v.players - 1
    for _ in range(WORLDS):
        world = sample_state(v, rng)
        for m in moves:
            points = _finish_with_heuristic(apply(world, m))
            mine = points[v.seat]
            total[m] += mine - (sum(points) - mine) / others
    best = max(total.values())
    return next(m for m in moves if total[m] == best)
