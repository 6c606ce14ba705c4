"""Tarot 4 saisons, 3 players, 50 cards: the rules (seed 000 "Tarot 4 saisons"; catalogue
``tarot_4_saisons.md``; issue "The Tarot family", part 2).

Where things are in the package ``simlab.games.tarot_4_saisons``:

* ``rules.py`` (this file), read top to bottom like the rulebook: deck and tables, knobs,
  result columns, the state of a deal, the deal (no-trump redeal, misère), the auction
  (the seven-rung ladder, simple or clear), the chien and its option, the discards,
  contracts, contres and suites, play (the Excuse's capture rule and its last-two-tricks
  penalty), scoring, the match's moving 50-point bar. Every decision of the game is a
  move: ``to_move`` / ``legal_moves`` / ``apply_move`` over the state, and the batch
  kernels run exactly these functions.
* ``players.py``: the heuristic and random policies, what a seat sees, the world sampler
  and the search player.
* ``kernels.py``: the batch kernels (deals, matches) and the runner's entry points.
* ``questions.py``: the catalogue's balance questions as metrics.

Seats 0..2; the player after the dealer is ``dealer + 1``: he receives the first packet,
speaks first and leads the first trick (dealer = deal index mod 3). The 50 cards fit one
``uint64`` word, so play uses the one-word API of ``simlab.mechanics.tricks`` with the trump suit
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
time; #12 defenders may contract everything but capot. A knob whose default resolves the
seed's text records that text (``seed_value``, shown by ``simlab params``).

Seed over catalogue: "Petit au bout" / "2 avant-dernier" need the Petit (the trump 2)
to *win* the last (penultimate) trick: the seed's nota bene says capturing it there earns
nothing; the catalogue's "win the last trick with the Petit" is read that way. Otherwise
the catalogue matches the seed (no misreading found). Also from the seed: a pass is not
final (knob ``pass_is_final``); the auction ends once all have spoken and two in a row
passed. The chien is private: only the taker sees the cards he turns (catalogue:
"Hands and the chien are private"; #8 "the opponents have seen nothing new").

The écart (seed §5 "Il est interdit de remettre un Roi ou un Bout au chien"; the Excuse
is a bout): knob ``forbid_discard``, default ``kings_bouts``; variants: also no other trump
unless nothing else may go (``kings_bouts_trumps``, the French federation's rule; the
official Tarot seed 001 lets trumps go if shown), only the Kings, only the bouts, nothing.

Faults (section 11): the policies never revoke, never forget a misère and never turn too
many chien cards, so faults are simulated as chances per deal (knobs ``*_per_mille``,
default 0 = none), drawn from the deal's own fault stream (rng purpose ``FAULT``, as Tarot
double détente's), so they never shift the shuffles or the players' decisions:

* a fault of play (not following suit, not overtrumping, an undeclared Misère), per
  player: caught at the end of a random trick; its author loses the current stake +
  ``fault_penalty`` (6) and the deal is annulled;
* a misdeal, per deal: the dealer loses ``misdeal_penalty`` (2); repairable, play goes on;
  not repairable (its own rate), he redeals;
* a chien fault (turning too many cards; impossible on "tout"), per taken deal: the taker
  loses ``chien_fault_penalty`` (3); caught after the exchange (its own rate), he also
  loses his stake (after the option's reduction, before contres) and the deal is annulled.

Resolutions (the seed is silent): a deal annulled by a fault marks nothing but the
penalties (the fault's, a repaired misdeal's, a chien fault's, the Excuse's): its misère
and suites lapse; the same dealer redeals, as after a hand without trump (§4); only one
play fault is caught per deal (the first seat drawn from the dealer's next); "l'enjeu
courant" of a play fault is the game stake after the option and contres.

Not simulated (deviations):

* "anyone may ask to see the last trick": every trick played is public information
  here (the search player uses it; the heuristic does not need it);
* ``removed_ranks`` / ``hand_size`` / ``chien_size`` are not knobs: the 50-card deck
  (``decks.get_deck("50_tarot_4_saisons")``) fixes 3 x 15 + 5;
* the bonus conditions (3 bouts, 4 Rois, 4 As) count the cards won in tricks only, not
  the chien (the chien is scored as card points, per the bid);
* the all-pass carry bonus exists at match level only (deals are independent rows); an
  annulled (no-trump) deal keeps a pending carry;
* a contre on the game adds to the stake before the simple x2 multiplier; a capot cannot be
  contred (seed: "Un capot ne se contre pas"): an announced capot's game is not offered
  to the contre, and an unannounced capot is paid on the stake without the contre;
* heuristic: contracts are chosen from the hand alone and play does not steer toward
  them (most contracted Petit au bout fail); the taker never announces a capot while
  holding the Excuse (it never wins a trick, so a capot is then impossible).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import EXCUSE_SUIT, TRUMP_SUIT, get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    bit,
    cards_of,
    legal_cards,
    lowest,
    make_rules,
    trick_tables,
    update_trick,
)

# --- deck and tables --------------------------------------------------------------
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

# The écart: the cards that may not go back to the chien (knob ``forbid_discard``); with
# ``kings_bouts_trumps`` the other trumps only when no other card may go.
FORBID_DISCARD = {"kings_bouts": KINGS | BOUTS, "kings_bouts_trumps": KINGS | BOUTS,
                  "kings": KINGS, "bouts": BOUTS, "none": EMPTY}
# Faults (section 11), drawn per deal from the rng purpose 3, the fault stream of Tarot
# double détente (``simlab/engine/rng.py``): separate from the shuffles and the decisions.
FAULT = 3
MISDEALS = ("none", "repaired", "redeal")
CHIEN_FAULTS = ("none", "before_exchange", "after_exchange")
NO_FAULT = -1

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


# The kernel tables, fixed by the deck. numba freezes module-level arrays into the compiled
# code as constants, so the per-move functions need not pass them around.
SUIT_OF, SUIT_MASK, EXCUSE_MASK, STRENGTH, POINTS, ABOVE, CHEAP, RICH, WIN_RANK = tables()


# A stake is multiplied (capot x4, contres, options) and summed over a match; this bound
# keeps every score far inside the Int32 result columns.
MAX_STAKE = 1000


def _ints(text: str, n: int, name: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",")]
    except ValueError:
        raise SimlabError(f"knob {name!r} expects {n} comma-separated integers, got "
                          f"{text!r}") from None
    if len(vals) != n or min(vals) < 0 or max(vals) > MAX_STAKE:
        raise SimlabError(f"knob {name!r} expects {n} comma-separated integers from 0 to "
                          f"{MAX_STAKE}, got {text!r}")
    return vals


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class Tarot4SaisonsKnobs(Knobs):
    chien_after_round: int = knob(1, "the dealer puts the 5-card chien aside after the 1st "
                                  "or the 2nd round of 5-card packets (seed: either)",
                                  lo=1, hi=2, seed_value="1 or 2", seed_case="silent",
                                  seed_why="'À la fin du premier ou second tour' leaves the "
                                           "choice open without saying who makes it; "
                                           "either round gives the same chances to every "
                                           "hand")
    excuse_is_trump_for_redeal: bool = knob(
        False, "the Excuse counts as a trump for the no-trump redeal (the seed: 'aucun "
        "Atout', and its deck lists the Excuse apart from the Atouts: no)", seed_value=False)
    no_trump_redeal_points: int = knob(2, "a player dealt no trump marks this; the deal is "
                                       "annulled and the same dealer redeals", lo=0, hi=100)
    misere_points: int = knob(2, "a player dealt no face card (V, C, D, R) marks this on "
                              "declaring a Misère", lo=0, hi=100)
    misere_mandatory: bool = knob(True, "a Misère is always declared (catalogue #2: not "
                                  "declaring is a fault, seed §11); false: a policy "
                                  "decision (heuristic always, random half the time)",
                                  seed_value=False, seed_case="contradicts",
                                  seed_why="§4 says a player 'peut choisir de déclarer une "
                                           "Misère', §11 makes 'ne pas annoncer de Misère "
                                           "alors qu'on en a une' a fault")
    ladder_order: str = knob("simple_first", "auction order: every simple bid below every "
                             "clear bid (catalogue #1), or rung by rung, simple then clear "
                             "(by_rung)", choices=("simple_first", "by_rung"),
                             seed_value="a 'force croissante' column between the simple "
                                        "and clear stakes", seed_case="unplayable",
                             seed_why="the bid table's 'force croissante' column, which would "
                                      "order simple and clear bids, lost its values in the "
                                      "text")
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
                                    "(catalogue #6); false: it is added to it",
                                    seed_value="bonus 'enjeu × 4' (§6); 'il marque alors "
                                               "le quadruple' (§12)", seed_case="contradicts",
                                    seed_why="§6 lists the capot as a bonus beside the game, "
                                             "§12 says the taker 'marque alors le quadruple' "
                                             "of the stake instead")
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
                                     "together (catalogue #4: each defender alone)",
                                     seed_value=True, seed_case="silent",
                                     seed_why="'62 points ou plus en défense' does not say "
                                              "whether one defender's points or both; each "
                                              "plays for himself, so the catalogue (#4) "
                                              "counts each alone")
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
    forbid_discard: str = knob("kings_bouts", "cards the taker may not put in the écart: "
                               "Rois and bouts (seed), also the other trumps unless nothing "
                               "else may go (kings_bouts_trumps), Rois only, bouts only, or "
                               "none", choices=tuple(FORBID_DISCARD))
    # faults (section 11): humans only, so chances per deal; 0 = never
    fault_per_mille: int = knob(0, "per player and deal played, chance (in 1/1000) of a "
                                "fault of play (revoke, not overtrumping, an undeclared "
                                "Misère), caught at the end of a random trick: its author "
                                "loses the stake + fault_penalty, the deal is annulled",
                                lo=0, hi=1000)
    fault_penalty: int = knob(6, "fault of play: lost on top of the current stake", lo=0,
                              hi=100)
    misdeal_per_mille: int = knob(0, "per deal, chance (in 1/1000) of a repairable misdeal: "
                                  "the dealer loses misdeal_penalty, play goes on", lo=0,
                                  hi=1000)
    misdeal_redeal_per_mille: int = knob(0, "per deal, chance (in 1/1000) of a misdeal that "
                                         "cannot be repaired: the dealer loses "
                                         "misdeal_penalty and redeals", lo=0, hi=1000)
    misdeal_penalty: int = knob(2, "misdeal: the dealer loses this", lo=0, hi=100)
    chien_fault_per_mille: int = knob(0, "per deal taken (not 'tout'), chance (in 1/1000) "
                                      "that the taker turns too many chien cards, caught "
                                      "before the exchange: he loses chien_fault_penalty",
                                      lo=0, hi=1000)
    chien_fault_exchanged_per_mille: int = knob(0, "the same, caught after the exchange: "
                                                "he also loses his stake and the deal is "
                                                "annulled", lo=0, hi=1000)
    chien_fault_penalty: int = knob(3, "chien fault: the taker loses this", lo=0, hi=100)
    # heuristic policy
    bid_base: int = knob(20, "heuristic: hand value for 'tout' simple (value: 10 per bout, "
                         "4 per saison, 1.5 per trump, 6 per Roi, 3 per Dame, 2 per void "
                         "with >= 5 trumps, 1 per singleton)", lo=0, hi=500, policy=True)
    bid_step: int = knob(8, "heuristic: extra value per higher rung", lo=0, hi=500,
                         policy=True)
    bid_clear_extra: int = knob(4, "heuristic: extra value to bid the clear version of a "
                                "rung", lo=0, hi=500, policy=True)
    pass_below: int = knob(30, "heuristic: pass a hand valued below this, whatever "
                           "'tout' simple would need (bid_base): all pass in about 2.4 "
                           "deals in 10,000, as with the search player (1 in 4,000 at 24 "
                           "worlds), for 0.004 points a deal; 0: never pass a hand "
                           "bid_base affords", lo=0, hi=500, policy=True)
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
    resistance_contract_at: int = knob(45, "heuristic: a defender contracts résistance "
                                       "when his value reaches this", lo=0, hi=500,
                                       policy=True)
    capot_announce_at: int = knob(75, "heuristic: the taker announces a capot when his "
                                  "value after the chien reaches this", lo=0, hi=1000,
                                  policy=True)
    capot_likely_margin: int = knob(
        -15, "heuristic: the taker also announces a capot when the odds that his hand takes "
        "every trick (players.capot_odds: the hidden cards dealt at random, trumps then "
        "each suit led from the top) exceed the break-even of the capot multiples "
        "(announced a, unannounced u: a / (2a - u), 2/3 with the defaults) by this many "
        "points (101: never, the former play). -15 (issue 32; was 0): the odds are "
        "cautious, strong hands announced between -15 and 0 were made 79 of 105 (75 %, "
        "above 2/3; seeds 2 and 3), between -30 and -15 20 of 36 (56 %, below)",
        lo=-100, hi=101, policy=True)
    quasi_likely_margin: int = knob(
        0, "heuristic: the taker holding the Excuse (it never wins a trick: no capot, at "
        "most every trick but one) contracts quasi when the odds that his other cards take "
        "every other trick (players.capot_odds without the Excuse) exceed the break-even "
        "of the quasi values (contracted c, uncontracted u, failed: each opponent marks c: "
        "c / (2c - u), 2/3 with the defaults) by this many points (101: never, the former "
        "play)", lo=-100, hi=101, policy=True)
    keep_contract_card: bool = knob(True, "heuristic: a seat that contracted Petit au bout "
                                    "(2 avant-dernier) keeps the Petit (the 2) for the last "
                                    "(penultimate) trick and plays the 2 there; false: plays "
                                    "them like any card (before issue 10: PAB made 11 %, "
                                    "2 avant-dernier never)", policy=True)
    # 68 (was 60): simlab tune, scores relative to the table, then +0.094 [+0.073, +0.115]
    # points a deal against 60 on other deals (20,000, seed 99)
    draw_trumps_pct: int = knob(68, "heuristic: the taker leads trumps while holding at "
                                "least this % of the unseen trumps", lo=0, hi=1000,
                                policy=True)
    win_min_points: int = knob(5, "heuristic: before the last seat, win a trick only when "
                               "it holds at least this many points", lo=0, hi=200,
                               policy=True)
    excuse_save_points: int = knob(6, "heuristic: losing a trick while holding a 2 or 4 in "
                                   "his tricks, play the Excuse rather than a card worth "
                                   "this much", lo=0, hi=20, policy=True)
    # search player (players.py): one world costs about one heuristic deal per legal move.
    # 24 worlds (was 8): measured against the heuristic relative to the table (simlab.players.duel,
    # 600 deals, seed 3): 8 worlds -0.06 [-0.29, +0.17] (1,500 deals), 16 worlds +1.30
    # [+0.93, +1.66], 24 worlds +2.19 [+1.85, +2.52]: a bid chosen among 15 on a few
    # noisy worlds overbids, or passes a strong hand
    search_worlds: int = search.worlds_knob(24)
    search_rollouts: int = search.rollouts_knob(1)
    # "margin" by default: scoring is not zero-sum (a failed bid costs the taker nothing
    # but pays each opponent the stake), so maximizing its own mark makes the search bid
    # recklessly and lose the race to the bar (measured: see the players.py docstring)
    search_objective: str = knob("margin", "search player: what a playout is worth to the "
                                 "seat: its mark this deal minus the mean of the two others' "
                                 "(margin: the match is a race to the bar) or its own mark "
                                 "alone (own)", choices=("margin", "own"), policy=True)

    def check(self) -> None:
        _ints(self.stakes_simple, 7, "stakes_simple")
        _ints(self.stakes_clear, 7, "stakes_clear")
        for a, b in (("misdeal_per_mille", "misdeal_redeal_per_mille"),
                     ("chien_fault_per_mille", "chien_fault_exchanged_per_mille")):
            if getattr(self, a) + getattr(self, b) > 1000:
                raise SimlabError(f"knobs {a!r} + {b!r} exceed 1000 per mille; allowed: a "
                                  "sum from 0 to 1000")


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
K_WORLDS = K_STAKE + 14
K_ROLLOUTS = K_WORLDS + 1
K_MARGIN = K_ROLLOUTS + 1
(K_FORBID, K_TRUMPS_LAST, K_FAULT, K_FAULT_PEN, K_MISDEAL, K_MISDEAL_REDEAL, K_MISDEAL_PEN,
 K_CHIEN_FAULT, K_CHIEN_FAULT_X, K_CHIEN_FAULT_PEN) = range(K_MARGIN + 1, K_MARGIN + 11)
K_KEEP_CONTRACT_CARD = K_CHIEN_FAULT_PEN + 1
K_CAPOT_LIKELY = K_KEEP_CONTRACT_CARD + 1
K_PASS_BELOW = K_CAPOT_LIKELY + 1
K_QUASI_LIKELY = K_PASS_BELOW + 1
N_K = K_QUASI_LIKELY + 1


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
    v[K_WORLDS] = k.search_worlds
    v[K_ROLLOUTS] = k.search_rollouts
    v[K_MARGIN] = k.search_objective == "margin"
    v[K_FORBID] = np.int64(FORBID_DISCARD[k.forbid_discard])  # a card mask (50 bits)
    v[K_TRUMPS_LAST] = k.forbid_discard == "kings_bouts_trumps"
    v[K_FAULT:K_CHIEN_FAULT_PEN + 1] = [k.fault_per_mille, k.fault_penalty, k.misdeal_per_mille,
                      k.misdeal_redeal_per_mille, k.misdeal_penalty, k.chien_fault_per_mille,
                      k.chien_fault_exchanged_per_mille, k.chien_fault_penalty]
    v[K_KEEP_CONTRACT_CARD] = k.keep_contract_card
    v[K_CAPOT_LIKELY] = k.capot_likely_margin
    v[K_PASS_BELOW] = k.pass_below
    v[K_QUASI_LIKELY] = k.quasi_likely_margin
    return v


def _rules(k: Tarot4SaisonsKnobs) -> np.ndarray:
    """The obligations of play as ``simlab.mechanics.tricks`` rule flags."""
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
     Column("annulled", BOOL, help="a player was dealt no trump (he marks the no-trump "
                                   "points), or a fault (fault columns) annulled the deal: "
                                   "the same dealer redeals")]
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
    + [Column("misdeal", MISDEALS, help="the dealer misdealt (he loses misdeal_penalty): "
                                        "repaired, play went on; or he redeals (annulled)"),
       Column("fault_seat", help="seat whose fault of play annulled the deal (it loses the "
                                 "stake + fault_penalty), else -1"),
       Column("fault_trick", help="tricks complete when that fault was caught, else -1"),
       Column("chien_fault", CHIEN_FAULTS, help="the taker turned too many chien cards "
                                                "(he loses chien_fault_penalty), caught "
                                                "before the exchange, or after it (he also "
                                                "loses his stake; annulled)")]
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
C_MISDEAL = _IDX["misdeal"]
C_FAULT_SEAT = _IDX["fault_seat"]
C_FAULT_TRICK = _IDX["fault_trick"]
C_CHIEN_FAULT = _IDX["chien_fault"]
# columns that are -1 (null) unless set
_MINUS_ONE = np.array(
    [C_TAKER, C_CONTRACT, C_MADE, C_NOTRUMP, C_RUNG, C_CLEAR, C_OPT, C_REFUSED, C_GCONTRE,
     C_CAPOT, C_CAPOT_ANN, C_PAB, C_TWO, C_3B, C_4K, C_4A, C_QUASI, C_EXC_SEAT, C_EXC_KEPT,
     C_EXC_PEN, C_RESIST, C_RESIST + 1, C_RESIST + 2, C_FAULT_SEAT, C_FAULT_TRICK],
    dtype=np.int64)

_MATCH_COLS: list[Column] = (
    [Column("match"), Column("first_dealer"),
     Column("winner", help="the only seat past the (moving) bar; -1 if capped"),
     Column("n_deals", help="deals dealt, annulled and all-pass ones included")]
    + [Column(f"final_score_s{i}") for i in range(NP)]
    + [Column("final_bar", help="the bar when the match ended"),
       Column("n_bar_moves", help="how many times the bar moved up"),
       Column("n_annulled", help="deals annulled: a hand without trump, or a fault"),
       Column("n_all_pass"), Column("n_taken"), Column("n_made"),
       Column("capped", BOOL)]
)
N_MATCH_COLS = len(_MATCH_COLS)


def deal_columns(_: Tarot4SaisonsKnobs | None = None) -> list[Column]:
    return list(_DEAL_COLS)


def match_columns(_: Tarot4SaisonsKnobs | None = None) -> list[Column]:
    return list(_MATCH_COLS)




# --- the state of a deal ------------------------------------------------------------------
# A deal in progress is two vectors: ``st`` (int64: phase, counters, the chien as dealt,
# the cards played in order, and the deal's result row, filled as the deal goes) and
# ``cs`` (uint64 card sets: hands, cards won, cards played, declared suite cards, the
# current trick, the discards). Every decision is a move made by the seat
# ``to_move(st)``; ``apply_move`` also runs the automatic steps that follow it (turning
# the chien, scoring...), so a deal is ``start_deal``, then moves until ``PH_END``.
PH_MISERE, PH_BID, PH_OPTION, PH_REFUSE, PH_DISCARD, PH_CONTRACT, PH_CONTRE, PH_SUITE, \
    PH_CAPOT_LEAD, PH_PLAY, PH_END = range(11)
PHASES = ("misere", "bid", "option", "refuse", "discard", "contract", "contre", "suite",
          "capot_lead", "play", "end")
(S_PHASE, S_DEALER, S_TAKER, S_POS, S_RUNG, S_CLEAR, S_STAKE, S_PLY,
 S_MSEAT,                       # misère: next seat to consider
 S_K, S_PASSES, S_PASSED,       # auction: speakers so far, passes in a row, seats passed
 S_TAKE, S_OPTQ, S_DLEFT,       # chien cards in the taker's hand; refusing opponent 1..2;
                                # discards still to make
 S_CSEAT, S_CBIT,               # contracts: k-th seat from the dealer's next, contract bit
 S_XK, S_XQ, S_XB, S_NCONTRES,  # contres: contring seat (k), contred seat, item
 S_SSEAT, S_SSUIT,              # suites: seat, suit
 S_TRICK, S_LEADER, S_NTRICK, S_LED, S_WIN, S_WINSEAT, S_ONTABLE, S_TEXC, S_TVOIDS,
 ) = range(32)
S_TRICKS = 32   # + seat: tricks won
S_XBITS = 35    # + seat: the seat's contred items (a bit per contract; bit 6 = the game)
S_CHIEN = 38    # + j: the chien's cards as dealt, top first (taken from the top)
S_LEAD0 = 43    # the first trick's leader
S_HIST = 44     # + i: the i-th card played (the seats follow from the leaders)
S_FORBID = S_HIST + 45  # the écart rule (public): cards never discarded, as a mask
S_TRUMPS_LAST = S_FORBID + 1  # ... and the other trumps only when nothing else may go
S_FAULT_SEAT = S_FORBID + 2   # a fault of play to come (drawn): its author, or NO_FAULT
S_FAULT_TRICK = S_FORBID + 3  # ... caught when this many tricks are complete (1..15)
S_CHIEN_FAULT = S_FORBID + 4  # a chien fault to come: index into CHIEN_FAULTS
S_ROW = S_FORBID + 5  # + column: the deal's result row (the columns above), filled as it goes
(M_HAND, M_WON, M_PLAYED, M_KNOWN) = (0, 3, 6, 9)  # + seat, card sets
M_GONE, M_TM, M_DISC = 12, 13, 14  # cards played; on the current trick; the discards
N_M = 15
# M_KNOWN + seat: cards known to be in its hand (declared suites, public).
GAME_BIT = 6  # contre item: the taker's game


def state_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Fresh (st, cs) vectors of one deal."""
    return np.zeros(S_ROW + N_DEAL_COLS, dtype=np.int64), np.zeros(N_M, dtype=np.uint64)


