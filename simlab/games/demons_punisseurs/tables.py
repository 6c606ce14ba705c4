"""Démons punisseurs: the heuristic's table of chances, the distribution of a random
seat's best Pareil and best Suite (``PAREIL_BELOW[v]``: per mille of seats whose best
Pareil is worse than value ``v``, values as in ``rules.pareil_value``; ``SUITE_BELOW``
likewise), measured on 200,000 default deals (600,000 seats, before any swap) by
``generate()`` and written here so that no run pays for it.

May import: ``simlab.engine.*``, this game's ``rules``.
"""

from __future__ import annotations

import numpy as np

PAREIL_BELOW = np.array([
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 10, 19, 32, 37, 42, 60,
    112, 115, 148, 189, 238, 253, 272, 327, 460, 463, 510, 562, 618, 634, 655, 708,
    824, 825, 847, 872, 898, 905, 913, 933, 974, 974, 978, 983, 988, 989, 990, 993,
    999, 999, 999, 999, 999, 1000, 1000, 1000, 1000], dtype=np.int64)
SUITE_BELOW = np.array([
    0, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 23, 34,
    46, 52, 60, 66, 120, 120, 120, 135, 184, 221, 247, 271, 395, 395, 395, 395, 421,
    486, 537, 585, 724, 724, 724, 724, 724, 747, 791, 831, 933, 933, 933, 933, 933,
    933, 942, 958, 994, 994, 994, 994, 994, 994, 994, 995, 1000], dtype=np.int64)


def generate(n: int = 200_000, seed: int = 7) -> tuple[list[int], list[int]]:
    """Recompute the two tables (``python -c "from simlab.games.demons_punisseurs.tables
    import generate; print(generate())"``)."""
    from simlab.games.demons_punisseurs.rules import (
        N_CARDS,
        N_STATE,
        DemonsPunisseursKnobs,
        _vector,
        deal,
        pareil_value,
        suite_value,
    )

    kv = _vector(DemonsPunisseursKnobs())
    r = np.random.default_rng(seed)
    state = np.zeros(N_STATE, dtype=np.int64)
    dealt = np.zeros((3, 7), dtype=np.int64)
    counts = np.zeros((2, 65), dtype=np.int64)
    for i in range(n):
        deck = r.permutation(N_CARDS).astype(np.int64)
        deal(state, deck, i % 3, kv, dealt)
        for p in range(3):
            counts[0, pareil_value(state, p)] += 1
            counts[1, suite_value(state, p)] += 1
    below = np.zeros((2, 65), dtype=np.int64)
    total = counts.sum(axis=1)
    for k in range(2):
        acc = 0
        for v in range(65):
            below[k, v] = round(1000 * acc / total[k])
            acc += counts[k, v]
    return below[0].tolist(), below[1].tolist()
