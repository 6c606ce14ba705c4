"""Loba rules, read like the rulebook (seed 000 "Loba"; catalogue ``loba.md``).

May import: simlab.engine.*, simlab.mechanics.*.

Where things are in this package:

* ``rules.py`` (this file): the 108-card pack and penalty values, knobs, the six rounds
  ("mènes") and their first melds, the state of a round and its moves (draw, first meld,
  new melds, lay-offs with the Joker shift, discard), stock exhaustion, scoring.
* ``players.py``: random, heuristic and search players; what a seat sees; worlds.
* ``kernels.py``: result columns, the round and match kernels, the runner's entry points.
* ``questions.py``: the catalogue's balance questions.

Cards: the "108" deck (``simlab.engine.decks``), physical id ``(suit * 13 + r) * 2 + copy``
for the naturals (``r = 0..12`` for 2..K, A) and 104..107 for the Jokers. Inside a round a
card is its *kind* (``id // 2``, Jokers ``JOKER_KIND`` = 52) and a hand is a count vector
over kinds (``simlab.mechanics.melds`` multi-pack section): two copies of a card are the
same card for every rule.

A round: the dealer deals 11 cards each, turns the stock's top card to start the discard
pile, and the player on his left starts. A turn: draw (stock or discard pile), then
either the first meld (exactly the round's requirement, nothing extra) or, once melded on
an earlier turn, new sets / sequences and lay-offs on any meld, then a discard. The round
ends when a hand is empty; the others pay the penalty of their cards (A 1, 2-10 face, J
11, Q 12, K 13, Joker 25). A match is the six rounds; the lowest total wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import get_deck
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics.melds import (
    ACE,
    JOKER_KIND,
    MAX_REQ,
    N_NAT,
    N_PF,
    N_RANKS,
    N_T,
    P_HI,
    P_JPOS,
    P_KEY,
    P_KIND,
    P_LO,
    P_NJ,
    SEQ,
    SET,
    T_HI,
    T_JPOS,
    T_KEY,
    T_KIND,
    T_LO,
    T_N,
    T_NJ,
    add_multi,
    card_at,
    fits_multi,
    req_cover,
)

DECK = get_deck("108")
N_KINDS = 53
MAX_CARDS = 108
MAX_PLAYERS = 5
MAX_TABLE = 40  # melds on the table (108 cards / 3 is the ceiling)
REQ_DEFAULT = "SS SR RR SSS SSR SRR"  # the seed's table: S = brelan (3), R = quarte (4)


def kind_of(card_id: int) -> int:
    """The kind (0..51 natural, 52 Joker) of physical card ``card_id`` of the 108 pack."""
    return card_id // 2 if card_id < 104 else JOKER_KIND


def penalty_table(joker_penalty: int) -> np.ndarray:
    """Penalty of each kind: 2..10 face value, J 11, Q 12, K 13, A 1, Joker ``joker_penalty``."""
    v = np.zeros(N_KINDS, dtype=np.int64)
    for c in range(N_NAT):
        r = c % N_RANKS
        v[c] = 1 if r == ACE else r + 2
    v[JOKER_KIND] = joker_penalty
    return v


def parse_requirements(text: str) -> list[tuple[int, int]]:
    """``"SS SR RR ..."`` -> [(sets, runs), ...] per round; raises SimlabError."""
    words = text.split()
    if not 1 <= len(words) <= 12:
        raise SimlabError(f"requirements={text!r}: give 1 to 12 rounds separated by spaces, "
                          f"each a word of S (set of three) and R (run of four), e.g. "
                          f"'{REQ_DEFAULT}'")
    out = []
    for w in words:
        if not w or set(w.upper()) - {"S", "R"}:
            raise SimlabError(f"requirements={text!r}: {w!r} is not made of S (set of "
                              f"three) and R (run of four); e.g. '{REQ_DEFAULT}'")
        s, r = w.upper().count("S"), w.upper().count("R")
        if s > 4 or r > 3 or 3 * s + 4 * r > 12:
            raise SimlabError(f"requirements={text!r}: {w!r} needs at most 4 S, 3 R and "
                              "12 cards in all")
        out.append((s, r))
    return out




@dataclass(frozen=True)
class LobaKnobs(Knobs):
    players: int = knob(3, "number of players ('pour 3 à 5 personnes'; 3, the booklet's "
                        "section, by default: catalogue #1)", lo=3, hi=5)
    hand_size: int = knob(11, "cards dealt to each player", lo=6, hi=15)
    jokers: int = knob(4, "Jokers in the pack (two 54-card packs: 4)", lo=0, hi=4)
    requirements: str = knob(REQ_DEFAULT, "the first meld of each round, rounds separated "
                             "by spaces: S a set of three, R a run of four (the seed's table)")
    mene: int = knob(0, "round-level runs: 0 = deal d plays round d mod 6 + 1 (all six in "
                     "turn); 1..6 = every deal plays that round", lo=0, hi=12)
    jokers_per_meld: int = knob(1, "Jokers a meld may hold over its whole life ('il ne peut "
                                "pas y en avoir plus d'un par combinaison'; catalogue #7)",
                                lo=1, hi=2, seed_value=1)
    multicolour_runs: bool = knob(False, "runs may mix suits (the seed's variant: 'les suites "
                                  "peuvent être multicolores')", seed_value=False)
    ace_high: bool = knob(True, "the Ace also ends a run high (J-Q-K-A; the order '1, 2, …, "
                          "Roi, As'); never K-A-2", seed_value=True)
    joker_penalty: int = knob(25, "penalty of a Joker left in hand", lo=0, hi=100,
                              seed_value=25)
    go_out_by_melding: bool = knob(True, "a player whose melds or lay-offs empty his hand "
                                   "goes out without discarding (catalogue #2); false: he "
                                   "must keep a card for the final discard")
    reshuffle_discards: bool = knob(True, "an empty stock is refilled with the discard pile "
                                    "but its top card, shuffled (the book is silent; "
                                    "catalogue #3); false: the round ends, everyone paying "
                                    "his hand. Both are counted in the rows")
    turn_cap: int = knob(600, "a round stops after this many turns (all players), every "
                         "hand paying (counted: 'capped')", lo=10, hi=100000)
    take_discard: bool = knob(True, "heuristic: take the discard when it brings the first "
                              "meld closer or fits a meld on the table; false: always draw "
                              "from the stock", policy=True)
    search_hold: bool = knob(True, "search: weigh holding a first meld it could lay "
                             "against laying it (false: lay it at once, as the heuristic)",
                             policy=True)
    search_worlds: int = knob(8, "search: sampled worlds per option", lo=1, hi=256,
                              policy=True)
    search_margin: int = knob(200, "search: leave the heuristic's choice only for an option "
                              "better by this many hundredths of a standard error of the "
                              "paired difference over the worlds", lo=0, hi=1000, policy=True)
    search_tries: int = knob(8, "search: a world gives a player not yet melded the closest "
                             "to his first meld of this many random hands (1: uniform)",
                             lo=1, hi=8, policy=True)
    search_discards: int = knob(3, "search: discards weighed (the heuristic's best first)",
                                lo=1, hi=12, policy=True)
    search_horizon: int = knob(45, "search: turns (all players) a playout runs before the "
                               "position is scored by its penalties and first-meld "
                               "distances", lo=3, hi=1000, policy=True)

    def check(self) -> None:
        reqs = parse_requirements(self.requirements)
        if self.mene > len(reqs):
            raise SimlabError(f"mene={self.mene}: the requirements list {len(reqs)} rounds; "
                              f"give 0 (all in turn) or 1..{len(reqs)}")
        need = max(3 * s + 4 * r for s, r in reqs)
        if need > self.hand_size:
            raise SimlabError(f"hand_size={self.hand_size} cannot hold a first meld of "
                              f"{need} cards; give hand_size >= {need}")
        n_cards = 104 + self.jokers
        if self.players * self.hand_size + 2 > n_cards:
            raise SimlabError(f"hand_size={self.hand_size} at {self.players} players needs "
                              f"{self.players * self.hand_size + 2} cards; the pack has "
                              f"{n_cards}")


# knob vector slots
(K_PLAYERS, K_HAND, K_JOKERS, K_NREQ, K_MENE, K_JLIM, K_MULTI, K_TOP, K_JPEN, K_GO_MELD,
 K_RESHUFFLE, K_CAP, K_TAKE, K_SEARCH_HOLD, K_WORLDS, K_DISCARDS, K_HORIZON, K_MARGIN, K_TRIES) = range(19)
K_REQ = 20  # sets of round i at K_REQ + 2 i, runs at K_REQ + 2 i + 1
N_K = K_REQ + 24


def knob_vector(k: LobaKnobs) -> np.ndarray:
    """The knobs as the int64 vector the kernels read (``K_*`` slots)."""
    reqs = parse_requirements(k.requirements)
    v = np.zeros(N_K, dtype=np.int64)
    v[:19] = [k.players, k.hand_size, k.jokers, len(reqs), k.mene, k.jokers_per_meld,
              k.multicolour_runs, 13 if k.ace_high else 12, k.joker_penalty,
              k.go_out_by_melding, k.reshuffle_discards, k.turn_cap, k.take_discard,
              k.search_hold, k.search_worlds, k.search_discards, k.search_horizon,
              k.search_margin, k.search_tries]
    for i, (s, r) in enumerate(reqs):
        v[K_REQ + 2 * i] = s
        v[K_REQ + 2 * i + 1] = r
    return v


@hot
def card_value(c: int, jpen: int) -> int:
    if c == JOKER_KIND:
        return jpen
    r = c % N_RANKS
    return 1 if r == ACE else r + 2  # 2..10 face value, J 11, Q 12, K 13


@hot
def hand_penalty(cnt: np.ndarray, jpen: int) -> int:
    """The penalty of the cards in ``cnt`` (A 1, 2-10 face, J 11, Q 12, K 13, Joker jpen)."""
    t = cnt[JOKER_KIND] * jpen
    for c in range(N_NAT):
        if cnt[c] > 0:
            t += cnt[c] * card_value(c, jpen)
    return t


# --- the state of a round ------------------------------------------------------------------
PH_DRAW, PH_ACT, PH_OVER = 0, 1, 3
END_OUT, END_STOCK, END_CAP = 0, 1, 2
(S_PLAYERS, S_SEAT, S_TURN, S_PHASE, S_OUT, S_ENDED, S_RESHUF, S_DDRAWS, S_DTAKE_CHANCE,
 S_SHIFTS, S_LAYOFFS, S_NEWMELDS, S_ROUND, S_NSETS, S_NRUNS, S_NTABLE, S_DISC_N, S_STOCK_POS,
 S_STOCK_END, S_DEALER, S_SIX, S_JLAY, S_HELD, S_MELDED_NOW, S_TAKEN, S_DRAWN,
 S_OTHERS_LAYOFFS, S_JSHIFT_CHANCE) = range(28)
S_FIRST = 30  # + seat: turn of the seat's first meld, -1 never
S_FIRST_DIST = 36  # + seat: distance to the requirement after the deal
N_S = 44
# scratch for the requirement search: view [53], dp [14*5*5], choice [13], wins [64], work
# [12], plan [MAX_REQ, N_PF]
N_WINS = 64


@batch
def new_state() -> tuple:
    """(st, cnt [P, 53], stock [108], disc [108], table melds [MAX_TABLE, N_T], table
    counts [53], rng [1] for reshuffles, owner [MAX_TABLE])."""
    return (np.zeros(N_S, dtype=np.int64), np.zeros((MAX_PLAYERS, N_KINDS), dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64), np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros((MAX_TABLE, N_T), dtype=np.int64), np.zeros(N_KINDS, dtype=np.int64),
            np.zeros(1, dtype=np.uint64), np.zeros(MAX_TABLE, dtype=np.int64))


@batch
def new_scratch() -> tuple:
    """(view [53], dp [14, 5, 5], choice [13], wins [64], work [12], plan [MAX_REQ, N_PF],
    need [53])."""
    return (np.zeros(N_KINDS, dtype=np.int64), np.zeros((N_RANKS + 1, 5, 5), dtype=np.int64),
            np.zeros(N_RANKS, dtype=np.int64), np.zeros(N_WINS, dtype=np.int64),
            np.zeros(12, dtype=np.int64), np.zeros((MAX_REQ, N_PF), dtype=np.int64),
            np.zeros(N_KINDS, dtype=np.int64))


@hot
def copy_state(S: tuple, T: tuple) -> None:
    for k in range(N_S):
        T[0][k] = S[0][k]
    for p in range(MAX_PLAYERS):
        for c in range(N_KINDS):
            T[1][p, c] = S[1][p, c]
    for i in range(MAX_CARDS):
        T[2][i] = S[2][i]
        T[3][i] = S[3][i]
    for i in range(MAX_TABLE):
        for f in range(N_T):
            T[4][i, f] = S[4][i, f]
        T[7][i] = S[7][i]
    for c in range(N_KINDS):
        T[5][c] = S[5][c]
    T[6][0] = S[6][0]


@hot
def requirement(kv: np.ndarray, rnd: int) -> tuple[int, int]:
    """(sets, runs) of round ``rnd`` (1-based)."""
    return kv[K_REQ + 2 * (rnd - 1)], kv[K_REQ + 2 * (rnd - 1) + 1]


@hot
def distance(cnt: np.ndarray, n_sets: int, n_runs: int, kv: np.ndarray, X: tuple,
             exact: bool) -> int:
    """Cards missing from the round's first meld in hand ``cnt`` (0: it can be laid now);
    the cover is left in ``X[5]``. ``exact``: also try a Joker standing for a held card."""
    return req_cover(cnt, n_sets, n_runs, kv[K_JLIM], kv[K_TOP], kv[K_MULTI] == 1, exact,
                     X[0], X[1], X[2], X[3], X[4], X[5])


@hot
def can_meld_first(cnt: np.ndarray, n_sets: int, n_runs: int, kv: np.ndarray,
                   X: tuple) -> bool:
    """Does ``cnt`` hold the round's first meld? (exact; the cover is left in ``X[5]``)."""
    d = distance(cnt, n_sets, n_runs, kv, X, False)
    if d == 0:
        return True
    if d > 0 and cnt[JOKER_KIND] > 0 and d <= cnt[JOKER_KIND]:
        return distance(cnt, n_sets, n_runs, kv, X, True) == 0
    return False