@hot
def copy_state(st: np.ndarray, cs: np.ndarray, to_st: np.ndarray, to_cs: np.ndarray) -> None:
    for i in range(st.shape[0]):
        to_st[i] = st[i]
    for i in range(N_M):
        to_cs[i] = cs[i]


@hot_inline
def to_move(st: np.ndarray) -> int:
    """The seat whose decision it is (-1 once the deal is over)."""
    ph = st[S_PHASE]
    if ph == PH_PLAY:
        return (st[S_LEADER] + st[S_NTRICK]) % NP
    if ph == PH_CONTRACT:
        return (st[S_DEALER] + 1 + st[S_CSEAT]) % NP
    if ph == PH_BID:
        return (st[S_DEALER] + 1 + st[S_K]) % NP
    if ph == PH_OPTION or ph == PH_DISCARD or ph == PH_CAPOT_LEAD:
        return st[S_TAKER]
    if ph == PH_REFUSE:
        return (st[S_TAKER] + st[S_OPTQ]) % NP
    if ph == PH_CONTRE:
        return (st[S_DEALER] + 1 + st[S_XK]) % NP
    if ph == PH_SUITE:
        return st[S_SSEAT]
    if ph == PH_MISERE:
        return st[S_MSEAT]
    return -1


@hot
def is_over(st: np.ndarray) -> bool:
    return st[S_PHASE] == PH_END


