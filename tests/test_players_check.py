"""The Players section: strong hands win and the heuristic beats random in every game;
the health checks flag what they should; the skill check pairs the same deals; the
report and the CLI show it all."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from simlab.analysis import players_check as P
from simlab.analysis.metrics import compute
from simlab.cli.commands import main
from simlab.engine.runner import execute, plan
from simlab.games import get_game
from simlab.players.duel import duplicate

GAMES = ("belote", "manille", "tarot", "tarot_4_saisons", "tarot_double_detente", "president",
         "rami", "bridgette", "sept", "belote_noisette", "belote_comptoir", "frappe",
         "duel_las_vegas", "besigue", "mille", "caisse", "bernicle", "demons", "heritiers",
         "demons_punisseurs", "loba", "xxl_a_moins",
         "xxl_fournir_des_series", "speed")


@pytest.mark.parametrize("slug", GAMES)
def test_strong_hands_win_and_heuristic_beats_random(slug):
    """Issue 10, item 2: the heuristic's mean result rises with the game's hand-strength
    measure (the ten decile means rise, and the strongest decile beats the weakest with an
    interval above 0), and the heuristic beats random clearly in duplicate play."""
    p = plan(get_game(slug), 1500, seed=11)
    st = P.hand_strength(p.game, p, 1500)
    assert st is not None and st.n == 1500 * p.game.players(p.knobs)
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, (slug, means.round(2))
    assert st.top_minus_bottom.lo > 0, (slug, st.top_minus_bottom)
    assert st.spearman > 0
    r = duplicate(get_game(slug), "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def _plan_frame(slug: str, n: int = 400):
    p = plan(get_game(slug), n, seed=5)
    return p, execute(p)


def test_checks_flag_caps_overbids_and_decisions_never_taken():
    p, frame = _plan_frame("tarot")
    checks = {c.name: c for c in P.frame_checks(p.game, p, frame)}
    assert checks["deals where nobody takes"].ok is True
    # the same rows, doctored: a cap that stops 1 % of deals, a contract always failed,
    # and a decision (passing) never taken
    bad = frame.with_columns(
        capped=pl.Series([i % 100 == 0 for i in range(frame.height)]),
        made=pl.when(pl.col("contract") == "garde").then(False).otherwise(pl.col("made")),
        taker=pl.when(pl.col("taker") < 0).then(0).otherwise(pl.col("taker")),
    )
    checks = {c.name: c for c in P.frame_checks(p.game, p, bad)}
    assert checks["deals stopped by a safety cap"].ok is False
    garde = [c for name, c in checks.items() if name.startswith("contract garde made")]
    assert garde and garde[0].ok is False and "overbid" in garde[0].warning
    assert checks["deals where nobody takes"].ok is False
    # a cap below the threshold passes
    fine = frame.with_columns(capped=pl.Series([i == 0 for i in range(frame.height)]))
    assert {c.name: c for c in P.frame_checks(p.game, p, fine)}[
        "deals stopped by a safety cap"].ok is True


def test_duel_checks_flag_only_a_clear_loss():
    p, frame = _plan_frame("manille", 200)
    pc = P.check_players(p.game, p, frame, n=200)
    by = {c.name.split(" (")[0]: c for c in pc.checks}
    assert by["heuristic beats random"].ok is True
    # random against heuristic: the same duel seen from the loser's side is a warning
    r = duplicate(get_game("manille"), "random", "heuristic", n=200, seed=p.seed)
    assert r.hi < 0
    assert pc.strength is not None and len(pc.strength.deciles) == P.DECILES


def test_skill_check_pairs_the_runs_first_deals():
    p, frame = _plan_frame("belote", 600)
    ms = compute(p.game, frame, p.knobs, p.level)
    sk = P.skill_check(p.game, p, frame, ms, "search", n=150)
    head = {m.key for m in ms.headline()}
    assert sk.n == 150 and {r.key for r in sk.rows} == head
    strong = execute(plan(get_game("belote"), 150, seed=5, policies="search"))
    thrown = next(r for r in sk.rows if r.key == "contract.nobody_takes")
    assert thrown.choice
    # the "search, same deals" estimate is exactly the rate over an all-search run
    assert thrown.strong.value == pytest.approx((strong["taker"] < 0).mean())
    assert thrown.base.value == pytest.approx((frame.head(150)["taker"] < 0).mean())
    # each row: its TOST (90 %) interval inside the 95 % one, and a stated margin
    for r in sk.rows:
        if not math.isnan(r.lo):
            assert r.lo <= r.tost_lo <= r.diff <= r.tost_hi <= r.hi
        assert r.margin > 0 and r.margin_why and 0 < r.n <= 150
    # no duplicate edge in this check: no label (tests/test_skill_check.py has each label)
    assert not sk.shown_stronger and {sk.verdict(r) for r in sk.rows} == {""}


def test_report_has_players_section_and_skill_check(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "manille", "-n", "1500", "--out", str(out), "--players-n", "300",
                 "--skill-check", "search", "--skill-n", "120", "--no-progress"]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    players = md.split("## Players")[1].split("\n## ")[0]
    assert "heuristic vs random" in players and "search vs heuristic" in players
    assert "Strong hands win?" in players and "| decile |" in players
    assert "### Answers under stronger play" in players
    findings = md.split("## Findings")[1].split("\n## ")[0]
    assert "**Players.**" in findings
    # its labels rest on the same report's search-vs-heuristic edge (240 deals here)
    assert ("shown to hold within their margins" in findings) != (P.NOT_SHOWN in findings)
    assert "equivalence interval (90%)" in players and "| margin |" in players
    # every headline answer carries a verdict
    head = md.split("## Headline answers")[1].split("\n## ")[0]
    assert "Under stronger play (search at every seat)" in head
    # without the checks the section still says who played and the run's own checks
    out2 = tmp_path / "rep2"
    assert main(["report", "tarot", "-n", "300", "--out", str(out2), "--players-n", "0",
                 "--no-progress"]) == 0
    md2 = (out2 / "report.md").read_text(encoding="utf-8")
    section = md2.split("## Players")[1].split("\n## ")[0]
    assert "Who played: heuristic at every seat" in section
    assert "deals where nobody takes" in section and "were not run" in section


@pytest.mark.parametrize("argv, message", [
    (["--players-n", "-3"], "expected an integer >= 0"),
    (["--skill-n", "0"], "expected an integer >= 1"),
    (["--skill-check", "oracle"], "invalid choice"),
])
def test_players_options_reject_bad_values(tmp_path, capsys, argv, message):
    assert main(["report", "belote", "-n", "100", "--out", str(tmp_path / "r"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not (tmp_path / "r").exists()


def test_every_game_declares_a_hand_strength():
    """Every game declares a hand-strength measure (and joins the strong-hands test), or
    says in ``extra["no_hand_strength"]`` why there is none (La batouille: both seats hold
    the same cards)."""
    from simlab.games import game_names

    without = {s for s in game_names() if "no_hand_strength" in get_game(s).extra}
    assert set(GAMES) | without == set(game_names())  # a new game joins the strong-hands test
    assert not set(GAMES) & without
    for slug in game_names():
        g = get_game(slug)
        if slug in without:
            why = g.extra["no_hand_strength"]
            assert isinstance(why, str) and why.strip(), slug
            assert "hand_strength" not in g.extra, slug
        else:
            assert callable(g.extra.get("hand_strength")) and g.extra.get("hand_strength_text")


def test_a_game_without_hand_strength_says_why():
    """La batouille's Players section gives the reason instead of the decile table."""
    p = plan(get_game("batouille"), 60, seed=5)
    pc = P.check_players(p.game, p, execute(p), n=60)
    assert pc.strength is None
    check = next(c for c in pc.checks if c.name == "strong hands win")
    assert check.ok is None and "same cards" in check.value


