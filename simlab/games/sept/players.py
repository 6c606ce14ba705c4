"""Sept players: the heuristic policy, the random policy, what a seat sees, the worlds
consistent with it, and the search player (``--policy search``).

Rules are in ``rules.py``; every policy chooses among ``rules.legal_moves`` and the kernels
play the choice with ``rules.apply_move``, so the heuristic run, the search's playouts and
the real deal follow one code path.

What a seat sees: its own hand, every card played (tricks are won face down, but each
player may remember them: catalogue ambiguity 6, bots have perfect memory), the size of
the opponent's hand and of the stock. Hidden: the opponent's hand and the stock's order.
No rule of play reveals the absence of a card (the follower may answer with anything and
the leader may always stop), so every split of the hidden cards between the opponent's
hand and the stock is possible, and a uniform shuffle of them is an exact world sampler:
``search.sample_owners``' constraint machinery has nothing to do here.

The search player (determinized Monte Carlo, see ``simlab/mechanics/search.py``) decides every move
(lead, answer, stop or continue) with more than one choice: it samples
``search_worlds`` worlds, plays each legal move out to the end of the deal with heuristic
players on ``search_rollouts`` stock orders per world, and keeps the move with the best
summed value: its marks minus the opponent's, in units of (deal total + 1) points, plus
its points minus the opponent's (the marks decide; the points break ties among moves
that win or lose the same deals).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.sept.rules import (
    ALL_CARDS,
    COUNTING_MASK,
    K_CAPTURE_MIN,
    K_CAUTION_MILLI,
    K_CONTINUE_MIN,
    K_LAST_BONUS,
    K_ROLLOUTS,
    K_STOCK_WILD_MIN,
    K_TAKE_POINTLESS,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    P_DECIDE,
    P_DONE,
    P_LEAD,
    RANK_MASK,
    S_DECK,
    S_GONE,
    S_HAND,
    S_HOLDER,
    S_LEADER,
    S_PHASE,
    S_PLY,
    S_PTS,
    S_STOCK_POS,
    S_TABLE,
    S_TABLE_PTS,
    S_TO_MOVE,
    STOP,
    apply_move,
    deal_result,
    deal_total,
    hand_of,
    legal_moves,
    matching,
    rank_of,
    stock_left,
    wild_mask,
)
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, lowest

BIG = 1 << 40


# --- the heuristic player ----------------------------------------------------------------
@hot
def unseen_by(state: np.ndarray, seat: int) -> np.uint64:
    """Cards ``seat`` has not seen: neither in its hand, nor played (won or on the table)."""
    return ALL_CARDS & ~hand_of(state, seat) & ~np.uint64(state[S_GONE]) \
        & ~np.uint64(state[S_TABLE])


@hot
def takers(c: int, unseen: np.uint64, wilds: np.uint64) -> int:
    """Unseen cards that would take a trick led with ``c``: its rank and the wild cards."""
    return count(unseen & (RANK_MASK[rank_of(c)] | wilds))


@hot
def lead_card(hand: np.uint64, unseen: np.uint64, kv: np.ndarray) -> int:
    """The card to open a trick, by preference (catalogue "Heuristic policy", Lead):

    1. a 10 or an Ace the hand can defend (it holds another of its rank, or a 7), so the
       opponent's capture can be taken back;
    2. a worthless card (7s excepted) of a rank the hand holds twice or more;
    3. any other worthless card;
    4. an undefended 10 or Ace;
    5. a 7 (wasted as a lead: only 7s can then take the trick).

    Within a class, the card fewest unseen cards could take (card counting), then the
    lowest id."""
    wilds = wild_mask(kv)
    has_wild = hand & wilds != EMPTY
    best = -1
    best_score = BIG
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        same = count(hand & RANK_MASK[rank_of(c)])
        if bit(c) & wilds != EMPTY:
            cls = 5
        elif bit(c) & COUNTING_MASK != EMPTY:
            cls = 1 if same >= 2 or has_wild else 4
        else:
            cls = 2 if same >= 2 else 3
        score = cls * 100 + takers(c, unseen, wilds)
        if score < best_score:
            best_score = score
            best = c
    return best


@hot
def capture_card(match: np.uint64, wilds: np.uint64) -> int:
    """The card to take a trick with: a target-rank card (a worthless one first) rather
    than a 7, which takes any trick and is kept for later."""
    plain = match & ~wilds
    if plain & ~COUNTING_MASK != EMPTY:
        return lowest(plain & ~COUNTING_MASK)
    if plain != EMPTY:
        return lowest(plain)
    return lowest(match)


@hot
def throw_card(throw: np.uint64, hand: np.uint64, unseen: np.uint64, wilds: np.uint64) -> int:
    """The worthless card to give away: the one least useful as a later lead, a single of
    its rank first, then the one most unseen cards could take."""
    best = -1
    best_score = -1
    m = throw
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        single = count(hand & RANK_MASK[rank_of(c)]) == 1
        score = (100 if single else 0) + takers(c, unseen, wilds)
        if score > best_score:
            best_score = score
            best = c
    return best


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray) -> int:
    """The heuristic player's move (catalogue "Heuristic policy"):

    * lead: ``lead_card``;
    * answer: take the trick (``capture_card``) when it holds at least ``capture_min``
      points (with the last-trick bonus when this answer ends the deal); otherwise give
      away a worthless card (``throw_card``); with none, take the trick if able rather
      than give points, else give the cheapest 10 or Ace;
    * after an answer: stop when the trick is still the leader's; when the follower took
      it, take it back if able (``capture_card``) — always with a target-rank card; with
      a 7 while the stock lasts when the trick holds at least ``stock_wild_min`` points
      (0 by default: always; stopping a pointless trick loses, issue 32); once the stock
      is out, with a 7 only when the trick holds at least ``continue_min`` points or the
      follower, whose hand is then known, holds no card to take it again (measured in
      duplicate play against the variants: always taking it back, or by points alone,
      both lose)."""
    p = state[S_TO_MOVE]
    h = hand_of(state, p)
    wilds = wild_mask(kv)
    ph = state[S_PHASE]
    if ph == P_LEAD:
        return lead_card(h, unseen_by(state, p), kv)
    match = h & matching(state, kv)
    if ph == P_DECIDE:
        if match == EMPTY:
            return STOP
        if state[S_HOLDER] == state[S_LEADER]:
            return STOP
        if match & ~wilds != EMPTY:
            return capture_card(match, wilds)
        if stock_left(state) > 0:
            # 0 (always) by default: stopping a pointless trick loses (issue 32)
            if state[S_TABLE_PTS] >= kv[K_STOCK_WILD_MIN]:
                return capture_card(match, wilds)
            return STOP
        if state[S_TABLE_PTS] >= kv[K_CONTINUE_MIN]:
            return capture_card(match, wilds)
        # the stock is out, so the unseen cards are the follower's hand
        if unseen_by(state, p) & matching(state, kv) != EMPTY:
            return STOP
        return capture_card(match, wilds)
    ends_deal = stock_left(state) == 0 and count(h) == 1
    stakes = state[S_TABLE_PTS] + (kv[K_LAST_BONUS] if ends_deal else 0)
    if match != EMPTY and stakes >= kv[K_CAPTURE_MIN]:
        return capture_card(match, wilds)
    cheap = match & ~wilds & ~COUNTING_MASK
    if cheap != EMPTY and kv[K_TAKE_POINTLESS]:
        return lowest(cheap)
    throw = h & ~match & ~COUNTING_MASK
    if throw != EMPTY:
        return throw_card(throw, h, unseen_by(state, p), wilds)
    if match != EMPTY:
        return capture_card(match, wilds)
    return lowest(h)


@hot
def playout(sim: np.ndarray, kv: np.ndarray) -> None:
    """Heuristic players for both seats until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv), kv)


