"""Président / Trou du cul: the players. Every one of them picks a move of ``rules.py``
(``legal_moves`` / ``apply_move``); none changes a rule.

* ``heuristic_move``: the built-in heuristic of ``simlab.mechanics.shedding`` (lead the lowest
  rank, follow with the cheapest matching group, hold back the top ranks until the
  endgame; give back the lowest singletons in the exchange), its knobs from ``_policy``.
* ``random_move``: uniform over the legal moves (over the cards held for a gift).
* ``seat_view``: what one seat knows (its hand, every rank played and by whom, hand sizes,
  titles, and what the exchange taught it), and ``sample_world``: a deal of the cards
  hidden from it consistent with that view.
* ``search_move``: the search player (determinized Monte Carlo, ``simlab.mechanics.search``): in
  each of ``search_worlds`` sampled worlds, every legal move is played out to the end of
  the deal by heuristic players; the move with the best total role points for the seat
  wins (the heuristic's own move on ties). It covers every decision: the exchange gifts
  and every lead, follow and pass.

What a seat sees in play is kept by rank: suits never matter in play, so the seat
forgets the suit of a played card (it knows a little less than a real player: e.g. which
of the cards it gave has come back to the table), never more. A pass tells nothing
certain (a player may pass holding a playable group), so passes constrain no world.
The heuristic playouts are deterministic (no chance is left once the cards are dealt), so
``search_rollouts`` = 1 is all Président needs.

``choose`` dispatches one decision by policy code; the batch kernels inline the same
dispatch (``kernels.play_deal``) and, when every seat is heuristic, run ``playout``
itself, the loop of the search's rollouts.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM
from simlab.engine.jit import batch, hot, hot_inline
from simlab.games.president.rules import (
    G_NCARDS,
    G_PHASE,
    G_PLY,
    G_SIZE,
    G_TAKER,
    G_XCAP,
    G_XPART,
    N_CARDS,
    N_G,
    N_RANKS,
    NO_CAP,
    PASS,
    PER_RANK,
    PH_EXCHANGE,
    PH_OVER,
    PresidentKnobs,
    apply_move,
    copy_state,
    legal_moves,
    play_move,
    score,
    to_move,
)
from simlab.mechanics import search
from simlab.mechanics import shedding as sh
from simlab.mechanics.tricks import EMPTY, ONE, bit, lowest, popcount

MAX_MOVES = 64  # a lead: at most 13 ranks x 4 group sizes
WORK_SIZE = search.work_size(N_CARDS)  # sample_owners scratch


def _policy(k: PresidentKnobs) -> np.ndarray:
    """The heuristic's knobs as the ``sh.PP_*`` vector."""
    return sh.make_policy(lead_largest=k.lead_largest, keep_top=k.keep_top,
                          endgame=k.endgame_cards, break_groups=k.break_groups,
                          give_singletons=k.give_singletons)


# --- heuristic and random players ---------------------------------------------------------
@hot_inline
def heuristic_move(g: np.ndarray, counts: np.ndarray, masks: np.ndarray, rules: np.ndarray,
                   pp: np.ndarray, rank_of: np.ndarray, scratch: np.ndarray) -> int:
    """The heuristic's move for the seat ``to_move``. ``scratch``: int64 [13]."""
    if g[G_PHASE] == PH_EXCHANGE:
        return sh.gift_heuristic(masks[g[G_TAKER]], rank_of, scratch, pp)
    p = g[sh.ST_TURN]
    if (g[sh.ST_LOCKED] >> p) & 1:
        return PASS
    need = g[sh.ST_NEED]
    rev = g[sh.ST_REV] != 0
    if need == 0:
        r, k = sh.heuristic_lead(counts[p], rules, pp, rev)
        return play_move(r, k)
    r = sh.heuristic_follow(counts[p], g[G_SIZE + p], g[sh.ST_TOP], need, rules, pp, rev)
    return PASS if r < 0 else play_move(r, need)


