"""``simlab balance``: search rule space for the fairest variant, honestly.

A user names the knobs to vary (``queen_points=0..10``, ``auction=open,one_round``), an
objective made of the game's metrics (``|belote.q2.margin.dealer_team|``, ``contract.success
-> 0.5``, ``max: ...``; two objectives give a Pareto front) and constraints
(``match_length <= 1.1 * baseline``). The search then:

1. **proposes candidates**: every point of a small grid, or, when the space is large or
   continuous, the best of an Optuna TPE search (seeded) on a short pilot;
2. **races them** on common random numbers: every candidate of a rung plays the same deals
   (deal ``i`` draws from its own stream keyed by (seed, i)), split into blocks; an
   objective's interval and every paired difference come from the jackknife over those
   blocks (leave one block out), so any expression of the metrics — ratios, weighted sums,
   ``|x|`` — gets an interval and pairs are compared deal for deal. A rung drops the
   candidates clearly worse than the leader (paired interval above zero), or clearly
   violating a constraint, then halves the rest (successive halving); survivors get more
   deals;
3. **re-measures the finalists on fresh deals** (another seed): the reported figures and
   intervals come from there, never from the racing that selected them (no winner's curse),
   at the confidence ``1 - alpha / K`` for K finalists (Bonferroni: the K intervals hold
   together with probability ``1 - alpha`` at least);
4. **checks the finalists under the search player** where the game has one.

``|g|`` is measured through ``g``: the interval of ``|g|`` is the image of ``g``'s interval
(0 at the bottom when it straddles zero), which keeps its coverage where ``|g|`` is not
smooth — exactly at the fair point the search is looking for.

May import: the engine, the games' contract, and ``simlab.analysis`` below it (metrics,
plots, report's document writer)."""

from __future__ import annotations

import ast
import itertools
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from simlab.analysis.metrics import (
    BALANCES,
    MetricSums,
    compute_from,
    game_defs,
    metric_moments,
    metric_sums,
)
from simlab.analysis.sums import Moments
from simlab.engine.game import Game, game_from_ref
from simlab.engine.knobs import SimlabError, did_you_mean
from simlab.engine.progress import Progress
from simlab.engine.runner import Plan, executor, game_ref, plan, run_chunk, run_tasks
from simlab.engine.stats import t_ppf

BLOCKS_PER_RUNG = 16  # jackknife blocks a rung's deals are split into
MAX_BLOCKS = 32  # more blocks are merged pairwise (a jackknife needs no more)
RACING_SHARE = 0.7  # of the budget; the rest re-measures the finalists on fresh deals
PILOT_SHARE = 0.25  # of the racing share, when Optuna proposes the candidates
MAX_GRID = 24  # a grid with more points (or a continuous range) goes to Optuna
MIN_BLOCK = 50  # deals per block at least, else the budget is too small


# --- what varies ----------------------------------------------------------------------
@dataclass(frozen=True)
class Axis:
    """One knob to vary: ``values`` (a finite list) or a continuous ``lo..hi``."""

    name: str
    kind: str  # "int", "float" or "choice"
    values: tuple[Any, ...] | None = None
    lo: float | None = None
    hi: float | None = None

    @property
    def continuous(self) -> bool:
        return self.values is None


_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _knob_field(game: Game, name: str):
    from dataclasses import fields

    by_name = {f.name: f for f in fields(game.knobs)}
    if name not in by_name:
        raise SimlabError(f"--vary: unknown knob {name!r} for {game.slug}"
                          f"{did_you_mean(name, list(by_name))}; valid knobs: "
                          f"{', '.join(by_name)}")
    return by_name[name]


def _check_value(game: Game, base: dict[str, Any], name: str, value: Any, item: str) -> Any:
    """``value`` as the knob holds it, refused in one line when the game does not accept it."""
    try:
        knobs = game.make_knobs({**base, name: value})
    except SimlabError as e:
        raise SimlabError(f"--vary {item!r}: {e}") from None
    return getattr(knobs, name)


