"""Tarot 4 saisons heuristic (issue 10): every contract it bids in at least 1 % of deals is
made at least 25 % of the time. Before, "2 avant-dernier" was bid in 6 % of deals and
never made, and Petit au bout made 11 %: the contracted card was played like any other
(``keep_contract_card=false`` keeps that behaviour, and the test shows the difference)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.games import tarot_4_saisons as G

N = 6000
CONTRACTS = {1: ("Petit au bout", "petit_au_bout_seat"), 2: ("2 avant-dernier",
                                                           "deux_avant_dernier_seat"),
             8: ("4 Rois", "four_kings_seat"), 16: ("résistance", None)}


def contract_rates(frame: pl.DataFrame) -> dict[str, tuple[float, float, int]]:
    """Per side contract: (share of deals where it is bid, made rate, times bid)."""
    out = {}
    for bit, (name, seat_col) in CONTRACTS.items():
        bid = made = 0
        for s in range(3):
            b = (frame[f"contracts_s{s}"] & bit) > 0
            bid += int(b.sum())
            won = (frame[seat_col] == s) if seat_col else frame[f"resistance_s{s}"].fill_null(False)
            made += int((b & won).sum())
        out[name] = (bid / frame.height, made / bid if bid else float("nan"), bid)
    return out


@pytest.fixture(scope="module")
def frame():
    return simlab.simulate("tarot_4_saisons", N, seed=41)


def test_every_contract_bid_often_is_made_often(frame):
    rates = contract_rates(frame)
    often = {k: v for k, v in rates.items() if v[0] >= 0.01}
    assert {"Petit au bout", "2 avant-dernier"} <= set(often)  # the test has something to check
    for name, (share, made, bid) in often.items():
        assert made >= 0.25, (name, share, made, bid)
    taken = frame.filter(pl.col("taker") >= 0)
    by_contract = taken.group_by("contract").agg(pl.len().alias("n"), pl.col("made").mean())
    for row in by_contract.iter_rows(named=True):
        if row["n"] >= 0.01 * N:
            assert row["made"] >= 0.25, row


def test_playing_the_contract_card_like_any_card_loses_the_contract():
    before = contract_rates(simlab.simulate("tarot_4_saisons", N, seed=41,
                                            params={"keep_contract_card": False}))
    after = contract_rates(simlab.simulate("tarot_4_saisons", N, seed=41))
    # (2 avant-dernier made 81 % and Petit au bout 70 % with pab_contract_trumps=11; 44 %
    # and 37 % at 9, the value simlab tune found when duplicate play compared plain
    # scores; relative to the table 9 loses 0.22 points per deal, so 11 stays)
    assert before["2 avant-dernier"][1] < 0.05 < 0.5 < after["2 avant-dernier"][1]
    assert before["Petit au bout"][1] + 0.3 < after["Petit au bout"][1]


def test_a_partners_excuse_lead_is_not_a_winning_partner_trick():
    """After a defender leads the Excuse, nothing wins the trick yet and the next card
    sets the suit: his partner leads in effect, and must not load his richest card (not
    a master) on it for the taker to take. Before issue 10 the heuristic took the Excuse
    for a winning partner card (3.9 % of deals)."""
    from test_tarot_4_saisons_search import KV, RULES, advance, deal

    def excuse_led_by_partner(st, cs) -> bool:
        taker = st[G.S_TAKER]
        mover = G.to_move(st)
        return (st[G.S_PHASE] == G.PH_PLAY and st[G.S_NTRICK] == 1 and st[G.S_WIN] < 0
                and taker >= 0 and mover != taker)

    found = loaded = 0
    for d in range(400):
        st, cs = deal(d, seed=13)
        if not advance(st, cs, excuse_led_by_partner):
            continue
        me = G.to_move(st)
        legal = G.legal_mask(st, cs, RULES)
        plain = [c for c in range(G.N_CARDS) if (int(legal) >> c) & 1
                 and c not in (G.EXCUSE,) and not (int(G.TRUMPS) >> c) & 1]
        if len(plain) < 2 or max(G.POINTS[c] for c in plain) == min(G.POINTS[c] for c in plain):
            continue
        found += 1
        c = G.heuristic_move(st, cs, KV, RULES)
        richest = max(plain, key=lambda x: G.POINTS[x])
        unseen = int(G.ALL) & ~int(cs[G.M_GONE]) & ~int(cs[G.M_HAND + me])
        master = int(G.ABOVE[c]) & unseen == 0  # cashing a master card is not loading
        loaded += c == richest and not master and G.POINTS[c] > min(G.POINTS[x] for x in plain)
        assert me != st[G.S_TAKER]
    assert found >= 5  # the test has positions to judge
    assert loaded == 0


# --- the capot ------------------------------------------------------------------------------------
def mask(labels) -> np.uint64:
    m = 0
    for c in labels:
        m |= 1 << G.DECK.index(c)
    return np.uint64(m)


# A likely capot that is not sure: the T15 is out, and an opponent holding it with 6 or
# more of the trumps out (or more trumps than the taker's 9) takes a trick.
LIKELY = [f"T{i}" for i in (21, 20, 19, 18, 17, 16, 14, 13, 12)] + [
    "K♠", "K♥", "K♦", "K♣", "Q♠", "Q♥"]


def capot_position(hand: list[str], discards: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The taker (seat 0) holding ``hand`` after discarding ``discards``, the two others
    holding 15 of the rest each (only their counts are read)."""
    from test_tarot_4_saisons_search import work
    st, cs, *_ = work()
    rest = [c for c in G.DECK.labels if c not in hand and c not in discards]
    st[G.S_TAKER] = 0
    cs[G.M_HAND] = mask(hand)
    cs[G.M_HAND + 1] = mask(rest[:15])
    cs[G.M_HAND + 2] = mask(rest[15:30])
    cs[G.M_DISC] = mask(discards)
    return st, cs


