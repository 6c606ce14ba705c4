"""Tarot balance questions: the catalogue's eight questions as metrics (section "Tarot
questions"), read from the result columns of ``kernels.py``."""

from __future__ import annotations

import math

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, root_mean, std_dev

from .rules import CHIEN_SIZE, CONTRACTS, TarotKnobs

# --- balance questions ------------------------------------------------------------------
SECTION = "Tarot questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points (marks, swings, spreads) stay out of the headline table.
VALUE_EDGES = (20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60)  # question 2: hand-value buckets


def _n_seats(cols: set[str], knobs) -> int:
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    return n or (knobs.players if isinstance(knobs, TarotKnobs) else 4)


def _value_buckets() -> list[tuple[str, str, pl.Expr]]:
    """(key, text, condition on taker_value) for question 2's hand-strength buckets."""
    v = pl.col("taker_value")
    edges = VALUE_EDGES
    out = [(f"lt{edges[0]}", f"hand value < {edges[0]}", v < edges[0])]
    for lo, hi in zip(edges, edges[1:], strict=False):
        out.append((f"{lo}_{hi - 1}", f"hand value {lo}-{hi - 1}", (v >= lo) & (v < hi)))
    out.append((f"ge{edges[-1]}", f"hand value >= {edges[-1]}", v >= edges[-1]))
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: TarotKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's eight balance questions as metrics (section "Tarot questions"), at
    the run's player count (3, 4 or 5; metrics are per run, so question 4 compares runs).

    Deal level: 1 taker success and mark by contract and by Bouts (won at the end, and
    held at the bid); 2 the taker's mark against a defender's, by hand-value bucket; 3 the
    dealer's right (first to bid and to lead) against the other positions; 4 the taker's
    success and the spread of the marks, and at 5 players how often and how well the
    taker plays alone; 5 Petit au bout frequency, camp and swing per contract; 6 the
    success of a camp that shows a poignée; 7 redeals (petit sec, all pass); 8 slams.
    Match level: 4 and 7 as shares pooled over matches. Only metrics whose columns the
    frame has are returned; a hand-value bucket is shown when it holds at least two
    takes (``MetricDef.min_n``)."""
    cols = set(frame.lazy().collect_schema().names())
    n = _n_seats(cols, knobs)
    k = knobs if isinstance(knobs, TarotKnobs) else TarotKnobs(players=n)
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"tarot.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        scores = {f"score_s{i}" for i in range(n)}
        taken = pl.col("taker") >= 0
        made = pl.col("made")
        contract = pl.col("contract").cast(pl.String)
        taker_score = pl.lit(None, dtype=pl.Float64)
        for p in range(n):
            taker_score = pl.when(pl.col("taker") == p).then(
                pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(taker_score)
        alone_or_no_partner = pl.col("partner") < 0
        # the taker's mark is this many times A (each defender marks -A)
        factor = pl.when(alone_or_no_partner).then(n - 1).otherwise(n - 3)
        bid = {"taker", "made", "contract"}
        sc = bid | scores
        mults = dict(zip(CONTRACTS, (k.mult_prise, k.mult_garde, k.mult_garde_sans,
                                     k.mult_garde_contre), strict=True))
        names = {"prise": "Prise", "garde": "Garde", "garde_sans": "Garde sans",
                 "garde_contre": "Garde contre"}
        # 1. success and mark by contract and by Bouts
        for c in CONTRACTS:
            sel = taken & (contract == c)
            add(bid, f"q1.success.{c}", f"taker success, {names[c]}", made, sel, headline=True)
            add(sc, f"q1.score.{c}", f"taker's mark per deal, {names[c]}", taker_score, sel,
                kind="mean", unit="points",
                note="positive: taking this contract is +EV for the bidders of this run"
                if c == "garde_contre" else "")
        for b in range(4):
            sel = taken & (pl.col("bouts") == b)
            add(bid | {"bouts"}, f"q1.success.bouts{b}", f"taker success, {b} Bouts won",
                made, sel, headline=True,
                note="Bouts among the attack's cards at the end (they set the target)")
            add(sc | {"bouts"}, f"q1.score.bouts{b}", f"taker's mark per deal, {b} Bouts won",
                taker_score, sel, kind="mean", unit="points")
            sel = taken & (pl.col("taker_bouts") == b)
            add(bid | {"taker_bouts"}, f"q1.success.held{b}", f"taker success, {b} Bouts "
                "in hand at the bid", made, sel, note="Bouts in the taker's own hand, "
                "before the chien")
            add(sc | {"taker_bouts"}, f"q1.score.held{b}", f"taker's mark per deal, {b} "
                "Bouts in hand at the bid", taker_score, sel, kind="mean", unit="points")
        # 2. is taking profitable? the taker's mark against a defender's, by hand value
        add(sc, "q2.score.taker", "taker's mark per deal taken", taker_score, taken,
            kind="mean", unit="points")
        add({"taker", "attack_total"}, "q2.score.defender", "a defender's mark per deal "
            "taken", -pl.col("attack_total").cast(pl.Float64), taken, kind="mean",
            unit="points", note="each defender marks -A (the partner at 5 players +A)")
        add(sc, "q2.positive", "the taker's mark is positive", taker_score > 0, taken,
            headline=True)
        if "taker_value" in cols:
            # a bucket is shown when it holds takes enough for an interval (two)
            for key, text, cond in _value_buckets():
                sel = taken & cond
                add(sc | {"taker_value"}, f"q2.score.v{key}", f"taker's mark per deal, "
                    f"{text}", taker_score, sel, kind="mean", unit="points",
                    note="hand value: the heuristic's bidding count of the taker's hand "
                         f"before the chien (bids at {k.bid_prise}/{k.bid_garde}/"
                         f"{k.bid_garde_sans}/{k.bid_garde_contre})", min_n=2)
                add(sc | {"taker_value"}, f"q2.success.v{key}", f"taker success, {text}",
                    made, sel, min_n=2)
                add(sc | {"taker_value"}, f"q2.prise.score.v{key}", f"taker's mark per "
                    f"Prise, {text}", taker_score, sel & (contract == "prise"),
                    kind="mean", unit="points",
                    note="a positive mean: Prise is +EV for these bidders in "
                         "that bucket", min_n=2)
        # 3. seat effect: the dealer's right speaks first and leads
        for j in range(n):
            pos = "the dealer" if j == 0 else ("the dealer's right" if j == 1 else
                                               f"{j} seats right of the dealer")
            mark = pl.lit(None, dtype=pl.Float64)
            for p in range(n):
                mark = pl.when((pl.col("dealer") + j) % n == p).then(
                    pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(mark)
            add(scores | {"dealer"}, f"q3.score.pos{j}", f"mark per dealing, {pos}", mark,
                kind="mean", unit="points",
                note="over all dealings (void ones mark 0); every seat holds each position "
                     "equally often over a full rotation" if j == 1 else "")
            add(scores | {"dealer", "taker"}, f"q3.positive.pos{j}", f"positive mark, {pos} "
                "(deals taken)", mark > 0, taken, headline=j == 1)
        right = pl.col("taker") == (pl.col("dealer") + 1) % n
        add({"taker", "dealer"}, "q3.take.right", "the dealer's right takes (share of deals "
            "taken)", right, taken, note=f"1/{n} if position did not matter")
        add({"taker", "dealer", "made"}, "q3.success.right", "taker success when the "
            "dealer's right takes", made, taken & right)
        add({"taker", "dealer", "made"}, "q3.success.others", "taker success when another "
            "seat takes", made, taken & ~right)
        # 4. player count: the taker's success and the spread of the marks at this count
        add(bid, "q4.success", f"taker success at {n} players", made, taken, headline=True,
            note="compare runs with players=3, 4 and 5")
        add(sc, "q4.score.sd", f"standard deviation of the taker's mark at {n} players",
            std_dev(taker_score, taken), taken, kind="mean", unit="points",
            note="delta-method interval")
        sq = sum(pl.col(f"score_s{i}").cast(pl.Float64) ** 2 for i in range(n)) / n
        add(scores | {"taker"}, "q4.mark.sd", f"standard deviation of a seat's mark per deal "
            f"taken at {n} players", root_mean(sq, taken), taken, kind="mean",
            unit="points", note="root mean square of the seats' marks, pooled over the "
                                "seats (their mean is 0: the marks of a deal sum to 0); "
                                "delta-method interval")
        if n == 5:
            alone = pl.col("alone")
            chien = pl.col("called_in_chien")
            self_call = alone & ~chien
            need5 = {"taker", "alone", "called_in_chien"}
            add(need5, "q4.alone", "the taker plays alone (1 against 4)", alone, taken,
                headline=True)
            add(need5, "q4.alone.chien", "alone: the called card is in the chien", chien,
                taken)
            add(need5, "q4.alone.self_call", "alone: the taker called his own card",
                self_call, taken, choice=True)
            add(need5 | {"made"}, "q4.success.alone", "taker success when alone", made,
                taken & alone, headline=True)
            add(need5 | {"made"}, "q4.success.partner", "taker success with a partner", made,
                taken & ~alone)
            add(need5 | {"made"}, "q4.success.self_call", "taker success after a self-call",
                made, taken & self_call)
            add(need5 | scores, "q4.score.alone", "taker's mark when alone", taker_score,
                taken & alone, kind="mean", unit="points")
            add(need5 | scores, "q4.score.self_call", "taker's mark after a self-call",
                taker_score, taken & self_call, kind="mean", unit="points",
                note="positive: self-calling pays for the bidders of this run")
            add(need5 | scores, "q4.score.partner", "taker's mark with a partner",
                taker_score, taken & ~alone, kind="mean", unit="points")
        # 5. Petit au bout
        pab = pl.col("petit_au_bout").cast(pl.String)
        pab_att = (pab == "attack").fill_null(False)
        pab_def = (pab == "defence").fill_null(False)
        need = {"taker", "petit_au_bout"}
        add(need, "q5.pab", "Petit au bout, per deal taken", pab.is_not_null(), taken,
            headline=True)
        # two bases, never side by side: the camps' shares of the Petits au bout (they add
        # up to 100%), and each camp's Petits au bout per deal taken (they add up to q5.pab)
        some_pab = taken & pab.is_not_null()
        add(need, "q5.pab.attack", "share of Petits au bout won by the attack", pab_att,
            some_pab, headline=True)
        add(need, "q5.pab.defence", "share of Petits au bout won by the defence", pab_def,
            some_pab)
        add(need, "q5.pab_taken.attack", "Petit au bout by the attack, per deal taken",
            pab_att, taken)
        add(need, "q5.pab_taken.defence", "Petit au bout by the defence, per deal taken",
            pab_def, taken)
        sign = pl.when(pab_att).then(1).when(pab_def).then(-1).otherwise(0)
        for c in CONTRACTS:
            swing = (sign * factor * (k.petit_au_bout * mults[c])).cast(pl.Float64)
            add(need | {"contract", "partner"}, f"q5.swing.{c}", f"Petit au bout's part of "
                f"the taker's mark, {names[c]}", swing, taken & (contract == c),
                kind="mean", unit="points",
                note=f"mean over the {names[c]} takes of +-{k.petit_au_bout} x "
                     f"{mults[c]} x the taker's share of A")
        # 6. poignée: does showing it cost the declaring camp?
        att_p = pl.lit(False)
        def_p = pl.lit(False)
        for p in range(n):
            shown = pl.col(f"poignee_s{p}").is_not_null()
            attack_seat = (pl.col("taker") == p) | (pl.col("partner") == p)
            att_p = att_p | (shown & attack_seat)
            def_p = def_p | (shown & ~attack_seat)
        need = {"taker", "made", "partner"} | {f"poignee_s{p}" for p in range(n)}
        note6 = ("a poignée comes with a trump-rich hand, so this mixes the hand's strength "
                 "with the information given away; `simlab compare tarot --a \"\" --b "
                 "\"poignee_defence=false\"` isolates the defence's poignées")
        add(need, "q6.shown", "a poignée is shown, per deal taken", att_p | def_p, taken)
        add(need, "q6.attack", "the attack shows a poignée, per deal taken", att_p, taken)
        add(need, "q6.defence", "the defence shows a poignée, per deal taken", def_p, taken)
        add(need, "q6.success.attack_poignee", "taker success when the attack shows a "
            "poignée", made, taken & att_p, headline=True, note=note6)
        add(need, "q6.success.no_attack_poignee", "taker success when the attack shows no "
            "poignée", made, taken & ~att_p)
        add(need, "q6.defence_wins.defence_poignee", "defence success when the defence "
            "shows a poignée", ~made, taken & def_p, headline=True, note=note6)
        add(need, "q6.defence_wins.no_defence_poignee", "defence success when the defence "
            "shows no poignée", ~made, taken & ~def_p)
        # 7. redeals
        void_ps = pl.col("annulled")
        all_pass = ~pl.col("annulled") & (pl.col("taker") < 0)
        add({"annulled"}, "q7.petit_sec", "dealing void through a petit sec", void_ps,
            headline=True)
        add({"annulled", "taker"}, "q7.all_pass", "dealing void because everybody passes",
            all_pass, headline=True, choice=True,
            note="0 with all_pass=dealer_takes")
        add({"annulled", "taker"}, "q7.void", "dealing void (petit sec or all pass)",
            void_ps | all_pass)
        # 8. slams
        ch = pl.col("chelem").cast(pl.String)
        ch_att = (ch == "attack").fill_null(False)
        ch_def = (ch == "defence").fill_null(False)
        ann = pl.col("chelem_announced")
        need = {"taker", "chelem", "chelem_announced"}
        add(need, "q8.unannounced.attack", "unannounced slam by the attack, per deal taken",
            ch_att & ~ann, taken, headline=True)
        add(need, "q8.defence", "slam by the defence (every trick), per deal taken",
            ch_def, taken, headline=True)
        add(need, "q8.unannounced", "unannounced slam (either camp), per deal taken",
            ch.is_not_null() & ~ann, taken)
        add(need, "q8.announced", "slam announced, per deal taken", ann, taken)
        add(need, "q8.announced.made", "announced slam made", ch_att,
            taken & ann)
    else:
        nd = pl.col("n_deals")
        everything = pl.lit(True)
        add({"n_deals", "n_annulled"}, "q7.match.petit_sec", "share of dealings void "
            "through a petit sec (per match)", ratio_of_sums(pl.col("n_annulled"), nd,
                                                            everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        add({"n_deals", "n_all_pass"}, "q7.match.all_pass", "share of dealings where "
            "everybody passes (per match)", ratio_of_sums(pl.col("n_all_pass"), nd,
                                                          everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        add({"n_taken", "n_made"}, "q4.match.success", f"taker success at {n} players "
            "(pooled over matches)", ratio_of_sums(pl.col("n_made"), pl.col("n_taken"),
                                                    everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        finals = {f"final_score_s{i}" for i in range(n)}
        sq = sum(pl.col(f"final_score_s{i}").cast(pl.Float64) ** 2 for i in range(n)) / n
        add(finals, "q4.match.final.sd", f"standard deviation of a seat's match total at "
            f"{n} players", root_mean(sq, everything), kind="mean", unit="points",
            note="root mean square of the seats' totals, pooled over the seats (their "
                 "mean is 0: the totals sum to 0); delta-method interval")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there); a question whose metrics
# the run has not got is left out.
FINDINGS = (
    {"question": "1. Success by contract",
     "key": "tarot.q1.success.prise",
     "text": "Takers make {tarot.q1.success.prise} of their Prises, "
             "{tarot.q1.success.garde} of their Gardes, {tarot.q1.success.garde_sans} of "
             "their Gardes sans and {tarot.q1.success.garde_contre} of their Gardes contre"},
    {"question": "1. Garde contre",
     "key": "tarot.q1.score.garde_contre", "against": 0.0,
     "against_text": "break-even (0)",
     "text": "A Garde contre earns its taker {tarot.q1.score.garde_contre} per deal"},
    {"question": "2. Is taking profitable?",
     "key": "tarot.q2.score.taker", "against": 0.0, "against_text": "break-even (0)",
     "text": "The taker's mark is positive in {tarot.q2.positive} of deals taken; on "
             "average a taker marks {tarot.q2.score.taker} per deal taken"},
    {"question": "3. Seat effect",
     "key": "tarot.q3.score.pos1", "against": 0.0,
     "against_text": "the mean over the seats (0: the marks of a deal sum to 0)",
     "text": "The dealer's right (first to bid and to lead) marks {tarot.q3.score.pos1} "
             "per dealing"},
    {"question": "4. Player count",
     "key": "tarot.q4.success",
     "text": "At this player count takers make {tarot.q4.success} of their contracts; "
             "the standard deviation of the taker's mark is {tarot.q4.score.sd}"},
    {"question": "4. Playing alone (5 players)",
     "key": "tarot.q4.alone",
     "text": "The taker plays alone in {tarot.q4.alone} of deals taken and then makes "
             "{tarot.q4.success.alone} of them"},
    {"question": "5. Petit au bout",
     "key": "tarot.q5.pab",
     "text": "A Petit au bout happens in {tarot.q5.pab} of deals taken: "
             "{tarot.q5.pab_taken.attack} by the attack and "
             "{tarot.q5.pab_taken.defence} by the defence"},
    {"question": "6. Poignée",
     "key": "tarot.q6.success.attack_poignee",
     "against": "tarot.q6.success.no_attack_poignee",
     "text": "Takers make {tarot.q6.success.attack_poignee} of deals where the attack shows "
             "a poignée and {tarot.q6.success.no_attack_poignee} where it shows none (the "
             "poignée comes with a trump-rich hand, so this is not its price alone)",
     "difference": "with minus without"},
    {"question": "7. Redeals",
     "key": "tarot.q7.petit_sec",
     "text": "A dealing is void through a petit sec in {tarot.q7.petit_sec} and because "
             "everybody passes in {tarot.q7.all_pass}"},
    {"question": "7. Redeals",
     "key": "tarot.q7.match.petit_sec",
     "text": "Over matches, {tarot.q7.match.petit_sec} of dealings are void through a "
             "petit sec and {tarot.q7.match.all_pass} because everybody passes"},
    {"question": "8. Slams",
     "key": "tarot.q8.unannounced.attack",
     "text": "An unannounced slam by the attack happens in {tarot.q8.unannounced.attack} of "
             "deals taken, a slam by the defence in {tarot.q8.defence}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Shared by the three Tarot games (same card labels): a Bout 4, a trump 1 + its rank / 21,
# a King 2, a Queen 1, a Cavalier 0.5; the usual way players count a hand before bidding.
HAND_STRENGTH_TEXT = "Bouts, trumps and honours (Bout 4, trump 1 + rank/21, K 2, Q 1, C 0.5)"
_HONOUR = {"K": 2.0, "Q": 1.0, "C": 0.5}


def hand_strength(knobs, hand: list[str]) -> float:
    total = 0.0
    for c in hand:
        if c in ("T1", "T21", "Excuse"):
            total += 4.0
        elif c.startswith("T"):
            total += 1.0 + int(c[1:]) / 21
        else:
            total += _HONOUR.get(c[:-1], 0.0)
    return total


RARE_CHANCE = 1e-4  # per deal: a 20,000-deal run expects at most 2 such hands


def poignee_chance(players: int, trumps: int) -> float:
    """The chance that some seat is dealt ``trumps`` or more of the 22 trumps (the Excuse
    counted) in its hand of the 78-card deck (each seat's chance added: an upper bound,
    near exact for rare hands)."""
    hand = (78 - CHIEN_SIZE[players]) // players
    one = sum(math.comb(22, k) * math.comb(56, hand - k)
              for k in range(trumps, min(22, hand) + 1)) / math.comb(78, hand)
    return min(1.0, players * one)


# Why a run sees no chelem announced, by players (measured with the default heuristic;
# scripts/measure_never_taken.py for the slam odds and search's values, 64 worlds): the
# heuristic announces when its slam odds pass the primes' break-even (50 %), and such
# hands are this rare.
CHELEM_NOTES = {
    3: ("rare, not never: none announced and none made in 50,000 deals (45,328 takes, "
        "seed 5); in 20,000 more (18,085 takes) the taker's slam odds never reached 20 % "
        "and search declined all 115 hands at 10-12 %",),
    4: ("rare, not never: 1 announced and 3 made unannounced in 100,000 deals (66,079 "
        "takes, seed 5); in 40,000 more (26,351 takes) the taker's slam odds reached 50 % "
        "once and 20 % twice, and search announced only at 50 %: a 20,000-deal run "
        "expects about 0.2",),
    5: ("rare, not never: 1 announced and 8 made unannounced in 50,000 deals (27,455 "
        "takes, seed 5); in 20,000 more (10,910 takes) the taker's slam odds reached 10 % "
        "once (54 %, announced)",),
}


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """Choices the report checks are sometimes, not never or always, taken (deals taken):
    a chelem announced, a poignée shown by any seat."""
    out = []
    taken = pl.col("taker") >= 0
    if "chelem_announced" in columns:
        out.append(("a chelem is announced (deals taken)", pl.col("chelem_announced"), taken,
                    *CHELEM_NOTES.get(knobs.players, ())))
    poignees = [c for c in columns if c.startswith("poignee_s")]
    if poignees:
        out.append(("a poignée is shown (deals taken)",
                    pl.any_horizontal([pl.col(c).is_not_null() for c in poignees]), taken))
        # each poignée is a decision kind of its own; one whose hand is too rare for a
        # run to expect says so (its chance is computed, not guessed)
        for level, trumps in zip(("simple", "double", "triple"),
                                 knobs.poignee_thresholds(), strict=True):
            chance = poignee_chance(knobs.players, trumps)
            rare = (f"rare, not never: a hand of {trumps}+ trumps comes about 1 deal in "
                    f"{round(1 / chance):,} (computed, hypergeometric); a smaller run sees "
                    "none",) if chance < RARE_CHANCE else ()
            out.append((f"a poignée {level} is shown (deals taken)",
                        pl.any_horizontal([pl.col(c).cast(pl.String) == level
                                           for c in poignees]).fill_null(False), taken, *rare))
    return out
