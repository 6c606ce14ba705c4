"""Belote de comptoir players: the heuristic (bids, contract, card play), the random
player, what a seat sees, the worlds consistent with it, the search player
(``--policy search``). The exact solver that checks the search is ``exact.py``.

Rules are in ``rules.py``; every policy here chooses among ``rules.legal_moves`` and the
kernels apply the choice with ``rules.apply_move``: the real deal, the search's playouts
and the exact solver follow one code path.

What a seat sees: its own hand (during the auction only the cards dealt face up to it or
not face down: blind and partly blind modes), every card dealt face up (partly open
mode), the bids, the contract, and every card played and by whom; each play also reveals
the cards the rules show the player cannot hold (a void, no higher trump...). Hidden:
the other hands, its own face-down cards until the auction ends, and the undealt rest of
the pack (which nobody sees: the search deals hidden cards into it too).

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``):

* auction: in each of ``search_worlds`` sampled worlds it plays the deal out as the
  bidder of each allowed contract (heuristic players everywhere) and records the points
  it takes; its ceiling is the highest level that the best contract reaches in at least
  ``search_make_risk`` % of the worlds (50 %: a bid made is +1 against every opponent, a
  bid failed -1 against every opponent); with face-down cards of its own (blind modes)
  it plays each world with the contract the heuristic names for that world's hand, as
  the real bidder names trump once he sees his cards. Open auction: it raises to the
  lowest level while that is within its ceiling, else passes. One round (each speaks
  once): a bid taken scores 1 made or -1 failed whatever its level, so bidding the 50 %
  level at once is worth nothing on average (it lost to the heuristic: -0.020 a deal);
  it weighs passing, the lowest legal bid and the levels made in 50, 60 ... 100 % of the
  worlds, each played out in other sampled worlds with the later speakers bidding as
  heuristic players (a higher bid only pays by keeping them out), and keeps the best
  (``one_round_values``);
* contract and cards: each legal move is applied in every world and played out with
  heuristic players; the move with the best summed outcome wins, the outcome being the
  seat's margin (its mark minus the mean of the others', x (n - 1)) first and the
  bidder's points (more for the bidder, fewer for the others) to break ties.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.belote.players import lead_heuristic
from simlab.games.belote_comptoir.rules import (
    ALL_CARDS,
    BID,
    CONTRACT,
    K_ALLOW_SA,
    K_ALLOW_TA,
    K_BELOTE,
    K_BID_CAP,
    K_BID_FACTOR,
    K_BID_FACTOR_1R,
    K_DER,
    K_K,
    K_MAKE_RISK,
    K_N,
    K_ONE_ROUND,
    K_ROLLOUTS,
    K_TA_FACTOR,
    K_WORLDS,
    MAX_BID,
    MAX_MOVES,
    MAX_PLAYERS,
    N_CARDS,
    N_CONTRACTS,
    N_STATE,
    P_AUCTION,
    P_CONTRACT,
    P_DONE,
    P_PLAY,
    PASS,
    RK,
    RQ,
    S_BID,
    S_CONTRACT,
    S_FACE_DOWN,
    S_FACE_UP,
    S_GONE,
    S_HAND,
    S_HIST,
    S_LEADER,
    S_N,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_REST,
    S_TAKER,
    S_TO_MOVE,
    S_TRICK,
    S_TRUMP,
    S_WIN,
    S_WIN_SEAT,
    SANS_ATOUT,
    TOUT_ATOUT,
    TRUMP_OF,
    apply_contract,
    apply_move,
    hand_of,
    legal_cards_now,
    legal_moves,
    lowest_bid,
    seat_mark,
    taker_points,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import replay_exclusions, sample_places
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    count,
    follow_heuristic,
    has,
    lowest,
)


# --- the heuristic player: points estimate and bids ------------------------------------------
@hot
def allowed(c: int, kv: np.ndarray) -> bool:
    return c < 4 or (c == SANS_ATOUT and kv[K_ALLOW_SA] != 0) or (c == TOUT_ATOUT and kv[K_ALLOW_TA] != 0)


@hot
def win_chance(x: int, c: int, unseen: np.uint64, n_unseen: int, n_held: int,
               shown: np.uint64, tb: tuple) -> float:
    """Chance that card ``x`` takes its trick at contract ``c``: none of its beaters is
    among the ``n_held`` cards the other players hold, drawn from the ``n_unseen`` cards
    the seat does not see (hypergeometric). Beaters: the unseen higher cards of its suit,
    and at a trump contract half the unseen trumps for a side card (a trump only beats
    it from a player void in its suit). A higher card of its suit shown face up in
    another hand (``shown``) beats it for sure; a trump shown there halves its chance."""
    above = tb[5][c][x]
    if above & shown != EMPTY:
        return 0.0
    beaters = count(above & unseen)
    trump = TRUMP_OF[c]
    p = 1.0
    if trump >= 0 and tb[0][x] != trump:
        beaters += count(tb[1][trump] & unseen) // 2
        if tb[1][trump] & shown != EMPTY:
            p = 0.5
    for i in range(n_held):
        if n_unseen - i <= 0:
            break
        p *= max(0.0, (n_unseen - beaters - i) / (n_unseen - i))
    return p


# What each other player throws on a trick the bidder wins, in mean cards of the
# contract: at a trump contract the others must follow, trump and overtrump, so they
# often feed it; at Sans-Atout a void player discards his cheapest card, and Tout-Atout's
# mean card is inflated by the four trump Jacks and 9s that rarely fall on one trick.
# Calibrated so the bidder's estimate matches his mean points (heuristic self-play, 4
# players, k = 3: within about 10 % for each contract).
FILL_SHARE = np.array([1.0, 1.0, 1.0, 1.0, 0.5, 0.5])


@hot
def card_chances(known: np.uint64, n_unknown: int, unseen: np.uint64, n_held: int,
                 shown: np.uint64, c: int, kv: np.ndarray, tb: tuple, chance: np.ndarray,
                 worth: np.ndarray) -> int:
    """Per card of a bidder at contract ``c``: the chance it takes its trick and what that
    trick is then worth to him. A card it sees (``known``): ``win_chance``, and its points
    plus what each other player throws on it (``FILL_SHARE`` of a mean card) plus its
    share of the dix de der. Cards it cannot see (``n_unknown`` of them, blind modes):
    the first is the best of that many random unseen cards played as a trump (trump is
    named once the cards are seen), the others take their trick 1 time in n (a random
    card, by symmetry), worth then half a mean trick (most tricks are poor). ``shown``:
    the cards face up in the other hands. Writes ``chance`` and ``worth``; returns the
    number of cards."""
    pts = tb[4][c]
    n = kv[K_N]
    total_pts = 0
    for y in range(N_CARDS):
        total_pts += pts[y]
    mean_card = total_pts / N_CARDS
    der_share = kv[K_DER] / kv[K_K]
    fill = (n - 1) * FILL_SHARE[c] * mean_card + der_share
    n_unseen = count(unseen)
    i = 0
    m = known
    while m != EMPTY:
        x = lowest(m)
        m &= m - ONE
        chance[i] = win_chance(x, c, unseen, n_unseen, n_held, shown, tb)
        worth[i] = pts[x] + fill
        i += 1
    if n_unknown > 0 and n_unseen > 0:
        # The bidder names trump once he has seen his cards, so the best of his unseen
        # cards will be a trump: the first unknown card is the best of n_unknown random
        # unseen cards played as a trump (order statistics of their chances), worth a
        # trump's mean points and half the usual fill (blind tricks are poor on average).
        wins = tb[9][4]
        n_w = 0
        mean_pts = 0.0
        m = unseen
        while m != EMPTY:
            y = lowest(m)
            m &= m - ONE
            t = tb[0][y]
            w = win_chance(y, t, unseen, n_unseen, n_held, shown, tb)
            j = n_w  # insertion sort, ascending
            while j > 0 and wins[j - 1] > w:
                wins[j] = wins[j - 1]
                j -= 1
            wins[j] = w
            n_w += 1
            mean_pts += tb[4][t][y]
        best = 0.0
        for j in range(n_w):
            best += wins[j] * (((j + 1) / n_w) ** n_unknown - (j / n_w) ** n_unknown)
        chance[i] = best
        worth[i] = mean_pts / n_w + 0.5 * (fill - der_share) + der_share
        i += 1
    for _ in range(n_unknown - 1):
        chance[i] = 1.0 / n
        worth[i] = 0.5 * (n * mean_card) + der_share
        i += 1
    return i


@hot
def estimate(known: np.uint64, n_unknown: int, unseen: np.uint64, n_held: int,
             shown: np.uint64, c: int, kv: np.ndarray, tb: tuple) -> float:
    """Expected points of a bidder at contract ``c`` (``card_chances``: each card's chance
    to take its trick times what it is worth, plus Belote-Rebelote when known)."""
    chance, worth = tb[9][0], tb[9][1]
    n_cards = card_chances(known, n_unknown, unseen, n_held, shown, c, kv, tb, chance, worth)
    e = 0.0
    for i in range(n_cards):
        e += chance[i] * worth[i]
    return e + belote_points(known, c, kv)


@hot
def belote_points(known: np.uint64, c: int, kv: np.ndarray) -> int:
    trump = TRUMP_OF[c]
    if trump >= 0 and has(known, trump * 8 + RK) and has(known, trump * 8 + RQ):
        return kv[K_BELOTE]
    return 0


@hot
def level_distribution(known: np.uint64, n_unknown: int, unseen: np.uint64, n_held: int,
                       shown: np.uint64, c: int, kv: np.ndarray, tb: tuple) -> int:
    """The bidder's points at contract ``c`` as a distribution, the cards taking their
    tricks independently (``card_chances``): every subset s of the (at most 5) cards is
    a possible set of tricks won, with chance ``tb[9][2][s]`` and points ``tb[9][3][s]``.
    At Tout-Atout the points are scaled by ``tout_atout_factor`` %: the independent
    chances overrate a Tout-Atout hand (each suit must be overplayed, so its masters
    crowd each other out), and at 100 % its bids were made 62 % of the time against 79 %
    at a trump contract (issue 32). Returns the number of subsets."""
    chance, worth, probs, levels = tb[9][0], tb[9][1], tb[9][2], tb[9][3]
    n_cards = card_chances(known, n_unknown, unseen, n_held, shown, c, kv, tb, chance, worth)
    belote = belote_points(known, c, kv)
    scale = kv[K_TA_FACTOR] / 100 if c == TOUT_ATOUT else 1.0
    for s in range(1 << n_cards):
        p = 1.0
        v = 0.0
        for i in range(n_cards):
            if s >> i & 1:
                p *= chance[i]
                v += worth[i]
            else:
                p *= 1.0 - chance[i]
        probs[s] = p
        levels[s] = np.floor(v * scale) + belote
    return 1 << n_cards


@hot
def sure_level(known: np.uint64, n_unknown: int, unseen: np.uint64, n_held: int,
               shown: np.uint64, c: int, kv: np.ndarray, tb: tuple) -> int:
    """The highest level a bidder at contract ``c`` reaches with a chance of at least one
    half (``level_distribution``)."""
    n_sets = level_distribution(known, n_unknown, unseen, n_held, shown, c, kv, tb)
    probs, levels = tb[9][2], tb[9][3]
    best = 0
    for s in range(n_sets):
        at_least = 0.0
        for t in range(n_sets):
            if levels[t] >= levels[s]:
                at_least += probs[t]
        if at_least >= 0.5 and levels[s] > best:
            best = np.int64(levels[s])
    return best


@hot
def make_chance(known: np.uint64, n_unknown: int, unseen: np.uint64, n_held: int,
                shown: np.uint64, c: int, bid: int, kv: np.ndarray, tb: tuple) -> float:
    """The chance to reach ``bid`` at contract ``c`` (``level_distribution``)."""
    n_sets = level_distribution(known, n_unknown, unseen, n_held, shown, c, kv, tb)
    p = 0.0
    for s in range(n_sets):
        if tb[9][3][s] >= bid:
            p += tb[9][2][s]
    return p


@hot
def seat_view(state: np.ndarray, seat: int) -> tuple[np.uint64, int, np.uint64, int, np.uint64]:
    """(cards of its own the seat sees, how many it holds unseen, the cards it does not
    see, how many cards the other players hold that it does not see, the cards face up
    in the other hands)."""
    n = state[S_N]
    hand = hand_of(state, seat)
    down = np.uint64(state[S_FACE_DOWN])
    up = np.uint64(state[S_FACE_UP])
    known = hand & ~down
    unseen = ALL_CARDS & ~known & ~up & ~np.uint64(state[S_GONE])
    n_held = 0
    for q in range(n):
        if q != seat:
            n_held += count(hand_of(state, q) & ~up)
    return known, count(hand & down), unseen, n_held, up & ~hand


@hot
def best_contract(state: np.ndarray, seat: int, kv: np.ndarray, tb: tuple) -> tuple[int, float]:
    """The allowed contract most likely to reach the current bid for ``seat`` (ties: the
    higher ``estimate``), and that contract's estimate."""
    known, n_unknown, unseen, n_held, shown = seat_view(state, seat)
    best = 0
    best_p = -1.0
    best_e = -1.0
    for c in range(N_CONTRACTS):
        if allowed(c, kv):
            p = make_chance(known, n_unknown, unseen, n_held, shown, c, state[S_BID], kv, tb)
            e = estimate(known, n_unknown, unseen, n_held, shown, c, kv, tb)
            if p > best_p + 1e-9 or (p > best_p - 1e-9 and e > best_e):
                best_p = p
                best_e = e
                best = c
    return best, best_e


