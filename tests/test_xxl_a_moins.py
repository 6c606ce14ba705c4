"""XXL — À moins: the seed's worked example, legal discards and scoring on hand-built
positions, dealing frequencies, the players (search never peeks and beats the
heuristic), errors."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import simlab
from simlab.engine.knobs import SimlabError
from simlab.games import get_game
from simlab.games.xxl.colouring import V1
from simlab.games.xxl.common import DEBRUIJN_INDEX, places
from simlab.games.xxl.dealing import p_hand_holds_exactly, p_hand_misses, shuffle_deck
from simlab.games.xxl.deck import FULL_MASK, PAIRS, labels, mask_of, parse_card, tables
from simlab.games.xxl_a_moins import players as P
from simlab.games.xxl_a_moins import rules as R
from simlab.players.duel import duplicate

SLUG = "xxl_a_moins"
NUM, COL, TOTAL, HOLDERS, _ = tables(V1)
IX = DEBRUIJN_INDEX
LABELS = labels(V1)


def cid(text: str) -> int:
    return parse_card(text, V1)


def position(top: str, n: int = 3, strict: int = 1):
    st = np.zeros(R.N_ST, dtype=np.int64)
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    st[R.S_N] = n
    st[R.S_TOP] = cid(top)
    st[R.S_STRICT] = strict
    st[R.S_OUT] = -1
    hm[R.HM_PUBLIC] = np.uint64(1 << cid(top))
    return st, hm


def legal(st, hand: int) -> set[str]:
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(st, np.uint64(hand), NUM, COL, HOLDERS, mv, IX)
    return {LABELS[c] for c in mv[:n]}


def test_seed_example():
    """Seed: 'Le premier joueur joue la carte rouge 6 / vert 0. Le prochain joueur doit
    écarter une carte avec un chiffre rouge inférieur à 6. Il joue par exemple vert 0 /
    rouge 2. Le prochain joueur doit jouer vert 0, rouge 1 ou rouge 0.' The green 0 cannot
    be undercut ('Si la carte retournée montre un 0, on ne peut écarter que sur le deuxième
    chiffre'): only red halves 0-5, then red 1 / red 0."""
    st, hm = position("R6/G0")
    everything = FULL_MASK & ~(1 << cid("R6/G0"))
    got = legal(st, everything)
    reds = {LABELS[c] for c in range(55) for h in range(2)
            if COL[c, h] == 0 and NUM[c, h] < 6} - {"G0/R6"}
    assert got == reds and "G0/R2" in got
    R.play(st, hm, 0, cid("G0/R2"))
    got = legal(st, FULL_MASK & ~(1 << cid("G0/R2")) & ~(1 << cid("G0/R6")))
    assert got == {"R0/G1", "R0/B3", "R0/Y7", "R1/Y3", "R1/B8"}  # red 1 or red 0 only


def test_reopening_and_illegal_examples():
    """Catalogue examples 2 and 3: R0/Y7 on top reopens yellow (< 7), red is dead; on
    Y5/B6, G5/R7 (neither yellow nor blue) is illegal and B1/R4 legal (blue 1 < 6)."""
    st, _ = position("R0/Y7")
    got = legal(st, FULL_MASK & ~(1 << cid("R0/Y7")))
    yellows = {LABELS[c] for c in range(55) for h in range(2)
               if COL[c, h] == 1 and NUM[c, h] < 7} - {"R0/Y7"}
    assert got == yellows
    st, _ = position("Y5/B6")
    assert legal(st, mask_of([cid("G5/R7"), cid("B1/R4")])) == {"B1/R4"}


def test_equal_is_not_lower_unless_knob():
    st, _ = position("Y5/B6", strict=1)
    assert legal(st, mask_of([cid("B3/Y5")])) == {"B3/Y5"}  # blue 3 < 6
    assert legal(st, mask_of([cid("Y5/B6")] if False else [cid("G4/B5")])) == {"G4/B5"}
    st, _ = position("G4/B5", strict=1)
    assert legal(st, mask_of([cid("Y5/B6")])) == set()  # blue 6 > 5, no green
    assert legal(st, mask_of([cid("G2/B5")])) == {"G2/B5"}  # green 2 < 4
    st, _ = position("B0/G9", strict=1)
    assert legal(st, mask_of([cid("B2/G4")])) == {"B2/G4"}  # green 4 < 9; blue 0: never
    st, _ = position("Y4/G9", strict=1)
    assert legal(st, mask_of([cid("G3/Y6")])) == {"G3/Y6"}  # green 3
    st, _ = position("R0/G1", strict=0)  # lower or equal: green 1 and red 0 open
    assert "R0/B3" in legal(st, mask_of([cid("R0/B3")]))
    st, _ = position("R0/G1", strict=1)
    assert legal(st, FULL_MASK & ~(1 << cid("R0/G1"))) == {"G0/R2", "G0/R6", "G0/Y8"}


def test_scoring_example():
    """Catalogue example 4: P1 holds Y3/R10 (13) + G1/R2 (3) = 16; P2 went out = 0; P3
    holds R8/B9 (17). Ranking P2, P1, P3."""
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    hm[0] = np.uint64(mask_of([cid("Y3/R10"), cid("G1/R2")]))
    hm[2] = np.uint64(mask_of([cid("R8/B9")]))
    score = np.array([R.hand_score(hm, p, TOTAL, IX) for p in range(3)], dtype=np.int64)
    assert list(score) == [16, 0, 17]
    out = np.zeros(3, dtype=np.int64)
    places(score, 3, True, out)
    assert list(out) == [2, 1, 3]


def _kit(**params):
    kv = R.knob_vector(get_game(SLUG).make_knobs({"players": 2, **params}))
    return kv, np.zeros(R.MAX_MOVES, dtype=np.int64), np.zeros(R.MAX_MOVES, dtype=np.int64)


def test_draw_then_play_and_blocked_end():
    st, hm = position("R0/G1", n=2)
    hm[0] = np.uint64(mask_of([cid("B9/R10")]))
    hm[1] = np.uint64(mask_of([cid("R8/B9")]))
    order = np.arange(55, dtype=np.int64)
    order[54] = cid("G0/Y8")  # fits (green 0 < 1)
    st[R.S_TPOS] = 54
    kv, mv, mv2 = _kit()
    P.heuristic_turn(st, hm, order, kv, NUM, COL, HOLDERS, TOTAL, mv, mv2, IX)
    assert st[R.S_DRAWS] == 1 and st[R.S_DRAW_PLAYS] == 1 and LABELS[st[R.S_TOP]] == "G0/Y8"
    assert st[R.S_MAX_DRAW_RUN] == 0  # the drawn card was played: no draw-ending turn
    # seat 1: R8/B9 on G0/Y8? no yellow/green half: the talon is empty, so it passes
    P.heuristic_turn(st, hm, order, kv, NUM, COL, HOLDERS, TOTAL, mv, mv2, IX)
    assert st[R.S_PASSES] == 1 and st[R.S_OVER] == 0
    P.heuristic_turn(st, hm, order, kv, NUM, COL, HOLDERS, TOTAL, mv, mv2, IX)
    assert st[R.S_OVER] == 1 and st[R.S_END] == R.END_BLOCKED


def test_going_out_ends_at_once():
    st, hm = position("R6/G0", n=3)
    hm[0] = np.uint64(mask_of([cid("G0/R2")]))
    hm[1] = np.uint64(mask_of([cid("R8/B9")]))
    R.play(st, hm, 0, cid("G0/R2"))
    assert st[R.S_OVER] == 1 and st[R.S_END] == R.END_OUT and st[R.S_OUT] == 0


def test_rows_are_consistent():
    f = simlab.simulate(get_game(SLUG), 3000, seed=4, progress=False)
    assert f["capped"].sum() == 0
    out = f.filter(f["end"] == "out")
    for i in range(4):
        assert (out.filter(out["went_out"] == i)[f"score_s{i}"] == 0).all()
    blocked = f.filter(f["end"] == "blocked")
    assert (blocked["talon_left"] == 0).all() and (blocked["went_out"] < 0).all()
    assert (f["max_draw_run"] <= f["draws"]).all()


def test_dealing_frequencies_are_exact():
    """Colour-free: no card with a 10 half in 6 cards, C(45,6)/C(55,6); exactly two cards
    with a 0 half (10 such cards); colour-dependent (v1): no red half (28 cards).
    Each within 5 standard errors over seat 0's dealt hands."""
    n = 6000
    f = simlab.simulate(get_game(SLUG), n, seed=9, record_hands=True, progress=False,
                        policies="random")
    hands = [set(h) for h in f["dealt_s0"].to_list()]
    tens = {f"{a}-{b}" for a, b in PAIRS if b == 10}
    zeros = {f"{a}-{b}" for a, b in PAIRS if a == 0}
    red = {f"{a}-{b}" for a, b in PAIRS if 0 in (V1[a, b], V1[b, a])}
    assert len(red) == 28
    checks = [(np.mean([not (h & tens) for h in hands]), p_hand_misses(10, 6)),
              (np.mean([len(h & zeros) == 2 for h in hands]), p_hand_holds_exactly(10, 2, 6)),
              (np.mean([not (h & red) for h in hands]), p_hand_misses(28, 6))]
    for got, p in checks:
        assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / n), (got, p)


