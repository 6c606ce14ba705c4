"""Le flair: the catalogue's balance questions as metrics, and the findings that open the
report (rules in ``rules.py``, columns in ``rules.deal_columns``).

Question 1 (honesty: false claims, "vrai" and "faux" calls), 2 (the "vrai" call: honest
players punished), 3 (challenger risk: wrong calls and their cost), 4 (cards per play),
5 (seat, length) are metrics of the rows; the equilibrium rates and the exploitability
come from ``equilibrium.py`` and the card-counting value from the ``card_memory`` knob
(the task report)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.flair.rules import FlairKnobs

SECTION = "Le flair questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: FlairKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "mean", **kw) -> None:
        out.append((MetricDef(f"flair.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        n = (knobs or FlairKnobs()).players
        add({"lies", "plays"}, "q1.lies", "false claims per deal", pl.col("lies"),
            unit="claims")
        add({"plays"}, "q5.plays", "plays per deal", pl.col("plays"), unit="plays",
            headline=True)
        add({"challenges"}, "q1.challenges", "calls per deal", pl.col("challenges"),
            unit="calls", headline=True)
        add({"vrai_calls"}, "q1.vrai", "'vrai' calls per deal", pl.col("vrai_calls"),
            unit="calls")
        add({"faux_calls"}, "q1.faux", "'faux' calls per deal", pl.col("faux_calls"),
            unit="calls")
        add({"honest_punished"}, "q2.honest_punished", "true claims punished by a right "
            "'vrai' per deal", pl.col("honest_punished"), unit="claims", headline=True)
        add({"wrong_calls"}, "q3.wrong_calls", "wrong calls per deal", pl.col("wrong_calls"),
            unit="calls")
        add({"cards_played", "plays"}, "q4.cards_per_play", "cards per play (all plays of "
            "the deal over its plays)", pl.col("cards_played") / pl.col("plays"),
            unit="cards")
        add({"capped"}, "q5.capped", "deals stopped at the play cap", pl.col("capped"),
            kind="rate")
        add({"winner"}, "q5.first_wins", "the first player (the dealer's left) wins",
            pl.col("winner") == (pl.col("dealer") + 1) % n, kind="rate", headline=True)
    else:
        add({"winner"}, "q5.match.seat0_wins", "seat 0 wins the match", pl.col("winner") == 0,
            kind="rate", headline=True)
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "5. Seat", "key": "flair.q5.first_wins",
     "against": lambda n: 1.0 / n, "against_text": "1 / players",
     "text": "The first player wins {flair.q5.first_wins} of the deals, in "
             "{flair.q5.plays} plays"},
    {"question": "2. The 'vrai' call", "key": "flair.q2.honest_punished",
     "text": "{flair.q2.honest_punished} true claims a deal are punished by a right 'vrai'"},
)


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    if "vrai_calls" not in columns:
        return []
    return [("a 'vrai' call (deals)", pl.col("vrai_calls") > 0, pl.lit(True)),
            ("a 'faux' call (deals)", pl.col("faux_calls") > 0, pl.lit(True)),
            ("a false claim (deals)", pl.col("lies") > 0, pl.lit(True))]
