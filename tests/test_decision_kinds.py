"""Issue 32, item 2: the health checks look at each decision kind on its own — every
contract, trump suit, bid strain and optional announcement — so a kind never (or always)
taken is a warning even when its siblings are taken, unless the game says why (measured
or computed). Hand-built frames: no kernel runs."""

from __future__ import annotations

import polars as pl

from simlab.analysis import players_check as P
from simlab.engine.runner import plan
from simlab.games import game_names, get_game


def _checks(slug: str, frame: pl.DataFrame, **knobs) -> dict[str, P.Check]:
    p = plan(get_game(slug), frame.height, seed=1, params=knobs or None)
    return {c.name: c for c in P.frame_checks(p.game, p, frame)}


def _enum(column: str, slug: str, values: list, **knobs) -> pl.Series:
    g = get_game(slug)
    labels = next(c.kind for c in g.deal_columns(g.make_knobs(knobs)) if c.name == column)
    return pl.Series(column, values, dtype=pl.Enum(list(labels)))


def test_every_label_of_a_decision_column_is_a_kind_of_its_own():
    """Each game: one kind per contract, trump suit, strain and double label it records."""
    for slug in game_names():
        g = get_game(slug)
        knobs = g.make_knobs()
        cols = g.deal_columns(knobs)
        titles = [k[0] for k in P.decision_kinds(g, knobs, [c.name for c in cols])]
        assert len(titles) == len(set(titles)), slug
        for c in cols:
            if c.name in P.DECISION_COLUMNS and isinstance(c.kind, tuple):
                for label in c.kind:
                    if label in g.extra.get("imposed_labels", {}).get(c.name, {}):
                        continue  # nobody chooses it (Caisse's Misère Générale)
                    assert f"{c.name} {label} (rows with a {c.name})" in titles, (slug, label)


