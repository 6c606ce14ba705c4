"""La batouille solved exactly: dynamic programming over the states (hand of the row
seat, hand of the other seat, trick difference, consecutive ties), each a zero-sum
matrix game (``simlab.mechanics.matrix_game``) whose entries are the values of the
states a pair of cards leads to. Payoff: +1 won, 0 drawn, -1 lost for the row seat.

Two reductions keep it small. Only the order of the cards in play matters, so a state
is memoised with its hands *compressed* to the ranks either seat still holds
(``{3, 7} vs {5, 7}`` is ``{0, 2} vs {1, 2}``), and the ties counter is dropped when the
hands share no rank (no tie can happen). The game is symmetric: the value of
``(b, a, -d, t)`` is minus that of ``(a, b, d, t)`` with the strategies swapped. A result
already decided (``|d|`` above the cards left) is ``sign(d)``.

``strategy_table`` lays the row seat's strategy out for the kernel: row
``(pair_index[(mine << n) | theirs] * (2h + 1) + d + h) * ties + t`` (``h = n // 2``, the
largest ``|d|`` still undecided), one column per rank index. Both seats read it, each as
the row seat of its own view. Exact up to ``EQ_MAX_RANKS`` = 8 ranks.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from itertools import combinations

import numpy as np

from simlab.engine.knobs import SimlabError
from simlab.games.batouille.players import EQUILIBRIUM, policy_codes, policy_dist
from simlab.games.batouille.rules import (
    EQ_MAX_RANKS,
    MAX_RANKS,
    BatouilleKnobs,
    effective_ties,
    knob_vector,
)
from simlab.mechanics import matrix_game

MAX_EQ_TIES = 20  # the ties dimension multiplies states and table rows


def _bits(mask: int) -> list[int]:
    return [r for r in range(mask.bit_length()) if (mask >> r) & 1]


def compress(a: int, b: int) -> tuple[int, int]:
    """Both hands relabelled onto the ranks either holds (0 = the lowest of them)."""
    u = a | b
    ca = cb = 0
    i = 0
    while u:
        if u & 1:
            ca |= (a & 1) << i
            cb |= (b & 1) << i
            i += 1
        u >>= 1
        a >>= 1
        b >>= 1
    return ca, cb


def _sign(d: int) -> float:
    return float((d > 0) - (d < 0))


class Solver:
    """Memoised values and strategies of one variant (``n_ties`` consecutive ties make a
    void trick)."""

    def __init__(self, n_ties: int) -> None:
        self.n_ties = n_ties
        self.memo: dict[tuple[int, int, int, int], tuple[float, np.ndarray, np.ndarray]] = {}
        self.lps = 0

    def terminal(self, a: int, b: int, d: int) -> float | None:
        k = a.bit_count()
        if k == 0 or abs(d) > k:
            return _sign(d)
        if k == 1 and a == b:  # the forced void trick ends the game
            return _sign(d)
        return None

    def value(self, a: int, b: int, d: int, t: int) -> float:
        v = self.terminal(a, b, d)
        if v is not None:
            return v
        return self.solve(a, b, d, t)[0]

    def solve(self, a: int, b: int, d: int, t: int) -> tuple[float, np.ndarray, np.ndarray]:
        """(value, row strategy over ``a``'s cards low to high, column strategy over
        ``b``'s) of a live state."""
        ca, cb = compress(a, b)
        if ca & cb == 0:
            t = 0
        key = (ca, cb, d, t)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        mirror = self.memo.get((cb, ca, -d, t))
        if mirror is not None:
            out = (-mirror[0], mirror[2], mirror[1])
            self.memo[key] = out
            return out
        rows, cols = _bits(ca), _bits(cb)
        m = np.empty((len(rows), len(cols)))
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                m[i, j] = self.entry(ca, cb, d, t, r, c)
        v, x, y = matrix_game.solve(m)
        self.lps += 1
        out = (v, x, y)
        self.memo[key] = out
        return out

    def entry(self, a: int, b: int, d: int, t: int, r: int, c: int) -> float:
        if r > c:
            return self.value(a & ~(1 << r), b & ~(1 << c), d + 1, 0)
        if r < c:
            return self.value(a & ~(1 << r), b & ~(1 << c), d - 1, 0)
        if t + 1 >= self.n_ties:  # set aside: a void trick
            return self.value(a & ~(1 << r), b & ~(1 << c), d, 0)
        return self.value(a, b, d, t + 1)

    def row_strategy(self, a: int, b: int, d: int, t: int, n: int) -> np.ndarray:
        """The row seat's strategy over rank indices 0 .. n-1 (uncompressed)."""
        out = np.zeros(n)
        _, x, _ = self.solve(a, b, d, t)
        for p, r in zip(x, _bits(a), strict=True):
            out[r] = p
        return out


def check_available(k: BatouilleKnobs) -> None:
    if k.ranks > EQ_MAX_RANKS:
        raise SimlabError(f"the equilibrium player is exact and needs ranks <= {EQ_MAX_RANKS} "
                          f"(got ranks={k.ranks}); set e.g. --set ranks=6, or use the "
                          "heuristic player")
    if effective_ties(k) > MAX_EQ_TIES:
        raise SimlabError(f"the equilibrium player needs max_consecutive_ties <= {MAX_EQ_TIES} "
                          f"(got {k.max_consecutive_ties}): each tie is a state of its own")


def pairs(n: int) -> list[tuple[int, int]]:
    """Every (mine, theirs) of equal non-zero size over ``n`` ranks."""
    out = []
    for k in range(1, n + 1):
        hands = [sum(1 << r for r in c) for c in combinations(range(n), k)]
        out += [(a, b) for a in hands for b in hands]
    return out


@functools.lru_cache(maxsize=8)
def strategy_table(n: int, n_ties: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(table [rows, 13], pair index [4**n], stats) for ``n`` ranks, ``n_ties`` ties to a
    void trick. Stats: value, states (table rows filled), solved (distinct LPs or
    saddles), seconds."""
    t0 = time.perf_counter()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * n * n_ties + 1000))
    s = Solver(n_ties)
    h = n // 2
    width = 2 * h + 1
    ps = pairs(n)
    pidx = np.full(1 << (2 * n), -1, dtype=np.int64)
    for i, (a, b) in enumerate(ps):
        pidx[(a << n) | b] = i
    table = np.zeros((len(ps) * width * n_ties, MAX_RANKS))  # the kernel's width
    filled = 0
    for i, (a, b) in enumerate(ps):
        k = a.bit_count()
        for d in range(-min(k, h), min(k, h) + 1):
            if s.terminal(a, b, d) is not None:
                continue
            for t in range(n_ties):
                table[(i * width + d + h) * n_ties + t, :n] = s.row_strategy(a, b, d, t, n)
                filled += 1
    full = (1 << n) - 1
    stats = {"value": s.value(full, full, 0, 0), "states": filled, "solved": len(s.memo),
             "lps": s.lps, "seconds": time.perf_counter() - t0}
    return table, pidx, stats


def game_value(n: int, n_ties: int) -> float:
    return Solver(n_ties).value((1 << n) - 1, (1 << n) - 1, 0, 0)


# --- a fixed player's exact results ---------------------------------------------------
Policy = Callable[[int, int, int, int], np.ndarray]


def best_response(n: int, n_ties: int, opponent: Policy) -> float:
    """Seat 0's value when it best-responds to ``opponent`` (seat 1, a function of
    (its hand, seat 0's hand, its trick difference, ties) -> probabilities over rank
    indices), knowing it: the opponent's exploitability when the game's value is 0."""
    return _fixed(n, n_ties, opponent, None)


def evaluate(n: int, n_ties: int, player: Policy, opponent: Policy) -> float:
    """Seat 0's expected result with ``player`` against ``opponent``."""
    return _fixed(n, n_ties, opponent, player)


def _fixed(n: int, n_ties: int, opponent: Policy, player: Policy | None) -> float:
    s = Solver(n_ties)  # for terminal()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * n * n_ties + 1000))
    memo: dict[tuple[int, int, int, int], float] = {}

    def val(a: int, b: int, d: int, t: int) -> float:
        v = s.terminal(a, b, d)
        if v is not None:
            return v
        key = (a, b, d, t)
        if key in memo:
            return memo[key]
        q = opponent(b, a, -d, t)
        rows = _bits(a)
        gains = np.zeros(len(rows))
        for i, r in enumerate(rows):
            for c in _bits(b):
                if q[c] > 0:
                    if r > c:
                        nxt = val(a & ~(1 << r), b & ~(1 << c), d + 1, 0)
                    elif r < c:
                        nxt = val(a & ~(1 << r), b & ~(1 << c), d - 1, 0)
                    elif t + 1 >= n_ties:
                        nxt = val(a & ~(1 << r), b & ~(1 << c), d, 0)
                    else:
                        nxt = val(a, b, d, t + 1)
                    gains[i] += q[c] * nxt
        if player is None:
            out = float(gains.max())
        else:
            p = player(a, b, d, t)
            out = float(sum(p[r] * g for r, g in zip(rows, gains, strict=True)))
        memo[key] = out
        return out

    full = (1 << n) - 1
    return val(full, full, 0, 0)


def player(name: str, k: BatouilleKnobs) -> Policy:
    """A simlab player as a function for ``best_response`` and ``evaluate``: the same
    probabilities its kernel draws from (``players.policy_dist``)."""
    codes = policy_codes((name, name))
    eq, pidx = tables(k, codes)
    kv = knob_vector(k)
    n_ties = effective_ties(k)

    def dist(mine: int, theirs: int, d: int, t: int) -> np.ndarray:
        out = np.zeros(MAX_RANKS)
        policy_dist(codes[0], np.int64(mine), np.int64(theirs), np.int64(d), np.int64(t), kv,
                    np.int64(n_ties), eq, pidx, out)
        return out

    return dist


_NO_TABLE = (np.zeros((1, MAX_RANKS)), np.zeros(1, dtype=np.int64))


def tables(knobs: BatouilleKnobs, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's equilibrium arguments: the strategy table and pair index when a seat
    plays the equilibrium (built once per process and variant), else empty ones."""
    if EQUILIBRIUM not in codes:
        return _NO_TABLE
    check_available(knobs)
    table, pidx, _ = strategy_table(knobs.ranks, effective_ties(knobs))
    return table, pidx
