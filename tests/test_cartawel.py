"""Le cartawel: the seed's Figure 1 example and the catalogue's worked examples as
hand-built positions, laying and sowing pinned, the end conditions, every player's moves
legal, heuristic beats random, searching players beat the heuristic (seat-swapped), the
same rows for the batch kernel and the searching players' loop, and bad knobs."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli.commands import main
from simlab.engine import stats
from simlab.engine.knobs import SimlabError
from simlab.games.cartawel import CartawelKnobs, run_deals, run_matches, trace_game
from simlab.games.cartawel.kernels import play_game
from simlab.games.cartawel.players import MAX_MOVES, WORK_LEN, WORK_ROWS, gen_moves
from simlab.games.cartawel.rules import (
    END_NO_MOVE,
    END_QUIET,
    LAY,
    MOVE_LEN,
    N_ST,
    S_CAPTURES,
    S_CARDS_TAKEN,
    S_END,
    S_HAND,
    S_OVER,
    S_PILE,
    S_POINTS,
    S_QUIET,
    S_TO_MOVE,
    SOW,
    apply_move,
    capturable,
    card_id,
    is_legal,
    knob_vector,
    new_game,
    set_board,
    winner_of,
)

K = CartawelKnobs()
KV = knob_vector(K)
D, C = 0, 1  # seat 0 holds the ♦, seat 1 the ♣


def card(name: str) -> int:
    """'J♣' -> its id."""
    return card_id(C if name.endswith("♣") else D, name[:-1])


def mask(*names: str) -> int:
    return sum(1 << card(n) for n in names)


def board(piles: dict[int, tuple[str, ...]], to_move: int) -> np.ndarray:
    arr = np.zeros(12, dtype=np.int64)
    for q, names in piles.items():
        arr[q] = mask(*names)
    st = np.zeros(N_ST, dtype=np.int64)
    set_board(st, arr, to_move)
    return st


def sow(q: int, *names: str) -> np.ndarray:
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    mv[0], mv[1], mv[2] = SOW, q, len(names)
    for i, n in enumerate(names):
        mv[3 + i] = card(n)
    return mv


def lay(q: int, name: str) -> np.ndarray:
    mv = np.zeros(MOVE_LEN, dtype=np.int64)
    mv[0], mv[1], mv[2], mv[3] = LAY, q, 1, card(name)
    return mv


# The rest of a board for hand-built sowing positions: both seats keep cards elsewhere.
REST = {7: ("3♦", "3♣"), 9: ("5♦",), 10: ("8♣",)}


def test_figure_1_clubs_take_45() -> None:
    """The seed: ♣ takes the 2 o'clock pile {J♣, 7♣}, lays the 7♣ on the 2♦ and the J♣ on
    the 6♦ and 10♦: the last pile (3 cards, J♣ highest) and the one before it (2 cards,
    7♣ highest) are taken: 6 + 10 + 20 + 2 + 7 = 45."""
    st = board({2: ("J♣", "7♣"), 3: ("2♦",), 4: ("6♦", "10♦"), **REST}, C)
    mv = sow(2, "7♣", "J♣")
    assert is_legal(st, KV, mv)
    assert apply_move(st, KV, mv) == 45
    assert st[S_POINTS + C] == 45 and st[S_CAPTURES + C] == 2 and st[S_CARDS_TAKEN + C] == 5
    assert st[S_PILE + 2] == 0 and st[S_PILE + 3] == 0 and st[S_PILE + 4] == 0
    assert st[S_TO_MOVE] == D and st[S_OVER] == 0


def test_figure_1_other_order_takes_nothing() -> None:
    """The J♣ first and the 7♣ last: the last pile {6♦, 10♦, 7♣} is topped by the 10♦."""
    st = board({2: ("J♣", "7♣"), 3: ("2♦",), 4: ("6♦", "10♦"), **REST}, C)
    assert apply_move(st, KV, sow(2, "J♣", "7♣")) == 0
    assert st[S_PILE + 4] == mask("6♦", "10♦", "7♣") and st[S_QUIET] == 1


def test_tie_blocks_and_size_blocks() -> None:
    assert not capturable(mask("9♦", "9♣", "4♣"), C, KV)  # 9 against 9: no capture
    assert capturable(mask("9♦", "10♣", "4♣"), C, KV)
    assert not capturable(mask("2♣", "3♣", "4♣", "5♣"), C, KV)  # 4 cards
    assert capturable(mask("2♣", "3♣"), C, KV)  # no opponent card: still taken
    assert not capturable(mask("2♣"), C, KV)  # 1 card
    assert not capturable(mask("2♦", "3♦"), C, KV)  # not his card on top


def test_ace_rank_knob() -> None:
    assert capturable(mask("A♣", "K♦"), C, KV)
    low = knob_vector(CartawelKnobs(ace_high=False))
    assert not capturable(mask("A♣", "K♦"), C, low)
    assert capturable(mask("A♣", "2♣"), C, low)  # only clubs: the 2 tops the low Ace


def test_chain_stops_at_the_first_failing_pile() -> None:
    """Sowing 3 cards from position 0 onto 1, 2, 3: pile 3 {5♦, K♣} is taken, pile 2
    {Q♦, J♦, 3♣} is not, so pile 1 is not tested."""
    st = board({0: ("2♣", "3♣", "K♣"), 1: ("4♦",), 2: ("Q♦", "J♦"), 3: ("5♦",), **REST}, C)
    assert apply_move(st, KV, sow(0, "2♣", "3♣", "K♣")) == 5 + 20
    assert st[S_PILE + 1] == mask("4♦", "2♣") and st[S_PILE + 2] == mask("Q♦", "J♦", "3♣")


def test_chain_scope_never_matters() -> None:
    """Two cards from 3 onto 4 and 5: both taken (3 + 9, 4 + 20); going back, position 3
    is the emptied origin, so a chain over any pile stops where the sown one does. Over
    whole games the two scopes give the same rows (the catalogue's question 5)."""
    piles = {2: ("2♦", "6♣"), 3: ("K♣", "9♣"), 4: ("3♦",), 5: ("4♦",), **REST}
    for scope in ("sown", "any"):
        kv = knob_vector(CartawelKnobs(chain_scope=scope))
        st = board(piles, C)
        assert apply_move(st, kv, sow(3, "9♣", "K♣")) == (3 + 9) + (4 + 20)
        assert st[S_PILE + 2] == mask("2♦", "6♣")
    for pols in (("heuristic", "heuristic"), ("random", "random")):
        a = run_deals(K, pols, 3, 0, 300).rows
        b = run_deals(CartawelKnobs(chain_scope="any"), pols, 3, 0, 300).rows
        assert np.array_equal(a, b)


def test_origin_skip_for_a_pile_of_twelve() -> None:
    """12 cards from position 0: with the skip they land on 1..11 and again on 1 (then
    the chain walks back over 0, the empty origin); without it, on 1..11 and 0."""
    twelve = ("2♣", "3♣", "4♣", "5♣", "6♣", "7♣", "8♣", "9♣", "10♣", "J♣", "Q♣", "K♣")
    piles = {0: twelve, 5: ("A♣", "A♦")}
    kv = knob_vector(CartawelKnobs(origin_skip=True))
    st = board(piles, C)
    assert apply_move(st, kv, sow(0, *twelve)) == 2 + 20  # pile 1 {2♣, K♣}, all his
    assert st[S_PILE + 0] == 0 and st[S_PILE + 1] == 0
    kv = knob_vector(CartawelKnobs(origin_skip=False))
    st = board(piles, C)
    assert apply_move(st, kv, sow(0, *twelve)) == 0  # the K♣ alone on 0: 1 card
    assert st[S_PILE + 0] == mask("K♣") and st[S_PILE + 1] == mask("2♣")


def test_laying_rules() -> None:
    """The first 12 cards alone on empty positions; afterwards at most 3 per pile; the
    12th card goes to the last empty position; own cards only."""
    st = np.zeros(N_ST, dtype=np.int64)
    new_game(st, D)
    assert not is_legal(st, KV, lay(0, "2♣"))  # not his suit
    apply_move(st, KV, lay(0, "2♦"))
    assert st[S_TO_MOVE] == C
    assert not is_legal(st, KV, lay(0, "2♣"))  # position 0 taken during the first 12
    names_d = ["3♦", "4♦", "5♦", "6♦", "7♦"]
    names_c = ["2♣", "3♣", "4♣", "5♣", "6♣", "7♣"]
    q = 1
    for i in range(11):
        name = names_c[i // 2] if i % 2 == 0 else names_d[i // 2]
        if q == 11:
            for p in range(12):  # the 12th card: only the last empty position
                assert is_legal(st, KV, lay(p, name)) == (p == 11)
        apply_move(st, KV, lay(q, name))
        q += 1
    assert st[S_TO_MOVE] == D  # 12 laid, 6 each: the first layer lays the 13th
    apply_move(st, KV, lay(0, "8♦"))
    apply_move(st, KV, lay(0, "8♣"))
    assert not is_legal(st, KV, lay(0, "9♦"))  # a pile of 3 takes no more
    assert is_legal(st, KV, lay(1, "9♦"))


def test_sowing_legality() -> None:
    st = board({2: ("J♣", "7♣"), 3: ("2♦",), 4: ("6♦", "10♦"), **REST}, C)
    assert not is_legal(st, KV, sow(3, "2♦"))  # no club in it
    assert not is_legal(st, KV, sow(2, "7♣"))  # every card of the pile
    assert not is_legal(st, KV, sow(2, "7♣", "7♣"))
    assert is_legal(st, KV, sow(2, "J♣", "7♣"))


def test_end_no_move_and_quiet_limit() -> None:
    st = board({0: ("2♣", "3♦"), 5: ("4♦",)}, C)
    apply_move(st, KV, sow(0, "3♦", "2♣"))  # 2♣ onto pile 2 alone: no capture
    assert st[S_OVER] == 0 and st[S_TO_MOVE] == D
    kv = knob_vector(CartawelKnobs(no_capture_limit=2))
    st = board({0: ("2♣",), 6: ("4♦",)}, C)
    apply_move(st, kv, sow(0, "2♣"))
    apply_move(st, kv, sow(6, "4♦"))
    assert st[S_OVER] == 1 and st[S_END] == END_QUIET
    st = board({0: ("2♣", "3♦"), 1: ("5♦",)}, C)
    apply_move(st, KV, sow(0, "2♣", "3♦"))  # {5♦, 2♣}: no; ♦ moves next
    # capture every club: the ♣ player has nothing left to sow
    st = board({0: ("2♦",), 1: ("3♣",), 6: ("9♦",)}, D)
    apply_move(st, KV, sow(0, "2♦"))  # {3♣, 2♦}: 3♣ tops, no capture for ♦
    assert st[S_OVER] == 0
    st = board({0: ("4♦",), 1: ("3♣",), 6: ("9♦",)}, D)
    assert apply_move(st, KV, sow(0, "4♦")) == 7
    assert st[S_OVER] == 1 and st[S_END] == END_NO_MOVE and winner_of(st, KV) == D


def test_every_players_moves_are_legal_and_kernel_matches_the_loop() -> None:
    """trace_game checks every move against is_legal; the batch kernel and the Python loop
    give the same rows for the fast players."""
    for pols in (("random", "random"), ("heuristic", "random"), ("heuristic", "heuristic")):
        out = run_deals(K, pols, 7, 0, 12)
        for d in range(12):
            row, log = trace_game(K, pols, 7, d)
            assert np.array_equal(row, out.rows[d]), pols
            assert len(log) == 26 + row[8]
    for pols in (("minimax:minimax_depth=1", "mcts:mcts_iterations=8"),
                 ("minimax:minimax_depth=1:search_phase=laying",
                  "mcts:mcts_iterations=8:search_phase=sowing")):
        for d in range(2):
            row, log = trace_game(K, pols, 3, d)
            assert len(log) == 26 + row[8]


def test_candidate_moves_are_legal() -> None:
    moves = np.zeros((MAX_MOVES, MOVE_LEN), dtype=np.int64)
    work = np.zeros((WORK_ROWS, WORK_LEN), dtype=np.int64)
    for d in range(6):
        _, log = trace_game(K, ("random", "random"), 11, d)
        for st, _mv in log[::5]:
            for flags in (0, 1, 2, 3):
                n = gen_moves(st, KV, flags, moves, work)
                assert n > 0
                for i in range(n):
                    assert is_legal(st, KV, moves[i])


def test_rows_add_up() -> None:
    r = run_deals(K, ("heuristic", "random"), 5, 0, 400).rows
    total = r[:, 1] + r[:, 2] + r[:, 13]
    assert (total == 268).all()  # captured + left = every point
    assert ((r[:, 11] + r[:, 12]) <= 26).all()
    assert (r[:, 6] >= 0).all() and (r[:, 6] <= 1).all()


def test_heuristic_beats_random_both_seats() -> None:
    a = run_matches(K, ("heuristic", "random"), 2, 0, 300).rows
    diff = (a[:, 3] - a[:, 4]) / 2.0
    est = stats.mean(diff)
    assert est.lo > 0.5, est


@pytest.mark.serial
def test_minimax_and_mcts_beat_the_heuristic() -> None:
    """Seat-swapped pairs (a two-game match: each seat lays first once)."""
    for strong in ("minimax:minimax_depth=2", "mcts:mcts_iterations=40"):
        a = run_matches(K, (strong, "heuristic"), 4, 0, 6).rows
        est = stats.mean((a[:, 3] - a[:, 4]) / 2.0)
        assert est.lo > 0, (strong, est)


def test_stall_guard_is_a_draw_and_flagged() -> None:
    k = CartawelKnobs(move_cap=10, no_capture_limit=200, repetition_limit=10)
    r = run_deals(k, ("random", "random"), 1, 0, 300).rows
    capped = r[:, 15] == 3
    assert capped.any()
    assert (r[capped, 3] == -1).all() and (r[capped, 16] == 1).all()
    assert (r[~capped, 16] == 0).all()


def test_play_game_state_is_consistent() -> None:
    pol = np.array([1, 1], dtype=np.int64)
    seat_kv = np.stack([KV, KV])
    st = play_game(9, 0, 0, 1, pol, seat_kv, KV)
    assert st[S_OVER] == 1 and st[S_HAND] == 0 and st[S_HAND + 1] == 0


def test_bad_knobs() -> None:
    with pytest.raises(SimlabError, match="capture_min"):
        CartawelKnobs(capture_min=4)
    with pytest.raises(SimlabError, match="positions"):
        CartawelKnobs(positions=9, lay_cap=2)


@pytest.mark.parametrize("setting", ["positions=30", "chain_scope=all", "ace_high=maybe",
                                     "capture_min=5", "minimax_depth=0"])
def test_bad_knob_is_one_line_exit_2(setting: str, capsys) -> None:
    assert main(["run", "cartawel", "-n", "10", "--set", setting, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
