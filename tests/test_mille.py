"""Mille: every worked example of the seed section (as the catalogue lists them) on the
rules' own functions, hand-built positions for the auction, the chien, the bomb, the
give-away, marriages and the obligations of play, the match sheet (barrel and zero bars),
conservation over random and heuristic deals, exact combinatorics of the deal, and the
runner's determinism (jobs, chunks, pure Python)."""

from __future__ import annotations

import os
import subprocess
import sys
from math import comb, sqrt

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import mille as M
from simlab.games.mille import rules as R

K = M.MilleKnobs()
KV = M._vector(K)
RULES = M._rules(K)
TB = M.tables(K).kernel_args()
HEUR = ("heuristic",) * 3
RAND = ("random",) * 3


def cid(label: str) -> int:
    return M.DECK.index(label)


def mask(*labels: str) -> int:
    return sum(1 << cid(x) for x in labels)


def labels_of(m: int) -> set[str]:
    return {M.DECK.labels[c] for c in range(R.N_CARDS) if int(m) >> c & 1}


def dealt_state(hands: dict[int, list[str]], chien: list[str], dealer: int = 0,
                bombs: int = 7) -> np.ndarray:
    """A deal whose hands and chien are the given ones (built through ``rules.deal``, which
    gives the cards one at a time from the dealer's left, the chien after each of the
    first 3 rounds)."""
    deck = []
    for r in range(7):
        for k in range(3):
            deck.append(cid(hands[(dealer + 1 + k) % 3][r]))
        if r < 3:
            deck.append(cid(chien[r]))
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, np.array(deck, dtype=np.int64), dealer, bombs, np.zeros((3, 7), np.int64))
    return state


def moves(state: np.ndarray) -> list[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, KV, RULES, TB, out)
    return [int(x) for x in out[:n]]


def bid(amount: int) -> int:
    return R.BID + (amount - K.forced_open_min) // K.bid_step


def play(state: np.ndarray, *labels: str) -> None:
    for x in labels:
        declare = x.startswith("!")
        c = cid(x.lstrip("!"))
        m = R.DECLARE + c if declare else c
        assert m in moves(state), (x, [M.DECK.labels[c % 24] for c in moves(state)])
        R.apply_move(state, m, KV, TB)


HANDS = {0: ["9♠", "10♠", "J♠", "Q♥", "K♥", "9♦", "10♦"],
         1: ["A♠", "K♠", "9♥", "10♥", "J♦", "Q♦", "9♣"],
         2: ["Q♠", "J♥", "A♥", "K♦", "A♦", "10♣", "J♣"]}
CHIEN = ["Q♣", "K♣", "A♣"]


def played_position() -> np.ndarray:
    """Dealer 2: seat 0 opens 100 (forced), seat 1 passes, seat 2 passes; seat 0 takes,
    does not bomb, gives 9♠ to seat 1 and 9♦ to seat 2."""
    s = dealt_state(HANDS, CHIEN, dealer=2)
    R.apply_move(s, bid(100), KV, TB)
    R.apply_move(s, R.PASS, KV, TB)
    R.apply_move(s, R.PASS, KV, TB)
    R.apply_move(s, R.NO_BOMB, KV, TB)
    R.apply_move(s, cid("9♠"), KV, TB)
    R.apply_move(s, cid("9♦"), KV, TB)
    return s


# --- deck ---------------------------------------------------------------------------------
def test_deck_points_and_rank_order():
    assert R.N_CARDS == 24 and R.PACK_POINTS == 120
    assert [R.POINTS[cid(f"{r}♥")] for r in ("9", "J", "Q", "K", "10", "A")] == [0, 2, 3, 4, 10, 11]
    by_value = M.tables(K).strength[0]
    assert [by_value[cid(f"{r}♠")] for r in ("9", "J", "Q", "K", "10", "A")] == list(range(6))
    printed = M.tables(M.MilleKnobs(rank_order="as_printed")).strength[0]
    assert [printed[cid(f"{r}♠")] for r in ("9", "10", "J", "Q", "K", "A")] == list(range(6))


