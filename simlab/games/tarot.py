"""French Tarot, 3, 4 or 5 players (seed 001 "Tarot", Ducale booklet; catalogue ``tarot.md``).

Read top to bottom like the rulebook: deck and tables, knobs, result columns, deal and
petit sec, auction, call (5 players), chien and écart, chelem and poignées, play,
scoring, batch kernels, match.

Seats 0..n-1 are numbered in the direction of play, which is counter-clockwise: the
player on the dealer's right is ``dealer + 1``; he receives the first packet, speaks
first and leads the first trick; the deal passes to him next (dealer = deal index mod n).

Card points are counted in **half-points** inside the kernels (King and Bouts 9, Queen 7,
Cavalier 5, Valet 3, any other card 1; the pack is 182 half-points = 91 points), so
every column named ``*_points*`` except ``points_needed`` and ``margin`` is in
half-points.

Cards are numbered in two ways: the deck's ids (0..55 suit cards, 56..76 trumps 1..21,
77 the Excuse; used in every output column) and kernel *slots* for the two-word sets of
``simlab.tricks``: suit cards keep their id (word 0), trump t is slot 63 + t and the
Excuse slot 85 (word 1), so "my trumps" is one AND on one word.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab.decks import EXCUSE_SUIT, TRUMP_SUIT, get_deck
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
from simlab.knobs import Knobs, SimlabError, knob
from simlab.metrics import MetricDef, ratio_of_sums, root_mean, std_dev
from simlab.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    WideTables,
    lowest,
    make_rules,
    popcount,
    wbest_in,
    wcards_of,
    wide_trick_tables,
    wis_master,
    wlegal_cards,
    wrandom_card,
    wupdate_trick,
    wwinners,
)

# --- deck and tables ----------------------------------------------------------------
DECK = get_deck("78_tarot")
N_CARDS = 78
# suit cards: id = suit * 14 + r, r = 0..13 for 1..10, Valet, Cavalier, Dame, Roi
RV, RC, RQ, RK = 10, 11, 12, 13
SLOT_OF_ID = np.array([i if i < 56 else i + 8 for i in range(N_CARDS)], dtype=np.int64)
ID_OF_SLOT = np.full(128, -1, dtype=np.int64)
ID_OF_SLOT[SLOT_OF_ID] = np.arange(N_CARDS)
PETIT, T21, EXCUSE = 64, 84, 85  # slots
TRUMPS1 = np.uint64((1 << 21) - 1)  # word 1: trumps 1..21
HIGH_TRUMPS1 = np.uint64(((1 << 21) - 1) & ~((1 << 15) - 1))  # trumps 16..21
PETIT1 = np.uint64(1)
T21_1 = np.uint64(1 << 20)
EXCUSE1 = np.uint64(1 << 21)
BOUTS1 = PETIT1 | T21_1 | EXCUSE1
ALL0 = np.uint64((1 << 56) - 1)
ALL1 = np.uint64((1 << 22) - 1)
KINGS0 = np.uint64(sum(1 << (s * 14 + RK) for s in range(4)))
SUIT_BITS = np.uint64(0x3FFF)
FACES14 = np.uint64(0x1C00)  # Valet, Cavalier, Dame (within a suit's 14 bits)
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
PRISE, GARDE, GARDE_SANS, GARDE_CONTRE = range(4)
POIGNEES = ("simple", "double", "triple")
CAMPS = ("attack", "defence")
HAND_SIZE = {3: 24, 4: 18, 5: 15}
CHIEN_SIZE = {3: 6, 4: 6, 5: 3}
PACKET = {3: 4, 4: 3, 5: 3}
# The seed's poignée thresholds (trumps held, the Excuse counting as one) per player count.
POIGNEE_THRESHOLDS = {3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}


def slot_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(suit, strength, half-points) per slot (-1 suit: unused slot)."""
    suit = np.full(86, -1, dtype=np.int64)
    strength = np.zeros(86, dtype=np.int64)
    points = np.zeros(86, dtype=np.int64)
    for cid in range(N_CARDS):
        s = SLOT_OF_ID[cid]
        suit[s] = DECK.suit[cid]
        if cid < 56:
            r = cid % 14
            strength[s] = r
            points[s] = {RK: 9, RQ: 7, RC: 5, RV: 3}.get(r, 1)
        elif s == EXCUSE:
            points[s] = 9
        else:
            t = s - 63
            strength[s] = t
            points[s] = 9 if t in (1, 21) else 1
    return suit, strength, points


def tables() -> WideTables:
    suit, strength, points = slot_tables()
    return wide_trick_tables(suit, strength, points, TRUMP_SUIT)


_SH = (np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(8), np.uint64(16), np.uint64(32))


@hot
def highest(w: np.uint64) -> int:
    """Index of the highest set bit of a non-empty word (smear right, then count)."""
    for sh in _SH:
        w |= w >> sh
    return popcount(w) - 1


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class TarotKnobs(Knobs):
    players: int = knob(4, "number of players (3: 24 cards each, chien 6; 4: 18, chien 6; "
                        "5: 15, chien 3 and a called King)", lo=3, hi=5)
    petit_sec_redeal: bool = knob(True, "a player whose only trump is the Petit shows it "
                                  "and the dealing is annulled (an `annulled` row)")
    petit_sec_excuse_protects: bool = knob(
        True, "holding the Excuse besides the lone Petit is not a petit sec (seed's second "
              "statement; its first one ignores the Excuse)")
    allow_prise: bool = knob(True, "the Prise (Petite) is a legal bid (some tables drop it)")
    mult_prise: int = knob(1, "multiplier of a Prise", lo=0, hi=100)
    mult_garde: int = knob(2, "multiplier of a Garde", lo=0, hi=100)
    mult_garde_sans: int = knob(4, "multiplier of a Garde sans le chien", lo=0, hi=100)
    mult_garde_contre: int = knob(6, "multiplier of a Garde contre le chien", lo=0, hi=100)
    base_contract_points: int = knob(25, "every contract is worth this plus the margin",
                                     lo=0, hi=1000)
    target_0_bouts: int = knob(56, "points needed with no Bout among the taker's cards",
                               lo=0, hi=91)
    target_1_bout: int = knob(51, "points needed with 1 Bout", lo=0, hi=91)
    target_2_bouts: int = knob(41, "points needed with 2 Bouts", lo=0, hi=91)
    target_3_bouts: int = knob(36, "points needed with 3 Bouts", lo=0, hi=91)
    petit_au_bout: int = knob(10, "Petit au bout prime (times the contract multiplier) to "
                              "the camp winning the last trick with the Petit in it",
                              lo=0, hi=1000)
    poignee_simple: int = knob(0, "trumps for a simple poignée (0: the seed's, 13/10/8 at "
                               "3/4/5 players)", lo=0, hi=24)
    poignee_double: int = knob(0, "trumps for a double poignée (0: 15/13/10)", lo=0, hi=24)
    poignee_triple: int = knob(0, "trumps for a triple poignée (0: 18/15/13)", lo=0, hi=24)
    prime_simple: int = knob(20, "simple poignée prime, to the deal's winner, not multiplied",
                             lo=0, hi=1000)
    prime_double: int = knob(30, "double poignée prime", lo=0, hi=1000)
    prime_triple: int = knob(40, "triple poignée prime", lo=0, hi=1000)
    chelem_announced_made: int = knob(400, "announced chelem made", lo=0, hi=10000)
    chelem_unannounced_made: int = knob(200, "chelem made without announcement", lo=0, hi=10000)
    chelem_announced_failed: int = knob(200, "deducted for an announced chelem failed",
                                        lo=0, hi=10000)
    chelem_defence: int = knob(200, "each defender's prime when the defence takes every "
                               "trick (0: only the normal score)", lo=0, hi=10000)
    trump_discard: str = knob("fft", "trumps in the écart: only when nothing else may be "
                              "discarded (fft) or freely (free_if_shown); always shown",
                              choices=("fft", "free_if_shown"), seed_value="free_if_shown")
    must_undertrump: bool = knob(True, "void and unable to overtrump: must still play a "
                                 "lower trump (seed: 'on peut sous-couper')", seed_value=False)
    rounding: str = knob("ceil", "margin |P - T| with a half point: rounded up (ceil) or "
                         "down (floor)", choices=("ceil", "floor"))
    excuse_exchange: str = knob(
        "when_camp_has_cards", "the Excuse's low-card exchange: paid at the end if the "
        "holder's camp has won cards (tricks, écart or its chien), else never "
        "(when_camp_has_cards); or always paid (always)",
        choices=("when_camp_has_cards", "always"))
    excuse_last_trick_changes_camp: bool = knob(
        True, "an Excuse played to the last trick goes to the trick's winner")
    chelem_excuse_wins_last: bool = knob(
        True, "an Excuse led to the last trick by a camp that won every other trick wins "
              "it (chelem; the Petit is then au bout on the second-to-last trick)")
    called_suit_lead: str = knob(
        "first_trick", "5 players: a lead in the called card's suit (other than the called "
        "card itself) is barred on the first trick only (first_trick), on every lead until "
        "the called card is played (until_called), or never (free)",
        choices=("first_trick", "until_called", "free"))
    chelem_multiplied: bool = knob(False, "chelem primes are multiplied by the contract's "
                                   "multiplier (the catalogue resolves: not multiplied)")
    call_rule: str = knob("ladder", "5 players: call a King; with all 4 Kings a Queen, then "
                          "a Cavalier, then a Valet (ladder) or always a King (king_only)",
                          choices=("ladder", "king_only"))
    all_pass: str = knob("redeal", "everybody passes: the dealing is void (redeal) or the "
                         "dealer must take the lowest contract (dealer_takes)",
                         choices=("redeal", "dealer_takes"))
    rounds_per_match: int = knob(4, "match: each player deals this many times (dealings "
                                 "per match = rounds x players, void ones included)",
                                 lo=1, hi=1000)
    # heuristic policy
    bid_prise: int = knob(28, "heuristic: hand value for a Prise (value: 21 = 10, Petit 8 "
                          "(6 with < 5 trumps), Excuse 7, 1 per trump, +1 per trump >= 16, "
                          "King 6, K+Q +3, void 5 (with >= 6 trumps), singleton 3). The "
                          "catalogue's 40/56/71/81 leave 92% of 4-player deals passed and "
                          "90% of takers making it; 28/38/50/60 take about 2/3 of them",
                          lo=0, hi=500, policy=True)
    bid_garde: int = knob(38, "heuristic: hand value for a Garde", lo=0, hi=500, policy=True)
    bid_garde_sans: int = knob(50, "heuristic: hand value for a Garde sans", lo=0, hi=500,
                               policy=True)
    bid_garde_contre: int = knob(60, "heuristic: hand value for a Garde contre", lo=0,
                                 hi=500, policy=True)
    chelem_announce_at: int = knob(110, "heuristic: the taker announces a chelem when his "
                                   "hand value after the écart reaches this", lo=0, hi=1000,
                                   policy=True)
    draw_trumps_pct: int = knob(60, "heuristic: the attack leads trumps while holding at "
                                "least this % of the trumps it has not seen", lo=0, hi=1000,
                                policy=True)
    win_min_points: int = knob(5, "heuristic: before the last seat, win a trick only when "
                               "it holds at least this many half-points", lo=0, hi=200,
                               policy=True)
    excuse_save_points: int = knob(3, "heuristic: losing a trick, play the Excuse rather "
                                   "than a card worth at least this many half-points",
                                   lo=0, hi=20, policy=True)
    poignee_defence: bool = knob(True, "heuristic: defenders declare their poignées too "
                                 "(the attack always does)", policy=True)

    def check(self) -> None:
        th = self.poignee_thresholds()
        if not th[0] <= th[1] <= th[2]:
            raise SimlabError(f"poignée thresholds must not decrease, got {th}")

    def poignee_thresholds(self) -> tuple[int, int, int]:
        seed = POIGNEE_THRESHOLDS[self.players]
        mine = (self.poignee_simple, self.poignee_double, self.poignee_triple)
        return tuple(m if m > 0 else s for m, s in zip(mine, seed, strict=True))


