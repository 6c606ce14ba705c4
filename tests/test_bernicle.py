"""Bernicle rules: every worked example of the catalogue (from the seed's rules), the
meld and niche tables, the auction, exchanges, play obligations, conservation, exact
combinatorics of the deal, matches, and the heuristic's health."""

from __future__ import annotations

from math import comb

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.knobs import SimlabError
from simlab.games import get_game
from simlab.games.bernicle import players as P
from simlab.games.bernicle import rules as R
from simlab.games.bernicle.questions import hand_strength
from simlab.players.duel import duplicate

KNOBS = R.BernicleKnobs()
KV = R._vector(KNOBS)
RULES = R._rules(KNOBS)
TB = R.tables(KNOBS).kernel_args()
SP, HE, DI, CL = R.SPADES, R.HEARTS, R.DIAMONDS, R.CLUBS


def cards(*labels: str) -> int:
    """A card mask from labels; a label given twice means both copies."""
    mask = 0
    for lab in labels:
        c = R.DECK.index(lab)
        if mask >> c & 1:
            c += 1
        assert not mask >> c & 1, lab
        mask |= 1 << c
    return mask


def meld_points(labels: tuple[str, ...], trump: int) -> int:
    return int(R.melds(np.uint64(cards(*labels)), trump, KV)[0])


def niche(labels: tuple[str, ...]) -> tuple[int, int]:
    pts, pet = R.niche_points(np.uint64(cards(*labels)), KV)
    return int(pts), int(pet)


def score(taker: int, bid: int, tricks, tpts, meld, niche_pts: int, kv=KV):
    out = np.zeros(3, dtype=np.int64)
    made, tt, d, capot = R.deal_result(taker, bid, np.array(tricks, dtype=np.int64),
                                       np.array(tpts, dtype=np.int64),
                                       np.array(meld, dtype=np.int64), niche_pts, kv, out)
    return bool(made), out.tolist(), int(d), int(capot)


# --- the worked examples ------------------------------------------------------------------
def test_example_1_made_contract():
    """♥ trump, bid 250: royal marriage ♥ 40 + four Aces 100 = 140; tricks 120 -> 260 >=
    250 -> 250 + 120 + 140 = 510; each defender 80 + 40 + 40 = 160."""
    hand = ("K♥", "Q♥", "A♠", "A♥", "A♦", "A♣", "7♠", "7♦", "10♣")
    assert meld_points(hand, HE) == 140
    assert niche(("7♠", "7♥", "7♦", "7♣", "K♠", "10♥", "A♦", "J♠", "K♦"))[0] == 40
    made, s, d, _ = score(0, 250, [7, 3, 3], [120, 40, 40], [140, 20, 20], 40)
    assert made and s == [510, 160, 160] and d == 160


def test_example_2_failed_contract_pays_the_bid_to_both():
    made, s, _, _ = score(0, 250, [6, 4, 3], [100, 50, 50], [140, 20, 20], 40)
    assert not made and s == [140, 430, 430]


def test_example_3_a_defender_without_a_trick_scores_zero():
    made, s, _, _ = score(0, 250, [8, 5, 0], [120, 80, 0], [140, 20, 20], 40)
    assert made and s == [510, 160, 0]  # D2's meld still counts in the defence's total
    kv = R._vector(R.BernicleKnobs(no_trick_no_score=False))
    assert score(0, 250, [8, 5, 0], [120, 80, 0], [140, 20, 20], 40, kv)[1] == [510, 160, 160]


def test_example_4_grande_bernicle_replaces_the_marriage_and_the_bernicle():
    assert meld_points(("Q♠", "K♠", "J♦", "7♥"), HE) == 90
    assert meld_points(("Q♠", "K♠", "7♥"), HE) == 20
    assert meld_points(("Q♠", "J♦", "7♥"), HE) == 40


def test_example_5_capot_counts_toward_the_contract():
    made, s, _, capot = score(1, 460, [0, 13, 0], [0, 200, 0], [0, 60, 0], 0)
    assert made and capot == 1 and s == [0, 460 + 400 + 60, 0]
    made, s, _, _ = score(1, 470, [0, 13, 0], [0, 200, 0], [0, 60, 0], 0)
    assert not made and s == [0, 60, 0]  # the defenders took no trick: they score nothing


