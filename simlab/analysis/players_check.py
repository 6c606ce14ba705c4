"""How much a run's answers depend on its players: the report's "Players" section.

A balance figure is only as good as the players that produced it: a bot that hoards its
best cards or bids contracts it never makes measures itself, not the game. This module
checks the players of a run and, optionally, the run's headline answers under stronger
play:

* ``check_players``: duplicate-play edges (heuristic vs random, search vs heuristic, on a
  smaller sample of the same deals), and health checks with their values — deals or
  matches stopped by a safety cap, contracts bid but rarely made, each decision kind
  (every contract, trump suit, bid, option: ``decision_kinds``) never or always taken,
  strong hands not winning (the mean result by decile of a simple hand-strength measure,
  the game's ``extra["hand_strength"]``; a game where it means nothing says why in
  ``extra["no_hand_strength"]``, shown in its place);
* ``skill_check``: the headline metrics re-measured with another policy at every seat on
  the run's first deals (the same deals), paired with the run's own rows: each answer
  "holds under stronger play" (an equivalence test within a stated margin), "changes
  with the players" or is "inconclusive at this sample", and none of these unless the
  same report shows that policy stronger than the run's players.

The thresholds are in the constants below; every check prints its value, so a reader
can judge a borderline case.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from simlab.analysis.decisions import DECISION_COLUMNS, _imposed, decision_kinds, note_direction  # noqa: F401
from simlab.analysis.metrics import MetricSet
from simlab.engine import stats
from simlab.engine.game import Game
from simlab.engine.runner import Plan, execute
from simlab.players.duel import DuelResult, duplicate

CAP_WARN = 0.005  # a safety cap may stop at most 0.5 % of deals or matches
MADE_WARN = 0.25  # a contract bid in >= 1 % of takes must be made >= 25 % of the time
SHARE_MIN = 0.01
DECILES = 10
DEFAULT_PLAYERS_N = 2000  # deals for heuristic vs random and the hand-strength check
SEARCH_SHARE = 8  # search vs heuristic runs on n / SEARCH_SHARE deals (search is slow)
MIN_SEARCH_N = 100


@dataclass(frozen=True)
class Check:
    """One health check: what it measures, its value (text), and whether it passed
    (``None``: not applicable / not estimable)."""

    name: str
    value: str
    ok: bool | None
    warning: str = ""
    note: str = ""  # why a value that would be a warning is right (measured), if it is


@dataclass(frozen=True)
class Strength:
    """Mean result by decile of hand strength (1 = weakest), over every seat of every deal."""

    measure: str
    deciles: list[stats.Estimate]
    top_minus_bottom: stats.Estimate
    spearman: float
    n: int  # (seat, deal) pairs


@dataclass
class PlayersCheck:
    policies: tuple[str, ...]
    duels: list[tuple[str, DuelResult | None, str]] = field(default_factory=list)  # (label, result, why not)
    checks: list[Check] = field(default_factory=list)
    strength: Strength | None = None

    @property
    def warnings(self) -> list[Check]:
        return [c for c in self.checks if c.ok is False]


def _rate(frame: pl.DataFrame, expr: pl.Expr, where: pl.Expr | None = None) -> stats.Estimate:
    return stats.rate(frame, expr, where)


def _pct(e: stats.Estimate) -> str:
    if e.n == 0:
        return "n/a (no qualifying row)"
    return f"{100 * e.value:.2f}% [{100 * e.lo:.2f}%, {100 * e.hi:.2f}%] (n = {e.n:,})"


def frame_checks(game: Game, plan: Plan, frame: pl.DataFrame) -> list[Check]:
    """The health checks computed from the run's own rows."""
    from simlab.analysis.report_sums import check_sums

    return checks_from(game, plan, frame.height, frame.schema,
                       *check_sums(game, plan.knobs, plan.level, frame))


