"""Duel à Las Vegas: the rules, as state and step (seed 000, heading "# Duel à Las
Vegas", lines 411-492; catalogue ``duel_las_vegas.md``).

Read top to bottom like the rulebook: the packs (§1, §5), the knobs, the state of a
*partie*, how hands compare (§4, via the shared ``simlab.mechanics.poker``), the round (§6: flip,
compare, the weaker player concedes or draws, a tie makes both draw, an empty pack
concedes), and the end (§7: first to 6 rounds, or both packs exhausted).

Two players, each with **their own 54-card pack** (52 + 2 Jokers, knob
``jokers_per_pack``), never mixed (§1, §5). Everything is on the table face up: the only
hidden thing is the order of each pack (catalogue, "Deal"), so both packs' remaining
contents are public by elimination.

A *deal* of simlab is one **partie**: both packs shuffled once, rounds ("plis") played
until a player has won ``rounds_to_win`` rounds or both packs are exhausted (§7: "une
partie ne dépasse jamais un paquet"). A seat's score is +1 for the partie won, -1 lost,
0 drawn (zero-sum); the rounds won are columns of their own.

State (one int64 array ``st``, so that a copy for the search is one loop)
-----------------------------------------------------------------------
* named slots ``S_*``: rounds won, pack positions (cards drawn so far), where the
  current hand starts in the pack, the hand as (natural-card mask, Jokers), the seat to
  decide (-1: none), the phase, counters;
* ``P_OFF`` + seat * ``PACK_MAX``: each seat's pack in draw order. A seat's hand is the
  slice ``pack[start:pos]``: the cards it flipped this round;
* ``K_OFF`` + seat * ``MAX_CHUNKS``: the hand's value, its successive 5-card chunks'
  keys (``simlab.mechanics.poker.chunk_keys``).

Moves: ``CONCEDE`` (0) or ``DRAW`` (1), made by the seat ``to_move`` (the weaker hand).
Steps: ``new_partie`` (shuffled packs) -> repeat ``to_move`` / ``apply_move`` until
``st[S_PHASE] == PH_OVER``; then ``outcome(st, seat)``.

Catalogue resolutions: #1 the wheel is a straight (knob ``wheel_allowed``); #2 standard
tie-breaks (``simlab.mechanics.poker``); #3 long hands split recursively into 5-card hands; #5 a
lone Joker is an Ace (ties an Ace); #6 only the weaker player acts; #7 the marker card
comes from the winner's hand, so it changes nothing (no knob); #8 a tie's two draws are
simultaneous; #9 on a tie, a player with an empty pack concedes (both empty: the round
is void and the partie over, both packs being exhausted). The catalogue's knob table
also lists ``compare_size``, ``tie_rule`` and ``marker_consumes_card`` with no
alternative rule described; they are not knobs here. No catalogue reading contradicts
the seed. Catalogue #4: where several equally strong best 5s leave different cards, the
split is the one best for its owner (``simlab.mechanics.poker.chunk_keys`` searches them; the
leftover only matters when both first hands are exactly equal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import JOKER_SUIT, RANKS_52, CardKind, Deck, _suited
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import poker, search

# --- the packs (§1 "Deux jeux de 54 cartes", §5 "chacun joue séparément avec un jeu") ----
# Card ids within a pack: 0..51 the natural cards (suit * 13 + rank, 2..A, as in
# simlab.mechanics.poker), 52.. the Jokers. Both seats' packs use the same ids.
MAX_JOKERS = 4
N_NATURAL = poker.N_NATURAL
PACK_MAX = N_NATURAL + MAX_JOKERS
MAX_CHUNKS = (PACK_MAX + 4) // 5  # a hand of every card of a pack: 12 chunks of 5
DECK = Deck("56_las_vegas", "one player's pack: 52 cards + up to 4 Jokers "
            "(Duel à Las Vegas; each player has his own)",
            tuple(_suited(RANKS_52) + [CardKind(JOKER_SUIT, "Joker", "Joker", MAX_JOKERS)]))
CONCEDE, DRAW = 0, 1
EXACT_MAX_CARDS = 24  # the exact solver's largest endgame (its stack holds 2 x this + 4)
MOVE_NAMES = ("concede", "draw")


def pack_size(jokers: int) -> int:
    return N_NATURAL + jokers


# --- knobs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class DuelLasVegasKnobs(Knobs):
    rounds_to_win: int = knob(6, "rounds (mains) to win the partie (§7: 'le premier à "
                              "remporter 6 mains')", lo=1, hi=54)
    jokers_per_pack: int = knob(2, "wild Jokers in each player's pack (§1: 54-card packs, "
                                "i.e. 2); a Joker is any card not already in its hand",
                                lo=0, hi=MAX_JOKERS)
    wheel_allowed: bool = knob(True, "A-2-3-4-5 is a straight, the lowest (catalogue #1: "
                               "'ce sont celles du Poker')")
    # heuristic policy (players.py)
    # Tuned by self-play in duplicate (3,000 parties, seats swapped): against the former
    # 2 and 5, concede_gap=1 with max_hand=99 won +0.66 points a partie; max_hand 9 to 99
    # are within 0.03 of each other with gap 1; gap 2 or 3, or always drawing before a
    # 2nd or 3rd card, lose 0.08 to 0.6. Conceding early saves cards, which decide the
    # end of a partie. Then joker_patience 3 (vs 0) won +0.07: conceding with a Joker in
    # hand threw away the strongest card (a first-card Joker won its round 31% of the
    # time, 88% after).
    concede_gap: int = knob(1, "heuristic: concede when the opponent's first 5-card hand "
                            "is at least this many poker categories above one's own (1: "
                            "behind by a category; 99: never for that reason)", lo=1,
                            hi=99, policy=True)
    joker_patience: int = knob(3, "heuristic: categories more one tolerates behind while "
                               "holding a Joker (the next card surely pairs)", lo=0, hi=9,
                               policy=True)
    max_hand: int = knob(12, "heuristic: concede when one's hand already holds this many "
                         "cards (99: never)", lo=1, hi=99, policy=True)
    naive_seat: int = knob(-1, "skill-ceiling control (catalogue question 2): this seat "
                           "plays the naive 'always draw' policy whatever its policy "
                           "(-1: none)", lo=-1, hi=1, policy=True)
    # search policy (players.py)
    # 48 worlds and 1.5 standard errors (was 24 and 2.0): +0.079 [+0.041, +0.117] and
    # +0.090 [+0.051, +0.129] points a partie more against the heuristic, on the same
    # 400 parties in duplicate (seeds 7 and 11); 64 worlds at 1.0: +0.080 [+0.033, +0.127]
    search_worlds: int = search.worlds_knob(48)
    # 12 cards and 10^6 positions: every unforced 12-card decision of 400 heuristic
    # parties (seed 21) solved within 0.5 x 10^6 positions (0.33 s at most), thanks to the
    # solver's table; 13 cards needed up to 5.6 x 10^6 (5 s)
    search_exact_cards: int = knob(
        12, "search player: solve the partie exactly (expectimax over every order of both "
        "packs' remaining cards, both seats optimal) once both packs together hold at "
        "most this many cards (0: never)", lo=0, hi=EXACT_MAX_CARDS, policy=True)
    search_exact_nodes: int = knob(
        1_000_000, "search player: the exact solver gives up (back to the Monte Carlo "
        "lookahead) beyond this many positions visited", lo=1, hi=10**8, policy=True)
    search_tail_cards: int = knob(
        8, "search player: in the Monte Carlo lookahead's playouts, play the exact "
        "optimum (the same solver) once both packs together hold at most this many "
        "cards (0: heuristic playouts to the end)", lo=0, hi=EXACT_MAX_CARDS, policy=True)
    search_z: float = knob(1.5, "search player: play the move other than the heuristic's "
                           "only when its mean gain over the worlds exceeds this many "
                           "standard errors (0: the plain best total)", lo=0.0, hi=10.0,
                           policy=True)


(KV_TARGET, KV_JOKERS, KV_WHEEL, KV_SIZE, N_KV) = range(5)


def knob_vector(k: DuelLasVegasKnobs) -> np.ndarray:
    v = np.zeros(N_KV, dtype=np.int64)
    v[KV_TARGET] = k.rounds_to_win
    v[KV_JOKERS] = k.jokers_per_pack
    v[KV_WHEEL] = k.wheel_allowed
    v[KV_SIZE] = pack_size(k.jokers_per_pack)
    return v


(PP_GAP, PP_MAX_HAND, PP_Z, PP_JOKER, PP_EXACT_CARDS, PP_EXACT_NODES, PP_NAIVE_SEAT,
 PP_TAIL, N_PP) = range(9)


def policy_vector(k: DuelLasVegasKnobs) -> np.ndarray:
    v = np.zeros(N_PP, dtype=np.int64)
    v[PP_GAP] = k.concede_gap
    v[PP_MAX_HAND] = k.max_hand
    v[PP_JOKER] = k.joker_patience
    v[PP_EXACT_CARDS] = k.search_exact_cards
    v[PP_EXACT_NODES] = k.search_exact_nodes
    v[PP_NAIVE_SEAT] = k.naive_seat
    v[PP_TAIL] = k.search_tail_cards
    v[PP_Z] = round(k.search_z * 100)  # hundredths: the policy vector is int64
    return v


# --- state ---------------------------------------------------------------------------------
# per-seat slots come in pairs (seat 0, seat 1)
S_WINS = 0  # rounds won
S_POS = 2  # cards drawn from the pack so far (= the next card's index)
S_START = 4  # index in the pack of the current hand's first card
S_NAT = 6  # the hand's natural cards (bit mask, 52 bits)
S_JOK = 8  # the hand's Jokers
S_DRAWS = 10  # cards drawn by choice (a DRAW move)
S_CONCEDES = 12  # rounds conceded by choice
S_AUTO = 14  # rounds conceded because the pack was empty (§6)
S_DECISIONS = 16  # decisions made (concede or draw)
S_MAX_HAND = 18  # largest hand of the partie
(S_TO_MOVE, S_PHASE, S_ROUNDS, S_VOID, S_TIES, S_PLY, S_FIRST_WINNER, S_LEAD3,
 N_SLOTS) = range(20, 29)
P_OFF = N_SLOTS
K_OFF = P_OFF + 2 * PACK_MAX
N_ST = K_OFF + 2 * MAX_CHUNKS
PH_START, PH_ROUND, PH_OVER = 0, 1, 2  # before a round's first flip / in a round / over


def new_state() -> np.ndarray:
    return np.zeros(N_ST, dtype=np.int64)


@hot
def copy_state(src: np.ndarray, dst: np.ndarray) -> None:
    for i in range(N_ST):
        dst[i] = src[i]


@hot_inline
def to_move(st: np.ndarray) -> int:
    """The seat that must concede or draw (-1 when the partie is over)."""
    return st[S_TO_MOVE]


@hot_inline
def card_at(st: np.ndarray, seat: int, i: int) -> int:
    return st[P_OFF + seat * PACK_MAX + i]


@hot_inline
def cards_left(st: np.ndarray, kv: np.ndarray, seat: int) -> int:
    return kv[KV_SIZE] - st[S_POS + seat]


@hot_inline
def hand_size(st: np.ndarray, seat: int) -> int:
    return st[S_POS + seat] - st[S_START + seat]


# --- hand value (§4) -------------------------------------------------------------------
@hot
def revalue(st: np.ndarray, kv: np.ndarray, seat: int, work: np.ndarray) -> None:
    """Recompute ``seat``'s hand value: §4 "les combinaisons du Poker" with wild Jokers
    (any card not already in the hand), a missing card below any real one; §6 "quand la
    main fait plus de 5 cartes, on la divise en deux mains, la première étant complète
    et la plus forte possible" — and further 5-card hands (catalogue #3), the split
    best for the hand's owner among equally strong first hands (catalogue #4)."""
    poker.chunk_keys(st[S_NAT + seat], st[S_JOK + seat], kv[KV_WHEEL] != 0,
                     st[K_OFF + seat * MAX_CHUNKS:K_OFF + (seat + 1) * MAX_CHUNKS], work)


