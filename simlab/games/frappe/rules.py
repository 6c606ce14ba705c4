"""Frappe: the rules, as state and step (seed 000 "# Frappe", lines 493-617; catalogue
``frappe.md``). Read top to bottom like the rulebook:

1. Matériel, ordre des cartes (seed §1, §3): ``DECK``, ``RANK_OF`` (A = 1 .. K = 13).
2. Knobs: ``FrappeKnobs`` (defaults = the seed, as the catalogue resolves it).
3. Distribution (§4): ``start_deal`` / ``_deal_round``: 8 rounds of 3 cards each.
4. Extension (§4.1): ``turn_extension`` and ``extension_score`` (positions, multiples).
5. Annonces (§5): ``hand_type`` and ``_score_announcements`` at the end of each round.
6. Jeu (§6): ``legal_moves`` and ``play_card``: pair capture and runs (``capture_set``,
   Ace after King), frappe (§6.1, ``S_PREV_STAYED``), contre-frappe and pénitence
   (§6.1, ``_counter_strike`` / ``S_COUNTER_SEAT``), carte en place (§6.2), nettoyage
   (§6.3), the leftover table (§6 last paragraph).
7. Marque et but (§7): ``_end_deal`` (card difference) and ``award`` (61 points, reached
   even in the middle of a deal).

Seats 0 and 1; the non-dealer (``1 - dealer``) plays first in every round ("C'est
l'adversaire du donneur qui a la main au départ, et ensuite les deux joueurs alternent":
each round is 6 plays, ND, D, ND, D, ND, D).

Choices the seed leaves open (catalogue "Ambiguities") are knobs, the catalogue's
resolution the default:

* #1 when the extension is turned: the dealer picks the round, right after dealing it,
  forced in round 8 (``extension_round = 0``); ``extension_round = k`` fixes round k
  (``2`` is the other literal reading of "immédiatement après avoir distribué deux fois 3
  cartes": after the second round of dealing).
* #2 a four in the extension scores ``quad_mult_extension`` (6) pairs.
* #3 a frappe's capture is pending until the opponent's next card; the counter-striker
  takes the three cards and the run (``counter_strike_takes``).
* #4 the pénitence wins the match (at deal level it ends the deal: column ``penitence``):
  "remporte alors immédiatement la partie", read as the match (a deal has no winner in
  §7's scoring); ``penitence_wins_match = false`` reads "la partie" as the deal: it ends
  the deal at once, the match goes on.
* #5 contre-frappe and pénitence only within the round (a strike with a round's last card
  is safe); the seed names the round for the frappe only and is silent on the answers
  (``counter_across_rounds = true``: a strike with a round's last card may be answered
  with the next round's first card, and so may a contre-frappe).
* #6 a cancelled strike scores nothing, its sweep neither; #7 duplicate ranks break a run.

Where the catalogue misreads the seed, the seed wins: the seed says "Un nettoyage peut
être marqué en même temps qu'une frappe ou une contre-frappe", but the catalogue's worked
example 2 gives a counter-strike that answers a sweeping strike only its 3 points (and
its reading #7 would make a counter-sweep impossible, the struck card and the striker's
being two of a rank). Here the counter-strike replaces the cancelled strike ("La frappe
n'est donc pas prise en compte"): judged on the table as it was before the strike, it
sweeps when the strike would have (``counter_strike_sweeps = true``, default; ``false``
gives the catalogue's example).

State (three arrays; every decision is a step on them)
------------------------------------------------------
* ``st`` int64 [N_S]: the named ``S_*`` slots below (phase, round, plies, the frappe
  bookkeeping, points by source and events per seat).
* ``mk`` uint64 [N_M]: card masks (bit = card id): hands, table, won piles, the round's
  dealt hands, the cards each seat played this round, a strike's pending capture, the
  extension.
* ``dk`` int64 [52]: the shuffled pack; ``st[S_DECK_POS]`` is the next card to deal.

Moves: during play ``play_move(r, decline)`` = ``2 * r + decline`` (a card of rank index
``r``; suits never matter, the lowest id of that rank is played; ``decline = 1`` plays it
*en place* without capturing, §6.2); the dealer's extension decision is ``EXT_WAIT`` or
``EXT_TURN``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, bit, lowest, popcount

# --- 1. Matériel, ordre et valeur des cartes (seed §1, §3) -------------------------------
# "Un jeu de 52 cartes"; "1 (As) < 2 < ... < Dame < Roi". Suits never matter.
DECK = get_deck("52")  # suit-major: id = suit * 13 + i, i = 0..12 for 2, 3, .., K, A
N_CARDS = 52
N_RANKS = 13
HAND = 3  # "Le donneur donne 3 cartes à chaque joueur"
N_ROUNDS = 8  # "Cette opération sera répétée 7 autres fois"
EXT_SIZE = 4  # "retourner 4 cartes": 8 x 6 + 4 = 52
PLAYS_PER_ROUND = 2 * HAND
N_PLAYS = N_ROUNDS * PLAYS_PER_ROUND
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _rank_index(label_rank: str) -> int:
    return RANK_NAMES.index(label_rank)


# Rank index of each card id: 0 = As (number 1) .. 12 = Roi (number 13); a card's number
# (en place, extension positions) is its rank index + 1.
RANK_OF = np.array([_rank_index(r) for r in DECK.ranks], dtype=np.int64)
RANK_MASK = np.zeros(N_RANKS, dtype=np.uint64)  # the 4 cards of each rank
for _c in range(N_CARDS):
    RANK_MASK[RANK_OF[_c]] |= np.uint64(1 << _c)
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
R_JACK, R_QUEEN, R_KING = 10, 11, 12


# --- 2. Knobs ------------------------------------------------------------------------------
@dataclass(frozen=True)
class FrappeKnobs(Knobs):
    target: int = knob(61, "match: the first to reach this many points wins, even in the "
                       "middle of a deal (seed §7)", lo=1, hi=100_000)
    value_king: int = knob(4, "pair / frappe / sweep value of a King (seed: Roi -> 4)",
                           lo=0, hi=1000)
    value_queen: int = knob(3, "value of a Queen (seed: Reine -> 3)", lo=0, hi=1000)
    value_jack: int = knob(2, "value of a Jack (seed: Valet -> 2)", lo=0, hi=1000)
    value_low: int = knob(1, "value of 10 down to Ace (seed: 10 à 1 -> 1)", lo=0, hi=1000)
    triple_mult: int = knob(3, "a three of a kind (announcement, contre-frappe, extension "
                            "multiple) scores this many times the pair value (seed: le "
                            "triple)", lo=0, hi=100)
    quad_mult_extension: int = knob(6, "a four in the extension scores this many times the "
                                    "pair value (seed: undefined; catalogue #2: its 6 pairs)",
                                    lo=0, hi=100)
    extension_round: int = knob(0, "round (1-8) after whose dealing the extension is "
                                "turned; 0 = the dealer's choice, forced in round 8 "
                                "(catalogue #1); 2 = the other reading of 'après avoir "
                                "distribué deux fois 3 cartes'", lo=0, hi=8)
    extension_swaps: bool = knob(True, "the dealer may swap extension cards 1<->2 and 3<->4 "
                                 "(seed §4.1)")
    extension_both_ways: bool = knob(True, "extension positions may be counted from the "
                                     "right (seed §4.1: au gré du donneur)")
    en_place_max: int = knob(4, "highest card number that scores en place (seed §6.2: 1 to "
                             "4; 0 = no en place)", lo=0, hi=13)
    en_place_decline: bool = knob(True, "a player may decline a capture to play en place "
                                  "(seed §6.2)")
    wraparound_runs: bool = knob(True, "the Ace follows the King in a run (seed §6: "
                                 "Dame-Roi-As-2)")
    counter_strike_takes: bool = knob(True, "the counter-striker takes the struck card, the "
                                      "striker's, his own and the run (catalogue #3); false: "
                                      "they all go back to the table")
    counter_across_rounds: bool = knob(False, "a contre-frappe may answer a frappe made "
                                       "with a round's last card, with the next round's "
                                       "first card, and a pénitence a contre-frappe so "
                                       "made (the seed is silent; false: only within the "
                                       "round, catalogue #5)")
    penitence_wins_match: bool = knob(True, "the pénitence wins the match at once, the "
                                      "seed's wording read as printed ('remporte alors "
                                      "immédiatement la partie'; a deal has no winner); "
                                      "false: it only ends the deal (the penitent takes "
                                      "the table, the card difference is scored)",
                                      seed_value=True)
    counter_strike_sweeps: bool = knob(True, "a counter-strike sweeps when the strike it "
                                       "cancels would have (seed §6.3: 'un nettoyage peut "
                                       "être marqué en même temps qu'une contre-frappe'); "
                                       "false: the catalogue's worked example 2")
    card_points: bool = knob(True, "end of deal: the player with more cards scores the "
                             "difference (seed §7)")
    max_deals: int = knob(500, "match safety cap on deals (column 'capped')", lo=1,
                          hi=100_000)
    # heuristic policy (players.py)
    extension_timing: str = knob("expected", "heuristic dealer: when to turn the "
                                 "extension: 'expected' (when the expected multiples with "
                                 "the table reach extension_threshold), 'first' (round 1), "
                                 "'last' (round 8), 'random' (a uniform round)",
                                 choices=("expected", "first", "last", "random"),
                                 policy=True)
    # 4: measured (40,000 deals, seed 4) the dealer's edge is 11.05 points a deal, 10.73
    # when always turned last, 7.55 always first; 1.5 gave 9.36
    extension_threshold: float = knob(4.0, "heuristic dealer: expected extension multiples "
                                      "(points) that make him turn it now", lo=0.0,
                                      hi=100.0, policy=True)
    card_weight: float = knob(0.5, "heuristic: worth of one card won (toward the card "
                              "difference) against points marked now", lo=0.0, hi=10.0,
                              policy=True)
    penitence_cost: float = knob(30.0, "heuristic: points a pénitence against it is worth "
                                 "avoiding (it loses the match)", lo=0.0, hi=1000.0,
                                 policy=True)
    # 2: measured by paired deals (20,000, both seats): +0.50 points a deal over 0, +0.04
    # over 1, 3 no better
    exposure_weight: float = knob(2.0, "heuristic: weight of the opponent's best capture "
                                  "on the table a card leaves (by the chance he holds its "
                                  "rank)", lo=0.0, hi=10.0, policy=True)
    # search policy (players.py); measured against the heuristic (duplicate, 600 deals,
    # seed 1): +0.43 points a deal with 12 worlds, +1.46 with 32, +1.98 with 64; 32 keeps
    # one search seat near 100 deals/s
    search_worlds: int = search.worlds_knob(32)
    search_rollouts: int = search.rollouts_knob(1)


(K_TARGET, K_V_KING, K_V_QUEEN, K_V_JACK, K_V_LOW, K_TRIPLE, K_QUAD, K_EXT_ROUND, K_SWAPS,
 K_BOTH_WAYS, K_EN_PLACE_MAX, K_DECLINE, K_WRAP, K_COUNTER_TAKES, K_COUNTER_SWEEPS,
 K_CARD_POINTS, K_MAX_DEALS, K_ACROSS, K_PEN_WINS, N_K) = range(20)
TIMINGS = ("expected", "first", "last", "random")
(PP_TIMING, PP_THRESHOLD, PP_CARD_W, PP_PEN_COST, PP_EXPOSURE, N_PP) = range(6)


def knob_vector(k: FrappeKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[[K_TARGET, K_V_KING, K_V_QUEEN, K_V_JACK, K_V_LOW, K_TRIPLE, K_QUAD, K_EXT_ROUND,
       K_SWAPS, K_BOTH_WAYS, K_EN_PLACE_MAX, K_DECLINE, K_WRAP, K_COUNTER_TAKES,
       K_COUNTER_SWEEPS, K_CARD_POINTS, K_MAX_DEALS, K_ACROSS, K_PEN_WINS]] = [
        k.target, k.value_king, k.value_queen, k.value_jack, k.value_low, k.triple_mult,
        k.quad_mult_extension, k.extension_round, k.extension_swaps, k.extension_both_ways,
        k.en_place_max, k.en_place_decline, k.wraparound_runs, k.counter_strike_takes,
        k.counter_strike_sweeps, k.card_points, k.max_deals, k.counter_across_rounds,
        k.penitence_wins_match]
    return v


def policy_vector(k: FrappeKnobs) -> np.ndarray:
    p = np.zeros(N_PP, dtype=np.float64)
    p[PP_TIMING] = TIMINGS.index(k.extension_timing)
    p[PP_THRESHOLD] = k.extension_threshold
    p[PP_CARD_W] = k.card_weight
    p[PP_PEN_COST] = k.penitence_cost
    p[PP_EXPOSURE] = k.exposure_weight
    return p


@hot_inline
def pair_value(r: int, kv: np.ndarray) -> int:
    """Seed §5: "Roi -> 4, Reine -> 3, Valet -> 2, 10 à 1 -> 1" (pairs, frappes, sweeps)."""
    if r == R_KING:
        return kv[K_V_KING]
    if r == R_QUEEN:
        return kv[K_V_QUEEN]
    if r == R_JACK:
        return kv[K_V_JACK]
    return kv[K_V_LOW]


@hot_inline
def rank_count(m: np.uint64, r: int) -> int:
    return popcount(m & RANK_MASK[r])


# --- the state -----------------------------------------------------------------------------
(S_PHASE, S_DEALER, S_TURN, S_ROUND, S_PLY, S_RPLY, S_DECK_POS, S_EXT_ROUND, S_PREV_STAYED,
 S_PEND_SEAT, S_PEND_RANK, S_PEND_SWEEP, S_COUNTER_SEAT, S_COUNTER_RANK, S_LAST_CAPTURER,
 S_PENITENCE, S_DECISIONS, S_TARGET, S_BASE0, S_BASE1, S_REACHED, S_REACH_SRC,
 S_EXT_RANDOM, S_ANN0, S_ANN1, S_LEFTOVER, S_LEFTOVER_TO, S_EXT_POS, S_EXT_MULT,
 S_PTS) = range(30)
# S_ROUND: 0..7; S_PLY: plays made in the deal (0..48); S_RPLY: plays made this round (0..6)
# S_EXT_ROUND: round the extension was turned in (-1 not yet)
# S_PREV_STAYED: rank of the previous card of this round if it stayed on the table, -1
# S_PEND_*: a frappe awaiting the opponent's next card (seat -1: none); S_PEND_SWEEP: its
#   sweep points (0: not a sweep)
# S_COUNTER_*: the seat that has just counter-struck, and the rank (-1: none): the striker
#   may answer with the pénitence
# S_DECISIONS: decisions made in the deal (keys the search player's streams)
# S_TARGET: match target (0 at deal level: no stop); S_BASE*: match totals before the deal
# S_REACHED: seat that reached the target during this deal (-1); S_REACH_SRC its source
# S_EXT_RANDOM: the round the 'random' extension timing turns it (the dealer's own draw)
# S_ANN*: what each seat announced this round (public): ANN_NONE / ANN_PAIR / ANN_TRIPS
SRC_CARDS, SRC_ANNOUNCE, SRC_STRIKE, SRC_SWEEP, SRC_EN_PLACE, SRC_EXTENSION, N_SRC = range(7)
SOURCES = ("cards", "announce", "strike", "sweep", "en_place", "extension")
S_EV = S_PTS + 2 * N_SRC
(EV_STRIKES, EV_COUNTERS, EV_SWEEPS, EV_EN_PLACE, EV_DECLINED, EV_CAPTURES, EV_ANNOUNCE,
 EV_STRUCK_BACK, N_EV) = range(9)
# EV_STRIKES: frappes that stood; EV_COUNTERS: contre-frappes made; EV_STRUCK_BACK: the
# seat's frappes cancelled by a contre-frappe; EV_ANNOUNCE: rounds whose announcement won
S_PEN_WINS = S_EV + 2 * N_EV  # 1: a pénitence wins the match (knob), read by ``outcome``
N_S = S_PEN_WINS + 1

M_HAND, M_TABLE, M_PILE, M_ROUND, M_PLAYED, M_PEND, M_EXT = 0, 2, 3, 5, 7, 9, 10
N_M = 11  # hands (2), table, piles (2), round hands (2), played this round (2), pending, ext

PH_EXT, PH_PLAY, PH_OVER = 1, 2, 3
ANN_NONE, ANN_PAIR, ANN_TRIPS = 0, 1, 2
EXT_WAIT, EXT_TURN = 0, 1
MAX_MOVES = 2 * HAND


def new_state() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty (st, mk, dk)."""
    return (np.zeros(N_S, dtype=np.int64), np.zeros(N_M, dtype=np.uint64),
            np.zeros(N_CARDS, dtype=np.int64))


