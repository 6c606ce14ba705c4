"""Tarot double détente, 3 players, and its 2-player variant the Triple-Détente (seed 000
"Tarot double détente"; catalogue ``tarot_double_detente.md``).

Read top to bottom like the rulebook: deck and tables, knobs, result columns, the pile
(deal and turned cards), contracts, play, scoring, one part, batch kernels, match.

Structure. A *manche* is 2 half-manches (3 players, 13 cards each from half the pack) or
3 third-manches (2 players, 13 each from a third); cards of earlier parts are absent
from later ones (and public: the heuristic remembers them). Each part: every player
announces once an exact number of tricks (0..13), from the dealer's left, dealer last;
13 tricks under Tarot obligations; contract score from the part's table (10/5/2,
20/10/5, 30/20/10 for exact / off by 1 / off by 2, plus the tricks taken), the Petit (2
to whoever wins it, +5 more if it falls in the last trick), -5 for playing the Excuse
in the last trick.

**One result row per part** (deal mode): row ``d`` is part ``d % parts`` of manche
``d // parts``; every part of a manche comes from the same shuffle, so a 2nd-half row
holds the cards the 1st-half row left in the talon. Column ``half`` (3 players) or
``third`` (2 players) says which part (1-based). ``dealer`` is the manche's dealer
(``(d // parts) % players``; catalogue #2 knob ``dealer_rotation``). In deal mode every
score starts at 0, so "tout ou rien" (which needs an opponent at 100+) only happens in
matches.

Seats 0..n-1 in the direction of play; ``dealer + 1`` is the dealer's left: he speaks
first and leads the first trick of every part.

Cards: the deck's ids (0..55 suit cards, 56..76 trumps 1..21, 77 the Excuse) in every
output column; inside the kernels the two-word *slots* of ``simlab.games.tarot``
(suit cards in word 0, trump t at slot 63 + t and the Excuse at 85 in word 1).

Obligations (seed 3.3): follow suit (trump on a trump lead, raising the highest trump if
able); void: must trump, overtrumping if able, else still a lower trump (knob
``must_undertrump``; the seed's "doivent couper" — official Tarot lets you sous-couper in
the Tarot seed, here you must trump); no trump: any card. The Excuse may always be
played, never wins; led, the next card sets the suit.

Supplementary rules (seed 8), each a knob, off by default: Cavalerie (+2 per Cavalier
won), Modifications (turned card after the deal of every part but the last: Excuse ->
a second card turned after the contracts decides; trump -> only an exact contract
earns a bonus; Cavalier -> bonuses doubled; other suit card -> that suit's order is
reversed, the 1 highest), As gagnant (a trick won with a suit 1: each opponent -10),
Tout ou rien (declared with the contract against an opponent at 100+; exact: the
opponent loses the declarer's bonus; otherwise the declarer marks nothing for the part).
Faults: humans only; simulated as a per-player probability (knob ``fault_per_mille``,
default 0): the faulting player's part stops at a random trick, he marks -20 (1st half)
/ -30 (later parts), the others 0 for that part.

Resolutions beyond the catalogue (documented here, knobs where cheap):
* tout ou rien failed: the declarer marks nothing, but the Excuse penalty and As-gagnant
  losses inflicted by opponents still apply (they are other players' points / a
  penalty, not points "marqués");
* a fault in the 3rd third costs 30 (seed silent; knob ``fault_penalty_3``);
* 2 players: the turned card of the 1st third goes under the 52-card talon, so it is
  dealt in the 3rd third (catalogue #10 says "in the next part"; the seed only says
  "sous le talon", which we follow literally);
* the hook (sum of contracts may not be 13) applies to the *last* speaker (with 2
  players, the second); knob ``hook`` can also impose it at 3 players or drop it.

Not implemented: ISMCTS; the heuristic does not try to capture the Petit on purpose
(only its play order protects it), and its hand evaluation is tuned only by one scale
per player count (measured exact-contract rate: about 30% at 3 players, 17% at 2).
Balance questions: ``balance_metrics`` (section "Tarot double détente questions").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab.decks import TRUMP_SUIT, get_deck
from simlab.games.base import (
    BOOL,
    HEURISTIC,
    Column,
    Game,
    KernelOutput,
    policy_codes,
)
from simlab.games.tarot import (
    ALL0,
    ALL1,
    EXCUSE,
    EXCUSE1,
    ID_OF_SLOT,
    PETIT,
    PETIT1,
    SLOT_OF_ID,
    SUIT_BITS,
    TRUMPS1,
)
from simlab.jit import batch, hot
from simlab.knobs import Knobs, knob
from simlab.metrics import MetricDef, ratio_of_sums, root_mean
from simlab.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    lowest,
    make_rules,
    popcount,
    wbest_in,
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
RA, RV, RC, RQ, RK = 0, 10, 11, 12, 13  # suit card id = suit * 14 + r (r 0 = the 1)
ACES0 = np.uint64(sum(1 << (s * 14 + RA) for s in range(4)))
CAVALIERS0 = np.uint64(sum(1 << (s * 14 + RC) for s in range(4)))
MODIFIERS = ("none", "exact_only", "doubled", "reversed")
MOD_NONE, MOD_EXACT, MOD_DOUBLE, MOD_REVERSE = range(4)
FAULT = 3  # rng purpose of the fault draws (keeps the policy stream unchanged)


def slot_strength(variant: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(suit, strength, points) per slot; ``variant`` 1 + s reverses suit s (the 1 is
    then highest, the Roi lowest). Points only steer the heuristic's card orders: the
    Petit 2 (kept rather than shed), everything else 0."""
    suit = np.full(86, -1, dtype=np.int64)
    strength = np.zeros(86, dtype=np.int64)
    points = np.zeros(86, dtype=np.int64)
    for cid in range(N_CARDS):
        s = SLOT_OF_ID[cid]
        suit[s] = DECK.suit[cid]
        if cid < 56:
            r = cid % 14
            strength[s] = 13 - r if variant == 1 + cid // 14 else r
        elif s != EXCUSE:
            strength[s] = s - 63
    points[PETIT] = 2
    return suit, strength, points


