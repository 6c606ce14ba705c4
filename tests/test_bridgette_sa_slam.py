"""Issue 32: Bridgette's Sans-Atout slams. The heuristic never bid 6SA (chelem geant):
its linear estimate, (trick_base + strength points) / 4, reached 12 tricks in Sans-Atout
only from 36 points, yet declarers of 29+ Sans-Atout points took 12 tricks there in 83 of
137 deals (scripts/measure_bridgette_sa_slams.py). With ``sa_slam_points`` = 29 such
hands expect 12 tricks and bid 6SA. The super slam (7SA) stays unbid, explained by a
decision note with the measured figures."""

from __future__ import annotations

from collections import Counter

import numpy as np
import polars as pl

from simlab import players_check as P
from simlab.games import bridgette as B
from simlab.games import get_game
from simlab.games.bridgette import players as BP
from simlab.games.bridgette import rules as R
from simlab.games.bridgette.questions import SUPER_SLAM_TITLE
from simlab.runner import plan

SA = 4


def _hand(cards: list[str]) -> np.uint64:
    labels = list(R.DECK.labels)
    hand = np.uint64(0)
    for c in cards:
        hand |= np.uint64(1) << np.uint64(labels.index(c))
    return hand


STRONG = ["A♠", "K♠", "Q♠", "J♠", "10♠", "A♥", "K♥", "5♥", "A♦", "K♦", "4♦", "A♣", "3♣"]


def test_a_29_point_sans_atout_hand_expects_12_tricks_and_bids_6sa():
    """Hand-built: A K Q J 10 of spades, A K 5 of hearts, A K 4 of diamonds, A 3 of
    clubs: 28 high-card points + 1 for the fifth spade = 29 in Sans-Atout. The linear
    estimate says (12 + 29) / 4 = 10 tricks (4SA, the former opening); now 12, so the
    heuristic opens 6SA (a jump, which Sans-Atout allows with a card of every suit)."""
    hand = _hand(STRONG)
    assert BP.hand_points(hand, SA) == 29
    kv = R._vector(B.BridgetteKnobs())
    old = R._vector(B.BridgetteKnobs(sa_slam_points=100))
    assert BP.expected_tricks(hand, SA, kv) == 12
    assert BP.expected_tricks(hand, SA, old) == 10
    assert BP.best_bid(hand, -1, kv) == 6 * 5 + SA
    assert BP.best_bid(hand, -1, old) == 4 * 5 + SA
    # one point less: the linear estimate as before
    weaker = _hand([c if c != "J♠" else "9♠" for c in STRONG])
    assert BP.hand_points(weaker, SA) == 28
    assert BP.expected_tricks(weaker, SA, kv) == 10


def test_heuristic_deals_bid_and_make_6sa():
    """5,000 heuristic deals, seed 5 (the survey that found 0 of 4,928 contracts at 6SA):
    now 24 at 6SA, 14 made. Bounds: 5 standard errors below the measured count and make
    rate (58 %, sd 10 % over 24 contracts)."""
    rows = B.run_deals(B.BridgetteKnobs(), ("heuristic", "heuristic"), 5, 0, 5000).rows
    geant = rows[:, R.C_CONTRACT] == R.CLASSES.index("chelem_geant")
    assert geant.sum() >= 24 - 5 * np.sqrt(24), geant.sum()  # formerly 0
    assert rows[geant, R.C_MADE].sum() / geant.sum() >= 0.58 - 5 * 0.10
    counts = Counter(rows[:, R.C_CONTRACT].tolist())
    assert counts[R.CLASSES.index("super_chelem")] == 0  # the note's case


def _checks(frame: pl.DataFrame) -> dict[str, P.Check]:
    p = plan("bridgette", frame.height, seed=1)
    return {c.name: c for c in P.frame_checks(p.game, p, frame)}


def _contracts(labels: list[str]) -> pl.DataFrame:
    g = get_game("bridgette")
    kinds = next(c.kind for c in g.deal_columns(g.make_knobs({})) if c.name == "contract")
    return pl.DataFrame({"deal": range(len(labels))}).with_columns(
        pl.Series("contract", labels, dtype=pl.Enum(list(kinds))))


def test_super_slam_never_bid_is_explained_and_chelem_geant_still_warns():
    classes = [c for c in R.CLASSES if c not in ("super_chelem", "chelem_geant")]
    checks = _checks(_contracts(classes * 20))
    c = checks[SUPER_SLAM_TITLE]
    assert c.ok is True
    assert c.note.startswith("never taken in this run; ")
    assert "30,000" in c.note and "-17 +- 182" in c.note
    geant = checks["contract chelem_geant (rows with a contract)"]
    assert geant.ok is False and geant.note == ""


def test_super_slam_always_bid_still_warns():
    """The note explains "never" only."""
    c = _checks(_contracts(["super_chelem"] * 10))[SUPER_SLAM_TITLE]
    assert c.ok is False