def parse_vary(game: Game, items: list[str], base: dict[str, Any] | None = None) -> list[Axis]:
    """``["queen_points=0..10", "x=0.5..2.0:0.5", "auction=open,one_round"]`` -> axes,
    every value checked against the game's knobs (``a..b`` integers inclusive; ``:step``
    a step; a float range without a step is continuous)."""
    base = dict(base or {})
    if not items:
        raise SimlabError("balance needs at least one --vary KNOB=RANGE, e.g. --vary "
                          "queen_points=0..10 or --vary auction=open,one_round")
    axes: list[Axis] = []
    for item in items:
        if "=" not in item:
            raise SimlabError(f"--vary expects KNOB=RANGE (a..b, a..b:step or v1,v2,...), "
                              f"got {item!r}")
        name, spec = (s.strip() for s in item.split("=", 1))
        f = _knob_field(game, name)
        if name in {a.name for a in axes}:
            raise SimlabError(f"--vary: knob {name!r} is given twice")
        typ = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        m = re.fullmatch(rf"({_NUM})\s*\.\.\s*({_NUM})(?:\s*:\s*({_NUM}))?", spec)
        if m:
            if typ not in ("int", "float"):
                raise SimlabError(f"--vary {item!r}: {name} is a {typ} knob; give its values "
                                  "as v1,v2,...")
            lo, hi = float(m.group(1)), float(m.group(2))
            step = float(m.group(3)) if m.group(3) else None
            if hi < lo:
                raise SimlabError(f"--vary {item!r}: the range's end {m.group(2)} is below "
                                  f"its start {m.group(1)}")
            if step is not None and step <= 0:
                raise SimlabError(f"--vary {item!r}: the step must be positive")
            if typ == "int":
                if not (lo.is_integer() and hi.is_integer() and (step is None or step.is_integer())):
                    raise SimlabError(f"--vary {item!r}: {name} takes integers; give a..b "
                                      "with integer ends and step")
                vals = tuple(range(int(lo), int(hi) + 1, int(step or 1)))
            elif step is None:
                for v in (lo, hi):
                    _check_value(game, base, name, v, item)
                axes.append(Axis(name, "float", None, lo, hi))
                continue
            else:
                count = int(math.floor((hi - lo) / step + 1e-9)) + 1
                vals = tuple(round(lo + k * step, 12) for k in range(count))
            axes.append(Axis(name, typ, tuple(_check_value(game, base, name, v, item)
                                              for v in vals)))
            continue
        raw = [v.strip() for v in spec.split(",") if v.strip()]
        if not raw:
            raise SimlabError(f"--vary expects KNOB=RANGE (a..b, a..b:step or v1,v2,...), "
                              f"got {item!r}")
        vals = tuple(_check_value(game, base, name, v, item) for v in raw)
        if len(set(vals)) != len(vals):
            raise SimlabError(f"--vary {item!r}: a value is listed twice")
        axes.append(Axis(name, "choice" if typ not in ("int", "float") else typ, vals))
    return axes


def grid_size(axes: list[Axis]) -> int | None:
    """Points of the grid, None when an axis is continuous."""
    if any(a.continuous for a in axes):
        return None
    return math.prod(len(a.values or ()) for a in axes)


# --- objectives and constraints ---------------------------------------------------------
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*")
_FUNCS = {"abs", "min", "max", "baseline", "sqrt"}


@dataclass
class Expression:
    """An arithmetic expression over metric keys: ``+ - * /``, ``|x|`` or ``abs(x)``,
    ``min``/``max``, ``sqrt``, numbers and ``baseline(x)`` (``x`` under the current
    defaults, on the same deals)."""

    text: str
    tree: ast.expr
    names: dict[str, str]  # placeholder -> metric key

    @property
    def keys(self) -> set[str]:
        return set(self.names.values())

    def folded(self) -> Expression | None:
        """``g`` when this is ``|g|`` (``abs(g)``), else None."""
        t = self.tree
        if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "abs" \
                and len(t.args) == 1:
            return Expression(self.text, t.args[0], self.names)
        return None

    def value(self, values: dict[str, float], base: dict[str, float] | None = None) -> float:
        return _eval(self.tree, self.names, values, base, False)


def _eval(t: ast.AST, names: dict[str, str], values: dict[str, float],
          base: dict[str, float] | None, in_base: bool) -> float:
    if isinstance(t, ast.Constant):
        return float(t.value)
    if isinstance(t, ast.Name):
        key = names[t.id]
        src = base if in_base else values
        if src is None:
            raise SimlabError("baseline(...) is only available where the defaults were measured")
        v = src.get(key)
        return float("nan") if v is None else float(v)
    if isinstance(t, ast.UnaryOp):
        v = _eval(t.operand, names, values, base, in_base)
        return -v if isinstance(t.op, ast.USub) else v
    if isinstance(t, ast.BinOp):
        a = _eval(t.left, names, values, base, in_base)
        b = _eval(t.right, names, values, base, in_base)
        if isinstance(t.op, ast.Add):
            return a + b
        if isinstance(t.op, ast.Sub):
            return a - b
        if isinstance(t.op, ast.Mult):
            return a * b
        return a / b if b != 0 else float("nan")
    if isinstance(t, ast.Call):
        fn = t.func.id  # type: ignore[attr-defined]
        if fn == "baseline":
            return _eval(t.args[0], names, values, base, True)
        args = [_eval(a, names, values, base, in_base) for a in t.args]
        if fn == "abs":
            return abs(args[0])
        if fn == "sqrt":
            return math.sqrt(args[0]) if args[0] >= 0 else float("nan")
        return min(args) if fn == "min" else max(args)
    raise AssertionError(f"unchecked node {ast.dump(t)}")


def _check_tree(t: ast.AST, text: str, what: str) -> None:
    ok = (ast.Expression, ast.Constant, ast.Name, ast.UnaryOp, ast.BinOp, ast.Call, ast.Load,
          ast.USub, ast.UAdd, ast.Add, ast.Sub, ast.Mult, ast.Div)
    for node in ast.walk(t):
        if not isinstance(node, ok):
            raise SimlabError(f"{what} {text!r}: only numbers, metric keys, + - * /, |x|, abs(), "
                              "min(), max(), sqrt() and baseline() are allowed")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise SimlabError(f"{what} {text!r}: {node.value!r} is not a number")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
                raise SimlabError(f"{what} {text!r}: unknown function; valid: "
                                  f"{', '.join(sorted(_FUNCS))}")
            want = {"abs": 1, "sqrt": 1, "baseline": 1}.get(node.func.id)
            if (want is not None and len(node.args) != want) or not node.args:
                raise SimlabError(f"{what} {text!r}: {node.func.id}() takes "
                                  f"{want or 'at least one'} argument")


