"""Tarot 4 saisons batch kernels: deals and matches, each deal dealt with its faults
(``deal_faults``: ``rules.draw_faults`` / ``rules.start_deal_faults``) and played move by
move with ``rules.apply_move`` and the seats' policies (``players.py``), and the runner's
entry points (``run_deals``, ``run_matches``)."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.tarot_4_saisons.players import (
    heuristic_move,
    random_move,
    search_move,
    search_work,
)
from simlab.games.tarot_4_saisons.rules import (
    ABOVE,
    C_ANNULLED,
    C_DEAL,
    C_DEALER,
    C_MADE,
    C_SCORE,
    C_TAKER,
    CHEAP,
    EXCUSE_MASK,
    FAULT,
    HAND,
    K_MAX_DEALS,
    K_PUSH,
    K_TARGET,
    M_PLAYED,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    NP,
    PH_END,
    POINTS,
    RICH,
    S_PHASE,
    S_ROW,
    STRENGTH,
    SUIT_MASK,
    SUIT_OF,
    WIN_RANK,
    Tarot4SaisonsKnobs,
    _rules,
    _vector,
    apply_carry,
    apply_move,
    deal_order,
    draw_faults,
    finish_line,
    start_deal_faults,
    state_arrays,
    to_move,
)
from simlab.mechanics.tricks import cards_of


@hot
def _fresh_deck(deck: np.ndarray) -> None:
    for i in range(N_CARDS):
        deck[i] = i


@hot
def deal_faults(st: np.ndarray, cs: np.ndarray, deck: np.ndarray, dealer: int,
                order: np.ndarray, kv: np.ndarray, dealt: np.ndarray, seed: np.uint64,
                index: int, sub: int) -> None:
    """Deal (``rules.start_deal_faults``) with the faults drawn from the deal's own fault
    stream (``rules.draw_faults``; purpose ``FAULT``: shuffles and decisions unchanged)."""
    misdeal, fault_seat, fault_trick, chien = draw_faults(
        rng.stream(seed, index, sub, FAULT), dealer, kv)
    start_deal_faults(st, cs, deck, dealer, order, kv, dealt, misdeal, fault_seat,
                      fault_trick, chien)


@hot
def play_deal(st: np.ndarray, cs: np.ndarray, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
              rules: np.ndarray, seed: np.uint64, index: int, sub: int,
              state: np.uint64, moves: np.ndarray, wst: np.ndarray, wcs: np.ndarray,
              sw: tuple) -> np.uint64:
    """Play a dealt deal (``start_deal``) to its end: each seat's policy chooses its moves
    (random ones from the policy stream ``state``, which is returned)."""
    while st[S_PHASE] != PH_END:
        seat = to_move(st)
        code = pol[seat]
        if code == HEURISTIC:
            move = heuristic_move(st, cs, seat_kv[seat], rules)
        elif code == RANDOM:
            state, move = random_move(st, cs, state, moves, kv, rules)
        else:
            move = search_move(st, cs, seed, index, sub, seat_kv[seat], rules, wst, wcs, sw)
        apply_move(st, cs, move, kv)
    return state


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, order: np.ndarray, record: bool,
                 st: np.ndarray, cs: np.ndarray, wst: np.ndarray, wcs: np.ndarray, sw: tuple
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, NP, HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, NP, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    moves = np.zeros(64, dtype=np.int64)
    for i in range(count):
        d = start + i
        _fresh_deck(deck)
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        j = i if record else 0
        deal_faults(st, cs, deck, d % NP, order, kv, dealt[j], seed, d, 0)
        play_deal(st, cs, pol, seat_kv, kv, rules, seed, d, 0, rng.stream(seed, d, 0, rng.POLICY),
                  moves, wst, wcs, sw)
        for c in range(N_DEAL_COLS):
            out[i, c] = st[S_ROW + c]
        out[i, C_DEAL] = d
        out[i, C_DEALER] = d % NP
        if record and out[i, C_TAKER] >= 0:
            for p in range(NP):
                cards_of(cs[M_PLAYED + p], hands_out[j, p])
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, order: np.ndarray, st: np.ndarray,
                   cs: np.ndarray, wst: np.ndarray, wcs: np.ndarray, sw: tuple) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    dealt = np.empty((NP, HAND), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    moves = np.zeros(64, dtype=np.int64)
    totals = np.zeros(NP, dtype=np.int64)
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), NP)
        dealer = first
        totals[:] = 0
        bar = kv[K_TARGET]
        moves_bar = 0
        carry = 0
        annulled = 0
        all_pass = 0
        taken = 0
        made = 0
        winner = -1
        j = 0
        while j < kv[K_MAX_DEALS]:
            _fresh_deck(deck)
            rng.shuffle(rng.stream(seed, m, j + 1, rng.SHUFFLE), deck, N_CARDS)
            deal_faults(st, cs, deck, dealer, order, kv, dealt, seed, m, j + 1)
            play_deal(st, cs, pol, seat_kv, kv, rules, seed, m, j + 1,
                      rng.stream(seed, m, j + 1, rng.POLICY), moves, wst, wcs, sw)
            j += 1
            for p in range(NP):
                totals[p] += st[S_ROW + C_SCORE + p]
            if st[S_ROW + C_ANNULLED]:
                annulled += 1  # the same dealer redeals; a pending carry waits
            else:
                taker = st[S_ROW + C_TAKER]
                if taker < 0:
                    all_pass += 1
                else:
                    taken += 1
                    made += st[S_ROW + C_MADE]
                carry = apply_carry(taker, st[S_ROW + C_MADE] == 1, carry, totals, kv)
                dealer = (dealer + 1) % NP
            winner, bar, mv = finish_line(totals, bar, kv[K_PUSH])
            moves_bar += mv
            if winner >= 0:
                break
        out[i, 0] = m
        out[i, 1] = first
        out[i, 2] = winner
        out[i, 3] = j
        for p in range(NP):
            out[i, 4 + p] = totals[p]
        out[i, 7] = bar
        out[i, 8] = moves_bar
        out[i, 9] = annulled
        out[i, 10] = all_pass
        out[i, 11] = taken
        out[i, 12] = made
        out[i, 13] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def _tables() -> tuple:
    """The card tables (suit_of, suit_mask, excuse_mask, strength, points, above, cheap,
    rich, win_rank); the kernels read them as module constants of ``rules.py``."""
    return SUIT_OF, SUIT_MASK, EXCUSE_MASK, STRENGTH, POINTS, ABOVE, CHEAP, RICH, WIN_RANK


def _args(knobs: Tarot4SaisonsKnobs) -> tuple:
    """Kernel arguments: knob vector, play rules, deal order, a deal's state arrays
    (st, cs), a world's (wst, wcs) and the search work arrays."""
    st, cs = state_arrays()
    wst, wcs = state_arrays()
    return (_vector(knobs), _rules(knobs), deal_order(knobs.chien_after_round), st, cs, wst, wcs,
            search_work())


def run_deals(knobs: Tarot4SaisonsKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    kv, rules, order, st, cs, wst, wcs, sw = _args(knobs)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                      seat_vectors(knobs, policies, _vector), kv, rules,
                                      order, record_hands, st, cs, wst, wcs, sw)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: Tarot4SaisonsKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    kv, rules, order, st, cs, wst, wcs, sw = _args(knobs)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector), kv, rules,
                                       order, st, cs, wst, wcs, sw))
