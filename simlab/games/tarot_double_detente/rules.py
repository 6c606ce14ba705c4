"""Tarot double détente, 3 players, and its 2-player variant the Triple-Détente (seed 000
"Tarot double détente"; catalogue ``tarot_double_detente.md``).

The rules: read top to bottom like the rulebook: deck and tables, knobs, the pile (deal
and turned cards), scoring, the hook, then the state of a part and its moves (contracts,
tout ou rien, play with its obligations). Where the rest is: ``players.py`` (the
heuristic, the random player, what a seat sees, the search player), ``kernels.py``
(result columns, one part, the batch kernels of deals and matches), ``questions.py``
(the balance metrics), ``__init__.py`` (the ``GAME`` registration).

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
  dealt in the 3rd third (the seed: "placées sous le talon", followed literally);
  catalogue #10 reads it as dealt in the next part, the 2nd third: knob
  ``turned_card_goes_to`` (``next_third``: the turned card(s) are the last cards dealt
  in the next part). For the 2nd third's card, and with 3 players (13-card hands), both
  readings agree;
* the hook (sum of contracts may not be 13) applies to the *last* speaker (with 2
  players, the second); knob ``hook`` can also impose it at 3 players or drop it.

Not implemented: ISMCTS (the search player, ``players.py``, is determinized Monte
Carlo); the heuristic does not try to capture the Petit on purpose (only its play order
protects it), and its hand evaluation is tuned only by one scale per player count
(measured exact-contract rate: about 30% at 3 players, 17% at 2).
Balance questions: ``balance_metrics`` (section "Tarot double détente questions").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import TRUMP_SUIT, get_deck
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    PARTNER_NEVER,
    R_UNDERTRUMP,
    lowest,
    make_rules,
    wide_trick_tables,
    wlegal_cards,
    wupdate_trick,
)

# --- deck and tables ----------------------------------------------------------------
DECK = get_deck("78_tarot")
N_CARDS = 78
# Two-word card sets, the layout of Tarot's kernels (simlab/games/tarot): suit cards at
# slots 0..55 (word 0), trump t at slot 63 + t and the Excuse at 85 (word 1), so that all
# the trumps sit in one word. Kept here so this game does not depend on Tarot's package.
SLOT_OF_ID = np.array([i if i < 56 else i + 8 for i in range(N_CARDS)], dtype=np.int64)
ID_OF_SLOT = np.full(128, -1, dtype=np.int64)
ID_OF_SLOT[SLOT_OF_ID] = np.arange(N_CARDS)
PETIT, EXCUSE = 64, 85  # slots
TRUMPS1 = np.uint64((1 << 21) - 1)  # word 1: trumps 1..21
PETIT1 = np.uint64(1)
EXCUSE1 = np.uint64(1 << 21)
ALL0 = np.uint64((1 << 56) - 1)
ALL1 = np.uint64((1 << 22) - 1)
SUIT_BITS = np.uint64(0x3FFF)  # one suit's 14 bits
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
    turned_card_goes_to: str = knob("last_third", "Modifications with 2 players: the card "
                                    "turned in the 1st third goes under the talon and is "
                                    "dealt in the last third (seed: 'placées sous le "
                                    "talon'), or in the next third (catalogue #10); with 3 "
                                    "players and 13-card hands both mean the 2nd half",
                                    choices=("last_third", "next_third"),
                                    seed_value="last_third")
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
    ev_trump_short: int = knob(33, "heuristic: x100 per other trump with < 5 trumps",
                               lo=0, hi=100, policy=True)
    ev_top: int = knob(80, "heuristic: x100 for the top card of a suit (Roi, or the 1 of "
                       "a reversed suit)", lo=0, hi=100, policy=True)
    ev_second: int = knob(40, "heuristic: x100 for the second card of a suit with a "
                          "guard", lo=0, hi=100, policy=True)
    ev_void: int = knob(40, "heuristic: x100 for a void suit (with >= 2 trumps)", lo=0,
                        hi=300, policy=True)
    ev_singleton: int = knob(20, "heuristic: x100 for a singleton (with >= 2 trumps)",
                             lo=0, hi=300, policy=True)
    bid_scale_3p: int = knob(142, "heuristic: contract = round(expected x this %), 3 "
                             "players", lo=0, hi=400, policy=True)
    bid_scale_2p: int = knob(210, "heuristic: same, 2 players (fewer opponents: more of "
                             "a hand's cards win)", lo=0, hi=400, policy=True)
    tor_max_ev: int = knob(30, "heuristic: declare tout ou rien on a contract of 0 when "
                           "the expected tricks (x100) are at most this", lo=-1, hi=1300,
                           policy=True)
    # search player (simlab/mechanics/search.py; players.py)
    search_worlds: int = search.worlds_knob(16)
    search_rollouts: int = search.rollouts_knob(1)


(K_N, K_H, K_PARTS, K_BONUS) = (0, 1, 2, 3)  # K_BONUS + 3 * part + (0 exact, 1, 2)
(K_PETIT, K_PETIT_LAST, K_EXC_PEN, K_HOOK, K_ROT_PART, K_TARGET, K_MAX, K_FAULT,
 K_FPEN) = range(12, 21)  # K_FPEN + part
(K_CAV, K_CAV_V, K_MOD, K_ACE, K_ACE_V, K_TOR, K_TOR_TH, K_EV_HIGH, K_HIGH_FROM,
 K_EV_LONG, K_EV_SHORT, K_EV_TOP, K_EV_SECOND, K_EV_VOID, K_EV_SINGLE, K_SCALE,
 K_TOR_EV, K_WORLDS, K_ROLLOUTS, K_TURN_NEXT, N_K) = range(23, 44)


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
    v[K_TURN_NEXT] = k.turned_card_goes_to == "next_third"
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
    v[K_WORLDS] = k.search_worlds
    v[K_ROLLOUTS] = k.search_rollouts
    return v


def _rules(k: DetenteKnobs) -> np.ndarray:
    # Follow suit (raise a trump lead); void -> trump, overtrumping if able, else a lower
    # trump (knob); no partners; the Excuse may always be played.
    return make_rules(must_trump=True, partner_exempt=PARTNER_NEVER, must_overtrump=True,
                      undertrump=k.must_undertrump, overtrump_partner=False,
                      must_beat_led=False, raise_trump_lead=True)



# --- the pile: dealing and turned cards ---------------------------------------------
@hot
def turn_cards(pile: np.ndarray, head: int, tail: int, part: int, kv: np.ndarray
               ) -> tuple[int, int, int, int]:
    """After a part's deal (``head`` = next talon card): turn the modifier card(s) when
    Modifications is on and this is not the last part. Returns (head, tail, turned,
    second) with slots or -1. The talon is ``pile[head:tail]``; the turned cards go
    under it (``pile[tail]``: dealt in the last part), or, knob ``turned_card_goes_to``
    = ``next_third``, under the next part's share of it (its last cards dealt)."""
    turned = -1
    second = -1
    if kv[K_MOD] and part < kv[K_PARTS] - 1:
        turned = pile[head]
        head += 1
        if turned == EXCUSE:
            second = pile[head]
            head += 1
        k = 1 if second < 0 else 2
        at = tail
        if kv[K_TURN_NEXT]:
            at = min(tail, head + kv[K_N] * kv[K_H] - k)
        for i in range(tail - 1, at - 1, -1):  # make room: the cards below move down
            pile[i + k] = pile[i]
        pile[at] = turned
        if second >= 0:
            pile[at + 1] = second
        tail += k
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