@hot
def outcome(st: np.ndarray, seat: int) -> int:
    """What ``seat`` marks on this deal (the deal must be over)."""
    return st[S_ROW + C_SCORE + seat]


# --- the deal ---------------------------------------------------------------------------------
@hot
def start_deal(st: np.ndarray, cs: np.ndarray, deck: np.ndarray, dealer: int,
               order: np.ndarray, kv: np.ndarray, dealt: np.ndarray) -> None:
    """Deal a shuffled ``deck`` without fault (``start_deal_faults``)."""
    start_deal_faults(st, cs, deck, dealer, order, kv, dealt, 0, NO_FAULT, NO_FAULT, 0)


@hot
def draw_faults(fstate: np.uint64, dealer: int, kv: np.ndarray) -> tuple[int, int, int, int]:
    """The deal's faults (humans only), from its fault stream ``fstate``: (misdeal: index
    into MISDEALS, seat of a fault of play or NO_FAULT, the tricks complete when it is
    caught (1..15) or NO_FAULT, chien fault: index into CHIEN_FAULTS). Every draw is made
    whatever the rates (none when they are all 0), so a variant changing one rate keeps
    the other faults where they were."""
    misdeal = 0
    fault_seat = NO_FAULT
    fault_trick = NO_FAULT
    chien = 0
    if kv[K_FAULT] + kv[K_MISDEAL] + kv[K_MISDEAL_REDEAL] + kv[K_CHIEN_FAULT] \
            + kv[K_CHIEN_FAULT_X] == 0:
        return misdeal, fault_seat, fault_trick, chien
    fstate, x = rng.below(fstate, 1000)
    if x < kv[K_MISDEAL]:
        misdeal = 1
    elif x < kv[K_MISDEAL] + kv[K_MISDEAL_REDEAL]:
        misdeal = 2
    for k in range(NP):  # the first seat drawn from the dealer's next
        p = (dealer + 1 + k) % NP
        fstate, x = rng.below(fstate, 1000)
        if x < kv[K_FAULT] and fault_seat == NO_FAULT:
            fault_seat = p
    fstate, t = rng.below(fstate, HAND)
    if fault_seat != NO_FAULT:
        fault_trick = t + 1  # committed in trick t, caught once it is complete
    fstate, x = rng.below(fstate, 1000)
    if x < kv[K_CHIEN_FAULT]:
        chien = 1
    elif x < kv[K_CHIEN_FAULT] + kv[K_CHIEN_FAULT_X]:
        chien = 2
    return misdeal, fault_seat, fault_trick, chien


