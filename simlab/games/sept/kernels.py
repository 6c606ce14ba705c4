"""Sept batch kernels: deal after deal (or match after match), each deal a loop of the
players' moves applied with ``rules.apply_move`` until it is over. The runner's entry
points ``run_deals`` and ``run_matches`` are at the end."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, RANDOM, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import seat_vectors
from simlab.games.sept.players import heuristic_move, random_move, search_move, search_work
from simlab.games.sept.rules import (
    C_DEAL,
    C_DEALER,
    C_LEADER_WON,
    C_SCORE,
    C_WINNER,
    DR_ALTERNATE,
    DR_LOSER,
    K_DEALER_RULE,
    K_HAND,
    K_MAX_DEALS,
    K_TARGET,
    M_CAPPED,
    M_FINAL,
    M_FIRST,
    M_FIRST_DEAL_WINNER_WON,
    M_LEADER_WINS,
    M_MATCH,
    M_N_DEALS,
    M_N_TIES,
    M_REPEAT_CHANCES,
    M_REPEATS,
    M_SECOND_REPEAT,
    M_WINNER,
    MAX_HAND,
    N_CARDS,
    N_DEAL_COLS,
    N_MATCH_COLS,
    N_STATE,
    P_DONE,
    S_PHASE,
    S_TO_MOVE,
    SeptKnobs,
    _vector,
    apply_move,
    deal,
    write_row,
)


@hot
def play_deal(state: np.ndarray, deck: np.ndarray, dealer: int, pol: np.ndarray,
              seat_kv: np.ndarray, kv: np.ndarray, st: np.uint64, seed: np.uint64, index: int, sub: int,
              row: np.ndarray, dealt: np.ndarray, world: np.ndarray, work: tuple
              ) -> np.uint64:
    """One deal from a shuffled ``deck`` (top card first) with the players ``pol``: fills
    ``row`` (deal columns from C_SCORE on) and ``dealt`` [2, hand] (card ids in dealing
    order). ``st`` is the deal's policy stream (the random player's), (seed, index, sub)
    key the search player's own streams. Returns the policy stream."""
    deal(state, deck, dealer, kv, dealt)
    moves = work[0]
    while state[S_PHASE] != P_DONE:
        code = pol[state[S_TO_MOVE]]
        if code == HEURISTIC:
            m = heuristic_move(state, seat_kv[state[S_TO_MOVE]])
        elif code == RANDOM:
            st, m = random_move(state, kv, st, moves)
        else:
            m = search_move(state, seat_kv[state[S_TO_MOVE]], seed, index, sub, world, work)
        apply_move(state, m, kv)
    write_row(state, kv, row)
    return st


@hot
def shuffled(seed: np.uint64, index: int, sub: int, deck: np.ndarray) -> None:
    """§4 "Le donneur mélange le jeu et l'autre joueur le coupe": a uniform shuffle from
    the deal's own stream (a cut of a uniform pack is still uniform)."""
    for c in range(N_CARDS):
        deck[c] = c
    rng.shuffle(rng.stream(seed, index, sub, rng.SHUFFLE), deck, N_CARDS)


@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray,
                 record: bool) -> tuple[np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, kv[K_HAND]), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    for i in range(count):
        d = start + i
        shuffled(seed, d, 0, deck)
        dealer = d % 2
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(state, deck, dealer, pol, seat_kv, kv, rng.stream(seed, d, 0, rng.POLICY), seed, d, 0,
                  out[i], dealt[j], world, work)
    return out, dealt


@hot
def next_dealer(dealer: int, winner: int, rule: int) -> int:
    """§4 "après la première donne, ce sera celui qui a perdu la donne précédente" (knob
    ``dealer_rule``: the loser, the winner, or in turn). After a tie (only with an even
    deal total) nobody lost: the same dealer deals again, except in turn."""
    if rule == DR_ALTERNATE:
        return 1 - dealer
    if winner < 0:
        return dealer
    return 1 - winner if rule == DR_LOSER else winner


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                   seat_kv: np.ndarray, kv: np.ndarray) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((2, MAX_HAND), dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    world = np.zeros(N_STATE, dtype=np.int64)
    work = search_work()
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        # §4 "Au départ, le donneur est déterminé d'une manière quelconque" (ambiguity 4:
        # at random)
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 2)
        dealer = first
        score0 = 0
        score1 = 0
        n_deals = 0
        n_ties = 0
        repeats = 0
        chances = 0
        leader_wins = 0
        prev = -1
        first_winner = -1
        second_repeat = -1
        winner = -1
        while n_deals < kv[K_MAX_DEALS]:
            n_deals += 1
            shuffled(seed, m, n_deals, deck)
            for j in range(N_DEAL_COLS):
                row[j] = 0
            play_deal(state, deck, dealer, pol, seat_kv, kv, rng.stream(seed, m, n_deals, rng.POLICY),
                      seed, m, n_deals, row, dealt, world, work)
            score0 += row[C_SCORE]
            score1 += row[C_SCORE + 1]
            w = row[C_WINNER]
            if w < 0:
                n_ties += 1
            else:
                leader_wins += row[C_LEADER_WON]
                if prev >= 0:
                    chances += 1
                    repeats += w == prev
            if n_deals == 1:
                first_winner = w
            elif n_deals == 2 and first_winner >= 0 and w >= 0:
                second_repeat = 1 if w == first_winner else 0
            prev = w
            dealer = next_dealer(dealer, w, kv[K_DEALER_RULE])
            # §6 "Le gagnant est le premier joueur à atteindre 10 points"; only the deal's
            # winner marks, so at most one player reaches the target
            if score0 >= target or score1 >= target:
                winner = 0 if score0 >= target else 1
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        out[i, M_FINAL] = score0
        out[i, M_FINAL + 1] = score1
        out[i, M_N_TIES] = n_ties
        out[i, M_REPEATS] = repeats
        out[i, M_REPEAT_CHANCES] = chances
        out[i, M_SECOND_REPEAT] = second_repeat
        out[i, M_FIRST_DEAL_WINNER_WON] = winner >= 0 and winner == first_winner
        out[i, M_LEADER_WINS] = leader_wins
        out[i, M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def run_deals(knobs: SeptKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    rows, dealt = deals_kernel(np.uint64(seed), start, count, policy_codes(policies),
                               seat_vectors(knobs, policies, _vector),
                               _vector(knobs), record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt)  # no exchange: play starts with them


def run_matches(knobs: SeptKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, policy_codes(policies),
                                       seat_vectors(knobs, policies, _vector),
                                       _vector(knobs)))
