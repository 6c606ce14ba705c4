"""Le pousse-pousse: the seed's Figures 3 and 4 and the catalogue's worked examples as
hand-built positions, building and sliding pinned, the no-undo rule, every player's moves
legal, the batch kernel against the searching players' loop, the players' strength
(seat-swapped), the stall guard, and bad knobs."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli.commands import main
from simlab.engine import stats
from simlab.engine.knobs import SimlabError
from simlab.games.pousse_pousse import PoussePousseKnobs, run_deals, run_matches, trace_game
from simlab.games.pousse_pousse.players import MAX_MOVES, SCRATCH, gen_moves
from simlab.games.pousse_pousse.rules import (
    CELLS,
    MAX_RUNS,
    N_ST,
    S_BUILD_PTS,
    S_EMPTY,
    S_GIFT,
    S_GRID,
    S_HAND,
    S_PLACED,
    S_SCORE,
    S_TO_MOVE,
    apply_move,
    card_id,
    is_legal,
    knob_vector,
    new_game,
    set_grid,
)

K = PoussePousseKnobs()
KV = knob_vector(K)
SP, HE = 0, 1
TMP = np.zeros(MAX_RUNS, dtype=np.int64)
SCR = np.zeros(SCRATCH, dtype=np.int64)


def card(name: str) -> int:
    return card_id(HE if name.endswith("♥") else SP, name[:-1])


def cell(r: int, c: int) -> int:
    return r * 5 + c


def turn(axis: int, a: int, b: int) -> int:
    """axis 0: the row first (empty cell to column a), then the column (to row b); axis 1:
    the column first (to row a), then the row (to column b)."""
    return axis * CELLS + a * 5 + b


ALL = [f"{r}{s}" for s in "♠♥" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J",
                                            "Q", "K", "A")]
FILL_ORDER = ["3♠", "9♥", "Q♠", "5♥", "A♠", "3♥", "7♠", "6♥", "J♠", "A♥", "K♥", "9♠",
              "4♥", "K♠", "8♥", "10♠", "7♥", "5♠", "10♥", "4♠", "8♠", "6♠", "J♥", "Q♥"]


def grid_state(fixed: dict[int, str], empty: int, to_move: int) -> np.ndarray:
    """A sliding position: the ``fixed`` cards, the empty cell, the other cards in a fixed
    order on the other cells (its runs, if any, are already there and score nothing)."""
    rest = [n for n in FILL_ORDER if n not in fixed.values()]
    grid = np.full(CELLS, -1, dtype=np.int64)
    for c in range(CELLS):
        if c == empty:
            continue
        grid[c] = card(fixed[c] if c in fixed else rest.pop(0))
    assert sorted(grid[grid >= 0].tolist()) == sorted(card(n) for n in ALL)
    st = np.zeros(N_ST, dtype=np.int64)
    set_grid(st, grid, to_move, KV)
    return st


def test_figure_4_spades_slide_column_4_down_then_the_5_across() -> None:
    """Column 4 (index 3) holds 4♠, 6♠, two others and the empty cell at the bottom; the ♠
    player slides three cards of column 4 down (the empty cell goes up to row 1), then
    the 5♠ from column 5 across into it: the vertical run 4♠ 5♠ 6♠ scores 3 for ♠."""
    fixed = {cell(0, 3): "4♠", cell(1, 3): "6♠", cell(2, 3): "7♥", cell(3, 3): "5♥",
             cell(1, 4): "5♠"}
    st = grid_state(fixed, cell(4, 3), SP)
    mv = turn(1, 1, 4)
    assert is_legal(st, KV, mv, SCR)
    apply_move(st, KV, mv, TMP)
    assert st[S_GRID + cell(0, 3)] == card("4♠") and st[S_GRID + cell(1, 3)] == card("5♠")
    assert st[S_GRID + cell(2, 3)] == card("6♠") and st[S_EMPTY] == cell(1, 4)
    assert st[S_SCORE + SP] == 3 and st[S_SCORE + HE] == 0
    assert st[S_TO_MOVE] == HE


def place(st: np.ndarray, name: str, c: int) -> None:
    """Put a card on the grid by hand (a building position), no scoring."""
    x = card(name)
    st[S_GRID + c] = x
    st[S_HAND + x // 16] &= ~(1 << (x % 16))
    st[S_PLACED] += 1


def test_figure_3_hearts_diagonal_while_building() -> None:
    """A♥ and K♥ on a diagonal; the ♥ player places the Q♥ next on it: +3 for ♥, counted
    as building points."""
    st = np.zeros(N_ST, dtype=np.int64)
    new_game(st, SP)
    for name, c in (("3♠", cell(0, 1)), ("A♥", cell(0, 0)), ("4♠", cell(1, 2)),
                    ("K♥", cell(1, 1))):
        place(st, name, c)
    st[S_TO_MOVE] = HE
    mv = card("Q♥") * CELLS + cell(2, 2)
    assert is_legal(st, KV, mv, SCR)
    apply_move(st, KV, mv, TMP)
    assert st[S_SCORE + HE] == 3 and st[S_BUILD_PTS + HE] == 3 and st[S_SCORE + SP] == 0
    # no building score with the knob off
    kv = knob_vector(PoussePousseKnobs(score_in_build_phase=False))
    st2 = np.zeros(N_ST, dtype=np.int64)
    new_game(st2, SP)
    for name, c in (("3♠", cell(0, 1)), ("A♥", cell(0, 0)), ("4♠", cell(1, 2)),
                    ("K♥", cell(1, 1))):
        place(st2, name, c)
    st2[S_TO_MOVE] = HE
    apply_move(st2, kv, mv, TMP)
    assert st2[S_SCORE + HE] == 0


def test_building_placement_rules() -> None:
    st = np.zeros(N_ST, dtype=np.int64)
    new_game(st, SP)
    assert is_legal(st, KV, card("3♠") * CELLS + cell(4, 4), SCR)  # the first: anywhere
    assert not is_legal(st, KV, card("3♥") * CELLS + cell(4, 4), SCR)  # not his suit
    apply_move(st, KV, card("3♠") * CELLS + cell(2, 2), TMP)
    assert st[S_TO_MOVE] == HE
    assert is_legal(st, KV, card("3♥") * CELLS + cell(1, 2), SCR)  # orthogonal contact
    assert not is_legal(st, KV, card("3♥") * CELLS + cell(1, 1), SCR)  # diagonal only
    assert not is_legal(st, KV, card("3♥") * CELLS + cell(2, 2), SCR)  # taken


def test_sliding_starts_with_the_player_who_did_not_place_first() -> None:
    for first in (0, 1):
        _, log = trace_game(K, ("random", "random"), 3, 0, first=first)
        assert log[0][0][S_TO_MOVE] == first
        assert log[24][0][S_TO_MOVE] == 1 - first  # the first sliding turn


def test_maximal_run_scores_once_then_the_longer_one() -> None:
    """♥ 9 10 J Q in a row: 8 (not 8 + 3 + 3), and a gift: the ♠ player made it. Then the
    K♥ comes down beside it: 9 10 J Q K scores 15."""
    fixed = {cell(2, 0): "9♥", cell(2, 1): "10♥", cell(2, 2): "J♥", cell(3, 3): "Q♥",
             cell(1, 4): "K♥", cell(2, 4): "3♠"}
    st = grid_state(fixed, cell(2, 3), SP)
    apply_move(st, KV, turn(1, 3, 4), TMP)  # Q♥ up into (2,3); the empty cell ends (3,4)
    assert st[S_GRID + cell(2, 3)] == card("Q♥")
    assert st[S_SCORE + HE] == 8 and st[S_GIFT + HE] == 8 and st[S_SCORE + SP] == 0
    apply_move(st, KV, turn(1, 1, 3), TMP)  # column 4 down: K♥ onto (2,4)
    assert st[S_GRID + cell(2, 4)] == card("K♥")
    assert st[S_SCORE + HE] == 8 + 15
    # the increment variant: the five scores 15 - 8
    kv = knob_vector(PoussePousseKnobs(score_increment_only=True))
    st = grid_state(fixed, cell(2, 3), SP)
    apply_move(st, kv, turn(1, 3, 4), TMP)
    apply_move(st, kv, turn(1, 1, 3), TMP)
    assert st[S_SCORE + HE] == (8 - 3) + (15 - 8)  # the grid began with 9 10 J


def test_one_turn_scores_for_both_suits() -> None:
    """The ♠ player's turn makes a ♥ tierce (the Q♥ up into row 2) and a ♠ tierce (the 9♠
    across into row 3): ♠ +3 and ♥ +3, the ♥ points a gift."""
    fixed = {cell(2, 1): "10♥", cell(2, 2): "J♥", cell(3, 3): "Q♥",
             cell(3, 1): "7♠", cell(3, 2): "8♠", cell(3, 4): "9♠", cell(2, 4): "3♠"}
    st = grid_state(fixed, cell(2, 3), SP)
    apply_move(st, KV, turn(1, 3, 4), TMP)
    assert st[S_GRID + cell(3, 3)] == card("9♠")
    assert st[S_SCORE + SP] == 3 and st[S_SCORE + HE] == 3 and st[S_GIFT + HE] == 3


def test_a_run_slid_intact_does_not_score_again() -> None:
    """Row 2: 9♥ 10♥ J♥ with the empty cell at its end; sliding the row moves the run one
    cell along: no new points (rescore_on_shift=true: 3 again)."""
    fixed = {cell(2, 1): "9♥", cell(2, 2): "10♥", cell(2, 3): "J♥", cell(2, 0): "3♠"}
    for shift, want in ((False, 0), (True, 3)):
        kv = knob_vector(PoussePousseKnobs(rescore_on_shift=shift))
        st = grid_state(fixed, cell(2, 4), SP)
        st[S_SCORE + HE] = 0
        apply_move(st, kv, turn(0, 1, 0), TMP)  # the empty cell to (2,1): run to 2..4
        assert st[S_GRID + cell(2, 4)] == card("J♥")
        assert st[S_SCORE + HE] == want, shift


def test_no_undo() -> None:
    """The opponent took G0 to G1 with a horizontal slide of 2 then a vertical slide of 1;
    reversing it (vertical 1 back, then horizontal 2 back) is illegal, anything else
    legal."""
    _, log = trace_game(K, ("random", "random"), 5, 0)
    st = log[30][0].copy()
    e = st[S_EMPTY]
    r, c = divmod(int(e), 5)
    a = c + 2 if c + 2 < 5 else c - 2
    b = r + 1 if r + 1 < 5 else r - 1
    mv = turn(0, a, b)
    assert is_legal(st, KV, mv, SCR)
    apply_move(st, KV, mv, TMP)
    back = turn(1, r, c)  # the column back to row r, then the row back to column c
    assert not is_legal(st, KV, back, SCR)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    n = gen_moves(st, KV, moves, SCR)
    assert n == 31 and back not in set(moves[:n].tolist())


def test_every_players_moves_are_legal_and_kernel_matches_the_loop() -> None:
    for pols in (("random", "random"), ("heuristic", "random"), ("heuristic", "heuristic")):
        out = run_deals(K, pols, 7, 0, 10)
        for d in range(10):
            row, log = trace_game(K, pols, 7, d)
            assert np.array_equal(row, out.rows[d]), pols
            assert len(log) == 24 + row[8] or (row[8] == 0 and len(log) < 24)
    for pols in (("minimax:minimax_depth=1", "mcts:mcts_iterations=8"),):
        row, log = trace_game(K, pols, 3, 0)
        assert len(log) == 24 + row[8]


def test_rows_add_up() -> None:
    r = run_deals(K, ("heuristic", "random"), 5, 0, 400).rows
    assert ((r[:, 9] <= r[:, 1]) & (r[:, 10] <= r[:, 2])).all()
    won = r[:, 3] >= 0
    assert (np.maximum(r[won, 1], r[won, 2]) >= 50).all()


def test_heuristic_beats_random_both_seats() -> None:
    a = run_matches(K, ("heuristic", "random"), 2, 0, 300).rows
    est = stats.mean((a[:, 3] - a[:, 4]) / 2.0)
    assert est.lo > 0.5, est


@pytest.mark.serial
def test_minimax_beats_the_heuristic() -> None:
    """Seat-swapped pairs. (MCTS at budgets a test can afford, 15-60 iterations, is not
    clearly better than the heuristic here: see the report.)"""
    a = run_matches(K, ("minimax:minimax_depth=2", "heuristic"), 4, 0, 8).rows
    est = stats.mean((a[:, 3] - a[:, 4]) / 2.0)
    assert est.lo > 0, est


@pytest.mark.serial
def test_minimax_depth_3_beats_depth_1() -> None:
    a = run_matches(K, ("minimax:minimax_depth=3", "minimax:minimax_depth=1"), 6, 0, 8).rows
    est = stats.mean((a[:, 3] - a[:, 4]) / 2.0)
    assert est.lo > 0, est


def test_turn_cap_is_a_draw_and_flagged() -> None:
    r = run_deals(PoussePousseKnobs(turn_cap=5, cap_result="draw"), ("random", "random"), 1, 0,
                  200).rows
    capped = r[:, 15] == 1
    assert capped.any()
    assert (r[capped, 3] == -1).all() and (r[capped, 16] == 1).all()
    r2 = run_deals(PoussePousseKnobs(turn_cap=5, cap_result="higher_score"),
                   ("random", "random"), 1, 0, 200).rows
    differ = capped & (r2[:, 1] != r2[:, 2])
    assert (r2[differ, 3] >= 0).all()


def test_bad_knobs() -> None:
    with pytest.raises(SimlabError, match="points_3"):
        PoussePousseKnobs(points_3=20)


@pytest.mark.parametrize("setting", ["slide_max=5", "cap_result=coin", "target=0",
                                     "slides_per_turn=3", "points_4=1"])
def test_bad_knob_is_one_line_exit_2(setting: str, capsys) -> None:
    assert main(["run", "pousse_pousse", "-n", "10", "--set", setting, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
