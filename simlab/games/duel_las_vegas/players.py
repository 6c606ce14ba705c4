"""Duel à Las Vegas: the players. The only decision of the game is the weaker seat's
*concede or draw* (rules.py ``apply_move``); each player picks one, none changes a rule.

* ``heuristic_move`` (naive but not dumb; the catalogue's "concede if behind by a
  category", tuned by self-play): never concede the round that would lose the partie;
  when the opponent's pack is empty (he can never draw again, so every later round is
  ours with one card) draw while cards to spare remain; otherwise concede when the
  opponent's first 5-card hand is ``concede_gap`` (1) poker categories or more above
  one's own, or one's hand already holds ``max_hand`` (12) cards; else draw (behind
  within the same category, one card may be enough).
* ``random_move``: concede or draw with probability 1/2 each (the deal's POLICY stream).
* ``search_move``: determinized Monte Carlo lookahead over the remaining packs. What a
  seat sees is everything but the order of the two packs (both hands are face up and
  both packs' remaining contents follow by elimination), so a *world* is exactly a
  re-shuffle of each pack's remaining cards (from a canonical order, with the seat's own
  decision stream: the real order is never read). In each world both moves are played
  out to the end of the partie by heuristic players (partie result +1 / 0 / -1); the
  move other than the heuristic's is played only when its paired mean gain over the
  worlds is ``search_z`` standard errors above zero. This is one step of (conservative)
  policy improvement over the heuristic with exact card-count information — the
  exact optimal policy (a dynamic programme over both packs' remaining compositions,
  about 2^54 x 2^54 subsets, times hands and score) is out of reach, and this
  Monte Carlo lookahead is what the catalogue's simulation notes propose.
"""

from __future__ import annotations

import numpy as np

from simlab import rng, search
from simlab.games.base import HEURISTIC, RANDOM
from simlab.games.duel_las_vegas.rules import (
    CONCEDE,
    DRAW,
    KV_SIZE,
    KV_TARGET,
    N_ST,
    P_OFF,
    PACK_MAX,
    PH_OVER,
    PP_GAP,
    PP_JOKER,
    PP_MAX_HAND,
    PP_Z,
    S_JOK,
    S_PHASE,
    S_PLY,
    S_POS,
    S_WINS,
    apply_move,
    cards_left,
    copy_state,
    first_category,
    hand_size,
    outcome,
    to_move,
)
from simlab.jit import batch, hot


# --- heuristic and random ------------------------------------------------------------------
@hot
def heuristic_move(st: np.ndarray, kv: np.ndarray, pp: np.ndarray) -> int:
    me = to_move(st)
    op = 1 - me
    if kv[KV_TARGET] - st[S_WINS + op] <= 1:
        return DRAW  # conceding this round hands the opponent the partie
    if cards_left(st, kv, op) == 0:
        # the opponent can never draw again: every later round is ours with one card, so
        # spend only the cards beyond the rounds still needed
        need = kv[KV_TARGET] - st[S_WINS + me]
        return DRAW if cards_left(st, kv, me) > need else CONCEDE
    patience = pp[PP_GAP] + (pp[PP_JOKER] if st[S_JOK + me] > 0 else 0)
    if first_category(st, op) - first_category(st, me) >= patience:
        return CONCEDE
    if hand_size(st, me) >= pp[PP_MAX_HAND]:
        return CONCEDE
    return DRAW


@hot
def random_move(state: np.uint64, st: np.ndarray) -> tuple[np.uint64, int]:
    state, x = rng.below(state, 2)
    return state, CONCEDE if x == 0 else DRAW


@hot
def playout(st: np.ndarray, kv: np.ndarray, pp: np.ndarray, work: np.ndarray) -> None:
    """Play the partie to its end with heuristic players at both seats."""
    while st[S_PHASE] != PH_OVER:
        apply_move(st, kv, heuristic_move(st, kv, pp), work)


# --- worlds and the search player ------------------------------------------------------
@batch
def search_work() -> tuple:
    """Work arrays of a search seat: a world, a rollout's state, the move totals."""
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(2, dtype=np.int64))


@hot
def sample_world(state: np.uint64, st: np.ndarray, kv: np.ndarray, world: np.ndarray
                 ) -> np.uint64:
    """``st`` copied into ``world`` with each pack's remaining cards re-shuffled. The
    cards are first sorted, so the world depends only on what the seat sees (the
    remaining contents), never on their real order."""
    copy_state(st, world)
    size = kv[KV_SIZE]
    for p in range(2):
        lo = P_OFF + p * PACK_MAX + st[S_POS + p]
        hi = P_OFF + p * PACK_MAX + size
        for i in range(lo + 1, hi):  # insertion sort: at most 56 cards
            c = world[i]
            j = i - 1
            while j >= lo and world[j] > c:
                world[j + 1] = world[j]
                j -= 1
            world[j + 1] = c
        state = rng.shuffle(state, world[lo:hi], hi - lo)
    return state


@hot
def search_move(seed: np.uint64, index: int, sub: int, st: np.ndarray, kv: np.ndarray,
                pp: np.ndarray, n_worlds: int, sw: tuple, work: np.ndarray) -> int:
    """The search player's move for the seat ``to_move`` (deal ``index``, ``sub`` 0).

    Both moves are played out in the same worlds (common random numbers), and the move
    other than the heuristic's is played only when its mean gain per world beats
    ``pp[PP_Z] / 100`` standard errors: a concede-or-draw choice is often worth a few
    hundredths of a partie, below the noise of a few dozen playouts, and following the
    noise measured worse than the heuristic (issue of this game: -0.35 points a partie
    with the plain argmax against the tuned heuristic)."""
    world, roll, total = sw
    seat = to_move(st)
    h = heuristic_move(st, kv, pp)
    if kv[KV_TARGET] - st[S_WINS + 1 - seat] <= 1:
        return DRAW  # conceding loses the partie at once: drawing is never worse
    alt = 1 - h
    gain = 0.0
    gain2 = 0.0
    total[0] = 0
    total[1] = 0
    state = search.decision_stream(seed, index, sub, seat, st[S_PLY])
    for _ in range(n_worlds):
        state = sample_world(state, st, kv, world)
        for m in range(2):  # CONCEDE, DRAW on the same world
            copy_state(world, roll)
            apply_move(roll, kv, m, work)
            playout(roll, kv, pp, work)
            total[m] += outcome(roll, seat)
        d = float(total[alt] - total[h]) - gain  # this world's paired difference
        gain += d
        gain2 += d * d
    if gain <= 0:
        return h
    mean = gain / n_worlds
    var = (gain2 - n_worlds * mean * mean) / max(n_worlds - 1, 1)
    se = np.sqrt(max(var, 0.0) / n_worlds)
    return alt if mean > pp[PP_Z] / 100.0 * se else h


@hot
def choose(pol: int, policy_state: np.uint64, seed: np.uint64, index: int, sub: int,
           st: np.ndarray, kv: np.ndarray, pp: np.ndarray, n_worlds: int, sw: tuple,
           work: np.ndarray) -> tuple[np.uint64, int]:
    """The move of the seat to move under its policy ``pol`` (RANDOM draws from the
    deal's POLICY stream; SEARCH uses its own streams). Returns (policy state, move)."""
    if pol == HEURISTIC:
        return policy_state, heuristic_move(st, kv, pp)
    if pol == RANDOM:
        return random_move(policy_state, st)
    return policy_state, search_move(seed, index, sub, st, kv, pp, n_worlds, sw, work)
