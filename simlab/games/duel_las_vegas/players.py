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
    ``search_exact_cards`` (12) cards, the partie is solved exactly: an expectimax over
    every order of both packs' remaining cards (each chance event — a draw, a tie's two
    draws, a round's first flips — enumerated card by card, Jokers merged as one
    weighted branch), both seats playing optimally to the end of the partie (+1 / 0 /
    -1). Nothing is approximated there; the move is the exact optimum (the heuristic's
    on an exact tie). It solves on a canonical (sorted) copy, so the real order is never
    read. A table keeps each solved decision, and each round start a concession leads
    to, keyed by what decides the rest (each pack's remaining cards, the hands, the
    rounds won): the same cards drawn in another order are solved once. Past
    ``search_exact_nodes`` (10^6 moves played) it gives up and the lookahead decides.
  - **How far exact can go** (measured with scripts/duel_exact_reach.py, not a test):
    on decisions of heuristic parties with the rounds set level at 2-2 (the hardest:
    the partie runs to the packs' end), the median solve played 217,000 moves at 10
    cards (0.2 s), 4.0 x 10^6 at 12 (2.5 s); at 14, measured with a table of 2^22
    entries, 4.8 x 10^7 (23 s). The distinct decisions grow about 8.5 times per 2 cards
    (48,000 at 12 cards, 410,000 at 14). Without the table: 3.4 x 10^6 moves at 10 cards.
    On the decisions the bots really meet (400 parties, seed 21), every 12-card solve
    finished within 0.5 x 10^6 moves (0.33 s); 13 cards needed up to 5.6 x 10^6 (5 s).
    At that growth a mid-partie position (50 to 100 cards) has more than 10^20 distinct
    decisions: no exact dynamic programme reaches it, which is why the rest is
    approximate.
  - **Monte Carlo lookahead** (everywhere else): a *world* is a re-shuffle of each
    pack's remaining cards (from the canonical order, with the seat's own decision
    stream). In each world both moves are played out to the end of the partie
    (``rollout``): heuristic players, then the exact optimum at every decision once both
    packs hold at most ``search_tail_cards`` (8) cards (the solver reads no order there
    either). The move other than the heuristic's is played only when its paired mean
    gain over the worlds is ``search_z`` standard errors above zero: one step of
    (conservative) policy improvement over the heuristic-then-exact continuation. This
    part is approximate: the continuation is the heuristic until the endgame, and 48
    worlds estimate it.
  - **How close, at the edge of the exact reach** (``duel_exact_reach.py gap``; each
    unforced decision solved exactly): with 13 cards left (150 decisions, seed 3) the
    lookahead alone (exact root off) picks an optimal move in 94 % of them and loses
    0.0061 [-0.0004, +0.0125] points of partie per decision (heuristic playouts to the
    end: 0.0112 [-0.0012, +0.0237]; 192 worlds instead of 48: 0.0051); the heuristic
    picks an optimal move in 86 % and loses 0.0517 [+0.0118, +0.0915]. With 14 cards
    left (100 decisions, seed 5): the lookahead 95 % and 0.0179 [-0.0068, +0.0426], the
    heuristic 84 % and 0.0628 [+0.0213, +0.1043]. With 11 cards (where the player is now
    exact): the lookahead with heuristic playouts 96.7 % and 0.0155.
  - **Against the former player** (exact to 10 cards within 300,000 moves, heuristic
    playouts), 2,000 parties in duplicate (seed 7): +0.001 [-0.000, +0.001] points a
    deal (relative to the table). The endgames it now solves, and the exact tails of
    its playouts, are rare in the parties bots play: each is better, few change a
    result.
  - **In mid-partie, the distance to the optimum bounded one decision at a time**
    (``lookahead_outcomes``, scripts/duel_policy_improvement.py). By the one-shot
    deviation principle, a strategy that no single-decision deviation improves (play
    continuing by the strategy) is optimal in a finite game; what one deviation can gain
    is the player's local distance to the optimum. On 60 mid-partie positions (one
    decision drawn per partie of search players, outside the exact solver's reach, seed
    11), the other move's advantage over this player's, both continued by search players,
    was estimated without bias in 64 worlds each; since max(0, .) is convex, the mean of
    max(0, estimate) is an upper bound on the mean gain of the best deviation, and it
    was 0.0052 points of partie per decision (95 % upper limit 0.0113; the noise alone
    could give about 0.003 of it). The other move was clearly worse at 40 positions
    (mean -0.50), never different in any world at 16, and ahead in the estimate at 4
    (at most +0.22, within noise). A two-step policy, choosing on half the worlds and
    scored on the other half, gained -0.0052 [-0.0154, +0.0050] per decision there; on
    the former player (exact to 10 cards, heuristic playouts) it gained +0.013 [-0.002,
    +0.027] on 200 positions, and -0.0017 [-0.0054, +0.0020] on 80 (this player, seed 4).
    A partie has about 89 decisions, so the bound is per decision, not per partie.
  - **An abstraction tried and not kept:** a table of the partie's value at each round's
    start by (rounds won, cards left in each pack), from 10^6 heuristic parties, smoothed
    over the cards left, with the round played out to its end in each world and the table
    after it. Against the heuristic, 300 parties in duplicate: +0.11 +- 0.06 (256 worlds,
    1.0 SE) against +0.17 +- 0.05 for this lookahead, and -0.08 +- 0.06 head to head: the
    table ignores what is left in each pack (the Jokers above all), which decides rounds.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM
