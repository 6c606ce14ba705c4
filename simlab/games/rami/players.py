"""Rami players: the heuristic and random policies, what a seat can see, the world
sampler and the search player. The rules they play by are in ``rules.py``.

Every policy lays melds the same way (the move ``M_LAY``, ``rules.lay_down``); they differ
in drawing, holding back an opening and discarding:

* ``heuristic``: draw the discard pile's top card when it completes a 3-card meld with
  two natural cards of the hand (same rank, or a run of its suit), when it is a joker,
  or (once opened) when it can be laid off on the table; else the talon. Open as soon
  as the exact best partition is worth ``opening_min`` (optionally hold it for a Rami:
  ``hold_for_rami``, the move ``M_KEEP``), going out at once when a partition leaves at
  most one card. Once opened, lay the partition that melds the most cards (then the most
  points) and lay off every natural card that fits (jokers only when at most one natural
  card is left). Discard the card of least meld potential (``melds.partners``: 2 per card
  of its rank, 2 per neighbour of its suit, 1 per card two steps away), among equals the
  lowest value before one's opening (the 51 points need high cards:
  ``keep_high_before_opening``) and the highest once opened (fewer penalty points); never
  a joker unless only jokers are left. The discard pile turned over unshuffled makes the
  same talon come round again, so unchanged play can repeat one cycle of cards until the
  turn cap; ``break_cycles`` avoids it: once the talon is public, take the discard pile's
  top card when it would stay in hand and the talon's known top card would be thrown
  straight back, and from the second turnover on, every other turn (pseudo-random on the
  turn number), keep a card just drawn from the talon that would be thrown straight back
  (the next card of the discard order goes instead). With the variant
  ``joker_swap``: also draw the discard pile's top card when it may replace a table joker
  (with ``joker_swap_replay`` only: the card then leaves the hand this turn); before the
  lay-down, take back a table joker when the lay-down then leaves fewer cards in hand
  (then fewer points) than without it (``best_swap``: e.g. the joker completes a meld,
  or with ``joker_swap_replay`` the swap sheds a card that fits nowhere else, or lets the
  player go out); one swap at a time, the best first.
* ``random``: uniform draw source (talon or discard pile) and uniform discard among the
  hand's cards (jokers included); melds by the simple rule "lay whenever possible"
  (``M_LAY`` every turn).
* ``search``: determinized Monte Carlo (``simlab.mechanics.search``) at every decision with more
  than one candidate: the draw (talon or discard pile), the lay-down (``M_LAY``: open or
  meld now, with the lay-offs; ``M_KEEP``: no new meld this turn, e.g. hold the opening
  for a Rami; ``M_PASS``: lay nothing, not even lay-offs; with ``joker_swap``, each legal
  joker swap, ``rules.swap_moves``) and the discard (the first ``search_discards``
  distinct cards of the heuristic's discard order, the heuristic's own discard first;
  only loose cards, outside every meld of the hand, when there are two or more:
  ``search_loose_discards``). Each
  candidate is played out to the end of the deal by heuristic players in
  ``search_worlds`` worlds x
  ``search_rollouts`` talon orders, every candidate on the same world and talon order.
  The heuristic's own move is the reference: another move is played only when its mean
  points saved over it, less ``search_caution`` standard errors, is positive (the best
  such move). Playouts are bounded by the game's own ``turn_cap`` and scored as the rules
  score a capped deal (the penalty in hand); the seat's outcome is its points this deal
  (its penalty, or the winner's bonus when it goes out), lower is better.

What a seat sees (``hidden_cards``): its hand, the melds on the table, the whole discard
pile (in order), which cards each player took from the discard pile and still holds,
every hand's size and the talon's size; after a turnover the talon is the old discard
pile turned face down unshuffled, so its order is known too. Hidden: the rest of the
other hands and, before any turnover, the talon's cards and order.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot, hot_inline
from simlab.games.rami.rules import (
    K_BREAK_CYCLES,
    K_CAUTION_MILLI,
    K_DISCARDS,
    K_FINAL_DISCARD,
    K_HOLD,
    K_JOKERS,
    K_JPEN,
    K_KEEP_HIGH,
    K_LOOSE_DISCARDS,
    K_MELD_FROM,
    K_MUST_MELD,
    K_PLAYERS,
    K_ROLLOUTS,
    K_SWAP,
    K_SWAP_REPLAY,
    K_WORLDS,
    M_DISCARD_PILE,
    M_KEEP,
    M_LAY,
    M_TALON,
    MAX_CARDS,
    MAX_MOVES,
    MODE_NONE,
    PH_DISCARD,
    PH_DRAW,
    PH_MELD,
    PH_OVER,
    S_DISC_N,
    S_DRAWN,
    S_HELD,
    S_MODE,
    S_N_TABLE,
    S_OPENED,
    S_OWED,
    S_OWN_TURNS,
    S_PHASE,
    S_PLY,
    S_SEAT,
    S_TAKEN,
    S_TALON_END,
    S_TALON_POS,
    S_TURN,
    S_TURNOVERS,
    SWAP_NONE,
    VAL,
    apply_move,
    copy_state,
    deal_score,
    discard_pile_option,
    hand_value,
    legal_moves,
    may_lay_off,
    new_state,
    stands_for,
    swap_move,
    top_position,
    try_open,
)
from simlab.mechanics import search
from simlab.mechanics.melds import (
    F_NJ,
    JOKER_MASK,
    N_NAT,
    N_RANKS,
    NAT_MASK,
    RANK_MASK,
    card_at,
    fits_any,
    meldable,
    partners,
)
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, has, lowest, random_card


# --- heuristic ----------------------------------------------------------------------------
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
def choose_discard(hand: np.uint64, top: int, keep_high: bool, skip: int) -> int:
    """Heuristic discard: least meld potential, then the highest value (``keep_high``:
    the lowest), then the lowest id; never the card ``skip`` (-1: none); a joker only
    when the hand holds nothing else (``discard_order`` lists the same order)."""
    nat = hand & NAT_MASK
    if skip >= 0:
        nat &= ~bit(skip)
    if nat == EMPTY:
        return lowest(hand)
    best = -1
    best_key = 1 << 30
    m = nat
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        key = _discard_key(c, hand, top, keep_high)
        if key < best_key:
            best = c
            best_key = key
    return best


@hot_inline
def keeps_high(st: np.ndarray, kv: np.ndarray, p: int) -> bool:
    """Does seat ``p`` keep its high cards at the discard (``keep_high_before_opening``,
    not yet opened)?"""
    return kv[K_KEEP_HIGH] == 1 and st[S_OPENED + p] == 0


@hot
def public_talon_worse(S: tuple, kv: np.ndarray, top: int) -> bool:
    """Heuristic draw (``break_cycles``): after a turnover the talon's top card is public;
    take the discard pile's top card instead when it would stay in hand while the
    talon's would be thrown straight back (drawing from the pile also shifts which talon
    cards each seat gets, so the table does not go round in the same cycle)."""
    st, hands, talon, disc = S[0], S[1], S[3], S[4]
    if st[S_TURNOVERS] == 0 or st[S_TALON_POS] == st[S_TALON_END] or st[S_DISC_N] == 0:
        return False
    p = st[S_SEAT]
    d = disc[st[S_DISC_N] - 1]
    t = talon[st[S_TALON_POS]]
    if d >= N_NAT or t >= N_NAT:
        return False
    high = keeps_high(st, kv, p)
    return (choose_discard(hands[p] | bit(t), top, high, -1) == t
            and choose_discard(hands[p] | bit(d), top, high, -1) != d)


@hot
def heuristic_discard(S: tuple, kv: np.ndarray, top: int) -> int:
    """Heuristic discard (``choose_discard``). With ``break_cycles``, from the second
    turnover on (the same talon cards come round again), every other turn (pseudo-random
    on the turn number, which every seat sees) a card just drawn from the talon that
    would be thrown straight back is kept and the next card of the order goes instead."""
    st, hands = S[0], S[1]
    p = st[S_SEAT]
    hand = hands[p]
    high = keeps_high(st, kv, p)
    c = choose_discard(hand, top, high, -1)
    if (kv[K_BREAK_CYCLES] and st[S_TURNOVERS] >= 2 and st[S_TAKEN] == 0 and c == st[S_DRAWN]
            and count(hand & NAT_MASK) > 1
            and rng.mix64(np.uint64(st[S_TURN])) & ONE == ONE):
        return choose_discard(hand, top, high, c)
    return c


@hot
def swap_draw(S: tuple, kv: np.ndarray, d: int) -> bool:
    """Heuristic draw, variant ``joker_swap`` with ``joker_swap_replay``: take the discard
    ``d`` when, in this turn's lay-down, it may take the place of a table joker (which
    then goes down again: like a lay-off, the card leaves the hand this turn)."""
    st, tm, tcards = S[0], S[5], S[6]
    p = st[S_SEAT]
    if (kv[K_SWAP] == SWAP_NONE or not kv[K_SWAP_REPLAY] or d >= N_NAT
            or st[S_OWN_TURNS + p] + 1 < kv[K_MELD_FROM] or not may_lay_off(st, p, kv)):
        return False
    for i in range(st[S_N_TABLE]):
        if stands_for(d, tm, i, tcards, kv):
            return True
    return False


@hot
def _left_after(T: tuple, p: int, kv: np.ndarray) -> int:
    """Cards left in seat ``p``'s hand in state ``T``, then their points (one number)."""
    return count(T[1][p]) * 1000 + hand_value(T[1][p], kv[K_JPEN])


