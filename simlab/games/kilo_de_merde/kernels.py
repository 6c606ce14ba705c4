"""Kilo de merde: the event loop of a round, batch kernels and the runner's entry points.

A deal-level row is one round from empty kilo stacks: the packet and the pile shuffled
from (seed, deal), every delay, choice and mistake from the round's policy stream; a match
is ``match_rounds`` rounds of one table whose stacks carry over, round ``r`` of match
``m`` from (seed, m, r). Rows carry the simulated time (``time_ms``).

Each seat holds at most one pending action on the shared clock (``simlab.mechanics.
realtime``): the passer's pass; a holder's slap, scheduled when everyone holds 4 and
dropped when a pass ends that window; a false slap (the seat's error rate, drawn once per
window for each seat without a combination); an early slap (drawn once when a seat
completes while someone holds 3).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import seat_vectors
from simlab.games.kilo_de_merde.players import choose_pass
from simlab.games.kilo_de_merde.rules import (
    ACE,
    F_ACE_DRAWS,
    F_CAPPED,
    F_COMPLETED,
    F_CYCLES,
    F_DEADLOCK,
    F_DRAW,
    F_DRAWS,
    F_EARLY,
    F_EMPTY,
    F_FALSE,
    F_FLUSHED,
    F_FLUSHES,
    F_PASSES,
    F_TIME,
    F_VALID,
    F_WINNER,
    KV_ACE,
    KV_COMBO,
    KV_FLUSH,
    KV_MATCH_ROUNDS,
    KV_MAX_CYCLES,
    KV_PENALTY,
    KV_PLAYERS,
    KV_ROUND_END,
    L_FIXED,
    MAX_PLAYERS,
    N_CARDS,
    PACKET_RANKS,
    QUEEN_OF_HEARTS,
    KiloKnobs,
    can_all_complete,
    has_combo,
    kilos,
    knob_vector,
    rank_of,
    suit_of,
)
from simlab.mechanics import realtime as rt

NONE, PASS, SLAP, FALSE_SLAP, EARLY_SLAP = range(5)
# table arrays: one int64 matrix ``tab`` [MAX_PLAYERS + 3, N_CARDS] and counters
T_PILE = MAX_PLAYERS  # row of the pile
T_PACKET = MAX_PLAYERS + 1
T_WORK = MAX_PLAYERS + 2
(Q_PN, Q_STARTER, Q_PASSER, Q_ACTIVE, Q_SN, Q_HN, Q_ACTION, Q_PEN, Q_LIVE_R, Q_LIVE_S,
 N_Q) = (0, 1, 2, 3, 3 + MAX_PLAYERS, 3 + 2 * MAX_PLAYERS, 3 + 3 * MAX_PLAYERS,
         3 + 4 * MAX_PLAYERS, 3 + 5 * MAX_PLAYERS, 3 + 5 * MAX_PLAYERS + 13,
         3 + 5 * MAX_PLAYERS + 17)


@hot
def next_active(q: np.ndarray, s: np.int64, n: np.int64) -> np.int64:
    """The next active seat on ``s``'s left (seat + 1); -1 if none."""
    for k in range(1, n + 1):
        t = (s + k) % n
        if q[Q_ACTIVE + t] != 0:
            return t
    return np.int64(-1)


@hot
def window_open(q: np.ndarray, n: np.int64) -> bool:
    """Every active player holds at least 4 cards: a slap may be valid."""
    for s in range(n):
        if q[Q_ACTIVE + s] != 0 and q[Q_HN + s] < 4:
            return False
    return True


@hot
def update_live(tab: np.ndarray, q: np.ndarray, n: np.int64) -> None:
    """Ranks with all four cards among the active hands, suits with at least four."""
    for r in range(13):
        q[Q_LIVE_R + r] = 0
    for u in range(4):
        q[Q_LIVE_S + u] = 0
    for s in range(n):
        if q[Q_ACTIVE + s] != 0:
            for j in range(q[Q_HN + s]):
                q[Q_LIVE_R + rank_of(tab[s, j])] += 1
                q[Q_LIVE_S + suit_of(tab[s, j])] += 1
    for r in range(13):
        q[Q_LIVE_R + r] = 1 if q[Q_LIVE_R + r] == 4 else 0
    for u in range(4):
        q[Q_LIVE_S + u] = 1 if q[Q_LIVE_S + u] >= 4 else 0


@hot
def shuffle_row(state: np.uint64, tab: np.ndarray, row: np.int64, k: np.int64
                ) -> np.uint64:
    for i in range(k - 1, 0, -1):
        state, j = rng.below(state, i + 1)
        t = tab[row, i]
        tab[row, i] = tab[row, j]
        tab[row, j] = t
    return state


