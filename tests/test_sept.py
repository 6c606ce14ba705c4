"""Sept: rules of the trick (stop or continue), the stock, scoring, deal invariants, exact
odds, matches (the loser deals, first to 10), players, runner determinism."""

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
from simlab.games import sept as S
from simlab.games.sept import kernels as K
from simlab.games.sept import players as P
from simlab.games.sept import rules as R

DECK = S.DECK
KNOBS = S.SeptKnobs()
KV = S._vector(KNOBS)
HEUR = ("heuristic", "heuristic")
RAND = ("random", "random")
MIXED = ("heuristic", "random")


def cid(label: str) -> int:
    return DECK.index(label)


def mask(labels: list[str]) -> int:
    m = 0
    for c in labels:
        m |= 1 << cid(c)
    return m


def labels(m: int) -> set[str]:
    return {DECK.labels[c] for c in range(32) if int(m) >> c & 1}


def position(hand0: list[str], hand1: list[str], leader: int, stock: list[str] = (),
             kv: np.ndarray = KV) -> np.ndarray:
    """A hand-built position at the start of a trick: the hands, the leader, the stock
    (top card first); every other card already won (by seat 0, no points counted)."""
    state = np.zeros(R.N_STATE, dtype=np.int64)
    state[R.S_HAND] = mask(hand0)
    state[R.S_HAND + 1] = mask(hand1)
    used = set(hand0) | set(hand1) | set(stock)
    assert len(used) == len(hand0) + len(hand1) + len(stock)
    rest = [c for c in DECK.labels if c not in used]
    state[R.S_GONE] = mask(rest)
    pos = R.N_CARDS - len(stock)
    for i, c in enumerate(rest):
        state[R.S_DECK + i] = cid(c)
    for i, c in enumerate(stock):
        state[R.S_DECK + pos + i] = cid(c)
    state[R.S_STOCK_POS] = pos
    state[R.S_DEALER] = 1 - leader
    state[R.S_LEADER] = leader
    state[R.S_TO_MOVE] = leader
    state[R.S_PHASE] = R.P_LEAD
    state[R.S_TARGET] = R.NO_RANK
    state[R.S_HOLDER] = -1
    state[R.S_LAST_WINNER] = -1
    return state


def play(state: np.ndarray, *moves: str, kv: np.ndarray = KV) -> np.ndarray:
    for m in moves:
        mv = R.STOP if m == "stop" else cid(m)
        assert mv in legal(state, kv), (m, legal_labels(state, kv))
        R.apply_move(state, mv, kv)
    return state


def legal(state: np.ndarray, kv: np.ndarray = KV) -> list[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, kv, out)
    return [int(x) for x in out[:n]]


def legal_labels(state: np.ndarray, kv: np.ndarray = KV) -> set[str]:
    return {"stop" if m == R.STOP else DECK.labels[m] for m in legal(state, kv)}


