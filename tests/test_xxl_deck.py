"""The XXL deck and its colourings (simlab/games/xxl/)."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from simlab.engine.knobs import SimlabError
from simlab.games.xxl import check_colouring
from simlab.games.xxl.colouring import (
    COLOUR_TOTALS,
    V1,
    card_text,
    generated,
    parse_colouring,
    read_file,
    violations,
)
from simlab.games.xxl.dealing import deal_hands, p_hand_misses, shuffle_deck
from simlab.games.xxl.deck import DECK, N_CARDS, PAIRS, card_id, labels, parse_card, tables

# The catalogue's card list (xxl_montees_descentes.md), as printed.
CATALOGUE_LIST = """
R0/G1(1), G0/R2(2), R0/B3(3), B0/Y4(4), Y0/R5(5), G0/R6(6), R0/Y7(7), G0/Y8(8), B0/G9(9), Y0/B10(10)
G1/R2(3), R1/Y3(4), B1/R4(5), B1/Y5(6), G1/B6(7), B1/G7(8), R1/B8(9), Y1/G9(10), Y1/B10(11), B2/G3(5)
B2/G4(6), G2/B5(7), R2/B6(8), G2/B7(9), B2/Y8(10), Y2/R9(11), Y2/B10(12), G3/R4(7), B3/Y5(8), G3/Y6(9)
R3/B7(10), R3/G8(11), R3/Y9(12), Y3/R10(13), G4/B5(9), B4/R6(10), B4/Y7(11), B4/R8(12), Y4/G9(13), Y4/G10(14)
Y5/B6(11), G5/R7(12), R5/G8(13), R5/Y9(14), G5/Y10(15), G6/Y7(13), Y6/R8(14), G6/Y9(15), R6/Y10(16), G7/B8(15)
B7/R9(16), R7/G10(17), R8/B9(17), Y8/G10(18), B9/R10(19)
"""


def test_v1_is_the_catalogue_table_and_list():
    listed = [t.strip() for t in CATALOGUE_LIST.replace("\n", ",").split(",") if t.strip()]
    assert len(listed) == 55
    ours = {card_text(V1, a, b) for a, b in PAIRS}
    assert ours == set(listed)
    assert violations(V1) == []


@pytest.mark.parametrize("k", range(16))
def test_generated_colourings_meet_every_constraint(k):
    m = generated(k)
    assert violations(m) == []
    assert tuple(int((m == c).sum()) for c in range(4)) == COLOUR_TOTALS
    assert not np.array_equal(m, V1)


def test_generated_colourings_differ_and_repeat():
    ms = [generated(k) for k in range(8)]
    assert len({m.tobytes() for m in ms}) == 8
    from simlab.games.xxl.colouring import _search
    assert np.array_equal(_search(3), ms[3])  # same K, same colouring


def test_seed_cards_present_in_every_colouring():
    quoted = ("Y7/R0", "B4/Y7", "R6/G0", "G0/R2", "G1/R2", "G2/B5")
    for m in [V1] + [generated(k) for k in range(4)]:
        ids = [parse_card(text, m) for text in quoted]  # raises KeyError if one is missing
        assert len(set(ids)) == 6 and all(0 <= i < N_CARDS for i in ids)


def test_deck_tables():
    num, col, total, holders, colour_num = tables(V1)
    assert len(PAIRS) == N_CARDS == DECK.size == 55
    assert total.sum() == 550 and total.min() == 1 and total.max() == 19
    assert (col[:, 0] != col[:, 1]).all()
    # every card is in exactly two holder masks
    seen = np.zeros(55, dtype=int)
    for h in holders:
        for i in range(55):
            if int(h) >> i & 1:
                seen[i] += 1
    assert (seen == 2).all()
    a = parse_card("Y7/R0", V1)
    assert a == card_id(0, 7) and colour_num[a, 1] == 7 and colour_num[a, 0] == 0
    assert colour_num[a, 2] == -1 and labels(V1)[a] == "R0/Y7"


def test_violations_name_the_broken_constraint():
    m = V1.copy()
    m[0, 7], m[7, 0] = m[7, 0], m[0, 7]  # Y7/R0 -> R7/Y0: the quoted card disappears
    broken = violations(m)
    assert any("Y7/R0" in b for b in broken)
    m = V1.copy()
    m[0, 1] = m[1, 0]
    assert "two" in violations(m)[0]


def test_file_colourings(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(CATALOGUE_LIST)
    assert np.array_equal(read_file(str(good)), V1)
    bad = tmp_path / "bad.txt"
    bad.write_text(CATALOGUE_LIST.replace("R0/Y7(7)", "Y0/R7(7)"))
    with pytest.raises(SimlabError, match="breaks a constraint"):
        read_file(str(bad))
    short = tmp_path / "short.txt"
    short.write_text("R0/G1")
    with pytest.raises(SimlabError, match="lists 1 cards"):
        read_file(str(short))
    with pytest.raises(SimlabError, match="not found|cannot be read"):
        read_file(str(tmp_path / "missing.txt"))


@pytest.mark.parametrize("bad", ["v2", "random:", "random:x", "random:-1", "file:", "V1"])
def test_unknown_colourings_refused(bad):
    with pytest.raises(SimlabError, match="deck_colouring"):
        check_colouring(bad)


def test_parse_colouring_values():
    assert parse_colouring("v1") is V1
    assert np.array_equal(parse_colouring("random:2"), generated(2))


@pytest.mark.parametrize("hand", [9, 7, 6, 4])
def test_dealing_frequency_no_ten_half(hand):
    """The chance a hand holds no card with a 10 half (10 such cards): exact
    hypergeometric C(45, h) / C(55, h) against the shuffle, within 5 standard errors."""
    n = 20_000
    tens = 0
    for a, b in PAIRS:
        if b == 10:
            tens |= 1 << card_id(a, b)
    order = np.zeros(55, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    miss = 0
    for d in range(n):
        shuffle_deck(np.uint64(7), d, 0, order)
        deal_hands(order, 1, hand, hands)
        miss += (int(hands[0]) & tens) == 0
    p = p_hand_misses(10, hand)
    se = math.sqrt(p * (1 - p) / n)
    assert abs(miss / n - p) < 5 * se, (miss / n, p)
    assert p == pytest.approx(math.comb(45, hand) / math.comb(55, hand))


def test_cli_refuses_bad_colouring_value():
    """Via a game that has the knob: one line, exit 2 (skipped until an XXL game is
    registered)."""
    from simlab.games import game_names
    xxl = [g for g in game_names() if g.startswith("xxl_")]
    if not xxl:
        pytest.skip("no XXL game registered yet")
    r = subprocess.run([sys.executable, "-m", "simlab", "run", xxl[0], "-n", "10", "--set",
                        "deck_colouring=v7"], capture_output=True, text=True)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "deck_colouring" in r.stderr


def test_cli_refuses_a_colouring_file_that_breaks_a_constraint(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(CATALOGUE_LIST.replace("R0/Y7(7)", "Y0/R7(7)"))
    good = tmp_path / "good.txt"
    good.write_text(CATALOGUE_LIST)
    from simlab.games import game_names
    xxl = [g for g in game_names() if g.startswith("xxl_")]
    if not xxl:
        pytest.skip("no XXL game registered yet")
    r = subprocess.run([sys.executable, "-m", "simlab", "run", xxl[0], "-n", "10", "--set",
                        f"deck_colouring=file:{bad}"], capture_output=True, text=True)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "breaks a constraint" in r.stderr
    r = subprocess.run([sys.executable, "-m", "simlab", "run", xxl[0], "-n", "10", "--set",
                        f"deck_colouring=file:{good}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("slug", ["xxl_montees_descentes", "xxl_a_moins",
                                  "xxl_fournir_des_series"])
def test_each_report_opens_with_the_colouring(slug):
    """The report's stated paragraphs: question 0 names the colouring and what a colouring
    range means; the deck-sensitivity paragraphs give v1 and a range."""
    from simlab.games import get_game
    g = get_game(slug)
    paragraphs = g.extra["exact_findings"](g.make_knobs({}))
    q, text = paragraphs[0]
    assert q.startswith("0.") and text.startswith("deck colouring: reconstruction v1")
    assert "colour-free" in text.lower() or "Colour-free" in text
    ranges = [t for q, t in paragraphs if "Deck sensitivity" in q]
    assert ranges and all("under v1" in t and "generated colourings" in t for t in ranges)
