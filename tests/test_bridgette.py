"""Bridgette rules, pinned by hand-built positions and by every worked example of the
seed (catalogue "Worked examples" 1-9); deal-level facts against exact combinatorics;
conservation; matches; determinism; the heuristic's health."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.knobs import SimlabError
from simlab.games import bridgette as B
from simlab.games import get_game
from simlab.games.bridgette import players as P
from simlab.games.bridgette import rules as R

KNOBS = B.BridgetteKnobs()
KV = R._vector(KNOBS)
IDX = R.DECK.index


def mask(*labels: str) -> int:
    return sum(1 << IDX(x) for x in labels)


def labels_of(m: int) -> set[str]:
    return {R.DECK.labels[c] for c in range(R.N_CARDS) if m >> c & 1}


def base_state(hand0: int, hand1: int) -> np.ndarray:
    s = np.zeros(R.N_STATE, dtype=np.int64)
    s[R.S_HAND] = hand0
    s[R.S_HAND + 1] = hand1
    for slot in (R.S_BID, R.S_BIDDER, R.S_DECLARER, R.S_TRUMP, R.S_LED, R.S_BAN,
                 R.S_GRAND_LED):
        s[slot] = -1
    return s


def auction_state(hand0: int, hand1: int, dealer: int = 1) -> np.ndarray:
    """Seat ``1 - dealer`` (the non-dealer) opens the auction."""
    s = base_state(hand0, hand1)
    s[R.S_DEALER] = dealer
    s[R.S_PHASE] = R.P_AUCTION
    s[R.S_TO_MOVE] = 1 - dealer
    return s


def play_state(hand0: int, hand1: int, strain: int, leader: int = 0) -> np.ndarray:
    s = base_state(hand0, hand1)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRUMP] = R.STRAIN_SUIT[strain]
    s[R.S_DECLARER] = leader
    s[R.S_BID] = 5 + strain if strain != R.SA else 4
    s[R.S_LEADER] = leader
    s[R.S_TO_MOVE] = leader
    return s


def moves(s: np.ndarray) -> list[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    return [int(m) for m in out[:R.legal_moves(s, KV, out)]]


def bid(text: str) -> int:
    return R.BID + R.BID_LABELS.index(text)


def call(s: np.ndarray, text: str) -> None:
    m = {"pass": R.PASS, "double": R.DOUBLE, "redouble": R.REDOUBLE}.get(text)
    m = bid(text) if m is None else m
    assert m in moves(s), (text, s[R.S_TO_MOVE])
    R.apply_move(s, m, KV)


# --- deck ---------------------------------------------------------------------------------
def test_deck_is_52_plus_three_colons():
    assert R.DECK.size == 55
    assert R.DECK.labels[R.GRAND_COLON] == "T1"  # the Tarot 1 of trumps
    assert R.DECK.labels[R.COLON_ROYAL] == "Cavalier"
    assert R.DECK.labels[R.PETIT_COLON] == "Excuse"
    # the Colons' groups: Aces (4 cards), figures (12), 2..10 (36)
    assert [bin(int(m)).count("1") for m in R.GROUP_MASK] == [36, 12, 4]
    assert R.GROUP_OF[IDX("A♣")] == R.G_ACE and R.GROUP_OF[IDX("J♥")] == R.G_FACE
    assert R.GROUP_OF[IDX("10♦")] == R.G_LOW
    assert R.COLON_OF_GROUP[R.G_ACE] == R.GRAND_COLON
    assert R.COLON_OF_GROUP[R.G_FACE] == R.COLON_ROYAL
    assert R.COLON_OF_GROUP[R.G_LOW] == R.PETIT_COLON
    # rank order 2 < ... < 10 < J < Q < K < A in every suit
    assert [R.RANK_OF[IDX(f"{r}♠")] for r in ("2", "10", "J", "Q", "K", "A")] == [0, 8, 9, 10, 11, 12]


# --- deal and improvement draw (worked example 1) ---------------------------------------------
def deck_with(up: str) -> np.ndarray:
    rest = [c for c in range(55) if c != IDX(up)]
    return np.array(rest[:26] + [IDX(up)] + rest[26:], dtype=np.int64)


@pytest.mark.parametrize("up,k", [("K♦", 8), ("2♥", 4), ("10♣", 4), ("J♠", 8), ("Q♥", 8),
                                  ("A♠", 12), ("T1", 12), ("Cavalier", 8), ("Excuse", 4)])
def test_improvement_draw_by_upcard(up: str, k: int):
    """Example 1: up-card K♦ -> the dealer draws 8 and discards 8; the non-dealer draws 2
    and discards 2. The deal is one card at a time, the non-dealer first."""
    deck = deck_with(up)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    dealt = np.zeros((2, R.MAX_HELD), dtype=np.int64)
    R.deal(s, deck, 0, KV, dealt)  # seat 0 deals
    assert s[R.S_UPCARD] == IDX(up) and s[R.S_DEALER_EXTRA] == k
    assert list(dealt[1, :13]) == list(deck[0:26:2])  # the non-dealer's 13
    assert list(dealt[0, :13]) == list(deck[1:26:2])
    assert list(dealt[1, 13:15]) == list(deck[27:29])  # non-dealer draws first, from the top
    assert list(dealt[0, 13:13 + k]) == list(deck[29:29 + k])
    assert bin(int(s[R.S_HAND + 1])).count("1") == 15
    assert bin(int(s[R.S_HAND])).count("1") == 13 + k
    # the discard: the non-dealer discards 2 first, then the dealer k; then the auction,
    # opened by the non-dealer
    assert s[R.S_PHASE] == R.P_DISCARD and s[R.S_TO_MOVE] == 1
    n = 0
    while s[R.S_PHASE] == R.P_DISCARD:
        R.apply_move(s, P.heuristic_move(s, KV), KV)
        n += 1
    assert n == 2 + k
    assert s[R.S_PHASE] == R.P_AUCTION and s[R.S_TO_MOVE] == 1
    for p in range(2):
        assert bin(int(s[R.S_HAND + p])).count("1") == 13
        assert int(s[R.S_DISC + p]) & int(s[R.S_HAND + p]) == 0
    assert bin(int(s[R.S_DISC])).count("1") == k and bin(int(s[R.S_DISC + 1])).count("1") == 2


# --- the auction (seed §6; worked example 7) ------------------------------------------------------
def test_bidding_legality_example_7():
    """Current bid 1♥: 1♠ and 1SA are no jumps; 2♥ is the cheapest ♥ bid, no jump; 3♥ is a
    jump and needs 4 hearts; 2♠ is a jump in ♠ (1♠ was available) and needs 4 spades."""
    cur = R.BID_LABELS.index("1♥")
    three = np.uint64(mask("2♠", "3♠", "4♠", "2♥", "3♥", "4♥", "2♦", "2♣"))
    four = np.uint64(mask("2♠", "3♠", "4♠", "5♠", "2♥", "3♥", "4♥", "5♥", "2♦", "2♣"))
    b = R.BID_LABELS.index
    assert R.may_bid(three, cur, b("1♠"), KV) and R.may_bid(three, cur, b("1SA"), KV)
    assert R.may_bid(three, cur, b("2♥"), KV)
    assert not R.may_bid(three, cur, b("3♥"), KV) and R.may_bid(four, cur, b("3♥"), KV)
    assert not R.may_bid(three, cur, b("2♠"), KV) and R.may_bid(four, cur, b("2♠"), KV)
    assert not R.may_bid(four, cur, b("1♥"), KV)  # must beat the current bid
    assert not R.may_bid(four, cur, b("1♦"), KV)


def test_holding_requirements_and_first_bid():
    one_heart = np.uint64(mask("2♠", "3♠", "4♠", "5♠", "2♥", "2♦", "3♦", "2♣", "3♣"))
    no_clubs = np.uint64(mask("2♠", "3♠", "2♥", "3♥", "2♦", "3♦"))
    b = R.BID_LABELS.index
    assert not R.may_bid(one_heart, -1, b("1♥"), KV)  # a suit needs 2 cards
    assert R.may_bid(one_heart, -1, b("1♠"), KV) and R.may_bid(one_heart, -1, b("0SA"), KV)
    assert not R.may_bid(no_clubs, -1, b("0SA"), KV)  # SA needs every suit
    assert R.may_bid(no_clubs, -1, b("1♠"), KV) and not R.may_bid(no_clubs, -1, b("2♠"), KV)
    assert R.may_bid(one_heart, -1, b("3♠"), KV)  # a first bid above 1 is a jump: 4 spades
    assert R.may_bid(one_heart, -1, b("3SA"), KV)  # an SA jump needs nothing more
    assert "0♣" not in R.BID_LABELS[R.FIRST_BID:]  # level 0 only in SA
    assert R.BID_LABELS[R.FIRST_BID] == "0SA" and R.BID_LABELS[R.LAST_BID] == "7SA"
    # the Colons count in no suit
    colons = np.uint64(mask("2♠", "T1", "Cavalier", "Excuse", "2♥", "3♥", "2♦", "2♣"))
    assert not R.may_bid(colons, -1, b("1♠"), KV)


ALL_SUITS = mask("2♠", "3♠", "4♠", "5♠", "2♥", "3♥", "4♥", "5♥", "2♦", "3♦", "2♣", "3♣", "4♣")


def test_auction_passed_out():
    s = auction_state(ALL_SUITS, ALL_SUITS << 0, dealer=1)
    call(s, "pass")
    assert s[R.S_PHASE] == R.P_AUCTION  # the dealer has not spoken yet
    call(s, "pass")
    assert s[R.S_PHASE] == R.P_DONE and s[R.S_DECLARER] == -1
    assert R.seat_scores(s, KV) == (0, 0)


def test_auction_raise_own_bid_after_a_pass():
    s = auction_state(ALL_SUITS, ALL_SUITS, dealer=1)
    call(s, "1♠")  # seat 0 opens
    assert R.DOUBLE in moves(s)
    call(s, "pass")
    assert R.DOUBLE not in moves(s)  # nothing of the opponent's to double
    call(s, "2♠")  # seat 0 raises his own bid after seat 1 passed
    assert s[R.S_PHASE] == R.P_AUCTION
    call(s, "pass")
    call(s, "pass")  # two passes in a row: over
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DECLARER] == 0
    assert R.BID_LABELS[s[R.S_BID]] == "2♠" and s[R.S_DOUBLED] == 0
    assert s[R.S_TRUMP] == 0  # spades
    assert s[R.S_TO_MOVE] == 0  # the declarer leads


def test_auction_double_pass_redouble_and_cancel():
    s = auction_state(ALL_SUITS, ALL_SUITS, dealer=1)
    call(s, "1♥")
    call(s, "double")
    assert R.REDOUBLE in moves(s) and R.DOUBLE not in moves(s)
    call(s, "pass")  # the doubled player passes: over, doubled
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DOUBLED] == 1 and s[R.S_DECLARER] == 0
    s = auction_state(ALL_SUITS, ALL_SUITS, dealer=1)
    call(s, "1♥")
    call(s, "double")
    call(s, "redouble")  # ends the auction
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DOUBLED] == 2
    s = auction_state(ALL_SUITS, ALL_SUITS, dealer=1)
    call(s, "1♥")
    call(s, "double")
    call(s, "1SA")  # a new bid cancels the double
    assert s[R.S_PHASE] == R.P_AUCTION and s[R.S_DOUBLED] == 0
    call(s, "2♥")  # the doubler may bid over it instead of doubling again
    assert s[R.S_DOUBLED] == 0 and s[R.S_BIDDER] == 1
    call(s, "double")  # and be doubled in turn
    call(s, "pass")  # the doubled player passes: over
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DECLARER] == 1 and s[R.S_DOUBLED] == 1
    s = auction_state(ALL_SUITS, ALL_SUITS, dealer=1)
    call(s, "1♥")
    call(s, "2♥")
    call(s, "pass")
    call(s, "pass")
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DECLARER] == 1


# --- the Colons (seed §7.1; worked examples 8 and 9) ----------------------------------------------
def test_colon_reply_example_8():
    """8♦ led; the follower plays the Petit Colon though he holds diamonds: legal; the
    leader wins the trick but may not lead ♦ to the next one unless he holds only ♦."""
    leader = mask("8♦", "9♦", "3♠", "4♣")
    follower = mask("2♦", "Excuse", "Cavalier", "T1", "5♠")
    s = play_state(leader, follower, R.SA)
    R.apply_move(s, IDX("8♦"), KV)
    legal = labels_of(int(R.legal_cards(s)))
    assert legal == {"2♦", "Excuse"}  # follow, or the matching Colon; not the others
    R.apply_move(s, IDX("Excuse"), KV)
    assert s[R.S_LEADER] == 0 and s[R.S_TRICKS] == 1
    assert labels_of(int(R.legal_cards(s))) == {"3♠", "4♣"}  # diamonds banned
    R.apply_move(s, IDX("3♠"), KV)
    R.apply_move(s, IDX("5♠"), KV)  # follower wins with 5♠: the ban is over
    # only diamonds left: the banned suit may be led
    s = play_state(mask("8♦", "9♦"), follower, R.SA)
    R.apply_move(s, IDX("8♦"), KV)
    R.apply_move(s, IDX("Excuse"), KV)
    assert labels_of(int(R.legal_cards(s))) == {"9♦"}
    # the ban lasts one trick, and a Colon may be led while banned (catalogue #7)
    s = play_state(mask("8♦", "9♦", "Cavalier"), mask("2♦", "Excuse", "3♦"), R.SA)
    R.apply_move(s, IDX("8♦"), KV)
    R.apply_move(s, IDX("Excuse"), KV)
    assert labels_of(int(R.legal_cards(s))) == {"Cavalier"}
    # knob off: no ban
    kv = R._vector(B.BridgetteKnobs(colon_ban_next_lead=False))
    s = play_state(mask("8♦", "9♦", "3♠"), follower, R.SA)
    R.apply_move(s, IDX("8♦"), kv)
    R.apply_move(s, IDX("Excuse"), kv)
    assert labels_of(int(R.legal_cards(s))) == {"9♦", "3♠"}


def test_non_matching_colon_only_when_void():
    s = play_state(mask("K♦", "3♠"), mask("2♦", "Excuse", "Cavalier", "T1"), R.SA)
    R.apply_move(s, IDX("K♦"), KV)
    assert labels_of(int(R.legal_cards(s))) == {"2♦", "Cavalier"}  # K: figure group
    s = play_state(mask("K♦", "3♠"), mask("2♣", "Excuse", "Cavalier", "T1"), R.SA)
    R.apply_move(s, IDX("K♦"), KV)
    assert labels_of(int(R.legal_cards(s))) == {"2♣", "Excuse", "Cavalier", "T1"}
    R.apply_move(s, IDX("T1"), KV)  # a non-matching Colon: loses, and no ban
    assert s[R.S_LEADER] == 0 and s[R.S_BAN] == -1 and s[R.S_BANS] == 0


def test_colon_lead_example_9():
    """Grand Colon led, ♥ trump: K♠ loses to the Colon; A♣ or any ♥ wins."""
    hearts = R.STRAIN_NAMES.index("♥")
    for reply, follower_wins in (("K♠", False), ("A♣", True), ("2♥", True), ("K♥", True),
                                 ("Excuse", False), ("10♠", False)):
        s = play_state(mask("T1", "3♣"), mask(reply, "4♦"), hearts)
        R.apply_move(s, IDX("T1"), KV)
        assert R.legal_cards(s) == np.uint64(mask(reply, "4♦"))  # any card on a Colon lead
        R.apply_move(s, IDX(reply), KV)
        assert s[R.S_LEADER] == (1 if follower_wins else 0), reply
        assert s[R.S_GRAND_LED] == (0 if follower_wins else 1)
    # the other Colons: the Colon Royal is beaten by a figure, the Petit Colon by a 2..10
    assert R.follower_wins(R.COLON_ROYAL, IDX("J♣"), -1)
    assert not R.follower_wins(R.COLON_ROYAL, IDX("A♣"), -1)
    assert R.follower_wins(R.PETIT_COLON, IDX("2♣"), -1)
    assert not R.follower_wins(R.PETIT_COLON, IDX("Q♣"), -1)


def test_trick_winner_plain_and_trump():
    spades = R.STRAIN_NAMES.index("♠")
    assert R.follower_wins(IDX("10♥"), IDX("J♥"), 0)
    assert not R.follower_wins(IDX("10♥"), IDX("9♥"), 0)
    assert R.follower_wins(IDX("A♥"), IDX("2♠"), R.STRAIN_SUIT[spades])  # a trump wins
    assert not R.follower_wins(IDX("2♥"), IDX("A♦"), 0)  # another suit loses
    assert not R.follower_wins(IDX("2♥"), IDX("A♠"), -1)  # no trump in SA
    # void: any card, no obligation to trump
    s = play_state(mask("A♥", "3♣"), mask("2♠", "4♦"), spades)
    R.apply_move(s, IDX("A♥"), KV)
    assert labels_of(int(R.legal_cards(s))) == {"2♠", "4♦"}


# --- scoring (seed §8; worked examples 2-6) ----------------------------------------------------------
def score(text: str, doubled: int, tricks: int) -> tuple[int, int]:
    return tuple(int(x) for x in R.contract_score(R.BID_LABELS.index(text), doubled, tricks, KV))


def test_scoring_examples():
    assert score("2♠", 0, 9) == (300, 0)  # 200 + 100
    assert score("4♥", 1, 10) == (1100, 0)  # 700 + 400
    assert score("3SA", 2, 11) == (2200, 0)  # 700 + 1000 + 500
    assert score("1♣", 0, 5) == (0, 200)  # 2 missing
    assert score("1♣", 1, 5) == (0, 600)
    assert score("1♣", 2, 5) == (0, 800)
    assert score("6♠", 0, 5) == (0, 1000)  # 7 missing: the flat 1000
    assert score("6♠", 1, 5) == (0, 3000)
    assert score("6♠", 2, 5) == (0, 4000)
    assert score("7SA", 0, 13) == (2500, 0)
    assert score("0SA", 1, 6) == (500, 0)
    assert score("1♥", 0, 2) == (0, 500)  # 5 missing
    assert score("2♦", 1, 8) == (600, 0)  # doubled, exactly made: 200 + 400


def test_contract_table():
    """The seed's table, 2SA read as partiel (catalogue #1)."""
    table = {"minimum": "0SA 1♣ 1♦ 1♥ 1♠",
             "partiel": "1SA 2SA 2♣ 2♦ 2♥ 2♠ 3♣ 3♦ 3♥ 3♠ 4♣ 4♦",
             "complet": "3SA 4♥ 4♠ 4SA 5♣ 5♦ 5♥ 5♠",
             "petit_chelem": "6♣ 6♦ 6♥ 6♠", "sous_chelem": "5SA", "chelem_geant": "6SA",
             "grand_chelem": "7♣ 7♦ 7♥ 7♠", "super_chelem": "7SA"}
    values = dict(zip(R.CLASSES, (100, 200, 700, 1400, 1500, 2000, 2100, 2500), strict=True))
    seen = set()
    for cls, bids in table.items():
        for b in bids.split():
            i = R.BID_LABELS.index(b)
            assert R.CLASSES[R.CLASS_OF_BID[i]] == cls, b
            assert score(b, 0, 6 + i // 5) == (values[cls], 0)
            seen.add(b)
    assert len(seen) == 36 == R.LAST_BID - R.FIRST_BID + 1


# --- knobs ---------------------------------------------------------------------------------------------
def test_knobs_validate():
    with pytest.raises(SimlabError, match="out of range"):
        B.BridgetteKnobs(dealer_extra_ace=29)
    with pytest.raises(SimlabError, match="stock holds 28"):
        B.BridgetteKnobs(nondealer_extra=1, dealer_extra_ace=28)
    k = B.GAME.make_knobs({"dealer_extra_ace": "8", "passout_counts": "false"})
    assert k.dealer_extra_ace == 8 and k.passout_counts is False
    with pytest.raises(SimlabError, match="unknown knob"):
        B.GAME.make_knobs({"hand": "12"})


# --- deal-level facts and conservation ------------------------------------------------------------------
N_DEALS = 6000


@pytest.fixture(scope="module")
def deals() -> pl.DataFrame:
    return simlab.simulate("bridgette", N_DEALS, seed=7, record_hands=True)


def within(k: int, n: int, p: float) -> bool:
    return abs(k / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


def test_upcard_classes_match_combinatorics(deals: pl.DataFrame):
    up = deals["upcard_class"].cast(pl.String)
    for cls, p in (("2-10", 37 / 55), ("figure", 13 / 55), ("ace", 5 / 55)):
        assert within(int((up == cls).sum()), N_DEALS, p), cls
    extra = dict(zip(("2-10", "figure", "ace"), (4, 8, 12), strict=True))
    assert (deals["dealer_extra"].to_numpy() == np.array([extra[x] for x in up])).all()


def test_dealt_hand_holds_grand_colon_at_rate_13_of_55(deals: pl.DataFrame):
    k = deals["dealt_s0"].list.slice(0, 13).list.contains("T1").sum()
    assert within(int(k), N_DEALS, 13 / 55)


def test_conservation(deals: pl.DataFrame):
    played = deals.filter(pl.col("taker") >= 0)
    assert (played["tricks_s0"] + played["tricks_s1"] == 13).all()
    # only one seat scores, and what it scores follows from the contract and the tricks
    assert (np.minimum(played["score_s0"].to_numpy(), played["score_s1"].to_numpy()) == 0).all()
    assert (played["score_s0"] + played["score_s1"] > 0).all()
    for row in played.head(400).iter_rows(named=True):
        t = row["taker"]
        b = R.BID_LABELS.index(row["bid"])
        dbl = R.DOUBLINGS.index(row["doubled"])
        mine, theirs = R.contract_score(b, dbl, row[f"tricks_s{t}"], KV)
        assert (row[f"score_s{t}"], row[f"score_s{1 - t}"]) == (mine, theirs)
        assert row["made"] == (row[f"tricks_s{t}"] >= 6 + row["level"])
    passed = deals.filter(pl.col("taker") < 0)
    assert (passed["score_s0"] == 0).all() and (passed["score_s1"] == 0).all()
    # hands at play: 13 cards each, disjoint, drawn from what each seat was dealt and drew
    for row in played.head(300).iter_rows(named=True):
        h0, h1 = set(row["hand_s0"]), set(row["hand_s1"])
        assert len(h0) == len(h1) == 13 and not h0 & h1
        assert h0 <= set(row["dealt_s0"]) and h1 <= set(row["dealt_s1"])
        assert row["upcard"] not in h0 | h1


def test_exclusions_and_bid_lengths_are_sound():
    """What a seat infers (voids, a banned lead's single suit, the suit lengths its bids
    showed) never contradicts the real hands of randomly played deals."""
    gen = np.random.default_rng(3)
    checked = 0
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for seed in range(150):
        deck = np.random.default_rng(seed).permutation(55).astype(np.int64)
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, deck, seed % 2, KV, np.zeros((2, R.MAX_HELD), dtype=np.int64))
        while s[R.S_PHASE] != R.P_DONE:
            n = R.legal_moves(s, KV, out)
            R.apply_move(s, int(out[gen.integers(n)]), KV)
            for q in range(2):
                assert int(s[R.S_EXCL + q]) & int(s[R.S_HAND + q]) == 0
                original = int(s[R.S_HAND + q]) | int(s[R.S_PLAYED + q])
                for suit in range(4):
                    n_suit = bin(original & int(R.SUIT_MASK[suit])).count("1")
                    assert n_suit >= s[R.S_MIN + 4 * q + suit]
                checked += int(s[R.S_EXCL + q]) != 0
    assert checked > 300


# --- matches -----------------------------------------------------------------------------------------
def test_matches_end_properly():
    m = simlab.simulate("bridgette", 300, seed=2, level="match")
    assert (m["winner"] >= 0).all() and not m["capped"].any()
    assert (m["n_deals"] >= 6).all()
    assert (m["final_score_s0"] != m["final_score_s1"]).all()
    won = np.where(m["winner"] == 0, m["final_score_s0"] - m["final_score_s1"],
                   m["final_score_s1"] - m["final_score_s0"])
    assert (won == m["margin"].to_numpy()).all() and (won > 0).all()
    # a match needs more than 6 deals exactly when tied after 6
    assert ((m["n_deals"] > 6) == m["tied_after_regular"]).all()
    assert ((m["n_deals"] - 6) == m["n_extra_deals"]).all()
    short = simlab.simulate("bridgette", 200, seed=2, level="match",
                            params={"passout_counts": False, "deals_per_match": 2})
    assert (short["n_deals"] >= 2).all() and (short["winner"] >= 0).all()


# --- determinism -----------------------------------------------------------------------------------------
def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=4, policies="heuristic,random")
    a = simlab.simulate("bridgette", 300, jobs=1, chunk_size=300, **kw)
    b = simlab.simulate("bridgette", 300, jobs=2, chunk_size=70, **kw)
    c = simlab.simulate("bridgette", 300, jobs=1, chunk_size=33, **kw)
    assert a.equals(b) and a.equals(c)
    m1 = simlab.simulate("bridgette", 40, seed=4, level="match", chunk_size=40)
    m2 = simlab.simulate("bridgette", 40, seed=4, level="match", chunk_size=9, jobs=2)
    assert m1.equals(m2)