def _decision_position(seed: int, deal: int):
    kv = R.knob_vector(get_game(SLUG).make_knobs({"search_worlds": 6}))
    order = np.zeros(55, dtype=np.int64)
    st = np.zeros(R.N_ST, dtype=np.int64)
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(R.MAX_MOVES, dtype=np.int64)
    shuffle_deck(np.uint64(seed), deal, 0, order)
    R.new_game(st, hm, order, 4, 6, 1)
    while st[R.S_OVER] == 0:
        if st[R.S_TURN] == 0:
            n = P.turn_options(st, hm, 0, kv, NUM, COL, HOLDERS, mv, IX)
            if n >= 2:
                return kv, st, hm, order, mv, n
        P.heuristic_turn(st, hm, order, kv, NUM, COL, HOLDERS, TOTAL, mv, mv2, IX)
    return None


@pytest.mark.parametrize("deal", [0, 1, 2, 3, 5, 8])
def test_search_never_peeks(deal):
    """Re-deal the cards seat 0 has not seen (other hands, the talon) consistently with its
    view; the search's choice does not change."""
    found = _decision_position(5, deal)
    if found is None:
        pytest.skip("no decision for seat 0 in this deal")
    kv, st, hm, order, mv, n = found
    W = P.new_search_work()

    def choose(hm_, order_):
        return P.search_pick(st.copy(), hm_.copy(), order_.copy(), 0, mv.copy(), n, False, kv,
                             NUM, COL, HOLDERS, TOTAL, IX, np.uint64(77), deal, 0, W)

    first = choose(hm, order)
    rng = np.random.default_rng(deal)
    hidden = [c for c in range(55) if not (int(hm[0]) | int(hm[R.HM_PUBLIC])) >> c & 1]
    for _ in range(3):
        perm = rng.permutation(hidden)
        hm2 = hm.copy()
        order2 = order.copy()
        pos = 0
        for q in range(1, 4):
            size = bin(int(hm[q])).count("1")
            hm2[q] = np.uint64(mask_of(perm[pos:pos + size]))
            pos += size
        order2[st[R.S_TPOS]:] = perm[pos:]
        assert choose(hm2, order2) == first


