"""Le cartawel rules: deck, knobs, the state and its two phases, laying and sowing (seed
004 "le cartawel"; catalogue ``cartawel.md``).

The book: "chaque joueur prend une couleur complète (♦ ou ♣ par exemple). On tire au sort
celui qui posera la première carte. A tour de rôle, les joueurs jouent les cartes de leur
choix, une à une, de manière à réaliser un cercle, comme si chaque carte occupait une
« heure » sur une horloge. Au cours de cette première partie de la pose, chaque carte doit
être seule sur son « heure ». Ensuite, quand les 12 premières cartes occupent chacune un
emplacement, les joueurs continuent de poser une à une leurs cartes, mais de manière
qu'aucun paquet ne compte plus de trois cartes." Then the sowing: "Celui qui doit jouer
peut prendre le paquet de son choix, pourvu qu'il contienne au moins une carte à sa
couleur (...), puis les distribuer une à une sur les paquets suivants, dans le sens des
aiguilles d'une montre. Le joueur choisit la carte qu'il pose sur chaque paquet (...). Il
ramasse toutes les cartes qui se trouvent là où est tombée la dernière de son semis si :
1. le paquet contient 2 ou 3 cartes (ni plus, ni moins) ; 2. la plus forte carte du
paquet est de sa couleur ; (en cas d'égalité avec une carte adverse, le paquet n'est pas
ramassé). (...) Le joueur ramasse également les paquets précédents (en sens inverse des
aiguilles d'une montre) s'ils remplissent les mêmes conditions. La partie prend fin dès
qu'il n'est plus possible de faire un pli (...) les figures (Roi, Dame, Valet) et les As
valent 20 points ; toutes les autres cartes valent les points qu'elles indiquent."

Seat 0 holds the ♦ (card ids 0..12, 2..A), seat 1 the ♣ (ids 13..25). A pile is a set of
cards (a bit mask over the 26 ids): the order inside a pile never matters. The state is
one int64 array (``S_*`` offsets): the piles, both hands (cards not yet laid), points,
captures, who is to move, counters and the positions seen since the last capture (for
the repetition end).

A move is an int64 array ``[kind, position, k, card_1 .. card_k]``: ``LAY`` one card onto
a position, or ``SOW`` the pile at ``position`` whose k cards go, in that order, onto the
following piles clockwise.

Where the book is silent (catalogue resolutions, each a knob): the Ace ranks high; the
first layer also sows first (the alternation simply continues); a pile of 12 cards or
more skips its own emptied position (awélé); the chain goes back over the piles sown this
turn only; the end "dès qu'il n'est plus possible de faire un pli" is: the player to move
has no pile holding his suit, or ``no_capture_limit`` sowing moves in a row capture
nothing, or a position recurs ``repetition_limit`` times. ``move_cap`` sowing moves is a
stall guard only: a game stopped there is a draw, and its row says so (``end_reason``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import CLUBS, DIAMONDS, RANKS_52, SUITS, CardKind, Deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics.two_seat import (  # noqa: F401 (the match columns, re-exported)
    M_DRAWN,
    M_FINAL,
    M_MATCH,
    M_N_DEALS,
    M_WINNER,
    N_MATCH_COLS,
    two_game_match_columns,
)

# --- deck -----------------------------------------------------------------------------
DECK = Deck("26_cartawel", "the 13 ♦ and the 13 ♣ of a 52-card pack (Le cartawel)",
            tuple(CardKind(s, r, f"{r}{SUITS[s]}") for s in (DIAMONDS, CLUBS)
                  for r in RANKS_52))
PLAYERS = 2
RANKS = 13
N_CARDS = 26
MAX_POS = 12
MAX_HIST = 201  # positions remembered since the last capture (no_capture_limit <= 200)

CHAIN_SCOPES = ("sown", "any")
SOW_ORDER_SETS = ("candidates", "all")
ROLLOUTS = ("heuristic", "random")
SEARCH_PHASES = ("both", "laying", "sowing")
END_REASONS = ("no_move", "no_capture_limit", "repetition", "move_cap")
(END_NONE, END_NO_MOVE, END_QUIET, END_REPEAT, END_CAP) = (-1, 0, 1, 2, 3)


@dataclass(frozen=True)
class CartawelKnobs(Knobs):
    positions: int = knob(12, "positions on the circle, the 'hours' of the clock (seed: 12); "
                          "the first this many cards each go alone on one", lo=9, hi=MAX_POS)
    lay_cap: int = knob(3, "most cards a pile may hold while laying (seed: 'aucun paquet ne "
                        "compte plus de trois cartes')", lo=2, hi=6)
    capture_min: int = knob(2, "smallest pile the last sown card may capture (seed: 2)",
                            lo=1, hi=6)
    capture_max: int = knob(3, "largest pile the last sown card may capture (seed: 3, 'ni "
                            "plus, ni moins')", lo=1, hi=8)
    ace_high: bool = knob(True, "the Ace ranks above the King (false: below the 2) for "
                          "'la plus forte carte'", seed_value="either", seed_case="silent",
                          seed_why="the book gives the Ace 20 points but never its rank; "
                                   "its value suggests a top card (catalogue #1)")
    figure_ace_points: int = knob(20, "points of a J, Q, K or A (seed: 20); 2..10 score "
                                  "their face value", lo=0, hi=100)
    chain_scope: str = knob("sown", "which previous piles the capture chain may take: only "
                            "piles sown this turn (sown), or any pile counter-clockwise "
                            "(any); both take the same piles, since the sown piles are "
                            "always the arc after the emptied origin", choices=CHAIN_SCOPES,
                            seed_value="either", seed_case="silent",
                            seed_why="'les paquets précédents' does not say whether only "
                                     "the sown piles count; the awélé convention is the "
                                     "sown ones (catalogue #4), the seed's example fits both")
    origin_skip: bool = knob(True, "a pile of 12 cards or more skips its own emptied "
                             "position when sown (awélé)", seed_value="either",
                             seed_case="silent",
                             seed_why="the book never says what a pile of 12 or more does "
                                      "when it comes round; awélé skips the origin "
                                      "(catalogue #3)")
    no_capture_limit: int = knob(20, "the game ends after this many sowing moves in a row "
                                 "without a capture", lo=2, hi=MAX_HIST - 1,
                                 seed_value="when no capture is possible any more",
                                 seed_case="unplayable",
                                 seed_why="'dès qu'il n'est plus possible de faire un pli' "
                                          "cannot be decided in play (cards keep moving); "
                                          "the catalogue (#5) ends the game after 20 quiet "
                                          "moves, a repetition, or no move")
    repetition_limit: int = knob(3, "the game ends when a position (piles and player to "
                                 "move) occurs this many times since the last capture",
                                 lo=2, hi=10, seed_value="when no capture is possible any more",
                                 seed_case="unplayable",
                                 seed_why="see no_capture_limit: the catalogue's reading "
                                          "(#5) of the book's vague end")
    move_cap: int = knob(1000, "stall guard: a game still running after this many sowing "
                         "moves is stopped and counted a draw (end_reason move_cap)",
                         lo=10, hi=100_000)
    score_leftovers: bool = knob(False, "each player also scores his own suit's cards left "
                                 "on the circle at the end", seed_value=False)
    # players (players.py), each seat may have its own (minimax:minimax_depth=4)
    minimax_depth: int = knob(2, "minimax player: plies searched (alpha-beta)", lo=1, hi=8,
                              policy=True)
    mcts_iterations: int = knob(200, "mcts player: tree iterations per decision", lo=1,
                                hi=100_000, policy=True)
    mcts_playouts: int = knob(1, "mcts player: playouts per expanded node", lo=1, hi=64,
                              policy=True)
    mcts_rollout: str = knob("heuristic", "mcts player: the policy of its playouts",
                             choices=ROLLOUTS, policy=True)
    sow_orders: str = knob("candidates", "orders of the sown cards the minimax and mcts "
                           "players consider: up to 3 cards every order, above that for "
                           "each card last the greedy order (candidates), or every order "
                           "(all, k! for a pile of k)", choices=SOW_ORDER_SETS, policy=True)
    lay_cards: str = knob("candidates", "cards the minimax and mcts players consider "
                          "laying: the lowest, the highest, the lowest figure or Ace and the "
                          "highest pip card (candidates), or every card (all)",
                          choices=SOW_ORDER_SETS, policy=True)
    search_phase: str = knob("both", "the phases the minimax and mcts players search; in "
                             "the other they play as the heuristic (the catalogue's "
                             "question 2: laying against sowing)", choices=SEARCH_PHASES,
                             policy=True)
    heuristic_protect: bool = knob(True, "heuristic player: once every position holds a "
                                   "card, lay its highest card on the pile holding the most "
                                   "opponent points that card tops (false: always its "
                                   "lowest card on a random legal pile)", policy=True)

    def check(self) -> None:
        if self.capture_min > self.capture_max:
            raise SimlabError(f"capture_min={self.capture_min} exceeds capture_max="
                              f"{self.capture_max}; need capture_min <= capture_max")
        if self.positions * self.lay_cap < N_CARDS:
            raise SimlabError(f"positions={self.positions} x lay_cap={self.lay_cap} holds "
                              f"fewer than the {N_CARDS} cards; need positions * lay_cap >= 26")


# Knob vector for the kernels (rules and, per seat, the players' knobs).
(KV_POS, KV_LAY_CAP, KV_CAP_MIN, KV_CAP_MAX, KV_ACE_HIGH, KV_FIG_PTS, KV_CHAIN_ANY,
 KV_ORIGIN_SKIP, KV_QUIET, KV_REPEAT, KV_MOVE_CAP, KV_LEFTOVERS, KV_DEPTH, KV_ITER,
 KV_PLAYOUTS, KV_ROLLOUT_RANDOM, KV_ALL_ORDERS, KV_ALL_LAYS, KV_PROTECT, KV_SEARCH_PHASE,
 KV_SIZE) = range(21)


def knob_vector(k: CartawelKnobs) -> np.ndarray:
    return np.array([k.positions, k.lay_cap, k.capture_min, k.capture_max, int(k.ace_high),
                     k.figure_ace_points, int(k.chain_scope == "any"), int(k.origin_skip),
                     k.no_capture_limit, k.repetition_limit, k.move_cap,
                     int(k.score_leftovers), k.minimax_depth, k.mcts_iterations,
                     k.mcts_playouts, int(k.mcts_rollout == "random"),
                     int(k.sow_orders == "all"), int(k.lay_cards == "all"),
                     int(k.heuristic_protect), SEARCH_PHASES.index(k.search_phase)],
                    dtype=np.int64)


def card_id(seat: int, rank: str) -> int:
    """Deck id of seat ``seat``'s card of ``rank`` ("2".."A")."""
    return seat * RANKS + RANKS_52.index(rank)


