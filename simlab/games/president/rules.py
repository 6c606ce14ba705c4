"""Président / Trou du cul: the rules, as state and step (seed 003 "Trou du Cul";
catalogue ``president.md``).

Read top to bottom like the rulebook: deck and rank order, knobs, titles, the deal, the
exchanges, play (the shared climbing machinery of ``simlab.mechanics.shedding``) and the score. The
players (heuristic, random, search) are in ``players.py``, the batch kernels and result
columns in ``kernels.py``, the balance questions in ``questions.py``.

Seats 0..n-1 clockwise; the player on the dealer's left is ``dealer + 1``. Every seat
plays for itself. A deal's score is its role points (Président +2, Vice-Président +1,
Neutre 0, Vice-Trou du cul -1, Trou du cul -2 by default).

Roles at 6 players: the seed names them for 4 (Président, Vice-Président, Vice-Trou du
cul, Trou du cul) and 5 (the 3rd is the Neutre, who neither gives nor receives) and only
says the game plays "jusqu'à 6". Knob ``roles_6p``: ``two_neutres`` (catalogue #3: the
3rd and 4th are Neutres) or ``third_pair`` (the ladder goes on: the 3rd is the
Vice-vice-Président, the 4th the Vice-vice-Trou du cul, who gives him his best
``exchange_third`` cards and gets as many of his choice back; points knobs of their own).

State of a deal (five arrays; every decision is a step on them)
---------------------------------------------------------------
* ``g`` int64 [N_G]: named slots. ``g[0:N_ST]`` *is* the shedding series vector
  (``sh.ST_*``: rank and size on the table, last player, player to move, idle turns,
  players left, locked seats, revolution), then ``G_PHASE`` (exchange / play / over),
  ``G_PLY`` (moves made this deal), cards dealt, leader, the exchange in progress
  (pair, giver, taker, gifts left), and blocks of ``MAX_PLAYERS``: events (``sh.EV_*``),
  finishing order, places, hand sizes, previous places (titles), and per seat what it
  learnt in the exchange (its partner and the highest rank the partner may hold besides
  the cards known to be his).
* ``counts`` int64 [n, 13]: rank counts of each hand during play (``sh`` representation).
* ``played`` int64 [n, 13]: ranks each seat has played (public).
* ``masks`` uint64 [n]: physical hands, for the deal and the exchanges.
* ``kmask`` uint64 [n]: cards the seat knows to be in its exchange partner's hand (the
  Président's gifts for the Trou du cul's; the Trou du cul's gifts not given back for the
  Président's), as of the end of the exchange.

Moves: during the exchange a card id (the taker gives it back); in play ``PASS`` (-1) or
``play_move(rank, k)`` = ``rank * 8 + k`` (k cards of one playing rank).

Steps: ``deal`` -> ``start`` -> repeat ``to_move`` / ``legal_moves`` / ``apply_move``
until ``g[G_PHASE] == PH_OVER``; then ``score(g, kv, seat)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import search
from simlab.mechanics import shedding as sh
from simlab.mechanics.tricks import EMPTY, ONE, bit, lowest

# --- deck and rank order -------------------------------------------------------------
# The standard 52-card pack, suit-major (id = suit * 13 + i, i = 0..12 for 2, 3, .., A).
DECK = get_deck("52")
N_CARDS = 52
N_RANKS = 13
PER_RANK = 4  # cards of each rank in the pack
MAX_HAND = 13  # 52 / 4; at 5-6 players hands are smaller
MAX_PLAYERS = 6
RANK_LABELS_2_HIGH = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
RANK_LABELS_A_HIGH = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def rank_table(top_rank: str = "2") -> np.ndarray:
    """Playing rank of each card, 0 = lowest. Seed: 3 < 4 < ... < K < A < 2."""
    labels = RANK_LABELS_2_HIGH if top_rank == "2" else RANK_LABELS_A_HIGH
    return DECK.table({r: i for i, r in enumerate(labels)})


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class PresidentKnobs(Knobs):
    players: int = knob(4, "number of players (the seed: at least 4, ideally 4, up to 6)",
                        lo=4, hi=6)
    top_rank: str = knob("2", "highest rank: the seed's 2 (3 < ... < A < 2), or A (2 lowest)",
                         choices=("2", "A"))
    equal_play: bool = knob(True, "a group of the same rank as the table may be played")
    equal_play_skips: bool = knob(True, "an equal-rank play makes the next player skip his "
                                  "turn (each one in a chain, catalogue #6)")
    pass_locks_out: bool = knob(False, "a player who passed may not play again in the same "
                                "series (catalogue #1: he may)")
    revolution: bool = knob(False, "variant (not in the seed; catalogue knob table): playing "
                            "four cards of one rank, as a lead or a follow, reverses the "
                            "whole rank order (a follow must then be lower; the 2 becomes "
                            "the lowest, the 3 the highest) until the end of the deal or "
                            "until another four of a kind flips it back; the heuristic "
                            "plays by the order in force (column n_revolutions)")
    equal_hands: bool = knob(False, "at 5-6 players remove the odd cards so that all hands "
                             "are equal (catalogue #4; default: the first seats from the "
                             "dealer's left get one more card)")
    exchange_top: int = knob(2, "cards exchanged between the Président and the Trou du cul",
                             lo=0, hi=5)
    exchange_vice: int = knob(1, "cards exchanged between the Vice-Président and the "
                              "Vice-Trou du cul", lo=0, hi=5)
    roles_6p: str = knob("two_neutres", "titles at 6 players (the seed names them for 4-5 "
                         "only): the 3rd and 4th are two Neutres, no exchange (catalogue "
                         "#3), or a third exchanging pair, Vice-vice-Président (3rd) and "
                         "Vice-vice-Trou du cul (4th)", choices=("two_neutres", "third_pair"))
    exchange_third: int = knob(1, "roles_6p=third_pair: cards exchanged between the "
                               "Vice-vice-Président and the Vice-vice-Trou du cul", lo=0,
                               hi=5)
    tdc_leads: bool = knob(True, "after the first deal the Trou du cul leads (false: the "
                           "dealer's left)")
    points_president: int = knob(2, "role points of the Président", lo=-100, hi=100)
    points_vice_president: int = knob(1, "role points of the Vice-Président", lo=-100, hi=100)
    points_neutral: int = knob(0, "role points of a Neutre (5-6 players)", lo=-100, hi=100)
    points_vice_trou: int = knob(-1, "role points of the Vice-Trou du cul", lo=-100, hi=100)
    points_trou: int = knob(-2, "role points of the Trou du cul", lo=-100, hi=100)
    points_vice_vice_president: int = knob(0, "roles_6p=third_pair: role points of the "
                                           "Vice-vice-Président (3rd)", lo=-100, hi=100)
    points_vice_vice_trou: int = knob(0, "roles_6p=third_pair: role points of the "
                                      "Vice-vice-Trou du cul (4th)", lo=-100, hi=100)
    deals_per_match: int = knob(20, "deals in a match (the seed has no end: catalogue #5)",
                                lo=1, hi=100000)
    deal_titles: str = knob("none", "deal level: 'none' = every deal is a first deal; "
                            "'random' = every deal starts from random previous titles, "
                            "with the exchanges and the Trou du cul's lead",
                            choices=("none", "random"))
    turn_cap: int = knob(5000, "safety cap on turns per deal; the players still in then "
                         "finish by fewest cards (column 'capped')", lo=1, hi=10**7)
    # heuristic policy (used in players.py)
    lead_largest: bool = knob(False, "heuristic: lead the largest group (lowest rank on "
                              "ties) instead of the lowest rank", policy=True)
    # 1 and 8: measured (duplicate, 600 deals, seed 1) against the search player, which
    # gained +0.76 points a deal on the former 2 and 4 and gains +0.15 on these; hoarding
    # aces and 2s until 4 cards remain made a seat dealt 3+ twos finish worse than one
    # dealt none (issue 10)
    keep_top: int = knob(1, "heuristic: hold back this many top ranks (1 = the 2s) to "
                         "regain the lead", lo=0, hi=13, policy=True)
    endgame_cards: int = knob(10, "heuristic: with at most this many cards, play the held "
                              "back ranks and break groups to follow", lo=0, hi=13,
                              policy=True)
    break_groups: bool = knob(False, "heuristic: follow by breaking a larger group before "
                              "the endgame", policy=True)
    give_singletons: bool = knob(True, "heuristic: the Président / Vice give their lowest "
                                 "singletons (below the held back ranks) first, else their "
                                 "lowest cards", policy=True)
    # search policy (players.py): every legal move, played out with heuristic players in
    # sampled worlds; 24 worlds keep one search seat at several hundred deals/s
    search_worlds: int = search.worlds_knob(24)
    search_rollouts: int = search.rollouts_knob(1)


(K_PLAYERS, K_EQUAL_HANDS, K_X_TOP, K_X_VICE, K_TDC_LEADS, K_PTS_P, K_PTS_VP, K_PTS_N,
 K_PTS_VT, K_PTS_T, K_DEALS, K_DEAL_TITLES, K_THIRD_PAIR, K_X_THIRD, K_PTS_VVP, K_PTS_VVT,
 N_K) = range(17)


def third_pair(k: PresidentKnobs) -> bool:
    """Do these knobs hand out the Vice-vice titles (6 players, ``roles_6p=third_pair``)?"""
    return k.players == 6 and k.roles_6p == "third_pair"


def _vector(k: PresidentKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[[K_PLAYERS, K_EQUAL_HANDS, K_X_TOP, K_X_VICE, K_TDC_LEADS, K_PTS_P, K_PTS_VP, K_PTS_N,
       K_PTS_VT, K_PTS_T, K_DEALS, K_DEAL_TITLES, K_THIRD_PAIR, K_X_THIRD, K_PTS_VVP,
       K_PTS_VVT]] = [
        k.players, k.equal_hands, k.exchange_top, k.exchange_vice, k.tdc_leads,
        k.points_president, k.points_vice_president, k.points_neutral, k.points_vice_trou,
        k.points_trou, k.deals_per_match, k.deal_titles == "random", third_pair(k),
        k.exchange_third, k.points_vice_vice_president, k.points_vice_vice_trou]
    return v


def _rules(k: PresidentKnobs) -> np.ndarray:
    return sh.make_rules(equal_allowed=k.equal_play, equal_skips=k.equal_play_skips,
                         pass_locks_out=k.pass_locks_out, max_group=4, turn_cap=k.turn_cap,
                         revolution=4 if k.revolution else 0)


# --- titles ---------------------------------------------------------------------------
TITLES = ("president", "vice_president", "neutre", "vice_trou_du_cul", "trou_du_cul")
PRESIDENT, VICE_PRESIDENT, NEUTRE, VICE_TROU, TROU = range(5)
# roles_6p=third_pair adds two titles (codes 5, 6); only then do the title columns'
# labels include them
TITLES_THIRD_PAIR = (*TITLES, "vice_vice_president", "vice_vice_trou_du_cul")
VV_PRESIDENT, VV_TROU = 5, 6


def titles_of(k: PresidentKnobs) -> tuple[str, ...]:
    """The labels of the title codes these knobs hand out."""
    return TITLES_THIRD_PAIR if third_pair(k) else TITLES


@hot
def title_of(place: int, n: int, third: bool = False) -> int:
    """Title from a 1-based finishing place: 1st Président, 2nd Vice-Président, last Trou
    du cul, next to last Vice-Trou du cul, the middle (5-6 players) Neutre; with
    ``third`` (``roles_6p=third_pair`` at 6 players) the 3rd is the Vice-vice-Président
    and the 4th (the place above the Vice-Trou du cul) the Vice-vice-Trou du cul."""
    if place == 1:
        return PRESIDENT
    if place == 2:
        return VICE_PRESIDENT
    if place == n:
        return TROU
    if place == n - 1:
        return VICE_TROU
    if third and place == 3:
        return VV_PRESIDENT
    if third and place == n - 2:
        return VV_TROU
    return NEUTRE


@hot
def points_of(title: int, kv: np.ndarray) -> int:
    """Role points a title marks this deal."""
    if title == PRESIDENT:
        return kv[K_PTS_P]
    if title == VICE_PRESIDENT:
        return kv[K_PTS_VP]
    if title == NEUTRE:
        return kv[K_PTS_N]
    if title == VICE_TROU:
        return kv[K_PTS_VT]
    if title == VV_PRESIDENT:
        return kv[K_PTS_VVP]
    if title == VV_TROU:
        return kv[K_PTS_VVT]
    return kv[K_PTS_T]


# --- the state ------------------------------------------------------------------------
# g[0:sh.N_ST] is the shedding series vector (sh.ST_*); the game's own slots follow.
G_PHASE = sh.N_ST  # PH_*
G_PLY = G_PHASE + 1  # moves made this deal (exchange gifts and turns): keys search streams
G_NCARDS = G_PLY + 1  # cards dealt (52, or fewer with equal_hands: the rest stay hidden)
G_LEADER = G_NCARDS + 1  # seat that leads the first series
G_TROU = G_LEADER + 1  # the previous Trou du cul (-1 on a first deal)
G_PAIR = G_TROU + 1  # exchange in progress: 0 Président / Trou du cul, 1 the Vices
G_GIVER = G_PAIR + 1  # ... the seat that gave his best cards
G_TAKER = G_GIVER + 1  # ... the seat that now gives back cards of his choice
G_GIFTS = G_TAKER + 1  # ... cards he still has to give
G_EV = G_GIFTS + 1  # sh.EV_* event counts of the play
G_ORDER = G_EV + sh.N_EV  # [MAX_PLAYERS] order[k] = seat that went out k-th, -1
G_PLACE = G_ORDER + MAX_PLAYERS  # [MAX_PLAYERS] 1-based finishing place, 0 = still in
G_SIZE = G_PLACE + MAX_PLAYERS  # [MAX_PLAYERS] cards in hand (public)
G_PREV = G_SIZE + MAX_PLAYERS  # [MAX_PLAYERS] previous deal's places, 0 = a first deal
G_XPART = G_PREV + MAX_PLAYERS  # [MAX_PLAYERS] the seat's exchange partner, -1 = none
G_XCAP = G_XPART + MAX_PLAYERS  # [MAX_PLAYERS] highest rank the partner may hold besides
#                                 the cards of kmask (he gave his best cards), NO_CAP
N_G = G_XCAP + MAX_PLAYERS
NO_CAP = N_RANKS - 1

PH_EXCHANGE, PH_PLAY, PH_OVER = 1, 2, 3
PASS = -1


def new_state(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty state arrays (g, counts, played, masks, kmask) for ``n`` players."""
    return (np.zeros(N_G, dtype=np.int64), np.zeros((n, N_RANKS), dtype=np.int64),
            np.zeros((n, N_RANKS), dtype=np.int64), np.zeros(n, dtype=np.uint64),
            np.zeros(n, dtype=np.uint64))


