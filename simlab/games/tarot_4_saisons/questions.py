"""Tarot 4 saisons balance questions: the catalogue's seven questions as metrics (moved
as they were from the single-file module; the rules are in ``rules.py``)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.tarot_4_saisons.rules import (
    B_PAB,
    B_RESIST,
    CONTRACTS,
    NP,
    RUNGS,
    Tarot4SaisonsKnobs,
    _ints,
)

SECTION = "Tarot 4 saisons questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points stay out of the headline table.
COMPARE = "`simlab compare tarot_4_saisons -n 200000"


def _seat_value(prefix: str, seat: pl.Expr) -> pl.Expr:
    """Value of column ``{prefix}_s{p}`` for the seat given per row by ``seat``."""
    out = pl.lit(None, dtype=pl.Float64)
    for p in range(NP):
        out = pl.when(seat == p).then(pl.col(f"{prefix}_s{p}").cast(pl.Float64)).otherwise(out)
    return out


def _by_rung(values: list[int] | tuple[int, ...]) -> pl.Expr:
    """Per-row value of a 7-entry per-rung table at the row's rung."""
    rung = pl.col("rung").cast(pl.String)
    out = pl.lit(None, dtype=pl.Float64)
    for r, v in zip(RUNGS, values, strict=True):
        out = pl.when(rung == r).then(pl.lit(float(v))).otherwise(out)
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: Tarot4SaisonsKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's seven balance questions as metrics (section "Tarot 4 saisons
    questions", keys ``t4s.qN...``).

    Deal level: 1 winning bids (share, success, the taker's net game mark per contract);
    2 simple against clear (success, the simple wins doubled at the clear threshold, and
    on every take the counterfactual net mark of the simple and the clear version of the
    same rung); 3 the seat effect by position from the dealer (mark, takes, top mark); 4
    all-pass and no-trump redeal frequency; 6 the bonuses' share of the points marked and
    résistance; 7 the optional chien cards and the refused reductions. Match level: 3 match
    win rate by position from the first dealer; 4 all-pass share and the carry; 5 match
    length and the moving bar. A "net" mark is the taker's game mark minus an opponent's
    (the stake won, or minus the stake paid to each opponent). Only metrics whose columns
    the frame has (and, per contract or rung, holding takes of the frame) are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    k = knobs if isinstance(knobs, Tarot4SaisonsKnobs) else Tarot4SaisonsKnobs()
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"t4s.{key}", title, SECTION, expr, where, kind, **kw), need))

    everything = pl.lit(True)
    if level == "deal":
        seats = range(NP)
        scores = {f"score_s{i}" for i in seats}
        games = {f"game_s{i}" for i in seats}
        taker = pl.col("taker")
        taken = taker >= 0
        made = pl.col("made")
        contract = pl.col("contract").cast(pl.String)
        rung = pl.col("rung").cast(pl.String)
        clear = pl.col("clear")
        taker_game = _seat_value("game", taker)
        opp_game = (sum(pl.col(f"game_s{i}").cast(pl.Float64) for i in seats) - taker_game) / 2
        net = taker_game - opp_game
        bid = {"taker", "made", "contract"}
        # 1. winning bids: share, success and the taker's net game mark per contract (a
        # contract is shown when some deal is taken at it; its net mark, from two takes)
        for c in CONTRACTS:
            sel = taken & (contract == c)
            text = c.replace("_", " ")
            add({"taker", "contract"}, f"q1.share.{c}", f"share of winning bids: {text}",
                contract == c, taken, shown_if=sel)
            add(bid, f"q1.success.{c}", f"taker success, {text}", made, sel, headline=True,
                note="2+2 and 3 cartes share the simple stake 4 (3 with the option): "
                     "compare their success and net marks" if c == "2+2_simple" else "",
                shown_if=sel)
            add(bid | games, f"q1.net.{c}", f"taker's net game mark, {text}", net, sel,
                kind="mean", unit="points",
                note="the taker's game mark minus an opponent's (-stake when failed)",
                shown_if=sel, min_n=2)
        # 2. simple against clear
        need2 = {"taker", "clear", "made"}
        add(need2, "q2.clear", "winning bid on the clear ladder (share of takes)",
            clear, taken, headline=True)
        add(need2, "q2.success.simple", "taker success, simple bids", made, taken & ~clear,
            headline=True)
        add(need2, "q2.success.clear", "taker success, clear bids", made, taken & clear,
            headline=True)
        add(need2 | {"taker_points"}, "q2.doubled", f"simple bid made with a clear result "
            f"(>= {k.clear_threshold}: x{k.simple_clear_multiplier})",
            made & (pl.col("taker_points") >= k.clear_threshold), taken & ~clear,
            headline=True)
        add(need2 | games, "q2.net.simple", "taker's net game mark, simple bids", net,
            taken & ~clear, kind="mean", unit="points")
        add(need2 | games, "q2.net.clear", "taker's net game mark, clear bids", net,
            taken & clear, kind="mean", unit="points")
        # counterfactual: the same take (same cards and play) bid simple or clear
        tp = pl.col("taker_points").cast(pl.Float64)
        chien_opp = pl.when(rung == "contre").then(pl.col("chien_points")).otherwise(0)
        opp_pts = [pl.col(f"trick_points_s{(p)}") + chien_opp for p in seats]
        beats = pl.lit(True)
        for p in seats:
            beats = beats & ((taker == p) | (tp > opp_pts[p]))
        reach = tp >= k.clear_threshold
        s_st = _by_rung(_ints(k.stakes_simple, 7, "stakes_simple"))
        c_st = _by_rung(_ints(k.stakes_clear, 7, "stakes_clear"))
        capot = pl.col("capot").fill_null(False)
        cf_simple = (pl.when(capot).then(k.capot_mult * s_st)
                     .when(beats & reach).then(k.simple_clear_multiplier * s_st)
                     .when(beats).then(s_st).otherwise(-s_st))
        cf_clear = (pl.when(capot).then(k.capot_mult * c_st).when(reach).then(c_st)
                    .otherwise(-c_st))
        need_cf = ({"taker", "rung", "taker_points", "chien_points", "capot"}
                   | {f"trick_points_s{p}" for p in seats})
        note_cf = ("counterfactual on every take: the same cards and play scored as the "
                   "simple (resp. clear) bid of the same rung at the knob stakes (no option "
                   "reduction, no contre); unannounced capot x" + str(k.capot_mult))
        add(need_cf, "q2.cf.simple", "net game mark of the simple version of the take",
            cf_simple, taken, kind="mean", unit="points", note=note_cf)
        add(need_cf, "q2.cf.clear", "net game mark of the clear version of the take",
            cf_clear, taken, kind="mean", unit="points", note=note_cf)
        add(need_cf, "q2.clear_pays", "the clear version of the take pays more than the "
            "simple one", cf_clear > cf_simple, taken, headline=True,
            note="> 0 means the clear ladder is sometimes worth bidding; " + note_cf)
        for r in RUNGS:  # shown from two takes at the rung
            add(need_cf | {"rung"}, f"q2.cf.gain.{r}", f"clear minus simple counterfactual "
                f"net mark, takes at rung {r}", cf_clear - cf_simple, taken & (rung == r),
                kind="mean", unit="points", note="positive: bid this rung clear",
                shown_if=taken & (rung == r), min_n=2)
        # 3. seat effect by position from the dealer (dealer + 1 bids and leads first)
        rel = (taker - pl.col("dealer")) % NP
        for j in seats:
            seat = (pl.col("dealer") + j) % NP
            pos = ("the dealer", "the dealer's next (first bidder and leader)",
                   "the dealer's second")[j]
            mark = _seat_value("score", seat)
            others = [_seat_value("score", (pl.col("dealer") + i) % NP) for i in seats
                      if i != j]
            add(scores | {"dealer"}, f"q3.score.pos{j}", f"mark per dealing, {pos}", mark,
                kind="mean", unit="points")
            add(scores | {"dealer"}, f"q3.top.pos{j}", f"marks strictly the most this "
                f"dealing, {pos}", (mark > others[0]) & (mark > others[1]),
                headline=j == 1, note="1/3 each if position did not matter, less the ties")
            add({"taker", "dealer"}, f"q3.take.pos{j}", f"the taker is {pos} (share of "
                "takes)", rel == j, taken)
            add({"taker", "dealer", "made"}, f"q3.success.pos{j}", f"taker success when "
                f"the taker is {pos}", made, taken & (rel == j))
        # 4. redeals: everybody passes, or a hand without trump
        add({"all_pass"}, "q4.all_pass", "dealing where everybody passes", pl.col("all_pass"),
            headline=True, choice=True, note=f"each seat -{k.allpass_penalty}; the carry bonus is a "
                                "match effect (see t4s.q4.match.*); the heuristic passes a "
                                f"hand valued below pass_below ({k.pass_below})")
        add({"all_pass", "annulled"}, "q4.all_pass.played", "everybody passes (dealings "
            "not annulled)", pl.col("all_pass"), ~pl.col("annulled"))
        add({"annulled"}, "q4.annulled", "dealing annulled: a hand without trump (or a "
            "fault, when the fault knobs are set)", pl.col("annulled"))
        # 6. bonuses' share of the points marked, and résistance
        total = sum(pl.col(f"score_s{i}").cast(pl.Float64) for i in seats)
        defenders = taken & (pl.col("resistance_s0").is_not_null()
                             | pl.col("resistance_s1").is_not_null()
                             | pl.col("resistance_s2").is_not_null())

        def bit_of(p: int, b: int) -> pl.Expr:
            return ((pl.col(f"contracts_s{p}") // (1 << b)) % 2) == 1

        def settled(achieved: list[pl.Expr], b: int, auto: int, contracted_value: int
                    ) -> pl.Expr:
            """Points of one bonus over the seats (contracted values without contres)."""
            pts = pl.lit(0.0)
            for p in seats:
                con = bit_of(p, b)
                fail_pay = pl.when(taker == p).then(2 * contracted_value).otherwise(
                    contracted_value)
                pts = pts + (pl.when(con & achieved[p]).then(contracted_value)
                             .when(con).then(fail_pay)
                             .when(achieved[p]).then(auto).otherwise(0))
            return pts.cast(pl.Float64)

        pab_seat = pl.col("petit_au_bout_seat")
        pab = settled([pab_seat == p for p in seats], B_PAB, k.pab_auto, k.pab_contract)
        res = settled([pl.col(f"resistance_s{p}").fill_null(False) for p in seats],
                      B_RESIST, k.resistance_auto, k.resistance_contract)
        aces = pl.when(pl.col("four_aces_seat") >= 0).then(float(k.four_aces)).otherwise(0.0)
        suites = sum(pl.col(f"suites_s{i}") for i in seats).cast(pl.Float64) * k.suite_value
        bonus = sum(pl.col(f"bonus_s{i}").cast(pl.Float64) for i in seats)
        contracts = {f"contracts_s{i}" for i in seats} | {"taker"}
        note6 = ("share of all points marked (every seat, every dealing); delta-method "
                 "interval")
        note_nominal = note6 + "; contracted values without any contre on the contract"
        add(scores | {f"bonus_s{i}" for i in seats}, "q6.share.bonus", "bonuses and "
            "contracts' share of the points marked", ratio_of_sums(bonus, total, everything),
            kind="mean", unit="share", headline=True, note=note6)
        add(scores | contracts | {"petit_au_bout_seat"}, "q6.share.petit_au_bout",
            "Petit au bout's share of the points marked", ratio_of_sums(pab, total,
                                                                       everything),
            kind="mean", unit="share", note=note_nominal)
        add(scores | contracts | {f"resistance_s{i}" for i in seats}, "q6.share.resistance",
            "résistance's share of the points marked", ratio_of_sums(res, total, everything),
            kind="mean", unit="share", headline=True, note=note_nominal)
        add(scores | {"four_aces_seat"}, "q6.share.four_aces", "4 As' share of the points "
            "marked", ratio_of_sums(aces, total, everything), kind="mean", unit="share",
            note=note6)
        add(scores | {f"suites_s{i}" for i in seats}, "q6.share.suites", "suites' share of "
            "the points marked", ratio_of_sums(suites, total, everything), kind="mean",
            unit="share", note=note6)
        reached = pl.lit(False)
        for p in seats:
            reached = reached | pl.col(f"resistance_s{p}").fill_null(False)
        add({"taker"} | {f"resistance_s{i}" for i in seats}, "q6.resistance", "a defender "
            f"reaches the résistance ({k.resistance_points} points), per deal taken",
            reached, defenders, headline=True,
            note="does résistance make defending too rewarding? " + COMPARE
                 + ' --b "resistance_auto=0 resistance_contract=0"`')
        taker_mark = _seat_value("score", taker)
        defender_mark = (total - taker_mark) / 2
        add(scores | {"taker"}, "q6.mark.taker", "taker's mark per deal taken", taker_mark,
            taken, kind="mean", unit="points")
        add(scores | {"taker"}, "q6.mark.defender", "a defender's mark per deal taken",
            defender_mark, taken, kind="mean", unit="points")
        add(scores | {"taker"}, "q6.defender_tops", "a defender marks more than the taker "
            "(per deal taken)", pl.any_horizontal([(taker != p) & (pl.col(f"score_s{p}")
                                                                    > taker_mark)
                                                   for p in seats]), taken)
        # 7. the optional chien cards and the refused reductions
        optional = taken & rung.is_in(["2+2", "1+1"])
        used = pl.col("option_used").fill_null(False)
        need7 = {"taker", "rung", "option_used"}
        add(need7, "q7.option", "the taker turns the optional chien cards (2+2 and 1+1 "
            "takes)", used, optional, headline=True)
        for r in ("2+2", "1+1"):
            add(need7, f"q7.option.{r}", f"the taker turns the optional chien cards, {r}",
                used, taken & (rung == r))
        add(need7 | {"option_refused"}, "q7.refused", "an opponent refuses the stake "
            "reduction (share of options used)", pl.col("option_refused").fill_null(False),
            optional & used, headline=True)
        add(need7 | {"made"}, "q7.success.option", "taker success after turning the "
            "optional cards", made, optional & used)
        add(need7 | {"made"}, "q7.success.no_option", "taker success without the optional "
            "cards", made, optional & ~used)
    else:
        nd = pl.col("n_deals")
        # 3. match win rate by position from the first dealer
        for j in range(NP):
            pos = ("first dealer", "first dealer's next (first bidder and leader)",
                   "first dealer's second")[j]
            add({"winner", "first_dealer"}, f"q3.match.win.pos{j}", f"match win rate, {pos}",
                pl.col("winner") == (pl.col("first_dealer") + j) % NP, headline=j == 1,
                note="1/3 each if the first deal's positions did not matter")
        # 4. all pass and the carry bonus
        add({"n_deals", "n_all_pass"}, "q4.match.all_pass", "share of dealings where "
            "everybody passes (pooled over matches)",
            ratio_of_sums(pl.col("n_all_pass"), nd, everything), kind="mean", unit="share",
            headline=True, note="delta-method interval; the carry's effect: " + COMPARE
            + ' --level match --b "allpass_carry_bonus=0"`')
        add({"n_all_pass"}, "q4.match.any_all_pass", "matches with at least one all-pass "
            "dealing", pl.col("n_all_pass") > 0, headline=True)
        # 5. match length and the moving bar
        add({"n_deals"}, "q5.length", f"dealings per match (to {k.target})", nd,
            kind="mean", unit="deals")
        add({"n_bar_moves"}, "q5.bar_moved", "the bar moved up at least once",
            pl.col("n_bar_moves") > 0, headline=True)
        add({"n_bar_moves"}, "q5.bar_moves", "bar moves per match", pl.col("n_bar_moves"),
            kind="mean", unit="moves")
        add({"final_bar"}, "q5.final_bar", "the bar at the end of the match",
            pl.col("final_bar"), kind="mean", unit="points")
        add({"n_deals", "n_taken", "n_made"}, "q1.match.success", "taker success (pooled "
            "over matches)", ratio_of_sums(pl.col("n_made"), pl.col("n_taken"), everything),
            kind="mean", unit="share", note="delta-method interval")
    return [m for m, need in out if need <= cols]




def decisions(knobs, columns: list[str]) -> list[tuple]:
    """Choices the report checks are sometimes, not never or always, taken (deals taken):
    a contre, a capot announced, the optional chien cards turned."""
    taken = pl.col("taker") >= 0
    out = []
    if "n_contres" in columns:
        out.append(("a contre is said (deals taken)", pl.col("n_contres") > 0, taken))
    if "capot_announced" in columns:
        out.append(("the taker announces a capot (deals taken)", pl.col("capot_announced"),
                    taken, "rare, not never: 62 announced (53 made) in 600,000 deals, seed 5 "
                    "(tests/test_tarot_4_saisons_players.py); a smaller run may see none"))
    if "option_used" in columns:
        # always, with the heuristic: turning them less often measured worse, relative to
        # the table (option_take_below 50 instead of 70: -0.150 [-0.170, -0.131] a deal,
        # 40: -0.324; 20,000 deals, seed 99)
        out.append(("the taker turns the optional chien cards (2+2 / 1+1 takes)",
                    pl.col("option_used"), taken & pl.col("option_used").is_not_null(),
                    "always: measured right: turning them less often (option_take_below 50 instead "
                    "of 70) loses 0.15 points a deal"))
    return out


def decision_notes(knobs) -> dict[str, str]:
    """Why the simple rungs are never bid under the default ladder (``simple_first``:
    every simple bid below every clear one), as measured, for the Players section's
    per-kind checks; under ``by_rung`` they are not measured, so a "never" stays a
    warning."""
    from simlab.games.tarot_4_saisons.rules import CONTRACTS

    if knobs.ladder_order != "simple_first":
        return {}
    why = ("measured not to pay under simple_first: search at every seat bid no simple rung "
           "in 400 contracts (seed 7), its best simple bid never scored above its best "
           "clear bid in 78 bidding decisions (seed 3), and a seat bidding simple more "
           "often loses 0.27 to 1.56 points a deal (20,000 deals, seed 1)")
    return {f"contract {c} (rows with a contract)": why
            for c in CONTRACTS if c.endswith("_simple")}

