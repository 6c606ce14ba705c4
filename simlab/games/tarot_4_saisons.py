"""Tarot 4 saisons, 3 players, 50 cards (seed 000 "Tarot 4 saisons"; catalogue
``tarot_4_saisons.md``; issue "The Tarot family", part 2).

Read top to bottom like the rulebook: deck and tables, knobs, result columns, deal
(no-trump redeal, misère), auction (the seven-rung ladder, simple or clear), chien and
its option, contracts, contres and suites, play (the Excuse's capture rule and its
last-two-tricks penalty), scoring, batch kernels, match (the moving 50-point bar).

Seats 0..2; the player after the dealer is ``dealer + 1``: he receives the first packet,
speaks first and leads the first trick (dealer = deal index mod 3). The 50 cards fit one
``uint64`` word, so play uses the one-word API of ``simlab.tricks`` with the trump suit
code ``TRUMP_SUIT``. Card ids are the deck's: suit s, rank r (0..6 = As, 2, 4, Valet,
Cavalier, Dame, Roi) is ``7 s + r``; trump t is ``27 + t``; the Excuse is 49.

Scoring is not zero-sum (the seed's score sheet): every ``score_s{i}`` is what the seat
marks on this deal: game result, bonuses and contracts, suites, misère, no-trump points,
the all-pass -1 and the Excuse penalty.

Catalogue resolutions are knobs with the catalogue's default: #1 ``ladder_order``, #2
``misere_mandatory``, #3 ``excuse_is_trump_for_redeal``, #4 ``resistance_combined``, #6
``capot_replaces_win`` (a failed announced capot pays ``capot_announced_mult`` x stake to
each opponent, on top of the normal game result), #7 ``quasi_taker_only``, #8 the
opponents refuse the reduction before the discards (``opponent_can_refuse``). Fixed by
construction: #5 bonuses go to the player who achieves them; #9 the "contre" bid adds the
chien to both opponents' counts (the clear threshold stays on the taker's own points);
#10 the Excuse counts for "3 bouts" where it ends; #11 the Excuse may be played at any
time; #12 defenders may contract everything but capot.

Seed over catalogue: "Petit au bout" / "2 avant-dernier" need the Petit (the trump 2)
to *win* the last (penultimate) trick: the seed's nota bene says capturing it there earns
nothing; the catalogue's "win the last trick with the Petit" is read that way. Otherwise
the catalogue matches the seed (no misreading found). Also from the seed: a pass is not
final (knob ``pass_is_final``); the auction ends once all have spoken and two in a row
passed.

Not simulated (deviations):

* faults and their penalties (section 11): the policies never revoke, never forget a
  misère and never turn too many chien cards;
* "anyone may ask to see the last trick": the heuristic does not use that information;
* ``removed_ranks`` / ``hand_size`` / ``chien_size`` are not knobs: the 50-card deck
  (``decks.get_deck("50_tarot_4_saisons")``) fixes 3 x 15 + 5;
* the bonus conditions (3 bouts, 4 Rois, 4 As) count the cards won in tricks only, not
  the chien (the chien is scored as card points, per the bid);
* the all-pass carry bonus exists at match level only (deals are independent rows); an
  annulled (no-trump) deal keeps a pending carry;
* a contre on the game adds to the stake before any multiplier (simple x2, capot x4/x8);
* heuristic: contracts are chosen from the hand alone and play does not steer toward
  them (most contracted Petit au bout fail); the taker never announces a capot while
  holding the Excuse (it never wins a trick, so a capot is then impossible).
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
from simlab.games.tarot import highest
from simlab.jit import batch, hot
from simlab.knobs import Knobs, SimlabError, knob
from simlab.metrics import MetricDef, ratio_of_sums
from simlab.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    best_in,
    bit,
    cards_of,
    count,
    is_master,
    legal_cards,
    lowest,
    make_rules,
    random_card,
    trick_tables,
    update_trick,
    winners,
)

# --- deck and tables ----------------------------------------------------------------
DECK = get_deck("50_tarot_4_saisons")
N_CARDS = 50
NP = 3
HAND = 15
CHIEN = 5
RA, R2, R4, RV, RC, RQ, RK = range(7)
PETIT, T2, T21, EXCUSE = 28, 29, 48, 49


def _mask(ids) -> np.uint64:
    m = 0
    for c in ids:
        m |= 1 << c
    return np.uint64(m)


ALL = _mask(range(N_CARDS))
TRUMPS = _mask(range(28, 49))
SAISONS = _mask(range(27 + 16, 27 + 20))
BOUTS = _mask((PETIT, T21, EXCUSE))
KINGS = _mask(7 * s + RK for s in range(4))
QUEENS = _mask(7 * s + RQ for s in range(4))
ACES = _mask(7 * s + RA for s in range(4))
FACES = _mask(7 * s + r for s in range(4) for r in (RV, RC, RQ, RK))
WORTHLESS = _mask(7 * s + r for s in range(4) for r in (R2, R4))
SUIT_BITS = np.uint64(0x7F)
SUITE_BITS = np.uint64(0x78)  # Valet, Cavalier, Dame, Roi within a suit's 7 bits
PETIT_B = _mask((PETIT,))
T2_B = _mask((T2,))
EXCUSE_B = _mask((EXCUSE,))

RUNGS = ("tout", "2+2", "3_cartes", "1+1", "sans_voir", "sans_points", "contre")
TOUT, DEUX_DEUX, TROIS, UN_UN, SANS_VOIR, SANS_POINTS, CONTRE = range(7)
CHIEN_TAKE = np.array([5, 2, 3, 1, 0, 0, 0], dtype=np.int64)
CHIEN_OPTION = np.array([0, 2, 0, 1, 0, 0, 0], dtype=np.int64)
CONTRACTS = tuple(f"{r}_{t}" for t in ("simple", "clear") for r in RUNGS)
# contracts (side bets), as bits of ``contracts_s{i}``
B_PAB, B_TWO, B_QUASI, B_KINGS, B_RESIST, B_CAPOT = range(6)
BONUS_NAMES = ("petit_au_bout", "deux_avant_dernier", "quasi", "quatre_rois", "resistance",
               "capot")


def card_tables() -> tuple[np.ndarray, np.ndarray]:
    """(strength, points) per card id: suits As < 2 < 4 < V < C < D < R; trumps 1..21;
    points bouts 10, saisons 5, other trumps 1, R 10, D 8, C 6, V 2, As 4, 2 and 4 0."""
    strength = np.zeros(N_CARDS, dtype=np.int64)
    points = np.zeros(N_CARDS, dtype=np.int64)
    for c in range(N_CARDS):
        if c < 28:
            r = c % 7
            strength[c] = r
            points[c] = (4, 0, 0, 2, 6, 8, 10)[r]
        elif c == EXCUSE:
            points[c] = 10
        else:
            t = c - 27
            strength[c] = t
            points[c] = 10 if t in (1, 21) else 5 if 16 <= t <= 19 else 1
    return strength, points


def tables() -> tuple:
    """Kernel tables (suit_of, suit_mask, excuse_mask, strength, points, above, cheap,
    rich, win_rank), one row each: the trump suit is the fixed suit code TRUMP_SUIT, so
    ``trick_tables`` is called with the same values for 'trump' and 'plain' and its
    row 0 is used; the heuristic orderings are built here with trumps as trumps."""
    strength, points = card_tables()
    suit = DECK.suit
    tt = trick_tables(suit, strength, strength, points, points)
    is_t = suit == TRUMP_SUIT
    is_e = suit == EXCUSE_SUIT
    cards = list(range(N_CARDS))
    orders = (
        sorted(cards, key=lambda c: (is_e[c], points[c], is_t[c], strength[c], c)),
        sorted(cards, key=lambda c: (is_e[c], is_t[c], -points[c], -strength[c], c)),
        sorted(cards, key=lambda c: (is_e[c], is_t[c], strength[c], points[c], c)),
    )
    ranks = []
    for order in orders:
        r = np.zeros(N_CARDS, dtype=np.int64)
        r[order] = np.arange(N_CARDS)
        ranks.append(r)
    return (tt.suit_of, tt.suit_mask, tt.excuse_mask, strength, points, tt.above[0].copy(),
            ranks[0], ranks[1], ranks[2])


def _ints(text: str, n: int, name: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",")]
    except ValueError:
        raise SimlabError(f"knob {name!r} expects {n} comma-separated integers, got "
                          f"{text!r}") from None
    if len(vals) != n or min(vals) < 0:
        raise SimlabError(f"knob {name!r} expects {n} comma-separated integers >= 0, got "
                          f"{text!r}")
    return vals


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class Tarot4SaisonsKnobs(Knobs):
    chien_after_round: int = knob(1, "the dealer puts the 5-card chien aside after the 1st "
                                  "or the 2nd round of 5-card packets (seed: either)",
                                  lo=1, hi=2)
    excuse_is_trump_for_redeal: bool = knob(
        False, "the Excuse counts as a trump for the no-trump redeal (catalogue #3: no)")
    no_trump_redeal_points: int = knob(2, "a player dealt no trump marks this; the deal is "
                                       "annulled and the same dealer redeals", lo=0, hi=100)
    misere_points: int = knob(2, "a player dealt no face card (V, C, D, R) marks this on "
                              "declaring a Misère", lo=0, hi=100)
    misere_mandatory: bool = knob(True, "a Misère is always declared (catalogue #2: not "
                                  "declaring is a fault); false: a policy decision "
                                  "(heuristic always, random half the time)")
    ladder_order: str = knob("simple_first", "auction order: every simple bid below every "
                             "clear bid (catalogue #1), or rung by rung, simple then clear "
                             "(by_rung)", choices=("simple_first", "by_rung"))
    pass_is_final: bool = knob(False, "a player who passed may not bid later (the seed "
                               "does not say so)")
    stakes_simple: str = knob("2,4,4,6,7,9,10", "game stake of a simple bid per rung (tout, "
                              "2+2, 3 cartes, 1+1, sans voir, sans points, contre)")
    stakes_clear: str = knob("12,15,15,17,18,21,24", "game stake of a clear bid per rung")
    option_reduction: int = knob(1, "stake reduction when the taker turns the optional "
                                 "chien cards of a 2+2 or 1+1", lo=0, hi=100)
    opponent_can_refuse: bool = knob(True, "an opponent may refuse the reduction (the stake "
                                     "then stays; catalogue #8: decided before the discards)")
    clear_threshold: int = knob(93, "card points for a clear result", lo=0, hi=185)
    simple_clear_multiplier: int = knob(2, "a simple bid made with a clear result marks "
                                        "this times the stake", lo=0, hi=100)
    capot_mult: int = knob(4, "unannounced capot by the taker: this times the stake instead "
                           "of the normal win (catalogue #6)", lo=0, hi=100)
    capot_replaces_win: bool = knob(True, "a capot's multiple replaces the normal win "
                                    "(catalogue #6); false: it is added to it")
    capot_announced_mult: int = knob(8, "announced capot: this times the stake; failed: "
                                     "each opponent marks it", lo=0, hi=100)
    contre_add: int = knob(2, "a contre adds this to the stake of the game or contract",
                           lo=0, hi=100)
    pab_auto: int = knob(3, "Petit au bout (the Petit wins the last trick), uncontracted",
                         lo=0, hi=100)
    pab_contract: int = knob(6, "Petit au bout, contracted", lo=0, hi=100)
    two_auto: int = knob(2, "2 avant-dernier (the trump 2 wins the penultimate trick), "
                         "uncontracted", lo=0, hi=100)
    two_contract: int = knob(4, "2 avant-dernier, contracted", lo=0, hi=100)
    three_bouts: int = knob(2, "winning the 3 bouts (automatic only; catalogue #10: the "
                            "Excuse counts where it ends)", lo=0, hi=100)
    quasi_auto: int = knob(3, "quasi (every trick but one, any player, catalogue #7), "
                           "uncontracted", lo=0, hi=100)
    quasi_contract: int = knob(6, "quasi, contracted", lo=0, hi=100)
    quasi_taker_only: bool = knob(False, "only the taker may score or contract quasi "
                                  "(catalogue #7: any player)")
    four_kings_contract: int = knob(3, "4 Rois (contracted only)", lo=0, hi=100)
    four_aces: int = knob(1, "4 As (automatic only)", lo=0, hi=100)
    resistance_points: int = knob(62, "résistance: a defender's counted points needed "
                                  "(catalogue #4: per defender)", lo=0, hi=185)
    resistance_combined: bool = knob(False, "résistance counts the two defenders' points "
                                     "together (catalogue #4: each defender alone)")
    resistance_auto: int = knob(1, "résistance, uncontracted", lo=0, hi=100)
    resistance_contract: int = knob(2, "résistance, contracted", lo=0, hi=100)
    suite_value: int = knob(2, "each declared suite (V, C, D, R of one suit)", lo=0, hi=100)
    excuse_last_tricks: int = knob(2, "the Excuse must not be played in this many last "
                                   "tricks", lo=0, hi=15)
    excuse_penalty: int = knob(6, "penalty for playing the Excuse there", lo=0, hi=100)
    allpass_penalty: int = knob(1, "everyone loses this when all pass", lo=0, hi=100)
    allpass_carry_bonus: int = knob(3, "match: the winner(s) of the next played deal mark "
                                    "this per consecutive all-pass deal", lo=0, hi=100)
    target: int = knob(50, "match: the first player at or past this bar wins", lo=1,
                       hi=100000)
    target_push: int = knob(10, "match: the bar moves up this much, repeatedly, while "
                            "several players are past it", lo=1, hi=100000)
    max_deals: int = knob(1000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    must_undertrump: bool = knob(True, "void and unable to overtrump: must still play a "
                                 "lower trump (seed: 'sinon, couper')")
    # heuristic policy
    bid_base: int = knob(24, "heuristic: hand value for 'tout' simple (value: 10 per bout, "
                         "4 per saison, 1.5 per trump, 6 per Roi, 3 per Dame, 2 per void "
                         "with >= 5 trumps, 1 per singleton)", lo=0, hi=500, policy=True)
    bid_step: int = knob(8, "heuristic: extra value per higher rung", lo=0, hi=500,
                         policy=True)
    bid_clear_extra: int = knob(10, "heuristic: extra value to bid the clear version of a "
                                "rung", lo=0, hi=500, policy=True)
    option_take_below: int = knob(70, "heuristic: the taker turns the optional chien cards "
                                  "when his value (with the cards seen) is below this",
                                  lo=0, hi=500, policy=True)
    refuse_at: int = knob(38, "heuristic: an opponent refuses the stake reduction when his "
                          "value reaches this", lo=0, hi=500, policy=True)
    contre_at: int = knob(48, "heuristic: an opponent contres the taker's game and "
                          "contracts when his value reaches this", lo=0, hi=500,
                          policy=True)
    taker_contre_at: int = knob(80, "heuristic: the taker contres the opponents' contracts "
                                "when his value reaches this", lo=0, hi=500, policy=True)
    pab_contract_trumps: int = knob(11, "heuristic: contract Petit au bout (resp. 2 "
                                    "avant-dernier) holding the Petit (the 2) and this many "
                                    "trumps", lo=0, hi=22, policy=True)
    kings_contract_trumps: int = knob(6, "heuristic: contract 4 Rois holding all 4 and this "
                                      "many trumps", lo=0, hi=22, policy=True)
    resistance_contract_at: int = knob(60, "heuristic: a defender contracts résistance "
                                       "when his value reaches this", lo=0, hi=500,
                                       policy=True)
    capot_announce_at: int = knob(110, "heuristic: the taker announces a capot when his "
                                  "value after the chien reaches this", lo=0, hi=1000,
                                  policy=True)
    draw_trumps_pct: int = knob(60, "heuristic: the taker leads trumps while holding at "
                                "least this % of the unseen trumps", lo=0, hi=1000,
                                policy=True)
    win_min_points: int = knob(5, "heuristic: before the last seat, win a trick only when "
                               "it holds at least this many points", lo=0, hi=200,
                               policy=True)
    excuse_save_points: int = knob(6, "heuristic: losing a trick while holding a 2 or 4 in "
                                   "his tricks, play the Excuse rather than a card worth "
                                   "this much", lo=0, hi=20, policy=True)

    def check(self) -> None:
        _ints(self.stakes_simple, 7, "stakes_simple")
        _ints(self.stakes_clear, 7, "stakes_clear")


# Knob vector layout for the kernels.
(K_CHIEN_ROUND, K_EXC_TRUMP, K_NT_PTS, K_MISERE, K_MISERE_MAND, K_BY_RUNG, K_PASS_FINAL,
 K_OPT_RED, K_REFUSE_OK, K_CLEAR, K_SIMPLE_MULT, K_CAPOT, K_CAPOT_ANN, K_CONTRE,
 K_PAB_A, K_PAB_C, K_TWO_A, K_TWO_C, K_3B, K_QUASI_A, K_QUASI_C, K_KINGS_C, K_ACES,
 K_RES_PTS, K_RES_A, K_RES_C, K_SUITE, K_EXC_LAST, K_EXC_PEN, K_AP_PEN, K_AP_CARRY,
 K_TARGET, K_PUSH, K_MAX_DEALS, K_UNDERTRUMP,
 K_BID_BASE, K_BID_STEP, K_BID_CLEAR, K_OPT_BELOW, K_REFUSE_AT, K_CONTRE_AT,
 K_TAKER_CONTRE_AT, K_PAB_TR, K_KINGS_TR, K_RES_AT, K_CAPOT_AT, K_DRAW_PCT, K_WIN_MIN,
 K_EXC_SAVE, K_CAPOT_REPLACES, K_QUASI_TAKER, K_RES_COMBINED) = range(52)
K_STAKE = 52  # K_STAKE + 7 * clear + rung
N_K = K_STAKE + 14


def _vector(k: Tarot4SaisonsKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[:K_STAKE] = [
        k.chien_after_round, k.excuse_is_trump_for_redeal, k.no_trump_redeal_points,
        k.misere_points, k.misere_mandatory, k.ladder_order == "by_rung", k.pass_is_final,
        k.option_reduction, k.opponent_can_refuse, k.clear_threshold,
        k.simple_clear_multiplier, k.capot_mult, k.capot_announced_mult, k.contre_add,
        k.pab_auto, k.pab_contract, k.two_auto, k.two_contract, k.three_bouts,
        k.quasi_auto, k.quasi_contract, k.four_kings_contract, k.four_aces,
        k.resistance_points, k.resistance_auto, k.resistance_contract, k.suite_value,
        k.excuse_last_tricks, k.excuse_penalty, k.allpass_penalty, k.allpass_carry_bonus,
        k.target, k.target_push, k.max_deals, k.must_undertrump,
        k.bid_base, k.bid_step, k.bid_clear_extra, k.option_take_below, k.refuse_at,
        k.contre_at, k.taker_contre_at, k.pab_contract_trumps, k.kings_contract_trumps,
        k.resistance_contract_at, k.capot_announce_at, k.draw_trumps_pct, k.win_min_points,
        k.excuse_save_points, k.capot_replaces_win, k.quasi_taker_only,
        k.resistance_combined]
    v[K_STAKE:K_STAKE + 7] = _ints(k.stakes_simple, 7, "stakes_simple")
    v[K_STAKE + 7:K_STAKE + 14] = _ints(k.stakes_clear, 7, "stakes_clear")
    return v


def _rules(k: Tarot4SaisonsKnobs) -> np.ndarray:
    # Follow suit; void -> trump, overtrumping any trump on the trick if able (no partner
    # exemption); a trump lead must be raised if able; no trump -> anything; the Excuse
    # may always be played (catalogue #11).
    return make_rules(must_trump=True, partner_exempt=PARTNER_NEVER, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=False,
                      must_beat_led=False, raise_trump_lead=True)


def deal_order(chien_after_round: int) -> np.ndarray:
    """Recipient of each of the 50 dealt cards as an offset from the dealer's next
    (0..2), or 3 for the chien: 3 rounds of 5-card packets, the chien's 5 cards after
    round ``chien_after_round``."""
    order: list[int] = []
    for rnd in range(3):
        for p in range(NP):
            order += [p] * 5
        if rnd + 1 == chien_after_round:
            order += [3] * CHIEN
    return np.array(order, dtype=np.int64)


# --- result columns -----------------------------------------------------------------
def _seats(name: str, kind=None, help: str = "") -> list[Column]:
    if kind is None:
        return [Column(f"{name}_s{i}", help=help) for i in range(NP)]
    return [Column(f"{name}_s{i}", kind, help=help) for i in range(NP)]


_DEAL_COLS: list[Column] = (
    [Column("deal"), Column("dealer"),
     Column("annulled", BOOL, help="a player was dealt no trump: he marks the no-trump "
                                   "points and the same dealer redeals")]
    + _seats("score", help="points marked this deal (all sources)")
    + [Column("taker", help="-1 when all pass or the deal is annulled"),
       Column("contract", CONTRACTS, help="winning bid: rung and victory type"),
       Column("made", OPT_BOOL)]
    + _seats("tricks")
    + _seats("trick_points", help="card points won in tricks (Excuse capture included, "
                                  "chien not)")
    + [Column("no_trump_seat", help="first seat dealt no trump (annulled deal), else -1"),
       Column("all_pass", BOOL),
       Column("rung", RUNGS), Column("clear", OPT_BOOL),
       Column("option_used", OPT_BOOL, help="2+2 / 1+1: the optional chien cards turned"),
       Column("option_refused", OPT_BOOL, help="an opponent refused the stake reduction"),
       Column("stake", help="final game stake (reduction and contre included)"),
       Column("game_contred", OPT_BOOL),
       Column("chien_points", help="points of the final chien (after the discards)"),
       Column("taker_points", help="taker's counted points (tricks + chien per the bid)"),
       Column("capot", OPT_BOOL, help="the taker won every trick"),
       Column("capot_announced", OPT_BOOL),
       Column("n_contres", help="contres on the game and on contracts")]
    + _seats("misere", BOOL)
    + _seats("game", help="game result marked by the seat")
    + _seats("bonus", help="bonuses and contracts marked by the seat (failed contracts "
                           "of the other party included)")
    + _seats("contracts", help="bitmask of the seat's contracts: 1 Petit au bout, 2 "
                               "2 avant-dernier, 4 quasi, 8 4 Rois, 16 résistance, "
                               "32 capot")
    + _seats("contracts_failed", help="how many of the seat's contracts failed")
    + _seats("suites", help="suites declared")
    + [Column("petit_au_bout_seat", help="seat whose Petit won the last trick, else -1"),
       Column("deux_avant_dernier_seat"), Column("three_bouts_seat"),
       Column("four_kings_seat"), Column("four_aces_seat"), Column("quasi_seat"),
       Column("excuse_seat", help="who played the Excuse (-1: annulled/all pass)"),
       Column("excuse_kept", OPT_BOOL, help="its player kept it by giving a 2 or 4"),
       Column("excuse_penalty", OPT_BOOL, help="played in the last two tricks")]
    + _seats("resistance", OPT_BOOL, help="defender reached the résistance points")
    + [Column(f"chien_{j}", DECK.labels, help="chien as dealt, top first")
       for j in range(CHIEN)]
)
_IDX = {c.name: i for i, c in enumerate(_DEAL_COLS)}
N_DEAL_COLS = len(_DEAL_COLS)
C_DEAL, C_DEALER, C_ANNULLED = 0, 1, 2
C_SCORE = _IDX["score_s0"]
C_TAKER = _IDX["taker"]
C_CONTRACT = _IDX["contract"]
C_MADE = _IDX["made"]
C_TRICKS = _IDX["tricks_s0"]
C_TPTS = _IDX["trick_points_s0"]
C_NOTRUMP = _IDX["no_trump_seat"]
C_ALLPASS = _IDX["all_pass"]
C_RUNG = _IDX["rung"]
C_CLEAR = _IDX["clear"]
C_OPT = _IDX["option_used"]
C_REFUSED = _IDX["option_refused"]
C_STAKE = _IDX["stake"]
C_GCONTRE = _IDX["game_contred"]
C_CHIEN_PTS = _IDX["chien_points"]
C_TAKER_PTS = _IDX["taker_points"]
C_CAPOT = _IDX["capot"]
C_CAPOT_ANN = _IDX["capot_announced"]
C_NCONTRES = _IDX["n_contres"]
C_MISERE = _IDX["misere_s0"]
C_GAME = _IDX["game_s0"]
C_BONUS = _IDX["bonus_s0"]
C_CONTRACTS = _IDX["contracts_s0"]
C_CFAILED = _IDX["contracts_failed_s0"]
C_SUITES = _IDX["suites_s0"]
C_PAB = _IDX["petit_au_bout_seat"]
C_TWO = _IDX["deux_avant_dernier_seat"]
C_3B = _IDX["three_bouts_seat"]
C_4K = _IDX["four_kings_seat"]
C_4A = _IDX["four_aces_seat"]
C_QUASI = _IDX["quasi_seat"]
C_EXC_SEAT = _IDX["excuse_seat"]
C_EXC_KEPT = _IDX["excuse_kept"]
C_EXC_PEN = _IDX["excuse_penalty"]
C_RESIST = _IDX["resistance_s0"]
C_CHIEN = _IDX["chien_0"]
# columns that are -1 (null) unless set
_MINUS_ONE = np.array(
    [C_TAKER, C_CONTRACT, C_MADE, C_NOTRUMP, C_RUNG, C_CLEAR, C_OPT, C_REFUSED, C_GCONTRE,
     C_CAPOT, C_CAPOT_ANN, C_PAB, C_TWO, C_3B, C_4K, C_4A, C_QUASI, C_EXC_SEAT, C_EXC_KEPT,
     C_EXC_PEN, C_RESIST, C_RESIST + 1, C_RESIST + 2], dtype=np.int64)

_MATCH_COLS: list[Column] = (
    [Column("match"), Column("first_dealer"),
     Column("winner", help="the only seat past the (moving) bar; -1 if capped"),
     Column("n_deals", help="deals dealt, annulled and all-pass ones included")]
    + [Column(f"final_score_s{i}") for i in range(NP)]
    + [Column("final_bar", help="the bar when the match ended"),
       Column("n_bar_moves", help="how many times the bar moved up"),
       Column("n_annulled"), Column("n_all_pass"), Column("n_taken"), Column("n_made"),
       Column("capped", BOOL)]
)
N_MATCH_COLS = len(_MATCH_COLS)


def deal_columns(_: Tarot4SaisonsKnobs | None = None) -> list[Column]:
    return list(_DEAL_COLS)


def match_columns(_: Tarot4SaisonsKnobs | None = None) -> list[Column]:
    return list(_MATCH_COLS)


# --- hand evaluation, auction ---------------------------------------------------------
@hot
def hand_value(h: np.uint64) -> int:
    """The catalogue's bidding count: 10 per bout, 4 per saison, 1.5 per trump (rounded
    down), 6 per Roi, 3 per Dame, 2 per void (with >= 5 trumps), 1 per singleton."""
    nt = count(h & TRUMPS)
    v = 10 * count(h & BOUTS) + 4 * count(h & SAISONS) + (3 * nt) // 2
    v += 6 * count(h & KINGS) + 3 * count(h & QUEENS)
    for s in range(4):
        c = count((h >> np.uint64(7 * s)) & SUIT_BITS)
        if c == 0 and nt >= 5:
            v += 2
        elif c == 1:
            v += 1
    return v


@hot
def bid_position(rung: int, clear: int, kv: np.ndarray) -> int:
    """Place of a bid on the ladder (0 = weakest .. 13)."""
    if kv[K_BY_RUNG]:
        return 2 * rung + clear
    return 7 * clear + rung


@hot
def bid_of(pos: int, kv: np.ndarray) -> tuple[int, int]:
    """(rung, clear) of a ladder place."""
    if kv[K_BY_RUNG]:
        return pos // 2, pos % 2
    return pos % 7, pos // 7


@hot
def heuristic_bid(v: int, kv: np.ndarray) -> int:
    """The highest ladder place the hand value affords (-1: pass). A rung needs
    ``bid_base + rung * bid_step`` (+ ``bid_clear_extra`` for its clear version)."""
    for pos in range(13, -1, -1):
        rung, clear = bid_of(pos, kv)
        if v >= kv[K_BID_BASE] + rung * kv[K_BID_STEP] + clear * kv[K_BID_CLEAR]:
            return pos
    return -1


@hot
def auction(hands: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray,
            state: np.uint64) -> tuple[np.uint64, int, int]:
    """From the dealer's next, each bid strictly above the last, until everyone has
    spoken and two players in a row have passed. (state, taker, ladder place); taker -1
    when all pass. Heuristic: bid its affordable place when above the current one.
    Random: uniform over pass and every higher place."""
    best = -1
    taker = -1
    passes = 0
    passed = 0  # bit per seat
    k = 0
    while k < NP or passes < 2:
        p = (dealer + 1 + k) % NP
        k += 1
        bid = -1
        if best < 13 and not (kv[K_PASS_FINAL] and (passed >> p) & 1):
            if pol[p] == HEURISTIC:
                b = heuristic_bid(hand_value(hands[p]), kv)
                if b > best:
                    bid = b
            else:
                state, x = rng.below(state, 13 - best + 1)
                if x > 0:
                    bid = best + x
        if bid >= 0:
            best = bid
            taker = p
            passes = 0
        else:
            passes += 1
            passed |= 1 << p
        if passes >= 2 and k >= NP:
            break
    return state, taker, best


@hot
def stake_of(rung: int, clear: int, kv: np.ndarray) -> int:
    return kv[K_STAKE + 7 * clear + rung]


# --- chien --------------------------------------------------------------------------
@hot
def discard(hand: np.uint64, k: int, heuristic: bool, points: np.ndarray, state: np.uint64,
            out: np.ndarray, off: int) -> tuple[np.uint64, np.uint64, np.uint64]:
    """The taker puts ``k`` cards back (never a Roi or a bout). Heuristic: void the
    shortest suits without a Roi first, richest card first (their points are safe in the
    chien); trumps only when forced, lowest first. Random: uniform over the allowed
    cards. Returns (state, new hand, discarded mask); ids in ``out[off:off + k]``."""
    gone = EMPTY
    for i in range(k):
        allowed = hand & ~KINGS & ~BOUTS
        plain = allowed & ~TRUMPS
        if heuristic:
            c = -1
            if plain != EMPTY:
                best_key = 1 << 40
                for s in range(4):
                    sh = np.uint64(7 * s)
                    cand = (plain >> sh) & SUIT_BITS
                    if cand == EMPTY:
                        continue
                    suit = (hand >> sh) & SUIT_BITS
                    x = 7 * s + highest(cand)
                    key = (np.int64((suit >> np.uint64(RK)) & ONE) * 100 + count(suit)) * 1000 \
                        - points[x] * 20 + (x - 7 * s)
                    if key < best_key:
                        best_key = key
                        c = x
            else:
                c = lowest(allowed)
        else:
            state, c = random_card(state, allowed)
        out[off + i] = c
        hand &= ~bit(c)
        gone |= bit(c)
    return state, hand, gone


# --- scoring (pure) -------------------------------------------------------------------
@hot
def game_result(clear: int, stake: int, taker_pts: int, opp_a: int, opp_b: int,
                capot_mult: int, kv: np.ndarray) -> tuple[bool, int, int]:
    """(made, taker's mark, each opponent's mark) of the game. Clear: taker_pts >= the
    clear threshold; simple: more than each opponent's counted points, doubled (knob)
    with a clear result. ``capot_mult`` > 0: the taker won every trick and marks that
    times the stake (4, or 8 when announced) instead of the normal win (or on top of
    it, knob ``capot_replaces_win``)."""
    if capot_mult > 0:
        win = capot_mult * stake
        if not kv[K_CAPOT_REPLACES]:  # added to the normal (clear-result) win
            win += (1 if clear else kv[K_SIMPLE_MULT]) * stake
        return True, win, 0
    if clear:
        made = taker_pts >= kv[K_CLEAR]
    else:
        made = taker_pts > opp_a and taker_pts > opp_b
    if not made:
        return False, 0, stake
    if not clear and taker_pts >= kv[K_CLEAR]:
        return True, kv[K_SIMPLE_MULT] * stake, 0
    return True, stake, 0


@hot
def settle_bonus(seat: int, taker: int, contracted: bool, achieved: bool, auto_value: int,
                 contract_value: int, marks: np.ndarray, off: int) -> int:
    """Marks of one bonus for ``seat`` into ``marks[off + seat]``: achieved -> the contracted
    value if contracted, else the automatic one; contracted and failed -> the other party
    marks it (the taker failed: each opponent; an opponent failed: the taker). Returns
    1 if a contract failed, else 0. ``contract_value`` includes any contre."""
    if contracted:
        if achieved:
            marks[off + seat] += contract_value
            return 0
        for p in range(NP):
            if (seat == taker) != (p == taker):
                marks[off + p] += contract_value
        return 1
    if achieved:
        marks[off + seat] += auto_value
    return 0


@hot
def finish_line(totals: np.ndarray, bar: int, push: int) -> tuple[int, int, int]:
    """(winner or -1, new bar, moves): while more than one player is at or past the bar
    it moves up by ``push`` (immediately, repeatedly); a lone player past it wins."""
    moves = 0
    while True:
        n = 0
        who = -1
        for p in range(NP):
            if totals[p] >= bar:
                n += 1
                who = p
        if n <= 1:
            return who, bar, moves
        bar += push
        moves += 1


# --- play ---------------------------------------------------------------------------
@hot
def lead_card(hand: np.uint64, legal: np.uint64, attack: bool, gone: np.uint64,
              taker_voids: int, tricks_left: int, keep_excuse: bool, kv: np.ndarray,
              tb: tuple) -> int:
    """Heuristic lead. The Excuse goes on the last trick before the forbidden ones. The
    taker draws trumps while holding enough of the unseen ones (master trump first, else
    a low one); everyone cashes master suit cards (defenders in suits the taker still
    follows), defenders then lead a suit the taker is void in; else the cheapest card.
    The Petit is kept while another card may be led."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    if legal & EXCUSE_B != EMPTY and tricks_left == kv[K_EXC_LAST] + 1 and not keep_excuse:
        return EXCUSE
    unseen = ALL & ~gone & ~hand
    out_trumps = unseen & TRUMPS
    no_petit = legal & TRUMPS & ~PETIT_B
    if attack and no_petit != EMPTY and out_trumps != EMPTY and \
            count(hand & TRUMPS) * 100 >= kv[K_DRAW_PCT] * count(out_trumps):
        top = highest(no_petit)
        if is_master(top, unseen, above):
            return top
        return lowest(no_petit)
    masters = EMPTY
    for s in range(4):
        if (taker_voids >> s) & 1:
            continue
        mine = legal & suit_mask[s]
        if mine != EMPTY:
            top = highest(mine | (unseen & suit_mask[s]))
            if (mine >> np.uint64(top)) & ONE != EMPTY:
                masters |= bit(top)
    if masters != EMPTY:
        return best_in(masters, rich)
    if not attack and taker_voids & 15 != 0:
        m = EMPTY
        for s in range(4):
            if (taker_voids >> s) & 1:
                m |= legal & suit_mask[s]
        if m != EMPTY:
            return best_in(m, cheap)
    c = best_in(legal & ~PETIT_B & ~EXCUSE_B, cheap)
    if c >= 0:
        return c
    if legal & PETIT_B != EMPTY:
        return PETIT
    return EXCUSE