@hot
def start_deal_faults(st: np.ndarray, cs: np.ndarray, deck: np.ndarray, dealer: int,
                      order: np.ndarray, kv: np.ndarray, dealt: np.ndarray, misdeal: int,
                      fault_seat: int, fault_trick: int, chien_fault: int) -> None:
    """Deal a shuffled ``deck``: 3 rounds of 5-card packets from the dealer's next, the
    chien after round ``chien_after_round`` (``order``); ``dealt`` [3, 15] gets each
    seat's cards. A misdeal (``draw_faults``) costs the dealer ``misdeal_penalty``; one
    that cannot be repaired annuls the deal (he redeals). A hand without trump annuls the
    deal (its player marks the no-trump points, the same dealer redeals). Then the Misère
    (no face card) and the auction. A fault of play or a chien fault to come is kept in
    the state until it is caught."""
    for i in range(S_HIST):  # the play history is written before it is read
        st[i] = 0
    for i in range(S_ROW, st.shape[0]):
        st[i] = 0
    for i in range(N_M):
        cs[i] = EMPTY
    for j in range(_MINUS_ONE.shape[0]):
        st[S_ROW + _MINUS_ONE[j]] = -1
    st[S_DEALER] = dealer
    st[S_ROW + C_DEALER] = dealer
    st[S_TAKER] = -1
    st[S_POS] = -1
    st[S_FORBID] = kv[K_FORBID]
    st[S_TRUMPS_LAST] = kv[K_TRUMPS_LAST]
    st[S_FAULT_SEAT] = fault_seat
    st[S_FAULT_TRICK] = fault_trick
    st[S_CHIEN_FAULT] = chien_fault
    n_ch = 0
    for i in range(N_CARDS):
        r = order[i]
        c = deck[i]
        if r == 3:
            st[S_CHIEN + n_ch] = c
            st[S_ROW + C_CHIEN + n_ch] = c
            n_ch += 1
        else:
            p = (dealer + 1 + r) % NP
            dealt[p, st[S_TRICKS + p]] = c  # S_TRICKS counts the cards dealt for now
            st[S_TRICKS + p] += 1
            cs[M_HAND + p] |= bit(c)
    for p in range(NP):
        st[S_TRICKS + p] = 0
    if misdeal > 0:
        st[S_ROW + C_MISDEAL] = misdeal
        st[S_ROW + C_SCORE + dealer] -= kv[K_MISDEAL_PEN]
        if misdeal == 2:  # "sinon il redonne"
            st[S_ROW + C_ANNULLED] = 1
            st[S_PHASE] = PH_END
            return
    # No trump: the player marks the points, the deal is annulled (same dealer redeals).
    trump_like = TRUMPS | (EXCUSE_B if kv[K_EXC_TRUMP] else EMPTY)
    for k in range(NP):
        p = (dealer + 1 + k) % NP
        if cs[M_HAND + p] & trump_like == EMPTY:
            st[S_ROW + C_SCORE + p] += kv[K_NT_PTS]
            if st[S_ROW + C_NOTRUMP] < 0:
                st[S_ROW + C_NOTRUMP] = p
    if st[S_ROW + C_NOTRUMP] >= 0:
        st[S_ROW + C_ANNULLED] = 1
        st[S_PHASE] = PH_END
        return
    # Misère: a hand without face card (V, C, D, R) marks the points on declaring it; when
    # it is mandatory there is no decision.
    if kv[K_MISERE_MAND]:
        for p in range(NP):
            if cs[M_HAND + p] & FACES == EMPTY:
                _declare_misere(st, p, kv)
    st[S_PHASE] = PH_MISERE
    st[S_MSEAT] = 0
    _next_misere(st, cs, kv)


