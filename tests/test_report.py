"""Reports and their figures, on small Belote runs (a few seconds in all)."""

from __future__ import annotations

import re

import matplotlib
import polars as pl
import pytest
from matplotlib.figure import Figure

import simlab
from simlab.analysis import plots
from simlab.analysis.compare import compare_runs, sweep
from simlab.analysis.metrics import MetricSet, compute
from simlab.analysis.report import _slug, write_report
from simlab.engine.runner import execute, plan
from simlab.games import get_game

N_DEALS = 6_000
N_MATCHES = 150


@pytest.fixture(scope="module")
def deal_run():
    p = plan(get_game("belote"), N_DEALS, seed=3)
    frame = execute(p)
    return p, frame, compute(p.game, frame, p.knobs, p.level)


@pytest.fixture(scope="module")
def deal_report(deal_run, tmp_path_factory):
    p, frame, ms = deal_run
    out = write_report(tmp_path_factory.mktemp("deal"), game=p.game, plan=p, frame=frame,
                       seconds=1.25, metric_set=ms, notes=["a test note"])
    return out, ms


@pytest.fixture(scope="module")
def identical_comparison():
    return compare_runs(get_game("belote"), 5_000, seed=1)


@pytest.fixture(scope="module")
def small_sweep():
    return sweep(get_game("belote"), 5_000, {"take_threshold_1": ["6", "8"]}, seed=2)


def headings(md: str) -> list[str]:
    return [line.lstrip("#").strip() for line in md.splitlines() if line.startswith("#")]


def figure_links(md: str) -> list[str]:
    return re.findall(r"!\[[^\]]*\]\((figures/[^)]+)\)", md)


def test_agg_backend_is_used():
    fig = plots.match_length(pl.DataFrame({"n_deals": [3, 4, 4, 5]}))
    assert type(fig.canvas).__name__ == "FigureCanvasAgg"
    assert matplotlib.get_backend()  # importing simlab.analysis.plots opens no window


# --- a deal-level report ------------------------------------------------------------------
def test_deal_report_sections_and_files(deal_report):
    out, ms = deal_report
    md = (out / "report.md").read_text(encoding="utf-8")
    heads = headings(md)
    for h in ("Findings", "What was simulated", "Headline answers", "Score distributions",
              "Method", "Files"):
        assert h in heads
    for section in ms.by_section():  # standard and game-specific sections alike
        assert section in heads
    assert "Match length" not in heads and not any(h.startswith("Comparison") for h in heads)
    assert heads.index("Findings") < heads.index("What was simulated") \
        < heads.index("Headline answers") < heads.index("Seats")
    links = figure_links(md)
    assert len(links) == len(set(links))
    for name in ("findings", "seat-win", "seat-score", "dealer-pos-win", "contract-taker-pos",
                 "scores"):
        assert f"figures/{name}.png" in links
    for link in links:
        assert (out / link).is_file() and (out / link).stat().st_size > 1000
    assert sorted(f.name for f in (out / "figures").iterdir()) == sorted(x.split("/")[1] for x in links)
    assert "a test note" in md
    assert "Belote (`belote`)" in md  # title and slug
    assert "| seed | 3 |" in md and f"{N_DEALS:,} deals" in md
    assert "none: the defaults (the rulebook as printed where it is clear and playable)" in md
    assert simlab.__version__ in md


def test_deal_report_headline_and_intervals(deal_report):
    out, ms = deal_report
    md = (out / "report.md").read_text(encoding="utf-8")
    head = md.split("## Headline answers")[1].split("\n## ")[0]
    for m in ms.headline():
        assert m.title in head
    # every table row of a metric has an interval and an n
    for m in ms.metrics:
        shown = m.title + (" *(a player's choice)*" if m.definition.choice else "")
        rows = [r for r in md.splitlines() if r.startswith(f"| {shown} |")]
        assert rows, m.title
        if m.estimate.n:
            assert f"{m.estimate.n:,}" in rows[0] and "[" in rows[0]


