"""The shared pieces of the search player (simlab/mechanics/search.py) and duplicate play (simlab/players/duel.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest

from simlab.games import get_game
from simlab.mechanics import search
from simlab.players.duel import arrangements, duplicate, per_deal_edge


def _sample(st, allowed, cap, owner, work):
    st, ok = search.sample_owners(np.uint64(st), allowed, cap, len(allowed), len(cap), owner, work)
    return np.uint64(st), ok


def _feasible_brute(allowed: np.ndarray, cap: np.ndarray) -> bool:
    n_slots = len(cap)
    for owners in itertools.product(range(n_slots), repeat=len(allowed)):
        if all(allowed[i] >> s & 1 for i, s in enumerate(owners)) and \
                np.array_equal(np.bincount(owners, minlength=n_slots), cap):
            return True
    return False


def test_sample_owners_respects_constraints_and_says_when_impossible():
    gen = np.random.default_rng(3)
    st = np.uint64(11)
    seen_infeasible = seen_feasible = 0
    for _ in range(300):
        n_slots = int(gen.integers(1, 4))
        n_cards = int(gen.integers(1, 7))
        cap = np.bincount(gen.integers(0, n_slots, n_cards), minlength=n_slots).astype(np.int64)
        allowed = gen.integers(1, 1 << n_slots, n_cards).astype(np.int64)
        owner = np.full(n_cards, -1, dtype=np.int64)
        work = np.zeros(search.work_size(n_cards, n_slots), dtype=np.int64)
        st, ok = _sample(st, allowed, cap, owner, work)
        assert ok == _feasible_brute(allowed, cap)
        if ok:
            seen_feasible += 1
            assert np.array_equal(np.bincount(owner, minlength=n_slots), cap)
            assert all(allowed[i] >> owner[i] & 1 for i in range(n_cards))
        else:
            seen_infeasible += 1
    assert seen_feasible > 50 and seen_infeasible > 20  # both branches exercised


def test_sample_owners_unconstrained_is_a_uniform_deal():
    # 10 cards into places of 2, 5 and 3: P(card i in place s) = cap[s] / 10 exactly.
    cap = np.array([2, 5, 3], dtype=np.int64)
    allowed = np.full(10, 7, dtype=np.int64)
    owner = np.zeros(10, dtype=np.int64)
    work = np.zeros(search.work_size(10, 3), dtype=np.int64)
    counts = np.zeros((10, 3))
    st, n = np.uint64(5), 20_000
    for _ in range(n):
        st, ok = _sample(st, allowed, cap, owner, work)
        assert ok
        counts[np.arange(10), owner] += 1
    p = cap / 10
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(counts / n - p) < 5 * se)


def test_sample_owners_reaches_every_consistent_world():
    # Cards 0, 1 may not go to place 1 (a revealed void); every consistent deal appears.
    allowed = np.array([0b101, 0b101, 0b111, 0b111], dtype=np.int64)
    cap = np.array([1, 2, 1], dtype=np.int64)
    worlds = {o for o in itertools.product(range(3), repeat=4)
              if all(allowed[i] >> s & 1 for i, s in enumerate(o))
              and list(np.bincount(o, minlength=3)) == [1, 2, 1]}
    owner = np.zeros(4, dtype=np.int64)
    work = np.zeros(search.work_size(4, 3), dtype=np.int64)
    seen = set()
    st = np.uint64(1)
    for _ in range(2_000):
        st, ok = _sample(st, allowed, cap, owner, work)
        assert ok
        seen.add(tuple(int(x) for x in owner))
    assert seen == worlds and len(worlds) == 2  # 2 and 3 must fill place 1


def test_sample_owners_is_a_function_of_its_stream():
    allowed = np.full(8, 3, dtype=np.int64)
    cap = np.array([4, 4], dtype=np.int64)
    a, b = np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64)
    work = np.zeros(search.work_size(8, 2), dtype=np.int64)
    _sample(7, allowed, cap, a, work)
    _sample(7, allowed, cap, b, work)
    assert np.array_equal(a, b)


def test_best_move_and_decision_streams():
    assert search.best_move(np.array([1.0, 3.0, 3.0, 2.0]), 4) == 1  # first of the ties
    assert search.best_move(np.array([5.0, 9.0]), 1) == 0  # only the first n count
    s = {int(search.decision_stream(np.uint64(1), d, 0, seat, ply))
         for d in range(3) for seat in range(4) for ply in range(5)}
    assert len(s) == 60


def test_duel_arrangements():
    assert arrangements("g", "search", "heuristic", 4, (0, 1, 0, 1)) == [
        ("search,heuristic,search,heuristic", [0, 2]), ("heuristic,search,heuristic,search", [1, 3])]
    assert arrangements("g", "x", "y", 3, None) == [
        ("y,y,y", []), ("x,y,y", [0]), ("y,x,y", [1]), ("y,y,x", [2])]


def test_duel_edge_on_a_hand_made_frame():
    # one deal, 2 teams: X on team 0 wins by 10, then X on team 1 loses by 4 -> edge 3
    f1 = pl.DataFrame({"score_s0": [20], "score_s1": [10], "score_s2": [20], "score_s3": [10]})
    f2 = pl.DataFrame({"score_s0": [14], "score_s1": [10], "score_s2": [14], "score_s3": [10]})
    e = per_deal_edge([f1, f2], [[0, 2], [1, 3]], 4, (0, 1, 0, 1), False)
    assert e.tolist() == [3.0]
    # no teams, each score relative to its table's mean: base run [1, 2, 3] (mean 2:
    # -1, 0, +1); X at seat 0 marks 4, the others 0 (4 - 4/3 = 8/3: +11/3 over Y's -1);
    # at seat 1, 2 of 2 (2 - 2/3: +4/3 over 0); at seat 2, 0 of 0 (0: -1 under +1)
    base = pl.DataFrame({"score_s0": [1], "score_s1": [2], "score_s2": [3]})
    runs = [pl.DataFrame({"score_s0": [a], "score_s1": [b], "score_s2": [c]})
            for a, b, c in ((4, 0, 0), (0, 2, 0), (0, 0, 0))]
    e = per_deal_edge([base, *runs], [[], [0], [1], [2]], 3, None, False)
    assert e == pytest.approx([(11 / 3 + 4 / 3 - 1) / 3])
    assert per_deal_edge([base, *runs], [[], [0], [1], [2]], 3, None, True) == \
        pytest.approx([-(11 / 3 + 4 / 3 - 1) / 3])
    # zero-sum scores: the table means are 0, the edge is the plain score difference
    base = pl.DataFrame({"score_s0": [1], "score_s1": [-2], "score_s2": [1]})
    runs = [pl.DataFrame({"score_s0": [a], "score_s1": [b], "score_s2": [c]})
            for a, b, c in ((4, -2, -2), (1, -2, 1), (0, 0, 0))]
    e = per_deal_edge([base, *runs], [[], [0], [1], [2]], 3, None, False)
    assert e == pytest.approx([(3 + 0 - 1) / 3])


@pytest.mark.parametrize("game", ["belote", "president"])
def test_duel_same_policy_is_exactly_even_and_random_is_weaker(game):
    same = duplicate(get_game(game), "heuristic", "heuristic", n=300, seed=2)
    assert same.edge == 0 and same.n == 300
    weak = duplicate(get_game(game), "random", "heuristic", n=1_000, seed=2)
    assert weak.hi < 0 and not math.isnan(weak.lo)


def test_bench_times_a_search_seat_and_duel_prints_the_edge(capsys):
    from simlab.cli.commands import main

    assert main(["bench", "--games", "belote", "-n", "2000", "--jobs-list", "1", "--search-n", "20"]) == 0
    out = capsys.readouterr().out
    assert "belote (1 search seat)" in out and "default search budget" in out
    assert main(["bench", "--games", "belote", "--search-n", "-1"]) == 2
    assert "--search-n must be >= 0" in capsys.readouterr().err
    assert main(["duel", "belote", "-n", "200", "--seed", "1", "--x", "random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("random vs heuristic in belote: -") and "n = 200 deals, paired" in out
    assert main(["duel", "belote", "-n", "10", "--x", "smart"]) == 2
    assert "valid policies: random, heuristic, search" in capsys.readouterr().err