def parse_expression(text: str, keys: list[str], what: str = "--objective") -> Expression:
    """An ``Expression``, refused in one line naming the problem (unknown metric keys with
    the closest ones, syntax)."""
    if not text or not text.strip():
        raise SimlabError(f"{what} is empty; give an expression of metric keys, e.g. "
                          "'|balance.first_seat_advantage|'")
    src = text.strip()
    # |x| -> abs(x): bars pair up from the inside out
    while "|" in src:
        m = re.search(r"\|([^|]*)\|", src)
        if not m:
            raise SimlabError(f"{what} {text!r}: unmatched '|'")
        src = src[:m.start()] + f"abs({m.group(1)})" + src[m.end():]
    names: dict[str, str] = {}
    known = set(keys)

    def sub(m: re.Match) -> str:
        word = m.group(0)
        if word in _FUNCS:
            return word
        if word not in known:
            raise SimlabError(f"{what} {text!r}: unknown metric {word!r}"
                              f"{did_you_mean(word, keys)}; `simlab metrics GAME` lists "
                              "them (e.g. " + ", ".join(keys[:4]) + ")")
        for ph, key in names.items():
            if key == word:
                return ph
        ph = f"m{len(names)}"
        names[ph] = word
        return ph

    # numbers first (so 1e-3 or 0.5 are not read as names), then keys
    parts = re.split(rf"(?<![A-Za-z0-9_.])({_NUM})(?![A-Za-z0-9_])", src)
    out = []
    for i, part in enumerate(parts):
        out.append(part if i % 2 else _KEY.sub(sub, part))
    body = "".join(out)
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError:
        raise SimlabError(f"{what} {text!r} does not parse as an expression of metric "
                          "keys") from None
    _check_tree(tree, text, what)
    if not names:
        raise SimlabError(f"{what} {text!r} names no metric; give one, e.g. "
                          f"'|{keys[0] if keys else 'metric'}|'")
    return Expression(text, tree.body, names)


@dataclass
class Objective:
    expr: Expression
    maximize: bool = False

    @property
    def label(self) -> str:
        return ("max " if self.maximize else "min ") + self.expr.text


def parse_objective(text: str, keys: list[str]) -> Objective:
    """``EXPR`` (minimised), ``max: EXPR`` / ``min: EXPR``, or ``EXPR -> VALUE`` (as close as
    possible to VALUE: ``|EXPR - VALUE|`` minimised)."""
    t = text.strip()
    maximize = False
    m = re.match(r"^(max|min)\s*:\s*(.*)$", t, re.S)
    if m:
        maximize, t = m.group(1) == "max", m.group(2)
    if "->" in t:
        left, _, right = t.partition("->")
        if not re.fullmatch(rf"\s*{_NUM}\s*", right):
            raise SimlabError(f"--objective {text!r}: after '->' give the target number, "
                              "e.g. 'contract.success -> 0.5'")
        if maximize:
            raise SimlabError(f"--objective {text!r}: a target ('->') is approached, not "
                              "maximised; drop 'max:'")
        e = parse_expression(f"|({left.strip()}) - ({right.strip()})|", keys)
        return Objective(replace(e, text=t.strip()))
    return Objective(parse_expression(t, keys), maximize)


@dataclass
class Constraint:
    lhs: Expression
    op: str  # "<=" or ">="
    rhs: Expression
    text: str

    def slack(self, values: dict[str, float], base: dict[str, float]) -> float:
        """<= 0 when met (``lhs - rhs`` for <=, ``rhs - lhs`` for >=)."""
        d = self.lhs.value(values, base) - self.rhs.value(values, base)
        return d if self.op == "<=" else -d


def parse_constraint(text: str, keys: list[str]) -> Constraint:
    """``EXPR <= EXPR`` or ``EXPR >= EXPR``; a bare ``baseline`` on the right is the left
    side under the current defaults (``match_length <= 1.1 * baseline``)."""
    m = re.fullmatch(r"(.*?)(<=|>=|<|>)(.*)", text.strip(), re.S)
    if not m or not m.group(1).strip() or not m.group(3).strip():
        raise SimlabError(f"--constraint {text!r}: give EXPR <= EXPR or EXPR >= EXPR, e.g. "
                          "'match_length <= 1.1 * baseline'")
    left, op, right = m.group(1).strip(), m.group(2), m.group(3).strip()
    op = {"<": "<=", ">": ">="}.get(op, op)
    right = re.sub(r"\bbaseline\b(?!\s*\()", f"baseline({left})", right)
    return Constraint(parse_expression(left, keys, "--constraint"), op,
                      parse_expression(right, keys, "--constraint")
                      if _KEY.search(right) else _const(right, text), text.strip())