@hot_inline
def play_move(r: int, k: int) -> int:
    """The move "play ``k`` cards of playing rank ``r``"."""
    return r * 8 + k


@hot_inline
def move_rank(m: int) -> int:
    return m >> 3


@hot_inline
def move_count(m: int) -> int:
    return m & 7


@hot
def copy_state(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
               kmask: np.ndarray, g2: np.ndarray, counts2: np.ndarray, played2: np.ndarray,
               masks2: np.ndarray, kmask2: np.ndarray) -> None:
    for i in range(N_G):
        g2[i] = g[i]
    for p in range(counts.shape[0]):
        masks2[p] = masks[p]
        kmask2[p] = kmask[p]
        for r in range(N_RANKS):
            counts2[p, r] = counts[p, r]
            played2[p, r] = played[p, r]


# --- the deal ---------------------------------------------------------------------------
@hot
def deal(deck: np.ndarray, n: int, dealer: int, equal_hands: bool, g: np.ndarray,
         masks: np.ndarray) -> None:
    """Deal the shuffled ``deck`` one card at a time clockwise from the dealer's left;
    when the cards do not divide evenly the first seats get one more, or (``equal_hands``)
    the last cards of the pack are not dealt (catalogue #4)."""
    n_cards = N_CARDS - N_CARDS % n if equal_hands else N_CARDS
    sh.deal_round_robin(deck, n_cards, n, (dealer + 1) % n, masks, g[G_SIZE:G_SIZE + n])
    g[sh.ST_N] = n
    g[G_NCARDS] = n_cards
    g[G_PLY] = 0


