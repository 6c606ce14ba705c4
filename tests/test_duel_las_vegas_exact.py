"""Duel à Las Vegas: the search player's exact endgame solver. Positions whose exact
value is worked out by hand (one card left in each pack) give the exact values and the
optimal move; the solver never reads the packs' order (re-dealt orders give the same
values); it gives up, rather than guess, beyond its node budget."""

from __future__ import annotations

import numpy as np

import simlab
from simlab.games import duel_las_vegas as D
from simlab.games.duel_las_vegas import kernels as KN
from simlab.games.duel_las_vegas import players as P
from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker

K = D.DuelLasVegasKnobs()
KV = R.knob_vector(K)
PP = R.policy_vector(K)
SIZE = int(KV[R.KV_SIZE])
W = poker.work_array()


def last_card_position(hand0: str, last0: str, hand1: str, last1: str, wins: tuple[int, int]
                       ) -> np.ndarray:
    """Seat 0 holds ``hand0`` against ``hand1`` (one card each, this round's), each pack
    holds one card (``last0`` / ``last1``), rounds won ``wins``; the state after the
    comparison (the weaker seat to move)."""
    st = R.new_state()
    for seat, (h, last) in enumerate(((hand0, last0), (hand1, last1))):
        top = [poker.card_id(h), poker.card_id(last)]
        order = [c for c in range(SIZE) if c not in top] + top
        base = R.P_OFF + seat * R.PACK_MAX
        st[base:base + SIZE] = order
        st[R.S_POS + seat] = SIZE - 1
        st[R.S_START + seat] = SIZE - 2
        st[R.S_NAT + seat] = 1 << top[0]
        st[R.S_WINS + seat] = wins[seat]
        R.revalue(st, KV, seat, W)
    st[R.S_ROUNDS] = sum(wins)
    st[R.S_PHASE] = R.PH_ROUND
    st[R.S_TO_MOVE] = -1
    R.advance(st, KV, W)
    return st


def exact(st: np.ndarray) -> tuple[bool, np.ndarray]:
    values = np.zeros(2)
    ok = P.exact_move_values(st, KV, PP, P.search_work(), W, values)
    return ok, values


def test_one_card_each_concede_is_optimal():
    # 3-3 in rounds, seat 0's 2♠ against K♠, A♦ left in seat 0's pack, K♦ in seat 1's.
    # Concede: 3-4, then A♦ beats K♦ and seat 1 (pack empty) concedes: 4-4, both packs
    # are empty: a drawn partie, 0. Draw: 2♠ A♦ beats K♠; seat 1 draws K♦ (pair of
    # Kings), seat 0 cannot draw: 3-4, then both packs are empty: -1 (and seat 1
    # conceding instead would give 0, so seat 1 draws). Exact: concede 0, draw -1.
    st = last_card_position("2♠", "A♦", "K♠", "K♦", (3, 3))
    assert R.to_move(st) == 0
    ok, values = exact(st)
    assert ok and values[R.CONCEDE] == 0.0 and values[R.DRAW] == -1.0
    assert P.heuristic_move(st, KV, PP) == R.DRAW  # behind in the same category
    sw = P.search_work()
    assert P.search_move(np.uint64(1), 0, 0, st, KV, PP, 12, sw, W) == R.CONCEDE


def test_one_card_each_draw_is_optimal():
    # Same, with 2♦ left in seat 0's pack and 3♦ in seat 1's. Concede: 3-4, then 3♦
    # beats 2♦: 3-5, both packs empty, -1. Draw: a pair of 2s beats K♠; seat 1 conceding
    # makes 4-3, then his 3♦ alone wins the next round: 4-4, 0; seat 1 drawing (K♠ 3♦,
    # still below the pair) concedes for want of cards: 4-3 and the packs are empty, +1.
    # So seat 1 concedes and drawing is worth 0.
    st = last_card_position("2♠", "2♦", "K♠", "3♦", (3, 3))
    ok, values = exact(st)
    assert ok and values[R.CONCEDE] == -1.0 and values[R.DRAW] == 0.0
    sw = P.search_work()
    assert P.search_move(np.uint64(1), 0, 0, st, KV, PP, 12, sw, W) == R.DRAW


def test_a_joker_left_is_any_card_not_in_the_hand():
    # A Joker left in seat 0's pack (K♦ in seat 1's). Conceding: 3-4, then the lone Joker
    # is an Ace and beats K♦: 4-4, 0. Drawing: the Joker pairs the 2♠ (above K♠); seat 1
    # draws K♦, a pair of Kings above the pair of 2s, and seat 0 cannot draw: 3-4, -1.
    st = last_card_position("2♠", "A♦", "K♠", "K♦", (3, 3))
    base = R.P_OFF
    st[base + SIZE - 1], st[base + SIZE - 3] = st[base + SIZE - 3], st[base + SIZE - 1]
    assert st[base + SIZE - 1] >= R.N_NATURAL  # the Joker is now the last card
    ok, values = exact(st)
    assert ok and values[R.CONCEDE] == 0.0 and values[R.DRAW] == -1.0


def endgames(n_deals: int, max_left: int) -> list[np.ndarray]:
    """Decisions of heuristic parties once both packs hold at most ``max_left`` cards."""
    out = []
    for d in range(n_deals):
        packs = KN.packs_of(np.uint64(5), d, SIZE)
        st = R.new_state()
        R.new_partie(st, KV, packs[0], packs[1], W)
        while st[R.S_PHASE] != R.PH_OVER:
            if R.cards_left(st, KV, 0) + R.cards_left(st, KV, 1) <= max_left:
                out.append(st.copy())
            R.apply_move(st, KV, P.heuristic_move(st, KV, PP), W)
    return out


