"""The Tarot 4 saisons and Tarot double détente catalogues' balance questions as metrics
(``balance_metrics`` of each game module): every metric is computed with n > 0 and a
finite interval (double détente at 2 and 3 players), and several values agree with direct
polars/numpy computations on the same frame."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from metric_checks import check_all_finite, close, named

from simlab.engine.game import to_frame
from simlab.games import tarot_4_saisons as S
from simlab.games import tarot_double_detente as D

S_DEALS, S_MATCHES, D_DEALS, D_MATCHES = 3000, 60, 1200, 60


def frame(mod, knobs, n, count, level, pols, seed=1) -> pl.DataFrame:
    if level == "deal":
        out = mod.run_deals(knobs, pols, seed, 0, count, False)
        return to_frame(out, mod.deal_columns(knobs), mod.DECK.labels, n)
    out = mod.run_matches(knobs, pols, seed, 0, count)
    return to_frame(out, mod.match_columns(knobs), mod.DECK.labels, n)


# --- Tarot 4 saisons -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saisons():
    # random bidders: simple bids and all-passes; cautious heuristic bidders (bid_base=36)
    # pass often enough that every metric has rows
    k = S.Tarot4SaisonsKnobs(bid_base=36)
    pols = ("heuristic", "random", "heuristic")
    return (k, frame(S, k, 3, S_DEALS, "deal", pols),
            frame(S, k, 3, S_MATCHES, "match", ("heuristic", "random", "random")))


def test_saisons_every_metric_has_n_and_a_finite_interval(saisons):
    k, f, m = saisons
    d = named(S.GAME, f, k, "deal", S.SECTION)
    mm = named(S.GAME, m, k, "match", S.SECTION)
    check_all_finite(d)
    check_all_finite(mm)
    assert all(key.startswith("t4s.q") for key in [*d, *mm])
    for q in ("q1", "q2", "q3", "q4", "q6", "q7"):
        assert any(x.headline for key, x in d.items() if key.startswith(f"t4s.{q}.")), q
    for q in ("q3", "q4", "q5"):
        assert any(x.headline for key, x in mm.items() if key.startswith(f"t4s.{q}.")), q
    assert {"t4s.q2.cf.simple", "t4s.q2.cf.clear", "t4s.q2.clear_pays", "t4s.q7.refused",
            "t4s.q6.share.resistance"} <= set(d)
    assert "simlab compare tarot_4_saisons" in d["t4s.q6.resistance"].note
    assert "allpass_carry_bonus=0" in mm["t4s.q4.match.all_pass"].note
    assert S.balance_metrics(m, k, "deal") == [] and S.balance_metrics(f, k, "match") == []
    assert S.GAME.extra["metrics"] is S.balance_metrics


def test_saisons_values_match_direct_counts(saisons):
    k, f, m = saisons
    ms = named(S.GAME, f, k, "deal", S.SECTION)
    g = f.filter(pl.col("taker") >= 0)
    made = g["made"].to_numpy()
    contract = g["contract"].cast(pl.String).to_numpy()
    taker = g["taker"].to_numpy()
    rows = np.arange(g.height)
    game = np.stack([g[f"game_s{i}"].to_numpy() for i in range(3)], axis=1).astype(float)
    net = game[rows, taker] - (game.sum(axis=1) - game[rows, taker]) / 2
    for c in S.CONTRACTS:
        sel = contract == c
        if sel.sum() >= 2:
            close(ms[f"t4s.q1.success.{c}"], made[sel].mean())
            close(ms[f"t4s.q1.net.{c}"], net[sel].mean(), 1e-6)
        else:
            assert f"t4s.q1.net.{c}" not in ms
    clear = g["clear"].to_numpy()
    tp = g["taker_points"].to_numpy()
    assert (~clear).sum() > 0
    close(ms["t4s.q2.clear"], clear.mean())
    close(ms["t4s.q2.doubled"], (made & (tp >= k.clear_threshold))[~clear].mean())
    # the clear version pays more exactly when the taker reaches the threshold (stakes
    # 2x simple < clear), capots aside
    cap = g["capot"].to_numpy()
    assert abs(ms["t4s.q2.clear_pays"].estimate.value
               - (tp >= k.clear_threshold).mean()) <= cap.mean() + 1e-9
    # 3. positions from the dealer
    s = np.stack([f[f"score_s{i}"].to_numpy() for i in range(3)], axis=1)
    dealer = f["dealer"].to_numpy()
    a = np.arange(f.height)
    p1, p0, p2 = s[a, (dealer + 1) % 3], s[a, dealer], s[a, (dealer + 2) % 3]
    close(ms["t4s.q3.score.pos1"], p1.mean(), 1e-6)
    close(ms["t4s.q3.top.pos1"], ((p1 > p0) & (p1 > p2)).mean())
    # 4. redeals
    assert f["all_pass"].sum() > 0
    close(ms["t4s.q4.all_pass"], f["all_pass"].mean())
    # 6. bonus shares, and the bonus columns' sum on dealings without contracts
    bonus = sum(f[f"bonus_s{i}"] for i in range(3)).to_numpy()
    total = s.sum(axis=1)
    close(ms["t4s.q6.share.bonus"], bonus.sum() / total.sum(), 1e-6)
    suites = sum(f[f"suites_s{i}"] for i in range(3)).to_numpy()
    close(ms["t4s.q6.share.suites"], k.suite_value * suites.sum() / total.sum(), 1e-6)
    plain = f.filter((pl.col("taker") >= 0)
                     & pl.all_horizontal([pl.col(f"contracts_s{i}") == 0 for i in range(3)]))
    res = sum(plain[f"resistance_s{i}"].fill_null(False).cast(pl.Int64) for i in range(3))

    def got(col: str) -> pl.Series:
        return (plain[col] >= 0).cast(pl.Int64)

    auto = (k.pab_auto * got("petit_au_bout_seat") + k.two_auto * got("deux_avant_dernier_seat")
            + k.quasi_auto * got("quasi_seat") + k.three_bouts * got("three_bouts_seat")
            + k.four_aces * got("four_aces_seat") + k.resistance_auto * res)
    assert plain.height > 20
    assert (sum(plain[f"bonus_s{i}"] for i in range(3)) == auto).all()
    # 7. options
    opt = g["rung"].cast(pl.String).is_in(["2+2", "1+1"]).to_numpy()
    used = g["option_used"].fill_null(False).to_numpy()
    refused = g["option_refused"].fill_null(False).to_numpy()
    close(ms["t4s.q7.option"], used[opt].mean())
    close(ms["t4s.q7.refused"], refused[opt & used].mean())
    # match level
    mm = named(S.GAME, m, k, "match", S.SECTION)
    close(mm["t4s.q4.match.all_pass"], m["n_all_pass"].sum() / m["n_deals"].sum())
    close(mm["t4s.q5.bar_moved"], (m["n_bar_moves"] > 0).mean())
    close(mm["t4s.q5.length"], m["n_deals"].mean(), 1e-9)
    close(mm["t4s.q3.match.win.pos1"],
          (m["winner"] == (m["first_dealer"] + 1) % 3).mean())


# --- Tarot double détente --------------------------------------------------------------------
@pytest.fixture(scope="module", params=[3, 2])
def detente(request):
    n = request.param
    k = D.DetenteKnobs(players=n, opt_modifications=True, opt_as_gagnant=True,
                       opt_tout_ou_rien=True)
    pols = ("heuristic", "random", "heuristic")[:n]
    f = frame(D, k, n, D_DEALS - D_DEALS % (5 - n) + 1, "deal", pols)  # last manche cut
    m = frame(D, k, n, D_MATCHES, "match", pols)
    return n, k, f, m


def test_detente_every_metric_has_n_and_a_finite_interval(detente):
    n, k, f, m = detente
    d = named(D.GAME, f, k, "deal", D.SECTION)
    mm = named(D.GAME, m, k, "match", D.SECTION)
    check_all_finite(d)
    check_all_finite(mm)
    assert all(key.startswith("tdd.q") for key in [*d, *mm])
    for q in ("q1", "q2", "q4", "q5", "q7") + (("q6",) if n == 2 else ()):
        assert any(x.headline for key, x in d.items() if key.startswith(f"tdd.{q}.")), q
    assert any(key.startswith("tdd.q6.") for key in d) == (n == 2)
    parts = 5 - n
    assert {f"tdd.q1.hit.part{q}" for q in range(1, parts + 1)} <= set(d)
    assert {f"tdd.q2.manche.top.pos{j}" for j in range(n)} <= set(d)
    assert {"tdd.q3.length", "tdd.q4.lead_changed", "tdd.q4.tor.success",
            "tdd.q1.match.hit"} <= set(mm)
    # without Modifications (nor declarations) those questions are left out
    plain = D.DetenteKnobs(players=n)
    f0 = frame(D, plain, n, 60, "deal", ("heuristic",) * n)
    assert not any(key.startswith("tdd.q5.") for key in named(D.GAME, f0, plain, "deal",
                                                              D.SECTION))
    assert D.balance_metrics(m, k, "deal") == [] and D.balance_metrics(f, k, "match") == []
    assert D.GAME.extra["metrics"] is D.balance_metrics


def test_detente_values_match_direct_counts(detente):
    n, k, f, m = detente
    parts = 5 - n
    part = "half" if n == 3 else "third"
    ms = named(D.GAME, f, k, "deal", D.SECTION)
    hits = np.stack([f[f"hit_s{i}"].to_numpy() for i in range(n)], axis=1)
    pc = f[part].to_numpy()
    dealer = f["dealer"].to_numpy()
    a = np.arange(f.height)
    close(ms["tdd.q1.hit"], hits.mean(), 1e-9)
    for q in range(1, parts + 1):
        close(ms[f"tdd.q1.hit.part{q}"], hits[pc == q].mean(), 1e-9)
    for j in range(n):
        close(ms[f"tdd.q1.hit.pos{j}"], hits[a, (dealer + j) % n].mean())
    aces = sum(f[f"as_gagnant_s{i}"] for i in range(n)).to_numpy()
    close(ms["tdd.q4.as_gagnant"], (aces > 0).mean())
    # manche totals by position from the 1st part's dealer, complete manches only
    s = [pl.col(f"score_s{i}") for i in range(n)]
    man = (f.group_by("manche").agg(pl.len().alias("len"), pl.col("dealer").first(),
                                    *[x.sum() for x in s],
                                    *[x.filter(pl.col(part) == 1).sum().alias(f"f{i}")
                                      for i, x in enumerate(s)])
           .filter(pl.col("len") == parts))
    assert man.height == f.height // parts
    tot = np.stack([man[f"score_s{i}"].to_numpy() for i in range(n)], axis=1)
    fst = np.stack([man[f"f{i}"].to_numpy() for i in range(n)], axis=1)
    md = man["dealer"].to_numpy()
    b = np.arange(man.height)
    left, dl = tot[b, (md + 1) % n], tot[b, md]
    close(ms["tdd.q2.manche.pos1"], left.mean(), 1e-6)
    close(ms["tdd.q2.manche.left_minus_dealer"], (left - dl).mean(), 1e-6)
    if n == 2:
        close(ms["tdd.q6.manche.first_wins"], (left > dl).mean())
    close(ms["tdd.q7.share.first"], fst.sum() / tot.sum(), 1e-6)
    def top(v: np.ndarray) -> np.ndarray:
        return (v == v.max(axis=1, keepdims=True)).sum(axis=1) == 1

    lead = top(fst)
    same = np.argmax(fst, axis=1) == np.argmax(tot, axis=1)
    close(ms["tdd.q7.first_leader_wins"], (same & top(tot))[lead].mean())
    mods = f["modifier"].cast(pl.String)
    rev = (mods == "reversed").fill_null(False).to_numpy()
    close(ms["tdd.q5.hit.reversed"], hits[rev].mean(), 1e-9)
    close(ms["tdd.q5.modifier.reversed"], rev[mods.is_not_null().to_numpy()].mean())
    # match level
    mm = named(D.GAME, m, k, "match", D.SECTION)
    hs = sum(m[f"hits_s{i}"] for i in range(n))
    close(mm["tdd.q1.match.hit"], hs.sum() / (m["n_manches"].sum() * parts * n), 1e-9)
    close(mm["tdd.q3.length"], m["n_manches"].mean(), 1e-9)
    close(mm["tdd.q4.lead_changed"], (m["lead_changes"] > 0).mean())
    assert m["n_tout_ou_rien"].sum() > 0
    assert (m["n_tout_ou_rien_made"] <= m["n_tout_ou_rien"]).all()
    close(mm["tdd.q4.tor.success"], m["n_tout_ou_rien_made"].sum()
          / m["n_tout_ou_rien"].sum(), 1e-9)