def card_name(c: int) -> str:
    return DECK.kinds[c].label


# --- state ----------------------------------------------------------------------------
S_PILE = 0
S_HAND = MAX_POS  # 2 masks
S_POINTS = S_HAND + 2
S_CAPTURES = S_POINTS + 2  # piles captured
S_CARDS_TAKEN = S_CAPTURES + 2  # cards captured
S_TO_MOVE = S_CARDS_TAKEN + 2
S_FIRST = S_TO_MOVE + 1
S_LAID = S_FIRST + 1
S_SOWS = S_LAID + 1
S_QUIET = S_SOWS + 1
S_OVER = S_QUIET + 1
S_END = S_OVER + 1
S_BEST_CAPTURE = S_END + 1  # the largest single move's capture value (either seat)
S_NHIST = S_BEST_CAPTURE + 1
S_HIST = S_NHIST + 1
N_ST = S_HIST + MAX_HIST
N_KEY = N_ST  # the search's key: the whole state

LAY, SOW = 0, 1
M_KIND, M_POS, M_K, M_CARDS = 0, 1, 2, 3
MOVE_LEN = M_CARDS + N_CARDS
ALL_CARDS = (1 << N_CARDS) - 1
SEAT_MASK = ((1 << RANKS) - 1, ((1 << RANKS) - 1) << RANKS)