def checks_from(game: Game, plan: Plan, rows: int, schema: pl.Schema, moments: list,
                bids: dict[str, tuple[int, int, int]]) -> list[Check]:
    """The health checks from the run's sums (``report_sums``): ``moments`` of its
    ``check_defs`` rates, and per contract label bid (deals, made known, made), on
    ``rows`` rows of this ``schema``."""
    from simlab.analysis.metrics import estimate_of
    from simlab.analysis.report_sums import check_defs

    columns = list(schema.names())
    rate = {d.key: estimate_of(d, m) for d, m in
            zip(check_defs(game, plan.knobs, plan.level, columns), moments, strict=True)}
    out: list[Check] = []
    unit = "matches" if plan.level == "match" else "deals"
    if "check.capped" in rate:
        e = rate["check.capped"]
        out.append(Check(f"{unit} stopped by a safety cap", _pct(e), e.value <= CAP_WARN,
                         f"more than {CAP_WARN:.1%} of {unit} end at a safety cap: the players "
                         "loop instead of finishing"))
    if "check.nobody_takes" not in rate:
        return out + _declared(game, plan, columns, rate)
    e = rate["check.nobody_takes"]
    always = e.n > 0 and e.value >= 1.0
    never = e.n > 0 and e.value <= 0.0 and not game.extra.get("forced_taker", False)
    # a game played when nobody takes (Caisse's Misère Générale) is named here, where it is
    # counted, and is no decision kind of its own (``imposed_labels``)
    imposed = "; ".join(why for labels in _imposed(game, plan.knobs).values()
                        for why in labels.values())
    out.append(Check("deals where nobody takes" + (f" ({imposed})" if imposed else ""), _pct(e)
                     + (" (the rules force a taker)" if game.extra.get("forced_taker") else ""),
                     None if game.extra.get("forced_taker") else not (always or never),
                     "nobody ever takes" if always else
                     "somebody always takes: passing is never chosen, so questions about "
                     "deals without a taker cannot be answered"))
    if "contract" in columns and "made" in columns:
        total = max(1, sum(b[0] for b in bids.values()))
        for name, (count, known, made) in sorted(bids.items(), key=lambda kv: (-kv[1][0], str(kv[0]))):
            if name is None or count / total < SHARE_MIN:
                continue
            e = stats.proportion(made, known)
            out.append(Check(f"contract {name} made (bid in {count / total:.1%} of takes)",
                             _pct(e), e.value >= MADE_WARN,
                             f"bid in {count / total:.1%} of takes but made less than "
                             f"{MADE_WARN:.0%} of the time: the players overbid it"))
    return out + _declared(game, plan, columns, rate)


def _declared(game: Game, plan: Plan, columns: list[str], rate: dict) -> list[Check]:
    """One check per decision kind (``decision_kinds``): a kind never or always taken is a
    warning, unless the game says why it is right (the note is then printed with the check
    instead of a warning)."""
    out = []
    if plan.level != "deal":
        return out
    for i, (title, _, _, note) in enumerate(decision_kinds(game, plan.knobs, columns)):
        e = rate[f"check.decision.{i}"]
        if e.n == 0:
            out.append(Check(title, _pct(e), None))
            continue
        sometimes = 0.0 < e.value < 1.0
        extreme = "never taken" if e.value <= 0 else "always taken"
        direction, why = note_direction(note)
        if not sometimes and note and extreme.startswith(direction):
            out.append(Check(title, _pct(e), True, note=f"{extreme} in this run; {why}"))
            continue
        out.append(Check(title, _pct(e), sometimes, extreme))
    return out


def hand_strength(game: Game, plan: Plan, n: int) -> Strength | None:
    """Mean result (the seat's ``score_s{i}``, sign flipped in penalty games) by decile of
    the game's hand-strength measure of the seat's dealt hand, on ``n`` deals of this run's
    players (the run's first deals)."""
    measure: Callable | None = game.extra.get("hand_strength")
    if measure is None or plan.level != "deal":
        return None
    p = replace(plan, n=min(n, plan.n), start=0, record_hands=True, progress=False,
                chunk_size=min(plan.chunk_size, n))
    frame = execute(p)
    players = game.players(plan.knobs)
    sign = -1.0 if game.lower_score_wins else 1.0
    strength, result = [], []
    for s in range(players):
        hands = frame[f"dealt_s{s}"].to_list()
        strength.append([measure(plan.knobs, h or []) for h in hands])
        result.append(sign * frame[f"score_s{s}"].to_numpy().astype(np.float64))
    x = np.concatenate([np.asarray(v, dtype=np.float64) for v in strength])
    y = np.concatenate(result)
    # Deciles of the (seat, deal) pairs by strength; ties are broken by position, which
    # is fixed, so the split is deterministic.
    order = np.argsort(x, kind="stable")
    groups = np.array_split(order, DECILES)
    deciles = [stats.mean(y[g]) for g in groups]
    diff = _difference(y[groups[-1]], y[groups[0]])
    rx = np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(np.float64)
    ry = np.argsort(np.argsort(y, kind="stable"), kind="stable").astype(np.float64)
    rho = float(np.corrcoef(rx, ry)[0, 1]) if x.size > 2 else math.nan
    return Strength(game.extra.get("hand_strength_text", "hand strength"), deciles, diff, rho,
                    int(x.size))