# --- the hook (seed 7) ---------------------------------------------------------------
@hot
def forbidden_bid(k: int, n: int, so_far: int, kv: np.ndarray) -> int:
    """The bid the ``k``-th speaker may not make (the hook: last speaker, contracts may
    not sum to the hand size), or -1."""
    if kv[K_HOOK] and k == n - 1:
        f = kv[K_H] - so_far
        if 0 <= f <= kv[K_H]:
            return f
    return -1




# --- the state of a part ------------------------------------------------------------
# One part (half-manche or third) is a small state that the batch kernels, the players
# and the search all read and change through the functions below: ``st`` (int64 [N_S],
# the named slots S_*) and ``cw`` (uint64 [N_W], card sets as two-word slot bitmasks).
PH_BID, PH_TOR, PH_PLAY, PH_DONE = range(4)  # phases: contract, tout ou rien, play, over
(S_PART, S_DEALER, S_PHASE, S_TURN, S_K, S_SOFAR, S_MOD, S_REV, S_TURNED, S_SECOND,
 S_TRICK, S_LEADER, S_LED, S_WIN, S_WS, S_PETIT_IN, S_CAV_IN, S_PETIT_SEAT, S_PETIT_LAST,
 S_EXC_LAST, S_FAULT_SEAT, S_FAULT_TRICK, S_PLY) = range(23)
