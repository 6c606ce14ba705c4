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
* ``search_move``: exact where the state allows, Monte Carlo lookahead elsewhere. What a
  seat sees is everything but the order of the two packs (both hands are face up and
  both packs' remaining contents follow by elimination).

  - **Exact endgame** (``exact_value``): once both packs together hold at most
    ``search_exact_cards`` (10) cards, the partie is solved exactly: an expectimax over
    every order of both packs' remaining cards (each chance event — a draw, a tie's two
    draws, a round's first flips — enumerated card by card, Jokers merged as one
    weighted branch), both seats playing optimally to the end of the partie (+1 / 0 /
    -1). Nothing is approximated there; the move is the exact optimum (the heuristic's
    on an exact tie). It solves on a canonical (sorted) copy, so the real order is never
    read. Past ``search_exact_nodes`` (300,000 positions, about 0.15 s) it gives up and
    the lookahead decides. Measured (seed 7 and 11, 400 parties each, duplicate against
    the heuristic): the same results, deal for deal, as without it — in the parties the
    bots play, the small endgames are nearly all a deciding round at 5-5 or 4-5, where
    conceding loses at once and drawing is forced, or positions where the lookahead
    already finds the optimum.
  - **Monte Carlo lookahead** (everywhere else): a *world* is a re-shuffle of each
    pack's remaining cards (from the canonical order, with the seat's own decision
    stream). In each world both moves are played out to the end of the partie by
    heuristic players; the move other than the heuristic's is played only when its
    paired mean gain over the worlds is ``search_z`` standard errors above zero: one
    step of (conservative) policy improvement over the heuristic. This part is
    approximate: the continuation is the heuristic, not the optimum, and 48 worlds
    estimate it. An exact dynamic programme over both packs' remaining compositions
    (about 2^54 x 2^54 subsets, times hands and score) is out of reach.
  - **How close** (measured, not a test: about a minute): on 80 positions with 11 cards
    left in both packs (seed 3, reached by heuristic play; 67 solved exactly within 10^7
    positions), the Monte Carlo lookahead alone picks an optimal move in 65 (97 %) and
    loses 0.033 points of partie per decision; 15 of the 67 had a gap above 0.02 and it
    missed 2 of those.
  - **One more step, not measurable yet** (``lookahead_outcomes``,
    scripts/duel_policy_improvement.py; about 20 minutes on 2 cores): on mid-partie
    positions (one decision drawn per partie of search players, outside the exact
    solver's reach), each move is valued by playing the partie out with *search* players
    in 96 worlds. A two-step policy picks its move on half the worlds and is scored on
    the other half. Its gain over this player was +0.013 [-0.002, +0.027] points per
    decision on 200 positions (seed 4) and -0.006 [-0.016, +0.004] on 40 (seed 3). This
    player itself differs from the heuristic at about 1.5 % of decisions (3 of 200
    positions), worth +0.17 a partie over about 89 decisions a partie. A gain per
    decision of that size is below what 96 worlds resolve. On the close decisions only
    (``--close 2``: 67 of 200 positions, 192 worlds, seed 6) the gain was -0.0001
    [-0.009, +0.009]. So this measurement cannot say how far the policy is from the
    optimum in mid-partie: it neither shows a gap nor rules one out.
  - **An abstraction tried and not kept:** a table of the partie's value at each round's
    start by (rounds won, cards left in each pack), from 10^6 heuristic parties, smoothed
    over the cards left, with the round played out to its end in each world and the table
    after it. Against the heuristic, 300 parties in duplicate: +0.11 +- 0.06 (256 worlds,
    1.0 SE) against +0.17 +- 0.05 for this lookahead, and -0.08 +- 0.06 head to head: the
    table ignores what is left in each pack (the Jokers above all), which decides rounds.
"""

from __future__ import annotations

import numpy as np

from simlab import rng, search
from simlab.games.base import HEURISTIC, RANDOM
from simlab.games.duel_las_vegas.rules import (
    CONCEDE,
    DRAW,
    EXACT_MAX_CARDS,
    KV_SIZE,
    KV_TARGET,
    N_NATURAL,
    N_ST,
    P_OFF,
    PACK_MAX,
    PH_OVER,
    PP_EXACT_CARDS,
    PP_EXACT_NODES,
    PP_GAP,
    PP_JOKER,
    PP_MAX_HAND,
    PP_NAIVE_SEAT,
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
EXACT_DEPTH = 2 * EXACT_MAX_CARDS + 4  # decisions on one line of play, + the root
# the exact solver's frames (see "the exact endgame solver" below)
FR_DECISION, FR_MOVE = 0, 1
(F_KIND, F_ROW, F_MOVE, F_FIX0, F_FIX1, F_PACK, F_AT, F_NEXT, F_JOKERS, F_WEIGHT,
 F_STAGE, N_F) = range(12)
(V_TOTAL, V_FIRST, N_V) = range(3)
MAX_FRAMES = 8 * EXACT_DEPTH  # a decision and the chance positions its moves read


@batch
def search_work() -> tuple:
    """Work arrays of a search seat: a world, a rollout's state, the move totals (Monte
    Carlo lookahead); the exact solver's stack of positions and its node counter."""
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(2, dtype=np.int64), np.zeros((EXACT_DEPTH, N_ST), dtype=np.int64),
            np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.float64),
            np.zeros((MAX_FRAMES, N_F), dtype=np.int64),
            np.zeros((MAX_FRAMES, N_V), dtype=np.float64))