from simlab.engine.jit import batch, hot
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
    PP_TAIL,
    PP_Z,
    S_JOK,
    S_NAT,
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
from simlab.mechanics import poker, search


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
# the exact solver's table of solved decisions (a transposition table: the same position
# is reached by many orders of the same draws), keyed by what decides the rest of the
# partie: each pack's remaining cards, both hands, the rounds won and the seat to move
TABLE_BITS = 18
N_KEY = 5
PROBES = 4


@batch
def search_work(table_bits: int = TABLE_BITS) -> tuple:
    """Work arrays of a search seat: a world, a rollout's state, the move totals (Monte
    Carlo lookahead); the exact solver's stack of positions, its node counter, its
    frames, and its table of ``2**table_bits`` entries (keys, values, and the solve that
    wrote each entry: an entry of an earlier solve is empty, so no solve ever reads
    another's)."""
    n = 1 << table_bits
    return (np.zeros(N_ST, dtype=np.int64), np.zeros(N_ST, dtype=np.int64),
            np.zeros(2, dtype=np.int64), np.zeros((EXACT_DEPTH, N_ST), dtype=np.int64),
            np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.float64),
            np.zeros((MAX_FRAMES, N_F), dtype=np.int64),
            np.zeros((MAX_FRAMES, N_V), dtype=np.float64),
            np.zeros((n, N_KEY), dtype=np.int64), np.zeros(n, dtype=np.float64),
            np.zeros(n, dtype=np.int64), np.zeros(N_KEY + 1, dtype=np.int64),
            np.zeros(2, dtype=np.float64))


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
def position_key(st: np.ndarray, kv: np.ndarray, key: np.ndarray) -> None:
    """``key[:N_KEY]``: what decides the rest of the partie at a decision, whatever the
    order of the cards: each pack's remaining cards and each hand (natural-card mask,
    Jokers above bit 52), the rounds won and the seat to move."""
    size = kv[KV_SIZE]
    for p in range(2):
        rest = 0
        jokers = 0
        base = P_OFF + p * PACK_MAX
        for i in range(st[S_POS + p], size):
            c = st[base + i]
            if c >= N_NATURAL:
                jokers += 1
            else:
                rest |= 1 << c
        key[p] = rest | (jokers << N_NATURAL)
        key[2 + p] = st[S_NAT + p] | (st[S_JOK + p] << N_NATURAL)
    key[4] = st[S_WINS] | (st[S_WINS + 1] << 8) | ((to_move(st) + 1) << 16)


@hot
def conceded_key(st: np.ndarray, kv: np.ndarray, key: np.ndarray) -> None:
    """``key[:N_KEY]`` of the position after the seat to move concedes: the next round's
    start (no hands, the opponent one round more), which many decisions share — every
    hand conceded with the same cards left leads to it."""
    position_key(st, kv, key)
    key[2] = 0
    key[3] = 0
    key[4] = st[S_WINS] | (st[S_WINS + 1] << 8) | (3 << 16)
    key[4] += 1 << (8 * (1 - to_move(st)))


@hot
def table_get(tkeys: np.ndarray, tvals: np.ndarray, tsolve: np.ndarray, key: np.ndarray
              ) -> float:
    """The value kept for ``key`` in this solve, NaN if none."""
    slot = table_slot(tkeys, tsolve, key)
    return tvals[slot] if slot >= 0 else np.nan


@hot
def table_store(tkeys: np.ndarray, tvals: np.ndarray, tsolve: np.ndarray,
                key: np.ndarray, value: float) -> None:
    slot = table_slot(tkeys, tsolve, key)
    if slot < 0:
        slot = -1 - slot
        for i in range(N_KEY):
            tkeys[slot, i] = key[i]
        tsolve[slot] = key[N_KEY]
    tvals[slot] = value


