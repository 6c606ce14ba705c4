"""What climbing (shedding) games share: rank-count hands, group legality, the
variable-length turn loop with a cap, finishing order and per-deal event counts.

First user: Président / Trou du cul (``simlab.games.president``); meant for the next
climbing games too (other "XXL" / Achille-style games where players shed groups that
must climb, and the order of going out is the result).

Representation (all kernels)
----------------------------
* **Ranks in playing order.** The game renumbers ranks 0 = lowest .. ``n_ranks - 1`` =
  highest with a per-card table ``rank_of`` (Président: 3 4 ... K A 2 -> 0 .. 12). Suits
  never matter in play.
* **Hands during play** are rows of ``counts`` (int64 [players, n_ranks]: how many cards
  of each rank a seat holds) plus ``sizes`` (int64 [players]). A move is a pair
  (rank, count); legality is a few integer compares; a pass is rank -1.
* **Physical cards** live in uint64 bitmasks ``masks`` (one per seat; decks of at most 64
  cards, see ``simlab.mechanics.tricks``) for dealing, exchanges and recording hands;
  ``counts_from_masks`` turns them into the play state once the exchanges are done.
* **A series** (French "série": groups climbing until nobody plays) is the int64 vector
  ``st`` indexed by the ``ST_*`` constants: rank on the table (-1: the player to move
  leads), group size to match, the last player who played, the player to move, turns
  without a play since the last play (passes and skipped turns), players still holding
  cards, seats locked out of the series, and whether the rank order is reversed (a
  "revolution", ``RU_REVOLUTION``; it lasts until the end of the deal).
* **Events** of the deal are counted in ``ev`` (int64 [N_EV], ``EV_*``): turns, plays,
  passes, skipped turns, series, cards played, equal-rank plays, whether the turn cap
  stopped the deal, and revolutions.
* **Finishing order**: ``order[k]`` = the seat that went out k-th (0-based),
  ``place[seat]`` = its 1-based finishing position.
* **Rules** are an int64 vector from ``make_rules`` (``RU_*``): equal-rank plays allowed,
  an equal-rank play skips the next player, a pass locks the passer out of the series,
  the largest lead group, the per-deal turn cap, the group size that reverses the rank
  order (0: never).
* **Policy parameters** of the built-in heuristic are an int64 vector ``pp`` (``PP_*``,
  see ``heuristic_lead`` / ``heuristic_follow`` / ``gift_heuristic``).

Series rule (Président's catalogue resolution #1, #2, #6): after a play, every other
active player gets one turn (a skipped player's turn counts as used); the series ends
when all of them have let it go, i.e. when the turn would come back to the last player
who played. The last player then leads; if he has gone out, the next active player to
his left does. With ``RU_LOCKOUT`` a player who passed only passes until the series ends.

Revolution (``RU_REVOLUTION = k > 0``): a play of ``k`` cards or more of one rank (lead or
follow) flips ``st[ST_REV]``: while it is set the whole rank order is reversed (a follow
must be *lower* than the table, or equal), until the end of the deal or the next such
play, which flips it back. The policies read the hand in the current order (``rev``
arguments: index ``i`` of the current order is rank ``n_ranks - 1 - i`` when reversed),
so "lowest", "kept top ranks" etc. follow the order in force.

How to use, per deal (all functions are ``@hot``: they never allocate; the ``@batch``
kernel allocates ``masks``, ``counts``, ``sizes``, ``st``, ``ev``, ``order``, ``place``
once per batch):

    deal_round_robin(deck, n_cards, n, first_seat, masks, sizes)   # one card at a time
    ... exchanges on masks: extreme_card / gift_heuristic / transfer ...
    counts_from_masks(masks, n, rank_of, counts, sizes)
    start_play(st, ev, n, leader, sizes, order, place)
    state = play_out(st, ev, counts, sizes, order, place, pol, rules, pp, state, log)
    # -> place, order, ev filled; ev[EV_CAPPED] says the cap stopped the deal

A game with other moves or policies keeps the state and ``apply_play`` /
``apply_pass`` / ``is_legal`` and writes its own loop after ``play_out`` (about 30
lines). ``log`` (int64 [L, 3], rows (seat, rank or -1, count) per turn; a (0, 3) array
records nothing) lets tests replay a deal independently.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.game import HEURISTIC
from simlab.engine.jit import hot
from simlab.engine.rng import below
from simlab.mechanics.tricks import EMPTY, ONE, bit, lowest, nth

# --- rules ---------------------------------------------------------------------------
RU_EQUAL = 0  # a group of the same rank as the table may be played
RU_SKIP = 1  # ... and it makes the next active player skip his turn
RU_LOCKOUT = 2  # a player who passes may not play again in this series
RU_MAX_GROUP = 3  # largest lead group (cards of one rank)
RU_CAP = 4  # per-deal turn cap (safety; ev[EV_CAPPED] records it)
RU_REVOLUTION = 5  # a group of at least this many cards reverses the rank order (0: off)
N_RU = 6


def make_rules(*, equal_allowed: bool = True, equal_skips: bool = True,
               pass_locks_out: bool = False, max_group: int = 4,
               turn_cap: int = 10_000, revolution: int = 0) -> np.ndarray:
    r = np.zeros(N_RU, dtype=np.int64)
    r[RU_EQUAL] = equal_allowed
    r[RU_SKIP] = equal_skips
    r[RU_LOCKOUT] = pass_locks_out
    r[RU_MAX_GROUP] = max_group
    r[RU_CAP] = turn_cap
    r[RU_REVOLUTION] = revolution
    return r


# --- series state and events ---------------------------------------------------------------
(ST_N, ST_LEFT, ST_OUT, ST_TOP, ST_NEED, ST_LAST, ST_TURN, ST_IDLE, ST_LOCKED, ST_REV,
 N_ST) = range(11)
(EV_TURNS, EV_PLAYS, EV_PASSES, EV_SKIPS, EV_SERIES, EV_CARDS, EV_EQUALS, EV_CAPPED,
 EV_REVOLUTIONS, N_EV) = range(10)

# --- heuristic policy parameters --------------------------------------------------------
PP_LEAD_LARGEST = 0  # lead: 0 = the lowest rank held, 1 = the largest group (lowest on ties)
PP_KEEP_TOP = 1  # keep the this-many highest ranks (Président: 2 = aces and 2s) ...
PP_ENDGAME = 2  # ... until the hand holds at most this many cards
PP_BREAK = 3  # follow by breaking a larger group before the endgame (0: only in the endgame)
PP_GIVE_SINGLETONS = 4  # a chosen gift is the lowest singleton below the kept ranks first
N_PP = 5


def make_policy(*, lead_largest: bool = False, keep_top: int = 2, endgame: int = 4,
                break_groups: bool = False, give_singletons: bool = True) -> np.ndarray:
    pp = np.zeros(N_PP, dtype=np.int64)
    pp[PP_LEAD_LARGEST] = lead_largest
    pp[PP_KEEP_TOP] = keep_top
    pp[PP_ENDGAME] = endgame
    pp[PP_BREAK] = break_groups
    pp[PP_GIVE_SINGLETONS] = give_singletons
    return pp


# --- cards: deal, exchange, counts ------------------------------------------------------
@hot
def deal_round_robin(deck: np.ndarray, n_cards: int, n: int, first: int, masks: np.ndarray,
                     sizes: np.ndarray) -> None:
    """Deal ``deck[:n_cards]`` one card at a time clockwise from ``first``: when the cards
    do not divide evenly, the first seats get one more."""
    for p in range(n):
        masks[p] = EMPTY
        sizes[p] = 0
    p = first
    for i in range(n_cards):
        masks[p] |= bit(deck[i])
        sizes[p] += 1
        p += 1
        if p == n:
            p = 0


@hot
def counts_from_masks(masks: np.ndarray, n: int, rank_of: np.ndarray, counts: np.ndarray,
                      sizes: np.ndarray) -> None:
    for p in range(n):
        for r in range(counts.shape[1]):
            counts[p, r] = 0
        sizes[p] = 0
        m = masks[p]
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            counts[p, rank_of[c]] += 1
            sizes[p] += 1


@hot
def extreme_card(mask: np.uint64, rank_of: np.ndarray, best: bool) -> int:
    """The highest-ranked (``best``) or lowest-ranked card of a non-empty ``mask``;
    between cards of one rank, the lowest id (-1 if ``mask`` is empty)."""
    out = -1
    out_r = -1
    while mask != EMPTY:
        c = lowest(mask)
        mask &= mask - ONE
        r = rank_of[c]
        if out < 0 or (r > out_r if best else r < out_r):
            out = c
            out_r = r
    return out


@hot
def gift_heuristic(mask: np.uint64, rank_of: np.ndarray, scratch: np.ndarray,
                   pp: np.ndarray) -> int:
    """A card to give away by choice: the lowest singleton below the kept ranks (when
    ``pp[PP_GIVE_SINGLETONS]``), else the lowest card. ``scratch``: int64 [n_ranks]."""
    n_ranks = scratch.shape[0]
    for r in range(n_ranks):
        scratch[r] = 0
    m = mask
    while m != EMPTY:
        scratch[rank_of[lowest(m)]] += 1
        m &= m - ONE
    if pp[PP_GIVE_SINGLETONS]:
        keep_from = n_ranks - pp[PP_KEEP_TOP]
        for r in range(keep_from):
            if scratch[r] == 1:
                m = mask
                while m != EMPTY:
                    c = lowest(m)
                    if rank_of[c] == r:
                        return c
                    m &= m - ONE
    return extreme_card(mask, rank_of, False)


@hot
def random_gift(state: np.uint64, mask: np.uint64) -> tuple[np.uint64, int]:
    n = 0
    m = mask
    while m != EMPTY:
        m &= m - ONE
        n += 1
    state, k = below(state, n)
    return state, nth(mask, k)


@hot
def transfer(masks: np.ndarray, src: int, dst: int, c: int) -> None:
    masks[src] &= ~bit(c)
    masks[dst] |= bit(c)


# --- legality ---------------------------------------------------------------------------
@hot
def is_legal(row: np.ndarray, top: int, need: int, r: int, k: int, rules: np.ndarray,
             rev: bool = False) -> bool:
    """May a hand with rank counts ``row`` play ``k`` cards of rank ``r`` on a table
    holding a group of ``need`` cards of rank ``top`` (``need`` 0: a lead)? ``rev``: the
    rank order is reversed (a revolution): the play must be lower."""
    if r < 0 or r >= row.shape[0] or k < 1 or row[r] < k:
        return False
    if need == 0:
        return k <= rules[RU_MAX_GROUP]
    if k != need:
        return False
    return (r < top if rev else r > top) or (r == top and rules[RU_EQUAL] != 0)


@hot
def next_active(sizes: np.ndarray, n: int, p: int) -> int:
    """The next seat to the left of ``p`` still holding cards (needs one to exist)."""
    q = p + 1
    if q == n:
        q = 0
    while sizes[q] == 0:
        q += 1
        if q == n:
            q = 0
    return q


# --- the series state machine ----------------------------------------------------------
@hot
def start_play(st: np.ndarray, ev: np.ndarray, n: int, leader: int, sizes: np.ndarray,
               order: np.ndarray, place: np.ndarray) -> None:
    """Reset the state for a deal whose first series ``leader`` (holding cards) leads."""
    left = 0
    for p in range(n):
        place[p] = 0
        order[p] = -1
        if sizes[p] > 0:
            left += 1
    st[ST_N] = n
    st[ST_LEFT] = left
    st[ST_OUT] = 0
    st[ST_TOP] = -1
    st[ST_NEED] = 0
    st[ST_LAST] = leader
    st[ST_TURN] = leader
    st[ST_IDLE] = 0
    st[ST_LOCKED] = 0
    st[ST_REV] = 0
    for i in range(ev.shape[0]):
        ev[i] = 0
    ev[EV_SERIES] = 1


@hot
def _goes_out(st: np.ndarray, order: np.ndarray, place: np.ndarray, p: int) -> None:
    k = st[ST_OUT]
    order[k] = p
    place[p] = k + 1
    st[ST_OUT] = k + 1
    st[ST_LEFT] -= 1


@hot
def _last_one(st: np.ndarray, sizes: np.ndarray, order: np.ndarray, place: np.ndarray) -> None:
    """One player still holds cards: he finishes last; the deal is over."""
    for q in range(st[ST_N]):
        if sizes[q] > 0:
            _goes_out(st, order, place, q)
            return


@hot
def _maybe_end_series(st: np.ndarray, ev: np.ndarray, sizes: np.ndarray) -> None:
    last = st[ST_LAST]
    still_in = sizes[last] > 0
    if st[ST_IDLE] >= st[ST_LEFT] - (1 if still_in else 0):
        st[ST_TOP] = -1
        st[ST_NEED] = 0
        st[ST_IDLE] = 0
        st[ST_LOCKED] = 0
        ev[EV_SERIES] += 1
        st[ST_TURN] = last if still_in else next_active(sizes, st[ST_N], last)


@hot
def apply_play(st: np.ndarray, ev: np.ndarray, counts: np.ndarray, sizes: np.ndarray,
               order: np.ndarray, place: np.ndarray, p: int, r: int, k: int,
               rules: np.ndarray) -> None:
    """Seat ``p`` (the player to move) plays ``k`` cards of rank ``r`` (legal). A group of
    ``rules[RU_REVOLUTION]`` cards or more (when that is > 0) flips the rank order."""
    equal = st[ST_NEED] > 0 and r == st[ST_TOP]
    if rules[RU_REVOLUTION] > 0 and k >= rules[RU_REVOLUTION]:
        st[ST_REV] = 1 - st[ST_REV]
        ev[EV_REVOLUTIONS] += 1
    counts[p, r] -= k
    sizes[p] -= k
    ev[EV_PLAYS] += 1
    ev[EV_CARDS] += k
    if equal:
        ev[EV_EQUALS] += 1
    st[ST_TOP] = r
    st[ST_NEED] = k
    st[ST_LAST] = p
    st[ST_IDLE] = 0
    if sizes[p] == 0:
        _goes_out(st, order, place, p)
        if st[ST_LEFT] == 1:
            _last_one(st, sizes, order, place)
            return
    q = next_active(sizes, st[ST_N], p)
    if equal and rules[RU_SKIP]:
        ev[EV_SKIPS] += 1
        st[ST_IDLE] += 1
        q = next_active(sizes, st[ST_N], q)
    st[ST_TURN] = q
    _maybe_end_series(st, ev, sizes)


@hot
def apply_pass(st: np.ndarray, ev: np.ndarray, sizes: np.ndarray, p: int,
               rules: np.ndarray) -> None:
    ev[EV_PASSES] += 1
    st[ST_IDLE] += 1
    if rules[RU_LOCKOUT]:
        st[ST_LOCKED] |= 1 << p
    st[ST_TURN] = next_active(sizes, st[ST_N], p)
    _maybe_end_series(st, ev, sizes)


@hot
def finish_by_cards(st: np.ndarray, sizes: np.ndarray, order: np.ndarray,
                    place: np.ndarray) -> None:
    """Cap reached: the players still in finish by fewest cards left, ties in turn order
    from the player to move."""
    n = st[ST_N]
    while st[ST_LEFT] > 0:
        best = -1
        for i in range(n):
            q = (st[ST_TURN] + i) % n
            if sizes[q] > 0 and place[q] == 0 and (best < 0 or sizes[q] < sizes[best]):
                best = q
        _goes_out(st, order, place, best)


# --- built-in policies ------------------------------------------------------------------
@hot
def _rk(i: int, n_ranks: int, rev: bool) -> int:
    """Rank at index ``i`` of the current order (0 = lowest now); its own inverse."""
    return n_ranks - 1 - i if rev else i


@hot
def random_move(state: np.uint64, row: np.ndarray, top: int, need: int, rules: np.ndarray,
                rev: bool = False) -> tuple[np.uint64, int, int]:
    """Uniform over the legal moves: on a lead every (rank, 1..max_group cards); on a
    follow, pass or each rank that may be played (enumerated in the current order,
    ``rev``: reversed). Returns (state, rank or -1, count)."""
    n_ranks = row.shape[0]
    maxg = rules[RU_MAX_GROUP]
    if need == 0:
        total = 0
        for i in range(n_ranks):
            total += min(row[_rk(i, n_ranks, rev)], maxg)
        state, x = below(state, total)
        for i in range(n_ranks):
            r = _rk(i, n_ranks, rev)
            m = min(row[r], maxg)
            if x < m:
                return state, r, x + 1
            x -= m
        return state, -1, 0  # unreachable with cards in hand
    t = _rk(top, n_ranks, rev)
    lo = t if rules[RU_EQUAL] else t + 1
    total = 1
    for i in range(lo, n_ranks):
        if row[_rk(i, n_ranks, rev)] >= need:
            total += 1
    state, x = below(state, total)
    if x == 0:
        return state, -1, 0
    for i in range(lo, n_ranks):
        r = _rk(i, n_ranks, rev)
        if row[r] >= need:
            x -= 1
            if x == 0:
                return state, r, need
    return state, -1, 0


@hot
def heuristic_lead(row: np.ndarray, rules: np.ndarray, pp: np.ndarray,
                   rev: bool = False) -> tuple[int, int]:
    """Lead the lowest rank held (or the largest group, lowest on ties), as many of its
    cards as may be led; the kept top ranks only when nothing else is left. "Lowest" and
    "top" are in the current order (``rev``: reversed by a revolution)."""
    n_ranks = row.shape[0]
    keep_from = n_ranks - pp[PP_KEEP_TOP]
    for lim in (keep_from, n_ranks):
        best = -1
        for i in range(lim):
            r = _rk(i, n_ranks, rev)
            if row[r] > 0:
                if not pp[PP_LEAD_LARGEST]:
                    best = r
                    break
                if best < 0 or row[r] > row[best]:
                    best = r
        if best >= 0:
            return best, min(row[best], rules[RU_MAX_GROUP])
    return -1, 0


@hot
def heuristic_follow(row: np.ndarray, size: int, top: int, need: int, rules: np.ndarray,
                     pp: np.ndarray, rev: bool = False) -> int:
    """The rank to follow with (or -1: pass). A play that empties the hand first; then
    the cheapest rank held exactly ``need`` times (equal rank first: it also skips the
    next player), below the kept top ranks unless in the endgame (hand <= PP_ENDGAME
    cards); breaking a larger group only in the endgame (or with PP_BREAK). Cheapest and
    top are in the current order (``rev``: reversed by a revolution)."""
    n_ranks = row.shape[0]
    t = _rk(top, n_ranks, rev)
    lo = t if rules[RU_EQUAL] else t + 1
    if size == need:
        for i in range(lo, n_ranks):
            r = _rk(i, n_ranks, rev)
            if row[r] == need:
                return r
    endgame = size <= pp[PP_ENDGAME]
    lim = n_ranks if endgame else n_ranks - pp[PP_KEEP_TOP]
    for i in range(lo, lim):
        r = _rk(i, n_ranks, rev)
        if row[r] == need:
            return r
    if endgame or pp[PP_BREAK]:
        for i in range(lo, lim):
            r = _rk(i, n_ranks, rev)
            if row[r] > need:
                return r
    return -1


# --- the turn loop ------------------------------------------------------------------------
@hot
def play_out(st: np.ndarray, ev: np.ndarray, counts: np.ndarray, sizes: np.ndarray,
             order: np.ndarray, place: np.ndarray, pol: np.ndarray, rules: np.ndarray,
             pp: np.ndarray, state: np.uint64, log: np.ndarray) -> np.uint64:
    """Play series until one player holds cards (or the turn cap stops the deal: the rest
    then finish by ``finish_by_cards``). ``pol[seat]``: RANDOM or HEURISTIC. Returns the
    policy stream state."""
    while st[ST_LEFT] > 1:
        t = ev[EV_TURNS]
        if t >= rules[RU_CAP]:
            ev[EV_CAPPED] = 1
            finish_by_cards(st, sizes, order, place)
            break
        ev[EV_TURNS] = t + 1
        p = st[ST_TURN]
        need = st[ST_NEED]
        rev = st[ST_REV] != 0
        k = need
        if (st[ST_LOCKED] >> p) & 1:
            r = -1
        elif pol[p] == HEURISTIC:
            if need == 0:
                r, k = heuristic_lead(counts[p], rules, pp, rev)
            else:
                r = heuristic_follow(counts[p], sizes[p], st[ST_TOP], need, rules, pp, rev)
        else:
            state, r, k = random_move(state, counts[p], st[ST_TOP], need, rules, rev)
        if t < log.shape[0]:
            log[t, 0] = p
            log[t, 1] = r
            log[t, 2] = k
        if r < 0:
            apply_pass(st, ev, sizes, p, rules)
        else:
            apply_play(st, ev, counts, sizes, order, place, p, r, k, rules)
    return state
