"""Issue 33, second pass ("Honest reports II"): what a reader of a report sees. Match-level
position findings quote a points margin; findings' figure labels read as English; figures
leave out metrics with too few rows; whole reports at small n never print a headline
[100.00%, 100.00%] unless it is true by construction."""

from __future__ import annotations

import contextlib
import io
import re

import polars as pl
import pytest

from simlab.analysis import report
from simlab.analysis.metrics import compute
from simlab.cli.commands import main
from simlab.games import get_game


def _match_metric(slug: str, frame: pl.DataFrame, key: str):
    ms = compute(get_game(slug), frame, {}, "match")
    return next(m for m in ms.metrics if m.key == key)


def _finding_text(slug: str, key: str) -> str:
    return next(f["text"] for f in report.raw_findings(get_game(slug))
                if f["key"] == key)


def test_frappe_match_finding_quotes_the_first_dealers_points_margin():
    """The first dealer's final score minus the other's, whichever seat dealt first: +41,
    +21 and -31 in three hand-built matches (mean 31/3), repeated to 30 matches."""
    frame = pl.DataFrame({"first_dealer": [0, 1, 0] * 10, "winner": [0, 0, 1] * 10,
                          "final_score_s0": [61, 40, 30] * 10,
                          "final_score_s1": [20, 61, 61] * 10})
    m = _match_metric("frappe", frame, "frappe.q1.match_margin")
    assert m.estimate.value == pytest.approx(31 / 3) and m.estimate.n == 30
    assert m.estimate.lo < 31 / 3 < m.estimate.hi
    assert "{frappe.q1.match_margin}" in _finding_text("frappe", "match.win_pos.0")


def test_noisette_match_finding_quotes_the_first_lefts_margin_in_match_points():
    """First dealer 2, so his left is seat 0: 6 - (3 + 1) / 2 = 4 match points; first
    dealer 0 (left: seat 1): 2 - (6 + 4) / 2 = -3; a capped match is left out."""
    frame = pl.DataFrame({"first_dealer": [2, 0, 1] * 10, "winner": [0, 2, -1] * 10,
                          "match_points_s0": [6, 6, 9] * 10, "match_points_s1": [3, 2, 9] * 10,
                          "match_points_s2": [1, 4, 9] * 10})
    m = _match_metric("belote_noisette", frame, "noisette.q4.first_left_margin")
    assert m.estimate.value == pytest.approx((4 - 3) / 2) and m.estimate.n == 20
    assert "{noisette.q4.first_left_margin}" in _finding_text("belote_noisette", "match.win_pos.1")


def test_bernicle_match_finding_quotes_the_first_lefts_margin():
    """First dealer 1, his left seat 2: 2000 - (1500 + 900) / 2 = 800; first dealer 2, his
    left seat 0: 700 - (2100 + 1200) / 2 = -950."""
    frame = pl.concat([pl.DataFrame({"first_dealer": [1, 2], "winner": [2, 1],
                                     "final_score_s0": [1500, 700],
                                     "final_score_s1": [900, 2100],
                                     "final_score_s2": [2000, 1200]})] * 12)
    m = _match_metric("bernicle", frame, "bernicle.q4.margin.first_left")
    assert m.estimate.value == pytest.approx((800 - 950) / 2) and m.estimate.n == 24
    assert "{bernicle.q4.margin.first_left}" in _finding_text("bernicle", "bernicle.q4.win.first_left")


def test_a_control_runs_reference_reads_as_a_figure_label():
    """Mille's bomb finding is tested against "on the same deals without bombs": its label
    in the findings figure was "against on the same deals ..."."""
    assert report.against_label("on the same deals without bombs (bombs_per_match = 0)") == \
        "against the same deals without bombs (bombs_per_match = 0)"
    assert report.against_label("in the same matches without zero-bar penalties") == \
        "against the same matches without zero-bar penalties"
    assert report.against_label("the others' mark") == "against the others' mark"
    assert report.against_label("an even 50%") == "against an even 50%"


def test_a_finding_against_a_metric_of_too_few_rows_is_not_tested():
    """Mille at 60 deals: 64% of contracts at 100 made against 1 of 1 above 120 was
    'a difference of -36 points [-53, -18]' (the single row's rate had no spread);
    now neither side may have fewer rows than a test needs."""
    from simlab.analysis.metrics import Metric, MetricDef
    from simlab.engine.stats import proportion

    def rate(key: str, k: int, n: int) -> Metric:
        return Metric(MetricDef(key, key, "Q", pl.lit(True)), proportion(k, n))

    spec = report.FindingSpec("1. Taker success", "q.low", "Low bids make {q.low}",
                              against="q.high", against_text="", difference="low minus high")
    few = report._finding(spec, {"q.low": rate("q.low", 16, 25), "q.high": rate("q.high", 1, 1)},
                          3, None)
    assert not few.tested and "too few rows to test: n = 25 and 1" in few.sentence(0.05)
    enough = report._finding(spec, {"q.low": rate("q.low", 16, 25),
                                    "q.high": rate("q.high", 30, 30)}, 3, None)
    assert enough.tested and enough.diff < 0 and "difference of" in enough.sentence(0.05)


