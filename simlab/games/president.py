"""Président / Trou du cul, climbing game for 4 to 6 players (seed 003 "Trou du Cul";
catalogue ``president.md``).

Read top to bottom like the rulebook: deck and rank order, knobs, titles, deal and
exchanges, play (the shared climbing machinery of ``simlab.shedding``), match.

Seats 0..n-1 clockwise; the player on the dealer's left is ``dealer + 1``. Every seat
plays for itself (``teams`` is None). A deal's score is its role points (Président +2,
Vice-Président +1, Neutre 0, Vice-Trou du cul -1, Trou du cul -2 by default); a match is
``deals_per_match`` deals with titles carried from deal to deal.

Deal level: every deal is a fresh first deal (dealer = d mod players, no exchange, the
dealer's left leads), unless ``deal_titles = "random"``: then each deal starts from
uniformly random previous titles (drawn from the deal's SETUP stream), with the exchanges
and the Trou du cul's lead, which measures the exchange's effect deal by deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab import shedding as sh
from simlab.decks import get_deck
from simlab.games.base import BOOL, Column, Game, KernelOutput, policy_codes
from simlab.jit import batch, hot
from simlab.knobs import Knobs, SimlabError, knob
from simlab.metrics import MetricDef, ratio_of_sums
from simlab.tricks import cards_of

# --- deck and rank order -------------------------------------------------------------
# The standard 52-card pack, suit-major (id = suit * 13 + i, i = 0..12 for 2, 3, .., A).
DECK = get_deck("52")
N_CARDS = 52
N_RANKS = 13
MAX_HAND = 13  # 52 / 4; at 5-6 players hands are smaller
RANK_LABELS_2_HIGH = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
RANK_LABELS_A_HIGH = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def rank_table(top_rank: str = "2") -> np.ndarray:
    """Playing rank of each card, 0 = lowest. Seed: 3 < 4 < ... < K < A < 2."""
    labels = RANK_LABELS_2_HIGH if top_rank == "2" else RANK_LABELS_A_HIGH
    return DECK.table({r: i for i, r in enumerate(labels)})


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class PresidentKnobs(Knobs):
    players: int = knob(4, "number of players (the seed: at least 4, ideally 4, up to 6)",
                        lo=4, hi=6)
    top_rank: str = knob("2", "highest rank: the seed's 2 (3 < ... < A < 2), or A (2 lowest)",
                         choices=("2", "A"))
    equal_play: bool = knob(True, "a group of the same rank as the table may be played")
    equal_play_skips: bool = knob(True, "an equal-rank play makes the next player skip his "
                                  "turn (each one in a chain, catalogue #6)")
    pass_locks_out: bool = knob(False, "a player who passed may not play again in the same "
                                "series (catalogue #1: he may)")
    revolution: bool = knob(False, "variant (not in the seed; catalogue knob table): playing "
                            "four cards of one rank, as a lead or a follow, reverses the "
                            "whole rank order (a follow must then be lower; the 2 becomes "
                            "the lowest, the 3 the highest) until the end of the deal or "
                            "until another four of a kind flips it back; the heuristic "
                            "plays by the order in force (column n_revolutions)")
    equal_hands: bool = knob(False, "at 5-6 players remove the odd cards so that all hands "
                             "are equal (catalogue #4; default: the first seats from the "
                             "dealer's left get one more card)")
    exchange_top: int = knob(2, "cards exchanged between the Président and the Trou du cul",
                             lo=0, hi=5)
    exchange_vice: int = knob(1, "cards exchanged between the Vice-Président and the "
                              "Vice-Trou du cul", lo=0, hi=5)
    tdc_leads: bool = knob(True, "after the first deal the Trou du cul leads (false: the "
                           "dealer's left)")
    points_president: int = knob(2, "role points of the Président", lo=-100, hi=100)
    points_vice_president: int = knob(1, "role points of the Vice-Président", lo=-100, hi=100)
    points_neutral: int = knob(0, "role points of a Neutre (5-6 players)", lo=-100, hi=100)
    points_vice_trou: int = knob(-1, "role points of the Vice-Trou du cul", lo=-100, hi=100)
    points_trou: int = knob(-2, "role points of the Trou du cul", lo=-100, hi=100)
    deals_per_match: int = knob(20, "deals in a match (the seed has no end: catalogue #5)",
                                lo=1, hi=100000)
    deal_titles: str = knob("none", "deal level: 'none' = every deal is a first deal; "
                            "'random' = every deal starts from random previous titles, "
                            "with the exchanges and the Trou du cul's lead",
                            choices=("none", "random"))
    turn_cap: int = knob(5000, "safety cap on turns per deal; the players still in then "
                         "finish by fewest cards (column 'capped')", lo=1, hi=10**7)
    # heuristic policy
    lead_largest: bool = knob(False, "heuristic: lead the largest group (lowest rank on "
                              "ties) instead of the lowest rank", policy=True)
    keep_top: int = knob(2, "heuristic: hold back this many top ranks (2 = aces and 2s) "
                         "to regain the lead", lo=0, hi=13, policy=True)
    endgame_cards: int = knob(4, "heuristic: with at most this many cards, play the held "
                              "back ranks and break groups to follow", lo=0, hi=13,
                              policy=True)
    break_groups: bool = knob(False, "heuristic: follow by breaking a larger group before "
                              "the endgame", policy=True)
    give_singletons: bool = knob(True, "heuristic: the Président / Vice give their lowest "
                                 "singletons (below the held back ranks) first, else their "
                                 "lowest cards", policy=True)


(K_PLAYERS, K_EQUAL_HANDS, K_X_TOP, K_X_VICE, K_TDC_LEADS, K_PTS_P, K_PTS_VP, K_PTS_N,
 K_PTS_VT, K_PTS_T, K_DEALS, K_DEAL_TITLES, N_K) = range(13)


def _vector(k: PresidentKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[[K_PLAYERS, K_EQUAL_HANDS, K_X_TOP, K_X_VICE, K_TDC_LEADS, K_PTS_P, K_PTS_VP, K_PTS_N,
       K_PTS_VT, K_PTS_T, K_DEALS, K_DEAL_TITLES]] = [
        k.players, k.equal_hands, k.exchange_top, k.exchange_vice, k.tdc_leads,
        k.points_president, k.points_vice_president, k.points_neutral, k.points_vice_trou,
        k.points_trou, k.deals_per_match, k.deal_titles == "random"]
    return v


def _rules(k: PresidentKnobs) -> np.ndarray:
    return sh.make_rules(equal_allowed=k.equal_play, equal_skips=k.equal_play_skips,
                         pass_locks_out=k.pass_locks_out, max_group=4, turn_cap=k.turn_cap,
                         revolution=4 if k.revolution else 0)


def _policy(k: PresidentKnobs) -> np.ndarray:
    return sh.make_policy(lead_largest=k.lead_largest, keep_top=k.keep_top,
                          endgame=k.endgame_cards, break_groups=k.break_groups,
                          give_singletons=k.give_singletons)


# --- titles ---------------------------------------------------------------------------
TITLES = ("president", "vice_president", "neutre", "vice_trou_du_cul", "trou_du_cul")
PRESIDENT, VICE_PRESIDENT, NEUTRE, VICE_TROU, TROU = range(5)


@hot
def title_of(place: int, n: int) -> int:
    """Title from a 1-based finishing place: 1st Président, 2nd Vice-Président, last Trou
    du cul, next to last Vice-Trou du cul, the middle (5-6 players) Neutre."""
    if place == 1:
        return PRESIDENT
    if place == 2:
        return VICE_PRESIDENT
    if place == n:
        return TROU
    if place == n - 1:
        return VICE_TROU
    return NEUTRE


# --- result columns -----------------------------------------------------------------
# Deal rows: deal, dealer, annulled, score_s* (n), then the fixed block, then per-seat
# blocks of n columns each.
C_DEAL, C_DEALER, C_ANNULLED, C_SCORE = 0, 1, 2, 3
(F_LEADER, F_PRESIDENT, F_TROU, F_EXCHANGED, F_SERIES, F_PLAYS, F_PASSES, F_SKIPS,
 F_EQUALS, F_TURNS, F_CARDS_PLAYED, F_LEFT, F_CAPPED, F_REVOLUTIONS, N_FIXED) = range(15)
B_PLACE, B_TITLE, B_PREV, B_CARDS, N_BLOCKS = range(5)


def n_deal_cols(n: int) -> int:
    return 3 + n + N_FIXED + N_BLOCKS * n


def deal_columns(k: PresidentKnobs | None = None) -> list[Column]:
    n = (k or PresidentKnobs()).players
    cols = [Column("deal"), Column("dealer"), Column("annulled", BOOL)]
    cols += [Column(f"score_s{i}", help="role points this deal") for i in range(n)]
    cols += [Column("leader", help="seat that led the first series"),
             Column("president", help="seat that went out first"),
             Column("trou_du_cul", help="seat left holding cards"),
             Column("exchanged", BOOL, help="the deal started with the role exchanges"),
             Column("n_series", help="series (rounds) played"),
             Column("n_plays", help="groups played"),
             Column("n_passes"),
             Column("n_skips", help="turns skipped by equal-rank plays"),
             Column("n_equal_plays", help="plays of the same rank as the table"),
             Column("n_turns", help="plays + passes"),
             Column("cards_played"),
             Column("cards_left", help="cards the Trou du cul still held at the end"),
             Column("capped", BOOL, help="the turn cap stopped the deal"),
             Column("n_revolutions", help="plays of four of a kind that reversed the rank "
                                          "order (knob revolution; 0 when off)")]
    cols += [Column(f"place_s{i}", help="finishing position, 1 = first out") for i in range(n)]
    cols += [Column(f"title_s{i}", TITLES) for i in range(n)]
    cols += [Column(f"prev_title_s{i}", TITLES, help="title before this deal (null: a "
                    "first deal)") for i in range(n)]
    cols += [Column(f"cards_s{i}", help="cards dealt") for i in range(n)]
    assert len(cols) == n_deal_cols(n)
    return cols


(M_MATCH, M_FIRST_DEALER, M_WINNER, M_N_DEALS) = range(4)
(G_TIED, G_FIRST_PRES, G_FIRST_KEPT, G_PRES_REPEAT, G_TROU_REPEAT, G_TROU_TO_PRES,
 G_PRES_STREAK, G_CAPPED, N_MFIXED) = range(9)
MB_FINAL, MB_PRES, MB_TROU, N_MBLOCKS = range(4)


def n_match_cols(n: int) -> int:
    return 4 + N_MFIXED + N_MBLOCKS * n


def match_columns(k: PresidentKnobs | None = None) -> list[Column]:
    n = (k or PresidentKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the highest total (ties: the better place in "
                                  "the last deal)"),
            Column("n_deals")]
    cols += [Column("tied", BOOL, help="the highest total was shared"),
             Column("first_president", help="Président of the first deal"),
             Column("first_president_kept", BOOL, help="he is Président again in deal 2"),
             Column("president_repeats", help="deals (from 2 on) whose Président was the "
                                              "previous one"),
             Column("trou_repeats", help="deals whose Trou du cul was the previous one"),
             Column("trou_to_president", help="deals won by the previous Trou du cul"),
             Column("longest_presidency", help="most consecutive deals as Président"),
             Column("capped_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(n)]
    cols += [Column(f"president_deals_s{i}") for i in range(n)]
    cols += [Column(f"trou_deals_s{i}") for i in range(n)]
    assert len(cols) == n_match_cols(n)
    return cols


# --- one deal ---------------------------------------------------------------------------
@hot
def exchange(masks: np.ndarray, prev: np.ndarray, n: int, pol: np.ndarray, kv: np.ndarray,
             pp: np.ndarray, rank_of: np.ndarray, scratch: np.ndarray, state: np.uint64
             ) -> tuple[np.uint64, int]:
    """The role exchanges before play; ``prev`` = last deal's places (1-based). The Trou
    du cul gives his best cards first, then the Président gives back cards of his choice
    (possibly some just received, catalogue #8); the same, one card, between the
    Vice-Trou du cul and the Vice-Président. Returns (state, seat of the Trou du cul)."""
    pres = vice = vtrou = trou = -1
    for p in range(n):
        if prev[p] == 1:
            pres = p
        elif prev[p] == 2:
            vice = p
        elif prev[p] == n:
            trou = p
        elif prev[p] == n - 1:
            vtrou = p
    for giver, taker, x in ((trou, pres, kv[K_X_TOP]), (vtrou, vice, kv[K_X_VICE])):
        for _ in range(x):
            sh.transfer(masks, giver, taker, sh.extreme_card(masks[giver], rank_of, True))
        for _ in range(x):
            if pol[taker] == sh.HEURISTIC:
                c = sh.gift_heuristic(masks[taker], rank_of, scratch, pp)
            else:
                state, c = sh.random_gift(state, masks[taker])
            sh.transfer(masks, taker, giver, c)
    return state, trou


@hot
def play_deal(deck: np.ndarray, n: int, dealer: int, prev: np.ndarray, pol: np.ndarray,
              kv: np.ndarray, rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray,
              state: np.uint64, row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray,
              masks: np.ndarray, counts: np.ndarray, sizes: np.ndarray, st: np.ndarray,
              ev: np.ndarray, order: np.ndarray, place: np.ndarray, log: np.ndarray
              ) -> np.uint64:
    """One deal from a shuffled ``deck``: fills ``row`` from C_SCORE on (the caller sets
    deal and dealer), ``dealt`` and ``hands_out`` [n, 13] (only the first cards of each
    row are written), and ``place``. ``prev``: places of the previous deal (0 = a first
    deal: no exchange, the dealer's left leads). The other arrays are work arrays.
    Returns the policy stream state."""
    f = 3 + n  # fixed block
    b = f + N_FIXED  # per-seat blocks
    n_cards = N_CARDS - N_CARDS % n if kv[K_EQUAL_HANDS] else N_CARDS
    sh.deal_round_robin(deck, n_cards, n, (dealer + 1) % n, masks, sizes)
    for p in range(n):
        row[b + B_CARDS * n + p] = sizes[p]
        cards_of(masks[p], dealt[p])
    leader = (dealer + 1) % n
    if prev[0] > 0:
        state, trou = exchange(masks, prev, n, pol, kv, pp, rank_of, counts[0], state)
        if kv[K_TDC_LEADS]:
            leader = trou
        row[f + F_EXCHANGED] = 1
        for p in range(n):
            row[b + B_PREV * n + p] = title_of(prev[p], n)
    else:
        for p in range(n):
            row[b + B_PREV * n + p] = -1
    for p in range(n):
        cards_of(masks[p], hands_out[p])
    sh.counts_from_masks(masks, n, rank_of, counts, sizes)
    sh.start_play(st, ev, n, leader, sizes, order, place)
    state = sh.play_out(st, ev, counts, sizes, order, place, pol, rules, pp, state, log)

    row[f + F_LEADER] = leader
    row[f + F_PRESIDENT] = order[0]
    row[f + F_TROU] = order[n - 1]
    # series started; the deal ends on a play, so the last one was played (unless the
    # cap stopped the deal right after a series ended)
    row[f + F_SERIES] = ev[sh.EV_SERIES] - (1 if st[sh.ST_NEED] == 0 else 0)
    row[f + F_PLAYS] = ev[sh.EV_PLAYS]
    row[f + F_PASSES] = ev[sh.EV_PASSES]
    row[f + F_SKIPS] = ev[sh.EV_SKIPS]
    row[f + F_EQUALS] = ev[sh.EV_EQUALS]
    row[f + F_TURNS] = ev[sh.EV_TURNS]
    row[f + F_CARDS_PLAYED] = ev[sh.EV_CARDS]
    row[f + F_LEFT] = sizes[order[n - 1]]
    row[f + F_CAPPED] = ev[sh.EV_CAPPED]
    row[f + F_REVOLUTIONS] = ev[sh.EV_REVOLUTIONS]
    for p in range(n):
        t = title_of(place[p], n)
        row[b + B_PLACE * n + p] = place[p]
        row[b + B_TITLE * n + p] = t
        row[C_SCORE + p] = (kv[K_PTS_P] if t == PRESIDENT else kv[K_PTS_VP]
                            if t == VICE_PRESIDENT else kv[K_PTS_N] if t == NEUTRE
                            else kv[K_PTS_VT] if t == VICE_TROU else kv[K_PTS_T])
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray, record: bool,
                 log_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = kv[K_PLAYERS]
    out = np.zeros((n_deal_cols_k(n), count), dtype=np.int64).T  # column-major
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, MAX_HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, n, MAX_HAND), -1, dtype=np.int64)
    log = np.full((log_len, 3), -2, dtype=np.int64)  # only with count == 1 (tests)
    deck = np.empty(N_CARDS, dtype=np.int64)
    masks = np.zeros(n, dtype=np.uint64)
    counts = np.zeros((n, N_RANKS), dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    st = np.zeros(sh.N_ST, dtype=np.int64)
    ev = np.zeros(sh.N_EV, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    place = np.zeros(n, dtype=np.int64)
    prev = np.zeros(n, dtype=np.int64)
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % n
        if kv[K_DEAL_TITLES]:  # random previous places: a shuffled 1..n
            for p in range(n):
                prev[p] = p + 1
            rng.shuffle(rng.stream(seed, d, 0, rng.SETUP), prev, n)
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, n, dealer, prev, pol, kv, rules, pp, rank_of,
                  rng.stream(seed, d, 0, rng.POLICY), out[i], dealt[j], hands_out[j], masks,
                  counts, sizes, st, ev, order, place, log)
    return out, dealt, hands_out, log


@hot
def n_deal_cols_k(n: int) -> int:
    return 3 + n + N_FIXED + N_BLOCKS * n


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray) -> np.ndarray:
    n = kv[K_PLAYERS]
    out = np.zeros((4 + N_MFIXED + N_MBLOCKS * n, count), dtype=np.int64).T
    row = np.zeros((n_deal_cols_k(n), 1), dtype=np.int64).T[0]  # same type as in deals_kernel
    dealt = np.empty((n, MAX_HAND), dtype=np.int64)
    hands_out = np.empty((n, MAX_HAND), dtype=np.int64)
    log = np.empty((0, 3), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    masks = np.zeros(n, dtype=np.uint64)
    counts = np.zeros((n, N_RANKS), dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    st = np.zeros(sh.N_ST, dtype=np.int64)
    ev = np.zeros(sh.N_EV, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    place = np.zeros(n, dtype=np.int64)
    prev = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    g = 4  # fixed block
    mb = g + N_MFIXED  # per-seat blocks
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        for p in range(n):
            prev[p] = 0
            total[p] = 0
        o = out[i]
        pres_prev = -1
        trou_prev = -1
        streak = 0
        n_deals = kv[K_DEALS]
        for j in range(n_deals):
            dealer = (first + j) % n
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(deck, n, dealer, prev, pol, kv, rules, pp, rank_of,
                      rng.stream(seed, m, j + 1, rng.POLICY), row, dealt, hands_out, masks,
                      counts, sizes, st, ev, order, place, log)
            pres = order[0]
            trou = order[n - 1]
            for p in range(n):
                total[p] += row[C_SCORE + p]
                prev[p] = place[p]
            o[mb + MB_PRES * n + pres] += 1
            o[mb + MB_TROU * n + trou] += 1
            o[g + G_CAPPED] += ev[sh.EV_CAPPED]
            if j == 0:
                o[g + G_FIRST_PRES] = pres
            if j == 1:
                o[g + G_FIRST_KEPT] = pres == pres_prev
            if j > 0:
                o[g + G_PRES_REPEAT] += pres == pres_prev
                o[g + G_TROU_REPEAT] += trou == trou_prev
                o[g + G_TROU_TO_PRES] += pres == trou_prev
            streak = streak + 1 if pres == pres_prev else 1
            o[g + G_PRES_STREAK] = max(o[g + G_PRES_STREAK], streak)
            pres_prev = pres
            trou_prev = trou
        # winner: the highest total; ties to the better place in the last deal
        winner = -1
        tied = False
        for p in range(n):
            if winner < 0 or total[p] > total[winner]:
                winner = p
                tied = False
            elif total[p] == total[winner]:
                tied = True
                if prev[p] < prev[winner]:
                    winner = p
        o[M_MATCH] = m
        o[M_FIRST_DEALER] = first
        o[M_WINNER] = winner
        o[M_N_DEALS] = n_deals
        o[g + G_TIED] = tied
        for p in range(n):
            o[mb + MB_FINAL * n + p] = total[p]
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: PresidentKnobs, policies: tuple[str, ...]) -> tuple:
    if len(policies) != knobs.players:
        raise SimlabError(f"president needs {knobs.players} policies, got {len(policies)}")
    return (policy_codes(policies), _vector(knobs), _rules(knobs), _policy(knobs),
            rank_table(knobs.top_rank))


def run_deals(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, kv, rules, pp, rank_of = _setup(knobs, policies)
    rows, dealt, hands, _ = deals_kernel(np.uint64(seed), start, count, pol, kv, rules, pp,
                                         rank_of, record_hands, 0)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, kv, rules, pp, rank_of = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, kv, rules, pp,
                                       rank_of))


def trace_deal(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, d: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Deal ``d`` of a deal-level run, with its turn log: (row, dealt [n, 13],
    hands after the exchange [n, 13], log [turns, 3] of (seat, rank or -1, count))
    where ranks are playing ranks (``rank_table``). For tests and debugging."""
    pol, kv, rules, pp, rank_of = _setup(knobs, policies)
    rows, dealt, hands, log = deals_kernel(np.uint64(seed), d, 1, pol, kv, rules, pp,
                                           rank_of, True, knobs.turn_cap)
    turns = int(rows[0, 3 + knobs.players + F_TURNS])
    return rows[0], dealt[0], hands[0], log[:turns]


# --- balance questions ------------------------------------------------------------------
SECTION = "Président questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in places, plays or deals stay out of the headline table.
TITLE_TEXT = {"president": "Président", "vice_president": "Vice-Président",
              "neutre": "Neutre", "vice_trou_du_cul": "Vice-Trou du cul",
              "trou_du_cul": "Trou du cul"}
TITLE_KEY = {"president": "p", "vice_president": "vp", "neutre": "n",
             "vice_trou_du_cul": "vt", "trou_du_cul": "t"}


def titles_for(n: int) -> list[str]:
    """The titles a deal hands out at ``n`` players, best first (Neutre n - 4 times)."""
    middle = ["neutre"] * (n - 4)
    return ["president", "vice_president", *middle, "vice_trou_du_cul", "trou_du_cul"]


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: PresidentKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's balance questions as metrics (section "Président questions").

    Deal level: 1 the role-transition probabilities P(title this deal | title the deal
    before), on deals that start from previous titles (``deal_titles=random``: each deal
    is then one step of a match's role chain); 2 the previous Président's and Trou du
    cul's mean places; 3 the first leader's advantage (the dealer's left on a first deal,
    the Trou du cul after the exchanges); 5 at 5-6 players, the seats dealt an extra card;
    6 how often the equal-rank skip happens; and the length of a deal. Match level: 1 how
    often the Président keeps the title, the Trou du cul stays and climbs straight to
    Président, and the longest reign. Question 4 (policies) is read from the standard
    per-seat metrics of a mixed-policy run. Only metrics whose columns the frame has (and
    which the frame's deals can answer) are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    if n == 0:
        n = knobs.players if isinstance(knobs, PresidentKnobs) else 4
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"president.{key}", title, SECTION, expr, where, kind, **kw),
                     need))

    if level == "deal":
        seats = range(n)
        titles = {f"title_s{i}" for i in seats}
        prevs = {f"prev_title_s{i}" for i in seats}
        places = {f"place_s{i}" for i in seats}
        exchanged = pl.col("exchanged")
        has = (prevs | titles | {"exchanged"}) <= cols and bool(
            lf.select(exchanged.any()).collect().item())
        order = titles_for(n)
        distinct = list(dict.fromkeys(order))

        def title(i: int, prefix: str = "title_s") -> pl.Expr:
            return pl.col(f"{prefix}{i}").cast(pl.String)

        # 1. role transitions
        if has:
            for a in distinct:
                k = order.count(a)
                for b in distinct:
                    hits = [((title(i, "prev_title_s") == a) & (title(i) == b)).fill_null(False)
                            for i in seats]
                    key = f"q1.{TITLE_KEY[a]}.to.{TITLE_KEY[b]}"
                    text = (f"P({TITLE_TEXT[b]} | {TITLE_TEXT[a]} the deal before)")
                    head = (a, b) in (("president", "president"), ("trou_du_cul", "trou_du_cul"),
                                      ("trou_du_cul", "president"))
                    note = ("each row is one step of the role chain: the deal starts from "
                            "the previous titles, with the exchanges and the Trou du cul's "
                            "lead" if head else "")
                    if k == 1:
                        add(prevs | titles | {"exchanged"}, key, text, pl.any_horizontal(hits),
                            exchanged, headline=head, note=note)
                    else:  # two Neutres at 6 players: the share of them
                        add(prevs | titles | {"exchanged"}, key, text,
                            sum(h.cast(pl.Float64) for h in hits) / k, exchanged,
                            kind="mean", unit="share", note="per deal, the share of the "
                            f"{k} previous {TITLE_TEXT[a]}s")
            # 2. the exchange's strength: where the previous titles finish
            for a in ("president", "trou_du_cul"):
                place = pl.lit(None, dtype=pl.Float64)
                for i in seats:
                    place = pl.when(title(i, "prev_title_s") == a).then(
                        pl.col(f"place_s{i}").cast(pl.Float64)).otherwise(place)
                add(prevs | places | {"exchanged"}, f"q2.place.{TITLE_KEY[a]}",
                    f"mean finishing place of the previous {TITLE_TEXT[a]}", place,
                    exchanged, kind="mean", unit="place",
                    note=f"{(n + 1) / 2:g} if titles carried nothing; `simlab compare "
                         "president --a \"deal_titles=random\" --b \"deal_titles=random "
                         "exchange_top=0 exchange_vice=0\"` removes the exchanges")
                if a == "trou_du_cul":
                    top = pl.any_horizontal([((title(i, "prev_title_s") == a)
                                              & (pl.col(f"place_s{i}") <= n // 2))
                                             .fill_null(False) for i in seats])
                    add(prevs | places | {"exchanged"}, "q3.trou.top_half", "the previous "
                        f"Trou du cul finishes in the top {n // 2}", top, exchanged,
                        headline=True, note="he receives the worst cards but leads; "
                        "compare `tdc_leads=false` to see what the lead is worth")
        # 3. the first leader's advantage
        lead = {"leader"} | places
        lplace = pl.lit(None, dtype=pl.Float64)
        for i in seats:
            lplace = pl.when(pl.col("leader") == i).then(
                pl.col(f"place_s{i}").cast(pl.Float64)).otherwise(lplace)
        add(lead | {"president"}, "q3.leader.president", "the first leader goes out first "
            "(becomes Président)", pl.col("president") == pl.col("leader"), headline=True,
            note=f"1/{n} = {1 / n:.3f} if leading did not matter")
        add(lead | {"trou_du_cul"}, "q3.leader.trou", "the first leader finishes last",
            pl.col("trou_du_cul") == pl.col("leader"))
        add(lead, "q3.leader.place", "mean finishing place of the first leader", lplace,
            kind="mean", unit="place", note=f"{(n + 1) / 2:g} if leading did not matter")
        if "exchanged" in cols:
            for sel, text, tag in ((~exchanged, "on first deals (the dealer's left)", "first"),
                                   (exchanged, "after the exchanges (the Trou du cul)",
                                    "exchanged")):
                if not lf.select(sel.any()).collect().item():
                    continue
                add(lead | {"president", "exchanged"}, f"q3.leader.president.{tag}",
                    f"the first leader goes out first, {text}",
                    pl.col("president") == pl.col("leader"), sel)
        # 5. extra-card seats (5-6 players, unequal hands)
        cards = [pl.col(f"cards_s{i}") for i in seats]
        most, least = pl.max_horizontal(cards), pl.min_horizontal(cards)
        unequal = most != least
        ccols = {f"cards_s{i}" for i in seats}
        if ccols <= cols and lf.select(unequal.any()).collect().item():
            extra = [pl.col(f"cards_s{i}") == most for i in seats]
            n_extra = sum(e.cast(pl.Float64) for e in extra)
            pres_extra = pl.any_horizontal([(pl.col("president") == i) & extra[i]
                                            for i in seats])
            add(ccols | {"president"}, "q5.extra.president", "the Président was dealt an "
                "extra card", pres_extra, unequal, headline=True,
                note="compare q5.extra.share (what chance alone gives)")
            add(ccols, "q5.extra.share", "share of the seats dealt an extra card", n_extra / n,
                unequal, kind="mean", unit="share")
            place_extra = sum(pl.when(extra[i]).then(pl.col(f"place_s{i}")).otherwise(0)
                              for i in seats) / n_extra
            place_other = sum(pl.when(extra[i]).then(0).otherwise(pl.col(f"place_s{i}"))
                              for i in seats) / (n - n_extra)
            add(ccols | places, "q5.extra.place_gap", "mean place of the extra-card seats "
                "minus the others'", place_extra - place_other, unequal, kind="mean",
                unit="places", note="negative: an extra card helps (1 = first out)")
        # 6. the equal-rank skip
        add({"n_skips"}, "q6.skip_any", "deals with at least one equal-rank skip",
            pl.col("n_skips") > 0, headline=True,
            note="`simlab compare president --a \"\" --b \"equal_play_skips=false\"` shows "
                 "how often it changes the finishing order")
        add({"n_skips"}, "q6.skips", "equal-rank skips per deal", pl.col("n_skips"),
            kind="mean", unit="skips")
        add({"n_equal_plays"}, "q6.equal_plays", "equal-rank plays per deal",
            pl.col("n_equal_plays"), kind="mean", unit="plays")
        # length of a deal
        add({"n_series"}, "length.series", "series (rounds) per deal", pl.col("n_series"),
            kind="mean", unit="series")
        add({"n_plays"}, "length.plays", "groups played per deal", pl.col("n_plays"),
            kind="mean", unit="plays")
        add({"n_turns"}, "length.turns", "turns (plays and passes) per deal",
            pl.col("n_turns"), kind="mean", unit="turns")
        add({"cards_left"}, "length.cards_left", "cards the Trou du cul still holds at the "
            "end", pl.col("cards_left"), kind="mean", unit="cards")
        add({"capped"}, "length.capped", "deals stopped by the turn cap", pl.col("capped"))
    else:
        steps = pl.col("n_deals") - 1
        many = pl.col("n_deals") >= 2
        need = {"n_deals"}
        add(need | {"president_repeats"}, "q1.match.president_kept", "the Président keeps "
            "the title at the next deal (share of deal-to-deal steps)",
            ratio_of_sums(pl.col("president_repeats"), steps, many), many, kind="mean",
            unit="share", headline=True, note="pooled over matches, delta-method interval; "
            f"1/{n} = {1 / n:.3f} if titles carried nothing")
        add(need | {"trou_repeats"}, "q1.match.trou_kept", "the Trou du cul stays Trou du cul "
            "at the next deal", ratio_of_sums(pl.col("trou_repeats"), steps, many), many,
            kind="mean", unit="share", headline=True, note="pooled over matches")
        add(need | {"trou_to_president"}, "q1.match.trou_to_president", "the Trou du cul "
            "becomes Président at the next deal",
            ratio_of_sums(pl.col("trou_to_president"), steps, many), many, kind="mean",
            unit="share", headline=True, note="pooled over matches")
        add(need | {"first_president_kept"}, "q1.match.first_kept", "the first deal's "
            "Président is Président again in deal 2", pl.col("first_president_kept"), many)
        add({"longest_presidency"}, "q1.match.longest_presidency", "longest run of deals "
            "as Président in a match", pl.col("longest_presidency"), kind="mean",
            unit="deals")
        pres = [pl.col(f"president_deals_s{i}") for i in range(n)]
        if {f"president_deals_s{i}" for i in range(n)} | need <= cols:
            add(need | {f"president_deals_s{i}" for i in range(n)}, "q1.match.top_share",
                "share of a match's deals won by its most frequent Président",
                pl.max_horizontal(pres).cast(pl.Float64) / pl.col("n_deals"), kind="mean",
                unit="share")
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="president",
    title="Président / Trou du cul",
    description="climbing game for 4-6 players, 52 cards (2 highest): lead 1-4 cards of "
                "one rank, follow with as many of a higher rank or pass, an equal rank "
                "skips the next player; finishing order gives the titles, which exchange "
                "cards at the next deal; match = 20 deals of role points",
    deck=DECK,
    knobs=PresidentKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="4-6",
    teams=None,
    extra={"metrics": balance_metrics},
)
