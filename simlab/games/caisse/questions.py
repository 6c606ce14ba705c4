"""Caisse balance questions (catalogue "Balance questions"): ``balance_metrics`` turns a
frame of deals or matches into metrics; ``FINDINGS`` opens the report with one sentence
per question; ``hand_strength`` is the Players section's hand measure."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.caisse.rules import CONTRACTS, GAMES, NP, TRUMP_ONLY

SECTION = "Caisse questions"
GAME_TEXT = {"trump_r1": "round-1 trump", "trump_r2": "round-2 trump",
             "sans_atout": "Sans-Atout", "misere": "Misère",
             "misere_generale": "Misère Générale"}


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    """Deal level: 1 game-type frequencies; 2 taker win rate and mean marks by game type;
    3 contract success by contract and timing; 4 the stake per deal and deals worth the
    whole match; 5 the taker's position; 6 Misère Générale splits; 7 the défi. Match
    level: 4 one-deal wins, 5 match win rate by first dealer's position; match length."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"caisse.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        game = pl.col("contract").cast(pl.String)
        taken = pl.col("taker") >= 0
        base = {"contract", "taker", "made"}
        # 1. game types
        for g in GAMES:
            add(base, f"q1.freq.{g}", f"{GAME_TEXT[g]} games, share of deals", game == g,
                headline=g in ("trump_r1", "misere_generale"))
        # 2. taker success and marks by game type
        taker_mark = pl.sum_horizontal(pl.when(pl.col("taker") == i).then(pl.col(f"score_s{i}"))
                                       .otherwise(0) for i in range(NP))
        opp_mark = pl.sum_horizontal(pl.when((pl.col("taker") != i) & taken)
                                     .then(pl.col(f"score_s{i}")).otherwise(0)
                                     for i in range(NP)) / 2
        scores = {f"score_s{i}" for i in range(NP)}
        for g in GAMES[:4]:
            add(base, f"q2.made.{g}", f"taker wins, {GAME_TEXT[g]} games", pl.col("made"),
                game == g, headline=True)
            add(base | scores, f"q2.ev.{g}", f"taker's marks minus an opponent's, "
                f"{GAME_TEXT[g]} games", taker_mark - opp_mark, game == g, kind="mean",
                unit="points", note="game and contracts, per deal of that type")
        # 3. contracts by timing
        for c in CONTRACTS:
            need = {f"{c}_n", f"{c}_made", f"{c}_early", f"{c}_early_made"}
            late_n = pl.col(f"{c}_n") - pl.col(f"{c}_early")
            late_made = pl.col(f"{c}_made") - pl.col(f"{c}_early_made")
            add(need, f"q3.announced.{c}", f"{c} announcements per deal",
                pl.col(f"{c}_n").cast(pl.Float64), kind="mean", unit="announcements")
            add(need, f"q3.made.early.{c}", f"{c} made, 6-card announcements (per deal with "
                "one)", pl.col(f"{c}_early_made") >= pl.col(f"{c}_early"),
                pl.col(f"{c}_early") > 0)
            add(need, f"q3.made.late.{c}", f"{c} made, 9-card announcements (per deal with "
                "one)", late_made >= late_n, late_n > 0, headline=c == "caisse")
        # 4. stakes
        top = pl.max_horizontal(pl.col(f"score_s{i}") for i in range(NP))
        add(scores, "q4.max_mark", "largest mark of a deal", top.cast(pl.Float64), kind="mean",
            unit="points")
        target = getattr(knobs, "target", 20)
        add(scores, "q4.match_in_one", f"deals where a player marks {target}+ (the match in "
            "one deal)", top >= target, headline=True)
        add({"game_value", "taker"}, "q4.game_value", "the game's stake with contres and défi",
            pl.col("game_value").cast(pl.Float64), taken, kind="mean", unit="points")
        add({"game_contres", "taker"}, "q4.contred", "games contred", pl.col("game_contres") > 0,
            taken)
        # 5. position (seat counted from the dealer's left)
        for k in range(NP):
            add({"taker_position", "taker"}, f"q5.takes.pos{k}", f"taker is the dealer's "
                f"{'left' if k == 0 else 'left + ' + str(k)} (share of games with a taker)",
                pl.col("taker_position") == k, taken)
        # 6. Misère Générale
        mg = game == "misere_generale"
        tricks = [pl.col(f"tricks_s{i}") for i in range(NP)]
        hi = pl.max_horizontal(tricks)
        lo = pl.min_horizontal(tricks)
        t_cols = {f"tricks_s{i}" for i in range(NP)} | {"contract"}
        add(t_cols, "q6.mg_333", "Misère Générale split 3-3-3 (nobody scores)",
            (hi == 3) & (lo == 3), mg, headline=True)
        add(t_cols, "q6.mg_441", "Misère Générale split 4-4-1", (hi == 4) & (lo == 1), mg)
        # 7. défi
        add({"defi", "taker"}, "q7.defi", "défi raised (share of games with a taker)",
            pl.col("defi") > 0, taken, headline=True)
        add({"defi", "conceded"}, "q7.concede", "a défi ends in a concession",
            pl.col("conceded").is_not_null(), pl.col("defi") > 0)
        add(base | {"defi"}, "q7.defi_taker_wins", "taker wins after a défi", pl.col("made"),
            pl.col("defi") > 0)
        add(base | scores | {"defi"}, "q7.defi_opp_edge", "an opponent's marks minus the "
            "taker's, deals with a défi", opp_mark - taker_mark, pl.col("defi") > 0,
            kind="mean", unit="points", note="positive: challenging paid the opponents")
        add(base | scores | {"defi"}, "q7.no_defi_opp_edge", "an opponent's marks minus the "
            "taker's, trump / SA deals without a défi", opp_mark - taker_mark,
            (pl.col("defi") == 0) & taken & (game != "misere"), kind="mean", unit="points")
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "m.length", "deals per match", pl.col("n_deals"), done,
            kind="mean", unit="deals", headline=True)
        add({"winner", "one_deal_win"}, "q4.one_deal_win", "matches won in one deal from "
            "below the bar", pl.col("one_deal_win"), done, headline=True)
        add({"winner", "final_bar", "n_deals"}, "m.bar_moved", "the bar moved past 20 "
            "(several crossed it together)", pl.col("final_bar") > getattr(knobs, "target", 20),
            done)
        for k in range(NP):
            add({"winner", "first_dealer"}, f"q5.match_win.pos{k}", "match won by the first "
                f"dealer's {'left' if k == 0 else 'left + ' + str(k)}",
                pl.col("winner") == (pl.col("first_dealer") + 1 + k) % NP, done)
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Game types", "key": "caisse.q1.freq.trump_r1",
     "text": "Round-1 trump is played in {caisse.q1.freq.trump_r1} of deals, round-2 trump "
             "in {caisse.q1.freq.trump_r2}, Sans-Atout in {caisse.q1.freq.sans_atout}, "
             "Misère in {caisse.q1.freq.misere} and Misère Générale in "
             "{caisse.q1.freq.misere_generale}"},
    {"question": "2. Taker success", "key": "caisse.q2.made.trump_r1",
     "text": "Takers win {caisse.q2.made.trump_r1} of round-1 trump games, "
             "{caisse.q2.made.trump_r2} of round-2 trump games, {caisse.q2.made.sans_atout} "
             "of Sans-Atout and {caisse.q2.made.misere} of Misères"},
    {"question": "3. Contracts", "key": "caisse.q3.made.late.caisse",
     "text": "Caisse contracts are made {caisse.q3.made.early.caisse} when announced with 6 "
             "cards (doubled) and {caisse.q3.made.late.caisse} with 9; Clarté (9 cards) "
             "{caisse.q3.made.late.clarte}, Famille {caisse.q3.made.late.famille}"},
    {"question": "4. Stakes", "key": "caisse.q4.match_in_one",
     "text": "A single deal gives a player the match target in {caisse.q4.match_in_one} "
             "of deals"},
    {"question": "5. Position", "key": "caisse.q5.takes.pos0",
     "text": "The dealer's left (first to speak) is the taker in {caisse.q5.takes.pos0} of "
             "games with a taker"},
    {"question": "6. Misère Générale", "key": "caisse.q6.mg_333",
     "text": "Misère Générale ends 3-3-3 in {caisse.q6.mg_333} and 4-4-1 in "
             "{caisse.q6.mg_441} of such deals"},
    {"question": "7. Défi", "key": "caisse.q7.defi",
     "text": "A défi is raised in {caisse.q7.defi} of games with a taker; "
             "{caisse.q7.concede} of défis end in a concession, and on those deals an "
             "opponent marks {caisse.q7.defi_opp_edge:bare} points more than the taker "
             "(without a défi: {caisse.q7.no_defi_opp_edge:bare})"},
    {"question": "Match length", "key": "caisse.m.length",
     "text": "A match to 20 lasts {caisse.m.length:bare} deals"},
)