@hot
def draw_penalty(state: np.uint64, tab: np.ndarray, stacks: np.ndarray, q: np.ndarray,
                 kv: np.ndarray, seat: np.int64, cnt: np.ndarray, pen: np.ndarray
                 ) -> np.uint64:
    """``seat`` takes the pile's top card(s); a 7 sends his kilos and itself back into the
    pile, which is shuffled again."""
    pen[seat] += 1
    for _ in range(kv[KV_PENALTY]):
        cnt[F_DRAWS] += 1
        if q[Q_PN] == 0:
            cnt[F_EMPTY] += 1
            continue
        q[Q_PN] -= 1
        card = tab[T_PILE, q[Q_PN]]
        if rank_of(card) == kv[KV_FLUSH]:
            cnt[F_FLUSHES] += 1
            tab[T_PILE, q[Q_PN]] = card
            q[Q_PN] += 1
            for j in range(q[Q_SN + seat]):
                c = stacks[seat, j]
                cnt[F_FLUSHED] += kilos(c, kv[KV_ACE])
                tab[T_PILE, q[Q_PN]] = c
                q[Q_PN] += 1
            q[Q_SN + seat] = 0
            state = shuffle_row(state, tab, T_PILE, q[Q_PN])
        else:
            if rank_of(card) == ACE:
                cnt[F_ACE_DRAWS] += 1
            stacks[seat, q[Q_SN + seat]] = card
            q[Q_SN + seat] += 1
    return state


@hot
def open_window(state: np.uint64, tab: np.ndarray, q: np.ndarray, seat_kv: np.ndarray,
                kv: np.ndarray, clock: np.ndarray, now: np.float64, n: np.int64
                ) -> np.uint64:
    """Everyone holds 4: holders slap, the passer passes, the others may slap falsely."""
    rt.clear(clock, n)
    for s in range(n):
        q[Q_ACTION + s] = NONE
        if q[Q_ACTIVE + s] == 0:
            continue
        if has_combo(tab[s], q[Q_HN + s], kv[KV_COMBO]) != 0:
            q[Q_ACTION + s] = SLAP
            state = rt.schedule_after(state, clock, s, now, seat_kv[s], 0)
        elif s == q[Q_PASSER]:
            q[Q_ACTION + s] = PASS
            state = rt.schedule(state, clock, s, now, seat_kv[s], q[Q_HN + s])
        else:
            state, wrong = rt.errs(state, seat_kv[s])
            if wrong:
                q[Q_ACTION + s] = FALSE_SLAP
                state = rt.schedule_after(state, clock, s, now, seat_kv[s], 0)
    return state