@hot
def canonical_copy(st: np.ndarray, kv: np.ndarray, world: np.ndarray) -> None:
    """``st`` copied into ``world`` with each pack's remaining cards sorted: what the
    seats see (the remaining contents), with no trace of the real order."""
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


@hot
def sample_world(state: np.uint64, st: np.ndarray, kv: np.ndarray, world: np.ndarray
                 ) -> np.uint64:
    """``st`` copied into ``world`` with each pack's remaining cards re-shuffled (from
    the canonical order, so the world never depends on the real order)."""
    canonical_copy(st, kv, world)
    size = kv[KV_SIZE]
    for p in range(2):
        lo = P_OFF + p * PACK_MAX + st[S_POS + p]
        hi = P_OFF + p * PACK_MAX + size
        state = rng.shuffle(state, world[lo:hi], hi - lo)
    return state


# --- the exact endgame solver ------------------------------------------------------------
# An expectimax written with an explicit stack of frames (numba's disk cache cannot hold
# a recursive function). Two kinds of frame:
# (``FR_DECISION``, ``FR_MOVE``, fields ``F_*``, defined with ``search_work``):
# * DECISION at a position (a row of the position stack): the partie is over (its
#   result), or the mover's best move: max for the solving seat, min for the other (the
#   partie is zero-sum);
# * MOVE: the expectation of playing a move at a position where the first ``fixed0`` /
#   ``fixed1`` undrawn cards of each pack are already chosen. The move is played on a
#   copy (rules.py ``apply_move``, the one code path, with every automatic flip, tie and
#   round start); if it read no card beyond the chosen ones, its value is the decision
#   that follows; else the next position of the pack it read is enumerated over every
#   remaining card (Jokers are alike: one branch weighted by their count).


@hot
def push_frame(frames: np.ndarray, fvals: np.ndarray, top: int, kind: int, row: int,
               move: int, fixed0: int, fixed1: int) -> int:
    top += 1
    if top >= frames.shape[0]:
        return -1
    f = frames[top]
    f[F_KIND] = kind
    f[F_ROW] = row
    f[F_MOVE] = move
    f[F_FIX0] = fixed0
    f[F_FIX1] = fixed1
    f[F_STAGE] = 0
    fvals[top, V_TOTAL] = 0.0
    fvals[top, V_FIRST] = 0.0
    return top


