"""Belote Noisette players: the heuristic policy (taking and card play), the random
policy, what a seat sees, the worlds consistent with it, and the search player
(``--policy search``).

Rules are in ``rules.py``; every policy here chooses among ``rules.legal_moves`` and the
kernels apply the choice with ``rules.apply_move``, so the heuristic run, the search's
playouts and the real deal follow one code path.

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) decides every choice:
take or pass in rounds 1 and 2, the suit in round 2 and when forced, each card, and
whether to announce the belote with it (``rules.ANNOUNCE``). At a
decision with more than one legal move it samples ``search_worlds`` deals of the cards
hidden from its seat (the other hands and, during the taking, the stock and its order),
consistent with ``seat_information``; plays each move out to the end of the deal with
heuristic players at every seat; and keeps the move with the best sum over worlds of its
own net hazelnuts this deal (times 1000) plus, to break ties between moves worth the same
hazelnuts, its card points less the best other player's. It does not look beyond the
deal (a manche's standings do not change its choice).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.belote.players import lead_heuristic
from simlab.games.belote.rules import RA, RK, RQ
from simlab.games.belote_noisette.rules import (
    ALL_CARDS,
    ANNOUNCE,
    K_BELOTE,
    K_ROLLOUTS,
    K_TAKE1,
    K_TAKE2,
    K_WIN_MIN,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_PLAYERS,
    N_STATE,
    N_SUITS,
    NAME,
    P_BID1,
    P_BID2,
    P_DONE,
    P_PLAY,
    PASS,
    S_BELOTE_CHOICE,
    S_BELOTE_SEAT,
    S_BELOTE_SHOWN,
    S_GONE,
    S_HAND,
    S_HIST,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_STOCK,
    S_STOCK_N,
    S_STOCK_POS,
    S_TAKER,
    S_TO_MOVE,
    S_TRICK,
    S_TRUMP,
    S_UP1,
    S_UP2,
    S_WIN,
    S_WIN_SEAT,
    TEAMS_BY_TAKER,
    apply_bid,
    apply_move,
    can_announce,
    hand_of,
    legal_cards_now,
    legal_moves,
    net_nuts,
    play_card,
    seat_points,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import play_exclusions as replay_exclusions
from simlab.mechanics.trickinfo import sample_places
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    best_in,
    bit,
    count,
    follow_heuristic,
    has,
    lowest,
    sure_winner,
    winners,
)

# --- the heuristic player: taking -------------------------------------------------------------
# Weights of a trump by rank (7 8 9 10 J Q K A) and of a side card: roughly the tricks and
# points a card brings when its suit is trump, or when it is not.
TRUMP_WEIGHT = np.array([2, 2, 7, 4, 9, 3, 3, 5], dtype=np.int64)
SIDE_WEIGHT = np.array([0, 0, 0, 1, 0, 0, 1, 4], dtype=np.int64)  # 10, K (with the A), A


@hot
def trump_strength(hand: np.uint64, suit: int) -> int:
    """The heuristic's strength of ``hand`` (8 cards, or fewer during the taking) with
    ``suit`` as trump: TRUMP_WEIGHT per trump (J 9, 9 7, A 5, 10 4, K and Q 3, 8 and 7 2)
    + 3 for the belote (K and Q), and per side suit 4 for the Ace, 1 for a 10 and a K
    beside the Ace."""
    s = 0
    for r in range(8):
        if has(hand, suit * 8 + r):
            s += TRUMP_WEIGHT[r]
    if has(hand, suit * 8 + RK) and has(hand, suit * 8 + RQ):
        s += 3
    for t in range(N_SUITS):
        if t == suit:
            continue
        if has(hand, t * 8 + RA):
            s += SIDE_WEIGHT[RA]
            for r in range(8):
                if r != RA and has(hand, t * 8 + r):
                    s += SIDE_WEIGHT[r]
    return s


@hot
def heuristic_bid(state: np.ndarray, kv: np.ndarray) -> int:
    """Round 1: take the upcard's suit when the hand with the upcard reaches
    ``take_threshold_1``. Round 2 (the hand with both upcards is the whole hand the taker
    plays) and forced: the stronger upcard suit, taken in round 2 when it reaches
    ``take_threshold_2``."""
    hand = hand_of(state, state[S_TO_MOVE])
    up1 = state[S_UP1]
    if state[S_PHASE] == P_BID1:
        if trump_strength(hand | bit(up1), up1 // 8) >= kv[K_TAKE1]:
            return NAME + up1 // 8
        return PASS
    full = hand | bit(up1) | bit(state[S_UP2])
    s1 = up1 // 8
    s2 = state[S_UP2] // 8
    v1 = trump_strength(full, s1)
    v2 = trump_strength(full, s2)
    best, v = (s1, v1) if v1 >= v2 else (s2, v2)
    if state[S_PHASE] == P_BID2 and v < kv[K_TAKE2]:
        return PASS
    return NAME + best


# --- the heuristic player: card play ------------------------------------------------------------
@hot
def second_card(legal: np.uint64, win: int, partner_wins: bool, on_table: int, trump: int,
                unseen: np.uint64, suit_of: np.ndarray, suit_mask: np.ndarray,
                excuse_mask: np.uint64, above: np.ndarray, points: np.ndarray,
                cheap: np.ndarray, rich: np.ndarray, win_rank: np.ndarray, win_min: int) -> int:
    """Second card of a trick (one player still to come). On the other defender's trick,
    load points only when his card is a sure winner; otherwise take the trick with a sure
    winner when it is worth ``win_min`` points, else give the cheapest card."""
    if partner_wins:
        plain = legal & ~suit_mask[trump]
        if plain != EMPTY and sure_winner(win, unseen, trump, suit_of, suit_mask, above):
            return best_in(plain, rich)
        return best_in(legal, cheap)
    w = winners(legal, win, trump, suit_of, suit_mask, excuse_mask, above)
    sure = EMPTY
    m = w
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if sure_winner(c, unseen, trump, suit_of, suit_mask, above):
            sure |= bit(c)
    c = best_in(sure, win_rank)
    if c >= 0 and on_table + points[c] >= win_min:
        return c
    return best_in(legal, cheap)


@hot
def taker_lead(hand: np.uint64, gone: np.uint64, trump: int, suit_mask: np.ndarray,
               above: np.ndarray, strength: np.ndarray) -> int:
    """The taker draws trumps while the defenders may hold some and he holds two or more:
    with his best master trump, else his lowest trump (to drive out their J or 9); -1
    otherwise. Measured in duplicate play against Belote's lead (master trumps only):
    +0.08 hazelnuts per deal for the seat playing it."""
    unseen = ALL_CARDS & ~gone & ~hand
    mine = hand & suit_mask[trump]
    if unseen & suit_mask[trump] == EMPTY or count(mine) < 2:
        return -1
    best = -1
    low = -1
    m = mine
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if above[c] & unseen == EMPTY and (best < 0 or strength[c] > strength[best]):
            best = c
        if low < 0 or strength[c] < strength[low]:
            low = c
    return best if best >= 0 else low


@hot
def heuristic_card(state: np.ndarray, legal: np.uint64, kv: np.ndarray, suit_of: np.ndarray,
                   suit_mask: np.ndarray, excuse_mask: np.uint64, strength_t: np.ndarray,
                   points_t: np.ndarray, above_t: np.ndarray, cheap_t: np.ndarray,
                   rich_t: np.ndarray, win_t: np.ndarray) -> int:
    """Lead: ``taker_lead``, else Belote's ``lead_heuristic`` (cash master cards, richest
    first; else the cheapest card). Second: a defender beats the taker's lead as cheaply
    as he can (only his partner plays after him: +0.02 hazelnuts per deal in duplicate
    play), otherwise ``second_card``. Last: ``tricks.follow_heuristic`` (load a winning
    partner, else win as cheaply as possible, else shed). The defenders are partners:
    they load each other's tricks."""
    p = state[S_TO_MOVE]
    trump = state[S_TRUMP]
    n_table = state[S_N_TABLE]
    hand = hand_of(state, p)
    taker = state[S_TAKER]
    gone = np.uint64(state[S_GONE])
    if n_table == 0:
        if p == taker:
            c = taker_lead(hand, gone, trump, suit_mask, above_t, strength_t)
            if c >= 0:
                return c
        return lead_heuristic(hand, p == taker, gone, trump, suit_mask, above_t, strength_t,
                              cheap_t, rich_t)
    partner_wins = state[S_WIN_SEAT] != taker and p != taker
    if n_table == 1:
        if state[S_WIN_SEAT] == taker:
            c = best_in(winners(legal, state[S_WIN], trump, suit_of, suit_mask, excuse_mask,
                                above_t), win_t)
            if c >= 0:
                return c
        return second_card(legal, state[S_WIN], partner_wins, state[S_ON_TABLE], trump,
                           ALL_CARDS & ~gone & ~hand, suit_of, suit_mask, excuse_mask, above_t,
                           points_t, cheap_t, rich_t, win_t, kv[K_WIN_MIN])
    return follow_heuristic(legal, state[S_WIN], partner_wins, True, state[S_ON_TABLE], trump,
                            suit_of, suit_mask, excuse_mask, above_t, points_t, cheap_t, rich_t,
                            win_t, kv[K_WIN_MIN])


