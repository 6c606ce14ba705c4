"""The exact solver of Belote de comptoir at small k (``exact.py``): its full-information
play pinned by a hand-built position and by a plain recursive minimax, its deals of the
hidden cards by exact counts and by brute force, its values by the k = 1 case
(play forced) — then the search player and the heuristic judged against it on many
small-k contract and card decisions, and the search's bid ceiling against the exact one."""

from __future__ import annotations

import itertools
import math

import numpy as np

from simlab.games import belote_comptoir as G
from simlab.games.belote_comptoir import exact as X
from simlab.games.belote_comptoir import players as P
from simlab.games.belote_comptoir import rules as R
from tests.test_belote_comptoir import HEARTS, card, play, position


def env_of(**knobs):
    k = G.ComptoirKnobs(**knobs)
    return k, G._vector(k), G._rules(k), G.kernel_tables(k)


def dealt_state(env, seed: int) -> np.ndarray:
    """The deal ``judge_deals`` plays for ``seed``."""
    k, kv, _, _ = env
    deck = np.random.default_rng(seed).permutation(32).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, seed % k.players, kv, np.zeros((k.players, k.k), dtype=np.int64))
    return state


def scratch():
    return (np.zeros((X.MAX_PLIES, R.N_STATE), dtype=np.int64),
            np.zeros(X.MAX_PLIES, dtype=np.uint64), np.zeros(X.MAX_PLIES, dtype=np.int64))


def test_hand_built_position_solved_by_hand():
    """Seat 0 bids 25 at hearts with J♥ 7♠ against A♠ 7♥. Leading J♥ takes 20 (the 7♥
    must follow), then A♠ takes the 7♠ and the dix de der: 20 points, failed. Leading 7♠
    loses 11 to the A♠, then the 7♥ lead falls to the J♥ with the dix de der: 30, made."""
    state, env = position([["J♥", "7♠"], ["A♠", "7♥"]])
    kv, rules, tb = env
    play(state, env, [25, "pass", ("contract", HEARTS)])
    assert X.solve(state, int(state[R.S_BID]), kv, rules, tb, *scratch()) == 1030
    assert X.solve(state, X.POINTS_ONLY, kv, rules, tb, *scratch()) == 30
    for lead, key in (("J♥", 20), ("7♠", 1030)):
        s = state.copy()
        R.apply_move(s, card(lead), kv, tb)
        assert X.solve(s, 25, kv, rules, tb, *scratch()) == key
    # the bidder wins with the 7♠ lead, and each seat's value says so
    assert X.key_outcome(1030, 0, 0, 2) == 1030 and X.key_outcome(1030, 1, 0, 2) == -1030
    assert X.key_margin(20, 0, 0, 2) == -1 and X.key_margin(20, 1, 0, 2) == 1


def minimax(state: np.ndarray, kv, rules, tb, target: int) -> int:
    """A plain recursive minimax over the legal cards: the reference for ``solve``."""
    if state[R.S_PHASE] == R.P_DONE:
        return X.leaf_key(state, target)
    values = []
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for m in moves[:R.legal_moves(state, kv, rules, tb, moves)]:
        s = state.copy()
        R.apply_move(s, int(m), kv, tb)
        values.append(minimax(s, kv, rules, tb, target))
    return max(values) if state[R.S_TO_MOVE] == state[R.S_TAKER] else min(values)


def test_solve_matches_a_plain_minimax_and_the_search_outcome():
    checked = 0
    for knobs in ({"players": 2, "k": 3}, {"players": 3, "k": 2, "allow_tout_atout": True},
                  {"players": 2, "k": 4, "allow_sans_atout": True}):
        env = env_of(**knobs)
        k, kv, rules, tb = env
        rng = np.random.default_rng(3)
        for seed in range(12):
            s = dealt_state(env, seed)
            R.apply_move(s, R.BID + int(rng.integers(1, 60)), kv, tb)
            while s[R.S_PHASE] == R.P_AUCTION:
                R.apply_move(s, R.PASS, kv, tb)
            contracts = R.allowed_contracts(k)
            R.apply_move(s, R.CONTRACT + contracts[seed % len(contracts)], kv, tb)
            for target in (int(s[R.S_BID]), X.POINTS_ONLY):
                assert X.solve(s, target, kv, rules, tb, *scratch()) == minimax(s, kv, rules, tb, target)
            checked += 1
            end = s.copy()
            P.playout(end, kv, rules, tb)
            for seat in range(k.players):  # key_outcome is players.outcome of a finished deal
                key = X.leaf_key(end, int(end[R.S_BID]))
                assert X.key_outcome(key, seat, int(end[R.S_TAKER]), k.players) == P.outcome(end, seat)
    assert checked == 36


