"""The shared searches (``simlab.mechanics.minimax``, ``simlab.mechanics.mcts``) on Nim,
whose value is known (the mover loses exactly when the piles' xor is 0), then on Le
cartawel: deeper minimax beats shallower, MCTS with 4x the iterations beats the smaller
budget, in colour-swapped pairs (a two-game match, each seat laying first once)."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest

from simlab.engine import stats
from simlab.games.cartawel import CartawelKnobs, run_matches
from simlab.mechanics.mcts import Mcts
from simlab.mechanics.minimax import WIN, Minimax


class Nim:
    """Normal-play Nim: take any number from one pile; taking the last object wins.
    A state is (piles, seat to move)."""

    def moves(self, state):
        piles, _ = state
        return [(i, t) for i, n in enumerate(piles) for t in range(1, n + 1)]

    def play(self, state, move):
        piles, seat = state
        i, t = move
        p = list(piles)
        p[i] -= t
        return tuple(p), 1 - seat

    def to_move(self, state):
        return state[1]

    def over(self, state):
        return sum(state[0]) == 0

    def result(self, state):
        # the player who moved last (not the one to move) took the last object
        return 1.0 if state[1] == 1 else -1.0

    def evaluate(self, state):
        return 0.0

    def key(self, state):
        return state

    def order(self, state, moves):
        return [0.0] * len(moves)

    def playout(self, state, rng):
        while not self.over(state):
            ms = self.moves(state)
            state = self.play(state, ms[rng.integers(len(ms))])
        return self.result(state)


def xor(piles) -> int:
    return reduce(lambda a, b: a ^ b, piles, 0)


def test_minimax_knows_every_nim_value() -> None:
    game = Nim()
    search = Minimax(game, depth=20)  # deeper than any game from (3, 4, 5)
    for a in range(4):
        for b in range(5):
            for c in range(6):
                piles = (a, b, c)
                if sum(piles) == 0:
                    continue
                for seat in (0, 1):
                    v = search.value((piles, seat))
                    mover_wins = xor(piles) != 0
                    seat0_wins = mover_wins == (seat == 0)
                    assert (v > WIN / 2) == seat0_wins and (v < -WIN / 2) == (not seat0_wins)


def test_minimax_transposition_table_does_not_change_values() -> None:
    game = Nim()
    shared = Minimax(game, depth=20)
    for piles in [(3, 4, 5), (1, 2, 3), (2, 2, 1), (0, 4, 4)]:
        for seat in (0, 1):
            assert np.sign(shared.value((piles, seat))) == np.sign(
                Minimax(game, depth=20).value((piles, seat)))
    assert shared.stats.tt_hits > 0


def test_minimax_plays_a_winning_nim_move() -> None:
    game = Nim()
    rng = np.random.default_rng(1)
    for piles in [(3, 4, 5), (1, 2, 4), (5, 1, 1)]:
        move = Minimax(game, depth=20).choose((piles, 0), rng)
        after = game.play((piles, 0), move)[0]
        assert xor(after) == 0, (piles, move)


def test_minimax_depth_cut_uses_the_evaluation() -> None:
    class Scored(Nim):
        def evaluate(self, state):
            return 0.5  # seat 0 thinks it is ahead everywhere

    v = Minimax(Scored(), depth=1).value(((3, 4, 5), 0))
    assert v == 0.5


def test_mcts_finds_the_winning_nim_move() -> None:
    game = Nim()
    rng = np.random.default_rng(7)
    for piles in [(1, 2, 4), (3, 4, 5), (0, 5, 3)]:
        move = Mcts(game, iterations=3000).choose((piles, 0), rng)
        after = game.play((piles, 0), move)[0]
        assert xor(after) == 0, (piles, move)


def test_mcts_takes_the_last_object_at_once() -> None:
    game = Nim()
    move = Mcts(game, iterations=50).choose(((0, 3, 0), 1), np.random.default_rng(0))
    assert move == (1, 3)


def _pairs(x: str, y: str, n: int, seed: int):
    """Seat 0 plays ``x``, seat 1 ``y``; each match is two games, each seat laying first
    once: x's mean result per game over the pair, with its interval."""
    rows = run_matches(CartawelKnobs(), (x, y), seed, 0, n).rows
    return stats.mean((rows[:, 3] - rows[:, 4]) / 2.0)


@pytest.mark.serial
def test_cartawel_minimax_depth_3_beats_depth_1() -> None:
    est = _pairs("minimax:minimax_depth=3", "minimax:minimax_depth=1", 6, 21)
    assert est.lo > 0, est


@pytest.mark.serial
def test_cartawel_mcts_4x_iterations_beats_the_smaller_budget() -> None:
    est = _pairs("mcts:mcts_iterations=60", "mcts:mcts_iterations=15", 8, 22)
    assert est.lo > 0, est