@hot
def copy_state(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, st2: np.ndarray,
               mk2: np.ndarray, dk2: np.ndarray) -> None:
    for i in range(N_S):
        st2[i] = st[i]
    for i in range(N_M):
        mk2[i] = mk[i]
    for i in range(N_CARDS):
        dk2[i] = dk[i]


@hot_inline
def play_move(r: int, decline: int) -> int:
    return 2 * r + decline


@hot
def points(st: np.ndarray, seat: int) -> int:
    """Points ``seat`` has marked in this deal, all sources."""
    t = 0
    for s in range(N_SRC):
        t += st[S_PTS + seat * N_SRC + s]
    return t


@hot
def award(st: np.ndarray, seat: int, src: int, pts: int) -> None:
    """Mark ``pts`` for ``seat``. Seed §7: "Le gagnant est le premier joueur à atteindre 61
    points. Ceci peut intervenir durant le jeu": with a match target the deal stops the
    moment a seat's total reaches it."""
    if pts == 0:
        return
    st[S_PTS + seat * N_SRC + src] += pts
    if st[S_TARGET] > 0 and st[S_REACHED] < 0 \
            and st[S_BASE0 + seat] + points(st, seat) >= st[S_TARGET]:
        st[S_REACHED] = seat
        st[S_REACH_SRC] = src
        st[S_PHASE] = PH_OVER


