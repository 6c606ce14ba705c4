"""Bésigue rubicon, japonais (128 cards) and chinois (192 cards): the rulebook.

Seed: heading "# Bésigues rubicon : Chinois et Japonais" (seed file lines 66-258);
catalogue ``besigue.md``. Read top to bottom like the rulebook; who decides what is in
``players.py``, the batch kernels in ``kernels.py``, the balance questions in
``questions.py``.

Two seats: 0 and 1; the dealer's opponent (``1 - dealer``) leads first (seed 5.1).

Cards. A *card type* is ``t = suit * 8 + r`` with ``r`` in the natural deck order
7, 8, 9, 10, J, Q, K, A (``simlab.engine.decks`` RANKS_32); the japonais has 4 physical copies
of each type, the chinois 6. Identical copies are interchangeable for every rule but
one, "the first one played wins a tie" (seed 5.1), which ``trick_winner`` applies. A
player holds at most 9 (12) cards *including* the ones laid on the table (seed 5.1: the
melds "appartiennent toujours à la main"), so each seat's cards live in ``HMAX`` slots
(``S_TY``: type or -1, ``S_TAB``: 1 when laid on the table) and each meld standing on the
table is an entry (``S_MK`` kind, ``S_MM`` bit mask of the slots it uses). The stock is the
shuffled deck as card types (``S_DECK``), drawn from ``S_STOCK_POS``.

A deal is a flat int64 vector (``S_*`` slots). Phases: a trick lead, the reply, the
trick winner's declaration (draw phase only), the brisques request at the end, done.
Moves: a slot index (card play), a declaration code (``M_*``), or 0/1 (request).
``legal_moves`` lists what the seat to move (``S_TO_MOVE``) may do, ``apply_move`` does
it; ``deal_outcome`` scores a finished deal.

Readings and simplifications (each where the rule is coded):

* crossed melds (seed 5.1, "combinaisons croisées"): a declaration may lay two melds of
  different types sharing a card (``M_CROSS``): the first is scored now, the second is
  *suspended* and may be scored (``M_CLAIM``) instead of a new declaration on a later
  turn when the player wins a draw-phase trick, while all its cards stay on the table
  (catalogue #6); it dies with the draw phase (5.2) or when one of its cards is played.
  Crossings of three or more melds at once are not offered: only one meld scores per
  turn anyway, and a third meld holds a card from the hand that can be declared on the
  later turn with the same points (the difference: its cards would be public sooner);
* several Bésigues laid at once (seed 10.2: "avec une déclaration suspendue si on dépose
  les 2 Bésigues d'un coup") score the next rung of the ladder now and suspend the
  rungs above (two at once: 40 now, the double's 500 later, 540 in all);
* a declaration takes canonical copies of identical cards (``meld_cards``) and fours take
  their suits by the same preference, so the player chooses the meld, not the copies;
* a meld may reuse any tabled card of another kind (a sequence may grow from a standing
  marriage), never one of a standing meld of its own kind ("tant que le premier Mariage
  est sur la table", 10.2); once a meld is broken its cards are free again, so a four or
  a sequence may be re-formed with a new card from the hand (10.2 says so for fours);
* a third marriage laid beside two standing ones of the suit scores the double again;
* trump is fixed when the first marriage or sequence is laid (seed 5.1: "la première
  combinaison posée"), even as the suspended half of a crossed declaration: the
  suspended marriage then scores royal when claimed, and a marriage of another suit laid
  in between does not;
* the cut guess is the target for every policy (the lift's mode); faults (seed 8) are
  not simulated; "cartes blanches" are always declared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import get_deck
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search

# --- cards ----------------------------------------------------------------------------
# The Game's deck is the 192-card one: recorded hands use ids ``type * 6 + copy`` in
# both sizes (the labels only depend on the type).
DECK = get_deck("192")
LABEL_COPIES = 6
N_TYPES = 32
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
R7, R8, R9, R10, RJ, RQ, RK, RA = range(8)
# Seed 4: "7, 8, 9, Valet, Dame, Roi, 10, As" in every suit, trump included.
STRENGTH = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int64)  # by r
QUEEN_SPADES = SPADES * 8 + RQ  # the Bésigue: Dame de Pique + Valet de Carreau (seed 6)
JACK_DIAMONDS = DIAMONDS * 8 + RJ
FIGURES = (RJ, RQ, RK)  # "cartes blanches": no figure in hand (seed 3.1)

HMAX = 12  # slots per seat: the chinois hand
MAXM = 24  # melds standing per seat (far more than 12 cards can hold in practice)
DECK_MAX = 192

VARIANTS = ("japonais", "chinois")
# per variant: copies, hand size, cut target, cartes blanches, last trick, Rubicon, target
VARIANT_TABLE = {"japonais": (4, 9, 18, 50, 50, 1000, 5000),
                 "chinois": (6, 12, 24, 250, 250, 3000, 10000)}


# --- knobs --------------------------------------------------------------------------
def _auto(help_: str, hi: int) -> int:
    return knob(-1, help_ + " (-1: the variant's value)", lo=-1, hi=hi)


@dataclass(frozen=True)
class BesigueKnobs(Knobs):
    variant: str = knob("japonais", "japonais: 4 packs, 128 cards, hands of 9; chinois: 6 "
                        "packs, 192 cards, hands of 12 (seed 1)", choices=VARIANTS)
    # the deal (seed 3)
    cut_exact_bonus: int = knob(250, "dealer's bonus when his lifted pile holds exactly "
                                "18 (24) cards", lo=0, hi=100_000)
    guess_exact_bonus: int = knob(150, "non-dealer's bonus for guessing the pile's size "
                                  "exactly", lo=0, hi=100_000)
    cut_noise_sd: float = knob(2.0, "simulation only: spread of the dealer's lift around "
                               "the target, in cards (a centred binomial of this standard "
                               "deviation; 0: always exact)", lo=0.0, hi=4.0)
    cartes_blanches_bonus: int = _auto("bonus for a hand without J, Q or K (50 J / 250 C)",
                                       100_000)
    # scoring (seed 4, 5.2, 7)
    last_trick_bonus: int = _auto("bonus for the last trick (50 J / 250 C)", 100_000)
    brisque_value: int = knob(10, "points of a 10 or an Ace won, when brisques are counted",
                              lo=0, hi=1000)
    rubicon: int = _auto("Rubicon: a deal total below it is 'rubiconed' (1000 J / 3000 C)",
                         1_000_000)
    rubicon_fail_bonus: int = knob(1000, "winner's bonus (+ the sum of both totals) when "
                                   "the loser misses the Rubicon", lo=0, hi=100_000)
    normal_win_bonus: int = knob(500, "winner's bonus (+ the difference) when both reach "
                                 "the Rubicon", lo=0, hi=100_000)
    round_down_to: int = knob(100, "the winner's points are rounded down to a multiple of "
                              "this", lo=1, hi=10_000)
    match_target: int = _auto("a player reaching this many points wins the match (5000 J "
                              "/ 10000 C)", 1_000_000)
    clean_table_rule: bool = knob(True, "after a declaration every card a player has on "
                                  "the table must belong to a meld (seed 5.1)")
    sequence_reform: bool = knob(True, "a broken sequence's cards may make a new sequence "
                                 "with a card from the hand, as a four is re-formed (seed "
                                 "10.2 says so for fours only; false: a card once in a "
                                 "sequence never makes another)")
    card_from_hand: bool = knob(True, "a declaration lays at least one card from the hand "
                                "(catalogue #4; false: tabled cards of other melds may "
                                "form a new meld alone, as nothing in the seed forbids)",
                                seed_value=False, seed_case="silent",
                                seed_why="the seed lets tabled cards 'resservir ... pour "
                                         "d'autres combinaisons' and never says whether a "
                                         "new combination may be made of tabled cards "
                                         "alone; the catalogue (#4) asks for one from the "
                                         "hand, as every declaration 'dépose' cards")
    reuse_all_tabled: bool = knob(False, "the strict reading of seed 5.1's first sentence: "
                                  "a declaration that reuses tabled cards must use all of "
                                  "them ('doit résulter en l'utilisation de toutes les "
                                  "cartes déjà déposées'); false: the clean-table rule "
                                  "alone, every tabled card in some meld afterwards "
                                  "(catalogue #5)",
                                  seed_value=True, seed_case="contradicts",
                                  seed_why="read strictly, 'l'utilisation de toutes les "
                                           "cartes déjà déposées' forbids what 10.2 allows: "
                                           "a chinois Carré 'rejoint par une 5e carte' "
                                           "reuses three tabled cards and leaves the fourth; "
                                           "the next sentence ('aucune carte ... ne doit "
                                           "rester hors d'une combinaison') is the rule the "
                                           "catalogue (#5) keeps")
    # meld values (seed 6)
    marriage: int = knob(20, "marriage (K + Q of a suit)", lo=0, hi=100_000)
    double_marriage: int = knob(80, "double marriage (a parallel second marriage)",
                                lo=0, hi=100_000)
    royal_marriage: int = knob(40, "royal marriage (trump K + Q)", lo=0, hi=100_000)
    double_royal_marriage: int = knob(160, "double royal marriage", lo=0, hi=100_000)
    besigue: int = knob(40, "Bésigue (Q♠ + J♦)", lo=0, hi=100_000)
    double_besigue: int = knob(500, "double Bésigue", lo=0, hi=100_000)
    triple_besigue: int = knob(1500, "triple Bésigue", lo=0, hi=100_000)
    quad_besigue: int = knob(4500, "quadruple Bésigue", lo=0, hi=100_000)
    four_jacks: int = knob(40, "four Jacks", lo=0, hi=100_000)
    four_queens: int = knob(60, "four Queens", lo=0, hi=100_000)
    four_kings: int = knob(80, "four Kings", lo=0, hi=100_000)
    four_aces: int = knob(100, "four Aces", lo=0, hi=100_000)
    sequence: int = knob(150, "sequence J Q K 10 A of a suit", lo=0, hi=100_000)
    royal_sequence: int = knob(250, "sequence in trump", lo=0, hi=100_000)
    four_trump_jacks: int = knob(400, "chinois: four trump Jacks", lo=0, hi=100_000)
    four_trump_queens: int = knob(600, "chinois: four trump Queens", lo=0, hi=100_000)
    four_trump_kings: int = knob(800, "chinois: four trump Kings", lo=0, hi=100_000)
    four_trump_tens: int = knob(900, "chinois: four trump 10s", lo=0, hi=100_000)
    four_trump_aces: int = knob(1000, "chinois: four trump Aces", lo=0, hi=100_000)
    max_deals: int = knob(200, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=10_000)
    # policies (players.py)
    chase_melds: bool = knob(True, "heuristic: in the draw phase, play the card whose trick, "
                             "if won, opens the best declaration (false: only shed the least "
                             "useful card, meld-blind; per seat: heuristic:chase_melds=false)",
                             policy=True)
    search_stock: int = knob(12, "search player: the full budget (search_worlds) once the "
                             "stock holds at most this many cards, and in the end phase; "
                             "before that, search_draw_worlds", lo=0, hi=192, policy=True)
    search_draw_worlds: int = knob(0, "search player: worlds per decision while the stock "
                                   "holds more than search_stock cards, the early draw "
                                   "phase where most melds are won (gated by "
                                   "search_draw_margin); 0: the heuristic decides there "
                                   "(measured, issue 32, duplicate vs the heuristic: 1 "
                                   "world -1433, 2 worlds -953, 4 worlds -321, 8 worlds "
                                   "+433 points a deal, against +265 with 0: a deal's "
                                   "marks are too noisy for a few long playouts, and 8 "
                                   "worlds cost 190 times the time for no clear gain)",
                                   lo=0, hi=10_000, policy=True)
    search_draw_margin: float = knob(1.5, "search player, early draw phase: another move "
                                     "replaces the heuristic's only when its mean gain over "
                                     "the heuristic's move, paired world by world, exceeds "
                                     "this many standard errors (0: the plain best move; "
                                     "with one world and a margin above 0 the heuristic's "
                                     "move stands)", lo=0.0, hi=10.0, policy=True)
    search_worlds: int = search.worlds_knob(4)
    search_rollouts: int = search.rollouts_knob(1)

    def values(self) -> tuple[int, ...]:
        """(copies, hand, cut target, blanches, last trick, Rubicon, target), the
        variant's table with the knobs' overrides."""
        c, h, cut, bl, last, rub, tgt = VARIANT_TABLE[self.variant]
        def pick_(x: int, default: int) -> int:
            return default if x < 0 else x

        return (c, h, cut, pick_(self.cartes_blanches_bonus, bl),
                pick_(self.last_trick_bonus, last), pick_(self.rubicon, rub),
                pick_(self.match_target, tgt))

    def check(self) -> None:
        if self.match_target == 0:
            raise SimlabError("knob 'match_target'=0 ends a match before it starts; "
                              "allowed: -1 (the variant's) or 1 to 1000000")
        if self.variant == "japonais" and self.changed().keys() & {
                "four_trump_jacks", "four_trump_queens", "four_trump_kings",
                "four_trump_tens", "four_trump_aces"}:
            raise SimlabError("knobs four_trump_* only exist in the chinois; set "
                              "variant=chinois")


# Knob vector layout (plain ints keep the kernels' signature stable).
(K_COPIES, K_HAND, K_CUT_TARGET, K_CUT_COINS, K_CUT_BONUS, K_GUESS_BONUS, K_BLANCHES,
 K_LAST, K_BRISQUE, K_RUBICON, K_FAIL_BONUS, K_WIN_BONUS, K_ROUND, K_TARGET, K_CLEAN,
 K_CHINOIS, K_MAR, K_DMAR, K_RMAR, K_DRMAR, K_BES, K_CAR, K_SEQ, K_RSEQ, K_TCAR,
 K_MAX_DEALS, K_CHASE, K_WORLDS, K_ROLLOUTS, K_SEARCH_STOCK, K_FROM_HAND, K_SEQ_REFORM,
 K_REUSE_ALL, K_DRAW_WORLDS, K_DRAW_MARGIN) = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 28, 29,
    30, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44)
N_K = 45
# K_BES .. +3: Bésigue ladder 1..4; K_CAR .. +3: four J, Q, K, A; K_TCAR .. +4: four trump
# J, Q, K, 10, A (chinois).


def _vector(k: BesigueKnobs) -> np.ndarray:
    copies, hand, cut, blanches, last, rubicon, target = k.values()
    v = np.zeros(N_K, dtype=np.int64)
    v[K_COPIES], v[K_HAND], v[K_CUT_TARGET] = copies, hand, cut
    # a centred binomial of 2n fair coins has variance n / 2: n = 2 sd^2, rounded
    v[K_CUT_COINS] = 2 * int(round(2 * k.cut_noise_sd ** 2))
    v[K_CUT_BONUS], v[K_GUESS_BONUS], v[K_BLANCHES] = k.cut_exact_bonus, k.guess_exact_bonus, blanches
    v[K_LAST], v[K_BRISQUE], v[K_RUBICON] = last, k.brisque_value, rubicon
    v[K_FAIL_BONUS], v[K_WIN_BONUS], v[K_ROUND] = (k.rubicon_fail_bonus, k.normal_win_bonus,
                                                   k.round_down_to)
    v[K_TARGET], v[K_CLEAN], v[K_CHINOIS] = target, k.clean_table_rule, k.variant == "chinois"
    v[K_MAR], v[K_DMAR], v[K_RMAR], v[K_DRMAR] = (k.marriage, k.double_marriage,
                                                  k.royal_marriage, k.double_royal_marriage)
    v[K_BES:K_BES + 4] = [k.besigue, k.double_besigue, k.triple_besigue, k.quad_besigue]
    v[K_CAR:K_CAR + 4] = [k.four_jacks, k.four_queens, k.four_kings, k.four_aces]
    v[K_SEQ], v[K_RSEQ] = k.sequence, k.royal_sequence
    v[K_TCAR:K_TCAR + 5] = [k.four_trump_jacks, k.four_trump_queens, k.four_trump_kings,
                            k.four_trump_tens, k.four_trump_aces]
    v[K_MAX_DEALS], v[K_CHASE] = k.max_deals, k.chase_melds
    v[K_WORLDS], v[K_ROLLOUTS] = k.search_worlds, k.search_rollouts
    v[K_SEARCH_STOCK] = k.search_stock
    v[K_FROM_HAND] = k.card_from_hand
    v[K_SEQ_REFORM] = k.sequence_reform
    v[K_REUSE_ALL] = k.reuse_all_tabled
    v[K_DRAW_WORLDS] = k.search_draw_worlds
    v[K_DRAW_MARGIN] = int(round(100 * k.search_draw_margin))  # hundredths
    return v


# --- the state of a deal ----------------------------------------------------------------
P_LEAD, P_FOLLOW, P_DECLARE, P_REQUEST, P_DONE = range(5)
(S_PHASE, S_DEALER, S_TO_MOVE, S_PLY, S_LEADER, S_LED, S_TRUMP, S_STOCK_POS, S_N_CARDS,
 S_END_PHASE, S_TRICK_NO, S_LAST_WINNER, S_REQUESTED, S_LIFT, S_TIE, S_COUNTED,
 S_WINNER, S_TRUMP_BY) = range(18)
_PER = 18  # per-seat counters, 2 slots each, from here
(S_TOTAL, S_MELD_PTS, S_BES_PTS, S_BES_MAX, S_BRISQUES, S_TRICKS, S_BLANCHES, S_CUT,
 S_N_MELDS, S_MARKS, S_MAR_PTS, S_CAR_PTS, S_SEQ_PTS, S_FINAL, S_SEQ_USED, S_SUSP_LAID,
 S_SUSP_PTS) = (_PER + 2 * i for i in range(17))
# S_SUSP_LAID / S_SUSP_PTS: per seat, melds laid suspended and the points they scored later
# S_SEQ_USED: per seat, the slots whose card has been in a sequence (knob sequence_reform)
S_GONE = _PER + 34  # 32 slots: cards played to tricks, per type (public)
S_TY = S_GONE + N_TYPES  # 2 * HMAX: each seat's card slots (type or -1)
S_TAB = S_TY + 2 * HMAX  # 2 * HMAX: 1 = laid on the table
S_MK = S_TAB + 2 * HMAX  # 2 * MAXM: kind of each standing meld (-1 = none)
S_MM = S_MK + 2 * MAXM  # 2 * MAXM: slot mask of each standing meld
# 2 * MAXM: 0 = a scored meld; a suspended one (seed 5.1) holds what it will score: the
# declaration code of the meld (marriage, four, sequence: valued when claimed), or
# LADDER + n for the n-th Bésigue of the ladder (needs n Bésigues standing when claimed)
S_MS = S_MM + 2 * MAXM
S_DECK = S_MS + 2 * MAXM  # DECK_MAX: the shuffled deck as types; the stock from S_STOCK_POS
N_STATE = S_DECK + DECK_MAX

# Kinds of standing melds. REMNANT: the K + Q left on the table by a broken sequence
# (seed 10.2: not a marriage, but "considérées comme une combinaison valable").
KIND_MAR, KIND_BES, KIND_CAR, KIND_SEQ, KIND_REM = 0, 4, 5, 14, 18  # MAR/SEQ/REM + suit
# KIND_CAR + 0..4: fours of J, Q, K, 10, A (the 10s only as the chinois trump four)
CARRE_RANKS = np.array([RJ, RQ, RK, R10, RA], dtype=np.int64)

# Declaration moves (phase P_DECLARE). The cards a code uses are chosen by
# ``meld_cards`` (the laws let a player pick any identical copies; the choice is
# canonical: tabled cards the clean-table rule needs first, then cards already in
# another meld, then cards from the hand).
M_PASS = 0
M_MAR = 1  # + 2 * suit + (n - 1): lay n = 1 or 2 marriages of the suit
M_BES = 9  # + (n - 1): lay n = 1..4 Bésigues
M_CAR = 13  # + 0..3: four J, Q, K, A (any suits, seed 6; catalogue #11)
M_TCAR = 17  # + 0..4: chinois, four trump J, Q, K, 10, A
M_SEQ = 22  # + suit
N_DECLARE = 26
# Suspended melds (seed 5.1): claim the suspended meld standing in entry j, or lay two
# crossed melds a (scored now) + b (suspended), a and b declaration codes.
M_CLAIM = N_DECLARE  # + j, j < MAXM
M_CROSS = M_CLAIM + MAXM  # + a * N_DECLARE + b
LADDER = 100  # S_MS value of a suspended Bésigue rung: LADDER + the rung (2..4)
MAX_MOVES = 128
NO, REQUEST = 0, 1  # phase P_REQUEST


@hot
def suit_of(t: int) -> int:
    return t // 8


@hot
def rank_of(t: int) -> int:
    return t % 8


@hot
def ty(state: np.ndarray, p: int, i: int) -> int:
    return state[S_TY + p * HMAX + i]


@hot
def tabled(state: np.ndarray, p: int, i: int) -> bool:
    return state[S_TAB + p * HMAX + i] != 0


@hot
def n_held(state: np.ndarray, p: int) -> int:
    n = 0
    for i in range(HMAX):
        n += ty(state, p, i) >= 0
    return n


@hot
def stock_left(state: np.ndarray) -> int:
    return state[S_N_CARDS] - state[S_STOCK_POS]


# --- the deal (seed 3) ------------------------------------------------------------------
@hot
def cut_lift(st: np.uint64, kv: np.ndarray) -> tuple[np.uint64, int]:
    """The dealer's lift: the target plus a centred binomial of ``K_CUT_COINS`` coins
    (catalogue ambiguity #1: a dexterity act modelled as noise; its mode is the target)."""
    lift = kv[K_CUT_TARGET] - kv[K_CUT_COINS] // 2
    for _ in range(kv[K_CUT_COINS]):
        st, x = rng.next_u64(st)
        lift += np.int64(x >> np.uint64(63))
    return st, lift


@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, lift: int, kv: np.ndarray) -> None:
    """Deal from ``deck`` (card types, shuffled): hand_size cards each, by packets of 3
    from the non-dealer (seed 3: "par groupes de 1 ou de 3"; the pile's size only
    decides the bonuses, the hands are the top cards either way); the rest is the stock.
    Cut bonuses (seed 3): pile exactly the target -> dealer +250; the non-dealer guesses
    the target (the lift's mode; every policy does) and scores +150 when right."""
    for i in range(N_STATE):
        state[i] = 0
    n_cards = 32 * kv[K_COPIES]
    hand = kv[K_HAND]
    for i in range(n_cards):
        state[S_DECK + i] = deck[i]
    for i in range(2 * HMAX):
        state[S_TY + i] = -1
    for j in range(2 * MAXM):
        state[S_MK + j] = -1
    state[S_DEALER] = dealer
    state[S_N_CARDS] = n_cards
    pos = 0
    filled = 0
    while filled < hand:
        for k in range(2):
            p = (dealer + 1 + k) % 2
            for j in range(3):
                if filled + j < hand:
                    state[S_TY + p * HMAX + filled + j] = deck[pos]
                    pos += 1
        filled += 3
    state[S_STOCK_POS] = pos
    state[S_LIFT] = lift
    guess = kv[K_CUT_TARGET]
    if lift == kv[K_CUT_TARGET]:
        credit(state, dealer, S_CUT, kv[K_CUT_BONUS])
    if lift == guess:
        credit(state, 1 - dealer, S_CUT, kv[K_GUESS_BONUS])
    state[S_TRUMP] = -1
    state[S_TRUMP_BY] = -1
    state[S_LED] = -1
    state[S_LAST_WINNER] = -1
    state[S_REQUESTED] = -1
    state[S_WINNER] = -1
    for p in range(2):
        cartes_blanches(state, (dealer + 1 + p) % 2, kv)
    state[S_LEADER] = 1 - dealer  # seed 5.1: the dealer's opponent leads first
    state[S_TO_MOVE] = 1 - dealer
    state[S_PHASE] = P_LEAD