def tables() -> tuple:
    """Kernel tuple: (suit_of, suit_mask, excuse_mask, points, strength[5], above[5],
    cheap[5], rich[5], win[5]); index 0 = normal order, 1 + s = suit s reversed."""
    ts = [wide_trick_tables(*slot_strength(v), TRUMP_SUIT) for v in range(5)]
    t0 = ts[0]
    return (t0.suit_of, t0.suit_mask, t0.excuse_mask, t0.points,
            np.stack([t.strength for t in ts]), np.stack([t.above for t in ts]),
            np.stack([t.cheap_rank for t in ts]), np.stack([t.rich_rank for t in ts]),
            np.stack([t.win_rank for t in ts]))


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class DetenteKnobs(Knobs):
    players: int = knob(3, "3 (Double-Détente: 2 half-manches) or 2 (Triple-Détente: 3 "
                        "third-manches)", lo=2, hi=3)
    hand_size: int = knob(13, "cards per player in each part", lo=1, hi=13)
    bonus_exact_1: int = knob(10, "1st half / 1st third: exact contract bonus", lo=0, hi=1000)
    bonus_off1_1: int = knob(5, "1st part: off by one bonus", lo=0, hi=1000)
    bonus_off2_1: int = knob(2, "1st part: off by two bonus", lo=0, hi=1000)
    bonus_exact_2: int = knob(20, "2nd half / 2nd third: exact contract bonus", lo=0, hi=1000)
    bonus_off1_2: int = knob(10, "2nd part: off by one bonus", lo=0, hi=1000)
    bonus_off2_2: int = knob(5, "2nd part: off by two bonus", lo=0, hi=1000)
    bonus_exact_3: int = knob(30, "3rd third (2 players): exact contract bonus", lo=0, hi=1000)
    bonus_off1_3: int = knob(20, "3rd third: off by one bonus", lo=0, hi=1000)
    bonus_off2_3: int = knob(10, "3rd third: off by two bonus", lo=0, hi=1000)
    petit_value: int = knob(2, "points to whoever wins the Petit (trump 1)", lo=0, hi=100)
    petit_last_trick_bonus: int = knob(5, "further points when the Petit falls in the last "
                                       "trick (to that trick's winner)", lo=0, hi=100)
    excuse_last_trick_penalty: int = knob(5, "penalty for playing the Excuse in the last "
                                          "trick", lo=0, hi=100)
    hook: str = knob("two_players", "the last speaker may not bring the sum of contracts "
                     "to the hand size: with 2 players only (seed 7), always, or never",
                     choices=("two_players", "always", "never"))
    must_undertrump: bool = knob(True, "void and unable to overtrump: must still play a "
                                 "lower trump (seed: 'doivent couper')")
    dealer_rotation: str = knob("manche", "the deal passes after each manche (the dealer "
                                "deals all its parts) or after each part",
                                choices=("manche", "part"))
    target: int = knob(200, "match: first to this total at the end of a manche wins (the "
                        "highest if several; a tie for highest plays on)", lo=1, hi=100000)
    max_manches: int = knob(200, "match safety cap (a capped match has winner -1)",
                            lo=1, hi=100000)
    fault_per_mille: int = knob(0, "per player and part, chance (in 1/1000) of an "
                                "irregularity that stops the part (humans only; 0 = never)",
                                lo=0, hi=1000)
    fault_penalty_1: int = knob(20, "fault penalty in the 1st part", lo=0, hi=1000)
    fault_penalty_2: int = knob(30, "fault penalty in the 2nd part", lo=0, hi=1000)
    fault_penalty_3: int = knob(30, "fault penalty in the 3rd third (seed silent)", lo=0,
                                hi=1000)
    opt_cavalerie: bool = knob(False, "règle supplémentaire: each Cavalier won scores "
                               "cavalier_value")
    cavalier_value: int = knob(2, "Cavalerie: points per Cavalier won", lo=0, hi=100)
    opt_modifications: bool = knob(False, "règle supplémentaire: a card turned after the "
                                   "deal of every part but the last modifies it")
    opt_as_gagnant: bool = knob(False, "règle supplémentaire: a trick won with a suit 1 "
                                "costs each opponent as_gagnant_value")
    as_gagnant_value: int = knob(10, "As gagnant: points each opponent loses", lo=0, hi=1000)
    opt_tout_ou_rien: bool = knob(False, "règle supplémentaire: 'tout ou rien' declared "
                                  "against an opponent at tout_ou_rien_threshold or more")
    tout_ou_rien_threshold: int = knob(100, "tout ou rien: the named opponent's minimum "
                                       "score", lo=-100000, hi=100000)
    # heuristic policy (expected tricks in hundredths)
    ev_high_trump: int = knob(95, "heuristic: expected tricks (x100) per trump >= "
                              "high_trump_from", lo=0, hi=100, policy=True)
    high_trump_from: int = knob(17, "heuristic: lowest 'high' trump", lo=1, hi=21,
                                policy=True)
    ev_trump_long: int = knob(50, "heuristic: x100 per other trump when holding >= 5 "
                              "trumps", lo=0, hi=100, policy=True)
    ev_trump_short: int = knob(25, "heuristic: x100 per other trump with < 5 trumps",
                               lo=0, hi=100, policy=True)
    ev_top: int = knob(80, "heuristic: x100 for the top card of a suit (Roi, or the 1 of "
                       "a reversed suit)", lo=0, hi=100, policy=True)
    ev_second: int = knob(40, "heuristic: x100 for the second card of a suit with a "
                          "guard", lo=0, hi=100, policy=True)
    ev_void: int = knob(40, "heuristic: x100 for a void suit (with >= 2 trumps)", lo=0,
                        hi=300, policy=True)
    ev_singleton: int = knob(20, "heuristic: x100 for a singleton (with >= 2 trumps)",
                             lo=0, hi=300, policy=True)
    bid_scale_3p: int = knob(150, "heuristic: contract = round(expected x this %), 3 "
                             "players", lo=0, hi=400, policy=True)
    bid_scale_2p: int = knob(210, "heuristic: same, 2 players (fewer opponents: more of "
                             "a hand's cards win)", lo=0, hi=400, policy=True)
    tor_max_ev: int = knob(30, "heuristic: declare tout ou rien on a contract of 0 when "
                           "the expected tricks (x100) are at most this", lo=-1, hi=1300,
                           policy=True)


(K_N, K_H, K_PARTS, K_BONUS) = (0, 1, 2, 3)  # K_BONUS + 3 * part + (0 exact, 1, 2)
(K_PETIT, K_PETIT_LAST, K_EXC_PEN, K_HOOK, K_ROT_PART, K_TARGET, K_MAX, K_FAULT,
 K_FPEN) = range(12, 21)  # K_FPEN + part
(K_CAV, K_CAV_V, K_MOD, K_ACE, K_ACE_V, K_TOR, K_TOR_TH, K_EV_HIGH, K_HIGH_FROM,
 K_EV_LONG, K_EV_SHORT, K_EV_TOP, K_EV_SECOND, K_EV_VOID, K_EV_SINGLE, K_SCALE,
 K_TOR_EV, N_K) = range(23, 41)