@hot
def follow_card(legal: np.uint64, hand: np.uint64, win: int, ally_wins: bool, last: bool,
                on_table: int, keep_excuse: bool, can_keep_excuse: bool, tricks_left: int,
                gone: np.uint64, kv: np.ndarray, tb: tuple) -> int:
    """Heuristic second or third card: the Excuse on the last trick before the forbidden
    ones, or on a lost trick to save a valuable card once it would be kept (a 2 or 4 in
    the player's tricks); on an ally's safe winner load the richest plain card (the Petit
    first); otherwise win cheaply when the trick is worth it (never with the Petit unless
    last), else shed the cheapest."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    has_exc = legal & EXCUSE_B != EMPTY and not keep_excuse
    safe_left = tricks_left - kv[K_EXC_LAST]  # tricks where the Excuse is still allowed
    if has_exc and safe_left == 1:
        return EXCUSE
    n = legal & ~EXCUSE_B
    if n == EMPTY:
        return EXCUSE
    if ally_wins:
        unseen = ALL & ~gone & ~hand
        if last or is_master(win, unseen, above):
            if n & PETIT_B != EMPTY:
                return PETIT
            c = best_in(n & ~TRUMPS, rich)
            if c >= 0:
                return c
        c = best_in(n & ~PETIT_B, cheap)
        return c if c >= 0 else PETIT
    w = winners(n, win, TRUMP_SUIT, suit_of, suit_mask, excuse_mask, above)
    if not last:
        w &= ~PETIT_B
    c = best_in(w, win_rank)
    if c >= 0 and (last or on_table + points[c] >= kv[K_WIN_MIN]):
        return c
    c = best_in(n & ~PETIT_B, cheap)
    if c < 0:
        c = PETIT
    if has_exc and safe_left > 1 and can_keep_excuse and points[c] >= kv[K_EXC_SAVE]:
        return EXCUSE
    return c


@hot
def excuse_capture(exc_seat: int, win_seat: int, won: np.ndarray, off: int) -> tuple[int, int]:
    """The Excuse's special capture rule, applied once its trick is complete and given
    to ``win_seat`` (``won[off + seat]`` = won-card masks, the trick already added to the
    winner's). If its player already held a worthless card (a 2 or 4) in his tricks, he
    keeps the Excuse and the winner gets that card; otherwise the winner keeps it.
    Returns (seat that ends with the Excuse, worthless card handed over or -1)."""
    low = won[off + exc_seat] & WORTHLESS
    if exc_seat == win_seat or low == EMPTY:
        return win_seat, -1
    x = lowest(low)
    won[off + exc_seat] = (won[off + exc_seat] & ~bit(x)) | EXCUSE_B
    won[off + win_seat] = (won[off + win_seat] & ~EXCUSE_B) | bit(x)
    return exc_seat, x


@hot
def coin(state: np.uint64) -> tuple[np.uint64, bool]:
    state, x = rng.below(state, 2)
    return state, x == 1


@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray,
              rules: np.ndarray, tb: tuple, order: np.ndarray, state: np.uint64,
              row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray, hands: np.ndarray,
              tally: np.ndarray, buf: np.ndarray) -> np.uint64:
    """One deal from a shuffled ``deck``: fills ``row`` from the score columns on,
    ``dealt`` / ``hands_out`` [3, 15] card ids (hands_out: the playing hands, after the
    chien). Work arrays: ``hands`` uint64 [8] (0..2 hands, 3..5 won cards), ``tally``
    int64 [32], ``buf`` int64 [16]. Returns the policy stream state."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    for p in range(NP):
        hands[p] = EMPTY
        hands[3 + p] = EMPTY
        tally[p] = 0
    for j in range(_MINUS_ONE.shape[0]):
        row[_MINUS_ONE[j]] = -1
    # Deal: 3 rounds of 5-card packets from the dealer's next; the chien after a round.
    n_ch = 0
    for i in range(N_CARDS):
        r = order[i]
        c = deck[i]
        if r == 3:
            buf[n_ch] = c
            row[C_CHIEN + n_ch] = c
            n_ch += 1
        else:
            p = (dealer + 1 + r) % NP
            dealt[p, tally[p]] = c
            tally[p] += 1
            hands[p] |= bit(c)

    # No trump: the player marks the points, the deal is annulled (same dealer redeals).
    trump_like = TRUMPS | (EXCUSE_B if kv[K_EXC_TRUMP] else EMPTY)
    for k in range(NP):
        p = (dealer + 1 + k) % NP
        if hands[p] & trump_like == EMPTY:
            row[C_SCORE + p] += kv[K_NT_PTS]
            if row[C_NOTRUMP] < 0:
                row[C_NOTRUMP] = p
    if row[C_NOTRUMP] >= 0:
        row[C_ANNULLED] = 1
        return state

    # Misère: no face card.
    for p in range(NP):
        if hands[p] & FACES == EMPTY:
            declare = True
            if not kv[K_MISERE_MAND] and pol[p] != HEURISTIC:
                state, declare = coin(state)
            if declare:
                row[C_MISERE + p] = 1
                row[C_SCORE + p] += kv[K_MISERE]

    # Auction.
    state, taker, pos = auction(hands, dealer, pol, kv, state)
    row[C_TAKER] = taker
    if taker < 0:
        row[C_ALLPASS] = 1
        for p in range(NP):
            row[C_SCORE + p] -= kv[K_AP_PEN]
        return state
    rung, clear = bid_of(pos, kv)
    row[C_CONTRACT] = 7 * clear + rung
    row[C_RUNG] = rung
    row[C_CLEAR] = clear
    heur_t = pol[taker] == HEURISTIC
    stake = stake_of(rung, clear, kv)

    # Chien: turn cards from the top; the option (2+2, 1+1) lowers the stake unless an
    # opponent refuses; the taker discards as many (never a Roi or a bout).
    take = CHIEN_TAKE[rung]
    hand = hands[taker]
    for j in range(take):
        hand |= bit(buf[j])
    if CHIEN_OPTION[rung] > 0:
        if heur_t:
            use = hand_value(hand) < kv[K_OPT_BELOW]
        else:
            state, use = coin(state)
        row[C_OPT] = use
        if use:
            refused = False
            if kv[K_REFUSE_OK]:
                for k in range(1, NP):
                    o = (taker + k) % NP
                    if pol[o] == HEURISTIC:
                        ref = hand_value(hands[o]) >= kv[K_REFUSE_AT]
                    else:
                        state, ref = coin(state)
                    refused = refused or ref
            row[C_REFUSED] = refused
            for j in range(take, take + CHIEN_OPTION[rung]):
                hand |= bit(buf[j])
            take += CHIEN_OPTION[rung]
            if not refused:
                stake = max(stake - kv[K_OPT_RED], 0)
    final_chien = EMPTY
    for j in range(take, CHIEN):
        final_chien |= bit(buf[j])
    if take > 0:
        state, hand, gone = discard(hand, take, heur_t, points, state, buf, 8)
        final_chien |= gone
    hands[taker] = hand
    chien_pts = 0
    m = final_chien
    while m != EMPTY:
        chien_pts += points[lowest(m)]
        m &= m - ONE
    row[C_CHIEN_PTS] = chien_pts
    for p in range(NP):
        cards_of(hands[p], hands_out[p])

    # Contracts (any player; résistance for the opponents, capot for the taker).
    V = 8  # tally[V + p]: hand values after the chien
    for p in range(NP):
        tally[V + p] = hand_value(hands[p])
    for k in range(NP):
        p = (dealer + 1 + k) % NP
        h = hands[p]
        bits = 0
        if pol[p] == HEURISTIC:
            nt = count(h & TRUMPS)
            if h & PETIT_B != EMPTY and nt >= kv[K_PAB_TR]:
                bits |= 1 << B_PAB
            if h & T2_B != EMPTY and nt >= kv[K_PAB_TR]:
                bits |= 1 << B_TWO
            if h & KINGS == KINGS and nt >= kv[K_KINGS_TR]:
                bits |= 1 << B_KINGS
            if p != taker and tally[V + p] >= kv[K_RES_AT]:
                bits |= 1 << B_RESIST
            # the Excuse never wins a trick: its holder cannot take them all
            if p == taker and tally[V + p] >= kv[K_CAPOT_AT] and h & EXCUSE_B == EMPTY:
                bits |= 1 << B_CAPOT
        else:
            for b in range(6):
                if (b == B_RESIST and p == taker) or (b == B_CAPOT and p != taker) or \
                        (b == B_QUASI and p != taker and kv[K_QUASI_TAKER]):
                    continue
                state, yes = coin(state)
                if yes:
                    bits |= 1 << b
        row[C_CONTRACTS + p] = bits
    capot_ann = (row[C_CONTRACTS + taker] >> B_CAPOT) & 1 == 1
    row[C_CAPOT_ANN] = capot_ann

    # Contres: the opponents on the taker's game and contracts, the taker on theirs; each
    # item once (the first willing player in turn), never a capot.
    X = 12  # tally[X + p]: contred items of seat p, a bit per contract; bit 6 = the game
    for p in range(NP):
        tally[X + p] = 0
    n_contres = 0
    for k in range(NP):
        p = (dealer + 1 + k) % NP
        for q in range(NP):
            if (p == taker) == (q == taker):
                continue
            items = row[C_CONTRACTS + q] & ~(1 << B_CAPOT)
            if q == taker:
                items |= 1 << 6
            items &= ~tally[X + q]
            for b in range(7):
                if not (items >> b) & 1:
                    continue
                if pol[p] == HEURISTIC:
                    at = kv[K_TAKER_CONTRE_AT] if p == taker else kv[K_CONTRE_AT]
                    yes = tally[V + p] >= at
                else:
                    state, yes = coin(state)
                if yes:
                    tally[X + q] |= 1 << b
                    n_contres += 1
    row[C_NCONTRES] = n_contres
    game_contred = (tally[X + taker] >> 6) & 1 == 1
    row[C_GCONTRE] = game_contred
    if game_contred:
        stake += kv[K_CONTRE]
    row[C_STAKE] = stake

    # Suites: all four faces of a suit, declared before play.
    for p in range(NP):
        ns = 0
        for s in range(4):
            if (hands[p] >> np.uint64(7 * s)) & SUITE_BITS == SUITE_BITS:
                declare = True
                if pol[p] != HEURISTIC:
                    state, declare = coin(state)
                if declare:
                    ns += 1
        row[C_SUITES + p] = ns
        row[C_SCORE + p] += ns * kv[K_SUITE]

    # Play: 15 tricks; the dealer's next leads, unless an announced capot's taker
    # chooses to (heuristic: always).
    leader = (dealer + 1) % NP
    if capot_ann:
        lead = True
        if not heur_t:
            state, lead = coin(state)
        if lead:
            leader = taker
    for p in range(NP):
        tally[p] = 0  # tricks won (it counted the cards dealt)
    gone = EMPTY
    taker_voids = 0
    exc_seat_deal = -1
    for trick in range(HAND):
        led = -1
        win = -1
        win_seat = -1
        on_table = 0
        exc_seat = -1
        tm = EMPTY
        tricks_left = HAND - trick
        for k in range(NP):
            p = (leader + k) % NP
            h = hands[p]
            legal = legal_cards(h, led, win, False, TRUMP_SUIT, suit_of, suit_mask,
                                excuse_mask, above, rules)
            if pol[p] == HEURISTIC:
                attack = p == taker
                if k == 0:
                    c = lead_card(h, legal, attack, gone, 0 if attack else taker_voids,
                                  tricks_left, False, kv, tb)
                else:
                    ally = win_seat != taker and p != taker
                    c = follow_card(legal, h, win, ally, k == NP - 1, on_table, False,
                                    hands[3 + p] & WORTHLESS != EMPTY, tricks_left, gone,
                                    kv, tb)
            else:
                state, c = random_card(state, legal)
            hands[p] = h & ~bit(c)
            gone |= bit(c)
            tm |= bit(c)
            if c == EXCUSE:
                exc_seat = p
                exc_seat_deal = p
                pen = tricks_left <= kv[K_EXC_LAST]
                row[C_EXC_PEN] = pen
                if pen:
                    row[C_SCORE + p] -= kv[K_EXC_PEN]
            elif p == taker and led >= 0 and suit_of[c] != led and led < 4:
                taker_voids |= 1 << led
            on_table += points[c]
            led, win, win_seat = update_trick(c, p, led, win, win_seat, TRUMP_SUIT, suit_of,
                                              above)
        tally[win_seat] += 1
        hands[3 + win_seat] |= tm
        if exc_seat >= 0:
            _, x = excuse_capture(exc_seat, win_seat, hands, 3)
            row[C_EXC_KEPT] = x >= 0
        if trick == HAND - 1 and win == PETIT:
            row[C_PAB] = win_seat
        if trick == HAND - 2 and win == T2:
            row[C_TWO] = win_seat
        leader = win_seat
    row[C_EXC_SEAT] = exc_seat_deal

    # Card points; counted points per the bid (the chien: taker / nobody / both opponents).
    for p in range(NP):
        tp = 0
        m = hands[3 + p]
        while m != EMPTY:
            tp += points[lowest(m)]
            m &= m - ONE
        row[C_TRICKS + p] = tally[p]
        row[C_TPTS + p] = tp
        tally[4 + p] = tp  # counted points
    if rung <= SANS_VOIR:
        tally[4 + taker] += chien_pts
    elif rung == CONTRE:
        for p in range(NP):
            if p != taker:
                tally[4 + p] += chien_pts
    taker_pts = tally[4 + taker]
    row[C_TAKER_PTS] = taker_pts
    o1 = (taker + 1) % NP
    o2 = (taker + 2) % NP
    capot = tally[taker] == HAND
    row[C_CAPOT] = capot
    cm = 0
    if capot:
        cm = kv[K_CAPOT_ANN] if capot_ann else kv[K_CAPOT]
    made, mark_t, mark_o = game_result(clear, stake, taker_pts, tally[4 + o1], tally[4 + o2],
                                       cm, kv)
    row[C_MADE] = made
    row[C_GAME + taker] = mark_t
    row[C_GAME + o1] = mark_o
    row[C_GAME + o2] = mark_o

    # Bonuses and contracts.
    M = 16  # tally[M + p]: bonus marks; tally[F + p]: failed contracts
    F = 20
    for p in range(NP):
        tally[M + p] = 0
        tally[F + p] = 0
    ca = kv[K_CONTRE]
    for p in range(NP):
        bits = row[C_CONTRACTS + p]
        cbits = tally[X + p]
        pab = row[C_PAB] == p
        tally[F + p] += settle_bonus(p, taker, (bits >> B_PAB) & 1 == 1, pab, kv[K_PAB_A],
                                  kv[K_PAB_C] + ca * ((cbits >> B_PAB) & 1), tally, M)
        two = row[C_TWO] == p
        tally[F + p] += settle_bonus(p, taker, (bits >> B_TWO) & 1 == 1, two, kv[K_TWO_A],
                                  kv[K_TWO_C] + ca * ((cbits >> B_TWO) & 1), tally, M)
        quasi = tally[p] == HAND - 1 and (p == taker or not kv[K_QUASI_TAKER])
        if quasi:
            row[C_QUASI] = p
        tally[F + p] += settle_bonus(p, taker, (bits >> B_QUASI) & 1 == 1, quasi, kv[K_QUASI_A],
                                  kv[K_QUASI_C] + ca * ((cbits >> B_QUASI) & 1), tally, M)
        kings = hands[3 + p] & KINGS == KINGS
        if kings:
            row[C_4K] = p
        tally[F + p] += settle_bonus(p, taker, (bits >> B_KINGS) & 1 == 1, kings, 0,
                                  kv[K_KINGS_C] + ca * ((cbits >> B_KINGS) & 1), tally, M)
        if hands[3 + p] & BOUTS == BOUTS:
            row[C_3B] = p
            tally[M + p] += kv[K_3B]
        if hands[3 + p] & ACES == ACES:
            row[C_4A] = p
            tally[M + p] += kv[K_ACES]
        if p != taker:
            res = tally[4 + p] >= kv[K_RES_PTS]
            if kv[K_RES_COMBINED]:
                res = tally[4 + o1] + tally[4 + o2] >= kv[K_RES_PTS]
            row[C_RESIST + p] = res
            tally[F + p] += settle_bonus(p, taker, (bits >> B_RESIST) & 1 == 1, res,
                                      kv[K_RES_A],
                                      kv[K_RES_C] + ca * ((cbits >> B_RESIST) & 1), tally, M)
    if capot_ann and not capot:  # a failed announced capot: each opponent marks it
        tally[F + taker] += 1
        tally[M + o1] += kv[K_CAPOT_ANN] * stake
        tally[M + o2] += kv[K_CAPOT_ANN] * stake
    for p in range(NP):
        row[C_BONUS + p] = tally[M + p]
        row[C_CFAILED + p] = tally[F + p]
        row[C_SCORE + p] += row[C_GAME + p] + tally[M + p]
    return state


@hot
def apply_carry(taker: int, made: bool, carry: int, totals: np.ndarray, kv: np.ndarray) -> int:
    """All-pass carry at match level: an all-pass deal (taker -1) adds
    ``allpass_carry_bonus`` to the pending carry; the next played deal's winner(s) (the
    taker if he made it, else both opponents) mark the carry, fixed, and it resets.
    Returns the new carry."""
    if taker < 0:
        return carry + kv[K_AP_CARRY]
    for p in range(NP):
        if (p == taker) == made:
            totals[p] += carry
    return 0


# --- batch kernels ---------------------------------------------------------------------
@hot
def _fresh_deck(deck: np.ndarray) -> None:
    for i in range(N_CARDS):
        deck[i] = i


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, order: np.ndarray, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, NP, HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, NP, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(8, dtype=np.uint64)
    tally = np.zeros(32, dtype=np.int64)
    buf = np.zeros(16, dtype=np.int64)
    for i in range(count):
        d = start + i
        _fresh_deck(deck)
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % NP
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, dealer, pol, kv, rules, tb, order, rng.stream(seed, d, 0, rng.POLICY),
                  out[i], dealt[j], hands_out[j], hands, tally, buf)
        if record and out[i, C_TAKER] < 0:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple, order: np.ndarray) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as deals_kernel
    dealt = np.empty((NP, HAND), dtype=np.int64)
    hands_out = np.empty((NP, HAND), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(8, dtype=np.uint64)
    tally = np.zeros(32, dtype=np.int64)
    buf = np.zeros(16, dtype=np.int64)
    totals = np.zeros(NP, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), NP)
        dealer = first
        totals[:] = 0
        bar = kv[K_TARGET]
        moves = 0
        carry = 0
        annulled = 0
        all_pass = 0
        taken = 0
        made = 0
        winner = -1
        j = 0
        while j < kv[K_MAX_DEALS]:
            _fresh_deck(deck)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(deck, dealer, pol, kv, rules, tb, order,
                      rng.stream(seed, m, j + 1, rng.POLICY), row, dealt, hands_out, hands,
                      tally, buf)
            j += 1
            for p in range(NP):
                totals[p] += row[C_SCORE + p]
            if row[C_ANNULLED]:
                annulled += 1  # the same dealer redeals; a pending carry waits
            else:
                if row[C_TAKER] < 0:
                    all_pass += 1
                else:
                    taken += 1
                    made += row[C_MADE]
                carry = apply_carry(row[C_TAKER], row[C_MADE] == 1, carry, totals, kv)
                dealer = (dealer + 1) % NP
            winner, bar, mv = finish_line(totals, bar, kv[K_PUSH])
            moves += mv
            if winner >= 0:
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = j
        for p in range(NP):
            out[i, 4 + p] = totals[p]
        out[i, 7] = bar
        out[i, 8] = moves
        out[i, 9] = annulled
        out[i, 10] = all_pass
        out[i, 11] = taken
        out[i, 12] = made
        out[i, 13] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
