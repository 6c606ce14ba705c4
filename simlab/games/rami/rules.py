"""Rami rules, read like the rulebook (seed 003 "Rami"; catalogue ``rami.md``).

Where things are in this package:

* ``rules.py`` (this file): deck and card values, knobs, the state of a deal and its
  moves (the draw, the lay-down, the discard), the lay-down every policy makes (the exact
  meld search of ``simlab.mechanics.melds`` applied to the 51-point opening, going out and the
  variant "a card taken from the discard pile must be melded"), the variant "a joker on
  the table may be taken back", the end of a deal and its scoring.
* ``players.py``: the heuristic and random policies, what a seat can see, the world
  sampler and the search player.
* ``kernels.py``: result columns, the batch kernels (deals, matches) and the runner's
  entry points.
* ``questions.py``: the balance metrics.

Seats 0..P-1 clockwise; the dealer's left (``dealer + 1``) plays first. A deal is a
variable number of turns: it ends when a player has no card left (he "goes out"), or at
the turn cap (``turn_cap``, catalogue: deals that cannot end), or when nobody can draw
any more (talon and discard pile both empty, which the cap also reports).

A turn is three steps, each a move applied to the deal's state (``apply_move``):

1. **draw** (``PH_DRAW``): the talon's top card (``M_TALON``) or the discard pile's top
   card (``M_DISCARD_PILE``); an empty talon is first replaced by the discard pile turned
   face down, without shuffling (its first discard on top);
2. **lay down** (``PH_MELD``, from the player's own ``meld_from_turn``-th turn on): the
   player's melds and lay-offs. ``M_LAY`` lays what ``lay_down`` chooses: before his
   opening, the opening of at least ``opening_min`` points (the exact best partition,
   preferring one that goes out at once); once opened, the partition that melds the most
   cards; then every natural card that fits a table meld (jokers when at most one natural
   card is left). ``M_KEEP`` lays no new meld this turn (lay-offs as usual, when allowed);
   ``M_PASS`` lays nothing at all. A player who melds his last card goes out. With the
   variant ``joker_swap`` (catalogue #7) he may first take back table jokers, one move
   each (``swap_move``: a natural card of his hand replaces the joker it stands for),
   staying in this step;
3. **discard** one card of the hand (the move is the card id); discarding one's last
   card goes out.

The state is a tuple of arrays ``(st, hands, known, talon, disc, tm, tcards, plan)``:
``st`` an int64 vector with the named ``S_*`` slots below (one block of seats per
``S_OPENED``.. ``S_OPEN_VALUE``), ``hands`` and ``known`` uint64 masks per seat (``known``:
cards taken from the discard pile and still in that hand, which everybody saw), the
talon and the discard pile as card lists, the table's melds (``simlab.mechanics.melds`` rows ``tm``
and card masks ``tcards``) and the variant's pending plan ``plan``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.jit import batch, hot, hot_inline
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search
from simlab.mechanics.melds import (
    F_HI,
    F_KEY,
    F_KIND,
    F_LO,
    F_NAT,
    F_NJ,
    JOKER_MASK,
    MAX_MELDS,
    N_F,
    N_NAT,
    N_RANKS,
    NAT_MASK,
    RANK_MASK,
    SEQ,
    SET,
    W_PLAN,
    add_card,
    best_partition_keep,
    card_at,
    fits,
    fits_any,
    lay_off_all,
    lay_plan,
    meldable,
    plan_cards,
    pos_weight,
)
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, has, lowest

# --- deck and card values -------------------------------------------------------------
# 54 cards: natural c = suit * 13 + r (r = 0..12 for 2..10, J, Q, K, A), jokers 52, 53.
DECK = get_deck("54")
MAX_CARDS = 54
MAX_PLAYERS = 7
# Value of a card for the opening count and for penalties: A 11, K/Q/J 10, others face.
VAL = np.array([min(r + 2, 10) if r < 12 else 11 for _ in range(4) for r in range(N_RANKS)],
               dtype=np.int64)
CW = VAL + 1000  # "most cards melded, then most points" search weights
COUNT_UNIT = 1000


def deal_size(players: int) -> int:
    """Cards dealt to each player by the seed: 2 -> 10, 3 to 5 -> 7, 6 or 7 -> 6."""
    return 10 if players == 2 else 7 if players <= 5 else 6


# --- knobs --------------------------------------------------------------------------
# Variant joker_swap (catalogue #7): from which table melds a joker may be taken back.
JOKER_SWAPS = ("none", "sequences", "all")
SWAP_NONE, SWAP_SEQUENCES, SWAP_ALL = range(3)


@dataclass(frozen=True)
class RamiKnobs(Knobs):
    players: int = knob(4, "number of players", lo=2, hi=7)
    hand_size: int = knob(0, "cards dealt to each player; 0 = the seed's (2 players: 10, "
                          "3-5: 7, 6-7: 6)", lo=0, hi=10)
    jokers: int = knob(2, "jokers in the pack (the seed says 52 cards yet lets a joker "
                       "replace any card; catalogue #1: 52 + 2)", choices=(0, 2),
                       seed_value=0, seed_case="contradicts",
                       seed_why="the seed deals from '52 cartes' yet says 'Le joker peut "
                                "remplacer n'importe quelle carte'")
    joker_penalty: int = knob(20, "penalty of a joker left in hand (not in the seed; "
                              "catalogue #1)", lo=0, hi=200)
    opening_min: int = knob(51, "minimum value of a player's first lay-down", lo=0, hi=300)
    ace_high: bool = knob(False, "the ace may also end a sequence high (Q-K-A; never K-A-2; "
                          "the catalogue's #2 'common practice'); false: the seed's order "
                          "'As/2/3/…/Roi', ace low only", seed_value=False)
    ace_low_value: int = knob(11, "value of an ace played low (A-2-3) in the opening count "
                              "(catalogue #3)", lo=1, hi=11)
    open_before_layoff: bool = knob(True, "a player must have opened before laying off on "
                                    "any meld (catalogue #4)")
    meld_from_turn: int = knob(2, "a player may lay melds from his own n-th turn on "
                               "('dès le second tour', catalogue #9)", lo=1, hi=20)
    final_discard_required: bool = knob(False, "going out needs a final discard (false: "
                                        "melding every card also goes out; catalogue #6)")
    rami_doubles: bool = knob(True, "Rami (going out in the turn of one's first lay-down) "
                              "doubles the opponents' penalties")
    winner_bonus: int = knob(0, "score of the player who goes out (seed variant: -20)",
                             lo=-1000, hi=1000)
    winner_bonus_rami: int = knob(0, "score of the player who goes out with a Rami (seed "
                                  "variant: -60)", lo=-1000, hi=1000)
    discard_take_must_meld: bool = knob(False, "variant (catalogue #5; not in the seed): "
                                        "the discard pile's top card may be taken only if "
                                        "the taker melds it in the same turn (in a meld, or "
                                        "laid off when lay-offs are allowed to him), the "
                                        "opening rules included; else he draws from the "
                                        "talon. Both policies see the option only when an "
                                        "exact search finds such a use")
    joker_swap: str = knob("none", "variant (catalogue #7; not in the seed): a player allowed "
                           "to lay off (opened, catalogue #4) may, before his lay-down, take "
                           "a joker from a table meld by putting in its place the natural "
                           "card it stands for: 'sequences' only from a sequence (where that "
                           "card is certain), 'all' also from a brelan or carre (any suit it "
                           "lacks)", choices=JOKER_SWAPS)
    joker_swap_replay: bool = knob(True, "with joker_swap: a joker taken back must go down "
                                   "again in the same turn, in a new meld or laid off (common "
                                   "French practice; a swap is legal only when it can); "
                                   "false: it joins the hand")
    target: int = knob(1000, "the match ends after the deal in which a total reaches this; "
                       "the lowest total wins", lo=1, hi=100000)
    turn_cap: int = knob(200, "a deal stops after this many turns (all players) and is "
                         "scored as it stands", lo=1, hi=100000)
    max_deals: int = knob(500, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    hold_for_rami: int = knob(0, "heuristic: a player able to open but not to go out at "
                              "once waits up to this many of his turns, hoping for a Rami",
                              lo=0, hi=50, policy=True)
    keep_high_before_opening: bool = knob(True, "heuristic: before his opening, among the "
                                          "cards of least meld potential a player throws "
                                          "the lowest (he keeps the high cards a 51-point "
                                          "opening needs); false: the highest, as once "
                                          "opened", policy=True)
    break_cycles: bool = knob(True, "heuristic: once the talon is the old discard pile "
                              "(public, unshuffled), take the discard pile's top card when "
                              "it would stay in hand and the talon's known top card would "
                              "be thrown straight back; and from the second turnover on, "
                              "every other turn (pseudo-random on the turn), keep a card "
                              "just drawn from the talon that would be thrown straight back "
                              "and throw the next card instead. Unchanged play repeats the "
                              "same cycle of cards until the turn cap", policy=True)
    search_worlds: int = search.worlds_knob(16)
    search_rollouts: int = search.rollouts_knob(1)
    search_discards: int = knob(4, "search player: discards compared at each discard, the "
                                "first in the heuristic's order (least meld potential, then "
                                "highest value)", lo=1, hi=11, policy=True)
    search_loose_discards: bool = knob(True, "search player: with two loose cards or more "
                                       "in hand (outside every meld of the hand), compare "
                                       "only those at the discard (and the heuristic's "
                                       "own)", policy=True)
    search_caution: float = knob(1.0, "search player: another move replaces the heuristic's "
                                 "only when its mean gain over it, less this many standard "
                                 "errors of that gain (paired over the playouts), is "
                                 "positive; 0 = plain best mean", lo=0.0, hi=10.0, policy=True)

    def check(self) -> None:
        n = 52 + self.jokers
        k = self.cards_each
        if self.players * k + 2 > n:
            raise SimlabError(f"hand_size={k} at {self.players} players needs "
                              f"{self.players * k + 2} cards, the pack has {n}; "
                              f"allowed: hand_size <= {(n - 2) // self.players}")

    @property
    def cards_each(self) -> int:
        return self.hand_size or deal_size(self.players)


# Knob vector layout for the kernels.
(K_PLAYERS, K_HAND, K_JOKERS, K_JPEN, K_OPEN_MIN, K_ACE_HIGH, K_ACE_LOW, K_OPEN_FIRST,
 K_MELD_FROM, K_FINAL_DISCARD, K_RAMI_DOUBLES, K_WIN, K_WIN_RAMI, K_TARGET, K_CAP,
 K_MAX_DEALS, K_HOLD, K_MUST_MELD, K_WORLDS, K_ROLLOUTS, K_DISCARDS, K_CAUTION_MILLI,
 K_SWAP, K_SWAP_REPLAY, K_KEEP_HIGH, K_BREAK_CYCLES, K_LOOSE_DISCARDS, N_K) = range(28)


def knob_vector(k: RamiKnobs) -> np.ndarray:
    """The knobs as the int64 vector the kernels read (``K_*`` slots)."""
    v = np.zeros(N_K, dtype=np.int64)
    v[:N_K] = [k.players, k.cards_each, k.jokers, k.joker_penalty, k.opening_min, k.ace_high,
               k.ace_low_value, k.open_before_layoff, k.meld_from_turn,
               k.final_discard_required, k.rami_doubles, k.winner_bonus, k.winner_bonus_rami,
               k.target, k.turn_cap, k.max_deals, k.hold_for_rami, k.discard_take_must_meld,
               k.search_worlds, k.search_rollouts, k.search_discards,
               round(k.search_caution * 1000), JOKER_SWAPS.index(k.joker_swap),
               k.joker_swap_replay, k.keep_high_before_opening, k.break_cycles,
               k.search_loose_discards]
    return v


# --- the state of a deal ----------------------------------------------------------------
# Steps of a turn, and the end of the deal.
PH_DRAW, PH_MELD, PH_DISCARD, PH_OVER = range(4)
# Moves (a discard is the card's id, 0..53).
M_TALON, M_DISCARD_PILE = 100, 101
M_LAY, M_KEEP, M_PASS = 110, 111, 112
# Variant joker_swap: natural card c takes the place of a joker of table meld i, move
# M_SWAP + i * N_NAT + c (``swap_move``); the joker goes to the hand.
M_SWAP = 200
MAX_MOVES = 64
# How the variant discard_take_must_meld makes the card taken from the discard pile go
# down this turn (``must_mode``): not at all, in the usual lay-down, laid off first, or
# by the plan left in the state's ``plan``.
MODE_NONE, MODE_NORMAL, MODE_LAYOFF, MODE_PLAN = range(4)

(S_TURN,           # turns played before this one (all players, 0-based)
 S_SEAT,           # seat to move
 S_PHASE,          # PH_*
 S_DEALER,
 S_PLY,            # moves applied so far in the deal
 S_TALON_POS,      # next card of ``talon`` to draw
 S_TALON_END,      # cards in ``talon``
 S_DISC_N,         # cards in the discard pile ``disc`` (top = disc[n - 1])
 S_N_TABLE,        # melds on the table
 S_WENT_OUT,       # seat that went out, -1
 S_RAMI,           # the winner went out in the turn of his first lay-down
 S_CAPPED,         # stopped by the turn cap or because nobody could draw
 S_TURNOVERS,      # times the discard pile became the talon (then the talon is public)
 S_DISCARD_DRAWS,  # draws from the discard pile
 S_DRAWN,          # card drawn this turn
 S_TAKEN,          # 1 if it came from the discard pile
 S_MODE,           # MODE_* of the variant for the discard pile's top card
 S_MODE_PLY,       # S_PLY at which S_MODE was worked out (-1: not yet)
 S_PLAN_N,         # melds of the variant's plan
 S_PLAN_VALUE,     # its opening value
 S_OPENED_NOW,     # the seat to move opened in this turn (a Rami if he goes out)
 S_LAST_DISCARD,   # card discarded by the last discard move
 S_OWED,           # jokers taken back this turn that must still go down (joker_swap_replay)
 S_SWAPS,          # joker swaps made in the deal (all players)
 S_SEATS) = range(25)
S_OPENED = S_SEATS                          # + seat: 1 once the seat has opened
S_OWN_TURNS = S_SEATS + MAX_PLAYERS         # + seat: turns the seat has begun
S_HELD = S_SEATS + 2 * MAX_PLAYERS          # + seat: turns it kept back an opening
S_OPEN_TURN = S_SEATS + 3 * MAX_PLAYERS     # + seat: deal turn of its opening, -1
S_OPEN_VALUE = S_SEATS + 4 * MAX_PLAYERS    # + seat: value of its opening melds
N_S = S_SEATS + 5 * MAX_PLAYERS


@batch
def new_state() -> tuple:
    """A zeroed state ``(st, hands, known, talon, disc, tm, tcards, plan)``."""
    return (np.zeros(N_S, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
            np.zeros(MAX_PLAYERS, dtype=np.uint64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64), np.zeros((MAX_MELDS, N_F), dtype=np.int64),
            np.zeros(MAX_MELDS, dtype=np.uint64), np.zeros((MAX_MELDS, N_F), dtype=np.int64))


@batch
def new_scratch() -> tuple:
    """Work arrays of the meld search ``(ws, best, val, cw)`` (writable copies of the
    value tables: the meld search is compiled for writable arrays only)."""
    return (np.zeros((3, MAX_MELDS, N_F), dtype=np.int64), np.zeros(4, dtype=np.int64),
            VAL.copy(), CW.copy())


@hot
def copy_state(src: tuple, dst: tuple) -> None:
    """Copy the live part of state ``src`` into ``dst``."""
    st, hands, known, talon, disc, tm, tcards, plan = src
    st2, hands2, known2, talon2, disc2, tm2, tcards2, plan2 = dst
    for i in range(N_S):
        st2[i] = st[i]
    for p in range(MAX_PLAYERS):
        hands2[p] = hands[p]
        known2[p] = known[p]
    for i in range(st[S_TALON_END]):
        talon2[i] = talon[i]
    for i in range(st[S_DISC_N]):
        disc2[i] = disc[i]
    for i in range(st[S_N_TABLE]):
        tcards2[i] = tcards[i]
        for f in range(N_F):
            tm2[i, f] = tm[i, f]
    for i in range(st[S_PLAN_N]):
        for f in range(N_F):
            plan2[i, f] = plan[i, f]


@hot_inline
def top_position(kv: np.ndarray) -> int:
    """Highest sequence position: 13 when the ace may end a sequence high, else 12."""
    return 13 if kv[K_ACE_HIGH] else 12


# --- the deal ---------------------------------------------------------------------------
@hot
def deal(deck: np.ndarray, n_cards: int, dealer: int, kv: np.ndarray, S: tuple,
         dealt: np.ndarray) -> None:
    """Deal a shuffled ``deck[:n_cards]``: one card at a time from the dealer's left,
    ``hand_size`` each (recorded in ``dealt`` [P, k]); the next card turned up starts the
    discard pile; the rest is the talon. Then the first turn begins."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    P = kv[K_PLAYERS]
    for i in range(N_S):
        st[i] = 0
    for p in range(MAX_PLAYERS):
        hands[p] = EMPTY
        known[p] = EMPTY
        st[S_OPEN_TURN + p] = -1
    st[S_DEALER] = dealer
    st[S_WENT_OUT] = -1
    st[S_MODE_PLY] = -1
    st[S_LAST_DISCARD] = -1
    pos = 0
    for i in range(kv[K_HAND]):
        for k in range(P):
            p = (dealer + 1 + k) % P
            c = deck[pos]
            pos += 1
            hands[p] |= bit(c)
            dealt[p, i] = c
    disc[0] = deck[pos]
    pos += 1
    st[S_DISC_N] = 1
    nt = 0
    for i in range(pos, n_cards):
        talon[nt] = deck[i]
        nt += 1
    st[S_TALON_END] = nt
    begin_turn(S, kv)