# per seat (3 slots each): contract, tricks won, tout ou rien target (-1 none), tricks
# won with a suit 1, Cavaliers won, total before the part, suits shown void (bit s),
# highest trump number the seat may still hold (0: no trump; 21: nothing known)
S_BID, S_TRICKS, S_TOR, S_ACES, S_CAVS, S_TOTAL, S_VOID, S_CEIL = (23 + 3 * i for i in range(8))
N_S = 23 + 3 * 8
# card words: hands (seat p: W_HAND + 2p, +1), cards out of play and public (earlier
# parts, turned cards, cards played), cards publicly known to lie in the undealt talon
# (cards turned in an earlier part, put under it)
W_HAND, W_GONE, W_TALON, N_W = 0, 6, 8, 10
# The per-move functions are inlined into their callers (``hot_inline``): called through
# numba's calling convention, each call copies every array argument (the ``tb`` tuple
# alone is ~80 words), which measured 2-3x slower deals than the old single-loop kernel.
NO_FAULT = -1
TRUMP_NUMBER0 = 63  # trump t sits at slot 63 + t


@hot_inline
def _add(cw: np.ndarray, w: int, c: int) -> None:
    """Put slot ``c`` into the two-word set at ``cw[w:w + 2]``."""
    if c < 64:
        cw[w] |= ONE << np.uint64(c)
    else:
        cw[w + 1] |= ONE << np.uint64(c - 64)