@hot
def compare_hands(st: np.ndarray) -> int:
    """+1 if seat 0's hand is stronger, -1 if seat 1's, 0 if exactly equal (§6)."""
    return poker.compare_chunks(st[K_OFF:K_OFF + MAX_CHUNKS],
                                st[K_OFF + MAX_CHUNKS:K_OFF + 2 * MAX_CHUNKS])


@hot
def first_category(st: np.ndarray, seat: int) -> int:
    """Poker category of the seat's first (strongest) 5-card hand."""
    return poker.category(st[K_OFF + seat * MAX_CHUNKS])


@hot
def flip(st: np.ndarray, kv: np.ndarray, seat: int, work: np.ndarray) -> None:
    """§5-6: the seat takes the top card of its pack and adds it, face up, to its hand."""
    c = card_at(st, seat, st[S_POS + seat])
    st[S_POS + seat] += 1
    if c >= N_NATURAL:
        st[S_JOK + seat] += 1
    else:
        st[S_NAT + seat] |= 1 << c
    size = hand_size(st, seat)
    if size > st[S_MAX_HAND + seat]:
        st[S_MAX_HAND + seat] = size
    revalue(st, kv, seat, work)


# --- a partie ------------------------------------------------------------------------------
@hot
def new_partie(st: np.ndarray, kv: np.ndarray, pack0: np.ndarray, pack1: np.ndarray,
               work: np.ndarray) -> None:
    """Start a partie from the two shuffled packs (card ids in draw order), and play up to
    the first decision."""
    for i in range(N_ST):
        st[i] = 0
    for i in range(kv[KV_SIZE]):
        st[P_OFF + i] = pack0[i]
        st[P_OFF + PACK_MAX + i] = pack1[i]
    st[S_TO_MOVE] = -1
    st[S_FIRST_WINNER] = -1
    st[S_LEAD3] = -1
    st[S_PHASE] = PH_START
    advance(st, kv, work)


