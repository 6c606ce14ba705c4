"""XXL — À moins: knobs, the state of a game, legal moves, scoring (seed
``002_f79cc30b1abb5c3a.txt``, "2. À moins"; catalogue ``xxl_a_moins.md``).

The book: "Chaque joueur reçoit six cartes. Les cartes qui restent forment le talon. [...]
Le joueur qui a le plus de points commence. Il peut écarter une de ses cartes, si une des
valeurs de cette carte est inférieur à la valeur du chiffre de la même couleur de la carte
retournée. Le 0 est la valeur la plus basse. Si la carte retournée montre un 0, on ne peut
écarter que sur le deuxième chiffre. [...] Si un joueur n'a aucune carte convenable, il
doit en prendre une du talon. Si cette carte est convenable, il peut la jouer
immédiatement. Puis, le joueur à main gauche continue. [...] Le jeu est fini au moment où
un joueur arrive à écarter sa dernière carte ou si le talon s'est épuisé et personne ne
peut jouer une carte convenable. Chaque joueur compte la valeur totale de ses cartes.
Celui qui a la somme la plus petite, a gagné." The summary: "1 carte retournée".

Only the top card of the discard pile matters: a card is legal if, for a colour c shown
on the top card, it has a half of colour c whose number is strictly lower than the top's
number in c (``strict_lower``; a top half at 0 cannot be undercut). The card played
becomes the top, so its other half may "reopen" the pile in another colour.

State: ``st`` (int64, ``S_*``), ``hm`` (uint64 masks: ``hm[p]`` = seat p's hand,
``hm[HM_PUBLIC]`` = the discards), ``order`` (the talon is ``order[st[S_TPOS]:]``). A move
is the card id.

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.games.xxl import check_colouring, colouring_knob
from simlab.games.xxl.common import STARTER_RULES, bit, lowest
from simlab.games.xxl.deck import DECK, N_CARDS, tables_for  # noqa: F401
from simlab.mechanics.search import worlds_knob

MAX_PLAYERS = 6
INDIVIDUEL = ("raw", "place_points")
DRAWN_CARD = ("optional", "must")


@dataclass(frozen=True)
class AMoinsKnobs(Knobs):
    players: int = knob(4, "players (the box: 2 à 6 joueurs)", lo=2, hi=MAX_PLAYERS)
    hand_size: int = knob(6, "cards dealt to each player (seed: 'Chaque joueur reçoit six "
                          "cartes')", lo=1, hi=20)
    starter_rule: str = knob("highest_total", "who plays first: the highest hand total "
                             "(seed: 'Le joueur qui a le plus de points commence'; ties: "
                             "nearest the dealer's left) or the dealer's left",
                             choices=STARTER_RULES, seed_value="highest_total")
    strict_lower: bool = knob(True, "a half must be strictly lower than the top's number in "
                              "its colour (seed: 'inférieur'); false: lower or equal",
                              seed_value=True)
    voluntary_draw: bool = knob(False, "a player who could play may draw instead (seed: one "
                                "draws only 's'il n'a aucune carte convenable')",
                                seed_value=False)
    drawn_card: str = knob("optional", "a drawn card that fits: the player may play it "
                           "(seed: 'il peut la jouer immédiatement') or must",
                           choices=DRAWN_CARD, seed_value="optional")
    turn_cap: int = knob(5000, "stall guard: turns after which a game stops (counted in "
                         "the rows as end = turn_cap; every turn plays, draws or passes, "
                         "so a game ends long before)", lo=10, hi=1_000_000)
    match_games: int = knob(5, "match (XXL individuel): games played; 'le joueur qui a le "
                            "moins de points après un certain nombre de parties a gagné'",
                            lo=1, hi=999)
    individuel_scoring: str = knob("raw", "match: add the raw hand totals (seed: 'Notez les "
                                   "points ... le moins de points') or XXL pur's place "
                                   "points (1st = 1, ties share, next place skipped)",
                                   choices=INDIVIDUEL, seed_value="raw")
    deck_colouring: str = colouring_knob()
    # players (players.py)
    heuristic_starve_weight: float = knob(0.5, "heuristic: weight of the unseen cards that "
                                          "could undercut the new top (the catalogue's "
                                          "alpha), per card the next player may hold",
                                          lo=0.0, hi=100.0, policy=True)
    search_worlds: int = worlds_knob(24)

    def check(self) -> None:
        need = self.players * self.hand_size + 1
        if need > N_CARDS:
            raise SimlabError(f"{self.players} players x {self.hand_size} cards + 1 turned "
                              f"card need {need} cards; the deck has {N_CARDS}")
        check_colouring(self.deck_colouring)


(KV_PLAYERS, KV_HAND, KV_STARTER, KV_STRICT, KV_VOLUNTARY, KV_DRAWN_MUST, KV_CAP,
 KV_MATCH_GAMES, KV_IND_PLACES, KV_WORLDS, KV_W_STARVE, KV_SIZE) = range(12)
W_SCALE = 1000


def knob_vector(k: AMoinsKnobs) -> np.ndarray:
    return np.array([k.players, k.hand_size, STARTER_RULES.index(k.starter_rule),
                     int(k.strict_lower), int(k.voluntary_draw), int(k.drawn_card == "must"),
                     k.turn_cap, k.match_games, int(k.individuel_scoring == "place_points"),
                     k.search_worlds, round(k.heuristic_starve_weight * W_SCALE)],
                    dtype=np.int64)


# --- state ------------------------------------------------------------------------------
(S_TURN, S_PASSES, S_OVER, S_END, S_OUT, S_TPOS, S_TURNS, S_DRAWS, S_DRAW_PLAYS, S_PLAYS,
 S_VOL_DRAWS, S_KEPT, S_TOP, S_STARTER, S_N, S_STRICT, S_DRAW_RUN, S_MAX_DRAW_RUN,
 S_SEAT_DRAWS) = range(19)
N_ST = S_SEAT_DRAWS + MAX_PLAYERS
HM_PUBLIC = 7
N_HM = 8
END_NONE, END_OUT, END_BLOCKED, END_CAP = 0, 1, 2, 3
END_LABELS = ("out", "blocked", "turn_cap")
DRAW, KEEP = -1, -2
MAX_MOVES = 64


@hot
def new_game(st: np.ndarray, hm: np.ndarray, order: np.ndarray, n: int, hand: int,
             strict: int) -> None:
    """Deal from ``order`` (already shuffled): ``hand`` cards to each seat in blocks, then
    turn one card: the top of the discard pile; the rest is the talon."""
    for i in range(N_ST):
        st[i] = 0
    for i in range(N_HM):
        hm[i] = 0
    pos = 0
    for p in range(n):
        m = np.uint64(0)
        for _ in range(hand):
            m |= bit(order[pos])
            pos += 1
        hm[p] = m
    top = order[pos]
    pos += 1
    hm[HM_PUBLIC] = bit(top)
    st[S_TOP] = top
    st[S_TPOS] = pos
    st[S_N] = n
    st[S_OUT] = -1
    st[S_STRICT] = strict


@hot
def beats_mask(top: int, strict: int, num: np.ndarray, col: np.ndarray,
               holders: np.ndarray) -> np.uint64:
    """Every card that may be discarded on ``top``: a half of one of the top's colours with
    a lower number (strictly, or lower or equal)."""
    m = np.uint64(0)
    for h in range(2):
        c = col[top, h]
        limit = num[top, h] if strict == 1 else num[top, h] + 1
        for v in range(limit):
            m |= holders[c * 11 + v]
    return m & ~bit(top)


@hot
def legal_moves(st: np.ndarray, hand: np.uint64, num: np.ndarray, col: np.ndarray,
                holders: np.ndarray, mv: np.ndarray, index: np.ndarray) -> int:
    """The cards of ``hand`` that may be discarded now, into ``mv``; returns their count."""
    cand = hand & beats_mask(st[S_TOP], st[S_STRICT], num, col, holders)
    cnt = 0
    while cand != 0:
        mv[cnt] = lowest(cand, index)
        cnt += 1
        cand &= cand - np.uint64(1)
    return cnt


@hot
def play(st: np.ndarray, hm: np.ndarray, p: int, card: int) -> None:
    """Seat ``p`` discards ``card``: it becomes the top; one's last card ends the game."""
    hm[p] &= ~bit(card)
    hm[HM_PUBLIC] |= bit(card)
    st[S_TOP] = card
    st[S_PLAYS] += 1
    st[S_PASSES] = 0
    st[S_DRAW_RUN] = 0
    if hm[p] == 0:
        st[S_OVER] = 1
        st[S_END] = END_OUT
        st[S_OUT] = p