# --- the exchanges ----------------------------------------------------------------------
@hot
def start(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
          kmask: np.ndarray, dealer: int, prev: np.ndarray, kv: np.ndarray,
          rank_of: np.ndarray) -> None:
    """After the deal: ``prev`` = last deal's places (1-based; 0 = a first deal: no
    exchange, the dealer's left leads). With titles, the exchanges come first: the Trou du
    cul gives his best cards to the Président, who gives back as many of his choice
    (possibly some just received, catalogue #8); then the same, one card, between the
    Vice-Trou du cul and the Vice-Président (and, ``roles_6p=third_pair``, between the
    Vice-vice-Trou du cul and the Vice-vice-Président). The Trou du cul then leads
    (``tdc_leads``)."""
    n = g[sh.ST_N]
    g[G_LEADER] = (dealer + 1) % n
    g[G_TROU] = -1
    for p in range(n):
        g[G_PREV + p] = prev[p]
        g[G_XPART + p] = -1
        g[G_XCAP + p] = NO_CAP
        kmask[p] = EMPTY
        if prev[p] == n:
            g[G_TROU] = p
    if prev[0] > 0:
        if kv[K_TDC_LEADS]:
            g[G_LEADER] = g[G_TROU]
        g[G_PHASE] = PH_EXCHANGE
        _next_exchange(g, counts, played, masks, kmask, 0, kv, rank_of)
    else:
        _start_play(g, counts, played, masks, rank_of)


