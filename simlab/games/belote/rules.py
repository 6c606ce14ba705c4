"""Belote rules: deck and tables, knobs, result columns, the state of a deal and its moves,
announcements, Belote-Rebelote, scoring (seed 003 "Belote"; catalogue ``belote.md``).

Read top to bottom like the rulebook. Who decides what (heuristic, random, search) is in
``players.py``; the batch kernels that deal and loop over moves are in ``kernels.py``;
the balance questions in ``questions.py``.

Seats 0..3 clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1; the player on
the dealer's left is ``dealer + 1``.

A deal is a small int64 vector (``S_*`` slots below) with hands and card sets as 32-bit
masks; its moves are card ids (0..31) and the bids ``PASS``, ``TAKE`` (round 1) and
``NAME + suit`` (round 2). ``legal_moves``/``legal_cards_now`` list what the player to
move (``state[S_TO_MOVE]``) may do, ``apply_move`` does it; the phase becomes ``P_DONE``
when the deal is over (thrown in or 8 tricks played) and ``team_marks`` scores it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import SUITS, get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    PARTNER_ANY,
    R_PARTNER_EXEMPT,
    TrickTables,
    bit,
    cards_of,
    has,
    legal_cards,
    make_rules,
    partner_winning,
    trick_tables,
    update_trick,
)

# --- deck and tables ----------------------------------------------------------------
# 32 cards, card id = suit * 8 + r with r = 0..7 for 7, 8, 9, 10, J, Q, K, A (the
# natural order used by sequences).
DECK = get_deck("32")
N_CARDS = 32
R7, R8, R9, R10, RJ, RQ, RK, RA = range(8)
TEAM_OF = np.array([0, 1, 0, 1], dtype=np.int64)
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)

# Rank order: trump J > 9 > A > 10 > K > Q > 8 > 7; plain A > 10 > K > Q > J > 9 > 8 > 7.
STRENGTH_TRUMP = DECK.table({"7": 0, "8": 1, "Q": 2, "K": 3, "10": 4, "A": 5, "9": 6, "J": 7})
STRENGTH_PLAIN = DECK.table({"7": 0, "8": 1, "9": 2, "J": 3, "Q": 4, "K": 5, "10": 6, "A": 7})


def point_tables(queen_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(trump, plain) card points. The seed prints Q = 5, which contradicts its own
    162-point total; the catalogue resolves Q = 3 (knob ``queen_points``)."""
    plain = {"7": 0, "8": 0, "9": 0, "J": 2, "Q": queen_points, "K": 4, "10": 10, "A": 11}
    trump = dict(plain, J=20, **{"9": 14})
    return DECK.table(trump), DECK.table(plain)


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class BeloteKnobs(Knobs):
    queen_points: int = knob(3, "points of a Queen (trump or not); 3 makes the 162-point "
                             "pack the seed states", lo=0, hi=50, seed_value=5,
                             seed_case="contradicts",
                             seed_why="the points table prints 'Dame 5 pts', yet the same "
                                      "section counts 'une possibilité de 162 points', which "
                                      "only a Queen worth 3 gives")
    dix_de_der: int = knob(10, "bonus for the last trick", lo=0, hi=100)
    capot_total: int = knob(250, "card points of a team that takes all 8 tricks", lo=0, hi=1000)
    belote_bonus: int = knob(20, "Belote-Rebelote (K+Q of trump in one hand)", lo=0, hi=200)
    announcements: bool = knob(True, "play with announcements (tierce, cinquante, cent, carrés)")
    ann_carre_jacks: int = knob(200, "carré of Jacks", lo=0, hi=1000)
    ann_carre_nines: int = knob(150, "carré of 9s", lo=0, hi=1000)
    ann_carre_other: int = knob(100, "carré of A, 10, K or Q", lo=0, hi=1000)
    ann_cent: int = knob(100, "cent: 5+ cards in sequence", lo=0, hi=1000)
    ann_cinquante: int = knob(50, "cinquante: 4 cards in sequence", lo=0, hi=1000)
    ann_tierce: int = knob(20, "tierce: 3 cards in sequence", lo=0, hi=1000)
    compare_includes_announcements: bool = knob(
        True, "takers vs defence comparison counts announcements and belote, not only cards")
    belote_kept_when_dedans: bool = knob(True, "a failed taking team still marks its belote")
    litige: str = knob("carry_over", "on a tie, the takers' points go to the winner of the "
                       "next deal (carry_over) or are lost", choices=("carry_over", "lost"))
    target: int = knob(1001, "a team reaching this total wins the match", lo=1, hi=100000)
    second_round_any_suit: bool = knob(
        False, "round 2 may also name the turned card's suit (seed: 'un autre Atout')")
    all_pass: str = knob("next_dealer", "after two rounds of passes the deal is thrown in "
                         "and redealt by", choices=("next_dealer", "same_dealer"))
    overtrump_partner: bool = knob(True, "a player who trumps while his partner is winning "
                                   "must still overtrump if able")
    must_undertrump: bool = knob(True, "void and unable to overtrump an opponent's trump: "
                                 "must still play a (lower) trump")
    max_deals: int = knob(2000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    # heuristic policy
    take_threshold_1: int = knob(6, "heuristic: take the turned suit in round 1 when the "
                                 "trump strength S >= this (S = 4 J + 3 9 + 2 A + 1 per "
                                 "other trump + 1 per side ace, turned card included)",
                                 lo=0, hi=40, policy=True)
    take_threshold_2: int = knob(7, "heuristic: take the best other suit in round 2 when "
                                 "its S >= this", lo=0, hi=40, policy=True)
    win_min_points: int = knob(1, "heuristic: before the last seat, win a trick only when "
                               "it would hold at least this many points", lo=0, hi=200,
                               policy=True)
    lead_partner_suit: bool = knob(True, "heuristic: a defender with no master card to cash "
                                   "leads his cheapest card of a plain suit his partner has "
                                   "led (false: his cheapest card, as before issue 10)",
                                   policy=True)
    careful_follow: bool = knob(True, "heuristic: load 10s and aces on the partner's trick "
                                "only when nothing unseen can take it, else at most a King "
                                "or Queen (false: load on any winning partner, as before "
                                "issue 10)", policy=True)
    # search policy (players.py)
    search_worlds: int = search.worlds_knob(16)
    search_rollouts: int = search.rollouts_knob(1)


# Knob vector layout for the kernels (plain ints keep the kernels' signature stable).
(K_DER, K_CAPOT, K_BELOTE, K_ANN, K_ANN_J, K_ANN_9, K_ANN_OTHER, K_CENT, K_CINQUANTE,
 K_TIERCE, K_COMPARE_ALL, K_BELOTE_KEPT, K_LITIGE_CARRY, K_TARGET, K_ROUND2_ANY,
 K_SAME_DEALER, K_MAX_DEALS, K_TAKE1, K_TAKE2, K_WIN_MIN, K_WORLDS, K_ROLLOUTS,
 K_CAREFUL, K_LEAD_PARTNER, N_K) = range(25)


def _vector(k: BeloteKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[[K_DER, K_CAPOT, K_BELOTE, K_ANN, K_ANN_J, K_ANN_9, K_ANN_OTHER, K_CENT, K_CINQUANTE,
       K_TIERCE, K_COMPARE_ALL, K_BELOTE_KEPT, K_LITIGE_CARRY, K_TARGET, K_ROUND2_ANY,
       K_SAME_DEALER, K_MAX_DEALS, K_TAKE1, K_TAKE2, K_WIN_MIN, K_WORLDS, K_ROLLOUTS,
       K_CAREFUL, K_LEAD_PARTNER]] = [
        k.dix_de_der, k.capot_total, k.belote_bonus, k.announcements, k.ann_carre_jacks,
        k.ann_carre_nines, k.ann_carre_other, k.ann_cent, k.ann_cinquante, k.ann_tierce,
        k.compare_includes_announcements, k.belote_kept_when_dedans, k.litige == "carry_over",
        k.target, k.second_round_any_suit, k.all_pass == "same_dealer", k.max_deals,
        k.take_threshold_1, k.take_threshold_2, k.win_min_points, k.search_worlds,
        k.search_rollouts, k.careful_follow, k.lead_partner_suit]
    return v


def _rules(k: BeloteKnobs) -> np.ndarray:
    # Follow suit; void -> must trump when an opponent is winning; overtrump always
    # (also on a trump lead); a partner winning frees you to discard.
    return make_rules(must_trump=True, partner_exempt=PARTNER_ANY, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=k.overtrump_partner,
                      must_beat_led=False, raise_trump_lead=True)


def tables(knobs: BeloteKnobs) -> TrickTables:
    pts_trump, pts_plain = point_tables(knobs.queen_points)
    return trick_tables(DECK.suit, STRENGTH_TRUMP, STRENGTH_PLAIN, pts_trump, pts_plain)


# --- result columns -----------------------------------------------------------------
CONTRACTS = ("round1", "round2")
ANNOUNCE_KINDS = ("tierce", "cinquante", "cent", "carre")
(C_DEAL, C_DEALER, C_ANNULLED, C_SCORE, C_TAKER, C_CONTRACT, C_MADE, C_TRICKS, C_TPTS,
 C_TRUMP, C_TURNED, C_TAKERS_TOTAL, C_DEFENCE_TOTAL, C_ANN_T, C_ANN_BEST_SEAT,
 C_ANN_BEST_KIND, C_BELOTE_TEAM, C_CAPOT, C_LITIGE, C_LITIGE_POINTS,
 C_FLIPPED) = (0, 1, 2, 3, 7, 8, 9, 10, 14, 18, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30)
N_DEAL_COLS = 31


def deal_columns(_: BeloteKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer"), Column("annulled", BOOL)]
    cols += [Column(f"score_s{i}", help="points marked this deal") for i in range(4)]
    cols += [Column("taker"), Column("contract", CONTRACTS), Column("made", OPT_BOOL)]
    cols += [Column(f"tricks_s{i}") for i in range(4)]
    cols += [Column(f"trick_points_s{i}") for i in range(4)]
    cols += [Column("trump", SUITS), Column("turned_card", DECK.labels),
             Column("takers_total", help="T: takers' cards + valid announcements + belote"),
             Column("defence_total"),
             Column("announce_t0", help="valid announcement points of team 0 (seats 0, 2)"),
             Column("announce_t1"), Column("announce_best_seat"),
             Column("announce_best", ANNOUNCE_KINDS), Column("belote_team"),
             Column("capot", BOOL), Column("litige", BOOL),
             Column("litige_points", help="takers' points held in reserve on a litige"),
             Column("flipped_by_announcements", BOOL,
                    help="takers made it only thanks to announcements/belote, or failed "
                         "only because of the defence's")]
    assert len(cols) == N_DEAL_COLS
    return cols


N_MATCH_COLS = 14


def match_columns(_: BeloteKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"), Column("winner", help="team 0/1, -1 if capped"),
            Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(4)]
    cols += [Column("n_thrown_in"), Column("n_litige"), Column("n_capot"),
             Column("min_lead_of_winner", help="winner's lowest score margin along the match "
                                               "(negative: it came back from behind)"),
             Column("min_lead_of_loser", help="loser's lowest score margin along the match "
                                              "(0 if capped)"),
             Column("capped", BOOL)]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- the state of a deal ----------------------------------------------------------------
# Phases: the two auction rounds, the 8 tricks, over.
P_BID1, P_BID2, P_PLAY, P_DONE = range(4)
# Moves: a card id, or a bid.
PASS = 32
TAKE = 33  # round 1: the turned card's suit
NAME = 34  # round 2: NAME + suit
MAX_MOVES = 8  # at most 8 cards in hand; at most 5 bids (pass + 4 suits)
STOCK = 11  # talon cards left after the turned one, dealt in this order on completion
(S_PHASE, S_DEALER, S_TO_MOVE, S_PLY, S_TURNED, S_TAKER, S_TRUMP, S_ROUND, S_N_SPOKEN,
 S_LEADER, S_LED, S_WIN, S_WIN_SEAT, S_ON_TABLE, S_N_TABLE, S_TRICK, S_GONE) = range(17)
S_HAND = 17  # 4 slots: each seat's hand (card mask)
S_TRICKS = 21  # 4 slots: tricks won per seat
S_TPTS = 25  # 4 slots: card points won per seat (dix de der included)
S_ANN = 29  # 2 slots: valid announcement points per team
S_BEL = 31  # 2 slots: belote points per team
S_ANN_BEST_SEAT, S_ANN_BEST_KIND, S_BELOTE_TEAM = 33, 34, 35
S_STOCK = 36  # 11 slots: the talon below the turned card, in dealing order
S_HIST = 47  # 32 slots: the cards played, in order (the first leader is the dealer's left)
S_LEADS = 79  # 4 slots: the suits each seat has led (bit s = suit s), public
N_STATE = 83


@hot
def hand_of(state: np.ndarray, p: int) -> np.uint64:
    return np.uint64(state[S_HAND + p])


@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, dealt: np.ndarray) -> None:
    """Deal clockwise from the dealer's left: 3 cards each, then 2 each; turn the next
    card; the 11 below it stay in the talon in order. ``dealt`` [4, 5] records the
    cards in dealing order."""
    for i in range(N_STATE):
        state[i] = 0
    state[S_DEALER] = dealer
    pos = 0
    for packet, first in ((3, 0), (2, 3)):
        for k in range(4):
            p = (dealer + 1 + k) % 4
            h = hand_of(state, p)
            for i in range(packet):
                dealt[p, first + i] = deck[pos]
                h |= bit(deck[pos])
                pos += 1
            state[S_HAND + p] = np.int64(h)
    state[S_TURNED] = deck[pos]
    pos += 1
    for i in range(STOCK):
        state[S_STOCK + i] = deck[pos + i]
    state[S_PHASE] = P_BID1
    state[S_TO_MOVE] = (dealer + 1) % 4  # the dealer's left speaks first
    state[S_TAKER] = -1
    state[S_TRUMP] = -1
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_ANN_BEST_SEAT] = -1
    state[S_ANN_BEST_KIND] = -1
    state[S_BELOTE_TEAM] = -1


# --- the auction: two rounds from the dealer's left --------------------------------------
@hot
def bid_moves(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """Round 1: pass or take the turned suit. Round 2: pass or name another suit (any
    suit with ``second_round_any_suit``)."""
    out[0] = PASS
    if state[S_PHASE] == P_BID1:
        out[1] = TAKE
        return 2
    n = 1
    turned_suit = state[S_TURNED] // 8
    for s in range(4):
        if s != turned_suit or kv[K_ROUND2_ANY]:
            out[n] = NAME + s
            n += 1
    return n


@hot
def apply_bid(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    state[S_PLY] += 1
    if move == PASS:
        state[S_N_SPOKEN] += 1
        state[S_TO_MOVE] = (p + 1) % 4
        if state[S_N_SPOKEN] == 4:  # everybody passed this round
            state[S_N_SPOKEN] = 0
            # after the second round, the deal is thrown in: nobody marks
            state[S_PHASE] = P_BID2 if state[S_PHASE] == P_BID1 else P_DONE
        return
    state[S_TAKER] = p
    if move == TAKE:
        state[S_TRUMP] = state[S_TURNED] // 8
        state[S_ROUND] = 1
    else:
        state[S_TRUMP] = move - NAME
        state[S_ROUND] = 2
    complete_hands(state, kv)


@hot
def complete_hands(state: np.ndarray, kv: np.ndarray) -> None:
    """The taker gets the turned card and 2 more, the others 3 each, from the dealer's
    left (catalogue #7); announcements and belote are claimed automatically; the dealer's
    left leads the first trick."""
    dealer = state[S_DEALER]
    taker = state[S_TAKER]
    state[S_HAND + taker] = np.int64(hand_of(state, taker) | bit(state[S_TURNED]))
    pos = 0
    for k in range(4):
        p = (dealer + 1 + k) % 4
        h = hand_of(state, p)
        for _ in range(2 if p == taker else 3):
            h |= bit(state[S_STOCK + pos])
            pos += 1
        state[S_HAND + p] = np.int64(h)
    claim_announcements(state, state[S_HAND], state[S_HAND + 1], state[S_HAND + 2],
                        state[S_HAND + 3], kv)
    state[S_PHASE] = P_PLAY
    state[S_LEADER] = (dealer + 1) % 4
    state[S_TO_MOVE] = (dealer + 1) % 4


# --- announcements and Belote-Rebelote ---------------------------------------------------
@hot
def announcement(hand: np.uint64, trump: int, kv: np.ndarray) -> tuple[int, int, int]:
    """(total points, strength key of the best combination, kind of the best) of a hand.

    Sequences run in the natural order 7 8 9 10 J Q K A; a maximal run of 3 is a tierce,
    4 a cinquante, 5 or more one cent. Carrés of J, 9, A, 10, K, Q (not 8 or 7). A card
    may count both in a carré and in a sequence of the same player (catalogue #5).
    Key order: points, then carré over sequence, then the higher top card (carrés:
    A > 10 > K > Q), then a trump sequence."""
    bits = np.int64(hand)  # suit s is bits >> 8 s & 0xFF, bit r = rank r in 7..A order
    total = 0
    best_key = 0
    best_kind = -1
    for s in range(4):
        m = bits >> (8 * s) & 0xFF
        r = 0
        while r < 8:
            if m >> r & 1:
                e = r
                while e + 1 < 8 and m >> (e + 1) & 1:
                    e += 1
                length = e - r + 1
                if length >= 3:
                    kind = 0 if length == 3 else 1 if length == 4 else 2
                    pts = kv[K_TIERCE] if kind == 0 else kv[K_CINQUANTE] if kind == 1 else kv[K_CENT]
                    total += pts
                    key = pts * 10000 + e * 10 + (1 if s == trump else 0)
                    if key > best_key:
                        best_key = key
                        best_kind = kind
                r = e + 1
            else:
                r += 1
    for r in (R9, R10, RJ, RQ, RK, RA):
        if bits >> r & bits >> (8 + r) & bits >> (16 + r) & bits >> (24 + r) & 1:
            pts = kv[K_ANN_J] if r == RJ else kv[K_ANN_9] if r == R9 else kv[K_ANN_OTHER]
            order = 4 if r == RA else 3 if r == R10 else 2 if r == RK else 1 if r == RQ else 0
            total += pts
            key = pts * 10000 + 5000 + order * 10
            if key > best_key:
                best_key = key
                best_kind = 3
    return total, best_key, best_kind


@hot
def claim_announcements(state: np.ndarray, h0: np.int64, h1: np.int64, h2: np.int64, h3: np.int64,
                        kv: np.ndarray) -> None:
    """Announcements and belote of the hands at the start of play (h0..h3, card masks).

    Only the team holding the strongest combination scores, and it scores all its
    members' combinations; ties go to the earlier player in play order. Belote-Rebelote:
    K and Q of trump in one hand (always claimed)."""
    trump = state[S_TRUMP]
    dealer = state[S_DEALER]
    state[S_ANN] = 0
    state[S_ANN + 1] = 0
    state[S_BEL] = 0
    state[S_BEL + 1] = 0
    state[S_ANN_BEST_SEAT] = -1
    state[S_ANN_BEST_KIND] = -1
    state[S_BELOTE_TEAM] = -1
    for k in range(4):
        p = (dealer + 1 + k) % 4
        h = np.uint64(h0 if p == 0 else h1 if p == 1 else h2 if p == 2 else h3)
        if has(h, trump * 8 + RK) and has(h, trump * 8 + RQ):
            state[S_BELOTE_TEAM] = TEAM_OF[p]
            state[S_BEL + TEAM_OF[p]] = kv[K_BELOTE]
    if not kv[K_ANN]:
        return
    best_key = 0
    totals0 = 0
    totals1 = 0
    for k in range(4):
        p = (dealer + 1 + k) % 4
        h = np.uint64(h0 if p == 0 else h1 if p == 1 else h2 if p == 2 else h3)
        total, key, kind = announcement(h, trump, kv)
        if TEAM_OF[p] == 0:
            totals0 += total
        else:
            totals1 += total
        if key > best_key:
            best_key = key
            state[S_ANN_BEST_SEAT] = p
            state[S_ANN_BEST_KIND] = kind
    if state[S_ANN_BEST_SEAT] >= 0:
        if TEAM_OF[state[S_ANN_BEST_SEAT]] == 0:
            state[S_ANN] = totals0
        else:
            state[S_ANN + 1] = totals1


# --- card play: 8 tricks ----------------------------------------------------------------
# legal_cards_now and play_card (and the heuristic's card choice) are inlined into the
# kernels' loops at numba IR level: the heuristic run measured 1.3-1.5x faster so.
@hot_inline
def legal_cards_now(state: np.ndarray, rules: np.ndarray, suit_of: np.ndarray,
                    suit_mask: np.ndarray, excuse_mask: np.uint64, above_t: np.ndarray) -> np.uint64:
    """The cards the player to move may play (a mask): follow suit; void -> trump when an
    opponent is winning; overtrump (also on a trump lead); see ``_rules``. ``above_t`` is
    the row of ``tables().above`` for the deal's trump (``trump + 1``)."""
    p = state[S_TO_MOVE]
    trump = state[S_TRUMP]
    pw = partner_winning(state[S_WIN], state[S_WIN_SEAT], state[S_LEADER], p, TEAM_OF,
                         rules[R_PARTNER_EXEMPT])
    return legal_cards(hand_of(state, p), state[S_LED], state[S_WIN], pw, trump, suit_of,
                       suit_mask, excuse_mask, above_t, rules)


@hot_inline
def play_card(state: np.ndarray, c: int, kv: np.ndarray, suit_of: np.ndarray,
              points_t: np.ndarray, above_t: np.ndarray) -> None:
    """The player to move plays card ``c``; a full trick goes to its winner (the last one
    with the dix de der), who leads the next. ``points_t``, ``above_t``: the trump's rows
    of ``tables()``."""
    p = state[S_TO_MOVE]
    state[S_HAND + p] = np.int64(hand_of(state, p) & ~bit(c))
    state[S_GONE] = np.int64(np.uint64(state[S_GONE]) | bit(c))
    state[S_HIST + state[S_TRICK] * 4 + state[S_N_TABLE]] = c
    if state[S_N_TABLE] == 0:
        state[S_LEADS + p] |= 1 << suit_of[c]
    state[S_PLY] += 1
    state[S_ON_TABLE] += points_t[c]
    led, win, win_seat = update_trick(c, p, state[S_LED], state[S_WIN], state[S_WIN_SEAT],
                                      state[S_TRUMP], suit_of, above_t)
    n_table = state[S_N_TABLE] + 1
    if n_table < 4:
        state[S_LED] = led
        state[S_WIN] = win
        state[S_WIN_SEAT] = win_seat
        state[S_N_TABLE] = n_table
        state[S_TO_MOVE] = (p + 1) % 4
        return
    trick = state[S_TRICK]
    state[S_TRICKS + win_seat] += 1
    state[S_TPTS + win_seat] += state[S_ON_TABLE] + (kv[K_DER] if trick == 7 else 0)
    state[S_TRICK] = trick + 1
    state[S_LEADER] = win_seat
    state[S_TO_MOVE] = win_seat
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_ON_TABLE] = 0
    state[S_N_TABLE] = 0
    if trick == 7:
        state[S_PHASE] = P_DONE


# --- any decision ---------------------------------------------------------------------------
@hot
def to_move(state: np.ndarray) -> int:
    """The seat to decide, -1 when the deal is over."""
    return -1 if state[S_PHASE] == P_DONE else state[S_TO_MOVE]


@hot
def legal_moves(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                out: np.ndarray) -> int:
    """The moves of the player to move, in the game's move order (bids: pass first; cards:
    ascending id); returns how many."""
    if state[S_PHASE] == P_PLAY:
        return cards_of(legal_cards_now(state, rules, tb[0], tb[1], tb[2], tb[5][state[S_TRUMP] + 1]),
                        out)
    if state[S_PHASE] == P_DONE:
        return 0
    return bid_moves(state, kv, out)


@hot
def apply_move(state: np.ndarray, move: int, kv: np.ndarray, tb: tuple) -> None:
    """Play a card or make a bid (``tb``: ``tables().kernel_args()``). The kernels' loops
    call ``apply_bid`` and ``play_card`` directly with the trump's table rows."""
    if move < N_CARDS:
        t = state[S_TRUMP] + 1
        play_card(state, move, kv, tb[0], tb[4][t], tb[5][t])
    else:
        apply_bid(state, move, kv)


# --- scoring -----------------------------------------------------------------------------------
@hot
def deal_result(takers_team: int, cards0: int, cards1: int, tricks0: int, ann0: int, ann1: int,
                bel0: int, bel1: int, kv: np.ndarray
                ) -> tuple[int, int, int, int, bool, int, int, bool]:
    """Marks of a played deal (catalogue "Result of the deal").

    ``cards0/1``: card points with dix de der of team 0 (seats 0, 2) and team 1;
    ``tricks0``: tricks of team 0; ``ann``: valid announcement points; ``bel``: belote.
    Returns (takers' mark, defence's mark, made, litige reserve, capot, T, D, flipped)
    where T and D are the totals compared and ``flipped`` says announcements/belote
    decided the contract (cards alone would have given the other outcome)."""
    pack = cards0 + cards1  # the deal's card points (162 with the seed's tables)
    capot = False
    if tricks0 == 8:  # capot: the whole deal is worth capot_total
        cards0 = kv[K_CAPOT]
        capot = True
    elif tricks0 == 0:
        cards1 = kv[K_CAPOT]
        capot = True
    c_t, a_t, b_t = (cards0, ann0, bel0) if takers_team == 0 else (cards1, ann1, bel1)
    c_d, a_d, b_d = (cards1, ann1, bel1) if takers_team == 0 else (cards0, ann0, bel0)
    total_t = c_t + a_t + b_t
    total_d = c_d + a_d + b_d
    cmp_t = total_t if kv[K_COMPARE_ALL] else c_t
    cmp_d = total_d if kv[K_COMPARE_ALL] else c_d
    litige_points = 0
    if cmp_t > cmp_d:
        made = 1
        mark_t = total_t
        mark_d = total_d
    elif cmp_t < cmp_d:  # dedans: the defence takes the whole deal and every valid announcement
        made = 0
        kept = b_t if kv[K_BELOTE_KEPT] else 0
        mark_t = kept
        # "162 + every valid announcement": a capot the takers made (yet dedans on the
        # defence's announcements) hands the defence the deal's points, not capot_total
        takers_capot = capot and (tricks0 == 8) == (takers_team == 0)
        cards = pack if takers_capot else c_t + c_d
        mark_d = cards + a_t + a_d + b_d + b_t - kept
    else:  # litige: the takers' points wait for the next deal's winner (or are lost)
        made = 0
        mark_t = 0
        mark_d = total_d
        litige_points = total_t
    flipped = cmp_t != cmp_d and (c_t > c_d) != (made == 1)
    return mark_t, mark_d, made, litige_points, capot, total_t, total_d, flipped


@hot
def state_result(state: np.ndarray, kv: np.ndarray
                 ) -> tuple[int, int, int, int, bool, int, int, bool]:
    """``deal_result`` of a finished, played deal."""
    return deal_result(TEAM_OF[state[S_TAKER]], state[S_TPTS] + state[S_TPTS + 2],
                       state[S_TPTS + 1] + state[S_TPTS + 3], state[S_TRICKS] + state[S_TRICKS + 2],
                       state[S_ANN], state[S_ANN + 1], state[S_BEL], state[S_BEL + 1], kv)


@hot
def team_marks(state: np.ndarray, kv: np.ndarray) -> tuple[int, int]:
    """What team 0 and team 1 mark for a finished deal (0, 0 when thrown in; a litige's
    reserve counts for nobody within the deal)."""
    if state[S_TAKER] < 0:
        return 0, 0
    res = state_result(state, kv)
    mark_t = res[0]
    mark_d = res[1]
    if TEAM_OF[state[S_TAKER]] == 0:
        return mark_t, mark_d
    return mark_d, mark_t


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """Deal columns from C_SCORE on, for a finished deal."""
    taker = state[S_TAKER]
    row[C_TURNED] = state[S_TURNED]
    row[C_TAKER] = taker
    row[C_TRUMP] = state[S_TRUMP]
    row[C_CONTRACT] = state[S_ROUND] - 1
    row[C_ANN_BEST_SEAT] = state[S_ANN_BEST_SEAT]
    row[C_ANN_BEST_KIND] = state[S_ANN_BEST_KIND]
    row[C_BELOTE_TEAM] = state[S_BELOTE_TEAM]
    if taker < 0:  # thrown in: no play, nobody marks
        row[C_MADE] = -1
        return
    for p in range(4):
        row[C_TRICKS + p] = state[S_TRICKS + p]
        row[C_TPTS + p] = state[S_TPTS + p]
    mark_t, mark_d, made, litige_points, capot, total_t, total_d, flipped = state_result(state, kv)
    row[C_MADE] = made
    row[C_CAPOT] = capot
    row[C_LITIGE] = litige_points > 0
    row[C_LITIGE_POINTS] = litige_points
    row[C_TAKERS_TOTAL] = total_t
    row[C_DEFENCE_TOTAL] = total_d
    row[C_ANN_T] = state[S_ANN]
    row[C_ANN_T + 1] = state[S_ANN + 1]
    row[C_FLIPPED] = flipped
    takers_team = TEAM_OF[taker]
    for p in range(4):
        row[C_SCORE + p] = mark_t if TEAM_OF[p] == takers_team else mark_d