def brute_force_deals(state: np.ndarray, n: int, rules, tb) -> set[tuple]:
    """Every (hands..., undealt rest) for the seat to move at the play (no face-down or
    face-up cards): each other hand's size kept, its excluded cards avoided."""
    seat = int(state[R.S_TO_MOVE])
    excluded = np.zeros(R.MAX_PLAYERS, dtype=np.uint64)
    hidden = int(P.seat_information(state, seat, rules, tb, excluded,
                                    np.zeros(R.MAX_PLAYERS, dtype=np.uint64)))
    others = [q for q in range(n) if q != seat]
    sizes = [bin(int(state[R.S_HAND + q])).count("1") for q in others]
    cards = [c for c in range(32) if hidden >> c & 1]
    out = set()
    for first in itertools.combinations(cards, sizes[0]):
        a = sum(1 << c for c in first)
        rests = [()] if len(others) == 1 else itertools.combinations(
            [c for c in cards if not a >> c & 1], sizes[1])
        for second in rests:
            b = sum(1 << c for c in second)
            parts = [a, b][:len(others)]
            if any(m & int(excluded[q]) for q, m in zip(others, parts, strict=True)):
                continue
            hands = [int(state[R.S_HAND + q]) for q in range(n)]
            for q, m in zip(others, parts, strict=True):
                hands[q] = m
            out.add(tuple(hands) + (hidden & ~a & ~b,))
    return out


def test_deals_of_the_hidden_cards_are_counted_exactly():
    """First card decision, 2 players, k = 3: the other hand is any 3 of the 29 cards the
    bidder does not see; 3 players, k = 2: 2 and 2 of 30; blind, 3 players, k = 1, first
    bid: the other two cards and its own face-down one from 32. Mid-deal: the same deals
    deals as a brute force over every way to fill the other hands' places with hidden cards
    (exclusions from the play)."""
    cases = (({"players": 2, "k": 3}, math.comb(29, 3)),
             ({"players": 3, "k": 2}, math.comb(30, 2) * math.comb(28, 2)),
             ({"players": 3, "k": 1, "visibility": "blind"}, 32 * 31 * 30))
    for knobs, count in cases:
        env = env_of(**knobs)
        _, kv, rules, tb = env
        s = dealt_state(env, 4)
        if knobs.get("visibility") != "blind":
            R.apply_move(s, R.BID + 1, kv, tb)
            while s[R.S_PHASE] == R.P_AUCTION:
                R.apply_move(s, R.PASS, kv, tb)
            R.apply_move(s, R.CONTRACT + 0, kv, tb)
        hands, own, rest = X.exact_worlds(s, rules, tb)
        assert len(hands) == count
        rows = np.column_stack([hands, own])
        assert len(np.unique(rows, axis=0)) == count  # each deal once
    compared = 0
    for knobs in ({"players": 2, "k": 3}, {"players": 3, "k": 2}):
        env = env_of(**knobs)
        k, kv, rules, tb = env
        for seed in range(12):
            s = dealt_state(env, seed)
            while s[R.S_PHASE] != R.P_DONE and not (s[R.S_PHASE] == R.P_PLAY and s[R.S_TRICK] >= 1):
                R.apply_move(s, P.heuristic_move(s, kv, rules, tb), kv, tb)
            if s[R.S_PHASE] != R.P_PLAY:
                continue
            hands, own, rest = X.exact_worlds(s, rules, tb)
            old = brute_force_deals(s, k.players, rules, tb)
            new = {tuple(h) + (r,) for h, r in zip(hands.tolist(), rest.tolist(), strict=True)}
            assert new == old and len(new) == len(hands)
            compared += 1
    assert compared >= 10


