"""Adrénaline: the book's worked examples and hand-built positions, the objectives, the
exact dealing frequencies, the Bayesian player (never peeks; beats the heuristic by
seat-swapped play; not beaten by a small sweep of the heuristic's knobs), determinism over
jobs and chunks, and the knobs' errors."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import simlab
from simlab.engine import rng
from simlab.engine.knobs import SimlabError
from simlab.games.adrenaline import AdrenalineKnobs, hand_mask, play_position
from simlab.games.adrenaline.players import BAYES, HEURISTIC, stop_decision
from simlab.games.adrenaline.rules import (
    E_FINISH,
    E_STOP_RIGHT,
    E_STOP_WRONG,
    MAX_OBJ,
    O_FLUSH,
    O_PROGRESSION,
    O_RED,
    O_STRAIGHT,
    OBJECTIVES,
    S_END,
    S_ENDER,
    S_SCORE,
    S_T,
    completion_estimate,
    knob_vector,
    progress,
    satisfied,
)

K = AdrenalineKnobs()
NEVER_STOPS = "heuristic:stop_threshold=1.01"


def cards(*labels: str) -> int:
    return hand_mask(list(labels))


def ids(*labels: str) -> list[int]:
    return [simlab.get_game("adrenaline").deck.index(x) for x in labels]


# --- the objectives -------------------------------------------------------------------
def test_example_3_all_hearts_is_a_flush() -> None:
    hand = cards("2♥", "5♥", "9♥", "J♥", "K♥")
    assert satisfied(O_FLUSH, hand) and satisfied(O_RED, hand)
    assert not satisfied(O_STRAIGHT, hand)
    # four hearts and a spade: one short
    four = cards("2♥", "5♥", "9♥", "J♥", "K♠")
    assert progress(O_FLUSH, four, (1 << 52) - 1) == 4 and not satisfied(O_FLUSH, four)


def test_example_4_progression() -> None:
    assert satisfied(O_PROGRESSION, cards("A♠", "3♠", "5♠", "7♠", "9♠"))
    assert satisfied(O_PROGRESSION, cards("3♦", "5♦", "7♦", "9♦", "J♦"))
    assert not satisfied(O_PROGRESSION, cards("A♠", "3♠", "5♥", "7♠", "9♠"))


def test_every_entry_constrains_all_five_cards() -> None:
    """'Three kings' is no objective: every entry is a property of the five cards, so a
    hand three of whose cards fit it never satisfies it on that account alone."""
    by_name = {n: i for i, n in enumerate(OBJECTIVES)}
    examples = {"figures": ("J♠", "Q♥", "K♦", "J♣", "Q♠"), "no_figures": ("A♠", "2♥", "3♦", "9♣", "10♠"),
                "straight": ("10♠", "J♥", "Q♦", "K♣", "A♠"), "flush": ("2♣", "4♣", "6♣", "8♣", "K♣"),
                "red": ("2♥", "5♦", "9♥", "J♦", "K♥"), "black": ("2♠", "5♣", "9♠", "J♣", "K♠"),
                "even": ("2♠", "4♥", "6♦", "10♣", "Q♠"), "odd": ("A♠", "3♥", "7♦", "J♣", "K♠"),
                "progression": ("5♥", "7♥", "9♥", "J♥", "K♥"),
                "full_house": ("K♠", "K♥", "K♦", "4♣", "4♠"), "low": ("A♠", "2♥", "3♦", "4♣", "5♠"),
                "middle": ("6♠", "7♥", "8♦", "9♣", "10♠")}
    assert set(examples) == set(OBJECTIVES)
    for name, hand in examples.items():
        assert satisfied(by_name[name], cards(*hand)), name
        # change one card to break it
    assert satisfied(O_STRAIGHT, cards("A♠", "2♥", "3♦", "4♣", "5♠"))
    assert not satisfied(O_STRAIGHT, cards("Q♠", "K♥", "A♦", "2♣", "3♠"))  # no wrap
    three_kings = cards("K♠", "K♥", "K♦", "4♣", "7♠")
    assert not any(satisfied(o, three_kings) for o in range(MAX_OBJ) if OBJECTIVES[o] != "figures")


def test_completion_estimate_is_a_probability_and_zero_when_impossible() -> None:
    hand = cards("2♥", "5♥", "9♥", "J♥", "K♠")
    rest = ((1 << 52) - 1) & ~hand
    assert completion_estimate(O_FLUSH, hand, rest) == pytest.approx(1 - 0.5 ** 9)
    no_hearts = rest & ~cards(*[f"{r}♥" for r in ("A", "3", "4", "6", "7", "8", "10", "Q", "K")])
    assert completion_estimate(O_FLUSH, hand, no_hearts) < 1e-3 or progress(O_FLUSH, hand, hand | no_hearts) <= 4


# --- the book's worked examples: scoring ----------------------------------------------
def test_example_1_a_finish_with_12_cards_left_scores_18() -> None:
    hand0 = cards("2♥", "5♥", "9♥", "J♥", "K♠")
    hand1 = cards("2♠", "3♠", "4♣", "8♣", "Q♣")
    talon = ids("7♥") + ids(*[f"{r}♦" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")])
    assert len(talon) == 13
    st = play_position(K, ("heuristic", NEVER_STOPS), (hand0, hand1), (O_RED, O_STRAIGHT),
                       talon, mover=0)
    assert st[S_END] == E_FINISH and st[S_ENDER] == 0 and st[S_T] == 12
    assert st[S_SCORE] == 18 and st[S_SCORE + 1] == 0


def test_an_early_finish_scores_30_minus_t_even_below_zero() -> None:
    """Compulsory at the completing draw: with 40 cards left it scores −10."""
    hand0 = cards("2♥", "5♥", "9♥", "J♥", "K♠")
    hand1 = cards("2♠", "3♠", "4♣", "8♣", "Q♣")
    rest = [c for c in range(52) if not (hand0 | hand1) >> c & 1 and c != ids("7♥")[0]]
    talon = ids("7♥") + rest[:40]
    st = play_position(K, ("heuristic", NEVER_STOPS), (hand0, hand1), (O_RED, O_STRAIGHT),
                       talon, mover=0)
    assert st[S_END] == E_FINISH and st[S_T] == 40 and st[S_SCORE] == -10
    st = play_position(AdrenalineKnobs(finish_optional=True), ("heuristic", NEVER_STOPS),
                       (hand0, hand1), (O_RED, O_STRAIGHT), talon, mover=0)
    assert not (st[S_END] == E_FINISH and st[S_T] == 40)  # may wait when optional


@pytest.mark.parametrize("t", [20, 42])
def test_example_2_a_stop_scores_plus_or_minus_20_plus_t(t: int) -> None:
    """The heuristic with τ = 0 stops before the first draw it sees, naming its most
    likely entry: +(20 + t) when it is right, −(20 + t) when not."""
    hand0 = cards("2♥", "5♥", "9♥", "J♦", "K♠")
    hand1 = cards("2♠", "3♠", "4♣", "8♣", "Q♣")
    rest = [c for c in range(52) if not (hand0 | hand1) >> c & 1][:t]
    seen = set()
    for obj in range(MAX_OBJ):
        st = play_position(K, ("heuristic:stop_threshold=0", "random"), (hand0, hand1),
                           (0, obj), rest, mover=1)
        assert st[S_ENDER] == 0 and st[S_T] == t
        right = st[S_END] == E_STOP_RIGHT
        assert st[S_SCORE] == (20 + t if right else -(20 + t)) and st[S_SCORE + 1] == 0
        seen.add(int(st[S_END]))
    assert seen == {E_STOP_RIGHT, E_STOP_WRONG}


def test_rows_add_up_and_scores_follow_the_end() -> None:
    f = simlab.simulate("adrenaline", 3000, seed=3, policies="bayes,heuristic",
                        progress=False)
    end = f["end"].cast(str).to_numpy()
    t = f["talon_left"].to_numpy()
    ender = f["ender"].to_numpy()
    s = np.stack([f["score_s0"].to_numpy(), f["score_s1"].to_numpy()], axis=1)
    for i in range(len(f)):
        if end[i] == "exhausted":
            assert t[i] == 0 and (s[i] == 0).all()
            continue
        want = {"finish": 30 - t[i], "stop_right": 20 + t[i], "stop_wrong": -(20 + t[i])}[end[i]]
        assert s[i, ender[i]] == want and s[i, 1 - ender[i]] == 0
    assert set(end) >= {"finish", "stop_right", "stop_wrong"}


# --- exact dealing frequencies --------------------------------------------------------
def test_dealt_hands_all_red_at_the_exact_rate() -> None:
    n = 30_000
    out = simlab.get_game("adrenaline").run_deals(K, ("random", "random"), 5, 0, n, True)
    red = np.isin(out.dealt // 13, [1, 2]).all(axis=2)  # [deal, seat]
    p = math.comb(26, 5) / math.comb(52, 5)
    se = math.sqrt(p * (1 - p) / (2 * n))
    assert abs(red.mean() - p) < 5 * se, (red.mean(), p)
    # the hands are disjoint, 5 cards each
    d = out.dealt.reshape(n, 10)
    assert all(len(set(row)) == 10 for row in d[:500])


# --- the players ----------------------------------------------------------------------
def _post() -> np.ndarray:
    p = np.full(MAX_OBJ, 0.02)
    p[O_RED] = 1 - 0.02 * (MAX_OBJ - 1)
    return p


@pytest.mark.parametrize("code", [HEURISTIC, BAYES])
def test_the_stop_reads_only_what_the_seat_sees(code: int) -> None:
    """Re-deal the hidden part (the talon below its top card, the opponent's objective
    which the decision never receives) consistently with the view: the decision is the
    same."""
    gen = np.random.default_rng(4)
    kv = knob_vector(K)
    for trial in range(40):
        order = gen.permutation(52).astype(np.int64)
        mine = sum(1 << int(c) for c in order[:5])
        opp = sum(1 << int(c) for c in order[5:10])
        pos = int(gen.integers(10, 40))
        post = gen.dirichlet(np.ones(MAX_OBJ) * 0.3)
        args = (mine, 3, opp)
        base = stop_decision(code, np.uint64(rng.stream(np.uint64(1), trial, 0, 1)), *args, order, pos,
                             kv, kv, post.copy(), np.zeros(MAX_OBJ), np.zeros((MAX_OBJ, 6)),
                             np.zeros(6))
        for _ in range(3):
            other = order.copy()
            other[pos + 1:] = gen.permutation(other[pos + 1:])
            again = stop_decision(code, np.uint64(rng.stream(np.uint64(1), trial, 0, 1)), *args, other,
                                  pos, kv, kv, post.copy(), np.zeros(MAX_OBJ),
                                  np.zeros((MAX_OBJ, 6)), np.zeros(6))
            assert again[1] == base[1] and again[2] == pytest.approx(base[2])


def _edge(x: str, y: str, n: int, params: dict | None = None) -> np.ndarray:
    """x's score minus y's per deal, seat-swapped on the same deals (per-deal mean)."""
    a = simlab.simulate("adrenaline", n, seed=21, policies=f"{x},{y}", params=params or {},
                        progress=False)
    b = simlab.simulate("adrenaline", n, seed=21, policies=f"{y},{x}", params=params or {},
                        progress=False)
    da = (a["score_s0"] - a["score_s1"]).to_numpy()
    db = (b["score_s1"] - b["score_s0"]).to_numpy()
    return (da + db) / 2


def test_bayes_beats_the_heuristic_seat_swapped() -> None:
    e = _edge("bayes", "heuristic", 3000)
    se = e.std(ddof=1) / math.sqrt(len(e))
    assert e.mean() - 3 * se > 0, (e.mean(), se)


@pytest.mark.parametrize("spec", ["heuristic:bluff_rate=0", "heuristic:bluff_rate=0.6",
                                  "heuristic:stop_threshold=0.3",
                                  "heuristic:stop_threshold=0.9",
                                  "heuristic:go_at=18", "heuristic:go_at=32"])
def test_bayes_is_not_beaten_by_a_fixed_heuristic(spec: str) -> None:
    e = _edge("bayes", spec, 1000)
    se = e.std(ddof=1) / math.sqrt(len(e))
    assert e.mean() + 3 * se > 0, (spec, e.mean(), se)


def test_heuristic_beats_random() -> None:
    e = _edge("heuristic", "random", 2000)
    assert e.mean() > 0


def test_rows_do_not_depend_on_jobs_or_chunks() -> None:
    kw = {"seed": 11, "policies": "bayes,heuristic", "progress": False}
    one = simlab.simulate("adrenaline", 1500, jobs=1, chunk_size=1500, **kw)
    two = simlab.simulate("adrenaline", 1500, jobs=2, chunk_size=331, **kw)
    assert one.equals(two)
    m1 = simlab.simulate("adrenaline", 200, level="match", jobs=1, **kw)
    m2 = simlab.simulate("adrenaline", 200, level="match", jobs=2, chunk_size=37, **kw)
    assert m1.equals(m2) and (m1["n_deals"] == 6).all()


# --- errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("params, words", [
    ({"objectives": 1}, "int from 2 to 12"),
    ({"objectives": 13}, "int from 2 to 12"),
    ({"match_deals": 0}, "int from 1 to 999"),
    ({"bluff_rate": 1.5}, "float from 0.0 to 1.0"),
    ({"stop_threshold": -0.1}, "float from 0.0 to 1.01"),
])
def test_bad_knobs_name_the_valid_range(params: dict, words: str) -> None:
    with pytest.raises(SimlabError, match=words):
        simlab.simulate("adrenaline", 10, params=params, progress=False)


def test_bad_values_exit_2_in_one_line() -> None:
    for args in (["--set", "objectives=99"], ["--policy", "search"],
                 ["--policy", "bayes,bayes,bayes"]):
        r = subprocess.run([sys.executable, "-m", "simlab", "run", "adrenaline", "-n", "5",
                            *args], capture_output=True, text=True)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
