"""Sides per deal (``Game.sides``): the standard deal metrics count the winning side over
played deals, ties are played deals whose sides tie, and thrown-in / void deals are a rate
of their own. Hand-built frames pin the rules exactly; small simulations of every game
check each declaration against the game's own columns."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from simlab.analysis.metrics import (
    balance_metric,
    compute,
    evaluate,
    side_results,
    sides_method,
    sides_of,
    standard_defs,
)
from simlab.engine.game import fixed_sides, taker_sides
from simlab.engine.runner import execute, plan
from simlab.games import game_names, get_game

SEED = 20240611


def values(frame: pl.DataFrame, defs, *keys: str) -> dict[str, float]:
    by = {m.key: m for m in evaluate(frame, [d for d in defs if d.key in keys])}
    return {k: by[k].estimate.value for k in keys}


def metric_map(game: str, frame: pl.DataFrame, knobs) -> dict:
    return {m.key: m for m in compute(get_game(game), frame, knobs, "deal").metrics}


# --- hand-built frames ------------------------------------------------------------------------
def tarot_like(rows: list[tuple[int, int, int, list[int]]]) -> pl.DataFrame:
    """(dealer, taker, partner, scores) rows of a 4-seat taker game."""
    n = len(rows[0][3])
    data = {"dealer": [r[0] for r in rows], "taker": [r[1] for r in rows],
            "partner": [r[2] for r in rows]}
    for i in range(n):
        data[f"score_s{i}"] = [r[3][i] for r in rows]
    return pl.DataFrame(data)


def test_taker_side_against_the_defence_counts_every_defender():
    f = tarot_like([
        (0, 1, -1, [-30, 90, -30, -30]),  # the taker (seat 1) wins alone
        (0, 1, -1, [40, -120, 40, 40]),  # the defence wins: three seats win
        (1, -1, -1, [0, 0, 0, 0]),  # all pass: not played, not a tie
        (2, 3, -1, [-50, -50, -50, 150]),  # seat 3 takes and wins
    ])
    sides = taker_sides(4, pl.col("taker") >= 0, text="taker vs defence", unplayed="all pass")
    won, tie = side_results(sides, 4)
    got = f.select(*[w.alias(f"w{i}") for i, w in enumerate(won)], tie.alias("tie"))
    assert got.row(0) == (False, True, False, False, False)
    assert got.row(1) == (True, False, True, True, False)
    assert got.row(2) == (None,) * 5  # outside played deals: no value at all
    assert got.row(3) == (False, False, False, True, False)
    defs = standard_defs(f, 4, (0, 1, 2, 3), "deal", sides=sides)
    v = values(f, defs, "seat.win.s0", "seat.win.s1", "balance.ties", "balance.thrown_in",
               "dealer_pos.score.1", "balance.first_seat_points")
    assert v["seat.win.s0"] == pytest.approx(1 / 3) and v["seat.win.s1"] == pytest.approx(1 / 3)
    assert v["balance.ties"] == 0 and v["balance.thrown_in"] == pytest.approx(1 / 4)
    # sides change with the taker: positions are compared by what the seat earns, not by
    # side wins (which would mostly count how often a position takes)
    assert not any(d.key.startswith("dealer_pos.win.") or d.key == "balance.first_seat_advantage"
                   for d in defs)
    # dealer+1: seat 1 (90, -120), seat 2 (0), seat 3 (150), over all four deals
    assert v["dealer_pos.score.1"] == pytest.approx(120 / 4)
    assert v["balance.first_seat_points"] == pytest.approx(30 - 0)  # the marks sum to 0


def test_called_partner_wins_with_the_taker():
    # 5 seats: the taker (0) marks 2A, the partner (3) A, each defender -A
    f = tarot_like([(0, 0, 3, [40, -20, -20, 20, -20]), (0, 0, 3, [-60, 30, 30, -30, 30]),
                    (0, 0, -1, [80, -20, -20, -20, -20])])  # alone
    won, _ = side_results(taker_sides(5, pl.col("taker") >= 0, "partner"), 5)
    got = f.select(*[w.alias(f"w{i}") for i, w in enumerate(won)])
    assert got.row(0) == (True, False, False, True, False)
    assert got.row(1) == (False, True, True, False, True)
    assert got.row(2) == (True, False, False, False, False)


def test_fixed_teams_tie_and_lower_wins():
    f = pl.DataFrame({"dealer": [0, 1, 2], "score_s0": [10, 0, 5], "score_s1": [0, 0, 7],
                      "score_s2": [10, 0, 5], "score_s3": [0, 0, 7]})
    defs = standard_defs(f, 4, (0, 1, 0, 1), "deal")  # default sides: the teams, all played
    v = values(f, defs, "seat.win.s0", "seat.win.s1", "balance.ties")
    assert v == pytest.approx({"seat.win.s0": 1 / 3, "seat.win.s1": 1 / 3, "balance.ties": 1 / 3})
    assert not any(d.key == "balance.thrown_in" for d in defs)  # nothing declared unplayed
    won, tie = side_results(fixed_sides((0, 1, 0, 1), pl.lit(True), lower_wins=True), 4)
    assert f.select(won[1].alias("w"))["w"].to_list() == [True, False, False]
    alone = fixed_sides((0, 1, 2, 3), pl.lit(True), lower_wins=True)
    won, tie = side_results(alone, 4)
    got = f.select(*[w.alias(f"w{i}") for i, w in enumerate(won)], tie.alias("tie"))
    assert got.row(0) == (False, False, False, False, True)  # seats 1 and 3 share the lowest
    assert got.row(2) == (False, False, False, False, True)  # seats 0 and 2 share it


def test_balance_between_positions_uses_played_deals_only():
    # positions' side wins differ only on played rows; thrown-in rows (taker -1) would
    # pull every position towards "lost" if they were counted
    # (every seat alone, fixed: side win rates by position are measured)
    rows = [(0, 1, -1, [-30, 90, -30, -30])] * 30 + [(0, 2, -1, [0, 50, -20, 0])] * 30
    rows += [(0, -1, -1, [0, 0, 0, 0])] * 60
    f = tarot_like(rows)
    sides = fixed_sides((0, 1, 2, 3), pl.col("taker") >= 0, unplayed="all pass")
    metrics = evaluate(f, standard_defs(f, 4, (0, 1, 2, 3), "deal", sides=sides))
    by = {m.key: m.estimate for m in metrics}
    assert by["dealer_pos.win.1"].value == 1.0 and by["dealer_pos.win.1"].n == 60
    assert by["dealer_pos.win.2"].value == 0.0 and by["dealer_pos.win.3"].value == 0.0
    bal = balance_metric(f, metrics, "dealer_pos.win.", "dealer positions", base="played deals")
    assert bal is not None and bal.estimate.n == 60
    # over all 120 rows the gap would be 0.5 - 0 and the balance 0.5
    assert bal.estimate.value == pytest.approx(1 - (1.0 - 0.0))
    assert "(played deals)" in bal.title


# --- the games' declarations, on small simulations --------------------------------------------
@pytest.fixture(scope="module")
def tarot4():
    p = plan(get_game("tarot"), 20_000, seed=SEED, jobs=1, progress=False)
    return p, execute(p)


def test_tarot_4p_side_wins_over_played_deals(tarot4):
    p, f = tarot4
    ms = metric_map("tarot", f, p.knobs)
    played = f.filter(pl.col("taker") >= 0)
    made = played["made"].mean()
    seats = [ms[f"seat.win.s{i}"].estimate for i in range(4)]
    assert all(e.n == played.height for e in seats)
    for i, e in enumerate(seats):  # the taker when made, a defender when it failed
        mine = played.select(((pl.col("taker") == i) == pl.col("made")).mean()).item()
        assert e.value == pytest.approx(mine, abs=1e-12)
    ties = ms["balance.ties"].estimate
    assert ties.value == 0 and ties.n == played.height  # no A is 0: no tie is possible
    # each played deal is won by one side: the taker (1 seat) or the defence (3 seats), so
    # the seats' rates add up to 100% of played deals counted by winning-side size ...
    total = sum(e.value for e in seats)
    assert total == pytest.approx(made * 1 + (1 - made) * 3, abs=1e-9)
    # ... and the two sides' rates to 100% of played deals minus ties
    attack = played.select(pl.col("made").mean()).item()
    defence = sum(played.select(((pl.col("taker") != i) & ~pl.col("made")).mean()).item()
                  for i in range(4)) / 3
    assert attack + defence + ties.value == pytest.approx(1.0, abs=1e-12)
    # positions: compared by their mean score over all deals (sides change with the taker)
    pos = [ms[f"dealer_pos.score.{k}"].estimate for k in range(4)]
    assert all(e.n == f.height for e in pos) and "dealer_pos.win.0" not in ms
    assert sum(e.value for e in pos) == pytest.approx(0.0, abs=1e-9)  # Tarot's marks sum to 0
    # ties are not thrown-in deals
    thrown = ms["balance.thrown_in"].estimate
    assert thrown.value == pytest.approx(ms["contract.nobody_takes"].estimate.value, abs=1e-12)
    assert thrown.value > 0.2 and thrown.n == f.height and ties.value != thrown.value


def test_tarot_5p_partner_shares_the_win():
    p = plan(get_game("tarot"), 3_000, seed=SEED, params={"players": 5}, jobs=1, progress=False)
    f = execute(p)
    won, _ = side_results(get_game("tarot").sides(p.knobs), 5)
    w = f.select(*[x.alias(f"w{i}") for i, x in enumerate(won)], "taker", "partner", "made")
    with_partner = w.filter((pl.col("taker") >= 0) & (pl.col("partner") >= 0)
                            & (pl.col("partner") != pl.col("taker")))
    assert with_partner.height > 100
    for row in with_partner.iter_rows(named=True):
        winners = {i for i in range(5) if row[f"w{i}"]}
        attack = {row["taker"], row["partner"]}
        assert winners == (attack if row["made"] else set(range(5)) - attack)


def test_belote_positions_over_played_deals():
    p = plan(get_game("belote"), 20_000, seed=SEED, jobs=1, progress=False)
    f = execute(p)
    ms = metric_map("belote", f, p.knobs)
    played = f.filter(pl.col("taker") >= 0)
    # the dealer's team takes and makes it, or the other team takes and is dedans
    dealer_team_took = ((pl.col("taker") - pl.col("dealer")) % 2) == 0
    dedans = ~pl.col("made") & ~pl.col("litige")
    dealer_won = played.select(pl.when(dealer_team_took).then(pl.col("made"))
                               .otherwise(dedans).mean()).item()
    litige = played["litige"].mean()
    pos = [ms[f"dealer_pos.win.{k}"].estimate for k in range(4)]
    assert all(e.n == played.height for e in pos)
    assert pos[0].value == pytest.approx(dealer_won, abs=1e-12)
    assert pos[2].value == pos[0].value and pos[3].value == pos[1].value  # partners
    ties = ms["balance.ties"].estimate
    assert ties.value == pytest.approx(litige, abs=1e-12) and 0 < ties.value < 0.05
    assert pos[0].value + pos[1].value + ties.value == pytest.approx(1.0, abs=1e-12)
    thrown = ms["balance.thrown_in"].estimate
    assert thrown.value == pytest.approx(1 - played.height / f.height, abs=1e-12)
    assert abs(thrown.value - ties.value) > 0.05  # "ties" are not "nobody takes"
    assert "played deals" in ms["dealer_pos.win.0"].title


def test_manille_34_34_is_a_played_tie():
    p = plan(get_game("manille"), 5_000, seed=SEED, jobs=1, progress=False)
    f = execute(p)
    ms = metric_map("manille", f, p.knobs)
    ties = ms["balance.ties"].estimate
    assert ties.n == f.height and ties.value == pytest.approx(f["void_deal"].mean(), abs=1e-12)
    assert ties.value > 0
    s = [ms[f"seat.win.s{i}"].estimate.value for i in range(2)]
    assert s[0] + s[1] + ties.value == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("game,params", [("president", {}), ("rami", {}),
                                         ("rami", {"players": 3})])
def test_every_seat_alone_rates_add_up_to_played_deals(game, params):
    p = plan(get_game(game), 2_000, seed=SEED, params=params, jobs=1, progress=False)
    f = execute(p)
    n = get_game(game).players(p.knobs)
    ms = metric_map(game, f, p.knobs)
    ties = ms["balance.ties"].estimate.value
    total = sum(ms[f"seat.win.s{i}"].estimate.value for i in range(n))
    assert ties == 0 and total == pytest.approx(1.0, abs=1e-12)
    if game == "rami":  # the seat that went out wins; a deal nobody went out of is void
        played = f.filter(pl.col("went_out") >= 0)
        for i in range(n):
            assert ms[f"seat.win.s{i}"].estimate.value == pytest.approx(
                (played["went_out"] == i).mean(), abs=1e-12)
        assert ms["balance.thrown_in"].estimate.value == pytest.approx(
            (f["went_out"] < 0).mean(), abs=1e-12)
    else:  # the Président (place 1) wins
        for i in range(n):
            assert ms[f"seat.win.s{i}"].estimate.value == pytest.approx(
                (f["president"] == i).mean(), abs=1e-12)


def test_tarot_4_saisons_the_game_result_decides():
    p = plan(get_game("tarot_4_saisons"), 2_000, seed=SEED, jobs=1, progress=False)
    f = execute(p)
    ms = metric_map("tarot_4_saisons", f, p.knobs)
    played = f.filter((pl.col("taker") >= 0) & ~pl.col("annulled"))
    for i in range(3):
        mine = played.select(((pl.col("taker") == i) == pl.col("made")).mean()).item()
        assert ms[f"seat.win.s{i}"].estimate.value == pytest.approx(mine, abs=1e-12)
    assert ms["balance.ties"].estimate.value == 0


@pytest.mark.parametrize("game", game_names())
def test_each_played_deal_is_won_by_one_whole_side_or_tied(game):
    """Every game declares its sides; in each played deal the winners are exactly the
    seats of one side (or nobody: a tie), and nothing is counted outside played deals."""
    g = get_game(game)
    assert g.sides is not None, game
    p = plan(get_game(game), 400, seed=SEED, jobs=1, progress=False)
    f = execute(p)
    n = g.players(p.knobs)
    sides = g.sides(p.knobs)
    won, tie = side_results(sides, n)
    side_ids = [s if isinstance(s, pl.Expr) else pl.lit(s) for s in sides.side]
    got = f.select(sides.played.alias("played"), tie.alias("tie"),
                   *[w.alias(f"w{i}") for i, w in enumerate(won)],
                   *[s.alias(f"side{i}") for i, s in enumerate(side_ids)])
    assert got["played"].sum() > 0
    for row in got.iter_rows(named=True):
        winners = {i for i in range(n) if row[f"w{i}"]}
        if not row["played"]:
            assert row["tie"] is None and all(row[f"w{i}"] is None for i in range(n))
            continue
        assert row["tie"] == (not winners)
        if winners:
            side = {row[f"side{i}"] for i in winners}
            assert len(side) == 1
            assert winners == {i for i in range(n) if row[f"side{i}"] in side}
            assert len(winners) < n  # somebody lost


def test_sides_default_and_method_text():
    belote = get_game("belote")
    k = belote.make_knobs()
    assert "nobody takes" in sides_method(sides_of(belote, k))
    plain = sides_of(replace(belote, sides=None), k)  # a game that declares none: its teams
    assert plain.side == (0, 1, 0, 1) and plain.text == "fixed teams" and not plain.unplayed
    assert "thrown in" not in sides_method(plain)


def test_tarot_win_shares_add_up_to_the_played_deals():
    """Issue 11's check: Tarot 4p per-seat figures that add up to 100% of played deals
    (less ties) — the shares of the wins; the side win rates add up to the mean size of
    the winning side instead."""
    from simlab.analysis.metrics import compute
    from simlab.engine.runner import simulate
    from simlab.games import get_game

    g = get_game("tarot")
    f = simulate(get_game("tarot"), 4_000, seed=2, progress=False)
    ms = {m.key: m for m in compute(g, f, g.make_knobs({}), "deal").metrics}
    shares = sum(ms[f"seat.win_share.s{i}"].estimate.value for i in range(4))
    ties = ms["balance.ties"].estimate.value
    assert abs(shares + ties - 1) < 1e-9
    rates = sum(ms[f"seat.win.s{i}"].estimate.value for i in range(4))
    made = ms["contract.success"].estimate.value
    assert abs(rates - (made + 3 * (1 - made))) < 1e-9  # the taker alone, or 3 defenders
    assert "seat.win_share.s0" not in {m.key for m in compute(
        get_game("belote"), simulate(get_game("belote"), 500, progress=False), get_game("belote")
        .make_knobs({}), "deal").metrics}  # fixed teams: their rates already add up