def test_at_k1_exact_values_are_the_heuristic_expectation():
    """At k = 1 the play is forced, so the contract's exact value is also the heuristic
    play-out's (``exact.heuristic_values``), deal for deal."""
    env = env_of(players=3, k=1)
    _, kv, rules, tb = env
    checked = 0
    for seed in range(6):
        s = dealt_state(env, seed)
        while s[R.S_PHASE] == R.P_AUCTION:
            R.apply_move(s, P.heuristic_move(s, kv, rules, tb), kv, tb)
        if s[R.S_PHASE] != R.P_CONTRACT:
            continue
        d = X.exact_decision(s, kv, rules, tb)
        moves, values, worlds = X.heuristic_values(s, kv, rules, tb)
        assert d.moves == moves and d.deals == worlds == 930
        np.testing.assert_allclose(d.values, values)
        checked += 1
    assert checked >= 3


# Judged decisions: every contract and card decision with a choice in these deals
# (seeds 0..n-1, heuristic play in between, the default one-round auction): 405
# decisions, 125 contracts and 280 cards.
JUDGED = (({"players": 2, "k": 2}, 60), ({"players": 2, "k": 3}, 60), ({"players": 3, "k": 2}, 5))


def test_search_agrees_with_the_exact_solver():
    """Where the exact values of the best and the next move differ by more than 0.1 mark
    (201 of the 405 decisions), the search (24 worlds) picks the exact best 95.5 % of the
    time (standard error 1.5 %), and it loses 0.0138 marks per decision (standard error
    0.0033) against the exact best. Pinned 5 standard errors below / above. (The
    heuristic: 84.6 % and 0.0390 marks here. In the open auction, the default before
    issue 31: 404 decisions, 214 clear, search 91.1 % and 0.0116, heuristic 84.1 % and
    0.0301.)"""
    judged = []
    for knobs, n_deals in JUDGED:
        judged += X.judge_deals(G.ComptoirKnobs(**knobs), range(n_deals),
                                {"search": X.search_player})
    search = X.summary(judged, "search")
    assert search["decisions"] == 405 and search["clear"] == 201
    assert sum(j.phase == R.P_CONTRACT for j in judged) == 125
    assert search["agree"] >= 0.955 - 5 * 0.0146, search
    assert search["loss"] <= 0.0138 + 5 * 0.0033, search


def test_search_bid_ceiling_against_the_exact_ceiling():
    """First bid, 2 players, k = 2 and 3, and 3 players, k = 1, blind: the level the search
    bids up to (``search_ceiling``, 24 worlds) is near the exact ceiling (the highest
    level made half the time with exact play, the contract named once the hand is seen),
    and the exact chance to make it is about one half. Measured on these 46 deals: mean
    |search - exact| 1.4 and 2.0 points (k = 2, 3), 1.8 (blind); the exact chance at the
    search's ceiling 0.57, 0.55, 0.51 on average (one position's chance varies by about
    0.2, so 5 standard errors over 20 deals is about 0.2)."""
    gaps, chances = [], []
    for knobs, n_deals in (({"players": 2, "k": 2}, 20), ({"players": 2, "k": 3}, 20),
                           ({"players": 3, "k": 1, "visibility": "blind"}, 6)):
        env = env_of(**knobs)
        _, kv, rules, tb = env
        cap = int(kv[R.K_BID_CAP])
        for seed in range(n_deals):
            s = dealt_state(env, seed)
            made = X.exact_make_chances(s, kv, rules, tb, cap)[-1]
            exact = X.exact_ceiling(s, kv, rules, tb, cap)
            assert made[exact] >= 0.5 and (exact == cap or made[exact + 1] < 0.5)
            world = np.zeros(R.N_STATE, dtype=np.int64)
            search = int(P.search_ceiling(s, kv, rules, tb, np.uint64(seed), 0, 0, world,
                                          P.search_work()))
            gaps.append(abs(search - exact))
            chances.append(made[search])
    assert np.mean(gaps) <= 4.0, np.mean(gaps)
    assert 0.35 <= np.mean(chances) <= 0.75, np.mean(chances)
