"""Bridgette players: the heuristic policy (discard, auction, card play), the random
policy, what a seat sees, the worlds consistent with it, and the search player
(``--policy search``).

Rules are in ``rules.py``; every policy here chooses among ``rules.legal_moves`` and the
kernels apply the choice with ``rules.apply_move``, so the heuristic run, the search's
playouts and the real deal follow one code path.

The heuristic:

* discard: throw, one card at a time, the card with the lowest keep value (an honour is
  worth much, a card of a long suit more than one of a short suit, so short suits are
  voided first; the Grand Colon is kept like a high card, the Petit Colon is cheap);
* auction: ``hand_points`` (4A 3K 2Q 1J, plus trump length and shortness in a suit strain,
  long suits in Sans-Atout, and the Colons) gives ``(trick_base + points) / 4`` expected
  tricks per strain (a fit on heuristic deals: tricks = 3.2 + 0.245 points); it bids the
  contract it expects to make with the best value (the highest level it may bid up to
  that, or the cheapest), raises its own bid when the opponent passes if a better
  contract is in reach, doubles when the opponent's contract exceeds by
  ``double_margin`` tricks what its hand leaves him (``declarer_tricks_x100``), redoubles
  a doubled contract it expects to make bar half a trick (``doubled_tricks_x100``),
  stays in one at most a trick short, and runs to another strain from one further off;
* play: draw trumps with a master trump (the declarer also with a low one from 4 trumps),
  cash masters, lead a Colon that cannot lose, else the lowest card of the longest side
  suit; second to play, win with the cheapest winning card, else throw the card of least
  ``throw_value`` (a Petit or Royal Colon first: a Colon always loses a reply, and the
  matching one bans the leader's suit).

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) decides the discard,
the auction's calls and every card: in each of ``search_worlds`` worlds (the cards hidden
from its seat dealt again: the opponent's hand, the opponent's discards and the rest of
the stock, consistently with what the seat knows) it plays each candidate move out to the
end of the deal with heuristic players and keeps the move with the best summed score
difference. Candidate calls: pass, double, redouble, and in each strain the cheapest legal bid and the
next level (higher jumps are left out to bound the search). The discard is searched over
six plans rather than over single cards (13 + k cards to choose k from is too many): the
heuristic's, and the heuristic's steered to keep each strain's suit or one card of every
suit (``search_discard``); each discard move plays the best plan's next card.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.bridgette.rules import (
    ALL_CARDS,
    BID,
    CLASS_OF_BID,
    COLON_OF_GROUP,
    COLON_ROYAL,
    COLONS,
    DOUBLE,
    G_ACE,
    G_FACE,
    G_LOW,
    GRAND_COLON,
    GROUP_MASK,
    K_DOUBLE_MARGIN,
    K_GRAND_POINTS,
    K_ROLLOUTS,
    K_SA_ELEVEN_POINTS,
    K_SA_SLAM_POINTS,
    K_TRICK_BASE,
    K_VALUE,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    N_SUITED,
    P_AUCTION,
    P_DISCARD,
    P_DONE,
    P_PLAY,
    PASS,
    PETIT_COLON,
    RANK_OF,
    REDOUBLE,
    RJ,
    S_BID,
    S_BIDDER,
    S_DECLARER,
    S_DISC,
    S_DOUBLED,
    S_DRAWN,
    S_EXCL,
    S_GONE,
    S_HAND,
    S_LED,
    S_MIN,
    S_PASSES,
    S_PHASE,
    S_PLAYED,
    S_PLY,
    S_TO_MOVE,
    S_TRUMP,
    S_UPCARD,
    SA,
    STRAIN_SUIT,
    SUIT_MASK,
    SUIT_OF,
    apply_move,
    cheapest_level,
    follower_wins,
    hand_of,
    high_card_points,
    legal_cards,
    legal_moves,
    may_bid,
    seat_scores,
    suit_count,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import sample_places
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, lowest

NO_CARD = -1


# --- the heuristic: discard ------------------------------------------------------------------
@hot
def keep_value(c: int, hand: np.uint64, favour: int) -> int:
    """How much the discard wants to keep ``c``: 8 per honour point (A 4 ... J 1), 3 per
    card of its suit in the hand (long suits stay, short ones are voided), its rank as a
    tie-break. The Colons count no suit: the Grand Colon (it wins when led once the Aces
    and trumps are gone) like a guarded Queen, the Colon Royal and the Petit Colon (they
    mostly lose, but can block a suit) like small cards. ``favour`` steers the search
    player's variants: a suit (0..3) whose cards are kept first, or ``SA`` (keep the last
    card of every suit, which Sans-Atout needs); -1 for the heuristic itself."""
    if c == GRAND_COLON:
        return 20
    if c == COLON_ROYAL:
        return 9
    if c == PETIT_COLON:
        return 5
    r = RANK_OF[c]
    honour = r - RJ + 1 if r >= RJ else 0
    n = suit_count(hand, SUIT_OF[c])
    v = 8 * honour + 3 * n + r // 3
    if favour == SUIT_OF[c] or (favour == SA and n == 1):
        v += FAVOUR_BONUS
    return v


FAVOUR_BONUS = 40


@hot
def discard_with(hand: np.uint64, favour: int) -> int:
    """The card of least ``keep_value``."""
    best = NO_CARD
    best_v = 1 << 30
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        v = keep_value(c, hand, favour)
        if v < best_v:
            best_v = v
            best = c
    return best


@hot
def heuristic_discard(hand: np.uint64) -> int:
    return discard_with(hand, -1)


# --- the heuristic: auction ------------------------------------------------------------------
@hot
def hand_points(hand: np.uint64, strain: int) -> int:
    """Strength of ``hand`` played in ``strain``: 4A 3K 2Q 1J; a suit strain adds 2 per
    trump beyond 4 and, with at least 3 trumps, 3 / 2 / 1 per void / singleton /
    doubleton side suit (ruffs); Sans-Atout adds 1 per card beyond 4 in a suit. The Grand
    Colon adds 2, the Colon Royal 1."""
    pts = high_card_points(hand)
    if strain == SA:
        for s in range(4):
            n = suit_count(hand, s)
            if n > 4:
                pts += n - 4
    else:
        t = STRAIN_SUIT[strain]
        nt = suit_count(hand, t)
        if nt > 4:
            pts += 2 * (nt - 4)
        if nt >= 3:
            for s in range(4):
                if s != t:
                    n = suit_count(hand, s)
                    if n < 3:
                        pts += 3 - n
    if hand & bit(GRAND_COLON) != EMPTY:
        pts += 2
    if hand & bit(COLON_ROYAL) != EMPTY:
        pts += 1
    return pts


@hot
def expected_tricks(hand: np.uint64, strain: int, kv: np.ndarray) -> int:
    """The heuristic's trick estimate: (trick_base + hand_points) / 4, at most 13; all 13
    from ``grand_slam_points``, at least 12 in Sans-Atout from ``sa_slam_points`` (the
    linear fit underrates the strongest hands)."""
    pts = hand_points(hand, strain)
    if pts >= kv[K_GRAND_POINTS]:
        return 13
    linear = min(13, max(0, (kv[K_TRICK_BASE] + pts) // 4))
    if strain == SA and pts >= kv[K_SA_SLAM_POINTS]:
        return max(12, linear)
    if strain == SA and pts >= kv[K_SA_ELEVEN_POINTS]:
        return max(11, linear)
    return linear


@hot
def declarer_tricks_x100(hand: np.uint64, b: int, kv: np.ndarray) -> int:
    """100 times the tricks the heuristic expects the opponent to take in his contract
    ``b`` against ``hand``: he has at least the points his bid needs (the inverse of
    ``expected_tricks``), and a linear fit on heuristic deals (declarer's tricks =
    5.95 + 0.198 his points - 0.141 the defender's points, residual sd 1.6 tricks) says
    what the defender's points leave him."""
    his_points = 4 * (6 + b // 5) - kv[K_TRICK_BASE]
    return 595 + 20 * his_points - 14 * hand_points(hand, b % 5)


@hot
def doubled_tricks_x100(hand: np.uint64, b: int, kv: np.ndarray) -> int:
    """100 times the tricks the heuristic expects to take in its own contract ``b`` once
    the opponent doubled it: the same fit as ``declarer_tricks_x100``, the doubler holding
    at least the points the heuristic's double needs."""
    need = 6 + b // 5
    his_bid_points = 4 * need - kv[K_TRICK_BASE]
    doubler = (595 + 20 * his_bid_points - 100 * (need - kv[K_DOUBLE_MARGIN]) + 13) // 14
    return 595 + 20 * hand_points(hand, b % 5) - 14 * doubler


@hot
def best_bid(hand: np.uint64, current: int, kv: np.ndarray) -> int:
    """The bid the heuristic would make over ``current`` (-1: none): in each strain the
    highest level it may bid up to the level it expects to make (else nothing), valued by
    that contract's score; the best value wins (ties: the higher bid). Returns a bid
    ``b`` or -1."""
    best = -1
    best_value = -1
    for strain in range(5):
        target = min(7, expected_tricks(hand, strain, kv) - 6)
        lo = cheapest_level(current, strain)
        for level in range(target, lo - 1, -1):
            b = level * 5 + strain
            if may_bid(hand, current, b, kv):
                v = kv[K_VALUE + CLASS_OF_BID[b]]
                if v > best_value or (v == best_value and b > best):
                    best_value = v
                    best = b
                break
    return best


@hot
def heuristic_call(state: np.ndarray, kv: np.ndarray) -> int:
    p = state[S_TO_MOVE]
    hand = hand_of(state, p)
    cur = state[S_BID]
    if cur >= 0 and state[S_BIDDER] == p and state[S_DOUBLED] == 1:  # I am doubled
        need = 6 + cur // 5
        mine = doubled_tricks_x100(hand, cur, kv)
        if mine >= 100 * need - 50:
            return REDOUBLE
        if mine >= 100 * need - 100:
            return PASS
        b = best_bid(hand, cur, kv)
        return BID + b if b >= 0 else PASS
    b = best_bid(hand, cur, kv)
    if cur >= 0 and state[S_BIDDER] != p:  # the opponent's bid
        if state[S_DOUBLED] == 0 and state[S_PASSES] == 0:
            need = 6 + cur // 5
            if declarer_tricks_x100(hand, cur, kv) + 100 * kv[K_DOUBLE_MARGIN] <= 100 * need:
                return DOUBLE
        return BID + b if b >= 0 else PASS
    if cur >= 0:  # my own bid, the opponent passed: raise only to a better contract
        if b >= 0 and kv[K_VALUE + CLASS_OF_BID[b]] > kv[K_VALUE + CLASS_OF_BID[cur]]:
            return BID + b
        return PASS
    return BID + b if b >= 0 else PASS


# --- the heuristic: card play ------------------------------------------------------------------
@hot
def unseen_by(state: np.ndarray, p: int) -> np.uint64:
    """Cards seat ``p`` has not seen: not in its hand or its discard, not played, not the
    up-card."""
    return ALL_CARDS & ~hand_of(state, p) & ~np.uint64(state[S_DISC + p]) \
        & ~np.uint64(state[S_GONE]) & ~bit(state[S_UPCARD])


@hot
def beaten_in_suit(c: int, cards: np.uint64) -> bool:
    """Does ``cards`` hold a higher card of ``c``'s suit?"""
    m = cards & SUIT_MASK[SUIT_OF[c]]
    while m != EMPTY:
        x = lowest(m)
        m &= m - ONE
        if RANK_OF[x] > RANK_OF[c]:
            return True
    return False


@hot
def top_of(m: np.uint64) -> int:
    """Highest rank card of the suited cards ``m`` (-1 if none)."""
    best = NO_CARD
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if c < N_SUITED and (best < 0 or RANK_OF[c] > RANK_OF[best]):
            best = c
    return best


@hot
def bottom_of(m: np.uint64) -> int:
    best = NO_CARD
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if c < N_SUITED and (best < 0 or RANK_OF[c] < RANK_OF[best]):
            best = c
    return best


@hot
def heuristic_lead(state: np.ndarray, legal: np.uint64) -> int:
    p = state[S_TO_MOVE]
    trump = state[S_TRUMP]
    possible = unseen_by(state, p) & ~np.uint64(state[S_EXCL + 1 - p])  # the opponent may hold
    opp_trumps = possible & SUIT_MASK[trump] if trump >= 0 else EMPTY
    if trump >= 0 and opp_trumps != EMPTY:  # draw trumps
        mine = legal & SUIT_MASK[trump]
        if mine != EMPTY:
            top = top_of(mine)
            if not beaten_in_suit(top, possible):
                return top
            if state[S_DECLARER] == p and count(mine) >= 4:
                return bottom_of(mine)
    best = NO_CARD  # cash a master side card
    for s in range(4):
        if s == trump:
            continue
        top = top_of(legal & SUIT_MASK[s])
        if top >= 0 and not beaten_in_suit(top, possible) and \
                (opp_trumps == EMPTY or possible & SUIT_MASK[s] != EMPTY):
            if best < 0 or RANK_OF[top] > RANK_OF[best]:
                best = top
    if best >= 0:
        return best
    if trump >= 0 and top_of(legal & SUIT_MASK[trump]) >= 0 and opp_trumps == EMPTY:
        return top_of(legal & SUIT_MASK[trump])  # trumps are all winners now
    for g in (G_ACE, G_FACE, G_LOW):  # a Colon nobody can beat (seed §7.1)
        col = COLON_OF_GROUP[g]
        if legal & bit(col) != EMPTY and possible & GROUP_MASK[g] == EMPTY and opp_trumps == EMPTY:
            return col
    longest = -1
    n_long = 0
    for s in range(4):
        if s != trump:
            n = count(legal & SUIT_MASK[s])
            if n > n_long:
                n_long = n
                longest = s
    if longest >= 0:
        return bottom_of(legal & SUIT_MASK[longest])
    if legal & ~COLONS != EMPTY:
        return bottom_of(legal & ~COLONS)
    for col in (PETIT_COLON, COLON_ROYAL, GRAND_COLON):
        if legal & bit(col) != EMPTY:
            return col
    return lowest(legal)


@hot
def throw_value(c: int, state: np.ndarray, possible: np.uint64) -> int:
    """What a losing reply throws away: a Petit or Royal Colon is nearly worthless (and the
    matching one bans the leader's suit); the Grand Colon is worth keeping while it may
    still win a lead; a suit card is worth its rank, more if it is master, more if trump."""
    if c == PETIT_COLON:
        return 0
    if c == COLON_ROYAL:
        return 1
    if c == GRAND_COLON:
        return 2 if possible & GROUP_MASK[G_ACE] != EMPTY else 16
    v = 2 + RANK_OF[c]
    if not beaten_in_suit(c, possible):
        v += 10
    if SUIT_OF[c] == state[S_TRUMP]:
        v += 20
    return v


@hot
def heuristic_follow(state: np.ndarray, legal: np.uint64) -> int:
    """Win with the cheapest winning card (a card of the led suit before a trump, the lowest
    rank first); else throw the card of least ``throw_value``."""
    p = state[S_TO_MOVE]
    led = state[S_LED]
    trump = state[S_TRUMP]
    best = NO_CARD
    best_cost = 1 << 30
    m = legal
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if follower_wins(led, c, trump):
            cost = RANK_OF[c] + (13 if SUIT_OF[c] == trump else 0)
            if cost < best_cost:
                best_cost = cost
                best = c
    if best >= 0:
        return best
    possible = unseen_by(state, p)
    m = legal
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        cost = throw_value(c, state, possible)
        if cost < best_cost:
            best_cost = cost
            best = c
    return best


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray) -> int:
    """The heuristic player's move for the seat to move."""
    ph = state[S_PHASE]
    if ph == P_PLAY:
        legal = legal_cards(state)
        if state[S_LED] < 0:
            return heuristic_lead(state, legal)
        return heuristic_follow(state, legal)
    if ph == P_DISCARD:
        return heuristic_discard(hand_of(state, state[S_TO_MOVE]))
    return heuristic_call(state, kv)


@hot
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, moves: np.ndarray
                ) -> tuple[np.uint64, int]:
    """Uniform over the legal moves (discards, calls, cards)."""
    n = legal_moves(state, kv, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray) -> None:
    """Heuristic players for both seats until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv), kv)


# --- what a seat sees, and worlds consistent with it ----------------------------------------------
@hot
def seat_information(state: np.ndarray, seat: int) -> np.uint64:
    """The cards hidden from ``seat`` (a mask): all but its hand, its discard, the cards
    played and the up-card. They lie in three hidden places: the opponent's hand, the
    opponent's discard and the rest of the stock (the draws are face down: only their
    size, set by the public up-card, is known). The seat also knows the opponent's voids
    and, after a banned lead, that his hand held that suit only (``S_EXCL``), and the
    fewest cards per suit his bids showed (``S_MIN``)."""
    return unseen_by(state, seat)


MAX_TRIES = 64  # worlds drawn per accepted one at most, for the bids' suit lengths


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with the cards hidden from ``seat`` dealt again: the opponent's
    hand (none of the cards he is known not to hold), his discard and the rest of the stock
    get as many cards as they hold. The suit lengths the opponent's bids showed are met by
    rejection (``MAX_TRIES`` draws, then the last draw is kept). Reads only what the seat
    knows; the seat's own cards never move."""
    cards, allowed, owner, capacity, slot_excl, slot_cards, sample_work = \
        work[3], work[4], work[5], work[6], work[9], work[10], work[11]
    opp = 1 - seat
    for i in range(N_STATE):
        world[i] = state[i]
    slot_excl[0] = np.uint64(state[S_EXCL + opp])
    slot_excl[1] = EMPTY
    slot_excl[2] = EMPTY
    capacity[0] = count(hand_of(state, opp))  # hand sizes and draw sizes are public
    capacity[1] = count(np.uint64(state[S_DISC + opp]))
    capacity[2] = count(hidden) - capacity[0] - capacity[1]
    played = np.uint64(state[S_PLAYED + opp])
    for _ in range(MAX_TRIES):
        st, ok = sample_places(st, hidden, 3, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
        if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
            slot_excl[0] = EMPTY
            continue
        fits = True
        for s in range(4):
            if count((slot_cards[0] | played) & SUIT_MASK[s]) < state[S_MIN + 4 * opp + s]:
                fits = False
        if fits:
            break
    world[S_HAND + opp] = np.int64(slot_cards[0])
    world[S_DISC + opp] = np.int64(slot_cards[1])
    world[S_DRAWN + opp] = 0  # unknown to the seat, and no decision reads it
    return st


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, world: np.ndarray,
                work: tuple) -> np.uint64:
    """One world for ``seat`` (see ``sample_world``)."""
    return sample_world(state, seat, seat_information(state, seat), st, world, work)


