"""The colours of the XXL deck's halves: the catalogue's reconstruction, generated
alternatives, a colouring read from a file, and the constraints every one must satisfy.

The seed (``002_f79cc30b1abb5c3a.txt``, "Tuyau") says only: numbers 0..10 in four colours,
every combination of two numbers exists once, each card shows two different numbers in two
different colours. It never prints the whole deck: six cards are quoted (Y7/R0, B4/Y7,
R6/G0, G0/R2, G1/R2, G2/B5). The catalogue (``xxl_*.md``) reconstructs a colouring
("reconstruction v1") meeting a list of constraints; every colour-dependent figure of the
XXL reports depends on that table, so this module also draws *other* colourings meeting
the same constraints, for a sensitivity range.

A colouring is an int64 matrix ``colour[v, w]`` (11 x 11): the colour of the number ``v``
on the card {v, w}; the diagonal is -1. Colours: 0 = R (rouge), 1 = Y (jaune),
2 = B (bleu), 3 = G (vert).

The ``deck_colouring`` knob value (:func:`parse_colouring`):

* ``v1`` — the catalogue's table (the default);
* ``random:K`` (K = 0, 1, ...) — the K-th colouring drawn by a seeded min-conflicts
  search (simulated annealing from a random start, keyed by K) over colourings meeting
  every constraint of :func:`violations`. Each K gives one fixed colouring on every
  machine; the draws are not uniform over the set of valid colourings (nobody knows its
  size), they are a spread of valid ones;
* ``file:PATH`` — 55 cards written as in the catalogue's list (``R0/G1``; a trailing
  ``(total)`` is ignored), separated by commas, spaces or new lines; refused in one line
  if it breaks a constraint.

May import: the engine only (``simlab.engine.knobs`` for ``SimlabError``).
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

import numpy as np

from simlab.engine.knobs import SimlabError, check_path

COLOURS = ("R", "Y", "B", "G")
COLOUR_NAMES = ("rouge", "jaune", "bleu", "vert")
R, Y, B, G = 0, 1, 2, 3
NUMBERS = 11  # 0..10

# The catalogue's reconstruction v1 (xxl_montees_descentes.md, "Reconstructed deck"):
# row v, column w = colour of number v on the card {v, w}.
_V1_TEXT = """
. R G R B Y G R G B Y
G . G R B B G B R Y Y
R R . B B G R G B Y Y
B Y G . G B G R R R Y
Y R G R . G B B B Y Y
R Y B Y B . Y G R R G
R B B Y R B . G Y G R
Y G B B Y R Y . G B R
Y B Y G R G R B . R Y
G G R Y G Y Y R B . B
B B B R G Y Y G G R .
"""

# The constraints the catalogue lists for its reconstruction (each one checked by
# :func:`violations`). Only the six quoted cards and "two different colours per card" come
# from the seed; the count constraints are the catalogue's choices (a balanced deck where
# every colour-number half exists 2 or 3 times, as the tie-break rules assume).
COLOUR_TOTALS = (28, 27, 28, 27)  # halves of R, Y, B, G
PAIR_TARGET = {(R, B): 10}  # cards whose two colours are {B, R}; every other pair: 9
OTHER_PAIR_TARGET = 9
# The six cards quoted in the seed: ((colour, number), (colour, number)).
QUOTED_CARDS = (
    ((Y, 7), (R, 0)),  # Montées et descentes' example, card A: "jaune 7 et rouge 0"
    ((B, 4), (Y, 7)),  # card B: "bleu 4 et jaune 7"
    ((R, 6), (G, 0)),  # À moins: "rouge 6 / vert 0"
    ((G, 0), (R, 2)),  # À moins: "vert 0 / rouge 2"
    ((G, 1), (R, 2)),  # Déterminer la couleur: "vert 1 / rouge 2"
    ((G, 2), (B, 5)),  # Déterminer la couleur: "vert 2, bleu 5"
)


def _v1() -> np.ndarray:
    rows = [line.split() for line in _V1_TEXT.strip().splitlines()]
    m = np.full((NUMBERS, NUMBERS), -1, dtype=np.int64)
    for v, row in enumerate(rows):
        for w, ch in enumerate(row):
            if ch != ".":
                m[v, w] = COLOURS.index(ch)
    return m


V1 = _v1()
V1.setflags(write=False)


def _pair_target(a: int, b: int) -> int:
    key = (min(a, b), max(a, b))
    return PAIR_TARGET.get(key, OTHER_PAIR_TARGET)


def violations(colour: np.ndarray) -> list[str]:
    """Every constraint ``colour`` breaks, one short sentence each (empty: valid)."""
    out: list[str] = []
    m = np.asarray(colour)
    if m.shape != (NUMBERS, NUMBERS):
        return [f"a colouring is an 11 x 11 table, got shape {m.shape}"]
    for v in range(NUMBERS):
        for w in range(v + 1, NUMBERS):
            a, b = int(m[v, w]), int(m[w, v])
            if not (0 <= a < 4 and 0 <= b < 4):
                out.append(f"card {{{v},{w}}} has no colour for a half")
            elif a == b:
                out.append(f"card {{{v},{w}}} has two {COLOURS[a]} halves (the seed: two "
                           "different colours per card)")
    if out:
        return out
    for v in range(NUMBERS):
        counts = sorted(int((m[v] == c).sum()) for c in range(4))
        if counts != [2, 2, 3, 3]:
            out.append(f"number {v} splits {counts} over the colours, not 3/3/2/2")
    totals = tuple(int((m == c).sum()) for c in range(4))
    if totals != COLOUR_TOTALS:
        out.append(f"colour totals R/Y/B/G are {totals}, not {COLOUR_TOTALS}")
    pairs: dict[tuple[int, int], int] = {}
    for v in range(NUMBERS):
        for w in range(v + 1, NUMBERS):
            a, b = int(m[v, w]), int(m[w, v])
            key = (min(a, b), max(a, b))
            pairs[key] = pairs.get(key, 0) + 1
    for a in range(4):
        for b in range(a + 1, 4):
            if pairs.get((a, b), 0) != _pair_target(a, b):
                out.append(f"{pairs.get((a, b), 0)} cards are {COLOURS[a]}+{COLOURS[b]}, "
                           f"not {_pair_target(a, b)}")
    for (c1, n1), (c2, n2) in QUOTED_CARDS:
        if m[n1, n2] != c1 or m[n2, n1] != c2:
            out.append(f"the seed's card {COLOURS[c1]}{n1}/{COLOURS[c2]}{n2} is missing")
    return out


# --- generated colourings --------------------------------------------------------------
_CARDS = [(v, w) for v in range(NUMBERS) for w in range(v + 1, NUMBERS)]
_FIXED = {}
for (_c1, _n1), (_c2, _n2) in QUOTED_CARDS:
    _FIXED[(min(_n1, _n2), max(_n1, _n2))] = (_c1, _c2) if _n1 < _n2 else (_c2, _c1)
_ORDERED_PAIRS = [(a, b) for a in range(4) for b in range(4) if a != b]


def _cost(lo: list[int], hi: list[int]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    cnt = np.zeros((NUMBERS, 4), dtype=np.int64)
    pair = np.zeros((4, 4), dtype=np.int64)
    for k, (v, w) in enumerate(_CARDS):
        cnt[v, lo[k]] += 1
        cnt[w, hi[k]] += 1
        a, b = min(lo[k], hi[k]), max(lo[k], hi[k])
        pair[a, b] += 1
    return _total_cost(cnt, pair), cnt, pair, cnt.sum(axis=0)


def _num_cost(x: int) -> int:
    return max(0, x - 3) + max(0, 2 - x)


def _total_cost(cnt: np.ndarray, pair: np.ndarray) -> int:
    c = sum(_num_cost(int(x)) for x in cnt.ravel())
    tot = cnt.sum(axis=0)
    c += sum(abs(int(tot[i]) - COLOUR_TOTALS[i]) for i in range(4))
    for a in range(4):
        for b in range(a + 1, 4):
            c += abs(int(pair[a, b]) - _pair_target(a, b))
    return c


def _search(k: int) -> np.ndarray:
    """The K-th generated colouring: simulated annealing from a random start (both keyed by
    ``k``), restarted with the next sub-seed until every constraint holds."""
    for attempt in range(1000):
        rnd = random.Random(f"xxl-colouring:{k}:{attempt}")
        lo: list[int] = []
        hi: list[int] = []
        for card in _CARDS:
            a, b = _FIXED.get(card) or rnd.choice(_ORDERED_PAIRS)
            lo.append(a)
            hi.append(b)
        cost, cnt, pair, _ = _cost(lo, hi)
        free = [i for i, card in enumerate(_CARDS) if card not in _FIXED]
        temp = 2.0
        for _step in range(60_000):
            if cost == 0:
                break
            i = rnd.choice(free)
            v, w = _CARDS[i]
            a0, b0 = lo[i], hi[i]
            a1, b1 = rnd.choice(_ORDERED_PAIRS)
            if (a1, b1) == (a0, b0):
                continue
            before = (_num_cost(int(cnt[v, a0])) + _num_cost(int(cnt[w, b0]))
                      + (_num_cost(int(cnt[v, a1])) if a1 != a0 else 0)
                      + (_num_cost(int(cnt[w, b1])) if b1 != b0 else 0))
            tot = cnt.sum(axis=0)
            before_g = sum(abs(int(tot[c]) - COLOUR_TOTALS[c]) for c in range(4))
            p0 = (min(a0, b0), max(a0, b0))
            p1 = (min(a1, b1), max(a1, b1))
            before_p = (abs(int(pair[p0]) - _pair_target(*p0))
                        + (abs(int(pair[p1]) - _pair_target(*p1)) if p1 != p0 else 0))
            cnt[v, a0] -= 1
            cnt[w, b0] -= 1
            cnt[v, a1] += 1
            cnt[w, b1] += 1
            pair[p0] -= 1
            pair[p1] += 1
            after = (_num_cost(int(cnt[v, a0])) + _num_cost(int(cnt[w, b0]))
                     + (_num_cost(int(cnt[v, a1])) if a1 != a0 else 0)
                     + (_num_cost(int(cnt[w, b1])) if b1 != b0 else 0))
            tot = cnt.sum(axis=0)
            after_g = sum(abs(int(tot[c]) - COLOUR_TOTALS[c]) for c in range(4))
            after_p = (abs(int(pair[p0]) - _pair_target(*p0))
                       + (abs(int(pair[p1]) - _pair_target(*p1)) if p1 != p0 else 0))
            delta = (after + after_g + after_p) - (before + before_g + before_p)
            if delta <= 0 or rnd.random() < np.exp(-delta / temp):
                lo[i], hi[i] = a1, b1
                cost += delta
            else:  # undo
                cnt[v, a1] -= 1
                cnt[w, b1] -= 1
                cnt[v, a0] += 1
                cnt[w, b0] += 1
                pair[p1] -= 1
                pair[p0] += 1
            temp = max(0.05, temp * 0.9995)
        if cost == 0:
            m = np.full((NUMBERS, NUMBERS), -1, dtype=np.int64)
            for i, (v, w) in enumerate(_CARDS):
                m[v, w] = lo[i]
                m[w, v] = hi[i]
            if not violations(m):
                return m
    raise RuntimeError(f"no valid colouring found for random:{k}")  # not seen in tests


@functools.lru_cache(maxsize=64)
def generated(k: int) -> np.ndarray:
    """The K-th generated colouring (``random:K``), read-only; the same on every machine."""
    m = _search(int(k))
    m.setflags(write=False)
    return m


# --- files and knob values -------------------------------------------------------------
_HALF = re.compile(r"^([RYBG])(\d{1,2})/([RYBG])(\d{1,2})(?:\(\d+\))?$")


def read_file(path: str) -> np.ndarray:
    """A colouring from a file of 55 cards ``R0/G1`` (catalogue list format); refused in
    one line when unreadable, malformed or breaking a constraint."""
    p = check_path(path, "colouring file")
    try:
        text = p.read_text(encoding="utf-8")[:100_000]
    except (OSError, UnicodeDecodeError) as e:
        raise SimlabError(f"colouring file {str(p)!r} cannot be read: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    tokens = [t for t in re.split(r"[\s,;]+", text) if t]
    m = np.full((NUMBERS, NUMBERS), -1, dtype=np.int64)
    seen = set()
    for t in tokens:
        found = _HALF.match(t)
        if not found:
            raise SimlabError(f"colouring file {str(p)!r}: {t[:30]!r} is not a card such as "
                              "R0/G1 (colours R Y B G, numbers 0..10)")
        c1, n1, c2, n2 = found[1], int(found[2]), found[3], int(found[4])
        if n1 > 10 or n2 > 10 or n1 == n2:
            raise SimlabError(f"colouring file {str(p)!r}: {t!r} needs two different "
                              "numbers 0..10")
        key = (min(n1, n2), max(n1, n2))
        if key in seen:
            raise SimlabError(f"colouring file {str(p)!r}: the card {{{key[0]},{key[1]}}} "
                              "appears twice")
        seen.add(key)
        m[n1, n2] = COLOURS.index(c1)
        m[n2, n1] = COLOURS.index(c2)
    if len(seen) != 55:
        raise SimlabError(f"colouring file {str(p)!r} lists {len(seen)} cards; the deck "
                          "has 55 (one per pair of numbers 0..10)")
    broken = violations(m)
    if broken:
        raise SimlabError(f"colouring file {str(p)!r} breaks a constraint: {broken[0]}"
                          + (f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""))
    m.setflags(write=False)
    return m


VALID_TEXT = "v1, random:K (K = 0, 1, ...) or file:PATH"
MAX_K = 1_000_000


def check_value(value: str) -> None:
    """Refuse an unknown ``deck_colouring`` value in one line (files are read later)."""
    if value == "v1" or value.startswith("file:") and len(value) > 5:
        return
    if value.startswith("random:"):
        k = value[len("random:"):]
        if k.isdigit() and int(k) <= MAX_K:
            return
    raise SimlabError(f"knob 'deck_colouring' has no value {value!r}; allowed: {VALID_TEXT}")


def parse_colouring(value: str) -> np.ndarray:
    """The colouring a ``deck_colouring`` knob value names (read-only 11 x 11 int64)."""
    check_value(value)
    if value == "v1":
        return V1
    if value.startswith("random:"):
        return generated(int(value[len("random:"):]))
    return _read_cached(value[len("file:"):], _mtime(value[len("file:"):]))


def _mtime(path: str) -> float:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return -1.0


@functools.lru_cache(maxsize=16)
def _read_cached(path: str, mtime: float) -> np.ndarray:
    return read_file(path)


def describe(value: str) -> str:
    """The words a report opens with: ``deck colouring: reconstruction v1``."""
    if value == "v1":
        return "reconstruction v1"
    if value.startswith("random:"):
        return f"generated colouring {value} (meets the catalogue's constraints)"
    return f"colouring read from {value[len('file:'):]}"


def card_text(colour: np.ndarray, v: int, w: int) -> str:
    """``"R0/G1(1)"``: the card {v, w}, lower number first, with its total."""
    a, b = min(v, w), max(v, w)
    return f"{COLOURS[colour[a, b]]}{a}/{COLOURS[colour[b, a]]}{b}({a + b})"