@hot
def announce_pays(state: np.ndarray, kv: np.ndarray) -> bool:
    """Whether the heuristic announces the belote it may announce now (``can_announce``):
    when it is worth points. It then never lowers the holder's hazelnuts this deal: it adds
    ``belote_value`` to his count and to the total, so a taker's bar for the whole pot
    rises by half what he gains and his lead over each opponent grows; a defender's count
    rises against the taker and the other defender (§7.1 pays the better one). What it
    gives away, the other card's place, the heuristic does not weigh."""
    return kv[K_BELOTE] > 0 and state[S_BELOTE_SHOWN] == 0


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic player's move for the seat to move (``tb``: ``tables().kernel_args()``);
    a belote at its choice is announced when it pays (``announce_pays``)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    if state[S_PHASE] != P_PLAY:
        return heuristic_bid(state, kv)
    t = state[S_TRUMP] + 1
    legal = legal_cards_now(state, rules, suit_of, suit_mask, excuse_mask, above[t])
    c = heuristic_card(state, legal, kv, suit_of, suit_mask, excuse_mask, strength[t],
                       points[t], above[t], cheap[t], rich[t], win_rank[t])
    if can_announce(state, c) and announce_pays(state, kv):
        return ANNOUNCE + c
    return c


@hot
def random_move(st: np.uint64, state: np.ndarray, rules: np.ndarray, tb: tuple,
                moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves (bids: pass or a suit; cards)."""
    n = legal_moves(state, rules, tb, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players at every seat until the deal is over (the trump's table rows are
    taken once, after the taking)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    while sim[S_PHASE] < P_PLAY:
        apply_bid(sim, heuristic_bid(sim, kv), kv)
    t = sim[S_TRUMP] + 1
    strength_t, points_t, above_t = strength[t], points[t], above[t]
    cheap_t, rich_t, win_t = cheap[t], rich[t], win_rank[t]
    while sim[S_PHASE] != P_DONE:
        legal = legal_cards_now(sim, rules, suit_of, suit_mask, excuse_mask, above_t)
        c = heuristic_card(sim, legal, kv, suit_of, suit_mask, excuse_mask, strength_t,
                           points_t, above_t, cheap_t, rich_t, win_t)
        if can_announce(sim, c) and announce_pays(sim, kv):
            sim[S_BELOTE_SHOWN] = 1  # as ``apply_move`` does for ANNOUNCE + c
        play_card(sim, c, kv, suit_of, points_t, above_t)


# --- what a seat sees, and worlds consistent with it ---------------------------------------------
@hot
def play_exclusions(state: np.ndarray, rules: np.ndarray, tb: tuple, excluded: np.ndarray,
                    played_by: np.ndarray) -> None:
    """What the plays so far reveal (``simlab.mechanics.trickinfo.play_exclusions``: a failure to
    follow, to trump, to overtrump), the taker leading the first trick; the sides are the
    taker's against the others (``TEAMS_BY_TAKER``)."""
    replay_exclusions(state[S_HIST:], state[S_TRICK] * N_PLAYERS + state[S_N_TABLE],
                      state[S_TAKER], state[S_TRUMP], N_CARDS, rules, tb,
                      TEAMS_BY_TAKER[state[S_TAKER]], excluded, played_by)


@hot
def seat_information(state: np.ndarray, seat: int, kv: np.ndarray, rules: np.ndarray,
                     tb: tuple, excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask): not in its hand, not played, not face up.
    Fills ``excluded[q]`` with the cards seat q certainly does not hold and ``played_by[q]``
    with the cards q played. Reads only the seat's hand and public facts: the upcards and
    who received them, the taker, trump, the cards played and by whom, and the belote once
    announced (the announcement places the other card in the announcer's hand; when the
    belote is always announced, a trump K or Q played without it says the player has not
    the other; at the holder's choice it says nothing)."""
    for q in range(N_PLAYERS):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    mine = hand_of(state, seat)
    up = bit(state[S_UP1])
    if state[S_UP2] >= 0:
        up |= bit(state[S_UP2])
    if state[S_PHASE] < P_PLAY:  # the upcards are face up: public, not hidden
        return ALL_CARDS & ~mine & ~up
    gone = np.uint64(state[S_GONE])
    taker = state[S_TAKER]
    for q in range(N_PLAYERS):
        if q != taker:
            excluded[q] = up  # the taker received them
    play_exclusions(state, rules, tb, excluded, played_by)
    trump = state[S_TRUMP]
    if kv[K_BELOTE] > 0:
        king = trump * 8 + RK
        queen = trump * 8 + RQ
        shown = state[S_BELOTE_SHOWN] == 1
        for q in range(N_PLAYERS):
            for c, other in ((king, queen), (queen, king)):
                if has(played_by[q], c) and not has(gone, other):
                    if shown and state[S_BELOTE_SEAT] == q:
                        for r in range(N_PLAYERS):
                            if r != q:
                                excluded[r] |= bit(other)
                    elif state[S_BELOTE_CHOICE] == 0:
                        excluded[q] |= bit(other)
    return ALL_CARDS & ~mine & ~gone


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 kv: np.ndarray, world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with the cards hidden from ``seat`` dealt again at random,
    consistently with what ``seat_information`` filled in ``work`` (exclusions ``work[7]``,
    cards played ``work[8]``) and returned (``hidden``); during the taking the stock and its
    order are drawn too. The seat's own hand never moves. The belote's holder is read from
    the world's hands, and its state from what he played: announced if the real deal's
    belote was (the announcer is then the world's holder), else not announced once he
    played K or Q of trump, else still open."""
    moves, totals, sim, cards, allowed, owner, capacity, excluded, played_by, slot_excl, \
        slot_cards, sample_work = work
    for i in range(N_STATE):
        world[i] = state[i]
    n_slots = N_PLAYERS - 1
    for j in range(N_PLAYERS - 1):
        q = (seat + 1 + j) % N_PLAYERS
        slot_excl[j] = excluded[q]
        capacity[j] = count(hand_of(state, q))  # hand sizes follow from the deal: public
    auction = state[S_PHASE] < P_PLAY
    pos = state[S_STOCK_POS]
    n_stock = state[S_STOCK_N] - pos
    if auction:
        slot_excl[n_slots] = EMPTY
        capacity[n_slots] = n_stock
        n_slots += 1
    st, ok = sample_places(st, hidden, n_slots, slot_excl, capacity, cards, allowed, owner,
                           sample_work, slot_cards)
    if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
        for j in range(n_slots):
            slot_excl[j] = EMPTY
        st, ok = sample_places(st, hidden, n_slots, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
    for j in range(N_PLAYERS - 1):
        world[S_HAND + (seat + 1 + j) % N_PLAYERS] = np.int64(slot_cards[j])
    if auction:  # the stock in ascending order, then shuffled: its order is hidden too
        stock = world[S_STOCK + pos:S_STOCK + pos + n_stock]
        m = slot_cards[N_PLAYERS - 1]
        for i in range(n_stock):
            stock[i] = lowest(m)
            m &= m - ONE
        st = rng.shuffle(st, stock, n_stock)
    else:
        trump = world[S_TRUMP]
        world[S_BELOTE_SEAT] = -1
        world[S_BELOTE_SHOWN] = 0
        if kv[K_BELOTE] > 0:
            pair = bit(trump * 8 + RK) | bit(trump * 8 + RQ)
            for q in range(N_PLAYERS):
                h = hand_of(world, q) | played_by[q]
                if h & pair == pair:
                    world[S_BELOTE_SEAT] = q
                    if played_by[q] & pair != EMPTY:
                        world[S_BELOTE_SHOWN] = 1 if state[S_BELOTE_SHOWN] == 1 else 2
    return st


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, kv: np.ndarray, rules: np.ndarray,
                tb: tuple, world: np.ndarray, work: tuple) -> np.uint64:
    """One world consistent with what ``seat`` sees (``seat_information`` then
    ``sample_world``)."""
    hidden = seat_information(state, seat, kv, rules, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, kv, world, work)


# --- the search player -----------------------------------------------------------------------
SEARCH_SLOTS = 3  # hidden places: the two other hands and, during the taking, the stock
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)
TIE_SCALE = 1000  # hazelnuts first; card points only break ties between moves


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(N_PLAYERS, dtype=np.uint64),
            np.zeros(N_PLAYERS, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64))


@hot
def seat_value(sim: np.ndarray, seat: int, kv: np.ndarray) -> int:
    """What the search maximises for ``seat`` in a finished deal (see the module doc)."""
    best_other = 0
    for q in range(N_PLAYERS):
        if q != seat:
            best_other = max(best_other, seat_points(sim, q, kv))
    return TIE_SCALE * net_nuts(sim, seat) + seat_points(sim, seat, kv) - best_other


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal moves and ``work[1]`` with each one's summed value
    over the worlds and playouts; returns the number of moves (one: nothing searched)."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    n = legal_moves(state, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, kv, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, kv, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv, tb)
                playout(sim, kv, rules, tb)
                totals[m] += seat_value(sim, seat, kv)
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The search player's move for the seat to move (see the module docstring)."""
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]

