"""La batouille players: each is a probability over the cards of its hand, given both
hands (public), the trick difference and the consecutive ties; the kernel draws the card
from the deal's policy stream. The same function serves the exact computations of
``equilibrium.py`` (best responses to a fixed player).

* ``random``: uniform over the hand.
* ``heuristic`` ("sacrifice", the catalogue's mixed policy): holding a card above
  everything the opponent has, play the cheapest such card (a sure trick); otherwise mix
  three choices, a third each: my lowest card (a sacrifice, should he spend his best),
  the cheapest card beating his lowest (should he save his cards), any card uniformly
  (so that he cannot read me; two fixed players would also tie forever). Exact
  computations (``equilibrium.py``, 6 ranks) have it beat random, highest, lowest and
  mixed_high; the equilibrium gains 0.005 a game from it and a best response 0.94.
* ``highest`` / ``lowest``: always the highest / the lowest card.
* ``mixed_high``: the highest with probability ``mixed_high_p``, else the lowest (a seat
  may have its own: ``mixed_high:mixed_high_p=0.2``; the kernel passes each seat its row
  of ``seat_kv``, ``simlab.engine.seatknobs``).
* ``equilibrium``: the exact equilibrium's mixed strategy (``equilibrium.py``), read from
  a table built before the run (ranks <= 8).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import policy_name
from simlab.games.batouille.rules import KV_P_HIGH, KV_RANKS, P_SCALE, bottom, n_cards, top

RANDOM, HEURISTIC, EQUILIBRIUM, HIGHEST, LOWEST, MIXED_HIGH = range(6)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "equilibrium": EQUILIBRIUM,
                "highest": HIGHEST, "lowest": LOWEST, "mixed_high": MIXED_HIGH}
_INV53 = 1.0 / 9007199254740992.0


def policy_codes(policies: tuple[str, ...]) -> np.ndarray:
    """This game's own player codes (``POLICY_CODES``): it has more players than the
    engine's random / heuristic / search, so it does not use ``engine.game.policy_codes``."""
    if len(policies) != 2:
        raise SimlabError(f"batouille needs 2 policies, got {len(policies)}")
    try:
        return np.array([POLICY_CODES[policy_name(s)] for s in policies], dtype=np.int64)
    except KeyError as e:
        raise SimlabError(f"unknown policy {e.args[0]!r} for batouille; valid policies: "
                          f"{', '.join(POLICY_CODES)}") from None


@hot
def eq_row(mine: np.int64, theirs: np.int64, d: np.int64, t: np.int64, n: np.int64,
           n_ties: np.int64, pidx: np.ndarray) -> np.int64:
    """Row of the equilibrium table for the seat holding ``mine`` (-1: the result is
    already decided, any card will do)."""
    k = n_cards(mine)
    if d > k or -d > k:
        return -1
    h = n // 2
    pid = pidx[(mine << n) | theirs]
    return ((pid * (2 * h + 1)) + d + h) * n_ties + t


@hot
def policy_dist(code: np.int64, mine: np.int64, theirs: np.int64, d: np.int64, t: np.int64,
                kv: np.ndarray, n_ties: np.int64, eq: np.ndarray, pidx: np.ndarray,
                out: np.ndarray) -> None:
    """``out[r]``: probability of playing rank index ``r`` (zero outside ``mine``)."""
    n = kv[KV_RANKS]
    for r in range(n):
        out[r] = 0.0
    k = n_cards(mine)
    if code == HIGHEST:
        out[top(mine)] = 1.0
    elif code == LOWEST:
        out[bottom(mine)] = 1.0
    elif code == MIXED_HIGH:
        p = kv[KV_P_HIGH] / P_SCALE
        out[top(mine)] += p
        out[bottom(mine)] += 1.0 - p
    elif code == HEURISTIC:
        a = top(mine)
        b = top(theirs)
        if a > b:  # the cheapest sure trick
            r = b + 1
            while (mine >> r) & 1 == 0:
                r += 1
            out[r] = 1.0
        else:
            low = bottom(mine)
            out[low] += 1.0 / 3.0  # sacrifice: he may spend his best card
            r = bottom(theirs) + 1  # the cheapest card beating his lowest
            while r < n and (mine >> r) & 1 == 0:
                r += 1
            out[r if r < n else low] += 1.0 / 3.0
            for r in range(n):  # and any card: he cannot read me
                if (mine >> r) & 1 == 1:
                    out[r] += 1.0 / (3.0 * k)
    elif code == EQUILIBRIUM:
        row = eq_row(mine, theirs, d, t, n, n_ties, pidx)
        if row < 0:
            for r in range(n):
                if (mine >> r) & 1 == 1:
                    out[r] = 1.0 / k
        else:
            for r in range(n):
                out[r] = eq[row, r]
    else:  # RANDOM
        for r in range(n):
            if (mine >> r) & 1 == 1:
                out[r] = 1.0 / k


@hot
def sample(state: np.uint64, mine: np.int64, n: np.int64, dist: np.ndarray
           ) -> tuple[np.uint64, np.int64]:
    """A rank drawn from ``dist`` (a card of ``mine``); a single card takes no draw."""
    if mine & (mine - 1) == 0:
        return state, bottom(mine)
    state, x = rng.next_u64(state)
    u = np.float64(x >> np.uint64(11)) * _INV53
    acc = 0.0
    last = -1
    for r in range(n):
        if (mine >> r) & 1 == 1 and dist[r] > 0.0:
            acc += dist[r]
            last = r
            if u < acc:
                return state, r
    return state, last


@hot
def choose(code: np.int64, state: np.uint64, mine: np.int64, theirs: np.int64, d: np.int64,
           t: np.int64, kv: np.ndarray, n_ties: np.int64, eq: np.ndarray, pidx: np.ndarray,
           dist: np.ndarray) -> tuple[np.uint64, np.int64]:
    n = kv[KV_RANKS]
    if code == RANDOM:  # the cheap path: one bounded draw
        k = n_cards(mine)
        if k == 1:
            return state, bottom(mine)
        state, j = rng.below(state, k)
        for r in range(n):
            if (mine >> r) & 1 == 1:
                if j == 0:
                    return state, r
                j -= 1
    policy_dist(code, mine, theirs, d, t, kv, n_ties, eq, pidx, dist)
    return sample(state, mine, n, dist)
