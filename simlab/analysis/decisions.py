"""The decisions a game's players make, as the players' health checks and the report see
them: each label of the game's decision columns that a player chooses, and the game's own
declared decisions, with the note that says why one never (or always) taken is right."""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game

# Labelled columns whose every label is a decision kind of its own (a contract, a trump
# suit, a bid's strain or its double), unless the game names its own
# (``extra["decision_columns"]``): each label is checked never / always chosen among the
# rows where the column is set.
DECISION_COLUMNS = ("contract", "trump", "strain", "doubled")


def _imposed(game: Game, knobs) -> dict[str, dict[str, str]]:
    """Labels of decision columns that no player chooses, with why (the game's
    ``extra["imposed_labels"]``, {column: {label: why}}, or a function of the knobs
    returning it): Caisse's Misère Générale is played when everyone passes twice."""
    got = game.extra.get("imposed_labels") or {}
    return got(knobs) if callable(got) else got


def decision_kinds(game: Game, knobs, columns: list[str]) -> list[tuple[str, pl.Expr,
                                                                       pl.Expr | None, str]]:
    """Every decision kind the health checks look at, as (title, taken, among which rows,
    note): each label of the game's decision columns (``DECISION_COLUMNS``: "contract
    garde (rows with a contract)") but those no player chooses (``imposed_labels``),
    then the game's own ``extra["decisions"]`` (title, expr, where[, note]) triples. The
    note says why a kind never taken (or, starting "always: ", always taken) is right
    (measured: :func:`note_direction`); a game gives it as
    the fourth element of a declared decision or, for any kind, in
    ``extra["decision_notes"]`` (knobs -> {title: note})."""
    kinds_of = {c.name: c.kind for c in game.deal_columns(knobs)}
    declared = game.extra.get("decision_columns", DECISION_COLUMNS)
    named = declared(knobs) if callable(declared) else declared
    imposed = _imposed(game, knobs)
    out: list[tuple[str, pl.Expr, pl.Expr | None, str]] = []
    for column in named:
        labels = kinds_of.get(column)
        if column not in columns or not isinstance(labels, tuple):
            continue
        for label in labels:
            if label in imposed.get(column, {}):
                continue  # nobody chooses it: not a decision kind
            out.append((f"{column} {label} (rows with a {column})",
                        pl.col(column).cast(pl.String) == label,
                        pl.col(column).is_not_null(), ""))
    spec = game.extra.get("decisions")
    for title, expr, where, *note in (spec(knobs, columns) if spec is not None else []):
        out.append((title, expr, where, note[0] if note else ""))
    notes_of = game.extra.get("decision_notes")
    notes = notes_of(knobs) if callable(notes_of) else (notes_of or {})
    return [(t, e, w, notes.get(t, n)) for t, e, w, n in out]


def note_direction(note: str) -> tuple[str, str]:
    """Which extreme a decision kind's note explains, and its text: a note that starts
    with "always: " explains a kind always taken; any other explains one never taken (a
    "rare, not never" note must not excuse a run where the choice was always made)."""
    if note.startswith("always: "):
        return "always", note[len("always: "):]
    return "never", note
