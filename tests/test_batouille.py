"""La batouille: the catalogue's worked examples as hand-built positions, the exact
equilibrium (value, unexploitability, best responses), the simulated players against the
exact numbers, determinism over jobs and chunks, and the knobs' errors."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.knobs import SimlabError
from simlab.games.batouille import BatouilleKnobs, apply_round, set_position
from simlab.games.batouille.equilibrium import (
    Solver,
    best_response,
    evaluate,
    game_value,
    player,
    strategy_table,
)
from simlab.games.batouille.rules import (
    N_ST,
    S_FIRST,
    S_FORCED,
    S_HAND,
    S_OVER,
    S_REPLAYS,
    S_TIES,
    S_TRICKS,
    S_VOIDS,
    card_id,
    outcome,
    top,
    winner_of,
)
from simlab.mechanics import matrix_game

K = BatouilleKnobs()  # 13 ranks: rank index 0 = the 2, 12 = the Ace
R = {name: i for i, name in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                       "Q", "K", "A"])}
FULL = (1 << 13) - 1


def position(h0: int = FULL, h1: int = FULL, t0: int = 0, t1: int = 0, ties: int = 0
             ) -> np.ndarray:
    st = np.zeros(N_ST, dtype=np.int64)
    set_position(st, h0, h1, t0, t1, ties)
    return st


def bits(*names: str) -> int:
    return sum(1 << R[n] for n in names)


# --- the catalogue's worked examples ---------------------------------------------------
def test_example_1_higher_rank_takes_the_trick() -> None:
    st = position()
    apply_round(st, 10, R["K"], R["3"])
    assert st[S_TRICKS] == 1 and st[S_TRICKS + 1] == 0
    assert st[S_HAND] == FULL & ~bits("K") and st[S_HAND + 1] == FULL & ~bits("3")
    assert bin(st[S_HAND]).count("1") == bin(st[S_HAND + 1]).count("1") == 12
    assert st[S_FIRST] == 0 and st[S_OVER] == 0


def test_example_2_equal_ranks_are_replayed() -> None:
    st = position()
    apply_round(st, 10, R["9"], R["9"])
    assert st[S_HAND] == FULL and st[S_HAND + 1] == FULL  # "ils reprennent leurs cartes"
    assert st[S_TRICKS] == st[S_TRICKS + 1] == 0
    assert st[S_REPLAYS] == 1 and st[S_TIES] == 1 and st[S_VOIDS] == 0


def test_example_3_gambit_makes_the_ace_a_sure_trick() -> None:
    st = position()
    apply_round(st, 10, R["2"], R["A"])
    assert st[S_TRICKS + 1] == 1
    assert top(st[S_HAND]) > top(st[S_HAND + 1])  # S's Ace beats every card H has left
    for c in range(12):  # whatever H plays next, the Ace takes it
        nxt = st.copy()
        apply_round(nxt, 10, R["A"], c)
        assert nxt[S_TRICKS] == 1
    # the heuristic cashes the sure trick with its cheapest card above H's best: the Ace
    dist = player("heuristic", K)(int(st[S_HAND]), int(st[S_HAND + 1]), -1, 0)
    assert dist[R["A"]] == 1.0


def test_example_4_forced_tie_is_a_void_trick_and_a_draw() -> None:
    st = position(bits("7"), bits("7"), 6, 6)  # 12 tricks decided, 6-6, both hold the 7
    assert st[S_OVER] == 1 and st[S_FORCED] == 1 and st[S_VOIDS] == 1
    assert winner_of(st) == -1 and outcome(st, 0) == 0
    # reached by play: the last decided trick leaves both with the 7
    st = position(bits("7", "9"), bits("7", "8"), 5, 6)
    apply_round(st, 10, R["9"], R["8"])
    assert st[S_OVER] == 1 and st[S_FORCED] == 1 and winner_of(st) == -1


def test_example_5_seven_tricks_win() -> None:
    st = position(bits("5"), bits("4"), 6, 6)
    apply_round(st, 10, R["5"], R["4"])
    assert st[S_OVER] == 1 and st[S_TRICKS] == 7 and st[S_TRICKS + 1] == 6
    assert winner_of(st) == 0 and outcome(st, 0) == 1 and outcome(st, 1) == -1


def test_ties_in_a_row_make_a_void_trick() -> None:
    st = position(bits("7", "9"), bits("7", "9"), 5, 6)
    for i in range(9):
        apply_round(st, 10, R["9"], R["9"])
        assert st[S_TIES] == i + 1 and st[S_HAND] == bits("7", "9")
    apply_round(st, 10, R["9"], R["9"])  # the 10th tie in a row: both 9s set aside
    assert st[S_VOIDS] == 2 and st[S_FORCED] == 1  # ...leaving the same last card
    assert st[S_OVER] == 1 and st[S_REPLAYS] == 10 and winner_of(st) == 1
    st = position(bits("7", "9"), bits("7", "8"), 5, 6)
    apply_round(st, 1, R["7"], R["7"])  # discard rule: the first tie is void
    assert st[S_VOIDS] == 1 and st[S_HAND] == bits("9") and st[S_HAND + 1] == bits("8")


def test_card_names_follow_ace_high() -> None:
    from simlab.games.batouille.rules import DECK

    assert DECK.labels[card_id(BatouilleKnobs(ranks=3), 0, 2)] == "A♠"
    assert DECK.labels[card_id(BatouilleKnobs(ranks=3, ace_high=False), 1, 2)] == "K♥"
    assert DECK.labels[card_id(BatouilleKnobs(ranks=3, ace_high=False), 1, 0)] == "J♥"


# --- the matrix game solver --------------------------------------------------------------
def test_matrix_game_solves_matching_pennies_and_rock_paper_scissors() -> None:
    v, x, y = matrix_game.solve(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert abs(v) < 1e-9 and np.allclose(x, 0.5) and np.allclose(y, 0.5)
    a = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    v, x, y = matrix_game.solve(a)
    assert abs(v) < 1e-9 and np.allclose(x, 1 / 3) and np.allclose(y, 1 / 3)
    a = np.array([[3.0, 1.0], [2.0, 0.0]])  # saddle point at (0, 1)
    v, x, y = matrix_game.solve(a)
    assert v == 1.0 and x[0] == 1.0 and y[1] == 1.0
    a = np.array([[2.0, -1.0, 0.5], [-1.0, 1.0, 0.0]])
    v, x, y = matrix_game.solve(a)
    lo, hi = matrix_game.guaranteed(a, x, y)
    assert abs(lo - v) < 1e-9 and abs(hi - v) < 1e-9


# --- the exact equilibrium -----------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_game_value_is_zero(n: int) -> None:
    assert abs(game_value(n, 10)) < 1e-9


def test_game_value_is_zero_at_8_ranks_with_the_discard_rule() -> None:
    assert abs(game_value(8, 1)) < 1e-9  # about 3 s; 10 ties in a row: about 26 s


def test_every_stage_strategy_is_optimal() -> None:
    s = Solver(3)
    s.value(31, 31, 0, 0)
    for (a, b, d, t), (v, x, y) in list(s.memo.items()):
        rows = [r for r in range(5) if (a >> r) & 1]
        cols = [c for c in range(5) if (b >> c) & 1]
        m = np.array([[s.entry(a, b, d, t, r, c) for c in cols] for r in rows])
        lo, hi = matrix_game.guaranteed(m, x, y)
        assert abs(lo - v) < 1e-9 and abs(hi - v) < 1e-9, (a, b, d, t)


def test_position_values_are_antisymmetric() -> None:
    s = Solver(10)
    for a, b, d in [(0b10110, 0b01101, 1), (0b111, 0b1011, 0), (0b11001, 0b00111, -1)]:
        assert abs(s.value(a, b, d, 0) + s.value(b, a, -d, 0)) < 1e-9


@pytest.mark.parametrize("n", [4, 5])
def test_equilibrium_cannot_be_exploited(n: int) -> None:
    k = BatouilleKnobs(ranks=n)
    assert abs(best_response(n, 10, player("equilibrium", k))) < 1e-9


def test_best_response_to_always_highest() -> None:
    # "sacrifice then beat by one": against A, K, Q, ... throw the 2, then beat each of his
    # cards with the one just above it: n - 1 tricks of n, a sure win
    def sacrifice(mine: int, theirs: int, d: int, t: int) -> np.ndarray:
        out = np.zeros(13)
        his = top(theirs)
        above = [r for r in range(13) if (mine >> r) & 1 and r > his]
        out[above[0] if above else [r for r in range(13) if (mine >> r) & 1][0]] = 1.0
        return out

    for n in (3, 5, 6):
        k = BatouilleKnobs(ranks=n)
        highest = player("highest", k)
        assert best_response(n, 10, highest) == 1.0
        assert evaluate(n, 10, sacrifice, highest) == 1.0
        # the equilibrium gains nothing from it (it only guarantees the value)
        assert abs(evaluate(n, 10, player("equilibrium", k), highest)) < 1e-9


def test_heuristic_is_not_absurd() -> None:
    k = BatouilleKnobs(ranks=6)
    h = player("heuristic", k)
    for other in ("random", "highest", "lowest", "mixed_high"):
        assert evaluate(6, 10, h, player(other, k)) > 0.03, other
    assert evaluate(6, 10, h, player("equilibrium", k)) > -0.01
    assert abs(evaluate(6, 10, player("random", k), player("random", k))) < 1e-9


def test_strategy_table_rows_are_distributions_over_the_hand() -> None:
    table, pidx, stats = strategy_table(4, 3)
    assert abs(stats["value"]) < 1e-9 and stats["states"] > 0
    filled = table.sum(axis=1) > 0
    assert np.allclose(table[filled].sum(axis=1), 1.0)
    assert int(filled.sum()) == stats["states"]


# --- the kernels against the exact numbers ---------------------------------------------------
def _results(policies: str, n: int, params: dict, seed: int = 5) -> np.ndarray:
    f = simlab.simulate("batouille", n, seed=seed, policies=policies, params=params,
                        progress=False)
    return f["result_s0"].to_numpy().astype(np.float64)


def test_simulated_heuristic_vs_random_matches_the_exact_value() -> None:
    k = BatouilleKnobs(ranks=5)
    exact = evaluate(5, 10, player("heuristic", k), player("random", k))
    r = _results("heuristic,random", 40_000, {"ranks": 5})
    se = r.std(ddof=1) / np.sqrt(len(r))
    assert abs(r.mean() - exact) < 5 * se, (r.mean(), exact, se)


@pytest.mark.parametrize("other", ["heuristic", "random"])
def test_equilibrium_is_not_beaten_in_duplicate(other: str) -> None:
    p = {"ranks": 5}
    a = _results(f"equilibrium,{other}", 20_000, p)
    b = -_results(f"{other},equilibrium", 20_000, p)
    edge = (a + b) / 2
    se = edge.std(ddof=1) / np.sqrt(len(edge))
    assert edge.mean() >= -5 * se, (edge.mean(), se)


def test_rows_do_not_depend_on_jobs_or_chunks() -> None:
    kw = {"seed": 11, "policies": "equilibrium,heuristic", "params": {"ranks": 5},
          "progress": False}
    one = simlab.simulate("batouille", 3_000, jobs=1, chunk_size=3_000, **kw)
    two = simlab.simulate("batouille", 3_000, jobs=2, chunk_size=437, **kw)
    assert one.equals(two)
    m1 = simlab.simulate("batouille", 500, level="match", jobs=1,
                         **{**kw, "params": {"ranks": 5, "match_games": 3}})
    m2 = simlab.simulate("batouille", 500, level="match", jobs=2, chunk_size=77,
                         **{**kw, "params": {"ranks": 5, "match_games": 3}})
    assert m1.equals(m2) and (m1["n_deals"] == 3).all()
    assert (m1["final_score_s0"] + m1["final_score_s1"] + m1["drawn_games"] == 3).all()


def test_rows_add_up() -> None:
    f = simlab.simulate("batouille", 2_000, seed=2, policies="heuristic,random", progress=False)
    decided = f["score_s0"] + f["score_s1"]
    assert (decided + f["voids"] == 13).all()
    assert (f["draw"] == (f["score_s0"] == f["score_s1"])).all()
    assert (f.filter(pl.col("draw"))["voids"] >= 1).all()  # 6-6 only after a void trick
    assert (f["rounds"] == decided + f["replays"]).all()  # a forced void takes no round
    assert f["winner"].is_in([-1, 0, 1]).all()


# --- no dealer; questions 2 and 5 in the report ---------------------------------------
DEALER_KEYS = ("dealer_pos.", "match.win_pos.", "balance.first_seat", "balance.dealer",
               "contract.taker_pos.")


@pytest.mark.parametrize("level, params", [("deal", {}), ("match", {"match_games": 3})])
def test_no_dealer_column_and_no_dealer_position_metric(level: str, params: dict) -> None:
    """Both play at once and nobody deals: no dealer / first_dealer column, so no metric
    compares positions relative to a dealer."""
    from simlab.analysis.metrics import compute
    from simlab.games import get_game

    f = simlab.simulate("batouille", 400, seed=3, level=level, params=params, progress=False)
    assert "dealer" not in f.columns and "first_dealer" not in f.columns
    keys = [m.key for m in compute(get_game("batouille"), f, params, level).metrics]
    assert keys and not [k for k in keys if k.startswith(DEALER_KEYS)]
    assert ("seat.win.s0" if level == "deal" else "match.win.s0") in keys


def _report_findings(params: dict) -> list:
    from simlab.analysis.metrics import compute
    from simlab.analysis.report import findings
    from simlab.engine.runner import plan
    from simlab.games import get_game

    g = get_game("batouille")
    p = plan(g, 300, seed=5, params=params)
    f = simlab.simulate(g, 300, seed=5, params=params, progress=False)
    return findings(g, p, f, compute(g, f, params, "deal"), 0.95)


def test_report_answers_exploitability_and_hand_size_exactly() -> None:
    found = _report_findings({"ranks": 5, "mixed_high_p": 0.3})
    assert [f.question[0] for f in found] == ["1", "2", "3", "5"]
    q2 = next(f for f in found if f.question == "2. Exploitability")
    q5 = next(f for f in found if f.question == "5. Hand size")
    assert not q2.tested and "at 3 to 6 ranks (10 ties in a row void a trick)" in q2.text
    for name in ("random", "heuristic", "highest", "lowest", "mixed_high"):
        got = [best_response(r, 10, player(name, BatouilleKnobs(ranks=r, mixed_high_p=0.3)))
               for r in (3, 4, 5, 6)]
        assert ", ".join(f"{v:.3f}" for v in got) in q2.text, name
        if name != "random":  # the run's own 5 ranks
            assert f"{got[2]:.3f} against {name}" in q2.text
    assert "At this run's 5 ranks a best response gains" in q2.text
    assert "highest with p = 0.3" in q2.text
    # the heuristic is far more exploitable than uniform play at every size
    assert "uniform random 0.250, 0.167, 0.225, 0.178;" in q2.text
    # question 5: the equilibrium's gain against uniform, from the kernel's own table
    gains = [evaluate(r, 10, player("equilibrium", BatouilleKnobs(ranks=r)),
                      player("random", BatouilleKnobs(ranks=r))) for r in (3, 4, 5, 6)]
    assert ", ".join(f"{abs(v) if abs(v) < 5e-5 else v:.4f}" for v in gains) in q5.text
    assert gains[1] > 0.01 and gains[3] > 0.001  # uniform is not an equilibrium
    assert "0.250, 0.167, 0.225, 0.178 per game against it" in q5.text


def test_report_says_when_the_run_is_too_large_for_the_exact_numbers() -> None:
    found = {f.question: f for f in _report_findings({})}
    assert "This run's 13 ranks are beyond the exact computation" in \
        found["2. Exploitability"].text
    found = {f.question: f for f in _report_findings({"max_consecutive_ties": 50})}
    assert "not computed" in found["2. Exploitability"].text
    assert "not computed" in found["5. Hand size"].text


# --- knobs and players: errors name the valid values ------------------------------------
@pytest.mark.parametrize("params, words", [
    ({"ranks": 14}, "int from 2 to 13"),
    ({"ranks": 1}, "int from 2 to 13"),
    ({"max_consecutive_ties": 0}, "int from 1 to 1000"),
    ({"tie_rule": "bataille"}, "replay, discard"),
    ({"match_games": 0}, "int from 1 to 999"),
    ({"mixed_high_p": 1.5}, "float from 0.0 to 1.0"),
])
def test_bad_knobs_name_the_valid_range(params: dict, words: str) -> None:
    with pytest.raises(SimlabError, match=words):
        simlab.simulate("batouille", 10, params=params, progress=False)


def test_equilibrium_needs_at_most_8_ranks() -> None:
    with pytest.raises(SimlabError, match="ranks <= 8"):
        simlab.simulate("batouille", 10, policies="equilibrium,heuristic", progress=False)
    with pytest.raises(SimlabError, match="max_consecutive_ties <= 20"):
        simlab.simulate("batouille", 10, policies="equilibrium", progress=False,
                        params={"ranks": 4, "max_consecutive_ties": 21})
    with pytest.raises(SimlabError, match="valid policies"):
        simlab.simulate("batouille", 10, policies="search", progress=False)
