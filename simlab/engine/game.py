"""The contract between a game module and the runner.

A game module builds one ``Game``: its knobs class, its policies, and two batch
functions that call its numba kernels:

* ``run_deals(knobs, policies, seed, start, count, record_hands) -> KernelOutput``:
  deals ``start .. start+count-1``, each independent (dealer = deal index mod players);
* ``run_matches(knobs, policies, seed, start, count) -> KernelOutput``: whole matches.

A kernel returns an int64 matrix, one row per deal or match, whose columns are described
by ``Column`` specs; ``to_frame`` turns it into a typed polars DataFrame. Keeping the
kernels' output a plain matrix keeps them simple and the conversion shared.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simlab.engine.decks import Deck
from simlab.engine.knobs import Knobs, SimlabError, did_you_mean
from simlab.engine.seatknobs import check_overrides, policy_name, seat_vectors, split_policy

INT, BOOL, OPT_BOOL = "int", "bool", "opt_bool"
WIDE_COLUMNS = frozenset({"deal", "match"})  # row indices reach 1e11: Int64


@dataclass(frozen=True)
class Column:
    """One output column. ``kind`` is INT, BOOL (0/1), OPT_BOOL (-1 = null) or a tuple of
    labels (the int is an index into it; -1 = null)."""

    name: str
    kind: str | tuple[str, ...] = INT
    help: str = ""


@dataclass
class KernelOutput:
    rows: np.ndarray  # int64 [count, len(columns)]
    dealt: np.ndarray | None = None  # int64 [count, players, k] card ids, -1 = none
    hands: np.ndarray | None = None  # int64 [count, players, k] card ids, -1 = none


@dataclass(frozen=True)
class Sides:
    """Who plays with whom in each deal, which deals are played, and what decides a deal.

    ``side``: per seat, its side id, either an int (the same in every deal: fixed teams,
    or every seat alone) or a polars expression giving it per row (Tarot: the taker's
    side against the defence). ``played``: the rows that are played deals, i.e. not
    thrown in, annulled or void (its complement is reported as "deals left out of the side win rates").
    ``value``: per seat, what sides compare (default ``score_s{i}``); a side's value is
    the mean over its seats, and a side wins a deal when its value beats every other
    side's (higher wins, or lower with ``lower_wins``); no such side = a tie.
    ``ids``: the ids a per-row ``side`` can take (default: 0 .. players - 1), which keeps
    the comparison one per pair of sides rather than per pair of seats.
    ``text`` says how sides are formed and ``unplayed`` what the unplayed deals are (empty:
    every deal is played), both for notes."""

    side: tuple[int | pl.Expr, ...]
    played: pl.Expr
    value: tuple[pl.Expr, ...] | None = None
    lower_wins: bool = False
    ids: tuple[int, ...] = ()
    text: str = ""
    unplayed: str = ""

    @property
    def fixed(self) -> bool:
        """The same sides in every deal (no expression among ``side``)."""
        return all(isinstance(s, int) for s in self.side)


def fixed_sides(teams: tuple[int, ...], played: pl.Expr, **kw) -> Sides:
    """Fixed teams: partners share a team number (every seat alone: ``range(n)``)."""
    return Sides(tuple(int(t) for t in teams), played, **kw)


def taker_sides(n: int, played: pl.Expr, partner: str | None = None, **kw) -> Sides:
    """The taker (column ``taker``) and, when ``partner`` names a column, the seat in it
    (side 0) against everybody else (side 1); the partner column holds -1 when the taker
    plays alone."""
    on_attack = [pl.col("taker") == i for i in range(n)]
    if partner is not None:
        on_attack = [a | (pl.col(partner) == i) for i, a in enumerate(on_attack)]
    return Sides(tuple(pl.when(a).then(0).otherwise(1) for a in on_attack), played,
                 ids=(0, 1), **kw)


def kernel_entries(deals_kernel: Callable, matches_kernel: Callable,
                   kernel_args: Callable[[Knobs], tuple],
                   seat_vector: Callable[[Knobs], np.ndarray] | None = None
                   ) -> tuple[Callable, Callable]:
    """``run_deals`` and ``run_matches`` for a game whose kernels take ``(seed, start,
    count, policy codes, *kernel_args(knobs))`` (deals: then ``record_hands``) and whose
    deals kernel returns ``(rows, dealt, hands)``; the entry points every game needs,
    written once. With ``seat_vector`` (knobs -> the vector its players read), the kernels
    take each seat's vector (``simlab.engine.seatknobs``) right after the policy codes."""

    def head(knobs: Knobs, policies: tuple[str, ...]) -> tuple:
        codes = policy_codes(policies)
        if seat_vector is None:
            return (codes,)
        return codes, seat_vectors(knobs, policies, seat_vector)

    def run_deals(knobs: Knobs, policies: tuple[str, ...], seed: int, start: int, count: int,
                  record_hands: bool = False) -> KernelOutput:
        rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, *head(knobs, policies),
                                          *kernel_args(knobs), record_hands)
        if not record_hands:
            return KernelOutput(rows)
        return KernelOutput(rows, dealt=dealt, hands=hands)

    def run_matches(knobs: Knobs, policies: tuple[str, ...], seed: int, start: int,
                    count: int) -> KernelOutput:
        return KernelOutput(matches_kernel(np.uint64(seed), start, count,
                                           *head(knobs, policies), *kernel_args(knobs)))

    return run_deals, run_matches


