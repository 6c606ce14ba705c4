"""Duel à Las Vegas players: the heuristic's rules on hand-built positions and its use of
both moves; the search player never reads the packs' order (re-shuffling the hidden
order leaves its decision unchanged), its worlds keep what the seat sees; duplicate play
(heuristic over random, search over heuristic) and strong packs win, by decile."""

from __future__ import annotations

import numpy as np
import pytest

import simlab
from simlab.analysis.players_check import hand_strength
from simlab.engine.runner import plan
from simlab.games import duel_las_vegas as D
from simlab.games import get_game
from simlab.games.duel_las_vegas import kernels as KN
from simlab.games.duel_las_vegas import players as P
from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker
from simlab.players.duel import duplicate

K = D.DuelLasVegasKnobs(search_worlds=12)
KV = R.knob_vector(K)
PP = R.policy_vector(K)
SIZE = int(KV[R.KV_SIZE])
W = poker.work_array()


def pack(top: str) -> np.ndarray:
    first = [poker.card_id(c) for c in top.split()]
    jokers = iter(range(52, SIZE))
    first = [next(jokers) if c == 52 else c for c in first]
    return np.array(first + [c for c in range(SIZE) if c not in first], dtype=np.int64)


def partie(a: str, b: str) -> np.ndarray:
    st = R.new_state()
    R.new_partie(st, KV, pack(a), pack(b), W)
    return st


# --- heuristic ---------------------------------------------------------------------------
def test_heuristic_draws_a_close_round():
    st = partie("2♠ 3♦", "K♠ K♥ K♦")  # 2♠ vs K♠: both high card, A draws
    assert R.to_move(st) == 0 and P.heuristic_move(st, KV, PP) == R.DRAW


def test_heuristic_never_concedes_the_deciding_round():
    st = partie("2♠ 3♦ 4♣ 6♥ 8♠ 10♦", "K♠ K♥ K♦ A♠")
    st[R.S_WINS + 1] = K.rounds_to_win - 1
    for _ in range(4):
        assert P.heuristic_move(st, KV, PP) == R.DRAW
        R.apply_move(st, KV, R.DRAW, W)
        if R.to_move(st) != 0:
            break


def test_heuristic_concedes_by_gap_and_by_hand_size():
    st = partie("2♠ 3♦", "K♠ K♥")
    st2 = R.new_state()
    # hand-built: A holds 2♠ (high card), B holds K♠ K♥ K♦ (trips): behind by 3
    R.copy_state(st, st2)
    st2[R.S_NAT + 1] = (1 << poker.card_id("K♠")) | (1 << poker.card_id("K♥")) \
        | (1 << poker.card_id("K♦"))
    R.revalue(st2, KV, 1, W)
    st2[R.S_TO_MOVE] = 0
    assert P.heuristic_move(st2, KV, PP) == R.CONCEDE
    # the same gap with concede_gap = 99 draws
    pp = R.policy_vector(D.DuelLasVegasKnobs(concede_gap=99))
    assert P.heuristic_move(st2, KV, pp) == R.DRAW
    # behind by one category (a pair of Kings): concede, unless concede_gap = 2
    st2[R.S_NAT + 1] = (1 << poker.card_id("K♠")) | (1 << poker.card_id("K♥"))
    R.revalue(st2, KV, 1, W)
    assert P.heuristic_move(st2, KV, PP) == R.CONCEDE
    pp2 = R.policy_vector(D.DuelLasVegasKnobs(concede_gap=2))
    assert P.heuristic_move(st2, KV, pp2) == R.DRAW
    # behind within the same category (high card 9 vs A): draw, until max_hand cards
    st3 = partie("2♠ 3♦ 5♣ 7♥ 9♠", "A♠ A♥ 4♦ 6♦ 8♦")
    while R.to_move(st3) == 0 and R.hand_size(st3, 0) < 5:
        assert P.heuristic_move(st3, KV, PP) == R.DRAW
        R.apply_move(st3, KV, R.DRAW, W)
    assert R.hand_size(st3, 0) == 5 and R.to_move(st3) == 0
    assert P.heuristic_move(st3, KV, PP) == R.DRAW
    pp5 = R.policy_vector(D.DuelLasVegasKnobs(max_hand=5))
    assert P.heuristic_move(st3, KV, pp5) == R.CONCEDE


