"""Belote Noisette balance questions (catalogue "Balance questions"): ``balance_metrics``
turns a frame of deals or matches into metrics, ``FINDINGS`` opens the report with one
sentence per question.

Deal rows are independent deals, each the first of a manche (10 hazelnuts each, an empty
pot): questions 1, 2 (per deal), 5 and the carry-over part of 6. Match rows answer 2 (per
manche), 3, 4 and 6 (carried pots along real manches)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums

SECTION = "Belote Noisette questions"
NUTS = "hazelnuts"
# Question 5: bands of the dealer's left's heuristic trump strength (players.trump_strength
# of his 5 cards and the upcard); the heuristic takes in round 1 from take_threshold_1 (18).
STRENGTH_BANDS = ((0, 10), (10, 14), (14, 18), (18, 22), (22, 1000))


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    """The catalogue's six balance questions as metrics (only those whose columns the
    frame has)."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"noisette.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        contract = pl.col("contract").cast(pl.String)
        outcome = pl.col("outcome").cast(pl.String)
        taker_nuts = pl.lit(None, dtype=pl.Float64)
        for p in range(3):
            taker_nuts = pl.when(pl.col("taker") == p).then(
                pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(taker_nuts)
        take = {"taker", "contract", "outcome"}
        # 1. the taker's outcome by how he took, and his expected hazelnut gain
        for c, text in (("round1", "round-1 takes"), ("round2", "round-2 takes"),
                        ("forced", "forced takes")):
            took = contract == c
            for o, what in (("full", "whole pot (more than half the points)"),
                            ("partial", "partial win (ahead of each opponent)"),
                            ("lost", "lost")):
                add(take, f"q1.{o}.{c}", f"taker's outcome {what}, {text}", outcome == o, took,
                    headline=(o == "full"))
            add(take | {"score_s0", "score_s1", "score_s2"}, f"q1.nuts.{c}",
                f"taker's net hazelnuts per deal, {text}", taker_nuts, took, kind="mean",
                unit=NUTS, note="won from the pot less his ante and the cost of taking")
            add(take, f"q1.share.{c}", f"share of deals taken by {text}", took, choice=True)
        # 2. seat advantage per deal: the dealer's left speaks first and is the forced taker
        first = (pl.col("dealer") + 1) % 3
        by_seat = [pl.col(f"score_s{p}").cast(pl.Float64) for p in range(3)]
        first_nuts = pl.lit(None, dtype=pl.Float64)
        others = pl.lit(None, dtype=pl.Float64)
        for p in range(3):
            rest = sum(by_seat[q] for q in range(3) if q != p) / 2
            first_nuts = pl.when(first == p).then(by_seat[p]).otherwise(first_nuts)
            others = pl.when(first == p).then(rest).otherwise(others)
        scores = {"dealer", "score_s0", "score_s1", "score_s2"}
        add(scores, "q2.first_edge", "dealer's left's net hazelnuts per deal minus the other "
            "two's mean", first_nuts - others, kind="mean", unit=NUTS, headline=True,
            note="positive: speaking first (and being the forced taker) gains")
        add(scores | {"taker"}, "q2.first_takes", "the dealer's left takes (any round, forced "
            "included)", pl.col("taker") == first, choice=True)
        # 5. take or pass in round 1: the same deal played both ways (heuristic players)
        cf = {"cf_take_nuts", "cf_pass_nuts", "first_strength"}
        gain = (pl.col("cf_take_nuts") - pl.col("cf_pass_nuts")).cast(pl.Float64)
        add(cf, "q5.take_minus_pass", "round 1, dealer's left: taking minus passing, net "
            "hazelnuts, all hands", gain, kind="mean", unit=NUTS,
            note="each deal played twice from the deal, the dealer's left forced to take "
                 "then to pass in round 1, every other decision by the heuristic")
        strength = pl.col("first_strength")
        for lo, hi in STRENGTH_BANDS:
            band = (strength >= lo) & (strength < hi)
            text = f"strength {lo}-{hi - 1}" if hi < 1000 else f"strength {lo}+"
            add(cf, f"q5.take_minus_pass.s{lo}", f"round 1, dealer's left: taking minus "
                f"passing, net hazelnuts, {text}", gain, band, kind="mean", unit=NUTS,
                headline=(lo, hi) in ((14, 18), (18, 22)))
        add(cf | {"first_took_round1"}, "q5.took_when_worse", "round 1, dealer's left took "
            "although passing would have done better (his takes)", gain < 0,
            pl.col("first_took_round1"), choice=True)
        # 6. the pot carries over
        add({"pot_left"}, "q6.carry", "deals that leave hazelnuts in the pot (first deal of a "
            "manche)", pl.col("pot_left") > 0, headline=True)
        add({"pot_left"}, "q6.carry_size", "hazelnuts left in the pot per deal",
            pl.col("pot_left"), kind="mean", unit=NUTS)
        add({"belote_seat"}, "belote", "deals with a belote (K+Q of trump in one hand)",
            pl.col("belote_seat") >= 0)
    else:
        done = pl.col("winner") >= 0
        manches = pl.col("n_manches").cast(pl.Float64)
        has = {"winner", "n_manches"}
        # 2. seat advantage per manche: who wins manches, by position in the manche's first deal
        wins = [pl.col(f"manche_wins_pos{k}").cast(pl.Float64) for k in range(3)]
        decided = wins[0] + wins[1] + wins[2]
        for k, name in ((0, "dealer"), (1, "dealer's left (first to speak, forced taker)"),
                        (2, "dealer's right")):
            add(has | {f"manche_wins_pos{k}" for k in range(3)}, f"q2.manche_win.pos{k}",
                f"manches won by the {name} of the manche's first deal (share of manches "
                f"with a sole winner)", ratio_of_sums(wins[k], decided, done), done,
                kind="mean", unit="share", headline=(k == 1),
                note="a manche is won by its complete winner or a partial one's sole leader "
                     "(a tied lead is left out); ratio of sums over finished matches; "
                     "Fieller's interval, its upper end on the log scale")
        # 3. manche length and its kind
        add(has | {"n_deals"}, "q3.manche_length", "deals per manche", ratio_of_sums(
            pl.col("n_deals").cast(pl.Float64), manches, done), done, kind="mean",
            unit="deals", note="ratio of sums over finished matches; Fieller's interval, its "
                                "upper end on the log scale")
        add(has | {"n_complete"}, "q3.complete", "complete manches (a player reaches 21 "
            "hazelnuts), share of manches", ratio_of_sums(
                pl.col("n_complete").cast(pl.Float64), manches, done), done, kind="mean",
            unit="share", headline=True, note="the rest are partial: a player ran out of "
                                              "hazelnuts")
        # 4. match length
        add(has, "q4.manches", "manches per match", pl.col("n_manches"), done, kind="mean",
            unit="manches")
        add({"winner", "final_target", "match_points_s0"}, "q4.pushed", "matches whose target "
            "was pushed (two players level at the top)",
            pl.col("final_target") > (knobs.match_target if knobs is not None else 6), done)
        # 6. carried pots along real manches
        deals = pl.col("n_deals").cast(pl.Float64)
        add(has | {"n_deals", "n_carry"}, "q6.carry", "deals that leave hazelnuts in the pot",
            ratio_of_sums(pl.col("n_carry").cast(pl.Float64), deals, done), done, kind="mean",
            unit="share", headline=True, note="ratio of sums over finished matches")
        add(has | {"n_deals", "n_carry_start"}, "q6.carry_start", "deals that start with a "
            "carried pot", ratio_of_sums(pl.col("n_carry_start").cast(pl.Float64), deals, done),
            done, kind="mean", unit="share")
        add(has | {"n_decided_by_carry"}, "q6.decided_by_carry", "manches whose deciding deal "
            "started with a carried pot", ratio_of_sums(
                pl.col("n_decided_by_carry").cast(pl.Float64), manches, done), done,
            kind="mean", unit="share",
            note="compare with deals that start with a carried pot: a higher share means "
                 "carried pots decide manches more often than their frequency")
        add({"winner", "max_pot"}, "q6.max_pot", "largest pot in a match", pl.col("max_pot"),
            done, kind="mean", unit=NUTS)
        # 4. the first dealer's left's margin in match points, beside his match win rate
        seat = [(pl.col("first_dealer") + k) % 3 for k in range(3)]
        points = [pl.col(f"match_points_s{i}").cast(pl.Float64) for i in range(3)]

        def at(k: int) -> pl.Expr:
            return (pl.when(seat[k] == 0).then(points[0]).when(seat[k] == 1).then(points[1])
                    .otherwise(points[2]))

        add({"winner", "first_dealer", *(f"match_points_s{i}" for i in range(3))},
            "q4.first_left_margin", "first dealer's left's match points minus the other two's "
            "mean, per match", at(1) - (at(0) + at(2)) / 2, done, kind="mean",
            unit="match points", note="finished matches")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there).