@hot
def heuristic_ceiling(state: np.ndarray, seat: int, kv: np.ndarray, tb: tuple) -> int:
    """``bid_factor`` % (``bid_factor_one_round`` when each speaks once) of the best
    allowed contract's ``sure_level`` for ``seat``."""
    known, n_unknown, unseen, n_held, shown = seat_view(state, seat)
    best = 0
    for c in range(N_CONTRACTS):
        if allowed(c, kv):
            best = max(best, sure_level(known, n_unknown, unseen, n_held, shown, c, kv, tb))
    factor = kv[K_BID_FACTOR_1R] if kv[K_ONE_ROUND] else kv[K_BID_FACTOR]
    return min(best * factor // 100, kv[K_BID_CAP])


@hot
def heuristic_bid(state: np.ndarray, kv: np.ndarray, tb: tuple) -> int:
    """Bid up to ``heuristic_ceiling`` (the level the hand makes half the time): raise to
    the lowest level while that is within it (open auction), or bid it at once
    (one_round); pass otherwise."""
    ceiling = heuristic_ceiling(state, state[S_TO_MOVE], kv, tb)
    low = lowest_bid(state, kv)
    if ceiling < low:
        return PASS
    return BID + (ceiling if kv[K_ONE_ROUND] else low)


# --- the heuristic player: card play ----------------------------------------------------------
@hot
def heuristic_card(state: np.ndarray, legal: np.uint64, tb: tuple) -> int:
    """Lead: Belote's ``lead_heuristic`` (the bidder draws trumps with a master trump,
    everyone cashes a master, else the cheapest card). Later in a trick: Belote's
    ``follow_heuristic`` with every point worth winning; the other players side with
    each other against the bidder once he has played to the trick (they then load points
    on a fellow's winning card)."""
    p = state[S_TO_MOVE]
    n = state[S_N]
    c = state[S_CONTRACT]
    trump = state[S_TRUMP]
    taker = state[S_TAKER]
    n_table = state[S_N_TABLE]
    if n_table == 0:
        return lead_heuristic(hand_of(state, p), p == taker, np.uint64(state[S_GONE]), trump,
                              tb[1], tb[5][c], tb[3][c], tb[6][c], tb[7][c])
    taker_played = p != taker and (taker - state[S_LEADER]) % n < n_table
    fellow_wins = taker_played and state[S_WIN_SEAT] != taker
    return follow_heuristic(legal, state[S_WIN], fellow_wins, n_table == n - 1,
                            state[S_ON_TABLE], trump, tb[0], tb[1], tb[2], tb[5][c], tb[4][c],
                            tb[6][c], tb[7][c], tb[8][c], 0)


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic player's move for the seat to move: a bid, the contract with the best
    estimate (the whole hand is seen by then), or a card."""
    phase = state[S_PHASE]
    if phase == P_AUCTION:
        return heuristic_bid(state, kv, tb)
    if phase == P_CONTRACT:
        c, _ = best_contract(state, state[S_TO_MOVE], kv, tb)
        return CONTRACT + c
    return heuristic_card(state, legal_cards_now(state, rules, tb), tb)


@hot
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves, but in the auction a coin flip between passing and
    the lowest bid: uniform over every level up to the cap would bid a hopeless 100-odd
    points nearly every time, a baseline that measures nothing but that."""
    if state[S_PHASE] == P_AUCTION:
        st, k = rng.below(st, 2)
        return st, PASS if k == 0 else BID + lowest_bid(state, kv)
    n = legal_moves(state, kv, rules, tb, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players at every seat until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, rules, tb), kv, tb)