def _const(right: str, text: str) -> Expression:
    try:
        tree = ast.parse(right, mode="eval")
    except SyntaxError:
        raise SimlabError(f"--constraint {text!r}: the right side does not parse") from None
    _check_tree(tree, text, "--constraint")
    return Expression(right, tree.body, {})


# --- measuring a candidate on blocks of deals ---------------------------------------------
def _block_sums(game: str | Game, knobs: Any, policies: tuple[str, ...], seed: int, level: str,
                start: int, count: int, keys: frozenset[str] | None = None
                ) -> tuple[list[str], list, tuple]:
    """Deals ``start .. start+count-1`` reduced, where they ran, to exact metric sums
    (``keys``: only these metrics' — what the search reads; None: every metric)."""
    g = game_from_ref(game)
    frame = run_chunk(g, knobs, policies, seed, level, False, start, count)
    if keys is None:
        s = metric_sums(g, frame, knobs, level)
        return [d.key for d in s.defs], s.moments, s.joint
    defs = _only_defs(game_defs(g, frame, knobs, level), keys)
    return ([d.key for d in defs], metric_moments(frame, defs),
            tuple(Moments.zero(0) for _ in BALANCES))


def _only_defs(defs: list, keys: frozenset[str] | None) -> list:
    return defs if keys is None else [d for d in defs if d.key in keys]


def _reads(keys: set[str]) -> frozenset[str] | None:
    """The metric keys a block must sum: None (all) when a ``balance.*`` figure is read,
    which needs every position's wins together."""
    return None if any(k.startswith("balance.") for k in keys) else frozenset(keys)


@dataclass
class Candidate:
    values: dict[str, Any]  # the varied knobs' values
    params: dict[str, Any]  # every knob set (base + values)
    plan: Plan
    label: str
    is_default: bool = False
    blocks: list[MetricSums] = field(default_factory=list)
    deals: int = 0  # racing deals played
    status: str = "raced"
    dropped_at: int | None = None
    estimate: list[Estimate2] = field(default_factory=list)  # per objective, last rung
    slack: list[Estimate2] = field(default_factory=list)  # per constraint, last rung
    pilot: list[float] | None = None


@dataclass(frozen=True)
class Estimate2:
    """An estimate with its interval (jackknife over blocks of deals) and its deals."""

    value: float
    lo: float
    hi: float
    n: int
    conf: float

    def text(self, digits: int = 4) -> str:
        if not math.isfinite(self.value):
            return "n/a"
        return f"{self.value:.{digits}g} [{self.lo:.{digits}g}, {self.hi:.{digits}g}]"


def _merge(blocks: list[MetricSums]) -> list[MetricSums]:
    while len(blocks) > MAX_BLOCKS:
        blocks = [blocks[i] + blocks[i + 1] if i + 1 < len(blocks) else blocks[i]
                  for i in range(0, len(blocks), 2)]
    return blocks


class Values:
    """Metric values of one candidate on all its blocks and with each block left out
    (``keys``: only these metrics, None = all)."""

    def __init__(self, blocks: list[MetricSums]):
        total = blocks[0]
        for b in blocks[1:]:
            total = total + b
        self.full = _values(total)
        self.loo: list[dict[str, float]] = []
        if len(blocks) > 1:
            prefix = [blocks[0]]
            for b in blocks[1:]:
                prefix.append(prefix[-1] + b)
            suffix = [blocks[-1]]
            for b in reversed(blocks[:-1]):
                suffix.append(suffix[-1] + b)
            suffix.reverse()
            for i in range(len(blocks)):
                parts = ([prefix[i - 1]] if i > 0 else []) + \
                        ([suffix[i + 1]] if i + 1 < len(blocks) else [])
                s = parts[0] if len(parts) == 1 else parts[0] + parts[1]
                self.loo.append(_values(s))


def _values(s: MetricSums) -> dict[str, float]:
    return {m.key: m.estimate.value for m in compute_from(s).metrics}


def jackknife(fn: Callable[[int], float], blocks: int, n: int, conf: float) -> Estimate2:
    """``fn(-1)``: the statistic on every block; ``fn(i)``: with block ``i`` left out."""
    full = fn(-1)
    loo = np.array([fn(i) for i in range(blocks)], dtype=float)
    if blocks < 2 or not math.isfinite(full) or not np.all(np.isfinite(loo)):
        return Estimate2(full, float("nan"), float("nan"), n, conf)
    se = math.sqrt((blocks - 1) / blocks * float(np.sum((loo - loo.mean()) ** 2)))
    h = t_ppf(0.5 + conf / 2, blocks - 1) * se
    return Estimate2(full, full - h, full + h, n, conf)


def _pick(v: Values, i: int) -> dict[str, float]:
    return v.full if i < 0 else v.loo[i]


