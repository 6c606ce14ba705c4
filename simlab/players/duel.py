"""Duplicate play: how much stronger one policy is than another, on the same deals.

Card luck dwarfs skill, so two policies are compared on *the same deals* with seats
swapped, and the difference is taken deal by deal (a paired comparison):

* team games (``Game.teams``): policy X holds every seat of team 0 and Y of team 1, then
  the reverse; X's edge on a deal is the mean, over the two arrangements, of X's team
  score minus Y's team score (for 2 teams; with more teams, X's team minus the mean of
  the others);
* other games: X sits at one seat among Y seats, rotated over every seat, and is compared
  with Y at the same seat in an all-Y run of the same deals; X's edge on a deal is the
  mean over seats of (X's score there − Y's score there), each score taken *relative to
  its table*: minus the mean of every seat's score in that run. In a zero-sum game that
  mean is 0, so this is the plain score; where scoring is not zero-sum (a failed bid that
  pays each opponent, as in Tarot 4 saisons, Bernicle, Caisse) it counts what a move
  gives the others too, as a race to the target does: a reckless bid that costs its
  bidder nothing but pays both opponents is not a gain.

Scores are the ``score_s{i}`` columns (what a seat marks this deal); in penalty games
(``lower_score_wins``) the sign is flipped so a positive edge always means X is better.
Every arrangement uses the same seed, hence the same shuffles (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab.engine import stats
from simlab.engine.game import Game, as_game
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import plan, simulate
from simlab.engine.seatknobs import policy_name


@dataclass(frozen=True)
class DuelResult:
    game: str
    x: str
    y: str
    edge: float  # X's points per deal over Y (positive: X better)
    lo: float
    hi: float
    n: int  # deals (rows) paired
    arrangements: tuple[str, ...]  # the policy strings that were run
    unit: str = "points per deal"

    def format(self) -> str:
        return (f"{self.x} vs {self.y} in {self.game}: {self.edge:+.3f} {self.unit} "
                f"[{self.lo:+.3f}, {self.hi:+.3f}] (n = {self.n:,} deals, paired)")


def arrangements(game: str, x: str, y: str, players: int, teams: tuple[int, ...] | None
                 ) -> list[tuple[str, list[int]]]:
    """The policy strings duplicate play runs, each with the seats X holds in it (see the
    module docstring; the seats are explicit so that X == Y is a valid null check)."""
    if teams is not None and len(set(teams)) > 1:
        out = []
        for t in sorted(set(teams)):
            seats = [s for s in range(players) if teams[s] == t]
            out.append((",".join(x if s in seats else y for s in range(players)), seats))
        return out
    out = [(",".join([y] * players), [])]
    for s in range(players):
        out.append((",".join(x if i == s else y for i in range(players)), [s]))
    return out


def per_deal_edge(frames: list[pl.DataFrame], x_seats: list[list[int]], players: int,
                  teams: tuple[int, ...] | None, lower_wins: bool) -> np.ndarray:
    """X's edge on each deal from the frames of :func:`arrangements` (same order)."""
    score = [np.column_stack([f[f"score_s{i}"].to_numpy().astype(np.float64)
                              for i in range(players)]) for f in frames]
    if teams is not None and len(set(teams)) > 1:
        parts = []
        for sc, seats in zip(score, x_seats, strict=True):
            own = sc[:, seats].mean(axis=1)
            others = [s for s in range(players) if s not in seats]
            other_teams = sorted({teams[s] for s in others})
            # one score per team (partners mark the same), then the mean over opposing teams
            opp = np.mean([sc[:, [s for s in others if teams[s] == t]].mean(axis=1)
                           for t in other_teams], axis=0)
            parts.append(own - opp)
        edge = np.mean(parts, axis=0)
    else:
        # each score relative to its table (minus the mean over the seats of that run)
        rel = [sc - sc.mean(axis=1, keepdims=True) for sc in score]
        edge = np.mean([rel[k + 1][:, k] - rel[0][:, k] for k in range(players)], axis=0)
    return -edge if lower_wins else edge


def duplicate(game: Game, x: str = "search", y: str = "heuristic", *, n: int = 1000,
              seed: int = 0, params: dict | None = None, jobs: int = 1,
              chunk_size: int | None = None, progress: bool | None = False) -> DuelResult:
    """Duplicate play of policy ``x`` against ``y`` over ``n`` deals (see module doc)."""
    g = as_game(game)
    game_name = g.slug
    knobs = plan(g, 1, params=params).knobs  # validates params
    for spec in (x, y):
        if "," in spec:
            raise SimlabError(f"duel: {spec!r} names one policy for one side, not one per seat")
        if policy_name(spec) not in g.policies:
            raise SimlabError(f"unknown policy {policy_name(spec)!r} for {game_name}; valid policies: "
                              f"{', '.join(g.policies)}")
        plan(g, 1, params=params, policies=spec)  # its per-seat policy knobs, if any
    players = g.players(knobs)
    teams = g.teams(knobs) if g.teams is not None else None
    plan_ = arrangements(game_name, x, y, players, teams)
    specs = [spec for spec, _ in plan_]
    frames = [simulate(g, n, seed=seed, params=params, policies=spec, jobs=jobs,
                       chunk_size=chunk_size, progress=progress) for spec in specs]
    deals = frames[0]["deal"].to_numpy()
    for f in frames[1:]:
        if f.height != frames[0].height or not np.array_equal(f["deal"].to_numpy(), deals):
            raise RuntimeError(f"{game_name}: arrangements produced different rows; cannot pair")
    x_seats = [seats for _, seats in plan_]
    edge = per_deal_edge(frames, x_seats, players, teams, g.lower_score_wins)
    est = stats.mean(edge)
    points = g.extra.get("score_unit", "points")  # what score_s{i} counts (Noisette: hazelnuts)
    unit = f"penalty {points} per deal (positive: X loses fewer)" if g.lower_score_wins \
        else f"{points} per deal"
    return DuelResult(game_name, x, y, est.value, est.lo, est.hi, est.n, tuple(specs), unit)