def test_heuristic_and_search_use_both_moves():
    f = simlab.simulate("duel_las_vegas", 200, seed=1)
    for s in range(2):
        assert f[f"concedes_s{s}"].sum() > 0 and f[f"draws_s{s}"].sum() > 0
    g = simlab.simulate("duel_las_vegas", 20, seed=1, policies="search,heuristic",
                        params={"search_worlds": 8})
    assert g["concedes_s0"].sum() > 0 and g["draws_s0"].sum() > 0


# --- the search player sees only what its seat sees --------------------------------------
def positions(n_deals: int, plies: tuple[int, ...]) -> list[np.ndarray]:
    """Mid-partie positions: parties played by heuristic players up to some decisions."""
    out = []
    for d in range(n_deals):
        packs = KN.packs_of(np.uint64(11), d, SIZE)
        st = R.new_state()
        R.new_partie(st, KV, packs[0], packs[1], W)
        t = 0
        while st[R.S_PHASE] != R.PH_OVER:
            if t in plies:
                keep = R.new_state()
                R.copy_state(st, keep)
                out.append(keep)
            R.apply_move(st, KV, P.heuristic_move(st, KV, PP), W)
            t += 1
    return out


def redeal(st: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same position with each pack's undrawn cards in another order."""
    out = st.copy()
    for p in range(2):
        lo = R.P_OFF + p * R.PACK_MAX + int(st[R.S_POS + p])
        hi = R.P_OFF + p * R.PACK_MAX + SIZE
        out[lo:hi] = rng.permutation(out[lo:hi])
    return out


def test_search_decision_ignores_the_packs_order():
    sw = P.search_work()
    rng = np.random.default_rng(3)
    hand_built = partie("7♦ 2♣ 9♥", "J♠ 4♦ Q♥")
    real_choices = 0
    for st in [hand_built, *positions(6, (0, 5, 17, 30))]:
        move = P.search_move(np.uint64(5), 1, 0, st, KV, PP, 12, sw, W)
        totals = sw[2].copy()
        real_choices += totals[0] != totals[1]
        for _ in range(5):
            other = redeal(st, rng)
            assert P.search_move(np.uint64(5), 1, 0, other, KV, PP, 12, sw, W) == move
            assert (sw[2] == totals).all()
    assert real_choices >= 8  # the moves' totals differ: a re-deal could have shown


def test_worlds_keep_what_the_seat_sees():
    world = R.new_state()
    for st in positions(3, (4, 20)):
        state = np.uint64(7)
        seen_order = 0
        for _ in range(5):
            state = np.uint64(P.sample_world(state, st, KV, world))
            for p in range(2):
                base = R.P_OFF + p * R.PACK_MAX
                pos = int(st[R.S_POS + p])
                # the cards drawn (hands, past rounds) and every public slot stay
                assert (world[base:base + pos] == st[base:base + pos]).all()
                assert sorted(world[base + pos:base + SIZE]) == sorted(st[base + pos:base + SIZE])
                seen_order += (world[base + pos:base + SIZE] != st[base + pos:base + SIZE]).any()
            assert (world[:R.N_SLOTS] == st[:R.N_SLOTS]).all()
            assert (world[R.K_OFF:] == st[R.K_OFF:]).all()
        assert seen_order > 0


# --- duplicate play and strong hands -------------------------------------------------------
def test_heuristic_beats_random():
    r = duplicate(get_game("duel_las_vegas"), "heuristic", "random", n=200, seed=1)
    assert r.lo > 0.5


def test_search_beats_heuristic():
    # a cheap search (12 worlds; with so few, the 2-standard-error bar): the default's 48
    # worlds would quadruple the time of the test
    r = duplicate(get_game("duel_las_vegas"), "search", "heuristic", n=240, seed=1,
                  params={"search_worlds": 12, "search_z": 2.0})
    assert r.lo > 0


@pytest.mark.parametrize("policy", ["heuristic"])
def test_strong_packs_win_by_decile(policy):
    g = get_game("duel_las_vegas")
    s = hand_strength(g, plan(g, 3000, seed=1, policies=policy), 3000)
    assert s.top_minus_bottom.lo > 0
    assert s.deciles[-1].value > s.deciles[0].value + 0.3
    assert s.spearman > 0.15
