"""Speed: the catalogue's balance questions as metrics, and the findings that open the
report. Speed is a race, so every answer rests on the player model
(``simlab.mechanics.realtime``: lognormal reaction delays, a scan cost per option, an
error rate); ``exact_findings`` says which model first, then answers question 1 (P(win)
as a curve over the speed ratio, the ratio where the slower wins 25 %) and question 2
(the value of choosing, at equal speed) from small sweeps of the kernel run here, each
rate with its Wilson interval. Questions 3 (stalls, recycles, the cap) and 4 (length in
plays and simulated seconds) are metrics of the rows."""

from __future__ import annotations

import functools
from dataclasses import replace

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.engine.stats import proportion
from simlab.games.speed.kernels import simulate_rows
from simlab.games.speed.rules import C_WINNER, SpeedKnobs

SECTION = "Speed questions"
RATIOS = (1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
SWEEP_GAMES = 2_000
CHOICE_GAMES = 4_000
SWEEP_SEED = 20_240


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: SpeedKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"speed.{key}", title, SECTION, expr, where, kind, **kw), need))

    decided = pl.col("winner") >= 0
    if level == "deal":
        add({"winner"}, "q1.seat0_wins", "seat 0 wins (share of decided games)",
            pl.col("winner") == 0, decided, headline=True,
            note="50% for equal players: the game is symmetric")
        add({"stalls"}, "q3.stalls", "stalls per game (nobody can play)", pl.col("stalls"),
            kind="mean", unit="stalls", headline=True)
        add({"recycles"}, "q3.recycles", "recyclings of the centre piles per game",
            pl.col("recycles"), kind="mean", unit="recycles", headline=True)
        add({"recycles"}, "q3.any_recycle", "games with a recycling", pl.col("recycles") > 0)
        add({"capped"}, "q3.capped", "games stopped at the recycle cap", pl.col("capped"),
            headline=True)
        add({"draw"}, "q3.draw", "games drawn at the cap", pl.col("draw"))
        add({"time_ms"}, "q4.seconds", "game length in simulated seconds",
            pl.col("time_ms") / 1000.0, kind="mean", unit="s", headline=True)
        add({"plays_s0", "plays_s1"}, "q4.plays", "cards played per game (both players)",
            pl.col("plays_s0") + pl.col("plays_s1"), kind="mean", unit="cards")
        add({"refused"}, "q4.refused", "plans lost to the other player per game (both "
            "reached for the same pile)", pl.col("refused"), kind="mean", unit="plans")
        add({"errors"}, "q4.errors", "mistakes per game", pl.col("errors"), kind="mean",
            unit="mistakes")
    else:
        add({"winner"}, "q1.match.seat0_wins", "seat 0 wins the match (share of decided "
            "matches)", pl.col("winner") == 0, decided, headline=True)
        add({"stalls"}, "q3.match.stalls", "stalls per match", pl.col("stalls"),
            kind="mean", unit="stalls")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Symmetry at equal speeds",
     "key": "speed.q1.seat0_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "Seat 0 wins {speed.q1.seat0_wins} of the decided games at this run's speeds"},
    {"question": "3. Stalls",
     "key": "speed.q3.stalls",
     "text": "Stalls per game: {speed.q3.stalls}; recyclings {speed.q3.recycles}; "
             "{speed.q3.capped} of the games stop at the recycle cap"},
    {"question": "4. Length",
     "key": "speed.q4.seconds",
     "text": "A game lasts {speed.q4.seconds} simulated seconds and "
             "{speed.q4.plays} played"},
)


def model_text(k: SpeedKnobs) -> str:
    return (f"Player model (simlab.mechanics.realtime): after every change a player acts "
            f"after a lognormal reaction delay (median {k.rt_median:g} s, sigma "
            f"{k.rt_sigma:g}) plus {k.rt_scan:g} s per legal play he looks over, makes a "
            f"mistake with probability {k.error_rate:g} ({k.error_penalty:g} s frozen); "
            f"a plan on a pile the other just played on is dropped; nobody able to play "
            f"flips after {k.stall_delay:g} s")