def test_a_game_that_forces_a_taker_is_not_warned_about_passing():
    p, frame = _plan_frame("belote_noisette", 300)
    check = next(c for c in P.frame_checks(p.game, p, frame) if c.name == "deals where nobody takes")
    assert check.ok is None and "the rules force a taker" in check.value
    assert duplicate(get_game("belote_noisette"), "heuristic", "random", n=50, seed=1).unit == \
        "hazelnuts per deal"


def test_a_decision_measured_right_to_always_take_is_not_a_warning():
    """Tarot 4 saisons: the heuristic always turns the optional chien cards, and the game
    says why (turning them less often measured worse): the check passes with that note.
    Doctored to sometimes, it passes plainly; a declared decision without a measurement
    (a contre) that is never taken still warns."""
    p, frame = _plan_frame("tarot_4_saisons")
    option = "the taker turns the optional chien cards (2+2 / 1+1 takes)"
    always = frame.with_columns(option_used=pl.when(pl.col("option_used").is_not_null())
                                .then(True).otherwise(None))
    c = {c.name: c for c in P.frame_checks(p.game, p, always)}[option]
    assert c.ok is True and c.note.startswith("always taken in this run; measured right")
    some = frame.with_columns(option_used=pl.when(pl.col("option_used").is_not_null())
                              .then(pl.col("deal") % 2 == 0).otherwise(None))
    c = {c.name: c for c in P.frame_checks(p.game, p, some)}[option]
    assert c.ok is True and c.note == ""
    # the note explains "always" only: never turning them is a warning
    never = frame.with_columns(option_used=pl.when(pl.col("option_used").is_not_null())
                               .then(False).otherwise(None))
    c = {c.name: c for c in P.frame_checks(p.game, p, never)}[option]
    assert c.ok is False