# Every policy name simlab knows, in kernel-code order; a game lists the ones it has.
POLICIES = ("random", "heuristic", "search")
RANDOM, HEURISTIC, SEARCH = 0, 1, 2


@dataclass(frozen=True)
class Game:
    slug: str
    title: str
    description: str
    deck: Deck
    knobs: type[Knobs]
    players: Callable[[Knobs], int]
    deal_columns: Callable[[Knobs], list[Column]]
    match_columns: Callable[[Knobs], list[Column]]
    run_deals: Callable[..., KernelOutput]
    run_matches: Callable[..., KernelOutput]
    policies: tuple[str, ...] = ("random", "heuristic")  # games with a search player add "search"
    players_text: str = ""
    # side of each seat (partners share a number); None: every seat plays for itself
    teams: Callable[[Knobs], tuple[int, ...]] | None = None
    # score_s{i} is a penalty (rummy games): the lowest score wins a deal
    lower_score_wins: bool = False
    # who plays with whom in each deal and which deals are played (the standard deal
    # metrics count the winning side over played deals); None: ``teams`` (or every seat
    # alone) compared on score_s{i}, every deal played
    sides: Callable[[Knobs], Sides] | None = None
    # game-specific hooks, all optional: "metrics" (its catalogue questions), "hand_strength"
    # and "hand_strength_text" (simlab.analysis.players_check), "decisions" (choices a player may
    # or may not take), "forced_taker" (the rules always make somebody take),
    # "score_unit" (what score_s{i} counts, default "points")
    extra: dict = field(default_factory=dict)
    # its kernels take one knob vector per seat, so a policy spec may set policy knobs
    # for one seat ("heuristic:take_threshold_1=5", simlab.engine.seatknobs; simlab tune)
    seat_policy_knobs: bool = False

    def make_knobs(self, values: dict | None = None) -> Knobs:
        return self.knobs.from_mapping(dict(values or {}), game=self.slug)


def parse_policies(spec: str | list[str] | tuple[str, ...], game: Game, n_players: int
                   ) -> tuple[str, ...]:
    """``"heuristic"`` (every seat) or one per seat, comma separated; each a policy name,
    optionally with policy-knob values for that seat (``"heuristic:take_threshold_1=5"``,
    games with ``seat_policy_knobs``)."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [s.strip() for s in names]
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise SimlabError(f"--policy needs 1 or {n_players} comma-separated names for "
                          f"{game.slug}, got {len(names)}")
    for s in names:
        name, values = split_policy(s)
        if name not in game.policies:
            raise SimlabError(f"unknown policy {name!r}{did_you_mean(name, game.policies)}; "
                              f"valid policies: {', '.join(game.policies)}")
        if values:
            if not game.seat_policy_knobs:
                have = ", ".join(g for g in _seat_knob_games()) or "none yet"
                raise SimlabError(f"per-seat policy knobs ({s!r}) are not available for "
                                  f"{game.slug}; games that have them: {have}")
            check_overrides(s, game.knobs, game.slug)
    return tuple(names)


def _no_registry() -> list[str]:
    return []


# The games whose players take per-seat knobs, for an error message: the registry
# (``simlab.games``, a layer above) sets it when it loads; the engine never imports it.
seat_knob_games: Callable[[], list[str]] = _no_registry


def _seat_knob_games() -> list[str]:
    return seat_knob_games()


def registered_package(g: Game) -> str | None:
    """The loaded package whose ``GAME`` is ``g`` (``"simlab.games.belote"``), None for a
    game defined elsewhere (a test's, a plug-in's). A worker re-imports the package rather
    than receive the Game (which holds lambdas) through a pipe."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("simlab.games.") and getattr(module, "GAME", None) is g:
            return name
    return None


