"""French Tarot rules, 3, 4 or 5 players (seed 001 "Tarot", Ducale booklet; catalogue ``tarot.md``).

Read top to bottom like the rulebook: deck and tables, knobs, the deal's state, the deal
and petit sec, the auction, the call (5 players), chien and écart, chelem and poignées,
play and the Excuse, scoring. No player's judgment lives here: the heuristic and random
players, the seat's information and the search player are in ``players.py``, the batch
kernels and result columns in ``kernels.py``, the balance questions in ``questions.py``.

Seats 0..n-1 are numbered in the direction of play, which is counter-clockwise: the
player on the dealer's right is ``dealer + 1``; he receives the first packet, speaks
first and leads the first trick; the deal passes to him next (dealer = deal index mod n).

Card points are counted in **half-points** inside the kernels (King and Bouts 9, Queen 7,
Cavalier 5, Valet 3, any other card 1; the pack is 182 half-points = 91 points), so
every column named ``*_points*`` except ``points_needed`` and ``margin`` is in
half-points.

Cards are numbered in two ways: the deck's ids (0..55 suit cards, 56..76 trumps 1..21,
77 the Excuse; used in every output column) and kernel *slots* for the two-word sets of
``simlab.mechanics.tricks``: suit cards keep their id (word 0), trump t is slot 63 + t and the
Excuse slot 85 (word 1), so "my trumps" is one AND on one word.

A deal is a *state* (one int64 vector, layout ``S_*`` below; card sets are the two words
of a slot set, every word < 2**56 so it fits an int64) and *moves*: ``to_move``,
``legal_moves``, ``apply_move``, ``is_over`` and ``seat_outcome``. The batch kernels, the
heuristic and random players and the search player's playouts all step through these
same functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import EXCUSE_SUIT, TRUMP_SUIT, get_deck
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    WideTables,
    lowest,
    make_rules,
    popcount,
    wcards_of,
    wide_trick_tables,
    wlegal_cards,
    wupdate_trick,
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


# The search player's default budget (see players.py): hidden-card worlds per card played,
# and per decision before the play.
SEARCH_WORLDS = 8
SEARCH_BID_WORLDS = 32


# A match counted in played deals stops after this many times as many dealings at most (a
# variant where nobody ever takes would otherwise never end).
MATCH_DEALINGS_CAP = 10
# Trumps (the Excuse counted) from which a heuristic taker holding the four Kings calls
# himself under call_rule=ladder_or_king. Measured on ~44k such 5-player takers, each deal
# played out both ways by heuristic players: the self-call's mean mark minus the ladder
# call's is about -110 / +40 / +300 / +520 at 6 / 7 / 8 / 9 trumps; at 7 it depends on
# the hand (-78 +- 20 on natural deals), at 8 it pays on every sample tried. The hand
# value (knob bid_prise) separates the two worse: its Kings and Queens say nothing here.
SELF_CALL_TRUMPS = 8
# The heuristic's Petit play (players.py; measured in tests/test_tarot_players.py): the
# unseen cards of the led suit per opponent still to play from which a Petit short of
# guards is trumped in before the last seat, and the defender's trumps from which he
# leads trumps to hunt the Petit.
PETIT_SAVE_SUIT = 2
HUNT_PETIT_TRUMPS = 22
CALL_RULES = ("king_only", "ladder", "ladder_or_king")
CALL_KING_ONLY, CALL_LADDER, CALL_LADDER_OR_KING = range(3)


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
    trump_discard: str = knob("free_if_shown", "trumps in the écart: freely, shown to the "
                              "defence (free_if_shown, the seed: 'On ne peut écarter ni Roi "
                              "ni Bout. Si on écarte des atouts, il faut les montrer'), or "
                              "only when nothing else may be discarded (fft, the FFT's "
                              "later rule)", choices=("fft", "free_if_shown"),
                              seed_value="free_if_shown")
    must_undertrump: bool = knob(True, "void and unable to overtrump: must still play a "
                                 "lower trump (the seed: void, 'on est obligé de couper'; "
                                 "'on peut sous-couper' allows the lower trump; a discard "
                                 "only 'si l'on a pas … d'atout')", seed_value=True)
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
    call_rule: str = knob(
        "ladder_or_king", "5 players: call a King; holding all 4 Kings, a Queen (with the 4 "
        "Queens too a Cavalier, then a Valet) or one of his Kings, so himself "
        "(ladder_or_king: the seed's 'il peut appeler une Dame' and 'il peut s'appeler "
        "lui-même'); only the ladder's card (ladder), or always a King (king_only)",
        choices=("ladder_or_king", "ladder", "king_only"))
    all_pass: str = knob("redeal", "everybody passes: the dealing is void (redeal) or the "
                         "dealer must take the lowest contract (dealer_takes)",
                         choices=("redeal", "dealer_takes"))
    rounds_per_match: int = knob(4, "match: rounds x players dealings (each player deals "
                                 "this many times) or played deals (knob match_counts)",
                                 lo=1, hi=1000)
    match_counts: str = knob(
        "dealings", "match length counts every dealing, void ones (petit sec, all pass) "
        "included (dealings), or only played deals (played_deals; a match then stops after "
        f"{MATCH_DEALINGS_CAP} x rounds x players dealings at most, with fewer played deals: "
        "column capped)",
        choices=("dealings", "played_deals"))
    # heuristic policy
    bid_prise: int = knob(28, "heuristic: hand value for a Prise (value: 21 = 10, Petit 8 "
                          "(6 with < 5 trumps), Excuse 7, 1 per trump, +1 per trump >= 16, "
                          "King 6, K+Q +3, void 5 (with >= 6 trumps), singleton 3). The "
                          "catalogue's 40/56/71/81 leave 92% of 4-player deals passed and "
                          "90% of takers making it. Issue 10 set 29/31/47/53 (formerly "
                          "28/38/50/60) where the first speaker forced to take each contract "
                          "has a positive mean; that left 40.9% of 4-player deals thrown in "
                          "where the search player at every seat leaves 34.7% [33.0, 36.4] "
                          "(3,000 deals, seed 7; its takers make 68.0%, 8.7% Prise, 87.2% "
                          "Garde). Issue 32: 28/29 throw in 34.1% (20,000 deals, seed 1), "
                          "takers make 66.8%, 10% Prise and 88% Garde; against 29/31 in "
                          "duplicate +0.008 [-0.196, +0.212] points a deal (20,000 deals, "
                          "seed 2), and simlab tune (seed 3) found no better move of either "
                          "threshold",
                          lo=0, hi=500, policy=True)
    bid_garde: int = knob(29, "heuristic: hand value for a Garde", lo=0, hi=500, policy=True)
    bid_garde_sans: int = knob(47, "heuristic: hand value for a Garde sans", lo=0, hi=500,
                               policy=True)
    bid_garde_contre: int = knob(53, "heuristic: hand value for a Garde contre", lo=0,
                                 hi=500, policy=True)
    self_call_trumps: int = knob(
        SELF_CALL_TRUMPS, "heuristic, 5 players, call_rule=ladder_or_king: holding the four "
        "Kings, the taker calls one of them (plays alone) with at least this many trumps, "
        "the Excuse counted (else the ladder's card; 22: never)", lo=0, hi=22, policy=True)
    chelem_announce_at: int = knob(110, "heuristic: the taker announces a chelem when his "
                                   "hand value after the écart reaches this (110: never, no "
                                   "hand value reaches it; a value says too little of a "
                                   "slam, which knob chelem_sure judges)", lo=0, hi=1000,
                                   policy=True)
    draw_trumps_pct: int = knob(68, "heuristic: the attack leads trumps while holding at "
                                "least this % of the trumps it has not seen", lo=0, hi=1000,
                                policy=True)
    win_min_points: int = knob(5, "heuristic: before the last seat, win a trick only when "
                               "it holds at least this many half-points", lo=0, hi=200,
                               policy=True)
    excuse_save_points: int = knob(1, "heuristic: losing a trick, play the Excuse rather "
                                   "than a card worth at least this many half-points",
                                   lo=0, hi=20, policy=True)
    poignee_defence: bool = knob(True, "heuristic: defenders declare their poignées too "
                                 "(the attack always does)", policy=True)
    ecart_seen: bool = knob(True, "heuristic: the taker counts his own écart, and everybody "
                            "the écart's shown trumps, as seen cards (false: the former count, "
                            "which took them for cards still out)", policy=True)
    petit_save_suit: int = knob(
        PETIT_SAVE_SUIT, "heuristic: the holder of the Petit, when the trumps still out "
        "outnumber his others, trumps a plain-suit lead with it before the last seat if no "
        "opponent still to play is known void in that suit and at least this many of its "
        "cards are unseen per such opponent (an opponent known void in trumps is safe); "
        "0: only as the last seat (the former play)", lo=0, hi=56, policy=True)
    petit_keep_safe: bool = knob(
        True, "heuristic: a Petit that no trump can catch any more (none out of the "
        "holder's sight, an unseen chien counted as out) is kept for the last trick, for "
        "the Petit au bout (false: the former play, which trumped with it as the last seat)",
        policy=True)
    hunt_petit_trumps: int = knob(
        HUNT_PETIT_TRUMPS, "heuristic: a defender on lead holding at least this many trumps "
        "hunts the Petit (unplayed, not his) by leading his lowest trump while the taker may "
        "still hold trumps (22: never, the former play)", lo=0, hi=22, policy=True)
    chelem_sure: bool = knob(
        True, "heuristic: the taker also announces a chelem when his hand after the écart "
        "wins every trick against any lie of the other cards (his trumps above all the "
        "others, enough to draw them, every suit card above all that suit's unseen cards); "
        "false: only by the hand value (knob chelem_announce_at)", policy=True)
    chelem_likely_margin: int = knob(
        0, "heuristic: the taker also announces a chelem when the odds that his hand after "
        "the écart takes every trick (``slam_odds``: the other cards dealt at random, "
        "trumps drawn from the top, each suit led from the top) exceed the break-even of "
        "the chelem primes (announced made vs failed vs unannounced: 50 % with the "
        "defaults) by this many points (101: never, the former play)", lo=-100, hi=101,
        policy=True)
    # search policy (simlab/games/tarot/players.py)
    search_worlds: int = search.worlds_knob(SEARCH_WORLDS)
    search_rollouts: int = search.rollouts_knob(1)
    search_bid_worlds: int = knob(
        SEARCH_BID_WORLDS, "search player: worlds per decision before the play (bids, call, "
        "écart, chelem, poignée): one of each per dealing at most, each played out to the end, "
        "and they decide most of the score, so they get more worlds than a card (fewer: "
        "noisy estimates make the search overbid)", lo=1, hi=10_000, policy=True)

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
 K_EXC_LAST, K_CH_EXC, K_LEAD_RESTRICT, K_CALL_RULE, K_ALLPASS_DEALER, K_ROUNDS) = range(23, 36)
K_BID = 36  # K_BID + contract
(K_CHELEM_AT, K_DRAW_PCT, K_WIN_MIN, K_EXC_SAVE, K_POIGNEE_DEF, K_CH_MULT, K_WORLDS,
 K_ROLLOUTS, K_UNDERTRUMP, K_BID_WORLDS, K_MATCH_PLAYED, K_SELF_CALL_TRUMPS, K_ECART_SEEN,
 K_PETIT_SAVE, K_HUNT_PETIT, K_CHELEM_SURE, K_PETIT_KEEP, K_CHELEM_LIKELY, N_K) = range(40, 59)


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
    v[K_CALL_RULE] = CALL_RULES.index(k.call_rule)
    v[K_ALLPASS_DEALER] = k.all_pass == "dealer_takes"
    v[K_ROUNDS] = k.rounds_per_match
    v[K_MATCH_PLAYED] = k.match_counts == "played_deals"
    v[K_BID:K_BID + 4] = [k.bid_prise, k.bid_garde, k.bid_garde_sans, k.bid_garde_contre]
    v[K_SELF_CALL_TRUMPS] = k.self_call_trumps
    v[K_CHELEM_AT] = k.chelem_announce_at
    v[K_DRAW_PCT] = k.draw_trumps_pct
    v[K_WIN_MIN] = k.win_min_points
    v[K_EXC_SAVE] = k.excuse_save_points
    v[K_POIGNEE_DEF] = k.poignee_defence
    v[K_ECART_SEEN] = k.ecart_seen
    v[K_PETIT_SAVE] = k.petit_save_suit
    v[K_HUNT_PETIT] = k.hunt_petit_trumps
    v[K_CHELEM_LIKELY] = k.chelem_likely_margin
    v[K_CHELEM_SURE] = k.chelem_sure
    v[K_PETIT_KEEP] = k.petit_keep_safe
    v[K_WORLDS] = k.search_worlds
    v[K_ROLLOUTS] = k.search_rollouts
    v[K_UNDERTRUMP] = k.must_undertrump
    v[K_BID_WORLDS] = k.search_bid_worlds
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




# --- the deal's state -------------------------------------------------------------------
# Phases, in the order of the rulebook.
PH_BID, PH_CALL, PH_ECART, PH_CHELEM, PH_POIGNEE, PH_PLAY, PH_DONE = range(7)
PASS = -1  # the bid "passe"; a contract bid is its index (PRISE..GARDE_CONTRE)
NO_POIGNEE = -1  # poignée moves: -1 none, else the level declared
# Scalar slots of the state vector.
(S_N, S_DEALER, S_PHASE, S_TURN, S_PLY, S_PSEC, S_SPOKEN, S_BEST, S_TAKER, S_CONTRACT,
 S_CALLED, S_PARTNER, S_REVEALED, S_CALLED_OUT, S_ECART_N, S_ECART_TR, S_CHELEM_ANN,
 S_POIGNEE_SUM, S_TRICK, S_LEADER, S_POS, S_LED, S_WIN, S_WIN_SEAT, S_ON_TABLE, S_EXC_SEAT,
 S_PETIT_HERE, S_T21_HERE, S_ATT_TRICKS, S_EXC_FROM, S_EXC_TO, S_EXC_ATT, S_PETIT_TRICK,
 S_PETIT_ATT, S_T21_ATT, S_CHELEM_EXC, S_EXC_LAST, S_CH0, S_CH1, S_EC0, S_EC1, S_G0, S_G1,
 S_TH0, S_TH1, S_TRACK) = range(46)
# Per-seat groups: S_HAND + 2 * seat + word (the hand), S_EXCL + 2 * seat + word (cards the
# table knows the seat does not hold: revealed voids, failures to overtrump), S_POIGNEE +
# seat (level declared, -1 none), S_TRICKS / S_POINTS + seat (tricks and half-points won),
# S_VOIDS + seat (suits he failed to follow, a bit per suit code; the heuristic's view).
S_HAND, S_EXCL, S_POIGNEE, S_TRICKS, S_POINTS, S_VOIDS, N_S = 46, 56, 66, 71, 76, 81, 86
# What the slots hold (public unless said): S_CH the chien as dealt (hidden until turned
# for a Prise/Garde, never seen in a Garde sans/contre), S_EC the écart (seen by the taker;
# its trumps are shown), S_G every card played (tricks, current one included), S_TH the
# taker's hand before the chien (for the result row only), S_PARTNER the holder of the
# called card (hidden until it is played or shown in the chien), S_TURN the seat to move
# (during the poignées, the seat being asked), S_PLY moves made so far, S_TRACK 1 when
# S_EXCL is kept up to date (a search player reads it; heuristic players and the search's
# own playouts do not, and skip that bookkeeping).


@hot_inline
def word(S: np.ndarray, i: int) -> np.uint64:
    return np.uint64(S[i])


@hot_inline
def hand_of(S: np.ndarray, p: int) -> tuple[np.uint64, np.uint64]:
    return np.uint64(S[S_HAND + 2 * p]), np.uint64(S[S_HAND + 2 * p + 1])


@hot_inline
def set_hand(S: np.ndarray, p: int, h0: np.uint64, h1: np.uint64) -> None:
    S[S_HAND + 2 * p] = np.int64(h0)
    S[S_HAND + 2 * p + 1] = np.int64(h1)


@hot_inline
def add_card(S: np.ndarray, i: int, c: int) -> None:
    """Add slot ``c`` to the two-word set at ``S[i], S[i + 1]``."""
    if c < 64:
        S[i] |= np.int64(ONE << np.uint64(c))
    else:
        S[i + 1] |= np.int64(ONE << np.uint64(c - 64))


@hot_inline
def remove_card(S: np.ndarray, i: int, c: int) -> None:
    if c < 64:
        S[i] &= ~np.int64(ONE << np.uint64(c))
    else:
        S[i + 1] &= ~np.int64(ONE << np.uint64(c - 64))


@hot_inline
def is_attack(S: np.ndarray, p: int) -> bool:
    return p == S[S_TAKER] or p == S[S_PARTNER]


# --- deal and petit sec -----------------------------------------------------------------
@hot
def new_deal(S: np.ndarray, deck: np.ndarray, dealer: int, order: np.ndarray, kv: np.ndarray,
             dealt: np.ndarray, chien: np.ndarray, track: bool) -> None:
    """Deal the shuffled ``deck`` (slots) into a fresh state: packets counter-clockwise
    from the dealer's right, the chien card by card (``order``). Writes each seat's cards
    in dealing order to ``dealt`` (deck ids) and the chien's to ``chien`` (slots). A petit
    sec ends the dealing at once (S_PSEC = its seat); else the auction starts. ``track``:
    keep what the table learns of each hand (S_EXCL, for a search player)."""
    n = kv[K_N]
    for i in range(N_S):
        S[i] = 0
    S[S_TRACK] = track
    S[S_N] = n
    S[S_DEALER] = dealer
    for i in (S_BEST, S_TAKER, S_CONTRACT, S_CALLED, S_PARTNER, S_PSEC, S_LED, S_WIN,
              S_WIN_SEAT, S_EXC_SEAT, S_EXC_FROM, S_EXC_TO, S_PETIT_TRICK):
        S[i] = -1
    for p in range(n):
        S[S_POIGNEE + p] = NO_POIGNEE
    n_ch = 0
    for i in range(N_CARDS):
        r = order[i]
        c = deck[i]
        if r == n:
            chien[n_ch] = c
            n_ch += 1
            add_card(S, S_CH0, c)
        else:
            p = (dealer + 1 + r) % n
            dealt[p, S[S_TRICKS + p]] = ID_OF_SLOT[c]  # S_TRICKS counts cards dealt for now
            S[S_TRICKS + p] += 1
            add_card(S, S_HAND + 2 * p, c)
    for p in range(n):
        S[S_TRICKS + p] = 0
    S[S_REVEALED] = n < 5  # at 3 and 4 players everybody knows the camps
    S[S_PHASE] = PH_BID
    S[S_TURN] = (dealer + 1) % n
    if kv[K_PETIT_SEC]:
        ps = petit_sec_seat(S, kv)
        if ps >= 0:
            S[S_PSEC] = ps
            S[S_PHASE] = PH_DONE


@hot
def petit_sec_seat(S: np.ndarray, kv: np.ndarray) -> int:
    """First seat (from the dealer's right) whose only trump is the Petit, else -1."""
    n = S[S_N]
    for k in range(n):
        p = (S[S_DEALER] + 1 + k) % n
        h1 = word(S, S_HAND + 2 * p + 1)
        if h1 & TRUMPS1 == PETIT1 and (h1 & EXCUSE1 == EMPTY or not kv[K_PSEC_EXCUSE]):
            return p
    return -1


# --- auction and call -------------------------------------------------------------------
@hot
def lowest_bid(kv: np.ndarray) -> int:
    return PRISE if kv[K_ALLOW_PRISE] else GARDE


@hot
def bid_floor(S: np.ndarray, kv: np.ndarray) -> int:
    """The lowest contract the seat to speak may bid: above the last bid."""
    return max(S[S_BEST] + 1, lowest_bid(kv))


@hot
def call_rank(h0: np.uint64, kv: np.ndarray) -> int:
    """Rank the 5-player taker calls: King, or down the ladder while he holds all 4 (a
    King too under ladder_or_king, see :func:`may_call_king_too`)."""
    if kv[K_CALL_RULE] == CALL_KING_ONLY:
        return RK
    for r in (RK, RQ, RC):
        held = 0
        for s in range(4):
            held += (h0 >> np.uint64(s * 14 + r)) & ONE != EMPTY
        if held < 4:
            return r
    return RV


@hot
def may_call_king_too(h0: np.uint64, kv: np.ndarray) -> bool:
    """ladder_or_king: holding the four Kings, the taker may call a card of the ladder's
    rank or one of his Kings, i.e. himself (he then plays alone)."""
    return kv[K_CALL_RULE] == CALL_LADDER_OR_KING and call_rank(h0, kv) != RK


@hot
def n_call_moves(h0: np.uint64, kv: np.ndarray) -> int:
    return 8 if may_call_king_too(h0, kv) else 4


@hot
def call_move(h0: np.uint64, i: int, kv: np.ndarray) -> int:
    """The ``i``-th legal call (0 <= i < :func:`n_call_moves`), by suit: the four cards of
    the rank to call (his own included: a self-call), then, when he may call himself with
    the four Kings (:func:`may_call_king_too`), his four Kings."""
    r = call_rank(h0, kv) if i < 4 else RK
    return (i % 4) * 14 + r


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


# --- play: legal cards --------------------------------------------------------------------
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


@hot_inline
def legal_cards(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple
                ) -> tuple[np.uint64, np.uint64]:
    """The cards the seat to play may play (two words): follow suit; void, trump and
    overtrump (a lower trump when unable, knob); a trump lead raised if able; the Excuse
    any time (``simlab.mechanics.tricks.wlegal_cards``); at 5 players the called suit's lead bar."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    h0, h1 = hand_of(S, S[S_TURN])
    l0, l1 = wlegal_cards(h0, h1, S[S_LED], S[S_WIN], False, TRUMP_SUIT, suit_of, suit_mask,
                          excuse_mask, above, rules)
    if S[S_POS] == 0 and S[S_N] == 5:
        l0 = called_suit_lead(l0, l1, S[S_CALLED], S[S_TRICK], S[S_CALLED_OUT] != 0, kv)
    return l0, l1


# --- moves -----------------------------------------------------------------------------
@hot
def to_move(S: np.ndarray) -> int:
    """The seat whose decision it is (-1 once the dealing is over)."""
    return -1 if S[S_PHASE] == PH_DONE else S[S_TURN]


@hot
def is_over(S: np.ndarray) -> bool:
    return S[S_PHASE] == PH_DONE


@hot
def legal_moves(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                out: np.ndarray) -> int:
    """Write the legal moves of the seat to move into ``out`` (in a fixed order) and
    return their count. Bids: PASS then each contract from the floor up; call: see
    :func:`call_move`; écart: one card (slot) at a time, ascending; chelem: 0 (no) then 1
    (announce); poignée: NO_POIGNEE then each level the hand allows; play: the legal
    cards' slots, ascending."""
    ph = S[S_PHASE]
    p = S[S_TURN]
    if ph == PH_BID:
        out[0] = PASS
        k = 1
        for c in range(bid_floor(S, kv), GARDE_CONTRE + 1):
            out[k] = c
            k += 1
        return k
    if ph == PH_CALL:
        h0 = word(S, S_HAND + 2 * p)
        k = n_call_moves(h0, kv)
        for i in range(k):
            out[i] = call_move(h0, i, kv)
        return k
    if ph == PH_ECART:
        h0, h1 = hand_of(S, p)
        plain, trumps = ecart_choices(h0, h1, kv)
        return wcards_of(plain, trumps, out)
    if ph == PH_CHELEM:
        out[0] = 0
        out[1] = 1
        return 2
    if ph == PH_POIGNEE:
        lvl = poignee_level(word(S, S_HAND + 2 * p + 1), kv)
        for k in range(lvl + 2):
            out[k] = k - 1
        return lvl + 2
    if ph == PH_PLAY:
        l0, l1 = legal_cards(S, kv, rules, tb)
        return wcards_of(l0, l1, out)
    return 0


@hot
def apply_move(S: np.ndarray, m: int, kv: np.ndarray, tb: tuple) -> None:
    """Play move ``m`` (legal, see :func:`legal_moves`) for the seat to move."""
    if S[S_PHASE] == PH_PLAY:
        S[S_PLY] += 1
        apply_card(S, m, kv, tb)
    else:
        apply_decision(S, m, kv)


@hot
def apply_decision(S: np.ndarray, m: int, kv: np.ndarray) -> None:
    """:func:`apply_move` for the decisions before the play (bids, call, écart, chelem,
    poignées)."""
    ph = S[S_PHASE]
    S[S_PLY] += 1
    if ph == PH_BID:
        apply_bid(S, m, kv)
    elif ph == PH_CALL:
        apply_call(S, m, kv)
    elif ph == PH_ECART:
        apply_discard(S, m, kv)
    elif ph == PH_CHELEM:
        S[S_CHELEM_ANN] = m
        next_poignee(S, 0, kv)
    elif ph == PH_POIGNEE:
        p = S[S_TURN]
        if m >= 0:
            S[S_POIGNEE + p] = m
            S[S_POIGNEE_SUM] += kv[K_PPRIME + m]
        next_poignee(S, p + 1, kv)


@hot
def apply_bid(S: np.ndarray, bid: int, kv: np.ndarray) -> None:
    """One round from the dealer's right, each bid above the last. The auction ends when
    everybody has spoken or nobody can bid higher (after a Garde contre). Everybody
    passing voids the dealing, unless the dealer must then take the lowest contract."""
    n = S[S_N]
    if bid != PASS:
        S[S_BEST] = bid
        S[S_TAKER] = S[S_TURN]
    S[S_SPOKEN] += 1
    if S[S_SPOKEN] < n and bid_floor(S, kv) <= GARDE_CONTRE:
        S[S_TURN] = (S[S_TURN] + 1) % n
        return
    if S[S_TAKER] < 0:
        if not kv[K_ALLPASS_DEALER]:
            S[S_PHASE] = PH_DONE
            return
        S[S_TAKER] = S[S_DEALER]
        S[S_BEST] = lowest_bid(kv)
    taker = S[S_TAKER]
    S[S_CONTRACT] = S[S_BEST]
    S[S_TH0] = S[S_HAND + 2 * taker]
    S[S_TH1] = S[S_HAND + 2 * taker + 1]
    S[S_TURN] = taker
    if n == 5:  # the taker calls a card before the chien is turned
        S[S_PHASE] = PH_CALL
    else:
        turn_chien(S)


@hot
def apply_call(S: np.ndarray, called: int, kv: np.ndarray) -> None:
    """5 players: the holder of the called card is the taker's secret partner; none when
    the taker holds it himself or it lies in the chien (he then plays alone). A called card
    in the chien of a Prise/Garde is seen by everybody when the chien is turned."""
    S[S_CALLED] = called
    taker = S[S_TAKER]
    cb = np.int64(ONE << np.uint64(called))  # a suit card: word 0
    for p in range(S[S_N]):
        if p != taker and S[S_HAND + 2 * p] & cb != 0:
            S[S_PARTNER] = p
    if S[S_CH0] & cb != 0 and S[S_CONTRACT] <= GARDE:
        S[S_REVEALED] = 1
    turn_chien(S)


@hot
def turn_chien(S: np.ndarray) -> None:
    """Prise/Garde: the chien is shown and the taker takes it, then discards; Garde
    sans/contre: nobody sees it (it goes to the attack's / the defence's cards)."""
    taker = S[S_TAKER]
    S[S_TURN] = taker
    if S[S_CONTRACT] <= GARDE:
        S[S_HAND + 2 * taker] |= S[S_CH0]
        S[S_HAND + 2 * taker + 1] |= S[S_CH1]
        S[S_PHASE] = PH_ECART
    else:
        S[S_PHASE] = PH_CHELEM


@hot
def apply_discard(S: np.ndarray, c: int, kv: np.ndarray) -> None:
    """The taker puts one card in the écart (a trump there is shown)."""
    remove_card(S, S_HAND + 2 * S[S_TAKER], c)
    add_card(S, S_EC0, c)
    if c >= 64:
        S[S_ECART_TR] += 1
    S[S_ECART_N] += 1
    if S[S_ECART_N] == kv[K_CHIEN]:
        S[S_PHASE] = PH_CHELEM


@hot
def next_poignee(S: np.ndarray, first: int, kv: np.ndarray) -> None:
    """Poignées are declared just before each player's first card (hands are complete
    then); the seats holding one are asked in seat order, then the play starts: the
    taker leads after a chelem announcement, else the dealer's right."""
    n = S[S_N]
    for p in range(first, n):
        if poignee_level(word(S, S_HAND + 2 * p + 1), kv) >= 0:
            S[S_PHASE] = PH_POIGNEE
            S[S_TURN] = p
            return
    S[S_PHASE] = PH_PLAY
    leader = S[S_TAKER] if S[S_CHELEM_ANN] else (S[S_DEALER] + 1) % n
    S[S_LEADER] = leader
    S[S_TURN] = leader
    S[S_TRICK] = 0
    S[S_POS] = 0


@hot_inline
def note_information(S: np.ndarray, p: int, c: int, tb: tuple, kv: np.ndarray) -> None:
    """What the table learns about ``p``'s hand from his card ``c`` (before it joins the
    trick): not following the led suit shows a void in it; a trump lower than the trump
    winning the trick shows he has none higher (he must overtrump); a discard on a suit
    lead shows no trump (or none higher than the winning trump when undertrumping is not
    compulsory). The Excuse shows nothing."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    led = S[S_LED]
    s = suit_of[c]
    if led < 0 or s == EXCUSE_SUIT or (s == led and s != TRUMP_SUIT):
        return
    if s != led:
        S[S_VOIDS + p] |= 1 << led
        S[S_EXCL + 2 * p] |= np.int64(suit_mask[led, 0])
        S[S_EXCL + 2 * p + 1] |= np.int64(suit_mask[led, 1])
    win = S[S_WIN]
    trump_on = suit_of[win] == TRUMP_SUIT
    if s == TRUMP_SUIT:
        if trump_on and strength[c] < strength[win]:
            S[S_EXCL + 2 * p + 1] |= np.int64(above[win, 1] & TRUMPS1)
    elif s != led:  # a discard: no trump, or none above the winning one
        if trump_on and not kv[K_UNDERTRUMP]:
            S[S_EXCL + 2 * p + 1] |= np.int64(above[win, 1] & TRUMPS1)
        else:
            S[S_EXCL + 2 * p + 1] |= np.int64(TRUMPS1)


@hot_inline
def apply_card(S: np.ndarray, c: int, kv: np.ndarray, tb: tuple) -> None:
    """The seat to play plays ``c``; after the last card of a trick it goes to its
    winner, with the Excuse's fate; after the last trick, the Excuse's exchange."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    n = S[S_N]
    p = S[S_TURN]
    if S[S_TRACK]:
        note_information(S, p, c, tb, kv)
    elif S[S_LED] >= 0 and suit_of[c] != S[S_LED] and suit_of[c] != EXCUSE_SUIT:
        S[S_VOIDS + p] |= 1 << S[S_LED]  # the heuristic's view of the voids
    remove_card(S, S_HAND + 2 * p, c)
    add_card(S, S_G0, c)
    if c == EXCUSE:
        S[S_EXC_SEAT] = p
    elif c == PETIT:
        S[S_PETIT_HERE] = 1
    elif c == T21:
        S[S_T21_HERE] = 1
    if c == S[S_CALLED]:
        S[S_REVEALED] = 1
        S[S_CALLED_OUT] = 1
    S[S_ON_TABLE] += points[c]
    S[S_LED], S[S_WIN], S[S_WIN_SEAT] = wupdate_trick(c, p, S[S_LED], S[S_WIN], S[S_WIN_SEAT],
                                                      TRUMP_SUIT, suit_of, above)
    S[S_POS] += 1
    if S[S_POS] < n:
        S[S_TURN] = (p + 1) % n
        return
    end_trick(S, kv, points)


@hot
def end_trick(S: np.ndarray, kv: np.ndarray, points: np.ndarray) -> None:
    """The trick goes to its winner (the Excuse aside); the next one starts."""
    hsize = kv[K_HAND]
    trick = S[S_TRICK]
    taker = S[S_TAKER]
    partner = S[S_PARTNER]
    last = trick == hsize - 1
    win_seat = S[S_WIN_SEAT]
    w = win_seat
    on_table = S[S_ON_TABLE]
    exc_seat = S[S_EXC_SEAT]
    att_tricks = S[S_ATT_TRICKS]
    kept = False  # the Excuse stays in its player's camp
    if exc_seat >= 0:
        e_att = exc_seat == taker or exc_seat == partner
        if last:
            S[S_EXC_LAST] = 1
        won_all = att_tricks == trick if e_att else att_tricks == 0
        w, kept, owed = excuse_fate(exc_seat, win_seat, last, exc_seat == S[S_LEADER], won_all,
                                    e_att == (win_seat == taker or win_seat == partner), kv)
        S[S_CHELEM_EXC] = w == exc_seat
        S[S_EXC_ATT] = e_att if kept else (w == taker or w == partner)
        if owed:
            S[S_EXC_FROM] = exc_seat
            S[S_EXC_TO] = w
    w_att = w == taker or w == partner
    S[S_TRICKS + w] += 1
    if w_att:
        S[S_ATT_TRICKS] += 1
    if kept and w != exc_seat:
        S[S_POINTS + exc_seat] += points[EXCUSE]
        S[S_POINTS + w] += on_table - points[EXCUSE]
    else:
        S[S_POINTS + w] += on_table
    if S[S_PETIT_HERE]:
        S[S_PETIT_TRICK] = trick
        S[S_PETIT_ATT] = w_att
    if S[S_T21_HERE]:
        S[S_T21_ATT] = w_att
    # next trick
    S[S_LEADER] = w
    S[S_TURN] = w
    S[S_TRICK] = trick + 1
    S[S_POS] = 0
    S[S_LED] = -1
    S[S_WIN] = -1
    S[S_WIN_SEAT] = -1
    S[S_ON_TABLE] = 0
    S[S_EXC_SEAT] = -1
    S[S_PETIT_HERE] = 0
    S[S_T21_HERE] = 0
    if not last:
        return
    # The Excuse's exchange card: paid if the holder's camp has won cards (or always).
    ef = S[S_EXC_FROM]
    if ef >= 0:
        if exchange_paid(ef == taker or ef == partner, S[S_ATT_TRICKS], hsize, S[S_CONTRACT], kv):
            S[S_POINTS + ef] -= 1
            S[S_POINTS + S[S_EXC_TO]] += 1
    S[S_PHASE] = PH_DONE


# --- the end of the dealing -------------------------------------------------------------------
@hot
def final_count(S: np.ndarray, kv: np.ndarray, points: np.ndarray
                ) -> tuple[int, bool, int, int, int, int, int, int]:
    """Score a finished dealing that was played: (A, made, margin, points needed, attack
    half-points, defence half-points, attack Bouts, Petit au bout +1/-1/0). The écart
    counts for the attack; the unseen chien of a Garde sans for the attack (its Bouts
    too), of a Garde contre for the defence. A Bout is never discarded."""
    n = S[S_N]
    hsize = kv[K_HAND]
    contract = S[S_CONTRACT]
    pts_att = 0
    pts_def = 0
    bouts_att = 0
    if contract <= GARDE:
        pts_att = pile_points(word(S, S_EC0), word(S, S_EC1), points)
    else:
        pch = pile_points(word(S, S_CH0), word(S, S_CH1), points)
        if contract == GARDE_SANS:
            pts_att = pch
            bouts_att += popcount(word(S, S_CH1) & BOUTS1)
        else:
            pts_def = pch
    for p in range(n):
        if is_attack(S, p):
            pts_att += S[S_POINTS + p]
        else:
            pts_def += S[S_POINTS + p]
    petit_trick = S[S_PETIT_TRICK]
    if petit_trick >= 0 and S[S_PETIT_ATT]:
        bouts_att += 1
    if S[S_T21_ATT]:
        bouts_att += 1
    if word(S, S_G1) & EXCUSE1 != EMPTY and S[S_EXC_ATT]:
        bouts_att += 1
    pab = 0
    if petit_trick == hsize - 1 or (S[S_CHELEM_EXC] and petit_trick == hsize - 2):
        pab = 1 if S[S_PETIT_ATT] else -1
    att_tricks = S[S_ATT_TRICKS]
    total, made, margin, needed = attack_total(pts_att, bouts_att, contract, pab,
                                               S[S_POIGNEE_SUM], S[S_CHELEM_ANN] != 0,
                                               att_tricks == hsize, att_tricks == 0, kv)
    return total, made, margin, needed, pts_att, pts_def, bouts_att, pab


@hot
def pile_points(w0: np.uint64, w1: np.uint64, points: np.ndarray) -> int:
    t = 0
    while w0 != EMPTY:
        c = lowest(w0)
        t += points[c]
        w0 &= w0 - ONE
    while w1 != EMPTY:
        c = lowest(w1)
        t += points[64 + c]
        w1 &= w1 - ONE
    return t


@hot
def seat_outcome(S: np.ndarray, seat: int, kv: np.ndarray, points: np.ndarray) -> int:
    """What ``seat`` marks for a finished dealing (0 when it was void)."""
    if S[S_TAKER] < 0 or S[S_PSEC] >= 0:
        return 0
    total = final_count(S, kv, points)[0]
    return seat_score(total, S[S_N], S[S_TAKER], S[S_PARTNER], seat)
