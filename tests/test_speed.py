"""Speed: the catalogue's worked examples as hand-built boards, the deal, the stall flip
and the recycling, rows that add up, the report's sweep, and the knobs' errors."""

from __future__ import annotations

import numpy as np
import pytest

import simlab
from simlab.cli.commands import main
from simlab.engine.knobs import SimlabError
from simlab.games.speed.kernels import simulate_rows
from simlab.games.speed.players import choose
from simlab.games.speed.rules import (
    CENTRE,
    HAND,
    N_PILES,
    N_ST,
    OUTER,
    PILE_CAP,
    SpeedKnobs,
    count_options,
    deal,
    flip,
    knob_vector,
    legal,
    recycle,
)

RANK = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                    "K", "A"])}


def board(tops: tuple[str, str], hand0: list[str], hand1: list[str] = (),
          outer: int = 5) -> tuple[np.ndarray, np.ndarray]:
    piles = np.zeros((N_PILES, PILE_CAP), dtype=np.int64)
    n = np.zeros(N_PILES, dtype=np.int64)
    for p, r in enumerate(tops):
        piles[CENTRE + p, 0] = RANK[r]
        n[CENTRE + p] = 1
    for s, hand in enumerate((hand0, hand1)):
        for j, r in enumerate(hand):
            piles[HAND + s, j] = RANK[r] + 13 * (j % 4)
        n[HAND + s] = len(hand)
    for s in range(2):
        for j in range(outer):
            piles[OUTER + s, j] = 13 * 3 + j + 5 * s
        n[OUTER + s] = outer
    return piles, n


def test_example_1_four_legal_plays_on_5_and_king() -> None:
    piles, n = board(("5", "K"), ["4", "6", "Q", "A", "9"])
    assert count_options(piles, n, 0) == 4
    plays = {(int(piles[HAND, s] % 13), p) for s in range(5) for p in range(2)
             if legal(piles, n, 0, s, p)}
    assert plays == {(RANK["4"], 0), (RANK["6"], 0), (RANK["Q"], 1), (RANK["A"], 1)}


def test_example_2_circular_ranks() -> None:
    piles, n = board(("A", "A"), ["2", "K", "A", "3"])
    ok = [legal(piles, n, 0, s, 0) for s in range(4)]
    assert ok == [True, True, False, False]


def test_example_3_stall_flips_one_card_from_each_outer_pile() -> None:
    piles, n = board(("7", "7"), ["2", "3", "4", "J", "Q"], ["2", "3", "4", "J", "Q"])
    assert count_options(piles, n, 0) == 0 and count_options(piles, n, 1) == 0
    assert flip(piles, n)
    assert n[OUTER] == 4 and n[OUTER + 1] == 4 and n[CENTRE] == 2 and n[CENTRE + 1] == 2


def test_example_4_recycling_turns_the_piles_over_unshuffled() -> None:
    piles, n = board(("7", "9"), [], outer=0)
    for p, played in ((0, ["8", "9", "10"]), (1, ["8", "7"])):
        for r in played:
            piles[CENTRE + p, n[CENTRE + p]] = RANK[r]
            n[CENTRE + p] += 1
    assert not flip(piles, n)  # outer piles empty: recycle
    recycle(piles, n, np.uint64(1), False)
    # the first card placed on each pile (its base) is the new top
    assert piles[CENTRE, n[CENTRE] - 1] == RANK["7"] and n[CENTRE] == 1
    assert piles[CENTRE + 1, n[CENTRE + 1] - 1] == RANK["9"] and n[CENTRE + 1] == 1
    # the rest lies face down in reverse, next flips in the order played
    assert n[OUTER] == 3 and piles[OUTER, n[OUTER] - 1] == RANK["8"]
    assert flip(piles, n) and piles[CENTRE, 1] == RANK["8"]