@hot
def credit(state: np.ndarray, p: int, counter: int, points: int) -> None:
    """Add ``points`` to seat p's running total and to one of its counters."""
    state[S_TOTAL + p] += points
    state[counter + p] += points


@hot
def cartes_blanches(state: np.ndarray, p: int, kv: np.ndarray) -> None:
    """Seed 3.1: no figure (J, Q, K) in the hand -> +50 (250); scored again after each
    draw while still true (checked after the deal and after each draw-phase draw,
    catalogue #13; always declared: showing the hand costs nothing a bot tracks)."""
    for i in range(HMAX):
        t = ty(state, p, i)
        if t >= 0 and (rank_of(t) == RJ or rank_of(t) == RQ or rank_of(t) == RK):
            return
    credit(state, p, S_BLANCHES, kv[K_BLANCHES])


# --- card play (seed 5.1, 5.2) ------------------------------------------------------------
@hot
def beats(b: int, a: int, trump: int) -> bool:
    """Does ``b``, played second, beat the led ``a``? The highest trump wins, else the
    highest card of the led suit; identical cards: the first played wins (seed 5.1)."""
    sa = suit_of(a)
    sb = suit_of(b)
    if sb == sa:
        return STRENGTH[rank_of(b)] > STRENGTH[rank_of(a)]
    return trump >= 0 and sb == trump