@hot
def popcount(m: np.int64) -> np.int64:
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@hot
def owner(c: np.int64) -> np.int64:
    return c // RANKS


@hot
def strength(c: np.int64, ace_high: np.int64) -> np.int64:
    """The card's place in 'la plus forte carte' (higher is stronger; suits never count)."""
    r = c % RANKS
    if ace_high == 0 and r == RANKS - 1:
        return -1
    return r


@hot
def points(c: np.int64, fig_pts: np.int64) -> np.int64:
    """2..10 their face value, J Q K A ``figure_ace_points`` (seed: 20)."""
    r = c % RANKS
    return r + 2 if r <= 8 else fig_pts


@hot
def mask_points(m: np.int64, fig_pts: np.int64) -> np.int64:
    s = 0
    for c in range(N_CARDS):
        if (m >> c) & 1:
            s += points(c, fig_pts)
    return s


@hot
def seat_mask(seat: np.int64) -> np.int64:
    return ((1 << RANKS) - 1) << (RANKS * seat)


@hot
def capturable(m: np.int64, seat: np.int64, kv: np.ndarray) -> bool:
    """The book's two conditions: 2 or 3 cards, and the strongest card the seat's, strictly
    above every opponent card (a tie with an opponent card blocks)."""
    n = popcount(m)
    if n < kv[KV_CAP_MIN] or n > kv[KV_CAP_MAX]:
        return False
    mine = -2
    theirs = -2
    for c in range(N_CARDS):
        if (m >> c) & 1:
            s = strength(c, kv[KV_ACE_HIGH])
            if owner(c) == seat:
                if s > mine:
                    mine = s
            elif s > theirs:
                theirs = s
    return mine > -2 and mine > theirs


