"""Le flair: the batch kernels and the runner's entry points.

Deal ``d`` shuffles with the stream (seed, d, 0, SHUFFLE) and its players draw from
(seed, d, 0, POLICY); deal ``g`` of match ``m`` uses (seed, m, g, ·). The dealer of deal
``d`` is ``d mod players``; he deals one card at a time from his left, who plays first.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.flair.mixture import MIX_PROFILES, MIX_WEIGHTS
from simlab.games.flair.players import (
    ADAPTIVE,
    PR_FAUX,
    PR_LIE,
    PR_VRAI,
    choose_call,
    choose_gift,
    choose_play,
    policy_codes,
    uniform,
)
from simlab.games.flair.rules import (
    KV_CAP,
    KV_FAUX,
    KV_LIE,
    KV_MATCH,
    KV_N,
    KV_PROTECTED,
    KV_RANDOM_CALLER,
    KV_SAME_SUIT,
    KV_VRAI,
    MAX_PLAYERS,
    N_CARDS,
    N_ST,
    S_CALLS_S,
    S_CAPPED,
    S_CARDS_PLAYED,
    S_CHALLENGES,
    S_DEAD,
    S_FAUX,
    S_HAND,
    S_HONEST_PUNISHED,
    S_KNOWN,
    S_LIES,
    S_LIES_CAUGHT,
    S_N_WRONG,
    S_PLAYS,
    S_RIGHT,
    S_TRUE_VRAI,
    S_TURN,
    S_VRAI,
    S_WINNER,
    S_WRONG_COST,
    V_NONE,
    V_VRAI,
    FlairKnobs,
    claim_true,
    knob_vector,
    popcount,
)

ONE = np.int64(1)


@hot
def give(st: np.ndarray, state: np.uint64, pol: np.ndarray, giver: np.int64,
         to: np.int64, n: np.int64) -> np.uint64:
    """``giver`` gives one of his cards (his choice) to ``to``; both know where it went."""
    hand = st[S_HAND + giver]
    if hand == 0:
        return state
    state, c = choose_gift(pol[giver], state, hand)
    bit = ONE << c
    st[S_HAND + giver] &= ~bit
    st[S_HAND + to] |= bit
    for i in range(n):
        st[S_KNOWN + 4 * i + giver] &= ~bit
    st[S_KNOWN + 4 * giver + to] |= bit
    return state


@hot
def reveal_to(st: np.ndarray, cards: np.int64, owner: np.int64, n: np.int64) -> None:
    """Everyone saw ``cards`` go to ``owner``."""
    for i in range(n):
        for j in range(n):
            st[S_KNOWN + 4 * i + j] &= ~cards
        st[S_KNOWN + 4 * i + owner] |= cards


@hot
def empty_seat(st: np.ndarray, first: np.int64, n: np.int64) -> np.int64:
    for j in range(n):
        s = (first + j) % n
        if st[S_HAND + s] == 0:
            return s
    return -1


@hot
def resolve(st: np.ndarray, state: np.uint64, pol: np.ndarray, kv: np.ndarray, p: np.int64,
            cards: np.int64, claim: np.int64, caller: np.int64, verdict: np.int64
            ) -> np.uint64:
    """After ``p`` played ``cards`` (already out of his hand) claiming ``claim``: no call
    (``caller`` -1), or ``caller``'s verdict; the cards and gifts move, the winner is set,
    the turn passes to ``p``'s left."""
    n = kv[KV_N]
    truth = claim_true(cards, claim, kv[KV_SAME_SUIT])
    if caller < 0:
        st[S_DEAD] |= cards
        for i in range(n):
            st[S_KNOWN + 4 * i + p] = 0  # he may have played any of them, unseen
        if st[S_HAND + p] == 0:
            st[S_WINNER] = p
        st[S_TURN] = (p + 1) % n
        return state
    st[S_CHALLENGES] += 1
    st[S_CALLS_S + caller] += 1
    if verdict == V_VRAI:
        st[S_VRAI] += 1
    else:
        st[S_FAUX] += 1
    if truth:
        st[S_TRUE_VRAI] += 1
    right = (verdict == V_VRAI) == truth
    if right:
        st[S_RIGHT] += 1
        if not truth:
            st[S_LIES_CAUGHT] += 1
        if truth and kv[KV_PROTECTED] != 0:
            # protected honesty: the cards stay out, the challenger takes one from him
            st[S_DEAD] |= cards
            for i in range(n):
                st[S_KNOWN + 4 * i + p] = 0
            state = give(st, state, pol, p, caller, n)
        else:
            if truth:
                st[S_HONEST_PUNISHED] += 1
            st[S_HAND + p] |= cards
            reveal_to(st, cards, p, n)
            state = give(st, state, pol, caller, p, n)
    else:
        st[S_N_WRONG] += 1
        before = popcount(st[S_HAND + caller])
        st[S_HAND + caller] |= cards
        reveal_to(st, cards, caller, n)
        for j in range(1, n):
            state = give(st, state, pol, (caller + j) % n, caller, n)
        st[S_WRONG_COST] += popcount(st[S_HAND + caller]) - before
    st[S_WINNER] = empty_seat(st, p, n)
    st[S_TURN] = (p + 1) % n
    return state