# --- what a seat sees, and worlds consistent with it ----------------------------------------
# every seat its own side (no partners): the team numbers ``replay_exclusions`` reads
SEATS_ALONE = np.arange(MAX_PLAYERS, dtype=np.int64)


@hot
def play_exclusions(state: np.ndarray, rules: np.ndarray, tb: tuple, excluded: np.ndarray,
                    played_by: np.ndarray) -> None:
    """What the plays so far reveal (``simlab.mechanics.trickinfo.replay_exclusions``: a failure to
    follow, to trump, to overtrump), the bidder leading the first trick; every seat plays
    for itself, with the contract's rank table and rule row (Tout-Atout has its own)."""
    n = state[S_N]
    c = state[S_CONTRACT]
    replay_exclusions(state[S_HIST:], state[S_TRICK] * n + state[S_N_TABLE], state[S_TAKER],
                      state[S_TRUMP], N_CARDS, rules[1 if c == TOUT_ATOUT else 0], tb[0], tb[1],
                      tb[2], tb[5][c], SEATS_ALONE[:n], excluded, played_by)


@hot
def seat_information(state: np.ndarray, seat: int, rules: np.ndarray, tb: tuple,
                     excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask): not its own visible cards, not face up,
    not played. Fills ``excluded[q]`` (cards seat q certainly lacks, from its plays) and
    ``played_by[q]``. Reads only the seat's visible cards and public facts."""
    for q in range(MAX_PLAYERS):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    known = hand_of(state, seat) & ~np.uint64(state[S_FACE_DOWN])
    if state[S_PHASE] == P_PLAY:
        play_exclusions(state, rules, tb, excluded, played_by)
    return ALL_CARDS & ~known & ~np.uint64(state[S_FACE_UP]) & ~np.uint64(state[S_GONE])


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with every card hidden from ``seat`` dealt again at random into
    its hidden places (the other hands' hidden cards, the seat's own face-down cards, the
    undealt rest), each place keeping its size and each hand avoiding the cards its plays
    excluded (``seat_information`` filled ``work[7]``). Visible cards never move."""
    capacity, excluded, slot_excl, slot_cards = work[6], work[7], work[9], work[10]
    n = state[S_N]
    up = np.uint64(state[S_FACE_UP])
    down = np.uint64(state[S_FACE_DOWN])
    for i in range(N_STATE):
        world[i] = state[i]
    for j in range(n - 1):
        q = (seat + 1 + j) % n
        slot_excl[j] = excluded[q]
        capacity[j] = count(hand_of(state, q) & ~up)  # hand sizes are public
    own = n - 1
    slot_excl[own] = EMPTY
    capacity[own] = count(hand_of(state, seat) & down)
    rest = n
    slot_excl[rest] = EMPTY
    capacity[rest] = count(np.uint64(state[S_REST]))
    n_slots = n + 1
    st, ok = sample_places(st, hidden, n_slots, slot_excl, capacity, work[3], work[4], work[5],
                           work[11], slot_cards)
    if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
        for j in range(n_slots):
            slot_excl[j] = EMPTY
        st, ok = sample_places(st, hidden, n_slots, slot_excl, capacity, work[3], work[4],
                               work[5], work[11], slot_cards)
    for j in range(n - 1):
        q = (seat + 1 + j) % n
        world[S_HAND + q] = np.int64((hand_of(state, q) & up) | slot_cards[j])
    world[S_HAND + seat] = np.int64((hand_of(state, seat) & ~down) | slot_cards[own])
    # the seat's own face-down cards stay face down; which cards of the other hands are
    # face down matters to nobody's decision (the search plays out from the contract on)
    world[S_FACE_DOWN] = np.int64(slot_cards[own])
    world[S_REST] = np.int64(slot_cards[rest])
    return st


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, rules: np.ndarray, tb: tuple,
                world: np.ndarray, work: tuple) -> np.uint64:
    """One world for ``seat``: ``seat_information`` then ``sample_world``."""
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, world, work)


# --- the search player ----------------------------------------------------------------------
SEARCH_SLOTS = MAX_PLAYERS + 1  # the other hands, one's own face-down cards, the undealt rest
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
            np.zeros(MAX_PLAYERS, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64), np.zeros(SAMPLE_WORK, dtype=np.int64),
            np.zeros((N_CONTRACTS, MAX_BID + 2), dtype=np.int64))


@hot
def outcome(sim: np.ndarray, seat: int) -> int:
    """The value of a finished deal for ``seat``: its margin over the mean of the others
    (x (n - 1), so an integer: the bidder +-(n - 1), each other seat -+1), then the
    bidder's points as a tie-break (for the bidder, against the others)."""
    taker = sim[S_TAKER]
    if taker < 0:
        return 0
    n = sim[S_N]
    others = 0
    for q in range(n):
        if q != seat:
            others += seat_mark(sim, q)
    margin = (n - 1) * seat_mark(sim, seat) - others
    pts = taker_points(sim)
    return 1000 * margin + (pts if seat == taker else -pts)


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Contract or card decision: fill ``work[0]`` with the legal moves and ``work[1]``
    with each one's summed ``outcome`` over the worlds and playouts; returns the number of
    moves. One move: nothing is searched."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):  # heuristic playouts are deterministic
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv, tb)
                playout(sim, kv, rules, tb)
                totals[m] += outcome(sim, seat)
    return n


