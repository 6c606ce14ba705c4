"""Démons rules: deck and tables, knobs, result columns, the state of a deal and its
moves, the deal (with the hidden Diable and the six-swap), the betting windows, the
trick (possession, following, the winner), Pareil and Suite, scoring (seed 000 "Démons",
lines 1581-1796; catalogue ``demons.md``).

Read top to bottom like the rulebook. Players are in ``players.py``, the batch kernels
and the match in ``kernels.py``, the balance questions in ``questions.py``.

Three seats; the player after the dealer leads the first trick. A deal is one int64
vector (``S_*`` slots) with hands and card sets as 33-bit masks. A move is an int:

* a card play: ``card + 64 * (possessed + 1) + 4096 * announce`` (``possessed`` = -1:
  none; ``announce`` 0 nothing, 1 Pareil, 2 Suite);
* at a betting window: ``B_PASS``, ``B_PARTIAL``, ``B_COMPLETE``;
* answering a bet: ``R_CONCEDE``, ``R_HOLD``, ``R_RAISE``;
* the Diable's reveal-swap: ``RS_NONE`` or ``RS_BASE + give * 64 + take``.

The six-swap happens in ``deal`` (each seat's policy chooses it through
``six_swap_choice`` in ``players.py``, called by the kernel), so play starts with the
swapped hands.

May import: simlab.engine.*, simlab.mechanics.*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import TRUMP_SUIT, get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, lowest

# --- deck and tables ----------------------------------------------------------------
# §1 "les Rois et les Cavaliers en double, les Reines, les Valets, les 6 et les Atouts de
# 1 à 5 en simple, soit 33 cartes". Ids: 0..11 the 6, J, Q of each suit; 12..27 C, C, K, K
# of each suit; 28..32 the Démons T1..T5.
DECK = get_deck("33_demons")
N_CARDS = 33
PLAYERS = 3
HAND = 9
N_TURNED = 6
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
SUIT = DECK.suit.copy()  # 0..3, TRUMP_SUIT for the Démons
# §3 "6 < Valet < Dame < Cavalier < Roi" (trick order; 0 for the Démons)
TRICK_RANK = DECK.table({"6": 0, "J": 1, "Q": 2, "C": 3, "K": 4}, default=0)
# §9 "Valet < Cavalier < Dame < Roi" (combination order); -1: never in a combination
COMBO_RANK = DECK.table({"J": 0, "C": 1, "Q": 2, "K": 3}, default=-1)
# the Démon number, 1 (strongest) .. 5; 0 for ordinary cards
DEMON_NO = np.array([int(r[1:]) if r.startswith("T") else 0 for r in DECK.ranks],
                    dtype=np.int64)
# value index: 0 six, 1 J, 2 Q, 3 C, 4 K (the human_values knob order), -1 Démon
VALUE_INDEX = DECK.table({"6": 0, "J": 1, "Q": 2, "C": 3, "K": 4}, default=-1)
FIRST_DEMON = 28
HEARTS = 1
COLOUR_SUITS = np.array([0, 2, 3], dtype=np.int64)  # §4 the three 8s: ♠, ♦, ♣


def _masks() -> tuple[np.ndarray, np.uint64, np.uint64, np.uint64]:
    suits = np.zeros(4, dtype=np.uint64)
    demons = sixes = faces = 0
    for c in range(N_CARDS):
        if SUIT[c] == TRUMP_SUIT:
            demons |= 1 << c
        else:
            suits[SUIT[c]] |= np.uint64(1 << c)
            if VALUE_INDEX[c] == 0:
                sixes |= 1 << c
            else:
                faces |= 1 << c
    return suits, np.uint64(demons), np.uint64(sixes), np.uint64(faces)


SUIT_MASK, DEMON_MASK, SIX_MASK, FACE_MASK = _masks()
ORDINARY_MASK = ALL_CARDS & ~DEMON_MASK

# --- knobs --------------------------------------------------------------------------
CONCEDE_RULES = ("keeps_loss", "free")
PURE_DEMON_FAULT = ("hand_only", "hand_or_possession")


@dataclass(frozen=True)
class DemonsKnobs(Knobs):
    value_6: int = knob(0, "a 6's base value for a human (seed §3: 0)", lo=0, hi=100)
    value_j: int = knob(1, "a Jack's (Valet) base value for a human (seed: 1)", lo=0, hi=100)
    value_q: int = knob(4, "a Queen's (Dame) base value for a human (seed: 4)", lo=0, hi=100)
    value_c: int = knob(2, "a Cavalier's base value for a human (seed: 2)", lo=0, hi=100)
    value_k: int = knob(2, "a King's base value for a human (seed: 2)", lo=0, hi=100)
    diable_base_value: int = knob(1, "the Diable's base value of every ordinary card "
                                  "(seed §3: 1)", lo=0, hi=100)
    colour_bonus: int = knob(1, "bonus per face card of the winner's colour (his 8's suit; "
                             "the Diable's also ♥) in his tricks (seed §10: 1)", lo=0, hi=100)
    diable_demon_trick_bonus: int = knob(1, "the Diable: bonus per face card in each trick "
                                         "he won that holds a Démon (seed §10.1: 1)",
                                         lo=0, hi=100)
    diable_three_sixes_bonus: int = knob(10, "the Diable: bonus when his tricks hold three "
                                         "6s or more (seed §10.1: 10)", lo=0, hi=1000)
    partial_base: int = knob(5, "stake offered without any bet to the player with strictly "
                             "the most tricks (seed §7.1: 5)", lo=0, hi=1000)
    partial_bet_max: int = knob(40, "highest partial stake: a bet doubles the base and each "
                                "raise doubles again (seed: 40, a bet and 2 raises)",
                                choices=(10, 20, 40, 80, 160))
    complete_bet_start: int = knob(20, "a complete-gain bet's first stake (seed §7.2: 20)",
                                   lo=1, hi=1000)
    complete_bet_max: int = knob(80, "highest complete stake (seed: 80)", lo=1, hi=100000)
    partial_bet_deadline_trick: int = knob(3, "partial bets may be made until this trick "
                                           "starts (seed: 3, 'avant que la première carte "
                                           "du 3e tour soit jouée')", lo=1, hi=9)
    complete_bet_deadline_trick: int = knob(5, "complete bets may be made until this trick "
                                            "starts (seed: 5)", lo=1, hi=9)
    most_tricks_tie: str = knob(
        "engaged_lose", "a tie for the most tricks: nobody wins the partial stake and every "
        "engaged player loses (engaged_lose: §7.1 'remporter plus de plis que chacun des "
        "adversaires'), or the stakes are void (void)", choices=("engaged_lose", "void"))
    diable_bonus_tricks: str = knob(
        "won", "the Diable's +1 per face card 'dans tout pli qui comporte un Démon': in the "
        "tricks he won (won: §10 counts 'les points contenus dans les plis que chaque joueur a "
        "pu remporter', catalogue ambiguity 13) or in every trick (any)",
        choices=("won", "any"))
    complete_tricks: int = knob(5, "tricks of 9 that make a complete gain (seed: 5, the "
                                "majority)", lo=5, hi=9)
    concede_rule: str = knob(
        "keeps_loss", "a player who concedes after he was engaged (his bet raised, or a "
        "stake he held raised) keeps losing what he had engaged (keeps_loss) or is freed "
        "of it (free)", choices=CONCEDE_RULES, seed_value="free", seed_case="contradicts",
        seed_why="§7.1 defines conceding as 'il ne peut pas perdre de points' but says the "
        "raised bettor 'reste engagé, mais seulement à perte'; otherwise a bet would be a "
        "free option (catalogue ambiguity 8; Démons punisseurs says so explicitly)")
    pure_demon_fault: str = knob(
        "hand_only", "the -100 fault of a pure Démon played against the led suit: only "
        "when the suit is held in hand (hand_only), or also when a turned card of it could "
        "be possessed (hand_or_possession, which then forbids that pure Démon)",
        choices=PURE_DEMON_FAULT, seed_value="hand_or_possession", seed_case="silent",
        seed_why="§13 leaves the possession case 'A DECIDER'; possession is an optional use "
        "of a Démon and §8 says nobody must cut with one (catalogue ambiguity 1)")
    combo_requires_consecutive: bool = knob(
        True, "a Pareil or Suite in progress ends with any card played for nothing or for "
        "another combination in between (§9 'les cartes qu'un joueur joue successivement')")
    pareil_2: int = knob(10, "a pair's points (seed §9.1: 10)", lo=0, hi=1000)
    pareil_3: int = knob(20, "a three of a kind's points (seed: 20)", lo=0, hi=1000)
    pareil_4: int = knob(40, "a four of a kind's points (seed: 40)", lo=0, hi=1000)
    pareil_5: int = knob(50, "five of a kind or more (seed: 50)", lo=0, hi=1000)
    suite_2: int = knob(15, "a seconde's points (seed §9.2: 15)", lo=0, hi=1000)
    suite_3: int = knob(30, "a tierce's points (seed: 30)", lo=0, hi=1000)
    suite_4: int = knob(60, "a quarte's points (seed: 60)", lo=0, hi=1000)
    combo_fail_penalty: int = knob(10, "each failed combination after the first free one "
                                   "(a success restores a free one; seed §9: 10)",
                                   lo=0, hi=1000)
    reveal_penalty: int = knob(50, "a player who says he is (or is not) the Diable loses "
                               "this (seed §13: 50; no bot ever says it)", lo=0, hi=1000)
    pure_demon_fault_penalty: int = knob(100, "the fault's penalty; the deal is annulled "
                                         "(seed §13: 100; legal moves never commit it)",
                                         lo=0, hi=10000)
    target: int = knob(333, "match: a player reaching this total in a deal where he bet "
                       "wins (seed §12: 333)", lo=1, hi=100000)
    must_bet_to_win: bool = knob(True, "match: reaching the target without having bet that "
                                 "deal resets the score to its value before the deal "
                                 "(seed §12)")
    max_deals: int = knob(400, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    # heuristic policy (players.py)
    bet_partial_at: int = knob(45, "heuristic: opens a partial bet when its expected trick "
                               "share (tenths of a trick, of 9) reaches this", lo=0, hi=200,
                               policy=True)
    bet_complete_at: int = knob(62, "heuristic: opens a complete bet when its expected "
                                "tricks (tenths) reach this", lo=0, hi=200, policy=True)
    hold_at: int = knob(34, "heuristic: holds a bet when its expected tricks (tenths) reach "
                        "this, else concedes", lo=0, hi=200, policy=True)
    raise_at: int = knob(46, "heuristic: raises when its expected tricks (tenths) reach "
                         "this", lo=0, hi=200, policy=True)
    near_target: int = knob(60, "heuristic: within this many points of the target it holds "
                            "every bet (must bet to win)", lo=0, hi=1000, policy=True)
    # search policy (players.py)
    search_worlds: int = search.worlds_knob(6)

    def check(self) -> None:
        if self.complete_bet_max < self.complete_bet_start:
            raise SimlabError(f"knob 'complete_bet_max' ({self.complete_bet_max}) must be at "
                              f"least complete_bet_start ({self.complete_bet_start})")
        if self.complete_bet_deadline_trick < self.partial_bet_deadline_trick:
            raise SimlabError("knob 'complete_bet_deadline_trick' must be at least "
                              "partial_bet_deadline_trick")


(K_V6, K_VJ, K_VQ, K_VC, K_VK, K_DIABLE_BASE, K_COLOUR_BONUS, K_DEMON_TRICK, K_THREE_SIXES,
 K_PARTIAL_BASE, K_PARTIAL_MAX, K_COMPLETE_START, K_COMPLETE_MAX, K_PARTIAL_DEADLINE,
 K_COMPLETE_DEADLINE, K_COMPLETE_TRICKS, K_CONCEDE_KEEPS, K_FAULT_POSSESS, K_CONSECUTIVE,
 K_P2, K_P3, K_P4, K_P5, K_S2, K_S3, K_S4, K_FAIL, K_REVEAL_PEN, K_FAULT_PEN, K_TARGET,
 K_MUST_BET, K_MAX_DEALS, K_BET_PARTIAL, K_BET_COMPLETE, K_HOLD, K_RAISE, K_NEAR,
 K_WORLDS, K_TIE_VOID, K_BONUS_ANY, K_SCORE_BEFORE, N_K) = range(42)
# K_SCORE_BEFORE..+3: the seats' match scores before the deal (the heuristic's "near the
# target"); the match kernel writes them into its copy of the vector.
N_KV = N_K + PLAYERS


def _vector(k: DemonsKnobs) -> np.ndarray:
    v = np.zeros(N_KV, dtype=np.int64)
    v[K_V6], v[K_VJ], v[K_VQ], v[K_VC], v[K_VK] = k.value_6, k.value_j, k.value_q, \
        k.value_c, k.value_k
    v[K_DIABLE_BASE] = k.diable_base_value
    v[K_COLOUR_BONUS] = k.colour_bonus
    v[K_DEMON_TRICK] = k.diable_demon_trick_bonus
    v[K_THREE_SIXES] = k.diable_three_sixes_bonus
    v[K_PARTIAL_BASE] = k.partial_base
    v[K_PARTIAL_MAX] = k.partial_bet_max
    v[K_COMPLETE_START] = k.complete_bet_start
    v[K_COMPLETE_MAX] = k.complete_bet_max
    v[K_PARTIAL_DEADLINE] = k.partial_bet_deadline_trick
    v[K_COMPLETE_DEADLINE] = k.complete_bet_deadline_trick
    v[K_COMPLETE_TRICKS] = k.complete_tricks
    v[K_CONCEDE_KEEPS] = k.concede_rule == "keeps_loss"
    v[K_FAULT_POSSESS] = k.pure_demon_fault == "hand_or_possession"
    v[K_CONSECUTIVE] = k.combo_requires_consecutive
    v[K_P2], v[K_P3], v[K_P4], v[K_P5] = k.pareil_2, k.pareil_3, k.pareil_4, k.pareil_5
    v[K_S2], v[K_S3], v[K_S4] = k.suite_2, k.suite_3, k.suite_4
    v[K_FAIL] = k.combo_fail_penalty
    v[K_REVEAL_PEN] = k.reveal_penalty
    v[K_FAULT_PEN] = k.pure_demon_fault_penalty
    v[K_TARGET] = k.target
    v[K_MUST_BET] = k.must_bet_to_win
    v[K_MAX_DEALS] = k.max_deals
    v[K_BET_PARTIAL] = k.bet_partial_at
    v[K_BET_COMPLETE] = k.bet_complete_at
    v[K_HOLD] = k.hold_at
    v[K_RAISE] = k.raise_at
    v[K_NEAR] = k.near_target
    v[K_WORLDS] = k.search_worlds
    v[K_TIE_VOID] = k.most_tricks_tie == "void"
    v[K_BONUS_ANY] = k.diable_bonus_tricks == "any"
    return v


# --- the state of a deal ----------------------------------------------------------------
P_OPEN, P_RESPOND, P_PLAY, P_REVEAL_SWAP, P_DONE = range(5)
LED_NONE, LED_PURE = -1, 4  # S_LED: a suit 0..3, a pure Démon, or nothing led yet
(S_PHASE, S_DEALER, S_LEADER, S_TO_MOVE, S_PLY, S_TRICK, S_N_PLAYED, S_LED, S_TURNED,
 S_GONE, S_DIABLE, S_DEMON_CARD, S_REVEALED, S_REMOVED, S_PB_LEVEL, S_CB_LEVEL,
 S_PB_OPENED, S_CB_OPENED, S_BR_KIND, S_BR_LEFT, S_OPEN_LEFT, S_BEST_P, S_BEST_P_OWNER,
 S_BEST_S, S_BEST_S_OWNER, S_REVEAL_TRICK, S_REVEAL_SWAP, S_FAULT, S_N_POSSESS,
 S_N_PAREIL, S_N_SUITE, S_N_PURE_LEADS, S_N_BET_P, S_N_BET_C, S_N_HOLD, S_N_RAISE,
 S_N_CONCEDE, S_REDEALS, S_SIX_CHANCES, S_SIX_SWAPS, S_N_RESPONSES, S_PURE_CUTS) = range(42)
SEATS = 42  # per-seat blocks of 3 slots from here
(S_HAND, S_COLOUR, S_TRICKS, S_PTS, S_SIXES, S_PWIN, S_PLOSE, S_CWIN, S_CLOSE, S_CONCEDED,
 S_BET_ANY, S_SHOWN, S_KNOWN, S_VOID, S_REMOVED_BY, S_CA_TYPE, S_CA_LO, S_CA_HI, S_CA_SUIT,
 S_CA_LEN, S_FREE, S_PEN, S_FAILS, S_DEMONS_DEALT, S_TC, S_TP, S_TS, S_REMOVED_OWN,
 S_SPARE) = range(SEATS, SEATS + 3 * 29, 3)
N_STATE = SEATS + 3 * 29
MAX_MOVES = 256
# moves
POSSESS_UNIT = 64
ANNOUNCE_UNIT = 4096
A_NONE, A_PAREIL, A_SUITE = range(3)
B_PASS, B_PARTIAL, B_COMPLETE = 1 << 20, (1 << 20) + 1, (1 << 20) + 2
R_CONCEDE, R_HOLD, R_RAISE = (1 << 20) + 3, (1 << 20) + 4, (1 << 20) + 5
RS_NONE = (1 << 21) - 1
RS_BASE = 1 << 21
VOID_DEMONS = 4  # bit of S_VOID: seen without a Démon (a pure-Démon lead not answered)


@hot
def card_of(move: int) -> int:
    return move % POSSESS_UNIT


@hot
def possessed_of(move: int) -> int:
    return (move // POSSESS_UNIT) % POSSESS_UNIT - 1


@hot
def announce_of(move: int) -> int:
    return move // ANNOUNCE_UNIT


@hot
def play_move(card: int, possessed: int, announce: int) -> int:
    return card + POSSESS_UNIT * (possessed + 1) + ANNOUNCE_UNIT * announce


@hot
def hand_of(state: np.ndarray, p: int) -> np.uint64:
    return np.uint64(state[S_HAND + p])


@hot
def turned(state: np.ndarray) -> np.uint64:
    return np.uint64(state[S_TURNED])


@hot
def to_move(state: np.ndarray) -> int:
    return -1 if state[S_PHASE] == P_DONE else state[S_TO_MOVE]


# --- the deal ------------------------------------------------------------------------------
@hot
def all_demons_turned(deck: np.ndarray) -> bool:
    """§5 "Si les 5 Démon font partie des cartes retournées, alors la donne est annulée":
    whether ``deck`` (top card first) turns every Démon (``deal`` puts the 6 turned cards
    at the slots ``turned_slot`` marks)."""
    n = 0
    for i in range(HAND * PLAYERS + N_TURNED):
        if turned_slot(i) and DEMON_NO[deck[i]] > 0:
            n += 1
    return n == 5


@hot
def turned_slot(i: int) -> bool:
    """§5 dealing order: rounds of 2 to the dealer's left, the turned pile 'en face',
    the dealer's right, the dealer, for 3 rounds (8 cards each); a 4th round of 2 and a
    last round of 1 to the three players. True when the ``i``-th card dealt goes to the
    turned pile."""
    return i < 24 and (i % 8) // 2 == 1


@hot
def slot_seat(i: int, dealer: int) -> int:
    """The seat getting the ``i``-th card dealt (-1: the turned pile)."""
    if i < 24:
        k = (i % 8) // 2  # 0 left, 1 pile, 2 right, 3 dealer
        if k == 1:
            return -1
        return (dealer + (1 if k == 0 else 2 if k == 2 else 3)) % 3
    if i < 30:
        return (dealer + 1 + (i - 24) // 2) % 3
    return (dealer + 1 + (i - 30)) % 3


@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, colours: np.ndarray,
         kv: np.ndarray) -> None:
    """Deal ``deck`` (top card first, not all Démons turned): 9 cards each and 6 turned,
    designate the Diable (§5: the holder of the strongest Démon not turned), open the
    first betting window. The six-swap (``six_swap``) follows, chosen by the players."""
    for i in range(N_STATE):
        state[i] = 0
    state[S_DEALER] = dealer
    t = EMPTY
    for i in range(HAND * PLAYERS + N_TURNED):
        s = slot_seat(i, dealer)
        c = deck[i]
        if s < 0:
            t |= bit(c)
        else:
            state[S_HAND + s] = np.int64(hand_of(state, s) | bit(c))
    state[S_TURNED] = np.int64(t)
    for p in range(PLAYERS):
        state[S_COLOUR + p] = colours[p]
        state[S_FREE + p] = 1
        state[S_CA_TYPE + p] = A_NONE
        state[S_TP + p] = -1
        state[S_TC + p] = -1
        state[S_DEMONS_DEALT + p] = count(hand_of(state, p) & DEMON_MASK)
    # §5 "Le joueur qui reçoit le 1 d'Atout est le joueur Diable ... si le 1 d'Atout est
    # présent parmi les cartes retournées, alors le 2 d'Atout désigne le Diable ..."
    state[S_DIABLE] = -1
    for c in range(FIRST_DEMON, N_CARDS):
        if t & bit(c) == EMPTY:
            state[S_DEMON_CARD] = c
            for p in range(PLAYERS):
                if hand_of(state, p) & bit(c) != EMPTY:
                    state[S_DIABLE] = p
            break
    state[S_BEST_P] = -1
    state[S_BEST_P_OWNER] = -1
    state[S_BEST_S] = -1
    state[S_BEST_S_OWNER] = -1
    state[S_REVEAL_TRICK] = -1
    state[S_LED] = LED_NONE
    leader = (dealer + 1) % 3
    state[S_LEADER] = leader
    start_trick(state, kv)


@hot
def six_swaps_allowed(state: np.ndarray, p: int) -> int:
    """§6 a pair of 6s: one swap; three: two; four: three."""
    n = count(hand_of(state, p) & SIX_MASK)
    return n - 1 if n >= 2 else 0


@hot
def six_swap(state: np.ndarray, p: int, give: int, take: int) -> None:
    """§6 the seat shows its 6s and swaps hand card ``give`` for turned card ``take``;
    "La carte qu'il défausse est écartée face cachée, elle ne rejoint pas les rangs des
    cartes retournées". The shown 6s are public (``S_SHOWN``, ``S_KNOWN``)."""
    sixes = hand_of(state, p) & SIX_MASK
    state[S_SHOWN + p] = np.int64(np.uint64(state[S_SHOWN + p]) | sixes)
    h = (hand_of(state, p) & ~bit(give)) | bit(take)
    state[S_HAND + p] = np.int64(h)
    state[S_TURNED] = np.int64(turned(state) & ~bit(take))
    state[S_REMOVED] = np.int64(np.uint64(state[S_REMOVED]) | bit(give))
    state[S_REMOVED_BY + p] += 1
    state[S_REMOVED_OWN + p] = np.int64(np.uint64(state[S_REMOVED_OWN + p]) | bit(give))
    known = (np.uint64(state[S_SHOWN + p]) | bit(take)) & h
    state[S_KNOWN + p] = np.int64((np.uint64(state[S_KNOWN + p]) | known) & h)
    state[S_SIX_SWAPS] += 1


