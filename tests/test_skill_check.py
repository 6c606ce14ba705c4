"""Issue 32, item 4: the skill check proves what it claims. Each label is earned by a
constructed difference (the issue's overclaim included: -1.0 pp [-4.2, +2.3] with a
4.7 pp effect is not "holds"), the margin is stated, an inconclusive answer says how many
deals would settle it, and no label is printed unless the same report shows the stronger
policy beating the run's players in duplicate play."""

from __future__ import annotations

import math

import pytest

from simlab.analysis import players_check as P
from simlab.analysis.report import write_report
from simlab.engine import stats
from simlab.engine.runner import execute, plan
from simlab.games import get_game
from simlab.players.duel import DuelResult


def _rate(value: float, n: int = 1000) -> stats.Estimate:
    half = 1.96 * math.sqrt(value * (1 - value) / n)
    return stats.Estimate(value, value - half, value + half, n, "rate")


def _row(diff: float, lo: float, hi: float, tost_lo: float, tost_hi: float, margin: float,
         p_holm: float = 0.5, n: int = 1000) -> P.SkillRow:
    e = _rate(0.5, n)
    return P.SkillRow("k", "an answer", e, e, e, diff, lo, hi, p_holm, False, "", tost_lo,
                      tost_hi, margin, "test", n)


def _tost(diff: float, lo: float, hi: float) -> tuple[float, float]:
    """The 90 % interval of a symmetric normal difference whose 95 % one is [lo, hi]."""
    se = (hi - lo) / (2 * stats.z_value(0.95))
    return diff - stats.z_value(0.90) * se, diff + stats.z_value(0.90) * se


def _shown(rows: list[P.SkillRow], lo: float = 0.5) -> P.SkillCheck:
    return P.SkillCheck("search", 1000, rows, edge=("search vs heuristic", 2.0, lo, 3.5, 250))


def test_the_issues_overclaim_is_inconclusive_not_holds():
    """Belote's dealer answer: 47.3 % against an even 52.0 % reading (effect 4.7 pp), a
    difference of -1.0 pp [-4.2, +2.3]: the old check said "holds under stronger play"."""
    run = _rate(0.473, 100_000)
    margin, why = P.equivalence_margin("rate", "", run, 0.520)
    assert margin == pytest.approx(0.0235) and why == "0.5 × the effect"
    t_lo, t_hi = _tost(-0.010, -0.042, 0.023)
    assert t_lo < -margin  # the equivalence interval reaches past the margin
    row = _row(-0.010, -0.042, 0.023, t_lo, t_hi, margin)
    assert P.skill_label(row.diff, row.lo, row.hi, t_lo, t_hi, margin) == P.INCONCLUSIVE
    sk = _shown([row])
    assert sk.verdict(row) == P.INCONCLUSIVE
    # the deals that would bring the 90 % half-width (2.73 pp) under 2.35 pp
    need = sk.to_settle(row)
    assert need == math.ceil(1000 * ((t_hi - t_lo) / 2 / margin) ** 2)
    assert 1300 < need < 1400


def test_holds_only_within_the_margin():
    margin = 0.02
    t_lo, t_hi = _tost(0.002, -0.008, 0.012)  # a narrow interval around 0
    assert -margin < t_lo and t_hi < margin
    row = _row(0.002, -0.008, 0.012, t_lo, t_hi, margin)
    assert _shown([row]).verdict(row) == P.HOLDS
    # the same interval against a margin it does not fit in: inconclusive
    tight = _row(0.002, -0.008, 0.012, t_lo, t_hi, 0.005)
    assert _shown([tight]).verdict(tight) == P.INCONCLUSIVE
    # a margin that could not be set (a mean without spread) never earns "holds"
    nan = _row(0.002, -0.008, 0.012, t_lo, t_hi, math.nan)
    assert _shown([nan]).verdict(nan) == P.INCONCLUSIVE


def test_changes_when_the_interval_excludes_zero():
    t_lo, t_hi = _tost(0.06, 0.03, 0.09)
    row = _row(0.06, 0.03, 0.09, t_lo, t_hi, 0.02, p_holm=0.001)
    assert _shown([row]).verdict(row) == P.CHANGES
    # clear alone but not after Holm over the headline answers: said so
    weak = _row(0.06, 0.03, 0.09, t_lo, t_hi, 0.02, p_holm=0.2)
    assert _shown([weak]).verdict(weak) == P.CHANGES + " (not clear after Holm's correction)"
    # a small difference, clear and inside a wide margin: it changes, within the margin
    t_lo, t_hi = _tost(0.01, 0.004, 0.016)
    small = _row(0.01, 0.004, 0.016, t_lo, t_hi, 0.05, p_holm=0.001)
    assert _shown([small]).verdict(small) == P.CHANGES + ", within the margin"
    none = _row(math.nan, math.nan, math.nan, math.nan, math.nan, 0.02)
    assert _shown([none]).verdict(none) == "not estimable"


