"""Adrénaline: the batch kernels and the runner's entry points.

Deal ``d`` shuffles with the stream (seed, d, 0, SHUFFLE) and its players draw from
(seed, d, 0, POLICY); deal ``g`` of match ``m`` uses (seed, m, g, ·), so results never
depend on how a run is split into jobs. The dealer of deal ``d`` is ``d mod 2``; the
other seat draws first (catalogue #7); in a match the first dealer is ``m mod 2`` and the
deal alternates.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import KernelOutput
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.adrenaline.players import (
    BAYES,
    announces,
    choose_discard,
    choose_objective,
    policy_codes,
    prior,
    stop_decision,
    update,
)
from simlab.games.adrenaline.rules import (
    C_BLUFFS,
    C_CONF,
    C_DEAL,
    C_DEALER,
    C_DEALT_OK,
    C_DRAWS,
    C_END,
    C_ENDER,
    C_FIRST,
    C_OBJ,
    C_SCORE,
    C_T,
    C_WINNER,
    E_EXHAUSTED,
    E_FINISH,
    E_STOP_RIGHT,
    E_STOP_WRONG,
    HAND,
    KV_FINISH,
    KV_MATCH,
    KV_NOBJ,
    KV_STOP,
    M_FINAL,
    M_FINISHES,
    M_FIRST,
    M_MATCH,
    M_N_DEALS,
    M_STOPS,
    M_WINNER,
    MAX_OBJ,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_ST,
    S_BLUFFS,
    S_CONF,
    S_DEAD,
    S_DEAL_HAND,
    S_DECOY,
    S_DRAWS,
    S_END,
    S_ENDER,
    S_HAND,
    S_HELD,
    S_OBJ,
    S_SCORE,
    S_T,
    S_TALON,
    S_TURN,
    AdrenalineKnobs,
    completing_discard,
    knob_vector,
    satisfied,
)

ONE = np.int64(1)


@hot
def talon_of(order: np.ndarray, pos: np.int64) -> np.int64:
    m = np.int64(0)
    for i in range(pos, N_CARDS):
        m |= ONE << order[i]
    return m


@hot
def choose_objectives(st: np.ndarray, state: np.uint64, pol: np.ndarray, seat_kv: np.ndarray,
                      kv: np.ndarray, order: np.ndarray, post: np.ndarray, est: np.ndarray
                      ) -> np.uint64:
    """Both seats write their objectives (the heuristic also draws its decoy); a Bayesian
    seat sets its prior on the other's."""
    talon = talon_of(order, st[S_TALON])
    n_obj = kv[KV_NOBJ]
    for s in range(2):
        state, o = choose_objective(pol[s], state, st[S_HAND + s], talon, seat_kv[s], est)
        st[S_OBJ + s] = o
        state, j = rng.below(state, n_obj - 1)
        st[S_DECOY + s] = j if j < o else j + 1
    for s in range(2):
        if pol[s] == BAYES:
            prior(post[s], st[S_HAND + 1 - s], talon, kv, seat_kv[s], est)
    return state


@hot
def play_out(st: np.ndarray, state: np.uint64, order: np.ndarray, pol: np.ndarray,
             seat_kv: np.ndarray, kv: np.ndarray, post: np.ndarray, est: np.ndarray,
             work: np.ndarray, lik: np.ndarray, vals: np.ndarray, vals2: np.ndarray
             ) -> np.uint64:
    """Play the position in ``st`` (hands, objectives, the talon ``order[st[S_TALON]:]``,
    the mover) to its end."""
    fin = kv[KV_FINISH]
    stake = kv[KV_STOP]
    while st[S_TALON] < N_CARDS:
        mover = st[S_TURN]
        other = 1 - mover
        pos = st[S_TALON]
        t = N_CARDS - pos
        state, guess, conf = stop_decision(pol[other], state, st[S_HAND + other],
                                           st[S_OBJ + other], st[S_HAND + mover], order, pos,
                                           kv, seat_kv[other], post[other], work, lik, vals)
        if guess >= 0:
            right = guess == st[S_OBJ + mover]
            st[S_END] = E_STOP_RIGHT if right else E_STOP_WRONG
            st[S_ENDER] = other
            st[S_T] = t
            st[S_SCORE + other] = stake + t if right else -(stake + t)
            st[S_CONF] = np.int64(conf * 1_000_000)
            return state
        card = order[pos]
        st[S_TALON] = pos + 1
        st[S_DRAWS] += 1
        t -= 1
        six = st[S_HAND + mover] | (ONE << card)
        talon = talon_of(order, pos + 1)
        done = completing_discard(st[S_OBJ + mover], six)
        if done >= 0:
            if announces(pol[mover], seat_kv[mover], t):
                st[S_HAND + mover] = six & ~(ONE << done)
                st[S_DEAD] |= ONE << done
                st[S_END] = E_FINISH
                st[S_ENDER] = mover
                st[S_T] = t
                st[S_SCORE + mover] = fin - t
                return state
            st[S_HELD + mover] += 1
            discard = done
        else:
            state, discard, bluff = choose_discard(pol[mover], state, st[S_OBJ + mover],
                                                   st[S_DECOY + mover], six, talon,
                                                   seat_kv[mover], vals, vals2)
            st[S_BLUFFS + mover] += bluff
        if pol[other] == BAYES:
            update(post[other], six, talon, discard, kv, seat_kv[other], lik, vals)
        st[S_HAND + mover] = six & ~(ONE << discard)
        st[S_DEAD] |= ONE << discard
        st[S_TURN] = other
    st[S_END] = E_EXHAUSTED
    st[S_ENDER] = -1
    st[S_T] = 0
    return state