def test_a_contract_never_bid_is_a_warning_though_others_are():
    """Tarot: Garde contre never bid among 400 takes (the old check only listed it, with
    no warning, and only from 1,000 deals)."""
    n = 400
    contracts = ["prise", "garde", "garde_sans"] * (n // 3) + ["prise"] * (n % 3)
    frame = pl.DataFrame({"deal": range(n), "taker": [i % 4 for i in range(n)],
                          "made": [i % 2 == 0 for i in range(n)]}).with_columns(
        _enum("contract", "tarot", contracts))
    checks = _checks("tarot", frame)
    never = checks["contract garde_contre (rows with a contract)"]
    assert never.ok is False and never.warning == "never taken"
    assert checks["contract garde (rows with a contract)"].ok is True
    # one contract only: it is always taken, and that is a warning too
    only = frame.with_columns(_enum("contract", "tarot", ["garde"] * n))
    always = _checks("tarot", only)["contract garde (rows with a contract)"]
    assert always.ok is False and always.warning == "always taken"


def test_a_trump_suit_never_chosen_is_named():
    """Manille (folle: the trump is chosen): a suit never named is its own warning."""
    n = 200
    frame = pl.DataFrame({"deal": range(n)}).with_columns(
        _enum("trump", "manille", ["♠", "♥", "♦"] * (n // 3) + ["♠"] * (n % 3)))
    checks = _checks("manille", frame)
    assert checks["trump ♣ (rows with a trump)"].ok is False
    assert all(checks[f"trump {s} (rows with a trump)"].ok for s in "♠♥♦")


def _caisse_frame(n: int, clarte_early: int) -> pl.DataFrame:
    """Caisse deals, all round-1 trump games with a taker, where every contract is
    announced with 6 and with 9 cards in some deals, except Clarté with 6 cards in all
    but ``clarte_early`` deals."""
    from simlab.games.caisse.rules import CONTRACTS

    cols: dict = {"deal": range(n), "taker": [0] * n, "game_contres": [i % 2 for i in range(n)],
                  "defi": [i % 3 == 0 for i in range(n)],
                  "conceded": [None if i % 2 else "taker" for i in range(n)],
                  "exchanged": [i % 2 for i in range(n)]}
    for c in CONTRACTS:
        early = [int(i % 4 == 0) for i in range(n)]
        if c == "clarte":
            early = [int(i < clarte_early) for i in range(n)]
        if c == "capot":
            early = [0] * n  # §7.1: never with 6 cards
        cols[f"{c}_early"] = early
        cols[f"{c}_n"] = [e + (i % 4 == 1) for i, e in enumerate(early)]
    frame = pl.DataFrame(cols).with_columns(
        pl.col("conceded").cast(_enum("conceded", "caisse", []).dtype))
    return frame.with_columns(_enum("contract", "caisse", ["trump_r1"] * n))


def test_caisse_clarte_with_6_cards_never_announced_is_a_warning():
    """The issue: Clarté and Famille never announced with 6 cards, hidden because the old
    check added the 6-card contracts together. Capot cannot be announced with 6 cards
    (§7.1): no kind to check."""
    checks = _checks("caisse", _caisse_frame(400, clarte_early=0))
    clarte6 = checks["clarte announced with 6 cards (trump / SA games)"]
    assert clarte6.ok is False and clarte6.warning == "never taken"
    assert checks["clarte announced with 9 cards (trump / SA games)"].ok is True
    assert checks["famille announced with 6 cards (trump games)"].ok is True
    assert not any(name.startswith("capot announced with 6") for name in checks)
    assert "a contract announced with 6 cards (trump / SA games)" not in checks
    assert checks["clarte announced with 6 cards (trump / SA games)"].value.startswith("0.00%")
    fine = _checks("caisse", _caisse_frame(400, clarte_early=7))
    assert fine["clarte announced with 6 cards (trump / SA games)"].ok is True


def test_a_documented_never_is_not_a_warning():
    """Caisse's Tous les Atouts with 6 cards (the six highest trumps as the whole hand:
    computed 1 in ~302,000) and Tarot's triple poignée (15+ trumps in 18 cards): "never"
    passes with the reason; a game's decision_notes hook documents any kind."""
    frame = _caisse_frame(400, clarte_early=7).with_columns(tous_les_atouts_early=pl.lit(0))
    c = _checks("caisse", frame)["tous_les_atouts announced with 6 cards (trump games)"]
    assert c.ok is True and c.note.startswith("never taken in this run; rare, not never")
    assert "302,000" in c.note
    from simlab.games.tarot.questions import poignee_chance

    assert 1 / poignee_chance(4, 15) > 1e7 and 1 / poignee_chance(4, 10) < 100
    g = get_game("tarot")
    titles = {t: note for t, _, _, note in P.decision_kinds(
        g, g.make_knobs(), ["taker", "contract", "poignee_s0", "poignee_s1"])}
    assert "1 deal in 10,970,911" in titles["a poignée triple is shown (deals taken)"]
    assert titles["a poignée simple is shown (deals taken)"] == ""  # 1 in 48: no excuse
    # the hook, for a column's kind
    noted = replace_extra(g, {"decision_notes": {
        "contract garde_contre (rows with a contract)": "measured rare"}})
    kinds = {t: note for t, _, _, note in P.decision_kinds(noted, noted.make_knobs(),
                                                           ["taker", "contract"])}
    assert kinds["contract garde_contre (rows with a contract)"] == "measured rare"


def replace_extra(game, more: dict):
    from dataclasses import replace

    return replace(game, extra={**game.extra, **more})


def test_a_contract_the_rules_do_not_allow_is_documented():
    """Belote du comptoir: with Sans-Atout and Tout-Atout off (the defaults) the trump
    contract is always named, and that is the rules', not a warning; allowed, a kind never
    named warns again."""
    n = 200
    frame = pl.DataFrame({"deal": range(n), "taker": [i % 4 for i in range(n)],
                          "made": [i % 2 == 0 for i in range(n)]}).with_columns(
        _enum("contract", "belote_comptoir", ["trump"] * n))
    checks = _checks("belote_comptoir", frame)
    for name in ("trump", "sans_atout", "tout_atout"):
        c = checks[f"contract {name} (rows with a contract)"]
        assert c.ok is True and "these rules" in c.note, name
    allowed = _checks("belote_comptoir", frame, allow_sans_atout=True)
    assert allowed["contract sans_atout (rows with a contract)"].ok is False
    assert allowed["contract trump (rows with a contract)"].ok is False
    assert allowed["contract tout_atout (rows with a contract)"].ok is True


def test_tarot_4_saisons_simple_rungs_never_bid_is_explained_only_where_measured():
    from simlab.analysis.players_check import decision_kinds
    from simlab.games import get_game

    g = get_game("tarot_4_saisons")
    for ladder, explained in (("simple_first", True), ("by_rung", False)):
        k = g.make_knobs({"ladder_order": ladder})
        cols = [c.name for c in g.deal_columns(k)]
        notes = {t: n for t, _, _, n in decision_kinds(g, k, cols)}
        simple = [t for t in notes if t.startswith("contract ") and "_simple " in t]
        assert len(simple) == 7
        assert all(bool(notes[t]) == explained for t in simple), ladder
        assert not any(notes[t] for t in notes if "_clear " in t)