@hot
def table_slot(tkeys: np.ndarray, tsolve: np.ndarray, key: np.ndarray) -> int:
    """The slot holding ``key`` in this solve (>= 0), or -1 - the slot to write it to."""
    solve = key[N_KEY]
    h = 0
    for i in range(N_KEY):  # a hash that never overflows int64 (the same uncompiled)
        h = (h * 1_000_003 + (key[i] ^ (key[i] >> 29)) % 1_048_573) % 2_147_483_647
    mask = tkeys.shape[0] - 1
    first = h & mask
    for k in range(PROBES):
        s = (first + k) & mask
        if tsolve[s] != solve:
            return -1 - s  # empty in this solve
        same = True
        for i in range(N_KEY):
            if tkeys[s, i] != key[i]:
                same = False
                break
        if same:
            return s
    return -1 - first  # all taken: replace the first


@hot
def exact_value(stack: np.ndarray, kv: np.ndarray, seat: int, move: int,
                frames: np.ndarray, fvals: np.ndarray, nodes: np.ndarray, budget: int,
                work: np.ndarray, tkeys: np.ndarray, tvals: np.ndarray,
                tsolve: np.ndarray, key: np.ndarray) -> float:
    """Exact value for ``seat`` (expected partie result, +1 / 0 / -1) of playing ``move``
    at the position ``stack[0]`` (the seat to move's move), both seats then playing
    optimally to the end of the partie, the order of each pack's remaining cards being
    uniformly random (all that the seats know). Nothing is approximated; ``nodes``
    counts the moves played, and past ``budget`` (or the stacks' depth) the solve is
    abandoned (``nodes[0]`` set above the budget, the value meaningless). Each decision
    solved is kept in the table (``tkeys``/``tvals``, entries of solve ``key[N_KEY]``)
    and read back when the same position is reached again: only complete values are
    written, so an abandoned solve leaves nothing wrong behind."""
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
                position_key(st, kv, key)
                kept = table_get(tkeys, tvals, tsolve, key)
                if kept == kept:  # solved already (NaN: not in the table)
                    ret = kept
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
                position_key(st, kv, key)
                table_store(tkeys, tvals, tsolve, key, ret)
                top -= 1
            if top < 0:
                nodes[0] = budget + 1  # frame stack overflow
                return 0.0
            continue
        # a MOVE frame
        stage = f[F_STAGE]
        conceding = f[F_MOVE] == CONCEDE and f[F_FIX0] == 0 and f[F_FIX1] == 0
        if stage == 0:
            if conceding:
                conceded_key(st, kv, key)
                kept = table_get(tkeys, tvals, tsolve, key)
                if kept == kept:
                    ret = kept
                    top -= 1
                    continue
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
            if conceding:
                conceded_key(st, kv, key)
                table_store(tkeys, tvals, tsolve, key, ret)
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
            if conceding:
                conceded_key(st, kv, key)
                table_store(tkeys, tvals, tsolve, key, ret)
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
    key = sw[11]
    key[N_KEY] += 1  # a new solve: the table's older entries read as empty
    for m in range(2):
        values[m] = exact_value(stack, kv, seat, m, sw[6], sw[7], nodes, budget, work,
                                sw[8], sw[9], sw[10], key)
    return nodes[0] <= budget


@hot
def rollout(st: np.ndarray, kv: np.ndarray, pp: np.ndarray, sw: tuple, work: np.ndarray
            ) -> None:
    """Play a world's partie to its end as the lookahead values it: heuristic players,
    then, once both packs together hold at most ``pp[PP_TAIL]`` cards, the exact optimum
    at every decision (the exact solver on the canonical copy: a playout's seat does not
    read its world's order either)."""
    values = sw[12]
    while st[S_PHASE] != PH_OVER:
        m = heuristic_move(st, kv, pp)
        if (cards_left(st, kv, 0) + cards_left(st, kv, 1) <= pp[PP_TAIL]
                and kv[KV_TARGET] - st[S_WINS + 1 - to_move(st)] > 1
                and exact_move_values(st, kv, pp, sw, work, values)
                and values[1 - m] > values[m] + 1e-9):
            m = 1 - m
        apply_move(st, kv, m, work)


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
            rollout(roll, kv, pp, sw, work)
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
    work = np.zeros(poker.WORK_SIZE, dtype=np.int64)  # simlab.mechanics.poker.work_array
    sw = search_work()
    state = rng.stream(seed, 0, 0, rng.SEARCH)
    for w in range(n_worlds):
        state = sample_world(state, st, kv, world)
        for m in range(2):
            copy_state(world, roll)
            apply_move(roll, kv, m, work)
            if continuation_worlds == 0:
                rollout(roll, kv, pp, sw, work)
            else:
                # world w's own decision streams, the same for both moves
                search_playout(seed, w + 1, roll, kv, pp, continuation_worlds, sw, work)
            out[w, m] = outcome(roll, seat)
    return out