def _win_rate(k: SpeedKnobs, policies: tuple[str, str], seat: int, games: int,
              seed: int) -> tuple[int, int]:
    rows = simulate_rows(k, policies, seed, games)
    w = rows[:, C_WINNER]
    return int((w == seat).sum()), int((w >= 0).sum())


@functools.lru_cache(maxsize=16)
def speed_curve(k: SpeedKnobs, games: int = SWEEP_GAMES) -> list[tuple[float, int, int]]:
    """(ratio, slower seat's wins, decided games) with seat 1 slower by ``ratio`` (its
    median delay times ``ratio``), both the heuristic."""
    out = []
    for i, r in enumerate(RATIOS):
        slow = f"heuristic:rt_median={k.rt_median * r:.6g}"
        won, n = _win_rate(k, ("heuristic", slow), 1, games, SWEEP_SEED + i)
        out.append((r, won, n))
    return out


def ratio_at(curve: list[tuple[float, int, int]], level: float) -> float | None:
    """The speed ratio at which the slower seat's win rate falls to ``level`` (linear
    between the sweep's points); None when the curve does not cross it."""
    pts = [(r, w / n) for r, w, n in curve if n]
    for (r0, p0), (r1, p1) in zip(pts, pts[1:], strict=False):
        if p0 >= level >= p1 and p0 != p1:
            return r0 + (p0 - level) * (r1 - r0) / (p0 - p1)
    return None


KEEP_FOLLOW_UPS = "heuristic:spread_weight=0:follow_up_weight=1"


@functools.lru_cache(maxsize=16)
def choice_value(k: SpeedKnobs, chooser: str = "heuristic", games: int = CHOICE_GAMES
                 ) -> tuple[int, int]:
    """``chooser``'s wins against random choice at equal speed, seats swapped half the
    time: (wins, decided games)."""
    w0, n0 = _win_rate(k, (chooser, "random"), 0, games // 2, SWEEP_SEED + 100)
    w1, n1 = _win_rate(k, ("random", chooser), 1, games // 2, SWEEP_SEED + 101)
    return w0 + w1, n0 + n1


def exact_findings(knobs: SpeedKnobs) -> list[tuple[str, str]]:
    """The model first, then questions 1 and 2 from sweeps of the kernel (read by
    ``simlab.analysis.report``)."""
    k = replace(knobs, match_games=1)
    curve = speed_curve(k)
    pts = "; ".join(f"{r:g}x {proportion(w, n).format(1)}" for r, w, n in curve)
    at25 = ratio_at(curve, 0.25)
    at = (f"the slower player still wins 25% at a speed ratio of about {at25:.2f}"
          if at25 is not None else
          f"the slower player's win rate does not cross 25% between {RATIOS[0]:g}x and "
          f"{RATIOS[-1]:g}x")
    q0 = (f"{model_text(k)}. Every answer below assumes this model; the curve of question 1 "
          f"shows how the headline moves with its main parameter, the speed ratio")
    q1 = (f"P(the slower player wins) by speed ratio (his median delay over the faster's; "
          f"both heuristic, {SWEEP_GAMES:,} games a point, seed {SWEEP_SEED}): {pts}. So "
          f"{at}")
    w, n = choice_value(k)
    wf, nf = choice_value(k, KEEP_FOLLOW_UPS)
    q2 = (f"At equal speed the heuristic chooser (keep the hand spread, leave few "
          f"follow-ups) wins {proportion(w, n).format(1)} of decided games against random "
          f"choice, and the catalogue's keep-follow-ups chooser "
          f"{proportion(wf, nf).format(1)} ({CHOICE_GAMES:,} games each, seats swapped half "
          f"the time): choice is worth a few points of win rate, far less than speed")
    return [("0. Player model", q0), ("1. Speed vs luck", q1), ("2. Equal speed", q2)]