@hot
def exact_value(stack: np.ndarray, kv: np.ndarray, seat: int, move: int,
                frames: np.ndarray, fvals: np.ndarray, nodes: np.ndarray, budget: int,
                work: np.ndarray) -> float:
    """Exact value for ``seat`` (expected partie result, +1 / 0 / -1) of playing ``move``
    at the position ``stack[0]`` (the seat to move's move), both seats then playing
    optimally to the end of the partie, the order of each pack's remaining cards being
    uniformly random (all that the seats know). Nothing is approximated; ``nodes``
    counts the moves played, and past ``budget`` (or the stacks' depth) the solve is
    abandoned (``nodes[0]`` set above the budget, the value meaningless)."""
    size = kv[KV_SIZE]
    top = push_frame(frames, fvals, -1, FR_MOVE, 0, move, 0, 0)
    ret = 0.0
    while top >= 0:
        if nodes[0] > budget:
            return 0.0
        f = frames[top]
        st = stack[f[F_ROW]]
        if f[F_KIND] == FR_DECISION:
            if f[F_STAGE] == 0:
                if st[S_PHASE] == PH_OVER:
                    ret = float(outcome(st, seat))
                    top -= 1
                    continue
                f[F_STAGE] = 1
                top = push_frame(frames, fvals, top, FR_MOVE, f[F_ROW], CONCEDE, 0, 0)
            elif f[F_STAGE] == 1:
                fvals[top, V_FIRST] = ret
                f[F_STAGE] = 2
                top = push_frame(frames, fvals, top, FR_MOVE, f[F_ROW], DRAW, 0, 0)
            else:
                first = fvals[top, V_FIRST]
                ret = max(first, ret) if to_move(st) == seat else min(first, ret)
                top -= 1
            if top < 0:
                nodes[0] = budget + 1  # frame stack overflow
                return 0.0
            continue
        # a MOVE frame
        stage = f[F_STAGE]
        if stage == 0:
            row = f[F_ROW]
            if row + 1 >= stack.shape[0]:
                nodes[0] = budget + 1
                return 0.0
            nodes[0] += 1
            nxt = stack[row + 1]
            copy_state(st, nxt)
            apply_move(nxt, kv, f[F_MOVE], work)
            read0 = nxt[S_POS] - st[S_POS]
            read1 = nxt[S_POS + 1] - st[S_POS + 1]
            if read0 <= f[F_FIX0] and read1 <= f[F_FIX1]:
                f[F_STAGE] = 3
                top = push_frame(frames, fvals, top, FR_DECISION, row + 1, -1, 0, 0)
                if top < 0:
                    nodes[0] = budget + 1
                    return 0.0
                continue
            p = 0 if read0 > f[F_FIX0] else 1
            at = P_OFF + p * PACK_MAX + st[S_POS + p] + (f[F_FIX0] if p == 0 else f[F_FIX1])
            f[F_PACK] = p
            f[F_AT] = at
            f[F_NEXT] = at - 1
            n_jokers = 0
            for j in range(at, P_OFF + p * PACK_MAX + size):
                n_jokers += st[j] >= N_NATURAL
            f[F_JOKERS] = n_jokers
            f[F_STAGE] = 1
            continue
        at = f[F_AT]
        end = P_OFF + f[F_PACK] * PACK_MAX + size
        if stage == 2:  # a branch came back: weigh it, put the card back
            fvals[top, V_TOTAL] += f[F_WEIGHT] * ret
            j = f[F_NEXT]
            st[at], st[j] = st[j], st[at]
            f[F_STAGE] = 1
            continue
        if stage == 3:  # the decision after the move came back
            top -= 1
            continue
        # stage 1: the next branch: the next card that is not a Joker already tried
        j = f[F_NEXT] + 1
        while j < end and st[j] >= N_NATURAL:
            seen = False
            for k in range(at, j):
                if st[k] >= N_NATURAL:
                    seen = True
                    break
            if not seen:
                break
            j += 1
        if j >= end:
            ret = fvals[top, V_TOTAL] / (end - at)
            top -= 1
            continue
        f[F_NEXT] = j
        f[F_WEIGHT] = f[F_JOKERS] if st[j] >= N_NATURAL else 1
        st[at], st[j] = st[j], st[at]
        f[F_STAGE] = 2
        if f[F_PACK] == 0:
            top = push_frame(frames, fvals, top, FR_MOVE, f[F_ROW], f[F_MOVE],
                             f[F_FIX0] + 1, f[F_FIX1])
        else:
            top = push_frame(frames, fvals, top, FR_MOVE, f[F_ROW], f[F_MOVE], f[F_FIX0],
                             f[F_FIX1] + 1)
        if top < 0:
            nodes[0] = budget + 1
            return 0.0
    return ret


@hot
def exact_move_values(st: np.ndarray, kv: np.ndarray, pp: np.ndarray, sw: tuple,
                      work: np.ndarray, values: np.ndarray) -> bool:
    """The exact values for the seat to move of conceding and drawing (``values``[0],
    [1]), solved on the canonical copy of ``st`` (so the real order is never read).
    False when the endgame is too big for the solver (then ``values`` is meaningless)."""
    stack = sw[3]
    nodes = sw[4]
    seat = to_move(st)
    canonical_copy(st, kv, stack[0])
    nodes[0] = 0
    budget = pp[PP_EXACT_NODES]
    for m in range(2):
        values[m] = exact_value(stack, kv, seat, m, sw[6], sw[7], nodes, budget, work)
    return nodes[0] <= budget


