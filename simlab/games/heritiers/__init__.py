"""Les Héritiers (seed 000 "Les Héritiers", lines 1976-2191; catalogue ``heritiers.md``):
the section is a word-for-word copy of Démons (a ``diff`` shows only typography: four
"*Diab*le" markup splits, three "Démons" plurals, one accent, blank lines), so the real
rules of Les Héritiers are missing from the seed.

Where things are: everything is the Démons engine (``simlab.games.demons``: rules,
players, kernels, questions); this package only registers it under its own slug, so the
two can diverge if the real text arrives. No rule differs, hence no knob of its own: the
catalogue's meta-knob ``alias_of = demons`` is this module. The same seed gives identical
rows to ``demons`` (``tests/test_heritiers.py``).

May import: simlab.engine.*, simlab.games.demons.
"""

from __future__ import annotations

from simlab.games.demons import DESCRIPTION, make_game

ALIAS_OF = "demons"
ALIAS_NOTE = ("Les Héritiers is simulated by the Démons engine: its seed section is a "
              "word-for-word copy of Démons (typography aside), so the same seed gives "
              "identical rows to demons, and any difference between the two reports would be "
              "an engine bug; the real rules of Les Héritiers are not in the seed")


def exact_findings(knobs) -> list[tuple[str, str]]:
    """The report states the alias first."""
    return [("0. Not independently specified", ALIAS_NOTE)]


GAME = make_game(
    "heritiers", "Les Héritiers",
    DESCRIPTION + " (the seed's Les Héritiers section is a copy of Démons: same engine)",
    extra={"exact_findings": exact_findings, "alias_of": ALIAS_OF},
)
