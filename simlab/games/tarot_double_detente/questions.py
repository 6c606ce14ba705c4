"""Tarot double détente: the catalogue's balance questions as metrics (section "Tarot
double détente questions")."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, root_mean
from simlab.games.tarot_double_detente.rules import MODIFIERS, DetenteKnobs

# --- balance questions -----------------------------------------------------------------
SECTION = "Tarot double détente questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points stay out of the headline table.
COMPARE = "`simlab compare tarot_double_detente"


def _n_seats(cols: set[str], knobs) -> int:
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    return n or (knobs.players if isinstance(knobs, DetenteKnobs) else 3)


def _top(values: list[pl.Expr], i: int) -> pl.Expr:
    """``values[i]`` is strictly above every other value."""
    return pl.all_horizontal([values[i] > v for j, v in enumerate(values) if j != i])


def _at(values: list[pl.Expr], seat: pl.Expr) -> pl.Expr:
    out = pl.lit(None, dtype=pl.Float64)
    for p, v in enumerate(values):
        out = pl.when(seat == p).then(v.cast(pl.Float64)).otherwise(out)
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: DetenteKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's seven balance questions as metrics (section "Tarot double détente
    questions", keys ``tdd.qN...``), at 3 players (half-manches) and 2 (thirds).

    Positions count from the dealer: position 1 (the dealer's left) speaks first and
    leads, position 0 (the dealer) speaks last. Deal level (one row per part): 1 the
    exact-contract rate by part and by position; 2 the mark per part and per manche by
    position (manche totals add the manche's rows: ``.over("manche")``, on complete
    manches, positions from the dealer of the 1st part); 4 As-gagnant frequency per part;
    5 (when the frame has Modifications) the modifiers and the exact rate under each,
    hidden (Excuse turned) or not; 6 (2 players) first against second speaker; 7 does the
    1st part's leader win the manche. Match level: 1 exact rate pooled; 2 win rate by
    first-dealer position; 3 length and photo finishes; 4 lead changes, spread of the
    totals and (when declared) tout ou rien's success and swing. Only metrics whose
    columns the frame has are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    n = _n_seats(cols, knobs)
    k = knobs if isinstance(knobs, DetenteKnobs) else DetenteKnobs(players=n)
    parts = 5 - n
    part_col = "half" if n == 3 else "third"
    part_name = "half" if n == 3 else "third"
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"tdd.{key}", title, SECTION, expr, where, kind, **kw), need))

    def pos_name(j: int) -> str:
        if j == 1 % n:
            return "the dealer's left (first speaker and leader)"
        if j == 0:
            return "the dealer (last speaker)"
        return "the dealer's right (second speaker)"

    seats = range(n)
    everything = pl.lit(True)
    if level == "deal":
        part = pl.col(part_col)
        dealer = pl.col("dealer")
        hits = {f"hit_s{i}" for i in seats}
        scores = {f"score_s{i}" for i in seats}
        hit_share = sum(pl.col(f"hit_s{i}").cast(pl.Float64) for i in seats) / n
        hit_at = [_at([pl.col(f"hit_s{i}") for i in seats], (dealer + j) % n) for j in seats]
        # 1. exact-contract rate by part and by position
        add(hits, "q1.hit", "exact contracts (share of contracts)", hit_share, kind="mean",
            unit="share", headline=True, note="pooled over the seats")
        for q in range(1, parts + 1):
            add(hits | {part_col}, f"q1.hit.part{q}", f"exact contracts, {part_name} {q}",
                hit_share, part == q, kind="mean", unit="share", headline=True)
        for j in seats:
            add(hits | {"dealer"}, f"q1.hit.pos{j}", f"exact contract, {pos_name(j)}",
                hit_at[j].cast(pl.Boolean), headline=j in (0, 1 % n))
            for q in range(1, parts + 1):
                add(hits | {"dealer", part_col}, f"q1.hit.part{q}.pos{j}", f"exact "
                    f"contract, {part_name} {q}, {pos_name(j)}", hit_at[j].cast(pl.Boolean),
                    part == q)
        # 2. seat effect over a manche
        first_row = (part == 1) & (pl.len().over("manche") == parts)
        tot = [pl.col(f"score_s{i}").cast(pl.Float64).sum().over("manche") for i in seats]
        manche_at = [_at(tot, (dealer + j) % n) for j in seats]
        need2 = scores | {"dealer", "manche", part_col}
        note2 = ("manche totals on complete manches, positions from the dealer of its 1st "
                 "part")
        for j in seats:
            add(scores | {"dealer"}, f"q2.score.pos{j}", f"mark per {part_name}, "
                f"{pos_name(j)}", _at([pl.col(f"score_s{i}") for i in seats],
                                      (dealer + j) % n), kind="mean", unit="points")
            add(need2, f"q2.manche.pos{j}", f"mark per manche, {pos_name(j)}", manche_at[j],
                first_row, kind="mean", unit="points", note=note2)
            add(need2, f"q2.manche.top.pos{j}", f"highest manche total, {pos_name(j)}",
                _top(manche_at, j), first_row, headline=j == 1 % n,
                note=f"1/{n} each if position did not matter, less the ties")
        add(need2, "q2.manche.left_minus_dealer", "manche mark of the dealer's left minus "
            "the dealer's", manche_at[1 % n] - manche_at[0], first_row, kind="mean",
            unit="points", note=note2)
        # 4. As gagnant per part (tricks won with a suit 1, counted with or without the rule)
        aces = {f"as_gagnant_s{i}" for i in seats}
        n_aces = sum(pl.col(f"as_gagnant_s{i}") for i in seats)
        note4 = (f"with opt_as_gagnant each costs the opponents {k.as_gagnant_value}; "
                 "variance and lead changes: " + COMPARE + ' -n 20000 --level match --b '
                 '"opt_as_gagnant=true"`')
        add(aces, "q4.as_gagnant", f"a trick is won with a suit 1 (per {part_name})",
            n_aces > 0, headline=True, note=note4)
        for q in range(1, parts + 1):
            add(aces | {part_col}, f"q4.as_gagnant.part{q}", f"a trick is won with a suit 1, "
                f"{part_name} {q}", n_aces > 0, part == q)
        add(aces, "q4.as_gagnant.count", f"tricks won with a suit 1 per {part_name}", n_aces,
            kind="mean", unit="tricks")
        # 5. Modifications (only when the frame has them)
        # (each shown when some part has a modifier; a modifier's exact rate from two)
        if {"modifier", "turned_card"} <= cols:
            mod = pl.col("modifier").cast(pl.String)
            modded = mod.is_not_null()
            hidden = pl.col("turned_card").cast(pl.String) == "Excuse"
            note5 = ("the trick winners under the normal order are not recorded; "
                     + COMPARE + ' -n 200000 --a "opt_modifications=true" --b '
                     '"opt_modifications=true"` cannot pair them either (the turned '
                     "card changes the pile), so the exact rate stands for the effect")
            for m in MODIFIERS[1:]:
                add(hits | {"modifier"}, f"q5.modifier.{m}", f"modifier {m} (share "
                    "of modified parts)", mod == m, modded, shown_if=mod == m)
                add(hits | {"modifier"}, f"q5.hit.{m}", f"exact contracts under "
                    f"modifier {m}", hit_share, modded & (mod == m), kind="mean",
                    unit="share", headline=m == "reversed",
                    note=note5 if m == "reversed" else "", shown_if=mod == m, min_n=2)
            add(hits | {"modifier", "turned_card"}, "q5.hidden", "the Excuse is turned: "
                "the modifier is hidden during the contracts (share of modified parts)",
                hidden, modded, shown_if=modded)
            add(hits | {"modifier", "turned_card"}, "q5.hit.hidden", "exact contracts "
                "when the modifier was hidden during the contracts", hit_share,
                modded & hidden, kind="mean", unit="share", headline=True, shown_if=modded)
            add(hits | {"modifier", "turned_card"}, "q5.hit.visible", "exact contracts "
                "when the modifier was known during the contracts", hit_share,
                modded & ~hidden, kind="mean", unit="share", shown_if=modded)
        # 6. 2 players: the second speaker's hook handicap
        if n == 2:
            note6 = ("the hook binds the second speaker (the dealer); without it: "
                     + COMPARE + ' -n 200000 --a "players=2" --b "players=2 hook=never"`')
            mark = [_at([pl.col(f"score_s{i}") for i in seats], (dealer + j) % n)
                    for j in seats]
            add(scores | {"dealer"}, "q6.score.first", "mark per third, first speaker",
                mark[1], kind="mean", unit="points")
            add(scores | {"dealer"}, "q6.score.second", "mark per third, second speaker "
                "(hooked)", mark[0], kind="mean", unit="points", note=note6)
            add(need2, "q6.manche.first_wins", "the first speaker outscores the second over "
                "the manche", manche_at[1] > manche_at[0], first_row, headline=True,
                note=note6)
            add(need2, "q6.manche.diff", "manche mark of the first speaker minus the "
                "second's", manche_at[1] - manche_at[0], first_row, kind="mean",
                unit="points", note=note2)
            add(hits | {"dealer"}, "q6.hit.second", "exact contract, second speaker "
                "(hooked)", hit_at[0].cast(pl.Boolean), headline=True, note=note6)
            add(hits | {"dealer"}, "q6.hit.first", "exact contract, first speaker",
                hit_at[1].cast(pl.Boolean))
        # 7. does the heavier last table make the 1st part irrelevant?
        first = [pl.col(f"score_s{i}").cast(pl.Float64) for i in seats]
        last = [pl.col(f"score_s{i}").cast(pl.Float64).filter(part == parts).sum()
                .over("manche") for i in seats]
        lead_first = pl.any_horizontal([_top(first, i) for i in seats])
        lead_last = pl.any_horizontal([_top(last, i) for i in seats])
        add(need2, "q7.first_leader_wins", f"the 1st {part_name}'s leader wins the manche "
            "(highest total)", pl.any_horizontal([_top(first, i) & _top(tot, i)
                                                  for i in seats]),
            first_row & lead_first, headline=True,
            note=f"1/{n} if the 1st {part_name} did not matter; compare "
                 "tdd.q7.last_leader_wins")
        add(need2, "q7.last_leader_wins", f"the last {part_name}'s leader wins the manche",
            pl.any_horizontal([_top(last, i) & _top(tot, i) for i in seats]),
            first_row & lead_last)
        all_first = sum(first)
        all_tot = sum(tot)
        add(need2, "q7.share.first", f"share of the manche's points marked in the 1st "
            f"{part_name}", ratio_of_sums(all_first, all_tot, first_row), first_row,
            kind="mean", unit="share", headline=True, note="delta-method interval")
    else:
        nm = pl.col("n_manches")
        finals = [pl.col(f"final_score_s{i}").cast(pl.Float64) for i in seats]
        # 1. exact contracts pooled over matches
        add({f"hits_s{i}" for i in seats} | {"n_manches"}, "q1.match.hit", "exact contracts "
            "(pooled over matches)", ratio_of_sums(sum(pl.col(f"hits_s{i}") for i in seats),
                                                     nm * (parts * n), everything),
            kind="mean", unit="share", headline=True, note="delta-method interval")
        # 2. match win rate by first-dealer position
        for j in seats:
            add({"winner", "first_dealer"}, f"q2.match.win.pos{j}", f"match win rate, "
                f"{pos_name(j)} of the first manche",
                pl.col("winner") == (pl.col("first_dealer") + j) % n, headline=j == 1 % n)
        # 3. match length
        note3 = ("with the supplementary rules: " + COMPARE + ' -n 20000 --level match --b '
                 '"opt_cavalerie=true opt_modifications=true opt_as_gagnant=true '
                 'opt_tout_ou_rien=true"`')
        add({"n_manches"}, "q3.length", f"manches per match (to {k.target})", nm, kind="mean",
            unit="manches", note=note3)
        past = sum((f >= k.target).cast(pl.Int32) for f in finals)
        add({f"final_score_s{i}" for i in seats}, "q3.photo_finish", f"more than one player "
            f"reaches {k.target} in the last manche", past > 1, headline=True, note=note3)
        # 4. variance and lead changes
        add({"lead_changes"}, "q4.lead_changes", "lead changes per match",
            pl.col("lead_changes"), kind="mean", unit="changes",
            note="the optional rules' effect: " + note3)
        add({"lead_changes"}, "q4.lead_changed", "the leader changes at least once",
            pl.col("lead_changes") > 0, headline=True)
        centre = sum(finals) / n
        sq = sum((f - centre) ** 2 for f in finals) / n
        add({f"final_score_s{i}" for i in seats}, "q4.final.spread", "spread of the final "
            "totals around the match mean (root mean square)", root_mean(sq, everything),
            kind="mean", unit="points", note="delta-method interval")
        need_tor = {"n_tout_ou_rien", "n_tout_ou_rien_made", "tout_ou_rien_points"}
        if need_tor <= cols:  # shown when some match has a declaration
            decl = pl.col("n_tout_ou_rien")
            add(need_tor, "q4.tor.per_match", "tout ou rien declarations per match", decl,
                kind="mean", unit="declarations", shown_if=decl > 0)
            add(need_tor, "q4.tor.success", "tout ou rien made exactly (share of "
                "declarations, pooled)", ratio_of_sums(pl.col("n_tout_ou_rien_made"), decl,
                                                        everything),
                kind="mean", unit="share", headline=True, note="delta-method interval",
                shown_if=decl > 0)
            add(need_tor, "q4.tor.swing", "points a named opponent loses per tout ou rien "
                "declared (pooled)", ratio_of_sums(pl.col("tout_ou_rien_points"), decl,
                                                    everything),
                kind="mean", unit="points", note="a failed declaration costs the declarer "
                "his part's mark instead; delta-method interval", shown_if=decl > 0)
    return [m for m, need in out if need <= cols]

