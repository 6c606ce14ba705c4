"""Adrénaline rules: deck, knobs, the objectives, the state of a deal and its scoring
(seed 004 "adrénaline"; catalogue ``adrenaline.md``).

The book: "on distribue une à une 5 cartes par joueur. Le paquet restant est posé entre les
deux joueurs, faces visibles. Chaque joueur ramasse ses cartes et les étale sur la table.
Ensuite, chaque joueur note en secret l'objectif qu'il se fixe. [...] il faudra que
l'objectif concerne les cinq cartes de la main [...] à tour de rôle les joueurs prennent
une carte au talon, l'intègrent ou non à leur jeu, puis en rejettent une, face visible
[...] Dès qu'un joueur peut annoncer qu'il a réalisé la combinaison qu'il visait, il
annonce « j'ai fini » [...] au moment où il saisit au talon la dernière carte qui lui est
nécessaire [...] Si à tout moment précédent cette annonce son adversaire crie « stop », le
jeu s'arrête. [...] S'il a trouvé, il gagne 20 points, auquel s'ajoute le nombre de cartes
qui restent au talon ; s'il s'est trompé, il perd 20 points, plus le nombre de cartes qui
restent au talon. Le joueur qui atteint son objectif gagne 30 points, moins le nombre de
cartes qui se trouvent au talon."

Cards are the 52-card pack's ids (``suit * 13 + r``, r = 0 for the 2 .. 12 for the Ace);
a hand is a 52-bit mask. Everything but the two objectives is public: both hands, the
discards, the talon's top card (its order below the top is hidden unless
``talon_fully_visible``; the set of cards in it is known).

Objectives: the agreed list (the book's first regime; the unrestricted one needs a human
judge), the catalogue's 12 entries, each a property of all five cards; a guess is right iff
it names the entry written. ``progress(o, hand, avail)`` is the most cards of ``hand`` in
one completion of ``o`` made of ``avail`` cards (-1: no completion left), 5 = satisfied.

A turn of the mover: the other player may stop (before the draw: a stop before each draw,
catalogue #3); the mover takes the top card; if five of his six cards satisfy his
objective he announces at once (compulsory, the book; knob ``finish_optional``) and scores
30 − t; else he discards one of the six (dead). The deal ends at a finish, a stop or when
the talon is empty (0 to both, catalogue #4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob

DECK = get_deck("52")
PLAYERS = 2
HAND = 5
N_CARDS = 52

OBJECTIVES = ("figures", "no_figures", "straight", "flush", "red", "black", "even", "odd",
              "progression", "full_house", "low", "middle")
OBJECTIVE_TEXT = {
    "figures": "all figures (J, Q, K)", "no_figures": "no figure (A to 10)",
    "straight": "a 5-card straight, any suits (A low or high, no wrap)",
    "flush": "all one suit", "red": "all red", "black": "all black",
    "even": "all even ranks (2, 4, 6, 8, 10, Q)", "odd": "all odd ranks (A, 3, 5, 7, 9, J, K)",
    "progression": "a step-2 progression in one suit (A-3-5-7-9 .. 5-7-9-J-K)",
    "full_house": "a full house (three of a rank and two of another)",
    "low": "all low (A to 5)", "middle": "all middle (6 to 10)"}
(O_FIGURES, O_NO_FIGURES, O_STRAIGHT, O_FLUSH, O_RED, O_BLACK, O_EVEN, O_ODD,
 O_PROGRESSION, O_FULL_HOUSE, O_LOW, O_MIDDLE) = range(12)
MAX_OBJ = 12


def _value(r: int) -> int:
    """The book's rank value of rank index r (A = 1, J = 11, Q = 12, K = 13)."""
    return 1 if r == 12 else r + 2


