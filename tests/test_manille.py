"""Manille (classic): rules of play, scoring, deal invariants, exact odds, matches."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simlab.engine import rng
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import simulate
from simlab.games import get_game
from simlab.games import manille as M
from simlab.games.manille.rules import manille_legal
from simlab.mechanics.tricks import bit, update_trick

DECK = M.DECK
SUIT_OF = DECK.suit
HEUR = ("heuristic",) * 4
RAND = ("random",) * 4
MIXED = ("heuristic", "random", "heuristic", "random")
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)


def cid(label: str) -> int:
    return DECK.index(label)


def legal(hand: list[str], trick: list[tuple[int, str]], seat: int, trump: int,
          **knobs) -> set[str]:
    """Legal cards of ``seat`` holding ``hand`` after ``trick`` [(seat, card), ...]."""
    k = M.ManilleKnobs(**knobs)
    rules = M.rules_for(k)
    tb = M.tables(k)
    above = tb.above[trump + 1]
    led, win, win_seat = -1, -1, -1
    for s, c in trick:
        led, win, win_seat = update_trick(cid(c), s, led, win, win_seat, trump, tb.suit_of,
                                          above)
    leader = trick[0][0] if trick else seat
    table = np.array([cid(c) for _, c in trick] + [-1] * (4 - len(trick)), dtype=np.int64)
    h = np.uint64(0)
    for c in hand:
        h |= bit(cid(c))
    mask = manille_legal(h, table, len(trick), led, win, win_seat, leader, seat, M.TEAM_OF,
                         trump, tb.suit_of, tb.suit_mask, tb.excuse_mask, above, rules)
    assert mask & ~h == 0  # only cards of the hand
    return {c for c in hand if mask & bit(cid(c))}


# --- (a) obligations of play: the catalogue's worked examples 4-6 ------------------------
def test_example_4_overplay():
    trick = [(0, "K♥")]  # no trump on the trick
    assert legal(["10♥", "8♥", "7♠"], trick, 1, CLUBS) == {"10♥"}
    assert legal(["Q♥", "8♥", "7♠"], trick, 1, CLUBS) == {"Q♥", "8♥"}
    # knob: only follow
    assert legal(["10♥", "8♥", "7♠"], trick, 1, CLUBS, must_overplay_in_suit=False) == {
        "10♥", "8♥"}
    # "supérieure à la dernière carte posée": the last card of the led suit laid (7♥), so
    # Q♥ will do; overplay_reference=best: the best card (K♥), only A♥
    assert legal(["A♥", "Q♥"], [(0, "K♥"), (1, "7♥")], 2, CLUBS) == {"A♥", "Q♥"}
    assert legal(["A♥", "Q♥"], [(0, "K♥"), (1, "7♥")], 2, CLUBS,
                 overplay_reference="best") == {"A♥"}
    # the obligation lapses once the trick is trumped
    assert legal(["10♥", "8♥"], [(0, "K♥"), (1, "7♣")], 2, CLUBS) == {"10♥", "8♥"}


def test_overplay_on_partner_and_its_exemption_knob():
    trick = [(0, "K♥"), (1, "9♥")]  # partner (seat 0) is winning
    assert legal(["10♥", "8♥"], trick, 2, CLUBS) == {"10♥"}  # literal rule
    assert legal(["10♥", "8♥"], trick, 2, CLUBS, partner_overplay_exempt=True) == {"10♥", "8♥"}


def test_example_5_overtrump():
    trick = [(0, "7♦"), (1, "J♣")]  # partner led, the opponent trumped with J♣
    # 9♣ and 7♣ cannot beat J♣: no undertrump obligation, discard anything
    assert legal(["9♣", "7♣", "K♠", "8♥"], trick, 2, CLUBS) == {"9♣", "7♣", "K♠", "8♥"}
    # A♣ beats J♣ and the partner is not winning: must play it
    assert legal(["A♣", "7♣", "K♠"], trick, 2, CLUBS) == {"A♣"}
    # void, no trump on the trick and an opponent winning: must trump
    assert legal(["7♣", "K♠"], [(0, "7♦")], 1, CLUBS) == {"7♣"}
    # void of the led suit and of trumps: anything
    assert legal(["K♠", "8♥"], [(0, "7♦")], 1, CLUBS) == {"K♠", "8♥"}


def test_example_6_partner_exception():
    trick = [(0, "10♥"), (1, "7♥")]  # partner's manille is master
    for mode in ("any_partner", "leader_only"):
        assert legal(["A♠", "7♣"], trick, 2, CLUBS, partner_exception=mode) == {"A♠", "7♣"}
    # the opponent trumped instead: overtrump if able, else free
    ruffed = [(0, "10♥"), (1, "8♣")]
    assert legal(["A♠", "9♣"], ruffed, 2, CLUBS) == {"9♣"}
    assert legal(["A♠", "7♣"], ruffed, 2, CLUBS) == {"A♠", "7♣"}


def test_partner_exception_leader_only_vs_any_partner():
    # seat 0 (opponent) leads, my partner (seat 1) wins with A♥, seat 2 follows: I am void
    trick = [(0, "7♥"), (1, "A♥"), (2, "8♥")]
    assert legal(["7♣", "K♠"], trick, 3, CLUBS, partner_exception="any_partner") == {
        "7♣", "K♠"}
    assert legal(["7♣", "K♠"], trick, 3, CLUBS, partner_exception="leader_only") == {"7♣"}
    # my partner led but was overtaken: must trump in both modes
    for mode in ("any_partner", "leader_only"):
        assert legal(["7♣", "K♠"], [(0, "9♥"), (1, "A♥")], 2, CLUBS,
                     partner_exception=mode) == {"7♣"}
    # partner trumped and wins: any_partner frees me from trumping, leader_only does not
    trick = [(0, "7♥"), (1, "8♣"), (2, "9♥")]
    assert legal(["A♣", "K♠"], trick, 3, CLUBS, partner_exception="any_partner") == {
        "A♣", "K♠"}
    assert legal(["A♣", "K♠"], trick, 3, CLUBS) == {"A♣"}


def test_trump_lead_must_be_overplayed():
    assert legal(["10♣", "7♣", "K♠"], [(0, "A♣")], 1, CLUBS) == {"10♣"}
    assert legal(["Q♣", "7♣", "K♠"], [(0, "A♣")], 1, CLUBS) == {"Q♣", "7♣"}


def test_trump_lead_is_an_ordinary_suit_for_the_overplay_knobs():
    # must_overplay_in_suit=false: following a trump lead, any trump will do
    assert legal(["10♣", "7♣", "K♠"], [(0, "A♣")], 1, CLUBS,
                 must_overplay_in_suit=False) == {"10♣", "7♣"}
    # the last trump laid is the card to beat (overplay_reference=best: the best trump)
    assert legal(["A♣", "Q♣"], [(0, "K♣"), (1, "7♣")], 2, CLUBS) == {"A♣", "Q♣"}
    assert legal(["A♣", "Q♣"], [(0, "K♣"), (1, "7♣")], 2, CLUBS,
                 overplay_reference="best") == {"A♣"}
    # partner (seat 0) led the K of trump and is winning: overplay by default...
    trick = [(0, "K♣"), (1, "9♣")]
    assert legal(["10♣", "8♣", "A♠"], trick, 2, CLUBS) == {"10♣"}
    # ... freed by partner_overplay_exempt, in both partner_exception modes
    for mode in ("any_partner", "leader_only"):
        assert legal(["10♣", "8♣", "A♠"], trick, 2, CLUBS, partner_overplay_exempt=True,
                     partner_exception=mode) == {"10♣", "8♣"}
    # an opponent overplayed my partner's trump lead: the obligation is back
    assert legal(["10♣", "8♣"], [(0, "K♣"), (1, "A♣")], 2, CLUBS,
                 partner_overplay_exempt=True) == {"10♣"}
    # my partner (seat 1) overplayed the opponent's lead: any_partner frees me, not
    # leader_only (my partner is not the leader); overplay_reference=best, so that the
    # card to beat is the A♣
    trick = [(0, "K♣"), (1, "A♣"), (2, "7♣")]
    assert legal(["10♣", "8♣"], trick, 3, CLUBS, partner_overplay_exempt=True,
                 partner_exception="any_partner", overplay_reference="best") == {"10♣", "8♣"}
    assert legal(["10♣", "8♣"], trick, 3, CLUBS, partner_overplay_exempt=True,
                 partner_exception="leader_only", overplay_reference="best") == {"10♣"}


# --- (b) scoring: examples 1-3 --------------------------------------------------------
def test_example_1_totals():
    assert M.POINTS.sum() == 60
    assert all(M.POINTS[s * 8:s * 8 + 8].sum() == 15 for s in range(4))
    assert M.POINTS.sum() + 8 * M.ManilleKnobs().trick_point == 68
    order = sorted(range(8), key=lambda c: -M.STRENGTH[c])
    assert [DECK.ranks[c] for c in order] == ["10", "A", "K", "Q", "J", "9", "8", "7"]


def test_example_2_scoring_a_deal():
    cards_a = sum(int(M.POINTS[cid(c)]) for c in ("10♠", "A♠", "K♥", "Q♣", "J♦"))
    assert cards_a == 15
    assert M.score_deal(cards_a, 5, 60 - cards_a, 3, 1, False) == (20, 48, 0, 14, 1)
    assert M.score_deal(60 - cards_a, 3, cards_a, 5, 1, False) == (48, 20, 14, 0, 0)
    assert M.score_deal(cards_a, 5, 60 - cards_a, 3, 1, True) == (20, 48, 0, 48, 1)
    assert M.score_deal(31, 4, 29, 4, 1, False) == (35, 33, 1, 0, 0)  # 35 is enough
    assert M.score_deal(31, 4, 29, 4, 0, False) == (31, 29, 1, 0, 0)  # no trick point


def test_example_3_void_deal():
    assert M.score_deal(30, 4, 30, 4, 1, False) == (34, 34, 0, 0, -1)
    assert M.score_deal(26, 8, 34, 0, 1, True) == (34, 34, 0, 0, -1)


# --- (c), (d) invariants over many deals ---------------------------------------------
def _frame(knobs: M.ManilleKnobs, policies, seed: int, count: int):
    out = M.run_deals(knobs, policies, seed, 0, count, record_hands=True)
    return out.rows, out.dealt, out.hands


def _col(rows: np.ndarray, name: str) -> np.ndarray:
    names = [c.name for c in M.deal_columns()]
    return rows[:, names.index(name)]


@pytest.mark.parametrize("policies", [HEUR, RAND, MIXED])
def test_deal_invariants(policies):
    knobs = M.ManilleKnobs()
    rows, dealt, hands = _frame(knobs, policies, 11, 5000)
    n = len(rows)
    assert (np.sort(dealt.reshape(n, 32), axis=1) == np.arange(32)).all()  # a partition
    assert (hands == dealt).all()
    tricks = np.stack([_col(rows, f"tricks_s{p}") for p in range(4)], axis=1)
    tpts = np.stack([_col(rows, f"trick_points_s{p}") for p in range(4)], axis=1)
    score = np.stack([_col(rows, f"score_s{p}") for p in range(4)], axis=1)
    t0, t1 = _col(rows, "team_points_t0"), _col(rows, "team_points_t1")
    assert (tricks.sum(axis=1) == 8).all() and (tpts.sum(axis=1) == 60).all()
    assert (t0 == tpts[:, 0] + tpts[:, 2] + tricks[:, 0] + tricks[:, 2]).all()
    assert (t0 + t1 == 68).all()
    void = _col(rows, "void_deal").astype(bool)
    win = _col(rows, "winning_team")
    assert (void == (t0 == t1)).all() and (win[void] == -1).all()
    assert (win[~void] == np.where(t0 > t1, 0, 1)[~void]).all()
    assert (score[:, 0] == score[:, 2]).all() and (score[:, 1] == score[:, 3]).all()
    assert (score[:, 0] == np.where(t0 > 34, t0 - 34, 0)).all()
    assert (score[:, 1] == np.where(t1 > 34, t1 - 34, 0)).all()
    dealer = _col(rows, "dealer")
    # a 34-34 tie annuls the deal ("le tour est annulé"): annulled is exactly void_deal
    assert (dealer == np.arange(n) % 4).all() and (_col(rows, "annulled").astype(bool) == void).all()
    assert void.any()  # the sample holds ties, so the check above can fail
    assert (_col(rows, "dealer_team_won") == (win == dealer % 2)).all()
    # (d) trump: the suit of the last card dealt, the dealer's 8th
    last = dealt[np.arange(n), dealer, 7]
    assert (_col(rows, "turned_card") == last).all()
    assert (_col(rows, "trump") == last // 8).all()
    assert 0 < void.mean() < 0.1


def test_deal_in_packets_of_two_from_the_dealers_left():
    seed = 5
    _, dealt, _ = _frame(M.ManilleKnobs(), HEUR, seed, 8)
    for d in range(8):
        deck = np.arange(32, dtype=np.int64)
        # numba returns a uint64 as a Python int: re-wrap it, or it is typed as int64
        rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, 32)
        dealer = d % 4
        for pos in range(32):
            packet, within = divmod(pos, 2)
            seat = (dealer + 1 + packet % 4) % 4
            assert dealt[d, seat, 2 * (packet // 4) + within] == deck[pos]


def test_knobs_trick_point_and_mark_full():
    rows, _, _ = _frame(M.ManilleKnobs(trick_point=0, mark="full"), MIXED, 3, 3000)
    t0, t1 = _col(rows, "team_points_t0"), _col(rows, "team_points_t1")
    assert (t0 + t1 == 60).all()
    assert (_col(rows, "score_s0") == np.where(t0 > t1, t0, 0)).all()
    assert (_col(rows, "score_s1") == np.where(t1 > t0, t1, 0)).all()


def test_rule_knobs_reach_the_kernel():
    base, _, _ = _frame(M.ManilleKnobs(), RAND, 4, 2000)
    for change in ({"must_overplay_in_suit": False}, {"partner_exception": "any_partner"},
                   {"partner_overplay_exempt": True}, {"overplay_reference": "best"},
                   {"overtrump_partner": True}):
        rows, _, _ = _frame(M.ManilleKnobs(**change), RAND, 4, 2000)
        assert not np.array_equal(rows, base), change
        # same shuffles (common random numbers): same dealt cards and trump
        assert (_col(rows, "turned_card") == _col(base, "turned_card")).all()


def test_knob_validation():
    with pytest.raises(SimlabError, match="allowed: classic"):
        M.ManilleKnobs(variant="bridge")
    with pytest.raises(SimlabError, match="out of range"):
        M.ManilleKnobs(target=0)
    with pytest.raises(SimlabError, match="leader_only, any_partner"):
        get_game("manille").make_knobs({"partner_exception": "nobody"})
    assert get_game("manille").make_knobs({"target": "150"}).target == 150


# --- (e) exact combinatorics ------------------------------------------------------------
def _z(hits: float, n: int, p: float) -> float:
    return (hits / n - p) / math.sqrt(p * (1 - p) / n)


def test_who_holds_the_trump_manille_exact_odds():
    """The dealer keeps the turned card: P(dealer holds the 10 of trump) = 1/8 + 7/8 * 7/31
    = 10/31; any other seat 7/8 * 8/31 = 7/31."""
    n = 20000
    rows, dealt, _ = _frame(M.ManilleKnobs(), HEUR, 2024, n)
    dealer = _col(rows, "dealer")
    manille = _col(rows, "trump") * 8 + M.R10
    holder = np.argmax((dealt == manille[:, None, None]).any(axis=2), axis=1)
    rel = (holder - dealer) % 4
    assert abs(_z((rel == 0).sum(), n, 10 / 31)) < 5
    for k in (1, 2, 3):
        assert abs(_z((rel == k).sum(), n, 7 / 31)) < 5
    for s in range(4):
        assert abs(_z((_col(rows, "trump") == s).sum(), n, 1 / 4)) < 5
    # dealer's trump count: 1 + hypergeometric(7 draws from 31 holding 7 trumps)
    n_trumps = (dealt[np.arange(n), dealer] // 8 == _col(rows, "trump")[:, None]).sum(axis=1)
    mean = 1 + 7 * 7 / 31
    var = 7 * (7 / 31) * (24 / 31) * (24 / 30)
    assert abs(n_trumps.mean() - mean) < 5 * math.sqrt(var / n)


# --- (f) matches ----------------------------------------------------------------------------
def _match_frame(knobs: M.ManilleKnobs, policies, seed: int, count: int) -> pl.DataFrame:
    from simlab.engine.game import to_frame

    out = M.run_matches(knobs, policies, seed, 0, count)
    return to_frame(out, M.match_columns(knobs), DECK.labels, 4)


@pytest.mark.parametrize("policies", [HEUR, MIXED])
def test_match_reaches_target(policies):
    m = _match_frame(M.ManilleKnobs(), policies, 9, 500)
    assert not m["capped"].any() and not m["ended_by_two_in_a_row"].any()
    w = m["winner"].to_numpy()
    f0, f1 = m["final_score_s0"].to_numpy(), m["final_score_s1"].to_numpy()
    assert (m["final_score_s0"] == m["final_score_s2"]).all()
    assert (np.where(w == 0, f0, f1) >= 100).all() and (np.where(w == 0, f1, f0) < 100).all()
    assert (m["n_deals"] >= 3).all()  # at most 34 marked per deal
    assert (m["n_void"] <= m["n_deals"] - 3).all()
    assert set(m["first_dealer"].unique()) == {0, 1, 2, 3}


def test_match_two_in_a_row_and_cap():
    m = _match_frame(M.ManilleKnobs(two_in_a_row_end=True), HEUR, 9, 500)
    w = m["winner"].to_numpy()
    best = np.where(w == 0, m["final_score_s0"], m["final_score_s1"])
    by_two = m["ended_by_two_in_a_row"].to_numpy()
    assert (by_two | (best >= 100)).all() and by_two.mean() > 0.5
    assert (m["n_deals"] >= 2).all() and not m["capped"].any()
    capped = _match_frame(M.ManilleKnobs(max_deals=2), HEUR, 9, 50)
    assert capped["capped"].all() and (capped["winner"] == -1).all()
    assert (capped["n_deals"] == 2).all()
    short = _match_frame(M.ManilleKnobs(target=1, mark="full"), MIXED, 1, 100)
    assert (short["n_deals"] == short["n_void"] + 1).all()


# --- runner, and (g) the same rows without the JIT ----------------------------------------
def test_runner_rows_do_not_depend_on_chunks():
    ref = simulate(get_game("manille"), 300, seed=3, record_hands=True)
    assert ref.equals(simulate(get_game("manille"), 300, seed=3, record_hands=True, chunk_size=70))
    assert isinstance(ref["trump"].dtype, pl.Enum) and ref["void_deal"].dtype == pl.Boolean
    assert ref["dealt_s0"].list.len().to_list() == [8] * 300
    m = simulate(get_game("manille"), 20, seed=3, level="match")
    assert m.equals(simulate(get_game("manille"), 20, seed=3, level="match", chunk_size=7))


SCRIPT = """
import sys
from simlab.engine.runner import simulate
from simlab.games import get_game
simulate(get_game("manille"), 20, seed=8, policies="heuristic,random,heuristic,random",
         record_hands=True).write_parquet(sys.argv[1])
simulate(get_game("manille"), 2, seed=8, level="match", params={"target": 40}).write_parquet(sys.argv[2])
"""


def test_numba_disabled_gives_the_same_rows(tmp_path: Path):
    deals, matches = tmp_path / "d.parquet", tmp_path / "m.parquet"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", SCRIPT, str(deals), str(matches)], env=env,
                   check=True, timeout=300)
    ref = simulate(get_game("manille"), 20, seed=8, policies="heuristic,random,heuristic,random",
                   record_hands=True)
    assert pl.read_parquet(deals).equals(ref)
    ref_m = simulate(get_game("manille"), 2, seed=8, level="match", params={"target": 40})
    assert pl.read_parquet(matches).equals(ref_m)