def test_the_deal_uses_every_card_as_the_book_says() -> None:
    k = SpeedKnobs()
    kv = knob_vector(k)
    piles = np.zeros((N_PILES, PILE_CAP), dtype=np.int64)
    n = np.zeros(N_PILES, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    deal(np.arange(52, dtype=np.int64), piles, n, st, kv)
    assert list(n) == [15, 15, 5, 5, 1, 1, 5, 5]
    cards = np.concatenate([piles[i, :n[i]] for i in range(N_PILES)])
    assert sorted(cards) == list(range(52))


def test_choice_players_see_only_their_hand() -> None:
    """A player's choice reads its hand and the tops; the other hand never changes it."""
    kv = knob_vector(SpeedKnobs())
    for other in (["2", "3", "4", "J", "Q"], ["6", "4", "8", "K", "A"]):
        piles, n = board(("5", "K"), ["4", "6", "Q", "A", "9"], other)
        for code in (0, 1):
            _, slot, pile, opts = choose(code, np.uint64(7), piles, n, 0, kv)
            assert opts == 4
            if other[0] == "2":
                first = (slot, pile)
            else:
                assert (slot, pile) == first or code == 0


def test_rows_add_up() -> None:
    f = simlab.simulate("speed", 3_000, seed=2, progress=False)
    assert (f["score_s0"] == f["plays_s0"]).all() and (f["score_s1"] == f["plays_s1"]).all()
    assert (f["score_s0"] + f["cards_left_s0"] == 20).all()
    won = f.filter(f["winner"] >= 0)
    assert ((won["winner"] == 0) == (won["cards_left_s0"] == 0)).all() or \
        won["capped"].any()
    assert (f["stalls"] >= f["recycles"]).all()
    assert (f["capped"] == False).sum() > 2_900  # noqa: E712  the cap is rare
    m = simlab.simulate("speed", 300, seed=2, level="match", params={"match_games": 3},
                        progress=False)
    assert (m["final_score_s0"] + m["final_score_s1"] + m["drawn_games"] == 3).all()


def test_mistakes_freeze_and_are_counted() -> None:
    f = simlab.simulate("speed", 2_000, seed=2, progress=False, params={"error_rate": 0.1})
    g = simlab.simulate("speed", 2_000, seed=2, progress=False)
    assert f["errors"].sum() > 0 and g["errors"].sum() == 0
    assert f["time_ms"].mean() > g["time_ms"].mean()
    # a seat that errs more loses more
    h = simlab.simulate("speed", 3_000, seed=2, progress=False,
                        policies="heuristic,heuristic:error_rate=0.3")
    assert (h["winner"] == 0).mean() > 0.6


def test_recycle_cap_stops_the_game_and_fewer_cards_win() -> None:
    f = simlab.simulate("speed", 3_000, seed=4, progress=False,
                        params={"max_recycles": 1, "replacement_pile": 0})
    capped = f.filter(f["capped"])
    assert capped.height > 0
    for row in capped.iter_rows(named=True):
        a, b = row["cards_left_s0"], row["cards_left_s1"]
        assert row["winner"] == (0 if a < b else 1 if b < a else -1)


def test_heuristic_beats_random_at_equal_speed() -> None:
    n = 6_000
    a = simulate_rows(SpeedKnobs(), ("heuristic", "random"), 5, n)[:, 3]
    b = simulate_rows(SpeedKnobs(), ("random", "heuristic"), 6, n)[:, 3]
    won = (a == 0).sum() + (b == 1).sum()
    p = won / (2 * n)
    assert p - 3 * np.sqrt(0.25 / (2 * n)) > 0.5, p


def test_report_states_the_model_first_and_sweeps_the_speed_ratio() -> None:
    from simlab.games.speed.questions import exact_findings, ratio_at

    found = exact_findings(SpeedKnobs())
    assert found[0][0] == "0. Player model" and "lognormal" in found[0][1]
    q1 = dict(found)["1. Speed vs luck"]
    assert "1.5x" in q1 and "wins 25% at a speed ratio of about" in q1
    assert ratio_at([(1.0, 50, 100), (2.0, 10, 100)], 0.25) == pytest.approx(1.625)
    assert ratio_at([(1.0, 50, 100), (2.0, 40, 100)], 0.25) is None


@pytest.mark.parametrize("params, words", [
    ({"hand_size": 0}, "int from 1 to 10"),
    ({"personal_pile": 24, "replacement_pile": 3}, "<= 52"),
    ({"rt_median": 0.0}, "float from 0.001"),
    ({"error_rate": 2.0}, "float from 0.0 to 1.0"),
    ({"max_recycles": 0}, "int from 1"),
])
def test_bad_knobs_name_the_valid_range(params: dict, words: str) -> None:
    with pytest.raises(SimlabError, match=words):
        simlab.simulate("speed", 10, params=params, progress=False)


@pytest.mark.parametrize("argv, words", [
    (["--set", "hand_size=11"], "int from 1 to 10"),
    (["--set", "rt_sigma=-1"], "rt_sigma"),
    (["--policy", "heuristic,random,random"], "1 or 2"),
    (["--policy", "heuristic:hand_size=3"], "a rule"),
])
def test_cli_errors_are_one_line_exit_2(capsys, tmp_path, argv: list[str], words: str) -> None:
    code = main(["run", "speed", "-n", "10", "--no-progress",
                 "--out", str(tmp_path / "x.parquet"), *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0], err