# Knob vector layout for the kernels.
(K_N, K_HAND, K_CHIEN, K_PETIT_SEC, K_PSEC_EXCUSE, K_ALLOW_PRISE, K_MULT) = range(7)
(K_BASE, K_TARGET) = (11, 12)  # K_MULT..K_MULT+3, K_TARGET + bouts
(K_PAB, K_PTHR, K_PPRIME) = (16, 17, 20)  # K_PTHR + level, K_PPRIME + level
(K_CH_AM, K_CH_UN, K_CH_FAIL, K_CH_DEF, K_DISCARD_FREE, K_ROUND_CEIL, K_EXC_ALWAYS,
 K_EXC_LAST, K_CH_EXC, K_LEAD_RESTRICT, K_LADDER, K_ALLPASS_DEALER, K_ROUNDS) = range(23, 36)
K_BID = 36  # K_BID + contract
(K_CHELEM_AT, K_DRAW_PCT, K_WIN_MIN, K_EXC_SAVE, K_POIGNEE_DEF, K_CH_MULT, N_K) = range(40, 47)


def _vector(k: TarotKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    n = k.players
    v[K_N] = n
    v[K_HAND] = HAND_SIZE[n]
    v[K_CHIEN] = CHIEN_SIZE[n]
    v[K_PETIT_SEC] = k.petit_sec_redeal
    v[K_PSEC_EXCUSE] = k.petit_sec_excuse_protects
    v[K_ALLOW_PRISE] = k.allow_prise
    v[K_MULT:K_MULT + 4] = [k.mult_prise, k.mult_garde, k.mult_garde_sans, k.mult_garde_contre]
    v[K_BASE] = k.base_contract_points
    v[K_TARGET:K_TARGET + 4] = [k.target_0_bouts, k.target_1_bout, k.target_2_bouts,
                                k.target_3_bouts]
    v[K_PAB] = k.petit_au_bout
    v[K_PTHR:K_PTHR + 3] = k.poignee_thresholds()
    v[K_PPRIME:K_PPRIME + 3] = [k.prime_simple, k.prime_double, k.prime_triple]
    v[K_CH_AM] = k.chelem_announced_made
    v[K_CH_UN] = k.chelem_unannounced_made
    v[K_CH_FAIL] = k.chelem_announced_failed
    v[K_CH_DEF] = k.chelem_defence
    v[K_DISCARD_FREE] = k.trump_discard == "free_if_shown"
    v[K_ROUND_CEIL] = k.rounding == "ceil"
    v[K_EXC_ALWAYS] = k.excuse_exchange == "always"
    v[K_EXC_LAST] = k.excuse_last_trick_changes_camp
    v[K_CH_EXC] = k.chelem_excuse_wins_last
    v[K_LEAD_RESTRICT] = ("free", "first_trick", "until_called").index(k.called_suit_lead)
    v[K_CH_MULT] = k.chelem_multiplied
    v[K_LADDER] = k.call_rule == "ladder"
    v[K_ALLPASS_DEALER] = k.all_pass == "dealer_takes"
    v[K_ROUNDS] = k.rounds_per_match
    v[K_BID:K_BID + 4] = [k.bid_prise, k.bid_garde, k.bid_garde_sans, k.bid_garde_contre]
    v[K_CHELEM_AT] = k.chelem_announce_at
    v[K_DRAW_PCT] = k.draw_trumps_pct
    v[K_WIN_MIN] = k.win_min_points
    v[K_EXC_SAVE] = k.excuse_save_points
    v[K_POIGNEE_DEF] = k.poignee_defence
    return v


def _rules(k: TarotKnobs) -> np.ndarray:
    # Follow suit; void -> trump, overtrumping any trump on the trick if able (no partner
    # exemption); unable to overtrump -> a lower trump (knob); a trump lead must be
    # raised if able; no trump -> discard; the Excuse may always be played.
    return make_rules(must_trump=True, partner_exempt=PARTNER_NEVER, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=False,
                      must_beat_led=False, raise_trump_lead=True)


def deal_order(n: int) -> np.ndarray:
    """Recipient of each of the 78 dealt cards, as an offset from the dealer's right
    (0..n-1), or n for the chien: packets of 3 (4 at 3 players) counter-clockwise, and
    the chien one card at a time after evenly spread packets, never first nor last."""
    h, c, k = HAND_SIZE[n], CHIEN_SIZE[n], PACKET[n]
    packets = n * h // k
    after = {(i + 1) * packets // (c + 1) - 1 for i in range(c)}
    assert len(after) == c and max(after) < packets - 1
    order = []
    for pk in range(packets):
        order += [pk % n] * k
        if pk in after:
            order.append(n)
    return np.array(order, dtype=np.int64)


# --- result columns -----------------------------------------------------------------
# Kernel-side layout: the index of each column group, which depends on the player count.
(X_SCORE, X_TAKER, X_CONTRACT, X_MADE, X_TRICKS, X_TPTS, X_PSEC, X_BOUTS, X_APTS, X_DPTS,
 X_NEED, X_MARGIN, X_ATOTAL, X_POIGNEE, X_PAB, X_CH_ANN, X_CHELEM, X_CALLED, X_PARTNER,
 X_ALONE, X_CALLED_CHIEN, X_ECART_TRUMPS, X_EXC_LAST, X_CHIEN, X_ECART, X_TVALUE, X_TBOUTS,
 N_X) = range(28)
C_DEAL, C_DEALER, C_ANNULLED = 0, 1, 2


def _groups(n: int) -> list[tuple[int, list[Column]]]:
    c = CHIEN_SIZE[n]
    cards = DECK.labels
    seats = range(n)
    return [
        (X_SCORE, [Column(f"score_s{i}", help="points marked this deal") for i in seats]),
        (X_TAKER, [Column("taker", help="-1 when nobody bids (or the dealing is annulled)")]),
        (X_CONTRACT, [Column("contract", CONTRACTS)]),
        (X_MADE, [Column("made", OPT_BOOL)]),
        (X_TRICKS, [Column(f"tricks_s{i}") for i in seats]),
        (X_TPTS, [Column(f"trick_points_s{i}", help="half-points of the cards the seat "
                         "won in tricks, Excuse exchange included (écart/chien not)")
                  for i in seats]),
        (X_PSEC, [Column("petit_sec_seat", help="seat that showed a petit sec (the "
                         "dealing is annulled), else -1")]),
        (X_BOUTS, [Column("bouts", help="Bouts among the attack's cards at the end")]),
        (X_APTS, [Column("attack_points", help="half-points of the attack (taker and "
                         "partner): tricks, écart or chien")]),
        (X_DPTS, [Column("defence_points", help="half-points of the defence")]),
        (X_NEED, [Column("points_needed", help="points (not half) to make, by Bouts")]),
        (X_MARGIN, [Column("margin", help="rounded |P - T| in points, negative when the "
                           "contract fails")]),
        (X_ATOTAL, [Column("attack_total", help="A: what each defender pays (taker 3A at "
                           "4 players, 2A at 3, 2A + partner A or 4A alone at 5)")]),
        (X_POIGNEE, [Column(f"poignee_s{i}", POIGNEES, help="poignée declared by seat")
                     for i in seats]),
        (X_PAB, [Column("petit_au_bout", CAMPS, help="camp that took the Petit au bout")]),
        (X_CH_ANN, [Column("chelem_announced", BOOL)]),
        (X_CHELEM, [Column("chelem", CAMPS, help="camp that took every trick")]),
        (X_CALLED, [Column("called_card", cards, help="5 players: the card called")]),
        (X_PARTNER, [Column("partner", help="5 players: holder of the called card, -1 "
                            "when the taker plays alone (or 3/4 players)")]),
        (X_ALONE, [Column("alone", OPT_BOOL, help="5 players: the taker plays 1 against 4")]),
        (X_CALLED_CHIEN, [Column("called_in_chien", OPT_BOOL)]),
        (X_ECART_TRUMPS, [Column("ecart_trumps", help="trumps discarded (shown)")]),
        (X_EXC_LAST, [Column("excuse_last_trick", BOOL, help="the Excuse was played to "
                             "the last trick")]),
        (X_CHIEN, [Column(f"chien_{j}", cards) for j in range(c)]),
        (X_ECART, [Column(f"ecart_{j}", cards, help="null unless Prise or Garde")
                   for j in range(c)]),
        (X_TVALUE, [Column("taker_value", help="the taker's hand value before the chien "
                           "(the heuristic's bidding count, see knob bid_prise), -1 when "
                           "nobody takes")]),
        (X_TBOUTS, [Column("taker_bouts", help="Bouts in the taker's hand before the "
                           "chien, -1 when nobody takes")]),
    ]


def _layout(n: int) -> tuple[list[Column], np.ndarray]:
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="petit sec: the dealing is void and redealt")]
    cx = np.zeros(N_X, dtype=np.int64)
    for x, group in _groups(n):
        cx[x] = len(cols)
        cols += group
    return cols, cx