@hot_inline
def begin_turn(S: tuple, kv: np.ndarray) -> None:
    """Start turn ``S_TURN``: stop at the turn cap; turn the discard pile into the talon
    when the talon is empty (stop when both are)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    t = st[S_TURN]
    if t >= kv[K_CAP]:
        end_capped(st)
        return
    st[S_SEAT] = (st[S_DEALER] + 1 + t) % kv[K_PLAYERS]
    if st[S_TALON_POS] == st[S_TALON_END]:
        nd = st[S_DISC_N]
        if nd == 0:
            end_capped(st)
            return
        for i in range(nd):
            talon[i] = disc[i]
        st[S_TALON_END] = nd
        st[S_TALON_POS] = 0
        st[S_DISC_N] = 0
        st[S_TURNOVERS] += 1
    st[S_PHASE] = PH_DRAW


@hot_inline
def end_capped(st: np.ndarray) -> None:
    st[S_CAPPED] = 1
    st[S_PHASE] = PH_OVER


@hot_inline
def go_out(st: np.ndarray, p: int) -> None:
    """Seat ``p`` has no card left: the deal ends; a Rami if he opened this turn."""
    st[S_WENT_OUT] = p
    st[S_RAMI] = st[S_OPENED_NOW]
    st[S_PHASE] = PH_OVER


@hot
def to_move(S: tuple) -> int:
    """The seat to move, -1 once the deal is over."""
    st = S[0]
    return -1 if st[S_PHASE] == PH_OVER else st[S_SEAT]


@hot
def is_over(S: tuple) -> bool:
    return S[0][S_PHASE] == PH_OVER


# --- moves --------------------------------------------------------------------------------
@hot
def discard_pile_option(S: tuple, X: tuple, kv: np.ndarray) -> bool:
    """May the seat to move draw the discard pile's top card? Yes when the pile has a card,
    except with the variant discard_take_must_meld: only in a turn where he may meld and
    when an exact search finds a use of the card this turn (its ``MODE_*`` and plan are
    kept in the state for the lay-down)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    ws, best, val, cw = X
    st[S_MODE] = MODE_NONE
    st[S_MODE_PLY] = st[S_PLY]
    st[S_PLAN_N] = 0
    nd = st[S_DISC_N]
    if nd == 0:
        return False
    if not kv[K_MUST_MELD]:
        return True
    p = st[S_SEAT]
    if st[S_OWN_TURNS + p] + 1 < kv[K_MELD_FROM]:
        return False
    d = disc[nd - 1]
    keep = 1 if kv[K_FINAL_DISCARD] else 0
    mode, n, v = must_mode(hands[p] | bit(d), d, st[S_OPENED + p] == 1, kv, top_position(kv), keep,
                           tm, tcards, st[S_N_TABLE], ws, best, val, cw, plan)
    st[S_MODE] = mode
    st[S_PLAN_N] = n
    st[S_PLAN_VALUE] = v
    return mode != MODE_NONE


