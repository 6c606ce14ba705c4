"""XXL — Montées et descentes: the seed's worked examples, legal moves and scoring on
hand-built positions, dealing frequencies, the players (search never peeks and beats the
heuristic), errors."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import simlab
from simlab.engine.game import policy_codes
from simlab.engine.knobs import SimlabError
from simlab.games import get_game
from simlab.games.xxl.colouring import V1
from simlab.games.xxl.common import DEBRUIJN_INDEX, places, starter
from simlab.games.xxl.dealing import p_hand_misses
from simlab.games.xxl.deck import FULL_MASK, PAIRS, card_id, mask_of, parse_card, tables
from simlab.games.xxl_montees_descentes import kernels as K
from simlab.games.xxl_montees_descentes import players as P
from simlab.games.xxl_montees_descentes import rules as R
from simlab.players.duel import duplicate

SLUG = "xxl_montees_descentes"
NUM, COL, TOTAL, HOLDERS, _ = tables(V1)
IX = DEBRUIJN_INDEX
C = {"R": 0, "Y": 1, "B": 2, "G": 3}


def cid(text: str) -> int:
    return parse_card(text, V1)


def state(n: int = 3, piles: tuple = ("R0/Y7", "B4/Y7")) -> tuple[np.ndarray, np.ndarray]:
    """A position with fresh piles from the given cards and empty hands."""
    st = np.zeros(R.N_ST, dtype=np.int64)
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    st[R.S_N] = n
    st[R.S_PILES] = len(piles)
    st[R.S_OUT] = -1
    for k, text in enumerate(piles):
        c = cid(text)
        R.set_pile(st, k, 1, COL[c, 0], NUM[c, 0], 0, COL[c, 1], NUM[c, 1])
        hm[R.HM_PUBLIC] |= np.uint64(1 << c)
    return st, hm


def moves(st: np.ndarray, hand: int) -> set[tuple[str, int, str]]:
    """{(card label, pile, connecting half as 'Y6')} of the legal moves of ``hand``."""
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(st, np.uint64(hand), HOLDERS, COL, mv, IX)
    out = set()
    for m in mv[:n]:
        card, pile, half = m >> 3, (m >> 1) & 3, m & 1
        a, b = PAIRS[card]
        label = f"{'RYBG'[V1[a, b]]}{a}/{'RYBG'[V1[b, a]]}{b}"
        out.add((label, int(pile), f"{'RYBG'[COL[card, half]]}{NUM[card, half]}"))
    return out


def targets_of(st: np.ndarray, pile: int) -> set[str]:
    """The halves pile ``pile`` takes, from a hand of every card."""
    return {h for _, k, h in moves(st, FULL_MASK) if k == pile}


def test_seed_opening_targets_and_cards():
    """Seed: 'Carte A: jaune 7 et rouge 0; carte B: bleu 4 et jaune 7. On peut fournir les
    cartes jaune 6, jaune 8 ou rouge 1 à la carte A et les cartes bleu 3, bleu 5, jaune 6
    ou jaune 8 à la carte B.'"""
    st, hm = state()
    hand = FULL_MASK & ~int(hm[R.HM_PUBLIC])
    assert targets_of(st, 0) == {"Y6", "Y8", "R1"}
    assert targets_of(st, 1) == {"B3", "B5", "Y6", "Y8"}
    on_a = {c for c, k, _ in moves(st, hand) if k == 0}
    assert on_a == {"G3/Y6", "Y6/R8", "G0/Y8", "B2/Y8", "Y8/G10", "R1/Y3", "R1/B8"}
    on_b = {c for c, k, _ in moves(st, hand) if k == 1}
    assert on_b == {"G3/Y6", "Y6/R8", "G0/Y8", "B2/Y8", "Y8/G10", "R0/B3", "B3/Y5",
                    "G2/B5", "G4/B5"}


def _play(st, hm, p, text, pile, half_text):
    c = cid(text)
    half = 0 if f"{'RYBG'[COL[c, 0]]}{NUM[c, 0]}" == half_text else 1
    R.play(st, hm, p, c * 8 + pile * 2 + half, COL, NUM)