@hot
def deal(deck: np.ndarray, n_cards: int, dealer: int, rnd: int, kv: np.ndarray, S: tuple,
         dealt: np.ndarray, rs: np.uint64) -> None:
    """Deal the shuffled physical ``deck[:n_cards]``: ``hand_size`` cards each, one at a
    time from the dealer's left; the next card starts the discard pile; the rest is the
    stock (drawn from index ``S_STOCK_POS`` up). ``dealt[p, k]`` gets physical ids."""
    st, cnt, stock, disc, tm, tcnt, rng_s, owner = S
    P = kv[K_PLAYERS]
    hs = kv[K_HAND]
    for k in range(N_S):
        st[k] = 0
    cnt[:, :] = 0
    tcnt[:] = 0
    st[S_PLAYERS] = P
    st[S_DEALER] = dealer
    st[S_ROUND] = rnd
    ns, nr = requirement(kv, rnd)
    st[S_NSETS] = ns
    st[S_NRUNS] = nr
    st[S_OUT] = -1
    st[S_ENDED] = -1
    pos = 0
    for k in range(hs):
        for j in range(P):
            p = (dealer + 1 + j) % P
            cnt[p, kind_of_id(deck[pos])] += 1
            dealt[p, k] = deck[pos]
            pos += 1
    disc[0] = kind_of_id(deck[pos])
    pos += 1
    st[S_DISC_N] = 1
    n = 0
    for i in range(pos, n_cards):
        stock[n] = kind_of_id(deck[i])
        n += 1
    st[S_STOCK_POS] = 0
    st[S_STOCK_END] = n
    st[S_SEAT] = (dealer + 1) % P
    st[S_PHASE] = PH_DRAW
    for p in range(MAX_PLAYERS):
        st[S_FIRST + p] = -1
    rng_s[0] = rs


