"""Le flair rules: deck, knobs, claims and their truth, the state of a deal, a play and
its challenge (seed 004 "le flair"; catalogue ``flair.md``).

The book: "les cartes, battues, coupées, sont réparties une à une entre les joueurs par le
donneur. A tour de rôle, chaque joueur pose sur la table de une à cinq cartes, faces
cachées, et annonce la nature de la carte (ou du groupe de cartes) qu'il a posée. S'il
pose une carte, il doit annoncer une couleur (♣, ♥, ♦, ♠) ; s'il pose plusieurs cartes, il
doit annoncer une combinaison correspondant au nombre de cartes (paire avec 2 cartes,
brelan ou tierce avec 3, suite ou carré avec 4, suite avec 5). Si personne ne dit rien, le
joueur situé à la gauche de celui qui vient de parler, joue. Par contre, si un joueur
annonce « j'ai du flair ! » le jeu s'arrête. Il doit ensuite dire « vrai » ou « faux »,
selon qu'il croit que celui qui a posé a dit ou non la vérité. S'il a raison, il donne une
de ses cartes au menteur qui, en outre, doit ramasser les cartes qu'il a jouées. S'il a
tort, il ramasse les cartes du joueur, ainsi que la carte que chacun des autres joueurs
lui donne. Le but du jeu est d'être le premier à ne plus avoir de cartes en main."

Cards are the 52-card pack's ids (``suit * 13 + r``, r = 0 for the 2 .. 12 for the Ace);
a hand is a 52-bit mask. A claim is one of ``CLAIMS``; its size is fixed (a suit: 1
card, paire 2, brelan / tierce 3, suite4 / carré 4, suite5 5). Runs (tierce, suite) are
consecutive ranks in any suits, the Ace low or high, no wrap (catalogue #2; knob
``runs_same_suit``). A right challenger ("vrai" on a true claim, "faux" on a false one)
gives one of his cards to the player, who takes back his cards — literally, also when the
claim was true and the call "vrai" (knob ``truthful_protected``); a wrong one takes the
played cards and one card from each other player (the player included, catalogue #7).
Unchallenged cards are out of play, unseen. The first with an empty hand wins (a player
who gives away his last card included); after ``play_cap`` plays the fewest cards wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, knob

DECK = get_deck("52")
N_CARDS = 52
MAX_PLAYERS = 4
CLAIMS = ("spades", "hearts", "diamonds", "clubs", "paire", "brelan", "tierce", "suite4",
          "carre", "suite5")
(CL_SPADES, CL_HEARTS, CL_DIAMONDS, CL_CLUBS, CL_PAIRE, CL_BRELAN, CL_TIERCE, CL_SUITE4,
 CL_CARRE, CL_SUITE5) = range(10)
CLAIM_SIZE = np.array([1, 1, 1, 1, 2, 3, 3, 4, 4, 5], dtype=np.int64)
VERDICTS = ("none", "vrai", "faux")
V_NONE, V_VRAI, V_FAUX = range(3)


def _mask(pred) -> int:
    return sum(1 << c for c in range(N_CARDS) if pred(c // 13, c % 13))


RANK_MASK = np.array([_mask(lambda s, r, k=k: r == k) for k in range(13)], dtype=np.int64)
SUIT_MASK = np.array([_mask(lambda s, r, k=k: s == k) for k in range(4)], dtype=np.int64)
# run windows: rank index lists of L consecutive values, Ace low (A-2-3..) or high (..K-A)
RUN_START = np.array([-1] + list(range(0, 12)), dtype=np.int64)  # -1: starts at the Ace low
LOG_C = np.array([[math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                   if k <= n else -np.inf for k in range(N_CARDS + 1)]
                  for n in range(N_CARDS + 1)], dtype=np.float64)


@dataclass(frozen=True)
class FlairKnobs(Knobs):
    players: int = knob(4, "players (2 to 4)", lo=2, hi=MAX_PLAYERS)
    runs_same_suit: bool = knob(False, "a tierce / suite must be of one suit (false: any "
                                "suits)", seed_value="either", seed_case="silent",
                                seed_why="the book says 'tierce', 'suite' without a suit; "
                                         "any suits (catalogue #2)")
    truthful_protected: bool = knob(False, "a right 'vrai' on a true claim leaves the cards "
                                    "out of play and the challenger takes one card from the "
                                    "player (false: the book's letter, the player takes his "
                                    "cards back plus one)")
    first_caller: str = knob("clockwise", "several players call at once: the first "
                             "clockwise from the player, or one at random",
                             choices=("clockwise", "random"), seed_value="either",
                             seed_case="silent",
                             seed_why="the book does not say who speaks when several call "
                                      "(catalogue #1)")
    play_cap: int = knob(500, "after this many plays the deal stops; the fewest cards wins",
                         lo=10, hi=100_000, seed_value="no cap", seed_case="unplayable",
                         seed_why="the book's deal need not end (catalogue #9)")
    match_deals: int = knob(4, "match: deals, the dealer rotating; most deals won wins",
                            lo=1, hi=999, seed_value="one deal", seed_case="silent",
                            seed_why="the book plays one deal")
    # players (players.py), each seat may have its own
    lie_rate: float = knob(0.3, "heuristic: probability of a false claim (ℓ)", lo=0.0,
                           hi=1.0, policy=True)
    faux_below: float = knob(0.25, "heuristic: says 'faux' when its P(claim true) is below "
                             "this (θ_f)", lo=0.0, hi=1.0, policy=True)
    vrai_above: float = knob(1.01, "heuristic: says 'vrai' when its P(claim true) is above "
                             "this (θ_v; above 1: never, the default: two players who "
                             "call 'vrai' on likely claims punish every honest play and "
                             "96% of 2-player deals reach the play cap at θ_v = 0.85; it "
                             "still says 'vrai' on a likely last play)", lo=0.0, hi=1.01,
                             policy=True)
    assumed_lie_rate: float = knob(0.1, "heuristic: the share of false claims it expects "
                                   "from the others", lo=0.01, hi=0.99, policy=True)
    card_memory: bool = knob(True, "heuristic: remembers where revealed and given cards "
                             "went (card counting)", policy=True)


(KV_N, KV_SAME_SUIT, KV_PROTECTED, KV_RANDOM_CALLER, KV_CAP, KV_MATCH, KV_LIE, KV_FAUX,
 KV_VRAI, KV_ASSUMED, KV_MEMORY, KV_SIZE) = range(12)
P_SCALE = 1_000_000


def knob_vector(k: FlairKnobs) -> np.ndarray:
    return np.array([k.players, int(k.runs_same_suit), int(k.truthful_protected),
                     int(k.first_caller == "random"), k.play_cap, k.match_deals,
                     round(k.lie_rate * P_SCALE), round(k.faux_below * P_SCALE),
                     round(k.vrai_above * P_SCALE), round(k.assumed_lie_rate * P_SCALE),
                     int(k.card_memory)], dtype=np.int64)


@hot
def popcount(m: np.int64) -> np.int64:
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@hot
def lowest(m: np.int64) -> np.int64:
    c = 0
    while (m >> c) & 1 == 0:
        c += 1
    return c


@hot
def window_rank(start: np.int64, j: np.int64) -> np.int64:
    """Rank index of the j-th card of the run starting at ``start`` (-1: the Ace low)."""
    r = start + j
    return 12 if r < 0 else r


@hot
def n_windows(length: np.int64) -> np.int64:
    return 15 - length  # starts -1 (A low) .. 13 - length (A high)


@hot
def has_run(hand: np.int64, length: np.int64, same_suit: np.int64) -> np.int64:
    """A mask of ``length`` cards of ``hand`` forming a run (0: none)."""
    for w in range(n_windows(length)):
        start = w - 1
        if same_suit != 0:
            for s in range(4):
                m = np.int64(0)
                ok = True
                for j in range(length):
                    c = np.int64(1) << (s * 13 + window_rank(start, j))
                    if hand & c == 0:
                        ok = False
                        break
                    m |= c
                if ok:
                    return m
        else:
            m = np.int64(0)
            ok = True
            for j in range(length):
                x = hand & RANK_MASK[window_rank(start, j)]
                if x == 0:
                    ok = False
                    break
                m |= x & -x
            if ok:
                return m
    return 0


@hot
def claim_true(cards: np.int64, claim: np.int64, same_suit: np.int64) -> bool:
    """Are the played ``cards`` what ``claim`` says?"""
    k = popcount(cards)
    if k != CLAIM_SIZE[claim]:
        return False
    if claim <= CL_CLUBS:
        return cards & SUIT_MASK[claim] == cards
    if claim == CL_PAIRE or claim == CL_BRELAN or claim == CL_CARRE:
        r = lowest(cards) % 13
        return cards & RANK_MASK[r] == cards
    return has_run(cards, k, same_suit) == cards


@hot
def find_true(hand: np.int64, claim: np.int64, same_suit: np.int64) -> np.int64:
    """The lowest cards of ``hand`` making ``claim`` true (0: none)."""
    if claim <= CL_CLUBS:
        m = hand & SUIT_MASK[claim]
        return m & -m
    if claim == CL_PAIRE or claim == CL_BRELAN or claim == CL_CARRE:
        need = CLAIM_SIZE[claim]
        for r in range(13):
            m = hand & RANK_MASK[r]
            if popcount(m) >= need:
                out = np.int64(0)
                for _ in range(need):
                    out |= m & -m
                    m &= m - 1
                return out
        return 0
    return has_run(hand, CLAIM_SIZE[claim], same_suit)


def hand_mask(labels: list[str]) -> int:
    return sum(1 << DECK.index(x) for x in labels)


# --- state ------------------------------------------------------------------------------
# S_HAND+s: hands; S_KNOWN + 4*i + j: cards seat i knows to be in seat j's hand;
# S_DEAD: cards out of play; counters.
(S_HAND, S_KNOWN, S_DEAD, S_TURN, S_WINNER, S_PLAYS, S_CHALLENGES, S_VRAI, S_FAUX,
 S_RIGHT, S_LIES, S_LIES_CAUGHT, S_HONEST_PUNISHED, S_TRUE_VRAI, S_CARDS_PLAYED,
 S_CAPPED, S_WRONG_COST, S_N_WRONG, S_CALLS_S, N_ST) = (
    0, 4, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 40)


# --- result columns ---------------------------------------------------------------------
def deal_columns(k: FlairKnobs | None = None) -> list[Column]:
    n = (k or FlairKnobs()).players
    cols = [Column("deal"), Column("dealer", help="the dealer; his left plays first")]
    cols += [Column(f"score_s{i}", help=f"minus the cards left in seat {i}'s hand (0: the "
                                        "winner)") for i in range(n)]
    cols += [Column("winner", help="the first seat with an empty hand (at the cap: the "
                                   "fewest cards; -1: equal)"),
             Column("plays", help="plays (turns)"),
             Column("challenges", help="'j'ai du flair!' calls"),
             Column("vrai_calls", help="calls 'vrai'"),
             Column("faux_calls", help="calls 'faux'"),
             Column("right_calls", help="calls that were right"),
             Column("lies", help="false claims"),
             Column("lies_caught", help="false claims called 'faux'"),
             Column("honest_punished", help="true claims called 'vrai' (the honest player "
                                            "takes his cards back plus one)"),
             Column("true_claims_called", help="true claims challenged"),
             Column("cards_played", help="cards played face down, all plays"),
             Column("capped", BOOL, help="the deal stopped at play_cap"),
             Column("wrong_call_cards", help="cards taken by wrong challengers"),
             Column("wrong_calls", help="calls that were wrong")]
    cols += [Column(f"calls_s{i}", help=f"calls by seat {i}") for i in range(n)]
    return cols


def match_columns(k: FlairKnobs | None = None) -> list[Column]:
    n = (k or FlairKnobs()).players
    return ([Column("match"), Column("winner", help="the seat that won most deals, -1: "
                                                    "equal"),
             Column("n_deals", help="deals played")]
            + [Column(f"final_score_s{i}", help=f"deals won by seat {i}") for i in range(n)]
            + [Column("first_dealer", help="the dealer of the first deal")])
