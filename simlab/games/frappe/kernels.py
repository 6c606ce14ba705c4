"""Frappe: result columns, the batch kernels and the runner's entry points. A deal is
played by stepping the rules (``rules.py``: ``start_deal``, ``to_move``, ``apply_move``)
with each seat's player (``players.choose``); the search player's rollouts step the same
functions.

Deal level: every deal is a fresh manche (dealer = deal index mod 2), played to its end
(no match target: ``score_s*`` are the points each seat marks in it, all sources); a
pénitence ends it at once (column ``penitence``). Match level: manches with alternating
dealers (catalogue #10) until a seat reaches ``target`` — even in the middle of a deal
— or makes a pénitence.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, OPT_BOOL, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.frappe.players import choose, search_work
from simlab.games.frappe.rules import (
    EV_ANNOUNCE,
    EV_CAPTURES,
    EV_COUNTERS,
    EV_DECLINED,
    EV_EN_PLACE,
    EV_STRIKES,
    EV_STRUCK_BACK,
    EV_SWEEPS,
    EXT_SIZE,
    HAND,
    K_MAX_DEALS,
    K_PEN_WINS,
    K_TARGET,
    M_PILE,
    N_CARDS,
    N_EV,
    N_M,
    N_ROUNDS,
    N_S,
    N_SRC,
    PH_OVER,
    S_EV,
    S_EXT_MULT,
    S_EXT_POS,
    S_EXT_ROUND,
    S_LEFTOVER,
    S_LEFTOVER_TO,
    S_PENITENCE,
    S_PHASE,
    S_PLY,
    S_PTS,
    S_REACH_SRC,
    S_REACHED,
    S_ROUND,
    SOURCES,
    SRC_ANNOUNCE,
    SRC_CARDS,
    SRC_EN_PLACE,
    SRC_EXTENSION,
    SRC_STRIKE,
    SRC_SWEEP,
    FrappeKnobs,
    apply_move,
    knob_vector,
    new_state,
    points,
    policy_vector,
    start_deal,
    to_move,
)
from simlab.mechanics.tricks import popcount

DEALT = N_ROUNDS * HAND  # cards dealt to each seat in a deal

# --- result columns -------------------------------------------------------------------
# deal rows: deal, dealer, score_s0, score_s1, then per-seat blocks (name_s0, name_s1),
# then the fixed columns.
C_DEAL, C_DEALER, C_SCORE = 0, 1, 2
BLOCKS = (
    ("cards_won", "cards in the seat's won pile at the end (the leftover included)"),
    ("pts_cards", "points for the card difference (seed §7)"),
    ("pts_announce", "points for winning announcements (pair / brelan, §5)"),
    ("pts_strike", "points for frappes that stood and contre-frappes (§6.1)"),
    ("pts_sweep", "points for nettoyages (§6.3)"),
    ("pts_en_place", "points for cards played en place (§6.2)"),
    ("pts_extension", "points for the extension (dealer only, §4.1)"),
    ("strikes", "frappes that stood"),
    ("counter_strikes", "contre-frappes made"),
    ("struck_back", "the seat's frappes cancelled by a contre-frappe"),
    ("sweeps", "nettoyages scored"),
    ("en_place", "cards played en place (scoring)"),
    ("declined", "captures declined to play en place"),
    ("announce_won", "rounds whose announcement the seat won"),
    ("captures", "captures made (a frappe's counted when it stood)"),
)
(B_CARDS, B_PTS_CARDS, B_PTS_ANN, B_PTS_STRIKE, B_PTS_SWEEP, B_PTS_EN_PLACE, B_PTS_EXT,
 B_STRIKES, B_COUNTERS, B_STRUCK, B_SWEEPS, B_EN_PLACE, B_DECLINED, B_ANN, B_CAPTURES,
 N_BLOCKS) = range(16)
F0 = C_SCORE + 2 + 2 * N_BLOCKS
(F_EXT_ROUND, F_EXT_POS, F_EXT_MULT, F_PENITENCE, F_LEFTOVER, F_LEFTOVER_TO, F_PLAYS,
 N_FIXED) = range(8)
N_DEAL_COLS = F0 + N_FIXED
_SRC_BLOCK = ((SRC_CARDS, B_PTS_CARDS), (SRC_ANNOUNCE, B_PTS_ANN), (SRC_STRIKE, B_PTS_STRIKE),
              (SRC_SWEEP, B_PTS_SWEEP), (SRC_EN_PLACE, B_PTS_EN_PLACE),
              (SRC_EXTENSION, B_PTS_EXT))
_EV_BLOCK = ((EV_STRIKES, B_STRIKES), (EV_COUNTERS, B_COUNTERS), (EV_STRUCK_BACK, B_STRUCK),
             (EV_SWEEPS, B_SWEEPS), (EV_EN_PLACE, B_EN_PLACE), (EV_DECLINED, B_DECLINED),
             (EV_ANNOUNCE, B_ANN), (EV_CAPTURES, B_CAPTURES))
SRC_BLOCK = np.array(_SRC_BLOCK, dtype=np.int64)
EV_BLOCK = np.array(_EV_BLOCK, dtype=np.int64)


def deal_columns(k: FrappeKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer")]
    cols += [Column(f"score_s{i}", help="points the seat marked in the deal, all sources")
             for i in range(2)]
    for name, text in BLOCKS:
        cols += [Column(f"{name}_s{i}", help=text) for i in range(2)]
    cols += [Column("ext_round", help="round (1-8) after whose dealing the extension was "
                                      "turned; 0 if a pénitence ended the deal before"),
             Column("ext_position_points", help="extension points for cards in place "
                                                "(best swaps and direction)"),
             Column("ext_multiple_points", help="extension points for multiples with the "
                                                "table"),
             Column("penitence", help="seat that made a pénitence (it wins the match, or with "
                    "penitence_wins_match = false ends the deal), -1"),
             Column("leftover", help="cards left on the table after the last play"),
             Column("leftover_to", help="seat that took them (the last to capture), -1"),
             Column("plays", help="cards played (48 unless a pénitence stopped the deal)")]
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST_DEALER, M_WINNER, M_N_DEALS, M_FINAL0, M_FINAL1, M_MID_DEAL,
 M_PENITENCE, M_REACH_SRC, M_CAPPED, N_MATCH_COLS) = range(11)


def match_columns(k: FrappeKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat that reached the target first or made a pénitence; "
                                  "-1 if capped"),
            Column("n_deals", help="manches dealt (the last one possibly unfinished)"),
            Column("final_score_s0"), Column("final_score_s1"),
            Column("mid_deal", OPT_BOOL, help="the target was reached before the last deal's "
                                              "card count (during play); null: pénitence or "
                                              "capped"),
            Column("by_penitence", BOOL, help="a pénitence ended the match"),
            Column("reach_source", SOURCES, help="source of the points that reached the "
                                                 "target (null: pénitence or capped)"),
            Column("capped", BOOL, help="stopped by the max_deals safety cap")]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- one deal ---------------------------------------------------------------------------------
@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray, pp: np.ndarray,
              pstate: np.uint64, seed: np.uint64, index: int, sub: int, budget: np.ndarray,
              st: np.ndarray, mk: np.ndarray, dk: np.ndarray, sw: tuple, target: int,
              base0: int, base1: int, ext_random: int) -> np.uint64:
    """One manche from a shuffled ``deck``: each seat's policy picks its moves until the
    deal is over (its end, a pénitence, or the match ``target`` reached). The state holds
    the finished deal afterwards. Returns the POLICY stream state."""
    start_deal(st, mk, dk, deck, dealer, kv, target, base0, base1, ext_random)
    while st[S_PHASE] != PH_OVER:
        p = to_move(st)
        # each seat decides with its own policy values (simlab.engine.seatknobs)
        pstate, move = choose(pol[p], pstate, seed, index, sub, st, mk, dk, kv, pp[p],
                              budget[p, 0], budget[p, 1], sw)
        apply_move(st, mk, dk, kv, move)
    return pstate


@hot
def fill_row(st: np.ndarray, mk: np.ndarray, row: np.ndarray) -> None:
    """The deal's columns from C_SCORE on."""
    b = C_SCORE + 2  # the per-seat blocks
    for p in range(2):
        row[C_SCORE + p] = points(st, p)
        row[b + 2 * B_CARDS + p] = popcount(mk[M_PILE + p])
        for j in range(SRC_BLOCK.shape[0]):
            row[b + 2 * SRC_BLOCK[j, 1] + p] = st[S_PTS + p * N_SRC + SRC_BLOCK[j, 0]]
        for j in range(EV_BLOCK.shape[0]):
            row[b + 2 * EV_BLOCK[j, 1] + p] = st[S_EV + p * N_EV + EV_BLOCK[j, 0]]
    row[F0 + F_EXT_ROUND] = st[S_EXT_ROUND] + 1
    row[F0 + F_EXT_POS] = st[S_EXT_POS]
    row[F0 + F_EXT_MULT] = st[S_EXT_MULT]
    row[F0 + F_PENITENCE] = st[S_PENITENCE]
    row[F0 + F_LEFTOVER] = st[S_LEFTOVER]
    row[F0 + F_LEFTOVER_TO] = st[S_LEFTOVER_TO]
    row[F0 + F_PLAYS] = st[S_PLY]


