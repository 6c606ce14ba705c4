"""Honest reports II (issue 33): positions by what the seat earns where sides change, no
zero-width interval, the balance metric's small-sample bias, labels."""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest

from simlab.analysis.metrics import (
    MetricDef,
    compute,
    estimate_of,
    position_balance_from,
    ratio_of_sums,
    sides_of,
)
from simlab.analysis.report import _metric_rows, findings
from simlab.analysis.sums import moments_of
from simlab.engine import stats
from simlab.engine.runner import execute, plan
from simlab.games import game_names, get_game

# games whose sides change from deal to deal (a taker against the rest), with the key of
# the Findings' position sentence and how it relates to the Balance section's figure
# (dealer+1's mean score minus the mean over positions): an exact multiple
MOVING = [
    ("mille", {}, "mille.q2.opener_minus_others", 1.5),  # vs the other two: 3/2 of it
    ("tarot", {}, "tarot.q3.score.pos1", 1.0),  # marks sum to 0: the mean is 0
    ("belote_noisette", {}, "noisette.q2.first_edge", 1.5),
    ("tarot_4_saisons", {}, "balance.first_seat_points", 1.0),  # the standard finding
    ("caisse", {}, None, None),
    ("bernicle", {}, None, None),
    ("manille", {"variant": "encheres"}, None, None),
]


@pytest.mark.parametrize("game,params,finding_key,factor", MOVING,
                         ids=[g if not p else f"{g}-{p['variant']}" for g, p, _, _ in MOVING])
def test_positions_by_points_where_sides_change(game, params, finding_key, factor):
    g = get_game(game)
    p = plan(get_game(game), 300, seed=5, params=params, jobs=1, progress=False)
    frame = execute(p)
    assert not sides_of(g, p.knobs).fixed
    ms = compute(g, frame, p.knobs, "deal")
    by = {m.key: m for m in ms.metrics}
    # no side win rate by position, which would mostly count how often a position takes
    assert not any(k.startswith("dealer_pos.win.") for k in by)
    assert "balance.first_seat_advantage" not in by and "balance.dealer_positions" not in by
    n = g.players(p.knobs)
    pos = [by[f"dealer_pos.score.{k}"] for k in range(n)]
    assert all(m.headline and m.estimate.n == frame.height for m in pos)
    # the Balance section's figure, from the frame directly
    scores = frame.select([pl.col(f"score_s{i}").cast(pl.Float64) for i in range(n)]).to_numpy()
    dealer = frame["dealer"].to_numpy()
    first = scores[np.arange(frame.height), (dealer + 1) % n]
    direct = float(first.mean() - scores.mean())
    got = by["balance.first_seat_points"]
    assert got.estimate.value == pytest.approx(direct, rel=1e-12, abs=1e-9)
    assert got.unit == "points" and got.section == "Balance"
    # the spread between positions names the best and the worst by their mean scores
    spread = by["balance.dealer_positions_points"]
    best = max(range(n), key=lambda k: pos[k].estimate.value)
    worst = min(range(n), key=lambda k: pos[k].estimate.value)
    names = ["dealer"] + [f"dealer+{k}" for k in range(1, n)]
    assert spread.title.endswith(f"here {names[best]} - {names[worst]}")
    assert 0 <= spread.estimate.lo <= spread.estimate.value <= spread.estimate.hi
    # the Findings' position sentence agrees in sign with the points
    if finding_key is not None:
        found = {f.key: f for f in findings(g, p, frame, ms, 0.95)}
        assert finding_key in found
        f = found[finding_key]
        assert by[finding_key].estimate.value == pytest.approx(factor * direct, rel=1e-9, abs=1e-9)
        if f.tested and f.diff != 0:
            assert math.copysign(1, f.diff) == math.copysign(1, direct)


def test_fixed_teams_keep_side_win_rates_and_quote_the_points():
    p = plan(get_game("belote"), 400, seed=5, jobs=1, progress=False)
    frame = execute(p)
    g = get_game("belote")
    ms = compute(g, frame, p.knobs, "deal")
    by = {m.key: m for m in ms.metrics}
    assert by["dealer_pos.win.1"].headline and not by["dealer_pos.score.1"].headline
    assert "balance.first_seat_points" in by and "balance.dealer_positions" in by
    assert "balance.dealer_positions_points" not in by  # the balance is on win rates here
    # Belote's question 2: tested against the decided deals' even split, with the margin
    f = next(x for x in findings(g, p, frame, ms, 0.95) if x.question == "2. Position")
    played = frame.filter((pl.col("taker") >= 0) & ~pl.col("litige"))
    dealers = ((pl.col("taker") - pl.col("dealer")) % 2 == 0)
    won = played.select(pl.when(dealers).then(pl.col("made")).otherwise(~pl.col("made")).mean()).item()
    assert by["belote.q2.win.dealer_team.decided"].estimate.value == pytest.approx(won, abs=1e-12)
    assert f.key == "belote.q2.win.dealer_team.decided" and "decided deals" in f.against_text
    assert "points" in f.text and "per deal more than" in f.text


# --- no zero-width interval -----------------------------------------------------------------
def _mean_def(unit: str = "points") -> MetricDef:
    return MetricDef("m", "m", "S", pl.col("x"), kind="mean", unit=unit)