# --- betting windows --------------------------------------------------------------------
@hot
def can_open_partial(state: np.ndarray, kv: np.ndarray) -> bool:
    """§7.1 until the first card of trick 3; "On ne peut pas parier sur un gain partiel si
    un pari sur gain complet a déjà eu lieu"; one partial bet a deal (later stakes are
    raises)."""
    return state[S_TRICK] < kv[K_PARTIAL_DEADLINE] - 1 and state[S_PB_OPENED] == 0 \
        and state[S_CB_OPENED] == 0


@hot
def can_open_complete(state: np.ndarray, kv: np.ndarray) -> bool:
    """§7.2 until the first card of trick 5, whether or not a partial bet was made."""
    return state[S_TRICK] < kv[K_COMPLETE_DEADLINE] - 1 and state[S_CB_OPENED] == 0


@hot
def next_opener(state: np.ndarray, kv: np.ndarray, seat: int, left: int) -> bool:
    """Offer the window to ``seat`` or the next seats (``left`` of them, in turn from the
    leader); skip those who conceded (§7.1 "il est hors des paris") or when no bet can be
    opened. True when a seat is asked."""
    if not (can_open_partial(state, kv) or can_open_complete(state, kv)):
        return False
    while left > 0:
        if state[S_CONCEDED + seat] == 0:
            state[S_PHASE] = P_OPEN
            state[S_TO_MOVE] = seat
            state[S_OPEN_LEFT] = left
            return True
        seat = (seat + 1) % 3
        left -= 1
    return False


