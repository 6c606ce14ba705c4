"""Le flair players. A choice reads only what its seat sees: its own hand, every hand's
size, the claims, the cards revealed by challenges and the cards it gave or received
(``card_memory``) — never another hand or the unchallenged cards.

* ``random``: 1 to 5 cards (at most its hand) uniformly, uniform cards and a uniform claim
  of that size; calls with probability 0.1 when another plays, "vrai" or "faux" uniformly;
  gives a uniform card.
* ``heuristic`` (knobs ``lie_rate`` ℓ, ``faux_below`` θ_f, ``vrai_above`` θ_v,
  ``assumed_lie_rate``, ``card_memory``; a seat may have its own,
  ``heuristic:lie_rate=0.1``):
  - play: its whole hand when it is a true claim (it wins unless called); else with
    probability ℓ a false claim (2, 3 or 4 of its least useful cards, uniformly, claimed
    paire, tierce or suite4: the likeliest claims of their sizes); else the largest true
    claim it holds (carré, suite5, suite4, brelan, tierce, paire, then a single card's
    suit);
  - challenge: P(claim true) = c (1 − λ) / (c (1 − λ) + λ), λ = ``assumed_lie_rate`` and c
    the chance that the player's hand before the play held the combination (his cards are
    those it knows in his hand plus a uniform draw from the cards it cannot place:
    hypergeometric per rank / run window / suit, windows taken as independent); "faux"
    below θ_f, "vrai" above θ_v (default never: see the knob); when the player has just played his last cards it always
    calls (unchallenged he wins): "faux" if P < 1/2 (always with ``truthful_protected``),
    else "vrai";
  - gives the card least useful for true claims (fewest of its rank, then fewest
    neighbouring ranks).
* ``adaptive``: at the start of each deal draws one (ℓ, θ_f, θ_v) profile of a small grid
  from a mixed strategy stored in ``equilibrium.py`` (regret matching on the 2-player
  game between the grid's fixed-rate heuristics, ``equilibrium.solve`` regenerates it),
  then plays as the heuristic with it.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import policy_name
from simlab.games.flair.rules import (
    CL_BRELAN,
    CL_CARRE,
    CL_PAIRE,
    CL_SUITE4,
    CL_SUITE5,
    CL_TIERCE,
    CLAIM_SIZE,
    KV_ASSUMED,
    KV_MEMORY,
    KV_N,
    KV_PROTECTED,
    KV_SAME_SUIT,
    LOG_C,
    N_CARDS,
    P_SCALE,
    RANK_MASK,
    S_HAND,
    S_KNOWN,
    SUIT_MASK,
    V_FAUX,
    V_NONE,
    V_VRAI,
    claim_true,
    find_true,
    lowest,
    n_windows,
    popcount,
    window_rank,
)

RANDOM, HEURISTIC, ADAPTIVE = range(3)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "adaptive": ADAPTIVE}
ALL = (np.int64(1) << N_CARDS) - 1
_INV53 = 1.0 / 9007199254740992.0
ONE = np.int64(1)
# the order in which the heuristic looks for a true claim: most cards first
TRUE_ORDER = np.array([CL_CARRE, CL_SUITE5, CL_SUITE4, CL_BRELAN, CL_TIERCE, CL_PAIRE],
                      dtype=np.int64)
LIE_CLAIMS = np.array([CL_PAIRE, CL_TIERCE, CL_SUITE4], dtype=np.int64)
# per-seat profile: lie, faux, vrai in millionths (row 0 of prof: the seat's own knobs)
PR_LIE, PR_FAUX, PR_VRAI = range(3)


def policy_codes(policies: tuple[str, ...], n: int) -> np.ndarray:
    if len(policies) != n:
        raise SimlabError(f"flair needs {n} policies, got {len(policies)}")
    try:
        return np.array([POLICY_CODES[policy_name(s)] for s in policies], dtype=np.int64)
    except KeyError as e:
        raise SimlabError(f"unknown policy {e.args[0]!r} for flair; valid policies: "
                          f"{', '.join(POLICY_CODES)}") from None


@hot
def uniform(state: np.uint64) -> tuple[np.uint64, np.float64]:
    state, x = rng.next_u64(state)
    return state, np.float64(x >> np.uint64(11)) * _INV53


@hot
def nth_card(m: np.int64, i: np.int64) -> np.int64:
    while i > 0:
        m &= m - 1
        i -= 1
    return lowest(m)


@hot
def usefulness(hand: np.int64, c: np.int64) -> np.int64:
    r = c % 13
    u = 3 * (popcount(hand & RANK_MASK[r]) - 1)
    if r > 0 and hand & RANK_MASK[r - 1] != 0:
        u += 1
    if r < 12 and hand & RANK_MASK[r + 1] != 0:
        u += 1
    if r == 12 and hand & RANK_MASK[0] != 0:
        u += 1
    if r == 0 and hand & RANK_MASK[12] != 0:
        u += 1
    return u


@hot
def least_useful(hand: np.int64, k: np.int64) -> np.int64:
    """The ``k`` cards of ``hand`` least useful for true claims."""
    out = np.int64(0)
    for _ in range(k):
        best = -1
        bu = 1 << 30
        m = hand & ~out
        while m != 0:
            c = lowest(m)
            m &= m - 1
            u = usefulness(hand, c)
            if u < bu:
                bu = u
                best = c
        out |= ONE << best
    return out


@hot
def choose_play(code: np.int64, state: np.uint64, hand: np.int64, kv: np.ndarray,
                prof: np.ndarray) -> tuple[np.uint64, np.int64, np.int64]:
    """(state, cards played, claim)."""
    h = popcount(hand)
    same = kv[KV_SAME_SUIT]
    if code == RANDOM:
        state, j = rng.below(state, min(5, h))
        k = j + 1
        cards = np.int64(0)
        rest = hand
        for _ in range(k):
            state, i = rng.below(state, popcount(rest))
            c = nth_card(rest, i)
            cards |= ONE << c
            rest &= ~(ONE << c)
        n_claims = 0
        for cl in range(10):
            if CLAIM_SIZE[cl] == k:
                n_claims += 1
        state, i = rng.below(state, n_claims)
        for cl in range(10):
            if CLAIM_SIZE[cl] == k:
                if i == 0:
                    return state, cards, cl
                i -= 1
        return state, cards, 0
    if h <= 5:  # the whole hand as a true claim wins unless called
        for cl in range(10):
            if CLAIM_SIZE[cl] == h and claim_true(hand, cl, same):
                return state, hand, cl
    state, u = uniform(state)
    if u * P_SCALE < prof[PR_LIE] and h >= 2:
        state, j = rng.below(state, 3)
        k = min(j + 2, h)
        cl = LIE_CLAIMS[k - 2]
        return state, least_useful(hand, k), cl
    for i in range(TRUE_ORDER.shape[0]):
        cl = TRUE_ORDER[i]
        m = find_true(hand, cl, same)
        if m != 0:
            return state, m, cl
    c = least_useful(hand, 1)
    return state, c, lowest(c) // 13


@hot
def tail(n_pool: np.int64, good: np.int64, draws: np.int64, need: np.int64) -> np.float64:
    """P(at least ``need`` of ``good`` marked cards among ``draws`` drawn from
    ``n_pool``)."""
    if need <= 0:
        return 1.0
    if need > good or need > draws or draws > n_pool:
        return 0.0 if draws <= n_pool else 1.0
    total = 0.0
    base = LOG_C[n_pool, draws]
    for x in range(need, min(good, draws) + 1):
        total += np.exp(LOG_C[good, x] + LOG_C[n_pool - good, draws - x] - base)
    return min(1.0, total)


@hot
def p_can(claim: np.int64, known: np.int64, pool: np.int64, draws: np.int64,
          same: np.int64) -> np.float64:
    """The chance that a hand made of ``known`` plus ``draws`` uniform cards of ``pool``
    holds the combination ``claim``."""
    n_pool = popcount(pool)
    if claim <= 3:
        if known & SUIT_MASK[claim] != 0:
            return 1.0
        return tail(n_pool, popcount(pool & SUIT_MASK[claim]), draws, 1)
    if claim == CL_PAIRE or claim == CL_BRELAN or claim == CL_CARRE:
        need = CLAIM_SIZE[claim]
        miss = 1.0
        for r in range(13):
            k = popcount(known & RANK_MASK[r])
            miss *= 1.0 - tail(n_pool, popcount(pool & RANK_MASK[r]), draws, need - k)
        return 1.0 - miss
    length = CLAIM_SIZE[claim]
    miss = 1.0
    for w in range(n_windows(length)):
        if same != 0:
            for s in range(4):
                p = 1.0
                for j in range(length):
                    c = ONE << (s * 13 + window_rank(w - 1, j))
                    if known & c == 0:
                        p *= tail(n_pool, popcount(pool & c), draws, 1)
                miss *= 1.0 - p
        else:
            p = 1.0
            for j in range(length):
                rm = RANK_MASK[window_rank(w - 1, j)]
                if known & rm == 0:
                    p *= tail(n_pool, popcount(pool & rm), draws, 1)
            miss *= 1.0 - p
    return 1.0 - miss


@hot
def p_true(st: np.ndarray, me: np.int64, player: np.int64, claim: np.int64,
           n_played: np.int64, kv: np.ndarray, seat_kv: np.ndarray) -> np.float64:
    """Seat ``me``'s estimate that ``player``'s claim is true, from its view."""
    n = kv[KV_N]
    mine = st[S_HAND + me]
    known = np.int64(0)
    elsewhere = np.int64(0)
    if seat_kv[KV_MEMORY] != 0:
        for j in range(n):
            if j == player:
                known = st[S_KNOWN + 4 * me + j]
            elif j != me:
                elsewhere |= st[S_KNOWN + 4 * me + j]
    known &= ~mine
    pool = ALL & ~mine & ~known & ~elsewhere
    before = popcount(st[S_HAND + player]) + n_played
    draws = max(0, before - popcount(known))
    c = p_can(claim, known, pool, draws, kv[KV_SAME_SUIT])
    lam = seat_kv[KV_ASSUMED] / P_SCALE
    if c <= 0.0:
        return 0.0
    return c * (1.0 - lam) / (c * (1.0 - lam) + lam)


@hot
def choose_call(code: np.int64, state: np.uint64, st: np.ndarray, me: np.int64,
                player: np.int64, claim: np.int64, n_played: np.int64, kv: np.ndarray,
                seat_kv: np.ndarray, prof: np.ndarray) -> tuple[np.uint64, np.int64]:
    """Seat ``me``'s call on ``player``'s claim: V_NONE, V_VRAI or V_FAUX."""
    if code == RANDOM:
        state, j = rng.below(state, 20)
        if j >= 2:
            return state, V_NONE
        return state, V_VRAI if j == 0 else V_FAUX
    p = p_true(st, me, player, claim, n_played, kv, seat_kv)
    if st[S_HAND + player] == 0:  # his last cards: unchallenged he wins
        if kv[KV_PROTECTED] != 0 or p < 0.5:
            return state, V_FAUX
        return state, V_VRAI
    if p * P_SCALE < prof[PR_FAUX]:
        return state, V_FAUX
    if p * P_SCALE > prof[PR_VRAI]:
        return state, V_VRAI
    return state, V_NONE


@hot
def choose_gift(code: np.int64, state: np.uint64, hand: np.int64) -> tuple[np.uint64, np.int64]:
    """The card given away."""
    if code == RANDOM:
        state, i = rng.below(state, popcount(hand))
        return state, nth_card(hand, i)
    return state, lowest(least_useful(hand, 1))
