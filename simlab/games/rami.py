"""Rami, the French rummy for 2 to 7 players (seed 003 "Rami"; catalogue ``rami.md``).

Read top to bottom like the rulebook: deck and values, knobs, result columns, the turn
(draw, melds, lay-offs, discard), the deal, scoring, the match to 1000.

Seats 0..P-1 clockwise; the dealer's left (``dealer + 1``) plays first. A deal is a
variable number of turns: it ends when a player has no card left (he "goes out"), or
at the turn cap (``turn_cap``, catalogue: deals that cannot end), or when nobody can
draw any more (talon and discard pile both empty, which the cap also reports).

The meld machinery (exact best partition of a hand, lay-offs) is ``simlab.melds``.

Policies (both lay melds the same way; they differ in drawing, opening and discarding):

* ``heuristic``: draw the discard pile's top card when it completes a 3-card meld with
  two natural cards of the hand (same rank, or a run of its suit), when it is a joker,
  or (once opened) when it can be laid off on the table; else the talon. Open as soon
  as the exact best partition is worth ``opening_min`` (optionally hold it for a Rami:
  ``hold_for_rami``), going out at once when a partition leaves at most one card.
  Once opened, lay the partition that melds the most cards (then the most points) and
  lay off every natural card that fits (jokers only when at most one natural card is
  left). Discard the card of least meld potential (``melds.partners``: 2 per card of
  its rank, 2 per neighbour of its suit, 1 per card two steps away), the highest value
  first among equals; never a joker unless only jokers are left.
* ``random``: uniform draw source (talon or discard pile) and uniform discard among the
  hand's cards (jokers included); melds are laid by the simple rule "lay whenever
  possible", with the heuristic's exact search: open with the best partition as soon
  as it reaches ``opening_min`` (going out at once when possible), then lay every meld
  and lay-off each turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab.decks import get_deck
from simlab.games.base import BOOL, HEURISTIC, Column, Game, KernelOutput, policy_codes
from simlab.jit import batch, hot
from simlab.knobs import Knobs, SimlabError, knob
from simlab.melds import (
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
    partners,
    plan_cards,
    pos_weight,
)
from simlab.metrics import MetricDef
from simlab.tricks import EMPTY, ONE, bit, cards_of, count, has, lowest, random_card

# --- deck and card values -------------------------------------------------------------
# 54 cards: natural c = suit * 13 + r (r = 0..12 for 2..10, J, Q, K, A), jokers 52, 53.
DECK = get_deck("54")
MAX_CARDS = 54
# Value of a card for the opening count and for penalties: A 11, K/Q/J 10, others face.
VAL = np.array([min(r + 2, 10) if r < 12 else 11 for _ in range(4) for r in range(N_RANKS)],
               dtype=np.int64)
CW = VAL + 1000  # "most cards melded, then most points" search weights
COUNT_UNIT = 1000


def deal_size(players: int) -> int:
    """Cards dealt to each player by the seed: 2 -> 10, 3 to 5 -> 7, 6 or 7 -> 6."""
    return 10 if players == 2 else 7 if players <= 5 else 6


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class RamiKnobs(Knobs):
    players: int = knob(4, "number of players", lo=2, hi=7)
    hand_size: int = knob(0, "cards dealt to each player; 0 = the seed's (2 players: 10, "
                          "3-5: 7, 6-7: 6)", lo=0, hi=10)
    jokers: int = knob(2, "jokers in the pack (the seed says 52 cards yet lets a joker "
                       "replace any card; catalogue #1: 52 + 2)", choices=(0, 2))
    joker_penalty: int = knob(20, "penalty of a joker left in hand (not in the seed; "
                              "catalogue #1)", lo=0, hi=200)
    opening_min: int = knob(51, "minimum value of a player's first lay-down", lo=0, hi=300)
    ace_high: bool = knob(True, "the ace may also end a sequence high (Q-K-A; never K-A-2; "
                          "catalogue #2)", seed_value=False)
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
    # Not a knob yet: the variant "a joker on the table may be exchanged" (catalogue #7).
    target: int = knob(1000, "the match ends after the deal in which a total reaches this; "
                       "the lowest total wins", lo=1, hi=100000)
    turn_cap: int = knob(200, "a deal stops after this many turns (all players) and is "
                         "scored as it stands", lo=1, hi=100000)
    max_deals: int = knob(500, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    hold_for_rami: int = knob(0, "heuristic: a player able to open but not to go out at "
                              "once waits up to this many of his turns, hoping for a Rami",
                              lo=0, hi=50, policy=True)

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
 K_MAX_DEALS, K_HOLD, K_MUST_MELD, N_K) = range(19)


def _vector(k: RamiKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[:N_K] = [k.players, k.cards_each, k.jokers, k.joker_penalty, k.opening_min, k.ace_high,
               k.ace_low_value, k.open_before_layoff, k.meld_from_turn,
               k.final_discard_required, k.rami_doubles, k.winner_bonus, k.winner_bonus_rami,
               k.target, k.turn_cap, k.max_deals, k.hold_for_rami, k.discard_take_must_meld]
    return v


# --- result columns -----------------------------------------------------------------
# score_s* from column 3; then fixed columns, then per-seat blocks (see _cols).
C_DEAL, C_DEALER, C_ANNULLED, C_SCORE = 0, 1, 2, 3
(X_TURNS, X_OUT, X_RAMI, X_CAPPED, X_TURNOVERS, X_DISCARD_DRAWS, N_X) = range(7)


@hot
def _cols(P: int) -> tuple[int, int, int, int, int]:
    """(first fixed column, open_turn_s0, open_value_s0, penalty_s0, number of columns)."""
    b = C_SCORE + P
    return b, b + N_X, b + N_X + P, b + N_X + 2 * P, b + N_X + 3 * P


def deal_columns(k: RamiKnobs | None = None) -> list[Column]:
    P = (k or RamiKnobs()).players
    cols = [Column("deal"), Column("dealer"), Column("annulled", BOOL)]
    cols += [Column(f"score_s{i}", help="points marked this deal: the penalty of the cards "
                    "left (doubled by a Rami), the winner's bonus for who went out; lower is "
                    "better") for i in range(P)]
    cols += [Column("turns", help="turns played in the deal (all players)"),
             Column("went_out", help="seat that went out; -1 if the deal was capped"),
             Column("rami", BOOL, help="the winner went out in the turn of his first lay-down"),
             Column("capped", BOOL, help="stopped by the turn cap (or nobody could draw)"),
             Column("talon_turnovers", help="times the discard pile became the talon"),
             Column("discard_draws", help="draws from the discard pile")]
    cols += [Column(f"open_turn_s{i}", help="deal turn (0-based, all players) of the seat's "
                    "opening; -1 never") for i in range(P)]
    cols += [Column(f"open_value_s{i}", help="value of the seat's opening melds (0 never)")
             for i in range(P)]
    cols += [Column(f"penalty_s{i}", help="value of the cards left in hand at the end")
             for i in range(P)]
    assert len(cols) == _cols(P)[4]
    return cols


def match_columns(k: RamiKnobs | None = None) -> list[Column]:
    P = (k or RamiKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the lowest total; -1 if capped"), Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(P)]
    cols += [Column("n_rami", help="deals ended by a Rami"),
             Column("n_capped_deals", help="deals stopped by the turn cap"),
             Column("leader_3_before", help="seat with the lowest total 3 deals before the "
                                            "end (-1: tie or fewer than 3 deals)"),
             Column("capped", BOOL)]
    assert len(cols) == 8 + P
    return cols


# --- the turn --------------------------------------------------------------------------
@hot
def wants_discard(hand: np.uint64, d: int, opened: bool, tm: np.ndarray, tcards: np.ndarray,
                  n_table: int, top: int) -> bool:
    """Heuristic draw: take the discard ``d`` when it is a joker, when it makes a 3-card
    meld with two natural cards of the hand, or (opened) when it fits a table meld."""
    if d >= N_NAT:
        return True
    nat = hand & NAT_MASK
    r = d % N_RANKS
    s = d // N_RANKS
    if count(nat & RANK_MASK[r]) >= 2:
        return True
    n_pos = 2 if r == 12 and top == 13 else 1
    for k in range(n_pos):
        pc = r + 1 if r != 12 else (0 if k == 0 else 13)
        for lo in range(pc - 2, pc + 1):
            if lo < 0 or lo + 2 > top:
                continue
            ok = True
            for p in range(lo, lo + 3):
                if p != pc and not has(nat, card_at(s, p)):
                    ok = False
            if ok:
                return True
    return opened and fits_any(d, tm, tcards, n_table, top)


@hot
def choose_discard(hand: np.uint64, top: int) -> int:
    """Heuristic discard: least meld potential, then highest value; a joker only when
    the hand holds nothing else."""
    nat = hand & NAT_MASK
    if nat == EMPTY:
        return lowest(hand)
    best = -1
    best_pot = 1 << 30
    best_val = -1
    m = nat
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        pot = partners(c, hand, top)
        if pot < best_pot or (pot == best_pot and VAL[c] > best_val):
            best = c
            best_pot = pot
            best_val = VAL[c]
    return best


@hot
def hand_value(hand: np.uint64, joker_penalty: int) -> int:
    t = count(hand & JOKER_MASK) * joker_penalty
    m = hand & NAT_MASK
    while m != EMPTY:
        t += VAL[lowest(m)]
        m &= m - ONE
    return t


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


# --- variant: a card taken from the discard pile must be melded at once ------------------
# (knob discard_take_must_meld, catalogue #5). At the draw, ``must_mode`` decides whether
# the discard's top card ``d`` can be used this turn and how; the meld phase then does it.
MODE_NONE, MODE_NORMAL, MODE_LAYOFF, MODE_PLAN = range(4)


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
def lay_off_one(hand: np.uint64, d: int, tm: np.ndarray, tcards: np.ndarray, n_table: int,
                top: int) -> np.uint64:
    for i in range(n_table):
        pos = fits(d, tm, i, tcards, top)
        if pos >= 0:
            add_card(d, pos, tm, i, tcards)
            return hand & ~bit(d)
    return hand


# --- the deal --------------------------------------------------------------------------
@hot
def _log(tlog: np.ndarray, tmask: np.ndarray, t: int, p: int, c: int, take: bool, d: int,
         tcards: np.ndarray, n_table: int, hand: np.uint64) -> None:
    if t >= tlog.shape[0]:
        return
    tlog[t, 0] = p
    tlog[t, 1] = c
    tlog[t, 2] = take
    tlog[t, 3] = d
    m = EMPTY
    for i in range(n_table):
        m |= tcards[i]
    tmask[t, 0] = m
    tmask[t, 1] = hand


@hot
def play_deal(deck: np.ndarray, n_cards: int, dealer: int, pol: np.ndarray, kv: np.ndarray,
              wk: tuple, state: np.uint64, row: np.ndarray, dealt: np.ndarray,
              hands_out: np.ndarray, rec_table: np.ndarray, rec_rest: np.ndarray) -> np.uint64:
    """One deal from a shuffled ``deck[:n_cards]``: fills ``row`` from C_SCORE on, the
    dealt hands ``dealt`` [P, k], the final hands ``hands_out`` [P, k], the table's melds
    ``rec_table`` [MAX_MELDS] and (talon, discard pile) masks ``rec_rest`` [2]. ``wk``
    holds the work arrays (``_work``; writable copies of the value tables, as the meld
    search is compiled for writable arrays only; a turn log ``tlog`` [L, 4] of (seat,
    card drawn, 1 if from the discard pile, card discarded or -1) and ``tmask`` [L, 2] of
    (cards on the table, hand) after the turn, for the first L turns). Returns the policy
    stream state."""
    hands, talon, disc, tm, tcards, ws, best, pst, val, cw, buf, tlog, tmask = wk
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    top = 13 if kv[K_ACE_HIGH] else 12
    keep = 1 if kv[K_FINAL_DISCARD] else 0
    fixed, c_open_turn, c_open_val, c_pen, _ = _cols(P)
    for p in range(P):
        hands[p] = EMPTY
        pst[p, 0] = 0  # opened
        pst[p, 1] = 0  # own turns played
        pst[p, 2] = 0  # turns held for a Rami
        row[c_open_turn + p] = -1
        row[c_open_val + p] = 0

    # Deal one card at a time from the dealer's left; turn the next card up.
    pos = 0
    for i in range(hs):
        for k in range(P):
            p = (dealer + 1 + k) % P
            c = deck[pos]
            pos += 1
            hands[p] |= bit(c)
            dealt[p, i] = c
    disc[0] = deck[pos]
    pos += 1
    nd = 1
    nt = 0
    for i in range(pos, n_cards):
        talon[nt] = deck[i]
        nt += 1
    tp = 0
    n_table = 0
    went_out = -1
    rami = False
    capped = False
    turnovers = 0
    discard_draws = 0
    t = 0
    while True:
        if t >= kv[K_CAP]:
            capped = True
            break
        p = (dealer + 1 + t) % P
        heur = pol[p] == HEURISTIC
        # 1. draw: the talon's top, or the discard pile's; an empty talon is replaced by
        # the discard pile turned face down (its first discard on top).
        if tp == nt:
            if nd == 0:
                capped = True
                break
            for i in range(nd):
                talon[i] = disc[i]
            nt = nd
            tp = 0
            nd = 0
            turnovers += 1
        take = False
        mode = MODE_NONE
        must_n = 0
        must_v = 0
        if nd > 0:
            d_top = disc[nd - 1]
            usable = True
            if kv[K_MUST_MELD] and (not heur or wants_discard(hands[p], d_top, pst[p, 0] == 1,
                                                               tm, tcards, n_table, top)):
                # the variant: the discard is an option only if it can be melded this turn
                if pst[p, 1] + 1 >= kv[K_MELD_FROM]:
                    mode, must_n, must_v = must_mode(hands[p] | bit(d_top), d_top,
                                                     pst[p, 0] == 1, kv, top, keep, tm, tcards,
                                                     n_table, ws, best, val, cw, buf)
                usable = mode != MODE_NONE
            if not usable:
                take = False
            elif heur:
                take = wants_discard(hands[p], d_top, pst[p, 0] == 1, tm, tcards, n_table, top)
            else:
                state, x = rng.below(state, 2)
                take = x == 1
        if not take:
            mode = MODE_NONE
        if take:
            nd -= 1
            c = disc[nd]
            discard_draws += 1
        else:
            c = talon[tp]
            tp += 1
        hand = hands[p] | bit(c)
        pst[p, 1] += 1
        # 2. melds (from the player's own second turn) and lay-offs; with the variant
        # discard_take_must_meld a card taken from the discard pile goes down (``mode``)
        opened_now = False
        dm = c if mode == MODE_NORMAL or mode == MODE_PLAN else -1
        if pst[p, 1] >= kv[K_MELD_FROM]:
            if mode == MODE_LAYOFF:
                hand = lay_off_one(hand, c, tm, tcards, n_table, top)
            if mode == MODE_PLAN:
                for i in range(must_n):
                    for f in range(N_F):
                        ws[W_PLAN, i, f] = buf[i, f]
                hand, n_table = lay_plan_d(hand, c, ws, must_n, tm, tcards, n_table)
                if pst[p, 0] == 0:
                    pst[p, 0] = 1
                    opened_now = True
                    row[c_open_turn + p] = t
                    row[c_open_val + p] = must_v
            elif pst[p, 0] == 0:
                hold = heur and pst[p, 2] < kv[K_HOLD] and mode == MODE_NONE
                v = try_open(hand, hold, kv, top, keep, ws, best, val, cw)
                if v > 0:
                    hand, n_table = lay_plan_d(hand, dm, ws, best[1], tm, tcards, n_table)
                    pst[p, 0] = 1
                    opened_now = True
                    row[c_open_turn + p] = t
                    row[c_open_val + p] = v
                elif v < 0:
                    pst[p, 2] += 1
            else:
                best_partition_keep(hand, keep == 1, cw, COUNT_UNIT + 11,
                                    COUNT_UNIT + kv[K_JPEN], top, ws, best)
                if best[1] > 0:
                    hand, n_table = lay_plan_d(hand, dm, ws, best[1], tm, tcards, n_table)
            if pst[p, 0] == 1 or not kv[K_OPEN_FIRST]:
                hand = lay_off_all(hand, tm, tcards, n_table, top, keep)
        if hand == EMPTY:
            hands[p] = hand
            went_out = p
            rami = opened_now
            _log(tlog, tmask, t, p, c, take, -1, tcards, n_table, hand)
            break
        # 3. discard
        if heur:
            d = choose_discard(hand, top)
        else:
            state, d = random_card(state, hand)
        hand &= ~bit(d)
        hands[p] = hand
        disc[nd] = d
        nd += 1
        _log(tlog, tmask, t, p, c, take, d, tcards, n_table, hand)
        if hand == EMPTY:
            went_out = p
            rami = opened_now
            break
        t += 1

    # Scoring: each loser marks the value of his cards (doubled by a Rami); the player
    # who went out marks the winner's bonus; a capped deal is scored as it stands.
    row[fixed + X_TURNS] = t + 1 if went_out >= 0 else t
    row[fixed + X_OUT] = went_out
    row[fixed + X_RAMI] = rami
    row[fixed + X_CAPPED] = capped
    row[fixed + X_TURNOVERS] = turnovers
    row[fixed + X_DISCARD_DRAWS] = discard_draws
    mult = 2 if rami and kv[K_RAMI_DOUBLES] else 1
    for p in range(P):
        pen = hand_value(hands[p], kv[K_JPEN])
        row[c_pen + p] = pen
        if p == went_out:
            row[C_SCORE + p] = kv[K_WIN_RAMI] if rami else kv[K_WIN]
        else:
            row[C_SCORE + p] = pen * mult
        cards_of(hands[p], hands_out[p])
    for i in range(MAX_MELDS):
        rec_table[i] = tcards[i] if i < n_table else EMPTY
    m = EMPTY
    for i in range(tp, nt):
        m |= bit(talon[i])
    rec_rest[0] = m
    m = EMPTY
    for i in range(nd):
        m |= bit(disc[i])
    rec_rest[1] = m
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def _work(P: int, log_len: int) -> tuple:
    return (np.zeros(P, dtype=np.uint64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64), np.zeros((MAX_MELDS, N_F), dtype=np.int64),
            np.zeros(MAX_MELDS, dtype=np.uint64), np.zeros((3, MAX_MELDS, N_F), dtype=np.int64),
            np.zeros(4, dtype=np.int64), np.zeros((P, 4), dtype=np.int64), VAL.copy(), CW.copy(),
            np.zeros((MAX_MELDS, N_F), dtype=np.int64), np.full((log_len, 4), -2, dtype=np.int64),
            np.zeros((log_len, 2), dtype=np.uint64))


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 record: bool, log_len: int) -> tuple:
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    n_cards = 52 + kv[K_JOKERS]
    n_cols = _cols(P)[4]
    out = np.zeros((n_cols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, P, hs), -1, dtype=np.int64)
    hands_out = np.full((n_rec, P, hs), -1, dtype=np.int64)
    rec_table = np.zeros((n_rec, MAX_MELDS), dtype=np.uint64)
    rec_rest = np.zeros((n_rec, 2), dtype=np.uint64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    wk = _work(P, log_len)  # a turn log only for count == 1 (trace_deal)
    for i in range(count):
        d = start + i
        for c in range(n_cards):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, n_cards)
        dealer = d % P
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        if not record:
            hands_out[0, :, :] = -1
        play_deal(deck, n_cards, dealer, pol, kv, wk, rng.stream(seed, d, 0, rng.POLICY), out[i],
                  dealt[j], hands_out[j], rec_table[j], rec_rest[j])
    return out, dealt, hands_out, rec_table, rec_rest, wk[11], wk[12]


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   kv: np.ndarray) -> np.ndarray:
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    n_cards = 52 + kv[K_JOKERS]
    n_cols = _cols(P)[4]
    fixed = _cols(P)[0]
    out = np.zeros((count, 8 + P), dtype=np.int64)
    row = np.zeros((n_cols, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((P, hs), dtype=np.int64)
    hands_out = np.empty((P, hs), dtype=np.int64)
    rec_table = np.zeros(MAX_MELDS, dtype=np.uint64)
    rec_rest = np.zeros(2, dtype=np.uint64)
    deck = np.empty(MAX_CARDS, dtype=np.int64)
    totals = np.zeros(P, dtype=np.int64)
    hist = np.zeros((4, P), dtype=np.int64)  # totals after deal n at row n % 4
    wk = _work(P, 0)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), P)
        dealer = first
        totals[:] = 0
        hist[:, :] = 0
        n_deals = 0
        n_rami = 0
        n_capped = 0
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(n_cards):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, n_cards)
            row[:] = 0
            play_deal(deck, n_cards, dealer, pol, kv, wk,
                      rng.stream(seed, m, n_deals + 1, rng.POLICY), row, dealt, hands_out,
                      rec_table, rec_rest)
            n_deals += 1
            n_rami += row[fixed + X_RAMI]
            n_capped += row[fixed + X_CAPPED]
            for p in range(P):
                totals[p] += row[C_SCORE + p]
                hist[n_deals % 4, p] = totals[p]
            hi = totals.max()
            dealer = (dealer + 1) % P
            if hi >= kv[K_TARGET]:
                winner = _lowest_seat(totals, P)
                if winner >= 0:  # a tie for the lowest total plays on
                    break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = n_deals
        for p in range(P):
            out[i, 4 + p] = totals[p]
        out[i, 4 + P] = n_rami
        out[i, 5 + P] = n_capped
        out[i, 6 + P] = _lowest_seat(hist[(n_deals - 3) % 4], P) if n_deals >= 3 else -1
        out[i, 7 + P] = winner < 0
    return out


@hot
def _lowest_seat(totals: np.ndarray, P: int) -> int:
    """The seat with the strictly lowest total, -1 on a tie."""
    best = 0
    tie = False
    for p in range(1, P):
        if totals[p] < totals[best]:
            best = p
            tie = False
        elif totals[p] == totals[best]:
            tie = True
    return -1 if tie else best


# --- entry points for the runner -----------------------------------------------------
def run_deals_detail(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
                     count: int, record: bool = True) -> tuple:
    """(rows, dealt, final hands, table melds [count, MAX_MELDS] uint64 masks, (talon,
    discard pile) masks [count, 2]): everything needed to audit a deal's end."""
    return deals_kernel(np.uint64(seed), start, count, policy_codes(policies), _vector(knobs),
                        record, 0)[:5]


