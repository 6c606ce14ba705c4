"""The Mille heuristic has no blind spot the Players section would flag: strong hands win
(mean result rises by decile of the game's hand-strength measure), it beats random
clearly in duplicate play, every bid level it wins often is made often, and the bomb is a
real choice (used on some deals, not all)."""

from __future__ import annotations

import numpy as np
import polars as pl

from simlab.analysis import players_check as PC
from simlab.engine.runner import execute, plan
from simlab.games import get_game
from simlab.players.duel import duplicate


def test_strong_hands_win_and_heuristic_beats_random():
    p = plan(get_game("mille"), 1500, seed=11)
    st = PC.hand_strength(p.game, p, 1500)
    assert st is not None and st.n == 1500 * 3
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, means.round(2)
    assert st.top_minus_bottom.lo > 0, st.top_minus_bottom
    assert st.spearman > 0
    r = duplicate(get_game("mille"), "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def test_health_checks_pass_but_the_forced_opening():
    p = plan(get_game("mille"), 3000, seed=5)
    frame = execute(p)
    checks = PC.frame_checks(p.game, p, frame)
    contracts = [c for c in checks if c.name.startswith("contract ")]
    assert len(contracts) >= 4  # the bid levels won in >= 1 % of takes
    for c in checks:
        # somebody always takes: the forced opening is the rule, not a habit of the players
        assert c.ok is not False or c.name == "deals where nobody takes", c
    bomb = frame["bomb"].mean()
    assert 0.02 < bomb < 0.6
    # bids above 120 are rare by default (0.18 % of deals): see the next test


def test_bids_above_120_are_rare_and_made_often():
    """Issue 32: raising one step at a time, the heuristic won its bids above 120 in
    bidding wars and made them 55 % of the time [50 %, 60 %] (1.9 % of 20,000 deals,
    seed 5); search makes 86 % of its own (8.8 % of 600 deals). Bidding its estimate at
    once made them 83 % on 4.2 % of deals, but lost to a step-raising seat, and so does
    any field bidding above 120 on 0.5 % of deals or more (see MilleKnobs' comment). The
    default (jump_from 140, over_cap_margin 60) bids above 120 on 0.18 % of deals (352
    of 200,000, seed 5) and makes 85 %. Bounds: 5 standard errors (n = 352: 0.852 -
    5 x 0.019 = 0.76), and at least 150 deals (with jump_from 1000: 12)."""
    n = 200_000
    f = execute(plan(get_game("mille"), n, seed=5))
    over = f.filter((pl.col("contract") == ">120") & ~pl.col("bomb"))
    assert 150 <= over.height <= 0.005 * n, over.height  # jumping: 8,453 (4.2 %)
    made = over["made"].mean()
    assert made >= 0.75, made  # formerly 0.551


def _opening_bid(hand: list[str], **knobs) -> tuple[int, int]:
    """Seat 0, the forced opener (dealer 2), holding ``hand``: his heuristic opening bid
    and his bid limit (hand estimate less bid_margin, less over_cap_margin above the cap)."""
    from simlab.games import mille as M
    from simlab.games.mille import players as P
    from simlab.games.mille import rules as R

    k = M.MilleKnobs(**knobs)
    kv = M._vector(k)
    tb = M.tables(k).kernel_args()
    rest = [c for c in M.DECK.labels if c not in hand]
    hands = {0: hand, 1: rest[:7], 2: rest[7:14]}
    deck = []
    for r in range(7):
        for seat in (0, 1, 2):
            deck.append(M.DECK.index(hands[seat][r]))
        if r < 3:
            deck.append(M.DECK.index(rest[14 + r]))
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, np.array(deck, dtype=np.int64), 2, 1, np.zeros((3, 7), np.int64))
    assert s[R.S_TO_MOVE] == 0 and s[R.S_PHASE] == R.P_BID and s[R.S_BIDDER] < 0
    h = R.hand_of(s, 0)
    limit = min(P.hand_value(h, kv, tb, P.CHIEN_GUESS) - k.bid_margin, R.bid_cap(h, kv))
    if limit > k.no_marriage_cap:
        limit = max(k.no_marriage_cap, limit - k.over_cap_margin)
    return int(R.bid_amount(P.heuristic_bid(s, kv, tb), kv)), int(limit)


LIMIT_123 = ["A♥", "10♥", "K♥", "Q♥", "A♠", "10♠", "A♦"]  # a marriage and three aces
LIMIT_169 = ["A♥", "K♥", "Q♥", "10♥", "A♦", "K♦", "Q♦"]  # two marriages
FAIR = ["A♠", "10♠", "A♥", "10♥", "A♦", "10♦", "A♣"]  # no marriage: capped at 120


def test_step_raiser_bids_a_high_limit_above_the_cap_at_once():
    """Raising one step at a time (the default, bid_jump false), a hand whose limit
    reaches jump_from (140) bids that limit at once, for a contract scores its amount,
    not the points taken; a hand worth less opens the minimum and raises step by step."""
    amount, limit = _opening_bid(LIMIT_169)
    assert limit == 169 and amount == 165  # the highest multiple of 5 within its limit
    assert _opening_bid(LIMIT_123) == (100, 123)  # above the cap, below jump_from
    assert _opening_bid(FAIR) == (100, 114)
    # jump_from 1000: never at once; 121: every limit above the cap
    assert _opening_bid(LIMIT_169, jump_from=1000)[0] == 100
    assert _opening_bid(LIMIT_123, jump_from=121)[0] == 120
    # bid_jump true jumps below the cap as well
    assert _opening_bid(FAIR, bid_jump=True)[0] == 110