@hot
def new_game(st: np.ndarray, first: np.int64) -> None:
    for i in range(N_ST):
        st[i] = 0
    st[S_HAND] = seat_mask(0)
    st[S_HAND + 1] = seat_mask(1)
    st[S_TO_MOVE] = first
    st[S_FIRST] = first
    st[S_END] = END_NONE


@hot
def set_board(st: np.ndarray, piles: np.ndarray, to_move: np.int64) -> None:
    """A hand-built sowing position: ``piles[q]`` the card mask of position q, every card
    laid, nothing captured yet."""
    for i in range(N_ST):
        st[i] = 0
    for q in range(piles.shape[0]):
        st[S_PILE + q] = piles[q]
    st[S_TO_MOVE] = to_move
    st[S_FIRST] = to_move
    st[S_LAID] = N_CARDS
    st[S_END] = END_NONE


@hot
def laying(st: np.ndarray) -> bool:
    return st[S_HAND] != 0 or st[S_HAND + 1] != 0


@hot
def lay_legal(st: np.ndarray, kv: np.ndarray, c: np.int64, q: np.int64) -> bool:
    """The first ``positions`` cards each alone on an empty position; afterwards any pile
    below ``lay_cap`` cards. The card must be the mover's and still in his hand."""
    seat = st[S_TO_MOVE]
    if q < 0 or q >= kv[KV_POS] or c < 0 or c >= N_CARDS:
        return False
    if (st[S_HAND + seat] >> c) & 1 == 0:
        return False
    n = popcount(st[S_PILE + q])
    if st[S_LAID] < kv[KV_POS]:
        return n == 0
    return n < kv[KV_LAY_CAP]


@hot
def sow_legal(st: np.ndarray, kv: np.ndarray, mv: np.ndarray) -> bool:
    """A pile holding a card of the mover's suit; the order is exactly its cards, each once."""
    seat = st[S_TO_MOVE]
    q = mv[M_POS]
    if laying(st) or q < 0 or q >= kv[KV_POS]:
        return False
    m = st[S_PILE + q]
    if m & seat_mask(seat) == 0:
        return False
    k = mv[M_K]
    if k != popcount(m):
        return False
    seen = 0
    for i in range(k):
        c = mv[M_CARDS + i]
        if c < 0 or c >= N_CARDS or (m >> c) & 1 == 0 or (seen >> c) & 1:
            return False
        seen |= 1 << c
    return True


@hot
def is_legal(st: np.ndarray, kv: np.ndarray, mv: np.ndarray) -> bool:
    if st[S_OVER] != 0:
        return False
    if mv[M_KIND] == LAY:
        return laying(st) and mv[M_K] == 1 and lay_legal(st, kv, mv[M_CARDS], mv[M_POS])
    return mv[M_KIND] == SOW and sow_legal(st, kv, mv)


@hot
def next_pos(q: np.int64, origin: np.int64, kv: np.ndarray) -> np.int64:
    """The following position clockwise, skipping the emptied origin (awélé) when the knob
    says so (it only matters for a pile of ``positions`` cards or more)."""
    q = (q + 1) % kv[KV_POS]
    if q == origin and kv[KV_ORIGIN_SKIP] != 0:
        q = (q + 1) % kv[KV_POS]
    return q