@hot_inline
def _event(st: np.ndarray, seat: int, ev: int) -> None:
    st[S_EV + seat * N_EV + ev] += 1


@hot
def _take(st: np.ndarray, mk: np.ndarray, seat: int, cards: np.uint64) -> None:
    """``cards`` go to ``seat``'s won pile; he is now the last to have captured."""
    mk[M_PILE + seat] |= cards
    st[S_LAST_CAPTURER] = seat
    _event(st, seat, EV_CAPTURES)


# --- 5. Annonces (seed §5) ------------------------------------------------------------------
@hot
def hand_type(m: np.uint64) -> tuple[int, int]:
    """(ANN_NONE / ANN_PAIR / ANN_TRIPS, rank or -1) of a 3-card hand: "chaque joueur ...
    doit déclarer s'il possède une paire ou un brelan"."""
    for r in range(N_RANKS):
        k = rank_count(m, r)
        if k >= 3:
            return ANN_TRIPS, r
        if k == 2:
            return ANN_PAIR, r
    return ANN_NONE, -1


@hot
def _score_announcements(st: np.ndarray, mk: np.ndarray, kv: np.ndarray) -> None:
    """End of a round: "Seule la plus forte combinaison marquera". Any brelan beats any
    pair; then the higher rank (As lowest); "S'il y a encore égalité entre deux paires,
    c'est l'adversaire du donneur qui marque". A brelan is worth 3 pairs. Players always
    announce (catalogue: bots always announce), so no announcement is ever missed."""
    t0, r0 = hand_type(mk[M_ROUND])
    t1, r1 = hand_type(mk[M_ROUND + 1])
    if t0 == ANN_NONE and t1 == ANN_NONE:
        return
    if t0 > t1 or (t0 == t1 and r0 > r1):
        w, t, r = 0, t0, r0
    elif t1 > t0 or r1 > r0:
        w, t, r = 1, t1, r1
    else:
        w, t, r = 1 - st[S_DEALER], t0, r0
    _event(st, w, EV_ANNOUNCE)
    award(st, w, SRC_ANNOUNCE, pair_value(r, kv) * (kv[K_TRIPLE] if t == ANN_TRIPS else 1))