def test_search_beats_heuristic_duplicate():
    r = duplicate(get_game(SLUG), "search", "heuristic", n=1000, seed=3)
    assert r.lo > 0, r.format()


def test_heuristic_beats_random_duplicate():
    r = duplicate(get_game(SLUG), "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def test_matches():
    g = get_game(SLUG)
    f = simlab.simulate(g, 200, seed=2, level="match", progress=False,
                        params={"individuel_scoring": "place_points", "match_games": 3})
    assert (f["n_deals"] == 3).all() and f["final_score_s0"].min() >= 3


@pytest.mark.parametrize("params,needle", [
    ({"players": 7}, "players"), ({"players": 1}, "players"),
    ({"deck_colouring": "v2"}, "deck_colouring"), ({"strict_lower": "maybe"}, "strict_lower")])
def test_bad_knobs_refused(params, needle):
    with pytest.raises(SimlabError, match=needle):
        get_game(SLUG).make_knobs(params)


def test_too_many_cards_refused():
    with pytest.raises(SimlabError, match="need 55 cards|need 61"):
        get_game(SLUG).make_knobs({"players": 6, "hand_size": 10})


@pytest.mark.parametrize("arg", ["players=7", "deck_colouring=random:abc"])
def test_cli_one_line_exit_2(arg):
    r = subprocess.run([sys.executable, "-m", "simlab", "run", SLUG, "-n", "10", "--set", arg],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