@hot
def best_swap(S: tuple, X: tuple, kv: np.ndarray, T: tuple) -> int:
    """Heuristic, variant ``joker_swap``: the joker swap after which the usual lay-down
    (``M_LAY``, which must then put back any joker owed) leaves the fewest cards in hand,
    then the fewest points, when that beats the lay-down without a swap; -1: none. Each
    candidate is played on the spare state ``T``."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    p = st[S_SEAT]
    if kv[K_SWAP] == SWAP_NONE or st[S_MODE] != MODE_NONE or not may_lay_off(st, p, kv):
        return -1
    best = -1
    best_left = -1
    nat = hands[p] & NAT_MASK
    for i in range(st[S_N_TABLE]):
        if tm[i, F_NJ] == 0:
            continue
        m = nat
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if not stands_for(c, tm, i, tcards, kv):
                continue
            if best_left < 0:  # the lay-down without a swap, tried once a swap exists
                copy_state(S, T)
                apply_move(T, X, kv, M_LAY)
                best_left = _left_after(T, p, kv)
            mv = swap_move(c, i)
            copy_state(S, T)
            apply_move(T, X, kv, mv)
            apply_move(T, X, kv, M_LAY)
            if T[0][S_OWED] != 0:
                continue
            left = _left_after(T, p, kv)
            if left < best_left:
                best_left = left
                best = mv
    return best


@hot_inline
def heuristic_move(S: tuple, X: tuple, kv: np.ndarray, T: tuple) -> int:
    """The heuristic's move for the seat to move (see the module docstring); ``T`` is a
    spare state it may overwrite (to try joker swaps)."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    ws, best, val, cw = X
    p = st[S_SEAT]
    top = top_position(kv)
    ph = st[S_PHASE]
    if ph == PH_DRAW:
        nd = st[S_DISC_N]
        if nd == 0:
            return M_TALON
        if not (wants_discard(hands[p], disc[nd - 1], st[S_OPENED + p] == 1, tm, tcards,
                              st[S_N_TABLE], top) or swap_draw(S, kv, disc[nd - 1])
                or (kv[K_BREAK_CYCLES] and public_talon_worse(S, kv, top))):
            return M_TALON
        if kv[K_MUST_MELD] and not discard_pile_option(S, X, kv):
            return M_TALON
        return M_DISCARD_PILE
    if ph == PH_MELD:
        if (st[S_OPENED + p] == 0 and st[S_MODE] == MODE_NONE and st[S_HELD + p] < kv[K_HOLD]
                and st[S_OWED] == 0):
            keep = 1 if kv[K_FINAL_DISCARD] else 0
            if try_open(hands[p], True, kv, top, keep, ws, best, val, cw) < 0:
                return M_KEEP
        if kv[K_SWAP] != SWAP_NONE:
            mv = best_swap(S, X, kv, T)
            if mv >= 0:
                return mv
        return M_LAY
    return heuristic_discard(S, kv, top)


