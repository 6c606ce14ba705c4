"""Belote, classic 4-player game in two teams (seed 003 "Belote"; catalogue ``belote.md``).

Read top to bottom like the rulebook: deck and tables, knobs, deal, auction,
completion of hands, announcements, Belote-Rebelote, play, scoring, match.

Seats 0..3 clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1; the player on
the dealer's left is ``dealer + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab.decks import SUITS, get_deck
from simlab.games.base import (
    BOOL,
    HEURISTIC,
    OPT_BOOL,
    Column,
    Game,
    KernelOutput,
    policy_codes,
)
from simlab.jit import batch, hot
from simlab.knobs import Knobs, knob
from simlab.metrics import MetricDef, ratio_of_sums, std_dev, team_value
from simlab.tricks import (
    EMPTY,
    ONE,
    PARTNER_ANY,
    R_PARTNER_EXEMPT,
    TrickTables,
    best_in,
    bit,
    cards_of,
    count,
    follow_heuristic,
    has,
    is_master,
    legal_cards,
    lowest,
    make_rules,
    partner_winning,
    random_card,
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
                             "pack the seed states", lo=0, hi=50, seed_value=5)
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
    take_threshold_1: int = knob(7, "heuristic: take the turned suit in round 1 when the "
                                 "trump strength S >= this (S = 4 J + 3 9 + 2 A + 1 per "
                                 "other trump + 1 per side ace, turned card included)",
                                 lo=0, hi=40, policy=True)
    take_threshold_2: int = knob(8, "heuristic: take the best other suit in round 2 when "
                                 "its S >= this", lo=0, hi=40, policy=True)
    win_min_points: int = knob(5, "heuristic: before the last seat, win a trick only when "
                               "it would hold at least this many points", lo=0, hi=200,
                               policy=True)


# Knob vector layout for the kernels (plain ints keep the kernels' signature stable).
(K_DER, K_CAPOT, K_BELOTE, K_ANN, K_ANN_J, K_ANN_9, K_ANN_OTHER, K_CENT, K_CINQUANTE,
 K_TIERCE, K_COMPARE_ALL, K_BELOTE_KEPT, K_LITIGE_CARRY, K_TARGET, K_ROUND2_ANY,
 K_SAME_DEALER, K_MAX_DEALS, K_TAKE1, K_TAKE2, K_WIN_MIN, N_K) = range(21)


def _vector(k: BeloteKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[[K_DER, K_CAPOT, K_BELOTE, K_ANN, K_ANN_J, K_ANN_9, K_ANN_OTHER, K_CENT, K_CINQUANTE,
       K_TIERCE, K_COMPARE_ALL, K_BELOTE_KEPT, K_LITIGE_CARRY, K_TARGET, K_ROUND2_ANY,
       K_SAME_DEALER, K_MAX_DEALS, K_TAKE1, K_TAKE2, K_WIN_MIN]] = [
        k.dix_de_der, k.capot_total, k.belote_bonus, k.announcements, k.ann_carre_jacks,
        k.ann_carre_nines, k.ann_carre_other, k.ann_cent, k.ann_cinquante, k.ann_tierce,
        k.compare_includes_announcements, k.belote_kept_when_dedans, k.litige == "carry_over",
        k.target, k.second_round_any_suit, k.all_pass == "same_dealer", k.max_deals,
        k.take_threshold_1, k.take_threshold_2, k.win_min_points]
    return v


def _rules(k: BeloteKnobs) -> np.ndarray:
    # Follow suit; void -> must trump when an opponent is winning; overtrump always
    # (also on a trump lead); a partner winning frees you to discard.
    return make_rules(must_trump=True, partner_exempt=PARTNER_ANY, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=k.overtrump_partner,
                      must_beat_led=False, raise_trump_lead=True)


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


N_MATCH_COLS = 14


# --- the deal, one function per phase -------------------------------------------------
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
ACES = np.uint64(sum(1 << (s * 8 + RA) for s in range(4)))


@hot
def trump_strength_score(hand: np.uint64, turned: int, suit: int, suit_mask: np.ndarray) -> int:
    """Hand strength for taking ``suit``: 4 J + 3 nine + 2 A + 1 per other trump
    + 1 per side ace, counting the turned card (the taker receives it)."""
    h = hand | bit(turned)
    trumps = h & suit_mask[suit]
    j = has(h, suit * 8 + RJ)
    nine = has(h, suit * 8 + R9)
    ace = has(h, suit * 8 + RA)
    return 3 * j + 2 * nine + ace + count(trumps) + count(h & ACES & ~suit_mask[suit])


@hot
def auction(hands: np.ndarray, turned: int, dealer: int, pol: np.ndarray, kv: np.ndarray,
            suit_mask: np.ndarray, state: np.uint64) -> tuple[np.uint64, int, int, int]:
    """Two rounds from the dealer's left: take the turned suit, then any other suit.
    Returns (state, taker, trump, round) with taker -1 when all pass twice."""
    turned_suit = turned // 8
    for k in range(4):
        p = (dealer + 1 + k) % 4
        if pol[p] == HEURISTIC:
            take = trump_strength_score(hands[p], turned, turned_suit, suit_mask) >= kv[K_TAKE1]
        else:
            state, x = rng.below(state, 2)
            take = x == 1
        if take:
            return state, p, turned_suit, 1
    for k in range(4):
        p = (dealer + 1 + k) % 4
        if pol[p] == HEURISTIC:
            best = -1
            best_s = -1
            for s in range(4):
                if s == turned_suit and not kv[K_ROUND2_ANY]:
                    continue
                sc = trump_strength_score(hands[p], turned, s, suit_mask)
                if sc > best_s:
                    best_s = sc
                    best = s
            if best_s >= kv[K_TAKE2]:
                return state, p, best, 2
        else:  # uniform over: pass, or each allowed suit
            n_opts = 4 if kv[K_ROUND2_ANY] else 3
            state, x = rng.below(state, n_opts + 1)
            if x > 0:
                s = x - 1
                if not kv[K_ROUND2_ANY] and s >= turned_suit:
                    s += 1
                return state, p, s, 2
    return state, -1, -1, 0


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
def lead_heuristic(hand: np.uint64, taking_team: bool, gone: np.uint64, trump: int,
                   suit_mask: np.ndarray, above: np.ndarray, strength: np.ndarray,
                   cheap_rank: np.ndarray, rich_rank: np.ndarray) -> int:
    """Takers draw trumps with their best master trump while trumps are out; everyone
    cashes a master side card (richest first: aces); otherwise lead the cheapest card."""
    unseen = ALL_CARDS & ~gone & ~hand
    trumps = suit_mask[trump]
    if taking_team and unseen & trumps != EMPTY:
        best = -1
        m = hand & trumps
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if is_master(c, unseen, above) and (best < 0 or strength[c] > strength[best]):
                best = c
        if best >= 0:
            return best
    masters = EMPTY
    m = hand & ~trumps
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if is_master(c, unseen, above):
            masters |= bit(c)
    if masters != EMPTY:
        return best_in(masters, rich_rank)
    return best_in(hand, cheap_rank)


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
        mark_d = c_t + c_d + a_t + a_d + b_d + b_t - kept
    else:  # litige: the takers' points wait for the next deal's winner (or are lost)
        made = 0
        mark_t = 0
        mark_d = total_d
        litige_points = total_t
    flipped = cmp_t != cmp_d and (c_t > c_d) != (made == 1)
    return mark_t, mark_d, made, litige_points, capot, total_t, total_d, flipped


@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray, rules: np.ndarray,
              tb: tuple, state: np.uint64, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, hands: np.ndarray, tally: np.ndarray) -> np.uint64:
    """One dealing from a shuffled ``deck``: fills ``row`` (deal columns from C_SCORE on),
    ``dealt`` [4, 5] and ``hands_out`` [4, 8]; ``hands`` (uint64 [4]) and ``tally``
    (int64 [8]: tricks and card points per seat) are work arrays. Returns the policy
    stream state."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    for p in range(4):
        hands[p] = EMPTY

    # Deal clockwise from the dealer's left: 3 cards each, then 2 each; turn the next.
    pos = 0
    for packet, first in ((3, 0), (2, 3)):
        for k in range(4):
            p = (dealer + 1 + k) % 4
            for i in range(packet):
                dealt[p, first + i] = deck[pos]
                hands[p] |= bit(deck[pos])
                pos += 1
    turned = deck[pos]
    pos += 1
    row[C_TURNED] = turned

    state, taker, trump, bid_round = auction(hands, turned, dealer, pol, kv, suit_mask, state)
    row[C_TAKER] = taker
    row[C_TRUMP] = trump
    row[C_CONTRACT] = bid_round - 1
    row[C_ANN_BEST_SEAT] = -1
    row[C_ANN_BEST_KIND] = -1
    row[C_BELOTE_TEAM] = -1
    if taker < 0:  # thrown in: no play, nobody marks
        row[C_MADE] = -1
        return state

    # Completion from the dealer's left: the taker gets the turned card and 2 more,
    # the others 3 each (catalogue #7).
    hands[taker] |= bit(turned)
    for k in range(4):
        p = (dealer + 1 + k) % 4
        for _ in range(2 if p == taker else 3):
            hands[p] |= bit(deck[pos])
            pos += 1
    for p in range(4):
        cards_of(hands[p], hands_out[p])

    t = trump + 1  # row of the per-trump tables
    points_t = points[t]
    above_t = above[t]

    # Announcements: only the team holding the strongest combination scores, and it
    # scores all its members' combinations; ties go to the earlier player in play order.
    ann0 = 0
    ann1 = 0
    if kv[K_ANN]:
        best_key = 0
        totals0 = 0
        totals1 = 0
        for k in range(4):
            p = (dealer + 1 + k) % 4
            total, key, kind = announcement(hands[p], trump, kv)
            if TEAM_OF[p] == 0:
                totals0 += total
            else:
                totals1 += total
            if key > best_key:
                best_key = key
                row[C_ANN_BEST_SEAT] = p
                row[C_ANN_BEST_KIND] = kind
        if row[C_ANN_BEST_SEAT] >= 0:
            if TEAM_OF[row[C_ANN_BEST_SEAT]] == 0:
                ann0 = totals0
            else:
                ann1 = totals1

    # Belote-Rebelote: K and Q of trump in one hand (always claimed).
    bel0 = 0
    bel1 = 0
    for p in range(4):
        if has(hands[p], trump * 8 + RK) and has(hands[p], trump * 8 + RQ):
            row[C_BELOTE_TEAM] = TEAM_OF[p]
            if TEAM_OF[p] == 0:
                bel0 = kv[K_BELOTE]
            else:
                bel1 = kv[K_BELOTE]

    # Play: 8 tricks; the first speaker (dealer's left) leads.
    for i in range(8):
        tally[i] = 0  # tricks per seat at 0..3, card points per seat at 4..7
    gone = EMPTY
    leader = (dealer + 1) % 4
    mode = rules[R_PARTNER_EXEMPT]
    for trick in range(8):
        led = -1
        win = -1
        win_seat = -1
        on_table = 0
        for k in range(4):
            p = (leader + k) % 4
            pw = partner_winning(win, win_seat, leader, p, TEAM_OF, mode)
            legal = legal_cards(hands[p], led, win, pw, trump, suit_of, suit_mask, excuse_mask,
                                above_t, rules)
            if pol[p] == HEURISTIC:
                if k == 0:
                    c = lead_heuristic(hands[p], TEAM_OF[p] == TEAM_OF[taker], gone, trump,
                                       suit_mask, above_t, strength[t], cheap[t], rich[t])
                else:
                    c = follow_heuristic(legal, win, TEAM_OF[win_seat] == TEAM_OF[p], k == 3,
                                         on_table, trump, suit_of, suit_mask, excuse_mask, above_t,
                                         points_t, cheap[t], rich[t], win_rank[t], kv[K_WIN_MIN])
            else:
                state, c = random_card(state, legal)
            hands[p] &= ~bit(c)
            gone |= bit(c)
            on_table += points_t[c]
            led, win, win_seat = update_trick(c, p, led, win, win_seat, trump, suit_of, above_t)
        tally[win_seat] += 1
        tally[4 + win_seat] += on_table + (kv[K_DER] if trick == 7 else 0)
        leader = win_seat
    for p in range(4):
        row[C_TRICKS + p] = tally[p]
        row[C_TPTS + p] = tally[4 + p]

    # Scoring, per team (0 = seats 0 and 2).
    takers_team = TEAM_OF[taker]
    mark_t, mark_d, made, litige_points, capot, total_t, total_d, flipped = deal_result(
        takers_team, tally[4] + tally[6], tally[5] + tally[7], tally[0] + tally[2], ann0, ann1,
        bel0, bel1, kv)
    row[C_MADE] = made
    row[C_CAPOT] = capot
    row[C_LITIGE] = litige_points > 0
    row[C_LITIGE_POINTS] = litige_points
    row[C_TAKERS_TOTAL] = total_t
    row[C_DEFENCE_TOTAL] = total_d
    row[C_ANN_T] = ann0
    row[C_ANN_T + 1] = ann1
    row[C_FLIPPED] = flipped
    for p in range(4):
        row[C_SCORE + p] = mark_t if TEAM_OF[p] == takers_team else mark_d
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, 5), -1, dtype=np.int64)
    hands_out = np.full((n_rec, 4, 8), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    tally = np.zeros(8, dtype=np.int64)
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % 4
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, dealer, pol, kv, rules, tb, rng.stream(seed, d, 0, rng.POLICY), out[i],
                  dealt[j], hands_out[j], hands, tally)
        if record and out[i, C_TAKER] < 0:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((4, 5), dtype=np.int64)
    hands_out = np.empty((4, 8), dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    tally = np.zeros(8, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 4)
        dealer = first
        score0 = 0
        score1 = 0
        reserve = 0
        n_deals = 0
        thrown = 0
        litiges = 0
        capots = 0
        low0 = 0  # each team's lowest margin along the match
        low1 = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(deck, dealer, pol, kv, rules, tb, rng.stream(seed, m, n_deals + 1, rng.POLICY),
                      row, dealt, hands_out, hands, tally)
            n_deals += 1
            if row[C_TAKER] < 0:
                thrown += 1
                if not kv[K_SAME_DEALER]:
                    dealer = (dealer + 1) % 4
                continue
            s0 = row[C_SCORE]
            s1 = row[C_SCORE + 1]
            if row[C_LITIGE]:
                litiges += 1
                if kv[K_LITIGE_CARRY]:
                    reserve += row[C_LITIGE_POINTS]
            elif reserve > 0:  # the winner of this deal collects the reserve
                if s0 > s1:
                    s0 += reserve
                else:
                    s1 += reserve
                reserve = 0
            capots += row[C_CAPOT]
            score0 += s0
            score1 += s1
            low0 = min(low0, score0 - score1)
            low1 = min(low1, score1 - score0)
            dealer = (dealer + 1) % 4
            if score0 >= kv[K_TARGET] or score1 >= kv[K_TARGET]:
                if score0 != score1:  # both past the target: the higher total wins
                    winner = 0 if score0 > score1 else 1
                    break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(4):
            out[i, 4 + p] = score0 if TEAM_OF[p] == 0 else score1
        out[i, 8] = thrown
        out[i, 9] = litiges
        out[i, 10] = capots
        out[i, 11] = low0 if winner == 0 else low1 if winner == 1 else 0
        out[i, 12] = low1 if winner == 0 else low0 if winner == 1 else 0
        out[i, 13] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def tables(knobs: BeloteKnobs) -> TrickTables:
    pts_trump, pts_plain = point_tables(knobs.queen_points)
    return trick_tables(DECK.suit, STRENGTH_TRUMP, STRENGTH_PLAIN, pts_trump, pts_plain)


def run_deals(knobs: BeloteKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      _vector(knobs), _rules(knobs), tables(knobs).kernel_args(),
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: BeloteKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       _vector(knobs), _rules(knobs), tables(knobs).kernel_args()))