def test_html_is_self_contained(deal_report):
    out, ms = deal_report
    html = (out / "report.html").read_text(encoding="utf-8")
    srcs = re.findall(r"""src\s*=\s*["']?([^"' >]+)""", html, flags=re.I)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert not re.search(r"<link\b|@import|url\(", html, flags=re.I)
    assert len(srcs) == len(list((out / "figures").glob("*.png")))
    import html as _html

    for m in ms.headline():
        assert _html.escape(m.title) in html
    assert "<table>" in html and "<style>" in html


def test_results_parquet_has_provenance(deal_report, deal_run):
    out, _ = deal_report
    p, frame, _ = deal_run
    back = pl.read_parquet(out / "results.parquet")
    assert back.equals(frame)
    prov = simlab.read_provenance(out / "results.parquet")
    assert prov["game"] == "belote" and prov["n"] == N_DEALS and prov["seed"] == 3
    assert prov["knobs"] == p.knobs.as_dict() and prov["level"] == "deal"


def test_report_rewrite_removes_stale_figures(deal_run, tmp_path):
    p, frame, ms = deal_run
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "old.png").write_bytes(b"x")
    write_report(tmp_path, game=get_game("belote"), plan=p, frame=frame, seconds=0.5,
                 metric_set=MetricSet(ms.metrics[:2]))
    assert not (tmp_path / "figures" / "old.png").exists()


# --- match level ---------------------------------------------------------------------------
def test_match_report_has_match_length(tmp_path):
    p = plan(get_game("belote"), N_MATCHES, seed=4, level="match")
    frame = execute(p)
    out = write_report(tmp_path, game=p.game, plan=p, frame=frame, seconds=2.0)
    md = (out / "report.md").read_text(encoding="utf-8")
    heads = headings(md)
    assert "Match length" in heads and "Match" in heads
    assert "figures/match-length.png" in figure_links(md)
    assert (out / "figures" / "match-length.png").is_file()
    assert "final scores per match" in md
    assert simlab.read_provenance(out / "results.parquet")["level"] == "match"


# --- comparison -----------------------------------------------------------------------------
def test_identical_comparison_report(identical_comparison, tmp_path):
    c = identical_comparison
    out = write_report(tmp_path, game=c.game, plan=c.plan_a, frame=c.frame_a, seconds=1.0,
                       comparison=c)
    md = (out / "report.md").read_text(encoding="utf-8")
    sec = md.split("## Comparison")[1].split("\n## ")[0]
    assert "No significant difference at the 5% level after Holm's correction" in sec
    assert "differ significantly" not in sec
    assert "same 5,000 deals" in sec
    table = sec.split("| metric | section |")[1].split("\n\n")[0]
    rows = [r for r in table.splitlines() if r.startswith("| ")]
    assert len(rows) == len(c.rows) > 10
    marks = []
    for r in rows:
        cells = [x.strip() for x in r.strip("|").split("|")]
        assert cells[4].startswith("0") and cells[-1] in ("no", "n/a")  # B − A, significant
        marks.append(cells[-1])
    # "n/a" only for a metric with too few deals to test (e.g. 2 round-2 takes on a Jack)
    too_few = [r for r in c.rows if r.diff.status and r.diff.status != "identical"]
    assert marks.count("n/a") == len(too_few) < len(rows) / 10
    assert "figures/compare-forest.png" in figure_links(md)
    assert simlab.read_provenance(out / "results_b.parquet")["seed"] == 1


def test_significant_difference_is_reported(tmp_path):
    c = compare_runs(get_game("belote"), 5_000, b={"queen_points": 5}, seed=1)
    few = MetricSet(compute(c.game, c.frame_a, c.plan_a.knobs, "deal").metrics[:2])
    out = write_report(tmp_path, game=c.game, plan=c.plan_a, frame=c.frame_a, seconds=1.0,
                       comparison=c, metric_set=few)
    md = (out / "report.md").read_text(encoding="utf-8")
    sig = c.significant()
    assert sig  # more points for the Queen: higher mean scores
    assert f"{len(sig)} of " in md and "No significant difference" not in md
    assert "`queen_points = 5`" in md