_TABLES: list[tuple] = []


def _tables() -> tuple:
    if not _TABLES:
        _TABLES.append(tables())
    return _TABLES[0]


def _args(knobs: Tarot4SaisonsKnobs) -> tuple:
    return _vector(knobs), _rules(knobs), _tables(), deal_order(knobs.chien_after_round)


def run_deals(knobs: Tarot4SaisonsKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb, order = _args(knobs)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      kv, rules, tb, order, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: Tarot4SaisonsKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb, order = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       kv, rules, tb, order))


# --- balance questions -----------------------------------------------------------------
SECTION = "Tarot 4 saisons questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points stay out of the headline table.
COMPARE = "`simlab compare tarot_4_saisons -n 200000"


def _seat_value(prefix: str, seat: pl.Expr) -> pl.Expr:
    """Value of column ``{prefix}_s{p}`` for the seat given per row by ``seat``."""
    out = pl.lit(None, dtype=pl.Float64)
    for p in range(NP):
        out = pl.when(seat == p).then(pl.col(f"{prefix}_s{p}").cast(pl.Float64)).otherwise(out)
    return out


def _by_rung(values: list[int] | tuple[int, ...]) -> pl.Expr:
    """Per-row value of a 7-entry per-rung table at the row's rung."""
    rung = pl.col("rung").cast(pl.String)
    out = pl.lit(None, dtype=pl.Float64)
    for r, v in zip(RUNGS, values, strict=True):
        out = pl.when(rung == r).then(pl.lit(float(v))).otherwise(out)
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: Tarot4SaisonsKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's seven balance questions as metrics (section "Tarot 4 saisons
    questions", keys ``t4s.qN...``).

    Deal level: 1 winning bids (share, success, the taker's net game mark per contract);
    2 simple against clear (success, the simple wins doubled at the clear threshold, and
    on every take the counterfactual net mark of the simple and the clear version of the
    same rung); 3 the seat effect by position from the dealer (mark, takes, top mark); 4
    all-pass and no-trump redeal frequency; 6 the bonuses' share of the points marked and
    résistance; 7 the optional chien cards and the refused reductions. Match level: 3 match
    win rate by position from the first dealer; 4 all-pass share and the carry; 5 match
    length and the moving bar. A "net" mark is the taker's game mark minus an opponent's
    (the stake won, or minus the stake paid to each opponent). Only metrics whose columns
    the frame has (and, per contract or rung, holding takes of the frame) are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    k = knobs if isinstance(knobs, Tarot4SaisonsKnobs) else Tarot4SaisonsKnobs()
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"t4s.{key}", title, SECTION, expr, where, kind, **kw), need))

    everything = pl.lit(True)
    if level == "deal":
        seats = range(NP)
        scores = {f"score_s{i}" for i in seats}
        games = {f"game_s{i}" for i in seats}
        taker = pl.col("taker")
        taken = taker >= 0
        made = pl.col("made")
        contract = pl.col("contract").cast(pl.String)
        rung = pl.col("rung").cast(pl.String)
        clear = pl.col("clear")
        taker_game = _seat_value("game", taker)
        opp_game = (sum(pl.col(f"game_s{i}").cast(pl.Float64) for i in seats) - taker_game) / 2
        net = taker_game - opp_game
        bid = {"taker", "made", "contract"}
        counts: dict[str, int] = {}
        if {"taker", "contract"} <= cols:
            counts = dict(lf.filter(taken).group_by(contract.alias("c")).len().collect()
                          .iter_rows())
        # 1. winning bids: share, success and the taker's net game mark per contract
        for c in CONTRACTS:
            if counts.get(c, 0) < 1:
                continue
            sel = taken & (contract == c)
            text = c.replace("_", " ")
            add({"taker", "contract"}, f"q1.share.{c}", f"share of winning bids: {text}",
                contract == c, taken)
            add(bid, f"q1.success.{c}", f"taker success, {text}", made, sel, headline=True,
                note="2+2 and 3 cartes share the simple stake 4 (3 with the option): "
                     "compare their success and net marks" if c == "2+2_simple" else "")
            if counts[c] >= 2:
                add(bid | games, f"q1.net.{c}", f"taker's net game mark, {text}", net, sel,
                    kind="mean", unit="points",
                    note="the taker's game mark minus an opponent's (-stake when failed)")
        # 2. simple against clear
        need2 = {"taker", "clear", "made"}
        add(need2, "q2.clear", "winning bid on the clear ladder (share of takes)",
            clear, taken, headline=True)
        add(need2, "q2.success.simple", "taker success, simple bids", made, taken & ~clear,
            headline=True)
        add(need2, "q2.success.clear", "taker success, clear bids", made, taken & clear,
            headline=True)
        add(need2 | {"taker_points"}, "q2.doubled", f"simple bid made with a clear result "
            f"(>= {k.clear_threshold}: x{k.simple_clear_multiplier})",
            made & (pl.col("taker_points") >= k.clear_threshold), taken & ~clear,
            headline=True)
        add(need2 | games, "q2.net.simple", "taker's net game mark, simple bids", net,
            taken & ~clear, kind="mean", unit="points")
        add(need2 | games, "q2.net.clear", "taker's net game mark, clear bids", net,
            taken & clear, kind="mean", unit="points")
        # counterfactual: the same take (same cards and play) bid simple or clear
        tp = pl.col("taker_points").cast(pl.Float64)
        chien_opp = pl.when(rung == "contre").then(pl.col("chien_points")).otherwise(0)
        opp_pts = [pl.col(f"trick_points_s{(p)}") + chien_opp for p in seats]
        beats = pl.lit(True)
        for p in seats:
            beats = beats & ((taker == p) | (tp > opp_pts[p]))
        reach = tp >= k.clear_threshold
        s_st = _by_rung(_ints(k.stakes_simple, 7, "stakes_simple"))
        c_st = _by_rung(_ints(k.stakes_clear, 7, "stakes_clear"))
        capot = pl.col("capot").fill_null(False)
        cf_simple = (pl.when(capot).then(k.capot_mult * s_st)
                     .when(beats & reach).then(k.simple_clear_multiplier * s_st)
                     .when(beats).then(s_st).otherwise(-s_st))
        cf_clear = (pl.when(capot).then(k.capot_mult * c_st).when(reach).then(c_st)
                    .otherwise(-c_st))
        need_cf = ({"taker", "rung", "taker_points", "chien_points", "capot"}
                   | {f"trick_points_s{p}" for p in seats})
        note_cf = ("counterfactual on every take: the same cards and play scored as the "
                   "simple (resp. clear) bid of the same rung at the knob stakes (no option "
                   "reduction, no contre); unannounced capot x" + str(k.capot_mult))
        add(need_cf, "q2.cf.simple", "net game mark of the simple version of the take",
            cf_simple, taken, kind="mean", unit="points", note=note_cf)
        add(need_cf, "q2.cf.clear", "net game mark of the clear version of the take",
            cf_clear, taken, kind="mean", unit="points", note=note_cf)
        add(need_cf, "q2.clear_pays", "the clear version of the take pays more than the "
            "simple one", cf_clear > cf_simple, taken, headline=True,
            note="> 0 means the clear ladder is sometimes worth bidding; " + note_cf)
        rungs: dict[str, int] = {}
        if {"taker", "rung"} <= cols:
            rungs = dict(lf.filter(taken).group_by(rung.alias("r")).len().collect()
                         .iter_rows())
        for r in RUNGS:
            if rungs.get(r, 0) >= 2:
                add(need_cf, f"q2.cf.gain.{r}", f"clear minus simple counterfactual net "
                    f"mark, takes at rung {r}", cf_clear - cf_simple, taken & (rung == r),
                    kind="mean", unit="points", note="positive: bid this rung clear")
        # 3. seat effect by position from the dealer (dealer + 1 bids and leads first)
        rel = (taker - pl.col("dealer")) % NP
        for j in seats:
            seat = (pl.col("dealer") + j) % NP
            pos = ("the dealer", "the dealer's next (first bidder and leader)",
                   "the dealer's second")[j]
            mark = _seat_value("score", seat)
            others = [_seat_value("score", (pl.col("dealer") + i) % NP) for i in seats
                      if i != j]
            add(scores | {"dealer"}, f"q3.score.pos{j}", f"mark per dealing, {pos}", mark,
                kind="mean", unit="points")
            add(scores | {"dealer"}, f"q3.top.pos{j}", f"marks strictly the most this "
                f"dealing, {pos}", (mark > others[0]) & (mark > others[1]),
                headline=j == 1, note="1/3 each if position did not matter, less the ties")
            add({"taker", "dealer"}, f"q3.take.pos{j}", f"the taker is {pos} (share of "
                "takes)", rel == j, taken)
            add({"taker", "dealer", "made"}, f"q3.success.pos{j}", f"taker success when "
                f"the taker is {pos}", made, taken & (rel == j))
        # 4. redeals: everybody passes, or a hand without trump
        add({"all_pass"}, "q4.all_pass", "dealing where everybody passes", pl.col("all_pass"),
            headline=True, note=f"each seat -{k.allpass_penalty}; the carry bonus is a "
                                "match effect (see t4s.q4.match.*)")
        add({"all_pass", "annulled"}, "q4.all_pass.played", "everybody passes (dealings "
            "not annulled)", pl.col("all_pass"), ~pl.col("annulled"))
        add({"annulled"}, "q4.annulled", "dealing annulled: a hand without trump",
            pl.col("annulled"))
        # 6. bonuses' share of the points marked, and résistance
        total = sum(pl.col(f"score_s{i}").cast(pl.Float64) for i in seats)
        defenders = taken & (pl.col("resistance_s0").is_not_null()
                             | pl.col("resistance_s1").is_not_null()
                             | pl.col("resistance_s2").is_not_null())

        def bit_of(p: int, b: int) -> pl.Expr:
            return ((pl.col(f"contracts_s{p}") // (1 << b)) % 2) == 1

        def settled(achieved: list[pl.Expr], b: int, auto: int, contracted_value: int
                    ) -> pl.Expr:
            """Points of one bonus over the seats (contracted values without contres)."""
            pts = pl.lit(0.0)
            for p in seats:
                con = bit_of(p, b)
                fail_pay = pl.when(taker == p).then(2 * contracted_value).otherwise(
                    contracted_value)
                pts = pts + (pl.when(con & achieved[p]).then(contracted_value)
                             .when(con).then(fail_pay)
                             .when(achieved[p]).then(auto).otherwise(0))
            return pts.cast(pl.Float64)

        pab_seat = pl.col("petit_au_bout_seat")
        pab = settled([pab_seat == p for p in seats], B_PAB, k.pab_auto, k.pab_contract)
        res = settled([pl.col(f"resistance_s{p}").fill_null(False) for p in seats],
                      B_RESIST, k.resistance_auto, k.resistance_contract)
        aces = pl.when(pl.col("four_aces_seat") >= 0).then(float(k.four_aces)).otherwise(0.0)
        suites = sum(pl.col(f"suites_s{i}") for i in seats).cast(pl.Float64) * k.suite_value
        bonus = sum(pl.col(f"bonus_s{i}").cast(pl.Float64) for i in seats)
        contracts = {f"contracts_s{i}" for i in seats} | {"taker"}
        note6 = ("share of all points marked (every seat, every dealing); delta-method "
                 "interval")
        note_nominal = note6 + "; contracted values without any contre on the contract"
        add(scores | {f"bonus_s{i}" for i in seats}, "q6.share.bonus", "bonuses and "
            "contracts' share of the points marked", ratio_of_sums(bonus, total, everything),
            kind="mean", unit="share", headline=True, note=note6)
        add(scores | contracts | {"petit_au_bout_seat"}, "q6.share.petit_au_bout",
            "Petit au bout's share of the points marked", ratio_of_sums(pab, total,
                                                                       everything),
            kind="mean", unit="share", note=note_nominal)
        add(scores | contracts | {f"resistance_s{i}" for i in seats}, "q6.share.resistance",
            "résistance's share of the points marked", ratio_of_sums(res, total, everything),
            kind="mean", unit="share", headline=True, note=note_nominal)
        add(scores | {"four_aces_seat"}, "q6.share.four_aces", "4 As' share of the points "
            "marked", ratio_of_sums(aces, total, everything), kind="mean", unit="share",
            note=note6)
        add(scores | {f"suites_s{i}" for i in seats}, "q6.share.suites", "suites' share of "
            "the points marked", ratio_of_sums(suites, total, everything), kind="mean",
            unit="share", note=note6)
        reached = pl.lit(False)
        for p in seats:
            reached = reached | pl.col(f"resistance_s{p}").fill_null(False)
        add({"taker"} | {f"resistance_s{i}" for i in seats}, "q6.resistance", "a defender "
            f"reaches the résistance ({k.resistance_points} points), per deal taken",
            reached, defenders, headline=True,
            note="does résistance make defending too rewarding? " + COMPARE
                 + ' --b "resistance_auto=0 resistance_contract=0"`')
        taker_mark = _seat_value("score", taker)
        defender_mark = (total - taker_mark) / 2
        add(scores | {"taker"}, "q6.mark.taker", "taker's mark per deal taken", taker_mark,
            taken, kind="mean", unit="points")
        add(scores | {"taker"}, "q6.mark.defender", "a defender's mark per deal taken",
            defender_mark, taken, kind="mean", unit="points")
        add(scores | {"taker"}, "q6.defender_tops", "a defender marks more than the taker "
            "(per deal taken)", pl.any_horizontal([(taker != p) & (pl.col(f"score_s{p}")
                                                                    > taker_mark)
                                                   for p in seats]), taken)
        # 7. the optional chien cards and the refused reductions
        optional = taken & rung.is_in(["2+2", "1+1"])
        used = pl.col("option_used").fill_null(False)
        need7 = {"taker", "rung", "option_used"}
        add(need7, "q7.option", "the taker turns the optional chien cards (2+2 and 1+1 "
            "takes)", used, optional, headline=True)
        for r in ("2+2", "1+1"):
            add(need7, f"q7.option.{r}", f"the taker turns the optional chien cards, {r}",
                used, taken & (rung == r))
        add(need7 | {"option_refused"}, "q7.refused", "an opponent refuses the stake "
            "reduction (share of options used)", pl.col("option_refused").fill_null(False),
            optional & used, headline=True)
        add(need7 | {"made"}, "q7.success.option", "taker success after turning the "
            "optional cards", made, optional & used)
        add(need7 | {"made"}, "q7.success.no_option", "taker success without the optional "
            "cards", made, optional & ~used)
    else:
        nd = pl.col("n_deals")
        # 3. match win rate by position from the first dealer
        for j in range(NP):
            pos = ("first dealer", "first dealer's next (first bidder and leader)",
                   "first dealer's second")[j]
            add({"winner", "first_dealer"}, f"q3.match.win.pos{j}", f"match win rate, {pos}",
                pl.col("winner") == (pl.col("first_dealer") + j) % NP, headline=j == 1,
                note="1/3 each if the first deal's positions did not matter")
        # 4. all pass and the carry bonus
        add({"n_deals", "n_all_pass"}, "q4.match.all_pass", "share of dealings where "
            "everybody passes (pooled over matches)",
            ratio_of_sums(pl.col("n_all_pass"), nd, everything), kind="mean", unit="share",
            headline=True, note="delta-method interval; the carry's effect: " + COMPARE
            + ' --level match --b "allpass_carry_bonus=0"`')
        add({"n_all_pass"}, "q4.match.any_all_pass", "matches with at least one all-pass "
            "dealing", pl.col("n_all_pass") > 0, headline=True)
        # 5. match length and the moving bar
        add({"n_deals"}, "q5.length", f"dealings per match (to {k.target})", nd,
            kind="mean", unit="deals")
        add({"n_bar_moves"}, "q5.bar_moved", "the bar moved up at least once",
            pl.col("n_bar_moves") > 0, headline=True)
        add({"n_bar_moves"}, "q5.bar_moves", "bar moves per match", pl.col("n_bar_moves"),
            kind="mean", unit="moves")
        add({"final_bar"}, "q5.final_bar", "the bar at the end of the match",
            pl.col("final_bar"), kind="mean", unit="points")
        add({"n_deals", "n_taken", "n_made"}, "q1.match.success", "taker success (pooled "
            "over matches)", ratio_of_sums(pl.col("n_made"), pl.col("n_taken"), everything),
            kind="mean", unit="share", note="delta-method interval")
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="tarot_4_saisons",
    title="Tarot 4 saisons",
    description="3-player Tarot on 50 cards (no 3s, no 5-10s): no-trump redeal, misère, "
                "seven-rung simple/clear bidding ladder with chien options, contracts and "
                "automatic bonuses, contres, suites, the Excuse's capture rule and "
                "last-two-tricks penalty; matches to a moving 50-point bar",
    deck=DECK,
    knobs=Tarot4SaisonsKnobs,
    players=lambda k: NP,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="3",
    teams=None,
    extra={"metrics": balance_metrics},
)
