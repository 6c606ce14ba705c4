"""Bernicle players: the heuristic (bids, trump, discards, card play), the random player,
what a seat sees, the worlds consistent with it, and the search player
(``--policy search``). Every policy chooses among ``rules.legal_moves`` and the kernels
apply the choice with ``rules.apply_move``: one code path for the real deal, the
heuristic and the search's playouts.

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) decides every move:
bids, trump, discards and cards. At a decision with more than one legal move it samples
deals of the cards hidden from its seat (the other hands, the other players' discards,
the chien and chiots not yet taken) consistent with what the seat knows — its hand and
its own discards (the taker saw the chien), every card played and the voids and absences
the obligations of play reveal, and the cards each player showed in his melds (pinned to
his hand) — and plays each candidate out with heuristic players.
- Trump and cards: ``search_worlds`` worlds, the move with the best summed margin (2 x
  its score minus the other two's).
- Bids and discards (``bid_or_discard``): ``search_bid_worlds`` worlds, and another move
  than the heuristic's only when its paired mean gain is ``search_bid_z`` standard
  errors above zero (at a discard the candidates are the heuristic's card and the next
  three cheapest to keep). A plain best-mean search over bids measured worse than the
  heuristic (-11.7 points per deal [-20.9, -2.4], 300 deals): a bid swings the deal by
  hundreds of points and 8 worlds cannot tell the moves apart. Measured with the
  conservative rule (300 deals, seed 3, duplicate, search at every seat against search
  keeping the heuristic's bids and discards): +3.96 [-1.57, +9.49] points per deal, not
  clear. The worlds do not use what the bids heard reveal about the hands.
Simplification: a world keeps the declared meld points; it does not check that its
hidden cards would not have made more melds.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch
from simlab.games.bernicle.rules import (
    ALL_CARDS,
    BID_LOW,
    GAME_ORDER,
    K_BID_WORLDS,
    K_BID_Z,
    K_CHIEN_GAIN,
    K_MARGIN,
    K_PETITE_DISCARDS,
    K_ROLLOUTS,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_SEATS,
    N_STATE,
    P_BID,
    P_DISCARD,
    P_DONE,
    P_PLAY,
    P_TRUMP,
    PASS,
    POINTS,
    RA,
    RJ,
    RQ,
    S_CHIEN,
    S_CHIOT,
    S_DISC,
    S_GONE,
    S_HAND,
    S_HIST,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_SHOWN,
    S_TAKER,
    S_TO_MOVE,
    S_TRICK,
    S_TRICKS,
    S_TRUMP,
    S_WIN,
    S_WIN_SEAT,
    TEAM_OF,
    TRUMP,
    apply_move,
    bid_value,
    hand_of,
    legal_cards_now,
    legal_moves,
    melds,
    niche_points,
    state_scores,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import play_exclusions, sample_places
from simlab.mechanics.tricks import EMPTY, ONE, best_in, bit, count, follow_heuristic, is_master, lowest


# --- the heuristic player ---------------------------------------------------------------------
@batch
def trick_estimate(hand: np.uint64, trump: int) -> int:
    """Trick points a hand may expect with ``trump``: 12 per trump, 5 more per trump 10
    or Ace, 10 per side Ace (a rough count: there are 200 card points in 13 tricks)."""
    v = 0
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        r = (c % 12) // 2
        if c // 12 == trump:
            v += 12 + (5 if GAME_ORDER[r] >= 4 else 0)
        elif r == RA:
            v += 10
    return v


@batch
def hand_value(hand: np.uint64, trump: int, kv: np.ndarray) -> int:
    """What the hand should make as taker with ``trump``: its melds, the chien's expected
    gain, and its trick estimate."""
    pts, _ = melds(hand, trump, kv)
    return pts + kv[K_CHIEN_GAIN] + trick_estimate(hand, trump)


@batch
def best_trump(hand: np.uint64, kv: np.ndarray) -> tuple[int, int]:
    """(value, suit) of the best trump for ``hand`` (ties: the first suit)."""
    best = -1
    suit = 0
    for s in range(4):
        v = hand_value(hand, s, kv)
        if v > best:
            best = v
            suit = s
    return best, suit


@batch
def heuristic_bid(state: np.ndarray, kv: np.ndarray) -> int:
    """Bid the smallest allowed step while it stays within the hand's value minus
    ``bid_margin``; else pass."""
    value, _ = best_trump(hand_of(state, state[S_TO_MOVE]), kv)
    if bid_value(state, BID_LOW, kv) <= value - kv[K_MARGIN]:
        return BID_LOW
    return PASS


@batch
def keep_value(hand: np.uint64, c: int, trump: int, base_melds: int, kv: np.ndarray) -> int:
    """How much keeping ``c`` is worth (lower: discard first): the melds it holds, its
    points, trump length, rank; a short side suit is worth emptying (a void ruffs)."""
    without, _ = melds(hand & ~bit(c), trump, kv)
    v = 2 * (base_melds - without) + 2 * POINTS[c] + 3 * GAME_ORDER[(c % 12) // 2]
    s = c // 12
    if s == trump:
        v += 40
    else:
        n_suit = 0
        for d in range(s * 12, s * 12 + 12):
            n_suit += (hand >> np.uint64(d)) & ONE
        if n_suit <= 2:
            v -= 8
    return v


@batch
def heuristic_discard(state: np.ndarray, kv: np.ndarray) -> int:
    """The taker keeps melds and trumps and sheds low side cards, avoiding discards that
    build niche combinations (they score for the defence). A defender does the same but,
    with ``petite_discards``, puts a J and a Q of different suits in the niche when he can
    (a petite Bernicle: 100 to each defender; catalogue ambiguity 7)."""
    p = state[S_TO_MOVE]
    hand = hand_of(state, p)
    trump = state[S_TRUMP]
    mine = np.uint64(state[S_DISC + p])
    base, _ = melds(hand, trump, kv)
    niche_now, _ = niche_points(mine, kv)
    is_taker = p == state[S_TAKER]
    best = -1
    best_v = 1 << 40
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        v = keep_value(hand, c, trump, base, kv)
        gain, _ = niche_points(mine | bit(c), kv)
        gain -= niche_now
        if is_taker:
            v += gain
        elif kv[K_PETITE_DISCARDS] and c // 12 != trump:
            r = (c % 12) // 2
            if gain > 0:
                v -= gain
            elif r == RJ or r == RQ:  # a partner of another suit left to discard next?
                other = RQ if r == RJ else RJ
                for s in range(4):
                    if s != c // 12 and s != trump:
                        for cp in range(2):
                            d = s * 12 + other * 2 + cp
                            if (hand >> np.uint64(d)) & ONE:
                                v -= 60
                                break
        if v < best_v:
            best_v = v
            best = c
    return best


@batch
def lead_card(state: np.ndarray, hand: np.uint64, tb: tuple) -> int:
    """The taker draws trumps with a master trump while trumps are out; everybody cashes a
    master side card (richest first); otherwise the cheapest card."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    t = state[S_TRUMP] + 1
    trump = state[S_TRUMP]
    unseen = ALL_CARDS & ~np.uint64(state[S_GONE]) & ~hand
    trumps = suit_mask[trump]
    if state[S_TO_MOVE] == state[S_TAKER] and unseen & trumps != EMPTY:
        best = -1
        m = hand & trumps
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if is_master(c, unseen, above[t]) and (best < 0 or strength[t][c] > strength[t][best]):
                best = c
        if best >= 0:
            return best
    masters = EMPTY
    m = hand & ~trumps
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if is_master(c, unseen, above[t]):
            masters |= bit(c)
    if masters != EMPTY:
        return best_in(masters, rich[t])
    return best_in(hand, cheap[t])