# --- sweep ----------------------------------------------------------------------------------
def test_sweep_report_has_a_curve_per_headline_metric(small_sweep, tmp_path):
    s = small_sweep
    p = s.points[0].plan
    out = write_report(tmp_path, game=s.game, plan=p, frame=execute(p), seconds=1.0,
                       metric_set=MetricSet(s.points[0].metrics.metrics[:2]), sweep=s)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Sweep" in headings(md)
    head = s.points[0].metrics.headline()
    sweep_links = [x for x in figure_links(md) if x.startswith("figures/sweep-")]
    assert len(sweep_links) == len(head) > 0
    for m in head:
        assert f"figures/{_slug('sweep-' + m.key)}.png" in sweep_links
    sec = md.split("## Sweep")[1].split("\n## ")[0]
    for m in head:  # one table row per metric and grid point
        assert sum(1 for r in sec.splitlines() if r.startswith(f"| {m.title} |")) == len(s.points)


def test_sweep_report_opens_with_findings(small_sweep, tmp_path):
    """A sweep's report (every grid point its own run, so no frame) opens with its findings:
    per headline metric its lowest and highest point, and whether their intervals are
    apart; the nobody-takes rate moves with the first-round threshold (6 -> 8)."""
    s = small_sweep
    out = write_report(tmp_path, game=s.game, plan=s.points[0].plan, frame=None, seconds=1.0,
                       sweep=s)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert headings(md)[1:3] == ["Findings", "What was simulated"]
    sec = md.split("## Findings")[1].split("\n## ")[0]
    head = {m.key: m for m in s.points[0].metrics.headline() if m.estimate.n > 0}
    for m in head.values():
        assert f"**{m.title[:1].upper() + m.title[1:]}.**" in sec
    takes = [p.metrics.metrics for p in s.points]
    low, high = sorted((next(m.estimate for m in ms if m.key == "contract.nobody_takes")
                        for ms in takes), key=lambda e: e.value)
    line = next(x for x in sec.splitlines() if x.startswith("**No taker"))
    assert "take_threshold_1=6, highest" in line and line.endswith("across the grid.")
    assert low.hi < high.lo
    moved = sum(1 for x in sec.splitlines() if x.endswith("a clear change across the grid."))
    assert f"{moved} of {len(head)} headline metrics clearly move" in sec


# --- the plot functions ----------------------------------------------------------------------
def labelled(fig: Figure) -> None:
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert axes
    assert (fig.get_suptitle() or axes[0].get_title()).strip()
    for ax in axes:
        xlabel = ax.get_xlabel() or fig.get_supxlabel()
        ylabel = ax.get_ylabel() or fig.get_supylabel()
        categories = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert xlabel.strip()
        assert ylabel.strip() or categories  # a category axis is labelled by its ticks


def test_plot_functions_return_labelled_figures(deal_run, identical_comparison, small_sweep):
    p, frame, ms = deal_run
    by = ms.by_section()
    seats = [m for m in by["Seats"] if m.key.startswith("seat.win.")]
    fig = plots.estimates_bar(seats, "deal win rate by seat")
    labelled(fig)
    assert fig.axes[0].get_ylabel() == "rate (%)"
    means = [m for m in by["Seats"] if m.key.startswith("seat.score.")]
    labelled(plots.estimates_bar(means, "mean score by seat", "points per deal"))
    long = [m for m in by["Contracts"] if m.kind == "rate"]  # many bars: horizontal
    labelled(plots.estimates_bar(long, "contracts"))
    with pytest.raises(ValueError):
        plots.estimates_bar(seats + means, "mixed")
    labelled(plots.score_histograms(frame, 4))
    labelled(plots.compare_forest(identical_comparison, max_rows=12))
    key = small_sweep.points[0].metrics.headline()[0].key
    labelled(plots.sweep_curves(small_sweep, key))
    labelled(plots.match_length(pl.DataFrame({"n_deals": [10, 12, 12, 15, 20]})))
    with pytest.raises(ValueError):
        plots.match_length(frame)