@hot
def record_dealt(st: np.ndarray, deck: np.ndarray, dealer: int, out: np.ndarray) -> None:
    """The cards each seat was dealt, in dealing order (rounds of 3; ``out`` [2, 24],
    -1 for rounds not dealt): the non-dealer's 3 then the dealer's, the extension's 4
    cards taken from the pack after its round."""
    out[:, :] = -1
    pos = 0
    for k in range(st[S_ROUND] + 1):
        for i in range(HAND):
            out[1 - dealer, HAND * k + i] = deck[pos + i]
            out[dealer, HAND * k + i] = deck[pos + HAND + i]
        pos += 2 * HAND
        if st[S_EXT_ROUND] == k:
            pos += EXT_SIZE


# --- batch kernels ----------------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 pp: np.ndarray, budget: np.ndarray, record: bool) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, DEALT), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    st = np.zeros(N_S, dtype=np.int64)
    mk = np.zeros(N_M, dtype=np.uint64)
    dk = np.zeros(N_CARDS, dtype=np.int64)
    sw = search_work()
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % 2
        _, ext_random = rng.below(rng.stream(seed, d, 0, rng.SETUP), N_ROUNDS)
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        play_deal(deck, dealer, pol, kv, pp, rng.stream(seed, d, 0, rng.POLICY), seed, d, 0,
                  budget, st, mk, dk, sw, 0, 0, 0, ext_random)
        fill_row(st, mk, out[i])
        if record:
            record_dealt(st, deck, dealer, dealt[i])
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   pp: np.ndarray, budget: np.ndarray) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    st = np.zeros(N_S, dtype=np.int64)
    mk = np.zeros(N_M, dtype=np.uint64)
    dk = np.zeros(N_CARDS, dtype=np.int64)
    sw = search_work()
    total = np.zeros(2, dtype=np.int64)
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 2)
        total[:] = 0
        winner = -1
        mid = -1
        pen = False
        src = -1
        n_deals = 0
        while n_deals < kv[K_MAX_DEALS]:
            j = n_deals + 1
            dealer = (first + n_deals) % 2
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, j, rng.SHUFFLE), deck, N_CARDS)
            _, ext_random = rng.below(rng.stream(seed, m, j, rng.SETUP), N_ROUNDS)
            play_deal(deck, dealer, pol, kv, pp, rng.stream(seed, m, j, rng.POLICY), seed, m, j,
                      budget, st, mk, dk, sw, target, total[0], total[1], ext_random)
            n_deals += 1
            for p in range(2):
                total[p] += points(st, p)
            if st[S_PENITENCE] >= 0 and kv[K_PEN_WINS]:
                winner = st[S_PENITENCE]
                pen = True
                break
            if st[S_REACHED] >= 0:
                winner = st[S_REACHED]
                src = st[S_REACH_SRC]
                mid = 0 if src == SRC_CARDS else 1
                break
        o = out[i]
        o[M_MATCH] = m
        o[M_FIRST_DEALER] = first
        o[M_WINNER] = winner
        o[M_N_DEALS] = n_deals
        o[M_FINAL0] = total[0]
        o[M_FINAL1] = total[1]
        o[M_MID_DEAL] = mid
        o[M_PENITENCE] = pen
        o[M_REACH_SRC] = src
        o[M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------------
def _setup(knobs: FrappeKnobs, policies: tuple[str, ...]) -> tuple:
    """Kernel arguments; the players' vectors (policy values, search budget) have one row
    per seat (simlab.engine.seatknobs)."""
    return (policy_codes(policies), knob_vector(knobs),
            seat_vectors(knobs, policies, policy_vector), seat_vectors(knobs, policies, _budget))


def _budget(knobs: FrappeKnobs) -> np.ndarray:
    return np.array([knobs.search_worlds, knobs.search_rollouts], dtype=np.int64)


def run_deals(knobs: FrappeKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, kv, pp, budget = _setup(knobs, policies)
    rows, dealt = deals_kernel(np.uint64(seed), start, count, pol, kv, pp, budget,
                               record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt)


def run_matches(knobs: FrappeKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, kv, pp, budget = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, kv, pp, budget))


# --- positions by hand (tests, tracing) -----------------------------------------------------
def deck_of(seed: int, d: int) -> np.ndarray:
    """The shuffled pack of deal ``d`` of a deal-level run with ``seed``."""
    deck = np.arange(N_CARDS, dtype=np.int64)
    with np.errstate(over="ignore"):
        rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, N_CARDS)
    return deck