@batch
def heuristic_card(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """Lead: ``lead_card``. Later: a defender whose co-defender is winning after the
    taker has played loads points (the defence's pool is shared), and sheds his cheapest
    card while the taker is still to play; otherwise win as cheaply as possible when the
    trick holds points (or it is the last card), else shed the cheapest. A defender
    without a trick yet always tries to win one ("no trick, no score")."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    p = state[S_TO_MOVE]
    hand = hand_of(state, p)
    if state[S_N_TABLE] == 0:
        return lead_card(state, hand, tb)
    legal = legal_cards_now(state, rules, tb)
    t = state[S_TRUMP] + 1
    taker = state[S_TAKER]
    ws = state[S_WIN_SEAT]
    co_wins = p != taker and ws != taker and state[S_TRICKS + p] > 0
    last = state[S_N_TABLE] == N_SEATS - 1
    if co_wins and not last:
        return best_in(legal, cheap[t])
    return follow_heuristic(legal, state[S_WIN], co_wins, last, state[S_ON_TABLE],
                            state[S_TRUMP], suit_of, suit_mask, excuse_mask, above[t],
                            points[t], cheap[t], rich[t], win_rank[t], 5)


@batch
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    ph = state[S_PHASE]
    if ph == P_PLAY:
        return heuristic_card(state, kv, rules, tb)
    if ph == P_DISCARD:
        return heuristic_discard(state, kv)
    if ph == P_TRUMP:
        _, s = best_trump(hand_of(state, state[S_TO_MOVE]), kv)
        return TRUMP + s
    return heuristic_bid(state, kv)


@batch
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves."""
    n = legal_moves(state, kv, rules, tb, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@batch
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players at every seat until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, rules, tb), kv, tb)