def test_score_histograms_merge_partners(deal_run):
    _, frame, _ = deal_run
    assert plots.score_groups(frame, 4) == [[0, 2], [1, 3]]
    assert len([ax for ax in plots.score_histograms(frame, 4).axes if ax.get_visible()]) == 2
    solo = frame.with_columns(pl.col("score_s2") + 1)
    assert plots.score_groups(solo, 4) == [[0], [1, 3], [2]]


def test_short_labels():
    assert plots.short_labels(["deal win rate, seat 0", "deal win rate, seat 1"]) == (
        "deal win rate", ["seat 0", "seat 1"])
    assert plots.short_labels(["taker is dealer", "taker is dealer+1"]) == (
        "taker is", ["dealer", "dealer+1"])
    assert plots.short_labels(["abc", "abd"]) == ("", ["abc", "abd"])


def test_sweep_curves_two_knobs():
    s = sweep(get_game("belote"), 2_000, {"take_threshold_1": ["6", "8"], "queen_points": ["3", "5"]}, seed=5)
    fig = plots.sweep_curves(s, "contract.success")
    labelled(fig)
    ax = fig.axes[0]
    assert len(ax.get_legend().get_texts()) == 2  # one line per value of the other knob
    with pytest.raises(ValueError):
        plots.sweep_curves(s, "no.such.metric")


def test_comparison_report_says_what_the_intervals_are(tmp_path):
    c = compare_runs(get_game("belote"), 3_000, b={"take_threshold_1": 9}, seed=6)
    out = write_report(tmp_path, game=c.game, plan=c.plan_a, frame=c.frame_a, seconds=1.0,
                       comparison=c, metric_set=MetricSet([]))
    sec = (out / "report.md").read_text(encoding="utf-8").split("## Comparison")[1].split("\n## ")[0]
    assert "**Intervals:** intervals are unadjusted 95% intervals" in sec
    assert f"over the {len(c.tested())} distinct, estimable metrics" in sec
    assert "(unadjusted)" in sec and "n (A / B)" in sec
    row = next(r for r in sec.splitlines() if r.startswith("| taker success rate |"))
    success = next(x for x in c.rows if x.key == "contract.success").diff
    assert f"{success.n_a:,} / {success.n_b:,}" in row  # each variant's own number of takes
    assert "= mean score per deal, seat 0" in sec  # seat 2 is the same hypothesis


def test_balance_metric_has_a_valid_interval_and_a_test(deal_run):
    _, _, ms = deal_run
    bal = next(m for m in ms.metrics if m.key == "balance.dealer_positions")
    e = bal.estimate
    assert e.lo < e.value <= e.hi <= 1 and "positions equal: p = " in bal.note


def test_inline_markup_renders_bold_and_italics_but_not_arithmetic():
    from simlab.analysis.report import _inline

    assert _inline("nobody takes *(a player's choice)*") == \
        "nobody takes <em>(a player&#x27;s choice)</em>"
    assert _inline("**warning**: x") == "<strong>warning</strong>: x"
    assert _inline("2 * 3 * 4") == "2 * 3 * 4" and _inline("a*b*c") == "a*b*c"
    assert _inline("`*x*`") == "<code>*x*</code>"


def test_the_players_line_says_so_when_no_check_was_decided():
    """'0 of 0 health checks pass' told a reader nothing (La batouille's report said it)."""
    from simlab.analysis.players_check import Check, PlayersCheck
    from simlab.analysis.report import _players_sentence

    none = PlayersCheck(("heuristic",) * 2, checks=[Check("heuristic beats random", "+0.06", None)])
    assert _players_sentence(none, None).startswith("**Players.** No health check of these "
                                                    "players could be decided at this sample.")
    one = PlayersCheck(("heuristic",) * 2, checks=[Check("caps", "0.0%", True),
                                                   Check("ties", "x", False, warning="w")])
    assert _players_sentence(one, None).startswith("**Players.** 1 of 2 health checks of the "
                                                   "players pass: **warning**: ties (w)")