@hot
def new_deal(st: np.ndarray, seed: np.uint64, index: np.int64, sub: np.int64,
             dealer: np.int64, order: np.ndarray) -> None:
    """Shuffle and deal 5 cards each, one at a time from the non-dealer; the rest is the
    talon, drawn from ``order[10]`` on."""
    for i in range(N_ST):
        st[i] = 0
    for c in range(N_CARDS):
        order[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), order, N_CARDS)
    first = 1 - dealer
    for i in range(2 * HAND):
        s = first if i % 2 == 0 else dealer
        st[S_HAND + s] |= ONE << order[i]
    st[S_DEAL_HAND] = st[S_HAND]
    st[S_DEAL_HAND + 1] = st[S_HAND + 1]
    st[S_TALON] = 2 * HAND
    st[S_TURN] = first
    st[S_END] = -1
    st[S_ENDER] = -1
    st[S_CONF] = -1_000_000


@hot
def play_deal(seed: np.uint64, index: np.int64, sub: np.int64, dealer: np.int64,
              pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, st: np.ndarray,
              order: np.ndarray, post: np.ndarray, est: np.ndarray, work: np.ndarray,
              lik: np.ndarray, vals: np.ndarray, vals2: np.ndarray) -> None:
    new_deal(st, seed, index, sub, dealer, order)
    state = rng.stream(seed, index, sub, rng.POLICY)
    state = choose_objectives(st, state, pol, seat_kv, kv, order, post, est)
    play_out(st, state, order, pol, seat_kv, kv, post, est, work, lik, vals, vals2)


@hot
def fill_row(st: np.ndarray, row: np.ndarray, dealer: np.int64) -> None:
    row[C_DEALER] = dealer
    row[C_FIRST] = 1 - dealer
    row[C_SCORE] = st[S_SCORE]
    row[C_SCORE + 1] = st[S_SCORE + 1]
    if st[S_SCORE] > st[S_SCORE + 1]:
        row[C_WINNER] = 0
    elif st[S_SCORE + 1] > st[S_SCORE]:
        row[C_WINNER] = 1
    else:
        row[C_WINNER] = -1
    row[C_END] = st[S_END]
    row[C_ENDER] = st[S_ENDER]
    row[C_T] = st[S_T]
    row[C_CONF] = st[S_CONF] if st[S_END] == E_STOP_RIGHT or st[S_END] == E_STOP_WRONG else -1
    row[C_DRAWS] = st[S_DRAWS]
    for s in range(2):
        row[C_OBJ + s] = st[S_OBJ + s]
        row[C_BLUFFS + s] = st[S_BLUFFS + s]
        row[C_DEALT_OK + s] = satisfied(st[S_OBJ + s], st[S_DEAL_HAND + s])