@hot
def play_turn(st: np.ndarray, state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray,
              kv: np.ndarray, prof: np.ndarray) -> np.uint64:
    """One play by the seat to move and its challenge window."""
    n = kv[KV_N]
    p = st[S_TURN]
    state, cards, claim = choose_play(pol[p], state, st[S_HAND + p], seat_kv[p], prof[p])
    k = popcount(cards)
    st[S_HAND + p] &= ~cards
    st[S_PLAYS] += 1
    st[S_CARDS_PLAYED] += k
    truth = claim_true(cards, claim, kv[KV_SAME_SUIT])
    st[S_LIES] += not truth
    caller = -1
    verdict = V_NONE
    if kv[KV_RANDOM_CALLER] != 0:  # every would-be caller speaks, one at random wins
        n_callers = 0
        for j in range(1, n):
            q = (p + j) % n
            state, v = choose_call(pol[q], state, st, q, p, claim, k, kv, seat_kv[q], prof[q])
            if v != V_NONE:
                n_callers += 1
                state, u = uniform(state)
                if u * n_callers < 1.0:  # reservoir: each caller equally likely
                    caller = q
                    verdict = v
    else:
        for j in range(1, n):
            q = (p + j) % n
            state, v = choose_call(pol[q], state, st, q, p, claim, k, kv, seat_kv[q], prof[q])
            if v != V_NONE:
                caller = q
                verdict = v
                break
    return resolve(st, state, pol, kv, p, cards, claim, caller, verdict)


@hot
def play_out(st: np.ndarray, state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray,
             kv: np.ndarray, prof: np.ndarray) -> np.uint64:
    n = kv[KV_N]
    while st[S_WINNER] < 0 and st[S_PLAYS] < kv[KV_CAP]:
        state = play_turn(st, state, pol, seat_kv, kv, prof)
    if st[S_WINNER] < 0:
        st[S_CAPPED] = 1
        best = N_CARDS + 1
        who = -1
        for s in range(n):
            c = popcount(st[S_HAND + s])
            if c < best:
                best = c
                who = s
            elif c == best:
                who = -1
        st[S_WINNER] = who
    return state


@hot
def set_profiles(state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray, n: np.int64,
                 prof: np.ndarray, mix: np.ndarray, weights: np.ndarray) -> np.uint64:
    """Each seat's (lie, faux, vrai) for this deal: its knobs, or for ``adaptive`` a
    profile drawn from the stored mixed strategy."""
    for s in range(n):
        if pol[s] == ADAPTIVE:
            state, u = uniform(state)
            acc = 0.0
            pick = weights.shape[0] - 1
            for i in range(weights.shape[0]):
                acc += weights[i]
                if u < acc:
                    pick = i
                    break
            prof[s, PR_LIE] = mix[pick, 0]
            prof[s, PR_FAUX] = mix[pick, 1]
            prof[s, PR_VRAI] = mix[pick, 2]
        else:
            prof[s, PR_LIE] = seat_kv[s, KV_LIE]
            prof[s, PR_FAUX] = seat_kv[s, KV_FAUX]
            prof[s, PR_VRAI] = seat_kv[s, KV_VRAI]
    return state


@hot
def new_deal(st: np.ndarray, seed: np.uint64, index: np.int64, sub: np.int64,
             dealer: np.int64, n: np.int64, order: np.ndarray) -> None:
    for i in range(N_ST):
        st[i] = 0
    for c in range(N_CARDS):
        order[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), order, N_CARDS)
    for i in range(N_CARDS):
        s = (dealer + 1 + i) % n
        st[S_HAND + s] |= ONE << order[i]
    st[S_TURN] = (dealer + 1) % n
    st[S_WINNER] = -1


@hot
def play_deal(seed: np.uint64, index: np.int64, sub: np.int64, dealer: np.int64,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, st: np.ndarray,
              order: np.ndarray, prof: np.ndarray, mix: np.ndarray, weights: np.ndarray
              ) -> None:
    n = kv[KV_N]
    new_deal(st, seed, index, sub, dealer, n, order)
    state = rng.stream(seed, index, sub, rng.POLICY)
    state = set_profiles(state, pol, seat_kv, n, prof, mix, weights)
    play_out(st, state, pol, seat_kv, kv, prof)