@hot
def search_histogram(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                     seed: np.uint64, index: int, sub: int, world: np.ndarray,
                     work: tuple) -> None:
    """``work[12][c, v]``: in how many of the seat's sampled worlds it takes ``v`` points
    (capped at ``MAX_BID + 1``) as the bidder of contract ``c``, heuristic players
    everywhere."""
    sim, hist = work[2], work[12]
    seat = state[S_TO_MOVE]
    for c in range(N_CONTRACTS):
        for v in range(MAX_BID + 2):
            hist[c, v] = 0
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    # Face-down cards of its own (blind modes): the bidder names the contract once he has
    # seen them, so in each world he names the heuristic's best contract for the hand that
    # world gives him (row 0 of ``hist`` then holds every world). A contract fixed across
    # worlds would underrate a blind hand: the exact solver (``exact.exact_ceiling``)
    # found bids about half the makeable level at 3 players, k = 1, blind.
    blind = (hand_of(state, seat) & np.uint64(state[S_FACE_DOWN])) != EMPTY
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for c in range(N_CONTRACTS):
            if not allowed(c, kv):
                continue
            for i in range(N_STATE):
                sim[i] = world[i]
            sim[S_TAKER] = seat  # as if the auction were over with this seat the bidder
            sim[S_FACE_DOWN] = 0
            named = c
            if blind:
                if c > 0:
                    break
                named, _ = best_contract(sim, seat, kv, tb)
            apply_contract(sim, named, kv)
            playout(sim, kv, rules, tb)
            hist[c, min(taker_points(sim), MAX_BID + 1)] += 1


