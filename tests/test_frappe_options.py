"""Frappe rulebook options (issue 31): the pénitence wins the match ("remporte alors
immédiatement la partie", the default) or only ends the deal; a contre-frappe (and a
pénitence) answering across the round boundary (the seed is silent: within the round by
default). Hand-built positions (``tests/test_frappe.py``'s helpers) and whole matches."""

from __future__ import annotations

import numpy as np
import polars as pl

import simlab
from simlab.games.frappe import rules as R
from tests.test_frappe import DEALER, ND, pile, play, position, pts, table


def give(pos: tuple, seat: int, rank: str) -> None:
    """Put in ``seat``'s hand a card of ``rank`` that is nowhere else in play."""
    st, mk, dk, kv = pos
    r = R.RANK_NAMES.index(rank)
    seen = int(mk[R.M_TABLE] | mk[R.M_HAND] | mk[R.M_HAND + 1] | mk[R.M_PILE]
               | mk[R.M_PILE + 1] | mk[R.M_PEND])
    c = next(c for c in range(52) if R.RANK_OF[c] == r and not seen >> c & 1)
    mk[R.M_HAND + seat] = np.uint64(1 << c)


def last_card_strike(**knobs) -> tuple:
    """The dealer strikes ND's King with the round's last card; round 2 is then dealt,
    and ND's first card of it is a King."""
    pos = position("K", "K", "5", rply=4, knobs=R.FrappeKnobs(**knobs))
    play(pos, "K")
    play(pos, "K")
    assert pos[0][R.S_ROUND] == 1 and pos[0][R.S_TURN] == ND
    give(pos, ND, "K")
    return pos


def test_default_a_strike_with_the_rounds_last_card_stands():
    assert R.FrappeKnobs().counter_across_rounds is False
    pos = last_card_strike()
    assert pts(pos, DEALER, R.SRC_STRIKE) == 4 and pos[0][R.S_PEND_SEAT] == -1
    play(pos, "K")  # no frappe awaits: an ordinary card, it stays
    assert pts(pos, ND, R.SRC_STRIKE) == 0 and "K" in table(pos)


def test_counter_across_rounds_knob_answers_with_the_next_rounds_first_card():
    pos = last_card_strike(counter_across_rounds=True)
    assert pts(pos, DEALER) == 0 and pos[0][R.S_PEND_SEAT] == DEALER  # still pending
    play(pos, "K")  # contre-frappe in the next round
    assert pts(pos, ND, R.SRC_STRIKE) == 12 and pts(pos, DEALER, R.SRC_STRIKE) == 0
    assert pile(pos, ND) == ["K", "K", "K"]
    give(pos, DEALER, "K")
    play(pos, "K")  # and the dealer's fourth King is the pénitence
    assert pos[0][R.S_PENITENCE] == DEALER and pos[0][R.S_PHASE] == R.PH_OVER


def penitence_position(**knobs) -> tuple:
    """The catalogue's worked example 2, to the dealer's pénitence."""
    pos = position("A A 9", "A A K", knobs=R.FrappeKnobs(**knobs))
    for _ in range(4):
        play(pos, "A")
    return pos


def test_default_penitence_wins_the_match_at_once():
    assert R.FrappeKnobs().penitence_wins_match is True
    pos = penitence_position()
    st = pos[0]
    assert st[R.S_PENITENCE] == DEALER and st[R.S_PHASE] == R.PH_OVER
    assert R.outcome(st, DEALER, 100) - (R.points(st, DEALER) - R.points(st, ND)) == 100
    assert pts(pos, DEALER, R.SRC_CARDS) == 0  # nothing is counted: the match is over


def test_penitence_only_ends_the_deal_with_the_knob():
    pos = penitence_position(penitence_wins_match=False)
    st = pos[0]
    assert st[R.S_PENITENCE] == DEALER and st[R.S_PHASE] == R.PH_OVER
    assert pile(pos, DEALER) == ["A"] and pile(pos, ND) == ["A", "A", "A"]
    assert pts(pos, ND, R.SRC_CARDS) == 2  # 3 cards to 1: the deal's card difference
    assert R.outcome(st, DEALER, 100) == R.points(st, DEALER) - R.points(st, ND)


def test_matches_go_on_after_a_penitence_with_the_knob():
    m = simlab.simulate("frappe", 200, seed=5, level="match",
                       params={"penitence_wins_match": False})
    assert not m["by_penitence"].any() and (m["winner"] >= 0).all()
    fin = m.select("final_score_s0", "final_score_s1").to_numpy()
    w = m["winner"].to_numpy()
    assert (fin[np.arange(len(w)), w] >= 61).all()
    d = simlab.simulate("frappe", 3000, seed=5, params={"penitence_wins_match": False})
    assert d.filter(pl.col("penitence") >= 0).height > 0  # pénitences still happen
