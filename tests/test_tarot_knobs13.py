"""French Tarot, issue 13 items 5 and 6: the 5-player taker holding the four Kings may call
a Queen (the ladder) or one of his Kings, i.e. himself (``call_rule=ladder_or_king``, the
seed's "il peut appeler une Dame ... Il peut s'appeler lui-même"); a match may last N
played deals (``match_counts=played_deals``). The defaults keep the former results."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from simlab.engine import rng
from simlab.engine.game import KernelOutput, to_frame
from simlab.games import tarot as T
from simlab.mechanics.tricks import wbit

SUITS = "♠♥♦♣"
KINGS = [f"K{s}" for s in SUITS]
QUEENS = [f"Q{s}" for s in SUITS]
CAVALIERS = [f"C{s}" for s in SUITS]
LADDER_OR_KING = T.TarotKnobs(players=5, call_rule="ladder_or_king")


def slot(label: str) -> int:
    return int(T.SLOT_OF_ID[T.DECK.index(label)])


def label(s: int) -> str:
    return T.DECK.labels[T.ID_OF_SLOT[s]]


def wmask(labels) -> tuple[np.uint64, np.uint64]:
    w0, w1 = np.uint64(0), np.uint64(0)
    for lab in labels:
        a, b = wbit(slot(lab))
        w0 |= a
        w1 |= b
    return w0, w1


def digest(rows: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(rows, dtype=np.int64).tobytes()).hexdigest()[:16]


def deck_for(n: int, hands: dict, chien: list, dealer: int) -> np.ndarray:
    """The shuffled deck (slots, dealing order) that deals these hands and chien."""
    queues = {p: [slot(c) for c in hands[p]] for p in range(n)}
    queues[n] = [slot(c) for c in chien]
    return np.array([queues[n if r == n else (dealer + 1 + r) % n].pop(0)
                     for r in T.deal_order(n)], dtype=np.int64)


def play_one(hands, chien, dealer=0, **knobs) -> dict:
    """One heuristic 5-player dealing of these hands (seat -> labels) and chien."""
    k = T.TarotKnobs(players=5, **knobs)
    kv, rules, tb, order, cx, ncols = T._args(k)
    row = np.zeros((ncols, 2), dtype=np.int64)[:, 0]  # strided like the kernels' rows
    row[1] = dealer
    T.play_deal(deck_for(5, hands, chien, dealer), dealer, T.policy_codes(("heuristic",) * 5),
                np.tile(kv, (5, 1)), kv, rules, tb, order, cx, np.uint64(1), 0, 0, np.uint64(5), row,
                np.full((5, 15), -1), np.full((5, 15), -1), np.zeros(T.N_S, dtype=np.int64),
                np.zeros(32, dtype=np.int64), T.new_search_work())
    return to_frame(KernelOutput(row[None, :]), T.deal_columns(k), T.DECK.labels,
                    5).row(0, named=True)


# Seat 1 (the dealer's right: first to speak) holds the four Kings and the trumps 11..21,
# a Garde contre for the heuristic; the others get the rest in deck order.
STRONG = KINGS + [f"T{i}" for i in range(11, 22)]
CHIEN = ["1♠", "2♠", "3♠"]
_REST = [c for c in T.DECK.labels if c not in STRONG + CHIEN]
HANDS = {1: STRONG, 2: _REST[:15], 3: _REST[15:30], 4: _REST[30:45], 0: _REST[45:60]}


def call_state(hands=HANDS, chien=CHIEN, knobs=LADDER_OR_KING) -> np.ndarray:
    """The state when the taker (seat 1) is to call, the auction bid by heuristics."""
    kv, rules, tb, order, _, _ = T._args(knobs)
    S = np.zeros(T.N_S, dtype=np.int64)
    T.new_deal(S, deck_for(5, hands, chien, 0), 0, order, kv, np.full((5, 15), -1),
               np.zeros(32, dtype=np.int64), True)
    while S[T.S_PHASE] == T.PH_BID:
        T.apply_move(S, T.heuristic_move(S, kv, rules, tb), kv, tb)
    assert S[T.S_PHASE] == T.PH_CALL and S[T.S_TAKER] == 1
    return S


def call_moves(S: np.ndarray, knobs: T.TarotKnobs) -> list[str]:
    kv, rules, tb, *_ = T._args(knobs)
    out = np.zeros(64, dtype=np.int64)
    return [label(m) for m in out[:T.legal_moves(S, kv, rules, tb, out)]]


# --- item 5: the call with the four Kings --------------------------------------------------
def test_four_kings_legal_calls_by_rule():
    S = call_state()
    assert T.TarotKnobs().call_rule == "ladder_or_king"  # the seed's rule is the default
    assert call_moves(S, T.TarotKnobs(players=5, call_rule="ladder")) == QUEENS  # a Queen
    assert call_moves(S, T.TarotKnobs(players=5, call_rule="king_only")) == KINGS
    assert call_moves(S, LADDER_OR_KING) == QUEENS + KINGS  # either: a Queen, or himself
    # four Kings and four Queens: a Cavalier or a King
    h0 = wmask(KINGS + QUEENS)[0]
    S[T.S_HAND + 2] = np.int64(h0)
    assert call_moves(S, LADDER_OR_KING) == CAVALIERS + KINGS
    assert call_moves(S, T.TarotKnobs(players=5, call_rule="ladder")) == CAVALIERS
    # without the four Kings every rule calls a King (his own ones included: a self-call)
    S[T.S_HAND + 2] = np.int64(wmask(KINGS[:3] + QUEENS)[0])
    for rule in ("ladder", "king_only", "ladder_or_king"):
        assert call_moves(S, T.TarotKnobs(players=5, call_rule=rule)) == KINGS


def test_heuristic_calls_himself_from_the_trump_threshold():
    kv = T._vector(LADDER_OR_KING)
    assert kv[T.K_SELF_CALL_TRUMPS] == 8
    # four Kings; suits of 2 (spades), 3 (hearts, with the Cavalier), 3 and 1 (clubs)
    plain = KINGS + ["C♥", "2♠", "3♥", "4♦", "5♦"]
    h0 = wmask(plain)[0]
    for trumps, excuse in ((["T2", "T5", "T9", "T10", "T12", "T13", "T16"], False),
                           (["T2", "T5", "T9", "T10", "T12", "T13", "T16"], True),
                           (["T2", "T5", "T9", "T10", "T12", "T13", "T16", "T17"], False)):
        h1 = wmask(trumps + (["Excuse"] if excuse else []))[1]
        c = label(T.heuristic_call_move(h0, h1, kv))
        if len(trumps) + excuse >= 8:
            assert c == "K♣"  # himself, by the King of his shortest suit (clubs: 1 card)
        else:
            assert c == "Q♥"  # the ladder's Queen where he holds the Cavalier
        # the other rules never let the heuristic call himself while a Queen may be called
        assert label(T.heuristic_call_move(h0, h1, T._vector(T.TarotKnobs(players=5, call_rule="ladder")))) == "Q♥"
    kv_never = T._vector(T.TarotKnobs(players=5, call_rule="ladder_or_king",
                                      self_call_trumps=22))
    assert label(T.heuristic_call_move(h0, wmask([f"T{i}" for i in range(11, 22)])[1],
                                       kv_never)) == "Q♥"


def test_self_call_plays_alone_one_against_four():
    row = play_one(HANDS, CHIEN, call_rule="ladder_or_king")
    assert row["taker"] == 1 and row["contract"] == "garde_contre"
    assert row["called_card"] in KINGS and row["called_card"] in HANDS[1]
    assert row["alone"] and row["partner"] == -1 and not row["called_in_chien"]
    a = row["attack_total"]
    assert a > 0 and row["made"]
    assert row["score_s1"] == 4 * a  # the seed: "multipliés par quatre ... seul contre quatre"
    assert all(row[f"score_s{p}"] == -a for p in (0, 2, 3, 4))
    # below the threshold he calls a Queen like the ladder, and the deal is the ladder's
    row_q = play_one(HANDS, CHIEN, call_rule="ladder_or_king", self_call_trumps=12)
    assert row_q == play_one(HANDS, CHIEN, call_rule="ladder")
    assert row_q["called_card"] in QUEENS and row_q["partner"] >= 0 and not row_q["alone"]
    assert row_q["called_card"] in HANDS[row_q["partner"]]
    assert row_q["score_s1"] == 2 * row_q["attack_total"] == 2 * row_q[f"score_s{row_q['partner']}"]


def test_search_player_sees_the_self_call():
    # the search player compares every legal call by playouts: with the four Kings and
    # eleven top trumps, calling himself pays (he keeps 4A instead of 2A)
    knobs = T.TarotKnobs(players=5, call_rule="ladder_or_king", search_bid_worlds=8)
    kv, rules, tb, *_ = T._args(knobs)
    c = T.search_move(call_state(knobs=knobs), kv, rules, tb, np.uint64(3), 0, 0,
                      T.new_search_work())
    assert label(c) in KINGS
    ladder = T.TarotKnobs(players=5, call_rule="ladder", search_bid_worlds=8)
    kv, rules, tb, *_ = T._args(ladder)
    c = T.search_move(call_state(knobs=ladder), kv, rules, tb, np.uint64(3), 0, 0,
                      T.new_search_work())
    assert label(c) in QUEENS


def test_random_call_is_uniform_over_the_legal_calls():
    h0 = wmask(KINGS + ["2♠"])[0]
    kv_lok = T._vector(LADDER_OR_KING)
    kv_ladder = T._vector(T.TarotKnobs(players=5, call_rule="ladder"))
    n = 4000
    kings = 0
    for i in range(n):
        st = np.uint64(rng.stream(np.uint64(11), i, 0, rng.POLICY))
        _, c = T.choose_call(h0, False, kv_lok, st)
        assert label(c) in QUEENS + KINGS
        kings += label(c) in KINGS
        # the ladder keeps its former draw: one of the four Queens by the same number
        _, c = T.choose_call(h0, False, kv_ladder, st)
        assert c == rng.below(st, 4)[1] * 14 + T.RQ
    assert abs(kings / n - 0.5) < 5 * (0.25 / n) ** 0.5


# --- the former rules unchanged ------------------------------------------------------------------
# The heuristic's policy knobs before issue 10 (its play and bids changed then).
FORMER_POLICY = dict(ecart_seen=False, petit_save_suit=0, petit_keep_safe=False,
                     hunt_petit_trumps=22, chelem_sure=False, chelem_likely_margin=101,
                     bid_prise=28, bid_garde=38, bid_garde_sans=50, bid_garde_contre=60,
                     draw_trumps_pct=60, excuse_save_points=3)  # and before simlab tune
# Digests of the kernels' rows computed before issue 13 (the same runs, compared frame by
# frame with the former code's `simlab run tarot -n 3000 --seed 7 ...` output, whose call
# rule is now call_rule=ladder).
@pytest.mark.parametrize("n, policy, expected", [
    (5, "heuristic", "9aa1b290ded21f5b"),
    (5, "random", "b4d626b8bff115a3"),
    (4, "heuristic", "e0feaa4ad31f1839"),
])
def test_former_deals_unchanged(n, policy, expected):
    # trump_discard: the FFT's écart, the default until the seed's free écart became it
    k = T.TarotKnobs(players=n, call_rule="ladder", trump_discard="fft", **FORMER_POLICY)
    out = T.run_deals(k, (policy,) * n, 7, 0, 3000)
    assert digest(out.rows) == expected
    if n == 5:  # the runs hold four-King takers calling a Queen
        f = to_frame(out, T.deal_columns(k), T.DECK.labels, n)
        assert f["called_card"].cast(str).is_in(QUEENS).sum() > 0


def test_default_matches_unchanged():
    out = T.run_matches(T.TarotKnobs(**FORMER_POLICY), ("heuristic",) * 4, 7, 0, 300)
    assert digest(out.rows) == "e7e4d3b869c4a5cc"


# --- item 6: match length in played deals ------------------------------------------------------
def matches(count=150, n=4, **knobs):
    k = T.TarotKnobs(players=n, **knobs)
    return to_frame(T.run_matches(k, ("heuristic",) * n, 5, 0, count), T.match_columns(k),
                    T.DECK.labels, n)


def test_match_of_played_deals():
    played = matches(rounds_per_match=2, match_counts="played_deals")
    assert (played["n_taken"] == 8).all() and not played["capped"].any()
    assert ((played["n_annulled"] + played["n_all_pass"] + played["n_taken"])
            == played["n_deals"]).all()
    assert (played["n_deals"] > 8).any()  # void deals did not count
    assert (sum(played[f"final_score_s{i}"] for i in range(4)) == 0).all()
    # the default still counts dealings, void ones included
    dealings = matches(rounds_per_match=2)
    assert (dealings["n_deals"] == 8).all() and "capped" not in dealings.columns
    assert (dealings["n_taken"] < 8).any()
    assert ((dealings["n_annulled"] + dealings["n_all_pass"] + dealings["n_taken"]) == 8).all()


def test_played_deals_equal_dealings_when_no_deal_is_void():
    # no petit sec redeal and the dealer takes when all pass: every dealing is played
    a = matches(60, 5, rounds_per_match=1, petit_sec_redeal=False, all_pass="dealer_takes")
    b = matches(60, 5, rounds_per_match=1, petit_sec_redeal=False, all_pass="dealer_takes",
                match_counts="played_deals")
    assert (a["n_deals"] == 5).all() and a.equals(b.drop("capped"))


def test_played_deals_match_stops_at_the_cap():
    # nobody ever bids: the match ends after the cap's dealings, with no played deal
    never = {f"bid_{c}": 500 for c in ("prise", "garde", "garde_sans", "garde_contre")}
    m = matches(5, rounds_per_match=1, match_counts="played_deals", **never)
    assert (m["n_deals"] == T.MATCH_DEALINGS_CAP * 4).all()
    assert (m["n_taken"] == 0).all() and m["capped"].all()
    assert all((m[f"final_score_s{i}"] == 0).all() for i in range(4))


def test_pure_python_path_matches_compiled(tmp_path):
    # the new call and match paths give the same rows without numba
    code = (
        "import sys, numpy as np\n"
        "from simlab.games import tarot as T\n"
        "k = T.TarotKnobs(players=5, call_rule='ladder_or_king', self_call_trumps=5)\n"
        "km = T.TarotKnobs(rounds_per_match=1, match_counts='played_deals')\n"
        "with np.errstate(over='ignore'):\n"
        "    d = T.run_deals(k, ('heuristic', 'random') * 2 + ('heuristic',), 9, 0, 40).rows\n"
        "    m = T.run_matches(km, ('heuristic',) * 4, 9, 0, 3).rows\n"
        "np.savez(sys.argv[1], d=d, m=m)\n"
    )
    path = tmp_path / "slow.npz"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(path)], env=env, check=True)
    slow = np.load(path)
    k = T.TarotKnobs(players=5, call_rule="ladder_or_king", self_call_trumps=5)
    d = T.run_deals(k, ("heuristic", "random") * 2 + ("heuristic",), 9, 0, 40).rows
    km = T.TarotKnobs(rounds_per_match=1, match_counts="played_deals")
    m = T.run_matches(km, ("heuristic",) * 4, 9, 0, 3).rows
    assert np.array_equal(slow["d"], d) and np.array_equal(slow["m"], m)
