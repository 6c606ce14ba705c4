"""Démons punisseurs balance questions (catalogue "Balance questions" 1-6) as metrics, the
findings that open the report, the decision kinds of the players' health checks and the
hand-strength measure.

May import: ``simlab.engine.*``, this game's ``rules``.

Deal level: 1 the seats' results by position (the player after the dealer leads; the
dealer swaps); 2 objectives nobody achieves; 3 the bets: how often they are conceded, what
they bring their bettor, pushes; 4 results by the number of Démons held; 5 the spread of a
deal's scores; 6 how often the exposition opens before the seventh trick. Match level: 5
the match length to ``target_points`` and its margin.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, std_dev
from simlab.games.demons_punisseurs.rules import OBJECTIVES, DemonsPunisseursKnobs

SECTION = "Démons punisseurs questions"
MAX_DEMONS_ASKED = 4  # mean score with 0..4 Démons; 5+ in 7 cards is rare
POSITIONS = (("leader", 1), ("second", 2), ("dealer", 0))  # seat = (dealer + k) % 3


def _by_position(k: int, prefix: str) -> pl.Expr:
    """The value of column ``{prefix}_s{seat}`` for the seat ``k`` places after the dealer."""
    expr = None
    for d in range(3):
        seat = (d + k) % 3
        term = pl.when(pl.col("dealer") == d).then(pl.col(f"{prefix}_s{seat}"))
        expr = term if expr is None else expr.when(pl.col("dealer") == d) \
            .then(pl.col(f"{prefix}_s{seat}"))
    return expr.otherwise(None)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: DemonsPunisseursKnobs | None,
                    level: str) -> list[MetricDef]:
    k = knobs if isinstance(knobs, DemonsPunisseursKnobs) else DemonsPunisseursKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"demons_punisseurs.{key}", title, SECTION, expr, where, kind,
                              **kw), need))

    scores = {"dealer", "score_s0", "score_s1", "score_s2"}
    if level == "deal":
        # 1. position: the leader (after the dealer), the second, the dealer (swaps)
        for name, off in POSITIONS:
            add(scores, f"q1.score.{name}", f"points per deal, the {name} "
                f"({'the player after the dealer, who leads' if name == 'leader' else ''}"
                f"{'the dealer, who may swap' if name == 'dealer' else ''}"
                f"{'the player before the dealer' if name == 'second' else ''})",
                _by_position(off, "score").cast(pl.Float64), kind="mean", unit="points",
                headline=name == "dealer", note="0 means no edge; a deal's scores need not sum "
                                                "to 0 (stakes lost go to nobody)")
        dealer_minus = _by_position(0, "score") - _by_position(1, "score")
        add(scores, "q1.dealer_minus_leader", "points per deal, the dealer minus the leader",
            dealer_minus.cast(pl.Float64), kind="mean", unit="points")
        add({"swaps", "swap_chances"}, "q1.swap_rate", "deals where the dealer could swap",
            pl.col("swap_chances") > 0)
        # 2. objectives nobody achieves
        for o in OBJECTIVES:
            add({f"{o}_winner"}, f"q2.unclaimed.{o}", f"deals where nobody achieves "
                f"{o.capitalize()}", pl.col(f"{o}_winner") < 0, headline=o == "jeu")
        # 3. bets
        add({"holds", "concedes"}, "q3.concede_share", "first answers to a bet that are "
            "'c'est bon' (answers)", ratio_of_sums(pl.col("concedes"), pl.col("concedes")
                                                   + pl.col("holds"), pl.lit(True)),
            kind="mean", unit="share", note="'c'est bon' counts both answers")
        for o in OBJECTIVES:
            add({f"{o}_bets"}, f"q3.bet.{o}", f"deals with a bet on {o.capitalize()}",
                pl.col(f"{o}_bets") > 0)
            add({f"{o}_bettor", f"{o}_bettor_net"}, f"q3.bettor_net.{o}", f"what a bet on "
                f"{o.capitalize()} brings its bettor (deals with such a bet)",
                pl.col(f"{o}_bettor_net").cast(pl.Float64), pl.col(f"{o}_bettor") >= 0,
                kind="mean", unit="points")
            add({f"{o}_stake"}, f"q3.stake.{o}", f"{o.capitalize()}'s final stake",
                pl.col(f"{o}_stake").cast(pl.Float64), kind="mean", unit="points")
        add({"pushes", "later_pushes"}, "q3.push", "deals with a push to 3",
            (pl.col("pushes") + pl.col("later_pushes")) > 0)
        # 4. Démons held
        if {"demons_s0", "demons_s1", "demons_s2"} <= cols:
            for n in range(MAX_DEMONS_ASKED + 1):
                holds = [pl.col(f"demons_s{i}") == n for i in range(3)]
                num = sum((h.cast(pl.Float64) * pl.col(f"score_s{i}")) for i, h in enumerate(holds))
                den = sum(h.cast(pl.Float64) for h in holds)
                add({"demons_s0", "score_s0"}, f"q4.score.demons{n}", f"points per deal of a "
                    f"seat holding {n} Démon(s) when play starts (seats so dealt)",
                    ratio_of_sums(num, den, pl.lit(True)), kind="mean", unit="points",
                    note="the three seats pooled; delta-method interval")
            top = [(pl.col(f"demons_s{i}") >= pl.max_horizontal(
                [pl.col(f"demons_s{j}") for j in range(3) if j != i]) + 1) for i in range(3)]
            won = [pl.col(f"score_s{i}") > pl.max_horizontal(
                [pl.col(f"score_s{j}") for j in range(3) if j != i]) for i in range(3)]
            add({"demons_s0", "score_s0"}, "q4.most_demons_wins", "the seat with strictly the "
                "most Démons has strictly the best deal score (deals with such a seat)",
                pl.any_horizontal([t & w for t, w in zip(top, won, strict=True)]),
                pl.any_horizontal(top), headline=True, note="1/3 would mean Démons do not "
                                                            "matter")
        # 5. score spread
        add(scores, "q5.score_sd", "standard deviation of a seat's deal score",
            std_dev(pl.col("score_s0").cast(pl.Float64), pl.lit(True)), kind="mean",
            unit="points", note="seat 0; delta-method interval")
        add(scores, "q5.abs_score", "mean absolute deal score of seat 0",
            pl.col("score_s0").abs().cast(pl.Float64), kind="mean", unit="points")
        # 6. early exposition
        add({"early_exposition"}, "q6.early", "deals whose exposition opens before the 7th "
            "trick (Jeu won with 4 tricks or conceded after a bet)", pl.col("early_exposition"),
            headline=True)
        add({"expo_trick"}, "q6.expo_trick", "tricks completed when the exposition opens",
            pl.col("expo_trick").cast(pl.Float64), kind="mean", unit="tricks")
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q5.length", f"deals to reach {k.target_points}",
            pl.col("n_deals").cast(pl.Float64), done, kind="mean", unit="deals",
            headline=True, note="capped matches left out")
        add({"winner", "n_deals"}, "q5.length.sd", "deals per match, standard deviation",
            std_dev(pl.col("n_deals").cast(pl.Float64), done), done, kind="mean",
            unit="deals", note="delta-method interval")
        add({"winner", "margin"}, "q5.margin", "the winner's lead over the next best",
            pl.col("margin").cast(pl.Float64), done, kind="mean", unit="points")
        add({"winner", "first_dealer"}, "q1.first_dealer_wins", "the first dealer wins the "
            "match (decided matches)", pl.col("winner") == pl.col("first_dealer"), done,
            note="1/3 means no edge")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Dealer and leader",
     "key": "demons_punisseurs.q1.dealer_minus_leader", "against": 0.0,
     "against_text": "no edge",
     "text": "The dealer (who may swap) scores {demons_punisseurs.q1.score.dealer} a deal, "
             "the leader {demons_punisseurs.q1.score.leader} and the third seat "
             "{demons_punisseurs.q1.score.second}; the dealer minus the leader is "
             "{demons_punisseurs.q1.dealer_minus_leader}"},
    {"question": "2. Unclaimed objectives",
     "key": "demons_punisseurs.q2.unclaimed.jeu",
     "text": "Nobody achieves the Jeu in {demons_punisseurs.q2.unclaimed.jeu} of deals, the "
             "Pareil in {demons_punisseurs.q2.unclaimed.pareil} and the Suite in "
             "{demons_punisseurs.q2.unclaimed.suite}"},
    {"question": "3. Betting",
     "key": "demons_punisseurs.q3.concede_share",
     "text": "{demons_punisseurs.q3.concede_share} of first answers to a bet are 'c'est "
             "bon'; a bet brings its bettor {demons_punisseurs.q3.bettor_net.pareil} on "
             "Pareil, {demons_punisseurs.q3.bettor_net.suite} on Suite and "
             "{demons_punisseurs.q3.bettor_net.jeu} on the Jeu; pushes happen in "
             "{demons_punisseurs.q3.push} of deals"},
    {"question": "4. Démons",
     "key": "demons_punisseurs.q4.most_demons_wins", "against": 1 / 3,
     "against_text": "one in three",
     "text": "The seat with the most Démons has the best deal score in "
             "{demons_punisseurs.q4.most_demons_wins} of deals where one seat has the most; "
             "a seat scores {demons_punisseurs.q4.score.demons0} a deal with no Démon, "
             "{demons_punisseurs.q4.score.demons2} with two, "
             "{demons_punisseurs.q4.score.demons4} with four"},
    {"question": "5. Match length",
     "key": "demons_punisseurs.q5.length",
     "text": "A match to the target lasts {demons_punisseurs.q5.length:bare} deals on "
             "average"},
    {"question": "5. Score spread",
     "key": "demons_punisseurs.q5.score_sd",
     "text": "A seat's deal score has a standard deviation of "
             "{demons_punisseurs.q5.score_sd}"},
    {"question": "6. Early exposition",
     "key": "demons_punisseurs.q6.early",
     "text": "The exposition opens before the 7th trick in {demons_punisseurs.q6.early} of "
             "deals, after {demons_punisseurs.q6.expo_trick:bare} tricks on average"},
)


# --- hand strength (the report's "strong hands win" check) -------------------------------
HAND_STRENGTH_TEXT = ("Démons count 3 (the six permanent ones; the trump is not known from "
                      "the hand alone, so a Jack, Queen or 7 of ♠ ♥ ♦ counts 1), each card "
                      "of the hand's most common rank 1")
PERMANENT_LABELS = ("K♥", "6♦", "7♦", "7♣", "J♣", "Q♣")


def hand_strength(knobs, hand: list[str]) -> float:
    ranks: dict[str, int] = {}
    value = 0.0
    for c in hand:
        if c in PERMANENT_LABELS:
            value += 3
        else:
            if c[:-1] in ("J", "Q", "7"):
                value += 1
            ranks[c[:-1]] = ranks.get(c[:-1], 0) + 1
    return value + (max(ranks.values()) if ranks else 0)


# --- decision kinds --------------------------------------------------------------------------
def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """Each kind of decision the players take, among the deals that offered it."""
    out = []
    if "bet_chances" in columns:
        for o in OBJECTIVES:
            out.append((f"a bet is opened on {o.capitalize()} (deals with a bet chance)",
                        pl.col(f"{o}_bets") > 0, pl.col("bet_chances") > 0))
        out.append(("a bet is opened during the exposition (deals with a bet chance)",
                    pl.col("expo_bets") > 0, pl.col("bet_chances") > 0))
    if "hold_chances" in columns:
        out.append(("a bet is answered 'pari tenu' (deals with a bet)",
                    pl.col("holds") > 0, pl.col("hold_chances") > 0))
        out.append((CONCEDE_TITLE, pl.col("concedes") > 0, pl.col("hold_chances") > 0))
        out.append(("a third player stays silent after 'pari tenu' (deals with a third "
                    "answer)", pl.col("silents") > 0, pl.col("third_chances") > 0))
        out.append(("a bet is pushed to 3 by the third player (deals with a third answer)",
                    pl.col("pushes") > 0, pl.col("third_chances") > 0))
        out.append(("a held bet is pushed later (deals with a bet)",
                    pl.col("later_pushes") > 0, pl.col("hold_chances") > 0))
    if "swap_chances" in columns:
        out.append((SWAP_TITLE, pl.col("swaps") > 0, pl.col("swap_chances") > 0))
    if "named_fill" in columns:
        played = (pl.col("named_trump_ace") + pl.col("named_led_ace") + pl.col("named_fill")) > 0
        out.append(("a Démon is named the trump Ace (deals with a Démon played)",
                    pl.col("named_trump_ace") > 0, played))
        out.append(("a Démon is named the led suit's Ace (deals with a Démon played)",
                    pl.col("named_led_ace") > 0, played))
        out.append(("a Démon is named to fit its Pareil or Suite (deals with a Démon played)",
                    pl.col("named_fill") > 0, played))
    return out


SWAP_TITLE = "the dealer swaps for a turned Démon (deals where he could)"
CONCEDE_TITLE = "a bet is answered 'c'est bon' (deals with a bet)"


def decision_notes(knobs) -> dict[str, str]:
    return {SWAP_TITLE: (
        "always: a Démon can be named any card, so it is worth at least the ordinary card "
        "given for it in the tricks and in every combination (an unplayed Démon is wild "
        "at the exposition); the swap never loses"),
        CONCEDE_TITLE: (
            "always: a deal with a bet holds 2.2 bets on average and the heuristic answers "
            "'c'est bon' to 98.2% of them (metric q3.concede_share, 20,000 heuristic deals, "
            "seed 0): holding pays only with a better than even chance of beating a bettor "
            "who showed a strong hand, so nearly every deal with a bet has one; 'pari "
            "tenu' is its own kind and is taken")}
