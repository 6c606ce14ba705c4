"""Frappe rules: every worked example of the seed section and the catalogue, hand-built
positions for each rule, deal-level facts against exact combinatorics, conservation,
matches to 61, determinism across jobs and chunks, and the pure-Python path."""

from __future__ import annotations

import io
import itertools
import math
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import frappe as F
from simlab.games.frappe import kernels as K
from simlab.games.frappe import rules as R

KN = R.FrappeKnobs()
KV = R.knob_vector(KN)
DEALER, ND = 0, 1  # hand-built positions: seat 0 deals, seat 1 plays first


# --- hand-built positions ---------------------------------------------------------------------
class Cards:
    """Card ids by rank name ("A", "2".."10", "J", "Q", "K"), a new suit each time."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, text: str) -> list[int]:
        out = []
        for name in text.split():
            r = R.RANK_NAMES.index(name)
            c = next(c for c in range(52) if R.RANK_OF[c] == r and c not in self.used)
            self.used.add(c)
            out.append(c)
        return out


def mask(ids) -> np.uint64:
    m = 0
    for c in ids:
        m |= 1 << int(c)
    return np.uint64(m)


def ranks(m) -> list[str]:
    return sorted((R.RANK_NAMES[R.RANK_OF[c]] for c in range(52) if int(m) >> c & 1),
                  key=R.RANK_NAMES.index)


def position(nd: str, d: str, table: str = "", *, rply: int = 0, rnd: int = 0,
             knobs: R.FrappeKnobs = KN) -> tuple:
    """Round ``rnd`` (0-based) after ``rply`` plays, the non-dealer (seat 1) to move if
    ``rply`` is even: hands (ranks), the table; the extension already turned; every other
    card still in the pack, in id order."""
    cards = Cards()
    st, mk, dk = R.new_state()
    hands = {ND: cards.take(nd), DEALER: cards.take(d)}
    tab = cards.take(table)
    st[R.S_DEALER] = DEALER
    st[R.S_PEN_WINS] = knobs.penitence_wins_match  # as ``start_deal`` sets it
    for s in (R.S_LAST_CAPTURER, R.S_PEND_SEAT, R.S_COUNTER_SEAT, R.S_PENITENCE, R.S_REACHED,
              R.S_REACH_SRC, R.S_LEFTOVER_TO, R.S_PREV_STAYED):
        st[s] = -1
    st[R.S_PHASE] = R.PH_PLAY
    st[R.S_ROUND] = rnd
    st[R.S_EXT_ROUND] = 0
    st[R.S_RPLY] = rply
    st[R.S_PLY] = rnd * R.PLAYS_PER_ROUND + rply
    st[R.S_TURN] = ND if rply % 2 == 0 else DEALER
    for p, h in hands.items():
        mk[R.M_HAND + p] = mask(h)
        mk[R.M_ROUND + p] = mask(h)
        st[R.S_ANN0 + p] = R.hand_type(mask(h))[0]
    mk[R.M_TABLE] = mask(tab)
    rest = [c for c in range(52) if c not in cards.used]  # the pack: its last cards
    dk[52 - len(rest):] = rest
    st[R.S_DECK_POS] = 52 - len(rest)
    return st, mk, dk, R.knob_vector(knobs)


def play(pos: tuple, rank: str, decline: int = 0) -> None:
    st, mk, dk, kv = pos
    move = R.play_move(R.RANK_NAMES.index(rank), decline)
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(st, mk, kv, moves)
    assert move in moves[:n], (rank, decline, moves[:n])
    R.apply_move(st, mk, dk, kv, move)


def pts(pos: tuple, seat: int, src: int | None = None) -> int:
    st = pos[0]
    if src is None:
        return int(R.points(st, seat))
    return int(st[R.S_PTS + seat * R.N_SRC + src])


def pile(pos: tuple, seat: int) -> list[str]:
    return ranks(pos[1][R.M_PILE + seat])


def table(pos: tuple) -> list[str]:
    return ranks(pos[1][R.M_TABLE])


# --- the catalogue's worked examples -----------------------------------------------------------
def test_example_1_en_place_then_strike_and_sweep():
    """Empty table: ND's Ace is en place (+1); D's Ace is a frappe (+1) and a sweep of the
    one-card run {A} (+1), confirmed when ND does not counter."""
    pos = position("A 5 9", "A 7 K")
    play(pos, "A")
    assert pts(pos, ND, R.SRC_EN_PLACE) == 1 and table(pos) == ["A"]
    play(pos, "A")
    assert pos[0][R.S_PEND_SEAT] == DEALER and pts(pos, DEALER) == 0  # pending (catalogue #3)
    play(pos, "5")
    assert pts(pos, DEALER, R.SRC_STRIKE) == 1 and pts(pos, DEALER, R.SRC_SWEEP) == 1
    assert pile(pos, DEALER) == ["A", "A"] and table(pos) == ["5"]


@pytest.mark.parametrize("sweeps, nd_points", [(True, 1 + 3 + 1), (False, 1 + 3)])
def test_example_2_counter_strike_then_penitence(sweeps, nd_points):
    """ND's third Ace cancels D's frappe: ND scores 3x and takes the three Aces; the seed
    ("un nettoyage peut être marqué en même temps qu'une contre-frappe") adds the sweep D's
    strike would have made; ``counter_strike_sweeps=false`` gives the catalogue's 3. D's
    fourth Ace is the pénitence: D wins the match."""
    pos = position("A A 9", "A A K", knobs=R.FrappeKnobs(counter_strike_sweeps=sweeps))
    play(pos, "A")
    play(pos, "A")
    play(pos, "A")
    assert pts(pos, ND) == nd_points and pts(pos, DEALER) == 0
    assert pile(pos, ND) == ["A", "A", "A"] and pile(pos, DEALER) == [] and table(pos) == []
    assert pos[0][R.S_EV + ND * R.N_EV + R.EV_COUNTERS] == 1
    assert pos[0][R.S_EV + DEALER * R.N_EV + R.EV_STRUCK_BACK] == 1
    play(pos, "A")
    assert pos[0][R.S_PENITENCE] == DEALER and pos[0][R.S_PHASE] == R.PH_OVER


def test_example_3_sweep_values():
    pos = position("J 5 9", "2 7 8", "J Q K")
    play(pos, "J")
    assert pts(pos, ND, R.SRC_SWEEP) == 4 and pile(pos, ND) == ["J", "J", "Q", "K"]
    assert table(pos) == [] and pts(pos, ND, R.SRC_STRIKE) == 0  # the first card: no frappe
    pos = position("Q 5 9", "3 7 8", "A 2 Q K")
    play(pos, "Q")  # Dame-Roi-As-2: the last card of the run is the 2
    assert pts(pos, ND, R.SRC_SWEEP) == 1 and pile(pos, ND) == ["A", "2", "Q", "Q", "K"]


def test_example_4_partial_run():
    pos = position("4 J 9", "2 7 8", "4 5 6 9")
    play(pos, "4")
    assert pile(pos, ND) == ["4", "4", "5", "6"] and table(pos) == ["9"] and pts(pos, ND) == 0


@pytest.mark.parametrize("nd, d, winner, points", [
    ("K K 3", "6 6 6", DEALER, 3),  # any brelan beats any pair
    ("7 7 3", "7 7 K", ND, 1),  # equal pairs: the dealer's opponent
    ("Q Q 3", "K K 2", DEALER, 4),  # the higher pair
    ("A A 3", "2 5 9", ND, 1),
    ("K K K", "Q Q Q", ND, 12),  # a brelan is worth three pairs
    ("J J 2", "A A A", DEALER, 3),
    ("2 3 4", "5 6 7", None, 0),
])
def test_example_5_announcements(nd, d, winner, points):
    pos = position(nd, d)
    st, mk, _, kv = pos
    R._score_announcements(st, mk, kv)
    for seat in (ND, DEALER):
        assert pts(pos, seat, R.SRC_ANNOUNCE) == (points if seat == winner else 0)


def ext_of(text: str, cards: Cards | None = None) -> np.ndarray:
    return np.array((cards or Cards()).take(text), dtype=np.int64)


def test_example_6_extension():
    """[3, 2, 9, 4]: the 2 and the 4 in place (6, the best layout); a 9 on the table adds a
    pair (+1): 7."""
    cards = Cards()
    ext = ext_of("3 2 9 4", cards)
    assert R.extension_score(ext, R.EMPTY, KV) == (6, 0)
    assert R.extension_score(ext, mask(cards.take("9")), KV) == (6, 1)


def test_extension_positions_of_the_seed():
    """§4.1: an As in 1st position 1 point ... a 4 in 4th 4 points; counted from either
    end; swaps 1<->2 and 3<->4 only."""
    assert R.extension_score(ext_of("A 2 3 4"), R.EMPTY, KV)[0] == 10
    assert R.extension_score(ext_of("4 3 2 A"), R.EMPTY, KV)[0] == 10  # right to left
    assert R.extension_score(ext_of("2 A 4 3"), R.EMPTY, KV)[0] == 10  # both swaps
    no_swap = R.knob_vector(R.FrappeKnobs(extension_swaps=False))
    assert R.extension_score(ext_of("2 A 4 3"), R.EMPTY, no_swap)[0] == 0
    one_way = R.knob_vector(R.FrappeKnobs(extension_both_ways=False))
    assert R.extension_score(ext_of("4 3 2 A"), R.EMPTY, one_way)[0] == 0
    # both swaps, read from the right: A 2 3 4
    assert R.extension_score(ext_of("3 4 A 2"), R.EMPTY, KV)[0] == 10
    # no swap across the middle: [A, 3, 2, 4] never becomes A 2 3 4; its best is 5 (the A
    # and the 4 from the left, or the 2 and the 3 from the right)
    assert R.extension_score(ext_of("A 3 2 4"), R.EMPTY, KV)[0] == 5


def test_extension_multiples():
    cards = Cards()
    assert R.extension_score(ext_of("5 5 5 5", cards), R.EMPTY, KV)[1] == 6  # catalogue #2
    cards = Cards()
    ext = ext_of("K K 9 J", cards)
    on_table = mask(cards.take("K 9 Q"))
    # brelan of Kings with the table (4 x 3), pair of 9s (1); the J and Q pair nothing
    assert R.extension_score(ext, on_table, KV)[1] == 13
    assert R.extension_score(ext, on_table, R.knob_vector(R.FrappeKnobs(triple_mult=2)))[1] == 9
    cards = Cards()  # table cards alone are no multiple of the extension
    assert R.extension_score(ext_of("2 3 5 6", cards), mask(cards.take("Q Q")), KV)[1] == 0


def test_example_7_end_of_deal_card_difference():
    pos = position("", "")
    st, mk, _, kv = pos
    mk[R.M_PILE + ND] = mask(range(30))
    mk[R.M_PILE + DEALER] = mask(range(30, 52))
    R._end_deal(st, mk, kv)
    assert pts(pos, ND, R.SRC_CARDS) == 8 and pts(pos, DEALER) == 0


# --- captures and runs --------------------------------------------------------------------------
def test_runs_wrap_after_the_king_unless_the_knob_says_no():
    cards = Cards()
    t = mask(cards.take("Q K A 2 3 9"))
    taken, last = R.capture_set(t, R.RANK_NAMES.index("Q"), KV)
    assert ranks(taken) == ["A", "2", "3", "Q", "K"] and R.RANK_NAMES[last] == "3"
    flat = R.knob_vector(R.FrappeKnobs(wraparound_runs=False))
    taken, last = R.capture_set(t, R.RANK_NAMES.index("Q"), flat)
    assert ranks(taken) == ["Q", "K"] and R.RANK_NAMES[last] == "K"
    everything = mask(cards.take("4 5 6 7 8 10 J"))  # with 9 above: all 13 ranks
    taken, last = R.capture_set(t | everything, R.RANK_NAMES.index("5"), KV)
    assert len(ranks(taken)) == 13 and R.RANK_NAMES[last] == "4"  # never loops back


def test_one_copy_of_a_repeated_rank_and_no_sweep():
    """§6: "un seul exemplaire de ces cartes est capturé"; catalogue #7: the duplicate breaks
    the run, so no sweep."""
    pos = position("5 J 9", "2 7 8", "5 5 6")
    play(pos, "5")
    assert pile(pos, ND) == ["5", "5", "6"] and table(pos) == ["5"] and pts(pos, ND) == 0


def test_single_card_sweep_and_not_with_the_last_card_of_the_deal():
    pos = position("7 J 9", "2 3 8", "7")
    play(pos, "7")
    assert pts(pos, ND, R.SRC_SWEEP) == 1
    # the deal's last card (round 8, 6th play): the capture, no sweep; then the end
    pos = position("", "7", "7", rply=5, rnd=7)
    play(pos, "7")
    assert pts(pos, DEALER, R.SRC_SWEEP) == 0 and pos[0][R.S_PHASE] == R.PH_OVER
    assert len(pile(pos, DEALER)) == 2


def test_no_match_stays_and_capture_is_mandatory_without_en_place():
    pos = position("9 J K", "2 3 8", "5 6")
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(pos[0], pos[1], pos[3], moves)
    assert sorted(moves[:n] & 1) == [0, 0, 0]  # no decline: nothing is en place here
    play(pos, "9")
    assert table(pos) == ["5", "6", "9"] and pos[0][R.S_PREV_STAYED] == R.RANK_NAMES.index("9")


# --- frappe, contre-frappe, pénitence -------------------------------------------------------------
@pytest.mark.parametrize("rank, value", [("K", 4), ("Q", 3), ("J", 2), ("10", 1), ("5", 1)])
def test_frappe_values(rank, value):
    pos = position(f"{rank} 2 3", f"{rank} 8 9", "6" if rank != "6" else "7")
    play(pos, rank)
    play(pos, rank)
    play(pos, "2")  # not the rank: the frappe stands
    assert pts(pos, DEALER, R.SRC_STRIKE) == value
    assert pos[0][R.S_EV + DEALER * R.N_EV + R.EV_STRIKES] == 1


def test_counter_strike_is_three_times_and_optional():
    pos = position("Q Q 3", "Q 8 9", "6")
    play(pos, "Q")
    play(pos, "Q")
    play(pos, "Q")
    assert pts(pos, ND, R.SRC_STRIKE) == 9 and pts(pos, DEALER) == 0
    pos = position("Q Q 3", "Q 8 9", "6")
    play(pos, "Q")
    play(pos, "Q")
    play(pos, "3")  # ND keeps his Queen: the frappe stands
    assert pts(pos, DEALER, R.SRC_STRIKE) == 3 and pts(pos, ND, R.SRC_STRIKE) == 0


def test_counter_strike_cards_back_to_the_table_with_the_knob():
    pos = position("Q Q 3", "Q 8 9", "6", knobs=R.FrappeKnobs(counter_strike_takes=False))
    play(pos, "Q")
    play(pos, "Q")
    play(pos, "Q")
    assert pts(pos, ND, R.SRC_STRIKE) == 9 and pile(pos, ND) == []
    assert table(pos) == ["6", "Q", "Q", "Q"]


def test_strike_needs_the_previous_card_of_the_same_round():
    """A card that captured, or a card of the previous round, cannot be struck."""
    pos = position("8 2 3", "8 K 9", "8")
    play(pos, "8")  # captures the table's 8: it did not stay
    play(pos, "K")
    assert pts(pos, DEALER) == 0
    # the dealer's last card of round 1 stays; ND's King in round 2 captures it, no frappe
    pos = position("", "K", "5", rply=5)
    st, mk, dk, kv = pos
    play(pos, "K")
    assert st[R.S_ROUND] == 1 and st[R.S_PREV_STAYED] == -1 and st[R.S_TURN] == ND
    king = next(c for c in range(52) if R.RANK_OF[c] == R.R_KING
                and not int(mk[R.M_TABLE] | mk[R.M_HAND] | mk[R.M_HAND + 1]) >> c & 1)
    mk[R.M_HAND + ND] = mask([king])
    play(pos, "K")
    assert pts(pos, ND, R.SRC_STRIKE) == 0 and pile(pos, ND) == ["K", "K"]


def test_a_strike_with_the_rounds_last_card_is_safe():
    pos = position("K", "K", "5", rply=4)
    play(pos, "K")
    play(pos, "K")  # the dealer's last card of the round: confirmed at once (catalogue #5)
    assert pts(pos, DEALER, R.SRC_STRIKE) == 4 and pos[0][R.S_PEND_SEAT] == -1


def test_penitence_needs_the_strikers_very_next_card():
    pos = position("A A 9", "A 5 A")
    play(pos, "A")
    play(pos, "A")
    play(pos, "A")  # contre-frappe
    play(pos, "5")  # the striker lets it go
    assert pos[0][R.S_PENITENCE] == -1
    play(pos, "9")
    play(pos, "A")  # the fourth Ace later: an ordinary card (the table is empty)
    assert pos[0][R.S_PENITENCE] == -1


# --- en place ----------------------------------------------------------------------------------
@pytest.mark.parametrize("on_table, card, points", [
    ("", "A", 1), ("9", "2", 2), ("9 J", "3", 3), ("9 J K", "4", 4), ("", "2", 0),
    ("9 J K 7", "5", 0), ("9", "3", 0)])
def test_en_place_situations(on_table, card, points):
    """§6.2: a 1 onto an empty table, a 2 onto 1 card, a 3 onto 2, a 4 onto 3."""
    pos = position(f"{card} 8 8", "2 6 6" if card != "2" else "3 6 6", on_table)
    play(pos, card)
    assert pts(pos, ND, R.SRC_EN_PLACE) == points


def test_declining_a_capture_to_play_en_place():
    """Catalogue #12: the 2 could strike the 2 that just stayed; it may instead stay en
    place (+2), and the opponent may then strike it."""
    pos = position("2 8 8", "2 9 J")
    play(pos, "2")  # a 2 onto an empty table: no points
    st, mk, _, kv = pos
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(st, mk, kv, moves)
    assert R.play_move(1, 1) in moves[:n]
    play(pos, "2", decline=1)
    assert pts(pos, DEALER, R.SRC_EN_PLACE) == 2 and table(pos) == ["2", "2"]
    assert pos[0][R.S_EV + DEALER * R.N_EV + R.EV_DECLINED] == 1
    no = R.knob_vector(R.FrappeKnobs(en_place_decline=False))
    pos = position("2 8 8", "2 9 J")
    play(pos, "2")
    n = R.legal_moves(pos[0], pos[1], no, moves)
    assert all(m & 1 == 0 for m in moves[:n])


def test_no_decline_for_a_counter_strike():
    pos = position("2 2 3", "2 8 9", "")
    play(pos, "2")
    play(pos, "2")  # strike on the one-card table {2}: pending
    st, mk, _, kv = pos
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(st, mk, kv, moves)
    assert list(moves[:n]) == [R.play_move(1, 0), R.play_move(2, 0)]


# --- the deal, the extension timing, the target -----------------------------------------------------
def test_extension_round_knob_and_forced_last_round():
    f = simlab.simulate("frappe", 200, seed=2, params={"extension_round": 2})
    assert (f["ext_round"] == 2).all()
    f = simlab.simulate("frappe", 200, seed=2, params={"extension_timing": "last"})
    assert (f["ext_round"] == 8).all()
    f = simlab.simulate("frappe", 200, seed=2, params={"extension_timing": "first"})
    assert (f["ext_round"] == 1).all()


def test_the_target_stops_the_deal_when_reached():
    """§7: the first to reach 61 wins, "ceci peut intervenir durant le jeu"."""
    pos = position("A 5 9", "A 7 K")
    st = pos[0]
    st[R.S_TARGET] = 61
    st[R.S_BASE0 + ND] = 60
    play(pos, "A")  # en place: 61
    assert st[R.S_REACHED] == ND and st[R.S_REACH_SRC] == R.SRC_EN_PLACE
    assert st[R.S_PHASE] == R.PH_OVER


def test_leftover_goes_to_the_last_capturer():
    pos = position("", "9", "5 8", rply=5, rnd=7)
    st, mk, _, kv = pos
    st[R.S_LAST_CAPTURER] = ND
    mk[R.M_PILE + ND] = mask([51])
    play(pos, "9")  # stays; the deal ends
    assert st[R.S_LEFTOVER] == 3 and st[R.S_LEFTOVER_TO] == ND
    assert len(pile(pos, ND)) == 4 and table(pos) == []


# --- deal-level invariants ------------------------------------------------------------------------
@pytest.mark.parametrize("policies", [("heuristic", "heuristic"), ("random", "heuristic"),
                                      ("random", "random")])
def test_conservation_over_deals(policies):
    n = 600
    f = simlab.simulate("frappe", n, seed=7, policies=",".join(policies))
    for i in range(2):
        parts = sum(f[f"pts_{s}_s{i}"] for s in R.SOURCES)
        assert (parts == f[f"score_s{i}"]).all()
        assert (f.filter(pl.col("dealer") != i)[f"pts_extension_s{i}"] == 0).all()
    done = f.filter(pl.col("penitence") < 0)
    assert (done["plays"] == 48).all()
    lost = pl.when(pl.col("leftover_to") < 0).then(pl.col("leftover")).otherwise(0)
    assert (done.select(pl.col("cards_won_s0") + pl.col("cards_won_s1") + lost)
            .to_series() == 52).all()
    diff = done["cards_won_s0"] - done["cards_won_s1"]
    assert (done["pts_cards_s0"] == diff.clip(lower_bound=0)).all()
    assert (done["pts_cards_s1"] == (-diff).clip(lower_bound=0)).all()
    ext = f["ext_position_points"] + f["ext_multiple_points"]
    dealer_ext = pl.select(pl.when(f["dealer"] == 0).then(f["pts_extension_s0"])
                           .otherwise(f["pts_extension_s1"])).to_series()
    assert (ext == dealer_ext).all() and (f["ext_round"].is_between(1, 8) | (f["plays"] < 48)).all()
    assert f["ext_position_points"].max() <= 10


def _pair_probabilities() -> tuple[float, float]:
    n = math.comb(52, 3)
    return 13 * math.comb(4, 2) * 48 / n, 13 * 4 / n


def test_first_round_announcements_match_combinatorics():
    """P(a 3-card hand holds exactly a pair) = 13 C(4,2) 48 / C(52,3), a brelan 13 4 / C(52,3),
    on the first round's hands of both seats (5 standard errors)."""
    k = KN
    n = 6000
    out = K.run_deals(k, ("heuristic", "heuristic"), 11, 0, n, True)
    p_pair, p_trips = _pair_probabilities()
    full = out.rows[:, K.F0 + K.F_PLAYS] == 48
    dealt = out.dealt[full].reshape(-1, 48)
    assert all(len(set(row)) == 48 and min(row) >= 0 for row in dealt)  # 48 distinct cards
    first = out.dealt[:, :, :3]
    types = np.array([[R.hand_type(mask(first[i, s]))[0] for s in range(2)] for i in range(n)])
    for want, p in ((R.ANN_PAIR, p_pair), (R.ANN_TRIPS, p_trips)):
        est = (types == want).mean()
        se = math.sqrt(p * (1 - p) / types.size)
        assert abs(est - p) < 5 * se + 1e-12, (want, est, p)


