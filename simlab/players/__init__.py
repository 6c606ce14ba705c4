"""Player kinds that work on any game through its ``Game`` value.

Duplicate play (``duel``: two policies on the same deals with seats swapped) and tuning a
policy's knobs by duplicate play (``tune``). The search player's in-kernel pieces are a
mechanism (``simlab.mechanics.search``): a game's kernel calls them by name, as numba
needs (a jitted function handed another one as an argument recompiles in every process),
and each game's ``players.py`` holds its short search loop beside its heuristic.

May import: games, mechanics and the engine — never the analysis or the command line.
"""
