"""Président, issue 13 item 10: the roles at 6 players (knob ``roles_6p``). The seed names
the roles for 4 and 5 players only (the Neutre at 5 "ne donne et ne reçoit aucune
carte"); at 6 the default keeps two Neutres (catalogue #3), ``third_pair`` makes the 3rd
and 4th a third exchanging pair (Vice-vice-Président / Vice-vice-Trou du cul)."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest

from simlab.engine.game import policy_codes, to_frame
from simlab.games import president as P
from simlab.games.president.rules import points_of

RANK_OF = P.rank_table("2")
RANK = {label: i for i, label in enumerate(P.RANK_LABELS_2_HIGH)}
HEUR6 = policy_codes(("heuristic",) * 6)


def mask(labels: list[str]) -> np.uint64:
    m = 0
    for lab in labels:
        m |= 1 << P.DECK.index(lab)
    return np.uint64(m)


def labels_of(m: np.uint64) -> set[str]:
    return {P.DECK.labels[c] for c in range(52) if (int(m) >> c) & 1}


def test_titles_and_points_at_six():
    names = [P.TITLES_THIRD_PAIR[P.title_of(p, 6, True)] for p in range(1, 7)]
    assert names == ["president", "vice_president", "vice_vice_president",
                     "vice_vice_trou_du_cul", "vice_trou_du_cul", "trou_du_cul"]
    assert [P.TITLES[P.title_of(p, 6)] for p in range(1, 7)] == [
        "president", "vice_president", "neutre", "neutre", "vice_trou_du_cul", "trou_du_cul"]
    k = P.PresidentKnobs(players=6, roles_6p="third_pair", points_vice_vice_president=7,
                         points_vice_vice_trou=-7)
    kv = P._vector(k)
    assert [points_of(P.title_of(p, 6, True), kv) for p in range(1, 7)] == [2, 1, 7, -7, -1, -2]
    kv = P._vector(P.PresidentKnobs(players=6, points_vice_vice_president=7))
    assert [points_of(P.title_of(p, 6, False), kv) for p in range(1, 7)] == [2, 1, 0, 0, -1, -2]
    # the knob only acts at 6 players
    assert not P.third_pair(P.PresidentKnobs(players=5, roles_6p="third_pair"))
    assert P.titles_of(P.PresidentKnobs(players=5, roles_6p="third_pair")) == P.TITLES


# previous places by seat: seat 1 Président, 4 Vice, 0 3rd, 2 4th, 5 Vice-Trou, 3 Trou
PREV6 = np.array([3, 1, 4, 6, 2, 5], dtype=np.int64)
HANDS6 = [["3♦", "7♥", "7♣", "J♣"],         # 3rd
          ["3♠", "4♠", "6♦", "8♣", "9♣"],   # Président
          ["Q♠", "4♦", "8♦"],               # 4th
          ["2♣", "A♥", "5♥", "7♠"],         # Trou du cul
          ["5♠", "10♠", "10♥"],             # Vice-Président
          ["K♦", "6♠", "7♦"]]               # Vice-Trou du cul


def exchange6(**knobs) -> list[set[str]]:
    masks = np.array([mask(h) for h in HANDS6], dtype=np.uint64)
    k = P.PresidentKnobs(players=6, **knobs)
    _, trou = P.exchange(masks, PREV6.copy(), 6, HEUR6, P._vector(k), P._policy(k), RANK_OF)
    assert trou == 3
    return [labels_of(m) for m in masks]


@pytest.mark.parametrize("roles, third", [("two_neutres", 1), ("third_pair", 1),
                                          ("third_pair", 2), ("third_pair", 0)])
def test_exchanges_at_six(roles, third):
    hands = exchange6(roles_6p=roles, exchange_third=third)
    # the Trou du cul gives 2♣ and A♥, the Président his two lowest singletons
    assert hands[1] == {"2♣", "A♥", "6♦", "8♣", "9♣"}
    assert hands[3] == {"5♥", "7♠", "3♠", "4♠"}
    # the Vice-Trou gives K♦, the Vice-Président his lowest singleton 5♠
    assert hands[4] == {"10♠", "10♥", "K♦"}
    assert hands[5] == {"6♠", "7♦", "5♠"}
    if roles == "two_neutres" or third == 0:  # the Neutres give and receive nothing
        assert hands[0] == set(HANDS6[0]) and hands[2] == set(HANDS6[2])
    elif third == 1:  # the 4th gives his best (Q♠), the 3rd his lowest singleton (3♦)
        assert hands[0] == {"7♥", "7♣", "J♣", "Q♠"}
        assert hands[2] == {"4♦", "8♦", "3♦"}
    else:  # two cards: Q♠ and 8♦; back 3♦ then 8♦ (his lowest singletons)
        assert hands[0] == {"7♥", "7♣", "J♣", "Q♠"}
        assert hands[2] == {"4♦", "3♦", "8♦"}


def _run(n_players: int, count: int, **knobs):
    k = P.PresidentKnobs(players=n_players, deal_titles="random", **knobs)
    out = P.run_deals(k, ("heuristic",) * n_players, 7, 0, count, True)
    return to_frame(out, P.deal_columns(k), P.DECK.labels, n_players)


def _best(cards: set[str]) -> int:
    return max(RANK[c[:-1]] for c in cards)


@pytest.mark.parametrize("roles", ["two_neutres", "third_pair"])
def test_kernel_titles_points_and_exchanges(roles):
    third = roles == "third_pair"
    labels = P.TITLES_THIRD_PAIR if third else P.TITLES
    f = _run(6, 200, roles_6p=roles, points_vice_vice_president=5, points_vice_vice_trou=-4)
    assert list(f.schema["title_s0"].categories) == list(labels)
    pts = {"president": 2, "vice_president": 1, "neutre": 0, "vice_trou_du_cul": -1,
           "trou_du_cul": -2, "vice_vice_president": 5, "vice_vice_trou_du_cul": -4}
    moved_pairs = 0
    for r in f.iter_rows(named=True):
        titles = [r[f"title_s{s}"] for s in range(6)]
        for s in range(6):
            assert titles[s] == labels[P.title_of(r[f"place_s{s}"], 6, third)]
            assert r[f"score_s{s}"] == pts[titles[s]]
        prev = [r[f"prev_title_s{s}"] for s in range(6)]
        assert sorted(prev) == sorted(labels[P.title_of(p, 6, third)] for p in range(1, 7))
        dealt = [set(r[f"dealt_s{s}"]) for s in range(6)]
        hand = [set(r[f"hand_s{s}"]) for s in range(6)]
        if not third:
            for s in range(6):
                if prev[s] == "neutre":
                    assert hand[s] == dealt[s]
            continue
        up = prev.index("vice_vice_president")
        down = prev.index("vice_vice_trou_du_cul")
        given = dealt[down] - hand[down]
        back = dealt[up] - hand[up]
        assert len(hand[up]) == len(dealt[up]) and len(hand[down]) == len(dealt[down])
        assert len(given) == len(back) <= 1  # none when he gave back the card received
        if given:
            assert given <= hand[up] and back <= hand[down]
            assert RANK[given.pop()[:-1]] == _best(dealt[down])  # his best card
            moved_pairs += 1
    if third:  # the 3rd rarely gives back the very card he got (his lowest singleton)
        assert moved_pairs > 150


def _digest(f: pl.DataFrame, cols: list[str]) -> str:
    g = f.select([pl.col(c).cast(pl.String) for c in cols])
    return hashlib.sha256(g.write_csv().encode()).hexdigest()[:16]


def test_default_unchanged_and_other_counts_unaffected():
    # digest of seed 7's first 300 rows at 6 players (deal_titles=random) before the knob,
    # with the heuristic's knobs of that time
    f = _run(6, 300, keep_top=2, endgame_cards=4)
    cols = [f"{p}_s{i}" for p in ("score", "place", "title", "prev_title", "cards")
            for i in range(6)] + ["leader", "n_turns"]
    assert _digest(f, cols) == "159b65c8b1554301"
    assert not f.equals(_run(6, 300, roles_6p="third_pair", keep_top=2, endgame_cards=4))
    # at 4 and 5 players the knob changes nothing
    for n in (4, 5):
        assert _run(n, 100).equals(_run(n, 100, roles_6p="third_pair", exchange_third=3))


def test_match_points():
    # per deal the role points sum to 2 + 1 + 3 - 1 - 1 - 2 = 2 with the third pair
    k = P.PresidentKnobs(players=6, roles_6p="third_pair", deals_per_match=5,
                         points_vice_vice_president=3, points_vice_vice_trou=-1)
    rows = P.run_matches(k, ("heuristic",) * 6, 7, 0, 10).rows
    cols = [c.name for c in P.match_columns(k)]
    final = rows[:, [cols.index(f"final_score_s{s}") for s in range(6)]]
    assert (final.sum(axis=1) == 2 * 5).all()
    k2 = P.PresidentKnobs(players=6, deals_per_match=5, points_vice_vice_president=3,
                          points_vice_vice_trou=-1)
    final2 = P.run_matches(k2, ("heuristic",) * 6, 7, 0, 10).rows
    assert (final2[:, [cols.index(f"final_score_s{s}") for s in range(6)]].sum(axis=1)
            == 0).all()