FINDINGS = (
    {"question": "1. Taker's outcome by how he took",
     "key": "noisette.q1.full.round2", "against": "noisette.q1.full.round1",
     "difference": "round 2 minus round 1",
     "text": "The taker wins the whole pot in {noisette.q1.full.round1} of round-1 takes, "
             "{noisette.q1.full.round2} of round-2 takes and {noisette.q1.full.forced} of "
             "forced takes; his net gain is {noisette.q1.nuts.round1}, "
             "{noisette.q1.nuts.round2} and {noisette.q1.nuts.forced} per deal"},
    {"question": "1. Partial wins and losses",
     "key": "noisette.q1.lost.forced",
     "text": "Partial wins: {noisette.q1.partial.round1} (round 1), "
             "{noisette.q1.partial.round2} (round 2), {noisette.q1.partial.forced} (forced); "
             "losses: {noisette.q1.lost.round1}, {noisette.q1.lost.round2}, "
             "{noisette.q1.lost.forced}"},
    {"question": "2. Seat advantage per deal",
     "key": "noisette.q2.first_edge", "against": 0.0, "against_text": "the other two seats",
     "text": "The dealer's left (first to speak, forced taker) nets {noisette.q2.first_edge} "
             "per deal compared with the other two seats' mean"},
    {"question": "2. Seat advantage per manche",
     "key": "noisette.q2.manche_win.pos1", "against": 1 / 3, "against_text": "one in three",
     "text": "The dealer's left of a manche's first deal wins {noisette.q2.manche_win.pos1} "
             "of the manches that have a sole winner (dealer {noisette.q2.manche_win.pos0}, dealer's right "
             "{noisette.q2.manche_win.pos2})"},
    {"question": "3. Manche length and kind",
     "key": "noisette.q3.complete",
     "text": "A manche lasts {noisette.q3.manche_length:bare} deals; "
             "{noisette.q3.complete} of manches are complete (21 hazelnuts), the rest partial "
             "(a player ran out)"},
    {"question": "4. Match length",
     "key": "noisette.q4.manches",
     "text": "A match lasts {noisette.q4.manches:bare} manches; its target is pushed in "
             "{noisette.q4.pushed} of matches"},
    {"question": "4. Win rate by initial seat",
     "key": "match.win_pos.1", "against": 1 / 3, "against_text": "one in three",
     "text": "The first dealer's left wins {match.win_pos.1} of matches (first dealer "
             "{match.win_pos.0}, his right {match.win_pos.2}); his match points minus the "
             "other two's mean are {noisette.q4.first_left_margin} per match"},
    {"question": "5. Take or pass in round 1",
     "key": "noisette.q5.take_minus_pass.s14", "against": 0.0,
     "against_text": "passing",
     "text": "With a trump strength of 14-17 the dealer's left gains "
             "{noisette.q5.take_minus_pass.s14} by taking rather than passing in round 1, "
             "with 18-21 {noisette.q5.take_minus_pass.s18}, with 22+ "
             "{noisette.q5.take_minus_pass.s22} (the heuristic takes from 18)"},
    {"question": "6. Carried pots",
     "key": "noisette.q6.carry",
     "text": "{noisette.q6.carry} of deals leave hazelnuts in the pot"},
    {"question": "6. Lucky swings",
     "key": "noisette.q6.decided_by_carry",
     "text": "{noisette.q6.decided_by_carry} of manches are decided by a deal that started "
             "with a carried pot, against {noisette.q6.carry_start} of all deals"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# The five cards dealt before the upcard, each at the better of its trump and plain
# values (J 20, 9 14, A 11, 10 10, K 4, Q 3): trump is not chosen yet when they are dealt.
CARD_STRENGTH = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
HAND_STRENGTH_TEXT = "card values of the 5 cards dealt first (each at the better of its " \
                     "trump and plain values)"


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(CARD_STRENGTH.get(c[:-1], 0) for c in hand))
