"""Le pousse-pousse rules: deck, knobs, the grid, building, sliding and the runs (seed 004
"le pousse-pousse"; catalogue ``pousse_pousse.md``).

The book: "du jeu on a éliminé tous les 2. Chaque joueur prend une couleur : ♠ ou ♥ (...)
à tour de rôle, à commencer par celui que le sort a désigné, chaque joueur pose une carte
sur la table, face visible. Les cartes sont posées de manière à réaliser un tableau
comprenant cinq cartes en hauteur et cinq cartes en largeur (...). Toute nouvelle carte
rejoignant la table doit être juxtaposée à une carte précédemment posée (...). Quand les
joueurs ont posé toutes leurs cartes, il reste un emplacement vide (...) à tour de rôle,
à commencer par celui qui n'a pas posé la première carte du tableau, les joueurs déplacent
des cartes pour tenter de former des suites. A son tour, un joueur déplace de une à quatre
cartes en les faisant glisser dans la direction de l'emplacement libre du tableau. Le
premier déplacement a lieu, soit verticalement, soit horizontalement ; il est
immédiatement suivi par un déplacement de cartes (toujours de une à quatre) en suivant la
direction (...) qui n'a pas encore été utilisée. (...) une tierce vaut 3 points ; quatre
cartes qui se suivent, 8 points, et cinq cartes, 15 points. (...) la marque a lieu au
moment où la suite est réalisée, à la fin du tour d'un joueur. Si la suite de cartes
demeure en place lors des tours suivants elle n'entraîne pas l'obtention de nouveaux
points. En revanche si elle est dispersée dans un premier temps, puis reconstituée, elle
permet au joueur d'acquérir de nouveaux points. (...) Si un joueur en réalisant une suite
pour son propre compte, en crée par mégarde une pour son adversaire, celui-ci marque des
points (...) il est interdit de déplacer les cartes de manière à revenir à la position
précédente (...) Le premier joueur qui obtient cinquante points remporte la partie."

Seat 0 holds the ♠, seat 1 the ♥; on the grid a card is ``suit * 16 + rank index``
(3 = 0 .. A = 11), so two cards are of one suit and one rank apart exactly when their
codes differ by one. The grid is 25
cells, ``r * 5 + c``, each a card id or -1 (empty). A run: 3 to 5 cards of one suit in
consecutive cells of a row, a column or a diagonal, their ranks consecutive and monotone
(A-K-Q is one; no wrap). At the end of each turn (a card placed, or a sliding turn) every
maximal run that is new scores for its suit's owner, whoever made it. "New" (the book:
"demeure en place" scores nothing again, "dispersée puis reconstituée" scores again): not
part of a run of the same cards in the same line direction at the end of the previous
turn (catalogue #2; ``rescore_on_shift`` also asks for the same cells).

A building move is ``card * 25 + cell``; a sliding turn ``axis * 25 + a * 5 + b``: axis 0
slides along the empty cell's row first (the empty cell moves to column ``a``), then
along its column (to row ``b``); axis 1 the column first (to row ``a``) then the row (to
column ``b``).

Where the book is silent (catalogue resolutions, knobs): the frame is a fixed 5 x 5 and
contact is orthogonal; both slides are compulsory; scoring counts during building
(Figure 3); if both reach 50 on the same turn the higher wins, equal plays on; the
``turn_cap`` sliding turns end the game as a stall guard, a draw by default (the rows
say so: ``end_reason``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import HEARTS, SPADES, SUITS, CardKind, Deck
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

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
N_RANKS = 12
N_CARDS = 24
SIDE = 5
CELLS = 25
DECK = Deck("24_pousse_pousse", "the ♠ and the ♥ of a 52-card pack without the 2s "
            "(Le pousse-pousse)",
            tuple(CardKind(s, r, f"{r}{SUITS[s]}") for s in (SPADES, HEARTS) for r in RANKS))
PLAYERS = 2
CAP_RESULTS = ("draw", "higher_score")
END_REASONS = ("target", "turn_cap", "no_move")
END_NONE, END_TARGET, END_CAP, END_NO_MOVE = -1, 0, 1, 2
ROLLOUTS = ("heuristic", "random")


@dataclass(frozen=True)
class PoussePousseKnobs(Knobs):
    slide_max: int = knob(4, "most cards one slide moves (seed: 'de une à quatre cartes')",
                          lo=1, hi=4)
    slides_per_turn: int = knob(2, "slides in a turn: 2, one along each axis (seed), or 1",
                                lo=1, hi=2)
    points_3: int = knob(3, "points of a run of 3 (seed: 3)", lo=0, hi=100)
    points_4: int = knob(8, "points of a run of 4 (seed: 8)", lo=0, hi=100)
    points_5: int = knob(15, "points of a run of 5 (seed: 15)", lo=0, hi=100)
    target: int = knob(50, "points that win (seed: 'cinquante points')", lo=3, hi=1000)
    score_in_build_phase: bool = knob(True, "runs made while building the grid score "
                                      "(Figure 3 awards the ♥ tierce of the built grid)",
                                      seed_value=True)
    rescore_on_shift: bool = knob(False, "a run moved intact to other cells scores again "
                                  "(false: only a run dispersed and rebuilt)",
                                  seed_value="either", seed_case="silent",
                                  seed_why="'demeure en place' against 'dispersée puis "
                                           "reconstituée': the book does not say whether a "
                                           "run slid intact along its line stayed; the "
                                           "catalogue (#2) keeps it (same cards, same line)")
    score_increment_only: bool = knob(False, "a run that grows scores only its new value "
                                      "minus the run it contains (8 - 3 = 5)",
                                      seed_value=False)
    turn_cap: int = knob(200, "stall guard: sliding turns after which the game stops "
                         "(end_reason turn_cap)", lo=1, hi=100_000)
    cap_result: str = knob("higher_score", "a game stopped by the turn cap: the higher "
                           "score wins, equal scores draw (the catalogue's #9), or a draw",
                           choices=CAP_RESULTS, seed_value="either", seed_case="unplayable",
                           seed_why="the book's game need not end (nobody may reach 50); "
                                    "the catalogue's resolution #9: at the cap the higher "
                                    "score wins (flagged in the rows: end_reason turn_cap)")
    # players (players.py), each seat may have its own (minimax:minimax_depth=3)
    heuristic_gift_weight: float = knob(1.0, "heuristic player: weight of the points a "
                                        "sliding turn gives the opponent (0: ignores "
                                        "gifts)", lo=0.0, hi=4.0, policy=True)
    minimax_depth: int = knob(2, "minimax player: plies searched (alpha-beta)", lo=1, hi=8,
                              policy=True)
    mcts_iterations: int = knob(200, "mcts player: tree iterations per decision", lo=1,
                                hi=100_000, policy=True)
    mcts_playouts: int = knob(1, "mcts player: playouts per expanded node", lo=1, hi=64,
                              policy=True)
    mcts_rollout: str = knob("heuristic", "mcts player: the policy of its playouts",
                             choices=ROLLOUTS, policy=True)

    def check(self) -> None:
        if not self.points_3 <= self.points_4 <= self.points_5:
            raise SimlabError(f"run points {self.points_3}/{self.points_4}/{self.points_5} "
                              "must not fall with length; need points_3 <= points_4 <= "
                              "points_5")


(KV_SLIDE_MAX, KV_SLIDES, KV_P3, KV_P4, KV_P5, KV_TARGET, KV_BUILD_SCORE, KV_SHIFT,
 KV_INCREMENT, KV_TURN_CAP, KV_CAP_HIGHER, KV_DEPTH, KV_ITER, KV_PLAYOUTS,
 KV_ROLLOUT_RANDOM, KV_GIFT_WEIGHT, KV_SIZE) = range(17)


WEIGHT_SCALE = 1000  # heuristic_gift_weight in thousandths


def knob_vector(k: PoussePousseKnobs) -> np.ndarray:
    return np.array([k.slide_max, k.slides_per_turn, k.points_3, k.points_4, k.points_5,
                     k.target, int(k.score_in_build_phase), int(k.rescore_on_shift),
                     int(k.score_increment_only), k.turn_cap,
                     int(k.cap_result == "higher_score"), k.minimax_depth,
                     k.mcts_iterations, k.mcts_playouts, int(k.mcts_rollout == "random"),
                     round(k.heuristic_gift_weight * WEIGHT_SCALE)],
                    dtype=np.int64)


STRIDE = 16  # a card's code: suit * STRIDE + rank index


def card_id(seat: int, rank: str) -> int:
    """The grid code of seat ``seat``'s card of ``rank`` ("3".."A")."""
    return seat * STRIDE + RANKS.index(rank)