# --- what a seat sees, and worlds consistent with it ---------------------------------------
# Hidden places, in a fixed order: the two other hands, the two other players' discards,
# the chien, the two chiots (a place is used only while it holds cards).
N_PLACES = 7


@batch
def place_slot(p: int, seat: int) -> int:
    """The state slot of hidden place ``p`` from ``seat``'s point of view."""
    if p < 2:
        return S_HAND + (seat + 1 + p) % N_SEATS
    if p < 4:
        return S_DISC + (seat + 1 + p - 2) % N_SEATS
    if p == 4:
        return S_CHIEN
    return S_CHIOT + p - 5


@batch
def seat_information(state: np.ndarray, seat: int, rules: np.ndarray, tb: tuple,
                     excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask): not in its hand, not its own discards,
    not played. Fills ``excluded[q]`` with cards seat q certainly does not hold (what its
    plays reveal) and ``played_by[q]``. Reads only the seat's own cards and public facts
    (cards played, the taker, trump, the cards shown in melds)."""
    for q in range(N_SEATS):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    known = hand_of(state, seat) | np.uint64(state[S_DISC + seat]) | np.uint64(state[S_GONE])
    if state[S_PHASE] == P_PLAY or state[S_PHASE] == P_DONE:
        n_plays = state[S_TRICK] * N_SEATS + state[S_N_TABLE]
        play_exclusions(state[S_HIST:S_HIST + 39], n_plays, state[S_TAKER], state[S_TRUMP],
                        N_CARDS, rules, tb, TEAM_OF, excluded, played_by)
    return ALL_CARDS & ~known


@batch
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with every hidden card dealt again to the hidden places
    (same sizes), respecting ``work[7]`` (exclusions) and the cards each other player
    showed (pinned to his hand)."""
    moves, totals, sim, cards, allowed, owner, capacity, excluded, played_by, slot_excl, \
        slot_cards, sample_work, place_of = work
    for i in range(N_STATE):
        world[i] = state[i]
    gone = np.uint64(state[S_GONE])
    n = 0
    for p in range(N_PLACES):
        k = place_slot(p, seat)
        size = count(np.uint64(state[k]))
        if size == 0:
            continue
        place_of[n] = k
        capacity[n] = size
        slot_excl[n] = EMPTY
        n += 1
    for j in range(n):
        for q in range(N_SEATS):
            if q == seat:
                continue
            pinned = np.uint64(state[S_SHOWN + q]) & ~gone
            if place_of[j] == S_HAND + q:
                slot_excl[j] |= excluded[q]
            else:
                slot_excl[j] |= pinned
    st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                           sample_work, slot_cards)
    if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
        for j in range(n):
            slot_excl[j] = EMPTY
        st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
    for j in range(n):
        world[place_of[j]] = np.int64(slot_cards[j])
    return st