def _mask(pred) -> np.int64:
    m = 0
    for c in range(N_CARDS):
        if pred(c // 13, c % 13):
            m |= 1 << c
    return np.int64(m)


RANK_MASK = np.array([_mask(lambda s, r, k=k: r == k) for k in range(13)], dtype=np.int64)
SUIT_MASK = np.array([_mask(lambda s, r, k=k: s == k) for k in range(4)], dtype=np.int64)
# the "set" objectives: every card in the set (-1: not a set objective)
SET_MASK = np.full(MAX_OBJ, -1, dtype=np.int64)
SET_MASK[O_FIGURES] = _mask(lambda s, r: _value(r) >= 11)
SET_MASK[O_NO_FIGURES] = _mask(lambda s, r: _value(r) <= 10)
SET_MASK[O_RED] = _mask(lambda s, r: s in (1, 2))
SET_MASK[O_BLACK] = _mask(lambda s, r: s in (0, 3))
SET_MASK[O_EVEN] = _mask(lambda s, r: _value(r) % 2 == 0)
SET_MASK[O_ODD] = _mask(lambda s, r: _value(r) % 2 == 1)
SET_MASK[O_LOW] = _mask(lambda s, r: _value(r) <= 5)
SET_MASK[O_MIDDLE] = _mask(lambda s, r: 6 <= _value(r) <= 10)
# straights: 10 windows of 5 rank indices, A-2-3-4-5 (Ace low) .. 10-J-Q-K-A
STRAIGHTS = np.array([[(v - 2) % 13 if v != 14 else 12 for v in range(lo, lo + 5)]
                      for lo in range(1, 11)], dtype=np.int64)
STRAIGHTS[0] = [12, 0, 1, 2, 3]  # A 2 3 4 5
# step-2 progressions of one suit: values a, a+2, .., a+8 (a = 1..5), 20 targets
PROGRESSIONS = np.array([_mask(lambda s, r, a=a, t=t: s == t and _value(r) in
                               range(a, a + 9, 2)) for t in range(4) for a in range(1, 6)],
                        dtype=np.int64)
# P(at least n of g good talon cards reach me), each with probability 1/2 (drawing in turn)
TAIL = np.zeros((N_CARDS + 1, HAND + 1), dtype=np.float64)
for _g in range(N_CARDS + 1):
    _p = np.array([__import__("math").comb(_g, k) for k in range(_g + 1)], dtype=np.float64)
    _p /= 2.0 ** _g
    for _n in range(HAND + 1):
        TAIL[_g, _n] = _p[_n:].sum()

END_KINDS = ("finish", "stop_right", "stop_wrong", "exhausted")
E_FINISH, E_STOP_RIGHT, E_STOP_WRONG, E_EXHAUSTED = range(4)


@dataclass(frozen=True)
class AdrenalineKnobs(Knobs):
    objectives: int = knob(12, "the agreed list: its first N entries of figures, "
                           "no_figures, straight, flush, red, black, even, odd, progression, "
                           "full_house, low, middle", lo=2, hi=MAX_OBJ, seed_value="any",
                           seed_case="silent",
                           seed_why="the book lets the players agree a list (or none) and "
                                    "gives five examples; the catalogue's 12 entries (#1)")
    talon_fully_visible: bool = knob(False, "the whole talon's order is seen (false: only "
                                     "its top card, a face-up pile)", seed_value="either",
                                     seed_case="silent",
                                     seed_why="'faces visibles' shows a face-up pile, whose "
                                              "top card only can be read (catalogue #2)")
    finish_optional: bool = knob(False, "a player who holds his objective may delay 'j'ai "
                                 "fini' (false: he announces at the completing draw, the book)")
    finish_base: int = knob(30, "a finish scores finish_base − t (the book: 30)", lo=0, hi=1000)
    stop_base: int = knob(20, "a stop scores ±(stop_base + t) to the stopper (the book: 20)",
                          lo=0, hi=1000)
    match_deals: int = knob(6, "match: deals, the first player alternating; the higher total "
                            "wins", lo=1, hi=999, seed_value="one deal", seed_case="silent",
                            seed_why="the book scores one deal; the catalogue's match is an "
                                     "even number of deals with alternating first player")
    # players (players.py), each seat may have its own
    bluff_rate: float = knob(0.2, "heuristic: probability of discarding for a decoy "
                             "objective instead of its own (b)", lo=0.0, hi=1.0, policy=True)
    stop_threshold: float = knob(0.6, "heuristic: stops when its largest posterior on the "
                                 "opponent's objective exceeds this (τ)", lo=0.0, hi=1.01,
                                 policy=True)
    go_at: int = knob(26, "heuristic and bayes: while more than go_at + 2 cards are left "
                      "in the talon, keep at least two cards short of the objective (a "
                      "finish is compulsory and 30 − t is negative above 30)", lo=0, hi=42,
                      policy=True)
    announce_at: int = knob(12, "heuristic, with finish_optional: announces a held objective "
                            "once the talon is this short", lo=0, hi=42, policy=True)
    bayes_noise: float = knob(0.2, "bayes: its model of the opponent discards at random with "
                              "this probability (else for his objective)", lo=0.01, hi=1.0,
                              policy=True)

    def check(self) -> None:
        if self.match_deals < 1:  # the field check already refused it
            raise SimlabError("match_deals must be >= 1")


(KV_NOBJ, KV_VISIBLE, KV_OPTIONAL, KV_FINISH, KV_STOP, KV_MATCH, KV_BLUFF, KV_TAU,
 KV_ANNOUNCE, KV_NOISE, KV_GO, KV_SIZE) = range(12)
P_SCALE = 1_000_000


def knob_vector(k: AdrenalineKnobs) -> np.ndarray:
    return np.array([k.objectives, int(k.talon_fully_visible), int(k.finish_optional),
                     k.finish_base, k.stop_base, k.match_deals, round(k.bluff_rate * P_SCALE),
                     round(k.stop_threshold * P_SCALE), k.announce_at,
                     round(k.bayes_noise * P_SCALE), k.go_at], dtype=np.int64)


# --- objectives -------------------------------------------------------------------------
@hot
def popcount(m: np.int64) -> np.int64:
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@hot
def rank_count(m: np.int64, r: np.int64) -> np.int64:
    return popcount(m & RANK_MASK[r])


@hot
def progress(o: np.int64, hand: np.int64, avail: np.int64) -> np.int64:
    """Most cards of ``hand`` in one completion of objective ``o`` made of ``avail`` cards
    (``hand`` is part of ``avail``); -1: no completion is left; 5 with a 5-card hand: the
    hand satisfies ``o``."""
    best = -1
    if SET_MASK[o] != -1:
        s = SET_MASK[o]
        if popcount(avail & s) >= HAND:
            best = min(HAND, popcount(hand & s))
    elif o == O_FLUSH:
        for t in range(4):
            if popcount(avail & SUIT_MASK[t]) >= HAND:
                best = max(best, min(HAND, popcount(hand & SUIT_MASK[t])))
    elif o == O_STRAIGHT:
        for w in range(10):
            n = 0
            ok = True
            for j in range(HAND):
                rm = RANK_MASK[STRAIGHTS[w, j]]
                if avail & rm == 0:
                    ok = False
                    break
                if hand & rm != 0:
                    n += 1
            if ok:
                best = max(best, n)
    elif o == O_PROGRESSION:
        for i in range(20):
            if avail & PROGRESSIONS[i] == PROGRESSIONS[i]:
                best = max(best, popcount(hand & PROGRESSIONS[i]))
    else:  # O_FULL_HOUSE
        for x in range(13):
            if rank_count(avail, x) < 3:
                continue
            hx = min(3, rank_count(hand, x))
            for y in range(13):
                if y != x and rank_count(avail, y) >= 2:
                    best = max(best, hx + min(2, rank_count(hand, y)))
    return best


@hot
def completion_estimate(o: np.int64, hand: np.int64, talon: np.int64) -> np.float64:
    """The chance of completing ``o`` from ``hand`` under a stated model: each talon card
    reaches me with probability 1/2 (the players draw in turn), independently; the best
    completion counts. 0: impossible."""
    best = 0.0
    if SET_MASK[o] != -1:
        s = SET_MASK[o]
        need = HAND - min(HAND, popcount(hand & s))
        best = TAIL[popcount(talon & s), need]
    elif o == O_FLUSH:
        for t in range(4):
            need = HAND - min(HAND, popcount(hand & SUIT_MASK[t]))
            best = max(best, TAIL[popcount(talon & SUIT_MASK[t]), need])
    elif o == O_STRAIGHT:
        for w in range(10):
            p = 1.0
            for j in range(HAND):
                rm = RANK_MASK[STRAIGHTS[w, j]]
                if hand & rm == 0:
                    p *= 1.0 - 0.5 ** popcount(talon & rm)
            best = max(best, p)
    elif o == O_PROGRESSION:
        for i in range(20):
            t = PROGRESSIONS[i]
            missing = t & ~hand
            if talon & missing == missing:
                best = max(best, 0.5 ** popcount(missing))
    else:  # O_FULL_HOUSE
        for x in range(13):
            nx = 3 - min(3, rank_count(hand, x))
            px = TAIL[rank_count(talon, x), nx]
            if px <= best:
                continue
            for y in range(13):
                if y != x:
                    ny = 2 - min(2, rank_count(hand, y))
                    best = max(best, px * TAIL[rank_count(talon, y), ny])
    return best


@hot
def satisfied(o: np.int64, hand: np.int64) -> bool:
    """Does the 5-card ``hand`` satisfy objective ``o``?"""
    return progress(o, hand, hand) == HAND


@hot
def completing_discard(o: np.int64, six: np.int64) -> np.int64:
    """A card whose discard leaves five cards satisfying ``o`` (-1: none)."""
    m = six
    while m != 0:
        c = lowest(m)
        m &= m - 1
        if satisfied(o, six & ~(np.int64(1) << c)):
            return c
    return -1


@hot
def lowest(m: np.int64) -> np.int64:
    c = 0
    while (m >> c) & 1 == 0:
        c += 1
    return c


def objective_index(name: str) -> int:
    try:
        return OBJECTIVES.index(name)
    except ValueError:
        raise SimlabError(f"unknown objective {name!r}; valid: {', '.join(OBJECTIVES)}") from None


def hand_mask(labels: list[str]) -> int:
    m = 0
    for label in labels:
        m |= 1 << DECK.index(label)
    return m


def mask_labels(m: int) -> list[str]:
    return [DECK.labels[c] for c in range(N_CARDS) if (m >> c) & 1]


# --- state ------------------------------------------------------------------------------
# S_HAND+s: hand masks; S_TALON: index of the next talon card in ``order``; S_DEAD: the
# discards; S_OBJ+s: objectives; S_TURN: the mover; S_END: end kind (-1: going on);
# S_ENDER: the seat that finished or stopped; S_T: cards left at the end; S_SCORE+s;
# S_DECOY+s: the decoy objective of a bluffing heuristic; S_BLUFFS+s; S_HELD+s: turns a
# completed objective was held (finish_optional); S_CONF: the stopper's confidence
# (millionths); S_DEAL_HAND+s: the dealt hands.
(S_HAND, S_TALON, S_DEAD, S_OBJ, S_TURN, S_END, S_ENDER, S_T, S_SCORE, S_DECOY, S_BLUFFS,
 S_HELD, S_CONF, S_DEAL_HAND, S_DRAWS, N_ST) = (0, 2, 3, 4, 6, 7, 8, 9, 10, 12, 14, 16, 18,
                                               19, 21, 22)


@hot
def talon_mask(order: np.ndarray, pos: np.int64) -> np.int64:
    m = np.int64(0)
    for i in range(pos, N_CARDS):
        m |= np.int64(1) << order[i]
    return m


@hot
def talon_left(st: np.ndarray) -> np.int64:
    return N_CARDS - st[S_TALON]


# --- result columns ---------------------------------------------------------------------
(C_DEAL, C_DEALER, C_FIRST, C_SCORE, C_WINNER, C_END, C_ENDER, C_T, C_OBJ, C_BLUFFS,
 C_CONF, C_DRAWS, C_DEALT_OK, N_DEAL_COLS) = (0, 1, 2, 3, 5, 6, 7, 8, 9, 11, 13, 14, 15, 17)


def deal_columns(k: AdrenalineKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("dealer", help="the dealer; the other seat draws first"),
            Column("first_player", help="the seat that draws first (the non-dealer)"),
            Column("score_s0", help="seat 0's points: 30 − t for a finish, ±(20 + t) for "
                                    "a stop, 0 otherwise"),
            Column("score_s1", help="seat 1's points"),
            Column("winner", help="the seat with the higher score, -1 = equal (talon "
                                  "exhausted, or a finish at 30 cards left)"),
            Column("end", END_KINDS, help="how the deal ended"),
            Column("ender", help="the seat that finished or stopped (-1: exhausted)"),
            Column("talon_left", help="cards left in the talon at the end (t)"),
            Column("objective_s0", OBJECTIVES, help="seat 0's written objective"),
            Column("objective_s1", OBJECTIVES, help="seat 1's written objective"),
            Column("bluffs_s0", help="seat 0's discards made for a decoy objective"),
            Column("bluffs_s1", help="seat 1's discards made for a decoy objective"),
            Column("stop_confidence", help="the stopper's posterior on its guess, per "
                                           "million (-1: no stop)"),
            Column("draws", help="cards taken from the talon"),
            Column("dealt_done_s0", BOOL, help="seat 0's dealt hand already satisfied its "
                                               "objective"),
            Column("dealt_done_s1", BOOL, help="seat 1's dealt hand already satisfied its "
                                               "objective")]


(M_MATCH, M_WINNER, M_N_DEALS, M_FINAL, M_FINISHES, M_STOPS, M_FIRST, N_MATCH_COLS) = (
    0, 1, 2, 3, 5, 6, 7, 8)


def match_columns(k: AdrenalineKnobs | None = None) -> list[Column]:
    return [Column("match"),
            Column("winner", help="the seat with the higher total, -1 = equal"),
            Column("n_deals", help="deals played"),
            Column("final_score_s0", help="seat 0's total"),
            Column("final_score_s1", help="seat 1's total"),
            Column("finishes", help="deals ended by a finish"),
            Column("stops", help="deals ended by a stop"),
            Column("first_dealer", help="the dealer of the first deal")]


def objectives_in_play(k: AdrenalineKnobs) -> range:
    return range(k.objectives)