def test_pure_python_matches_compiled():
    code = ("import numpy as np\n"
            "from simlab.games import bridgette as B\n"
            "with np.errstate(over='ignore'):\n"
            "    o = B.run_deals(B.BridgetteKnobs(search_worlds=2), ('search', 'random'), 9, 0, "
            "2, False)\n"
            "    m = B.run_matches(B.BridgetteKnobs(), ('heuristic', 'heuristic'), 9, 0, 1)\n"
            "print(o.rows.tolist(), m.rows.tolist())\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         check=True, text=True)
    o = B.run_deals(B.BridgetteKnobs(search_worlds=2), ("search", "random"), 9, 0, 2, False)
    m = B.run_matches(B.BridgetteKnobs(), ("heuristic", "heuristic"), 9, 0, 1)
    assert res.stdout.strip() == f"{o.rows.tolist()} {m.rows.tolist()}"


# --- the heuristic's health ---------------------------------------------------------------------------------
def test_strong_hands_win_by_decile(deals: pl.DataFrame):
    """A seat's net score (its score minus the opponent's) rises with the high-card points
    of its hand at play, decile by decile (the top decile far above the bottom one)."""
    net = np.concatenate([(deals["score_s0"] - deals["score_s1"]).to_numpy(),
                          (deals["score_s1"] - deals["score_s0"]).to_numpy()])
    hcp = np.concatenate([deals["hcp_s0"].to_numpy(), deals["hcp_s1"].to_numpy()])
    order = np.argsort(hcp, kind="stable")
    parts = np.array_split(order, 10)
    means = np.array([net[part].mean() for part in parts])
    se = np.array([net[part].std() / math.sqrt(len(part)) for part in parts])
    # each decile at least its lower neighbour, within 5 standard errors of the difference
    # (neighbouring deciles differ by about 1 point of HCP: a few dozen points of score)
    assert (np.diff(means) > -5 * np.hypot(se[1:], se[:-1])).all(), means
    assert np.corrcoef(np.arange(10), means)[0, 1] > 0.95, means
    assert means[-1] - means[0] > 10 * np.hypot(se[0], se[-1]), means  # about 550 points


def test_every_contract_bid_is_sometimes_made(deals: pl.DataFrame):
    played = deals.filter(pl.col("taker") >= 0)
    assert played.height > 0.95 * N_DEALS  # passed-out deals are rare
    by = played.group_by("contract").agg(pl.len().alias("n"), pl.col("made").mean().alias("rate"))
    for row in by.iter_rows(named=True):
        if row["n"] >= 10:
            assert 0.2 < row["rate"] < 1.0, row
    for kind in ("doubled", "redoubled"):
        part = played.filter(pl.col("doubled").cast(pl.String) == kind)
        assert part.height > 0 and 0 < part["made"].mean() < 1, kind


def test_heuristic_beats_random_in_duplicate_play():
    from simlab.players.duel import duplicate

    r = duplicate(get_game("bridgette"), "heuristic", "random", n=600, seed=1)
    assert r.lo > 0, r.format()


@pytest.mark.parametrize("params", [
    {"nondealer_extra": 0, "dealer_extra_low": 0, "dealer_extra_face": 0, "dealer_extra_ace": 0},
    {"nondealer_extra": 4, "dealer_extra_low": 24, "dealer_extra_face": 24, "dealer_extra_ace": 24},
    {"suit_bid_min_cards": 0, "jump_min_cards": 0, "nt_needs_all_suits": False},
])
def test_variants_play_out(params: dict):
    """Extreme draws (none; the whole stock) and no holding requirements still give
    complete deals, for every policy."""
    f = simlab.simulate("bridgette", 150, seed=5, params=params, policies="heuristic,random")
    played = f.filter(pl.col("taker") >= 0)
    assert played.height > 0 and (played["tricks_s0"] + played["tricks_s1"] == 13).all()
    m = simlab.simulate("bridgette", 20, seed=5, params=params, policies="random", level="match")
    assert (m["winner"] >= 0).all()
