"""Démons players: every decision kind taken sometimes by the heuristic; the search
player beats the heuristic in duplicate play; it never peeks (hidden cards and the
hidden Diable re-dealt consistently with its view leave its decision unchanged)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from simlab.engine.game import to_frame
from simlab.games.demons import GAME, kernels, players, rules

KNOBS = GAME.make_knobs({})
KV = rules._vector(KNOBS)


def test_heuristic_takes_every_decision_kind():
    out = GAME.run_deals(KNOBS, ("heuristic",) * 3, 21, 0, 4000)
    frame = to_frame(out, GAME.deal_columns(KNOBS), GAME.deck.labels, 3)
    kinds = GAME.extra["decisions"](KNOBS, frame.columns)
    assert len(kinds) == 11
    for title, taken, where in kinds:
        rows = frame.filter(where)
        got = rows.select(taken.cast(pl.Int64).sum()).item()
        assert rows.height > 0 and 0 < got, title
        always = GAME.extra["decision_notes"](KNOBS).get(title, "").startswith("always: ")
        assert got < rows.height or always, title


def test_search_beats_heuristic_duplicate():
    """The search player in each seat in turn against the same deals played by three
    heuristics: its seat's score difference, with a 99% interval excluding zero."""
    n = 300
    base = GAME.run_deals(KNOBS, ("heuristic",) * 3, 5, 0, n).rows
    diffs = []
    for s in range(3):
        pol = ["heuristic"] * 3
        pol[s] = "search"
        rows = GAME.run_deals(KNOBS, tuple(pol), 5, 0, n).rows
        diffs.append(rows[:, rules.C_SCORE + s] - base[:, rules.C_SCORE + s])
    d = np.concatenate(diffs).astype(float)
    mean, se = d.mean(), d.std(ddof=1) / math.sqrt(len(d))
    assert mean - 2.58 * se > 0, (mean, se)


def decision_points(seed: int, n_deals: int, seat: int) -> list[np.ndarray]:
    """States where ``seat`` chooses a card with several candidates (heuristic play)."""
    found = []
    deck = np.empty(33, dtype=np.int64)
    colours = np.empty(3, dtype=np.int64)
    pol = np.array([1, 1, 1], dtype=np.int64)
    moves = np.zeros(rules.MAX_MOVES, dtype=np.int64)
    for d in range(n_deals):
        kernels.shuffled(np.uint64(seed), d, 0, deck)
        kernels.draw_colours(np.uint64(seed), d, colours)
        st = np.zeros(rules.N_STATE, dtype=np.int64)
        rules.deal(st, deck, d % 3, colours, KV)
        kernels.do_six_swaps(st, pol, np.uint64(1))
        while st[rules.S_PHASE] != rules.P_DONE:
            if st[rules.S_PHASE] == rules.P_PLAY and st[rules.S_TO_MOVE] == seat \
                    and players.candidates(st, KV, moves) > 1:
                found.append(st.copy())
            rules.apply_move(st, players.heuristic_move(st, KV), KV)
    return found


def test_search_never_peeks_cards_or_diable():
    """Re-deal the hidden cards — the other hands, the others' face-down discards — and
    with them the Diable's identity, consistently with the seat's view: the search's
    decision is the same. Some re-deals must move the Diable to another seat."""
    work = players.search_work()
    alt = np.zeros(rules.N_STATE, dtype=np.int64)
    checked = moved_diable = 0
    for st in decision_points(3, 40, 0)[:60]:
        seat = st[rules.S_TO_MOVE]
        mine = players.search_move(st, KV, np.uint64(9), 4, 0, work)
        for r in range(3):
            _, ok = players.sample_world(st, seat, np.uint64(1000 + r), alt, work)
            assert ok
            # a world is a real deal too: the same public facts and the seat's own cards
            assert alt[rules.S_HAND + seat] == st[rules.S_HAND + seat]
            assert alt[rules.S_TURNED] == st[rules.S_TURNED]
            moved_diable += alt[rules.S_DIABLE] != st[rules.S_DIABLE]
            real = alt.copy()
            assert players.search_move(real, KV, np.uint64(9), 4, 0, work) == mine
            checked += 1
    assert checked >= 60 and moved_diable > 0


def test_worlds_respect_what_the_seat_saw():
    """Voids revealed by play and the no-Démon inference hold in every world, and the
    designating Démon is in a hand, its holder the world's Diable."""
    work = players.search_work()
    world = np.zeros(rules.N_STATE, dtype=np.int64)
    for st in decision_points(8, 30, 1)[:40]:
        seat = st[rules.S_TO_MOVE]
        for r in range(5):
            _, ok = players.sample_world(st, seat, np.uint64(r), world, work)
            assert ok
            for o in range(3):
                h = int(world[rules.S_HAND + o])
                v = int(st[rules.S_VOID + o])
                for s in range(4):
                    if v >> s & 1:
                        assert h & int(rules.SUIT_MASK[s]) == 0
                if v >> rules.VOID_DEMONS & 1:
                    assert h & int(rules.DEMON_MASK) == 0
            d = st[rules.S_DEMON_CARD]
            if not int(st[rules.S_GONE]) >> d & 1:
                holder = [o for o in range(3) if int(world[rules.S_HAND + o]) >> d & 1]
                assert holder == [world[rules.S_DIABLE]]