# --- the lines runs live on --------------------------------------------------------------
# 20 lines of 3 to 5 cells: rows, columns, diagonals (down-right) and anti-diagonals
# (down-left) of length >= 3. LINE_DIR: 0 row, 1 column, 2 diagonal, 3 anti-diagonal.
def _lines() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cells, lens, dirs = [], [], []

    def add(d: int, start: tuple[int, int], step: tuple[int, int]) -> None:
        r, c = start
        line = []
        while 0 <= r < SIDE and 0 <= c < SIDE:
            line.append(r * SIDE + c)
            r, c = r + step[0], c + step[1]
        if len(line) >= 3:
            cells.append(line + [-1] * (SIDE - len(line)))
            lens.append(len(line))
            dirs.append(d)

    for r in range(SIDE):
        add(0, (r, 0), (0, 1))
    for c in range(SIDE):
        add(1, (0, c), (1, 0))
    for s in [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)]:
        add(2, s, (1, 1))
    for s in [(0, 4), (0, 3), (0, 2), (1, 4), (2, 4)]:
        add(3, s, (1, -1))
    return (np.array(cells, dtype=np.int64), np.array(lens, dtype=np.int64),
            np.array(dirs, dtype=np.int64))


LINE_CELLS, LINE_LEN, LINE_DIR = _lines()
N_LINES = LINE_CELLS.shape[0]
ALL_LINES = (1 << N_LINES) - 1
# CELL_LINES[cell]: bit li set when line li passes through the cell
CELL_LINES = np.zeros(CELLS, dtype=np.int64)
for _li in range(N_LINES):
    for _i in range(LINE_LEN[_li]):
        CELL_LINES[LINE_CELLS[_li, _i]] |= 1 << _li