@hot
def is_brisque(t: int) -> int:
    return 1 if rank_of(t) == R10 or rank_of(t) == RA else 0


@hot
def legal_cards(state: np.ndarray, out: np.ndarray) -> int:
    """Slots the seat to move may play. Draw phase: any card, hand or table (seed 5.1).
    End phase (seed 5.2): the follower must follow suit and beat if able; void, he must
    trump if he can; otherwise anything. Identical untabled copies are one move."""
    p = state[S_TO_MOVE]
    n = 0
    led = state[S_LED]
    strict = state[S_END_PHASE] != 0 and state[S_PHASE] == P_FOLLOW
    need = 0  # 3: higher of the led suit, 2: the led suit, 1: trump, 0: anything
    if strict:
        trump = state[S_TRUMP]
        for i in range(HMAX):
            t = ty(state, p, i)
            if t < 0:
                continue
            if suit_of(t) == suit_of(led):
                if STRENGTH[rank_of(t)] > STRENGTH[rank_of(led)]:
                    need = 3
                elif need < 2:
                    need = 2
            elif trump >= 0 and suit_of(t) == trump and need < 1:
                need = 1
    for i in range(HMAX):
        t = ty(state, p, i)
        if t < 0:
            continue
        if need == 3 and not (suit_of(t) == suit_of(led) and STRENGTH[rank_of(t)] > STRENGTH[rank_of(led)]):
            continue
        if need == 2 and suit_of(t) != suit_of(led):
            continue
        if need == 1 and suit_of(t) != state[S_TRUMP]:
            continue
        dup = False
        if not tabled(state, p, i):
            for j in range(i):
                if ty(state, p, j) == t and not tabled(state, p, j):
                    dup = True
                    break
        if not dup:
            out[n] = i
            n += 1
    return n