def test_example_6_the_niche():
    pts, pet = niche(("J♣", "Q♥", "7♠", "7♠", "7♥", "7♦", "K♣", "A♦", "10♦"))
    assert (pts, pet) == (140, 1)


# --- the meld table -------------------------------------------------------------------------
@pytest.mark.parametrize("hand, trump, points", [
    (("K♥", "Q♥"), SP, 20),
    (("K♥", "Q♥"), HE, 40),
    (("K♥", "Q♥", "K♥", "Q♥"), CL, 40),  # two marriages of a suit
    (("Q♠", "Q♠", "J♦", "J♦"), HE, 300),  # double Bernicle
    (("J♠", "J♥", "J♦", "J♣"), HE, 40),  # four Jacks (J♦ without Q♠: no Bernicle)
    (("J♠", "J♥", "J♦", "J♣", "Q♠"), HE, 40 + 40),  # J♦ serves in the four and the Bernicle
    (("Q♠", "Q♥", "Q♦", "Q♣"), CL, 60),
    (("K♠", "K♥", "K♦", "K♣"), CL, 80),
    (("A♠", "A♥", "A♦", "A♣", "A♠"), CL, 100),  # five Aces: still one four
    (tuple(f"A{s}" for s in "♠♥♦♣" for _ in range(2)), CL, 600),  # octuple replaces it
    (tuple(f"{r}{s}" for s in "♠♥♦♣" for r in "KQ"), DI, 400 + 80 + 60),  # procession, four K, four Q
    (("J♣", "Q♣", "K♣", "10♣", "A♣"), HE, 100),  # famille replaces its marriage
    (("J♣", "Q♣", "K♣", "10♣", "A♣"), CL, 200),  # famille royale replaces the royal one
])
def test_meld_table(hand, trump, points):
    assert meld_points(hand, trump) == points


def test_famille_zero_is_the_printed_table():
    """§7 prints both familles 'd'Atout': with famille=0 (its seed value) a plain suit's
    J Q K 10 A is only its marriage, and trump's is the famille royale."""
    kv = R._vector(R.BernicleKnobs(famille=0))
    plain = np.uint64(cards("J♣", "Q♣", "K♣", "10♣", "A♣"))
    assert int(R.melds(plain, HE, kv)[0]) == 20
    assert int(R.melds(plain, CL, kv)[0]) == 200
    departures = {d["name"]: d for d in R.BernicleKnobs.departures()}
    assert departures["famille"]["seed_value"] == 0
    assert departures["famille"]["seed_case"] == "contradicts"
    assert departures["max_bid"]["seed_case"] == "unplayable"


def test_melds_show_the_cards_they_use():
    pts, shown = R.melds(np.uint64(cards("K♥", "Q♥", "7♣", "A♠")), SP, KV)
    assert int(shown) == cards("K♥", "Q♥")


# --- the niche table ------------------------------------------------------------------------
@pytest.mark.parametrize("labels, points, petite", [
    (("7♠", "J♠", "Q♠"), 30, 0),  # tierce in the game order 7 J Q
    (("K♠", "10♠", "A♠"), 30, 0),
    (("Q♠", "K♠", "A♠"), 0, 0),  # not consecutive: 10 lies between K and A
    (("J♠", "Q♠"), 0, 0),  # same suit: no petite Bernicle
    (("J♠", "Q♥", "J♦", "Q♣"), 200, 2),  # two disjoint petites
    (("K♠", "K♠", "K♥", "K♦", "K♣"), 50, 0),
    (tuple(f"7{s}" for s in "♠♥♦♣" for _ in range(2)), 100, 0),
])
def test_niche_table(labels, points, petite):
    assert niche(labels) == (points, petite)


# --- a deal: auction, exchanges, play -------------------------------------------------------
def dealt_state(seed: int, dealer: int = 0) -> np.ndarray:
    deck = np.random.default_rng(seed).permutation(48).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, dealer, np.zeros((4, 13), dtype=np.int64))
    return state