def deal_columns(k: TarotKnobs | None = None) -> list[Column]:
    return _layout((k or TarotKnobs()).players)[0]


def match_columns(k: TarotKnobs | None = None) -> list[Column]:
    n = (k or TarotKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the highest total, -1 on a tie"),
            Column("n_deals", help="dealings, void ones included")]
    cols += [Column(f"final_score_s{i}") for i in range(n)]
    cols += [Column("n_annulled", help="petit sec"), Column("n_all_pass"),
             Column("n_made"), Column("n_taken")]
    return cols


# --- deal, petit sec, auction, call ----------------------------------------------------
@hot
def petit_sec_seat(hands: np.ndarray, dealer: int, n: int, kv: np.ndarray) -> int:
    """First seat (from the dealer's right) whose only trump is the Petit, else -1."""
    for k in range(n):
        p = (dealer + 1 + k) % n
        h1 = hands[p, 1]
        if h1 & TRUMPS1 == PETIT1 and (h1 & EXCUSE1 == EMPTY or not kv[K_PSEC_EXCUSE]):
            return p
    return -1


@hot
def hand_value(h0: np.uint64, h1: np.uint64) -> int:
    """The catalogue's bidding count (see knob ``bid_prise``)."""
    trumps = h1 & TRUMPS1
    nt = popcount(trumps)
    v = nt + popcount(trumps & HIGH_TRUMPS1)
    if h1 & T21_1 != EMPTY:
        v += 10
    if h1 & PETIT1 != EMPTY:
        v += 8 if nt >= 5 else 6
    if h1 & EXCUSE1 != EMPTY:
        v += 7
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        c = popcount(m)
        king = (m >> np.uint64(RK)) & ONE != EMPTY
        queen = (m >> np.uint64(RQ)) & ONE != EMPTY
        if king:
            v += 6
            if queen:
                v += 3
        if c == 0 and nt >= 6:
            v += 5
        elif c == 1:
            v += 3
    return v


@hot
def auction(hands: np.ndarray, dealer: int, n: int, pol: np.ndarray, kv: np.ndarray,
            state: np.uint64) -> tuple[np.uint64, int, int]:
    """One round from the dealer's right, each bid above the last. (state, taker,
    contract); taker -1 when all pass (unless the dealer must take)."""
    best = -1
    taker = -1
    low = 0 if kv[K_ALLOW_PRISE] else 1
    for k in range(n):
        p = (dealer + 1 + k) % n
        lo = max(best + 1, low)
        if lo > GARDE_CONTRE:
            break
        bid = -1
        if pol[p] == HEURISTIC:
            v = hand_value(hands[p, 0], hands[p, 1])
            for c in range(GARDE_CONTRE, lo - 1, -1):
                if v >= kv[K_BID + c]:
                    bid = c
                    break
        else:  # uniform over pass and every higher contract
            state, x = rng.below(state, GARDE_CONTRE - lo + 2)
            bid = lo + x - 1 if x > 0 else -1
        if bid >= lo:
            best = bid
            taker = p
    if taker < 0 and kv[K_ALLPASS_DEALER]:
        return state, dealer, low
    return state, taker, best


@hot
def call_rank(h0: np.uint64, kv: np.ndarray) -> int:
    """Rank the 5-player taker must call: King, or down the ladder while he holds all 4."""
    if not kv[K_LADDER]:
        return RK
    for r in (RK, RQ, RC):
        held = 0
        for s in range(4):
            held += (h0 >> np.uint64(s * 14 + r)) & ONE != EMPTY
        if held < 4:
            return r
    return RV


@hot
def choose_call(h0: np.uint64, heuristic: bool, kv: np.ndarray, state: np.uint64
                ) -> tuple[np.uint64, int]:
    """(state, called slot). Heuristic: the suit where he holds the card just below the
    called rank, else his longest suit lacking it (a self-call only when he holds all
    four). Random: uniform over the four cards of the rank (self-calls included)."""
    r = call_rank(h0, kv)
    if not heuristic:
        state, s = rng.below(state, 4)
        return state, s * 14 + r
    best = -1
    best_key = -1
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        if (m >> np.uint64(r)) & ONE != EMPTY:
            continue
        key = popcount(m) + (100 if (m >> np.uint64(r - 1)) & ONE != EMPTY else 0)
        if key > best_key:
            best_key = key
            best = s
    if best < 0:
        best = 0
    return state, best * 14 + r