def _extension_exact() -> tuple[float, float]:
    """With an empty table: P(the 4 extension cards hold a pair or more), and the expected
    best position points over the dealer's 8 layouts (by enumerating ordered rank tuples,
    weighted by how many ordered card choices give them)."""
    p_distinct = math.comb(13, 4) * 4 ** 4 / math.comb(52, 4)
    expected = 0.0
    total = 52 * 51 * 50 * 49
    for t in itertools.product(range(13), repeat=4):
        w = 1
        seen: dict[int, int] = {}
        for r in t:
            w *= 4 - seen.get(r, 0)
            seen[r] = seen.get(r, 0) + 1
        best = 0
        for a, b, c, d in ((0, 1, 2, 3), (1, 0, 2, 3), (0, 1, 3, 2), (1, 0, 3, 2)):
            lay = (t[a], t[b], t[c], t[d])
            for order in (lay, lay[::-1]):
                best = max(best, sum(i + 1 for i, r in enumerate(order) if r == i))
        expected += w * best / total
    return 1 - p_distinct, expected


def test_extension_after_round_1_matches_combinatorics():
    n = 6000
    f = simlab.simulate("frappe", n, seed=12, params={"extension_round": 1})
    p_mult, e_pos = _extension_exact()
    est = (f["ext_multiple_points"] > 0).mean()
    assert abs(est - p_mult) < 5 * math.sqrt(p_mult * (1 - p_mult) / n)
    x = f["ext_position_points"].to_numpy().astype(float)
    assert abs(x.mean() - e_pos) < 5 * x.std(ddof=1) / math.sqrt(n), (x.mean(), e_pos)