@hot
def new_part(st: np.ndarray, cw: np.ndarray, pile: np.ndarray, head: int, tail: int,
             part: int, dealer: int, totals: np.ndarray, known: np.ndarray,
             fault_seat: int, fault_trick: int, dealt: np.ndarray, kv: np.ndarray
             ) -> tuple[int, int]:
    """Deal a part from ``pile[head:]`` one card at a time from the dealer's left, turn
    the modifier card(s), and set ``st``/``cw`` to its first decision (the first
    speaker's contract). ``totals``: scores before the part (tout ou rien);
    ``known`` (uint64 [4]): public sets carried between parts (cards out of play, cards
    under the talon); ``fault_seat``/``fault_trick``: the part's irregularity drawn by
    the kernel (-1: none). ``dealt`` [n, h] receives the hands as ids. Returns (head,
    tail)."""
    n = kv[K_N]
    h = kv[K_H]
    for i in range(N_W):
        cw[i] = EMPTY
    cw[W_GONE] = known[0]
    cw[W_GONE + 1] = known[1]
    for p in range(3):
        st[S_BID + p] = 0
        st[S_TRICKS + p] = 0
        st[S_TOR + p] = -1
        st[S_ACES + p] = 0
        st[S_CAVS + p] = 0
        st[S_TOTAL + p] = totals[p]
        st[S_VOID + p] = 0
        st[S_CEIL + p] = 21
    for i in range(n * h):
        p = (dealer + 1 + i) % n
        c = pile[head + i]
        dealt[p, i // n] = ID_OF_SLOT[c]
        _add(cw, W_HAND + 2 * p, c)
    head += n * h
    # cards under the talon before this deal stay there unless dealt now
    for w in range(2):
        cw[W_TALON + w] = known[2 + w] & ~(cw[W_HAND + w] | cw[W_HAND + 2 + w] | cw[W_HAND + 4 + w])
    head, tail, turned, second = turn_cards(pile, head, tail, part, kv)
    if turned >= 0:  # the turned card is public; an Excuse's second card only after the contracts
        _add(cw, W_GONE, turned)
    mod, rev = modifier_of(turned if turned != EXCUSE else -1)
    st[S_PART] = part
    st[S_DEALER] = dealer
    st[S_PHASE] = PH_BID
    st[S_TURN] = (dealer + 1) % n
    st[S_K] = 0
    st[S_SOFAR] = 0
    st[S_MOD] = mod
    st[S_REV] = rev
    st[S_TURNED] = turned
    st[S_SECOND] = second
    st[S_TRICK] = 0
    st[S_LEADER] = (dealer + 1) % n
    st[S_LED] = -1
    st[S_WIN] = -1
    st[S_WS] = -1
    st[S_PETIT_IN] = 0
    st[S_CAV_IN] = 0
    st[S_PETIT_SEAT] = -1
    st[S_PETIT_LAST] = 0
    st[S_EXC_LAST] = -1
    st[S_FAULT_SEAT] = fault_seat
    st[S_FAULT_TRICK] = fault_trick
    st[S_PLY] = 0
    return head, tail


@hot
def carry_known(st: np.ndarray, cw: np.ndarray, known: np.ndarray, kv: np.ndarray) -> None:
    """After a part: the cards dealt in it join the public out-of-play set of the later
    parts (all were played unless a fault stopped the part; out of play either way),
    its turned cards (now under the talon) the known-talon set."""
    n = kv[K_N]
    for w in range(2):
        x = cw[W_GONE + w]  # earlier parts, turned cards, cards played
        for p in range(n):
            x |= cw[W_HAND + 2 * p + w]  # left in hand after a fault
        known[w] |= x & ~_turned_word(st, w)
    for c in (st[S_TURNED], st[S_SECOND]):
        if c >= 0:
            _add(known, 2, c)
    for w in range(2):
        known[2 + w] &= ~known[w]


@hot
def _turned_word(st: np.ndarray, w: int) -> np.uint64:
    """This part's turned cards as word ``w`` of a two-word set."""
    x = EMPTY
    for c in (st[S_TURNED], st[S_SECOND]):
        if c >= 0 and c // 64 == w:
            x |= ONE << np.uint64(c % 64)
    return x


@hot
def to_move(st: np.ndarray) -> int:
    """Seat whose decision it is, -1 when the part is over."""
    return -1 if st[S_PHASE] == PH_DONE else st[S_TURN]


@hot
def is_over(st: np.ndarray) -> bool:
    return st[S_PHASE] == PH_DONE


@hot
def tor_eligible(st: np.ndarray, p: int, q: int, kv: np.ndarray) -> bool:
    """May seat ``p`` declare tout ou rien against ``q`` (an opponent at the threshold)?"""
    return q != p and st[S_TOTAL + q] >= kv[K_TOR_TH]


@hot
def n_tor_eligible(st: np.ndarray, p: int, kv: np.ndarray) -> int:
    c = 0
    for q in range(kv[K_N]):
        if tor_eligible(st, p, q, kv):
            c += 1
    return c


@hot_inline
def legal_cards(st: np.ndarray, cw: np.ndarray, rules: np.ndarray, tb: tuple
                ) -> tuple[np.uint64, np.uint64]:
    """Play phase: the cards the seat to move may play (two-word set), by seed 3.3's
    obligations (``rules``; the Excuse always)."""
    suit_of, suit_mask, excuse_mask = tb[0], tb[1], tb[2]
    above = tb[5]
    p = st[S_TURN]
    return wlegal_cards(cw[W_HAND + 2 * p], cw[W_HAND + 2 * p + 1], st[S_LED], st[S_WIN],
                        False, TRUMP_SUIT, suit_of, suit_mask, excuse_mask,
                        above[st[S_REV] + 1], rules)


@hot
def legal_moves(st: np.ndarray, cw: np.ndarray, kv: np.ndarray, rules: np.ndarray,
                tb: tuple, out: np.ndarray) -> int:
    """The legal moves into ``out``, in a fixed order; returns their count. Contract
    phase: the contracts 0..hand size but the hook's forbidden one; tout ou rien
    phase: 0 (no declaration), then 1 + q for each eligible opponent q; play: the
    legal cards' slots, ascending."""
    ph = st[S_PHASE]
    m = 0
    if ph == PH_BID:
        forbid = forbidden_bid(st[S_K], kv[K_N], st[S_SOFAR], kv)
        for b in range(kv[K_H] + 1):
            if b != forbid:
                out[m] = b
                m += 1
    elif ph == PH_TOR:
        out[0] = 0
        m = 1
        for q in range(kv[K_N]):
            if tor_eligible(st, st[S_TURN], q, kv):
                out[m] = 1 + q
                m += 1
    elif ph == PH_PLAY:
        l0, l1 = legal_cards(st, cw, rules, tb)
        while l0 != EMPTY:
            out[m] = lowest(l0)
            l0 &= l0 - ONE
            m += 1
        while l1 != EMPTY:
            out[m] = 64 + lowest(l1)
            l1 &= l1 - ONE
            m += 1
    return m


@hot_inline
def _next_speaker(st: np.ndarray, cw: np.ndarray, kv: np.ndarray) -> None:
    """After a speaker's contract (and tout ou rien): the next speaker, or, after the
    dealer, the second turned card (Excuse turned) and the first lead."""
    n = kv[K_N]
    st[S_K] += 1
    if st[S_K] < n:
        st[S_PHASE] = PH_BID
        st[S_TURN] = (st[S_DEALER] + 1 + st[S_K]) % n
        return
    second = st[S_SECOND]
    if second >= 0:
        mod, rev = modifier_of(second)
        st[S_MOD] = mod
        st[S_REV] = rev
        _add(cw, W_GONE, second)
    st[S_PHASE] = PH_PLAY if st[S_FAULT_TRICK] != 0 else PH_DONE
    st[S_K] = 0
    st[S_TURN] = st[S_LEADER]


@hot_inline
def _note_void(st: np.ndarray, p: int, c: int, rules: np.ndarray, tb: tuple) -> None:
    """What card ``c`` played by ``p`` publicly reveals about his hand (before the trick
    is updated with it): not following shows a void; a discard when obliged to trump
    shows no trump (or none above the winning trump when undertrumping is not due); a
    trump below the winning trump when obliged to overtrump shows none above it."""
    if c == EXCUSE:
        return
    suit_of = tb[0]
    led = st[S_LED]
    if led < 0:
        return
    win = st[S_WIN]
    sc = suit_of[c]
    trump_on = suit_of[win] == TRUMP_SUIT
    top = win - TRUMP_NUMBER0 if trump_on else 0  # the winning trump's number
    if sc != led:
        if led != TRUMP_SUIT:
            st[S_VOID + p] |= 1 << led
        if sc != TRUMP_SUIT:
            if led == TRUMP_SUIT or not trump_on or rules[R_UNDERTRUMP]:
                st[S_CEIL + p] = 0
            else:
                st[S_CEIL + p] = min(st[S_CEIL + p], top)
        elif trump_on and c - TRUMP_NUMBER0 < top:
            st[S_CEIL + p] = min(st[S_CEIL + p], top)
    elif sc == TRUMP_SUIT and trump_on and c - TRUMP_NUMBER0 < top:
        st[S_CEIL + p] = min(st[S_CEIL + p], top)


@hot_inline
def apply_move(st: np.ndarray, cw: np.ndarray, move: int, kv: np.ndarray, rules: np.ndarray,
               tb: tuple) -> None:
    """Play ``move`` (one of :func:`legal_moves`) for the seat to move."""
    n = kv[K_N]
    p = st[S_TURN]
    ph = st[S_PHASE]
    st[S_PLY] += 1
    if ph == PH_BID:
        st[S_BID + p] = move
        st[S_SOFAR] += move
        if kv[K_TOR] and n_tor_eligible(st, p, kv) > 0:
            st[S_PHASE] = PH_TOR  # declared with the contract (seed 8)
        else:
            _next_speaker(st, cw, kv)
        return
    if ph == PH_TOR:
        st[S_TOR + p] = move - 1
        _next_speaker(st, cw, kv)
        return
    # play a card
    suit_of = tb[0]
    above = tb[5]
    c = move
    h = kv[K_H]
    t = st[S_TRICK]
    if c < 64:
        cw[W_HAND + 2 * p] &= ~(ONE << np.uint64(c))
        cw[W_GONE] |= ONE << np.uint64(c)
        if c % 14 == RC:
            st[S_CAV_IN] += 1
    else:
        cw[W_HAND + 2 * p + 1] &= ~(ONE << np.uint64(c - 64))
        cw[W_GONE + 1] |= ONE << np.uint64(c - 64)
        if c == PETIT:
            st[S_PETIT_IN] = 1
        elif c == EXCUSE and t == h - 1:
            st[S_EXC_LAST] = p
    _note_void(st, p, c, rules, tb)
    led, w, ws = wupdate_trick(c, p, st[S_LED], st[S_WIN], st[S_WS], TRUMP_SUIT, suit_of,
                               above[st[S_REV] + 1])
    st[S_K] += 1
    if st[S_K] < n:
        st[S_LED] = led
        st[S_WIN] = w
        st[S_WS] = ws
        st[S_TURN] = (p + 1) % n
        return
    # the trick is complete
    st[S_TRICKS + ws] += 1
    st[S_CAVS + ws] += st[S_CAV_IN]
    if w < 56 and w % 14 == RA:
        st[S_ACES + ws] += 1
    if st[S_PETIT_IN]:
        st[S_PETIT_SEAT] = ws
        st[S_PETIT_LAST] = 1 if t == h - 1 else 0
    st[S_PETIT_IN] = 0
    st[S_CAV_IN] = 0
    st[S_K] = 0
    st[S_LED] = -1
    st[S_WIN] = -1
    st[S_WS] = -1
    st[S_LEADER] = ws
    st[S_TURN] = ws
    st[S_TRICK] = t + 1
    if t + 1 == h or t + 1 == st[S_FAULT_TRICK]:
        st[S_PHASE] = PH_DONE


@hot
def draw_fault(fstate: np.uint64, dealer: int, kv: np.ndarray) -> tuple[int, int]:
    """Irregularities (humans only): the first seat drawn, from the dealer's left, stops
    the part after a random number of tricks. Returns (seat, tricks) or (-1, -1)."""
    n = kv[K_N]
    fault_seat = -1
    fault_trick = -1
    if kv[K_FAULT] > 0:
        for k in range(n):
            p = (dealer + 1 + k) % n
            fstate, x = rng.below(fstate, 1000)
            if x < kv[K_FAULT] and fault_seat < 0:
                fault_seat = p
        if fault_seat >= 0:
            fstate, fault_trick = rng.below(fstate, kv[K_H])
    return fault_seat, fault_trick


@hot
def outcome(st: np.ndarray, kv: np.ndarray, bonus: np.ndarray, out: np.ndarray) -> None:
    """Each seat's mark for the finished part into ``out`` (``bonus``: the contract
    bonuses): a fault costs its author the part's penalty and the others mark 0."""
    n = kv[K_N]
    fs = st[S_FAULT_SEAT]
    if fs >= 0:
        for p in range(n):
            out[p] = 0
            bonus[p] = 0
        out[fs] = -kv[K_FPEN + st[S_PART]]
        return
    part_scores(n, st[S_BID:S_BID + 3], st[S_TRICKS:S_TRICKS + 3], st[S_PART], st[S_MOD],
                st[S_PETIT_SEAT], st[S_PETIT_LAST] != 0, st[S_EXC_LAST], st[S_ACES:S_ACES + 3],
                st[S_CAVS:S_CAVS + 3], st[S_TOR:S_TOR + 3], bonus, out, kv)
