"""La batouille rules: deck, knobs, the state of a game and its simultaneous rounds
(seed 004 "la batouille", d'après François Pingaud; catalogue ``batouille.md``).

The book: "du jeu, sont extraits les 13 ♥ et les 13 ♠. L'un des joueurs prend tous les ♠ ;
l'autre, tous les ♥. Chaque joueur choisit une de ses cartes et la pose, face cachée sur
la table. Les deux joueurs retournent leurs cartes. Celui qui a la carte de rang le plus
élevé remporte le pli. Si les deux joueurs ont posé des cartes de rangs identiques, il n'y
a pas bataille : ils reprennent leurs cartes. La partie continue ainsi jusqu'à
l'épuisement des cartes. Le vainqueur est celui des joueurs qui remporte le plus grand
nombre de plis, c'est-à-dire qui gagne au moins sept des treize plis."

Seat 0 holds the ♠, seat 1 the ♥. A hand is a bit mask over rank indices 0 .. ranks-1
(0 = the lowest rank in play; with fewer than 13 ranks the highest ones are kept). Both
hands are public (every card played is shown), so the state is the two masks, the tricks
won, and the consecutive ties so far; the only hidden thing is the opponent's current
choice. A round: both seats choose a card at once (``apply_round``). Higher rank takes
the trick; equal ranks are replayed (the book), except that (catalogue #2, the book is
silent and its text never ends when both hold the same last card):

* when both hands are the same single card the trick is void and the game ends
  (``forced`` void);
* after ``max_consecutive_ties`` ties in a row the tied cards are set aside, a void trick.

More tricks wins; equal tricks is a draw (with the book's 13 ranks, possible only after a
void trick).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import RANKS_52, SUITS, CardKind, Deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob

# --- deck ---------------------------------------------------------------------------
# 26 cards: ♠ 2..A (ids 0..12) then ♥ 2..A (ids 13..25), in RANKS_52 order.
DECK = Deck("26_batouille", "the 13 ♠ and the 13 ♥ of a 52-card pack (La batouille)",
            tuple(CardKind(s, r, f"{r}{SUITS[s]}") for s in (0, 1) for r in RANKS_52))
PLAYERS = 2
MAX_RANKS = 13
EQ_MAX_RANKS = 8  # the exact equilibrium's limit (equilibrium.py)

TIE_RULES = ("replay", "discard")


@dataclass(frozen=True)
class BatouilleKnobs(Knobs):
    ranks: int = knob(13, "cards in each suit (each player's hand); fewer keeps the highest "
                      "ranks (seed: 13)", lo=2, hi=MAX_RANKS)
    ace_high: bool = knob(True, "the Ace ranks above the King (false: below the 2); only the "
                          "cards' names change, the game is the same order of ranks",
                          seed_value="either", seed_case="silent",
                          seed_why="the book never says where the Ace ranks; the usual "
                                   "convention is high (catalogue #1), and with one suit "
                                   "per player only the order of ranks matters")
    tie_rule: str = knob("replay", "equal ranks: both players take their cards back and "
                         "the round is replayed (seed: 'ils reprennent leurs cartes'), or "
                         "both cards are set aside as a void trick (discard)",
                         choices=TIE_RULES)
    max_consecutive_ties: int = knob(10, "after this many ties in a row the tied cards are "
                                     "set aside as a void trick (and when both hands are "
                                     "the same single card the trick is void at once and "
                                     "the game ends)", lo=1, hi=1000, seed_value="no cap",
                                     seed_case="unplayable",
                                     seed_why="the book replays every tie, so two players "
                                              "left with the same last card (or who keep "
                                              "choosing alike) never finish; the catalogue "
                                              "(#2) voids the trick")
    match_games: int = knob(1, "match: games played; the match goes to the player who won "
                            "more of them (equal: drawn)", lo=1, hi=999)
    # players (players.py)
    mixed_high_p: float = knob(0.5, "mixed_high player: probability of playing the highest "
                               "card (else the lowest)", lo=0.0, hi=1.0, policy=True)

    def check(self) -> None:
        if self.tie_rule not in TIE_RULES:  # the field check already refused it
            raise SimlabError(f"tie_rule {self.tie_rule!r}; allowed: {', '.join(TIE_RULES)}")


# Knob vector for the kernels.
(KV_RANKS, KV_MAX_TIES, KV_MATCH_GAMES, KV_P_HIGH, KV_SIZE) = range(5)
P_SCALE = 1_000_000  # mixed_high_p in millionths


def knob_vector(k: BatouilleKnobs) -> np.ndarray:
    ties = 1 if k.tie_rule == "discard" else k.max_consecutive_ties
    return np.array([k.ranks, ties, k.match_games, round(k.mixed_high_p * P_SCALE)],
                    dtype=np.int64)


def effective_ties(k: BatouilleKnobs) -> int:
    """Consecutive ties after which the tied cards are set aside (1: every tie, the
    ``discard`` rule)."""
    return 1 if k.tie_rule == "discard" else k.max_consecutive_ties


def card_id(k: BatouilleKnobs, seat: int, r: int) -> int:
    """Deck id of seat ``seat``'s card of rank index ``r`` (0 = lowest in play)."""
    order = RANKS_52 if k.ace_high else ["A"] + RANKS_52[:-1]
    return seat * 13 + RANKS_52.index(order[MAX_RANKS - k.ranks + r])


