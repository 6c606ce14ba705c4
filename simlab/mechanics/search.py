"""The search player, shared by every game: determinized Monte Carlo search (PIMC).

At each decision the searching seat knows its own cards and what it has seen (cards
played, public cards such as a turned card or an exposed chien, voids revealed by a
failure to follow, cards passed to it...). Everything else is hidden. The player

1. samples ``search_worlds`` *worlds*: the hidden cards dealt to their hidden places
   (other hands, a hidden chien, a stock) consistently with what the seat knows — each
   place gets exactly the number of cards it holds, and a card goes only where the
   seat's information allows it (:func:`sample_owners`);
2. in each world, applies each legal move and plays the deal out to its end with
   heuristic players (``search_rollouts`` playouts per world and move; only games with
   chance left after the decision, such as draws from a stock, gain from more than one);
3. plays the move with the best mean outcome for its side (:func:`best_move`; ties go to
   the first move in the game's move order).

It never reads a hidden card: the worlds are built from the seat's information alone,
in a canonical order, with the searching seat's own random stream
(:func:`decision_stream`, keyed by seed, deal, seat and ply), so re-dealing the hidden
cards cannot change its choice, and results do not depend on jobs or chunk size.

Why the loop itself is written in each game (``simlab/games/<slug>/players.py``) and only
its pieces live here: numba recompiles a jitted function that receives another jitted
function as an argument in every new process (its disk cache never hits), while one that
calls module-level jitted functions by name caches fine. So each game's search entry
point is a short loop over worlds and moves calling its own ``legal moves / apply /
playout`` and these helpers by name.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot
from simlab.engine.knobs import knob

# Scratch space sample_owners needs: 2 * 2**slots (set histogram, subset sums) + slots
# (capacities left) + cards (visiting order).
MAX_SLOTS = 8


def work_size(n_cards: int, n_slots: int = MAX_SLOTS) -> int:
    """Length of the int64 ``work`` array :func:`sample_owners` needs."""
    return 2 * (1 << n_slots) + n_slots + n_cards


def worlds_knob(default: int) -> int:
    """The ``search_worlds`` policy knob (each game picks its default budget)."""
    return knob(default, "search player: hidden-card worlds sampled per decision (more: "
                "stronger and slower)", lo=1, hi=10_000, policy=True)


def rollouts_knob(default: int = 1) -> int:
    """The ``search_rollouts`` policy knob."""
    return knob(default, "search player: heuristic playouts of each legal move in each "
                "world (only chance left after the decision, e.g. draws from a stock, makes "
                "playouts differ; trick games need 1)", lo=1, hi=1_000, policy=True)


@hot
def decision_stream(seed: np.uint64, index: np.int64, sub: np.int64, seat: np.int64,
                    ply: np.int64) -> np.uint64:
    """The searching seat's stream for one decision: deal (or match) ``index``, deal
    ``sub`` within a match (0 for single deals), the seat, and the decision's ply (moves
    made so far in the deal). Separate from the shuffle and policy streams, so a search
    seat never shifts anybody else's draws."""
    h = rng.stream(seed, index, sub, rng.SEARCH)
    h = rng.mix64(h ^ (np.uint64(seat + 1) * rng.GOLDEN))
    return rng.mix64(h ^ np.uint64(ply + 1))  # hashed, not packed: no bound on seats or plies


@hot
def _feasible(cap: np.ndarray, cnt: np.ndarray, sums: np.ndarray, n_slots: int) -> bool:
    """Hall's condition: for every set S of slots, the cards that may only go into S fit
    in S's remaining capacity. ``cnt[T]``: cards whose allowed slots are exactly T."""
    full = 1 << n_slots
    for t in range(full):
        sums[t] = cnt[t]
    for b in range(n_slots):  # subset sums (zeta transform)
        bb = 1 << b
        for t in range(full):
            if t & bb:
                sums[t] += sums[t ^ bb]
    for t in range(1, full):
        room = 0
        for s in range(n_slots):
            if t >> s & 1:
                room += cap[s]
        if sums[t] > room:
            return False
    return True


@hot
def sample_owners(state: np.uint64, allowed: np.ndarray, capacity: np.ndarray, n_cards: int,
                  n_slots: int, owner: np.ndarray, work: np.ndarray) -> tuple[np.uint64, bool]:
    """Deal ``n_cards`` hidden cards into ``n_slots`` hidden places.

    ``allowed[i]``: bit mask of the slots card ``i`` may go to (what the seat knows: a
    revealed void removes a slot from every card of that suit, a card known to be in a
    hand allows only that slot); ``capacity[s]``: cards slot ``s`` holds (they must sum
    to ``n_cards``). Writes ``owner[i]`` (a slot) and returns (state, ok); ok is False
    only when no deal fits the constraints. ``work``: int64 scratch of
    :func:`work_size` (n_cards, n_slots). n_slots <= MAX_SLOTS.

    The constrained cards (not allowed everywhere) go first, in a random order, each to
    a slot drawn with probability proportional to the room left among the slots that
    keep the rest dealable (Hall's condition); the cards allowed everywhere then fill the
    room left uniformly at random, which needs no check (most hidden cards are of that
    kind, and the checks are what costs). Without constraints this is exactly a uniform
    random deal; with them every world respects them."""
    full = 1 << n_slots
    all_slots = full - 1
    cnt = work[:full]
    sums = work[full:2 * full]
    cap = work[2 * full:2 * full + n_slots]
    order = work[2 * full + n_slots:2 * full + n_slots + n_cards]
    total = 0
    for s in range(n_slots):
        cap[s] = capacity[s]
        total += capacity[s]
    if total != n_cards:
        return state, False
    for t in range(full):
        cnt[t] = 0
    n_con = 0  # constrained cards first in ``order``, the free ones after them
    for i in range(n_cards):
        a = allowed[i] & all_slots
        cnt[a] += 1
        if a != all_slots:
            order[n_con] = i
            n_con += 1
    k = n_con
    for i in range(n_cards):
        if allowed[i] & all_slots == all_slots:
            order[k] = i
            k += 1
    if n_con > 0 and not _feasible(cap, cnt, sums, n_slots):
        return state, False
    state = rng.shuffle(state, order, n_con)
    for j in range(n_con):
        i = order[j]
        a = allowed[i] & all_slots
        cnt[a] -= 1
        room_total = 0
        feasible_mask = 0
        for s in range(n_slots):
            if a >> s & 1 and cap[s] > 0:
                cap[s] -= 1
                ok = _feasible(cap, cnt, sums, n_slots)
                cap[s] += 1
                if ok:
                    feasible_mask |= 1 << s
                    room_total += cap[s]
        if room_total == 0:
            return state, False
        state, x = rng.below(state, room_total)
        for s in range(n_slots):
            if feasible_mask >> s & 1:
                if x < cap[s]:
                    owner[i] = s
                    cap[s] -= 1
                    break
                x -= cap[s]
    free = order[n_con:n_cards]
    state = rng.shuffle(state, free, n_cards - n_con)
    s = 0
    for j in range(n_cards - n_con):
        while cap[s] == 0:
            s += 1
        owner[free[j]] = s
        cap[s] -= 1
    return state, True


@hot
def best_move(total: np.ndarray, n_moves: int) -> int:
    """Index of the largest summed outcome (every move has the same number of playouts);
    ties go to the first move, so the choice is deterministic."""
    best = 0
    for m in range(1, n_moves):
        if total[m] > total[best]:
            best = m
    return best