def _difference(a: np.ndarray, b: np.ndarray, conf: float = 0.95) -> stats.Estimate:
    """Mean of ``a`` minus mean of ``b`` (independent groups, Welch), as an Estimate."""
    d = float(a.mean() - b.mean())
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) \
        if a.size > 1 and b.size > 1 else math.nan
    z = stats.z_value(conf)
    return stats.Estimate(d, d - z * se, d + z * se, int(a.size + b.size), "mean", conf)


def check_players(game: Game, plan: Plan, frame: pl.DataFrame | None = None,
                  n: int = DEFAULT_PLAYERS_N, seed: int | None = None,
                  checks: list[Check] | None = None) -> PlayersCheck:
    """The Players section's content: the run's own health checks (``checks``, or computed
    from ``frame``), and with ``n > 0`` the duplicate edges and the hand-strength check on
    ``n`` deals (search on fewer)."""
    if checks is None:
        checks = frame_checks(game, plan, frame) if frame is not None else []
    pc = PlayersCheck(plan.policies, checks=list(checks))
    if n <= 0:
        return pc
    seed = plan.seed if seed is None else seed
    params = plan.knobs.changed()
    pairs = [("heuristic", "random", n)]
    if "search" in game.policies:
        pairs.append(("search", "heuristic", max(MIN_SEARCH_N, n // SEARCH_SHARE)))
    for x, y, m in pairs:
        if x not in game.policies or y not in game.policies:
            continue
        r = duplicate(game, x, y, n=m, seed=seed, params=params, jobs=plan.jobs)
        pc.duels.append((f"{x} vs {y}", r, ""))
        # A clear loss is a defect; no clear difference on a small sample is only that.
        pc.checks.append(Check(f"{x} beats {y} (duplicate, {r.unit})",
                               f"{r.edge:+.3f} [{r.lo:+.3f}, {r.hi:+.3f}] (n = {r.n:,} deals)",
                               True if r.lo > 0 else (False if r.hi < 0 else None),
                               f"{y} clearly beats {x}"))
    st = hand_strength(game, plan, n) if plan.level == "deal" else None
    why_not = game.extra.get("no_hand_strength")
    if st is None and why_not and plan.level == "deal":
        pc.checks.append(Check("strong hands win", f"not measured: {why_not}", None))
    if st is not None:
        pc.strength = st
        d = st.top_minus_bottom
        pc.checks.append(Check(
            f"strong hands win: strongest minus weakest decile of {st.measure}",
            f"{d.value:+.2f} [{d.lo:+.2f}, {d.hi:+.2f}] points; Spearman {st.spearman:+.2f} "
            f"(n = {st.n:,} hands)", d.lo > 0 and st.spearman > 0,
            "the strongest hands do not clearly score more than the weakest"))
    return pc


# --- answers under stronger play -----------------------------------------------------------
# The skill check's labels are earned (issue 32):
# * "holds under stronger play": an equivalence test (two one-sided tests, TOST, at the
#   report's level: the difference's (1 - 2 alpha) interval, 90 % for 95 % intervals)
#   puts the paired difference within +-margin;
# * "changes with the players": the difference's 95 % interval excludes 0;
# * "inconclusive at this sample" otherwise, with the deals that would bring the TOST
#   interval's half-width under the margin (it shrinks as 1 / sqrt(n)).
# The margin: half the answer's own effect (its distance from the reference the report's
# findings test it against), but never under 2 percentage points for a rate or share, or
# under a tenth of a deal's standard deviation for another mean (an answer without a
# reference gets that floor).
# No label at all unless the same report shows the stronger policy beating the run's
# players in duplicate play with an interval above 0 (``SkillCheck.gated_by``).
EFFECT_SHARE = 0.5
RATE_MARGIN = 0.02
MEAN_MARGIN_SD = 0.1
HOLDS = "holds under stronger play"
CHANGES = "changes with the players"
INCONCLUSIVE = "inconclusive at this sample"
NOT_SHOWN = "search not shown stronger at this budget and sample"


@dataclass(frozen=True)
class SkillRow:
    key: str
    title: str
    run: stats.Estimate  # the whole run
    base: stats.Estimate  # the run's players, first n deals
    strong: stats.Estimate  # the stronger policy, the same deals
    diff: float  # strong - base, paired on the same deals
    lo: float  # its interval at the report's level (95 %)
    hi: float
    p_holm: float
    choice: bool  # the metric records a player's choice
    unit: str = ""
    tost_lo: float = math.nan  # the difference's (1 - 2 alpha) interval (90 %): TOST
    tost_hi: float = math.nan
    margin: float = math.nan  # equivalence margin, in the metric's own units
    margin_why: str = ""  # how the margin was set
    n: int = 0  # paired deals in the answer's base (at most the check's deals)


def equivalence_margin(kind: str, unit: str, run: stats.Estimate,
                       reference: float | None) -> tuple[float, str]:
    """The margin within which a difference counts as "holds", and how it was set: half
    the answer's effect (``run`` minus ``reference``), never under the floor (2 pp for a
    rate or share, a tenth of a deal's standard deviation for another mean, read from
    ``run``'s interval)."""
    fraction = kind == "rate" or unit == "share"
    if fraction:
        floor, floor_why = RATE_MARGIN, f"{100 * RATE_MARGIN:g} pp"
    else:
        z = stats.z_value(run.conf)
        sd = (run.hi - run.lo) / (2 * z) * math.sqrt(run.n) if run.n > 1 else math.nan
        floor, floor_why = MEAN_MARGIN_SD * sd, f"{MEAN_MARGIN_SD:g} × a deal's SD"
    if reference is None or math.isnan(run.value):
        return floor, f"floor ({floor_why}): no reference to size the effect"
    effect = abs(run.value - reference)
    if EFFECT_SHARE * effect >= floor:
        return EFFECT_SHARE * effect, f"{EFFECT_SHARE:g} × the effect"
    return floor, f"floor ({floor_why}): above {EFFECT_SHARE:g} × the effect"


def skill_label(diff: float, lo: float, hi: float, tost_lo: float, tost_hi: float,
                margin: float) -> str:
    """The label a paired difference earns (see the constants above): "holds under
    stronger play" when its TOST interval lies within +-``margin`` and its interval holds
    0; "changes with the players" when its interval excludes 0 ("…, within the margin"
    when the TOST interval is inside it too); else "inconclusive at this sample"."""
    if any(math.isnan(x) for x in (diff, lo, hi)):
        return "not estimable"
    equivalent = not math.isnan(margin) and -margin < tost_lo and tost_hi < margin
    if lo > 0 or hi < 0:
        return CHANGES + (", within the margin" if equivalent else "")
    return HOLDS if equivalent else INCONCLUSIVE


def deals_to_settle(n: int, diff: float, tost_lo: float, tost_hi: float,
                    margin: float) -> int | None:
    """Paired deals at which the TOST interval's half-width would fall under ``margin``
    (the half-width shrinks as 1 / sqrt(n)); None when not estimable."""
    half = max(diff - tost_lo, tost_hi - diff)
    if n <= 0 or not (half > 0) or not (margin > 0) or math.isnan(half):
        return None
    return max(n, math.ceil(n * (half / margin) ** 2))


@dataclass
class SkillCheck:
    policy: str
    n: int
    rows: list[SkillRow]
    conf: float = 0.95
    # the same report's duplicate edge of ``policy`` over the run's players: (label, edge,
    # lo, hi, deals); None: not measured in this report
    edge: tuple[str, float, float, float, int] | None = None

    @property
    def shown_stronger(self) -> bool:
        """The report shows ``policy`` beating the run's players (interval above 0)."""
        return self.edge is not None and self.edge[2] > 0

    def gated_by(self, players: PlayersCheck | None) -> SkillCheck:
        """This check with the report's own duplicate edge of ``policy`` over the run's
        players (``players.duels``), which earns its labels."""
        base = set(players.policies) if players is not None else set()
        label = f"{self.policy} vs {next(iter(base))}" if len(base) == 1 else None
        for name, r, _ in (players.duels if players is not None else []):
            if name == label and r is not None:
                return replace(self, edge=(name, r.edge, r.lo, r.hi, r.n))
        return replace(self, edge=None)

    def verdict(self, r: SkillRow) -> str:
        """The row's label, or "" while the policy is not shown stronger (no label)."""
        if not self.shown_stronger:
            return ""
        label = skill_label(r.diff, r.lo, r.hi, r.tost_lo, r.tost_hi, r.margin)
        if label.startswith(CHANGES) and not (r.p_holm < 1 - self.conf):
            label += " (not clear after Holm's correction)"
        return label

    def to_settle(self, r: SkillRow) -> int | None:
        """Deals of the check (not only those in the answer's base) that would settle it."""
        return deals_to_settle(self.n, r.diff, r.tost_lo, r.tost_hi, r.margin)

    def gate_text(self) -> str:
        """Why the labels are (not) printed: the duplicate edge they rest on."""
        if self.edge is None:
            return (f"{NOT_SHOWN}: this report did not measure {self.policy} against the "
                    "run's players in duplicate play (`--players-n` 0, or mixed players)")
        name, edge, lo, hi, n = self.edge
        if self.shown_stronger:
            return (f"{self.policy} shown stronger: {name} {edge:+.2f} [{lo:+.2f}, {hi:+.2f}] "
                    f"per deal on {n:,} deals")
        return (f"{NOT_SHOWN}: {name} {edge:+.2f} [{lo:+.2f}, {hi:+.2f}] per deal on {n:,} "
                "deals, an interval not above 0, so no answer is labelled")


def references(game: Game, ms: MetricSet, n_players: int) -> dict[str, float]:
    """Per metric key, the reference its finding tests it against (a number, a function
    of the number of players, or another metric's value in ``ms``): what its effect is
    measured from. Findings against a control run are left out."""
    from simlab.analysis.report_sums import raw_findings

    values = {m.key: m.estimate.value for m in ms.metrics}
    out: dict[str, float] = {}
    for spec in raw_findings(game) or []:
        against, key = spec.get("against"), spec.get("key")
        if against is None or key in out or spec.get("control") is not None:
            continue
        if isinstance(against, str):
            ref = values.get(against)
        else:
            ref = float(against(n_players)) if callable(against) else float(against)
        if ref is not None and not math.isnan(ref):
            out[key] = ref
    return out


def skill_check(game: Game, plan: Plan, frame: pl.DataFrame | None, ms: MetricSet,
                policy: str = "search", n: int = 1000) -> SkillCheck:
    """Each headline metric re-measured with ``policy`` at every seat on the run's first
    ``n`` deals, paired with the run's own rows on those deals (without ``frame``, those
    deals are played again: every deal has its own stream): both estimates, the paired
    difference with its interval and its TOST interval, and the equivalence margin."""
    from simlab.analysis.compare import compare_frames
    from simlab.engine.knobs import SimlabError

    if policy not in game.policies:
        raise SimlabError(f"unknown policy {policy!r} for --skill-check; valid policies: "
                          f"{', '.join(game.policies)}")
    if plan.level != "deal":
        raise SimlabError("--skill-check works at deal level (--level deal)")
    m = min(n, frame.height if frame is not None else plan.n)
    players = game.players(plan.knobs)
    own = replace(plan, n=m, start=0, record_hands=False, chunk_size=min(plan.chunk_size, m))
    frame_s = execute(replace(own, policies=(policy,) * players, variant=None))
    frame_a = execute(own) if frame is None else frame.head(m).drop(
        [c for c in frame.columns if c.startswith(("dealt_s", "hand_s"))])
    if not np.array_equal(frame_a["deal"].to_numpy(), frame_s["deal"].to_numpy()):
        raise RuntimeError("skill check: the run's first rows are not deals 0..n-1")
    head = {x.key: x for x in ms.headline()}
    conf = next(iter(head.values())).estimate.conf if head else 0.95
    rows = compare_frames(game, plan.knobs, frame_a, frame_s, plan.level, conf=conf,
                          keys=set(head))
    # TOST at level alpha: the (1 - 2 alpha) interval of the same paired difference
    tost = {r.key: r.diff for r in compare_frames(game, plan.knobs, frame_a, frame_s,
                                                  plan.level, conf=1 - 2 * (1 - conf),
                                                  keys=set(head))}
    refs = references(game, ms, players)
    out = []
    for r in rows:
        if r.key not in head:
            continue
        run = head[r.key].estimate
        margin, why = equivalence_margin(run.kind, r.definition.unit, run, refs.get(r.key))
        t = tost[r.key]
        out.append(SkillRow(r.key, r.title, run, r.a, r.b, r.diff.diff, r.diff.lo, r.diff.hi,
                            r.p_holm, r.definition.choice, r.definition.unit, t.lo, t.hi,
                            margin, why, r.diff.n))
    return SkillCheck(policy, m, out, conf)