def rank_name(k: BatouilleKnobs, r: int) -> str:
    order = RANKS_52 if k.ace_high else ["A"] + RANKS_52[:-1]
    return order[MAX_RANKS - k.ranks + r]


# --- state --------------------------------------------------------------------------
(S_HAND, S_TRICKS, S_TIES, S_REPLAYS, S_VOIDS, S_FORCED, S_ROUNDS, S_OVER, S_FIRST,
 N_ST) = (0, 2, 4, 5, 6, 7, 8, 9, 10, 11)


@hot
def n_cards(mask: np.int64) -> np.int64:
    n = 0
    while mask != 0:
        mask &= mask - 1
        n += 1
    return n


@hot
def top(mask: np.int64) -> np.int64:
    """Highest rank index in a non-empty hand."""
    r = -1
    while mask != 0:
        mask >>= 1
        r += 1
    return r


@hot
def bottom(mask: np.int64) -> np.int64:
    """Lowest rank index in a non-empty hand."""
    r = 0
    while (mask >> r) & 1 == 0:
        r += 1
    return r


@hot
def new_game(st: np.ndarray, ranks: np.int64) -> None:
    full = (1 << ranks) - 1
    st[S_HAND] = full
    st[S_HAND + 1] = full
    for i in range(S_TRICKS, N_ST):
        st[i] = 0
    st[S_FIRST] = -1
    check_end(st)


@hot
def set_position(st: np.ndarray, hand0: np.int64, hand1: np.int64, tricks0: np.int64,
                 tricks1: np.int64, ties: np.int64) -> None:
    """A hand-built position (tests, the examples)."""
    st[S_HAND] = hand0
    st[S_HAND + 1] = hand1
    for i in range(S_TRICKS, N_ST):
        st[i] = 0
    st[S_TRICKS] = tricks0
    st[S_TRICKS + 1] = tricks1
    st[S_TIES] = ties
    st[S_FIRST] = -1
    check_end(st)


@hot
def legal(st: np.ndarray, seat: int, r: int) -> bool:
    """Any card of one's hand may be played."""
    return st[S_OVER] == 0 and r >= 0 and (st[S_HAND + seat] >> r) & 1 == 1


@hot
def check_end(st: np.ndarray) -> None:
    """The game ends when the hands are empty, or (catalogue #2) with a void trick when
    both hands are the same single card: no choice can ever decide that round."""
    h0 = st[S_HAND]
    h1 = st[S_HAND + 1]
    if h0 == 0:
        st[S_OVER] = 1
    elif h0 == h1 and (h0 & (h0 - 1)) == 0:
        st[S_HAND] = 0
        st[S_HAND + 1] = 0
        st[S_VOIDS] += 1
        st[S_FORCED] = 1
        st[S_OVER] = 1