def as_game(game: Game) -> Game:
    """``game`` itself; a slug here is refused: the command line and ``simlab``'s front
    door (``simlab.simulate`` & co.) resolve a slug once, everything below takes the value."""
    if isinstance(game, Game):
        return game
    raise TypeError(f"expected a Game, got {game!r}: resolve a slug once at the boundary, "
                    "e.g. simlab.get_game('belote'), and pass the Game down")


def game_from_ref(ref: str | Game) -> Game:
    """The Game a ``game_ref`` names: itself, or its package's ``GAME``."""
    if isinstance(ref, str):
        import importlib

        return importlib.import_module(ref).GAME
    return ref


def policy_codes(names: tuple[str, ...]) -> np.ndarray:
    return np.array([POLICIES.index(policy_name(s)) for s in names], dtype=np.int64)


def to_frame(out: KernelOutput, columns: list[Column], labels: tuple[str, ...],
             n_players: int) -> pl.DataFrame:
    """Typed polars frame from a kernel's int matrix (and recorded hands)."""
    cols = np.ascontiguousarray(out.rows.T)  # one pass; every column is then contiguous
    lo = cols.min(axis=1) if cols.shape[1] else np.zeros(len(columns), dtype=np.int64)
    hi = cols.max(axis=1) if cols.shape[1] else np.zeros(len(columns), dtype=np.int64)
    data: dict[str, pl.Series] = {}
    for j, col in enumerate(columns):
        v = cols[j]
        if col.kind == INT:
            # The type is fixed per column, never chosen from a chunk's values, so every
            # chunk of a run has the same schema: row indices are Int64, the rest Int32
            # (knob bounds keep scores far inside it; crossing it is a defect, not data).
            if col.name in WIDE_COLUMNS:
                s = pl.Series(col.name, v)
            else:
                if lo[j] < -(2**31) or hi[j] >= 2**31:
                    raise OverflowError(f"column {col.name!r} holds {lo[j] if lo[j] < -(2**31) else hi[j]}, "
                                        "outside Int32: a knob's bounds let a value overflow")
                s = pl.Series(col.name, v.astype(np.int32))
        elif col.kind == BOOL:
            s = pl.Series(col.name, v != 0, dtype=pl.Boolean)
        elif col.kind == OPT_BOOL:
            s = pl.Series(col.name, v > 0, dtype=pl.Boolean)
            if lo[j] < 0:
                s = s.scatter(np.flatnonzero(v < 0), None)
        else:
            s = _labelled(col.name, v, col.kind)
        data[col.name] = s
    frame = pl.DataFrame(data)
    for prefix, arr in (("dealt", out.dealt), ("hand", out.hands)):
        if arr is not None:
            for p in range(n_players):
                frame = frame.with_columns(_card_lists(f"{prefix}_s{p}", arr[:, p, :], labels))
    return frame


@functools.lru_cache(maxsize=64)
def _enum(labels: tuple[str, ...]) -> tuple[pl.Series, np.ndarray]:
    """An Enum series of the distinct labels followed by a null, and the index of each
    label in it (multi-pack decks repeat labels)."""
    distinct = list(dict.fromkeys(labels))
    table = pl.Series(distinct + [None], dtype=pl.String).cast(pl.Enum(distinct))
    index = np.array([distinct.index(x) for x in labels] + [len(distinct)], dtype=np.int64)
    return table, index


def _labelled(name: str, codes: np.ndarray, labels: tuple[str, ...]) -> pl.Series:
    table, index = _enum(labels)
    return table.gather(index[codes]).alias(name)  # code -1 picks the trailing null


def _card_lists(name: str, cards: np.ndarray, labels: tuple[str, ...]) -> pl.Series:
    """[count, k] card ids (-1 padding) -> list[str] column; a row of only -1 is null."""
    count, k = cards.shape
    table = pl.Series("c", list(labels) + [None], dtype=pl.String)
    flat = np.where(cards < 0, len(labels), cards).reshape(-1)
    strings = table.gather(flat)
    lists = pl.Series(name, strings).reshape((count, k)).arr.to_list() if k else None
    lists = pl.select(lists.list.drop_nulls()).to_series()
    empty = (cards < 0).all(axis=1)
    return pl.select(pl.when(pl.lit(pl.Series(~empty))).then(lists)).to_series().alias(name)