def objective_estimate(obj: Objective, v: Values, base: Values | None, n: int,
                       conf: float) -> Estimate2:
    """The objective with its interval; ``|g|`` through ``g``'s interval."""
    blocks = len(v.loo)
    inner = obj.expr.folded()
    if inner is None:
        return jackknife(lambda i: obj.expr.value(_pick(v, i), _pick(base, i) if base else None),
                         blocks, n, conf)
    g = jackknife(lambda i: inner.value(_pick(v, i), _pick(base, i) if base else None),
                  blocks, n, conf)
    if not math.isfinite(g.lo):
        return Estimate2(abs(g.value), g.lo, g.hi, n, conf)
    lo = 0.0 if g.lo <= 0 <= g.hi else min(abs(g.lo), abs(g.hi))
    return Estimate2(abs(g.value), lo, max(abs(g.lo), abs(g.hi)), n, conf)


def paired_difference(obj: Objective, a: Values, b: Values, base: Values | None, n: int,
                      conf: float) -> Estimate2:
    """Objective(a) - objective(b) on the same deals (block for block)."""
    def f(i: int) -> float:
        bb = _pick(base, i) if base else None
        return obj.expr.value(_pick(a, i), bb) - obj.expr.value(_pick(b, i), bb)

    return jackknife(f, len(a.loo), n, conf)


def slack_estimate(c: Constraint, v: Values, base: Values, n: int, conf: float) -> Estimate2:
    return jackknife(lambda i: c.slack(_pick(v, i), _pick(base, i)), len(v.loo), n, conf)


# --- the search ------------------------------------------------------------------------------
@dataclass
class FinalRow:
    cand: Candidate
    objectives: list[Estimate2]
    vs_default: list[Estimate2]  # objective(candidate) - objective(defaults), paired
    slacks: list[Estimate2]
    feasible: bool


@dataclass
class SearchCheck:
    policies: str
    n: int
    rows: list[tuple[Candidate, list[Estimate2], list[Estimate2]]]  # cand, objectives, vs default
    verdicts: list[str]


@dataclass
class BalanceResult:
    game: Game
    axes: list[Axis]
    objectives: list[Objective]
    constraints: list[Constraint]
    candidates: list[Candidate]
    default: Candidate
    finals: list[FinalRow]
    final_default: FinalRow
    final_conf: float
    final_n: int
    recommended: list[Candidate]
    budget: int
    spent: int
    seed: int
    final_seed: int
    proposer: str
    rungs: list[str]
    conf: float
    level: str
    policies: str
    search: SearchCheck | None = None
    base: dict[str, Any] = field(default_factory=dict)

    def set_line(self, c: Candidate) -> str:
        return " ".join(f"--set {k}={_lit(v)}" for k, v in c.values.items())

    def row_of(self, c: Candidate) -> FinalRow:
        return next(x for x in [*self.finals, self.final_default] if x.cand is c)

    def verdict(self, c: Candidate) -> str:
        """How the variant stands against the current rules, on the fresh deals."""
        if c.is_default:
            return ("the current rules measure best: no candidate was better on the fresh "
                    "deals")
        o, d = self.objectives[0], self.row_of(c).vs_default[0]
        if not math.isfinite(d.lo):
            return "its difference with the current rules could not be measured"
        better = d.hi < 0 if not o.maximize else d.lo > 0
        worse = d.lo > 0 if not o.maximize else d.hi < 0
        if better:
            return "better than the current rules (the paired interval excludes 0)"
        if worse:
            return "worse than the current rules (the paired interval excludes 0)"
        return (f"not shown better than the current rules at {self.final_n:,} fresh deals "
                "(the paired interval includes 0): a larger --budget would tell")

    def toml(self, c: Candidate) -> str:
        return "\n".join(f"{k} = {_toml(v)}" for k, v in {**self.base, **c.values}.items())


def _lit(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)):
        return repr(v)
    return '"' + str(v).replace('"', '\\"') + '"'


def final_seed_of(seed: int) -> int:
    """The re-measurement's seed: fixed by ``seed``, and never the racing's deals."""
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (2**63 - 1) or 1


def metric_keys(game: Game, params: dict[str, Any], policies: str, level: str, seed: int) -> list[str]:
    """The metric keys a run of this game defines (from a short run of the defaults)."""
    p = plan(game, 64, seed=seed, params=params, policies=policies, level=level, progress=False)
    sums = MetricSums(*_sums_of(p, 0, 64))
    return [m.key for m in compute_from(sums).metrics]


def _sums_of(p: Plan, start: int, count: int) -> tuple[list, list, tuple]:
    keys, moments, joint = _block_sums(p.game, p.knobs, p.policies, p.seed, p.level, start, count)
    return _defs_of(p), moments, joint


_DEFS: dict[tuple, list] = {}


def _defs_of(p: Plan) -> list:
    """The metric definitions of a candidate (they may depend on its knobs)."""
    key = (id(p.game), p.knobs, p.level)
    if key not in _DEFS:
        one = run_chunk(p.game, p.knobs, p.policies, p.seed, p.level, False, 0, 1)
        _DEFS[key] = game_defs(p.game, one, p.knobs, p.level)
    return _DEFS[key]