def test_running_pile_has_three_targets_then_a_restart():
    """Catalogue examples 2 and 3: G3/Y6 on A through Y6 (descending yellow, free G3):
    targets {Y5, G2, G4}; then G4/B5 through G4 restarts green upward, free B5: {G5, B4,
    B6}, and the yellow series is gone."""
    st, hm = state()
    hm[0] = np.uint64(mask_of([cid("G3/Y6"), cid("G4/B5"), cid("B9/R10")]))
    _play(st, hm, 0, "G3/Y6", 0, "Y6")
    base = R.S_PILE
    assert (st[base + R.P_CS], st[base + R.P_NS], st[base + R.P_DIR]) == (C["Y"], 6, -1)
    assert targets_of(st, 0) == {"Y5", "G2", "G4"}
    assert st[R.S_RESTARTS] == 0
    _play(st, hm, 0, "G4/B5", 0, "G4")
    assert targets_of(st, 0) == {"G5", "B4", "B6"}
    assert st[R.S_RESTARTS] == 1
    assert targets_of(st, 1) == {"B3", "B5", "Y6", "Y8"}  # pile B untouched


def test_boundary_closes_a_series():
    """Example 4: a red series descending at 1; R0/Y7 played through R0 closes red: only
    Y6 and Y8 (the free half Y7) remain. And a series starting at 10 must go down."""
    st, _ = state(piles=("R0/Y7",))
    R.set_pile(st, 0, 0, C["R"], 1, -1, C["G"], 5)
    assert targets_of(st, 0) == {"R0", "G4", "G6"}
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    hm[0] = np.uint64(mask_of([cid("R0/Y7"), cid("B9/R10")]))
    _play(st, hm, 0, "R0/Y7", 0, "R0")
    assert targets_of(st, 0) == {"Y6", "Y8"}
    st, _ = state(piles=("B9/R10",))
    assert targets_of(st, 0) == {"B8", "B10", "R9"}  # R10 can only go down


def test_penalties_and_places():
    """Example 5: P1 holds B9/R10 (19), P2 R0/G1 + Y2/R9 (12), P3 went out (0): places 3, 2,
    1; example 6: scores 0, 12, 12 share the second place, no third."""
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    hm[0] = np.uint64(mask_of([cid("B9/R10")]))
    hm[1] = np.uint64(mask_of([cid("R0/G1"), cid("Y2/R9")]))
    score = np.array([R.hand_score(hm, p, TOTAL, IX) for p in range(3)], dtype=np.int64)
    assert list(score) == [19, 12, 0]
    out = np.zeros(3, dtype=np.int64)
    places(score, 3, True, out)
    assert list(out) == [3, 2, 1]
    places(np.array([0, 12, 12], dtype=np.int64), 3, True, out)
    assert list(out) == [1, 2, 2]


def test_starter_highest_total_ties_to_dealers_left():
    hands = np.zeros(4, dtype=np.uint64)
    hands[0] = np.uint64(mask_of([cid("B9/R10")]))  # 19
    hands[1] = np.uint64(mask_of([cid("R8/B9")]))  # 17
    hands[2] = np.uint64(mask_of([cid("R7/G10")]))  # 17
    hands[3] = np.uint64(mask_of([cid("R0/G1")]))
    assert starter(hands, 4, 3, 0, TOTAL, IX) == 0
    hands[0] = np.uint64(mask_of([cid("R0/B3")]))
    assert starter(hands, 4, 0, 0, TOTAL, IX) == 1  # 1 and 2 tie: 1 is nearer the left
    assert starter(hands, 4, 1, 0, TOTAL, IX) == 2
    assert starter(hands, 4, 1, 1, TOTAL, IX) == 2  # dealer_left rule


def _turn_position():
    """Seat 0 holds only B9/R10 (fits nowhere on fresh R0/Y7 and B4/Y7); the talon's top
    is G3/Y6, which fits."""
    st, hm = state(n=2)
    hm[0] = np.uint64(mask_of([cid("B9/R10")]))
    hm[1] = np.uint64(mask_of([cid("R8/B9")]))
    order = np.arange(55, dtype=np.int64)
    order[54] = cid("G3/Y6")
    st[R.S_TPOS] = 54
    return st, hm, order


