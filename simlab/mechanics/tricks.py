"""What trick-taking games share: legal cards, the trick winner, card points, and the
building blocks of heuristic card play.

Representation (all kernels):

* a card is an int id into the game's deck (at most 64 distinct ids); a hand or any set of
  cards is a ``uint64`` bitmask (bit ``c`` set = card ``c`` present), so "the cards of the
  led suit in my hand" is one AND. Decks of more than 64 cards (Tarot's 78, Bésigue's
  multi-packs) need a two-word variant of these functions: add it here, beside these.
* ``TrickTables`` (built once per game and knob set by ``trick_tables``) holds, for every
  possible trump (row ``trump + 1``; row 0 = no trump): the rank order and card points
  of each card, ``above[c]`` = the cards of c's suit that beat c, and three orderings of
  the deck used by the heuristics (cheapest to give away, richest to load on a partner,
  cheapest winner first);
* a trick in progress is summarised by its led suit, the card currently winning it and
  the seat that played it (``update_trick`` maintains them card by card);
* ``trump`` is a suit code, or -1 when there is no trump; Excuse-like cards (suit
  ``EXCUSE_SUIT``) may always be played and never win.

A game states its obligations of play as a ``rules`` int64 array indexed by the ``R_*``
constants (build it with ``make_rules``), so one ``legal_cards`` serves every trick game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import EXCUSE_SUIT
from simlab.engine.jit import hot, hot_inline
from simlab.engine.rng import below

# --- obligations of play, as rule flags -------------------------------------------------
R_MUST_TRUMP = 0  # void in the led suit -> must trump
# partner exemption: 0 never; 1 any partner currently winning; 2 only the leader's partner
# while the lead is master
R_PARTNER_EXEMPT = 1
# a trump onto a trick holding a trump (or following a trump lead) must beat it if it can
R_MUST_OVERTRUMP = 2
# obliged to trump but cannot overtrump: 1 = must still play a trump, 0 = may discard anything
R_UNDERTRUMP = 3
R_OVERTRUMP_PARTNER = 4  # exempt (partner winning) but choosing to trump: must overtrump if able
# following the led suit while no trump is on the trick: must beat its best card if able
R_MUST_BEAT_LED = 5
R_BEAT_LED_PARTNER_EXEMPT = 6  # ... except when a partner is winning
# following a trump lead: must play a trump higher than the best on the trick if able
# (Belote, Tarot); without it a trump lead is an ordinary suit for R_MUST_BEAT_LED (Manille)
R_RAISE_TRUMP_LEAD = 7
N_RULES = 8

PARTNER_NEVER, PARTNER_ANY, PARTNER_LEADER_ONLY = 0, 1, 2
ONE = np.uint64(1)
EMPTY = np.uint64(0)


def make_rules(
    *,
    must_trump: bool = True,
    partner_exempt: int = PARTNER_ANY,
    must_overtrump: bool = True,
    undertrump: bool = True,
    overtrump_partner: bool = True,
    must_beat_led: bool = False,
    beat_led_partner_exempt: bool = False,
    raise_trump_lead: bool = True,
) -> np.ndarray:
    r = np.zeros(N_RULES, dtype=np.int64)
    r[R_MUST_TRUMP] = must_trump
    r[R_PARTNER_EXEMPT] = partner_exempt
    r[R_MUST_OVERTRUMP] = must_overtrump
    r[R_UNDERTRUMP] = undertrump
    r[R_OVERTRUMP_PARTNER] = overtrump_partner
    r[R_MUST_BEAT_LED] = must_beat_led
    r[R_BEAT_LED_PARTNER_EXEMPT] = beat_led_partner_exempt
    r[R_RAISE_TRUMP_LEAD] = raise_trump_lead
    return r


# --- per-trump tables ------------------------------------------------------------------
@dataclass(frozen=True)
class TrickTables:
    """Row ``trump + 1`` of each table describes the deal once trump is known."""

    suit_of: np.ndarray  # int64 [n_cards]
    suit_mask: np.ndarray  # uint64 [8]: the cards of each suit code
    excuse_mask: np.uint64
    strength: np.ndarray  # int64 [5, n_cards]
    points: np.ndarray  # int64 [5, n_cards]
    above: np.ndarray  # uint64 [5, n_cards]
    # Preference ranks used by the heuristics (lower = preferred):
    cheap_rank: np.ndarray  # int64 [5, n_cards]: to give away: fewest points, non-trump, lowest
    rich_rank: np.ndarray  # int64 [5, n_cards]: to load on a partner: most points, non-trump
    win_rank: np.ndarray  # int64 [5, n_cards]: to win with: led suit before trump, lowest

    def kernel_args(self) -> tuple:
        return (self.suit_of, self.suit_mask, self.excuse_mask, self.strength, self.points,
                self.above, self.cheap_rank, self.rich_rank, self.win_rank)


def trick_tables(suit_of: np.ndarray, strength_trump: np.ndarray, strength_plain: np.ndarray,
                 points_trump: np.ndarray, points_plain: np.ndarray) -> TrickTables:
    """Tables for a suited deck whose trump suit (if any) uses ``*_trump`` values."""
    n = len(suit_of)
    if n > 64:
        raise ValueError(f"the bitmask trick module holds at most 64 cards, not {n}")
    suit_mask = np.zeros(8, dtype=np.uint64)
    for c in range(n):
        suit_mask[suit_of[c]] |= np.uint64(1) << np.uint64(c)
    shape = (5, n)
    strength = np.zeros(shape, dtype=np.int64)
    points = np.zeros(shape, dtype=np.int64)
    above = np.zeros(shape, dtype=np.uint64)
    cheap = np.zeros(shape, dtype=np.int64)
    rich = np.zeros(shape, dtype=np.int64)
    win = np.zeros(shape, dtype=np.int64)
    for row, trump in enumerate(range(-1, 4)):
        is_t = suit_of == trump
        strength[row] = np.where(is_t, strength_trump, strength_plain)
        points[row] = np.where(is_t, points_trump, points_plain)
        for c in range(n):
            same = (suit_of == suit_of[c]) & (strength[row] > strength[row, c])
            above[row, c] = sum((np.uint64(1) << np.uint64(d) for d in np.flatnonzero(same)),
                                np.uint64(0))
        cards = list(range(n))
        orders = (
            sorted(cards, key=lambda c: (points[row, c], is_t[c], strength[row, c], c)),
            sorted(cards, key=lambda c: (is_t[c], -points[row, c], -strength[row, c], c)),
            sorted(cards, key=lambda c: (is_t[c], strength[row, c], points[row, c], c)),
        )
        for table, order in zip((cheap, rich, win), orders, strict=True):
            table[row, order] = np.arange(n)
    excuse = np.uint64(0)
    for c in range(n):
        if suit_of[c] == EXCUSE_SUIT:
            excuse |= np.uint64(1) << np.uint64(c)
    return TrickTables(suit_of.astype(np.int64), suit_mask, excuse, strength, points, above,
                       cheap, rich, win)


# --- bit helpers ------------------------------------------------------------------------
@hot
def bit(c: int) -> np.uint64:
    return ONE << np.uint64(c)


@hot
def has(mask: np.uint64, c: int) -> bool:
    return (mask >> np.uint64(c)) & ONE != EMPTY


@hot
def count(mask: np.uint64) -> int:
    n = 0
    while mask != EMPTY:
        mask &= mask - ONE
        n += 1
    return n


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _i
_S58 = np.uint64(58)


@hot
def lowest(mask: np.uint64) -> int:
    """Id of the lowest card of a non-empty ``mask`` (de Bruijn multiplication)."""
    low = mask & (~mask + ONE)
    return _DEBRUIJN_INDEX[np.int64((low * _DEBRUIJN) >> _S58)]


@hot
def nth(mask: np.uint64, k: int) -> int:
    """Id of the k-th (0-based) card of ``mask``, lowest id first."""
    for _ in range(k):
        mask &= mask - ONE
    return lowest(mask)


@hot
def kth_highest(mask: np.uint64, k: int) -> int:
    """Id of the k-th (1-based) highest card of ``mask`` (it holds at least k)."""
    return nth(mask, popcount(mask) - k)


@hot
def outlasts_leads(mine: np.uint64, theirs: np.uint64) -> bool:
    """Leading ``mine`` (one suit; a higher id is a higher card) from the top, do I lose a
    trick to a player holding ``theirs`` in that suit who keeps his best card for last?
    He plays one card per lead while he has one, so his best card meets my r-th highest,
    r = the fewer of our two counts. (Slam and capot odds: a defender's hand against a
    taker who leads every trick.)"""
    if mine == EMPTY or theirs == EMPTY:
        return False
    r = min(popcount(mine), popcount(theirs))
    return kth_highest(mine, r) < kth_highest(theirs, 1)


@hot
def all_in_pile_pct(k: int, hidden: int, pile: int) -> int:
    """The chance (%, rounded up) that ``k`` given cards among ``hidden`` dealt at random
    all lie in a pile of ``pile`` of them: an upper bound on a slam's or a capot's odds
    when each of those cards would take a trick from any hand."""
    p = 1.0
    for i in range(k):
        if pile - i <= 0:
            return 0
        p *= (pile - i) / (hidden - i)
    return int(np.ceil(100.0 * p))


@hot
def select_cards(state: np.uint64, pool: np.uint64, room: int, left: int
                 ) -> tuple[np.uint64, np.uint64]:
    """Selection sampling: the cards of ``pool`` a hand dealt ``room`` more cards gets,
    when ``left`` cards remain to deal from (``pool`` and others after it): each card in
    turn with probability room / left. Dealing only the cards that matter this way is
    the same as dealing whole hands at random (Knuth's algorithm S)."""
    out = EMPTY
    m = pool
    while m != EMPTY and room > 0:
        c = lowest(m)
        m &= m - ONE
        state, x = below(state, left)
        if x < room:
            out |= bit(c)
            room -= 1
        left -= 1
    return state, out


@hot
def far_below(made: int, n: int, pct: int) -> bool:
    """Are ``made`` successes in ``n`` trials 3 standard errors below ``pct`` %? (Odds
    estimated by dealing stop early for hopeless hands; the variance is floored at 1/n
    so that 0 successes in a few deals is not read as certainty.)"""
    p = made / n
    se = np.sqrt(max(p * (1.0 - p), 1.0 / n) / n)
    return (p + 3.0 * se) * 100.0 < pct


@hot
def settled_odds(made: int, i: int, n: int, stop_below: int) -> int:
    """Odds (%) estimated by dealing ``n`` times, ``made`` successes in the first ``i``:
    -1 to deal on; else the answer, when they can no longer reach ``stop_below`` % (the
    upper bound reached) or, every 16 deals, are 3 standard errors below it
    (``far_below``: the estimate so far)."""
    if (made + n - i) * 100 < stop_below * n:
        return (made + n - i) * 100 // n
    if i > 0 and i % 16 == 0 and far_below(made, i, stop_below):
        return made * 100 // i
    return -1


@hot
def best_in(mask: np.uint64, rank: np.ndarray) -> int:
    """The card of ``mask`` with the lowest ``rank`` (-1 if ``mask`` is empty)."""
    best = -1
    best_rank = 1 << 62
    while mask != EMPTY:
        c = lowest(mask)
        mask &= mask - ONE
        if rank[c] < best_rank:
            best_rank = rank[c]
            best = c
    return best


@hot
def cards_of(mask: np.uint64, out: np.ndarray) -> int:
    """Write the ids in ``mask`` (ascending) to ``out``; return how many."""
    n = 0
    while mask != EMPTY:
        out[n] = lowest(mask)
        mask &= mask - ONE
        n += 1
    return n


# --- trick state ------------------------------------------------------------------------
@hot
def beats(card: int, win: int, trump: int, suit_of: np.ndarray, above: np.ndarray) -> bool:
    """Does ``card`` take the lead from ``win`` (the current winner, -1 if none)?"""
    s = suit_of[card]
    if s == EXCUSE_SUIT:
        return False
    if win < 0:
        return True
    if has(above[win], card):  # same suit, stronger
        return True
    return s == trump and suit_of[win] != trump


@hot
def update_trick(card: int, seat: int, led: int, win: int, win_seat: int, trump: int,
                 suit_of: np.ndarray, above: np.ndarray) -> tuple[int, int, int]:
    """(led suit, winning card, its seat) after ``seat`` plays ``card``. An Excuse leaves
    the led suit to the next card; between equal cards the first played wins."""
    if led < 0 and suit_of[card] != EXCUSE_SUIT:
        led = suit_of[card]
    if beats(card, win, trump, suit_of, above):
        return led, card, seat
    return led, win, win_seat


@hot
def partner_winning(win: int, win_seat: int, leader: int, seat: int, team_of: np.ndarray,
                    mode: int) -> bool:
    if win < 0 or win_seat == seat or team_of[win_seat] != team_of[seat]:
        return False
    if mode == PARTNER_ANY:
        return True
    if mode == PARTNER_LEADER_ONLY:
        return win_seat == leader
    return False


# --- legality ---------------------------------------------------------------------------
@hot
def legal_cards(hand: np.uint64, led: int, win: int, partner_wins: bool, trump: int,
                suit_of: np.ndarray, suit_mask: np.ndarray, excuse_mask: np.uint64,
                above: np.ndarray, rules: np.ndarray) -> np.uint64:
    """The cards of ``hand`` that may be played now (a mask). ``partner_wins`` comes from
    ``partner_winning`` with the game's ``rules[R_PARTNER_EXEMPT]`` mode."""
    if led < 0:  # leading (or only an Excuse on the table): anything goes
        return hand
    excuse = hand & excuse_mask
    follow = hand & suit_mask[led]
    trump_on = trump >= 0 and suit_of[win] == trump
    if follow != EMPTY:
        beat_led = rules[R_MUST_BEAT_LED] and not (rules[R_BEAT_LED_PARTNER_EXEMPT] and partner_wins)
        if led == trump:
            if rules[R_RAISE_TRUMP_LEAD] or beat_led:
                higher = follow & above[win]
                if higher != EMPTY:
                    return higher | excuse
            return follow | excuse
        if beat_led and not trump_on:
            higher = follow & above[win]
            if higher != EMPTY:
                return higher | excuse
        return follow | excuse
    trumps = hand & suit_mask[trump] if trump >= 0 else EMPTY
    if trumps == EMPTY:
        return hand
    higher = trumps & above[win] if trump_on else trumps
    if rules[R_MUST_TRUMP] and not partner_wins:
        if trump_on and rules[R_MUST_OVERTRUMP]:
            if higher != EMPTY:
                return higher | excuse
            if rules[R_UNDERTRUMP]:
                return trumps | excuse
            return hand
        return trumps | excuse
    if trump_on and rules[R_MUST_OVERTRUMP] and rules[R_OVERTRUMP_PARTNER] and higher != EMPTY:
        return (hand & ~trumps) | higher
    return hand


# --- heuristic play building blocks -----------------------------------------------------
@hot
def random_card(state: np.uint64, mask: np.uint64) -> tuple[np.uint64, int]:
    """Uniformly random card of a non-empty ``mask``."""
    state, k = below(state, count(mask))
    return state, nth(mask, k)


@hot
def winners(legal: np.uint64, win: int, trump: int, suit_of: np.ndarray, suit_mask: np.ndarray,
            excuse_mask: np.uint64, above: np.ndarray) -> np.uint64:
    """The legal cards that would take the lead from ``win``: stronger cards of its suit,
    and any trump when ``win`` is not a trump (any card but an Excuse when nothing but an
    Excuse is on the table, ``win`` = -1)."""
    if win < 0:
        return legal & ~excuse_mask
    beaters = above[win]
    if trump >= 0 and suit_of[win] != trump:
        beaters |= suit_mask[trump]
    return legal & beaters & ~excuse_mask


@hot
def follow_heuristic(legal: np.uint64, win: int, partner_wins: bool, last: bool, on_table: int,
                     trump: int, suit_of: np.ndarray, suit_mask: np.ndarray,
                     excuse_mask: np.uint64, above: np.ndarray, points: np.ndarray,
                     cheap_rank: np.ndarray, rich_rank: np.ndarray, win_rank: np.ndarray,
                     win_min_points: int) -> int:
    """Second-or-later card of a trick: load points on a winning partner (never a trump);
    otherwise win as cheaply as possible when the trick is worth it (or nobody plays after
    us); otherwise shed the cheapest card. ``on_table``: points already in the trick."""
    if partner_wins:
        plain = legal & ~suit_mask[trump] if trump >= 0 else legal
        if plain != EMPTY:
            return best_in(plain, rich_rank)
        return best_in(legal, cheap_rank)
    c = best_in(winners(legal, win, trump, suit_of, suit_mask, excuse_mask, above), win_rank)
    if c >= 0 and (last or on_table + points[c] >= win_min_points):
        return c
    return best_in(legal, cheap_rank)


@hot_inline
def sure_winner(c: int, unseen: np.uint64, trump: int, suit_of: np.ndarray,
                suit_mask: np.ndarray, above: np.ndarray) -> bool:
    """Nothing unseen beats ``c``: no stronger card of its suit, and, off trump, no trump
    left that a void player could ruff with (``trump`` -1: none)."""
    if above[c] & unseen != EMPTY:
        return False
    return trump < 0 or suit_of[c] == trump or unseen & suit_mask[trump] == EMPTY


@hot_inline
def load_on_partner(legal: np.uint64, win: int, trump: int, unseen: np.uint64,
                    suit_of: np.ndarray, suit_mask: np.ndarray, above: np.ndarray,
                    points: np.ndarray, cheap: np.ndarray, rich: np.ndarray, big: int) -> int:
    """Second or third card on the partner's winning trick, an opponent still to play:
    the richest plain card when the partner's card is a sure winner (``sure_winner``),
    else the richest plain card worth less than ``big`` points (a card worth more loaded
    on a trick an opponent may still take is lost with it); a trump only when nothing
    else is legal, the cheapest."""
    plain = legal & ~suit_mask[trump] if trump >= 0 else legal
    if plain == EMPTY:
        return best_in(legal, cheap)
    if sure_winner(win, unseen, trump, suit_of, suit_mask, above):
        return best_in(plain, rich)
    small = EMPTY
    m = plain
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if points[c] < big:
            small |= bit(c)
    return best_in(small if small != EMPTY else legal, rich if small != EMPTY else cheap)


@hot
def is_master(card: int, unseen: np.uint64, above: np.ndarray) -> bool:
    """No card still unseen by this player (not played, not in hand) beats ``card`` in
    its suit."""
    return above[card] & unseen == EMPTY


# === two-word card sets: decks of up to 128 card slots (Tarot's 78) ======================
# A wide card set is a pair (w0, w1) of uint64 words: slot ``c`` is bit ``c & 63`` of word
# ``c >> 6``. A game numbers its cards into slots as suits it (Tarot: the 56 suit cards in
# word 0, the 21 trumps and the Excuse in word 1, so "my trumps" is one AND on one word);
# unused slots have suit -1. The functions below mirror the one-word ones above (same
# rule flags, same semantics); the one-word functions are unchanged.
W_SLOTS = 128

_P1 = np.uint64(0x5555555555555555)
_P2 = np.uint64(0x3333333333333333)
_P4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_P8 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@hot
def popcount(mask: np.uint64) -> int:
    """Number of cards in ``mask`` in constant time (SWAR; ``count`` loops per card)."""
    mask = mask - ((mask >> _S1) & _P1)
    mask = (mask & _P2) + ((mask >> _S2) & _P2)
    mask = (mask + (mask >> _S4)) & _P4
    return np.int64((mask * _P8) >> _S56)


@dataclass(frozen=True)
class WideTables:
    """Tables for one trump choice, indexed by slot (build once per game and knob set)."""

    suit_of: np.ndarray  # int64 [128], -1 = unused slot
    suit_mask: np.ndarray  # uint64 [8, 2]: the slots of each suit code
    excuse_mask: np.ndarray  # uint64 [2]
    strength: np.ndarray  # int64 [128]
    points: np.ndarray  # int64 [128]
    above: np.ndarray  # uint64 [128, 2]: the slots of c's suit that beat c
    cheap_rank: np.ndarray  # int64 [128] (see TrickTables)
    rich_rank: np.ndarray  # int64 [128]
    win_rank: np.ndarray  # int64 [128]

    def kernel_args(self) -> tuple:
        return (self.suit_of, self.suit_mask, self.excuse_mask, self.strength, self.points,
                self.above, self.cheap_rank, self.rich_rank, self.win_rank)


def wide_trick_tables(suit_of: np.ndarray, strength: np.ndarray, points: np.ndarray,
                      trump: int) -> WideTables:
    """Tables for a deck numbered in slots (``suit_of[c] = -1``: no card in slot c);
    ``strength``/``points`` are the per-slot values under trump ``trump`` (-1: none)."""
    n = len(suit_of)
    if n > W_SLOTS:
        raise ValueError(f"the two-word trick module holds at most {W_SLOTS} slots, not {n}")
    so = np.full(W_SLOTS, -1, dtype=np.int64)
    so[:n] = suit_of
    st = np.zeros(W_SLOTS, dtype=np.int64)
    st[:n] = strength
    pt = np.zeros(W_SLOTS, dtype=np.int64)
    pt[:n] = points
    used = [c for c in range(W_SLOTS) if so[c] >= 0]

    def put(m: np.ndarray, c: int) -> None:
        m[c >> 6] |= np.uint64(1) << np.uint64(c & 63)

    suit_mask = np.zeros((8, 2), dtype=np.uint64)
    excuse = np.zeros(2, dtype=np.uint64)
    above = np.zeros((W_SLOTS, 2), dtype=np.uint64)
    for c in used:
        put(suit_mask[so[c]], c)
        if so[c] == EXCUSE_SUIT:
            put(excuse, c)
        for d in used:
            if so[d] == so[c] and st[d] > st[c]:
                put(above[c], d)
    is_t = so == trump
    big = W_SLOTS * 2
    cheap = np.full(W_SLOTS, big, dtype=np.int64)
    rich = np.full(W_SLOTS, big, dtype=np.int64)
    win = np.full(W_SLOTS, big, dtype=np.int64)
    orders = (
        sorted(used, key=lambda c: (pt[c], is_t[c], st[c], c)),
        sorted(used, key=lambda c: (is_t[c], -pt[c], -st[c], c)),
        sorted(used, key=lambda c: (is_t[c], st[c], pt[c], c)),
    )
    for table, order in zip((cheap, rich, win), orders, strict=True):
        table[order] = np.arange(len(order))
    return WideTables(so, suit_mask, excuse, st, pt, above, cheap, rich, win)


@hot
def wbit(c: int) -> tuple[np.uint64, np.uint64]:
    if c < 64:
        return ONE << np.uint64(c), EMPTY
    return EMPTY, ONE << np.uint64(c - 64)


@hot
def whas(w0: np.uint64, w1: np.uint64, c: int) -> bool:
    if c < 64:
        return (w0 >> np.uint64(c)) & ONE != EMPTY
    return (w1 >> np.uint64(c - 64)) & ONE != EMPTY


@hot
def wcount(w0: np.uint64, w1: np.uint64) -> int:
    return popcount(w0) + popcount(w1)


@hot
def wlowest(w0: np.uint64, w1: np.uint64) -> int:
    """Lowest slot of a non-empty set."""
    if w0 != EMPTY:
        return lowest(w0)
    return 64 + lowest(w1)


@hot
def wnth(w0: np.uint64, w1: np.uint64, k: int) -> int:
    """The k-th (0-based) slot of the set, lowest first."""
    n0 = popcount(w0)
    if k < n0:
        return nth(w0, k)
    return 64 + nth(w1, k - n0)


@hot
def wbest_in(w0: np.uint64, w1: np.uint64, rank: np.ndarray) -> int:
    """The slot of the set with the lowest ``rank`` (-1 if the set is empty)."""
    best = -1
    best_rank = 1 << 62
    while w0 != EMPTY:
        c = lowest(w0)
        w0 &= w0 - ONE
        if rank[c] < best_rank:
            best_rank = rank[c]
            best = c
    while w1 != EMPTY:
        c = 64 + lowest(w1)
        w1 &= w1 - ONE
        if rank[c] < best_rank:
            best_rank = rank[c]
            best = c
    return best


@hot
def wcards_of(w0: np.uint64, w1: np.uint64, out: np.ndarray) -> int:
    """Write the slots of the set (ascending) to ``out``; return how many."""
    n = 0
    while w0 != EMPTY:
        out[n] = lowest(w0)
        w0 &= w0 - ONE
        n += 1
    while w1 != EMPTY:
        out[n] = 64 + lowest(w1)
        w1 &= w1 - ONE
        n += 1
    return n


@hot
def wbeats(card: int, win: int, trump: int, suit_of: np.ndarray, above: np.ndarray) -> bool:
    """Two-word ``beats``: does ``card`` take the lead from ``win`` (-1: none)?"""
    s = suit_of[card]
    if s == EXCUSE_SUIT:
        return False
    if win < 0:
        return True
    if whas(above[win, 0], above[win, 1], card):
        return True
    return s == trump and suit_of[win] != trump


@hot
def wupdate_trick(card: int, seat: int, led: int, win: int, win_seat: int, trump: int,
                  suit_of: np.ndarray, above: np.ndarray) -> tuple[int, int, int]:
    """Two-word ``update_trick``."""
    if led < 0 and suit_of[card] != EXCUSE_SUIT:
        led = suit_of[card]
    if wbeats(card, win, trump, suit_of, above):
        return led, card, seat
    return led, win, win_seat


@hot
def wlegal_cards(h0: np.uint64, h1: np.uint64, led: int, win: int, partner_wins: bool,
                 trump: int, suit_of: np.ndarray, suit_mask: np.ndarray, excuse_mask: np.ndarray,
                 above: np.ndarray, rules: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """Two-word ``legal_cards`` (same rule flags and semantics)."""
    if led < 0:
        return h0, h1
    e0 = h0 & excuse_mask[0]
    e1 = h1 & excuse_mask[1]
    f0 = h0 & suit_mask[led, 0]
    f1 = h1 & suit_mask[led, 1]
    trump_on = trump >= 0 and suit_of[win] == trump
    if f0 | f1 != EMPTY:
        beat_led = rules[R_MUST_BEAT_LED] and not (rules[R_BEAT_LED_PARTNER_EXEMPT] and partner_wins)
        if led == trump:
            if rules[R_RAISE_TRUMP_LEAD] or beat_led:
                g0 = f0 & above[win, 0]
                g1 = f1 & above[win, 1]
                if g0 | g1 != EMPTY:
                    return g0 | e0, g1 | e1
            return f0 | e0, f1 | e1
        if beat_led and not trump_on:
            g0 = f0 & above[win, 0]
            g1 = f1 & above[win, 1]
            if g0 | g1 != EMPTY:
                return g0 | e0, g1 | e1
        return f0 | e0, f1 | e1
    if trump < 0:
        return h0, h1
    t0 = h0 & suit_mask[trump, 0]
    t1 = h1 & suit_mask[trump, 1]
    if t0 | t1 == EMPTY:
        return h0, h1
    if trump_on:
        g0 = t0 & above[win, 0]
        g1 = t1 & above[win, 1]
    else:
        g0 = t0
        g1 = t1
    if rules[R_MUST_TRUMP] and not partner_wins:
        if trump_on and rules[R_MUST_OVERTRUMP]:
            if g0 | g1 != EMPTY:
                return g0 | e0, g1 | e1
            if rules[R_UNDERTRUMP]:
                return t0 | e0, t1 | e1
            return h0, h1
        return t0 | e0, t1 | e1
    if trump_on and rules[R_MUST_OVERTRUMP] and rules[R_OVERTRUMP_PARTNER] and g0 | g1 != EMPTY:
        return (h0 & ~t0) | g0, (h1 & ~t1) | g1
    return h0, h1


@hot
def wrandom_card(state: np.uint64, w0: np.uint64, w1: np.uint64) -> tuple[np.uint64, int]:
    """Uniformly random slot of a non-empty set."""
    state, k = below(state, wcount(w0, w1))
    return state, wnth(w0, w1, k)


@hot
def wwinners(l0: np.uint64, l1: np.uint64, win: int, trump: int, suit_of: np.ndarray,
             suit_mask: np.ndarray, excuse_mask: np.ndarray, above: np.ndarray
             ) -> tuple[np.uint64, np.uint64]:
    """Two-word ``winners``: the cards of (l0, l1) that would take the lead from ``win``."""
    if win < 0:
        return l0 & ~excuse_mask[0], l1 & ~excuse_mask[1]
    b0 = above[win, 0]
    b1 = above[win, 1]
    if trump >= 0 and suit_of[win] != trump:
        b0 |= suit_mask[trump, 0]
        b1 |= suit_mask[trump, 1]
    return l0 & b0 & ~excuse_mask[0], l1 & b1 & ~excuse_mask[1]


@hot
def wis_master(card: int, u0: np.uint64, u1: np.uint64, above: np.ndarray) -> bool:
    """Two-word ``is_master``: no unseen card (u0, u1) beats ``card`` in its suit."""
    return (above[card, 0] & u0) | (above[card, 1] & u1) == EMPTY

