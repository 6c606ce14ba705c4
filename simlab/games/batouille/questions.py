"""La batouille: the catalogue's balance questions as metrics, and the findings that open
the report (rules in ``rules.py``, columns in ``rules.deal_columns``).

Question 1 (symmetry: seat 0's wins, draws), 3 (variance: replays per game, void tricks,
forced-tie draws) are metrics of the rows; question 2 (exploitability of the simple
players) and 5 (hand size) are exact computations (``equilibrium.py``: a best response's
value against a fixed player, the equilibrium's against uniform play), written into the
report's findings by ``exact_findings`` (``Game.extra["exact_findings"]``) at small sizes,
and duplicate play (``simlab duel batouille --x equilibrium --y heuristic --set ranks=6``)
in the runs."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.batouille.equilibrium import (
    MAX_EQ_TIES,
    Solver,
    best_response,
    evaluate,
    player,
)
from simlab.games.batouille.rules import BatouilleKnobs, effective_ties

SECTION = "La batouille questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BatouilleKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"batouille.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    decided = pl.col("winner") >= 0
    if level == "deal":
        add({"winner"}, "q1.seat0_wins", "seat 0 (♠) wins the game (share of decided games)",
            pl.col("winner") == 0, decided, headline=True,
            note="50% for identical players: the game is symmetric")
        add({"winner"}, "q1.seat0_wins_all", "seat 0 (♠) wins the game (share of all games)",
            pl.col("winner") == 0)
        add({"winner"}, "q1.seat1_wins_all", "seat 1 (♥) wins the game (share of all games)",
            pl.col("winner") == 1)
        add({"draw"}, "q1.draw", "drawn games (equal tricks: with an odd number of ranks, only after a void trick)",
            pl.col("draw"), headline=True)
        add({"replays"}, "q3.replays", "tied rounds per game (replays)", pl.col("replays"),
            kind="mean", unit="ties", headline=True)
        add({"replays"}, "q3.any_tie", "games with at least one tie", pl.col("replays") > 0)
        add({"voids"}, "q3.voids", "void tricks per game", pl.col("voids"), kind="mean",
            unit="tricks")
        add({"forced_void"}, "q3.forced_void", "games ended by a forced void trick (both "
            "holding the same last card)", pl.col("forced_void"), headline=True)
        add({"forced_void", "draw"}, "q3.forced_void_draw", "forced-tie draws (a forced "
            "void trick and equal tricks)", pl.col("forced_void") & pl.col("draw"))
        add({"rounds"}, "q3.rounds", "rounds per game, ties included", pl.col("rounds"),
            kind="mean", unit="rounds")
        first = pl.col("first_trick_winner")
        add({"first_trick_winner", "winner"}, "q1.first_trick_wins", "the first trick's "
            "winner wins the game (share of decided games)", pl.col("winner") == first,
            (first >= 0) & decided)
    else:
        add({"winner"}, "q1.match.seat0_wins", "seat 0 (♠) wins the match (share of "
            "decided matches)", pl.col("winner") == 0, decided, headline=True)
        add({"drawn"}, "q1.match.drawn", "drawn matches", pl.col("drawn"), headline=True)
        add({"replays", "n_deals"}, "q3.match.replays", "tied rounds per match",
            pl.col("replays"), kind="mean", unit="ties")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Symmetry",
     "key": "batouille.q1.seat0_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "Seat 0 (♠) wins {batouille.q1.seat0_wins} of the decided games; "
             "{batouille.q1.draw} are drawn"},
    {"question": "3. Variance",
     "key": "batouille.q3.replays",
     "text": "Tied (replayed) rounds per game: {batouille.q3.replays}; "
             "{batouille.q3.forced_void} end with both players holding the same last card "
             "(a forced void trick), and {batouille.q3.forced_void_draw} are forced-tie draws"},
)


# --- questions 2 and 5, exact ----------------------------------------------------------
# A best response to a fixed player walks every state the two can reach: at 10 ties to a
# void trick 0.3 s for random or the heuristic at 6 ranks, 2-3 s at 7 (the others much
# less), so the report computes the sizes below once per process; the equilibrium's gain
# against uniform play needs the equilibrium itself (every stage game solved: 3 s at 6
# ranks); both paragraphs take about 5 s at the default 13 ranks, 8 s at 7.
EXACT_RANKS = (3, 4, 5, 6)  # every report gives these
EXACT_MAX = 7  # and the run's own size up to this
EQ_GAIN_RANKS = (3, 4, 5, 6)
EQ_GAIN_MAX = 6
EXPLOITED = ("random", "heuristic", "highest", "lowest", "mixed_high")


def _exact_knobs(k: BatouilleKnobs, n: int) -> BatouilleKnobs:
    """The knobs that matter to one game's exact values: ranks, the tie rule, mixed_high_p."""
    return replace(BatouilleKnobs(), ranks=n, tie_rule=k.tie_rule,
                   max_consecutive_ties=k.max_consecutive_ties, mixed_high_p=k.mixed_high_p)