@hot
def _seat_with_place(g: np.ndarray, place: int) -> int:
    for p in range(g[sh.ST_N]):
        if g[G_PREV + p] == place:
            return p
    return -1


@hot
def _next_exchange(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
                   kmask: np.ndarray, pair: int, kv: np.ndarray, rank_of: np.ndarray) -> None:
    """Start exchange ``pair`` (0: Trou du cul -> Président, 1: Vice-Trou -> Vice, 2 with
    ``roles_6p=third_pair``: Vice-vice-Trou -> Vice-vice), or play when all are done:
    pair ``i`` is place ``n - i`` giving to place ``1 + i``. The giver's best cards move
    at once (no choice: the highest ranks, the lowest id between cards of one rank); the
    taker then owes as many gifts."""
    n = g[sh.ST_N]
    n_pairs = 3 if kv[K_THIRD_PAIR] else 2
    while pair < n_pairs:
        x = kv[K_X_TOP] if pair == 0 else kv[K_X_VICE] if pair == 1 else kv[K_X_THIRD]
        giver = _seat_with_place(g, n - pair)
        taker = _seat_with_place(g, 1 + pair)
        if x > 0 and giver >= 0 and taker >= 0:
            low = NO_CAP
            given = EMPTY
            for _ in range(x):
                c = sh.extreme_card(masks[giver], rank_of, True)
                sh.transfer(masks, giver, taker, c)
                given |= bit(c)
                low = min(low, rank_of[c])
            # what each of the two learns: the taker saw the giver's best cards (nothing
            # higher than the lowest of them is left with him); the giver knows his cards
            # are with the taker until some come back
            kmask[giver] = given
            kmask[taker] = EMPTY
            g[G_XPART + giver] = taker
            g[G_XPART + taker] = giver
            g[G_XCAP + taker] = low
            g[G_PAIR] = pair
            g[G_GIVER] = giver
            g[G_TAKER] = taker
            g[G_GIFTS] = x
            return
        pair += 1
    _start_play(g, counts, played, masks, rank_of)