# --- the Players section's hand measure ------------------------------------------------------------
# The 9 dealt cards (the 6 known and the 3 face down) scored in their best trump suit: trump
# points + 5 per trump, other cards at plain value (the heuristic's own declaration score).
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
PLAIN_POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
HAND_STRENGTH_TEXT = "the 9 dealt cards in their best trump suit (trump points + 5 per trump)"


def hand_strength(knobs, hand: list[str]) -> float:
    return float(max(sum(TRUMP_POINTS.get(c[:-1], 0) + 5 if c.endswith(s) else
                         PLAIN_POINTS.get(c[:-1], 0) for c in hand) for s in "♠♥♦♣"))


# Games no player bids (players_check: not a decision kind; the check of deals where nobody
# takes counts them)
IMPOSED_LABELS = {"contract": {"misere_generale": "Misère Générale is then played: imposed "
                               "when everyone passes twice, never bid"}}


# Kinds whose "never" in a run is expected, with the figure that shows it. "Search" is
# the search player's value of each move at the 6-card decision (worlds of the hidden
# cards, heuristic playouts), against the heuristic's own move or the best other one, in
# marks: the seat's edge over the others' mean (scripts/measure_never_taken.py).
EARLY_NOTES = {
    "tous_les_atouts": (
        "rare, not never: with 6 cards it needs the six highest trumps as the whole hand, "
        "3 / C(32, 6) = 1 trump game in about 302,000 (computed); a smaller run sees none",),
    "tous_les_trois": (
        "rare, not never: with 6 cards the heuristic announces it holding six trumps, J 9 "
        "7 among them, 3 seats x 4 suits x C(5, 3) / C(32, 6) = about 1 deal in 7,550 "
        "(computed); announcing it with J 9 7 among 3, 4 or 5 of the taker's 6 cards "
        "measured no gain: -0.38 +- 0.11, -0.06 +- 0.13, -0.18 +- 0.36 marks against the "
        "heuristic's move (search, 256 worlds, 12,000 deals)",),
    "cent": (
        "measured not to pay with 6 cards: announcing it in hands scoring 60+ loses "
        "against the heuristic's move, the taker's by 1.95 to 2.88 marks with 1-4 "
        "trumps (530 hands), 0.28 +- 0.24 with 5+ (9 hands) (search, 64 worlds, 1,500 "
        "deals)",),
    "deux_cents": (
        "measured not to pay with 6 cards: announcing it in hands scoring 60+ loses "
        "against the heuristic's move in every hand class, by 0.9 to 2.8 marks, and "
        "search prefers it in 1 of 554 (64 worlds, 1,500 deals)",),
    "ultime": (
        "measured not to pay with 6 cards: announcing it whenever the taker holds the "
        "trump 7 among 4+ of his 6 cards loses 0.64 +- 0.12 marks against the heuristic's "
        "move (459 hands; search prefers it in 63% of them, but its failures cost more), "
        "with 3 trumps 2.21 +- 0.07, and an opponent's 0.12 to 1.05 (search, 256 worlds, "
        "12,000 deals)",),
}


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr | None]]:
    """Options a player may or may not take (the Players section flags one never or always
    taken): contres, the défi and its concession, the exchange, each contract announced
    with 6 cards and with 9."""
    taken = pl.col("taker") >= 0
    out = [("game contred (games with a taker)", pl.col("game_contres") > 0, taken),
           ("défi raised (games with a taker)", pl.col("defi") > 0, taken),
           ("défi conceded (défis)", pl.col("conceded").is_not_null(), pl.col("defi") > 0),
           ("trump exchange made (round-1 trump games)", pl.col("exchanged") > 0,
            pl.col("contract").cast(pl.String) == "trump_r1")]
    # every contract is a decision kind of its own, with 6 cards and with 9 (lumped
    # together, 7 kinds never announced hid behind the others)
    game = pl.col("contract").cast(pl.String)
    trump_games, all_games = ["trump_r1", "trump_r2"], ["trump_r1", "trump_r2", "sans_atout"]
    for i, c in enumerate(CONTRACTS):
        among = game.is_in(trump_games if TRUMP_ONLY[i] else all_games)
        which = "trump games" if TRUMP_ONLY[i] else "trump / SA games"
        if c != "capot":  # §7.1: no Capot with 6 cards, so no choice to check
            out.append((f"{c} announced with 6 cards ({which})", pl.col(f"{c}_early") > 0,
                        among, *EARLY_NOTES.get(c, ())))
        out.append((f"{c} announced with 9 cards ({which})",
                    pl.col(f"{c}_n") > pl.col(f"{c}_early"), among))
    need = {"taker", "game_contres", "defi", "conceded", "exchanged", "contract",
            *(f"{c}_{x}" for c in CONTRACTS for x in ("n", "early"))}
    return out if need <= set(columns) else []
