"""The catalogues' balance questions as metrics (``balance_metrics`` of each game module):
every metric is computed with n > 0 and a finite interval, several values agree with
independent polars/numpy computations on the same frame, and the new match columns agree
with a brute-force replay of the score path."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from simlab.analysis.metrics import compute, evaluate
from simlab.engine.game import to_frame
from simlab.games import belote as B
from simlab.games import get_game
from simlab.games import manille as M

HEUR = ("heuristic",) * 4
MIXED = ("heuristic", "random", "heuristic", "random")
N_DEALS, N_MATCHES = 20_000, 2_000


def deals(mod, knobs, n=N_DEALS, seed=1, policies=HEUR) -> pl.DataFrame:
    out = mod.run_deals(knobs, policies, seed, 0, n, False)
    return to_frame(out, mod.deal_columns(knobs), mod.DECK.labels, 4)


def matches(mod, knobs, n=N_MATCHES, seed=1, policies=HEUR) -> pl.DataFrame:
    out = mod.run_matches(knobs, policies, seed, 0, n)
    return to_frame(out, mod.match_columns(knobs), mod.DECK.labels, 4)


@pytest.fixture(scope="module")
def bk() -> B.BeloteKnobs:
    return B.BeloteKnobs()


@pytest.fixture(scope="module")
def mk() -> M.ManilleKnobs:
    return M.ManilleKnobs()


@pytest.fixture(scope="module")
def b_deals(bk) -> pl.DataFrame:
    return deals(B, bk)


@pytest.fixture(scope="module")
def b_matches(bk) -> pl.DataFrame:
    return matches(B, bk)


@pytest.fixture(scope="module")
def m_deals(mk) -> pl.DataFrame:
    return deals(M, mk)


@pytest.fixture(scope="module")
def m_matches(mk) -> pl.DataFrame:
    return matches(M, mk)


def named(game, frame, knobs, level, section) -> dict:
    ms = compute(get_game(game), frame, knobs, level)
    return {m.key: m for m in ms.metrics if m.section == section}


def check_all_finite(ms: dict) -> None:
    assert ms
    for key, m in ms.items():
        # --precision reads headline half-widths as fractions: rates and shares only
        assert not m.headline or m.kind == "rate" or m.unit == "share", key
        e = m.estimate
        assert e.n > 0, key
        assert all(math.isfinite(x) for x in (e.value, e.lo, e.hi)), (key, e)
        assert e.lo <= e.value <= e.hi, (key, e)


def close(metric, value: float, tol: float = 1e-9) -> None:
    assert abs(metric.estimate.value - value) <= tol, (metric.key, metric.estimate.value, value)


# --- every named metric, at its level -------------------------------------------------------
BELOTE_DEAL_Q = ("q1", "q2", "q3", "q4")  # q6 (the Queen) is a comparison: no metric


def test_belote_every_metric_has_n_and_a_finite_interval(bk, b_deals, b_matches):
    d = named(B.GAME, b_deals, bk, "deal", "Belote questions")
    m = named(B.GAME, b_matches, bk, "match", "Belote questions")
    check_all_finite(d)
    check_all_finite(m)
    assert all(k.startswith("belote.q") for k in [*d, *m])
    for q in BELOTE_DEAL_Q:  # every question has a headline answer, at its level
        assert any(x.headline for k, x in d.items() if k.startswith(f"belote.{q}.")), q
    assert any(x.headline for k, x in m.items() if k.startswith("belote.q5."))
    assert not any(k.startswith("belote.q5.") for k in d)
    assert {"belote.q5.comeback", "belote.q5.length"} <= set(m)
    assert not any(k.startswith("belote.q6") or "compare" in x.title for k, x in d.items())
    # only the metrics whose columns exist: none of the deal ones on a match frame
    assert B.balance_metrics(b_matches, bk, "deal") == []
    assert B.balance_metrics(b_deals, bk, "match") == []
    assert len(B.balance_metrics(b_deals.drop("trick_points_s0"), bk, "deal")) == \
        len(d) - 4  # the four "flipped" metrics need the card points
    assert B.GAME.extra["metrics"] is B.balance_metrics


def test_manille_every_metric_has_n_and_a_finite_interval(mk, m_deals, m_matches):
    d = named(M.GAME, m_deals, mk, "deal", "Manille questions")
    m = named(M.GAME, m_matches, mk, "match", "Manille questions")
    check_all_finite(d)
    check_all_finite(m)
    for q, ms in (("q1", d), ("q2", d), ("q3", m)):
        assert any(x.headline for k, x in ms.items() if k.startswith(f"manille.{q}.")), q
    assert not any(k.startswith(("manille.q4", "manille.q5", "manille.q6")) for k in [*d, *m])
    assert "must_overplay_in_suit=false" in d["manille.q2.void"].note
    assert M.balance_metrics(m_matches, mk, "deal") == []
    assert M.balance_metrics(m_deals, mk, "match") == []
    assert M.GAME.extra["metrics"] is M.balance_metrics


# --- Belote: values against independent computations ---------------------------------------
def test_belote_deal_metrics_match_direct_counts(bk, b_deals):
    ms = named(B.GAME, b_deals, bk, "deal", "Belote questions")
    f = b_deals.filter(pl.col("taker") >= 0)
    n = f.height
    made, litige, capot = (f[c].to_numpy() for c in ("made", "litige", "capot"))
    # 3. outcome frequencies
    close(ms["belote.q3.dedans"], (~made & ~litige).sum() / n)
    close(ms["belote.q3.litige"], litige.sum() / n)
    close(ms["belote.q3.capot"], capot.sum() / n)
    taker = f["taker"].to_numpy()
    tricks = np.stack([f[f"tricks_s{i}"].to_numpy() for i in range(4)], axis=1)
    team_tricks = tricks[np.arange(n), taker] + tricks[np.arange(n), (taker + 2) % 4]
    close(ms["belote.q3.capot.takers"], (capot & (team_tricks == 8)).sum() / n)
    close(ms["belote.q3.capot.defence"], (capot & (team_tricks == 0)).sum() / n)
    assert ms["belote.q3.dedans"].estimate.n == n
    # 1. taker success by round and by the turned card's rank (card id % 8)
    rank = np.array([B.DECK.index(c) % 8 for c in f["turned_card"].to_list()])
    rnd = f["contract"].cast(pl.String).to_numpy()
    for r in ("round1", "round2"):
        close(ms[f"belote.q1.success.{r}"], made[rnd == r].mean())
        for name, sel in (("J", rank == B.RJ), ("9", rank == B.R9),
                          ("other", (rank != B.RJ) & (rank != B.R9))):
            close(ms[f"belote.q1.success.{r}.turned_{name}"], made[(rnd == r) & sel].mean())
            close(ms[f"belote.q1.success.turned_{name}"], made[sel].mean())
    # 4. announcements: ratio of sums, and the flips
    ann = (f["announce_t0"] + f["announce_t1"]).to_numpy()
    tot = (f["takers_total"] + f["defence_total"]).to_numpy()
    close(ms["belote.q4.share"], ann.sum() / tot.sum())
    close(ms["belote.q4.points"], ann.mean())
    # a flip: the outcome on the card points alone (made, dedans, litige) is not the
    # deal's outcome
    pts = np.stack([f[f"trick_points_s{i}"].to_numpy() for i in range(4)], axis=1)
    rows_f = np.arange(n)
    cards_t = pts[rows_f, taker] + pts[rows_f, (taker + 2) % 4]
    cards_d = pts[rows_f, (taker + 1) % 4] + pts[rows_f, (taker + 3) % 4]
    by_cards = np.sign(cards_t - cards_d)
    outcome = np.where(made, 1, np.where(litige, 0, -1))
    flip = by_cards != outcome
    close(ms["belote.q4.flipped"], flip.mean())
    close(ms["belote.q4.flipped.made"], (flip & made).mean())
    close(ms["belote.q4.flipped.failed"], (flip & (by_cards > 0)).mean())
    close(ms["belote.q4.flipped.litige"], (flip & ((by_cards == 0) | (outcome == 0))).mean())
    # the kernel's own column counts the turns to "made" and to "dedans" too
    assert flip.sum() >= 1 and (f["flipped_by_announcements"].to_numpy() <= flip).all()
    # 2. position, over all deals: marks of the dealer's team minus the other team's
    dealer = b_deals["dealer"].to_numpy()
    s = np.stack([b_deals[f"score_s{i}"].to_numpy() for i in range(4)], axis=1)
    rows = np.arange(b_deals.height)
    margin = s[rows, dealer] - s[rows, (dealer + 1) % 4]
    close(ms["belote.q2.margin.dealer_team"], margin.mean())
    # a played deal is won by the takers when made, by the defence when dedans, by
    # neither in a litige (as the standard metrics' sides count it)
    dealers_take = taker % 2 == f["dealer"].to_numpy() % 2
    dealers_win = np.where(made, dealers_take, ~litige & ~dealers_take)
    lefts_win = np.where(made, ~dealers_take, ~litige & dealers_take)
    close(ms["belote.q2.win.dealer_team"], dealers_win.mean())
    close(ms["belote.q2.win.left_team"], lefts_win.mean())
    assert (dealers_win & lefts_win).sum() == 0 and (~dealers_win & ~lefts_win).sum() == litige.sum()
    left = taker == (f["dealer"].to_numpy() + 1) % 4
    close(ms["belote.q2.take.left"], left.mean())
    close(ms["belote.q2.success.left"], made[left].mean())


def test_belote_thresholds_and_rank_split_with_random_play(bk):
    """Random bidding takes in round 2 often, and random play gives capots both ways."""
    f = deals(B, bk, n=5000, seed=4, policies=("random",) * 4)
    ms = named(B.GAME, f, bk, "deal", "Belote questions")
    check_all_finite(ms)
    assert ms["belote.q3.capot.defence"].estimate.value > 0
    assert ms["belote.q3.capot.takers"].estimate.value > 0
    a = ms["belote.q3.capot.takers"].estimate
    b = ms["belote.q3.capot.defence"].estimate
    close(ms["belote.q3.capot"], a.value + b.value)


def test_ratio_and_spread_are_computed_per_frame(bk, b_deals, b_matches):
    """The announcement share and the length spread use their own frame's aggregates, so
    definitions built on one run (as ``simlab compare`` does) are right on the other."""
    other = deals(B, B.BeloteKnobs(ann_tierce=50), n=4000, seed=9)
    defs = [d for d in B.balance_metrics(b_deals, bk, "deal") if d.key == "belote.q4.share"]
    (share,) = evaluate(other, defs)
    (own,) = evaluate(b_deals, defs)
    assert share.estimate.value > own.estimate.value  # tierces worth 50: a bigger share
    g = other.filter(pl.col("taker") >= 0)
    want = (g["announce_t0"] + g["announce_t1"]).sum() / (g["takers_total"]
                                                         + g["defence_total"]).sum()
    close(share, want)
    defs = [d for d in B.balance_metrics(b_matches, bk, "match") if d.key == "belote.q5.length.sd"]
    short = matches(B, B.BeloteKnobs(target=501), n=500, seed=3)
    (sd,) = evaluate(short, defs)
    close(sd, short["n_deals"].std(), 1e-9)
    (sd_all,) = evaluate(b_matches, defs)
    close(sd_all, b_matches["n_deals"].std(), 1e-9)


def test_belote_comeback_is_a_direct_count(bk, b_matches):
    ms = named(B.GAME, b_matches, bk, "match", "Belote questions")
    f = b_matches.filter(pl.col("winner") >= 0)
    w, lo = f["min_lead_of_winner"].to_numpy(), f["min_lead_of_loser"].to_numpy()
    behind = (w <= -300) | (lo <= -300)
    e = ms["belote.q5.comeback"].estimate
    assert e.n == behind.sum() > 100
    assert round(e.value * e.n) == (w <= -300).sum()
    close(ms["belote.q5.behind"], behind.mean())
    close(ms["belote.q5.winner_behind"], (w < 0).mean())
    close(ms["belote.q5.length"], f["n_deals"].mean())
    close(ms["belote.q5.played"], (f["n_deals"] - f["n_thrown_in"]).mean())
    close(ms["belote.q5.length.sd"], f["n_deals"].std(), 1e-9)


def score_paths(mod, knobs, policies, seed: int, count: int, longest: int) -> np.ndarray:
    """[count, longest + 1, 2] team scores after 0, 1, ... deals, replayed by stopping
    the same matches after j deals (max_deals = j: a stopped match reports its scores);
    NaN once the match is over."""
    path = np.full((count, longest + 1, 2), np.nan)
    path[:, 0] = 0
    for j in range(1, longest + 1):
        f = matches(mod, replace(knobs, max_deals=j), n=count, seed=seed, policies=policies)
        live = f["n_deals"].to_numpy() == j
        path[live, j, 0] = f["final_score_s0"].to_numpy()[live]
        path[live, j, 1] = f["final_score_s1"].to_numpy()[live]
    return path


@pytest.mark.parametrize("policies", [HEUR, MIXED])
def test_belote_min_leads_against_a_replay(policies):
    k = B.BeloteKnobs(target=501)
    count = 300
    m = matches(B, k, n=count, seed=5, policies=policies)
    assert not m["capped"].any()
    winner = m["winner"].to_numpy()
    f0, f1 = m["final_score_s0"].to_numpy(), m["final_score_s1"].to_numpy()
    loser_final = np.where(winner == 0, f1 - f0, f0 - f1)
    low_w, low_l = m["min_lead_of_winner"].to_numpy(), m["min_lead_of_loser"].to_numpy()
    assert (low_l <= 0).all() and (low_w <= 0).all()
    assert (low_l <= loser_final).all() and (loser_final < 0).all()
    path = score_paths(B, k, policies, 5, count, int(m["n_deals"].max()))
    diff = path[:, :, 0] - path[:, :, 1]  # team 0's lead after each deal
    low0, low1 = np.nanmin(diff, axis=1), np.nanmin(-diff, axis=1)
    assert (np.where(winner == 0, low0, low1) == low_w).all()
    assert (np.where(winner == 0, low1, low0) == low_l).all()
    assert (low_l < 0).all()  # a loser is behind at the end at least


# --- Manille ------------------------------------------------------------------------------------
def test_manille_deal_metrics_match_direct_counts(mk, m_deals):
    ms = named(M.GAME, m_deals, mk, "deal", "Manille questions")
    dealer_team = m_deals["dealer"].to_numpy() % 2
    win = m_deals["winning_team"].to_numpy()
    t0, t1 = m_deals["team_points_t0"].to_numpy(), m_deals["team_points_t1"].to_numpy()
    s0, s1 = m_deals["score_s0"].to_numpy(), m_deals["score_s1"].to_numpy()
    void = t0 == t1
    close(ms["manille.q2.void"], void.mean())
    close(ms["manille.q1.win.dealer_team"], (win == dealer_team)[~void].mean())
    close(ms["manille.q1.win.dealer_team.all"], (win == dealer_team).mean())
    close(ms["manille.q1.win.other_team.all"], (win == 1 - dealer_team).mean())
    close(ms["manille.q1.margin"], np.where(dealer_team == 0, s0 - s1, s1 - s0).mean())
    close(ms["manille.q1.margin.deal_points"], np.where(dealer_team == 0, t0 - t1, t1 - t0).mean())
    over = np.abs(t0 - t1)[~void] / 2
    close(ms["manille.q2.margin"], over.mean())
    close(ms["manille.q2.margin.sd"], over.std(ddof=1), 1e-9)
    close(ms["manille.q2.close"], (over <= M.CLOSE).mean())
    close(ms["manille.q2.lopsided"], (over >= M.LOPSIDED).mean())
    tricks0 = (m_deals["tricks_s0"] + m_deals["tricks_s2"]).to_numpy()
    close(ms["manille.q2.all_tricks"], ((tricks0 == 0) | (tricks0 == 8)).mean())
    assert ms["manille.q2.void"].estimate.n == N_DEALS


def test_manille_length_metrics(mk, m_matches):
    ms = named(M.GAME, m_matches, mk, "match", "Manille questions")
    assert not m_matches["capped"].any()
    n = m_matches["n_deals"].to_numpy()
    two = m_matches["two_in_a_row_first"].to_numpy()
    at = m_matches["two_in_a_row_deal"].to_numpy()
    close(ms["manille.q3.length"], n.mean())
    close(ms["manille.q3.length.sd"], n.std(ddof=1), 1e-9)
    close(ms["manille.q3.two_in_a_row_first"], two.mean())
    close(ms["manille.q3.length.two_in_a_row"], np.where(two, at, n).mean())
    assert ((at > 0) == two).all() and (at[two] >= 2).all() and (at[two] < n[two]).all()
    assert (at[~two] == -1).all()
    assert not m_matches["ended_by_two_in_a_row"].any()


@pytest.mark.parametrize("policies", [HEUR, MIXED])
def test_two_in_a_row_first_is_the_knobs_end(policies):
    """Same seed: the deals are identical until the earlier end, so the match played with
    two_in_a_row_end=true ends by two in a row exactly when the knob-off match says that
    end came first, at the deal it names, and the length metric predicts its length."""
    off = M.ManilleKnobs(target=60)
    on = M.ManilleKnobs(target=60, two_in_a_row_end=True)
    a = matches(M, off, n=1500, seed=12, policies=policies)
    b = matches(M, on, n=1500, seed=12, policies=policies)
    two = a["two_in_a_row_first"].to_numpy()
    assert 0.2 < two.mean() < 1  # both ends happen at this target
    assert (b["ended_by_two_in_a_row"].to_numpy() == two).all()
    assert (b["two_in_a_row_first"] == b["ended_by_two_in_a_row"]).all()
    at = a["two_in_a_row_deal"].to_numpy()
    assert (b["n_deals"].to_numpy() == np.where(two, at, a["n_deals"].to_numpy())).all()
    assert (b["two_in_a_row_deal"].to_numpy() == at).all()
    same = ~two  # matches not cut short are played identically
    assert (b["winner"].to_numpy()[same] == a["winner"].to_numpy()[same]).all()
    ms = named(M.GAME, a, off, "match", "Manille questions")
    close(ms["manille.q3.length.two_in_a_row"], b["n_deals"].mean())
    mb = named(M.GAME, b, on, "match", "Manille questions")
    close(mb["manille.q3.length"], b["n_deals"].mean())
    assert "two consecutive wins" in mb["manille.q3.length"].title


@pytest.mark.parametrize("policies", [HEUR, MIXED])
def test_two_in_a_row_against_a_replay(policies):
    k = M.ManilleKnobs(target=60)
    count = 300
    m = matches(M, k, n=count, seed=21, policies=policies)
    n = m["n_deals"].to_numpy()
    path = score_paths(M, k, policies, 21, count, int(n.max()))
    want = np.full(count, -1)
    for i in range(count):
        run_team, run = -1, 0
        for j in range(1, n[i] + 1):
            gain = path[i, j] - path[i, j - 1]
            team = 0 if gain[0] > 0 else 1 if gain[1] > 0 else -1
            run = run + 1 if team == run_team and team >= 0 else (1 if team >= 0 else 0)
            run_team = team
            if run >= 2 and (path[i, j] < k.target).all():
                want[i] = j
                break
    assert (m["two_in_a_row_deal"].to_numpy() == want).all()
    assert (m["two_in_a_row_first"].to_numpy() == (want > 0)).all()
