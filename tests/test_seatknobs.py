"""Per-seat policy knobs (simlab.engine.seatknobs): a seat's policy values reach that seat's
decisions and nothing else, in every game that has them; bad specs are one-line errors."""

from __future__ import annotations

import pytest
from polars.testing import assert_frame_equal

import simlab
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import split_policy
from simlab.games import game_names, get_game
from simlab.players.tune import candidates, tunable_knobs

SEAT_GAMES = [g for g in game_names() if get_game(g).seat_policy_knobs]
N = 300  # deals: small, but enough that a heuristic threshold moved by a step changes play
# Classic Manille's heuristic has one knob, win_min_points, and it never changes play (a
# player who can win the trick must); the coinchée variant's bidding knobs do.
VARIANT = {"manille": {"variant": "coinchee"}}
# The player whose knobs are moved: the heuristic, except in La batouille, whose one policy
# knob (mixed_high_p) is the mixed_high player's (its heuristic has no knob).
POLICY = {"batouille": "mixed_high"}


def _policy(game: str) -> str:
    return POLICY.get(game, "heuristic")


def _frame(game: str, policies: str, params: dict | None = None, level: str = "deal"):
    return simlab.simulate(game, N if level == "deal" else 20, seed=11,
                           params={**VARIANT.get(game, {}), **(params or {})},
                           policies=policies, level=level)


def _moves(game: str) -> list[dict]:
    """One move of every heuristic knob (its largest step), then the others."""
    g = get_game(game)
    knobs = g.make_knobs(VARIANT.get(game))
    moves = candidates(knobs, tunable_knobs(type(knobs)))
    first = {}
    for m in reversed(moves):
        first[next(iter(m))] = m
    return list(first.values()) + [m for m in moves if m not in first.values()]


def test_split_policy() -> None:
    assert split_policy("heuristic") == ("heuristic", {})
    assert split_policy("heuristic:a=1:b=x") == ("heuristic", {"a": "1", "b": "x"})
    with pytest.raises(SimlabError, match="expected NAME"):
        split_policy("heuristic:a")


@pytest.mark.parametrize("game", SEAT_GAMES)
@pytest.mark.parametrize("level", ["deal", "match"])
def test_every_seat_overridden_equals_the_knob_set_for_all(game: str, level: str) -> None:
    """Every seat given value v by its policy spec plays exactly as a run with v for all
    (so every decision reads its seat's values, none the run's); and at least one move of
    a heuristic knob changes the play, so the comparison can fail."""
    g = get_game(game)
    players = g.players(g.make_knobs(VARIANT.get(game)))
    pol = _policy(game)
    base = _frame(game, pol, level=level)
    changed = 0
    knobs = len(tunable_knobs(g.knobs))
    for move in _moves(game)[:max(knobs, 3)]:
        (key, value), = move.items()
        spec = ",".join([f"{pol}:{key}={str(value).lower()}"] * players)
        seats = _frame(game, spec, level=level)
        run = _frame(game, pol, params=move, level=level)
        assert_frame_equal(seats, run)
        changed += not seats.equals(base)
    assert changed > 0, f"{game}: no heuristic knob move changed {N} deals"


@pytest.mark.parametrize("game", SEAT_GAMES)
def test_a_seat_value_is_that_seats_only(game: str) -> None:
    """One seat with other values: the frame differs from both uniform runs (the seat's
    values are used, and only by it) for some move of a heuristic knob."""
    g = get_game(game)
    players = g.players(g.make_knobs(VARIANT.get(game)))
    pol = _policy(game)
    base = _frame(game, pol)
    seat_only = []
    for move in _moves(game)[:6]:
        (key, value), = move.items()
        spec = ",".join([f"{pol}:{key}={str(value).lower()}"] + [pol] * (players - 1))
        one = _frame(game, spec)
        every = _frame(game, pol, params=move)
        seat_only.append(not one.equals(base) and not one.equals(every))
        if seat_only[-1]:
            break
    assert any(seat_only), f"{game}: no move at seat 0 alone differs from both uniform runs"


def test_bad_specs_are_one_line_errors() -> None:
    with pytest.raises(SimlabError, match="is a rule, the same for every seat"):
        simlab.simulate("belote", 5, policies="heuristic:dix_de_der=20")
    with pytest.raises(SimlabError, match="out of range"):
        simlab.simulate("belote", 5, policies="heuristic:take_threshold_1=99")
    with pytest.raises(SimlabError, match="is unknown; policy knobs of belote"):
        simlab.simulate("belote", 5, policies="heuristic:foo=1")


def test_every_game_has_per_seat_policy_knobs() -> None:
    assert SEAT_GAMES == game_names()


def test_belote_a_seat_threshold_is_its_own() -> None:
    """Belote: a seat that takes from trump strength 0 takes every deal in which it speaks
    first (dealer 3: seat 0 speaks first); the field, at its threshold, does not."""
    spec = "heuristic:take_threshold_1=0,heuristic,heuristic,heuristic"
    f = simlab.simulate("belote", 400, seed=3, policies=spec)
    first = f.filter(f["dealer"] == 3)
    assert (first["taker"] == 0).all()
    field = f.filter(f["dealer"] == 0)  # seat 1 speaks first and plays the field's values
    assert not (field["taker"] == 1).all()