def _vector(k: DetenteKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[K_N] = k.players
    v[K_H] = k.hand_size
    v[K_PARTS] = 5 - k.players
    v[K_BONUS:K_BONUS + 9] = [k.bonus_exact_1, k.bonus_off1_1, k.bonus_off2_1,
                              k.bonus_exact_2, k.bonus_off1_2, k.bonus_off2_2,
                              k.bonus_exact_3, k.bonus_off1_3, k.bonus_off2_3]
    v[K_PETIT] = k.petit_value
    v[K_PETIT_LAST] = k.petit_last_trick_bonus
    v[K_EXC_PEN] = k.excuse_last_trick_penalty
    v[K_HOOK] = (k.hook == "always" or (k.hook == "two_players" and k.players == 2))
    v[K_ROT_PART] = k.dealer_rotation == "part"
    v[K_TARGET] = k.target
    v[K_MAX] = k.max_manches
    v[K_FAULT] = k.fault_per_mille
    v[K_FPEN:K_FPEN + 3] = [k.fault_penalty_1, k.fault_penalty_2, k.fault_penalty_3]
    v[K_CAV] = k.opt_cavalerie
    v[K_CAV_V] = k.cavalier_value
    v[K_MOD] = k.opt_modifications
    v[K_ACE] = k.opt_as_gagnant
    v[K_ACE_V] = k.as_gagnant_value
    v[K_TOR] = k.opt_tout_ou_rien
    v[K_TOR_TH] = k.tout_ou_rien_threshold
    v[K_EV_HIGH] = k.ev_high_trump
    v[K_HIGH_FROM] = k.high_trump_from
    v[K_EV_LONG] = k.ev_trump_long
    v[K_EV_SHORT] = k.ev_trump_short
    v[K_EV_TOP] = k.ev_top
    v[K_EV_SECOND] = k.ev_second
    v[K_EV_VOID] = k.ev_void
    v[K_EV_SINGLE] = k.ev_singleton
    v[K_SCALE] = k.bid_scale_2p if k.players == 2 else k.bid_scale_3p
    v[K_TOR_EV] = k.tor_max_ev
    return v


def _rules(k: DetenteKnobs) -> np.ndarray:
    # Follow suit (raise a trump lead); void -> trump, overtrumping if able, else a lower
    # trump (knob); no partners; the Excuse may always be played.
    return make_rules(must_trump=True, partner_exempt=PARTNER_NEVER, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=False,
                      must_beat_led=False, raise_trump_lead=True)


# --- result columns -----------------------------------------------------------------
(X_SCORE, X_BID, X_TRICKS, X_HIT, X_PART, X_MANCHE, X_BONUS, X_TOR, X_ACES, X_CAVS,
 X_BIDSUM, X_PETIT, X_PETIT_LAST, X_EXC_LAST, X_MOD, X_MOD_SUIT, X_TURNED, X_TURNED2,
 X_FAULT, X_FAULT_TRICK, N_X) = range(21)
C_DEAL, C_DEALER, C_ANNULLED = 0, 1, 2


def _groups(n: int) -> list[tuple[int, list[Column]]]:
    seats = range(n)
    cards = DECK.labels
    part = "half" if n == 3 else "third"
    return [
        (X_SCORE, [Column(f"score_s{i}", help="points marked in this part") for i in seats]),
        (X_BID, [Column(f"bid_s{i}", help="contract: tricks announced") for i in seats]),
        (X_TRICKS, [Column(f"tricks_s{i}") for i in seats]),
        (X_HIT, [Column(f"hit_s{i}", BOOL, help="exact contract made") for i in seats]),
        (X_PART, [Column(part, help="1-based part of the manche")]),
        (X_MANCHE, [Column("manche", help="deal mode: deal // parts; match: 0-based")]),
        (X_BONUS, [Column(f"bonus_s{i}", help="contract bonus (table, modifier) earned, "
                          "0 when off by more than 2") for i in seats]),
        (X_TOR, [Column(f"tout_ou_rien_s{i}", help="opponent named in a tout ou rien, "
                        "-1 none") for i in seats]),
        (X_ACES, [Column(f"as_gagnant_s{i}", help="tricks won with a suit 1 (counts only "
                         "under opt_as_gagnant)") for i in seats]),
        (X_CAVS, [Column(f"cavaliers_s{i}", help="Cavaliers won in tricks") for i in seats]),
        (X_BIDSUM, [Column("bid_sum")]),
        (X_PETIT, [Column("petit_seat", help="seat that won the Petit, -1 when not in "
                          "this part")]),
        (X_PETIT_LAST, [Column("petit_last_trick", BOOL)]),
        (X_EXC_LAST, [Column("excuse_last_seat", help="seat that played the Excuse in the "
                             "last trick (penalised), -1 none")]),
        (X_MOD, [Column("modifier", MODIFIERS, help="null without opt_modifications or in "
                        "the last part")]),
        (X_MOD_SUIT, [Column("reversed_suit", help="suit 0..3 reversed, -1 none")]),
        (X_TURNED, [Column("turned_card", cards)]),
        (X_TURNED2, [Column("turned_second", cards, help="after an Excuse: the card turned "
                            "after the contracts")]),
        (X_FAULT, [Column("fault_seat", help="seat whose irregularity stopped the part, "
                          "-1 none")]),
        (X_FAULT_TRICK, [Column("fault_trick", help="tricks completed when it stopped, -1")]),
    ]


def _layout(n: int) -> tuple[list[Column], np.ndarray]:
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="always false (no redeal in this game)")]
    cx = np.zeros(N_X, dtype=np.int64)
    for x, group in _groups(n):
        cx[x] = len(cols)
        cols += group
    return cols, cx


def deal_columns(k: DetenteKnobs | None = None) -> list[Column]:
    return _layout((k or DetenteKnobs()).players)[0]


N_MATCH_FIXED = 10


def match_columns(k: DetenteKnobs | None = None) -> list[Column]:
    n = (k or DetenteKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="highest total >= target at the end of a manche; -1 capped"),
            Column("n_manches")]
    cols += [Column(f"final_score_s{i}") for i in range(n)]
    cols += [Column(f"hits_s{i}", help="exact contracts over the match") for i in range(n)]
    cols += [Column("lead_changes", help="times the leader after a manche changed"),
             Column("n_tout_ou_rien", help="tout ou rien declarations"),
             Column("n_faults"), Column("capped", BOOL),
             Column("n_tout_ou_rien_made", help="tout ou rien declarations made exactly"),
             Column("tout_ou_rien_points", help="points the named opponents lost to "
                                               "exact tout ou rien declarations")]
    return cols


# --- the pile: dealing and turned cards ---------------------------------------------
@hot
def turn_cards(pile: np.ndarray, head: int, tail: int, part: int, kv: np.ndarray
               ) -> tuple[int, int, int, int]:
    """After a part's deal (``head`` = next talon card): turn the modifier card(s) when
    Modifications is on and this is not the last part. Returns (head, tail, turned,
    second) with slots or -1; the turned cards go under the talon (``pile[tail]``)."""
    turned = -1
    second = -1
    if kv[K_MOD] and part < kv[K_PARTS] - 1:
        turned = pile[head]
        head += 1
        if turned == EXCUSE:
            second = pile[head]
            head += 1
        pile[tail] = turned
        tail += 1
        if second >= 0:
            pile[tail] = second
            tail += 1
    return head, tail, turned, second


@hot
def modifier_of(card: int) -> tuple[int, int]:
    """(modifier, reversed suit or -1) set by a turned slot (not the Excuse)."""
    if card < 0:
        return MOD_NONE, -1
    if card >= 64:
        return MOD_EXACT, -1
    if card % 14 == RC:
        return MOD_DOUBLE, -1
    return MOD_REVERSE, card // 14


# --- scoring (pure) -------------------------------------------------------------------
@hot
def contract_bonus(bid: int, tricks: int, part: int, mod: int, kv: np.ndarray) -> int:
    """The part's table bonus (tricks not included): exact / off by 1 / off by 2; under
    a trump modifier only exact earns, under a Cavalier modifier all double."""
    off = abs(bid - tricks)
    if off > 2 or (mod == MOD_EXACT and off > 0):
        return 0
    b = kv[K_BONUS + 3 * part + off]
    return 2 * b if mod == MOD_DOUBLE else b