@hot
def draw(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int) -> int:
    c = order[st[S_TPOS]]
    st[S_TPOS] += 1
    hm[p] |= bit(c)
    st[S_DRAWS] += 1
    st[S_SEAT_DRAWS + p] += 1
    st[S_PASSES] = 0
    st[S_DRAW_RUN] += 1  # a turn ending in a draw; playing the drawn card resets it
    return c


@hot
def talon_left(st: np.ndarray) -> int:
    return N_CARDS - st[S_TPOS]


@hot
def pass_turn(st: np.ndarray) -> None:
    st[S_PASSES] += 1
    if st[S_PASSES] >= st[S_N]:
        st[S_OVER] = 1
        st[S_END] = END_BLOCKED


@hot
def end_turn(st: np.ndarray, cap: int) -> None:
    st[S_TURNS] += 1
    st[S_TURN] = (st[S_TURN] + 1) % st[S_N]
    if st[S_DRAW_RUN] > st[S_MAX_DRAW_RUN]:  # consecutive turns ending in a draw
        st[S_MAX_DRAW_RUN] = st[S_DRAW_RUN]
    if st[S_OVER] == 0 and st[S_TURNS] >= cap:
        st[S_OVER] = 1
        st[S_END] = END_CAP


@hot
def hand_score(hm: np.ndarray, p: int, total: np.ndarray, index: np.ndarray) -> int:
    s = 0
    m = hm[p]
    while m != 0:
        s += total[lowest(m, index)]
        m &= m - np.uint64(1)
    return s


