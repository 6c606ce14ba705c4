"""Président / Trou du cul: the catalogue's balance questions as metrics (moved as they
were from the game module; the rules are in ``rules.py``, the result columns in
``kernels.py``)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.president.rules import PresidentKnobs

# --- balance questions ------------------------------------------------------------------
SECTION = "Président questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in places, plays or deals stay out of the headline table.
TITLE_TEXT = {"president": "Président", "vice_president": "Vice-Président",
              "neutre": "Neutre", "vice_trou_du_cul": "Vice-Trou du cul",
              "trou_du_cul": "Trou du cul", "vice_vice_president": "Vice-vice-Président",
              "vice_vice_trou_du_cul": "Vice-vice-Trou du cul"}
TITLE_KEY = {"president": "p", "vice_president": "vp", "neutre": "n",
             "vice_trou_du_cul": "vt", "trou_du_cul": "t", "vice_vice_president": "vvp",
             "vice_vice_trou_du_cul": "vvt"}


def titles_for(n: int, third_pair: bool = False) -> list[str]:
    """The titles a deal hands out at ``n`` players, best first (Neutre n - 4 times, or
    with ``third_pair``, knob ``roles_6p``, the two Vice-vice titles at 6 players)."""
    middle = ["neutre"] * (n - 4)
    if third_pair and n == 6:
        middle = ["vice_vice_president", "vice_vice_trou_du_cul"]
    return ["president", "vice_president", *middle, "vice_trou_du_cul", "trou_du_cul"]


def _extra_positions(n: int) -> str:
    r = 52 % n
    return ", ".join(f"dealer+{j}" for j in range(1, r + 1))


def extra_seats_place(n: int) -> pl.Expr:
    """Per deal, the mean place of the seats that unequal hands give an extra card: the
    first ``52 % n`` seats from the dealer's left (``rules.deal``). The seats are named by
    position, so the same expression reads a run with ``equal_hands=true``: the same seats,
    on the same deals, without the extra card (the report's control for question 5)."""
    r = 52 % n
    if r == 0:
        return pl.lit(None, dtype=pl.Float64)
    total = pl.lit(0.0)
    for j in range(1, r + 1):
        place = pl.lit(None, dtype=pl.Float64)
        for p in range(n):
            place = pl.when((pl.col("dealer") + j) % n == p).then(
                pl.col(f"place_s{p}").cast(pl.Float64)).otherwise(place)
        total = total + place
    return total / r


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: PresidentKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's balance questions as metrics (section "Président questions").

    Deal level: 1 the role-transition probabilities P(title this deal | title the deal
    before), on deals that start from previous titles (``deal_titles=random``: each deal
    is then one step of a match's role chain); 2 the previous Président's and Trou du
    cul's mean places; 3 the first leader's advantage (the dealer's left on a first deal,
    the Trou du cul after the exchanges); 5 at 5-6 players, the seats dealt an extra card;
    6 how often the equal-rank skip happens; and the length of a deal. Match level: 1 how
    often the Président keeps the title, the Trou du cul stays and climbs straight to
    Président, and the longest reign. Question 4 (policies) is read from the standard
    per-seat metrics of a mixed-policy run. Only metrics whose columns the frame has (and
    which the frame's deals can answer) are returned."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    n = 0
    while f"score_s{n}" in cols or f"final_score_s{n}" in cols:
        n += 1
    if n == 0:
        n = knobs.players if isinstance(knobs, PresidentKnobs) else 4
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"president.{key}", title, SECTION, expr, where, kind, **kw),
                     need))

    if level == "deal":
        seats = range(n)
        titles = {f"title_s{i}" for i in seats}
        prevs = {f"prev_title_s{i}" for i in seats}
        places = {f"place_s{i}" for i in seats}
        exchanged = pl.col("exchanged")
        # the role-chain metrics are shown when some deal starts from previous titles
        has = (prevs | titles | {"exchanged"}) <= cols
        # the Vice-vice titles exist when the frame's title labels have them
        labels = lf.collect_schema().get("title_s0")
        order = titles_for(n, isinstance(labels, pl.Enum)
                           and "vice_vice_president" in labels.categories)
        distinct = list(dict.fromkeys(order))

        def title(i: int, prefix: str = "title_s") -> pl.Expr:
            return pl.col(f"{prefix}{i}").cast(pl.String)

        # 1. role transitions
        if has:
            for a in distinct:
                k = order.count(a)
                for b in distinct:
                    hits = [((title(i, "prev_title_s") == a) & (title(i) == b)).fill_null(False)
                            for i in seats]
                    key = f"q1.{TITLE_KEY[a]}.to.{TITLE_KEY[b]}"
                    text = (f"P({TITLE_TEXT[b]} | {TITLE_TEXT[a]} the deal before)")
                    head = (a, b) in (("president", "president"), ("trou_du_cul", "trou_du_cul"),
                                      ("trou_du_cul", "president"))
                    note = ("each row is one step of the role chain: the deal starts from "
                            "the previous titles, with the exchanges and the Trou du cul's "
                            "lead" if head else "")
                    if k == 1:
                        add(prevs | titles | {"exchanged"}, key, text, pl.any_horizontal(hits),
                            exchanged, headline=head, note=note, shown_if=exchanged)
                    else:  # two Neutres at 6 players: the share of them
                        add(prevs | titles | {"exchanged"}, key, text,
                            sum(h.cast(pl.Float64) for h in hits) / k, exchanged,
                            kind="mean", unit="share", note="per deal, the share of the "
                            f"{k} previous {TITLE_TEXT[a]}s", shown_if=exchanged)
            # 2. the exchange's strength: where the previous titles finish
            for a in ("president", "trou_du_cul"):
                place = pl.lit(None, dtype=pl.Float64)
                for i in seats:
                    place = pl.when(title(i, "prev_title_s") == a).then(
                        pl.col(f"place_s{i}").cast(pl.Float64)).otherwise(place)
                add(prevs | places | {"exchanged"}, f"q2.place.{TITLE_KEY[a]}",
                    f"mean finishing place of the previous {TITLE_TEXT[a]}", place,
                    exchanged, kind="mean", unit="place",
                    note=f"{(n + 1) / 2:g} if titles carried nothing; `simlab compare "
                         "president --a \"deal_titles=random\" --b \"deal_titles=random "
                         "exchange_top=0 exchange_vice=0\"` removes the exchanges", shown_if=exchanged)
                if a == "trou_du_cul":
                    top = pl.any_horizontal([((title(i, "prev_title_s") == a)
                                              & (pl.col(f"place_s{i}") <= n // 2))
                                             .fill_null(False) for i in seats])
                    add(prevs | places | {"exchanged"}, "q3.trou.top_half", "the previous "
                        f"Trou du cul finishes in the top {n // 2}", top, exchanged,
                        headline=True, note="he receives the worst cards but leads; "
                        "compare `tdc_leads=false` to see what the lead is worth", shown_if=exchanged)
        # 3. the first leader's advantage
        lead = {"leader"} | places
        lplace = pl.lit(None, dtype=pl.Float64)
        for i in seats:
            lplace = pl.when(pl.col("leader") == i).then(
                pl.col(f"place_s{i}").cast(pl.Float64)).otherwise(lplace)
        add(lead | {"president"}, "q3.leader.president", "the first leader goes out first "
            "(becomes Président)", pl.col("president") == pl.col("leader"), headline=True,
            note=f"1/{n} = {1 / n:.3f} if leading did not matter")
        add(lead | {"trou_du_cul"}, "q3.leader.trou", "the first leader finishes last",
            pl.col("trou_du_cul") == pl.col("leader"))
        add(lead, "q3.leader.place", "mean finishing place of the first leader", lplace,
            kind="mean", unit="place", note=f"{(n + 1) / 2:g} if leading did not matter")
        if "exchanged" in cols:
            for sel, text, tag in ((~exchanged, "on first deals (the dealer's left)", "first"),
                                   (exchanged, "after the exchanges (the Trou du cul)",
                                    "exchanged")):
                add(lead | {"president", "exchanged"}, f"q3.leader.president.{tag}",
                    f"the first leader goes out first, {text}",
                    pl.col("president") == pl.col("leader"), sel, shown_if=sel)
        # 5. extra-card seats (5-6 players, unequal hands)
        cards = [pl.col(f"cards_s{i}") for i in seats]
        most, least = pl.max_horizontal(cards), pl.min_horizontal(cards)
        unequal = most != least
        ccols = {f"cards_s{i}" for i in seats}
        if ccols <= cols:  # shown when hands are unequal (5-6 players)
            extra = [pl.col(f"cards_s{i}") == most for i in seats]
            n_extra = sum(e.cast(pl.Float64) for e in extra)
            pres_extra = pl.any_horizontal([(pl.col("president") == i) & extra[i]
                                            for i in seats])
            add(ccols | {"president"}, "q5.extra.president", "the Président was dealt an "
                "extra card", pres_extra, unequal, headline=True,
                note="compare q5.extra.share (what chance alone gives)", shown_if=unequal)
            add(ccols, "q5.extra.share", "share of the seats dealt an extra card", n_extra / n,
                unequal, kind="mean", unit="share", shown_if=unequal)
            place_extra = sum(pl.when(extra[i]).then(pl.col(f"place_s{i}")).otherwise(0)
                              for i in seats) / n_extra
            place_other = sum(pl.when(extra[i]).then(0).otherwise(pl.col(f"place_s{i}"))
                              for i in seats) / (n - n_extra)
            add(ccols | places, "q5.extra.place_gap", "mean place of the extra-card seats "
                "minus the others' (confounded with position)", place_extra - place_other,
                unequal, kind="mean", unit="places",
                note="1 = first out; the extra cards always go to the first seats from the "
                     "dealer's left, the first of whom leads the first deal, so this gap "
                     "mixes the card with the position; the report's findings measure the "
                     "card alone against equal_hands=true on the same deals", shown_if=unequal)
            add(ccols | places | {"dealer"}, "q5.extra_seats.place", "mean place of the "
                f"seats dealt an extra card ({_extra_positions(n)})", extra_seats_place(n),
                unequal, kind="mean", unit="place",
                note=f"{(n + 1) / 2:g} if neither the card nor the position mattered",
                shown_if=unequal)
        # 6. the equal-rank skip
        add({"n_skips"}, "q6.skip_any", "deals with at least one equal-rank skip",
            pl.col("n_skips") > 0, headline=True,
            note="`simlab compare president --a \"\" --b \"equal_play_skips=false\"` shows "
                 "how often it changes the finishing order")
        add({"n_skips"}, "q6.skips", "equal-rank skips per deal", pl.col("n_skips"),
            kind="mean", unit="skips")
        add({"n_equal_plays"}, "q6.equal_plays", "equal-rank plays per deal",
            pl.col("n_equal_plays"), kind="mean", unit="plays")
        # length of a deal
        add({"n_series"}, "length.series", "series (rounds) per deal", pl.col("n_series"),
            kind="mean", unit="series")
        add({"n_plays"}, "length.plays", "groups played per deal", pl.col("n_plays"),
            kind="mean", unit="plays")
        add({"n_turns"}, "length.turns", "turns (plays and passes) per deal",
            pl.col("n_turns"), kind="mean", unit="turns")
        add({"cards_left"}, "length.cards_left", "cards the Trou du cul still holds at the "
            "end", pl.col("cards_left"), kind="mean", unit="cards")
        add({"capped"}, "length.capped", "deals stopped by the turn cap", pl.col("capped"))
    else:
        steps = pl.col("n_deals") - 1
        many = pl.col("n_deals") >= 2
        need = {"n_deals"}
        add(need | {"president_repeats"}, "q1.match.president_kept", "the Président keeps "
            "the title at the next deal (share of deal-to-deal steps)",
            ratio_of_sums(pl.col("president_repeats"), steps, many), many, kind="mean",
            unit="share", headline=True, note="pooled over matches, delta-method interval; "
            f"1/{n} = {1 / n:.3f} if titles carried nothing")
        add(need | {"trou_repeats"}, "q1.match.trou_kept", "the Trou du cul stays Trou du cul "
            "at the next deal", ratio_of_sums(pl.col("trou_repeats"), steps, many), many,
            kind="mean", unit="share", headline=True, note="pooled over matches")
        add(need | {"trou_to_president"}, "q1.match.trou_to_president", "the Trou du cul "
            "becomes Président at the next deal",
            ratio_of_sums(pl.col("trou_to_president"), steps, many), many, kind="mean",
            unit="share", headline=True, note="pooled over matches")
        add(need | {"first_president_kept"}, "q1.match.first_kept", "the first deal's "
            "Président is Président again in deal 2", pl.col("first_president_kept"), many)
        add({"longest_presidency"}, "q1.match.longest_presidency", "longest run of deals "
            "as Président in a match", pl.col("longest_presidency"), kind="mean",
            unit="deals")
        pres = [pl.col(f"president_deals_s{i}") for i in range(n)]
        if {f"president_deals_s{i}" for i in range(n)} | need <= cols:
            add(need | {f"president_deals_s{i}" for i in range(n)}, "q1.match.top_share",
                "share of a match's deals won by its most frequent Président",
                pl.max_horizontal(pres).cast(pl.Float64) / pl.col("n_deals"), kind="mean",
                unit="share")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there); a question whose metrics
# the run has not got (the role chain needs deal_titles=random; the extra card 5-6
# players) is left out.
# The default run deals without titles (every deal a first deal); the role chain is then
# answered from the same deals started from random previous titles (a companion run).
TITLED = {"deal_titles": "random"}
TITLED_TEXT = ("from this run's deals dealt again from random previous titles, with the "
               "exchanges: deal_titles=random")
FINDINGS = (
    {"question": "1. Role persistence",
     "key": "president.q1.p.to.p", "against": lambda n: 1 / n,
     "against_text": "1/n, what chance alone gives",
     "companion": TITLED, "companion_text": TITLED_TEXT,
     "text": "The Président keeps the title in {president.q1.p.to.p} of deals that start "
             "from titles; the Trou du cul stays Trou du cul in {president.q1.t.to.t}"},
    {"question": "1. Role persistence",
     "key": "president.q1.match.president_kept", "against": lambda n: 1 / n,
     "against_text": "1/n, what chance alone gives",
     "text": "Over matches, the Président keeps the title at the next deal in "
             "{president.q1.match.president_kept} of deal-to-deal steps"},
    {"question": "2. Exchange strength",
     "key": "president.q2.place.p", "against": lambda n: (n + 1) / 2,
     "against_text": "the middle place, (n + 1)/2", "above": "later than",
     "below": "earlier than", "companion": TITLED, "companion_text": TITLED_TEXT,
     "text": "The previous Président finishes at mean place "
             "{president.q2.place.p:bare} (1 = first out)"},
    {"question": "3. Leading as Trou du cul",
     "key": "president.q3.trou.top_half", "companion": TITLED, "companion_text": TITLED_TEXT,
     "text": "The previous Trou du cul, who leads after the exchanges, finishes in the top "
             "half in {president.q3.trou.top_half} of deals"},
    {"question": "3. The first lead",
     "key": "president.q3.leader.president", "against": lambda n: 1 / n,
     "against_text": "1/n, what chance alone gives",
     "text": "The first leader goes out first in {president.q3.leader.president} of deals"},
    {"question": "5. The extra card (5-6 players)",
     "key": "president.q5.extra_seats.place", "control": {"equal_hands": True},
     "paired": extra_seats_place, "above": "later than", "below": "earlier than",
     "against_text": "the same seats on the same deals with equal hands "
                     "({control:bare})",
     "text": "The seats dealt an extra card (the first seats from the dealer's left) "
             "finish at mean place {value:bare} (1 = first out)"},
    {"question": "6. The skip rule",
     "key": "president.q6.skip_any",
     "text": "At least one equal-rank skip happens in {president.q6.skip_any} of deals"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Each card by its rank in playing order, centred (3 = -6 .. 2 = +6): an extra low card
# makes a hand weaker, as it does in a shedding game.
HAND_STRENGTH_TEXT = "ranks in playing order, centred (3 = -6 .. 2 = +6)"


def hand_strength(knobs, hand: list[str]) -> float:
    from simlab.games.president.rules import RANK_LABELS_2_HIGH

    order = {r: i for i, r in enumerate(RANK_LABELS_2_HIGH)}
    return float(sum(order[c[:-1]] - 6 for c in hand))
