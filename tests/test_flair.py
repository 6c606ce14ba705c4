"""Le flair: the book's worked examples as hand-built plays, claims and their truth, the
literal "vrai" rule and its knob, the exact dealing frequencies, the players (never
peek; the adaptive player beats the heuristic seat-swapped, is not beaten by a small
sweep of fixed rates, and its exploitability stays within the documented bound),
determinism over jobs and chunks, and the knobs' errors."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import simlab
from simlab.engine import rng
from simlab.engine.knobs import SimlabError
from simlab.games.flair import FlairKnobs, hand_mask
from simlab.games.flair.equilibrium import win_rate
from simlab.games.flair.kernels import resolve_position
from simlab.games.flair.mixture import BEST_RESPONSE, EXPLOITABILITY_BOUND
from simlab.games.flair.players import HEURISTIC, choose_call, choose_play
from simlab.games.flair.rules import (
    CL_BRELAN,
    CL_CARRE,
    CL_HEARTS,
    CL_PAIRE,
    CL_SPADES,
    CL_SUITE4,
    CL_SUITE5,
    CL_TIERCE,
    N_ST,
    S_DEAD,
    S_HAND,
    S_HONEST_PUNISHED,
    S_KNOWN,
    S_WINNER,
    V_FAUX,
    V_VRAI,
    claim_true,
    knob_vector,
    popcount,
)

K3 = FlairKnobs(players=3)
K2 = FlairKnobs(players=2)


def m(*labels: str) -> int:
    return hand_mask(list(labels))


A_HAND = m("7♠", "7♦", "2♣", "10♥", "K♠", "9♥", "J♣", "4♦")
B_HAND = m("3♠", "5♥", "8♦", "Q♣", "A♠", "6♥")
C_HAND = m("2♠", "4♥", "9♦", "J♥", "K♦", "3♣")


def sizes(st: np.ndarray, n: int = 3) -> list[int]:
    return [popcount(st[S_HAND + s]) for s in range(n)]


# --- claims ---------------------------------------------------------------------------
def test_claims_and_their_truth() -> None:
    assert claim_true(m("7♠", "7♦"), CL_PAIRE, 0)
    assert not claim_true(m("7♠", "8♦"), CL_PAIRE, 0)
    assert claim_true(m("9♥"), CL_HEARTS, 0) and not claim_true(m("9♥"), CL_SPADES, 0)
    assert claim_true(m("K♠", "K♥", "K♦"), CL_BRELAN, 0)
    assert claim_true(m("Q♠", "K♥", "A♦"), CL_TIERCE, 0)  # Ace high
    assert claim_true(m("A♠", "2♥", "3♦"), CL_TIERCE, 0)  # Ace low
    assert not claim_true(m("K♠", "A♥", "2♦"), CL_TIERCE, 0)  # no wrap
    assert claim_true(m("5♠", "6♥", "7♦", "8♣"), CL_SUITE4, 0)
    assert not claim_true(m("5♠", "6♥", "7♦", "8♣"), CL_SUITE4, 1)  # runs_same_suit
    assert claim_true(m("5♠", "6♠", "7♠", "8♠"), CL_SUITE4, 1)
    assert claim_true(m("9♠", "9♥", "9♦", "9♣"), CL_CARRE, 0)
    assert claim_true(m("10♠", "J♥", "Q♦", "K♣", "A♠"), CL_SUITE5, 0)
    assert not claim_true(m("7♠", "7♦", "7♥"), CL_PAIRE, 0)  # the size must match


# --- the book's worked examples (3 players A, B, C = seats 0, 1, 2) -------------------
def test_example_1_a_wrong_faux_costs_the_challenger_the_cards_and_a_card_from_each() -> None:
    st = resolve_position(K3, [A_HAND, B_HAND, C_HAND], 0, m("7♠", "7♦"), CL_PAIRE, 1, V_FAUX)
    assert sizes(st) == [8 - 2 - 1, 6 + 4, 6 - 1]
    assert st[S_HAND + 1] & m("7♠", "7♦") == m("7♠", "7♦")
    assert st[S_WINNER] == -1


def test_example_2_a_right_vrai_on_a_true_claim_punishes_the_honest_player() -> None:
    st = resolve_position(K3, [A_HAND, B_HAND, C_HAND], 0, m("9♥"), CL_HEARTS, 2, V_VRAI)
    assert sizes(st) == [8 + 1, 6, 6 - 1]  # A +1 relative to before his turn, C −1
    assert st[S_HAND] & m("9♥") and st[S_HONEST_PUNISHED] == 1


def test_truthful_protected_keeps_the_honest_cards_out_and_takes_one_from_him() -> None:
    k = FlairKnobs(players=3, truthful_protected=True)
    st = resolve_position(k, [A_HAND, B_HAND, C_HAND], 0, m("9♥"), CL_HEARTS, 2, V_VRAI)
    assert sizes(st) == [8 - 1 - 1, 6, 6 + 1] and st[S_DEAD] == m("9♥")
    assert st[S_HONEST_PUNISHED] == 0


def test_example_3_an_unchallenged_play_leaves_the_game() -> None:
    hand = A_HAND | m("7♥")
    st = resolve_position(K3, [hand, B_HAND, C_HAND], 0, m("7♠", "7♦", "7♥"), CL_BRELAN, -1,
                          0)
    assert sizes(st) == [9 - 3, 6, 6] and st[S_DEAD] == m("7♠", "7♦", "7♥")


def test_example_4_last_cards_called_right_go_back_with_one_more() -> None:
    last = m("7♠", "8♦", "J♣")
    st = resolve_position(K3, [last, B_HAND, C_HAND], 0, last, CL_BRELAN, 1, V_FAUX)
    assert sizes(st) == [4, 5, 6] and st[S_WINNER] == -1
    # the same play unchallenged wins
    st = resolve_position(K3, [last, B_HAND, C_HAND], 0, last, CL_BRELAN, -1, 0)
    assert st[S_WINNER] == 0
    # and a wrong call lets him win too
    st = resolve_position(K3, [m("7♠", "7♦", "7♥"), B_HAND, C_HAND], 0, m("7♠", "7♦", "7♥"),
                          CL_BRELAN, 1, V_FAUX)
    assert st[S_WINNER] == 0 and sizes(st) == [0, 6 + 3 + 1, 6 - 1]


def test_example_5_two_players_a_wrong_caller_takes_the_cards_and_one_card() -> None:
    st = resolve_position(K2, [A_HAND, B_HAND], 0, m("7♠", "7♦"), CL_PAIRE, 1, V_FAUX)
    assert sizes(st, 2) == [8 - 2 - 1, 6 + 2 + 1]


def test_revealed_and_given_cards_are_remembered() -> None:
    st = resolve_position(K3, [A_HAND, B_HAND, C_HAND], 0, m("7♠", "7♦"), CL_PAIRE, 1, V_FAUX)
    for i in range(3):  # everyone saw the 7s go to B
        assert st[S_KNOWN + 4 * i + 1] & m("7♠", "7♦") == m("7♠", "7♦")
    gift_a = st[S_HAND + 1] & A_HAND & ~m("7♠", "7♦")
    assert popcount(gift_a) == 1 and st[S_KNOWN + 4 * 0 + 1] & gift_a == gift_a
    assert st[S_KNOWN + 4 * 2 + 1] & gift_a == 0  # C did not see A's gift


# --- exact dealing frequencies --------------------------------------------------------
def test_dealing_sizes_and_no_ace_at_the_exact_rate() -> None:
    g = simlab.get_game("flair")
    out = g.run_deals(K3, ("random",) * 3, 5, 0, 300, True)
    first = (out.rows[:, 1] + 1) % 3
    counts = (out.dealt >= 0).sum(axis=2)
    assert all(counts[i, first[i]] == 18 for i in range(300))
    assert (counts.sum(axis=1) == 52).all()
    n = 20_000
    k4 = FlairKnobs(players=4)
    out = g.run_deals(k4, ("random",) * 4, 6, 0, n, True)
    aces = ((out.dealt % 13 == 12) & (out.dealt >= 0)).sum(axis=2)  # [deal, seat]
    p = math.comb(48, 13) / math.comb(52, 13)
    got = (aces == 0).mean()
    se = math.sqrt(p * (1 - p) / (4 * n))
    assert abs(got - p) < 6 * se, (got, p)


# --- the players ----------------------------------------------------------------------
def test_heuristic_plays_its_largest_true_claim_or_its_whole_hand() -> None:
    kv = knob_vector(FlairKnobs(players=2, lie_rate=0.0))
    prof = np.array([0, 250_000, 850_000], dtype=np.int64)
    s0 = np.uint64(rng.stream(np.uint64(1), 0, 0, 1))
    _, cards, claim = choose_play(HEURISTIC, s0, m("9♠", "9♥", "9♦", "9♣", "2♠", "5♦"), kv, prof)
    assert claim == CL_CARRE and popcount(cards) == 4
    _, cards, claim = choose_play(HEURISTIC, s0, m("5♠", "6♥", "7♦", "K♣", "2♠", "9♦"), kv, prof)
    assert claim == CL_TIERCE
    whole = m("5♠", "6♥", "7♦", "8♣")
    _, cards, claim = choose_play(HEURISTIC, s0, whole, kv, prof)
    assert cards == whole and claim == CL_SUITE4


def test_the_call_reads_only_what_the_seat_sees() -> None:
    """Re-deal the others' hands (their sizes, the cards the seat knows where they are,
    its own hand kept): the call is the same."""
    gen = np.random.default_rng(3)
    k = FlairKnobs(players=3)
    kv = knob_vector(k)
    prof = np.array([300_000, 250_000, 850_000], dtype=np.int64)
    for _trial in range(60):
        deck = gen.permutation(52)
        st = np.zeros(N_ST, dtype=np.int64)
        cut = [0, 14, 28, 40]
        for s in range(3):
            st[S_HAND + s] = sum(1 << int(c) for c in deck[cut[s]:cut[s + 1]])
        st[S_KNOWN + 4 * 1 + 0] = 1 << int(deck[0])  # seat 1 knows one card of seat 0
        claim = int(gen.integers(0, 10))
        played = int(gen.integers(1, 6))
        base = choose_call(HEURISTIC, np.uint64(5), st, 1, 0, claim, played, kv, kv, prof)
        for _ in range(3):
            other = st.copy()
            hidden = [int(c) for c in deck[1:14]] + [int(c) for c in deck[28:52]]
            gen.shuffle(hidden)
            other[S_HAND + 0] = (1 << int(deck[0])) | sum(1 << c for c in hidden[:13])
            other[S_HAND + 2] = sum(1 << c for c in hidden[13:25])
            again = choose_call(HEURISTIC, np.uint64(5), other, 1, 0, claim, played, kv, kv,
                                prof)
            assert again == base


def _duel(x: str, y: str, n: int, seed: int = 17) -> np.ndarray:
    """x's result (+1 won, −1 lost, 0 equal) per deal at 2 players, seat-swapped."""
    a = simlab.simulate("flair", n, seed=seed, policies=f"{x},{y}", params={"players": 2},
                        progress=False)["winner"].to_numpy()
    b = simlab.simulate("flair", n, seed=seed, policies=f"{y},{x}", params={"players": 2},
                        progress=False)["winner"].to_numpy()
    ra = np.where(a == 0, 1, np.where(a == 1, -1, 0))
    rb = np.where(b == 1, 1, np.where(b == 0, -1, 0))
    return (ra + rb) / 2