DIR_DELTA = np.array([1, SIDE, SIDE + 1, SIDE - 1], dtype=np.int64)
MAX_RUNS = 48

# --- state ------------------------------------------------------------------------------
S_GRID = 0
S_HAND = CELLS  # 2 masks over rank indices
S_SCORE = S_HAND + 2
S_TO_MOVE = S_SCORE + 2
S_FIRST = S_TO_MOVE + 1
S_PLACED = S_FIRST + 1
S_TURNS = S_PLACED + 1  # sliding turns played
S_OVER = S_TURNS + 1
S_END = S_OVER + 1
S_EMPTY = S_END + 1
S_BUILD_PTS = S_EMPTY + 1  # 2: points scored while building
S_GIFT = S_BUILD_PTS + 2  # 2: points a seat scored on the opponent's turn
S_RUNS_SCORED = S_GIFT + 2  # 2: runs scored
S_PREV = S_RUNS_SCORED + 2  # 25: the grid at the start of the previous turn
S_PREV_EMPTY = S_PREV + CELLS  # the empty cell of that grid (-1: none yet)
S_NRUNS = S_PREV_EMPTY + 1
S_RUNS = S_NRUNS + 1  # MAX_RUNS run codes at the end of the previous turn
N_ST = S_RUNS + MAX_RUNS


@hot
def rank_of(c: np.int64) -> np.int64:
    return c & (STRIDE - 1)


@hot
def suit_of(c: np.int64) -> np.int64:
    return c >> 4


@hot
def new_game(st: np.ndarray, first: np.int64) -> None:
    for i in range(N_ST):
        st[i] = 0
    for i in range(CELLS):
        st[S_GRID + i] = -1
        st[S_PREV + i] = -2  # never equal to a grid
    full = (1 << N_RANKS) - 1
    st[S_HAND] = full
    st[S_HAND + 1] = full
    st[S_TO_MOVE] = first
    st[S_FIRST] = first
    st[S_END] = END_NONE
    st[S_EMPTY] = -1
    st[S_PREV_EMPTY] = -1