# --- the search player ----------------------------------------------------------------------------
SEARCH_SLOTS = 3
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(2, dtype=np.uint64),
            np.zeros(2, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64))


@hot
def search_candidates(state: np.ndarray, kv: np.ndarray, moves: np.ndarray) -> int:
    """The legal moves the search compares: every card; in the auction, pass, double,
    redouble and per strain the cheapest legal bid and the next level."""
    n = legal_moves(state, kv, moves)
    if state[S_PHASE] != P_AUCTION:
        return n
    cur = state[S_BID]
    k = 0
    for i in range(n):
        m = moves[i]
        if m >= BID:
            b = m - BID
            if b // 5 > cheapest_level(cur, b % 5) + 1:
                continue
        moves[k] = m
        k += 1
    return k


@hot
def search_values(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                  world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the candidate moves and ``work[1]`` with each one's summed
    score difference for the seat to move (its score minus the opponent's) over the worlds
    and playouts; returns the number of moves. One move: nothing is searched."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    n = search_candidates(state, kv, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat)
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):  # heuristic playouts are deterministic
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv)
                playout(sim, kv)
                s0, s1 = seat_scores(sim, kv)
                totals[m] += s0 - s1 if seat == 0 else s1 - s0
    return n


N_DISCARD_PLANS = 6  # the heuristic's discard, and one favouring each strain