@hot
def apply_round(st: np.ndarray, max_ties: np.int64, r0: np.int64, r1: np.int64) -> None:
    """Both seats reveal: rank index ``r0`` (seat 0's ♠) and ``r1`` (seat 1's ♥)."""
    st[S_ROUNDS] += 1
    if r0 == r1:
        st[S_REPLAYS] += 1
        if st[S_TIES] + 1 >= max_ties:  # set aside: a void trick
            st[S_HAND] &= ~(1 << r0)
            st[S_HAND + 1] &= ~(1 << r1)
            st[S_VOIDS] += 1
            st[S_TIES] = 0
        else:  # "ils reprennent leurs cartes"
            st[S_TIES] += 1
    else:
        w = 0 if r0 > r1 else 1
        st[S_HAND] &= ~(1 << r0)
        st[S_HAND + 1] &= ~(1 << r1)
        st[S_TRICKS + w] += 1
        st[S_TIES] = 0
        if st[S_FIRST] < 0:
            st[S_FIRST] = w
    check_end(st)


@hot
def winner_of(st: np.ndarray) -> np.int64:
    """Seat with more tricks, -1 = drawn."""
    if st[S_TRICKS] > st[S_TRICKS + 1]:
        return 0
    if st[S_TRICKS + 1] > st[S_TRICKS]:
        return 1
    return -1


@hot
def outcome(st: np.ndarray, seat: int) -> np.int64:
    """+1 won, 0 drawn, -1 lost, for ``seat``."""
    w = winner_of(st)
    if w < 0:
        return 0
    return 1 if w == seat else -1


# --- result columns -------------------------------------------------------------------
# No ``dealer`` / ``first_dealer`` column: both seats play at once and nobody deals, so
# the common dealer-position metrics (``standard_defs`` builds them only from a ``dealer``
# column) would compare two meaningless halves of the run.
(C_DEAL, C_SCORE, C_WINNER, C_DRAW, C_RESULT, C_REPLAYS, C_VOIDS, C_FORCED, C_ROUNDS,
 C_FIRST, N_DEAL_COLS) = (0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11)


def deal_columns(k: BatouilleKnobs | None = None) -> list[Column]:
    return [Column("deal"),
            Column("score_s0", help="tricks won by seat 0 (♠)"),
            Column("score_s1", help="tricks won by seat 1 (♥)"),
            Column("winner", help="seat with more tricks, -1 = drawn"),
            Column("draw", BOOL, help="equal tricks (with an odd number of ranks, only "
                                          "after a void trick)"),
            Column("result_s0", help="seat 0's result: +1 won, 0 drawn, -1 lost"),
            Column("replays", help="tied rounds (replayed, or set aside as a void trick)"),
            Column("voids", help="void tricks (ties set aside, and the forced last tie)"),
            Column("forced_void", BOOL, help="the game ended with both hands the same "
                                             "single card (a forced void trick)"),
            Column("rounds", help="rounds played, ties included"),
            Column("first_trick_winner", help="seat that won the first decided trick "
                                              "(-1: none)")]


(M_MATCH, M_WINNER, M_N_DEALS, M_FINAL, M_DRAWN, M_DRAWN_GAMES, M_REPLAYS, M_FORCED,
 N_MATCH_COLS) = (0, 1, 2, 3, 5, 6, 7, 8, 9)


def match_columns(k: BatouilleKnobs | None = None) -> list[Column]:
    return [Column("match"),
            Column("winner", help="seat that won more games, -1 = drawn"),
            Column("n_deals", help="games played"),
            Column("final_score_s0", help="games won by seat 0"),
            Column("final_score_s1", help="games won by seat 1"),
            Column("drawn", BOOL, help="both seats won as many games"),
            Column("drawn_games", help="games drawn (equal tricks)"),
            Column("replays", help="tied rounds over the match"),
            Column("forced_voids", help="games ended by a forced void trick")]