# --- 3. Distribution (seed §4) ----------------------------------------------------------------
@hot
def start_deal(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, deck: np.ndarray, dealer: int,
               kv: np.ndarray, target: int, base0: int, base1: int, ext_random: int) -> None:
    """A new deal from the shuffled ``deck``: "Le donneur donne 3 cartes à chaque joueur,
    en une seule fois" (the non-dealer's 3 first), then the first round starts.
    ``target`` > 0 stops the deal when a seat's match total (``base0``/``base1`` before
    the deal) reaches it; ``ext_random`` is the round the 'random' extension timing
    picks (policy)."""
    for i in range(N_S):
        st[i] = 0
    for i in range(N_M):
        mk[i] = EMPTY
    for i in range(N_CARDS):
        dk[i] = deck[i]
    st[S_DEALER] = dealer
    st[S_EXT_ROUND] = -1
    st[S_LAST_CAPTURER] = -1
    st[S_PENITENCE] = -1
    st[S_REACHED] = -1
    st[S_REACH_SRC] = -1
    st[S_LEFTOVER_TO] = -1
    st[S_TARGET] = target
    st[S_BASE0] = base0
    st[S_BASE1] = base1
    st[S_EXT_RANDOM] = ext_random
    st[S_PEN_WINS] = kv[K_PEN_WINS]
    st[S_PEND_SEAT] = -1
    st[S_COUNTER_SEAT] = -1
    _deal_round(st, mk, dk, kv)


