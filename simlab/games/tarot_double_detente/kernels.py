"""Tarot double détente: result columns, one part as the kernels run it (deal, then
every decision through the state functions of ``rules.py`` and the seat's player of
``players.py``, then the marks), the batch kernels of deals and matches, and the
runner's entry points."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, HEURISTIC, SEARCH, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.tarot_double_detente.players import (
    heuristic_move,
    random_move,
    search_move,
    search_work,
)
from simlab.games.tarot_double_detente.rules import (
    DECK,
    FAULT,
    ID_OF_SLOT,
    K_H,
    K_MAX,
    K_MOD,
    K_N,
    K_PARTS,
    K_ROT_PART,
    K_TARGET,
    MODIFIERS,
    N_CARDS,
    N_S,
    N_W,
    PH_DONE,
    S_ACES,
    S_BID,
    S_CAVS,
    S_EXC_LAST,
    S_FAULT_SEAT,
    S_FAULT_TRICK,
    S_MOD,
    S_PETIT_LAST,
    S_PETIT_SEAT,
    S_PHASE,
    S_REV,
    S_SECOND,
    S_TOR,
    S_TRICKS,
    S_TURN,
    S_TURNED,
    SLOT_OF_ID,
    DetenteKnobs,
    _add,
    _rules,
    _vector,
    apply_move,
    carry_known,
    draw_fault,
    new_part,
    outcome,
    tables,
    turn_cards,
)
from simlab.mechanics.tricks import EMPTY

# --- result columns -----------------------------------------------------------------
(X_SCORE, X_BID, X_TRICKS, X_HIT, X_PART, X_MANCHE, X_BONUS, X_TOR, X_ACES, X_CAVS,
 X_BIDSUM, X_PETIT, X_PETIT_LAST, X_EXC_LAST, X_MOD, X_MOD_SUIT, X_TURNED, X_TURNED2,
 X_FAULT, X_FAULT_TRICK, N_X) = range(21)
C_DEAL, C_DEALER, C_ANNULLED = 0, 1, 2


def _groups(n: int) -> list[tuple[int, list[Column]]]:
    seats = range(n)
    cards = DECK.labels
    part = "half" if n == 3 else "third"
    return [
        (X_SCORE, [Column(f"score_s{i}", help="points marked in this part") for i in seats]),
        (X_BID, [Column(f"bid_s{i}", help="contract: tricks announced") for i in seats]),
        (X_TRICKS, [Column(f"tricks_s{i}") for i in seats]),
        (X_HIT, [Column(f"hit_s{i}", BOOL, help="exact contract made") for i in seats]),
        (X_PART, [Column(part, help="1-based part of the manche")]),
        (X_MANCHE, [Column("manche", help="deal mode: deal // parts; match: 0-based")]),
        (X_BONUS, [Column(f"bonus_s{i}", help="contract bonus (table, modifier) earned, "
                          "0 when off by more than 2") for i in seats]),
        (X_TOR, [Column(f"tout_ou_rien_s{i}", help="opponent named in a tout ou rien, "
                        "-1 none") for i in seats]),
        (X_ACES, [Column(f"as_gagnant_s{i}", help="tricks won with a suit 1 (counts only "
                         "under opt_as_gagnant)") for i in seats]),
        (X_CAVS, [Column(f"cavaliers_s{i}", help="Cavaliers won in tricks") for i in seats]),
        (X_BIDSUM, [Column("bid_sum")]),
        (X_PETIT, [Column("petit_seat", help="seat that won the Petit, -1 when not in "
                          "this part")]),
        (X_PETIT_LAST, [Column("petit_last_trick", BOOL)]),
        (X_EXC_LAST, [Column("excuse_last_seat", help="seat that played the Excuse in the "
                             "last trick (penalised), -1 none")]),
        (X_MOD, [Column("modifier", MODIFIERS, help="null without opt_modifications or in "
                        "the last part")]),
        (X_MOD_SUIT, [Column("reversed_suit", help="suit 0..3 reversed, -1 none")]),
        (X_TURNED, [Column("turned_card", cards)]),
        (X_TURNED2, [Column("turned_second", cards, help="after an Excuse: the card turned "
                            "after the contracts")]),
        (X_FAULT, [Column("fault_seat", help="seat whose irregularity stopped the part, "
                          "-1 none")]),
        (X_FAULT_TRICK, [Column("fault_trick", help="tricks completed when it stopped, -1")]),
    ]


def _layout(n: int) -> tuple[list[Column], np.ndarray]:
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="always false (no redeal in this game)")]
    cx = np.zeros(N_X, dtype=np.int64)
    for x, group in _groups(n):
        cx[x] = len(cols)
        cols += group
    return cols, cx


def deal_columns(k: DetenteKnobs | None = None) -> list[Column]:
    return _layout((k or DetenteKnobs()).players)[0]


N_MATCH_FIXED = 10


def match_columns(k: DetenteKnobs | None = None) -> list[Column]:
    n = (k or DetenteKnobs()).players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="highest total >= target at the end of a manche; -1 capped"),
            Column("n_manches")]
    cols += [Column(f"final_score_s{i}") for i in range(n)]
    cols += [Column(f"hits_s{i}", help="exact contracts over the match") for i in range(n)]
    cols += [Column("lead_changes", help="times the leader after a manche changed"),
             Column("n_tout_ou_rien", help="tout ou rien declarations"),
             Column("n_faults"), Column("capped", BOOL),
             Column("n_tout_ou_rien_made", help="tout ou rien declarations made exactly"),
             Column("tout_ou_rien_points", help="points the named opponents lost to "
                                               "exact tout ou rien declarations")]
    return cols


# --- one part -------------------------------------------------------------------------
@hot
def start_part(pile: np.ndarray, head: int, tail: int, part: int, dealer: int, kv: np.ndarray,
               seed: np.uint64, index: int, sub: int, scores: np.ndarray, known: np.ndarray,
               dealt: np.ndarray, st: np.ndarray, cw: np.ndarray) -> tuple[int, int]:
    """Deal a part (``rules.new_part``) with its irregularity drawn (``draw_fault``)."""
    fault_seat, fault_trick = draw_fault(rng.stream(seed, index, sub, FAULT), dealer, kv)
    return new_part(st, cw, pile, head, tail, part, dealer, scores, known, fault_seat,
                    fault_trick, dealt, kv)


@hot
def play_part(pile: np.ndarray, head: int, tail: int, part: int, dealer: int,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
              seed: np.uint64, index: int, sub: int, scores: np.ndarray, known: np.ndarray,
              row: np.ndarray, cx: np.ndarray, dealt: np.ndarray, st: np.ndarray,
              cw: np.ndarray, sw: tuple) -> tuple[int, int]:
    """Deal, contracts, play and marks of one part from ``pile[head:]``: every decision
    goes through ``to_move`` / the seat's player / ``apply_move``. ``index``, ``sub``: the
    deal (or match) and sub-stream keying the policy, fault and search streams;
    ``scores``: the totals before this part (tout ou rien eligibility); ``known`` (uint64
    [4]): public sets carried between parts, updated; ``row``: this part's columns;
    ``dealt`` [n, h] the hands as ids; ``st``, ``cw``: the part's state; ``sw``: the
    search player's work arrays. Returns (head, tail).

    Heuristic and random seats only; :func:`play_part_search` is the same loop with
    search seats (kept apart because the search call in this loop, even never taken,
    measured 2x slower heuristic deals)."""
    head, tail = start_part(pile, head, tail, part, dealer, kv, seed, index, sub, scores,
                            known, dealt, st, cw)
    state = rng.stream(seed, index, sub, rng.POLICY)
    while st[S_PHASE] != PH_DONE:
        if pol[st[S_TURN]] == HEURISTIC:
            m = heuristic_move(st, cw, seat_kv[st[S_TURN]], rules, tb)
        else:
            state, m = random_move(st, cw, kv, rules, tb, state)
        apply_move(st, cw, m, kv, rules, tb)
    finish_part(st, cw, part, kv, known, row, cx, sw[9])
    return head, tail


@hot
def play_part_search(pile: np.ndarray, head: int, tail: int, part: int, dealer: int,
                     pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                     seed: np.uint64, index: int, sub: int, scores: np.ndarray,
                     known: np.ndarray, row: np.ndarray, cx: np.ndarray, dealt: np.ndarray,
                     st: np.ndarray, cw: np.ndarray, sw: tuple) -> tuple[int, int]:
    """:func:`play_part` when some seat is a search player."""
    head, tail = start_part(pile, head, tail, part, dealer, kv, seed, index, sub, scores,
                            known, dealt, st, cw)
    state = rng.stream(seed, index, sub, rng.POLICY)
    while st[S_PHASE] != PH_DONE:
        p = st[S_TURN]
        if pol[p] == HEURISTIC:
            m = heuristic_move(st, cw, seat_kv[st[S_TURN]], rules, tb)
        elif pol[p] == SEARCH:
            m = search_move(st, cw, seat_kv[st[S_TURN]], rules, tb, seed, index, sub, sw)
        else:
            state, m = random_move(st, cw, kv, rules, tb, state)
        apply_move(st, cw, m, kv, rules, tb)
    finish_part(st, cw, part, kv, known, row, cx, sw[9])
    return head, tail


@hot
def finish_part(st: np.ndarray, cw: np.ndarray, part: int, kv: np.ndarray, known: np.ndarray,
                row: np.ndarray, cx: np.ndarray, res: np.ndarray) -> None:
    """The marks (``rules.outcome``) and the part's columns into ``row``; the part's cards
    join the public sets of the later parts (``rules.carry_known``)."""
    n = kv[K_N]
    carry_known(st, cw, known, kv)
    bonus = res[0:3]
    out = res[3:6]
    outcome(st, kv, bonus, out)
    turned = st[S_TURNED]
    second = st[S_SECOND]
    fault_seat = st[S_FAULT_SEAT]
    so_far = 0
    for p in range(n):
        so_far += st[S_BID + p]
        row[cx[X_SCORE] + p] = out[p]
        row[cx[X_BID] + p] = st[S_BID + p]
        row[cx[X_TRICKS] + p] = st[S_TRICKS + p]
        row[cx[X_HIT] + p] = fault_seat < 0 and st[S_BID + p] == st[S_TRICKS + p]
        row[cx[X_BONUS] + p] = bonus[p]
        row[cx[X_TOR] + p] = st[S_TOR + p]
        row[cx[X_ACES] + p] = st[S_ACES + p]
        row[cx[X_CAVS] + p] = st[S_CAVS + p]
    row[cx[X_BIDSUM]] = so_far
    row[cx[X_TURNED]] = ID_OF_SLOT[turned] if turned >= 0 else -1
    row[cx[X_TURNED2]] = ID_OF_SLOT[second] if second >= 0 else -1
    row[cx[X_MOD]] = st[S_MOD] if kv[K_MOD] and part < kv[K_PARTS] - 1 else -1
    row[cx[X_MOD_SUIT]] = st[S_REV]
    row[cx[X_PART]] = part + 1
    row[cx[X_PETIT]] = st[S_PETIT_SEAT]
    row[cx[X_PETIT_LAST]] = st[S_PETIT_LAST]
    row[cx[X_EXC_LAST]] = st[S_EXC_LAST]
    row[cx[X_FAULT]] = fault_seat
    row[cx[X_FAULT_TRICK]] = st[S_FAULT_TRICK]


# --- batch kernels ---------------------------------------------------------------------
@hot
def _fresh_pile(pile: np.ndarray) -> None:
    for i in range(N_CARDS):
        pile[i] = SLOT_OF_ID[i]


@hot
def _skip_part(pile: np.ndarray, head: int, tail: int, part: int, kv: np.ndarray,
               known: np.ndarray) -> tuple[int, int]:
    """Advance the pile over a part without playing it (deal mode): its cards become
    public, its turned cards go under the talon (as :func:`carry_known`)."""
    nh = kv[K_N] * kv[K_H]
    for i in range(nh):
        _add(known, 0, pile[head + i])
    head, tail, turned, second = turn_cards(pile, head + nh, tail, part, kv)
    for c in (turned, second):
        if c >= 0:
            _add(known, 2, c)
    for w in range(2):
        known[2 + w] &= ~known[w]
    return head, tail


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, cx: np.ndarray, ncols: int, record: bool,
                 sw: tuple) -> tuple[np.ndarray, np.ndarray]:
    n = kv[K_N]
    h = kv[K_H]
    parts = kv[K_PARTS]
    out = np.zeros((ncols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, h), -1, dtype=np.int64)
    pile = np.zeros(N_CARDS + 8, dtype=np.int64)
    known = np.zeros(4, dtype=np.uint64)
    scores = np.zeros(3, dtype=np.int64)
    st = np.zeros(N_S, dtype=np.int64)
    cw = np.zeros(N_W, dtype=np.uint64)
    searching = False
    for p in range(n):
        searching |= pol[p] == SEARCH
    for i in range(count):
        d = start + i
        manche = d // parts
        part = d % parts
        _fresh_pile(pile)
        rng.shuffle(rng.stream(seed, manche, 0, rng.SHUFFLE), pile, N_CARDS)
        head = 0
        tail = N_CARDS
        for w in range(4):
            known[w] = EMPTY
        for q in range(part):
            head, tail = _skip_part(pile, head, tail, q, kv, known)
        dealer = d % n if kv[K_ROT_PART] else manche % n
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        out[i, cx[X_MANCHE]] = manche
        j = i if record else 0
        if searching:
            play_part_search(pile, head, tail, part, dealer, pol, seat_kv, kv, rules, tb, seed, manche,
                             1 + part, scores, known, out[i], cx, dealt[j], st, cw, sw)
        else:
            play_part(pile, head, tail, part, dealer, pol, seat_kv, kv, rules, tb, seed, manche,
                      1 + part, scores, known, out[i], cx, dealt[j], st, cw, sw)
    return out, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple, cx: np.ndarray, ncols: int, sw: tuple
                   ) -> np.ndarray:
    n = kv[K_N]
    h = kv[K_H]
    parts = kv[K_PARTS]
    out = np.zeros((count, N_MATCH_FIXED + 2 * n), dtype=np.int64)
    row = np.zeros((ncols, 1), dtype=np.int64).T[0]
    dealt = np.empty((n, h), dtype=np.int64)
    pile = np.zeros(N_CARDS + 8, dtype=np.int64)
    known = np.zeros(4, dtype=np.uint64)
    scores = np.zeros(3, dtype=np.int64)
    hits = np.zeros(3, dtype=np.int64)
    st = np.zeros(N_S, dtype=np.int64)
    cw = np.zeros(N_W, dtype=np.uint64)
    searching = False
    for p in range(n):
        searching |= pol[p] == SEARCH
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        scores[:] = 0
        hits[:] = 0
        winner = -1
        leader = -1
        changes = 0
        n_tor = 0
        n_tor_made = 0
        tor_points = 0
        n_faults = 0
        j = 0
        while j < kv[K_MAX]:
            _fresh_pile(pile)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), pile, N_CARDS)
            head = 0
            tail = N_CARDS
            for w in range(4):
                known[w] = EMPTY
            for part in range(parts):
                dealer = (first + j * parts + part) % n if kv[K_ROT_PART] else (first + j) % n
                row[:] = 0
                sub = (j + 1) * 4 + part
                if searching:
                    head, tail = play_part_search(pile, head, tail, part, dealer, pol, seat_kv, kv, rules,
                                                  tb, seed, m, sub, scores, known, row, cx,
                                                  dealt, st, cw, sw)
                else:
                    head, tail = play_part(pile, head, tail, part, dealer, pol, seat_kv, kv, rules, tb,
                                           seed, m, sub, scores, known, row, cx, dealt, st,
                                           cw, sw)
                for p in range(n):
                    scores[p] += row[cx[X_SCORE] + p]
                    hits[p] += row[cx[X_HIT] + p]
                    if row[cx[X_TOR] + p] >= 0:
                        n_tor += 1
                        if row[cx[X_HIT] + p]:
                            n_tor_made += 1
                            tor_points += row[cx[X_BONUS] + p]
                n_faults += row[cx[X_FAULT]] >= 0
            j += 1
            best = 0
            for p in range(1, n):
                if scores[p] > scores[best]:
                    best = p
            unique = True
            for p in range(n):
                if p != best and scores[p] == scores[best]:
                    unique = False
            if unique and best != leader:
                if leader >= 0:
                    changes += 1
                leader = best
            if scores[best] >= kv[K_TARGET] and unique:
                winner = best
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = j
        for p in range(n):
            out[i, 4 + p] = scores[p]
            out[i, 4 + n + p] = hits[p]
        out[i, 4 + 2 * n] = changes
        out[i, 5 + 2 * n] = n_tor
        out[i, 6 + 2 * n] = n_faults
        out[i, 7 + 2 * n] = winner < 0
        out[i, 8 + 2 * n] = n_tor_made
        out[i, 9 + 2 * n] = tor_points
    return out


# --- entry points for the runner -----------------------------------------------------
_TABLES: list = []


def _args(knobs: DetenteKnobs) -> tuple:
    if not _TABLES:
        _TABLES.append(tables())
    cols, cx = _layout(knobs.players)
    return _vector(knobs), _rules(knobs), _TABLES[0], cx, len(cols)


def run_deals(knobs: DetenteKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb, cx, ncols = _args(knobs)
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                               seat_vectors(knobs, policies, _vector), kv, rules, tb, cx, ncols,
                               record_hands, search_work())
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt.copy())


def run_matches(knobs: DetenteKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb, cx, ncols = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector), kv, rules, tb,
                                       cx, ncols, search_work()))