def begin(deck: np.ndarray, dealer: int, knobs: FrappeKnobs | None = None, target: int = 0,
          base: tuple[int, int] = (0, 0), ext_random: int = 0) -> tuple:
    """A deal dealt from ``deck`` (52 card ids in pack order), ready for its first
    decision: (st, mk, dk)."""
    k = knobs or FrappeKnobs()
    st, mk, dk = new_state()
    start_deal(st, mk, dk, np.asarray(deck, dtype=np.int64), dealer, knob_vector(k), target,
               base[0], base[1], ext_random)
    return st, mk, dk


def card_text(mask: int | np.uint64) -> str:
    """Ranks of a card mask, e.g. "A 5 5 K" (suits never matter)."""
    from simlab.games.frappe.rules import RANK_NAMES, RANK_OF

    m = int(mask)
    return " ".join(RANK_NAMES[RANK_OF[c]] for c in sorted(range(N_CARDS), key=lambda c: RANK_OF[c])
                    if m >> c & 1)


def trace_deal(knobs: FrappeKnobs, policies: tuple[str, ...], seed: int, d: int) -> list[str]:
    """Deal ``d`` of a deal-level run, stepped here one decision at a time with the same
    functions as the kernel, as readable lines (for tests and for reading the bots)."""
    from simlab.games.frappe.rules import (
        M_HAND,
        M_TABLE,
        PH_EXT,
        RANK_NAMES,
        S_DEALER,
        S_PEND_SEAT,
    )

    pol, kv, pp, budget = _setup(knobs, policies)
    deck = deck_of(seed, d)
    with np.errstate(over="ignore"):
        _, ext_random = rng.below(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SETUP)),
                                  N_ROUNDS)
        st, mk, dk = begin(deck, d % 2, knobs, ext_random=int(ext_random))
        sw = search_work()
        pstate = np.uint64(rng.stream(np.uint64(seed), d, 0, rng.POLICY))
        lines = [f"deal {d}, dealer {st[S_DEALER]}"]
        rnd = -1
        while st[S_PHASE] != PH_OVER:
            if st[S_ROUND] != rnd:
                rnd = int(st[S_ROUND])
                lines.append(f"-- round {rnd + 1}: s0 [{card_text(mk[M_HAND])}] "
                             f"s1 [{card_text(mk[M_HAND + 1])}] table [{card_text(mk[M_TABLE])}]")
            p = to_move(st)
            before = [points(st, 0), points(st, 1)]
            phase = st[S_PHASE]
            pstate, move = choose(pol[p], np.uint64(pstate), np.uint64(seed), d, 0, st, mk, dk, kv,
                                  pp[p], budget[p, 0], budget[p, 1], sw)
            apply_move(st, mk, dk, kv, move)
            gained = [points(st, 0) - before[0], points(st, 1) - before[1]]
            if phase == PH_EXT:
                what = "turns the extension" if move == 1 else "waits"
            else:
                what = f"plays {RANK_NAMES[move >> 1]}" + (" en place (declines)" if move & 1 else "")
            pend = " (frappe pending)" if st[S_PEND_SEAT] >= 0 else ""
            lines.append(f"s{p} {what}: table [{card_text(mk[M_TABLE])}] points {gained}{pend}")
    lines.append(f"end: points {points(st, 0)} / {points(st, 1)}, piles "
                 f"{popcount(mk[M_PILE])} / {popcount(mk[M_PILE + 1])}, pénitence {st[S_PENITENCE]}")
    return lines