@hot
def part_scores(n: int, bids: np.ndarray, tricks: np.ndarray, part: int, mod: int,
                petit_seat: int, petit_last: bool, excuse_last: int, aces: np.ndarray,
                cavs: np.ndarray, tor: np.ndarray, bonus: np.ndarray, out: np.ndarray,
                kv: np.ndarray) -> None:
    """Each seat's mark for a completed part into ``out`` (``bonus`` receives the contract
    bonuses). Contract: bonus + tricks; Petit: its value to its winner (+ the last-trick
    bonus); Excuse in the last trick: -penalty; Cavalerie; As gagnant: each trick won
    with a suit 1 costs every opponent; tout ou rien (``tor[p]`` = named opponent or
    -1): exact -> the opponent also loses the bonus; else the declarer marks nothing
    but the penalties."""
    for p in range(n):
        bonus[p] = contract_bonus(bids[p], tricks[p], part, mod, kv)
    for p in range(n):
        gain = bonus[p] + tricks[p]
        if p == petit_seat:
            gain += kv[K_PETIT] + (kv[K_PETIT_LAST] if petit_last else 0)
        if kv[K_CAV]:
            gain += kv[K_CAV_V] * cavs[p]
        loss = kv[K_EXC_PEN] if p == excuse_last else 0
        if kv[K_ACE]:
            for q in range(n):
                if q != p:
                    loss += kv[K_ACE_V] * aces[q]
        if tor[p] >= 0 and bids[p] != tricks[p]:
            gain = 0
        out[p] = gain - loss
    for p in range(n):
        if tor[p] >= 0 and bids[p] == tricks[p]:
            out[tor[p]] -= bonus[p]


# --- contracts ------------------------------------------------------------------------
@hot
def expected_tricks(h0: np.uint64, h1: np.uint64, rev: int, kv: np.ndarray) -> int:
    """Heuristic hand value in hundredths of a trick: high trumps, other trumps (by
    length), the top and guarded second card of each suit (a reversed suit's top is the
    1), voids and singletons when holding trumps."""
    trumps = h1 & TRUMPS1
    nt = popcount(trumps)
    high = popcount(trumps >> np.uint64(kv[K_HIGH_FROM] - 1))
    ev = high * kv[K_EV_HIGH] + (nt - high) * (kv[K_EV_LONG] if nt >= 5 else kv[K_EV_SHORT])
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        c = popcount(m)
        top = RA if s == rev else RK
        sec = RA + 1 if s == rev else RQ
        if (m >> np.uint64(top)) & ONE != EMPTY:
            ev += kv[K_EV_TOP]
        if c >= 2 and (m >> np.uint64(sec)) & ONE != EMPTY:
            ev += kv[K_EV_SECOND]
        if nt >= 2:
            if c == 0:
                ev += kv[K_EV_VOID]
            elif c == 1:
                ev += kv[K_EV_SINGLE]
    return ev


@hot
def forbidden_bid(k: int, n: int, so_far: int, kv: np.ndarray) -> int:
    """The bid the ``k``-th speaker may not make (the hook: last speaker, contracts may
    not sum to the hand size), or -1."""
    if kv[K_HOOK] and k == n - 1:
        f = kv[K_H] - so_far
        if 0 <= f <= kv[K_H]:
            return f
    return -1