# --- matches ---------------------------------------------------------------------------------------
def test_matches_end_at_the_target_or_a_penitence():
    m = simlab.simulate("frappe", 300, seed=5, level="match")
    assert not m["capped"].any() and (m["winner"] >= 0).all()
    on_points = m.filter(~pl.col("by_penitence"))
    w = on_points["winner"].to_numpy()
    fin = on_points.select("final_score_s0", "final_score_s1").to_numpy()
    assert (fin[np.arange(len(w)), w] >= 61).all() and (fin[np.arange(len(w)), 1 - w] < 61).all()
    assert on_points["mid_deal"].is_not_null().all() and on_points["mid_deal"].any()
    assert (m["first_dealer"].is_in([0, 1])).all() and m["n_deals"].min() >= 1
    by_cards = on_points["reach_source"].cast(pl.String) == "cards"
    assert (by_cards == ~on_points["mid_deal"]).all()


def test_trace_reads_a_whole_deal():
    lines = K.trace_deal(KN, ("heuristic", "random"), 3, 0)
    plays = [x for x in lines if " plays " in x]
    rounds = [x for x in lines if x.startswith("-- round")]
    assert len(plays) == 48 and len(rounds) == 8 and lines[-1].startswith("end: points")
    f = simlab.simulate("frappe", 1, seed=3, policies="heuristic,random")
    assert lines[-1].startswith(f"end: points {f['score_s0'][0]} / {f['score_s1'][0]}")
    # the recorded dealt cards are the hands each round starts with
    dealt = K.run_deals(KN, ("heuristic", "random"), 3, 0, 1, True).dealt[0]
    for k, line in enumerate(rounds):
        for s in range(2):
            want = K.card_text(mask(dealt[s, 3 * k:3 * k + 3]))
            assert f"s{s} [{want}]" in line, (line, want)