def legal(state: np.ndarray) -> list[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    return out[:R.legal_moves(state, KV, RULES, TB, out)].tolist()


def test_auction_opens_at_150_or_160_and_raises_by_10_or_20():
    s = dealt_state(0)
    assert legal(s) == [R.PASS, R.BID_LOW, R.BID_HIGH]
    R.apply_move(s, R.BID_HIGH, KV, TB)  # seat 1 opens 160
    assert s[R.S_BID] == 160
    R.apply_move(s, R.PASS, KV, TB)  # seat 2 passes
    R.apply_move(s, R.BID_HIGH, KV, TB)  # seat 0 raises by 20
    assert s[R.S_BID] == 180 and s[R.S_BIDDER] == 0
    R.apply_move(s, R.PASS, KV, TB)  # seat 1
    R.apply_move(s, R.BID_LOW, KV, TB)  # seat 2 passed before, may bid again (§13.2)
    assert s[R.S_BID] == 190 and s[R.S_PHASE] == R.P_BID
    R.apply_move(s, R.PASS, KV, TB)
    R.apply_move(s, R.PASS, KV, TB)  # two passes in a row: seat 2 takes at 190
    assert s[R.S_PHASE] == R.P_TRUMP and s[R.S_TAKER] == 2 and s[R.S_BID] == 190


def test_three_passes_before_any_bid_pass_the_deal_out():
    # every player speaks (knob all_speak; tests/test_bernicle_auction.py has the rest)
    s = dealt_state(0)
    for _ in range(3):
        R.apply_move(s, R.PASS, KV, TB)
    assert s[R.S_PHASE] == R.P_DONE and s[R.S_TAKER] == -1
    kv = R._vector(R.BernicleKnobs(passout="forced"))
    s = dealt_state(0)
    for _ in range(3):
        R.apply_move(s, R.PASS, kv, TB)
    assert s[R.S_TAKER] == 1 and s[R.S_BID] == 150


def test_exchanges_fill_a_niche_of_nine_and_leave_thirteen_cards_each():
    for seed in range(20):
        s = dealt_state(seed, seed % 3)
        while s[R.S_PHASE] != R.P_PLAY and s[R.S_PHASE] != R.P_DONE:
            R.apply_move(s, P.heuristic_move(s, KV, RULES, TB), KV, TB)
        if s[R.S_PHASE] == R.P_DONE:
            continue
        sizes = [bin(int(s[R.S_HAND + p])).count("1") for p in range(3)]
        assert sizes == [13, 13, 13]
        assert bin(int(R.niche_of(s))).count("1") == 9
        t = s[R.S_TAKER]
        assert bin(int(s[R.S_DISC + t])).count("1") == 5
        assert s[R.S_TO_MOVE] == t  # the taker leads


def test_play_must_head_trump_overtrump_or_undertrump():
    s = dealt_state(0)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRUMP] = HE
    s[R.S_TAKER] = 0
    s[R.S_LEADER] = 0
    s[R.S_TO_MOVE] = 0
    s[R.S_HAND] = cards("Q♠", "7♣")
    s[R.S_HAND + 1] = cards("7♠", "A♠", "7♥")
    s[R.S_HAND + 2] = cards("J♥", "K♥", "7♦")
    R.apply_move(s, R.DECK.index("Q♠"), KV, TB)
    assert legal(s) == [R.DECK.index("A♠")]  # must head with the Ace
    R.apply_move(s, R.DECK.index("A♠"), KV, TB)
    assert sorted(legal(s)) == sorted([R.DECK.index("J♥"), R.DECK.index("K♥")])  # trump
    s2 = s.copy()
    R.apply_move(s2, R.DECK.index("J♥"), KV, TB)
    assert s2[R.S_TRICKS + 2] == 1
    # overtrump / undertrump: seat 2 void in the led suit after a trump
    s = dealt_state(0)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRUMP] = HE
    s[R.S_TAKER] = 0
    s[R.S_TO_MOVE] = 0
    s[R.S_HAND] = cards("Q♠", "7♣")
    s[R.S_HAND + 1] = cards("K♥", "7♦")
    s[R.S_HAND + 2] = cards("J♥", "A♥", "7♦")
    R.apply_move(s, R.DECK.index("Q♠"), KV, TB)
    R.apply_move(s, R.DECK.index("K♥"), KV, TB)
    assert legal(s) == [R.DECK.index("A♥")]  # overtrump
    s[R.S_HAND + 2] = cards("J♥", "7♦")
    assert legal(s) == [R.DECK.index("J♥")]  # cannot overtrump: undertrump