@hot
def kind_of_id(card_id: int) -> int:
    return card_id // 2 if card_id < 104 else JOKER_KIND


@hot
def hand_size(cnt: np.ndarray, p: int) -> int:
    t = 0
    for c in range(N_KINDS):
        t += cnt[p, c]
    return t


@hot
def _end(S: tuple, out: int, how: int) -> None:
    st = S[0]
    st[S_OUT] = out
    st[S_ENDED] = how
    st[S_PHASE] = PH_OVER


@hot
def begin_turn(S: tuple, kv: np.ndarray) -> bool:
    """Start the turn of ``S_SEAT``: an empty stock is refilled with the discard pile but
    its top card, shuffled (``reshuffle_discards``; counted in ``S_RESHUF``); if it cannot
    be, the round ends (``END_STOCK``, everyone pays). Returns False when the round is over."""
    st, stock, disc = S[0], S[2], S[3]
    if st[S_PHASE] == PH_OVER:
        return False
    if st[S_TURN] >= kv[K_CAP]:
        _end(S, -1, END_CAP)
        return False
    if st[S_STOCK_POS] >= st[S_STOCK_END]:
        if kv[K_RESHUFFLE] == 1 and st[S_DISC_N] >= 2:
            n = st[S_DISC_N] - 1
            for i in range(n):
                stock[i] = disc[i]
            disc[0] = disc[n]
            st[S_DISC_N] = 1
            st[S_STOCK_POS] = 0
            st[S_STOCK_END] = n
            state = S[6][0]
            for i in range(n - 1, 0, -1):
                state, j = rng.below(state, i + 1)
                t = stock[i]
                stock[i] = stock[j]
                stock[j] = t
            S[6][0] = state
            st[S_RESHUF] += 1
        else:
            _end(S, -1, END_STOCK)
            return False
    st[S_MELDED_NOW] = 0
    return True