@hot
def _deal_round(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray) -> None:
    dealer = st[S_DEALER]
    nd = 1 - dealer
    pos = st[S_DECK_POS]
    for seat, first in ((nd, pos), (dealer, pos + HAND)):
        m = EMPTY
        for i in range(first, first + HAND):
            m |= bit(dk[i])
        mk[M_HAND + seat] = m
        mk[M_ROUND + seat] = m
        mk[M_PLAYED + seat] = EMPTY
        st[S_ANN0 + seat] = hand_type(m)[0]  # §5: announced, type only
    st[S_DECK_POS] = pos + 2 * HAND
    st[S_RPLY] = 0
    st[S_PREV_STAYED] = -1
    if not kv[K_ACROSS]:  # a frappe or contre-frappe is answered within its round
        st[S_PEND_SEAT] = -1
        st[S_COUNTER_SEAT] = -1
    st[S_TURN] = nd  # the non-dealer plays first
    st[S_PHASE] = PH_PLAY
    if st[S_EXT_ROUND] >= 0:
        return
    # §4.1 "Une fois par manche, immédiatement après avoir distribué ...": the dealer's
    # choice of round (catalogue #1), forced in the last one; or a fixed round (knob)
    fixed = kv[K_EXT_ROUND]
    if (fixed > 0 and st[S_ROUND] + 1 == fixed) or (fixed == 0 and st[S_ROUND] == N_ROUNDS - 1):
        turn_extension(st, mk, dk, kv)
    elif fixed == 0:
        st[S_PHASE] = PH_EXT


