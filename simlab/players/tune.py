"""``simlab tune``: policy-knob values that play better against the current field.

One seat (or, in team games, one side) plays candidate values of the game's policy knobs
(``simlab.engine.seatknobs``) against a field playing the current values, on the same deals with
the seats rotated (duplicate play, ``simlab.players.duel``): a candidate's *gain* is its mean
result per deal minus what the current values score in the same seats on the same deals,
each score relative to its table (``simlab.players.duel``: what a move pays the others counts).

The search is successive halving over one-knob moves: every candidate (each tuned knob
moved by 1, 2, 4, 8 steps either way within its range, the other choices of a choice or
bool knob) plays ``n`` deals; the better half plays twice as many fresh deals; and so on
until one is left. The survivor's gain is then measured once more on fresh deals it was
not selected on (``validate`` deals), so its interval is not flattered by the selection.
It is adopted only when that interval excludes zero. With ``rounds > 1`` the field adopts
the winner and the search starts again around it (coordinate ascent).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from simlab.engine import stats
from simlab.engine.game import Game, as_game
from simlab.engine.knobs import Knobs, SimlabError
from simlab.engine.runner import plan, simulate
from simlab.engine.seatknobs import SEP, policy_knob_names
from simlab.players.duel import arrangements, per_deal_edge

STEPS = (1, 2, 4, 8)
FLOAT_STEPS = (0.1, 0.25, 0.5)
SHOWN = 3  # candidates printed per stage
SEED_STRIDE = 1_000_003  # stage seeds: far apart, so no stage replays another's deals
SEED_LIMIT = 2**63  # a run's seed is below this
STAGES_PER_ROUND = 64  # seed slots per round; the last is the validation's


@dataclass(frozen=True)
class Gain:
    values: dict[str, Any]  # the candidate's policy values (only those that differ)
    edge: float
    lo: float
    hi: float
    n: int
    unchanged: bool = False  # every deal came out exactly as with the field's values
    flat: bool = False  # no deal's result changed (its edge is 0 on every deal)

    @property
    def label(self) -> str:
        return " ".join(f"{k}={_text(v)}" for k, v in self.values.items()) or "(current)"


@dataclass
class Round:
    field_values: dict[str, Any]  # what the field played this round
    stages: list[list[Gain]] = field(default_factory=list)  # each stage, best first
    validated: Gain | None = None
    adopted: bool = False


@dataclass
class TuneResult:
    game: str
    policy: str
    knobs: list[str]
    rounds: list[Round]
    unit: str
    params: dict[str, Any]
    idle: list[str] = field(default_factory=list)  # knobs whose every move changed no deal
    flat: list[str] = field(default_factory=list)  # ... changed no deal's result
    teams: bool = False  # the gain is a side's (partners), else a seat's

    @property
    def never_changed(self) -> bool:
        """No tuned knob changed a single deal's result in the first stage: nothing to
        tune, and nothing is written."""
        return bool(self.knobs) and set(self.flat) == set(self.knobs)

    @property
    def final_values(self) -> dict[str, Any]:
        """The field's values after the last round (the current ones if nothing won)."""
        last = self.rounds[-1]
        values = dict(last.field_values)
        if last.adopted and last.validated is not None:
            values.update(last.validated.values)
        return values


