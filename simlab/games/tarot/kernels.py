"""Tarot batch kernels: the result columns, one dealing driven through the state machine
of ``rules.py`` with each seat's policy (``players.py``), and the runner's entry points.

The heuristic run, the random player and the search player's playouts all step the same
``rules.apply_move``; the kernel only asks each seat's policy for its move and writes the
result row at the end.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, HEURISTIC, OPT_BOOL, RANDOM, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot, hot_inline
from simlab.engine.seatknobs import seat_vectors
from simlab.mechanics.tricks import EMPTY, ONE, WideTables, popcount, wcards_of, wlowest

from .players import hand_value, heuristic_card, heuristic_move, new_search_work, random_move, search_ecart, search_move
from .rules import (
    BOUTS1,
    CAMPS,
    CHIEN_SIZE,
    CONTRACTS,
    DECK,
    ID_OF_SLOT,
    K_CHIEN,
    K_HAND,
    K_MATCH_PLAYED,
    K_N,
    K_ROUNDS,
    MATCH_DEALINGS_CAP,
    N_CARDS,
    N_S,
    PH_ECART,
    PH_PLAY,
    POIGNEES,
    S_ATT_TRICKS,
    S_CALLED,
    S_CH0,
    S_CHELEM_ANN,
    S_CONTRACT,
    S_ECART_N,
    S_ECART_TR,
    S_EXC_LAST,
    S_HAND,
    S_PARTNER,
    S_PHASE,
    S_PLY,
    S_POIGNEE,
    S_POINTS,
    S_PSEC,
    S_TAKER,
    S_TH0,
    S_TH1,
    S_TRICKS,
    S_TURN,
    SLOT_OF_ID,
    TarotKnobs,
    _rules,
    _vector,
    apply_card,
    apply_decision,
    deal_order,
    final_count,
    new_deal,
    seat_score,
    tables,
)

# --- result columns -----------------------------------------------------------------
# Kernel-side layout: the index of each column group, which depends on the player count.
(X_SCORE, X_TAKER, X_CONTRACT, X_MADE, X_TRICKS, X_TPTS, X_PSEC, X_BOUTS, X_APTS, X_DPTS,
 X_NEED, X_MARGIN, X_ATOTAL, X_POIGNEE, X_PAB, X_CH_ANN, X_CHELEM, X_CALLED, X_PARTNER,
 X_ALONE, X_CALLED_CHIEN, X_ECART_TRUMPS, X_EXC_LAST, X_CHIEN, X_ECART, X_TVALUE, X_TBOUTS,
 N_X) = range(28)
C_DEAL, C_DEALER, C_ANNULLED = 0, 1, 2


def _groups(n: int) -> list[tuple[int, list[Column]]]:
    c = CHIEN_SIZE[n]
    cards = DECK.labels
    seats = range(n)
    return [
        (X_SCORE, [Column(f"score_s{i}", help="points marked this deal") for i in seats]),
        (X_TAKER, [Column("taker", help="-1 when nobody bids (or the dealing is annulled)")]),
        (X_CONTRACT, [Column("contract", CONTRACTS)]),
        (X_MADE, [Column("made", OPT_BOOL)]),
        (X_TRICKS, [Column(f"tricks_s{i}") for i in seats]),
        (X_TPTS, [Column(f"trick_points_s{i}", help="half-points of the cards the seat "
                         "won in tricks, Excuse exchange included (écart/chien not)")
                  for i in seats]),
        (X_PSEC, [Column("petit_sec_seat", help="seat that showed a petit sec (the "
                         "dealing is annulled), else -1")]),
        (X_BOUTS, [Column("bouts", help="Bouts among the attack's cards at the end")]),
        (X_APTS, [Column("attack_points", help="half-points of the attack (taker and "
                         "partner): tricks, écart or chien")]),
        (X_DPTS, [Column("defence_points", help="half-points of the defence")]),
        (X_NEED, [Column("points_needed", help="points (not half) to make, by Bouts")]),
        (X_MARGIN, [Column("margin", help="rounded |P - T| in points, negative when the "
                           "contract fails")]),
        (X_ATOTAL, [Column("attack_total", help="A: what each defender pays (taker 3A at "
                           "4 players, 2A at 3, 2A + partner A or 4A alone at 5)")]),
        (X_POIGNEE, [Column(f"poignee_s{i}", POIGNEES, help="poignée declared by seat")
                     for i in seats]),
        (X_PAB, [Column("petit_au_bout", CAMPS, help="camp that took the Petit au bout")]),
        (X_CH_ANN, [Column("chelem_announced", BOOL)]),
        (X_CHELEM, [Column("chelem", CAMPS, help="camp that took every trick")]),
        (X_CALLED, [Column("called_card", cards, help="5 players: the card called")]),
        (X_PARTNER, [Column("partner", help="5 players: holder of the called card, -1 "
                            "when the taker plays alone (or 3/4 players)")]),
        (X_ALONE, [Column("alone", OPT_BOOL, help="5 players: the taker plays 1 against 4")]),
        (X_CALLED_CHIEN, [Column("called_in_chien", OPT_BOOL)]),
        (X_ECART_TRUMPS, [Column("ecart_trumps", help="trumps discarded (shown)")]),
        (X_EXC_LAST, [Column("excuse_last_trick", BOOL, help="the Excuse was played to "
                             "the last trick")]),
        (X_CHIEN, [Column(f"chien_{j}", cards) for j in range(c)]),
        (X_ECART, [Column(f"ecart_{j}", cards, help="null unless Prise or Garde")
                   for j in range(c)]),
        (X_TVALUE, [Column("taker_value", help="the taker's hand value before the chien "
                           "(the heuristic's bidding count, see knob bid_prise), -1 when "
                           "nobody takes")]),
        (X_TBOUTS, [Column("taker_bouts", help="Bouts in the taker's hand before the "
                           "chien, -1 when nobody takes")]),
    ]


def _layout(n: int) -> tuple[list[Column], np.ndarray]:
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="petit sec: the dealing is void and redealt")]
    cx = np.zeros(N_X, dtype=np.int64)
    for x, group in _groups(n):
        cx[x] = len(cols)
        cols += group
    return cols, cx


def deal_columns(k: TarotKnobs | None = None) -> list[Column]:
    return _layout((k or TarotKnobs()).players)[0]


def match_columns(k: TarotKnobs | None = None) -> list[Column]:
    k = k or TarotKnobs()
    n = k.players
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat with the highest total, -1 on a tie"),
            Column("n_deals", help="dealings, void ones included (the dealer passes on "
                   "after each)")]
    cols += [Column(f"final_score_s{i}") for i in range(n)]
    cols += [Column("n_annulled", help="petit sec"), Column("n_all_pass"),
             Column("n_made"), Column("n_taken", help="played deals")]
    if k.match_counts == "played_deals":
        cols.append(Column("capped", BOOL, help="stopped by the safety cap on dealings "
                           f"({MATCH_DEALINGS_CAP} x rounds x players) before its played deals"))
    return cols



# --- one dealing ---------------------------------------------------------------------------
@hot_inline
def choose_move(S: np.ndarray, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, state: np.uint64, sw: tuple
                ) -> tuple[np.uint64, int]:
    """(policy stream, move) of the seat to move, by its policy."""
    p = S[S_TURN]
    if pol[p] == HEURISTIC:
        return state, heuristic_move(S, seat_kv[p], rules, tb)
    if pol[p] == RANDOM:
        return random_move(S, kv, rules, tb, state)
    return state, search_move(S, seat_kv[p], rules, tb, seed, index, sub, sw)


@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
              rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray,
              seed: np.uint64, index: int, sub: int, state: np.uint64, row: np.ndarray,
              dealt: np.ndarray, hands_out: np.ndarray, S: np.ndarray, buf: np.ndarray,
              sw: tuple) -> np.uint64:
    """One dealing from a shuffled ``deck`` (slots): deal (``rules.new_deal``), then each
    decision by the policy of the seat to move until the end. Fills ``row`` from the
    score columns on (column indices ``cx``), ``dealt``/``hands_out`` [n, hand] deck ids.
    ``S`` (the state, int64 [N_S]), ``buf`` (int64 [32]) and ``sw`` (the search player's
    scratch, ``players.new_search_work``) are work arrays; ``seed``, ``index`` (deal or
    match) and ``sub`` (dealing within a match) key the search player's own streams.
    Returns the policy stream state."""
    points = tb[4]
    n = kv[K_N]
    hsize = kv[K_HAND]
    nc = kv[K_CHIEN]
    searching = False
    for p in range(n):
        searching |= pol[p] != HEURISTIC and pol[p] != RANDOM
    new_deal(S, deck, dealer, order, kv, dealt, buf, searching)
    for j in range(nc):
        row[cx[X_CHIEN] + j] = ID_OF_SLOT[buf[j]]
    for x in (X_TAKER, X_CONTRACT, X_MADE, X_PSEC, X_PAB, X_CHELEM, X_CALLED, X_PARTNER, X_ALONE,
              X_CALLED_CHIEN, X_TVALUE, X_TBOUTS):
        row[cx[x]] = -1
    for p in range(n):
        row[cx[X_POIGNEE] + p] = -1
    for j in range(nc):
        row[cx[X_ECART] + j] = -1
    if S[S_PSEC] >= 0:  # petit sec: shown before the auction; the dealing is void
        row[C_ANNULLED] = 1
        row[cx[X_PSEC]] = S[S_PSEC]
        return state

    # Auction, call, écart, chelem and poignées.
    while S[S_PHASE] < PH_PLAY:
        if S[S_PHASE] == PH_ECART and pol[S[S_TURN]] != HEURISTIC and pol[S[S_TURN]] != RANDOM:
            e0, e1 = search_ecart(S, seat_kv[S[S_TURN]], rules, tb, seed, index, sub, sw)
            while e0 | e1 != EMPTY:
                c = wlowest(e0, e1)
                row[cx[X_ECART] + S[S_ECART_N]] = ID_OF_SLOT[c]
                apply_decision(S, c, kv)
                if c < 64:
                    e0 &= ~(ONE << np.uint64(c))
                else:
                    e1 &= ~(ONE << np.uint64(c - 64))
            continue
        state, m = choose_move(S, pol, seat_kv, kv, rules, tb, seed, index, sub, state, sw)
        if S[S_PHASE] == PH_ECART:
            row[cx[X_ECART] + S[S_ECART_N]] = ID_OF_SLOT[m]
        apply_decision(S, m, kv)
    taker = S[S_TAKER]
    if taker < 0:  # everybody passed
        return state
    for p in range(n):
        wcards_of(np.uint64(S[S_HAND + 2 * p]), np.uint64(S[S_HAND + 2 * p + 1]), buf)
        for j in range(hsize):
            hands_out[p, j] = ID_OF_SLOT[buf[j]]

    # Play.
    while S[S_PHASE] == PH_PLAY:
        p = S[S_TURN]
        if pol[p] == HEURISTIC:
            c = heuristic_card(S, seat_kv[p], rules, tb)
        else:
            state, c = choose_move(S, pol, seat_kv, kv, rules, tb, seed, index, sub, state, sw)
        apply_card(S, c, kv, tb)
        S[S_PLY] += 1

    # Scoring.
    total, made, margin, needed, pts_att, pts_def, bouts_att, pab = final_count(S, kv, points)
    partner = S[S_PARTNER]
    row[cx[X_TAKER]] = taker
    row[cx[X_CONTRACT]] = S[S_CONTRACT]
    row[cx[X_TVALUE]] = hand_value(np.uint64(S[S_TH0]), np.uint64(S[S_TH1]))
    row[cx[X_TBOUTS]] = popcount(np.uint64(S[S_TH1]) & BOUTS1)
    called = S[S_CALLED]
    if called >= 0:
        row[cx[X_CALLED]] = ID_OF_SLOT[called]
        row[cx[X_PARTNER]] = partner
        row[cx[X_ALONE]] = partner < 0
        row[cx[X_CALLED_CHIEN]] = (S[S_CH0] >> called) & 1
    row[cx[X_ECART_TRUMPS]] = S[S_ECART_TR]
    row[cx[X_CH_ANN]] = S[S_CHELEM_ANN]
    for p in range(n):
        row[cx[X_POIGNEE] + p] = S[S_POIGNEE + p]
        row[cx[X_TRICKS] + p] = S[S_TRICKS + p]
        row[cx[X_TPTS] + p] = S[S_POINTS + p]
    row[cx[X_EXC_LAST]] = S[S_EXC_LAST]
    if pab != 0:
        row[cx[X_PAB]] = 0 if pab > 0 else 1
    att_tricks = S[S_ATT_TRICKS]
    if att_tricks == hsize:
        row[cx[X_CHELEM]] = 0
    elif att_tricks == 0:
        row[cx[X_CHELEM]] = 1
    row[cx[X_BOUTS]] = bouts_att
    row[cx[X_APTS]] = pts_att
    row[cx[X_DPTS]] = pts_def
    row[cx[X_NEED]] = needed
    row[cx[X_MARGIN]] = margin if made else -margin
    row[cx[X_ATOTAL]] = total
    row[cx[X_MADE]] = made
    for p in range(n):
        row[cx[X_SCORE] + p] = seat_score(total, n, taker, partner, p)
    return state



# --- batch kernels ---------------------------------------------------------------------
@hot
def _fresh_deck(deck: np.ndarray) -> None:
    for i in range(N_CARDS):
        deck[i] = SLOT_OF_ID[i]


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray, ncols: int,
                 record: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = kv[K_N]
    hsize = kv[K_HAND]
    out = np.zeros((ncols, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, n, hsize), -1, dtype=np.int64)
    hands_out = np.full((n_rec, n, hsize), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    S = np.zeros(N_S, dtype=np.int64)
    buf = np.zeros(32, dtype=np.int64)
    sw = new_search_work()
    for i in range(count):
        d = start + i
        _fresh_deck(deck)
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % n
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, dealer, pol, seat_kv, kv, rules, tb, order, cx, seed, d, 0,
                  rng.stream(seed, d, 0, rng.POLICY), out[i], dealt[j], hands_out[j], S, buf, sw)
        if record and out[i, cx[X_TAKER]] < 0:
            hands_out[j, :, :] = -1
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple, order: np.ndarray, cx: np.ndarray,
                   ncols: int) -> np.ndarray:
    n = kv[K_N]
    hsize = kv[K_HAND]
    count_played = kv[K_MATCH_PLAYED] != 0
    out = np.zeros((count, 8 + n + count_played), dtype=np.int64)
    row = np.zeros((ncols, 1), dtype=np.int64).T[0]
    dealt = np.empty((n, hsize), dtype=np.int64)
    hands_out = np.empty((n, hsize), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    S = np.zeros(N_S, dtype=np.int64)
    buf = np.zeros(32, dtype=np.int64)
    sw = new_search_work()
    scores = np.zeros(5, dtype=np.int64)
    length = kv[K_ROUNDS] * n  # dealings, or played deals (knob match_counts)
    max_dealings = length * MATCH_DEALINGS_CAP if count_played else length
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), n)
        dealer = first
        scores[:] = 0
        annulled = 0
        all_pass = 0
        made = 0
        taken = 0
        n_deals = 0
        for j in range(max_dealings):
            if count_played and taken == length:
                break
            n_deals += 1
            _fresh_deck(deck)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), deck, N_CARDS)
            row[:] = 0
            play_deal(deck, dealer, pol, seat_kv, kv, rules, tb, order, cx, seed, m, j + 1,
                      rng.stream(seed, m, j + 1, rng.POLICY), row, dealt, hands_out, S, buf, sw)
            if row[C_ANNULLED]:
                annulled += 1
            elif row[cx[X_TAKER]] < 0:
                all_pass += 1
            else:
                taken += 1
                made += row[cx[X_MADE]]
                for p in range(n):
                    scores[p] += row[cx[X_SCORE] + p]
            dealer = (dealer + 1) % n
        best = 0
        for p in range(1, n):
            if scores[p] > scores[best]:
                best = p
        tie = False
        for p in range(n):
            if p != best and scores[p] == scores[best]:
                tie = True
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = -1 if tie else best
        out[i, 3] = n_deals
        for p in range(n):
            out[i, 4 + p] = scores[p]
        out[i, 4 + n] = annulled
        out[i, 5 + n] = all_pass
        out[i, 6 + n] = made
        out[i, 7 + n] = taken
        if count_played:
            out[i, 8 + n] = taken < length
    return out


# --- entry points for the runner -----------------------------------------------------
_TABLES: list[WideTables] = []


def _tables() -> WideTables:
    if not _TABLES:
        _TABLES.append(tables())
    return _TABLES[0]


def _args(knobs: TarotKnobs) -> tuple:
    cols, cx = _layout(knobs.players)
    return (_vector(knobs), _rules(knobs), _tables().kernel_args(), deal_order(knobs.players),
            cx, len(cols))


def run_deals(knobs: TarotKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, tb, order, cx, ncols = _args(knobs)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector), kv, rules, tb,
                                      order, cx, ncols, record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: TarotKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, tb, order, cx, ncols = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector), kv, rules, tb,
                                       order, cx, ncols))