@batch
def build_world(state: np.ndarray, seat: int, st: np.uint64, rules: np.ndarray, tb: tuple,
                world: np.ndarray, work: tuple) -> np.uint64:
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, world, work)


SAMPLE_WORK = search.work_size(N_CARDS, N_PLACES)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(N_SEATS, dtype=np.uint64),
            np.zeros(N_SEATS, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64), np.zeros(N_PLACES, dtype=np.int64))


@batch
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal moves and ``work[1]`` with each one's summed margin
    for the seat to move over the worlds; returns the number of moves."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    scores = np.zeros(N_SEATS, dtype=np.int64)
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv, tb)
                playout(sim, kv, rules, tb)
                state_scores(sim, kv, scores)
                totals[m] += 3 * scores[seat] - scores[0] - scores[1] - scores[2]
    return n


DISCARD_CANDIDATES = 4  # the heuristic's discard and the next cheapest to keep


@batch
def bid_or_discard(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                   seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple
                   ) -> int:
    """The search player's bid or discard: the heuristic's move ``h`` and the
    alternatives (every legal bid; at a discard, the cards next cheapest to keep) are
    each played out in ``search_bid_worlds`` worlds, and an alternative replaces ``h``
    only when its paired mean gain over the worlds is ``search_bid_z`` standard errors
    above zero (the best such). One step of conservative policy improvement: these
    decisions swing a deal by hundreds of points, so a move chosen on a noisy mean loses
    (the plain search over bids measured -11.7 points per deal)."""
    moves, sim = work[0], work[2]
    seat = state[S_TO_MOVE]
    h = heuristic_move(state, kv, rules, tb)
    n = legal_moves(state, kv, rules, tb, moves)
    if n <= 1:
        return h
    cand = np.empty(n, dtype=np.int64)
    cand[0] = h
    k = 1
    if state[S_PHASE] == P_BID:
        for i in range(n):
            if moves[i] != h:
                cand[k] = moves[i]
                k += 1
    else:
        hand = hand_of(state, seat)
        trump = state[S_TRUMP]
        base, _ = melds(hand, trump, kv)
        while k < min(n, DISCARD_CANDIDATES):
            best = -1
            best_v = 1 << 40
            for i in range(n):
                c = moves[i]
                taken = False
                for j in range(k):
                    taken = taken or cand[j] == c
                if not taken:
                    v = keep_value(hand, c, trump, base, kv)
                    if v < best_v:
                        best_v = v
                        best = c
            cand[k] = best
            k += 1
    n_worlds = kv[K_BID_WORLDS]
    vals = np.zeros((n_worlds, k), dtype=np.float64)
    scores = np.zeros(N_SEATS, dtype=np.int64)
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for w in range(n_worlds):
        st = sample_world(state, seat, hidden, st, world, work)
        for j in range(k):
            for i in range(N_STATE):
                sim[i] = world[i]
            apply_move(sim, cand[j], kv, tb)
            playout(sim, kv, rules, tb)
            state_scores(sim, kv, scores)
            vals[w, j] = 3 * scores[seat] - scores[0] - scores[1] - scores[2]
    z = kv[K_BID_Z] / 100.0
    choice = h
    best_gain = 0.0
    for j in range(1, k):
        mean = 0.0
        for w in range(n_worlds):
            mean += vals[w, j] - vals[w, 0]
        mean /= n_worlds
        var = 0.0
        for w in range(n_worlds):
            d = vals[w, j] - vals[w, 0] - mean
            var += d * d
        se = np.sqrt(var / (n_worlds - 1) / n_worlds)
        if mean > z * se and mean > best_gain:
            best_gain = mean
            choice = cand[j]
    return choice


@batch
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The search player's move (see the module docstring): trump and cards by the best
    mean over the worlds; bids and discards by ``bid_or_discard``."""
    if state[S_PHASE] == P_DISCARD or state[S_PHASE] == P_BID:
        return bid_or_discard(state, kv, rules, tb, seed, index, sub, world, work)
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]