@hot
def level_at_risk(hist: np.ndarray, risk: int, worlds: int) -> int:
    """The highest level the best contract of ``hist`` reaches in at least ``risk`` % of
    the ``worlds`` (0: none)."""
    need = (risk * worlds + 99) // 100  # worlds that must make it
    ceiling = 0
    for c in range(N_CONTRACTS):
        made = 0
        for v in range(MAX_BID + 1, 0, -1):
            made += hist[c, v]
            if made >= need:
                ceiling = max(ceiling, v)
                break
    return ceiling


@hot
def search_ceiling(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                   seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The highest level the seat to move would make in at least ``search_make_risk`` %
    of its sampled worlds, playing the best allowed contract as the bidder (0: none)."""
    search_histogram(state, kv, rules, tb, seed, index, sub, world, work)
    return level_at_risk(work[12], kv[K_MAKE_RISK], kv[K_WORLDS])


# The make rates whose levels the one-round search weighs as bids (besides the lowest
# legal bid and passing): a bid made scores 1 whatever its level, so a higher bid only
# pays by keeping the later speakers out.
ONE_ROUND_RISKS = np.array([50, 60, 70, 80, 90, 100])


@hot
def one_round_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                     seed: np.uint64, index: int, sub: int, world: np.ndarray,
                     work: tuple) -> int:
    """One-round auction (each speaks once): fill ``work[0]`` with passing and the bids
    worth weighing (the lowest legal one and the levels made in ``ONE_ROUND_RISKS`` % of
    the sampled worlds, within the cap), and ``work[1]`` with each one's summed
    ``outcome`` over the worlds, the later speakers bidding as heuristic players in each
    world and the deal played out; returns the number of moves."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    search_histogram(state, kv, rules, tb, seed, index, sub, world, work)
    low = lowest_bid(state, kv)
    n = 0
    moves[n] = PASS
    n += 1
    if low <= kv[K_BID_CAP]:
        moves[n] = BID + low
        n += 1
    for i in range(ONE_ROUND_RISKS.shape[0]):
        level = min(level_at_risk(work[12], ONE_ROUND_RISKS[i], kv[K_WORLDS]), kv[K_BID_CAP])
        if level > low:
            fresh = True
            for j in range(n):
                fresh = fresh and moves[j] != BID + level
            if fresh:
                moves[n] = BID + level
                n += 1
    for m in range(n):
        totals[m] = 0
    # other worlds than the histogram's, so the levels are not judged on the worlds that
    # chose them
    st = rng.mix64(search.decision_stream(seed, index, sub, seat, state[S_PLY]) ^ rng.GOLDEN)
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for i in range(N_STATE):
                sim[i] = world[i]
            apply_move(sim, moves[m], kv, tb)
            playout(sim, kv, rules, tb)
            totals[m] += outcome(sim, seat)
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The search player's move for the seat to move (see the module docstring)."""
    if state[S_PHASE] == P_AUCTION and kv[K_ONE_ROUND]:
        n = one_round_values(state, kv, rules, tb, seed, index, sub, world, work)
        return work[0][search.best_move(work[1], n)]
    if state[S_PHASE] == P_AUCTION:
        ceiling = min(search_ceiling(state, kv, rules, tb, seed, index, sub, world, work),
                      kv[K_BID_CAP])
        low = lowest_bid(state, kv)
        if ceiling < low:
            return PASS
        return BID + (ceiling if kv[K_ONE_ROUND] else low)
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]
