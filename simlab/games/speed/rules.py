"""Speed rules: deck, knobs, the board and its real-time steps (seed 003 "Speed", from
fr.wikihow.com/jouer-au-Speed; catalogue ``speed.md``).

The book: 20 cards to each player (his personal pile, face down), four piles between
them from the 12 others, "les deux piles se trouvant aux extrémités [...] 5 cartes alors
que les deux piles du centre [...] une carte chacune"; each draws 5 ("exactement 5
cartes dans votre main à n'importe quel moment"); the two centre cards are turned at once.
Then both play at the same time onto the two centre piles a card "exactement une valeur
plus grande ou plus petite", 2 3 4 ... R A circular. When neither can play, each turns a
card of an outer pile onto a centre pile; with the outer piles empty, "retournez
simplement les deux piles du centre puis retournez en même temps la première carte du
dessus de chaque pile". The first without cards wins.

There are no turns: ``simlab.mechanics.realtime`` gives each seat a clock. A seat plans
one card onto one pile (its policy's choice among the legal ones) and plays it one
reaction delay later; a play by the other seat that takes its pile (the top changes)
makes it plan again (a refused plan, counted). Refills are immediate.

Where the book is silent or unplayable (catalogue ambiguities, each a knob):

* recycling can repeat forever (two stuck hands): after ``max_recycles`` the game
  stops and the player with fewer cards left wins (equal: drawn);
* mistakes: with the seat's ``error_rate`` an action is an illegal card, taken back,
  and the seat freezes ``error_penalty`` seconds;
* when nobody can play, both flip after ``stall_delay`` seconds.

Cards: ids 0..51 (suit * 13 + rank), rank 0 = 2 .. 12 = A; only ranks matter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import realtime as rt

DECK = get_deck("52")
N_CARDS = 52
N_RANKS = 13
PLAYERS = 2
MAX_HAND = 10


@dataclass(frozen=True)
class SpeedKnobs(Knobs):
    hand_size: int = knob(5, "cards in hand, refilled at once from the personal pile "
                          "(seed: 5)", lo=1, hi=MAX_HAND)
    personal_pile: int = knob(20, "cards dealt to each player, hand included (seed: 20)",
                              lo=1, hi=24)
    replacement_pile: int = knob(5, "cards in each outer (replacement) pile (seed: 5)",
                                 lo=0, hi=20)
    recycle_shuffle: bool = knob(False, "when the outer piles are empty the centre piles "
                                 "are turned over as they are (seed: 'retournez "
                                 "simplement les deux piles'); true shuffles them")
    max_recycles: int = knob(20, "after this many recyclings the game stops and the "
                             "player with fewer cards left wins (equal: drawn)",
                             lo=1, hi=10_000, seed_value="no cap", seed_case="unplayable",
                             seed_why="two hands that can never play recycle the same "
                                      "piles forever; the catalogue (#2) caps it")
    stall_delay: float = knob(1.0, "seconds both players take to flip new centre cards "
                              "when nobody can play", lo=0.0, hi=60.0)
    error_penalty: float = knob(1.0, "seconds a player freezes after a mistake (an "
                                "illegal card taken back)", lo=0.0, hi=60.0)
    match_games: int = knob(1, "match: games played; the match goes to the player who "
                            "won more of them (equal: drawn)", lo=1, hi=999)
    # the player model (simlab.mechanics.realtime), per seat: heuristic:rt_median=1.2
    rt_median: float = knob(0.9, "median reaction delay in seconds (lognormal; the "
                            "catalogue's 0.9 s)", lo=0.001, hi=rt.MAX_MEDIAN_S, policy=True)
    rt_sigma: float = knob(0.35, "spread of the reaction delay (sigma of its logarithm)",
                           lo=0.0, hi=rt.MAX_SIGMA, policy=True)
    rt_scan: float = knob(0.05, "seconds added per legal option the player looks over",
                          lo=0.0, hi=rt.MAX_SCAN_S, policy=True)
    error_rate: float = knob(0.0, "chance that an action is an illegal card (taken back, "
                             "then error_penalty seconds frozen)", lo=0.0, hi=1.0,
                             policy=True)
    spread_weight: int = knob(16, "heuristic: weight of each rank of top the hand can "
                              "still play on after the play", lo=-100, hi=100, policy=True)
    follow_up_weight: int = knob(-1, "heuristic: weight of each legal play the hand keeps "
                                 "on the two new tops (the catalogue's keep-follow-ups "
                                 "chooser: +1 with spread_weight 0)", lo=-100, hi=100,
                                 policy=True)

    def check(self) -> None:
        used = 2 * self.personal_pile + 2 * self.replacement_pile + 2
        if used > N_CARDS:
            raise SimlabError(f"personal_pile {self.personal_pile} and replacement_pile "
                              f"{self.replacement_pile} need {used} cards; the pack has 52 "
                              "(2 x personal + 2 x replacement + 2 <= 52)")


(KV_MEDIAN, KV_SIGMA, KV_SCAN, KV_ERROR) = range(rt.RT_BLOCK)
(KV_HAND, KV_PERSONAL, KV_REPLACE, KV_SHUFFLE, KV_MAX_RECYCLES, KV_STALL_MS, KV_PENALTY_MS,
 KV_MATCH_GAMES, KV_SPREAD_W, KV_FOLLOW_W, KV_SIZE) = range(rt.RT_BLOCK, rt.RT_BLOCK + 11)


def knob_vector(k: SpeedKnobs) -> np.ndarray:
    return np.array(rt.reaction_block(k.rt_median, k.rt_sigma, k.rt_scan, k.error_rate)
                    + [k.hand_size, k.personal_pile, k.replacement_pile,
                       int(k.recycle_shuffle), k.max_recycles, round(k.stall_delay * 1000),
                       round(k.error_penalty * 1000), k.match_games,
                       k.spread_weight, k.follow_up_weight], dtype=np.int64)


# --- the board ------------------------------------------------------------------------
# piles[k, :] with counts n[k]; the top of a pile is its last card.
PERSONAL, HAND, CENTRE, OUTER = 0, 2, 4, 6
N_PILES = 8
PILE_CAP = N_CARDS
# scalars
(S_OVER, S_WINNER, S_STALLS, S_RECYCLES, S_CAPPED, S_PLAYS, S_ERRORS, S_REFUSED,
 S_PLAN_CARD, S_PLAN_PILE, S_FROZEN, N_ST) = (0, 1, 2, 3, 4, 5, 7, 9, 11, 13, 15, 17)


@hot
def rank_of(card: np.int64) -> np.int64:
    return card % N_RANKS


@hot
def adjacent(a: np.int64, b: np.int64) -> bool:
    """Ranks one apart, circularly (A next to K and to 2)."""
    d = (a - b) % N_RANKS
    return d == 1 or d == N_RANKS - 1


@hot
def top_rank(piles: np.ndarray, n: np.ndarray, pile: np.int64) -> np.int64:
    if n[pile] == 0:
        return np.int64(-100)
    return rank_of(piles[pile, n[pile] - 1])


@hot
def push(piles: np.ndarray, n: np.ndarray, pile: np.int64, card: np.int64) -> None:
    piles[pile, n[pile]] = card
    n[pile] += 1


@hot
def pop(piles: np.ndarray, n: np.ndarray, pile: np.int64) -> np.int64:
    n[pile] -= 1
    return piles[pile, n[pile]]


@hot
def refill(piles: np.ndarray, n: np.ndarray, seat: np.int64, hand_size: np.int64) -> None:
    while n[HAND + seat] < hand_size and n[PERSONAL + seat] > 0:
        push(piles, n, HAND + seat, pop(piles, n, PERSONAL + seat))


@hot
def cards_left(n: np.ndarray, seat: np.int64) -> np.int64:
    return n[HAND + seat] + n[PERSONAL + seat]


@hot
def deal(deck: np.ndarray, piles: np.ndarray, n: np.ndarray, st: np.ndarray,
         kv: np.ndarray) -> None:
    """From a shuffled pack: each player's personal pile, the two outer piles, the two
    centre cards (turned), and the hands drawn."""
    for k in range(N_PILES):
        n[k] = 0
    for i in range(N_ST):
        st[i] = 0
    st[S_WINNER] = -1
    st[S_PLAN_CARD] = -1
    st[S_PLAN_CARD + 1] = -1
    i = 0
    for s in range(PLAYERS):
        for _ in range(kv[KV_PERSONAL]):
            push(piles, n, PERSONAL + s, deck[i])
            i += 1
    for s in range(PLAYERS):
        for _ in range(kv[KV_REPLACE]):
            push(piles, n, OUTER + s, deck[i])
            i += 1
    for s in range(PLAYERS):
        push(piles, n, CENTRE + s, deck[i])
        i += 1
    for s in range(PLAYERS):
        refill(piles, n, s, kv[KV_HAND])


@hot
def legal(piles: np.ndarray, n: np.ndarray, seat: np.int64, slot: np.int64,
          pile: np.int64) -> bool:
    """The card in hand slot ``slot`` may go onto centre pile ``pile`` (0 or 1)."""
    if slot < 0 or slot >= n[HAND + seat]:
        return False
    return adjacent(rank_of(piles[HAND + seat, slot]), top_rank(piles, n, CENTRE + pile))


@hot
def count_options(piles: np.ndarray, n: np.ndarray, seat: np.int64) -> np.int64:
    c = 0
    for slot in range(n[HAND + seat]):
        for p in range(2):
            if legal(piles, n, seat, slot, p):
                c += 1
    return c


@hot
def play(piles: np.ndarray, n: np.ndarray, seat: np.int64, slot: np.int64, pile: np.int64,
         hand_size: np.int64) -> None:
    """Hand slot ``slot`` onto centre pile ``pile``; the hand is refilled at once."""
    h = HAND + seat
    card = piles[h, slot]
    piles[h, slot] = piles[h, n[h] - 1]  # the hand's order does not matter
    n[h] -= 1
    push(piles, n, CENTRE + pile, card)
    refill(piles, n, seat, hand_size)


@hot
def flip(piles: np.ndarray, n: np.ndarray) -> bool:
    """Nobody can play: each outer pile turns its top card onto its centre pile. False
    when both outer piles are empty (the centre piles must be recycled)."""
    flipped = False
    for s in range(PLAYERS):
        if n[OUTER + s] > 0:
            push(piles, n, CENTRE + s, pop(piles, n, OUTER + s))
            flipped = True
    return flipped


@hot
def recycle(piles: np.ndarray, n: np.ndarray, state: np.uint64, shuffle: bool
            ) -> np.uint64:
    """Each centre pile is turned over (its first card on top: no shuffle, the book) to
    become an outer pile, whose top card is then turned to start the centre pile again."""
    for s in range(PLAYERS):
        c = CENTRE + s
        o = OUTER + s
        m = n[c]
        for j in range(m):  # turned over: the bottom card ends on top
            piles[o, n[o] + j] = piles[c, m - 1 - j]
        n[o] += m
        n[c] = 0
        if shuffle and n[o] > 1:
            for i in range(n[o] - 1, 0, -1):
                state, j = rng.below(state, i + 1)
                t = piles[o, i]
                piles[o, i] = piles[o, j]
                piles[o, j] = t
        if n[o] > 0:
            push(piles, n, c, pop(piles, n, o))
    return state


@hot
def winner_at_cap(n: np.ndarray) -> np.int64:
    a = cards_left(n, 0)
    b = cards_left(n, 1)
    if a < b:
        return np.int64(0)
    if b < a:
        return np.int64(1)
    return np.int64(-1)


# --- result columns -------------------------------------------------------------------
(C_DEAL, C_SCORE, C_WINNER, C_DRAW, C_RESULT, C_LEFT, C_TIME, C_PLAYS, C_STALLS,
 C_RECYCLES, C_CAPPED, C_REFUSED, C_ERRORS, C_TIES, N_DEAL_COLS) = (
    0, 1, 3, 4, 5, 6, 8, 9, 11, 12, 13, 14, 15, 16, 17)


def deal_columns(k: SpeedKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("score_s0", help="cards seat 0 got rid of (all of them: it won)"),
            Column("score_s1", help="cards seat 1 got rid of"),
            Column("winner", help="seat that emptied hand and pile first (at the recycle "
                                  "cap: fewer cards left), -1 = drawn"),
            Column("draw", BOOL, help="stopped at the recycle cap with equal cards left"),
            Column("result_s0", help="seat 0's result: +1 won, 0 drawn, -1 lost"),
            Column("cards_left_s0", help="cards in seat 0's hand and pile at the end"),
            Column("cards_left_s1", help="cards in seat 1's hand and pile at the end"),
            Column("time_ms", help="simulated time of the game, milliseconds"),
            Column("plays_s0", help="cards seat 0 played"),
            Column("plays_s1", help="cards seat 1 played"),
            Column("stalls", help="times nobody could play (cards flipped or piles "
                                  "recycled)"),
            Column("recycles", help="times the centre piles were turned over"),
            Column("capped", BOOL, help="stopped at max_recycles"),
            Column("refused", help="plans dropped because the other player took the pile "
                                   "first (conflicts lost)"),
            Column("errors", help="mistakes (illegal cards taken back)"),
            Column("time_ties", help="actions due at the same instant (ordered by a fair "
                                     "draw)")]


(M_MATCH, M_WINNER, M_N_DEALS, M_FINAL, M_DRAWN, M_DRAWN_GAMES, M_STALLS, M_TIME,
 N_MATCH_COLS) = (0, 1, 2, 3, 5, 6, 7, 8, 9)


def match_columns(k: SpeedKnobs | None = None) -> list[Column]:
    return [Column("match"),
            Column("winner", help="seat that won more games, -1 = drawn"),
            Column("n_deals", help="games played"),
            Column("final_score_s0", help="games won by seat 0"),
            Column("final_score_s1", help="games won by seat 1"),
            Column("drawn", BOOL, help="both seats won as many games"),
            Column("drawn_games", help="games drawn at the recycle cap"),
            Column("stalls", help="stalls over the match"),
            Column("time_ms", help="simulated time of the match, milliseconds")]
