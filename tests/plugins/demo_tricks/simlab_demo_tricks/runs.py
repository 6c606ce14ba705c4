"""Demo tricks runs: deals and matches played out into result rows (``run_deals``,
``run_matches``: the runner's entry points, see ``simlab.engine.game``).

Each deal draws from its own random stream ``numpy.random.default_rng([seed, deal])`` (a
match from ``[seed, 1, match]``), so the rows never depend on how a run is split between
jobs and chunks. Plain Python: correct, not fast (a numba kernel is the way to go fast,
see simlab's own games).

May import: simlab.engine.*, numpy, this package's rules and players.
"""

from __future__ import annotations

import numpy as np
from simlab.engine.game import KernelOutput

from simlab_demo_tricks.players import choose
from simlab_demo_tricks.rules import (
    GameKnobs,
    State,
    apply,
    deal,
    is_over,
    outcome,
    suit_of,
    view,
)

MAX_MATCH_DEALS = 1000  # a match where the top keeps being shared stops here


def play_deal(knobs: GameKnobs, policies: tuple[str, ...], rng: np.random.Generator,
              dealer: int) -> State:
    """One deal from the shuffle to the last trick."""
    state = deal(knobs, rng, dealer)
    while not is_over(state):
        seat = state.to_play
        state = apply(state, choose(policies[seat], view(state, seat), rng))
    return state


def deal_row(index: int, state: State) -> list[int]:
    first_lead = state.tricks[0][0][1]
    return ([index, state.dealer, (state.dealer + 1) % state.players, state.trump,
             int(state.trump >= 0 and suit_of(first_lead) == state.trump), state.winners[-1]]
            + outcome(state))


def run_deals(knobs: GameKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    """Deals ``start .. start+count-1``; the dealer of deal i is seat i mod players."""
    n, k = knobs.players, knobs.hand_size
    rows = np.zeros((count, 6 + n), dtype=np.int64)
    dealt = np.full((count, n, k), -1, dtype=np.int64) if record_hands else None
    for j in range(count):
        i = start + j
        state = play_deal(knobs, policies, np.random.default_rng([seed, i]), i % n)
        rows[j] = deal_row(i, state)
        if dealt is not None:
            for s in range(n):
                dealt[j, s] = sorted(c for t in state.tricks for p, c in t if p == s)
    return KernelOutput(rows, dealt=dealt, hands=dealt)


def run_matches(knobs: GameKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    """Matches ``start .. start+count-1``: deals with the dealer rotating from seat 0
    until somebody has ``target`` points and the top is not shared."""
    n = knobs.players
    rows = np.zeros((count, 3 + n), dtype=np.int64)
    for j in range(count):
        m = start + j
        rng = np.random.default_rng([seed, 1, m])
        totals = [0] * n
        deals = 0
        while deals < MAX_MATCH_DEALS:
            points = outcome(play_deal(knobs, policies, rng, deals % n))
            totals = [a + b for a, b in zip(totals, points, strict=True)]
            deals += 1
            top = max(totals)
            if top >= knobs.target and totals.count(top) == 1:
                break
        top = max(totals)
        winner = totals.index(top) if totals.count(top) == 1 else -1
        rows[j] = [m, winner, deals, *totals]
    return KernelOutput(rows)
