"""Issue 32: Sept's take-back decision. The kind "a leader takes back a captured trick
when able, at least once" is always taken, which the game explains with what was
measured (search's values and the duplicate duel of the alternative); the alternative
itself, ``stock_wild_min``, is pinned on hand-built positions."""

from __future__ import annotations

import numpy as np
import polars as pl

from simlab.analysis import players_check as P
from simlab.engine.runner import plan
from simlab.games import get_game
from simlab.games.sept import rules as R
from simlab.games.sept.players import heuristic_move
from simlab.games.sept.questions import TAKE_BACK_TITLE


def _checks(frame: pl.DataFrame) -> dict[str, P.Check]:
    p = plan(get_game("sept"), frame.height, seed=1)
    return {c.name: c for c in P.frame_checks(p.game, p, frame)}


def _frame(answers: list[int], chances: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"deal": range(len(answers)), "answers": answers,
                         "answer_chances": chances})


def test_take_back_always_taken_is_explained_with_the_measure():
    checks = _checks(_frame([1, 2, 3, 1], [2, 2, 4, 1]))
    c = checks[TAKE_BACK_TITLE]
    assert c.ok is True
    assert c.note.startswith("always taken in this run; ")
    assert "duplicate" in c.note and "0.024" in c.note


def test_take_back_never_taken_still_warns():
    """The note explains "always" only: a run whose leaders never take back warns."""
    c = _checks(_frame([0, 0, 0], [2, 1, 3]))[TAKE_BACK_TITLE]
    assert c.ok is False
    assert c.note == ""


def _position(stock_left: int, table_pts: int) -> tuple[np.ndarray, int]:
    """Seat 0 led K♠, seat 1 took it with K♥ (plus ``table_pts`` on the table from a 10 or
    an Ace played earlier in the trick); seat 0 holds 7♣ (wild) and 8♦, no King."""
    def card(rank: str, suit: int) -> int:
        return suit * 8 + R.RANK_NAMES.index(rank)

    s = np.zeros(R.N_STATE, dtype=np.int64)
    k7, k8 = card("7", 3), card("8", 2)
    s[R.S_HAND + 0] = np.int64((1 << k7) | (1 << k8))
    s[R.S_HAND + 1] = np.int64((1 << card("9", 0)) | (1 << card("J", 1)))
    s[R.S_STOCK_POS] = R.N_CARDS - stock_left
    s[R.S_PHASE] = R.P_DECIDE
    s[R.S_LEADER] = 0
    s[R.S_TO_MOVE] = 0
    s[R.S_HOLDER] = 1
    s[R.S_TARGET] = R.RANK_NAMES.index("K")
    s[R.S_TABLE] = np.int64((1 << card("K", 0)) | (1 << card("K", 1)))
    s[R.S_TABLE_PTS] = table_pts
    return s, k7


def test_stock_wild_min_stops_a_pointless_trick_only_when_set():
    """Default 0: the leader takes a pointless trick back with his 7 while the stock
    lasts; stock_wild_min = 10: he stops it, but still takes back a trick with points."""
    default = R._vector(R.SeptKnobs())
    stopper = R._vector(R.SeptKnobs(stock_wild_min=10))
    s, seven = _position(stock_left=8, table_pts=0)
    assert heuristic_move(s, default) == seven
    assert heuristic_move(s, stopper) == R.STOP
    s, seven = _position(stock_left=8, table_pts=10)
    assert heuristic_move(s, stopper) == seven