@hot
def _start_play(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
                rank_of: np.ndarray) -> None:
    n = g[sh.ST_N]
    sh.counts_from_masks(masks, n, rank_of, counts, g[G_SIZE:G_SIZE + n])
    for p in range(n):
        for r in range(N_RANKS):
            played[p, r] = 0
    sh.start_play(g, g[G_EV:G_EV + sh.N_EV], n, g[G_LEADER], g[G_SIZE:G_SIZE + n],
                  g[G_ORDER:G_ORDER + n], g[G_PLACE:G_PLACE + n])
    g[G_PHASE] = PH_PLAY


# --- whose turn, legal moves ---------------------------------------------------------------
@hot
def to_move(g: np.ndarray) -> int:
    """The seat to decide: the taker owing a gift, the player to move; -1 when over."""
    if g[G_PHASE] == PH_EXCHANGE:
        return g[G_TAKER]
    if g[G_PHASE] == PH_PLAY:
        return g[sh.ST_TURN]
    return -1


@hot
def legal_moves(g: np.ndarray, counts: np.ndarray, masks: np.ndarray, rules: np.ndarray,
                rank_of: np.ndarray, out: np.ndarray) -> int:
    """Write the legal moves to ``out`` (room for 64); return how many.

    Exchange: any card of the taker's hand; suits never matter in play, so one card per
    rank is listed (the lowest id), lowest rank first. Play: a seat locked out of the
    series (``pass_locks_out``) may only pass; a lead is 1 to 4 cards of any rank held
    (lowest rank, then fewest cards first); a follow is a pass, then each rank that may
    be played with exactly as many cards as the table (``sh.is_legal``: higher in the
    order in force, or equal when ``equal_play``)."""
    if g[G_PHASE] == PH_EXCHANGE:
        n_out = 0
        seen = 0
        m = masks[g[G_TAKER]]
        # lowest rank first: scan ranks, take each rank's lowest-id card
        for r in range(N_RANKS):
            mm = m
            while mm != EMPTY:
                c = lowest(mm)
                mm &= mm - ONE
                if rank_of[c] == r and not (seen >> r) & 1:
                    seen |= 1 << r
                    out[n_out] = c
                    n_out += 1
        return n_out
    if g[G_PHASE] != PH_PLAY:
        return 0
    p = g[sh.ST_TURN]
    if (g[sh.ST_LOCKED] >> p) & 1:
        out[0] = PASS
        return 1
    row = counts[p]
    need = g[sh.ST_NEED]
    rev = g[sh.ST_REV] != 0
    n_out = 0
    if need == 0:
        for r in range(N_RANKS):
            for k in range(1, min(row[r], rules[sh.RU_MAX_GROUP]) + 1):
                out[n_out] = play_move(r, k)
                n_out += 1
        return n_out
    out[0] = PASS
    n_out = 1
    for r in range(N_RANKS):
        if sh.is_legal(row, g[sh.ST_TOP], need, r, need, rules, rev):
            out[n_out] = play_move(r, need)
            n_out += 1
    return n_out