def test_a_low_target_ends_in_the_first_deal():
    m = simlab.simulate("frappe", 50, seed=5, level="match", params={"target": 5})
    assert (m["n_deals"] == 1).all() and m["mid_deal"].fill_null(True).all()


# --- determinism, the pure-Python path, knobs ---------------------------------------------------------
def test_identical_frames_across_jobs_and_chunks():
    a = simlab.simulate("frappe", 60, seed=9, policies="heuristic,random", jobs=1)
    b = simlab.simulate("frappe", 60, seed=9, policies="heuristic,random", jobs=2, chunk_size=17)
    c = simlab.simulate("frappe", 60, seed=9, policies="heuristic,random", jobs=1, chunk_size=25)
    assert a.equals(b) and a.equals(c)
    m1 = simlab.simulate("frappe", 20, seed=9, level="match", jobs=1)
    m2 = simlab.simulate("frappe", 20, seed=9, level="match", jobs=2, chunk_size=7)
    assert m1.equals(m2)


def test_pure_python_path_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import frappe as F\n"
        "from simlab.engine.game import to_frame\n"
        "k = F.FrappeKnobs(search_worlds=1)\n"
        "with np.errstate(over='ignore'):\n"
        "    o = F.run_deals(k, ('heuristic', 'random'), 9, 0, 3, True)\n"
        "    s = F.run_deals(k, ('search', 'heuristic'), 9, 3, 1, False)\n"
        "f = to_frame(o, F.deal_columns(k), F.DECK.labels, 2)\n"
        "g = to_frame(s, F.deal_columns(k), F.DECK.labels, 2)\n"
        "import polars as pl\n"
        "pl.concat([f.drop('dealt_s0', 'dealt_s1'), g]).write_parquet('/dev/stdout')\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    slow = pl.read_parquet(io.BytesIO(res.stdout))
    k = F.FrappeKnobs(search_worlds=1)
    o = F.run_deals(k, ("heuristic", "random"), 9, 0, 3, True)
    s = F.run_deals(k, ("search", "heuristic"), 9, 3, 1, False)
    fast = pl.concat([to_frame(o, F.deal_columns(k), F.DECK.labels, 2).drop("dealt_s0", "dealt_s1"),
                      to_frame(s, F.deal_columns(k), F.DECK.labels, 2)])
    assert slow.equals(fast)


@pytest.mark.parametrize("values", [{"target": 0}, {"extension_round": 9},
                                    {"extension_timing": "never"}, {"value_king": -1},
                                    {"en_place_max": "x"}, {"nope": 1}])
def test_bad_knobs_give_one_line_errors(values):
    with pytest.raises(SimlabError) as e:
        F.GAME.make_knobs(values)
    assert "\n" not in str(e.value)