def test_knobs_refuse_bad_values():
    with pytest.raises(SimlabError):
        M.MilleKnobs(bid_step=0)
    with pytest.raises(SimlabError):
        M.MilleKnobs(rank_order="alphabetical")
    with pytest.raises(SimlabError):
        M.MilleKnobs(barrel_floor=2000)


# --- the deal and the auction --------------------------------------------------------------------
def test_deal_seven_each_and_a_chien_of_three_one_at_a_time():
    deck = np.arange(24, dtype=np.int64)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    dealt = np.zeros((3, 7), np.int64)
    R.deal(s, deck, 1, 7, dealt)
    # dealer 1: seats 2, 0, 1 receive one card each, then the chien one (first 3 rounds)
    assert list(dealt[2][:2]) == [0, 4] and list(dealt[0][:2]) == [1, 5]
    assert list(dealt[1][:4]) == [2, 6, 10, 14]
    assert int(s[R.S_CHIEN]) == (1 << 3) | (1 << 7) | (1 << 11)
    hands = [int(s[R.S_HAND + p]) for p in range(3)]
    assert all(bin(h).count("1") == 7 for h in hands)
    assert hands[0] | hands[1] | hands[2] | int(s[R.S_CHIEN]) == (1 << 24) - 1
    assert s[R.S_TO_MOVE] == 2  # the player after the dealer opens


def test_forced_opening_bids_by_five_and_the_marriage_ceiling():
    s = dealt_state(HANDS, CHIEN, dealer=2)
    first = moves(s)
    assert R.PASS not in first  # the opener must bid
    # seat 0 holds Q♥ K♥: he may bid above 120
    assert bid(100) == first[0] and bid(125) in first and bid(400) == first[-1]
    R.apply_move(s, bid(100), KV, TB)
    second = moves(s)  # seat 1: no marriage, at most 120, multiples of 5 above 100
    assert second == [R.PASS] + [bid(a) for a in (105, 110, 115, 120)]
    R.apply_move(s, bid(110), KV, TB)
    R.apply_move(s, R.PASS, KV, TB)  # seat 2 passes
    assert s[R.S_TO_MOVE] == 0
    R.apply_move(s, bid(115), KV, TB)
    assert s[R.S_TO_MOVE] == 1
    R.apply_move(s, R.PASS, KV, TB)  # seat 1 passes: one pass in a row, not two
    assert s[R.S_TO_MOVE] == 2 and s[R.S_PHASE] == R.P_BID  # seat 2 is offered again
    R.apply_move(s, R.PASS, KV, TB)  # two passes in a row: seat 0 takes at 115
    assert s[R.S_TAKER] == 0 and s[R.S_BID] == 115 and s[R.S_RAISED] == 1
    # the chien joins his hand (10 cards) and he may bomb
    assert labels_of(s[R.S_HAND]) == set(HANDS[0]) | set(CHIEN)
    assert moves(s) == [R.NO_BOMB, R.BOMB]