@hot
def set_grid(st: np.ndarray, grid: np.ndarray, to_move: np.int64, kv: np.ndarray) -> None:
    """A hand-built sliding position: ``grid`` 25 card ids (one -1, the empty cell), no
    score yet; its runs count as already there (they score nothing more)."""
    new_game(st, 1 - to_move)
    st[S_TO_MOVE] = to_move
    st[S_HAND] = 0
    st[S_HAND + 1] = 0
    st[S_PLACED] = N_CARDS
    for i in range(CELLS):
        st[S_GRID + i] = grid[i]
        if grid[i] < 0:
            st[S_EMPTY] = i
    st[S_NRUNS] = scan_runs(st, st, S_RUNS, ALL_LINES)


@hot
def building(st: np.ndarray) -> bool:
    return st[S_PLACED] < N_CARDS


# --- runs ---------------------------------------------------------------------------------
@hot
def run_code(d: np.int64, s: np.int64, up: np.int64, lo: np.int64, hi: np.int64,
             lo_cell: np.int64) -> np.int64:
    return ((((d * 2 + s) * 2 + up) * N_RANKS + lo) * N_RANKS + hi) * CELLS + lo_cell


@hot
def scan_runs(st: np.ndarray, out: np.ndarray, base: np.int64, lines: np.int64
              ) -> np.int64:
    """Every maximal run of the grid on the lines of mask ``lines`` into ``out[base:]`` as
    run codes; returns how many."""
    n = 0
    for li in range(N_LINES):
        if (lines >> li) & 1 == 0:
            continue
        L = LINE_LEN[li]
        i = 0
        while i < L - 1:
            a = st[S_GRID + LINE_CELLS[li, i]]
            b = st[S_GRID + LINE_CELLS[li, i + 1]]
            if a >= 0 and b >= 0 and (b - a == 1 or a - b == 1):
                step = b - a
                j = i + 1
                while j + 1 < L:
                    x = st[S_GRID + LINE_CELLS[li, j + 1]]
                    y = st[S_GRID + LINE_CELLS[li, j]]
                    if x >= 0 and x - y == step:
                        j += 1
                    else:
                        break
                if j - i + 1 >= 3:
                    first = st[S_GRID + LINE_CELLS[li, i]]
                    last = st[S_GRID + LINE_CELLS[li, j]]
                    up = 1 if step > 0 else 0
                    lo = rank_of(first) if up else rank_of(last)
                    hi = rank_of(last) if up else rank_of(first)
                    lo_cell = LINE_CELLS[li, i] if up else LINE_CELLS[li, j]
                    out[base + n] = run_code(LINE_DIR[li], suit_of(first), up, lo, hi,
                                             lo_cell)
                    n += 1
                i = j  # the turning card may start a run the other way
            else:
                i += 1
    return n


@hot
def run_points(length: np.int64, kv: np.ndarray) -> np.int64:
    if length >= 5:
        return kv[KV_P5]
    if length == 4:
        return kv[KV_P4]
    return kv[KV_P3]


@hot
def contained(new: np.int64, old: np.int64, same_cells: np.int64) -> bool:
    """Run ``new`` is part of run ``old``: same suit, same line direction and rank order,
    its ranks within old's (and, with ``same_cells``, on the same cells)."""
    n_cell = new % CELLS
    x = new // CELLS
    n_hi = x % N_RANKS
    x //= N_RANKS
    n_lo = x % N_RANKS
    n_key = x // N_RANKS  # d, suit, up
    o_cell = old % CELLS
    y = old // CELLS
    o_hi = y % N_RANKS
    y //= N_RANKS
    o_lo = y % N_RANKS
    o_key = y // N_RANKS
    if n_key != o_key or n_lo < o_lo or n_hi > o_hi:
        return False
    if same_cells == 0:
        return True
    up = n_key % 2
    d = n_key // 4
    sign = 1 if up else -1
    return n_cell == o_cell + (n_lo - o_lo) * DIR_DELTA[d] * sign