# --- applying a move ----------------------------------------------------------------------
@hot_inline
def apply_move(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
               kmask: np.ndarray, kv: np.ndarray, rules: np.ndarray, rank_of: np.ndarray,
               move: int) -> None:
    """The seat ``to_move`` makes ``move`` (legal): a gift in the exchange, a play or a
    pass in play (``_apply_turn``)."""
    if g[G_PHASE] == PH_EXCHANGE:
        _apply_gift(g, counts, played, masks, kmask, kv, rank_of, move)
    else:
        _apply_turn(g, counts, played, rules, move)


@hot
def _apply_gift(g: np.ndarray, counts: np.ndarray, played: np.ndarray, masks: np.ndarray,
                kmask: np.ndarray, kv: np.ndarray, rank_of: np.ndarray, c: int) -> None:
    """The taker gives card ``c`` back to the giver; after the last gift of a pair, the
    next exchange (or play) starts."""
    g[G_PLY] += 1
    giver = g[G_GIVER]
    taker = g[G_TAKER]
    sh.transfer(masks, taker, giver, c)
    kmask[taker] |= bit(c)  # the taker knows where his gift is
    kmask[giver] &= ~bit(c)  # a card the giver gets back is no longer the taker's
    g[G_GIFTS] -= 1
    if g[G_GIFTS] == 0:
        _next_exchange(g, counts, played, masks, kmask, g[G_PAIR] + 1, kv, rank_of)


@hot_inline
def _apply_turn(g: np.ndarray, counts: np.ndarray, played: np.ndarray, rules: np.ndarray,
                move: int) -> None:
    """A turn of play, by the series rule of ``simlab.mechanics.shedding`` (an equal rank skips the
    next player, the series ends when all others let it go, the last player leads the
    next one); the deal is over when one player holds cards, or when the turn cap stops
    it (the players still in then finish by fewest cards)."""
    g[G_PLY] += 1
    n = g[sh.ST_N]
    ev = g[G_EV:G_EV + sh.N_EV]
    sizes = g[G_SIZE:G_SIZE + n]
    p = g[sh.ST_TURN]
    ev[sh.EV_TURNS] += 1
    if move == PASS:
        sh.apply_pass(g, ev, sizes, p, rules)
    else:
        r = move_rank(move)
        k = move_count(move)
        played[p, r] += k
        sh.apply_play(g, ev, counts, sizes, g[G_ORDER:G_ORDER + n], g[G_PLACE:G_PLACE + n], p,
                      r, k, rules)
    if g[sh.ST_LEFT] <= 1:
        g[G_PHASE] = PH_OVER
    elif ev[sh.EV_TURNS] >= rules[sh.RU_CAP]:
        ev[sh.EV_CAPPED] = 1
        sh.finish_by_cards(g, sizes, g[G_ORDER:G_ORDER + n], g[G_PLACE:G_PLACE + n])
        g[G_PHASE] = PH_OVER


# --- the score --------------------------------------------------------------------------
@hot
def score(g: np.ndarray, kv: np.ndarray, seat: int) -> int:
    """Role points ``seat`` marks for its finishing place (a finished deal)."""
    return points_of(title_of(g[G_PLACE + seat], g[sh.ST_N], kv[K_THIRD_PAIR] != 0), kv)
