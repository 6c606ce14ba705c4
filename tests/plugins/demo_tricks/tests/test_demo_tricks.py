"""Demo tricks: rules pinned by a hand-built position, the search player never peeks, the
search player beats random, rows independent of how a run is split."""

from __future__ import annotations

import numpy as np

from simlab_demo_tricks import GAME
from simlab_demo_tricks.players import choose
from simlab_demo_tricks.rules import (
    GameKnobs,
    apply,
    card,
    deal,
    is_over,
    legal_moves,
    outcome,
    position,
    sample_state,
    view,
)
from simlab_demo_tricks.runs import run_deals


def cards(*labels: str) -> set[int]:
    return {card(x) for x in labels}


def test_follow_suit_trumps_and_last_trick_bonus():
    knobs = GameKnobs(players=3, hand_size=2, trumps=True, last_trick_bonus=2)
    # dealer 2: seat 0 leads; the turned 7♥ makes ♥ trump
    state = position(knobs, [cards("A♠", "8♦"), cards("K♠", "9♥"), cards("8♥", "7♣")], 2,
                     turned=card("7♥"))
    assert state.to_play == 0 and state.trump == 1
    state = apply(state, card("A♠"))
    assert legal_moves(state) == [card("K♠")]  # seat 1 must follow ♠
    state = apply(state, card("K♠"))
    assert legal_moves(state) == sorted(cards("8♥", "7♣"))  # seat 2 is void in ♠: any card
    state = apply(state, card("8♥"))  # a trump takes the Ace
    assert state.winners == (2,) and state.to_play == 2
    state = apply(state, card("7♣"))
    assert legal_moves(state) == [card("8♦")]  # seat 0: no ♣, plays anything (one card left)
    state = apply(state, card("8♦"))
    state = apply(state, card("9♥"))  # seat 1 trumps the ♣ lead and wins the last trick
    assert is_over(state) and state.winners == (2, 1)
    assert outcome(state) == [0, 1 + 2, 1]


def test_no_trumps_highest_of_the_suit_led_wins():
    knobs = GameKnobs(players=2, hand_size=1, trumps=False, last_trick_bonus=0)
    state = position(knobs, [cards("7♠"), cards("A♥")], 1)
    state = apply(apply(state, card("7♠")), card("A♥"))
    assert state.winners == (0,) and outcome(state) == [1, 0]


def test_search_never_peeks():
    """Re-deal the cards the seat cannot see, consistently with its view: the search
    player's decision (same random stream) does not change."""
    knobs = GameKnobs()
    rng = np.random.default_rng(7)
    for trial in range(6):
        state = deal(knobs, np.random.default_rng([3, trial]), trial % knobs.players)
        for _ in range(int(rng.integers(0, 5))):  # a few cards into the deal
            state = apply(state, legal_moves(state)[0])
        seat = state.to_play
        mine = view(state, seat)
        decision = choose("search", mine, np.random.default_rng(11))
        for k in range(3):
            other = sample_state(mine, np.random.default_rng([99, trial, k]))
            assert view(other, seat) == mine
            assert choose("search", view(other, seat), np.random.default_rng(11)) == decision


def _edge(x: str, y: str, deals: int) -> tuple[float, float]:
    """X at one seat among Y seats minus Y at that seat, on the same deals, every seat in
    turn: mean and standard error of the seat's points difference."""
    knobs = GameKnobs()
    n = knobs.players
    diffs = []
    for seat in range(n):
        policies = [y] * n
        policies[seat] = x
        with_x = run_deals(knobs, tuple(policies), 5, 0, deals).rows
        with_y = run_deals(knobs, (y,) * n, 5, 0, deals).rows
        col = 6 + seat  # score_s{seat}
        diffs.append(with_x[:, col] - with_y[:, col])
    d = np.concatenate(diffs).astype(float)
    return d.mean(), d.std(ddof=1) / np.sqrt(d.size)


def test_search_beats_random():
    mean, se = _edge("search", "random", 80)
    assert mean - 3 * se > 0, (mean, se)


def test_heuristic_beats_random():
    mean, se = _edge("heuristic", "random", 200)
    assert mean - 3 * se > 0, (mean, se)


def test_rows_do_not_depend_on_the_split():
    assert GAME.slug == "demo_tricks" and GAME.policies == ("random", "heuristic", "search")
    knobs = GameKnobs()
    whole = run_deals(knobs, ("random",) * 3, 1, 0, 20).rows
    parts = np.vstack([run_deals(knobs, ("random",) * 3, 1, s, 5).rows for s in (0, 5, 10, 15)])
    assert (whole == parts).all()