def test_exact_values_ignore_the_packs_order():
    rng = np.random.default_rng(2)
    positions = endgames(40, 7)
    assert len(positions) >= 20
    differ = 0
    for st in positions:
        ok, values = exact(st)
        assert ok and (np.abs(values) <= 1).all()
        differ += values[0] != values[1]
        for _ in range(5):
            other = st.copy()
            for p in range(2):
                lo = R.P_OFF + p * R.PACK_MAX + int(st[R.S_POS + p])
                hi = R.P_OFF + p * R.PACK_MAX + SIZE
                other[lo:hi] = rng.permutation(other[lo:hi])
            ok2, again = exact(other)
            assert ok2 and (again == values).all()
    assert differ >= 5  # real choices: a peek at the order could have shown


def test_the_table_of_solved_positions_changes_no_value():
    """The solver keeps each solved decision (and each round start reached by a
    concession) in a table and reads it back when the same cards are reached in another
    order. With a table of 4 entries (nearly every entry overwritten before it is read)
    the values are the same to the last bit, and the full table saves work."""
    positions = [st for st in endgames(30, 8) if R.to_move(st) >= 0][:40]
    assert len(positions) >= 20
    big, tiny = P.search_work(), P.search_work(2)
    saved = 0
    for st in positions:
        values, again = np.zeros(2), np.zeros(2)
        assert P.exact_move_values(st, KV, PP, big, W, values)
        nodes_big = int(big[4][0])
        assert P.exact_move_values(st, KV, PP, tiny, W, again)
        assert (values == again).all()
        saved += nodes_big < int(tiny[4][0])
    assert saved >= len(positions) // 2


def test_playouts_end_with_the_exact_optimum():
    """The lookahead's playouts (``players.rollout``) play the heuristic's move until
    both packs hold at most ``search_tail_cards`` cards, then the exact optimum: the
    same partie, move for move, as a loop that asks the solver at every decision."""
    sw = P.search_work()
    values = np.zeros(2)
    differ = 0
    for st in [s for s in endgames(40, 8) if R.to_move(s) >= 0][:30]:
        st[R.S_WINS:R.S_WINS + 2] = (2, 2)  # level: the partie runs to the packs' end
        by_rollout = st.copy()
        P.rollout(by_rollout, KV, PP, P.search_work(), W)
        by_hand = st.copy()
        while by_hand[R.S_PHASE] != R.PH_OVER:
            move = P.heuristic_move(by_hand, KV, PP)
            seat = R.to_move(by_hand)
            if KV[R.KV_TARGET] - by_hand[R.S_WINS + 1 - seat] > 1:
                assert P.exact_move_values(by_hand, KV, PP, sw, W, values)
                if values[1 - move] > values[move] + 1e-9:
                    move = 1 - move
                    differ += 1
            R.apply_move(by_hand, KV, move, W)
        assert (by_rollout == by_hand).all()
    assert differ >= 3  # the heuristic alone would have played other moves


def test_the_solver_gives_up_beyond_its_budget():
    st = endgames(1, 54)[0]  # the partie's first decision: far too big to solve
    pp = R.policy_vector(D.DuelLasVegasKnobs(search_exact_nodes=1000))
    values = np.zeros(2)
    sw = P.search_work()
    assert not P.exact_move_values(st, KV, pp, sw, W, values)
    assert sw[4][0] > 1000


def test_the_naive_seat_always_draws_and_loses():
    # catalogue question 2's naive control: seat 1 always draws, whatever its policy
    f = simlab.simulate("duel_las_vegas", 200, seed=3, params={"naive_seat": 1})
    assert (f["concedes_s1"] == 0).all() and f["draws_s1"].sum() > 0
    assert f["concedes_s0"].sum() > 0
    p = 0.5
    se = (p * (1 - p) / f.height) ** 0.5
    assert (f["winner"] == 0).mean() > p + 5 * se


def test_lookahead_with_search_continuation_estimates_the_exact_values():
    """``players.lookahead_outcomes`` (the measure of one more step of policy
    improvement, scripts/duel_policy_improvement.py): on endgames the solver covers,
    search players continue optimally, so the mean result of each move over re-shuffled
    packs estimates its exact value (5 standard errors). The endgames of heuristic
    parties with the rounds won set level or nearly (so that the partie runs to the
    packs' end and its result depends on their order)."""
    positions = []
    for st in endgames(12, 6):
        if R.to_move(st) < 0:
            continue
        for wins in ((2, 2), (3, 2), (1, 1)):
            other = st.copy()
            other[R.S_WINS:R.S_WINS + 2] = wins
            other[R.S_ROUNDS] = sum(wins)
            ok, values = exact(other)
            assert ok
            if (np.abs(values) < 1).any():
                positions.append((other, values))
    assert len(positions) >= 8  # values that depend on the order: the estimate is tested
    n = 600
    for i, (st, values) in enumerate(positions[:8]):
        by_search = P.lookahead_outcomes(np.uint64(i), st, KV, PP, n, 4).astype(float)
        for m in range(2):
            se = max(by_search[:, m].std() / np.sqrt(n), 1 / n)
            assert abs(by_search[:, m].mean() - values[m]) < 5 * se, (i, m, values)