# --- result columns ---------------------------------------------------------------------
def deal_columns(k: AMoinsKnobs) -> list[Column]:
    n = k.players
    return ([Column("deal"), Column("dealer"),
             Column("starter", help="seat that played first (highest hand total)")]
            + [Column(f"score_s{i}", help=f"seat {i}'s penalty: totals of the cards left "
                      "in hand (lowest wins)") for i in range(n)]
            + [Column(f"place_s{i}", help=f"seat {i}'s place (1 = best; equal scores "
                      "share a place)") for i in range(n)]
            + [Column(f"start_total_s{i}", help=f"seat {i}'s dealt hand total")
               for i in range(n)]
            + [Column(f"low_halves_s{i}", help=f"seat {i}'s dealt halves numbered 0-2")
               for i in range(n)]
            + [Column("winner", help="seat with the lowest penalty, -1 = shared"),
               Column("went_out", help="seat that discarded its last card, -1 = none"),
               Column("end", END_LABELS, help="how the game ended: a player went out, the "
                      "talon was empty and a full round passed, or the stall guard"),
               Column("turns", help="turns played (plays, draws and passes)"),
               Column("plays", help="cards discarded"),
               Column("draws", help="cards drawn from the talon"),
               Column("max_seat_draws", help="most cards drawn by one seat"),
               Column("draw_plays", help="drawn cards played at once"),
               Column("kept_drawn", help="drawn cards that fitted but were kept"),
               Column("voluntary_draws", help="draws by a player who could play "
                      "(voluntary_draw only)"),
               Column("max_draw_run", help="longest run of consecutive turns ending in a "
                      "draw (a draw cycle around the table)"),
               Column("talon_left", help="talon cards left at the end"),
               Column("capped", BOOL, help="the stall guard stopped the game")])


def match_columns(k: AMoinsKnobs) -> list[Column]:
    n = k.players
    return ([Column("match"), Column("winner", help="seat with the lowest match total, "
                                     "-1 = shared"), Column("n_deals", help="games played")]
            + [Column(f"final_score_s{i}", help=f"seat {i}'s match total (raw penalties, "
                      "or place points)") for i in range(n)]
            + [Column("drawn", BOOL, help="the lowest match total is shared"),
               Column("blocked_games", help="games ended blocked (talon empty, a full "
                      "round of passes)"),
               Column("capped_games", help="games stopped by the stall guard")])