@hot
def legal_moves(S: tuple, X: tuple, kv: np.ndarray, trial: tuple, out: np.ndarray) -> int:
    """The moves of the seat to move, in a fixed order, into ``out``; returns how many.
    Draw: the talon, then the discard pile when allowed. Lay-down: ``M_LAY``, then
    ``M_KEEP`` and ``M_PASS`` when they lay down something different (tried on the spare
    state ``trial``); only ``M_LAY`` when a card taken from the discard pile must go down.
    After a joker swap whose joker must go down again, only the lay-downs that put it
    down (never ``M_PASS``). Then the joker swaps (``swap_moves``), if any.
    Discard: each natural card of the hand, then one joker (the two are alike)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    ph = st[S_PHASE]
    if ph == PH_OVER:
        return 0
    p = st[S_SEAT]
    if ph == PH_DRAW:
        out[0] = M_TALON
        if discard_pile_option(S, X, kv):
            out[1] = M_DISCARD_PILE
            return 2
        return 1
    if ph == PH_DISCARD:
        n = 0
        m = hands[p] & NAT_MASK
        while m != EMPTY:
            out[n] = lowest(m)
            n += 1
            m &= m - ONE
        if hands[p] & JOKER_MASK != EMPTY:
            out[n] = lowest(hands[p] & JOKER_MASK)
            n += 1
        return n
    out[0] = M_LAY
    if st[S_MODE] != MODE_NONE:
        return 1
    hand = hands[p]
    copy_state(S, trial)
    apply_move(trial, X, kv, M_LAY)
    after_lay = trial[1][p]
    lay_ok = trial[0][S_OWED] == 0
    copy_state(S, trial)
    apply_move(trial, X, kv, M_KEEP)
    after_keep = trial[1][p]
    keep_ok = trial[0][S_OWED] == 0
    n = 1 if lay_ok else 0
    if keep_ok and (after_keep != after_lay or not lay_ok):
        out[n] = M_KEEP
        n += 1
    if st[S_OWED] == 0 and hand != after_lay and hand != after_keep:
        out[n] = M_PASS
        n += 1
    if n == 0:  # cannot happen after a legal swap; keep the contract of at least one move
        out[0] = M_LAY
        n = 1
    return swap_moves(S, X, kv, trial, out, n)


@hot_inline
def apply_move(S: tuple, X: tuple, kv: np.ndarray, move: int) -> None:
    """Play ``move`` for the seat to move (a legal move of ``legal_moves``)."""
    st = S[0]
    ph = st[S_PHASE]
    if ph == PH_DRAW:
        draw(S, X, kv, move == M_DISCARD_PILE)
    elif ph == PH_MELD:
        if move >= M_SWAP:
            swap_joker(S, kv, swap_card(move), swap_meld(move))
        else:
            lay_down(S, X, kv, move)
    else:
        discard(S, kv, move)
    st[S_PLY] += 1


@hot_inline
def draw(S: tuple, X: tuple, kv: np.ndarray, take: bool) -> None:
    """Step 1: the discard pile's top card (``take``; everybody then knows it is in the
    hand) or the talon's. Melds are allowed from the player's own ``meld_from_turn``-th
    turn on."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    p = st[S_SEAT]
    if take:
        if st[S_MODE_PLY] != st[S_PLY]:
            discard_pile_option(S, X, kv)
        nd = st[S_DISC_N] - 1
        c = disc[nd]
        st[S_DISC_N] = nd
        st[S_DISCARD_DRAWS] += 1
        known[p] |= bit(c)
    else:
        st[S_MODE] = MODE_NONE
        c = talon[st[S_TALON_POS]]
        st[S_TALON_POS] += 1
    hands[p] |= bit(c)
    st[S_OWN_TURNS + p] += 1
    st[S_DRAWN] = c
    st[S_TAKEN] = 1 if take else 0
    st[S_OPENED_NOW] = 0
    st[S_OWED] = 0
    st[S_PHASE] = PH_MELD if st[S_OWN_TURNS + p] >= kv[K_MELD_FROM] else PH_DISCARD