@pytest.mark.parametrize("drawn_card", ["optional", "must"])
def test_no_card_draws_and_a_fitting_draw_is_played(drawn_card):
    st, hm, order = _turn_position()
    k = get_game(SLUG).make_knobs({"players": 2, "drawn_card": drawn_card})
    kv = R.knob_vector(k)
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(R.MAX_MOVES, dtype=np.int64)
    save = np.zeros(8, dtype=np.int64)
    assert P.turn_options(st, hm, 0, kv, HOLDERS, COL, mv, IX) == 0
    P.heuristic_turn(st, hm, order, kv, HOLDERS, COL, NUM, TOTAL, mv, mv2, save, IX)
    assert st[R.S_DRAWS] == 1 and st[R.S_DRAW_PLAYS] == 1
    assert int(hm[0]) == mask_of([cid("B9/R10")])
    n = P.drawn_options(st, cid("R0/G1"), kv, HOLDERS, COL, mv, IX)
    assert (R.KEEP in mv[:n]) == (drawn_card == "optional") or n == 0


def test_empty_talon_full_round_of_passes_blocks():
    st, hm, order = _turn_position()
    st[R.S_TPOS] = 55
    kv = R.knob_vector(get_game(SLUG).make_knobs({"players": 2}))
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(R.MAX_MOVES, dtype=np.int64)
    save = np.zeros(8, dtype=np.int64)
    P.heuristic_turn(st, hm, order, kv, HOLDERS, COL, NUM, TOTAL, mv, mv2, save, IX)
    assert st[R.S_OVER] == 0 and st[R.S_PASSES] == 1
    P.heuristic_turn(st, hm, order, kv, HOLDERS, COL, NUM, TOTAL, mv, mv2, save, IX)
    assert st[R.S_OVER] == 1 and st[R.S_END] == R.END_BLOCKED


def test_going_out_ends_at_once():
    st, hm = state(n=3)
    hm[0] = np.uint64(mask_of([cid("G3/Y6")]))
    hm[1] = np.uint64(mask_of([cid("R8/B9")]))
    _play(st, hm, 0, "G3/Y6", 0, "Y6")
    assert st[R.S_OVER] == 1 and st[R.S_END] == R.END_OUT and st[R.S_OUT] == 0


def test_rows_are_consistent():
    f = simlab.simulate(get_game(SLUG), 3000, seed=4, progress=False)
    assert f["capped"].sum() == 0
    out = f.filter(f["end"] == "out")
    assert (out["went_out"] >= 0).all()
    for i in range(4):  # the seat that went out pays 0
        assert (out.filter(out["went_out"] == i)[f"score_s{i}"] == 0).all()
    blocked = f.filter(f["end"] == "blocked")
    assert (blocked["talon_left"] == 0).all() and (blocked["went_out"] < 0).all()
    assert ((f["winner"] < 0) | (f["winner"] == f["winner"])).all()
    assert 0.2 < (f["end"] == "out").mean() < 0.95


def test_dealing_frequencies_are_exact():
    """Colour-free: a 6-card hand holds no card with a 10 half with chance C(45,6)/C(55,6);
    colour-dependent (v1): no yellow half (27 cards carry one) C(28,6)/C(55,6); each within
    5 standard errors over seat 0's dealt hands."""
    n = 6000
    g = get_game(SLUG)
    f = simlab.simulate(g, n, seed=9, record_hands=True, progress=False, policies="random")
    hands = f["dealt_s0"].to_list()
    tens = {f"{a}-{b}" for a, b in PAIRS if b == 10}
    yellow = {f"{a}-{b}" for a, b in PAIRS if 1 in (V1[a, b], V1[b, a])}
    assert len(yellow) == 27 and all(len(h) == 6 for h in hands)
    for cards, m in ((tens, 10), (yellow, 27)):
        p = p_hand_misses(m, 6)
        got = np.mean([not (set(h) & cards) for h in hands])
        assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / n), (m, got, p)


