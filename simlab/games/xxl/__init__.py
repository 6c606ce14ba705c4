"""The XXL deck, shared by the six XXL games (seed ``002_f79cc30b1abb5c3a.txt``, Abacus
1996; catalogue ``xxl_*.md``). Not a game itself: no ``GAME`` here.

Where things are:

* ``colouring.py`` — the colour tables: ``V1`` (the catalogue's "reconstruction v1"),
  ``generated(k)`` (``random:K``), ``read_file`` (``file:PATH``), ``violations`` (the
  constraints), ``parse_colouring(value)`` for the ``deck_colouring`` knob,
  ``describe(value)`` for reports, and ``colouring_knob()`` below for a game's knobs.
* ``deck.py`` — the 55 cards {a, b}: ``card_id``, ``PAIRS``, ``DECK`` (the runner's labels),
  ``tables(colour)`` -> (num, col, total, holders, colour_num) kernel tables, ``labels``,
  ``parse_card("Y7/R0", colour)``, ``mask_of``. Hands are uint64 bit masks of card ids.
* ``dealing.py`` — exact dealing frequencies (hypergeometric) for tests and reports.
* ``sensitivity.py`` — ``colouring_range(game, knobs, metric)``: a figure under v1 and its
  [min, max] over K generated colourings on the same deals; ``range_text()`` is the
  sentence each XXL report opens with.

Using it in a game (``simlab/games/xxl_<slug>/rules.py``)::

    from simlab.games.xxl import colouring_knob
    from simlab.games.xxl.deck import DECK, tables_for
    @dataclass(frozen=True)
    class MyKnobs(Knobs):
        deck_colouring: str = colouring_knob()
        def check(self): check_colouring(self.deck_colouring)   # one line, exit 2
    num, col, total, holders, colour_num = tables_for(knobs.deck_colouring)

May import: the engine only.
"""

from __future__ import annotations

from simlab.engine.knobs import knob
from simlab.games.xxl.colouring import VALID_TEXT, check_value, parse_colouring


def colouring_knob() -> str:
    """The ``deck_colouring`` knob field (default ``v1``)."""
    return knob("v1", "colours of the deck's halves (the seed never prints them): v1 = the "
                f"catalogue's reconstruction; {VALID_TEXT}")


def check_colouring(value: str) -> None:
    """Refuse an unknown value, or a file breaking a constraint, in one line
    (``SimlabError``); call it from the knobs' ``check``."""
    check_value(value)
    parse_colouring(value)