def test_no_label_unless_search_is_shown_stronger():
    """The issue's Players section: search +4.16 [-4.23, +12.55] on 250 deals is not shown
    stronger, so even a difference that would hold gets no label."""
    t_lo, t_hi = _tost(0.0, -0.005, 0.005)
    row = _row(0.0, -0.005, 0.005, t_lo, t_hi, 0.02)
    unshown = P.SkillCheck("search", 1000, [row],
                           edge=("search vs heuristic", 4.16, -4.23, 12.55, 250))
    assert not unshown.shown_stronger and unshown.verdict(row) == ""
    assert unshown.gate_text().startswith(P.NOT_SHOWN)
    assert "+4.16 [-4.23, +12.55]" in unshown.gate_text()
    unmeasured = P.SkillCheck("search", 1000, [row])
    assert unmeasured.verdict(row) == "" and unmeasured.gate_text().startswith(P.NOT_SHOWN)
    assert _shown([row]).verdict(row) == P.HOLDS
    assert _shown([row], lo=0.0).verdict(row) == ""  # an interval touching 0 is not enough


def _duel(lo: float) -> DuelResult:
    return DuelResult("belote", "search", "heuristic", lo + 2.0, lo, lo + 4.0, 250, ())


def test_gated_by_reads_the_reports_own_duel():
    row = _row(0.0, -0.005, 0.005, -0.004, 0.004, 0.02)
    sk = P.SkillCheck("search", 1000, [row])
    players = P.PlayersCheck(("heuristic",) * 4)
    assert sk.gated_by(players).edge is None  # no duel in the report
    players.duels.append(("search vs heuristic", _duel(0.7), ""))
    gated = sk.gated_by(players)
    assert gated.shown_stronger and gated.verdict(row) == P.HOLDS
    players.duels[0] = ("search vs heuristic", _duel(-1.0), "")
    assert sk.gated_by(players).verdict(row) == ""
    # mixed players in the run: the duel does not compare search with them
    mixed = P.PlayersCheck(("heuristic", "random", "heuristic", "random"),
                           duels=[("search vs heuristic", _duel(0.7), "")])
    assert not sk.gated_by(mixed).shown_stronger


def test_margin_from_the_effect_or_the_floor():
    run = _rate(0.60, 10_000)
    assert P.equivalence_margin("rate", "", run, 0.5)[0] == pytest.approx(0.05)
    margin, why = P.equivalence_margin("rate", "", run, 0.59)  # half of 1 pp: the floor
    assert margin == P.RATE_MARGIN and why.startswith("floor (2 pp)")
    margin, why = P.equivalence_margin("rate", "", run, None)
    assert margin == P.RATE_MARGIN and "no reference" in why
    # a mean: a tenth of a deal's standard deviation (sd 10 here), or half the effect
    mean = stats.Estimate(3.0, 3.0 - 1.96 * 10 / 100, 3.0 + 1.96 * 10 / 100, 10_000, "mean")
    assert P.equivalence_margin("mean", "points", mean, None)[0] == pytest.approx(1.0, rel=1e-3)
    assert P.equivalence_margin("mean", "points", mean, 0.0)[0] == pytest.approx(1.5)


def _report(tmp_path, skill: P.SkillCheck, duel_lo: float | None) -> str:
    """A report on a few Belote deals with this skill check; the Players section holds a
    search-vs-heuristic duel with that lower bound (None: no duel)."""
    p = plan(get_game("belote"), 300, seed=5)
    rows = execute(p)
    players = P.PlayersCheck(p.policies)
    if duel_lo is not None:
        players.duels.append(("search vs heuristic", _duel(duel_lo), ""))
    out = write_report(tmp_path / f"rep{duel_lo}", game=get_game("belote"), plan=p, frame=rows,
                       seconds=1.0, players=players, skill=skill)
    return (out / "report.md").read_text(encoding="utf-8")


def test_a_report_without_search_shown_stronger_prints_no_label(tmp_path):
    t_lo, t_hi = _tost(0.0, -0.005, 0.005)
    e = _rate(0.5)
    rows = [P.SkillRow("belote.q2.win.dealer_team.decided", "dealer's team wins", e, e, e, 0.0,
                       -0.005, 0.005, 1.0, False, "", t_lo, t_hi, 0.02, "0.5 × the effect",
                       1000),
            P.SkillRow("belote.q3.capot", "capot", e, e, e, -0.01, -0.042, 0.023, 1.0, False,
                       "", *_tost(-0.01, -0.042, 0.023), 0.0235, "0.5 × the effect", 1000)]
    skill = P.SkillCheck("search", 1000, rows)
    md = _report(tmp_path, skill, duel_lo=-4.23)
    section = md.split("### Answers under stronger play")[1].split("\n## ")[0]
    labels = (P.HOLDS, P.CHANGES, P.INCONCLUSIVE)
    assert not any(label in section.split("| label |")[1] for label in labels)
    assert P.NOT_SHOWN in section and "| ±2.0 pp (0.5 × the effect) |" in section
    for part in (md.split("## Findings")[1].split("\n## ")[0],
                 md.split("## Headline answers")[1].split("\n## ")[0]):
        assert P.NOT_SHOWN in part and "hold" not in part.split("**Players.**")[0]
        assert "shown to hold" not in part and "answers hold" not in part
    # the same rows with search shown stronger: each label earned, the deals to settle
    md = _report(tmp_path, skill, duel_lo=0.7)
    section = md.split("### Answers under stronger play")[1].split("\n## ")[0]
    assert f"| {P.HOLDS} |" in section
    assert f"{P.INCONCLUSIVE} (about " in section and "deals would settle it)" in section
    findings = md.split("## Findings")[1].split("\n## ")[0]
    assert "1 of 2 headline answers shown to hold within their margins" in findings
    assert "inconclusive at this sample: capot" in findings