def test_auction_reentry_follows_the_seed_and_the_knob_makes_a_pass_final():
    """"Chacun à son tour se voit proposer [...] de monter ou de passer. Les enchères
    s'arrêtent lorsque deux joueurs d'affilée passent": by default a player who passed
    comes back when his turn comes round; ``auction_reentry=false`` skips him."""
    assert K.auction_reentry is True
    s = dealt_state(HANDS, CHIEN, dealer=2)
    R.apply_move(s, bid(100), KV, TB)  # seat 0 opens
    R.apply_move(s, R.PASS, KV, TB)  # seat 1 passes
    R.apply_move(s, bid(105), KV, TB)  # seat 2 raises
    R.apply_move(s, R.PASS, KV, TB)  # seat 0 passes
    assert s[R.S_TO_MOVE] == 1 and R.PASS in moves(s) and bid(110) in moves(s)
    R.apply_move(s, bid(110), KV, TB)  # seat 1 re-enters
    R.apply_move(s, R.PASS, KV, TB)  # seat 2
    assert s[R.S_TO_MOVE] == 0 and s[R.S_PHASE] == R.P_BID  # seat 0 re-enters too
    R.apply_move(s, R.PASS, KV, TB)
    assert s[R.S_TAKER] == 1 and s[R.S_BID] == 110
    kv = M._vector(M.MilleKnobs(auction_reentry=False))
    s = dealt_state(HANDS, CHIEN, dealer=2)
    for m in (bid(100), R.PASS, bid(105)):
        R.apply_move(s, m, kv, TB)
    R.apply_move(s, R.PASS, kv, TB)  # seat 0 passes: seat 1 passed before, so it is over
    assert s[R.S_TAKER] == 2 and s[R.S_BID] == 105


def test_opener_may_always_bid_the_minimum_even_above_his_ceiling():
    k = M.MilleKnobs(forced_open_min=130)
    kv = M._vector(k)
    s = dealt_state({0: HANDS[1], 1: HANDS[0], 2: HANDS[2]}, CHIEN, dealer=2)
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, kv, RULES, TB, out)
    assert list(out[:n]) == [R.BID]  # no marriage: only the forced minimum


def test_give_away_one_card_to_each_opponent():
    s = played_position()
    hands = [labels_of(s[R.S_HAND + p]) for p in range(3)]
    assert [len(h) for h in hands] == [8, 8, 8]
    assert "9♠" in hands[1] and "9♦" in hands[2]
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 0  # the taker leads


def test_no_bomb_offered_when_used_and_bomb_scoring_example_3():
    s = dealt_state(HANDS, CHIEN, dealer=2, bombs=0b110)  # seat 0 used his bomb
    R.apply_move(s, bid(100), KV, TB)
    R.apply_move(s, R.PASS, KV, TB)
    R.apply_move(s, R.PASS, KV, TB)
    assert s[R.S_PHASE] == R.P_GIVE
    # worked example 3: a bomb on 115 gives each defender 60 (57.5 up to a multiple of 10)
    for contract, each in ((115, 60), (100, 50), (105, 60), (120, 60)):
        s = dealt_state(HANDS, CHIEN, dealer=2)
        R.apply_move(s, bid(100), KV, TB)
        R.apply_move(s, bid(contract) if contract > 100 else R.PASS, KV, TB)
        if contract > 100:
            R.apply_move(s, R.PASS, KV, TB)
            R.apply_move(s, R.PASS, KV, TB)
        else:
            R.apply_move(s, R.PASS, KV, TB)
        R.apply_move(s, R.BOMB, KV, TB)
        assert s[R.S_PHASE] == R.P_DONE
        marks = np.zeros(3, np.int64)
        assert R.deal_marks(s, KV, marks) == -1
        taker = int(s[R.S_TAKER])
        assert marks[taker] == 0 and sorted(marks) == [0, each, each]
    assert R.bomb_payout(115, M._vector(M.MilleKnobs(bomb_round_to=1))) == 58


# --- play, marriages and trump ---------------------------------------------------------------------
def test_no_trump_at_start_and_no_marriage_on_the_first_lead():
    s = played_position()
    assert s[R.S_TRUMP] == -1
    assert all(m < R.DECLARE for m in moves(s))  # Q♥ K♥ held, but no trick won yet
    play(s, "10♠", "A♠", "Q♠")  # follow suit; seat 1 wins
    assert s[R.S_TO_MOVE] == 1 and s[R.S_TPTS + 1] == 24