@hot
def new_points(grid: np.ndarray, st: np.ndarray, kv: np.ndarray, tmp: np.ndarray,
               count: bool, lines: np.int64) -> tuple[np.int64, np.int64, np.int64]:
    """The points each seat scores for the grid in ``grid`` (at ``S_GRID``) against the
    runs of ``st``'s previous turn: (seat 0's, seat 1's, runs found, in ``tmp``). Only
    the lines of mask ``lines`` are scanned: a run on a line the turn did not touch was
    there before, and is not new. With ``count`` the runs scored are counted in ``st``."""
    n = scan_runs(grid, tmp, 0, lines)
    n_old = st[S_NRUNS]
    got0 = 0
    got1 = 0
    scoring = kv[KV_BUILD_SCORE] != 0 or not building(st)
    for i in range(n):
        code = tmp[i]
        x = code // CELLS
        hi = x % N_RANKS
        lo = (x // N_RANKS) % N_RANKS
        suit = (x // (N_RANKS * N_RANKS)) // 2 % 2
        pts = run_points(hi - lo + 1, kv)
        is_new = True
        old_best = 0
        for j in range(n_old):
            old = st[S_RUNS + j]
            if contained(code, old, kv[KV_SHIFT]):
                is_new = False
                break
            if kv[KV_INCREMENT] != 0 and contained(old, code, kv[KV_SHIFT]):
                y = old // CELLS
                op = run_points(y % N_RANKS - (y // N_RANKS) % N_RANKS + 1, kv)
                if op > old_best:
                    old_best = op
        if is_new and scoring:
            gain = pts - old_best
            if gain > 0:
                if suit == 0:
                    got0 += gain
                else:
                    got1 += gain
                if count:
                    st[S_RUNS_SCORED + suit] += 1
    return got0, got1, n


@hot
def score_turn(st: np.ndarray, kv: np.ndarray, mover: np.int64, tmp: np.ndarray
               ) -> np.int64:
    """The end of a turn: each new maximal run scores for its suit's owner; the runs are
    remembered for the next turn. ``tmp``: scratch of MAX_RUNS. Returns the mover's
    points minus the opponent's this turn."""
    got0, got1, n = new_points(st, st, kv, tmp, True, ALL_LINES)
    for i in range(n):
        st[S_RUNS + i] = tmp[i]
    st[S_NRUNS] = n
    st[S_SCORE] += got0
    st[S_SCORE + 1] += got1
    if building(st):
        st[S_BUILD_PTS] += got0
        st[S_BUILD_PTS + 1] += got1
    if mover == 0:
        st[S_GIFT + 1] += got1
        return got0 - got1
    st[S_GIFT] += got0
    return got1 - got0


# --- moves --------------------------------------------------------------------------------
@hot
def place_legal(st: np.ndarray, c: np.int64, cell: np.int64) -> bool:
    """One's own card, still in hand, on an empty cell of the 5 x 5 frame orthogonally next
    to a placed card (the first card anywhere)."""
    seat = st[S_TO_MOVE]
    if not building(st) or c < 0 or cell < 0 or cell >= CELLS:
        return False
    if suit_of(c) != seat or rank_of(c) >= N_RANKS or (st[S_HAND + seat] >> rank_of(c)) & 1 == 0:
        return False
    if st[S_GRID + cell] >= 0:
        return False
    if st[S_PLACED] == 0:
        return True
    r = cell // SIDE
    col = cell % SIDE
    return ((r > 0 and st[S_GRID + cell - SIDE] >= 0)
            or (r < SIDE - 1 and st[S_GRID + cell + SIDE] >= 0)
            or (col > 0 and st[S_GRID + cell - 1] >= 0)
            or (col < SIDE - 1 and st[S_GRID + cell + 1] >= 0))


@hot
def slide(st: np.ndarray, axis: np.int64, to: np.int64) -> np.int64:
    """Slide the cards between the empty cell and coordinate ``to`` of its row (axis 0:
    ``to`` a column) or column (axis 1: a row) one cell toward it: the empty cell moves
    to ``to``. Returns the mask of the lines through the cells that changed."""
    e = st[S_EMPTY]
    r = e // SIDE
    c = e % SIDE
    lines = CELL_LINES[e]
    if axis == 0:
        while c != to:
            nc = c + 1 if to > c else c - 1
            st[S_GRID + r * SIDE + c] = st[S_GRID + r * SIDE + nc]
            c = nc
            lines |= CELL_LINES[r * SIDE + c]
    else:
        while r != to:
            nr = r + 1 if to > r else r - 1
            st[S_GRID + r * SIDE + c] = st[S_GRID + nr * SIDE + c]
            r = nr
            lines |= CELL_LINES[r * SIDE + c]
    st[S_GRID + r * SIDE + c] = -1
    st[S_EMPTY] = r * SIDE + c
    return lines


@hot
def slide_shape_legal(st: np.ndarray, kv: np.ndarray, mv: np.int64) -> bool:
    """The distances of a turn's slides: 1 .. slide_max each (the second slide only with
    two slides per turn; with one, ``b`` must be 0)."""
    axis = mv // CELLS
    a = (mv // SIDE) % SIDE
    b = mv % SIDE
    if axis < 0 or axis > 1:
        return False
    e = st[S_EMPTY]
    r = e // SIDE
    c = e % SIDE
    first = c if axis == 0 else r
    second = r if axis == 0 else c
    if a == first or abs(a - first) > kv[KV_SLIDE_MAX]:
        return False
    if kv[KV_SLIDES] == 1:
        return b == 0
    return b != second and abs(b - second) <= kv[KV_SLIDE_MAX]


@hot
def do_slides(st: np.ndarray, kv: np.ndarray, mv: np.int64) -> np.int64:
    """The turn's slides; returns the mask of the lines it changed."""
    axis = mv // CELLS
    lines = slide(st, axis, (mv // SIDE) % SIDE)
    if kv[KV_SLIDES] == 2:
        lines |= slide(st, 1 - axis, mv % SIDE)
    return lines


@hot
def turn_legal(st: np.ndarray, kv: np.ndarray, mv: np.int64, scratch: np.ndarray) -> bool:
    """A sliding turn: legal distances, and the grid afterwards differs from the grid at
    the start of the opponent's previous turn ("revenir à la position précédente")."""
    if building(st) or st[S_OVER] != 0 or not slide_shape_legal(st, kv, mv):
        return False
    if final_empty(st, kv, mv) != st[S_PREV_EMPTY]:
        return True  # the empty cell ends elsewhere: another grid
    slid_grid(st, kv, mv, scratch)
    for i in range(CELLS):
        if scratch[S_GRID + i] != st[S_PREV + i]:
            return True
    return False


@hot
def final_empty(st: np.ndarray, kv: np.ndarray, mv: np.int64) -> np.int64:
    """Where the empty cell ends after the turn ``mv``."""
    axis = mv // CELLS
    a = (mv // SIDE) % SIDE
    b = mv % SIDE
    r = st[S_EMPTY] // SIDE
    c = st[S_EMPTY] % SIDE
    if axis == 0:
        c = a
        if kv[KV_SLIDES] == 2:
            r = b
    else:
        r = a
        if kv[KV_SLIDES] == 2:
            c = b
    return r * SIDE + c


@hot
def slid_grid(st: np.ndarray, kv: np.ndarray, mv: np.int64, scratch: np.ndarray
              ) -> np.int64:
    """``scratch`` gets the grid (at ``S_GRID``) and empty cell (at ``S_EMPTY``) after the
    turn ``mv``, ``st`` unchanged; returns the mask of the lines the turn changed."""
    for i in range(CELLS):
        scratch[S_GRID + i] = st[S_GRID + i]
    scratch[S_EMPTY] = st[S_EMPTY]
    return do_slides(scratch, kv, mv)


@hot
def is_legal(st: np.ndarray, kv: np.ndarray, mv: np.int64, scratch: np.ndarray) -> bool:
    if st[S_OVER] != 0:
        return False
    if building(st):
        return place_legal(st, mv // CELLS, mv % CELLS)
    return turn_legal(st, kv, mv, scratch)


@hot
def apply_move(st: np.ndarray, kv: np.ndarray, mv: np.int64, tmp: np.ndarray) -> np.int64:
    """Play a legal move and score the turn; returns the mover's points minus the
    opponent's this turn. ``tmp``: scratch of MAX_RUNS."""
    seat = st[S_TO_MOVE]
    if building(st):
        c = mv // CELLS
        cell = mv % CELLS
        st[S_GRID + cell] = c
        st[S_HAND + seat] &= ~(np.int64(1) << rank_of(c))
        d = score_turn(st, kv, seat, tmp)  # still a building turn
        st[S_PLACED] += 1
        if st[S_PLACED] == N_CARDS:
            for i in range(CELLS):
                if st[S_GRID + i] < 0:
                    st[S_EMPTY] = i
            # sliding starts with the player who did not place the first card
            st[S_TO_MOVE] = 1 - st[S_FIRST]
        else:
            st[S_TO_MOVE] = 1 - seat
    else:
        for i in range(CELLS):
            tmp[i] = st[S_GRID + i]
        st[S_PREV_EMPTY] = st[S_EMPTY]
        do_slides(st, kv, mv)
        for i in range(CELLS):
            st[S_PREV + i] = tmp[i]
        st[S_TURNS] += 1
        d = score_turn(st, kv, seat, tmp)
        st[S_TO_MOVE] = 1 - seat
    check_end(st, kv, tmp)
    return d


@hot
def check_end(st: np.ndarray, kv: np.ndarray, scratch: np.ndarray) -> None:
    a = st[S_SCORE]
    b = st[S_SCORE + 1]
    if (a >= kv[KV_TARGET] or b >= kv[KV_TARGET]) and a != b:
        st[S_OVER] = 1
        st[S_END] = END_TARGET
        return
    if building(st):
        return
    if st[S_TURNS] >= kv[KV_TURN_CAP]:
        st[S_OVER] = 1
        st[S_END] = END_CAP


@hot
def winner_of(st: np.ndarray, kv: np.ndarray) -> np.int64:
    """The higher score at the target; at the turn cap a draw (or, with
    ``cap_result=higher_score``, the higher score); -1 = drawn."""
    if st[S_END] == END_CAP and kv[KV_CAP_HIGHER] == 0:
        return -1
    if st[S_END] == END_NO_MOVE:
        return -1
    a = st[S_SCORE]
    b = st[S_SCORE + 1]
    if a > b:
        return 0
    if b > a:
        return 1
    return -1


# --- result columns -----------------------------------------------------------------------
(C_DEAL, C_SCORE, C_WINNER, C_DRAW, C_RESULT, C_FIRST, C_FIRST_RESULT, C_LENGTH,
 C_BUILD_PTS, C_GIFT, C_RUNS, C_END, C_STALLED, N_DEAL_COLS) = (
    0, 1, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 16, 17)


def deal_columns(k: PoussePousseKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("score_s0", help="points of seat 0 (♠)"),
            Column("score_s1", help="points of seat 1 (♥)"),
            Column("winner", help="seat that won, -1 = drawn (stopped by the turn cap)"),
            Column("draw", BOOL, help="drawn game"),
            Column("result_s0", help="seat 0's result: +1 won, 0 drawn, -1 lost"),
            Column("first_player", help="seat that won the lot and placed the first card "
                                        "(the other seat slides first)"),
            Column("first_player_result", help="the first placer's result: +1 won, 0 "
                                               "drawn, -1 lost"),
            Column("length", help="sliding turns played (building is always 24 cards)"),
            Column("build_points_s0", help="seat 0's points scored while building"),
            Column("build_points_s1", help="seat 1's points scored while building"),
            Column("gift_points_s0", help="seat 0's points scored on seat 1's turns (gifts)"),
            Column("gift_points_s1", help="seat 1's points scored on seat 0's turns (gifts)"),
            Column("runs_s0", help="runs scored by seat 0"),
            Column("runs_s1", help="runs scored by seat 1"),
            Column("end_reason", END_REASONS, help="why the game ended: a seat reached the "
                   "target, the turn cap (stall guard), or no legal move"),
            Column("stalled", BOOL, help="stopped by the turn cap")]


def match_columns(k: PoussePousseKnobs | None = None) -> list[Column]:
    return two_game_match_columns("games played (2: each seat places first once)")