# --- chien and écart ----------------------------------------------------------------
@hot
def ecart_choices(h0: np.uint64, h1: np.uint64, kv: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """The cards that may go to the écart now: never a King or a Bout; trumps only once
    no other card may go (fft), or freely (free_if_shown); as (word 0, word 1)."""
    plain = h0 & ~KINGS0
    trumps = h1 & TRUMPS1 & ~BOUTS1
    if kv[K_DISCARD_FREE] or plain == EMPTY:
        return plain, trumps
    return plain, EMPTY


@hot
def make_ecart(h0: np.uint64, h1: np.uint64, nc: int, heuristic: bool, kv: np.ndarray,
               points: np.ndarray, state: np.uint64, out: np.ndarray
               ) -> tuple[np.uint64, np.uint64, np.uint64, int]:
    """The taker discards ``nc`` slots into ``out``; returns (state, new h0, new h1,
    trumps discarded). Heuristic: void the shortest suits without a King first (their
    points are safe in the écart), richest first within a suit; trumps only when forced,
    lowest first. Random: uniform over the allowed cards."""
    n_tr = 0
    for i in range(nc):
        plain, trumps = ecart_choices(h0, h1, kv)
        if heuristic:
            c = -1
            if plain != EMPTY:
                best_key = 1 << 40
                for s in range(4):
                    sh = np.uint64(14 * s)
                    cand = (plain >> sh) & SUIT_BITS
                    if cand == EMPTY:
                        continue
                    suit = (h0 >> sh) & SUIT_BITS
                    faces = cand & FACES14
                    r = highest(faces) if faces != EMPTY else lowest(cand)
                    x = 14 * s + r
                    key = (np.int64(suit >> np.uint64(RK)) * 100 + popcount(suit)) * 1000 \
                        - points[x] * 20 + r
                    if key < best_key:
                        best_key = key
                        c = x
            else:
                c = 64 + lowest(trumps)
        else:
            state, c = wrandom_card(state, plain, trumps)
        out[i] = c
        if c < 64:
            h0 &= ~(ONE << np.uint64(c))
        else:
            h1 &= ~(ONE << np.uint64(c - 64))
            n_tr += 1
    return state, h0, h1, n_tr


@hot
def poignee_level(h1: np.uint64, kv: np.ndarray) -> int:
    """Highest poignée (0 simple, 1 double, 2 triple) the hand allows, -1 none."""
    t = popcount(h1 & (TRUMPS1 | EXCUSE1))
    for lvl in range(2, -1, -1):
        if t >= kv[K_PTHR + lvl]:
            return lvl
    return -1


# --- scoring (pure) -------------------------------------------------------------------
@hot
def attack_total(points_x2: int, bouts: int, contract: int, pab: int, poignee: int,
                 chelem_announced: bool, chelem_attack: bool, chelem_defence: bool,
                 kv: np.ndarray) -> tuple[int, bool, int, int]:
    """The attack-signed total A (each defender marks -A), from the attack's half-points,
    its Bouts, the contract, the Petit au bout (+1 attack, -1 defence, 0 none), the sum
    of declared poignée primes and the chelem. Returns (A, made, margin, points needed).

    made = P >= T (juste fait wins); margin = |P - T| rounded (knob); base =
    (25 + margin) x multiplier; Petit au bout 10 x multiplier to its camp; poignées to
    the deal's winner, not multiplied; chelem primes not multiplied."""
    needed = kv[K_TARGET + bouts]
    diff2 = points_x2 - 2 * needed
    made = diff2 >= 0
    a = diff2 if made else -diff2
    margin = (a + 1) // 2 if kv[K_ROUND_CEIL] else a // 2
    m = kv[K_MULT + contract]
    base = (kv[K_BASE] + margin) * m
    total = base if made else -base
    total += pab * kv[K_PAB] * m
    total += poignee if made else -poignee
    cm = m if kv[K_CH_MULT] else 1
    if chelem_attack:
        total += (kv[K_CH_AM] if chelem_announced else kv[K_CH_UN]) * cm
    elif chelem_announced:
        total -= kv[K_CH_FAIL] * cm
    if chelem_defence:
        total -= kv[K_CH_DEF] * cm
    return total, made, margin, needed


@hot
def seat_score(total: int, n: int, taker: int, partner: int, seat: int) -> int:
    """Zero-sum split of A: defenders -A; partner +A; taker A x (defenders) - partner."""
    if seat == taker:
        n_def = n - 1 if partner < 0 else n - 2
        return n_def * total - (total if partner >= 0 else 0)
    if seat == partner:
        return total
    return -total


# --- the Excuse ------------------------------------------------------------------------
@hot
def excuse_fate(exc_seat: int, win_seat: int, last: bool, led_it: bool, camp_won_all: bool,
                same_camp: bool, kv: np.ndarray) -> tuple[int, bool, bool]:
    """What happens to the Excuse played by ``exc_seat`` in a trick won by ``win_seat``:
    (trick winner, Excuse kept by its player's camp, a low card owed to the winner's
    camp). It never wins, its camp keeps it and owes a 0.5-point card to the other camp;
    on the last trick it changes camp (knob), except when led there by a camp that won
    every other trick: it then takes that trick (chelem, knob)."""
    if last:
        if kv[K_CH_EXC] and led_it and camp_won_all:
            return exc_seat, True, False
        if kv[K_EXC_LAST]:
            return win_seat, False, False
    return win_seat, True, not same_camp


@hot
def exchange_paid(excuse_attack: bool, att_tricks: int, hsize: int, contract: int,
                  kv: np.ndarray) -> bool:
    """Is the Excuse's exchange card handed over? Only if its camp has won cards to take
    it from (tricks; the attack's écart or Garde sans chien; the defence's Garde contre
    chien), unless the knob says always."""
    if kv[K_EXC_ALWAYS]:
        return True
    if excuse_attack:
        return att_tricks > 0 or contract <= GARDE_SANS
    return att_tricks < hsize or contract == GARDE_CONTRE


# --- play ---------------------------------------------------------------------------
@hot
def called_suit_lead(l0: np.uint64, l1: np.uint64, called: int, trick: int,
                     called_out: bool, kv: np.ndarray) -> np.uint64:
    """5 players: the leader's playable suit cards (word 0) once the called card's suit
    is barred (except the called card itself), on the first trick or until the called
    card is out (knob); unchanged if nothing else could be led."""
    mode = kv[K_LEAD_RESTRICT]
    if mode == 0 or (mode == 1 and trick > 0) or (mode == 2 and called_out):
        return l0
    barred = SUIT_BITS << np.uint64(14 * (called // 14)) & ~(ONE << np.uint64(called))
    r0 = l0 & ~barred
    return r0 if r0 | l1 != EMPTY else l0


@hot
def knows_ally(p: int, w: int, taker: int, partner: int, revealed: bool) -> bool:
    """Does seat ``p`` know that ``w`` plays on his side? The 5-player partner is secret
    until the called card is played (or shown in the chien)."""
    if w == p:
        return True
    if p == taker:
        return revealed and w == partner
    if p == partner:
        return w == taker
    if w == taker:
        return False
    return revealed and w != partner


@hot
def lead_card(h0: np.uint64, h1: np.uint64, l0: np.uint64, l1: np.uint64, attack: bool,
              g0: np.uint64, g1: np.uint64, taker_voids: int, keep_excuse: bool,
              tricks_left: int, kv: np.ndarray, tb: tuple) -> int:
    """Heuristic lead from the legal set (l0, l1). Attack: draw trumps while holding
    enough of the unseen ones (master trump first, else a low one); cash master suit
    cards. Defence: cash masters in suits the taker still follows, else lead a suit he
    is void in (make him trump). Otherwise the cheapest card. The Petit is kept while
    trumps are out; the Excuse goes when two tricks remain (never stuck on the last)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    if l1 & EXCUSE1 != EMPTY and tricks_left == 2 and not keep_excuse:
        return EXCUSE
    u0 = ALL0 & ~g0 & ~h0
    u1 = ALL1 & ~g1 & ~h1
    out_trumps = u1 & TRUMPS1
    my_trumps = l1 & TRUMPS1
    no_petit = my_trumps & ~PETIT1
    if attack and no_petit != EMPTY and out_trumps != EMPTY and \
            popcount(h1 & TRUMPS1) * 100 >= kv[K_DRAW_PCT] * popcount(out_trumps):
        top = 64 + highest(no_petit)  # my highest trump but the Petit
        if wis_master(top, u0, u1, above):
            return top
        return 64 + lowest(no_petit)
    masters0 = EMPTY  # my top card of each suit when no unseen card beats it
    for s in range(4):
        if (taker_voids >> s) & 1:
            continue
        sh = np.uint64(14 * s)
        mine = (l0 >> sh) & SUIT_BITS
        if mine != EMPTY:
            top = np.uint64(highest(mine | ((u0 >> sh) & SUIT_BITS)))
            if (mine >> top) & ONE != EMPTY:
                masters0 |= ONE << (top + sh)
    if masters0 != EMPTY:
        return wbest_in(masters0, EMPTY, rich)
    if not attack and taker_voids & 15 != 0:
        m = EMPTY
        for s in range(4):
            if (taker_voids >> s) & 1:
                m |= l0 & suit_mask[s, 0]
        if m != EMPTY:
            return wbest_in(m, EMPTY, cheap)
    c = wbest_in(l0, l1 & ~PETIT1 & ~EXCUSE1, cheap)
    if c >= 0:
        return c
    if l1 & PETIT1 != EMPTY and (l1 & EXCUSE1 == EMPTY or keep_excuse):
        return PETIT
    return wbest_in(l0, l1, cheap)


@hot
def follow_card(l0: np.uint64, l1: np.uint64, h0: np.uint64, h1: np.uint64, win: int,
                ally_wins: bool, last: bool, on_table: int, keep_excuse: bool,
                tricks_left: int, g0: np.uint64, g1: np.uint64, kv: np.ndarray,
                tb: tuple) -> int:
    """Heuristic second-or-later card: the Excuse when two tricks remain or to save a
    valuable card on a lost trick; on a partner's safe winner (last seat, or a master
    card), save the Petit or load the richest plain card; otherwise win cheaply when
    the trick is worth it (never with the Petit unless last), else shed the cheapest."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    has_exc = l1 & EXCUSE1 != EMPTY and not keep_excuse
    if has_exc and tricks_left == 2:
        return EXCUSE
    n0 = l0
    n1 = l1 & ~EXCUSE1
    if n0 | n1 == EMPTY:
        return EXCUSE
    if ally_wins:
        u0 = ALL0 & ~g0 & ~h0
        u1 = ALL1 & ~g1 & ~h1
        if last or wis_master(win, u0, u1, above):
            if n1 & PETIT1 != EMPTY:
                return PETIT
            c = wbest_in(n0, n1 & ~TRUMPS1, rich)
            if c >= 0:
                return c
        c = wbest_in(n0, n1 & ~PETIT1, cheap)
        return c if c >= 0 else PETIT
    w0, w1 = wwinners(n0, n1, win, TRUMP_SUIT, suit_of, suit_mask, excuse_mask, above)
    if not last:
        w1 &= ~PETIT1
    c = wbest_in(w0, w1, win_rank)
    if c >= 0 and (last or on_table + points[c] >= kv[K_WIN_MIN]):
        return c
    c = wbest_in(n0, n1 & ~PETIT1, cheap)
    if c < 0:
        c = PETIT
    if has_exc and tricks_left > 1 and points[c] >= kv[K_EXC_SAVE]:
        return EXCUSE
    return c


@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray,
              rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray,
              state: np.uint64, row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray,
              hands: np.ndarray, tally: np.ndarray, buf: np.ndarray) -> np.uint64:
    """One dealing from a shuffled ``deck`` (slots): fills ``row`` from the score
    columns on (column indices ``cx``), ``dealt``/``hands_out`` [n, hand] deck ids;
    ``hands`` uint64 [5, 2], ``tally`` int64 [32] and ``buf`` int64 [32] are work
    arrays. Returns the policy stream state."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    n = kv[K_N]
    hsize = kv[K_HAND]
    nc = kv[K_CHIEN]
    for p in range(n):
        hands[p, 0] = EMPTY
        hands[p, 1] = EMPTY
        tally[p] = 0  # cards dealt so far, then tricks won
        tally[8 + p] = 0  # half-points won
        tally[16 + p] = 0  # known voids (bit per suit code)
    # Deal: packets counter-clockwise from the dealer's right, the chien card by card.
    n_ch = 0
    for i in range(N_CARDS):
        r = order[i]
        c = deck[i]
        if r == n:
            buf[n_ch] = c
            row[cx[X_CHIEN] + n_ch] = ID_OF_SLOT[c]
            n_ch += 1
        else:
            p = (dealer + 1 + r) % n
            dealt[p, tally[p]] = ID_OF_SLOT[c]
            tally[p] += 1
            if c < 64:
                hands[p, 0] |= ONE << np.uint64(c)
            else:
                hands[p, 1] |= ONE << np.uint64(c - 64)
    row[cx[X_TAKER]] = -1
    row[cx[X_CONTRACT]] = -1
    row[cx[X_MADE]] = -1
    row[cx[X_PSEC]] = -1
    row[cx[X_PAB]] = -1
    row[cx[X_CHELEM]] = -1
    row[cx[X_CALLED]] = -1
    row[cx[X_PARTNER]] = -1
    row[cx[X_ALONE]] = -1
    row[cx[X_CALLED_CHIEN]] = -1
    row[cx[X_TVALUE]] = -1
    row[cx[X_TBOUTS]] = -1
    for p in range(n):
        row[cx[X_POIGNEE] + p] = -1
    for j in range(nc):
        row[cx[X_ECART] + j] = -1
    ch0 = EMPTY
    ch1 = EMPTY
    for j in range(nc):
        c = buf[j]
        if c < 64:
            ch0 |= ONE << np.uint64(c)
        else:
            ch1 |= ONE << np.uint64(c - 64)

    # Petit sec: shown before the auction; the dealing is void.
    if kv[K_PETIT_SEC]:
        ps = petit_sec_seat(hands, dealer, n, kv)
        if ps >= 0:
            row[C_ANNULLED] = 1
            row[cx[X_PSEC]] = ps
            return state

    state, taker, contract = auction(hands, dealer, n, pol, kv, state)
    if taker < 0:
        return state
    row[cx[X_TAKER]] = taker
    row[cx[X_CONTRACT]] = contract
    row[cx[X_TVALUE]] = hand_value(hands[taker, 0], hands[taker, 1])
    row[cx[X_TBOUTS]] = popcount(hands[taker, 1] & BOUTS1)
    heur_t = pol[taker] == HEURISTIC

    # 5 players: the taker calls a card before the chien is turned.
    partner = -1
    called = -1
    revealed = n < 5
    if n == 5:
        state, called = choose_call(hands[taker, 0], heur_t, kv, state)
        row[cx[X_CALLED]] = ID_OF_SLOT[called]
        cb = ONE << np.uint64(called)  # a suit card: word 0
        for p in range(n):
            if p != taker and hands[p, 0] & cb != EMPTY:
                partner = p
        in_chien = ch0 & cb != EMPTY
        row[cx[X_PARTNER]] = partner
        row[cx[X_ALONE]] = partner < 0
        row[cx[X_CALLED_CHIEN]] = in_chien
        if in_chien and contract <= GARDE:  # the chien is shown: everybody knows
            revealed = True

    # Chien: Prise/Garde -> the taker takes it and discards; Garde sans -> the attack's
    # pile unseen; Garde contre -> the defence's pile unseen.
    pile_att = 0
    pile_def = 0
    bouts_att = 0
    if contract <= GARDE:
        h0 = hands[taker, 0] | ch0
        h1 = hands[taker, 1] | ch1
        state, h0, h1, n_tr = make_ecart(h0, h1, nc, heur_t, kv, points, state, buf)
        hands[taker, 0] = h0
        hands[taker, 1] = h1
        row[cx[X_ECART_TRUMPS]] = n_tr
        for j in range(nc):
            row[cx[X_ECART] + j] = ID_OF_SLOT[buf[j]]
            pile_att += points[buf[j]]
    else:
        pch = 0
        for j in range(nc):
            pch += points[buf[j]]
        nb = popcount(ch1 & BOUTS1)
        if contract == GARDE_SANS:
            pile_att = pch
            bouts_att += nb
        else:
            pile_def = pch
    for p in range(n):
        wcards_of(hands[p, 0], hands[p, 1], buf)
        for j in range(hsize):
            hands_out[p, j] = ID_OF_SLOT[buf[j]]

    # Chelem announcement (after the contract, by the taker; he then leads).
    if heur_t:
        chelem_ann = hand_value(hands[taker, 0], hands[taker, 1]) >= kv[K_CHELEM_AT]
    else:
        state, x = rng.below(state, 2)
        chelem_ann = x == 1
    row[cx[X_CH_ANN]] = chelem_ann

    # Poignées, declared just before each player's first card (hands are then complete).
    poignee = 0
    for p in range(n):
        lvl = poignee_level(hands[p, 1], kv)
        if lvl < 0:
            continue
        if pol[p] == HEURISTIC:
            attack_p = p == taker or p == partner
            if not (attack_p or kv[K_POIGNEE_DEF]):
                lvl = -1
        else:
            state, x = rng.below(state, lvl + 2)
            lvl = x - 1
        if lvl >= 0:
            row[cx[X_POIGNEE] + p] = lvl
            poignee += kv[K_PPRIME + lvl]

    # Play.
    called_out = False  # the called card has been played
    for p in range(n):
        tally[p] = 0  # tricks won
    leader = taker if chelem_ann else (dealer + 1) % n
    g0 = EMPTY
    g1 = EMPTY
    att_tricks = 0
    exc_from = -1  # the Excuse's exchange: owed by this seat ...
    exc_to = -1  # ... to this one
    exc_att = False  # the Excuse ends in the attack's cards
    petit_trick = -1
    petit_att = False
    t21_att = False
    chelem_exc = False
    for trick in range(hsize):
        led = -1
        win = -1
        win_seat = -1
        on_table = 0
        exc_seat = -1
        petit_here = False
        t21_here = False
        tricks_left = hsize - trick
        for k in range(n):
            p = (leader + k) % n
            h0 = hands[p, 0]
            h1 = hands[p, 1]
            l0, l1 = wlegal_cards(h0, h1, led, win, False, TRUMP_SUIT, suit_of, suit_mask,
                                  excuse_mask, above, rules)
            if k == 0 and n == 5:
                l0 = called_suit_lead(l0, l1, called, trick, called_out, kv)
            attack_p = p == taker or p == partner
            if pol[p] == HEURISTIC:
                keep = chelem_ann and attack_p and att_tricks == trick
                if k == 0:
                    c = lead_card(h0, h1, l0, l1, attack_p, g0, g1,
                                  tally[16 + taker] if not attack_p else 0, keep, tricks_left,
                                  kv, tb)
                else:
                    ally = knows_ally(p, win_seat, taker, partner, revealed)
                    c = follow_card(l0, l1, h0, h1, win, ally, k == n - 1, on_table, keep,
                                    tricks_left, g0, g1, kv, tb)
            else:
                state, c = wrandom_card(state, l0, l1)
            if c < 64:
                b = ONE << np.uint64(c)
                hands[p, 0] = h0 & ~b
                g0 |= b
            else:
                b = ONE << np.uint64(c - 64)
                hands[p, 1] = h1 & ~b
                g1 |= b
            if c == EXCUSE:
                exc_seat = p
            elif c == PETIT:
                petit_here = True
            elif c == T21:
                t21_here = True
            if c == called:
                revealed = True
                called_out = True
            s = suit_of[c]
            if led >= 0 and s != led and s != EXCUSE_SUIT:
                tally[16 + p] |= 1 << led
            on_table += points[c]
            led, win, win_seat = wupdate_trick(c, p, led, win, win_seat, TRUMP_SUIT, suit_of,
                                               above)
        last = trick == hsize - 1
        w = win_seat
        kept = False  # the Excuse stays in its player's camp
        if exc_seat >= 0:
            e_att = exc_seat == taker or exc_seat == partner
            if last:
                row[cx[X_EXC_LAST]] = 1
            won_all = att_tricks == trick if e_att else att_tricks == 0
            w, kept, owed = excuse_fate(exc_seat, win_seat, last, exc_seat == leader, won_all,
                                        e_att == (win_seat == taker or win_seat == partner), kv)
            chelem_exc = w == exc_seat
            exc_att = e_att if kept else (w == taker or w == partner)
            if owed:
                exc_from = exc_seat
                exc_to = w
        w_att = w == taker or w == partner
        tally[w] += 1
        if w_att:
            att_tricks += 1
        if kept and w != exc_seat:
            tally[8 + exc_seat] += points[EXCUSE]
            tally[8 + w] += on_table - points[EXCUSE]
        else:
            tally[8 + w] += on_table
        if petit_here:
            petit_trick = trick
            petit_att = w_att
        if t21_here:
            t21_att = w_att
        leader = w
    # The Excuse's exchange card: paid if the holder's camp has won cards (or always).
    if exc_from >= 0:
        e_att = exc_from == taker or exc_from == partner
        if exchange_paid(e_att, att_tricks, hsize, contract, kv):
            tally[8 + exc_from] -= 1
            tally[8 + exc_to] += 1

    # Scoring.
    pts_att = pile_att
    pts_def = pile_def
    for p in range(n):
        row[cx[X_TRICKS] + p] = tally[p]
        row[cx[X_TPTS] + p] = tally[8 + p]
        if p == taker or p == partner:
            pts_att += tally[8 + p]
        else:
            pts_def += tally[8 + p]
    # Bouts: the chien's (Garde sans) plus those the attack won (none is ever discarded).
    if petit_trick >= 0 and petit_att:
        bouts_att += 1
    if t21_att:
        bouts_att += 1
    if g1 & EXCUSE1 != EMPTY and exc_att:
        bouts_att += 1
    pab = 0
    if petit_trick == hsize - 1 or (chelem_exc and petit_trick == hsize - 2):
        pab = 1 if petit_att else -1
        row[cx[X_PAB]] = 0 if petit_att else 1
    ch_att = att_tricks == hsize
    ch_def = att_tricks == 0
    if ch_att:
        row[cx[X_CHELEM]] = 0
    elif ch_def:
        row[cx[X_CHELEM]] = 1
    total, made, margin, needed = attack_total(pts_att, bouts_att, contract, pab, poignee,
                                               chelem_ann, ch_att, ch_def, kv)
    row[cx[X_BOUTS]] = bouts_att
    row[cx[X_APTS]] = pts_att
    row[cx[X_DPTS]] = pts_def
    row[cx[X_NEED]] = needed
    row[cx[X_MARGIN]] = margin if made else -margin
    row[cx[X_ATOTAL]] = total
    row[cx[X_MADE]] = made
    for p in range(n):
        row[cx[X_SCORE] + p] = seat_score(total, n, taker, partner, p)
    return state


# --- batch kernels ---------------------------------------------------------------------
@hot
def _fresh_deck(deck: np.ndarray) -> None:
    for i in range(N_CARDS):
        deck[i] = SLOT_OF_ID[i]


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray, ncols: int,
                 record: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = kv[K_N]
    hsize = kv[K_HAND]
    out = np.zeros((ncols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, hsize), -1, dtype=np.int64)
    hands_out = np.full((n_rec, n, hsize), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros((5, 2), dtype=np.uint64)
    tally = np.zeros(32, dtype=np.int64)
    buf = np.zeros(32, dtype=np.int64)
    for i in range(count):
        d = start + i
        _fresh_deck(deck)
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % n
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, dealer, pol, kv, rules, tb, order, cx, rng.stream(seed, d, 0, rng.POLICY),
                  out[i], dealt[j], hands_out[j], hands, tally, buf)
        if record and out[i, cx[X_TAKER]] < 0:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray,
                   ncols: int) -> np.ndarray:
    n = kv[K_N]
    hsize = kv[K_HAND]
    out = np.zeros((count, 8 + n), dtype=np.int64)
    row = np.zeros((ncols, 1), dtype=np.int64).T[0]
    dealt = np.empty((n, hsize), dtype=np.int64)
    hands_out = np.empty((n, hsize), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros((5, 2), dtype=np.uint64)
    tally = np.zeros(32, dtype=np.int64)
    buf = np.zeros(32, dtype=np.int64)
    scores = np.zeros(5, dtype=np.int64)
    n_deals = kv[K_ROUNDS] * n
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        dealer = first
        scores[:] = 0
        annulled = 0
        all_pass = 0
        made = 0
        taken = 0
        for j in range(n_deals):
            _fresh_deck(deck)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(deck, dealer, pol, kv, rules, tb, order, cx,
                      rng.stream(seed, m, j + 1, rng.POLICY), row, dealt, hands_out, hands,
                      tally, buf)
            if row[C_ANNULLED]:
                annulled += 1
            elif row[cx[X_TAKER]] < 0:
                all_pass += 1
            else:
                taken += 1
                made += row[cx[X_MADE]]
                for p in range(n):
                    scores[p] += row[cx[X_SCORE] + p]
            dealer = (dealer + 1) % n
        best = 0
        for p in range(1, n):
            if scores[p] > scores[best]:
                best = p
        tie = False
        for p in range(n):
            if p != best and scores[p] == scores[best]:
                tie = True
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = -1 if tie else best
        out[i, 3] = n_deals
        for p in range(n):
            out[i, 4 + p] = scores[p]
        out[i, 4 + n] = annulled
        out[i, 5 + n] = all_pass
        out[i, 6 + n] = made
        out[i, 7 + n] = taken
    return out


# --- entry points for the runner -----------------------------------------------------
_TABLES: list[WideTables] = []


def _tables() -> WideTables:
    if not _TABLES:
        _TABLES.append(tables())
    return _TABLES[0]


def _args(knobs: TarotKnobs) -> tuple:
    cols, cx = _layout(knobs.players)
    return (_vector(knobs), _rules(knobs), _tables().kernel_args(), deal_order(knobs.players),
            cx, len(cols))


def run_deals(knobs: TarotKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb, order, cx, ncols = _args(knobs)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      kv, rules, tb, order, cx, ncols, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: TarotKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb, order, cx, ncols = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       kv, rules, tb, order, cx, ncols))


# --- balance questions ------------------------------------------------------------------
SECTION = "Tarot questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points (marks, swings, spreads) stay out of the headline table.
VALUE_EDGES = (20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60)  # question 2: hand-value buckets


def _n_seats(cols: set[str], knobs) -> int:
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    return n or (knobs.players if isinstance(knobs, TarotKnobs) else 4)


def _value_buckets() -> list[tuple[str, str, pl.Expr]]:
    """(key, text, condition on taker_value) for question 2's hand-strength buckets."""
    v = pl.col("taker_value")
    edges = VALUE_EDGES
    out = [(f"lt{edges[0]}", f"hand value < {edges[0]}", v < edges[0])]
    for lo, hi in zip(edges, edges[1:], strict=False):
        out.append((f"{lo}_{hi - 1}", f"hand value {lo}-{hi - 1}", (v >= lo) & (v < hi)))
    out.append((f"ge{edges[-1]}", f"hand value >= {edges[-1]}", v >= edges[-1]))
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: TarotKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's eight balance questions as metrics (section "Tarot questions"), at
    the run's player count (3, 4 or 5; metrics are per run, so question 4 compares runs).

    Deal level: 1 taker success and mark by contract and by Bouts (won at the end, and
    held at the bid); 2 the taker's mark against a defender's, by hand-value bucket; 3 the
    dealer's right (first to bid and to lead) against the other positions; 4 the taker's
    success and the spread of the marks, and at 5 players how often and how well the
    taker plays alone; 5 Petit au bout frequency, camp and swing per contract; 6 the
    success of a camp that shows a poignée; 7 redeals (petit sec, all pass); 8 slams.
    Match level: 4 and 7 as shares pooled over matches. Only metrics whose columns the
    frame has (and, for the hand-value buckets, those holding at least two of the frame's
    takes) are returned."""
    cols = set(frame.lazy().collect_schema().names())
    n = _n_seats(cols, knobs)
    k = knobs if isinstance(knobs, TarotKnobs) else TarotKnobs(players=n)
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"tarot.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        scores = {f"score_s{i}" for i in range(n)}
        taken = pl.col("taker") >= 0
        made = pl.col("made")
        contract = pl.col("contract").cast(pl.String)
        taker_score = pl.lit(None, dtype=pl.Float64)
        for p in range(n):
            taker_score = pl.when(pl.col("taker") == p).then(
                pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(taker_score)
        alone_or_no_partner = pl.col("partner") < 0
        # the taker's mark is this many times A (each defender marks -A)
        factor = pl.when(alone_or_no_partner).then(n - 1).otherwise(n - 3)
        bid = {"taker", "made", "contract"}
        sc = bid | scores
        mults = dict(zip(CONTRACTS, (k.mult_prise, k.mult_garde, k.mult_garde_sans,
                                     k.mult_garde_contre), strict=True))
        names = {"prise": "Prise", "garde": "Garde", "garde_sans": "Garde sans",
                 "garde_contre": "Garde contre"}
        # 1. success and mark by contract and by Bouts
        for c in CONTRACTS:
            sel = taken & (contract == c)
            add(bid, f"q1.success.{c}", f"taker success, {names[c]}", made, sel, headline=True)
            add(sc, f"q1.score.{c}", f"taker's mark per deal, {names[c]}", taker_score, sel,
                kind="mean", unit="points",
                note="positive: taking this contract is +EV for the bidders of this run"
                if c == "garde_contre" else "")
        for b in range(4):
            sel = taken & (pl.col("bouts") == b)
            add(bid | {"bouts"}, f"q1.success.bouts{b}", f"taker success, {b} Bouts won",
                made, sel, headline=True,
                note="Bouts among the attack's cards at the end (they set the target)")
            add(sc | {"bouts"}, f"q1.score.bouts{b}", f"taker's mark per deal, {b} Bouts won",
                taker_score, sel, kind="mean", unit="points")
            sel = taken & (pl.col("taker_bouts") == b)
            add(bid | {"taker_bouts"}, f"q1.success.held{b}", f"taker success, {b} Bouts "
                "in hand at the bid", made, sel, note="Bouts in the taker's own hand, "
                "before the chien")
            add(sc | {"taker_bouts"}, f"q1.score.held{b}", f"taker's mark per deal, {b} "
                "Bouts in hand at the bid", taker_score, sel, kind="mean", unit="points")
        # 2. is taking profitable? the taker's mark against a defender's, by hand value
        add(sc, "q2.score.taker", "taker's mark per deal taken", taker_score, taken,
            kind="mean", unit="points")
        add({"taker", "attack_total"}, "q2.score.defender", "a defender's mark per deal "
            "taken", -pl.col("attack_total").cast(pl.Float64), taken, kind="mean",
            unit="points", note="each defender marks -A (the partner at 5 players +A)")
        add(sc, "q2.positive", "the taker's mark is positive", taker_score > 0, taken,
            headline=True)
        if "taker_value" in cols:
            takes = (frame.lazy().filter(taken)
                     .select("taker_value", contract.alias("contract")).collect())
            for key, text, cond in _value_buckets():
                here = takes.filter(cond)
                if here.height < 2:  # only buckets with takes enough for an interval
                    continue
                sel = taken & cond
                add(sc | {"taker_value"}, f"q2.score.v{key}", f"taker's mark per deal, "
                    f"{text}", taker_score, sel, kind="mean", unit="points",
                    note="hand value: the heuristic's bidding count of the taker's hand "
                         f"before the chien (bids at {k.bid_prise}/{k.bid_garde}/"
                         f"{k.bid_garde_sans}/{k.bid_garde_contre})")
                add(sc | {"taker_value"}, f"q2.success.v{key}", f"taker success, {text}",
                    made, sel)
                if (here["contract"] == "prise").sum() >= 2:
                    add(sc | {"taker_value"}, f"q2.prise.score.v{key}", f"taker's mark per "
                        f"Prise, {text}", taker_score, sel & (contract == "prise"),
                        kind="mean", unit="points",
                        note="the lowest bucket with a positive mean: where Prise "
                             "becomes +EV")
        # 3. seat effect: the dealer's right speaks first and leads
        for j in range(n):
            pos = "the dealer" if j == 0 else ("the dealer's right" if j == 1 else
                                               f"{j} seats right of the dealer")
            mark = pl.lit(None, dtype=pl.Float64)
            for p in range(n):
                mark = pl.when((pl.col("dealer") + j) % n == p).then(
                    pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(mark)
            add(scores | {"dealer"}, f"q3.score.pos{j}", f"mark per dealing, {pos}", mark,
                kind="mean", unit="points",
                note="over all dealings (void ones mark 0); every seat holds each position "
                     "equally often over a full rotation" if j == 1 else "")
            add(scores | {"dealer", "taker"}, f"q3.positive.pos{j}", f"positive mark, {pos} "
                "(deals taken)", mark > 0, taken, headline=j == 1)
        right = pl.col("taker") == (pl.col("dealer") + 1) % n
        add({"taker", "dealer"}, "q3.take.right", "the dealer's right takes (share of deals "
            "taken)", right, taken, note=f"1/{n} if position did not matter")
        add({"taker", "dealer", "made"}, "q3.success.right", "taker success when the "
            "dealer's right takes", made, taken & right)
        add({"taker", "dealer", "made"}, "q3.success.others", "taker success when another "
            "seat takes", made, taken & ~right)
        # 4. player count: the taker's success and the spread of the marks at this count
        add(bid, "q4.success", f"taker success at {n} players", made, taken, headline=True,
            note="compare runs with players=3, 4 and 5")
        add(sc, "q4.score.sd", f"standard deviation of the taker's mark at {n} players",
            std_dev(taker_score, taken), taken, kind="mean", unit="points",
            note="delta-method interval")
        sq = sum(pl.col(f"score_s{i}").cast(pl.Float64) ** 2 for i in range(n)) / n
        add(scores | {"taker"}, "q4.mark.sd", f"standard deviation of a seat's mark per deal "
            f"taken at {n} players", root_mean(sq, taken), taken, kind="mean",
            unit="points", note="about 0, pooled over the seats (the marks of a deal sum to "
                                "0); delta-method interval")
        if n == 5:
            alone = pl.col("alone")
            chien = pl.col("called_in_chien")
            self_call = alone & ~chien
            need5 = {"taker", "alone", "called_in_chien"}
            add(need5, "q4.alone", "the taker plays alone (1 against 4)", alone, taken,
                headline=True)
            add(need5, "q4.alone.chien", "alone: the called card is in the chien", chien,
                taken)
            add(need5, "q4.alone.self_call", "alone: the taker called his own card",
                self_call, taken)
            add(need5 | {"made"}, "q4.success.alone", "taker success when alone", made,
                taken & alone, headline=True)
            add(need5 | {"made"}, "q4.success.partner", "taker success with a partner", made,
                taken & ~alone)
            add(need5 | {"made"}, "q4.success.self_call", "taker success after a self-call",
                made, taken & self_call)
            add(need5 | scores, "q4.score.alone", "taker's mark when alone", taker_score,
                taken & alone, kind="mean", unit="points")
            add(need5 | scores, "q4.score.self_call", "taker's mark after a self-call",
                taker_score, taken & self_call, kind="mean", unit="points",
                note="positive: self-calling pays for the bidders of this run")
            add(need5 | scores, "q4.score.partner", "taker's mark with a partner",
                taker_score, taken & ~alone, kind="mean", unit="points")
        # 5. Petit au bout
        pab = pl.col("petit_au_bout").cast(pl.String)
        pab_att = (pab == "attack").fill_null(False)
        pab_def = (pab == "defence").fill_null(False)
        need = {"taker", "petit_au_bout"}
        add(need, "q5.pab", "Petit au bout, per deal taken", pab.is_not_null(), taken,
            headline=True)
        add(need, "q5.pab.attack", "Petit au bout taken by the attack (share of Petits au "
            "bout)", pab_att, taken & pab.is_not_null(), headline=True)
        add(need, "q5.pab.defence", "Petit au bout taken by the defence, per deal taken",
            pab_def, taken)
        sign = pl.when(pab_att).then(1).when(pab_def).then(-1).otherwise(0)
        for c in CONTRACTS:
            swing = (sign * factor * (k.petit_au_bout * mults[c])).cast(pl.Float64)
            add(need | {"contract", "partner"}, f"q5.swing.{c}", f"Petit au bout's part of "
                f"the taker's mark, {names[c]}", swing, taken & (contract == c),
                kind="mean", unit="points",
                note=f"mean over the {names[c]} takes of +-{k.petit_au_bout} x "
                     f"{mults[c]} x the taker's share of A")
        # 6. poignée: does showing it cost the declaring camp?
        att_p = pl.lit(False)
        def_p = pl.lit(False)
        for p in range(n):
            shown = pl.col(f"poignee_s{p}").is_not_null()
            attack_seat = (pl.col("taker") == p) | (pl.col("partner") == p)
            att_p = att_p | (shown & attack_seat)
            def_p = def_p | (shown & ~attack_seat)
        need = {"taker", "made", "partner"} | {f"poignee_s{p}" for p in range(n)}
        note6 = ("a poignée comes with a trump-rich hand, so this mixes the hand's strength "
                 "with the information given away; `simlab compare tarot --a \"\" --b "
                 "\"poignee_defence=false\"` isolates the defence's poignées")
        add(need, "q6.shown", "a poignée is shown, per deal taken", att_p | def_p, taken)
        add(need, "q6.attack", "the attack shows a poignée, per deal taken", att_p, taken)
        add(need, "q6.defence", "the defence shows a poignée, per deal taken", def_p, taken)
        add(need, "q6.success.attack_poignee", "taker success when the attack shows a "
            "poignée", made, taken & att_p, headline=True, note=note6)
        add(need, "q6.success.no_attack_poignee", "taker success when the attack shows no "
            "poignée", made, taken & ~att_p)
        add(need, "q6.defence_wins.defence_poignee", "defence success when the defence "
            "shows a poignée", ~made, taken & def_p, headline=True, note=note6)
        add(need, "q6.defence_wins.no_defence_poignee", "defence success when the defence "
            "shows no poignée", ~made, taken & ~def_p)
        # 7. redeals
        void_ps = pl.col("annulled")
        all_pass = ~pl.col("annulled") & (pl.col("taker") < 0)
        add({"annulled"}, "q7.petit_sec", "dealing void through a petit sec", void_ps,
            headline=True)
        add({"annulled", "taker"}, "q7.all_pass", "dealing void because everybody passes",
            all_pass, headline=True,
            note="0 with all_pass=dealer_takes")
        add({"annulled", "taker"}, "q7.void", "dealing void (petit sec or all pass)",
            void_ps | all_pass)
        # 8. slams
        ch = pl.col("chelem").cast(pl.String)
        ch_att = (ch == "attack").fill_null(False)
        ch_def = (ch == "defence").fill_null(False)
        ann = pl.col("chelem_announced")
        need = {"taker", "chelem", "chelem_announced"}
        add(need, "q8.unannounced.attack", "unannounced slam by the attack, per deal taken",
            ch_att & ~ann, taken, headline=True)
        add(need, "q8.defence", "slam by the defence (every trick), per deal taken",
            ch_def, taken, headline=True)
        add(need, "q8.unannounced", "unannounced slam (either camp), per deal taken",
            ch.is_not_null() & ~ann, taken)
        add(need, "q8.announced", "slam announced, per deal taken", ann, taken)
        add(need, "q8.announced.made", "announced slam made", ch_att,
            taken & ann)
    else:
        nd = pl.col("n_deals")
        everything = pl.lit(True)
        add({"n_deals", "n_annulled"}, "q7.match.petit_sec", "share of dealings void "
            "through a petit sec (per match)", ratio_of_sums(pl.col("n_annulled"), nd,
                                                            everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        add({"n_deals", "n_all_pass"}, "q7.match.all_pass", "share of dealings where "
            "everybody passes (per match)", ratio_of_sums(pl.col("n_all_pass"), nd,
                                                          everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        add({"n_taken", "n_made"}, "q4.match.success", f"taker success at {n} players "
            "(pooled over matches)", ratio_of_sums(pl.col("n_made"), pl.col("n_taken"),
                                                    everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        finals = {f"final_score_s{i}" for i in range(n)}
        sq = sum(pl.col(f"final_score_s{i}").cast(pl.Float64) ** 2 for i in range(n)) / n
        add(finals, "q4.match.final.sd", f"standard deviation of a seat's match total at "
            f"{n} players", root_mean(sq, everything), kind="mean", unit="points",
            note="about 0, pooled over the seats; delta-method interval")
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="tarot",
    title="French Tarot",
    description="official French Tarot at 3, 4 or 5 players: packets and chien, petit sec, "
                "Prise/Garde/Garde sans/Garde contre, écart, called King at 5, Excuse, "
                "poignées, petit au bout, chelem; matches of a fixed number of dealings",
    deck=DECK,
    knobs=TarotKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="3-5",
    teams=None,
    extra={"metrics": balance_metrics},
)