def test_marriage_after_winning_a_trick_sets_trump_and_scores():
    s = played_position()
    play(s, "10♦", "J♦", "A♦")  # seat 2 wins with A♦
    # seat 2 leads; he holds no marriage; seat 0 holds Q♥ K♥
    play(s, "J♣")
    play(s, "Q♣")  # seat 0 (void? no: he holds Q♣ K♣ from the chien) follows clubs
    play(s, "9♣")
    assert s[R.S_TO_MOVE] == 0  # Q♣ beat J♣ and 9♣
    ms = moves(s)
    declarable = sorted(M.DECK.labels[m - R.DECLARE] for m in ms if m >= R.DECLARE)
    assert declarable == ["K♥", "Q♥"]  # K♣ alone is left of clubs: no club marriage now
    play(s, "!K♥")
    assert s[R.S_TRUMP] == R.HEARTS and s[R.S_MAR] == 100 and s[R.S_MAR_SEAT + R.HEARTS] == 0


def test_example_7_void_must_trump_any_trump():
    """♥ is trump; ♣ is led; the follower has no ♣ but holds 9♥: he must play 9♥ even
    though a higher trump is already in the trick."""
    suit_of, suit_mask, excuse_mask, strength, points, above = TB[:6]
    from simlab.mechanics.tricks import legal_cards, update_trick
    trump = R.HEARTS
    led, win, ws = -1, -1, -1
    for i, x in enumerate(("J♣", "A♥")):
        led, win, ws = update_trick(cid(x), i, led, win, ws, trump, suit_of, above[trump + 1])
    hand = np.uint64(mask("9♥", "A♠", "10♦"))
    got = legal_cards(hand, led, win, False, trump, suit_of, suit_mask, excuse_mask,
                      above[trump + 1], RULES)
    assert labels_of(got) == {"9♥"}
    # no trump set: a void player plays anything; trump set but none held: anything
    got = legal_cards(np.uint64(mask("A♠", "10♦")), led, win, False, trump, suit_of,
                      suit_mask, excuse_mask, above[trump + 1], RULES)
    assert labels_of(got) == {"A♠", "10♦"}
    led, win, ws = update_trick(cid("J♣"), 0, -1, -1, -1, -1, suit_of, above[0])
    got = legal_cards(hand, led, win, False, -1, suit_of, suit_mask, excuse_mask, above[0], RULES)
    assert labels_of(got) == {"9♥", "A♠", "10♦"}
    # following suit is compulsory even with trumps in hand
    got = legal_cards(np.uint64(mask("9♣", "9♥")), led, win, False, trump, suit_of, suit_mask,
                      excuse_mask, above[trump + 1], RULES)
    assert labels_of(got) == {"9♣"}


def test_trick_winner_highest_trump_else_highest_of_led_suit():
    suit_of, above = TB[0], TB[5]
    from simlab.mechanics.tricks import update_trick
    trump = R.SPADES
    led, win, ws = -1, -1, -1
    for i, x in enumerate(("K♦", "10♦", "9♠")):
        led, win, ws = update_trick(cid(x), i, led, win, ws, trump, suit_of, above[trump + 1])
    assert ws == 2
    led, win, ws = -1, -1, -1
    for i, x in enumerate(("K♦", "10♦", "A♣")):
        led, win, ws = update_trick(cid(x), i, led, win, ws, trump, suit_of, above[trump + 1])
    assert ws == 1  # 10 beats K (by_value order); a discard never wins


# --- scoring: worked examples 1, 2, 5 ------------------------------------------------------------
def finished(taker: int, bid_: int, tpts: list[int], mar: list[int]) -> np.ndarray:
    s = np.zeros(R.N_STATE, dtype=np.int64)
    s[R.S_TAKER] = taker
    s[R.S_BID] = bid_
    for p in range(3):
        s[R.S_TPTS + p] = tpts[p]
        s[R.S_MAR + p] = mar[p]
    s[R.S_PHASE] = R.P_DONE
    return s


def test_example_1_made_with_a_marriage_and_defenders_rounded():
    marks = np.zeros(3, np.int64)
    made = R.deal_marks(finished(0, 110, [62, 33, 25], [80, 0, 0]), KV, marks)
    assert made == 1 and list(marks) == [110, 35, 25]


