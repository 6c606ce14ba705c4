"""The report's Findings (one sentence per balance question, Holm over their tests),
honest labels and readable figures (issue 11, items 2-4)."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import polars as pl
import pytest

from simlab.analysis import plots
from simlab.analysis.metrics import Metric, MetricDef, compute
from simlab.analysis.report import (
    FindingSpec,
    _Doc,
    _finding,
    _method,
    finding_specs,
    findings,
    fmt_estimate,
    fmt_value,
    write_report,
)
from simlab.analysis.report_sums import paired_moments
from simlab.engine.runner import execute, plan
from simlab.engine.stats import Estimate, proportion
from simlab.games import get_game
from simlab.games.president.questions import extra_seats_place


def metric(key: str, e: Estimate, unit: str = "") -> Metric:
    return Metric(MetricDef(key, key, "S", pl.lit(True), kind=e.kind, unit=unit), e)


@pytest.fixture(scope="module")
def belote_report(tmp_path_factory):
    p = plan(get_game("belote"), 6_000, seed=11)
    frame = execute(p)
    ms = compute(p.game, frame, p.knobs, p.level)
    out = write_report(tmp_path_factory.mktemp("belote"), game=p.game, plan=p, frame=frame,
                       seconds=1.0, metric_set=ms)
    return out, p, frame, ms


# --- the findings' tests --------------------------------------------------------------------
def test_rate_against_a_value_uses_the_score_test():
    e = proportion(48_900, 100_000)
    f = _finding(FindingSpec("2. Position", "x", "The side wins {x}", against=0.5,
                             against_text="an even 50%"), {"x": metric("x", e)}, 4, None)
    z = (0.489 - 0.5) / math.sqrt(0.25 / 100_000)
    assert f.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-9)
    assert f.diff == pytest.approx(-1.1) and f.unit == "percentage points"
    f.p_holm = f.p
    text = f.sentence(0.05)
    assert text.startswith("The side wins 48.90% [48.59%, 49.21%]: 1.10 percentage points "
                           "below an even 50%")
    assert "a clear difference" in text and text.endswith(").")
    e = proportion(4_990, 10_000)  # a tenth of a point off with 10,000 rows: not clear
    f = _finding(FindingSpec("q", "x", "{x}", against=0.5, against_text="50%"),
                 {"x": metric("x", e)}, 4, None)
    f.p_holm = f.p
    assert f.p > 0.5 and "not a clear difference" in f.sentence(0.05)


def test_two_metrics_and_stated_findings_and_too_few_rows():
    a, b = proportion(700, 1_000), proportion(800, 1_000)
    by = {"a": metric("a", a), "b": metric("b", b)}
    f = _finding(FindingSpec("q", "a", "A {a}, B {b}", against="b", difference="A minus B"),
                 by, 4, None)
    assert f.diff == pytest.approx(-10.0) and f.lo < -10 < f.hi < 0 and f.p < 1e-5
    stated = _finding(FindingSpec("q", "a", "A is {a}; C is {c}"), by, 4, None)
    assert not stated.tested and stated.sentence(0.05) == f"A is {fmt_estimate(a)}; C is n/a."
    few = _finding(FindingSpec("q", "a", "{a}", against=0.5, against_text="50%"),
                   {"a": metric("a", proportion(3, 5))}, 4, None)
    assert not few.tested and "too few rows to test: n = 5" in few.sentence(0.05)
    assert _finding(FindingSpec("q", "missing", "{missing}"), by, 4, None) is None


def test_findings_are_holm_adjusted_together(belote_report):
    _, p, frame, ms = belote_report
    found = findings(p.game, p, frame, ms, 0.95)
    tested = [f for f in found if f.tested]
    assert len(tested) >= 2
    raw = sorted(f.p for f in tested)
    assert min(f.p_holm for f in tested) == pytest.approx(min(1.0, len(tested) * raw[0]))
    assert all(f.p_holm >= f.p for f in tested)


def test_every_game_has_findings_specs_that_parse():
    for slug in ("belote", "tarot", "president", "manille", "rami", "tarot_4_saisons",
                 "tarot_double_detente"):
        specs = finding_specs(get_game(slug))
        assert specs and all(isinstance(s, FindingSpec) for s in specs)
        for s in specs:
            assert "{" in s.text and s.question  # the sentence prints an answer


# --- the Belote report opens with findings, in sentences, and has no comparison row ---------
def test_belote_report_opens_with_findings(belote_report):
    out, _, _, ms = belote_report
    md = (out / "report.md").read_text(encoding="utf-8")
    heads = [x.lstrip("#").strip() for x in md.splitlines() if x.startswith("## ")]
    assert heads[0] == "Findings"
    sec = md.split("## Findings")[1].split("\n## ")[0]
    assert "**Question 2: Position.** The dealer's team wins " in sec
    # several paragraphs answer question 1: the heading says "Question 1" each time, and
    # the opening line says why the number repeats and which metrics are the question's
    assert sec.count("**Question 1: ") == 2
    assert "a question may take several paragraphs" in sec and "`belote.q1…`" in sec
    # the position is tested against the even split of the decided deals (litiges left
    # out) and quotes the points margin (issue 33)
    q2 = sec.split("**Question 2: Position.**")[1].split("\n\n")[0]
    assert "an even split of the decided deals" in q2 and "Holm's correction" in q2
    assert "of decided deals" in q2 and "per deal more than the dealer's left's team" in q2
    margin = next(m for m in ms.metrics if m.key == "belote.q2.margin.dealer_team")
    assert fmt_estimate(margin.estimate, margin.unit) in q2
    assert "figures/findings.png" in sec
    assert "compare" not in md.split("## Method")[0].lower().replace("`simlab compare", "")
    assert not any(m.key.startswith("belote.q6") for m in ms.metrics)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<strong>Question 2: Position.</strong>" in html
    # numbers never wrap: a value or an interval is one unbreakable span
    assert re.search(r"<td class=r><span class=nw>\[[0-9.]+%, [0-9.]+%\]</span></td>", html)
    assert ".nw{white-space:nowrap}" in html
    # the rules table names the knobs whose default resolves the rulebook
    assert "| `queen_points` | `3` | `3` | 5 |" in md


def test_belote_flips_count_every_change_of_outcome(belote_report):
    _, _, frame, ms = belote_report
    by = {m.key: m.estimate for m in ms.metrics}
    played = frame.filter(pl.col("taker") >= 0)
    kernel = played["flipped_by_announcements"].mean()
    assert by["belote.q4.flipped"].value >= kernel  # turns into or out of a litige too
    parts = (by["belote.q4.flipped.made"].value + by["belote.q4.flipped.failed"].value)
    assert parts <= by["belote.q4.flipped"].value <= parts + by["belote.q4.flipped.litige"].value


# --- one base per chart: Tarot's Petit au bout ------------------------------------------------
def test_tarot_petit_au_bout_on_one_base():
    p = plan(get_game("tarot"), 3_000, seed=5)
    frame = execute(p)
    by = {m.key: m.estimate for m in compute(p.game, frame, p.knobs, p.level).metrics}
    taken = by["tarot.q5.pab_taken.attack"].value + by["tarot.q5.pab_taken.defence"].value
    assert taken == pytest.approx(by["tarot.q5.pab"].value, abs=1e-12)
    shares = by["tarot.q5.pab.attack"].value + by["tarot.q5.pab.defence"].value
    assert shares == pytest.approx(1.0, abs=1e-12)
    assert by["tarot.q5.pab_taken.attack"].n == by["tarot.q5.pab_taken.defence"].n


# --- Président's extra card against its control, on the same deals --------------------------
def test_president_extra_card_is_measured_against_equal_hands(tmp_path):
    p = plan(get_game("president"), 3_000, seed=7, params={"players": "5"})
    frame = execute(p)
    ms = compute(p.game, frame, p.knobs, p.level)
    found = [f for f in findings(p.game, p, frame, ms, 0.95) if f.question.startswith("5.")]
    assert len(found) == 1 and found[0].tested
    control = execute(dataclasses.replace(p, knobs=dataclasses.replace(p.knobs,
                                                                         equal_hands=True)))
    a = frame.select(extra_seats_place(5)).to_series().to_numpy()
    b = control.select(extra_seats_place(5)).to_series().to_numpy()
    assert found[0].diff == pytest.approx(float(np.mean(a - b)), abs=1e-12)
    text = found[0].sentence(0.05)
    assert "the same seats on the same deals with equal hands" in text
    gap = next(m for m in ms.metrics if m.key == "president.q5.extra.place_gap")
    assert "confounded with position" in gap.title
    # four players: every hand is equal, no extra-card question and no control run
    p4 = plan(get_game("president"), 500, seed=7)
    f4 = execute(p4)
    assert not [f for f in findings(p4.game, p4, f4, compute(p4.game, f4, p4.knobs, "deal"),
                                    0.95) if f.question.startswith("5.")]


# --- labels and figures -----------------------------------------------------------------------
def test_fractions_print_as_percentages():
    share = Estimate(0.13937, 0.137, 0.1418, 5_000, "mean", 0.95)
    assert fmt_value(share, "share").endswith("%") and "13.9" in fmt_value(share, "share")
    pts = Estimate(0.00679, 0.002, 0.0116, 5_000, "mean", 0.95)
    assert fmt_value(pts, "win-rate points").endswith(" pp")
    assert fmt_value(Estimate(-0.001, -1.5, 1.4, 100, "mean", 0.95), "points") == "0.0 points"


def test_method_says_who_wins_a_deal(tmp_path):
    """The method text is the game's own sides declaration (Rami: whoever goes out wins,
    not the higher score)."""
    from simlab.analysis.metrics import sides_method, sides_of
    from simlab.games import get_game

    rami = get_game("rami")
    doc = _Doc(tmp_path)
    _method(doc, 0.95, "deal", sides_method(sides_of(rami, rami.make_knobs({}))), n_findings=3)
    text = " ".join(" ".join(b) for kind, b in doc.blocks if kind == "ul")
    assert "the seat that goes out wins" in text and "more points" not in text
    assert "3 sentences test their answer" in text


def test_dots_fit_the_axis_to_close_rates_and_titles_are_unique(tmp_path):
    ms = [metric(f"w.{i}", proportion(k, 10_000)) for i, k in enumerate((4_890, 5_010, 5_100))]
    fig = plots.estimates_dots(ms, "win rate", reference=0.5)
    lo, hi = fig.axes[0].get_xlim()
    assert 45 < lo < 48.9 and 51 < hi < 60  # not forced to zero
    doc = _Doc(tmp_path)
    assert doc.unique_title("Seats: rates", "question 1") == "Seats: rates"
    assert doc.unique_title("Seats: rates", "question 2") == "Seats: rates (question 2)"
    fig = plots.differences([("a", -1.1, -1.3, -0.9, "difference (percentage points)", True),
                             ("b", 0.2, -0.5, 0.9, "difference (places)", False)], "t")
    assert len(fig.axes) == 2


def test_president_default_report_answers_the_role_chain(tmp_path):
    """Issue 11: the default Président run deals without titles, so the role chain was
    missing from its report; it is now answered from a companion run of the same deals
    started from titles, and says so."""
    from simlab.cli.commands import main

    out = tmp_path / "rep"
    assert main(["report", "president", "-n", "3000", "--out", str(out), "--no-progress"]) == 0
    md = (out / "report.md").read_text()
    findings_md = md.split("## What was simulated")[0]
    assert "**Question 1: Role persistence.** The Président keeps the title in" in findings_md
    assert "deal_titles=random" in findings_md and "n/a" not in findings_md


def test_a_rate_against_its_control_prints_as_rates():
    """``{value}`` and ``{control}`` of a paired control finding on a rate are rates in %,
    not means of 0/1 values (0.501)."""

    d = MetricDef("x.rate", "x happens", "S", pl.col("x"))
    by_key = {d.key: Metric(d, proportion(600, 1000))}
    spec = FindingSpec("Q", d.key, "x {value} against {control}", control={"k": 1},
                       paired=lambda n: pl.col("x"))
    a = pl.DataFrame({"x": [i % 5 < 3 for i in range(1000)]})  # 60 %
    b = pl.DataFrame({"x": [i % 2 == 0 for i in range(1000)]})  # 50 %
    f = _finding(spec, by_key, 4, paired_moments(a, b, pl.col("x").cast(pl.Float64)))
    assert re.search(r"x 60(\.\d+)?% \[.*%\] against 50(\.\d+)?% \[.*%\]", f.text), f.text
    assert f.diff == pytest.approx(10.0)  # percentage points


def test_question_labels():
    """A catalogue question's number becomes "Question N" (a figure's row: "QN"); an
    unnumbered question (the standard findings) stays as it is."""
    from simlab.analysis.report import question_label

    assert question_label("2. Position") == "Question 2: Position"
    assert question_label("12. Is taking profitable?") == "Question 12: Is taking profitable?"
    assert question_label("2. Position", short=True) == "Q2 Position"
    assert question_label("Position") == "Position"
    assert question_label("2.5 points") == "2.5 points"  # not a numbered question


def test_findings_name_a_questions_metrics_from_a_finding_that_reads_its_own(tmp_path):
    """The Findings' opening line names the metric keys of a question from a finding whose
    metric is that question's own (Frappe's question 5 reads a question-1 metric)."""
    from simlab.analysis.report import Finding, _Doc, _findings_section

    doc = _Doc(tmp_path)
    found = [Finding("5. Extension timing", "x", key="frappe.q1.dealer_edge"),
             Finding("2. Position", "y", key="frappe.q2.win")]
    _findings_section(doc, found, 0.95, None)
    text = " ".join(str(b) for _, b in doc.blocks)
    assert "metrics keyed `frappe.q2…` are question 2's" in text
    assert "**Question 5: Extension timing.**" in text
    doc = _Doc(tmp_path)
    _findings_section(doc, found[:1], 0.95, None)
    text = " ".join(str(b) for _, b in doc.blocks)
    assert "a question may take several paragraphs." in text and "keyed" not in text