def test_the_first_of_two_identical_cards_wins():
    s = dealt_state(0)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRUMP] = HE
    s[R.S_TAKER] = 0
    s[R.S_TO_MOVE] = 0
    a, a2 = R.DECK.index("A♠"), R.DECK.index("A♠") + 1
    s[R.S_HAND] = 1 << a
    s[R.S_HAND + 1] = 1 << a2
    s[R.S_HAND + 2] = cards("7♠")
    for c in (a, a2, R.DECK.index("7♠")):
        R.apply_move(s, c, KV, TB)
    assert s[R.S_TRICKS] == 1 and s[R.S_TPTS] == 20


# --- whole deals: conservation, combinatorics, matches ------------------------------------
def test_card_points_are_conserved_and_scores_follow_the_rules():
    f = simlab.simulate("bernicle", 3000, seed=2)
    t = f.filter(pl.col("taker") >= 0)
    total = sum(t[f"trick_points_s{p}"] for p in range(3)) + t["niche_card_points"]
    assert (total == 200).all()
    assert (sum(t[f"tricks_s{p}"] for p in range(3)) == 13).all()
    passed = f.filter(pl.col("passed_out"))
    assert (passed["score_s0"] == 0).all()
    # a defender with a trick scores the defence's total; the taker's score follows made
    for p in range(3):
        d = t.filter((pl.col("taker") != p) & (pl.col(f"tricks_s{p}") > 0))
        assert (d[f"score_s{p}"] == d["defence_total"]).all()
        tk = t.filter((pl.col("taker") == p) & (pl.col(f"tricks_s{p}") > 0))
        expect = pl.when(pl.col("made")).then(pl.col("contract") + pl.col("taker_total")) \
            .otherwise(pl.col(f"melds_s{p}"))
        assert (tk[f"score_s{p}"] == tk.select(expect).to_series()).all()


def test_a_dealt_hand_holds_a_bernicle_as_often_as_exact_combinatorics_say():
    """P(13 cards of 48 hold at least one Q♠ and at least one J♦), by inclusion-exclusion."""
    n = 4000
    f = simlab.simulate("bernicle", n, seed=4, record_hands=True)
    total = comb(48, 13)
    p = 1 - 2 * comb(46, 13) / total + comb(44, 13) / total
    hands = f["dealt_s0"].to_list()
    hit = np.mean([("Q♠" in h) and ("J♦" in h) for h in hands])
    se = (p * (1 - p) / n) ** 0.5
    assert abs(hit - p) < 5 * se, (hit, p)


def test_matches_end_at_the_target():
    k = R.BernicleKnobs()
    m = simlab.simulate("bernicle", 30, seed=1, level="match")
    assert (m["winner"] >= 0).all() and not m["capped"].any()
    finals = m.select([pl.col(f"final_score_s{p}") for p in range(3)]).to_numpy()
    win = m["winner"].to_numpy()
    assert (finals[np.arange(len(win)), win] >= k.target).all()
    assert (finals[np.arange(len(win)), win] == finals.max(axis=1)).all()


def test_bad_knobs_give_one_line_errors():
    with pytest.raises(SimlabError):
        R.BernicleKnobs.from_mapping({"passout": "never"})
    with pytest.raises(SimlabError):
        R.BernicleKnobs.from_mapping({"open_high": "100"})


# --- the heuristic -------------------------------------------------------------------------
def test_heuristic_beats_random_and_contracts_are_made():
    r = duplicate(get_game("bernicle"), "heuristic", "random", n=300, seed=3)
    assert r.lo > 0, r.format()
    f = simlab.simulate("bernicle", 2000, seed=6)
    t = f.filter(pl.col("taker") >= 0)
    assert 0.6 < t["made"].mean() < 0.97
    assert f["passed_out"].mean() < 0.25


def test_strong_hands_win_by_decile():
    f = simlab.simulate("bernicle", 1500, seed=11, record_hands=True)
    xs, ys = [], []
    for p in range(3):
        for h, y in zip(f[f"dealt_s{p}"].to_list(), f[f"score_s{p}"].to_list(), strict=True):
            xs.append(hand_strength(KNOBS, h))
            ys.append(y)
    xs, ys = np.array(xs), np.array(ys, dtype=float)
    order = np.argsort(xs, kind="stable")
    deciles = np.array_split(ys[order], 10)
    means = np.array([d.mean() for d in deciles])
    top, bottom = deciles[-1], deciles[0]
    diff = top.mean() - bottom.mean()
    se = (top.var() / len(top) + bottom.var() / len(bottom)) ** 0.5
    assert diff - 2 * se > 0, means
    rank_corr = np.corrcoef(np.arange(10), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, means