@hot
def draw(S: tuple, from_discard: bool) -> int:
    """The seat draws the stock's top card or the discard pile's; returns its kind."""
    st, cnt, stock, disc = S[0], S[1], S[2], S[3]
    p = st[S_SEAT]
    if from_discard and st[S_DISC_N] > 0:
        st[S_DISC_N] -= 1
        c = disc[st[S_DISC_N]]
        st[S_DDRAWS] += 1
        st[S_TAKEN] = 1
    else:
        c = stock[st[S_STOCK_POS]]
        st[S_STOCK_POS] += 1
        st[S_TAKEN] = 0
    cnt[p, c] += 1
    st[S_DRAWN] = c
    st[S_PHASE] = PH_ACT
    return c


@hot
def _new_meld(S: tuple, kind: int, key: int, lo: int, hi: int, nj: int, jpos: int,
              n: int, p: int) -> int:
    st, tm, owner = S[0], S[4], S[7]
    i = st[S_NTABLE]
    tm[i, T_KIND] = kind
    tm[i, T_KEY] = key
    tm[i, T_LO] = lo
    tm[i, T_HI] = hi
    tm[i, T_NJ] = nj
    tm[i, T_JPOS] = jpos
    tm[i, T_N] = n
    owner[i] = p
    st[S_NTABLE] = i + 1
    return i