@hot
def random_move(state: np.ndarray, kv: np.ndarray, st: np.uint64, moves: np.ndarray
                ) -> tuple[np.uint64, int]:
    """A uniformly random legal move (``STOP`` is one move among the cards)."""
    n = legal_moves(state, kv, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


# --- what a seat sees, and worlds consistent with it ---------------------------------------
@hot
def seat_hidden(state: np.ndarray, seat: int) -> np.uint64:
    """The cards hidden from ``seat``: the opponent's hand and the stock (``unseen_by``).
    Reads only the seat's hand and public facts."""
    return unseen_by(state, seat)


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, cards: np.ndarray) -> np.uint64:
    """``world`` = ``state`` with the ``hidden`` cards dealt again at random: the
    opponent's hand (its public size) and the stock (in a random order). The cards are
    listed in ascending id before the shuffle, so the world depends only on what the seat
    sees and the stream. The seat's own hand is never moved; the pack's dealt part, which
    no rule reads again, is blanked."""
    for i in range(N_STATE):
        world[i] = state[i]
    n = 0
    m = hidden
    while m != EMPTY:
        cards[n] = lowest(m)
        m &= m - ONE
        n += 1
    st = rng.shuffle(st, cards, n)
    opp = 1 - seat
    k = count(hand_of(state, opp))
    h = EMPTY
    for j in range(k):
        h |= bit(cards[j])
    world[S_HAND + opp] = np.int64(h)
    pos = state[S_STOCK_POS]
    for i in range(pos):
        world[S_DECK + i] = -1
    for j in range(n - k):
        world[S_DECK + pos + j] = cards[k + j]
    return st


