"""How much a run's answers depend on its players: the report's "Players" section.

A balance figure is only as good as the players that produced it: a bot that hoards its
best cards or bids contracts it never makes measures itself, not the game. This module
checks the players of a run and, optionally, the run's headline answers under stronger
play:

* ``check_players``: duplicate-play edges (heuristic vs random, search vs heuristic, on a
  smaller sample of the same deals), and health checks with their values — deals or
  matches stopped by a safety cap, contracts bid but rarely made, decisions never or
  always taken, strong hands not winning (the mean result by decile of a simple
  hand-strength measure, the game's ``extra["hand_strength"]``);
* ``skill_check``: the headline metrics re-measured with another policy at every seat on
  the run's first deals (the same deals), paired with the run's own rows: each answer
  "holds under stronger play" or "changes with the players".

The thresholds are in the constants below; every check prints its value, so a reader
can judge a borderline case.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from simlab import stats
from simlab.duel import DuelResult, duplicate
from simlab.games.base import Game
from simlab.metrics import MetricSet
from simlab.runner import Plan, execute

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
    from simlab.report_sums import check_sums

    return checks_from(game, plan, frame.height, frame.schema,
                       *check_sums(game, plan.knobs, plan.level, frame))


def checks_from(game: Game, plan: Plan, rows: int, schema: pl.Schema, moments: list,
                bids: dict[str, tuple[int, int, int]]) -> list[Check]:
    """The health checks from the run's sums (``report_sums``): ``moments`` of its
    ``check_defs`` rates, and per contract label bid (deals, made known, made), on
    ``rows`` rows of this ``schema``."""
    from simlab.metrics import estimate_of
    from simlab.report_sums import check_defs

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
    out.append(Check("deals where nobody takes", _pct(e)
                     + (" (the rules force a taker)" if game.extra.get("forced_taker") else ""),
                     None if game.extra.get("forced_taker") else not (always or never),
                     "nobody ever takes" if always else
                     "somebody always takes: passing is never chosen, so questions about "
                     "thrown-in deals cannot be answered"))
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
        dtype = schema["contract"]
        if isinstance(dtype, pl.Enum):
            never_bid = [c for c in dtype.categories.to_list() if c not in bids]
            if never_bid and rows >= 1000:
                out.append(Check("contracts never bid", ", ".join(never_bid)
                                 + f" (in {rows:,} deals)", None,
                                 "a contract never bid cannot be measured"))
    return out + _declared(game, plan, columns, rate)


def _declared(game: Game, plan: Plan, columns: list[str], rate: dict) -> list[Check]:
    """The game's own decisions (``extra["decisions"]``: (title, expr, where) triples for
    decisions a player may or may not take): a decision never or always taken is flagged,
    unless the game adds a fourth element, the measurement that shows it right (it is then
    printed with the check instead of a warning)."""
    out = []
    spec = game.extra.get("decisions")
    if spec is None or plan.level != "deal":
        return out
    for i, (title, _, _, *measured) in enumerate(spec(plan.knobs, columns)):
        e = rate[f"check.decision.{i}"]
        if e.n == 0:
            out.append(Check(title, _pct(e), None))
            continue
        sometimes = 0.0 < e.value < 1.0
        extreme = "never taken" if e.value <= 0 else "always taken"
        if not sometimes and measured:
            out.append(Check(title, _pct(e), True, note=f"{extreme} in this run; {measured[0]}"))
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
        r = duplicate(game.slug, x, y, n=m, seed=seed, params=params, jobs=plan.jobs)
        pc.duels.append((f"{x} vs {y}", r, ""))
        # A clear loss is a defect; no clear difference on a small sample is only that.
        pc.checks.append(Check(f"{x} beats {y} (duplicate, {r.unit})",
                               f"{r.edge:+.3f} [{r.lo:+.3f}, {r.hi:+.3f}] (n = {r.n:,} deals)",
                               True if r.lo > 0 else (False if r.hi < 0 else None),
                               f"{y} clearly beats {x}"))
    st = hand_strength(game, plan, n) if plan.level == "deal" else None
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
@dataclass(frozen=True)
class SkillRow:
    key: str
    title: str
    run: stats.Estimate  # the whole run
    base: stats.Estimate  # the run's players, first n deals
    strong: stats.Estimate  # the stronger policy, the same deals
    diff: float
    lo: float
    hi: float
    p_holm: float
    choice: bool  # the metric records a player's choice
    unit: str = ""


@dataclass
class SkillCheck:
    policy: str
    n: int
    rows: list[SkillRow]
    conf: float = 0.95

    def verdict(self, r: SkillRow) -> str:
        """"changes with the players" when the difference is clear after Holm's correction
        over the headline answers; "may change" when only its unadjusted interval excludes
        0; else "holds under stronger play"."""
        if math.isnan(r.lo):
            return "not estimable"
        if not math.isnan(r.p_holm) and r.p_holm < 1 - self.conf:
            return "changes with the players"
        if r.lo > 0 or r.hi < 0:
            return "may change (not clear after Holm)"
        return "holds under stronger play"


def skill_check(game: Game, plan: Plan, frame: pl.DataFrame | None, ms: MetricSet,
                policy: str = "search", n: int = 1000) -> SkillCheck:
    """Each headline metric re-measured with ``policy`` at every seat on the run's first
    ``n`` deals, paired with the run's own rows on those deals (Holm over the headline;
    without ``frame``, those deals are played again: every deal has its own stream)."""
    from simlab.compare import compare_frames
    from simlab.knobs import SimlabError

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
    rows = compare_frames(game, plan.knobs, frame_a, frame_s, plan.level, keys=set(head))
    out = [SkillRow(r.key, r.title, head[r.key].estimate, r.a, r.b, r.diff.diff, r.diff.lo,
                    r.diff.hi, r.p_holm, r.definition.choice, r.definition.unit)
           for r in rows if r.key in head]
    return SkillCheck(policy, m, out)