@hot
def end_round(st: np.ndarray, kv: np.ndarray, winner: int) -> None:
    """§6: the hands leave play (the winner's marker card is one of his hand's cards, so
    the packs are untouched, catalogue #7); §7: the partie ends at ``rounds_to_win``
    rounds, or when both packs are exhausted. ``winner`` -1: nobody (both packs empty on
    a tie, catalogue #9)."""
    st[S_ROUNDS] += 1
    st[S_TO_MOVE] = -1
    if winner >= 0:
        st[S_WINS + winner] += 1
        if st[S_ROUNDS] == 1:
            st[S_FIRST_WINNER] = winner
    else:
        st[S_VOID] += 1
    if st[S_ROUNDS] == 3:
        w0 = st[S_WINS]
        w1 = st[S_WINS + 1]
        st[S_LEAD3] = 0 if w0 > w1 else (1 if w1 > w0 else -1)
    for p in range(2):
        st[S_START + p] = st[S_POS + p]
        st[S_NAT + p] = 0
        st[S_JOK + p] = 0
        for i in range(MAX_CHUNKS):
            st[K_OFF + p * MAX_CHUNKS + i] = 0
    done = winner >= 0 and st[S_WINS + winner] >= kv[KV_TARGET]
    if cards_left(st, kv, 0) == 0 and cards_left(st, kv, 1) == 0:
        done = True  # §7 "si les deux joueurs ont épuisé leur paquet"
    st[S_PHASE] = PH_OVER if done else PH_START