def test_example_2_failed_contract_costs_the_bid():
    marks = np.zeros(3, np.int64)
    made = R.deal_marks(finished(1, 120, [10, 95, 15], [0, 0, 0]), KV, marks)
    assert made == 0 and marks[1] == -120 and list(marks) == [10, -120, 15]


def test_example_5_rounding_to_the_nearest_five():
    assert [R.round_nearest(x, 5) for x in (37, 38, 12, 13, 0, 120)] == [35, 40, 10, 15, 0, 120]


def test_defender_marriage_counts_for_him():
    marks = np.zeros(3, np.int64)
    R.deal_marks(finished(0, 100, [70, 38, 12], [0, 40, 0]), KV, marks)
    assert list(marks) == [-100, 80, 10]


# --- the match sheet: worked examples 4 and 6 ------------------------------------------------------
def sheet(scores, marks, taker, zero=(0, 0, 0), bars=(0, 0, 0), run=(0, 0, 0), kv=KV):
    sc = np.array(scores, np.int64)
    b = np.array(bars, np.int64)
    r = np.array(run, np.int64)
    f, z = R.score_deal(sc, b, r, np.array(marks, np.int64), taker, np.array(zero, np.int64), kv)
    return list(sc), list(b), list(r), f, z


def test_example_4_barrel_arrival_fall_and_win():
    sc, _, run, f, _ = sheet([860, 0, 0], [100, 10, 10], 0)
    assert sc[0] == 880 and run[0] == 0 and f == 0  # 960 -> set to 880
    r = run
    # "plus de 3 tours consécutifs" (the default, barrel_deals = 4): he falls at the end
    # of his 4th deal on the barrel, not the 3rd
    assert K.barrel_deals == 4
    start = sc
    for deal_no in range(1, 5):
        sc, _, r, f, _ = sheet(sc, [0, 20, 30], 1, run=r)  # he defends: scores nothing
        assert sc[0] == (880 if deal_no < 4 else 760)
    assert f == 1 and r[0] == 0
    kv3 = M._vector(M.MilleKnobs(barrel_deals=3))  # the source game's custom: the 3rd
    sc, r = start, run
    for deal_no in range(1, 4):
        sc, _, r, f, _ = sheet(sc, [0, 20, 30], 1, run=r, kv=kv3)
        assert sc[0] == (880 if deal_no < 3 else 760)
    assert f == 1 and r[0] == 0
    sc, *_ = sheet([880, 0, 0], [120, 0, 0], 0)  # from 880, a made 120 wins
    assert sc[0] == 1000
    sc, *_ = sheet([880, 0, 0], [100, 0, 0], 0)  # a made 100 leaves him on the barrel
    assert sc[0] == 880


def test_barrel_defender_scores_nothing_and_cannot_cross_the_target():
    sc, *_ = sheet([880, 500, 870], [60, -100, 40], 1)
    assert sc == [880, 400, 880]  # seat 0 on the barrel: 0; seat 2 stops at the barrel
    kv = M._vector(M.MilleKnobs(defender_can_win=True))
    sc, *_ = sheet([800, 500, 870], [100, -100, 140], 1, kv=kv)
    assert sc == [880, 400, 1010]


def test_example_6_every_third_zero_bar_costs_120():
    sc, b, _, _, z = sheet([300, 200, 100], [100, 0, 20], 0, zero=(0, 1, 0))
    assert sc == [400, 200, 120] and b == [0, 1, 0] and z == 0
    sc, b, _, _, z = sheet(sc, [100, 0, 20], 0, zero=(0, 1, 0), bars=b)
    sc, b, _, _, z = sheet(sc, [100, 0, 20], 0, zero=(0, 1, 0), bars=b)
    assert b[1] == 3 and z == 1 and sc[1] == 200 - 120
    _, b, _, _, _ = sheet([0, 0, 0], [-100, 0, 0], 0, zero=(1, 0, 0))
    assert b == [0, 0, 0]  # bars are for defenders only


