"""Loba rules (seed 000 "Loba"; catalogue loba.md): the seed's worked examples and hand-built
positions pinning each round's first meld, Joker limits and shifts, lay-offs, going out,
penalties, stock exhaustion; knob errors through the command line."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli.commands import main
from simlab.engine.knobs import SimlabError
from simlab.games.loba import players as PL
from simlab.games.loba import rules as R
from simlab.mechanics import melds as M

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "♠♥♦♣"


def kind(label: str) -> int:
    if label == "Joker":
        return M.JOKER_KIND
    return SUITS.index(label[-1]) * 13 + RANKS.index(label[:-1])


def counts(*labels: str) -> np.ndarray:
    c = np.zeros(R.N_KINDS, dtype=np.int64)
    for lab in labels:
        c[kind(lab)] += 1
    return c


def position(hands: list[list[str]], rnd: int, knobs: R.LobaKnobs | None = None,
             stock: list[str] = (), pile: list[str] = ("2♠",), seat: int = 0) -> tuple:
    """A round state by hand: hands, stock (top last drawn first), discard pile (top last)."""
    k = knobs or R.LobaKnobs(players=len(hands))
    kv = R.knob_vector(k)
    S = R.new_state()
    X = R.new_scratch()
    st = S[0]
    st[R.S_PLAYERS] = k.players
    st[R.S_ROUND] = rnd
    st[R.S_NSETS], st[R.S_NRUNS] = R.requirement(kv, rnd)
    st[R.S_OUT] = -1
    st[R.S_ENDED] = -1
    st[R.S_SEAT] = seat
    for p in range(R.MAX_PLAYERS):
        st[R.S_FIRST + p] = -1
    for p, h in enumerate(hands):
        S[1][p, :] = counts(*h)
    for i, lab in enumerate(stock):
        S[2][i] = kind(lab)
    st[R.S_STOCK_END] = len(stock)
    for i, lab in enumerate(pile):
        S[3][i] = kind(lab)
    st[R.S_DISC_N] = len(pile)
    S[6][0] = np.uint64(12345)
    return S, X, kv


def can(cnt: np.ndarray, rnd: int, knobs: R.LobaKnobs | None = None) -> bool:
    kv = R.knob_vector(knobs or R.LobaKnobs())
    ns, nr = R.requirement(kv, rnd)
    return bool(R.can_meld_first(cnt, ns, nr, kv, R.new_scratch()))


def dist(cnt: np.ndarray, rnd: int, knobs: R.LobaKnobs | None = None) -> int:
    kv = R.knob_vector(knobs or R.LobaKnobs())
    ns, nr = R.requirement(kv, rnd)
    return int(R.distance(cnt, ns, nr, kv, R.new_scratch(), True))


def lay_first_now(S, X, kv) -> None:
    st = S[0]
    p = st[R.S_SEAT]
    ns, nr = st[R.S_NSETS], st[R.S_NRUNS]
    assert R.can_meld_first(S[1][p], ns, nr, kv, X)
    R.lay_first(S, kv, X[5], ns + nr)


def run_meld(S, s: int, lo: int, hi: int, jpos: int = 0, owner: int = 1) -> int:
    nj = bin(jpos).count("1")
    return R._new_meld(S, M.SEQ, s, lo, hi, nj, jpos, hi - lo + 1, owner)


# --- the seed's worked examples (catalogue "Worked examples") ------------------------------
def test_example_1_round_2_set_with_duplicate_and_run_with_joker():
    hand = ["7♠", "7♥", "7♥", "4♦", "5♦", "Joker", "7♦"]
    assert can(counts(*hand), 2)
    S, X, kv = position([hand, ["2♣"] * 3, ["3♣"] * 3], 2)
    S[0][R.S_PHASE] = R.PH_ACT
    lay_first_now(S, X, kv)
    assert R.hand_size(S[1], 0) == 0 and S[0][R.S_NTABLE] == 2
    run = [i for i in range(2) if S[4][i, M.T_KIND] == M.SEQ][0]
    # 4♦ 5♦ Joker 7♦: the Joker stands for 6♦ (position 5)
    assert S[4][run, M.T_LO] == 3 and S[4][run, M.T_HI] == 6 and S[4][run, M.T_JPOS] == 1 << 5


def test_example_2_three_sets_in_round_1_lays_only_two():
    hand = ["5♠", "5♥", "5♦", "8♠", "8♥", "8♣", "J♠", "J♥", "J♦", "2♣", "4♦", "9♥"]
    S, X, kv = position([hand, ["2♣"] * 3, ["3♣"] * 3], 1)
    S[0][R.S_PHASE] = R.PH_ACT
    lay_first_now(S, X, kv)
    assert S[0][R.S_NTABLE] == 2 and R.hand_size(S[1], 0) == 6
    # nothing more the same turn: no third set, no lay-off
    assert not R.lay_set(S, kv, 9, 3, 0) and not R.lay_set(S, kv, 6, 3, 0)
    assert not R.lay_set(S, kv, 3, 3, 0)
    left = [c for c in range(52) if S[1][0, c]]
    assert all(not R.lay_off(S, kv, c, 0) for c in left)


def test_example_3_six_of_a_kind_counts_as_two_sets():
    hand = ["9♣", "9♣", "9♦", "9♥", "9♠", "9♠", "2♥", "5♦", "K♠", "Q♥", "3♦", "7♣"]
    assert can(counts(*hand), 1)
    S, X, kv = position([hand, ["2♣"] * 3, ["3♣"] * 3], 1)
    S[0][R.S_PHASE] = R.PH_ACT
    lay_first_now(S, X, kv)
    assert S[0][R.S_SIX] == 1 and S[0][R.S_NTABLE] == 2
    assert all(S[4][i, M.T_KEY] == 7 for i in range(2))  # both sets of 9s
    assert sum(S[1][0, c] for c in range(52) if c % 13 == 7) == 0


def test_example_4_joker_shift_up_to_the_ace_then_no_more():
    S, X, kv = position([["Q♣", "K♣", "A♣", "5♥"], ["2♥"] * 5, ["3♥"] * 5], 3)
    st = S[0]
    st[R.S_FIRST + 0] = 0  # melded on an earlier turn
    c = 3  # clubs
    i = run_meld(S, c, 8, 11, jpos=1 << 11)  # 9♣ 10♣ J♣ Joker(=Q♣)
    assert R.lay_off(S, kv, kind("Q♣"), i)
    assert S[4][i, M.T_HI] == 12 and S[4][i, M.T_JPOS] == 1 << 12  # Joker is now K♣
    assert R.lay_off(S, kv, kind("K♣"), i)
    assert S[4][i, M.T_HI] == 13 and S[4][i, M.T_JPOS] == 1 << 13  # Joker is now A♣
    assert not R.lay_off(S, kv, kind("A♣"), i)  # no wrap: nothing beyond the Ace
    assert st[R.S_SHIFTS] == 2 and S[4][i, M.T_N] == 6


def test_example_5_two_jokers_in_one_meld_are_illegal():
    set_ = ["K♠", "K♠", "K♥"]
    hand = ["5♥", "Joker", "Joker", "8♥"] + set_
    assert not can(counts(*hand), 2)
    assert can(counts(*hand), 2, R.LobaKnobs(jokers_per_meld=2))
    S, X, kv = position([hand, ["2♣"] * 3, ["3♣"] * 3], 2)
    S[0][R.S_FIRST] = 0
    assert not R.lay_run(S, kv, 1, 4, 7, (1 << 5) | (1 << 6))
    assert not R.lay_set(S, kv, 5, 1, 2)


def test_example_6_penalty():
    assert R.hand_penalty(counts("K♠", "7♦", "Joker", "A♣"), 25) == 46


def test_example_7_round_6_race_out_in_the_first_meld_turn():
    full = ["7♠", "7♥", "7♦", "3♠", "4♠", "5♠", "6♠", "9♥", "10♥", "J♥", "Q♥"]
    hand = full[:10] + ["K♦"]
    S, X, kv = position([hand, ["2♣"] * 11, ["3♣"] * 11], 6, stock=["Q♥", "5♣"],
                        pile=["2♦"])
    score = np.zeros(R.N_KINDS)
    PL.heuristic_turn(S, kv, kv, X, score)  # draws Q♥ (the stock's first card), lays 11, discards K♦
    st = S[0]
    assert st[R.S_PHASE] == R.PH_OVER and st[R.S_OUT] == 0 and st[R.S_ENDED] == R.END_OUT
    assert st[R.S_FIRST] == 0 and R.round_penalty(S, kv, 0) == 0
    assert R.round_penalty(S, kv, 1) == 22


# --- each round's requirement ----------------------------------------------------------------
REQ_HANDS = {
    1: ["4♠", "4♥", "4♥", "Q♣", "Q♦", "Q♠"],
    2: ["4♠", "4♥", "4♥", "6♣", "7♣", "8♣", "9♣"],
    3: ["A♦", "2♦", "3♦", "4♦", "J♠", "Q♠", "K♠", "A♠"],
    4: ["4♠", "4♥", "4♥", "Q♣", "Q♦", "Q♠", "8♦", "8♦", "8♣"],
    5: ["4♠", "4♥", "4♥", "Q♣", "Q♦", "Q♠", "6♣", "7♣", "8♣", "9♣"],
    6: ["4♠", "4♥", "4♥", "6♣", "7♣", "8♣", "9♣", "9♥", "10♥", "J♥", "Q♥"],
}


@pytest.mark.parametrize("rnd", range(1, 7))
def test_each_round_needs_exactly_its_melds(rnd):
    hand = REQ_HANDS[rnd]
    assert can(counts(*hand), rnd) and dist(counts(*hand), rnd) == 0
    for drop in range(len(hand)):  # every card is needed
        short = hand[:drop] + hand[drop + 1:]
        assert dist(counts(*short), rnd) == 1
        assert can(counts(*short, "Joker"), rnd)  # a Joker fills any one gap
    # a round's melds do not satisfy another round with more cards or other kinds
    for other in range(1, 7):
        if other != rnd:
            need = R.parse_requirements(R.REQ_DEFAULT)[other - 1]
            mine = R.parse_requirements(R.REQ_DEFAULT)[rnd - 1]
            if need[0] > mine[0] or need[1] > mine[1]:
                assert not can(counts(*hand), other)


def test_runs_same_suit_no_wrap_and_the_variants():
    assert not can(counts("5♥", "6♥", "7♠", "8♥", "2♠", "2♥", "2♦"), 2)
    multi = R.LobaKnobs(multicolour_runs=True)
    assert can(counts("5♥", "6♥", "7♠", "8♥", "2♠", "2♥", "2♦"), 2, multi)
    k_a_2 = ["Q♦", "K♦", "A♦", "2♦", "3♦", "4♦", "5♦", "6♦"]  # Q-K-A-2 wraps: not a run
    assert not can(counts(*k_a_2), 3)
    assert can(counts("J♦", "Q♦", "K♦", "A♦", "A♦", "2♦", "3♦", "4♦"), 3)  # J-A and A-4
    assert not can(counts("J♦", "Q♦", "K♦", "A♦", "2♦", "3♦", "4♦", "5♦"), 3,
                   R.LobaKnobs(ace_high=False))


def test_a_joker_standing_for_a_held_card_frees_it_for_a_set():
    # run 5-8♥ with a Joker for 7♥, set 7♥ 7♠ Joker: needs both Jokers and the swap
    assert can(counts("7♥", "7♠", "5♥", "6♥", "8♥", "Joker", "Joker"), 2)


# --- Jokers, lay-offs, shifts ------------------------------------------------------------------
def test_one_joker_a_meld_for_life_and_sets_grow_without_limit():
    S, X, kv = position([["Joker", "Joker", "9♠", "9♥", "9♥", "4♣"], ["2♥"] * 5], 3,
                        R.LobaKnobs(players=3))
    S[0][R.S_FIRST] = 0
    i = R._new_meld(S, M.SET, 7, -1, -1, 1, 0, 3, 1)  # 9 9 Joker, laid by seat 1
    assert not R.lay_off(S, kv, M.JOKER_KIND, i)
    for lab in ("9♠", "9♥", "9♥"):
        assert R.lay_off(S, kv, kind(lab), i)
    assert S[4][i, M.T_N] == 6 and S[0][R.S_OTHERS_LAYOFFS] == 3
    j = R._new_meld(S, M.SET, 2, -1, -1, 0, 0, 3, 0)
    assert R.lay_off(S, kv, M.JOKER_KIND, j) and not R.lay_off(S, kv, M.JOKER_KIND, j)


def test_lay_offs_need_a_first_meld_on_an_earlier_turn():
    S, X, kv = position([["9♠", "4♣"], ["2♥"] * 5, ["3♥"] * 5], 3)
    i = R._new_meld(S, M.SET, 7, -1, -1, 0, 0, 3, 1)
    assert not R.lay_off(S, kv, kind("9♠"), i)  # not melded yet
    S[0][R.S_FIRST] = 0
    S[0][R.S_MELDED_NOW] = 1
    assert not R.lay_off(S, kv, kind("9♠"), i)  # melded this very turn
    S[0][R.S_MELDED_NOW] = 0
    assert R.lay_off(S, kv, kind("9♠"), i)
    assert not R.lay_off(S, kv, kind("4♣"), i)


def test_runs_extend_at_both_ends_and_a_low_joker_shifts_down():
    S, X, kv = position([["4♥", "9♥", "3♥", "Joker"], ["2♥"] * 5], 3, R.LobaKnobs(players=3))
    S[0][R.S_FIRST] = 0
    i = run_meld(S, 1, 5, 8)  # 5♥..8♥ (positions 4..7 are 5..8)
    i = run_meld(S, 1, 4, 7, jpos=1 << 4)  # Joker(=5♥) 6♥ 7♥ 8♥
    assert R.lay_off(S, kv, kind("9♥"), i) and S[4][i, M.T_HI] == 8
    assert PL.fits_multi(kind("5♥"), S[4], i, 1, 13) == 104  # the real 5♥ would shift it
    assert not R.lay_off(S, kv, kind("3♥"), i)  # 4♥ missing: 3♥ does not touch the run
    assert R.lay_off(S, kv, kind("4♥"), i) and S[4][i, M.T_LO] == 3
    assert not R.lay_off(S, kv, M.JOKER_KIND, i)  # it holds a Joker already


# --- going out, discards, stock -------------------------------------------------------------
def test_going_out_by_melding_the_last_card_and_the_knob_that_forbids_it():
    for by_melding in (True, False):
        k = R.LobaKnobs(go_out_by_melding=by_melding)
        S, X, kv = position([["9♠", "K♦"], ["2♥"] * 5, ["3♥"] * 5], 3, k, stock=["9♦", "5♣"],
                            pile=["2♦"])
        S[0][R.S_FIRST] = 0
        R._new_meld(S, M.SET, 7, -1, -1, 0, 0, 3, 1)
        R._new_meld(S, M.SET, 11, -1, -1, 0, 0, 3, 1)
        PL.heuristic_turn(S, kv, kv, X, np.zeros(R.N_KINDS))
        st = S[0]
        if by_melding:  # draws 9♦, lays 9♠ 9♦ K♦ off: out without a discard
            assert st[R.S_OUT] == 0 and st[R.S_DISC_N] == 1
        else:  # keeps one card for the discard, which takes him out
            assert st[R.S_OUT] == 0 and st[R.S_DISC_N] == 2


def test_an_empty_stock_is_refilled_counted_or_ends_the_round():
    S, X, kv = position([["9♠"], ["2♥"], ["3♥"]], 3, pile=["2♦", "5♣", "K♠"])
    assert R.begin_turn(S, kv)
    st = S[0]
    assert st[R.S_RESHUF] == 1 and st[R.S_STOCK_END] == 2 and st[R.S_DISC_N] == 1
    assert S[3][0] == kind("K♠")  # the top card stays
    assert sorted(S[2][:2]) == sorted([kind("2♦"), kind("5♣")])
    k = R.LobaKnobs(reshuffle_discards=False)
    S, X, kv = position([["9♠"], ["2♥"], ["3♥"]], 3, k, pile=["2♦", "5♣", "K♠"])
    assert not R.begin_turn(S, kv)
    assert S[0][R.S_ENDED] == R.END_STOCK and S[0][R.S_OUT] == -1
    assert R.round_penalty(S, kv, 0) == 9


def test_rounds_end_and_penalties_add_up():
    from simlab.games.loba import run_deals, run_matches
    k = R.LobaKnobs()
    rows = run_deals(k, ("heuristic",) * 3, 5, 0, 60).rows
    fixed = 3 + 3
    assert set(rows[:, 2]) == set(range(1, 7))
    for r in rows:
        out = r[fixed + 1]
        if out >= 0:
            assert r[3 + out] == 0 and r[fixed + 2] == 0
    m = run_matches(k, ("heuristic",) * 3, 5, 0, 10).rows
    assert (m[:, 4:7] >= 0).all() and ((m[:, 2] >= 0) == (m[:, 3] == 1)).all()


# --- knobs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [dict(players=2), dict(players=6), dict(jokers_per_meld=3),
                                 dict(requirements="SS XR"), dict(mene=7),
                                 dict(hand_size=8)])
def test_bad_knobs_raise(bad):
    with pytest.raises(SimlabError):
        R.LobaKnobs(**bad)


@pytest.mark.parametrize("assign", ["players=2", "players=6", "jokers_per_meld=0",
                                    "requirements=SSSSS", "mene=9"])
def test_cli_bad_knob_is_one_line_exit_2(assign, capsys, tmp_path):
    assert main(["run", "loba", "-n", "10", "--set", assign, "--out",
                 str(tmp_path / "x.parquet"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: ") and "\n" not in err and "Traceback" not in err