@hot
def plan_favour(v: int) -> int:
    """Discard plan ``v``: 0 the heuristic's; 1..4 keep the suit of strain ♣ ♦ ♥ ♠; 5 keep
    one card of every suit (Sans-Atout)."""
    if v == 0:
        return -1
    if v == N_DISCARD_PLANS - 1:
        return SA
    return STRAIN_SUIT[v - 1]


@hot
def search_discard(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                   world: np.ndarray, work: tuple) -> int:
    """The search player's next discard: in each world, each discard plan completes the
    seat's discard and heuristic players finish the deal; the card the best plan throws
    first is played (the next discard is searched again)."""
    totals, sim = work[1], work[2]
    seat = state[S_TO_MOVE]
    for v in range(N_DISCARD_PLANS):
        totals[v] = 0
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat)
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for v in range(N_DISCARD_PLANS):
            for i in range(N_STATE):
                sim[i] = world[i]
            favour = plan_favour(v)
            while sim[S_PHASE] == P_DISCARD and sim[S_TO_MOVE] == seat:
                apply_move(sim, discard_with(hand_of(sim, seat), favour), kv)
            playout(sim, kv)
            s0, s1 = seat_scores(sim, kv)
            totals[v] += s0 - s1 if seat == 0 else s1 - s0
    best = search.best_move(totals, N_DISCARD_PLANS)
    return discard_with(hand_of(state, seat), plan_favour(best))


@hot
def search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                world: np.ndarray, work: tuple) -> int:
    """The search player's move for the seat to move (see the module docstring)."""
    if state[S_PHASE] == P_DISCARD:
        return search_discard(state, kv, seed, index, sub, world, work)
    n = search_values(state, kv, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]