@hot
def lay_down(S: tuple, X: tuple, kv: np.ndarray, move: int) -> None:
    """Step 2. With the variant, a card taken from the discard pile goes down first (laid
    off, or with the plan found at the draw). Then ``M_LAY``: not yet opened, the opening
    of ``try_open`` (at least ``opening_min``); opened, the partition that melds the most
    cards (then the most points). ``M_KEEP``: no new meld. Lay-offs (``M_LAY`` and
    ``M_KEEP``) once opened, or at any time when ``open_before_layoff`` is off. Jokers
    taken back this turn that must go down again and are not in a new meld are laid off
    (the natural cards' lay-offs first, as long as they leave room and cards for them);
    ``S_OWED`` keeps how many could not (0 after a legal move)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    ws, best, val, cw = X
    p = st[S_SEAT]
    top = top_position(kv)
    keep = 1 if kv[K_FINAL_DISCARD] else 0
    hand = hands[p]
    jokers_in = count(hand & JOKER_MASK)
    n_table = st[S_N_TABLE]
    c = st[S_DRAWN]
    mode = st[S_MODE]
    dm = c if mode == MODE_NORMAL or mode == MODE_PLAN else -1
    if mode == MODE_LAYOFF:
        hand = lay_off_one(hand, c, tm, tcards, n_table, top)
    if mode == MODE_PLAN:
        n = st[S_PLAN_N]
        for i in range(n):
            for f in range(N_F):
                ws[W_PLAN, i, f] = plan[i, f]
        hand, n_table = lay_plan_d(hand, c, ws, n, tm, tcards, n_table)
        if st[S_OPENED + p] == 0:
            opened(st, p, st[S_PLAN_VALUE])
    elif st[S_OPENED + p] == 0:
        if move == M_LAY:
            v = try_open(hand, False, kv, top, keep, ws, best, val, cw)
            if v > 0:
                hand, n_table = lay_plan_d(hand, dm, ws, best[1], tm, tcards, n_table)
                opened(st, p, v)
        else:
            st[S_HELD + p] += 1
    elif move == M_LAY:
        best_partition_keep(hand, keep == 1, cw, COUNT_UNIT + 11, COUNT_UNIT + kv[K_JPEN], top,
                            ws, best)
        if best[1] > 0:
            hand, n_table = lay_plan_d(hand, dm, ws, best[1], tm, tcards, n_table)
    if move != M_PASS and may_lay_off(st, p, kv):
        owed = jokers_owed(st, jokers_in, hand)
        if owed > 0:  # natural lay-offs first, leaving room and cards for the owed jokers
            spare = joker_room(tm, tcards, n_table) - owed
            hand = lay_off_all(hand, tm, tcards, n_table, top,
                               max(keep + owed, count(hand) - max(spare, 0)))
            for _ in range(jokers_owed(st, jokers_in, hand)):
                if count(hand) > keep:
                    hand = lay_off_one(hand, lowest(hand & JOKER_MASK), tm, tcards, n_table, top)
        hand = lay_off_all(hand, tm, tcards, n_table, top, keep)
    st[S_OWED] = jokers_owed(st, jokers_in, hand)
    hands[p] = hand
    known[p] &= hand
    st[S_N_TABLE] = n_table
    if hand == EMPTY:
        go_out(st, p)
    else:
        st[S_PHASE] = PH_DISCARD


@hot_inline
def may_lay_off(st: np.ndarray, p: int, kv: np.ndarray) -> bool:
    """Seat ``p`` may add cards to table melds: once opened, or always when
    ``open_before_layoff`` is off (catalogue #4)."""
    return st[S_OPENED + p] == 1 or not kv[K_OPEN_FIRST]


@hot_inline
def jokers_owed(st: np.ndarray, jokers_in: int, hand: np.uint64) -> int:
    """Jokers taken back this turn still to go down, when the hand held ``jokers_in``
    jokers as the lay-down began and holds ``hand`` now (jokers are interchangeable)."""
    return max(0, st[S_OWED] - (jokers_in - count(hand & JOKER_MASK)))


@hot_inline
def opened(st: np.ndarray, p: int, value: int) -> None:
    st[S_OPENED + p] = 1
    st[S_OPENED_NOW] = 1
    st[S_OPEN_TURN + p] = st[S_TURN]
    st[S_OPEN_VALUE + p] = value


@hot_inline
def discard(S: tuple, kv: np.ndarray, card: int) -> None:
    """Step 3: the card goes face up on the discard pile; the next player's turn begins,
    unless that was the player's last card (he goes out)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    p = st[S_SEAT]
    hand = hands[p] & ~bit(card)
    hands[p] = hand
    known[p] &= hand
    nd = st[S_DISC_N]
    disc[nd] = card
    st[S_DISC_N] = nd + 1
    st[S_LAST_DISCARD] = card
    if hand == EMPTY:
        go_out(st, p)
        return
    st[S_TURN] += 1
    begin_turn(S, kv)


# --- scoring ----------------------------------------------------------------------------
@hot
def hand_value(hand: np.uint64, joker_penalty: int) -> int:
    t = count(hand & JOKER_MASK) * joker_penalty
    m = hand & NAT_MASK
    while m != EMPTY:
        t += VAL[lowest(m)]
        m &= m - ONE
    return t


@hot
def deal_score(S: tuple, kv: np.ndarray, p: int) -> int:
    """Points seat ``p`` marks for the deal (lower is better): each loser the value of his
    cards, doubled after a Rami; the player who went out the winner's bonus. A capped
    deal is scored as it stands."""
    st = S[0]
    if p == st[S_WENT_OUT]:
        return kv[K_WIN_RAMI] if st[S_RAMI] else kv[K_WIN]
    mult = 2 if st[S_RAMI] and kv[K_RAMI_DOUBLES] else 1
    return hand_value(S[1][p], kv[K_JPEN]) * mult


# --- the lay-down every policy makes (M_LAY) ----------------------------------------------
@hot
def opening_bound(hand: np.uint64, top: int, ace_low: int) -> int:
    """An upper bound on the value of any lay-down from ``hand``: its cards that belong to
    some meld (``melds.meldable``) plus 11 per joker."""
    t = 11 * count(hand & JOKER_MASK)
    m = meldable(hand, top)
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        t += max(VAL[c], ace_low) if c % N_RANKS == 12 else VAL[c]
    return t


@hot
def try_open(hand: np.uint64, hold: bool, kv: np.ndarray, top: int, keep: int, ws: np.ndarray,
             best: np.ndarray, val: np.ndarray, cw: np.ndarray) -> int:
    """The opening lay-down of ``hand``, if any: returns its value (0: cannot open, -1:
    could open but holds for a Rami) and
    leaves the plan in ``ws[W_PLAN, :best[1]]``. The plan is the partition of greatest
    value; when it would leave two cards or more but another partition of at least
    ``opening_min`` leaves at most one (the player then goes out at once), that one.
    ``hold``: a heuristic player holding for a Rami does not open unless he goes out."""
    need = kv[K_OPEN_MIN]
    ace_low = kv[K_ACE_LOW]
    if opening_bound(hand, top, ace_low) < need:
        return 0
    v = best_partition_keep(hand, keep == 1, val, ace_low, -1, top, ws, best)
    if v < need or best[1] == 0:
        return 0
    n = count(hand)
    m, nj = plan_cards(ws, W_PLAN, best[1])
    if n - count(m) - nj <= 1:
        return v
    v2 = best_partition_keep(hand, keep == 1, cw, COUNT_UNIT + ace_low, -1, top, ws, best)
    if n - v2 // COUNT_UNIT <= 1 and v2 % COUNT_UNIT >= need:
        return v2 % COUNT_UNIT
    if hold:
        return -1
    return best_partition_keep(hand, keep == 1, val, ace_low, -1, top, ws, best)


@hot
def lay_plan_d(hand: np.uint64, d: int, ws: np.ndarray, n: int, tm: np.ndarray,
               tcards: np.ndarray, n_table: int) -> tuple[np.uint64, int]:
    """``melds.lay_plan`` of ``ws[W_PLAN, :n]``; when ``d`` is a joker that must be melded
    and the plan uses fewer jokers than the hand holds, ``d`` itself goes down."""
    o = EMPTY
    if d >= N_NAT:
        _, nj = plan_cards(ws, W_PLAN, n)
        if 0 < nj < count(hand & JOKER_MASK):
            o = hand & JOKER_MASK & ~bit(d)
    hand, n_table = lay_plan(hand & ~o, ws, W_PLAN, n, tm, tcards, n_table)
    return hand | o, n_table


@hot
def joker_room(tm: np.ndarray, tcards: np.ndarray, n_table: int) -> int:
    """Jokers the table melds can still take: 4 cards a set, 13 a sequence (A-K or 2-A);
    a joker fits a meld whenever it has room (``melds.fits``)."""
    t = 0
    for i in range(n_table):
        t += (4 if tm[i, F_KIND] == SET else 13) - count(tcards[i])
    return t


@hot
def lay_off_one(hand: np.uint64, d: int, tm: np.ndarray, tcards: np.ndarray, n_table: int,
                top: int) -> np.uint64:
    for i in range(n_table):
        pos = fits(d, tm, i, tcards, top)
        if pos >= 0:
            add_card(d, pos, tm, i, tcards)
            return hand & ~bit(d)
    return hand


# --- variant: a joker on the table taken back (joker_swap, catalogue #7) -----------------
# Not in the seed. Resolutions (common French practice): only a player allowed to lay off
# (opened, unless open_before_layoff is off) swaps, in his lay-down step before laying
# down (so after opening in an earlier turn); the natural card goes where the joker was;
# the joker, seen by all, joins his hand and with joker_swap_replay must go down again
# this turn (in a new meld or laid off), the swap being legal only when one of the
# lay-downs ``M_LAY`` / ``M_KEEP`` then does it. A set's joker stands for any suit the
# set lacks ('all'); a sequence's joker for the card of its position. Not offered while
# a card taken from the discard pile must go down (discard_take_must_meld).
@hot_inline
def swap_move(card: int, meld: int) -> int:
    """The move "natural ``card`` takes the place of a joker of table meld ``meld``"."""
    return M_SWAP + meld * N_NAT + card


@hot_inline
def swap_card(move: int) -> int:
    return (move - M_SWAP) % N_NAT


@hot_inline
def swap_meld(move: int) -> int:
    return (move - M_SWAP) // N_NAT


@hot
def stands_for(card: int, tm: np.ndarray, i: int, tcards: np.ndarray, kv: np.ndarray) -> bool:
    """Does a joker of table meld ``i`` stand for natural ``card`` (which may then take its
    place)? In a sequence, when the card's position is in the window but the card is not
    (a joker holds it); in a set (joker_swap 'all'), when the set is of its rank and lacks
    it."""
    if tm[i, F_NJ] == 0 or has(tcards[i], card):
        return False
    if tm[i, F_KIND] == SET:
        return kv[K_SWAP] == SWAP_ALL and card % N_RANKS == tm[i, F_KEY]
    if card // N_RANKS != tm[i, F_KEY]:
        return False
    r = card % N_RANKS
    if r != N_RANKS - 1:
        return tm[i, F_LO] <= r + 1 <= tm[i, F_HI]
    return tm[i, F_LO] == 0 or tm[i, F_HI] == 13  # the ace, low or high


@hot
def swap_joker(S: tuple, kv: np.ndarray, card: int, i: int) -> None:
    """The seat to move puts natural ``card`` in place of a joker of table meld ``i`` and
    takes the joker into his hand (everybody sees it go there); with joker_swap_replay he
    owes its return to the table this turn."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    p = st[S_SEAT]
    j = lowest(tcards[i] & JOKER_MASK)
    tcards[i] = (tcards[i] & ~bit(j)) | bit(card)
    tm[i, F_NJ] -= 1
    tm[i, F_NAT] = np.int64(np.uint64(tm[i, F_NAT]) | bit(card))
    hands[p] = (hands[p] & ~bit(card)) | bit(j)
    known[p] = (known[p] & ~bit(card)) | bit(j)
    st[S_SWAPS] += 1
    if kv[K_SWAP_REPLAY]:
        st[S_OWED] += 1


@hot
def joker_goes_back(S: tuple, X: tuple, kv: np.ndarray, trial: tuple, move: int) -> bool:
    """After the swap ``move``, does ``M_LAY`` or ``M_KEEP`` put every joker owed this
    turn back on the table (tried on ``trial``)?"""
    for lay in (M_LAY, M_KEEP):
        copy_state(S, trial)
        apply_move(trial, X, kv, move)
        apply_move(trial, X, kv, lay)
        if trial[0][S_OWED] == 0:
            return True
    return False


@hot
def swap_moves(S: tuple, X: tuple, kv: np.ndarray, trial: tuple, out: np.ndarray,
               n: int) -> int:
    """Append to ``out[:n]`` the seat's legal joker swaps (table melds in order, then the
    hand's natural cards in id order); returns the new count."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    p = st[S_SEAT]
    if kv[K_SWAP] == SWAP_NONE or st[S_MODE] != MODE_NONE or not may_lay_off(st, p, kv):
        return n
    nat = hands[p] & NAT_MASK
    for i in range(st[S_N_TABLE]):
        if tm[i, F_NJ] == 0:
            continue
        m = nat
        while m != EMPTY and n < MAX_MOVES:
            c = lowest(m)
            m &= m - ONE
            if stands_for(c, tm, i, tcards, kv):
                mv = swap_move(c, i)
                if not kv[K_SWAP_REPLAY] or joker_goes_back(S, X, kv, trial, mv):
                    out[n] = mv
                    n += 1
    return n


# --- variant: a card taken from the discard pile must be melded at once ------------------
# (knob discard_take_must_meld, catalogue #5). At the draw, ``must_mode`` decides whether
# the discard's top card ``d`` can be used this turn and how; the lay-down then does it.
@hot
def _consider(hand: np.uint64, natm: np.uint64, nj: int, wt: int, kind: int, key: int,
              lo: int, hi: int, keep: bool, w: np.ndarray, w_low: int, jw: int, top: int,
              ws: np.ndarray, best: np.ndarray, buf: np.ndarray, cur: int,
              cur_n: int) -> tuple[int, int]:
    """The meld (kind, key, lo, hi, natm + nj jokers) of weight ``wt`` plus the best
    partition of the rest of ``hand``; kept in ``buf`` when it beats ``cur``."""
    rest = hand & ~natm
    for _ in range(nj):
        rest &= ~bit(lowest(rest & JOKER_MASK))
    v = best_partition_keep(rest, keep, w, w_low, jw, top, ws, best)
    if v < 0 or wt + v <= cur:
        return cur, cur_n
    buf[0, F_KIND] = kind
    buf[0, F_KEY] = key
    buf[0, F_LO] = lo
    buf[0, F_HI] = hi
    buf[0, F_NJ] = nj
    buf[0, F_NAT] = np.int64(natm)
    for i in range(best[1]):
        for f in range(N_F):
            buf[i + 1, f] = ws[W_PLAN, i, f]
    return wt + v, best[1] + 1


@hot
def best_with(hand: np.uint64, d: int, w: np.ndarray, w_low: int, jw: int, top: int,
              keep: bool, ws: np.ndarray, best: np.ndarray, buf: np.ndarray) -> tuple[int, int]:
    """Exact best score (weights as ``melds.best_partition``) over the partitions of
    ``hand`` in which the natural card ``d`` is melded: every meld through ``d`` (sets of
    its rank with 0-2 jokers, sequence windows through its position(s) whose gaps are
    jokers) plus the exact best partition of the rest (``keep``: one card must stay).
    Returns (score, melds) with the plan in ``buf``; (-1, 0) when ``d`` fits no meld.
    (A joker of that meld standing in for a natural of the hand is never needed: it can
    swap places with that natural at the same value.)"""
    nat = hand & NAT_MASK
    jok = count(hand & JOKER_MASK)
    s = d // N_RANKS
    r = d % N_RANKS
    cb = bit(d)
    cur = -1
    cur_n = 0
    mates = nat & RANK_MASK[r] & ~cb
    sub = mates
    while True:
        n = 1 + count(sub)
        natm = sub | cb
        for nj in range(max(0, 3 - n), min(jok, 4 - n) + 1):
            wt = 0
            m = natm
            while m != EMPTY:
                wt += w[lowest(m)]
                m &= m - ONE
            wt += nj * (jw if jw >= 0 else w[d])
            cur, cur_n = _consider(hand, natm, nj, wt, SET, r, -1, -1, keep, w, w_low, jw, top,
                                   ws, best, buf, cur, cur_n)
        if sub == EMPTY:
            break
        sub = (sub - ONE) & mates
    n_pos = 2 if r == N_RANKS - 1 and top == 13 else 1
    for k in range(n_pos):
        pc = r + 1 if r != N_RANKS - 1 else (0 if k == 0 else 13)
        for lo in range(pc, -1, -1):
            for hi in range(max(pc, lo + 2), top + 1):
                if lo == 0 and hi == 13:
                    break
                natm = cb
                miss = 0
                wt = 0
                for p in range(lo, hi + 1):
                    c = card_at(s, p)
                    if p != pc and not has(nat, c):
                        miss += 1
                        if jw >= 0:
                            continue
                    elif p != pc:
                        natm |= bit(c)
                    wt += pos_weight(s, p, w, w_low)
                if miss > jok:
                    continue
                if jw >= 0:
                    wt += miss * jw
                cur, cur_n = _consider(hand, natm, miss, wt, SEQ, s, lo, hi, keep, w, w_low, jw,
                                       top, ws, best, buf, cur, cur_n)
    return cur, cur_n


@hot
def add_joker(ws: np.ndarray, n: int, hand: np.uint64, keep: bool, top: int) -> None:
    """Make the plan ``ws[W_PLAN, :n]`` (no joker in it, ``n >= 1``; ``hand`` holds a
    joker) use one joker: added to a brelan or at an end of a sequence when a card then
    still stays in hand if ``keep``; else standing in for the first meld's lowest natural
    card (same value; that card stays in hand)."""
    m, nj = plan_cards(ws, W_PLAN, n)
    if not keep or count(hand) - count(m) - nj >= 2:
        for i in range(n):
            size = count(np.uint64(ws[W_PLAN, i, F_NAT])) + ws[W_PLAN, i, F_NJ]
            if ws[W_PLAN, i, F_KIND] == SET:
                if size < 4:
                    ws[W_PLAN, i, F_NJ] += 1
                    return
                continue
            lo = ws[W_PLAN, i, F_LO]
            hi = ws[W_PLAN, i, F_HI]
            if hi + 1 <= top and not (lo == 0 and hi + 1 == 13):
                ws[W_PLAN, i, F_HI] = hi + 1
                ws[W_PLAN, i, F_NJ] += 1
                return
            if lo - 1 >= 0 and not (lo - 1 == 0 and hi == 13):
                ws[W_PLAN, i, F_LO] = lo - 1
                ws[W_PLAN, i, F_NJ] += 1
                return
    natm = np.uint64(ws[W_PLAN, 0, F_NAT])
    ws[W_PLAN, 0, F_NAT] = np.int64(natm & ~bit(lowest(natm)))
    ws[W_PLAN, 0, F_NJ] += 1


@hot
def plan_value(ws: np.ndarray, n: int, ace_low: int) -> int:
    """Opening value of the plan ``ws[W_PLAN, :n]`` (jokers worth the card they stand for)."""
    t = 0
    for i in range(n):
        if ws[W_PLAN, i, F_KIND] == SET:
            size = count(np.uint64(ws[W_PLAN, i, F_NAT])) + ws[W_PLAN, i, F_NJ]
            t += size * VAL[ws[W_PLAN, i, F_KEY]]
        else:
            for p in range(ws[W_PLAN, i, F_LO], ws[W_PLAN, i, F_HI] + 1):
                t += ace_low if p == 0 else VAL[card_at(ws[W_PLAN, i, F_KEY], p)]
    return t


@hot
def _in_plan(ws: np.ndarray, n: int, d: int) -> bool:
    m, nj = plan_cards(ws, W_PLAN, n)
    return nj > 0 if d >= N_NAT else has(m, d)


@hot
def must_mode(hand: np.uint64, d: int, opened: bool, kv: np.ndarray, top: int, keep: int,
              tm: np.ndarray, tcards: np.ndarray, n_table: int, ws: np.ndarray,
              best: np.ndarray, val: np.ndarray, cw: np.ndarray,
              buf: np.ndarray) -> tuple[int, int, int]:
    """How ``hand`` (holding the discard ``d`` just taken, in a turn where melds are
    allowed) melds ``d`` this turn: (MODE_NONE: it cannot, MODE_NORMAL: the usual lay-down
    (no Rami hold) includes it, MODE_LAYOFF: lay it off first, then play as usual,
    MODE_PLAN: lay the plan ``buf[:n]`` (opening value v)) as (mode, n, v). Exact: a use
    exists iff this finds one. Jokers are interchangeable: a joker is used when the plan
    melds one (``lay_plan_d`` then lays ``d`` itself)."""
    if opened:
        best_partition_keep(hand, keep == 1, cw, COUNT_UNIT + 11, COUNT_UNIT + kv[K_JPEN], top,
                            ws, best)
        n = best[1]
        if n > 0 and _in_plan(ws, n, d):
            return MODE_NORMAL, 0, 0
    else:
        v = try_open(hand, False, kv, top, keep, ws, best, val, cw)
        n = best[1] if v > 0 else 0
        if n > 0 and _in_plan(ws, n, d):
            return MODE_NORMAL, 0, 0
    if (opened or not kv[K_OPEN_FIRST]) and fits_any(d, tm, tcards, n_table, top):
        return MODE_LAYOFF, 0, 0
    if n == 0:
        return MODE_NONE, 0, 0
    if d >= N_NAT:  # a lay-down without jokers exists: make it take one
        add_joker(ws, n, hand, keep == 1, top)
        for i in range(n):
            for f in range(N_F):
                buf[i, f] = ws[W_PLAN, i, f]
        return MODE_PLAN, n, plan_value(ws, n, kv[K_ACE_LOW])
    if opened:
        v, n = best_with(hand, d, cw, COUNT_UNIT + 11, COUNT_UNIT + kv[K_JPEN], top, keep == 1,
                         ws, best, buf)
        return (MODE_PLAN, n, 0) if v > 0 else (MODE_NONE, 0, 0)
    v, n = best_with(hand, d, val, kv[K_ACE_LOW], -1, top, keep == 1, ws, best, buf)
    return (MODE_PLAN, n, v) if v >= kv[K_OPEN_MIN] and v > 0 else (MODE_NONE, 0, 0)