@hot
def fill_row(st: np.ndarray, row: np.ndarray, dealer: np.int64, n: np.int64) -> None:
    row[1] = dealer
    for s in range(n):
        row[2 + s] = -popcount(st[S_HAND + s])
    j = 2 + n
    for v in (st[S_WINNER], st[S_PLAYS], st[S_CHALLENGES], st[S_VRAI], st[S_FAUX],
              st[S_RIGHT], st[S_LIES], st[S_LIES_CAUGHT], st[S_HONEST_PUNISHED],
              st[S_TRUE_VRAI], st[S_CARDS_PLAYED], st[S_CAPPED], st[S_WRONG_COST],
              st[S_N_WRONG]):
        row[j] = v
        j += 1
    for s in range(n):
        row[j + s] = st[S_CALLS_S + s]


def n_deal_cols(n: int) -> int:
    return 2 + n + 14 + n


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, mix: np.ndarray, weights: np.ndarray,
                 n_cols: int, record: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = kv[KV_N]
    out = np.zeros((n_cols, count), dtype=np.int64).T
    k = count if record else 0
    dealt = np.full((k, n, 18), -1, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    prof = np.zeros((MAX_PLAYERS, 3), dtype=np.int64)
    for i in range(count):
        d = start + i
        dealer = d % n
        out[i, 0] = d
        if record:
            new_deal(st, seed, d, 0, dealer, n, order)
            for s in range(n):
                j = 0
                for c in range(N_CARDS):
                    if (st[S_HAND + s] >> c) & 1 == 1:
                        dealt[i, s, j] = c
                        j += 1
        play_deal(seed, d, 0, dealer, pol, seat_kv, kv, st, order, prof, mix, weights)
        fill_row(st, out[i], dealer, n)
    return out, dealt, dealt


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray, mix: np.ndarray,
                   weights: np.ndarray) -> np.ndarray:
    n = kv[KV_N]
    out = np.zeros((4 + n, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    prof = np.zeros((MAX_PLAYERS, 3), dtype=np.int64)
    for i in range(count):
        m = start + i
        o = out[i]
        o[0] = m
        o[3 + n] = m % n
        for g in range(kv[KV_MATCH]):
            play_deal(seed, m, g, (m + g) % n, pol, seat_kv, kv, st, order, prof, mix,
                      weights)
            if st[S_WINNER] >= 0:
                o[3 + st[S_WINNER]] += 1
        o[2] = kv[KV_MATCH]
        best = -1
        who = -1
        for s in range(n):
            if o[3 + s] > best:
                best = o[3 + s]
                who = s
            elif o[3 + s] == best:
                who = -1
        o[1] = who
    return out


# --- entry points ----------------------------------------------------------------------
def _setup(knobs: FlairKnobs, policies: tuple[str, ...]) -> tuple:
    return (policy_codes(policies, knobs.players), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs), MIX_PROFILES, MIX_WEIGHTS)


def run_deals(knobs: FlairKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv, mix, w = _setup(knobs, policies)
    rows, dealt, _ = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, mix, w,
                                  n_deal_cols(knobs.players), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt.copy())


def run_matches(knobs: FlairKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv, mix, w = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, mix, w))


def play_one_turn(knobs: FlairKnobs, policies: tuple[str, ...], hands: list[int], turn: int,
                  seed: int = 0) -> np.ndarray:
    """A hand-built position (tests, the book's examples): one play by ``turn`` and its
    challenge window; returns the state after it (``rules.S_*``)."""
    pol, seat_kv, kv, mix, w = _setup(knobs, policies)
    st = np.zeros(N_ST, dtype=np.int64)
    for s, h in enumerate(hands):
        st[S_HAND + s] = h
    st[S_TURN] = turn
    st[S_WINNER] = -1
    prof = np.zeros((MAX_PLAYERS, 3), dtype=np.int64)
    state = rng.stream(np.uint64(seed), 0, 0, rng.POLICY)
    state = set_profiles(state, pol, seat_kv, knobs.players, prof, mix, w)
    play_turn(st, state, pol, seat_kv, kv, prof)
    return st


def resolve_position(knobs: FlairKnobs, hands: list[int], player: int, cards: int,
                     claim: int, caller: int, verdict: int,
                     policies: tuple[str, ...] | None = None, seed: int = 0) -> np.ndarray:
    """A hand-built play (the book's examples): ``player`` (holding ``hands[player]``,
    ``cards`` among them) plays ``cards`` claiming ``claim``; ``caller`` (-1: nobody)
    says ``verdict``; the state after it (``rules.S_*``); gifts are the players'
    choices (heuristic by default)."""
    pols = policies or ("heuristic",) * knobs.players
    pol, seat_kv, kv, mix, w = _setup(knobs, pols)
    st = np.zeros(N_ST, dtype=np.int64)
    for s, h in enumerate(hands):
        st[S_HAND + s] = h
    st[S_HAND + player] &= ~np.int64(cards)
    st[S_WINNER] = -1
    resolve(st, rng.stream(np.uint64(seed), 0, 0, rng.POLICY), pol, kv, player,
            np.int64(cards), claim, caller, verdict)
    return st