@hot
def random_move(state: np.uint64, S: tuple, X: tuple, kv: np.ndarray) -> tuple[np.uint64, int]:
    """The random policy's move, drawn from the policy stream ``state``."""
    st, hands = S[0], S[1]
    ph = st[S_PHASE]
    if ph == PH_DRAW:
        if discard_pile_option(S, X, kv):
            state, x = rng.below(state, 2)
            if x == 1:
                return state, M_DISCARD_PILE
        return state, M_TALON
    if ph == PH_MELD:
        return state, M_LAY
    return random_card(state, hands[st[S_SEAT]])


@hot
def playout(S: tuple, X: tuple, kv: np.ndarray, T: tuple) -> None:
    """Play the deal out with heuristic players (bounded by the turn cap); ``T``: the
    heuristic's spare state."""
    st = S[0]
    while st[S_PHASE] != PH_OVER:
        apply_move(S, X, kv, heuristic_move(S, X, kv, T))


# --- what a seat sees ---------------------------------------------------------------------
@hot
def hidden_cards(S: tuple, kv: np.ndarray, me: int, hid: np.ndarray, capacity: np.ndarray,
                 slot_seat: np.ndarray) -> tuple[int, int]:
    """What seat ``me`` cannot see: the hidden cards in ascending id order (``hid``) and the
    hidden places they are in (``slot_seat``: the other seats from ``me``'s left, then -1 for
    the talon while its cards are unknown) with the number of hidden cards each holds
    (``capacity``: a hand's size less the cards it is known to hold). Returns (cards,
    places). Reads only what the seat sees: its hand, the table, the discard pile, the
    cards known to be in other hands, hand and talon sizes, and the talon after a
    turnover."""
    st, hands, known, talon, disc, tm, tcards, plan = S
    P = kv[K_PLAYERS]
    seen = hands[me]
    for i in range(st[S_N_TABLE]):
        seen |= tcards[i]
    for i in range(st[S_DISC_N]):
        seen |= bit(disc[i])
    n_slots = 0
    for j in range(1, P):
        q = (me + j) % P
        seen |= known[q]
        slot_seat[n_slots] = q
        capacity[n_slots] = count(hands[q]) - count(known[q])
        n_slots += 1
    if st[S_TURNOVERS] == 0:
        slot_seat[n_slots] = -1
        capacity[n_slots] = st[S_TALON_END] - st[S_TALON_POS]
        n_slots += 1
    else:  # the talon is the old discard pile, face down in a known order
        for i in range(st[S_TALON_POS], st[S_TALON_END]):
            seen |= bit(talon[i])
    n = 0
    for c in range(52 + kv[K_JOKERS]):
        if not has(seen, c):
            hid[n] = c
            n += 1
    return n, n_slots