def trace_deal(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, d: int) -> tuple:
    """Deal ``d`` of a deal-level run with its turn log: (row, log [turns, 4] of (seat,
    card drawn, 1 if from the discard pile, card discarded or -1), masks [turns, 2] uint64
    of (cards on the table, the seat's hand) after each turn). For tests and debugging."""
    rows, _, _, _, _, log, masks = deals_kernel(np.uint64(seed), d, 1, policy_codes(policies),
                                                _vector(knobs), False, knobs.turn_cap)
    turns = int(rows[0, _cols(knobs.players)[0] + X_TURNS])
    return rows[0], log[:turns], masks[:turns]


def run_deals(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt, hands, _, _ = run_deals_detail(knobs, policies, seed, start, count, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: RamiKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       _vector(knobs)))


# --- balance questions (catalogue "Balance questions") ----------------------------------
SECTION = "Rami questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: RamiKnobs | None,
                    level: str) -> list[MetricDef]:
    """Catalogue questions 1 (who goes out, by position from the dealer), 2 (deal length,
    first opening), 3 (Rami rate) and 6 (match length, last-3-deals lead changes).
    Scores are penalties here: lower is better (the standard "win rate" metrics, which
    read the highest score as the winner, do not apply to Rami; use these)."""
    k = knobs if isinstance(knobs, RamiKnobs) else RamiKnobs()
    P = k.players
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"rami.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        done = pl.col("went_out") >= 0
        for j in range(1, P + 1):
            name = "dealer" if j == P else f"dealer+{j}"
            add({"went_out", "dealer"}, f"q1.out_pos.{j % P}", f"{name} goes out (share of "
                "deals that end)", pl.col("went_out") == (pl.col("dealer") + j) % P, done,
                headline=j == 1)
        add({"turns"}, "q2.turns", "turns per deal (all players)", pl.col("turns"),
            kind="mean", unit="turns")
        opens = [pl.when(pl.col(f"open_turn_s{i}") >= 0).then(pl.col(f"open_turn_s{i}"))
                 for i in range(P)]
        first = pl.min_horizontal(opens)
        add({f"open_turn_s{i}" for i in range(P)}, "q2.first_open_turn", "deal turn of the "
            "first opening", first, first.is_not_null(), kind="mean", unit="turns")
        add({"rami"}, "q3.rami", "deals ended by a Rami", pl.col("rami"), headline=True)
        add({"capped"}, "capped", "deals stopped by the turn cap", pl.col("capped"),
            headline=True)
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q6.length", "deals to reach the target", pl.col("n_deals"),
            done, kind="mean", unit="deals")
        known = done & (pl.col("leader_3_before") >= 0)
        add({"winner", "leader_3_before"}, "q6.late_change", "the winner was not the leader "
            "3 deals before the end", pl.col("winner") != pl.col("leader_3_before"), known,
            headline=True)
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="rami",
    title="Rami",
    description="French rummy, 2-7 players: draw from talon or discard, brelans/carrés/"
                "sequences with jokers, 51-point opening, lay-offs, Rami doubles the "
                "penalties, match to 1000 (lowest total wins)",
    deck=DECK,
    knobs=RamiKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="2-7",
    lower_score_wins=True,  # score_s{i} is the penalty paid: the lowest wins
    extra={"metrics": balance_metrics},
)