@hot
def remove_card(state: np.ndarray, p: int, i: int) -> int:
    """Take slot i out of seat p's cards; a tabled card breaks the melds it was in. A
    broken sequence whose K and Q stay on the table leaves them as a remnant (seed
    10.2). Returns the card's type."""
    t = ty(state, p, i)
    if tabled(state, p, i):
        b = np.int64(1) << i
        for j in range(MAXM):
            k = state[S_MK + p * MAXM + j]
            m = state[S_MM + p * MAXM + j]
            if k < 0 or m & b == 0:
                continue
            state[S_MK + p * MAXM + j] = -1
            state[S_MS + p * MAXM + j] = 0  # a suspended meld dies with it (catalogue #6)
            if KIND_SEQ <= k < KIND_SEQ + 4 and (rank_of(t) != RK and rank_of(t) != RQ):
                s = k - KIND_SEQ
                rest = np.int64(0)
                for x in range(HMAX):
                    if m >> x & 1 and (ty(state, p, x) == s * 8 + RK or ty(state, p, x) == s * 8 + RQ):
                        rest |= np.int64(1) << x
                state[S_MK + p * MAXM + j] = KIND_REM + s
                state[S_MM + p * MAXM + j] = rest
    state[S_TY + p * HMAX + i] = -1
    state[S_TAB + p * HMAX + i] = 0
    state[S_SEQ_USED + p] &= ~(np.int64(1) << i)  # the slot's next card is a new one
    return t


@hot
def draw(state: np.ndarray, p: int, kv: np.ndarray) -> None:
    t = state[S_DECK + state[S_STOCK_POS]]
    state[S_STOCK_POS] += 1
    for i in range(HMAX):
        if ty(state, p, i) < 0:
            state[S_TY + p * HMAX + i] = t
            break
    cartes_blanches(state, p, kv)