@hot
def _take(S: tuple, p: int, c: int) -> None:
    S[1][p, c] -= 1
    S[5][c] += 1


@hot
def _pick_suit(cnt: np.ndarray, p: int, r: int) -> int:
    """A natural of rank ``r`` from the hand (the suit held twice first), -1 if none."""
    best = -1
    for s in range(4):
        c = s * N_RANKS + r
        if cnt[p, c] > 0 and (best < 0 or cnt[p, c] > cnt[p, best]):
            best = c
    return best


@hot
def lay_first(S: tuple, kv: np.ndarray, plan: np.ndarray, n_melds: int) -> None:
    """Lay the first meld of plan rows ``plan[:n_melds]`` (from ``can_meld_first``):
    sequences first (they need given cards), then sets from what is left."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    multi = kv[K_MULTI] == 1
    for i in range(n_melds):
        if plan[i, P_KIND] != SEQ:
            continue
        key = plan[i, P_KEY]
        lo = plan[i, P_LO]
        hi = plan[i, P_HI]
        jp = plan[i, P_JPOS]
        for q in range(lo, hi + 1):
            if (jp >> q) & 1:
                _take(S, p, JOKER_KIND)
            elif multi:
                _take(S, p, _pick_suit(cnt, p, card_at(0, q) % N_RANKS))
            else:
                _take(S, p, card_at(key, q))
        _new_meld(S, SEQ, -1 if multi else key, lo, hi, plan[i, P_NJ], jp, hi - lo + 1, p)
    n_sets = 0
    prev = -1
    for i in range(n_melds):
        if plan[i, P_KIND] != SET:
            continue
        r = plan[i, P_KEY]
        nj = plan[i, P_NJ]
        for _ in range(nj):
            _take(S, p, JOKER_KIND)
        for _ in range(3 - nj):
            _take(S, p, _pick_suit(cnt, p, r))
        _new_meld(S, SET, r, -1, -1, nj, 0, 3, p)
        if r == prev:
            st[S_SIX] += 1  # two sets of one rank: a six of a kind counted as two sets
        prev = r
        n_sets += 1
    st[S_FIRST + p] = st[S_TURN]
    st[S_MELDED_NOW] = 1


@hot
def lay_off(S: tuple, kv: np.ndarray, c: int, i: int) -> bool:
    """Add kind ``c`` from the seat's hand to table meld ``i`` if it fits (a Joker shift
    when a natural takes a Joker's end place). Only a seat that melded first on an earlier
    turn may; returns whether it was done."""
    st = S[0]
    p = st[S_SEAT]
    if st[S_FIRST + p] < 0 or st[S_MELDED_NOW] == 1 or S[1][p, c] <= 0:
        return False
    pos = fits_multi(c, S[4], i, kv[K_JLIM], kv[K_TOP])
    if pos < 0:
        return False
    add_multi(c, pos, S[4], i)
    _take(S, p, c)
    st[S_LAYOFFS] += 1
    if pos >= 100:
        st[S_SHIFTS] += 1
    if c == JOKER_KIND:
        st[S_JLAY] += 1
    if S[7][i] != p:
        st[S_OTHERS_LAYOFFS] += 1
    return True


@hot
def lay_set(S: tuple, kv: np.ndarray, r: int, n_nat: int, n_j: int) -> bool:
    """A new set of ``n_nat`` naturals of rank ``r`` (any suits from the hand) and ``n_j``
    Jokers, by a seat melded on an earlier turn (3 cards at least)."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    if st[S_FIRST + p] < 0 or st[S_MELDED_NOW] == 1:
        return False
    if n_nat + n_j < 3 or n_nat < 1 or n_j > kv[K_JLIM] or cnt[p, JOKER_KIND] < n_j:
        return False
    held = 0
    for s in range(4):
        held += cnt[p, s * N_RANKS + r]
    if held < n_nat:
        return False
    for _ in range(n_j):
        _take(S, p, JOKER_KIND)
    for _ in range(n_nat):
        _take(S, p, _pick_suit(cnt, p, r))
    _new_meld(S, SET, r, -1, -1, n_j, 0, n_nat + n_j, p)
    st[S_NEWMELDS] += 1
    return True