@hot
def sample_world(ss: np.uint64, S: tuple, W: tuple, kv: np.ndarray, me: int, hid: np.ndarray,
                 n_hidden: int, capacity: np.ndarray, slot_seat: np.ndarray, n_slots: int,
                 allowed: np.ndarray, owner: np.ndarray, swork: np.ndarray) -> tuple[np.uint64, bool]:
    """A world for seat ``me``: ``W`` = the state ``S`` with the hidden cards ``hid`` dealt
    anew to the hidden places (other hands keep the cards known to be in them; the talon's
    hidden part gets its cards in ascending order, to be shuffled per playout). The other
    seats' Rami-hold counters, private to them, restart at 0."""
    copy_state(S, W)
    st_w, hands_w, known_w, talon_w = W[0], W[1], W[2], W[3]
    for k in range(n_slots):
        q = slot_seat[k]
        if q >= 0:
            hands_w[q] = known_w[q]
            st_w[S_HELD + q] = 0
    full = (1 << n_slots) - 1
    for i in range(n_hidden):
        allowed[i] = full  # no constraint in Rami beyond the known cards, removed already
    ss, ok = search.sample_owners(ss, allowed, capacity, n_hidden, n_slots, owner, swork)
    j = st_w[S_TALON_POS]
    for i in range(n_hidden):
        q = slot_seat[owner[i]]
        if q >= 0:
            hands_w[q] |= bit(hid[i])
        else:
            talon_w[j] = hid[i]
            j += 1
    return ss, ok


# --- the search player ----------------------------------------------------------------------
SAMPLER_WORK = search.work_size(MAX_CARDS)  # scratch of search.sample_owners (8 places)


