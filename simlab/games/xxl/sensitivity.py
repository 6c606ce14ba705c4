"""Sensitivity of a headline figure to the (unknown) colouring of the XXL deck.

The seed never prints the deck's colours; the reports use the catalogue's reconstruction
("reconstruction v1", :mod:`simlab.games.xxl.colouring`). :func:`colouring_range` plays
the same deals (card ids do not depend on colours, so the same seed deals the same
numbers to the same seats) under v1 and under K generated colourings ``random:0`` ..
``random:K-1``, and reports the figure under v1 with the range [min, max] over the
generated ones: how far the answer could move if the real deck's colours differ from
the reconstruction, among decks meeting the same constraints. A figure that does not
read colours at all (a deal frequency of numbers) is "colour-free": its range is a point.

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from simlab.engine.game import Game, to_frame
from simlab.games.xxl.colouring import describe

DEFAULT_K = 8
RANGE_TEXT = ("deck colouring: {which} (the seed never prints the deck's colours; the "
              "catalogue's table, reconstruction v1, meets the seed's six quoted cards and "
              "its balance constraints). A \"colouring range\" is a figure under v1 and "
              "its [min, max] over {k} other colourings meeting the same constraints "
              "(random:0..random:{km1}), played on the same deals: how far the answer could "
              "move if the real deck's colours differ; figures marked colour-free do not "
              "depend on the colours.")


def range_text(k: int = DEFAULT_K, value: str = "v1") -> str:
    """The sentence every XXL report opens with (``value``: the run's ``deck_colouring``)."""
    return RANGE_TEXT.format(which=describe(value), k=k, km1=k - 1)


@dataclass(frozen=True)
class ColouringRange:
    v1: float
    values: tuple[float, ...]  # under random:0 .. random:K-1

    @property
    def lo(self) -> float:
        return min(self.values)

    @property
    def hi(self) -> float:
        return max(self.values)

    def text(self, fmt: str = "{:.3f}") -> str:
        return (f"{fmt.format(self.v1)} under v1, {fmt.format(self.lo)} .. "
                f"{fmt.format(self.hi)} over {len(self.values)} generated colourings")


def colouring_range(game: Game, knobs, metric: Callable[[pl.DataFrame], float],
                    policies: tuple[str, ...] | None = None, n: int = 4000,
                    seed: int = 1, k: int = DEFAULT_K) -> ColouringRange:
    """``metric`` (deal rows -> a number) under the knobs' v1 colouring and over ``k``
    generated colourings, each on deals 0 .. n-1 of ``seed`` (heuristic players unless
    ``policies`` says otherwise). ``knobs`` must have a ``deck_colouring`` field."""
    n_players = game.players(knobs)
    pol = policies or ("heuristic",) * n_players
    cols = game.deal_columns(knobs)

    def run(value: str) -> float:
        kk = dataclasses.replace(knobs, deck_colouring=value)
        out = game.run_deals(kk, pol, seed, 0, n)
        return float(metric(to_frame(out, cols, game.deck.labels, n_players)))

    return ColouringRange(run("v1"), tuple(run(f"random:{i}") for i in range(k)))