@hot
def lay_run(S: tuple, kv: np.ndarray, s: int, lo: int, hi: int, jpos: int) -> bool:
    """A new run of suit ``s`` (ignored with multicolour runs) over positions lo..hi (4 at
    least, no wrap), Jokers at the positions of ``jpos``, by a seat melded earlier."""
    st, cnt = S[0], S[1]
    p = st[S_SEAT]
    multi = kv[K_MULTI] == 1
    if st[S_FIRST + p] < 0 or st[S_MELDED_NOW] == 1:
        return False
    if hi - lo < 3 or lo < 0 or hi > kv[K_TOP] or (lo == 0 and hi == 13):
        return False
    nj = 0
    for q in range(lo, hi + 1):
        if (jpos >> q) & 1:
            nj += 1
    if nj > kv[K_JLIM] or nj > cnt[p, JOKER_KIND] or nj == hi - lo + 1:
        return False
    for q in range(lo, hi + 1):  # check first, then take
        if (jpos >> q) & 1:
            continue
        if multi:
            if _pick_suit(cnt, p, card_at(0, q) % N_RANKS) < 0:
                return False
        elif cnt[p, card_at(s, q)] <= 0:
            return False
        elif q == 13 and lo == 0:
            return False
    # an ace used twice (positions 0 and 13) cannot happen: no wrap
    for q in range(lo, hi + 1):
        if (jpos >> q) & 1:
            _take(S, p, JOKER_KIND)
        elif multi:
            _take(S, p, _pick_suit(cnt, p, card_at(0, q) % N_RANKS))
        else:
            _take(S, p, card_at(s, q))
    _new_meld(S, SEQ, -1 if multi else s, lo, hi, nj, jpos, hi - lo + 1, p)
    st[S_NEWMELDS] += 1
    return True


@hot
def check_out(S: tuple, kv: np.ndarray) -> bool:
    """After melds and lay-offs: an empty hand ends the round (``go_out_by_melding``)."""
    st = S[0]
    p = st[S_SEAT]
    if hand_size(S[1], p) == 0:
        _end(S, p, END_OUT)
        return True
    return False


@hot
def discard(S: tuple, kv: np.ndarray, c: int) -> None:
    """The seat discards kind ``c``: his turn ends; an empty hand ends the round."""
    st, cnt, disc = S[0], S[1], S[3]
    p = st[S_SEAT]
    cnt[p, c] -= 1
    disc[st[S_DISC_N]] = c
    st[S_DISC_N] += 1
    if hand_size(cnt, p) == 0:
        _end(S, p, END_OUT)
        st[S_TURN] += 1
        return
    st[S_TURN] += 1
    st[S_SEAT] = (p + 1) % st[S_PLAYERS]
    st[S_PHASE] = PH_DRAW


@hot
def round_penalty(S: tuple, kv: np.ndarray, p: int) -> int:
    """What seat ``p`` marks: 0 for the player who went out, else his hand's penalty."""
    if S[0][S_OUT] == p:
        return 0
    return hand_penalty(S[1][p], kv[K_JPEN])