@hot
def position_hash(st: np.ndarray) -> np.int64:
    h = np.uint64(0x9E3779B97F4A7C15) * np.uint64(st[S_TO_MOVE] + 1)
    for q in range(MAX_POS):
        h = (h ^ np.uint64(st[S_PILE + q])) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@hot
def sow_gain(st: np.ndarray, kv: np.ndarray, mv: np.ndarray, work: np.ndarray) -> np.int64:
    """Points the sowing move would capture, ``st`` unchanged (``work``: scratch of at
    least ``MAX_POS``)."""
    seat = st[S_TO_MOVE]
    for q in range(kv[KV_POS]):
        work[q] = st[S_PILE + q]
    origin = mv[M_POS]
    work[origin] = 0
    q = origin
    sown = 0
    for i in range(mv[M_K]):
        q = next_pos(q, origin, kv)
        work[q] |= np.int64(1) << mv[M_CARDS + i]
        sown |= 1 << q
    return chain_gain(work, 0, q, sown, seat, kv) // CHAIN_CODE


CHAIN_CODE = 1 << 12  # chain_gain's result: points * CHAIN_CODE + cards * 32 + piles


@hot
def chain_gain(piles: np.ndarray, base: np.int64, last: np.int64, sown: np.int64,
               seat: np.int64, kv: np.ndarray) -> np.int64:
    """The capture test on the last sown pile, then on the previous piles counter-clockwise
    while it holds; with ``chain_scope=sown`` only piles that received a card this turn
    (bit q of ``sown``) may be taken. Pile q is ``piles[base + q]``; the captured piles
    are emptied. Returns points * CHAIN_CODE + cards * 32 + piles.

    The sown piles are always the arc just clockwise of the emptied origin (a pile of
    ``positions`` cards or more sows every position), so walking back from the last one
    meets the empty origin before any pile not sown: both scopes take the same piles."""
    total = 0
    n_cards = 0
    n_piles = 0
    P = kv[KV_POS]
    q = last
    for _ in range(P):
        if kv[KV_CHAIN_ANY] == 0 and (sown >> q) & 1 == 0:
            break
        m = piles[base + q]
        if not capturable(m, seat, kv):
            break
        total += mask_points(m, kv[KV_FIG_PTS])
        n_cards += popcount(m)
        n_piles += 1
        piles[base + q] = 0
        q = (q - 1 + P) % P
    return total * CHAIN_CODE + n_cards * 32 + n_piles