@hot
def play_round(state: np.uint64, shuffle_state: np.uint64, pol: np.ndarray,
               seat_kv: np.ndarray, kv: np.ndarray, tab: np.ndarray, stacks: np.ndarray,
               q: np.ndarray, clock: np.ndarray, cnt: np.ndarray, pen: np.ndarray,
               ev: np.ndarray, dealt: np.ndarray, now: np.float64) -> np.float64:
    """One round on the table (stacks as they are): deal, pass, slap, until everyone has
    completed, a deadlock or the cap. Returns the clock."""
    n = kv[KV_PLAYERS]
    combo = kv[KV_COMBO]
    # the packet: all four cards of n ranks; the pile: the rest, but the kilo stacks
    in_stack = tab[T_WORK]
    for c in range(N_CARDS):
        in_stack[c] = 0
    for s in range(n):
        for j in range(q[Q_SN + s]):
            in_stack[stacks[s, j]] = 1
    k = 0
    for i in range(n):
        for u in range(4):
            c = u * 13 + PACKET_RANKS[i]
            tab[T_PACKET, k] = c
            in_stack[c] = 2
            k += 1
    pn = 0
    for c in range(N_CARDS):
        if in_stack[c] == 0:
            tab[T_PILE, pn] = c
            pn += 1
    q[Q_PN] = pn
    shuffle_state = shuffle_row(shuffle_state, tab, T_PACKET, 4 * n)
    shuffle_state = shuffle_row(shuffle_state, tab, T_PILE, pn)
    starter = 0
    for s in range(n):
        for j in range(4):
            c = tab[T_PACKET, 4 * s + j]
            tab[s, j] = c
            dealt[s, j] = c
            if c == QUEEN_OF_HEARTS:
                starter = s
        q[Q_HN + s] = 4
        q[Q_ACTIVE + s] = 1
    q[Q_STARTER] = starter
    q[Q_PASSER] = starter
    update_live(tab, q, n)
    state = open_window(state, tab, q, seat_kv, kv, clock, now, n)
    cycles = 0
    while True:
        state, s = rt.earliest(state, clock, n, ev)
        if s < 0:  # cannot happen: the passer always has a pass (a guard, never silent)
            ev[rt.EV_STALLS] += 1
            cnt[F_CAPPED] += 1
            return now
        now = clock[s]
        act = q[Q_ACTION + s]
        if act == PASS:
            ev[rt.EV_ACTIONS] += 1
            cnt[F_PASSES] += 1
            hk = q[Q_HN + s]
            state, j = choose_pass(pol[s], state, tab[s], hk, q[Q_LIVE_R:Q_LIVE_R + 13],
                                   q[Q_LIVE_S:Q_LIVE_S + 4], combo)
            card = tab[s, j]
            tab[s, j] = tab[s, hk - 1]
            q[Q_HN + s] = hk - 1
            to = next_active(q, s, n)
            tab[to, q[Q_HN + to]] = card
            q[Q_HN + to] += 1
            # the window (if it was open) is closed: the holders hold back
            # (a false or early slap already on its way keeps its time)
            for t in range(n):
                if q[Q_ACTION + t] == SLAP or q[Q_ACTION + t] == PASS:
                    q[Q_ACTION + t] = NONE
                    clock[t] = rt.NEVER
            if to == q[Q_STARTER]:  # the cycle is over: everyone holds 4
                cycles += 1
                cnt[F_CYCLES] += 1
                if cycles >= kv[KV_MAX_CYCLES]:
                    cnt[F_CAPPED] += 1
                    ev[rt.EV_CAPS] += 1
                    return now
                q[Q_PASSER] = to
                state = open_window(state, tab, q, seat_kv, kv, clock, now, n)
                continue
            q[Q_PASSER] = to
            q[Q_ACTION + to] = PASS
            state = rt.schedule(state, clock, to, now, seat_kv[to], q[Q_HN + to])
            if (has_combo(tab[to], q[Q_HN + to], combo) != 0
                    and has_combo(tab[to], q[Q_HN + to] - 1, combo) == 0):
                state, wrong = rt.errs(state, seat_kv[to])
                if wrong:  # he slaps at once, before everyone holds 4 again
                    q[Q_ACTION + to] = EARLY_SLAP
                    state = rt.schedule_after(state, clock, to, now, seat_kv[to], 0)
            continue
        # a slap: everyone else slaps too
        ev[rt.EV_ACTIONS] += 1
        valid = act == SLAP and window_open(q, n) and has_combo(tab[s], q[Q_HN + s],
                                                               combo) != 0
        rt.clear(clock, n)
        for t in range(n):
            if t != s:
                state = rt.schedule_after(state, clock, t, now, seat_kv[t], 0)
        last = rt.latest(clock, n, s)
        now = clock[last]
        if valid:
            cnt[F_VALID] += 1
            state = draw_penalty(state, tab, stacks, q, kv, last, cnt, pen)
            q[Q_ACTIVE + s] = 0
            q[Q_HN + s] = 0
            cnt[F_COMPLETED] += 1
            if kv[KV_ROUND_END] == 1:
                return now
            left = 0
            for t in range(n):
                left += q[Q_ACTIVE + t]
            if left <= 1:
                return now
            if not can_all_complete(tab, q[Q_HN:Q_HN + n], q[Q_ACTIVE:Q_ACTIVE + n], n,
                                    combo, tab[T_WORK]):
                cnt[F_DEADLOCK] += 1
                return now
            if q[Q_STARTER] == s:
                q[Q_STARTER] = next_active(q, s, n)
            q[Q_PASSER] = q[Q_STARTER]
            update_live(tab, q, n)
            state = open_window(state, tab, q, seat_kv, kv, clock, now, n)
            continue
        if act == EARLY_SLAP:
            cnt[F_EARLY] += 1
        else:
            cnt[F_FALSE] += 1
        ev[rt.EV_ERRORS] += 1
        state = draw_penalty(state, tab, stacks, q, kv, s, cnt, pen)
        if window_open(q, n):
            state = open_window(state, tab, q, seat_kv, kv, clock, now, n)
        else:
            rt.clear(clock, n)
            for t in range(n):
                q[Q_ACTION + t] = NONE
            p = q[Q_PASSER]
            q[Q_ACTION + p] = PASS
            state = rt.schedule(state, clock, p, now, seat_kv[p], q[Q_HN + p])