# --- 4. Extension (seed §4.1) ------------------------------------------------------------------
@hot
def extension_score(ext: np.ndarray, table: np.uint64, kv: np.ndarray) -> tuple[int, int]:
    """(position points, multiple points) of the extension ``ext`` (4 card ids, as laid)
    on ``table``.

    Positions: "Lorsque le numéro d'une carte correspond à sa position dans l'extension,
    le donneur marque autant de points que le numéro"; he may swap the 1st and 2nd, and
    the 3rd and 4th, and count from either end: the best of these (up to 8) layouts.
    Multiples: "tout multiple (paire, brelan, carré) composé avec l'extension seule ou
    associée à une ou plusieurs cartes retournées de la table": each rank with an
    extension card and at least two cards in all scores its pair value times 1 (pair),
    ``triple_mult`` (brelan) or ``quad_mult_extension`` (carré, catalogue #2)."""
    best = 0
    n_swap = 2 if kv[K_SWAPS] else 1
    n_dir = 2 if kv[K_BOTH_WAYS] else 1
    for s12 in range(n_swap):
        for s34 in range(n_swap):
            for d in range(n_dir):
                pts = 0
                for i in range(EXT_SIZE):
                    j = i
                    if s12 == 1 and j < 2:
                        j = 1 - j
                    if s34 == 1 and j >= 2:
                        j = 5 - j
                    pos = i + 1 if d == 0 else EXT_SIZE - i
                    if RANK_OF[ext[j]] + 1 == pos:
                        pts += pos
                best = max(best, pts)
    em = EMPTY
    for i in range(EXT_SIZE):
        em |= bit(ext[i])
    mult = 0
    for r in range(N_RANKS):
        e = rank_count(em, r)
        n = e + rank_count(table, r)
        if e > 0 and n >= 2:
            mult += pair_value(r, kv) * (1 if n == 2 else kv[K_TRIPLE] if n == 3 else kv[K_QUAD])
    return best, mult


@hot
def turn_extension(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray) -> None:
    """The dealer turns the next 4 cards of the pack; he scores them and "aucune carte
    n'est empochée: toutes les cartes ... restent sur la table"."""
    pos = st[S_DECK_POS]
    ext = dk[pos:pos + EXT_SIZE]
    pos_pts, mult = extension_score(ext, mk[M_TABLE], kv)
    st[S_DECK_POS] = pos + EXT_SIZE
    st[S_EXT_ROUND] = st[S_ROUND]
    st[S_EXT_POS] = pos_pts
    st[S_EXT_MULT] = mult
    for i in range(EXT_SIZE):
        mk[M_EXT] |= bit(ext[i])
    mk[M_TABLE] |= mk[M_EXT]
    award(st, st[S_DEALER], SRC_EXTENSION, pos_pts + mult)


# --- 6. Jeu (seed §6) ---------------------------------------------------------------------------
@hot_inline
def _next_rank(r: int, kv: np.ndarray) -> int:
    """The rank above ``r`` in a run: "l'As peut venir « au-dessus » du Roi" (-1: none)."""
    if r == R_KING:
        return 0 if kv[K_WRAP] else -1
    return r + 1


@hot
def capture_set(table: np.uint64, r: int, kv: np.ndarray) -> tuple[np.uint64, int]:
    """The table cards a card of rank ``r`` captures, and the rank of the last card of the
    run: one table card of rank ``r`` (the pair), then "d'autres cartes [qui] forment une
    suite commençant avec la carte ainsi appairée ..., en s'étendant au-dessus": ranks
    r+1, r+2, ... while present, wrapping K -> A. "Un seul exemplaire" of a repeated rank
    is taken. Empty mask when ``table`` holds no card of rank ``r``."""
    m = table & RANK_MASK[r]
    if m == EMPTY:
        return EMPTY, -1
    taken = bit(lowest(m))
    last = r
    q = _next_rank(r, kv)
    for _ in range(N_RANKS - 1):
        if q < 0 or q == r:
            break
        m = table & RANK_MASK[q]
        if m == EMPTY:
            break
        taken |= bit(lowest(m))
        last = q
        q = _next_rank(q, kv)
    return taken, last


@hot
def to_move(st: np.ndarray) -> int:
    """The seat to decide: the dealer on the extension, the player to move; -1 when over."""
    if st[S_PHASE] == PH_EXT:
        return st[S_DEALER]
    if st[S_PHASE] == PH_PLAY:
        return st[S_TURN]
    return -1


@hot
def _special(st: np.ndarray, seat: int, r: int) -> bool:
    """Does a card of rank ``r`` counter-strike (the opponent's frappe on ``r`` is
    pending) or make the pénitence (the opponent has just counter-struck ``r``)?"""
    o = 1 - seat
    return (st[S_PEND_SEAT] == o and st[S_PEND_RANK] == r) or \
        (st[S_COUNTER_SEAT] == o and st[S_COUNTER_RANK] == r)