# --- conservation and facts over many deals ---------------------------------------------------------
def frame(policies, seed, count, record=False, knobs=K):
    out = M.run_deals(knobs, policies, seed, 0, count, record)
    return to_frame(out, M.deal_columns(knobs), M.DECK.labels, 3)


def check_invariants(f: pl.DataFrame, knobs: M.MilleKnobs) -> None:
    played = f.filter(~pl.col("bomb"))
    bombed = f.filter(pl.col("bomb"))
    tp = sum(played[f"trick_points_s{i}"] for i in range(3))
    assert (tp == 120).all()  # card points per deal
    assert (sum(played[f"tricks_s{i}"] for i in range(3)) == 8).all()
    # marriage points: a sum of n_marriages distinct suits' values
    values = [knobs.marriage_spades, knobs.marriage_hearts, knobs.marriage_diamonds,
              knobs.marriage_clubs]
    sums = {n: {sum(values[s] for s in range(4) if subset >> s & 1) for subset in range(16)
                if bin(subset).count("1") == n} for n in range(5)}
    mar = sum(played[f"marriage_points_s{i}"] for i in range(3))
    for total, n in zip(mar.to_list(), played["n_marriages"].to_list(), strict=True):
        assert total in sums[n]
    for row in played.iter_rows(named=True):
        t = row["taker"]
        total = row[f"trick_points_s{t}"] + row[f"marriage_points_s{t}"]
        assert row["taker_total"] == total
        assert row["made"] == (total >= row["bid"])
        assert row[f"score_s{t}"] == (row["bid"] if row["made"] else -row["bid"])
        for p in range(3):
            if p != t:
                pts = row[f"trick_points_s{p}"] + row[f"marriage_points_s{p}"]
                assert row[f"score_s{p}"] == R.round_nearest(pts, 5)
                assert row[f"zero_s{p}"] == (row[f"trick_points_s{p}"] == 0)
        assert row["bid"] % 5 == 0 and 100 <= row["bid"] <= 400
        assert row["bid"] <= 120 or row["taker_held_marriage"]
    for row in bombed.iter_rows(named=True):
        t = row["taker"]
        assert row[f"score_s{t}"] == 0 and row["made"] is None
        assert all(row[f"score_s{p}"] == -(-row["bid"] // 20) * 10 for p in range(3) if p != t)


def test_invariants_random_and_heuristic():
    f = frame(RAND, 1, 600)
    assert f["bomb"].any() and (f["contract"] == ">120").any()
    check_invariants(f, K)
    check_invariants(frame(HEUR, 2, 600), K)
    check_invariants(frame(("heuristic", "random", "heuristic"), 3, 300), K)


def test_dealt_hands_match_exact_combinatorics():
    """P(a 7-card hand holds a given suit's marriage) = C(22,5)/C(24,7); P(it holds at
    least one marriage), by inclusion-exclusion; the chien's mean points (3 x 120/24 = 15)
    and P(a chien of three 9s) = C(4,3)/C(24,3). Tolerance: 5 standard errors, from the
    per-deal counts (the three hands of a deal are not independent)."""
    n = 4000
    dealt = M.run_deals(K, HEUR, 17, 0, n, True).dealt
    p_suit = comb(22, 5) / comb(24, 7)
    p_any = sum((-1) ** (j + 1) * comb(4, j) * comb(24 - 2 * j, 7 - 2 * j) / comb(24, 7)
                for j in range(1, 4))  # 4 marriages need 8 cards
    per_deal = np.zeros((n, 2))
    for d in range(n):
        for p in range(3):
            mar = R.marriage_suits(np.uint64(sum(1 << int(c) for c in dealt[d, p])))
            per_deal[d, 0] += mar & 1
            per_deal[d, 1] += mar != 0
    for j, p in enumerate((p_suit, p_any)):
        x = per_deal[:, j]
        se = x.std(ddof=1) / sqrt(n)
        assert abs(x.mean() - 3 * p) < 5 * se, (x.mean() / 3, p)
    f = frame(HEUR, 17, n)
    chien = f["chien_points"].to_numpy().astype(float)
    assert abs(chien.mean() - 15) < 5 * chien.std(ddof=1) / sqrt(n)
    p_nines = comb(4, 3) / comb(24, 3)
    nines = (chien == 0).mean()
    assert abs(nines - p_nines) < 5 * sqrt(p_nines * (1 - p_nines) / n)


def test_knob_variants_run():
    for k in (M.MilleKnobs(rank_order="as_printed"), M.MilleKnobs(bombs_per_match=0),
              M.MilleKnobs(max_bid=120, bid_step=10), M.MilleKnobs(marriage_hearts=0)):
        f = frame(HEUR, 4, 200, knobs=k)
        assert (sum(f[f"trick_points_s{i}"] for i in range(3)).filter(~f["bomb"]) == 120).all()
        if k.bombs_per_match == 0:
            assert not f["bomb"].any()


# --- matches -----------------------------------------------------------------------------------------
def test_matches_end_at_the_target_without_the_cap():
    out = M.run_matches(K, HEUR, 5, 0, 60).rows
    cols = [c.name for c in M.match_columns(K)]
    f = pl.DataFrame(out, schema=cols, orient="row")
    assert (f["winner"] >= 0).all() and (f["capped"] == 0).all()
    for row in f.iter_rows(named=True):
        w = row["winner"]
        assert row[f"final_score_s{w}"] >= 1000
        assert all(row[f"final_score_s{p}"] < 1000 or p == w for p in range(3))
        assert all(not (880 < row[f"final_score_s{p}"] < 1000) for p in range(3))
    assert f["n_zero_penalties"].sum() > 0 and f["n_barrel_deals"].sum() > 0
    assert f["n_bombs"].max() <= 3  # one bomb per player per match
    # random players overbid and drift below zero: the safety cap stops them, and says so
    r = M.run_matches(M.MilleKnobs(max_deals=40), RAND, 5, 0, 10).rows
    assert ((r[:, 2] < 0) == (r[:, 12] == 1)).all() and (r[:, 3] <= 40).all()
    assert (r[:, 12] == 1).any()


# --- determinism ---------------------------------------------------------------------------------------
def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="heuristic,random,heuristic")
    a = simlab.simulate("mille", 300, jobs=1, chunk_size=300, **kw)
    b = simlab.simulate("mille", 300, jobs=2, chunk_size=70, **kw)
    c = simlab.simulate("mille", 300, jobs=1, chunk_size=41, **kw)
    assert a.equals(b) and a.equals(c)


def test_match_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=4, level="match", params={"target": 500, "barrel_floor": 440})
    a = simlab.simulate("mille", 12, jobs=1, chunk_size=12, **kw)
    b = simlab.simulate("mille", 12, jobs=2, chunk_size=5, **kw)
    assert a.equals(b) and (a["winner"] >= 0).all()


def test_pure_python_path_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import mille as M\n"
        "k = M.MilleKnobs(search_worlds=2)\n"
        "pol = ('search', 'heuristic', 'random')\n"
        "with np.errstate(over='ignore'):\n"
        "    d = M.run_deals(k, pol, 9, 0, 3, False).rows\n"
        "    m = M.run_matches(M.MilleKnobs(target=200, barrel_floor=150), ('heuristic',) * 3, 9, 0, 2).rows\n"
        "print(d.tolist(), m.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True,
                         text=True)
    k = M.MilleKnobs(search_worlds=2)
    d = M.run_deals(k, ("search", "heuristic", "random"), 9, 0, 3, False).rows
    m = M.run_matches(M.MilleKnobs(target=200, barrel_floor=150), HEUR, 9, 0, 2).rows
    assert res.stdout.strip() == f"{d.tolist()} {m.tolist()}"