def test_a_rare_not_never_note_does_not_excuse_always():
    """A note explains one extreme: Tarot 4 saisons' capot note ("rare, not never")
    excuses a run where no capot was announced, not one where every taker announced."""
    p, frame = _plan_frame("tarot_4_saisons")
    capot = "the taker announces a capot (deals taken)"
    assert P.note_direction("always: x") == ("always", "x")
    assert P.note_direction("rare, not never: x")[0] == "never"
    for value, ok in ((False, True), (True, False)):
        doctored = frame.with_columns(capot_announced=pl.lit(value))
        c = {c.name: c for c in P.frame_checks(p.game, p, doctored)}[capot]
        assert c.ok is ok, value
    never = frame.with_columns(n_contres=pl.lit(0))
    c = {c.name: c for c in P.frame_checks(p.game, p, never)}["a contre is said (deals taken)"]
    assert c.ok is False and c.warning == "never taken"


def _caisse_games(games: list[str]) -> pl.DataFrame:
    """Hand-built Caisse deals: ``games`` their game; Misère Générale has no taker."""
    g = get_game("caisse")
    labels = next(c.kind for c in g.deal_columns(g.make_knobs()) if c.name == "contract")
    mg = [x == "misere_generale" for x in games]
    return pl.DataFrame({"deal": range(len(games)),
                         "taker": [-1 if m else i % 3 for i, m in enumerate(mg)],
                         "made": [None if m else i % 2 == 0 for i, m in enumerate(mg)],
                         "contract": pl.Series(games, dtype=pl.Enum(list(labels))),
                         "dealer": [i % 3 for i in range(len(games))],
                         **{f"score_s{s}": [(i + s) % 4 for i in range(len(games))]
                            for s in range(3)}})


def test_caisse_misere_generale_is_no_bid_but_the_game_played_when_nobody_takes():
    """Issue 33: Misère Générale is imposed when everyone passes twice: no health check
    calls it a bid never (or always) taken; the nobody-takes check counts it and says so;
    the Contracts section has no "share of takes" nor taker success for it."""
    p = plan(get_game("caisse"), 300, seed=1)
    for games in (["trump_r1", "trump_r2", "misere_generale"] * 100,  # 33% Misère Générale
                  ["trump_r1", "trump_r2", "sans_atout"] * 100):  # never: nobody passed twice
        frame = _caisse_games(games)
        checks = P.frame_checks(p.game, p, frame)
        assert not any("misere_generale" in c.name for c in checks), [c.name for c in checks]
        nobody = [c for c in checks if c.name.startswith("deals where nobody takes")]
        assert len(nobody) == 1 and "Misère Générale is then played" in nobody[0].name
        assert nobody[0].ok is ("misere_generale" in games)
        assert "contract sans_atout (rows with a contract)" in {c.name for c in checks}
        keys = {m.key for m in compute(get_game("caisse"), frame, p.knobs, "deal").metrics}
        assert "contract.share.trump_r1" in keys and "contract.success.trump_r1" in keys
        assert not any(k.endswith("misere_generale") and k.startswith("contract.")
                       for k in keys), sorted(keys)