def _estimate(d: MetricDef, frame: pl.DataFrame):
    from simlab.analysis.metrics import metric_moments

    return estimate_of(d, metric_moments(frame, [d])[0])


def test_a_mean_of_few_rows_says_too_few():
    e = _estimate(_mean_def(), pl.DataFrame({"x": [105] * 11}))
    assert e.status == stats.TOO_FEW_ROWS and math.isnan(e.lo) and e.n == 11
    assert _metric_rows([_metric(e)])[0][-3:] == ["too few", "too few rows (under 20)", "11"]


def _metric(e):
    from simlab.analysis.metrics import Metric

    return Metric(_mean_def(), e)


def test_equal_rows_never_print_x_x():
    ones = _estimate(_mean_def(unit="share"), pl.DataFrame({"x": [1.0] * 178}))
    wilson = stats.proportion(178, 178)
    assert (ones.lo, ones.hi) == (wilson.lo, wilson.hi) and ones.lo < 1.0
    same = _estimate(_mean_def(), pl.DataFrame({"x": [105] * 30}))
    assert same.status == stats.CONSTANT_ROWS and math.isnan(same.lo)
    row = _metric_rows([_metric(same)])[0]
    assert row[-2] == "none: every row equal" and "[105" not in " ".join(row)


def test_a_ratio_counts_its_qualifying_rows():
    # 50 deals, one qualifying player (Sept's "player dealt 3 wild cards"): n = 1, too few
    den = [1.0] + [0.0] * 49
    f = pl.DataFrame({"num": den, "den": den})
    d = MetricDef("r", "r", "S", ratio_of_sums(pl.col("num"), pl.col("den"), pl.lit(True)),
                  kind="mean", unit="share")
    e = _estimate(d, f)
    assert e.n == 1 and e.status == stats.TOO_FEW_ROWS


def test_fieller_interval_of_a_ratio():
    rng = np.random.default_rng(3)
    den = rng.integers(80, 200, 60).astype(float)
    num = np.where(rng.random(60) < 0.3, rng.integers(20, 100, 60), 0).astype(float)
    f = pl.DataFrame({"num": num, "den": den})
    d = MetricDef("r", "r", "S", ratio_of_sums(pl.col("num"), pl.col("den"), pl.lit(True)),
                  kind="mean", unit="share")
    e = _estimate(d, f)
    r = num.sum() / den.sum()
    assert e.value == pytest.approx(r)
    # Fieller's bounds solve (a - R b)^2 = t^2 var(a - R b) for the means a, b
    t = stats.t_ppf(0.975, 59)
    for bound in (e.lo,):  # the upper end: tests/test_ratio_interval.py
        z = num - bound * den
        assert abs(z.mean()) == pytest.approx(t * z.std(ddof=1) / math.sqrt(60), rel=1e-6)
    assert e.lo < r < e.hi


# --- the balance metric's small-sample bias ---------------------------------------------------
def test_balance_bias_correction_reduces_the_bias():
    """Four positions with true win rates 48, 50, 50, 52% (true gap 4 points), 300 rows:
    the raw largest gap overstates it; the corrected one is closer on average, and its
    interval (for the true gap) still covers."""
    rng = np.random.default_rng(11)
    truth = np.array([0.48, 0.5, 0.5, 0.52])
    raw, corrected, covered = [], [], 0
    for _ in range(200):
        x = (rng.random((300, 4)) < truth).astype(float)
        t = position_balance_from(moments_of(x))
        raw.append(t.gap)
        corrected.append(t.gap_corrected)
        covered += t.gap_lo <= 0.04 <= t.gap_hi
        assert t.gap_lo <= t.gap_corrected <= t.gap_hi
    bias_raw, bias_corr = np.mean(raw) - 0.04, np.mean(corrected) - 0.04
    assert bias_raw > 0.02  # the raw gap is biased high (measured: +2.9 points) ...
    assert abs(bias_corr) < bias_raw / 2  # ... the corrected one much less (+0.8)
    assert covered >= 190


def test_balance_note_gives_the_raw_figure():
    p = plan(get_game("belote"), 300, seed=2, jobs=1, progress=False)
    ms = compute(get_game("belote"), execute(p), p.knobs, "deal")
    bal = next(m for m in ms.metrics if m.key == "balance.dealer_positions")
    assert "bias-corrected" in bal.title and "as measured" in bal.note
    raw = float(re.search(r"as measured: 1 - gap = ([0-9.]+)%", bal.note)[1]) / 100
    assert bal.estimate.value >= raw - 1e-4  # less gap, more balance than measured


# --- every game's tables at small n: no [x, x], no unlabelled 100.00% [100.00%, 100.00%] --------
@pytest.mark.parametrize("game", game_names())
def test_no_zero_width_interval_in_any_games_tables(game):
    g = get_game(game)
    for level, n in (("deal", 60), ("match", 6)):
        p = plan(get_game(game), n, seed=7, level=level, jobs=1, progress=False)
        ms = compute(g, execute(p), p.knobs, level)
        for m, row in zip(ms.metrics, _metric_rows(ms.metrics), strict=True):
            interval = row[-2]
            got = re.fullmatch(r"\[(.+), (.+)\]", interval)
            if got:
                assert got[1] != got[2], f"{game} {level} {m.key}: {row}"
            if m.headline:
                assert not (row[-3] == "100.00%" and interval == "[100.00%, 100.00%]"), m.key
