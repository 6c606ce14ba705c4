"""Progression rules: deck, knobs, the field as a grid of cells, the state of a game and
its steps (seed 004 "progression"; catalogue ``progression.md``).

The book: "il s'agit de tracer une route composée de cartes, de manière qu'elle relie une
carte de départ et une carte d'arrivée. Les pions se déplacent de carte en carte comme
s'il s'agissait de cases. Le but du jeu est d'être le premier à poser son pion sur la
carte d'arrivée." Deal: 18 cards each, the rest is the talon, face up; its top card is
the start card (both pawns on it), its last card, face down about 50 cm away, the
arrival card ("sa valeur n'a pas d'incidence sur le jeu"). A turn, the dealer's opponent
first: 1. take the talon's top card; 2. place a card on the field; 3. move one's pawn, if
one wishes, to an adjacent card (sharing a side; both pawns may share a card); 4. discard
a card face down. "Si un joueur ne peut pas poser de carte sur le terrain, il doit
néanmoins rejeter une carte à la défausse. Son tour est alors terminé". "Quand il n'y a
plus de cartes au talon, les cartes de la défausse deviennent immédiatement celles d'un
nouveau talon, en les mettant faces visibles."

Placement ("bord à bord", never overlapping except the arrival card): in line
("dans le prolongement") with a card of the same suit and rank one above or below; at
right angles ("perpendiculairement") to a card of the same rank; every contact must obey
these rules.

The grid (catalogue ambiguity 1; the book's field is continuous, its Figure 5 is lost):
a card fills one cell (x, y) and lies ``H`` (long axis east-west) or ``V``. A neighbour
cell along a card's axis takes only a card of its suit, rank +-1, the same orientation;
a neighbour across its axis takes only a card of its rank with the other orientation.
The start card is at (0, 0), the arrival at (``arrival_distance``, ``arrival_offset``).
The arrival is a card: a pawn may step onto it from a card sharing a side, and a card may
be laid over it (the only overlap); its value is irrelevant, so it constrains nothing and
is no anchor for a placement. A rank's order is A 2 .. 10 J Q K (A-2 adjacent, K-A not:
knob ``wrap``).

State: one flat int64 vector (``S_*`` slots, then the talon, the discards, the placed
cells, the touched cells, who discarded each card, then four grid planes: the card in a
cell, the cards each orientation may still take there, and whether a placed card touches
it). Hands are 52-bit masks. Grid planes are written only at touched cells, so copying or
clearing a state costs the touched cells, not the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search

# --- deck ------------------------------------------------------------------------------
# Deck "52": id = suit * 13 + i, i indexing 2 3 .. 10 J Q K A; the book's order of ranks
# puts the Ace below the 2, so a card's order is (i + 1) % 13 (A = 0, 2 = 1, .. K = 12).
DECK = get_deck("52")
N_CARDS = 52
ALL_CARDS = (1 << N_CARDS) - 1
PLAYERS = 2
H, V = 0, 1
ORIENTS = ("H", "V")


def _order(c: int) -> int:
    return (c % 13 + 1) % 13


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    along = np.zeros(N_CARDS, dtype=np.int64)
    along_wrap = np.zeros(N_CARDS, dtype=np.int64)
    same = np.zeros(N_CARDS, dtype=np.int64)
    for c in range(N_CARDS):
        for d in range(N_CARDS):
            if d == c:
                continue
            if d // 13 == c // 13:
                diff = abs(_order(c) - _order(d))
                if diff == 1:
                    along[c] |= 1 << d
                if diff in (1, 12):
                    along_wrap[c] |= 1 << d
            elif d % 13 == c % 13:
                same[c] |= 1 << d
    return along, along_wrap, same


# ALONG[c]: the cards that may continue c in line; SAME_RANK[c]: at right angles.
ALONG, ALONG_WRAP, SAME_RANK = _tables()

# --- grid ------------------------------------------------------------------------------
# At most 52 cards are ever placed, so every placed card lies within 52 steps of the start
# cell; a knob-placed arrival lies within MAX_DISTANCE. Cell = (x + OFF) * W + (y + OFF).
MAX_DISTANCE = 30
OFF = 54
W = 2 * OFF + 1
NC = W * W
DIRS = np.array([W, -W, 1, -1], dtype=np.int64)  # east, west, north, south


def cell_of(x: int, y: int) -> int:
    return (x + OFF) * W + (y + OFF)


def xy_of(cell: int) -> tuple[int, int]:
    return cell // W - OFF, cell % W - OFF


# --- knobs -----------------------------------------------------------------------------
ENTRIES = ("adjacent", "covered")
DRAW_RULES = ("draw", "nearer")


@dataclass(frozen=True)
class ProgressionKnobs(Knobs):
    hand_size: int = knob(18, "cards dealt to each player (seed: 'dix-huit par joueur'); "
                          "the talon gets the rest", lo=3, hi=24)
    arrival_distance: int = knob(6, "cells from the start card to the arrival card along "
                                 "the x axis (the book: about 50 cm, 5.7 card lengths)",
                                 lo=2, hi=MAX_DISTANCE, seed_value="50 cm",
                                 seed_case="silent",
                                 seed_why="the book's field is continuous (50 cm, any "
                                          "orientation); the grid needs a whole number of "
                                          "cells (catalogue #1, #9)")
    arrival_offset: int = knob(0, "cells the arrival lies off the start card's row (y)",
                               lo=-MAX_DISTANCE, hi=MAX_DISTANCE, seed_value="any",
                               seed_case="silent",
                               seed_why="the book places the arrival 50 cm away in no "
                                        "stated direction (catalogue #9: straight ahead)")
    start_orientation: str = knob("H", "the start card's long axis: H points at the "
                                  "arrival (x axis), V across it", choices=ORIENTS,
                                  seed_value="any", seed_case="silent",
                                  seed_why="the dealer lays the start card next to the "
                                           "talon in no stated orientation (catalogue #1)")
    place_compulsory: bool = knob(True, "a player who can place a card must (false: he may "
                                  "pass the placement)", seed_value=True)
    wrap: bool = knob(False, "K and A are consecutive in line (false: A 2 .. K, A-2 only)",
                      seed_value="either", seed_case="silent",
                      seed_why="the book says 'rang immédiatement inférieur ou supérieur' "
                               "without an order of ranks; A low without wrap "
                               "(catalogue #6)")
    pawn_steps: int = knob(1, "cards a pawn may move per turn (seed: 'vers une carte "
                           "adjacente')", lo=1, hi=6, seed_value=1)
    move_without_placement: bool = knob(False, "a player who could not place may still "
                                        "move his pawn (seed: 'Son tour est alors "
                                        "terminé': no)", seed_value=False)
    arrival_entry: str = knob("adjacent", "a pawn enters the arrival card from any card "
                              "sharing a side with it (adjacent), or only once a card "
                              "covers it (covered)", choices=ENTRIES, seed_value="adjacent")
    draw_rule: str = knob("draw", "a game that cannot end (no card can ever be placed "
                          "again, or the turn cap) is a draw, or won by the pawn nearer "
                          "the arrival in grid steps (nearer)", choices=DRAW_RULES,
                          seed_value="no end", seed_case="unplayable",
                          seed_why="the book ends only at the arrival; once no card in "
                                   "play fits the field no pawn can move and the game "
                                   "never ends (catalogue #2)")
    max_turns: int = knob(1000, "turn cap: the game stops as drawn (by draw_rule) after "
                          "this many turns (counted in the rows as capped)", lo=10,
                          hi=100_000, seed_value="no cap", seed_case="unplayable",
                          seed_why="the book has no end besides the arrival; a cap keeps "
                                   "every simulated game finite (never reached in "
                                   "practice: placements stop at 50)")
    match_games: int = knob(1, "match: games played (the book scores no match: one game); "
                            "the match goes to the player who won more of them", lo=1,
                            hi=999)
    # players (players.py)
    block_weight: float = knob(0.5, "heuristic: weight of the opponent's distance to the "
                               "arrival against one's own when placing (0: a pure road "
                               "builder; 1: only the race margin counts)", lo=0.0, hi=1.0,
                               policy=True)
    pawn_wait: bool = knob(False, "heuristic: the pawn waits at a junction (3+ cards "
                           "around it) until the arrival is linked to the road (Figure 5's "
                           "red pawn) instead of rushing", policy=True)
    search_worlds: int = search.worlds_knob(6)
    search_candidates: int = knob(4, "search player: the heuristic's best placements "
                                  "searched at each placement", lo=1, hi=64, policy=True)
    search_caution: float = knob(0.5, "search player: another move replaces the "
                                 "heuristic's only when its mean gain exceeds this many "
                                 "standard errors", lo=0.0, hi=10.0, policy=True)

    def check(self) -> None:
        if abs(self.arrival_offset) + self.arrival_distance > MAX_DISTANCE:
            raise SimlabError(f"arrival_distance + |arrival_offset| = "
                              f"{self.arrival_distance + abs(self.arrival_offset)}; at most "
                              f"{MAX_DISTANCE}")


# Knob vector for the kernels.
(K_HAND, K_DIST, K_OFFSET, K_START_OR, K_COMPULSORY, K_WRAP, K_STEPS, K_MOVE_NO_PLACE,
 K_ENTRY, K_DRAW_RULE, K_MAX_TURNS, K_MATCH_GAMES, K_BLOCK_MILLI, K_PAWN_WAIT, K_WORLDS,
 K_CANDIDATES, K_CAUTION_MILLI, K_SIZE) = range(18)


def knob_vector(k: ProgressionKnobs) -> np.ndarray:
    v = np.zeros(K_SIZE, dtype=np.int64)
    v[K_HAND] = k.hand_size
    v[K_DIST] = k.arrival_distance
    v[K_OFFSET] = k.arrival_offset
    v[K_START_OR] = ORIENTS.index(k.start_orientation)
    v[K_COMPULSORY] = k.place_compulsory
    v[K_WRAP] = k.wrap
    v[K_STEPS] = k.pawn_steps
    v[K_MOVE_NO_PLACE] = k.move_without_placement
    v[K_ENTRY] = ENTRIES.index(k.arrival_entry)
    v[K_DRAW_RULE] = DRAW_RULES.index(k.draw_rule)
    v[K_MAX_TURNS] = k.max_turns
    v[K_MATCH_GAMES] = k.match_games
    v[K_BLOCK_MILLI] = round(k.block_weight * 1000)
    v[K_PAWN_WAIT] = k.pawn_wait
    v[K_WORLDS] = k.search_worlds
    v[K_CANDIDATES] = k.search_candidates
    v[K_CAUTION_MILLI] = round(k.search_caution * 1000)
    return v


# --- state -----------------------------------------------------------------------------
(S_PHASE, S_TO_MOVE, S_DEALER, S_TURNS, S_PLY, S_HAND, S_PAWN, S_ARR, S_ARR_CARD,
 S_COVERED, S_START_CARD, S_TALON_N, S_DISC_N, S_PL_N, S_TL_N, S_PLACED, S_WINNER, S_END,
 S_PLACED_TURN, S_PASSES, S_RECYCLES, S_MOVES, S_WAITS, S_CHANCES, S_LINKED,
 S_LINK_TURN, S_PLACEMENTS, S_FIRST_MOVE_TURN, S_BLOCKED, S_STRANDED) = (
    0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27,
    29, 30, 31, 33, 35, 37)
S_HEADER = 40
S_TALON = S_HEADER  # stack: the top card at S_TALON + n - 1
S_DISC = S_TALON + N_CARDS  # stack: the last discard on top
S_PL = S_DISC + N_CARDS  # placed cells, in order
S_TL = S_PL + N_CARDS  # touched cells (placed or next to a placed card), in order
MAX_TOUCHED = 5 * N_CARDS
S_DBY = S_TL + MAX_TOUCHED  # who discarded each card still in the talon/discards (-1)
S_GRID = S_DBY + N_CARDS  # card * 2 + orientation, -1 empty
S_OKH = S_GRID + NC  # cards an H card placed there may be (mask), at touched empty cells
S_OKV = S_OKH + NC
S_TOUCH = S_OKV + NC  # 1 at touched cells
N_STATE = S_TOUCH + NC
N_FLAT = S_GRID  # copied whole; the planes are copied at touched cells only

# phases: a player's decision (P_PLACE, P_PAWN, P_DISCARD), the end, and the automatic
# steps between decisions (``advance`` runs them in a loop: no recursion, which numba's
# cache does not keep safely)
P_PLACE, P_PAWN, P_DISCARD, P_DONE, P_BEGIN, P_AFTER, P_TO_DISCARD, P_END_TURN = range(8)
# how a game ended
END_NONE, END_ARRIVAL, END_FROZEN, END_CAPPED = 0, 1, 2, 3
ENDS = ("arrival", "frozen", "capped")
PASS = -1  # the placement passed (place_compulsory = false), or the pawn stays
STAY = -1
MAX_MOVES = 4096


@batch
def new_state() -> np.ndarray:
    st = np.zeros(N_STATE, dtype=np.int64)
    st[S_GRID:S_GRID + NC] = -1
    return st


@hot
def popcount(m: np.int64) -> np.int64:
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@hot
def lowest_bit(m: np.int64) -> np.int64:
    i = 0
    while (m >> i) & 1 == 0:
        i += 1
    return i


@hot
def along_mask(c: np.int64, kv: np.ndarray) -> np.int64:
    return ALONG_WRAP[c] if kv[K_WRAP] else ALONG[c]


@hot
def clear_grid(st: np.ndarray) -> None:
    """Blank the grid planes at the touched cells (all that is ever written)."""
    for i in range(st[S_TL_N]):
        c = st[S_TL + i]
        st[S_GRID + c] = -1
        st[S_OKH + c] = 0
        st[S_OKV + c] = 0
        st[S_TOUCH + c] = 0
    st[S_TL_N] = 0


@hot
def copy_state(src: np.ndarray, dst: np.ndarray) -> None:
    clear_grid(dst)
    for i in range(N_FLAT):
        dst[i] = src[i]
    for i in range(src[S_TL_N]):
        c = src[S_TL + i]
        dst[S_GRID + c] = src[S_GRID + c]
        dst[S_OKH + c] = src[S_OKH + c]
        dst[S_OKV + c] = src[S_OKV + c]
        dst[S_TOUCH + c] = 1


@hot
def manhattan(a: np.int64, b: np.int64) -> np.int64:
    return abs(a // W - b // W) + abs(a % W - b % W)


@hot
def touch(st: np.ndarray, c: np.int64) -> None:
    if st[S_TOUCH + c] == 0:
        st[S_TOUCH + c] = 1
        st[S_OKH + c] = ALL_CARDS
        st[S_OKV + c] = ALL_CARDS
        st[S_TL + st[S_TL_N]] = c
        st[S_TL_N] += 1


@hot
def put_card(st: np.ndarray, cell: np.int64, card: np.int64, orient: np.int64,
             kv: np.ndarray) -> None:
    """Lay ``card`` at ``cell`` (the legality is ``legal_moves``'): the neighbour cells
    learn the cards they may take from now on."""
    touch(st, cell)
    st[S_GRID + cell] = card * 2 + orient
    st[S_PLACED] |= 1 << card
    st[S_PL + st[S_PL_N]] = cell
    st[S_PL_N] += 1
    if cell == st[S_ARR]:
        st[S_COVERED] = 1
    for d in range(4):
        nb = cell + DIRS[d]
        if nb == st[S_ARR] or cell == st[S_ARR]:
            if st[S_LINKED] == 0:
                st[S_LINKED] = 1
                st[S_LINK_TURN] = st[S_TURNS]
        if st[S_GRID + nb] >= 0:
            continue
        touch(st, nb)
        horizontal = d < 2
        in_line = horizontal == (orient == H)
        if in_line:  # "dans le prolongement": same suit, rank +-1, same orientation
            if orient == H:
                st[S_OKH + nb] &= along_mask(card, kv)
                st[S_OKV + nb] = 0
            else:
                st[S_OKV + nb] &= along_mask(card, kv)
                st[S_OKH + nb] = 0
        else:  # "perpendiculairement": same rank, the other orientation
            if orient == H:
                st[S_OKV + nb] &= SAME_RANK[card]
                st[S_OKH + nb] = 0
            else:
                st[S_OKH + nb] &= SAME_RANK[card]
                st[S_OKV + nb] = 0


@hot
def start_game(st: np.ndarray, deck: np.ndarray, dealer: np.int64, kv: np.ndarray,
               dealt: np.ndarray) -> None:
    """Deal from ``deck`` (shuffled, top card first): ``hand_size`` cards each, one at a
    time from the dealer's opponent; the rest is the talon, face up. Its top card is the
    start card at (0, 0) with both pawns, its last card the arrival card (face down, out
    of play). ``dealt`` [2, hand] gets each seat's cards in dealing order."""
    clear_grid(st)
    for i in range(N_FLAT):
        st[i] = 0
    st[S_DEALER] = dealer
    first = 1 - dealer
    n = kv[K_HAND]
    h0 = np.int64(0)
    h1 = np.int64(0)
    for i in range(2 * n):
        seat = first if i % 2 == 0 else dealer
        c = deck[i]
        if seat == 0:
            h0 |= 1 << c
        else:
            h1 |= 1 << c
        if i // 2 < dealt.shape[1]:
            dealt[seat, i // 2] = c
    st[S_HAND] = h0
    st[S_HAND + 1] = h1
    start = deck[2 * n]
    arrival = deck[N_CARDS - 1]
    # the talon below the start card: deck[2n+1] on top .. deck[50] at the bottom
    k = N_CARDS - 2 - 2 * n
    for i in range(k):
        st[S_TALON + i] = deck[N_CARDS - 2 - i]
    st[S_TALON_N] = k
    for c in range(N_CARDS):
        st[S_DBY + c] = -1
    st[S_ARR_CARD] = arrival
    st[S_START_CARD] = start
    st[S_ARR] = (kv[K_DIST] + OFF) * W + (kv[K_OFFSET] + OFF)
    st[S_LINK_TURN] = -1
    st[S_FIRST_MOVE_TURN] = -1
    st[S_WINNER] = -1
    origin = OFF * W + OFF
    put_card(st, origin, start, kv[K_START_OR], kv)
    st[S_PLACEMENTS] = 0
    st[S_PAWN] = origin
    st[S_PAWN + 1] = origin
    st[S_TO_MOVE] = first
    st[S_PHASE] = P_BEGIN
    advance(st, kv)


@hot
def recycle(st: np.ndarray) -> None:
    """"les cartes de la défausse deviennent immédiatement celles d'un nouveau talon, en
    les mettant faces visibles": the face-down pile turned over, so the first discard is
    the new top card."""
    n = st[S_DISC_N]
    if n == 0:
        return
    for i in range(n):
        st[S_TALON + i] = st[S_DISC + n - 1 - i]
    st[S_TALON_N] = n
    st[S_DISC_N] = 0
    st[S_RECYCLES] += 1


@hot
def talon_top(st: np.ndarray) -> np.int64:
    n = st[S_TALON_N]
    return st[S_TALON + n - 1] if n > 0 else -1


@hot
def circulating(st: np.ndarray) -> np.int64:
    """Cards in play off the field: the hands, the talon and the discards."""
    return ALL_CARDS & ~st[S_PLACED] & ~(np.int64(1) << st[S_ARR_CARD])


@hot
def fitting(st: np.ndarray) -> np.int64:
    """Every card some empty touched cell would take now (either orientation)."""
    m = np.int64(0)
    for i in range(st[S_TL_N]):
        c = st[S_TL + i]
        if st[S_GRID + c] < 0:
            m |= st[S_OKH + c] | st[S_OKV + c]
    return m


@hot
def any_placement(st: np.ndarray, hand: np.int64) -> bool:
    for i in range(st[S_TL_N]):
        c = st[S_TL + i]
        if st[S_GRID + c] < 0 and (st[S_OKH + c] | st[S_OKV + c]) & hand != 0:
            return True
    return False


@hot
def begin_turn(st: np.ndarray, kv: np.ndarray) -> None:
    """Step 1: the player to move takes the talon's top card (the discards become the
    talon first if it is empty); then the placement, or the discard if none is legal."""
    p = st[S_TO_MOVE]
    if st[S_TALON_N] == 0:
        recycle(st)
    if st[S_TALON_N] > 0:
        st[S_TALON_N] -= 1
        c = st[S_TALON + st[S_TALON_N]]
        st[S_HAND + p] |= np.int64(1) << c
        st[S_DBY + c] = -1
        if st[S_TALON_N] == 0:
            recycle(st)
    st[S_PLACED_TURN] = 0
    if any_placement(st, st[S_HAND + p]):
        st[S_PHASE] = P_PLACE
    else:
        st[S_PASSES] += 1
        st[S_PHASE] = P_AFTER


@hot
def advance(st: np.ndarray, kv: np.ndarray) -> None:
    """Run the automatic steps up to the next decision or the end."""
    while st[S_PHASE] >= P_BEGIN:
        ph = st[S_PHASE]
        if ph == P_BEGIN:
            begin_turn(st, kv)
        elif ph == P_AFTER:
            # step 3 (the pawn) when a card was placed (or ``move_without_placement``),
            # else step 4: "Son tour est alors terminé"
            if st[S_PLACED_TURN] == 1 or kv[K_MOVE_NO_PLACE]:
                st[S_PHASE] = P_PAWN
            else:
                st[S_PHASE] = P_TO_DISCARD
        elif ph == P_TO_DISCARD:
            st[S_PHASE] = P_END_TURN if st[S_HAND + st[S_TO_MOVE]] == 0 else P_DISCARD
        else:
            end_turn(st, kv)


@hot
def pawn_targets(st: np.ndarray, kv: np.ndarray, seat: np.int64, out: np.ndarray,
                 dist: np.ndarray) -> np.int64:
    """Cells ``seat``'s pawn may move to (within ``pawn_steps`` cards, stopping at the
    arrival), in breadth-first order; ``dist`` is scratch over cells (left as -1 where
    written). Returns how many."""
    src = st[S_PAWN + seat]
    arr = st[S_ARR]
    steps = kv[K_STEPS]
    n = 0
    head = 0
    out[0] = src
    dist[src] = 0
    n = 1
    while head < n:
        c = out[head]
        head += 1
        if dist[c] >= steps or c == arr:
            continue
        for d in range(4):
            nb = c + DIRS[d]
            if dist[nb] >= 0:
                continue
            ok = st[S_GRID + nb] >= 0
            if nb == arr and kv[K_ENTRY] == 0:
                ok = True
            if ok:
                dist[nb] = dist[c] + 1
                out[n] = nb
                n += 1
    for i in range(n):
        dist[out[i]] = -1
    # drop the pawn's own cell
    for i in range(1, n):
        out[i - 1] = out[i]
    return n - 1


@hot
def can_move(st: np.ndarray, kv: np.ndarray, seat: np.int64) -> bool:
    src = st[S_PAWN + seat]
    for d in range(4):
        nb = src + DIRS[d]
        if st[S_GRID + nb] >= 0 or (nb == st[S_ARR] and kv[K_ENTRY] == 0):
            return True
    return False


@hot
def reach_arrival(st: np.ndarray, kv: np.ndarray, seat: np.int64, queue: np.ndarray,
                  dist: np.ndarray) -> np.int64:
    """Cards ``seat``'s pawn must walk to the arrival over the field as it is (-1: not
    linked). ``dist`` is scratch over cells, left at -1."""
    src = st[S_PAWN + seat]
    arr = st[S_ARR]
    n = 1
    head = 0
    queue[0] = src
    dist[src] = 0
    found = -1
    while head < n and found < 0:
        c = queue[head]
        head += 1
        if c == arr:
            found = dist[c]
            break
        for d in range(4):
            nb = c + DIRS[d]
            if dist[nb] >= 0:
                continue
            if st[S_GRID + nb] >= 0 or (nb == arr and kv[K_ENTRY] == 0):
                dist[nb] = dist[c] + 1
                queue[n] = nb
                n += 1
    for i in range(n):
        dist[queue[i]] = -1
    return found


@hot
def end_turn(st: np.ndarray, kv: np.ndarray) -> None:
    """The turn is over: the game stops when no card in play fits the field (no pawn can
    ever move again: a draw, catalogue #2) or at the turn cap; else the other player's
    turn."""
    st[S_TURNS] += 1
    # what fits and what is in play change only with a placement, so a turn without one
    # cannot freeze the field (the first turn is checked whatever happened)
    check = st[S_PLACED_TURN] == 1 or st[S_TURNS] == 1
    if check and kv[K_MOVE_NO_PLACE] == 0 and fitting(st) & circulating(st) == 0:
        finish(st, kv, END_FROZEN)
        return
    if st[S_TURNS] >= kv[K_MAX_TURNS]:
        finish(st, kv, END_CAPPED)
        return
    st[S_TO_MOVE] = 1 - st[S_TO_MOVE]
    st[S_PHASE] = P_BEGIN


@hot
def finish(st: np.ndarray, kv: np.ndarray, how: np.int64) -> None:
    st[S_END] = how
    st[S_PHASE] = P_DONE
    if how == END_ARRIVAL:
        st[S_WINNER] = st[S_TO_MOVE]
        return
    st[S_WINNER] = -1
    if kv[K_DRAW_RULE] == 1:
        d0 = manhattan(st[S_PAWN], st[S_ARR])
        d1 = manhattan(st[S_PAWN + 1], st[S_ARR])
        if d0 < d1:
            st[S_WINNER] = 0
        elif d1 < d0:
            st[S_WINNER] = 1


@hot
def legal_moves(st: np.ndarray, kv: np.ndarray, moves: np.ndarray, dist: np.ndarray
                ) -> np.int64:
    """The legal moves of the player to move, in a fixed order. Placement: ``cell * 104 +
    card * 2 + orientation`` (touched cells in touching order, H before V, cards by id),
    then ``PASS`` when placing is optional; pawn: ``STAY`` then the target cells;
    discard: the card ids."""
    p = st[S_TO_MOVE]
    ph = st[S_PHASE]
    n = 0
    if ph == P_PLACE:
        hand = st[S_HAND + p]
        for i in range(st[S_TL_N]):
            c = st[S_TL + i]
            if st[S_GRID + c] >= 0:
                continue
            for o in range(2):
                m = (st[S_OKH + c] if o == H else st[S_OKV + c]) & hand
                while m != 0:
                    card = lowest_bit(m)
                    m &= m - 1
                    if n < moves.shape[0]:
                        moves[n] = c * 104 + card * 2 + o
                        n += 1
        if kv[K_COMPULSORY] == 0:
            moves[n] = PASS
            n += 1
    elif ph == P_PAWN:
        moves[0] = STAY
        n = 1 + pawn_targets(st, kv, p, moves[1:], dist)
    elif ph == P_DISCARD:
        m = st[S_HAND + p]
        while m != 0:
            card = lowest_bit(m)
            m &= m - 1
            moves[n] = card
            n += 1
    return n


@hot
def apply_move(st: np.ndarray, mv: np.int64, kv: np.ndarray) -> None:
    """Play one legal move of the player to move, then the automatic steps up to the next
    decision (or the end)."""
    p = st[S_TO_MOVE]
    ph = st[S_PHASE]
    st[S_PLY] += 1
    if ph == P_PLACE:
        if mv == PASS:
            st[S_PASSES] += 1
        else:
            cell = mv // 104
            card = (mv % 104) // 2
            st[S_HAND + p] &= ~(np.int64(1) << card)
            put_card(st, cell, card, mv % 2, kv)
            st[S_PLACED_TURN] = 1
            st[S_PLACEMENTS] += 1
        st[S_PHASE] = P_AFTER
    elif ph == P_PAWN:
        if can_move(st, kv, p):
            st[S_CHANCES + p] += 1
            if mv == STAY:
                st[S_WAITS + p] += 1
        if mv != STAY:
            st[S_MOVES + p] += 1
            if st[S_FIRST_MOVE_TURN] < 0:
                st[S_FIRST_MOVE_TURN] = st[S_TURNS]
            st[S_PAWN + p] = mv
            if mv == st[S_ARR]:
                finish(st, kv, END_ARRIVAL)
                return
        st[S_PHASE] = P_TO_DISCARD
    elif ph == P_DISCARD:
        st[S_HAND + p] &= ~(np.int64(1) << mv)
        st[S_DISC + st[S_DISC_N]] = mv
        st[S_DISC_N] += 1
        st[S_DBY + mv] = p
        # "S'il n'y a plus ni carte au talon, ni carte à la défausse ... Le joueur
        # suivant peut la prendre": the lone discard becomes the talon at once
        if st[S_TALON_N] == 0:
            recycle(st)
        st[S_PHASE] = P_END_TURN
    advance(st, kv)


# --- result columns --------------------------------------------------------------------
(C_DEAL, C_DEALER, C_FIRST, C_SCORE, C_WINNER, C_DRAW, C_END, C_TURNS, C_PLACEMENTS,
 C_PASSES, C_RECYCLES, C_LINKED, C_LINK_TURN, C_COVERED, C_FIRST_WON, C_OPENER_FITS,
 C_MOVES, C_WAITS, C_CHANCES, C_DIST, C_FIRST_MOVE, C_CAPPED, C_STRENGTH,
 N_DEAL_COLS) = (0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 21, 23,
                 25, 26, 27, 29)


def deal_columns(k: ProgressionKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("dealer", help="seat that dealt (deal index mod 2)"),
            Column("first_player", help="the dealer's opponent, who plays first"),
            Column("score_s0", help="1 when seat 0's pawn reached the arrival (or won by "
                                    "draw_rule), else 0"),
            Column("score_s1", help="1 when seat 1 won, else 0"),
            Column("winner", help="seat that won, -1 = drawn"),
            Column("draw", BOOL, help="nobody won"),
            Column("end", ENDS, help="how the game ended: a pawn on the arrival, frozen "
                                     "(no card in play fits the field) or the turn cap"),
            Column("turns", help="turns played (both players)"),
            Column("placements", help="cards placed on the field (the start card not "
                                      "counted)"),
            Column("passes", help="turns without a placement"),
            Column("recycles", help="times the discards became the talon"),
            Column("linked", BOOL, help="a placed card shares a side with (or covers) the "
                                        "arrival card at the end"),
            Column("link_turn", help="turn at which the arrival was first linked (-1: "
                                     "never)"),
            Column("covered", BOOL, help="a card was laid over the arrival card"),
            Column("first_won", OPT_BOOL, help="the first player won (null: drawn)"),
            Column("opener_fits", help="cards of the first player's dealt hand that fit "
                                       "next to the start card (same suit +-1 or same "
                                       "rank)"),
            Column("moves_s0", help="pawn steps taken by seat 0"),
            Column("moves_s1", help="pawn steps taken by seat 1"),
            Column("waits_s0", help="turns seat 0's pawn stayed though it could move"),
            Column("waits_s1", help="turns seat 1's pawn stayed though it could move"),
            Column("chances_s0", help="turns seat 0's pawn could move"),
            Column("chances_s1", help="turns seat 1's pawn could move"),
            Column("dist_s0", help="grid steps from seat 0's pawn to the arrival at the "
                                   "end"),
            Column("dist_s1", help="grid steps from seat 1's pawn to the arrival at the "
                                   "end"),
            Column("first_pawn_move", help="turn of the first pawn step (-1: none)"),
            Column("capped", BOOL, help="stopped by the turn cap (max_turns)"),
            Column("strength_s0", help="seat 0's dealt hand: longest same-suit run of "
                                       "consecutive ranks"),
            Column("strength_s1", help="seat 1's dealt hand: longest same-suit run")]


@hot
def longest_run(hand: np.int64) -> np.int64:
    """The longest same-suit run of consecutive ranks (A 2 .. K) in a hand."""
    best = 0
    for s in range(4):
        run = 0
        for o in range(13):
            i = (o + 12) % 13  # order o -> deck index
            if (hand >> (s * 13 + i)) & 1:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
    return best


@hot
def write_row(st: np.ndarray, kv: np.ndarray, row: np.ndarray, opener_fits: np.int64,
              strength0: np.int64, strength1: np.int64) -> None:
    w = st[S_WINNER]
    row[C_DEALER] = st[S_DEALER]
    row[C_FIRST] = 1 - st[S_DEALER]
    row[C_SCORE] = 1 if w == 0 else 0
    row[C_SCORE + 1] = 1 if w == 1 else 0
    row[C_WINNER] = w
    row[C_DRAW] = w < 0
    row[C_END] = st[S_END] - 1
    row[C_TURNS] = st[S_TURNS]
    row[C_PLACEMENTS] = st[S_PLACEMENTS]
    row[C_PASSES] = st[S_PASSES]
    row[C_RECYCLES] = st[S_RECYCLES]
    row[C_LINKED] = st[S_LINKED]
    row[C_LINK_TURN] = st[S_LINK_TURN]
    row[C_COVERED] = st[S_COVERED]
    row[C_FIRST_WON] = -1 if w < 0 else (1 if w == 1 - st[S_DEALER] else 0)
    row[C_OPENER_FITS] = opener_fits
    for s in range(2):
        row[C_MOVES + s] = st[S_MOVES + s]
        row[C_WAITS + s] = st[S_WAITS + s]
        row[C_CHANCES + s] = st[S_CHANCES + s]
        row[C_DIST + s] = manhattan(st[S_PAWN + s], st[S_ARR])
    row[C_FIRST_MOVE] = st[S_FIRST_MOVE_TURN]
    row[C_CAPPED] = st[S_END] == END_CAPPED
    row[C_STRENGTH] = strength0
    row[C_STRENGTH + 1] = strength1


(M_MATCH, M_WINNER, M_N_DEALS, M_FINAL, M_DRAWN, M_DRAWN_GAMES, M_FIRST_DEALER,
 M_CAPPED, N_MATCH_COLS) = (0, 1, 2, 3, 5, 6, 7, 8, 9)


def match_columns(k: ProgressionKnobs | None = None) -> list[Column]:
    return [Column("match"),
            Column("winner", help="seat that won more games, -1 = drawn"),
            Column("n_deals", help="games played (match_games)"),
            Column("final_score_s0", help="games won by seat 0"),
            Column("final_score_s1", help="games won by seat 1"),
            Column("drawn", BOOL, help="both seats won as many games"),
            Column("drawn_games", help="games nobody won"),
            Column("first_dealer", help="seat that dealt the first game (at random)"),
            Column("capped_games", help="games stopped by the turn cap")]


def card_label(c: int) -> str:
    return DECK.kinds[c].label


def card_id(label: str) -> int:
    for i, k in enumerate(DECK.kinds):
        if k.label == label:
            return i
    raise KeyError(label)