def test_adaptive_beats_the_heuristic_seat_swapped() -> None:
    e = _duel("adaptive", "heuristic", 6000)
    se = e.std(ddof=1) / math.sqrt(len(e))
    assert e.mean() - 3 * se > 0, (e.mean(), se)


@pytest.mark.parametrize("spec", ["heuristic:lie_rate=0", "heuristic:lie_rate=0.5",
                                  "heuristic:faux_below=0.45", "heuristic:vrai_above=0.85",
                                  "heuristic:vrai_above=0.7"])
def test_adaptive_is_not_beaten_by_a_fixed_heuristic(spec: str) -> None:
    e = _duel("adaptive", spec, 2000)
    se = e.std(ddof=1) / math.sqrt(len(e))
    assert e.mean() + 3 * se > 0, (spec, e.mean(), se)


def test_exploitability_is_within_the_documented_bound() -> None:
    """The best fixed-rate profile of the grid found offline (``equilibrium.BEST_RESPONSE``)
    gains at most the documented bound in win rate against the adaptive player."""
    w, se = win_rate(BEST_RESPONSE, None, 3000, 123)
    assert w - 0.5 <= EXPLOITABILITY_BOUND + 3 * se, (w, se)


def test_heuristic_beats_random() -> None:
    e = _duel("heuristic", "random", 2000)
    assert e.mean() - 3 * e.std(ddof=1) / math.sqrt(len(e)) > 0, e.mean()