@hot
def start_trick(state: np.ndarray, kv: np.ndarray) -> None:
    """A new trick: the betting window first (bets "à n'importe quel moment": modelled as
    one window before each trick's lead, each seat asked once in turn from the leader),
    then the lead."""
    state[S_N_PLAYED] = 0
    state[S_LED] = LED_NONE
    if not next_opener(state, kv, state[S_LEADER], 3):
        to_play(state)


@hot
def to_play(state: np.ndarray) -> None:
    state[S_PHASE] = P_PLAY
    state[S_TO_MOVE] = (state[S_LEADER] + state[S_N_PLAYED]) % 3


@hot
def bet_legal(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    n = 0
    if state[S_PHASE] == P_OPEN:
        out[0] = B_PASS
        n = 1
        if can_open_partial(state, kv):
            out[n] = B_PARTIAL
            n += 1
        if can_open_complete(state, kv):
            out[n] = B_COMPLETE
            n += 1
        return n
    out[0] = R_CONCEDE
    out[1] = R_HOLD
    n = 2
    if can_raise(state, kv):
        out[2] = R_RAISE
        n = 3
    return n


@hot
def can_raise(state: np.ndarray, kv: np.ndarray) -> bool:
    """§7.1 "Il n'est possible de monter que jusqu'à un enjeu de 40 points" (§7.2: 80)."""
    if state[S_BR_KIND] == 0:
        return state[S_PB_LEVEL] * 2 <= kv[K_PARTIAL_MAX]
    return state[S_CB_LEVEL] * 2 <= kv[K_COMPLETE_MAX]


@hot
def ask_round(state: np.ndarray, from_seat: int) -> None:
    """A round of answers to a bet or a raise by ``from_seat``: every other seat that has
    not conceded, in turn (catalogue ambiguity 9)."""
    state[S_BR_LEFT] = 2
    state[S_TO_MOVE] = from_seat
    advance_round(state)


@hot
def advance_round(state: np.ndarray) -> bool:
    """Ask the next seat of the round; False when the round is over."""
    while state[S_BR_LEFT] > 0:
        state[S_BR_LEFT] -= 1
        s = (state[S_TO_MOVE] + 1) % 3
        state[S_TO_MOVE] = s
        if state[S_CONCEDED + s] == 0:
            state[S_PHASE] = P_RESPOND
            return True
    return False


@hot
def engage(state: np.ndarray, p: int, kind: int, level: int) -> None:
    """``p`` is engaged for gain and loss on ``level`` (bet, hold or raise)."""
    state[S_BET_ANY + p] = 1
    if kind == 0:
        state[S_PWIN + p] = level
        state[S_PLOSE + p] = level
    else:
        state[S_CWIN + p] = level
        state[S_CLOSE + p] = level


@hot
def apply_bet(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    state[S_PLY] += 1
    if state[S_PHASE] == P_OPEN:
        left = state[S_OPEN_LEFT] - 1
        if move == B_PASS:
            if not next_opener(state, kv, (p + 1) % 3, left):
                to_play(state)
            return
        # "je parie sur les plis": the stake doubles (5 -> 10); complete: 20
        kind = 0 if move == B_PARTIAL else 1
        state[S_BR_KIND] = kind
        if kind == 0:
            state[S_PB_OPENED] = 1
            state[S_PB_LEVEL] = 2 * kv[K_PARTIAL_BASE] if kv[K_PARTIAL_BASE] > 0 else 10
            state[S_N_BET_P] += 1
            engage(state, p, 0, state[S_PB_LEVEL])
        else:
            state[S_CB_OPENED] = 1
            state[S_CB_LEVEL] = kv[K_COMPLETE_START]
            state[S_N_BET_C] += 1
            engage(state, p, 1, state[S_CB_LEVEL])
        state[S_OPEN_LEFT] = left
        ask_round(state, p)
        return
    # P_RESPOND
    kind = state[S_BR_KIND]
    state[S_N_RESPONSES] += 1
    if move == R_CONCEDE:
        # "il n'est plus concerné par l'enjeu du gain des plis (partiel ou complet)": no
        # gain on either; an engagement already made is kept for loss (knob concede_rule)
        state[S_N_CONCEDE] += 1
        state[S_CONCEDED + p] = 1
        state[S_PWIN + p] = 0
        state[S_CWIN + p] = 0
        if kv[K_CONCEDE_KEEPS] == 0:
            state[S_PLOSE + p] = 0
            state[S_CLOSE + p] = 0
    elif move == R_HOLD:
        state[S_N_HOLD] += 1
        engage(state, p, kind, state[S_PB_LEVEL] if kind == 0 else state[S_CB_LEVEL])
    else:
        # "monter: l'enjeu est doublé à nouveau ... Le parieur d'origine reste engagé, mais
        # seulement à perte": every engaged player keeps his loss and must answer again
        state[S_N_RAISE] += 1
        if kind == 0:
            state[S_PB_LEVEL] *= 2
            lvl = state[S_PB_LEVEL]
            for q in range(3):
                state[S_PWIN + q] = 0
        else:
            state[S_CB_LEVEL] = min(state[S_CB_LEVEL] * 2, kv[K_COMPLETE_MAX])
            lvl = state[S_CB_LEVEL]
            for q in range(3):
                state[S_CWIN + q] = 0
        engage(state, p, kind, lvl)
        ask_round(state, p)
        return
    if advance_round(state):
        return
    # the rounds are over: the window goes on with the seats not yet asked
    opener_next = (state[S_LEADER] + 3 - state[S_OPEN_LEFT]) % 3
    if not next_opener(state, kv, opener_next, state[S_OPEN_LEFT]):
        to_play(state)


# --- the trick ----------------------------------------------------------------------------
@hot
def must_answer_pure(state: np.ndarray, p: int) -> bool:
    """§8 a pure Démon led: "les autres joueurs doivent fournir un Démon eux aussi, et ne
    peuvent lui faire prendre aucune apparence"."""
    return state[S_LED] == LED_PURE and hand_of(state, p) & DEMON_MASK != EMPTY


@hot
def legal_moves(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """Every legal move of the seat to move, in a fixed order. Card plays list each legal
    (card, possessed) pair with each announcement it may carry."""
    ph = state[S_PHASE]
    if ph == P_OPEN or ph == P_RESPOND:
        return bet_legal(state, kv, out)
    if ph == P_REVEAL_SWAP:
        return reveal_swap_legal(state, out)
    if ph != P_PLAY:
        return 0
    p = state[S_TO_MOVE]
    n = 0
    m = playable_plain(state, kv, p)
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        n = add_announced(state, p, c, -1, out, n)
    dm = playable_demons(state, kv, p)
    while dm != EMPTY:
        d = lowest(dm)
        dm &= dm - ONE
        if pure_allowed(state, kv, p):
            out[n] = play_move(d, -1, A_NONE)
            n += 1
        pm = possessable(state, p)
        while pm != EMPTY:
            t = lowest(pm)
            pm &= pm - ONE
            n = add_announced(state, p, d, t, out, n)
    return n


@hot
def playable_plain(state: np.ndarray, kv: np.ndarray, p: int) -> np.uint64:
    """Ordinary hand cards ``p`` may play: §8 the led suit if he holds it, else any; to a
    pure-Démon lead, any ordinary card only when he holds no Démon."""
    h = hand_of(state, p) & ORDINARY_MASK
    led = state[S_LED]
    if led == LED_NONE:
        return h
    if led == LED_PURE:
        return EMPTY if hand_of(state, p) & DEMON_MASK != EMPTY else h
    follow = h & SUIT_MASK[led]
    return follow if follow != EMPTY else h


@hot
def playable_demons(state: np.ndarray, kv: np.ndarray, p: int) -> np.uint64:
    return hand_of(state, p) & DEMON_MASK


@hot
def pure_allowed(state: np.ndarray, kv: np.ndarray, p: int) -> bool:
    """A pure Démon may be led, must answer a pure lead, and otherwise may be played only
    by a player without the led suit in hand (§13's fault; with ``pure_demon_fault`` =
    hand_or_possession, also without a turned card of it to possess)."""
    led = state[S_LED]
    if led == LED_NONE or led == LED_PURE:
        return True
    if hand_of(state, p) & SUIT_MASK[led] != EMPTY:
        return False
    if kv[K_FAULT_POSSESS] and turned(state) & SUIT_MASK[led] != EMPTY:
        return False
    return True


@hot
def possessable(state: np.ndarray, p: int) -> np.uint64:
    """Turned cards a Démon of ``p`` may possess now: none to answer a pure-Démon lead;
    when a suit is led and ``p`` holds it, only a turned card of that suit (§8 "répondre
    avec la couleur demandée ou un Démon possédant une carte de cette couleur")."""
    led = state[S_LED]
    t = turned(state) & ORDINARY_MASK
    if led == LED_PURE:
        return EMPTY
    if led == LED_NONE:
        return t
    if hand_of(state, p) & SUIT_MASK[led] != EMPTY:
        return t & SUIT_MASK[led]
    return t


@hot
def is_fault(state: np.ndarray, card: int, possessed: int) -> bool:
    """§13 "Si un joueur joue un Démon pur alors qu'il avait en main la couleur demandée
    (A DECIDER: ou qu'il pouvait posséder une carte de cette couleur)" (the knob decides
    the bracket). ``legal_moves`` never lists such a move; ``apply_move`` punishes it."""
    led = state[S_LED]
    if DEMON_NO[card] == 0 or possessed >= 0 or led == LED_NONE or led == LED_PURE:
        return False
    return hand_of(state, state[S_TO_MOVE]) & SUIT_MASK[led] != EMPTY


@hot
def combo_card(card: int, possessed: int) -> int:
    """The card a play counts as in combinations (§9 "Les cartes pour lesquelles peut se
    faire passer un Démon sont prises en compte"); -1 for a pure Démon or a 6."""
    c = possessed if possessed >= 0 else card
    if DEMON_NO[c] > 0 or COMBO_RANK[c] < 0:
        return -1
    return c


@hot
def continues(state: np.ndarray, p: int, c: int, kind: int) -> bool:
    """Whether ``c`` extends ``p``'s attempt in progress of ``kind``."""
    if state[S_CA_TYPE + p] != kind:
        return False
    r = COMBO_RANK[c]
    if kind == A_PAREIL:
        return r == state[S_CA_LO + p]
    return SUIT[c] == state[S_CA_SUIT + p] and (r == state[S_CA_LO + p] - 1
                                                 or r == state[S_CA_HI + p] + 1)


@hot
def add_announced(state: np.ndarray, p: int, card: int, possessed: int, out: np.ndarray,
                  n: int) -> int:
    """The play with no announcement, then for a card that can be in a combination
    "pour un Pareil" and "pour une Suite" (each continues the attempt in progress of its
    kind when it can, else starts one)."""
    out[n] = play_move(card, possessed, A_NONE)
    n += 1
    if combo_card(card, possessed) >= 0:
        out[n] = play_move(card, possessed, A_PAREIL)
        out[n + 1] = play_move(card, possessed, A_SUITE)
        n += 2
    return n


@hot
def trick_key(card: int, possessed: int, led: int) -> int:
    """Strength in the trick: a pure Démon 1000 - number; a card of the led suit its rank
    x 10, + 6 - the Démon's number when possessed (§8 "la carte possédée l'emporte" on an
    identical ordinary card; two possessed: "d'abord la valeur des cartes retournées
    choisies ... puis l'ordre des Démons"); anything else -1."""
    if possessed < 0 and DEMON_NO[card] > 0:
        return 1000 - DEMON_NO[card]
    c = possessed if possessed >= 0 else card
    if led == LED_PURE or SUIT[c] != led:
        return -1
    key = TRICK_RANK[c] * 10
    if possessed >= 0:
        key += 6 - DEMON_NO[card]
    return key


@hot
def trick_winner_index(state: np.ndarray) -> int:
    """The play (0 = lead) holding the trick: the strongest pure Démon, else the strongest
    card of the led suit; an equal key goes to the earlier play."""
    best = 0
    best_key = -2
    led = state[S_LED]
    for i in range(state[S_N_PLAYED]):
        k = trick_key(state[S_TC + i], state[S_TP + i], led)
        if k > best_key:
            best_key = k
            best = i
    return best


@hot
def apply_move(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    """The seat to move makes ``move``."""
    ph = state[S_PHASE]
    if ph == P_OPEN or ph == P_RESPOND:
        apply_bet(state, move, kv)
        return
    if ph == P_REVEAL_SWAP:
        apply_reveal_swap(state, move, kv)
        return
    p = state[S_TO_MOVE]
    card = card_of(move)
    pos = possessed_of(move)
    ann = announce_of(move)
    state[S_PLY] += 1
    if is_fault(state, card, pos):
        # "la donne est arrêtée, annulée et le fautif est pénalisé d'une perte de 100"
        state[S_FAULT] = p + 1
        state[S_PHASE] = P_DONE
        state[S_TO_MOVE] = -1
        return
    state[S_HAND + p] = np.int64(hand_of(state, p) & ~bit(card))
    if pos >= 0:
        state[S_TURNED] = np.int64(turned(state) & ~bit(pos))
        state[S_N_POSSESS] += 1
    gone = np.uint64(state[S_GONE]) | bit(card)
    if pos >= 0:
        gone |= bit(pos)
    state[S_GONE] = np.int64(gone)
    state[S_KNOWN + p] = np.int64(np.uint64(state[S_KNOWN + p]) & ~bit(card))
    i = state[S_N_PLAYED]
    led = state[S_LED]
    # what the others learn: a void in the led suit, or no Démon left
    if i == 0:
        if pos >= 0:
            state[S_LED] = SUIT[pos]
        elif DEMON_NO[card] > 0:
            state[S_LED] = LED_PURE
            state[S_N_PURE_LEADS] += 1
        else:
            state[S_LED] = SUIT[card]
    elif led == LED_PURE:
        if DEMON_NO[card] == 0:
            state[S_VOID + p] |= 1 << VOID_DEMONS
    else:
        c = pos if pos >= 0 else card
        if DEMON_NO[c] > 0 or SUIT[c] != led:
            state[S_VOID + p] |= 1 << led
        if pos < 0 and DEMON_NO[card] > 0:
            state[S_PURE_CUTS] += 1
    state[S_TC + i] = card
    state[S_TP + i] = pos
    state[S_TS + i] = p
    state[S_N_PLAYED] = i + 1
    announce(state, p, combo_card(card, pos), ann, kv)
    # §8 the Diable reveals himself "lorsqu'il joue le plus fort Démon ne faisant pas
    # partie des cartes retournées"
    if card == state[S_DEMON_CARD] and p == state[S_DIABLE]:
        state[S_REVEALED] = 1
        state[S_REVEAL_TRICK] = state[S_TRICK]
    if i + 1 < 3:
        state[S_TO_MOVE] = (p + 1) % 3
        return
    end_trick(state, kv)


@hot
def end_trick(state: np.ndarray, kv: np.ndarray) -> None:
    w = state[S_TS + trick_winner_index(state)]
    state[S_TRICKS + w] += 1
    state[S_PTS + w] += trick_points(state, w, kv)
    d = state[S_DIABLE]
    if kv[K_BONUS_ANY] and d != w and d >= 0:
        state[S_PTS + d] += demon_trick_faces(state) * kv[K_DEMON_TRICK]
    for i in range(3):
        for c in (state[S_TC + i], state[S_TP + i]):
            if c >= 0 and SIX_MASK & bit(c) != EMPTY:
                state[S_SIXES + w] += 1
    revealed_now = state[S_REVEAL_TRICK] == state[S_TRICK] and state[S_REVEALED] == 1
    state[S_TRICK] += 1
    state[S_LEADER] = w
    for i in range(3):
        state[S_TC + i] = -1
        state[S_TP + i] = -1
    state[S_N_PLAYED] = 0
    if revealed_now and hand_of(state, state[S_DIABLE]) != EMPTY \
            and turned(state) != EMPTY:
        # §8 "À la fin du pli où le Diable se révèle ... il a le droit d'échanger"
        state[S_PHASE] = P_REVEAL_SWAP
        state[S_TO_MOVE] = state[S_DIABLE]
        return
    after_trick(state, kv)


@hot
def after_trick(state: np.ndarray, kv: np.ndarray) -> None:
    if state[S_TRICK] == HAND:
        state[S_PHASE] = P_DONE
        state[S_TO_MOVE] = -1
        for p in range(3):
            close_attempt(state, p, kv)
        return
    start_trick(state, kv)


@hot
def reveal_swap_legal(state: np.ndarray, out: np.ndarray) -> int:
    out[0] = RS_NONE
    n = 1
    h = hand_of(state, state[S_TO_MOVE])
    while h != EMPTY:
        g = lowest(h)
        h &= h - ONE
        t = turned(state)
        while t != EMPTY:
            c = lowest(t)
            t &= t - ONE
            out[n] = RS_BASE + g * 64 + c
            n += 1
    return n


@hot
def apply_reveal_swap(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    """"la carte qu'il défausse rejoint les cartes retournées; elle est donc visible de
    tous et est susceptible d'être possédée": the taken card is known in his hand."""
    p = state[S_TO_MOVE]
    state[S_PLY] += 1
    if move != RS_NONE:
        g = (move - RS_BASE) // 64
        t = (move - RS_BASE) % 64
        state[S_HAND + p] = np.int64((hand_of(state, p) & ~bit(g)) | bit(t))
        state[S_TURNED] = np.int64((turned(state) & ~bit(t)) | bit(g))
        state[S_KNOWN + p] = np.int64((np.uint64(state[S_KNOWN + p]) & ~bit(g)) | bit(t))
        state[S_REVEAL_SWAP] = 1
    after_trick(state, kv)


# --- combinations ------------------------------------------------------------------------------
@hot
def pareil_points(length: int, kv: np.ndarray) -> int:
    if length >= 5:
        return kv[K_P5]
    return kv[K_P2 + length - 2] if length >= 2 else 0


@hot
def suite_points(length: int, kv: np.ndarray) -> int:
    return kv[K_S2 + length - 2] if length >= 2 else 0


@hot
def record_combo(state: np.ndarray, p: int, kind: int, strength: int) -> None:
    """§9 "Seule la meilleure combinaison de chaque catégorie est récompensée"; "En cas
    d'égalité, personne ne marque. Un Pareil gagnant peut ainsi être annulé par un
    Pareil de même force réalisé plus tard par un adversaire." Owner -1: nobody (none, or
    cancelled by a tie)."""
    best = S_BEST_P if kind == A_PAREIL else S_BEST_S
    if strength > state[best]:
        state[best] = strength
        state[best + 1] = p
    elif strength == state[best] and state[best + 1] != p:
        state[best + 1] = -1


@hot
def close_attempt(state: np.ndarray, p: int, kv: np.ndarray) -> None:
    """An attempt ends: failed when it never reached a pair or a seconde: "pas de
    pénalité pour la première combinaison échouée ... le deuxième échec est puni d'une
    perte de 10 points ... un succès redonne le droit à un échec impuni"."""
    if state[S_CA_TYPE + p] == A_NONE:
        return
    if state[S_CA_LEN + p] < 2:
        state[S_FAILS + p] += 1
        if state[S_FREE + p] == 1:
            state[S_FREE + p] = 0
        else:
            state[S_PEN + p] += kv[K_FAIL]
    state[S_CA_TYPE + p] = A_NONE
    state[S_CA_LEN + p] = 0


@hot
def announce(state: np.ndarray, p: int, c: int, ann: int, kv: np.ndarray) -> None:
    """§9 a card "annoncée comme débutant/appartenant soit à un Pareil, soit à une Suite":
    it continues the attempt in progress of that kind when it fits, else starts a new one
    (ending the one in progress). With ``combo_requires_consecutive``, a card played for
    nothing ends the attempt in progress."""
    if ann == A_NONE or c < 0:
        if kv[K_CONSECUTIVE]:
            close_attempt(state, p, kv)
        return
    if ann == A_PAREIL:
        state[S_N_PAREIL] += 1
    else:
        state[S_N_SUITE] += 1
    r = COMBO_RANK[c]
    if continues(state, p, c, ann):
        length = state[S_CA_LEN + p] + 1
        state[S_CA_LEN + p] = length
        if ann == A_SUITE:
            state[S_CA_LO + p] = min(state[S_CA_LO + p], r)
            state[S_CA_HI + p] = max(state[S_CA_HI + p], r)
        if length == 2:
            state[S_FREE + p] = 1  # a success restores a free failure
        top = state[S_CA_LO + p] if ann == A_PAREIL else state[S_CA_HI + p]
        record_combo(state, p, ann, length * 8 + top)
        return
    close_attempt(state, p, kv)
    state[S_CA_TYPE + p] = ann
    state[S_CA_LO + p] = r
    state[S_CA_HI + p] = r
    state[S_CA_SUIT + p] = SUIT[c]
    state[S_CA_LEN + p] = 1


# --- scoring --------------------------------------------------------------------------------------
@hot
def base_value(c: int, diable: bool, kv: np.ndarray) -> int:
    """§3 the human values (6 0, Valet 1, Dame 4, Cavalier 2, Roi 2); "Pour le joueur
    Diable, la valeur de base est de 1 pt pour toutes les cartes ordinaires"; "Les Démon
    n'ont pas de valeur"."""
    v = VALUE_INDEX[c]
    if v < 0:
        return 0
    if diable:
        return kv[K_DIABLE_BASE]
    return kv[K_V6 + v]


@hot
def trick_points(state: np.ndarray, w: int, kv: np.ndarray) -> int:
    """The points of the trick on the table for its winner ``w`` (§10): base values, +1 per
    face card of his colour (the Diable: his 8's suit and ♥), the Diable's +1 per face
    card of a trick holding a Démon (catalogue ambiguity 13: the possessed card counts)."""
    diable = w == state[S_DIABLE]
    pts = 0
    faces = 0
    has_demon = False
    for i in range(3):
        for c in (state[S_TC + i], state[S_TP + i]):
            if c < 0:
                continue
            if DEMON_NO[c] > 0:
                has_demon = True
                continue
            pts += base_value(c, diable, kv)
            if FACE_MASK & bit(c) != EMPTY:
                faces += 1
                s = SUIT[c]
                if s == state[S_COLOUR + w] or (diable and s == HEARTS):
                    pts += kv[K_COLOUR_BONUS]
    if diable and has_demon:
        pts += faces * kv[K_DEMON_TRICK]
    return pts


@hot
def demon_trick_faces(state: np.ndarray) -> int:
    """Face cards in the trick on the table when it holds a Démon, else 0."""
    faces = 0
    has_demon = False
    for i in range(3):
        for c in (state[S_TC + i], state[S_TP + i]):
            if c < 0:
                continue
            if DEMON_NO[c] > 0:
                has_demon = True
            elif FACE_MASK & bit(c) != EMPTY:
                faces += 1
    return faces if has_demon else 0


@hot
def most_tricks(state: np.ndarray) -> int:
    """§7.1 "remporter plus de plis que chacun des adversaires": the seat with strictly
    the most tricks, -1 on a tie for the most (catalogue ambiguity 6)."""
    best = -1
    top = -1
    for p in range(3):
        t = state[S_TRICKS + p]
        if t > top:
            top = t
            best = p
        elif t == top:
            best = -1
    return best


@hot
def bet_payout(state: np.ndarray, p: int, kv: np.ndarray) -> int:
    """§7 the trick stakes for ``p``: the complete gain settles the players engaged on it
    (their partial engagements lapse: §7.1 "les paris existants sur un gain partiel sont
    conservés pour les joueurs qui n'ont pas parié, tenu ou monté sur un gain complet");
    the partial stake (base 5 without a bet) the others; an engaged player who does not
    win loses what he engaged."""
    if state[S_CWIN + p] > 0 or state[S_CLOSE + p] > 0:
        if state[S_TRICKS + p] >= kv[K_COMPLETE_TRICKS]:
            return state[S_CWIN + p]
        return -state[S_CLOSE + p]
    top = most_tricks(state)
    if state[S_PB_OPENED] == 0:
        if top == p and state[S_CONCEDED + p] == 0:
            return kv[K_PARTIAL_BASE]
        return 0
    if top == p:
        return state[S_PWIN + p]
    if top < 0 and kv[K_TIE_VOID]:
        return 0
    return -state[S_PLOSE + p]


@hot
def combo_points(state: np.ndarray, p: int, kv: np.ndarray) -> tuple[int, int]:
    """(best Pareil's points, best Suite's points) ``p`` scores."""
    par = 0
    sui = 0
    if state[S_BEST_P_OWNER] == p:
        par = pareil_points(state[S_BEST_P] // 8, kv)
    if state[S_BEST_S_OWNER] == p:
        sui = suite_points(state[S_BEST_S] // 8, kv)
    return par, sui


@hot
def deal_score(state: np.ndarray, p: int, kv: np.ndarray) -> int:
    """§11 what ``p`` marks: his tricks' points, the best Suite and Pareil if his, the
    trick stakes, less failure penalties; the Diable's three-6s bonus. A fault annuls the
    deal: only the offender's -100."""
    if state[S_FAULT] > 0:
        return -kv[K_FAULT_PEN] if state[S_FAULT] == p + 1 else 0
    s = state[S_PTS + p]
    if p == state[S_DIABLE] and state[S_SIXES + p] >= 3:
        s += kv[K_THREE_SIXES]
    par, sui = combo_points(state, p, kv)
    return s + par + sui + bet_payout(state, p, kv) - state[S_PEN + p]


# --- result columns ----------------------------------------------------------------------------
(C_DEAL, C_DEALER, C_SCORE, C_CARD_PTS, C_COMBO, C_BETS, C_PEN, C_TRICKS, C_DEMONS,
 C_BET_ANY, C_DIABLE, C_DIABLE_DEMON, C_REVEALED, C_REVEAL_TRICK, C_REVEAL_SWAP,
 C_PARTIAL_LEVEL, C_COMPLETE_LEVEL, C_MOST, C_POSSESS, C_PAREIL_ANN, C_SUITE_ANN,
 C_PURE_LEADS, C_BETS_P, C_BETS_C, C_HOLDS, C_RAISES, C_CONCEDES, C_RESPONSES,
 C_SIX_CHANCES, C_SIX_SWAPS, C_REDEALS, C_BEST_P, C_BEST_S, C_FAULT, C_WINNER,
 C_DIABLE_WON) = (0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 26, 27, 28, 29, 30, 31, 32, 33, 34,
                  35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51)
N_DEAL_COLS = 52


def deal_columns(_: DemonsKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer", help="the seat after the dealer leads first")]
    for name, text in (("score", "points marked this deal (all sources)"),
                       ("card_pts", "points of the tricks won (base, colour, Diable extras)"),
                       ("combo", "best Pareil and best Suite points won"),
                       ("bets", "trick stakes won (+) or lost (-)"),
                       ("penalty", "failed-combination penalties (a positive number)"),
                       ("tricks", "tricks won (of 9)"),
                       ("demons", "Démons dealt to the seat (before the six-swap)"),
                       ("bet_any", "1 when the seat bet, held or raised this deal")):
        cols += [Column(f"{name}_s{i}", BOOL if name == "bet_any" else "int", help=text)
                 for i in range(3)]
    cols += [Column("diable", help="the Diable's seat (hidden from the others until he "
                    "reveals himself)"),
             Column("diable_demon", help="the Démon number designating him (1 = the 1 of "
                    "trumps)"),
             Column("revealed", BOOL, help="the Diable played his designating Démon"),
             Column("reveal_trick", help="trick (1-9) where he revealed himself, -1 never"),
             Column("reveal_swap", BOOL, help="he used the reveal-swap"),
             Column("partial_level", help="partial stake (0: no bet; 10 / 20 / 40)"),
             Column("complete_level", help="complete stake (0: no bet; 20 / 40 / 80)"),
             Column("most_tricks", help="seat with strictly the most tricks, -1 on a tie"),
             Column("possessions", help="Démons played possessing a turned card"),
             Column("pareil_announces", help="cards announced for a Pareil"),
             Column("suite_announces", help="cards announced for a Suite"),
             Column("pure_leads", help="tricks led with a pure Démon"),
             Column("partial_bets", help="partial bets opened (0 or 1)"),
             Column("complete_bets", help="complete bets opened (0 or 1)"),
             Column("holds", help="answers 'tenir'"),
             Column("raises", help="answers 'monter'"),
             Column("concedes", help="answers 'concéder'"),
             Column("responses", help="answers to bets in all"),
             Column("six_chances", help="seats dealt two 6s or more (may six-swap)"),
             Column("six_swaps", help="six-swaps made"),
             Column("redeals", help="deals annulled before this one: all 5 Démons turned"),
             Column("best_pareil_owner", help="seat scoring the best Pareil, -1 none or "
                    "cancelled by a tie"),
             Column("best_suite_owner", help="seat scoring the best Suite, -1 none or "
                    "cancelled"),
             Column("fault", help="seat committing the -100 fault, -1 none"),
             Column("winner", help="seat with the highest deal score, -1 on a tie"),
             Column("diable_won", OPT_BOOL, help="the Diable had the highest deal score; "
                    "null on a tie")]
    assert len(cols) == N_DEAL_COLS
    return cols


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """Deal columns from C_SCORE on, for a finished deal."""
    top = -(1 << 40)
    winner = -1
    for p in range(3):
        s = deal_score(state, p, kv)
        row[C_SCORE + p] = s
        if s > top:
            top = s
            winner = p
        elif s == top:
            winner = -1
        row[C_CARD_PTS + p] = state[S_PTS + p] + (
            kv[K_THREE_SIXES] if p == state[S_DIABLE] and state[S_SIXES + p] >= 3 else 0)
        par, sui = combo_points(state, p, kv)
        row[C_COMBO + p] = par + sui
        row[C_BETS + p] = bet_payout(state, p, kv)
        row[C_PEN + p] = state[S_PEN + p]
        row[C_TRICKS + p] = state[S_TRICKS + p]
        row[C_DEMONS + p] = state[S_DEMONS_DEALT + p]
        row[C_BET_ANY + p] = state[S_BET_ANY + p]
    row[C_DIABLE] = state[S_DIABLE]
    row[C_DIABLE_DEMON] = DEMON_NO[state[S_DEMON_CARD]]
    row[C_REVEALED] = state[S_REVEALED]
    row[C_REVEAL_TRICK] = state[S_REVEAL_TRICK] + 1 if state[S_REVEAL_TRICK] >= 0 else -1
    row[C_REVEAL_SWAP] = state[S_REVEAL_SWAP]
    row[C_PARTIAL_LEVEL] = state[S_PB_LEVEL]
    row[C_COMPLETE_LEVEL] = state[S_CB_LEVEL]
    row[C_MOST] = most_tricks(state)
    row[C_POSSESS] = state[S_N_POSSESS]
    row[C_PAREIL_ANN] = state[S_N_PAREIL]
    row[C_SUITE_ANN] = state[S_N_SUITE]
    row[C_PURE_LEADS] = state[S_N_PURE_LEADS]
    row[C_BETS_P] = state[S_N_BET_P]
    row[C_BETS_C] = state[S_N_BET_C]
    row[C_HOLDS] = state[S_N_HOLD]
    row[C_RAISES] = state[S_N_RAISE]
    row[C_CONCEDES] = state[S_N_CONCEDE]
    row[C_RESPONSES] = state[S_N_RESPONSES]
    row[C_SIX_CHANCES] = state[S_SIX_CHANCES]
    row[C_SIX_SWAPS] = state[S_SIX_SWAPS]
    row[C_REDEALS] = state[S_REDEALS]
    row[C_BEST_P] = state[S_BEST_P_OWNER]
    row[C_BEST_S] = state[S_BEST_S_OWNER]
    row[C_FAULT] = state[S_FAULT] - 1
    row[C_WINNER] = winner
    row[C_DIABLE_WON] = -1 if winner < 0 else (1 if winner == state[S_DIABLE] else 0)


(M_MATCH, M_FIRST, M_WINNER, M_N_DEALS, M_FINAL, M_COLOUR, M_DIABLE_DEALS, M_RESETS,
 M_NOBET_RESETS, M_WINNER_DIABLE_DEALS, M_CAPPED) = (0, 1, 2, 3, 4, 7, 10, 13, 14, 15, 16)
N_MATCH_COLS = 17


def match_columns(_: DemonsKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat 0-2, -1 if capped"), Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(3)]
    cols += [Column(f"colour_s{i}", ("♠", "♥", "♦", "♣"), help="the seat's 8 (drawn once "
                    "per match)") for i in range(3)]
    cols += [Column(f"diable_deals_s{i}", help="deals in which the seat was the Diable")
             for i in range(3)]
    cols += [Column("resets", help="scores reset: reaching the target in a deal without a "
                    "bet, or several qualifying and none winning the trick stake"),
             Column("nobet_resets", help="of them, reaching the target without a bet"),
             Column("winner_diable_deals", help="deals the match winner played as Diable, "
                    "-1 if capped"),
             Column("capped", BOOL)]
    assert len(cols) == N_MATCH_COLS
    return cols