@hot
def shuffle_stock(st: np.uint64, world: np.ndarray) -> np.uint64:
    """Another order of ``world``'s stock (a further rollout of the same world)."""
    pos = world[S_STOCK_POS]
    return rng.shuffle(st, world[S_DECK + pos:S_DECK + N_CARDS], N_CARDS - pos)


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, world: np.ndarray,
                cards: np.ndarray) -> np.uint64:
    """``seat_hidden`` then ``sample_world``: one world for ``seat``."""
    return sample_world(state, seat, seat_hidden(state, seat), st, world, cards)


# --- the search player ------------------------------------------------------------------------
@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel): moves,
    summed values, summed squared gains over the heuristic's move, scores, the playout
    state, the hidden cards."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.float64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64))


@hot
def outcome_value(sim: np.ndarray, kv: np.ndarray, seat: int, weight: int) -> int:
    """The value of a finished deal for ``seat``: marks margin x ``weight`` + points
    margin."""
    w, o, mark0, mark1 = deal_result(sim, kv)
    marks = mark0 - mark1 if seat == 0 else mark1 - mark0
    return marks * weight + sim[S_PTS + seat] - sim[S_PTS + 1 - seat]


@hot
def search_values(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                  world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal moves, the heuristic's first, ``work[1]`` with each
    one's summed value for the seat to move over the worlds and rollouts and ``work[2]``
    with its summed squared gain over the heuristic's move (the same world and stock
    order: paired); returns the number of moves. One move: nothing is searched."""
    moves, totals, squares, scores, sim, cards, value = work
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, moves)
    for m in range(n):
        totals[m] = 0
        squares[m] = 0
    if n <= 1:
        return n
    h = heuristic_move(state, kv)
    for m in range(n):
        if moves[m] == h:
            moves[m] = moves[0]
            moves[0] = h
            break
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_hidden(state, seat)
    weight = deal_total(kv) + 1
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, cards)
        for r in range(kv[K_ROLLOUTS]):
            if r > 0:
                st = shuffle_stock(st, world)
            for m in range(n):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv)
                playout(sim, kv)
                value[m] = outcome_value(sim, kv, seat, weight)
            for m in range(n):
                totals[m] += value[m]
                squares[m] += (value[m] - value[0]) * (value[m] - value[0])
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                world: np.ndarray, work: tuple) -> int:
    """The search player's move for the seat to move (see the module docstring): another
    move replaces the heuristic's only when its mean gain over it, less
    ``search_caution`` standard errors of that gain, is positive (with few worlds a small
    gain is more often the sample's luck than a better move)."""
    n = search_values(state, kv, seed, index, sub, world, work)
    moves, totals, squares, scores = work[0], work[1], work[2], work[3]
    if n <= 1:
        return moves[0]
    samples = kv[K_WORLDS] * kv[K_ROLLOUTS]
    caution = kv[K_CAUTION_MILLI] / 1000.0
    scores[0] = 0.0
    for m in range(1, n):
        gain = (totals[m] - totals[0]) / samples
        var = 0.0
        if samples > 1:
            var = max(squares[m] / samples - gain * gain, 0.0) * samples / (samples - 1)
        scores[m] = gain - caution * np.sqrt(var / samples)
    return moves[search.best_move(scores, n)]
