"""Issue 32: the Bésigue search player can decide the early draw phase (a full stock):
knob ``search_draw_worlds`` (0 by default: measured, a few worlds there lose to the
heuristic, see ``players.py``); there its choice is the search routine's, gated by
``search_draw_margin``, and it still sees only what its seat sees."""

from __future__ import annotations

import numpy as np

from simlab.games.besigue import players as P
from simlab.games.besigue import rules as R
from simlab.mechanics import search
from tests.test_besigue_players import advance, own_and_public, redeal

DEFAULT = R._vector(R.BesigueKnobs())  # the heuristic decides the early draw phase
DRAW = R._vector(R.BesigueKnobs(search_draw_worlds=4))
MOVES = np.zeros(R.MAX_MOVES, dtype=np.int64)


def early_positions(variant: str = "japonais") -> list[np.ndarray]:
    """Decisions of the first turns of heuristic deals (a full stock: more than 90 cards
    in the japonais), with more than one legal move."""
    kv = R._vector(R.BesigueKnobs(variant=variant))
    out = []
    for seed in range(6):
        c = kv[R.K_COPIES]
        deck = (np.random.default_rng(100 + seed).permutation(32 * c) // c).astype(np.int64)
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, deck, seed % 2, 18, kv)
        for plies in (0, 1, 5, 9, 14):
            x = advance(s, kv, plies)
            if R.legal_moves(x, kv, MOVES) > 1:
                out.append(x)
    return out


def decide(s: np.ndarray, kv: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(s, kv, np.uint64(5), 3, 0, world, P.search_work()))


def plain_best(s: np.ndarray, kv: np.ndarray, heuristic: int) -> tuple[int, dict[int, int]]:
    """What the search routine picks with no margin: the best summed value of
    ``search_values`` (the same worlds and playouts), the heuristic's move on a tie; and
    each move's summed value."""
    world = np.zeros(R.N_STATE, dtype=np.int64)
    work = P.search_work()
    n = P.search_values(s, kv, np.uint64(5), 3, 0, world, work)
    moves, totals = work[0][:n], work[1][:n]
    values = {int(m): int(v) for m, v in zip(moves, totals, strict=True)}
    if totals.max() == values[heuristic]:
        return heuristic, values
    return int(moves[search.best_move(totals, n)]), values


def test_search_decides_the_early_draw_phase():
    no_margin = R._vector(R.BesigueKnobs(search_draw_worlds=4, search_draw_margin=0.0))
    positions = early_positions()
    assert len(positions) >= 20
    differ = overruled = 0
    for s in positions:
        assert R.stock_left(s) > 90 and not s[R.S_END_PHASE]
        assert P.search_budget(s, DRAW) == 4  # search_draw_worlds, not the heuristic
        heuristic = int(P.heuristic_move(s, DEFAULT, MOVES.copy(), s.copy()))
        assert decide(s, DEFAULT) == heuristic  # the default 0: the heuristic's move
        best = decide(s, no_margin)
        expected, values = plain_best(s, no_margin, heuristic)
        assert best == expected
        differ += best != heuristic
        choice = decide(s, DRAW)  # the margin keeps the heuristic's move unless clear
        assert choice == heuristic or values[choice] > values[heuristic]
        overruled += choice != heuristic
    assert differ >= 3  # the search's own choices (before: always the heuristic's)
    assert overruled >= 1 and overruled < differ


def test_search_budgets_by_stage():
    s = early_positions()[0]
    assert P.search_budget(s, DEFAULT) == 0 and P.search_budget(s, DRAW) == 4
    late = s.copy()
    late[R.S_STOCK_POS] = late[R.S_N_CARDS] - 12
    assert P.search_budget(late, DEFAULT) == 4  # search_worlds from 12 cards on
    late[R.S_END_PHASE] = 1
    assert P.search_budget(late, DEFAULT) == 1  # nothing hidden
    late[R.S_PHASE] = R.P_REQUEST
    assert P.search_budget(late, DRAW) == 0  # the exact rule


def test_draw_phase_search_never_peeks():
    """Searching the early draw phase, re-dealing the cards hidden from the seat to move
    (the opponent's hand and the stock) never changes the search's choice."""
    moved = real = searched = 0
    for variant in ("japonais", "chinois"):
        kv = R._vector(R.BesigueKnobs(variant=variant, search_draw_worlds=4,
                                      search_draw_margin=0.5))
        for s in early_positions(variant)[::2]:
            choice = decide(s, kv)
            real += 1
            searched += choice != P.heuristic_move(s, kv, MOVES.copy(), s.copy())
            for key in range(3):
                other = redeal(s, kv, key)
                assert np.array_equal(own_and_public(other), own_and_public(s))
                moved += not np.array_equal(other, s)
                assert decide(other, kv) == choice
    assert real >= 20 and moved >= 50
    assert searched >= 3  # choices the search made, not the heuristic (so it can fail)