@hot
def apply_move(st: np.ndarray, kv: np.ndarray, mv: np.ndarray) -> np.int64:
    """Play a legal move; returns the points captured (0 while laying)."""
    seat = st[S_TO_MOVE]
    gained = 0
    if mv[M_KIND] == LAY:
        c = mv[M_CARDS]
        st[S_PILE + mv[M_POS]] |= np.int64(1) << c
        st[S_HAND + seat] &= ~(np.int64(1) << c)
        st[S_LAID] += 1
    else:
        origin = mv[M_POS]
        st[S_PILE + origin] = 0
        q = origin
        sown = 0
        for i in range(mv[M_K]):
            q = next_pos(q, origin, kv)
            st[S_PILE + q] |= np.int64(1) << mv[M_CARDS + i]
            sown |= 1 << q
        code = chain_gain(st, S_PILE, q, sown, seat, kv)
        gained = code // CHAIN_CODE
        n_piles = code % 32
        st[S_SOWS] += 1
        if n_piles > 0:
            st[S_POINTS + seat] += gained
            st[S_CAPTURES + seat] += n_piles
            st[S_CARDS_TAKEN + seat] += (code // 32) % (CHAIN_CODE // 32)
            if gained > st[S_BEST_CAPTURE]:
                st[S_BEST_CAPTURE] = gained
            st[S_QUIET] = 0
            st[S_NHIST] = 0
        else:
            st[S_QUIET] += 1
    st[S_TO_MOVE] = 1 - seat
    check_end(st, kv)
    return gained


@hot
def has_move(st: np.ndarray, kv: np.ndarray, seat: np.int64) -> bool:
    mine = seat_mask(seat)
    for q in range(kv[KV_POS]):
        if st[S_PILE + q] & mine:
            return True
    return False


@hot
def check_end(st: np.ndarray, kv: np.ndarray) -> None:
    if laying(st):
        return
    if not has_move(st, kv, st[S_TO_MOVE]):
        st[S_OVER] = 1
        st[S_END] = END_NO_MOVE
        return
    if st[S_SOWS] == 0:
        return
    if st[S_QUIET] >= kv[KV_QUIET]:
        st[S_OVER] = 1
        st[S_END] = END_QUIET
        return
    h = position_hash(st)
    seen = 1
    n = st[S_NHIST]
    for i in range(n):
        if st[S_HIST + i] == h:
            seen += 1
    if n < MAX_HIST:
        st[S_HIST + n] = h
        st[S_NHIST] = n + 1
    if seen >= kv[KV_REPEAT]:
        st[S_OVER] = 1
        st[S_END] = END_REPEAT
        return
    if st[S_SOWS] >= kv[KV_MOVE_CAP]:
        st[S_OVER] = 1
        st[S_END] = END_CAP


@hot
def final_points(st: np.ndarray, kv: np.ndarray, seat: np.int64) -> np.int64:
    """Captured points, plus (``score_leftovers``) the seat's own cards left on the circle."""
    s = st[S_POINTS + seat]
    if kv[KV_LEFTOVERS] != 0:
        mine = seat_mask(seat)
        for q in range(kv[KV_POS]):
            s += mask_points(st[S_PILE + q] & mine, kv[KV_FIG_PTS])
    return s


@hot
def winner_of(st: np.ndarray, kv: np.ndarray) -> np.int64:
    """More points wins; equal points, or a game stopped by the stall guard, is drawn (-1)."""
    if st[S_END] == END_CAP:
        return -1
    a = final_points(st, kv, 0)
    b = final_points(st, kv, 1)
    if a > b:
        return 0
    if b > a:
        return 1
    return -1


@hot
def left_points(st: np.ndarray, kv: np.ndarray) -> np.int64:
    m = 0
    for q in range(kv[KV_POS]):
        m |= st[S_PILE + q]
    return mask_points(m, kv[KV_FIG_PTS])


# --- result columns -------------------------------------------------------------------
(C_DEAL, C_SCORE, C_WINNER, C_DRAW, C_RESULT, C_FIRST, C_FIRST_WON, C_LENGTH, C_CAPTURES,
 C_CARDS_TAKEN, C_LEFT, C_BEST, C_END, C_STALLED, N_DEAL_COLS) = (
    0, 1, 3, 4, 5, 6, 7, 8, 9, 11, 13, 14, 15, 16, 17)


def deal_columns(k: CartawelKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("score_s0", help="points captured by seat 0 (♦)"),
            Column("score_s1", help="points captured by seat 1 (♣)"),
            Column("winner", help="seat with more points, -1 = drawn (equal points, or "
                                  "stopped by the move cap)"),
            Column("draw", BOOL, help="drawn game"),
            Column("result_s0", help="seat 0's result: +1 won, 0 drawn, -1 lost"),
            Column("first_player", help="seat that won the lot: it lays the first card "
                                        "and sows first"),
            Column("first_player_result", help="the first player's result: +1 won, 0 "
                                               "drawn, -1 lost"),
            Column("length", help="sowing moves played (the laying phase is always 26)"),
            Column("captures_s0", help="piles captured by seat 0"),
            Column("captures_s1", help="piles captured by seat 1"),
            Column("cards_taken_s0", help="cards captured by seat 0"),
            Column("cards_taken_s1", help="cards captured by seat 1"),
            Column("points_left", help="points of the cards left on the circle at the end "
                                       "(of 268 with the book's values)"),
            Column("best_capture", help="the largest single move's capture, in points"),
            Column("end_reason", END_REASONS, help="why the game ended: the player to "
                   "move had no pile of his suit, the no-capture limit, a repetition, or "
                   "the move cap (a stall guard: a draw)"),
            Column("stalled", BOOL, help="stopped by the move cap and counted a draw")]


def match_columns(k: CartawelKnobs | None = None) -> list[Column]:
    return two_game_match_columns("games played (2: each seat wins the lot once)")
