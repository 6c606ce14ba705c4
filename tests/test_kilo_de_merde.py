"""Kilo de merde: the packet by player count, exact dealing frequencies, combinations,
the deadlock test (the catalogue's example 5), the 7's flush (example 2), rows that add
up, passing skill, the report's sweeps, and the knobs' errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simlab
from simlab.cli.commands import main
from simlab.engine.knobs import SimlabError
from simlab.games.kilo_de_merde.kernels import (
    N_Q,
    Q_PN,
    Q_SN,
    T_PILE,
    draw_penalty,
    simulate_rows,
)
from simlab.games.kilo_de_merde.rules import (
    COMBO_RANK,
    COMBO_SUIT,
    L_FIXED,
    MAX_PLAYERS,
    N_CARDS,
    KiloKnobs,
    can_all_complete,
    has_combo,
    knob_vector,
    packet_ranks,
)

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "♠♥♦♣"
BOTH = COMBO_RANK | COMBO_SUIT


def card(name: str) -> int:
    return SUITS.index(name[-1]) * 13 + RANKS.index(name[:-1])


def hand(*names: str) -> np.ndarray:
    return np.array([card(x) for x in names], dtype=np.int64)


def test_packet_by_player_count_as_the_book_lists_it() -> None:
    want = {3: "K Q J", 4: "K Q J 2", 5: "K Q J 2 3", 9: "K Q J 2 3 4 5 6 8",
            10: "K Q J 2 3 4 5 6 8 9"}
    for n, ranks in want.items():
        assert [RANKS[r] for r in packet_ranks(n)] == ranks.split()
    # example 1: with 4 players the pile holds 36 cards, the Aces and the 7s among them
    f = simlab.simulate("kilo_de_merde", 200, seed=1, record_hands=True, progress=False)
    for row in f.iter_rows(named=True):
        cards = [c for s in range(4) for c in row[f"dealt_s{s}"]]
        assert len(cards) == 16 and len(set(cards)) == 16
        assert {c[:-1] for c in cards} == {"K", "Q", "J", "2"}


@pytest.mark.parametrize("n", [3, 4, 6, 10])
def test_a_seat_s_four_cards_all_of_different_ranks_exact_frequency(n: int) -> None:
    """P = C(n, 4) 4^4 / C(4n, 4) (0 with 3 players), within 5 standard errors."""
    p = math.comb(n, 4) * 4 ** 4 / math.comb(4 * n, 4)
    count = 4_000
    f = simlab.simulate("kilo_de_merde", count, seed=2, record_hands=True,
                        params={"players": n}, progress=False)
    hits = sum(1 for h in f["dealt_s1"].to_list() if len({c[:-1] for c in h}) == 4)
    se = math.sqrt(max(p * (1 - p), 1e-12) / count)
    assert abs(hits / count - p) <= 5 * se + 1e-12, (hits / count, p)


def test_combinations_of_a_rank_or_a_suit() -> None:
    assert has_combo(hand("K♠", "K♥", "K♦", "K♣"), 4, BOTH) == 1 + RANKS.index("K")
    assert has_combo(hand("K♥", "Q♥", "J♥", "2♥"), 4, BOTH) == 20 + 1
    assert has_combo(hand("K♥", "Q♥", "J♥", "2♥"), 4, COMBO_RANK) == 0
    assert has_combo(hand("K♠", "K♥", "K♦", "K♣"), 4, COMBO_SUIT) == 0
    assert has_combo(hand("K♥", "Q♥", "J♠", "2♥"), 4, BOTH) == 0
    # a receiver holding five: four of them make it
    assert has_combo(hand("Q♦", "K♠", "K♥", "K♦", "K♣"), 5, BOTH) == 1 + RANKS.index("K")


def _table(hands: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tab = np.zeros((MAX_PLAYERS + 3, N_CARDS), dtype=np.int64)
    hn = np.zeros(len(hands), dtype=np.int64)
    for s, h in enumerate(hands):
        for j, c in enumerate(h):
            tab[s, j] = card(c)
        hn[s] = len(h)
    return tab, hn, np.ones(len(hands), dtype=np.int64)


def test_example_5_deadlock_after_two_suit_flushes_with_5_players() -> None:
    rest = ["2♥", "3♠", "K♦", "Q♦", "J♦", "2♦", "3♦", "K♣", "Q♣", "J♣", "2♣", "3♣"]
    tab, hn, active = _table([[], [], rest[0:4], rest[4:8], rest[8:12]])
    active[:2] = 0
    hn[:2] = 0
    work = np.zeros(N_CARDS, dtype=np.int64)
    assert not can_all_complete(tab, hn, active, 5, BOTH, work)
    # n = 4 after a ♥ flush: the other three suits complete (the catalogue's review)
    rest4 = [f"{r}{u}" for u in "♠♦♣" for r in ("K", "Q", "J", "2")]
    tab, hn, active = _table([[], rest4[0:4], rest4[4:8], rest4[8:12]])
    active[0] = 0
    hn[0] = 0
    assert can_all_complete(tab, hn, active, 4, BOTH, work)
    # ranks only: the four Kings and four Queens still split
    tab, hn, active = _table([["K♠", "Q♥", "K♦", "Q♣"], ["Q♠", "K♥", "Q♦", "K♣"]])
    assert can_all_complete(tab, hn, active, 2, COMBO_RANK, work)


def test_example_2_a_7_flushes_the_kilos_back_into_the_pile() -> None:
    kv = knob_vector(KiloKnobs())
    tab = np.zeros((MAX_PLAYERS + 3, N_CARDS), dtype=np.int64)
    stacks = np.zeros((MAX_PLAYERS, N_CARDS), dtype=np.int64)
    q = np.zeros(N_Q, dtype=np.int64)
    stacks[0, 0], stacks[0, 1] = card("A♠"), card("3♦")
    q[Q_SN] = 2
    tab[T_PILE, 0], tab[T_PILE, 1] = card("9♥"), card("7♣")
    q[Q_PN] = 2
    cnt = np.zeros(L_FIXED, dtype=np.int64)
    pen = np.zeros(MAX_PLAYERS, dtype=np.int64)
    draw_penalty(np.uint64(1), tab, stacks, q, kv, 0, cnt, pen)
    assert q[Q_SN] == 0 and q[Q_PN] == 4 and pen[0] == 1
    assert sorted(tab[T_PILE, :4]) == sorted(hand("9♥", "7♣", "A♠", "3♦"))
    # example 3: a 9 drawn is 9 kg
    tab[T_PILE, :1] = card("9♠")
    q[Q_PN] = 1
    draw_penalty(np.uint64(1), tab, stacks, q, kv, 2, cnt, pen)
    assert q[Q_SN + 2] == 1 and stacks[2, 0] == card("9♠")


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_rows_add_up(n: int) -> None:
    f = simlab.simulate("kilo_de_merde", 1_500, seed=3, params={"players": n},
                        progress=False)
    pens = sum(f[f"penalties_s{s}"] for s in range(n))
    assert (pens == f["valid_slaps"] + f["false_slaps"] + f["early_slaps"]).all()
    assert (f["penalty_draws"] == pens).all()
    assert (f["completed"] == f["valid_slaps"]).all()
    ended = f["deadlock"] + f["capped"]
    assert ((f["valid_slaps"] == n - 1) | (ended == 1)).all()
    if n <= 4:
        assert f["deadlock"].sum() == 0  # the catalogue: no deadlock with 4 players or fewer
    kilos = sum(f[f"score_s{s}"] for s in range(n))
    aces = sum(f[f"aces_s{s}"] for s in range(n))
    assert (kilos >= 100 * aces).all()
    m = simlab.simulate("kilo_de_merde", 100, seed=3, level="match",
                        params={"players": n, "match_rounds": 4}, progress=False)
    assert (m["n_deals"] == 4).all()


def test_heuristic_passing_beats_random_passing() -> None:
    """A random passer among heuristic ones takes more penalty draws than a heuristic
    passer on the same rounds (paired, interval above zero)."""
    n = 3_000
    k = KiloKnobs()
    a = simulate_rows(k, ("random", "heuristic", "heuristic", "heuristic"), 9, n)[:, 9]
    b = simulate_rows(k, ("heuristic",) * 4, 9, n)[:, 9]
    d = (a - b).astype(float)
    assert d.mean() - 3 * d.std(ddof=1) / math.sqrt(n) > 0, d.mean()


def test_report_states_the_model_first_and_sweeps_the_speed_ratio() -> None:
    from simlab.games.kilo_de_merde import questions

    k = KiloKnobs(players=3)
    q = dict(questions.exact_findings(k))
    assert list(q)[0] == "0. Player model" and "lognormal" in q["0. Player model"]
    assert "3x" in q["1. Speed"] and "n = 10:" in q["3. Deadlocks by player count"]
    curve = questions.speed_curve(k)
    shares = [w / t for _, w, t in curve]
    assert shares == sorted(shares)


@pytest.mark.parametrize("params, words", [
    ({"players": 11}, "int from 3 to 10"),
    ({"players": 2}, "int from 3 to 10"),
    ({"flush_rank": 3, "players": 5}, "flush_rank 3 is dealt"),
    ({"combo_types": "colour"}, "rank_or_suit"),
    ({"rt_median": -1.0}, "rt_median"),
])
def test_bad_knobs_name_the_valid_range(params: dict, words: str) -> None:
    with pytest.raises(SimlabError, match=words):
        simlab.simulate("kilo_de_merde", 10, params=params, progress=False)


@pytest.mark.parametrize("argv, words", [
    (["--set", "players=12"], "int from 3 to 10"),
    (["--set", "error_rate=1.5"], "error_rate"),
    (["--policy", "heuristic,random"], "1 or 4"),
])
def test_cli_errors_are_one_line_exit_2(capsys, tmp_path, argv: list[str], words: str) -> None:
    code = main(["run", "kilo_de_merde", "-n", "10", "--no-progress",
                 "--out", str(tmp_path / "x.parquet"), *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0], err