@hot
def random_move(state: np.uint64, g: np.ndarray, counts: np.ndarray, masks: np.ndarray,
                rules: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves, from the deal's POLICY stream ``state``: a gift is
    any card held; in play every (rank, count) lead, or pass and each playable rank. A
    seat locked out of the series passes without a draw."""
    if g[G_PHASE] == PH_EXCHANGE:
        return sh.random_gift(state, masks[g[G_TAKER]])
    p = g[sh.ST_TURN]
    if (g[sh.ST_LOCKED] >> p) & 1:
        return state, PASS
    state, r, k = sh.random_move(state, counts[p], g[sh.ST_TOP], g[sh.ST_NEED], rules,
                                 g[sh.ST_REV] != 0)
    return state, (PASS if r < 0 else play_move(r, k))


@hot
def playout(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
            kmask: np.ndarray, kv: np.ndarray, rules: np.ndarray, pp: np.ndarray,
            rank_of: np.ndarray, scratch: np.ndarray) -> None:
    """Play the deal to its end with heuristic players at every seat."""
    while g[G_PHASE] != PH_OVER:
        apply_move(g, counts, played, masks, kmask, kv, rules, rank_of,
                   heuristic_move(g, counts, masks, rules, pp, rank_of, scratch))


# --- what a seat sees ---------------------------------------------------------------------
@hot
def seat_view(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
              kmask: np.ndarray, rank_of: np.ndarray, seat: int, unseen: np.ndarray,
              known: np.ndarray) -> tuple[int, int]:
    """What ``seat`` knows about the cards it does not hold, by playing rank.

    Writes ``unseen[r]``: cards of rank r neither in its hand nor played (nor counted in
    ``known``), and ``known[r]``: cards of rank r it knows to be in its exchange partner's
    hand (cards it gave him, less as many of that rank as he has played since: the seat
    does not track suits). Returns (partner or -1, cap): besides ``known`` the partner
    holds no rank above ``cap`` (he gave his best cards; ``NO_CAP``: no such knowledge).
    Reads only the seat's own hand, ``played``, and its own exchange slots."""
    n = g[sh.ST_N]
    partner = g[G_XPART + seat]
    cap = g[G_XCAP + seat]
    exchange = g[G_PHASE] == PH_EXCHANGE
    for r in range(N_RANKS):
        known[r] = 0
    m = kmask[seat]
    while m != EMPTY:
        known[rank_of[lowest(m)]] += 1
        m &= m - ONE
    for r in range(N_RANKS):
        if exchange:  # nothing played yet; the hand is the mask
            own = 0
        else:
            own = counts[seat, r]
            out = 0
            for q in range(n):
                out += played[q, r]
            if partner >= 0:
                known[r] = max(0, known[r] - played[partner, r])
            own += out
        unseen[r] = PER_RANK - own - known[r]
    if exchange:
        m = masks[seat]
        while m != EMPTY:
            unseen[rank_of[lowest(m)]] -= 1
            m &= m - ONE
    return partner, cap


@hot
def _hidden_places(g: np.ndarray, masks: np.ndarray, seat: int, partner: int,
                   n_known: int, slot_seat: np.ndarray, capacity: np.ndarray) -> int:
    """The places hidden cards may be in, seats in order then the undealt cards (with
    ``equal_hands``), with how many hidden cards each holds (its hand size, less the
    cards known to be there). Hand sizes are public. Returns the number of places."""
    n = g[sh.ST_N]
    exchange = g[G_PHASE] == PH_EXCHANGE
    ns = 0
    for q in range(n):
        if q == seat:
            continue
        size = popcount(masks[q]) if exchange else g[G_SIZE + q]
        if size == 0:
            continue
        slot_seat[ns] = q
        capacity[ns] = size - (n_known if q == partner else 0)
        ns += 1
    undealt = N_CARDS - g[G_NCARDS]
    if undealt > 0:
        slot_seat[ns] = -1
        capacity[ns] = undealt
        ns += 1
    return ns


@batch
def search_work(n: int) -> tuple:
    """Work arrays of one search seat, allocated once per batch: a world's state, a
    rollout's state, and the integer scratch of ``sample_world`` / ``search_move``."""
    world = (np.zeros(N_G, dtype=np.int64), np.zeros((n, N_RANKS), dtype=np.int64),
             np.zeros((n, N_RANKS), dtype=np.int64), np.zeros(n, dtype=np.uint64),
             np.zeros(n, dtype=np.uint64))
    roll = (np.zeros(N_G, dtype=np.int64), np.zeros((n, N_RANKS), dtype=np.int64),
            np.zeros((n, N_RANKS), dtype=np.int64), np.zeros(n, dtype=np.uint64),
            np.zeros(n, dtype=np.uint64))
    cards = np.zeros((5, N_CARDS), dtype=np.int64)  # units, rest, allowed, owner, place_of
    slots = np.zeros((4, search.MAX_SLOTS), dtype=np.int64)  # seat, capacity, sub cap, sub place
    ranks = np.zeros((3, N_RANKS), dtype=np.int64)  # unseen, known, heuristic scratch
    moves = np.zeros((2, MAX_MOVES), dtype=np.int64)  # legal moves, total points per move
    work = np.zeros(WORK_SIZE, dtype=np.int64)
    return world, roll, cards, slots, ranks, moves, work


@hot
def sample_world(state: np.uint64, g: np.ndarray, counts: np.ndarray, played: np.ndarray,
                 masks: np.ndarray, kmask: np.ndarray, rank_of: np.ndarray, seat: int,
                 world: tuple, cards: np.ndarray, slots: np.ndarray, ranks: np.ndarray,
                 work: np.ndarray) -> tuple[np.uint64, bool]:
    """A world for ``seat``: the state copied into ``world`` with the cards hidden from
    the seat dealt at random (stream ``state``) consistently with ``seat_view``.

    In play the hidden cards are ranks (the play state is rank counts); during the
    exchange they are card ids (the exchanges move physical cards). They are listed in
    canonical order (rank, or card id, ascending), so the true deal cannot show through.
    The partner's known cards go to him; besides them he gets only ranks up to his cap: a
    uniform subset of the eligible cards is drawn for him first, which keeps the world
    uniform among the consistent deals; ``search.sample_owners`` deals the rest. Other
    seats' exchange knowledge is cleared in the world (the seat does not know it)."""
    wg, wcounts, wplayed, wmasks, wkmask = world
    units, rest, allowed, owner, place_of = cards[0], cards[1], cards[2], cards[3], cards[4]
    slot_seat, capacity, sub_cap, sub_place = slots[0], slots[1], slots[2], slots[3]
    unseen, known = ranks[0], ranks[1]
    n = g[sh.ST_N]
    exchange = g[G_PHASE] == PH_EXCHANGE
    copy_state(g, counts, played, masks, kmask, wg, wcounts, wplayed, wmasks, wkmask)
    partner, cap = seat_view(g, counts, played, masks, kmask, rank_of, seat, unseen, known)
    n_known = 0
    for r in range(N_RANKS):
        n_known += known[r]
    ns = _hidden_places(g, masks, seat, partner, n_known, slot_seat, capacity)
    # the hidden units, canonical order
    nu = 0
    if exchange:
        hidden = ~masks[seat] & ~kmask[seat]
        for c in range(N_CARDS):
            if (hidden >> np.uint64(c)) & ONE:
                units[nu] = c
                nu += 1
    else:
        for r in range(N_RANKS):
            for _ in range(unseen[r]):
                units[nu] = r
                nu += 1
    for i in range(nu):
        place_of[i] = -1
    # the partner's share first, from the units he may hold
    for s in range(ns):
        if slot_seat[s] == partner and cap < NO_CAP and capacity[s] > 0:
            ne = 0
            for i in range(nu):
                if (rank_of[units[i]] if exchange else units[i]) <= cap:
                    rest[ne] = i
                    ne += 1
            if ne < capacity[s]:
                return state, False
            state = rng.shuffle(state, rest, ne)
            for j in range(capacity[s]):
                place_of[rest[j]] = s
            capacity[s] = 0
    # the rest, unconstrained, into the places with room left
    nr = 0
    for i in range(nu):
        if place_of[i] < 0:
            rest[nr] = i
            nr += 1
    nsl = 0
    for s in range(ns):
        if capacity[s] > 0:
            sub_place[nsl] = s
            sub_cap[nsl] = capacity[s]
            nsl += 1
    for j in range(nr):
        allowed[j] = (1 << nsl) - 1
    state, ok = search.sample_owners(state, allowed, sub_cap, nr, nsl, owner, work)
    if not ok:
        return state, False
    for j in range(nr):
        place_of[rest[j]] = sub_place[owner[j]]
    # the world's hidden hands
    for q in range(n):
        if q == seat:
            continue
        wkmask[q] = EMPTY
        wg[G_XPART + q] = -1
        wg[G_XCAP + q] = NO_CAP
        wmasks[q] = EMPTY  # in play the physical hands are stale: hidden, and unused
        if not exchange:
            for r in range(N_RANKS):
                wcounts[q, r] = 0
    if partner >= 0:
        if exchange:
            wmasks[partner] = kmask[seat]
        else:
            for r in range(N_RANKS):
                wcounts[partner, r] += known[r]
    for i in range(nu):
        q = slot_seat[place_of[i]]
        if q < 0:
            continue  # not dealt (equal_hands)
        if exchange:
            wmasks[q] |= bit(units[i])
        else:
            wcounts[q, units[i]] += 1
    return state, True


@hot
def search_move(seed: np.uint64, index: int, sub: int, g: np.ndarray, counts: np.ndarray,
                played: np.ndarray, masks: np.ndarray, kmask: np.ndarray, kv: np.ndarray,
                rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray, n_worlds: int,
                n_rollouts: int, sw: tuple) -> int:
    """The search player's move for the seat ``to_move`` (deal ``index``, deal ``sub`` of
    a match, run ``seed``). A forced move is made at once. Otherwise each legal move is
    applied in ``n_worlds`` worlds (``sample_world``, from the seat's own stream) and
    played out by heuristic players ``n_rollouts`` times (the playouts are deterministic
    here: 1 is enough); the move with the highest total role points for the seat is
    played, the heuristic's own move when it ties for the best. ``sw``: ``search_work``."""
    world, roll, cards, slots, ranks, mv, work = sw
    wg, wcounts, wplayed, wmasks, wkmask = world
    rg, rcounts, rplayed, rmasks, rkmask = roll
    moves, total = mv[0], mv[1]
    scratch = ranks[2]
    seat = to_move(g)
    nm = legal_moves(g, counts, masks, rules, rank_of, moves)
    if nm == 1:
        return moves[0]
    h = heuristic_move(g, counts, masks, rules, pp, rank_of, scratch)
    if g[G_PHASE] == PH_EXCHANGE:  # the legal list has one card per rank: the same rank
        for i in range(nm):
            if rank_of[moves[i]] == rank_of[h]:
                moves[i] = h
    hi = 0
    for i in range(nm):
        total[i] = 0
        if moves[i] == h:
            hi = i
    state = search.decision_stream(seed, index, sub, seat, g[G_PLY])
    for _ in range(n_worlds):
        state, ok = sample_world(state, g, counts, played, masks, kmask, rank_of, seat, world,
                                 cards, slots, ranks, work)
        if not ok:  # cannot happen: the true deal is consistent with the seat's view
            return h
        for i in range(nm):
            for _ in range(n_rollouts):
                copy_state(wg, wcounts, wplayed, wmasks, wkmask, rg, rcounts, rplayed, rmasks,
                           rkmask)
                apply_move(rg, rcounts, rplayed, rmasks, rkmask, kv, rules, rank_of, moves[i])
                playout(rg, rcounts, rplayed, rmasks, rkmask, kv, rules, pp, rank_of, scratch)
                total[i] += score(rg, kv, seat)
    best = search.best_move(total, nm)
    if total[hi] == total[best]:
        best = hi
    return moves[best]


@hot
def choose(pol: int, policy_state: np.uint64, seed: np.uint64, index: int, sub: int,
           g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
           kmask: np.ndarray, kv: np.ndarray, rules: np.ndarray, pp: np.ndarray,
           rank_of: np.ndarray, n_worlds: int, n_rollouts: int, sw: tuple
           ) -> tuple[np.uint64, int]:
    """The move of the seat to move under its policy ``pol`` (RANDOM draws from the deal's
    POLICY stream ``policy_state``; SEARCH uses its own streams). Returns (state, move)."""
    if pol == HEURISTIC:
        return policy_state, heuristic_move(g, counts, masks, rules, pp, rank_of, sw[4][2])
    if pol == RANDOM:
        return random_move(policy_state, g, counts, masks, rules)
    return policy_state, search_move(seed, index, sub, g, counts, played, masks, kmask, kv,
                                     rules, pp, rank_of, n_worlds, n_rollouts, sw)


def search_decision(state: tuple, knobs: PresidentKnobs, seed: int = 0, index: int = 0,
                    sub: int = 0) -> tuple[int, list[tuple[int, int]]]:
    """The search player's move in ``state`` (g, counts, played, masks, kmask) for the seat
    to move, and (move, total role points over the worlds) for each legal move (empty
    when the move is forced). For tests and for tracing decisions by hand."""
    from simlab.games.president.rules import _rules, _vector, rank_table

    g, counts, played, masks, kmask = state
    sw = search_work(counts.shape[0])
    kv, rules, pp = _vector(knobs), _rules(knobs), _policy(knobs)
    rank_of = rank_table(knobs.top_rank)
    move = search_move(np.uint64(seed), index, sub, g, counts, played, masks, kmask, kv, rules,
                       pp, rank_of, knobs.search_worlds, knobs.search_rollouts, sw)
    nm = legal_moves(g, counts, masks, rules, rank_of, np.zeros(MAX_MOVES, dtype=np.int64))
    moves, total = sw[5][0], sw[5][1]
    values = [(int(moves[i]), int(total[i])) for i in range(nm)] if nm > 1 else []
    return int(move), values