@hot
def advance(st: np.ndarray, kv: np.ndarray, work: np.ndarray) -> None:
    """Play every automatic step up to the next decision (or the end): a round's first
    flips, the comparison after each card, the tie's automatic draws, the empty pack's
    concession."""
    while st[S_PHASE] != PH_OVER and st[S_TO_MOVE] < 0:
        if st[S_PHASE] == PH_START:
            # §5: each player flips the top card of his pack; an empty pack flips none,
            # so "chaque main de 1 carte de son adversaire est gagnante" (§6)
            for p in range(2):
                if cards_left(st, kv, p) > 0:
                    flip(st, kv, p, work)
            st[S_PHASE] = PH_ROUND
        c = compare_hands(st)
        if c == 0:
            # §6 "si les deux joueurs ont des mains d'exactement la même valeur, alors les
            # deux doivent automatiquement piocher" (simultaneously, catalogue #8); one
            # who cannot draw concedes (catalogue #9)
            can0 = cards_left(st, kv, 0) > 0
            can1 = cards_left(st, kv, 1) > 0
            if can0 and can1:
                flip(st, kv, 0, work)
                flip(st, kv, 1, work)
                st[S_TIES] += 1
            elif can0 or can1:
                out = 1 if can0 else 0
                st[S_AUTO + out] += 1
                end_round(st, kv, 1 - out)
            else:
                end_round(st, kv, -1)
            continue
        weaker = 1 if c > 0 else 0
        if cards_left(st, kv, weaker) == 0:
            # §6 "lorsqu'un joueur ne peut plus piocher de carte, alors il concède
            # automatiquement"
            st[S_AUTO + weaker] += 1
            end_round(st, kv, 1 - weaker)
            continue
        # §6: "le joueur qui a la main la plus faible doit choisir entre concéder le
        # pli et piocher une nouvelle carte"
        st[S_TO_MOVE] = weaker


@hot
def apply_move(st: np.ndarray, kv: np.ndarray, move: int, work: np.ndarray) -> None:
    """The weaker seat concedes the round or draws a card; then the automatic steps."""
    seat = st[S_TO_MOVE]
    st[S_TO_MOVE] = -1
    st[S_DECISIONS + seat] += 1
    st[S_PLY] += 1
    if move == CONCEDE:
        st[S_CONCEDES + seat] += 1
        end_round(st, kv, 1 - seat)
    else:
        st[S_DRAWS + seat] += 1
        flip(st, kv, seat, work)
    advance(st, kv, work)


# --- the end (§7) --------------------------------------------------------------------------
@hot
def winner_of(st: np.ndarray) -> int:
    """§7: the first to ``rounds_to_win`` — or, both packs exhausted, the one with more
    rounds; equal: no winner (-1)."""
    if st[S_WINS] > st[S_WINS + 1]:
        return 0
    if st[S_WINS + 1] > st[S_WINS]:
        return 1
    return -1


@hot
def outcome(st: np.ndarray, seat: int) -> int:
    """The seat's score for the partie: +1 won, -1 lost, 0 drawn."""
    w = winner_of(st)
    if w < 0:
        return 0
    return 1 if w == seat else -1