# --- whole reports at small n, as a reader gets them ---------------------------------------
# Representative games: fixed teams with decided deals (Belote), sides that change with a
# control run (Mille), a game played without a taker (Caisse), a match level (Frappe).
WHOLE = [("belote", "deal", 60), ("mille", "deal", 60), ("caisse", "deal", 60),
         ("frappe", "match", 8)]
_SAME_BOUNDS = re.compile(r"\[([^\[\],]+), \1\]")


@pytest.mark.parametrize("game,level,n", WHOLE)
def test_a_whole_small_report_never_prints_a_degenerate_interval(tmp_path, game, level, n):
    """``simlab report GAME -n 60 --players-n 0``: every table, finding and caption of
    report.md has no [x, x] interval (100.00% [100.00%, 100.00%] included) unless its line
    says it is true by construction, no nan or inf, and every figure it shows exists."""
    out = tmp_path / game
    args = ["report", game, "-n", str(n), "--level", level, "--players-n", "0", "--jobs", "1",
            "--no-progress", "--out", str(out)]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {get_game(game).title}") and "## Findings" in text
    for line in text.splitlines():
        if "by construction" in line:
            continue
        assert not _SAME_BOUNDS.search(line), line
        assert not re.search(r"\b(nan|inf)\b", line, re.IGNORECASE), line
    for figure in re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", text):
        assert (out / figure).stat().st_size > 1000, figure
    assert (out / "report.html").stat().st_size > len(text)


def test_figures_show_too_few_and_equal_rows_for_what_they_are():
    """A mean of too few rows gets no dot (a dot without a whisker would look certain) but
    says "too few rows"; one whose rows are all equal is labelled so; nothing crashes."""
    import math

    from simlab.analysis import plots
    from simlab.analysis.metrics import Metric, MetricDef
    from simlab.engine.stats import CONSTANT_ROWS, TOO_FEW_ROWS, Estimate

    def mean(key: str, e: Estimate) -> Metric:
        return Metric(MetricDef(key, f"mean score, {key}", "S", pl.lit(1.0), kind="mean",
                                unit="points"), e)

    ms = [mean("a", Estimate(2.0, 1.5, 2.5, 400, "mean")),
          mean("b", Estimate(9.0, math.nan, math.nan, 7, "mean", status=TOO_FEW_ROWS)),
          mean("c", Estimate(3.0, math.nan, math.nan, 50, "mean", status=CONSTANT_ROWS))]
    fig = plots.estimates_dots(ms, "scores")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "too few rows (n = 7)" in texts and any("every row equal" in t for t in texts)
    dots = [line.get_xdata()[0] for line in ax.lines if line.get_marker() == "o"]
    assert sorted(dots) == [2.0, 3.0]  # no dot at 9 for the too-few mean
    assert ax.get_xlim()[1] < 9.0  # nor room made for it


def test_the_terminal_tables_say_too_few_and_every_row_equal_as_the_report_does():
    """``simlab run``'s metric table and ``compare``'s A / B columns: a mean of too few rows
    prints "too few", not a bare number; equal rows say so instead of an interval."""
    import math

    from simlab.cli.analysis import _fmt_est
    from simlab.engine.stats import CONSTANT_ROWS, TOO_FEW_ROWS, Estimate

    few = Estimate(0.733, math.nan, math.nan, 15, "mean", status=TOO_FEW_ROWS)
    assert _fmt_est(few, "points") == ["too few", "too few rows (under 20)", "15"]
    equal = Estimate(3.0, math.nan, math.nan, 40, "mean", status=CONSTANT_ROWS)
    assert _fmt_est(equal, "points") == ["3.000", "every row equal", "40"]
    assert _fmt_est(Estimate(3.0, 2.5, 3.5, 40, "mean"), "points") == \
        ["3.000", "[2.500, 3.500]", "40"]


@pytest.mark.parametrize("slug,forced", [("mille", True), ("belote_noisette", True),
                                         ("tarot", False)])
def test_no_taker_is_no_choice_where_the_rules_force_a_taker(slug, forced):
    """Mille's headline read 'no taker (all deals) (a player's choice) 0.000%': its rules
    force a taker, so the figure is 0 by construction, said so, and no headline."""
    from simlab.analysis.metrics import game_defs

    g = get_game(slug)
    n = g.players(g.make_knobs())
    frame = pl.DataFrame({"taker": [0, 1], "dealer": [0, 1], "made": [True, False],
                          **{f"score_s{i}": [1, 2] for i in range(n)}})
    d = next(d for d in game_defs(g, frame, g.make_knobs(), "deal")
             if d.key == "contract.nobody_takes")
    assert (d.choice, d.headline) == ((False, False) if forced else (True, True))
    assert ("by construction" in d.note) is forced
