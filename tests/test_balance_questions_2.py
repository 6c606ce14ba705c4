"""The Tarot and Président catalogues' balance questions as metrics (``balance_metrics`` of
each game module): every metric is computed with n > 0 and a finite interval, at 3, 4 and
5 players for Tarot, and several values agree with direct polars/numpy computations on
the same frame."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from metric_checks import check_all_finite, close, named

from simlab.engine.game import to_frame
from simlab.games import president as P
from simlab.games import tarot as T

T_DEALS, T_MATCHES, P_DEALS, P_MATCHES = 4000, 60, 5000, 300


def policies(n: int, mixed: bool = True) -> tuple[str, ...]:
    """Heuristic and random seats: random bidders take every contract, call their own
    King at 5 players and announce slams, so every question has rows."""
    if not mixed:
        return ("heuristic",) * n
    return ("heuristic", "random") * (n // 2) + ("heuristic",) * (n % 2)


def deals(mod, knobs, n_seats, count, seed=1, pols=None, record=False):
    out = mod.run_deals(knobs, pols or policies(n_seats), seed, 0, count, record)
    return to_frame(out, mod.deal_columns(knobs), mod.DECK.labels, n_seats), out


def matches(mod, knobs, n_seats, count, seed=1, pols=None) -> pl.DataFrame:
    out = mod.run_matches(knobs, pols or policies(n_seats), seed, 0, count)
    return to_frame(out, mod.match_columns(knobs), mod.DECK.labels, n_seats)


# --- Tarot -----------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=[3, 4, 5])
def tarot(request):
    n = request.param
    k = T.TarotKnobs(players=n)
    f, out = deals(T, k, n, T_DEALS, record=True)
    m = matches(T, k, n, T_MATCHES)
    return n, k, f, out, m


def test_tarot_every_metric_has_n_and_a_finite_interval(tarot):
    n, k, f, _, m = tarot
    d = named(T.GAME, f, k, "deal", "Tarot questions")
    mm = named(T.GAME, m, k, "match", "Tarot questions")
    check_all_finite(d)
    check_all_finite(mm)
    assert all(key.startswith("tarot.q") for key in [*d, *mm])
    for q in ("q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"):
        assert any(x.headline for key, x in d.items() if key.startswith(f"tarot.{q}.")), q
    for c in T.CONTRACTS:
        assert f"tarot.q1.success.{c}" in d and f"tarot.q5.swing.{c}" in d
    for b in range(4):
        assert f"tarot.q1.success.bouts{b}" in d and f"tarot.q1.success.held{b}" in d
    assert any(key.startswith("tarot.q2.score.v") for key in d)
    assert {f"tarot.q3.score.pos{j}" for j in range(n)} <= set(d)
    five = {"tarot.q4.alone", "tarot.q4.success.alone", "tarot.q4.alone.self_call",
            "tarot.q4.success.self_call", "tarot.q4.score.self_call"}
    assert five <= set(d) if n == 5 else not five & set(d)
    assert f"at {n} players" in d["tarot.q4.success"].title
    assert {"tarot.q7.match.petit_sec", "tarot.q7.match.all_pass",
            "tarot.q4.match.success"} <= set(mm)
    # each level only gets its own metrics
    assert T.balance_metrics(m, k, "deal") == []
    assert T.balance_metrics(f, k, "match") == []
    assert T.GAME.extra["metrics"] is T.balance_metrics


def taker_marks(f: pl.DataFrame, n: int) -> np.ndarray:
    s = np.stack([f[f"score_s{i}"].to_numpy() for i in range(n)], axis=1)
    return s[np.arange(f.height), f["taker"].to_numpy()].astype(float)


def test_tarot_values_match_direct_counts(tarot):
    n, k, f, _, m = tarot
    ms = named(T.GAME, f, k, "deal", "Tarot questions")
    g = f.filter(pl.col("taker") >= 0)
    made = g["made"].to_numpy()
    contract = g["contract"].cast(pl.String).to_numpy()
    mark = taker_marks(g, n)
    total = g["attack_total"].to_numpy()
    partner = g["partner"].to_numpy()
    # the taker's mark is (n - 1) A alone, (n - 3) A with a partner
    assert (mark == np.where(partner < 0, n - 1, n - 3) * total).all()
    # 1. by contract and by Bouts
    for c in T.CONTRACTS:
        close(ms[f"tarot.q1.success.{c}"], made[contract == c].mean())
        close(ms[f"tarot.q1.score.{c}"], mark[contract == c].mean(), 1e-6)
    bouts, held = g["bouts"].to_numpy(), g["taker_bouts"].to_numpy()
    for b in range(4):
        close(ms[f"tarot.q1.success.bouts{b}"], made[bouts == b].mean())
        close(ms[f"tarot.q1.success.held{b}"], made[held == b].mean())
    # 2. the taker against a defender
    close(ms["tarot.q2.score.taker"], mark.mean(), 1e-6)
    close(ms["tarot.q2.score.defender"], -total.mean(), 1e-6)
    close(ms["tarot.q2.positive"], (mark > 0).mean())
    v = g["taker_value"].to_numpy()
    sel = (v >= 32) & (v < 36)
    close(ms["tarot.q2.score.v32_35"], mark[sel].mean(), 1e-6)
    close(ms["tarot.q2.prise.score.v32_35"], mark[sel & (contract == "prise")].mean(), 1e-6)
    # 3. the dealer's right (dealer + 1)
    dealer, taker = f["dealer"].to_numpy(), f["taker"].to_numpy()
    s = np.stack([f[f"score_s{i}"].to_numpy() for i in range(n)], axis=1)
    right = s[np.arange(f.height), (dealer + 1) % n]
    close(ms["tarot.q3.score.pos1"], right.mean(), 1e-6)
    close(ms["tarot.q3.positive.pos1"], (right[taker >= 0] > 0).mean())
    close(ms["tarot.q3.take.right"], (taker == (dealer + 1) % n)[taker >= 0].mean())
    # 4. spread of the marks
    close(ms["tarot.q4.success"], made.mean())
    close(ms["tarot.q4.score.sd"], mark.std(ddof=1), 1e-6)
    gs = np.stack([g[f"score_s{i}"].to_numpy() for i in range(n)], axis=1).astype(float)
    close(ms["tarot.q4.mark.sd"], math.sqrt((gs ** 2).mean()), 1e-6)
    # 5. Petit au bout
    pab = g["petit_au_bout"].cast(pl.String).to_numpy()
    close(ms["tarot.q5.pab"], (pab != None).mean())  # noqa: E711 (element-wise)
    close(ms["tarot.q5.pab.attack"], (pab == "attack")[pab != None].mean())  # noqa: E711
    mult = dict(zip(T.CONTRACTS, (k.mult_prise, k.mult_garde, k.mult_garde_sans,
                                  k.mult_garde_contre), strict=True))
    sign = np.where(pab == "attack", 1, np.where(pab == "defence", -1, 0))
    m_c = np.array([mult[c] for c in contract])
    swing = sign * k.petit_au_bout * m_c * np.where(partner < 0, n - 1, n - 3)
    for c in T.CONTRACTS:
        close(ms[f"tarot.q5.swing.{c}"], swing[contract == c].mean(), 1e-6)
    # 6. poignées, by camp
    shown = np.stack([g[f"poignee_s{i}"].is_not_null().to_numpy() for i in range(n)], axis=1)
    seat = np.arange(n)[None, :]
    attack_seat = (seat == g["taker"].to_numpy()[:, None]) | (seat == partner[:, None])
    att, dfc = (shown & attack_seat).any(axis=1), (shown & ~attack_seat).any(axis=1)
    close(ms["tarot.q6.success.attack_poignee"], made[att].mean())
    close(ms["tarot.q6.success.no_attack_poignee"], made[~att].mean())
    close(ms["tarot.q6.defence_wins.defence_poignee"], (~made)[dfc].mean())
    # 7. redeals over all dealings
    annulled = f["annulled"].to_numpy()
    close(ms["tarot.q7.petit_sec"], annulled.mean())
    close(ms["tarot.q7.all_pass"], (~annulled & (taker < 0)).mean())
    # 8. slams
    ch = g["chelem"].cast(pl.String).to_numpy()
    ann = g["chelem_announced"].to_numpy()
    close(ms["tarot.q8.unannounced.attack"], ((ch == "attack") & ~ann).mean())
    close(ms["tarot.q8.defence"], (ch == "defence").mean())
    close(ms["tarot.q8.announced"], ann.mean())
    if n == 5:
        alone = g["alone"].to_numpy()
        self_call = alone & ~g["called_in_chien"].to_numpy()
        assert self_call.sum() > 0  # random callers call their own King
        close(ms["tarot.q4.alone"], alone.mean())
        close(ms["tarot.q4.success.alone"], made[alone].mean())
        close(ms["tarot.q4.success.self_call"], made[self_call].mean())
        close(ms["tarot.q4.score.self_call"], mark[self_call].mean(), 1e-6)
        assert (alone == (partner < 0)).all()
    # match level: pooled shares
    mm = named(T.GAME, m, k, "match", "Tarot questions")
    close(mm["tarot.q7.match.petit_sec"], m["n_annulled"].sum() / m["n_deals"].sum())
    close(mm["tarot.q7.match.all_pass"], m["n_all_pass"].sum() / m["n_deals"].sum())
    close(mm["tarot.q4.match.success"], m["n_made"].sum() / m["n_taken"].sum())


def test_tarot_taker_hand_columns(tarot):
    """taker_value / taker_bouts describe the taker's dealt hand (before the chien)."""
    n, k, f, out, _ = tarot
    taker = f["taker"].to_numpy()
    value, held = f["taker_value"].to_numpy(), f["taker_bouts"].to_numpy()
    assert ((value == -1) == (taker < 0)).all() and ((held == -1) == (taker < 0)).all()
    bout_ids = {T.DECK.labels.index(x) for x in ("T1", "T21", "Excuse")}
    for i in np.flatnonzero(taker >= 0)[:300]:
        hand = [int(c) for c in out.dealt[i, taker[i]] if c >= 0]
        assert held[i] == len(bout_ids & set(hand))
        words = [np.uint64(0), np.uint64(0)]
        for c in hand:
            s = int(T.SLOT_OF_ID[c])
            words[s // 64] |= np.uint64(1) << np.uint64(s % 64)
        assert value[i] == T.hand_value(words[0], words[1])


def test_tarot_heuristic_bids_follow_the_hand_value():
    """All-heuristic bidders: a contract is taken exactly in its hand-value band."""
    k = T.TarotKnobs()
    f, _ = deals(T, k, 4, 3000, seed=3, pols=policies(4, mixed=False))
    g = f.filter(pl.col("taker") >= 0)
    v = g["taker_value"].to_numpy()
    c = g["contract"].to_physical().to_numpy()
    edges = np.array([k.bid_prise, k.bid_garde, k.bid_garde_sans, k.bid_garde_contre, 10**6])
    assert ((v >= edges[c]) & (v < edges[c + 1])).all()
    ms = named(T.GAME, f, k, "deal", "Tarot questions")
    assert not any(key.startswith("tarot.q2.score.vlt") for key in ms)  # nobody below Prise


# --- Président -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pres4():
    k = P.PresidentKnobs(deal_titles="random")
    f, _ = deals(P, k, 4, P_DEALS, pols=("heuristic",) * 4)
    m = matches(P, k, 4, P_MATCHES, pols=("heuristic",) * 4)
    return k, f, m


def transitions(f: pl.DataFrame, n: int, a: str, b: str) -> float:
    prev = np.stack([f[f"prev_title_s{i}"].cast(pl.String).to_numpy() for i in range(n)], 1)
    now = np.stack([f[f"title_s{i}"].cast(pl.String).to_numpy() for i in range(n)], 1)
    return ((prev == a) & (now == b)).sum() / (prev == a).sum()


def test_president_every_metric_has_n_and_a_finite_interval(pres4):
    k, f, m = pres4
    d = named(P.GAME, f, k, "deal", "Président questions")
    mm = named(P.GAME, m, k, "match", "Président questions")
    check_all_finite(d)
    check_all_finite(mm)
    assert all(key.startswith("president.") for key in [*d, *mm])
    for q in ("q1", "q3", "q6"):
        assert any(x.headline for key, x in d.items() if key.startswith(f"president.{q}.")), q
    assert any(x.headline for x in mm.values())
    roles = ("p", "vp", "vt", "t")
    assert {f"president.q1.{a}.to.{b}" for a in roles for b in roles} <= set(d)
    assert {"president.length.plays", "president.q3.leader.president",
            "president.q1.match.president_kept", "president.q1.match.trou_to_president"} \
        <= set(d) | set(mm)
    assert not any(".q5." in key for key in d)  # 4 players: equal hands
    assert P.balance_metrics(m, k, "deal") == []
    assert P.balance_metrics(f, k, "match") == []
    assert P.GAME.extra["metrics"] is P.balance_metrics


def test_president_values_match_direct_counts(pres4):
    k, f, m = pres4
    ms = named(P.GAME, f, k, "deal", "Président questions")
    titles = P.titles_for(4)
    for a in titles:  # each row of the transition matrix sums to 1
        row = [ms[f"president.q1.{P.TITLE_KEY[a]}.to.{P.TITLE_KEY[b]}"] for b in titles]
        assert abs(sum(x.estimate.value for x in row) - 1) < 1e-9
        for b, x in zip(titles, row, strict=True):
            close(x, transitions(f, 4, a, b))
    leader, pres = f["leader"].to_numpy(), f["president"].to_numpy()
    close(ms["president.q3.leader.president"], (leader == pres).mean())
    places = np.stack([f[f"place_s{i}"].to_numpy() for i in range(4)], 1)
    close(ms["president.q3.leader.place"], places[np.arange(f.height), leader].mean(), 1e-9)
    prev = np.stack([f[f"prev_title_s{i}"].cast(pl.String).to_numpy() for i in range(4)], 1)
    trou_place = places[prev == "trou_du_cul"]
    close(ms["president.q2.place.t"], trou_place.mean(), 1e-9)
    close(ms["president.q3.trou.top_half"], (trou_place <= 2).mean())
    close(ms["president.q6.skip_any"], (f["n_skips"].to_numpy() > 0).mean())
    close(ms["president.length.plays"], f["n_plays"].mean(), 1e-9)
    # match level: pooled over the deal-to-deal steps
    mm = named(P.GAME, m, k, "match", "Président questions")
    steps = (m["n_deals"] - 1).sum()
    close(mm["president.q1.match.president_kept"], m["president_repeats"].sum() / steps)
    close(mm["president.q1.match.trou_kept"], m["trou_repeats"].sum() / steps)
    close(mm["president.q1.match.trou_to_president"], m["trou_to_president"].sum() / steps)
    pres_deals = np.stack([m[f"president_deals_s{i}"].to_numpy() for i in range(4)], 1)
    close(mm["president.q1.match.top_share"],
          (pres_deals.max(axis=1) / m["n_deals"].to_numpy()).mean(), 1e-9)
    # a deal from random previous titles is one step of the match's role chain
    for deal_key, match_key in (("p.to.p", "president_kept"), ("t.to.t", "trou_kept"),
                                ("t.to.p", "trou_to_president")):
        a = ms[f"president.q1.{deal_key}"].estimate
        b = mm[f"president.q1.match.{match_key}"].estimate
        assert abs(a.value - b.value) < 3 * math.hypot(a.half_width, b.half_width) + 0.01


def test_president_first_deals_and_extra_cards():
    """Without previous titles there is no transition; at 5 players the seats dealt an
    extra card are counted."""
    k4 = P.PresidentKnobs()
    f4, _ = deals(P, k4, 4, 2000, pols=("heuristic",) * 4)
    d4 = named(P.GAME, f4, k4, "deal", "Président questions")
    check_all_finite(d4)
    assert not any(".q1." in key or ".q2." in key for key in d4)
    assert "president.q3.leader.president.first" in d4
    k5 = P.PresidentKnobs(players=5, deal_titles="random")
    f5, _ = deals(P, k5, 5, 3000, pols=("heuristic", "random") * 2 + ("heuristic",))
    d5 = named(P.GAME, f5, k5, "deal", "Président questions")
    check_all_finite(d5)
    assert "president.q1.n.to.n" in d5 and d5["president.q1.n.to.n"].kind == "rate"
    cards = np.stack([f5[f"cards_s{i}"].to_numpy() for i in range(5)], 1)
    extra = cards == cards.max(axis=1, keepdims=True)
    pres = f5["president"].to_numpy()
    close(d5["president.q5.extra.president"], extra[np.arange(f5.height), pres].mean())
    close(d5["president.q5.extra.share"], 2 / 5)
    places = np.stack([f5[f"place_s{i}"].to_numpy() for i in range(5)], 1)
    gap = (np.where(extra, places, 0).sum(1) / 2) - (np.where(extra, 0, places).sum(1) / 3)
    close(d5["president.q5.extra.place_gap"], gap.mean(), 1e-9)
    k6 = P.PresidentKnobs(players=6, deal_titles="random")
    f6, _ = deals(P, k6, 6, 2000, pols=("heuristic",) * 6)
    d6 = named(P.GAME, f6, k6, "deal", "Président questions")
    check_all_finite(d6)
    nn = d6["president.q1.n.to.n"]  # two Neutres: a share
    assert nn.kind == "mean" and nn.unit == "share"
    close(nn, transitions(f6, 6, "neutre", "neutre"))