@hot
def mask_cards(m: np.int64, out: np.ndarray) -> None:
    j = 0
    for c in range(N_CARDS):
        if (m >> c) & 1 == 1 and j < out.shape[0]:
            out[j] = c
            j += 1


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                 seat_kv: np.ndarray, kv: np.ndarray, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    k = count if record else 0
    dealt = np.full((k, 2, HAND), -1, dtype=np.int64)
    hands = np.full((k, 2, HAND), -1, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    post = np.zeros((2, MAX_OBJ), dtype=np.float64)
    est = np.zeros(MAX_OBJ, dtype=np.float64)
    work = np.zeros(MAX_OBJ, dtype=np.float64)
    lik = np.zeros((MAX_OBJ, HAND + 1), dtype=np.float64)
    vals = np.zeros(HAND + 1, dtype=np.float64)
    vals2 = np.zeros(HAND + 1, dtype=np.float64)
    for i in range(count):
        d = start + i
        dealer = d % 2
        out[i, C_DEAL] = d
        play_deal(seed, d, 0, dealer, pol, seat_kv, kv, st, order, post, est, work, lik,
                  vals, vals2)
        fill_row(st, out[i], dealer)
        if record:
            for s in range(2):
                mask_cards(st[S_DEAL_HAND + s], dealt[i, s])
                mask_cards(st[S_HAND + s], hands[i, s])
    return out, dealt, hands


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    post = np.zeros((2, MAX_OBJ), dtype=np.float64)
    est = np.zeros(MAX_OBJ, dtype=np.float64)
    work = np.zeros(MAX_OBJ, dtype=np.float64)
    lik = np.zeros((MAX_OBJ, HAND + 1), dtype=np.float64)
    vals = np.zeros(HAND + 1, dtype=np.float64)
    vals2 = np.zeros(HAND + 1, dtype=np.float64)
    for i in range(count):
        m = start + i
        o = out[i]
        o[M_MATCH] = m
        o[M_FIRST] = m % 2
        for g in range(kv[KV_MATCH]):
            dealer = (m + g) % 2
            play_deal(seed, m, g, dealer, pol, seat_kv, kv, st, order, post, est, work, lik,
                      vals, vals2)
            o[M_FINAL] += st[S_SCORE]
            o[M_FINAL + 1] += st[S_SCORE + 1]
            if st[S_END] == E_FINISH:
                o[M_FINISHES] += 1
            elif st[S_END] != E_EXHAUSTED:
                o[M_STOPS] += 1
        o[M_N_DEALS] = kv[KV_MATCH]
        if o[M_FINAL] > o[M_FINAL + 1]:
            o[M_WINNER] = 0
        elif o[M_FINAL + 1] > o[M_FINAL]:
            o[M_WINNER] = 1
        else:
            o[M_WINNER] = -1
    return out


# --- entry points ----------------------------------------------------------------------
def _setup(knobs: AdrenalineKnobs, policies: tuple[str, ...]) -> tuple:
    return (policy_codes(policies), seat_vectors(knobs, policies, knob_vector),
            knob_vector(knobs))


def run_deals(knobs: AdrenalineKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: AdrenalineKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, seat_kv, kv = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv))


def play_position(knobs: AdrenalineKnobs, policies: tuple[str, ...], hands: tuple[int, int],
                  objectives: tuple[int, int], talon: list[int], mover: int, seed: int = 0,
                  posteriors: np.ndarray | None = None) -> np.ndarray:
    """Play a hand-built position to its end (tests, the book's examples): ``talon`` in
    drawing order; returns the final state (``rules.S_*``)."""
    pol, seat_kv, kv = _setup(knobs, policies)
    st = np.zeros(N_ST, dtype=np.int64)
    order = np.zeros(N_CARDS, dtype=np.int64)
    used = set(talon)
    rest = [c for c in range(N_CARDS) if c not in used]
    order[:] = rest + list(talon)
    st[S_TALON] = N_CARDS - len(talon)
    for s in range(2):
        st[S_HAND + s] = hands[s]
        st[S_DEAL_HAND + s] = hands[s]
        st[S_OBJ + s] = objectives[s]
        st[S_DECOY + s] = (objectives[s] + 1) % kv[KV_NOBJ]
    st[S_TURN] = mover
    st[S_END] = -1
    st[S_ENDER] = -1
    post = (np.full((2, MAX_OBJ), 1.0 / kv[KV_NOBJ]) if posteriors is None
            else np.ascontiguousarray(posteriors, dtype=np.float64))
    est = np.zeros(MAX_OBJ)
    work = np.zeros(MAX_OBJ)
    lik = np.zeros((MAX_OBJ, HAND + 1))
    vals = np.zeros(HAND + 1)
    vals2 = np.zeros(HAND + 1)
    play_out(st, rng.stream(np.uint64(seed), 0, 0, rng.POLICY), order, pol, seat_kv, kv,
             post, est, work, lik, vals, vals2)
    return st