@hot
def legal_moves(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """Write the legal moves to ``out`` (room for MAX_MOVES); return how many.

    Extension: wait or turn. Play: one move per rank held (lowest rank first); a card
    that can capture may instead be played *en place* when it is one ("Le joueur peut
    choisir de ne capturer aucune carte ... afin de jouer une carte en place", catalogue
    #12: also instead of a frappe), never instead of a contre-frappe or pénitence."""
    if st[S_PHASE] == PH_EXT:
        out[0] = EXT_WAIT
        out[1] = EXT_TURN
        return 2
    if st[S_PHASE] != PH_PLAY:
        return 0
    p = st[S_TURN]
    hand = mk[M_HAND + p]
    table = mk[M_TABLE]
    n_after = popcount(table) + 1
    n = 0
    for r in range(N_RANKS):
        if hand & RANK_MASK[r] == EMPTY:
            continue
        out[n] = play_move(r, 0)
        n += 1
        if kv[K_DECLINE] and table & RANK_MASK[r] != EMPTY and not _special(st, p, r) \
                and r + 1 == n_after and n_after <= kv[K_EN_PLACE_MAX]:
            out[n] = play_move(r, 1)
            n += 1
    return n


@hot
def _confirm_strike(st: np.ndarray, mk: np.ndarray, kv: np.ndarray) -> None:
    """The opponent did not counter: the frappe stands, its capture and points too."""
    s = st[S_PEND_SEAT]
    st[S_PEND_SEAT] = -1
    _take(st, mk, s, mk[M_PEND])
    mk[M_PEND] = EMPTY
    _event(st, s, EV_STRIKES)
    award(st, s, SRC_STRIKE, pair_value(st[S_PEND_RANK], kv))
    if st[S_PEND_SWEEP] > 0:
        _event(st, s, EV_SWEEPS)
        award(st, s, SRC_SWEEP, st[S_PEND_SWEEP])


@hot
def _counter_strike(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, p: int, c: int,
                    last_of_deal: bool) -> None:
    """§6.1 "l'autre joueur peut effectuer une contre-frappe en jouant une nouvelle fois une
    carte de même rang ... La frappe n'est donc pas prise en compte; le joueur qui a
    effectué la frappe ne marque rien et ne ramasse aucune carte". The counter-striker
    scores ``triple_mult`` times the frappe's value and takes the cards (catalogue #3), and
    sweeps when the cancelled strike would have (see the module docstring), except with
    the deal's last card (§6.3)."""
    r = st[S_PEND_RANK]
    s = st[S_PEND_SEAT]
    cards = mk[M_PEND] | bit(c)
    mk[M_PEND] = EMPTY
    st[S_PEND_SEAT] = -1
    _event(st, s, EV_STRUCK_BACK)
    _event(st, p, EV_COUNTERS)
    if kv[K_COUNTER_TAKES]:
        _take(st, mk, p, cards)
    else:
        mk[M_TABLE] |= cards
    st[S_COUNTER_SEAT] = p
    st[S_COUNTER_RANK] = r
    st[S_PREV_STAYED] = -1
    award(st, p, SRC_STRIKE, kv[K_TRIPLE] * pair_value(r, kv))
    if kv[K_COUNTER_TAKES] and kv[K_COUNTER_SWEEPS] and st[S_PEND_SWEEP] > 0 \
            and not last_of_deal and st[S_PHASE] != PH_OVER:
        _event(st, p, EV_SWEEPS)
        award(st, p, SRC_SWEEP, st[S_PEND_SWEEP])


@hot
def play_card(st: np.ndarray, mk: np.ndarray, kv: np.ndarray, move: int) -> None:
    """The player to move plays a card of the move's rank: everything that card does, and
    nothing after it (the end of the round is ``advance``). The heuristic evaluates a
    move with this alone, so it never reads the next round's cards."""
    p = st[S_TURN]
    o = 1 - p
    r = move >> 1
    decline = move & 1
    c = lowest(mk[M_HAND + p] & RANK_MASK[r])
    mk[M_HAND + p] &= ~bit(c)
    mk[M_PLAYED + p] |= bit(c)
    st[S_PLY] += 1
    st[S_RPLY] += 1
    st[S_DECISIONS] += 1
    last_of_deal = st[S_PLY] == N_PLAYS
    last_of_round = st[S_RPLY] == PLAYS_PER_ROUND
    # a frappe of the opponent awaits this card: a contre-frappe, or the frappe stands
    if st[S_PEND_SEAT] == o:
        if r == st[S_PEND_RANK]:
            _counter_strike(st, mk, kv, p, c, last_of_deal)
            return
        _confirm_strike(st, mk, kv)
        if st[S_PHASE] == PH_OVER:
            return
    # §6.1 "Le premier joueur peut alors exécuter une pénitence en jouant une nouvelle fois
    # une carte de même rang ... le joueur qui l'effectue remporte alors immédiatement la
    # partie" (the match, catalogue #4; ``penitence_wins_match = false``: the deal ends
    # here, the penitent takes the table with his card, the cards are counted)
    if st[S_COUNTER_SEAT] == o and r == st[S_COUNTER_RANK]:
        st[S_PENITENCE] = p
        if kv[K_PEN_WINS]:
            st[S_PHASE] = PH_OVER
            return
        _take(st, mk, p, mk[M_TABLE] | bit(c))
        mk[M_TABLE] = EMPTY
        _end_deal(st, mk, kv)
        return
    st[S_COUNTER_SEAT] = -1
    table = mk[M_TABLE]
    taken = EMPTY
    last = -1
    if decline == 0:
        taken, last = capture_set(table, r, kv)
    if taken != EMPTY:
        # a pair (and its run) is captured. §6.3 nettoyage: the whole table was one run and
        # the card matches its lowest (first) card, i.e. the capture empties the table;
        # "pas de nettoyage possible quand un joueur joue la dernière carte de la partie"
        sweep = pair_value(last, kv) if taken == table and not last_of_deal else 0
        strike = st[S_PREV_STAYED] == r  # §6.1: pairs the previous card, which stayed
        mk[M_TABLE] = table & ~taken
        st[S_PREV_STAYED] = -1
        # the opponent may still counter (catalogue #3, #5): with his next card in this
        # round, or also in the next one (``counter_across_rounds``)
        answerable = not last_of_deal if kv[K_ACROSS] else not last_of_round
        if strike and answerable:
            st[S_PEND_SEAT] = p
            st[S_PEND_RANK] = r
            st[S_PEND_SWEEP] = sweep
            mk[M_PEND] = taken | bit(c)
            return
        _take(st, mk, p, taken | bit(c))
        if strike:
            _event(st, p, EV_STRIKES)
            award(st, p, SRC_STRIKE, pair_value(r, kv))
        if sweep > 0 and st[S_PHASE] != PH_OVER:
            _event(st, p, EV_SWEEPS)
            award(st, p, SRC_SWEEP, sweep)
        return
    # no capture: the card stays. §6.2 en place: "son numéro [correspond] au nombre de
    # cartes sur la table, celle-ci comprise" (1 to 4)
    mk[M_TABLE] = table | bit(c)
    n = popcount(table) + 1
    st[S_PREV_STAYED] = r
    if decline:
        _event(st, p, EV_DECLINED)
    if r + 1 == n and n <= kv[K_EN_PLACE_MAX]:
        _event(st, p, EV_EN_PLACE)
        award(st, p, SRC_EN_PLACE, n)


@hot
def advance(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray) -> None:
    """After a card: the other player's turn, or the end of the round (announcements; the
    next round is dealt, or the deal ends)."""
    if st[S_PHASE] == PH_OVER:
        return
    if st[S_RPLY] < PLAYS_PER_ROUND:
        st[S_TURN] = 1 - st[S_TURN]
        return
    if not kv[K_ACROSS]:
        st[S_COUNTER_SEAT] = -1
    _score_announcements(st, mk, kv)
    if st[S_PHASE] == PH_OVER:
        return
    if st[S_ROUND] == N_ROUNDS - 1:
        _end_deal(st, mk, kv)
        return
    st[S_ROUND] += 1
    _deal_round(st, mk, dk, kv)


@hot
def _end_deal(st: np.ndarray, mk: np.ndarray, kv: np.ndarray) -> None:
    """§6: the table's last cards "vont dans la pile de gain du dernier joueur à avoir
    ramassé des cartes" (nobody's if nobody captured, catalogue #11); §7: "Celui qui en a
    le plus marque un nombre de points égal à la différence"."""
    left = mk[M_TABLE]
    st[S_LEFTOVER] = popcount(left)
    lc = st[S_LAST_CAPTURER]
    if left != EMPTY and lc >= 0:
        mk[M_PILE + lc] |= left
        mk[M_TABLE] = EMPTY
        st[S_LEFTOVER_TO] = lc
    st[S_PHASE] = PH_OVER
    if kv[K_CARD_POINTS]:
        c0 = popcount(mk[M_PILE])
        c1 = popcount(mk[M_PILE + 1])
        if c0 > c1:
            award(st, 0, SRC_CARDS, c0 - c1)
        elif c1 > c0:
            award(st, 1, SRC_CARDS, c1 - c0)


@hot
def apply_move(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, kv: np.ndarray,
               move: int) -> None:
    """The seat ``to_move`` makes ``move`` (legal)."""
    if st[S_PHASE] == PH_EXT:
        st[S_DECISIONS] += 1
        if move == EXT_TURN:
            turn_extension(st, mk, dk, kv)
        if st[S_PHASE] != PH_OVER:
            st[S_PHASE] = PH_PLAY
        return
    play_card(st, mk, kv, move)
    advance(st, mk, dk, kv)


@hot
def outcome(st: np.ndarray, seat: int, bonus: int) -> int:
    """What the search player maximises: the seat's points in the deal minus the
    opponent's, plus ``bonus`` for a pénitence or for reaching the match target (minus it
    when the opponent does)."""
    v = points(st, seat) - points(st, 1 - seat)
    if st[S_PENITENCE] >= 0 and st[S_PEN_WINS]:
        v += bonus if st[S_PENITENCE] == seat else -bonus
    if st[S_REACHED] >= 0:
        v += bonus if st[S_REACHED] == seat else -bonus
    return v


# the unseen cards of a seat: everything but its hand and the public cards
@hot_inline
def unseen_of(mk: np.ndarray, seat: int) -> np.uint64:
    public = mk[M_TABLE] | mk[M_PILE] | mk[M_PILE + 1] | mk[M_PEND]
    return ALL_CARDS & ~public & ~mk[M_HAND + seat]