@hot
def search_move(seed: np.uint64, index: int, sub: int, st: np.ndarray, kv: np.ndarray,
                pp: np.ndarray, n_worlds: int, sw: tuple, work: np.ndarray) -> int:
    """The search player's move for the seat ``to_move`` (deal ``index``, ``sub`` 0).

    Both moves are played out in the same worlds (common random numbers), and the move
    other than the heuristic's is played only when its mean gain per world beats
    ``pp[PP_Z] / 100`` standard errors: a concede-or-draw choice is often worth a few
    hundredths of a partie, below the noise of a few dozen playouts, and following the
    noise measured worse than the heuristic (issue of this game: -0.35 points a partie
    with the plain argmax against the tuned heuristic; with 48 worlds a 1.5 bar beat the
    former 24 worlds and 2.0 by +0.08 a partie). Endgames small enough are solved
    exactly instead (``exact_move_values``)."""
    world, roll, total = sw[0], sw[1], sw[2]
    seat = to_move(st)
    h = heuristic_move(st, kv, pp)
    if kv[KV_TARGET] - st[S_WINS + 1 - seat] <= 1:
        return DRAW  # conceding loses the partie at once: drawing is never worse
    if cards_left(st, kv, 0) + cards_left(st, kv, 1) <= pp[PP_EXACT_CARDS]:
        values = sw[5]
        if exact_move_values(st, kv, pp, sw, work, values):
            # the exact optimum; on an exact tie (up to rounding), the heuristic's move
            alt = 1 - h
            return alt if values[alt] > values[h] + 1e-9 else h
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
    deal's POLICY stream; SEARCH uses its own streams). Returns (policy state, move).
    The seat ``naive_seat`` always draws (the catalogue's naive policy, question 2)."""
    if to_move(st) == pp[PP_NAIVE_SEAT]:
        return policy_state, DRAW
    if pol == HEURISTIC:
        return policy_state, heuristic_move(st, kv, pp)
    if pol == RANDOM:
        return random_move(policy_state, st)
    return policy_state, search_move(seed, index, sub, st, kv, pp, n_worlds, sw, work)


# --- how close: one more step of policy improvement (a measurement, not a player) --------
@hot
def search_playout(seed: np.uint64, index: int, st: np.ndarray, kv: np.ndarray,
                   pp: np.ndarray, n_worlds: int, sw: tuple, work: np.ndarray) -> None:
    """Play the partie to its end with the search player at both seats (``sw``: its own
    work arrays, not the caller's)."""
    while st[S_PHASE] != PH_OVER:
        apply_move(st, kv, search_move(seed, index, 0, st, kv, pp, n_worlds, sw, work),
                   work)


@batch
def lookahead_outcomes(seed: np.uint64, st: np.ndarray, kv: np.ndarray, pp: np.ndarray,
                       n_worlds: int, continuation_worlds: int) -> np.ndarray:
    """``out[w, m]``: the partie's result for the seat to move at ``st`` when it plays
    move ``m`` (CONCEDE, DRAW) in world ``w`` (``sample_world``: the real order is never
    read), both seats then playing to the end as heuristic players
    (``continuation_worlds`` 0: what ``search_move`` estimates) or as search players with
    that many worlds (one more step of policy improvement: what a search player would
    gain if its playouts were played by itself). Both moves share each world."""
    seat = to_move(st)
    out = np.zeros((n_worlds, 2), dtype=np.int64)
    world = np.zeros(N_ST, dtype=np.int64)
    roll = np.zeros(N_ST, dtype=np.int64)
    work = np.zeros(35, dtype=np.int64)  # simlab.poker.work_array
    sw = search_work()
    state = rng.stream(seed, 0, 0, rng.SEARCH)
    for w in range(n_worlds):
        state = sample_world(state, st, kv, world)
        for m in range(2):
            copy_state(world, roll)
            apply_move(roll, kv, m, work)
            if continuation_worlds == 0:
                playout(roll, kv, pp, work)
            else:
                # world w's own decision streams, the same for both moves
                search_playout(seed, w + 1, roll, kv, pp, continuation_worlds, sw, work)
            out[w, m] = outcome(roll, seat)
    return out