@hot
def _declare_misere(st: np.ndarray, p: int, kv: np.ndarray) -> None:
    st[S_ROW + C_MISERE + p] = 1
    st[S_ROW + C_SCORE + p] += kv[K_MISERE]


@hot
def _next_misere(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """Next seat (0, 1, 2) that may declare a Misère, else the auction."""
    if not kv[K_MISERE_MAND]:
        while st[S_MSEAT] < NP and cs[M_HAND + st[S_MSEAT]] & FACES != EMPTY:
            st[S_MSEAT] += 1
        if st[S_MSEAT] < NP:
            return
    st[S_PHASE] = PH_BID
    _next_bidder(st, cs, kv)


# --- auction ------------------------------------------------------------------------------------
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
def stake_of(rung: int, clear: int, kv: np.ndarray) -> int:
    return kv[K_STAKE + 7 * clear + rung]


PASS = -1  # the auction move "pass"; a bid is its ladder place 0..13


@hot
def may_bid(st: np.ndarray, kv: np.ndarray) -> bool:
    """Whether the seat to speak may bid: a place above the last bid exists and (knob
    ``pass_is_final``) it has not passed before."""
    p = (st[S_DEALER] + 1 + st[S_K]) % NP
    return st[S_POS] < 13 and not (kv[K_PASS_FINAL] and (st[S_PASSED] >> p) & 1)


@hot
def _bid(st: np.ndarray, pos: int) -> None:
    p = (st[S_DEALER] + 1 + st[S_K]) % NP
    st[S_K] += 1
    if pos >= 0:
        st[S_POS] = pos
        st[S_TAKER] = p
        st[S_PASSES] = 0
    else:
        st[S_PASSES] += 1
        st[S_PASSED] |= 1 << p


@hot
def _next_bidder(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """From the dealer's next, each bid strictly above the last, until everyone has spoken
    and two players in a row have passed. A seat that may not bid passes without a
    decision. Then the chien (or, when all pass, everybody loses ``allpass_penalty``)."""
    while not (st[S_K] >= NP and st[S_PASSES] >= 2):
        if may_bid(st, kv):
            return
        _bid(st, PASS)
    if st[S_TAKER] < 0:
        st[S_ROW + C_ALLPASS] = 1
        for p in range(NP):
            st[S_ROW + C_SCORE + p] -= kv[K_AP_PEN]
        st[S_PHASE] = PH_END
        return
    rung, clear = bid_of(st[S_POS], kv)
    taker = st[S_TAKER]
    st[S_ROW + C_TAKER] = taker
    st[S_ROW + C_CONTRACT] = 7 * clear + rung
    st[S_ROW + C_RUNG] = rung
    st[S_ROW + C_CLEAR] = clear
    st[S_RUNG] = rung
    st[S_CLEAR] = clear
    st[S_STAKE] = stake_of(rung, clear, kv)
    _take_chien(st, cs, CHIEN_TAKE[rung])
    if CHIEN_OPTION[rung] > 0:
        st[S_PHASE] = PH_OPTION
        return
    _begin_discards(st, cs, kv)


# --- chien ----------------------------------------------------------------------------------------
@hot
def _take_chien(st: np.ndarray, cs: np.ndarray, n: int) -> None:
    """The taker turns the next ``n`` chien cards from the top (he alone sees them) and
    puts them in his hand."""
    for j in range(st[S_TAKE], st[S_TAKE] + n):
        cs[M_HAND + st[S_TAKER]] |= bit(st[S_CHIEN + j])
    st[S_TAKE] += n


@hot
def taken_chien(st: np.ndarray) -> np.uint64:
    """The chien cards the taker has turned (in his hand, or since discarded/played)."""
    m = EMPTY
    for j in range(st[S_TAKE]):
        m |= bit(st[S_CHIEN + j])
    return m


@hot
def _begin_discards(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """The taker discards as many cards as he turned, one move each."""
    st[S_DLEFT] = st[S_TAKE]
    if st[S_TAKE] > 0:
        st[S_PHASE] = PH_DISCARD
    else:
        _begin_contracts(st, cs, kv)


@hot
def discardable(hand: np.uint64, st: np.ndarray) -> np.uint64:
    """The cards of ``hand`` the taker may put back now (he puts back as many as he
    turned): never a forbidden card (seed: no Roi, no bout; knob ``forbid_discard``);
    with ``kings_bouts_trumps``, another trump only when no other card may go."""
    allowed = hand & ~np.uint64(st[S_FORBID])
    if st[S_TRUMPS_LAST] and allowed & ~TRUMPS != EMPTY:
        return allowed & ~TRUMPS
    return allowed


@hot
def final_chien(st: np.ndarray, cs: np.ndarray) -> np.uint64:
    """The chien scored at the end: the cards never turned and the discards."""
    m = cs[M_DISC]
    for j in range(st[S_TAKE], CHIEN):
        m |= bit(st[S_CHIEN + j])
    return m


# --- contracts, contres, suites -----------------------------------------------------------
@hot
def contract_allowed(p: int, b: int, taker: int, kv: np.ndarray) -> bool:
    """Any player may contract; résistance is for the opponents, capot for the taker;
    quasi for the taker only with ``quasi_taker_only``."""
    if b == B_RESIST and p == taker:
        return False
    if b == B_CAPOT and p != taker:
        return False
    if b == B_QUASI and p != taker and kv[K_QUASI_TAKER]:
        return False
    return True


@hot
def annul_for_fault(st: np.ndarray, seat: int, penalty: int, kv: np.ndarray) -> None:
    """A fault annuls the deal: its author loses ``penalty``; the deal's marks lapse
    (misère, suites; resolution) but the penalties already incurred stand (a repaired
    misdeal, a chien fault, the Excuse played too late); the same dealer redeals."""
    for p in range(NP):
        st[S_ROW + C_SCORE + p] = 0
    if st[S_ROW + C_MISDEAL] > 0:
        st[S_ROW + C_SCORE + st[S_DEALER]] -= kv[K_MISDEAL_PEN]
    if st[S_ROW + C_CHIEN_FAULT] == 1:
        st[S_ROW + C_SCORE + st[S_TAKER]] -= kv[K_CHIEN_FAULT_PEN]
    if st[S_ROW + C_EXC_PEN] == 1:
        st[S_ROW + C_SCORE + st[S_ROW + C_EXC_SEAT]] -= kv[K_EXC_PEN]
    st[S_ROW + C_SCORE + seat] -= penalty
    st[S_ROW + C_ANNULLED] = 1
    st[S_PHASE] = PH_END


@hot
def _begin_contracts(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """Once the exchange is made: a chien fault drawn is caught now (seed §11: turning too
    many cards costs the taker ``chien_fault_penalty``; after the exchange, also his stake,
    and the deal is annulled; on "tout" there is no card more to turn). Then the contracts."""
    taker = st[S_TAKER]
    if st[S_CHIEN_FAULT] > 0 and st[S_RUNG] != TOUT:
        st[S_ROW + C_CHIEN_FAULT] = st[S_CHIEN_FAULT]
        if st[S_CHIEN_FAULT] == 2:
            st[S_ROW + C_STAKE] = st[S_STAKE]
            annul_for_fault(st, taker, kv[K_CHIEN_FAULT_PEN] + st[S_STAKE], kv)
            return
        st[S_ROW + C_SCORE + taker] -= kv[K_CHIEN_FAULT_PEN]
    st[S_PHASE] = PH_CONTRACT
    st[S_CSEAT] = 0
    st[S_CBIT] = 0
    _next_contract(st, cs, kv)


@hot
def _next_contract(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """Seats in turn from the dealer's next, each contract in order (bit 0..5)."""
    k, b = st[S_CSEAT], st[S_CBIT]
    while k < NP:
        p = (st[S_DEALER] + 1 + k) % NP
        while b < 6:
            if contract_allowed(p, b, st[S_TAKER], kv):
                st[S_CSEAT], st[S_CBIT] = k, b
                return
            b += 1
        k += 1
        b = 0
    taker = st[S_TAKER]
    st[S_ROW + C_CAPOT_ANN] = (st[S_ROW + C_CONTRACTS + taker] >> B_CAPOT) & 1
    st[S_PHASE] = PH_CONTRE
    st[S_XK] = 0
    st[S_XQ] = 0
    st[S_XB] = 0
    _next_contre(st, cs, kv)


@hot
def contre_items(st: np.ndarray, q: int) -> int:
    """What may still be contred of seat ``q``: its contracts but a capot, and the game if
    ``q`` is the taker, less what is contred already."""
    items = st[S_ROW + C_CONTRACTS + q] & ~(1 << B_CAPOT)
    # seed: "Un capot ne se contre pas": a game whose capot is announced cannot be contred
    if q == st[S_TAKER] and not (st[S_ROW + C_CONTRACTS + q] >> B_CAPOT) & 1:
        items |= 1 << GAME_BIT
    return items & ~st[S_XBITS + q]


@hot
def _next_contre(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """The opponents may contre the taker's game and contracts, the taker theirs; each
    item once (the first willing player in turn), never a capot. Then the suites."""
    taker = st[S_TAKER]
    k, q, b = st[S_XK], st[S_XQ], st[S_XB]
    while k < NP:
        p = (st[S_DEALER] + 1 + k) % NP
        while q < NP:
            if (p == taker) != (q == taker):
                items = contre_items(st, q)
                while b <= GAME_BIT:
                    if (items >> b) & 1:
                        st[S_XK], st[S_XQ], st[S_XB] = k, q, b
                        return
                    b += 1
            q += 1
            b = 0
        k += 1
        q = 0
    game_contred = (st[S_XBITS + taker] >> GAME_BIT) & 1
    st[S_ROW + C_NCONTRES] = st[S_NCONTRES]
    st[S_ROW + C_GCONTRE] = game_contred
    if game_contred:
        st[S_STAKE] += kv[K_CONTRE]
    st[S_ROW + C_STAKE] = st[S_STAKE]
    st[S_PHASE] = PH_SUITE
    st[S_SSEAT] = 0
    st[S_SSUIT] = 0
    _next_suite(st, cs)


@hot
def _next_suite(st: np.ndarray, cs: np.ndarray) -> None:
    """A suite (V, C, D, R of one suit) may be declared before play, seat 0..2, suit 0..3.
    Then play (an announced capot's taker may choose to lead)."""
    p, su = st[S_SSEAT], st[S_SSUIT]
    while p < NP:
        h = cs[M_HAND + p]
        while su < 4:
            if (h >> np.uint64(7 * su)) & SUITE_BITS == SUITE_BITS:
                st[S_SSEAT], st[S_SSUIT] = p, su
                return
            su += 1
        p += 1
        su = 0
    st[S_PHASE] = PH_PLAY
    st[S_LEADER] = (st[S_DEALER] + 1) % NP
    st[S_LEAD0] = st[S_LEADER]
    st[S_LED] = -1
    st[S_WIN] = -1
    st[S_WINSEAT] = -1
    st[S_TEXC] = -1
    if st[S_ROW + C_CAPOT_ANN] == 1:
        st[S_PHASE] = PH_CAPOT_LEAD


# --- play ---------------------------------------------------------------------------------------
@hot_inline
def legal_mask(st: np.ndarray, cs: np.ndarray, rules: np.ndarray) -> np.uint64:
    """Cards the seat to play may play: follow suit; void, trump, overtrumping any trump on
    the trick if able (else, knob ``must_undertrump``, a lower trump); a trump lead must be
    raised if able; no trump: anything; the Excuse at any time (catalogue #11)."""
    p = (st[S_LEADER] + st[S_NTRICK]) % NP
    return legal_cards(cs[M_HAND + p], st[S_LED], st[S_WIN], False, TRUMP_SUIT, SUIT_OF,
                       SUIT_MASK, EXCUSE_MASK, ABOVE, rules)


@hot
def play_reveals(c: int, led: int, win: int, kv: np.ndarray) -> np.uint64:
    """The cards a player cannot hold, as everybody learns from his playing ``c`` (not the
    Excuse) on a trick led in ``led`` and won so far by ``win``, by the obligations of
    ``legal_mask``: not following reveals a void; then a plain card reveals no trump (or,
    without ``must_undertrump``, none above the trick's trump), a trump below the trick's
    trump reveals none above it; so does a low trump on a trump lead."""
    if led < 0:
        return EMPTY
    trump_on = SUIT_OF[win] == TRUMP_SUIT
    s = SUIT_OF[c]
    if s == led:
        if led == TRUMP_SUIT and (ABOVE[win] >> np.uint64(c)) & ONE == EMPTY:
            return ABOVE[win]
        return EMPTY
    cant = SUIT_MASK[led]
    if s == TRUMP_SUIT:
        if trump_on and (ABOVE[win] >> np.uint64(c)) & ONE == EMPTY:
            cant |= ABOVE[win]
    elif trump_on and not kv[K_UNDERTRUMP]:
        cant |= ABOVE[win]
    else:
        cant |= TRUMPS
    return cant


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


@hot_inline
def _play_card(st: np.ndarray, cs: np.ndarray, c: int, kv: np.ndarray) -> None:
    """The seat to play plays ``c``. The Excuse in the last ``excuse_last_tricks`` tricks
    costs its player ``excuse_penalty``. A complete trick goes to its winner (the Excuse's
    capture rule applies); a fault of play drawn for this trick annuls the deal
    (``annul_for_fault``); the Petit (the 2) winning the last (penultimate) trick is noted;
    after the 15th trick the deal is scored."""
    # (everything is read first and written last: stores into the state arrays would
    # otherwise force the compiler to read the other slots again)
    leader = st[S_LEADER]
    n = st[S_NTRICK]
    trick = st[S_TRICK]
    led = st[S_LED]
    p = (leader + n) % NP
    b = bit(c)
    tm = cs[M_TM] | b
    hand = cs[M_HAND + p] & ~b
    played = cs[M_PLAYED + p] | b
    gone = cs[M_GONE] | b
    if c == EXCUSE:
        st[S_TEXC] = p
        st[S_ROW + C_EXC_SEAT] = p
        pen = HAND - trick <= kv[K_EXC_LAST]
        st[S_ROW + C_EXC_PEN] = pen
        if pen:
            st[S_ROW + C_SCORE + p] -= kv[K_EXC_PEN]
    elif led >= 0 and led < 4 and SUIT_OF[c] != led and p == st[S_TAKER]:
        st[S_TVOIDS] |= 1 << led
    led, win, win_seat = update_trick(c, p, led, st[S_WIN], st[S_WINSEAT], TRUMP_SUIT, SUIT_OF,
                                      ABOVE)
    st[S_HIST + trick * NP + n] = c
    cs[M_HAND + p] = hand
    cs[M_PLAYED + p] = played
    cs[M_GONE] = gone
    if n + 1 < NP:
        st[S_ONTABLE] += POINTS[c]
        st[S_LED] = led
        st[S_WIN] = win
        st[S_WINSEAT] = win_seat
        st[S_NTRICK] = n + 1
        cs[M_TM] = tm
        return
    # The trick is complete: to its winner, who leads the next.
    st[S_TRICKS + win_seat] += 1
    cs[M_WON + win_seat] |= tm
    if st[S_TEXC] >= 0:
        _, x = excuse_capture(st[S_TEXC], win_seat, cs, M_WON)
        st[S_ROW + C_EXC_KEPT] = x >= 0
    if trick + 1 == st[S_FAULT_TRICK]:  # a fault of play is caught: the deal is annulled
        st[S_ROW + C_FAULT_SEAT] = st[S_FAULT_SEAT]
        st[S_ROW + C_FAULT_TRICK] = trick + 1
        annul_for_fault(st, st[S_FAULT_SEAT], st[S_STAKE] + kv[K_FAULT_PEN], kv)
        return
    if trick == HAND - 1 and win == PETIT:
        st[S_ROW + C_PAB] = win_seat
    if trick == HAND - 2 and win == T2:
        st[S_ROW + C_TWO] = win_seat
    st[S_TRICK] = trick + 1
    st[S_LEADER] = win_seat
    st[S_NTRICK] = 0
    st[S_LED] = -1
    st[S_WIN] = -1
    st[S_WINSEAT] = -1
    st[S_ONTABLE] = 0
    st[S_TEXC] = -1
    cs[M_TM] = EMPTY
    if trick + 1 == HAND:
        score_deal(st, cs, kv)
        st[S_PHASE] = PH_END


# --- moves --------------------------------------------------------------------------------------
MAX_MOVES = 32  # the most legal moves of any decision (15 bids, 20 discardable cards)


@hot
def legal_moves(st: np.ndarray, cs: np.ndarray, out: np.ndarray, kv: np.ndarray,
                rules: np.ndarray) -> int:
    """The legal moves of the seat to move, written to ``out``; returns how many. Bids:
    ``PASS`` then every ladder place above the last bid; discards and plays: card ids,
    ascending; every other decision: 0 (no) and 1 (yes): declare a Misère, turn the
    optional chien cards, refuse the stake reduction, take contract ``S_CBIT``, contre
    item ``S_XB`` of seat ``S_XQ``, declare suite ``S_SSUIT``, lead an announced capot."""
    ph = st[S_PHASE]
    if ph == PH_PLAY:
        return cards_of(legal_mask(st, cs, rules), out)
    if ph == PH_BID:
        out[0] = PASS
        n = 1
        for pos in range(st[S_POS] + 1, 14):
            out[n] = pos
            n += 1
        return n
    if ph == PH_DISCARD:
        return cards_of(discardable(cs[M_HAND + st[S_TAKER]], st), out)
    if ph == PH_END:
        return 0
    out[0] = 0
    out[1] = 1
    return 2


@hot_inline
def apply_move(st: np.ndarray, cs: np.ndarray, move: int, kv: np.ndarray) -> None:
    """The seat to move makes ``move`` (one of ``legal_moves``); the automatic steps that
    follow are run up to the next decision or the end of the deal."""
    ph = st[S_PHASE]
    if ph != PH_SUITE and ph != PH_MISERE:
        st[S_PLY] += 1  # public moves only: whether a seat may declare is private
    if ph == PH_PLAY:
        _play_card(st, cs, move, kv)
    elif ph == PH_CONTRACT:
        p = (st[S_DEALER] + 1 + st[S_CSEAT]) % NP
        if move:
            st[S_ROW + C_CONTRACTS + p] |= 1 << st[S_CBIT]
        st[S_CBIT] += 1
        _next_contract(st, cs, kv)
    elif ph == PH_BID:
        _bid(st, move)
        _next_bidder(st, cs, kv)
    elif ph == PH_DISCARD:
        taker = st[S_TAKER]
        cs[M_HAND + taker] &= ~bit(move)
        cs[M_DISC] |= bit(move)
        st[S_DLEFT] -= 1
        if st[S_DLEFT] == 0:
            _begin_contracts(st, cs, kv)
    elif ph == PH_CONTRE:
        if move:
            st[S_XBITS + st[S_XQ]] |= 1 << st[S_XB]
            st[S_NCONTRES] += 1
        st[S_XB] += 1
        _next_contre(st, cs, kv)
    elif ph == PH_SUITE:
        p = st[S_SSEAT]
        if move:
            st[S_ROW + C_SUITES + p] += 1
            st[S_ROW + C_SCORE + p] += kv[K_SUITE]
            cs[M_KNOWN + p] |= SUITE_BITS << np.uint64(7 * st[S_SSUIT])
        st[S_SSUIT] += 1
        _next_suite(st, cs)
    elif ph == PH_CAPOT_LEAD:
        if move:
            st[S_LEADER] = st[S_TAKER]
            st[S_LEAD0] = st[S_TAKER]
        st[S_PHASE] = PH_PLAY
    elif ph == PH_OPTION:
        # The option (2+2, 1+1) turns more chien cards and lowers the stake, unless an
        # opponent refuses (catalogue #8: decided right away, before the discards).
        st[S_ROW + C_OPT] = move
        if move:
            st[S_ROW + C_REFUSED] = 0
            if kv[K_REFUSE_OK]:
                st[S_OPTQ] = 1
                st[S_PHASE] = PH_REFUSE
                return
            _option_taken(st, cs, kv)
        _begin_discards(st, cs, kv)
    elif ph == PH_REFUSE:
        if move:
            st[S_ROW + C_REFUSED] = 1
        st[S_OPTQ] += 1
        if st[S_OPTQ] < NP:
            return
        _option_taken(st, cs, kv)
        _begin_discards(st, cs, kv)
    elif ph == PH_MISERE:
        if move:
            _declare_misere(st, st[S_MSEAT], kv)
        st[S_MSEAT] += 1
        _next_misere(st, cs, kv)


@hot
def _option_taken(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    _take_chien(st, cs, CHIEN_OPTION[st[S_RUNG]])
    if st[S_ROW + C_REFUSED] != 1:
        st[S_STAKE] = max(st[S_STAKE] - kv[K_OPT_RED], 0)


# --- scoring --------------------------------------------------------------------------------------
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
def points_of(m: np.uint64, points: np.ndarray) -> int:
    tp = 0
    while m != EMPTY:
        tp += points[lowest(m)]
        m &= m - ONE
    return tp


@hot
def counted_points(st: np.ndarray, p: int) -> int:
    """A player's counted points: his tricks, plus the final chien per the bid (the taker's
    up to "sans voir", nobody's for "sans points", each opponent's for "contre")."""
    pts = st[S_ROW + C_TPTS + p]
    rung = st[S_RUNG]
    taker = st[S_TAKER]
    if (rung <= SANS_VOIR and p == taker) or (rung == CONTRE and p != taker):
        pts += st[S_ROW + C_CHIEN_PTS]
    return pts


@hot
def score_deal(st: np.ndarray, cs: np.ndarray, kv: np.ndarray) -> None:
    """Score a played deal into the result row: card points, the game (simple or clear,
    capot), bonuses and contracts (contres add ``contre_add``), a failed announced capot."""
    points = POINTS
    row = S_ROW
    taker = st[S_TAKER]
    clear = st[S_CLEAR]
    stake = st[S_STAKE]
    st[row + C_CHIEN_PTS] = points_of(final_chien(st, cs), points)
    for p in range(NP):
        st[row + C_TRICKS + p] = st[S_TRICKS + p]
        st[row + C_TPTS + p] = points_of(cs[M_WON + p], points)
    taker_pts = counted_points(st, taker)
    st[row + C_TAKER_PTS] = taker_pts
    o1 = (taker + 1) % NP
    o2 = (taker + 2) % NP
    capot = st[S_TRICKS + taker] == HAND
    capot_ann = st[row + C_CAPOT_ANN] == 1
    st[row + C_CAPOT] = capot
    cm = 0
    game_stake = stake
    if capot:
        cm = kv[K_CAPOT_ANN] if capot_ann else kv[K_CAPOT]
        # "un capot ne se contre pas": a contre on the game never raises a capot's payment
        game_stake = stake - (kv[K_CONTRE] if st[row + C_GCONTRE] else 0)
    made, mark_t, mark_o = game_result(clear, game_stake, taker_pts, counted_points(st, o1),
                                       counted_points(st, o2), cm, kv)
    st[row + C_MADE] = made
    st[row + C_GAME + taker] = mark_t
    st[row + C_GAME + o1] = mark_o
    st[row + C_GAME + o2] = mark_o
    # Bonuses and contracts: marks into the bonus columns, failures into contracts_failed.
    B = row + C_BONUS
    ca = kv[K_CONTRE]
    for p in range(NP):
        st[B + p] = 0
        st[row + C_CFAILED + p] = 0
    for p in range(NP):
        bits = st[row + C_CONTRACTS + p]
        cbits = st[S_XBITS + p]
        won = cs[M_WON + p]
        failed = 0
        pab = st[row + C_PAB] == p
        failed += settle_bonus(p, taker, (bits >> B_PAB) & 1 == 1, pab, kv[K_PAB_A],
                               kv[K_PAB_C] + ca * ((cbits >> B_PAB) & 1), st, B)
        two = st[row + C_TWO] == p
        failed += settle_bonus(p, taker, (bits >> B_TWO) & 1 == 1, two, kv[K_TWO_A],
                               kv[K_TWO_C] + ca * ((cbits >> B_TWO) & 1), st, B)
        quasi = st[S_TRICKS + p] == HAND - 1 and (p == taker or not kv[K_QUASI_TAKER])
        if quasi:
            st[row + C_QUASI] = p
        failed += settle_bonus(p, taker, (bits >> B_QUASI) & 1 == 1, quasi, kv[K_QUASI_A],
                               kv[K_QUASI_C] + ca * ((cbits >> B_QUASI) & 1), st, B)
        kings = won & KINGS == KINGS
        if kings:
            st[row + C_4K] = p
        failed += settle_bonus(p, taker, (bits >> B_KINGS) & 1 == 1, kings, 0,
                               kv[K_KINGS_C] + ca * ((cbits >> B_KINGS) & 1), st, B)
        if won & BOUTS == BOUTS:
            st[row + C_3B] = p
            st[B + p] += kv[K_3B]
        if won & ACES == ACES:
            st[row + C_4A] = p
            st[B + p] += kv[K_ACES]
        if p != taker:
            res = counted_points(st, p) >= kv[K_RES_PTS]
            if kv[K_RES_COMBINED]:
                res = counted_points(st, o1) + counted_points(st, o2) >= kv[K_RES_PTS]
            st[row + C_RESIST + p] = res
            failed += settle_bonus(p, taker, (bits >> B_RESIST) & 1 == 1, res, kv[K_RES_A],
                                   kv[K_RES_C] + ca * ((cbits >> B_RESIST) & 1), st, B)
        st[row + C_CFAILED + p] += failed
    if capot_ann and not capot:  # a failed announced capot: each opponent marks it
        st[row + C_CFAILED + taker] += 1
        st[B + o1] += kv[K_CAPOT_ANN] * stake
        st[B + o2] += kv[K_CAPOT_ANN] * stake
    for p in range(NP):
        st[row + C_SCORE + p] += st[row + C_GAME + p] + st[B + p]


# --- match ------------------------------------------------------------------------------------
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
