"""XXL — Fournir des séries: the players.

* ``random``: a uniform choice among every legal action (pass, each run, swap, feed).
* ``heuristic`` (the catalogue's sketch): lay the most valuable run if it is worth at
  least ``heuristic_threshold`` points, or any best run once the talon holds no more
  cards than players; otherwise swap for the display card that most raises the hand's
  run prospects (pairs and triples of one colour within two numbers); otherwise feed a
  hand card without prospects while the talon lasts; otherwise pass.
* ``search``: determinized Monte Carlo over the heuristic's six best-scored actions:
  ``search_worlds`` worlds re-deal the cards the seat has not seen (other hands, the talon)
  consistently with its view; each candidate is played in each world, then every seat
  plays the heuristic to the end; the best summed result (the seat's points against the
  table's mean) wins.

May import: the engine, the mechanics, ``simlab.games.xxl``, this game's ``rules``.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, SEARCH
from simlab.engine.jit import batch, hot
from simlab.games.xxl.common import bit, lowest, popcount, redeal_hidden
from simlab.games.xxl.deck import FULL_MASK, N_CARDS
from simlab.games.xxl_fournir_des_series.rules import (
    FEED,
    HM_DISPLAY,
    HM_RUNS,
    KV_CAP,
    KV_THRESHOLD,
    KV_WORLDS,
    MAX_ACTIONS,
    N_HM,
    N_ST,
    PASS,
    RUN,
    S_N,
    S_OVER,
    S_SCORE,
    S_TPOS,
    S_TURN,
    S_TURNS,
    SWAP,
    apply_action,
    end_turn,
    legal_actions,
    run_value,
    talon_left,
)
from simlab.mechanics import search

FULL = np.uint64(FULL_MASK)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "search": SEARCH}
N_CANDIDATES = 6


@hot
def prospects(hand: np.uint64, num: np.ndarray, col: np.ndarray, index: np.ndarray) -> int:
    """Run prospects of a hand: per colour, pairs of numbers one or two apart, and three in
    a row counted three times."""
    b0 = 0
    b1 = 0
    b2 = 0
    b3 = 0
    m = hand
    while m != 0:
        c = lowest(m, index)
        m &= m - np.uint64(1)
        for h in range(2):
            v = 1 << num[c, h]
            k = col[c, h]
            if k == 0:
                b0 |= v
            elif k == 1:
                b1 |= v
            elif k == 2:
                b2 |= v
            else:
                b3 |= v
    s = 0
    for b in (b0, b1, b2, b3):
        s += popcount(np.uint64(b & (b >> 1))) + popcount(np.uint64(b & (b >> 2)))
        s += 3 * popcount(np.uint64(b & (b >> 1) & (b >> 2)))
    return s


@hot
def action_score(st: np.ndarray, hm: np.ndarray, p: int, a: int, kv: np.ndarray,
                 num: np.ndarray, col: np.ndarray, total: np.ndarray, base: int,
                 index: np.ndarray) -> float:
    """The heuristic's score of action ``a`` (``base``: the hand's prospects now)."""
    if a == PASS:
        return 0.0
    kind = a >> 18
    hand = hm[p]
    if kind == RUN:
        v = run_value(a, total)
        if v >= kv[KV_THRESHOLD] or talon_left(st) <= st[S_N]:
            return 1000.0 + v
        return -1.0
    if kind == SWAP:
        h = bit((a >> 6) & 63)
        d = bit(a & 63)
        gain = prospects((hand & ~h) | d, num, col, index) - base
        return gain * 10.0 + total[a & 63] * 0.01 if gain > 0 else -1.0
    # FEED a card without prospects while the talon lasts
    h = bit(a & 63)
    if talon_left(st) > st[S_N] and prospects(hand & ~h, num, col, index) == base:
        return 0.5 - total[a & 63] * 0.001
    return -1.0


@hot
def heuristic_pick(st: np.ndarray, hm: np.ndarray, p: int, acts: np.ndarray, n: int,
                   kv: np.ndarray, num: np.ndarray, col: np.ndarray, total: np.ndarray,
                   index: np.ndarray) -> int:
    # a run worth laying (score 1000 + value) beats every other action: look at the runs
    # first and skip the prospects of swaps and feeds when one qualifies (same choice)
    lay = talon_left(st) <= st[S_N]
    best = -1
    best_value = -1
    for i in range(n):
        a = acts[i]
        if a >= 0 and a >> 18 == RUN:
            v = run_value(a, total)
            if (lay or v >= kv[KV_THRESHOLD]) and v > best_value:
                best_value = v
                best = i
    if best >= 0:
        return best
    base = prospects(hm[p], num, col, index)
    best = 0
    best_score = -1.0e18
    for i in range(n):
        s = action_score(st, hm, p, acts[i], kv, num, col, total, base, index)
        if s > best_score:
            best_score = s
            best = i
    return best


@hot
def heuristic_turn(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
                   num: np.ndarray, col: np.ndarray, total: np.ndarray, holders: np.ndarray,
                   acts: np.ndarray, scratch: np.ndarray, index: np.ndarray) -> None:
    p = st[S_TURN]
    n = legal_actions(st, hm, p, holders, acts, index)
    i = heuristic_pick(st, hm, p, acts, n, kv, num, col, total, index)
    apply_action(st, hm, order, p, acts[i], total)
    end_turn(st, hm, order, kv[KV_CAP], holders, scratch, index)


@hot
def playout(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray,
            num: np.ndarray, col: np.ndarray, total: np.ndarray, holders: np.ndarray,
            acts: np.ndarray, scratch: np.ndarray, index: np.ndarray) -> None:
    while st[S_OVER] == 0:
        heuristic_turn(st, hm, order, kv, num, col, total, holders, acts, scratch, index)


@batch
def new_search_work() -> tuple:
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_HM, dtype=np.uint64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(N_HM, dtype=np.uint64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(MAX_ACTIONS, dtype=np.int64),
            np.zeros(N_CANDIDATES, dtype=np.float64), np.zeros(8, dtype=np.int64),
            np.zeros(N_CANDIDATES, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(MAX_ACTIONS, dtype=np.float64))


@hot
def search_pick(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, acts: np.ndarray,
                n: int, kv: np.ndarray, num: np.ndarray, col: np.ndarray, total: np.ndarray,
                holders: np.ndarray, index: np.ndarray, seed: np.uint64, deal: np.int64,
                sub: np.int64, W: tuple) -> int:
    """The search's action among the heuristic's best-scored candidates (see module doc)."""
    wst, whm, word, xst, xhm, xord, buf, pacts, value, sizes, cand, scratch, scores = W
    base = prospects(hm[p], num, col, index)
    # the N_CANDIDATES best actions by the heuristic's score (ties: list order)
    for i in range(n):
        scores[i] = action_score(st, hm, p, acts[i], kv, num, col, total, base, index)
    k = min(n, N_CANDIDATES)
    for t in range(k):
        best = -1
        for i in range(n):
            if best < 0 or scores[i] > scores[best]:
                best = i
        cand[t] = best
        scores[best] = -1.0e300
    if k == 1:
        return cand[0]
    for i in range(k):
        value[i] = 0.0
    ss = search.decision_stream(seed, deal, sub, p, st[S_TURNS])
    hidden = FULL & ~hm[p] & ~hm[HM_DISPLAY] & ~hm[HM_RUNS]
    players = st[S_N]
    for q in range(players):
        sizes[q] = popcount(hm[q])
    for _w in range(kv[KV_WORLDS]):
        for j in range(N_ST):
            wst[j] = st[j]
        for j in range(N_HM):
            whm[j] = hm[j]
        for j in range(N_CARDS):
            word[j] = order[j]
        ss = redeal_hidden(ss, hidden, sizes, players, p, whm, word, st[S_TPOS], buf, index)
        for i in range(k):
            for j in range(N_ST):
                xst[j] = wst[j]
            for j in range(N_HM):
                xhm[j] = whm[j]
            for j in range(N_CARDS):
                xord[j] = word[j]
            apply_action(xst, xhm, xord, p, acts[cand[i]], total)
            end_turn(xst, xhm, xord, kv[KV_CAP], holders, scratch, index)
            playout(xst, xhm, xord, kv, num, col, total, holders, pacts, scratch, index)
            s = 0
            for q in range(players):
                s += xst[S_SCORE + q]
            value[i] += xst[S_SCORE + p] - s / players
    return cand[search.best_move(value, k)]


__all__ = ["FEED", "POLICY_CODES", "heuristic_pick", "heuristic_turn", "new_search_work",
           "playout", "prospects", "rng", "search_pick"]