def test_rows_do_not_depend_on_jobs_or_chunks() -> None:
    kw = {"seed": 11, "policies": "adaptive,heuristic,random", "progress": False,
          "params": {"players": 3}}
    one = simlab.simulate("flair", 1500, jobs=1, chunk_size=1500, **kw)
    two = simlab.simulate("flair", 1500, jobs=2, chunk_size=331, **kw)
    assert one.equals(two)
    m1 = simlab.simulate("flair", 100, level="match", jobs=1, **kw)
    m2 = simlab.simulate("flair", 100, level="match", jobs=2, chunk_size=37, **kw)
    assert m1.equals(m2) and (m1["n_deals"] == 4).all()


# --- errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("params, words", [
    ({"players": 5}, "int from 2 to 4"),
    ({"players": 1}, "int from 2 to 4"),
    ({"lie_rate": 2}, "float from 0.0 to 1.0"),
    ({"first_caller": "loudest"}, "clockwise, random"),
    ({"play_cap": 0}, "int from 10 to 100000"),
])
def test_bad_knobs_name_the_valid_range(params: dict, words: str) -> None:
    with pytest.raises(SimlabError, match=words):
        simlab.simulate("flair", 10, params=params, progress=False)


def test_bad_values_exit_2_in_one_line() -> None:
    for args in (["--set", "players=5"], ["--policy", "search"],
                 ["--set", "players=2", "--policy", "adaptive,adaptive,adaptive"]):
        r = subprocess.run([sys.executable, "-m", "simlab", "run", "flair", "-n", "5", *args],
                           capture_output=True, text=True)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