@batch
def new_search_work() -> tuple:
    """Work arrays of ``search_move``: (world, playout state, moves, totals, hidden cards,
    capacities, slot seats, allowed, owners, sampler scratch, points of one playout per
    move, sums of squared gains over the first move, scores, the heuristic's spare
    state)."""
    return (new_state(), new_state(), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(search.MAX_SLOTS, dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(SAMPLER_WORK, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.float64),
            new_state())


@hot
def discard_order(hand: np.uint64, top: int, keep_high: bool, out: np.ndarray) -> int:
    """The hand's distinct cards in the heuristic's order of preference for a discard:
    least meld potential, then highest value (``keep_high``: lowest), then lowest id
    (``choose_discard`` picks the first); one joker last. Returns how many."""
    n = 0
    m = hand & NAT_MASK
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        key = _discard_key(c, hand, top, keep_high)
        i = n
        while i > 0 and _discard_key(out[i - 1], hand, top, keep_high) > key:
            out[i] = out[i - 1]
            i -= 1
        out[i] = c
        n += 1
    if hand & JOKER_MASK != EMPTY:
        out[n] = lowest(hand & JOKER_MASK)
        n += 1
    return n


@hot
def _discard_key(c: int, hand: np.uint64, top: int, keep_high: bool) -> int:
    # meld potential first, then the value (x 64 > any id), then the lower id
    v = VAL[c] * 64
    return partners(c, hand, top) * 1024 + (v if keep_high else -v) + c


@hot
def search_candidates(S: tuple, X: tuple, kv: np.ndarray, trial: tuple, out: np.ndarray) -> int:
    """The moves the search compares: the legal moves (``rules.legal_moves``) with the
    heuristic's move first (ties go to it), and for the discard only the first
    ``search_discards`` cards of the heuristic's order (``discard_order``): discarding a
    card of a meld in hand is rarely worth a playout, so with two loose cards or more
    (outside every meld of the hand, ``melds.meldable``) only those are compared. The
    heuristic's own discard is always first (with ``break_cycles`` it may come later in
    that order, or be a card of a meld)."""
    st, hands = S[0], S[1]
    if st[S_PHASE] == PH_DISCARD:
        p = st[S_SEAT]
        top = top_position(kv)
        hand = hands[p]
        n = discard_order(hand, top, keeps_high(st, kv, p), out)
        loose = hand & NAT_MASK & ~meldable(hand, top)
        if kv[K_LOOSE_DISCARDS] and count(loose) >= 2:  # meld cards only when no loose one
            j = 0
            for i in range(n):
                if has(loose, out[i]):
                    out[j] = out[i]
                    j += 1
            n = j
        h = heuristic_discard(S, kv, top)
        i = 0
        while i < n and out[i] != h:
            i += 1
        if i == n:  # not among them: it goes in front of them
            n += 1
        while i > 0:
            out[i] = out[i - 1]
            i -= 1
        out[0] = h
        return min(n, kv[K_DISCARDS])
    n = legal_moves(S, X, kv, trial, out)
    if n > 1:
        h = heuristic_move(S, X, kv, trial)
        for i in range(n):
            if out[i] == h:
                out[i] = out[0]
                out[0] = h
                break
    return n


@hot
def search_move(S: tuple, X: tuple, Y: tuple, kv: np.ndarray, seed: np.uint64, index: int,
                sub: int) -> int:
    """PIMC for the seat to move: for each of ``search_worlds`` worlds and
    ``search_rollouts`` talon orders, every candidate move (``search_candidates``, the
    heuristic's first) is applied to a copy of the world and played out by heuristic
    players, all moves on the same world and talon order. A move's gain is its mean points
    saved over the heuristic's move; the move with the best gain less ``search_caution``
    standard errors of it is played when that is positive, else the heuristic's (with so
    few playouts a noisy small gain is more often luck than skill). ``Y[3]`` keeps the
    totals (minus points) per candidate, for tracing."""
    W, Q, moves, total, hid, capacity, slot_seat, allowed, owner, swork, value, sq, score, T = Y
    st = S[0]
    me = st[S_SEAT]
    n = search_candidates(S, X, kv, Q, moves)
    for m in range(n):
        total[m] = 0
        sq[m] = 0
    if n <= 1:
        return moves[0]
    ss = search.decision_stream(seed, index, sub, me, st[S_PLY])
    n_hidden, n_slots = hidden_cards(S, kv, me, hid, capacity, slot_seat)
    talon_hidden = st[S_TURNOVERS] == 0
    tp = st[S_TALON_POS]
    n_talon = st[S_TALON_END] - tp
    samples = 0
    for _ in range(kv[K_WORLDS]):
        ss, ok = sample_world(ss, S, W, kv, me, hid, n_hidden, capacity, slot_seat, n_slots,
                              allowed, owner, swork)
        if not ok:
            continue
        for _ in range(kv[K_ROLLOUTS]):
            if talon_hidden:
                ss = rng.shuffle(ss, W[3][tp:], n_talon)
            for m in range(n):
                copy_state(W, Q)
                apply_move(Q, X, kv, moves[m])
                playout(Q, X, kv, T)
                value[m] = -deal_score(Q, kv, me)
            for m in range(n):
                total[m] += value[m]
                sq[m] += (value[m] - value[0]) * (value[m] - value[0])
            samples += 1
    caution = kv[K_CAUTION_MILLI] / 1000.0
    score[0] = 0.0
    for m in range(1, n):
        gain = (total[m] - total[0]) / max(samples, 1)
        var = 0.0
        if samples > 1:
            var = max(sq[m] / samples - gain * gain, 0.0) * samples / (samples - 1)
        score[m] = gain - caution * np.sqrt(var / max(samples, 1))
    return moves[search.best_move(score, n)]