# --- balance questions (catalogue "Balance questions") ----------------------------------
SECTION = "Belote questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points or deals (margins, lengths) stay out of the headline table.
COMEBACK_DEFICIT = 300  # question 5: "the comeback probability from -300"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BeloteKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's six balance questions as metrics (section "Belote questions").

    Deal level: 1 taker success by bidding round and by the turned card's rank; 2 the
    dealer's team against the dealer's left (first to speak and to lead); 3 dedans,
    litige and capot rates; 4 announcements' share of the points and how often they
    flip the contract; 6 the taker success that ``simlab compare`` puts side by side for
    Q = 3 and Q = 5. Match level: 5 match length and the comeback from 300 behind.
    Only metrics whose columns the frame has are returned."""
    k = knobs if isinstance(knobs, BeloteKnobs) else BeloteKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"belote.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        taken = pl.col("taker") >= 0
        made = pl.col("made")
        rnd = pl.col("contract").cast(pl.String)
        turned = pl.col("turned_card").cast(pl.String)
        ranks = {"J": turned.str.starts_with("J"), "9": turned.str.starts_with("9")}
        ranks["other"] = ~(ranks["J"] | ranks["9"])
        rank_text = {"J": "turned card a Jack", "9": "turned card a 9",
                     "other": "turned card neither J nor 9"}
        bid = {"taker", "made", "contract"}
        # 1. taker success by round and by the turned card's rank
        for r in (1, 2):
            add(bid, f"q1.success.round{r}", f"taker success, round {r} takes", made,
                taken & (rnd == f"round{r}"), headline=True)
        for x, text in rank_text.items():
            add(bid | {"turned_card"}, f"q1.success.turned_{x}", f"taker success, {text}",
                made, taken & ranks[x])
        for r in (1, 2):
            for x, text in rank_text.items():
                add(bid | {"turned_card"}, f"q1.success.round{r}.turned_{x}",
                    f"taker success, round {r} takes, {text}", made,
                    taken & (rnd == f"round{r}") & ranks[x],
                    note="round 1: the turned card is trump and goes to the taker; round 2: "
                         "it goes to the taker but is not trump" +
                         (" (unless the same suit is named again)"
                          if k.second_round_any_suit else ""))
        # 2. position: the dealer's team against the dealer's left's team
        team = pl.col("dealer") % 2
        scores = {"score_s0", "score_s1", "dealer"}
        mine = team_value(team, "score_s0", "score_s1")
        theirs = team_value(team, "score_s1", "score_s0")
        add(scores, "q2.margin.dealer_team", "points per deal, dealer's team minus the dealer's "
            "left's team", mine - theirs, kind="mean", unit="points",
            note="over all deals (a thrown-in deal counts 0); positive: the dealer's team "
                 "gains, negative: the dealer's left (first to speak and to lead) gains")
        add(scores | {"taker"}, "q2.win.dealer_team", "deal win rate, dealer's team (played "
            "deals)", mine > theirs, taken, headline=True,
            note="below 50%: the dealer's left's team (first to speak and to lead) gains")
        add(scores | {"taker"}, "q2.win.left_team", "deal win rate, dealer's left's team "
            "(played deals)", theirs > mine, taken)
        left = pl.col("taker") == (pl.col("dealer") + 1) % 4
        add({"taker", "dealer"}, "q2.take.left", "the dealer's left takes (share of played "
            "deals)", left, taken)
        add({"taker", "dealer", "made"}, "q2.success.left", "taker success when the dealer's "
            "left takes", made, taken & left)
        add({"taker", "dealer", "made"}, "q2.success.dealer_team", "taker success when the "
            "dealer's team takes", made, taken & (pl.col("taker") % 2 == team))
        # 3. outcome frequencies among played deals
        add({"taker", "made", "litige"}, "q3.dedans", "dedans (takers fail, no litige), per "
            "played deal", ~made & ~pl.col("litige"), taken, headline=True)
        add({"taker", "litige"}, "q3.litige", "litige (T = D), per played deal",
            pl.col("litige"), taken, headline=True)
        add({"taker", "capot"}, "q3.capot", "capot (one team takes all 8 tricks), per played "
            "deal", pl.col("capot"), taken, headline=True)
        tricks = {f"tricks_s{i}" for i in range(4)}
        taker_tricks = (team_value(pl.col("taker") % 2, "tricks_s0", "tricks_s1")
                        + team_value(pl.col("taker") % 2, "tricks_s2", "tricks_s3"))
        add({"taker", "capot"} | tricks, "q3.capot.takers", "capot by the takers, per played "
            "deal", pl.col("capot") & (taker_tricks == 8), taken)
        add({"taker", "capot"} | tricks, "q3.capot.defence", "capot by the defence, per "
            "played deal", pl.col("capot") & (taker_tricks == 0), taken)
        # 4. announcements
        ann = (pl.col("announce_t0") + pl.col("announce_t1")).cast(pl.Float64)
        total = (pl.col("takers_total") + pl.col("defence_total")).cast(pl.Float64)
        ann_cols = {"taker", "announce_t0", "announce_t1"}
        add(ann_cols | {"takers_total", "defence_total"}, "q4.share", "share of all points "
            "from announcements", ratio_of_sums(ann, total, taken), taken, kind="mean",
            unit="share", headline=True,
            note="sum of valid announcement points over the sum of T + D (cards, "
                 "announcements and belote of both teams) over played deals; "
                 "delta-method interval")
        add(ann_cols, "q4.points", "announcement points per played deal", ann, taken,
            kind="mean", unit="points")
        add({"taker", "announce_best_seat"}, "q4.any", "played deals with a valid "
            "announcement", pl.col("announce_best_seat") >= 0, taken)
        flip = pl.col("flipped_by_announcements")
        add({"taker", "flipped_by_announcements"}, "q4.flipped", "announcements or belote "
            "flip the contract, per played deal", flip, taken, headline=True,
            note="cards alone would have given the other outcome (T vs D)")
        add({"taker", "flipped_by_announcements", "made"}, "q4.flipped.made", "announcements "
            "or belote save the contract, per played deal", flip & made, taken)
        add({"taker", "flipped_by_announcements", "made"}, "q4.flipped.failed",
            "the defence's announcements or belote sink the contract, per played deal",
            flip & ~made, taken)
        # 6. the Queen's value: a comparison of this metric between two runs
        add({"taker", "made"}, "q6.taker_success", "taker success (compare queen_points "
            "3 vs 5)", made, taken, headline=True,
            note="Q = 3 against the seed's Q = 5: run `simlab compare belote --a \"\" "
                 "--b \"queen_points=5\"` (same deals, paired difference)")
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q5.length", "deals to reach the target score",
            pl.col("n_deals"), done, kind="mean", unit="deals",
            note="deals dealt, thrown-in deals included; capped matches left out")
        add({"winner", "n_deals"}, "q5.length.sd", "deals to reach the target, standard "
            "deviation", std_dev(pl.col("n_deals"), done), done, kind="mean", unit="deals",
            note="delta-method interval")
        add({"winner", "n_deals", "n_thrown_in"}, "q5.played", "played deals per match "
            "(thrown-in deals left out)", pl.col("n_deals") - pl.col("n_thrown_in"), done,
            kind="mean", unit="deals")
        d = COMEBACK_DEFICIT
        w, lo = pl.col("min_lead_of_winner"), pl.col("min_lead_of_loser")
        behind = (w <= -d) | (lo <= -d)
        leads = {"winner", "min_lead_of_winner", "min_lead_of_loser"}
        add(leads, "q5.comeback", f"comeback from {d} behind", w <= -d, done & behind,
            headline=True, note=f"among matches where a team was {d} or more points behind "
                                f"at some point: the winner was that far behind")
        add(leads, "q5.behind", f"matches where a team was {d} or more behind", behind, done)
        add({"winner", "min_lead_of_winner"}, "q5.winner_behind", "the winner was behind at "
            "some point", w < 0, done)
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="belote",
    title="Belote",
    description="classic Belote, 4 players in 2 teams: 3+2 deal, turned card, two bidding "
                "rounds, announcements, belote-rebelote, litige, match to 1001",
    deck=DECK,
    knobs=BeloteKnobs,
    players=lambda k: 4,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="4",
    teams=lambda k: (0, 1, 0, 1),
    extra={"metrics": balance_metrics},
)