@functools.lru_cache(maxsize=64)
def exploitability(k: BatouilleKnobs, name: str) -> float:
    """What a best response that knows ``name``'s strategy gains against it per game
    (+1 won, 0 drawn, -1 lost; the game's value is 0), exactly, at ``k.ranks`` ranks."""
    return best_response(k.ranks, effective_ties(k), player(name, k))


@functools.lru_cache(maxsize=16)
def equilibrium_gain(k: BatouilleKnobs) -> float:
    """The exact equilibrium's expected result per game against uniform random play."""
    n, t = k.ranks, effective_ties(k)
    s = Solver(t)

    def eq(mine: int, theirs: int, d: int, ties: int) -> np.ndarray:
        return s.row_strategy(mine, theirs, d, ties, n)

    return evaluate(n, t, eq, player("random", k))


def _series(values: list[float], decimals: int = 3) -> str:
    return ", ".join(f"{abs(v) if abs(v) < 0.5 * 10 ** -decimals else v:.{decimals}f}"
                     for v in values)


def _span(ranks: tuple[int, ...]) -> str:
    return f"{ranks[0]} to {ranks[-1]} ranks"


def exact_findings(knobs: BatouilleKnobs) -> list[tuple[str, str]]:
    """Questions 2 and 5 answered exactly (read by ``simlab.analysis.report``: (question,
    text) paragraphs placed among the findings): each simple player's exploitability at
    ``EXACT_RANKS`` and the run's own ranks up to ``EXACT_MAX``, and how close the
    equilibrium comes to uniform play."""
    t = effective_ties(knobs)
    rule = ("every tie voids the trick (tie_rule = discard)" if t == 1
            else f"{t} ties in a row void a trick")
    if t > MAX_EQ_TIES:
        why = (f"not computed: with {t} ties in a row before a void trick each tie is a state "
               f"of its own (the exact computation takes at most {MAX_EQ_TIES})")
        return [("2. Exploitability", f"Exact exploitability {why}"),
                ("5. Hand size", f"Exact closeness of the equilibrium to uniform play {why}")]
    n = knobs.ranks
    ranks = EXACT_RANKS
    own = n not in ranks and n <= EXACT_MAX
    if own:
        ranks = tuple(sorted((*ranks, n)))
    ks = {r: _exact_knobs(knobs, r) for r in ranks}
    names = {"random": "uniform random", "heuristic": "heuristic (sacrifice)",
             "highest": "always the highest", "lowest": "always the lowest",
             "mixed_high": f"mixed_high (highest with p = {knobs.mixed_high_p:g})"}
    expl = {name: [exploitability(ks[r], name) for r in ranks] for name in EXPLOITED}
    players = "; ".join(f"{names[name]} {_series(v)}" for name, v in expl.items())
    if n in ranks:
        at = (f". At this run's {n} ranks a best response gains "
              + ", ".join(f"{expl[name][ranks.index(n)]:.3f} against {name}"
                          for name in EXPLOITED))
    else:
        at = (f". This run's {n} ranks are beyond the exact computation (a run with ranks "
              f"<= {EXACT_MAX} gets its own numbers here)")
    q2 = (f"Exactly, a best response that knows the player's strategy gains per game (+1 won, "
          f"0 drawn, −1 lost; the game's value is 0) at {_span(ranks)} ({rule}): {players}; "
          f"against the equilibrium player 0 by construction{at}")
    gain_ranks = tuple(sorted({*EQ_GAIN_RANKS, *((n,) if n <= EQ_GAIN_MAX else ())}))
    gains = [equilibrium_gain(_exact_knobs(knobs, r)) for r in gain_ranks]
    q5 = (f"Uniform random play does not become an equilibrium as hands grow: a best response "
          f"still gains {_series(expl['random'])} per game against it at {_span(ranks)}. "
          f"Yet the equilibrium gains little from uniform play: {_series(gains, 4)} per game "
          f"at {_span(gain_ranks)} (exact; more ranks need every stage game solved, too slow "
          f"for a report)")
    return [("2. Exploitability", q2), ("5. Hand size", q5)]