@hot
def play_card(state: np.ndarray, i: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    t = remove_card(state, p, i)
    state[S_GONE + t] += 1
    state[S_PLY] += 1
    if state[S_PHASE] == P_LEAD:
        state[S_LED] = t
        state[S_PHASE] = P_FOLLOW
        state[S_TO_MOVE] = 1 - p
        return
    led = state[S_LED]
    w = p if beats(t, led, state[S_TRUMP]) else 1 - p
    state[S_TRICKS + w] += 1
    # brisques: the 10s and Aces of the trick (seed 4, 7.1)
    state[S_BRISQUES + w] += is_brisque(t) + is_brisque(led)
    state[S_TRICK_NO] += 1
    state[S_LED] = -1
    state[S_LEADER] = w
    state[S_TO_MOVE] = w
    state[S_LAST_WINNER] = w
    if state[S_END_PHASE]:
        if n_held(state, w) == 0:  # the last trick (seed 5.2)
            credit(state, w, S_FINAL, kv[K_LAST])
            open_request(state, kv)
        else:
            state[S_PHASE] = P_LEAD
        return
    # draw phase: the winner may declare (seed 5.1), then both draw
    if has_declaration(state, w, kv):
        state[S_PHASE] = P_DECLARE
    else:
        end_turn(state, kv)


@hot
def end_turn(state: np.ndarray, kv: np.ndarray) -> None:
    """Action 3 of a turn (seed 10.1): the winner draws, then the other. When the last
    two cards are drawn the melds go back to the hands and the end phase begins."""
    w = state[S_LEADER]
    draw(state, w, kv)
    draw(state, 1 - w, kv)
    if stock_left(state) == 0:
        state[S_END_PHASE] = 1
        for i in range(2 * HMAX):
            state[S_TAB + i] = 0
        for j in range(2 * MAXM):
            state[S_MK + j] = -1
            state[S_MS + j] = 0  # no suspended meld scores in the end phase (seed 5.2)
    state[S_PHASE] = P_LEAD
    state[S_TO_MOVE] = w


# --- declarations (seed 5.1, 6, 10.2) --------------------------------------------------------
@hot
def meld_index(state: np.ndarray, p: int, i: int, k_lo: int, k_hi: int) -> int:
    """Index of a standing meld of seat p with kind in [k_lo, k_hi) holding slot i, or -1."""
    b = np.int64(1) << i
    for j in range(MAXM):
        k = state[S_MK + p * MAXM + j]
        if k_lo <= k < k_hi and state[S_MM + p * MAXM + j] & b:
            return j
    return -1


@hot
def kinds_mask(state: np.ndarray, p: int, k_lo: int, k_hi: int) -> np.int64:
    """The slots of seat p in a standing meld with kind in [k_lo, k_hi)."""
    m = np.int64(0)
    for j in range(MAXM):
        k = state[S_MK + p * MAXM + j]
        if k_lo <= k < k_hi:
            m |= state[S_MM + p * MAXM + j]
    return m


@hot
def covered(state: np.ndarray, p: int, i: int) -> bool:
    return meld_index(state, p, i, 0, 64) >= 0


@hot
def preference(state: np.ndarray, p: int, i: int, trump: int, cov: np.int64) -> int:
    """Which copy a declaration takes first: a tabled card no meld covers (the clean-table
    rule needs it in), a tabled card of another meld (crossing saves hand cards), then a
    hand card (non-trump first, for fours). ``cov``: the slots some meld covers."""
    if tabled(state, p, i):
        return 1 if cov >> i & 1 else 0
    return 2 + (suit_of(ty(state, p, i)) == trump)


@hot
def pick(state: np.ndarray, p: int, t_lo: int, t_hi: int, t_step: int, need: int,
         ban_lo: int, ban_hi: int, chosen: np.int64, trump: int, cov: np.int64,
         extra_ban: np.int64) -> np.int64:
    """Add ``need`` slots holding a type in range(t_lo, t_hi, t_step), not in a standing
    meld with kind in [ban_lo, ban_hi) (the same-kind reuse ban) nor in ``extra_ban``, best
    ``preference`` first; -1 if there are not enough."""
    banned = kinds_mask(state, p, ban_lo, ban_hi) | extra_ban
    for _ in range(need):
        best = -1
        best_pref = 99
        for i in range(HMAX):
            t = ty(state, p, i)
            if t < t_lo or t >= t_hi or (t - t_lo) % t_step != 0 or chosen >> i & 1:
                continue
            if banned >> i & 1:
                continue
            pr = preference(state, p, i, trump, cov)
            if pr < best_pref:
                best_pref = pr
                best = i
        if best < 0:
            return np.int64(-1)
        chosen |= np.int64(1) << best
    return chosen


@hot
def enough_cards(state: np.ndarray, p: int, code: int) -> bool:
    """A quick necessary condition for ``meld_cards``: seat p holds the card types the
    declaration needs, in number (most codes fail here, before any bookkeeping)."""
    if code >= M_MAR and code < M_BES:
        s = (code - M_MAR) // 2
        n = (code - M_MAR) % 2 + 1
        return count_type(state, p, s * 8 + RK, 1) >= n and count_type(state, p, s * 8 + RQ, 1) >= n
    if code >= M_BES and code < M_CAR:
        n = code - M_BES + 1
        return count_type(state, p, QUEEN_SPADES, 1) >= n and count_type(state, p, JACK_DIAMONDS, 1) >= n
    if code >= M_CAR and code < M_TCAR:
        return count_type(state, p, CARRE_RANKS[4 if code - M_CAR == 3 else code - M_CAR], 8) >= 4
    if code >= M_TCAR and code < M_SEQ:
        trump = state[S_TRUMP]
        return trump >= 0 and count_type(state, p, trump * 8 + CARRE_RANKS[code - M_TCAR], 1) >= 4
    s = code - M_SEQ
    return (count_type(state, p, s * 8 + RJ, 1) > 0 and count_type(state, p, s * 8 + RQ, 1) > 0
            and count_type(state, p, s * 8 + RK, 1) > 0 and count_type(state, p, s * 8 + R10, 1) > 0
            and count_type(state, p, s * 8 + RA, 1) > 0)


@hot
def free_entries(state: np.ndarray, p: int) -> int:
    n = 0
    for j in range(MAXM):
        n += state[S_MK + p * MAXM + j] < 0
    return n


@hot
def count_type(state: np.ndarray, p: int, t: int, step: int) -> int:
    """Seat p's cards of type t (step 1) or of t's rank in every suit (step 8, t < 8)."""
    n = 0
    for i in range(HMAX):
        x = ty(state, p, i)
        if x >= 0 and (x == t if step == 1 else x % 8 == t):
            n += 1
    return n


@hot
def same_sequence(state: np.ndarray, p: int, s: int, a: int, b: int) -> bool:
    """Slots a and b of seat p are in one standing sequence of suit s, or in the remnant
    (K + Q) such a sequence left when broken."""
    m = (np.int64(1) << a) | (np.int64(1) << b)
    for j in range(MAXM):
        k = state[S_MK + p * MAXM + j]
        if (k == KIND_SEQ + s or k == KIND_REM + s) and state[S_MM + p * MAXM + j] & m == m:
            return True
    return False


@hot
def other_partner(state: np.ndarray, p: int, t: int, partner: int, old: int, s: int,
                  trump: int, cov: np.int64) -> int:
    """A slot of type t (not ``old``) that may marry slot ``partner`` in suit s: in no
    standing marriage of the suit, not of ``partner``'s sequence; best ``preference``,
    -1 if none."""
    alt = -1
    for i in range(HMAX):
        if ty(state, p, i) != t or i == old:
            continue
        if meld_index(state, p, i, KIND_MAR + s, KIND_MAR + s + 1) >= 0:
            continue
        if same_sequence(state, p, s, partner, i):
            continue
        if alt < 0 or preference(state, p, i, trump, cov) < preference(state, p, alt, trump, cov):
            alt = i
    return alt


@hot
def role_step(code: int) -> int:
    """What a card of declaration ``code`` may be swapped for: any card of its rank (8,
    the plain fours: any suits, catalogue #11) or only its own type (1)."""
    return 8 if code >= M_CAR and code < M_TCAR else 1


@hot
def same_role(a: int, b: int, step: int) -> bool:
    return a == b if step == 1 else a % 8 == b % 8


@hot
def swap_in(state: np.ndarray, p: int, chosen: np.int64, i: int, pool: np.int64, step: int,
            trump: int, cov: np.int64) -> np.int64:
    """``chosen`` with slot i replaced by the best (``preference``) slot of ``pool`` that
    plays the same role (``role_step``) and is not chosen yet; -1 if there is none."""
    best = -1
    for x in range(HMAX):
        if not pool >> x & 1 or chosen >> x & 1 or ty(state, p, x) < 0:
            continue
        if not same_role(ty(state, p, x), ty(state, p, i), step):
            continue
        if best < 0 or preference(state, p, x, trump, cov) < preference(state, p, best, trump, cov):
            best = x
    if best < 0:
        return np.int64(-1)
    return (chosen & ~(np.int64(1) << i)) | (np.int64(1) << best)


@hot
def table_mask(state: np.ndarray, p: int) -> np.int64:
    """The slots of seat p's cards on the table."""
    m = np.int64(0)
    for i in range(HMAX):
        if ty(state, p, i) >= 0 and tabled(state, p, i):
            m |= np.int64(1) << i
    return m


@hot
def all_from_hand(state: np.ndarray, p: int, chosen: np.int64, out: np.int64, step: int,
                  trump: int, cov: np.int64) -> np.int64:
    """``chosen`` with each of its slots in ``out`` replaced by a card from the hand of
    the same role, or -1 (the strict reading's fallback, knob ``reuse_all_tabled``)."""
    hand = ~table_mask(state, p)
    for i in range(HMAX):
        if chosen >= 0 and chosen >> i & 1 and out >> i & 1:
            chosen = swap_in(state, p, chosen, i, hand, step, trump, cov)
    return chosen


@hot
def meld_cards(state: np.ndarray, p: int, code: int, kv: np.ndarray) -> np.int64:
    """``meld_laid`` with the rules "a card from the hand" and "reuse all the tabled
    cards" as the knobs say."""
    return meld_laid(state, p, code, kv, kv[K_FROM_HAND] != 0, kv[K_REUSE_ALL] != 0)


@hot
def meld_laid(state: np.ndarray, p: int, code: int, kv: np.ndarray, from_hand: bool,
              strict: bool) -> np.int64:
    """The slots declaration ``code`` lays (canonical copies, see ``preference``), or -1
    when it cannot be declared now. Rules checked:

    * the cards exist and none is in a standing meld of the same kind: "une carte
      mariée ne peut être mariée une seconde fois, tant que le premier Mariage est sur la
      table ... Il en va de même pour les Bésigues" (seed 10.2); a four's cards may join
      a new four only in the chinois ("un Carré peut être rejoint par une 5e carte du
      même rang": a card of the rank, any suit, joins three of a standing four);
    * K + Q of one standing sequence (or its remnant) do not make a marriage (10.2);
      either may marry another card;
    * at most four Bésigues stand: no quintuple (10.2);
    * at least one card comes from the hand (catalogue #4, knob ``card_from_hand``;
      ``from_hand`` false: the second meld of a crossed pair, checked by ``cross_cards``);
    * knob ``reuse_all_tabled`` (``strict``; off for a crossed pair's second meld,
      ``cross_cards`` checks the pair): a declaration reusing tabled cards uses all;
    * clean table (5.1): afterwards no tabled card of the seat is outside a meld.
    """
    if not enough_cards(state, p, code) or free_entries(state, p) < 4:
        return np.int64(-1)  # (MAXM entries are never all used in practice: a safety net)
    trump = state[S_TRUMP]
    chosen = np.int64(0)
    cov = kinds_mask(state, p, 0, 64)
    four = -1  # a four's kind (the chinois "5e carte" check)
    if code >= M_MAR and code < M_BES:
        s = (code - M_MAR) // 2
        n = (code - M_MAR) % 2 + 1
        chosen = pick(state, p, s * 8 + RK, s * 8 + RK + 1, 1, n, KIND_MAR + s,
                      KIND_MAR + s + 1, chosen, trump, cov, np.int64(0))
        if chosen >= 0:
            chosen = pick(state, p, s * 8 + RQ, s * 8 + RQ + 1, 1, n, KIND_MAR + s,
                          KIND_MAR + s + 1, chosen, trump, cov, np.int64(0))
        if chosen >= 0 and n == 1:
            k_slot = -1
            q_slot = -1
            for i in range(HMAX):
                if chosen >> i & 1:
                    if ty(state, p, i) == s * 8 + RK:
                        k_slot = i
                    else:
                        q_slot = i
            if same_sequence(state, p, s, k_slot, q_slot):
                # the K and Q of one sequence or its remnant are no marriage (10.2): take
                # another Q for this K, else another K for this Q (a hand K may marry
                # the remnant's Q: only the two together are barred)
                alt = other_partner(state, p, s * 8 + RQ, k_slot, q_slot, s, trump, cov)
                if alt >= 0:
                    chosen = (chosen & ~(np.int64(1) << q_slot)) | (np.int64(1) << alt)
                else:
                    alt = other_partner(state, p, s * 8 + RK, q_slot, k_slot, s, trump, cov)
                    if alt < 0:
                        return np.int64(-1)
                    chosen = (chosen & ~(np.int64(1) << k_slot)) | (np.int64(1) << alt)
    elif code >= M_BES and code < M_CAR:
        n = code - M_BES + 1
        standing = count_kind(state, p, KIND_BES)
        if standing + n > 4:
            return np.int64(-1)
        chosen = pick(state, p, QUEEN_SPADES, QUEEN_SPADES + 1, 1, n, KIND_BES, KIND_BES + 1,
                      chosen, trump, cov, np.int64(0))
        if chosen >= 0:
            chosen = pick(state, p, JACK_DIAMONDS, JACK_DIAMONDS + 1, 1, n, KIND_BES,
                          KIND_BES + 1, chosen, trump, cov, np.int64(0))
    elif code >= M_CAR and code < M_TCAR:
        ci = 4 if code - M_CAR == 3 else code - M_CAR  # J, Q, K, A -> CARRE_RANKS index
        r = CARRE_RANKS[ci]
        # japonais: a four's cards do not make a new four while it stands (re-form it
        # after playing a member away); chinois: a fifth card joins and scores again
        ban = 0 if kv[K_CHINOIS] else KIND_CAR + ci
        chosen = pick(state, p, r, 32, 8, 4, ban, ban + 1 if ban else 0, chosen, trump, cov, np.int64(0))
        four = KIND_CAR + ci
    elif code >= M_TCAR and code < M_SEQ:
        if not kv[K_CHINOIS] or trump < 0:
            return np.int64(-1)
        ri = code - M_TCAR
        t = trump * 8 + CARRE_RANKS[ri]
        chosen = pick(state, p, t, t + 1, 1, 4, 0, 0, chosen, trump, cov, np.int64(0))
        four = KIND_CAR + ri
    elif code >= M_SEQ and code < N_DECLARE:
        s = code - M_SEQ
        used = np.int64(0) if kv[K_SEQ_REFORM] else state[S_SEQ_USED + p]
        for r in (RJ, RQ, RK, R10, RA):
            if chosen >= 0:
                chosen = pick(state, p, s * 8 + r, s * 8 + r + 1, 1, 1, KIND_SEQ + s,
                              KIND_SEQ + s + 1, chosen, trump, cov, used)
            if chosen >= 0:  # a remnant's cards are the old sequence's: no new one
                for i in range(HMAX):
                    if chosen >> i & 1 and meld_index(state, p, i, KIND_REM + s, KIND_REM + s + 1) >= 0:
                        chosen = np.int64(-1)
                        break
    else:
        return np.int64(-1)
    if chosen < 0:
        return chosen
    if four >= 0:
        chosen = fifth_card(state, p, chosen, four, role_step(code), trump, cov)
        if chosen < 0:
            return chosen
    return checked(state, p, chosen, kv, cov, from_hand, strict, role_step(code))


@hot
def fifth_card(state: np.ndarray, p: int, chosen: np.int64, kind: int, step: int, trump: int,
               cov: np.int64) -> np.int64:
    """A new four of a rank whose four stands (chinois only: the japonais bans those
    cards) must be "rejoint par une 5e carte" (10.2): it holds a card outside every
    standing four of the kind, else the same four would score again and again (only
    possible with ``card_from_hand`` off: a card from the hand is such a card)."""
    fours = kinds_mask(state, p, kind, kind + 1)
    if fours == 0 or chosen & ~fours != 0:
        return chosen
    for i in range(HMAX):
        if chosen >> i & 1:
            c = swap_in(state, p, chosen, i, ~fours, step, trump, cov)
            if c >= 0:
                return c
    return np.int64(-1)


@hot
def checked(state: np.ndarray, p: int, chosen: np.int64, kv: np.ndarray, cov: np.int64,
            need_hand: bool, strict: bool, step: int) -> np.int64:
    """At least one card from the hand (swapping a tabled card for a hand card of the
    same role, ``role_step``: a four of Aces takes any Ace), the strict reuse reading
    when ``strict`` (all the tabled cards, else none: every tabled card swapped for a hand
    card), and the clean-table rule."""
    trump = state[S_TRUMP]
    tab = table_mask(state, p)
    from_hand = chosen & ~tab != 0
    reuse = chosen & tab
    if strict and reuse != 0 and (tab & ~chosen != 0 or (need_hand and not from_hand)):
        chosen = all_from_hand(state, p, chosen, reuse, step, trump, cov)
        if chosen < 0:
            return chosen
    elif need_hand and not from_hand:
        swapped = np.int64(-1)
        for i in range(HMAX):
            if not chosen >> i & 1 or not cov >> i & 1:
                continue  # keep the uncovered ones: the clean table needs them
            swapped = swap_in(state, p, chosen, i, ~tab, step, trump, cov)
            if swapped >= 0:
                break
        if swapped < 0:
            return swapped
        chosen = swapped
    if kv[K_CLEAN] and tab & ~chosen & ~cov != 0:
        return np.int64(-1)
    return chosen


@hot
def count_kind(state: np.ndarray, p: int, kind: int) -> int:
    n = 0
    for j in range(MAXM):
        n += state[S_MK + p * MAXM + j] == kind
    return n


@hot
def meld_points(state: np.ndarray, p: int, code: int, kv: np.ndarray) -> int:
    """Points declaration ``code`` scores now (seed 6). A marriage or sequence when trump
    is not fixed yet fixes it and scores royal (seed 5.1). A marriage laid beside a
    standing one of its suit is the double marriage (10.2, catalogue #8); a Bésigue scores
    the next rung of the ladder: 40, then 500, 1500, 4500 (10.2); several laid at once
    score that rung now and suspend the rungs above (``declare_now``)."""
    trump = state[S_TRUMP]
    if code >= M_MAR and code < M_BES:
        s = (code - M_MAR) // 2
        n = (code - M_MAR) % 2 + 1
        royal = trump < 0 or trump == s
        double = n == 2 or count_kind(state, p, KIND_MAR + s) > 0
        if royal:
            return kv[K_DRMAR] if double else kv[K_RMAR]
        return kv[K_DMAR] if double else kv[K_MAR]
    if code >= M_BES and code < M_CAR:
        return kv[K_BES + count_kind(state, p, KIND_BES)]
    if code >= M_CAR and code < M_TCAR:
        return kv[K_CAR + code - M_CAR]
    if code >= M_TCAR and code < M_SEQ:
        return kv[K_TCAR + code - M_TCAR]
    s = code - M_SEQ
    return kv[K_RSEQ] if trump < 0 or trump == s else kv[K_SEQ]


@hot
def ladder_above(state: np.ndarray, p: int, code: int, kv: np.ndarray) -> int:
    """Points suspended by declaration ``code`` itself: the rungs above the one scored
    when several Bésigues are laid at once (seed 10.2), 0 for any other code."""
    if code <= M_BES or code >= M_CAR:
        return 0
    k = count_kind(state, p, KIND_BES)
    pts = 0
    for rung in range(k + 2, k + code - M_BES + 2):
        pts += kv[K_BES + rung - 1]
    return pts


# --- crossed and suspended melds (seed 5.1, 5.2, 10.2; catalogue #4, #6, #7) -------------------
@hot
def meld_type(code: int) -> int:
    """The type of a declaration, for "de types différents" (seed 5.1): marriages,
    Bésigues, fours (trump fours included), sequences."""
    if code < M_BES:
        return 0
    if code < M_CAR:
        return 1
    if code < M_SEQ:
        return 2
    return 3


@hot
def one_meld(code: int) -> bool:
    """Codes that lay a single meld (not two marriages, not several Bésigues)."""
    if code >= M_MAR and code < M_BES:
        return (code - M_MAR) % 2 == 0
    return code == M_BES or code >= M_CAR


@hot
def claimable(state: np.ndarray, p: int, j: int) -> bool:
    """Entry j is a suspended meld seat p may score now: it still stands (a card played
    away breaks it, ``remove_card``: catalogue #6) and, for a Bésigue rung, as many
    Bésigues stand as the rung needs (the double is made of two Bésigues)."""
    c = state[S_MS + p * MAXM + j]
    if c <= 0 or state[S_MK + p * MAXM + j] < 0:
        return False
    return c < LADDER or count_kind(state, p, KIND_BES) >= c - LADDER


@hot
def claim_points(state: np.ndarray, p: int, j: int, kv: np.ndarray) -> int:
    """Points of suspended entry j when it is claimed: valued then, like a declaration
    (a marriage is royal if trump is still open or its suit is trump; double if another
    marriage of its suit stands beside it)."""
    c = state[S_MS + p * MAXM + j]
    if c >= LADDER:
        return kv[K_BES + c - LADDER - 1]
    if c < M_BES:
        s = (c - M_MAR) // 2
        royal = state[S_TRUMP] < 0 or state[S_TRUMP] == s
        double = count_kind(state, p, KIND_MAR + s) > 1  # (the entry itself counts one)
        if royal:
            return kv[K_DRMAR] if double else kv[K_RMAR]
        return kv[K_DMAR] if double else kv[K_MAR]
    return meld_points(state, p, c, kv)


@hot
def cross_cards(state: np.ndarray, p: int, a: int, b: int, kv: np.ndarray) -> np.int64:
    """The slots meld ``b`` lays when crossed with declaration ``a`` (a scored now, b
    suspended), or -1. Seed 5.1: "des combinaisons croisées, c'est-à-dire qui comportent
    une carte commune deux à deux, et qui sont de types différents": b is one meld of
    another type than a, legal once a is on the table, sharing a card with a; the pair is
    one declaration, so b needs no card of its own from the hand, but (catalogue #4) it
    holds one from the hand at the time of the lay (often the shared card). ``a`` is laid
    on ``state`` for the check and taken back (hot code allocates no scratch state)."""
    if meld_type(a) == meld_type(b) or not one_meld(b) or not enough_cards(state, p, b):
        return np.int64(-1)
    ca = meld_cards(state, p, a, kv)
    if ca < 0:
        return np.int64(-1)
    hand = np.int64(0)
    for i in range(HMAX):
        if ty(state, p, i) >= 0 and not tabled(state, p, i):
            hand |= np.int64(1) << i
    entries = occupied(state, p)
    seq_used = state[S_SEQ_USED + p]
    trump = state[S_TRUMP]
    trump_by = state[S_TRUMP_BY]
    tab0 = table_mask(state, p)
    lay(state, p, a, ca)  # (a marriage or sequence fixes trump before b is valued)
    cb = meld_laid(state, p, b, kv, False, False)
    if cb >= 0 and kv[K_REUSE_ALL] and (ca | cb) & tab0 != 0 and tab0 & ~(ca | cb) != 0:
        # the strict reading, for the pair: all the cards tabled before, or none of them
        cb = all_from_hand(state, p, cb, cb & tab0, role_step(b), state[S_TRUMP],
                           kinds_mask(state, p, 0, 64))
        if cb >= 0 and (ca | cb) & tab0 != 0:
            cb = np.int64(-1)
        if cb >= 0 and kv[K_CLEAN] and table_mask(state, p) & ~cb & ~kinds_mask(state, p, 0, 64) != 0:
            cb = np.int64(-1)
    # take a back
    for i in range(HMAX):
        if ca >> i & 1 and hand >> i & 1:
            state[S_TAB + p * HMAX + i] = 0
    for j in range(MAXM):
        if not entries >> j & 1:
            state[S_MK + p * MAXM + j] = -1
            state[S_MS + p * MAXM + j] = 0
    state[S_SEQ_USED + p] = seq_used
    state[S_TRUMP] = trump
    state[S_TRUMP_BY] = trump_by
    if cb < 0 or cb & ca == 0 or (kv[K_FROM_HAND] and cb & hand == 0):
        return np.int64(-1)
    return cb


@hot
def legal_declarations(state: np.ndarray, p: int, kv: np.ndarray, out: np.ndarray) -> int:
    """Pass, every declaration seat p can make now, every suspended meld it may score
    instead (seed 5.1), then every crossed pair (a scored, b suspended)."""
    out[0] = M_PASS
    n = 1
    for code in range(1, N_DECLARE):
        if meld_cards(state, p, code, kv) >= 0:
            out[n] = code
            n += 1
    n_codes = n
    for j in range(MAXM):
        if claimable(state, p, j):
            out[n] = M_CLAIM + j
            n += 1
    for k in range(1, n_codes):
        a = out[k]
        for b in range(1, N_DECLARE):
            if n < out.shape[0] and cross_cards(state, p, a, b, kv) >= 0:
                out[n] = M_CROSS + a * N_DECLARE + b
                n += 1
    return n


@hot
def has_declaration(state: np.ndarray, p: int, kv: np.ndarray) -> bool:
    """Seat p has something to score (a crossed pair needs a legal first meld)."""
    for code in range(1, N_DECLARE):
        if meld_cards(state, p, code, kv) >= 0:
            return True
    for j in range(MAXM):
        if claimable(state, p, j):
            return True
    return False


@hot
def add_meld(state: np.ndarray, p: int, kind: int, mask: np.int64) -> None:
    for j in range(MAXM):
        if state[S_MK + p * MAXM + j] < 0:
            state[S_MK + p * MAXM + j] = kind
            state[S_MM + p * MAXM + j] = mask
            state[S_MS + p * MAXM + j] = 0
            return


@hot
def occupied(state: np.ndarray, p: int) -> np.int64:
    """Bit j: seat p's meld entry j is in use (to find the entries a lay adds)."""
    m = np.int64(0)
    for j in range(MAXM):
        if state[S_MK + p * MAXM + j] >= 0:
            m |= np.int64(1) << j
    return m


@hot
def lay(state: np.ndarray, p: int, code: int, chosen: np.int64) -> None:
    """Put the ``chosen`` slots on the table as the meld(s) of declaration ``code``
    (no score: ``score_meld`` marks them). The first marriage or sequence laid fixes
    trump (seed 5.1: "fixé par la couleur de la première combinaison posée susceptible de
    le fixer"), scored now or suspended, half of a crossed declaration."""
    for i in range(HMAX):
        if chosen >> i & 1:
            state[S_TAB + p * HMAX + i] = 1
    if state[S_TRUMP] < 0 and (code < M_BES or code >= M_SEQ):
        state[S_TRUMP] = (code - M_MAR) // 2 if code < M_BES else code - M_SEQ
        state[S_TRUMP_BY] = p
    if code < M_BES:  # marriages: one meld per K + Q pair
        s = (code - M_MAR) // 2
        pair_up(state, p, chosen, s * 8 + RK, s * 8 + RQ, KIND_MAR + s)
    elif code < M_CAR:
        pair_up(state, p, chosen, QUEEN_SPADES, JACK_DIAMONDS, KIND_BES)
    elif code < M_SEQ:
        ri = code - M_CAR if code < M_TCAR else code - M_TCAR
        if code < M_TCAR and ri == 3:
            ri = 4
        add_meld(state, p, KIND_CAR + ri, chosen)
    else:
        add_meld(state, p, KIND_SEQ + code - M_SEQ, chosen)
        state[S_SEQ_USED + p] |= chosen


@hot
def score_meld(state: np.ndarray, p: int, code: int, pts: int, rung: int) -> None:
    """Mark a meld of declaration ``code``'s type (``rung``: the Bésigue level it
    reaches). (Trump was fixed when the meld was laid, ``lay``.)"""
    if code < M_BES or code >= M_SEQ:
        credit(state, p, S_MAR_PTS if code < M_BES else S_SEQ_PTS, pts)
    elif code < M_CAR:
        if rung > state[S_BES_MAX + p]:
            state[S_BES_MAX + p] = rung
        credit(state, p, S_BES_PTS, pts)
    else:
        credit(state, p, S_CAR_PTS, pts)
    state[S_MELD_PTS + p] += pts
    state[S_N_MELDS + p] += 1


@hot
def declare_now(state: np.ndarray, p: int, code: int, kv: np.ndarray) -> None:
    """Lay declaration ``code`` and score it. Several Bésigues laid at once: the first
    scores the next rung, each further one is suspended as the rung above (seed 10.2)."""
    chosen = meld_cards(state, p, code, kv)
    pts = meld_points(state, p, code, kv)
    k = count_kind(state, p, KIND_BES)
    before = occupied(state, p)
    lay(state, p, code, chosen)
    score_meld(state, p, code, pts, k + 1)
    if code > M_BES and code < M_CAR:
        rung = k + 1
        for j in range(MAXM):
            if state[S_MK + p * MAXM + j] == KIND_BES and not before >> j & 1:
                if rung > k + 1:
                    state[S_MS + p * MAXM + j] = LADDER + rung
                    state[S_SUSP_LAID + p] += 1
                rung += 1


@hot
def declare(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    """The trick winner's declaration (seed 5.1): pass, a declaration scored now, a
    suspended meld scored instead (``M_CLAIM``), or two crossed melds laid together, the
    first scored, the second suspended (``M_CROSS``); one meld scored per turn (10.2,
    catalogue #7). Then the turn ends (the draws)."""
    p = state[S_TO_MOVE]
    if move == M_PASS:
        pass
    elif move < M_CLAIM:
        declare_now(state, p, move, kv)
    elif move < M_CROSS:
        j = move - M_CLAIM
        c = state[S_MS + p * MAXM + j]
        pts = claim_points(state, p, j, kv)
        if c >= LADDER:
            score_meld(state, p, M_BES, pts, c - LADDER)
        else:
            score_meld(state, p, c, pts, 0)
        state[S_MS + p * MAXM + j] = 0
        state[S_SUSP_PTS + p] += pts
    else:
        a = (move - M_CROSS) // N_DECLARE
        b = (move - M_CROSS) % N_DECLARE
        cb = cross_cards(state, p, a, b, kv)
        declare_now(state, p, a, kv)
        before = occupied(state, p)
        lay(state, p, b, cb)
        for j in range(MAXM):
            if state[S_MK + p * MAXM + j] >= 0 and not before >> j & 1:
                state[S_MS + p * MAXM + j] = (
                    LADDER + count_kind(state, p, KIND_BES) if b == M_BES else b)
                state[S_SUSP_LAID + p] += 1
    state[S_PLY] += 1
    end_turn(state, kv)


@hot
def pair_up(state: np.ndarray, p: int, chosen: np.int64, ta: int, tb: int, kind: int) -> None:
    """One meld per (a, b) pair of the chosen slots. Two marriages laid together are
    paired so that neither takes the K and Q of one sequence or remnant (10.2; a sequence
    holds one of each, so crossing the pairs always works)."""
    a0 = -1
    a1 = -1
    b0 = -1
    b1 = -1
    for i in range(HMAX):
        if chosen >> i & 1:
            if ty(state, p, i) == ta:
                if a0 < 0:
                    a0 = i
                elif a1 < 0:
                    a1 = i
            elif ty(state, p, i) == tb:
                if b0 < 0:
                    b0 = i
                elif b1 < 0:
                    b1 = i
    if kind < KIND_BES and a1 >= 0:
        s = kind - KIND_MAR
        if same_sequence(state, p, s, a0, b0) or same_sequence(state, p, s, a1, b1):
            b0, b1 = b1, b0
    if kind >= KIND_BES:  # Bésigues: any number of pairs, in slot order
        rest = chosen
        while rest != 0:
            a = -1
            b = -1
            for i in range(HMAX):
                if rest >> i & 1:
                    if ty(state, p, i) == ta and a < 0:
                        a = i
                    elif ty(state, p, i) == tb and b < 0:
                        b = i
            rest &= ~((np.int64(1) << a) | (np.int64(1) << b))
            add_meld(state, p, kind, (np.int64(1) << a) | (np.int64(1) << b))
        return
    add_meld(state, p, kind, (np.int64(1) << a0) | (np.int64(1) << b0))
    if a1 >= 0:
        add_meld(state, p, kind, (np.int64(1) << a1) | (np.int64(1) << b1))


# --- end of the deal: brisques, Rubicon (seed 7) ----------------------------------------------
@hot
def open_request(state: np.ndarray, kv: np.ndarray) -> None:
    """Seed 7.1: a player below the Rubicon may ask for the brisques; the non-dealer is
    asked first. Nobody below it: the deal is scored."""
    for k in range(2):
        p = (state[S_DEALER] + 1 + k) % 2
        if state[S_TOTAL + p] < kv[K_RUBICON]:
            state[S_PHASE] = P_REQUEST
            state[S_TO_MOVE] = p
            return
    finish(state, kv)


@hot
def answer_request(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    state[S_PLY] += 1
    if move == REQUEST:
        state[S_REQUESTED] = p
        finish(state, kv)
        return
    q = 1 - p
    if p != state[S_DEALER] and state[S_TOTAL + q] < kv[K_RUBICON]:
        state[S_TO_MOVE] = q  # the dealer is asked second
        return
    finish(state, kv)


@hot
def deal_outcome(total0: int, total1: int, brisques0: int, brisques1: int, counted: bool,
                 last_winner: int, kv: np.ndarray) -> tuple[int, int, bool, bool]:
    """(winner, winner's points, tie, brisques counted) from the two totals (seed 7).

    Brisques count when requested or on a tie (7.2); a tie then goes to the player with
    more brisques, then to the winner of the last trick. The winner marks 1000 + the sum
    of both totals if the loser is below the Rubicon, else 500 + the difference (7.3),
    rounded down to the hundred."""
    tie = total0 == total1
    if tie:
        counted = True
    if counted:
        total0 += brisques0 * kv[K_BRISQUE]
        total1 += brisques1 * kv[K_BRISQUE]
    if total0 != total1:
        w = 0 if total0 > total1 else 1
    elif brisques0 != brisques1:
        w = 0 if brisques0 > brisques1 else 1
    else:
        w = last_winner
    tw = total0 if w == 0 else total1
    tl = total1 if w == 0 else total0
    if tl < kv[K_RUBICON]:
        pts = kv[K_FAIL_BONUS] + tw + tl
    else:
        pts = kv[K_WIN_BONUS] + tw - tl
    return w, pts // kv[K_ROUND] * kv[K_ROUND], tie, counted


@hot
def outcome_of(state: np.ndarray, counted: bool, kv: np.ndarray) -> tuple[int, int, bool, bool]:
    return deal_outcome(state[S_TOTAL], state[S_TOTAL + 1], state[S_BRISQUES],
                        state[S_BRISQUES + 1], counted, state[S_LAST_WINNER], kv)


@hot
def finish(state: np.ndarray, kv: np.ndarray) -> None:
    w, pts, tie, counted = outcome_of(state, state[S_REQUESTED] >= 0, kv)
    state[S_WINNER] = w
    state[S_MARKS + w] = pts
    state[S_MARKS + 1 - w] = 0
    state[S_TIE] = tie
    state[S_COUNTED] = counted
    state[S_PHASE] = P_DONE


# --- moves ------------------------------------------------------------------------------------
@hot
def legal_moves(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    ph = state[S_PHASE]
    if ph == P_LEAD or ph == P_FOLLOW:
        return legal_cards(state, out)
    if ph == P_DECLARE:
        return legal_declarations(state, state[S_TO_MOVE], kv, out)
    if ph == P_REQUEST:
        out[0] = NO
        out[1] = REQUEST
        return 2
    return 0


@hot
def apply_move(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    ph = state[S_PHASE]
    if ph == P_LEAD or ph == P_FOLLOW:
        play_card(state, move, kv)
    elif ph == P_DECLARE:
        declare(state, move, kv)
    elif ph == P_REQUEST:
        answer_request(state, move, kv)
