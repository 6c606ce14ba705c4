"""Variant comparison on the same deals, and sweeps over knob grids.

Both variants of a comparison are run with the same seed, so deal *i* has the same shuffle
in both (the engine's common random numbers). Every metric is then compared on paired
rows: the per-deal difference has far less variance than two independent runs, and its
interval and p-value come from ``stats.paired_difference``; Holm's adjustment covers the
many metrics one comparison reports.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from simlab.games.base import Game
from simlab.metrics import MetricDef, MetricSet, compute, evaluate, game_defs, row_values
from simlab.runner import Plan, execute, plan
from simlab.stats import DEFAULT_CONF, Comparison, Estimate, holm, paired_difference


@dataclass(frozen=True)
class CompareRow:
    definition: MetricDef
    a: Estimate
    b: Estimate
    diff: Comparison
    p_holm: float

    @property
    def key(self) -> str:
        return self.definition.key

    @property
    def title(self) -> str:
        return self.definition.title

    @property
    def section(self) -> str:
        return self.definition.section


@dataclass
class CompareResult:
    game: Game
    plan_a: Plan
    plan_b: Plan
    rows: list[CompareRow]
    frame_a: pl.DataFrame
    frame_b: pl.DataFrame
    conf: float = DEFAULT_CONF

    @property
    def label_a(self) -> str:
        return _label(self.plan_a)

    @property
    def label_b(self) -> str:
        return _label(self.plan_b)

    def significant(self, alpha: float | None = None) -> list[CompareRow]:
        a = 1 - self.conf if alpha is None else alpha
        return [r for r in self.rows if r.p_holm < a]


def _label(p: Plan) -> str:
    changed = p.knobs.changed()
    text = " ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"
    if len(set(p.policies)) > 1 or p.policies[0] != "heuristic":
        text += f" [policies {','.join(p.policies)}]"
    return text


def compare_frames(game: Game, knobs_a, frame_a: pl.DataFrame, frame_b: pl.DataFrame, level: str,
                   conf: float = DEFAULT_CONF) -> list[CompareRow]:
    """Every metric of variant A's definitions, on both frames, paired row by row."""
    if frame_a.height != frame_b.height:
        raise ValueError("compared frames must hold the same deals")
    defs = game_defs(game, frame_a, knobs_a, level)
    defs_b = {d.key for d in game_defs(game, frame_b, knobs_a, level)}
    defs = [d for d in defs if d.key in defs_b]
    a_est = evaluate(frame_a, defs, conf)
    b_est = evaluate(frame_b, defs, conf)
    diffs = [paired_difference(row_values(frame_a, d), row_values(frame_b, d), conf) for d in defs]
    adjusted = holm([c.p_value for c in diffs])
    return [CompareRow(d, ma.estimate, mb.estimate, c, p)
            for d, ma, mb, c, p in zip(defs, a_est, b_est, diffs, adjusted, strict=True)]


def compare(game: str, n: int, *, a: dict[str, Any] | None = None, b: dict[str, Any] | None = None,
            seed: int = 0, policies_a: str = "heuristic", policies_b: str | None = None,
            level: str = "deal", jobs: int = 1, conf: float = DEFAULT_CONF,
            progress: bool | None = None) -> CompareResult:
    """Run variants A and B on the same deals and compare every metric."""
    pa = plan(game, n, seed=seed, params=a or {}, policies=policies_a, jobs=jobs, level=level,
              progress=progress)
    pb = plan(game, n, seed=seed, params=b or {}, policies=policies_b or policies_a, jobs=jobs,
              level=level, progress=progress)
    fa, fb = execute(pa), execute(pb)
    rows = compare_frames(pa.game, pa.knobs, fa, fb, level, conf)
    return CompareResult(pa.game, pa, pb, rows, fa, fb, conf)


@dataclass
class SweepPoint:
    values: dict[str, Any]
    plan: Plan
    metrics: MetricSet


@dataclass
class SweepResult:
    game: Game
    grid: dict[str, list[Any]]
    points: list[SweepPoint] = field(default_factory=list)
    base: dict[str, Any] = field(default_factory=dict)


def parse_grid(items: list[str]) -> dict[str, list[str]]:
    """``["key=v1,v2,v3", ...]`` -> {key: [v1, v2, v3]} (values still strings)."""
    from simlab.knobs import SimlabError

    grid: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise SimlabError(f"--grid expects key=v1,v2,..., got {item!r}")
        k, v = item.split("=", 1)
        values = [x.strip() for x in v.split(",") if x.strip()]
        if not k.strip() or not values:
            raise SimlabError(f"--grid expects key=v1,v2,..., got {item!r}")
        grid[k.strip()] = values
    return grid


def sweep(game: str, n: int, grid: dict[str, list[Any]], *, base: dict[str, Any] | None = None,
          seed: int = 0, policies: str = "heuristic", level: str = "deal", jobs: int = 1,
          conf: float = DEFAULT_CONF, progress: bool | None = None) -> SweepResult:
    """The metrics at every point of the grid (all points on the same deals). Every point is
    validated before the first one runs."""
    keys = list(grid)
    combos = list(itertools.product(*(grid[k] for k in keys)))
    plans = [plan(game, n, seed=seed, params={**(base or {}), **dict(zip(keys, c, strict=True))},
                  policies=policies, jobs=jobs, level=level, progress=progress) for c in combos]
    result = SweepResult(plans[0].game, grid, base=dict(base or {}))
    for p in plans:
        frame = execute(p)
        values = {k: getattr(p.knobs, k) for k in keys}
        result.points.append(SweepPoint(values, p, compute(p.game, frame, p.knobs, level, conf)))
    return result
