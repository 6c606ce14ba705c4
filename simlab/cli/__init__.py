"""The command line: one module per command group, the only layer that reads what a user
typed. It turns a slug, knobs and a variant file into one ``Game`` value and a plan at the
boundary; everything below takes those values.

``common`` (argument types, tables, output width), ``commands`` (the parser, ``run``,
``report``, ``params``, ``games``, ``bench`` and the others that run a game), ``analysis``
(``how-often``, ``duel``, ``tune``, ``compare``, ``sweep``, ``check``, ``experiment``),
``experiment`` (experiment files).

May import: every layer below (analysis, players, games, mechanics, engine).
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """``simlab`` with ``argv`` (``simlab.cli.commands.main``; ``from simlab.cli import main`` as before)."""
    from simlab.cli.commands import main as _main

    return _main(argv)