def _decision_position(seed: int, deal: int):
    """Play deal ``deal`` with heuristic seats until seat 0 has two or more options."""
    k = get_game(SLUG).make_knobs({"search_worlds": 6})
    kv = R.knob_vector(k)
    order = np.zeros(55, dtype=np.int64)
    st = np.zeros(R.N_ST, dtype=np.int64)
    hm = np.zeros(R.N_HM, dtype=np.uint64)
    mv = np.zeros(R.MAX_MOVES, dtype=np.int64)
    mv2 = np.zeros(R.MAX_MOVES, dtype=np.int64)
    save = np.zeros(8, dtype=np.int64)
    from simlab.games.xxl.dealing import shuffle_deck
    shuffle_deck(np.uint64(seed), deal, 0, order)
    R.new_game(st, hm, order, 4, 6, 2, COL, NUM)
    st[R.S_TURN] = 0
    while st[R.S_OVER] == 0:
        if st[R.S_TURN] == 0:
            n = P.turn_options(st, hm, 0, kv, HOLDERS, COL, mv, IX)
            if n >= 2:
                return kv, st, hm, order, mv, n
        P.heuristic_turn(st, hm, order, kv, HOLDERS, COL, NUM, TOTAL, mv, mv2, save, IX)
    return None


@pytest.mark.parametrize("deal", [0, 1, 2, 3, 5, 8])
def test_search_never_peeks(deal):
    """Re-deal the cards seat 0 has not seen (other hands, the talon) consistently with its
    view: same hand sizes, same talon size. The search's choice does not change."""
    found = _decision_position(5, deal)
    if found is None:
        pytest.skip("no decision for seat 0 in this deal")
    kv, st, hm, order, mv, n = found
    W = P.new_search_work()

    def choose(hm_, order_):
        return P.search_pick(st.copy(), hm_.copy(), order_.copy(), 0, mv.copy(), n, False, kv,
                             HOLDERS, COL, NUM, TOTAL, IX, np.uint64(77), deal, 0, W)

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
        assert pos + 55 - st[R.S_TPOS] == len(hidden)
        assert choose(hm2, order2) == first


def test_search_beats_heuristic_duplicate():
    r = duplicate(get_game(SLUG), "search", "heuristic", n=1000, seed=3)
    assert r.lo > 0, r.format()


def test_heuristic_beats_random_duplicate():
    r = duplicate(get_game(SLUG), "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def test_matches_add_raw_penalties_or_places():
    g = get_game(SLUG)
    f = simlab.simulate(g, 200, seed=2, level="match", progress=False)
    assert (f["n_deals"] == 5).all()
    assert f["final_score_s0"].mean() > 10
    f2 = simlab.simulate(g, 200, seed=2, level="match", progress=False,
                         params={"individuel_scoring": "place_points"})
    assert f2["final_score_s0"].max() <= 5 * 4 and f2["final_score_s0"].min() >= 5


@pytest.mark.parametrize("params,needle", [
    ({"players": 7}, "players"), ({"players": 1}, "players"),
    ({"hand_size": 21}, "hand_size"), ({"deck_colouring": "v2"}, "deck_colouring"),
    ({"deck_colouring": "random:x"}, "deck_colouring")])
def test_bad_knobs_refused(params, needle):
    with pytest.raises(SimlabError, match=needle):
        get_game(SLUG).make_knobs(params)


def test_too_many_cards_refused():
    with pytest.raises(SimlabError, match="need 56 cards"):
        get_game(SLUG).make_knobs({"players": 6, "hand_size": 9})


@pytest.mark.parametrize("arg", ["players=7", "deck_colouring=v9", "deck_colouring=file:/nope"])
def test_cli_one_line_exit_2(arg):
    r = subprocess.run([sys.executable, "-m", "simlab", "run", SLUG, "-n", "10", "--set", arg],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_other_colourings_play():
    g = get_game(SLUG)
    a = simlab.simulate(g, 500, seed=1, progress=False)
    b = simlab.simulate(g, 500, seed=1, progress=False, params={"deck_colouring": "random:3"})
    assert (a["start_total_s0"] == b["start_total_s0"]).all()  # same deals
    assert not (a["turns"] == b["turns"]).all()


def test_kernel_codes():
    assert list(policy_codes(("random", "heuristic", "search"))) == [0, 1, 2]
    assert card_id(0, 7) == cid("R0/Y7")
    _ = K.kernel_args