def _text(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def tunable_knobs(knobs_type: type[Knobs], names: list[str] | None = None) -> list[str]:
    """The policy knobs tune moves: the heuristic's (``search_*`` budgets are left alone
    unless named), or exactly ``names``."""
    policy = policy_knob_names(knobs_type)
    if names is None:
        return [k for k in policy if not k.startswith("search_")]
    for k in names:
        if k not in policy:
            kind = "a rule, not a policy knob" if k in knobs_type.names() else "unknown"
            raise SimlabError(f"tune: knob {k!r} is {kind}; policy knobs: {', '.join(policy)}")
    return list(names)


def candidates(knobs: Knobs, names: list[str]) -> list[dict[str, Any]]:
    """One-knob moves from the current values, each a valid knob value."""
    out: list[dict[str, Any]] = []
    for f in fields(knobs):
        if f.name not in names:
            continue
        cur = getattr(knobs, f.name)
        meta = f.metadata
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        if meta["choices"] is not None:
            values = [c for c in meta["choices"] if c != cur]
        elif kind == "bool":
            values = [not cur]
        elif kind == "int":
            values = sorted({cur + s * d for s in STEPS for d in (-1, 1)})
        else:
            scale = max(abs(cur), 1.0)
            values = sorted({round(cur + s * d * scale, 6) for s in FLOAT_STEPS for d in (-1, 1)})
        lo, hi = meta["lo"], meta["hi"]
        for v in values:
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                continue
            try:
                type(knobs).from_mapping({**knobs.as_dict(), f.name: v})
            except SimlabError:  # a cross-knob check refuses it
                continue
            out.append({f.name: v})
    return out


def _spec(policy: str, values: dict[str, Any]) -> str:
    return SEP.join([policy] + [f"{k}={_text(v)}" for k, v in values.items()])


class _Evaluator:
    """Gains of candidates on deals ``seed``: the field's own frames are run once per
    seed and shared by every candidate (the duplicate baseline)."""

    def __init__(self, game: Game, policy: str, params: dict, jobs: int,
                 progress: Callable[[str], None]):
        self.g = as_game(game)
        self.game, self.policy, self.params, self.jobs = self.g.slug, policy, params, jobs
        knobs = plan(self.g, 1, params=params).knobs
        self.players = self.g.players(knobs)
        teams = self.g.teams(knobs) if self.g.teams is not None else None
        self.teams = teams
        self.say = progress
        self.frames: dict[tuple[str, int, int], Any] = {}

    def _frame(self, spec: str, n: int, seed: int):
        key = (spec, n, seed)
        if key not in self.frames:
            self.frames[key] = simulate(self.g, n, seed=seed, params=self.params, policies=spec,
                                        jobs=self.jobs, progress=False)
        return self.frames[key]

    def gain(self, values: dict[str, Any], n: int, seed: int) -> Gain:
        x = _spec(self.policy, values)
        plan_ = arrangements(self.game, x, self.policy, self.players, self.teams)
        frames = [self._frame(spec, n, seed) for spec, _ in plan_]
        edge = per_deal_edge(frames, [s for _, s in plan_], self.players, self.teams,
                             self.g.lower_score_wins)
        est = stats.mean(edge)
        field_frame = self._frame(",".join([self.policy] * self.players), n, seed)
        unchanged = all(f.equals(field_frame) for f in frames)
        return Gain(values, est.value, est.lo, est.hi, est.n, unchanged,
                    bool(np.all(edge == 0)))

    def forget(self, seed: int) -> None:
        self.frames = {k: v for k, v in self.frames.items() if k[2] != seed}


def tune(game: Game, *, knobs: list[str] | None = None, n: int = 2000,
         validate: int | None = None,
         rounds: int = 1, seed: int = 0, params: dict | None = None, policy: str = "heuristic",
         jobs: int = 1, progress: Callable[[str], None] | None = None) -> TuneResult:
    """Successive halving over one-knob moves, then a validation on fresh deals (module
    docstring). ``n``: deals per candidate at the first stage; ``validate``: deals of the
    validation (default ``16 * n``)."""
    g = as_game(game)
    game = g.slug  # for messages and the result
    if not g.seat_policy_knobs:
        raise SimlabError(f"tune: {game} has no per-seat policy knobs yet")
    if policy not in g.policies or policy == "random":
        valid = ", ".join(p for p in g.policies if p != "random")
        raise SimlabError(f"tune: policy {policy!r} cannot be tuned for {game}; valid: {valid}")
    if not isinstance(n, int) or n < 10:
        raise SimlabError(f"tune: n (deals per candidate at the first stage) must be >= 10, got {n!r}")
    if not isinstance(rounds, int) or not 1 <= rounds <= 50:
        raise SimlabError(f"tune: rounds must be an integer from 1 to 50, got {rounds!r}")
    validate = 16 * n if validate is None else validate
    if not isinstance(validate, int) or validate < 10:
        raise SimlabError(f"tune: validate (deals) must be >= 10, got {validate!r}")
    last_seed = seed + SEED_STRIDE * ((rounds - 1) * STAGES_PER_ROUND + STAGES_PER_ROUND - 1) \
        if isinstance(seed, int) and not isinstance(seed, bool) else seed
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or last_seed >= SEED_LIMIT:
        top = SEED_LIMIT - 1 - SEED_STRIDE * (rounds * STAGES_PER_ROUND - 1)
        raise SimlabError(f"tune: seed must be an integer from 0 to {top:,} with {rounds} "
                          f"round(s) (its stages play seeds up to seed + "
                          f"{SEED_STRIDE * (rounds * STAGES_PER_ROUND - 1):,}), got {seed!r}")
    say = progress or (lambda _msg: None)
    params = dict(params or {})
    base = plan(g, 1, params=params).knobs
    params = {k: getattr(base, k) for k in params}  # typed, as the variant file writes them
    names = tunable_knobs(type(base), knobs)
    if not names:
        raise SimlabError(f"tune: {game} has no policy knob to tune")
    result = TuneResult(game, policy, names, [], "", params, teams=_teams(g))
    for r in range(rounds):
        field_knobs = plan(g, 1, params=params).knobs
        rnd = Round({k: getattr(field_knobs, k) for k in names})
        result.rounds.append(rnd)
        ev = _Evaluator(g, policy, params, jobs, say)
        alive = candidates(field_knobs, names)
        stage_n = n
        stage = 0
        while alive:
            stage_seed = seed + SEED_STRIDE * (r * STAGES_PER_ROUND + stage)
            say(f"round {r + 1}, stage {stage + 1}: {len(alive)} candidates x {stage_n:,} deals")
            gains = sorted((ev.gain(v, stage_n, stage_seed) for v in alive),
                           key=lambda x: -x.edge)
            ev.forget(stage_seed)
            rnd.stages.append(gains)
            if r == 0 and stage == 0:
                result.idle = [k for k in names
                               if all(x.unchanged for x in gains if k in x.values)]
                result.flat = [k for k in names if all(x.flat for x in gains if k in x.values)]
                if result.never_changed:
                    break
            if len(gains) <= 2:  # the better of the last two survives
                break
            alive = [x.values for x in gains[:math.ceil(len(gains) / 2)]]
            stage_n *= 2
            stage += 1
        if not rnd.stages or result.never_changed:
            break
        best = rnd.stages[-1][0]
        val_seed = seed + SEED_STRIDE * (r * STAGES_PER_ROUND + STAGES_PER_ROUND - 1)
        say(f"round {r + 1}: validating {best.label} on {validate:,} fresh deals")
        rnd.validated = ev.gain(best.values, validate, val_seed)
        rnd.adopted = rnd.validated.lo > 0
        if not rnd.adopted:
            break
        params = {**params, **best.values}
    unit = g.extra.get("score_unit", "points")
    result.unit = (f"penalty {unit} per deal (positive: fewer)" if g.lower_score_wins
                   else f"{unit} per deal")
    result.params = params
    return result


def format_result(res: TuneResult) -> str:
    lines = [f"tune {res.game}: {res.policy} policy knobs {', '.join(res.knobs)}",
             f"gain of one {'side' if res.teams else 'seat'} against the field, "
             f"duplicate, {res.unit}, 95% interval"]
    for i, rnd in enumerate(res.rounds, 1):
        field_text = " ".join(f"{k}={_text(v)}" for k, v in rnd.field_values.items())
        lines.append(f"round {i}: field plays {field_text}")
        for j, stage in enumerate(rnd.stages, 1):
            lines.append(f"  stage {j}: {len(stage)} candidates x {stage[0].n:,} deals, best first")
            width = max(len(x.label) for x in stage[:SHOWN])
            for x in stage[:SHOWN]:
                lines.append(f"    {x.label:<{width}} {x.edge:+8.3f} [{x.lo:+.3f}, {x.hi:+.3f}]")
            if len(stage) > SHOWN:
                lines.append(f"    ... {len(stage) - SHOWN} more")
        v = rnd.validated
        if v is not None:
            verdict = ("adopted: the interval excludes 0" if rnd.adopted
                       else "not adopted: the interval includes 0 or is below it")
            lines.append(f"  best {v.label}: gain {v.edge:+.3f} [{v.lo:+.3f}, {v.hi:+.3f}] on "
                         f"{v.n:,} fresh deals")
            lines.append(f"    {verdict}")
    knob = "this knob" if len(res.knobs) == 1 else "these knobs"
    if res.never_changed and set(res.idle) == set(res.knobs):
        lines.append(f"{knob} never changed a decision on these deals (every move of "
                     f"{', '.join(res.knobs)} played every deal exactly as the current values): "
                     "nothing to tune; no variant file written")
        return "\n".join(lines)
    if res.never_changed:
        lines.append(f"{knob} never changed a result on these deals (moves of "
                     f"{', '.join(res.knobs)} changed the play of some deals, never a score): "
                     "nothing to tune; no variant file written")
        return "\n".join(lines)
    if res.idle:
        lines.append(f"never changed a decision on these deals: {', '.join(res.idle)}")
    final = res.final_values
    changed = {k: v for k, v in final.items() if v != res.rounds[0].field_values[k]}
    if changed:
        lines.append("values found: " + " ".join(f"{k}={_text(v)}" for k, v in changed.items()))
    else:
        lines.append("values found: none better than the current ones")
    return "\n".join(lines)


def _teams(g: Game) -> bool:
    if g.teams is None:
        return False
    knobs = plan(g, 1).knobs
    return len(set(g.teams(knobs))) > 1


def write_variant(res: TuneResult, path: str | Path) -> Path:
    """The run's knob values plus the values found, as a variant TOML file."""
    p = Path(path)
    values = {**res.params, **res.final_values}
    lines = [f"# simlab tune {res.game}: {res.policy} policy values found by duplicate play",
             f'game = "{res.game}"']
    for r, rnd in enumerate(res.rounds, 1):
        if rnd.validated is not None:
            v = rnd.validated
            lines.append(f"# round {r}: {v.label} {v.edge:+.3f} [{v.lo:+.3f}, {v.hi:+.3f}] "
                         f"{res.unit}, n = {v.n:,}; {'adopted' if rnd.adopted else 'not adopted'}")
    for k, v in values.items():
        lines.append(f"{k} = {_toml(v)}")
    try:
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as e:
        raise SimlabError(f"cannot write {str(p)!r}: {e.strerror or e}") from None
    return p


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return repr(v.item() if hasattr(v, "item") else v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
