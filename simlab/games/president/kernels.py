"""Président / Trou du cul: result columns, the batch kernels and the runner's entry
points. A deal is played by stepping the rules (``rules.py``: ``deal``, ``start``,
``to_move``, ``apply_move``) with each seat's player (``players.py``: heuristic, random,
search); a heuristic-only deal runs ``players.playout``, the loop of the search player's
rollouts, so the fast run and the search cannot disagree.

Deal level: every deal is a fresh first deal (dealer = d mod players, no exchange, the
dealer's left leads), unless ``deal_titles = "random"``: then each deal starts from
uniformly random previous titles (drawn from the deal's SETUP stream), with the exchanges
and the Trou du cul's lead, which measures the exchange's effect deal by deal. A match is
``deals_per_match`` deals with titles carried from deal to deal.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, HEURISTIC, RANDOM, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import all_seats_use, seat_vectors
from simlab.games.president.players import (
    _policy,
    choose,
    heuristic_move,
    playout,
    random_move,
    search_move,
    search_work,
)
from simlab.games.president.rules import (
    G_EV,
    G_LEADER,
    G_ORDER,
    G_PHASE,
    G_PLACE,
    G_SIZE,
    K_DEAL_TITLES,
    K_DEALS,
    K_EQUAL_HANDS,
    K_PLAYERS,
    K_THIRD_PAIR,
    MAX_HAND,
    N_CARDS,
    N_G,
    N_RANKS,
    PASS,
    PH_EXCHANGE,
    PH_PLAY,
    PresidentKnobs,
    _rules,
    _vector,
    apply_move,
    deal,
    move_count,
    move_rank,
    new_state,
    points_of,
    rank_table,
    start,
    title_of,
    titles_of,
    to_move,
)
from simlab.mechanics import shedding as sh
from simlab.mechanics.tricks import cards_of

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
    titles = titles_of(k or PresidentKnobs())
    cols += [Column(f"title_s{i}", titles) for i in range(n)]
    cols += [Column(f"prev_title_s{i}", titles, help="title before this deal (null: a "
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
def play_deal(deck: np.ndarray, dealer: int, prev: np.ndarray, pol: np.ndarray,
              kv: np.ndarray, rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray,
              state: np.uint64, seed: np.uint64, index: int, sub: int, search_budget: np.ndarray,
              row: np.ndarray, dealt: np.ndarray, hands_out: np.ndarray, g: np.ndarray,
              counts: np.ndarray, played: np.ndarray, masks: np.ndarray, kmask: np.ndarray,
              sw: tuple, log: np.ndarray) -> np.uint64:
    """One deal from a shuffled ``deck``: fills ``row`` from C_SCORE on (the caller sets
    deal and dealer), ``dealt`` and ``hands_out`` [n, 13] (only the first cards of each
    row are written). ``prev``: places of the previous deal (0 = a first deal). The state
    (g, counts, played, masks, kmask) holds the finished deal afterwards. ``state``: the
    POLICY stream; (seed, index, sub) key the search seats' streams; ``search_budget`` =
    (worlds, rollouts); ``sw``: ``search_work``; ``log`` [L, 3] records the turns.
    Returns the policy stream state."""
    n = kv[K_PLAYERS]
    third = kv[K_THIRD_PAIR] != 0  # roles_6p=third_pair
    f = 3 + n  # fixed block
    b = f + N_FIXED  # per-seat blocks
    deal(deck, n, dealer, kv[K_EQUAL_HANDS] != 0, g, masks)
    for p in range(n):
        row[b + B_CARDS * n + p] = g[G_SIZE + p]
        cards_of(masks[p], dealt[p])
    start(g, counts, played, masks, kmask, dealer, prev, kv, rank_of)
    scratch = sw[4][2]  # int64 [13]
    if g[G_PHASE] == PH_EXCHANGE:
        row[f + F_EXCHANGED] = 1
        for p in range(n):
            row[b + B_PREV * n + p] = title_of(prev[p], n, third)
        while g[G_PHASE] == PH_EXCHANGE:
            p = to_move(g)
            if pol[p] == HEURISTIC:
                move = heuristic_move(g, counts, masks, rules, pp[p], rank_of, scratch)
            elif pol[p] == RANDOM:
                state, move = random_move(state, g, counts, masks, rules)
            else:
                move = search_move(seed, index, sub, g, counts, played, masks, kmask, kv, rules,
                                   pp[p], rank_of, search_budget[p, 0], search_budget[p, 1], sw)
            apply_move(g, counts, played, masks, kmask, kv, rules, rank_of, move)
    else:
        for p in range(n):
            row[b + B_PREV * n + p] = -1
    for p in range(n):
        cards_of(masks[p], hands_out[p])
    ev = g[G_EV:G_EV + sh.N_EV]
    heuristic_only = log.shape[0] == 0 and all_seats_use(pp, pp[0])
    for p in range(n):
        if pol[p] != HEURISTIC:
            heuristic_only = False
    if heuristic_only:  # the search's rollout loop: the fast path of a heuristic run
        playout(g, counts, played, masks, kmask, kv, rules, pp[0], rank_of, scratch)
    while g[G_PHASE] == PH_PLAY:
        t = ev[sh.EV_TURNS]
        p = g[sh.ST_TURN]
        if pol[p] == HEURISTIC:
            move = heuristic_move(g, counts, masks, rules, pp[p], rank_of, scratch)
        elif pol[p] == RANDOM:
            state, move = random_move(state, g, counts, masks, rules)
        else:
            move = search_move(seed, index, sub, g, counts, played, masks, kmask, kv, rules,
                               pp[p], rank_of, search_budget[p, 0], search_budget[p, 1], sw)
        if t < log.shape[0]:
            log[t, 0] = p
            log[t, 1] = -1 if move == PASS else move_rank(move)
            log[t, 2] = g[sh.ST_NEED] if move == PASS else move_count(move)
        apply_move(g, counts, played, masks, kmask, kv, rules, rank_of, move)

    order = g[G_ORDER:G_ORDER + n]
    row[f + F_LEADER] = g[G_LEADER]
    row[f + F_PRESIDENT] = order[0]
    row[f + F_TROU] = order[n - 1]
    # series started; the deal ends on a play, so the last one was played (unless the
    # cap stopped the deal right after a series ended)
    row[f + F_SERIES] = ev[sh.EV_SERIES] - (1 if g[sh.ST_NEED] == 0 else 0)
    row[f + F_PLAYS] = ev[sh.EV_PLAYS]
    row[f + F_PASSES] = ev[sh.EV_PASSES]
    row[f + F_SKIPS] = ev[sh.EV_SKIPS]
    row[f + F_EQUALS] = ev[sh.EV_EQUALS]
    row[f + F_TURNS] = ev[sh.EV_TURNS]
    row[f + F_CARDS_PLAYED] = ev[sh.EV_CARDS]
    row[f + F_LEFT] = g[G_SIZE + order[n - 1]]
    row[f + F_CAPPED] = ev[sh.EV_CAPPED]
    row[f + F_REVOLUTIONS] = ev[sh.EV_REVOLUTIONS]
    for p in range(n):
        t = title_of(g[G_PLACE + p], n, third)
        row[b + B_PLACE * n + p] = g[G_PLACE + p]
        row[b + B_TITLE * n + p] = t
        row[C_SCORE + p] = points_of(t, kv)
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray, search_budget: np.ndarray,
                 record: bool, log_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = kv[K_PLAYERS]
    out = np.zeros((n_deal_cols_k(n), count), dtype=np.int64).T  # column-major
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, MAX_HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, n, MAX_HAND), -1, dtype=np.int64)
    log = np.full((log_len, 3), -2, dtype=np.int64)  # only with count == 1 (tests)
    deck = np.empty(N_CARDS, dtype=np.int64)
    g = np.zeros(N_G, dtype=np.int64)
    counts = np.zeros((n, N_RANKS), dtype=np.int64)
    played = np.zeros((n, N_RANKS), dtype=np.int64)
    masks = np.zeros(n, dtype=np.uint64)
    kmask = np.zeros(n, dtype=np.uint64)
    sw = search_work(n)
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
        play_deal(deck, dealer, prev, pol, kv, rules, pp, rank_of,
                  rng.stream(seed, d, 0, rng.POLICY), seed, d, 0, search_budget, out[i], dealt[j],
                  hands_out[j], g, counts, played, masks, kmask, sw, log)
    return out, dealt, hands_out, log


@hot
def n_deal_cols_k(n: int) -> int:
    return 3 + n + N_FIXED + N_BLOCKS * n


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, pp: np.ndarray, rank_of: np.ndarray, search_budget: np.ndarray
                   ) -> np.ndarray:
    n = kv[K_PLAYERS]
    out = np.zeros((4 + N_MFIXED + N_MBLOCKS * n, count), dtype=np.int64).T
    row = np.zeros((n_deal_cols_k(n), 1), dtype=np.int64).T[0]  # same type as in deals_kernel
    dealt = np.empty((n, MAX_HAND), dtype=np.int64)
    hands_out = np.empty((n, MAX_HAND), dtype=np.int64)
    log = np.empty((0, 3), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    g = np.zeros(N_G, dtype=np.int64)
    counts = np.zeros((n, N_RANKS), dtype=np.int64)
    played = np.zeros((n, N_RANKS), dtype=np.int64)
    masks = np.zeros(n, dtype=np.uint64)
    kmask = np.zeros(n, dtype=np.uint64)
    sw = search_work(n)
    prev = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    ev = g[G_EV:G_EV + sh.N_EV]
    gm = 4  # fixed block
    mb = gm + N_MFIXED  # per-seat blocks
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
            play_deal(deck, dealer, prev, pol, kv, rules, pp, rank_of,
                      rng.stream(seed, m, j + 1, rng.POLICY), seed, m, j + 1, search_budget, row,
                      dealt, hands_out, g, counts, played, masks, kmask, sw, log)
            pres = g[G_ORDER]
            trou = g[G_ORDER + n - 1]
            for p in range(n):
                total[p] += row[C_SCORE + p]
                prev[p] = g[G_PLACE + p]
            o[mb + MB_PRES * n + pres] += 1
            o[mb + MB_TROU * n + trou] += 1
            o[gm + G_CAPPED] += ev[sh.EV_CAPPED]
            if j == 0:
                o[gm + G_FIRST_PRES] = pres
            if j == 1:
                o[gm + G_FIRST_KEPT] = pres == pres_prev
            if j > 0:
                o[gm + G_PRES_REPEAT] += pres == pres_prev
                o[gm + G_TROU_REPEAT] += trou == trou_prev
                o[gm + G_TROU_TO_PRES] += pres == trou_prev
            streak = streak + 1 if pres == pres_prev else 1
            o[gm + G_PRES_STREAK] = max(o[gm + G_PRES_STREAK], streak)
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
        o[gm + G_TIED] = tied
        for p in range(n):
            o[mb + MB_FINAL * n + p] = total[p]
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: PresidentKnobs, policies: tuple[str, ...]) -> tuple:
    if len(policies) != knobs.players:
        raise SimlabError(f"president needs {knobs.players} policies, got {len(policies)}")
    # the players' vectors, one row per seat (simlab.engine.seatknobs): policy and search budget
    return (policy_codes(policies), _vector(knobs), _rules(knobs),
            seat_vectors(knobs, policies, _policy), rank_table(knobs.top_rank),
            seat_vectors(knobs, policies, _budget))


def _budget(knobs: PresidentKnobs) -> np.ndarray:
    return np.array([knobs.search_worlds, knobs.search_rollouts], dtype=np.int64)


def run_deals(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, kv, rules, pp, rank_of, budget = _setup(knobs, policies)
    rows, dealt, hands, _ = deals_kernel(np.uint64(seed), start, count, pol, kv, rules, pp,
                                         rank_of, budget, record_hands, 0)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, kv, rules, pp, rank_of, budget = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, kv, rules, pp,
                                       rank_of, budget))


def trace_deal(knobs: PresidentKnobs, policies: tuple[str, ...], seed: int, d: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Deal ``d`` of a deal-level run, with its turn log: (row, dealt [n, 13],
    hands after the exchange [n, 13], log [turns, 3] of (seat, rank or -1, count))
    where ranks are playing ranks (``rank_table``). For tests and debugging."""
    pol, kv, rules, pp, rank_of, budget = _setup(knobs, policies)
    rows, dealt, hands, log = deals_kernel(np.uint64(seed), d, 1, pol, kv, rules, pp,
                                           rank_of, budget, True, knobs.turn_cap)
    turns = int(rows[0, 3 + knobs.players + F_TURNS])
    return rows[0], dealt[0], hands[0], log[:turns]


def exchange(masks: np.ndarray, prev: np.ndarray, n: int, pol: np.ndarray, kv: np.ndarray,
             pp: np.ndarray, rank_of: np.ndarray, state: int = 1
             ) -> tuple[np.uint64, int]:
    """The role exchanges alone on physical hands ``masks`` (changed in place), by
    stepping the rules with heuristic or random takers; ``prev`` = last deal's places.
    Returns (policy stream state, seat of the Trou du cul). For tests."""
    g, counts, played, _, kmask = new_state(n)
    g[sh.ST_N] = n
    g[G_SIZE:G_SIZE + n] = [bin(int(m)).count("1") for m in masks]
    sw = search_work(n)
    rules = sh.make_rules()
    start(g, counts, played, masks, kmask, 0, prev, kv, rank_of)
    while g[G_PHASE] == PH_EXCHANGE:
        p = to_move(g)
        state, move = choose(pol[p], np.uint64(state), np.uint64(0), 0, 0, g, counts, played,
                             masks, kmask, kv, rules, pp, rank_of, 1, 1, sw)
        apply_move(g, counts, played, masks, kmask, kv, rules, rank_of, move)
    trou = -1
    for p in range(n):
        if prev[p] == n:
            trou = p
    return np.uint64(state), trou