class _Runner:
    """Plays (candidate, deal block) tasks on every core, each reduced where it ran."""

    def __init__(self, game: Game, jobs: int, progress: bool | None, budget: int, unit: str,
                 keys: frozenset[str] | None = None):
        self.game, self.jobs, self.keys = game, jobs, keys
        self.bar = Progress(budget, unit, enabled=progress)
        self.spent = 0

    def measure(self, cands: list[Candidate], seed: int, start: int, count: int,
                policies: str | None = None) -> list[list[MetricSums]]:
        """Each candidate's blocks of deals ``start .. start+count-1`` (seed ``seed``)."""
        # leave-one-out keeps all but one block, so small blocks are fine: a few deals each
        nb = max(1, min(BLOCKS_PER_RUNG, count // 5))
        edges = [start + (count * k) // nb for k in range(nb + 1)]
        ref = game_ref(self.game)
        plans = []
        for c in cands:
            p = c.plan if policies is None else replace(
                c.plan, policies=plan(self.game, 1, params=c.params, policies=policies,
                                      level=c.plan.level).policies)
            plans.append(replace(p, seed=seed))
        tasks = []
        for ci, p in enumerate(plans):
            for b in range(nb):
                tasks.append((ci * nb + b, _block_sums,
                              (ref, p.knobs, p.policies, seed, p.level, edges[b],
                               edges[b + 1] - edges[b], self.keys), {}))
        sizes = [t[2][-2] for t in tasks]
        out: dict[int, Any] = {}
        whole = replace(plans[0], n=sum(sizes), jobs=self.jobs)
        with executor("loky", None, self.jobs) as ex:
            for i, got in run_tasks(whole, ex, tasks, sizes=sizes, big=False):
                out[i] = got
                self.spent += sizes[i]
                self.bar.update(sizes[i])
        result = []
        for ci, p in enumerate(plans):
            defs = _only_defs(_defs_of(p), self.keys)
            blocks = []
            for b in range(nb):
                keys, moments, joint = out[ci * nb + b]
                if keys != [d.key for d in defs]:
                    raise RuntimeError(f"{self.game.slug}: a block defines other metrics than "
                                       "its columns give")
                blocks.append(MetricSums(defs, moments, joint))
            result.append(blocks)
        return result


def _label(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_lit(v)}" for k, v in values.items())


def _candidates_from_grid(axes: list[Axis]) -> list[dict[str, Any]]:
    return [dict(zip([a.name for a in axes], combo, strict=True))
            for combo in itertools.product(*(a.values or () for a in axes))]


def _dominates(a: list[float], b: list[float]) -> bool:
    return all(x <= y for x, y in zip(a, b, strict=True)) and any(
        x < y for x, y in zip(a, b, strict=True))


def _signed(obj: Objective, x: float) -> float:
    """Smaller is better, whatever the direction."""
    return -x if obj.maximize else x


def _front(points: list[list[float]]) -> list[int]:
    return [i for i, p in enumerate(points)
            if not any(_dominates(q, p) for j, q in enumerate(points) if j != i)]


def balance(game: Game, axes: list[Axis], objectives: list[Objective],
            constraints: list[Constraint], *, budget: int = 200_000, seed: int = 0,
            base: dict[str, Any] | None = None, policies: str = "heuristic",
            level: str = "deal", jobs: int = 1, finalists: int = 3, conf: float = 0.95,
            max_candidates: int = MAX_GRID, search_n: int | None = None,
            progress: bool | None = None, log: Callable[[str], None] = print) -> BalanceResult:
    """The fairest variants of ``game`` over ``axes`` (see the module docstring)."""
    if not objectives or len(objectives) > 2:
        raise SimlabError("balance takes one --objective (or two, for a Pareto front); "
                          f"got {len(objectives)}")
    base = dict(base or {})
    needed = set().union(*(o.expr.keys for o in objectives),
                         *(k.lhs.keys | k.rhs.keys for k in constraints))
    unit = "deals" if level == "deal" else "matches"
    racing_budget = int(budget * RACING_SHARE)
    size = grid_size(axes)
    defaults = {a.name: getattr(game.make_knobs(base), a.name) for a in axes}

    def make(values: dict[str, Any], is_default: bool = False) -> Candidate:
        params = {**base, **values}
        p = plan(game, 1, seed=seed, params=params, policies=policies, jobs=1, level=level,
                 progress=False)
        return Candidate(dict(values), params, p, _label(values), is_default)

    runner = _Runner(game, jobs, progress, budget, unit, _reads(needed))
    proposer = "every point of the grid"
    pool: list[dict[str, Any]]
    if size is not None and size <= max_candidates:
        pool = _candidates_from_grid(axes)
    else:
        pool, proposer = _propose(game, axes, objectives, make, runner, seed,
                                  int(racing_budget * PILOT_SHARE), max_candidates, size, log)
        racing_budget -= runner.spent
    cands = [make(v) for v in pool]
    default = next((c for c in cands if c.values == defaults), None)
    if default is None:
        default = make(defaults, True)
        cands.append(default)
    default.is_default = True
    min_per = BLOCKS_PER_RUNG * MIN_BLOCK // 2  # deals per candidate in a rung, at least
    need = len(cands) * min_per
    if racing_budget < need:
        raise SimlabError(f"--budget {budget:,} is too small for {len(cands)} candidates: "
                          f"give at least {math.ceil(need / RACING_SHARE):,} {unit} (or vary "
                          "fewer values)")
    rungs_text: list[str] = []
    alive = list(cands)
    rung_count = max(1, math.ceil(math.log2(max(1, len(cands) / max(1, finalists)))) + 1)
    start, rung = 0, 0
    while True:
        left = racing_budget - sum(c.deals for c in cands)
        rungs_left = max(1, rung_count - rung)
        per = left // (len(alive) * rungs_left)
        if per < min_per:
            if rung > 0:
                break
            per, rung_count = left // len(alive), 1  # one rung is all the budget allows
        got = runner.measure(alive, seed, start, per)
        for c, blocks in zip(alive, got, strict=True):
            c.blocks = _merge(c.blocks + blocks)
            c.deals += per
        start += per
        rung += 1
        vals = {id(c): Values(c.blocks) for c in alive}
        vbase = vals.get(id(default))
        bvals = vbase if vbase is not None else None
        for c in alive:
            c.estimate = [objective_estimate(o, vals[id(c)], bvals, c.deals, conf)
                          for o in objectives]
            c.slack = [slack_estimate(k, vals[id(c)], bvals, c.deals, conf)
                       for k in constraints] if bvals is not None else []
        kept = _race(alive, vals, objectives, constraints, default, rung, conf, finalists,
                     last=rung >= rung_count)
        rungs_text.append(f"rung {rung}: {len(alive)} candidates x {per:,} {unit} "
                          f"(deals {start - per:,}..{start - 1:,}); {len(kept)} kept")
        log(rungs_text[-1])
        alive = kept
        if rung >= rung_count or len(alive) <= finalists:
            break
    # finalists: the best (or the Pareto front) of the survivors, the defaults beside them
    alive = [c for c in alive if not c.is_default] or alive
    if len(objectives) == 1:
        alive.sort(key=lambda c: _signed(objectives[0], c.estimate[0].value))
        finals = alive[:finalists]
    else:
        pts = [[_signed(o, e.value) for o, e in zip(objectives, c.estimate, strict=True)]
               for c in alive]
        finals = [alive[i] for i in _front(pts)][: max(finalists, 6)]
    for c in finals:
        c.status = "finalist"
    k = max(1, len(finals))
    final_conf = 1 - (1 - conf) / k
    fseed = final_seed_of(seed)
    final_n = max(BLOCKS_PER_RUNG * MIN_BLOCK, (budget - runner.spent) // (len(finals) + 1))
    log(f"re-measuring {len(finals)} finalist(s) and the defaults on fresh deals "
        f"(seed {fseed}), {final_n:,} {unit} each")
    measured = runner.measure(finals + [default], fseed, 0, final_n)
    fv = [Values(_merge(b)) for b in measured]
    dv = fv[-1]
    rows = []
    for c, v in zip(finals + [default], fv, strict=True):
        objs = [objective_estimate(o, v, dv, final_n, final_conf) for o in objectives]
        diffs = [paired_difference(o, v, dv, dv, final_n, final_conf) for o in objectives]
        slacks = [slack_estimate(kc, v, dv, final_n, final_conf) for kc in constraints]
        feasible = all(s.value <= 0 for s in slacks)
        rows.append(FinalRow(c, objs, diffs, slacks, feasible))
    final_default = rows.pop()
    feasible = [r for r in rows if r.feasible] or rows
    if len(objectives) == 1:
        # the current rules compete too: when they measure best, they are the advice
        pool_rows = feasible + [final_default]
        pool_rows.sort(key=lambda r: _signed(objectives[0], r.objectives[0].value))
        recommended = [pool_rows[0].cand]
    else:
        pts = [[_signed(o, e.value) for o, e in zip(objectives, r.objectives, strict=True)]
               for r in feasible]
        recommended = [feasible[i].cand for i in _front(pts)]
    runner.bar.close()
    result = BalanceResult(game, axes, objectives, constraints, cands, default, rows,
                           final_default, final_conf, final_n, recommended, budget,
                           runner.spent, seed, fseed, proposer, rungs_text, conf, level,
                           policies, base=base)
    if search_n and "search" in game.policies and policies != "search":
        result.search = _search_check(result, runner, search_n, log)
    return result


def _race(alive: list[Candidate], vals: dict[int, Values], objectives: list[Objective],
          constraints: list[Constraint], default: Candidate, rung: int, conf: float,
          finalists: int, last: bool) -> list[Candidate]:
    """Drop the clearly worse and the clearly infeasible, then halve the rest."""
    def out(c: Candidate, why: str) -> None:
        c.status, c.dropped_at = why, rung

    base = vals.get(id(default))
    keep = []
    for c in alive:
        if not c.is_default and any(s.lo > 0 for s in c.slack if math.isfinite(s.lo)):
            out(c, "violates a constraint")
        else:
            keep.append(c)
    feasible = [c for c in keep if not any(s.value > 0 for s in c.slack)] or keep
    front: set[int] = set()
    if len(objectives) == 1:
        o = objectives[0]
        leader = min(feasible, key=lambda c: _signed(o, c.estimate[0].value))
        ranked = []
        for c in keep:
            if c is leader or c.is_default:
                ranked.append(c)
                continue
            d = paired_difference(o, vals[id(c)], vals[id(leader)], base, c.deals, conf)
            worse = d.lo > 0 if not o.maximize else d.hi < 0
            if math.isfinite(d.lo) and worse:
                out(c, "clearly worse")
            else:
                ranked.append(c)
        ranked.sort(key=lambda c: _signed(o, c.estimate[0].value))
    else:
        pts = {id(c): [_signed(o, e.value) for o, e in zip(objectives, c.estimate, strict=True)]
               for c in keep}
        ranked, rest = [], list(keep)
        while rest:  # non-dominated sorting: the front first, then the next front...
            idx = _front([pts[id(c)] for c in rest])
            if not ranked:
                front = {id(rest[i]) for i in idx}  # never halved away
            ranked += [rest[i] for i in idx]
            rest = [c for i, c in enumerate(rest) if i not in idx]
    if last:
        return ranked
    half = max(finalists, math.ceil(len([c for c in ranked if not c.is_default]) / 2))
    kept, n = [], 0
    for c in ranked:
        if c.is_default or id(c) in front:
            kept.append(c)  # the defaults stay: every figure is also read against them
            n += not c.is_default
        elif n < half:
            kept.append(c)
            n += 1
        else:
            out(c, "halved")
    return kept


def _propose(game: Game, axes: list[Axis], objectives: list[Objective], make, runner: _Runner,
             seed: int, pilot_budget: int, max_candidates: int, size: int | None,
             log: Callable[[str], None]) -> tuple[list[dict[str, Any]], str]:
    """Candidates from an Optuna TPE search on a short pilot (the same deals for every trial)."""
    try:
        import optuna
    except ImportError:
        raise SimlabError("this space is large or continuous and needs Optuna to propose "
                          "candidates: pip install optuna (or vary fewer values)") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    trials = max(2 * max_candidates, 30) if size is None else min(size, max(2 * max_candidates, 30))
    per = pilot_budget // trials
    if per < 2 * MIN_BLOCK:
        raise SimlabError(f"the budget leaves {per} deals per pilot trial for {trials} trials; "
                          f"give a larger --budget (at least {trials * 2 * MIN_BLOCK * 6:,})")
    directions = ["maximize" if o.maximize else "minimize" for o in objectives]
    sampler = optuna.samplers.TPESampler(seed=seed % (2**32), multivariate=True)
    study = optuna.create_study(directions=directions, sampler=sampler)
    seen: dict[tuple, list[float]] = {}
    log(f"proposing candidates: Optuna TPE, {trials} trials x {per:,} deals (the same deals each)")
    for _ in range(trials):
        trial = study.ask()
        values = {}
        for a in axes:
            if a.continuous:
                values[a.name] = trial.suggest_float(a.name, float(a.lo), float(a.hi))
            else:
                values[a.name] = trial.suggest_categorical(a.name, list(a.values or ()))
        key = tuple(values.items())
        if key not in seen:
            c = make(values)
            blocks = runner.measure([c], seed, 0, per)[0]
            v = Values(blocks)
            seen[key] = [objective_estimate(o, v, None, per, 0.95).value for o in objectives]
        study.tell(trial, seen[key] if len(objectives) > 1 else seen[key][0])
    order = sorted(seen, key=lambda k: [(-x if o.maximize else x)
                                        for o, x in zip(objectives, seen[k], strict=True)])
    return [dict(k) for k in order[:max_candidates]], (
        f"the best {min(len(order), max_candidates)} of {len(seen)} points tried by Optuna's TPE "
        f"sampler (seed {seed % (2**32)}) on a {per:,}-deal pilot")


def _search_check(r: BalanceResult, runner: _Runner, n: int, log) -> SearchCheck:
    """The finalists and the defaults under the search player, paired: does the fairest
    variant stay fairest with stronger play?"""
    fseed = final_seed_of(r.final_seed)
    picked = [row.cand for row in r.finals if not row.cand.is_default]
    log(f"checking under the search player: {len(picked)} finalist(s) and the defaults, "
        f"{n:,} deals each")
    got = runner.measure(picked + [r.default], fseed, 0, n, policies="search")
    vals = [Values(b) for b in got]
    dv = vals[-1]
    rows, verdicts = [], []
    for c, v in zip(picked, vals[:-1], strict=True):
        objs = [objective_estimate(o, v, dv, n, r.conf) for o in r.objectives]
        diffs = [paired_difference(o, v, dv, dv, n, r.conf) for o in r.objectives]
        rows.append((c, objs, diffs))
        o, d = r.objectives[0], diffs[0]
        better = d.hi < 0 if not o.maximize else d.lo > 0
        worse = d.lo > 0 if not o.maximize else d.hi < 0
        if not math.isfinite(d.lo):
            verdicts.append("not measurable at this sample")
        elif better:
            verdicts.append("stays better than the current rules under search")
        elif worse:
            verdicts.append("is worse than the current rules under search")
        else:
            verdicts.append(f"not distinguishable from the current rules under search at "
                            f"{n:,} deals")
    rows.append((r.default, [objective_estimate(o, dv, dv, n, r.conf) for o in r.objectives], []))
    verdicts.append("the current rules")
    return SearchCheck("search", n, rows, verdicts)


def _now() -> float:
    return time.perf_counter()