@hot
def choose_bid(ev: int, forbid: int, heuristic: bool, kv: np.ndarray, state: np.uint64
               ) -> tuple[np.uint64, int]:
    """Heuristic: round(ev x scale); a forbidden bid moves to the nearer neighbour of the
    unrounded value (up at the bottom, down at the top). Random: uniform legal bid."""
    h = kv[K_H]
    if not heuristic:
        n_opts = h + 1 - (1 if forbid >= 0 else 0)
        state, x = rng.below(state, n_opts)
        if forbid >= 0 and x >= forbid:
            x += 1
        return state, x
    scaled = ev * kv[K_SCALE]  # tricks x 10000
    bid = min(h, max(0, (scaled + 5000) // 10000))
    if bid == forbid:
        up = scaled >= bid * 10000
        if (up and bid < h) or bid == 0:
            bid += 1
        else:
            bid -= 1
    return state, bid


# --- play heuristics -------------------------------------------------------------------
@hot
def lead_card(h0: np.uint64, h1: np.uint64, need: int, u0: np.uint64, u1: np.uint64,
              tricks_left: int, v: int, tb: tuple) -> int:
    """Exact-target lead. Short of the target: cash a master card (cheapest first), else
    the cheapest card. At the target: lead the lowest card some unseen card beats; the
    Excuse (never wins) if everything else is master. The Excuse goes by the
    second-to-last trick at the latest."""
    suit_of, suit_mask, excuse_mask, points, strength, above, cheap, rich, win = tb
    if h1 & EXCUSE1 != EMPTY and tricks_left <= 2:
        return EXCUSE
    n1 = h1 & ~EXCUSE1
    if need > 0:
        m0 = EMPTY
        m1 = EMPTY
        x0 = h0
        while x0 != EMPTY:
            c = lowest(x0)
            x0 &= x0 - ONE
            if wis_master(c, u0, u1, above[v]):
                m0 |= ONE << np.uint64(c)
        x1 = n1
        while x1 != EMPTY:
            c = lowest(x1)
            x1 &= x1 - ONE
            if wis_master(64 + c, u0, u1, above[v]):
                m1 |= ONE << np.uint64(c)
        c = wbest_in(m0, m1, win[v])
        if c >= 0:
            return c
        c = wbest_in(h0, n1 & ~PETIT1, cheap[v])
        return c if c >= 0 else wbest_in(h0, h1, cheap[v])
    # at or above the target: lowest beatable card
    best = -1
    best_s = 1 << 30
    x0 = h0
    while x0 != EMPTY:
        c = lowest(x0)
        x0 &= x0 - ONE
        if not wis_master(c, u0, u1, above[v]) and strength[v, c] < best_s:
            best_s = strength[v, c]
            best = c
    x1 = n1
    while x1 != EMPTY:
        c = 64 + lowest(x1)
        x1 &= x1 - ONE
        if not wis_master(c, u0, u1, above[v]) and strength[v, c] + 100 < best_s:
            best_s = strength[v, c] + 100
            best = c
    if best >= 0:
        return best
    if h1 & EXCUSE1 != EMPTY:
        return EXCUSE
    return wbest_in(h0, h1, cheap[v])


@hot
def strongest(x0: np.uint64, x1: np.uint64, strength: np.ndarray, petit_low: bool) -> int:
    """Highest card of a two-word card set, trumps above suit cards (with ``petit_low``
    the Petit ranks among the low cards, to keep it out of harm's way)."""
    best = -1
    best_s = -1
    while x0 | x1 != EMPTY:
        if x0 != EMPTY:
            c = lowest(x0)
            x0 &= x0 - ONE
        else:
            c = 64 + lowest(x1)
            x1 &= x1 - ONE
        key = strength[c] + (100 if c >= 64 and not (petit_low and c == PETIT) else 0)
        if key > best_s:
            best_s = key
            best = c
    return best


@hot
def follow_card(l0: np.uint64, l1: np.uint64, win: int, need: int, last: bool,
                u0: np.uint64, u1: np.uint64, tricks_left: int, v: int, tb: tuple) -> int:
    """Exact-target follow. Short: win with the cheapest master winner (or the cheapest
    winner when last), else the strongest winner; unable to win: the Excuse, else the
    cheapest card. At the target: the strongest card that loses; forced to win: the
    Excuse, else (last) the strongest winner to unload it, or the weakest hoping to be
    overtaken."""
    suit_of, suit_mask, excuse_mask, points, strength, above, cheap, rich, win_rank = tb
    has_exc = l1 & EXCUSE1 != EMPTY
    if has_exc and tricks_left <= 2:
        return EXCUSE
    n1 = l1 & ~EXCUSE1
    if l0 | n1 == EMPTY:
        return EXCUSE
    w0, w1 = wwinners(l0, n1, win, TRUMP_SUIT, suit_of, suit_mask, excuse_mask, above[v])
    if need > 0:
        if w0 | w1 != EMPTY:
            if last:
                return wbest_in(w0, w1, win_rank[v])
            best = -1
            best_r = 1 << 30
            x0 = w0
            x1 = w1
            while x0 | x1 != EMPTY:
                if x0 != EMPTY:
                    c = lowest(x0)
                    x0 &= x0 - ONE
                else:
                    c = 64 + lowest(x1)
                    x1 &= x1 - ONE
                if wis_master(c, u0, u1, above[v]) and win_rank[v, c] < best_r:
                    best_r = win_rank[v, c]
                    best = c
            return best if best >= 0 else strongest(w0, w1, strength[v], False)
        if has_exc:
            return EXCUSE
        c = wbest_in(l0, n1 & ~PETIT1, cheap[v])
        return c if c >= 0 else wbest_in(l0, n1, cheap[v])
    lo0 = l0 & ~w0
    lo1 = n1 & ~w1
    if lo0 | lo1 != EMPTY:
        return strongest(lo0, lo1, strength[v], True)
    if has_exc:
        return EXCUSE
    if last:
        return strongest(w0, w1, strength[v], False)
    return wbest_in(w0, w1, win_rank[v])


# --- one part -------------------------------------------------------------------------
@hot
def play_part(pile: np.ndarray, head: int, tail: int, part: int, dealer: int,
              pol: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
              state: np.uint64, fstate: np.uint64, scores: np.ndarray, gone: np.ndarray,
              row: np.ndarray, cx: np.ndarray, dealt: np.ndarray, hands: np.ndarray,
              work: np.ndarray) -> tuple[np.uint64, int, int]:
    """Deal, contracts, play and marks of one part from ``pile[head:]``. ``scores``: the
    totals before this part (tout ou rien eligibility); ``gone`` (uint64 [2]): cards of
    earlier parts (public), updated with this part's cards; ``row``: this part's
    columns from X_SCORE on; ``dealt`` [n, h] the hands as ids; ``hands`` uint64 [3, 2]
    and ``work`` int64 [64] are work arrays. Returns (policy state, head, tail)."""
    suit_of, suit_mask, excuse_mask, points, strength, above, cheap, rich, win_rank = tb
    n = kv[K_N]
    h = kv[K_H]
    bids = work[0:3]
    tricks = work[3:6]
    tor = work[6:9]
    aces = work[9:12]
    cavs = work[12:15]
    bonus = work[15:18]
    out = work[18:21]
    for p in range(3):
        hands[p, 0] = EMPTY
        hands[p, 1] = EMPTY
        bids[p] = 0
        tricks[p] = 0
        tor[p] = -1
        aces[p] = 0
        cavs[p] = 0
        bonus[p] = 0
        out[p] = 0
    # Deal one at a time from the dealer's left.
    start = head
    for i in range(n * h):
        p = (dealer + 1 + i) % n
        c = pile[head + i]
        dealt[p, i // n] = ID_OF_SLOT[c]
        if c < 64:
            hands[p, 0] |= ONE << np.uint64(c)
        else:
            hands[p, 1] |= ONE << np.uint64(c - 64)
    head += n * h
    head, tail, turned, second = turn_cards(pile, head, tail, part, kv)
    row[cx[X_TURNED]] = ID_OF_SLOT[turned] if turned >= 0 else -1
    row[cx[X_TURNED2]] = ID_OF_SLOT[second] if second >= 0 else -1
    g0 = gone[0]
    g1 = gone[1]
    if turned >= 0:  # turned cards are public
        if turned < 64:
            g0 |= ONE << np.uint64(turned)
        else:
            g1 |= ONE << np.uint64(turned - 64)
    mod, rev = modifier_of(turned if turned != EXCUSE else -1)
    # Contracts, from the dealer's left (a hidden modifier counts as none).
    so_far = 0
    for k in range(n):
        p = (dealer + 1 + k) % n
        ev = expected_tricks(hands[p, 0], hands[p, 1], rev, kv)
        forbid = forbidden_bid(k, n, so_far, kv)
        state, b = choose_bid(ev, forbid, pol[p] == HEURISTIC, kv, state)
        bids[p] = b
        so_far += b
        if kv[K_TOR]:  # tout ou rien against an opponent at the threshold or more
            target = -1
            n_elig = 0
            for q in range(n):
                if q != p and scores[q] >= kv[K_TOR_TH]:
                    n_elig += 1
                    if target < 0 or scores[q] > scores[target]:
                        target = q
            if n_elig > 0:
                if pol[p] == HEURISTIC:
                    if b == 0 and ev <= kv[K_TOR_EV]:
                        tor[p] = target
                else:
                    state, x = rng.below(state, n_elig + 1)
                    if x > 0:
                        for q in range(n):
                            if q != p and scores[q] >= kv[K_TOR_TH]:
                                x -= 1
                                if x == 0:
                                    tor[p] = q
                                    break
    if second >= 0:
        mod, rev = modifier_of(second)
        if second < 64:
            g0 |= ONE << np.uint64(second)
        else:
            g1 |= ONE << np.uint64(second - 64)
    row[cx[X_BIDSUM]] = so_far
    if kv[K_MOD] and part < kv[K_PARTS] - 1:
        row[cx[X_MOD]] = mod
    else:
        row[cx[X_MOD]] = -1
    row[cx[X_MOD_SUIT]] = rev
    v = rev + 1  # tables row (0: normal order)
    # Faults (humans only): the first seat drawn stops the part after a random trick.
    fault_seat = -1
    fault_trick = -1
    if kv[K_FAULT] > 0:
        for k in range(n):
            p = (dealer + 1 + k) % n
            fstate, x = rng.below(fstate, 1000)
            if x < kv[K_FAULT] and fault_seat < 0:
                fault_seat = p
        if fault_seat >= 0:
            fstate, fault_trick = rng.below(fstate, h)
    # Play.
    leader = (dealer + 1) % n
    petit_seat = -1
    petit_last = False
    excuse_last = -1
    for t in range(h):
        if t == fault_trick:
            break
        led = -1
        w = -1
        ws = -1
        petit_in = False
        cav_in = 0
        for k in range(n):
            p = (leader + k) % n
            h0 = hands[p, 0]
            h1 = hands[p, 1]
            l0, l1 = wlegal_cards(h0, h1, led, w, False, TRUMP_SUIT, suit_of, suit_mask,
                                  excuse_mask, above[v], rules)
            if pol[p] == HEURISTIC:
                u0 = ALL0 & ~g0 & ~h0
                u1 = ALL1 & ~g1 & ~h1
                need = bids[p] - tricks[p]
                if k == 0:
                    c = lead_card(h0, h1, need, u0, u1, h - t, v, tb)
                elif led < 0:  # only the Excuse on the table: a free lead
                    c = lead_card(h0, h1, need, u0, u1, h - t, v, tb)
                else:
                    c = follow_card(l0, l1, w, need, k == n - 1, u0, u1, h - t, v, tb)
            else:
                state, c = wrandom_card(state, l0, l1)
            if c < 64:
                bit0 = ONE << np.uint64(c)
                hands[p, 0] = h0 & ~bit0
                g0 |= bit0
                if c % 14 == RC:
                    cav_in += 1
            else:
                bit1 = ONE << np.uint64(c - 64)
                hands[p, 1] = h1 & ~bit1
                g1 |= bit1
                if c == PETIT:
                    petit_in = True
                if c == EXCUSE and t == h - 1:
                    excuse_last = p
            led, w, ws = wupdate_trick(c, p, led, w, ws, TRUMP_SUIT, suit_of, above[v])
        tricks[ws] += 1
        cavs[ws] += cav_in
        if w < 56 and w % 14 == RA:
            aces[ws] += 1
        if petit_in:
            petit_seat = ws
            petit_last = t == h - 1
        leader = ws
    # Cards dealt in this part are public for the next ones (all of them were played
    # unless a fault stopped the part; they are out of play either way).
    for i in range(n * h):
        c = pile[start + i]
        if c < 64:
            gone[0] |= ONE << np.uint64(c)
        else:
            gone[1] |= ONE << np.uint64(c - 64)
    if fault_seat >= 0:
        for p in range(n):
            out[p] = 0
        out[fault_seat] = -kv[K_FPEN + part]
    else:
        part_scores(n, bids, tricks, part, mod, petit_seat, petit_last, excuse_last, aces,
                    cavs, tor, bonus, out, kv)
    for p in range(n):
        row[cx[X_SCORE] + p] = out[p]
        row[cx[X_BID] + p] = bids[p]
        row[cx[X_TRICKS] + p] = tricks[p]
        row[cx[X_HIT] + p] = fault_seat < 0 and bids[p] == tricks[p]
        row[cx[X_BONUS] + p] = bonus[p]
        row[cx[X_TOR] + p] = tor[p]
        row[cx[X_ACES] + p] = aces[p]
        row[cx[X_CAVS] + p] = cavs[p]
    row[cx[X_PART]] = part + 1
    row[cx[X_PETIT]] = petit_seat
    row[cx[X_PETIT_LAST]] = petit_last
    row[cx[X_EXC_LAST]] = excuse_last
    row[cx[X_FAULT]] = fault_seat
    row[cx[X_FAULT_TRICK]] = fault_trick
    return state, head, tail


# --- batch kernels ---------------------------------------------------------------------
@hot
def _fresh_pile(pile: np.ndarray) -> None:
    for i in range(N_CARDS):
        pile[i] = SLOT_OF_ID[i]


@hot
def _skip_part(pile: np.ndarray, head: int, tail: int, part: int, kv: np.ndarray,
               gone: np.ndarray) -> tuple[int, int]:
    """Advance the pile over a part without playing it (deal mode): its cards become
    public."""
    nh = kv[K_N] * kv[K_H]
    for i in range(nh):
        c = pile[head + i]
        if c < 64:
            gone[0] |= ONE << np.uint64(c)
        else:
            gone[1] |= ONE << np.uint64(c - 64)
    head, tail, _, _ = turn_cards(pile, head + nh, tail, part, kv)
    return head, tail


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, cx: np.ndarray, ncols: int, record: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    n = kv[K_N]
    h = kv[K_H]
    parts = kv[K_PARTS]
    out = np.zeros((ncols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, h), -1, dtype=np.int64)
    pile = np.zeros(N_CARDS + 8, dtype=np.int64)
    hands = np.zeros((3, 2), dtype=np.uint64)
    gone = np.zeros(2, dtype=np.uint64)
    scores = np.zeros(3, dtype=np.int64)
    work = np.zeros(64, dtype=np.int64)
    for i in range(count):
        d = start + i
        manche = d // parts
        part = d % parts
        _fresh_pile(pile)
        rng.shuffle(rng.stream(seed, manche, 0, rng.SHUFFLE), pile, N_CARDS)
        head = 0
        tail = N_CARDS
        gone[0] = EMPTY
        gone[1] = EMPTY
        for q in range(part):
            head, tail = _skip_part(pile, head, tail, q, kv, gone)
        dealer = d % n if kv[K_ROT_PART] else manche % n
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        out[i, cx[X_MANCHE]] = manche
        j = i if record else 0
        play_part(pile, head, tail, part, dealer, pol, kv, rules, tb,
                  rng.stream(seed, manche, 1 + part, rng.POLICY),
                  rng.stream(seed, manche, 1 + part, FAULT), scores, gone, out[i], cx,
                  dealt[j], hands, work)
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple, cx: np.ndarray, ncols: int) -> np.ndarray:
    n = kv[K_N]
    h = kv[K_H]
    parts = kv[K_PARTS]
    out = np.zeros((count, N_MATCH_FIXED + 2 * n), dtype=np.int64)
    row = np.zeros((ncols, 1), dtype=np.int64).T[0]
    dealt = np.empty((n, h), dtype=np.int64)
    pile = np.zeros(N_CARDS + 8, dtype=np.int64)
    hands = np.zeros((3, 2), dtype=np.uint64)
    gone = np.zeros(2, dtype=np.uint64)
    scores = np.zeros(3, dtype=np.int64)
    hits = np.zeros(3, dtype=np.int64)
    work = np.zeros(64, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        scores[:] = 0
        hits[:] = 0
        winner = -1
        leader = -1
        changes = 0
        n_tor = 0
        n_tor_made = 0
        tor_points = 0
        n_faults = 0
        j = 0
        while j < kv[K_MAX]:
            _fresh_pile(pile)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), pile, N_CARDS)
            head = 0
            tail = N_CARDS
            gone[0] = EMPTY
            gone[1] = EMPTY
            for part in range(parts):
                dealer = (first + j * parts + part) % n if kv[K_ROT_PART] else (first + j) % n
                row[:] = 0
                sub = (j + 1) * 4 + part
                _, head, tail = play_part(pile, head, tail, part, dealer, pol, kv, rules, tb,
                                          rng.stream(seed, m, sub, rng.POLICY),
                                          rng.stream(seed, m, sub, FAULT), scores, gone,
                                          row, cx, dealt, hands, work)
                for p in range(n):
                    scores[p] += row[cx[X_SCORE] + p]
                    hits[p] += row[cx[X_HIT] + p]
                    if row[cx[X_TOR] + p] >= 0:
                        n_tor += 1
                        if row[cx[X_HIT] + p]:
                            n_tor_made += 1
                            tor_points += row[cx[X_BONUS] + p]
                n_faults += row[cx[X_FAULT]] >= 0
            j += 1
            best = 0
            for p in range(1, n):
                if scores[p] > scores[best]:
                    best = p
            unique = True
            for p in range(n):
                if p != best and scores[p] == scores[best]:
                    unique = False
            if unique and best != leader:
                if leader >= 0:
                    changes += 1
                leader = best
            if scores[best] >= kv[K_TARGET] and unique:
                winner = best
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = j
        for p in range(n):
            out[i, 4 + p] = scores[p]
            out[i, 4 + n + p] = hits[p]
        out[i, 4 + 2 * n] = changes
        out[i, 5 + 2 * n] = n_tor
        out[i, 6 + 2 * n] = n_faults
        out[i, 7 + 2 * n] = winner < 0
        out[i, 8 + 2 * n] = n_tor_made
        out[i, 9 + 2 * n] = tor_points
    return out


# --- entry points for the runner -----------------------------------------------------
_TABLES: list = []


def _args(knobs: DetenteKnobs) -> tuple:
    if not _TABLES:
        _TABLES.append(tables())
    cols, cx = _layout(knobs.players)
    return _vector(knobs), _rules(knobs), _TABLES[0], cx, len(cols)


def run_deals(knobs: DetenteKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb, cx, ncols = _args(knobs)
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies), kv,
                               rules, tb, cx, ncols, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt.copy())