@hot
def fill_fixed(stacks: np.ndarray, q: np.ndarray, kv: np.ndarray, cnt: np.ndarray,
               pen: np.ndarray, now: np.float64, row: np.ndarray) -> None:
    """Per-seat blocks (kilos, Aces, penalties) and the fixed counters."""
    n = kv[KV_PLAYERS]
    best = 1 << 40
    who = -1
    ties = 0
    for s in range(n):
        kg = 0
        aces = 0
        for j in range(q[Q_SN + s]):
            kg += kilos(stacks[s, j], kv[KV_ACE])
            if rank_of(stacks[s, j]) == ACE:
                aces += 1
        row[1 + s] = kg
        row[1 + n + s] = aces
        row[1 + 2 * n + s] = pen[s]
        if kg < best:
            best = kg
            who = s
            ties = 1
        elif kg == best:
            ties += 1
    base = 1 + 3 * n
    for i in range(L_FIXED):
        row[base + i] = cnt[i]
    row[base + F_WINNER] = who if ties == 1 else -1
    row[base + F_DRAW] = 1 if ties > 1 else 0
    row[base + F_TIME] = np.int64(now * 1000.0 + 0.5)


@hot
def reset(q: np.ndarray, cnt: np.ndarray, pen: np.ndarray, ev: np.ndarray) -> None:
    for i in range(N_Q):
        q[i] = 0
    for i in range(L_FIXED):
        cnt[i] = 0
    for i in range(MAX_PLAYERS):
        pen[i] = 0
    for i in range(rt.EV_SIZE):
        ev[i] = 0


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record_hands: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = kv[KV_PLAYERS]
    width = 1 + 3 * n + L_FIXED
    out = np.zeros((width, count), dtype=np.int64).T
    dealt_all = np.full((count if record_hands else 0, n, 4), -1, dtype=np.int64)
    tab = np.zeros((MAX_PLAYERS + 3, N_CARDS), dtype=np.int64)
    stacks = np.zeros((MAX_PLAYERS, N_CARDS), dtype=np.int64)
    q = np.zeros(N_Q, dtype=np.int64)
    clock = np.zeros(MAX_PLAYERS, dtype=np.float64)
    cnt = np.zeros(L_FIXED, dtype=np.int64)
    pen = np.zeros(MAX_PLAYERS, dtype=np.int64)
    ev = np.zeros(rt.EV_SIZE, dtype=np.int64)
    dealt = np.zeros((MAX_PLAYERS, 4), dtype=np.int64)
    for i in range(count):
        d = start + i
        reset(q, cnt, pen, ev)
        now = play_round(rng.stream(seed, d, 0, rng.POLICY),
                         rng.stream(seed, d, 0, rng.SHUFFLE), pol, seat_kv, kv, tab,
                         stacks, q, clock, cnt, pen, ev, dealt, 0.0)
        out[i, 0] = d
        fill_fixed(stacks, q, kv, cnt, pen, now, out[i])
        if record_hands:
            for s in range(n):
                for j in range(4):
                    dealt_all[i, s, j] = dealt[s, j]
    return out, dealt_all, dealt_all


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    n = kv[KV_PLAYERS]
    width = 1 + 3 * n + L_FIXED + 1
    out = np.zeros((width, count), dtype=np.int64).T
    tab = np.zeros((MAX_PLAYERS + 3, N_CARDS), dtype=np.int64)
    stacks = np.zeros((MAX_PLAYERS, N_CARDS), dtype=np.int64)
    q = np.zeros(N_Q, dtype=np.int64)
    clock = np.zeros(MAX_PLAYERS, dtype=np.float64)
    cnt = np.zeros(L_FIXED, dtype=np.int64)
    pen = np.zeros(MAX_PLAYERS, dtype=np.int64)
    ev = np.zeros(rt.EV_SIZE, dtype=np.int64)
    dealt = np.zeros((MAX_PLAYERS, 4), dtype=np.int64)
    for i in range(count):
        m = start + i
        reset(q, cnt, pen, ev)
        now = 0.0
        for r in range(kv[KV_MATCH_ROUNDS]):
            now = play_round(rng.stream(seed, m, r, rng.POLICY),
                             rng.stream(seed, m, r, rng.SHUFFLE), pol, seat_kv, kv, tab,
                             stacks, q, clock, cnt, pen, ev, dealt, now)
        out[i, 0] = m
        fill_fixed(stacks, q, kv, cnt, pen, now, out[i])
        out[i, width - 1] = kv[KV_MATCH_ROUNDS]
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: KiloKnobs, policies: tuple[str, ...]) -> tuple:
    if len(policies) != knobs.players:
        raise SimlabError(f"kilo_de_merde with players = {knobs.players} needs "
                          f"{knobs.players} policies, got {len(policies)}")
    return (policy_codes(policies), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs))


def run_deals(knobs: KiloKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands.copy())


def run_matches(knobs: KiloKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv))


def simulate_rows(knobs: KiloKnobs, policies: tuple[str, ...], seed: int, count: int,
                  level: str = "deal", start: int = 0) -> np.ndarray:
    """Rows straight from the kernel (the report's sweeps; tests)."""
    if level == "match":
        return run_matches(knobs, policies, seed, start, count).rows
    return run_deals(knobs, policies, seed, start, count).rows