# --- the worked examples (catalogue "Worked examples" 1-4) ------------------------------------
def test_example_1_continue_then_stop():
    s = position(["K♠", "K♦", "8♠", "9♠"], ["7♥", "10♣", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥", "J♥", "Q♥"])
    play(s, "K♠", "7♥")  # a 7 beats for now
    assert s[R.S_HOLDER] == 1
    assert legal_labels(s) == {"stop", "K♦"}  # continue only with a K or a 7
    play(s, "K♦", "10♣")  # no match
    assert s[R.S_HOLDER] == 0
    play(s, "stop")
    # the last matching card was K♦: the leader wins K♠ 7♥ K♦ 10♣ = 10 points
    assert s[R.S_PTS] == 10 and s[R.S_PTS + 1] == 0
    assert s[R.S_WON] == 4 and s[R.S_TRICKS] == 1 and s[R.S_TRICKS + 1] == 0
    assert labels(s[R.S_GONE]) >= {"K♠", "7♥", "K♦", "10♣"}
    # both refill to 4, one card at a time, the winner first
    assert labels(s[R.S_HAND]) == {"8♠", "9♠", "8♥", "J♥"}
    assert labels(s[R.S_HAND + 1]) == {"J♦", "Q♦", "9♥", "Q♥"}
    assert s[R.S_PHASE] == R.P_LEAD and s[R.S_TO_MOVE] == 0


def test_example_2_the_lead_card_is_the_last_match():
    s = position(["A♠", "8♠", "9♠", "J♠"], ["8♦", "9♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "A♠", "8♦")
    assert s[R.S_HOLDER] == 0
    play(s, "stop")
    assert s[R.S_PTS] == 10 and s[R.S_TRICKS] == 1


def test_example_3_no_match_must_stop():
    s = position(["9♣", "8♠", "K♠", "A♥"], ["9♥", "8♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "J♥"])
    play(s, "9♣", "9♥")
    assert legal_labels(s) == {"stop"}  # no 9 and no 7: he must stop
    play(s, "stop")
    assert s[R.S_TRICKS + 1] == 1 and s[R.S_TRICKS] == 0
    assert s[R.S_LEADER] == 1 and s[R.S_TO_MOVE] == 1  # the winner leads


def test_example_4_scoring():
    # A: 60 points plus the last trick (70), B 20 -> A +1
    assert R.score_deal(70, 20, 9, 4, KV) == (0, R.O_MORE, 1, 0)
    assert R.score_deal(20, 70, 4, 9, KV) == (1, R.O_MORE, 0, 1)
    # B won tricks but no points (A has 90) -> A +2
    assert R.score_deal(90, 0, 10, 3, KV) == (0, R.O_ALL_POINTS, 2, 0)
    # B won no trick at all -> A +3
    assert R.score_deal(90, 0, 13, 0, KV) == (0, R.O_ALL_CARDS, 3, 0)
    assert R.score_deal(0, 90, 0, 12, KV) == (1, R.O_ALL_CARDS, 0, 3)


def test_ninety_points_in_a_deal():
    points = sum(R.card_points(c, KV) for c in range(32))
    assert points == 80 and R.deal_total(KV) == 90
    assert {DECK.ranks[c] for c in range(32) if R.card_points(c, KV)} == {"10", "A"}
    # 90 is odd in tens: no tie; with an even total a tie marks nothing
    even = S._vector(S.SeptKnobs(last_trick_bonus=0))
    assert R.score_deal(40, 40, 6, 7, even) == (-1, -1, 0, 0)


# --- the trick -------------------------------------------------------------------------------
def test_seven_is_wild_and_a_seven_lead_targets_sevens():
    s = position(["7♠", "7♥", "8♠", "9♠"], ["K♦", "7♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "7♠", "K♦")
    assert s[R.S_HOLDER] == 0 and legal_labels(s) == {"stop", "7♥"}
    play(s, "7♥", "7♦")
    assert s[R.S_HOLDER] == 1 and legal_labels(s) == {"stop"}
    # no wild rank: a 7 is a plain card
    plain = S._vector(S.SeptKnobs(wild_rank="none"))
    s = position(["K♠", "K♥", "8♠", "7♠"], ["7♦", "K♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"], kv=plain)
    play(s, "K♠", "7♦", kv=plain)
    assert s[R.S_HOLDER] == 0 and legal_labels(s, plain) == {"stop", "K♥"}
    # another wild rank: the Jacks
    jacks = S._vector(S.SeptKnobs(wild_rank="J"))
    s = position(["K♠", "J♥", "8♠", "7♠"], ["J♦", "7♦", "9♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"], kv=jacks)
    play(s, "K♠", "J♦", kv=jacks)
    assert s[R.S_HOLDER] == 1 and legal_labels(s, jacks) == {"stop", "J♥"}


def test_follower_may_answer_anything_and_the_leader_lead_anything():
    s = position(["K♠", "K♦", "8♠", "9♠"], ["7♥", "10♣", "J♦", "Q♦"], leader=0)
    assert legal_labels(s) == {"K♠", "K♦", "8♠", "9♠"}
    play(s, "K♠")
    assert legal_labels(s) == {"7♥", "10♣", "J♦", "Q♦"}


def test_trick_ends_when_both_hands_are_empty_and_the_last_trick_scores():
    # stock out, 2 cards each: the trick runs to the end; the follower's last match wins it
    s = position(["K♠", "7♠"], ["K♦", "A♦"], leader=0)
    play(s, "K♠", "K♦", "7♠", "A♦")
    assert s[R.S_PHASE] == R.P_DONE  # no stop decision once the hands are empty
    assert s[R.S_LAST_WINNER] == 0 and s[R.S_PTS] == 10 + 10  # A♦ + the last trick
    s = position(["K♠", "8♠"], ["K♦", "A♦"], leader=0)
    play(s, "K♠", "K♦", "stop")  # leader without a match stops; the follower wins
    assert s[R.S_PHASE] == R.P_LEAD and s[R.S_TO_MOVE] == 1
    play(s, "A♦", "8♠")
    assert s[R.S_PHASE] == R.P_DONE and s[R.S_LAST_WINNER] == 1
    assert s[R.S_PTS + 1] == 10 + 10 and s[R.S_PTS] == 0
    assert R.deal_result(s, KV) == (1, R.O_ALL_CARDS, 0, 3)


def test_refill_winner_first_and_stock_running_out():
    # the follower wins a 2-round trick: both need 2 cards, the stock holds 2 -> 1 each
    s = position(["K♠", "K♥", "8♠", "9♠"], ["K♦", "7♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "K♠", "K♦", "K♥", "7♦", "stop")
    assert s[R.S_TRICKS + 1] == 1
    assert labels(s[R.S_HAND + 1]) == {"J♦", "Q♦", "8♥"}  # the winner draws first
    assert labels(s[R.S_HAND]) == {"8♠", "9♠", "9♥"}
    assert R.stock_left(s) == 0


def test_deal_two_by_two_non_dealer_first():
    seed = 7
    out = S.run_deals(KNOBS, HEUR, seed, 0, 6, record_hands=True)
    for d in range(6):
        deck = np.arange(32, dtype=np.int64)
        # numba returns a uint64 as a Python int: re-wrap it, or it is typed as int64
        rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, 32)
        dealer = d % 2
        for pos in range(8):
            packet, within = divmod(pos, 2)
            seat = (dealer + 1 + packet) % 2
            assert out.dealt[d, seat, 2 * (packet // 2) + within] == deck[pos]
        state = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(state, deck, dealer, KV, np.zeros((2, 8), dtype=np.int64))
        assert state[R.S_TO_MOVE] == 1 - dealer  # the dealer's opponent leads
        assert R.stock_left(state) == 24 and state[R.S_DECK + 8] == deck[8]


# --- deal invariants ------------------------------------------------------------------------
def _cols(rows: np.ndarray) -> dict[str, np.ndarray]:
    return {c.name: rows[:, i] for i, c in enumerate(S.deal_columns())}


@pytest.mark.parametrize("policies", [HEUR, RAND, MIXED])
def test_deal_invariants(policies):
    out = S.run_deals(KNOBS, policies, 11, 0, 4000, record_hands=True)
    c = _cols(out.rows)
    n = len(out.rows)
    assert (np.sort(out.dealt.reshape(n, 8), axis=1) < 32).all()
    assert (np.array([len(set(r)) for r in out.dealt.reshape(n, 8)]) == 8).all()
    # conservation: every card and every point is won by somebody
    assert (c["points_s0"] + c["points_s1"] == 90).all()
    assert (c["cards_won_s0"] + c["cards_won_s1"] == 32).all()
    assert (c["tricks_s0"] + c["tricks_s1"] == c["n_tricks"]).all()
    assert (c["points_s0"] % 10 == 0).all()
    last = c["last_trick_winner"]
    assert np.isin(last, (0, 1)).all()
    assert (np.where(last == 0, c["points_s0"], c["points_s1"]) >= 10).all()
    # exactly one seat marks: 3 if the other won no trick, else 2 if it has no point, else 1
    w = c["winner"]
    assert np.isin(w, (0, 1)).all()
    pts_w = np.where(w == 0, c["points_s0"], c["points_s1"])
    pts_l = 90 - pts_w
    tricks_l = np.where(w == 0, c["tricks_s1"], c["tricks_s0"])
    expect = np.where(tricks_l == 0, 3, np.where(pts_l == 0, 2, 1))
    assert (np.where(w == 0, c["score_s0"], c["score_s1"]) == expect).all()
    assert (np.where(w == 0, c["score_s1"], c["score_s0"]) == 0).all()
    assert (pts_w > pts_l).all()
    assert (c["outcome"] == expect - 1).all()
    assert (c["leader_won"] == (w == 1 - c["dealer"])).all()
    assert (c["dealer"] == np.arange(n) % 2).all()
    wild = np.isin(out.dealt % 8, [R.R7]).sum(axis=2)
    assert (c["wilds_s0"] == wild[:, 0]).all() and (c["wilds_s1"] == wild[:, 1]).all()
    assert (c["answers"] <= c["answer_chances"]).all()
    assert (c["longest_trick"] >= 1).all() and (c["longest_trick"] <= 4).all()
    assert set(np.unique(c["outcome"])) == {0, 1, 2}  # every outcome occurs, so each check can fail


def test_exact_odds_of_sevens_in_the_first_hand():
    """Hypergeometric: P(k 7s among 4 cards of 32 holding four 7s) = C(4,k) C(28,4-k) /
    C(32,4); seat 0's hand in independent deals."""
    n = 20000
    out = S.run_deals(KNOBS, HEUR, 2024, 0, n, record_hands=True)
    k7 = (out.dealt[:, 0, :] % 8 == R.R7).sum(axis=1)
    for k in range(4):
        p = math.comb(4, k) * math.comb(28, 4 - k) / math.comb(32, 4)
        hits = (k7 == k).sum()
        assert abs(hits / n - p) < 5 * math.sqrt(p * (1 - p) / n), (k, hits / n, p)
    # 10s and Aces in the non-dealer's hand: mean 4 * 8 / 32 = 1
    counting = np.isin(out.dealt % 8, [R.R10, R.RA])
    leader = 1 - (np.arange(n) % 2)
    x = counting[np.arange(n), leader].sum(axis=1)
    var = 4 * (8 / 32) * (24 / 32) * (28 / 31)
    assert abs(x.mean() - 1) < 5 * math.sqrt(var / n)


def test_knobs_reach_the_kernel():
    base = _cols(S.run_deals(KNOBS, RAND, 4, 0, 1500).rows)
    k = S.SeptKnobs(card_value=5, last_trick_bonus=0, score_all_cards=6,
                    score_all_points=5, score_more_points=4)
    c = _cols(S.run_deals(k, RAND, 4, 0, 1500).rows)
    assert (c["points_s0"] + c["points_s1"] == 40).all()
    tie = c["points_s0"] == c["points_s1"]
    assert tie.any() and (c["winner"][tie] == -1).all()
    assert (c["score_s0"][tie] == 0).all() and (c["score_s1"][tie] == 0).all()
    marks = c["score_s0"] + c["score_s1"]
    assert set(np.unique(marks[~tie])) <= {4, 5, 6}
    six = S.run_deals(S.SeptKnobs(hand_size=6), RAND, 4, 0, 500, record_hands=True)
    assert six.dealt.shape[2] == 6 and (_cols(six.rows)["cards_won_s0"]
                                        + _cols(six.rows)["cards_won_s1"] == 32).all()
    # same shuffles (common random numbers): the same first hands
    wild_j = _cols(S.run_deals(S.SeptKnobs(wild_rank="J"), RAND, 4, 0, 1500).rows)
    assert not np.array_equal(wild_j["score_s0"], base["score_s0"])


def test_knob_validation():
    with pytest.raises(SimlabError, match="out of range"):
        S.SeptKnobs(target=0)
    with pytest.raises(SimlabError, match="out of range"):
        S.SeptKnobs(hand_size=9)
    with pytest.raises(SimlabError, match="loser, alternate, winner"):
        get_game("sept").make_knobs({"dealer_rule": "dealer"})
    assert get_game("sept").make_knobs({"target": "7"}).target == 7
    assert get_game("sept").make_knobs({"wild_rank": "none"}).wild_rank == "none"


# --- matches -----------------------------------------------------------------------------------
def _match_frame(knobs: S.SeptKnobs, policies, seed: int, count: int) -> pl.DataFrame:
    from simlab.engine.game import to_frame

    out = S.run_matches(knobs, policies, seed, 0, count)
    return to_frame(out, S.match_columns(knobs), DECK.labels, 2)


@pytest.mark.parametrize("policies", [HEUR, MIXED])
def test_match_reaches_ten(policies):
    m = _match_frame(KNOBS, policies, 9, 400)
    assert not m["capped"].any()
    w = m["winner"].to_numpy()
    f0, f1 = m["final_score_s0"].to_numpy(), m["final_score_s1"].to_numpy()
    assert (np.where(w == 0, f0, f1) >= 10).all() and (np.where(w == 0, f1, f0) < 10).all()
    assert (np.where(w == 0, f0, f1) <= 12).all()  # at most 3 marked by the last deal
    assert (m["n_deals"] >= 4).all()  # at most 3 marked per deal
    assert (m["n_ties"] == 0).all()
    assert (m["repeat_chances"] == m["n_deals"] - 1).all()
    assert set(m["first_dealer"].unique()) == {0, 1}
    # the loser deals, so the last deal's winner leads: every repeat is a leader's win,
    # and the leader's wins are the repeats plus possibly the first deal's
    extra = (m["leader_wins"] - m["repeat_wins"]).to_numpy()
    assert np.isin(extra, (0, 1)).all() and extra.any() and (extra == 0).any()


def test_match_dealer_rules_and_cap():
    m = _match_frame(S.SeptKnobs(dealer_rule="winner"), HEUR, 9, 400)
    # the winner deals: a repeat is a dealer's win
    dealer_wins_after_first = (m["n_deals"] - 1 - m["repeat_wins"]).to_numpy()
    extra = (m["leader_wins"] - dealer_wins_after_first)
    assert np.isin(extra, (0, 1)).all()
    assert K.next_dealer(0, 1, R.DR_LOSER) == 0 and K.next_dealer(0, 0, R.DR_LOSER) == 1
    assert K.next_dealer(0, 1, R.DR_WINNER) == 1 and K.next_dealer(1, 0, R.DR_ALTERNATE) == 0
    assert K.next_dealer(1, -1, R.DR_LOSER) == 1  # a tie: the same dealer again
    capped = _match_frame(S.SeptKnobs(max_deals=2), HEUR, 9, 50)
    assert capped["capped"].all() and (capped["winner"] == -1).all()
    short = _match_frame(S.SeptKnobs(target=1), MIXED, 1, 100)
    assert (short["n_deals"] == 1).all() and short["second_deal_repeat"].is_null().all()


# --- players -------------------------------------------------------------------------------------
def test_heuristic_moves_are_legal_and_sensible():
    # the follower takes a trick holding points, with a K rather than its 7
    s = position(["A♠", "8♠", "9♠", "J♠"], ["A♦", "7♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "A♠")
    assert DECK.labels[P.heuristic_move(s, KV)] == "A♦"
    # and gives away a worthless card, not a 10, when there is nothing to take
    s = position(["K♠", "8♠", "9♠", "J♠"], ["10♦", "7♦", "J♦", "A♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "K♠")
    assert DECK.labels[P.heuristic_move(s, KV)] == "J♦"
    # the leader stops a trick still his
    play(s, "J♦")
    assert P.heuristic_move(s, KV) == R.STOP
    # his trick taken, he takes it back with a K rather than his 7
    s = position(["K♠", "K♥", "7♠", "9♠"], ["K♦", "8♦", "J♦", "Q♦"], leader=0,
                 stock=["8♥", "9♥"])
    play(s, "K♠", "K♦")
    assert DECK.labels[P.heuristic_move(s, KV)] == "K♥"


def test_heuristic_keeps_its_7_once_the_follower_can_retake():
    # the stock is out: the follower's hand is known; a pointless trick taken back with
    # the only 7 would be taken again by the follower's K: stop
    s = position(["K♠", "7♠", "9♠"], ["K♦", "K♣", "J♦"], leader=0)
    play(s, "K♠", "K♦")
    assert P.heuristic_move(s, KV) == R.STOP
    # the follower holds no K and no 7: take it back (and the last trick with it)
    s = position(["K♠", "7♠", "9♠"], ["K♦", "8♣", "J♦"], leader=0)
    play(s, "K♠", "K♦")
    assert DECK.labels[P.heuristic_move(s, KV)] == "7♠"
    # while the stock lasts he always takes it back
    s = position(["K♠", "7♠", "9♠"], ["K♦", "K♣", "J♦"], leader=0, stock=["8♥", "9♥"])
    play(s, "K♠", "K♦")
    assert DECK.labels[P.heuristic_move(s, KV)] == "7♠"


def test_heuristic_beats_random_and_strong_hands_win():
    from simlab.analysis.players_check import hand_strength
    from simlab.engine.runner import plan
    from simlab.players.duel import duplicate

    r = duplicate(get_game("sept"), "heuristic", "random", n=1000, seed=3)
    assert r.lo > 0.5, r.format()
    p = plan(get_game("sept"), 6000, seed=3, jobs=1, progress=False)
    st = hand_strength(get_game("sept"), p, 6000)
    assert st.top_minus_bottom.lo > 0 and st.spearman > 0
    means = [d.value for d in st.deciles]
    assert np.mean(means[-3:]) > np.mean(means[:3])


# --- runner, and the same rows without the JIT -------------------------------------------------
def test_runner_rows_do_not_depend_on_jobs_or_chunks():
    ref = simulate(get_game("sept"), 300, seed=3, record_hands=True, jobs=1)
    assert ref.equals(simulate(get_game("sept"), 300, seed=3, record_hands=True, chunk_size=70, jobs=1))
    assert ref.equals(simulate(get_game("sept"), 300, seed=3, record_hands=True, chunk_size=90, jobs=2))
    assert isinstance(ref["outcome"].dtype, pl.Enum) and ref["leader_won"].dtype == pl.Boolean
    assert ref["dealt_s0"].list.len().to_list() == [4] * 300
    m = simulate(get_game("sept"), 30, seed=3, level="match", jobs=1)
    assert m.equals(simulate(get_game("sept"), 30, seed=3, level="match", chunk_size=7, jobs=2))


SCRIPT = """
import sys
from simlab.engine.runner import simulate
from simlab.games import get_game
simulate(get_game("sept"), 20, seed=8, policies="heuristic,random", record_hands=True,
         jobs=1).write_parquet(sys.argv[1])
simulate(get_game("sept"), 3, seed=8, level="match", params={"target": 4}, jobs=1).write_parquet(sys.argv[2])
"""


def test_numba_disabled_gives_the_same_rows(tmp_path: Path):
    deals, matches = tmp_path / "d.parquet", tmp_path / "m.parquet"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", SCRIPT, str(deals), str(matches)], env=env,
                   check=True, timeout=300)
    ref = simulate(get_game("sept"), 20, seed=8, policies="heuristic,random", record_hands=True, jobs=1)
    assert pl.read_parquet(deals).equals(ref)
    ref_m = simulate(get_game("sept"), 3, seed=8, level="match", params={"target": 4}, jobs=1)
    assert pl.read_parquet(matches).equals(ref_m)