def run_matches(knobs: DetenteKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb, cx, ncols = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       kv, rules, tb, cx, ncols))


# --- balance questions -----------------------------------------------------------------
SECTION = "Tarot double détente questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points stay out of the headline table.
COMPARE = "`simlab compare tarot_double_detente"


def _n_seats(cols: set[str], knobs) -> int:
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    return n or (knobs.players if isinstance(knobs, DetenteKnobs) else 3)


def _top(values: list[pl.Expr], i: int) -> pl.Expr:
    """``values[i]`` is strictly above every other value."""
    return pl.all_horizontal([values[i] > v for j, v in enumerate(values) if j != i])


def _at(values: list[pl.Expr], seat: pl.Expr) -> pl.Expr:
    out = pl.lit(None, dtype=pl.Float64)
    for p, v in enumerate(values):
        out = pl.when(seat == p).then(v.cast(pl.Float64)).otherwise(out)
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: DetenteKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's seven balance questions as metrics (section "Tarot double détente
    questions", keys ``tdd.qN...``), at 3 players (half-manches) and 2 (thirds).

    Positions count from the dealer: position 1 (the dealer's left) speaks first and
    leads, position 0 (the dealer) speaks last. Deal level (one row per part): 1 the
    exact-contract rate by part and by position; 2 the mark per part and per manche by
    position (manche totals add the manche's rows: ``.over("manche")``, on complete
    manches, positions from the dealer of the 1st part); 4 As-gagnant frequency per part;
    5 (when the frame has Modifications) the modifiers and the exact rate under each,
    hidden (Excuse turned) or not; 6 (2 players) first against second speaker; 7 does the
    1st part's leader win the manche. Match level: 1 exact rate pooled; 2 win rate by
    first-dealer position; 3 length and photo finishes; 4 lead changes, spread of the
    totals and (when declared) tout ou rien's success and swing. Only metrics whose
    columns the frame has are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    n = _n_seats(cols, knobs)
    k = knobs if isinstance(knobs, DetenteKnobs) else DetenteKnobs(players=n)
    parts = 5 - n
    part_col = "half" if n == 3 else "third"
    part_name = "half" if n == 3 else "third"
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"tdd.{key}", title, SECTION, expr, where, kind, **kw), need))

    def pos_name(j: int) -> str:
        if j == 1 % n:
            return "the dealer's left (first speaker and leader)"
        if j == 0:
            return "the dealer (last speaker)"
        return "the dealer's right (second speaker)"

    seats = range(n)
    everything = pl.lit(True)
    if level == "deal":
        part = pl.col(part_col)
        dealer = pl.col("dealer")
        hits = {f"hit_s{i}" for i in seats}
        scores = {f"score_s{i}" for i in seats}
        hit_share = sum(pl.col(f"hit_s{i}").cast(pl.Float64) for i in seats) / n
        hit_at = [_at([pl.col(f"hit_s{i}") for i in seats], (dealer + j) % n) for j in seats]
        # 1. exact-contract rate by part and by position
        add(hits, "q1.hit", "exact contracts (share of contracts)", hit_share, kind="mean",
            unit="share", headline=True, note="pooled over the seats")
        for q in range(1, parts + 1):
            add(hits | {part_col}, f"q1.hit.part{q}", f"exact contracts, {part_name} {q}",
                hit_share, part == q, kind="mean", unit="share", headline=True)
        for j in seats:
            add(hits | {"dealer"}, f"q1.hit.pos{j}", f"exact contract, {pos_name(j)}",
                hit_at[j].cast(pl.Boolean), headline=j in (0, 1 % n))
            for q in range(1, parts + 1):
                add(hits | {"dealer", part_col}, f"q1.hit.part{q}.pos{j}", f"exact "
                    f"contract, {part_name} {q}, {pos_name(j)}", hit_at[j].cast(pl.Boolean),
                    part == q)
        # 2. seat effect over a manche
        first_row = (part == 1) & (pl.len().over("manche") == parts)
        tot = [pl.col(f"score_s{i}").cast(pl.Float64).sum().over("manche") for i in seats]
        manche_at = [_at(tot, (dealer + j) % n) for j in seats]
        need2 = scores | {"dealer", "manche", part_col}
        note2 = ("manche totals on complete manches, positions from the dealer of its 1st "
                 "part")
        for j in seats:
            add(scores | {"dealer"}, f"q2.score.pos{j}", f"mark per {part_name}, "
                f"{pos_name(j)}", _at([pl.col(f"score_s{i}") for i in seats],
                                      (dealer + j) % n), kind="mean", unit="points")
            add(need2, f"q2.manche.pos{j}", f"mark per manche, {pos_name(j)}", manche_at[j],
                first_row, kind="mean", unit="points", note=note2)
            add(need2, f"q2.manche.top.pos{j}", f"highest manche total, {pos_name(j)}",
                _top(manche_at, j), first_row, headline=j == 1 % n,
                note=f"1/{n} each if position did not matter, less the ties")
        add(need2, "q2.manche.left_minus_dealer", "manche mark of the dealer's left minus "
            "the dealer's", manche_at[1 % n] - manche_at[0], first_row, kind="mean",
            unit="points", note=note2)
        # 4. As gagnant per part (tricks won with a suit 1, counted with or without the rule)
        aces = {f"as_gagnant_s{i}" for i in seats}
        n_aces = sum(pl.col(f"as_gagnant_s{i}") for i in seats)
        note4 = (f"with opt_as_gagnant each costs the opponents {k.as_gagnant_value}; "
                 "variance and lead changes: " + COMPARE + ' -n 20000 --level match --b '
                 '"opt_as_gagnant=true"`')
        add(aces, "q4.as_gagnant", f"a trick is won with a suit 1 (per {part_name})",
            n_aces > 0, headline=True, note=note4)
        for q in range(1, parts + 1):
            add(aces | {part_col}, f"q4.as_gagnant.part{q}", f"a trick is won with a suit 1, "
                f"{part_name} {q}", n_aces > 0, part == q)
        add(aces, "q4.as_gagnant.count", f"tricks won with a suit 1 per {part_name}", n_aces,
            kind="mean", unit="tricks")
        # 5. Modifications (only when the frame has them)
        if {"modifier", "turned_card"} <= cols:
            mods = (lf.select(pl.col("modifier").cast(pl.String).alias("m")).drop_nulls()
                    .group_by("m").len().collect())
            present = dict(mods.iter_rows())
            if present:
                mod = pl.col("modifier").cast(pl.String)
                modded = mod.is_not_null()
                hidden = pl.col("turned_card").cast(pl.String) == "Excuse"
                note5 = ("the trick winners under the normal order are not recorded; "
                         + COMPARE + ' -n 200000 --a "opt_modifications=true" --b '
                         '"opt_modifications=true"` cannot pair them either (the turned '
                         "card changes the pile), so the exact rate stands for the effect")
                for m in MODIFIERS[1:]:
                    if present.get(m, 0) < 1:
                        continue
                    add(hits | {"modifier"}, f"q5.modifier.{m}", f"modifier {m} (share "
                        "of modified parts)", mod == m, modded)
                    if present[m] >= 2:
                        add(hits | {"modifier"}, f"q5.hit.{m}", f"exact contracts under "
                            f"modifier {m}", hit_share, modded & (mod == m), kind="mean",
                            unit="share", headline=m == "reversed",
                            note=note5 if m == "reversed" else "")
                add(hits | {"modifier", "turned_card"}, "q5.hidden", "the Excuse is turned: "
                    "the modifier is hidden during the contracts (share of modified parts)",
                    hidden, modded)
                add(hits | {"modifier", "turned_card"}, "q5.hit.hidden", "exact contracts "
                    "when the modifier was hidden during the contracts", hit_share,
                    modded & hidden, kind="mean", unit="share", headline=True)
                add(hits | {"modifier", "turned_card"}, "q5.hit.visible", "exact contracts "
                    "when the modifier was known during the contracts", hit_share,
                    modded & ~hidden, kind="mean", unit="share")
        # 6. 2 players: the second speaker's hook handicap
        if n == 2:
            note6 = ("the hook binds the second speaker (the dealer); without it: "
                     + COMPARE + ' -n 200000 --a "players=2" --b "players=2 hook=never"`')
            mark = [_at([pl.col(f"score_s{i}") for i in seats], (dealer + j) % n)
                    for j in seats]
            add(scores | {"dealer"}, "q6.score.first", "mark per third, first speaker",
                mark[1], kind="mean", unit="points")
            add(scores | {"dealer"}, "q6.score.second", "mark per third, second speaker "
                "(hooked)", mark[0], kind="mean", unit="points", note=note6)
            add(need2, "q6.manche.first_wins", "the first speaker outscores the second over "
                "the manche", manche_at[1] > manche_at[0], first_row, headline=True,
                note=note6)
            add(need2, "q6.manche.diff", "manche mark of the first speaker minus the "
                "second's", manche_at[1] - manche_at[0], first_row, kind="mean",
                unit="points", note=note2)
            add(hits | {"dealer"}, "q6.hit.second", "exact contract, second speaker "
                "(hooked)", hit_at[0].cast(pl.Boolean), headline=True, note=note6)
            add(hits | {"dealer"}, "q6.hit.first", "exact contract, first speaker",
                hit_at[1].cast(pl.Boolean))
        # 7. does the heavier last table make the 1st part irrelevant?
        first = [pl.col(f"score_s{i}").cast(pl.Float64) for i in seats]
        last = [pl.col(f"score_s{i}").cast(pl.Float64).filter(part == parts).sum()
                .over("manche") for i in seats]
        lead_first = pl.any_horizontal([_top(first, i) for i in seats])
        lead_last = pl.any_horizontal([_top(last, i) for i in seats])
        add(need2, "q7.first_leader_wins", f"the 1st {part_name}'s leader wins the manche "
            "(highest total)", pl.any_horizontal([_top(first, i) & _top(tot, i)
                                                  for i in seats]),
            first_row & lead_first, headline=True,
            note=f"1/{n} if the 1st {part_name} did not matter; compare "
                 "tdd.q7.last_leader_wins")
        add(need2, "q7.last_leader_wins", f"the last {part_name}'s leader wins the manche",
            pl.any_horizontal([_top(last, i) & _top(tot, i) for i in seats]),
            first_row & lead_last)
        all_first = sum(first)
        all_tot = sum(tot)
        add(need2, "q7.share.first", f"share of the manche's points marked in the 1st "
            f"{part_name}", ratio_of_sums(all_first, all_tot, first_row), first_row,
            kind="mean", unit="share", headline=True, note="delta-method interval")
    else:
        nm = pl.col("n_manches")
        finals = [pl.col(f"final_score_s{i}").cast(pl.Float64) for i in seats]
        # 1. exact contracts pooled over matches
        add({f"hits_s{i}" for i in seats} | {"n_manches"}, "q1.match.hit", "exact contracts "
            "(pooled over matches)", ratio_of_sums(sum(pl.col(f"hits_s{i}") for i in seats),
                                                     nm * (parts * n), everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        # 2. match win rate by first-dealer position
        for j in seats:
            add({"winner", "first_dealer"}, f"q2.match.win.pos{j}", f"match win rate, "
                f"{pos_name(j)} of the first manche",
                pl.col("winner") == (pl.col("first_dealer") + j) % n, headline=j == 1 % n)
        # 3. match length
        note3 = ("with the supplementary rules: " + COMPARE + ' -n 20000 --level match --b '
                 '"opt_cavalerie=true opt_modifications=true opt_as_gagnant=true '
                 'opt_tout_ou_rien=true"`')
        add({"n_manches"}, "q3.length", f"manches per match (to {k.target})", nm, kind="mean",
            unit="manches", note=note3)
        past = sum((f >= k.target).cast(pl.Int32) for f in finals)
        add({f"final_score_s{i}" for i in seats}, "q3.photo_finish", f"more than one player "
            f"reaches {k.target} in the last manche", past > 1, headline=True, note=note3)
        # 4. variance and lead changes
        add({"lead_changes"}, "q4.lead_changes", "lead changes per match",
            pl.col("lead_changes"), kind="mean", unit="changes",
            note="the optional rules' effect: " + note3)
        add({"lead_changes"}, "q4.lead_changed", "the leader changes at least once",
            pl.col("lead_changes") > 0, headline=True)
        centre = sum(finals) / n
        sq = sum((f - centre) ** 2 for f in finals) / n
        add({f"final_score_s{i}" for i in seats}, "q4.final.spread", "spread of the final "
            "totals around the match mean (root mean square)", root_mean(sq, everything),
            kind="mean", unit="points", note="delta-method interval")
        need_tor = {"n_tout_ou_rien", "n_tout_ou_rien_made", "tout_ou_rien_points"}
        if need_tor <= cols and (lf.select(pl.col("n_tout_ou_rien").sum()).collect().item()
                                 or 0) > 0:
            decl = pl.col("n_tout_ou_rien")
            add(need_tor, "q4.tor.per_match", "tout ou rien declarations per match", decl,
                kind="mean", unit="declarations")
            add(need_tor, "q4.tor.success", "tout ou rien made exactly (share of "
                "declarations, pooled)", ratio_of_sums(pl.col("n_tout_ou_rien_made"), decl,
                                                        everything),
                kind="mean", unit="share", headline=True, note="delta-method interval")
            add(need_tor, "q4.tor.swing", "points a named opponent loses per tout ou rien "
                "declared (pooled)", ratio_of_sums(pl.col("tout_ou_rien_points"), decl,
                                                    everything),
                kind="mean", unit="points", note="a failed declaration costs the declarer "
                "his part's mark instead; delta-method interval")
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="tarot_double_detente",
    title="Tarot double détente",
    description="exact-contract trick game on the 78-card Tarot pack: 3 players, two "
                "half-manches of 13 cards (2 players: Triple-Détente, three thirds), "
                "rising score tables, Petit and Excuse, match to 200; optional "
                "Cavalerie, Modifications, As gagnant, Tout ou rien",
    deck=DECK,
    knobs=DetenteKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="2-3",
    extra={"metrics": balance_metrics},
)