def test_a_likely_capot_is_announced():
    kv = G._vector(G.Tarot4SaisonsKnobs())
    h = mask(LIKELY)
    hidden = G.ALL & ~h  # the 5 chien cards unseen ("sans voir"): they never win a trick
    odds = G.capot_odds(h, hidden, 15, 0)
    assert 70 <= odds < 95, odds  # 81 % (128 deals of the others): above the 2/3 break-even
    assert G.hand_value(h) < kv[G.K_CAPOT_AT]  # the former rule (value 75) never announced it
    st, cs = capot_position(LIKELY, [])
    assert G.announces_capot(st, cs, 0, kv)
    former = G._vector(G.Tarot4SaisonsKnobs(capot_likely_margin=101))
    assert not G.announces_capot(st, cs, 0, former)
    # the Excuse never wins a trick; a Dame without her Roi loses to it when every
    # hidden card is in a hand (the taker discarded five cards)
    assert G.capot_odds(h | mask(["Excuse"]), hidden, 15, 0) == 0
    weak = [c for c in LIKELY if c != "K♥"] + ["C♥"]
    low = ["1♠", "2♠", "4♠", "1♦", "2♦"]
    st, cs = capot_position(weak, low)
    assert G.capot_odds(mask(weak), np.uint64(G.hidden_cards(st, cs, 0)), 15, 0) == 0
    assert not G.announces_capot(st, cs, 0, kv)


def test_announced_capots_are_made_often_enough_to_pay():
    """Fixed seed: the heuristic announces capots, and makes them more often than the
    2/3 break-even of the multiples (8 announced, 4 unannounced), within 5 standard
    errors (62 announced, 53 made since capot_likely_margin -15); the former play
    (value 75) announced about one in 400,000 deals."""
    f = simlab.simulate("tarot_4_saisons", 600_000, seed=5, jobs=-1, progress=False)
    ann = f["capot_announced"].fill_null(False)
    made = int((ann & f["capot"].fill_null(False)).sum())
    n = int(ann.sum())
    assert n >= 20, n
    assert made / n > 2 / 3 - 5 * np.sqrt(2 / 9 / n), (made, n)


def test_all_pass_is_exactly_the_tables_of_weak_hands():
    """Issue 10: all-pass occurs. The heuristic passes a hand valued below ``pass_below``
    (30), so a dealing is passed by all exactly when no dealt hand reaches it (about 2.4
    in 10,000 deals); with ``pass_below=0`` (any hand worth 'tout' simple bids) nobody
    passes on these deals."""
    n = 60000
    f = simlab.simulate("tarot_4_saisons", n, seed=43, record_hands=True)
    played = f.filter(~pl.col("annulled") | pl.col("all_pass"))
    index = {label: i for i, label in enumerate(G.DECK.labels)}
    best = np.zeros(played.height, dtype=np.int64)
    for s in range(3):
        for i, cards in enumerate(played[f"dealt_s{s}"].to_list()):
            best[i] = max(best[i], G.hand_value(np.uint64(sum(1 << index[c] for c in cards))))
    weak = best < G.Tarot4SaisonsKnobs().pass_below
    assert weak.sum() >= 3  # the test has something to check
    assert (played["all_pass"].to_numpy() == weak).all()
    never = simlab.simulate("tarot_4_saisons", n, seed=43, params={"pass_below": 0})
    assert never["all_pass"].sum() == 0
